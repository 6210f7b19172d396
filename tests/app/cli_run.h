// Runs the built attention-cli in a child process, as a user or a script would, for the CLI
// suites (test_cli, test_cli_export). ATTENTION_CLI_PATH is set by tests/app/CMakeLists.txt.
#pragma once

#include <signal.h>
#include <sys/resource.h>

#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#ifndef ATTENTION_CLI_PATH
#error "ATTENTION_CLI_PATH must name the attention-cli executable (see tests/app/CMakeLists.txt)"
#endif

struct CliRun {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QStringList lines() const {
        return QString::fromUtf8(out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }
};

// Without a display (no DISPLAY, WAYLAND_DISPLAY or QT_QPA_PLATFORM), as on a build server.
// fileSizeLimit > 0 makes every file write past that many bytes fail (EFBIG, "File too large"),
// the way a full disk fails a write part-way. A run that does not end within timeoutMs is killed
// and reported as such. A locale ("de_DE.UTF-8") runs it with LC_ALL set to it and no LANG. A
// launcher ({"qemu-x86_64", "-cpu", "Conroe"}) starts attention-cli through that program.
inline CliRun runCli(const QStringList& args, qint64 fileSizeLimit = 0, int timeoutMs = 240000,
                     const QString& locale = QString(), const QStringList& launcher = {}) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QString::fromLatin1(name));
    if (!locale.isEmpty()) {
        for (const char* name : {"LANG", "LANGUAGE"}) env.remove(QString::fromLatin1(name));
        env.insert(QStringLiteral("LC_ALL"), locale);
    }
    process.setProcessEnvironment(env);
    if (fileSizeLimit > 0) {
        process.setChildProcessModifier([fileSizeLimit] {
            // Without the signal's default action (terminate) the write returns EFBIG.
            ::signal(SIGXFSZ, SIG_IGN);
            const rlimit limit{static_cast<rlim_t>(fileSizeLimit),
                               static_cast<rlim_t>(fileSizeLimit)};
            ::setrlimit(RLIMIT_FSIZE, &limit);
        });
    }
    if (launcher.isEmpty())
        process.start(QStringLiteral(ATTENTION_CLI_PATH), args);
    else
        process.start(launcher.first(),
                      launcher.mid(1) + QStringList{QStringLiteral(ATTENTION_CLI_PATH)} + args);
    CliRun run;
    if (!process.waitForFinished(timeoutMs) || process.exitStatus() != QProcess::NormalExit) {
        process.kill();
        run.err = "attention-cli did not finish normally";
        return run;
    }
    run.exitCode = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}
