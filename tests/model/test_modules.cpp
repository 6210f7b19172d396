// The modules of the seeds (model/modules.h): the tutorial's printed numbers (002_*.txt), the
// identities between modules (fused = wrapper, one head = single head, fused c_attn = separate
// projections, pruning = head_mask), the seeds' mask conventions, and every bad input. KV-cached
// decoding is in test_kv_cache.cpp.
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

// The tutorial's causal weights, In [14] and In [15] (both methods print the same matrix).
Matrix printedCausalWeights() {
    return toMatrix({{1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000},
                     {0.4833, 0.5167, 0.0000, 0.0000, 0.0000, 0.0000},
                     {0.3190, 0.3408, 0.3402, 0.0000, 0.0000, 0.0000},
                     {0.2445, 0.2545, 0.2542, 0.2468, 0.0000, 0.0000},
                     {0.1994, 0.2060, 0.2058, 0.1935, 0.1953, 0.0000},
                     {0.1624, 0.1709, 0.1706, 0.1654, 0.1625, 0.1682}});
}

// In [13]: SelfAttention(d_in, d_out) with torch.manual_seed(123).
Matrix printedSelfAttentionV2() {
    return toMatrix({{-0.5337, -0.1051},
                     {-0.5323, -0.1080},
                     {-0.5323, -0.1079},
                     {-0.5297, -0.1076},
                     {-0.5311, -0.1066},
                     {-0.5299, -0.1081}});
}

attn::Linear identityLinear(Eigen::Index width) {
    attn::Linear l;
    l.weight = Matrix::Identity(width, width);
    l.bias = RowVector::Zero(width);
    return l;
}

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

class TestModules : public QObject {
    Q_OBJECT

private slots:
    // The tutorial's printed numbers.
    void selfAttentionV1Tutorial_data();
    void selfAttentionV1Tutorial();
    void selfAttentionV2Tutorial();
    void causalAttentionTutorial_data();
    void causalAttentionTutorial();
    void causalAttentionDropoutTutorial();
    void wrapperTutorial_data();
    void wrapperTutorial();
    void multiHeadAttentionTutorial();
    void multiHeadAttentionShapes_data();
    void multiHeadAttentionShapes();
    void parameterDrawOrder();

    // Identities between modules.
    void fusedEqualsWrapper_data();
    void fusedEqualsWrapper();
    void oneHeadEqualsSingleHead_data();
    void oneHeadEqualsSingleHead();
    void gpt2FusedEqualsSeparate_data();
    void gpt2FusedEqualsSeparate();
    void gpt2PruneEqualsHeadMask_data();
    void gpt2PruneEqualsHeadMask();
    void gpt2MaskAndScale();
    void gpt2CrossAttention();

    // Seed 003 and the BERT-style module.
    void dimKNotDimV_data();
    void dimKNotDimV();
    void bertMaskConventions_data();
    void bertMaskConventions();
    void bertFullyMaskedRows_data();
    void bertFullyMaskedRows();
    void bertCrossAttention_data();
    void bertCrossAttention();

    void badInput_data();
    void badInput();
};

// --- the tutorial ------------------------------------------------------------------------------

void TestModules::selfAttentionV1Tutorial_data() {
    QTest::addColumn<QString>("quantity");
    QTest::addColumn<Matrix>("printed");
    QTest::newRow("In[7] query_2") << "query_2" << toMatrix({{0.4306, 1.4551}});
    QTest::newRow("In[8] keys") << "keys"
                                << toMatrix({{0.3669, 0.7646},
                                             {0.4433, 1.1419},
                                             {0.4361, 1.1156},
                                             {0.2408, 0.6706},
                                             {0.1827, 0.3292},
                                             {0.3275, 0.9642}});
    QTest::newRow("In[8] values") << "values"
                                  << toMatrix({{0.1855, 0.8812},
                                               {0.3951, 1.0037},
                                               {0.3879, 0.9831},
                                               {0.2393, 0.5493},
                                               {0.1492, 0.3346},
                                               {0.3221, 0.7863}});
    QTest::newRow("In[9] attn_scores_2")
        << "attn_scores_2" << toMatrix({{1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440}});
    QTest::newRow("In[10] attn_weights_2")
        << "attn_weights_2" << toMatrix({{0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820}});
    QTest::newRow("In[11] context_vec_2") << "context_vec_2" << toMatrix({{0.3061, 0.8210}});
}

void TestModules::selfAttentionV1Tutorial() {
    QFETCH(QString, quantity);
    QFETCH(Matrix, printed);
    attn::TorchGenerator gen(123);
    const attn::SelfAttentionV1 sa(3, 2, gen);
    const attn::ModuleOutput out = sa.forward(tutorialInputs());
    QCOMPARE(out.context_vecs.size(), std::size_t{1});
    const attn::AttentionResult& r = out.heads[0][0];
    Matrix actual;
    if (quantity == "query_2") {
        actual = out.queries[0].row(1);
    } else if (quantity == "keys") {
        actual = out.keys[0];
    } else if (quantity == "values") {
        actual = out.values[0];
    } else if (quantity == "attn_scores_2") {
        actual = r.scores.row(1);
    } else if (quantity == "attn_weights_2") {
        actual = r.weights.row(1);
    } else if (quantity == "context_vec_2") {
        actual = out.context_vecs[0].row(1);
    }
    const QString bad = printedMismatches(actual, printed);
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
}

void TestModules::selfAttentionV2Tutorial() {
    attn::TorchGenerator gen(123);
    const attn::SelfAttentionV2 sa(3, 2, gen);
    const attn::ModuleOutput out = sa.forward(tutorialInputs());
    const QString bad = printedMismatches(out.context_vecs[0], printedSelfAttentionV2());
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
    // No bias without qkv_bias, as nn.Linear(bias=False).
    QCOMPARE(sa.W_query.bias.size(), Eigen::Index{0});
}

void TestModules::causalAttentionTutorial_data() {
    QTest::addColumn<int>("item");
    QTest::newRow("batch item 0") << 0;
    QTest::newRow("batch item 1") << 1;
}

void TestModules::causalAttentionTutorial() {
    QFETCH(int, item);
    const std::size_t b = static_cast<std::size_t>(item);
    // In [19]: torch.manual_seed(123); CausalAttention(d_in, d_out, 6, 0.0) on the stacked batch.
    // It draws W_query, W_key, W_value exactly as SelfAttention v2 does, so its weights are the
    // causal weights the tutorial prints in In [14] and In [15].
    attn::TorchGenerator gen(123);
    const attn::CausalAttention ca(3, 2, 6, 0.0f, gen);
    const Batch batch = attn::stack_copies(tutorialInputs(), 2);
    const attn::ModuleOutput out = ca.forward(batch);
    QCOMPARE(shapeOf(out.context_vecs), QStringLiteral("(2, 6, 2)"));
    QCOMPARE(out.context_vecs[b], out.context_vecs[0]);
    QString bad = printedMismatches(out.heads[b][0].weights, printedCausalWeights(), true);
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
    // The last token sees every token, so its row is SelfAttention v2's last printed row.
    bad = printedMismatches(out.context_vecs[b].row(5), printedSelfAttentionV2().row(5));
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
    // The context vectors the book this tutorial follows prints for this call (Raschka, "Build a
    // Large Language Model (From Scratch)", ch. 3.5.3); the tutorial only prints the shape.
    bad = printedMismatches(out.context_vecs[b], toMatrix({{-0.4519, 0.2216},
                                                           {-0.5874, 0.0058},
                                                           {-0.6300, -0.0632},
                                                           {-0.5675, -0.0843},
                                                           {-0.5526, -0.0981},
                                                           {-0.5299, -0.1081}}));
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
}

void TestModules::causalAttentionDropoutTutorial() {
    // In [16]: torch.manual_seed(123) then Dropout(0.5) on the causal weights. The module's
    // dropout acts on the same weights, so reseeding before forward reproduces the printed matrix.
    attn::TorchGenerator gen(123);
    const attn::CausalAttention ca(3, 2, 6, 0.5f, gen);
    gen.manual_seed(123);
    attn::ForwardOptions training;
    training.training = true;
    training.gen = &gen;
    const attn::ModuleOutput out = ca.forward(Batch{tutorialInputs()}, training);
    const QString bad =
        printedMismatches(out.heads[0][0].dropped,
                          toMatrix({{2.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000},
                                    {0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000},
                                    {0.6380, 0.6816, 0.6804, 0.0000, 0.0000, 0.0000},
                                    {0.0000, 0.5090, 0.5085, 0.0000, 0.0000, 0.0000},
                                    {0.0000, 0.4120, 0.0000, 0.3869, 0.0000, 0.0000},
                                    {0.0000, 0.3418, 0.3413, 0.3308, 0.3249, 0.0000}}),
                          true);
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
    // The context vectors use the dropped weights.
    QVERIFY(maxAbsDiff(out.context_vecs[0], out.heads[0][0].dropped * out.values[0]) <= 1e-6);

    // In eval mode dropout is the identity (and draws nothing).
    const attn::ModuleOutput eval = ca.forward(Batch{tutorialInputs()});
    QCOMPARE(eval.heads[0][0].dropped, eval.heads[0][0].weights);
}

void TestModules::wrapperTutorial_data() {
    QTest::addColumn<int>("head");
    QTest::newRow("head 0 = CausalAttention from seed 123") << 0;
    QTest::newRow("head 1 = the next CausalAttention drawn") << 1;
}

void TestModules::wrapperTutorial() {
    QFETCH(int, head);
    // In [20]: torch.manual_seed(123); MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2).
    attn::TorchGenerator gen(123);
    const attn::MultiHeadAttentionWrapper mha(3, 2, 6, 0.0f, 2, gen);
    const Batch batch = attn::stack_copies(tutorialInputs(), 2);
    const attn::ModuleOutput out = mha.forward(batch);
    QCOMPARE(shapeOf(out.context_vecs), QStringLiteral("(2, 6, 4)"));

    // The heads are CausalAttention modules constructed one after the other from one generator.
    attn::TorchGenerator gen2(123);
    std::vector<attn::CausalAttention> heads;
    heads.emplace_back(3, 2, 6, 0.0f, gen2);
    heads.emplace_back(3, 2, 6, 0.0f, gen2);
    const attn::ModuleOutput single = heads[static_cast<std::size_t>(head)].forward(batch);
    for (std::size_t b = 0; b < 2; ++b) {
        const Matrix cols = out.context_vecs[b].middleCols(2 * head, 2);
        QCOMPARE(cols, single.context_vecs[b]);
        QCOMPARE(out.heads[b][static_cast<std::size_t>(head)].weights, single.heads[b][0].weights);
    }
    // The book's printed output for this call (ch. 3.6.1), both heads side by side.
    const Matrix book = toMatrix({{-0.4519, 0.2216, 0.4772, 0.1063},
                                  {-0.5874, 0.0058, 0.5891, 0.3257},
                                  {-0.6300, -0.0632, 0.6202, 0.3860},
                                  {-0.5675, -0.0843, 0.5478, 0.3589},
                                  {-0.5526, -0.0981, 0.5321, 0.3428},
                                  {-0.5299, -0.1081, 0.5077, 0.3493}});
    const QString bad = printedMismatches(out.context_vecs[1].middleCols(2 * head, 2),
                                          book.middleCols(2 * head, 2));
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
}

void TestModules::multiHeadAttentionTutorial() {
    // torch.manual_seed(123); MultiHeadAttention(3, 2, 6, 0.0, num_heads=2) on the batch: the
    // book's printed output (ch. 3.6.2); the tutorial defines the class without running it.
    attn::TorchGenerator gen(123);
    const attn::MultiHeadAttention mha(3, 2, 6, 0.0f, 2, gen);
    QCOMPARE(mha.head_dim, Eigen::Index{1});
    const attn::ModuleOutput out = mha.forward(attn::stack_copies(tutorialInputs(), 2));
    QCOMPARE(shapeOf(out.context_vecs), QStringLiteral("(2, 6, 2)"));
    const QString bad = printedMismatches(out.context_vecs[0], toMatrix({{0.3190, 0.4858},
                                                                         {0.2943, 0.3897},
                                                                         {0.2856, 0.3593},
                                                                         {0.2693, 0.3873},
                                                                         {0.2639, 0.3928},
                                                                         {0.2575, 0.4028}}));
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
    QCOMPARE(out.context_vecs[1], out.context_vecs[0]);
}

void TestModules::multiHeadAttentionShapes_data() {
    QTest::addColumn<int>("d_in");
    QTest::addColumn<int>("d_out");
    QTest::addColumn<int>("num_heads");
    QTest::addColumn<int>("tokens");
    QTest::addColumn<int>("batch");
    QTest::newRow("tutorial d_out=2 H=2 B=2") << 3 << 2 << 2 << 6 << 2;
    QTest::newRow("d_out=6 H=3 B=1") << 3 << 6 << 3 << 6 << 1;
    QTest::newRow("T=1 d_out=4 H=2 B=3") << 4 << 4 << 2 << 1 << 3;
    QTest::newRow("head_dim=1 d_out=4 H=4") << 3 << 4 << 4 << 5 << 2;
    QTest::newRow("one head d_out=5") << 2 << 5 << 1 << 4 << 1;
}

void TestModules::multiHeadAttentionShapes() {
    QFETCH(int, d_in);
    QFETCH(int, d_out);
    QFETCH(int, num_heads);
    QFETCH(int, tokens);
    QFETCH(int, batch);
    attn::TorchGenerator gen(7);
    const attn::MultiHeadAttention mha(d_in, d_out, 8, 0.0f, num_heads, gen);
    const Batch x = attn::stack_copies(randomInputs(tokens, d_in, 11), batch);
    const attn::ModuleOutput out = mha.forward(x);
    QCOMPARE(shapeOf(out.context_vecs),
             QStringLiteral("(%1, %2, %3)").arg(batch).arg(tokens).arg(d_out));
    QCOMPARE(shapeOf(out.concat), QStringLiteral("(%1, %2, %3)").arg(batch).arg(tokens).arg(d_out));
    QCOMPARE(out.heads.size(), static_cast<std::size_t>(batch));
    const Eigen::Index head_dim = d_out / num_heads;
    for (const std::vector<attn::AttentionResult>& per_head : out.heads) {
        QCOMPARE(per_head.size(), static_cast<std::size_t>(num_heads));
        for (const attn::AttentionResult& r : per_head) {
            QCOMPARE(r.weights.rows(), Eigen::Index{tokens});
            QCOMPARE(r.weights.cols(), Eigen::Index{tokens});
            QCOMPARE(r.context.cols(), head_dim);
            for (Eigen::Index i = 0; i < tokens; ++i) {
                QVERIFY(std::abs(static_cast<double>(r.weights.row(i).sum()) - 1.0) <= 1e-6);
                for (Eigen::Index j = i + 1; j < tokens; ++j) {
                    QVERIFY(r.weights(i, j) == 0.0f);  // causal: exactly 0, not small
                }
            }
        }
    }
}

void TestModules::parameterDrawOrder() {
    // MultiHeadAttention draws W_query, W_key, W_value, out_proj (weight then bias) in order: the
    // same generator drawing those Linear layers one by one gives the same parameters.
    attn::TorchGenerator gen(5);
    const attn::MultiHeadAttention mha(4, 6, 6, 0.0f, 3, gen, true);
    attn::TorchGenerator gen2(5);
    const attn::Linear q = attn::Linear::init(4, 6, true, gen2);
    const attn::Linear k = attn::Linear::init(4, 6, true, gen2);
    const attn::Linear v = attn::Linear::init(4, 6, true, gen2);
    const attn::Linear o = attn::Linear::init(6, 6, true, gen2);
    QCOMPARE(mha.W_query.weight, q.weight);
    QCOMPARE(mha.W_query.bias, q.bias);
    QCOMPARE(mha.W_key.weight, k.weight);
    QCOMPARE(mha.W_value.bias, v.bias);
    QCOMPARE(mha.out_proj.weight, o.weight);
    QCOMPARE(mha.out_proj.bias, o.bias);
    // Bounds: weight within 1/sqrt(in), and the first draw is uniform(-b, b) of the first number.
    QVERIFY(static_cast<double>(q.weight.cwiseAbs().maxCoeff()) <= 0.5);
    QVERIFY(static_cast<double>(o.weight.cwiseAbs().maxCoeff()) <= 1.0 / std::sqrt(6.0) + 1e-7);
    // out_proj always has a bias, even without qkv_bias.
    attn::TorchGenerator gen3(5);
    const attn::MultiHeadAttention no_bias(4, 6, 6, 0.0f, 3, gen3);
    QCOMPARE(no_bias.W_query.bias.size(), Eigen::Index{0});
    QCOMPARE(no_bias.out_proj.bias.size(), Eigen::Index{6});

    // GPT-2: c_attn then q_attn (cross only) then c_proj; biases zero.
    attn::TorchGenerator gen4(9);
    const attn::Gpt2Attention gpt(8, 6, 2, true, true, gen4);
    attn::TorchGenerator gen5(9);
    const Matrix c_attn = gen5.normal(8, 16, 0.0f, 0.02f);
    const Matrix q_attn = gen5.normal(8, 8, 0.0f, 0.02f);
    const Matrix c_proj = gen5.normal(8, 8, 0.0f, 0.02f);
    QCOMPARE(gpt.c_attn.weight, c_attn);
    QCOMPARE(gpt.q_attn.weight, q_attn);
    QCOMPARE(gpt.c_proj.weight, c_proj);
    QCOMPARE(gpt.c_attn.bias, RowVector(RowVector::Zero(16)));
}

// --- identities ----------------------------------------------------------------------------------

void TestModules::fusedEqualsWrapper_data() {
    QTest::addColumn<int>("num_heads");
    QTest::addColumn<int>("head_dim");
    QTest::addColumn<int>("tokens");
    QTest::addColumn<bool>("qkv_bias");
    QTest::newRow("tutorial H=2 hd=2 T=6") << 2 << 2 << 6 << false;
    QTest::newRow("H=1 hd=3 T=4") << 1 << 3 << 4 << false;
    QTest::newRow("H=3 hd=1 T=5") << 3 << 1 << 5 << false;
    QTest::newRow("H=4 hd=2 T=1") << 4 << 2 << 1 << false;
    QTest::newRow("H=2 hd=3 T=6 bias") << 2 << 3 << 6 << true;
    QTest::newRow("H=4 hd=3 T=8 bias") << 4 << 3 << 8 << true;
}

void TestModules::fusedEqualsWrapper() {
    QFETCH(int, num_heads);
    QFETCH(int, head_dim);
    QFETCH(int, tokens);
    QFETCH(bool, qkv_bias);
    const Eigen::Index d_in = 3;
    attn::TorchGenerator gen(123);
    const attn::MultiHeadAttentionWrapper wrapper(d_in, head_dim, 8, 0.0f, num_heads, gen,
                                                  qkv_bias);
    attn::TorchGenerator gen2(321);
    attn::MultiHeadAttention fused(d_in, num_heads * head_dim, 8, 0.0f, num_heads, gen2, qkv_bias);
    // Head h of the fused projection is rows [h*hd, (h+1)*hd) of its weight (out, in).
    for (int h = 0; h < num_heads; ++h) {
        const attn::CausalAttention& head = wrapper.heads[static_cast<std::size_t>(h)];
        fused.W_query.weight.middleRows(h * head_dim, head_dim) = head.W_query.weight;
        fused.W_key.weight.middleRows(h * head_dim, head_dim) = head.W_key.weight;
        fused.W_value.weight.middleRows(h * head_dim, head_dim) = head.W_value.weight;
        if (qkv_bias) {
            fused.W_query.bias.middleCols(h * head_dim, head_dim) = head.W_query.bias;
            fused.W_key.bias.middleCols(h * head_dim, head_dim) = head.W_key.bias;
            fused.W_value.bias.middleCols(h * head_dim, head_dim) = head.W_value.bias;
        }
    }
    fused.out_proj = identityLinear(num_heads * head_dim);

    const Batch x = {randomInputs(tokens, d_in, 1), randomInputs(tokens, d_in, 2)};
    const attn::ModuleOutput a = wrapper.forward(x);
    const attn::ModuleOutput b = fused.forward(x);
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double diff = maxAbsDiff(a.context_vecs[i], b.context_vecs[i]);
        QVERIFY2(diff <= kSameMathTolerance, qPrintable(QString::number(diff)));
        for (std::size_t h = 0; h < static_cast<std::size_t>(num_heads); ++h) {
            QVERIFY(maxAbsDiff(a.heads[i][h].weights, b.heads[i][h].weights) <= kSameMathTolerance);
        }
    }
    // The comparison has teeth: a different out_proj changes the result.
    fused.out_proj.weight(0, 0) = 2.0f;
    QVERIFY(maxAbsDiff(a.context_vecs[0], fused.forward(x).context_vecs[0]) > 1e-3);
}

void TestModules::oneHeadEqualsSingleHead_data() {
    QTest::addColumn<int>("tokens");
    QTest::addColumn<int>("width");
    QTest::newRow("T=1 width=1") << 1 << 1;
    QTest::newRow("T=6 width=2 (tutorial)") << 6 << 2;
    QTest::newRow("T=7 width=5") << 7 << 5;
}

void TestModules::oneHeadEqualsSingleHead() {
    QFETCH(int, tokens);
    QFETCH(int, width);
    const Batch x = {randomInputs(tokens, 3, 4)};

    // MultiHeadAttention with one head and an identity out_proj is CausalAttention.
    attn::TorchGenerator gen(123);
    const attn::CausalAttention ca(3, width, 8, 0.0f, gen);
    attn::TorchGenerator gen2(123);
    attn::MultiHeadAttention mha(3, width, 8, 0.0f, 1, gen2);
    QCOMPARE(mha.W_query.weight, ca.W_query.weight);  // same draws, same order
    mha.out_proj = identityLinear(width);
    QVERIFY(maxAbsDiff(mha.forward(x).context_vecs[0], ca.forward(x).context_vecs[0]) <= 1e-6);

    // Seed 003: the multi-head version with one head is the single-head version.
    attn::TorchGenerator gen3(8);
    const attn::SelfAttentionKV single(3, width, width + 1, gen3);
    attn::TorchGenerator gen4(8);
    const attn::MultiHeadSelfAttentionKV multi(3, width, width + 1, 1, gen4);
    QVERIFY(maxAbsDiff(multi.forward(x).context_vecs[0], single.forward(x).context_vecs[0]) <=
            1e-6);
}

void TestModules::gpt2FusedEqualsSeparate_data() {
    QTest::addColumn<int>("nx");
    QTest::addColumn<int>("n_head");
    QTest::addColumn<int>("tokens");
    QTest::newRow("nx=4 H=1 T=6") << 4 << 1 << 6;
    QTest::newRow("nx=6 H=2 T=6") << 6 << 2 << 6;
    QTest::newRow("nx=12 H=4 T=9") << 12 << 4 << 9;
    QTest::newRow("nx=8 H=8 T=1") << 8 << 8 << 1;
}

void TestModules::gpt2FusedEqualsSeparate() {
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

void TestModules::gpt2PruneEqualsHeadMask_data() {
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

void TestModules::gpt2PruneEqualsHeadMask() {
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

void TestModules::gpt2MaskAndScale() {
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

void TestModules::gpt2CrossAttention() {
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

void TestModules::dimKNotDimV_data() {
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

void TestModules::dimKNotDimV() {
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

void TestModules::bertMaskConventions_data() {
    QTest::addColumn<int>("num_heads");
    QTest::addColumn<QString>("pattern");
    QTest::newRow("H=1 causal keep-mask") << 1 << "causal";
    QTest::newRow("H=3 causal keep-mask") << 3 << "causal";
    QTest::newRow("H=2 padding: last 2 keys") << 2 << "padding";
    QTest::newRow("H=6 checkerboard") << 6 << "checkerboard";
}

void TestModules::bertMaskConventions() {
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

void TestModules::bertFullyMaskedRows_data() {
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

void TestModules::bertFullyMaskedRows() {
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

void TestModules::bertCrossAttention_data() {
    QTest::addColumn<int>("num_heads");
    QTest::newRow("H=1") << 1;
    QTest::newRow("H=3") << 3;
}

void TestModules::bertCrossAttention() {
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

// --- bad input -----------------------------------------------------------------------------------

void TestModules::badInput_data() {
    QTest::addColumn<Thrower>("call");
    QTest::addColumn<QStringList>("expected");

    const Matrix inputs = tutorialInputs();
    QTest::newRow("MultiHeadAttention d_out=6 num_heads=4")
        << Thrower([] {
               attn::TorchGenerator g(1);
               attn::MultiHeadAttention(3, 6, 6, 0.0f, 4, g);
           })
        << QStringList{"d_out = 6 is not divisible by num_heads = 4",
                       "choose num_heads among 1, 2, 3, 6"};
    QTest::newRow("MultiHeadAttention num_heads=0") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::MultiHeadAttention(3, 6, 6, 0.0f, 0, g);
    }) << QStringList{"num_heads = 0", "choose num_heads among 1, 2, 3, 6"};
    QTest::newRow("BERT d_model=10 h=4")
        << Thrower([] {
               attn::TorchGenerator g(1);
               attn::BertMultiHeadedAttention(4, 10, 0.1f, g);
           })
        << QStringList{"d_model = 10 is not divisible by num_heads = 4",
                       "choose num_heads among 1, 2, 5, 10"};
    QTest::newRow("GPT-2 nx=12 n_head=5")
        << Thrower([] {
               attn::TorchGenerator g(1);
               attn::Gpt2Attention(12, 8, 5, true, false, g);
           })
        << QStringList{"nx = 12 is not divisible by num_heads = 5",
                       "choose num_heads among 1, 2, 3, 4, 6, 12"};
    QTest::newRow("seed 003 dim_v=5 num_heads=2") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::MultiHeadSelfAttentionKV(3, 4, 5, 2, g);
    }) << QStringList{"dim_v = 5 is not divisible by num_heads = 2", "choose num_heads among 1, 5"};
    QTest::newRow("CausalAttention x with 4 columns, d_in 3") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::CausalAttention ca(3, 2, 6, 0.0f, g);
        ca.forward(Batch{Matrix::Ones(6, 4)});
    }) << QStringList{"x has 4 columns but d_in = 3", "give x exactly 3 columns"};
    QTest::newRow("MultiHeadAttention batch item 1 with 4 columns") << Thrower([inputs] {
        attn::TorchGenerator g(1);
        attn::MultiHeadAttention mha(3, 2, 6, 0.0f, 2, g);
        mha.forward(Batch{inputs, Matrix::Ones(6, 4)});
    }) << QStringList{"x[1] has 4 columns but d_in = 3"};
    QTest::newRow("SelfAttentionV1 x with 2 columns") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::SelfAttentionV1(3, 2, g).forward(Matrix::Ones(6, 2));
    }) << QStringList{"x has 2 columns but d_in = 3"};
    QTest::newRow("seed 003 dim_in mismatch") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::SelfAttentionKV(3, 4, 5, g).forward(Batch{Matrix::Ones(2, 5)});
    }) << QStringList{"x has 5 columns but dim_in = 3"};
    QTest::newRow("batch items of different lengths") << Thrower([inputs] {
        attn::TorchGenerator g(1);
        attn::CausalAttention(3, 2, 6, 0.0f, g).forward(Batch{inputs, inputs.topRows(5)});
    }) << QStringList{"x[1] has 5 tokens but x[0] has 6", "same number of tokens"};
    QTest::newRow("CausalAttention 9 tokens, context_length 6")
        << Thrower([] {
               attn::TorchGenerator g(1);
               attn::CausalAttention(3, 2, 6, 0.0f, g).forward(Batch{Matrix::Ones(9, 3)});
           })
        << QStringList{"sequence has 9 tokens but context_length = 6",
                       "context_length >= 9 or give at most 6 tokens"};
    QTest::newRow("MultiHeadAttention 7 tokens, context_length 6") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::MultiHeadAttention(3, 4, 6, 0.0f, 2, g).forward(Batch{Matrix::Ones(7, 3)});
    }) << QStringList{"sequence has 7 tokens but context_length = 6"};
    QTest::newRow("MultiHeadAttentionWrapper 8 tokens, context_length 6") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::MultiHeadAttentionWrapper(3, 2, 6, 0.0f, 2, g).forward(Batch{Matrix::Ones(8, 3)});
    }) << QStringList{"sequence has 8 tokens but context_length = 6"};
    QTest::newRow("GPT-2 9 tokens, n_ctx 6") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::Gpt2Attention gpt(4, 6, 2, true, false, g);
        attn::Gpt2Attention::Input in;
        in.hidden_states = {Matrix::Ones(9, 4)};
        gpt.forward(in);
    }) << QStringList{"sequence has 9 tokens but n_ctx = 6", "n_ctx >= 9"};
    QTest::newRow("SelfAttentionV2 empty sequence") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::SelfAttentionV2(3, 2, g).forward(Matrix(0, 3));
    }) << QStringList{"x is empty: give at least one token"};
    QTest::newRow("MultiHeadAttention empty sequence") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::MultiHeadAttention(3, 2, 6, 0.0f, 2, g).forward(Batch{Matrix(0, 3)});
    }) << QStringList{"x is empty: give at least one token"};
    QTest::newRow("CausalAttention empty batch") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::CausalAttention(3, 2, 6, 0.0f, g).forward(Batch{});
    }) << QStringList{"x is an empty batch", "at least one sequence"};
    QTest::newRow("NaN at row 2 column 3") << Thrower([inputs] {
        attn::TorchGenerator g(1);
        Matrix x = inputs;
        x(1, 2) = std::numeric_limits<float>::quiet_NaN();
        attn::CausalAttention(3, 2, 6, 0.0f, g).forward(Batch{x});
    }) << QStringList{"x has NaN at row 2, column 3"};
    QTest::newRow("Inf in BERT key") << Thrower([inputs] {
        attn::TorchGenerator g(1);
        Matrix k = inputs;
        k(4, 0) = std::numeric_limits<float>::infinity();
        attn::BertMultiHeadedAttention(1, 3, 0.0f, g)
            .forward(Batch{inputs}, Batch{k}, Batch{inputs});
    }) << QStringList{"key has +Inf at row 5, column 1"};
    QTest::newRow("dropout p = 1.5") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::CausalAttention(3, 2, 6, 1.5f, g);
    }) << QStringList{"dropout p = 1.5 is outside [0, 1]"};
    QTest::newRow("training with dropout but no generator") << Thrower([inputs] {
        attn::TorchGenerator g(1);
        attn::ForwardOptions training;
        training.training = true;
        attn::MultiHeadAttention(3, 2, 6, 0.5f, 2, g).forward(Batch{inputs}, training);
    }) << QStringList{"dropout = 0.5", "no generator was given", "ForwardOptions::gen"};
    QTest::newRow("BERT mask of the wrong shape") << Thrower([inputs] {
        attn::TorchGenerator g(1);
        const Matrix mask = Matrix::Ones(6, 5);
        attn::BertMultiHeadedAttention(1, 3, 0.0f, g)
            .forward(Batch{inputs}, Batch{inputs}, Batch{inputs}, &mask);
    }) << QStringList{"mask is 6 x 5 but the scores are 6 x 6", "give a (6, 6) mask"};
    QTest::newRow("BERT key and value of different lengths") << Thrower([inputs] {
        attn::TorchGenerator g(1);
        attn::BertMultiHeadedAttention(1, 3, 0.0f, g)
            .forward(Batch{inputs}, Batch{inputs.topRows(4)}, Batch{inputs.topRows(3)});
    }) << QStringList{"key has 4 tokens but value has 3"};
    QTest::newRow("GPT-2 cross-attention without encoder_hidden_states") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::Gpt2Attention gpt(4, 6, 2, true, true, g);
        attn::Gpt2Attention::Input in;
        in.hidden_states = {Matrix::Ones(3, 4)};
        gpt.forward(in);
    }) << QStringList{"give encoder_hidden_states"};
    QTest::newRow("GPT-2 self-attention given encoder_hidden_states") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::Gpt2Attention gpt(4, 6, 2, true, false, g);
        const Batch enc = {Matrix::Ones(3, 4)};
        attn::Gpt2Attention::Input in;
        in.hidden_states = {Matrix::Ones(3, 4)};
        in.encoder_hidden_states = &enc;
        gpt.forward(in);
    }) << QStringList{"no q_attn weights", "is_cross_attention = true"};
    QTest::newRow("GPT-2 head_mask with 3 entries, 2 heads") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::Gpt2Attention gpt(4, 6, 2, true, false, g);
        const RowVector head_mask = RowVector::Ones(3);
        attn::Gpt2Attention::Input in;
        in.hidden_states = {Matrix::Ones(3, 4)};
        in.head_mask = &head_mask;
        gpt.forward(in);
    }) << QStringList{"head_mask has 3 entries but n_head = 2"};
    QTest::newRow("GPT-2 attention_mask of the wrong shape") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::Gpt2Attention gpt(4, 6, 2, true, false, g);
        const Matrix mask = Matrix::Zero(1, 3);
        attn::Gpt2Attention::Input in;
        in.hidden_states = {Matrix::Ones(3, 4)};
        in.attention_mask = &mask;
        gpt.forward(in);
    }) << QStringList{"attention_mask is 1 x 3 but the scores are 3 x 3"};
    QTest::newRow("GPT-2 prune every head") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::Gpt2Attention gpt(4, 6, 2, true, false, g);
        gpt.prune_heads({0, 1});
    }) << QStringList{"would leave none of the 2", "keep at least one head"};
    QTest::newRow("GPT-2 prune head 7 of 2") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::Gpt2Attention gpt(4, 6, 2, true, false, g);
        gpt.prune_heads({7});
    }) << QStringList{"cannot prune head 7", "heads 0 .. 1"};
    QTest::newRow("GPT-2 use_cache with batch 2") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::Gpt2Attention gpt(4, 6, 2, true, false, g);
        attn::Gpt2Attention::Input in;
        in.hidden_states = {Matrix::Ones(3, 4), Matrix::Ones(3, 4)};
        in.use_cache = true;
        gpt.forward(in);
    }) << QStringList{"batch has 2", "decode with batch size 1"};
}

void TestModules::badInput() {
    QFETCH(Thrower, call);
    QFETCH(QStringList, expected);
    const QString message = errorOf(call);
    for (const QString& part : expected) {
        QVERIFY2(message.contains(part),
                 qPrintable(QStringLiteral("message \"%1\" lacks \"%2\"").arg(message, part)));
    }
}

QTEST_APPLESS_MAIN(TestModules)
#include "test_modules.moc"
