// Helpers of the engine's extreme-input suites (test_bad_input.cpp, test_numerics.cpp): special
// float values, the engine's error message, what softmax promises for any row, and
// MultiHeadAttention recomputed in double as an independent reference.
#pragma once

#include <QString>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "model/modules.h"
#include "model/runner.h"
#include "model/tensor.h"
#include "runner_test_helpers.h"

namespace extremetest {

using attn::AttentionError;
using attn::Matrix;
using attn::ModuleKind;
using Thrower = std::function<void()>;

inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kSubnormal = std::numeric_limits<float>::denorm_min();
inline constexpr double kEps = std::numeric_limits<float>::epsilon();  // 2^-23

inline QString errorOf(const Thrower& f) {
    try {
        f();
    } catch (const AttentionError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

// Every row is a probability distribution, or entirely NaN: what softmax promises for any scores.
inline QString distributionOrNaN(const Matrix& weights) {
    for (Eigen::Index i = 0; i < weights.rows(); ++i) {
        const Eigen::Index nans = weights.row(i).array().isNaN().count();
        if (nans == weights.cols()) {
            continue;
        }
        if (nans != 0 || !weights.row(i).allFinite() || weights.row(i).minCoeff() < 0.0f ||
            std::abs(static_cast<double>(weights.row(i).sum()) - 1.0) > 1e-5) {
            return QStringLiteral("row %1 is neither a distribution nor all NaN").arg(i + 1);
        }
    }
    return {};
}

// MultiHeadAttention (eval, causal) recomputed in double from the module's own float weights, for
// the query rows listed: an independent reference for the float engine and the fast path.
inline Eigen::MatrixXd doubleMha(const attn::MultiHeadAttention& m, const Matrix& x,
                                 const std::vector<Eigen::Index>& rows) {
    using Eigen::MatrixXd;
    const MatrixXd X = x.cast<double>();
    auto project = [&X](const attn::Linear& l) {
        MatrixXd y = X * l.weight.cast<double>().transpose();
        if (l.bias.size() > 0) {
            y.rowwise() += l.bias.cast<double>();
        }
        return y;
    };
    const MatrixXd q = project(m.W_query), k = project(m.W_key), v = project(m.W_value);
    MatrixXd out(static_cast<Eigen::Index>(rows.size()), m.d_out);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const Eigen::Index t = rows[r];
        Eigen::RowVectorXd concat(m.d_out);
        for (Eigen::Index h = 0; h < m.num_heads; ++h) {
            const Eigen::Index c0 = h * m.head_dim;
            // Causal: query t sees keys 0..t.
            Eigen::RowVectorXd s =
                (k.block(0, c0, t + 1, m.head_dim) * q.block(t, c0, 1, m.head_dim).transpose())
                    .transpose() /
                std::sqrt(static_cast<double>(m.head_dim));
            s = (s.array() - s.maxCoeff()).exp().matrix();
            s /= s.sum();
            concat.segment(c0, m.head_dim) = s * v.block(0, c0, t + 1, m.head_dim);
        }
        out.row(static_cast<Eigen::Index>(r)) =
            concat * m.out_proj.weight.cast<double>().transpose() + m.out_proj.bias.cast<double>();
    }
    return out;
}

// max |actual - expected| / max(1, |expected|).
inline double relativeError(const Matrix& actual, const Eigen::MatrixXd& expected) {
    double worst = 0.0;
    for (Eigen::Index i = 0; i < expected.rows(); ++i) {
        for (Eigen::Index j = 0; j < expected.cols(); ++j) {
            const double e = expected(i, j);
            const double d =
                std::abs(static_cast<double>(actual(i, j)) - e) / std::max(1.0, std::abs(e));
            worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(worst, d);
        }
    }
    return worst;
}

inline const ModuleKind kModules[] = {ModuleKind::SelfAttentionV1,    ModuleKind::SelfAttentionV2,
                                      ModuleKind::CausalAttention,    ModuleKind::MultiHeadWrapper,
                                      ModuleKind::MultiHeadAttention, ModuleKind::BertMultiHead,
                                      ModuleKind::Gpt2Attention,      ModuleKind::CrossAttention};

}  // namespace extremetest
