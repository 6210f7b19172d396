// attention-cli handout: the whole walkthrough as one PDF or HTML file for students to take home.
// The views draw it (views/handout.h) under the QApplication that cli_main.cpp makes for this
// subcommand, on Qt's offscreen platform; app/io writes it atomically, so a failed write leaves
// no file and an existing one as it was.
#include <QApplication>
#include <QDir>
#include <QFileInfo>

#include "app/cli/cli_command.h"
#include "app/io/file_batch.h"
#include "views/handout.h"
#include "views/language.h"

void addHandoutOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "Write the whole walkthrough for students to take home: every step's title, text, "
        "numbers,\n"
        "heatmaps and PyTorch code, as an A4 PDF (vector heatmaps, fonts embedded) or as one\n"
        "self-contained HTML file (inline SVG heatmaps). The format follows the file's suffix.\n"
        "An existing file is replaced only when the new one is complete; a failed write leaves\n"
        "nothing behind. Prints the file written."));
    parser.addOptions({
        {QStringLiteral("output"), QStringLiteral("The handout file: FILE.pdf or FILE.html."),
         QStringLiteral("FILE")},
        {QStringLiteral("lang"), QStringLiteral("Language of the texts: en (default) or zh_CN."),
         QStringLiteral("L")},
        {QStringLiteral("input"),
         QStringLiteral("Walk through the tokens of a JSON example FILE instead of the "
                        "tutorial's."),
         QStringLiteral("FILE")},
    });
}

QByteArray runHandout(const QCommandLineParser& parser) {
    if (!qobject_cast<QApplication*>(QCoreApplication::instance()))
        cliFail(QStringLiteral("handout needs a QApplication (internal error)"));
    const QString path = parser.value(QStringLiteral("output"));
    if (!parser.isSet(QStringLiteral("output")) || path.isEmpty())
        cliFail(QStringLiteral("give --output FILE.pdf or --output FILE.html"));
    const QString suffix = QFileInfo(path).suffix().toLower();
    const bool pdf = suffix == QLatin1String("pdf");
    if (!pdf && suffix != QLatin1String("html") && suffix != QLatin1String("htm"))
        cliFail(QStringLiteral("--output \"%1\" needs the suffix .pdf or .html: the suffix "
                               "chooses the format")
                    .arg(QDir::toNativeSeparators(path)));

    const auto translation = installLanguageOption(parser);
    const std::vector<attn::Step> steps = walkthroughOption(parser, QStringLiteral("input"));
    const QString language = parser.isSet(QStringLiteral("lang"))
                                 ? views::normalizeLanguage(parser.value(QStringLiteral("lang")))
                                 : QStringLiteral("en");

    QString error;
    const QByteArray bytes = pdf ? views::renderHandoutPdf(steps, &error)
                                 : views::renderHandoutHtml(steps, language, &error);
    if (bytes.isEmpty())
        cliFail(QStringLiteral("could not draw the handout %1: %2")
                    .arg(QDir::toNativeSeparators(path), error));
    if (!attn::saveFile(path, pdf ? QStringLiteral("PDF") : QStringLiteral("HTML"), bytes,
                        /*overwrite=*/true, &error))
        cliFail(error);
    return QDir::toNativeSeparators(path).toUtf8() + '\n';
}
