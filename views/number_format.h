// How the views print numbers, so heatmap cells, tooltips and tables agree digit for digit.
#pragma once

#include <QString>

namespace attn {

// Fixed-point with `decimals` digits as PyTorch prints tensors ("0.4306", "-0.5337"); "-0.0000"
// becomes "0.0000". Magnitudes >= 1e5 switch to the compact form of formatCompact so a cell
// never holds a ten-digit number. NaN -> "NaN", -inf -> "−∞" (U+2212 U+221E), +inf -> "∞".
QString formatNumber(double value, int decimals = 4);

// Up to 4 significant digits with a short exponent: -1e9 -> "-1e9", -1e4 -> "-1e4",
// 1.5e-7 -> "1.5e-7", 0.25 -> "0.25". Used for mask fill values. Infinities and NaN as above.
QString formatCompact(double value);

}  // namespace attn
