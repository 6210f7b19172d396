// A Hugging Face model folder (config.json + model.safetensors, or a sharded
// model.safetensors.index.json) loaded into attn::TransformerWeights: config.json becomes the
// family's TransformerSpec, and the family's tensor table (model/transformer_spec.h) says which
// tensors to read and their shapes. Names as the base model saves them (GPT-2: wte.weight,
// h.0.attn.c_attn.weight, ...) or with the LM-head model's prefix ("transformer.") and its
// output head. F32 weights stay in the memory-mapped file; F16/BF16 are converted.
// Families read: GPT-2, LLaMA (Llama 2/3, TinyLlama, SmolLM), Mistral, Qwen2, Qwen3, and the
// encoders BERT, DistilBERT, RoBERTa (base model or *ForMaskedLM / BertForPreTraining: the
// masked-LM head is read when the file has it, spec.mlm_head says; older "LayerNorm.gamma" /
// "beta" names are read as weight / bias; the pooler and other heads are ignored).
#pragma once

#include <QByteArray>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "app/io/tokenizer.h"
#include "model/transformer_spec.h"

namespace attn {

struct ModelConfigResult {
    std::optional<TransformerSpec> spec;
    QString error;
    // bos_token_id and eos_token_id (one id or a list) when config.json gives them.
    std::vector<int> bosTokenIds, eosTokenIds;
    bool ok() const { return spec.has_value(); }
    static ModelConfigResult failure(const QString& message) {
        ModelConfigResult r;
        r.error = message;
        return r;
    }
};

// config.json's text as the family's spec (app/io/model_config.cpp). GPT-2: n_inner null or
// missing resolves to 4 · n_embd, activation_function gelu_new / gelu_pytorch_tanh (tanh GELU),
// gelu (erf) or relu, and "attn_only" (TransformerLens's name; default false). LLaMA-layout
// families ("llama", "mistral", "qwen2", "qwen3"): the transformers config's names and defaults
// (num_key_value_heads = num_attention_heads, head_dim = hidden_size / num_attention_heads,
// rope_theta 10000, rms_norm_eps 1e-6, untied), rope_scaling none, linear or llama3, Mistral's
// sliding_window. Encoders ("bert", "distilbert", "roberta"): BertConfig's, DistilBertConfig's
// (dim, n_layers, n_heads, hidden_dim, activation; sinusoidal_pos_embds refused) and
// RobertaConfig's names and defaults (layer_norm_eps 1e-12, hidden_act gelu = exact erf,
// type_vocab_size 2; RoBERTa's pad_token_id, default 1, is the spec's padding_idx).
ModelConfigResult parseModelConfig(const QByteArray& json);
// config.json's "model_type" ("gpt2", "llama", "roberta", ...): empty when the text is not a JSON
// object or has none. What parseModelConfig chooses the family by, for callers that only name it.
QString modelTypeOf(const QByteArray& configJson);

struct ModelLoadOptions {
    // Called between tensors with the fraction done (0..1).
    std::function<void(double fraction)> progress;
    // Set (from another thread) to stop between tensors; the load then fails with "cancelled".
    const std::atomic<bool>* cancel = nullptr;
};

struct ModelLoadResult {
    std::optional<TransformerWeights> weights;
    QString error;  // one line naming the file or tensor and the problem
    bool cancelled = false;
    bool ok() const { return weights.has_value(); }
};

ModelLoadResult loadModelFolder(const QString& folder, const ModelLoadOptions& options = {});

// A model as the app and the CLI open it: `nameOrFolder` resolved (a folder, a .gguf file,
// "ollama:NAME[:TAG]" in Ollama's store (app/io/model_store.h), else a name in the Hugging Face
// cache, app/io/hf_cache.h), its tokenizer and, with `withWeights`, its weights, checked against
// each other. Errors start with the folder or file.
struct ModelFolder {
    QString folder;  // the folder, or the GGUF file
    std::shared_ptr<const Tokenizer> tokenizer;
    std::shared_ptr<const TransformerWeights> weights;  // null without withWeights
};

struct ModelFolderResult {
    ModelFolder model;
    QString error;
    bool cancelled = false;
    bool ok() const { return model.tokenizer != nullptr; }
};

ModelFolderResult openModelFolder(const QString& nameOrFolder, bool withWeights,
                                  const ModelLoadOptions& options = {});

}  // namespace attn
