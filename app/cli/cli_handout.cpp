// attention-cli handout: the whole walkthrough as PDF or HTML (to be written).
#include "app/cli/cli_command.h"

void addHandoutOptions(QCommandLineParser&) {}
QByteArray runHandout(const QCommandLineParser&) { cliFail(QStringLiteral("handout: not yet")); }
