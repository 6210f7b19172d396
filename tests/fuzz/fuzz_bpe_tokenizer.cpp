// Fuzzes GPT-2's tokenizer (app/io/bpe_tokenizer.h): its two loaders on arbitrary bytes, and
// encode/decode of arbitrary text with a small fixed byte-level vocabulary.
//
// The first byte picks the mode: 0 tokenizer.json, 1 vocab.json + merges.txt (split at the first
// NUL byte), 2 text as UTF-8, 3 text as raw UTF-16 (unpaired surrogates too), 4 a list of ids to
// decode. Beyond "no crash": exactly one of a tokenizer and a message; a loaded tokenizer, and the
// fixed one, give back every text they encode (every token is made of byte tokens, so this holds
// for any vocabulary the loader accepts), with unpaired surrogates as U+FFFD.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "app/io/bpe_tokenizer.h"

namespace {

[[noreturn]] void fail(const char* what, const QString& detail = {}) {
    std::fprintf(stderr, "fuzz_bpe_tokenizer: %s %s\n", what, detail.toUtf8().constData());
    std::abort();
}

// 256 byte tokens (byte b has id b) and a few merges, with "<|endoftext|>" as an added token.
const attn::BpeTokenizer& smallTokenizer() {
    static const std::shared_ptr<const attn::BpeTokenizer> t = [] {
        QJsonObject vocab;
        int next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
            vocab.insert(QString(QChar(static_cast<char16_t>(printable ? b : next++))), b);
        }
        const QJsonArray merges{"Ġ t", "h e", "t he",  "Ġt he", "a a",  "aa a", "a aa",
                                "Ã ©", "Ġ Ġ", "ĠĠ ĠĠ", "1 2",   "12 3", "ä ¸",  "Ċ Ċ"};
        int id = 256;
        for (const QJsonValue& m : merges) {
            const QString merged = m.toString().remove(QLatin1Char(' '));
            if (!vocab.contains(merged)) {  // "aa a" and "a aa" both make "aaa"
                vocab.insert(merged, id++);
            }
        }
        const QJsonObject root{
            {"added_tokens",
             QJsonArray{QJsonObject{{"id", id}, {"content", "<|endoftext|>"}, {"special", true}}}},
            {"model", QJsonObject{{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}}};
        const attn::BpeLoadResult r = attn::BpeTokenizer::fromTokenizerJson(
            QJsonDocument(root).toJson(QJsonDocument::Compact));
        if (!r.ok()) {
            fail("the fixed vocabulary is refused:", r.error);
        }
        return r.tokenizer;
    }();
    return *t;
}

// `text` with unpaired surrogates as U+FFFD: what encode reads.
QString withoutLoneSurrogates(QString text) {
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text[i].isHighSurrogate() && i + 1 < text.size() && text[i + 1].isLowSurrogate()) {
            ++i;
        } else if (text[i].isSurrogate()) {
            text[i] = QChar(QChar::ReplacementCharacter);
        }
    }
    return text;
}

void roundTrip(const attn::BpeTokenizer& t, const QString& text) {
    const std::vector<int> ids = t.encode(text);
    for (const int id : ids) {
        if (id < 0 || id >= t.vocabSize() || t.token(id).isEmpty()) {
            fail("encode gave an id without a token:", QString::number(id));
        }
    }
    const attn::BpeDecodeResult back = t.decode(ids);
    if (!back.ok()) {
        fail("decode refused encode's ids:", back.error);
    }
    if (*back.text != withoutLoneSurrogates(text)) {
        fail("decode(encode(text)) is not the text:", text);
    }
    if (text.isEmpty() != ids.empty()) {
        fail("an empty text needs no ids and only an empty one");
    }
}

void checkLoad(const attn::BpeLoadResult& r) {
    if (r.ok() == !r.error.isEmpty()) {
        fail("expected exactly one of a tokenizer and a message; message:", r.error);
    }
    if (r.ok()) {
        for (const char16_t* text : {u"", u"the theme aaaa 123 <|endoftext|> é\n\n  x",
                                     u"\U0001F44D\U0001F3FD \u6CE8\u610F"}) {
            roundTrip(*r.tokenizer, QString::fromUtf16(text));
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    const auto* rest = reinterpret_cast<const char*>(data + 1);
    const auto n = static_cast<qsizetype>(size - 1);
    const QByteArray bytes(rest, n);
    switch (data[0] % 5) {
        case 0:
            checkLoad(attn::BpeTokenizer::fromTokenizerJson(bytes));
            break;
        case 1: {
            const qsizetype nul = bytes.indexOf('\0');
            checkLoad(nul < 0 ? attn::BpeTokenizer::fromVocabAndMerges(bytes, {})
                              : attn::BpeTokenizer::fromVocabAndMerges(bytes.left(nul),
                                                                       bytes.mid(nul + 1)));
            break;
        }
        case 2:
            roundTrip(smallTokenizer(), QString::fromUtf8(bytes));
            break;
        case 3: {
            QString text(n / 2, QChar());
            std::memcpy(text.data(), rest, static_cast<std::size_t>(n / 2) * sizeof(char16_t));
            roundTrip(smallTokenizer(), text);
            break;
        }
        default: {
            const attn::BpeTokenizer& t = smallTokenizer();
            std::vector<int> ids;
            for (qsizetype i = 0; i + 1 < n; i += 2) {
                // Mostly valid ids, some just outside.
                ids.push_back(static_cast<int>(static_cast<std::uint8_t>(rest[i]) |
                                               (static_cast<std::uint8_t>(rest[i + 1]) << 8)) %
                                  (t.vocabSize() + 4) -
                              2);
            }
            const attn::BpeDecodeResult r = t.decode(ids);
            bool valid = true;
            for (const int id : ids) {
                valid = valid && id >= 0 && id < t.vocabSize() && !t.token(id).isEmpty();
                t.displayToken(id);
            }
            if (r.ok() != valid || r.ok() == !r.error.isEmpty()) {
                fail("decode must refuse exactly the ids without a token:", r.error);
            }
            break;
        }
    }
    return 0;
}
