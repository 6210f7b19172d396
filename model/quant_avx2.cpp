// The AVX2 + FMA + F16C row kernels (quant_kernels.h), for x86-64 CPUs without AVX-512. The
// same scheme as quant_avx512.cpp with 8-float vectors, except that AVX2 has no 16-entry float
// permute: a quant becomes a float by conversion, and the weight is d · q - m in one FMA (d · q
// is exact, so this rounds once, as the reference does).
#include <immintrin.h>

#include "quant_kernels.h"

namespace attn::quant_kernels {

namespace {

using std::uint8_t;

#define QUANT_AVX2 __attribute__((target("avx2,fma,f16c")))
#define QUANT_AVX2_INLINE __attribute__((target("avx2,fma,f16c"), always_inline)) inline

QUANT_AVX2_INLINE float half256(const uint8_t* p) { return _cvtsh_ss(load_u16(p)); }

// 8 bytes as 32-bit lanes.
QUANT_AVX2_INLINE __m256i bytes8(const uint8_t* p) {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}

// Bit `bit` of each of 8 bytes moved to bit 4 (16 or 0).
QUANT_AVX2_INLINE __m256i bit_to_16(__m256i bytes, int bit) {
    return _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(bytes, bit), _mm256_set1_epi32(1)),
                             4);
}

// A block's bytes 6 KB further on asked into the L2 cache, as the AVX-512 kernels do (measured
// there: the hardware prefetcher alone falls behind these loops).
template <int kBytes>
QUANT_AVX2_INLINE void prefetch_ahead(const uint8_t* p) {
#pragma GCC unroll 4
    for (int at = 0; at < kBytes; at += 64)
        _mm_prefetch(reinterpret_cast<const char*>(p + 6144 + at), _MM_HINT_T1);
}

struct Dot256 {
    const float* x;
    __m256 acc[4];
    QUANT_AVX2_INLINE void start() {
        for (__m256& a : acc) a = _mm256_setzero_ps();
    }
    QUANT_AVX2_INLINE void put(int slot, __m256 w, Index col) {
        acc[slot] = _mm256_fmadd_ps(w, _mm256_loadu_ps(x + col), acc[slot]);
    }
    QUANT_AVX2_INLINE float total() const {
        const __m256 s =
            _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
        __m128 v = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
        v = _mm_add_ps(v, _mm_movehl_ps(v, v));
        v = _mm_add_ss(v, _mm_movehdup_ps(v));
        return _mm_cvtss_f32(v);
    }
};

struct Store256 {
    float* dst;
    QUANT_AVX2_INLINE void put(int, __m256 w, Index col) { _mm256_storeu_ps(dst + col, w); }
};

// 32 weights of a 16-byte 4-bit block (low nibbles first): (q - offset) · d, or q · d + m when
// the type has a min (kMin). The offset is taken off in integers so that a zero weight keeps the
// reference's sign (0 · d is -0 for a negative d).
template <bool kMin, class Sink>
QUANT_AVX2_INLINE void q4_32(const uint8_t* qs, int offset, __m256 d, __m256 m, Index col, Sink& s,
                             int slot) {
    const __m256i off = _mm256_set1_epi32(offset), mask = _mm256_set1_epi32(0x0F);
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
        const __m256i bytes = bytes8(qs + 8 * (k & 1));
        const __m256i nib = _mm256_and_si256(_mm256_srli_epi32(bytes, k >= 2 ? 4 : 0), mask);
        const __m256 q = _mm256_cvtepi32_ps(_mm256_sub_epi32(nib, off));
        s.put(slot + (k & 1), kMin ? _mm256_fmadd_ps(q, d, m) : _mm256_mul_ps(q, d), col + 8 * k);
    }
}

struct Q4_0 {
    static constexpr int kValues = 32, kBytes = 18;
    template <class Sink>
    QUANT_AVX2_INLINE static void block(const uint8_t* p, Index col, Sink& s, int slot) {
        q4_32<false>(p + 2, 8, _mm256_set1_ps(half256(p)), _mm256_setzero_ps(), col, s, slot);
    }
};

struct Q4_1 {
    static constexpr int kValues = 32, kBytes = 20;
    template <class Sink>
    QUANT_AVX2_INLINE static void block(const uint8_t* p, Index col, Sink& s, int slot) {
        q4_32<true>(p + 4, 0, _mm256_set1_ps(half256(p)), _mm256_set1_ps(half256(p + 2)), col, s,
                    slot);
    }
};

// 32 five-bit weights, (q - offset) · d or q · d + m as in q4_32: value e's fifth bit is bit e
// of qh.
template <bool kMin, class Sink>
QUANT_AVX2_INLINE void q5_32(const uint8_t* qs, std::uint32_t qh, int offset, __m256 d, __m256 m,
                             Index col, Sink& s, int slot) {
    const __m256i h = _mm256_set1_epi32(static_cast<int>(qh));
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask = _mm256_set1_epi32(0x0F), off = _mm256_set1_epi32(offset);
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
        const int first = 8 * k;  // values first..first + 7
        const __m256i bytes = bytes8(qs + (first & 15));
        const __m256i nib = _mm256_and_si256(_mm256_srli_epi32(bytes, first >= 16 ? 4 : 0), mask);
        const __m256i high =
            bit_to_16(_mm256_srlv_epi32(h, _mm256_add_epi32(lanes, _mm256_set1_epi32(first))), 0);
        const __m256 q = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_or_si256(nib, high), off));
        s.put(slot + (k & 1), kMin ? _mm256_fmadd_ps(q, d, m) : _mm256_mul_ps(q, d), col + first);
    }
}

struct Q5_0 {
    static constexpr int kValues = 32, kBytes = 22;
    template <class Sink>
    QUANT_AVX2_INLINE static void block(const uint8_t* p, Index col, Sink& s, int slot) {
        q5_32<false>(p + 6, load_u32(p + 2), 16, _mm256_set1_ps(half256(p)), _mm256_setzero_ps(),
                     col, s, slot);
    }
};

struct Q5_1 {
    static constexpr int kValues = 32, kBytes = 24;
    template <class Sink>
    QUANT_AVX2_INLINE static void block(const uint8_t* p, Index col, Sink& s, int slot) {
        q5_32<true>(p + 8, load_u32(p + 4), 0, _mm256_set1_ps(half256(p)),
                    _mm256_set1_ps(half256(p + 2)), col, s, slot);
    }
};

struct Q8_0 {
    static constexpr int kValues = 32, kBytes = 34;
    template <class Sink>
    QUANT_AVX2_INLINE static void block(const uint8_t* p, Index col, Sink& s, int slot) {
        const __m256 d = _mm256_set1_ps(half256(p));
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            const __m256i q = _mm256_cvtepi8_epi32(
                _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 2 + 8 * k)));
            s.put(slot + (k & 1), _mm256_mul_ps(_mm256_cvtepi32_ps(q), d), col + 8 * k);
        }
    }
};

// The eight d · scale and dmin · min of a Q4_K / Q5_K block, exact products: the 6-bit fields
// unpacked from one 16-byte load with ggml's masks on 32-bit lanes (scales to bytes 0-7, mins
// to bytes 8-15), as the AVX-512 kernels do.
QUANT_AVX2_INLINE void k_scales(const uint8_t* p, float* d_scale, float* d_min) {
    const __m128i all = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i a = _mm_shuffle_epi32(all, _MM_SHUFFLE(3, 2, 3, 1));  // q0 q2 q1 q2
    const __m128i b = _mm_shuffle_epi32(all, _MM_SHUFFLE(2, 2, 1, 1));  // q0 q0 q1 q1
    const __m128i low =
        _mm_and_si128(_mm_srlv_epi32(a, _mm_setr_epi32(0, 0, 0, 4)),
                      _mm_setr_epi32(0x3F3F3F3F, 0x0F0F0F0F, 0x3F3F3F3F, 0x0F0F0F0F));
    const __m128i high =
        _mm_and_si128(_mm_srli_epi32(b, 2), _mm_setr_epi32(0, 0x30303030, 0, 0x30303030));
    const __m128i fields = _mm_or_si128(low, high);
    const __m128 d_dmin = _mm_cvtph_ps(all);
    const __m256 d = _mm256_broadcastss_ps(d_dmin);
    const __m256 dmin = _mm256_broadcastss_ps(_mm_movehdup_ps(d_dmin));
    _mm256_storeu_ps(d_scale, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(fields)), d));
    _mm256_storeu_ps(
        d_min,
        _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(fields, 8))), dmin));
}

// Q4_K (qh == nullptr) and Q5_K: sub-block 2j is the low nibbles of 32 bytes (plus bit 2j of
// qh[l]), 2j + 1 their high nibbles (plus bit 2j + 1); weight = d1 · q - m1.
template <class Sink>
QUANT_AVX2_INLINE void k_block(const uint8_t* p, const uint8_t* qh, const uint8_t* qs, Index col,
                               Sink& s) {
    float d_scale[8], d_min[8];
    k_scales(p, d_scale, d_min);
    const __m256i mask = _mm256_set1_epi32(0x0F);
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
#pragma GCC unroll 2
        for (int half = 0; half < 2; ++half) {
            const int sub = 2 * j + half;
            const __m256 ds = _mm256_set1_ps(d_scale[sub]), dm = _mm256_set1_ps(d_min[sub]);
#pragma GCC unroll 4
            for (int k = 0; k < 4; ++k) {
                __m256i q = _mm256_and_si256(
                    _mm256_srli_epi32(bytes8(qs + 32 * j + 8 * k), 4 * half), mask);
                if (qh != nullptr) q = _mm256_or_si256(q, bit_to_16(bytes8(qh + 8 * k), sub));
                s.put(k, _mm256_fmsub_ps(_mm256_cvtepi32_ps(q), ds, dm),
                      col + 64 * j + 32 * half + 8 * k);
            }
        }
    }
}

struct Q4_K {
    static constexpr int kValues = 256, kBytes = 144;
    template <class Sink>
    QUANT_AVX2_INLINE static void block(const uint8_t* p, Index col, Sink& s, int) {
        k_block(p, nullptr, p + 16, col, s);
    }
};

struct Q5_K {
    static constexpr int kValues = 256, kBytes = 176;
    template <class Sink>
    QUANT_AVX2_INLINE static void block(const uint8_t* p, Index col, Sink& s, int) {
        k_block(p, p + 16, p + 48, col, s);
    }
};

// Q6_K: value = (d · sc) · (q - 32), both products exact; 8 values per step of the reference's
// loop (l, l + 32, l + 64, l + 96 of each half of 128).
struct Q6_K {
    static constexpr int kValues = 256, kBytes = 210;
    template <class Sink>
    QUANT_AVX2_INLINE static void block(const uint8_t* p, Index col, Sink& s, int) {
        const float d = half256(p + 208);
        const auto* sc = reinterpret_cast<const std::int8_t*>(p + 192);
        const __m256i mask4 = _mm256_set1_epi32(0x0F), mask2 = _mm256_set1_epi32(0x30);
        const __m256i bias = _mm256_set1_epi32(32);
        for (int n = 0; n < 2; ++n) {
            const uint8_t* ql = p + 64 * n;
            const uint8_t* qh = p + 128 + 32 * n;
#pragma GCC unroll 4
            for (int l = 0; l < 32; l += 8) {
                const __m256i a = bytes8(ql + l), b = bytes8(ql + 32 + l), h = bytes8(qh + l);
                const __m256i q[4] = {
                    _mm256_or_si256(_mm256_and_si256(a, mask4),
                                    _mm256_and_si256(_mm256_slli_epi32(h, 4), mask2)),
                    _mm256_or_si256(_mm256_and_si256(b, mask4),
                                    _mm256_and_si256(_mm256_slli_epi32(h, 2), mask2)),
                    _mm256_or_si256(_mm256_srli_epi32(a, 4), _mm256_and_si256(h, mask2)),
                    _mm256_or_si256(_mm256_srli_epi32(b, 4),
                                    _mm256_and_si256(_mm256_srli_epi32(h, 2), mask2))};
#pragma GCC unroll 4
                for (int k = 0; k < 4; ++k) {
                    const float ds = d * static_cast<float>(sc[8 * n + l / 16 + 2 * k]);
                    const __m256 v = _mm256_cvtepi32_ps(_mm256_sub_epi32(q[k], bias));
                    s.put(k, _mm256_mul_ps(v, _mm256_set1_ps(ds)), col + 128 * n + 32 * k + l);
                }
            }
        }
    }
};

// Q4_K folded, as the AVX-512 kernel: Σ over sub-blocks of d1 · Σ q · x - m1 · Σ x, the quants
// read as 32-bit words (byte k, nibble h of lane i is value 64c + 32h + 4i + k of chunk c),
// against activations prepared in that order once per product, with each sub-block's Σ x.
constexpr Index kQ4KPrepared256 = 264;

void prepare_q4_k256(const float* x, Index blocks, float* out) {
    for (Index b = 0; b < blocks; ++b, x += 256, out += kQ4KPrepared256) {
        for (int c = 0; c < 4; ++c)
            for (int k = 0; k < 4; ++k)
                for (int h = 0; h < 2; ++h) {
                    float* o = out + 8 * (8 * c + 2 * k + h);
                    for (int i = 0; i < 8; ++i) o[i] = x[64 * c + 32 * h + 4 * i + k];
                }
        for (int sub = 0; sub < 8; ++sub) {
            float sum = 0.0f;
            for (int l = 0; l < 32; ++l) sum += x[32 * sub + l];
            out[256 + sub] = sum;
        }
    }
}

QUANT_AVX2 float dot_q4_k256(const uint8_t* row, const float* xp, Index blocks) {
    const __m256i nibble = _mm256_set1_epi32(0x0F);
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    __m256 acc_min = _mm256_setzero_ps();
    for (Index b = 0; b < blocks; ++b, row += 144, xp += kQ4KPrepared256) {
        prefetch_ahead<144>(row);
        alignas(32) float d_scale[8], d_min[8];
        k_scales(row, d_scale, d_min);
#pragma GCC unroll 4
        for (int c = 0; c < 4; ++c) {
            const __m256i v =
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 16 + 32 * c));
            const float* x = xp + 64 * c;
            __m256 p0 =
                _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(v, nibble)), _mm256_loadu_ps(x));
            __m256 p1 =
                _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(v, 4), nibble)),
                              _mm256_loadu_ps(x + 8));
#pragma GCC unroll 3
            for (int k = 1; k < 4; ++k) {
                const __m256i lo = _mm256_and_si256(_mm256_srli_epi32(v, 8 * k), nibble);
                const __m256i hi = k == 3
                                       ? _mm256_srli_epi32(v, 28)
                                       : _mm256_and_si256(_mm256_srli_epi32(v, 8 * k + 4), nibble);
                p0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(lo), _mm256_loadu_ps(x + 16 * k), p0);
                p1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(hi), _mm256_loadu_ps(x + 16 * k + 8), p1);
            }
            acc0 = _mm256_fmadd_ps(p0, _mm256_broadcast_ss(d_scale + 2 * c), acc0);
            acc1 = _mm256_fmadd_ps(p1, _mm256_broadcast_ss(d_scale + 2 * c + 1), acc1);
        }
        acc_min = _mm256_fmadd_ps(_mm256_load_ps(d_min), _mm256_loadu_ps(xp + 256), acc_min);
    }
    Dot256 s{nullptr, {acc0, acc1, _mm256_setzero_ps(), _mm256_setzero_ps()}};
    Dot256 m{nullptr, {acc_min, _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()}};
    return s.total() - m.total();
}

template <class T>
QUANT_AVX2 float dot256(const uint8_t* row, const float* x, Index blocks) {
    Dot256 s{x, {}};
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
QUANT_AVX2 void dequantize256(const uint8_t* row, float* dst, Index blocks) {
    Store256 s{dst};
    for (Index i = 0; i < blocks; ++i) T::block(row + i * T::kBytes, i * T::kValues, s, 0);
}

// ---- float rows: 32 values per pass, the last few values scalar -----------------------------
struct F32 {
    static constexpr GgmlType kType = GgmlType::F32;
    static constexpr int kBytes = 4;
    QUANT_AVX2_INLINE static __m256 load(const uint8_t* p, Index j) {
        return _mm256_loadu_ps(reinterpret_cast<const float*>(p) + j);
    }
};
struct F16 {
    static constexpr GgmlType kType = GgmlType::F16;
    static constexpr int kBytes = 2;
    QUANT_AVX2_INLINE static __m256 load(const uint8_t* p, Index j) {
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * j)));
    }
};
struct BF16 {
    static constexpr GgmlType kType = GgmlType::BF16;
    static constexpr int kBytes = 2;
    QUANT_AVX2_INLINE static __m256 load(const uint8_t* p, Index j) {
        const __m256i h =
            _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * j)));
        return _mm256_castsi256_ps(_mm256_slli_epi32(h, 16));
    }
};

template <class T>
QUANT_AVX2 float dot_float256(const uint8_t* row, const float* x, Index n) {
    Dot256 s{x, {}};
    s.start();
    Index j = 0;
    for (; j + 32 <= n; j += 32) {
        prefetch_ahead<32 * T::kBytes>(row + j * T::kBytes);
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) s.put(k, T::load(row, j + 8 * k), j + 8 * k);
    }
    for (; j + 8 <= n; j += 8) s.put(0, T::load(row, j), j);
    float sum = s.total();
    const RowKernels tail = portable_kernels(T::kType);
    if (j < n) sum += tail.dot(row + j * T::kBytes, x + j, n - j);
    return sum;
}

template <class T>
QUANT_AVX2 void dequantize_float256(const uint8_t* row, float* dst, Index n) {
    Index j = 0;
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(dst + j, T::load(row, j));
    if (j < n) portable_kernels(T::kType).dequantize(row + j * T::kBytes, dst + j, n - j);
}

}  // namespace

RowKernels avx2_kernels(GgmlType type) {
    switch (type) {
        case GgmlType::Q4_0:
            return {dequantize256<Q4_0>, dot256<Q4_0>};
        case GgmlType::Q4_1:
            return {dequantize256<Q4_1>, dot256<Q4_1>};
        case GgmlType::Q5_0:
            return {dequantize256<Q5_0>, dot256<Q5_0>};
        case GgmlType::Q5_1:
            return {dequantize256<Q5_1>, dot256<Q5_1>};
        case GgmlType::Q8_0:
            return {dequantize256<Q8_0>, dot256<Q8_0>};
        case GgmlType::Q4_K:
            return {dequantize256<Q4_K>, dot_q4_k256, prepare_q4_k256, kQ4KPrepared256};
        case GgmlType::Q5_K:
            return {dequantize256<Q5_K>, dot256<Q5_K>};
        case GgmlType::Q6_K:
            return {dequantize256<Q6_K>, dot256<Q6_K>};
        case GgmlType::F32:
            return {dequantize_float256<F32>, dot_float256<F32>};
        case GgmlType::F16:
            return {dequantize_float256<F16>, dot_float256<F16>};
        case GgmlType::BF16:
            return {dequantize_float256<BF16>, dot_float256<BF16>};
        default:
            return {};
    }
}

}  // namespace attn::quant_kernels
