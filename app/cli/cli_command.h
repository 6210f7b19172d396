// The subcommands of attention-cli. Each lives in its own cli_<name>.cpp and is listed once in
// cli_main.cpp's table; a new one (e.g. `export`) adds a file and a line there.
//
// A subcommand returns everything it prints on stdout as one block, so an error part-way leaves
// stdout empty: errors are thrown as CliError (or attn::AttentionError) and become a message on
// stderr with exit status 2.
#pragma once

#include <QByteArray>
#include <QCommandLineParser>
#include <QJsonArray>
#include <QString>
#include <memory>
#include <vector>

#include "model/walkthrough.h"

struct CliError {
    QString message;
};

[[noreturn]] inline void cliFail(const QString& message) { throw CliError{message}; }

struct CliCommand {
    const char* name;
    const char* summary;  // one line for the top-level --help
    void (*addOptions)(QCommandLineParser& parser);
    QByteArray (*run)(const QCommandLineParser& parser);  // stdout text; throws on bad input
};

// Shared option readers: the option's value, or the default when it is not given.
qint64 integerOption(const QCommandLineParser& parser, const QString& name, qint64 fallback,
                     qint64 min, qint64 max);
double probabilityOption(const QCommandLineParser& parser, const QString& name, double fallback);
// --repeat N of a --summary: the timed pass N more times in the same process, each time printed
// in repeat_ms (a benchmark's warm runs; elapsed_ms stays the first pass). 0 without --repeat.
QCommandLineOption repeatOption();
int repeatCount(const QCommandLineParser& parser);
QJsonArray repeatTimesJson(const std::vector<double>& ms);  // milliseconds to the microsecond

// The --lang option (en by default) with the window's translation and fonts installed while the
// returned object lives; fails with a message for an unknown language.
namespace views {
class Translation;
}
std::unique_ptr<views::Translation> installLanguageOption(const QCommandLineParser& parser);
// The walkthrough of the tutorial, or of the example file given by option `name` (--example,
// --input); fails with the file's own message.
std::vector<attn::Step> walkthroughOption(const QCommandLineParser& parser, const QString& name);

// The process's peak resident memory in MB (VmHWM), 0 where /proc is missing.
double peakResidentMegabytes();

// The subcommands.
void addComputeOptions(QCommandLineParser& parser);
QByteArray runCompute(const QCommandLineParser& parser);
void addDecodeOptions(QCommandLineParser& parser);
QByteArray runDecode(const QCommandLineParser& parser);
// Figures: runs under the QApplication that cli_main.cpp creates for this subcommand only.
void addExportOptions(QCommandLineParser& parser);
QByteArray runExport(const QCommandLineParser& parser);
void addStepsOptions(QCommandLineParser& parser);
QByteArray runSteps(const QCommandLineParser& parser);
void addHandoutOptions(QCommandLineParser& parser);
QByteArray runHandout(const QCommandLineParser& parser);
// GPT-2 models from a Hugging Face folder (cli_model.cpp).
void addModelsOptions(QCommandLineParser& parser);
QByteArray runModels(const QCommandLineParser& parser);
void addTokenizeOptions(QCommandLineParser& parser);
QByteArray runTokenize(const QCommandLineParser& parser);
void addForwardOptions(QCommandLineParser& parser);
QByteArray runForward(const QCommandLineParser& parser);
void addGenerateOptions(QCommandLineParser& parser);
QByteArray runGenerate(const QCommandLineParser& parser);
// Training (cli_train.cpp): prints its logged steps as it goes and returns the last one.
void addTrainOptions(QCommandLineParser& parser);
QByteArray runTrain(const QCommandLineParser& parser);
