// The text steps around a tokenizer's model, as Hugging Face's tokenizer.json names them:
// normalizers (NFC, Prepend, Replace, BertNormalizer), pre-tokenizers that cut the text into words
// (Split by a regex or a string, ByteLevel, Metaspace, Digits, BertPreTokenizer) and decoders that
// turn tokens back into text (ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace,
// WordPiece). Internal to attn_io (the tokenizer's files). BERT's steps are wordpiece.cpp.
//
// Patterns run on Qt's QRegularExpression (PCRE2 with Unicode properties). Hugging Face compiles
// them with Oniguruma and Python's `regex` module, where \s is Unicode White_Space; PCRE2's \s also
// matches U+180E, so \s and \S are rewritten to the White_Space list before compiling.
#pragma once

#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

class QJsonObject;
class QJsonValue;

namespace attn {
class JsonText;
}

namespace attn::tok {

inline constexpr char16_t kSpaceMark = 0x2581;  // "▁", SentencePiece's space

// Replace's pattern: a literal string or a regex, and what each match becomes.
struct TextRule {
    QString literal;
    std::shared_ptr<const QRegularExpression> regex;  // when set, instead of `literal`
    QString content;
    QString apply(const QString& text) const;
};

struct NormalizerStep {
    enum class Kind { kNfc, kNfd, kNfkc, kNfkd, kPrepend, kReplace, kLowercase, kBert };
    Kind kind = Kind::kNfc;
    QString prepend;
    TextRule replace;
    // BertNormalizer: drop NUL, U+FFFD and control characters and make white space " "; spaces
    // around CJK ideographs; lower-case; strip accents (NFD, then no Mn).
    bool cleanText = true;
    bool handleChineseChars = true;
    bool lowercase = true;
    bool stripAccents = true;  // strip_accents, which follows lowercase when null
};

// Split's behaviors: what becomes of the matches and of the text between them.
enum class SplitBehavior { kIsolated, kRemoved, kMergedWithPrevious, kMergedWithNext, kContiguous };
enum class PrependScheme { kFirst, kAlways, kNever };

struct PreTokenizerStep {
    // kBert: BertPreTokenizer, words cut at white space (dropped) and punctuation (kept alone).
    enum class Kind { kSplit, kByteLevel, kMetaspace, kDigits, kBert };
    Kind kind = Kind::kSplit;
    std::shared_ptr<const QRegularExpression> regex;  // Split and ByteLevel with use_regex
    SplitBehavior behavior = SplitBehavior::kIsolated;
    bool invert = false;
    bool addPrefixSpace = false;            // ByteLevel
    QChar replacement = QChar(kSpaceMark);  // Metaspace
    PrependScheme scheme = PrependScheme::kAlways;
    bool split = true;              // Metaspace: cut before each replacement
    bool individualDigits = false;  // Digits
};

struct DecoderStep {
    enum class Kind { kByteLevel, kReplace, kByteFallback, kFuse, kStrip, kMetaspace, kWordPiece };
    Kind kind = Kind::kByteLevel;
    QString prefix = QStringLiteral("##");  // WordPiece: glues a token to the one before
    bool cleanup = true;                    // WordPiece: " ." -> ".", " n't" -> "n't", ...
    TextRule replace;
    QString strip;  // Strip: the character taken off, `start` times at the front, `stop` at the end
    int start = 0;
    int stop = 0;
    QChar replacement = QChar(kSpaceMark);  // Metaspace
    bool prependFirst = true;               // Metaspace: the first token loses its leading space
};

struct Pipeline {
    std::vector<NormalizerStep> normalizers;
    std::vector<PreTokenizerStep> preTokenizers;
    std::vector<DecoderStep> decoders;
    // A ByteLevel pre-tokenizer ends the steps: the model then sees each word's UTF-8 bytes.
    bool byteLevel = false;

    QString normalize(QString text) const;
    // The words of one section of text (between added tokens); `atStart`: the section begins the
    // text (Metaspace's prepend_scheme "first").
    QStringList preTokenize(const QString& text, bool atStart) const;
    // The text of the tokens (vocabulary strings, added tokens' content).
    QString decode(QStringList tokens) const;
};

// A compiled pattern with Python `regex`'s \s; the same pattern compiles once per process.
// Nothing and *error set when PCRE2 refuses it.
std::shared_ptr<const QRegularExpression> compilePattern(const QString& pattern, QString* error);
// GPT-2's pattern, which ByteLevel's use_regex applies.
const QString& gpt2Pattern();

// tokenizer.json's "normalizer", "pre_tokenizer" and "decoder"; a component this program does
// not apply fails with its name and where it is.
Pipeline readPipeline(const JsonText& text, const QJsonObject& root);

// BERT's steps (wordpiece.cpp), as the tokenizers crate's BertNormalizer, BertPreTokenizer and
// WordPiece decoder.
QString bertNormalize(const NormalizerStep& step, const QString& text);
void bertPreTokenize(const QString& text, QStringList& out);
QStringList wordPieceDecode(const DecoderStep& step, QStringList tokens);

// Python's bytes.decode("utf-8", "replace"): one U+FFFD per maximal invalid part.
QString decodeUtf8Lossy(const QByteArray& bytes);
// Unpaired UTF-16 surrogates as U+FFFD, as they are encoded.
QString withoutLoneSurrogates(QStringView text);

}  // namespace attn::tok
