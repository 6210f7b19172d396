// attention-cli: the headless entry point. `attention-cli <subcommand> [options]`; the
// subcommands are in cli_<name>.cpp (see cli_command.h).
#include <QApplication>
#include <QCoreApplication>
#include <QStringList>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "model/matmul.h"
#include "model/runner.h"
#include "model/tensor.h"

namespace {

// More threads than this is a typo, not a machine.
constexpr qint64 kMaxThreads = 4096;

// Every subcommand, in the order --help lists them.
const CliCommand kCommands[] = {
    {"compute", "Run an attention module on the six-token example or a JSON example file",
     addComputeOptions, runCompute},
    {"decode", "Decode token by token with a KV cache and compare with one full causal pass",
     addDecodeOptions, runDecode},
    {"export", "Save the walkthrough's heatmaps as PNG, SVG, PDF or CSV, without a display",
     addExportOptions, runExport},
    {"steps",
     "Print the walkthrough's steps as JSON: titles, texts, matrices and cell explanations",
     addStepsOptions, runSteps},
    {"handout", "Write the whole walkthrough as a PDF or HTML handout for students",
     addHandoutOptions, runHandout},
    {"models", "List the models in the Hugging Face cache and Ollama's store", addModelsOptions,
     runModels},
    {"tokenize", "Split a text into tokens with a model's own tokenizer", addTokenizeOptions,
     runTokenize},
    {"forward", "Run a model on a text: every layer's and head's attention, next tokens",
     addForwardOptions, runForward},
    {"generate", "Continue a text with a model and a KV cache per layer", addGenerateOptions,
     runGenerate},
    {"train", "Train a small transformer on induction or a text and watch its heads",
     addTrainOptions, runTrain},
};

const char kOutputNote[] =
    "Output is JSON on stdout (export and handout: the files written, one per line; train: one\n"
    "line per logged step, printed as it trains).\n"
    "Every number reads back as the same 32-bit float; NaN and infinity, which JSON cannot hold,\n"
    "are printed as null. On an error the message goes to stderr, stdout stays empty, and the\n"
    "exit status is 2.\n";

void writeOut(FILE* stream, const QByteArray& bytes) {
    std::fwrite(bytes.constData(), 1, static_cast<std::size_t>(bytes.size()), stream);
    std::fflush(stream);
}

void writeError(const QString& message) {
    writeOut(stderr, QByteArrayLiteral("attention-cli: ") + message.toUtf8() + '\n');
}

// Options every subcommand takes, after its own.
void addCommonOptions(QCommandLineParser& parser) {
    parser.addOption({QStringLiteral("threads"),
                      QStringLiteral("Threads of the computation (default: every core, %1 here).")
                          .arg(attn::available_cores()),
                      QStringLiteral("N")});
}

// --threads N for the engine's products and parallel loops; without it every core (OpenMP's
// default, which OMP_NUM_THREADS can lower).
void applyThreadsOption(const QCommandLineParser& parser) {
    if (!parser.isSet(QStringLiteral("threads"))) return;
    attn::set_engine_threads(
        static_cast<int>(integerOption(parser, QStringLiteral("threads"), 1, 1, kMaxThreads)));
}

// A subcommand's own help, with a usage line naming the subcommand.
QString commandHelp(const CliCommand& command) {
    QCommandLineParser parser;
    parser.setApplicationDescription(QString::fromUtf8(command.summary));
    parser.addHelpOption();
    command.addOptions(parser);
    addCommonOptions(parser);
    QString help = parser.helpText();
    const qsizetype firstNewline = help.indexOf(QLatin1Char('\n'));
    help.replace(
        0, firstNewline,
        QStringLiteral("Usage: attention-cli %1 [options]").arg(QLatin1String(command.name)));
    return help;
}

QString topLevelHelp() {
    QString help =
        QStringLiteral(
            "attention-cli %1: transformer attention from the command line, computed by the same "
            "engine as\nthe Attention Visualizer.\n\n"
            "Usage: attention-cli <subcommand> [options]\n"
            "       attention-cli <subcommand> --help\n"
            "       attention-cli --version\n\nSubcommands:\n")
            .arg(QCoreApplication::applicationVersion());
    for (const CliCommand& command : kCommands) {
        help += QStringLiteral("  %1  %2\n")
                    .arg(QString::fromLatin1(command.name).leftJustified(8),
                         QString::fromUtf8(command.summary));
    }
    help += QLatin1Char('\n') + QString::fromLatin1(kOutputNote);
    for (const CliCommand& command : kCommands) {
        help += QStringLiteral("\n") + commandHelp(command);
    }
    return help;
}

const CliCommand* findCommand(const QString& name) {
    for (const CliCommand& command : kCommands) {
        if (name == QLatin1String(command.name)) {
            return &command;
        }
    }
    return nullptr;
}

QString commandNames() {
    QStringList names;
    for (const CliCommand& command : kCommands) {
        names << QLatin1String(command.name);
    }
    return names.join(QStringLiteral(", "));
}

int runCommand(const CliCommand& command, QStringList args) {
    QCommandLineParser parser;
    parser.setApplicationDescription(QString::fromUtf8(command.summary));
    parser.addHelpOption();
    command.addOptions(parser);
    addCommonOptions(parser);
    args.removeAt(1);  // the subcommand's name; the parser expects the program name first
    if (!parser.parse(args)) {
        QString problem = parser.errorText();
        if (problem.endsWith(QLatin1Char('.'))) {
            problem.chop(1);  // "Unknown option 'x'." reads better before our hint without the dot
        }
        writeError(QStringLiteral("%1: %2 (see attention-cli %1 --help)")
                       .arg(QLatin1String(command.name), problem));
        return 2;
    }
    if (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("help-all"))) {
        writeOut(stdout, commandHelp(command).toUtf8());
        return 0;
    }
    if (!parser.positionalArguments().isEmpty()) {
        writeError(QStringLiteral("%1: unexpected argument \"%2\": every value belongs to an "
                                  "option such as --module NAME (see attention-cli %1 --help)")
                       .arg(QLatin1String(command.name), parser.positionalArguments().first()));
        return 2;
    }
    try {
        applyThreadsOption(parser);
        const QByteArray out = command.run(parser);
        writeOut(stdout, out);
        return std::ferror(stdout) != 0 ? 1 : 0;
    } catch (const CliError& e) {
        writeError(QStringLiteral("%1: %2").arg(QLatin1String(command.name), e.message));
    } catch (const attn::AttentionError& e) {
        writeError(QStringLiteral("%1: %2").arg(QLatin1String(command.name),
                                                QString::fromStdString(e.what())));
    } catch (const std::bad_alloc&) {
        writeError(
            QStringLiteral("%1: out of memory: use fewer tokens, a smaller width or fewer heads")
                .arg(QLatin1String(command.name)));
    }
    return 2;
}

}  // namespace

qint64 integerOption(const QCommandLineParser& parser, const QString& name, qint64 fallback,
                     qint64 min, qint64 max) {
    if (!parser.isSet(name)) {
        return fallback;
    }
    QString error;
    const std::optional<qint64> value =
        parseIntegerOption(QStringLiteral("--") + name, parser.value(name), min, max, &error);
    if (!value) {
        cliFail(error);
    }
    return *value;
}

QCommandLineOption repeatOption() {
    return {QStringLiteral("repeat"),
            QStringLiteral("With --summary: run the timed pass N more times (1 to %1) and print "
                           "each one's time in repeat_ms; elapsed_ms stays the first pass.")
                .arg(attn::kMaxRepeats),
            QStringLiteral("N")};
}

int repeatCount(const QCommandLineParser& parser) {
    if (!parser.isSet(QStringLiteral("repeat"))) return 0;
    if (!parser.isSet(QStringLiteral("summary")))
        cliFail(QStringLiteral("--repeat times the pass of a --summary: add --summary"));
    return static_cast<int>(
        integerOption(parser, QStringLiteral("repeat"), 0, 1, attn::kMaxRepeats));
}

QJsonArray repeatTimesJson(const std::vector<double>& ms) {
    QJsonArray out;
    for (const double t : ms) out.append(std::round(t * 1000.0) / 1000.0);
    return out;
}

double probabilityOption(const QCommandLineParser& parser, const QString& name, double fallback) {
    if (!parser.isSet(name)) {
        return fallback;
    }
    QString error;
    const std::optional<double> value =
        parseProbabilityOption(QStringLiteral("--") + name, parser.value(name), &error);
    if (!value) {
        cliFail(error);
    }
    return *value;
}

int main(int argc, char* argv[]) {
    // `export` draws widgets, the other subcommands need QtCore only. Widgets without a display:
    // the offscreen platform, unless the caller chose one.
    const bool widgets =
        argc > 1 && (std::strcmp(argv[1], "export") == 0 || std::strcmp(argv[1], "steps") == 0 ||
                     std::strcmp(argv[1], "handout") == 0);
    if (widgets && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    const std::unique_ptr<QCoreApplication> app =
        widgets ? std::make_unique<QApplication>(argc, argv)
                : std::make_unique<QCoreApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("attention-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(ATTN_VERSION));

    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 2) {
        writeError(
            QStringLiteral("give a subcommand: %1 (see attention-cli --help)").arg(commandNames()));
        return 2;
    }
    const QString& first = args.at(1);
    if (first == QLatin1String("--help") || first == QLatin1String("-h") ||
        first == QLatin1String("help")) {
        writeOut(stdout, topLevelHelp().toUtf8());
        return 0;
    }
    if (first == QLatin1String("--version") || first == QLatin1String("-v")) {
        writeOut(stdout, QStringLiteral("attention-cli %1\n")
                             .arg(QCoreApplication::applicationVersion())
                             .toUtf8());
        return 0;
    }
    const CliCommand* command = findCommand(first);
    if (command == nullptr) {
        writeError(
            QStringLiteral("unknown subcommand \"%1\": use one of %2 (see attention-cli --help)")
                .arg(first, commandNames()));
        return 2;
    }
    return runCommand(*command, args);
}
