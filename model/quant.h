// Weights in llama.cpp's block formats (ggml_types.h), used where they lie: a GGUF file stays
// mapped and quantized, and each product reads its blocks directly. Activations stay float (where
// llama.cpp rounds them to 8 bits): every result equals (the dequantized weight) · x to float
// precision, and dequantize_row gives ggml's own floats bit for bit.
//
// Shapes: a weight is (rows, cols) = (d_out, d_in), as nn.Linear stores it, row r at
// data + r · quant_row_bytes(type, cols); x is (T, cols), y = x · Wᵀ is (T, rows).
//
// The kernels are chosen once for the CPU the program runs on (AVX-512, AVX2 + FMA + F16C, or
// portable C++), as model/attention_kernels.h chooses its own: one binary for any x86-64.
#pragma once

#include <cstddef>
#include <string>

#include "ggml_types.h"
#include "matmul.h"
#include "tensor.h"

namespace attn {

// A quantized (or F32/F16/BF16) weight matrix in place: nothing is copied.
struct QuantMatrix {
    GgmlType type = GgmlType::F32;
    const void* data = nullptr;
    Eigen::Index rows = 0;
    Eigen::Index cols = 0;
};

// The bytes one row of n values takes. Throws AttentionError for a type the engine does not
// compute (ggml_type_computed) or n not a multiple of the type's block size.
std::size_t quant_row_bytes(GgmlType type, Eigen::Index n);

// dst[0, n) = the n values stored at src, exactly as ggml's dequantize_row_* computes them.
void dequantize_row(GgmlType type, const void* src, float* dst, Eigen::Index n);

// One row of w as floats (an embedding lookup): dst[0, w.cols) = W[r, :].
void quant_row(const QuantMatrix& w, Eigen::Index r, float* dst);

// y[r] = Σ_c W[r, c] · x[c] for r in [0, w.rows): x has w.cols floats, y w.rows. One token's
// product, reading each weight byte once; rows split over engine_threads(), each row summed by
// one thread in one order, so any thread count gives the same bits.
void quant_matvec(const QuantMatrix& w, const float* x, float* y);

// y (T, rows) = x (T, cols) · Wᵀ for a prompt's T tokens. Up to 32 tokens, quant_matvec's dots
// for every token while each weight row sits in the L1 cache (row t of y = quant_matvec of row t
// of x, bit for bit); more tokens dequantize panels of 64 rows into each thread's float scratch
// and multiply them with gemm, so no float copy of the whole weight exists at once.
void quant_matmul(const QuantMatrix& w, ConstMatrixRef x, MatrixRef y);

// The kernel versions, for tests and benchmarks: the one chosen for this CPU, whether this CPU
// runs a given one, and the entry points above run with a given version.
enum class QuantIsa { Portable, Avx2, Avx512 };
QuantIsa quant_isa();
bool quant_isa_supported(QuantIsa isa);
std::string quant_isa_name(QuantIsa isa);  // "portable", "avx2", "avx512"
void dequantize_row(QuantIsa isa, GgmlType type, const void* src, float* dst, Eigen::Index n);
void quant_matvec(QuantIsa isa, const QuantMatrix& w, const float* x, float* y);

}  // namespace attn
