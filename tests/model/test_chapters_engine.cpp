// The engine of the chapters past the tutorial: MultiHeadAttention with grouped-query
// K/V heads, window / bidirectional / padding masks and RoPE, against PyTorch references
// (tests/reference/chapters_reference.py), and the properties the chapters teach: G = num_heads
// is the seed's module bit for bit, RoPE scores depend only on relative positions, decoding with
// a G-head cache equals the full pass.
#include <QString>
#include <QTest>
#include <cmath>
#include <vector>

#include "model/examples.h"
#include "model/fast_attention.h"
#include "model/kv_trace.h"
#include "model/modules.h"
#include "model/ops.h"
#include "model/rng.h"
#include "model/runner.h"
#include "tests/reference/chapters_reference.h"

using attn::Batch;
using attn::BoolMatrix;
using attn::Matrix;

namespace {

constexpr float kTolerance = 1e-5f;

QString errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const attn::AttentionError& e) {
        return QString::fromUtf8(e.what());
    }
    return QStringLiteral("<no error>");
}

// "" when every value of `got` (flattened row-major, in order) matches `want` within the
// tolerance, NaN where NaN; otherwise the first mismatch.
QString compare(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
    if (got.size() != want.size()) {
        return QStringLiteral("%1: %2 values, expected %3")
            .arg(what)
            .arg(got.size())
            .arg(want.size());
    }
    for (std::size_t i = 0; i < got.size(); ++i) {
        const bool bothNan = std::isnan(got[i]) && std::isnan(want[i]);
        if (!bothNan &&
            !(std::abs(got[i] - want[i]) <= kTolerance * std::max(1.0f, std::abs(want[i])))) {
            return QStringLiteral("%1[%2] = %3, expected %4")
                .arg(what)
                .arg(i)
                .arg(static_cast<double>(got[i]), 0, 'g', 9)
                .arg(static_cast<double>(want[i]), 0, 'g', 9);
        }
    }
    return {};
}

void append(std::vector<float>& out, const Matrix& m) {
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        for (Eigen::Index j = 0; j < m.cols(); ++j) out.push_back(m(i, j));
    }
}

std::vector<float> flat(const Batch& batch) {
    std::vector<float> out;
    for (const Matrix& m : batch) append(out, m);
    return out;
}

std::vector<float> flatHeads(const attn::ModuleOutput& out, Matrix attn::AttentionResult::*field) {
    std::vector<float> all;
    for (const auto& heads : out.heads) {
        for (const attn::AttentionResult& h : heads) append(all, h.*field);
    }
    return all;
}

BoolMatrix boolMatrix(std::initializer_list<std::initializer_list<int>> rows) {
    BoolMatrix m(static_cast<Eigen::Index>(rows.size()),
                 static_cast<Eigen::Index>(rows.begin()->size()));
    Eigen::Index i = 0;
    for (const auto& row : rows) {
        Eigen::Index j = 0;
        for (int v : row) m(i, j++) = v != 0;
        ++i;
    }
    return m;
}

attn::ModuleConfig configOf(const chapters_reference::Case& c) {
    attn::ModuleConfig config;
    config.module = attn::ModuleKind::MultiHeadAttention;
    config.seed = c.seed;
    config.d_out = c.d_out;
    config.num_heads = c.num_heads;
    config.num_kv_heads = c.num_kv_heads;
    config.causal = std::string_view(c.mask) != "bidirectional";
    config.window = c.window;
    for (int l : c.lengths) config.lengths.push_back(l);
    config.batch = c.lengths.empty() ? 1 : static_cast<Eigen::Index>(c.lengths.size());
    config.rope = c.rope;
    config.rope_base = c.rope_base;
    config.position_offset = c.position_offset;
    config.dropout = c.dropout;
    config.qkv_bias = c.qkv_bias;
    return config;
}

}  // namespace

class TestChaptersEngine : public QObject {
    Q_OBJECT

private slots:
    // --- ops: window_mask, kv_head_of / repeat_kv, RoPE ---------------------------------------

    void windowMaskValues() {
        QCOMPARE(attn::window_mask(4, 4, 2), boolMatrix({{0, 1, 1, 1},  //
                                                         {0, 0, 1, 1},
                                                         {1, 0, 0, 1},
                                                         {1, 1, 0, 0}}));
        QCOMPARE(attn::window_mask(3, 3, 1), boolMatrix({{0, 1, 1}, {1, 0, 1}, {1, 1, 0}}));
        // A window at least T wide is the causal mask.
        QCOMPARE(attn::window_mask(3, 3, 3), attn::causal_mask(3, 3));
        QCOMPARE(attn::window_mask(3, 3, 10), attn::causal_mask(3, 3));
        // Decoding: 2 queries are the last positions 3 and 4 of 5 keys.
        QCOMPARE(attn::window_mask(2, 5, 2), boolMatrix({{1, 1, 0, 0, 1}, {1, 1, 1, 0, 0}}));
    }

    void windowMaskBelowOneIsAnError() {
        QCOMPARE(errorOf([] { attn::window_mask(3, 3, 0); }),
                 QStringLiteral("window = 0 sees no key: give a window of at least 1 token"));
        QCOMPARE(errorOf([] { attn::window_mask(3, 3, -2); }),
                 QStringLiteral("window = -2 sees no key: give a window of at least 1 token"));
    }

    void kvHeadOfIsRepeatKv() {
        const std::vector<Eigen::Index> gqa{0, 0, 1, 1}, mqa{0, 0, 0, 0}, mha{0, 1, 2, 3};
        for (Eigen::Index h = 0; h < 4; ++h) {
            const auto i = static_cast<std::size_t>(h);
            QCOMPARE(attn::kv_head_of(h, 4, 2), gqa[i]);
            QCOMPARE(attn::kv_head_of(h, 4, 1), mqa[i]);
            QCOMPARE(attn::kv_head_of(h, 4, 4), mha[i]);
        }
        QCOMPARE(attn::kv_head_of(5, 6, 3), Eigen::Index{2});
        const attn::Heads kv{Matrix::Constant(1, 2, 1.0f), Matrix::Constant(1, 2, 2.0f)};
        const attn::Heads repeated = attn::repeat_kv(kv, 4);
        QCOMPARE(repeated.size(), std::size_t{4});
        QCOMPARE(repeated[1](0, 0), 1.0f);
        QCOMPARE(repeated[2](0, 0), 2.0f);
        QCOMPARE(errorOf([] { attn::kv_head_of(0, 4, 3); }),
                 QStringLiteral("num_kv_heads = 3 does not divide num_heads = 4: give a divisor "
                                "of num_heads (num_heads for multi-head, 1 for multi-query)"));
        QCOMPARE(errorOf([] { attn::kv_head_of(4, 4, 2); }),
                 QStringLiteral("query head 4 does not exist: give 0..3"));
    }

    void ropeAnglesAndRotation() {
        // head_dim 4, base 100: θ = 100^0 = 1 and 100^(-2/4) = 0.1.
        const attn::RopeAngles a = attn::rope_angles(2, 4, 3, 100.0f);
        QCOMPARE(a.inv_freq(0), 1.0f);
        QVERIFY(std::abs(a.inv_freq(1) - 0.1f) < 1e-7f);
        // Position 3 + 1 = 4: angles 4 and 0.4, repeated for coordinates i and i + 2.
        QVERIFY(std::abs(a.cos(1, 0) - std::cos(4.0f)) < 1e-6f);
        QVERIFY(std::abs(a.cos(1, 2) - std::cos(4.0f)) < 1e-6f);
        QVERIFY(std::abs(a.sin(1, 1) - std::sin(0.4f)) < 1e-6f);
        QVERIFY(std::abs(a.sin(1, 3) - std::sin(0.4f)) < 1e-6f);
        // (1, 0 | 0, 0) at position p turns in the plane of coordinates 0 and 2: (cos p, 0, sin p,
        // 0).
        Matrix x = Matrix::Zero(1, 4);
        x(0, 0) = 1.0f;
        const Matrix r = attn::rope_rotate(x, 2, 100.0f);
        QVERIFY(std::abs(r(0, 0) - std::cos(2.0f)) < 1e-6f);
        QCOMPARE(r(0, 1), 0.0f);
        QVERIFY(std::abs(r(0, 2) - std::sin(2.0f)) < 1e-6f);
        QCOMPARE(r(0, 3), 0.0f);
        // Position 0 leaves the vector as it is; the norm is kept at any position.
        Matrix y(1, 4);
        y << 0.3f, -1.2f, 0.7f, 2.0f;
        QCOMPARE(attn::rope_rotate(y, 0), y);
        QVERIFY(std::abs(attn::rope_rotate(y, 41).norm() - y.norm()) < 1e-5f);
        Matrix half(1, 4);
        half << -0.7f, -2.0f, 0.3f, -1.2f;
        QCOMPARE(attn::rotate_half(y), half);
    }

    void ropeErrors() {
        QCOMPARE(errorOf([] { attn::rope_angles(2, 3, 0); }),
                 QStringLiteral("RoPE needs an even head_dim but head_dim = 3: it rotates "
                                "coordinate pairs (i, i + head_dim/2); choose d_out and num_heads "
                                "so that d_out / num_heads is even"));
        QCOMPARE(errorOf([] { attn::rope_angles(2, 4, 0, 1.0f); }),
                 QStringLiteral("rope_base = 1 gives no rotation frequencies: give a base > 1 "
                                "(LLaMA uses 10000)"));
        QCOMPARE(errorOf([] { attn::rope_angles(2, 4, -1); }),
                 QStringLiteral("RoPE positions start at -1 for 2 tokens: give a position_offset "
                                ">= 0"));
        QCOMPARE(errorOf([] {
                     attn::TorchGenerator gen(123);
                     attn::MultiHeadAttention m(3, 6, 6, 0.0f, 2, gen);  // head_dim 3
                     m.rope = true;
                     m.forward(Batch{attn::tutorial_inputs().embeddings});
                 }),
                 QStringLiteral("RoPE needs an even head_dim but head_dim = 3: it rotates "
                                "coordinate pairs (i, i + head_dim/2); choose d_out and num_heads "
                                "so that d_out / num_heads is even"));
    }

    // --- the module against PyTorch --------------------------------------------------------------

    void matchesPyTorch_data() {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < chapters_reference::cases().size(); ++i) {
            QTest::newRow(chapters_reference::cases()[i].name) << static_cast<int>(i);
        }
    }

    // Through run_module, as attention-cli runs it: every printed tensor.
    void matchesPyTorch() {
        QFETCH(int, index);
        const chapters_reference::Case& c =
            chapters_reference::cases()[static_cast<std::size_t>(index)];
        const attn::RunResult r = attn::run_module(configOf(c), attn::tutorial_inputs());
        const attn::ModuleOutput& out = r.output;
        const std::size_t batch = c.lengths.empty() ? 1 : c.lengths.size();
        QCOMPARE(out.heads.size(), batch);
        QCOMPARE(out.heads[0].size(), static_cast<std::size_t>(c.num_heads));
        QCOMPARE(out.keys[0].cols(), Eigen::Index{c.num_kv_heads} * (c.d_out / c.num_heads));
        QCOMPARE(r.training, c.dropout > 0.0f);
        const QString problems =
            compare(flat(out.queries), c.queries, "queries") +
            compare(flat(out.keys), c.keys, "keys") +
            compare(flat(out.values), c.values, "values") +
            compare(flatHeads(out, &attn::AttentionResult::scores), c.attn_scores, "attn_scores") +
            compare(flatHeads(out, &attn::AttentionResult::weights), c.attn_weights,
                    "attn_weights") +
            compare(flat(out.context_vecs), c.context_vecs, "context_vecs");
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
        if (c.dropout > 0.0f) {
            const QString dropped =
                compare(flatHeads(out, &attn::AttentionResult::dropped),
                        c.attn_weights_after_dropout, "attn_weights_after_dropout");
            QVERIFY2(dropped.isEmpty(), qPrintable(dropped));
        }
    }

    void lengthZeroRowIsNaN() {
        // The reference's third sequence has length 0: every key blocked, NaN as PyTorch gives.
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::MultiHeadAttention;
        config.d_out = 4;
        config.batch = 3;
        config.lengths = {6, 3, 0};
        const attn::RunResult r = attn::run_module(config, attn::tutorial_inputs());
        QVERIFY(r.output.heads[2][0].weights.array().isNaN().all());
        QVERIFY(r.output.context_vecs[2].array().isNaN().all());
        // Length 3: keys 3..5 are blocked for every query, the rows after 2 see keys 0..2 only.
        const Matrix& w = r.output.heads[1][1].weights;
        QCOMPARE(w.rightCols(3), Matrix::Zero(6, 3));
        QVERIFY(std::abs(w.row(5).sum() - 1.0f) < 1e-6f);
        QVERIFY(r.output.context_vecs[0].allFinite());
    }

    void windowAndLengthsTakeTheFill() {
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::MultiHeadAttention;
        config.d_out = 4;
        config.window = 2;
        config.batch = 1;
        config.lengths = {4};
        config.fill_value = -1e9f;
        const attn::RunResult r = attn::run_module(config, attn::tutorial_inputs());
        const attn::AttentionResult& h = r.output.heads[0][0];
        // Query 3 sees keys 2 and 3; query 5 sees no key within its length: -1e9 is uniform.
        QCOMPARE(h.blocked.row(3), boolMatrix({{1, 1, 0, 0, 1, 1}}));
        QCOMPARE(h.masked(3, 0), -1e9f / std::sqrt(2.0f));
        QCOMPARE(h.masked(3, 5), -1e9f / std::sqrt(2.0f));
        QCOMPARE(h.blocked.row(5), boolMatrix({{1, 1, 1, 1, 1, 1}}));
        for (Eigen::Index j = 0; j < 6; ++j)
            QVERIFY(std::abs(h.weights(5, j) - 1.0f / 6.0f) < 1e-6f);
    }

    // --- the properties the chapters show ------------------------------------------------------

    void asManyKvHeadsAsHeadsIsTheSeedModuleBitForBit() {
        const Batch x{attn::tutorial_inputs().embeddings, attn::tutorial_inputs().embeddings};
        for (const bool bias : {false, true}) {
            attn::TorchGenerator gen_seed(123), gen_gqa(123);
            const attn::MultiHeadAttention seed(3, 4, 6, 0.5f, 2, gen_seed, bias);
            const attn::MultiHeadAttention gqa(3, 4, 6, 0.5f, 2, gen_gqa, bias, 2);
            QCOMPARE(gqa.W_key.weight, seed.W_key.weight);
            QCOMPARE(gqa.W_value.weight, seed.W_value.weight);
            QCOMPARE(gqa.out_proj.weight, seed.out_proj.weight);
            QCOMPARE(gqa.out_proj.bias, seed.out_proj.bias);
            attn::ForwardOptions a, b;
            a.training = b.training = true;  // the dropout draws follow too
            a.gen = &gen_seed;
            b.gen = &gen_gqa;
            const attn::ModuleOutput s = seed.forward(x, a);
            const attn::ModuleOutput g = gqa.forward(x, b);
            for (std::size_t i = 0; i < x.size(); ++i) {
                QCOMPARE(g.context_vecs[i], s.context_vecs[i]);
                QCOMPARE(g.keys[i], s.keys[i]);
                for (std::size_t h = 0; h < 2; ++h) {
                    QCOMPARE(g.heads[i][h].dropped, s.heads[i][h].dropped);
                }
            }
        }
    }

    void gqaShrinksTheKeyAndValueProjections() {
        attn::TorchGenerator gen(123);
        const attn::MultiHeadAttention m(3, 8, 6, 0.0f, 4, gen, false, 1);
        QCOMPARE(m.W_query.weight.rows(), Eigen::Index{8});
        QCOMPARE(m.W_key.weight.rows(), Eigen::Index{2});
        QCOMPARE(m.W_value.weight.rows(), Eigen::Index{2});
        // Multi-query: every query head reads the same keys.
        const attn::ModuleOutput out = m.forward(Batch{attn::tutorial_inputs().embeddings});
        QCOMPARE(out.keys[0].cols(), Eigen::Index{2});
        QCOMPARE(out.heads[0].size(), std::size_t{4});
        QCOMPARE(m.make_cache(6).num_heads(), Eigen::Index{1});
        QCOMPARE(errorOf([] {
                     attn::TorchGenerator g(1);
                     attn::MultiHeadAttention(3, 8, 6, 0.0f, 4, g, false, 3);
                 }),
                 QStringLiteral("num_kv_heads = 3 does not divide num_heads = 4: give a divisor "
                                "of num_heads (num_heads for multi-head, 1 for multi-query)"));
    }

    void ropeScoresDependOnlyOnRelativePositions() {
        attn::TorchGenerator gen(123);
        attn::MultiHeadAttention m(3, 8, 6, 0.0f, 2, gen, false, 1);
        m.rope = true;
        const Batch x{attn::tutorial_inputs().embeddings};
        attn::ForwardOptions at0;
        const attn::ModuleOutput base = m.forward(x, at0);
        for (const Eigen::Index offset : {Eigen::Index{1}, Eigen::Index{7}, Eigen::Index{100}}) {
            attn::ForwardOptions shifted;
            shifted.position_offset = offset;
            const attn::ModuleOutput s = m.forward(x, shifted);
            for (std::size_t h = 0; h < 2; ++h) {
                const float diff =
                    (s.heads[0][h].scores - base.heads[0][h].scores).cwiseAbs().maxCoeff();
                QVERIFY2(diff < 1e-5f, qPrintable(QStringLiteral("offset %1 head %2: %3")
                                                      .arg(offset)
                                                      .arg(h)
                                                      .arg(static_cast<double>(diff))));
            }
            // The rotated queries themselves do change: the invariance is in the products.
            QVERIFY((s.queries[0] - base.queries[0]).cwiseAbs().maxCoeff() > 1e-3f);
        }
        // Without RoPE the scores ignore order: permuting the tokens permutes the scores.
        attn::TorchGenerator gen2(123);
        const attn::MultiHeadAttention plain(3, 8, 6, 0.0f, 2, gen2);
        attn::ForwardOptions bidirectional;
        bidirectional.causal = false;
        Matrix reversed = x[0].colwise().reverse();
        const Matrix s0 = plain.forward(x, bidirectional).heads[0][0].scores;
        const Matrix s1 = plain.forward(Batch{reversed}, bidirectional).heads[0][0].scores;
        QVERIFY((s1 - s0.reverse()).cwiseAbs().maxCoeff() < 1e-6f);
    }

    void decodeWithKvHeadsAndRopeEqualsTheFullPass() {
        const attn::Sequence inputs = attn::random_sequence(9, 8, 5);
        attn::TorchGenerator gen(11);
        attn::MultiHeadAttention m(8, 8, 9, 0.0f, 4, gen, true, 2);
        m.rope = true;
        m.rope_base = 500.0f;
        const attn::ModuleOutput full = m.forward(Batch{inputs.embeddings});
        attn::KVCache cache = m.make_cache(9);
        QCOMPARE(cache.num_heads(), Eigen::Index{2});
        for (Eigen::Index t = 0; t < 9; ++t) {
            const attn::DecodeStep step = m.decode_step(inputs.embeddings.middleRows(t, 1), cache);
            QVERIFY((step.output - full.context_vecs[0].row(t)).cwiseAbs().maxCoeff() < 1e-5f);
            QCOMPARE(step.attn_weights.size(), std::size_t{4});
            for (std::size_t h = 0; h < 4; ++h) {
                QVERIFY((step.attn_weights[h] - full.heads[0][h].weights.row(t).head(t + 1))
                            .cwiseAbs()
                            .maxCoeff() < 1e-6f);
            }
            // 2 tensors × G = 2 heads × tokens × head_dim 2 × 4 bytes.
            QCOMPARE(step.cache_bytes, static_cast<std::size_t>(2 * 2 * (t + 1) * 2 * 4));
        }
        // The CLI's decoder does the same.
        attn::DecodeConfig config;
        config.num_heads = 4;
        config.num_kv_heads = 2;
        config.rope = true;
        const attn::KvTrace trace = attn::run_decode(config, inputs);
        QVERIFY(trace.max_abs_diff < 1e-5f);
        QCOMPARE(trace.steps.back().cache_bytes, std::size_t{2 * 2 * 9 * 2 * 4});
    }

    void moduleRefusesBadMaskOptions() {
        attn::TorchGenerator gen(123);
        const attn::MultiHeadAttention m(3, 4, 6, 0.0f, 2, gen);
        const Batch x{attn::tutorial_inputs().embeddings};
        auto forwardWith = [&](const attn::ForwardOptions& o) {
            return errorOf([&] { m.forward(x, o); });
        };
        attn::ForwardOptions counts;
        counts.lengths = {6, 6};
        QCOMPARE(forwardWith(counts), QStringLiteral("lengths has 2 values but the batch has 1 "
                                                     "sequences: give one length per sequence"));
        attn::ForwardOptions longer;
        longer.lengths = {7};
        QCOMPARE(forwardWith(longer),
                 QStringLiteral("length 7 of sequence 0 is outside [0, 6]: give at most the 6 "
                                "tokens of the input"));
        attn::ForwardOptions open;
        open.window = 2;
        open.causal = false;
        QCOMPARE(forwardWith(open), QStringLiteral("window = 2 needs the causal mask: a sliding "
                                                   "window is causal"));
        attn::ForwardOptions negative;
        negative.window = -1;
        QCOMPARE(forwardWith(negative),
                 QStringLiteral("window = -1 is negative: give a window of at least 1 token"));
    }

    // --- the fast path and the runner -----------------------------------------------------------

    void fastPathRefusesWhatItDoesNotCompute() {
        attn::TorchGenerator gen(123);
        attn::MultiHeadAttention m(3, 4, 6, 0.0f, 2, gen, false, 1);
        const QString msg = QStringLiteral(
            "the fast path computes the seed's MultiHeadAttention only: with num_kv_heads < "
            "num_heads or rope, use MultiHeadAttention::forward and decode_step");
        QCOMPARE(errorOf([&] { attn::FastAttentionWeights w(m); }), msg);
        attn::TorchGenerator gen2(123);
        attn::MultiHeadAttention r(3, 4, 6, 0.0f, 2, gen2);
        r.rope = true;
        QCOMPARE(errorOf([&] { attn::FastAttentionWeights w(r); }), msg);
    }

    void outputOnlyRunsBypassTheFastPath() {
        attn::ModuleConfig seed;
        seed.module = attn::ModuleKind::MultiHeadAttention;
        seed.d_out = 4;
        QVERIFY(attn::has_fast_path(seed));
        std::vector<attn::ModuleConfig> configs(4, seed);
        configs[0].num_kv_heads = 1;
        configs[1].window = 2;
        configs[2].lengths = {3};
        configs[3].rope = true;
        for (const attn::ModuleConfig& c : configs) {
            QVERIFY(!attn::has_fast_path(c));
            const attn::RunResult summary =
                attn::run_module(c, attn::tutorial_inputs(), nullptr, true);
            const attn::RunResult full = attn::run_module(c, attn::tutorial_inputs());
            QCOMPARE(summary.output.context_vecs[0], full.output.context_vecs[0]);
        }
        // G = num_heads is still the seed's module.
        attn::ModuleConfig same = seed;
        same.num_heads = 2;
        same.num_kv_heads = 2;
        QVERIFY(attn::has_fast_path(same));
    }

    void runnerResolvesAndNamesTheMask() {
        attn::ModuleConfig c;
        c.module = attn::ModuleKind::MultiHeadAttention;
        c.num_heads = 2;
        c.d_out = 4;
        attn::ModuleConfig r = attn::resolve_config(c, 3, 6, 6);
        QCOMPARE(r.num_kv_heads, Eigen::Index{2});
        QCOMPARE(attn::mask_kind_name(r), std::string_view("causal"));
        c.window = 3;
        QCOMPARE(attn::mask_kind_name(attn::resolve_config(c, 3, 6, 6)),
                 std::string_view("window"));
        c.window = 0;
        c.causal = false;
        QCOMPARE(attn::mask_kind_name(attn::resolve_config(c, 3, 6, 6)),
                 std::string_view("bidirectional"));
    }

    void runnerErrors_data() {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("message");
        QTest::newRow("kv heads") << 0
                                  << "num_kv_heads = 3 does not divide num_heads = 2: give a "
                                     "divisor of num_heads (num_heads is multi-head attention, 1 "
                                     "is multi-query)";
        QTest::newRow("window bidirectional")
            << 1
            << "a window of 2 is a causal mask: choose the window mask or the bidirectional "
               "one, not both";
        QTest::newRow("lengths count") << 2
                                       << "2 lengths but batch = 1: give one length per sequence "
                                          "(their count is the batch)";
        QTest::newRow("length above T")
            << 3 << "length 7 is outside [0, 6]: each sequence has at most the input's 6 tokens";
        QTest::newRow("offset without rope")
            << 4 << "position_offset applies only with rope: turn rope on or leave it unset";
        QTest::newRow("odd head_dim")
            << 5
            << "rope needs an even head_dim but d_out / num_heads = 6 / 2 = 3: RoPE rotates "
               "coordinate pairs; choose d_out and num_heads so that head_dim is even";
        QTest::newRow("other module")
            << 6
            << "rope does not apply to causal-attention: only multi-head-attention has K/V "
               "head sharing, window and padding masks and RoPE; leave it unset";
        QTest::newRow("negative window")
            << 7 << "window = -1 sees no key: give a window of at least 1";
    }

    void runnerErrors() {
        QFETCH(int, which);
        QFETCH(QString, message);
        attn::ModuleConfig c;
        c.module = attn::ModuleKind::MultiHeadAttention;
        c.d_out = 4;
        switch (which) {
            case 0:
                c.num_kv_heads = 3;
                break;
            case 1:
                c.window = 2;
                c.causal = false;
                break;
            case 2:
                c.lengths = {6, 6};
                break;
            case 3:
                c.lengths = {7};
                break;
            case 4:
                c.position_offset = 2;
                break;
            case 5:
                c.d_out = 6;
                c.rope = true;
                break;
            case 6:
                c.module = attn::ModuleKind::CausalAttention;
                c.rope = true;
                break;
            default:
                c.window = -1;
                break;
        }
        QCOMPARE(errorOf([&] { attn::run_module(c, attn::tutorial_inputs()); }), message);
    }
};

QTEST_APPLESS_MAIN(TestChaptersEngine)
#include "test_chapters_engine.moc"
