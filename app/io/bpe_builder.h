// What every form of a BPE tokenizer (tokenizer.json, vocab.json and merges.txt, a GGUF
// vocabulary) gives before the checks that need the whole picture, and those checks.
// Internal to attn_io (the BPE tokenizer's files).
#pragma once

#include <QJsonObject>
#include <QString>
#include <functional>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "app/io/json_locator.h"
#include "app/io/tokenizer.h"
#include "app/io/tokenizer_pipeline.h"

namespace attn {

// "a b" -> ("a", "b"); nothing unless it is two non-empty parts around one space.
std::optional<std::pair<QString, QString>> splitMerge(const QString& line);

struct BpeBuilder {
    struct VocabEntry {
        QString token;
        int id;
    };
    std::vector<VocabEntry> vocab;
    std::vector<std::pair<QString, QString>> merges;  // in rank order
    std::vector<Tokenizer::AddedToken> added;
    tok::Pipeline pipeline;
    bool byteFallback = false;
    bool ignoreMerges = false;
    bool fuseUnk = false;
    // Byte-level: a byte without a token encodes as "<|endoftext|>", as GPT2Tokenizer maps a
    // token missing from vocab.json to its unk_token (small vocabularies of trained models).
    bool missingBytesAsEndOfText = false;
    std::optional<QString> unkToken;
    // BOS and EOS by name, and whether they are added; unset: the usual names, not added.
    std::optional<QString> bosToken;
    std::optional<QString> eosToken;
    bool addBos = false;
    bool addEos = false;
    std::function<QString(const QString&)> tokenAt;  // "vocab.json: line 3, column 9" for a token
    std::function<QString()> vocabAt;                // where the vocabulary starts
    std::function<QString(qsizetype)> mergeAt;       // "merges.txt: line 7, column 1" for merge i
    std::function<QString(qsizetype)> addedAt;       // where added token i is

    // The vocabulary object at `path` of `text`: every token with its id.
    void readVocab(const JsonText& text, const QJsonObject& vocabulary, const JsonPath& path);
    // merges.txt: one merge "a b" per line in rank order.
    void readMergesTxt(const JsonText& text, std::vector<qsizetype>* lineStarts);
    // The tokenizer, or a JsonError naming the problem.
    std::shared_ptr<Tokenizer> build() const;

private:
    void fillVocab(Tokenizer& t, std::unordered_map<QString, int>& ids) const;
    void fillMerges(Tokenizer& t, const std::unordered_map<QString, int>& ids) const;
    void fillSpecials(Tokenizer& t, const std::unordered_map<QString, int>& ids) const;
};

}  // namespace attn
