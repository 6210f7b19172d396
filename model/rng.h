// PyTorch-compatible random numbers, so that manual_seed(123) reproduces the tutorial's tensors.
//
// The CPU generator of PyTorch is a standard MT19937; what matters is how each distribution turns
// its 32- or 64-bit draws into values, reproduced here draw for draw.
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "tensor.h"

namespace attn {

class TorchGenerator {
public:
    explicit TorchGenerator(std::uint64_t seed = 67280421310721ULL) { manual_seed(seed); }

    // torch.manual_seed(s): a standard std::mt19937 seeded with the low 32 bits of s. Like
    // PyTorch's set_current_seed it also drops the cached second normal value.
    void manual_seed(std::uint64_t seed);

    std::uint32_t random();    // one 32-bit draw
    std::uint64_t random64();  // (first << 32) | second, as PyTorch's CPU generator makes it

    // uniform_(from, to) on float: x = (v & (2^24-1)) * 2^-24 in double, float(x*(to-from)+from);
    // from and to are rounded to float first, as PyTorch's kernel does.
    float uniform(double from, double to);
    // Uniform double in [0, 1) from one 64-bit draw with 53 bits: used by bernoulli (dropout).
    double uniform_double();
    // at::normal_distribution<double>(mean, std), one value: Box-Muller in double on two
    // uniform_double() draws u1, u2 gives r cos(2 pi u1) with r = sqrt(-2 ln(1 - u2)), and keeps
    // r sin(2 pi u1) for the next call (PyTorch's next_double_normal_sample); the value returned
    // is z * std + mean. normal_ takes this path for tensors of fewer than 16 elements.
    double normal(double mean, double stddev);

    // torch.rand(rows, cols): filled row-major from uniform(0, 1). The matrix fills below throw
    // AttentionError on a negative size.
    Matrix rand(Eigen::Index rows, Eigen::Index cols);
    // torch.empty(rows, cols).uniform_(from, to), row-major.
    Matrix uniform(Eigen::Index rows, Eigen::Index cols, double from, double to);
    // torch.empty(rows, cols).normal_(mean, std), row-major, as PyTorch 1.13's CPU kernel on an
    // x86 CPU with AVX2 (normal_fill_AVX2): from 16 elements on, every element is first a float
    // uniform(0, 1) (one 32-bit draw), then each block of 16 is turned by Box-Muller in float
    // into 16 normals; when the size is not a multiple of 16 the last 16 elements are drawn again
    // and transformed again. Fewer than 16 elements: normal(mean, std) element by element. Throws
    // AttentionError when std is negative or NaN, as normal_ does.
    Matrix normal(Eigen::Index rows, Eigen::Index cols, double mean, double stddev);

private:
    std::mt19937 engine_;
    std::optional<double> next_double_normal_sample_;
};

}  // namespace attn
