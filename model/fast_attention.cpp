// The fast path of MultiHeadAttention: fused projections, blocked causal attention with an online
// softmax, heads in parallel. See fast_attention.h for the algorithm and its shapes.
#include "fast_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "attention_kernels.h"
#include "matmul.h"
#include "module_checks.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn {

namespace {

using StridedMap = Eigen::Map<const Matrix, Eigen::Unaligned, Eigen::OuterStride<>>;

int thread_index() {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

void check_block(Eigen::Index block, const char* name) {
    if (block < 1) {
        std::ostringstream msg;
        msg << "FastAttentionWorkspace::" << name << " = " << block
            << " is not a block size: give at least 1";
        throw AttentionError(msg.str());
    }
}

// One key block of the online softmax for the queries q, which are rows [r0, r0 + q.rows()) of
// the block's running state:
//   s = q · kᵀ; on the diagonal, key columns after the query's own (column diag_col + r for row
//   r) are its future and are left out;
//   m_new = max(m, rowmax(s)), p = exp(s - m_new), l = l·exp(m - m_new) + rowsum(p),
//   acc = acc·exp(m - m_new) + p · v.
// The first block of these rows assigns acc instead, so acc needs no zeroing.
constexpr Eigen::Index kNoMask = -1;

// keys_t points at the block's first key in the head's kᵀ (hd rows of stride ld_keys_t).
void attend_key_block(const StridedMap& q, const float* keys_t, Eigen::Index ld_keys_t,
                      Eigen::Index cols, const StridedMap& v, Eigen::Index r0,
                      Eigen::Index diag_col, bool first, FastAttentionWorkspace::Scratch& s) {
    const Eigen::Index rows = q.rows();
    const Eigen::Index hd = q.cols();
    float* p = s.scores.data();  // (rows, cols), row stride cols
    float* acc = s.acc.data() + r0 * s.acc.cols();
    kernels::block_product(q.data(), q.outerStride(), keys_t, ld_keys_t, p, cols, rows, cols, hd,
                           false);
    for (Eigen::Index r = 0; r < rows; ++r) {
        float* row = p + r * cols;
        // Zeroing the future keys after exp() equals filling them with -inf before it.
        const Eigen::Index valid = diag_col == kNoMask ? cols : diag_col + r + 1;
        const float m_old = s.row_max(r0 + r);
        const float m_new = std::max(m_old, kernels::row_max(row, valid));
        const float row_sum = kernels::softmax_row_shift(row, valid, cols, m_new);
        if (first) {
            s.row_sum(r0 + r) = row_sum;
        } else {
            // exp() of the max shift: the earlier blocks' terms were taken relative to m_old.
            const float alpha = std::exp(m_old - m_new);
            s.row_sum(r0 + r) = s.row_sum(r0 + r) * alpha + row_sum;
            s.acc.row(r0 + r) *= alpha;
        }
        s.row_max(r0 + r) = m_new;
    }
    kernels::block_product(p, cols, v.data(), v.outerStride(), acc, s.acc.cols(), rows,
                           s.acc.cols(), cols, !first);
}

}  // namespace

namespace {

FastProjection linear_view(const Linear& linear) {
    FastProjection p;
    p.weight = linear.weight.data();
    p.rows = linear.weight.rows();
    p.cols = linear.weight.cols();
    p.op = Op::Transpose;
    p.bias = linear.bias.size() == linear.out_features() ? linear.bias.data() : nullptr;
    return p;
}

// y = x · op(W) + b into y, a block of columns of the caller's matrix: the projection's output
// columns [first, first + y.cols()), all of them by default.
void project_into(const ConstMatrixRef& x, const FastProjection& p, MatrixRef y,
                  Eigen::Index first = 0) {
    const Eigen::Map<const Matrix> w(p.weight, p.rows, p.cols);
    const float* bias = p.bias == nullptr ? nullptr : p.bias + first;
    if (p.op == Op::Transpose)
        gemm(x, Op::None, w.middleRows(first, y.cols()), Op::Transpose, y, 0.0f, bias);
    else
        gemm(x, Op::None, w.middleCols(first, y.cols()), Op::None, y, 0.0f, bias);
}

void check_weights(const FastAttentionWeights& w) {
    Eigen::Index width = 0;
    bool ok = !w.qkv.empty() && w.head_dim > 0 && w.num_heads * w.head_dim == w.d_out;
    for (const FastProjection& p : w.qkv) {
        ok = ok && p.weight != nullptr && p.in_features() == w.d_in;
        width += p.out_features();
    }
    ok = ok && width == 3 * w.d_out && w.out.weight != nullptr && w.out.in_features() == w.d_out &&
         w.out.out_features() == w.d_out;
    if (!ok) {
        std::ostringstream msg;
        msg << "the fast path's weights do not fit together: q | k | v must give 3 × d_out = "
            << 3 * w.d_out << " columns from d_in = " << w.d_in
            << " and out_proj map d_out to d_out = num_heads × head_dim";
        throw AttentionError(msg.str());
    }
}

}  // namespace

FastAttentionWeights::FastAttentionWeights(const MultiHeadAttention& mha)
    : d_in(mha.W_query.in_features()),
      d_out(mha.d_out),
      num_heads(mha.num_heads),
      head_dim(mha.head_dim),
      context_length(mha.context_length) {
    // The fast path is the seed's module: every query head with its own K/V head, no rotation.
    if (mha.num_kv_heads != mha.num_heads || mha.rope) {
        throw AttentionError(
            "the fast path computes the seed's MultiHeadAttention only: with num_kv_heads < "
            "num_heads or rope, use MultiHeadAttention::forward and decode_step");
    }
    qkv = {linear_view(mha.W_query), linear_view(mha.W_key), linear_view(mha.W_value)};
    out = linear_view(mha.out_proj);
}

FastAttentionWeights FastAttentionWeights::packed(const MultiHeadAttention& mha) {
    const FastAttentionWeights views(mha);
    const Eigen::Index d_in = views.d_in, d = views.d_out;
    const bool qkv_bias = std::any_of(views.qkv.begin(), views.qkv.end(),
                                      [](const FastProjection& p) { return p.bias != nullptr; });
    const bool out_bias = views.out.bias != nullptr;
    // 16 floats more, so the weights can start on a 64-byte line as a loaded model's do: the
    // products' 8 × 48 tiles read only such rows.
    auto buffer = std::make_shared<std::vector<float>>(
        static_cast<std::size_t>(d_in * 3 * d + d * d + (qkv_bias ? 3 * d : 0) +
                                 (out_bias ? d : 0) + 16),
        0.0f);
    float* next = buffer->data();
    next += (16 - reinterpret_cast<std::uintptr_t>(next) / sizeof(float) % 16) % 16;
    // p's weight as x · W multiplies it, (in, out), into the columns [col, col + out) of `to`.
    const auto put = [](const FastProjection& p, Eigen::Map<Matrix> to, Eigen::Index col) {
        const Eigen::Map<const Matrix> w(p.weight, p.rows, p.cols);
        if (p.op == Op::Transpose)
            to.middleCols(col, p.out_features()) = w.transpose();
        else
            to.middleCols(col, p.out_features()) = w;
    };

    FastAttentionWeights packed = views;
    const Eigen::Map<Matrix> qkv(next, d_in, 3 * d);
    FastProjection fused{next, d_in, 3 * d, Op::None, nullptr};
    next += d_in * 3 * d;
    Eigen::Index col = 0;
    for (const FastProjection& p : views.qkv) {
        put(p, qkv, col);
        if (p.bias != nullptr) std::copy_n(p.bias, p.out_features(), next + col);
        col += p.out_features();
    }
    if (qkv_bias) {
        fused.bias = next;  // a projection without a bias adds zeros
        next += 3 * d;
    }
    FastProjection out{next, d, d, Op::None, nullptr};
    put(views.out, Eigen::Map<Matrix>(next, d, d), 0);
    next += d * d;
    if (out_bias) {
        std::copy_n(views.out.bias, d, next);
        out.bias = next;
    }
    packed.qkv = {fused};
    packed.out = out;
    packed.storage = std::move(buffer);
    return packed;
}

void fast_causal_mha_forward(const FastAttentionWeights& weights, const Matrix& x,
                             FastAttentionWorkspace& ws, Matrix& out, Eigen::Index out_rows) {
    check_weights(weights);
    check_not_empty(x, "x");
    check_cols(x, weights.d_in, "x", "d_in");
    detail::check_context_length(x.rows(), weights.context_length);
    check_finite(x, "x");
    check_block(ws.query_block, "query_block");
    check_block(ws.key_block, "key_block");
    check_block(ws.diagonal_block, "diagonal_block");
    if (out_rows <= 0 || out_rows > x.rows()) out_rows = x.rows();

    const Eigen::Index tokens = x.rows();
    const Eigen::Index d = weights.d_out;
    const Eigen::Index hd = weights.head_dim;
    const Eigen::Index heads = weights.num_heads;
    const Eigen::Index bq = std::min(ws.query_block, tokens);
    const Eigen::Index bk = std::min(ws.key_block, tokens);
    const Eigen::Index bd = std::min(ws.diagonal_block, bq);

    // 1. queries | keys | values, then the queries divided by √hd (the scores then need no
    // division; for hd = 64 both are exact powers of two). Queries only for the output's rows
    // (from q_from on): every row's keys and values are read.
    const Eigen::Index q_from = tokens - out_rows;
    ws.qkv.resize(tokens, 3 * d);
    Eigen::Index col = 0;
    for (const FastProjection& p : weights.qkv) {
        const Eigen::Index width = p.out_features();
        const Eigen::Index q_cols = q_from == 0 ? 0 : std::clamp<Eigen::Index>(d - col, 0, width);
        if (q_cols > 0)
            project_into(x.bottomRows(out_rows), p, ws.qkv.block(q_from, col, out_rows, q_cols));
        project_into(x, p, ws.qkv.middleCols(col + q_cols, width - q_cols), q_cols);
        col += width;
    }
    ws.qkv.bottomRows(out_rows).leftCols(d) *= 1.0f / std::sqrt(static_cast<float>(hd));

    // 2. blocked causal attention. Scratch per thread, sized before the parallel region.
    ws.concat.resize(tokens, d);
    use_engine_threads();
#ifdef _OPENMP
    const int threads = omp_get_max_threads();
#else
    const int threads = 1;
#endif
    ws.scratch.resize(static_cast<std::size_t>(threads));
    for (FastAttentionWorkspace::Scratch& s : ws.scratch) {
        s.scores.resize(bq, std::max(bq, bk));  // a diagonal strip is at most (bd, bq)
        s.acc.resize(bq, hd);
        s.row_max.resize(bq);
        s.row_sum.resize(bq);
    }

    const Eigen::Index ld = 3 * d;
    const float* qkv = ws.qkv.data();
    // kᵀ of every head (d, T), made once: the scores are then products of row-major blocks read
    // in place, and no work item transposes a key block again.
    ws.keys_t.resize(d, tokens);
    ws.keys_t = ws.qkv.middleCols(d, d).transpose();
    const Eigen::Index query_blocks = (tokens + bq - 1) / bq;
    // Only the blocks holding the output's rows (all keys before them are still read).
    const Eigen::Index first_block = (tokens - out_rows) / bq;
    const Eigen::Index items = (query_blocks - first_block) * heads;
    // Items in decreasing cost (the last query blocks see the most keys) so the dynamic schedule
    // ends with small items and both threads finish together.
#pragma omp parallel for schedule(dynamic, 1) if (items > 1 && tokens > 32)
    for (Eigen::Index item = 0; item < items; ++item) {
        const Eigen::Index qb = query_blocks - 1 - item / heads;
        const Eigen::Index h = item % heads;
        FastAttentionWorkspace::Scratch& s = ws.scratch[static_cast<std::size_t>(thread_index())];
        const Eigen::Index i0 = qb * bq;
        const Eigen::Index rows = std::min(bq, tokens - i0);
        const float* q_base = qkv + h * hd;
        const float* kt_base = ws.keys_t.data() + h * hd * tokens;
        const float* v_base = qkv + 2 * d + h * hd;
        // The block's rows from r_start on are the output's (all of them but in the first).
        const Eigen::Index r_start = std::max<Eigen::Index>(0, q_from - i0);
        const StridedMap q(q_base + (i0 + r_start) * ld, rows - r_start, hd,
                           Eigen::OuterStride<>(ld));
        s.row_max.head(rows).setConstant(kNegInf);

        // Key blocks entirely in the past of every query of the block: no mask, full width.
        bool first = true;
        for (Eigen::Index j0 = 0; j0 < i0; j0 += bk) {
            const Eigen::Index cols = std::min(bk, i0 - j0);
            const StridedMap v(v_base + j0 * ld, cols, hd, Eigen::OuterStride<>(ld));
            attend_key_block(q, kt_base + j0, tokens, cols, v, r_start, kNoMask, first, s);
            first = false;
        }
        // The diagonal square [i0, i0 + rows)², in strips of bd query rows: strip [s0, s0 + bd)
        // sees keys [i0, i0 + s0 + bd), masked only in its last bd columns, so the computed but
        // masked cells are bd²/2 per strip, not rows²/2. Keys after the square are all masked
        // and never computed.
        for (Eigen::Index s0 = r_start; s0 < rows; s0 += bd) {
            const Eigen::Index strip = std::min(bd, rows - s0);
            const StridedMap qs(q_base + (i0 + s0) * ld, strip, hd, Eigen::OuterStride<>(ld));
            const StridedMap v(v_base + i0 * ld, s0 + strip, hd, Eigen::OuterStride<>(ld));
            attend_key_block(qs, kt_base + i0, tokens, s0 + strip, v, s0, s0, first, s);
        }

        for (Eigen::Index r = r_start; r < rows; ++r) {
            ws.concat.row(i0 + r).segment(h * hd, hd) = s.acc.row(r) * (1.0f / s.row_sum(r));
        }
    }

    // 3. out_proj of the rows asked for.
    out.resize(out_rows, d);
    project_into(ws.concat.bottomRows(out_rows), weights.out, out);
}

Matrix fast_causal_mha_forward(const MultiHeadAttention& mha, const Matrix& x) {
    const FastAttentionWeights weights(mha);
    FastAttentionWorkspace ws;
    Matrix out;
    fast_causal_mha_forward(weights, x, ws, out);
    return out;
}

}  // namespace attn
