#include "app/io/json_locator.h"

#include <QJsonParseError>
#include <QStringList>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "app/io/json_text.h"
#include "model/number_format.h"

namespace attn {

namespace {

bool hasBom(const QByteArray& t) { return t.startsWith("\xEF\xBB\xBF"); }

// Positions move forward only, and every loop advances, so any input terminates; malformed text
// (which callers do not pass) just ends the search early.
class Scanner {
public:
    explicit Scanner(const QByteArray& text) : t_(text), n_(text.size()) {}

    char at(qsizetype p) const { return p < n_ ? t_[p] : '\0'; }

    qsizetype skipSpace(qsizetype p) const {
        while (p < n_ && (t_[p] == ' ' || t_[p] == '\t' || t_[p] == '\n' || t_[p] == '\r')) {
            ++p;
        }
        return p;
    }

    // p at the opening quote; returns the offset after the closing quote.
    qsizetype skipString(qsizetype p) const {
        ++p;
        while (p < n_) {
            if (t_[p] == '\\') {
                p += 2;
            } else if (t_[p] == '"') {
                return p + 1;
            } else {
                ++p;
            }
        }
        return n_;
    }

    // The decoded text of the string starting at p (the opening quote).
    QString readString(qsizetype p) const {
        QString out;
        QByteArray raw;
        const qsizetype end = skipString(p) - 1;
        for (qsizetype i = p + 1; i < end; ++i) {
            if (t_[i] != '\\') {
                raw += t_[i];
                continue;
            }
            out += fromUtf8KeepingBom(raw);
            raw.clear();
            const char e = at(i + 1);
            ++i;
            switch (e) {
                case 'b':
                    out += QChar(u'\b');
                    break;
                case 'f':
                    out += QChar(u'\f');
                    break;
                case 'n':
                    out += QChar(u'\n');
                    break;
                case 'r':
                    out += QChar(u'\r');
                    break;
                case 't':
                    out += QChar(u'\t');
                    break;
                case 'u': {
                    bool ok = false;
                    const ushort unit = t_.mid(i + 1, 4).toUShort(&ok, 16);
                    // Surrogate halves are appended as UTF-16 units, so a pair joins up by itself.
                    out += QChar(ok ? unit : ushort{0xFFFD});
                    i += 4;
                    break;
                }
                default:
                    out += QChar::fromLatin1(e);
                    break;  // \" \\ \/
            }
        }
        out += fromUtf8KeepingBom(raw);
        return out;
    }

    // p at the first byte of a value; returns the offset after it.
    qsizetype skipValue(qsizetype p) const {
        const char c = at(p);
        if (c == '"') {
            return skipString(p);
        }
        if (c == '{' || c == '[') {
            qsizetype depth = 0;
            while (p < n_) {
                const char d = t_[p];
                if (d == '"') {
                    p = skipString(p);
                    continue;
                }
                if (d == '{' || d == '[') {
                    ++depth;
                } else if (d == '}' || d == ']') {
                    if (--depth == 0) {
                        return p + 1;
                    }
                }
                ++p;
            }
            return n_;
        }
        while (p < n_ && t_[p] != ',' && t_[p] != ']' && t_[p] != '}' && t_[p] != ' ' &&
               t_[p] != '\t' && t_[p] != '\n' && t_[p] != '\r') {
            ++p;
        }
        return p;
    }

private:
    const QByteArray& t_;
    qsizetype n_;
};

}  // namespace

qsizetype locateJsonValue(const QByteArray& text, const JsonPath& path) {
    const Scanner s(text);
    qsizetype p = s.skipSpace(hasBom(text) ? 3 : 0);
    for (const JsonPathStep& step : path) {
        if (step.index >= 0) {
            if (s.at(p) != '[') {
                return p;
            }
            qsizetype q = s.skipSpace(p + 1);
            for (qsizetype i = 0; i < step.index; ++i) {
                q = s.skipSpace(s.skipValue(q));
                if (s.at(q) != ',') {
                    return p;
                }
                q = s.skipSpace(q + 1);
            }
            if (s.at(q) == ']') {
                return p;
            }
            p = q;
        } else {
            if (s.at(p) != '{') {
                return p;
            }
            qsizetype q = s.skipSpace(p + 1);
            qsizetype found = -1;
            while (s.at(q) == '"') {
                const QString key = s.readString(q);
                q = s.skipSpace(s.skipString(q));
                if (s.at(q) != ':') {
                    break;
                }
                q = s.skipSpace(q + 1);
                if (key == step.key) {
                    found = q;  // keep scanning: the last duplicate wins, as in QJsonDocument
                }
                q = s.skipSpace(s.skipValue(q));
                if (s.at(q) != ',') {
                    break;
                }
                q = s.skipSpace(q + 1);
            }
            if (found < 0) {
                return p;
            }
            p = found;
        }
    }
    return p;
}

TextPosition textPosition(const QByteArray& text, qsizetype offset) {
    TextPosition pos;
    const qsizetype end = std::min(offset, text.size());
    for (qsizetype i = hasBom(text) ? 3 : 0; i < end; ++i) {
        const auto b = static_cast<unsigned char>(text[i]);
        if (b == '\n') {
            ++pos.line;
            pos.column = 1;
        } else if ((b & 0xC0) != 0x80) {  // not a continuation byte: a new character
            ++pos.column;
        }
    }
    return pos;
}

TextPosition textPosition(QStringView text, qsizetype index) {
    TextPosition pos;
    const qsizetype end = std::min(index, text.size());
    for (qsizetype i = 0; i < end; ++i) {
        if (text[i] == QLatin1Char('\n')) {
            ++pos.line;
            pos.column = 1;
        } else if (!text[i].isLowSurrogate()) {  // a surrogate pair is one character
            ++pos.column;
        }
    }
    return pos;
}

QString positionText(TextPosition position) {
    return QStringLiteral("line %1, column %2").arg(position.line).arg(position.column);
}

int utf8SequenceAt(QByteArrayView text, qsizetype i, char32_t* codePoint) {
    const auto at = [&](qsizetype k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char b = at(i);
    if (b < 0x80) {
        *codePoint = b;
        return 1;
    }
    int len = 0;
    char32_t v = 0;
    char32_t min = 0;
    if (b >= 0xC2 && b <= 0xDF) {
        len = 2, v = b & 0x1Fu, min = 0x80;
    } else if (b >= 0xE0 && b <= 0xEF) {
        len = 3, v = b & 0x0Fu, min = 0x800;
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4, v = b & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    if (i + len > text.size()) {
        return 0;
    }
    for (int k = 1; k < len; ++k) {
        const unsigned char c = at(i + k);
        if ((c & 0xC0u) != 0x80u) {
            return 0;
        }
        v = (v << 6) | (c & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        return 0;
    }
    *codePoint = v;
    return len;
}

qsizetype firstInvalidUtf8(const QByteArray& text) {
    char32_t codePoint = 0;
    for (qsizetype i = 0; i < text.size();) {
        const int len = utf8SequenceAt(text, i, &codePoint);
        if (len == 0) {
            return i;
        }
        i += len;
    }
    return -1;
}

// --- messages ------------------------------------------------------------------------------

JsonPath jsonChild(const JsonPath& path, const QString& key) {
    JsonPath out = path;
    out.push_back(jsonKey(key));
    return out;
}

JsonPath jsonChild(const JsonPath& path, qsizetype index) {
    JsonPath out = path;
    out.push_back(jsonIndex(index));
    return out;
}

QString quotedForMessage(const QString& text) {
    constexpr qsizetype kShown = 40;
    return QLatin1Char('"') +
           (text.size() > kShown ? text.left(kShown) + QStringLiteral("...") : text) +
           QLatin1Char('"');
}

QString describeJsonValue(const QJsonValue& value) {
    switch (value.type()) {
        case QJsonValue::Null:
            return QStringLiteral("null");
        case QJsonValue::Bool:
            return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        case QJsonValue::Double: {
            // Whole numbers as written ("1000000000", not "1e+09"); others by their shortest
            // digits, so 0.1 reads "0.1" and a number beyond float's range as written.
            const double d = value.toDouble();
            const bool whole = std::floor(d) == d && std::fabs(d) <= 9007199254740992.0;
            return QStringLiteral("the number ") +
                   (whole ? QString::number(static_cast<qint64>(d))
                          : QString::fromStdString(attn::format_shortest(d)));
        }
        case QJsonValue::String:
            return QStringLiteral("the string ") + quotedForMessage(value.toString());
        case QJsonValue::Array:
            return QStringLiteral("a list");
        case QJsonValue::Object:
            return QStringLiteral("an object");
        case QJsonValue::Undefined:
            break;
    }
    return QStringLiteral("missing");
}

bool isNonFiniteWord(const QString& text) {
    const QString w = text.trimmed().toLower();
    static const QStringList words = {"nan",  "+nan",     "-nan",      "inf",      "+inf",
                                      "-inf", "infinity", "+infinity", "-infinity"};
    return words.contains(w);
}

namespace {

// The token at a syntax error, for a hint about NaN / Infinity / huge numbers.
QByteArray wordAt(const QByteArray& bytes, qsizetype offset) {
    auto isWordChar = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
    };
    qsizetype begin = std::min(offset, bytes.size());
    // Qt reports some errors just after the bad token: step back onto it.
    if (begin > 0 && (begin == bytes.size() || !isWordChar(bytes[begin])) &&
        isWordChar(bytes[begin - 1])) {
        --begin;
    }
    while (begin > 0 && isWordChar(bytes[begin - 1])) {
        --begin;
    }
    qsizetype end = begin;
    while (end < bytes.size() && isWordChar(bytes[end]) && end - begin < 64) {
        ++end;
    }
    return bytes.mid(begin, end - begin);
}

// " (NaN and Infinity are not JSON numbers; ...)" when the bad token is one of those; empty
// otherwise.
QString syntaxHint(const QByteArray& bytes, qsizetype offset) {
    const QByteArray word = wordAt(bytes, offset);
    if (isNonFiniteWord(QString::fromLatin1(word))) {
        return QStringLiteral(
            " (NaN and Infinity are not JSON numbers; every value must be finite)");
    }
    double d = 0.0;
    const char* end = word.constData() + word.size();
    const std::from_chars_result r = std::from_chars(word.constData(), end, d);
    const bool negativeExponent = word.contains("e-") || word.contains("E-");
    if (r.ptr == end && r.ec == std::errc::result_out_of_range && !negativeExponent) {
        return QStringLiteral(" (the number %1 is too large)").arg(QString::fromLatin1(word));
    }
    return QString();
}

}  // namespace

JsonText::JsonText(QString file, QByteArray bytes)
    : file_(std::move(file)), bytes_(std::move(bytes)) {}

QString JsonText::whereOffset(qsizetype offset) const {
    return fileMessage(positionText(textPosition(bytes_, offset)));
}

QString JsonText::where(const JsonPath& path) const {
    return whereOffset(locateJsonValue(bytes_, path));
}

QString JsonText::message(const JsonPath& path, const QString& text) const {
    return where(path) + QStringLiteral(": ") + text;
}

QString JsonText::messageAt(qsizetype offset, const QString& text) const {
    return whereOffset(offset) + QStringLiteral(": ") + text;
}

QString JsonText::fileMessage(const QString& text) const {
    return file_.isEmpty() ? text : file_ + QStringLiteral(": ") + text;
}

void JsonText::fail(const JsonPath& path, const QString& text) const {
    throw JsonError{message(path, text)};
}

std::optional<QJsonDocument> JsonText::parse(const QString& syntaxFix, QString* error) const {
    const QByteArray trimmed = bytes_.trimmed();
    if (trimmed.isEmpty() || trimmed == "\xEF\xBB\xBF") {
        *error = fileMessage(QStringLiteral("the file is empty; ") + syntaxFix);
        return std::nullopt;
    }
    const qsizetype bad = firstInvalidUtf8(bytes_);
    if (bad >= 0) {
        *error = messageAt(
            bad, QStringLiteral("the file is not valid UTF-8 (byte 0x%1): save it as UTF-8")
                     .arg(static_cast<unsigned char>(bytes_[bad]), 2, 16, QLatin1Char('0')));
        return std::nullopt;
    }
    QJsonParseError parseError{};
    QJsonDocument doc = QJsonDocument::fromJson(bytes_, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        const QString hint = syntaxHint(bytes_, parseError.offset);
        *error = messageAt(parseError.offset,
                           QStringLiteral("not valid JSON: ") + parseError.errorString() +
                               (hint.isEmpty() ? QStringLiteral("; ") + syntaxFix : hint));
        return std::nullopt;
    }
    return doc;
}

std::optional<QJsonObject> JsonText::parseObject(const QString& syntaxFix, const QString& objectFix,
                                                 QString* error) const {
    const std::optional<QJsonDocument> doc = parse(syntaxFix, error);
    if (!doc) {
        return std::nullopt;
    }
    if (!doc->isObject()) {
        *error = message({}, QStringLiteral("the file holds %1; %2")
                                 .arg(doc->isArray() ? QStringLiteral("a list")
                                                     : QStringLiteral("a single value"),
                                      objectFix));
        return std::nullopt;
    }
    return doc->object();
}

}  // namespace attn
