#include "matmul.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <sstream>
#include <thread>

#include "attention_kernels.h"
#include "module_checks.h"
#include "quant.h"

#ifdef _OPENMP
#include <omp.h>
#endif

// The CBLAS functions the engine calls, declared here rather than through a cblas.h, which
// Debian ships once per BLAS (alternatives) with different spellings of the same ABI.
extern "C" {
void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float* a, int lda,
                 const float* x, int inc_x, float beta, float* y, int inc_y);
// OpenBLAS's own; weak so that another BLAS links too.
__attribute__((weak)) char* openblas_get_config();
__attribute__((weak)) char* openblas_get_corename();
}

namespace attn {

namespace {

// The count set_engine_threads chose; 0 = OpenMP's default (every core, or OMP_NUM_THREADS).
// OpenMP keeps its count per thread, and the app computes on worker threads, so each product and
// parallel loop applies this one in whatever thread calls it (use_engine_threads).
std::atomic<int> g_threads{0};

constexpr int kRowMajor = 101;
constexpr int kNoTrans = 111;
constexpr int kTrans = 112;

int blas_int(Eigen::Index v, const char* what) {
    if (v > std::numeric_limits<int>::max()) {
        std::ostringstream msg;
        msg << "a matrix product's " << what << " of " << v
            << " exceeds what BLAS indexes (2^31 - 1): use smaller inputs";
        throw AttentionError(msg.str());
    }
    return static_cast<int>(v);
}

// c (m, n) = or += a (m, k) · b (k, n), b row-major as stored (the Conv1D layout of GPT-2's
// weights): the attention kernels' register tiles read b's rows in place, 96 columns at a time,
// where a general GEMM first copies b into its packed layout, a copy of every weight per call
// (the larger share of the work when a has few rows, as for a short prompt). Depth in chunks so
// a panel of b (kChunk × 96 floats) stays in the L2 cache while every row of a passes it.
// Threads take whole panels: each element of c is summed by one thread in one order.
void tiled_gemm(const float* a, Eigen::Index lda, const float* b, Eigen::Index ldb, float* c,
                Eigen::Index ldc, Eigen::Index m, Eigen::Index n, Eigen::Index k, bool accumulate,
                const float* bias) {
    constexpr Eigen::Index kPanel = 96, kChunk = 1024;
    const Eigen::Index panels = (n + kPanel - 1) / kPanel;
    const bool parallel =
        engine_threads() > 1 && panels > 1 && m * n * k >= (Eigen::Index{1} << 21);
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
    for (Eigen::Index panel = 0; panel < panels; ++panel) {
        const Eigen::Index j0 = panel * kPanel;
        const Eigen::Index cols = std::min(kPanel, n - j0);
        for (Eigen::Index k0 = 0; k0 < k; k0 += kChunk) {
            kernels::block_product(a + k0, lda, b + k0 * ldb + j0, ldb, c + j0, ldc, m, cols,
                                   std::min(kChunk, k - k0), accumulate || k0 > 0,
                                   k0 == 0 && bias != nullptr ? bias + j0 : nullptr);
        }
    }
}

}  // namespace

void gemm(const ConstMatrixRef& a, Op op_a, const ConstMatrixRef& b, Op op_b, MatrixRef c,
          float beta, const float* bias) {
    use_engine_threads();
    const bool ta = op_a == Op::Transpose;
    const bool tb = op_b == Op::Transpose;
    const Eigen::Index m = ta ? a.cols() : a.rows();
    const Eigen::Index k = ta ? a.rows() : a.cols();
    const Eigen::Index kb = tb ? b.cols() : b.rows();
    const Eigen::Index n = tb ? b.rows() : b.cols();
    if (k != kb || c.rows() != m || c.cols() != n) {
        std::ostringstream msg;
        msg << "matrix product of (" << m << ", " << k << ") by (" << kb << ", " << n << ") into ("
            << c.rows() << ", " << c.cols()
            << "): the inner sizes and the result's shape must agree";
        throw AttentionError(msg.str());
    }
    if (m == 0 || n == 0) return;
    // The paths that cannot add the bias inside the product add it after.
    const auto add_bias = [&] {
        if (bias != nullptr) c.rowwise() += Eigen::Map<const RowVector>(bias, n);
    };
    if (k == 0) {
        if (beta == 0.0f)
            c.setZero();
        else
            c *= beta;
        add_bias();
        return;
    }
    // BLAS wants a leading dimension >= the row length even for a single row.
    const int lda = blas_int(std::max<Eigen::Index>(a.outerStride(), a.cols()), "row stride");
    const int ldb = blas_int(std::max<Eigen::Index>(b.outerStride(), b.cols()), "row stride");
    const int ldc = blas_int(std::max<Eigen::Index>(c.outerStride(), c.cols()), "row stride");
    if (m == 1 && !ta && tb && beta == 0.0f && b.outerStride() == b.cols() &&
        kernels::has_vector_kernels()) {
        // One row against the rows of b (the output head's tied embedding, a Linear weight):
        // the float row dots of quant.h read b at 23 GB/s where OpenBLAS's sgemv read 16.5
        // (Zen 4, one thread, weights in 2 MB pages; GPT-2's head is 154 MB a token).
        quant_matvec(QuantMatrix{GgmlType::F32, b.data(), b.rows(), b.cols()}, a.data(), c.data());
        add_bias();
        return;
    }
    if (m == 1 && !ta) {
        // One row: y = x · op(b), i.e. op(b)ᵀ · x, a matrix-vector product that reads each
        // weight once (sgemm would pack the whole of b for a single row).
        cblas_sgemv(kRowMajor, tb ? kNoTrans : kTrans, blas_int(b.rows(), "row count"),
                    blas_int(b.cols(), "column count"), 1.0f, b.data(), ldb, a.data(), 1, beta,
                    c.data(), 1);
        add_bias();
        return;
    }
    if (!ta && !tb && (beta == 0.0f || beta == 1.0f) && kernels::has_vector_kernels()) {
        tiled_gemm(a.data(), lda, b.data(), ldb, c.data(), ldc, m, n, k, beta == 1.0f, bias);
        return;
    }
    cblas_sgemm(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, blas_int(m, "rows"),
                blas_int(n, "columns"), blas_int(k, "inner size"), 1.0f, a.data(), lda, b.data(),
                ldb, beta, c.data(), ldc);
    add_bias();
}

Matrix matmul(const ConstMatrixRef& a, Op op_a, const ConstMatrixRef& b, Op op_b,
              const float* bias) {
    Matrix c(op_a == Op::Transpose ? a.cols() : a.rows(),
             op_b == Op::Transpose ? b.rows() : b.cols());
    gemm(a, op_a, b, op_b, c, 0.0f, bias);
    return c;
}

namespace {

int default_threads() {
#ifdef _OPENMP
    // Read once, in the first thread to ask: later omp_set_num_threads calls do not change it.
    static const int n = omp_get_max_threads();
    return n;
#else
    return 1;  // no OpenMP: one thread whatever is set
#endif
}

}  // namespace

// A count for the calling thread alone (set_thread_engine_threads); 0 follows g_threads.
thread_local int t_threads = 0;

int engine_threads() {
    if (t_threads > 0) return t_threads;
    const int n = g_threads.load(std::memory_order_relaxed);
    return n > 0 ? n : default_threads();
}

void set_thread_engine_threads(int n) {
    t_threads = std::max(0, n);
    use_engine_threads();
}

void use_engine_threads() {
#ifdef _OPENMP
    const int n = engine_threads();
    if (!omp_in_parallel() && omp_get_max_threads() != n) omp_set_num_threads(n);
#endif
}

void set_engine_threads(int n) {
    if (n < 1) {
        std::ostringstream msg;
        msg << "threads = " << n << " is not a thread count: give at least 1";
        throw AttentionError(msg.str());
    }
    default_threads();  // fixed before the first change
    g_threads.store(n, std::memory_order_relaxed);
    use_engine_threads();
}

int available_cores() {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
}

std::string blas_description() {
    if (openblas_get_config == nullptr) return "a BLAS (not OpenBLAS)";
    std::string s = openblas_get_config();
    if (openblas_get_corename != nullptr)
        s += std::string(" (core ") + openblas_get_corename() + ")";
    return s;
}

}  // namespace attn
