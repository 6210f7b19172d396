// The AVX-512 row kernels (quant_kernels.h). Each block type is one function producing the
// block's weights 16 at a time in vector registers, exactly as ggml's reference computes them;
// a "sink" then either stores them (dequantize) or multiplies them into accumulators (the dot
// of Q4_0..Q5_1). 4- and 5-bit values become floats through a table lookup: the 16 (or 32)
// possible weights of a sub-block, d · q - m for every q, are computed once per sub-block with
// one FMA, and each weight is then one permute of that table by its nibble (permutexvar reads
// only an index's low 4 bits, so a nibble needs no masking). The dots of the K types and Q8_0,
// the formats of most model files, fold the scales instead (further down): fewer operations per
// weight, and fewer 512-bit permutes, the slowest operations on Zen 4.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "quant_kernels.h"

namespace attn::quant_kernels {

namespace {

using std::uint8_t;

#define QUANT_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma,f16c")))
#define QUANT_AVX512_INLINE \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma,f16c"), always_inline)) inline

QUANT_AVX512_INLINE float half512(const uint8_t* p) { return _cvtsh_ss(load_u16(p)); }

QUANT_AVX512_INLINE __m512i bytes_to_i32(const uint8_t* p) {
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

QUANT_AVX512_INLINE __m512i sbytes_to_i32(const uint8_t* p) {
    return _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

QUANT_AVX512_INLINE __m512 iota512(float first) {
    return _mm512_add_ps(_mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm512_set1_ps(first));
}

// A block's bytes kPrefetchAhead further on, asked into the L2 cache while this block is summed.
// The hardware prefetcher alone falls behind a loop this busy (it stops at each 4 KB page, and
// the out-of-order window reaches only a block or two ahead). Measured on Zen 4, one thread,
// 4096 × 4096 out of cache: none 7.3 GB/s (Q4_K), 2 KB into L1 9.4; for Q8_0 2 KB into L1
// 10-12, 4-8 KB into L2 13-13.5, 6 KB best overall. With the weights in 2 MB pages, Q8_0's dot
// (the fastest per byte) gains from 12 KB: 18.0-18.3 -> 19.3-19.8 GB/s, where Q4_K loses
// (11.9 -> 10.3-11.1) and Q6_K does not gain.
constexpr Index kPrefetchAhead = 6144;

template <int kBytes, Index kAhead = kPrefetchAhead>
QUANT_AVX512_INLINE void prefetch_ahead(const uint8_t* p) {
#pragma GCC unroll 4
    for (int at = 0; at < kBytes; at += 64)
        _mm_prefetch(reinterpret_cast<const char*>(p + kAhead + at), _MM_HINT_T1);
}

// Bits 0-3 of every byte from a, bits 4-7 from b: a ternary-logic select with the mask 0x0F in
// each byte (for 32-bit lanes, bits 0-3 from a and bit 4 from b, what a 5-bit index reads).
QUANT_AVX512_INLINE __m512i low_nibble_over(__m512i a, __m512i b) {
    return _mm512_ternarylogic_epi32(a, b, _mm512_set1_epi8(0x0F), 0xE4);
}

// ---- sinks -----------------------------------------------------------------------------------
// Four accumulators, so consecutive FMAs do not wait on each other.
struct Dot512 {
    const float* x;
    __m512 acc[4];
    QUANT_AVX512_INLINE void start() {
        for (__m512& a : acc) a = _mm512_setzero_ps();
    }
    QUANT_AVX512_INLINE void put(int slot, __m512 w, Index col) {
        acc[slot] = _mm512_fmadd_ps(w, _mm512_loadu_ps(x + col), acc[slot]);
    }
    QUANT_AVX512_INLINE float total() const {
        return _mm512_reduce_add_ps(
            _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
    }
};

struct Store512 {
    float* dst;
    QUANT_AVX512_INLINE void put(int, __m512 w, Index col) { _mm512_storeu_ps(dst + col, w); }
};

// ---- blocks: weights of block b (its bytes at p) for columns [col, col + block size) --------
struct Q4_0 {
    static constexpr int kValues = 32, kBytes = 18;
    template <class Sink>
    QUANT_AVX512_INLINE static void block(const uint8_t* p, Index col, Sink& s, int slot) {
        // d · (q - 8): both factors exact, so is the product
        const __m512 table = _mm512_mul_ps(_mm512_set1_ps(half512(p)), iota512(-8.0f));
        const __m512i q = bytes_to_i32(p + 2);
        s.put(slot, _mm512_permutexvar_ps(q, table), col);
        s.put(slot + 1, _mm512_permutexvar_ps(_mm512_srli_epi32(q, 4), table), col + 16);
    }
};

struct Q4_1 {
    static constexpr int kValues = 32, kBytes = 20;
    template <class Sink>
    QUANT_AVX512_INLINE static void block(const uint8_t* p, Index col, Sink& s, int slot) {
        // q · d + m with q · d exact: the FMA rounds once, as the reference's add does
        const __m512 table = _mm512_fmadd_ps(iota512(0.0f), _mm512_set1_ps(half512(p)),
                                             _mm512_set1_ps(half512(p + 2)));
        const __m512i q = bytes_to_i32(p + 4);
        s.put(slot, _mm512_permutexvar_ps(q, table), col);
        s.put(slot + 1, _mm512_permutexvar_ps(_mm512_srli_epi32(q, 4), table), col + 16);
    }
};

// The fifth bit of value e (bit e of qh) rotated to bit 4 of lane e: rotate left by 4 - e.
QUANT_AVX512_INLINE __m512i q5_rotation(int first) {
    const __m512i e =
        _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm512_set1_epi32(first));
    return _mm512_and_si512(_mm512_sub_epi32(_mm512_set1_epi32(36), e), _mm512_set1_epi32(31));
}

// Q5_0 and Q5_1: 32-entry tables (lo: q = 0..15, hi: q = 16..31), permutex2var on 5-bit indices.
template <class Sink>
QUANT_AVX512_INLINE void q5_block(const uint8_t* qs, std::uint32_t qh, __m512 lo, __m512 hi,
                                  Index col, Sink& s, int slot) {
    const __m512i q = bytes_to_i32(qs);
    const __m512i h = _mm512_set1_epi32(static_cast<int>(qh));
    const __m512i i0 = low_nibble_over(q, _mm512_rolv_epi32(h, q5_rotation(0)));
    const __m512i i1 =
        low_nibble_over(_mm512_srli_epi32(q, 4), _mm512_rolv_epi32(h, q5_rotation(16)));
    s.put(slot, _mm512_permutex2var_ps(lo, i0, hi), col);
    s.put(slot + 1, _mm512_permutex2var_ps(lo, i1, hi), col + 16);
}

struct Q5_0 {
    static constexpr int kValues = 32, kBytes = 22;
    template <class Sink>
    QUANT_AVX512_INLINE static void block(const uint8_t* p, Index col, Sink& s, int slot) {
        const __m512 d = _mm512_set1_ps(half512(p));
        q5_block(p + 6, load_u32(p + 2), _mm512_mul_ps(d, iota512(-16.0f)),
                 _mm512_mul_ps(d, iota512(0.0f)), col, s, slot);
    }
};

struct Q5_1 {
    static constexpr int kValues = 32, kBytes = 24;
    template <class Sink>
    QUANT_AVX512_INLINE static void block(const uint8_t* p, Index col, Sink& s, int slot) {
        const __m512 d = _mm512_set1_ps(half512(p)), m = _mm512_set1_ps(half512(p + 2));
        q5_block(p + 8, load_u32(p + 4), _mm512_fmadd_ps(iota512(0.0f), d, m),
                 _mm512_fmadd_ps(iota512(16.0f), d, m), col, s, slot);
    }
};

struct Q8_0 {
    static constexpr int kValues = 32, kBytes = 34;
    template <class Sink>
    QUANT_AVX512_INLINE static void block(const uint8_t* p, Index col, Sink& s, int slot) {
        const __m512 d = _mm512_set1_ps(half512(p));
        s.put(slot, _mm512_mul_ps(_mm512_cvtepi32_ps(sbytes_to_i32(p + 2)), d), col);
        s.put(slot + 1, _mm512_mul_ps(_mm512_cvtepi32_ps(sbytes_to_i32(p + 18)), d), col + 16);
    }
};

// The eight d · scale and dmin · min of a Q4_K / Q5_K block, exact products: the 6-bit fields
// unpacked with ggml's masks (scales to bytes 0-7, mins to bytes 8-15), then widened at once.
// Lanes 0-7 = d · scale, 8-15 = dmin · min of the eight sub-blocks, exact products.
QUANT_AVX512_INLINE __m512 k_scales(const uint8_t* p) {
    // d, dmin and the 12 bytes of fields in one 16-byte load; fields q0, q1, q2 = dwords 1-3
    const __m128i all = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i a = _mm_shuffle_epi32(all, _MM_SHUFFLE(3, 2, 3, 1));  // q0 q2 q1 q2
    const __m128i b = _mm_shuffle_epi32(all, _MM_SHUFFLE(2, 2, 1, 1));  // q0 q0 q1 q1
    // scales 0-3, 4-7, mins 0-3, 4-7: low 6 bits, or low (high) nibble plus 2 bits from q0 (q1)
    const __m128i low =
        _mm_and_si128(_mm_srlv_epi32(a, _mm_setr_epi32(0, 0, 0, 4)),
                      _mm_setr_epi32(0x3F3F3F3F, 0x0F0F0F0F, 0x3F3F3F3F, 0x0F0F0F0F));
    const __m128i high =
        _mm_and_si128(_mm_srli_epi32(b, 2), _mm_setr_epi32(0, 0x30303030, 0, 0x30303030));
    const __m512 fields = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_or_si128(low, high)));
    const __m512 factors =
        _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1),
                              _mm512_castps128_ps512(_mm_cvtph_ps(all)));  // d, dmin
    return _mm512_mul_ps(fields, factors);
}

// The same as 16 floats in memory: [0, 8) scales, [8, 16) mins.
QUANT_AVX512_INLINE void k_scales(const uint8_t* p, float* scales_mins) {
    _mm512_store_ps(scales_mins, k_scales(p));
}

struct Q4_K {
    static constexpr int kValues = 256, kBytes = 144;
    template <class Sink>
    QUANT_AVX512_INLINE static void block(const uint8_t* p, Index col, Sink& s, int) {
        alignas(64) float d_scale[16];
        k_scales(p, d_scale);
        const float* d_min = d_scale + 8;
        const __m512 iota = iota512(0.0f);
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
            const uint8_t* q = p + 16 + 32 * j;
            // d1 · q - m1 with d1 · q exact: one rounding, as the reference's subtraction
            const __m512 t0 =
                _mm512_fmsub_ps(iota, _mm512_set1_ps(d_scale[2 * j]), _mm512_set1_ps(d_min[2 * j]));
            const __m512 t1 = _mm512_fmsub_ps(iota, _mm512_set1_ps(d_scale[2 * j + 1]),
                                              _mm512_set1_ps(d_min[2 * j + 1]));
            const __m512i a = bytes_to_i32(q), b = bytes_to_i32(q + 16);
            const Index c = col + 64 * j;
            s.put(0, _mm512_permutexvar_ps(a, t0), c);
            s.put(1, _mm512_permutexvar_ps(b, t0), c + 16);
            s.put(2, _mm512_permutexvar_ps(_mm512_srli_epi32(a, 4), t1), c + 32);
            s.put(3, _mm512_permutexvar_ps(_mm512_srli_epi32(b, 4), t1), c + 48);
        }
    }
};

struct Q5_K {
    static constexpr int kValues = 256, kBytes = 176;
    template <class Sink>
    QUANT_AVX512_INLINE static void block(const uint8_t* p, Index col, Sink& s, int) {
        alignas(64) float d_scale[16];
        k_scales(p, d_scale);
        const float* d_min = d_scale + 8;
        const __m512 iota = iota512(0.0f), iota16 = iota512(16.0f);
        // qh[l]'s bit 2j (2j + 1) is the fifth bit of value l of sub-block 2j (2j + 1).
        __m512i h0 = bytes_to_i32(p + 16), h1 = bytes_to_i32(p + 32);
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
            const uint8_t* q = p + 48 + 32 * j;
            const __m512 ds0 = _mm512_set1_ps(d_scale[2 * j]), dm0 = _mm512_set1_ps(d_min[2 * j]);
            const __m512 ds1 = _mm512_set1_ps(d_scale[2 * j + 1]);
            const __m512 dm1 = _mm512_set1_ps(d_min[2 * j + 1]);
            const __m512 lo0 = _mm512_fmsub_ps(iota, ds0, dm0);
            const __m512 hi0 = _mm512_fmsub_ps(iota16, ds0, dm0);
            const __m512 lo1 = _mm512_fmsub_ps(iota, ds1, dm1);
            const __m512 hi1 = _mm512_fmsub_ps(iota16, ds1, dm1);
            const __m512i a = bytes_to_i32(q), b = bytes_to_i32(q + 16);
            const Index c = col + 64 * j;
            // bit 0 of h to bit 4 for the low nibbles, bit 1 to bit 4 for the high ones
            const __m512i ia = low_nibble_over(a, _mm512_slli_epi32(h0, 4));
            const __m512i ib = low_nibble_over(b, _mm512_slli_epi32(h1, 4));
            const __m512i ja = low_nibble_over(_mm512_srli_epi32(a, 4), _mm512_slli_epi32(h0, 3));
            const __m512i jb = low_nibble_over(_mm512_srli_epi32(b, 4), _mm512_slli_epi32(h1, 3));
            s.put(0, _mm512_permutex2var_ps(lo0, ia, hi0), c);
            s.put(1, _mm512_permutex2var_ps(lo0, ib, hi0), c + 16);
            s.put(2, _mm512_permutex2var_ps(lo1, ja, hi1), c + 32);
            s.put(3, _mm512_permutex2var_ps(lo1, jb, hi1), c + 48);
            h0 = _mm512_srli_epi32(h0, 2);
            h1 = _mm512_srli_epi32(h1, 2);
        }
    }
};

// Q6_K: the 6-bit values are assembled 64 at a time with byte operations into q - 32 (int8),
// then each group of 16 becomes floats times its exact scale d · sc.
struct Q6_K {
    static constexpr int kValues = 256, kBytes = 210;
    template <class Sink>
    QUANT_AVX512_INLINE static void block(const uint8_t* p, Index col, Sink& s, int) {
        alignas(64) std::int8_t q[256];
        alignas(64) float ds[16];
        const __m512 d = _mm512_set1_ps(half512(p + 208));
        _mm512_store_ps(ds, _mm512_mul_ps(d, _mm512_cvtepi32_ps(sbytes_to_i32(p + 192))));
        const __m512i mask6 = _mm512_set1_epi8(0x3F), bias = _mm512_set1_epi8(32);
        // Per 16-bit lane: shift qh left by 4 in the low 32 bytes, by 2 in the high 32 bytes
        // (bits 0-1 and 2-3 to bits 4-5), right by 0 and 2 for bits 4-5 and 6-7.
        const __m512i up = _mm512_inserti64x4(_mm512_set1_epi16(4), _mm256_set1_epi16(2), 1);
        const __m512i down = _mm512_inserti64x4(_mm512_set1_epi16(0), _mm256_set1_epi16(2), 1);
        for (int n = 0; n < 2; ++n) {
            const __m512i ql = _mm512_loadu_si512(p + 64 * n);
            const __m512i qh = _mm512_broadcast_i64x4(
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 128 + 32 * n)));
            const __m512i v0 =
                _mm512_and_si512(low_nibble_over(ql, _mm512_sllv_epi16(qh, up)), mask6);
            const __m512i v1 = _mm512_and_si512(
                low_nibble_over(_mm512_srli_epi16(ql, 4), _mm512_srlv_epi16(qh, down)), mask6);
            _mm512_store_si512(q + 128 * n, _mm512_sub_epi8(v0, bias));
            _mm512_store_si512(q + 128 * n + 64, _mm512_sub_epi8(v1, bias));
        }
#pragma GCC unroll 16
        for (int g = 0; g < 16; ++g) {
            const __m512 v =
                _mm512_cvtepi32_ps(sbytes_to_i32(reinterpret_cast<const uint8_t*>(q + 16 * g)));
            s.put(g & 3, _mm512_mul_ps(v, _mm512_set1_ps(ds[g])), col + 16 * g);
        }
    }
};

// ---- rows ------------------------------------------------------------------------------------
// Blocks of 32 in pairs, so the two blocks' weights go to four accumulators.
template <class T>
QUANT_AVX512 float dot512(const uint8_t* row, const float* x, Index blocks) {
    Dot512 s{x, {}};
    s.start();
    Index i = 0;
    if constexpr (T::kValues == 32) {
        for (; i + 2 <= blocks; i += 2) {
            prefetch_ahead<2 * T::kBytes>(row + i * T::kBytes);
            T::block(row + i * T::kBytes, i * 32, s, 0);
            T::block(row + (i + 1) * T::kBytes, (i + 1) * 32, s, 2);
        }
    }
    for (; i < blocks; ++i) {
        prefetch_ahead<T::kBytes>(row + i * T::kBytes);
        T::block(row + i * T::kBytes, i * T::kValues, s, 0);
    }
    return s.total();
}

template <class T>
QUANT_AVX512 void dequantize512(const uint8_t* row, float* dst, Index blocks) {
    Store512 s{dst};
    for (Index i = 0; i < blocks; ++i) T::block(row + i * T::kBytes, i * T::kValues, s, 0);
}

// ---- K types folded: Σ w · x = Σ over sub-blocks of d1 · Σ q · x - m1 · Σ x ----------------
// These dots read the quants as 32-bit words, four bytes to a lane, and take byte k's value out
// with one AND: (word & mask << 8k) is q · 2^8k, a float exactly after an unsigned conversion,
// so prepare stores x in the order the words give, scaled by 2^-8k, with the sub-blocks' Σ x
// after it (the min or offset terms, once per sub-block). Zen 4's 512-bit permutes run at a
// fraction of its other operations' rate, so the loops use few: Q4_K's low nibbles go through
// the 16-entry table (half the nibbles each way measured fastest), nothing else does. An
// activation below 2^-98 loses bits to the scaling (it becomes subnormal).
//
// Word order, per 256-value block: 16 vectors of 16 lanes; vector 8u + 2k + h (Q4_K, Q5_K) or
// 8n + 4v + k (Q6_K) lane i reads the value named below.
constexpr Index kKPrepared = 272;  // 256 activations in word order, then up to 16 group sums

// Q4_K / Q5_K: 64-byte word u holds chunks 2u (lanes 0-7) and 2u + 1 (lanes 8-15) of 32 bytes;
// nibble h of byte k of lane i is value 64 · chunk + 32h + 4 · (i % 8) + k. Q4_K's high nibbles
// (h = 1) are taken at bit 8k + 4 and scaled so; Q5_K's 5-bit values are assembled in bytes.
template <bool kQ4K>
void prepare_k_words(const float* x, Index blocks, float* out) {
    for (Index b = 0; b < blocks; ++b, x += 256, out += kKPrepared) {
        for (int u = 0; u < 2; ++u)
            for (int k = 0; k < 4; ++k)
                for (int h = 0; h < 2; ++h) {
                    const int shift = kQ4K ? (h == 0 ? 0 : 8 * k + 4) : 8 * k;
                    const float scale = std::ldexp(1.0f, -shift);
                    float* o = out + 16 * (8 * u + 2 * k + h);
                    for (int i = 0; i < 16; ++i)
                        o[i] = x[128 * u + 64 * (i / 8) + 32 * h + 4 * (i % 8) + k] * scale;
                }
        for (int sub = 0; sub < 8; ++sub) {
            float sum = 0.0f;
            for (int l = 0; l < 32; ++l) sum += x[32 * sub + l];
            out[256 + sub] = sum;
        }
    }
}

QUANT_AVX512_INLINE float reduce256(__m256 m) {
    __m128 v = _mm_add_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    v = _mm_add_ps(v, _mm_movehl_ps(v, v));
    v = _mm_add_ss(v, _mm_movehdup_ps(v));
    return _mm_cvtss_f32(v);
}

// Σ over k of value(k) · x[16k, 16k + 16): value(k) = (v & mask << 8k) as a float.
QUANT_AVX512_INLINE __m512 word_dot(__m512i v, const __m512i* masks, const float* x, int step) {
    __m512 p = _mm512_mul_ps(_mm512_cvtepu32_ps(_mm512_and_si512(v, masks[0])), _mm512_loadu_ps(x));
#pragma GCC unroll 3
    for (int k = 1; k < 4; ++k)
        p = _mm512_fmadd_ps(_mm512_cvtepu32_ps(_mm512_and_si512(v, masks[k])),
                            _mm512_loadu_ps(x + step * k), p);
    return p;
}

QUANT_AVX512_INLINE void masks_of(std::uint32_t mask, int first_shift, __m512i* masks) {
    for (int k = 0; k < 4; ++k)
        masks[k] = _mm512_set1_epi32(static_cast<int>(mask << (first_shift + 8 * k)));
}

// The sub-block scale of each lane of word u, half h: lanes 0-7 sub-block 4u + h, 8-15 4u + 2 + h.
QUANT_AVX512_INLINE __m512 k_lane_scales(__m512 sm, int u, int h) {
    const __m512i lo = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2);
    return _mm512_permutexvar_ps(_mm512_add_epi32(lo, _mm512_set1_epi32(4 * u + h)), sm);
}

QUANT_AVX512 float dot_q4_k512(const uint8_t* row, const float* xp, Index blocks) {
    __m512i high[4];
    masks_of(0xF, 4, high);
    const __m512 iota = iota512(0.0f);
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    __m256 acc_min = _mm256_setzero_ps();
    for (Index b = 0; b < blocks; ++b, row += 144, xp += kKPrepared) {
        prefetch_ahead<144>(row);
        const __m512 sm = k_scales(row);
#pragma GCC unroll 2
        for (int u = 0; u < 2; ++u) {
            const __m512i v = _mm512_loadu_si512(row + 16 + 64 * u);
            const float* x = xp + 128 * u;
            __m512 p0 = _mm512_mul_ps(_mm512_permutexvar_ps(v, iota), _mm512_loadu_ps(x));
#pragma GCC unroll 3
            for (int k = 1; k < 4; ++k)
                p0 = _mm512_fmadd_ps(_mm512_permutexvar_ps(
                                         _mm512_srli_epi32(v, 8u * static_cast<unsigned>(k)), iota),
                                     _mm512_loadu_ps(x + 32 * k), p0);
            const __m512 p1 = word_dot(v, high, x + 16, 32);
            acc0 = _mm512_fmadd_ps(p0, k_lane_scales(sm, u, 0), acc0);
            acc1 = _mm512_fmadd_ps(p1, k_lane_scales(sm, u, 1), acc1);
        }
        acc_min =
            _mm256_fmadd_ps(_mm512_extractf32x8_ps(sm, 1), _mm256_loadu_ps(xp + 256), acc_min);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1)) - reduce256(acc_min);
}

// Q5_K: the fifth bit of value l of sub-block 2c + h is bit 2c + h of qh[l]; qh's 32 bytes sit in
// both halves of a register, and per 16-bit lane a shift brings the bit for the half's chunk to
// bit 4 (left by 4 - j for j <= 4, right by j - 4 above).
QUANT_AVX512 float dot_q5_k512(const uint8_t* row, const float* xp, Index blocks) {
    __m512i masks[4];
    masks_of(0x1F, 0, masks);
    const __m512i nibble = _mm512_set1_epi8(0x0F);
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    __m256 acc_min = _mm256_setzero_ps();
    for (Index b = 0; b < blocks; ++b, row += 176, xp += kKPrepared) {
        prefetch_ahead<176>(row);
        const __m512 sm = k_scales(row);
        const __m512i qh =
            _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 16)));
#pragma GCC unroll 2
        for (int u = 0; u < 2; ++u) {
            const __m512i ql = _mm512_loadu_si512(row + 48 + 64 * u);
            const float* x = xp + 128 * u;
#pragma GCC unroll 2
            for (int h = 0; h < 2; ++h) {
                // bit j = 4u + h (lanes 0-7) or 4u + 2 + h (lanes 8-15) of each qh byte to bit 4
                const int j = 4 * u + h;
                const __m512i bits =
                    u == 0
                        ? _mm512_sllv_epi16(
                              qh,
                              _mm512_inserti64x4(_mm512_set1_epi16(static_cast<short>(4 - j)),
                                                 _mm256_set1_epi16(static_cast<short>(2 - j)), 1))
                        : _mm512_srlv_epi16(
                              qh,
                              _mm512_inserti64x4(_mm512_set1_epi16(static_cast<short>(j - 4)),
                                                 _mm256_set1_epi16(static_cast<short>(j - 2)), 1));
                const __m512i low = h == 0 ? ql : _mm512_srli_epi16(ql, 4);
                const __m512i v = _mm512_ternarylogic_epi32(low, bits, nibble, 0xE4);
                const __m512 p = word_dot(v, masks, x + 16 * h, 32);
                if (h == 0)
                    acc0 = _mm512_fmadd_ps(p, k_lane_scales(sm, u, 0), acc0);
                else
                    acc1 = _mm512_fmadd_ps(p, k_lane_scales(sm, u, 1), acc1);
            }
        }
        acc_min =
            _mm256_fmadd_ps(_mm512_extractf32x8_ps(sm, 1), _mm256_loadu_ps(xp + 256), acc_min);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1)) - reduce256(acc_min);
}

// Q6_K: bytes 64n + 4i + k of ql (half n) with their two qh bits, assembled 64 at a time into
// the 6-bit q as the dequantizing kernel does: word v = 0 holds q1 (lanes 0-7) and q2 (8-15),
// v = 1 q3 and q4. Value: 128n + 64v + 32 · (i / 8) + 4 · (i % 8) + k; its group of 16 (scale)
// is 8n + 4v + i / 4. Σ (q - 32) · d · sc · x = Σ_g d · sc_g · (Σ q · x - 32 · Σ_g x).
void prepare_q6_k(const float* x, Index blocks, float* out) {
    for (Index b = 0; b < blocks; ++b, x += 256, out += kKPrepared) {
        for (int n = 0; n < 2; ++n)
            for (int v = 0; v < 2; ++v)
                for (int k = 0; k < 4; ++k) {
                    const float scale = std::ldexp(1.0f, -8 * k);
                    float* o = out + 16 * (8 * n + 4 * v + k);
                    for (int i = 0; i < 16; ++i)
                        o[i] = x[128 * n + 64 * v + 32 * (i / 8) + 4 * (i % 8) + k] * scale;
                }
        for (int g = 0; g < 16; ++g) {
            float sum = 0.0f;
            for (int l = 0; l < 16; ++l) sum += x[16 * g + l];
            out[256 + g] = sum;
        }
    }
}

QUANT_AVX512 float dot_q6_k512(const uint8_t* row, const float* xp, Index blocks) {
    __m512i masks[4];
    masks_of(0x3F, 0, masks);
    const __m512i quarter = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    const __m512i up = _mm512_inserti64x4(_mm512_set1_epi16(4), _mm256_set1_epi16(2), 1);
    const __m512i down = _mm512_inserti64x4(_mm512_set1_epi16(0), _mm256_set1_epi16(2), 1);
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps(), acc_off = _mm512_setzero_ps();
    for (Index b = 0; b < blocks; ++b, row += 210, xp += kKPrepared) {
        prefetch_ahead<210>(row);
        const __m512 ds = _mm512_mul_ps(_mm512_set1_ps(half512(row + 208)),
                                        _mm512_cvtepi32_ps(sbytes_to_i32(row + 192)));
        acc_off = _mm512_fmadd_ps(ds, _mm512_loadu_ps(xp + 256), acc_off);
#pragma GCC unroll 2
        for (int n = 0; n < 2; ++n) {
            const __m512i ql = _mm512_loadu_si512(row + 64 * n);
            const __m512i qh = _mm512_broadcast_i64x4(
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 128 + 32 * n)));
            const __m512i v0 = low_nibble_over(ql, _mm512_sllv_epi16(qh, up));
            const __m512i v1 =
                low_nibble_over(_mm512_srli_epi16(ql, 4), _mm512_srlv_epi16(qh, down));
            const float* x = xp + 128 * n;
            const __m512 p0 = word_dot(v0, masks, x, 16);
            const __m512 p1 = word_dot(v1, masks, x + 64, 16);
            acc0 = _mm512_fmadd_ps(
                p0, _mm512_permutexvar_ps(_mm512_add_epi32(quarter, _mm512_set1_epi32(8 * n)), ds),
                acc0);
            acc1 = _mm512_fmadd_ps(
                p1,
                _mm512_permutexvar_ps(_mm512_add_epi32(quarter, _mm512_set1_epi32(8 * n + 4)), ds),
                acc1);
        }
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1)) - 32.0f * _mm512_reduce_add_ps(acc_off);
}

// ---- Q8_0: each block's two halves summed against x, then times d (one multiply per block
// where the dequantizing kernel has one per 16 values). Tried and slower on Zen 4: the bytes
// taken out of 32-bit words by shifts, or by AND after an XOR to unsigned (the shift and
// conversion units saturate first).
// Σ q · x over one block's 32 values, unscaled.
QUANT_AVX512_INLINE __m512 q8_0_sum(const uint8_t* p, const float* x) {
    const __m512 s = _mm512_mul_ps(_mm512_cvtepi32_ps(sbytes_to_i32(p + 2)), _mm512_loadu_ps(x));
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(sbytes_to_i32(p + 18)), _mm512_loadu_ps(x + 16), s);
}

QUANT_AVX512 float dot_q8_0_512(const uint8_t* row, const float* x, Index blocks) {
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    Index b = 0;
    for (; b + 2 <= blocks; b += 2, row += 68, x += 64) {
        prefetch_ahead<68, 2 * kPrefetchAhead>(row);
        acc0 = _mm512_fmadd_ps(q8_0_sum(row, x), _mm512_set1_ps(half512(row)), acc0);
        acc1 = _mm512_fmadd_ps(q8_0_sum(row + 34, x + 32), _mm512_set1_ps(half512(row + 34)), acc1);
    }
    if (b < blocks) acc0 = _mm512_fmadd_ps(q8_0_sum(row, x), _mm512_set1_ps(half512(row)), acc0);
    return _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
}

// ---- float rows: 64 values per pass, the tail masked ----------------------------------------
struct F32 {
    static constexpr int kBytes = 4;
    QUANT_AVX512_INLINE static __m512 load(const uint8_t* p, Index j, __mmask16 m) {
        return _mm512_maskz_loadu_ps(m, reinterpret_cast<const float*>(p) + j);
    }
};
struct F16 {
    static constexpr int kBytes = 2;
    QUANT_AVX512_INLINE static __m512 load(const uint8_t* p, Index j, __mmask16 m) {
        return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p + 2 * j));
    }
};
struct BF16 {
    static constexpr int kBytes = 2;
    QUANT_AVX512_INLINE static __m512 load(const uint8_t* p, Index j, __mmask16 m) {
        const __m512i h = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p + 2 * j));
        return _mm512_castsi512_ps(_mm512_slli_epi32(h, 16));
    }
};

template <class T>
QUANT_AVX512 float dot_float512(const uint8_t* row, const float* x, Index n) {
    // Local accumulators: through the Dot512 sink GCC kept them on the stack here, a store after
    // every FMA (F32 from memory 20.9 -> 23 GB/s without).
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                     _mm512_setzero_ps()};
    Index j = 0;
    for (; j + 64 <= n; j += 64) {
        // Halves need the prefetch (F16 and BF16 from memory: 14 -> 25 GB/s); floats stream as
        // fast without it (23 GB/s either way, within noise of each other).
        if constexpr (T::kBytes < 4) prefetch_ahead<64 * T::kBytes>(row + j * T::kBytes);
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k)
            acc[k] = _mm512_fmadd_ps(T::load(row, j + 16 * k, 0xFFFF),
                                     _mm512_loadu_ps(x + j + 16 * k), acc[k]);
    }
    for (; j < n; j += 16) {
        const Index left = n - j;
        const __mmask16 m =
            left >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << left) - 1u);
        acc[0] = _mm512_fmadd_ps(T::load(row, j, m), _mm512_maskz_loadu_ps(m, x + j), acc[0]);
    }
    return _mm512_reduce_add_ps(
        _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
}

template <class T>
QUANT_AVX512 void dequantize_float512(const uint8_t* row, float* dst, Index n) {
    for (Index j = 0; j < n; j += 16) {
        const Index left = n - j;
        const __mmask16 m =
            left >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << left) - 1u);
        _mm512_mask_storeu_ps(dst + j, m, T::load(row, j, m));
    }
}

}  // namespace

RowKernels avx512_kernels(GgmlType type) {
    switch (type) {
        case GgmlType::F32:
            return {dequantize_float512<F32>, dot_float512<F32>};
        case GgmlType::F16:
            return {dequantize_float512<F16>, dot_float512<F16>};
        case GgmlType::BF16:
            return {dequantize_float512<BF16>, dot_float512<BF16>};
        case GgmlType::Q4_0:
            return {dequantize512<Q4_0>, dot512<Q4_0>};
        case GgmlType::Q4_1:
            return {dequantize512<Q4_1>, dot512<Q4_1>};
        case GgmlType::Q5_0:
            return {dequantize512<Q5_0>, dot512<Q5_0>};
        case GgmlType::Q5_1:
            return {dequantize512<Q5_1>, dot512<Q5_1>};
        case GgmlType::Q8_0:
            return {dequantize512<Q8_0>, dot_q8_0_512};
        case GgmlType::Q4_K:
            return {dequantize512<Q4_K>, dot_q4_k512, prepare_k_words<true>, kKPrepared};
        case GgmlType::Q5_K:
            return {dequantize512<Q5_K>, dot_q5_k512, prepare_k_words<false>, kKPrepared};
        case GgmlType::Q6_K:
            return {dequantize512<Q6_K>, dot_q6_k512, prepare_q6_k, kKPrepared};
        default:
            return {};
    }
}

}  // namespace attn::quant_kernels
