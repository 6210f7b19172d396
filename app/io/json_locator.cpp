#include "app/io/json_locator.h"

#include <algorithm>

#include "app/io/json_text.h"

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

qsizetype firstInvalidUtf8(const QByteArray& text) {
    const qsizetype n = text.size();
    qsizetype i = 0;
    while (i < n) {
        const auto b0 = static_cast<unsigned char>(text[i]);
        if (b0 < 0x80) {
            ++i;
            continue;
        }
        qsizetype len = 0;
        char32_t cp = 0;
        char32_t min = 0;
        if ((b0 & 0xE0) == 0xC0) {
            len = 2;
            cp = b0 & 0x1Fu;
            min = 0x80;
        } else if ((b0 & 0xF0) == 0xE0) {
            len = 3;
            cp = b0 & 0x0Fu;
            min = 0x800;
        } else if ((b0 & 0xF8) == 0xF0) {
            len = 4;
            cp = b0 & 0x07u;
            min = 0x10000;
        } else {
            return i;
        }
        if (i + len > n) {
            return i;
        }
        for (qsizetype k = 1; k < len; ++k) {
            const auto b = static_cast<unsigned char>(text[i + k]);
            if ((b & 0xC0) != 0x80) {
                return i;
            }
            cp = (cp << 6) | (b & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return i;
        }
        i += len;
    }
    return -1;
}
