#include "number_format.h"

#include <cmath>

namespace attn {

namespace {

const QString kMinusInfinity = QStringLiteral("\u2212\u221E");
const QString kPlusInfinity = QStringLiteral("\u221E");

// Returns the text for NaN/inf, or an empty string for a finite value.
QString nonFinite(double value) {
    if (std::isnan(value)) return QStringLiteral("NaN");
    if (std::isinf(value)) return value < 0 ? kMinusInfinity : kPlusInfinity;
    return {};
}

}  // namespace

QString formatCompact(double value) {
    if (QString special = nonFinite(value); !special.isEmpty()) return special;
    QString text = QString::number(value, 'g', 4);  // "-1e+09", "1.5e-07", "0.25"
    const qsizetype e = text.indexOf(QLatin1Char('e'));
    if (e < 0) return text;
    QString mantissa = text.left(e);
    QString exponent = text.mid(e + 1);
    const bool negative = exponent.startsWith(QLatin1Char('-'));
    if (exponent.startsWith(QLatin1Char('+')) || negative) exponent.remove(0, 1);
    while (exponent.size() > 1 && exponent.startsWith(QLatin1Char('0'))) exponent.remove(0, 1);
    return mantissa + QLatin1Char('e') + (negative ? QStringLiteral("-") : QString()) + exponent;
}

QString formatNumber(double value, int decimals) {
    if (QString special = nonFinite(value); !special.isEmpty()) return special;
    if (std::abs(value) >= 1e5) return formatCompact(value);
    QString text = QString::number(value, 'f', std::max(decimals, 0));
    // -0.00001 rounds to "-0.0000": a sign on zero is noise to a student.
    if (text.startsWith(QLatin1Char('-')) &&
        text.mid(1).remove(QLatin1Char('0')).remove(QLatin1Char('.')).isEmpty())
        text.remove(0, 1);
    return text;
}

}  // namespace attn
