// Applying the normalizers, pre-tokenizers and decoders, each as Hugging Face's tokenizers crate
// does. Reading them from tokenizer.json is tokenizer_pipeline_json.cpp.
#include "app/io/tokenizer_pipeline.h"

#include <QHash>
#include <QRegularExpressionMatchIterator>
#include <mutex>
#include <utility>

#include "app/io/bpe_bytes.h"
#include "app/io/json_locator.h"

namespace attn::tok {

namespace {

// Unicode White_Space, which is \s in Python's `regex` and in Oniguruma, without brackets.
const QString kWhiteSpace = QStringLiteral(
    "\\t\\n\\x{0B}\\f\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}"
    "\\x{202F}\\x{205F}\\x{3000}");

// `pattern` with \s and \S spelled out as White_Space (inside a class, its members).
QString withPythonWhiteSpace(const QString& pattern) {
    QString out;
    out.reserve(pattern.size() + 64);
    bool inClass = false;
    for (qsizetype i = 0; i < pattern.size(); ++i) {
        const QChar c = pattern[i];
        if (c == QLatin1Char('\\') && i + 1 < pattern.size()) {
            const QChar e = pattern[i + 1];
            ++i;
            if (e == QLatin1Char('s')) {
                out += inClass ? kWhiteSpace : QLatin1Char('[') + kWhiteSpace + QLatin1Char(']');
            } else if (e == QLatin1Char('S') && !inClass) {
                out += QStringLiteral("[^") + kWhiteSpace + QLatin1Char(']');
            } else {
                out += c;
                out += e;
            }
            continue;
        }
        if (c == QLatin1Char('[') && !inClass) {
            inClass = true;
            out += c;
            // A ']' right after '[' or '[^' is a member, not the end.
            if (i + 1 < pattern.size() && pattern[i + 1] == QLatin1Char('^')) {
                out += pattern[++i];
            }
            if (i + 1 < pattern.size() && pattern[i + 1] == QLatin1Char(']')) {
                out += pattern[++i];
            }
            continue;
        }
        if (c == QLatin1Char(']') && inClass) {
            inClass = false;
        }
        out += c;
    }
    return out;
}

struct Segment {
    qsizetype start;
    qsizetype end;
    bool match;
};

// The matches of `step`'s pattern in `text` and the text between them, in order; empty matches
// are dropped, as Hugging Face drops empty pieces.
std::vector<Segment> segments(const QString& text, const QRegularExpression& regex, bool invert) {
    std::vector<Segment> out;
    qsizetype prev = 0;
    QRegularExpressionMatchIterator it = regex.globalMatch(text);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        const qsizetype s = m.capturedStart();
        const qsizetype e = m.capturedEnd();
        if (e <= s) {
            continue;
        }
        if (s > prev) {
            out.push_back({prev, s, invert});
        }
        out.push_back({s, e, !invert});
        prev = e;
    }
    if (prev < text.size()) {
        out.push_back({prev, text.size(), invert});
    }
    return out;
}

// Hugging Face's SplitDelimiterBehavior applied to the segments.
std::vector<Segment> applyBehavior(std::vector<Segment> segs, SplitBehavior behavior) {
    std::vector<Segment> out;
    bool previousMatch = false;
    switch (behavior) {
        case SplitBehavior::kIsolated:
            return segs;
        case SplitBehavior::kRemoved:
            for (const Segment& s : segs)
                if (!s.match) out.push_back(s);
            return out;
        case SplitBehavior::kMergedWithPrevious:
            for (const Segment& s : segs) {
                if (s.match && !previousMatch && !out.empty()) {
                    out.back().end = s.end;
                } else {
                    out.push_back(s);
                }
                previousMatch = s.match;
            }
            return out;
        case SplitBehavior::kMergedWithNext:
            for (auto it = segs.rbegin(); it != segs.rend(); ++it) {
                if (it->match && !previousMatch && !out.empty()) {
                    out.back().start = it->start;
                } else {
                    out.push_back(*it);
                }
                previousMatch = it->match;
            }
            return {out.rbegin(), out.rend()};
        case SplitBehavior::kContiguous:
            for (const Segment& s : segs) {
                if (s.match == previousMatch && !out.empty()) {
                    out.back().end = s.end;
                } else {
                    out.push_back(s);
                }
                previousMatch = s.match;
            }
            return out;
    }
    return segs;
}

void splitInto(const QString& piece, const QRegularExpression& regex, SplitBehavior behavior,
               bool invert, QStringList& out) {
    for (const Segment& s : applyBehavior(segments(piece, regex, invert), behavior)) {
        if (s.end > s.start) {
            out << piece.mid(s.start, s.end - s.start);
        }
    }
}

const QRegularExpression& digitPattern() {
    static const std::shared_ptr<const QRegularExpression> re = [] {
        QString error;
        return compilePattern(QStringLiteral("\\p{N}"), &error);
    }();
    return *re;
}

void preTokenizeStep(const PreTokenizerStep& step, const QString& piece, bool atStart,
                     QStringList& out) {
    switch (step.kind) {
        case PreTokenizerStep::Kind::kSplit:
            splitInto(piece, *step.regex, step.behavior, step.invert, out);
            return;
        case PreTokenizerStep::Kind::kByteLevel: {
            QString p = piece;
            if (step.addPrefixSpace && !p.startsWith(QLatin1Char(' '))) {
                p.prepend(QLatin1Char(' '));
            }
            if (step.regex) {
                splitInto(p, *step.regex, SplitBehavior::kIsolated, false, out);
            } else {
                out << p;
            }
            return;
        }
        case PreTokenizerStep::Kind::kMetaspace: {
            QString p = piece;
            p.replace(QLatin1Char(' '), step.replacement);
            const bool prepend = step.scheme == PrependScheme::kAlways ||
                                 (step.scheme == PrependScheme::kFirst && atStart);
            if (prepend && !p.startsWith(step.replacement)) {
                p.prepend(step.replacement);
            }
            if (!step.split) {
                out << p;
                return;
            }
            qsizetype start = 0;
            for (qsizetype i = 1; i <= p.size(); ++i) {
                if (i == p.size() || p[i] == step.replacement) {
                    out << p.mid(start, i - start);
                    start = i;
                }
            }
            return;
        }
        case PreTokenizerStep::Kind::kDigits:
            splitInto(piece, digitPattern(),
                      step.individualDigits ? SplitBehavior::kIsolated : SplitBehavior::kContiguous,
                      false, out);
            return;
        case PreTokenizerStep::Kind::kBert:
            bertPreTokenize(piece, out);
            return;
    }
}

// ByteFallback: runs of "<0xE6>" tokens become their bytes' text, or one U+FFFD per byte when
// the bytes are not valid UTF-8 (Hugging Face's rule).
QStringList byteFallback(const QStringList& tokens) {
    QStringList out;
    QByteArray bytes;
    const auto flush = [&] {
        if (bytes.isEmpty()) {
            return;
        }
        if (firstInvalidUtf8(bytes) < 0) {
            out << QString::fromUtf8(bytes);
        } else {
            for (qsizetype i = 0; i < bytes.size(); ++i)
                out << QString(QChar::ReplacementCharacter);
        }
        bytes.clear();
    };
    for (const QString& t : tokens) {
        bool ok = false;
        const int byte =
            t.size() == 6 && t.startsWith(QLatin1String("<0x")) && t.endsWith(QLatin1Char('>'))
                ? t.mid(3, 2).toInt(&ok, 16)
                : -1;
        if (ok && byte >= 0) {
            bytes.append(static_cast<char>(byte));
        } else {
            flush();
            out << t;
        }
    }
    flush();
    return out;
}

QStringList decodeStep(const DecoderStep& step, QStringList tokens) {
    switch (step.kind) {
        case DecoderStep::Kind::kByteLevel:
            return {decodeUtf8Lossy(bpe::byteLevelBytes(tokens.join(QString())))};
        case DecoderStep::Kind::kReplace:
            for (QString& t : tokens) t = step.replace.apply(t);
            return tokens;
        case DecoderStep::Kind::kByteFallback:
            return byteFallback(tokens);
        case DecoderStep::Kind::kFuse:
            return {tokens.join(QString())};
        case DecoderStep::Kind::kStrip:
            for (QString& t : tokens) {
                qsizetype front = 0;
                while (front < step.start && front < t.size() && t.mid(front, 1) == step.strip)
                    ++front;
                qsizetype back = 0;
                while (back < step.stop && back < t.size() - front &&
                       t.mid(t.size() - 1 - back, 1) == step.strip)
                    ++back;
                t = t.mid(front, t.size() - front - back);
            }
            return tokens;
        case DecoderStep::Kind::kMetaspace:
            for (qsizetype i = 0; i < tokens.size(); ++i) {
                tokens[i].replace(step.replacement, QLatin1Char(' '));
                if (i == 0 && step.prependFirst && tokens[i].startsWith(QLatin1Char(' '))) {
                    tokens[i].remove(0, 1);
                }
            }
            return tokens;
        case DecoderStep::Kind::kWordPiece:
            return wordPieceDecode(step, std::move(tokens));
    }
    return tokens;
}

}  // namespace

QString TextRule::apply(const QString& text) const {
    if (!regex) {
        if (literal.isEmpty()) {
            return text;
        }
        QString out = text;
        return out.replace(literal, content);
    }
    // Not QString::replace(regex, ...): that reads "\1" in `content` as a back reference.
    QString out;
    qsizetype prev = 0;
    for (const Segment& s : segments(text, *regex, false)) {
        if (s.match) {
            out += QStringView(text).mid(prev, s.start - prev);
            out += content;
            prev = s.end;
        }
    }
    out += QStringView(text).mid(prev);
    return out;
}

QString Pipeline::normalize(QString text) const {
    for (const NormalizerStep& step : normalizers) {
        switch (step.kind) {
            case NormalizerStep::Kind::kNfc:
                text = text.normalized(QString::NormalizationForm_C);
                break;
            case NormalizerStep::Kind::kNfd:
                text = text.normalized(QString::NormalizationForm_D);
                break;
            case NormalizerStep::Kind::kNfkc:
                text = text.normalized(QString::NormalizationForm_KC);
                break;
            case NormalizerStep::Kind::kNfkd:
                text = text.normalized(QString::NormalizationForm_KD);
                break;
            case NormalizerStep::Kind::kPrepend:
                if (!text.isEmpty()) {
                    text.prepend(step.prepend);
                }
                break;
            case NormalizerStep::Kind::kReplace:
                text = step.replace.apply(text);
                break;
            case NormalizerStep::Kind::kLowercase:
                text = text.toLower();
                break;
            case NormalizerStep::Kind::kBert:
                text = bertNormalize(step, text);
                break;
        }
    }
    return text;
}

QStringList Pipeline::preTokenize(const QString& text, bool atStart) const {
    QStringList pieces{text};
    for (const PreTokenizerStep& step : preTokenizers) {
        QStringList next;
        for (qsizetype i = 0; i < pieces.size(); ++i) {
            preTokenizeStep(step, pieces[i], atStart && i == 0, next);
        }
        pieces = std::move(next);
    }
    pieces.removeAll(QString());
    return pieces;
}

QString Pipeline::decode(QStringList tokens) const {
    for (const DecoderStep& step : decoders) {
        tokens = decodeStep(step, std::move(tokens));
    }
    return tokens.join(QString());
}

std::shared_ptr<const QRegularExpression> compilePattern(const QString& pattern, QString* error) {
    // Bounded, so that a fuzzer's endless new patterns cannot grow it without end.
    static std::mutex mutex;
    static QHash<QString, std::shared_ptr<const QRegularExpression>> cache;
    const std::lock_guard lock(mutex);
    if (const auto it = cache.constFind(pattern); it != cache.constEnd()) {
        return *it;
    }
    auto regex = std::make_shared<QRegularExpression>(
        withPythonWhiteSpace(pattern), QRegularExpression::UseUnicodePropertiesOption);
    if (!regex->isValid()) {
        *error = QStringLiteral("%1 at character %2")
                     .arg(regex->errorString())
                     .arg(regex->patternErrorOffset());
        return nullptr;
    }
    regex->optimize();
    if (cache.size() >= 64) {
        cache.clear();
    }
    cache.insert(pattern, regex);
    return regex;
}

const QString& gpt2Pattern() {
    static const QString pattern = QStringLiteral(
        "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+");
    return pattern;
}

QString decodeUtf8Lossy(const QByteArray& bytes) {
    // Not QString::fromUtf8: it writes two U+FFFD for a sequence cut short ("E4 B8") where
    // Python writes one, and drops a leading U+FEFF.
    QString text;
    text.reserve(bytes.size());
    for (qsizetype i = 0; i < bytes.size();) {
        char32_t c = 0;
        const int len = utf8SequenceAt(bytes, i, &c);
        if (len > 0) {
            bpe::appendCodePoint(text, c);
            i += len;
        } else {
            text += QChar(QChar::ReplacementCharacter);
            i += bpe::invalidUtf8Length(bytes, i);
        }
    }
    return text;
}

QString withoutLoneSurrogates(QStringView text) {
    QString out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = text[i].unicode();
        if (QChar::isHighSurrogate(c) && i + 1 < text.size() &&
            QChar::isLowSurrogate(text[i + 1].unicode())) {
            out += text[i];
            out += text[++i];
        } else if (QChar::isSurrogate(c)) {
            out += QChar(QChar::ReplacementCharacter);
        } else {
            out += text[i];
        }
    }
    return out;
}

}  // namespace attn::tok
