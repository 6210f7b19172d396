#include "number_format.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace attn {

namespace {

// The text of NaN and the infinities as the app shows them; empty for a finite value.
std::string non_finite(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value < 0 ? "\u2212\u221E" : "\u221E";
    return {};
}

template <typename... Format>
std::string chars(double value, Format... format) {
    std::array<char, 400> buffer{};  // fixed-point of 1e308 needs 309 digits
    const std::to_chars_result r =
        std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, format...);
    return std::string(buffer.data(), r.ptr);
}

}  // namespace

std::string format_compact(double value) {
    if (std::string special = non_finite(value); !special.empty()) return special;
    // %g with 4 digits: "-1e+09", "1.5e-07", "0.25"; then the exponent loses "+" and zeros.
    std::string text = chars(value, std::chars_format::general, 4);
    const std::size_t e = text.find('e');
    if (e == std::string::npos) return text;
    std::string exponent = text.substr(e + 1);
    const bool negative = !exponent.empty() && exponent[0] == '-';
    if (!exponent.empty() && (exponent[0] == '+' || negative)) exponent.erase(0, 1);
    while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
    return text.substr(0, e) + "e" + (negative ? "-" : "") + exponent;
}

std::string format_fixed(double value, int decimals) {
    if (std::string special = non_finite(value); !special.empty()) return special;
    if (std::abs(value) >= 1e5) return format_compact(value);
    std::string text = chars(value, std::chars_format::fixed, std::max(decimals, 0));
    // -0.00001 rounds to "-0.0000": a sign on zero is noise to a student.
    if (text[0] == '-' && text.find_first_not_of("0.", 1) == std::string::npos) text.erase(0, 1);
    return text;
}

std::string format_shortest(float value) {
    std::array<char, 32> buffer{};
    const std::to_chars_result r =
        std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return std::string(buffer.data(), r.ptr);
}

std::string format_shortest(double value) {
    std::array<char, 32> buffer{};
    const std::to_chars_result r =
        std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return std::string(buffer.data(), r.ptr);
}

}  // namespace attn
