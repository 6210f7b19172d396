// Where a value sits in JSON text. QJsonDocument validates the syntax but forgets positions; to
// say "line 4, column 12" about a value that is well-formed JSON but wrong (a ragged row, a
// string where a number belongs) we find the value again by its path in the original bytes.
#pragma once

#include <QByteArray>
#include <QString>
#include <vector>

// One step of a path: a key of an object, or an index of an array (index >= 0).
struct JsonPathStep {
    QString key;
    qsizetype index = -1;
};
using JsonPath = std::vector<JsonPathStep>;

// Byte offset of the first byte of the value at `path` in `text`, which must be syntactically
// valid JSON (already accepted by QJsonDocument). With duplicate keys the last one counts, as in
// QJsonDocument. Returns the offset of the deepest step found when the path does not exist.
qsizetype locateJsonValue(const QByteArray& text, const JsonPath& path);

// 1-based line and column of a byte offset; columns count characters (UTF-8 sequences), not
// bytes, and a leading byte-order mark is not counted.
struct TextPosition {
    qsizetype line = 1;
    qsizetype column = 1;
};
TextPosition textPosition(const QByteArray& text, qsizetype offset);

// Offset of the first byte that is not part of valid UTF-8 (no overlong forms, no surrogates,
// nothing above U+10FFFF), or -1 when all of `text` is valid.
qsizetype firstInvalidUtf8(const QByteArray& text);
