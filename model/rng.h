// PyTorch-compatible random numbers, so that manual_seed(123) reproduces the tutorial's tensors.
//
// The CPU generator of PyTorch is a standard MT19937; what matters is how each distribution turns
// its 32- or 64-bit draws into values, reproduced here draw for draw.
#pragma once

#include "tensor.h"

#include <cstdint>
#include <random>

namespace attn {

class TorchGenerator {
public:
    explicit TorchGenerator(std::uint64_t seed = 67280421310721ULL) { manual_seed(seed); }

    // torch.manual_seed(s): a standard std::mt19937 seeded with the low 32 bits of s.
    void manual_seed(std::uint64_t seed);

    std::uint32_t random();    // one 32-bit draw
    std::uint64_t random64();  // (first << 32) | second, as PyTorch's CPU generator makes it

    // uniform_(from, to) on float: x = (v & (2^24-1)) * 2^-24 in double, float(x*(to-from)+from);
    // from and to are rounded to float first, as PyTorch's kernel does.
    float uniform(double from, double to);
    // Uniform double in [0, 1) from one 64-bit draw with 53 bits: used by bernoulli (dropout).
    double uniform_double();
    // Standard normal from Box-Muller on two uniform doubles. PyTorch's normal_ stream is not
    // reproduced (no tutorial prints a normally initialised tensor); it only needs to be seeded.
    float normal(float mean, float stddev);

    // torch.rand(rows, cols): filled row-major from uniform(0, 1). The matrix fills below throw
    // AttentionError on a negative size.
    Matrix rand(Eigen::Index rows, Eigen::Index cols);
    // torch.empty(rows, cols).uniform_(from, to), row-major.
    Matrix uniform(Eigen::Index rows, Eigen::Index cols, double from, double to);
    // torch.empty(rows, cols).normal_(mean, std), row-major.
    Matrix normal(Eigen::Index rows, Eigen::Index cols, float mean, float stddev);

private:
    std::mt19937 engine_;
};

}  // namespace attn
