// Attention weights computed elsewhere (BERT, LLaMA, ... saved from Python with
// output_attentions=True), opened in the same views as GPT-2's heads:
//   .npy (NumPy's format 1.0/2.0/3.0, float32 or float16, little-endian, C order) of shape
//        [layers, heads, queries, keys] or [heads, queries, keys], either with a leading batch of 1
//        (or torch.stack(out.attentions)'s [layers, 1, heads, queries, keys]);
//   .safetensors with one tensor per layer, [heads, queries, keys] or [1, heads, queries, keys],
//        layers in the natural order of their names ("layer.2" before "layer.10");
// and the tokens from a JSON list beside it. README.md shows the Python that writes one.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

#include "app/io/model_folder.h"
#include "model/tensor.h"

namespace attn {

// An .npy array (NumPy's format 1.0/2.0/3.0: magic, version, header dict with 'descr',
// 'fortran_order', 'shape'); float32 ('<f4') and float16 ('<f2') little-endian, C order.
struct NpyArray {
    QString descr;  // "<f4" or "<f2"
    std::vector<qint64> shape;
    std::vector<float> values;  // row-major, product of shape
};
struct NpyParseResult {
    NpyArray array;
    QString error;  // one line: the problem and how to save the array instead
    bool ok() const { return error.isEmpty(); }
};
// Checks the header and the data size against each other before allocating anything.
NpyParseResult parseNpy(const QByteArray& bytes);

struct AttentionDump {
    QStringList tokens;                           // one per position (key side)
    std::vector<std::vector<Matrix>> attentions;  // [layer][head], each (T_q, T_k), T_q <= T_k
    QString dtype;       // "float32", "float16" (.npy); "F32", "F16", "BF16" (.safetensors)
    QString tokensPath;  // the JSON the tokens came from, empty if none
    QString warning;     // e.g. no tokens file: positions used
};
struct AttentionDumpResult {
    AttentionDump dump;
    QString error;  // one line naming the file and the problem
    bool cancelled = false;
    bool ok() const { return error.isEmpty(); }
};

// path: .npy or .safetensors. tokensPath empty: looks beside it for "<stem>.tokens.json", then
// "tokens.json"; a JSON list of strings (or an object with a "tokens" list). Without one the
// tokens are the positions "1", "2", ... and `warning` says which files were looked for.
// options.progress is called between layers; options.cancel stops there ("loading cancelled").
AttentionDumpResult loadAttentionDump(const QString& path, const QString& tokensPath = QString(),
                                      const ModelLoadOptions& options = {});

// The same checks on bytes in memory (tests, the fuzzer): .npy when they start with NumPy's
// magic, else .safetensors. tokensJson empty: positions, without a warning.
AttentionDumpResult attentionDumpFromBytes(const QByteArray& dump,
                                           const QByteArray& tokensJson = QByteArray());

}  // namespace attn
