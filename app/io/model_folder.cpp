#include "app/io/model_folder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "app/io/gguf.h"
#include "app/io/gguf_model.h"
#include "app/io/hf_cache.h"
#include "app/io/json_locator.h"
#include "app/io/model_store.h"
#include "app/io/safetensors.h"
#include "app/io/weight_arena.h"

namespace attn {

namespace {

// Largest config.json / index.json we read; real ones are a few KB.
constexpr qint64 kMaxJsonBytes = qint64{16} << 20;

struct JsonResult {
    QJsonObject object;
    QString error;
};

// A JSON object file of the folder (the shards' index), its errors located by JsonText.
JsonResult readJsonObject(const QString& path) {
    QFile file(path);
    const QString name = QFileInfo(path).fileName();
    if (!file.open(QIODevice::ReadOnly))
        return {{}, QStringLiteral("%1: cannot open: %2").arg(name, file.errorString())};
    if (file.size() > kMaxJsonBytes)
        return {{}, QStringLiteral("%1: %2 bytes is too large").arg(name).arg(file.size())};
    const JsonText text(name, file.readAll());
    QString error;
    const std::optional<QJsonObject> o =
        text.parseObject(QStringLiteral("copy %1 again from the model").arg(name),
                         QStringLiteral("the index is an object {\"weight_map\": {...}}"), &error);
    if (!o) return {{}, error};
    return {*o, QString()};
}

QString shapeText(const std::vector<qint64>& shape) {
    QStringList parts;
    for (qint64 d : shape) parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

// Everything the views point into: the mapped files, converted buffers and the copies.
struct Storage {
    std::vector<std::shared_ptr<const void>> owners;
};

// Room for every mapped file's bytes (reserved only, backed as the copies are written), each copy
// 64-byte aligned.
std::size_t mappedBytes(const QMap<QString, std::shared_ptr<const SafetensorsFile>>& opened,
                        qint64 tensors) {
    std::size_t bytes = static_cast<std::size_t>(tensors) * 64;
    for (const auto& f : opened)
        if (f && f->fileMapped()) bytes += static_cast<std::size_t>(f->size());
    return bytes;
}

}  // namespace

namespace {

// The folder's config.json, checked before anything larger is read.
ModelConfigResult readFolderConfig(const QString& folder) {
    auto fail = [](const QString& message) { return ModelConfigResult::failure(message); };
    if (!QFileInfo(folder).isDir())
        return fail(QStringLiteral("%1 is not a folder; give a GPT-2 model folder from the "
                                   "Hugging Face Hub (e.g. huggingface-cli download gpt2)")
                        .arg(folder));
    const QString configPath = QDir(folder).filePath(QStringLiteral("config.json"));
    if (!QFileInfo::exists(configPath))
        return fail(QStringLiteral("%1 has no config.json; is it a Hugging Face model folder?")
                        .arg(folder));
    QFile configFile(configPath);
    if (!configFile.open(QIODevice::ReadOnly) || configFile.size() > kMaxJsonBytes)
        return fail(QStringLiteral("config.json: cannot read it"));
    return parseModelConfig(configFile.readAll());
}

using HasTensor = std::function<bool(const QString&)>;

// Older BERT checkpoints (bert-base-uncased's) name a LayerNorm's weight and bias gamma and
// beta: the name as the file has it.
QString storedName(const HasTensor& has, const QString& name) {
    if (has(name) || !name.contains(QLatin1String("LayerNorm."))) return name;
    QString old = name;
    if (old.endsWith(QLatin1String("LayerNorm.weight")))
        old.replace(old.size() - 6, 6, QStringLiteral("gamma"));
    else if (old.endsWith(QLatin1String("LayerNorm.bias")))
        old.replace(old.size() - 4, 4, QStringLiteral("beta"));
    return has(old) ? old : name;
}

// An encoder's file has the masked-LM head (BertForMaskedLM, BertForPreTraining) or not
// (BertModel): the spec follows the file; the head's first tensor tells.
void readHeadIfPresent(TransformerSpec& spec, std::vector<TensorEntry>& table,
                       const HasTensor& has) {
    TransformerSpec withHead = spec;
    withHead.mlm_head = true;
    std::vector<TensorEntry> full = tensor_table(withHead);
    const auto head =
        std::find_if(full.begin(), full.end(), [](const TensorEntry& e) { return !e.prefixed; });
    if (head == full.end() || !has(storedName(has, QString::fromStdString(head->name)))) return;
    spec = withHead;
    table = std::move(full);
}

}  // namespace

ModelLoadResult loadModelFolder(const QString& folder, const ModelLoadOptions& options) {
    auto fail = [](const QString& message) {
        return ModelLoadResult{std::nullopt, message, false};
    };
    const QDir dir(folder);
    const ModelConfigResult parsed = readFolderConfig(folder);
    if (!parsed.ok()) return fail(parsed.error);
    TransformerSpec spec = *parsed.spec;
    std::vector<TensorEntry> table = tensor_table(spec);

    // Which file holds each tensor: one file, or the index's weight_map over shards.
    QMap<QString, QString> fileOf;  // tensor name → file name
    QStringList files;
    const QString single = dir.filePath(QStringLiteral("model.safetensors"));
    const QString indexPath = dir.filePath(QStringLiteral("model.safetensors.index.json"));
    if (QFileInfo::exists(single)) {
        files << QStringLiteral("model.safetensors");
    } else if (QFileInfo::exists(indexPath)) {
        const JsonResult index = readJsonObject(indexPath);
        if (!index.error.isEmpty()) return fail(index.error);
        const QJsonValue map = index.object.value(QLatin1String("weight_map"));
        if (!map.isObject())
            return fail(
                QStringLiteral("model.safetensors.index.json has no \"weight_map\" "
                               "object"));
        const QJsonObject weightMap = map.toObject();
        for (auto it = weightMap.begin(); it != weightMap.end(); ++it) {
            const QString shard = it.value().toString();
            // A shard name with a path in it could point anywhere: only plain names.
            if (shard.isEmpty() || shard.contains(QLatin1Char('/')) ||
                shard.contains(QLatin1Char('\\')) || shard == QLatin1String("..") ||
                shard == QLatin1String("."))
                return fail(QStringLiteral("model.safetensors.index.json: \"%1\" maps to \"%2\", "
                                           "not a file name in the folder")
                                .arg(it.key(), shard.left(80)));
            fileOf.insert(it.key(), shard);
            if (!files.contains(shard)) files << shard;
        }
    } else {
        return fail(QStringLiteral("%1 has no model.safetensors (nor model.safetensors.index.json)"
                                   "; only safetensors weights are read, not pytorch_model.bin")
                        .arg(folder));
    }
    QMap<QString, std::shared_ptr<const SafetensorsFile>> opened;
    for (const QString& name : files) {
        const QString path = dir.filePath(name);
        if (!QFileInfo::exists(path))
            return fail(
                QStringLiteral("%1 is missing (named in model.safetensors.index.json)").arg(name));
        SafetensorsOpenResult result = SafetensorsFile::open(path);
        if (!result.ok()) return fail(QStringLiteral("%1: %2").arg(name, result.error));
        opened.insert(name, std::move(result.file));
    }
    // The LM-head model saves the base model under a prefix ("transformer.wte.weight"), the
    // base model without it ("wte.weight"); the first entry of the table tells which.
    auto has = [&](const QString& tensor) {
        if (!fileOf.isEmpty()) return fileOf.contains(tensor);
        return opened.first()->contains(tensor);
    };
    const QString headPrefix = QString::fromStdString(lm_head_prefix(spec.family));
    const QString prefix = has(headPrefix + QString::fromStdString(tensor_name(table.front(), 0)))
                               ? headPrefix
                               : QString();
    auto stored = [&](const QString& name) { return storedName(has, name); };
    if (is_encoder(spec.family)) readHeadIfPresent(spec, table, has);

    // The last layer's first tensor must be there before anything is sized by the layer count.
    for (const TensorEntry& entry : table) {
        if (!entry.per_layer) continue;
        const QString last =
            stored(prefix + QString::fromStdString(tensor_name(entry, spec.num_layers - 1)));
        if (!has(last))
            return fail(QStringLiteral("config.json says %1 layers but tensor %2 is missing: the "
                                       "weights belong to a smaller model")
                            .arg(spec.num_layers)
                            .arg(last));
        break;
    }
    auto storage = std::make_shared<Storage>();
    TransformerWeights weights;
    weights.spec = spec;
    weights.layers.resize(static_cast<std::size_t>(spec.num_layers));
    QSet<QString> dtypes;
    qint64 total = 0;
    for (const TensorEntry& entry : table) total += entry.per_layer ? spec.num_layers : 1;
    qint64 done = 0;
    bool cancelled = false;
    // F32 tensors as they lie in the files go into huge pages (weight_arena.h).
    WeightCopies copies(mappedBytes(opened, total), true);
    if (copies.owner()) storage->owners.push_back(copies.owner());
    // Reads one tensor into `view` after checking its shape; false with `error` set otherwise.
    QString error;
    auto load = [&](const TensorEntry& entry, Eigen::Index layer) {
        const QString name = stored((entry.prefixed ? prefix : QString()) +
                                    QString::fromStdString(tensor_name(entry, layer)));
        const std::vector<qint64> expected(entry.shape.begin(), entry.shape.end());
        if (options.cancel && options.cancel->load()) {
            cancelled = true;
            error = QStringLiteral("loading cancelled");
            return false;
        }
        const QString fileName = fileOf.isEmpty() ? files.first() : fileOf.value(name);
        const auto file = opened.value(fileName);
        if (!file || !file->contains(name)) {
            error = QStringLiteral("tensor %1 is missing from %2")
                        .arg(name, fileName.isEmpty() ? QStringLiteral("the weights") : fileName);
            return false;
        }
        const SafetensorsTensorInfo* info = file->info(name);
        if (info->shape != expected) {
            error = QStringLiteral("tensor %1 has shape %2; the config needs %3")
                        .arg(name, shapeText(info->shape), shapeText(expected));
            return false;
        }
        FloatTensorResult values = file->floats(name);
        if (!values.ok()) {
            error = QStringLiteral("%1: %2").arg(fileName, values.error);
            return false;
        }
        if (values.tensor.owner == file)  // else converted, or copied for alignment
            values.tensor.data = static_cast<const float*>(copies.place(
                values.tensor.data, static_cast<std::size_t>(values.tensor.elements) * 4));
        dtypes.insert(info->dtype);
        WeightView& view = weights.slot(entry, layer);
        view.data = values.tensor.data;
        view.rows = expected.size() == 2 ? static_cast<Eigen::Index>(expected[0]) : 1;
        view.cols = static_cast<Eigen::Index>(expected.back());
        view.layout = entry.layout;
        storage->owners.push_back(std::move(values.tensor.owner));
        ++done;
        if (options.progress)
            options.progress(static_cast<double>(done) / static_cast<double>(total));
        return true;
    };
    bool result = true;
    for_each_tensor(table, spec.num_layers, [&](const TensorEntry& entry, Eigen::Index layer) {
        result = result && load(entry, layer);
    });
    if (!result) return ModelLoadResult{std::nullopt, error, cancelled};
    weights.dtype = dtypes.size() == 1 ? dtypes.begin()->toStdString() : std::string("mixed");
    weights.storage = std::move(storage);
    return ModelLoadResult{std::move(weights), QString(), false};
}

namespace {

// A GGUF file: its metadata, its embedded vocabulary and, with `withWeights`, its tensors.
ModelFolderResult openGgufModel(const QString& path, bool withWeights,
                                const ModelLoadOptions& options) {
    ModelFolderResult out;
    const QString where = QDir::toNativeSeparators(path);
    GgufResult opened = openGguf(path);
    if (!opened.ok()) {
        out.error = opened.error;
        return out;
    }
    const GgufFile& file = *opened.file;
    const GgufModelInfo info = ggufModelInfo(file);
    QString error = info.error;
    if (error.isEmpty()) error = checkGgufTensorTypes(file);
    const GgufVocabResult vocab = error.isEmpty() ? ggufVocab(file) : GgufVocabResult{};
    if (error.isEmpty()) error = vocab.error;
    TokenizerLoadResult tokenizer;
    if (error.isEmpty()) {
        tokenizer = Tokenizer::fromGgufVocab(*vocab.vocab);
        error = tokenizer.error;
    }
    if (!error.isEmpty()) {
        out.error = QStringLiteral("%1: %2").arg(where, error);
        return out;
    }
    if (withWeights) {
        ModelLoadResult loaded = loadGgufWeights(file, options);
        if (!loaded.ok()) {
            out.error = QStringLiteral("%1: %2").arg(where, loaded.error);
            out.cancelled = loaded.cancelled;
            return out;
        }
        if (tokenizer.tokenizer->vocabSize() > loaded.weights->spec.vocab_size) {
            out.error = QStringLiteral(
                            "%1: the vocabulary has %2 tokens but token_embd.weight "
                            "only %3 rows: the file is damaged")
                            .arg(where)
                            .arg(tokenizer.tokenizer->vocabSize())
                            .arg(loaded.weights->spec.vocab_size);
            return out;
        }
        out.model.weights = std::make_shared<const TransformerWeights>(std::move(*loaded.weights));
    }
    out.model.folder = path;
    out.model.tokenizer = tokenizer.tokenizer;
    return out;
}

}  // namespace

ModelFolderResult openModelFolder(const QString& nameOrFolder, bool withWeights,
                                  const ModelLoadOptions& options) {
    ModelFolderResult out;
    if (nameOrFolder.startsWith(QLatin1String("ollama:"))) {
        const OllamaResolveResult blob = resolveOllamaModel(nameOrFolder.mid(7));
        if (!blob.ok()) {
            out.error = blob.error;
            return out;
        }
        return openGgufModel(blob.path, withWeights, options);
    }
    if (QFileInfo(nameOrFolder).isFile() &&
        (nameOrFolder.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive) ||
         looksLikeGguf(nameOrFolder)))
        return openGgufModel(nameOrFolder, withWeights, options);
    const ModelPathResult path = resolveModelPath(nameOrFolder);
    if (!path.ok()) {
        out.error = path.error;
        return out;
    }
    const QString where = QDir::toNativeSeparators(path.folder);
    // Not a model folder at all: say so before complaining about its tokenizer.
    const ModelConfigResult config = readFolderConfig(path.folder);
    if (!config.ok()) {
        out.error = config.error.startsWith(path.folder)
                        ? config.error
                        : QStringLiteral("%1: %2").arg(where, config.error);
        return out;
    }
    const TokenizerLoadResult tokenizer = Tokenizer::load(path.folder);
    if (!tokenizer.ok()) {
        out.error = QStringLiteral("%1: %2").arg(where, tokenizer.error);
        return out;
    }
    if (withWeights) {
        ModelLoadResult loaded = loadModelFolder(path.folder, options);
        if (!loaded.ok()) {
            out.error = QStringLiteral("%1: %2").arg(where, loaded.error);
            out.cancelled = loaded.cancelled;
            return out;
        }
        if (tokenizer.tokenizer->vocabSize() > loaded.weights->spec.vocab_size) {
            out.error = QStringLiteral(
                            "%1: the tokenizer has %2 tokens but config.json's "
                            "vocab_size is %3: the folder mixes two models")
                            .arg(where)
                            .arg(tokenizer.tokenizer->vocabSize())
                            .arg(loaded.weights->spec.vocab_size);
            return out;
        }
        out.model.weights = std::make_shared<const TransformerWeights>(std::move(*loaded.weights));
    }
    out.model.folder = path.folder;
    out.model.tokenizer = tokenizer.tokenizer;
    return out;
}

}  // namespace attn
