// One new token against a kv_cache: the single-query attention behind every decode path
// (MultiHeadAttention::decode_step, GPT-2's Attention with layer_past, the model generator, and
// through them the walkthrough's KV step and explore mode's KV tab).
//
// Shapes: H = query heads, G = K/V heads (G divides H; query head h reads K/V head
// kv_head_of(h, H, G), LLaMA's repeat_kv), hd_k / hd_v = head widths, n = cached tokens.
#pragma once

#include <vector>

#include "modules.h"
#include "tensor.h"

namespace attn {

// sqrt(width) as scaled_dot_product_attention divides by it: PyTorch's `d ** 0.5` is a Python
// double, rounded to float when it divides a float tensor.
float scale_divisor_of(Eigen::Index width);

struct SingleQueryAttention {
    RowVector context;                    // (H·hd_v): every head's context row side by side
    std::vector<RowVector> attn_weights;  // H × (n): each query head's weights over the cache
};

// queries (H·hd_k): the new token's query, heads side by side, already rotated when RoPE applies.
// cache: G heads with n >= 1 tokens, the new token's key and value already appended, so every
// cached token is in the past and no mask is needed. Per head: scores = q · Kᵀ (1, n), divided by
// scale_divisor (a division, as PyTorch's `w / sqrt(d)`), softmax_rows' arithmetic, then
// weights · V. attn_weights is filled only when keep_weights (a generator that draws nothing
// skips the copies). `out` is reused across calls: its buffers keep their storage while the
// shapes stay the same.
// Throws AttentionError for a width that is not H · hd_k, G not dividing H, or an empty cache.
void attend_one_query(const Eigen::Ref<const RowVector>& queries, const KVCache& cache,
                      Eigen::Index num_heads, float scale_divisor, bool keep_weights,
                      SingleQueryAttention& out);

}  // namespace attn
