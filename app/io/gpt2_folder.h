// A Hugging Face GPT-2 folder (config.json + model.safetensors, or a sharded
// model.safetensors.index.json) loaded into attn::Gpt2Weights. Tensor names as GPT2Model saves
// them (wte.weight, h.0.attn.c_attn.weight, ...) or with GPT2LMHeadModel's "transformer." prefix
// and lm_head.weight. F32 weights stay in the memory-mapped file; F16/BF16 are converted.
#pragma once

#include <QByteArray>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

#include "app/io/bpe_tokenizer.h"
#include "model/gpt2_model.h"

namespace attn {

struct Gpt2ConfigResult {
    std::optional<Gpt2Config> config;
    QString error;
    bool ok() const { return config.has_value(); }
};

// config.json's text. n_inner null or missing resolves to 4 · n_embd.
Gpt2ConfigResult parseGpt2Config(const QByteArray& json);

struct Gpt2LoadOptions {
    // Called between tensors with the fraction done (0..1).
    std::function<void(double fraction)> progress;
    // Set (from another thread) to stop between tensors; the load then fails with "cancelled".
    const std::atomic<bool>* cancel = nullptr;
};

struct Gpt2LoadResult {
    std::optional<Gpt2Weights> weights;
    QString error;  // one line naming the file or tensor and the problem
    bool cancelled = false;
    bool ok() const { return weights.has_value(); }
};

Gpt2LoadResult loadGpt2Folder(const QString& folder, const Gpt2LoadOptions& options = {});

// A model as the app and the CLI open it: `nameOrFolder` resolved (a folder, else a name in the
// Hugging Face cache, app/io/hf_cache.h), its tokenizer and, with `withWeights`, its weights,
// checked against each other. Errors start with the folder.
struct Gpt2Model {
    QString folder;
    std::shared_ptr<const BpeTokenizer> tokenizer;
    std::shared_ptr<const Gpt2Weights> weights;  // null without withWeights
};

struct Gpt2ModelResult {
    Gpt2Model model;
    QString error;
    bool cancelled = false;
    bool ok() const { return model.tokenizer != nullptr; }
};

Gpt2ModelResult openGpt2Model(const QString& nameOrFolder, bool withWeights,
                              const Gpt2LoadOptions& options = {});

}  // namespace attn
