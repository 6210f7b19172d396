// JSON text as the example files and attention-cli write it: numbers that round-trip to the same
// float, matrices one row per line, and a fixed key order where it helps a reader.
#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <utility>
#include <vector>

#include "model/runner.h"
#include "model/tensor.h"

namespace attn {

// The shortest decimal text that reads back as exactly `value` ("0.43", not
// "0.4300000071525574"); locale-independent. Non-finite values give "null": JSON has no NaN/Inf.
QByteArray formatFloat(float value);

// `value` as a JSON number holding formatFloat's digits, so writeJson prints them unchanged; null
// when `value` is NaN or ±Inf.
QJsonValue jsonNumber(float value);
// A (1, n) or (n) vector as a flat list of numbers.
QJsonArray jsonRow(const attn::RowVector& row);
// A matrix as a list of rows.
QJsonArray jsonMatrix(const attn::Matrix& matrix);
// {"W_query.weight": [[...]], "W_query.bias": [...]}: vectors (is_vector) as flat lists.
QJsonObject jsonWeights(const std::vector<attn::NamedMatrix>& weights);

// Readable JSON: objects one member per line, arrays of scalars on one line, arrays of arrays one
// element per line (so a matrix prints one row per line), two-space indent, trailing newline.
QByteArray writeJson(const QJsonValue& value);
// An object whose members keep the given order (QJsonObject sorts its keys).
using OrderedMembers = std::vector<std::pair<QString, QJsonValue>>;
QByteArray writeJsonObject(const OrderedMembers& members);
// A JSON string literal with quotes; UTF-8 kept as is, control characters escaped.
QByteArray jsonString(const QString& text);
// UTF-8 to QString keeping a leading U+FEFF, which QString::fromUtf8 drops as a byte-order mark:
// a token may start with it, and must read back as it was written.
QString fromUtf8KeepingBom(QByteArrayView utf8);

}  // namespace attn
