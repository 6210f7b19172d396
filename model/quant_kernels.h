// The row kernels behind model/quant.h, one set per instruction set. A row is `blocks` blocks of
// the type (ggml_types.h; a float type's block is one value); every block is whole.
//   dequantize  dst[0, blocks · block_size) = the row's values, bit for bit as ggml's reference
//   dot         Σ_c W[c] · x[c] over the row, in float
//   prepare     when not null: x rearranged once per product for dot, which then reads the
//               prepared floats (prepared_per_block per block) instead of x
// The vector versions dequantize exactly as the reference does (the products of scales and
// quants are exact in float; the one rounding of "d · q - m" is an FMA's). Their dots either sum
// those weights times x in several float accumulators, or fold a block's scales out of the sum
// (d · Σ q · x - m · Σ x): the same value to float precision, not bit for bit.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <cstring>

#include "ggml_types.h"

namespace attn::quant_kernels {

using Index = Eigen::Index;
using DequantizeFn = void (*)(const std::uint8_t* row, float* dst, Index blocks);
using DotFn = float (*)(const std::uint8_t* row, const float* x, Index blocks);
using PrepareFn = void (*)(const float* x, Index blocks, float* prepared);

struct RowKernels {
    DequantizeFn dequantize = nullptr;
    DotFn dot = nullptr;
    PrepareFn prepare = nullptr;
    Index prepared_per_block = 0;
};

// Null members where the version has no kernel for the type.
RowKernels portable_kernels(GgmlType type);
RowKernels avx2_kernels(GgmlType type);
RowKernels avx512_kernels(GgmlType type);

// IEEE half to float, exact (subnormals included).
float half_to_float(std::uint16_t h);

inline std::uint16_t load_u16(const std::uint8_t* p) {
    std::uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

inline std::uint32_t load_u32(const std::uint8_t* p) {
    std::uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// ggml's get_scale_min_k4: the 6-bit scale and min of sub-block j (0..7) of a Q4_K / Q5_K block
// from its 12 packed bytes.
inline void scale_min_k4(int j, const std::uint8_t* q, int& scale, int& min) {
    if (j < 4) {
        scale = q[j] & 63;
        min = q[j + 4] & 63;
    } else {
        scale = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
        min = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

}  // namespace attn::quant_kernels
