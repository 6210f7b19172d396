// The inner loops of the fast attention path, written for the vector units of the CPU the program
// runs on: AVX-512 or AVX2 + FMA versions compiled beside a portable one, the best the CPU has
// chosen once at start-up (__builtin_cpu_supports). Nothing here needs the build machine's CPU,
// so one binary runs on any x86-64 processor.
//
// Row-major operands with leading dimensions (elements between rows):
//   block_product     c (m, n) = a (m, k) · b (k, n), or c += it; plus bias (n) on every row
//                     when given, added where the tile starts, so c is written once
//   softmax_row_shift p[0, valid) = exp(p - row_max), p[valid, n) = 0; returns Σ p
// block_product reads a in place and keeps a tile of c in registers while it walks k: for the
// attention blocks (k = head_dim = 64 or a key block of 256) this avoids the packing copies a
// general GEMM makes, a quarter of the work at these sizes.
#pragma once

#include <Eigen/Core>
#include <string>

namespace attn::kernels {

using Index = Eigen::Index;

void block_product(const float* a, Index lda, const float* b, Index ldb, float* c, Index ldc,
                   Index m, Index n, Index k, bool accumulate, const float* bias = nullptr);

// Largest of p[0, n); -inf for n = 0.
float row_max(const float* p, Index n);

float softmax_row_shift(float* p, Index valid, Index n, float row_max);

// Which version runs here: "avx512", "avx2" or "portable"; has_vector_kernels() unless portable
// (whose block_product is the BLAS's).
std::string kernel_isa();
bool has_vector_kernels();

}  // namespace attn::kernels
