// Options shared by the subcommands that show the walkthrough (export, steps, handout).
#include <QApplication>

#include "app/cli/cli_command.h"
#include "app/io/example_file.h"
#include "views/language.h"

std::unique_ptr<views::Translation> installLanguageOption(const QCommandLineParser& parser) {
    QString language = QStringLiteral("en");
    if (parser.isSet(QStringLiteral("lang"))) {
        language = views::normalizeLanguage(parser.value(QStringLiteral("lang")));
        if (language.isEmpty())
            cliFail(QStringLiteral("--lang \"%1\" is not available: give en or zh_CN")
                        .arg(parser.value(QStringLiteral("lang"))));
    }
    // The window's translation and fonts, so texts and figures match it glyph for glyph.
    auto translation = std::make_unique<views::Translation>();
    if (!translation->install(language))
        cliFail(QStringLiteral("the %1 translation is missing from this build").arg(language));
    if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance()))
        views::applyInterfaceFonts(*app);
    return translation;
}

std::vector<attn::Step> walkthroughOption(const QCommandLineParser& parser, const QString& name) {
    if (!parser.isSet(name)) return attn::build_walkthrough();
    const QString path = parser.value(name);
    const attn::ExampleParseResult example = attn::loadExampleFile(path);
    if (!example.ok()) cliFail(QStringLiteral("%1: %2").arg(path, example.error));
    return attn::build_walkthrough(example.file->inputs);
}
