// attention-cli steps: the walkthrough's records as JSON (to be written).
#include "app/cli/cli_command.h"

void addStepsOptions(QCommandLineParser&) {}
QByteArray runSteps(const QCommandLineParser&) { cliFail(QStringLiteral("steps: not yet")); }
