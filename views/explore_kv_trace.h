// The KV-cache stepper's record (issue #4): MultiHeadAttention fed one token at a time through
// decode_step, with the cache after each step, the new query row, and beside it the last row of
// a full recomputation over the tokens so far. Pure Eigen, no Qt: the widget only draws it.
//
// Shapes: T tokens, d_in, d_out, H = num_heads, hd = head_dim = d_out / H.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/runner.h"

namespace views {

struct KvTraceStep {
    Eigen::Index token = 0;                    // 0-based index of the token fed in this step
    attn::Heads cache_keys, cache_values;      // H × (token + 1, hd): the cache after appending
    std::vector<attn::RowVector> query;        // H × (hd): the new token's query, per head
    std::vector<attn::RowVector> attn_weights; // H × (token + 1): its weights over the cache
    attn::RowVector output;                    // (d_out) decode_step's output row
    attn::RowVector full_output;               // (d_out) last row of the causal pass over 0..token
    // Multiplications of this step: with the cache (project the new token only, attend over the
    // cache, out_proj of one row) and without (recompute the whole causal pass over token + 1
    // tokens, as a decoder without a cache does for every new token).
    std::int64_t mults_cached = 0, mults_full = 0;
    std::int64_t total_cached = 0, total_full = 0;  // summed over steps 0..token
    std::size_t cache_bytes = 0;  // 2 × H × (token + 1) × hd × 4
};

struct KvTrace {
    std::vector<KvTraceStep> steps;
    Eigen::Index num_heads = 0, head_dim = 0, d_in = 0, d_out = 0;
    float max_abs_diff = 0.0f;  // max over steps of |output - full_output|
    bool truncated = false;     // the sequence was longer than max_tokens
};

// The MultiHeadAttention the stepper runs: the session's own module when it is
// multi-head-attention (its resolved settings and its weights, including edits), otherwise a
// MultiHeadAttention with d_out = d_in, the session's head count if it divides d_in (else 1) and
// the session's seed. Throws AttentionError on bad input.
struct KvTraceConfig {
    Eigen::Index d_out = 0;      // 0 = d_in
    Eigen::Index num_heads = 1;
    bool qkv_bias = false;
    std::uint64_t seed = 123;
    std::vector<attn::NamedMatrix> weights;  // "W_query.weight" ... replace the drawn ones
};
KvTraceConfig kv_trace_config(const attn::RunResult& run, Eigen::Index d_in);

KvTrace build_kv_trace(const attn::Sequence& inputs, const KvTraceConfig& config,
                       Eigen::Index max_tokens = 128);

}  // namespace views
