// The explanation of one cell of a walkthrough step: its formula with its own numbers, computed
// from the step record (how the matrix derives from the others), language-neutral.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "number_format.h"
#include "walkthrough.h"

namespace attn {

std::string subscript(Eigen::Index one_based) {
    static const char* const digits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
    std::string s;
    for (const char c : std::to_string(one_based)) s += digits[c - '0'];
    return s;
}

namespace {

std::string num(double v) {
    std::string s = format_fixed(v);
    if (s[0] == '-') return "(−" + s.substr(1) + ")";
    return s;
}

std::string bare(double v) {
    std::string s = num(v);
    if (s.size() > 2 && s[0] == '(') s = "−" + s.substr(4, s.size() - 5);
    return s;
}

// "ω₂₃": the symbol with 1-based row and column subscripts.
std::string cell_name(const StepMatrix& m, Eigen::Index row, Eigen::Index col) {
    const Eigen::Index r = m.row_vector_index ? m.query_index : row;
    return m.symbol + subscript(r + 1) + subscript(col + 1);
}

std::string row_name(const StepMatrix& m, Eigen::Index row) {
    const Eigen::Index r = m.row_vector_index ? m.query_index : row;
    return m.symbol + subscript(r + 1);
}

std::string sqrt_text(float divisor) {
    const long d = std::lround(static_cast<double>(divisor) * static_cast<double>(divisor));
    return "√" + std::to_string(d);
}

// Sum of products written out, shortened past eight terms.
std::string products(const Eigen::Ref<const RowVector>& a, const Eigen::Ref<const RowVector>& b) {
    std::string s;
    const Eigen::Index n = a.size();
    for (Eigen::Index k = 0; k < n; ++k) {
        if (n > 8 && k == 4) {
            s += " + … ";
            k = n - 3;
        } else if (k > 0) {
            s += " + ";
        }
        s += num(static_cast<double>(a(k))) + "·" + num(static_cast<double>(b(k)));
    }
    return s;
}

}  // namespace

std::string explain_cell(const Step& step, const StepMatrix& m, Eigen::Index row,
                         Eigen::Index col) {
    if (row < 0 || col < 0 || row >= m.values.rows() || col >= m.values.cols()) return {};
    const double value = static_cast<double>(m.values(row, col));
    const StepMatrix* lhs = m.lhs.empty() ? nullptr : step.find(m.lhs);
    const StepMatrix* rhs = m.rhs.empty() ? nullptr : step.find(m.rhs);
    const std::string name = cell_name(m, row, col);
    const bool blocked = m.blocked.size() > 0 && m.blocked(row, col);

    switch (m.derivation) {
        case Derivation::None:
            return {};
        case Derivation::DotProduct: {
            if (!lhs || !rhs) return {};
            const RowVector a = lhs->values.row(row);
            const RowVector b = rhs->values.row(col);
            std::string s =
                name + " = " + row_name(*lhs, row) + " · " + rhs->symbol + subscript(col + 1);
            const bool scaled = m.divisor != 1.0f;
            if (scaled) s += " / " + sqrt_text(m.divisor);
            s += " = ";
            s += scaled || a.size() > 1 ? "(" + products(a, b) + ")" : products(a, b);
            if (scaled) s += " / " + num(static_cast<double>(m.divisor));
            return s + " = " + bare(value);
        }
        case Derivation::Projection: {
            if (!lhs || !rhs) return {};
            const RowVector a = lhs->values.row(row);
            const RowVector b = rhs->values.col(col).transpose();
            return name + " = " + row_name(*lhs, row) + " · " + rhs->symbol + "[:, " +
                   std::to_string(col + 1) + "] = " + products(a, b) + " = " + bare(value);
        }
        case Derivation::WeightedSum: {
            if (!lhs || !rhs) return {};
            const RowVector a = lhs->values.row(row);
            const RowVector b = rhs->values.col(col).transpose();
            const std::string i = subscript((m.row_vector_index ? m.query_index : row) + 1);
            return name + " = Σⱼ " + lhs->symbol + i + "ⱼ · " + rhs->symbol + "ⱼ" +
                   subscript(col + 1) + " = " + products(a, b) + " = " + bare(value);
        }
        case Derivation::Softmax:
        case Derivation::NaiveSoftmax: {
            if (!lhs) return {};
            const std::string src = cell_name(*lhs, row, col);
            const std::string i = subscript((lhs->row_vector_index ? lhs->query_index : row) + 1);
            const std::string div = m.divisor != 1.0f ? " / " + sqrt_text(m.divisor) : "";
            if (blocked)
                return name + " = 0: " + src + " was filled with " +
                       num(static_cast<double>(m.fill_value)) + " before softmax, and exp(−∞) = 0";
            const RowVector z = lhs->values.row(row).array() / m.divisor;
            const bool stable = m.derivation == Derivation::Softmax;
            double shift = 0.0;
            if (stable) {
                shift = -std::numeric_limits<double>::infinity();
                for (Eigen::Index k = 0; k < z.size(); ++k)
                    if (!std::isinf(z(k))) shift = std::max(shift, static_cast<double>(z(k)));
                if (std::isinf(shift)) shift = 0.0;
            }
            double denominator = 0.0;
            for (Eigen::Index k = 0; k < z.size(); ++k)
                denominator += std::exp(static_cast<double>(z(k)) - shift);
            const double numerator = std::exp(static_cast<double>(z(col)) - shift);
            std::string s =
                name + " = exp(" + src + div + ") / Σⱼ exp(" + lhs->symbol + i + "ⱼ" + div + ")";
            if (stable && shift != 0.0)
                s += " = exp(" + num(static_cast<double>(z(col))) + " − " + num(shift) +
                     ") / Σⱼ exp(… − " + num(shift) + ")";
            return s + " = " + bare(numerator) + " / " + bare(denominator) + " = " + bare(value);
        }
        case Derivation::NaiveNorm: {
            if (!lhs) return {};
            const double sum = static_cast<double>(lhs->values.row(row).sum());
            const std::string i = subscript((lhs->row_vector_index ? lhs->query_index : row) + 1);
            return name + " = " + cell_name(*lhs, row, col) + " / Σⱼ " + lhs->symbol + i +
                   "ⱼ = " + num(static_cast<double>(lhs->values(row, col))) + " / " + bare(sum) +
                   " = " + bare(value);
        }
        case Derivation::MaskProduct: {
            if (!lhs || !rhs) return {};
            return name + " = " + cell_name(*lhs, row, col) + " · mask" + subscript(row + 1) +
                   subscript(col + 1) + " = " + num(static_cast<double>(lhs->values(row, col))) +
                   " · " + bare(static_cast<double>(rhs->values(row, col))) + " = " + bare(value);
        }
        case Derivation::Renormalize: {
            if (!lhs) return {};
            const double sum = static_cast<double>(lhs->values.row(row).sum());
            return name + " = " + cell_name(*lhs, row, col) + " / Σⱼ " + lhs->symbol +
                   subscript(row + 1) + "ⱼ = " + num(static_cast<double>(lhs->values(row, col))) +
                   " / " + bare(sum) + " = " + bare(value);
        }
        case Derivation::MaskedFill: {
            if (!lhs) return {};
            if (blocked)
                return name + " = " + num(static_cast<double>(m.fill_value)) + ": key " +
                       std::to_string(col + 1) + " comes after query " + std::to_string(row + 1);
            return name + " = " + cell_name(*lhs, row, col) + " = " + bare(value);
        }
        case Derivation::Dropout: {
            if (!lhs || !rhs) return {};
            const double before = static_cast<double>(lhs->values(row, col));
            if (rhs->values(row, col) == 0.0f)
                return name + " = 0: dropped (was " + bare(before) + ")";
            const double p = static_cast<double>(m.dropout_p);
            return name + " = " + cell_name(*lhs, row, col) + " / (1 − " +
                   format_shortest(m.dropout_p) + ") = " + num(before) + " / " + bare(1.0 - p) +
                   " = " + bare(value);
        }
        case Derivation::Difference: {
            if (!lhs || !rhs) return {};
            return "|" + cell_name(*lhs, row, col) + " − " + cell_name(*rhs, row, col) + "| = |" +
                   bare(static_cast<double>(lhs->values(row, col))) + " − " +
                   bare(static_cast<double>(rhs->values(row, col))) + "| = " + bare(value);
        }
    }
    return {};
}

}  // namespace attn
