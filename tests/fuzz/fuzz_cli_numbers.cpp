// Fuzzes attention-cli's number parsing (app/cli_args.h), the part of the command line that reads
// outside text without a process.
//
// Input: bounds (one of the CLI's own option ranges, or arbitrary ones) then the option's text.
// Beyond "no crash": exactly one of a value and a message; a value lies in its range (a
// probability in [0, 1], a number in its range); and a plain decimal whole number in range is
// always accepted as itself.
#include <fuzzer/FuzzedDataProvider.h>

#include <QString>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "app/cli/cli_args.h"

namespace {

[[noreturn]] void fail(const char* what, const QString& detail = {}) {
    std::fprintf(stderr, "fuzz_cli_numbers: %s %s\n", what, detail.toUtf8().constData());
    std::abort();
}

struct Range {
    const char* option;
    qint64 min, max;
};

// The ranges app/cli_compute.cpp and app/cli_decode.cpp pass.
constexpr Range kRanges[] = {
    {"--seed", 0, qint64{1} << 53},
    {"--d-out", 1, 16384},
    {"--num-heads", 1, 16384},
    {"--batch", 1, 64},
    {"--context-length", 0, 1 << 20},
    {"--random-tokens", 1, 65536},
    {"--d-in", 1, 16384},
    {"--length", 1, 4096},
};

// The whole number `text` spells in plain decimal ("  -12 ", "+7", "007"), if it does.
bool plainDecimal(const QString& text, qint64* value) {
    std::string s = text.trimmed().toStdString();
    if (!s.empty() && s.front() == '+') {
        s.erase(0, 1);
        if (!s.empty() && s.front() == '-') {
            return false;
        }
    }
    if (s.empty()) {
        return false;
    }
    const std::from_chars_result r = std::from_chars(s.data(), s.data() + s.size(), *value);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    Range range =
        kRanges[in.ConsumeIntegralInRange<std::size_t>(0, std::size(kRanges)) % std::size(kRanges)];
    if (in.ConsumeBool()) {
        const qint64 a = in.ConsumeIntegral<qint64>();
        const qint64 b = in.ConsumeIntegral<qint64>();
        range = {"--fuzz", std::min(a, b), std::max(a, b)};
    }
    const std::string bytes = in.ConsumeRemainingBytesAsString();
    const QString text = QString::fromUtf8(bytes.data(), static_cast<qsizetype>(bytes.size()));
    const QString option = QString::fromLatin1(range.option);

    QString error;
    const std::optional<qint64> integer =
        parseIntegerOption(option, text, range.min, range.max, &error);
    if (integer.has_value() == !error.isEmpty() || (!integer && !error.startsWith(option))) {
        fail("integer: expected a value or a message naming the option; message:", error);
    }
    if (integer && (*integer < range.min || *integer > range.max)) {
        fail("integer outside its range for", text);
    }
    qint64 expected = 0;
    if (plainDecimal(text, &expected) && expected >= range.min && expected <= range.max &&
        integer != expected) {
        fail("a plain whole number in range was not read as itself:", text);
    }

    error.clear();
    const std::optional<double> p =
        parseProbabilityOption(QStringLiteral("--dropout"), text, &error);
    if (p.has_value() == !error.isEmpty() ||
        (!p && !error.startsWith(QStringLiteral("--dropout")))) {
        fail("probability: expected a value or a message naming the option; message:", error);
    }
    if (p && !(std::isfinite(*p) && *p >= 0.0 && *p <= 1.0)) {
        fail("probability outside [0, 1] for", text);
    }

    error.clear();
    const std::optional<double> lr = parseNumberOption(QStringLiteral("--lr"), text, 1e-6, 10.0,
                                                       QStringLiteral("0.001"), &error);
    if (lr.has_value() == !error.isEmpty() || (!lr && !error.startsWith(QStringLiteral("--lr")))) {
        fail("number: expected a value or a message naming the option; message:", error);
    }
    if (lr && !(std::isfinite(*lr) && *lr >= 1e-6 && *lr <= 10.0)) {
        fail("number outside [1e-6, 10] for", text);
    }
    return 0;
}
