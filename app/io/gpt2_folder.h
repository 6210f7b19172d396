// A Hugging Face GPT-2 folder (config.json + model.safetensors, or a sharded
// model.safetensors.index.json) loaded into attn::Gpt2Weights. Tensor names as GPT2Model saves
// them (wte.weight, h.0.attn.c_attn.weight, ...) or with GPT2LMHeadModel's "transformer." prefix
// and lm_head.weight. F32 weights stay in the memory-mapped file; F16/BF16 are converted.
#pragma once

#include <QByteArray>
#include <QString>
#include <atomic>
#include <functional>
#include <optional>

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

}  // namespace attn
