#include "quant.h"

#include <cpuid.h>

#include <algorithm>
#include <bit>
#include <sstream>
#include <vector>

#include "quant_kernels.h"

namespace attn {

namespace quant_kernels {

float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1Fu;
    const std::uint32_t mantissa = h & 0x3FFu;
    if (exponent == 0) {  // zero or subnormal: mantissa · 2^-24, exact in float
        const float v = static_cast<float>(mantissa) * 0x1p-24f;
        return sign != 0 ? -v : v;
    }
    const std::uint32_t bits = exponent == 31 ? sign | 0x7F800000u | (mantissa << 13)
                                              : sign | ((exponent + 112) << 23) | (mantissa << 13);
    return std::bit_cast<float>(bits);
}

namespace {

using std::uint8_t;

// ---- ggml's dequantize_row_* for one block, the same float operations in the same order ----
float half_at(const uint8_t* p) { return half_to_float(load_u16(p)); }

void block_f32(const uint8_t* b, float* y) { std::memcpy(y, b, sizeof(float)); }
void block_f16(const uint8_t* b, float* y) { *y = half_at(b); }
void block_bf16(const uint8_t* b, float* y) {
    *y = std::bit_cast<float>(static_cast<std::uint32_t>(load_u16(b)) << 16);
}

void block_q4_0(const uint8_t* b, float* y) {
    const float d = half_at(b);
    const uint8_t* qs = b + 2;
    for (int j = 0; j < 16; ++j) {
        y[j] = static_cast<float>((qs[j] & 0x0F) - 8) * d;
        y[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
    }
}

void block_q4_1(const uint8_t* b, float* y) {
    const float d = half_at(b), m = half_at(b + 2);
    const uint8_t* qs = b + 4;
    for (int j = 0; j < 16; ++j) {
        y[j] = static_cast<float>(qs[j] & 0x0F) * d + m;
        y[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
    }
}

// Q5_0 / Q5_1: value j's fifth bit is bit j of the 32-bit qh.
void block_q5_0(const uint8_t* b, float* y) {
    const float d = half_at(b);
    const std::uint32_t qh = load_u32(b + 2);
    const uint8_t* qs = b + 6;
    for (int j = 0; j < 16; ++j) {
        const int x0 = static_cast<int>((qs[j] & 0x0F) | (((qh >> j) << 4) & 0x10)) - 16;
        const int x1 = static_cast<int>((qs[j] >> 4) | ((qh >> (j + 12)) & 0x10)) - 16;
        y[j] = static_cast<float>(x0) * d;
        y[j + 16] = static_cast<float>(x1) * d;
    }
}

void block_q5_1(const uint8_t* b, float* y) {
    const float d = half_at(b), m = half_at(b + 2);
    const std::uint32_t qh = load_u32(b + 4);
    const uint8_t* qs = b + 8;
    for (int j = 0; j < 16; ++j) {
        const unsigned x0 = (qs[j] & 0x0Fu) | (((qh >> j) << 4) & 0x10u);
        const unsigned x1 = (qs[j] >> 4) | ((qh >> (j + 12)) & 0x10u);
        y[j] = static_cast<float>(x0) * d + m;
        y[j + 16] = static_cast<float>(x1) * d + m;
    }
}

void block_q8_0(const uint8_t* b, float* y) {
    const float d = half_at(b);
    for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<std::int8_t>(b[2 + j])) * d;
}

// Q4_K / Q5_K: 8 sub-blocks of 32, value = d · scale · q - dmin · min.
void block_q4_k(const uint8_t* b, float* y) {
    const float d = half_at(b), dmin = half_at(b + 2);
    const uint8_t* scales = b + 4;
    const uint8_t* q = b + 16;
    for (int j = 0; j < 4; ++j, q += 32, y += 64) {
        int sc = 0, m = 0;
        scale_min_k4(2 * j, scales, sc, m);
        const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(m);
        scale_min_k4(2 * j + 1, scales, sc, m);
        const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(m);
        for (int l = 0; l < 32; ++l) y[l] = d1 * static_cast<float>(q[l] & 0xF) - m1;
        for (int l = 0; l < 32; ++l) y[32 + l] = d2 * static_cast<float>(q[l] >> 4) - m2;
    }
}

void block_q5_k(const uint8_t* b, float* y) {
    const float d = half_at(b), dmin = half_at(b + 2);
    const uint8_t* scales = b + 4;
    const uint8_t* qh = b + 16;
    const uint8_t* ql = b + 48;
    for (int j = 0; j < 4; ++j, ql += 32, y += 64) {
        int sc = 0, m = 0;
        scale_min_k4(2 * j, scales, sc, m);
        const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(m);
        scale_min_k4(2 * j + 1, scales, sc, m);
        const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(m);
        const unsigned u1 = 1u << (2 * j), u2 = 2u << (2 * j);
        for (int l = 0; l < 32; ++l)
            y[l] = d1 * static_cast<float>((ql[l] & 0xFu) + ((qh[l] & u1) != 0 ? 16u : 0u)) - m1;
        for (int l = 0; l < 32; ++l)
            y[32 + l] = d2 * static_cast<float>((ql[l] >> 4) + ((qh[l] & u2) != 0 ? 16u : 0u)) - m2;
    }
}

// Q6_K: 16 sub-blocks of 16, value = d · scale · (q - 32), q of 6 bits.
void block_q6_k(const uint8_t* b, float* y) {
    const float d = half_at(b + 208);
    const uint8_t* ql = b;
    const uint8_t* qh = b + 128;
    const auto* sc = reinterpret_cast<const std::int8_t*>(b + 192);
    for (int n = 0; n < 2; ++n, ql += 64, qh += 32, sc += 8, y += 128) {
        for (int l = 0; l < 32; ++l) {
            const int is = l / 16;
            const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
            const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
            const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
            const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
            y[l] = d * static_cast<float>(sc[is]) * static_cast<float>(q1);
            y[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
            y[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
            y[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
        }
    }
}

template <void (*Block)(const uint8_t*, float*), int kValues, int kBytes>
void dequantize_portable(const uint8_t* row, float* dst, Index blocks) {
    for (Index i = 0; i < blocks; ++i) Block(row + i * kBytes, dst + i * kValues);
}

template <void (*Block)(const uint8_t*, float*), int kValues, int kBytes>
float dot_portable(const uint8_t* row, const float* x, Index blocks) {
    float values[static_cast<std::size_t>(kValues)];
    float sum = 0.0f;
    for (Index i = 0; i < blocks; ++i) {
        Block(row + i * kBytes, values);
        const float* xi = x + i * kValues;
        for (int j = 0; j < kValues; ++j) sum += values[j] * xi[j];
    }
    return sum;
}

template <void (*Block)(const uint8_t*, float*), int kValues, int kBytes>
RowKernels portable() {
    return {dequantize_portable<Block, kValues, kBytes>, dot_portable<Block, kValues, kBytes>};
}

}  // namespace

RowKernels portable_kernels(GgmlType type) {
    switch (type) {
        case GgmlType::F32:
            return portable<block_f32, 1, 4>();
        case GgmlType::F16:
            return portable<block_f16, 1, 2>();
        case GgmlType::BF16:
            return portable<block_bf16, 1, 2>();
        case GgmlType::Q4_0:
            return portable<block_q4_0, 32, 18>();
        case GgmlType::Q4_1:
            return portable<block_q4_1, 32, 20>();
        case GgmlType::Q5_0:
            return portable<block_q5_0, 32, 22>();
        case GgmlType::Q5_1:
            return portable<block_q5_1, 32, 24>();
        case GgmlType::Q8_0:
            return portable<block_q8_0, 32, 34>();
        case GgmlType::Q4_K:
            return portable<block_q4_k, 256, 144>();
        case GgmlType::Q5_K:
            return portable<block_q5_k, 256, 176>();
        case GgmlType::Q6_K:
            return portable<block_q6_k, 256, 210>();
        default:
            return {};
    }
}

}  // namespace quant_kernels

namespace {

namespace qk = quant_kernels;

// F16C from CPUID leaf 1 (ECX bit 29): clang's __builtin_cpu_supports does not know "f16c".
bool cpu_has_f16c() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 29)) != 0;
}

// Asked once: every product looks up its kernels, and CPUID is slow where it counts most, in a
// virtual machine (each one traps to the hypervisor: asked per row, it took 28 % of a
// quantized model's generation there).
struct CpuFeatures {
    bool avx512 = false, avx2 = false;
    CpuFeatures() {
        __builtin_cpu_init();
        const bool f16c = cpu_has_f16c();
        avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                 __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
                 __builtin_cpu_supports("fma") && f16c;
        avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c;
    }
};

bool cpu_has(QuantIsa isa) {
    static const CpuFeatures features;
    switch (isa) {
        case QuantIsa::Avx512:
            return features.avx512;
        case QuantIsa::Avx2:
            return features.avx2;
        case QuantIsa::Portable:
            return true;
    }
    return false;
}

QuantIsa choose_isa() {
    if (cpu_has(QuantIsa::Avx512)) return QuantIsa::Avx512;
    if (cpu_has(QuantIsa::Avx2)) return QuantIsa::Avx2;
    return QuantIsa::Portable;
}

// The type's block size; throws unless the engine computes the type and n fills whole blocks.
Eigen::Index checked_blocks(GgmlType type, Eigen::Index n) {
    const GgmlTypeTraits traits = ggml_type_traits(static_cast<std::uint32_t>(type));
    if (!ggml_type_computed(static_cast<std::uint32_t>(type))) {
        std::ostringstream msg;
        msg << "ggml type " << (traits.name != nullptr ? traits.name : "number") << " ("
            << static_cast<std::uint32_t>(type)
            << ") is not one the engine computes: convert the model to F32, F16, BF16, Q4_0, "
               "Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K or Q6_K (llama.cpp's llama-quantize)";
        throw AttentionError(msg.str());
    }
    if (n < 0 || n % traits.block_size != 0) {
        std::ostringstream msg;
        msg << "a row of " << n << " values cannot be stored as " << traits.name
            << ", whose blocks hold " << traits.block_size
            << " values: the row length must be a multiple of " << traits.block_size
            << " (the tensor's shape does not match its type)";
        throw AttentionError(msg.str());
    }
    return n / traits.block_size;
}

qk::RowKernels row_kernels(QuantIsa isa, GgmlType type) {
    if (!quant_isa_supported(isa)) {
        throw AttentionError("the " + quant_isa_name(isa) +
                             " kernels do not run on this CPU: ask for one quant_isa_supported "
                             "accepts");
    }
    qk::RowKernels k = qk::portable_kernels(type);
    const qk::RowKernels vec = isa == QuantIsa::Avx512 ? qk::avx512_kernels(type)
                               : isa == QuantIsa::Avx2 ? qk::avx2_kernels(type)
                                                       : qk::RowKernels{};
    if (vec.dequantize != nullptr) k.dequantize = vec.dequantize;
    if (vec.dot != nullptr) {
        k.dot = vec.dot;
        k.prepare = vec.prepare;
        k.prepared_per_block = vec.prepared_per_block;
    }
    return k;
}

void check_matrix(const QuantMatrix& w) {
    if (w.rows < 0 || w.cols < 0 || (w.data == nullptr && w.rows > 0 && w.cols > 0)) {
        std::ostringstream msg;
        msg << "a quantized weight of (" << w.rows << ", " << w.cols
            << ") without data: give a non-negative shape and its bytes";
        throw AttentionError(msg.str());
    }
}

}  // namespace

QuantIsa quant_isa() {
    static const QuantIsa isa = choose_isa();
    return isa;
}

bool quant_isa_supported(QuantIsa isa) { return cpu_has(isa); }

std::string quant_isa_name(QuantIsa isa) {
    switch (isa) {
        case QuantIsa::Avx512:
            return "avx512";
        case QuantIsa::Avx2:
            return "avx2";
        case QuantIsa::Portable:
            break;
    }
    return "portable";
}

std::size_t quant_row_bytes(GgmlType type, Eigen::Index n) {
    const Eigen::Index blocks = checked_blocks(type, n);
    return static_cast<std::size_t>(blocks) *
           ggml_type_traits(static_cast<std::uint32_t>(type)).type_size;
}

void dequantize_row(QuantIsa isa, GgmlType type, const void* src, float* dst, Eigen::Index n) {
    const Eigen::Index blocks = checked_blocks(type, n);
    if (blocks == 0) return;
    row_kernels(isa, type).dequantize(static_cast<const std::uint8_t*>(src), dst, blocks);
}

void dequantize_row(GgmlType type, const void* src, float* dst, Eigen::Index n) {
    dequantize_row(quant_isa(), type, src, dst, n);
}

void quant_row(const QuantMatrix& w, Eigen::Index r, float* dst) {
    check_matrix(w);
    if (r < 0 || r >= w.rows) {
        std::ostringstream msg;
        msg << "row " << r << " of a weight with " << w.rows
            << " rows: ask for a row in [0, rows) (a token id beyond the vocabulary?)";
        throw AttentionError(msg.str());
    }
    const std::size_t row_bytes = quant_row_bytes(w.type, w.cols);
    dequantize_row(
        w.type, static_cast<const std::uint8_t*>(w.data) + row_bytes * static_cast<std::size_t>(r),
        dst, w.cols);
}

namespace {

// y[t · ldy + r] = W[r, :] · x[t, :] for the T rows of x: each weight row read from memory once
// and summed against every token while it sits in the L1 cache.
void dot_rows(QuantIsa isa, const QuantMatrix& w, const float* x, Eigen::Index x_stride,
              Eigen::Index tokens, float* y, Eigen::Index ldy) {
    check_matrix(w);
    const Eigen::Index blocks = checked_blocks(w.type, w.cols);
    const std::size_t row_bytes = quant_row_bytes(w.type, w.cols);
    const qk::RowKernels k = row_kernels(isa, w.type);
    const auto* data = static_cast<const std::uint8_t*>(w.data);
    if (blocks == 0) {
        for (Eigen::Index t = 0; t < tokens; ++t)
            std::fill(y + t * ldy, y + t * ldy + w.rows, 0.0f);
        return;
    }
    // The activations in the layout the type's dot reads, once for every row.
    std::vector<float> prepared;
    const float* xs = x;
    Eigen::Index xs_stride = x_stride;
    if (k.prepare != nullptr) {
        xs_stride = blocks * k.prepared_per_block;
        prepared.resize(static_cast<std::size_t>(tokens * xs_stride));
        for (Eigen::Index t = 0; t < tokens; ++t)
            k.prepare(x + t * x_stride, blocks, prepared.data() + t * xs_stride);
        xs = prepared.data();
    }
    use_engine_threads();
    // Rows in chunks of 16 so a thread's rows are contiguous in memory (one stream to prefetch).
    constexpr Eigen::Index kChunk = 16;
    const Eigen::Index chunks = (w.rows + kChunk - 1) / kChunk;
    const bool parallel = engine_threads() > 1 && chunks > 1 &&
                          static_cast<std::size_t>(w.rows) * row_bytes >= (std::size_t{1} << 16);
#pragma omp parallel for schedule(static) if (parallel)
    for (Eigen::Index c = 0; c < chunks; ++c) {
        const Eigen::Index end = std::min(w.rows, (c + 1) * kChunk);
        for (Eigen::Index r = c * kChunk; r < end; ++r) {
            const std::uint8_t* row = data + row_bytes * static_cast<std::size_t>(r);
            for (Eigen::Index t = 0; t < tokens; ++t)
                y[t * ldy + r] = k.dot(row, xs + t * xs_stride, blocks);
        }
    }
}

}  // namespace

void quant_matvec(QuantIsa isa, const QuantMatrix& w, const float* x, float* y) {
    dot_rows(isa, w, x, w.cols, 1, y, w.rows);
}

void quant_matvec(const QuantMatrix& w, const float* x, float* y) {
    quant_matvec(quant_isa(), w, x, y);
}

void quant_matmul(const QuantMatrix& w, ConstMatrixRef x, MatrixRef y) {
    check_matrix(w);
    const std::size_t row_bytes = quant_row_bytes(w.type, w.cols);
    if (x.cols() != w.cols || y.rows() != x.rows() || y.cols() != w.rows) {
        std::ostringstream msg;
        msg << "quantized product of x (" << x.rows() << ", " << x.cols() << ") by a weight ("
            << w.rows << ", " << w.cols << ")ᵀ into (" << y.rows() << ", " << y.cols()
            << "): x needs the weight's " << w.cols << " columns and y (T, " << w.rows << ")";
        throw AttentionError(msg.str());
    }
    if (x.rows() == 0 || w.rows == 0) return;
    // Up to 32 tokens the row-by-row dots (a pass of arithmetic per token over weights read once)
    // beat dequantizing panels for gemm: a 4096 × 4096 Q4_K or Q8_0 weight measured 3.6x faster
    // at 4 tokens, even at 16 and 32, 2x slower at 64 and 128, where gemm's rate takes over.
    constexpr Eigen::Index kFewTokens = 32;
    if (x.rows() <= kFewTokens || x.cols() == 0) {
        dot_rows(quant_isa(), w, x.data(), x.outerStride(), x.rows(), y.data(), y.outerStride());
        return;
    }
    use_engine_threads();
    // Panels of 64 rows: 64 · cols floats stay in the L2 cache while gemm reads them.
    constexpr Eigen::Index kPanel = 64;
    const Eigen::Index panels = (w.rows + kPanel - 1) / kPanel;
    const auto* data = static_cast<const std::uint8_t*>(w.data);
    const bool parallel = engine_threads() > 1 && panels > 1;
#pragma omp parallel if (parallel)
    {
        Matrix panel(kPanel, w.cols);
#pragma omp for schedule(dynamic, 1)
        for (Eigen::Index p = 0; p < panels; ++p) {
            const Eigen::Index r0 = p * kPanel;
            const Eigen::Index n = std::min(kPanel, w.rows - r0);
            for (Eigen::Index i = 0; i < n; ++i)
                dequantize_row(w.type, data + row_bytes * static_cast<std::size_t>(r0 + i),
                               panel.row(i).data(), w.cols);
            gemm(x, Op::None, panel.topRows(n), Op::Transpose, y.middleCols(r0, n));
        }
    }
}

}  // namespace attn
