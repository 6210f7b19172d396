// A GGUF file (app/io/gguf.h) as a model of the core: its metadata as the family's
// TransformerSpec, its tensors as views into the mapped file (kept in their block formats,
// model/quant.h), and its embedded vocabulary. Architectures read: "llama" (Llama 2/3,
// TinyLlama, SmolLM, and Mistral as llama.cpp converts it), "qwen2", "qwen3".
//
// llama.cpp's converter stores the rows of each head's Q and K of a "llama" file permuted (pairs
// (i, i + hd/2) made adjacent, for its interleaved rotation); the loader puts them back in
// Hugging Face's order (a copy of those rows' blocks), so a GGUF and the folder it came from give
// the same queries, keys and attention. Llama 3.x files carry their rope scaling as
// rope_freqs.weight: the frequencies are divided by it.
#pragma once

#include <QString>
#include <optional>

#include "app/io/gguf.h"
#include "app/io/model_folder.h"
#include "app/io/tokenizer.h"
#include "model/transformer_spec.h"

namespace attn {

// What the metadata says, without the weights: for listings and the first check.
struct GgufModelInfo {
    std::optional<TransformerSpec> spec;  // set when the model can be opened
    QString architecture;                 // general.architecture
    QString name;                         // general.name, when the file has one
    qint64 parameters = 0;                // elements of every tensor
    QString dtype;                        // the matrices' types, most bytes first: "Q4_K + Q6_K"
    QString error;                        // why the model cannot be opened
};

// The spec from the file's metadata and tensor shapes (no tensor data is read).
GgufModelInfo ggufModelInfo(const GgufFile& file);

// tokenizer.ggml.* as GgufVocab; an error names the missing key.
struct GgufVocabResult {
    std::optional<GgufVocab> vocab;
    QString error;
};
GgufVocabResult ggufVocab(const GgufFile& file);

// The weights as views into `file` (which their storage keeps alive). Errors name the tensor.
ModelLoadResult loadGgufWeights(const GgufFile& file, const ModelLoadOptions& options = {});

}  // namespace attn
