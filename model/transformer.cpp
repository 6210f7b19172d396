#include "transformer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "attention_layer_step.h"
#include "fast_attention.h"
#include "number_format.h"
#include "ops.h"
#include "transformer_layers.h"

namespace attn {

namespace {

using Index = Eigen::Index;

// The mask of a T-token pass: causal, optionally within a sliding window, and the padding keys
// of attention_mask (0 = padding) blocked in every row; none when bidirectional and unpadded.
std::optional<BoolMatrix> attention_mask(const TransformerSpec& spec, Index t,
                                         const std::vector<int>& padding = {}) {
    std::optional<BoolMatrix> mask;
    if (spec.causal)
        mask = spec.sliding_window > 0 ? window_mask(t, t, spec.sliding_window) : causal_mask(t, t);
    if (std::find(padding.begin(), padding.end(), 0) == padding.end()) return mask;
    if (!mask) mask = BoolMatrix::Constant(t, t, false);
    for (Index k = 0; k < t && k < static_cast<Index>(padding.size()); ++k)
        if (padding[static_cast<std::size_t>(k)] == 0) mask->col(k).setConstant(true);
    return mask;
}

// The fast kernel (model/fast_attention.h) computes causal multi-head attention without any
// (T, T) matrix when nothing is displayed: one K/V head per query head, learned positions, no
// window, float32 weights.
bool fast_path_applies(const TransformerWeights& w, const ModelForwardOptions& options) {
    const TransformerSpec& s = w.spec;
    if (options.keep_attentions || options.keep_qkv || !s.causal || s.sliding_window != 0 ||
        s.num_kv_heads != s.num_heads || s.positions != PositionKind::Learned || s.qk_norm ||
        std::find(options.attention_mask.begin(), options.attention_mask.end(), 0) !=
            options.attention_mask.end())
        return false;
    // Its projections read float32 weights.
    for (const LayerWeights& layer : w.layers)
        for (const WeightView& v : layer.tensors)
            if (v.quantized()) return false;
    return true;
}

// One layer's attention half through the fast kernel, reading the weights where they are: the
// output's last out_rows rows.
Matrix fast_attention(const LayerWeights& w, const TransformerSpec& s, const Matrix& a,
                      FastAttentionWorkspace& workspace, Index out_rows) {
    using R = TensorRole;
    FastAttentionWeights f;
    f.d_in = s.d_model;
    f.d_out = s.q_width();
    f.num_heads = s.num_heads;
    f.head_dim = s.head_dim;
    f.context_length = s.max_positions;
    auto view = [](const WeightView& weight, const WeightView& bias) {
        FastProjection p;
        p.weight = weight.data;
        p.rows = weight.rows;
        p.cols = weight.cols;
        p.op = weight.layout == TensorLayout::OutIn ? Op::Transpose : Op::None;
        p.bias = bias.empty() ? nullptr : bias.data;
        return p;
    };
    if (s.fused_qkv)
        f.qkv = {view(w[R::QkvWeight], w[R::QkvBias])};
    else
        f.qkv = {view(w[R::QueryWeight], w[R::QueryBias]), view(w[R::KeyWeight], w[R::KeyBias]),
                 view(w[R::ValueWeight], w[R::ValueBias])};
    f.out = view(w[R::OutWeight], w[R::OutBias]);
    Matrix out;
    fast_causal_mha_forward(f, a, workspace, out, out_rows);
    return out;
}

// One layer's attention half with every intermediate: per head the walkthrough's
// scaled_dot_product_attention, heads merged, out projection of the last out_rows rows.
Matrix attention(const LayerWeights& w, const TransformerSpec& s, const Matrix& a,
                 const std::optional<BoolMatrix>& mask, const ModelForwardOptions& options,
                 ModelForwardResult& result, Index out_rows) {
    using R = TensorRole;
    const Index t = a.rows(), hd = s.head_dim;
    layers::Projections p = layers::project_qkv(w, s, a, 0);
    AttentionOptions attention_options;
    if (mask) attention_options.blocked = *mask;
    Matrix context_vecs(t, s.q_width());
    std::vector<Matrix> layer_weights;
    for (Index head = 0; head < s.num_heads; ++head) {
        const Index g = kv_head_of(head, s.num_heads, s.num_kv_heads);
        const Matrix queries = p.queries.middleCols(head * hd, hd);
        const Matrix keys = p.keys.middleCols(g * hd, hd);
        const Matrix values = p.values.middleCols(g * hd, hd);
        AttentionResult r = scaled_dot_product_attention(queries, keys, values, attention_options);
        context_vecs.middleCols(head * hd, hd) = r.context;
        if (options.keep_attentions) layer_weights.push_back(std::move(r.weights));
    }
    if (options.keep_attentions) result.attentions.push_back(std::move(layer_weights));
    if (options.keep_qkv) {
        result.queries.push_back(std::move(p.queries));
        result.keys.push_back(std::move(p.keys));
        result.values.push_back(std::move(p.values));
    }
    return layers::project(context_vecs.bottomRows(out_rows), w[R::OutWeight], w[R::OutBias]);
}

}  // namespace

void check_token_ids(const TransformerSpec& spec, const std::vector<int>& ids,
                     Index extra_positions) {
    if (ids.empty()) throw AttentionError("the token ids are empty: give at least one token");
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= spec.vocab_size)
            throw AttentionError("token id " + std::to_string(ids[i]) + " at position " +
                                 std::to_string(i + 1) + " is outside [0, " +
                                 std::to_string(spec.vocab_size) +
                                 "): use ids from this model's tokenizer");
    const Index total = static_cast<Index>(ids.size()) + extra_positions;
    const Index limit = max_tokens(spec);
    const Index reserved = spec.max_positions - limit;  // RoBERTa's padding_idx + 1
    if (total <= limit) return;
    if (extra_positions == 0 && reserved > 0)
        throw AttentionError(
            std::to_string(ids.size()) + " tokens are more than the model's " +
            std::to_string(limit) + " positions (" + std::to_string(spec.max_positions) +
            " rows of the position table less padding_idx + 1 = " + std::to_string(reserved) +
            "): shorten the text to at most " + std::to_string(limit) + " tokens");
    if (extra_positions == 0)
        throw AttentionError(std::to_string(ids.size()) + " tokens are more than the model's " +
                             std::to_string(limit) + " positions: shorten the text to at most " +
                             std::to_string(limit) + " tokens");
    throw AttentionError("prompt (" + std::to_string(ids.size()) + ") + max_new_tokens (" +
                         std::to_string(extra_positions) + ") = " + std::to_string(total) +
                         " exceeds the model's " + std::to_string(limit) +
                         " positions: shorten the prompt or lower max_new_tokens");
}

std::vector<TopToken> top_tokens(const Eigen::Ref<const RowVector>& logits, Index k) {
    const Index n = logits.size();
    k = std::clamp<Index>(k, 0, n);
    if (k == 0) return {};
    const double max = static_cast<double>(logits.maxCoeff());
    double sum = 0.0;
    for (Index i = 0; i < n; ++i) sum += std::exp(static_cast<double>(logits[i]) - max);
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
        return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
    });
    std::vector<TopToken> top;
    for (Index i = 0; i < k; ++i) {
        const int id = order[static_cast<std::size_t>(i)];
        top.push_back(
            {id, static_cast<float>(std::exp(static_cast<double>(logits[id]) - max) / sum)});
    }
    return top;
}

namespace {

// token_type_ids and attention_mask against the ids and the spec.
void check_forward_inputs(const TransformerSpec& spec, const std::vector<int>& ids,
                          const ModelForwardOptions& options) {
    check_token_ids(spec, ids, 0);
    const std::size_t n = ids.size();
    const std::vector<int>& types = options.token_type_ids;
    const std::vector<int>& mask = options.attention_mask;
    if (!types.empty() && types.size() != n)
        throw AttentionError("token_type_ids has " + std::to_string(types.size()) +
                             " entries but there are " + std::to_string(n) +
                             " tokens: give one token type per token, or none (all 0)");
    if (!mask.empty() && mask.size() != n)
        throw AttentionError("attention_mask has " + std::to_string(mask.size()) +
                             " entries but there are " + std::to_string(n) +
                             " tokens: give one 1 (real) or 0 (padding) per token, or none");
    for (std::size_t i = 0; i < types.size(); ++i) {
        if (types[i] == 0) continue;
        if (spec.type_vocab_size == 0)
            throw AttentionError(family_name(spec.family) + " has no token types, but token " +
                                 std::to_string(i + 1) + " has type " + std::to_string(types[i]) +
                                 ": give no token_type_ids (or all 0)");
        if (types[i] < 0 || types[i] >= spec.type_vocab_size)
            throw AttentionError("token type " + std::to_string(types[i]) + " at position " +
                                 std::to_string(i + 1) + " is outside [0, " +
                                 std::to_string(spec.type_vocab_size) +
                                 "): segment A is 0, segment B is 1");
    }
    bool real = mask.empty(), padding_seen = false;
    for (std::size_t i = 0; i < mask.size(); ++i) {
        if (mask[i] != 0 && mask[i] != 1)
            throw AttentionError("attention_mask is " + std::to_string(mask[i]) + " at position " +
                                 std::to_string(i + 1) + ": give 1 (a real token) or 0 (padding)");
        // A causal query row whose keys are all padding would have no weights at all.
        if (spec.causal && mask[i] == 1 && padding_seen)
            throw AttentionError("attention_mask has padding before token " +
                                 std::to_string(i + 1) +
                                 ": a decoder's padding goes after the real tokens");
        real = real || mask[i] == 1;
        padding_seen = padding_seen || mask[i] == 0;
    }
    if (!real) throw AttentionError("attention_mask is all 0: at least one token must be real");
}

}  // namespace

ModelForwardResult model_forward(const TransformerWeights& weights, const std::vector<int>& ids,
                                 const ModelForwardOptions& options) {
    check_weights(weights);
    const TransformerSpec& s = weights.spec;
    check_forward_inputs(s, ids, options);
    const bool encoder = is_encoder(s.family);
    Matrix h = encoder ? layers::embed_encoder(weights, ids, options.token_type_ids)
                       : layers::embed(weights, ids, 0);
    ModelForwardResult result;
    result.attention_mask = options.attention_mask;
    const std::optional<BoolMatrix> mask =
        attention_mask(s, static_cast<Index>(ids.size()), options.attention_mask);
    const bool fast = fast_path_applies(weights, options);
    FastAttentionWorkspace workspace;
    const Index t = static_cast<Index>(ids.size());
    // Only the last position's logits and no hidden states: after the last layer's attention
    // (every query still attends, its weights may be shown) the out projection and the MLP run
    // on the last row alone, the rest of the stream being read by nothing (llama.cpp skips the
    // same rows). A 12-layer model does about 1/16 less work.
    const bool last_row_only = !encoder && !options.all_logits && !options.keep_hidden;
    for (const LayerWeights& w : weights.layers) {
        if (encoder) {
            // Post-norm: h = norm(h + attn(h)), then h = norm(h + mlp(h)).
            h += attention(w, s, h, mask, options, result, t);
            h = layers::norm(h, w[TensorRole::AttnNormWeight], w[TensorRole::AttnNormBias], s);
            layers::post_norm_mlp_block(w, s, h);
            continue;
        }
        const Matrix a = layers::attention_input(w, s, h);
        const Index out_rows = last_row_only && &w == &weights.layers.back() ? 1 : t;
        const Matrix o = fast ? fast_attention(w, s, a, workspace, out_rows)
                              : attention(w, s, a, mask, options, result, out_rows);
        if (out_rows < t) h = h.bottomRows(out_rows).eval();
        h += o;
        layers::mlp_block(w, s, h);
    }
    if (options.keep_hidden) result.hidden = h;
    if (encoder) {
        // Encoders give no next-token candidates; without the head, no logits either.
        if (s.mlm_head)
            result.logits = options.all_logits ? layers::mlm_logits(weights, h)
                                               : layers::mlm_logits(weights, h.bottomRows(1));
        return result;
    }
    result.logits =
        options.all_logits ? layers::logits(weights, h) : layers::logits(weights, h.bottomRows(1));
    result.top_tokens = top_tokens(result.logits.bottomRows(1), options.top_k);
    return result;
}

std::vector<MaskPrediction> mask_predictions(const ModelForwardResult& result,
                                             const std::vector<int>& ids, int mask_id, Index k) {
    if (result.logits.rows() != static_cast<Index>(ids.size()))
        throw AttentionError(
            "the forward pass has logits for " + std::to_string(result.logits.rows()) +
            " positions but there are " + std::to_string(ids.size()) +
            " tokens: run model_forward with all_logits on a model with its masked-LM head");
    std::vector<MaskPrediction> predictions;
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] == mask_id) {
            const auto position = static_cast<Index>(i);
            predictions.push_back({position, top_tokens(result.logits.row(position), k)});
        }
    return predictions;
}

PaddedBatch model_forward_padded(const TransformerWeights& weights,
                                 const std::vector<std::vector<int>>& ids,
                                 const std::vector<std::vector<int>>& token_type_ids, int pad_id,
                                 const ModelForwardOptions& options) {
    if (ids.empty()) throw AttentionError("the batch is empty: give at least one sequence");
    if (!token_type_ids.empty() && token_type_ids.size() != ids.size())
        throw AttentionError(
            "the batch has " + std::to_string(ids.size()) + " sequences but token_type_ids " +
            std::to_string(token_type_ids.size()) + ": give one list per sequence, or none");
    std::size_t longest = 0;
    for (const std::vector<int>& sequence : ids) longest = std::max(longest, sequence.size());
    PaddedBatch batch;
    for (std::size_t b = 0; b < ids.size(); ++b) {
        const std::size_t n = ids[b].size();
        if (n == 0)
            throw AttentionError("sequence " + std::to_string(b + 1) +
                                 " of the batch is empty: give at least one token");
        std::vector<int> padded = ids[b], types, mask(n, 1);
        padded.resize(longest, pad_id);
        mask.resize(longest, 0);
        if (!token_type_ids.empty()) {
            types = token_type_ids[b];
            if (types.size() != n)
                throw AttentionError("sequence " + std::to_string(b + 1) + " has " +
                                     std::to_string(n) + " tokens but " +
                                     std::to_string(types.size()) +
                                     " token types: give one per token");
        }
        types.resize(longest, 0);
        ModelForwardOptions o = options;
        o.token_type_ids = types;
        o.attention_mask = mask;
        try {
            batch.results.push_back(model_forward(weights, padded, o));
        } catch (const AttentionError& e) {
            throw AttentionError("sequence " + std::to_string(b + 1) +
                                 " of the batch: " + e.what());
        }
        batch.ids.push_back(std::move(padded));
        batch.token_type_ids.push_back(std::move(types));
        batch.attention_mask.push_back(std::move(mask));
    }
    return batch;
}

namespace {

// The operands that explain one head's weights: q, k, ω = q·kᵀ and the masked scores.
void add_head_operands(Step& step, StepMatrix& weights, const Matrix& q, const Matrix& k,
                       const BoolMatrix& blocked, const std::vector<std::string>& tokens,
                       const std::vector<std::string>& dims, const std::string& n, Index head_dim) {
    auto operand = [&](std::string id, std::string symbol, Matrix values,
                       std::vector<std::string> cols, MatrixKind kind) -> StepMatrix& {
        StepMatrix m;
        m.id = std::move(id);
        m.symbol = std::move(symbol);
        m.values = std::move(values);
        m.row_labels = tokens;
        m.col_labels = std::move(cols);
        m.kind = kind;
        step.operands.push_back(std::move(m));
        return step.operands.back();
    };
    operand("queries-" + n, "q", q, dims, MatrixKind::Projections);
    operand("keys-" + n, "k", k, dims, MatrixKind::Projections);
    StepMatrix& scores = operand("scores-" + n, "ω", q * k.transpose(), tokens, MatrixKind::Scores);
    scores.derivation = Derivation::DotProduct;
    scores.lhs = "queries-" + n;
    scores.rhs = "keys-" + n;
    StepMatrix& masked =
        operand("masked-" + n, "ω", masked_fill(q * k.transpose(), blocked, kNegInf), tokens,
                MatrixKind::Scores);
    masked.derivation = Derivation::MaskedFill;
    masked.lhs = "scores-" + n;
    masked.blocked = blocked;
    masked.fill_value = kNegInf;
    weights.derivation = Derivation::Softmax;
    weights.lhs = "masked-" + n;
    weights.divisor = std::sqrt(static_cast<float>(head_dim));
}

}  // namespace

Step model_layer_step(const ModelForwardResult& result, const TransformerSpec& spec, Index layer,
                      const std::vector<std::string>& tokens) {
    if (layer < 0 || layer >= static_cast<Index>(result.attentions.size())) {
        throw AttentionError("layer " + std::to_string(layer + 1) +
                             " has no attention weights: run model_forward with keep_attentions "
                             "and give a layer from 1 to " +
                             std::to_string(result.attentions.size()));
    }
    const auto l = static_cast<std::size_t>(layer);
    const std::vector<Matrix>& heads = result.attentions[l];
    const Index t = heads.empty() ? 0 : heads.front().rows();
    const Index head_dim = spec.head_dim;
    const bool explained = l < result.queries.size() && l < result.keys.size();
    const BoolMatrix blocked =
        attention_mask(spec, t, result.attention_mask).value_or(BoolMatrix::Constant(t, t, false));
    std::vector<std::string> dims;
    for (Index d = 0; d < head_dim; ++d) dims.push_back(std::to_string(d + 1));

    Step step = attention_layer_step(heads, layer, tokens);
    step.text_args.emplace_back("head_dim", std::to_string(head_dim));
    if (explained)
        step.text_args.emplace_back("sqrt_head_dim",
                                    format_shortest(std::sqrt(static_cast<float>(head_dim))));
    for (std::size_t h = 0; h < heads.size(); ++h) {
        StepMatrix& w = step.matrices[h];
        // A decoder is causal by construction and padding keys are blocked, whatever the
        // numbers (attention_layer_step detects masks from them).
        w.blocked = blocked;
        w.head_dim = head_dim;
        if (!explained) continue;
        const Index head = static_cast<Index>(h);
        const Index g = kv_head_of(head, spec.num_heads, spec.num_kv_heads);
        add_head_operands(step, w, result.queries[l].middleCols(head * head_dim, head_dim),
                          result.keys[l].middleCols(g * head_dim, head_dim), blocked, tokens, dims,
                          std::to_string(h + 1), head_dim);
    }
    return step;
}

}  // namespace attn
