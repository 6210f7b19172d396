// GPT-2's Attention (seed 001), seed 003's dim_k != dim_v modules and BERT's MultiHeadedAttention
// (seeds 000 and 004): fused c_attn = separate projections, pruning = head_mask, masks and scale,
// cross-attention, the mask conventions and fully masked rows. The tutorial's modules are in
// test_modules.cpp.
#include <QList>
#include <QString>
#include <QStringList>
#include <QTest>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <vector>

#include "model/examples.h"
#include "model/modules.h"
#include "model/ops.h"
#include "model/rng.h"
#include "model/tensor.h"
#include "module_test_helpers.h"
#include "reference_attention.h"

using attn::Batch;
using attn::BoolMatrix;
using attn::Matrix;
using attn::RowVector;
using modtest::errorOf;
using modtest::maxAbsDiff;
using modtest::printedMismatches;
using modtest::randomInputs;
using modtest::toMatrix;

using Thrower = std::function<void()>;
Q_DECLARE_METATYPE(Matrix)
Q_DECLARE_METATYPE(Thrower)

namespace {

// Identity comparisons between two float computations of the same thing in different orders.
constexpr double kSameMathTolerance = 1e-5;

Matrix tutorialInputs() { return attn::tutorial_inputs().embeddings; }

// Context vectors of a reference computation as a Matrix.
Matrix gridToMatrix(const attn::reference::Grid& g) {
    Matrix m(static_cast<Eigen::Index>(g.size()),
             g.empty() ? 0 : static_cast<Eigen::Index>(g.front().size()));
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            m(i, j) =
                static_cast<float>(g[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]);
        }
    }
    return m;
}

// GPT-2 initialises with normal(0, 0.02): outputs so small that any comparison passes. Tests
// redraw the weights wide enough that attention is far from uniform.
void widenGpt2(attn::Gpt2Attention& m, std::uint64_t seed) {
    attn::TorchGenerator gen(seed);
    const double in_bound = 3.0 / std::sqrt(static_cast<double>(m.c_attn.weight.rows()));
    m.c_attn.weight =
        gen.uniform(m.c_attn.weight.rows(), m.c_attn.weight.cols(), -in_bound, in_bound);
    m.c_attn.bias = gen.uniform(1, m.c_attn.bias.size(), -0.2, 0.2);
    if (m.is_cross_attention) {
        m.q_attn.weight =
            gen.uniform(m.q_attn.weight.rows(), m.q_attn.weight.cols(), -in_bound, in_bound);
        m.q_attn.bias = gen.uniform(1, m.q_attn.bias.size(), -0.2, 0.2);
    }
    m.c_proj.weight = gen.uniform(m.c_proj.weight.rows(), m.c_proj.weight.cols(), -1.0, 1.0);
    m.c_proj.bias = gen.uniform(1, m.c_proj.bias.size(), -0.2, 0.2);
}

QString shapeOf(const Batch& b) {
    if (b.empty()) {
        return QStringLiteral("(0)");
    }
    return QStringLiteral("(%1, %2, %3)").arg(b.size()).arg(b[0].rows()).arg(b[0].cols());
}

}  // namespace

class TestSeedModules : public QObject {
    Q_OBJECT

private slots:
    void gpt2FusedEqualsSeparate_data();
    void gpt2FusedEqualsSeparate();
    void gpt2PruneEqualsHeadMask_data();
    void gpt2PruneEqualsHeadMask();
    void gpt2MaskAndScale();
    void gpt2CrossAttention();
    void dimKNotDimV_data();
    void dimKNotDimV();
    void bertMaskConventions_data();
    void bertMaskConventions();
    void bertFullyMaskedRows_data();
    void bertFullyMaskedRows();
    void bertCrossAttention_data();
    void bertCrossAttention();
};

void TestSeedModules::gpt2FusedEqualsSeparate_data() {
    QTest::addColumn<int>("nx");
    QTest::addColumn<int>("n_head");
    QTest::addColumn<int>("tokens");
    QTest::newRow("nx=4 H=1 T=6") << 4 << 1 << 6;
    QTest::newRow("nx=6 H=2 T=6") << 6 << 2 << 6;
    QTest::newRow("nx=12 H=4 T=9") << 12 << 4 << 9;
    QTest::newRow("nx=8 H=8 T=1") << 8 << 8 << 1;
}

void TestSeedModules::gpt2FusedEqualsSeparate() {
    QFETCH(int, nx);
    QFETCH(int, n_head);
    QFETCH(int, tokens);
    attn::TorchGenerator gen(3);
    attn::Gpt2Attention gpt(nx, 16, n_head, true, false, gen);
    widenGpt2(gpt, 30);
    const Matrix x = randomInputs(tokens, nx, 31);
    attn::Gpt2Attention::Input in;
    in.hidden_states = {x};
    const attn::Gpt2Attention::Output out = gpt.forward(in);

    // c_attn(x).split(split_size): the columns of c_attn are W_q | W_k | W_v side by side.
    const Eigen::Index s = gpt.split_size;
    const Batch* projections[] = {&out.attn.queries, &out.attn.keys, &out.attn.values};
    for (Eigen::Index part = 0; part < 3; ++part) {
        const Matrix w = gpt.c_attn.weight.middleCols(part * s, s);
        const RowVector bias = gpt.c_attn.bias.middleCols(part * s, s);
        Matrix separate = x * w;
        separate.rowwise() += bias;
        QVERIFY(maxAbsDiff((*projections[part])[0], separate) <= 1e-6);
    }

    // The whole module equals MultiHeadAttention with separate Linear projections holding the
    // same columns (transposed: Conv1D is x·W, Linear is x·Wᵀ). GPT-2 fills with -1e4 where
    // MultiHeadAttention fills with -inf: exp(-1e4 - max) underflows to exactly 0 in float.
    attn::TorchGenerator gen2(4);
    attn::MultiHeadAttention mha(nx, nx, 16, 0.0f, n_head, gen2, true);
    attn::Linear* linears[] = {&mha.W_query, &mha.W_key, &mha.W_value};
    for (Eigen::Index part = 0; part < 3; ++part) {
        linears[part]->weight = gpt.c_attn.weight.middleCols(part * s, s).transpose();
        linears[part]->bias = gpt.c_attn.bias.middleCols(part * s, s);
    }
    mha.out_proj.weight = gpt.c_proj.weight.transpose();
    mha.out_proj.bias = gpt.c_proj.bias;
    const attn::ModuleOutput ref = mha.forward(Batch{x});
    const double diff = maxAbsDiff(out.attn.context_vecs[0], ref.context_vecs[0]);
    QVERIFY2(diff <= kSameMathTolerance, qPrintable(QString::number(diff)));
    QVERIFY(modtest::maxAbs(ref.context_vecs[0]) > 0.05);  // not trivially small
}

void TestSeedModules::gpt2PruneEqualsHeadMask_data() {
    QTest::addColumn<int>("n_head");
    QTest::addColumn<QList<int>>("first");
    QTest::addColumn<QList<int>>("second");
    QTest::addColumn<bool>("cross");
    QTest::newRow("H=4 prune {1}") << 4 << QList<int>{1} << QList<int>{} << false;
    QTest::newRow("H=4 prune {0, 3}") << 4 << QList<int>{0, 3} << QList<int>{} << false;
    QTest::newRow("H=6 prune {1} then {2, 4}") << 6 << QList<int>{1} << QList<int>{2, 4} << false;
    QTest::newRow("H=4 prune {2} then {2, 0} (2 again)")
        << 4 << QList<int>{2} << QList<int>{2, 0} << false;
    QTest::newRow("cross H=4 prune {1, 2}") << 4 << QList<int>{1, 2} << QList<int>{} << true;
}

void TestSeedModules::gpt2PruneEqualsHeadMask() {
    QFETCH(int, n_head);
    QFETCH(QList<int>, first);
    QFETCH(QList<int>, second);
    QFETCH(bool, cross);
    const Eigen::Index head_size = 3;
    const Eigen::Index nx = n_head * head_size;
    attn::TorchGenerator gen(17);
    attn::Gpt2Attention full(nx, 12, n_head, true, cross, gen);
    widenGpt2(full, 18);
    attn::Gpt2Attention pruned = full;

    std::set<Eigen::Index> first_set, all;
    for (int h : first) {
        first_set.insert(h);
        all.insert(h);
    }
    std::set<Eigen::Index> second_set;
    for (int h : second) {
        second_set.insert(h);
        all.insert(h);
    }
    pruned.prune_heads(first_set);
    pruned.prune_heads(second_set);

    const Eigen::Index left = n_head - static_cast<Eigen::Index>(all.size());
    QCOMPARE(pruned.n_head, left);
    QCOMPARE(pruned.split_size, left * head_size);
    QCOMPARE(pruned.pruned_heads, all);
    QCOMPARE(pruned.c_attn.weight.cols(), (cross ? 2 : 3) * left * head_size);
    QCOMPARE(pruned.c_proj.weight.rows(), left * head_size);
    QCOMPARE(pruned.c_proj.weight.cols(), nx);
    if (cross) {
        QCOMPARE(pruned.q_attn.weight.cols(), left * head_size);
    }

    const Batch x = {randomInputs(5, nx, 19)};
    const Batch enc = {randomInputs(4, nx, 20)};
    RowVector head_mask = RowVector::Ones(n_head);
    for (Eigen::Index h : all) {
        head_mask(h) = 0.0f;
    }
    attn::Gpt2Attention::Input masked_in;
    masked_in.hidden_states = x;
    masked_in.head_mask = &head_mask;
    attn::Gpt2Attention::Input pruned_in;
    pruned_in.hidden_states = x;
    if (cross) {
        masked_in.encoder_hidden_states = &enc;
        pruned_in.encoder_hidden_states = &enc;
    }
    const Matrix expected = full.forward(masked_in).attn.context_vecs[0];
    const Matrix actual = pruned.forward(pruned_in).attn.context_vecs[0];
    const double diff = maxAbsDiff(actual, expected);
    QVERIFY2(diff <= kSameMathTolerance, qPrintable(QString::number(diff)));
    // ... and the pruned heads mattered: without the head_mask the output differs.
    masked_in.head_mask = nullptr;
    QVERIFY(maxAbsDiff(full.forward(masked_in).attn.context_vecs[0], expected) > 1e-3);
}

void TestSeedModules::gpt2MaskAndScale() {
    attn::TorchGenerator gen(21);
    attn::Gpt2Attention gpt(6, 8, 2, true, false, gen);
    widenGpt2(gpt, 22);
    const Matrix x = randomInputs(4, 6, 23);
    attn::Gpt2Attention::Input in;
    in.hidden_states = {x};
    const attn::Gpt2Attention::Output out = gpt.forward(in);
    const attn::AttentionResult& r = out.attn.heads[0][1];
    // torch.where(bias, w, masked_bias): the future holds exactly -1e4, not -inf.
    QCOMPARE(r.masked(0, 1), -1e4f);
    QCOMPARE(r.masked(2, 3), -1e4f);
    QCOMPARE(r.masked(3, 3), r.scaled(3, 3));
    QVERIFY(r.weights(0, 1) == 0.0f);
    // scale: w / sqrt(v.size(-1)) with head_dim 3.
    QVERIFY(maxAbsDiff(r.scaled, r.scores / std::sqrt(3.0f)) <= 1e-6);

    // scale = false leaves the scores as they are.
    attn::Gpt2Attention unscaled = gpt;
    unscaled.scale = false;
    const attn::Gpt2Attention::Output unscaled_out = unscaled.forward(in);
    const attn::AttentionResult& u = unscaled_out.attn.heads[0][1];
    QCOMPARE(u.scaled, u.scores);
    QVERIFY(maxAbsDiff(u.weights, r.weights) > 1e-3);

    // The additive attention_mask: -1e4 on key 0 for every query but the first removes key 0
    // from their weights; 0 elsewhere changes nothing.
    Matrix additive = Matrix::Zero(4, 4);
    additive.block(1, 0, 3, 1).setConstant(-1e4f);
    in.attention_mask = &additive;
    const attn::Gpt2Attention::Output masked = gpt.forward(in);
    const attn::AttentionResult& m = masked.attn.heads[0][0];
    QCOMPARE(m.weights(0, 0), 1.0f);
    for (Eigen::Index i = 1; i < 4; ++i) {
        QVERIFY(m.weights(i, 0) == 0.0f);
        QVERIFY(std::abs(static_cast<double>(m.weights.row(i).sum()) - 1.0) <= 1e-6);
    }

    // head_mask multiplies each head's weights after softmax.
    in.attention_mask = nullptr;
    RowVector head_mask(2);
    head_mask << 0.5f, 0.0f;
    in.head_mask = &head_mask;
    const attn::Gpt2Attention::Output hm = gpt.forward(in);
    QVERIFY(maxAbsDiff(hm.attn.heads[0][0].dropped, 0.5f * out.attn.heads[0][0].weights) <= 1e-7);
    QCOMPARE(hm.attn.heads[0][1].context, Matrix(Matrix::Zero(4, 3)));

    // The whole pass equals the naive reference per head.
    const Eigen::Index s = gpt.split_size;
    for (Eigen::Index h = 0; h < 2; ++h) {
        const Matrix q = out.attn.queries[0].middleCols(h * 3, 3);
        const Matrix k = out.attn.keys[0].middleCols(h * 3, 3);
        const Matrix v = out.attn.values[0].middleCols(h * 3, 3);
        const BoolMatrix causal = attn::reference::causal(4, 4);
        attn::reference::ReferenceOptions opt;
        opt.blocked = &causal;
        opt.fill_value = -1e4;
        const attn::reference::ReferenceResult ref = attn::reference::attention(q, k, v, opt);
        QVERIFY(attn::reference::max_relative_error(
                    out.attn.heads[0][static_cast<std::size_t>(h)].context, ref.context) <=
                attn::reference::kReferenceTolerance);
    }
    QCOMPARE(s, Eigen::Index{6});
}

void TestSeedModules::gpt2CrossAttention() {
    // Queries from the English sentence, keys and values from the Chinese one: q_attn on
    // hidden_states, c_attn on encoder_hidden_states, no causal mask, weights 6 × 4.
    attn::TorchGenerator gen(25);
    attn::Gpt2Attention gpt(3, 8, 1, true, true, gen);
    widenGpt2(gpt, 26);
    const Batch english = {tutorialInputs()};
    const Batch chinese = {attn::cross_attention_source().embeddings};
    attn::Gpt2Attention::Input in;
    in.hidden_states = english;
    in.encoder_hidden_states = &chinese;
    const attn::Gpt2Attention::Output out = gpt.forward(in);
    const attn::AttentionResult& r = out.attn.heads[0][0];
    QCOMPARE(r.weights.rows(), Eigen::Index{6});
    QCOMPARE(r.weights.cols(), Eigen::Index{4});
    QVERIFY(!r.blocked.any());
    QVERIFY(r.weights(0, 3) > 0.0f);  // the first query sees the last key: no causal mask
    QVERIFY(maxAbsDiff(out.attn.queries[0], gpt.q_attn.forward(english[0])) <= 1e-6);
    const Matrix kv = gpt.c_attn.forward(chinese[0]);
    QVERIFY(maxAbsDiff(out.attn.keys[0], kv.leftCols(3)) <= 1e-6);
    QVERIFY(maxAbsDiff(out.attn.values[0], kv.rightCols(3)) <= 1e-6);
    QCOMPARE(shapeOf(out.attn.context_vecs), QStringLiteral("(1, 6, 3)"));

    // encoder_attention_mask replaces attention_mask: block the last Chinese token.
    Matrix enc_mask = Matrix::Zero(6, 4);
    enc_mask.col(3).setConstant(-1e4f);
    Matrix ignored = Matrix::Constant(6, 6, -1e4f);  // would not even fit the 6 × 4 scores
    in.encoder_attention_mask = &enc_mask;
    in.attention_mask = &ignored;
    const attn::Gpt2Attention::Output enc_masked = gpt.forward(in);
    const attn::AttentionResult& m = enc_masked.attn.heads[0][0];
    for (Eigen::Index i = 0; i < 6; ++i) {
        QVERIFY(m.weights(i, 3) == 0.0f);
        QVERIFY(std::abs(static_cast<double>(m.weights.row(i).sum()) - 1.0) <= 1e-6);
    }
}

// --- seed 003, BERT ------------------------------------------------------------------------------

void TestSeedModules::dimKNotDimV_data() {
    QTest::addColumn<int>("dim_in");
    QTest::addColumn<int>("dim_k");
    QTest::addColumn<int>("dim_v");
    QTest::addColumn<int>("num_heads");  // 0: the single-head SelfAttentionKV
    QTest::addColumn<int>("tokens");
    QTest::newRow("single dim_k=4 dim_v=5") << 3 << 4 << 5 << 0 << 6;
    QTest::newRow("single dim_k=1 dim_v=3 T=1") << 3 << 1 << 3 << 0 << 1;
    QTest::newRow("H=2 dim_k=4 dim_v=6") << 3 << 4 << 6 << 2 << 6;
    QTest::newRow("H=3 dim_k=3 dim_v=9") << 5 << 3 << 9 << 3 << 4;
    QTest::newRow("H=1 dim_k=2 dim_v=7") << 3 << 2 << 7 << 1 << 5;
}

void TestSeedModules::dimKNotDimV() {
    QFETCH(int, dim_in);
    QFETCH(int, dim_k);
    QFETCH(int, dim_v);
    QFETCH(int, num_heads);
    QFETCH(int, tokens);
    const Batch x = {randomInputs(tokens, dim_in, 40), randomInputs(tokens, dim_in, 41)};
    attn::TorchGenerator gen(42);
    attn::ModuleOutput out;
    Eigen::Index heads = 1;
    if (num_heads == 0) {
        out = attn::SelfAttentionKV(dim_in, dim_k, dim_v, gen).forward(x);
    } else {
        heads = num_heads;
        out = attn::MultiHeadSelfAttentionKV(dim_in, dim_k, dim_v, num_heads, gen).forward(x);
    }
    QCOMPARE(shapeOf(out.context_vecs), QStringLiteral("(2, %1, %2)").arg(tokens).arg(dim_v));
    QCOMPARE(out.queries[0].cols(), Eigen::Index{dim_k});
    QCOMPARE(out.values[0].cols(), Eigen::Index{dim_v});
    // Per head: the naive reference with scale 1/sqrt(dim_k / num_heads), no mask, and the
    // output is the heads side by side (no output projection in seed 003).
    const Eigen::Index dk = dim_k / heads;
    const Eigen::Index dv = dim_v / heads;
    for (std::size_t b = 0; b < x.size(); ++b) {
        Matrix expected(tokens, dim_v);
        for (Eigen::Index h = 0; h < heads; ++h) {
            const attn::reference::ReferenceResult ref = attn::reference::attention(
                out.queries[b].middleCols(h * dk, dk), out.keys[b].middleCols(h * dk, dk),
                out.values[b].middleCols(h * dv, dv));
            expected.middleCols(h * dv, dv) = gridToMatrix(ref.context);
            QVERIFY(attn::reference::max_relative_error(
                        out.heads[b][static_cast<std::size_t>(h)].weights, ref.weights) <=
                    attn::reference::kReferenceTolerance);
            QCOMPARE(out.heads[b][static_cast<std::size_t>(h)].scale_divisor,
                     std::sqrt(static_cast<float>(dk)));
        }
        const double diff = maxAbsDiff(out.context_vecs[b], expected);
        QVERIFY2(diff <= attn::reference::kReferenceTolerance, qPrintable(QString::number(diff)));
    }
}

void TestSeedModules::bertMaskConventions_data() {
    QTest::addColumn<int>("num_heads");
    QTest::addColumn<QString>("pattern");
    QTest::newRow("H=1 causal keep-mask") << 1 << "causal";
    QTest::newRow("H=3 causal keep-mask") << 3 << "causal";
    QTest::newRow("H=2 padding: last 2 keys") << 2 << "padding";
    QTest::newRow("H=6 checkerboard") << 6 << "checkerboard";
}

void TestSeedModules::bertMaskConventions() {
    QFETCH(int, num_heads);
    QFETCH(QString, pattern);
    const Eigen::Index t = 6, d_model = 6;
    // keep: 1 = the key is visible (seed 000's mask, filled where == 0).
    Matrix keep(t, t);
    for (Eigen::Index i = 0; i < t; ++i) {
        for (Eigen::Index j = 0; j < t; ++j) {
            bool visible = true;
            if (pattern == "causal") {
                visible = j <= i;
            } else if (pattern == "padding") {
                visible = j < t - 2;
            } else {
                visible = (i + j) % 2 == 0;
            }
            keep(i, j) = visible ? 1.0f : 0.0f;
        }
    }
    const Matrix block = Matrix::Ones(t, t) - keep;  // seed 004's mask, filled where == 1
    attn::TorchGenerator gen(50);
    const attn::BertMultiHeadedAttention bert(num_heads, d_model, 0.1f, gen);
    const Batch x = {randomInputs(t, d_model, 51)};
    const attn::ModuleOutput a = bert.forward(x, x, x, &keep, attn::MaskConvention::FillWhereZero);
    const attn::ModuleOutput b = bert.forward(x, x, x, &block, attn::MaskConvention::FillWhereOne);
    QCOMPARE(a.context_vecs[0], b.context_vecs[0]);
    const Eigen::Index hd = d_model / num_heads;
    for (Eigen::Index h = 0; h < num_heads; ++h) {
        const attn::AttentionResult& r = a.heads[0][static_cast<std::size_t>(h)];
        QCOMPARE(r.fill_value, -1e9f);
        for (Eigen::Index i = 0; i < t; ++i) {
            for (Eigen::Index j = 0; j < t; ++j) {
                QCOMPARE(r.blocked(i, j), keep(i, j) == 0.0f);
                if (keep(i, j) == 0.0f) {
                    QVERIFY(r.weights(i, j) == 0.0f);  // exp(-1e9 - max) underflows to 0
                }
            }
        }
        // scores / sqrt(d_k) with d_k the head width, as the seed's query.size(-1).
        QVERIFY(maxAbsDiff(r.scaled, r.scores / std::sqrt(static_cast<float>(hd))) <= 1e-6);
    }
    // Eval mode: dropout (0.1 here) does nothing without training.
    QCOMPARE(a.heads[0][0].dropped, a.heads[0][0].weights);
    // The output is Wo applied to the merged heads.
    QVERIFY(maxAbsDiff(a.context_vecs[0], bert.linears[3].forward(a.concat[0])) <= 1e-6);
}

void TestSeedModules::bertFullyMaskedRows_data() {
    QTest::addColumn<int>("t_k");
    QTest::addColumn<float>("fill");
    QTest::addColumn<bool>("nan_expected");
    // Seed 004's printed example: a mask of ones with masked_fill(mask == 1, -1e9) gives 0.2500
    // everywhere for 4 tokens.
    QTest::newRow("seed 004: T=4 all blocked, -1e9 -> 0.2500") << 4 << -1e9f << false;
    QTest::newRow("T=6 all blocked, -1e9 -> 1/6") << 6 << -1e9f << false;
    // With -inf (the tutorial's fill) a fully blocked row is NaN, as torch.softmax gives.
    QTest::newRow("T=4 all blocked, -inf -> NaN") << 4 << attn::kNegInf << true;
}

void TestSeedModules::bertFullyMaskedRows() {
    QFETCH(int, t_k);
    QFETCH(float, fill);
    QFETCH(bool, nan_expected);
    attn::TorchGenerator gen(60);
    const attn::BertMultiHeadedAttention bert(2, 4, 0.0f, gen);
    const Batch x = {randomInputs(t_k, 4, 61)};
    const Matrix ones = Matrix::Ones(t_k, t_k);
    const attn::ModuleOutput out =
        bert.forward(x, x, x, &ones, attn::MaskConvention::FillWhereOne, fill);
    for (const attn::AttentionResult& r : out.heads[0]) {
        for (Eigen::Index i = 0; i < t_k; ++i) {
            for (Eigen::Index j = 0; j < t_k; ++j) {
                if (nan_expected) {
                    QVERIFY(std::isnan(r.weights(i, j)));
                } else {
                    QVERIFY(std::abs(static_cast<double>(r.weights(i, j)) - 1.0 / t_k) <= 1e-7);
                }
            }
        }
        if (!nan_expected) {
            // Uniform weights: every context row is the mean of the value rows.
            const Matrix mean = r.context.colwise().mean();
            for (Eigen::Index i = 0; i < t_k; ++i) {
                QVERIFY(maxAbsDiff(r.context.row(i), mean) <= 1e-6);
            }
        }
    }
    if (t_k == 4 && !nan_expected) {
        const QString bad =
            printedMismatches(out.heads[0][0].weights, Matrix::Constant(4, 4, 0.25f));
        QVERIFY2(bad.isEmpty(), qPrintable(bad));
    }
}

void TestSeedModules::bertCrossAttention_data() {
    QTest::addColumn<int>("num_heads");
    QTest::newRow("H=1") << 1;
    QTest::newRow("H=3") << 3;
}

void TestSeedModules::bertCrossAttention() {
    QFETCH(int, num_heads);
    // English queries (T_q = 6), Chinese keys and values (T_k = 4).
    const Batch english = {tutorialInputs()};
    const Batch chinese = {attn::cross_attention_source().embeddings};
    attn::TorchGenerator gen(70);
    const attn::BertMultiHeadedAttention bert(num_heads, 3, 0.0f, gen);
    const attn::ModuleOutput out = bert.forward(english, chinese, chinese);
    QCOMPARE(shapeOf(out.context_vecs), QStringLiteral("(1, 6, 3)"));
    const Eigen::Index hd = 3 / num_heads;
    for (Eigen::Index h = 0; h < num_heads; ++h) {
        const attn::AttentionResult& r = out.heads[0][static_cast<std::size_t>(h)];
        QCOMPARE(r.weights.rows(), Eigen::Index{6});
        QCOMPARE(r.weights.cols(), Eigen::Index{4});
        for (Eigen::Index i = 0; i < 6; ++i) {
            QVERIFY(std::abs(static_cast<double>(r.weights.row(i).sum()) - 1.0) <= 1e-6);
        }
        const attn::reference::ReferenceResult ref = attn::reference::attention(
            out.queries[0].middleCols(h * hd, hd), out.keys[0].middleCols(h * hd, hd),
            out.values[0].middleCols(h * hd, hd));
        QVERIFY(attn::reference::max_relative_error(r.context, ref.context) <=
                attn::reference::kReferenceTolerance);
    }
    // Keys come from key, values from value: swapping the value input changes the output.
    const Batch other = {randomInputs(4, 3, 71)};
    QVERIFY(maxAbsDiff(bert.forward(english, chinese, other).context_vecs[0], out.context_vecs[0]) >
            1e-3);
}

QTEST_APPLESS_MAIN(TestSeedModules)
#include "test_seed_modules.moc"
