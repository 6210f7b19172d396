// Start-up of the window application: its identity (QSettings keys), default fonts that render
// Chinese, and the command line
//   attention-visualizer [--step N] [--lang en|zh_CN] [--example FILE] [--presentation]
// read by a pure function so tests can check it without starting a process.
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>

class QApplication;

// Organisation, application name and version: QSettings lives under
// AttentionVisualizer/attention-visualizer. Callable before any application object exists.
void setApplicationIdentity();
// setApplicationIdentity(), the interface fonts (views/language.h), the window icon.
void setupGuiApplication(QApplication& app);

struct GuiOptions {
    int step = 0;         // 1-based; 0 = the step remembered from the last run
    QString language;     // "en" or "zh_CN"; empty = remembered, else the system locale
    QString exampleFile;  // JSON example (app/example_file.h); empty = the tutorial's
    // Hidden, for the smoke test and screenshots: save the window as PNG into this folder and
    // exit; with walk, one PNG per step (step-01.png ... step-16.png).
    QString screenshotDir;
    bool walk = false;
    QSize windowSize;           // hidden --window-size WxH; invalid = the default
    bool presentation = false;  // --presentation: full screen, large, step list hidden (#5)
};

struct GuiParseResult {
    enum class Status { Ok, Help, Version, Error };
    Status status = Status::Ok;
    GuiOptions options;
    QString text;  // help or version text to print, or the error message
};

// Parses arguments (arguments[0] is the program). Never exits: --help and --version come back as
// their text, errors as a message naming the option and the fix.
GuiParseResult parseGuiOptions(const QStringList& arguments);
