// The explanation of one cell of a walkthrough step: its formula with its own numbers, computed
// from the step record (how the matrix derives from the others), language-neutral.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "formula_text.h"
#include "number_format.h"
#include "walkthrough.h"

namespace attn {

std::string subscript(Eigen::Index one_based) {
    static const char* const digits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
    std::string s;
    for (const char c : std::to_string(one_based)) s += digits[c - '0'];
    return s;
}

std::string superscript(Eigen::Index one_based) {
    static const char* const digits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    std::string s;
    for (const char c : std::to_string(one_based)) s += digits[c - '0'];
    return s;
}

namespace {

using formula::bare;
using formula::num;
using formula::products;
using formula::sqrt_text;

// "ω₂₃": the symbol with 1-based row and column subscripts.
std::string cell_name(const StepMatrix& m, Eigen::Index row, Eigen::Index col) {
    const Eigen::Index r = m.row_vector_index ? m.query_index : row + m.row_offset;
    return m.symbol + subscript(r + 1) + subscript(col + m.col_offset + 1);
}

std::string row_name(const StepMatrix& m, Eigen::Index row) {
    const Eigen::Index r = m.row_vector_index ? m.query_index : row + m.row_offset;
    return m.symbol + subscript(r + 1);
}

// Why query `row` may not see key `col` under a mask of the masks chapter (0-based, whole
// matrix); empty when it may.
std::string blocked_reason(const MaskRule& rule, Eigen::Index row, Eigen::Index col) {
    const std::string key = "key " + std::to_string(col + 1);
    if (rule.valid_tokens >= 0 && col >= rule.valid_tokens)
        return key + " is padding (the sentence has " + std::to_string(rule.valid_tokens) +
               " tokens)";
    if (rule.causal && col > row) return key + " comes after query " + std::to_string(row + 1);
    if (rule.window > 0 && col <= row - rule.window)
        return key + " is outside query " + std::to_string(row + 1) + "'s window of the last " +
               std::to_string(rule.window) + " tokens (" + std::to_string(row - rule.window + 2) +
               "–" + std::to_string(row + 1) + ")";
    return {};
}

// A padded query row of the masks chapter: computed as any other and then ignored.
std::string padded_query_note(const MaskRule& rule, Eigen::Index row) {
    if (rule.valid_tokens < 0 || row < rule.valid_tokens) return {};
    return " (query " + std::to_string(row + 1) + " is padding: its row is computed, then ignored)";
}

// "1–2": the 1-based columns of head h (0-based) in a fused matrix.
std::string head_columns(Eigen::Index h, Eigen::Index head_dim) {
    return std::to_string(h * head_dim + 1) + "–" + std::to_string((h + 1) * head_dim);
}

// The text of cell (row, col) of m, without explain_cell's head prefix; Concat recurses into it.
std::string explain_body(const Step& step, const StepMatrix& m, Eigen::Index row, Eigen::Index col);

// One cell of a step and what its explanation quotes, with one method per Derivation kind.
struct CellText {
    const Step& step;
    const StepMatrix& m;
    Eigen::Index row, col;
    double value;
    const StepMatrix* lhs;  // m's operands in its frame; null when m names none
    const StepMatrix* rhs;
    std::string name;  // "ω₂₃"
    bool blocked;      // filled before softmax

    std::string fused_parameter() const;
    std::string dot_product() const;
    std::string projection() const;
    std::string weighted_sum() const;
    std::string softmax() const;
    std::string naive_norm() const;
    std::string mask_product() const;
    std::string renormalize() const;
    std::string masked_fill() const;
    std::string dropout() const;
    std::string difference() const;
    std::string scale() const;
    std::string linear() const;
    std::string concat() const;
    std::string causal_mask() const;
    std::string rule_mask() const;
    std::string running_max() const;
    std::string rescale_factor() const;
    std::string running_sum() const;
    std::string tile_normalize() const;
    std::string tile_map() const;
    std::string kv_head_map() const;
    std::string rope_angle() const;
    std::string rope_rotation() const;
};

// A fused parameter: which head a column feeds.
std::string CellText::fused_parameter() const {
    if (m.head_dim > 0) {
        const Eigen::Index h = col / m.head_dim;
        return m.symbol + "[" + std::to_string(row + 1) + ", " + std::to_string(col + 1) +
               "] = " + bare(value) + ": column " + std::to_string(col + 1) + " feeds head " +
               std::to_string(h + 1) + " (columns " + head_columns(h, m.head_dim) +
               "), its column " + std::to_string(col % m.head_dim + 1);
    }
    return {};
}

// A score: query · key, scaled when the divisor is not 1; −∞ when a tile masks it.
std::string CellText::dot_product() const {
    if (!lhs || !rhs) return {};
    const RowVector a = lhs->values.row(row);
    const RowVector b = rhs->values.row(col);
    const Eigen::Index key = col + rhs->row_offset;
    if (blocked)
        return name + " = −∞: key " + std::to_string(key + 1) + " comes after query " +
               std::to_string(row + m.row_offset + 1) + ", masked inside the tile";
    std::string s = name + " = " + row_name(*lhs, row) + " · " + rhs->symbol + subscript(key + 1);
    const bool scaled = m.divisor != 1.0f;
    if (scaled) s += " / " + sqrt_text(m.divisor);
    s += " = ";
    s += scaled || a.size() > 1 ? "(" + products(a, b) + ")" : products(a, b);
    if (scaled) s += " / " + num(static_cast<double>(m.divisor));
    return s + " = " + bare(value);
}

// A projection: a row of the inputs times a column of the weights.
std::string CellText::projection() const {
    if (!lhs || !rhs) return {};
    const RowVector a = lhs->values.row(row);
    const RowVector b = rhs->values.col(col).transpose();
    return name + " = " + row_name(*lhs, row) + " · " + rhs->symbol + "[:, " +
           std::to_string(col + 1) + "] = " + products(a, b) + " = " + bare(value);
}

// A context vector: the weights times a column of the values.
std::string CellText::weighted_sum() const {
    if (!lhs || !rhs) return {};
    const RowVector a = lhs->values.row(row);
    const RowVector b = rhs->values.col(col).transpose();
    const std::string i = subscript((m.row_vector_index ? m.query_index : row) + 1);
    return name + " = Σⱼ " + lhs->symbol + i + "ⱼ · " + rhs->symbol + "ⱼ" + subscript(col + 1) +
           " = " + products(a, b) + " = " + bare(value);
}

// A weight: softmax (minus the row max) or the naive one, after ω / √d_k when scaling happens
// here.
std::string CellText::softmax() const {
    if (!lhs) return {};
    const std::string src = cell_name(*lhs, row, col);
    const std::string i = subscript((lhs->row_vector_index ? lhs->query_index : row) + 1);
    const bool scaled = m.divisor != 1.0f;
    // What is exponentiated: the score itself, or ω̃ = ω / √d_k when scaling happens here.
    const std::string x = scaled ? "ω̃" : lhs->symbol;
    const std::string xij = scaled ? x + i + subscript(col + 1) : src;
    const std::string xrow = x + i + "ⱼ";
    const std::string note = padded_query_note(m.mask_rule, row);
    if (blocked)
        return name + " = 0: " + src + " was filled with " +
               num(static_cast<double>(m.fill_value)) + " before softmax, and exp(−∞) = 0" + note;
    const RowVector z = lhs->values.row(row).array() / m.divisor;
    std::string s;
    if (scaled)
        s = xij + " = " + src + " / " + sqrt_text(m.divisor) + " = " +
            num(static_cast<double>(lhs->values(row, col))) + " / " +
            bare(static_cast<double>(m.divisor)) + " = " + bare(static_cast<double>(z(col))) + "; ";
    if (m.derivation == Derivation::NaiveSoftmax) {
        double denominator = 0.0;
        for (Eigen::Index k = 0; k < z.size(); ++k)
            denominator += static_cast<double>(std::exp(z(k)));
        const double numerator = static_cast<double>(std::exp(z(col)));
        return s + name + " = exp(" + xij + ") / Σⱼ exp(" + xrow + ") = exp(" +
               num(static_cast<double>(z(col))) + ") / " + bare(denominator) + " = " +
               bare(numerator) + " / " + bare(denominator) + " = " + bare(value);
    }
    double shift = -std::numeric_limits<double>::infinity();
    for (Eigen::Index k = 0; k < z.size(); ++k)
        if (!std::isinf(z(k))) shift = std::max(shift, static_cast<double>(z(k)));
    if (std::isinf(shift)) shift = 0.0;
    double denominator = 0.0;
    for (Eigen::Index k = 0; k < z.size(); ++k)
        denominator += std::exp(static_cast<double>(z(k)) - shift);
    const double shifted = static_cast<double>(z(col)) - shift;
    const double numerator = std::exp(shifted);
    return s + name + " = exp(" + xij + " − max) / Σⱼ exp(" + xrow +
           " − max), max = " + bare(shift) + ": exp(" + num(static_cast<double>(z(col))) + " − " +
           num(shift) + ") = exp(" + bare(shifted) + ") = " + bare(numerator) + "; " +
           bare(numerator) + " / " + bare(denominator) + " = " + bare(value) + note;
}

// A weight as the score over the row's sum.
std::string CellText::naive_norm() const {
    if (!lhs) return {};
    const double sum = static_cast<double>(lhs->values.row(row).sum());
    const std::string i = subscript((lhs->row_vector_index ? lhs->query_index : row) + 1);
    return name + " = " + cell_name(*lhs, row, col) + " / Σⱼ " + lhs->symbol + i +
           "ⱼ = " + num(static_cast<double>(lhs->values(row, col))) + " / " + bare(sum) + " = " +
           bare(value);
}

// A weight times the 0/1 causal mask.
std::string CellText::mask_product() const {
    if (!lhs || !rhs) return {};
    return name + " = " + cell_name(*lhs, row, col) + " · mask" + subscript(row + 1) +
           subscript(col + 1) + " = " + num(static_cast<double>(lhs->values(row, col))) + " · " +
           bare(static_cast<double>(rhs->values(row, col))) + " = " + bare(value);
}

// A masked weight over its row's new sum.
std::string CellText::renormalize() const {
    if (!lhs) return {};
    const double sum = static_cast<double>(lhs->values.row(row).sum());
    return name + " = " + cell_name(*lhs, row, col) + " / Σⱼ " + lhs->symbol + subscript(row + 1) +
           "ⱼ = " + num(static_cast<double>(lhs->values(row, col))) + " / " + bare(sum) + " = " +
           bare(value);
}

// A score kept, or filled and why.
std::string CellText::masked_fill() const {
    if (!lhs) return {};
    if (blocked) {
        const std::string reason = blocked_reason(m.mask_rule, row, col);
        return name + " = " + num(static_cast<double>(m.fill_value)) + ": " +
               (reason.empty() ? "key " + std::to_string(col + 1) + " is masked" : reason);
    }
    return name + " = " + cell_name(*lhs, row, col) + " = " + bare(value);
}

// A weight after dropout: masked, dropped or scaled by 1 / (1 − p).
std::string CellText::dropout() const {
    if (!lhs || !rhs) return {};
    const double before = static_cast<double>(lhs->values(row, col));
    if (blocked)
        return name + " = 0: masked before softmax (" + cell_name(*lhs, row, col) +
               " = 0), dropout keeps 0";
    if (rhs->values(row, col) == 0.0f)
        return name + " = 0: dropped (" + cell_name(*lhs, row, col) + " was " + bare(before) + ")";
    return name + " = " + cell_name(*lhs, row, col) + " / (1 − p) = " + num(before) + " / (1 − " +
           format_shortest(m.dropout_p) + ") = " + bare(value);
}

// |a − b| of two matrices' cells.
std::string CellText::difference() const {
    if (!lhs || !rhs) return {};
    return "|" + cell_name(*lhs, row, col) + " − " + cell_name(*rhs, row, col) + "| = |" +
           bare(static_cast<double>(lhs->values(row, col))) + " − " +
           bare(static_cast<double>(rhs->values(row, col))) + "| = " + bare(value);
}

// A score multiplied by a factor.
std::string CellText::scale() const {
    if (!lhs) return {};
    // Same symbol as its source (the scores, only larger): the product, then the value.
    return cell_name(*lhs, row, col) + " · " + format_shortest(m.factor) + " = " +
           num(static_cast<double>(lhs->values(row, col))) + " · " + format_shortest(m.factor) +
           " = " + bare(value);
}

// A Linear layer's output: a row times a column of the weights, plus the bias.
std::string CellText::linear() const {
    if (!lhs || !rhs) return {};
    const RowVector a = lhs->values.row(row);
    const RowVector b = rhs->values.col(col).transpose();
    std::string s = name + " = " + row_name(*lhs, row) + " · " + rhs->symbol + "[:, " +
                    std::to_string(col + 1) + "]";
    if (m.bias.size() > col) s += " + b" + subscript(col + 1);
    s += " = " + products(a, b);
    if (m.bias.size() > col) s += " + " + num(static_cast<double>(m.bias(col)));
    return s + " = " + bare(value);
}

// The heads side by side: which head a column comes from, with that head's explanation.
std::string CellText::concat() const {
    if (m.head_dim <= 0) return {};
    const Eigen::Index h = col / m.head_dim;
    const Eigen::Index c = col % m.head_dim;
    if (h >= static_cast<Eigen::Index>(m.parts.size())) return {};
    const StepMatrix* part = step.find(m.parts[static_cast<std::size_t>(h)], m.frame);
    std::string s = name + " = head " + std::to_string(h + 1) + ", column " +
                    std::to_string(c + 1) + " (columns " + head_columns(h, m.head_dim) +
                    " are head " + std::to_string(h + 1) + ")";
    if (!part) return s + " = " + bare(value);
    const std::string inner = explain_body(step, *part, row, c);
    return s + ": " + (inner.empty() ? cell_name(*part, row, c) + " = " + bare(value) : inner);
}

// The causal mask: 1 where the key is not after the query.
std::string CellText::causal_mask() const {
    if (col <= row)
        return name + " = 1: key " + std::to_string(col + 1) + " ≤ query " +
               std::to_string(row + 1);
    return name + " = 0: key " + std::to_string(col + 1) + " comes after query " +
           std::to_string(row + 1);
}

// A mask of the masks chapter: 1, or 0 and why.
std::string CellText::rule_mask() const {
    const std::string reason = blocked_reason(m.mask_rule, row, col);
    if (!reason.empty()) return name + " = 0: " + reason;
    return name + " = 1: query " + std::to_string(row + 1) + " sees key " +
           std::to_string(col + 1) + padded_query_note(m.mask_rule, row);
}

// FlashAttention's running maximum m of a query row.
std::string CellText::running_max() const {
    if (!lhs || !rhs) return {};
    std::string args = num(static_cast<double>(rhs->values(row, 0)));
    for (Eigen::Index j = 0; j < lhs->values.cols(); ++j)
        args += ", " + num(static_cast<double>(lhs->values(row, j)));
    return row_name(m, row) + " = max(m_old, the tile's " + lhs->symbol + ") = max(" + args +
           ") = " + bare(value);
}

// FlashAttention's rescale factor exp(m_old − m_new).
std::string CellText::rescale_factor() const {
    if (!lhs || !rhs) return {};
    const double before = static_cast<double>(lhs->values(row, 0));
    const double after = static_cast<double>(rhs->values(row, 0));
    std::string s = row_name(m, row) + " = exp(m_old − m_new) = exp(" + num(before) + " − " +
                    num(after) + ") = " + bare(value);
    if (std::isinf(before)) return s + ": nothing was summed before this tile";
    if (before == after) return s + ": the maximum did not grow, nothing to rescale";
    return s + ": the maximum grew, so ℓ and o so far shrink by this factor";
}

// FlashAttention's running sum ℓ or unnormalised output o.
std::string CellText::running_sum() const {
    if (!lhs || !rhs || m.parts.size() < 2) return {};
    const bool sum = m.derivation == Derivation::RunningSum;
    const StepMatrix* before = sum ? rhs : step.find(m.parts[0], m.frame);
    const StepMatrix* scale = step.find(m.parts[sum ? 0 : 1], m.frame);
    const StepMatrix* m_new = step.find(m.parts[sum ? 1 : 2], m.frame);
    if (!before || !scale || !m_new) return {};
    const double mx = static_cast<double>(m_new->values(row, 0));
    std::string terms;
    for (Eigen::Index j = 0; j < lhs->values.cols(); ++j) {
        const double score = static_cast<double>(lhs->values(row, j));
        if (std::isinf(score)) continue;  // masked inside the tile: exp(−∞) = 0
        terms += " + exp(" + num(score) + " − " + num(mx) + ")";
        if (!sum) terms += "·" + num(static_cast<double>(rhs->values(j, col)));
    }
    const std::string i = subscript(row + m.row_offset + 1);
    const std::string target = sum ? row_name(m, row) : name;
    const std::string old_name = sum ? "ℓ_old" : "o_old";
    return target + " = " + old_name + " · s" + i + " + Σⱼ exp(ω̃" + i + "ⱼ − m" + i + ")" +
           (sum ? "" : " · vⱼ" + subscript(col + 1)) + " = " +
           num(static_cast<double>(before->values(row, sum ? 0 : col))) + " · " +
           num(static_cast<double>(scale->values(row, 0))) + terms + " = " + bare(value);
}

// The tiled output: o over ℓ.
std::string CellText::tile_normalize() const {
    if (!lhs || !rhs) return {};
    return name + " = " + cell_name(*lhs, row, col) + " / " + row_name(*rhs, row) + " = " +
           num(static_cast<double>(lhs->values(row, col))) + " / " +
           bare(static_cast<double>(rhs->values(row, 0))) + " = " + bare(value);
}

// One tile of the tile map: skipped, computed now, earlier or not yet.
std::string CellText::tile_map() const {
    // The labels name the tile's queries and keys ("q 1–2", "k 4"), short at the end.
    const auto label = [](const std::vector<std::string>& labels, Eigen::Index i) {
        return i < static_cast<Eigen::Index>(labels.size()) ? labels[static_cast<std::size_t>(i)]
                                                            : std::to_string(i + 1);
    };
    const std::string head = name + " = " + format_shortest(value) + ": tile " +
                             label(m.row_labels, row) + " × " + label(m.col_labels, col);
    if (blocked) return head + ", skipped: every key comes after every query";
    if (value >= 1.0) return head + ", computed now";
    if (value > 0.0) return head + ", computed earlier: only m, ℓ and o were kept";
    return head + ", not yet computed";
}

// Which K/V head a query head reads.
std::string CellText::kv_head_map() const {
    const Eigen::Index heads = m.values.rows();
    const Eigen::Index groups = m.values.cols();
    if (groups <= 0 || heads % groups != 0) return {};
    const Eigen::Index size = heads / groups;
    const Eigen::Index g = row / size;
    const std::string reads =
        "query head " + std::to_string(row + 1) + " reads K/V head " + std::to_string(g + 1);
    if (col != g) return name + " = 0: " + reads + ", not " + std::to_string(col + 1);
    return name + " = 1: " + reads + " = ⌊" + std::to_string(row) + " / " + std::to_string(size) +
           "⌋ + 1 (" + std::to_string(heads) + " query heads / " + std::to_string(groups) +
           " K/V heads = groups of " + std::to_string(size) + ": query heads " +
           std::to_string(g * size + 1) + "–" + std::to_string((g + 1) * size) + " share it)";
}

// RoPE's angle: position · θ of the column's pair.
std::string CellText::rope_angle() const {
    if (m.rope_base <= 0.0f) return name + " = 0: without RoPE nothing turns";
    const Eigen::Index hd = 2 * m.values.cols();
    const Eigen::Index position = m.position_offset + row;
    const double theta = std::pow(static_cast<double>(m.rope_base),
                                  -2.0 * static_cast<double>(col) / static_cast<double>(hd));
    std::string pos = std::to_string(position);
    if (m.position_offset != 0)
        pos = "(" + std::to_string(m.position_offset) + " + " + std::to_string(row) + ")";
    return name + " = position · θ" + subscript(col + 1) + " = " + pos + " · " +
           format_shortest(m.rope_base) + "^(−2·" + std::to_string(col) + "/" + std::to_string(hd) +
           ") = " + std::to_string(position) + " · " + bare(theta) + " = " + bare(value) + " rad";
}

// RoPE's rotation of a pair of columns.
std::string CellText::rope_rotation() const {
    if (!lhs || !rhs) return {};
    const Eigen::Index half = m.values.cols() / 2;
    if (half <= 0 || rhs->values.cols() < half) return {};
    const Eigen::Index i = col % half;
    const Eigen::Index partner = col < half ? col + half : col - half;
    const double theta = static_cast<double>(rhs->values(row, i));
    const double x = static_cast<double>(lhs->values(row, col));
    const double y = static_cast<double>(lhs->values(row, partner));
    const std::string sign = col < half ? " − " : " + ";
    return name + " = " + cell_name(*lhs, row, col) + "·cos θ" + sign +
           cell_name(*lhs, row, partner) + "·sin θ, θ = " + cell_name(*rhs, row, i) + " = " +
           bare(theta) + " rad: " + num(x) + "·" + num(std::cos(theta)) + sign + num(y) + "·" +
           num(std::sin(theta)) + " = " + bare(value);
}

std::string explain_body(const Step& step, const StepMatrix& m, Eigen::Index row,
                         Eigen::Index col) {
    if (row < 0 || col < 0 || row >= m.values.rows() || col >= m.values.cols()) return {};
    const CellText cell{step,
                        m,
                        row,
                        col,
                        static_cast<double>(m.values(row, col)),
                        m.lhs.empty() ? nullptr : step.find(m.lhs, m.frame),
                        m.rhs.empty() ? nullptr : step.find(m.rhs, m.frame),
                        cell_name(m, row, col),
                        m.blocked.size() > 0 && m.blocked(row, col)};
    switch (m.derivation) {
        case Derivation::None:
            return cell.fused_parameter();
        case Derivation::DotProduct:
            return cell.dot_product();
        case Derivation::Projection:
            return cell.projection();
        case Derivation::WeightedSum:
            return cell.weighted_sum();
        case Derivation::Softmax:
        case Derivation::NaiveSoftmax:
            return cell.softmax();
        case Derivation::NaiveNorm:
            return cell.naive_norm();
        case Derivation::MaskProduct:
            return cell.mask_product();
        case Derivation::Renormalize:
            return cell.renormalize();
        case Derivation::MaskedFill:
            return cell.masked_fill();
        case Derivation::Dropout:
            return cell.dropout();
        case Derivation::Difference:
            return cell.difference();
        case Derivation::Scale:
            return cell.scale();
        case Derivation::Linear:
            return cell.linear();
        case Derivation::Concat:
            return cell.concat();
        case Derivation::CausalMask:
            return cell.causal_mask();
        case Derivation::RuleMask:
            return cell.rule_mask();
        case Derivation::RunningMax:
            return cell.running_max();
        case Derivation::RescaleFactor:
            return cell.rescale_factor();
        case Derivation::RunningSum:
        case Derivation::RunningOutput:
            return cell.running_sum();
        case Derivation::TileNormalize:
            return cell.tile_normalize();
        case Derivation::TileMap:
            return cell.tile_map();
        case Derivation::KvHeadMap:
            return cell.kv_head_map();
        case Derivation::RopeAngle:
            return cell.rope_angle();
        case Derivation::RopeRotation:
            return cell.rope_rotation();
    }
    return {};
}

}  // namespace

std::string explain_cell(const Step& step, const StepMatrix& m, Eigen::Index row,
                         Eigen::Index col) {
    std::string s = explain_body(step, m, row, col);
    if (s.empty()) return s;
    if (m.head > 0) return "head " + std::to_string(m.head) + ": " + s;
    // A projection into heads side by side: its column says which head the cell feeds.
    if (m.head_dim > 0 && m.derivation == Derivation::Projection)
        return "head " + std::to_string(col / m.head_dim + 1) + ": " + s;
    return s;
}

}  // namespace attn
