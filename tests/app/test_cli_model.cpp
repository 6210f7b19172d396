// attention-cli tokenize / forward / generate on a GPT-2 folder the test writes: a tiny random
// model with GPT-2's real vocabulary (tests/data/gpt2-tokenizer). The engine's numbers are checked
// against PyTorch in test_gpt2_forward and test_gpt2_model_folder; here the command line: the
// tokenizer's reference ids, the JSON fields and shapes, the numbers the loaded model gives, the
// cache arithmetic, names found in a Hugging Face cache, and every error as one line.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "app/io/model_folder.h"
#include "cli_run.h"
#include "model/generator.h"
#include "model/transformer.h"
#include "tests/reference/gpt2_tokenizer_reference.h"
#include "tests/support/model_test_folder.h"
#include "tests/support/model_test_weights.h"

class TestCliModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void tokenize();
    void forward();
    void forwardSummaryAndIds();
    void threadsDoNotChangeTheNumbers();
    void generate();
    void modelByNameInTheCache();
    void exportHeads();
    void errors();

private:
    QJsonObject run(const QStringList& args);
    QTemporaryDir dir_;
    QString model_;
    attn::TransformerSpec config_;
};

void TestCliModel::initTestCase() {
    QVERIFY(dir_.isValid());
    model_ = dir_.filePath(QStringLiteral("tiny-gpt2"));
    config_ = attn::gpt2_spec(2, 2, 8, 24, gpt2_tokenizer_reference::kVocabSize, 32);
    const attn::TransformerWeights weights = attn::make_random_weights(config_, 7);
    QString error;
    QVERIFY2(model_test::writeFolder(model_, weights, QStringLiteral("F32"),
                                     model_test::Layout::Prefixed, &error),
             qPrintable(error));
    QVERIFY(model_test::copyTokenizer(model_, QStringLiteral(ATTN_GPT2_TOKENIZER_DIR)));
}

QJsonObject TestCliModel::run(const QStringList& args) {
    const CliRun r = runCli(args);
    if (r.exitCode != 0) qWarning() << r.err;
    [&] { QCOMPARE(r.exitCode, 0); }();
    return QJsonDocument::fromJson(r.out).object();
}

void TestCliModel::tokenize() {
    for (const auto& c : gpt2_tokenizer_reference::kCases) {
        const QJsonObject json =
            run({"tokenize", "--model", model_, "--text", QString::fromUtf8(c.text)});
        const QJsonArray ids = json.value("ids").toArray();
        const QJsonArray tokens = json.value("tokens").toArray();
        QCOMPARE(static_cast<std::size_t>(ids.size()), c.ids.size());
        for (qsizetype i = 0; i < ids.size(); ++i) {
            QCOMPARE(ids[i].toInt(), c.ids[static_cast<std::size_t>(i)]);
            QCOMPARE(tokens[i].toString(),
                     QString::fromUtf8(c.tokens[static_cast<std::size_t>(i)]));
        }
    }
}

void TestCliModel::forward() {
    const QJsonObject json =
        run({"forward", "--model", model_, "--text", "Your journey starts with one step"});
    const QJsonObject model = json.value("model").toObject();
    QCOMPARE(model.value("model_type").toString(), QStringLiteral("gpt2"));
    QCOMPARE(model.value("n_layer").toInt(), 2);
    QCOMPARE(model.value("n_head").toInt(), 2);
    QCOMPARE(model.value("n_embd").toInt(), 8);
    QCOMPARE(model.value("vocab_size").toInt(), 50257);
    QCOMPARE(model.value("n_positions").toInt(), 24);
    QCOMPARE(model.value("dtype").toString(), QStringLiteral("F32"));
    QCOMPARE(json.value("ids").toArray(), (QJsonArray{7120, 7002, 4940, 351, 530, 2239}));
    QCOMPARE(json.value("tokens").toArray().at(1).toString(), QStringLiteral("Ġjourney"));
    QVERIFY(!json.contains("logits"));
    // The numbers of the loaded model: the engine on the same folder.
    const attn::ModelLoadResult loaded = attn::loadModelFolder(model_);
    QVERIFY(loaded.ok());
    const attn::ModelForwardResult expected =
        attn::model_forward(*loaded.weights, {7120, 7002, 4940, 351, 530, 2239});
    const QJsonArray layers = json.value("attentions").toArray();
    QCOMPARE(layers.size(), 2);
    for (int l = 0; l < 2; ++l) {
        const QJsonArray heads = layers[l].toArray();
        QCOMPARE(heads.size(), 2);
        for (int h = 0; h < 2; ++h) {
            const QJsonArray rows = heads[h].toArray();
            QCOMPARE(rows.size(), 6);
            for (int q = 0; q < 6; ++q) {
                const QJsonArray row = rows[q].toArray();
                QCOMPARE(row.size(), 6);
                double sum = 0;
                for (int k = 0; k < 6; ++k) {
                    const float value = static_cast<float>(row[k].toDouble());
                    QCOMPARE(value, expected.attentions[static_cast<std::size_t>(l)]
                                                       [static_cast<std::size_t>(h)](q, k));
                    if (k > q) QCOMPARE(value, 0.0f);  // causal: zeros above the diagonal
                    sum += static_cast<double>(value);
                }
                QVERIFY(std::abs(sum - 1.0) < 1e-5);
            }
        }
    }
    const QJsonArray next = json.value("next_tokens").toArray();
    QCOMPARE(next.size(), 5);
    for (int i = 0; i < 5; ++i) {
        const QJsonObject t = next[i].toObject();
        QCOMPARE(t.value("id").toInt(), expected.top_tokens[static_cast<std::size_t>(i)].id);
        QCOMPARE(static_cast<float>(t.value("prob").toDouble()),
                 expected.top_tokens[static_cast<std::size_t>(i)].prob);
        QVERIFY(!t.value("token").toString().isEmpty());
    }
    const QJsonObject withLogits =
        run({"forward", "--model", model_, "--text", "Your journey", "--logits"});
    const QJsonArray logits = withLogits.value("logits").toArray();
    QCOMPARE(logits.size(), 2);
    QCOMPARE(logits[1].toArray().size(), 50257);
}

void TestCliModel::forwardSummaryAndIds() {
    const QJsonObject byIds = run({"forward", "--model", model_, "--ids", "7120, 7002"});
    QCOMPARE(byIds.value("tokens").toArray(), (QJsonArray{"Your", "Ġjourney"}));
    const QJsonObject summary =
        run({"forward", "--model", model_, "--ids", "7120,7002", "--summary"});
    QCOMPARE(summary.keys(),
             (QStringList{"elapsed_ms", "model", "next_tokens", "peak_rss_mb", "tokens"}));
    QCOMPARE(summary.value("tokens").toInt(), 2);
    // The summary keeps no attentions, so it runs the fast kernel: the same tokens, probabilities
    // within float rounding.
    const QJsonArray fast = summary.value("next_tokens").toArray();
    const QJsonArray full = byIds.value("next_tokens").toArray();
    QCOMPARE(fast.size(), 5);
    for (qsizetype i = 0; i < 5; ++i) {
        QCOMPARE(fast[i].toObject().value("id"), full[i].toObject().value("id"));
        const double a = fast[i].toObject().value("prob").toDouble();
        const double b = full[i].toObject().value("prob").toDouble();
        QVERIFY(std::abs(a - b) <= 1e-5 * b);
    }
    QVERIFY(summary.value("elapsed_ms").toDouble(-1) >= 0);
    QVERIFY(summary.value("peak_rss_mb").toDouble() > 1);
    // --repeat: two more passes timed, the same next tokens.
    const QJsonObject repeated =
        run({"forward", "--model", model_, "--ids", "7120,7002", "--summary", "--repeat", "2"});
    QCOMPARE(repeated.value("next_tokens"), summary.value("next_tokens"));
    const QJsonArray times = repeated.value("repeat_ms").toArray();
    QCOMPARE(times.size(), qsizetype{2});
    for (const QJsonValue t : times) QVERIFY(t.isDouble() && t.toDouble() > 0.0);
}

void TestCliModel::threadsDoNotChangeTheNumbers() {
    // Every output element is summed by one thread in the same order whatever the count, so one
    // thread and two give the same bytes (elapsed_ms aside).
    auto without = [](QJsonObject o) {
        o.remove("elapsed_ms");
        o.remove("peak_rss_mb");
        o.remove("tokens_per_second");
        o.remove("prompt_ms");
        o.remove("check_ms");
        return o;
    };
    const QStringList forward{"forward", "--model", model_, "--text", "Your journey starts with"};
    QCOMPARE(without(run(forward + QStringList{"--threads", "2"})),
             without(run(forward + QStringList{"--threads", "1"})));
    const QStringList generate{"generate",     "--model",          model_, "--text",
                               "Your journey", "--max-new-tokens", "6"};
    QCOMPARE(without(run(generate + QStringList{"--threads", "2"})),
             without(run(generate + QStringList{"--threads", "1"})));
    // Every subcommand takes it.
    QCOMPARE(runCli({"compute", "--module", "self-attention-v1", "--threads", "1"}).exitCode, 0);
}

void TestCliModel::generate() {
    const QJsonObject json = run(
        {"generate", "--model", model_, "--text", "Your journey starts", "--max-new-tokens", "5"});
    const QJsonArray ids = json.value("ids").toArray();
    const QJsonArray newIds = json.value("new_ids").toArray();
    QVERIFY(newIds.size() >= 1 && newIds.size() <= 5);
    QCOMPARE(ids.size(), 3 + newIds.size());
    QCOMPARE(ids.first().toInt(), 7120);
    // Greedy: the engine's own greedy continuation of the loaded model.
    const attn::ModelLoadResult loaded = attn::loadModelFolder(model_);
    attn::GenerationOptions options;
    options.max_new_tokens = 5;
    options.eos_id = 50256;
    const attn::GenerationResult expected =
        attn::generate(*loaded.weights, {7120, 7002, 4940}, options);
    QCOMPARE(static_cast<std::size_t>(newIds.size()), expected.new_ids.size());
    for (qsizetype i = 0; i < newIds.size(); ++i)
        QCOMPARE(newIds[i].toInt(), expected.new_ids[static_cast<std::size_t>(i)]);
    // Keys and values of every layer for the final sequence: 2 · n_layer · tokens · n_embd · 4.
    QCOMPARE(json.value("cache_bytes").toInteger(), 2 * 2 * ids.size() * 8 * 4);
    QVERIFY(json.value("max_abs_diff_vs_full_pass").toDouble(1) <= 1e-5);
    QVERIFY(json.value("text").toString().startsWith(QStringLiteral("Your journey starts")));
    QVERIFY(json.value("tokens_per_second").toDouble() > 0);
    // Three timings, each of what it names: the new tokens, the prompt's pass, the check.
    for (const char* key : {"elapsed_ms", "prompt_ms", "check_ms"})
        QVERIFY2(json.value(key).isDouble() && json.value(key).toDouble() >= 0, key);
    const double perSecond =
        static_cast<double>(newIds.size()) / (json.value("elapsed_ms").toDouble() / 1000.0);
    QVERIFY(std::abs(json.value("tokens_per_second").toDouble() - perSecond) <= 1e-9 * perSecond);
    // --temperature 0, the default --help names, is greedy: the same ids.
    const QJsonObject zero = run({"generate", "--model", model_, "--text", "Your journey starts",
                                  "--max-new-tokens", "5", "--temperature", "0"});
    QCOMPARE(zero.value("ids"), json.value("ids"));
    // Sampling with a seed repeats itself.
    const QStringList sampled{
        "generate", "--model",       model_, "--text",  "Your journey", "--max-new-tokens",
        "4",        "--temperature", "1.5",  "--top-k", "50",           "--seed",
        "3"};
    QCOMPARE(run(sampled).value("ids"), run(sampled).value("ids"));
}

// A name that is not a folder is found in the Hugging Face cache, the snapshot refs/main names.
void TestCliModel::modelByNameInTheCache() {
    QTemporaryDir home;
    const QString repo = home.filePath("hub/models--someone--tiny-gpt2");
    const QString snapshot = repo + "/snapshots/0123456789abcdef";
    QVERIFY(QDir().mkpath(snapshot));
    QVERIFY(QDir().mkpath(repo + "/refs"));
    QFile ref(repo + "/refs/main");
    QVERIFY(ref.open(QIODevice::WriteOnly));
    ref.write("0123456789abcdef");
    ref.close();
    for (const QString& name : QDir(model_).entryList(QDir::Files))
        QVERIFY(QFile::copy(QDir(model_).filePath(name), snapshot + "/" + name));
    qputenv("HF_HOME", home.path().toUtf8());
    qunsetenv("HF_HUB_CACHE");
    const QJsonObject json = run({"tokenize", "--model", "someone/tiny-gpt2", "--text", "Hi"});
    QCOMPARE(json.value("ids").toArray(), (QJsonArray{17250}));
    const CliRun missing = runCli({"tokenize", "--model", "someone/absent", "--text", "Hi"});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY(missing.out.isEmpty());
    QVERIFY2(missing.err.contains("someone/absent") && missing.err.contains(home.path().toUtf8()),
             missing.err.constData());
    qunsetenv("HF_HOME");
}

// export --model: one figure per head, named layer-L-head-H, holding the model's weights.
void TestCliModel::exportHeads() {
    QTemporaryDir out;
    const CliRun csv = runCli({"export", "--model", model_, "--text", "Your journey starts",
                               "--layer", "2", "--format", "csv", "--out", out.path()});
    QVERIFY2(csv.exitCode == 0, csv.err.constData());
    QCOMPARE(csv.lines().size(), 2);
    QVERIFY(csv.lines().at(0).endsWith("layer-2-head-1.csv"));
    QVERIFY(csv.lines().at(1).endsWith("layer-2-head-2.csv"));
    const attn::ModelLoadResult loaded = attn::loadModelFolder(model_);
    const attn::ModelForwardResult expected =
        attn::model_forward(*loaded.weights, {7120, 7002, 4940});
    QFile file(out.filePath("layer-2-head-2.csv"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList rows =
        QString::fromUtf8(file.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 4);  // header + 3 tokens
    QCOMPARE(rows[0], QString::fromUtf8(",Your,␣journey,␣starts"));
    for (int r = 0; r < 3; ++r) {
        const QStringList cells = rows[r + 1].split(',');
        QCOMPARE(cells.size(), 4);
        for (int c = 0; c < 3; ++c)
            QCOMPARE(cells[c + 1].toFloat(), expected.attentions[1][1](r, c));
    }
    const CliRun png = runCli({"export", "--model", model_, "--text", "Your journey", "--layer",
                               "1", "--head", "2", "--out", out.path()});
    QVERIFY2(png.exitCode == 0, png.err.constData());
    QCOMPARE(png.lines().size(), 1);
    QFile image(png.lines().at(0));
    QVERIFY(image.open(QIODevice::ReadOnly));
    const QByteArray bytes = image.readAll();
    QVERIFY(bytes.startsWith("\x89PNG") && bytes.size() > 2000);
    const CliRun badLayer =
        runCli({"export", "--model", model_, "--text", "a", "--layer", "3", "--out", out.path()});
    QCOMPARE(badLayer.exitCode, 2);
    QVERIFY2(badLayer.err.contains("--layer \"3\" is not all or a number from 1 to 2"),
             badLayer.err.constData());
    const CliRun noModel = runCli({"export", "--text", "a", "--out", out.path()});
    QVERIFY2(noModel.err.contains("--text needs --model"), noModel.err.constData());
}

void TestCliModel::errors() {
    QTemporaryDir bad;
    QFile config(bad.filePath("config.json"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(R"({"model_type": "llama", "n_layer": 1})");
    config.close();
    QVERIFY(model_test::copyTokenizer(bad.path(), QStringLiteral(ATTN_GPT2_TOKENIZER_DIR)));
    const QString longText = QStringLiteral("one ").repeated(30).trimmed();
    const struct {
        QStringList args;
        const char* message;
    } cases[] = {
        {{"forward", "--text", "hi"}, "give --model DIR|NAME"},
        {{"forward", "--model", model_}, "give either --text TEXT or --ids 1,2,3"},
        {{"forward", "--model", model_, "--text", ""}, "--text is empty"},
        {{"forward", "--model", model_, "--ids", "1,x"}, "\"x\" is not a whole number"},
        {{"forward", "--model", model_, "--ids", "50257"},
         "id 50257 is outside the vocabulary (0 .. 50256)"},
        {{"forward", "--model", model_, "--text", longText},
         "the text is 30 tokens but the model reads at most 24 tokens"},
        {{"forward", "--model", model_, "--text", "a", "--summary", "--logits"},
         "give --summary or --logits"},
        {{"forward", "--model", model_, "--text", "a", "--repeat", "3"},
         "--repeat times the pass of a --summary: add --summary"},
        {{"forward", "--model", model_, "--text", "a", "--summary", "--repeat", "1001"},
         "--repeat 1001 is outside 1..1000"},
        {{"forward", "--model", bad.path(), "--text", "hi"},
         "config.json has no \"hidden_size\": copy config.json again from the model"},
        {{"forward", "--model", model_, "--text", "hi", "--threads", "0"},
         "--threads 0 is outside 1..4096"},
        {{"forward", "--model", model_, "--text", "hi", "--threads", "all"},
         "--threads \"all\" is not a whole number"},
        {{"generate", "--model", model_, "--text", "hi"}, "give --max-new-tokens N"},
        {{"generate", "--model", model_, "--text", "hi", "--max-new-tokens", "30"},
         "beyond the model's n_positions = 24"},
        {{"generate", "--model", model_, "--text", "hi", "--max-new-tokens", "3", "--top-k", "5"},
         "give --temperature T too"},
        {{"generate", "--model", model_, "--text", "hi", "--max-new-tokens", "3", "--temperature",
          "-1"},
         "--temperature \"-1\" is not a number in [0, 100]"},
        {{"generate", "--model", model_, "--text", "hi", "--max-new-tokens", "3", "--temperature",
          "0", "--top-k", "5"},
         "--temperature 0 is greedy"},
    };
    for (const auto& c : cases) {
        const CliRun r = runCli(c.args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains(c.message), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);  // one line
    }
}

QTEST_GUILESS_MAIN(TestCliModel)
#include "test_cli_model.moc"
