// Start-up of the window application: its identity (QSettings keys), default fonts that render
// Chinese, the command line
//   attention-visualizer [--step N] [--lang en|zh_CN] [--example FILE] [--presentation]
//                        [--model DIR|NAME [--text TEXT] | --dump FILE] [--train]
// read by a pure function so tests can check it without starting a process, and the whole
// start-up, which main() runs and a test program runs with hooks.
#pragma once

#include <QString>
#include <QStringList>
#include <functional>

class MainWindow;
class QApplication;

// Organisation, application name and version: QSettings lives under
// AttentionVisualizer/attention-visualizer. Callable before any application object exists.
void setApplicationIdentity();
// setApplicationIdentity(), the interface fonts (views/language.h), the window icon.
void setupGuiApplication(QApplication& app);

struct GuiOptions {
    int step = 0;               // 1-based; 0 = the step remembered from the last run
    QString language;           // "en" or "zh_CN"; empty = remembered, else the system locale
    QString exampleFile;        // JSON example (app/io/example_file.h); empty = the tutorial's
    bool presentation = false;  // --presentation: full screen, large, step list hidden
    QString model;              // --model DIR|NAME: the model window on a GPT-2
    QString dump;               // --dump FILE: the model window on an attention dump
    QString modelText;          // --text: the model's text
    QString modelPair;          // --pair: an encoder's second sentence
    bool train = false;         // --train: the Train window
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

// What a test program adds to the start-up (tests/app/screenshot_main.cpp); the app adds nothing.
struct GuiStartupHooks {
    // With the window built, on its step and in its language, before it is shown.
    std::function<void(MainWindow&)> beforeShow;
    // Once the window is shown, instead of the event loop; returns the exit code.
    std::function<int(MainWindow&)> insteadOfEventLoop;
};

// attention-visualizer's main(): reads the command line (--help, --version and mistakes are
// answered without a display), builds the walkthrough of --example or of the tutorial, shows the
// window (and the explore window for --example) and runs the event loop. Returns the exit code:
// 2 for a mistake on the command line, 1 when the example cannot be read.
int runAttentionVisualizer(int argc, char* argv[], const GuiStartupHooks& hooks = {});
