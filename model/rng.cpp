#include "rng.h"

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

}  // namespace

void TorchGenerator::manual_seed(std::uint64_t seed) {
    // PyTorch's mt19937 keeps only the low 32 bits of the seed.
    engine_.seed(static_cast<std::mt19937::result_type>(seed & 0xffffffffULL));
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

float TorchGenerator::normal(float mean, float stddev) {
    const double u1 = uniform_double();
    const double u2 = uniform_double();
    // 1 - u1 lies in (0, 1], so log() never sees 0.
    const double radius = std::sqrt(-2.0 * std::log(1.0 - u1));
    const double z = radius * std::cos(2.0 * std::numbers::pi * u2);
    return static_cast<float>(static_cast<double>(mean) + static_cast<double>(stddev) * z);
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

Matrix TorchGenerator::normal(Eigen::Index rows, Eigen::Index cols, float mean, float stddev) {
    check_shape(rows, cols);
    Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < rows; ++i) {
        for (Eigen::Index j = 0; j < cols; ++j) {
            m(i, j) = normal(mean, stddev);
        }
    }
    return m;
}

}  // namespace attn
