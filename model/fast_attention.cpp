// The fast path of MultiHeadAttention: fused projections, blocked causal attention with an online
// softmax, heads in parallel. See fast_attention.h for the algorithm and its shapes.
#include "fast_attention.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "module_checks.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn {

namespace {

using StridedMap = Eigen::Map<const Matrix, Eigen::Unaligned, Eigen::OuterStride<>>;
using MutableMap = Eigen::Map<Matrix>;

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

// acc (rows, hd) = or += p (rows, cols) · v (cols, hd), all row-major with leading dimensions.
// Eigen's GEMM would first copy p into its packed layout, one copy per hd multiply-adds, which
// costs a quarter of the product at hd = 64; this kernel reads p in place instead: a tile of
// kTileRows rows of acc by 4 packets of columns stays in registers while the keys are walked,
// each row of v loaded once per tile and each weight broadcast once.
using Packet = Eigen::internal::packet_traits<float>::type;
constexpr Eigen::Index kPacket = Eigen::internal::packet_traits<float>::size;
constexpr Eigen::Index kTileCols = 4 * kPacket;
// kTileRows × 4 accumulators + 4 packets of v + 1 broadcast fit the 32 vector registers of
// AVX-512 (6 rows) or the 16 of AVX2 / SSE (2 rows).
constexpr std::size_t kTileRows = kPacket >= 16 ? 6 : 2;

template <std::size_t R>
void weights_values_tile(const float* p, Eigen::Index ldp, const float* v, Eigen::Index ldv,
                         float* acc, Eigen::Index lda, Eigen::Index cols, bool first) {
    using Eigen::internal::ploadu;
    using Eigen::internal::pmadd;
    using Eigen::internal::pset1;
    using Eigen::internal::pstoreu;
    Packet c[R][4];  // NOLINT(*-avoid-c-arrays): std::array drops the vector type's alignment
                     // attributes
#pragma GCC unroll 8
    for (std::size_t i = 0; i < R; ++i) {
        const float* row = acc + static_cast<Eigen::Index>(i) * lda;
        c[i][0] = first ? pset1<Packet>(0.0f) : ploadu<Packet>(row);
        c[i][1] = first ? pset1<Packet>(0.0f) : ploadu<Packet>(row + kPacket);
        c[i][2] = first ? pset1<Packet>(0.0f) : ploadu<Packet>(row + 2 * kPacket);
        c[i][3] = first ? pset1<Packet>(0.0f) : ploadu<Packet>(row + 3 * kPacket);
    }
    for (Eigen::Index j = 0; j < cols; ++j) {
        const float* vj = v + j * ldv;
        const Packet v0 = ploadu<Packet>(vj);
        const Packet v1 = ploadu<Packet>(vj + kPacket);
        const Packet v2 = ploadu<Packet>(vj + 2 * kPacket);
        const Packet v3 = ploadu<Packet>(vj + 3 * kPacket);
#pragma GCC unroll 8
        for (std::size_t i = 0; i < R; ++i) {
            const Packet w = pset1<Packet>(p[static_cast<Eigen::Index>(i) * ldp + j]);
            c[i][0] = pmadd(w, v0, c[i][0]);
            c[i][1] = pmadd(w, v1, c[i][1]);
            c[i][2] = pmadd(w, v2, c[i][2]);
            c[i][3] = pmadd(w, v3, c[i][3]);
        }
    }
#pragma GCC unroll 8
    for (std::size_t i = 0; i < R; ++i) {
        float* row = acc + static_cast<Eigen::Index>(i) * lda;
        pstoreu(row, c[i][0]);
        pstoreu(row + kPacket, c[i][1]);
        pstoreu(row + 2 * kPacket, c[i][2]);
        pstoreu(row + 3 * kPacket, c[i][3]);
    }
}

void weights_times_values(const MutableMap& p, const StridedMap& v, MutableMap& acc, bool first) {
    const Eigen::Index rows = p.rows();
    const Eigen::Index cols = p.cols();
    const Eigen::Index hd = v.cols();
    const Eigen::Index tiled = hd - hd % kTileCols;
    for (Eigen::Index c0 = 0; c0 < tiled; c0 += kTileCols) {
        Eigen::Index r0 = 0;
        constexpr Eigen::Index tile_rows = static_cast<Eigen::Index>(kTileRows);
        for (; r0 + tile_rows <= rows; r0 += tile_rows) {
            weights_values_tile<kTileRows>(p.data() + r0 * cols, cols, v.data() + c0,
                                           v.outerStride(), acc.data() + r0 * hd + c0, hd, cols,
                                           first);
        }
        for (; r0 < rows; ++r0) {
            weights_values_tile<1>(p.data() + r0 * cols, cols, v.data() + c0, v.outerStride(),
                                   acc.data() + r0 * hd + c0, hd, cols, first);
        }
    }
    // Columns left over when hd is not a multiple of the tile (small teaching sizes): Eigen.
    if (tiled < hd) {
        if (first) {
            acc.rightCols(hd - tiled).noalias() = p * v.rightCols(hd - tiled);
        } else {
            acc.rightCols(hd - tiled).noalias() += p * v.rightCols(hd - tiled);
        }
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

void attend_key_block(const StridedMap& q, const StridedMap& k, const StridedMap& v,
                      Eigen::Index r0, Eigen::Index diag_col, bool first,
                      FastAttentionWorkspace::Scratch& s) {
    const Eigen::Index rows = q.rows();
    const Eigen::Index cols = k.rows();
    MutableMap p(s.scores.data(), rows, cols);
    MutableMap acc(s.acc.data() + r0 * s.acc.cols(), rows, s.acc.cols());
    p.noalias() = q * k.transpose();
    for (Eigen::Index r = 0; r < rows; ++r) {
        // Zeroing the future keys after exp() equals filling them with -inf before it.
        const Eigen::Index valid = diag_col == kNoMask ? cols : diag_col + r + 1;
        const float m_old = s.row_max(r0 + r);
        const float m_new = std::max(m_old, p.row(r).head(valid).maxCoeff());
        p.row(r).head(valid) = (p.row(r).head(valid).array() - m_new).exp().matrix();
        if (valid < cols) {
            p.row(r).tail(cols - valid).setZero();
        }
        const float row_sum = p.row(r).head(valid).sum();
        if (first) {
            s.row_sum(r0 + r) = row_sum;
        } else {
            // exp() of the max shift: the earlier blocks' terms were taken relative to m_old.
            const float alpha = std::exp(m_old - m_new);
            s.row_sum(r0 + r) = s.row_sum(r0 + r) * alpha + row_sum;
            acc.row(r) *= alpha;
        }
        s.row_max(r0 + r) = m_new;
    }
    weights_times_values(p, v, acc, first);
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
    // Dividing the query by √hd before q · kᵀ equals dividing the scores after it up to float
    // rounding; folding it into the weight costs nothing per call.
    const float inv_scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
    w_qkv.resize(d_in, 3 * d_out);
    w_qkv.leftCols(d_out) = mha.W_query.weight.transpose() * inv_scale;
    w_qkv.middleCols(d_out, d_out) = mha.W_key.weight.transpose();
    w_qkv.rightCols(d_out) = mha.W_value.weight.transpose();
    b_qkv = RowVector::Zero(3 * d_out);
    if (mha.W_query.bias.size() == d_out) {
        b_qkv.head(d_out) = mha.W_query.bias * inv_scale;
    }
    if (mha.W_key.bias.size() == d_out) {
        b_qkv.segment(d_out, d_out) = mha.W_key.bias;
    }
    if (mha.W_value.bias.size() == d_out) {
        b_qkv.tail(d_out) = mha.W_value.bias;
    }
    w_out = mha.out_proj.weight.transpose();
    b_out = mha.out_proj.bias.size() == d_out ? mha.out_proj.bias : RowVector::Zero(d_out);
}

void fast_causal_mha_forward(const FastAttentionWeights& weights, const Matrix& x,
                             FastAttentionWorkspace& ws, Matrix& out) {
    check_not_empty(x, "x");
    check_cols(x, weights.d_in, "x", "d_in");
    detail::check_context_length(x.rows(), weights.context_length);
    check_finite(x, "x");
    check_block(ws.query_block, "query_block");
    check_block(ws.key_block, "key_block");
    check_block(ws.diagonal_block, "diagonal_block");

    const Eigen::Index tokens = x.rows();
    const Eigen::Index d = weights.d_out;
    const Eigen::Index hd = weights.head_dim;
    const Eigen::Index heads = weights.num_heads;
    const Eigen::Index bq = std::min(ws.query_block, tokens);
    const Eigen::Index bk = std::min(ws.key_block, tokens);
    const Eigen::Index bd = std::min(ws.diagonal_block, bq);

    // 1. queries | keys | values in one GEMM.
    ws.qkv.resize(tokens, 3 * d);
    ws.qkv.noalias() = x * weights.w_qkv;
    ws.qkv.rowwise() += weights.b_qkv;

    // 2. blocked causal attention. Scratch per thread, sized before the parallel region.
    ws.concat.resize(tokens, d);
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
    const Eigen::Index query_blocks = (tokens + bq - 1) / bq;
    const Eigen::Index items = query_blocks * heads;
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
        const float* k_base = qkv + d + h * hd;
        const float* v_base = qkv + 2 * d + h * hd;
        const StridedMap q(q_base + i0 * ld, rows, hd, Eigen::OuterStride<>(ld));
        s.row_max.head(rows).setConstant(kNegInf);

        // Key blocks entirely in the past of every query of the block: no mask, full width.
        bool first = true;
        for (Eigen::Index j0 = 0; j0 < i0; j0 += bk) {
            const Eigen::Index cols = std::min(bk, i0 - j0);
            const StridedMap k(k_base + j0 * ld, cols, hd, Eigen::OuterStride<>(ld));
            const StridedMap v(v_base + j0 * ld, cols, hd, Eigen::OuterStride<>(ld));
            attend_key_block(q, k, v, 0, kNoMask, first, s);
            first = false;
        }
        // The diagonal square [i0, i0 + rows)², in strips of bd query rows: strip [s0, s0 + bd)
        // sees keys [i0, i0 + s0 + bd), masked only in its last bd columns, so the computed but
        // masked cells are bd²/2 per strip, not rows²/2. Keys after the square are all masked
        // and never computed.
        for (Eigen::Index s0 = 0; s0 < rows; s0 += bd) {
            const Eigen::Index strip = std::min(bd, rows - s0);
            const StridedMap qs(q_base + (i0 + s0) * ld, strip, hd, Eigen::OuterStride<>(ld));
            const StridedMap k(k_base + i0 * ld, s0 + strip, hd, Eigen::OuterStride<>(ld));
            const StridedMap v(v_base + i0 * ld, s0 + strip, hd, Eigen::OuterStride<>(ld));
            attend_key_block(qs, k, v, s0, s0, first, s);
        }

        for (Eigen::Index r = 0; r < rows; ++r) {
            ws.concat.row(i0 + r).segment(h * hd, hd) = s.acc.row(r) * (1.0f / s.row_sum(r));
        }
    }

    // 3. out_proj.
    out.resize(tokens, d);
    out.noalias() = ws.concat * weights.w_out;
    out.rowwise() += weights.b_out;
}

Matrix fast_causal_mha_forward(const MultiHeadAttention& mha, const Matrix& x) {
    const FastAttentionWeights weights(mha);
    FastAttentionWorkspace ws;
    Matrix out;
    fast_causal_mha_forward(weights, x, ws, out);
    return out;
}

int fast_attention_threads() {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

void set_fast_attention_threads(int n) {
    if (n < 1) {
        std::ostringstream msg;
        msg << "threads = " << n << " is not a thread count: give at least 1";
        throw AttentionError(msg.str());
    }
#ifdef _OPENMP
    omp_set_num_threads(n);
    Eigen::setNbThreads(n);
#endif
}

}  // namespace attn
