// Eigen's SGEMM compiled for this machine's CPU (-march=native), the rate Eigen reaches at its
// best, for attention-bench's comparison of the products on offer. A shared library of its own
// with hidden symbols: its Eigen templates, built for another instruction set than the engine's,
// cannot replace the engine's copies at link time.
#include <Eigen/Core>

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// c (m, n) = a (m, k) · b (k, n), row-major, on `threads` threads.
extern "C" __attribute__((visibility("default"))) void eigen_native_sgemm(int m, int n, int k,
                                                                          const float* a,
                                                                          const float* b, float* c,
                                                                          int threads) {
    Eigen::setNbThreads(threads);
    Eigen::Map<const RowMajor> ma(a, m, k);
    Eigen::Map<const RowMajor> mb(b, k, n);
    Eigen::Map<RowMajor> mc(c, m, n);
    mc.noalias() = ma * mb;
}
