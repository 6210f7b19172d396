// Seed 001: GPT-2's Attention (transformers' modeling_gpt2.Attention), step for step.
#include <algorithm>
#include <iterator>
#include <sstream>
#include <string>

#include "decode_attention.h"
#include "module_checks.h"
#include "modules.h"

namespace attn {

namespace {

// Keeps the given columns of a Conv1D (prune_conv1d_layer with dim = 1): weight and bias.
Conv1D keep_columns(const Conv1D& layer, const std::vector<Eigen::Index>& index) {
    Conv1D pruned;
    pruned.weight = layer.weight(Eigen::all, index);
    pruned.bias = layer.bias(Eigen::all, index);
    return pruned;
}

// Keeps the given rows of a Conv1D (prune_conv1d_layer with dim = 0): the bias stays whole.
Conv1D keep_rows(const Conv1D& layer, const std::vector<Eigen::Index>& index) {
    Conv1D pruned;
    pruned.weight = layer.weight(index, Eigen::all);
    pruned.bias = layer.bias;
    return pruned;
}

// index, index + offset, index + 2 offset, ...: the same head columns in q, k and v.
std::vector<Eigen::Index> repeat_index(const std::vector<Eigen::Index>& index, Eigen::Index offset,
                                       int copies) {
    std::vector<Eigen::Index> out;
    out.reserve(index.size() * static_cast<std::size_t>(copies));
    for (int c = 0; c < copies; ++c) {
        for (Eigen::Index i : index) {
            out.push_back(i + c * offset);
        }
    }
    return out;
}

void check_mask_shape(const Matrix& mask, Eigen::Index t_q, Eigen::Index t_k,
                      std::string_view name) {
    if (mask.rows() != t_q || mask.cols() != t_k) {
        std::ostringstream msg;
        msg << name << " is " << mask.rows() << " x " << mask.cols() << " but the scores are "
            << t_q << " x " << t_k << " (queries x keys): give a (" << t_q << ", " << t_k
            << ") additive mask";
        throw AttentionError(msg.str());
    }
    // -inf is allowed: an additive mask may block with it; NaN never means anything.
    if (mask.array().isNaN().any()) {
        std::ostringstream msg;
        msg << name
            << " contains NaN: use 0 for kept keys and a large negative number for "
               "blocked ones";
        throw AttentionError(msg.str());
    }
}

// The decoding step: one new token (query, key, value of shape (1, n_state)) against layer_past.
// present = the past with the token's key and value appended (its capacity kept when larger);
// the token's query attends over it with attend_one_query. bias[ns - 1 : ns, :ns] keeps every
// key, so no cell is filled with masked_bias and the result equals the general path's bit for
// bit. Each head's AttentionResult holds what this path computes: weights (= dropped), context,
// blocked (none), kept (all); scores, scaled and masked stay empty.
std::vector<AttentionResult> attend_past(const Matrix& query, const Matrix& key,
                                         const Matrix& value, const KVCache& past,
                                         Eigen::Index n_head, float scale_divisor, float fill_value,
                                         KVCache& present) {
    const Eigen::Index head_dim = query.cols() / n_head;
    const Eigen::Index t_k = past.tokens + 1;
    if (past.capacity() >= t_k) {
        present = past;
    } else {
        present = KVCache(n_head, t_k, head_dim, head_dim);
        Heads past_keys, past_values;
        for (Eigen::Index h = 0; h < n_head; ++h) {
            past_keys.push_back(past.keys_of(h));
            past_values.push_back(past.values_of(h));
        }
        present.append(past_keys, past_values);
    }
    present.append(split_heads(key, n_head), split_heads(value, n_head));
    SingleQueryAttention attended;
    attend_one_query(Eigen::Map<const RowVector>(query.data(), query.size()), present, n_head,
                     scale_divisor, /*keep_weights=*/true, attended);
    std::vector<AttentionResult> heads(static_cast<std::size_t>(n_head));
    for (Eigen::Index h = 0; h < n_head; ++h) {
        AttentionResult& r = heads[static_cast<std::size_t>(h)];
        r.weights = attended.attn_weights[static_cast<std::size_t>(h)];
        r.dropped = r.weights;
        r.context = attended.context.segment(h * head_dim, head_dim);
        r.blocked = BoolMatrix::Constant(1, t_k, false);
        r.kept = BoolMatrix::Constant(1, t_k, true);
        r.scale_divisor = scale_divisor;
        r.fill_value = fill_value;
    }
    return heads;
}

// The general path, every intermediate kept: the past's keys and values before the new ones
// (torch.cat((past_key, key), dim=-1)), then scaled_dot_product_attention per head with the
// causal bias, attention_mask, dropout and head_mask of `opt` and `input`. Sets result.present
// when input.use_cache.
std::vector<AttentionResult> attend_all(const Matrix& query, const Matrix& key, const Matrix& value,
                                        const KVCache* past, Eigen::Index n_head,
                                        const AttentionOptions& opt,
                                        const Gpt2Attention::Input& input, TorchGenerator* gen,
                                        Gpt2Attention::Output& result) {
    const Eigen::Index head_dim = query.cols() / n_head;
    const Eigen::Index past_tokens = past != nullptr ? past->tokens : 0;
    const Heads queries = split_heads(query, n_head);
    Heads keys = split_heads(key, n_head);
    Heads values = split_heads(value, n_head);
    if (past != nullptr) {
        const Eigen::Index t_k = past_tokens + key.rows();
        for (Eigen::Index h = 0; h < n_head; ++h) {
            const std::size_t hi = static_cast<std::size_t>(h);
            Matrix k_all(t_k, head_dim), v_all(t_k, head_dim);
            k_all.topRows(past_tokens) = past->keys_of(h);
            k_all.bottomRows(t_k - past_tokens) = keys[hi];
            v_all.topRows(past_tokens) = past->values_of(h);
            v_all.bottomRows(t_k - past_tokens) = values[hi];
            keys[hi] = std::move(k_all);
            values[hi] = std::move(v_all);
        }
    }
    if (input.use_cache) {
        // present = stack(key, value) of all tokens so far; keep the caller's preallocated
        // capacity when it is larger.
        const Eigen::Index t_k = keys.front().rows();
        const Eigen::Index capacity =
            std::max(t_k, past != nullptr ? past->capacity() : Eigen::Index{0});
        result.present = KVCache(n_head, capacity, head_dim, head_dim);
        result.present.append(keys, values);
    }
    std::vector<AttentionResult> heads;
    heads.reserve(static_cast<std::size_t>(n_head));
    for (Eigen::Index h = 0; h < n_head; ++h) {
        const std::size_t hi = static_cast<std::size_t>(h);
        AttentionOptions head_opt = opt;
        // w / sqrt(v.size(-1)): the value width, which equals head_dim here.
        head_opt.scale_dim = static_cast<float>(values[hi].cols());
        if (input.head_mask != nullptr) {
            head_opt.head_mask = (*input.head_mask)(h);
        }
        heads.push_back(
            scaled_dot_product_attention(queries[hi], keys[hi], values[hi], head_opt, gen));
    }
    return heads;
}

}  // namespace

Gpt2Attention::Gpt2Attention(Eigen::Index nx, Eigen::Index n_ctx_, Eigen::Index n_head_,
                             bool scale_, bool is_cross_attention_, TorchGenerator& gen,
                             float attn_pdrop_)
    : n_head(n_head_),
      split_size(nx),
      n_ctx(n_ctx_),
      scale(scale_),
      is_cross_attention(is_cross_attention_),
      attn_pdrop(attn_pdrop_) {
    // n_state = nx; the seed's `assert n_state % config.n_head == 0`, before drawing.
    check_heads_divide(nx, n_head, "nx");
    detail::check_positive(n_ctx, "n_ctx");
    check_dropout_p(attn_pdrop);
    const Eigen::Index n_state = nx;
    // Constructor order of the seed: c_attn, q_attn (cross-attention only), c_proj.
    if (is_cross_attention) {
        c_attn = Conv1D::init(2 * n_state, nx, gen);
        q_attn = Conv1D::init(n_state, nx, gen);
    } else {
        c_attn = Conv1D::init(3 * n_state, nx, gen);
    }
    c_proj = Conv1D::init(n_state, nx, gen);
}

Gpt2Attention::Output Gpt2Attention::forward(const Input& input,
                                             const ForwardOptions& options) const {
    const Eigen::Index nx = c_attn.weight.rows();
    const Eigen::Index head_dim = split_size / n_head;
    const Batch& hidden = input.hidden_states;
    detail::check_batch(hidden, nx, "hidden_states", "nx");
    const std::size_t batch = hidden.size();
    const bool cross = input.encoder_hidden_states != nullptr;
    if (cross && !is_cross_attention) {
        throw AttentionError(
            "encoder_hidden_states were given but this attention has no q_attn weights: build it "
            "with is_cross_attention = true to use it as cross-attention");
    }
    if (!cross && is_cross_attention) {
        throw AttentionError(
            "this cross-attention has no keys and values: give encoder_hidden_states (the "
            "encoder's output), or build the module with is_cross_attention = false");
    }
    if (cross) {
        detail::check_batch(*input.encoder_hidden_states, nx, "encoder_hidden_states", "nx");
        if (input.encoder_hidden_states->size() != batch) {
            std::ostringstream msg;
            msg << "hidden_states has batch size " << batch << " but encoder_hidden_states has "
                << input.encoder_hidden_states->size() << ": give both the same batch size";
            throw AttentionError(msg.str());
        }
    }
    const KVCache* past = input.layer_past;
    if ((past != nullptr || input.use_cache) && batch != 1) {
        std::ostringstream msg;
        msg << "layer_past and present hold the keys and values of one sequence but the batch "
               "has "
            << batch << ": decode with batch size 1";
        throw AttentionError(msg.str());
    }
    if (past != nullptr && (past->num_heads() != n_head || past->head_dim_k() != head_dim ||
                            past->head_dim_v() != head_dim)) {
        std::ostringstream msg;
        msg << "layer_past has " << past->num_heads() << " heads of width " << past->head_dim_k()
            << " but the module has n_head = " << n_head << ", head_dim = " << head_dim
            << ": pass the present of the previous step of this same module";
        throw AttentionError(msg.str());
    }
    if (input.head_mask != nullptr && input.head_mask->size() != n_head) {
        std::ostringstream msg;
        msg << "head_mask has " << input.head_mask->size() << " entries but n_head = " << n_head
            << ": give one factor per head (1 keeps a head, 0 silences it)";
        throw AttentionError(msg.str());
    }
    detail::check_generator(attn_pdrop, options.training, options.gen, "attn_pdrop");
    detail::check_generator(resid_pdrop, options.training, options.gen, "resid_pdrop");
    check_dropout_p(resid_pdrop);

    const Eigen::Index t_q = hidden[0].rows();
    const Eigen::Index past_tokens = past != nullptr ? past->tokens : 0;
    const Eigen::Index t_k =
        past_tokens + (cross ? input.encoder_hidden_states->front().rows() : t_q);
    // The causal `bias` buffer is (n_ctx, n_ctx): slicing it beyond n_ctx cannot cover the scores.
    if (!cross) {
        detail::check_context_length(t_k, n_ctx, "n_ctx");
    }
    const Matrix* attention_mask = cross ? input.encoder_attention_mask : input.attention_mask;
    if (attention_mask != nullptr) {
        check_mask_shape(*attention_mask, t_q, t_k,
                         cross ? "encoder_attention_mask" : "attention_mask");
    }

    AttentionOptions opt;
    opt.scale = scale;
    if (!cross) {
        // bias[ns - nd : ns, :ns] keeps key j for query i iff j <= i + (ns - nd); the rest
        // becomes masked_bias (torch.where), not -inf.
        opt.blocked = causal_mask(t_q, t_k);
    }
    opt.fill_value = masked_bias;
    if (attention_mask != nullptr) {
        opt.additive_mask = *attention_mask;
    }
    opt.dropout_p = attn_pdrop;
    opt.training = options.training;

    // One new token against the past (GPT-2's generate() after the prompt) in eval mode, with
    // nothing that single-query attention cannot express: no additive mask (it would change the
    // scores before the softmax), no head_mask (PyTorch scales the weights before w · v, which
    // rounds differently from scaling the context after) and no dropout draws.
    const bool decoding = past != nullptr && !cross && t_q == 1 && attention_mask == nullptr &&
                          input.head_mask == nullptr && !(options.training && attn_pdrop > 0.0f);
    Output result;
    ModuleOutput& out = result.attn;
    for (std::size_t b = 0; b < batch; ++b) {
        Matrix query, key, value;
        if (cross) {
            query = q_attn.forward(hidden[b]);
            const Matrix kv = c_attn.forward((*input.encoder_hidden_states)[b]);
            key = kv.leftCols(split_size);
            value = kv.middleCols(split_size, split_size);
        } else {
            // c_attn(hidden_states).split(split_size, dim=2)
            const Matrix qkv = c_attn.forward(hidden[b]);
            query = qkv.leftCols(split_size);
            key = qkv.middleCols(split_size, split_size);
            value = qkv.middleCols(2 * split_size, split_size);
        }
        if (decoding) {
            KVCache present;
            out.heads.push_back(attend_past(query, key, value, *past, n_head,
                                            scale ? scale_divisor_of(head_dim) : 1.0f, masked_bias,
                                            present));
            if (input.use_cache) result.present = std::move(present);
        } else {
            out.heads.push_back(
                attend_all(query, key, value, past, n_head, opt, input, options.gen, result));
        }
        Heads contexts;
        for (const AttentionResult& head : out.heads.back()) contexts.push_back(head.context);
        out.concat.push_back(merge_heads(contexts));
        out.queries.push_back(std::move(query));
        out.keys.push_back(std::move(key));
        out.values.push_back(std::move(value));
    }
    // c_proj and resid_dropout after every item's attention: PyTorch runs _attn on the whole
    // batch first, so all attn_dropout draws precede the resid_dropout draws.
    for (std::size_t b = 0; b < batch; ++b) {
        Matrix a = c_proj.forward(out.concat[b]);
        if (options.training && resid_pdrop > 0.0f) {
            a = options.gen != nullptr ? dropout(a, resid_pdrop, *options.gen)
                                       : Matrix(Matrix::Zero(a.rows(), a.cols()));  // p == 1
        }
        out.context_vecs.push_back(std::move(a));
    }
    return result;
}

void Gpt2Attention::prune_heads(const std::set<Eigen::Index>& heads) {
    if (heads.empty()) {
        return;
    }
    // Heads are numbered as in the unpruned model, as transformers keeps pruned_heads.
    const Eigen::Index original_heads = n_head + static_cast<Eigen::Index>(pruned_heads.size());
    for (Eigen::Index h : heads) {
        if (h < 0 || h >= original_heads) {
            std::ostringstream msg;
            msg << "cannot prune head " << h << ": the model has heads 0 .. " << original_heads - 1;
            throw AttentionError(msg.str());
        }
    }
    // find_pruneable_heads_and_indices: heads already pruned are skipped, the others are shifted
    // down by the number of pruned heads before them.
    std::set<Eigen::Index> to_prune;
    std::set_difference(heads.begin(), heads.end(), pruned_heads.begin(), pruned_heads.end(),
                        std::inserter(to_prune, to_prune.begin()));
    if (to_prune.empty()) {
        return;
    }
    const Eigen::Index remaining = n_head - static_cast<Eigen::Index>(to_prune.size());
    if (remaining < 1) {
        std::ostringstream msg;
        msg << "pruning " << to_prune.size() << " more heads would leave none of the " << n_head
            << ": keep at least one head";
        throw AttentionError(msg.str());
    }
    const Eigen::Index head_size = split_size / n_head;
    std::vector<bool> keep(static_cast<std::size_t>(n_head), true);
    for (Eigen::Index h : to_prune) {
        const Eigen::Index before = static_cast<Eigen::Index>(std::count_if(
            pruned_heads.begin(), pruned_heads.end(), [h](Eigen::Index p) { return p < h; }));
        keep[static_cast<std::size_t>(h - before)] = false;
    }
    std::vector<Eigen::Index> index;  // the surviving columns of q (and of k, v at offsets)
    for (Eigen::Index h = 0; h < n_head; ++h) {
        if (keep[static_cast<std::size_t>(h)]) {
            for (Eigen::Index c = 0; c < head_size; ++c) {
                index.push_back(h * head_size + c);
            }
        }
    }
    if (is_cross_attention) {
        // The seed prunes c_attn as if it held q, k and v; for cross-attention it holds k and v,
        // and q lives in q_attn: prune each where it is (the seed's version would index out of
        // range).
        c_attn = keep_columns(c_attn, repeat_index(index, split_size, 2));
        q_attn = keep_columns(q_attn, index);
    } else {
        c_attn = keep_columns(c_attn, repeat_index(index, split_size, 3));
    }
    c_proj = keep_rows(c_proj, index);
    split_size = head_size * remaining;
    n_head = remaining;
    pruned_heads.insert(to_prune.begin(), to_prune.end());
}

}  // namespace attn
