// What the kernel says of this process's memory (Linux's /proc and /sys), for tests that check
// where loaded weights live.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QStringList>

namespace model_test {

// The /proc/self/smaps block of the mapping holding `p`: its header line (with the file's path
// for a file mapping) and its fields; empty when no mapping holds it.
inline QStringList smapsBlockOf(const void* p) {
    QFile smaps(QStringLiteral("/proc/self/smaps"));
    if (!smaps.open(QIODevice::ReadOnly | QIODevice::Text)) return {};
    const auto at = reinterpret_cast<quintptr>(p);
    QStringList block;
    bool inside = false;
    for (const QByteArray& raw : smaps.readAll().split('\n')) {
        const QString line = QString::fromUtf8(raw);
        const qsizetype dash = line.indexOf(u'-');
        const qsizetype space = line.indexOf(u' ');
        bool lowOk = false, highOk = false;
        const quintptr low = dash > 0 ? line.left(dash).toULongLong(&lowOk, 16) : 0;
        const quintptr high = dash > 0 && space > dash
                                  ? line.mid(dash + 1, space - dash - 1).toULongLong(&highOk, 16)
                                  : 0;
        if (lowOk && highOk) {  // a mapping's header line
            if (inside) break;
            inside = low <= at && at < high;
        }
        if (inside) block << line;
    }
    return block;
}

// THP's mode, "always", "madvise" or "never" (the bracketed word), empty when unknown.
inline QString transparentHugePages() {
    QFile f(QStringLiteral("/sys/kernel/mm/transparent_hugepage/enabled"));
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QString text = QString::fromUtf8(f.readAll());
    const qsizetype open = text.indexOf(u'['), close = text.indexOf(u']');
    return open >= 0 && close > open ? text.mid(open + 1, close - open - 1) : QString();
}

}  // namespace model_test
