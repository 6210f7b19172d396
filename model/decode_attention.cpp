#include "decode_attention.h"

#include <sstream>

#include "ops.h"

namespace attn {

void attend_one_query(const Eigen::Ref<const RowVector>& queries, const KVCache& cache,
                      Eigen::Index num_heads, float scale_divisor, bool keep_weights,
                      SingleQueryAttention& out) {
    const Eigen::Index num_kv_heads = cache.num_heads();
    const Eigen::Index hd_k = cache.head_dim_k();
    const Eigen::Index hd_v = cache.head_dim_v();
    const Eigen::Index n = cache.tokens;
    if (num_heads < 1 || num_kv_heads < 1 || num_heads % num_kv_heads != 0 ||
        queries.size() != num_heads * hd_k || n < 1) {
        std::ostringstream msg;
        msg << "single-query attention needs a query of num_heads × head_dim = " << num_heads
            << " × " << hd_k << " values against a kv_cache of num_kv_heads dividing num_heads "
            << "with at least one token, but got " << queries.size() << " values, " << num_kv_heads
            << " K/V heads and " << n << " cached tokens: append the new token to the cache first";
        throw AttentionError(msg.str());
    }
    out.context.resize(num_heads * hd_v);
    out.attn_weights.resize(keep_weights ? static_cast<std::size_t>(num_heads) : 0);
    RowVector weights(n), shifted(n);
    for (Eigen::Index h = 0; h < num_heads; ++h) {
        const auto& keys =
            cache.keys[static_cast<std::size_t>(kv_head_of(h, num_heads, num_kv_heads))];
        const auto& values =
            cache.values[static_cast<std::size_t>(kv_head_of(h, num_heads, num_kv_heads))];
        weights.noalias() = queries.segment(h * hd_k, hd_k) * keys.topRows(n).transpose();
        weights /= scale_divisor;
        // softmax_rows' arithmetic: Eigen's exp of (score - max), then cells below -104 set to
        // exactly 0 (Eigen's vectorised exp stops near -88), times the reciprocal of the sum.
        shifted = weights.array() - weights.maxCoeff();
        weights = shifted.array().exp().matrix();
        for (Eigen::Index j = 0; j < n; ++j)
            if (shifted[j] < -104.0f) weights[j] = 0.0f;
        const float inv_sum = 1.0f / weights.sum();
        weights *= inv_sum;
        out.context.segment(h * hd_v, hd_v).noalias() = weights * values.topRows(n);
        if (keep_weights) out.attn_weights[static_cast<std::size_t>(h)] = weights;
    }
}

}  // namespace attn
