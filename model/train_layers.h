// The layers of training (model/train.h), as llm.c's train_gpt2.c splits them: one _forward and
// one _backward function per operation, side by side, same argument order, the forward keeping
// exactly what the backward reads (LayerNorm's mean and rstd, the attention weights, the input
// of GELU). Plain float pointers into TrainActivations' one block of memory, every tensor
// row-major; the large products run on attn::gemm (model/matmul.h).
//
// Shapes: B = batch, T = seq_len, N = B·T rows (token b·T + t), d = d_model, H = num_heads,
// hd = head_dim (H·hd = d), F = d_ff, V = vocab_size, C → OC a Conv1D's in and out widths.
// Backward functions write the gradients of the weights they alone use (conv1d_backward,
// logits_backward: each projection is used once, and the tied wte's first use backward is the
// head) and add (+=) into the others (LayerNorm's, the embeddings'), which the caller zeroes.
#pragma once

#include <vector>

#include "tensor.h"
#include "transformer_spec.h"

namespace attn {

// What one block keeps. For attn_only specs ln_1 is the block's input itself, and residual_out
// is residual_mid (no MLP); the norm and MLP buffers are not laid out.
struct LayerActivations {
    const float* ln_1 = nullptr;  // (N, d) the attention's input
    float *ln_1_out = nullptr, *ln_1_mean = nullptr, *ln_1_rstd = nullptr;  // (N, d), (N), (N)
    float* qkv = nullptr;                                                   // (N, 3d)
    float* attn_weights = nullptr;  // (B, H, T, T), zeros above the diagonal
    float* context_vecs = nullptr;  // (N, d) heads merged
    float* residual_mid = nullptr;  // (N, d) input + c_proj(context_vecs)
    float *ln_2 = nullptr, *ln_2_mean = nullptr, *ln_2_rstd = nullptr;  // (N, d), (N), (N)
    float* fc = nullptr;            // (N, F) before GELU, then GELU's slope there (gelu_forward)
    float* fc_gelu = nullptr;       // (N, F)
    float* residual_out = nullptr;  // (N, d) residual_mid + mlp.c_proj(fc_gelu)
};

// The forward pass's activations and the backward pass's scratch for one batch shape, in one
// block that only grows: a later batch of the same or a smaller shape allocates nothing.
struct TrainActivations {
    Eigen::Index batch = 0, seq_len = 0;
    std::vector<float> memory;
    float* embedded = nullptr;  // (N, d) token + position embeddings
    std::vector<LayerActivations> layers;
    const float* final_in = nullptr;  // (N, d) ln_f's output, or the last residual (attn_only)
    float *ln_f = nullptr, *ln_f_mean = nullptr, *ln_f_rstd = nullptr;
    float* logits = nullptr;  // (N, V) logits, then probabilities, then d loss / d logits
    // Backward scratch.
    float* d_residual = nullptr;    // (N, d) d loss / d the residual stream
    float* d_ln = nullptr;          // (N, d) d loss / d a LayerNorm's output
    float* d_qkv = nullptr;         // (N, 3d)
    float* d_context = nullptr;     // (N, d)
    float* d_fc = nullptr;          // (N, F)
    float* attn_scratch = nullptr;  // attention_scratch_size floats
    float* weight_t = nullptr;      // a weight matrix transposed

    // Points every buffer into `memory` for this spec and batch shape, growing it when needed.
    void layout(const TransformerSpec& spec, Eigen::Index batch_size, Eigen::Index tokens);
};

namespace train_layers {

using Index = Eigen::Index;

// The element-wise loops compiled for AVX-512, AVX2 and plain x86-64 side by side, the CPU's best
// chosen when the program starts (GCC's target_clones): the build has no -march, and these loops
// are a third of a small model's step. Their loops are `omp simd`, so each clone is vectorised.
#define ATTN_TRAIN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

// out (N, d) = wte[inputs[n]] + wpe[n mod T].
void embedding_forward(float* out, const int* inputs, const float* wte, const float* wpe, Index B,
                       Index T, Index d);
// dwte[inputs[n]] += dout[n]; dwpe[n mod T] += dout[n].
void embedding_backward(float* dwte, float* dwpe, const float* dout, const int* inputs, Index B,
                        Index T, Index d);

// out (N, d) = (inp − mean) · rstd · weight + bias, rstd = 1 / √(biased variance + eps).
void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, Index N, Index d, float eps);
// dinp (N, d) += ...; dweight, dbias (d) += ...
void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout,
                        const float* inp, const float* weight, const float* mean, const float* rstd,
                        Index N, Index d);

// Conv1D: out (N, OC) = inp (N, C) · weight (C, OC) + bias (OC), plus residual (N, OC) unless
// null (a residual connection: the projection added onto the stream).
void conv1d_forward(float* out, const float* inp, const float* weight, const float* bias,
                    const float* residual, Index N, Index C, Index OC);
// dinp (N, C) = or += dout · weightᵀ; dweight (C, OC) = inpᵀ · dout; dbias (OC) = Σ rows.
// weight_t: C·OC floats of scratch.
void conv1d_backward(float* dinp, float* dweight, float* dbias, float* weight_t, const float* dout,
                     const float* inp, const float* weight, Index N, Index C, Index OC,
                     bool accumulate_dinp);

// Causal attention per (batch, head) on qkv (N, 3d) = [queries | keys | values], head h in
// columns h·hd of each: attn_weights (B, H, T, T) = softmax(q · kᵀ / √hd) over keys 0..t,
// context_vecs (N, d) = attn_weights · values, heads merged in place. Direct loops rather than
// gemm calls: a head is a few (T, hd) blocks, smaller than a call's fixed cost, and only the
// keys up to the diagonal are computed. scratch: attention_scratch_size(T, hd) floats.
void attention_forward(float* context_vecs, float* attn_weights, float* scratch, const float* qkv,
                       Index B, Index T, Index H, Index hd);
// dqkv (N, 3d) = d loss / d qkv (overwritten); context_vecs as the forward pass left them.
void attention_backward(float* dqkv, float* scratch, const float* dcontext,
                        const float* context_vecs, const float* qkv, const float* attn_weights,
                        Index B, Index T, Index H, Index hd);
// The scratch both need: one head's keys or values transposed and padded, a row of scores, and
// the (T, T) d scores of a head.
Index attention_scratch_size(Index T, Index hd);

// GPT-2's gelu_new: out = 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))) for the n values x of
// inp_slope, which become gelu'(x): the backward pass reads the slope, computed once with the
// same tanh, rather than the input.
void gelu_forward(float* out, float* inp_slope, Index n);
// The same GELU in place, without the slope: the forward pass of inference (layers::activate).
void gelu_tanh(float* x, Index n);
// dinp = dout · slope (gelu_forward's); dinp may be dout.
void gelu_backward(float* dinp, const float* slope, const float* dout, Index n);

// The tied head: logits (N, V) = x (N, d) · wteᵀ. wte_t: V·d floats of scratch.
void logits_forward(float* logits, float* wte_t, const float* x, const float* wte, Index N, Index d,
                    Index V);
// dx (N, d) = or += dlogits · wte; dwte (V, d) = dlogitsᵀ · x.
void logits_backward(float* dx, float* dwte, const float* dlogits, const float* x, const float* wte,
                     Index N, Index d, Index V, bool accumulate_dx);

// Mean over the N rows of −log softmax(logits)[target], in place: logits (N, V) become the
// probabilities. Subtracts each row's max first: exp() of large logits overflows float.
float crossentropy_forward(float* logits, const int* targets, Index N, Index V);
// In place: probabilities (N, V) become d loss / d logits = (probs − onehot(target)) / N.
void crossentropy_backward(float* probs, const int* targets, Index N, Index V);

}  // namespace train_layers
}  // namespace attn
