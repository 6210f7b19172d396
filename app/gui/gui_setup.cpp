#include "app/gui/gui_setup.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFont>
#include <QIcon>
#include <QRegularExpression>

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
}


GuiParseResult parseGuiOptions(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QApplication::translate("GuiOptions",
                                "Learn how transformer attention works, step by step, on the "
                                "tutorial's six-token example."));
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    const QCommandLineOption step(QStringList{QStringLiteral("s"), QStringLiteral("step")},
                                  QApplication::translate("GuiOptions", "Open on step <N> (1-16)."),
                                  QStringLiteral("N"));
    const QCommandLineOption lang(
        QStringList{QStringLiteral("l"), QStringLiteral("lang")},
        QApplication::translate("GuiOptions", "Language: en or zh_CN (default: the system's)."),
        QStringLiteral("L"));
    const QCommandLineOption example(
        QStringList{QStringLiteral("e"), QStringLiteral("example")},
        QApplication::translate("GuiOptions", "Walk through the tokens of a JSON example <FILE>."),
        QStringLiteral("FILE"));
    QCommandLineOption screenshots(QStringLiteral("screenshot-dir"),
                                   QStringLiteral("Save the window as PNG into <DIR> and exit."),
                                   QStringLiteral("DIR"));
    screenshots.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption walk(QStringLiteral("walk"),
                            QStringLiteral("With --screenshot-dir: one PNG per step."));
    walk.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption size(QStringLiteral("window-size"),
                            QStringLiteral("Window size <WxH> in pixels."), QStringLiteral("WxH"));
    size.setFlags(QCommandLineOption::HiddenFromHelp);
    const QCommandLineOption presentation(
        QStringList{QStringLiteral("p"), QStringLiteral("presentation")},
        QApplication::translate("GuiOptions",
                                "Start in presentation mode: full screen, large text and "
                                "heatmaps, no step list (F11 or Escape leaves it)."));
    for (const QCommandLineOption& o : {step, lang, example, presentation, screenshots, walk, size})
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
                                                "number from 1 to 16")
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
    o.screenshotDir = parser.value(screenshots);
    o.walk = parser.isSet(walk);
    if (o.walk && o.screenshotDir.isEmpty())
        return fail(QStringLiteral("--walk needs --screenshot-dir DIR"));
    if (parser.isSet(size)) {
        static const QRegularExpression wxh(QStringLiteral("^(\\d{2,5})[xX](\\d{2,5})$"));
        const QRegularExpressionMatch m = wxh.match(parser.value(size));
        if (!m.hasMatch())
            return fail(QStringLiteral("--window-size '%1' is not WxH, e.g. 1400x900")
                            .arg(parser.value(size)));
        o.windowSize = QSize(m.captured(1).toInt(), m.captured(2).toInt());
    }
    return result;
}
