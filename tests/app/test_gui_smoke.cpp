// Smoke test of the app's start-up: attention-visualizer-shots (the app's own start-up with a
// screenshot hook, tests/app/screenshot_main.cpp) started under Xvfb (a real X server, not the
// offscreen platform) must show the window, walk through every step and save one screenshot per
// step. The test fails when the window does not appear, or a screenshot is missing, has the wrong
// size, is blank, shows no heatmap cells in the colour maps' colours, or looks the same as the
// previous step's. The PNGs stay in the build folder for a person to see. The installed
// attention-visualizer answers --help without a display and refuses the screenshot options.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "screenshot_checks.h"

#ifndef ATTN_GUI_BINARY
#error "ATTN_GUI_BINARY must name the attention-visualizer executable"
#endif
#ifndef ATTN_SHOTS_BINARY
#error "ATTN_SHOTS_BINARY must name the attention-visualizer-shots executable"
#endif
#ifndef ATTN_SCREENSHOT_DIR
#error "ATTN_SCREENSHOT_DIR must name the output folder"
#endif

namespace {

constexpr int kSteps = 20;  // the tutorial's 16, then the GQA, masks, RoPE and tiles chapters
const QSize kWindow(1400, 900);
// The step page: right of the step list (250 px at the start) and below the menu bar; its top
// holds the step's title and explanation.
const QRect kPageArea(300, 40, kWindow.width() - 300, kWindow.height() - 40);
const QRect kTitleArea(260, 25, kWindow.width() - 260, 140);

// Runs `program` with no display at all; returns what it printed, its exit code in *code.
QString runWithoutDisplay(const QString& program, const QStringList& args, int* code) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    QProcess app;
    app.setProcessEnvironment(env);
    app.start(program, args);
    app.waitForFinished(30000);
    *code = app.exitStatus() == QProcess::NormalExit ? app.exitCode() : -1;
    return QString::fromLocal8Bit(app.readAllStandardOutput() + app.readAllStandardError());
}

}  // namespace

class TestGuiSmoke : public QObject {
    Q_OBJECT

private slots:
    void walkScreenshots_data();
    void walkScreenshots();
    void helpNeedsNoDisplay();
    void screenshotOptionsAreTestOnly();
};

void TestGuiSmoke::walkScreenshots_data() {
    QTest::addColumn<QString>("language");
    QTest::addColumn<int>("exampleTokens");  // 0: the tutorial's example
    QTest::addColumn<int>("exampleWidth");
    QTest::newRow("en") << QStringLiteral("en") << 0 << 0;
    QTest::newRow("zh_CN") << QStringLiteral("zh_CN") << 0 << 0;
    // --example with 32 tokens of width 96: the app once exited at start-up with it.
    QTest::newRow("en, --example 32 x 96") << QStringLiteral("en") << 32 << 96;
}

void TestGuiSmoke::walkScreenshots() {
    QFETCH(QString, language);
    QFETCH(int, exampleTokens);
    QFETCH(int, exampleWidth);
    QStringList exampleArgs;
    QTemporaryDir exampleDir;
    if (exampleTokens > 0) {
        QJsonArray tokens, embeddings;
        for (int t = 0; t < exampleTokens; ++t) {
            tokens.append(QStringLiteral("t%1").arg(t + 1));
            QJsonArray row;
            for (int c = 0; c < exampleWidth; ++c) row.append(((t * 31 + c * 17) % 100) / 100.0);
            embeddings.append(row);
        }
        QJsonObject config{{QStringLiteral("module"), QStringLiteral("multi-head-attention")},
                           {QStringLiteral("d_out"), exampleWidth},
                           {QStringLiteral("num_heads"), 12}};
        const QJsonObject file{{QStringLiteral("tokens"), tokens},
                               {QStringLiteral("embeddings"), embeddings},
                               {QStringLiteral("config"), config}};
        QFile out(exampleDir.filePath(QStringLiteral("wide.json")));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(file).toJson());
        out.close();
        exampleArgs = {QStringLiteral("--example"), out.fileName()};
    }
    // Each row its own screenshot folder.
    const QString folder = exampleTokens > 0 ? language + QStringLiteral("-example") : language;
    const QString xvfbRun = QStandardPaths::findExecutable(QStringLiteral("xvfb-run"));
    QVERIFY2(!xvfbRun.isEmpty(), "xvfb-run is not installed (Debian package xvfb)");
    QDir dir(QStringLiteral(ATTN_SCREENSHOT_DIR "/") + folder);
    QVERIFY(dir.removeRecursively());
    QVERIFY(QDir().mkpath(dir.path()));

    QProcess app;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // ctest runs the suites offscreen; this one wants the X server xvfb-run starts.
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    env.remove(QStringLiteral("DISPLAY"));
    app.setProcessEnvironment(env);
    app.setProcessChannelMode(QProcess::MergedChannels);
    const QStringList args =
        QStringList{QStringLiteral("-a"),
                    QStringLiteral("-s"),
                    QStringLiteral("-screen 0 1600x1000x24"),
                    QStringLiteral(ATTN_SHOTS_BINARY),
                    QStringLiteral("--lang"),
                    language,
                    QStringLiteral("--screenshot-dir"),
                    dir.path(),
                    QStringLiteral("--walk"),
                    QStringLiteral("--window-size"),
                    QStringLiteral("%1x%2").arg(kWindow.width()).arg(kWindow.height())} +
        exampleArgs;
    app.start(xvfbRun, args);
    QVERIFY2(app.waitForStarted(10000), qPrintable(app.errorString()));
    QVERIFY2(app.waitForFinished(180000),
             "attention-visualizer-shots --walk did not finish in 3 min");
    const QString output = QString::fromLocal8Bit(app.readAll());
    QVERIFY2(app.exitStatus() == QProcess::NormalExit && app.exitCode() == 0,
             qPrintable(QStringLiteral("exit code %1:\n%2").arg(app.exitCode()).arg(output)));

    QImage previous;
    for (int n = 1; n <= kSteps; ++n) {
        const QString path =
            dir.filePath(QStringLiteral("step-%1.png").arg(n, 2, 10, QLatin1Char('0')));
        QImage image(path);
        QVERIFY2(!image.isNull(), qPrintable(QStringLiteral("missing or unreadable: ") + path));
        QCOMPARE(image.size(), kWindow);
        const int colours = shots::distinctColours(image);
        QVERIFY2(colours > 50,
                 qPrintable(QStringLiteral("%1 looks blank: %2 colours").arg(path).arg(colours)));
        // Every step shows heatmaps: cells in viridis or the diverging map, several cells' worth
        // (a 40 × 30 px cell is about 130 samples).
        const int cells = shots::colourMapPixels(image, kPageArea);
        QVERIFY2(cells > 1000,
                 qPrintable(QStringLiteral("%1 shows no heatmap cells: %2 samples in the maps' "
                                           "colours")
                                .arg(path)
                                .arg(cells)));
        // Each step is a page of its own: its title and explanation change from the last step's
        // (the matrices may not: steps 4 and 5 both open with the inputs).
        if (!previous.isNull()) {
            const int changed = shots::differingPixels(previous, image, kTitleArea);
            const int all = shots::sampleCount(image, kTitleArea);
            QVERIFY2(changed * 20 > all,
                     qPrintable(QStringLiteral("%1 barely differs from the previous step: %2 of "
                                               "%3 samples")
                                    .arg(path)
                                    .arg(changed)
                                    .arg(all)));
        }
        previous = image;
    }
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("step-21.png"))));
}

void TestGuiSmoke::helpNeedsNoDisplay() {
    // --help, --version and mistakes are answered before the GUI starts: no X server here.
    auto run = [](const QStringList& args, int* code) {
        return runWithoutDisplay(QStringLiteral(ATTN_GUI_BINARY), args, code);
    };
    int code = -1;
    const QString help = run({QStringLiteral("--help")}, &code);
    QCOMPARE(code, 0);
    for (const char* option : {"--step", "--lang", "--example", "--version"})
        QVERIFY2(help.contains(QLatin1String(option)), qPrintable(help));
    const QString version = run({QStringLiteral("--version")}, &code);
    QCOMPARE(code, 0);
    QVERIFY2(version.startsWith(QStringLiteral("attention-visualizer ")), qPrintable(version));
    const QString wrong = run({QStringLiteral("--lang"), QStringLiteral("fr")}, &code);
    QCOMPARE(code, 2);
    QVERIFY2(wrong.contains(QStringLiteral("zh_CN")), qPrintable(wrong));
    const QString tooFar = run({QStringLiteral("--step"), QStringLiteral("21")}, &code);
    QCOMPARE(code, 2);
    QVERIFY2(tooFar.contains(QStringLiteral("20 steps")), qPrintable(tooFar));
    const QString missing =
        run({QStringLiteral("--example"), QStringLiteral("/nonexistent/example.json")}, &code);
    QCOMPARE(code, 1);
    QVERIFY2(missing.contains(QStringLiteral("/nonexistent/example.json")), qPrintable(missing));
}

// The screenshot options are the test program's: the installed app refuses them as it refuses
// any unknown option (exit status 2, before any display is needed), and the test program needs
// its folder.
void TestGuiSmoke::screenshotOptionsAreTestOnly() {
    const QString app = QStringLiteral(ATTN_GUI_BINARY);
    const QString shotsApp = QStringLiteral(ATTN_SHOTS_BINARY);
    int code = -1;
    const QString unknown = runWithoutDisplay(app, {QStringLiteral("--bogus")}, &code);
    QCOMPARE(code, 2);
    const QList<QStringList> testOnly{
        {QStringLiteral("--screenshot-dir"), QDir::tempPath()},
        {QStringLiteral("--walk")},
        {QStringLiteral("--window-size"), QStringLiteral("1400x900")}};
    for (const QStringList& args : testOnly) {
        const QString refused = runWithoutDisplay(app, args, &code);
        QCOMPARE(code, 2);
        const QString name = args.constFirst().mid(2);
        QCOMPARE(refused, QString(unknown).replace(QStringLiteral("bogus"), name));
    }
    const QString noFolder = runWithoutDisplay(shotsApp, {QStringLiteral("--walk")}, &code);
    QCOMPARE(code, 2);
    QVERIFY2(noFolder.contains(QStringLiteral("--screenshot-dir")), qPrintable(noFolder));
    const QStringList badSizeArgs{QStringLiteral("--screenshot-dir"), QDir::tempPath(),
                                  QStringLiteral("--window-size"), QStringLiteral("big")};
    const QString badSize = runWithoutDisplay(shotsApp, badSizeArgs, &code);
    QCOMPARE(code, 2);
    QVERIFY2(badSize.contains(QStringLiteral("WxH")), qPrintable(badSize));
}

QTEST_GUILESS_MAIN(TestGuiSmoke)
#include "test_gui_smoke.moc"
