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

    // Seed 003 and the BERT-style module.

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
