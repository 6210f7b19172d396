// Small helpers shared by the model tests: comparisons with the tutorial's printed digits that
// report where they fail, random inputs, and catching the engine's error message.
#pragma once

#include <QString>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "model/rng.h"
#include "model/tensor.h"

namespace modtest {

using attn::Matrix;

// A printed 4-decimal value stands for the interval +-0.00005 around it; 2e-6 of slack absorbs
// float32 rounding differences between Eigen's and PyTorch's summation order.
inline constexpr double kPrintedHalfStep = 0.00005;
inline constexpr double kFloatSlack = 2e-6;

inline Matrix toMatrix(const std::vector<std::vector<double>>& rows) {
    Matrix m(static_cast<Eigen::Index>(rows.size()),
             rows.empty() ? 0 : static_cast<Eigen::Index>(rows.front().size()));
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            m(i, j) =
                static_cast<float>(rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]);
        }
    }
    return m;
}

// Empty when every cell of actual rounds to the printed 4 decimals; a printed 0.0000 in a weight
// matrix must be an exact 0 (masked weights are zeros, not small numbers) when exactZeros is set.
inline QString printedMismatches(const Matrix& actual, const Matrix& printed,
                                 bool exactZeros = false) {
    if (actual.rows() != printed.rows() || actual.cols() != printed.cols()) {
        return QStringLiteral("shape (%1, %2), printed (%3, %4)")
            .arg(actual.rows())
            .arg(actual.cols())
            .arg(printed.rows())
            .arg(printed.cols());
    }
    QString out;
    for (Eigen::Index i = 0; i < actual.rows(); ++i) {
        for (Eigen::Index j = 0; j < actual.cols(); ++j) {
            const double a = static_cast<double>(actual(i, j));
            const double p = static_cast<double>(printed(i, j));
            const bool ok = (exactZeros && p == 0.0)
                                ? actual(i, j) == 0.0f
                                : std::abs(a - p) <= kPrintedHalfStep + kFloatSlack;
            if (!ok) {
                out += QStringLiteral("[%1,%2] got %3 printed %4; ")
                           .arg(i)
                           .arg(j)
                           .arg(QString::number(a, 'f', 7))
                           .arg(QString::number(p, 'f', 4));
            }
        }
    }
    return out;
}

// Largest |a - b| over all cells; infinity when the shapes differ or a cell is NaN.
inline double maxAbsDiff(const Matrix& a, const Matrix& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) {
        return std::numeric_limits<double>::infinity();
    }
    double worst = 0.0;
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
        for (Eigen::Index j = 0; j < a.cols(); ++j) {
            const double d = std::abs(static_cast<double>(a(i, j)) - static_cast<double>(b(i, j)));
            if (std::isnan(d)) {
                return std::numeric_limits<double>::infinity();
            }
            worst = std::max(worst, d);
        }
    }
    return worst;
}

inline double maxAbs(const Matrix& a) {
    return a.size() == 0 ? 0.0 : static_cast<double>(a.cwiseAbs().maxCoeff());
}

// Inputs in [-1, 1) from their own seed, so every test case is reproducible.
inline Matrix randomInputs(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed) {
    attn::TorchGenerator gen(seed);
    return gen.uniform(rows, cols, -1.0, 1.0);
}

// The message of the AttentionError f throws; "<no error>" when it throws nothing.
inline QString errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const attn::AttentionError& e) {
        return QString::fromUtf8(e.what());
    }
    return QStringLiteral("<no error>");
}

}  // namespace modtest
