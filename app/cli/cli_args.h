// Numbers given on attention-cli's command line, read by pure functions so that the fuzzer and the
// tests can call them without starting a process.
#pragma once

#include <QString>
#include <optional>

// A whole number in [min, max]. On failure returns nullopt and sets *error to a message naming
// the option and the fix: "--num-heads 0 is outside 1..16384: give a whole number in that range".
std::optional<qint64> parseIntegerOption(const QString& option, const QString& text, qint64 min,
                                         qint64 max, QString* error);

// A probability in [0, 1] (dropout p), finite, read in the C locale ("0.1", never "0,1").
std::optional<double> parseProbabilityOption(const QString& option, const QString& text,
                                             QString* error);
