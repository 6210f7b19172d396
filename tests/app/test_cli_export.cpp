// attention-cli export end to end: the built executable, started without a display,
// writes one figure per heatmap with predictable names and prints them; formats, size, scale and
// language arrive in the files; an existing file is refused without --force, an unwritable folder
// and a failing write end with status 2 and leave no file behind; --help lists the options.
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include "cli_run.h"
#include "tests/test_files.h"

namespace {

// attention-cli export ARGS.
CliRun runExport(const QStringList& args, qint64 fileSizeLimit = 0) {
    return runCli(QStringList{QStringLiteral("export")} + args, fileSizeLimit);
}

QString describe(const CliRun& run) {
    return QStringLiteral("exit %1\nstdout: %2\nstderr: %3")
        .arg(run.exitCode)
        .arg(QString::fromUtf8(run.out.left(2000)), QString::fromUtf8(run.err.left(2000)));
}

// The whole walkthrough exports one figure per heatmap, the steps with frames at their last
// frame. Counted from `attention-cli steps` (distinct matrices per step, those of a frame step's
// last frame), steps 1 to 20: 1 + 3 + 7 + 3 + 4 + 3 + 7 + 10 + 6 + 4 + 5 + 3 + 6 + 9 + 6 + 7 =
// 84 for the tutorial, then 8 (GQA) + 4 (masks) + 7 (RoPE) + 7 (tiles) = 110.
constexpr int kWalkthroughFigures = 110;
// Step 11 (causal-softmax): scores, masked scores, causal weights, renormalised weights and the
// difference of the two methods.
constexpr int kStep11Figures = 5;

QStringList svgTexts(const QByteArray& svg) {
    QXmlStreamReader xml(svg);
    QStringList texts;
    while (!xml.atEnd())
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("text"))
            texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
    return xml.hasError() ? QStringList() : texts;
}

}  // namespace

class TestCliExport : public QObject {
    Q_OBJECT

private slots:
    void wholeWalkthroughWithoutDisplay();
    void formats_data();
    void formats();
    void sizeAndScale();
    void chineseTitles();
    void exampleFile();
    void existingFileNeedsForce();
    void unwritableFolder_data();
    void unwritableFolder();
    void failedWriteRemovesEverything();
    void badOptions_data();
    void badOptions();
    void helpListsOptions();
};

void TestCliExport::wholeWalkthroughWithoutDisplay() {
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString dir = root.filePath("figures");  // created by the export
    const CliRun run = runExport({"--out", dir});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QStringList files = run.lines();
    QCOMPARE(files.size(), kWalkthroughFigures);
    QCOMPARE(folderEntries(dir).size(), kWalkthroughFigures);  // one per heatmap, nothing else
    const QRegularExpression name("/step-(0[1-9]|1[0-9]|20)-[A-Za-z0-9_-]+\\.png$");
    QSet<QString> seen;
    for (const QString& file : files) {
        QVERIFY2(name.match(file).hasMatch(), qPrintable(file));
        QVERIFY2(QFileInfo(file).absolutePath() == QFileInfo(dir).absoluteFilePath(),
                 qPrintable(file));
        seen.insert(QFileInfo(file).fileName());
        const QImage image(file);
        QVERIFY2(!image.isNull() && image.width() >= 320 && image.height() >= 240,
                 qPrintable(file));
    }
    for (const char* wanted :
         {"step-01-inputs.png", "step-11-causal-weights.png", "step-14-head-2.png",
          "step-15-cross-weights.png", "step-16-new-weights-head-1.png",
          "step-17-gqa-weights-head-4.png", "step-18-mask-weights.png", "step-19-rope-scores.png",
          "step-20-tiled-context.png"})
        QVERIFY2(seen.contains(QString::fromLatin1(wanted)), wanted);
}

void TestCliExport::formats_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<QByteArray>("magic");
    QTest::newRow("svg") << "svg" << QByteArray("<?xml");
    QTest::newRow("pdf") << "pdf" << QByteArray("%PDF-");
    QTest::newRow("csv") << "csv" << QByteArray(",Your,journey,starts,with,one,step\r\n");
}

void TestCliExport::formats() {
    QFETCH(QString, format);
    QFETCH(QByteArray, magic);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const CliRun run =
        runExport({"--out", dir.path(), "--step", "causal-softmax", "--format", format});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(run.lines().size(), kStep11Figures);
    for (const QString& file : run.lines()) {
        QVERIFY2(file.endsWith("." + format), qPrintable(file));
        QVERIFY2(readFile(file).startsWith(magic), qPrintable(file));
    }
    QVERIFY(run.lines().contains(QDir(dir.path()).filePath("step-11-causal-weights." + format)));
}

void TestCliExport::sizeAndScale() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const CliRun run = runExport({"--out", dir.path(), "--step", "14", "--matrix", "head-2",
                                  "--size", "640x480", "--scale", "2"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(run.lines(), QStringList{QDir(dir.path()).filePath("step-14-head-2.png")});
    const QImage image(run.lines().first());
    QCOMPARE(image.size(), QSize(1280, 960));
}

// The same figure in English and in Chinese: only the title changes, into Chinese characters.
void TestCliExport::chineseTitles() {
    QTemporaryDir en;
    QTemporaryDir zh;
    QVERIFY(en.isValid() && zh.isValid());
    const QStringList common{"--step", "15", "--matrix", "cross-weights", "--format", "svg"};
    const CliRun english = runExport(QStringList{"--out", en.path()} + common);
    const CliRun chinese = runExport(QStringList{"--out", zh.path(), "--lang", "zh_CN"} + common);
    QVERIFY2(english.exitCode == 0, qPrintable(describe(english)));
    QVERIFY2(chinese.exitCode == 0, qPrintable(describe(chinese)));
    const QStringList enTexts = svgTexts(readFile(english.lines().value(0)));
    const QStringList zhTexts = svgTexts(readFile(chinese.lines().value(0)));
    QVERIFY(!enTexts.isEmpty());
    QCOMPARE(zhTexts.size(), enTexts.size());
    for (const char* token : {"Your", "journey", "你的", "一步"})
        QVERIFY2(zhTexts.contains(QString::fromUtf8(token)), token);
    const QSet<QString> onlyChinese = QSet<QString>(zhTexts.begin(), zhTexts.end()) -
                                      QSet<QString>(enTexts.begin(), enTexts.end());
    QCOMPARE(onlyChinese.size(), 2);  // the title and the colour bar's range ("this matrix: …")
    static const QRegularExpression cjk(QStringLiteral("[\\x{4e00}-\\x{9fff}]"));
    for (const QString& text : onlyChinese) QVERIFY2(cjk.match(text).hasMatch(), qPrintable(text));
}

void TestCliExport::exampleFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString example = dir.filePath("example.json");
    QVERIFY(writeFile(example, R"({"tokens": ["a", "b", "c"],
        "embeddings": [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]]})"));
    const QString out = dir.filePath("figures");
    const CliRun run = runExport({"--out", out, "--example", example, "--step", "5", "--matrix",
                                  "attn-weights", "--format", "csv"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QByteArray csv = readFile(QDir(out).filePath("step-05-attn-weights.csv"));
    QVERIFY2(csv.startsWith(",a,b,c\r\na,"), csv.constData());
    QCOMPARE(csv.count('\n'), 4);
}

void TestCliExport::existingFileNeedsForce() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QStringList args{"--out", dir.path(), "--step", "11"};
    const CliRun first = runExport(args);
    QVERIFY2(first.exitCode == 0, qPrintable(describe(first)));
    const QString kept = QDir(dir.path()).filePath("step-11-method-difference.png");
    QVERIFY(writeFile(kept, "keep me"));
    const QString other = QDir(dir.path()).filePath("step-11-attn-scores.png");
    QVERIFY(QFile::remove(other));

    const CliRun second = runExport(args);
    QCOMPARE(second.exitCode, 2);
    QVERIFY(second.out.isEmpty());
    QVERIFY2(second.err.contains("already exists") && second.err.contains("--force"),
             second.err.constData());
    QVERIFY2(second.err.contains(QDir(dir.path()).filePath("step-11-").toUtf8()),
             second.err.constData());
    QCOMPARE(readFile(kept), QByteArray("keep me"));
    QVERIFY(!QFileInfo::exists(other));  // nothing written when anything is refused

    const CliRun forced = runExport(args + QStringList{"--force"});
    QVERIFY2(forced.exitCode == 0, qPrintable(describe(forced)));
    QCOMPARE(forced.lines().size(), 5);
    QVERIFY(readFile(kept).startsWith("\x89PNG"));
    QVERIFY(QFileInfo::exists(other));
}

void TestCliExport::unwritableFolder_data() {
    QTest::addColumn<QString>("where");
    QTest::addColumn<QByteArray>("message");
    // Both fail for root too (unlike a read-only folder, which root can write).
    QTest::newRow("--out is a file") << "file" << QByteArray("is a file, not a folder");
    QTest::newRow("--out inside a file")
        << "inside-file" << QByteArray("Could not create the folder");
}

void TestCliExport::unwritableFolder() {
    QFETCH(QString, where);
    QFETCH(QByteArray, message);
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString file = root.filePath("plain-file");
    QVERIFY(writeFile(file, "not a folder"));
    const QString out = where == "file" ? file : file + "/figures";
    const CliRun run = runExport({"--out", out, "--step", "11"});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.startsWith("attention-cli: export: ") ||
                 run.err.contains("\nattention-cli: export: "),
             run.err.constData());
    QVERIFY2(run.err.contains(message), run.err.constData());
    QVERIFY2(run.err.contains(out.toUtf8()), run.err.constData());
    QCOMPARE(folderEntries(root.path()), QStringList{"plain-file"});
    QCOMPARE(readFile(file), QByteArray("not a folder"));
}

// A write that fails part-way (here: files may not grow past 40 kB, as when the disk fills up):
// the figure being written is not left half-written, and the ones written before it are removed.
void TestCliExport::failedWriteRemovesEverything() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const CliRun run = runExport({"--out", dir.path()}, 40000);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.out.isEmpty(), run.out.constData());
    QVERIFY2(run.err.contains("Could not save PNG to"), run.err.constData());
    QVERIFY2(run.err.contains("File too large"), run.err.constData());  // the system's reason
    QVERIFY2(run.err.contains("removed again"), run.err.constData());
    QCOMPARE(folderEntries(dir.path()), QStringList());
}

void TestCliExport::badOptions_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no --out") << QStringList{"--step", "11"} << "give --out DIR";
    QTest::newRow("unknown format")
        << QStringList{"--format", "gif"} << "--format \"gif\" is unknown";
    QTest::newRow("size too small") << QStringList{"--size", "10x10"} << "outside 100..8000";
    QTest::newRow("size not WxH") << QStringList{"--size", "big"} << "is not WIDTHxHEIGHT";
    QTest::newRow("scale above 4") << QStringList{"--scale", "5"} << "not a number from 1 to 4";
    QTest::newRow("scale not a number")
        << QStringList{"--scale", "two"} << "not a number from 1 to 4";
    QTest::newRow("scale for svg")
        << QStringList{"--format", "svg", "--scale", "2"} << "--scale applies to PNG only";
    QTest::newRow("step 99") << QStringList{"--step", "99"} << "--step \"99\" is not a step";
    QTest::newRow("unknown step id") << QStringList{"--step", "softmax"} << "causal-softmax";
    QTest::newRow("unknown matrix")
        << QStringList{"--step", "11", "--matrix", "head-2"} << "--matrix \"head-2\" is not shown";
    QTest::newRow("unknown colour map")
        << QStringList{"--colormap", "jet"} << "viridis, cividis, magma, diverging";
    QTest::newRow("unknown language") << QStringList{"--lang", "fr"} << "give en or zh_CN";
    QTest::newRow("unknown option") << QStringList{"--bogus"} << "Unknown option 'bogus'";
    QTest::newRow("stray argument") << QStringList{"figures"} << "unexpected argument \"figures\"";
}

void TestCliExport::badOptions() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString out = root.filePath("figures");
    if (QString(QTest::currentDataTag()) != "no --out") args = QStringList{"--out", out} + args;
    const CliRun run = runExport(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
    QVERIFY(!QFileInfo::exists(out));  // refused before anything is created
}

void TestCliExport::helpListsOptions() {
    const CliRun run = runExport({"--help"});
    QCOMPARE(run.exitCode, 0);
    const QString help = QString::fromUtf8(run.out);
    QVERIFY(help.startsWith("Usage: attention-cli export [options]"));
    for (const char* option :
         {"--out <DIR>", "--step <ID>", "--matrix <ID>", "--format <FORMAT>", "--size <WxH>",
          "--scale <N>", "--lang <L>", "--colormap <NAME>", "--no-title", "--no-values",
          "--transparent", "--example <FILE>", "--force"})
        QVERIFY2(help.contains(QString::fromLatin1(option)), option);

    QProcess top;
    top.start(QStringLiteral(ATTENTION_CLI_PATH), {"--help"});
    QVERIFY(top.waitForFinished(60000));
    QCOMPARE(top.exitCode(), 0);
    const QString topHelp = QString::fromUtf8(top.readAllStandardOutput());
    QVERIFY2(topHelp.contains(QRegularExpression("\\n  export +Save the walkthrough's heatmaps")),
             qPrintable(topHelp));
}

QTEST_APPLESS_MAIN(TestCliExport)
#include "test_cli_export.moc"
