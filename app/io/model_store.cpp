#include "app/io/model_store.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <algorithm>
#include <set>

#include "app/io/gguf.h"
#include "app/io/gguf_model.h"
#include "app/io/hf_cache.h"
#include "app/io/model_folder.h"
#include "app/io/safetensors.h"

namespace attn {

namespace {

constexpr qint64 kMaxManifestBytes = qint64{1} << 20;
const QString kDefaultRegistry = QStringLiteral("registry.ollama.ai");
const QString kModelLayer = QStringLiteral("application/vnd.ollama.image.model");

struct OllamaName {
    QString registry, space, model, tag;
};

// [registry/][namespace/]model[:tag], as Ollama parses it.
OllamaName parseOllamaName(const QString& name) {
    OllamaName n{kDefaultRegistry, QStringLiteral("library"), QString(), QStringLiteral("latest")};
    QString rest = name.trimmed();
    const qsizetype colon = rest.lastIndexOf(QLatin1Char(':'));
    if (colon > rest.lastIndexOf(QLatin1Char('/'))) {
        n.tag = rest.mid(colon + 1);
        rest = rest.left(colon);
    }
    const QStringList parts = rest.split(QLatin1Char('/'));
    n.model = parts.value(parts.size() - 1);
    if (parts.size() >= 2) n.space = parts.value(parts.size() - 2);
    if (parts.size() >= 3) n.registry = parts.mid(0, parts.size() - 2).join(QLatin1Char('/'));
    return n;
}

// A name part must not climb out of the store.
bool plainPart(const QString& part) {
    return !part.isEmpty() && part != QLatin1String(".") && part != QLatin1String("..") &&
           !part.contains(QLatin1Char('\\'));
}

// The model layer's blob of a manifest file; error says what is wrong with it.
QString modelBlobOf(const QString& manifestPath, QString* error) {
    QFile file(manifestPath);
    if (!file.open(QIODevice::ReadOnly) || file.size() > kMaxManifestBytes) {
        *error = QStringLiteral("cannot read the manifest %1").arg(manifestPath);
        return {};
    }
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll());
    const QJsonArray layers = doc.object().value(QLatin1String("layers")).toArray();
    for (const QJsonValue& layer : layers) {
        const QJsonObject o = layer.toObject();
        if (o.value(QLatin1String("mediaType")).toString() != kModelLayer) continue;
        const QString digest = o.value(QLatin1String("digest")).toString();
        static const QRegularExpression hex(QStringLiteral("^sha256[:-][0-9a-f]{64}$"));
        if (!hex.match(digest).hasMatch()) {
            *error = QStringLiteral("the manifest %1 names the digest \"%2\", not a sha256")
                         .arg(manifestPath, digest.left(80));
            return {};
        }
        QString blob = digest;
        blob[6] = QLatin1Char('-');
        return QDir(ollamaModelsFolder()).filePath(QStringLiteral("blobs/") + blob);
    }
    *error = QStringLiteral("the manifest %1 has no model layer (%2): is it a model?")
                 .arg(manifestPath, kModelLayer);
    return {};
}

qint64 filesBytes(const QString& folder, const QStringList& patterns) {
    qint64 bytes = 0;
    const QFileInfoList files = QDir(folder).entryInfoList(patterns, QDir::Files);
    for (const QFileInfo& f : files) bytes += f.size();  // follows the cache's symlinks
    return bytes;
}

// A snapshot folder with config.json: family from it, parameters and dtype from the
// safetensors headers.
LocalModel describeFolder(const QString& name, const QString& folder) {
    LocalModel m;
    m.name = name;
    m.path = folder;
    m.source = QStringLiteral("huggingface");
    QFile config(QDir(folder).filePath(QStringLiteral("config.json")));
    if (!config.open(QIODevice::ReadOnly) || config.size() > (qint64{16} << 20)) {
        m.reason = QStringLiteral("config.json cannot be read");
        return m;
    }
    const QByteArray json = config.readAll();
    m.family = modelTypeOf(json);
    const ModelConfigResult parsed = parseModelConfig(json);
    const QStringList weights =
        QDir(folder).entryList({QStringLiteral("*.safetensors")}, QDir::Files);
    std::set<QString> dtypes;
    for (const QString& file : weights) {
        const SafetensorsOpenResult opened = SafetensorsFile::open(QDir(folder).filePath(file));
        if (!opened.ok()) continue;
        for (const QString& tensor : opened.file->names()) {
            const SafetensorsTensorInfo* info = opened.file->info(tensor);
            m.parameters += info->elements;
            dtypes.insert(info->dtype);
        }
    }
    m.dtype = dtypes.size() == 1 ? *dtypes.begin()
                                 : (dtypes.empty() ? QString() : QStringLiteral("mixed"));
    m.bytes = filesBytes(folder, {QStringLiteral("*.safetensors"), QStringLiteral("*.json"),
                                  QStringLiteral("*.txt"), QStringLiteral("*.model")});
    if (!parsed.ok())
        m.reason = parsed.error;
    else if (weights.isEmpty())
        m.reason = QStringLiteral("no .safetensors weights (only safetensors are read)");
    m.supported = m.reason.isEmpty();
    return m;
}

void listHuggingFace(std::vector<LocalModel>& out) {
    for (const CachedModel& cached : listCachedModels()) {
        const QDir snapshot(cached.folder);
        if (QFileInfo::exists(snapshot.filePath(QStringLiteral("config.json"))))
            out.push_back(describeFolder(cached.name, cached.folder));
        for (const QString& gguf : snapshot.entryList({QStringLiteral("*.gguf")}, QDir::Files)) {
            LocalModel m = describeGgufFile(snapshot.filePath(gguf));
            m.name = cached.name + QLatin1Char('/') + gguf;
            m.source = QStringLiteral("huggingface");
            out.push_back(m);
        }
    }
}

void listOllama(std::vector<LocalModel>& out) {
    const QString manifests = QDir(ollamaModelsFolder()).filePath(QStringLiteral("manifests"));
    QDirIterator it(manifests, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        // registry/namespace/model/tag
        const QStringList parts = QDir(manifests).relativeFilePath(path).split(QLatin1Char('/'));
        if (parts.size() < 4) continue;
        const QString tag = parts.last(), model = parts.value(parts.size() - 2);
        const QString space = parts.value(parts.size() - 3);
        const QString registry = parts.mid(0, parts.size() - 3).join(QLatin1Char('/'));
        QString name = model + QLatin1Char(':') + tag;
        if (space != QLatin1String("library") || registry != kDefaultRegistry)
            name = (registry == kDefaultRegistry ? space : registry + QLatin1Char('/') + space) +
                   QLatin1Char('/') + name;
        QString error;
        const QString blob = modelBlobOf(path, &error);
        LocalModel m = blob.isEmpty() ? LocalModel{} : describeGgufFile(blob);
        if (blob.isEmpty()) m.reason = error;
        m.name = QStringLiteral("ollama:") + name;
        m.source = QStringLiteral("ollama");
        m.path = blob.isEmpty() ? path : blob;
        out.push_back(m);
    }
}

}  // namespace

QString ollamaModelsFolder() {
    const QString env = qEnvironmentVariable("OLLAMA_MODELS");
    return env.isEmpty() ? QDir::home().filePath(QStringLiteral(".ollama/models")) : env;
}

OllamaResolveResult resolveOllamaModel(const QString& name) {
    OllamaResolveResult r;
    const OllamaName n = parseOllamaName(name);
    if (!plainPart(n.model) || !plainPart(n.tag) || !plainPart(n.space) ||
        n.registry.split(QLatin1Char('/')).contains(QStringLiteral(".."))) {
        r.error = QStringLiteral(
                      "\"ollama:%1\" is not a model name: give ollama:NAME[:TAG], "
                      "e.g. ollama:llama3.2:1b")
                      .arg(name.left(80));
        return r;
    }
    const QString manifest =
        QDir(ollamaModelsFolder())
            .filePath(
                QStringLiteral("manifests/%1/%2/%3/%4").arg(n.registry, n.space, n.model, n.tag));
    if (!QFileInfo(manifest).isFile()) {
        r.error = QStringLiteral(
                      "ollama:%1 is not in Ollama's store (looked for %2; the store "
                      "is OLLAMA_MODELS, else ~/.ollama/models): pull it first, "
                      "e.g. ollama pull %3:%4")
                      .arg(name.left(80), QDir::toNativeSeparators(manifest), n.model, n.tag);
        return r;
    }
    QString error;
    const QString blob = modelBlobOf(manifest, &error);
    if (blob.isEmpty()) {
        r.error = error;
        return r;
    }
    if (!QFileInfo(blob).isFile()) {
        r.error = QStringLiteral("ollama:%1's model blob %2 is missing: pull the model again")
                      .arg(name.left(80), QDir::toNativeSeparators(blob));
        return r;
    }
    r.path = blob;
    return r;
}

LocalModel describeGgufFile(const QString& path) {
    LocalModel m;
    m.path = path;
    m.bytes = QFileInfo(path).size();
    const GgufResult opened = openGguf(path);
    if (!opened.ok()) {
        m.reason = opened.error;
        return m;
    }
    const GgufModelInfo info = ggufModelInfo(*opened.file);
    m.family = info.architecture;
    m.parameters = info.parameters;
    m.dtype = info.dtype;
    m.reason = info.error;
    if (m.reason.isEmpty()) m.reason = checkGgufTensorTypes(*opened.file);
    if (m.reason.isEmpty()) m.reason = ggufVocab(*opened.file).error;
    m.supported = m.reason.isEmpty();
    return m;
}

std::vector<LocalModel> listLocalModels() {
    std::vector<LocalModel> models;
    listHuggingFace(models);
    listOllama(models);
    std::stable_sort(models.begin(), models.end(), [](const LocalModel& a, const LocalModel& b) {
        return a.source != b.source ? a.source < b.source : a.name < b.name;
    });
    return models;
}

}  // namespace attn
