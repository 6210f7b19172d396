// GPT-2's byte-level BPE tokenizer, giving the same ids as OpenAI's encoder.py and Hugging Face's
// GPT2Tokenizer for any text. A model folder holds either
//
//   tokenizer.json          Hugging Face's one-file form: "model": {"type": "BPE", "vocab": {...},
//                           "merges": ["Ġ t", ...] or [["Ġ", "t"], ...]}, "added_tokens":
//                           [{"id": 50256, "content": "<|endoftext|>", ...}]; wins when present
//   vocab.json + merges.txt the original form: {"Ġjourney": 7002, ...} and one merge "a b" per
//                           line in rank order (a first line "#version: ..." is skipped); here
//                           "<|endoftext|>", when in the vocabulary, is the one added token
//
// Encoding: the text is split at literal added tokens ("<|endoftext|>" becomes its id, as in
// Hugging Face), each piece is pre-tokenized with GPT-2's pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// with Python `regex` semantics (\s is Unicode White_Space, which includes U+0085 and excludes
// U+180E and U+FEFF), every piece's UTF-8 bytes become the byte-to-unicode symbols, and the merges
// are applied lowest rank first, leftmost first (Hugging Face's order; for merges learned by BPE
// training, as GPT-2's, this is exactly encoder.py's). The pattern is matched by a hand-written
// scanner rather than QRegularExpression: PCRE2's \s also matches U+180E, and a scanner is linear
// by construction. Letters and numbers are Qt's Unicode tables (Unicode 14 in Qt 6.4): a
// character assigned later counts as neither.
//
// Loading is a pure function from bytes to a tokenizer or to one message naming the file, the
// line and column where it can, the problem and the fix.
#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QStringList>
#include <QStringView>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace attn {

inline constexpr qsizetype kMaxTokenizerFileBytes = qsizetype{64} << 20;  // 64 MiB per file
inline constexpr int kMaxTokenizerIds = 1 << 20;  // ids 0 .. 1,048,575 (GPT-2 has 50,257)
inline constexpr char kEndOfTextToken[] = "<|endoftext|>";

class BpeTokenizer;

struct BpeLoadResult {
    std::shared_ptr<const BpeTokenizer> tokenizer;  // set on success
    QString error;  // otherwise "merges.txt: line 7, column 1: the merge "Ġ zz" needs "zz", ..."
    bool ok() const { return tokenizer != nullptr; }
};

struct BpeDecodeResult {
    std::optional<QString> text;  // set on success
    QString error;  // otherwise "id 60000 is not in the vocabulary (ids 0 to 50256); ..."
    bool ok() const { return text.has_value(); }
};

class BpeTokenizer {
public:
    // Reads `folder`/tokenizer.json if it exists, else `folder`/vocab.json and merges.txt.
    // Errors name the file ("vocab.json: ..."); the caller names the folder.
    static BpeLoadResult load(const QString& folder);
    // The same from bytes (what load reads, and what the fuzzer feeds).
    static BpeLoadResult fromTokenizerJson(const QByteArray& tokenizerJson);
    static BpeLoadResult fromVocabAndMerges(const QByteArray& vocabJson,
                                            const QByteArray& mergesTxt);

    // The ids of `text`. Unpaired UTF-16 surrogates are encoded as U+FFFD. Safe to call from
    // several threads at once (the word cache is locked).
    std::vector<int> encode(QStringView text) const;
    // The ids' bytes as UTF-8 text; bytes that are not valid UTF-8 become U+FFFD, one for each
    // maximal invalid part as Python's bytes.decode("utf-8", "replace") (and so Hugging Face)
    // does. Refuses ids without a token.
    BpeDecodeResult decode(const std::vector<int>& ids) const;

    // The token as vocab.json writes it ("Ġjourney"); empty for an id without a token.
    QString token(int id) const;
    // The token for people: its bytes as text, a space shown as "␣" (U+2423) and control
    // characters as their Unicode control pictures ("␊" for a newline); bytes that are only part
    // of a UTF-8 character (a Chinese character split in two tokens) as "<E6>". "Ġjourney" is
    // "␣journey", "Ċ" is "␊".
    QString displayToken(int id) const;
    // Tokens as another program saved them (an attention dump's JSON list) shown the same way:
    // GPT-2-style byte-level tokens ("Ġjourney", recognised by such characters anywhere in the
    // list) are decoded as displayToken does; others keep their text, SentencePiece's "▁" shown
    // as "␣".
    static QStringList displayVocabTokens(const QStringList& tokens);
    // One more than the largest id (50,257 for GPT-2).
    int vocabSize() const { return static_cast<int>(tokens_.size()); }
    // The id of "<|endoftext|>" (50256 for GPT-2), if the tokenizer has that token.
    std::optional<int> endOfTextId() const { return endOfText_; }

private:
    struct Merge {
        int rank;
        int merged;
    };
    struct AddedToken {
        QString content;
        int id;
    };
    friend struct BpeBuilder;
    BpeTokenizer() = default;
    void encodeWord(const QByteArray& utf8, std::vector<int>& out) const;
    void mergeWord(const QByteArray& utf8, std::vector<int>& out) const;

    std::vector<QString> tokens_;                // by id; empty where no token has the id
    std::vector<QByteArray> bytes_;              // by id: what the token decodes to
    int byteSymbol_[256] = {};                   // the id of each byte's symbol
    std::unordered_map<quint64, Merge> merges_;  // (left id << 32 | right id) -> rank, result
    std::vector<AddedToken> added_;              // split out of the text before the pattern
    std::optional<int> endOfText_;

    mutable std::mutex cacheMutex_;
    mutable QHash<QByteArray, std::vector<int>> cache_;  // word -> ids, bounded
};

}  // namespace attn
