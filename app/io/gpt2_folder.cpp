#include "app/io/gpt2_folder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QMap>
#include <QSet>
#include <cmath>
#include <memory>
#include <vector>

#include "app/io/hf_cache.h"
#include "app/io/safetensors.h"

namespace attn {

namespace {

// Largest config.json / index.json we read; real ones are a few KB.
constexpr qint64 kMaxJsonBytes = qint64{16} << 20;
// Any dimension above this is not a GPT-2 config (and would overflow shape products).
constexpr double kMaxDimension = 1 << 24;

struct JsonResult {
    QJsonObject object;
    QString error;
};

JsonResult readJsonObject(const QString& path) {
    QFile file(path);
    const QString name = QFileInfo(path).fileName();
    if (!file.open(QIODevice::ReadOnly))
        return {{}, QStringLiteral("%1: cannot open: %2").arg(name, file.errorString())};
    if (file.size() > kMaxJsonBytes)
        return {{}, QStringLiteral("%1: %2 bytes is too large").arg(name).arg(file.size())};
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError)
        return {{},
                QStringLiteral("%1: not valid JSON (%2 at byte %3)")
                    .arg(name, error.errorString())
                    .arg(error.offset)};
    if (!doc.isObject()) return {{}, QStringLiteral("%1: not a JSON object").arg(name)};
    return {doc.object(), QString()};
}

QString shapeText(const std::vector<qint64>& shape) {
    QStringList parts;
    for (qint64 d : shape) parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

// Everything the views point into: the mapped files and converted buffers.
struct Storage {
    std::vector<std::shared_ptr<const void>> owners;
};

}  // namespace

Gpt2ConfigResult parseGpt2Config(const QByteArray& json) {
    auto fail = [](const QString& message) { return Gpt2ConfigResult{std::nullopt, message}; };
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        return fail(QStringLiteral("config.json is not valid JSON (%1 at byte %2)")
                        .arg(error.errorString())
                        .arg(error.offset));
    if (!doc.isObject()) return fail(QStringLiteral("config.json is not a JSON object"));
    const QJsonObject o = doc.object();
    const QString type = o.value(QLatin1String("model_type")).toString();
    if (type != QLatin1String("gpt2"))
        return fail(QStringLiteral("config.json: model_type is \"%1\"; only GPT-2 models "
                                   "(model_type \"gpt2\": gpt2, distilgpt2, gpt2-medium, ...) are "
                                   "supported")
                        .arg(type.left(60)));
    Gpt2Config config;
    auto dimension = [&o](const char* key, Eigen::Index* out, QString* message) {
        const QJsonValue v = o.value(QLatin1String(key));
        const double d = v.toDouble(-1.0);
        if (!v.isDouble() || !(d >= 1.0) || d > kMaxDimension || std::floor(d) != d) {
            *message = QStringLiteral("config.json: \"%1\" must be a positive integer").arg(key);
            return false;
        }
        *out = static_cast<Eigen::Index>(d);
        return true;
    };
    QString message;
    if (!dimension("n_layer", &config.n_layer, &message) ||
        !dimension("n_head", &config.n_head, &message) ||
        !dimension("n_embd", &config.n_embd, &message) ||
        !dimension("n_positions", &config.n_positions, &message) ||
        !dimension("vocab_size", &config.vocab_size, &message))
        return fail(message);
    if (config.n_embd % config.n_head != 0)
        return fail(QStringLiteral("config.json: n_embd %1 is not divisible by n_head %2")
                        .arg(config.n_embd)
                        .arg(config.n_head));
    const QJsonValue inner = o.value(QLatin1String("n_inner"));
    if (inner.isUndefined() || inner.isNull()) {
        config.n_inner = 4 * config.n_embd;
    } else if (!dimension("n_inner", &config.n_inner, &message)) {
        return fail(message + QStringLiteral(" or null"));
    }
    const QJsonValue eps = o.value(QLatin1String("layer_norm_epsilon"));
    if (!eps.isUndefined()) {
        const double e = eps.toDouble(-1.0);
        if (!eps.isDouble() || !(e > 0.0) || e > 1.0)
            return fail(
                QStringLiteral("config.json: \"layer_norm_epsilon\" must be a small "
                               "positive number"));
        config.layer_norm_epsilon = static_cast<float>(e);
    }
    const QJsonValue act = o.value(QLatin1String("activation_function"));
    if (!act.isUndefined()) {
        if (act.toString() != QLatin1String("gelu_new"))
            return fail(QStringLiteral("config.json: activation_function \"%1\" is not supported; "
                                       "only \"gelu_new\" (GPT-2's) is")
                            .arg(act.toString().left(60)));
    }
    const QJsonValue tie = o.value(QLatin1String("tie_word_embeddings"));
    if (!tie.isUndefined()) {
        if (!tie.isBool())
            return fail(
                QStringLiteral("config.json: \"tie_word_embeddings\" must be true or "
                               "false"));
        config.tie_word_embeddings = tie.toBool();
    }
    return {config, QString()};
}

namespace {

// The folder's config.json, checked before anything larger is read.
Gpt2ConfigResult readFolderConfig(const QString& folder) {
    auto fail = [](const QString& message) { return Gpt2ConfigResult{std::nullopt, message}; };
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
    return parseGpt2Config(configFile.readAll());
}

}  // namespace

Gpt2LoadResult loadGpt2Folder(const QString& folder, const Gpt2LoadOptions& options) {
    auto fail = [](const QString& message) { return Gpt2LoadResult{std::nullopt, message, false}; };
    const QDir dir(folder);
    const Gpt2ConfigResult parsed = readFolderConfig(folder);
    if (!parsed.ok()) return fail(parsed.error);
    const Gpt2Config& config = *parsed.config;

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
    // GPT2LMHeadModel saves "transformer.wte.weight", GPT2Model "wte.weight".
    auto has = [&](const QString& tensor) {
        if (!fileOf.isEmpty()) return fileOf.contains(tensor);
        return opened.first()->contains(tensor);
    };
    const QString prefix =
        has(QStringLiteral("transformer.wte.weight")) ? QStringLiteral("transformer.") : QString();

    auto storage = std::make_shared<Storage>();
    Gpt2Weights weights;
    weights.config = config;
    QSet<QString> dtypes;
    const qint64 total = 4 + 12 * config.n_layer + (config.tie_word_embeddings ? 0 : 1);
    qint64 done = 0;
    bool cancelled = false;
    // Reads one tensor into `view` after checking its shape; false with `error` set otherwise.
    QString error;
    auto load = [&](const QString& name, std::vector<qint64> expected, WeightView* view) {
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
        dtypes.insert(info->dtype);
        view->data = values.tensor.data;
        view->rows = expected.size() == 2 ? static_cast<Eigen::Index>(expected[0]) : 1;
        view->cols = static_cast<Eigen::Index>(expected.back());
        storage->owners.push_back(std::move(values.tensor.owner));
        ++done;
        if (options.progress)
            options.progress(static_cast<double>(done) / static_cast<double>(total));
        return true;
    };
    const qint64 e = config.n_embd, inner = config.n_inner;
    auto result = [&]() -> bool {
        if (!load(prefix + QStringLiteral("wte.weight"), {config.vocab_size, e}, &weights.wte))
            return false;
        if (!load(prefix + QStringLiteral("wpe.weight"), {config.n_positions, e}, &weights.wpe))
            return false;
        weights.blocks.resize(static_cast<std::size_t>(config.n_layer));
        for (qint64 i = 0; i < config.n_layer; ++i) {
            Gpt2BlockWeights& b = weights.blocks[static_cast<std::size_t>(i)];
            const QString h = prefix + QStringLiteral("h.%1.").arg(i);
            if (!load(h + QStringLiteral("ln_1.weight"), {e}, &b.ln_1_weight) ||
                !load(h + QStringLiteral("ln_1.bias"), {e}, &b.ln_1_bias) ||
                !load(h + QStringLiteral("attn.c_attn.weight"), {e, 3 * e}, &b.c_attn_weight) ||
                !load(h + QStringLiteral("attn.c_attn.bias"), {3 * e}, &b.c_attn_bias) ||
                !load(h + QStringLiteral("attn.c_proj.weight"), {e, e}, &b.attn_c_proj_weight) ||
                !load(h + QStringLiteral("attn.c_proj.bias"), {e}, &b.attn_c_proj_bias) ||
                !load(h + QStringLiteral("ln_2.weight"), {e}, &b.ln_2_weight) ||
                !load(h + QStringLiteral("ln_2.bias"), {e}, &b.ln_2_bias) ||
                !load(h + QStringLiteral("mlp.c_fc.weight"), {e, inner}, &b.c_fc_weight) ||
                !load(h + QStringLiteral("mlp.c_fc.bias"), {inner}, &b.c_fc_bias) ||
                !load(h + QStringLiteral("mlp.c_proj.weight"), {inner, e}, &b.mlp_c_proj_weight) ||
                !load(h + QStringLiteral("mlp.c_proj.bias"), {e}, &b.mlp_c_proj_bias))
                return false;
        }
        if (!load(prefix + QStringLiteral("ln_f.weight"), {e}, &weights.ln_f_weight) ||
            !load(prefix + QStringLiteral("ln_f.bias"), {e}, &weights.ln_f_bias))
            return false;
        // lm_head is never prefixed; with tied embeddings it is a copy of wte and ignored.
        if (!config.tie_word_embeddings &&
            !load(QStringLiteral("lm_head.weight"), {config.vocab_size, e}, &weights.lm_head))
            return false;
        return true;
    }();
    if (!result) return Gpt2LoadResult{std::nullopt, error, cancelled};
    weights.dtype = dtypes.size() == 1 ? dtypes.begin()->toStdString() : std::string("mixed");
    weights.storage = std::move(storage);
    return Gpt2LoadResult{std::move(weights), QString(), false};
}

Gpt2ModelResult openGpt2Model(const QString& nameOrFolder, bool withWeights,
                              const Gpt2LoadOptions& options) {
    Gpt2ModelResult out;
    const ModelPathResult path = resolveModelPath(nameOrFolder);
    if (!path.ok()) {
        out.error = path.error;
        return out;
    }
    const QString where = QDir::toNativeSeparators(path.folder);
    // Not a model folder at all: say so before complaining about its tokenizer.
    const Gpt2ConfigResult config = readFolderConfig(path.folder);
    if (!config.ok()) {
        out.error = config.error.startsWith(path.folder)
                        ? config.error
                        : QStringLiteral("%1: %2").arg(where, config.error);
        return out;
    }
    const BpeLoadResult tokenizer = BpeTokenizer::load(path.folder);
    if (!tokenizer.ok()) {
        out.error = QStringLiteral("%1: %2").arg(where, tokenizer.error);
        return out;
    }
    if (withWeights) {
        Gpt2LoadResult loaded = loadGpt2Folder(path.folder, options);
        if (!loaded.ok()) {
            out.error = QStringLiteral("%1: %2").arg(where, loaded.error);
            out.cancelled = loaded.cancelled;
            return out;
        }
        if (tokenizer.tokenizer->vocabSize() > loaded.weights->config.vocab_size) {
            out.error = QStringLiteral(
                            "%1: the tokenizer has %2 tokens but config.json's "
                            "vocab_size is %3: the folder mixes two models")
                            .arg(where)
                            .arg(tokenizer.tokenizer->vocabSize())
                            .arg(loaded.weights->config.vocab_size);
            return out;
        }
        out.model.weights = std::make_shared<const Gpt2Weights>(std::move(*loaded.weights));
    }
    out.model.folder = path.folder;
    out.model.tokenizer = tokenizer.tokenizer;
    return out;
}

}  // namespace attn
