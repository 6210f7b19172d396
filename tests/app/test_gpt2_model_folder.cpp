// A tiny random GPT-2 written as Hugging Face saves it, read back by the loader and run by the
// engine, gives PyTorch's attentions and logits (tests/reference/gpt2_model_reference.py): in
// F32, F16 and BF16, in one file, with GPT2LMHeadModel's names and in two shards.
#include <sys/resource.h>

#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "app/io/model_folder.h"
#include "model/generator.h"
#include "model/transformer.h"
#include "tests/reference/gpt2_model_reference.h"
#include "tests/support/model_test_folder.h"
#include "tests/support/model_test_weights.h"
#include "tests/support/process_memory.h"

class TestGpt2ModelFolder : public QObject {
    Q_OBJECT

private slots:
    void matchesPyTorch_data();
    void matchesPyTorch();
    void configErrorsPointAtTheKey_data();
    void configErrorsPointAtTheKey();
    void configBecomesTheSpec();
    void loadingFaultsTheWeightsIn();
};

// config.json's mistakes are located like every JSON reader's: file, line, column, fix.
void TestGpt2ModelFolder::configErrorsPointAtTheKey_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    const QByteArray head = "{\"model_type\": \"gpt2\",\n \"n_layer\": 2, ";
    const QByteArray sizes =
        "\"n_head\": 2, \"n_embd\": 8, \"n_positions\": 16, \"vocab_size\": 32";
    QTest::newRow("n_head a string")
        << head + "\"n_head\": \"two\"}"
        << "config.json: line 2, column 26: \"n_head\" is the string \"two\": give a whole "
           "number from 1 to 16777216";
    QTest::newRow("heads do not divide")
        << head + "\"n_head\": 3, \"n_embd\": 8, \"n_positions\": 16, \"vocab_size\": 32}"
        << "config.json: line 2, column 26: n_embd 8 is not divisible by n_head 3: the heads "
           "split the width evenly";
    QTest::newRow("unknown activation")
        << head + sizes + ",\n \"activation_function\": \"swish\"}"
        << "config.json: line 3, column 25: activation_function the string \"swish\" is not "
           "supported; use gelu_new (GPT-2's), gelu_pytorch_tanh, gelu or relu";
    QTest::newRow("another family")
        << QByteArray("{\"model_type\": \"t5\"}")
        << "config.json: line 1, column 16: \"model_type\" is the string \"t5\"; the models "
           "that open are \"gpt2\", \"llama\" (Llama 2/3, TinyLlama, SmolLM), \"mistral\", "
           "\"qwen2\", \"qwen3\", and the encoders \"bert\", \"distilbert\" and \"roberta\"";
}

void TestGpt2ModelFolder::configErrorsPointAtTheKey() {
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    const attn::ModelConfigResult r = attn::parseModelConfig(json);
    QVERIFY(!r.ok());
    QCOMPARE(r.error, message);
}

// GPT-2's names become the spec's; activation_function is read.
void TestGpt2ModelFolder::configBecomesTheSpec() {
    const attn::ModelConfigResult r = attn::parseModelConfig(
        "{\"model_type\": \"gpt2\", \"n_layer\": 3, \"n_head\": 4, \"n_embd\": 16, "
        "\"n_positions\": 64, \"vocab_size\": 100, \"n_inner\": null, \"layer_norm_epsilon\": "
        "1e-6, \"activation_function\": \"gelu\", \"tie_word_embeddings\": false, "
        "\"eos_token_id\": 99}");
    QVERIFY2(r.ok(), qPrintable(r.error));
    const attn::TransformerSpec& s = *r.spec;
    QCOMPARE(s.num_layers, Eigen::Index{3});
    QCOMPARE(s.num_heads, Eigen::Index{4});
    QCOMPARE(s.num_kv_heads, Eigen::Index{4});
    QCOMPARE(s.head_dim, Eigen::Index{4});
    QCOMPARE(s.d_ff, Eigen::Index{64});
    QCOMPARE(s.max_positions, Eigen::Index{64});
    QCOMPARE(s.norm_eps, 1e-6f);
    QVERIFY(s.activation == attn::ActivationKind::GeluErf);
    QVERIFY(!s.tied_output);
}

void TestGpt2ModelFolder::matchesPyTorch_data() {
    QTest::addColumn<int>("caseIndex");
    QTest::addColumn<int>("layout");
    const char* layouts[] = {"plain", "prefixed", "sharded"};
    for (std::size_t i = 0; i < gpt2_model_reference::kCases.size(); ++i) {
        const auto& c = gpt2_model_reference::kCases[i];
        for (int l = 0; l < 3; ++l)
            QTest::addRow("%s T=%zu %s", c.name, c.ids.size(), layouts[l])
                << static_cast<int>(i) << l;
    }
}

void TestGpt2ModelFolder::matchesPyTorch() {
    QFETCH(int, caseIndex);
    QFETCH(int, layout);
    const auto& c = gpt2_model_reference::kCases[static_cast<std::size_t>(caseIndex)];
    const attn::TransformerWeights written =
        attn::make_random_weights(attn::tiny_gpt2_spec(c.tied), gpt2_model_reference::kSeed);
    QTemporaryDir dir;
    QString error;
    // The writer rounds to F16/BF16 as torch's .half() / .bfloat16() do.
    QVERIFY2(model_test::writeFolder(dir.path(), written, QString::fromLatin1(c.dtype),
                                     static_cast<model_test::Layout>(layout), &error),
             qPrintable(error));
    const attn::ModelLoadResult loaded = attn::loadModelFolder(dir.path());
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    QCOMPARE(QString::fromStdString(loaded.weights->dtype), QString::fromLatin1(c.dtype));
    QCOMPARE(loaded.weights->spec.tied_output, c.tied);

    attn::ModelForwardOptions options;
    options.all_logits = true;
    const attn::ModelForwardResult result = attn::model_forward(*loaded.weights, c.ids, options);
    const auto t = static_cast<Eigen::Index>(c.ids.size());
    std::size_t k = 0;
    float worst = 0.0f;
    for (const auto& layer : result.attentions)
        for (const attn::Matrix& head : layer)
            for (Eigen::Index r = 0; r < t; ++r)
                for (Eigen::Index col = 0; col < t; ++col, ++k)
                    worst = std::max(worst, std::abs(head(r, col) - c.attentions.at(k)));
    QCOMPARE(k, c.attentions.size());
    QVERIFY2(worst <= 1e-5f, qPrintable(QString::number(static_cast<double>(worst))));
    QCOMPARE(static_cast<std::size_t>(result.logits.size()), c.logits.size());
    for (std::size_t i = 0; i < c.logits.size(); ++i) {
        const float got = result.logits.data()[i];
        const float want = c.logits[i];
        QVERIFY2(std::abs(got - want) <= 1e-5f * std::max(1.0f, std::abs(want)),
                 qPrintable(QStringLiteral("logit %1: %2 vs %3").arg(i).arg(got).arg(want)));
    }
}

namespace {

long minorFaults() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
}

}  // namespace

void TestGpt2ModelFolder::loadingFaultsTheWeightsIn() {
    // forward's elapsed_ms is the pass alone: the mapped F32 weights (here a 16 MiB token
    // embedding, 4096 pages, read whole by the tied output head) are read in while loading.
    attn::TransformerSpec spec = attn::tiny_gpt2_spec(true);
    spec.vocab_size = 65536;
    spec.d_model = 64;
    spec.head_dim = spec.d_model / spec.num_heads;
    spec.d_ff = 4 * spec.d_model;
    const attn::TransformerWeights written = attn::make_random_weights(spec, 3);
    QTemporaryDir dir;
    QString error;
    QVERIFY2(model_test::writeFolder(dir.path(), written, QStringLiteral("F32"),
                                     model_test::Layout::Plain, &error),
             qPrintable(error));
    const attn::ModelLoadResult loaded = attn::loadModelFolder(dir.path());
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    const std::vector<int> ids{1, 2, 3};
    // The same shapes on the weights in memory first: the allocator, the threads and the BLAS's
    // buffers are warm, so what the measured pass faults in is the mapped file.
    attn::model_forward(written, ids, {});
    const long before = minorFaults();
    const attn::ModelForwardResult result = attn::model_forward(*loaded.weights, ids, {});
    const long faults = minorFaults() - before;
    QCOMPARE(result.top_tokens.size(), std::size_t{5});
    // Without the loader's fault-in the first pass takes ~4096 faults on the embedding alone.
    QVERIFY2(faults < 400, qPrintable(QStringLiteral("%1 page faults in the pass").arg(faults)));

    // They were read in by being copied out of the file's mapping into memory that may use 2 MB
    // pages (app/io/weight_arena.h): the embedding's pages are not the file's.
    const attn::WeightView& embedding = (*loaded.weights)[attn::TensorRole::TokenEmbedding];
    QVERIFY(std::memcmp(embedding.data, written[attn::TensorRole::TokenEmbedding].data,
                        static_cast<std::size_t>(embedding.rows * embedding.cols) * 4) == 0);
    const QStringList block = model_test::smapsBlockOf(embedding.data);
    QVERIFY(!block.isEmpty());
    QVERIFY2(!block.first().contains(QStringLiteral("model.safetensors")),
             qPrintable(block.first()));
    const QString mode = model_test::transparentHugePages();
    if (!mode.isEmpty()) {
        const QStringList eligible = block.filter(QStringLiteral("THPeligible:"));
        QCOMPARE(eligible.size(), 1);
        QCOMPARE(eligible.first().endsWith(u'1'), mode != QLatin1String("never"));
    }
}

QTEST_GUILESS_MAIN(TestGpt2ModelFolder)
#include "test_gpt2_model_folder.moc"
