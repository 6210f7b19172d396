// The fast path's inner loops (model/attention_kernels.h), in the version this CPU gets, against
// the same sums in double precision: products of every shape the tiles and their left-over rows
// and columns meet, and the softmax's exp. test_portable_cpu runs the other versions (AVX2, the
// BLAS's) under emulated processors.
#include <QTest>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "model/attention_kernels.h"

namespace k = attn::kernels;

class TestAttentionKernels : public QObject {
    Q_OBJECT
private slots:
    void blockProductEqualsTheSums_data();
    void blockProductEqualsTheSums();
    void softmaxRowShiftIsExp();
    void rowMaxFindsTheLargest();
};

void TestAttentionKernels::blockProductEqualsTheSums_data() {
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("depth");
    QTest::addColumn<bool>("accumulate");
    // Rows around the tiles (6 for AVX-512, 3 for AVX2), columns around 64 / 16 / 32 / 8.
    for (int m : {1, 3, 6, 7, 13})
        for (int n : {1, 8, 15, 16, 17, 33, 64, 65, 130})
            for (int depth : {1, 3, 64, 100})
                for (bool accumulate : {false, true})
                    QTest::addRow("m%d n%d k%d %s", m, n, depth, accumulate ? "+=" : "=")
                        << m << n << depth << accumulate;
}

void TestAttentionKernels::blockProductEqualsTheSums() {
    QFETCH(int, m);
    QFETCH(int, n);
    QFETCH(int, depth);
    QFETCH(bool, accumulate);
    std::mt19937 gen(static_cast<unsigned>(m * 10007 + n * 101 + depth));
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    // Row strides wider than the rows, as the kernels meet them in qkv and the scratch blocks.
    const attn::kernels::Index lda = depth + 3, ldb = n + 5, ldc = n + 2;
    std::vector<float> a(static_cast<std::size_t>(m * lda)),
        b(static_cast<std::size_t>(depth * ldb)), c(static_cast<std::size_t>(m * ldc));
    for (float& v : a) v = u(gen);
    for (float& v : b) v = u(gen);
    for (float& v : c) v = u(gen);
    const std::vector<float> before = c;
    k::block_product(a.data(), lda, b.data(), ldb, c.data(), ldc, m, n, depth, accumulate);
    double worst = 0.0;
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < ldc; ++j) {
            const std::size_t at = static_cast<std::size_t>(i * ldc + j);
            if (j >= n) {  // outside the block: untouched
                QCOMPARE(c[at], before[at]);
                continue;
            }
            double want = accumulate ? static_cast<double>(before[at]) : 0.0;
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

QTEST_GUILESS_MAIN(TestAttentionKernels)
#include "test_attention_kernels.moc"
