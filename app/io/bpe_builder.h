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
    // WordPiece instead of BPE (BERT): no merges; the unknown token is required.
    bool wordPiece = false;
    QString continuingPrefix = QStringLiteral("##");
    int maxInputCharsPerWord = 100;
    // The post-processor's template, special tokens by name ("[CLS]") or by ids.
    struct TemplateItem {
        int sequence = -1;  // 0: $A, 1: $B, -1: special
        QString name;
        std::vector<int> ids;  // empty: the id of `name`
        int typeId = 0;
    };
    struct TemplateSpec {
        std::vector<TemplateItem> single, pair;
        // BertProcessing and RobertaProcessing always apply; TemplateProcessing does for a
        // WordPiece model, and for BPE gives BOS/EOS only (decoders keep their addsBos).
        bool always = false;
    };
    std::optional<TemplateSpec> templ;
    std::function<QString()> templateAt;             // where the template is
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
    void fillTemplate(Tokenizer& t, const std::unordered_map<QString, int>& ids) const;
};

// tokenizer.json's post-processors that make a template (tokenizer_template.cpp):
// TemplateProcessing, BertProcessing and RobertaProcessing.
void readTemplateProcessing(const JsonText& text, const QJsonObject& o, const JsonPath& path,
                            BpeBuilder* b);
void readBertOrRobertaProcessing(const JsonText& text, const QJsonObject& o, const JsonPath& path,
                                 bool roberta, BpeBuilder* b);
// BERT's template, "[CLS] $A [SEP]" and "[CLS] $A [SEP] $B:1 [SEP]:1", by token names.
BpeBuilder::TemplateSpec bertTemplate(const QString& cls, const QString& sep);
// RoBERTa's, "<s> $A </s>" and "<s> $A </s> </s> $B </s>", all type 0.
BpeBuilder::TemplateSpec robertaTemplate(const QString& cls, const QString& sep);

}  // namespace attn
