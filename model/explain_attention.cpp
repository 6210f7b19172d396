#include "explain_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "formula_text.h"
#include "ops.h"

namespace attn {

namespace {

using formula::bare;
using formula::cell;
using formula::num;
using formula::sqrt_text;

// Agreement of a recomputed value with the engine's, up to float rounding.
bool agrees(double recomputed, double engine) {
    return std::abs(recomputed - engine) <= 1e-4 * (1.0 + std::abs(engine));
}

// "a₁·b₁ + a₂·b₂ + …" written out (formula::products); *sum receives Σ a·b in double.
std::string products(const Eigen::Ref<const RowVector>& a, const Eigen::Ref<const RowVector>& b,
                     double* sum) {
    double total = 0.0;
    for (Eigen::Index k = 0; k < a.size(); ++k)
        total += static_cast<double>(a(k)) * static_cast<double>(b(k));
    *sum = total;
    return formula::products(a, b);
}

// "= (a·b + …) = v" when the products reproduce `value`, otherwise "= v".
std::string dot_text(const Eigen::Ref<const RowVector>& a, const Eigen::Ref<const RowVector>& b,
                     double value) {
    if (a.size() == 0 || a.size() != b.size()) return " = " + bare(value);
    double sum = 0.0;
    const std::string p = products(a, b, &sum);
    if (!agrees(sum, value)) return " = " + bare(value);
    return " = " + p + " = " + bare(value);
}

// Softmax of one entry of a row: x = the row that went into softmax (scaled, filled), `name`
// the weight's symbol, `xname` the entry's symbol, `xrow` the row's.
std::string softmax_text(const RowVector& x, Eigen::Index col, double weight,
                         const std::string& name, const std::string& xname,
                         const std::string& xrow) {
    double shift = -std::numeric_limits<double>::infinity();
    for (Eigen::Index k = 0; k < x.size(); ++k)
        if (std::isfinite(x(k))) shift = std::max(shift, static_cast<double>(x(k)));
    if (std::isinf(shift))
        return name + " = " + bare(weight) + ": every score of the row is masked";
    double denominator = 0.0;
    for (Eigen::Index k = 0; k < x.size(); ++k)
        denominator += std::exp(static_cast<double>(x(k)) - shift);
    const double shifted = static_cast<double>(x(col)) - shift;
    const double numerator = std::exp(shifted);
    return name + " = exp(" + xname + " − max) / Σⱼ exp(" + xrow + " − max), max = " + bare(shift) +
           ": exp(" + num(x(col)) + " − " + num(shift) + ") = exp(" + num(shifted) +
           ") = " + bare(numerator) + "; " + bare(numerator) + " / " + bare(denominator) + " = " +
           bare(weight);
}

// The columns of head h in a projection `width` wide split into `heads` heads, or an empty
// segment when the width does not split evenly.
RowVector head_slice(const Matrix& m, Eigen::Index row, std::size_t h, std::size_t heads) {
    const Eigen::Index count = static_cast<Eigen::Index>(heads);
    if (count == 0 || row >= m.rows() || m.cols() % count != 0) return {};
    const Eigen::Index hd = m.cols() / count;
    return m.row(row).segment(static_cast<Eigen::Index>(h) * hd, hd);
}

// Σⱼ α'ᵢⱼ · vⱼc of one head, with the products when they reproduce the head's context.
std::string weighted_sum(const RunResult& run, std::size_t h, Eigen::Index row, Eigen::Index c) {
    const AttentionResult& r = run.output.heads[0][h];
    const std::string i = subscript(row + 1);
    std::string s = cell("z", row, c) + " = Σⱼ α" + i + "ⱼ · vⱼ" + subscript(c + 1);
    const double value = r.context(row, c);
    if (!run.output.values.empty()) {
        const Matrix& v = run.output.values[0];
        const std::size_t heads = run.output.heads[0].size();
        if (v.rows() == r.dropped.cols() && v.cols() % static_cast<Eigen::Index>(heads) == 0 &&
            v.cols() / static_cast<Eigen::Index>(heads) == r.context.cols()) {
            const Eigen::Index hd = r.context.cols();
            const RowVector column = v.col(static_cast<Eigen::Index>(h) * hd + c).transpose();
            return s + dot_text(r.dropped.row(row), column, value);
        }
    }
    return s + " = " + bare(value);
}

}  // namespace

std::string explain_attention_weight(const RunResult& run, std::size_t head, Eigen::Index row,
                                     Eigen::Index col) {
    if (run.output.heads.empty() || head >= run.output.heads[0].size()) return {};
    const AttentionResult& r = run.output.heads[0][head];
    if (row < 0 || col < 0 || row >= r.weights.rows() || col >= r.weights.cols()) return {};
    const std::string omega = cell("ω", row, col);
    std::string s = omega + " = q" + subscript(row + 1) + " · k" + subscript(col + 1);
    const std::size_t heads = run.output.heads[0].size();
    const RowVector q = run.output.queries.empty()
                            ? RowVector()
                            : head_slice(run.output.queries[0], row, head, heads);
    const RowVector k =
        run.output.keys.empty() ? RowVector() : head_slice(run.output.keys[0], col, head, heads);
    s += dot_text(q, k, r.scores(row, col));
    const bool scaled = r.scale_divisor != 1.0f;
    std::string x = omega;
    if (scaled) {
        x = cell("ω̃", row, col);
        s += "; " + x + " = " + omega + " / " + sqrt_text(r.scale_divisor) + " = " +
             num(r.scores(row, col)) + " / " + bare(r.scale_divisor) + " = " +
             bare(r.scaled(row, col));
    }
    const std::string alpha = cell("α", row, col);
    const bool blocked = r.blocked.size() > 0 && r.blocked(row, col);
    if (blocked) {
        s += "; masked: " + x + " is filled with " + format_compact(r.fill_value) +
             " before softmax, so " + alpha + " = " + bare(r.weights(row, col));
    } else {
        const std::string xrow = (scaled ? "ω̃" : "ω") + subscript(row + 1) + "ⱼ";
        s += "; " + softmax_text(r.masked.row(row), col, r.weights(row, col), alpha, x, xrow);
    }
    if (run.training && run.config.dropout > 0.0f) {
        const std::string after = cell("α′", row, col);
        if (r.kept.size() > 0 && !r.kept(row, col))
            s += "; dropout zeroed it: " + after + " = 0";
        else
            s += "; dropout keeps it, scaled: " + after + " = " + alpha + " / (1 − " +
                 format_shortest(run.config.dropout) + ") = " + num(r.weights(row, col)) + " / " +
                 bare(1.0 - static_cast<double>(run.config.dropout)) + " = " +
                 bare(r.dropped(row, col));
    }
    return s;
}

std::string explain_output(const RunResult& run, Eigen::Index row, Eigen::Index col) {
    if (run.output.context_vecs.empty() || run.output.heads.empty()) return {};
    const Matrix& y = run.output.context_vecs[0];
    if (row < 0 || col < 0 || row >= y.rows() || col >= y.cols()) return {};
    const double value = y(row, col);
    const std::vector<AttentionResult>& heads = run.output.heads[0];
    if (run.output.concat.empty()) {
        // One head: the output is its weighted sum of values.
        if (heads.size() != 1 || col >= heads[0].context.cols()) return {};
        return weighted_sum(run, 0, row, col);
    }
    const Matrix& concat = run.output.concat[0];
    const FusedProjections fused = fused_projections(run);
    if (fused.out_proj.rows() == concat.cols() && col < fused.out_proj.cols()) {
        // An output projection mixes all heads: y = concat · W_o + b.
        std::optional<double> bias;
        for (const NamedMatrix& w : run.weights)
            if ((w.name == "out_proj.bias" || w.name == "linears.3.bias" ||
                 w.name == "c_proj.bias") &&
                w.value.size() > col)
                bias = w.value(0, col);
        std::string s = cell("y", row, col) + " = concat" + subscript(row + 1) + " · W_o[:, " +
                        std::to_string(col + 1) + "]";
        if (bias) s += " + b" + subscript(col + 1);
        double sum = 0.0;
        const std::string p = products(concat.row(row), fused.out_proj.col(col).transpose(), &sum);
        if (!agrees(sum + bias.value_or(0.0), value)) return s + " = " + bare(value);
        s += " = " + p;
        if (bias) s += " + " + num(*bias);
        return s + " = " + bare(value);
    }
    // Heads concatenated without a projection: the column belongs to one head.
    if (heads.empty() || heads[0].context.cols() == 0) return {};
    const Eigen::Index hd = heads[0].context.cols();
    const std::size_t h = static_cast<std::size_t>(col / hd);
    if (h >= heads.size()) return {};
    const Eigen::Index c = col % hd;
    return cell("y", row, col) + " = head " + std::to_string(h + 1) + ", column " +
           std::to_string(c + 1) + ": " + weighted_sum(run, h, row, c);
}

std::string explain_kv_weight(const KvTraceStep& step, std::size_t head, Eigen::Index col) {
    if (head >= step.attn_weights.size() || col < 0 || col >= step.attn_weights[head].size())
        return {};
    const Eigen::Index t = step.token;
    const double weight = step.attn_weights[head](col);
    const std::string alpha = cell("α", t, col);
    // Grouped-query attention: the cache holds fewer heads, and query head `head` reads the
    // K/V head of its group.
    const std::size_t kv_head =
        !step.cache_keys.empty() && step.cache_keys.size() < step.attn_weights.size()
            ? static_cast<std::size_t>(
                  kv_head_of(static_cast<Eigen::Index>(head),
                             static_cast<Eigen::Index>(step.attn_weights.size()),
                             static_cast<Eigen::Index>(step.cache_keys.size())))
            : head;
    if (head >= step.query.size() || kv_head >= step.cache_keys.size())
        return alpha + " = " + bare(weight);
    const RowVector& q = step.query[head];
    const Matrix& keys = step.cache_keys[kv_head];
    if (keys.rows() != step.attn_weights[head].size() || keys.cols() != q.size())
        return alpha + " = " + bare(weight);
    // The stepper decodes MultiHeadAttention / GPT-2, which divide by √head_dim.
    const double divisor = std::sqrt(static_cast<double>(q.size()));
    RowVector scores(keys.rows());
    for (Eigen::Index j = 0; j < keys.rows(); ++j)
        scores(j) = static_cast<float>(static_cast<double>(q.dot(keys.row(j))) / divisor);
    const std::string omega = cell("ω", t, col);
    std::string s = omega + " = q" + subscript(t + 1) + " · k" + subscript(col + 1);
    double dot = 0.0;
    const std::string p = products(q, keys.row(col), &dot);
    s += " = " + p + " = " + bare(dot);
    const std::string scaled = cell("ω̃", t, col);
    s += "; " + scaled + " = " + omega + " / √" + std::to_string(q.size()) + " = " +
         bare(scores(col));
    s += "; " + softmax_text(scores, col, weight, alpha, scaled, "ω̃" + subscript(t + 1) + "ⱼ");
    return s;
}

std::string explain_kv_cache(const KvTraceStep& step, std::size_t head, bool values,
                             Eigen::Index row, Eigen::Index col) {
    const Heads& cache = values ? step.cache_values : step.cache_keys;
    if (head >= cache.size() || row < 0 || col < 0 || row >= cache[head].rows() ||
        col >= cache[head].cols())
        return {};
    const std::string symbol = values ? "v" : "k";
    const std::string when = row == step.token
                                 ? "computed in this step from token " + std::to_string(row + 1) +
                                       " and appended to the cache"
                                 : "computed at step " + std::to_string(row + 1) +
                                       " and read back from the cache, not recomputed";
    return cell(symbol, row, col) + " = x" + subscript(row + 1) + " · W_" +
           (values ? "value" : "key") + " (head " + std::to_string(head + 1) + ", column " +
           std::to_string(col + 1) + ") = " + bare(cache[head](row, col)) + ": " + when;
}

std::string explain_kv_query(const KvTraceStep& step, std::size_t head, Eigen::Index col) {
    if (head >= step.query.size() || col < 0 || col >= step.query[head].size()) return {};
    return cell("q", step.token, col) + " = x" + subscript(step.token + 1) + " · W_query (head " +
           std::to_string(head + 1) + ", column " + std::to_string(col + 1) +
           ") = " + bare(step.query[head](col)) +
           ": only the new token's query is needed, earlier queries are never used again";
}

std::string explain_kv_output(const KvTraceStep& step, Eigen::Index row, Eigen::Index col) {
    if (col < 0 || col >= step.output.size() || col >= step.full_output.size()) return {};
    const double cached = step.output(col), full = step.full_output(col);
    const std::string y = cell("y", step.token, col);
    if (row == 0)
        return y + " with the cache = " + bare(cached) + "; the full recomputation gives " +
               bare(full) + ", |difference| = " + format_compact(std::abs(cached - full));
    if (row == 1)
        return y + " recomputed over all " + std::to_string(step.token + 1) +
               " tokens (causal) = " + bare(full) + "; with the cache " + bare(cached) +
               ", |difference| = " + format_compact(std::abs(cached - full));
    return {};
}

}  // namespace attn
