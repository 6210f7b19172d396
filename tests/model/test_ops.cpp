// The operations of model/ops.h: identities that must hold for any input, the Eigen engine against
// the naive loop reference over a sweep of shapes, PyTorch's edge cases, and every bad input.
#include <QString>
#include <QTest>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

#include "model/ops.h"
#include "model/rng.h"
#include "model/tensor.h"
#include "reference_attention.h"

using attn::AttentionError;
using attn::AttentionOptions;
using attn::AttentionResult;
using attn::BoolMatrix;
using attn::Matrix;
using attn::RowVector;
using attn::TorchGenerator;

using Thrower = std::function<void()>;
Q_DECLARE_METATYPE(Thrower)
Q_DECLARE_METATYPE(Matrix)
Q_DECLARE_METATYPE(AttentionOptions)

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kTol = attn::reference::kReferenceTolerance;

// Reproducible inputs in [-2, 2]: wide enough that softmax is far from uniform.
Matrix randomMatrix(TorchGenerator& gen, Eigen::Index rows, Eigen::Index cols) {
    return gen.uniform(rows, cols, -2.0, 2.0);
}

// Runs f and returns what() of the AttentionError it throws; "" if it throws nothing.
QString errorOf(const Thrower& f) {
    try {
        f();
    } catch (const AttentionError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

}  // namespace

class TestOps : public QObject {
    Q_OBJECT

private slots:
    // softmax
    void softmaxRowsSumToOne_data();
    void softmaxRowsSumToOne();
    void softmaxIgnoresConstantShift_data();
    void softmaxIgnoresConstantShift();
    void softmaxFullyMaskedRow();
    void naiveSoftmaxOverflows();
    void naiveNormalization();

    // masks
    void causalMask_data();
    void causalMask();
    void paddingMask();
    void maskConventions();
    void additiveMaskFromKeep();
    void maskedFillAndRenormalize();

    // dropout
    void dropoutZeroIsIdentity();
    void dropoutOneGivesZeros();
    void dropoutDrawsOnePerElement_data();
    void dropoutDrawsOnePerElement();
    void dropoutKeepsAboutOneMinusP();

    // random numbers
    void generatorMatchesTorch();
    void generatorDraws();
    void generatorNormal();

    // heads

    // bad input
    void badInput_data();
    void badInput();
};

// --- softmax ---------------------------------------------------------------------------------

void TestOps::softmaxRowsSumToOne_data() {
    QTest::addColumn<Matrix>("scores");
    TorchGenerator gen(7);
    QTest::newRow("1 x 1") << randomMatrix(gen, 1, 1);
    QTest::newRow("6 x 6") << randomMatrix(gen, 6, 6);
    QTest::newRow("3 x 9") << randomMatrix(gen, 3, 9);
    // Scores of 1000 overflow exp() unless the row max is subtracted first.
    QTest::newRow("scores 500..1000") << gen.uniform(4, 5, 500.0, 1000.0);
    QTest::newRow("scores -1000..-500") << gen.uniform(4, 5, -1000.0, -500.0);
}

void TestOps::softmaxRowsSumToOne() {
    QFETCH(Matrix, scores);
    const Matrix w = attn::softmax_rows(scores);
    QCOMPARE(w.rows(), scores.rows());
    QCOMPARE(w.cols(), scores.cols());
    for (Eigen::Index i = 0; i < w.rows(); ++i) {
        const double sum = static_cast<double>(w.row(i).sum());
        QVERIFY2(std::abs(sum - 1.0) <= 1e-6, qPrintable(QString::number(sum, 'g', 10)));
        QVERIFY(w.row(i).minCoeff() >= 0.0f);
        QVERIFY(w.row(i).maxCoeff() <= 1.0f);
        // The largest score gets the largest weight.
        Eigen::Index argmax_scores = 0;
        Eigen::Index argmax_weights = 0;
        scores.row(i).maxCoeff(&argmax_scores);
        w.row(i).maxCoeff(&argmax_weights);
        QCOMPARE(argmax_weights, argmax_scores);
    }
}

void TestOps::softmaxIgnoresConstantShift_data() {
    QTest::addColumn<Matrix>("scores");
    QTest::addColumn<float>("shift");
    QTest::addColumn<float>("tolerance");
    // Multiples of 1/8 shifted by 64 stay exact in float, so x - max has the same bits and the
    // weights must be bit-identical.
    Matrix dyadic(2, 4);
    dyadic << 0.125f, -1.5f, 2.0f, 0.75f,  //
        -3.0f, 0.0f, 0.5f, -0.25f;
    QTest::newRow("dyadic +64 (exact)") << dyadic << 64.0f << 0.0f;
    QTest::newRow("dyadic -64 (exact)") << dyadic << -64.0f << 0.0f;
    // Random scores + 100 lose their last bits to rounding (ulp(100) = 7.6e-6), which moves the
    // weights by a few 1e-6: hence the loosened tolerance.
    TorchGenerator gen(11);
    QTest::newRow("random +100") << randomMatrix(gen, 5, 7) << 100.0f << 2e-5f;
}

void TestOps::softmaxIgnoresConstantShift() {
    QFETCH(Matrix, scores);
    QFETCH(float, shift);
    QFETCH(float, tolerance);
    const Matrix shifted = (scores.array() + shift).matrix();
    const float diff =
        (attn::softmax_rows(scores) - attn::softmax_rows(shifted)).cwiseAbs().maxCoeff();
    QVERIFY2(diff <= tolerance, qPrintable(QString::number(static_cast<double>(diff))));
}

// A fully masked row behaves as torch.softmax: NaN when filled with -inf, uniform with -1e9.
void TestOps::softmaxFullyMaskedRow() {
    Matrix scores(3, 4);
    scores.row(0).setConstant(attn::kNegInf);
    scores.row(1).setConstant(-1e9f);
    scores.row(2) << 1.0f, attn::kNegInf, 2.0f, attn::kNegInf;
    const Matrix w = attn::softmax_rows(scores);
    for (Eigen::Index j = 0; j < 4; ++j) {
        QVERIFY2(std::isnan(w(0, j)), "a row of -inf gives NaN, as torch.softmax does");
        QVERIFY2(w(1, j) == 0.25f, "a row of -1e9 gives uniform weights 1/T_k");
    }
    QVERIFY(w(2, 1) == 0.0f);
    QVERIFY(w(2, 3) == 0.0f);
    QVERIFY(std::abs(static_cast<double>(w(2, 0) + w(2, 2)) - 1.0) <= 1e-6);
    QVERIFY(w(2, 2) > w(2, 0));
}

void TestOps::naiveSoftmaxOverflows() {
    // exp(88) = 1.65e38 still fits in float, exp(89) does not: the ~88 of the header comment.
    Matrix scores(3, 3);
    scores << 100.0f, 1.0f, 2.0f,  //
        89.0f, 0.0f, 0.0f,         //
        0.5f, 1.0f, -0.5f;
    const Matrix naive = attn::softmax_rows_naive(scores);
    const Matrix stable = attn::softmax_rows(scores);
    QVERIFY2(std::isnan(naive(0, 0)), "exp(100) = inf and inf / inf = NaN");
    QVERIFY2(naive(0, 1) == 0.0f, "e / inf = 0");
    QVERIFY(std::isnan(naive(1, 0)));
    QVERIFY(std::isinf(std::exp(100.0f)));
    QVERIFY(std::isfinite(std::exp(88.0f)));
    for (Eigen::Index i = 0; i < 3; ++i) {
        QVERIFY(stable.row(i).allFinite());
        QVERIFY(std::abs(static_cast<double>(stable.row(i).sum()) - 1.0) <= 1e-6);
    }
    QVERIFY(stable(0, 0) > 0.9999f);
    // For small scores both agree (the tutorial's In[3]).
    const float diff = (naive.row(2) - stable.row(2)).cwiseAbs().maxCoeff();
    QVERIFY(diff <= 1e-6f);
}

void TestOps::naiveNormalization() {
    // x / sum(x): with a negative score the "weights" are not a probability distribution.
    Matrix scores(2, 3);
    scores << 1.0f, -1.0f, 2.0f,  //
        1.0f, 1.0f, 2.0f;
    const Matrix w = attn::normalize_rows_naive(scores);
    Matrix expected(2, 3);
    expected << 0.5f, -0.5f, 1.0f,  //
        0.25f, 0.25f, 0.5f;
    QVERIFY(w == expected);
}

// --- masks -----------------------------------------------------------------------------------

void TestOps::causalMask_data() {
    QTest::addColumn<Eigen::Index>("t_q");
    QTest::addColumn<Eigen::Index>("t_k");
    QTest::newRow("T=1") << Eigen::Index{1} << Eigen::Index{1};
    QTest::newRow("T=4") << Eigen::Index{4} << Eigen::Index{4};
    QTest::newRow("T=6 (tutorial)") << Eigen::Index{6} << Eigen::Index{6};
    QTest::newRow("decode 2 of 5") << Eigen::Index{2} << Eigen::Index{5};
    QTest::newRow("decode 1 of 7") << Eigen::Index{1} << Eigen::Index{7};
    QTest::newRow("no queries") << Eigen::Index{0} << Eigen::Index{3};
}

void TestOps::causalMask() {
    QFETCH(Eigen::Index, t_q);
    QFETCH(Eigen::Index, t_k);
    const BoolMatrix m = attn::causal_mask(t_q, t_k);
    QCOMPARE(m.rows(), t_q);
    QCOMPARE(m.cols(), t_k);
    QVERIFY(m == attn::reference::causal(t_q, t_k));
    if (t_q > 0) {
        // The last query is the newest token: it sees every key.
        QVERIFY(!m.row(t_q - 1).any());
        // The first query sees keys 0 .. T_k - T_q.
        QCOMPARE(m.row(0).count(), t_q - 1);
    }
    if (t_q == t_k) {
        QCOMPARE(m.count(), t_q * (t_q - 1) / 2);
    }
}

void TestOps::paddingMask() {
    const BoolMatrix m = attn::padding_mask(2, 5, 3);
    BoolMatrix expected(2, 5);
    expected << false, false, false, true, true,  //
        false, false, false, true, true;
    QVERIFY(m == expected);
    QVERIFY(attn::padding_mask(3, 4, 0).all());
    QVERIFY(!attn::padding_mask(3, 4, 4).any());
}

void TestOps::maskConventions() {
    // Seed 002: triu(ones, diagonal=1) is 1 where blocked -> masked_fill(mask.bool(), ...).
    // Seed 004: subsequent_mask = 1 - triu(...) is 1 where kept; BERT fills where it is 0.
    const Eigen::Index T = 5;
    Matrix triu1 = Matrix::Zero(T, T);
    Matrix tril = Matrix::Zero(T, T);
    for (Eigen::Index i = 0; i < T; ++i) {
        for (Eigen::Index j = 0; j < T; ++j) {
            (j > i ? triu1 : tril)(i, j) = 1.0f;
        }
    }
    const BoolMatrix causal = attn::causal_mask(T, T);
    QVERIFY(attn::blocked_where_one(triu1) == causal);
    QVERIFY(attn::blocked_where_zero(tril) == causal);
    QVERIFY(attn::blocked_where_zero(triu1) != causal);

    Matrix mixed(1, 4);
    mixed << 0.0f, 1.0f, 2.0f, 0.0f;
    BoolMatrix zero(1, 4);
    zero << true, false, false, true;
    BoolMatrix one(1, 4);
    one << false, true, false, false;
    QVERIFY(attn::blocked_where_zero(mixed) == zero);
    QVERIFY(attn::blocked_where_one(mixed) == one);
}

void TestOps::additiveMaskFromKeep() {
    RowVector keep(4);
    keep << 1.0f, 1.0f, 0.0f, 1.0f;
    const Matrix gpt2 = attn::additive_mask_from_keep(keep, 3);
    QCOMPARE(gpt2.rows(), Eigen::Index{3});
    QCOMPARE(gpt2.cols(), Eigen::Index{4});
    for (Eigen::Index i = 0; i < 3; ++i) {
        QVERIFY(gpt2(i, 0) == 0.0f);
        QVERIFY(gpt2(i, 1) == 0.0f);
        QVERIFY(gpt2(i, 2) == -1e4f);  // GPT-2's (1 - mask) * -10000
        QVERIFY(gpt2(i, 3) == 0.0f);
    }
    // With a -inf fill the kept keys must stay 0, not 0 * -inf = NaN.
    const Matrix inf = attn::additive_mask_from_keep(keep, 2, attn::kNegInf);
    QVERIFY(inf(1, 0) == 0.0f);
    QVERIFY(inf(1, 2) == attn::kNegInf);
    QVERIFY(!inf.array().isNaN().any());
}

void TestOps::maskedFillAndRenormalize() {
    Matrix scores(3, 3);
    scores << 1.0f, 2.0f, 3.0f,  //
        4.0f, 5.0f, 6.0f,        //
        7.0f, 8.0f, 9.0f;
    const BoolMatrix causal = attn::causal_mask(3, 3);
    Matrix expected(3, 3);
    expected << 1.0f, -1e9f, -1e9f,  //
        4.0f, 5.0f, -1e9f,           //
        7.0f, 8.0f, 9.0f;
    QVERIFY(attn::masked_fill(scores, causal, -1e9f) == expected);

    const Matrix weights = attn::softmax_rows(scores);
    const Matrix renorm = attn::mask_and_renormalize(weights, causal);
    for (Eigen::Index i = 0; i < 3; ++i) {
        QVERIFY(std::abs(static_cast<double>(renorm.row(i).sum()) - 1.0) <= 1e-6);
        for (Eigen::Index j = i + 1; j < 3; ++j) {
            QVERIFY(renorm(i, j) == 0.0f);
        }
    }
    QVERIFY(renorm(0, 0) == 1.0f);
    // Renormalising equals softmax over the allowed scores only (the tutorial's point in In[15]).
    const Matrix direct = attn::softmax_rows(attn::masked_fill(scores, causal, attn::kNegInf));
    QVERIFY((renorm - direct).cwiseAbs().maxCoeff() <= 1e-6f);
    // A fully blocked row has nothing to renormalise: 0 / 0 = NaN.
    BoolMatrix all = BoolMatrix::Constant(3, 3, false);
    all.row(1).setConstant(true);
    const Matrix nan_row = attn::mask_and_renormalize(weights, all);
    QVERIFY(nan_row.row(1).array().isNaN().all());
    QVERIFY(nan_row.row(0).allFinite());
}

// --- dropout ---------------------------------------------------------------------------------

void TestOps::dropoutZeroIsIdentity() {
    TorchGenerator gen(3);
    const Matrix x = randomMatrix(gen, 4, 5);
    TorchGenerator twin = gen;
    BoolMatrix kept;
    const Matrix y = attn::dropout(x, 0.0f, gen, &kept);
    QVERIFY(y == x);
    QVERIFY(kept.rows() == 4 && kept.cols() == 5 && kept.all());
    QCOMPARE(gen.random(), twin.random());  // p == 0 draws nothing
}

void TestOps::dropoutOneGivesZeros() {
    TorchGenerator gen(3);
    const Matrix x = randomMatrix(gen, 4, 5);
    TorchGenerator twin = gen;
    BoolMatrix kept;
    const Matrix y = attn::dropout(x, 1.0f, gen, &kept);
    QVERIFY(y == Matrix::Zero(4, 5));
    QVERIFY(kept.rows() == 4 && kept.cols() == 5 && !kept.any());
    QCOMPARE(gen.random(), twin.random());  // p == 1 draws nothing either
}

void TestOps::dropoutDrawsOnePerElement_data() {
    QTest::addColumn<float>("p");
    QTest::addColumn<Eigen::Index>("rows");
    QTest::addColumn<Eigen::Index>("cols");
    QTest::newRow("p=0.5 3x4") << 0.5f << Eigen::Index{3} << Eigen::Index{4};
    QTest::newRow("p=0.1 5x2") << 0.1f << Eigen::Index{5} << Eigen::Index{2};
    QTest::newRow("p=0.9 2x7") << 0.9f << Eigen::Index{2} << Eigen::Index{7};
    QTest::newRow("p=0.3 1x1") << 0.3f << Eigen::Index{1} << Eigen::Index{1};
}

// One 64-bit draw per element in row-major order, keep iff u < 1 - p, kept * (1 / (1 - p)).
void TestOps::dropoutDrawsOnePerElement() {
    QFETCH(float, p);
    QFETCH(Eigen::Index, rows);
    QFETCH(Eigen::Index, cols);
    TorchGenerator gen(42);
    const Matrix x = randomMatrix(gen, rows, cols);
    TorchGenerator twin = gen;
    BoolMatrix kept;
    const Matrix y = attn::dropout(x, p, gen, &kept);

    const double keep_prob = 1.0 - static_cast<double>(p);
    const float scale = 1.0f / static_cast<float>(keep_prob);
    for (Eigen::Index i = 0; i < rows; ++i) {
        for (Eigen::Index j = 0; j < cols; ++j) {
            const bool keep = twin.uniform_double() < keep_prob;
            QCOMPARE(kept(i, j), keep);
            QVERIFY(y(i, j) == (keep ? x(i, j) * scale : 0.0f));
        }
    }
    QCOMPARE(gen.random(), twin.random());  // no more and no fewer draws than elements
}

void TestOps::dropoutKeepsAboutOneMinusP() {
    // 10000 cells: the kept fraction has a standard deviation of 0.005; 0.03 is six of them.
    TorchGenerator gen(2024);
    const Matrix ones = Matrix::Ones(100, 100);
    for (const float p : {0.1f, 0.5f, 0.8f}) {
        BoolMatrix kept;
        const Matrix y = attn::dropout(ones, p, gen, &kept);
        const double fraction = static_cast<double>(kept.count()) / 10000.0;
        QVERIFY2(std::abs(fraction - (1.0 - static_cast<double>(p))) <= 0.03,
                 qPrintable(QString::number(fraction)));
        // The expected value is preserved: mean of the output close to 1.
        const double mean = static_cast<double>(y.mean());
        QVERIFY2(std::abs(mean - 1.0) <= 0.03 / (1.0 - static_cast<double>(p)),
                 qPrintable(QString::number(mean)));
    }
}

// --- random numbers --------------------------------------------------------------------------

void TestOps::generatorMatchesTorch() {
    // torch.manual_seed(0); torch.rand(5)
    TorchGenerator zero(0);
    const Matrix r0 = zero.rand(1, 5);
    const double printed0[] = {0.4963, 0.7682, 0.0885, 0.1320, 0.3074};
    for (Eigen::Index j = 0; j < 5; ++j) {
        QVERIFY(std::abs(static_cast<double>(r0(0, j)) - printed0[j]) <= 0.00005 + 1e-6);
    }
    // torch.manual_seed(123); torch.rand(3, 2): seed 002's W_query, which gives its query_2.
    TorchGenerator gen(123);
    const Matrix w = gen.rand(3, 2);
    const double printed[3][2] = {{0.2961, 0.5166}, {0.2517, 0.6886}, {0.0740, 0.8665}};
    for (Eigen::Index i = 0; i < 3; ++i) {
        for (Eigen::Index j = 0; j < 2; ++j) {
            QVERIFY(std::abs(static_cast<double>(w(i, j)) - printed[i][j]) <= 0.00005 + 1e-6);
        }
    }
    // Only the low 32 bits of the seed matter, as in PyTorch's mt19937.
    TorchGenerator a(123);
    TorchGenerator b(123 + (std::uint64_t{1} << 32));
    QVERIFY(a.rand(2, 3) == b.rand(2, 3));
}

void TestOps::generatorDraws() {
    TorchGenerator gen(9);
    TorchGenerator twin(9);
    // random64 = (first << 32) | second
    const std::uint64_t first = twin.random();
    const std::uint64_t second = twin.random();
    QCOMPARE(gen.random64(), (first << 32) | second);
    // uniform_double keeps the low 53 bits of one random64.
    const std::uint64_t bits = twin.random64() & ((std::uint64_t{1} << 53) - 1U);
    QCOMPARE(gen.uniform_double(), static_cast<double>(bits) / 9007199254740992.0);
    // uniform(from, to): 24 bits of one 32-bit draw.
    const std::uint32_t v = twin.random();
    const double x = static_cast<double>(v & 0xffffffU) / 16777216.0;
    QCOMPARE(gen.uniform(-0.5, 0.5), static_cast<float>(x * 1.0 - 0.5));
    // Fills run row-major: element (0, 1) is the second draw.
    TorchGenerator fill(5);
    TorchGenerator one_by_one(5);
    const Matrix m = fill.uniform(2, 3, -1.0, 1.0);
    for (Eigen::Index i = 0; i < 2; ++i) {
        for (Eigen::Index j = 0; j < 3; ++j) {
            QVERIFY(m(i, j) == one_by_one.uniform(-1.0, 1.0));
            QVERIFY(m(i, j) >= -1.0f && m(i, j) < 1.0f);
        }
    }
}

void TestOps::generatorNormal() {
    TorchGenerator gen(77);
    const Matrix n = gen.normal(100, 200, 0.0f, 1.0f);
    const double mean = static_cast<double>(n.mean());
    const double var = static_cast<double>((n.array() - n.mean()).square().mean());
    // 20000 samples: standard errors 0.007 (mean) and 0.01 (variance).
    QVERIFY2(std::abs(mean) <= 0.03, qPrintable(QString::number(mean)));
    QVERIFY2(std::abs(var - 1.0) <= 0.05, qPrintable(QString::number(var)));
    QVERIFY(n.allFinite());
    // Scaled and shifted, and reproducible from the seed.
    TorchGenerator a(5);
    TorchGenerator b(5);
    const Matrix shifted = a.normal(50, 40, 2.0f, 0.5f);
    QVERIFY(shifted == b.normal(50, 40, 2.0f, 0.5f));
    QVERIFY(std::abs(static_cast<double>(shifted.mean()) - 2.0) <= 0.03);
}

// --- bad input -------------------------------------------------------------------------------

void TestOps::badInput_data() {
    QTest::addColumn<Thrower>("call");
    QTest::addColumn<QString>("message");

    TorchGenerator gen(1);
    const Matrix q = randomMatrix(gen, 4, 2);
    const Matrix k = randomMatrix(gen, 4, 2);
    const Matrix v = randomMatrix(gen, 4, 3);
    const auto attend = [](Matrix queries, Matrix keys, Matrix values, AttentionOptions o = {}) {
        return Thrower([=]() { attn::scaled_dot_product_attention(queries, keys, values, o); });
    };

    Matrix q_nan = q;
    q_nan(1, 0) = kNaN;
    QTest::newRow("NaN in queries")
        << attend(q_nan, k, v)
        << "queries has NaN at row 2, column 1 (counting from 1): replace it with a finite number";
    Matrix k_inf = k;
    k_inf(0, 1) = kInf;
    QTest::newRow("+Inf in keys") << attend(q, k_inf, v)
                                  << "keys has +Inf at row 1, column 2 (counting from 1)";
    Matrix v_inf = v;
    v_inf(3, 2) = -kInf;
    QTest::newRow("-Inf in values")
        << attend(q, k, v_inf) << "values has -Inf at row 4, column 3 (counting from 1)";
    QTest::newRow("empty queries")
        << attend(Matrix(0, 2), k, v) << "queries is empty: give at least one token";
    QTest::newRow("empty keys") << attend(q, Matrix(0, 2), Matrix(0, 3))
                                << "keys is empty: give at least one token";
    QTest::newRow("d_k = 0") << attend(Matrix(4, 0), Matrix(4, 0), v)
                             << "queries have no columns (d_k = 0): give d_k >= 1";
    QTest::newRow("mismatched d_k")
        << attend(q, randomMatrix(gen, 4, 3), v)
        << "keys has 3 columns but d_k (the width of queries) = 2: give keys exactly 2 columns";
    QTest::newRow("values rows != keys rows")
        << attend(q, k, randomMatrix(gen, 5, 3))
        << "values has 5 rows but keys has 4: give one value row per key";

    AttentionOptions negative_p;
    negative_p.dropout_p = -0.1f;
    QTest::newRow("p = -0.1")
        << attend(q, k, v, negative_p)
        << "dropout p = -0.1 is outside [0, 1]: use a probability such as 0.1 or 0.5";
    AttentionOptions big_p;
    big_p.dropout_p = 1.5f;
    QTest::newRow("p = 1.5")
        << attend(q, k, v, big_p)
        << "dropout p = 1.5 is outside [0, 1]: use a probability such as 0.1 or 0.5";
    AttentionOptions nan_p;
    nan_p.dropout_p = kNaN;
    QTest::newRow("p = NaN") << attend(q, k, v, nan_p) << "dropout p = nan is outside [0, 1]";
    QTest::newRow("dropout() p = 1.5") << Thrower([=]() {
        TorchGenerator g(1);
        attn::dropout(q, 1.5f, g);
    }) << "dropout p = 1.5 is outside [0, 1]";
    AttentionOptions no_gen;
    no_gen.training = true;
    no_gen.dropout_p = 0.5f;
    QTest::newRow("training dropout without generator")
        << attend(q, k, v, no_gen)
        << "dropout p = 0.5 in training mode needs random numbers: pass a TorchGenerator";

    AttentionOptions small_mask;
    small_mask.blocked = attn::causal_mask(3, 3);
    QTest::newRow("blocked mask shape")
        << attend(q, k, v, small_mask)
        << "the mask has shape (3, 3) but the scores have shape (4, 4): give a (T_q, T_k) mask";
    AttentionOptions bad_additive;
    bad_additive.additive_mask = Matrix::Zero(4, 3);
    QTest::newRow("additive mask shape")
        << attend(q, k, v, bad_additive)
        << "additive_mask has shape (4, 3) but the scores have shape (4, 4)";
    AttentionOptions nan_additive;
    nan_additive.additive_mask = Matrix::Zero(4, 4);
    (*nan_additive.additive_mask)(2, 3) = kNaN;
    QTest::newRow("NaN in additive mask")
        << attend(q, k, v, nan_additive) << "additive_mask has NaN at row 3, column 4";
    AttentionOptions nan_fill;
    nan_fill.blocked = attn::causal_mask(4, 4);
    nan_fill.fill_value = kNaN;
    QTest::newRow("NaN fill value")
        << attend(q, k, v, nan_fill) << "fill_value is NaN: fill masked scores with -inf";
    AttentionOptions zero_scale;
    zero_scale.scale_dim = 0.0f;
    QTest::newRow("scale_dim 0") << attend(q, k, v, zero_scale)
                                 << "scale_dim = 0 cannot be square-rooted";
    AttentionOptions nan_head;
    nan_head.head_mask = kNaN;
    QTest::newRow("NaN head_mask") << attend(q, k, v, nan_head) << "head_mask = nan is not finite";

    const Matrix six = randomMatrix(gen, 2, 6);
    QTest::newRow("heads do not divide d_out")
        << Thrower([=]() { attn::split_heads(six, 4); })
        << "d_out = 6 is not divisible by num_heads = 4: choose num_heads among 1, 2, 3, 6";
    QTest::newRow("zero heads") << Thrower([=]() { attn::split_heads(six, 0); })
                                << "num_heads = 0 is not a number of heads: choose num_heads "
                                   "among 1, 2, 3, 6";
    QTest::newRow("zero width") << Thrower([]() { attn::check_heads_divide(0, 1, "d_model"); })
                                << "d_model = 0 leaves no width to split into heads";
    QTest::newRow("merge no heads") << Thrower([]() { attn::merge_heads({}); })
                                    << "merge_heads got no heads: give at least one head";
    QTest::newRow("merge mismatched heads") << Thrower([=]() {
        attn::merge_heads({Matrix::Zero(3, 2), Matrix::Zero(3, 3)});
    }) << "head 2 has shape (3, 3) but head 1 has (3, 2)";

    QTest::newRow("causal mask with more queries than keys")
        << Thrower([]() { attn::causal_mask(5, 3); }) << "T_q = 5 queries but only T_k = 3 keys";
    QTest::newRow("causal mask negative size")
        << Thrower([]() { attn::causal_mask(-1, 3); }) << "T_q = -1 is negative";
    QTest::newRow("padding beyond T_k") << Thrower([]() { attn::padding_mask(2, 4, 5); })
                                        << "valid_keys = 5 is outside [0, T_k = 4]";
    QTest::newRow("masked_fill shape")
        << Thrower([=]() { attn::masked_fill(Matrix::Zero(3, 3), attn::causal_mask(2, 2), 0.0f); })
        << "the mask has shape (2, 2) but the scores have shape (3, 3)";
    QTest::newRow("mask_and_renormalize shape") << Thrower([=]() {
        attn::mask_and_renormalize(Matrix::Ones(3, 3), attn::causal_mask(4, 4));
    }) << "the mask has shape (4, 4) but the weights have shape (3, 3)";
    RowVector keep_nan(3);
    keep_nan << 1.0f, kNaN, 0.0f;
    QTest::newRow("NaN in keep vector")
        << Thrower([=]() { attn::additive_mask_from_keep(keep_nan, 2); })
        << "keep has NaN at row 1, column 2";

    QTest::newRow("check_cols") << Thrower([=]() {
        attn::check_cols(Matrix::Zero(2, 4), 3, "inputs", "d_in");
    }) << "inputs has 4 columns but d_in = 3: give inputs exactly 3 columns";
    QTest::newRow("batch of zero copies")
        << Thrower([=]() { attn::stack_copies(q, 0); }) << "batch size = 0 is not a batch";
    QTest::newRow("negative random shape") << Thrower([]() {
        TorchGenerator g(1);
        g.rand(-1, 2);
    }) << "random tensor of shape (-1, 2) has a negative size";
}

void TestOps::badInput() {
    QFETCH(Thrower, call);
    QFETCH(QString, message);
    const QString what = errorOf(call);
    QVERIFY2(!what.isEmpty(), "no AttentionError was thrown");
    QVERIFY2(what.contains(message), qPrintable(QStringLiteral("got: ") + what));
}

QTEST_APPLESS_MAIN(TestOps)
#include "test_ops.moc"
