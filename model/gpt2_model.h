// A whole GPT-2-family model (gpt2, distilgpt2, gpt2-medium/large and fine-tunes) as Hugging
// Face's GPT2LMHeadModel computes it: embeddings, n_layer blocks, final LayerNorm, logits.
//
// The weights are *views*: the loader (app/io/gpt2_folder.h) points them into the memory-mapped
// safetensors file when the file holds float32, and into converted float32 buffers for F16/BF16.
// `storage` keeps whatever they point into alive, so model/ stays free of Qt and of files.
//
// Shapes as Hugging Face stores them (all row-major float32):
//   wte (vocab_size, n_embd)   wpe (n_positions, n_embd)
//   per block: ln_1.{weight,bias} (n_embd); attn.c_attn (n_embd, 3·n_embd) + (3·n_embd);
//   attn.c_proj (n_embd, n_embd) + (n_embd); ln_2.{weight,bias} (n_embd);
//   mlp.c_fc (n_embd, 4·n_embd) + (4·n_embd); mlp.c_proj (4·n_embd, n_embd) + (n_embd)
//   ln_f.{weight,bias} (n_embd); lm_head (vocab_size, n_embd) only when not tied to wte.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tensor.h"

namespace attn {

// config.json of a GPT-2 model, the fields the forward pass needs.
struct Gpt2Config {
    Eigen::Index n_layer = 0;
    Eigen::Index n_head = 0;
    Eigen::Index n_embd = 0;
    Eigen::Index n_positions = 0;
    Eigen::Index vocab_size = 0;
    Eigen::Index n_inner = 0;  // MLP width; 0 in config.json means 4 · n_embd (resolved by loader)
    float layer_norm_epsilon = 1e-5f;
    bool tie_word_embeddings = true;  // logits against wte; false: against lm_head
    std::string activation_function = "gelu_new";
};

// A read-only float32 tensor that lives elsewhere (the mapped file or a converted buffer).
// 1-d tensors have rows == 1.
struct WeightView {
    const float* data = nullptr;
    Eigen::Index rows = 0;
    Eigen::Index cols = 0;

    Eigen::Map<const Matrix> matrix() const { return {data, rows, cols}; }
    Eigen::Map<const RowVector> row() const { return {data, rows * cols}; }
    bool empty() const { return data == nullptr; }
};

struct Gpt2BlockWeights {
    WeightView ln_1_weight, ln_1_bias;
    WeightView c_attn_weight, c_attn_bias;  // Conv1D: y = x · W + b
    WeightView attn_c_proj_weight, attn_c_proj_bias;
    WeightView ln_2_weight, ln_2_bias;
    WeightView c_fc_weight, c_fc_bias;
    WeightView mlp_c_proj_weight, mlp_c_proj_bias;
};

struct Gpt2Weights {
    Gpt2Config config;
    WeightView wte, wpe;
    std::vector<Gpt2BlockWeights> blocks;  // n_layer
    WeightView ln_f_weight, ln_f_bias;
    WeightView lm_head;  // empty unless config.tie_word_embeddings is false
    // The safetensors dtype name of the weights: "F32", "F16", "BF16", or "mixed".
    std::string dtype = "F32";
    // Keeps the memory the views point into alive (a file mapping, converted buffers).
    std::shared_ptr<const void> storage;
};

}  // namespace attn
