// A naive loop reference of scaled dot-product attention in double, written from the formulas and
// sharing no code with model/ops.cpp, so the Eigen engine can be compared against it over a sweep
// of shapes (ggml's tests/test-backend-ops.cpp does the same for its kernels).
//
// Shapes: queries (T_q, d_k), keys (T_k, d_k), values (T_k, d_v); every result is (T_q, T_k)
// except context (T_q, d_v). Masks use the engine's convention: true = blocked.
//
// Tolerance: compare float results with kReferenceTolerance relative to max(1, |reference|).
// The engine rounds every product and exp() to float (epsilon 1.2e-7); with d_k <= 5, inputs in
// [-2, 2] and scores up to ~20, the accumulated error stays below ~2e-6, so 1e-5 fails on any real
// mistake (a wrong scale, a wrong mask cell, a transposed product) but not on rounding.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "model/tensor.h"

namespace attn::reference {

inline constexpr double kReferenceTolerance = 1e-5;

using Grid = std::vector<std::vector<double>>;  // row-major, grid[i][j]

struct ReferenceOptions {
    bool scale = true;
    double scale_dim = 0.0;  // the d under the square root; 0 means d_k (the query width)
    const BoolMatrix* blocked = nullptr;  // (T_q, T_k), true = fill before softmax
    double fill_value = -std::numeric_limits<double>::infinity();
    const Matrix* additive_mask = nullptr;  // (T_q, T_k), added after filling
    const BoolMatrix* kept = nullptr;       // dropout keep pattern to apply, with dropout_p
    double dropout_p = 0.0;
    double head_mask = 1.0;
};

struct ReferenceResult {
    Grid scores, scaled, masked, weights, dropped, context;
};

inline Grid zeros(Eigen::Index rows, Eigen::Index cols) {
    return Grid(static_cast<std::size_t>(rows),
                std::vector<double>(static_cast<std::size_t>(cols)));
}

// A causal mask written from its definition: query i (the (T_k - T_q + i)-th token) sees keys
// 0 .. T_k - T_q + i.
inline BoolMatrix causal(Eigen::Index t_q, Eigen::Index t_k) {
    BoolMatrix m(t_q, t_k);
    for (Eigen::Index i = 0; i < t_q; ++i) {
        for (Eigen::Index j = 0; j < t_k; ++j) {
            m(i, j) = (j - (t_k - t_q)) > i;
        }
    }
    return m;
}

inline ReferenceResult attention(const Matrix& queries, const Matrix& keys, const Matrix& values,
                                 const ReferenceOptions& options = {}) {
    const Eigen::Index t_q = queries.rows();
    const Eigen::Index t_k = keys.rows();
    const Eigen::Index d_k = queries.cols();
    const Eigen::Index d_v = values.cols();
    const auto at = [](Eigen::Index i) { return static_cast<std::size_t>(i); };

    ReferenceResult r;
    r.scores = zeros(t_q, t_k);
    r.scaled = zeros(t_q, t_k);
    r.masked = zeros(t_q, t_k);
    r.weights = zeros(t_q, t_k);
    r.dropped = zeros(t_q, t_k);
    r.context = zeros(t_q, d_v);

    const double d = options.scale_dim > 0.0 ? options.scale_dim : static_cast<double>(d_k);
    const double divisor = options.scale ? std::sqrt(d) : 1.0;

    for (Eigen::Index i = 0; i < t_q; ++i) {
        for (Eigen::Index j = 0; j < t_k; ++j) {
            double dot = 0.0;
            for (Eigen::Index c = 0; c < d_k; ++c) {
                dot += static_cast<double>(queries(i, c)) * static_cast<double>(keys(j, c));
            }
            r.scores[at(i)][at(j)] = dot;
            r.scaled[at(i)][at(j)] = dot / divisor;
            double m = r.scaled[at(i)][at(j)];
            if (options.blocked != nullptr && (*options.blocked)(i, j)) {
                m = options.fill_value;
            }
            if (options.additive_mask != nullptr) {
                m += static_cast<double>((*options.additive_mask)(i, j));
            }
            r.masked[at(i)][at(j)] = m;
        }

        // Softmax with the row max subtracted; a row of only -inf gives -inf - -inf = NaN.
        double row_max = -std::numeric_limits<double>::infinity();
        for (Eigen::Index j = 0; j < t_k; ++j) {
            row_max = std::max(row_max, r.masked[at(i)][at(j)]);
        }
        double sum = 0.0;
        for (Eigen::Index j = 0; j < t_k; ++j) {
            r.weights[at(i)][at(j)] = std::exp(r.masked[at(i)][at(j)] - row_max);
            sum += r.weights[at(i)][at(j)];
        }
        for (Eigen::Index j = 0; j < t_k; ++j) {
            r.weights[at(i)][at(j)] /= sum;
            double w = r.weights[at(i)][at(j)];
            if (options.kept != nullptr) {
                w = (*options.kept)(i, j) ? w / (1.0 - options.dropout_p) : 0.0;
            }
            r.dropped[at(i)][at(j)] = w * options.head_mask;
        }

        for (Eigen::Index c = 0; c < d_v; ++c) {
            double acc = 0.0;
            for (Eigen::Index j = 0; j < t_k; ++j) {
                acc += r.dropped[at(i)][at(j)] * static_cast<double>(values(j, c));
            }
            r.context[at(i)][at(c)] = acc;
        }
    }
    return r;
}

// Largest |actual - expected| / max(1, |expected|) over all cells; infinity on a shape mismatch or
// when exactly one side is NaN (both NaN counts as agreement: a fully masked row), or when
// infinities differ.
inline double max_relative_error(const Matrix& actual, const Grid& expected) {
    const double inf = std::numeric_limits<double>::infinity();
    if (static_cast<std::size_t>(actual.rows()) != expected.size()) {
        return inf;
    }
    double worst = 0.0;
    for (Eigen::Index i = 0; i < actual.rows(); ++i) {
        const std::vector<double>& row = expected[static_cast<std::size_t>(i)];
        if (static_cast<std::size_t>(actual.cols()) != row.size()) {
            return inf;
        }
        for (Eigen::Index j = 0; j < actual.cols(); ++j) {
            const double a = static_cast<double>(actual(i, j));
            const double e = row[static_cast<std::size_t>(j)];
            if (std::isnan(a) || std::isnan(e)) {
                if (std::isnan(a) != std::isnan(e)) {
                    return inf;
                }
                continue;
            }
            if (std::isinf(a) || std::isinf(e)) {
                if (a != e) {
                    return inf;
                }
                continue;
            }
            worst = std::max(worst, std::abs(a - e) / std::max(1.0, std::abs(e)));
        }
    }
    return worst;
}

}  // namespace attn::reference
