// The KV-cache stepper's record (issue #4): MultiHeadAttention fed one token at a time through
// decode_step, with the cache after each step, the new query row, and beside it the same row of
// the full causal pass (row t of a causal pass depends on tokens 0..t only, so it is what a
// decoder without a cache recomputes for token t). Explore mode's stepper draws it.
//
// Shapes: T tokens, d_in, d_out, H = num_heads, hd = head_dim = d_out / H.
#pragma once

#include <cstdint>
#include <string>
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

struct KvTraceStep {
    Eigen::Index token = 0;               // 0-based index of the token fed in this step
    Heads cache_keys, cache_values;       // H × (token + 1, hd): the cache after appending
    std::vector<RowVector> query;         // H × (hd): the new token's query, per head
    std::vector<RowVector> attn_weights;  // H × (token + 1): its weights over the cache
    RowVector output;                     // (d_out) decode_step's output row
    RowVector full_output;  // (d_out) row `token` of the full causal pass, on the fast path
    // Multiplications of this step: with the cache (project the new token only, attend over the
    // cache, out_proj of one row) and without (recompute the whole causal pass over token + 1
    // tokens, as a decoder without a cache does for every new token).
    std::int64_t mults_cached = 0, mults_full = 0;
    std::int64_t total_cached = 0, total_full = 0;  // summed over steps 0..token
    std::size_t cache_bytes = 0;                    // 2 × H × (token + 1) × hd × 4
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
    Eigen::Index d_out = 0;  // 0 = d_in
    Eigen::Index num_heads = 1;
    bool qkv_bias = false;
    std::uint64_t seed = 123;
    std::vector<NamedMatrix> weights;  // "W_query.weight" ... replace the drawn ones
};
KvTraceConfig kv_trace_config(const RunResult& run, Eigen::Index d_in);

KvTrace build_kv_trace(const Sequence& inputs, const KvTraceConfig& config,
                       Eigen::Index max_tokens = 128);

}  // namespace attn
