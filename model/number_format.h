// The one way numbers become text: cells, hovers, step texts, CSV, JSON and error messages all
// print through these, so every surface shows the same digits. Locale-independent (std::to_chars
// ignores the C locale that Qt sets from the environment: a German locale would otherwise print
// "0,9544").
#pragma once

#include <string>

namespace attn {

// Fixed-point with `decimals` digits as PyTorch prints tensors ("0.4306", "-0.5337"); "-0.0000"
// becomes "0.0000". Magnitudes >= 1e5 switch to format_compact so a cell never holds a ten-digit
// number. NaN -> "NaN", -inf -> "−∞" (U+2212 U+221E), +inf -> "∞".
std::string format_fixed(double value, int decimals = 4);

// Up to 4 significant digits with a short exponent: -1e9 -> "-1e9", -1e4 -> "-1e4",
// 1.5e-7 -> "1.5e-7", 0.25 -> "0.25". Used for mask fill values. Infinities and NaN as above.
std::string format_compact(double value);

// The fewest digits that read back as exactly `value` ("0.43", not "0.4300000071525574"); the
// float overload reads back as the same 32-bit float. Non-finite values as std::to_chars spells
// them: "inf", "-inf", "nan".
std::string format_shortest(float value);
std::string format_shortest(double value);

}  // namespace attn
