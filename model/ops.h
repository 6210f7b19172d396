// The operations of attention, one plain function each: inputs in, result out, no hidden state.
// Shapes as in tensor.h. Masks are BoolMatrix with true = blocked.
#pragma once

#include <limits>
#include <optional>

#include "rng.h"
#include "tensor.h"

namespace attn {

inline constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// --- softmax ---------------------------------------------------------------------------------
// (R, C) -> (R, C). Subtracts each row's max first: exp() of large scores overflows float.
// A row that is entirely -inf gives NaN, as torch.softmax does (documented in docs/design.md).
Matrix softmax_rows(const Matrix& scores);
// The tutorial's naive softmax exp(x) / sum(exp(x)): overflows to inf/NaN for scores above ~88.
Matrix softmax_rows_naive(const Matrix& scores);
// The tutorial's first normalisation x / sum(x): not a probability when scores can be negative.
Matrix normalize_rows_naive(const Matrix& scores);

// --- masks -----------------------------------------------------------------------------------
// (T_q, T_k), true where key j is in the future of query i. With T_q < T_k (decoding with a
// cache) the queries are the last T_q positions: blocked iff j > i + (T_k - T_q). Throws
// AttentionError when T_q > T_k (the first queries would see no key) or a size is negative.
BoolMatrix causal_mask(Eigen::Index t_q, Eigen::Index t_k);
// (T_q, T_k), true where key j >= valid_keys: padding tokens at the end of the sequence.
// valid_keys must lie in [0, T_k]; 0 blocks every key (see softmax_rows for what that gives).
BoolMatrix padding_mask(Eigen::Index t_q, Eigen::Index t_k, Eigen::Index valid_keys);
// (T_q, T_k) sliding-window causal mask of width w >= 1: query i sees keys j with
// i - w < j <= i (the last w tokens, itself included); with T_q < T_k the queries are the last
// T_q positions, as in causal_mask. w >= T_k is plain causal.
BoolMatrix window_mask(Eigen::Index t_q, Eigen::Index t_k, Eigen::Index w);
// The seeds' mask conventions, converted to "true = blocked":
BoolMatrix blocked_where_zero(const Matrix& mask);  // BERT / seed 000: masked_fill(mask == 0, ...)
BoolMatrix blocked_where_one(const Matrix& mask);   // seed 004: masked_fill(mask == 1, ...)
// GPT-2's additive attention_mask from a 1/0 keep vector over keys: (1 - keep) * fill, with kept
// keys an exact 0 so that a -inf fill gives no 0 * -inf = NaN.
Matrix additive_mask_from_keep(const RowVector& keep, Eigen::Index t_q, float fill = -1e4f);

// scores.masked_fill(blocked, fill). blocked must match the shape of scores.
Matrix masked_fill(const Matrix& scores, const BoolMatrix& blocked, float fill);
// Tutorial causal method 1: zero the blocked weights, then divide each row by its new sum.
// A fully blocked row is 0 / 0 = NaN, as in PyTorch.
Matrix mask_and_renormalize(const Matrix& weights, const BoolMatrix& blocked);

// --- dropout ---------------------------------------------------------------------------------
// nn.Dropout(p) in training mode, PyTorch's portable CPU path: per element, row-major, keep iff
// uniform_double() < 1 - p; kept values are scaled by 1 / (1 - p). p == 0 draws nothing and
// returns x; p == 1 draws nothing and returns x · 0, so a NaN (a fully masked row) stays NaN as in
// PyTorch, where dropout multiplies by its mask. `kept`, when given, receives the keep pattern.
Matrix dropout(const Matrix& x, float p, TorchGenerator& gen, BoolMatrix* kept = nullptr);

// --- scaled dot-product attention ------------------------------------------------------------
struct AttentionOptions {
    bool scale = true;  // divide scores by sqrt(d): the tutorial's `attn_scores / d_key ** 0.5`
    // The d under the square root; by default the query width. GPT-2 divides by v.size(-1).
    std::optional<float> scale_dim;
    std::optional<BoolMatrix> blocked;  // (T_q, T_k), true = fill before softmax
    float fill_value = kNegInf;         // -inf (tutorial), -1e9 (BERT), -1e4 (GPT-2's masked_bias)
    // Seed 002's modules fill the raw scores and then divide everything by sqrt(d), so a finite
    // fill is divided too; BERT and GPT-2 scale first and fill after (the default).
    bool fill_before_scale = false;
    std::optional<Matrix> additive_mask;  // (T_q, T_k) added after filling (GPT-2 attention_mask)
    float dropout_p = 0.0f;
    bool training = false;           // dropout acts only in training mode, as nn.Dropout
    std::optional<float> head_mask;  // GPT-2 head_mask: multiplies the weights after dropout
};

// Every intermediate of one attention call for one head and one batch item, so a view shows
// exactly what was computed.
struct AttentionResult {
    Matrix scores;       // (T_q, T_k)  queries · keysᵀ
    Matrix scaled;       // (T_q, T_k)  scores / sqrt(d); equals scores when scaling is off
    Matrix masked;       // (T_q, T_k)  scaled, blocked cells filled, additive mask added
    Matrix weights;      // (T_q, T_k)  softmax over each row of masked
    Matrix dropped;      // (T_q, T_k)  weights after dropout (and head_mask); == weights in eval
    Matrix context;      // (T_q, d_v)  dropped · values
    BoolMatrix blocked;  // (T_q, T_k)  cells filled before softmax; all false without a mask
    BoolMatrix kept;     // (T_q, T_k)  dropout keep pattern; all true without dropout
    float scale_divisor = 1.0f;  // sqrt(d) used, 1 when scaling is off
    float fill_value = kNegInf;
    bool fill_before_scale = false;  // masked cells hold fill_value / scale_divisor
};

// queries (T_q, d_k), keys (T_k, d_k), values (T_k, d_v) -> AttentionResult.
// Order of operations: scores, scale, fill blocked cells (with fill_before_scale the fill is
// divided by sqrt(d) as if it had been put into the raw scores), add additive mask, softmax,
// dropout, head_mask, context. Throws AttentionError on empty inputs, mismatched shapes (d_k, rows
// of values, masks), NaN/Inf in queries/keys/values, a NaN fill or additive mask, p outside [0, 1],
// or a missing gen: gen is required only when options.training && 0 < dropout_p < 1.
AttentionResult scaled_dot_product_attention(const Matrix& queries, const Matrix& keys,
                                             const Matrix& values, const AttentionOptions& options,
                                             TorchGenerator* gen = nullptr);

// --- heads -----------------------------------------------------------------------------------
// (T, H*hd) -> H × (T, hd): the columns of head h are [h*hd, (h+1)*hd), as view + transpose(1, 2).
Heads split_heads(const Matrix& x, Eigen::Index num_heads);
// H × (T, hd) -> (T, H*hd): transpose(1, 2) + contiguous().view(), the inverse of split_heads.
Matrix merge_heads(const Heads& heads);

// --- grouped-query heads (GQA / MQA) ---------------------------------------------------------
// The K/V head that query head h reads when num_heads query heads share num_kv_heads key/value
// heads: h / (num_heads / num_kv_heads), LLaMA's repeat_kv. Throws AttentionError unless
// num_kv_heads divides num_heads and 0 <= h < num_heads.
Eigen::Index kv_head_of(Eigen::Index query_head, Eigen::Index num_heads, Eigen::Index num_kv_heads);
// G × (T, hd) -> num_heads × (T, hd): every K/V head repeated for its group of query heads
// (repeat_kv), so head h of the result is kv[kv_head_of(h, num_heads, G)].
Heads repeat_kv(const Heads& kv, Eigen::Index num_heads);

// --- rotary position embeddings (RoPE) -------------------------------------------------------
// Hugging Face's LLaMA convention: coordinate i of a head pairs with i + head_dim/2
// (rotate_half), θ_i = base^(-2i/head_dim), position p = position_offset + token index.
// Computed in float32 as transformers does: inv_freq = 1 / (base ** (arange(0, hd, 2) / hd)),
// freqs = outer(positions, inv_freq), emb = cat(freqs, freqs), cos = emb.cos(), sin = emb.sin().
struct RopeAngles {
    RowVector inv_freq;  // (hd/2) θ_i
    Matrix cos, sin;     // (T, hd) per position and coordinate
};
// Throws AttentionError when head_dim is odd or < 2, tokens < 0, base <= 1 or not finite.
RopeAngles rope_angles(Eigen::Index tokens, Eigen::Index head_dim, Eigen::Index position_offset,
                       float base = 10000.0f);
// The same for given frequencies (hd / 2 values, a scaled model's: rope_inv_freq in
// model/transformer_spec.h).
RopeAngles rope_angles(Eigen::Index tokens, const RowVector& inv_freq,
                       Eigen::Index position_offset);
// (T, hd) -> (T, hd): cat(-x[:, hd/2:], x[:, :hd/2]).
Matrix rotate_half(const Matrix& x);
// x * cos + rotate_half(x) * sin, x (T, hd) with angles for T positions.
Matrix apply_rope(const Matrix& x, const RopeAngles& angles);
// One head's queries or keys (T, hd) rotated for positions position_offset .. + T - 1; the angles
// used are written to `angles` when given.
Matrix rope_rotate(const Matrix& x, Eigen::Index position_offset, float base = 10000.0f,
                   RopeAngles* angles = nullptr);

}  // namespace attn
