// app/io/tokenizer.h: GPT-2's tokenizer gives the reference ids (gpt-3-encoder with Python
// `regex` semantics, tests/reference/gpt2_tokenizer_reference.h) from both folder forms, decodes
// back to the text, and refuses broken tokenizer files with one clear message.
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <vector>

#include "app/io/tokenizer.h"
#include "tests/reference/gpt2_tokenizer_reference.h"
#include "tests/test_files.h"

namespace ref = gpt2_tokenizer_reference;

namespace {

const QString kDataDir = QStringLiteral(ATTN_GPT2_TOKENIZER_DIR);

std::shared_ptr<const attn::Tokenizer> loadOrFail(const QString& folder) {
    const attn::TokenizerLoadResult r = attn::Tokenizer::load(folder);
    if (!r.ok()) {
        qWarning("%s", qPrintable(r.error));
    }
    return r.tokenizer;
}

// GPT-2's byte-to-unicode map, written out here independently of the tokenizer's.
QString byteSymbol(int b) {
    int next = 256;
    for (int k = 0; k < 256; ++k) {
        const bool printable = (k >= 33 && k <= 126) || (k >= 161 && k <= 172) || k >= 174;
        const int c = printable ? k : next++;
        if (k == b) {
            return QString(QChar(static_cast<char16_t>(c)));
        }
    }
    return {};
}

// A byte-level vocabulary: byte b has id b, then `extra` from id 256 on.
QJsonObject byteVocab(const QStringList& extra = {}) {
    QJsonObject vocab;
    for (int b = 0; b < 256; ++b) {
        vocab.insert(byteSymbol(b), b);
    }
    for (qsizetype i = 0; i < extra.size(); ++i) {
        vocab.insert(extra[i], static_cast<int>(256 + i));
    }
    return vocab;
}

QByteArray json(const QJsonObject& o) { return QJsonDocument(o).toJson(QJsonDocument::Compact); }

// tokenizer.json as Hugging Face writes it for GPT-2, from vocab.json and merges.txt's bytes.
QByteArray tokenizerJsonFrom(const QByteArray& vocabJson, const QByteArray& mergesTxt,
                             bool mergesAsPairs) {
    QJsonArray merges;
    const QList<QByteArray> lines = mergesTxt.split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i) {
        if (lines[i].isEmpty()) {
            continue;
        }
        const QString line = QString::fromUtf8(lines[i]);
        if (mergesAsPairs) {
            const QStringList parts = line.split(QLatin1Char(' '));
            merges.append(QJsonArray{parts[0], parts[1]});
        } else {
            merges.append(line);
        }
    }
    const QJsonObject added{{"id", ref::kEndOfTextId}, {"content", "<|endoftext|>"},
                            {"single_word", false},    {"lstrip", false},
                            {"rstrip", false},         {"normalized", true},
                            {"special", true}};
    const QJsonObject root{
        {"version", "1.0"},
        {"added_tokens", QJsonArray{added}},
        {"normalizer", QJsonValue::Null},
        {"pre_tokenizer", QJsonObject{{"type", "ByteLevel"},
                                      {"add_prefix_space", false},
                                      {"trim_offsets", true},
                                      {"use_regex", true}}},
        {"model", QJsonObject{{"type", "BPE"},
                              {"dropout", QJsonValue::Null},
                              {"vocab", QJsonDocument::fromJson(vocabJson).object()},
                              {"merges", merges}}}};
    return json(root);
}

QString loadError(const QByteArray& vocab, const QByteArray& merges) {
    const attn::TokenizerLoadResult r = attn::Tokenizer::fromVocabAndMerges(vocab, merges);
    return r.ok() ? QStringLiteral("(loaded)") : r.error;
}

QString loadJsonError(const QByteArray& tokenizerJson) {
    const attn::TokenizerLoadResult r = attn::Tokenizer::fromTokenizerJson(tokenizerJson);
    return r.ok() ? QStringLiteral("(loaded)") : r.error;
}

}  // namespace

class TestBpeTokenizer : public QObject {
    Q_OBJECT

private:
    std::shared_ptr<const attn::Tokenizer> gpt2_;
    QByteArray vocabJson_;
    QByteArray mergesTxt_;

private slots:
    void initTestCase() {
        vocabJson_ = readFile(kDataDir + QStringLiteral("/vocab.json"));
        mergesTxt_ = readFile(kDataDir + QStringLiteral("/merges.txt"));
        QVERIFY(vocabJson_.size() > 1000000);
        QVERIFY(mergesTxt_.startsWith("#version: 0.2\n"));
        gpt2_ = loadOrFail(kDataDir);
        QVERIFY(gpt2_);
    }

    void referenceIds_data() {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < ref::kCases.size(); ++i) {
            QTest::newRow(ref::kCases[i].name) << static_cast<int>(i);
        }
    }
    // The ids of every reference text, the tokens as vocab.json writes them, and the text back.
    void referenceIds() {
        QFETCH(int, index);
        const ref::Case& c = ref::kCases[static_cast<std::size_t>(index)];
        const QString text = QString::fromUtf8(c.text);
        QCOMPARE(gpt2_->encode(text), c.ids);
        for (std::size_t i = 0; i < c.ids.size(); ++i) {
            QCOMPARE(gpt2_->token(c.ids[i]), QString::fromUtf8(c.tokens[i]));
        }
        const attn::TokenizerDecodeResult back = gpt2_->decode(c.ids);
        QVERIFY2(back.ok(), qPrintable(back.error));
        QCOMPARE(*back.text, text);
    }

    void gpt2Facts() {
        QCOMPARE(gpt2_->vocabSize(), ref::kVocabSize);
        QCOMPARE(gpt2_->endOfTextId(), std::optional<int>(ref::kEndOfTextId));
        QCOMPARE(gpt2_->token(7002), QStringLiteral("Ġjourney"));
        QCOMPARE(gpt2_->token(ref::kEndOfTextId), QStringLiteral("<|endoftext|>"));
        QCOMPARE(gpt2_->token(-1), QString());
        QCOMPARE(gpt2_->token(ref::kVocabSize), QString());
        QCOMPARE(gpt2_->encode(QString()), std::vector<int>{});
        // An unpaired surrogate is encoded as U+FFFD (EF BF BD: ids 171 119 121 in GPT-2).
        const QChar lone(static_cast<char16_t>(0xD800));
        QCOMPARE(gpt2_->encode(QString(lone)), gpt2_->encode(QString(QChar(0xFFFD))));
        QCOMPARE(gpt2_->encode(QString(QChar(0xFFFD))), (std::vector<int>{4210}));
    }

    void displayTokens() {
        QCOMPARE(gpt2_->displayToken(7002), QStringLiteral("␣journey"));
        QCOMPARE(gpt2_->displayToken(198), QStringLiteral("␊"));     // "Ċ", a newline
        QCOMPARE(gpt2_->displayToken(220), QStringLiteral("␣"));     // "Ġ"
        QCOMPARE(gpt2_->displayToken(160), QStringLiteral("<E4>"));  // "ä": byte E4 alone
        QCOMPARE(gpt2_->displayToken(64), QStringLiteral("a"));
        QCOMPARE(gpt2_->displayToken(ref::kEndOfTextId), QStringLiteral("<|endoftext|>"));
        QCOMPARE(gpt2_->displayToken(-5), QString());
    }

    // An attention dump's tokens as its program saved them.
    void displayVocabTokens() {
        // GPT-2's: "Ġ" is a space, "Ċ" a newline, "Ã©" the two bytes of "é".
        QCOMPARE(
            attn::Tokenizer::displayVocabTokens({QStringLiteral("The"),
                                                 QStringLiteral("Ġcaf\u00c3\u00a9"),
                                                 QStringLiteral("\u010a")}),
            (QStringList{QStringLiteral("The"), QStringLiteral("␣café"), QStringLiteral("␊")}));
        // BERT's keep their text: "café" stays, "##s" stays.
        QCOMPARE(
            attn::Tokenizer::displayVocabTokens(
                {QStringLiteral("[CLS]"), QStringLiteral("caf\u00e9"), QStringLiteral("##s")}),
            (QStringList{QStringLiteral("[CLS]"), QStringLiteral("café"), QStringLiteral("##s")}));
        // SentencePiece's (LLaMA, T5): "▁" marks the space.
        QCOMPARE(attn::Tokenizer::displayVocabTokens(
                     {QStringLiteral("\u2581The"), QStringLiteral("\u2581cat")}),
                 (QStringList{QStringLiteral("␣The"), QStringLiteral("␣cat")}));
    }

    // Hugging Face's replacement: bytes that are not UTF-8 become U+FFFD, as Python's
    // bytes.decode("utf-8", "replace") gives them.
    void decodeInvalidUtf8() {
        const QString r(QChar(0xFFFD));
        QCOMPARE(*gpt2_->decode({187}).text, r);                    // FF
        QCOMPARE(*gpt2_->decode({160, 116, 64}).text, r + "a");     // E4 B8 a: cut short
        QCOMPARE(*gpt2_->decode({169, 254, 222}).text, r + r + r);  // ED A0 80: a surrogate
        QCOMPARE(*gpt2_->decode({64, 187, 64}).text, "a" + r + "a");
        QCOMPARE(*gpt2_->decode({167, 254, 222}).text, u"\uB800");       // EB A0 80 is U+B800 ...
        QCOMPARE(*gpt2_->decode({167, 254}).text, r);                    // ... and EB A0 its start
        QCOMPARE(*gpt2_->decode({171, 119, 123, 64}).text, u"\uFEFFa");  // a leading U+FEFF kept
    }

    void decodeRefusesUnknownIds() {
        for (const int id : {-1, ref::kVocabSize, 1 << 30}) {
            const attn::TokenizerDecodeResult r = gpt2_->decode({64, id});
            QVERIFY(!r.ok());
            QCOMPARE(r.error, QStringLiteral("id %1 is not in the vocabulary (ids 0 to 50256); "
                                             "were the ids made by another tokenizer?")
                                  .arg(id));
        }
    }

    // tokenizer.json with merges as "a b" strings and as ["a", "b"] pairs gives the same ids.
    void tokenizerJsonForms_data() {
        QTest::addColumn<bool>("pairs");
        QTest::newRow("merges as strings") << false;
        QTest::newRow("merges as pairs") << true;
    }
    void tokenizerJsonForms() {
        QFETCH(bool, pairs);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(writeFile(dir.filePath("tokenizer.json"),
                          tokenizerJsonFrom(vocabJson_, mergesTxt_, pairs)));
        const auto t = loadOrFail(dir.path());
        QVERIFY(t);
        QCOMPARE(t->vocabSize(), ref::kVocabSize);
        QCOMPARE(t->endOfTextId(), std::optional<int>(ref::kEndOfTextId));
        for (const ref::Case& c : ref::kCases) {
            QCOMPARE(t->encode(QString::fromUtf8(c.text)), c.ids);
        }
    }

    // With tokenizer.json and vocab.json + merges.txt side by side, tokenizer.json is read.
    void tokenizerJsonWins() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(writeFile(dir.filePath("vocab.json"), vocabJson_));
        QVERIFY(writeFile(dir.filePath("merges.txt"), mergesTxt_));
        const QJsonObject small{{"model", QJsonObject{{"type", "BPE"},
                                                      {"vocab", byteVocab({"aa"})},
                                                      {"merges", QJsonArray{"a a"}}}}};
        QVERIFY(writeFile(dir.filePath("tokenizer.json"), json(small)));
        const auto t = loadOrFail(dir.path());
        QVERIFY(t);
        QCOMPARE(t->vocabSize(), 257);
        QCOMPARE(t->encode(u"aaa"), (std::vector<int>{256, 97}));
        QCOMPARE(t->endOfTextId(), std::nullopt);
    }

    // Merges by rank, leftmost first: "aaa" is "aa" + "a", and a lower-ranked merge waits.
    void mergeOrder() {
        const QByteArray vocab = json(byteVocab({"aa", "ab", "aab"}));
        const auto t = attn::Tokenizer::fromVocabAndMerges(vocab, "a a\na b\naa b\n").tokenizer;
        QVERIFY(t);
        QCOMPARE(t->encode(u"aaa"), (std::vector<int>{256, 97}));
        QCOMPARE(t->encode(u"aaaa"), (std::vector<int>{256, 256}));
        QCOMPARE(t->encode(u"aab"), (std::vector<int>{258}));  // aa first, then aa+b
        QCOMPARE(t->encode(u"ab"), (std::vector<int>{257}));
        QCOMPARE(t->encode(u"ba"), (std::vector<int>{98, 97}));
        // A later duplicate of a merge moves it to the later rank: now a+b comes before a+a.
        const auto d =
            attn::Tokenizer::fromVocabAndMerges(vocab, "a a\na b\naa b\na a\n").tokenizer;
        QVERIFY(d);
        QCOMPARE(d->encode(u"aab"), (std::vector<int>{97, 257}));
    }

    void badFolders() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QCOMPARE(attn::Tokenizer::load(dir.filePath("nowhere")).error,
                 QStringLiteral("the folder does not exist; give the folder that holds the "
                                "model's tokenizer.json or vocab.json and merges.txt"));
        QCOMPARE(attn::Tokenizer::load(dir.path()).error,
                 QStringLiteral("no tokenizer: the folder has neither tokenizer.json, "
                                "vocab.json and merges.txt, nor vocab.txt; copy them from the "
                                "model"));
        QVERIFY(writeFile(dir.filePath("vocab.json"), vocabJson_));
        QCOMPARE(attn::Tokenizer::load(dir.path()).error,
                 QStringLiteral("vocab.json is there but merges.txt is missing; copy it from the "
                                "model"));
        QVERIFY(QDir(dir.path()).mkdir("tokenizer.json"));  // a folder where a file belongs
        QVERIFY(attn::Tokenizer::load(dir.path()).error.startsWith("tokenizer.json: cannot "));
    }

    void badFiles_data() {
        QTest::addColumn<QByteArray>("vocab");
        QTest::addColumn<QByteArray>("merges");
        QTest::addColumn<QString>("error");
        const QByteArray good = json(byteVocab({"aa"}));
        QTest::newRow("malformed JSON")
            << QByteArray("{\"a\": 1,\n \"b\": }") << QByteArray("a a\n")
            << "vocab.json: line 2, column 8: not valid JSON: object is missing after a comma; "
               "is it cut short? Copy it again from the model";
        QTest::newRow("not an object") << QByteArray("[1, 2]") << QByteArray()
                                       << "vocab.json: line 1, column 1: the file holds a list; "
                                          "vocab.json is an object of tokens and their ids, "
                                          "such as {\"Ġthe\": 262}: is it the right file?";
        QTest::newRow("invalid UTF-8") << QByteArray("{\"a\xff\": 1}") << QByteArray()
                                       << "vocab.json: line 1, column 4: the file is not valid "
                                          "UTF-8 (byte 0xff): save it as UTF-8";
        QTest::newRow("id not a number")
            << QByteArray("{\"a\": 1,\n\"b\": \"2\"}") << QByteArray()
            << "vocab.json: line 2, column 6: the token \"b\" has the string \"2\" as its id; ids "
               "are whole numbers from 0 to 1048575";
        QTest::newRow("id too large") << QByteArray("{\"a\": 1e9}") << QByteArray()
                                      << "vocab.json: line 1, column 7: the token \"a\" has the "
                                         "number 1000000000 as its id; ids are whole numbers "
                                         "from 0 to 1048575";
        QTest::newRow("duplicate id") << QByteArray("{\"a\": 3, \"b\": 3}") << QByteArray()
                                      << "vocab.json: line 1, column 15: \"a\" and \"b\" both "
                                         "have id 3; every token needs its own id";
        QTest::newRow("no byte tokens") << QByteArray("{\"a\": 0}") << QByteArray()
                                        << "vocab.json: line 1, column 1: the vocabulary has no "
                                           "token for the byte "
                                           "0x00 (\"Ā\"): a byte-level BPE vocabulary has all 256 "
                                           "byte tokens; is it a GPT-2-style tokenizer?";
        QTest::newRow("merge of an unknown token")
            << good << QByteArray("#version: 0.2\na a\na zz\n")
            << "merges.txt: line 3, column 1: the merge \"a zz\" needs \"zz\", which is not in the "
               "vocabulary; vocabulary and merges must come from the same model";
        QTest::newRow("merge result unknown")
            << good << QByteArray("a b\n")
            << "merges.txt: line 1, column 1: the merge \"a b\" needs \"ab\", which is not in the "
               "vocabulary; vocabulary and merges must come from the same model";
        QTest::newRow("merge without a space")
            << good << QByteArray("#version: 0.2\r\na a\r\naa\r\n")
            << "merges.txt: line 3, column 1: \"aa\" is not a merge: each line holds two tokens "
               "separated "
               "by one space, as \"Ġ t\"";
        QTest::newRow("merge of three")
            << good << QByteArray("a a a\n")
            << "merges.txt: line 1, column 1: \"a a a\" is not a merge: each "
               "line holds two tokens separated by one space, as "
               "\"Ġ t\"";
    }
    void badFiles() {
        QFETCH(QByteArray, vocab);
        QFETCH(QByteArray, merges);
        QFETCH(QString, error);
        QCOMPARE(loadError(vocab, merges), error);
    }

    void badTokenizerJson_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("error");
        const QJsonObject vocab = byteVocab({"aa"});
        const auto with = [&](const QJsonObject& model, const QJsonObject& extra = {}) {
            QJsonObject root = extra;
            root.insert("model", model);
            return json(root);
        };
        QTest::newRow("no model") << QByteArray("{}")
                                  << "tokenizer.json: line 1, column 1: \"model\" is missing, not "
                                     "an object with \"vocab\" and \"merges\": is it a Hugging "
                                     "Face tokenizer.json?";
        // A syntax error and a wrong-typed value, each with its line and column.
        QTest::newRow("cut short")
            << QByteArray("{\"model\": {\"vocab\": {\"a\": 0},\n  \"merges\": [\"a a\", ")
            << "tokenizer.json: line 2, column 21: not valid JSON: unterminated array; is it cut "
               "short? Copy it again from the model";
        QTest::newRow("id a string")
            << QByteArray("{\"model\": {\n  \"vocab\": {\"a\": 0, \"b\": \"1\"}}}")
            << "tokenizer.json: line 2, column 26: the token \"b\" has the string \"1\" as its "
               "id; ids are whole numbers from 0 to 1048575";
        QTest::newRow("Unigram")
            << with({{"type", "Unigram"}, {"vocab", vocab}})
            << "tokenizer.json: line 1, column 18: the model type is the string \"Unigram\"; "
               "this program reads BPE and WordPiece tokenizers only";
        QTest::newRow("merges not a list")
            << with({{"type", "BPE"}, {"vocab", vocab}, {"merges", 3}})
            << "tokenizer.json: line 1, column 20: \"merges\" is the number 3, not a list of "
               "merges";
        QTest::newRow("bad merge form")
            << with({{"vocab", vocab}, {"merges", QJsonArray{"a a", QJsonArray{"a"}}}})
            << "tokenizer.json: line 1, column 27: merge 2 is a list, not \"a b\" or [\"a\", "
               "\"b\"]";
        QTest::newRow("merge of an unknown token")
            << with({{"vocab", vocab}, {"merges", QJsonArray{QJsonArray{"a", "a"}, "q zz"}}})
            << "tokenizer.json: line 1, column 31: the merge \"q zz\" needs \"zz\", which is not "
               "in the vocabulary; vocabulary and merges must come from the same model";
        const QByteArray bert = with({{"vocab", vocab}, {"merges", QJsonArray{}}},
                                     {{"pre_tokenizer", QJsonObject{{"type", "WhitespaceSplit"}}}});
        QTest::newRow("pre_tokenizer not read")
            << bert
            << QStringLiteral(
                   "tokenizer.json: line 1, column %1: pre_tokenizer type the string "
                   "\"WhitespaceSplit\" is not read: this program applies Split, ByteLevel, "
                   "Metaspace, Digits, BertPreTokenizer and a Sequence of them")
                   // Columns count characters: the vocabulary before it has non-ASCII ones.
                   .arg(
                       QString::fromUtf8(bert.left(bert.indexOf("{\"type\":\"Whitespace"))).size() +
                       1);
        QTest::newRow("added token clashes")
            << with({{"vocab", vocab}, {"merges", QJsonArray{}}},
                    {{"added_tokens", QJsonArray{QJsonObject{{"id", 97}, {"content", "<x>"}}}}})
            << "tokenizer.json: line 1, column 18: the added token \"<x>\" has id 97, which the "
               "vocabulary gives to \"a\"; give it its own id";
        const QByteArray bertPost =
            with({{"vocab", vocab}, {"merges", QJsonArray{}}},
                 {{"post_processor", QJsonObject{{"type", "InstructionProcessing"}}}});
        QTest::newRow("post_processor not read")
            << bertPost
            << QStringLiteral(
                   "tokenizer.json: line 1, column %1: post_processor type the string "
                   "\"InstructionProcessing\" is not read: this program applies "
                   "TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel and a "
                   "Sequence of them")
                   .arg(
                       QString::fromUtf8(bertPost.left(bertPost.indexOf("{\"type\":\"Instruction")))
                           .size() +
                       1);
    }
    void badTokenizerJson() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, error);
        QCOMPARE(loadJsonError(bytes), error);
    }

    // Added tokens other than <|endoftext|>: leftmost, then longest; their text is kept on decode.
    void addedTokens() {
        const QJsonObject root{
            {"added_tokens", QJsonArray{QJsonObject{{"id", 300}, {"content", "<x>"}},
                                        QJsonObject{{"id", 301}, {"content", "<x>>"}}}},
            {"model", QJsonObject{{"vocab", byteVocab()}, {"merges", QJsonArray{}}}}};
        const auto t = attn::Tokenizer::fromTokenizerJson(json(root)).tokenizer;
        QVERIFY(t);
        QCOMPARE(t->vocabSize(), 302);
        QCOMPARE(t->encode(u"a<x>><x>b"), (std::vector<int>{97, 301, 300, 98}));
        QCOMPARE(*t->decode({97, 301, 300, 98}).text, QStringLiteral("a<x>><x>b"));
        QCOMPARE(t->token(299), QString());
        QVERIFY(!t->decode({299}).ok());  // a hole between the ids
    }

    // Speed: 1000 words well under a second, with a cold cache; hostile input stays linear.
    void speed() {
        const auto t = loadOrFail(kDataDir);
        QVERIFY(t);
        QString text;
        for (int i = 0; i < 1000; ++i) {
            text += QStringLiteral("word%1 attention, ").arg(i * 7919 % 100000);
        }
        QElapsedTimer timer;
        timer.start();
        const std::vector<int> ids = t->encode(text);
        QVERIFY2(timer.elapsed() < 500, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(*t->decode(ids).text, text);

        // A 256 KiB "word", a run of spaces, digits, emoji, added tokens: quadratic merging or
        // matching would take hours here; a few seconds at most even under the sanitizers.
        const QStringList hostile{QString(1 << 18, QLatin1Char('a')),
                                  QString(1 << 18, QLatin1Char(' ')) + QLatin1Char('x'),
                                  QStringLiteral("1234567890").repeated(25000),
                                  QStringLiteral("👍🏽").repeated(25000),
                                  QStringLiteral("<|endoftext|>").repeated(20000)};
        for (const QString& h : hostile) {
            timer.restart();
            const std::vector<int> hostileIds = t->encode(h);
            QVERIFY(!hostileIds.empty());
            QCOMPARE(*t->decode(hostileIds).text, h);
            QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
        }
    }
};

QTEST_GUILESS_MAIN(TestBpeTokenizer)
#include "test_bpe_tokenizer.moc"
