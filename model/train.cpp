#include "train.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "train_layers.h"
#include "transformer.h"

namespace attn {

namespace {

using Index = Eigen::Index;
using R = TensorRole;
namespace tl = train_layers;

// What the engine trains: GPT-2's layout exactly (model/train.h); anything else is named.
void check_trainable(const TransformerSpec& s) {
    check_spec(s);
    auto refuse = [&](const std::string& what) {
        throw AttentionError("training computes GPT-2's layout only, but this model has " + what +
                             ": train a GPT-2 layout model (train_spec)");
    };
    if (is_encoder(s.family))
        throw AttentionError(encoder_name(s.family) +
                             " is an encoder (bidirectional, masked-LM): training computes GPT-2's "
                             "next-token layout only; train a GPT-2 layout model (train_spec)");
    if (s.family != ModelFamily::Gpt2) refuse("family " + family_name(s.family));
    if (s.positions != PositionKind::Learned) refuse("rotary positions");
    if (!s.tied_output) refuse("an untied output head");
    if (s.norm != NormKind::LayerNorm) refuse("RMSNorm");
    if (s.activation != ActivationKind::GeluTanh) refuse("an activation other than tanh GELU");
    if (s.mlp != MlpKind::Plain) refuse("a gated MLP");
    if (!s.fused_qkv || !s.qkv_bias || !s.out_bias || !s.mlp_bias)
        refuse("separate or bias-free projections");
    if (s.num_kv_heads != s.num_heads) refuse("grouped K/V heads");
    if (s.qk_norm) refuse("q/k norms");
    if (!s.causal || s.sliding_window != 0) refuse("non-causal or windowed attention");
    if (s.q_width() != s.d_model)
        refuse("num_heads · head_dim = " + std::to_string(s.q_width()) +
               " ≠ d_model = " + std::to_string(s.d_model));
}

void check_parameters(const ModelParameters& p) {
    check_trainable(p.spec);
    const std::size_t want =
        p.tensors.empty() ? 0 : p.tensors.back().offset + p.tensors.back().size();
    if (p.tensors.empty() || p.values.size() != want)
        throw AttentionError("the parameters hold " + std::to_string(p.values.size()) +
                             " values but their tensors need " + std::to_string(want) +
                             ": make them with make_parameters");
}

void check_tokens(const std::vector<int>& ids, Index vocab, Index seq_len, const char* what) {
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= vocab)
            throw AttentionError(
                std::string(what) + " token " + std::to_string(ids[i]) + " (sequence " +
                std::to_string(static_cast<Index>(i) / seq_len + 1) + ", position " +
                std::to_string(static_cast<Index>(i) % seq_len + 1) + ") is outside [0, " +
                std::to_string(vocab) + "): use ids of the model's vocabulary");
}

void check_batch(const TransformerSpec& s, const TrainBatch& batch) {
    if (batch.batch < 1 || batch.seq_len < 1)
        throw AttentionError("the batch is " + std::to_string(batch.batch) + " × " +
                             std::to_string(batch.seq_len) +
                             " tokens: give at least one sequence of at least one token");
    if (batch.seq_len > s.max_positions)
        throw AttentionError("seq_len = " + std::to_string(batch.seq_len) +
                             " is more than the model's " + std::to_string(s.max_positions) +
                             " positions: give at most " + std::to_string(s.max_positions) +
                             " tokens per sequence");
    const auto n = static_cast<std::size_t>(batch.batch * batch.seq_len);
    if (batch.inputs.size() != n || batch.targets.size() != n)
        throw AttentionError("the batch has " + std::to_string(batch.inputs.size()) +
                             " inputs and " + std::to_string(batch.targets.size()) +
                             " targets but B · T = " + std::to_string(batch.batch) + " · " +
                             std::to_string(batch.seq_len) + " = " + std::to_string(n) +
                             ": give one input and one target per position");
    check_tokens(batch.inputs, s.vocab_size, batch.seq_len, "input");
    check_tokens(batch.targets, s.vocab_size, batch.seq_len, "target");
}

// Where each tensor lives in a flat vector laid out as the parameters (values or gradients),
// by role.
struct TensorPointers {
    std::array<float*, kTensorRoles> at{};
    float* operator[](TensorRole role) const { return at[static_cast<std::size_t>(role)]; }
};

struct Pointers {
    const ModelParameters* params = nullptr;
    float* base = nullptr;
    TensorPointers model;  // the model-level tensors

    // A block's tensors, found by a scan of the table (a few dozen entries) rather than kept in
    // a vector: a step allocates nothing.
    TensorPointers layer(std::size_t index) const {
        TensorPointers l;
        for (const ParameterTensor& t : params->tensors)
            if (t.entry.per_layer && t.layer == static_cast<Index>(index))
                l.at[static_cast<std::size_t>(t.entry.role)] = base + t.offset;
        return l;
    }
};

Pointers pointers(const ModelParameters& p, float* base) {
    Pointers out;
    out.params = &p;
    out.base = base;
    for (const ParameterTensor& t : p.tensors)
        if (!t.entry.per_layer)
            out.model.at[static_cast<std::size_t>(t.entry.role)] = base + t.offset;
    return out;
}

// The forward pass over the batch's inputs, every activation kept in acts (laid out by the
// caller); stops before the head when `head` is false.
void forward_pass(const ModelParameters& params, const Pointers& w, const int* inputs,
                  TrainActivations& acts, bool head) {
    const TransformerSpec& s = params.spec;
    const Index B = acts.batch, T = acts.seq_len, N = B * T, d = s.d_model, f = s.d_ff;
    tl::embedding_forward(acts.embedded, inputs, w.model[R::TokenEmbedding],
                          w.model[R::PositionEmbedding], B, T, d);
    const float* input = acts.embedded;
    for (std::size_t i = 0; i < acts.layers.size(); ++i) {
        LayerActivations& a = acts.layers[i];
        const TensorPointers l = w.layer(i);
        if (!s.attn_only)
            tl::layernorm_forward(a.ln_1_out, a.ln_1_mean, a.ln_1_rstd, input, l[R::AttnNormWeight],
                                  l[R::AttnNormBias], N, d, s.norm_eps);
        tl::conv1d_forward(a.qkv, a.ln_1, l[R::QkvWeight], l[R::QkvBias], nullptr, N, d, 3 * d);
        tl::attention_forward(a.context_vecs, a.attn_weights, acts.attn_scratch, a.qkv, B, T,
                              s.num_heads, s.head_dim);
        // residual_mid = input + c_proj(context_vecs)
        tl::conv1d_forward(a.residual_mid, a.context_vecs, l[R::OutWeight], l[R::OutBias], input, N,
                           d, d);
        if (!s.attn_only) {
            tl::layernorm_forward(a.ln_2, a.ln_2_mean, a.ln_2_rstd, a.residual_mid,
                                  l[R::MlpNormWeight], l[R::MlpNormBias], N, d, s.norm_eps);
            tl::conv1d_forward(a.fc, a.ln_2, l[R::UpWeight], l[R::UpBias], nullptr, N, d, f);
            tl::gelu_forward(a.fc_gelu, a.fc, N * f);
            tl::conv1d_forward(a.residual_out, a.fc_gelu, l[R::DownWeight], l[R::DownBias],
                               a.residual_mid, N, f, d);
        }
        input = a.residual_out;
    }
    if (!head) return;
    if (!s.attn_only)
        tl::layernorm_forward(acts.ln_f, acts.ln_f_mean, acts.ln_f_rstd, input,
                              w.model[R::FinalNormWeight], w.model[R::FinalNormBias], N, d,
                              s.norm_eps);
    tl::logits_forward(acts.logits, acts.weight_t, acts.final_in, w.model[R::TokenEmbedding], N, d,
                       s.vocab_size);
}

// d loss / d every parameter into g (the tensors it adds into zeroed by the caller), from
// acts.logits holding the probabilities.
void backward_pass(const ModelParameters& params, const Pointers& w, const Pointers& g,
                   const int* inputs, const int* targets, TrainActivations& acts) {
    const TransformerSpec& s = params.spec;
    const Index B = acts.batch, T = acts.seq_len, N = B * T, d = s.d_model, f = s.d_ff;
    const Index V = s.vocab_size;
    tl::crossentropy_backward(acts.logits, targets, N, V);
    const float* last = acts.layers.back().residual_out;
    float* dres = acts.d_residual;
    if (s.attn_only) {
        tl::logits_backward(dres, g.model[R::TokenEmbedding], acts.logits, acts.final_in,
                            w.model[R::TokenEmbedding], N, d, V, false);
    } else {
        tl::logits_backward(acts.d_ln, g.model[R::TokenEmbedding], acts.logits, acts.final_in,
                            w.model[R::TokenEmbedding], N, d, V, false);
        std::fill(dres, dres + N * d, 0.0f);
        tl::layernorm_backward(dres, g.model[R::FinalNormWeight], g.model[R::FinalNormBias],
                               acts.d_ln, last, w.model[R::FinalNormWeight], acts.ln_f_mean,
                               acts.ln_f_rstd, N, d);
    }
    for (std::size_t i = acts.layers.size(); i-- > 0;) {
        const LayerActivations& a = acts.layers[i];
        const TensorPointers l = w.layer(i);
        const TensorPointers dl = g.layer(i);
        const float* input = i == 0 ? acts.embedded : acts.layers[i - 1].residual_out;
        if (!s.attn_only) {
            // residual_out = residual_mid + c_proj(gelu(c_fc(ln_2(residual_mid))))
            tl::conv1d_backward(acts.d_fc, dl[R::DownWeight], dl[R::DownBias], acts.weight_t, dres,
                                a.fc_gelu, l[R::DownWeight], N, f, d, false);
            tl::gelu_backward(acts.d_fc, a.fc, acts.d_fc, N * f);
            tl::conv1d_backward(acts.d_ln, dl[R::UpWeight], dl[R::UpBias], acts.weight_t, acts.d_fc,
                                a.ln_2, l[R::UpWeight], N, d, f, false);
            tl::layernorm_backward(dres, dl[R::MlpNormWeight], dl[R::MlpNormBias], acts.d_ln,
                                   a.residual_mid, l[R::MlpNormWeight], a.ln_2_mean, a.ln_2_rstd, N,
                                   d);
        }
        // residual_mid = input + c_proj(attention(c_attn(ln_1(input))))
        tl::conv1d_backward(acts.d_context, dl[R::OutWeight], dl[R::OutBias], acts.weight_t, dres,
                            a.context_vecs, l[R::OutWeight], N, d, d, false);
        tl::attention_backward(acts.d_qkv, acts.attn_scratch, acts.d_context, a.context_vecs, a.qkv,
                               a.attn_weights, B, T, s.num_heads, s.head_dim);
        if (s.attn_only) {
            tl::conv1d_backward(dres, dl[R::QkvWeight], dl[R::QkvBias], acts.weight_t, acts.d_qkv,
                                a.ln_1, l[R::QkvWeight], N, d, 3 * d, true);
        } else {
            tl::conv1d_backward(acts.d_ln, dl[R::QkvWeight], dl[R::QkvBias], acts.weight_t,
                                acts.d_qkv, a.ln_1, l[R::QkvWeight], N, d, 3 * d, false);
            tl::layernorm_backward(dres, dl[R::AttnNormWeight], dl[R::AttnNormBias], acts.d_ln,
                                   input, l[R::AttnNormWeight], a.ln_1_mean, a.ln_1_rstd, N, d);
        }
    }
    tl::embedding_backward(g.model[R::TokenEmbedding], g.model[R::PositionEmbedding], dres, inputs,
                           B, T, d);
}

TrainActivations& activations(TrainScratch& scratch, const TransformerSpec& s, Index batch,
                              Index seq_len) {
    if (!scratch.acts) scratch.acts = std::make_unique<TrainActivations>();
    scratch.acts->layout(s, batch, seq_len);
    return *scratch.acts;
}

// The loss of a checked batch; leaves the probabilities in acts.logits.
float forward_loss(const ModelParameters& params, const Pointers& w, const TrainBatch& batch,
                   TrainActivations& acts) {
    forward_pass(params, w, batch.inputs.data(), acts, true);
    return tl::crossentropy_forward(acts.logits, batch.targets.data(), batch.batch * batch.seq_len,
                                    params.spec.vocab_size);
}

Pointers const_pointers(const ModelParameters& p) {
    return pointers(p, const_cast<float*>(p.values.data()));  // read only by the forward pass
}

}  // namespace

TrainScratch::TrainScratch() = default;
TrainScratch::~TrainScratch() = default;
TrainScratch::TrainScratch(TrainScratch&&) noexcept = default;
TrainScratch& TrainScratch::operator=(TrainScratch&&) noexcept = default;

const ParameterTensor* ModelParameters::find(TensorRole role, Index layer) const {
    for (const ParameterTensor& t : tensors)
        if (t.entry.role == role && (!t.entry.per_layer || t.layer == layer)) return &t;
    return nullptr;
}

ModelParameters make_parameters(const TransformerSpec& spec) {
    check_trainable(spec);
    ModelParameters p;
    p.spec = spec;
    std::size_t offset = 0;
    for_each_tensor(tensor_table(spec), spec.num_layers, [&](const TensorEntry& e, Index layer) {
        ParameterTensor t;
        t.entry = e;
        t.layer = layer;
        t.offset = offset;
        t.rows = e.shape.size() == 2 ? e.shape[0] : 1;
        t.cols = e.shape.back();
        offset += t.size();
        p.tensors.push_back(std::move(t));
    });
    p.values.assign(offset, 0.0f);
    return p;
}

void init_gpt2(ModelParameters& params, TorchGenerator& gen) {
    check_parameters(params);
    const double std_proj = 0.02 / std::sqrt(2.0 * static_cast<double>(params.spec.num_layers));
    for (const ParameterTensor& t : params.tensors) {
        float* at = params.data(t);
        switch (t.entry.role) {
            case R::TokenEmbedding:
            case R::PositionEmbedding:
            case R::QkvWeight:
            case R::UpWeight:
            case R::OutWeight:
            case R::DownWeight: {
                // The residual projections scaled by 1/√(2 · layers): each block adds two of
                // them onto the stream.
                const bool scaled = t.entry.role == R::OutWeight || t.entry.role == R::DownWeight;
                const Matrix m = gen.normal(t.rows, t.cols, 0.0, scaled ? std_proj : 0.02);
                std::copy(m.data(), m.data() + m.size(), at);
                break;
            }
            case R::AttnNormWeight:
            case R::MlpNormWeight:
            case R::FinalNormWeight:
                std::fill(at, at + t.size(), 1.0f);
                break;
            default:  // biases
                std::fill(at, at + t.size(), 0.0f);
                break;
        }
    }
}

ModelParameters parameters_from_weights(const TransformerWeights& weights) {
    check_weights(weights);
    ModelParameters p = make_parameters(weights.spec);
    for (const ParameterTensor& t : p.tensors) {
        const WeightView& v = weights.slot(t.entry, t.layer);
        if (v.quantized() || v.data == nullptr)
            throw AttentionError(t.name() + " is stored quantized (" + weights.dtype +
                                 "): training needs float weights; load an F32, F16 or BF16 "
                                 "model folder");
        std::copy(v.data, v.data + t.size(), p.data(t));
    }
    return p;
}

namespace {

TransformerWeights views_of(const ModelParameters& params, const float* base) {
    TransformerWeights w;
    w.spec = params.spec;
    w.layers.resize(static_cast<std::size_t>(params.spec.num_layers));
    for (const ParameterTensor& t : params.tensors)
        w.slot(t.entry, t.layer) = WeightView{base + t.offset, t.rows, t.cols, t.entry.layout};
    w.dtype = "F32";
    return w;
}

}  // namespace

TransformerWeights weights_view(const ModelParameters& params) {
    check_parameters(params);
    return views_of(params, params.values.data());
}

TransformerWeights weights_copy(const ModelParameters& params) {
    check_parameters(params);
    auto values = std::make_shared<const std::vector<float>>(params.values);
    TransformerWeights w = views_of(params, values->data());
    w.storage = values;
    return w;
}

float train_loss(const ModelParameters& params, const TrainBatch& batch, TrainScratch& scratch) {
    check_parameters(params);
    check_batch(params.spec, batch);
    TrainActivations& acts = activations(scratch, params.spec, batch.batch, batch.seq_len);
    return forward_loss(params, const_pointers(params), batch, acts);
}

float forward_backward(const ModelParameters& params, const TrainBatch& batch,
                       std::vector<float>& grads, TrainScratch& scratch) {
    check_parameters(params);
    check_batch(params.spec, batch);
    TrainActivations& acts = activations(scratch, params.spec, batch.batch, batch.seq_len);
    const Pointers w = const_pointers(params);
    const float loss = forward_loss(params, w, batch, acts);
    grads.resize(params.values.size());
    // Zeroed: the gradients the backward pass adds into rather than writes (train_layers.h).
    for (const ParameterTensor& t : params.tensors) {
        const TensorRole role = t.entry.role;
        const bool written = role == R::TokenEmbedding || role == R::QkvWeight ||
                             role == R::QkvBias || role == R::OutWeight || role == R::OutBias ||
                             role == R::UpWeight || role == R::UpBias || role == R::DownWeight ||
                             role == R::DownBias;
        if (!written)
            std::fill_n(grads.begin() + static_cast<std::ptrdiff_t>(t.offset), t.size(), 0.0f);
    }
    backward_pass(params, w, pointers(params, grads.data()), batch.inputs.data(),
                  batch.targets.data(), acts);
    return loss;
}

std::vector<std::vector<Matrix>> train_attentions(const ModelParameters& params,
                                                  const std::vector<int>& ids,
                                                  TrainScratch& scratch) {
    check_parameters(params);
    check_token_ids(params.spec, ids, 0);
    const Index T = static_cast<Index>(ids.size());
    TrainActivations& acts = activations(scratch, params.spec, 1, T);
    forward_pass(params, const_pointers(params), ids.data(), acts, false);
    std::vector<std::vector<Matrix>> out;
    for (const LayerActivations& a : acts.layers) {
        std::vector<Matrix> heads;
        for (Index h = 0; h < params.spec.num_heads; ++h)
            heads.push_back(Eigen::Map<const Matrix>(a.attn_weights + h * T * T, T, T));
        out.push_back(std::move(heads));
    }
    return out;
}

namespace {

// The update of n values, one pass over the four arrays.
ATTN_TRAIN_CLONES void adamw_update(float* p, float* m, float* v, const float* g, std::size_t n,
                                    float decay, float b1, float one_minus_b1, float b2,
                                    float one_minus_b2, float step_size, float correction2_sqrt,
                                    float eps) {
#pragma omp simd
    for (std::size_t i = 0; i < n; ++i) {
        p[i] *= decay;
        m[i] = m[i] * b1 + one_minus_b1 * g[i];
        v[i] = v[i] * b2 + one_minus_b2 * g[i] * g[i];
        const float denom = std::sqrt(v[i]) / correction2_sqrt + eps;
        p[i] += -step_size * (m[i] / denom);
    }
}

}  // namespace

void adamw_step(std::vector<float>& values, const std::vector<float>& grads, AdamWState& state,
                const AdamWOptions& o) {
    if (grads.size() != values.size())
        throw AttentionError("adamw_step: " + std::to_string(grads.size()) + " gradients for " +
                             std::to_string(values.size()) +
                             " parameters: give the gradients forward_backward returned");
    if (state.exp_avg.size() != values.size()) {
        state.exp_avg.assign(values.size(), 0.0f);
        state.exp_avg_sq.assign(values.size(), 0.0f);
        state.step = 0;
    }
    ++state.step;
    // Python's floats are doubles: the scalars are computed in double and rounded to float
    // where the tensor operation takes them, as torch 1.13's _single_tensor_adamw does.
    const double lr = o.lr, beta1 = o.beta1, beta2 = o.beta2;
    const auto step = static_cast<double>(state.step);
    adamw_update(values.data(), state.exp_avg.data(), state.exp_avg_sq.data(), grads.data(),
                 values.size(), static_cast<float>(1.0 - lr * static_cast<double>(o.weight_decay)),
                 o.beta1, static_cast<float>(1.0 - beta1), o.beta2, static_cast<float>(1.0 - beta2),
                 static_cast<float>(lr / (1.0 - std::pow(beta1, step))),
                 static_cast<float>(std::sqrt(1.0 - std::pow(beta2, step))), o.eps);
}

float clip_grad_norm(std::vector<float>& grads, float max_norm) {
    if (!(max_norm > 0.0f))
        throw AttentionError(
            "the gradient clipping norm must be above 0: give a positive "
            "max_norm, or do not clip");
    double sum = 0.0;
    for (const float g : grads) sum += static_cast<double>(g) * static_cast<double>(g);
    const auto norm = static_cast<float>(std::sqrt(sum));
    const float coef = max_norm / (norm + 1e-6f);
    if (coef < 1.0f)
        for (float& g : grads) g *= coef;
    return norm;
}

}  // namespace attn
