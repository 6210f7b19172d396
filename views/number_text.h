// model/number_format.h as QString, for the views: every number a widget shows goes through the one
// formatter, so a German or French locale never turns "0.9544" into "0,9544" in one place only.
#pragma once

#include <QString>

#include "model/number_format.h"

namespace views {

inline QString fixedText(double value, int decimals = 4) {
    return QString::fromStdString(attn::format_fixed(value, decimals));
}
inline QString compactText(double value) {
    return QString::fromStdString(attn::format_compact(value));
}
inline QString shortestText(double value) {
    return QString::fromStdString(attn::format_shortest(value));
}
// A float's own shortest digits ("0.1", not the double 0.10000000149011612).
inline QString shortestText(float value) {
    return QString::fromStdString(attn::format_shortest(value));
}

}  // namespace views
