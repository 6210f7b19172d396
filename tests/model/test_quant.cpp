// ggml's block formats (model/quant.h) against tests/reference/quant_reference.h: rows packed by
// ggml's layout with numpy and dequantized there by ggml's formulas, extremes included (zero,
// negative, subnormal and largest halves; all-zero and all-ones quants; int8 -128 and 127).
// dequantize_row must give those floats bit for bit; the products must equal a double-precision
// sum over them to float precision. Every kernel version this CPU runs is tried (AVX-512, AVX2,
// portable), and every reference row set is also read as other shapes (its blocks are
// consecutive, so 3 rows of 5 blocks are also 15 rows of 1 block and 1 row of 15).
#include <QTest>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "model/matmul.h"
#include "model/quant.h"
#include "tests/reference/quant_reference.h"

using attn::GgmlType;
using attn::QuantIsa;
using attn::QuantMatrix;
using quant_reference::Case;

Q_DECLARE_METATYPE(QuantIsa)

namespace {

GgmlType type_of(const Case& c) { return static_cast<GgmlType>(c.type); }

const char* name_of(const Case& c) { return attn::ggml_type_traits(c.type).name; }

int block_of(const Case& c) { return static_cast<int>(attn::ggml_type_traits(c.type).block_size); }

std::vector<float> reference_values(const Case& c) {
    std::vector<float> v(static_cast<std::size_t>(c.rows) * static_cast<std::size_t>(c.cols));
    std::memcpy(v.data(), c.values, v.size() * sizeof(float));
    return v;
}

std::vector<float> random_x(Eigen::Index n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> x(static_cast<std::size_t>(n));
    for (float& v : x) v = u(gen);
    return x;
}

// The shapes a case's values can be read as: its own, one block per row, and one single row.
std::vector<std::pair<int, int>> shapes_of(const Case& c) {
    const int total = c.rows * c.cols, block = block_of(c);
    return {{c.rows, c.cols}, {total / block, block}, {1, total}};
}

std::vector<QuantIsa> isas_here() {
    std::vector<QuantIsa> isas;
    for (QuantIsa isa : {QuantIsa::Avx512, QuantIsa::Avx2, QuantIsa::Portable})
        if (attn::quant_isa_supported(isa)) isas.push_back(isa);
    return isas;
}

void add_case_rows() {
    QTest::addColumn<int>("index");
    QTest::addColumn<QuantIsa>("isa");
    for (int i = 0; i < static_cast<int>(std::size(quant_reference::kCases)); ++i)
        for (QuantIsa isa : isas_here())
            QTest::addRow("%s %s", name_of(quant_reference::kCases[i]),
                          attn::quant_isa_name(isa).c_str())
                << i << isa;
}

// |y - Σ w · x| over Σ |w · x| (in double), the worst row. Sums below the smallest normal float
// count as that: float holds subnormal products to an absolute 1.4e-45, not a relative error.
double worst_relative_error(const std::vector<float>& w, int rows, int cols, const float* x,
                            const float* y) {
    double worst = 0.0;
    for (int r = 0; r < rows; ++r) {
        double sum = 0.0, magnitude = 0.0;
        for (int c = 0; c < cols; ++c) {
            const double term = static_cast<double>(w[static_cast<std::size_t>(r * cols + c)]) *
                                static_cast<double>(x[c]);
            sum += term;
            magnitude += std::abs(term);
        }
        const double error = std::abs(static_cast<double>(y[r]) - sum);
        worst = std::max(worst, error / std::max(magnitude, double{FLT_MIN}));
    }
    return worst;
}

// The reference rows repeated to `rows` rows: a matrix large enough for two threads.
std::vector<std::uint8_t> repeated_rows(const Case& c, int rows, std::vector<float>& values) {
    const std::size_t row_bytes = c.byte_count / static_cast<std::size_t>(c.rows);
    std::vector<std::uint8_t> bytes;
    const std::vector<float> ref = reference_values(c);
    for (int r = 0; r < rows; ++r) {
        const int from = r % c.rows;
        bytes.insert(bytes.end(), c.bytes + row_bytes * static_cast<std::size_t>(from),
                     c.bytes + row_bytes * static_cast<std::size_t>(from + 1));
        values.insert(values.end(), ref.begin() + from * c.cols, ref.begin() + (from + 1) * c.cols);
    }
    return bytes;
}

// Restores the engine's thread count when a test ends, passed or not.
struct ThreadsGuard {
    int saved = attn::engine_threads();
    ~ThreadsGuard() { attn::set_engine_threads(saved); }
};

}  // namespace

class TestQuant : public QObject {
    Q_OBJECT
private slots:
    void rowBytesFollowGgmlBlocks();
    void dequantizeRowIsGgmlsExactly_data() { add_case_rows(); }
    void dequantizeRowIsGgmlsExactly();
    void matvecEqualsTheDoubleSum_data() { add_case_rows(); }
    void matvecEqualsTheDoubleSum();
    void matmulEqualsTheDoubleSum_data() { add_case_rows(); }
    void matmulEqualsTheDoubleSum();
    void threadsDoNotChangeABit_data() { add_case_rows(); }
    void threadsDoNotChangeABit();
    void quantRowIsTheDequantizedRow();
    void rowsNotFillingBlocksAreRejected();
    void uncomputedTypesAreRejected();
    void mismatchedShapesAreRejected();
};

void TestQuant::rowBytesFollowGgmlBlocks() {
    QCOMPARE(attn::quant_row_bytes(GgmlType::Q4_K, 4096), std::size_t{16 * 144});
    QCOMPARE(attn::quant_row_bytes(GgmlType::Q8_0, 4096), std::size_t{128 * 34});
    QCOMPARE(attn::quant_row_bytes(GgmlType::Q6_K, 256), std::size_t{210});
    QCOMPARE(attn::quant_row_bytes(GgmlType::Q5_1, 64), std::size_t{48});
    QCOMPARE(attn::quant_row_bytes(GgmlType::F16, 37), std::size_t{74});
    QCOMPARE(attn::quant_row_bytes(GgmlType::BF16, 3), std::size_t{6});
    QCOMPARE(attn::quant_row_bytes(GgmlType::F32, 5), std::size_t{20});
    QCOMPARE(attn::quant_row_bytes(GgmlType::Q4_0, 0), std::size_t{0});
}

void TestQuant::dequantizeRowIsGgmlsExactly() {
    QFETCH(int, index);
    QFETCH(QuantIsa, isa);
    const Case& c = quant_reference::kCases[index];
    for (const auto& [rows, cols] : shapes_of(c)) {
        const std::size_t row_bytes = attn::quant_row_bytes(type_of(c), cols);
        QCOMPARE(row_bytes * static_cast<std::size_t>(rows), c.byte_count);
        std::vector<float> got(static_cast<std::size_t>(cols));
        for (int r = 0; r < rows; ++r) {
            attn::dequantize_row(isa, type_of(c), c.bytes + row_bytes * static_cast<std::size_t>(r),
                                 got.data(), cols);
            for (int j = 0; j < cols; ++j) {
                std::uint32_t bits = 0;
                std::memcpy(&bits, &got[static_cast<std::size_t>(j)], sizeof bits);
                const std::uint32_t want = c.values[r * cols + j];
                if (bits != want)
                    QFAIL(qPrintable(QStringLiteral("%1 x %2, value %3 of row %4: bits %5, ggml %6")
                                         .arg(rows)
                                         .arg(cols)
                                         .arg(j)
                                         .arg(r)
                                         .arg(bits, 8, 16, QChar('0'))
                                         .arg(want, 8, 16, QChar('0'))));
            }
        }
    }
}

void TestQuant::matvecEqualsTheDoubleSum() {
    QFETCH(int, index);
    QFETCH(QuantIsa, isa);
    const Case& c = quant_reference::kCases[index];
    const std::vector<float> w = reference_values(c);
    for (const auto& [rows, cols] : shapes_of(c)) {
        const std::vector<float> x = random_x(cols, static_cast<unsigned>(rows * 31 + cols));
        std::vector<float> y(static_cast<std::size_t>(rows), NAN);
        attn::quant_matvec(isa, QuantMatrix{type_of(c), c.bytes, rows, cols}, x.data(), y.data());
        const double error = worst_relative_error(w, rows, cols, x.data(), y.data());
        // Float sums of at most a few thousand terms, in 4 × 16 (or 8) lanes.
        QVERIFY2(error <= 1e-5,
                 qPrintable(
                     QStringLiteral("%1 x %2: relative error %3").arg(rows).arg(cols).arg(error)));
    }
}

void TestQuant::matmulEqualsTheDoubleSum() {
    QFETCH(int, index);
    QFETCH(QuantIsa, isa);
    if (isa != attn::quant_isa()) return;  // quant_matmul runs this CPU's kernels only
    const Case& c = quant_reference::kCases[index];
    const std::vector<float> w = reference_values(c);
    for (const auto& [rows, cols] : shapes_of(c)) {
        for (const int tokens : {1, 5, 40}) {  // one token, the dots, dequantized panels
            const std::vector<float> xs = random_x(tokens * cols, static_cast<unsigned>(cols));
            const attn::Matrix x = Eigen::Map<const attn::Matrix>(xs.data(), tokens, cols);
            attn::Matrix y = attn::Matrix::Constant(tokens, rows, NAN);
            attn::quant_matmul(QuantMatrix{type_of(c), c.bytes, rows, cols}, x, y);
            for (int t = 0; t < tokens; ++t) {
                if (tokens <= 32) {  // the row dots: each token's row is its matvec's, bit for bit
                    std::vector<float> alone(static_cast<std::size_t>(rows));
                    attn::quant_matvec(QuantMatrix{type_of(c), c.bytes, rows, cols},
                                       x.row(t).data(), alone.data());
                    const attn::RowVector row = y.row(t);
                    QVERIFY(std::memcmp(row.data(), alone.data(), alone.size() * 4) == 0);
                }
                const double error = worst_relative_error(w, rows, cols, x.row(t).data(),
                                                          attn::RowVector(y.row(t)).data());
                QVERIFY2(error <= 1e-5, qPrintable(QStringLiteral("T %1, %2 x %3: error %4")
                                                       .arg(tokens)
                                                       .arg(rows)
                                                       .arg(cols)
                                                       .arg(error)));
            }
        }
    }
}

void TestQuant::threadsDoNotChangeABit() {
    QFETCH(int, index);
    QFETCH(QuantIsa, isa);
    const Case& c = quant_reference::kCases[index];
    ThreadsGuard guard;
    // 1001 rows: enough bytes for the products to split over threads, an odd count.
    std::vector<float> w;
    const std::vector<std::uint8_t> bytes = repeated_rows(c, 1001, w);
    const QuantMatrix m{type_of(c), bytes.data(), 1001, c.cols};
    const std::vector<float> x = random_x(c.cols, 7);
    // 3 tokens run the row dots, 40 the dequantized panels and gemm.
    const attn::Matrix xs =
        Eigen::Map<const attn::Matrix>(random_x(3 * c.cols, 8).data(), 3, c.cols);
    const attn::Matrix xl =
        Eigen::Map<const attn::Matrix>(random_x(40 * c.cols, 9).data(), 40, c.cols);
    std::vector<float> y1(1001), y2(1001);
    attn::Matrix z1(3, 1001), z2(3, 1001), l1(40, 1001), l2(40, 1001);
    attn::set_engine_threads(1);
    attn::quant_matvec(isa, m, x.data(), y1.data());
    attn::quant_matmul(m, xs, z1);
    attn::quant_matmul(m, xl, l1);
    attn::set_engine_threads(2);
    attn::quant_matvec(isa, m, x.data(), y2.data());
    attn::quant_matmul(m, xs, z2);
    attn::quant_matmul(m, xl, l2);
    QVERIFY(std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(float)) == 0);
    QVERIFY(std::memcmp(z1.data(), z2.data(), static_cast<std::size_t>(z1.size()) * 4) == 0);
    QVERIFY(std::memcmp(l1.data(), l2.data(), static_cast<std::size_t>(l1.size()) * 4) == 0);
    QVERIFY(worst_relative_error(w, 1001, c.cols, x.data(), y1.data()) <= 1e-5);
}

void TestQuant::quantRowIsTheDequantizedRow() {
    for (const Case& c : quant_reference::kCases) {
        const QuantMatrix m{type_of(c), c.bytes, c.rows, c.cols};
        std::vector<float> got(static_cast<std::size_t>(c.cols));
        attn::quant_row(m, c.rows - 1, got.data());
        QVERIFY2(std::memcmp(got.data(), c.values + (c.rows - 1) * c.cols,
                             got.size() * sizeof(float)) == 0,
                 name_of(c));
        QVERIFY_THROWS_EXCEPTION(attn::AttentionError, attn::quant_row(m, c.rows, got.data()));
    }
}

void TestQuant::rowsNotFillingBlocksAreRejected() {
    std::vector<std::uint8_t> bytes(4096);
    std::vector<float> x(300), y(2);
    try {
        attn::quant_row_bytes(GgmlType::Q4_K, 300);
        QFAIL("a Q4_K row of 300 values was accepted");
    } catch (const attn::AttentionError& e) {
        const QString what = e.what();
        QVERIFY2(what.contains("300") && what.contains("Q4_K") && what.contains("multiple of 256"),
                 e.what());
    }
    QVERIFY_THROWS_EXCEPTION(
        attn::AttentionError,
        attn::quant_matvec(QuantMatrix{GgmlType::Q8_0, bytes.data(), 2, 33}, x.data(), y.data()));
    QVERIFY_THROWS_EXCEPTION(attn::AttentionError,
                             attn::dequantize_row(GgmlType::Q5_0, bytes.data(), x.data(), 48));
    const attn::Matrix xs = attn::Matrix::Zero(2, 100);
    attn::Matrix ys(2, 2);
    QVERIFY_THROWS_EXCEPTION(
        attn::AttentionError,
        attn::quant_matmul(QuantMatrix{GgmlType::Q6_K, bytes.data(), 2, 100}, xs, ys));
}

void TestQuant::uncomputedTypesAreRejected() {
    try {
        attn::quant_row_bytes(GgmlType::Q2_K, 256);
        QFAIL("Q2_K was accepted");
    } catch (const attn::AttentionError& e) {
        QVERIFY2(QString(e.what()).contains("Q2_K") && QString(e.what()).contains("Q4_K"),
                 e.what());
    }
}

void TestQuant::mismatchedShapesAreRejected() {
    std::vector<std::uint8_t> bytes(34 * 4);
    const QuantMatrix m{GgmlType::Q8_0, bytes.data(), 2, 64};
    attn::Matrix y(3, 2);
    QVERIFY_THROWS_EXCEPTION(attn::AttentionError,
                             attn::quant_matmul(m, attn::Matrix::Zero(3, 32), y));
    attn::Matrix y_wide(3, 3);
    QVERIFY_THROWS_EXCEPTION(attn::AttentionError,
                             attn::quant_matmul(m, attn::Matrix::Zero(3, 64), y_wide));
}

QTEST_APPLESS_MAIN(TestQuant)
#include "test_quant.moc"
