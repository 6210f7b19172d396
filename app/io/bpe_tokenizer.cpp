// Encoding and decoding with GPT-2's byte-level BPE. Loading the tokenizer's files is
// bpe_tokenizer_load.cpp; the byte symbols are bpe_bytes.h and the pre-tokenizer
// bpe_pretokenizer.h.
#include "app/io/bpe_tokenizer.h"

#include <QChar>
#include <queue>
#include <utility>

#include "app/io/bpe_bytes.h"
#include "app/io/bpe_pretokenizer.h"
#include "app/io/json_locator.h"

namespace attn {

namespace {

// Words longer than this are not cached (Hugging Face's limit), and the cache is emptied when it
// holds this many words, so huge inputs cannot grow it without bound.
constexpr qsizetype kMaxCachedWordBytes = 256;
constexpr qsizetype kMaxCachedWords = 10000;

}  // namespace

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
            bpe::forEachPreToken(text.mid(pos, end - pos),
                                 [&](const QByteArray& word) { encodeWord(word, out); });
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
        const int len = utf8SequenceAt(bytes, i, &c);
        if (len > 0) {
            bpe::appendCodePoint(text, c);
            i += len;
        } else {
            text += QChar(QChar::ReplacementCharacter);
            i += bpe::invalidUtf8Length(bytes, i);
        }
    }
    return {text, {}};
}

QString BpeTokenizer::token(int id) const {
    return id >= 0 && id < vocabSize() ? tokens_[static_cast<std::size_t>(id)] : QString();
}

QString BpeTokenizer::displayToken(int id) const {
    if (id < 0 || id >= vocabSize()) {
        return {};
    }
    return bpe::displayBytes(bytes_[static_cast<std::size_t>(id)]);
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
