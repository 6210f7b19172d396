#include "app/io/bpe_tokenizer.h"

#include <QChar>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>
#include <cmath>
#include <functional>
#include <queue>
#include <utility>

#include "app/io/json_locator.h"
#include "app/io/json_text.h"

namespace {

// Words longer than this are not cached (Hugging Face's limit), and the cache is emptied when it
// holds this many words, so huge inputs cannot grow it without bound.
constexpr qsizetype kMaxCachedWordBytes = 256;
constexpr qsizetype kMaxCachedWords = 10000;

// GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the other 68 bytes
// (controls, space, U+00A0, U+00AD) for U+0100 onwards in byte order, so that every token is
// printable text.
struct ByteMap {
    char16_t toChar[256] = {};
    int toByte[324];  // by char16_t below U+0144; -1 for characters that stand for no byte
    ByteMap() {
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
};
const ByteMap& byteMap() {
    static const ByteMap map;
    return map;
}

// The token's text as bytes: each character of a byte-level token is one byte; a character that
// stands for no byte (possible in another model's vocabulary) is its own UTF-8.
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

// Length of the valid UTF-8 sequence at `i` (1..4) with its code point, or 0 if the bytes there
// are not one.
int utf8Sequence(const QByteArray& s, qsizetype i, char32_t* cp) {
    const auto at = [&](qsizetype k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b = at(i);
    if (b < 0x80) {
        *cp = b;
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
    if (i + len > s.size()) {
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
    *cp = v;
    return len;
}

// Length of the maximal invalid part at `i` (where utf8Sequence found no sequence): a lead byte
// and the continuation bytes that could still have completed it, or one byte. This is the
// Unicode "maximal subpart" rule that Python's decoder follows.
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

// Not QString::fromUcs4, which drops U+FEFF as a byte-order mark.
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

QString megabytes(qint64 bytes) {
    return QString::number(static_cast<double>(bytes) / (1 << 20), 'f', 1);
}

QString quoted(const QString& s) {
    constexpr qsizetype kShown = 40;
    return QLatin1Char('"') + (s.size() > kShown ? s.left(kShown) + QStringLiteral("...") : s) +
           QLatin1Char('"');
}

struct LoadFailure {
    QString message;
};

// Where a JSON value is: "line 4, column 12".
QString at(const QByteArray& bytes, const JsonPath& path) {
    const TextPosition pos = textPosition(bytes, locateJsonValue(bytes, path));
    return QStringLiteral("line %1, column %2").arg(pos.line).arg(pos.column);
}

QJsonDocument parseJson(const QByteArray& bytes, const QString& file) {
    const qsizetype bad = firstInvalidUtf8(bytes);
    if (bad >= 0) {
        const TextPosition pos = textPosition(bytes, bad);
        throw LoadFailure{QStringLiteral("%1: line %2, column %3: the bytes are not valid UTF-8; "
                                         "save the file as UTF-8")
                              .arg(file)
                              .arg(pos.line)
                              .arg(pos.column)};
    }
    QJsonParseError error{};
    QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError) {
        const TextPosition pos = textPosition(bytes, error.offset);
        throw LoadFailure{QStringLiteral("%1: line %2, column %3: %4; the file is not valid JSON "
                                         "(cut short?): copy it again from the model")
                              .arg(file)
                              .arg(pos.line)
                              .arg(pos.column)
                              .arg(error.errorString())};
    }
    if (!doc.isObject()) {
        throw LoadFailure{
            QStringLiteral("%1: the file holds a JSON %2, not an object: is it the right file?")
                .arg(file, doc.isArray() ? QStringLiteral("list") : QStringLiteral("value"))};
    }
    return doc;
}

QString describe(const QJsonValue& v) {
    switch (v.type()) {
        case QJsonValue::Null:
            return QStringLiteral("null");
        case QJsonValue::Bool:
            return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        case QJsonValue::Double:
            return QStringLiteral("the number ") + QString::number(v.toDouble(), 'g', 17);
        case QJsonValue::String:
            return QStringLiteral("the string ") + quoted(v.toString());
        case QJsonValue::Array:
            return QStringLiteral("a list");
        case QJsonValue::Object:
            return QStringLiteral("an object");
        case QJsonValue::Undefined:
            break;
    }
    return QStringLiteral("missing");
}

// An id: an integer 0 <= id < kMaxTokenizerIds.
std::optional<int> jsonId(const QJsonValue& v) {
    if (!v.isDouble()) {
        return std::nullopt;
    }
    const double d = v.toDouble();
    if (!(d >= 0 && d < kMaxTokenizerIds) || std::floor(d) != d) {
        return std::nullopt;
    }
    return static_cast<int>(d);
}

QString idRule() {
    return QStringLiteral("ids are whole numbers from 0 to %1").arg(kMaxTokenizerIds - 1);
}

// "a b" -> ("a", "b"); nothing unless it is two non-empty parts around one space.
std::optional<std::pair<QString, QString>> splitMerge(const QString& line) {
    const qsizetype space = line.indexOf(QLatin1Char(' '));
    if (space <= 0 || space + 1 >= line.size() || line.indexOf(QLatin1Char(' '), space + 1) >= 0) {
        return std::nullopt;
    }
    return std::pair{line.left(space), line.mid(space + 1)};
}

}  // namespace

// What the two file forms have in common, before the checks that need the whole picture.
struct BpeBuilder {
    struct VocabEntry {
        QString token;
        int id;
    };
    std::vector<VocabEntry> vocab;
    std::vector<std::pair<QString, QString>> merges;  // in rank order
    std::vector<BpeTokenizer::AddedToken> added;
    QString vocabFile;                          // "vocab.json" or "tokenizer.json"
    std::function<QString(qsizetype)> mergeAt;  // "merges.txt: line 7" for merge i
    std::function<QString(qsizetype)> addedAt;  // where added token i is

    BpeLoadResult build() const;
};

BpeLoadResult BpeBuilder::build() const {
    std::shared_ptr<BpeTokenizer> t(new BpeTokenizer());
    std::unordered_map<QString, int> ids;
    ids.reserve(vocab.size());
    int size = 0;
    for (const VocabEntry& e : vocab) {
        ids.emplace(e.token, e.id);
        size = std::max(size, e.id + 1);
    }
    for (const BpeTokenizer::AddedToken& a : added) {
        size = std::max(size, a.id + 1);
    }
    t->tokens_.resize(static_cast<std::size_t>(size));
    t->bytes_.resize(static_cast<std::size_t>(size));
    for (const VocabEntry& e : vocab) {
        QString& slot = t->tokens_[static_cast<std::size_t>(e.id)];
        if (!slot.isNull()) {
            throw LoadFailure{QStringLiteral("%1: %2 and %3 both have id %4; every token needs "
                                             "its own id")
                                  .arg(vocabFile, quoted(slot), quoted(e.token))
                                  .arg(e.id)};
        }
        slot = e.token;
        t->bytes_[static_cast<std::size_t>(e.id)] = byteLevelBytes(e.token);
    }
    for (std::size_t i = 0; i < added.size(); ++i) {
        const BpeTokenizer::AddedToken& a = added[i];
        QString& slot = t->tokens_[static_cast<std::size_t>(a.id)];
        if (!slot.isNull() && slot != a.content) {
            throw LoadFailure{QStringLiteral("%1: the added token %2 has id %3, which the "
                                             "vocabulary gives to %4; give it its own id")
                                  .arg(addedAt(static_cast<qsizetype>(i)), quoted(a.content))
                                  .arg(a.id)
                                  .arg(quoted(slot))};
        }
        slot = a.content;
        t->bytes_[static_cast<std::size_t>(a.id)] = a.content.toUtf8();
        t->added_.push_back(a);
        if (a.content == QLatin1String(kEndOfTextToken)) {
            t->endOfText_ = a.id;
        }
    }
    const ByteMap& map = byteMap();
    for (int b = 0; b < 256; ++b) {
        const QString symbol(QChar(map.toChar[b]));
        const auto it = ids.find(symbol);
        if (it == ids.end()) {
            throw LoadFailure{QStringLiteral("%1: the vocabulary has no token for the byte 0x%2 "
                                             "(%3): a byte-level BPE vocabulary has all 256 "
                                             "byte tokens; is it a GPT-2-style tokenizer?")
                                  .arg(vocabFile)
                                  .arg(b, 2, 16, QLatin1Char('0'))
                                  .arg(quoted(symbol))};
        }
        t->byteSymbol_[b] = it->second;
    }
    t->merges_.reserve(merges.size());
    for (std::size_t i = 0; i < merges.size(); ++i) {
        const auto& [left, right] = merges[i];
        const QString merged = left + right;
        for (const QString* part : {&left, &right, &merged}) {
            if (ids.find(*part) == ids.end()) {
                throw LoadFailure{QStringLiteral("%1: the merge %2 needs %3, which is not in the "
                                                 "vocabulary; vocabulary and merges must come "
                                                 "from the same model")
                                      .arg(mergeAt(static_cast<qsizetype>(i)),
                                           quoted(left + QLatin1Char(' ') + right), quoted(*part))};
            }
        }
        const quint64 key = (quint64(quint32(ids[left])) << 32) | quint32(ids[right]);
        // A merge listed twice keeps its later rank, as in encoder.py and Hugging Face.
        t->merges_[key] = BpeTokenizer::Merge{static_cast<int>(i), ids[merged]};
    }
    return BpeLoadResult{t, {}};
}

BpeLoadResult BpeTokenizer::fromVocabAndMerges(const QByteArray& vocabJson,
                                               const QByteArray& mergesTxt) {
    const QString vocabFile = QStringLiteral("vocab.json");
    const QString mergesFile = QStringLiteral("merges.txt");
    try {
        BpeBuilder b;
        b.vocabFile = vocabFile;
        const QJsonObject root = parseJson(vocabJson, vocabFile).object();
        for (auto it = root.begin(); it != root.end(); ++it) {
            const std::optional<int> id = jsonId(it.value());
            if (!id) {
                throw LoadFailure{QStringLiteral("%1: %2: the token %3 has %4 as its id; %5")
                                      .arg(vocabFile, at(vocabJson, {{it.key()}}), quoted(it.key()),
                                           describe(it.value()), idRule())};
            }
            b.vocab.push_back({it.key(), *id});
            // Without tokenizer.json, Hugging Face's GPT2Tokenizer makes "<|endoftext|>" its
            // special token: split out of the text, never merged.
            if (it.key() == QLatin1String(kEndOfTextToken)) {
                b.added.push_back({it.key(), *id});
            }
        }
        const qsizetype bad = firstInvalidUtf8(mergesTxt);
        if (bad >= 0) {
            throw LoadFailure{QStringLiteral("%1: line %2: the bytes are not valid UTF-8; save the "
                                             "file as UTF-8")
                                  .arg(mergesFile)
                                  .arg(textPosition(mergesTxt, bad).line)};
        }
        std::vector<qsizetype> lineOf;  // merge index -> 1-based line
        qsizetype lineNo = 0;
        qsizetype start = 0;
        while (start < mergesTxt.size()) {
            qsizetype end = mergesTxt.indexOf('\n', start);
            if (end < 0) {
                end = mergesTxt.size();
            }
            ++lineNo;
            QByteArrayView line(mergesTxt.constData() + start, end - start);
            start = end + 1;
            if (line.endsWith('\r')) {
                line.chop(1);
            }
            if (line.isEmpty() || (lineNo == 1 && line.startsWith("#version"))) {
                continue;
            }
            const QString text = QString::fromUtf8(line);
            const auto merge = splitMerge(text);
            if (!merge) {
                throw LoadFailure{QStringLiteral("%1: line %2: %3 is not a merge: each line holds "
                                                 "two tokens separated by one space, as \"Ġ t\"")
                                      .arg(mergesFile)
                                      .arg(lineNo)
                                      .arg(quoted(text))};
            }
            b.merges.push_back(*merge);
            lineOf.push_back(lineNo);
        }
        b.mergeAt = [&](qsizetype i) {
            return QStringLiteral("%1: line %2").arg(mergesFile).arg(lineOf[std::size_t(i)]);
        };
        b.addedAt = [&](qsizetype) { return vocabFile; };
        return b.build();
    } catch (const LoadFailure& failure) {
        return BpeLoadResult{nullptr, failure.message};
    }
}

BpeLoadResult BpeTokenizer::fromTokenizerJson(const QByteArray& bytes) {
    const QString file = QStringLiteral("tokenizer.json");
    try {
        const QJsonObject root = parseJson(bytes, file).object();
        const auto where = [&](const JsonPath& path) {
            return file + QStringLiteral(": ") + at(bytes, path);
        };
        const auto key = [](const char* k) { return JsonPathStep{QLatin1String(k), -1}; };
        const auto index = [](qsizetype i) { return JsonPathStep{{}, i}; };
        const QJsonValue normalizer = root.value(QLatin1String("normalizer"));
        if (!normalizer.isUndefined() && !normalizer.isNull()) {
            throw LoadFailure{QStringLiteral("%1: the tokenizer has a normalizer, which GPT-2's "
                                             "has not and this program does not apply; use a "
                                             "GPT-2 tokenizer (\"normalizer\": null)")
                                  .arg(where({key("normalizer")}))};
        }
        const QJsonValue pre = root.value(QLatin1String("pre_tokenizer"));
        if (!pre.isUndefined() && !pre.isNull()) {
            const QJsonObject p = pre.toObject();
            if (p.value(QLatin1String("type")).toString() != QLatin1String("ByteLevel") ||
                p.value(QLatin1String("add_prefix_space")).toBool(false) ||
                !p.value(QLatin1String("use_regex")).toBool(true)) {
                throw LoadFailure{QStringLiteral("%1: the pre_tokenizer is not GPT-2's "
                                                 "(ByteLevel without add_prefix_space); use a "
                                                 "GPT-2 tokenizer")
                                      .arg(where({key("pre_tokenizer")}))};
            }
        }
        const QJsonValue modelValue = root.value(QLatin1String("model"));
        if (!modelValue.isObject()) {
            throw LoadFailure{QStringLiteral("%1: \"model\" is %2, not an object with \"vocab\" "
                                             "and \"merges\": is it a Hugging Face "
                                             "tokenizer.json?")
                                  .arg(where({}), describe(modelValue))};
        }
        const QJsonObject model = modelValue.toObject();
        const QJsonValue type = model.value(QLatin1String("type"));
        if (!type.isUndefined() && type.toString() != QLatin1String("BPE")) {
            throw LoadFailure{QStringLiteral("%1: the model type is %2; this program reads BPE "
                                             "tokenizers (GPT-2's) only")
                                  .arg(where({key("model"), key("type")}), describe(type))};
        }
        BpeBuilder b;
        b.vocabFile = file;
        const QJsonValue vocab = model.value(QLatin1String("vocab"));
        if (!vocab.isObject()) {
            throw LoadFailure{QStringLiteral("%1: \"vocab\" is %2, not an object of tokens and "
                                             "their ids")
                                  .arg(where({key("model"), key("vocab")}), describe(vocab))};
        }
        const QJsonObject v = vocab.toObject();
        for (auto it = v.begin(); it != v.end(); ++it) {
            const std::optional<int> id = jsonId(it.value());
            if (!id) {
                throw LoadFailure{
                    QStringLiteral("%1: the token %2 has %3 as its id; %4")
                        .arg(where({key("model"), key("vocab"), JsonPathStep{it.key(), -1}}),
                             quoted(it.key()), describe(it.value()), idRule())};
            }
            b.vocab.push_back({it.key(), *id});
        }
        const QJsonValue mergesValue = model.value(QLatin1String("merges"));
        if (!mergesValue.isArray()) {
            throw LoadFailure{
                QStringLiteral("%1: \"merges\" is %2, not a list of merges")
                    .arg(where({key("model"), key("merges")}), describe(mergesValue))};
        }
        const QJsonArray merges = mergesValue.toArray();
        for (qsizetype i = 0; i < merges.size(); ++i) {
            const QJsonValue m = merges.at(i);
            std::optional<std::pair<QString, QString>> merge;
            if (m.isString()) {
                merge = splitMerge(m.toString());
            } else if (m.isArray() && m.toArray().size() == 2 && m.toArray().at(0).isString() &&
                       m.toArray().at(1).isString() && !m.toArray().at(0).toString().isEmpty() &&
                       !m.toArray().at(1).toString().isEmpty()) {
                merge = std::pair{m.toArray().at(0).toString(), m.toArray().at(1).toString()};
            }
            if (!merge) {
                throw LoadFailure{
                    QStringLiteral("%1: merge %2 is %3, not \"a b\" or [\"a\", \"b\"]")
                        .arg(where({key("model"), key("merges"), index(i)}))
                        .arg(i + 1)
                        .arg(describe(m))};
            }
            b.merges.push_back(*merge);
        }
        const QJsonValue addedValue = root.value(QLatin1String("added_tokens"));
        if (!addedValue.isUndefined() && !addedValue.isNull() && !addedValue.isArray()) {
            throw LoadFailure{QStringLiteral("%1: \"added_tokens\" is %2, not a list")
                                  .arg(where({key("added_tokens")}), describe(addedValue))};
        }
        const QJsonArray added = addedValue.toArray();
        for (qsizetype i = 0; i < added.size(); ++i) {
            const JsonPath path{key("added_tokens"), index(i)};
            const QJsonObject a = added.at(i).toObject();
            const QJsonValue content = a.value(QLatin1String("content"));
            const std::optional<int> id = jsonId(a.value(QLatin1String("id")));
            if (!content.isString() || content.toString().isEmpty() || !id) {
                throw LoadFailure{QStringLiteral("%1: an added token needs a non-empty "
                                                 "\"content\" and an \"id\"; %2")
                                      .arg(where(path), idRule())};
            }
            for (const char* flag : {"lstrip", "rstrip", "single_word"}) {
                if (a.value(QLatin1String(flag)).toBool(false)) {
                    throw LoadFailure{
                        QStringLiteral("%1: the added token %2 sets \"%3\", which "
                                       "this program does not support (GPT-2's "
                                       "tokens do not)")
                            .arg(where(path), quoted(content.toString()), QLatin1String(flag))};
                }
            }
            b.added.push_back({content.toString(), *id});
        }
        b.mergeAt = [&](qsizetype i) { return where({key("model"), key("merges"), index(i)}); };
        b.addedAt = [&](qsizetype i) { return where({key("added_tokens"), index(i)}); };
        return b.build();
    } catch (const LoadFailure& failure) {
        return BpeLoadResult{nullptr, failure.message};
    }
}

namespace {

// The whole file, refusing one over the limit before reading it.
std::optional<QByteArray> readTokenizerFile(const QString& path, const QString& name,
                                            QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: cannot open it: %2").arg(name, file.errorString());
        return std::nullopt;
    }
    if (file.size() > kMaxTokenizerFileBytes) {
        *error = QStringLiteral("%1: the file is %2 MB; tokenizer files are limited to %3 MB")
                     .arg(name, megabytes(file.size()), megabytes(kMaxTokenizerFileBytes));
        return std::nullopt;
    }
    // One byte past the limit, so a pipe or a growing file is refused too.
    QByteArray bytes = file.read(kMaxTokenizerFileBytes + 1);
    if (file.error() != QFileDevice::NoError) {
        *error = QStringLiteral("%1: cannot read it: %2").arg(name, file.errorString());
        return std::nullopt;
    }
    if (bytes.size() > kMaxTokenizerFileBytes) {
        *error = QStringLiteral("%1: the file is over %2 MB, the limit for tokenizer files")
                     .arg(name, megabytes(kMaxTokenizerFileBytes));
        return std::nullopt;
    }
    return bytes;
}

}  // namespace

BpeLoadResult BpeTokenizer::load(const QString& folder) {
    const QDir dir(folder);
    if (!QFileInfo(folder).isDir()) {
        return {nullptr, QStringLiteral("the folder does not exist; give the folder that holds "
                                        "the model's tokenizer.json or vocab.json and merges.txt")};
    }
    QString error;
    const QString tokenizerJson = dir.filePath(QStringLiteral("tokenizer.json"));
    if (QFileInfo::exists(tokenizerJson)) {
        const auto bytes =
            readTokenizerFile(tokenizerJson, QStringLiteral("tokenizer.json"), &error);
        return bytes ? fromTokenizerJson(*bytes) : BpeLoadResult{nullptr, error};
    }
    const QString vocabPath = dir.filePath(QStringLiteral("vocab.json"));
    const QString mergesPath = dir.filePath(QStringLiteral("merges.txt"));
    const bool hasVocab = QFileInfo::exists(vocabPath);
    const bool hasMerges = QFileInfo::exists(mergesPath);
    if (!hasVocab && !hasMerges) {
        return {nullptr, QStringLiteral("no tokenizer: the folder has neither tokenizer.json nor "
                                        "vocab.json and merges.txt; copy them from the model")};
    }
    if (!hasVocab || !hasMerges) {
        return {nullptr,
                QStringLiteral("%1 is there but %2 is missing; copy it from the model")
                    .arg(hasVocab ? QStringLiteral("vocab.json") : QStringLiteral("merges.txt"),
                         hasVocab ? QStringLiteral("merges.txt") : QStringLiteral("vocab.json"))};
    }
    const auto vocab = readTokenizerFile(vocabPath, QStringLiteral("vocab.json"), &error);
    if (!vocab) {
        return {nullptr, error};
    }
    const auto merges = readTokenizerFile(mergesPath, QStringLiteral("merges.txt"), &error);
    if (!merges) {
        return {nullptr, error};
    }
    return fromVocabAndMerges(*vocab, *merges);
}

void BpeTokenizer::mergeWord(const QByteArray& utf8, std::vector<int>& out) const {
    // Hugging Face's merge loop (tokenizers' word.rs): a heap of candidate merges, lowest rank
    // first and leftmost among equals; entries made stale by an earlier merge are skipped.
    // O(n log n) in the word's bytes, so a megabyte-long "word" stays fast.
    const std::size_t n = static_cast<std::size_t>(utf8.size());
    std::vector<int> id(n);
    std::vector<std::ptrdiff_t> prev(n);
    std::vector<std::ptrdiff_t> next(n);
    std::vector<bool> alive(n, true);
    for (std::size_t i = 0; i < n; ++i) {
        id[i] = byteSymbol_[static_cast<unsigned char>(utf8[static_cast<qsizetype>(i)])];
        prev[i] = static_cast<std::ptrdiff_t>(i) - 1;
        next[i] = i + 1 < n ? static_cast<std::ptrdiff_t>(i + 1) : -1;
    }
    struct Candidate {
        int rank;
        std::ptrdiff_t pos;
        int merged;
        bool operator>(const Candidate& o) const {
            return rank != o.rank ? rank > o.rank : pos > o.pos;
        }
    };
    const auto find = [&](int left, int right) -> const Merge* {
        const auto it = merges_.find((quint64(quint32(left)) << 32) | quint32(right));
        return it == merges_.end() ? nullptr : &it->second;
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
    for (std::size_t i = 0; i + 1 < n; ++i) {
        if (const Merge* m = find(id[i], id[i + 1])) {
            heap.push({m->rank, static_cast<std::ptrdiff_t>(i), m->merged});
        }
    }
    while (!heap.empty()) {
        const Candidate top = heap.top();
        heap.pop();
        const auto p = static_cast<std::size_t>(top.pos);
        if (!alive[p] || next[p] < 0) {
            continue;
        }
        const auto q = static_cast<std::size_t>(next[p]);
        const Merge* m = find(id[p], id[q]);
        if (m == nullptr || m->merged != top.merged) {
            continue;
        }
        id[p] = m->merged;
        alive[q] = false;
        next[p] = next[q];
        if (next[q] >= 0) {
            prev[static_cast<std::size_t>(next[q])] = top.pos;
        }
        if (prev[p] >= 0) {
            const auto l = static_cast<std::size_t>(prev[p]);
            if (const Merge* left = find(id[l], id[p])) {
                heap.push({left->rank, prev[p], left->merged});
            }
        }
        if (next[p] >= 0) {
            if (const Merge* right = find(id[p], id[static_cast<std::size_t>(next[p])])) {
                heap.push({right->rank, top.pos, right->merged});
            }
        }
    }
    for (std::ptrdiff_t i = 0; i >= 0 && static_cast<std::size_t>(i) < n;
         i = next[static_cast<std::size_t>(i)]) {
        out.push_back(id[static_cast<std::size_t>(i)]);
    }
}

void BpeTokenizer::encodeWord(const QByteArray& utf8, std::vector<int>& out) const {
    if (utf8.size() > kMaxCachedWordBytes) {
        mergeWord(utf8, out);
        return;
    }
    {
        const std::lock_guard lock(cacheMutex_);
        const auto it = cache_.constFind(utf8);
        if (it != cache_.constEnd()) {
            out.insert(out.end(), it->begin(), it->end());
            return;
        }
    }
    std::vector<int> ids;
    mergeWord(utf8, ids);
    out.insert(out.end(), ids.begin(), ids.end());
    const std::lock_guard lock(cacheMutex_);
    if (cache_.size() >= kMaxCachedWords) {
        cache_.clear();
    }
    cache_.insert(utf8, std::move(ids));
}

std::vector<int> BpeTokenizer::encode(QStringView text) const {
    std::vector<int> out;
    // The next occurrence of each added token at or after `pos`, found once and kept until
    // passed, so that splitting stays linear in the text for a handful of added tokens.
    std::vector<qsizetype> nextHit(added_.size(), -2);  // -2: not searched yet
    qsizetype pos = 0;
    while (pos < text.size()) {
        qsizetype hit = -1;
        const AddedToken* token = nullptr;
        for (std::size_t k = 0; k < added_.size(); ++k) {
            if (nextHit[k] == -2 || (nextHit[k] >= 0 && nextHit[k] < pos)) {
                nextHit[k] = text.indexOf(added_[k].content, pos);
            }
            const qsizetype h = nextHit[k];
            // Leftmost, and the longest of those starting there, as Hugging Face's trie.
            if (h >= 0 && (hit < 0 || h < hit ||
                           (h == hit && added_[k].content.size() > token->content.size()))) {
                hit = h;
                token = &added_[k];
            }
        }
        const qsizetype end = hit < 0 ? text.size() : hit;
        if (end > pos) {
            const std::vector<char32_t> cp = codePoints(text.mid(pos, end - pos));
            std::vector<CharClass> cls(cp.size());
            for (std::size_t i = 0; i < cp.size(); ++i) {
                cls[i] = classify(cp[i]);
            }
            QByteArray word;
            for (std::size_t i = 0; i < cp.size();) {
                const std::size_t len = matchAt(cp, cls, i);
                word.clear();
                for (std::size_t k = i; k < i + len; ++k) {
                    appendUtf8(word, cp[k]);
                }
                encodeWord(word, out);
                i += len;
            }
        }
        if (hit < 0) {
            break;
        }
        out.push_back(token->id);
        pos = hit + token->content.size();
    }
    return out;
}

BpeDecodeResult BpeTokenizer::decode(const std::vector<int>& ids) const {
    QByteArray bytes;
    for (const int id : ids) {
        if (id < 0 || id >= vocabSize() || tokens_[static_cast<std::size_t>(id)].isNull()) {
            return {std::nullopt, QStringLiteral("id %1 is not in the vocabulary (ids 0 to %2); "
                                                 "were the ids made by another tokenizer?")
                                      .arg(id)
                                      .arg(vocabSize() - 1)};
        }
        bytes.append(bytes_[static_cast<std::size_t>(id)]);
    }
    // Not QString::fromUtf8: it writes two U+FFFD for a sequence cut short ("E4 B8") where
    // Python writes one, and drops a leading U+FEFF.
    QString text;
    text.reserve(bytes.size());
    for (qsizetype i = 0; i < bytes.size();) {
        char32_t c = 0;
        const int len = utf8Sequence(bytes, i, &c);
        if (len > 0) {
            appendCodePoint(text, c);
            i += len;
        } else {
            text += QChar(QChar::ReplacementCharacter);
            i += invalidUtf8Length(bytes, i);
        }
    }
    return {text, {}};
}

QString BpeTokenizer::token(int id) const {
    return id >= 0 && id < vocabSize() ? tokens_[static_cast<std::size_t>(id)] : QString();
}

namespace {

// Bytes for people: see BpeTokenizer::displayToken.
QString displayBytes(const QByteArray& bytes) {
    QString out;
    for (qsizetype i = 0; i < bytes.size();) {
        char32_t c = 0;
        const int len = utf8Sequence(bytes, i, &c);
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

}  // namespace

QString BpeTokenizer::displayToken(int id) const {
    if (id < 0 || id >= vocabSize()) {
        return {};
    }
    return displayBytes(bytes_[static_cast<std::size_t>(id)]);
}

QStringList BpeTokenizer::displayVocabTokens(const QStringList& tokens) {
    // Byte-level vocabularies give themselves away by the characters that stand for spaces and
    // control bytes (U+0100..U+0143: "Ġ", "Ċ"); other tokenizers' "é" is just "é".
    bool byteLevel = false;
    for (const QString& token : tokens)
        for (const QChar c : token) byteLevel |= c.unicode() >= 0x100 && c.unicode() < 0x144;
    QStringList out;
    out.reserve(tokens.size());
    for (const QString& token : tokens) {
        if (byteLevel) {
            out << displayBytes(byteLevelBytes(token));
        } else {
            QString shown = token;
            shown.replace(QChar(0x2581), QChar(0x2423));  // SentencePiece's "▁" is a space too
            out << shown;
        }
    }
    return out;
}
