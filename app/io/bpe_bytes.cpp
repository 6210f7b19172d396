#include "app/io/bpe_bytes.h"

#include <QChar>

#include "app/io/json_locator.h"

namespace attn::bpe {

ByteMap::ByteMap() {
    for (int& b : toByte) {
        b = -1;
    }
    int next = 256;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
        toChar[b] = static_cast<char16_t>(printable ? b : next++);
        toByte[toChar[b]] = b;
    }
}

const ByteMap& byteMap() {
    static const ByteMap map;
    return map;
}

QByteArray byteLevelBytes(const QString& token) {
    const ByteMap& map = byteMap();
    QByteArray out;
    out.reserve(token.size());
    qsizetype i = 0;
    while (i < token.size()) {
        const char16_t c = token.at(i).unicode();
        if (c < 324 && map.toByte[c] >= 0) {
            out.append(static_cast<char>(map.toByte[c]));
            ++i;
            continue;
        }
        qsizetype j = i + 1;
        while (j < token.size() &&
               !(token.at(j).unicode() < 324 && map.toByte[token.at(j).unicode()] >= 0)) {
            ++j;
        }
        out.append(token.mid(i, j - i).toUtf8());
        i = j;
    }
    return out;
}

int invalidUtf8Length(const QByteArray& s, qsizetype i) {
    const auto at = [&](qsizetype k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b = at(i);
    int len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
        len = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
        len = 3;
        lo = b == 0xE0 ? 0xA0 : 0x80;
        hi = b == 0xED ? 0x9F : 0xBF;
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4;
        lo = b == 0xF0 ? 0x90 : 0x80;
        hi = b == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 1;
    }
    int k = 1;
    while (k < len && i + k < s.size()) {
        const unsigned char c = at(i + k);
        if (c < lo || c > hi) {
            break;
        }
        lo = 0x80;
        hi = 0xBF;
        ++k;
    }
    return k;
}

void appendCodePoint(QString& out, char32_t c) {
    if (QChar::requiresSurrogates(c)) {
        out += QChar(QChar::highSurrogate(c));
        out += QChar(QChar::lowSurrogate(c));
    } else {
        out += QChar(static_cast<char16_t>(c));
    }
}

void appendUtf8(QByteArray& out, char32_t c) {
    if (c < 0x80) {
        out.append(static_cast<char>(c));
    } else if (c < 0x800) {
        out.append(static_cast<char>(0xC0 | (c >> 6)));
        out.append(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        out.append(static_cast<char>(0xE0 | (c >> 12)));
        out.append(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.append(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
        out.append(static_cast<char>(0xF0 | (c >> 18)));
        out.append(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
        out.append(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.append(static_cast<char>(0x80 | (c & 0x3F)));
    }
}

QString displayBytes(const QByteArray& bytes) {
    QString out;
    for (qsizetype i = 0; i < bytes.size();) {
        char32_t c = 0;
        const int len = utf8SequenceAt(bytes, i, &c);
        if (len == 0) {
            out += QStringLiteral("<%1>")
                       .arg(static_cast<unsigned char>(bytes[i]), 2, 16, QLatin1Char('0'))
                       .toUpper();
            ++i;
            continue;
        }
        i += len;
        if (c == U' ') {
            out += QChar(0x2423);  // ␣ OPEN BOX
        } else if (c < 0x20) {
            out += QChar(static_cast<char16_t>(0x2400 + c));  // ␀ .. ␟ control pictures
        } else if (c == 0x7F) {
            out += QChar(0x2421);  // ␡
        } else {
            appendCodePoint(out, c);
        }
    }
    return out;
}

}  // namespace attn::bpe
