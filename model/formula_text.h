// The pieces every cell explanation is written with (model/walkthrough_explain.cpp for the
// walkthrough's records, model/explain_attention.cpp for a module run in explore mode), so both
// read the same: numbers with 4 decimals through number_format.h, subscripts, sums of products.
#pragma once

#include <cmath>
#include <string>

#include "number_format.h"
#include "tensor.h"
#include "walkthrough.h"  // subscript()

namespace attn::formula {

// A number inside a formula: negative ones in parentheses, so "a · (−b)" reads unambiguously.
inline std::string num(double v) {
    const std::string s = format_fixed(v);
    return s[0] == '-' ? "(−" + s.substr(1) + ")" : s;
}

// A number that ends a formula or stands alone: a real minus sign, no parentheses.
inline std::string bare(double v) {
    const std::string s = format_fixed(v);
    return s[0] == '-' ? "−" + s.substr(1) : s;
}

// "ω₂₃": a symbol with 0-based row and column written 1-based.
inline std::string cell(const std::string& symbol, Eigen::Index row, Eigen::Index col) {
    return symbol + subscript(row + 1) + subscript(col + 1);
}

// "√2" for the divisor √d_k.
inline std::string sqrt_text(float divisor) {
    const long d = std::lround(static_cast<double>(divisor) * static_cast<double>(divisor));
    return "√" + std::to_string(d);
}

// "a₁·b₁ + a₂·b₂ + …" written out, shortened past eight terms.
inline std::string products(const Eigen::Ref<const RowVector>& a,
                            const Eigen::Ref<const RowVector>& b) {
    std::string s;
    const Eigen::Index n = a.size();
    for (Eigen::Index k = 0; k < n; ++k) {
        if (n > 8 && k == 4) {
            s += " + …";
            k = n - 3;
        }
        if (k > 0) s += " + ";
        s += num(static_cast<double>(a(k))) + "·" + num(static_cast<double>(b(k)));
    }
    return s;
}

}  // namespace attn::formula
