// The fast path's inner loops (model/attention_kernels.h), in the version this CPU gets, against
// the same sums in double precision: products of every shape the tiles and their left-over rows
// and columns meet, with and without a bias, and the softmax's exp; and attn::gemm on each of its
// routes (tiles, row dots, BLAS). test_portable_cpu runs the other versions (AVX2, the BLAS's)
// under emulated processors.
#include <QTest>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "model/attention_kernels.h"
#include "model/matmul.h"

namespace k = attn::kernels;

class TestAttentionKernels : public QObject {
    Q_OBJECT
private slots:
    void blockProductEqualsTheSums_data();
    void blockProductEqualsTheSums();
    void softmaxRowShiftIsExp();
    void rowMaxFindsTheLargest();
    void gemmEqualsTheSums_data();
    void gemmEqualsTheSums();
};

namespace {

// Floats on 64-byte lines, as a loaded model's weights lie (the 8 × 48 tiles need them).
std::unique_ptr<float[], decltype(&std::free)> aligned_floats(std::size_t n) {
    const std::size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
    return {static_cast<float*>(std::aligned_alloc(64, bytes)), &std::free};
}

}  // namespace

void TestAttentionKernels::blockProductEqualsTheSums_data() {
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("depth");
    QTest::addColumn<bool>("accumulate");
    QTest::addColumn<bool>("with_bias");
    QTest::addColumn<bool>("aligned");
    // Rows around the tiles (8 and 6 for AVX-512, 3 for AVX2), columns around 48 / 64 / 16 / 32
    // / 8; b on 64-byte lines (8 × 48 tiles) or not (6 × 64).
    for (int m : {1, 3, 6, 7, 8, 13, 17})
        for (int n : {1, 8, 15, 16, 17, 33, 48, 64, 65, 97, 130, 144})
            for (int depth : {1, 64, 100})
                for (bool accumulate : {false, true})
                    for (bool with_bias : {false, true})
                        for (bool aligned : {false, true})
                            QTest::addRow("m%d n%d k%d %s%s%s", m, n, depth,
                                          accumulate ? "+=" : "=", with_bias ? " +bias" : "",
                                          aligned ? " aligned" : "")
                                << m << n << depth << accumulate << with_bias << aligned;
}

void TestAttentionKernels::blockProductEqualsTheSums() {
    QFETCH(int, m);
    QFETCH(int, n);
    QFETCH(int, depth);
    QFETCH(bool, accumulate);
    QFETCH(bool, with_bias);
    QFETCH(bool, aligned);
    std::mt19937 gen(static_cast<unsigned>(m * 10007 + n * 101 + depth));
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    // Row strides wider than the rows, as the kernels meet them in qkv and the scratch blocks;
    // b's a whole number of lines when aligned, and one float off them when not.
    const attn::kernels::Index lda = depth + 3, ldb = aligned ? (n + 15) / 16 * 16 + 16 : n + 5,
                               ldc = n + 2;
    std::vector<float> a(static_cast<std::size_t>(m * lda)), c(static_cast<std::size_t>(m * ldc)),
        bias(static_cast<std::size_t>(n));
    const std::size_t b_size = static_cast<std::size_t>(depth * ldb);
    const auto b_store = aligned_floats(b_size + 1);
    float* const b = b_store.get() + (aligned ? 0 : 1);
    for (float& v : a) v = u(gen);
    for (std::size_t i = 0; i < b_size; ++i) b[i] = u(gen);
    for (float& v : c) v = u(gen);
    for (float& v : bias) v = u(gen);
    const std::vector<float> before = c;
    k::block_product(a.data(), lda, b, ldb, c.data(), ldc, m, n, depth, accumulate,
                     with_bias ? bias.data() : nullptr);
    double worst = 0.0;
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < ldc; ++j) {
            const std::size_t at = static_cast<std::size_t>(i * ldc + j);
            if (j >= n) {  // outside the block: untouched
                QCOMPARE(c[at], before[at]);
                continue;
            }
            double want = accumulate ? static_cast<double>(before[at]) : 0.0;
            if (with_bias) want += static_cast<double>(bias[static_cast<std::size_t>(j)]);
            for (int p = 0; p < depth; ++p)
                want += static_cast<double>(a[static_cast<std::size_t>(i * lda + p)]) *
                        static_cast<double>(b[static_cast<std::size_t>(p * ldb + j)]);
            worst = std::max(worst, std::abs(static_cast<double>(c[at]) - want));
        }
    }
    // Float sums of up to 101 terms of magnitude <= 1.
    QVERIFY2(worst <= 2e-5, qPrintable(QString::number(worst)));
}

void TestAttentionKernels::softmaxRowShiftIsExp() {
    // Scores minus their max span [-100, 0]; cells past `valid` (the future) become 0.
    const int n = 70, valid = 53;
    std::vector<float> p(n);
    for (int j = 0; j < n; ++j)
        p[static_cast<std::size_t>(j)] = -100.0f * static_cast<float>(j) / 69.0f + 1.5f;
    const std::vector<float> scores = p;
    const float sum = k::softmax_row_shift(p.data(), valid, n, 1.5f);
    double want_sum = 0.0, worst = 0.0;
    for (int j = 0; j < n; ++j) {
        const std::size_t at = static_cast<std::size_t>(j);
        if (j >= valid) {
            QCOMPARE(p[at], 0.0f);
            continue;
        }
        const double want = std::exp(static_cast<double>(scores[at]) - 1.5);
        want_sum += want;
        if (want > 1e-37)
            worst = std::max(worst, std::abs(static_cast<double>(p[at]) - want) / want);
    }
    QVERIFY2(worst <= 4e-7, qPrintable(QString::number(worst)));  // a few ulp
    QVERIFY(std::abs(static_cast<double>(sum) - want_sum) <= 1e-6 * want_sum);
    QCOMPARE(p[0], 1.0f);  // exp(0) exactly
}

void TestAttentionKernels::rowMaxFindsTheLargest() {
    std::vector<float> p(37, -3.0f);
    QCOMPARE(k::row_max(p.data(), 37), -3.0f);
    p[36] = 2.5f;  // in the scalar tail after the vectors
    QCOMPARE(k::row_max(p.data(), 37), 2.5f);
    QCOMPARE(k::row_max(p.data(), 36), -3.0f);
    p[5] = 7.0f;
    QCOMPARE(k::row_max(p.data(), 37), 7.0f);
    QCOMPARE(k::row_max(p.data(), 0), -std::numeric_limits<float>::infinity());
    const QString isa = QString::fromStdString(k::kernel_isa());
    QVERIFY2(isa == "avx512" || isa == "avx2" || isa == "portable", qPrintable(isa));
}

void TestAttentionKernels::gemmEqualsTheSums_data() {
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("trans_b");
    QTest::addColumn<float>("beta");
    QTest::addColumn<bool>("with_bias");
    // One row (the row dots for bᵀ, sgemv for b), the tiles (k past one chunk of 1024, so the
    // bias must come once), and beta = 0.5 or a transposed b (BLAS), each with and without bias.
    for (int m : {1, 9})
        for (int k : {7, 1100})
            for (int n : {5, 100})
                for (bool trans_b : {false, true})
                    for (float beta : {0.0f, 1.0f, 0.5f})
                        for (bool with_bias : {false, true})
                            QTest::addRow("%dx%d by %dx%d%s beta %g%s", m, k, k, n,
                                          trans_b ? "ᵀ" : "", static_cast<double>(beta),
                                          with_bias ? " +bias" : "")
                                << m << k << n << trans_b << beta << with_bias;
}

void TestAttentionKernels::gemmEqualsTheSums() {
    QFETCH(int, m);
    QFETCH(int, k);
    QFETCH(int, n);
    QFETCH(bool, trans_b);
    QFETCH(float, beta);
    QFETCH(bool, with_bias);
    std::mt19937 gen(static_cast<unsigned>(m * 31 + k * 7 + n));
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    attn::Matrix a(m, k), b(trans_b ? n : k, trans_b ? k : n), c(m, n);
    attn::RowVector bias(n);
    for (attn::Matrix* x : {&a, &b, &c})
        for (Eigen::Index i = 0; i < x->size(); ++i) x->data()[i] = u(gen);
    for (Eigen::Index j = 0; j < n; ++j) bias(j) = u(gen);
    const attn::Matrix before = c;
    attn::gemm(a, attn::Op::None, b, trans_b ? attn::Op::Transpose : attn::Op::None, c, beta,
               with_bias ? bias.data() : nullptr);
    double worst = 0.0;
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            double want = static_cast<double>(beta) * static_cast<double>(before(i, j));
            if (with_bias) want += static_cast<double>(bias(j));
            for (int p = 0; p < k; ++p)
                want +=
                    static_cast<double>(a(i, p)) * static_cast<double>(trans_b ? b(j, p) : b(p, j));
            worst = std::max(worst, std::abs(static_cast<double>(c(i, j)) - want));
        }
    }
    // Float sums of up to 1100 terms of magnitude <= 1, plus the bias and beta · c.
    QVERIFY2(worst <= 1e-4, qPrintable(QString::number(worst)));
    // The one-row route reads bᵀ's rows in place; a block of wider rows goes to BLAS.
    if (m == 1 && trans_b && beta == 0.0f) {
        attn::Matrix wide(n, k + 3);
        wide.leftCols(k) = b;
        wide.rightCols(3).setConstant(std::numeric_limits<float>::quiet_NaN());
        attn::Matrix c2(1, n);
        attn::gemm(a, attn::Op::None, wide.leftCols(k), attn::Op::Transpose, c2, 0.0f,
                   with_bias ? bias.data() : nullptr);
        QVERIFY2((c2 - c).cwiseAbs().maxCoeff() <= 1e-4f,
                 qPrintable(QString::number((c2 - c).cwiseAbs().maxCoeff())));
    }
}

QTEST_GUILESS_MAIN(TestAttentionKernels)
#include "test_attention_kernels.moc"
