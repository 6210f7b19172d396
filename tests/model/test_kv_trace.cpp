// model/kv_trace.h: the one KV decoder behind attention-cli decode, explore mode's stepper and the
// walkthrough. Every decoded row, its heads' context before out_proj, weight row, cached key and
// query equals a naive double reference of the full causal pass (reference_attention.h) computed
// from the module's weights; the cache size and multiplication counts follow their formulas;
// replacement weights, the token limit, the stepper's config and the refusals.
#include <QString>
#include <QTest>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "model/examples.h"
#include "model/kv_trace.h"
#include "model/ops.h"
#include "model/rng.h"
#include "model/runner.h"
#include "module_test_helpers.h"
#include "reference_attention.h"

using attn::Matrix;
using attn::ModuleKind;
using attn::reference::Grid;
using attn::reference::kReferenceTolerance;
using attn::reference::max_relative_error;
using modtest::maxAbsDiff;

Q_DECLARE_METATYPE(ModuleKind)

namespace {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

const Matrix& weightNamed(const std::vector<attn::NamedMatrix>& weights, const std::string& name) {
    for (const attn::NamedMatrix& w : weights)
        if (w.name == name) return w.value;
    static const Matrix none;
    return none;
}

Grid toGrid(const MatrixD& m) {
    Grid g(static_cast<std::size_t>(m.rows()));
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            g[static_cast<std::size_t>(i)].push_back(m(i, j));
    return g;
}

// The full causal pass, written from the formulas in double: x · W + b for query, key and value
// (W read as x · W), each head through the naive reference attention, the heads side by side,
// then concat · W_out + b_out.
struct Reference {
    std::vector<MatrixD> queries, keys;  // per head (T, hd)
    std::vector<Grid> weights;           // per head (T, T)
    MatrixD concat;                      // (T, d_out): every head's context, before out_proj
    MatrixD output;                      // (T, d_out)
};

Reference referencePass(const Matrix& x, const Matrix& w_q, const Matrix& w_k, const Matrix& w_v,
                        const MatrixD& b_qkv, const Matrix& w_out, const Matrix& b_out,
                        Eigen::Index heads) {
    const Eigen::Index tokens = x.rows(), width = w_q.cols(), hd = width / heads;
    const MatrixD xd = x.cast<double>();
    auto project = [&](const Matrix& w, Eigen::Index part) {
        MatrixD y = xd * w.cast<double>();
        y.rowwise() += b_qkv.row(0).segment(part * width, width);
        return y;
    };
    const MatrixD q = project(w_q, 0), k = project(w_k, 1), v = project(w_v, 2);
    const attn::BoolMatrix causal = attn::reference::causal(tokens, tokens);
    attn::reference::ReferenceOptions options;
    options.blocked = &causal;
    Reference r;
    MatrixD concat(tokens, width);
    for (Eigen::Index h = 0; h < heads; ++h) {
        r.queries.push_back(q.middleCols(h * hd, hd));
        r.keys.push_back(k.middleCols(h * hd, hd));
        const attn::reference::ReferenceResult head = attn::reference::attention(
            q.middleCols(h * hd, hd).cast<float>(), k.middleCols(h * hd, hd).cast<float>(),
            v.middleCols(h * hd, hd).cast<float>(), options);
        r.weights.push_back(head.weights);
        for (Eigen::Index i = 0; i < tokens; ++i)
            for (Eigen::Index c = 0; c < hd; ++c)
                concat(i, h * hd + c) =
                    head.context[static_cast<std::size_t>(i)][static_cast<std::size_t>(c)];
    }
    r.concat = concat;
    r.output = concat * w_out.cast<double>();
    r.output.rowwise() += b_out.cast<double>().row(0);
    return r;
}

// The module's parameters read as x · W, in the layout each module stores them.
Reference referenceOf(ModuleKind module, const Matrix& x,
                      const std::vector<attn::NamedMatrix>& weights, Eigen::Index heads) {
    if (module == ModuleKind::Gpt2Attention) {
        const Matrix& c_attn = weightNamed(weights, "c_attn.weight");  // (nx, 3·nx)
        const Eigen::Index nx = c_attn.rows();
        return referencePass(
            x, c_attn.leftCols(nx), c_attn.middleCols(nx, nx), c_attn.rightCols(nx),
            weightNamed(weights, "c_attn.bias").cast<double>(),
            weightNamed(weights, "c_proj.weight"), weightNamed(weights, "c_proj.bias"), heads);
    }
    const Matrix& w_q = weightNamed(weights, "W_query.weight");  // (d_out, d_in)
    const MatrixD no_bias = MatrixD::Zero(1, 3 * w_q.rows());
    return referencePass(x, w_q.transpose(), weightNamed(weights, "W_key.weight").transpose(),
                         weightNamed(weights, "W_value.weight").transpose(), no_bias,
                         weightNamed(weights, "out_proj.weight").transpose(),
                         weightNamed(weights, "out_proj.bias"), heads);
}

// Weights far from the initialisations (GPT-2's normal(0, 0.02) makes outputs ~1e-3 and attention
// nearly uniform, so any comparison would pass): uniform in ±bound from their own seed.
std::vector<attn::NamedMatrix> wideWeights(ModuleKind module, Eigen::Index d_model) {
    attn::TorchGenerator gen(77);
    const double bound = 3.0 / std::sqrt(static_cast<double>(d_model));
    auto matrix = [&](Eigen::Index rows, Eigen::Index cols) {
        return gen.uniform(rows, cols, -bound, bound);
    };
    if (module == ModuleKind::Gpt2Attention) {
        return {{"c_attn.weight", matrix(d_model, 3 * d_model), false},
                {"c_attn.bias", matrix(1, 3 * d_model), true},
                {"c_proj.weight", matrix(d_model, d_model), false},
                {"c_proj.bias", matrix(1, d_model), true}};
    }
    return {{"W_query.weight", matrix(d_model, d_model), false},
            {"W_key.weight", matrix(d_model, d_model), false},
            {"W_value.weight", matrix(d_model, d_model), false},
            {"out_proj.weight", matrix(d_model, d_model), false},
            {"out_proj.bias", matrix(1, d_model), true}};
}

QString decodeError(const attn::DecodeConfig& config, const attn::Sequence& inputs) {
    return modtest::errorOf([&] { attn::run_decode(config, inputs); });
}

}  // namespace

class TestKvTrace : public QObject {
    Q_OBJECT

private slots:
    void decoderEqualsReference_data() {
        QTest::addColumn<ModuleKind>("module");
        QTest::addColumn<int>("tokens");
        QTest::addColumn<int>("dModel");
        QTest::addColumn<int>("heads");
        QTest::addColumn<bool>("fast");
        // Multiplications for the last token T, counted by hand with d_in = d_out = d: with the
        // cache its q, k and v (3 · d²), its scores and weighted sum over T keys and values
        // (2 · T · d) and out_proj (d²); without, the same for all T tokens.
        QTest::addColumn<qint64>("lastCached");
        QTest::addColumn<qint64>("lastFull");
        for (const ModuleKind module :
             {ModuleKind::MultiHeadAttention, ModuleKind::Gpt2Attention}) {
            const char* name = attn::module_name(module).data();
            QTest::addRow("%s T=1", name) << module << 1 << 4 << 2 << false << 72LL << 72LL;
            QTest::addRow("%s T=7 d=6 H=3", name)
                << module << 7 << 6 << 3 << false << 228LL << 1596LL;
            QTest::addRow("%s T=12 d=8 H=1", name)
                << module << 12 << 8 << 1 << false << 448LL << 5376LL;
        }
        QTest::newRow("mha against the fast path T=9 d=8 H=4")
            << ModuleKind::MultiHeadAttention << 9 << 8 << 4 << true << 400LL << 3600LL;
    }
    void decoderEqualsReference() {
        QFETCH(ModuleKind, module);
        QFETCH(int, tokens);
        QFETCH(int, dModel);
        QFETCH(int, heads);
        QFETCH(bool, fast);
        QFETCH(qint64, lastCached);
        QFETCH(qint64, lastFull);
        const attn::Sequence inputs = attn::random_sequence(tokens, dModel, 11);
        attn::KvTraceConfig config;
        config.module = module;
        config.num_heads = heads;
        config.weights = wideWeights(module, dModel);
        config.cache_snapshots = true;
        config.full_pass = fast ? attn::KvFullPass::Fast : attn::KvFullPass::Forward;
        const attn::KvTrace trace = attn::build_kv_trace(inputs, config);
        // The given weights replaced the drawn ones, every one of them.
        QCOMPARE(trace.weights.size(), config.weights.size());
        for (const attn::NamedMatrix& given : config.weights)
            QCOMPARE(weightNamed(trace.weights, given.name), given.value);
        QCOMPARE(trace.num_heads, Eigen::Index{heads});
        QCOMPARE(trace.head_dim, Eigen::Index{dModel / heads});
        QVERIFY(!trace.truncated);

        const Reference ref = referenceOf(module, inputs.embeddings, config.weights, heads);
        QVERIFY(max_relative_error(trace.full_pass, toGrid(ref.output)) <= kReferenceTolerance);
        QCOMPARE(trace.steps.size(), static_cast<std::size_t>(tokens));
        float max_diff = 0.0f;
        for (int t = 0; t < tokens; ++t) {
            const attn::KvTraceStep& s = trace.steps[static_cast<std::size_t>(t)];
            const QByteArray at = QByteArray::number(t);
            QCOMPARE(s.token, Eigen::Index{t});
            QVERIFY2(max_relative_error(s.output, toGrid(ref.output.row(t))) <= kReferenceTolerance,
                     at);
            QVERIFY2(max_relative_error(s.concat, toGrid(ref.concat.row(t))) <= kReferenceTolerance,
                     at);
            QCOMPARE(s.full_output, Matrix(trace.full_pass.row(t)));
            for (int h = 0; h < heads; ++h) {
                const std::size_t hi = static_cast<std::size_t>(h);
                // The new query's weights over the t + 1 cached tokens: row t of the causal
                // weights without the (zero) future.
                Grid row = {ref.weights[hi][static_cast<std::size_t>(t)]};
                row[0].resize(static_cast<std::size_t>(t + 1));
                QVERIFY2(max_relative_error(s.attn_weights[hi], row) <= kReferenceTolerance, at);
                QVERIFY2(max_relative_error(s.query[hi], toGrid(ref.queries[hi].row(t))) <=
                             kReferenceTolerance,
                         at);
                QVERIFY2(
                    max_relative_error(s.cache_keys[hi], toGrid(ref.keys[hi].topRows(t + 1))) <=
                        kReferenceTolerance,
                    at);
                QCOMPARE(s.cache_values[hi].rows(), Eigen::Index{t + 1});
            }
            QCOMPARE(s.cache_tokens, Eigen::Index{t + 1});
            // 2 tensors × H × tokens × head_dim × 4 bytes
            QCOMPARE(s.cache_bytes,
                     static_cast<std::size_t>(2 * heads * (t + 1) * (dModel / heads) * 4));
            // Without the cache each of the t + 1 rows costs what the cached step costs for its
            // one row; each further token adds one cached key and value row, d numbers each.
            QCOMPARE(s.mults_full, std::int64_t{t + 1} * s.mults_cached);
            if (t > 0)
                QCOMPARE(s.mults_cached - trace.steps[static_cast<std::size_t>(t - 1)].mults_cached,
                         std::int64_t{2 * dModel});
            max_diff = std::max(max_diff, (s.output - s.full_output).cwiseAbs().maxCoeff());
        }
        QCOMPARE(trace.steps.back().mults_cached, std::int64_t{lastCached});
        QCOMPARE(trace.steps.back().mults_full, std::int64_t{lastFull});
        QCOMPARE(trace.max_abs_diff, max_diff);
        QVERIFY(trace.max_abs_diff <= 1e-5f);
        std::int64_t total_cached = 0, total_full = 0;
        for (const attn::KvTraceStep& s : trace.steps) {
            total_cached += s.mults_cached;
            total_full += s.mults_full;
            QCOMPARE(s.total_cached, total_cached);
            QCOMPARE(s.total_full, total_full);
        }
    }

    // Without snapshots the steps carry no copy of the cache: attention-cli decode keeps
    // thousands of tokens.
    void noSnapshotsByDefault() {
        const attn::KvTrace trace =
            attn::build_kv_trace(attn::random_sequence(4, 4, 1), attn::KvTraceConfig{});
        QCOMPARE(trace.steps.size(), std::size_t{4});
        for (const attn::KvTraceStep& s : trace.steps) {
            QVERIFY(s.cache_keys.empty());
            QVERIFY(s.cache_values.empty());
            QVERIFY(s.query.empty());
        }
    }

    // A parameter of another shape or name is left as drawn: the stepper passes the weights of
    // whatever module the session ran.
    void mismatchedWeightsAreIgnored() {
        const attn::Sequence inputs = attn::random_sequence(3, 4, 2);
        attn::KvTraceConfig config;
        config.num_heads = 2;
        const attn::KvTrace drawn = attn::build_kv_trace(inputs, config);
        config.weights = {{"W_query.weight", Matrix::Ones(3, 4), false},
                          {"linears.0.weight", Matrix::Ones(4, 4), false}};
        const attn::KvTrace given = attn::build_kv_trace(inputs, config);
        QCOMPARE(given.weights.size(), drawn.weights.size());
        for (std::size_t i = 0; i < drawn.weights.size(); ++i)
            QCOMPARE(given.weights[i].value, drawn.weights[i].value);
        QCOMPARE(given.full_pass, drawn.full_pass);
    }

    void maxTokensTruncates() {
        attn::KvTraceConfig config;
        config.max_tokens = 5;
        const attn::KvTrace trace = attn::build_kv_trace(attn::random_sequence(8, 3, 4), config);
        QVERIFY(trace.truncated);
        QCOMPARE(trace.steps.size(), std::size_t{5});
        QCOMPARE(trace.full_pass.rows(), Eigen::Index{5});
        config.max_tokens = 8;
        QVERIFY(!attn::build_kv_trace(attn::random_sequence(8, 3, 4), config).truncated);
    }

    // The stepper runs the session's own MultiHeadAttention, edits included, and for any other
    // module a MultiHeadAttention of width d_in with the session's heads when they divide it.
    void stepperConfig_data() {
        QTest::addColumn<ModuleKind>("module");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("dOut");
        QTest::addColumn<int>("expectedHeads");
        QTest::newRow("mha keeps its d_out") << ModuleKind::MultiHeadAttention << 2 << 4 << 2;
        QTest::newRow("bert d=4, 2 heads") << ModuleKind::BertMultiHead << 2 << 0 << 2;
        QTest::newRow("wrapper, 3 heads do not divide 4")
            << ModuleKind::MultiHeadWrapper << 3 << 0 << 1;
        QTest::newRow("v1: one head") << ModuleKind::SelfAttentionV1 << 0 << 0 << 1;
    }
    void stepperConfig() {
        QFETCH(ModuleKind, module);
        QFETCH(int, heads);
        QFETCH(int, dOut);
        QFETCH(int, expectedHeads);
        const attn::Sequence inputs = attn::random_sequence(6, 4, 9);
        attn::ModuleConfig c;
        c.module = module;
        c.num_heads = heads;
        c.d_out = dOut;
        c.seed = 5;
        const attn::RunResult run = attn::run_module(c, inputs);
        const attn::KvTraceConfig config = attn::kv_trace_config(run, 4);
        QCOMPARE(config.module, ModuleKind::MultiHeadAttention);
        QCOMPARE(config.num_heads, Eigen::Index{expectedHeads});
        QCOMPARE(config.d_out, Eigen::Index{dOut == 0 ? 4 : dOut});
        QCOMPARE(config.seed, std::uint64_t{5});
        QCOMPARE(config.max_tokens, Eigen::Index{128});
        QVERIFY(config.cache_snapshots);
        QVERIFY(config.full_pass == attn::KvFullPass::Fast);
        QCOMPARE(config.weights.empty(), module != ModuleKind::MultiHeadAttention);
    }

    void stepperUsesEditedWeights() {
        const attn::Sequence inputs = attn::tutorial_inputs();
        attn::ModuleConfig config;
        config.module = ModuleKind::MultiHeadAttention;
        const attn::RunResult drawn = attn::run_module(config, inputs);
        Matrix edited = weightNamed(drawn.weights, "W_query.weight");
        QCOMPARE(edited.rows(), Eigen::Index{2});
        edited(0, 0) = 3.0f;
        config.weights = {attn::NamedMatrix{"W_query.weight", edited, false}};
        const attn::RunResult run = attn::run_module(config, inputs);
        const attn::KvTrace trace = attn::build_kv_trace(inputs, attn::kv_trace_config(run, 3));
        QCOMPARE(weightNamed(trace.weights, "W_query.weight"), edited);
        for (Eigen::Index t = 0; t < 6; ++t)
            QVERIFY((trace.steps[static_cast<std::size_t>(t)].output -
                     run.output.context_vecs[0].row(t))
                        .cwiseAbs()
                        .maxCoeff() <= 1e-5f);
    }

    void refusals_data() {
        QTest::addColumn<ModuleKind>("module");
        QTest::addColumn<int>("dOut");
        QTest::addColumn<bool>("fast");
        QTest::addColumn<QString>("message");
        QTest::newRow("not a decoder")
            << ModuleKind::CausalAttention << 0 << false
            << "decoding with a KV cache is available for multi-head-attention and "
               "gpt2-attention, not \"causal-attention\": choose one of these two";
        QTest::newRow("gpt2 keeps nx") << ModuleKind::Gpt2Attention << 2 << false
                                       << "d_out = 2 does not apply to gpt2-attention: its output "
                                          "width is nx = d_in = 4; leave d_out at 0";
        QTest::newRow("gpt2 has no fast path")
            << ModuleKind::Gpt2Attention << 0 << true
            << "the fast path computes MultiHeadAttention only: compare GPT-2's decoding with its "
               "forward pass";
        QTest::newRow("heads") << ModuleKind::MultiHeadAttention << 3 << false
                               << "d_out = 3 is not divisible by num_heads = 2: choose num_heads "
                                  "among 1, 3";
    }
    void refusals() {
        QFETCH(ModuleKind, module);
        QFETCH(int, dOut);
        QFETCH(bool, fast);
        QFETCH(QString, message);
        attn::KvTraceConfig config;
        config.module = module;
        config.d_out = dOut;
        config.num_heads = 2;
        config.full_pass = fast ? attn::KvFullPass::Fast : attn::KvFullPass::Forward;
        QCOMPARE(
            modtest::errorOf([&] { attn::build_kv_trace(attn::random_sequence(3, 4, 1), config); }),
            message);
    }

    // --- attention-cli decode ------------------------------------------------------------------

    void decodeMatchesFullPass_data() {
        QTest::addColumn<ModuleKind>("module");
        QTest::addColumn<qlonglong>("tokens");
        QTest::addColumn<qlonglong>("dModel");
        QTest::addColumn<qlonglong>("heads");
        QTest::newRow("mha T=1") << ModuleKind::MultiHeadAttention << 1LL << 4LL << 2LL;
        QTest::newRow("mha T=9 d=8 H=4") << ModuleKind::MultiHeadAttention << 9LL << 8LL << 4LL;
        QTest::newRow("gpt2 T=1") << ModuleKind::Gpt2Attention << 1LL << 4LL << 2LL;
        QTest::newRow("gpt2 T=12 d=12 H=3") << ModuleKind::Gpt2Attention << 12LL << 12LL << 3LL;
    }
    void decodeMatchesFullPass() {
        QFETCH(ModuleKind, module);
        QFETCH(qlonglong, tokens);
        QFETCH(qlonglong, dModel);
        QFETCH(qlonglong, heads);
        attn::DecodeConfig config;
        config.module = module;
        config.num_heads = heads;
        const attn::Sequence inputs = attn::random_sequence(tokens, dModel, 5);
        const attn::KvTrace run = attn::run_decode(config, inputs);
        QCOMPARE(static_cast<qlonglong>(run.steps.size()), tokens);
        QCOMPARE(run.full_pass.rows(), tokens);
        QVERIFY2(run.max_abs_diff <= 1e-5f,
                 qPrintable(QString::number(static_cast<double>(run.max_abs_diff))));
        // The full pass is the module's forward() over the drawn weights.
        const Reference ref = referenceOf(module, inputs.embeddings, run.weights, heads);
        QVERIFY(max_relative_error(run.full_pass, toGrid(ref.output)) <= kReferenceTolerance);
        for (qlonglong t = 0; t < tokens; ++t) {
            const attn::KvTraceStep& step = run.steps[static_cast<std::size_t>(t)];
            QCOMPARE(step.cache_tokens, t + 1);
            // 2 tensors × H × tokens × head_dim × 4 bytes
            QCOMPARE(static_cast<qlonglong>(step.cache_bytes),
                     2 * heads * (t + 1) * (dModel / heads) * 4);
            QCOMPARE(static_cast<qlonglong>(step.attn_weights.size()), heads);
            QCOMPARE(step.attn_weights[0].size(), t + 1);
            QVERIFY(maxAbsDiff(step.output, run.full_pass.row(t)) <= 1e-5);
            QVERIFY(step.cache_keys.empty());
        }
    }

    // The names attention-cli decode takes, and the message for every other one.
    void decoderKindFromName() {
        QCOMPARE(attn::decoder_kind_from_name("multi-head-attention"),
                 ModuleKind::MultiHeadAttention);
        QCOMPARE(attn::decoder_kind_from_name("gpt2-attention"), ModuleKind::Gpt2Attention);
        for (const char* name : {"causal-attention", "nope", ""}) {
            QCOMPARE(modtest::errorOf([&] { attn::decoder_kind_from_name(name); }),
                     QStringLiteral("decoding with a KV cache is available for "
                                    "multi-head-attention and gpt2-attention, not \"%1\": choose "
                                    "one of these two")
                         .arg(QString::fromUtf8(name)));
        }
    }

    void decodeRefuses() {
        attn::DecodeConfig config;
        config.module = ModuleKind::CausalAttention;
        QCOMPARE(decodeError(config, attn::random_sequence(3, 4, 1)),
                 QStringLiteral("decoding with a KV cache is available for multi-head-attention "
                                "and gpt2-attention, not \"causal-attention\": choose one of "
                                "these two"));
        config.module = ModuleKind::Gpt2Attention;
        config.num_heads = 3;
        QCOMPARE(decodeError(config, attn::random_sequence(3, 4, 1)),
                 QStringLiteral("d_model = 4 is not divisible by num_heads = 3: choose num_heads "
                                "among 1, 2, 4"));
    }
};

QTEST_APPLESS_MAIN(TestKvTrace)
#include "test_kv_trace.moc"
