// The checks every form of a BPE tokenizer goes through once its parts are read (bpe_builder.h):
// ids unique, merges made of tokens, the byte tokens there, BOS and EOS found.
#include <algorithm>

#include "app/io/bpe_builder.h"
#include "app/io/bpe_bytes.h"

namespace attn {

std::optional<std::pair<QString, QString>> splitMerge(const QString& line) {
    const qsizetype space = line.indexOf(QLatin1Char(' '));
    if (space <= 0 || space + 1 >= line.size() || line.indexOf(QLatin1Char(' '), space + 1) >= 0) {
        return std::nullopt;
    }
    return std::pair{line.left(space), line.mid(space + 1)};
}

void BpeBuilder::fillVocab(Tokenizer& t, std::unordered_map<QString, int>& ids) const {
    ids.reserve(vocab.size());
    int size = 0;
    for (const VocabEntry& e : vocab) {
        ids[e.token] = e.id;  // a token listed twice is its later id, as BERT's load_vocab
        size = std::max(size, e.id + 1);
    }
    for (const Tokenizer::AddedToken& a : added) {
        size = std::max(size, a.id + 1);
    }
    t.tokens_.resize(static_cast<std::size_t>(size));
    t.bytes_.resize(static_cast<std::size_t>(size));
    t.special_.assign(static_cast<std::size_t>(size), false);
    for (const VocabEntry& e : vocab) {
        QString& slot = t.tokens_[static_cast<std::size_t>(e.id)];
        if (!slot.isNull()) {
            throw JsonError{
                QStringLiteral("%1: %2 and %3 both have id %4; every token needs "
                               "its own id")
                    .arg(tokenAt(e.token), quotedForMessage(slot), quotedForMessage(e.token))
                    .arg(e.id)};
        }
        slot = e.token;
        QByteArray& bytes = t.bytes_[static_cast<std::size_t>(e.id)];
        bytes = pipeline.byteLevel ? bpe::byteLevelBytes(e.token) : e.token.toUtf8();
        t.idOf_.insert(bytes, e.id);
    }
    for (std::size_t i = 0; i < added.size(); ++i) {
        const Tokenizer::AddedToken& a = added[i];
        QString& slot = t.tokens_[static_cast<std::size_t>(a.id)];
        if (!slot.isNull() && slot != a.content) {
            throw JsonError{
                QStringLiteral("%1: the added token %2 has id %3, which the "
                               "vocabulary gives to %4; give it its own id")
                    .arg(addedAt(static_cast<qsizetype>(i)), quotedForMessage(a.content))
                    .arg(a.id)
                    .arg(quotedForMessage(slot))};
        }
        slot = a.content;
        t.bytes_[static_cast<std::size_t>(a.id)] = a.content.toUtf8();
        t.special_[static_cast<std::size_t>(a.id)] = true;
        t.added_.push_back(a);
        if (a.content == QLatin1String(kEndOfTextToken)) {
            t.endOfText_ = a.id;
        }
    }
}

void BpeBuilder::fillMerges(Tokenizer& t, const std::unordered_map<QString, int>& ids) const {
    t.merges_.reserve(merges.size());
    for (std::size_t i = 0; i < merges.size(); ++i) {
        const auto& [left, right] = merges[i];
        const QString merged = left + right;
        for (const QString* part : {&left, &right, &merged}) {
            if (ids.find(*part) == ids.end()) {
                throw JsonError{QStringLiteral("%1: the merge %2 needs %3, which is not in the "
                                               "vocabulary; vocabulary and merges must come "
                                               "from the same model")
                                    .arg(mergeAt(static_cast<qsizetype>(i)),
                                         quotedForMessage(left + QLatin1Char(' ') + right),
                                         quotedForMessage(*part))};
            }
        }
        const quint64 key = (quint64(quint32(ids.at(left))) << 32) | quint32(ids.at(right));
        // A merge listed twice keeps its later rank, as in encoder.py and Hugging Face.
        t.merges_[key] = Tokenizer::Merge{static_cast<int>(i), ids.at(merged)};
    }
}

void BpeBuilder::fillSpecials(Tokenizer& t, const std::unordered_map<QString, int>& ids) const {
    const auto idOf = [&](const QString& name) -> std::optional<int> {
        for (const Tokenizer::AddedToken& a : added)
            if (a.content == name) return a.id;
        const auto it = ids.find(name);
        return it == ids.end() ? std::nullopt : std::optional<int>(it->second);
    };
    const auto resolve = [&](const std::optional<QString>& name, const char* what,
                             std::initializer_list<const char*> usual) -> std::optional<int> {
        if (name) {
            const std::optional<int> id = idOf(*name);
            if (!id) {
                throw JsonError{QStringLiteral("%1: the %2 token %3 is not in the vocabulary; "
                                               "the tokenizer files must come from one model")
                                    .arg(vocabAt(), QLatin1String(what), quotedForMessage(*name))};
            }
            return id;
        }
        for (const char* u : usual)
            if (const std::optional<int> id = idOf(QLatin1String(u))) return id;
        return std::nullopt;
    };
    t.bos_ = resolve(bosToken, "BOS", {"<s>", "<|begin_of_text|>"});
    t.eos_ = resolve(eosToken, "EOS", {"</s>", "<|end_of_text|>", "<|endoftext|>"});
    t.addBos_ = addBos && t.bos_.has_value();
    t.addEos_ = addEos && t.eos_.has_value();
    if (unkToken) {
        t.unk_ = idOf(*unkToken);
        if (!t.unk_) {
            throw JsonError{
                QStringLiteral("%1: the unknown token %2 is not in the vocabulary; %3")
                    .arg(vocabAt(), quotedForMessage(*unkToken),
                         wordPiece ? QStringLiteral("add it: WordPiece needs it for the words it "
                                                    "cannot cut")
                                   : QStringLiteral("add it or set \"unk_token\" to null"))};
        }
    } else if (wordPiece) {
        throw JsonError{QStringLiteral("%1: a WordPiece model needs an unknown token for the "
                                       "words it cannot cut; set \"unk_token\" (\"[UNK]\")")
                            .arg(vocabAt())};
    }
}

std::shared_ptr<Tokenizer> BpeBuilder::build() const {
    std::shared_ptr<Tokenizer> t(new Tokenizer());
    std::unordered_map<QString, int> ids;
    t->pipeline_ = pipeline;
    t->byteFallback_ = byteFallback;
    t->ignoreMerges_ = ignoreMerges;
    t->fuseUnk_ = fuseUnk;
    t->wordPiece_ = wordPiece;
    t->continuingPrefix_ = continuingPrefix;
    t->maxInputCharsPerWord_ = maxInputCharsPerWord;
    for (const VocabEntry& e : vocab)
        t->maxTokenBytes_ = std::max(t->maxTokenBytes_, e.token.toUtf8().size());
    fillVocab(*t, ids);
    std::fill(std::begin(t->byteToken_), std::end(t->byteToken_), -1);
    if (pipeline.byteLevel && !wordPiece) {
        const bpe::ByteMap& map = bpe::byteMap();
        for (int b = 0; b < 256; ++b) {
            const QString symbol(QChar(map.toChar[b]));
            const auto it = ids.find(symbol);
            if (it == ids.end() && missingBytesAsEndOfText && t->endOfText_) {
                t->byteSymbol_[b] = *t->endOfText_;
                continue;
            }
            if (it == ids.end()) {
                throw JsonError{QStringLiteral("%1: the vocabulary has no token for the byte 0x%2 "
                                               "(%3): a byte-level BPE vocabulary has all 256 "
                                               "byte tokens; is it a GPT-2-style tokenizer?")
                                    .arg(vocabAt())
                                    .arg(b, 2, 16, QLatin1Char('0'))
                                    .arg(quotedForMessage(symbol))};
            }
            t->byteSymbol_[b] = it->second;
        }
    } else {
        for (int b = 0; b < 256; ++b) {
            const QString name = QStringLiteral("<0x%1>").arg(
                QString::number(b, 16).toUpper().rightJustified(2, QLatin1Char('0')));
            const auto it = ids.find(name);
            t->byteToken_[b] = it == ids.end() ? -1 : it->second;
        }
    }
    fillMerges(*t, ids);
    fillSpecials(*t, ids);
    fillTemplate(*t, ids);
    return t;
}

}  // namespace attn
