#include "decode_attention.h"

#include <cmath>
#include <sstream>

#include "ops.h"

namespace attn {

float scale_divisor_of(Eigen::Index width) {
    return static_cast<float>(std::sqrt(static_cast<double>(width)));
}

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
    // The operands have Matrix's dynamic shape (not RowVector's fixed single row) so that Eigen
    // picks the product kernel scaled_dot_product_attention gets for its (1, hd) query: the
    // coefficient-based product for small shapes, matrix-vector above. A RowVector operand would
    // always take the matrix-vector kernel, whose sums round differently for small shapes, and
    // decode_step would no longer equal the full pass bit for bit.
    using ConstRowMap = Eigen::Map<const Matrix>;
    Matrix scores(1, n), weights(1, n), context(1, hd_v);
    Eigen::ArrayXXf products;  // (n, hd_v) weight × value, small shapes only
    for (Eigen::Index h = 0; h < num_heads; ++h) {
        const std::size_t g = static_cast<std::size_t>(kv_head_of(h, num_heads, num_kv_heads));
        const ConstRowMap query(queries.data() + h * hd_k, 1, hd_k);
        scores.noalias() = query * cache.keys[g].topRows(n).transpose();
        scores /= scale_divisor;
        // softmax_rows' arithmetic, expression for expression: exp of (score - max), cells below
        // -104 set to exactly 0 (Eigen's vectorised exp stops near -88), times the reciprocal of
        // the sum.
        const float row_max = scores.row(0).maxCoeff();
        RowVector e = (scores.row(0).array() - row_max).exp().matrix();
        for (Eigen::Index j = 0; j < n; ++j) {
            if (scores(0, j) - row_max < -104.0f) e(j) = 0.0f;
        }
        const float inv_sum = 1.0f / e.sum();
        weights.row(0) = e * inv_sum;
        if (n + 1 + hd_v < EIGEN_GEMM_TO_COEFFBASED_THRESHOLD) {
            // Below this size Eigen computes weights · values coefficient by coefficient: a
            // sequential sum of products, each rounded to float, as ops.cpp's compiled kernel
            // does it. Inlined here, the compiler may fuse the same expression into FMAs (one
            // rounding less), so the sum is spelt out over products stored first.
            products =
                cache.values[g].topRows(n).array().colwise() * weights.row(0).transpose().array();
            for (Eigen::Index c = 0; c < hd_v; ++c) {
                float sum = products(0, c);
                for (Eigen::Index j = 1; j < n; ++j) sum += products(j, c);
                context(0, c) = sum;
            }
        } else {
            context.noalias() = weights * cache.values[g].topRows(n);
        }
        out.context.segment(h * hd_v, hd_v) = context.row(0);
        if (keep_weights) out.attn_weights[static_cast<std::size_t>(h)] = weights.row(0);
    }
}

}  // namespace attn
