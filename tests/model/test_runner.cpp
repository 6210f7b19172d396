// model/runner.h: the table of modules and running a module of a given kind. The names and their
// errors, the tutorial's numbers through run_module, the defaults, every setting that does not
// apply, replacing weights, the fused projections, cross-attention, batches, dropout and the
// memory limit. Explore mode's switches are in test_runner_switches.cpp, decoding in
// test_kv_trace.cpp.
#include <QString>
#include <QTest>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/examples.h"
#include "model/ops.h"
#include "model/rng.h"
#include "model/runner.h"
#include "module_test_helpers.h"
#include "runner_test_helpers.h"

using attn::Matrix;
using attn::ModuleConfig;
using attn::ModuleKind;
using attn::RunResult;
using modtest::maxAbsDiff;
using modtest::toMatrix;
using runtest::configFor;
using runtest::errorOf;
using runtest::findWeight;
using runtest::with;

namespace {

// A printed 4-decimal value stands for +-0.00005; 2e-6 absorbs float32 summation-order rounding.
constexpr double kPrinted = modtest::kPrintedHalfStep + modtest::kFloatSlack;

}  // namespace

class TestRunner : public QObject {
    Q_OBJECT

private slots:
    // --- the table of modules -------------------------------------------------------------

    // The names the command line and example files use, in the tutorial's order, one per kind.
    void moduleNames() {
        const std::vector<std::string> expected = {
            "self-attention-v1",    "self-attention-v2",
            "causal-attention",     "multi-head-wrapper",
            "multi-head-attention", "bert-multi-head",
            "gpt2-attention",       "cross-attention",
            "self-attention-kv",    "multi-head-self-attention-kv"};
        QCOMPARE(attn::module_names(), expected);
        QCOMPARE(attn::module_infos().size(), expected.size());
        QCOMPARE(attn::module_infos().front().kind, ModuleKind::SelfAttentionV1);
        QCOMPARE(attn::module_infos().back().kind, ModuleKind::MultiHeadSelfAttentionKV);
    }

    void everyKindRoundTripsThroughItsName_data() {
        QTest::addColumn<ModuleKind>("module");
        for (const attn::ModuleInfo& info : attn::module_infos()) {
            QTest::newRow(runtest::rowName(info.kind)) << info.kind;
        }
    }
    void everyKindRoundTripsThroughItsName() {
        QFETCH(ModuleKind, module);
        const std::string_view name = attn::module_name(module);
        QVERIFY(!name.empty());
        QCOMPARE(attn::module_kind_from_name(name), module);
        QCOMPARE(attn::find_module_kind(name), std::optional<ModuleKind>(module));
        QCOMPARE(attn::module_info(module).kind, module);
        QCOMPARE(attn::module_info(module).name, name);
        QVERIFY(!attn::module_info(module).description.empty());
        // A module that refuses qkv_bias says why.
        QCOMPARE(attn::module_info(module).no_bias_reason.empty(),
                 attn::module_info(module).uses_qkv_bias);
    }

    void unknownNames_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("message");
        const QString all = QStringLiteral(
            "self-attention-v1, self-attention-v2, causal-attention, multi-head-wrapper, "
            "multi-head-attention, bert-multi-head, gpt2-attention, cross-attention, "
            "self-attention-kv, multi-head-self-attention-kv");
        QTest::newRow("a prefix") << "causal"
                                  << "unknown module \"causal\": choose one of " + all;
        QTest::newRow("another case")
            << "Causal-Attention"
            << "unknown module \"Causal-Attention\": choose one of " + all;
        QTest::newRow("empty") << ""
                               << "no module given: choose one of " + all;
    }
    void unknownNames() {
        QFETCH(QString, name);
        QFETCH(QString, message);
        const std::string text = name.toStdString();
        QCOMPARE(attn::find_module_kind(text), std::optional<ModuleKind>());
        try {
            attn::module_kind_from_name(text);
            QFAIL("an unknown name gave a module");
        } catch (const attn::AttentionError& e) {
            QCOMPARE(QString::fromStdString(e.what()), message);
        }
    }

    // A config without a module is refused with the same message as an empty name.
    void runWithoutModule() {
        QCOMPARE(errorOf(attn::ModuleConfig{}, attn::tutorial_inputs()),
                 QStringLiteral("no module given: choose one of self-attention-v1, "
                                "self-attention-v2, causal-attention, multi-head-wrapper, "
                                "multi-head-attention, bert-multi-head, gpt2-attention, "
                                "cross-attention, self-attention-kv, "
                                "multi-head-self-attention-kv"));
        QVERIFY(!attn::has_fast_path(attn::ModuleConfig{}));
    }

    // --- run_module --------------------------------------------------------------------------

    // 002_*.txt In [13]: SelfAttention v2 with torch.manual_seed(123).
    void selfAttentionV2PrintsTutorial() {
        const RunResult r =
            attn::run_module(configFor(ModuleKind::SelfAttentionV2), attn::tutorial_inputs());
        const Matrix printed = toMatrix({{-0.5337, -0.1051},
                                         {-0.5323, -0.1080},
                                         {-0.5323, -0.1079},
                                         {-0.5297, -0.1076},
                                         {-0.5311, -0.1066},
                                         {-0.5299, -0.1081}});
        QCOMPARE(r.output.context_vecs.size(), std::size_t{1});
        QVERIFY(maxAbsDiff(r.output.context_vecs[0], printed) <= kPrinted);
        QCOMPARE(r.weights.size(), std::size_t{3});
        QCOMPARE(r.weights[0].name, std::string("W_query.weight"));
        QCOMPARE(r.weights[0].value.rows(),
                 Eigen::Index{2});  // (d_out, d_in) as nn.Linear stores it
        QCOMPARE(r.weights[0].value.cols(), Eigen::Index{3});
    }

    // In [7]-[11]: query_2, keys, values and the context vector z(2) of SelfAttention_v1.
    void selfAttentionV1PrintsTutorial() {
        const RunResult r =
            attn::run_module(configFor(ModuleKind::SelfAttentionV1), attn::tutorial_inputs());
        const Matrix query2 = r.output.queries[0].row(1);
        QVERIFY(maxAbsDiff(query2, toMatrix({{0.4306, 1.4551}})) <= kPrinted);
        QVERIFY(maxAbsDiff(r.output.keys[0].row(0), toMatrix({{0.3669, 0.7646}})) <= kPrinted);
        QVERIFY(maxAbsDiff(r.output.values[0].row(5), toMatrix({{0.3221, 0.7863}})) <= kPrinted);
        QVERIFY(maxAbsDiff(r.output.context_vecs[0].row(1), toMatrix({{0.3061, 0.8210}})) <=
                kPrinted);
        QCOMPARE(r.weights[0].name, std::string("W_query"));
        QCOMPARE(r.weights[0].value.rows(), Eigen::Index{3});  // torch.rand(d_in, d_out)
    }

    // In [14]/[15]: the causal weights; token "Your" sees only itself, so its context vector is
    // its own value row.
    void causalAttentionPrintsTutorial() {
        const RunResult r =
            attn::run_module(configFor(ModuleKind::CausalAttention), attn::tutorial_inputs());
        const Matrix printed = toMatrix({{1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000},
                                         {0.4833, 0.5167, 0.0000, 0.0000, 0.0000, 0.0000},
                                         {0.3190, 0.3408, 0.3402, 0.0000, 0.0000, 0.0000},
                                         {0.2445, 0.2545, 0.2542, 0.2468, 0.0000, 0.0000},
                                         {0.1994, 0.2060, 0.2058, 0.1935, 0.1953, 0.0000},
                                         {0.1624, 0.1709, 0.1706, 0.1654, 0.1625, 0.1682}});
        const Matrix& weights = r.output.heads[0][0].weights;
        QVERIFY(maxAbsDiff(weights, printed) <= kPrinted);
        for (Eigen::Index i = 0; i < 6; ++i) {
            for (Eigen::Index j = i + 1; j < 6; ++j) {
                QCOMPARE(weights(i, j), 0.0f);
            }
        }
        QCOMPARE(r.output.context_vecs[0].row(0), r.output.values[0].row(0));
        QCOMPARE(r.config.context_length, Eigen::Index{6});
        QVERIFY(!r.training);
    }

    void resolvedDefaults_data() {
        QTest::addColumn<ModuleKind>("module");
        QTest::addColumn<qlonglong>("dIn");
        QTest::addColumn<qlonglong>("dOut");
        QTest::addColumn<qlonglong>("heads");
        QTest::addColumn<qlonglong>("contextLength");
        QTest::newRow("v1") << ModuleKind::SelfAttentionV1 << 3LL << 2LL << 1LL << 0LL;
        QTest::newRow("v2") << ModuleKind::SelfAttentionV2 << 3LL << 2LL << 1LL << 0LL;
        QTest::newRow("causal") << ModuleKind::CausalAttention << 3LL << 2LL << 1LL << 6LL;
        QTest::newRow("wrapper") << ModuleKind::MultiHeadWrapper << 3LL << 2LL << 2LL << 6LL;
        QTest::newRow("mha") << ModuleKind::MultiHeadAttention << 3LL << 2LL << 2LL << 6LL;
        QTest::newRow("bert d=3 -> 1 head")
            << ModuleKind::BertMultiHead << 3LL << 3LL << 1LL << 0LL;
        QTest::newRow("bert d=4 -> 2 heads")
            << ModuleKind::BertMultiHead << 4LL << 4LL << 2LL << 0LL;
        QTest::newRow("gpt2 d=3") << ModuleKind::Gpt2Attention << 3LL << 3LL << 1LL << 6LL;
        QTest::newRow("gpt2 d=8") << ModuleKind::Gpt2Attention << 8LL << 8LL << 2LL << 6LL;
        QTest::newRow("cross") << ModuleKind::CrossAttention << 3LL << 3LL << 1LL << 0LL;
    }
    void resolvedDefaults() {
        QFETCH(ModuleKind, module);
        QFETCH(qlonglong, dIn);
        QFETCH(qlonglong, dOut);
        QFETCH(qlonglong, heads);
        QFETCH(qlonglong, contextLength);
        const ModuleConfig c = attn::resolve_config(configFor(module), dIn, 6, 4);
        QCOMPARE(c.d_out, dOut);
        QCOMPARE(c.num_heads, heads);
        QCOMPARE(c.context_length, contextLength);
        QCOMPARE(c.seed, std::uint64_t{123});
        QCOMPARE(c.batch, Eigen::Index{1});
    }

    // Every module runs on the tutorial's inputs with its defaults; weights are probabilities.
    void everyModuleRuns_data() {
        QTest::addColumn<ModuleKind>("module");
        QTest::addColumn<qlonglong>("width");
        QTest::addColumn<qlonglong>("heads");
        QTest::addColumn<qlonglong>("keys");
        QTest::newRow("v1") << ModuleKind::SelfAttentionV1 << 2LL << 1LL << 6LL;
        QTest::newRow("v2") << ModuleKind::SelfAttentionV2 << 2LL << 1LL << 6LL;
        QTest::newRow("causal") << ModuleKind::CausalAttention << 2LL << 1LL << 6LL;
        QTest::newRow("wrapper: 2 heads of d_out")
            << ModuleKind::MultiHeadWrapper << 4LL << 2LL << 6LL;
        QTest::newRow("mha") << ModuleKind::MultiHeadAttention << 2LL << 2LL << 6LL;
        QTest::newRow("bert") << ModuleKind::BertMultiHead << 3LL << 1LL << 6LL;
        QTest::newRow("gpt2") << ModuleKind::Gpt2Attention << 3LL << 1LL << 6LL;
        QTest::newRow("cross: 6 x 4 weights") << ModuleKind::CrossAttention << 3LL << 1LL << 4LL;
    }
    void everyModuleRuns() {
        QFETCH(ModuleKind, module);
        QFETCH(qlonglong, width);
        QFETCH(qlonglong, heads);
        QFETCH(qlonglong, keys);
        const RunResult r = attn::run_module(configFor(module), attn::tutorial_inputs());
        QCOMPARE(r.output.context_vecs.size(), std::size_t{1});
        QCOMPARE(r.output.context_vecs[0].rows(), Eigen::Index{6});
        QCOMPARE(r.output.context_vecs[0].cols(), width);
        QCOMPARE(static_cast<qlonglong>(r.output.heads[0].size()), heads);
        for (const attn::AttentionResult& head : r.output.heads[0]) {
            QCOMPARE(head.weights.rows(), Eigen::Index{6});
            QCOMPARE(head.weights.cols(), keys);
            for (Eigen::Index i = 0; i < head.weights.rows(); ++i) {
                QVERIFY(std::abs(head.weights.row(i).sum() - 1.0f) <= 1e-5f);
            }
        }
        QVERIFY(!r.weights.empty());
    }

    // Feeding a run's own weights back under another seed reproduces it exactly: every parameter
    // is reachable by its name and replaces the drawn one.
    void weightsRoundTrip_data() { everyKindRoundTripsThroughItsName_data(); }
    void weightsRoundTrip() {
        QFETCH(ModuleKind, module);
        ModuleConfig config = configFor(module);
        const attn::ModuleInfo& info = attn::module_info(module);
        config.qkv_bias = info.uses_qkv_bias;  // biases too, where the module can have them
        const RunResult first = attn::run_module(config, attn::tutorial_inputs());
        config.seed = 7;
        const RunResult redrawn = attn::run_module(config, attn::tutorial_inputs());
        QVERIFY(maxAbsDiff(redrawn.output.context_vecs[0], first.output.context_vecs[0]) > 0.0);
        config.weights = first.weights;
        const RunResult replaced = attn::run_module(config, attn::tutorial_inputs());
        QCOMPARE(replaced.output.context_vecs[0], first.output.context_vecs[0]);
        QCOMPARE(replaced.weights.size(), first.weights.size());
        for (std::size_t i = 0; i < first.weights.size(); ++i) {
            QCOMPARE(replaced.weights[i].name, first.weights[i].name);
            QCOMPARE(replaced.weights[i].value, first.weights[i].value);
        }
    }

    // A hand-written W_query changes exactly the queries: queries = x · W_queryᵀ for nn.Linear.
    void givenWeightIsUsed() {
        ModuleConfig config = configFor(ModuleKind::CausalAttention);
        Matrix w(2, 3);
        w << 1, 0, 0, 0, 1, 0;  // picks the first two embedding values
        config.weights = {{"W_query.weight", w, false}};
        const RunResult r = attn::run_module(config, attn::tutorial_inputs());
        QCOMPARE(r.output.queries[0], Matrix(attn::tutorial_inputs().embeddings.leftCols(2)));
        QCOMPARE(findWeight(r, "W_query.weight")->value, w);
        const RunResult drawn =
            attn::run_module(configFor(ModuleKind::CausalAttention), attn::tutorial_inputs());
        QCOMPARE(r.output.keys[0], drawn.output.keys[0]);
    }

    void badWeights_data() {
        QTest::addColumn<ModuleKind>("module");
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<float>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("transposed")
            << ModuleKind::CausalAttention << "W_query.weight" << 3 << 2 << 0.5f
            << "weight \"W_query.weight\" is (3, 2) but causal-attention needs (2, 3), "
               "(out_features, in_features), nn.Linear's layout: y = x · weightᵀ: check d_in, "
               "d_out and num_heads, or transpose the matrix";
        QTest::newRow("v1 layout")
            << ModuleKind::SelfAttentionV1 << "W_key" << 2 << 3 << 0.5f
            << "weight \"W_key\" is (2, 3) but self-attention-v1 needs (3, 2), (d_in, d_out): "
               "keys = x · W_key: check d_in, d_out and num_heads, or transpose the matrix";
        QTest::newRow("unknown name")
            << ModuleKind::SelfAttentionV2 << "W_query" << 2 << 3 << 0.5f
            << "self-attention-v2 has no parameter \"W_query\"; its parameters are: "
               "W_query.weight W_key.weight W_value.weight";
        QTest::newRow("bias without qkv_bias")
            << ModuleKind::MultiHeadAttention << "W_query.bias" << 1 << 2 << 0.5f
            << "multi-head-attention has no parameter \"W_query.bias\" (qkv_bias is off; turn it "
               "on to give biases); its parameters are: W_query.weight W_key.weight "
               "W_value.weight out_proj.weight out_proj.bias";
        QTest::newRow("bias length")
            << ModuleKind::MultiHeadAttention << "out_proj.bias" << 1 << 3 << 0.5f
            << "weight \"out_proj.bias\" is (1, 3) but multi-head-attention needs a vector of 2 "
               "numbers (out_features)";
        QTest::newRow("NaN")
            << ModuleKind::CausalAttention << "W_value.weight" << 2 << 3 << NAN
            << "weight \"W_value.weight\" has NaN at row 1, column 1 (counting from 1): replace "
               "it with a finite number";
    }
    void badWeights() {
        QFETCH(ModuleKind, module);
        QFETCH(QString, name);
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(float, value);
        QFETCH(QString, message);
        ModuleConfig config = configFor(module);
        config.weights = {{name.toStdString(), Matrix::Constant(rows, cols, value), rows == 1}};
        QCOMPARE(errorOf(config, attn::tutorial_inputs()), message);
    }

    void duplicateWeight() {
        ModuleConfig config = configFor(ModuleKind::SelfAttentionV1);
        config.weights = {{"W_query", Matrix::Ones(3, 2), false},
                          {"W_query", Matrix::Ones(3, 2), false}};
        QCOMPARE(errorOf(config, attn::tutorial_inputs()),
                 QStringLiteral("weight \"W_query\" is given twice: keep one of them"));
    }

    void settingsThatDoNotApply_data() {
        QTest::addColumn<ModuleConfig>("config");
        QTest::addColumn<QString>("message");
        QTest::newRow("heads do not divide d_out")
            << with(ModuleKind::MultiHeadAttention,
                    [](ModuleConfig& c) {
                        c.d_out = 6;
                        c.num_heads = 4;
                    })
            << "d_out = 6 is not divisible by num_heads = 4: choose num_heads among 1, 2, 3, 6";
        QTest::newRow("bert heads do not divide d_model")
            << with(ModuleKind::BertMultiHead, [](ModuleConfig& c) { c.num_heads = 2; })
            << "d_model = 3 is not divisible by num_heads = 2: choose num_heads among 1, 3";
        QTest::newRow("d_out on gpt2")
            << with(ModuleKind::Gpt2Attention, [](ModuleConfig& c) { c.d_out = 4; })
            << "d_out = 4 does not apply to gpt2-attention: its output width is d_model = d_in = "
               "3 (the embedding width); leave d_out unset";
        QTest::newRow("heads on v2")
            << with(ModuleKind::SelfAttentionV2, [](ModuleConfig& c) { c.num_heads = 2; })
            << "self-attention-v2 has a single head: num_heads = 2 does not apply; choose "
               "multi-head-attention or multi-head-wrapper for several heads";
        QTest::newRow("dropout on v1")
            << with(ModuleKind::SelfAttentionV1, [](ModuleConfig& c) { c.dropout = 0.5f; })
            << "self-attention-v1 has no dropout layer: dropout = 0.5 does not apply; choose "
               "causal-attention or a multi-head module for dropout";
        QTest::newRow("dropout above 1")
            << with(ModuleKind::CausalAttention, [](ModuleConfig& c) { c.dropout = 1.5f; })
            << "dropout p = 1.5 is outside [0, 1]: use a probability such as 0.1 or 0.5";
        QTest::newRow("qkv_bias on bert")
            << with(ModuleKind::BertMultiHead, [](ModuleConfig& c) { c.qkv_bias = true; })
            << "qkv_bias does not apply to bert-multi-head: its Linear layers always have a bias";
        QTest::newRow("context_length on v2")
            << with(ModuleKind::SelfAttentionV2, [](ModuleConfig& c) { c.context_length = 8; })
            << "context_length = 8 does not apply to self-attention-v2: it has no causal mask; "
               "leave context_length unset";
        QTest::newRow("context_length too short")
            << with(ModuleKind::CausalAttention, [](ModuleConfig& c) { c.context_length = 4; })
            << "the sequence has 6 tokens but context_length = 4: give context_length >= 6 or at "
               "most 4 tokens";
        QTest::newRow("batch 0") << with(ModuleKind::CausalAttention, [](ModuleConfig& c) {
            c.batch = 0;
        }) << "batch = 0 is outside 1..64: give batch between 1 and 64";
        QTest::newRow("negative d_out")
            << with(ModuleKind::MultiHeadWrapper, [](ModuleConfig& c) { c.d_out = -1; })
            << "d_out = -1 is outside 1..16384: give d_out between 1 and 16384";
    }
    void settingsThatDoNotApply() {
        QFETCH(ModuleConfig, config);
        QFETCH(QString, message);
        QCOMPARE(errorOf(config, attn::tutorial_inputs()), message);
    }

    void badInputs() {
        attn::Sequence s = attn::tutorial_inputs();
        s.embeddings(2, 1) = INFINITY;
        QCOMPARE(errorOf(configFor(ModuleKind::CausalAttention), s),
                 QStringLiteral("embeddings has +Inf at row 3, column 2 (counting from 1): replace "
                                "it with a finite number"));
        s = attn::tutorial_inputs();
        s.tokens.pop_back();
        QCOMPARE(errorOf(configFor(ModuleKind::CausalAttention), s),
                 QStringLiteral(
                     "embeddings have 6 rows but there are 5 tokens: give one row per token"));
        attn::Sequence empty;
        empty.embeddings.resize(0, 3);
        QCOMPARE(errorOf(configFor(ModuleKind::CausalAttention), empty),
                 QStringLiteral("embeddings is empty: give at least one token"));
    }

    // The six tokens ask, the four Chinese tokens answer: a 6 x 4 weight matrix.
    void crossAttention() {
        const attn::Sequence target = attn::tutorial_inputs();
        const RunResult byDefault = attn::run_module(configFor(ModuleKind::CrossAttention), target);
        const attn::Sequence source = attn::cross_attention_source();
        const RunResult given =
            attn::run_module(configFor(ModuleKind::CrossAttention), target, &source);
        QCOMPARE(given.output.context_vecs[0], byDefault.output.context_vecs[0]);
        QCOMPARE(given.output.heads[0][0].weights.cols(), Eigen::Index{4});
        // Keys come from the source through Wk = linears.1: keys = source · Wkᵀ + bk.
        const attn::NamedMatrix* wk = findWeight(given, "linears.1.weight");
        const attn::NamedMatrix* bk = findWeight(given, "linears.1.bias");
        QVERIFY(wk != nullptr && bk != nullptr);
        Matrix keys = source.embeddings * wk->value.transpose();
        keys.rowwise() += bk->value.row(0);
        QVERIFY(maxAbsDiff(given.output.keys[0], keys) <= 1e-6);

        attn::Sequence narrow = source;
        narrow.embeddings = source.embeddings.leftCols(2);
        QCOMPARE(errorOf(configFor(ModuleKind::CrossAttention), target, &narrow),
                 QStringLiteral("source embeddings have 2 values per token but embeddings have 3: "
                                "cross-attention projects both with Linear(d_model, d_model), so "
                                "give both sequences the same width"));
        QCOMPARE(errorOf(configFor(ModuleKind::CausalAttention), target, &source),
                 QStringLiteral("a source sequence applies only to cross-attention, not to "
                                "causal-attention: remove the source or choose cross-attention"));
    }

    // torch.stack((inputs, inputs)): every batch item gives the same output without dropout.
    void batchCopies_data() { weightsRoundTrip_data(); }
    void batchCopies() {
        QFETCH(ModuleKind, module);
        ModuleConfig config = configFor(module);
        config.batch = 2;
        const RunResult r = attn::run_module(config, attn::tutorial_inputs());
        QCOMPARE(r.output.context_vecs.size(), std::size_t{2});
        QCOMPARE(r.output.heads.size(), std::size_t{2});
        QCOMPARE(r.output.context_vecs[1], r.output.context_vecs[0]);
        const RunResult single = attn::run_module(configFor(module), attn::tutorial_inputs());
        QCOMPARE(r.output.context_vecs[0], single.output.context_vecs[0]);
    }

    // dropout > 0: training mode; kept weights are scaled by 1/(1-p), the rest are 0; the same
    // seed draws the same masks.
    void dropoutTrains() {
        ModuleConfig config = configFor(ModuleKind::CausalAttention);
        config.dropout = 0.5f;
        const RunResult r = attn::run_module(config, attn::tutorial_inputs());
        QVERIFY(r.training);
        const attn::AttentionResult& head = r.output.heads[0][0];
        int dropped = 0;
        for (Eigen::Index i = 0; i < 6; ++i) {
            for (Eigen::Index j = 0; j <= i; ++j) {
                const float d = head.dropped(i, j);
                QVERIFY(d == 0.0f || d == 2.0f * head.weights(i, j));
                dropped += d == 0.0f ? 1 : 0;
            }
        }
        QVERIFY(dropped > 0 && dropped < 21);
        const RunResult again = attn::run_module(config, attn::tutorial_inputs());
        QCOMPARE(again.output.context_vecs[0], r.output.context_vecs[0]);
        // The parameters are drawn before the masks, so they equal those of the eval run.
        const RunResult eval =
            attn::run_module(configFor(ModuleKind::CausalAttention), attn::tutorial_inputs());
        QCOMPARE(r.weights[0].value, eval.weights[0].value);
    }

    // One wrapper head is CausalAttention: same draws, same output.
    void wrapperWithOneHeadIsCausal() {
        ModuleConfig config = configFor(ModuleKind::MultiHeadWrapper);
        config.num_heads = 1;
        const RunResult wrapper = attn::run_module(config, attn::tutorial_inputs());
        const RunResult causal =
            attn::run_module(configFor(ModuleKind::CausalAttention), attn::tutorial_inputs());
        QCOMPARE(wrapper.output.context_vecs[0], causal.output.context_vecs[0]);
        QCOMPARE(wrapper.weights[0].name, std::string("heads.0.W_query.weight"));
    }

    // The memory guard refuses before anything is allocated.
    void tooLargeIsRefused() {
        ModuleConfig config = configFor(ModuleKind::MultiHeadAttention);
        config.d_out = 768;
        config.num_heads = 12;
        QVERIFY(attn::intermediate_bytes(attn::resolve_config(config, 768, 1024, 1024), 1024,
                                         1024) < attn::kMaxIntermediateBytes);
        try {
            attn::resolve_config(config, 768, 8192, 8192);
            QFAIL("8192 tokens x 12 heads should exceed the limit");
        } catch (const attn::AttentionError& e) {
            QCOMPARE(QString::fromStdString(e.what()),
                     QStringLiteral("this run would need about 16896 MiB for its displayed "
                                    "intermediates (1 × 12 heads × 8192 × 8192 attention "
                                    "matrices); the limit is 2048 MiB: use fewer tokens, heads or "
                                    "batch copies"));
        }
    }

    void randomSequence() {
        const attn::Sequence s = attn::random_sequence(5, 4, 42);
        QCOMPARE(s.tokens.size(), std::size_t{5});
        QCOMPARE(s.tokens.front(), std::string("t1"));
        QCOMPARE(s.tokens.back(), std::string("t5"));
        attn::TorchGenerator gen(42);
        QCOMPARE(s.embeddings, gen.rand(5, 4));
        QCOMPARE(attn::random_sequence(5, 4, 42).embeddings, s.embeddings);
    }

    // The fused projections read as x · W: queries = x · query + the query bias (one row, the
    // same for every token) and the output = concat · out_proj + its bias, whatever layout the
    // module stores (nn.Linear's (out, in), GPT-2's Conv1D c_attn cut to its query columns).
    void fusedProjections_data() {
        QTest::addColumn<ModuleKind>("module");
        QTest::addColumn<bool>("fused");
        QTest::newRow("mha") << ModuleKind::MultiHeadAttention << true;
        QTest::newRow("bert") << ModuleKind::BertMultiHead << true;
        QTest::newRow("gpt2") << ModuleKind::Gpt2Attention << true;
        QTest::newRow("cross") << ModuleKind::CrossAttention << true;
        QTest::newRow("wrapper: separate heads") << ModuleKind::MultiHeadWrapper << false;
        QTest::newRow("v1") << ModuleKind::SelfAttentionV1 << false;
        QTest::newRow("v2") << ModuleKind::SelfAttentionV2 << false;
        QTest::newRow("causal") << ModuleKind::CausalAttention << false;
    }
    void fusedProjections() {
        QFETCH(ModuleKind, module);
        QFETCH(bool, fused);
        const Eigen::Index d_in = 4;
        const attn::Sequence inputs = attn::random_sequence(5, d_in, 3);
        const attn::Sequence source = attn::random_sequence(3, d_in, 4);
        ModuleConfig c = configFor(module);
        c.qkv_bias = attn::module_info(module).uses_qkv_bias;
        if (module == ModuleKind::MultiHeadAttention) c.d_out = 6;
        const RunResult run =
            attn::run_module(c, inputs, attn::module_info(module).uses_source ? &source : nullptr);
        const attn::FusedProjections p = attn::fused_projections(run);
        if (!fused) {
            QCOMPARE(p.query.size(), Eigen::Index{0});
            QCOMPARE(p.out_proj.size(), Eigen::Index{0});
            QCOMPARE(p.head_dim, Eigen::Index{0});
            return;
        }
        const Matrix& queries = run.output.queries[0];
        QCOMPARE(p.query.rows(), d_in);
        QCOMPARE(p.query.cols(), queries.cols());
        QCOMPARE(p.head_dim, queries.cols() / 2);
        const Matrix query_bias = queries - inputs.embeddings * p.query;
        const Matrix& concat = run.output.concat[0];
        QCOMPARE(p.out_proj.rows(), concat.cols());
        const Matrix out_bias = run.output.context_vecs[0] - concat * p.out_proj;
        for (Eigen::Index i = 1; i < 5; ++i) {
            QVERIFY(maxAbsDiff(query_bias.row(i), query_bias.row(0)) <= 1e-5);
            QVERIFY(maxAbsDiff(out_bias.row(i), out_bias.row(0)) <= 1e-5);
        }
    }
};

QTEST_APPLESS_MAIN(TestRunner)
#include "test_runner.moc"
