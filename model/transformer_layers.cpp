#include "transformer_layers.h"

#include <cmath>
#include <vector>

#include "matmul.h"
#include "ops.h"
#include "quant.h"
#include "train_layers.h"

namespace attn::layers {

using Index = Eigen::Index;

Matrix norm(const Matrix& x, const WeightView& weight, const WeightView& bias,
            const TransformerSpec& spec) {
    Matrix out(x.rows(), x.cols());
    if (spec.norm == NormKind::LayerNorm && !bias.empty()) {
        // The training layers' LayerNorm, vectorised for the CPU it runs on (GPT-2's and the
        // encoders' 25 norms a pass: 1.6 ms of Eigen's 4-lane loops at 128 tokens).
        std::vector<float> mean(static_cast<std::size_t>(x.rows())),
            rstd(static_cast<std::size_t>(x.rows()));
        train_layers::layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), weight.data,
                                        bias.data, x.rows(), x.cols(), spec.norm_eps);
        return out;
    }
    const auto w = weight.row();
    const float n = static_cast<float>(x.cols());
    const float eps = spec.norm_eps;
    // One expression per row: under -march=native the compiler fuses its multiply-adds, so the
    // same expression keeps the same bits.
    for (Index r = 0; r < x.rows(); ++r) {
        if (spec.norm == NormKind::RMSNorm) {
            const float inv = 1.0f / std::sqrt(x.row(r).squaredNorm() / n + eps);
            out.row(r) = ((x.row(r).array() * inv) * w.array()).matrix();
            if (!bias.empty()) out.row(r) += bias.row();
            continue;
        }
        const float mean = x.row(r).sum() / n;
        const float var = (x.row(r).array() - mean).square().sum() / n;
        const float inv = 1.0f / std::sqrt(var + eps);
        if (bias.empty())
            out.row(r) = ((x.row(r).array() - mean) * inv * w.array()).matrix();
        else
            out.row(r) =
                ((x.row(r).array() - mean) * inv * w.array() + bias.row().array()).matrix();
    }
    return out;
}

Matrix project(const ConstMatrixRef& x, const WeightView& weight, const WeightView& bias) {
    Matrix y;
    if (weight.quantized()) {
        // GGUF stores (out, in) row by row: x · Wᵀ on the blocks in place.
        y.resize(x.rows(), weight.rows);
        quant_matmul(weight.quant(), x, y);
        if (!bias.empty()) y.rowwise() += bias.row();
    } else {
        y = matmul(x, Op::None, weight.matrix(),
                   weight.layout == TensorLayout::OutIn ? Op::Transpose : Op::None,
                   bias.empty() ? nullptr : bias.data);
    }
    return y;
}

Matrix attention_input(const LayerWeights& w, const TransformerSpec& spec, const Matrix& h) {
    if (spec.attn_only) return h;
    return norm(h, w[TensorRole::AttnNormWeight], w[TensorRole::AttnNormBias], spec);
}

void activate(Matrix& x, ActivationKind kind) {
    switch (kind) {
        case ActivationKind::GeluTanh:
            // Eigen's tanh written out once for every vector width (train_layers.h), where
            // Eigen's own runs 4 lanes wide in this portable build.
            train_layers::gelu_tanh(x.data(), x.size());
            return;
        case ActivationKind::GeluErf:
            x = x.unaryExpr(
                [](float v) { return 0.5f * v * (1.0f + std::erf(v * 0.70710678118654752f)); });
            return;
        case ActivationKind::Relu:
            x = x.cwiseMax(0.0f);
            return;
        case ActivationKind::Silu:
            x = (x.array() / (1.0f + (-x.array()).exp())).matrix();
            return;
    }
}

Matrix mlp(const LayerWeights& w, const TransformerSpec& spec, const Matrix& m) {
    using R = TensorRole;
    Matrix up = project(m, w[R::UpWeight], w[R::UpBias]);
    if (spec.mlp == MlpKind::Gated) {
        Matrix gate = project(m, w[R::GateWeight], WeightView{});
        activate(gate, spec.activation);
        up = gate.cwiseProduct(up);
    } else {
        activate(up, spec.activation);
    }
    return project(up, w[R::DownWeight], w[R::DownBias]);
}

void mlp_block(const LayerWeights& w, const TransformerSpec& spec, Matrix& h) {
    using R = TensorRole;
    if (spec.attn_only) return;
    h += mlp(w, spec, norm(h, w[R::MlpNormWeight], w[R::MlpNormBias], spec));
}

void post_norm_mlp_block(const LayerWeights& w, const TransformerSpec& spec, Matrix& h) {
    using R = TensorRole;
    h += mlp(w, spec, h);
    h = norm(h, w[R::MlpNormWeight], w[R::MlpNormBias], spec);
}

namespace {

// Each head's block of columns rotated at positions position_offset + token index, with the
// angles computed once for all heads.
void rotate_heads(Matrix& x, Index heads, Index head_dim, const RopeAngles& angles) {
    for (Index h = 0; h < heads; ++h)
        x.middleCols(h * head_dim, head_dim) =
            apply_rope(x.middleCols(h * head_dim, head_dim), angles);
}

// Qwen3's q_norm / k_norm: an RMSNorm over each head's head_dim coordinates.
void norm_heads(Matrix& x, Index heads, const WeightView& weight, const TransformerSpec& spec) {
    for (Index h = 0; h < heads; ++h)
        x.middleCols(h * spec.head_dim, spec.head_dim) =
            norm(x.middleCols(h * spec.head_dim, spec.head_dim), weight, WeightView{}, spec);
}

}  // namespace

Projections project_qkv(const LayerWeights& w, const TransformerSpec& spec, const Matrix& a,
                        Index position_offset) {
    using R = TensorRole;
    Projections p;
    const Index q = spec.q_width(), kv = spec.kv_width();
    if (spec.fused_qkv) {
        const Matrix qkv = project(a, w[R::QkvWeight], w[R::QkvBias]);
        p.queries = qkv.leftCols(q);
        p.keys = qkv.middleCols(q, kv);
        p.values = qkv.rightCols(kv);
    } else {
        p.queries = project(a, w[R::QueryWeight], w[R::QueryBias]);
        p.keys = project(a, w[R::KeyWeight], w[R::KeyBias]);
        p.values = project(a, w[R::ValueWeight], w[R::ValueBias]);
    }
    if (spec.qk_norm) {
        norm_heads(p.queries, spec.num_heads, w[R::QueryNormWeight], spec);
        norm_heads(p.keys, spec.num_kv_heads, w[R::KeyNormWeight], spec);
    }
    if (spec.positions == PositionKind::Rotary) {
        const RopeAngles angles = rope_angles(a.rows(), rope_inv_freq(spec), position_offset);
        rotate_heads(p.queries, spec.num_heads, spec.head_dim, angles);
        rotate_heads(p.keys, spec.num_kv_heads, spec.head_dim, angles);
    }
    return p;
}

Matrix embed(const TransformerWeights& w, const std::vector<int>& ids, Index position_offset) {
    const Index t_count = static_cast<Index>(ids.size());
    Matrix h(t_count, w.spec.d_model);
    const WeightView& tokens = w[TensorRole::TokenEmbedding];
    const bool learned = w.spec.positions == PositionKind::Learned;
    for (Index t = 0; t < t_count; ++t) {
        const Index id = ids[static_cast<std::size_t>(t)];
        if (tokens.quantized())
            quant_row(tokens.quant(), id, h.row(t).data());
        else
            h.row(t) = tokens.matrix().row(id);
        if (learned) h.row(t) += w[TensorRole::PositionEmbedding].matrix().row(position_offset + t);
    }
    return h;
}

Matrix logits(const TransformerWeights& w, const Matrix& h) {
    using R = TensorRole;
    const Matrix final_h =
        w.spec.attn_only ? h : norm(h, w[R::FinalNormWeight], w[R::FinalNormBias], w.spec);
    const WeightView& out = w.spec.tied_output ? w[R::TokenEmbedding] : w[R::OutputWeight];
    if (!out.quantized()) return matmul(final_h, Op::None, out.matrix(), Op::Transpose);
    Matrix y(final_h.rows(), out.rows);
    quant_matmul(out.quant(), final_h, y);
    return y;
}

std::vector<Index> encoder_positions(const TransformerSpec& spec, const std::vector<int>& ids) {
    std::vector<Index> positions(ids.size());
    Index real = 0;
    for (std::size_t t = 0; t < ids.size(); ++t) {
        if (spec.padding_idx < 0) {
            positions[t] = static_cast<Index>(t);
        } else if (ids[t] == spec.padding_idx) {
            positions[t] = spec.padding_idx;
        } else {
            positions[t] = spec.padding_idx + ++real;
        }
    }
    return positions;
}

Matrix embed_encoder(const TransformerWeights& w, const std::vector<int>& ids,
                     const std::vector<int>& token_type_ids) {
    using R = TensorRole;
    const TransformerSpec& s = w.spec;
    const std::vector<Index> positions = encoder_positions(s, ids);
    Matrix h(static_cast<Index>(ids.size()), s.d_model);
    for (std::size_t t = 0; t < ids.size(); ++t) {
        const auto row = static_cast<Index>(t);
        // Summed in transformers' order: words + token types, then positions.
        h.row(row) = w[R::TokenEmbedding].matrix().row(ids[t]);
        if (s.type_vocab_size > 0) {
            const int type = token_type_ids.empty() ? 0 : token_type_ids[t];
            h.row(row) += w[R::TokenTypeEmbedding].matrix().row(type);
        }
        h.row(row) += w[R::PositionEmbedding].matrix().row(positions[t]);
    }
    return norm(h, w[R::EmbedNormWeight], w[R::EmbedNormBias], s);
}

Matrix mlm_logits(const TransformerWeights& w, const Matrix& h) {
    using R = TensorRole;
    Matrix x = project(h, w[R::MlmTransformWeight], w[R::MlmTransformBias]);
    activate(x,
             w.spec.family == ModelFamily::Roberta ? ActivationKind::GeluErf : w.spec.activation);
    x = norm(x, w[R::MlmNormWeight], w[R::MlmNormBias], w.spec);
    Matrix y = matmul(x, Op::None, w[R::TokenEmbedding].matrix(), Op::Transpose);
    y.rowwise() += w[R::OutputBias].row();
    return y;
}

}  // namespace attn::layers
