// attention-visualizer: the guided walkthrough window.
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLocale>
#include <QSettings>
#include <QStandardPaths>
#include <QTimer>
#include <QWindow>
#include <cstdio>

#include "app/io/example_file.h"
#include "app/gui/explore_window.h"
#include "app/gui/gui_setup.h"
#include "views/language.h"
#include "app/gui/main_window.h"

namespace {

void printTo(FILE* stream, const QString& text) {
    const QByteArray bytes = text.toLocal8Bit();
    std::fwrite(bytes.constData(), 1, static_cast<std::size_t>(bytes.size()), stream);
    std::fflush(stream);
}

int fail(const QString& message, int code = 1) {
    printTo(stderr, QStringLiteral("attention-visualizer: %1\n").arg(message));
    return code;
}

// Waits for the window manager to map the window: a grab before that is blank.
bool waitForExposed(QWidget& window, int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        if (window.windowHandle() && window.windowHandle()->isExposed()) return true;
    }
    return false;
}

}  // namespace

int main(int argc, char* argv[]) {
    setApplicationIdentity();
    GuiParseResult parsed;
    {
        // Read the command line before the GUI starts, so --help, --version and mistakes are
        // answered without a display.
        const QCoreApplication probe(argc, argv);
        parsed = parseGuiOptions(QCoreApplication::arguments());
    }
    switch (parsed.status) {
        case GuiParseResult::Status::Help:
        case GuiParseResult::Status::Version:
            printTo(stdout, parsed.text);
            return 0;
        case GuiParseResult::Status::Error:
            return fail(parsed.text, 2);
        case GuiParseResult::Status::Ok:
            break;
    }
    const GuiOptions& options = parsed.options;
    // Screenshots must not move the user's remembered step or language.
    if (!options.screenshotDir.isEmpty()) QStandardPaths::setTestModeEnabled(true);

    // The engine needs no display either: a bad example file is reported before the GUI starts.
    // --example opens the file in explore mode too (issue #4); a malformed file opens the
    // tutorial's example and the explore window shows why.
    std::vector<attn::Step> steps;
    QString exampleError;
    try {
        if (options.exampleFile.isEmpty()) {
            steps = attn::build_walkthrough();
        } else {
            const ExampleParseResult example = loadExampleFile(options.exampleFile);
            if (example.ok()) {
                try {
                    steps = attn::build_walkthrough(example.file->inputs);
                } catch (const attn::AttentionError& e) {
                    // Explore mode still opens the file; the walkthrough falls back.
                    printTo(stderr, QStringLiteral("attention-visualizer: %1: the walkthrough "
                                                   "shows the tutorial's example: %2\n")
                                        .arg(options.exampleFile, QString::fromUtf8(e.what())));
                    steps = attn::build_walkthrough();
                }
            } else if (!QFileInfo::exists(options.exampleFile)) {
                // A mistyped path is a command-line error, answered without opening a window.
                return fail(QStringLiteral("%1: %2").arg(options.exampleFile, example.error));
            } else {
                exampleError = QStringLiteral("%1: %2").arg(options.exampleFile, example.error);
                printTo(stderr, QStringLiteral("attention-visualizer: %1\n").arg(exampleError));
                steps = attn::build_walkthrough();
            }
        }
    } catch (const attn::AttentionError& e) {
        return fail(QString::fromUtf8(e.what()));
    }
    if (options.step > static_cast<int>(steps.size()))
        return fail(QStringLiteral("--step %1: the walkthrough has %2 steps")
                        .arg(options.step)
                        .arg(steps.size()),
                    2);

    QApplication app(argc, argv);
    setupGuiApplication(app);
    MainWindow window(std::move(steps));
    QString language = options.language;
    if (language.isEmpty())
        language = QSettings().value(QStringLiteral("view/language")).toString();
    if (language.isEmpty()) language = views::normalizeLanguage(QLocale::system().name());
    window.setLanguage(language.isEmpty() ? QStringLiteral("en") : language);
    if (options.step > 0) window.goToStep(options.step);
    if (options.windowSize.isValid()) window.resize(options.windowSize);
    if (options.presentation)
        window.setPresentation(true);  // shows the window full screen
    else
        window.show();
    if (!options.exampleFile.isEmpty()) {
        ExploreWindow* explore = ExploreWindow::showFor(&window);
        if (exampleError.isEmpty())
            explore->openFile(options.exampleFile, /*quiet=*/true);
        else
            explore->showStartupMessage(
                QCoreApplication::translate("ExploreWindow",
                                            "%1 — showing the tutorial's example instead.")
                    .arg(exampleError));
    }

    if (options.screenshotDir.isEmpty()) return QApplication::exec();

    if (!waitForExposed(window, 10000)) return fail(QStringLiteral("the window did not appear"));
    QString error;
    bool ok = false;
    if (options.walk) {
        ok = window.saveWalkScreenshots(options.screenshotDir, &error);
    } else {
        for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
        ok = QDir().mkpath(options.screenshotDir) &&
             window.saveScreenshot(
                 QDir(options.screenshotDir)
                     .filePath(QStringLiteral("step-%1.png")
                                   .arg(window.currentStep(), 2, 10, QLatin1Char('0'))),
                 &error);
    }
    if (!ok) return fail(error.isEmpty() ? QStringLiteral("cannot save screenshots") : error);
    return 0;
}
