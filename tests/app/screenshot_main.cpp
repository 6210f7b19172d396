// attention-visualizer-shots: attention-visualizer's own start-up (runAttentionVisualizer) with a
// screenshot hook instead of the event loop, for the smoke test (test_gui_smoke) and for people
// who want pictures of every step. Built under tests/ and never installed, so the installed app
// has no test-only options.
//
//   attention-visualizer-shots --screenshot-dir DIR [--walk] [--window-size WxH] [app options]
//
// Saves the window as DIR/step-NN.png and exits; with --walk, one PNG per step (step-01.png ...
// step-16.png). Every other option is the app's and is read by the app's parser. Runs in
// QStandardPaths' test mode, so the user's remembered step and language stay as they are.
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QRegularExpression>
#include <QSize>
#include <QStandardPaths>
#include <QWindow>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "app/gui/gui_setup.h"
#include "app/gui/main_window.h"

namespace {

int fail(const QString& message, int code = 1) {
    const QByteArray bytes =
        QStringLiteral("attention-visualizer-shots: %1\n").arg(message).toLocal8Bit();
    std::fwrite(bytes.constData(), 1, static_cast<std::size_t>(bytes.size()), stderr);
    return code;
}

struct ShotOptions {
    QString dir;
    bool walk = false;
    QSize windowSize;  // invalid = the app's default
};

// Takes this program's options out of argv (both "--name value" and "--name=value"); what is left
// goes to the app. Returns an error message, empty when the options are fine.
QString takeShotOptions(int* argc, char* argv[], ShotOptions* shots) {
    std::vector<char*> rest{argv[0]};
    QString size;
    bool sizeGiven = false;
    for (int i = 1; i < *argc; ++i) {
        const QString arg = QString::fromLocal8Bit(argv[i]);
        auto value = [&](const QString& name, QString* out) {
            if (arg == name) {
                if (i + 1 >= *argc) return false;
                *out = QString::fromLocal8Bit(argv[++i]);
                return true;
            }
            if (arg.startsWith(name + QLatin1Char('='))) {
                *out = arg.mid(name.size() + 1);
                return true;
            }
            return false;
        };
        if (value(QStringLiteral("--screenshot-dir"), &shots->dir)) continue;
        if (value(QStringLiteral("--window-size"), &size)) {
            sizeGiven = true;
            continue;
        }
        if (arg == QLatin1String("--walk")) {
            shots->walk = true;
            continue;
        }
        rest.push_back(argv[i]);
    }
    if (shots->dir.isEmpty()) return QStringLiteral("--screenshot-dir DIR is required");
    if (sizeGiven) {
        static const QRegularExpression wxh(QStringLiteral("^(\\d{2,5})[xX](\\d{2,5})$"));
        const QRegularExpressionMatch m = wxh.match(size);
        if (!m.hasMatch())
            return QStringLiteral("--window-size '%1' is not WxH, e.g. 1400x900").arg(size);
        shots->windowSize = QSize(m.captured(1).toInt(), m.captured(2).toInt());
    }
    *argc = static_cast<int>(rest.size());
    std::copy(rest.begin(), rest.end(), argv);
    argv[*argc] = nullptr;
    return {};
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

// Grabs the window as it is now into dir/step-NN.png, NN its current step.
bool saveScreenshot(MainWindow& window, const QString& dir, QString* error) {
    const QString path = QDir(dir).filePath(
        QStringLiteral("step-%1.png").arg(window.currentStep(), 2, 10, QLatin1Char('0')));
    const QImage image = window.grab().toImage();
    if (image.isNull() || !image.save(path, "PNG")) {
        *error = QStringLiteral("cannot write the screenshot %1").arg(path);
        return false;
    }
    return true;
}

int takeScreenshots(MainWindow& window, const ShotOptions& shots) {
    if (!waitForExposed(window, 10000)) return fail(QStringLiteral("the window did not appear"));
    if (!QDir().mkpath(shots.dir))
        return fail(QStringLiteral("cannot create the folder %1").arg(shots.dir));
    QString error;
    if (!shots.walk) {
        for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
        return saveScreenshot(window, shots.dir, &error) ? 0 : fail(error);
    }
    for (int n = 1; n <= window.stepCount(); ++n) {
        window.goToStep(n);
        // Layout and the heatmaps' queued replots happen in the event loop.
        for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
        if (!saveScreenshot(window, shots.dir, &error)) return fail(error);
    }
    return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
    ShotOptions shots;
    const QString error = takeShotOptions(&argc, argv, &shots);
    if (!error.isEmpty()) return fail(error, 2);
    // Screenshots must not move the user's remembered step or language.
    QStandardPaths::setTestModeEnabled(true);
    GuiStartupHooks hooks;
    hooks.beforeShow = [&shots](MainWindow& window) {
        if (shots.windowSize.isValid()) window.resize(shots.windowSize);
    };
    hooks.insteadOfEventLoop = [&shots](MainWindow& window) {
        return takeScreenshots(window, shots);
    };
    return runAttentionVisualizer(argc, argv, hooks);
}
