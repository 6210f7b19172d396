#include "app/cli/cli_args.h"

#include <cmath>

namespace {

QString shown(const QString& text) {
    constexpr qsizetype kShown = 30;
    return QLatin1Char('"') +
           (text.size() > kShown ? text.left(kShown) + QStringLiteral("...") : text) +
           QLatin1Char('"');
}

}  // namespace

std::optional<qint64> parseIntegerOption(const QString& option, const QString& text, qint64 min,
                                         qint64 max, QString* error) {
    bool ok = false;
    const qint64 value = text.trimmed().toLongLong(&ok, 10);
    if (!ok) {
        *error = QStringLiteral("%1 %2 is not a whole number: give a whole number from %3 to %4")
                     .arg(option, shown(text))
                     .arg(min)
                     .arg(max);
        return std::nullopt;
    }
    if (value < min || value > max) {
        *error = QStringLiteral("%1 %2 is outside %3..%4: give a whole number in that range")
                     .arg(option)
                     .arg(value)
                     .arg(min)
                     .arg(max);
        return std::nullopt;
    }
    return value;
}

std::optional<double> parseProbabilityOption(const QString& option, const QString& text,
                                             QString* error) {
    bool ok = false;
    // QString::toDouble always reads the C locale, whatever the user's environment says.
    const double value = text.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(value)) {
        *error = QStringLiteral("%1 %2 is not a number: give a probability such as %1 0.1")
                     .arg(option, shown(text));
        return std::nullopt;
    }
    if (value < 0.0 || value > 1.0) {
        *error = QStringLiteral("%1 %2 is outside [0, 1]: it is a probability; give e.g. %1 0.1")
                     .arg(option, text.trimmed());
        return std::nullopt;
    }
    return value;
}

std::optional<double> parseNumberOption(const QString& option, const QString& text, double min,
                                        double max, const QString& example, QString* error) {
    bool ok = false;
    const double value = text.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(value)) {
        *error = QStringLiteral("%1 %2 is not a number: give a number such as %1 %3")
                     .arg(option, shown(text), example);
        return std::nullopt;
    }
    if (value < min || value > max) {
        *error =
            QStringLiteral("%1 %2 is outside [%3, %4]: give a number in that range, e.g. %1 %5")
                .arg(option, text.trimmed(), QString::number(min), QString::number(max), example);
        return std::nullopt;
    }
    return value;
}
