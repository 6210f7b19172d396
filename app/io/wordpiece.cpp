// BERT's tokenizer as the tokenizers crate runs it (and transformers' BertTokenizer, which agrees):
// BertNormalizer, BertPreTokenizer, the WordPiece model (greedy longest match first, "##" before
// a piece that continues a word) and the WordPiece decoder. Loading vocab.txt is
// wordpiece_vocab.cpp; the steps are called from tokenizer_pipeline.cpp and tokenizer.cpp.
#include <QChar>

#include "app/io/tokenizer.h"
#include "app/io/tokenizer_pipeline.h"

namespace attn {

namespace tok {

namespace {

// The code point at text[*i], advancing *i past it (a lone surrogate is itself).
char32_t nextCodePoint(const QString& text, qsizetype* i) {
    const char16_t c = text[*i].unicode();
    if (QChar::isHighSurrogate(c) && *i + 1 < text.size() &&
        QChar::isLowSurrogate(text[*i + 1].unicode())) {
        const char32_t cp = QChar::surrogateToUcs4(c, text[*i + 1].unicode());
        *i += 2;
        return cp;
    }
    *i += 1;
    return c;
}

void appendCodePoint(QString& out, char32_t cp) {
    if (QChar::requiresSurrogates(cp)) {
        out += QChar(QChar::highSurrogate(cp));
        out += QChar(QChar::lowSurrogate(cp));
    } else {
        out += QChar(static_cast<char16_t>(cp));
    }
}

// BERT's _is_control: the categories C*, but tab, newline and return count as white space.
bool isControl(char32_t c) {
    if (c == U'\t' || c == U'\n' || c == U'\r') {
        return false;
    }
    switch (QChar::category(c)) {
        case QChar::Other_Control:
        case QChar::Other_Format:
        case QChar::Other_Surrogate:
        case QChar::Other_PrivateUse:
        case QChar::Other_NotAssigned:
            return true;
        default:
            return false;
    }
}

// Unicode White_Space (Rust's char::is_whitespace), which BERT's splitting uses.
bool isWhiteSpace(char32_t c) { return QChar::isSpace(c); }

// BERT's _is_chinese_char: the CJK Unified Ideographs blocks, not Japanese kana or Hangul.
bool isChineseChar(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
           (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
           (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

// BERT's _is_punctuation: every ASCII non-letter, non-digit, non-space (so "$", "+", "^" too)
// and the Unicode categories P*.
bool isPunctuation(char32_t c) {
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
        (c >= 123 && c <= 126)) {
        return true;
    }
    switch (QChar::category(c)) {
        case QChar::Punctuation_Connector:
        case QChar::Punctuation_Dash:
        case QChar::Punctuation_Open:
        case QChar::Punctuation_Close:
        case QChar::Punctuation_InitialQuote:
        case QChar::Punctuation_FinalQuote:
        case QChar::Punctuation_Other:
            return true;
        default:
            return false;
    }
}

// The WordPiece decoder's cleanup (the crate's decoders::wordpiece::cleanup), token by token.
QString cleanup(QString token) {
    static const std::pair<const char*, const char*> kRules[] = {
        {" .", "."},   {" ?", "?"},     {" !", "!"},    {" ,", ","},
        {" ' ", "'"},  {" n't", "n't"}, {" 'm", "'m"},  {" do not", " don't"},
        {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto& [from, to] : kRules) {
        token.replace(QLatin1String(from), QLatin1String(to));
    }
    return token;
}

}  // namespace

QString bertNormalize(const NormalizerStep& step, const QString& text) {
    QString out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size();) {
        const char32_t c = nextCodePoint(text, &i);
        if (step.cleanText && (c == 0 || c == 0xFFFD || isControl(c))) {
            continue;
        }
        if (step.cleanText && isWhiteSpace(c)) {
            out += QLatin1Char(' ');
        } else if (step.handleChineseChars && isChineseChar(c)) {
            out += QLatin1Char(' ');
            appendCodePoint(out, c);
            out += QLatin1Char(' ');
        } else {
            appendCodePoint(out, c);
        }
    }
    if (step.lowercase) {
        out = out.toLower();
    }
    if (step.stripAccents) {
        // Accents are the nonspacing marks NFD splits off; the text stays decomposed, as BERT's.
        const QString nfd = out.normalized(QString::NormalizationForm_D);
        out.clear();
        for (qsizetype i = 0; i < nfd.size();) {
            const char32_t c = nextCodePoint(nfd, &i);
            if (QChar::category(c) != QChar::Mark_NonSpacing) {
                appendCodePoint(out, c);
            }
        }
    }
    return out;
}

void bertPreTokenize(const QString& text, QStringList& out) {
    QString word;
    const auto flush = [&] {
        if (!word.isEmpty()) {
            out << word;
            word.clear();
        }
    };
    for (qsizetype i = 0; i < text.size();) {
        const qsizetype start = i;
        const char32_t c = nextCodePoint(text, &i);
        if (isWhiteSpace(c)) {
            flush();
        } else if (isPunctuation(c)) {
            flush();
            out << text.mid(start, i - start);
        } else {
            word += QStringView(text).mid(start, i - start);
        }
    }
    flush();
}

QStringList wordPieceDecode(const DecoderStep& step, QStringList tokens) {
    for (qsizetype i = 0; i < tokens.size(); ++i) {
        QString& t = tokens[i];
        if (i != 0) {
            if (!step.prefix.isEmpty() && t.startsWith(step.prefix)) {
                t.remove(0, step.prefix.size());
            } else {
                t.prepend(QLatin1Char(' '));
            }
        }
        if (step.cleanup) {
            t = cleanup(t);
        }
    }
    return tokens;
}

}  // namespace tok

void Tokenizer::encodeWordPiece(const QString& word, std::vector<int>& out) const {
    // Greedy longest match first over the word's characters (code points), as BERT's
    // WordpieceTokenizer; a word that cannot be covered, or is too long, is one unknown token.
    std::vector<qsizetype> bounds;  // UTF-8 offsets of the character boundaries
    const QByteArray utf8 = word.toUtf8();
    for (qsizetype i = 0; i < utf8.size(); ++i) {
        if ((static_cast<unsigned char>(utf8[i]) & 0xC0) != 0x80) {
            bounds.push_back(i);
        }
    }
    bounds.push_back(utf8.size());
    const std::size_t chars = bounds.size() - 1;
    const std::size_t before = out.size();
    const auto unknown = [&] {
        out.resize(before);
        if (unk_) {
            out.push_back(*unk_);
        }
    };
    if (chars > static_cast<std::size_t>(maxInputCharsPerWord_)) {
        unknown();
        return;
    }
    const QByteArray prefix = continuingPrefix_.toUtf8();
    std::size_t start = 0;
    QByteArray piece;
    while (start < chars) {
        // No token is longer than the longest one: start there, not at the word's end.
        std::size_t end = chars;
        while (end > start + 1 &&
               bounds[end] - bounds[start] + (start > 0 ? prefix.size() : 0) > maxTokenBytes_) {
            --end;
        }
        int found = -1;
        for (; end > start; --end) {
            piece = start > 0 ? prefix : QByteArray();
            piece.append(utf8.constData() + bounds[start], bounds[end] - bounds[start]);
            found = idOf_.value(piece, -1);
            if (found >= 0) {
                break;
            }
        }
        if (found < 0) {
            unknown();
            return;
        }
        out.push_back(found);
        start = end;
    }
}

}  // namespace attn
