#include "rng.h"

#include <bit>
#include <cmath>
#include <numbers>
#include <sstream>

namespace attn {

namespace {

void check_shape(Eigen::Index rows, Eigen::Index cols) {
    if (rows < 0 || cols < 0) {
        std::ostringstream msg;
        msg << "random tensor of shape (" << rows << ", " << cols
            << ") has a negative size: give sizes >= 0";
        throw AttentionError(msg.str());
    }
}

// --- PyTorch 1.13's vectorised normal_ (normal_fill_16_AVX2), one lane at a time ---------------
//
// The kernel takes log and sin/cos from avx_mathfun.h (Cephes polynomials in float), not from
// libm, and GCC compiles its separate _mm256_mul_ps / _mm256_add_ps into fused multiply-adds.
// Every step below is the float operation the shipped binary performs, with std::fma exactly
// where it fuses and a separate rounding where it does not, so the values are bit-identical
// (checked against torch 1.13 on 1.6 million draws; tests/model/test_torch_normal.cpp keeps a few
// thousand of them).

// The constants are double literals rounded to float, as the header's float arrays hold them.
constexpr float as_float(double v) { return static_cast<float>(v); }

// log256_ps for x in [2^-24, 1] (x = 1 - uniform): always a normal float, so the header's
// denormal clamp and NaN mask for x <= 0 never apply.
float cephes_log(float x) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
    const auto exponent = static_cast<std::int32_t>(bits >> 23) - 0x7f;
    // Mantissa with the exponent of 0.5: x in [0.5, 1).
    x = std::bit_cast<float>((bits & ~0x7f800000U) | std::bit_cast<std::uint32_t>(0.5f));
    float e = static_cast<float>(exponent) + 1.0f;
    float tmp = 0.0f;
    if (x < as_float(0.707106781186547524)) {  // cephes_SQRTHF: use 2x - 1 and e - 1 instead
        e = e - 1.0f;
        tmp = x;
    }
    x = (x - 1.0f) + tmp;
    const float z = x * x;
    float y = as_float(7.0376836292E-2);
    y = std::fma(y, x, as_float(-1.1514610310E-1));
    y = std::fma(y, x, as_float(1.1676998740E-1));
    y = std::fma(y, x, as_float(-1.2420140846E-1));
    y = std::fma(y, x, as_float(1.4249322787E-1));
    y = std::fma(y, x, as_float(-1.6668057665E-1));
    y = std::fma(y, x, as_float(2.0000714765E-1));
    y = std::fma(y, x, as_float(-2.4999993993E-1));
    y = std::fma(y, x, as_float(3.3333331174E-1));
    y = y * x;
    y = std::fma(y, z, e * as_float(-2.12194440e-4));
    y = std::fma(-z, 0.5f, y);
    return std::fma(e, as_float(0.693359375), x + y);
}

struct SinCos {
    float sin, cos;
};

// sincos256_ps for x >= 0 (theta = 2 pi u); the sign handling is kept for any x.
SinCos cephes_sincos(float x) {
    std::uint32_t sign_sin = std::bit_cast<std::uint32_t>(x) & 0x80000000U;
    x = std::fabs(x);
    // Octant j of x (scaled by 4 / pi), rounded up to even.
    float y = x * as_float(1.27323954473516);
    std::int32_t j = static_cast<std::int32_t>(y);
    j = (j + 1) & ~1;
    y = static_cast<float>(j);
    const std::uint32_t swap_sign_sin = static_cast<std::uint32_t>(j & 4) << 29;
    const bool sin_from_sin_polynomial = (j & 2) == 0;
    // x - j pi/4 in three parts ("extended precision modular arithmetic").
    x = std::fma(y, as_float(-0.78515625), x);
    x = std::fma(y, as_float(-2.4187564849853515625e-4), x);
    x = std::fma(y, as_float(-3.77489497744594108e-8), x);
    const std::uint32_t sign_cos = static_cast<std::uint32_t>(~(j - 2) & 4) << 29;
    sign_sin ^= swap_sign_sin;

    const float z = x * x;
    float cos_poly = as_float(2.443315711809948E-005);
    cos_poly = std::fma(cos_poly, z, as_float(-1.388731625493765E-003));
    cos_poly = std::fma(cos_poly, z, as_float(4.166664568298827E-002));
    cos_poly = cos_poly * z;
    cos_poly = std::fma(cos_poly, z, -(z * 0.5f));
    cos_poly = cos_poly + 1.0f;
    float sin_poly = as_float(-1.9515295891E-4);
    sin_poly = std::fma(sin_poly, z, as_float(8.3321608736E-3));
    sin_poly = std::fma(sin_poly, z, as_float(-1.6666654611E-1));
    sin_poly = sin_poly * z;
    sin_poly = std::fma(sin_poly, x, x);

    // The header selects with masks and adds the other polynomial's +0: -0 becomes +0.
    const float sin_abs = (sin_from_sin_polynomial ? sin_poly : cos_poly) + 0.0f;
    const float cos_abs = (sin_from_sin_polynomial ? cos_poly : sin_poly) + 0.0f;
    return {std::bit_cast<float>(std::bit_cast<std::uint32_t>(sin_abs) ^ sign_sin),
            std::bit_cast<float>(std::bit_cast<std::uint32_t>(cos_abs) ^ sign_cos)};
}

// normal_fill_16_AVX2: data[0..16) holds uniforms; data[j] and data[j + 8] become the pair
// (r cos theta, r sin theta) * std + mean, all in float.
void normal_fill_16(float* data, float mean, float stddev) {
    // _mm256_set1_ps(2.0f * c10::pi<double>): 2 pi in double, then rounded to float.
    const float two_pi = static_cast<float>(2.0 * std::numbers::pi);
    for (int j = 0; j < 8; ++j) {
        const float u1 = 1.0f - data[j];  // [0, 1) -> (0, 1] for log
        const float u2 = data[j + 8];
        const float radius = std::sqrt(-2.0f * cephes_log(u1));
        const SinCos t = cephes_sincos(two_pi * u2);
        data[j] = std::fma(radius * t.cos, stddev, mean);
        data[j + 8] = std::fma(radius * t.sin, stddev, mean);
    }
}

}  // namespace

void TorchGenerator::manual_seed(std::uint64_t seed) {
    // PyTorch's mt19937 keeps only the low 32 bits of the seed.
    engine_.seed(static_cast<std::mt19937::result_type>(seed & 0xffffffffULL));
    next_double_normal_sample_.reset();
}

std::uint32_t TorchGenerator::random() { return static_cast<std::uint32_t>(engine_()); }

std::uint64_t TorchGenerator::random64() {
    const std::uint64_t first = random();
    const std::uint64_t second = random();
    return (first << 32) | second;
}

float TorchGenerator::uniform(double from, double to) {
    // uniform_real_distribution<float> stores its bounds as float; only x is double.
    const float from_f = static_cast<float>(from);
    const float to_f = static_cast<float>(to);
    const double x = static_cast<double>(random() & ((1U << 24) - 1U)) * std::ldexp(1.0, -24);
    return static_cast<float>(x * static_cast<double>(to_f - from_f) + static_cast<double>(from_f));
}

double TorchGenerator::uniform_double() {
    const std::uint64_t bits = random64() & ((std::uint64_t{1} << 53) - 1U);
    return static_cast<double>(bits) * std::ldexp(1.0, -53);
}

double TorchGenerator::normal(double mean, double stddev) {
    // transformation::normal: z * std + mean, fused as GCC contracts it when it builds PyTorch's
    // AVX2 kernels, and so that every compiler here rounds it alike; after the cast to float
    // either rounding almost always gives the same value.
    if (next_double_normal_sample_) {
        const double z = *next_double_normal_sample_;
        next_double_normal_sample_.reset();
        return std::fma(z, stddev, mean);
    }
    const double u1 = uniform_double();
    const double u2 = uniform_double();
    // 1 - u2 lies in (0, 1], so log() never sees 0. The first draw gives the angle.
    const double radius = std::sqrt(-2.0 * std::log(1.0 - u2));
    const double theta = 2.0 * std::numbers::pi * u1;
    next_double_normal_sample_ = radius * std::sin(theta);
    return std::fma(radius * std::cos(theta), stddev, mean);
}

Matrix TorchGenerator::rand(Eigen::Index rows, Eigen::Index cols) {
    return uniform(rows, cols, 0.0, 1.0);
}

Matrix TorchGenerator::uniform(Eigen::Index rows, Eigen::Index cols, double from, double to) {
    check_shape(rows, cols);
    Matrix m(rows, cols);
    // Row by row, as PyTorch fills a contiguous tensor.
    for (Eigen::Index i = 0; i < rows; ++i) {
        for (Eigen::Index j = 0; j < cols; ++j) {
            m(i, j) = uniform(from, to);
        }
    }
    return m;
}

Matrix TorchGenerator::normal(Eigen::Index rows, Eigen::Index cols, double mean, double stddev) {
    check_shape(rows, cols);
    if (!(stddev >= 0.0)) {
        std::ostringstream msg;
        msg << "normal_ expects std >= 0.0, but found std " << stddev << ": give a std >= 0";
        throw AttentionError(msg.str());
    }
    Matrix m(rows, cols);
    float* data = m.data();  // row-major: PyTorch's contiguous order
    const Eigen::Index size = m.size();
    if (size < 16) {
        // Too small for the vectorised kernel: the scalar distribution in double, cast to float.
        for (Eigen::Index i = 0; i < size; ++i) {
            data[i] = static_cast<float>(normal(mean, stddev));
        }
        return m;
    }
    const float mean_f = static_cast<float>(mean);
    const float stddev_f = static_cast<float>(stddev);
    for (Eigen::Index i = 0; i < size; ++i) {
        data[i] = uniform(0.0, 1.0);
    }
    for (Eigen::Index i = 0; i + 16 <= size; i += 16) {
        normal_fill_16(data + i, mean_f, stddev_f);
    }
    if (size % 16 != 0) {
        // Recompute the last 16 values: fresh uniforms, overlapping the last full block.
        float* tail = data + (size - 16);
        for (int i = 0; i < 16; ++i) {
            tail[i] = uniform(0.0, 1.0);
        }
        normal_fill_16(tail, mean_f, stddev_f);
    }
    return m;
}

}  // namespace attn
