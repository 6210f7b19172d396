#include "train_layers.h"

#include <algorithm>
#include <cmath>

#include "matmul.h"

namespace attn {

namespace {

using Index = Eigen::Index;
using Map = Eigen::Map<Matrix>;
using ConstMap = Eigen::Map<const Matrix>;
using Array = Eigen::Map<Eigen::ArrayXf>;
using ConstArray = Eigen::Map<const Eigen::ArrayXf>;

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
        d_attn_row = take(tokens);
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

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, Index N, Index d, float eps) {
    const float inv_d = 1.0f / static_cast<float>(d);
    for (Index n = 0; n < N; ++n) {
        const float* x = inp + n * d;
        float m = 0.0f;
        for (Index i = 0; i < d; ++i) m += x[i];
        m *= inv_d;
        float var = 0.0f;
        for (Index i = 0; i < d; ++i) var += (x[i] - m) * (x[i] - m);
        var *= inv_d;  // biased, as torch.nn.LayerNorm
        const float r = 1.0f / std::sqrt(var + eps);
        float* o = out + n * d;
        for (Index i = 0; i < d; ++i) o[i] = (x[i] - m) * r * weight[i] + bias[i];
        mean[n] = m;
        rstd[n] = r;
    }
}

void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout,
                        const float* inp, const float* weight, const float* mean, const float* rstd,
                        Index N, Index d) {
    const float inv_d = 1.0f / static_cast<float>(d);
    for (Index n = 0; n < N; ++n) {
        const float* x = inp + n * d;
        const float* g = dout + n * d;
        const float m = mean[n], r = rstd[n];
        // The two means the input's gradient subtracts: the norm's outputs are centred and
        // scaled, so moving one input moves every output of the row.
        float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
        for (Index i = 0; i < d; ++i) {
            const float norm = (x[i] - m) * r;
            const float dnorm = weight[i] * g[i];
            dnorm_mean += dnorm;
            dnorm_norm_mean += dnorm * norm;
        }
        dnorm_mean *= inv_d;
        dnorm_norm_mean *= inv_d;
        float* dx = dinp + n * d;
        for (Index i = 0; i < d; ++i) {
            const float norm = (x[i] - m) * r;
            const float dnorm = weight[i] * g[i];
            dbias[i] += g[i];
            dweight[i] += norm * g[i];
            dx[i] += (dnorm - dnorm_mean - norm * dnorm_norm_mean) * r;
        }
    }
}

void conv1d_forward(float* out, const float* inp, const float* weight, const float* bias, Index N,
                    Index C, Index OC, bool accumulate) {
    Map y(out, N, OC);
    gemm(ConstMap(inp, N, C), Op::None, ConstMap(weight, C, OC), Op::None, y,
         accumulate ? 1.0f : 0.0f);
    const Eigen::Map<const RowVector> b(bias, OC);
    for (Index n = 0; n < N; ++n) y.row(n) += b;
}

void conv1d_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, Index N, Index C, Index OC, bool accumulate_dinp) {
    const ConstMap g(dout, N, OC);
    gemm(g, Op::None, ConstMap(weight, C, OC), Op::Transpose, Map(dinp, N, C),
         accumulate_dinp ? 1.0f : 0.0f);
    gemm(ConstMap(inp, N, C), Op::Transpose, g, Op::None, Map(dweight, C, OC), 1.0f);
    Eigen::Map<RowVector> db(dbias, OC);
    for (Index n = 0; n < N; ++n) db += g.row(n);
}

void attention_forward(float* context_vecs, float* attn_weights, const float* qkv, Index B, Index T,
                       Index H, Index hd) {
    const Index d = H * hd, row = 3 * d;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    for (Index b = 0; b < B; ++b)
        for (Index h = 0; h < H; ++h) {
            const float* base = qkv + b * T * row + h * hd;
            for (Index t = 0; t < T; ++t) {
                const float* q = base + t * row;
                float* w = attn_weights + ((b * H + h) * T + t) * T;
                float max = -INFINITY;
                for (Index j = 0; j <= t; ++j) {
                    const float* k = base + j * row + d;
                    float dot = 0.0f;
                    for (Index i = 0; i < hd; ++i) dot += q[i] * k[i];
                    w[j] = dot * scale;
                    max = std::max(max, w[j]);
                }
                // Subtract the row's max: exp() of large scores overflows float.
                float sum = 0.0f;
                for (Index j = 0; j <= t; ++j) {
                    w[j] = std::exp(w[j] - max);
                    sum += w[j];
                }
                const float inv = 1.0f / sum;
                for (Index j = 0; j <= t; ++j) w[j] *= inv;
                for (Index j = t + 1; j < T; ++j) w[j] = 0.0f;  // the causal mask
                float* c = context_vecs + (b * T + t) * d + h * hd;
                for (Index i = 0; i < hd; ++i) c[i] = 0.0f;
                for (Index j = 0; j <= t; ++j) {
                    const float* v = base + j * row + 2 * d;
                    for (Index i = 0; i < hd; ++i) c[i] += w[j] * v[i];
                }
            }
        }
}

void attention_backward(float* dqkv, float* d_attn_row, const float* dcontext, const float* qkv,
                        const float* attn_weights, Index B, Index T, Index H, Index hd) {
    const Index d = H * hd, row = 3 * d;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    std::fill(dqkv, dqkv + B * T * row, 0.0f);
    for (Index b = 0; b < B; ++b)
        for (Index h = 0; h < H; ++h) {
            const float* base = qkv + b * T * row + h * hd;
            float* dbase = dqkv + b * T * row + h * hd;
            for (Index t = 0; t < T; ++t) {
                const float* w = attn_weights + ((b * H + h) * T + t) * T;
                const float* dc = dcontext + (b * T + t) * d + h * hd;
                // context = Σ_j w[j] · v[j]
                float wdw = 0.0f;
                for (Index j = 0; j <= t; ++j) {
                    const float* v = base + j * row + 2 * d;
                    float* dv = dbase + j * row + 2 * d;
                    float dot = 0.0f;
                    for (Index i = 0; i < hd; ++i) {
                        dot += v[i] * dc[i];
                        dv[i] += w[j] * dc[i];
                    }
                    d_attn_row[j] = dot;
                    wdw += w[j] * dot;
                }
                // softmax: d score[j] = w[j] (dw[j] − Σ w · dw); score = q · k · scale
                const float* q = base + t * row;
                float* dq = dbase + t * row;
                for (Index j = 0; j <= t; ++j) {
                    const float ds = w[j] * (d_attn_row[j] - wdw) * scale;
                    const float* k = base + j * row + d;
                    float* dk = dbase + j * row + d;
                    for (Index i = 0; i < hd; ++i) {
                        dq[i] += ds * k[i];
                        dk[i] += ds * q[i];
                    }
                }
            }
        }
}

namespace {
const float kGeluScale = std::sqrt(2.0f / 3.14159265358979323846f);
}

void gelu_forward(float* out, const float* inp, Index n) {
    // The expression of layers::activate, so training and model_forward agree.
    const ConstArray x(inp, n);
    Array(out, n) = 0.5f * x * (1.0f + (kGeluScale * (x + 0.044715f * x.cube())).tanh());
}

void gelu_backward(float* dinp, const float* inp, const float* dout, Index n) {
    // In blocks, so tanh(u) is computed once per value without a buffer of n floats.
    constexpr Index kBlock = 1024;
    Eigen::Array<float, kBlock, 1> th;
    for (Index start = 0; start < n; start += kBlock) {
        const Index len = std::min(kBlock, n - start);
        const ConstArray x(inp + start, len);
        th.head(len) = (kGeluScale * (x + 0.044715f * x.cube())).tanh();
        // d/dx: 0.5 (1 + tanh u) + 0.5 x (1 − tanh² u) · √(2/π) (1 + 3 · 0.044715 x²)
        Array(dinp + start, len) =
            ConstArray(dout + start, len) *
            (0.5f * (1.0f + th.head(len)) + 0.5f * x * (1.0f - th.head(len).square()) * kGeluScale *
                                                (1.0f + 3.0f * 0.044715f * x.square()));
    }
}

void logits_forward(float* logits, const float* x, const float* wte, Index N, Index d, Index V) {
    gemm(ConstMap(x, N, d), Op::None, ConstMap(wte, V, d), Op::Transpose, Map(logits, N, V));
}

void logits_backward(float* dx, float* dwte, const float* dlogits, const float* x, const float* wte,
                     Index N, Index d, Index V, bool accumulate_dx) {
    const ConstMap g(dlogits, N, V);
    gemm(g, Op::None, ConstMap(wte, V, d), Op::None, Map(dx, N, d), accumulate_dx ? 1.0f : 0.0f);
    gemm(g, Op::Transpose, ConstMap(x, N, d), Op::None, Map(dwte, V, d), 1.0f);
}

float crossentropy_forward(float* logits, const int* targets, Index N, Index V) {
    double total = 0.0;
    for (Index n = 0; n < N; ++n) {
        Array row(logits + n * V, V);
        const float max = row.maxCoeff();
        const float shifted_target = row[targets[n]] - max;
        row = (row - max).exp();
        const float sum = row.sum();
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
