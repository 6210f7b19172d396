// Encoding and decoding with a tokenizer. Loading the tokenizer's files is
// tokenizer_load.cpp (vocab.txt wordpiece_vocab.cpp), a GGUF vocabulary bpe_tokenizer_gguf.cpp;
// the byte symbols are bpe_bytes.h, the steps around the model tokenizer_pipeline.h, WordPiece's
// model and steps wordpiece.cpp, and the templates for the model's input tokenizer_template.cpp.
#include "app/io/tokenizer.h"

#include <QChar>
#include <algorithm>
#include <queue>
#include <utility>

#include "app/io/bpe_bytes.h"
#include "app/io/json_locator.h"

namespace attn {

namespace {

// Words longer than this are not cached (Hugging Face's limit), and the cache is emptied when it
// holds this many words, so huge inputs cannot grow it without bound.
constexpr qsizetype kMaxCachedWordBytes = 256;
constexpr qsizetype kMaxCachedWords = 10000;

}  // namespace

void Tokenizer::mergeByRank(std::vector<int> id, std::vector<int>& out) const {
    // Hugging Face's merge loop (tokenizers' word.rs): a heap of candidate merges, lowest rank
    // first and leftmost among equals; entries made stale by an earlier merge are skipped.
    // O(n log n) in the word's symbols, so a megabyte-long "word" stays fast.
    const std::size_t n = id.size();
    std::vector<std::ptrdiff_t> prev(n);
    std::vector<std::ptrdiff_t> next(n);
    std::vector<bool> alive(n, true);
    for (std::size_t i = 0; i < n; ++i) {
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

std::vector<int> Tokenizer::initialSymbols(const QString& word) const {
    const QByteArray utf8 = word.toUtf8();
    std::vector<int> ids;
    ids.reserve(static_cast<std::size_t>(utf8.size()));
    if (pipeline_.byteLevel) {
        for (const char b : utf8) {
            ids.push_back(byteSymbol_[static_cast<unsigned char>(b)]);
        }
        return ids;
    }
    bool lastUnknown = false;
    for (qsizetype i = 0; i < utf8.size();) {
        char32_t c = 0;
        const int len = std::max(utf8SequenceAt(utf8, i, &c), 1);
        const QByteArray ch = utf8.mid(i, len);
        i += len;
        const auto it = idOf_.constFind(ch);
        bool known = it != idOf_.constEnd();
        if (known) {
            ids.push_back(*it);
        } else if (byteFallback_) {
            known = std::all_of(ch.begin(), ch.end(), [&](char b) {
                return byteToken_[static_cast<unsigned char>(b)] >= 0;
            });
            for (qsizetype k = 0; known && k < ch.size(); ++k) {
                ids.push_back(byteToken_[static_cast<unsigned char>(ch[k])]);
            }
        }
        if (!known && unk_ && !(fuseUnk_ && lastUnknown)) {
            ids.push_back(*unk_);
        }
        lastUnknown = !known;
    }
    return ids;
}

void Tokenizer::encodeWord(const QString& word, std::vector<int>& out) const {
    const QByteArray utf8 = word.toUtf8();
    if (ignoreMerges_) {
        if (const auto it = idOf_.constFind(utf8); it != idOf_.constEnd()) {
            out.push_back(*it);
            return;
        }
    }
    const auto merge = [&](std::vector<int>& into) {
        if (wordPiece_) {
            encodeWordPiece(word, into);
        } else if (!scores_.empty()) {
            mergeByScore(word, into);
        } else {
            mergeByRank(initialSymbols(word), into);
        }
    };
    if (utf8.size() > kMaxCachedWordBytes) {
        merge(out);
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
    merge(ids);
    out.insert(out.end(), ids.begin(), ids.end());
    const std::lock_guard lock(cacheMutex_);
    if (cache_.size() >= kMaxCachedWords) {
        cache_.clear();
    }
    cache_.insert(utf8, std::move(ids));
}

void Tokenizer::encodeSection(const QString& section, bool atStart, std::vector<int>& out) const {
    for (const QString& word : pipeline_.preTokenize(pipeline_.normalize(section), atStart)) {
        encodeWord(word, out);
    }
}

namespace {

bool isWordChar(QChar c) { return c.isLetterOrNumber() || c == QLatin1Char('_'); }

}  // namespace

bool Tokenizer::findAdded(QStringView text, const AddedToken& a, qsizetype from, qsizetype* start,
                          qsizetype* end) const {
    for (qsizetype h = text.indexOf(a.content, from); h >= 0; h = text.indexOf(a.content, h + 1)) {
        const qsizetype e = h + a.content.size();
        if (a.singleWord &&
            ((h > 0 && isWordChar(text[h - 1])) || (e < text.size() && isWordChar(text[e])))) {
            continue;
        }
        *start = h;
        *end = e;
        return true;
    }
    return false;
}

std::vector<int> Tokenizer::encode(QStringView input) const {
    const QString text = tok::withoutLoneSurrogates(input);
    std::vector<int> out;
    // The next occurrence of each added token at or after `pos`, found once and kept until
    // passed, so that splitting stays linear in the text for a handful of added tokens.
    struct Hit {
        qsizetype start = -2;  // -2: not searched yet, -1: none left
        qsizetype end = -1;
    };
    std::vector<Hit> next(added_.size());
    qsizetype pos = 0;
    while (pos < text.size()) {
        const AddedToken* token = nullptr;
        Hit best{-1, -1};
        for (std::size_t k = 0; k < added_.size(); ++k) {
            Hit& h = next[k];
            if (h.start == -2 || (h.start >= 0 && h.start < pos)) {
                if (!findAdded(text, added_[k], pos, &h.start, &h.end)) {
                    h = {-1, -1};
                }
            }
            // Leftmost, and the longest of those starting there, as Hugging Face's trie.
            if (h.start >= 0 && (best.start < 0 || h.start < best.start ||
                                 (h.start == best.start && h.end > best.end))) {
                best = h;
                token = &added_[k];
            }
        }
        qsizetype sectionEnd = best.start < 0 ? text.size() : best.start;
        qsizetype after = best.end;
        if (token != nullptr) {
            // lstrip and rstrip: the white space beside the token goes with it.
            while (token->lstrip && sectionEnd > pos && text[sectionEnd - 1].isSpace()) {
                --sectionEnd;
            }
            while (token->rstrip && after < text.size() && text[after].isSpace()) {
                ++after;
            }
        }
        if (sectionEnd > pos) {
            encodeSection(text.mid(pos, sectionEnd - pos), pos == 0, out);
        }
        if (token == nullptr) {
            break;
        }
        out.push_back(token->id);
        pos = after;
    }
    return out;
}

TokenizerDecodeResult Tokenizer::decode(const std::vector<int>& ids) const {
    QStringList tokens;
    tokens.reserve(static_cast<qsizetype>(ids.size()));
    for (const int id : ids) {
        if (id < 0 || id >= vocabSize() || tokens_[static_cast<std::size_t>(id)].isNull()) {
            return {std::nullopt, QStringLiteral("id %1 is not in the vocabulary (ids 0 to %2); "
                                                 "were the ids made by another tokenizer?")
                                      .arg(id)
                                      .arg(vocabSize() - 1)};
        }
        tokens << tokens_[static_cast<std::size_t>(id)];
    }
    return {pipeline_.decode(tokens), {}};
}

QString Tokenizer::token(int id) const {
    return id >= 0 && id < vocabSize() ? tokens_[static_cast<std::size_t>(id)] : QString();
}

QString Tokenizer::displayToken(int id) const {
    if (id < 0 || id >= vocabSize()) {
        return {};
    }
    const std::size_t i = static_cast<std::size_t>(id);
    // WordPiece tokens as written ("##ing", "[CLS]"), as BertViz shows them.
    if (pipeline_.byteLevel || special_[i] || wordPiece_) {
        return bpe::displayBytes(bytes_[i]);
    }
    // SentencePiece-style: "▁" is a space; byte tokens ("<0xE6>") stay as they are.
    QString text = tokens_[i];
    return bpe::displayBytes(text.replace(QChar(tok::kSpaceMark), QLatin1Char(' ')).toUtf8());
}

QStringList Tokenizer::displayVocabTokens(const QStringList& tokens) {
    // Byte-level vocabularies give themselves away by the characters that stand for spaces and
    // control bytes (U+0100..U+0143: "Ġ", "Ċ"); other tokenizers' "é" is just "é".
    bool byteLevel = false;
    for (const QString& token : tokens)
        for (const QChar c : token) byteLevel |= c.unicode() >= 0x100 && c.unicode() < 0x144;
    // BERT's lists (BertViz) have [CLS] or [SEP]; their "ā" or "Ł" is just a letter.
    byteLevel = byteLevel && !tokens.contains(QStringLiteral("[CLS]")) &&
                !tokens.contains(QStringLiteral("[SEP]"));
    QStringList out;
    out.reserve(tokens.size());
    for (const QString& token : tokens) {
        if (byteLevel) {
            out << bpe::displayBytes(bpe::byteLevelBytes(token));
        } else {
            QString shown = token;
            shown.replace(QChar(0x2581), QChar(0x2423));  // SentencePiece's "▁" is a space too
            out << shown;
        }
    }
    return out;
}

}  // namespace attn
