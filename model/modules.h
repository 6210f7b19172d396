// The attention modules of the seeds, each matching its PyTorch code: parameters are created and
// drawn from the generator in the order the PyTorch constructor creates them, so the same seed
// gives the same weights. Shapes as in tensor.h.
#pragma once

#include <set>
#include <vector>

#include "ops.h"
#include "rng.h"
#include "tensor.h"

namespace attn {

// nn.Linear(in, out, bias): weight (out, in) as PyTorch stores it; y = x · weightᵀ + bias.
struct Linear {
    Matrix weight;   // (out, in)
    RowVector bias;  // (out) or empty when the layer has no bias

    // kaiming_uniform(a = sqrt(5)) = uniform(-1/sqrt(in), 1/sqrt(in)) for the weight, row-major,
    // then the bias from the same bound.
    static Linear init(Eigen::Index in, Eigen::Index out, bool bias, TorchGenerator& gen);
    Matrix forward(const Matrix& x) const;  // (T, in) -> (T, out)
    Eigen::Index in_features() const { return weight.cols(); }
    Eigen::Index out_features() const { return weight.rows(); }
};

// GPT-2's Conv1D(nf, nx): weight (nx, nf), i.e. transposed relative to Linear; y = x · weight + b.
// Initialised as transformers does: weight normal(0, 0.02), bias zeros.
struct Conv1D {
    Matrix weight;   // (nx, nf)
    RowVector bias;  // (nf)

    static Conv1D init(Eigen::Index nf, Eigen::Index nx, TorchGenerator& gen);
    Matrix forward(const Matrix& x) const;  // (T, nx) -> (T, nf)
};

// What a module's forward returns: its output and everything computed on the way.
struct ModuleOutput {
    Batch context_vecs;                               // (B, T_q, d_out): the module's output
    std::vector<std::vector<AttentionResult>> heads;  // [b][h]: every intermediate per head
    Batch queries, keys, values;                      // (B, T, width) projections, before splitting
    Batch concat;  // (B, T_q, H*hd) heads merged before out_proj; empty for single-head modules
};

// Common options of a forward pass.
struct ForwardOptions {
    bool training = false;          // dropout only acts in training mode
    TorchGenerator* gen = nullptr;  // required when training with 0 < dropout < 1
    // Explore mode's switches; the defaults are the seeds' modules. CausalAttention, the
    // wrapper and MultiHeadAttention honour causal and causal_fill; the modules taking
    // ForwardOptions honour scale (divide the scores by sqrt(head_dim) or not).
    bool causal = true;
    float causal_fill = kNegInf;
    bool scale = true;
    // MultiHeadAttention only (the chapters after the tutorial); blocked cells take causal_fill.
    // window > 0: a sliding-window causal mask (window_mask in ops.h), query i sees keys j with
    // i - window < j <= i; needs causal. lengths: one per batch item, in [0, T]; keys at
    // positions >= lengths[b] are blocked for every query of item b (padding_mask), with any mask.
    // position_offset: the first token's RoPE position (MultiHeadAttention::rope).
    Eigen::Index window = 0;
    std::vector<Eigen::Index> lengths;
    Eigen::Index position_offset = 0;
};

// Seed 002, "SelfAttention_v1": parameters from torch.rand(d_in, d_out); q = x · W_query.
struct SelfAttentionV1 {
    Matrix W_query, W_key, W_value;  // (d_in, d_out)

    SelfAttentionV1(Eigen::Index d_in, Eigen::Index d_out, TorchGenerator& gen);
    ModuleOutput forward(const Matrix& x) const;  // (T, d_in) -> B = 1
    // The same with explore mode's options for the attention step (scale, a causal mask).
    ModuleOutput forward(const Matrix& x, const AttentionOptions& attention) const;
};

// Seed 002, "SelfAttention" (v2): Linear projections, optional qkv bias.
struct SelfAttentionV2 {
    Linear W_query, W_key, W_value;

    SelfAttentionV2(Eigen::Index d_in, Eigen::Index d_out, TorchGenerator& gen,
                    bool qkv_bias = false);
    ModuleOutput forward(const Matrix& x) const;  // (T, d_in) -> B = 1
    ModuleOutput forward(const Matrix& x, const AttentionOptions& attention) const;
};

// Seed 002, CausalAttention: causal -inf mask, dropout on the weights.
struct CausalAttention {
    Linear W_query, W_key, W_value;
    Eigen::Index context_length;
    float dropout;

    CausalAttention(Eigen::Index d_in, Eigen::Index d_out, Eigen::Index context_length,
                    float dropout, TorchGenerator& gen, bool qkv_bias = false);
    ModuleOutput forward(const Batch& x, const ForwardOptions& options = {}) const;
};

// Seed 002, MultiHeadAttentionWrapper: num_heads CausalAttention heads, outputs concatenated.
// d_out is each head's width, so the output is (B, T, num_heads * d_out).
struct MultiHeadAttentionWrapper {
    std::vector<CausalAttention> heads;

    MultiHeadAttentionWrapper(Eigen::Index d_in, Eigen::Index d_out, Eigen::Index context_length,
                              float dropout, Eigen::Index num_heads, TorchGenerator& gen,
                              bool qkv_bias = false);
    ModuleOutput forward(const Batch& x, const ForwardOptions& options = {}) const;
};

// Per-head cached keys and values of one sequence, preallocated to a capacity so decoding never
// reallocates per token.
struct KVCache {
    Heads keys, values;  // H × (capacity, hd); the first `tokens` rows are filled
    Eigen::Index tokens = 0;

    KVCache() = default;
    KVCache(Eigen::Index num_heads, Eigen::Index capacity, Eigen::Index head_dim_k,
            Eigen::Index head_dim_v);
    Eigen::Index capacity() const;
    Eigen::Index num_heads() const { return static_cast<Eigen::Index>(keys.size()); }
    Eigen::Index head_dim_k() const;
    Eigen::Index head_dim_v() const;
    // Bytes held by the filled part: 2 tensors × H × tokens × hd × sizeof(float), in general
    // (hd_k + hd_v) × H × tokens × sizeof(float).
    std::size_t bytes() const;
    // Appends n rows per head (H × (n, hd) each) after the filled rows, in place; throws
    // AttentionError if capacity would be exceeded or the shapes do not match the cache.
    void append(const Heads& new_keys, const Heads& new_values);
    // The filled rows of one head: (tokens, hd_k) and (tokens, hd_v).
    Matrix keys_of(Eigen::Index head) const;
    Matrix values_of(Eigen::Index head) const;
};

// One decoding step's result for one token.
struct DecodeStep {
    RowVector output;  // (d_out) the module's output row for the new token
    RowVector query;   // (H·hd) the new token's query, heads side by side, rotated with rope
    RowVector concat;  // (H·hd) every head's context row side by side, before out_proj
    std::vector<RowVector>
        attn_weights;  // H × (tokens): the new query row's weights per query head
    Eigen::Index cache_tokens = 0;
    std::size_t cache_bytes = 0;  // KVCache::bytes() after the step
};

// Seed 002, MultiHeadAttention: fused-width projections split into heads, out_proj.
// Extended past the tutorial (each extension off by default, so the defaults are the seed's):
// - num_kv_heads G (grouped-query / multi-query attention): W_key and W_value are
//   Linear(d_in, G·head_dim); query head h reads K/V head kv_head_of(h, num_heads, G) (ops.h,
//   LLaMA's repeat_kv). Parameters are still drawn W_query, W_key, W_value, out_proj, so
//   G = num_heads is the seed's module bit for bit.
// - rope / rope_base: every head's queries and keys are rotated (ops.h rope_rotate, Hugging
//   Face's LLaMA convention) after the projection and before the scores, at positions
//   ForwardOptions::position_offset + token index (decode_step: the cached token count).
// - ForwardOptions::window and ::lengths: sliding-window and padding masks.
// ModuleOutput: queries (B, T, H·hd) and keys (B, T, G·hd) after rotation, values (B, T, G·hd);
// heads[b][h] per query head (its scores after rotation); dropout draws over [b][h][T][T].
struct MultiHeadAttention {
    Linear W_query, W_key, W_value, out_proj;
    Eigen::Index num_heads, head_dim, d_out, context_length;
    float dropout;
    Eigen::Index num_kv_heads;  // G, divides num_heads; = num_heads in the seed's module
    bool rope = false;          // set after construction: RoPE draws no parameters
    float rope_base = 10000.0f;

    // num_kv_heads = 0 means num_heads. Throws AttentionError if it does not divide num_heads.
    MultiHeadAttention(Eigen::Index d_in, Eigen::Index d_out, Eigen::Index context_length,
                       float dropout, Eigen::Index num_heads, TorchGenerator& gen,
                       bool qkv_bias = false, Eigen::Index num_kv_heads = 0);
    ModuleOutput forward(const Batch& x, const ForwardOptions& options = {}) const;

    // A cache of num_kv_heads heads for up to `capacity` tokens; throws if capacity >
    // context_length, the same limit forward() has.
    KVCache make_cache(Eigen::Index capacity) const;
    // x_t (1, d_in): project, append k and v to the cache, attend over all cached tokens with
    // attend_one_query (no mask: they are all in the past). Inference only: no dropout. With rope
    // the new token's position is cache.tokens (the tokens before it). attn_weights has one row
    // per query head. Equals row t of forward()'s causal pass bit for bit.
    DecodeStep decode_step(const Matrix& x_t, KVCache& cache) const;
};

// Seed 003, self-attention with dim_k != dim_v (no bias); scale 1/sqrt(dim_k).
struct SelfAttentionKV {
    Linear linear_q, linear_k, linear_v;
    Eigen::Index dim_in, dim_k, dim_v;

    SelfAttentionKV(Eigen::Index dim_in, Eigen::Index dim_k, Eigen::Index dim_v,
                    TorchGenerator& gen);
    ModuleOutput forward(const Batch& x) const;  // (B, T, dim_in) -> (B, T, dim_v)
};

// Seed 003, its multi-head version: scale 1/sqrt(dim_k / num_heads); no output projection.
struct MultiHeadSelfAttentionKV {
    Linear linear_q, linear_k, linear_v;
    Eigen::Index dim_in, dim_k, dim_v, num_heads;

    MultiHeadSelfAttentionKV(Eigen::Index dim_in, Eigen::Index dim_k, Eigen::Index dim_v,
                             Eigen::Index num_heads, TorchGenerator& gen);
    ModuleOutput forward(const Batch& x) const;
};

// Mask convention of the BERT-style module: seed 000 fills mask == 0, seed 004 fills mask == 1.
enum class MaskConvention { FillWhereZero, FillWhereOne };

// Seeds 000 and 004, MultiHeadedAttention(h, d_model, dropout): separate query/key/value inputs
// (so it also does cross-attention), four Linear(d_model, d_model) with bias, fill -1e9.
struct BertMultiHeadedAttention {
    std::vector<Linear> linears;  // Wq, Wk, Wv, Wo
    Eigen::Index num_heads, head_dim, d_model;
    float dropout;

    BertMultiHeadedAttention(Eigen::Index num_heads, Eigen::Index d_model, float dropout,
                             TorchGenerator& gen);
    // query (B, T_q, d_model), key/value (B, T_k, d_model); mask (T_q, T_k) or none.
    ModuleOutput forward(const Batch& query, const Batch& key, const Batch& value,
                         const Matrix* mask = nullptr,
                         MaskConvention convention = MaskConvention::FillWhereZero,
                         float fill_value = -1e9f, const ForwardOptions& options = {}) const;
};

// Seed 001, GPT-2's Attention: fused c_attn, causal `bias` buffer with masked_bias -1e4,
// additive attention_mask, head_mask, prune_heads, cross-attention with q_attn, layer_past/present.
struct Gpt2Attention {
    Conv1D c_attn;  // (nx, 3*n_state), or (nx, 2*n_state) for cross-attention
    Conv1D q_attn;  // (nx, n_state), cross-attention only
    Conv1D c_proj;  // (n_state, nx)
    Eigen::Index n_head, split_size, n_ctx;
    bool scale, is_cross_attention;
    float attn_pdrop = 0.0f;
    // nn.Dropout(resid_pdrop) on the output after c_proj, in training mode; 0 (off) by default,
    // set it after construction. Its draws follow all attn_dropout draws of the batch, as in
    // PyTorch where _attn runs on the whole batch before c_proj.
    float resid_pdrop = 0.0f;
    std::set<Eigen::Index> pruned_heads;  // in the original numbering, as transformers keeps it
    float masked_bias = -1e4f;

    Gpt2Attention(Eigen::Index nx, Eigen::Index n_ctx, Eigen::Index n_head, bool scale,
                  bool is_cross_attention, TorchGenerator& gen, float attn_pdrop = 0.0f);

    struct Input {
        Batch hidden_states;                     // (B, T, nx)
        const KVCache* layer_past = nullptr;     // per batch item would be [b]; B = 1 with a cache
        const Matrix* attention_mask = nullptr;  // (T_q, T_k) additive
        const RowVector* head_mask = nullptr;    // (n_head) multiplies each head's weights
        const Batch* encoder_hidden_states = nullptr;  // cross-attention keys/values source
        const Matrix* encoder_attention_mask = nullptr;
        bool use_cache = false;
    };
    struct Output {
        // a (after c_proj) in attn.context_vecs, w in attn.heads. Decoding (one token against
        // layer_past in eval mode, no attention_mask, head_mask or cross-attention) runs
        // attend_one_query: each head then holds weights, dropped, context, blocked and kept, but
        // not scores, scaled or masked.
        ModuleOutput attn;
        KVCache present;  // key/value of all tokens so far, when use_cache
    };
    Output forward(const Input& input, const ForwardOptions& options = {}) const;
    // Removes the given heads from c_attn (q, k and v columns) and c_proj (rows).
    void prune_heads(const std::set<Eigen::Index>& heads);
};

}  // namespace attn
