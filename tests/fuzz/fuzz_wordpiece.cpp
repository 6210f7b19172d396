// Fuzzes BERT's WordPiece tokenizer (app/io/tokenizer.h): its loaders on arbitrary bytes, and
// encode/decode of arbitrary text with a small fixed vocabulary.
//
// The first byte picks the mode: 0 vocab.txt + tokenizer_config.json (split at the first NUL
// byte), 1 a WordPiece tokenizer.json, 2 text as UTF-8, 3 text as raw UTF-16 (unpaired
// surrogates too). Beyond "no crash": exactly one of a tokenizer and a message; every id encode
// gives has a token and decodes; encodeInput is the template around encode for one text and for a
// pair ("|" splits the input), with type ids and segments as long as the ids; and, since the fixed
// vocabulary has every ASCII character alone and after "##", an ASCII text decodes to its words
// as BERT cuts them (lower-cased, split at white space and punctuation) joined by spaces.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "app/io/tokenizer.h"

namespace {

[[noreturn]] void fail(const char* what, const QString& detail = {}) {
    std::fprintf(stderr, "fuzz_wordpiece: %s %s\n", what, detail.toUtf8().constData());
    std::abort();
}

constexpr int kUnk = 1;
constexpr int kCls = 2;
constexpr int kSep = 3;

// [PAD] [UNK] [CLS] [SEP] [MASK], every printable ASCII character alone and after "##", a few
// words and pieces, accented letters and CJK characters; uncased, BERT's template, and a decoder
// without cleanup so that decoding is a plain join.
const attn::Tokenizer& smallTokenizer() {
    static const std::shared_ptr<const attn::Tokenizer> t = [] {
        QStringList tokens{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
        for (int c = 33; c < 127; ++c) tokens << QString(QChar(c));
        for (int c = 33; c < 127; ++c) tokens << QStringLiteral("##") + QChar(c);
        tokens << "the"
               << "hello"
               << "world"
               << "##ing"
               << "##s"
               << "é"
               << "##é"
               << "注"
               << "意";
        QJsonObject vocab;
        for (qsizetype i = 0; i < tokens.size(); ++i) vocab.insert(tokens[i], int(i));
        QJsonArray added;
        for (int id = 0; id < 5; ++id)
            added.append(QJsonObject{{"id", id}, {"content", tokens[id]}, {"special", true}});
        const auto special = [](const char* id, int type) {
            return QJsonObject{{"SpecialToken", QJsonObject{{"id", id}, {"type_id", type}}}};
        };
        const auto sequence = [](const char* id, int type) {
            return QJsonObject{{"Sequence", QJsonObject{{"id", id}, {"type_id", type}}}};
        };
        const QJsonObject root{
            {"added_tokens", added},
            {"normalizer", QJsonObject{{"type", "BertNormalizer"}, {"lowercase", true}}},
            {"pre_tokenizer", QJsonObject{{"type", "BertPreTokenizer"}}},
            {"decoder", QJsonObject{{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", false}}},
            {"post_processor",
             QJsonObject{
                 {"type", "TemplateProcessing"},
                 {"single", QJsonArray{special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)}},
                 {"pair", QJsonArray{special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0),
                                     sequence("B", 1), special("[SEP]", 1)}},
                 {"special_tokens",
                  QJsonObject{
                      {"[CLS]", QJsonObject{{"id", "[CLS]"}, {"ids", QJsonArray{kCls}}}},
                      {"[SEP]", QJsonObject{{"id", "[SEP]"}, {"ids", QJsonArray{kSep}}}}}}}},
            {"model",
             QJsonObject{{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"vocab", vocab}}}};
        const attn::TokenizerLoadResult r =
            attn::Tokenizer::fromTokenizerJson(QJsonDocument(root).toJson(QJsonDocument::Compact));
        if (!r.ok()) {
            fail("the fixed vocabulary is refused:", r.error);
        }
        return r.tokenizer;
    }();
    return *t;
}

// Every id has a token, and the ids decode.
void checkIds(const attn::Tokenizer& t, const std::vector<int>& ids) {
    for (const int id : ids) {
        if (id < 0 || id >= t.vocabSize() || t.token(id).isNull()) {
            fail("encode gave an id without a token:", QString::number(id));
        }
    }
    const attn::TokenizerDecodeResult d = t.decode(ids);
    if (!d.ok()) {
        fail("decode refused encode's ids:", d.error);
    }
}

void checkLoad(const attn::TokenizerLoadResult& r) {
    if (r.ok() == !r.error.isEmpty()) {
        fail("a load gave both or neither of a tokenizer and a message:", r.error);
    }
    if (!r.ok()) {
        return;
    }
    for (const QString& text : {QStringLiteral("Hello, world! 注意 Café ##ing [MASK]"),
                                QStringLiteral("a\tb\nc"), QString()}) {
        checkIds(*r.tokenizer, r.tokenizer->encode(text));
        checkIds(*r.tokenizer, r.tokenizer->encodeForModel(text));
    }
}

// BERT's words of an ASCII text, written here from BasicTokenizer's rules: control characters
// (all below 32 but tab, newline and return, and 127) dropped, then lower-cased and cut at white
// space (dropped) and ASCII punctuation (kept alone).
QStringList asciiWords(const QString& text) {
    QStringList words;
    QString word;
    const auto flush = [&] {
        if (!word.isEmpty()) words << word;
        word.clear();
    };
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if ((u < 32 && u != '\t' && u != '\n' && u != '\r') || u == 127) {
            continue;
        }
        if (u == ' ' || u == '\t' || u == '\n' || u == '\r') {
            flush();
        } else if ((u >= 33 && u <= 47) || (u >= 58 && u <= 64) || (u >= 91 && u <= 96) ||
                   (u >= 123 && u <= 126)) {
            flush();
            words << QString(c);
        } else {
            word += c.toLower();
        }
    }
    flush();
    return words;
}

void checkText(const QString& input) {
    const attn::Tokenizer& t = smallTokenizer();
    const qsizetype bar = input.indexOf(QLatin1Char('|'));
    const QString text = bar < 0 ? input : input.left(bar);
    const std::vector<int> ids = t.encode(text);
    checkIds(t, ids);
    std::vector<int> single{kCls};
    single.insert(single.end(), ids.begin(), ids.end());
    single.push_back(kSep);
    const attn::TokenizedInput in = t.encodeInput(text);
    if (in.ids != single || t.encodeForModel(text) != single ||
        in.typeIds != std::vector<int>(single.size(), 0) ||
        in.segments != std::vector<int>(single.size(), 0)) {
        fail("encodeInput is not [CLS] text [SEP] with type 0, segment 0:", text);
    }
    if (bar >= 0) {
        const QString second = input.mid(bar + 1);
        const std::vector<int> pairIds = t.encode(second);
        const attn::TokenizedInput p = t.encodeInput(text, QStringView(second));
        std::vector<int> expected = single;
        expected.insert(expected.end(), pairIds.begin(), pairIds.end());
        expected.push_back(kSep);
        std::vector<int> types(single.size(), 0);
        types.insert(types.end(), pairIds.size() + 1, 1);
        if (p.ids != expected || p.typeIds != types || p.segments != types) {
            fail("a pair is not [CLS] A [SEP] B [SEP] with types and segments 0 then 1:", input);
        }
    }
    // An ASCII text without "[" (no added tokens) and without words over 100 characters comes
    // back as its words: every character is in the vocabulary, alone and after "##".
    bool ascii = !text.contains(QLatin1Char('['));
    for (const QChar c : text) ascii = ascii && c.unicode() < 128;
    const QStringList words = ascii ? asciiWords(text) : QStringList();
    for (const QString& w : words) ascii = ascii && w.size() <= 100;
    if (ascii) {
        const attn::TokenizerDecodeResult d = t.decode(ids);
        if (!d.ok() || *d.text != words.join(QLatin1Char(' '))) {
            fail("an ASCII text did not decode to its words:", text + " -> " + d.text.value_or(""));
        }
        for (const int id : ids)
            if (id == kUnk) fail("an ASCII word became [UNK]:", text);
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
    switch (data[0] % 4) {
        case 0: {
            const qsizetype nul = bytes.indexOf('\0');
            checkLoad(attn::Tokenizer::fromVocabTxt(nul < 0 ? bytes : bytes.left(nul),
                                                    nul < 0 ? QByteArray() : bytes.mid(nul + 1)));
            break;
        }
        case 1:
            checkLoad(attn::Tokenizer::fromTokenizerJson(bytes));
            break;
        case 2:
            checkText(QString::fromUtf8(bytes));
            break;
        case 3: {
            QString text(n / 2, QChar());
            std::memcpy(text.data(), rest, static_cast<std::size_t>(n / 2) * sizeof(char16_t));
            checkText(text);
            break;
        }
    }
    return 0;
}
