// attn-save-loop: saves example files in a loop until it is killed; test_bad_input kills it with
// SIGKILL at random moments to check that saving is atomic.
//
//   attn-save-loop PATH          saveExampleFile (QSaveFile), the app's way; alternates the "new"
//                                and the "previous" example of save_loop_example.h, new first
//   attn-save-loop PATH --plain  the naive way, QFile truncate + write in 4 KiB pieces: the test
//                                uses it to show that it does catch a non-atomic save
//
// Prints "ready" once both files are prepared and "saved N" after each save.
#include <QCoreApplication>
#include <QFile>
#include <QStringList>
#include <algorithm>
#include <cstdio>

#include "save_loop_example.h"

namespace {

bool savePlain(const QByteArray& bytes, const QString& path) {
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        return false;
    }
    constexpr qsizetype kPiece = 4096;
    for (qsizetype at = 0; at < bytes.size(); at += kPiece) {
        if (out.write(bytes.constData() + at, std::min(kPiece, bytes.size() - at)) < 0 ||
            !out.flush()) {
            return false;
        }
    }
    return true;
}

}  // namespace

int main(int argc, char* argv[]) {
    QCoreApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 2) {
        std::fprintf(stderr, "usage: attn-save-loop PATH [--plain]\n");
        return 2;
    }
    const QString path = args.at(1);
    const bool plain = args.contains(QStringLiteral("--plain"));
    const attn::ExampleFile files[2] = {saveLoopExample(1), saveLoopExample(0)};
    const QByteArray bytes[2] = {attn::serializeExampleFile(files[0]),
                                 attn::serializeExampleFile(files[1])};
    std::printf("ready\n");
    std::fflush(stdout);
    for (long n = 1;; ++n) {
        const int which = static_cast<int>((n - 1) % 2);
        QString error;
        const bool ok = plain ? savePlain(bytes[which], path)
                              : attn::saveExampleFile(files[which], path, &error);
        if (!ok) {
            std::fprintf(stderr, "attn-save-loop: save %ld failed: %s\n", n, qPrintable(error));
            return 1;
        }
        std::printf("saved %ld\n", n);
        std::fflush(stdout);
    }
}
