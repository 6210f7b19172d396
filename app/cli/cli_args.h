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

// A finite number in [min, max] (learning rate, seconds), read in the C locale. On failure the
// message names the option and the range: "--lr 0 is outside [1e-06, 10]: give a number in
// that range, e.g. --lr 0.001".
std::optional<double> parseNumberOption(const QString& option, const QString& text, double min,
                                        double max, const QString& example, QString* error);
