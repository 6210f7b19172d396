// model/runner.h: running a module by name. The tutorial's numbers through run_module, the
// defaults, every setting that does not apply, replacing weights, cross-attention, batches,
// dropout, the memory limit and KV-cached decoding.
#include <QString>
#include <QTest>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "model/examples.h"
#include "model/ops.h"
#include "model/rng.h"
#include "model/runner.h"

using attn::Matrix;
using attn::ModuleConfig;
using attn::RunResult;

Q_DECLARE_METATYPE(ModuleConfig)

namespace {

// A printed 4-decimal value stands for +-0.00005; 2e-6 absorbs float32 summation-order rounding.
constexpr double kPrinted = 0.00005 + 2e-6;

Matrix toMatrix(const std::vector<std::vector<double>>& rows) {
    Matrix m(static_cast<Eigen::Index>(rows.size()),
             static_cast<Eigen::Index>(rows.front().size()));
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            m(i, j) =
                static_cast<float>(rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]);
        }
    }
    return m;
}

double maxAbsDiff(const Matrix& a, const Matrix& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) {
        return INFINITY;
    }
    return static_cast<double>((a - b).cwiseAbs().maxCoeff());
}

ModuleConfig configFor(const std::string& module) {
    ModuleConfig c;
    c.module = module;
    return c;
}

QString errorOf(const ModuleConfig& config, const attn::Sequence& inputs,
                const attn::Sequence* source = nullptr) {
    try {
        attn::run_module(config, inputs, source);
    } catch (const attn::AttentionError& e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("<no error>");
}

const attn::NamedMatrix* findWeight(const RunResult& r, const std::string& name) {
    for (const attn::NamedMatrix& w : r.weights) {
        if (w.name == name) {
            return &w;
        }
    }
    return nullptr;
}

}  // namespace

class TestRunner : public QObject {
    Q_OBJECT

private slots:
    void moduleNames() {
        const std::vector<std::string> expected = {
            "self-attention-v1",    "self-attention-v2", "causal-attention", "multi-head-wrapper",
            "multi-head-attention", "bert-multi-head",   "gpt2-attention",   "cross-attention"};
        QCOMPARE(attn::module_names(), expected);
        QCOMPARE(attn::module_infos().size(), expected.size());
    }

    void unknownModuleListsNames() {
        const QString message = errorOf(configFor("causal"), attn::tutorial_inputs());
        QVERIFY2(message.startsWith(QStringLiteral("unknown module \"causal\": choose one of "
                                                   "self-attention-v1, self-attention-v2, "
                                                   "causal-attention,")),
                 qPrintable(message));
        QVERIFY2(message.endsWith(QStringLiteral("cross-attention")), qPrintable(message));
        QCOMPARE(errorOf(configFor(""), attn::tutorial_inputs()).left(28),
                 QStringLiteral("no module given: choose one "));
    }

    // 002_*.txt In [13]: SelfAttention v2 with torch.manual_seed(123).
    void selfAttentionV2PrintsTutorial() {
        const RunResult r =
            attn::run_module(configFor("self-attention-v2"), attn::tutorial_inputs());
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
            attn::run_module(configFor("self-attention-v1"), attn::tutorial_inputs());
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
            attn::run_module(configFor("causal-attention"), attn::tutorial_inputs());
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
        QTest::addColumn<QString>("module");
        QTest::addColumn<qlonglong>("dIn");
        QTest::addColumn<qlonglong>("dOut");
        QTest::addColumn<qlonglong>("heads");
        QTest::addColumn<qlonglong>("contextLength");
        QTest::newRow("v1") << "self-attention-v1" << 3LL << 2LL << 1LL << 0LL;
        QTest::newRow("v2") << "self-attention-v2" << 3LL << 2LL << 1LL << 0LL;
        QTest::newRow("causal") << "causal-attention" << 3LL << 2LL << 1LL << 6LL;
        QTest::newRow("wrapper") << "multi-head-wrapper" << 3LL << 2LL << 2LL << 6LL;
        QTest::newRow("mha") << "multi-head-attention" << 3LL << 2LL << 2LL << 6LL;
        QTest::newRow("bert d=3 -> 1 head") << "bert-multi-head" << 3LL << 3LL << 1LL << 0LL;
        QTest::newRow("bert d=4 -> 2 heads") << "bert-multi-head" << 4LL << 4LL << 2LL << 0LL;
        QTest::newRow("gpt2 d=3") << "gpt2-attention" << 3LL << 3LL << 1LL << 6LL;
        QTest::newRow("gpt2 d=8") << "gpt2-attention" << 8LL << 8LL << 2LL << 6LL;
        QTest::newRow("cross") << "cross-attention" << 3LL << 3LL << 1LL << 0LL;
    }
    void resolvedDefaults() {
        QFETCH(QString, module);
        QFETCH(qlonglong, dIn);
        QFETCH(qlonglong, dOut);
        QFETCH(qlonglong, heads);
        QFETCH(qlonglong, contextLength);
        const ModuleConfig c = attn::resolve_config(configFor(module.toStdString()), dIn, 6, 4);
        QCOMPARE(c.d_out, dOut);
        QCOMPARE(c.num_heads, heads);
        QCOMPARE(c.context_length, contextLength);
        QCOMPARE(c.seed, std::uint64_t{123});
        QCOMPARE(c.batch, Eigen::Index{1});
    }

    // Every module runs on the tutorial's inputs with its defaults; weights are probabilities.
    void everyModuleRuns_data() {
        QTest::addColumn<QString>("module");
        QTest::addColumn<qlonglong>("width");
        QTest::addColumn<qlonglong>("heads");
        QTest::addColumn<qlonglong>("keys");
        QTest::newRow("v1") << "self-attention-v1" << 2LL << 1LL << 6LL;
        QTest::newRow("v2") << "self-attention-v2" << 2LL << 1LL << 6LL;
        QTest::newRow("causal") << "causal-attention" << 2LL << 1LL << 6LL;
        QTest::newRow("wrapper: 2 heads of d_out") << "multi-head-wrapper" << 4LL << 2LL << 6LL;
        QTest::newRow("mha") << "multi-head-attention" << 2LL << 2LL << 6LL;
        QTest::newRow("bert") << "bert-multi-head" << 3LL << 1LL << 6LL;
        QTest::newRow("gpt2") << "gpt2-attention" << 3LL << 1LL << 6LL;
        QTest::newRow("cross: 6 x 4 weights") << "cross-attention" << 3LL << 1LL << 4LL;
    }
    void everyModuleRuns() {
        QFETCH(QString, module);
        QFETCH(qlonglong, width);
        QFETCH(qlonglong, heads);
        QFETCH(qlonglong, keys);
        const RunResult r =
            attn::run_module(configFor(module.toStdString()), attn::tutorial_inputs());
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
    void weightsRoundTrip_data() {
        QTest::addColumn<QString>("module");
        for (const std::string& name : attn::module_names()) {
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
        }
    }
    void weightsRoundTrip() {
        QFETCH(QString, module);
        ModuleConfig config = configFor(module.toStdString());
        const attn::ModuleInfo& info = attn::module_info(config.module);
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
        ModuleConfig config = configFor("causal-attention");
        Matrix w(2, 3);
        w << 1, 0, 0, 0, 1, 0;  // picks the first two embedding values
        config.weights = {{"W_query.weight", w, false}};
        const RunResult r = attn::run_module(config, attn::tutorial_inputs());
        QCOMPARE(r.output.queries[0], Matrix(attn::tutorial_inputs().embeddings.leftCols(2)));
        QCOMPARE(findWeight(r, "W_query.weight")->value, w);
        const RunResult drawn =
            attn::run_module(configFor("causal-attention"), attn::tutorial_inputs());
        QCOMPARE(r.output.keys[0], drawn.output.keys[0]);
    }

    void badWeights_data() {
        QTest::addColumn<QString>("module");
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<float>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("transposed")
            << "causal-attention"
            << "W_query.weight" << 3 << 2 << 0.5f
            << "weight \"W_query.weight\" is (3, 2) but causal-attention needs (2, 3), "
               "(out_features, in_features), nn.Linear's layout: y = x · weightᵀ: check d_in, "
               "d_out and num_heads, or transpose the matrix";
        QTest::newRow("v1 layout")
            << "self-attention-v1"
            << "W_key" << 2 << 3 << 0.5f
            << "weight \"W_key\" is (2, 3) but self-attention-v1 needs (3, 2), (d_in, d_out): "
               "keys = x · W_key: check d_in, d_out and num_heads, or transpose the matrix";
        QTest::newRow("unknown name")
            << "self-attention-v2"
            << "W_query" << 2 << 3 << 0.5f
            << "self-attention-v2 has no parameter \"W_query\"; its parameters are: "
               "W_query.weight W_key.weight W_value.weight";
        QTest::newRow("bias without qkv_bias")
            << "multi-head-attention"
            << "W_query.bias" << 1 << 2 << 0.5f
            << "multi-head-attention has no parameter \"W_query.bias\" (qkv_bias is off; turn it "
               "on to give biases); its parameters are: W_query.weight W_key.weight "
               "W_value.weight out_proj.weight out_proj.bias";
        QTest::newRow("bias length")
            << "multi-head-attention"
            << "out_proj.bias" << 1 << 3 << 0.5f
            << "weight \"out_proj.bias\" is (1, 3) but multi-head-attention needs a vector of 2 "
               "numbers (out_features)";
        QTest::newRow("NaN")
            << "causal-attention"
            << "W_value.weight" << 2 << 3 << NAN
            << "weight \"W_value.weight\" has NaN at row 1, column 1 (counting from 1): replace "
               "it with a finite number";
    }
    void badWeights() {
        QFETCH(QString, module);
        QFETCH(QString, name);
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(float, value);
        QFETCH(QString, message);
        ModuleConfig config = configFor(module.toStdString());
        config.weights = {{name.toStdString(), Matrix::Constant(rows, cols, value), rows == 1}};
        QCOMPARE(errorOf(config, attn::tutorial_inputs()), message);
    }

    void duplicateWeight() {
        ModuleConfig config = configFor("self-attention-v1");
        config.weights = {{"W_query", Matrix::Ones(3, 2), false},
                          {"W_query", Matrix::Ones(3, 2), false}};
        QCOMPARE(errorOf(config, attn::tutorial_inputs()),
                 QStringLiteral("weight \"W_query\" is given twice: keep one of them"));
    }

    void settingsThatDoNotApply_data() {
        QTest::addColumn<ModuleConfig>("config");
        QTest::addColumn<QString>("message");
        auto with = [](const char* module, auto change) {
            ModuleConfig c = configFor(module);
            change(c);
            return c;
        };
        QTest::newRow("heads do not divide d_out")
            << with("multi-head-attention",
                    [](ModuleConfig& c) {
                        c.d_out = 6;
                        c.num_heads = 4;
                    })
            << "d_out = 6 is not divisible by num_heads = 4: choose num_heads among 1, 2, 3, 6";
        QTest::newRow("bert heads do not divide d_model")
            << with("bert-multi-head", [](ModuleConfig& c) { c.num_heads = 2; })
            << "d_model = 3 is not divisible by num_heads = 2: choose num_heads among 1, 3";
        QTest::newRow("d_out on gpt2")
            << with("gpt2-attention", [](ModuleConfig& c) { c.d_out = 4; })
            << "d_out = 4 does not apply to gpt2-attention: its output width is d_model = d_in = "
               "3 (the embedding width); leave d_out unset";
        QTest::newRow("heads on v2")
            << with("self-attention-v2", [](ModuleConfig& c) { c.num_heads = 2; })
            << "self-attention-v2 has a single head: num_heads = 2 does not apply; choose "
               "multi-head-attention or multi-head-wrapper for several heads";
        QTest::newRow("dropout on v1")
            << with("self-attention-v1", [](ModuleConfig& c) { c.dropout = 0.5f; })
            << "self-attention-v1 has no dropout layer: dropout = 0.5 does not apply; choose "
               "causal-attention or a multi-head module for dropout";
        QTest::newRow("dropout above 1")
            << with("causal-attention", [](ModuleConfig& c) { c.dropout = 1.5f; })
            << "dropout p = 1.5 is outside [0, 1]: use a probability such as 0.1 or 0.5";
        QTest::newRow("qkv_bias on bert")
            << with("bert-multi-head", [](ModuleConfig& c) { c.qkv_bias = true; })
            << "qkv_bias does not apply to bert-multi-head: its Linear layers always have a bias";
        QTest::newRow("context_length on v2")
            << with("self-attention-v2", [](ModuleConfig& c) { c.context_length = 8; })
            << "context_length = 8 does not apply to self-attention-v2: it has no causal mask; "
               "leave context_length unset";
        QTest::newRow("context_length too short")
            << with("causal-attention", [](ModuleConfig& c) { c.context_length = 4; })
            << "the sequence has 6 tokens but context_length = 4: give context_length >= 6 or at "
               "most 4 tokens";
        QTest::newRow("batch 0") << with("causal-attention", [](ModuleConfig& c) { c.batch = 0; })
                                 << "batch = 0 is outside 1..64: give batch between 1 and 64";
        QTest::newRow("negative d_out")
            << with("multi-head-wrapper", [](ModuleConfig& c) { c.d_out = -1; })
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
        QCOMPARE(errorOf(configFor("causal-attention"), s),
                 QStringLiteral("embeddings has +Inf at row 3, column 2 (counting from 1): replace "
                                "it with a finite number"));
        s = attn::tutorial_inputs();
        s.tokens.pop_back();
        QCOMPARE(errorOf(configFor("causal-attention"), s),
                 QStringLiteral(
                     "embeddings have 6 rows but there are 5 tokens: give one row per token"));
        attn::Sequence empty;
        empty.embeddings.resize(0, 3);
        QCOMPARE(errorOf(configFor("causal-attention"), empty),
                 QStringLiteral("embeddings is empty: give at least one token"));
    }

    // The six tokens ask, the four Chinese tokens answer: a 6 x 4 weight matrix.
    void crossAttention() {
        const attn::Sequence target = attn::tutorial_inputs();
        const RunResult byDefault = attn::run_module(configFor("cross-attention"), target);
        const attn::Sequence source = attn::cross_attention_source();
        const RunResult given = attn::run_module(configFor("cross-attention"), target, &source);
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
        QCOMPARE(errorOf(configFor("cross-attention"), target, &narrow),
                 QStringLiteral("source embeddings have 2 values per token but embeddings have 3: "
                                "cross-attention projects both with Linear(d_model, d_model), so "
                                "give both sequences the same width"));
        QCOMPARE(errorOf(configFor("causal-attention"), target, &source),
                 QStringLiteral("a source sequence applies only to cross-attention, not to "
                                "causal-attention: remove the source or choose cross-attention"));
    }

    // torch.stack((inputs, inputs)): every batch item gives the same output without dropout.
    void batchCopies_data() { weightsRoundTrip_data(); }
    void batchCopies() {
        QFETCH(QString, module);
        ModuleConfig config = configFor(module.toStdString());
        config.batch = 2;
        const RunResult r = attn::run_module(config, attn::tutorial_inputs());
        QCOMPARE(r.output.context_vecs.size(), std::size_t{2});
        QCOMPARE(r.output.heads.size(), std::size_t{2});
        QCOMPARE(r.output.context_vecs[1], r.output.context_vecs[0]);
        const RunResult single =
            attn::run_module(configFor(module.toStdString()), attn::tutorial_inputs());
        QCOMPARE(r.output.context_vecs[0], single.output.context_vecs[0]);
    }

    // dropout > 0: training mode; kept weights are scaled by 1/(1-p), the rest are 0; the same
    // seed draws the same masks.
    void dropoutTrains() {
        ModuleConfig config = configFor("causal-attention");
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
            attn::run_module(configFor("causal-attention"), attn::tutorial_inputs());
        QCOMPARE(r.weights[0].value, eval.weights[0].value);
    }

    // One wrapper head is CausalAttention: same draws, same output.
    void wrapperWithOneHeadIsCausal() {
        ModuleConfig config = configFor("multi-head-wrapper");
        config.num_heads = 1;
        const RunResult wrapper = attn::run_module(config, attn::tutorial_inputs());
        const RunResult causal =
            attn::run_module(configFor("causal-attention"), attn::tutorial_inputs());
        QCOMPARE(wrapper.output.context_vecs[0], causal.output.context_vecs[0]);
        QCOMPARE(wrapper.weights[0].name, std::string("heads.0.W_query.weight"));
    }

    // The memory guard refuses before anything is allocated.
    void tooLargeIsRefused() {
        ModuleConfig config = configFor("multi-head-attention");
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

    void decodeMatchesFullPass_data() {
        QTest::addColumn<QString>("module");
        QTest::addColumn<qlonglong>("tokens");
        QTest::addColumn<qlonglong>("dModel");
        QTest::addColumn<qlonglong>("heads");
        QTest::newRow("mha T=1") << "multi-head-attention" << 1LL << 4LL << 2LL;
        QTest::newRow("mha T=9 d=8 H=4") << "multi-head-attention" << 9LL << 8LL << 4LL;
        QTest::newRow("gpt2 T=1") << "gpt2-attention" << 1LL << 4LL << 2LL;
        QTest::newRow("gpt2 T=12 d=12 H=3") << "gpt2-attention" << 12LL << 12LL << 3LL;
    }
    void decodeMatchesFullPass() {
        QFETCH(QString, module);
        QFETCH(qlonglong, tokens);
        QFETCH(qlonglong, dModel);
        QFETCH(qlonglong, heads);
        attn::DecodeConfig config;
        config.module = module.toStdString();
        config.num_heads = heads;
        const attn::DecodeRun run =
            attn::run_decode(config, attn::random_sequence(tokens, dModel, 5));
        QCOMPARE(static_cast<qlonglong>(run.steps.size()), tokens);
        QCOMPARE(run.full_pass.rows(), tokens);
        QVERIFY2(run.max_abs_diff <= 1e-5f,
                 qPrintable(QString::number(static_cast<double>(run.max_abs_diff))));
        for (qlonglong t = 0; t < tokens; ++t) {
            const attn::DecodeStep& step = run.steps[static_cast<std::size_t>(t)];
            QCOMPARE(step.cache_tokens, t + 1);
            // 2 tensors × H × tokens × head_dim × 4 bytes
            QCOMPARE(static_cast<qlonglong>(step.cache_bytes),
                     2 * heads * (t + 1) * (dModel / heads) * 4);
            QCOMPARE(static_cast<qlonglong>(step.attn_weights.size()), heads);
            QCOMPARE(step.attn_weights[0].size(), t + 1);
            QVERIFY(maxAbsDiff(step.output, run.full_pass.row(t)) <= 1e-5);
        }
    }

    void decodeRefuses() {
        attn::DecodeConfig config;
        config.module = "causal-attention";
        try {
            attn::run_decode(config, attn::random_sequence(3, 4, 1));
            QFAIL("causal-attention has no decode path");
        } catch (const attn::AttentionError& e) {
            QCOMPARE(
                QString::fromStdString(e.what()),
                QStringLiteral("decoding with a KV cache is available for multi-head-attention "
                               "and gpt2-attention, not \"causal-attention\": choose one of "
                               "these two"));
        }
    }

    // --- #4: causal, scaling, mask convention and fill value -------------------------------

    // Leaving the switches unset and setting them to the module's own values give the same run,
    // so the defaults change nothing (the tutorial tests above run with them unset).
    void explicitDefaultsChangeNothing_data() { everyModuleRuns_data(); }
    void explicitDefaultsChangeNothing() {
        QFETCH(QString, module);
        const attn::ModuleInfo& info = attn::module_info(module.toStdString());
        const RunResult unset =
            attn::run_module(configFor(module.toStdString()), attn::tutorial_inputs());
        QCOMPARE(unset.config.causal, std::optional<bool>(info.causal_by_default));
        QCOMPARE(unset.config.fill_value.has_value(), info.uses_fill);
        ModuleConfig c = configFor(module.toStdString());
        c.causal = info.causal_by_default;
        c.scale = true;
        if (info.uses_fill) c.fill_value = info.default_fill;
        const RunResult given = attn::run_module(c, attn::tutorial_inputs());
        QCOMPARE(given.output.context_vecs[0], unset.output.context_vecs[0]);
        QCOMPARE(given.output.heads[0][0].weights, unset.output.heads[0][0].weights);
    }

    // Causal off on causal-attention is SelfAttention v2: the same seed draws the same three
    // Linear layers, and without the mask the weights are the full softmax.
    void causalOffEqualsSelfAttentionV2() {
        ModuleConfig off = configFor("causal-attention");
        off.causal = false;
        const RunResult r = attn::run_module(off, attn::tutorial_inputs());
        const RunResult v2 =
            attn::run_module(configFor("self-attention-v2"), attn::tutorial_inputs());
        QCOMPARE(r.output.heads[0][0].weights, v2.output.heads[0][0].weights);
        QCOMPARE(r.output.context_vecs[0], v2.output.context_vecs[0]);
        QVERIFY(!r.output.heads[0][0].blocked.any());
        QVERIFY(r.output.heads[0][0].weights(0, 5) > 0.0f);  // "Your" now sees "step"
        // And causal on for v2 is causal-attention: the tutorial's printed causal weights.
        ModuleConfig on = configFor("self-attention-v2");
        on.causal = true;
        const RunResult v2causal = attn::run_module(on, attn::tutorial_inputs());
        const RunResult causal =
            attn::run_module(configFor("causal-attention"), attn::tutorial_inputs());
        QCOMPARE(v2causal.output.heads[0][0].weights, causal.output.heads[0][0].weights);
        QCOMPARE(
            QString::number(static_cast<double>(v2causal.output.heads[0][0].weights(1, 0)), 'f', 4),
            QStringLiteral("0.4833"));
    }

    // Causal off on the multi-head modules: every head's weights are the plain softmax of its
    // scaled scores, nothing is blocked; the projections are untouched.
    void causalOffMultiHead_data() {
        QTest::addColumn<QString>("module");
        QTest::newRow("wrapper") << "multi-head-wrapper";
        QTest::newRow("mha") << "multi-head-attention";
    }
    void causalOffMultiHead() {
        QFETCH(QString, module);
        ModuleConfig off = configFor(module.toStdString());
        off.causal = false;
        const RunResult r = attn::run_module(off, attn::tutorial_inputs());
        const RunResult on =
            attn::run_module(configFor(module.toStdString()), attn::tutorial_inputs());
        QCOMPARE(r.output.queries[0], on.output.queries[0]);
        QCOMPARE(r.output.heads[0].size(), std::size_t{2});
        // head_dim: 2 in the wrapper (d_out per head), 1 in MultiHeadAttention (d_out / 2)
        const float head_dim = static_cast<float>(r.output.queries[0].cols()) /
                               static_cast<float>(r.output.heads[0].size());
        for (const attn::AttentionResult& head : r.output.heads[0]) {
            QVERIFY(!head.blocked.any());
            const Matrix expected = attn::softmax_rows(head.scores / std::sqrt(head_dim));
            QVERIFY(maxAbsDiff(head.weights, expected) <= 1e-6);
        }
        QVERIFY(maxAbsDiff(r.output.context_vecs[0], on.output.context_vecs[0]) > 1e-3);
        QVERIFY(!attn::has_fast_path(r.config));
    }

    // Scaling off: the softmax sees the raw scores; with it on, scores / sqrt(head_dim).
    void scaleOff_data() {
        QTest::addColumn<QString>("module");
        QTest::addColumn<qlonglong>("dIn");
        QTest::newRow("v1") << "self-attention-v1" << 3LL;
        QTest::newRow("v2") << "self-attention-v2" << 3LL;
        QTest::newRow("causal") << "causal-attention" << 3LL;
        QTest::newRow("wrapper") << "multi-head-wrapper" << 3LL;
        QTest::newRow("mha") << "multi-head-attention" << 3LL;
        QTest::newRow("bert d=4, 2 heads") << "bert-multi-head" << 4LL;
        QTest::newRow("gpt2 d=4, 2 heads") << "gpt2-attention" << 4LL;
        QTest::newRow("cross d=4, 2 heads") << "cross-attention" << 4LL;
    }
    void scaleOff() {
        QFETCH(QString, module);
        QFETCH(qlonglong, dIn);
        const attn::Sequence inputs = attn::random_sequence(5, dIn, 7);
        attn::Sequence source = attn::random_sequence(3, dIn, 8);
        const attn::Sequence* src =
            attn::module_info(module.toStdString()).uses_source ? &source : nullptr;
        ModuleConfig c = configFor(module.toStdString());
        // head_dim 2 everywhere, so sqrt(head_dim) != 1
        if (attn::module_info(c.module).uses_d_out)
            c.d_out = c.module == "multi-head-attention" ? 4 : 2;
        const RunResult scaled = attn::run_module(c, inputs, src);
        c.scale = false;
        const RunResult raw = attn::run_module(c, inputs, src);
        for (std::size_t h = 0; h < raw.output.heads[0].size(); ++h) {
            const attn::AttentionResult& a = raw.output.heads[0][h];
            const attn::AttentionResult& b = scaled.output.heads[0][h];
            QCOMPARE(a.scores, b.scores);
            QCOMPARE(a.scaled, a.scores);
            QCOMPARE(a.scale_divisor, 1.0f);
            QVERIFY(b.scale_divisor > 1.0f);
            QVERIFY(maxAbsDiff(b.scaled, b.scores / b.scale_divisor) <= 1e-6);
            const Matrix masked = attn::masked_fill(a.scores, a.blocked, a.fill_value);
            QVERIFY(maxAbsDiff(a.weights, attn::softmax_rows(masked)) <= 1e-6);
            QCOMPARE(a.blocked, b.blocked);
        }
        // GPT-2's normal(0, 0.02) weights give tiny scores: compare weights, not outputs.
        QVERIFY(raw.output.heads[0][0].weights != scaled.output.heads[0][0].weights);
    }

    // The BERT-style module with the causal switch: mask == 0 on the subsequent mask hides the
    // future; -1e9, -1e4 and -inf give the same weights, since no row is fully masked.
    void bertCausalFills_data() {
        QTest::addColumn<QString>("module");
        QTest::newRow("bert") << "bert-multi-head";
        QTest::newRow("cross") << "cross-attention";
    }
    void bertCausalFills() {
        QFETCH(QString, module);
        ModuleConfig c = configFor(module.toStdString());
        c.causal = true;
        const RunResult bert = attn::run_module(c, attn::tutorial_inputs());
        QCOMPARE(bert.config.fill_value, std::optional<float>(-1e9f));
        const Matrix& w = bert.output.heads[0][0].weights;
        for (Eigen::Index i = 0; i < w.rows(); ++i) {
            for (Eigen::Index j = 0; j < w.cols(); ++j) {
                QCOMPARE(bert.output.heads[0][0].blocked(i, j), j > i);
                if (j > i) QCOMPARE(w(i, j), 0.0f);
            }
            QVERIFY(std::abs(w.row(i).sum() - 1.0f) <= 1e-5f);
        }
        for (float fill : {attn::kNegInf, -1e4f}) {
            c.fill_value = fill;
            const RunResult other = attn::run_module(c, attn::tutorial_inputs());
            QCOMPARE(other.output.heads[0][0].weights, w);
        }
        const RunResult plain =
            attn::run_module(configFor(module.toStdString()), attn::tutorial_inputs());
        QVERIFY(!plain.output.heads[0][0].blocked.any());
    }

    // mask == 1 on the same subsequent mask (seed 004's pairing) blocks the past and the
    // diagonal: the last row is fully masked. -1e9 makes it uniform, -inf makes it NaN (as
    // torch.softmax does); every other row is the same under both fills.
    void maskConventionOneAndFill() {
        ModuleConfig c = configFor("bert-multi-head");
        c.causal = true;
        c.mask_convention = attn::MaskConvention::FillWhereOne;
        const RunResult bert = attn::run_module(c, attn::tutorial_inputs());
        c.fill_value = attn::kNegInf;
        const RunResult inf = attn::run_module(c, attn::tutorial_inputs());
        const Matrix& w = bert.output.heads[0][0].weights;
        const Matrix& wi = inf.output.heads[0][0].weights;
        for (Eigen::Index i = 0; i < 5; ++i) {
            for (Eigen::Index j = 0; j <= i; ++j) QCOMPARE(w(i, j), 0.0f);
            QCOMPARE(wi.row(i), w.row(i));
        }
        for (Eigen::Index j = 0; j < 6; ++j) {
            QVERIFY(std::abs(w(5, j) - 1.0f / 6.0f) <= 1e-6f);
            QVERIFY(std::isnan(wi(5, j)));
        }
        QVERIFY(bert.output.heads[0][0].blocked.row(5).all());
    }

    void switchesThatDoNotApply_data() {
        QTest::addColumn<ModuleConfig>("config");
        QTest::addColumn<QString>("message");
        auto with = [](const char* module, auto change) {
            ModuleConfig c = configFor(module);
            change(c);
            return c;
        };
        QTest::newRow("causal off on gpt2")
            << with("gpt2-attention", [](ModuleConfig& c) { c.causal = false; })
            << "causal = off does not apply to gpt2-attention: its causal mask is part of the "
               "module; choose self-attention-v2 or bert-multi-head for attention without one";
        QTest::newRow("causal on v1")
            << with("self-attention-v1", [](ModuleConfig& c) { c.causal = true; })
            << "causal = on does not apply to self-attention-v1: it has no mask; choose "
               "self-attention-v2 for an optional causal mask";
        QTest::newRow("convention on mha")
            << with("multi-head-attention",
                    [](ModuleConfig& c) { c.mask_convention = attn::MaskConvention::FillWhereOne; })
            << "mask convention \"mask == 1\" does not apply to multi-head-attention: only the "
               "BERT-style modules (bert-multi-head, cross-attention) take a mask tensor; leave "
               "the convention at \"mask == 0\"";
        QTest::newRow("fill on v1")
            << with("self-attention-v1", [](ModuleConfig& c) { c.fill_value = -1e9f; })
            << "fill value does not apply to self-attention-v1: it has no mask; leave the fill "
               "value unset";
        QTest::newRow("NaN fill") << with("causal-attention", [](ModuleConfig& c) {
            c.fill_value = NAN;
        }) << "fill value is NaN: give -inf, -1e9 or -1e4";
    }
    void switchesThatDoNotApply() {
        QFETCH(ModuleConfig, config);
        QFETCH(QString, message);
        QCOMPARE(errorOf(config, attn::tutorial_inputs()), message);
    }

    // GPT-2's fill is its masked_bias; -1e4 and -inf give the same causal weights.
    void gpt2Fill() {
        ModuleConfig c = configFor("gpt2-attention");
        const RunResult byDefault = attn::run_module(c, attn::tutorial_inputs());
        QCOMPARE(byDefault.config.fill_value, std::optional<float>(-1e4f));
        QCOMPARE(byDefault.output.heads[0][0].fill_value, -1e4f);
        c.fill_value = attn::kNegInf;
        const RunResult inf = attn::run_module(c, attn::tutorial_inputs());
        QCOMPARE(inf.output.heads[0][0].fill_value, attn::kNegInf);
        QCOMPARE(inf.output.heads[0][0].weights, byDefault.output.heads[0][0].weights);
    }
};

QTEST_APPLESS_MAIN(TestRunner)
#include "test_runner.moc"
