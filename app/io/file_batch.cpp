#include "app/io/file_batch.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "app/io/atomic_file.h"

namespace attn {

namespace {

// The context of the messages below in the translation files, where they were written for the
// figure exports.
class FigureExport {
    Q_DECLARE_TR_FUNCTIONS(FigureExport)
};

QString native(const QString& path) { return QDir::toNativeSeparators(path); }

}  // namespace

bool saveFile(const QString& path, const QString& kind, const QByteArray& bytes, bool overwrite,
              QString* error) {
    const QFileInfo info(path);
    if (info.exists() && !overwrite) {
        if (error)
            *error = FigureExport::tr(
                         "%1 already exists and was left as it is: choose another name or folder, "
                         "or allow replacing existing files.")
                         .arg(native(path));
        return false;
    }
    if (info.isDir()) {
        if (error) *error = FigureExport::tr("%1 is a folder: give a file name.").arg(native(path));
        return false;
    }
    if (!info.dir().exists()) {
        if (error)
            *error = FigureExport::tr("Could not save to %1: the folder %2 does not exist.")
                         .arg(native(path), native(info.dir().path()));
        return false;
    }
    QString reason;
    if (writeFileAtomically(path, bytes, &reason)) return true;
    if (error)
        *error = FigureExport::tr("Could not save %1 to %2: %3").arg(kind, native(path), reason);
    return false;
}

QStringList existingFiles(const QString& dir, const QStringList& names) {
    QStringList existing;
    for (const QString& name : names) {
        const QString path = QDir(dir).filePath(name);
        if (QFileInfo::exists(path)) existing.append(path);
    }
    return existing;
}

bool saveFileBatch(const QString& dir, const QStringList& names, const QString& kind,
                   bool overwrite, const FileBytes& produce, QStringList* written, QString* error) {
    QStringList done;
    const auto finish = [&](bool ok) {
        if (written) *written = done;
        return ok;
    };
    const QFileInfo folder(dir);
    if (folder.exists() && !folder.isDir()) {
        if (error)
            *error =
                FigureExport::tr("%1 is a file, not a folder: choose a folder for the figures.")
                    .arg(native(dir));
        return finish(false);
    }
    if (!folder.exists() && !QDir().mkpath(dir)) {
        if (error)
            *error = FigureExport::tr(
                         "Could not create the folder %1: check that its parent exists and is "
                         "writable, or choose another folder.")
                         .arg(native(dir));
        return finish(false);
    }
    if (!overwrite) {
        const QStringList existing = existingFiles(dir, names);
        if (!existing.isEmpty()) {
            if (error)
                *error = FigureExport::tr(
                             "%1 already exists (%2 of the %3 files): nothing was written. Choose "
                             "another folder, or allow replacing existing files.")
                             .arg(native(existing.first()))
                             .arg(existing.size())
                             .arg(names.size());
            return finish(false);
        }
    }
    QStringList created;  // files this call made, removed again if a later one fails
    for (qsizetype i = 0; i < names.size(); ++i) {
        const QString path = QDir(dir).filePath(names.at(i));
        const bool existed = QFileInfo::exists(path);
        QByteArray bytes;
        QString problem;
        if (!produce(i, bytes, problem) || !saveFile(path, kind, bytes, overwrite, &problem)) {
            for (const QString& p : std::as_const(created)) QFile::remove(p);
            if (error) {
                *error = problem;
                if (!created.isEmpty())
                    *error += QLatin1Char(' ') +
                              FigureExport::tr("The figures written before it were removed again.");
            }
            done.clear();
            return finish(false);
        }
        if (!existed) created.append(path);
        done.append(path);
    }
    return finish(true);
}

}  // namespace attn
