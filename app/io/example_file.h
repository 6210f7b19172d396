// The example file: tokens, their embeddings and optionally weights, a source sequence for
// cross-attention and module settings, as JSON. The app opens and saves it; attention-cli reads it.
//
//   {
//     "format": "attention-visualizer-example",      optional; if present exactly this
//     "version": 1,                                  optional; if present exactly 1
//     "description": "any text",                     optional
//     "tokens": ["Your", "journey", ...],            1..4096 strings
//     "embeddings": [[0.43, 0.15, 0.89], ...],       one row per token, same width, finite
//     "weights": {"W_query.weight": [[...]], "W_query.bias": [...]},   optional, state_dict names
//     "source": {"tokens": [...], "embeddings": [[...]]},            optional (cross-attention)
//     "config": {"module": "causal-attention", "seed": 123, "d_out": 2, "num_heads": 2,
//                "batch": 1, "context_length": 0, "dropout": 0.0, "qkv_bias": false,
//                "training": true, "causal": false, "scale": false, "mask_convention": "one",
//                "fill": -1e9}  optional; the last five only when set (fill: a number or "-inf")
//   }
//
// Parsing is a pure function from bytes to a file or to one message naming the line, the column
// and the problem. Nothing is half-read: a refused file changes nothing.
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <optional>
#include <vector>

#include "model/examples.h"
#include "model/runner.h"

namespace attn {

inline constexpr qsizetype kMaxExampleFileBytes = qsizetype{64} << 20;  // 64 MiB
inline constexpr qsizetype kMaxExampleTokens = 4096;
inline constexpr qsizetype kMaxTokenLength = 1024;  // characters of one token's text
inline constexpr int kExampleFormatVersion = 1;
inline constexpr char kExampleFormatName[] = "attention-visualizer-example";

struct ExampleFile {
    attn::Sequence inputs;                     // "tokens" + "embeddings"
    std::vector<attn::NamedMatrix> weights;    // "weights", in the file's order
    std::optional<attn::Sequence> source;      // "source"
    std::optional<attn::ModuleConfig> config;  // "config"; its `weights` stay empty (see above)
    // config "training": false = an inference session that keeps its dropout p. Unset in
    // older files: then training is dropout > 0.
    std::optional<bool> training;
    QString description;
};

struct ExampleParseResult {
    std::optional<ExampleFile> file;  // set on success
    QString error;                    // otherwise "line 4, column 12: embeddings row 2 has ..."
    bool ok() const { return file.has_value(); }
};

// Validates everything: UTF-8, JSON syntax, types, shapes, finiteness, limits.
ExampleParseResult parseExampleFile(const QByteArray& bytes);
// Reads `path` (refusing files over kMaxExampleFileBytes before reading them) and parses it.
// Errors are prefixed with nothing: the caller names the file.
ExampleParseResult loadExampleFile(const QString& path);

// The file's JSON text, matrices one row per line and numbers that read back as the same floats.
// Non-finite numbers would be written as null (which parseExampleFile refuses): saveExampleFile
// checks first.
QByteArray serializeExampleFile(const ExampleFile& file);
// Writes atomically with QSaveFile: the previous file stays intact unless the new one is complete.
// Returns false with a message in *error (embeddings or weights that are not finite, I/O errors).
bool saveExampleFile(const ExampleFile& file, const QString& path, QString* error);

// The config object as the file holds it (also printed by attention-cli), every field written.
QJsonObject moduleConfigToJson(const attn::ModuleConfig& config);

}  // namespace attn
