#include "app/io/atomic_file.h"

#include <QSaveFile>

namespace attn {

bool writeAll(QIODevice& device, const QByteArray& bytes) {
    qint64 done = 0;
    while (done < bytes.size()) {
        const qint64 n = device.write(bytes.constData() + done, bytes.size() - done);
        if (n <= 0) return false;
        done += n;
    }
    return true;
}

bool writeFileAtomically(const QString& path,
                         const std::function<bool(QIODevice&, QString&)>& write, QString* reason) {
    const auto fail = [&](const QString& why) {
        if (reason) *reason = why;
        return false;
    };
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return fail(file.errorString());
    QString why;
    if (!write(file, why)) {
        if (why.isEmpty()) why = file.errorString();
        file.cancelWriting();
        return fail(why);
    }
    // QSaveFile::commit() ignores a failure of the final flush of its buffer and would keep a
    // truncated file (a full disk, a file size limit): flush first and check.
    if (!file.flush()) {
        why = file.errorString();
        file.cancelWriting();
        return fail(why);
    }
    if (!file.commit()) return fail(file.errorString());
    return true;
}

bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* reason) {
    return writeFileAtomically(
        path,
        [&](QIODevice& device, QString& why) {
            if (writeAll(device, bytes)) return true;
            why = device.errorString();
            return false;
        },
        reason);
}

}  // namespace attn
