// Tests write their own tiny model folders: config.json and the weights as Hugging Face saves
// them, named by the family's tensor table (model/transformer_spec.h), in F32, F16 or BF16, with
// the base model's names or the LM-head model's prefix ("transformer."), in one file or in two
// shards with model.safetensors.index.json, optionally with GPT-2's real tokenizer files
// (tests/data/gpt2-tokenizer). config.json is GPT-2's unless the test gives its own.
#pragma once

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <vector>

#include "app/io/atomic_file.h"
#include "app/io/safetensors_writer.h"
#include "model/transformer_spec.h"

namespace model_test {

enum class Layout { Plain, Prefixed, Sharded };

inline attn::SafetensorsTensorToWrite tensor(const QString& name, const QString& dtype,
                                             const attn::WeightView& view,
                                             const std::vector<Eigen::Index>& shape) {
    attn::SafetensorsTensorToWrite t;
    t.name = name;
    t.dtype = dtype;
    t.shape.assign(shape.begin(), shape.end());
    t.values.assign(view.data, view.data + view.rows * view.cols);
    return t;
}

inline QByteArray configJson(const attn::TransformerSpec& s) {
    QJsonObject o;
    o.insert(QStringLiteral("model_type"), QStringLiteral("gpt2"));
    o.insert(QStringLiteral("n_layer"), static_cast<qint64>(s.num_layers));
    o.insert(QStringLiteral("n_head"), static_cast<qint64>(s.num_heads));
    o.insert(QStringLiteral("n_embd"), static_cast<qint64>(s.d_model));
    o.insert(QStringLiteral("n_positions"), static_cast<qint64>(s.max_positions));
    o.insert(QStringLiteral("vocab_size"), static_cast<qint64>(s.vocab_size));
    o.insert(QStringLiteral("layer_norm_epsilon"), static_cast<double>(s.norm_eps));
    o.insert(QStringLiteral("activation_function"), QStringLiteral("gelu_new"));
    if (s.d_ff == 4 * s.d_model)
        o.insert(QStringLiteral("n_inner"), QJsonValue());
    else
        o.insert(QStringLiteral("n_inner"), static_cast<qint64>(s.d_ff));
    o.insert(QStringLiteral("tie_word_embeddings"), s.tied_output);
    return QJsonDocument(o).toJson();
}

// Writes `weights` into `dir` (created), with `config` as config.json (GPT-2's from the spec
// when empty). False with *error on a failed write.
inline bool writeFolder(const QString& dir, const attn::TransformerWeights& w, const QString& dtype,
                        Layout layout, QString* error, const QByteArray& configText = {}) {
    if (!QDir().mkpath(dir)) {
        *error = QStringLiteral("cannot create ") + dir;
        return false;
    }
    const QString p = layout == Layout::Prefixed
                          ? QString::fromStdString(attn::lm_head_prefix(w.spec.family))
                          : QString();
    std::vector<attn::SafetensorsTensorToWrite> all;
    attn::for_each_tensor(attn::tensor_table(w.spec), w.spec.num_layers,
                          [&](const attn::TensorEntry& entry, Eigen::Index layer) {
                              const QString name =
                                  (entry.prefixed ? p : QString()) +
                                  QString::fromStdString(attn::tensor_name(entry, layer));
                              all.push_back(tensor(name, dtype, w.slot(entry, layer), entry.shape));
                          });
    // GPT2LMHeadModel saves lm_head.weight; tied, it is the token embedding again.
    if (w.spec.tied_output && layout == Layout::Prefixed)
        all.push_back(tensor(QStringLiteral("lm_head.weight"), dtype,
                             w[attn::TensorRole::TokenEmbedding],
                             {w.spec.vocab_size, w.spec.d_model}));

    QFile config(QDir(dir).filePath(QStringLiteral("config.json")));
    if (!config.open(QIODevice::WriteOnly) ||
        config.write(configText.isEmpty() ? configJson(w.spec) : configText) < 0) {
        *error = QStringLiteral("cannot write config.json");
        return false;
    }
    config.close();
    const QMap<QString, QString> metadata{{QStringLiteral("format"), QStringLiteral("pt")}};
    if (layout != Layout::Sharded)
        return attn::writeSafetensors(QDir(dir).filePath(QStringLiteral("model.safetensors")), all,
                                      metadata, error);
    // Two shards, split in the middle, and the index naming each tensor's shard.
    const std::size_t half = all.size() / 2;
    QJsonObject weightMap;
    for (int s = 0; s < 2; ++s) {
        const QString file =
            QStringLiteral("model-%1-of-00002.safetensors").arg(s + 1, 5, 10, QLatin1Char('0'));
        std::vector<attn::SafetensorsTensorToWrite> shard(
            all.begin() + (s == 0 ? 0 : static_cast<std::ptrdiff_t>(half)),
            s == 0 ? all.begin() + static_cast<std::ptrdiff_t>(half) : all.end());
        for (const auto& t : shard) weightMap.insert(t.name, file);
        if (!attn::writeSafetensors(QDir(dir).filePath(file), shard, metadata, error)) return false;
    }
    QJsonObject index;
    index.insert(QStringLiteral("metadata"), QJsonObject());
    index.insert(QStringLiteral("weight_map"), weightMap);
    QFile indexFile(QDir(dir).filePath(QStringLiteral("model.safetensors.index.json")));
    if (!indexFile.open(QIODevice::WriteOnly) ||
        indexFile.write(QJsonDocument(index).toJson()) < 0) {
        *error = QStringLiteral("cannot write model.safetensors.index.json");
        return false;
    }
    return true;
}

// Copies GPT-2's real vocab.json and merges.txt (tests/data/gpt2-tokenizer) into `dir`.
inline bool copyTokenizer(const QString& dir, const QString& tokenizerDir) {
    for (const char* name : {"vocab.json", "merges.txt"}) {
        QFile::remove(QDir(dir).filePath(name));
        if (!QFile::copy(QDir(tokenizerDir).filePath(name), QDir(dir).filePath(name))) return false;
    }
    return true;
}

}  // namespace model_test
