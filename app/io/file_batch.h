// Saving files the user asked for, one or a batch into a folder, with the checks and messages of
// the figure exports (the window's File ▸ Export and `attention-cli export`). The bytes come from
// the caller (views render the figures); this writes them, each file atomically (atomic_file.h).
//
// An existing file is refused unless `overwrite`. A batch checks every name before writing
// anything and, if a file fails part-way, removes the files it created, so a failed batch leaves
// the folder as it found it. Messages name the file and the reason; they speak of figures because
// figures are what is saved this way.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <functional>

namespace attn {

// Makes the bytes of file `index` (in the order of the names) just before it is written. On
// failure it returns false with `error` set to a whole message for the user.
using FileBytes = std::function<bool(qsizetype index, QByteArray& bytes, QString& error)>;

// Writes `bytes` to `path`. `kind` names the content in messages ("PNG", "CSV"). False with a
// message when `path` exists (unless overwrite), is a folder, or its folder is missing, or the
// write fails (disk full); nothing is left at `path` then.
bool saveFile(const QString& path, const QString& kind, const QByteArray& bytes, bool overwrite,
              QString* error);

// The files of `names` that already exist in `dir` (to ask before replacing them).
QStringList existingFiles(const QString& dir, const QStringList& names);

// Writes each of `names` into `dir` (created if missing) with the bytes `produce` makes, through
// saveFile. *written gets the paths in order; all or nothing (see above), empty on failure.
bool saveFileBatch(const QString& dir, const QStringList& names, const QString& kind,
                   bool overwrite, const FileBytes& produce, QStringList* written, QString* error);

}  // namespace attn
