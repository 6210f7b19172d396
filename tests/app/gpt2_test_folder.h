// Tests write their own tiny GPT-2 folders: config.json and the weights as Hugging Face saves
// them, in F32, F16 or BF16, with GPT2Model's names or GPT2LMHeadModel's "transformer." prefix,
// in one file or in two shards with model.safetensors.index.json, optionally with GPT-2's real
// tokenizer files (tests/data/gpt2-tokenizer).
#pragma once

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <vector>

#include "app/io/atomic_file.h"
#include "app/io/safetensors.h"
#include "model/gpt2_model.h"

namespace gpt2_test {

enum class Layout { Plain, Prefixed, Sharded };

inline attn::SafetensorsTensorToWrite tensor(const QString& name, const QString& dtype,
                                             const attn::WeightView& view, bool vector) {
    attn::SafetensorsTensorToWrite t;
    t.name = name;
    t.dtype = dtype;
    t.shape = vector ? std::vector<qint64>{view.rows * view.cols}
                     : std::vector<qint64>{view.rows, view.cols};
    t.values.assign(view.data, view.data + view.rows * view.cols);
    return t;
}

inline QByteArray configJson(const attn::Gpt2Config& c) {
    QJsonObject o;
    o.insert(QStringLiteral("model_type"), QStringLiteral("gpt2"));
    o.insert(QStringLiteral("n_layer"), static_cast<qint64>(c.n_layer));
    o.insert(QStringLiteral("n_head"), static_cast<qint64>(c.n_head));
    o.insert(QStringLiteral("n_embd"), static_cast<qint64>(c.n_embd));
    o.insert(QStringLiteral("n_positions"), static_cast<qint64>(c.n_positions));
    o.insert(QStringLiteral("vocab_size"), static_cast<qint64>(c.vocab_size));
    o.insert(QStringLiteral("layer_norm_epsilon"), static_cast<double>(c.layer_norm_epsilon));
    o.insert(QStringLiteral("activation_function"), QStringLiteral("gelu_new"));
    o.insert(QStringLiteral("n_inner"), QJsonValue());
    o.insert(QStringLiteral("tie_word_embeddings"), c.tie_word_embeddings);
    return QJsonDocument(o).toJson();
}

// Writes `weights` into `dir` (created). False with *error on a failed write.
inline bool writeFolder(const QString& dir, const attn::Gpt2Weights& w, const QString& dtype,
                        Layout layout, QString* error) {
    if (!QDir().mkpath(dir)) {
        *error = QStringLiteral("cannot create ") + dir;
        return false;
    }
    const QString p = layout == Layout::Prefixed ? QStringLiteral("transformer.") : QString();
    std::vector<attn::SafetensorsTensorToWrite> all;
    all.push_back(tensor(p + "wte.weight", dtype, w.wte, false));
    all.push_back(tensor(p + "wpe.weight", dtype, w.wpe, false));
    for (std::size_t i = 0; i < w.blocks.size(); ++i) {
        const attn::Gpt2BlockWeights& b = w.blocks[i];
        const QString h = p + QStringLiteral("h.%1.").arg(i);
        all.push_back(tensor(h + "ln_1.weight", dtype, b.ln_1_weight, true));
        all.push_back(tensor(h + "ln_1.bias", dtype, b.ln_1_bias, true));
        all.push_back(tensor(h + "attn.c_attn.weight", dtype, b.c_attn_weight, false));
        all.push_back(tensor(h + "attn.c_attn.bias", dtype, b.c_attn_bias, true));
        all.push_back(tensor(h + "attn.c_proj.weight", dtype, b.attn_c_proj_weight, false));
        all.push_back(tensor(h + "attn.c_proj.bias", dtype, b.attn_c_proj_bias, true));
        all.push_back(tensor(h + "ln_2.weight", dtype, b.ln_2_weight, true));
        all.push_back(tensor(h + "ln_2.bias", dtype, b.ln_2_bias, true));
        all.push_back(tensor(h + "mlp.c_fc.weight", dtype, b.c_fc_weight, false));
        all.push_back(tensor(h + "mlp.c_fc.bias", dtype, b.c_fc_bias, true));
        all.push_back(tensor(h + "mlp.c_proj.weight", dtype, b.mlp_c_proj_weight, false));
        all.push_back(tensor(h + "mlp.c_proj.bias", dtype, b.mlp_c_proj_bias, true));
    }
    all.push_back(tensor(p + "ln_f.weight", dtype, w.ln_f_weight, true));
    all.push_back(tensor(p + "ln_f.bias", dtype, w.ln_f_bias, true));
    // GPT2LMHeadModel saves lm_head.weight; tied, it is wte again.
    if (!w.lm_head.empty())
        all.push_back(tensor(QStringLiteral("lm_head.weight"), dtype, w.lm_head, false));
    else if (layout == Layout::Prefixed)
        all.push_back(tensor(QStringLiteral("lm_head.weight"), dtype, w.wte, false));

    QFile config(QDir(dir).filePath(QStringLiteral("config.json")));
    if (!config.open(QIODevice::WriteOnly) || config.write(configJson(w.config)) < 0) {
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

}  // namespace gpt2_test
