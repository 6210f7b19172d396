// The tokenizers of Llama 2/3, Mistral, TinyLlama, Qwen2 and SmolLM2 (app/io/tokenizer.h)
// against Hugging Face's Tokenizers.js and SentencePiece (tests/reference/
// llama_tokenizer_reference.js): tokenizer.json in each family's form, and the same vocabularies
// as a GGUF file embeds them.
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "app/io/tokenizer.h"
#include "tests/reference/llama_tokenizer_reference.h"
#include "tests/test_files.h"

namespace ref = llama_tokenizer_reference;

namespace {

const QString kDataDir = QStringLiteral(ATTN_TOKENIZERS_DIR);
const QString kGpt2Dir = QStringLiteral(ATTN_GPT2_TOKENIZER_DIR);

QByteArray json(const QJsonObject& o) { return QJsonDocument(o).toJson(QJsonDocument::Compact); }

// GPT-2's merges.txt as a list of "a b".
QStringList gpt2Merges() {
    QStringList merges;
    const QList<QByteArray> lines = readFile(kGpt2Dir + QStringLiteral("/merges.txt")).split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i)
        if (!lines[i].isEmpty()) merges << QString::fromUtf8(lines[i]);
    return merges;
}

// A family's tokenizer.json: its skeleton with GPT-2's vocabulary and merges put in (as the
// reference script does).
QByteArray assembledTokenizerJson(const QString& name) {
    QJsonObject root =
        QJsonDocument::fromJson(readFile(kDataDir + QLatin1Char('/') + name + ".skeleton.json"))
            .object();
    QJsonObject model = root.value("model").toObject();
    model.insert(
        "vocab",
        QJsonDocument::fromJson(readFile(kGpt2Dir + QStringLiteral("/vocab.json"))).object());
    model.insert("merges", QJsonArray::fromStringList(gpt2Merges()));
    root.insert("model", model);
    return json(root);
}

bool isSkeleton(const QString& name) {
    return QFile::exists(kDataDir + "/" + name + ".skeleton.json");
}

// Each reference tokenizer once: the skeleton ones from bytes, the SentencePiece ones from their
// folder (tokenizer.json and tokenizer_config.json).
std::shared_ptr<const attn::Tokenizer> tokenizerNamed(const QString& name) {
    static std::map<QString, std::shared_ptr<const attn::Tokenizer>> loaded;
    auto& slot = loaded[name];
    if (!slot) {
        const attn::TokenizerLoadResult r =
            isSkeleton(name) ? attn::Tokenizer::fromTokenizerJson(
                                   assembledTokenizerJson(name),
                                   readFile(kDataDir + "/" + name + "/tokenizer_config.json"))
                             : attn::Tokenizer::load(kDataDir + "/" + name);
        if (!r.ok()) qWarning("%s: %s", qPrintable(name), qPrintable(r.error));
        slot = r.tokenizer;
    }
    return slot;
}

// GPT-2's vocabulary as a GGUF "gpt2" vocabulary with the family's added tokens as control tokens.
attn::GgufVocab gpt2Gguf(const QByteArray& pre, const QString& family) {
    attn::GgufVocab v;
    v.model = "gpt2";
    v.pre = pre;
    const QJsonObject vocab =
        QJsonDocument::fromJson(readFile(kGpt2Dir + QStringLiteral("/vocab.json"))).object();
    const QJsonArray added =
        QJsonDocument::fromJson(readFile(kDataDir + "/" + family + ".skeleton.json"))
            .object()
            .value("added_tokens")
            .toArray();
    qsizetype size = vocab.size();
    for (const QJsonValue a : added) size = std::max<qsizetype>(size, a["id"].toInt() + 1);
    v.tokens.resize(size);
    v.tokenTypes.assign(static_cast<std::size_t>(size), 1);
    for (auto it = vocab.begin(); it != vocab.end(); ++it)
        v.tokens[it.value().toInt()] = it.key().toUtf8();
    for (const QJsonValue a : added) {
        v.tokens[a["id"].toInt()] = a["content"].toString().toUtf8();
        v.tokenTypes[static_cast<std::size_t>(a["id"].toInt())] = a["special"].toBool() ? 3 : 4;
    }
    for (const QString& m : gpt2Merges()) v.merges << m.toUtf8();
    return v;
}

// The SentencePiece model of llama2-style as a GGUF "llama" vocabulary.
attn::GgufVocab sentencePieceGguf() {
    const QJsonObject o =
        QJsonDocument::fromJson(readFile(kDataDir + QStringLiteral("/spm-vocab.json"))).object();
    attn::GgufVocab v;
    v.model = "llama";
    v.pre = "default";
    for (const QJsonValue t : o["tokens"].toArray()) v.tokens << t.toString().toUtf8();
    for (const QJsonValue s : o["scores"].toArray())
        v.scores.push_back(static_cast<float>(s.toDouble()));
    for (const QJsonValue t : o["types"].toArray()) v.tokenTypes.push_back(t.toInt());
    v.bos = 1;
    v.eos = 2;
    v.unk = 0;
    return v;
}

const ref::Tokenizer& referenceNamed(const char* name) {
    for (const ref::Tokenizer& t : ref::kTokenizers)
        if (QByteArray(t.name) == name) return t;
    qFatal("no reference tokenizer %s", name);
}

std::vector<int> withBos(int bos, const std::vector<int>& ids) {
    std::vector<int> out{bos};
    out.insert(out.end(), ids.begin(), ids.end());
    return out;
}

}  // namespace

class TestLlamaTokenizer : public QObject {
    Q_OBJECT

private slots:
    // Every text through every family's tokenizer.json: ids, ids with BOS, decoded text.
    void referenceIds_data() {
        QTest::addColumn<QString>("tokenizer");
        QTest::addColumn<int>("index");
        for (const ref::Tokenizer& t : ref::kTokenizers)
            for (std::size_t i = 0; i < t.cases.size(); ++i)
                QTest::addRow("%s %s", t.name, t.cases[i].name)
                    << QString::fromUtf8(t.name) << static_cast<int>(i);
    }
    void referenceIds() {
        QFETCH(QString, tokenizer);
        QFETCH(int, index);
        const auto t = tokenizerNamed(tokenizer);
        QVERIFY(t);
        const ref::Case& c =
            referenceNamed(tokenizer.toUtf8().constData()).cases[static_cast<std::size_t>(index)];
        const QString text = QString::fromUtf8(c.text);
        QCOMPARE(t->encode(text), c.ids);
        QCOMPARE(t->encodeForModel(text), c.model_ids);
        const attn::TokenizerDecodeResult decoded = t->decode(c.ids);
        QVERIFY(decoded.ok());
        QCOMPARE(*decoded.text, QString::fromUtf8(c.decoded));
    }

    // decode(encode(text)) is the text, but where the tokenizer itself changes it (as Hugging
    // Face does): Qwen2's NFC composes "e" + U+0301 into "é", its lstrip "<mask>" takes the
    // spaces before it and its rstrip "<sep>" those after it; Mistral's Metaspace adds no "▁" to a
    // text that begins with a space but its decoder strips one; Llama 2's Prepend puts a "▁" after
    // each special token too.
    void roundTrip_data() {
        QTest::addColumn<QString>("tokenizer");
        QTest::addColumn<int>("index");
        for (const ref::Tokenizer& t : ref::kTokenizers)
            for (std::size_t i = 0; i < t.cases.size(); ++i)
                QTest::addRow("%s %s", t.name, t.cases[i].name)
                    << QString::fromUtf8(t.name) << static_cast<int>(i);
    }
    void roundTrip() {
        QFETCH(QString, tokenizer);
        QFETCH(int, index);
        const auto t = tokenizerNamed(tokenizer);
        QVERIFY(t);
        const ref::Case& c =
            referenceNamed(tokenizer.toUtf8().constData()).cases[static_cast<std::size_t>(index)];
        const QByteArray name(c.name);
        QString expected = QString::fromUtf8(c.text);
        if (tokenizer == "qwen2-style") {
            expected = expected.normalized(QString::NormalizationForm_C);
            if (name == "lstrip_token") expected = QStringLiteral("the answer is<mask> here");
            if (name == "rstrip_token") expected = QStringLiteral("one<sep>two <sep>three");
        }
        if (tokenizer == "mistral-style" && expected.startsWith(QLatin1Char(' '))) {
            expected.remove(0, 1);
        }
        if (tokenizer == "llama2-style" && name == "sentencepiece_specials") {
            expected = QStringLiteral("<s> Hello</s>  world <unk>");
        }
        QCOMPARE(*t->decode(t->encode(QString::fromUtf8(c.text))).text, expected);
    }

    // BOS and EOS as each family's files name them.
    void specialTokens() {
        const auto llama3 = tokenizerNamed("llama3-style");
        QCOMPARE(llama3->bosId(), std::optional<int>(50257));
        QCOMPARE(llama3->eosId(), std::optional<int>(50258));
        QVERIFY(llama3->addsBos());
        QVERIFY(!llama3->addsEos());
        const auto qwen2 = tokenizerNamed("qwen2-style");
        QCOMPARE(qwen2->bosId(), std::nullopt);
        QCOMPARE(qwen2->eosId(), std::optional<int>(50258));  // <|im_end|>, from the config
        QVERIFY(!qwen2->addsBos());
        const auto llama2 = tokenizerNamed("llama2-style");
        QCOMPARE(llama2->bosId(), std::optional<int>(1));
        QCOMPARE(llama2->eosId(), std::optional<int>(2));
        QVERIFY(llama2->addsBos());
        const auto gpt2 = attn::Tokenizer::load(kGpt2Dir).tokenizer;
        QCOMPARE(gpt2->bosId(), std::nullopt);
        QCOMPARE(gpt2->eosId(), std::optional<int>(50256));
        QVERIFY(!gpt2->addsBos());
        QCOMPARE(gpt2->encodeForModel(u"Hi"), gpt2->encode(u"Hi"));
    }

    // add_bos_token in tokenizer_config.json wins over the post-processor.
    void configTurnsBosOff() {
        const QByteArray tokenizer = readFile(kDataDir + "/llama2-style/tokenizer.json");
        const auto t =
            attn::Tokenizer::fromTokenizerJson(tokenizer, R"({"add_bos_token": false})").tokenizer;
        QVERIFY(t);
        QVERIFY(!t->addsBos());
        QCOMPARE(t->encodeForModel(u"Hello"), t->encode(u"Hello"));
        const auto noConfig = attn::Tokenizer::fromTokenizerJson(tokenizer).tokenizer;
        QVERIFY(noConfig->addsBos());  // the TemplateProcessing "<s> $A"
    }

    // SentencePiece tokens for people: "▁" as "␣", byte tokens as they are.
    void displayTokens() {
        const auto t = tokenizerNamed("llama2-style");
        int space = -1;
        int byte = -1;
        int word = -1;
        for (int id = 0; id < t->vocabSize(); ++id) {
            if (t->token(id) == QStringLiteral("▁")) space = id;
            if (t->token(id) == QStringLiteral("<0xE6>")) byte = id;
            if (t->token(id) == QStringLiteral("▁the")) word = id;
        }
        QVERIFY(space >= 0 && byte >= 0 && word >= 0);
        QCOMPARE(t->displayToken(space), QStringLiteral("␣"));
        QCOMPARE(t->displayToken(byte), QStringLiteral("<0xE6>"));
        QCOMPARE(t->displayToken(word), QStringLiteral("␣the"));
        QCOMPARE(t->displayToken(1), QStringLiteral("<s>"));
        // A byte token alone is not UTF-8: one U+FFFD per byte, as Hugging Face's ByteFallback.
        QCOMPARE(*t->decode({byte, byte}).text, QStringLiteral("\uFFFD\uFFFD"));
    }

    // The GGUF "llama" vocabulary merges by score as SentencePiece does: its ids for every text
    // (and, for the special tokens SentencePiece does not split, Hugging Face's, as llama.cpp).
    void ggufSentencePiece() {
        const attn::TokenizerLoadResult r = attn::Tokenizer::fromGgufVocab(sentencePieceGguf());
        QVERIFY2(r.ok(), qPrintable(r.error));
        const ref::Tokenizer& hf = referenceNamed("llama2-style");
        QCOMPARE(r.tokenizer->bosId(), std::optional<int>(1));
        QVERIFY(r.tokenizer->addsBos());
        for (std::size_t i = 0; i < hf.cases.size(); ++i) {
            const ref::Case& c = hf.cases[i];
            const QString text = QString::fromUtf8(c.text);
            const bool specials = QByteArray(c.name) == "sentencepiece_specials";
            const std::vector<int>& expected = specials ? c.ids : ref::kSentencePieceIds[i];
            QCOMPARE(r.tokenizer->encode(text), expected);
            QCOMPARE(r.tokenizer->encodeForModel(text), withBos(1, expected));
            QCOMPARE(*r.tokenizer->decode(c.ids).text, QString::fromUtf8(c.decoded));
        }
    }

    // GGUF "gpt2" vocabularies cut words with the patterns llama.cpp picks for tokenizer.ggml.pre:
    // the same ids as the family's tokenizer.json (Qwen2's NFC aside: llama.cpp does not apply it,
    // nor lstrip).
    void ggufByteLevel_data() {
        QTest::addColumn<QByteArray>("pre");
        QTest::addColumn<QString>("family");
        QTest::newRow("llama-bpe") << QByteArray("llama-bpe") << "llama3-style";
        QTest::newRow("qwen2") << QByteArray("qwen2") << "qwen2-style";
        QTest::newRow("smollm") << QByteArray("smollm") << "smollm2-style";
    }
    void ggufByteLevel() {
        QFETCH(QByteArray, pre);
        QFETCH(QString, family);
        const attn::TokenizerLoadResult r = attn::Tokenizer::fromGgufVocab(gpt2Gguf(pre, family));
        QVERIFY2(r.ok(), qPrintable(r.error));
        for (const ref::Case& c : referenceNamed(family.toUtf8().constData()).cases) {
            const QString text = QString::fromUtf8(c.text);
            if (family == "qwen2-style" && (text.normalized(QString::NormalizationForm_C) != text ||
                                            QByteArray(c.name).contains("_token"))) {
                continue;
            }
            QCOMPARE(r.tokenizer->encode(text), c.ids);
            QCOMPARE(*r.tokenizer->decode(c.ids).text, QString::fromUtf8(c.decoded));
        }
    }

    // Split's behaviors as Hugging Face defines them (Tokenizers.js lacks the merged ones, so
    // these are worked out by hand): "a-b--c" split at "-", each piece then merged on its own
    // with the merges "a -", "- b", "- -", "-- c", "- c".
    void splitBehaviors_data() {
        QTest::addColumn<QJsonObject>("split");
        QTest::addColumn<QStringList>("tokens");
        const auto split = [](const char* behavior, bool invert = false) {
            return QJsonObject{{"type", "Split"},
                               {"pattern", QJsonObject{{"String", "-"}}},
                               {"behavior", behavior},
                               {"invert", invert}};
        };
        QTest::newRow("Isolated") << split("Isolated") << QStringList{"a", "-", "b", "-", "-", "c"};
        QTest::newRow("Removed") << split("Removed") << QStringList{"a", "b", "c"};
        QTest::newRow("MergedWithPrevious")
            << split("MergedWithPrevious") << QStringList{"a-", "b", "-", "-", "c"};
        QTest::newRow("MergedWithNext")
            << split("MergedWithNext") << QStringList{"a", "-b", "-", "-c"};
        QTest::newRow("Contiguous") << split("Contiguous") << QStringList{"a", "-", "b", "--", "c"};
        // invert: the text between the dashes is what matched; each dash stays its own piece.
        QTest::newRow("Removed inverted") << split("Removed", true) << QStringList{"-", "-", "-"};
        // No digits: one piece, merged whole.
        QTest::newRow("Digits") << QJsonObject{{"type", "Digits"}, {"individual_digits", false}}
                                << QStringList{"a-", "b", "--c"};
    }
    void splitBehaviors() {
        QFETCH(QJsonObject, split);
        QFETCH(QStringList, tokens);
        const QJsonObject vocab{{"a", 0},  {"b", 1},  {"c", 2},   {"-", 3}, {"a-", 4},
                                {"-b", 5}, {"--", 6}, {"--c", 7}, {"-c", 8}};
        const QJsonObject root{
            {"pre_tokenizer", split},
            {"model", QJsonObject{{"type", "BPE"},
                                  {"vocab", vocab},
                                  {"merges", QJsonArray{"a -", "- b", "- -", "-- c", "- c"}}}}};
        const attn::TokenizerLoadResult r = attn::Tokenizer::fromTokenizerJson(json(root));
        QVERIFY2(r.ok(), qPrintable(r.error));
        QStringList got;
        for (const int id : r.tokenizer->encode(u"a-b--c")) got << r.tokenizer->token(id);
        QCOMPARE(got, tokens);
    }

    // single_word (Tokenizers.js does not apply it): "word" only where no letter, number or "_"
    // touches it, as Hugging Face's tokenizers crate matches it.
    void singleWordToken() {
        QJsonObject vocab;
        const QString chars = QStringLiteral("abcdefghijklmnopqrstuvwxyz ,_");
        for (qsizetype i = 0; i < chars.size(); ++i) vocab.insert(chars.mid(i, 1), int(i));
        const QJsonObject root{
            {"added_tokens",
             QJsonArray{QJsonObject{{"id", 100}, {"content", "word"}, {"single_word", true}}}},
            {"model", QJsonObject{{"type", "BPE"}, {"vocab", vocab}, {"merges", QJsonArray{}}}}};
        const attn::TokenizerLoadResult r = attn::Tokenizer::fromTokenizerJson(json(root));
        QVERIFY2(r.ok(), qPrintable(r.error));
        const QString text = QStringLiteral("word swordfish word, words word_ word");
        const std::vector<int> ids = r.tokenizer->encode(text);
        QCOMPARE(std::count(ids.begin(), ids.end(), 100), 3);
        QCOMPARE(ids.front(), 100);
        QCOMPARE(ids.back(), 100);
        QCOMPARE(*r.tokenizer->decode(ids).text, text);
    }

    // Normalizers and decoders the reference files do not use.
    void otherSteps() {
        QJsonObject vocab;
        const QString letters = QStringLiteral("abcdefghijklmnopqrstuvwxyz0123456789 _é");
        for (qsizetype i = 0; i < letters.size(); ++i) vocab.insert(letters.mid(i, 1), int(i));
        const QJsonObject root{
            {"normalizer",
             QJsonObject{
                 {"type", "Sequence"},
                 {"normalizers",
                  QJsonArray{QJsonObject{{"type", "NFKC"}}, QJsonObject{{"type", "Lowercase"}},
                             QJsonObject{{"type", "Replace"},
                                         {"pattern", QJsonObject{{"Regex", "\\s+"}}},
                                         {"content", "_"}}}}}},
            {"pre_tokenizer", QJsonObject{{"type", "Digits"}, {"individual_digits", true}}},
            {"decoder", QJsonObject{{"type", "Sequence"},
                                    {"decoders", QJsonArray{QJsonObject{{"type", "Fuse"}},
                                                            QJsonObject{{"type", "Strip"},
                                                                        {"content", "_"},
                                                                        {"start", 0},
                                                                        {"stop", 2}}}}}},
            {"model", QJsonObject{{"type", "BPE"}, {"vocab", vocab}, {"merges", QJsonArray{}}}}};
        const attn::TokenizerLoadResult r = attn::Tokenizer::fromTokenizerJson(json(root));
        QVERIFY2(r.ok(), qPrintable(r.error));
        // NFKC makes "ﬁ" "fi" and "①" "1"; Lowercase, then runs of white space become "_".
        const std::vector<int> ids = r.tokenizer->encode(u"ＡＢ ﬁ\t\t①2é___");
        QCOMPARE(*r.tokenizer->decode(ids).text, QStringLiteral("ab_fi_12é_"));
    }

    // One tokenizer (and its shared compiled patterns) used from several threads at once gives
    // every thread the reference ids.
    void severalThreads() {
        const auto t = tokenizerNamed("qwen2-style");
        const ref::Tokenizer& reference = referenceNamed("qwen2-style");
        std::atomic<int> wrong{0};
        std::vector<std::thread> threads;
        for (int k = 0; k < 4; ++k) {
            threads.emplace_back([&] {
                for (int round = 0; round < 20; ++round)
                    for (const ref::Case& c : reference.cases)
                        if (t->encode(QString::fromUtf8(c.text)) != c.ids) ++wrong;
            });
        }
        for (std::thread& thread : threads) thread.join();
        QCOMPARE(wrong.load(), 0);
    }

    // Long hostile inputs stay fast in every form: a SentencePiece-style text is one word (no
    // pre-tokenizer), so its merging must be O(n log n); patterns must not backtrack badly.
    void speed() {
        const auto gguf = attn::Tokenizer::fromGgufVocab(sentencePieceGguf()).tokenizer;
        QVERIFY(gguf);
        const QStringList hostile{QString(1 << 17, QLatin1Char('a')),
                                  QString(1 << 17, QLatin1Char(' ')) + QLatin1Char('x'),
                                  QString(1 << 16, QLatin1Char('\n')) + QStringLiteral(" \t x"),
                                  QStringLiteral("1234567890").repeated(10000),
                                  QStringLiteral("👍🏽注").repeated(10000),
                                  QStringLiteral("<|im_start|><s>").repeated(5000)};
        for (const auto& t :
             {tokenizerNamed("llama3-style"), tokenizerNamed("qwen2-style"),
              tokenizerNamed("llama2-style"), tokenizerNamed("mistral-style"), gguf}) {
            for (const QString& h : hostile) {
                QElapsedTimer timer;
                timer.start();
                const std::vector<int> ids = t->encode(h);
                QVERIFY(!ids.empty());
                QVERIFY(t->decode(ids).ok());
                QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
            }
        }
    }

    void badFiles_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("error");
        const auto with = [](const QJsonObject& extra) {
            QJsonObject root = extra;
            root.insert("model", QJsonObject{{"type", "BPE"},
                                             {"vocab", QJsonObject{{"a", 0}}},
                                             {"merges", QJsonArray{}}});
            return json(root);
        };
        QTest::newRow("normalizer")
            << with({{"normalizer", QJsonObject{{"type", "Precompiled"}}}})
            << "tokenizer.json: line 1, column 66: normalizer type the string \"Precompiled\" "
               "is not read: this program applies NFC, NFD, NFKC, NFKD, Lowercase, Prepend, "
               "Replace, BertNormalizer and a Sequence of them";
        QTest::newRow("decoder in a sequence")
            << with({{"decoder",
                      QJsonObject{{"type", "Sequence"},
                                  {"decoders", QJsonArray{QJsonObject{{"type", "Fuse"}},
                                                          QJsonObject{{"type", "CTC"}}}}}}})
            << "tokenizer.json: line 1, column 41: decoder type the string \"CTC\" is not read: "
               "this program applies ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, "
               "WordPiece and a Sequence of them";
        QTest::newRow("bad regex")
            << with({{"pre_tokenizer", QJsonObject{{"type", "Split"},
                                                   {"pattern", QJsonObject{{"Regex", "(unclosed"}}},
                                                   {"behavior", "Isolated"}}}})
            << "tokenizer.json: line 1, column 111: the pattern is not a regular expression this "
               "program can run (missing closing parenthesis at character 9)";
        QTest::newRow("behavior")
            << with({{"pre_tokenizer", QJsonObject{{"type", "Split"},
                                                   {"pattern", QJsonObject{{"String", " "}}},
                                                   {"behavior", "Sideways"}}}})
            << "tokenizer.json: line 1, column 81: the Split behavior is the string "
               "\"Sideways\", not Isolated, Removed, MergedWithPrevious, MergedWithNext or "
               "Contiguous";
        QTest::newRow("after ByteLevel")
            << with({{"pre_tokenizer",
                      QJsonObject{{"type", "Sequence"},
                                  {"pretokenizers", QJsonArray{QJsonObject{{"type", "ByteLevel"}},
                                                               QJsonObject{{"type", "Digits"}}}}}}})
            << "tokenizer.json: line 1, column 108: a pre_tokenizer after ByteLevel is not read: "
               "ByteLevel must come last";
        QTest::newRow("unknown token missing")
            << json({{"model", QJsonObject{{"vocab", QJsonObject{{"a", 0}}},
                                           {"merges", QJsonArray{}},
                                           {"unk_token", "<unk>"}}}})
            << "tokenizer.json: line 1, column 51: the unknown token \"<unk>\" is not in the "
               "vocabulary; add it or set \"unk_token\" to null";
    }
    void badFiles() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, error);
        const attn::TokenizerLoadResult r = attn::Tokenizer::fromTokenizerJson(bytes);
        QCOMPARE(r.ok() ? QStringLiteral("(loaded)") : r.error, error);
    }

    void badGguf() {
        const auto error = [](const attn::GgufVocab& v) {
            const attn::TokenizerLoadResult r = attn::Tokenizer::fromGgufVocab(v);
            return r.ok() ? QStringLiteral("(loaded)") : r.error;
        };
        attn::GgufVocab v = sentencePieceGguf();
        v.model = "bert";
        QCOMPARE(error(v),
                 "the GGUF tokenizer: tokenizer.ggml.model \"bert\" is not read: this "
                 "program reads \"llama\" (SentencePiece) and \"gpt2\" (byte-level BPE) "
                 "vocabularies");
        v = sentencePieceGguf();
        v.scores.pop_back();
        QCOMPARE(error(v),
                 "the GGUF tokenizer: tokenizer.ggml.scores has 699 scores for 700 "
                 "tokens; the file is damaged");
        v = sentencePieceGguf();
        v.bos = 700;
        QCOMPARE(error(v),
                 "the GGUF tokenizer: the bos token id 700 is not in the vocabulary "
                 "(ids 0 to 699)");
        v = gpt2Gguf("qwen35-unknown", "qwen2-style");
        QCOMPARE(error(v),
                 "the GGUF tokenizer: tokenizer.ggml.pre \"qwen35-unknown\" is not "
                 "read: this program knows the pre-tokenizers of llama-bpe, qwen2, "
                 "smollm, gpt-2, default and their kin");
        v = gpt2Gguf("gpt-2", "qwen2-style");
        v.merges[3] = "nospace";
        QCOMPARE(error(v),
                 "the GGUF tokenizer: merge 4 is \"nospace\", not two tokens separated "
                 "by one space");
        v = gpt2Gguf("gpt-2", "qwen2-style");
        v.merges[0] = "Ġ zzzz";
        QCOMPARE(error(v),
                 "the GGUF tokenizer (tokenizer.ggml.merges, merge 1): the merge \"Ġ "
                 "zzzz\" needs \"zzzz\", which is not in the vocabulary; vocabulary and "
                 "merges must come from the same model");
    }
};

QTEST_GUILESS_MAIN(TestLlamaTokenizer)
#include "test_llama_tokenizer.moc"
