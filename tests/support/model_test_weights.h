// Tiny models for tests and benchmarks: specs, random weights drawn through the family's tensor
// table, and weights rounded to F16/BF16. Test code only; the programs load real weights
// (app/io/model_folder.h).
#pragma once

#include <cstdint>
#include <string_view>

#include "model/transformer_spec.h"

namespace attn {

// GPT-2 as config.json gives it: n_layer, n_head, n_embd, n_positions, vocab_size; n_inner 0
// means 4 · n_embd.
TransformerSpec gpt2_spec(Eigen::Index n_layer, Eigen::Index n_head, Eigen::Index n_embd,
                          Eigen::Index n_positions, Eigen::Index vocab_size,
                          Eigen::Index n_inner = 0, bool tied = true);
// The tiny GPT-2 of the tests: n_layer 2, n_head 2, n_embd 8, n_positions 16, vocab 32.
TransformerSpec tiny_gpt2_spec(bool tied = true);
// GPT-2 small's shape: 12 layers, 12 heads, 768, n_positions 1024, vocab 50257.
TransformerSpec gpt2_small_spec();
// A tiny LLaMA-layout model: 2 layers, d_model 16, 4 query heads sharing 2 K/V heads of
// head_dim 4, SwiGLU of width 24, RMSNorm eps 1e-6, rotary positions (base 10000), vocab 40,
// 32 positions, untied output head.
TransformerSpec tiny_llama_spec();

// Random weights owned in memory, drawn with TorchGenerator(seed) in the tensor table's order
// (for_each_tensor), each tensor torch.empty(shape).normal_(mean, std) with, by role: token
// embedding std 0.5, position and token-type embeddings std 0.3, norm weights mean 1 std 0.1,
// every bias std 0.1, fused qkv / query / key / value weights std 0.4, out projection and the
// masked-LM head's dense layer std 0.3, up and gate std 0.3,
// down std 0.2, untied output head std 0.5. tests/reference/gpt2_model_reference.py draws the
// same values for GPT-2. Throws AttentionError for a spec check_spec refuses.
TransformerWeights make_random_weights(const TransformerSpec& spec, std::uint64_t seed = 0);

// A copy rounded to float16 ("F16") or bfloat16 ("BF16") and back to float32, round to nearest
// even, as torch's w.half().float() / w.bfloat16().float().
TransformerWeights round_weights(const TransformerWeights& weights, std::string_view dtype);

}  // namespace attn
