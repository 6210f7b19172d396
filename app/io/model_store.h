// Where the models on this machine are: the Hugging Face cache (app/io/hf_cache.h) and Ollama's
// store. Ollama keeps $OLLAMA_MODELS (else ~/.ollama/models)/manifests/<registry>/<namespace>/
// <model>/<tag>, a JSON manifest whose layer of mediaType "application/vnd.ollama.image.model"
// names the model's GGUF blob by digest, stored as blobs/sha256-<hex>. "ollama:llama3.2:1b" is
// registry.ollama.ai/library/llama3.2/1b; a name without a tag is ":latest".
#pragma once

#include <QString>
#include <vector>

namespace attn {

// The store's folder, whether or not it exists.
QString ollamaModelsFolder();

struct OllamaResolveResult {
    QString path;   // the GGUF blob, set on success
    QString error;  // otherwise where we looked and what to do
    bool ok() const { return !path.isEmpty(); }
};

// `name` is what follows "ollama:": [registry/][namespace/]model[:tag].
OllamaResolveResult resolveOllamaModel(const QString& name);

// One model found on this machine, as `attention-cli models` prints it.
struct LocalModel {
    QString name;    // "gpt2", "Qwen/Qwen2.5-0.5B", "ollama:llama3.2:1b"
    QString path;    // what --model takes: the snapshot folder, or the GGUF file
    QString source;  // "huggingface" or "ollama"
    QString family;  // model_type / general.architecture ("llama", "qwen2", ...)
    qint64 parameters = 0;
    QString dtype;  // "F32", "BF16", "Q4_K + Q6_K", ...
    qint64 bytes = 0;
    bool supported = false;
    QString reason;  // why not, when not
};

// Every model in the Hugging Face cache (folders with a config.json, and each .gguf file of a
// snapshot) and in Ollama's store, sorted by source then name. Reads headers only.
std::vector<LocalModel> listLocalModels();

// The model a GGUF file at `path` is, as listLocalModels describes it (name and source left to
// the caller).
LocalModel describeGgufFile(const QString& path);

}  // namespace attn
