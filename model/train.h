// Training a GPT-2-layout transformer in the engine: the parameters as owned float storage laid
// out by the family's tensor table (model/transformer_spec.h), a forward pass that keeps every
// activation, the backward pass of every operation, the mean cross-entropy loss, AdamW and
// clipping by global norm, as PyTorch computes them.
//
// Per layer, as llm.c splits it, one forward and one backward function (model/train_layers.h):
//   x (B·T, d) → ln_1 → c_attn (d → 3d) → causal softmax(q·kᵀ/√hd) · v per (batch, head)
//     → merge heads → c_proj (d → d) → x += ...
//   → ln_2 → c_fc (d → F) → GELU (tanh) → mlp.c_proj (F → d) → x += ...
// then ln_f → logits = x · wteᵀ (tied) → cross-entropy against the targets.
// attn_only specs (TransformerSpec::attn_only) have no LayerNorm and no MLP: x += attn(x) only.
//
// Shapes: B = batch, T = seq_len, d = d_model, H = num_heads, hd = head_dim, F = d_ff,
// V = vocab_size.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rng.h"
#include "tensor.h"
#include "transformer_spec.h"

namespace attn {

// One tensor of the parameters: its table entry, its layer, where its values start in
// ModelParameters::values and its stored shape (rows × cols; 1-d tensors have rows == 1).
struct ParameterTensor {
    TensorEntry entry;
    Eigen::Index layer = 0;
    std::size_t offset = 0;
    Eigen::Index rows = 0, cols = 0;
    std::string name() const { return tensor_name(entry, layer); }
    std::size_t size() const { return static_cast<std::size_t>(rows * cols); }
};

// Every trainable float of a model, in the tensor table's order (for_each_tensor), each tensor
// stored as the file stores it (GPT-2's Conv1D weights (in, out)). Gradients and the optimizer's
// moments use the same layout, so AdamW and clipping run over flat vectors.
struct ModelParameters {
    TransformerSpec spec;  // family Gpt2 (learned positions, LayerNorm, tanh GELU, tied output)
    std::vector<ParameterTensor> tensors;
    std::vector<float> values;

    const ParameterTensor* find(TensorRole role, Eigen::Index layer = 0) const;
    // The values of one tensor.
    float* data(const ParameterTensor& t) { return values.data() + t.offset; }
    const float* data(const ParameterTensor& t) const { return values.data() + t.offset; }
};

// Zeroed parameters laid out for `spec` (check_spec'd; family Gpt2 only: throws AttentionError
// naming what is not trained, e.g. rotary positions or an untied head).
ModelParameters make_parameters(const TransformerSpec& spec);
// GPT-2's initialisation (GPT2PreTrainedModel._init_weights): every weight matrix and both
// embeddings normal(0, 0.02), the out projection and the MLP's down projection normal(0, 0.02 /
// √(2 · num_layers)), biases 0, LayerNorm weights 1; drawn with `gen` in the table's order.
void init_gpt2(ModelParameters& params, TorchGenerator& gen);
// A copy of loaded weights (float32 views; a GPT-2 folder) as parameters, to continue training.
// Throws AttentionError for quantized weights or a spec make_parameters refuses.
ModelParameters parameters_from_weights(const TransformerWeights& weights);
// Views of the parameters for model_forward, the generator and the writers. The views point into
// `params`, which must outlive them and not be resized.
TransformerWeights weights_view(const ModelParameters& params);
// A copy that owns its values (TransformerWeights::storage), safe to hand to another thread
// while training goes on.
TransformerWeights weights_copy(const ModelParameters& params);

// B sequences of T tokens each, row-major: inputs[b·T + t] and the target that follows it.
struct TrainBatch {
    Eigen::Index batch = 0, seq_len = 0;
    std::vector<int> inputs, targets;
};

// Everything the forward pass keeps for the backward pass, sized on first use and reused: the
// engine allocates nothing per step once a batch shape has been seen.
struct TrainActivations;  // model/train_layers.h
struct TrainScratch {
    TrainScratch();
    ~TrainScratch();
    TrainScratch(TrainScratch&&) noexcept;
    TrainScratch& operator=(TrainScratch&&) noexcept;
    std::unique_ptr<TrainActivations> acts;
};

// The mean cross-entropy of the batch's B·T targets (torch.nn.functional.cross_entropy of the
// logits), forward only. Throws AttentionError for a token outside [0, V), T > max_positions or
// inputs/targets whose sizes are not B·T.
float train_loss(const ModelParameters& params, const TrainBatch& batch, TrainScratch& scratch);
// Forward and backward: returns the loss and overwrites `grads` (resized to values' size) with
// d loss / d values, in the same layout. Same checks as train_loss.
float forward_backward(const ModelParameters& params, const TrainBatch& batch,
                       std::vector<float>& grads, TrainScratch& scratch);
// The attention of every (layer, head) on one sequence: [layer][head] (T, T), as the forward
// pass computes it (what the views draw and the head scores read).
std::vector<std::vector<Matrix>> train_attentions(const ModelParameters& params,
                                                  const std::vector<int>& ids,
                                                  TrainScratch& scratch);

// torch.optim.AdamW(model.parameters(), lr, betas, eps, weight_decay): decay on every parameter.
struct AdamWOptions {
    float lr = 1e-3f;
    float beta1 = 0.9f, beta2 = 0.999f;
    float eps = 1e-8f;
    float weight_decay = 0.01f;
};

struct AdamWState {
    std::vector<float> exp_avg, exp_avg_sq;  // sized on the first step
    std::int64_t step = 0;
};

// One AdamW step as torch 1.13's single-tensor implementation: p *= 1 − lr·wd; m = β1·m +
// (1 − β1)·g; v = β2·v + (1 − β2)·g²; p −= lr / (1 − β1ᵗ) · m / (√v / √(1 − β2ᵗ) + eps).
void adamw_step(std::vector<float>& values, const std::vector<float>& grads, AdamWState& state,
                const AdamWOptions& options);

// torch.nn.utils.clip_grad_norm_(parameters, max_norm): the global L2 norm of every gradient;
// when above max_norm, every gradient is scaled by max_norm / (norm + 1e-6). Returns the norm
// before clipping.
float clip_grad_norm(std::vector<float>& grads, float max_norm);

}  // namespace attn
