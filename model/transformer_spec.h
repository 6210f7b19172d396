// A transformer described by data: a model family is a TransformerSpec (how each part of a block
// computes) and a tensor table (which tensors the file holds, their roles and shapes). The
// loader, the weight checks, the test weights and the rounding of test weights all read the same
// table, so a new family adds a spec and a table, not a new code path.
//
// Shapes: T = tokens, d = d_model, H = num_heads, G = num_kv_heads, hd = head_dim, V = vocab_size,
// P = max_positions, F = d_ff (the MLP's width).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quant.h"
#include "tensor.h"

namespace attn {

// Gpt2: GPT2LMHeadModel's tensors. Llama: LlamaForCausalLM's (separate q/k/v/o projections,
// RMSNorm, SwiGLU, rotary positions), the layout the LLaMA-family checkpoints share; Mistral
// (a sliding window), Qwen2 (q/k/v biases) and Qwen3 (RMSNorm of each head's q and k) are that
// layout with the spec's flags. Bert (BertModel, BertForMaskedLM), DistilBert
// (DistilBertForMaskedLM) and Roberta (RobertaForMaskedLM) are encoders: bidirectional, post-norm,
// a LayerNorm after the embeddings, token-type embeddings (not DistilBERT), the masked-LM head
// where the file has it.
enum class ModelFamily { Gpt2, Llama, Mistral, Qwen2, Qwen3, Bert, DistilBert, Roberta };

enum class NormKind { LayerNorm, RMSNorm };
enum class PositionKind { Learned, Rotary };
// GeluTanh: GPT-2's gelu_new (and gelu_pytorch_tanh); GeluErf: exact erf GELU (BERT's "gelu");
// Silu: the gate of SwiGLU.
enum class ActivationKind { GeluTanh, GeluErf, Relu, Silu };
// Plain: down(act(up(x))); Gated (SwiGLU): down(act(gate(x)) * up(x)).
enum class MlpKind { Plain, Gated };
enum class RopeScaling { None, Linear, Llama3 };

// transformers' rope_scaling: Linear divides every frequency by `factor`; Llama3 divides the low
// frequencies (wavelength above original_max_positions / low_freq_factor) by `factor`, keeps the
// high ones (below original_max_positions / high_freq_factor) and blends in between.
struct RopeSpec {
    float base = 10000.0f;
    RopeScaling scaling = RopeScaling::None;
    float factor = 1.0f;  // Linear and Llama3
    float low_freq_factor = 1.0f, high_freq_factor = 4.0f;
    Eigen::Index original_max_positions = 8192;  // Llama3
    // llama.cpp's rope_freqs.weight (GGUF): frequency i divided by freq_factors[i] (head_dim / 2
    // values), the form Llama 3.x GGUF files carry their scaling in; used instead of `scaling`.
    std::vector<float> freq_factors;
};

struct TransformerSpec {
    ModelFamily family = ModelFamily::Gpt2;
    Eigen::Index num_layers = 0;
    Eigen::Index d_model = 0;
    Eigen::Index num_heads = 0;
    Eigen::Index num_kv_heads = 0;  // G: K/V heads shared by H / G query heads each
    Eigen::Index head_dim = 0;
    Eigen::Index d_ff = 0;
    Eigen::Index vocab_size = 0;
    Eigen::Index max_positions = 0;  // learned positions: rows of the table; rotary: the limit
    NormKind norm = NormKind::LayerNorm;
    float norm_eps = 1e-5f;
    bool pre_norm = true;  // GPT-2, LLaMA: x + f(norm(x)); false (BERT): norm(x + f(x))
    PositionKind positions = PositionKind::Learned;
    RopeSpec rope;
    bool causal = true;               // decoder: query i sees keys 0..i
    Eigen::Index sliding_window = 0;  // > 0: query i sees keys j with i - window < j <= i
    bool fused_qkv = true;            // one (d, (H + 2G)·hd) projection, GPT-2's c_attn
    bool qk_norm = false;             // Qwen3: RMSNorm over each head's q and k before rotation
    bool qkv_bias = true;
    bool out_bias = true;
    MlpKind mlp = MlpKind::Plain;
    ActivationKind activation = ActivationKind::GeluTanh;
    bool mlp_bias = true;
    bool tied_output = true;  // logits against the token embedding; false: a separate head
    // No norms and no MLP: h += attn(h) per layer, logits = h · embeddingᵀ (the attention-only
    // models of the circuits lesson, TransformerLens's attn_only). GPT-2 layout only.
    bool attn_only = false;
    // Encoders (BERT's family):
    Eigen::Index type_vocab_size = 0;  // rows of the token-type table; 0: none (DistilBERT)
    bool embed_norm = false;           // LayerNorm of word + position (+ token-type) embeddings
    bool mlm_head = false;  // the file has the masked-LM head: logits over the vocabulary
    // RoBERTa: token i (not padding) takes position padding_idx + 1 + i, padding takes
    // padding_idx; -1: positions 0, 1, ... (BERT, GPT-2).
    int padding_idx = -1;

    Eigen::Index q_width() const { return num_heads * head_dim; }
    Eigen::Index kv_width() const { return num_kv_heads * head_dim; }
};

// Throws AttentionError naming the field when a size is below 1, H is not a multiple of G, or a
// combination is not computed (e.g. rotary positions with an odd head_dim).
void check_spec(const TransformerSpec& spec);

// What a tensor is for, whatever the family calls it.
enum class TensorRole : std::uint8_t {
    TokenEmbedding,     // (V, d)
    PositionEmbedding,  // (P, d), learned positions only
    AttnNormWeight,
    AttnNormBias,  // (d)
    QkvWeight,
    QkvBias,  // fused: (d, (H + 2G)·hd) as Conv1D, bias ((H + 2G)·hd)
    QueryWeight,
    QueryBias,
    KeyWeight,
    KeyBias,
    ValueWeight,
    ValueBias,
    OutWeight,
    OutBias,  // (H·hd → d)
    MlpNormWeight,
    MlpNormBias,  // (d)
    UpWeight,
    UpBias,      // d → F (GPT-2's c_fc)
    GateWeight,  // d → F, gated MLPs
    DownWeight,
    DownBias,  // F → d (GPT-2's mlp.c_proj)
    FinalNormWeight,
    FinalNormBias,       // (d)
    OutputWeight,        // (V, d), untied output head only
    QueryNormWeight,     // (hd), qk_norm only
    KeyNormWeight,       // (hd), qk_norm only
    TokenTypeEmbedding,  // (type_vocab_size, d), encoders
    EmbedNormWeight,
    EmbedNormBias,  // (d), embed_norm
    MlmTransformWeight,
    MlmTransformBias,  // (d, d) nn.Linear and (d): the masked-LM head's dense layer
    MlmNormWeight,
    MlmNormBias,  // (d): the head's LayerNorm
    OutputBias,   // (V): the head's decoder bias (its weight is the token embedding)
    Count
};
constexpr std::size_t kTensorRoles = static_cast<std::size_t>(TensorRole::Count);

// How a matrix is stored: InOut is GPT-2's Conv1D (in, out), y = x · W; OutIn is nn.Linear's
// (out, in), y = x · Wᵀ; Rows is a table read by row (embeddings, the output head); Vector is 1-d.
enum class TensorLayout { InOut, OutIn, Rows, Vector };

struct TensorEntry {
    std::string name;  // as the file names it; "{L}" stands for the layer index
    TensorRole role;
    bool per_layer = false;
    std::vector<Eigen::Index> shape;  // as stored: 1 or 2 dimensions
    TensorLayout layout = TensorLayout::Vector;
    // Hugging Face's *LMHeadModel saves the base model under a prefix ("transformer.") but the
    // output head without it.
    bool prefixed = true;
};

// The family's tensors in the order its PyTorch module registers them (the order test weights
// are drawn in): model-level tensors before the layers, each layer, then the rest. Only the
// tensors this spec uses (no position table for rotary models, no output head when tied).
std::vector<TensorEntry> tensor_table(const TransformerSpec& spec);
// Calls fn(entry, layer) for every tensor in the file's order: the model-level entries before the
// per-layer ones, then layer 0's entries, layer 1's, ..., then the remaining model-level entries
// (layer 0 for model-level entries). The loader, the checks and test weights all walk this order.
template <class Fn>
void for_each_tensor(const std::vector<TensorEntry>& table, Eigen::Index num_layers, Fn&& fn) {
    std::size_t first = 0;
    while (first < table.size() && !table[first].per_layer) fn(table[first++], Eigen::Index{0});
    std::size_t end = first;
    while (end < table.size() && table[end].per_layer) ++end;
    for (Eigen::Index layer = 0; layer < num_layers; ++layer)
        for (std::size_t i = first; i < end; ++i) fn(table[i], layer);
    for (std::size_t i = end; i < table.size(); ++i) fn(table[i], Eigen::Index{0});
}

// entry.name with "{L}" replaced by the layer index.
std::string tensor_name(const TensorEntry& entry, Eigen::Index layer);
// The prefix the family's LM-head checkpoints put before the base model's names ("transformer.").
std::string lm_head_prefix(ModelFamily family);
// Whether the family is an encoder (BERT, DistilBERT, RoBERTa): every token sees every token.
bool is_encoder(ModelFamily family);
// How the papers write an encoder's name: "BERT", "DistilBERT", "RoBERTa"; family_name otherwise.
std::string encoder_name(ModelFamily family);
// "gpt2", "llama", "mistral", "qwen2", "qwen3", "bert", "distilbert", "roberta".
std::string family_name(ModelFamily family);
// Hugging Face's architecture name: "GPT2LMHeadModel", "LlamaForCausalLM", ...
std::string family_architecture(ModelFamily family);

// The rotary frequencies θ_i (head_dim / 2 values) as transformers computes them in float32 for
// the spec's rope_scaling, or divided by freq_factors when the spec has them.
RowVector rope_inv_freq(const TransformerSpec& spec);

// A read-only tensor that lives elsewhere (the mapped file or a converted buffer): float32 at
// `data`, or, for a weight of a GGUF file, rows in one of ggml's block formats at `blocks`
// (model/quant.h; OutIn and Rows layouts only, as GGUF stores (out, in) row by row). 1-d tensors
// have rows == 1 and are always float32.
struct WeightView {
    const float* data = nullptr;
    Eigen::Index rows = 0;
    Eigen::Index cols = 0;
    TensorLayout layout = TensorLayout::InOut;  // how a projection multiplies it
    const void* blocks = nullptr;               // set instead of data for a block-format weight
    GgmlType type = GgmlType::F32;              // the format of `blocks`

    Eigen::Map<const Matrix> matrix() const { return {data, rows, cols}; }
    Eigen::Map<const RowVector> row() const { return {data, rows * cols}; }
    bool empty() const { return data == nullptr && blocks == nullptr; }
    bool quantized() const { return blocks != nullptr; }
    QuantMatrix quant() const { return {type, blocks, rows, cols}; }
};

struct LayerWeights {
    std::array<WeightView, kTensorRoles> tensors;
    const WeightView& operator[](TensorRole role) const {
        return tensors[static_cast<std::size_t>(role)];
    }
    WeightView& operator[](TensorRole role) { return tensors[static_cast<std::size_t>(role)]; }
};

// The weights as views, filled by the loader (app/io/model_folder.h) or by test code.
struct TransformerWeights {
    TransformerSpec spec;
    std::array<WeightView, kTensorRoles> model_tensors;  // the model-level roles
    std::vector<LayerWeights> layers;                    // num_layers
    // The dtype of the stored weights: safetensors' "F32", "F16", "BF16"; a GGUF file's type
    // names of its matrices ("Q4_K + Q6_K"); or "mixed".
    std::string dtype = "F32";
    // Keeps the memory the views point into alive (a file mapping, converted buffers).
    std::shared_ptr<const void> storage;

    const WeightView& operator[](TensorRole role) const {
        return model_tensors[static_cast<std::size_t>(role)];
    }
    WeightView& operator[](TensorRole role) {
        return model_tensors[static_cast<std::size_t>(role)];
    }
    // The slot an entry of the table fills (layer ignored for model-level entries).
    WeightView& slot(const TensorEntry& entry, Eigen::Index layer);
    const WeightView& slot(const TensorEntry& entry, Eigen::Index layer) const;
};

// Throws AttentionError unless every tensor of the table is present with its shape:
// "h.0.ln_1.weight has 3 × 1 values but the config needs 1 × 8: load weights that match
// config.json".
void check_weights(const TransformerWeights& weights);

}  // namespace attn
