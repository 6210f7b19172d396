#include "attention_kernels.h"

// GCC 12's own AVX-512 reductions (_mm512_reduce_*, built on _mm512_undefined_*) trip these
// two warnings inside the compiler's header (GCC bug 105593), not in this file's code.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "matmul.h"

namespace attn::kernels {

namespace {

// ---- exp as Cephes' expf computes it: x = n·ln 2 + r, |r| <= ln2 / 2, a degree-6 polynomial
// in r, times 2^n; within 2 ulp of std::exp over the range that does not underflow. Inputs
// below -88.38 give about 1e-38 instead of a denormal or 0, as Eigen's vectorised exp does.
constexpr float kExpHi = 88.0f;  // keeps n <= 127, so 2^n is a normal float
constexpr float kExpLo = -88.3762626647949f;
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
constexpr float kP0 = 1.9875691500e-4f, kP1 = 1.3981999507e-3f, kP2 = 8.3334519073e-3f,
                kP3 = 4.1665795894e-2f, kP4 = 1.6666665459e-1f, kP5 = 5.0000001201e-1f;

// ---- AVX-512 -------------------------------------------------------------------------------
#define ATTN_AVX512 __attribute__((target("avx512f,fma")))

ATTN_AVX512 inline __m512 exp512(__m512 x) {
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(kExpLo)), _mm512_set1_ps(kExpHi));
    const __m512 n =
        _mm512_roundscale_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(kLog2e), _mm512_set1_ps(0.5f)),
                             _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
    __m512 y = _mm512_set1_ps(kP0);
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(kP1));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(kP2));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(kP3));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(kP4));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(kP5));
    y = _mm512_fmadd_ps(y, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    return _mm512_scalef_ps(y, n);
}

// A tile of R rows × 16·NV columns of c in registers while k is walked, starting from c
// (accumulate) or 0, plus the bias's columns when it is given.
template <std::size_t R, std::size_t NV>
ATTN_AVX512 void tile512(const float* a, Index lda, const float* b, Index ldb, float* c, Index ldc,
                         Index k, bool accumulate, const float* bias) {
    // Fully unrolled (-O2 does not unroll by itself), so the accumulators stay in registers.
    __m512 acc[R][NV];
#pragma GCC unroll 8
    for (std::size_t i = 0; i < R; ++i) {
        float* ci = c + static_cast<Index>(i) * ldc;
#pragma GCC unroll 4
        for (std::size_t j = 0; j < NV; ++j) {
            acc[i][j] =
                accumulate ? _mm512_loadu_ps(ci + static_cast<Index>(16 * j)) : _mm512_setzero_ps();
            if (bias != nullptr)
                acc[i][j] = _mm512_add_ps(acc[i][j], _mm512_loadu_ps(bias + 16 * j));
        }
    }
    for (Index p = 0; p < k; ++p) {
        const float* bp = b + p * ldb;
        __m512 bv[NV];
#pragma GCC unroll 4
        for (std::size_t j = 0; j < NV; ++j)
            bv[j] = _mm512_loadu_ps(bp + static_cast<Index>(16 * j));
#pragma GCC unroll 8
        for (std::size_t i = 0; i < R; ++i) {
            const __m512 av = _mm512_set1_ps(a[static_cast<Index>(i) * lda + p]);
#pragma GCC unroll 4
            for (std::size_t j = 0; j < NV; ++j) acc[i][j] = _mm512_fmadd_ps(av, bv[j], acc[i][j]);
        }
    }
#pragma GCC unroll 8
    for (std::size_t i = 0; i < R; ++i) {
        float* ci = c + static_cast<Index>(i) * ldc;
#pragma GCC unroll 4
        for (std::size_t j = 0; j < NV; ++j)
            _mm512_storeu_ps(ci + static_cast<Index>(16 * j), acc[i][j]);
    }
}

// The rows left over below the last full tile, in one tile of their own (each row of b loaded
// once for all of them): L rows when L = left, else fewer.
template <std::size_t L, std::size_t NV>
ATTN_AVX512 void leftover_rows512(const float* a, Index lda, const float* b, Index ldb, float* c,
                                  Index ldc, Index k, Index left, bool accumulate,
                                  const float* bias) {
    if constexpr (L > 0) {
        if (left == static_cast<Index>(L))
            tile512<L, NV>(a, lda, b, ldb, c, ldc, k, accumulate, bias);
        else
            leftover_rows512<L - 1, NV>(a, lda, b, ldb, c, ldc, k, left, accumulate, bias);
    }
}

// Columns [j0, j0 + 16·NV) of every row: tiles of R rows (R · NV accumulators, NV vectors of b
// and a broadcast of a within the 32 registers), then the rows left over.
template <std::size_t R, std::size_t NV>
ATTN_AVX512 void columns512(const float* a, Index lda, const float* b, Index ldb, float* c,
                            Index ldc, Index m, Index k, Index j0, bool accumulate,
                            const float* bias) {
    const float* bias_j = bias == nullptr ? nullptr : bias + j0;
    Index i = 0;
    for (; i + static_cast<Index>(R) <= m; i += static_cast<Index>(R))
        tile512<R, NV>(a + i * lda, lda, b + j0, ldb, c + i * ldc + j0, ldc, k, accumulate, bias_j);
    leftover_rows512<R - 1, NV>(a + i * lda, lda, b + j0, ldb, c + i * ldc + j0, ldc, k, m - i,
                                accumulate, bias_j);
}

ATTN_AVX512 void block_product512(const float* a, Index lda, const float* b, Index ldb, float* c,
                                  Index ldc, Index m, Index n, Index k, bool accumulate,
                                  const float* bias);

ATTN_AVX512 float row_max512(const float* p, Index n) {
    __m512 m = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    Index j = 0;
    for (; j + 16 <= n; j += 16) m = _mm512_max_ps(m, _mm512_loadu_ps(p + j));
    float best = _mm512_reduce_max_ps(m);
    for (; j < n; ++j) best = std::max(best, p[j]);
    return best;
}

ATTN_AVX512 float softmax_row_shift512(float* p, Index valid, Index n, float row_max) {
    const __m512 shift = _mm512_set1_ps(row_max);
    __m512 sum = _mm512_setzero_ps();
    Index j = 0;
    for (; j + 16 <= valid; j += 16) {
        const __m512 e = exp512(_mm512_sub_ps(_mm512_loadu_ps(p + j), shift));
        _mm512_storeu_ps(p + j, e);
        sum = _mm512_add_ps(sum, e);
    }
    if (j < valid) {
        const __mmask16 mask = static_cast<__mmask16>((1u << (valid - j)) - 1u);
        const __m512 e = exp512(_mm512_sub_ps(_mm512_maskz_loadu_ps(mask, p + j), shift));
        _mm512_mask_storeu_ps(p + j, mask, e);
        sum = _mm512_add_ps(sum, _mm512_maskz_mov_ps(mask, e));
    }
    std::fill(p + valid, p + n, 0.0f);
    return _mm512_reduce_add_ps(sum);
}

// ---- AVX2 + FMA ----------------------------------------------------------------------------
// The AVX-512 code above again with 8-float vectors: GCC cannot instantiate one template under two
// target attributes (the intrinsics only inline into a function of their own target), so each
// instruction set has its own copy, as ggml's kernels do.
#define ATTN_AVX2 __attribute__((target("avx2,fma")))

ATTN_AVX2 inline __m256 exp256(__m256 x) {
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(kExpLo)), _mm256_set1_ps(kExpHi));
    const __m256 n =
        _mm256_floor_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(kLog2e), _mm256_set1_ps(0.5f)));
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
    __m256 y = _mm256_set1_ps(kP0);
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(kP1));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(kP2));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(kP3));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(kP4));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(kP5));
    y = _mm256_fmadd_ps(y, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    // 2^n through the exponent bits; n is within [-127, 128] after the clamp.
    const __m256i e =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(y, _mm256_castsi256_ps(e));
}

template <std::size_t R, std::size_t NV>
ATTN_AVX2 void tile256(const float* a, Index lda, const float* b, Index ldb, float* c, Index ldc,
                       Index k, bool accumulate, const float* bias) {
    // Fully unrolled (-O2 does not unroll by itself), so the accumulators stay in registers.
    __m256 acc[R][NV];
#pragma GCC unroll 8
    for (std::size_t i = 0; i < R; ++i) {
        float* ci = c + static_cast<Index>(i) * ldc;
#pragma GCC unroll 4
        for (std::size_t j = 0; j < NV; ++j) {
            acc[i][j] =
                accumulate ? _mm256_loadu_ps(ci + static_cast<Index>(8 * j)) : _mm256_setzero_ps();
            if (bias != nullptr)
                acc[i][j] = _mm256_add_ps(acc[i][j], _mm256_loadu_ps(bias + 8 * j));
        }
    }
    for (Index p = 0; p < k; ++p) {
        const float* bp = b + p * ldb;
        __m256 bv[NV];
#pragma GCC unroll 4
        for (std::size_t j = 0; j < NV; ++j)
            bv[j] = _mm256_loadu_ps(bp + static_cast<Index>(8 * j));
#pragma GCC unroll 8
        for (std::size_t i = 0; i < R; ++i) {
            const __m256 av = _mm256_broadcast_ss(a + static_cast<Index>(i) * lda + p);
#pragma GCC unroll 4
            for (std::size_t j = 0; j < NV; ++j) acc[i][j] = _mm256_fmadd_ps(av, bv[j], acc[i][j]);
        }
    }
#pragma GCC unroll 8
    for (std::size_t i = 0; i < R; ++i) {
        float* ci = c + static_cast<Index>(i) * ldc;
#pragma GCC unroll 4
        for (std::size_t j = 0; j < NV; ++j)
            _mm256_storeu_ps(ci + static_cast<Index>(8 * j), acc[i][j]);
    }
}

// Tiles of 3 rows × 32 columns: 12 accumulators + 4 of b in the 16 registers.
template <std::size_t NV>
ATTN_AVX2 void columns256(const float* a, Index lda, const float* b, Index ldb, float* c, Index ldc,
                          Index m, Index k, Index j0, bool accumulate, const float* bias) {
    const float* bias_j = bias == nullptr ? nullptr : bias + j0;
    Index i = 0;
    for (; i + 3 <= m; i += 3)
        tile256<3, NV>(a + i * lda, lda, b + j0, ldb, c + i * ldc + j0, ldc, k, accumulate, bias_j);
    if (m - i == 2)
        tile256<2, NV>(a + i * lda, lda, b + j0, ldb, c + i * ldc + j0, ldc, k, accumulate, bias_j);
    else if (m - i == 1)
        tile256<1, NV>(a + i * lda, lda, b + j0, ldb, c + i * ldc + j0, ldc, k, accumulate, bias_j);
}

ATTN_AVX2 float row_max256(const float* p, Index n) {
    __m256 m = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
    Index j = 0;
    for (; j + 8 <= n; j += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(p + j));
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, m);
    float best = lanes[0];
    for (int l = 1; l < 8; ++l) best = std::max(best, lanes[l]);
    for (; j < n; ++j) best = std::max(best, p[j]);
    return best;
}

ATTN_AVX2 float softmax_row_shift256(float* p, Index valid, Index n, float row_max) {
    const __m256 shift = _mm256_set1_ps(row_max);
    __m256 sum = _mm256_setzero_ps();
    Index j = 0;
    for (; j + 8 <= valid; j += 8) {
        const __m256 e = exp256(_mm256_sub_ps(_mm256_loadu_ps(p + j), shift));
        _mm256_storeu_ps(p + j, e);
        sum = _mm256_add_ps(sum, e);
    }
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, sum);
    float total = 0.0f;
    for (int l = 0; l < 8; ++l) total += lanes[l];
    for (; j < valid; ++j) {
        p[j] = std::exp(p[j] - row_max);
        total += p[j];
    }
    std::fill(p + valid, p + n, 0.0f);
    return total;
}

// ---- portable (any x86-64, and the columns left over by the vector tiles) ------------------
void block_product_columns(const float* a, Index lda, const float* b, Index ldb, float* c,
                           Index ldc, Index m, Index k, Index j0, Index j1, bool accumulate,
                           const float* bias) {
    for (Index i = 0; i < m; ++i) {
        for (Index j = j0; j < j1; ++j) {
            float s = accumulate ? c[i * ldc + j] : 0.0f;
            if (bias != nullptr) s += bias[j];
            for (Index p = 0; p < k; ++p) s += a[i * lda + p] * b[p * ldb + j];
            c[i * ldc + j] = s;
        }
    }
}

ATTN_AVX512 void block_product512(const float* a, Index lda, const float* b, Index ldb, float* c,
                                  Index ldc, Index m, Index n, Index k, bool accumulate,
                                  const float* bias) {
    Index j = 0;
    // Tiles of 8 rows × 48 columns take three rows of b from the L2 cache per 24 multiply-adds,
    // where 6 × 64 take four: GPT-2 small's pass over 128 tokens ran 3-4 % faster (Zen 4). Only
    // with b's rows on 64-byte lines (a loaded model's weights are): otherwise every 48-column
    // row straddles four lines and 8 × 48 ran 6 % slower than 6 × 64. Widths that 64 divides and
    // 48 does not (the attention's blocks of 64 and 256 keys) keep 6 × 64, which leaves no
    // 16-column tail. The sums run in the same order either way.
    const bool b_aligned = reinterpret_cast<std::uintptr_t>(b) % 64 == 0 && ldb % 16 == 0;
    if (!b_aligned || (n % 64 == 0 && n % 48 != 0)) {
        for (; j + 64 <= n; j += 64)
            columns512<6, 4>(a, lda, b, ldb, c, ldc, m, k, j, accumulate, bias);
    } else {
        for (; j + 48 <= n; j += 48)
            columns512<8, 3>(a, lda, b, ldb, c, ldc, m, k, j, accumulate, bias);
    }
    for (; j + 16 <= n; j += 16)
        columns512<6, 1>(a, lda, b, ldb, c, ldc, m, k, j, accumulate, bias);
    block_product_columns(a, lda, b, ldb, c, ldc, m, k, j, n, accumulate, bias);
}

ATTN_AVX2 void block_product256(const float* a, Index lda, const float* b, Index ldb, float* c,
                                Index ldc, Index m, Index n, Index k, bool accumulate,
                                const float* bias) {
    Index j = 0;
    for (; j + 32 <= n; j += 32) columns256<4>(a, lda, b, ldb, c, ldc, m, k, j, accumulate, bias);
    for (; j + 8 <= n; j += 8) columns256<1>(a, lda, b, ldb, c, ldc, m, k, j, accumulate, bias);
    block_product_columns(a, lda, b, ldb, c, ldc, m, k, j, n, accumulate, bias);
}

// Without AVX2 the BLAS's own kernels for this CPU are the faster choice.
void block_product_portable(const float* a, Index lda, const float* b, Index ldb, float* c,
                            Index ldc, Index m, Index n, Index k, bool accumulate,
                            const float* bias) {
    using Strided = Eigen::OuterStride<>;
    const Eigen::Map<const Matrix, Eigen::Unaligned, Strided> am(a, m, k, Strided(lda));
    const Eigen::Map<const Matrix, Eigen::Unaligned, Strided> bm(b, k, n, Strided(ldb));
    Eigen::Map<Matrix, Eigen::Unaligned, Strided> cm(c, m, n, Strided(ldc));
    gemm(am, Op::None, bm, Op::None, cm, accumulate ? 1.0f : 0.0f, bias);
}

float row_max_portable(const float* p, Index n) {
    float best = -std::numeric_limits<float>::infinity();
    for (Index j = 0; j < n; ++j) best = std::max(best, p[j]);
    return best;
}

float softmax_row_shift_portable(float* p, Index valid, Index n, float row_max) {
    float total = 0.0f;
    for (Index j = 0; j < valid; ++j) {
        p[j] = std::exp(p[j] - row_max);
        total += p[j];
    }
    std::fill(p + valid, p + n, 0.0f);
    return total;
}

// ---- the choice, made once -----------------------------------------------------------------
struct Kernels {
    decltype(&block_product_portable) product = block_product_portable;
    decltype(&row_max_portable) max = row_max_portable;
    decltype(&softmax_row_shift_portable) shift = softmax_row_shift_portable;
    const char* isa = "portable";
};

Kernels choose() {
    Kernels k;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma")) {
        k = {block_product512, row_max512, softmax_row_shift512, "avx512"};
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        k = {block_product256, row_max256, softmax_row_shift256, "avx2"};
    }
    return k;
}

const Kernels& kernels() {
    static const Kernels k = choose();
    return k;
}

}  // namespace

void block_product(const float* a, Index lda, const float* b, Index ldb, float* c, Index ldc,
                   Index m, Index n, Index k, bool accumulate, const float* bias) {
    kernels().product(a, lda, b, ldb, c, ldc, m, n, k, accumulate, bias);
}

float row_max(const float* p, Index n) { return kernels().max(p, n); }

float softmax_row_shift(float* p, Index valid, Index n, float row_max) {
    return kernels().shift(p, valid, n, row_max);
}

std::string kernel_isa() { return kernels().isa; }

bool has_vector_kernels() { return kernels().product != block_product_portable; }

}  // namespace attn::kernels
