#include "app/io/bpe_pretokenizer.h"

#include <QChar>
#include <vector>

#include "app/io/bpe_bytes.h"

namespace attn::bpe {

namespace {

// The classes GPT-2's pattern tells apart. kSpace is Unicode White_Space, which is what \s means
// in Python's `regex` module (it has U+0085, and neither U+180E nor U+FEFF).
enum class CharClass { kLetter, kNumber, kSpace, kOther };

bool isWhiteSpace(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000;
}

CharClass classify(char32_t c) {
    if (isWhiteSpace(c)) {
        return CharClass::kSpace;
    }
    if (QChar::isLetter(c)) {
        return CharClass::kLetter;
    }
    if (QChar::isNumber(c)) {
        return CharClass::kNumber;
    }
    return CharClass::kOther;
}

// Code points of `text`, an unpaired surrogate as U+FFFD.
std::vector<char32_t> codePoints(QStringView text) {
    std::vector<char32_t> out;
    out.reserve(static_cast<std::size_t>(text.size()));
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = text[i].unicode();
        if (QChar::isHighSurrogate(c) && i + 1 < text.size() &&
            QChar::isLowSurrogate(text[i + 1].unicode())) {
            out.push_back(QChar::surrogateToUcs4(c, text[i + 1].unicode()));
            ++i;
        } else if (QChar::isSurrogate(c)) {
            out.push_back(0xFFFD);
        } else {
            out.push_back(c);
        }
    }
    return out;
}

// Length of the match of GPT-2's pattern at `i` (always >= 1), trying its alternatives in order.
std::size_t matchAt(const std::vector<char32_t>& cp, const std::vector<CharClass>& cls,
                    std::size_t i) {
    const std::size_t n = cp.size();
    // 's|'t|'re|'ve|'m|'ll|'d
    if (cp[i] == U'\'' && i + 1 < n) {
        const char32_t a = cp[i + 1];
        if (a == U's' || a == U't' || a == U'm' || a == U'd') {
            return 2;
        }
        if (i + 2 < n) {
            const char32_t b = cp[i + 2];
            if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) {
                return 3;
            }
        }
    }
    //  ?\p{L}+ |  ?\p{N}+ |  ?[^\s\p{L}\p{N}]+ : the optional space is U+0020 only; the space
    // itself is of none of the three classes, so "with the space" and "without" never compete.
    const std::size_t s = (cp[i] == U' ' && i + 1 < n) ? i + 1 : i;
    if (cls[s] != CharClass::kSpace) {
        std::size_t j = s;
        while (j < n && cls[j] == cls[s]) {
            ++j;
        }
        return j - i;
    }
    // \s+(?!\S) | \s+ : a run of white space, less its last character when a non-space follows
    // (that one goes with the next word), unless the run is that one character.
    std::size_t j = i;
    while (j < n && cls[j] == CharClass::kSpace) {
        ++j;
    }
    if (j < n && j - i >= 2) {
        return j - i - 1;
    }
    return j - i;
}

}  // namespace

void forEachPreToken(QStringView text, const std::function<void(const QByteArray&)>& word) {
    const std::vector<char32_t> cp = codePoints(text);
    std::vector<CharClass> cls(cp.size());
    for (std::size_t i = 0; i < cp.size(); ++i) {
        cls[i] = classify(cp[i]);
    }
    QByteArray piece;
    for (std::size_t i = 0; i < cp.size();) {
        const std::size_t len = matchAt(cp, cls, i);
        piece.clear();
        for (std::size_t k = i; k < i + len; ++k) {
            appendUtf8(piece, cp[k]);
        }
        word(piece);
        i += len;
    }
}

}  // namespace attn::bpe
