// The tokenizers of the models the app opens: byte-pair encoding (GPT-2's, and those of Llama
// 2/3, Mistral, TinyLlama, Qwen2/2.5/3, SmolLM2 and RoBERTa) and WordPiece (BERT's and
// DistilBERT's, from vocab.txt or tokenizer.json). For BPE a model folder holds either
//
//   tokenizer.json          Hugging Face's one-file form: "model": {"type": "BPE", "vocab": {...},
//                           "merges": ["Ġ t", ...] or [["Ġ", "t"], ...], "byte_fallback", ...},
//                           "added_tokens", and the steps around the model ("normalizer",
//                           "pre_tokenizer", "decoder", "post_processor"; tokenizer_pipeline.h);
//                           wins when present. tokenizer_config.json beside it may say
//                           add_bos_token / add_eos_token and name bos_token / eos_token.
//   vocab.json + merges.txt GPT-2's original form: {"Ġjourney": 7002, ...} and one merge "a b" per
//                           line in rank order (a first line "#version: ..." is skipped); here
//                           "<|endoftext|>", when in the vocabulary, is the one added token,
//                           and bytes without a token of their own (the small vocabularies of
//                           models trained here) encode as it, GPT2Tokenizer's unk_token
//
// or the vocabulary comes from a GGUF file (GgufVocab, fromGgufVocab). For WordPiece (BERT,
// DistilBERT) the folder holds tokenizer.json with "model": {"type": "WordPiece", "vocab",
// "unk_token", "continuing_subword_prefix", "max_input_chars_per_word"} (wins when present), or
//
//   vocab.txt               one token per line, its id the line number from 0; a token listed
//                           twice encodes as its later id (BertTokenizer's load_vocab dict); with
//                           tokenizer_config.json's do_lower_case (default true), strip_accents
//                           (null: as do_lower_case), tokenize_chinese_chars and the special
//                           tokens' names; [PAD] [UNK] [CLS] [SEP] [MASK] are added tokens, and
//                           the template is BERT's.
//
// Encoding, as Hugging Face's tokenizers crate does it: the text is split at literal added tokens
// (leftmost, longest first; each becomes its id), each section between them is normalized and
// cut into words by the pre-tokenizers (patterns run on QRegularExpression with Python's \s,
// tokenizer_pipeline.h), and each word is merged by the model:
// - byte-level (a ByteLevel pre-tokenizer: GPT-2, Llama 3, Qwen2, SmolLM2): the word's UTF-8 bytes
//   become the byte-to-unicode symbols ("Ġ" for a space), merged lowest rank first, leftmost
//   first (for merges learned by BPE training, as GPT-2's, exactly encoder.py's order);
// - SentencePiece-style (Llama 2, Mistral, TinyLlama): the word's characters (spaces already "▁")
//   are the symbols; a character not in the vocabulary becomes its bytes' "<0xE6>" tokens
//   (byte_fallback) or the unknown token; then the same merges. A GGUF "llama" vocabulary has
//   scores instead of merges, and merges as SentencePiece does: the adjacent pair whose joined
//   text is a token with the highest score, leftmost among equals.
// - WordPiece (BERT): BertNormalizer (drop NUL, U+FFFD and control characters, white space to
//   " ", spaces around CJK ideographs, lower-case, strip accents by NFD without Mn) and
//   BertPreTokenizer (cut at white space and at ASCII and Unicode punctuation) make the words;
//   each is cut greedily, longest token first, later pieces with the "##" prefix; a word of more
//   than max_input_chars_per_word (100) characters, or one that cannot be covered, is [UNK].
//   Decoding joins the tokens with spaces, glues "##" pieces and cleans " ." and " n't" up.
// With ignore_merges (Llama 3) a word that is itself a token is that token. Added tokens are found
// in the text as written (their "normalized" flag is not read); lstrip/rstrip ones take the white
// space beside them, single_word ones match only where no letter, number or "_" touches them.
//
// Letters and numbers in patterns are PCRE2's Unicode tables (the PCRE2 that Qt uses: Debian 12's
// 10.42 has Unicode 14): a character assigned later counts as neither.
//
// What the model is fed (encodeInput): the post-processor's template around the text, or two
// texts: TemplateProcessing (for WordPiece models; for BPE models only its BOS and EOS count, so
// decoders keep encodeForModel as it was), BertProcessing ("[CLS] A [SEP] B [SEP]", B type 1),
// RobertaProcessing ("<s> A </s></s> B </s>", all type 0); without one, BOS/EOS as addsBos and
// addsEos say.
//
// Loading is a pure function from bytes to a tokenizer or to one message naming the file, the
// line and column where it can, the problem and the fix.
#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <QStringView>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "app/io/tokenizer_pipeline.h"

namespace attn {

inline constexpr qsizetype kMaxTokenizerFileBytes = qsizetype{64} << 20;  // 64 MiB per file
inline constexpr int kMaxTokenizerIds = 1 << 20;  // ids 0 .. 1,048,575 (GPT-2 has 50,257)
inline constexpr char kEndOfTextToken[] = "<|endoftext|>";

class Tokenizer;

struct TokenizerLoadResult {
    std::shared_ptr<const Tokenizer> tokenizer;  // set on success
    QString error;  // otherwise "merges.txt: line 7, column 1: the merge "Ġ zz" needs "zz", ..."
    bool ok() const { return tokenizer != nullptr; }
};

struct TokenizerDecodeResult {
    std::optional<QString> text;  // set on success
    QString error;  // otherwise "id 60000 is not in the vocabulary (ids 0 to 50256); ..."
    bool ok() const { return text.has_value(); }
};

// A GGUF file's tokenizer.ggml.* keys, as the GGUF reader hands them over.
struct GgufVocab {
    QByteArray model;  // tokenizer.ggml.model: "llama" (SentencePiece) or "gpt2" (byte-level BPE)
    QByteArray pre;    // tokenizer.ggml.pre: "llama-bpe", "qwen2", "smollm", "default", ...
    QList<QByteArray> tokens;
    std::vector<float> scores;
    // ggml token types: 1 normal, 2 unknown, 3 control, 4 user defined, 5 unused, 6 byte
    std::vector<int> tokenTypes;
    QList<QByteArray> merges;  // "a b"
    std::optional<int> bos, eos, unk, pad;
    std::optional<bool> addBos, addEos;
    std::optional<bool> addSpacePrefix;  // tokenizer.ggml.add_space_prefix; true when absent
};

// What a model is fed for a text (and a second text, for a pair): the ids with the special
// tokens of the tokenizer's template ("[CLS] A [SEP]", "[CLS] A [SEP] B [SEP]", RoBERTa's
// "<s> A </s></s> B </s>", or BOS/EOS as addsBos/addsEos say), the model's token_type_ids
// (BERT: 0 up to the first [SEP], 1 after; RoBERTa, DistilBERT and the decoders: all 0), and
// the text each position belongs to (0 the first text with its special tokens, 1 the pair's).
struct TokenizedInput {
    std::vector<int> ids;
    std::vector<int> typeIds;
    std::vector<int> segments;
};

class Tokenizer {
public:
    // Reads `folder`/tokenizer.json (and tokenizer_config.json beside it, if there) if it exists,
    // else `folder`/vocab.json and merges.txt, else `folder`/vocab.txt (and
    // tokenizer_config.json).
    // Errors name the file ("vocab.json: ..."); the caller names the folder.
    static TokenizerLoadResult load(const QString& folder);
    // The same from bytes (what load reads, and what the fuzzer feeds).
    static TokenizerLoadResult fromTokenizerJson(const QByteArray& tokenizerJson);
    // With tokenizer_config.json's bytes too (empty: none), for add_bos_token and the BOS/EOS
    // names.
    static TokenizerLoadResult fromTokenizerJson(const QByteArray& tokenizerJson,
                                                 const QByteArray& tokenizerConfigJson);
    // A GGUF file's embedded vocabulary: "llama" (SentencePiece, merged by score) or "gpt2"
    // (byte-level BPE, words cut by the patterns llama.cpp gives `pre`). Control and
    // user-defined tokens are split out of the text as added tokens. Without addBos, BOS is added
    // as llama.cpp adds it by default: for "llama" and Llama 3's pre-tokenizers. Errors begin
    // with "the GGUF tokenizer".
    static TokenizerLoadResult fromGgufVocab(const GgufVocab& vocab);
    static TokenizerLoadResult fromVocabAndMerges(const QByteArray& vocabJson,
                                                  const QByteArray& mergesTxt);
    // RoBERTa's vocab.json + merges.txt (RobertaTokenizer's files, without tokenizer.json):
    // GPT-2's steps with "<s>", "<pad>", "</s>", "<unk>" and "<mask>" (which takes the space
    // before it) as added tokens and RoBERTa's template, "<s> A </s>", "<s> A </s></s> B </s>".
    // load() reads a folder this way when tokenizer_config.json's tokenizer_class or
    // config.json's model_type says RoBERTa.
    static TokenizerLoadResult fromRobertaVocabAndMerges(const QByteArray& vocabJson,
                                                         const QByteArray& mergesTxt);
    // BERT's vocab.txt (one WordPiece token per line, its id the line number from 0) with
    // tokenizer_config.json's bytes (empty: none) for do_lower_case (default true),
    // strip_accents and tokenize_chinese_chars, as BertTokenizer reads them.
    static TokenizerLoadResult fromVocabTxt(const QByteArray& vocabTxt,
                                            const QByteArray& tokenizerConfigJson);

    // The text's own ids, without BOS or EOS: what the tokenizer shows for a text. Unpaired
    // UTF-16 surrogates are encoded as U+FFFD. Safe to call from several threads at once (the
    // word cache is locked).
    std::vector<int> encode(QStringView text) const;
    // What the model is fed for the text, encodeInput(text).ids: the template's special tokens
    // around encode(text) ([CLS] ... [SEP], <s> ... </s>), or without a template BOS before it
    // when addsBos() (Llama 2/3, Mistral, TinyLlama; not GPT-2 or Qwen) and EOS after it when
    // addsEos().
    std::vector<int> encodeForModel(QStringView text) const;
    // The ids' text through the tokenizer's decoder (added tokens as their content). Byte-level:
    // bytes that are not valid UTF-8 become U+FFFD, one for each maximal invalid part as
    // Python's bytes.decode("utf-8", "replace") (and so Hugging Face) does; SentencePiece's byte
    // tokens ("<0xE6>") that make no valid UTF-8 become one U+FFFD each, as Hugging Face's
    // ByteFallback does. Without a decoder the tokens are joined as they are. Refuses ids
    // without a token.
    TokenizerDecodeResult decode(const std::vector<int>& ids) const;

    // The token as the vocabulary writes it ("Ġjourney", "▁the", "<0xE6>"); empty for an id
    // without a token.
    QString token(int id) const;
    // The token for people: its bytes as text, a space shown as "␣" (U+2423) and control
    // characters as their Unicode control pictures ("␊" for a newline); bytes that are only part
    // of a UTF-8 character (a Chinese character split in two tokens) as "<E6>". "Ġjourney" is
    // "␣journey", "Ċ" is "␊". SentencePiece-style tokens: "▁the" is "␣the", and byte tokens
    // stay as they are ("<0xE6>"). Added tokens show their content; WordPiece tokens are shown
    // as written ("##ing", "[CLS]"), as BertViz shows them.
    QString displayToken(int id) const;
    // Tokens as another program saved them (an attention dump's JSON list) shown the same way:
    // GPT-2-style byte-level tokens ("Ġjourney", recognised by such characters anywhere in the
    // list, and no "[CLS]" or "[SEP]", which make it BERT's) are decoded as displayToken does;
    // others keep their text, SentencePiece's "▁" shown as "␣".
    static QStringList displayVocabTokens(const QStringList& tokens);
    // GPT-2's two files for this tokenizer, what fromVocabAndMerges reads back to the same ids:
    // every token (added ones too, as GPT-2's vocab.json has "<|endoftext|>") and the merges in
    // rank order after a "#version: 0.2" line. Byte-level tokenizers only (a trained model's).
    QByteArray vocabJson() const;
    QByteArray mergesTxt() const;
    // One more than the largest id (50,257 for GPT-2).
    int vocabSize() const { return static_cast<int>(tokens_.size()); }
    // The id of "<|endoftext|>" (50256 for GPT-2), if the tokenizer has that token.
    std::optional<int> endOfTextId() const { return endOfText_; }
    // The beginning- and end-of-sequence tokens ("<s>", "<|begin_of_text|>"; "</s>",
    // "<|end_of_text|>", "<|endoftext|>"), from tokenizer_config.json, the post-processor, the
    // GGUF keys, or else the added token of that usual name.
    std::optional<int> bosId() const { return bos_; }
    std::optional<int> eosId() const { return eos_; }
    // Whether encodeForModel puts BOS first (and EOS last).
    bool addsBos() const { return addBos_; }
    bool addsEos() const { return addEos_; }
    // The model's input for a text, or for a pair of texts when `pair` is given. Without a pair
    // template (decoders) the pair's ids follow the text's, segment 1, type 0.
    TokenizedInput encodeInput(QStringView text, std::optional<QStringView> pair = {}) const;
    // Whether the tokenizer has a template for two texts (BERT's and RoBERTa's).
    bool hasPairTemplate() const;
    // The masked-LM token ("[MASK]", "<mask>") and the padding token ("[PAD]", "<pad>"): the
    // added token of that name, else the vocabulary's.
    std::optional<int> maskId() const;
    std::optional<int> padId() const;
    // Whether the id is a special token: one the template adds ([CLS], [SEP], <s>, </s>), BOS or
    // EOS when added, or an added token marked special ([PAD], <|endoftext|>); the tokens the
    // views can hide. Not the unknown and the mask token, which stand for text.
    bool isSpecial(int id) const;

private:
    struct Merge {
        int rank;
        int merged;
    };
    struct AddedToken {
        QString content;
        int id;
        bool lstrip = false;      // takes the white space before it
        bool rstrip = false;      // and after it
        bool singleWord = false;  // only where no letter, number or "_" touches it
        bool special = true;      // tokenizer.json's "special": isSpecial reports it
    };
    // One item of the post-processor's template: a text or special tokens.
    struct TemplatePiece {
        int sequence = -1;  // 0: the text ($A), 1: the pair ($B), -1: the special tokens `ids`
        std::vector<int> ids;
        int typeId = 0;
    };
    friend struct BpeBuilder;
    friend struct GgufBuilder;
    Tokenizer() = default;
    // The added token matching at or after `from` (its start and end), per its flags.
    bool findAdded(QStringView text, const AddedToken& a, qsizetype from, qsizetype* start,
                   qsizetype* end) const;
    void encodeSection(const QString& section, bool atStart, std::vector<int>& out) const;
    void encodeWord(const QString& word, std::vector<int>& out) const;
    // The word's first symbols: bytes (byte-level) or characters, with byte fallback.
    std::vector<int> initialSymbols(const QString& word) const;
    void mergeByRank(std::vector<int> id, std::vector<int>& out) const;
    void mergeByScore(const QString& word, std::vector<int>& out) const;
    // WordPiece (wordpiece.cpp): the word's longest tokens first, or the unknown token.
    void encodeWordPiece(const QString& word, std::vector<int>& out) const;
    std::optional<int> namedId(std::initializer_list<const char*> names) const;

    std::vector<QString> tokens_;                // by id; empty where no token has the id
    std::vector<QByteArray> bytes_;              // by id: the token's text as bytes
    QHash<QByteArray, int> idOf_;                // the model's tokens by bytes_ (no added ones)
    int byteSymbol_[256] = {};                   // byte-level: the id of each byte's symbol
    int byteToken_[256] = {};                    // byte fallback: the id of "<0xE6>", or -1
    std::unordered_map<quint64, Merge> merges_;  // (left id << 32 | right id) -> rank, result
    std::vector<float> scores_;                  // by id, for merging by score (GGUF "llama")
    std::vector<bool> mergeable_;                // by id: a score merge may make it
    std::vector<AddedToken> added_;              // split out of the text before the pipeline
    std::vector<bool> special_;                  // by id: an added token
    tok::Pipeline pipeline_;
    bool byteFallback_ = false;
    bool ignoreMerges_ = false;
    bool fuseUnk_ = false;
    std::optional<int> unk_;
    std::optional<int> endOfText_;
    std::optional<int> bos_;
    std::optional<int> eos_;
    bool addBos_ = false;
    bool addEos_ = false;
    bool wordPiece_ = false;             // the model is WordPiece, not BPE
    QString continuingPrefix_;           // WordPiece: "##"
    int maxInputCharsPerWord_ = 100;     // WordPiece: a longer word is the unknown token
    qsizetype maxTokenBytes_ = 0;        // WordPiece: the longest token's UTF-8 length
    std::vector<TemplatePiece> single_;  // the template for one text; empty: BOS/EOS as above
    std::vector<TemplatePiece> pair_;    // and for two; empty: the pair's ids follow

    mutable std::mutex cacheMutex_;
    mutable QHash<QByteArray, std::vector<int>> cache_;  // word -> ids, bounded
};

}  // namespace attn
