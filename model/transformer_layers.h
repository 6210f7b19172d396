// The parts of a transformer block, shared by the full pass (model/transformer.cpp) and the
// token-by-token decoder (model/generator.cpp) so both compute the same numbers the same way.
// Shapes as in model/transformer_spec.h; x is (T, d) with one token per row.
#pragma once

#include <vector>

#include "matmul.h"
#include "tensor.h"
#include "transformer_spec.h"

namespace attn::layers {

// LayerNorm (torch.nn.LayerNorm: biased variance, eps inside the square root) or RMSNorm
// (x / sqrt(mean(x²) + eps) · weight, LLaMA's), as the spec says. bias may be empty for RMSNorm.
Matrix norm(const Matrix& x, const WeightView& weight, const WeightView& bias,
            const TransformerSpec& spec);

// x · W + b for a Conv1D (in, out) weight, x · Wᵀ + b for an nn.Linear (out, in) one; b may be
// empty.
Matrix project(const ConstMatrixRef& x, const WeightView& weight, const WeightView& bias);

// The attention half's input: norm(h; attn norm), or h itself for an attn_only spec.
Matrix attention_input(const LayerWeights& w, const TransformerSpec& spec, const Matrix& h);

// In place: GELU (tanh approximation or erf), ReLU or SiLU.
void activate(Matrix& x, ActivationKind kind);

// The MLP itself on its input m: down(act(up(m))), gated down(act(gate(m)) * up(m)).
Matrix mlp(const LayerWeights& w, const TransformerSpec& spec, const Matrix& m);

// The MLP half of a pre-norm block, in place on h: h += mlp(norm(h)); nothing for an attn_only
// spec.
void mlp_block(const LayerWeights& w, const TransformerSpec& spec, Matrix& h);

// The MLP half of a post-norm (encoder) block, in place on h: h = norm(h + mlp(h)).
void post_norm_mlp_block(const LayerWeights& w, const TransformerSpec& spec, Matrix& h);

struct Projections {
    Matrix queries;  // (T, H·hd), after rotary positions
    Matrix keys;     // (T, G·hd), after rotary positions
    Matrix values;   // (T, G·hd)
};

// a (T, d) → queries, keys, values; rotary positions at position_offset + token index.
Projections project_qkv(const LayerWeights& w, const TransformerSpec& spec, const Matrix& a,
                        Eigen::Index position_offset);

// The embedding of the tokens at positions position_offset ..: token rows, plus learned
// positions when the family has them.
Matrix embed(const TransformerWeights& w, const std::vector<int>& ids,
             Eigen::Index position_offset);

// Final norm (none for attn_only) and the output head: (T, d) → (T, V).
Matrix logits(const TransformerWeights& w, const Matrix& h);

// --- encoders ---------------------------------------------------------------------------------
// Each token's row of the position table: t for BERT and DistilBERT; RoBERTa's
// create_position_ids_from_input_ids: padding_idx + the count of non-padding ids up to and
// including t, padding_idx itself for a padding id.
std::vector<Eigen::Index> encoder_positions(const TransformerSpec& spec,
                                            const std::vector<int>& ids);

// norm(token rows + position rows + token-type rows; embedding norm): (T, d). token_type_ids
// empty means all 0 (none for DistilBERT); the caller has checked them.
Matrix embed_encoder(const TransformerWeights& w, const std::vector<int>& ids,
                     const std::vector<int>& token_type_ids);

// The masked-LM head: norm(act(h · Wᵀ + b); head norm) · token embeddingᵀ + output bias,
// (T, d) → (T, V). RoBERTa's head applies exact GELU whatever hidden_act says.
Matrix mlm_logits(const TransformerWeights& w, const Matrix& h);

}  // namespace attn::layers
