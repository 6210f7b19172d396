// KV-cached decoding, the one loop behind attention-cli decode (run_decode), explore mode's KV
// stepper (kv_trace_config) and the walkthrough's KV step: a decoder module (MultiHeadAttention
// or GPT-2's Attention) fed one token at a time through its kv_cache, beside one causal pass over
// all tokens. Row t of a causal pass depends on tokens 0..t only, so it is what a decoder without
// a cache recomputes for token t, and the two must agree up to float rounding.
//
// Shapes: T tokens, d_in, d_out, H = num_heads, hd = head_dim = d_out / H.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runner.h"

namespace attn {

// Multiplications for decoding token n (1-based) of width d_in -> d_out. With the cache: project
// the new token (3 · d_in · d_out), its query row against n keys and its weights over n values
// (2 · n · d_out), out_proj of one row (d_out²). Without: the same over all n tokens, the n × n
// scores and weighted sums included. The walkthrough's KV step states the same counts.
struct KvStepMultiplications {
    std::int64_t with_cache = 0, without_cache = 0;
};
KvStepMultiplications kv_step_multiplications(std::int64_t n, std::int64_t d_in,
                                              std::int64_t d_out);

// How the full causal pass the decoded rows are compared with is computed.
enum class KvFullPass {
    Forward,  // the module's own forward()
    // model/fast_attention.h (MultiHeadAttention only): another implementation than decode_step,
    // so equal rows check one against the other.
    Fast,
};

struct KvTraceConfig {
    ModuleKind module = ModuleKind::MultiHeadAttention;  // or ModuleKind::Gpt2Attention
    Eigen::Index d_out = 0;                              // 0 = d_in; GPT-2's width is nx = d_in
    Eigen::Index num_heads = 1;
    bool qkv_bias = false;  // MultiHeadAttention's W_query, W_key, W_value
    // MultiHeadAttention only: K/V heads (0 = num_heads; the cache holds this many heads) and
    // RoPE at positions 0, 1, ... (the token indices). Not with KvFullPass::Fast.
    Eigen::Index num_kv_heads = 0;
    bool rope = false;
    float rope_base = 10000.0f;
    std::uint64_t seed = 123;
    // Replace the drawn parameters of the same name and shape ("W_query.weight" ...); the others
    // are ignored, so a run's weights can be passed whatever module it ran.
    std::vector<NamedMatrix> weights;
    Eigen::Index max_tokens = 0;   // > 0: decode only the first max_tokens tokens
    bool cache_snapshots = false;  // fill every step's cache_keys, cache_values and query
    KvFullPass full_pass = KvFullPass::Forward;
};

struct KvTraceStep {
    Eigen::Index token = 0;  // 0-based index of the token fed in this step
    // G × (token + 1, hd), G = the cache's K/V heads: the cache after appending (snapshots)
    Heads cache_keys, cache_values;
    std::vector<RowVector> query;         // H × (hd): the new token's query, per head (snapshots)
    std::vector<RowVector> attn_weights;  // H × (token + 1): its weights over the cache
    RowVector concat;  // (d_out) every head's context row side by side, before out_proj / c_proj
    RowVector output;  // (d_out) the decoded output row
    RowVector full_output;  // (d_out) row `token` of the full causal pass
    // Multiplications of this step: with the cache (project the new token only, attend over the
    // cache, out_proj of one row) and without (recompute the whole causal pass over token + 1
    // tokens, as a decoder without a cache does for every new token).
    std::int64_t mults_cached = 0, mults_full = 0;
    std::int64_t total_cached = 0, total_full = 0;  // summed over steps 0..token
    double saved_percent = 0.0;     // 100 · (1 - total_cached / total_full): what the cache saved
    float abs_diff = 0.0f;          // max |output - full_output| of this step
    Eigen::Index cache_tokens = 0;  // token + 1
    std::size_t cache_bytes = 0;    // the cache's KVCache::bytes()
};

struct KvTrace {
    std::vector<KvTraceStep> steps;
    Matrix full_pass;  // (T, d_out): the full causal pass over the decoded tokens
    Eigen::Index num_heads = 0, head_dim = 0, d_in = 0, d_out = 0;
    float max_abs_diff = 0.0f;         // max over steps of |output - full_output|
    bool truncated = false;            // the sequence was longer than max_tokens
    std::vector<NamedMatrix> weights;  // the module's parameters, state_dict names
};

// The decoder: builds config.module from config.seed (context_length = the decoded tokens, no
// dropout), replaces config.weights and decodes the tokens one at a time. Throws AttentionError
// on bad input.
KvTrace build_kv_trace(const Sequence& inputs, const KvTraceConfig& config);

// The MultiHeadAttention explore mode's stepper runs: the session's own module when it is
// multi-head-attention (its resolved settings and its weights, including edits), otherwise a
// MultiHeadAttention with d_out = d_in, the session's head count if it divides d_in (else 1) and
// the session's seed. At most 128 tokens, with cache snapshots, against the fast path.
KvTraceConfig kv_trace_config(const RunResult& run, Eigen::Index d_in);

// --- attention-cli decode ---------------------------------------------------------------------

struct DecodeConfig {
    ModuleKind module = ModuleKind::MultiHeadAttention;  // or ModuleKind::Gpt2Attention
    Eigen::Index num_heads = 2;
    std::uint64_t seed = 123;
    // multi-head-attention only, as in KvTraceConfig.
    Eigen::Index num_kv_heads = 0;
    bool rope = false;
    float rope_base = 10000.0f;
};

// The module named `name` if it decodes with a KV cache; throws AttentionError naming the
// modules that do otherwise.
ModuleKind decoder_kind_from_name(std::string_view name);

// Decodes inputs one token at a time with a KV cache (module built with d_in = d_out = d_model =
// inputs width, context_length = T, no dropout), and runs the same module's forward() once over
// the whole sequence, so the two can be compared. Throws AttentionError on bad input.
KvTrace run_decode(const DecodeConfig& config, const Sequence& inputs);

}  // namespace attn
