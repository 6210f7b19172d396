#include "train_layers.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "attention_kernels.h"
#include "matmul.h"

namespace attn {

namespace {

using Index = Eigen::Index;
using Map = Eigen::Map<Matrix>;
using ConstMap = Eigen::Map<const Matrix>;
using Array = Eigen::Map<Eigen::ArrayXf>;

// Rows are walked in chunks of one vector type: GCC's vector extensions, which each clone
// (ATTN_TRAIN_CLONES) compiles for its own registers (a 16-float chunk is one AVX-512 register,
// two AVX2 ones), so accumulators stay in registers and sums end in a few lane additions
// (GCC's omp simd reductions end in a serial sum through memory). A head's width uses the widest
// chunk that divides it; float itself when not a multiple of 4.
using Floats16 = float __attribute__((vector_size(64)));
using Floats8 = float __attribute__((vector_size(32)));
using Floats4 = float __attribute__((vector_size(16)));

// By reference: a vector passed by value has a different ABI in each clone.
template <class V>
[[gnu::always_inline]] inline void load(V& v, const float* p) {
    std::memcpy(&v, p, sizeof(V));
}
template <class V>
[[gnu::always_inline]] inline void store(float* p, const V& v) {
    std::memcpy(p, &v, sizeof(V));
}
template <class V>
constexpr Index kWidth = static_cast<Index>(sizeof(V) / sizeof(float));
template <std::size_t R>
constexpr Index kRows = static_cast<Index>(R);

// The sum of a vector's lanes, halving it.
[[gnu::always_inline]] inline float lane_sum(float v) { return v; }
[[gnu::always_inline]] inline float lane_sum(const Floats4& v) {
    return (v[0] + v[2]) + (v[1] + v[3]);
}
[[gnu::always_inline]] inline float lane_sum(const Floats8& v) {
    Floats4 lo, hi;
    std::memcpy(&lo, &v, sizeof lo);
    std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof lo, sizeof hi);
    return lane_sum(lo + hi);
}
[[gnu::always_inline]] inline float lane_sum(const Floats16& v) {
    Floats8 lo, hi;
    std::memcpy(&lo, &v, sizeof lo);
    std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof lo, sizeof hi);
    return lane_sum(lo + hi);
}

// xt (cols, ldt) = x (rows, cols)ᵀ, rows of x `ldx` apart; columns rows .. ldt of xt stay as
// they are. In 4 × 4 blocks, four loads, eight shuffles and four stores each; the edges one
// float at a time.
void transpose(float* xt, Index ldt, const float* x, Index ldx, Index rows, Index cols) {
    const Index rows4 = rows / 4 * 4, cols4 = cols / 4 * 4;
    for (Index c = 0; c < cols4; c += 4)
        for (Index j = 0; j < rows4; j += 4) {
            Floats4 r0, r1, r2, r3;
            load(r0, x + j * ldx + c);
            load(r1, x + (j + 1) * ldx + c);
            load(r2, x + (j + 2) * ldx + c);
            load(r3, x + (j + 3) * ldx + c);
            const Floats4 t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5);
            const Floats4 t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
            const Floats4 t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5);
            const Floats4 t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
            store(xt + c * ldt + j, __builtin_shufflevector(t0, t2, 0, 1, 4, 5));
            store(xt + (c + 1) * ldt + j, __builtin_shufflevector(t0, t2, 2, 3, 6, 7));
            store(xt + (c + 2) * ldt + j, __builtin_shufflevector(t1, t3, 0, 1, 4, 5));
            store(xt + (c + 3) * ldt + j, __builtin_shufflevector(t1, t3, 2, 3, 6, 7));
        }
    for (Index c = 0; c < cols; ++c)
        for (Index j = c < cols4 ? rows4 : 0; j < rows; ++j) xt[c * ldt + j] = x[j * ldx + c];
}

}  // namespace

void TrainActivations::layout(const TransformerSpec& s, Index batch_size, Index tokens) {
    batch = batch_size;
    seq_len = tokens;
    const Index n = batch_size * tokens, d = s.d_model, f = s.d_ff, v = s.vocab_size;
    const Index heads = s.num_heads;
    const bool mlp = !s.attn_only;
    // Two passes: the first counts the floats, the second points into the block.
    float* base = nullptr;
    std::size_t used = 0;
    auto take = [&](Index count) {
        float* p = base == nullptr ? nullptr : base + used;
        used += static_cast<std::size_t>(count);
        return p;
    };
    for (int pass = 0; pass < 2; ++pass) {
        used = 0;
        embedded = take(n * d);
        layers.resize(static_cast<std::size_t>(s.num_layers));
        const float* input = embedded;
        for (LayerActivations& l : layers) {
            l = LayerActivations{};
            if (mlp) {
                l.ln_1_out = take(n * d);
                l.ln_1_mean = take(n);
                l.ln_1_rstd = take(n);
            }
            l.ln_1 = mlp ? l.ln_1_out : input;
            l.qkv = take(n * 3 * d);
            l.attn_weights = take(batch_size * heads * tokens * tokens);
            l.context_vecs = take(n * d);
            l.residual_mid = take(n * d);
            l.residual_out = l.residual_mid;
            if (mlp) {
                l.ln_2 = take(n * d);
                l.ln_2_mean = take(n);
                l.ln_2_rstd = take(n);
                l.fc = take(n * f);
                l.fc_gelu = take(n * f);
                l.residual_out = take(n * d);
            }
            input = l.residual_out;
        }
        if (mlp) {
            ln_f = take(n * d);
            ln_f_mean = take(n);
            ln_f_rstd = take(n);
        } else {
            ln_f = ln_f_mean = ln_f_rstd = nullptr;
        }
        final_in = mlp ? ln_f : input;
        logits = take(n * v);
        d_residual = take(n * d);
        d_ln = take(n * d);
        d_qkv = take(n * 3 * d);
        d_context = take(n * d);
        d_fc = mlp ? take(n * f) : nullptr;
        attn_scratch = take(train_layers::attention_scratch_size(tokens, s.head_dim));
        weight_t = take(std::max({3 * d * d, d * f, v * d}));
        if (pass == 0 && memory.size() < used) memory.resize(used);
        base = memory.data();
    }
}

namespace train_layers {

void embedding_forward(float* out, const int* inputs, const float* wte, const float* wpe, Index B,
                       Index T, Index d) {
    for (Index b = 0; b < B; ++b)
        for (Index t = 0; t < T; ++t) {
            float* o = out + (b * T + t) * d;
            const float* tok = wte + static_cast<Index>(inputs[b * T + t]) * d;
            const float* pos = wpe + t * d;
            for (Index i = 0; i < d; ++i) o[i] = tok[i] + pos[i];
        }
}

void embedding_backward(float* dwte, float* dwpe, const float* dout, const int* inputs, Index B,
                        Index T, Index d) {
    for (Index b = 0; b < B; ++b)
        for (Index t = 0; t < T; ++t) {
            const float* g = dout + (b * T + t) * d;
            float* tok = dwte + static_cast<Index>(inputs[b * T + t]) * d;
            float* pos = dwpe + t * d;
            for (Index i = 0; i < d; ++i) {
                tok[i] += g[i];
                pos[i] += g[i];
            }
        }
}

ATTN_TRAIN_CLONES void layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                                         const float* weight, const float* bias, Index N, Index d,
                                         float eps) {
    const float inv_d = 1.0f / static_cast<float>(d);
    for (Index n = 0; n < N; ++n) {
        const float* x = inp + n * d;
        Floats16 sum = {};
        Index i = 0;
        for (; i + kWidth<Floats16> <= d; i += kWidth<Floats16>) {
            Floats16 v;
            load(v, x + i);
            sum += v;
        }
        float m = lane_sum(sum);
        for (; i < d; ++i) m += x[i];
        m *= inv_d;
        Floats16 squares = {};
        for (i = 0; i + kWidth<Floats16> <= d; i += kWidth<Floats16>) {
            Floats16 v;
            load(v, x + i);
            v -= m;
            squares += v * v;
        }
        float var = lane_sum(squares);
        for (; i < d; ++i) var += (x[i] - m) * (x[i] - m);
        var *= inv_d;  // biased, as torch.nn.LayerNorm
        const float r = 1.0f / std::sqrt(var + eps);
        float* o = out + n * d;
#pragma omp simd
        for (i = 0; i < d; ++i) o[i] = (x[i] - m) * r * weight[i] + bias[i];
        mean[n] = m;
        rstd[n] = r;
    }
}

ATTN_TRAIN_CLONES void layernorm_backward(float* dinp, float* dweight, float* dbias,
                                          const float* dout, const float* inp, const float* weight,
                                          const float* mean, const float* rstd, Index N, Index d) {
    const float inv_d = 1.0f / static_cast<float>(d);
    for (Index n = 0; n < N; ++n) {
        const float* x = inp + n * d;
        const float* g = dout + n * d;
        const float m = mean[n], r = rstd[n];
        // The two means the input's gradient subtracts: the norm's outputs are centred and
        // scaled, so moving one input moves every output of the row.
        Floats16 dnorm_sum = {}, dnorm_norm_sum = {};
        Index i = 0;
        for (; i + kWidth<Floats16> <= d; i += kWidth<Floats16>) {
            Floats16 xv, gv, wv;
            load(xv, x + i);
            load(gv, g + i);
            load(wv, weight + i);
            const Floats16 norm = (xv - m) * r;
            const Floats16 dnorm = wv * gv;
            dnorm_sum += dnorm;
            dnorm_norm_sum += dnorm * norm;
        }
        float dnorm_mean = lane_sum(dnorm_sum), dnorm_norm_mean = lane_sum(dnorm_norm_sum);
        for (; i < d; ++i) {
            const float norm = (x[i] - m) * r;
            const float dnorm = weight[i] * g[i];
            dnorm_mean += dnorm;
            dnorm_norm_mean += dnorm * norm;
        }
        dnorm_mean *= inv_d;
        dnorm_norm_mean *= inv_d;
        float* dx = dinp + n * d;
#pragma omp simd
        for (i = 0; i < d; ++i) {
            const float norm = (x[i] - m) * r;
            const float dnorm = weight[i] * g[i];
            dbias[i] += g[i];
            dweight[i] += norm * g[i];
            dx[i] += (dnorm - dnorm_mean - norm * dnorm_norm_mean) * r;
        }
    }
}

ATTN_TRAIN_CLONES void conv1d_forward(float* out, const float* inp, const float* weight,
                                      const float* bias, const float* residual, Index N, Index C,
                                      Index OC) {
    // The bias (and the residual) first, the product added onto them: one pass over out.
    for (Index n = 0; n < N; ++n) {
        float* o = out + n * OC;
        if (residual == nullptr) {
#pragma omp simd
            for (Index i = 0; i < OC; ++i) o[i] = bias[i];
        } else {
            const float* r = residual + n * OC;
#pragma omp simd
            for (Index i = 0; i < OC; ++i) o[i] = r[i] + bias[i];
        }
    }
    gemm(ConstMap(inp, N, C), Op::None, ConstMap(weight, C, OC), Op::None, Map(out, N, OC), 1.0f);
}

namespace {

// Rows c0 .. c0 + R − 1, columns o0 .. o0 + 16·NV − 1 of dweight = inpᵀ · dout, summed over the
// N rows in registers: each row of inp gives R broadcasts, each of dout NV vectors.
template <std::size_t R, std::size_t NV>
[[gnu::always_inline]] inline void weight_grad_tile(float* dweight, const float* inp,
                                                    const float* dout, Index N, Index C, Index OC,
                                                    Index c0, Index o0) {
    Floats16 acc[R][NV] = {};
    for (Index n = 0; n < N; ++n) {
        const float* a = inp + n * C + c0;
        const float* b = dout + n * OC + o0;
        Floats16 bv[NV];
#pragma GCC unroll 4
        for (std::size_t v = 0; v < NV; ++v) load(bv[v], b + static_cast<Index>(16 * v));
#pragma GCC unroll 8
        for (std::size_t r = 0; r < R; ++r) {
            const float ar = a[r];
#pragma GCC unroll 4
            for (std::size_t v = 0; v < NV; ++v) acc[r][v] += ar * bv[v];
        }
    }
#pragma GCC unroll 8
    for (std::size_t r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (std::size_t v = 0; v < NV; ++v)
            store(dweight + (c0 + static_cast<Index>(r)) * OC + o0 + static_cast<Index>(16 * v),
                  acc[r][v]);
}

template <std::size_t NV>
[[gnu::always_inline]] inline void weight_grad_columns(float* dweight, const float* inp,
                                                       const float* dout, Index N, Index C,
                                                       Index OC, Index o0) {
    Index c = 0;
    for (; c + 6 <= C; c += 6) weight_grad_tile<6, NV>(dweight, inp, dout, N, C, OC, c, o0);
    // The rows left (64 = 6 · 10 + 4) in one tile.
    switch (C - c) {
        case 5:
            weight_grad_tile<5, NV>(dweight, inp, dout, N, C, OC, c, o0);
            break;
        case 4:
            weight_grad_tile<4, NV>(dweight, inp, dout, N, C, OC, c, o0);
            break;
        case 3:
            weight_grad_tile<3, NV>(dweight, inp, dout, N, C, OC, c, o0);
            break;
        case 2:
            weight_grad_tile<2, NV>(dweight, inp, dout, N, C, OC, c, o0);
            break;
        case 1:
            weight_grad_tile<1, NV>(dweight, inp, dout, N, C, OC, c, o0);
            break;
        default:
            break;
    }
}

// dweight (C, OC) = inpᵀ · dout reading both in place, as gemm's register tiles do for
// untransposed operands (the BLAS copies both into its packed layouts first, a tenth of the
// product at these sizes). 6 × 64 tiles: 24 of AVX-512's 32 registers.
ATTN_TRAIN_CLONES void weight_grad(float* dweight, const float* inp, const float* dout, Index N,
                                   Index C, Index OC) {
    Index o = 0;
    for (; o + 64 <= OC; o += 64) weight_grad_columns<4>(dweight, inp, dout, N, C, OC, o);
    for (; o < OC; o += 16) weight_grad_columns<1>(dweight, inp, dout, N, C, OC, o);
}

bool has_avx512() {
    static const bool yes = __builtin_cpu_supports("avx512f");
    return yes;
}

}  // namespace

void conv1d_backward(float* dinp, float* dweight, float* dbias, float* weight_t, const float* dout,
                     const float* inp, const float* weight, Index N, Index C, Index OC,
                     bool accumulate_dinp) {
    const ConstMap g(dout, N, OC);
    // dout · weightᵀ with weight transposed first, so that gemm runs its in-place tiles rather
    // than the BLAS (which copies both operands).
    transpose(weight_t, C, weight, OC, C, OC);
    gemm(g, Op::None, ConstMap(weight_t, OC, C), Op::None, Map(dinp, N, C),
         accumulate_dinp ? 1.0f : 0.0f);
    // The tiles want 32 vector registers and whole 16-float columns; otherwise the BLAS.
    if (has_avx512() && OC % 16 == 0)
        weight_grad(dweight, inp, dout, N, C, OC);
    else
        gemm(ConstMap(inp, N, C), Op::Transpose, g, Op::None, Map(dweight, C, OC));
    Eigen::Map<RowVector> db(dbias, OC);
    db = g.row(0);
    for (Index n = 1; n < N; ++n) db += g.row(n);
}

namespace {

// Rows i0 .. i0 + R − 1 of out = m · x over the keys j ≤ i (m (T, T) row-major, zeros above the
// diagonal, so the block's last row bounds every row's keys): context = attn_weights · values,
// d queries = d scores · keys. R rows at once: R independent chains of additions per chunk.
template <class V, std::size_t R>
[[gnu::always_inline]] inline void lower_rows(float* out, Index ldo, const float* m, const float* x,
                                              Index ldx, Index T, Index hd, Index i0) {
    for (Index c0 = 0; c0 < hd; c0 += kWidth<V>) {
        V acc[R] = {};
        for (Index j = 0; j < i0 + kRows<R>; ++j) {
            V xj;
            load(xj, x + j * ldx + c0);
#pragma GCC unroll 8
            for (std::size_t r = 0; r < R; ++r)
                acc[r] += m[(i0 + static_cast<Index>(r)) * T + j] * xj;
        }
#pragma GCC unroll 8
        for (std::size_t r = 0; r < R; ++r)
            store(out + (i0 + static_cast<Index>(r)) * ldo + c0, acc[r]);
    }
}

// Rows j0 .. j0 + R − 1 of out = mᵀ · y over the queries i ≥ j: d values = attn_weightsᵀ ·
// d context, d keys = d scoresᵀ · queries.
template <class V, std::size_t R>
[[gnu::always_inline]] inline void upper_rows(float* out, Index ldo, const float* m, const float* y,
                                              Index ldy, Index T, Index hd, Index j0) {
    for (Index c0 = 0; c0 < hd; c0 += kWidth<V>) {
        V acc[R] = {};
        for (Index i = j0; i < T; ++i) {
            V yi;
            load(yi, y + i * ldy + c0);
#pragma GCC unroll 8
            for (std::size_t r = 0; r < R; ++r)
                acc[r] += m[i * T + j0 + static_cast<Index>(r)] * yi;
        }
#pragma GCC unroll 8
        for (std::size_t r = 0; r < R; ++r)
            store(out + (j0 + static_cast<Index>(r)) * ldo + c0, acc[r]);
    }
}

constexpr std::size_t kRowBlock = 4;

template <class V>
[[gnu::always_inline]] inline void lower_product(float* out, Index ldo, const float* m,
                                                 const float* x, Index ldx, Index T, Index hd) {
    Index i = 0;
    for (; i + kRows<kRowBlock> <= T; i += kRows<kRowBlock>)
        lower_rows<V, kRowBlock>(out, ldo, m, x, ldx, T, hd, i);
    for (; i < T; ++i) lower_rows<V, 1>(out, ldo, m, x, ldx, T, hd, i);
}

template <class V>
[[gnu::always_inline]] inline void upper_product(float* out, Index ldo, const float* m,
                                                 const float* y, Index ldy, Index T, Index hd) {
    Index j = 0;
    for (; j + kRows<kRowBlock> <= T; j += kRows<kRowBlock>)
        upper_rows<V, kRowBlock>(out, ldo, m, y, ldy, T, hd, j);
    for (; j < T; ++j) upper_rows<V, 1>(out, ldo, m, y, ldy, T, hd, j);
}

// Keys are scored 16 at a time, a row's last chunk reaching past the diagonal: the transposed
// keys (or values) are padded with zeros to a whole number of chunks.
constexpr Index kKeyChunk = 16;
Index padded_keys(Index T) { return (T + kKeyChunk - 1) / kKeyChunk * kKeyChunk; }

// out (R, Tp) row r [j] = scale · Σ_c a[r][c] · bt[c][j] for the keys j ≤ last, in whole chunks
// (bt (hd, Tp), rows of a `lda` apart): R queries' scores, or R rows of d attn_weights = d context
// · valuesᵀ. R rows share each chunk of bt and add in R independent chains.
template <std::size_t R>
[[gnu::always_inline]] inline void rows_times_transposed(float* out, const float* a, Index lda,
                                                         const float* bt, Index Tp, Index hd,
                                                         Index last, float scale) {
    for (Index j0 = 0; j0 <= last; j0 += kKeyChunk) {
        Floats16 acc[R] = {};
        for (Index c = 0; c < hd; ++c) {
            Floats16 bc;
            load(bc, bt + c * Tp + j0);
#pragma GCC unroll 8
            for (std::size_t r = 0; r < R; ++r) acc[r] += a[static_cast<Index>(r) * lda + c] * bc;
        }
#pragma GCC unroll 8
        for (std::size_t r = 0; r < R; ++r) {
            acc[r] *= scale;
            store(out + static_cast<Index>(r) * Tp + j0, acc[r]);
        }
    }
}

// Σ_c a[c] · b[c] over a head's width.
template <class V>
[[gnu::always_inline]] inline float head_dot(const float* a, const float* b, Index hd) {
    V acc = {};
    for (Index c0 = 0; c0 < hd; c0 += kWidth<V>) {
        V x, y;
        load(x, a + c0);
        load(y, b + c0);
        acc += x * y;
    }
    return lane_sum(acc);
}

// Queries i0 .. i0 + R − 1 of one head: their attention weights (rows of w (T, T)).
template <std::size_t R>
[[gnu::always_inline]] inline void weights_rows(float* w, float* scores, const float* queries,
                                                Index row, const float* keys_t, Index T, Index Tp,
                                                Index hd, Index i0, float scale) {
    rows_times_transposed<R>(scores, queries + i0 * row, row, keys_t, Tp, hd, i0 + kRows<R> - 1,
                             scale);
    for (Index r = 0; r < kRows<R>; ++r) {
        const Index i = i0 + r;
        float* s = scores + r * Tp;
        // Keys after i are blocked (causal): softmax over 0..i, zeros after.
        const float sum = kernels::softmax_row_shift(s, i + 1, i + 1, kernels::row_max(s, i + 1));
        const float inv = 1.0f / sum;
        float* wi = w + i * T;
#pragma omp simd
        for (Index j = 0; j <= i; ++j) wi[j] = s[j] * inv;
#pragma omp simd
        for (Index j = i + 1; j < T; ++j) wi[j] = 0.0f;
    }
}

// Rows i0 .. i0 + R − 1 of one head's d scores (T, T) from its d context.
template <class V, std::size_t R>
[[gnu::always_inline]] inline void d_scores_rows(float* d_scores, float* d_weights, const float* w,
                                                 const float* dc, const float* context, Index d,
                                                 const float* values_t, Index T, Index Tp, Index hd,
                                                 Index i0, float scale) {
    // context = weights · values
    rows_times_transposed<R>(d_weights, dc + i0 * d, d, values_t, Tp, hd, i0 + kRows<R> - 1, 1.0f);
    for (Index r = 0; r < kRows<R>; ++r) {
        const Index i = i0 + r;
        const float* dw = d_weights + r * Tp;
        const float* wi = w + i * T;
        // softmax: d score[j] = w[j] (dw[j] − Σ w · dw), times the scale of the scores; zero
        // where blocked. Σ_j w[j] dw[j] = Σ_j w[j] (dc · v[j]) = dc · context: a sum over the
        // head's width rather than the keys.
        const float wdw = head_dot<V>(dc + i * d, context + i * d, hd);
        float* ds = d_scores + i * T;
#pragma omp simd
        for (Index j = 0; j <= i; ++j) ds[j] = wi[j] * (dw[j] - wdw) * scale;
#pragma omp simd
        for (Index j = i + 1; j < T; ++j) ds[j] = 0.0f;
    }
}

// Per (batch, head) with the head's width in chunks of V.
template <class V>
[[gnu::always_inline]] inline void attention_forward_heads(float* context_vecs, float* attn_weights,
                                                           float* scratch, const float* qkv,
                                                           Index B, Index T, Index H, Index hd) {
    const Index d = H * hd, row = 3 * d, Tp = padded_keys(T);
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    float* keys_t = scratch;            // (hd, Tp)
    float* scores = scratch + hd * Tp;  // (kRowBlock, Tp)
    std::fill(keys_t, keys_t + hd * Tp, 0.0f);
    for (Index b = 0; b < B; ++b)
        for (Index h = 0; h < H; ++h) {
            const float* queries = qkv + b * T * row + h * hd;
            float* w = attn_weights + (b * H + h) * T * T;
            transpose(keys_t, Tp, queries + d, row, T, hd);
            Index i = 0;
            for (; i + kRows<kRowBlock> <= T; i += kRows<kRowBlock>)
                weights_rows<kRowBlock>(w, scores, queries, row, keys_t, T, Tp, hd, i, scale);
            for (; i < T; ++i)
                weights_rows<1>(w, scores, queries, row, keys_t, T, Tp, hd, i, scale);
            lower_product<V>(context_vecs + b * T * d + h * hd, d, w, queries + 2 * d, row, T, hd);
        }
}

template <class V>
[[gnu::always_inline]] inline void attention_backward_heads(
    float* dqkv, float* scratch, const float* dcontext, const float* context_vecs, const float* qkv,
    const float* attn_weights, Index B, Index T, Index H, Index hd) {
    const Index d = H * hd, row = 3 * d, Tp = padded_keys(T);
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    float* values_t = scratch;                            // (hd, Tp)
    float* d_weights = scratch + hd * Tp;                 // (kRowBlock, Tp) rows of d attn_weights
    float* d_scores = d_weights + kRows<kRowBlock> * Tp;  // (T, T)
    std::fill(values_t, values_t + hd * Tp, 0.0f);
    for (Index b = 0; b < B; ++b)
        for (Index h = 0; h < H; ++h) {
            const float* queries = qkv + b * T * row + h * hd;
            float* d_queries = dqkv + b * T * row + h * hd;
            const float* w = attn_weights + (b * H + h) * T * T;
            const float* dc = dcontext + b * T * d + h * hd;
            const float* context = context_vecs + b * T * d + h * hd;
            transpose(values_t, Tp, queries + 2 * d, row, T, hd);
            Index i = 0;
            for (; i + kRows<kRowBlock> <= T; i += kRows<kRowBlock>)
                d_scores_rows<V, kRowBlock>(d_scores, d_weights, w, dc, context, d, values_t, T, Tp,
                                            hd, i, scale);
            for (; i < T; ++i)
                d_scores_rows<V, 1>(d_scores, d_weights, w, dc, context, d, values_t, T, Tp, hd, i,
                                    scale);
            upper_product<V>(d_queries + 2 * d, row, w, dc, d, T, hd);
            // scores = queries · keysᵀ
            lower_product<V>(d_queries, row, d_scores, queries + d, row, T, hd);
            upper_product<V>(d_queries + d, row, d_scores, queries, row, T, hd);
        }
}

}  // namespace

Index attention_scratch_size(Index T, Index hd) {
    const Index Tp = padded_keys(T);
    return hd * Tp + kRows<kRowBlock> * Tp + T * T;
}

// One clone per instruction set; the head width picks the chunk (always_inline above, so each
// clone compiles the loops for its own registers).
ATTN_TRAIN_CLONES void attention_forward(float* context_vecs, float* attn_weights, float* scratch,
                                         const float* qkv, Index B, Index T, Index H, Index hd) {
    if (hd % 16 == 0)
        attention_forward_heads<Floats16>(context_vecs, attn_weights, scratch, qkv, B, T, H, hd);
    else if (hd % 8 == 0)
        attention_forward_heads<Floats8>(context_vecs, attn_weights, scratch, qkv, B, T, H, hd);
    else if (hd % 4 == 0)
        attention_forward_heads<Floats4>(context_vecs, attn_weights, scratch, qkv, B, T, H, hd);
    else
        attention_forward_heads<float>(context_vecs, attn_weights, scratch, qkv, B, T, H, hd);
}

ATTN_TRAIN_CLONES void attention_backward(float* dqkv, float* scratch, const float* dcontext,
                                          const float* context_vecs, const float* qkv,
                                          const float* attn_weights, Index B, Index T, Index H,
                                          Index hd) {
    if (hd % 16 == 0)
        attention_backward_heads<Floats16>(dqkv, scratch, dcontext, context_vecs, qkv, attn_weights,
                                           B, T, H, hd);
    else if (hd % 8 == 0)
        attention_backward_heads<Floats8>(dqkv, scratch, dcontext, context_vecs, qkv, attn_weights,
                                          B, T, H, hd);
    else if (hd % 4 == 0)
        attention_backward_heads<Floats4>(dqkv, scratch, dcontext, context_vecs, qkv, attn_weights,
                                          B, T, H, hd);
    else
        attention_backward_heads<float>(dqkv, scratch, dcontext, context_vecs, qkv, attn_weights, B,
                                        T, H, hd);
}

namespace {

// √(2/π) rounded as layers::activate rounds it.
const float kGeluScale = std::sqrt(2.0f / 3.14159265358979323846f);

// tanh as Eigen computes it for float vectors without FMA (generic_fast_tanh_float): a rational
// function of x clamped to ±7.905, x itself below 0.0004. Written out so that every clone below
// vectorises it; GELU in inference (layers::activate) and in training both use it.
inline float rational_tanh(float a) {
    constexpr float kClamp = 7.90531110763549805f;
    float x = a < kClamp ? a : kClamp;
    x = x > -kClamp ? x : -kClamp;
    const float x2 = x * x;
    float p = x2 * -2.76076847742355e-16f + 2.00018790482477e-13f;
    p = x2 * p + -8.60467152213735e-11f;
    p = x2 * p + 5.12229709037114e-08f;
    p = x2 * p + 1.48572235717979e-05f;
    p = x2 * p + 6.37261928875436e-04f;
    p = x2 * p + 4.89352455891786e-03f;
    p = x * p;
    float q = x2 * 1.19825839466702e-06f + 1.18534705686654e-04f;
    q = x2 * q + 2.26843463243900e-03f;
    q = x2 * q + 4.89352518554385e-03f;
    const float abs_a = a < 0.0f ? -a : a;
    return abs_a < 0.0004f ? x : p / q;
}

}  // namespace

ATTN_TRAIN_CLONES void gelu_forward(float* out, float* inp_slope, Index n) {
#pragma omp simd
    for (Index i = 0; i < n; ++i) {
        const float x = inp_slope[i];
        const float th = rational_tanh(kGeluScale * (x + 0.044715f * (x * x * x)));
        out[i] = 0.5f * x * (1.0f + th);
        // d/dx: 0.5 (1 + tanh u) + 0.5 x (1 − tanh² u) · √(2/π) (1 + 3 · 0.044715 x²)
        inp_slope[i] = 0.5f * (1.0f + th) +
                       0.5f * x * (1.0f - th * th) * kGeluScale * (1.0f + 3.0f * 0.044715f * x * x);
    }
}

ATTN_TRAIN_CLONES void gelu_tanh(float* x, Index n) {
#pragma omp simd
    for (Index i = 0; i < n; ++i) {
        const float v = x[i];
        x[i] = 0.5f * v * (1.0f + rational_tanh(kGeluScale * (v + 0.044715f * (v * v * v))));
    }
}

ATTN_TRAIN_CLONES void gelu_backward(float* dinp, const float* slope, const float* dout, Index n) {
#pragma omp simd
    for (Index i = 0; i < n; ++i) dinp[i] = dout[i] * slope[i];
}

void logits_forward(float* logits, float* wte_t, const float* x, const float* wte, Index N, Index d,
                    Index V) {
    transpose(wte_t, V, wte, d, V, d);  // as conv1d_backward
    gemm(ConstMap(x, N, d), Op::None, ConstMap(wte_t, d, V), Op::None, Map(logits, N, V));
}

void logits_backward(float* dx, float* dwte, const float* dlogits, const float* x, const float* wte,
                     Index N, Index d, Index V, bool accumulate_dx) {
    const ConstMap g(dlogits, N, V);
    gemm(g, Op::None, ConstMap(wte, V, d), Op::None, Map(dx, N, d), accumulate_dx ? 1.0f : 0.0f);
    if (has_avx512() && d % 16 == 0)  // as conv1d_backward's weight gradient
        weight_grad(dwte, dlogits, x, N, V, d);
    else
        gemm(g, Op::Transpose, ConstMap(x, N, d), Op::None, Map(dwte, V, d));
}

float crossentropy_forward(float* logits, const int* targets, Index N, Index V) {
    double total = 0.0;
    for (Index n = 0; n < N; ++n) {
        float* p = logits + n * V;
        const float max = kernels::row_max(p, V);
        const float shifted_target = p[targets[n]] - max;
        // The vectorised exp of the attention's softmax.
        const float sum = kernels::softmax_row_shift(p, V, V, max);
        Array row(p, V);
        // −log p = log Σ exp(l − max) − (l_target − max): no log of a p that underflowed to 0.
        total += static_cast<double>(std::log(sum) - shifted_target);
        row *= 1.0f / sum;
    }
    return static_cast<float>(total / static_cast<double>(N));
}

void crossentropy_backward(float* probs, const int* targets, Index N, Index V) {
    const float inv_n = 1.0f / static_cast<float>(N);
    for (Index n = 0; n < N; ++n) {
        Array row(probs + n * V, V);
        row[targets[n]] -= 1.0f;
        row *= inv_n;
    }
}

}  // namespace train_layers
}  // namespace attn
