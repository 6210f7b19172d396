// Fuzzes the BPE tokenizer (app/io/tokenizer.h): its loaders on arbitrary bytes, and
// encode/decode of arbitrary text with a small fixed byte-level vocabulary.
//
// The first byte picks the mode: 0 tokenizer.json, 1 vocab.json + merges.txt (split at the first
// NUL byte; GPT-2's form, or RoBERTa's when the last byte is odd), 2 text as UTF-8, 3 text as raw
// UTF-16 (unpaired surrogates too), 4 a list of ids to decode, 5 a small SentencePiece-style
// tokenizer.json whose normalizer, pre_tokenizer and decoder are the JSON values in the input
// (split at NUL bytes), 6 a GGUF vocabulary made of the input's bytes. Beyond "no crash": exactly
// one of a tokenizer and a message; encode gives ids that have tokens and decode takes them back; a
// byte-level BPE tokenizer without a normalizer (GPT-2's form, and the fixed one) whose vocabulary
// has every byte token gives back every text it encodes, with unpaired surrogates as U+FFFD.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "app/io/tokenizer.h"

namespace {

[[noreturn]] void fail(const char* what, const QString& detail = {}) {
    std::fprintf(stderr, "fuzz_bpe_tokenizer: %s %s\n", what, detail.toUtf8().constData());
    std::abort();
}

// GPT-2's byte-level symbols: printable Latin-1 bytes stand for themselves, the others take
// U+0100 onwards in byte order.
QString byteSymbol(int b) {
    int next = 256;
    for (int c = 0; c < b; ++c) {
        next += (c >= 33 && c <= 126) || (c >= 161 && c <= 172) || c >= 174 ? 0 : 1;
    }
    const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
    return QString(QChar(static_cast<char16_t>(printable ? b : next)));
}

// 256 byte tokens (byte b has id b) and a few merges, with "<|endoftext|>" as an added token.
const attn::Tokenizer& smallTokenizer() {
    static const std::shared_ptr<const attn::Tokenizer> t = [] {
        QJsonObject vocab;
        for (int b = 0; b < 256; ++b) {
            vocab.insert(byteSymbol(b), b);
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
            {"pre_tokenizer", QJsonObject{{"type", "ByteLevel"}}},
            {"model", QJsonObject{{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}}};
        const attn::TokenizerLoadResult r =
            attn::Tokenizer::fromTokenizerJson(QJsonDocument(root).toJson(QJsonDocument::Compact));
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

void roundTrip(const attn::Tokenizer& t, const QString& text, bool lossless = true) {
    const std::vector<int> ids = t.encode(text);
    const std::vector<int> modelIds = t.encodeForModel(text);
    if (modelIds.size() != ids.size() + (t.addsBos() ? 1 : 0) + (t.addsEos() ? 1 : 0)) {
        fail("encodeForModel adds more than BOS and EOS:", text);
    }
    for (const int id : ids) {
        if (id < 0 || id >= t.vocabSize() || t.token(id).isEmpty()) {
            fail("encode gave an id without a token:", QString::number(id));
        }
    }
    const attn::TokenizerDecodeResult back = t.decode(ids);
    if (!back.ok()) {
        fail("decode refused encode's ids:", back.error);
    }
    if (!lossless) {
        return;
    }
    if (*back.text != withoutLoneSurrogates(text)) {
        fail("decode(encode(text)) is not the text:", text);
    }
    if (text.isEmpty() != ids.empty()) {
        fail("an empty text needs no ids and only an empty one");
    }
}

void checkLoad(const attn::TokenizerLoadResult& r, bool lossless) {
    if (r.ok() == !r.error.isEmpty()) {
        fail("expected exactly one of a tokenizer and a message; message:", r.error);
    }
    if (r.ok()) {
        for (const char16_t* text : {u"", u"the theme aaaa 123 <|endoftext|> é\n\n  x",
                                     u"\U0001F44D\U0001F3FD \u6CE8\u610F <s>\u2581 a"}) {
            roundTrip(*r.tokenizer, QString::fromUtf16(text), lossless);
        }
    }
}

// Whether the loaded tokenizer.json must give back every text: GPT-2's form (a ByteLevel
// pre-tokenizer and decoder, no normalizer, added tokens that take no white space).
bool losslessTokenizerJson(const QByteArray& bytes) {
    const QJsonObject root = QJsonDocument::fromJson(bytes).object();
    const auto isByteLevel = [&](const char* key, bool absentOk) {
        const QJsonValue v = root.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull()) return absentOk;
        return v.toObject().value(QLatin1String("type")).toString() == QLatin1String("ByteLevel");
    };
    for (const QJsonValue a : root.value(QLatin1String("added_tokens")).toArray()) {
        if (a.toObject().value(QLatin1String("lstrip")).toBool() ||
            a.toObject().value(QLatin1String("rstrip")).toBool()) {
            return false;
        }
    }
    const QJsonValue normalizer = root.value(QLatin1String("normalizer"));
    // A WordPiece model looks its pieces up as text, not as byte symbols: not lossless.
    const bool wordPiece =
        root.value(QLatin1String("model")).toObject().value(QLatin1String("type")) ==
        QLatin1String("WordPiece");
    return isByteLevel("pre_tokenizer", false) && isByteLevel("decoder", true) &&
           (normalizer.isUndefined() || normalizer.isNull()) && !wordPiece;
}

// Whether a vocab.json has a token for every byte. Without one, vocab.json + merges.txt still
// loads when "<|endoftext|>" is in it (GPT2Tokenizer's unknown token: a character-level vocabulary
// the app trains), and the missing bytes encode as that token, so the text does not come back.
bool hasEveryByteToken(const QByteArray& vocabJson) {
    const QJsonObject vocab = QJsonDocument::fromJson(vocabJson).object();
    for (int b = 0; b < 256; ++b) {
        if (!vocab.contains(byteSymbol(b))) {
            return false;
        }
    }
    return true;
}

// A SentencePiece-style vocabulary ("▁", "<0x00>".."<0xFF>", a few words) with the input's
// normalizer, pre_tokenizer and decoder.
QByteArray tokenizerJsonVariant(const QByteArray& bytes) {
    QJsonObject vocab{{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}};
    for (int b = 0; b < 256; ++b) {
        vocab.insert(QStringLiteral("<0x%1>").arg(
                         QString::number(b, 16).toUpper().rightJustified(2, QLatin1Char('0'))),
                     3 + b);
    }
    const QStringList words{"▁", "a", "b", "t", "h", "e", "▁t", "he", "▁the", "ab", "▁a"};
    for (qsizetype i = 0; i < words.size(); ++i) vocab.insert(words[i], static_cast<int>(259 + i));
    QJsonObject root{
        {"added_tokens", QJsonArray{QJsonObject{{"id", 1}, {"content", "<s>"}, {"special", true}},
                                    QJsonObject{{"id", 2}, {"content", "</s>"}}}},
        {"model", QJsonObject{{"type", "BPE"},
                              {"vocab", vocab},
                              {"merges", QJsonArray{"▁ t", "h e", "▁t he", "a b", "▁ a"}},
                              {"byte_fallback", true},
                              {"fuse_unk", true},
                              {"unk_token", "<unk>"}}}};
    const QList<QByteArray> parts = bytes.split('\0');
    const char* keys[] = {"normalizer", "pre_tokenizer", "decoder", "post_processor"};
    for (qsizetype i = 0; i < parts.size() && i < 4; ++i) {
        const QJsonDocument doc = QJsonDocument::fromJson(parts[i]);
        root.insert(QLatin1String(keys[i]),
                    doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(QJsonValue::Null));
    }
    return QJsonDocument(root).toJson(QJsonDocument::Compact);
}

// A GGUF vocabulary from the input: byte 0 the model, byte 1 the pre-tokenizer, then tokens split
// at NUL bytes (the first byte of each also gives its type and score), merges of neighbouring
// tokens, and BOS/EOS ids that may be out of range.
attn::GgufVocab ggufVocabFrom(const QByteArray& bytes) {
    attn::GgufVocab v;
    if (bytes.size() < 2) {
        return v;
    }
    const char* models[] = {"llama", "gpt2", "bert"};
    const char* pres[] = {"default", "llama-bpe", "qwen2", "smollm", "gpt-2", "unknown-pre"};
    v.model = models[static_cast<std::uint8_t>(bytes[0]) % 3];
    v.pre = pres[static_cast<std::uint8_t>(bytes[1]) % 6];
    for (const QByteArray& token : bytes.mid(2).split('\0')) {
        v.tokens << token;
        const auto first = token.isEmpty() ? 0 : static_cast<std::uint8_t>(token[0]);
        v.tokenTypes.push_back(first % 7);
        v.scores.push_back(static_cast<float>(first) - 128.0f);
    }
    for (qsizetype i = 0; i + 1 < v.tokens.size() && i < 64; ++i) {
        v.merges << v.tokens[i] + ' ' + v.tokens[i + 1];
    }
    const auto n = static_cast<int>(v.tokens.size());
    v.bos = static_cast<std::uint8_t>(bytes[0]) % (n + 2) - 1;
    v.eos = static_cast<std::uint8_t>(bytes[1]) % (n + 2) - 1;
    v.addBos = (bytes[0] & 0x40) != 0;
    v.addEos = (bytes[1] & 0x40) != 0;
    return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    const auto* rest = reinterpret_cast<const char*>(data + 1);
    const auto n = static_cast<qsizetype>(size - 1);
    const QByteArray bytes(rest, n);
    switch (data[0] % 7) {
        case 0:
            checkLoad(attn::Tokenizer::fromTokenizerJson(bytes), losslessTokenizerJson(bytes));
            break;
        case 1: {
            const qsizetype nul = bytes.indexOf('\0');
            const QByteArray vocabJson = nul < 0 ? bytes : bytes.left(nul);
            const QByteArray mergesTxt = nul < 0 ? QByteArray() : bytes.mid(nul + 1);
            // An odd last byte reads the files as RoBERTa's (its specials and template).
            const bool roberta = n > 0 && (rest[n - 1] & 1) != 0;
            checkLoad(roberta ? attn::Tokenizer::fromRobertaVocabAndMerges(vocabJson, mergesTxt)
                              : attn::Tokenizer::fromVocabAndMerges(vocabJson, mergesTxt),
                      hasEveryByteToken(vocabJson));
            break;
        }
        case 5:
            checkLoad(attn::Tokenizer::fromTokenizerJson(tokenizerJsonVariant(bytes)), false);
            break;
        case 6:
            checkLoad(attn::Tokenizer::fromGgufVocab(ggufVocabFrom(bytes)), false);
            break;
        case 2:
            roundTrip(smallTokenizer(), QString::fromUtf8(bytes));
            break;
        case 3: {
            QString text(n / 2, QChar());
            std::memcpy(text.data(), rest, static_cast<std::size_t>(n / 2) * sizeof(char16_t));
            roundTrip(smallTokenizer(), text);
            break;
        }
        case 4: {
            const attn::Tokenizer& t = smallTokenizer();
            std::vector<int> ids;
            for (qsizetype i = 0; i + 1 < n; i += 2) {
                // Mostly valid ids, some just outside.
                ids.push_back(static_cast<int>(static_cast<std::uint8_t>(rest[i]) |
                                               (static_cast<std::uint8_t>(rest[i + 1]) << 8)) %
                                  (t.vocabSize() + 4) -
                              2);
            }
            const attn::TokenizerDecodeResult r = t.decode(ids);
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
