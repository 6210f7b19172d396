// Reading JSON files and saying where they are wrong. QJsonDocument validates the syntax but
// forgets positions; to say "line 4, column 12" about a value that is well-formed JSON but wrong
// (a ragged row, a string where a number belongs) we find the value again by its path in the
// original bytes. Every JSON reader in app/io reports through JsonText, so that every message has
// one form:
//
//   <file>: line <L>, column <C>: <the problem>; <the fix>
//
// (<file>: is left out when the reader's caller puts the path in front, as for example files).
// Pasted matrices (matrix_text.h) name their positions with the same textPosition and
// positionText. Writing JSON is json_text.h.
//
// A reader that returns a result struct (the pattern of model_folder.cpp):
//
//   const JsonText text(QStringLiteral("config.json"), bytes);
//   QString error;
//   const std::optional<QJsonObject> o = text.parseObject(
//       QStringLiteral("copy config.json again from the model"),
//       QStringLiteral("config.json is an object such as {\"model_type\": \"gpt2\", ...}"),
//       &error);
//   if (!o) return fail(error);      // UTF-8, syntax or not an object, located
//   const QJsonValue v = o->value(QLatin1String("n_head"));
//   if (!v.isDouble())
//       return fail(text.message({jsonKey("n_head")},
//                                QStringLiteral("\"n_head\" is %1: give a whole number such as 12")
//                                    .arg(describeJsonValue(v))));
//
// A reader that stops at the first problem by throwing calls text.fail(path, ...) instead, which
// throws JsonError with the same message, and catches JsonError once at its entry point.
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringView>
#include <optional>
#include <vector>

namespace attn {

// One step of a path: a key of an object, or an index of an array (index >= 0).
struct JsonPathStep {
    QString key;
    qsizetype index = -1;
};
using JsonPath = std::vector<JsonPathStep>;

// Steps and paths: {jsonKey("model"), jsonKey("merges"), jsonIndex(3)}.
inline JsonPathStep jsonKey(const QString& key) { return {key, -1}; }
inline JsonPathStep jsonKey(const char* key) { return {QString::fromUtf8(key), -1}; }
inline JsonPathStep jsonIndex(qsizetype index) { return {QString(), index}; }
// `path` one step deeper.
JsonPath jsonChild(const JsonPath& path, const QString& key);
JsonPath jsonChild(const JsonPath& path, qsizetype index);

// Thrown by JsonText::fail; readers that stop at the first problem catch it at their entry point.
struct JsonError {
    QString message;
};

// A JSON file's name and bytes, and every message about it.
class JsonText {
public:
    // `file` as messages name it ("config.json"); empty when the caller names the file, and then
    // messages begin with "line".
    JsonText(QString file, QByteArray bytes);

    const QString& file() const { return file_; }
    const QByteArray& bytes() const { return bytes_; }

    // The document, after checking in order: the file is not empty, its bytes are valid UTF-8,
    // its JSON syntax is valid. Otherwise nullopt and *error holds the located message; a syntax
    // error's message ends with `syntaxFix` ("copy it again from the model"), unless the bad
    // token is NaN, Infinity or a number too large, which the message names instead.
    std::optional<QJsonDocument> parse(const QString& syntaxFix, QString* error) const;
    // The same, and the document must be an object: otherwise the message is "the file holds a
    // list; " followed by `objectFix` ("an example is an object {\"tokens\": [...]}").
    std::optional<QJsonObject> parseObject(const QString& syntaxFix, const QString& objectFix,
                                           QString* error) const;

    // "config.json: line 4, column 12" for the value at `path` (as far as it exists) or a byte
    // offset.
    QString where(const JsonPath& path) const;
    QString whereOffset(qsizetype offset) const;
    // where(path) + ": " + text, where `text` names the problem and the fix.
    QString message(const JsonPath& path, const QString& text) const;
    QString messageAt(qsizetype offset, const QString& text) const;
    // About the whole file, with no position: "vocab.json: " + text (just `text` without a name).
    QString fileMessage(const QString& text) const;
    // Throws JsonError{message(path, text)}.
    [[noreturn]] void fail(const JsonPath& path, const QString& text) const;

private:
    QString file_;
    QByteArray bytes_;
};

// A value for "x is %1, not ...": "the string \"abc\"", "the number 3", "a list", "an object",
// "null", "true", "false", "missing" (absent). Long strings are cut to 40 characters.
QString describeJsonValue(const QJsonValue& value);
// Text from the file in quotes for a message, cut to 40 characters: "\"Your journey\"".
QString quotedForMessage(const QString& text);
// "nan", "-Infinity", "+inf", ... (any case): words that are not JSON numbers but mean one.
bool isNonFiniteWord(const QString& text);

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
// The same in text already decoded (pasted matrices): a surrogate pair is one column.
TextPosition textPosition(QStringView text, qsizetype index);
// "line 4, column 12": how every message in app/io names a position.
QString positionText(TextPosition position);

// Length (1..4) of the valid UTF-8 sequence at `i`, with its code point in *codePoint; 0 when
// the bytes there are not one (no overlong forms, no surrogates, nothing above U+10FFFF).
int utf8SequenceAt(QByteArrayView text, qsizetype i, char32_t* codePoint);
// Offset of the first byte that is not part of valid UTF-8, or -1 when all of `text` is valid.
qsizetype firstInvalidUtf8(const QByteArray& text);

}  // namespace attn
