// Writing a file so that it is either the complete new version or the untouched old one (a
// crash, a full disk or a kill mid-save never leaves half a file): the one way the app saves
// example files, figures and CSV. Qt Core only, so the command-line tools use it too.
#pragma once

#include <QByteArray>
#include <QIODevice>
#include <QString>
#include <functional>

namespace attn {

// Writes all of `bytes` to `device`. A write that runs out of disk space first comes back short
// without an error; writing the rest then fails with the system's reason.
bool writeAll(QIODevice& device, const QByteArray& bytes);

// Opens `path` through QSaveFile, lets `write` fill it (returning false, with a reason if it has
// one, on failure), flushes and commits. On failure nothing is left at `path` (an existing file
// stays as it was) and *reason, if given, holds why ("No space left on device", ...).
bool writeFileAtomically(const QString& path,
                         const std::function<bool(QIODevice& device, QString& reason)>& write,
                         QString* reason = nullptr);
bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* reason = nullptr);

}  // namespace attn
