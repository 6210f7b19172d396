// Peak resident memory of this process, for the `--summary` outputs.
#include <QByteArray>
#include <QFile>

#include "cli_command.h"

// VmHWM, the high-water mark of this process's own resident set. getrusage's ru_maxrss would
// carry over the peak of a large parent that forked and exec'd the CLI (it survives exec).
double peakResidentMegabytes() {
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly)) return 0.0;
    const QByteArray text = status.readAll();
    for (const QByteArray& line : text.split('\n')) {
        if (!line.startsWith("VmHWM:")) continue;
        const QByteArray kb = line.mid(6).trimmed().split(' ').value(0);  // "123456 kB"
        bool ok = false;
        const double value = kb.toDouble(&ok);
        return ok ? value / 1024.0 : 0.0;
    }
    return 0.0;
}
