// Tiny random models of the LLaMA-layout families (Llama 3 with llama3 rope scaling, Llama with
// linear scaling and one K/V head, Mistral's sliding window, Qwen2's biases, Qwen3's q/k norms),
// written as Hugging Face saves them with the reference's own config.json, read back by the loader
// and run by the engine: transformers' numbers in float64 PyTorch
// (tests/reference/llama_families_reference.py).
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "app/io/model_folder.h"
#include "model/generator.h"
#include "model/transformer.h"
#include "tests/reference/llama_families_reference.h"
#include "tests/support/model_test_folder.h"
#include "tests/support/model_test_weights.h"

namespace ref = llama_families_reference;

class TestLlamaModelFolder : public QObject {
    Q_OBJECT

private slots:
    void matchesTransformers_data();
    void matchesTransformers();
    void configBecomesTheSpec();
    void badConfigsNameTheKey_data();
    void badConfigsNameTheKey();
    void ropeScalingFrequencies();
};

void TestLlamaModelFolder::matchesTransformers_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < ref::kModels.size(); ++i)
        QTest::newRow(ref::kModels[i].name) << static_cast<int>(i);
}

// Loader and engine against transformers: every layer's and head's attention within 2e-6 and the
// logits within 2e-5 (float32 against float64).
void TestLlamaModelFolder::matchesTransformers() {
    QFETCH(int, index);
    const ref::Model& m = ref::kModels[static_cast<std::size_t>(index)];
    const QByteArray config(m.config_json);
    const attn::ModelConfigResult parsed = attn::parseModelConfig(config);
    QVERIFY2(parsed.ok(), qPrintable(parsed.error));
    const attn::TransformerWeights drawn = attn::make_random_weights(*parsed.spec, m.seed);
    QTemporaryDir dir;
    QString error;
    QVERIFY2(model_test::writeFolder(dir.path(), drawn, QStringLiteral("F32"),
                                     model_test::Layout::Prefixed, &error, config),
             qPrintable(error));
    const attn::ModelLoadResult loaded = attn::loadModelFolder(dir.path());
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    attn::ModelForwardOptions forward_options;
    forward_options.all_logits = true;
    const attn::ModelForwardResult r =
        attn::model_forward(*loaded.weights, ref::kIds, forward_options);
    const auto t = static_cast<Eigen::Index>(ref::kIds.size());
    const attn::TransformerSpec& s = loaded.weights->spec;
    QCOMPARE(m.attentions.size(), static_cast<std::size_t>(s.num_layers * s.num_heads * t * t));
    double worst_attention = 0.0, worst_logit = 0.0;
    std::size_t at = 0;
    for (const auto& layer : r.attentions)
        for (const attn::Matrix& head : layer)
            for (Eigen::Index i = 0; i < t; ++i)
                for (Eigen::Index j = 0; j < t; ++j)
                    worst_attention =
                        std::max(worst_attention,
                                 std::abs(static_cast<double>(head(i, j)) - m.attentions[at++]));
    QCOMPARE(at, m.attentions.size());
    QCOMPARE(static_cast<std::size_t>(r.logits.size()), m.logits.size());
    for (Eigen::Index i = 0; i < r.logits.rows(); ++i)
        for (Eigen::Index v = 0; v < r.logits.cols(); ++v)
            worst_logit = std::max(
                worst_logit, std::abs(static_cast<double>(r.logits(i, v)) -
                                      m.logits[static_cast<std::size_t>(i * r.logits.cols() + v)]));
    QVERIFY2(worst_attention <= 2e-6, qPrintable(QString::number(worst_attention)));
    QVERIFY2(worst_logit <= 2e-5, qPrintable(QString::number(worst_logit)));

    // Generation through the kv_cache gives the full pass's logits (within the sliding window).
    attn::GenerationOptions options;
    options.max_new_tokens = s.sliding_window > 0 ? 0 : 4;
    const attn::GenerationResult g = attn::generate(*loaded.weights, {3}, options);
    QCOMPARE(g.new_ids.size(), static_cast<std::size_t>(options.max_new_tokens));
    QVERIFY(g.max_abs_diff_vs_full_pass <= 1e-5f);
    // The cache holds K and V of the key/value heads only.
    if (options.max_new_tokens > 0)
        QCOMPARE(g.cache_bytes,
                 static_cast<std::int64_t>(2 * s.num_layers * s.num_kv_heads *
                                           (1 + options.max_new_tokens) * s.head_dim * 4));
}

void TestLlamaModelFolder::configBecomesTheSpec() {
    auto spec = [](const char* name) {
        for (const ref::Model& m : ref::kModels)
            if (QByteArray(m.name) == name) return *attn::parseModelConfig(m.config_json).spec;
        throw std::runtime_error("no such model");
    };
    const attn::TransformerSpec llama3 = spec("llama3");
    QCOMPARE(llama3.family, attn::ModelFamily::Llama);
    QCOMPARE(llama3.num_heads, Eigen::Index{4});
    QCOMPARE(llama3.num_kv_heads, Eigen::Index{2});
    QCOMPARE(llama3.head_dim, Eigen::Index{8});
    QCOMPARE(llama3.d_ff, Eigen::Index{48});
    QCOMPARE(llama3.rope.base, 500000.0f);
    QCOMPARE(llama3.rope.scaling, attn::RopeScaling::Llama3);
    QCOMPARE(llama3.rope.factor, 8.0f);
    QCOMPARE(llama3.rope.original_max_positions, Eigen::Index{16});
    QVERIFY(llama3.tied_output);
    QCOMPARE(llama3.norm_eps, 1e-6f);
    const attn::ModelConfigResult ids = attn::parseModelConfig(ref::kModels[0].config_json);
    QCOMPARE(ids.bosTokenIds, std::vector<int>{1});
    QCOMPARE(ids.eosTokenIds, (std::vector<int>{2, 5}));
    const attn::TransformerSpec mq = spec("llama_linear");
    QCOMPARE(mq.num_kv_heads, Eigen::Index{1});
    QCOMPARE(mq.rope.scaling, attn::RopeScaling::Linear);
    QCOMPARE(mq.rope.factor, 2.0f);
    QVERIFY(!mq.tied_output);
    QCOMPARE(spec("mistral").sliding_window, Eigen::Index{3});
    QCOMPARE(spec("mistral").family, attn::ModelFamily::Mistral);
    const attn::TransformerSpec qwen2 = spec("qwen2");
    QVERIFY(qwen2.qkv_bias);
    QVERIFY(!qwen2.out_bias);
    QCOMPARE(qwen2.sliding_window, Eigen::Index{0});  // use_sliding_window false
    const attn::TransformerSpec qwen3 = spec("qwen3");
    QVERIFY(qwen3.qk_norm);
    QCOMPARE(qwen3.head_dim, Eigen::Index{8});
    QCOMPARE(qwen3.q_width(), Eigen::Index{32});
    QCOMPARE(attn::family_architecture(qwen3.family), std::string("Qwen3ForCausalLM"));
}

void TestLlamaModelFolder::badConfigsNameTheKey_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    const QByteArray sizes =
        "\"hidden_size\": 16, \"intermediate_size\": 24, \"num_hidden_layers\": 2, "
        "\"vocab_size\": 40, ";
    QTest::newRow("missing heads") << "{\"model_type\": \"llama\", " + sizes + "\"x\": 1}"
                                   << "config.json has no \"num_attention_heads\"";
    QTest::newRow("groups do not divide")
        << "{\"model_type\": \"llama\", " + sizes +
               "\"num_attention_heads\": 4, \"num_key_value_heads\": 3}"
        << "num_attention_heads 4 is not a multiple of num_key_value_heads 3";
    QTest::newRow("yarn") << "{\"model_type\": \"qwen2\", " + sizes +
                                 "\"num_attention_heads\": 4, \"rope_scaling\": {\"type\": "
                                 "\"yarn\", \"factor\": 4}}"
                          << "rope_scaling type \"yarn\" is not computed";
    QTest::newRow("llama3 bands reversed")
        << "{\"model_type\": \"llama\", " + sizes +
               "\"num_attention_heads\": 4, \"rope_scaling\": {\"rope_type\": \"llama3\", "
               "\"factor\": 8, \"low_freq_factor\": 4, \"high_freq_factor\": 1}}"
        << "needs 0 < low_freq_factor < high_freq_factor";
    QTest::newRow("mlp bias") << "{\"model_type\": \"llama\", " + sizes +
                                     "\"num_attention_heads\": 4, \"mlp_bias\": true}"
                              << "mlp_bias true is not read";
    QTest::newRow("gelu") << "{\"model_type\": \"mistral\", " + sizes +
                                 "\"num_attention_heads\": 4, \"hidden_act\": \"gelu\"}"
                          << "hidden_act the string \"gelu\" is not computed";
    QTest::newRow("odd head_dim") << "{\"model_type\": \"qwen3\", " + sizes +
                                         "\"num_attention_heads\": 4, \"head_dim\": 5}"
                                  << "head_dim = 5 is odd";
    QTest::newRow("windowed qwen")
        << "{\"model_type\": \"qwen2\", " + sizes +
               "\"num_attention_heads\": 4, \"use_sliding_window\": true}"
        << "use_sliding_window true";
    QTest::newRow("rope_theta zero")
        << "{\"model_type\": \"llama\", " + sizes + "\"num_attention_heads\": 4, \"rope_theta\": 0}"
        << "\"rope_theta\" is the number 0: give a positive number";
    QTest::newRow("moe") << QByteArray("{\"model_type\": \"qwen2_moe\"}")
                         << "\"model_type\" is the string \"qwen2_moe\"";
}

void TestLlamaModelFolder::badConfigsNameTheKey() {
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    const attn::ModelConfigResult r = attn::parseModelConfig(json);
    QVERIFY(!r.ok());
    QVERIFY2(r.error.contains(message), qPrintable(r.error));
    QVERIFY2(r.error.startsWith(QStringLiteral("config.json")), qPrintable(r.error));
}

// transformers' llama3 rule on Llama 3.1's own numbers (head_dim 128, rope_theta 500000, factor
// 8, bands 1 and 4, original context 8192): the values its _compute_llama3_parameters gives,
// printed by PyTorch 1.13 (float32) for frequencies 0, 20, 30, 40 and 63.
void TestLlamaModelFolder::ropeScalingFrequencies() {
    attn::TransformerSpec s = attn::tiny_llama_spec();
    s.head_dim = 128;
    s.rope.base = 500000.0f;
    s.rope.scaling = attn::RopeScaling::Llama3;
    s.rope.factor = 8.0f;
    s.rope.low_freq_factor = 1.0f;
    s.rope.high_freq_factor = 4.0f;
    s.rope.original_max_positions = 8192;
    const attn::RowVector f = attn::rope_inv_freq(s);
    QCOMPARE(f.size(), Eigen::Index{64});
    const std::pair<int, float> expected[] = {{0, 1.0f},
                                              {20, 0.016560440883040428f},
                                              {30, 0.0013718936825171113f},  // the blended band
                                              {40, 3.428102354519069e-05f},
                                              {63, 3.068925877869333e-07f}};
    for (const auto& [i, value] : expected)
        QVERIFY2(std::abs(f[i] - value) <= 1e-6f * value,
                 qPrintable(QStringLiteral("%1: %2 vs %3").arg(i).arg(f[i]).arg(value)));
    s.rope.scaling = attn::RopeScaling::Linear;
    s.rope.factor = 2.0f;
    s.rope.base = 10000.0f;
    const attn::RowVector linear = attn::rope_inv_freq(s);
    QCOMPARE(linear[0], 0.5f);
    // GGUF's rope_freqs factors divide the frequencies instead.
    s.rope.freq_factors.assign(64, 4.0f);
    QCOMPARE(attn::rope_inv_freq(s)[0], 0.25f);
}

QTEST_GUILESS_MAIN(TestLlamaModelFolder)
#include "test_llama_model_folder.moc"
