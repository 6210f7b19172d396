#include "app/io/hf_cache.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <optional>

namespace attn {

namespace {

QString env(const char* name) { return qEnvironmentVariable(name); }

// "org/name" -> "models--org--name".
QString repoFolderName(const QString& name) {
    return QStringLiteral("models--") +
           QString(name).replace(QLatin1Char('/'), QStringLiteral("--"));
}

// The snapshot refs/main names, else the newest one; empty when there is none.
QString snapshotOf(const QString& repo) {
    const QDir snapshots(QDir(repo).filePath(QStringLiteral("snapshots")));
    QFile ref(QDir(repo).filePath(QStringLiteral("refs/main")));
    if (ref.open(QIODevice::ReadOnly)) {
        const QString commit = QString::fromUtf8(ref.read(256)).trimmed();
        // A commit hash, never a path: refs/main must not lead out of the cache.
        const bool hash =
            !commit.isEmpty() && std::all_of(commit.begin(), commit.end(), [](QChar c) {
                return c.isLetterOrNumber() && c.unicode() < 128;
            });
        if (hash && QFileInfo(snapshots.filePath(commit)).isDir())
            return snapshots.filePath(commit);
    }
    const QFileInfoList all =
        snapshots.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Time);
    return all.isEmpty() ? QString() : all.first().absoluteFilePath();
}

}  // namespace

QString huggingFaceHubCache() {
    if (!env("HF_HUB_CACHE").isEmpty()) return env("HF_HUB_CACHE");
    if (!env("HF_HOME").isEmpty()) return QDir(env("HF_HOME")).filePath(QStringLiteral("hub"));
    const QString xdg = env("XDG_CACHE_HOME");
    const QString cache = xdg.isEmpty() ? QDir::home().filePath(QStringLiteral(".cache")) : xdg;
    return QDir(cache).filePath(QStringLiteral("huggingface/hub"));
}

ModelPathResult resolveModelPath(const QString& name) {
    ModelPathResult result;
    if (name.trimmed().isEmpty()) {
        result.error = QStringLiteral("--model is empty: give a model folder or a model name");
        return result;
    }
    if (QFileInfo(name).isDir()) {
        result.folder = QDir(name).absolutePath();
        return result;
    }
    const QString hub = huggingFaceHubCache();
    const QString repo = QDir(hub).filePath(repoFolderName(name));
    const QString snapshot = QFileInfo(repo).isDir() ? snapshotOf(repo) : QString();
    if (!snapshot.isEmpty()) {
        result.folder = snapshot;
        return result;
    }
    result.error = QStringLiteral(
                       "\"%1\" is neither a folder nor a model in the Hugging Face "
                       "cache (looked for %2): give the folder of a GPT-2 model, or "
                       "download one first, e.g. huggingface-cli download gpt2")
                       .arg(name, QDir::toNativeSeparators(repo));
    return result;
}

std::vector<CachedModel> listCachedModels() {
    std::vector<CachedModel> models;
    const QDir hub(huggingFaceHubCache());
    const QStringList repos =
        hub.entryList({QStringLiteral("models--*")}, QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& repo : repos) {
        const QString snapshot = snapshotOf(hub.filePath(repo));
        if (snapshot.isEmpty()) continue;
        CachedModel m;
        m.name = repo.mid(8).replace(QStringLiteral("--"), QStringLiteral("/"));
        m.folder = snapshot;
        models.push_back(m);
    }
    std::sort(models.begin(), models.end(),
              [](const CachedModel& a, const CachedModel& b) { return a.name < b.name; });
    return models;
}

}  // namespace attn
