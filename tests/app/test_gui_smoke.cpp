// Smoke test of the real attention-visualizer binary (issue #3): started under Xvfb (a real X
// server, not the offscreen platform), it must show its window, walk through every step and save
// one screenshot per step. The test fails when the window does not appear, a screenshot is
// missing, has the wrong size or is blank. The PNGs stay in the build folder for a person to see.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#ifndef ATTN_GUI_BINARY
#error "ATTN_GUI_BINARY must name the attention-visualizer executable"
#endif
#ifndef ATTN_SCREENSHOT_DIR
#error "ATTN_SCREENSHOT_DIR must name the output folder"
#endif

namespace {

constexpr int kSteps = 16;
const QSize kWindow(1400, 900);

// Distinct colours over a grid of samples: a blank or single-colour grab has one or two.
int distinctColours(const QImage& image) {
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
    return static_cast<int>(colours.size());
}

}  // namespace

class TestGuiSmoke : public QObject {
    Q_OBJECT

private slots:
    void walkScreenshots_data();
    void walkScreenshots();
    void helpNeedsNoDisplay();
};

void TestGuiSmoke::walkScreenshots_data() {
    QTest::addColumn<QString>("language");
    QTest::addColumn<int>("exampleTokens");  // 0: the tutorial's example
    QTest::addColumn<int>("exampleWidth");
    QTest::newRow("en") << QStringLiteral("en") << 0 << 0;
    QTest::newRow("zh_CN") << QStringLiteral("zh_CN") << 0 << 0;
    // --example with 32 tokens of width 96: the app exited at start-up before (#4).
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
                    QStringLiteral(ATTN_GUI_BINARY),
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
    QVERIFY2(app.waitForFinished(180000), "attention-visualizer --walk did not finish in 3 min");
    const QString output = QString::fromLocal8Bit(app.readAll());
    QVERIFY2(app.exitStatus() == QProcess::NormalExit && app.exitCode() == 0,
             qPrintable(QStringLiteral("exit code %1:\n%2").arg(app.exitCode()).arg(output)));

    for (int n = 1; n <= kSteps; ++n) {
        const QString path =
            dir.filePath(QStringLiteral("step-%1.png").arg(n, 2, 10, QLatin1Char('0')));
        QImage image(path);
        QVERIFY2(!image.isNull(), qPrintable(QStringLiteral("missing or unreadable: ") + path));
        QCOMPARE(image.size(), kWindow);
        const int colours = distinctColours(image);
        QVERIFY2(colours > 50,
                 qPrintable(QStringLiteral("%1 looks blank: %2 colours").arg(path).arg(colours)));
    }
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("step-17.png"))));
}

void TestGuiSmoke::helpNeedsNoDisplay() {
    // --help, --version and mistakes are answered before the GUI starts: no X server here.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    auto run = [&env](const QStringList& args, int* code) {
        QProcess app;
        app.setProcessEnvironment(env);
        app.start(QStringLiteral(ATTN_GUI_BINARY), args);
        app.waitForFinished(30000);
        *code = app.exitStatus() == QProcess::NormalExit ? app.exitCode() : -1;
        return QString::fromLocal8Bit(app.readAllStandardOutput() + app.readAllStandardError());
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
    const QString tooFar = run({QStringLiteral("--step"), QStringLiteral("17")}, &code);
    QCOMPARE(code, 2);
    QVERIFY2(tooFar.contains(QStringLiteral("16 steps")), qPrintable(tooFar));
    const QString missing =
        run({QStringLiteral("--example"), QStringLiteral("/nonexistent/example.json")}, &code);
    QCOMPARE(code, 1);
    QVERIFY2(missing.contains(QStringLiteral("/nonexistent/example.json")), qPrintable(missing));
}

QTEST_GUILESS_MAIN(TestGuiSmoke)
#include "test_gui_smoke.moc"
