// Every tensor printed in seed 002 (the self-attention tutorial), recomputed by the engine and
// compared at the precision the tutorial printed (4 decimals).
#include <QString>
#include <QTest>
#include <cmath>
#include <vector>

#include "model/examples.h"
#include "model/ops.h"
#include "model/rng.h"
#include "model/tensor.h"
#include "module_test_helpers.h"

using attn::BoolMatrix;
using attn::Matrix;

Q_DECLARE_METATYPE(Matrix)

namespace {

using modtest::toMatrix;

// A printed 0.0000 must be an exact 0.0f: masked and dropped weights are zeros, not small numbers.
QString mismatches(const Matrix& actual, const Matrix& printed) {
    return modtest::printedMismatches(actual, printed, /*exactZeros=*/true);
}

// Everything the tutorial computes, in its order.
struct Tutorial {
    Matrix inputs;
    // Part 1: attention without trainable weights.
    Matrix attn_scores_journey, attn_weights_journey, context_vec_journey;
    Matrix context_vecs;
    // Part 2: torch.rand weights, seed 123.
    Matrix W_query, W_key, W_value;
    Matrix query_2, keys, values, attn_scores_2, attn_weights_2, context_vec_2;
    // Part 3: SelfAttention v2 (nn.Linear, seed 123).
    Matrix sa_out;
    Matrix sa_queries, sa_keys, sa_values;
    Matrix causal_method1, causal_method2;
    Matrix dropout_example;
    BoolMatrix dropout_kept;
};

Tutorial computeTutorial() {
    Tutorial t;
    t.inputs = attn::tutorial_inputs().embeddings;

    // In [2]..[4]: query = inputs[1] ("journey").
    const Matrix query = t.inputs.row(1);
    t.attn_scores_journey = query * t.inputs.transpose();
    t.attn_weights_journey = attn::softmax_rows(t.attn_scores_journey);
    t.context_vec_journey = t.attn_weights_journey * t.inputs;

    // In [5]
    t.context_vecs = attn::softmax_rows(t.inputs * t.inputs.transpose()) * t.inputs;

    // In [6]..[11]: torch.manual_seed(123); W = torch.rand(d_in, d_out) three times.
    attn::TorchGenerator gen(123);
    t.W_query = gen.rand(3, 2);
    t.W_key = gen.rand(3, 2);
    t.W_value = gen.rand(3, 2);
    t.query_2 = query * t.W_query;
    t.keys = t.inputs * t.W_key;
    t.values = t.inputs * t.W_value;
    t.attn_scores_2 = t.query_2 * t.keys.transpose();
    const float d_key_sqrt = static_cast<float>(std::sqrt(2.0));
    t.attn_weights_2 = attn::softmax_rows(t.attn_scores_2 / d_key_sqrt);
    t.context_vec_2 = t.attn_weights_2 * t.values;

    // In [13]: nn.Linear(3, 2, bias=False) x3, weight (out, in) from uniform(-1/sqrt(3),
    // 1/sqrt(3)). Drawn directly here rather than through modules.cpp, so this test checks the RNG
    // on its own.
    gen.manual_seed(123);
    const double bound = 1.0 / std::sqrt(3.0);
    const Matrix Wq = gen.uniform(2, 3, -bound, bound);
    const Matrix Wk = gen.uniform(2, 3, -bound, bound);
    const Matrix Wv = gen.uniform(2, 3, -bound, bound);
    t.sa_queries = t.inputs * Wq.transpose();
    t.sa_keys = t.inputs * Wk.transpose();
    t.sa_values = t.inputs * Wv.transpose();
    const Matrix sa_scores = t.sa_queries * t.sa_keys.transpose();
    const Matrix sa_weights = attn::softmax_rows(sa_scores / d_key_sqrt);
    t.sa_out = sa_weights * t.sa_values;

    // In [14]: method 1, zero the future after softmax and renormalise.
    const BoolMatrix future = attn::causal_mask(6, 6);
    t.causal_method1 = attn::mask_and_renormalize(sa_weights, future);
    // In [15]: method 2, -inf before softmax (fill, then scale, as the tutorial writes it).
    t.causal_method2 =
        attn::softmax_rows(attn::masked_fill(sa_scores, future, attn::kNegInf) / d_key_sqrt);

    // In [16]: torch.manual_seed(123); nn.Dropout(0.5) on the method-2 weights.
    gen.manual_seed(123);
    t.dropout_example = attn::dropout(t.causal_method2, 0.5f, gen, &t.dropout_kept);
    return t;
}

}  // namespace

class TestTutorial : public QObject {
    Q_OBJECT

private:
    Tutorial t_ = computeTutorial();

private slots:
    void printedTensors_data();
    void printedTensors();
    void scaledDotProductAttentionMatchesTutorial();
    void causalMethodsAgree();
    void dropoutExampleKeepsAndScales();
};

void TestTutorial::printedTensors_data() {
    QTest::addColumn<Matrix>("actual");
    QTest::addColumn<Matrix>("printed");

    QTest::newRow("In[2] attn_scores for query journey")
        << t_.attn_scores_journey << toMatrix({{0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865}});
    QTest::newRow("In[3] attn_weights softmax")
        << t_.attn_weights_journey << toMatrix({{0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581}});
    QTest::newRow("In[4] context vector z(2)")
        << t_.context_vec_journey << toMatrix({{0.4419, 0.6515, 0.5683}});
    QTest::newRow("In[5] all context_vecs") << t_.context_vecs
                                            << toMatrix({{0.4421, 0.5931, 0.5790},
                                                         {0.4419, 0.6515, 0.5683},
                                                         {0.4431, 0.6496, 0.5671},
                                                         {0.4304, 0.6298, 0.5510},
                                                         {0.4671, 0.5910, 0.5266},
                                                         {0.4177, 0.6503, 0.5645}});
    QTest::newRow("In[7] query_2 (journey) with torch.rand W_query")
        << t_.query_2 << toMatrix({{0.4306, 1.4551}});
    QTest::newRow("In[8] keys") << t_.keys
                                << toMatrix({{0.3669, 0.7646},
                                             {0.4433, 1.1419},
                                             {0.4361, 1.1156},
                                             {0.2408, 0.6706},
                                             {0.1827, 0.3292},
                                             {0.3275, 0.9642}});
    QTest::newRow("In[8] values") << t_.values
                                  << toMatrix({{0.1855, 0.8812},
                                               {0.3951, 1.0037},
                                               {0.3879, 0.9831},
                                               {0.2393, 0.5493},
                                               {0.1492, 0.3346},
                                               {0.3221, 0.7863}});
    QTest::newRow("In[9] attn_scores_2")
        << t_.attn_scores_2 << toMatrix({{1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440}});
    QTest::newRow("In[10] scaled attn_weights_2")
        << t_.attn_weights_2 << toMatrix({{0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820}});
    QTest::newRow("In[11] context_vec_2") << t_.context_vec_2 << toMatrix({{0.3061, 0.8210}});

    const Matrix sa_printed = toMatrix({{-0.5337, -0.1051},
                                        {-0.5323, -0.1080},
                                        {-0.5323, -0.1079},
                                        {-0.5297, -0.1076},
                                        {-0.5311, -0.1066},
                                        {-0.5299, -0.1081}});
    QTest::newRow("In[13] SelfAttention v2 output") << t_.sa_out << sa_printed;

    const Matrix causal_printed = toMatrix({{1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000},
                                            {0.4833, 0.5167, 0.0000, 0.0000, 0.0000, 0.0000},
                                            {0.3190, 0.3408, 0.3402, 0.0000, 0.0000, 0.0000},
                                            {0.2445, 0.2545, 0.2542, 0.2468, 0.0000, 0.0000},
                                            {0.1994, 0.2060, 0.2058, 0.1935, 0.1953, 0.0000},
                                            {0.1624, 0.1709, 0.1706, 0.1654, 0.1625, 0.1682}});
    QTest::newRow("In[14] causal weights, method 1 (renormalise)")
        << t_.causal_method1 << causal_printed;
    QTest::newRow("In[15] causal weights, method 2 (-inf)") << t_.causal_method2 << causal_printed;

    QTest::newRow("In[16] dropout(0.5), seed 123")
        << t_.dropout_example
        << toMatrix({{2.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000},
                     {0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000},
                     {0.6380, 0.6816, 0.6804, 0.0000, 0.0000, 0.0000},
                     {0.0000, 0.5090, 0.5085, 0.0000, 0.0000, 0.0000},
                     {0.0000, 0.4120, 0.0000, 0.3869, 0.0000, 0.0000},
                     {0.0000, 0.3418, 0.3413, 0.3308, 0.3249, 0.0000}});
}

void TestTutorial::printedTensors() {
    QFETCH(Matrix, actual);
    QFETCH(Matrix, printed);
    const QString diff = mismatches(actual, printed);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

// The engine's one-call path gives the same numbers as the tutorial's step-by-step code.
void TestTutorial::scaledDotProductAttentionMatchesTutorial() {
    attn::AttentionOptions plain;
    const attn::AttentionResult r =
        attn::scaled_dot_product_attention(t_.query_2, t_.keys, t_.values, plain);
    QVERIFY2(mismatches(r.scores, toMatrix({{1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440}}))
                 .isEmpty(),
             "scores");
    QVERIFY2(mismatches(r.weights, toMatrix({{0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820}}))
                 .isEmpty(),
             "weights");
    QVERIFY2(mismatches(r.context, toMatrix({{0.3061, 0.8210}})).isEmpty(), "context");
    QCOMPARE(r.scale_divisor, static_cast<float>(std::sqrt(2.0)));

    attn::AttentionOptions causal;
    causal.blocked = attn::causal_mask(6, 6);
    const attn::AttentionResult c =
        attn::scaled_dot_product_attention(t_.sa_queries, t_.sa_keys, t_.sa_values, causal);
    // Same inputs, same order of float operations as method 2 (-inf / sqrt(2) = -inf): bit-equal.
    QVERIFY(c.weights == t_.causal_method2);
    QVERIFY(c.blocked == *causal.blocked);
    QVERIFY(c.kept.all());

    attn::AttentionOptions noMask;
    const attn::AttentionResult v2 =
        attn::scaled_dot_product_attention(t_.sa_queries, t_.sa_keys, t_.sa_values, noMask);
    QVERIFY(v2.context == t_.sa_out);
    QVERIFY(!v2.blocked.any());
}

void TestTutorial::causalMethodsAgree() {
    // Both methods give the same distribution; they differ only by float rounding.
    const float diff = (t_.causal_method1 - t_.causal_method2).cwiseAbs().maxCoeff();
    QVERIFY2(diff <= 1e-6f, qPrintable(QString::number(static_cast<double>(diff))));
    for (Eigen::Index i = 0; i < 6; ++i) {
        for (Eigen::Index j = i + 1; j < 6; ++j) {
            QVERIFY(t_.causal_method1(i, j) == 0.0f);
            QVERIFY(t_.causal_method2(i, j) == 0.0f);
        }
    }
}

void TestTutorial::dropoutExampleKeepsAndScales() {
    // Only the cells where the weight is non-zero are pinned by the printed tensor; check those.
    for (Eigen::Index i = 0; i < 6; ++i) {
        for (Eigen::Index j = 0; j <= i; ++j) {
            QCOMPARE(t_.dropout_kept(i, j), t_.dropout_example(i, j) != 0.0f);
            if (t_.dropout_kept(i, j)) {
                // 1 / (1 - 0.5) = 2 exactly, so kept weights are exactly doubled.
                QVERIFY(t_.dropout_example(i, j) == 2.0f * t_.causal_method2(i, j));
            }
        }
    }
}

QTEST_APPLESS_MAIN(TestTutorial)
#include "test_tutorial.moc"
