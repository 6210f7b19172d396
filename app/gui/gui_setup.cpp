#include "app/gui/gui_setup.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QFont>
#include <QIcon>
#include <QLineEdit>
#include <QLocale>
#include <QSettings>
#include <cstdio>
#include <vector>

#include "app/gui/explore_window.h"
#include "app/gui/main_window.h"
#include "app/gui/model_window.h"
#include "app/gui/presentation_mode.h"
#include "app/gui/threads_menu.h"
#include "app/gui/train_window.h"
#include "app/io/example_file.h"
#include "views/language.h"

#ifndef ATTN_VERSION
#define ATTN_VERSION "0.0.0"
#endif

void setApplicationIdentity() {
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionVisualizer"));
    QCoreApplication::setApplicationName(QStringLiteral("attention-visualizer"));
    QCoreApplication::setApplicationVersion(QStringLiteral(ATTN_VERSION));
}

void setupGuiApplication(QApplication& app) {
    setApplicationIdentity();
    QApplication::setApplicationDisplayName(QStringLiteral("Attention Visualizer"));
    QApplication::setDesktopFileName(QStringLiteral("attention-visualizer"));
    views::applyInterfaceFonts(app);
    app.setWindowIcon(QIcon(QStringLiteral(":/icons/attention-visualizer.svg")));
    ThreadsMenu::applySaved();
}

GuiParseResult parseGuiOptions(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QApplication::translate("GuiOptions",
                                "Learn how transformer attention works, step by step, on the "
                                "tutorial's six-token example."));
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    const QCommandLineOption step(
        QStringList{QStringLiteral("s"), QStringLiteral("step")},
        QApplication::translate("GuiOptions", "Open on step <N>, 1 the first."),
        QStringLiteral("N"));
    const QCommandLineOption lang(
        QStringList{QStringLiteral("l"), QStringLiteral("lang")},
        QApplication::translate("GuiOptions", "Language: en or zh_CN (default: the system's)."),
        QStringLiteral("L"));
    const QCommandLineOption example(
        QStringList{QStringLiteral("e"), QStringLiteral("example")},
        QApplication::translate("GuiOptions", "Walk through the tokens of a JSON example <FILE>."),
        QStringLiteral("FILE"));
    const QCommandLineOption presentation(
        QStringList{QStringLiteral("p"), QStringLiteral("presentation")},
        QApplication::translate("GuiOptions",
                                "Start in presentation mode: full screen, large text and "
                                "heatmaps, no step list (F11 or Escape leaves it)."));
    const QCommandLineOption model(
        QStringLiteral("model"),
        QApplication::translate(
            "GuiOptions",
            "Open the model window on a model: a Hugging Face folder, a .gguf "
            "file, ollama:NAME[:TAG], or a name found in the Hugging Face cache "
            "(e.g. gpt2)."),
        QStringLiteral("DIR|FILE|NAME"));
    const QCommandLineOption dump(
        QStringLiteral("dump"),
        QApplication::translate("GuiOptions",
                                "Open the model window on an attention dump (.npy or "
                                ".safetensors with its tokens JSON beside it)."),
        QStringLiteral("FILE"));
    const QCommandLineOption text(
        QStringLiteral("text"),
        QApplication::translate("GuiOptions", "With --model: the text to run the model on."),
        QStringLiteral("TEXT"));
    const QCommandLineOption pair(
        QStringLiteral("pair"),
        QApplication::translate("GuiOptions",
                                "With --model on an encoder (BERT, RoBERTa): the second sentence "
                                "of a pair (Sentence B)."),
        QStringLiteral("TEXT"));
    const QCommandLineOption train(
        QStringLiteral("train"),
        QApplication::translate("GuiOptions",
                                "Open the Train window: train a small transformer and watch "
                                "its heads learn (an induction head forms in two layers)."));
    for (const QCommandLineOption& o :
         {step, lang, example, presentation, model, dump, text, pair, train})
        parser.addOption(o);

    GuiParseResult result;
    if (!parser.parse(arguments)) {
        result.status = GuiParseResult::Status::Error;
        result.text = parser.errorText();
        return result;
    }
    if (parser.isSet(help)) {
        result.status = GuiParseResult::Status::Help;
        result.text = parser.helpText();
        return result;
    }
    if (parser.isSet(version)) {
        result.status = GuiParseResult::Status::Version;
        result.text = QStringLiteral("%1 %2\n").arg(QApplication::applicationName(),
                                                    QApplication::applicationVersion());
        return result;
    }
    auto fail = [&result](const QString& message) {
        result.status = GuiParseResult::Status::Error;
        result.text = message;
        return result;
    };
    if (!parser.positionalArguments().isEmpty())
        return fail(QApplication::translate("GuiOptions",
                                            "unexpected argument '%1': the options are listed "
                                            "by --help")
                        .arg(parser.positionalArguments().constFirst()));
    GuiOptions& o = result.options;
    if (parser.isSet(step)) {
        bool ok = false;
        o.step = parser.value(step).toInt(&ok);
        if (!ok || o.step < 1)
            return fail(QApplication::translate("GuiOptions",
                                                "--step '%1' is not a step number: give a whole "
                                                "number, 1 for the first step")
                            .arg(parser.value(step)));
    }
    if (parser.isSet(lang)) {
        o.language = views::normalizeLanguage(parser.value(lang));
        if (o.language.isEmpty())
            return fail(QApplication::translate("GuiOptions",
                                                "--lang '%1' is not available: choose en or "
                                                "zh_CN")
                            .arg(parser.value(lang)));
    }
    o.exampleFile = parser.value(example);
    o.presentation = parser.isSet(presentation);
    o.model = parser.value(model);
    o.dump = parser.value(dump);
    o.modelText = parser.value(text);
    o.modelPair = parser.value(pair);
    o.train = parser.isSet(train);
    if (!o.model.isEmpty() && !o.dump.isEmpty())
        return fail(QApplication::translate("GuiOptions",
                                            "--model and --dump both open the model window: "
                                            "give one of them"));
    if (parser.isSet(text) && o.model.isEmpty())
        return fail(QApplication::translate("GuiOptions", "--text needs --model DIR|NAME"));
    if (parser.isSet(pair) && o.model.isEmpty())
        return fail(QApplication::translate("GuiOptions", "--pair needs --model DIR|NAME"));
    return result;
}

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

}  // namespace

int runAttentionVisualizer(int argc, char* argv[], const GuiStartupHooks& hooks) {
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

    // The engine needs no display either: a bad example file is reported before the GUI starts.
    // --example opens the file in explore mode too; a malformed file opens the tutorial's example
    // and the explore window shows why.
    std::vector<attn::Step> steps;
    QString exampleError;
    try {
        if (options.exampleFile.isEmpty()) {
            steps = attn::build_walkthrough();
        } else {
            const attn::ExampleParseResult example = attn::loadExampleFile(options.exampleFile);
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
    if (hooks.beforeShow) hooks.beforeShow(window);
    if (options.presentation)
        window.presentationMode()->setActive(true);  // shows the window full screen
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
    if (!options.model.isEmpty() || !options.dump.isEmpty()) {
        ModelWindow* modelWindow = ModelWindow::showFor(&window);
        if (!options.modelText.isEmpty()) modelWindow->textEdit()->setText(options.modelText);
        if (!options.modelPair.isEmpty()) modelWindow->pairEdit()->setText(options.modelPair);
        if (!options.model.isEmpty())
            modelWindow->openModel(options.model);
        else
            modelWindow->openDump(options.dump);
    }
    if (options.train) TrainWindow::showFor(&window);
    if (hooks.insteadOfEventLoop) return hooks.insteadOfEventLoop(window);
    return QApplication::exec();
}
