#include "ops.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>

namespace attn {

namespace {

template <typename Derived>
std::string shape_of(const Eigen::EigenBase<Derived>& m) {
    std::ostringstream out;
    out << "(" << m.rows() << ", " << m.cols() << ")";
    return out.str();
}

void check_mask_shape(const BoolMatrix& blocked, Eigen::Index rows, Eigen::Index cols,
                      std::string_view what) {
    if (blocked.rows() != rows || blocked.cols() != cols) {
        std::ostringstream msg;
        msg << "the mask has shape " << shape_of(blocked) << " but " << what << " have shape ("
            << rows << ", " << cols << "): give a (T_q, T_k) mask, one row per query and one "
            << "column per key";
        throw AttentionError(msg.str());
    }
}

void check_size(Eigen::Index n, std::string_view name) {
    if (n < 0) {
        std::ostringstream msg;
        msg << name << " = " << n << " is negative: give a size >= 0";
        throw AttentionError(msg.str());
    }
}

}  // namespace

// --- softmax ---------------------------------------------------------------------------------

Matrix softmax_rows(const Matrix& scores) {
    Matrix out(scores.rows(), scores.cols());
    if (scores.cols() == 0) {
        return out;
    }
    for (Eigen::Index i = 0; i < scores.rows(); ++i) {
        // Subtract the row max: exp() of large scores overflows float. A row of only -inf has
        // max -inf, so -inf - (-inf) = NaN and the whole row is NaN, as in torch.softmax.
        const float row_max = scores.row(i).maxCoeff();
        RowVector e = (scores.row(i).array() - row_max).exp().matrix();
        // Eigen's vectorised exp clamps its argument at about -88 on SSE/AVX2, so exp(-inf) would
        // be 3e-39 instead of PyTorch's exact 0 for a masked key; below -104 even the smallest
        // float denormal underflows to 0, so those cells are set to 0 directly.
        for (Eigen::Index j = 0; j < e.size(); ++j) {
            if (scores(i, j) - row_max < -104.0f) e(j) = 0.0f;
        }
        // PyTorch's CPU kernel multiplies by the reciprocal of the sum rather than dividing.
        const float inv_sum = 1.0f / e.sum();
        out.row(i) = e * inv_sum;
    }
    return out;
}

Matrix softmax_rows_naive(const Matrix& scores) {
    const Matrix e = scores.array().exp().matrix();
    Matrix out(scores.rows(), scores.cols());
    for (Eigen::Index i = 0; i < scores.rows(); ++i) {
        out.row(i) = e.row(i) / e.row(i).sum();
    }
    return out;
}

Matrix normalize_rows_naive(const Matrix& scores) {
    Matrix out(scores.rows(), scores.cols());
    for (Eigen::Index i = 0; i < scores.rows(); ++i) {
        out.row(i) = scores.row(i) / scores.row(i).sum();
    }
    return out;
}

// --- masks -----------------------------------------------------------------------------------

BoolMatrix causal_mask(Eigen::Index t_q, Eigen::Index t_k) {
    check_size(t_q, "T_q");
    check_size(t_k, "T_k");
    if (t_q > t_k) {
        std::ostringstream msg;
        msg << "a causal mask with T_q = " << t_q << " queries but only T_k = " << t_k
            << " keys would leave early queries nothing to attend to: give at least as many keys "
               "as queries";
        throw AttentionError(msg.str());
    }
    // Queries are the last t_q positions of the t_k-token sequence.
    const Eigen::Index offset = t_k - t_q;
    BoolMatrix m(t_q, t_k);
    for (Eigen::Index i = 0; i < t_q; ++i) {
        for (Eigen::Index j = 0; j < t_k; ++j) {
            m(i, j) = j > i + offset;
        }
    }
    return m;
}

BoolMatrix padding_mask(Eigen::Index t_q, Eigen::Index t_k, Eigen::Index valid_keys) {
    check_size(t_q, "T_q");
    check_size(t_k, "T_k");
    if (valid_keys < 0 || valid_keys > t_k) {
        std::ostringstream msg;
        msg << "valid_keys = " << valid_keys << " is outside [0, T_k = " << t_k
            << "]: give the number of real (non-padding) tokens";
        throw AttentionError(msg.str());
    }
    BoolMatrix m(t_q, t_k);
    for (Eigen::Index i = 0; i < t_q; ++i) {
        for (Eigen::Index j = 0; j < t_k; ++j) {
            m(i, j) = j >= valid_keys;
        }
    }
    return m;
}

BoolMatrix window_mask(Eigen::Index t_q, Eigen::Index t_k, Eigen::Index w) {
    if (w < 1) {
        std::ostringstream msg;
        msg << "window = " << w << " sees no key: give a window of at least 1 token";
        throw AttentionError(msg.str());
    }
    BoolMatrix m = causal_mask(t_q, t_k);
    const Eigen::Index offset = t_k - t_q;  // queries are the last t_q positions
    for (Eigen::Index i = 0; i < t_q; ++i) {
        for (Eigen::Index j = 0; j < t_k; ++j) {
            m(i, j) = m(i, j) || j <= i + offset - w;
        }
    }
    return m;
}

BoolMatrix blocked_where_zero(const Matrix& mask) { return (mask.array() == 0.0f).matrix(); }

BoolMatrix blocked_where_one(const Matrix& mask) { return (mask.array() == 1.0f).matrix(); }

Matrix additive_mask_from_keep(const RowVector& keep, Eigen::Index t_q, float fill) {
    check_size(t_q, "T_q");
    check_finite(Matrix(keep), "keep");
    Matrix out(t_q, keep.cols());
    for (Eigen::Index j = 0; j < keep.cols(); ++j) {
        // GPT-2 computes (1 - mask) * fill; kept keys get an exact 0 so that a -inf fill does not
        // turn into 0 * -inf = NaN.
        const float v = keep(j) == 1.0f ? 0.0f : (1.0f - keep(j)) * fill;
        out.col(j).setConstant(v);
    }
    return out;
}

Matrix masked_fill(const Matrix& scores, const BoolMatrix& blocked, float fill) {
    check_mask_shape(blocked, scores.rows(), scores.cols(), "the scores");
    return blocked.select(fill, scores);
}

Matrix mask_and_renormalize(const Matrix& weights, const BoolMatrix& blocked) {
    check_mask_shape(blocked, weights.rows(), weights.cols(), "the weights");
    Matrix out = blocked.select(0.0f, weights);
    for (Eigen::Index i = 0; i < out.rows(); ++i) {
        // Divides like the tutorial's `masked / row_sums`; a fully blocked row is 0 / 0 = NaN.
        const float row_sum = out.row(i).sum();
        out.row(i) /= row_sum;
    }
    return out;
}

// --- dropout ---------------------------------------------------------------------------------

Matrix dropout(const Matrix& x, float p, TorchGenerator& gen, BoolMatrix* kept) {
    check_dropout_p(p);
    if (p == 0.0f) {
        if (kept != nullptr) {
            *kept = BoolMatrix::Constant(x.rows(), x.cols(), true);
        }
        return x;
    }
    if (p == 1.0f) {
        if (kept != nullptr) {
            *kept = BoolMatrix::Constant(x.rows(), x.cols(), false);
        }
        return x * 0.0f;  // input * zeros, as PyTorch's dropout: NaN stays NaN
    }
    // bernoulli_(1 - p) compares in double; noise.div_(1 - p) then divides in float.
    const double keep_prob = 1.0 - static_cast<double>(p);
    const float noise_kept = 1.0f / static_cast<float>(keep_prob);
    Matrix out(x.rows(), x.cols());
    BoolMatrix pattern(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        for (Eigen::Index j = 0; j < x.cols(); ++j) {
            const bool keep = gen.uniform_double() < keep_prob;
            pattern(i, j) = keep;
            out(i, j) = x(i, j) * (keep ? noise_kept : 0.0f);
        }
    }
    if (kept != nullptr) {
        *kept = std::move(pattern);
    }
    return out;
}

// --- scaled dot-product attention ------------------------------------------------------------

namespace {

void validate_attention(const Matrix& queries, const Matrix& keys, const Matrix& values,
                        const AttentionOptions& options, const TorchGenerator* gen) {
    check_not_empty(queries, "queries");
    check_not_empty(keys, "keys");
    if (queries.cols() == 0) {
        throw AttentionError("queries have no columns (d_k = 0): give d_k >= 1");
    }
    check_cols(keys, queries.cols(), "keys", "d_k (the width of queries)");
    if (values.rows() != keys.rows()) {
        std::ostringstream msg;
        msg << "values has " << values.rows() << " rows but keys has " << keys.rows()
            << ": give one value row per key";
        throw AttentionError(msg.str());
    }
    check_finite(queries, "queries");
    check_finite(keys, "keys");
    check_finite(values, "values");
    check_dropout_p(options.dropout_p);

    const Eigen::Index t_q = queries.rows();
    const Eigen::Index t_k = keys.rows();
    if (options.blocked) {
        check_mask_shape(*options.blocked, t_q, t_k, "the scores");
    }
    if (options.additive_mask) {
        const Matrix& add = *options.additive_mask;
        if (add.rows() != t_q || add.cols() != t_k) {
            std::ostringstream msg;
            msg << "additive_mask has shape " << shape_of(add) << " but the scores have shape ("
                << t_q << ", " << t_k << "): give a (T_q, T_k) additive mask";
            throw AttentionError(msg.str());
        }
        // -inf is a legitimate additive mask value; NaN would poison the whole row.
        for (Eigen::Index i = 0; i < add.rows(); ++i) {
            for (Eigen::Index j = 0; j < add.cols(); ++j) {
                if (std::isnan(add(i, j))) {
                    std::ostringstream msg;
                    msg << "additive_mask has NaN at row " << i + 1 << ", column " << j + 1
                        << " (counting from 1): use 0 for kept keys and a large negative number "
                           "for masked ones";
                    throw AttentionError(msg.str());
                }
            }
        }
    }
    if (std::isnan(options.fill_value)) {
        throw AttentionError("fill_value is NaN: fill masked scores with -inf, -1e9 or -1e4");
    }
    if (options.scale && options.scale_dim &&
        !(*options.scale_dim > 0.0f && std::isfinite(*options.scale_dim))) {
        std::ostringstream msg;
        msg << "scale_dim = " << *options.scale_dim
            << " cannot be square-rooted into a divisor: give a positive width, or leave it "
               "unset to use d_k";
        throw AttentionError(msg.str());
    }
    if (options.head_mask && !std::isfinite(*options.head_mask)) {
        std::ostringstream msg;
        msg << "head_mask = " << *options.head_mask
            << " is not finite: give 1 to keep the head or 0 to silence it";
        throw AttentionError(msg.str());
    }
    const bool draws = options.training && options.dropout_p > 0.0f && options.dropout_p < 1.0f;
    if (draws && gen == nullptr) {
        std::ostringstream msg;
        msg << "dropout p = " << options.dropout_p
            << " in training mode needs random numbers: pass a TorchGenerator, or set "
               "training = false";
        throw AttentionError(msg.str());
    }
}

}  // namespace

AttentionResult scaled_dot_product_attention(const Matrix& queries, const Matrix& keys,
                                             const Matrix& values, const AttentionOptions& options,
                                             TorchGenerator* gen) {
    validate_attention(queries, keys, values, options, gen);
    const Eigen::Index t_q = queries.rows();
    const Eigen::Index t_k = keys.rows();

    AttentionResult r;
    r.fill_value = options.fill_value;
    r.fill_before_scale = options.fill_before_scale;
    r.scores = queries * keys.transpose();

    if (options.scale) {
        const double d = options.scale_dim ? static_cast<double>(*options.scale_dim)
                                           : static_cast<double>(queries.cols());
        // `d ** 0.5` is a Python double, rounded to float when it divides a float tensor.
        r.scale_divisor = static_cast<float>(std::sqrt(d));
        r.scaled = r.scores / r.scale_divisor;
    } else {
        r.scale_divisor = 1.0f;
        r.scaled = r.scores;
    }

    r.blocked = options.blocked ? *options.blocked : BoolMatrix::Constant(t_q, t_k, false);
    // masked_fill(scores, fill) / d equals masked_fill(scores / d, fill / d) cell for cell.
    const float fill =
        options.fill_before_scale ? options.fill_value / r.scale_divisor : options.fill_value;
    r.masked = options.blocked ? masked_fill(r.scaled, r.blocked, fill) : r.scaled;
    if (options.additive_mask) {
        r.masked += *options.additive_mask;
    }

    r.weights = softmax_rows(r.masked);

    if (options.training && options.dropout_p > 0.0f && gen != nullptr) {
        r.dropped = dropout(r.weights, options.dropout_p, *gen, &r.kept);
    } else if (options.training && options.dropout_p > 0.0f) {
        // Only p == 1 gets here (validation demands a generator for 0 < p < 1): it draws nothing,
        // and multiplies by zero as PyTorch does, so NaN weights stay NaN.
        r.dropped = r.weights * 0.0f;
        r.kept = BoolMatrix::Constant(t_q, t_k, false);
    } else {
        r.dropped = r.weights;
        r.kept = BoolMatrix::Constant(t_q, t_k, true);
    }
    if (options.head_mask) {
        r.dropped *= *options.head_mask;
    }

    r.context = r.dropped * values;
    return r;
}

// --- heads -----------------------------------------------------------------------------------

Heads split_heads(const Matrix& x, Eigen::Index num_heads) {
    check_heads_divide(x.cols(), num_heads, "d_out");
    const Eigen::Index head_dim = x.cols() / num_heads;
    Heads heads;
    heads.reserve(static_cast<std::size_t>(num_heads));
    for (Eigen::Index h = 0; h < num_heads; ++h) {
        heads.emplace_back(x.middleCols(h * head_dim, head_dim));
    }
    return heads;
}

Matrix merge_heads(const Heads& heads) {
    if (heads.empty()) {
        throw AttentionError("merge_heads got no heads: give at least one head");
    }
    const Eigen::Index rows = heads.front().rows();
    const Eigen::Index head_dim = heads.front().cols();
    for (std::size_t h = 1; h < heads.size(); ++h) {
        if (heads[h].rows() != rows || heads[h].cols() != head_dim) {
            std::ostringstream msg;
            msg << "head " << h + 1 << " has shape " << shape_of(heads[h]) << " but head 1 has "
                << shape_of(heads.front()) << ": every head needs the same (T, head_dim)";
            throw AttentionError(msg.str());
        }
    }
    const auto num_heads = static_cast<Eigen::Index>(heads.size());
    Matrix out(rows, num_heads * head_dim);
    for (Eigen::Index h = 0; h < num_heads; ++h) {
        out.middleCols(h * head_dim, head_dim) = heads[static_cast<std::size_t>(h)];
    }
    return out;
}

// --- grouped-query heads ---------------------------------------------------------------------

Eigen::Index kv_head_of(Eigen::Index query_head, Eigen::Index num_heads,
                        Eigen::Index num_kv_heads) {
    if (num_kv_heads < 1 || num_heads < 1 || num_heads % num_kv_heads != 0) {
        std::ostringstream msg;
        msg << "num_kv_heads = " << num_kv_heads << " does not divide num_heads = " << num_heads
            << ": give a divisor of num_heads (num_heads for multi-head, 1 for multi-query)";
        throw AttentionError(msg.str());
    }
    if (query_head < 0 || query_head >= num_heads) {
        std::ostringstream msg;
        msg << "query head " << query_head << " does not exist: give 0.." << num_heads - 1;
        throw AttentionError(msg.str());
    }
    return query_head / (num_heads / num_kv_heads);
}

Heads repeat_kv(const Heads& kv, Eigen::Index num_heads) {
    const auto groups = static_cast<Eigen::Index>(kv.size());
    Heads out;
    out.reserve(static_cast<std::size_t>(std::max<Eigen::Index>(num_heads, 0)));
    for (Eigen::Index h = 0; h < num_heads; ++h) {
        out.push_back(kv[static_cast<std::size_t>(kv_head_of(h, num_heads, groups))]);
    }
    return out;
}

// --- RoPE ------------------------------------------------------------------------------------

RopeAngles rope_angles(Eigen::Index tokens, Eigen::Index head_dim, Eigen::Index position_offset,
                       float base) {
    if (head_dim < 2 || head_dim % 2 != 0) {
        std::ostringstream msg;
        msg << "RoPE needs an even head_dim but head_dim = " << head_dim
            << ": it rotates coordinate pairs (i, i + head_dim/2); choose d_out and num_heads "
               "so that d_out / num_heads is even";
        throw AttentionError(msg.str());
    }
    if (!std::isfinite(base) || base <= 1.0f) {
        std::ostringstream msg;
        msg << "rope_base = " << base << " gives no rotation frequencies: give a base > 1 "
            << "(LLaMA uses 10000)";
        throw AttentionError(msg.str());
    }
    if (tokens < 0 || position_offset < 0) {
        std::ostringstream msg;
        msg << "RoPE positions start at " << position_offset << " for " << tokens
            << " tokens: give a position_offset >= 0";
        throw AttentionError(msg.str());
    }
    const Eigen::Index half = head_dim / 2;
    RowVector inv_freq(half);
    const auto dim = static_cast<float>(head_dim);
    for (Eigen::Index i = 0; i < half; ++i) {
        // All float32, as transformers: base ** (arange(0, dim, 2).float() / dim), then 1 / that.
        const float exponent = static_cast<float>(2 * i) / dim;
        inv_freq(i) = 1.0f / std::pow(base, exponent);
    }
    return rope_angles(tokens, inv_freq, position_offset);
}

RopeAngles rope_angles(Eigen::Index tokens, const RowVector& inv_freq,
                       Eigen::Index position_offset) {
    const Eigen::Index half = inv_freq.size(), head_dim = 2 * half;
    RopeAngles a;
    a.inv_freq = inv_freq;
    a.cos.resize(tokens, head_dim);
    a.sin.resize(tokens, head_dim);
    for (Eigen::Index t = 0; t < tokens; ++t) {
        const auto position = static_cast<float>(position_offset + t);
        for (Eigen::Index i = 0; i < half; ++i) {
            const float angle = position * a.inv_freq(i);  // torch.outer in float32
            a.cos(t, i) = a.cos(t, i + half) = std::cos(angle);
            a.sin(t, i) = a.sin(t, i + half) = std::sin(angle);
        }
    }
    return a;
}

Matrix rotate_half(const Matrix& x) {
    const Eigen::Index half = x.cols() / 2;
    Matrix out(x.rows(), x.cols());
    out.leftCols(half) = -x.rightCols(x.cols() - half);
    out.rightCols(x.cols() - half) = x.leftCols(half);
    return out;
}

Matrix apply_rope(const Matrix& x, const RopeAngles& angles) {
    if (x.rows() != angles.cos.rows() || x.cols() != angles.cos.cols()) {
        std::ostringstream msg;
        msg << "RoPE angles are (" << angles.cos.rows() << ", " << angles.cos.cols()
            << ") but the head is (" << x.rows() << ", " << x.cols()
            << "): compute them with rope_angles for the same tokens and head_dim";
        throw AttentionError(msg.str());
    }
    return (x.array() * angles.cos.array() + rotate_half(x).array() * angles.sin.array()).matrix();
}

Matrix rope_rotate(const Matrix& x, Eigen::Index position_offset, float base, RopeAngles* angles) {
    RopeAngles a = rope_angles(x.rows(), x.cols(), position_offset, base);
    Matrix out = apply_rope(x, a);
    if (angles != nullptr) *angles = std::move(a);
    return out;
}

}  // namespace attn
