// The engine's matrix products: one entry point for every large product (projections, MLP,
// logits, the blocks of the fast attention path), run by the BLAS the build links. Debian's
// OpenBLAS picks its kernels for the CPU it runs on when the program starts, so one binary is
// fast on any x86-64 machine and runs on all of them.
#pragma once

#include <string>

#include "tensor.h"

namespace attn {

// A row-major float matrix or a block of one (rows contiguous, any row stride). Passing an
// expression that is not such a block (a .transpose(), a sum) would make Eigen copy it into a
// temporary: give the transpose as an Op instead.
using MatrixRef = Eigen::Ref<Matrix, 0, Eigen::OuterStride<>>;
using ConstMatrixRef = Eigen::Ref<const Matrix, 0, Eigen::OuterStride<>>;

enum class Op { None, Transpose };

// c = op(a) · op(b) + beta · c, plus `bias` (c's columns of floats, or null) on every row: a
// layer's projection in one pass over c, the bias added where each register tile starts. c must
// already have the product's shape (beta = 0 overwrites it, NaN included, as BLAS does). One row
// (a token while decoding) runs as a matrix-vector product.
void gemm(const ConstMatrixRef& a, Op op_a, const ConstMatrixRef& b, Op op_b, MatrixRef c,
          float beta = 0.0f, const float* bias = nullptr);
// op(a) · op(b) (+ bias on every row) as a new matrix.
Matrix matmul(const ConstMatrixRef& a, Op op_a, const ConstMatrixRef& b, Op op_b,
              const float* bias = nullptr);

// The threads the engine's products and parallel loops use: OpenMP's default (every core, or
// OMP_NUM_THREADS) until set_engine_threads(n), n >= 1, chooses a count for every thread of the
// process. use_engine_threads() applies it to the calling thread (OpenMP's count is per thread);
// gemm and the parallel loops call it, so a worker thread computes with the chosen count too.
int engine_threads();
void set_engine_threads(int n);
void use_engine_threads();
// The calling thread alone computes with n threads, whatever set_engine_threads chose (0: follow
// it again). Training's small products run fastest on one thread, and a training worker says so
// without changing the count the rest of the app computes with.
void set_thread_engine_threads(int n);
// The cores this machine offers, what a person waiting gets by default.
int available_cores();

// The BLAS the products run on and the kernels it chose for this CPU, e.g.
// "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Cooperlake MAX_THREADS=64 (core Cooperlake)".
std::string blas_description();

}  // namespace attn
