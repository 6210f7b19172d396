// attention-cli prints the same bytes under a German locale as under C: every number goes through
// model/number_format.h, never through the locale ("0.9544", not "0,9544").
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.h"

namespace {

// The run of `args` with LC_ALL and LANG set to `locale`.
CliRun runIn(const char* locale, const QStringList& args) {
    qputenv("LC_ALL", locale);
    qputenv("LANG", locale);
    return runCli(args);
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace

class TestCliLocale : public QObject {
    Q_OBJECT

private slots:
    void computeIsTheSameInGerman() {
        const QStringList args = {QStringLiteral("compute"), QStringLiteral("--module"),
                                  QStringLiteral("causal-attention")};
        const CliRun c = runIn("C", args);
        const CliRun german = runIn("de_DE.UTF-8", args);
        QCOMPARE(c.exitCode, 0);
        QCOMPARE(german.exitCode, 0);
        // Weights such as 0.4833 (the tutorial's) are printed with a point.
        QVERIFY(c.out.contains("0.4"));
        QCOMPARE(german.out, c.out);
    }

    void exportedCsvIsTheSameInGerman() {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const QString cDir = root.filePath(QStringLiteral("c"));
        const QString germanDir = root.filePath(QStringLiteral("de"));
        const auto args = [](const QString& dir) {
            return QStringList{
                QStringLiteral("export"), QStringLiteral("--out"), dir,
                QStringLiteral("--step"), QStringLiteral("11"),    QStringLiteral("--format"),
                QStringLiteral("csv")};
        };
        const CliRun c = runIn("C", args(cDir));
        const CliRun german = runIn("de_DE.UTF-8", args(germanDir));
        QCOMPARE(c.exitCode, 0);
        QCOMPARE(german.exitCode, 0);
        // The same list of files written, each in its own folder.
        QCOMPARE(QString::fromUtf8(german.out).replace(germanDir, QStringLiteral("DIR")),
                 QString::fromUtf8(c.out).replace(cDir, QStringLiteral("DIR")));
        const QStringList files = QDir(cDir).entryList(QDir::Files, QDir::Name);
        QVERIFY(!files.isEmpty());
        QCOMPARE(QDir(germanDir).entryList(QDir::Files, QDir::Name), files);
        bool anyDecimal = false;
        for (const QString& name : files) {
            const QByteArray bytes = readAll(QDir(cDir).filePath(name));
            QCOMPARE(readAll(QDir(germanDir).filePath(name)), bytes);
            anyDecimal = anyDecimal || bytes.contains("0.");
        }
        QVERIFY(anyDecimal);
    }
};

QTEST_MAIN(TestCliLocale)
#include "test_cli_locale.moc"
