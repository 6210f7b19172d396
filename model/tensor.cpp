#include "tensor.h"

#include <array>
#include <charconv>
#include <cmath>
#include <sstream>
#include <string_view>

#include "number_format.h"

namespace attn {

namespace {

// Head counts that divide width, for the fix in the error message.
std::string divisors_of(Eigen::Index width) {
    std::ostringstream out;
    bool first = true;
    for (Eigen::Index n = 1; n <= width; ++n) {
        if (width % n == 0) {
            out << (first ? "" : ", ") << n;
            first = false;
        }
    }
    return out.str();
}

}  // namespace

void check_finite(const Matrix& m, std::string_view name) {
    // A vectorised test first (every layer of a pass checks its input): x · 0 is 0 for a finite
    // x and NaN for NaN or ±Inf, so the sum is NaN exactly when one is there. The loop finds it.
    if (!std::isnan((m.array() * 0.0f).sum())) return;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            const float v = m(i, j);
            if (std::isfinite(v)) {
                continue;
            }
            // Rows and columns count from 1, as the tutorial numbers its tokens x^(1) .. x^(6).
            std::ostringstream msg;
            msg << name << " has " << (std::isnan(v) ? "NaN" : (v > 0 ? "+Inf" : "-Inf"))
                << " at row " << i + 1 << ", column " << j + 1
                << " (counting from 1): replace it with a finite number";
            throw AttentionError(msg.str());
        }
    }
}

void check_not_empty(const Matrix& m, std::string_view name) {
    if (m.rows() == 0) {
        std::ostringstream msg;
        msg << name << " is empty: give at least one token";
        throw AttentionError(msg.str());
    }
}

void check_cols(const Matrix& m, Eigen::Index cols, std::string_view name,
                std::string_view expected_name) {
    if (m.cols() != cols) {
        std::ostringstream msg;
        msg << name << " has " << m.cols() << " columns but " << expected_name << " = " << cols
            << ": give " << name << " exactly " << cols << " columns";
        throw AttentionError(msg.str());
    }
}

void check_heads_divide(Eigen::Index width, Eigen::Index num_heads, std::string_view width_name) {
    if (width < 1) {
        std::ostringstream msg;
        msg << width_name << " = " << width << " leaves no width to split into heads: give "
            << width_name << " >= 1";
        throw AttentionError(msg.str());
    }
    if (num_heads < 1) {
        std::ostringstream msg;
        msg << "num_heads = " << num_heads << " is not a number of heads: choose num_heads among "
            << divisors_of(width);
        throw AttentionError(msg.str());
    }
    if (width % num_heads != 0) {
        std::ostringstream msg;
        msg << width_name << " = " << width << " is not divisible by num_heads = " << num_heads
            << ": choose num_heads among " << divisors_of(width);
        throw AttentionError(msg.str());
    }
}

void check_dropout_p(float p) {
    // Written so that NaN fails too: every comparison with NaN is false.
    if (!(p >= 0.0f && p <= 1.0f)) {
        std::ostringstream msg;
        // Shortest digits that read back as p: 1.0000001 must not print as "1".
        msg << "dropout p = " << format_shortest(p)
            << " is outside [0, 1]: use a probability such as 0.1 or 0.5";
        throw AttentionError(msg.str());
    }
}

Batch stack_copies(const Matrix& x, int copies) {
    if (copies < 1) {
        std::ostringstream msg;
        msg << "batch size = " << copies << " is not a batch: give a batch size of at least 1";
        throw AttentionError(msg.str());
    }
    return Batch(static_cast<std::size_t>(copies), x);
}

}  // namespace attn
