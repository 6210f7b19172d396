// BERT's WordPiece tokenizer and the encoders' templates (app/io/tokenizer.h) against Hugging
// Face's Tokenizers.js (tests/reference/wordpiece_reference.js): vocab.txt and tokenizer.json,
// uncased and cased, single texts and pairs with their token type ids, and a RoBERTa-style
// tokenizer.json (GPT-2's vocabulary inside RoBERTa's steps); decoding, displayToken, the special
// tokens, and the files refused with one message.
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <memory>
#include <vector>

#include "app/io/tokenizer.h"
#include "tests/reference/wordpiece_reference.h"
#include "tests/test_files.h"

namespace ref = wordpiece_reference;

namespace {

const QString kDataDir = QStringLiteral(ATTN_TOKENIZERS_DIR);
const QString kGpt2Dir = QStringLiteral(ATTN_GPT2_TOKENIZER_DIR);

QByteArray json(const QJsonObject& o) { return QJsonDocument(o).toJson(QJsonDocument::Compact); }

// The RoBERTa-style tokenizer.json: its skeleton with GPT-2's vocabulary and merges put in.
QByteArray robertaTokenizerJson() {
    QJsonObject root =
        QJsonDocument::fromJson(readFile(kDataDir + "/roberta-style.skeleton.json")).object();
    QJsonObject model = root.value("model").toObject();
    model.insert("vocab", QJsonDocument::fromJson(readFile(kGpt2Dir + "/vocab.json")).object());
    QStringList merges;
    const QList<QByteArray> lines = readFile(kGpt2Dir + "/merges.txt").split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i)
        if (!lines[i].isEmpty()) merges << QString::fromUtf8(lines[i]);
    model.insert("merges", QJsonArray::fromStringList(merges));
    root.insert("model", model);
    return json(root);
}

// RoBERTa's slow form in a folder: GPT-2's vocab.json with RoBERTa-style's five specials (the
// ids its tokenizer.json gives them), merges.txt, and config.json's model_type, which tells load()
// they are RoBERTa's.
std::shared_ptr<const attn::Tokenizer> robertaFromVocabAndMerges() {
    static QTemporaryDir dir;
    QJsonObject vocab = QJsonDocument::fromJson(readFile(kGpt2Dir + "/vocab.json")).object();
    int id = 50257;
    for (const char* special : {"<s>", "<pad>", "</s>", "<unk>", "<mask>"})
        vocab.insert(QLatin1String(special), id++);
    const auto write = [&](const char* name, const QByteArray& bytes) {
        return writeFile(dir.filePath(QLatin1String(name)), bytes);
    };
    if (!dir.isValid() || !write("vocab.json", json(vocab)) ||
        !write("merges.txt", readFile(kGpt2Dir + "/merges.txt")) ||
        !write("config.json", R"({"model_type": "roberta"})"))
        return nullptr;
    const attn::TokenizerLoadResult r = attn::Tokenizer::load(dir.path());
    if (!r.ok()) qWarning("roberta-style:slow: %s", qPrintable(r.error));
    return r.tokenizer;
}

// "bert-style/uncased:txt" (vocab.txt and tokenizer_config.json), "bert-style/uncased:json"
// (tokenizer.json), "roberta-style" and "roberta-style:slow" (vocab.json and merges.txt).
std::shared_ptr<const attn::Tokenizer> tokenizerNamed(const QString& name) {
    static std::map<QString, std::shared_ptr<const attn::Tokenizer>> loaded;
    auto& slot = loaded[name];
    if (!slot) {
        attn::TokenizerLoadResult r;
        const QString folder = kDataDir + "/" + name.section(':', 0, 0);
        if (name == QLatin1String("roberta-style:slow")) {
            return slot = robertaFromVocabAndMerges();
        } else if (name == QLatin1String("roberta-style")) {
            r = attn::Tokenizer::fromTokenizerJson(robertaTokenizerJson());
        } else if (name.endsWith(QLatin1String(":txt"))) {
            r = attn::Tokenizer::fromVocabTxt(readFile(folder + "/vocab.txt"),
                                              readFile(folder + "/tokenizer_config.json"));
        } else {
            r = attn::Tokenizer::load(folder);
        }
        if (!r.ok()) qWarning("%s: %s", qPrintable(name), qPrintable(r.error));
        slot = r.tokenizer;
    }
    return slot;
}

const ref::Tokenizer& reference(const QString& name) {
    for (const ref::Tokenizer& t : ref::kTokenizers)
        if (name.section(':', 0, 0) == QLatin1String(t.name)) return t;
    qFatal("no reference for %s", qPrintable(name));
}

const QStringList kForms = {"bert-style/uncased:txt", "bert-style/uncased:json",
                            "bert-style/cased:txt",   "bert-style/cased:json",
                            "roberta-style",          "roberta-style:slow"};

QString decoded(const attn::Tokenizer& t, const std::vector<int>& ids) {
    const attn::TokenizerDecodeResult r = t.decode(ids);
    return r.ok() ? *r.text : QStringLiteral("(error) ") + r.error;
}

// A vocab.txt's tokenizer, or its error.
QString vocabTxtError(const QByteArray& vocab, const QByteArray& config = {}) {
    const attn::TokenizerLoadResult r = attn::Tokenizer::fromVocabTxt(vocab, config);
    return r.ok() ? QStringLiteral("(loaded)") : r.error;
}

QString tokenizerJsonError(const QByteArray& bytes) {
    const attn::TokenizerLoadResult r = attn::Tokenizer::fromTokenizerJson(bytes);
    return r.ok() ? QStringLiteral("(loaded)") : r.error;
}

const QByteArray kSmallVocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\n##s\nworld\n";

// A small WordPiece tokenizer.json with `model` and the root keys of `extra` changed.
QByteArray wordPieceJson(const QJsonObject& model, const QJsonObject& extra = {}) {
    QJsonObject m{{"type", "WordPiece"},
                  {"unk_token", "[UNK]"},
                  {"continuing_subword_prefix", "##"},
                  {"max_input_chars_per_word", 100},
                  {"vocab", QJsonObject{{"[UNK]", 0}, {"[CLS]", 1}, {"[SEP]", 2}, {"a", 3}}}};
    for (auto it = model.begin(); it != model.end(); ++it) m.insert(it.key(), it.value());
    QJsonObject root{{"normalizer", QJsonObject{{"type", "BertNormalizer"}}},
                     {"pre_tokenizer", QJsonObject{{"type", "BertPreTokenizer"}}},
                     {"decoder", QJsonObject{{"type", "WordPiece"}}},
                     {"model", m}};
    for (auto it = extra.begin(); it != extra.end(); ++it) root.insert(it.key(), it.value());
    return json(root);
}

}  // namespace

class TestWordPieceTokenizer : public QObject {
    Q_OBJECT

private slots:
    void referenceIds_data() {
        QTest::addColumn<QString>("tokenizer");
        QTest::addColumn<int>("index");
        for (const QString& form : kForms) {
            const ref::Tokenizer& t = reference(form);
            for (std::size_t i = 0; i < t.cases.size(); ++i)
                QTest::addRow("%s %s", qPrintable(form), t.cases[i].name) << form << int(i);
        }
    }
    void referenceIds() {
        QFETCH(QString, tokenizer);
        QFETCH(int, index);
        const auto t = tokenizerNamed(tokenizer);
        QVERIFY(t);
        const ref::Case& c = reference(tokenizer).cases[static_cast<std::size_t>(index)];
        const QString text = QString::fromUtf8(c.text.data(), qsizetype(c.text.size()));
        QCOMPARE(t->encode(text), c.ids);
        QCOMPARE(t->encodeForModel(text), c.model_ids);
        const attn::TokenizedInput in = t->encodeInput(text);
        QCOMPARE(in.ids, c.model_ids);
        QCOMPARE(in.typeIds, std::vector<int>(c.model_ids.size(), 0));
        QCOMPARE(in.segments, std::vector<int>(c.model_ids.size(), 0));
        QCOMPARE(decoded(*t, c.ids), QString::fromUtf8(c.decoded));
        QCOMPARE(decoded(*t, c.model_ids), QString::fromUtf8(c.model_decoded));
    }

    void referencePairs_data() {
        QTest::addColumn<QString>("tokenizer");
        QTest::addColumn<int>("index");
        for (const QString& form : kForms) {
            const ref::Tokenizer& t = reference(form);
            for (std::size_t i = 0; i < t.pairs.size(); ++i)
                QTest::addRow("%s %s", qPrintable(form), t.pairs[i].name) << form << int(i);
        }
    }
    void referencePairs() {
        QFETCH(QString, tokenizer);
        QFETCH(int, index);
        const auto t = tokenizerNamed(tokenizer);
        QVERIFY(t);
        QVERIFY(t->hasPairTemplate());
        const ref::PairCase& c = reference(tokenizer).pairs[static_cast<std::size_t>(index)];
        const attn::TokenizedInput in =
            t->encodeInput(QString::fromUtf8(c.text.data(), qsizetype(c.text.size())),
                           QString::fromUtf8(c.pair.data(), qsizetype(c.pair.size())));
        QCOMPARE(in.ids, c.ids);
        if (tokenizer.startsWith(QLatin1String("roberta-style"))) {
            // RoBERTa's pair is all type 0 (the tokenizers crate; Tokenizers.js says 1).
            QCOMPARE(in.typeIds, std::vector<int>(c.ids.size(), 0));
        } else {
            QCOMPARE(in.typeIds, c.type_ids);
        }
        // The first text with its special tokens is segment 0, the pair's part segment 1.
        const std::size_t firstPart = t->encodeInput(QString::fromUtf8(c.text)).ids.size();
        std::vector<int> segments(c.ids.size(), 1);
        std::fill(segments.begin(), segments.begin() + static_cast<std::ptrdiff_t>(firstPart), 0);
        QCOMPARE(in.segments, segments);
    }

    void emptyPairKeepsItsSpecialTokens() {
        // An empty second text is still a pair, as in the tokenizers crate: its [SEP] stays.
        const auto bert = tokenizerNamed("bert-style/uncased:txt");
        QVERIFY(bert);
        const int hello = bert->encode(u"hello")[0];
        const int world = bert->encode(u"world")[0];
        const attn::TokenizedInput in =
            bert->encodeInput(u"hello world", std::optional<QStringView>(u""));
        QCOMPARE(in.ids, (std::vector<int>{2, hello, world, 3, 3}));
        QCOMPARE(in.typeIds, (std::vector<int>{0, 0, 0, 0, 1}));
        QCOMPARE(in.segments, (std::vector<int>{0, 0, 0, 0, 1}));
        const auto roberta = tokenizerNamed("roberta-style");
        QVERIFY(roberta);
        const attn::TokenizedInput r =
            roberta->encodeInput(u"hello", std::optional<QStringView>(u""));
        QCOMPARE(r.ids, (std::vector<int>{50257, 31373, 50259, 50259, 50259}));
        QCOMPARE(r.segments, (std::vector<int>{0, 0, 0, 1, 1}));
    }

    void bothFormsAgree() {
        // The same vocabulary as vocab.txt and as tokenizer.json: the same ids and tokens.
        for (const char* variant : {"bert-style/uncased", "bert-style/cased"}) {
            const auto txt = tokenizerNamed(QString::fromLatin1(variant) + ":txt");
            const auto js = tokenizerNamed(QString::fromLatin1(variant) + ":json");
            QVERIFY(txt && js);
            QCOMPARE(txt->vocabSize(), js->vocabSize());
            for (int id = 0; id < txt->vocabSize(); ++id) QCOMPARE(txt->token(id), js->token(id));
            QCOMPARE(txt->isSpecial(2), js->isSpecial(2));
        }
    }

    void loadPrefersTokenizerJsonThenVocabTxt() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString cased = kDataDir + "/bert-style/cased/";
        QVERIFY(writeFile(dir.filePath("vocab.txt"), readFile(cased + "vocab.txt")));
        QVERIFY(writeFile(dir.filePath("tokenizer_config.json"),
                          readFile(cased + "tokenizer_config.json")));
        attn::TokenizerLoadResult r = attn::Tokenizer::load(dir.path());
        QVERIFY2(r.ok(), qPrintable(r.error));
        // do_lower_case false from tokenizer_config.json: "Hello" keeps its capital.
        QCOMPARE(r.tokenizer->token(r.tokenizer->encode(u"Hello")[0]), QStringLiteral("Hello"));
        // tokenizer.json wins: the uncased one, which lower-cases.
        QVERIFY(writeFile(dir.filePath("tokenizer.json"),
                          readFile(kDataDir + "/bert-style/uncased/tokenizer.json")));
        r = attn::Tokenizer::load(dir.path());
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.tokenizer->token(r.tokenizer->encode(u"Hello")[0]), QStringLiteral("hello"));
    }

    void displayTokensAsWritten() {
        const auto t = tokenizerNamed("bert-style/uncased:txt");
        QVERIFY(t);
        const std::vector<int> ids = t->encodeForModel(u"Jumping dogs");
        QStringList shown;
        for (const int id : ids) shown << t->displayToken(id);
        QCOMPARE(shown, (QStringList{"[CLS]", "jump", "##ing", "dog", "##s", "[SEP]"}));
    }

    void bertVizTokensKeepTheirLetters() {
        // "ā" and "Ł" are among the characters that stand for bytes in GPT-2's lists; in a list
        // with [CLS] they are letters.
        QCOMPARE(attn::Tokenizer::displayVocabTokens({"[CLS]", "ā", "##Ł", "[SEP]"}),
                 (QStringList{"[CLS]", "ā", "##Ł", "[SEP]"}));
        // Without: GPT-2's symbols for the bytes 0x01 and 0x9F (U+0101 and U+0141).
        QCOMPARE(attn::Tokenizer::displayVocabTokens({"ā", "##Ł"}),
                 (QStringList{"\u2401", "##<9F>"}));
    }

    void specialTokens() {
        const auto bert = tokenizerNamed("bert-style/uncased:json");
        QVERIFY(bert);
        QCOMPARE(bert->maskId(), std::optional<int>(4));
        QCOMPARE(bert->padId(), std::optional<int>(0));
        QVERIFY2(!bert->bosId(), qPrintable(bert->token(bert->bosId().value_or(-1))));
        QVERIFY(!bert->addsBos());
        for (const int id : {0, 2, 3}) QVERIFY2(bert->isSpecial(id), qPrintable(bert->token(id)));
        QVERIFY(!bert->isSpecial(1));  // [UNK] stands for text
        QVERIFY(!bert->isSpecial(4));  // and [MASK] for the word the model fills in
        QVERIFY(!bert->isSpecial(bert->encode(u"hello")[0]));
        QVERIFY(!bert->isSpecial(-1));
        QVERIFY(!bert->isSpecial(bert->vocabSize()));

        for (const char* form : {"roberta-style", "roberta-style:slow"}) {
            const auto roberta = tokenizerNamed(QLatin1String(form));
            QVERIFY2(roberta, form);
            QVERIFY(roberta->hasPairTemplate());
            QCOMPARE(roberta->maskId(), std::optional<int>(50261));
            QCOMPARE(roberta->padId(), std::optional<int>(50258));
            QCOMPARE(roberta->bosId(), std::optional<int>(50257));
            QCOMPARE(roberta->eosId(), std::optional<int>(50259));
            QVERIFY(roberta->addsBos() && roberta->addsEos());
            QVERIFY(roberta->isSpecial(50257) && roberta->isSpecial(50259));
            QVERIFY(!roberta->isSpecial(50261));  // <mask>
            QVERIFY(!roberta->isSpecial(50256 - 1));
            // <mask> takes the space before it (lstrip).
            const std::vector<int> ids = roberta->encode(u"is <mask>");
            QCOMPARE(ids.back(), 50261);
            QCOMPARE(roberta->token(ids[ids.size() - 2]), QStringLiteral("is"));
        }
    }

    // vocab.json + merges.txt are RoBERTa's when tokenizer_config.json's tokenizer_class says so
    // (save_pretrained's slow tokenizer), else GPT-2's; a RoBERTa vocabulary without its
    // specials is refused by name.
    void robertaVocabAndMergesByTokenizerClass() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QJsonObject vocab = QJsonDocument::fromJson(readFile(kGpt2Dir + "/vocab.json")).object();
        int id = 50257;
        for (const char* special : {"<s>", "<pad>", "</s>", "<unk>", "<mask>"})
            vocab.insert(QLatin1String(special), id++);
        QVERIFY(writeFile(dir.filePath("vocab.json"), json(vocab)));
        QVERIFY(writeFile(dir.filePath("merges.txt"), readFile(kGpt2Dir + "/merges.txt")));
        const auto loaded = [&] { return attn::Tokenizer::load(dir.path()); };
        QVERIFY(!loaded().tokenizer->hasPairTemplate());  // GPT2Tokenizer's files
        QVERIFY(writeFile(dir.filePath("tokenizer_config.json"),
                          R"({"tokenizer_class": "RobertaTokenizer"})"));
        const attn::TokenizerLoadResult r = loaded();
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.tokenizer->encodeInput(u"Hi", std::optional<QStringView>(u"you")).ids,
                 (std::vector<int>{50257, 17250, 50259, 50259, 5832, 50259}));
        vocab.remove("<mask>");
        QVERIFY(writeFile(dir.filePath("vocab.json"), json(vocab)));
        QCOMPARE(loaded().error,
                 QStringLiteral("vocab.json: line 1, column 1: RoBERTa's special token \"<mask>\" "
                                "is not in the vocabulary; is it RoBERTa's vocab.json?"));
    }

    void decodersKeepTheirTemplate() {
        // GPT-2's vocab.json and merges.txt: no template, no pair template, nothing added.
        const attn::TokenizerLoadResult r = attn::Tokenizer::load(kGpt2Dir);
        QVERIFY2(r.ok(), qPrintable(r.error));
        const attn::Tokenizer& t = *r.tokenizer;
        QVERIFY(!t.hasPairTemplate());
        QCOMPARE(t.encodeForModel(u"Hello world"), t.encode(u"Hello world"));
        const attn::TokenizedInput in =
            t.encodeInput(u"Hello", std::optional<QStringView>(u" you"));
        std::vector<int> ids = t.encode(u"Hello");
        const std::vector<int> pair = t.encode(u" you");
        ids.insert(ids.end(), pair.begin(), pair.end());
        QCOMPARE(in.ids, ids);
        QCOMPARE(in.typeIds, std::vector<int>(ids.size(), 0));
        QCOMPARE(in.segments, (std::vector<int>{0, 1}));
        QVERIFY(t.isSpecial(50256));  // <|endoftext|>
        QCOMPARE(t.maskId(), std::nullopt);
    }

    void longWordIsUnknown() {
        const auto t = tokenizerNamed("bert-style/uncased:txt");
        QVERIFY(t);
        // 100 characters still split; 101 is one [UNK]; a character not in the vocabulary too.
        QCOMPARE(t->encode(QString(100, QLatin1Char('a'))).size(), std::size_t{100});
        QCOMPARE(t->encode(QString(101, QLatin1Char('a'))), std::vector<int>{1});
        QCOMPARE(t->encode(u"ж"), std::vector<int>{1});
    }

    void speed() {
        // 10,000 different 100-character words that end in a character without a token: each
        // is scanned in full before it becomes [UNK]. Hugging Face's loop tries every end for
        // every start; starting at the longest token's length keeps this to a fraction of that.
        const auto t = tokenizerNamed("bert-style/uncased:txt");
        QVERIFY(t);
        QString text;
        quint32 state = 1;
        for (int w = 0; w < 10000; ++w) {
            for (int i = 0; i < 99; ++i) {
                state = state * 1664525u + 1013904223u;
                text += QChar(u'a' + static_cast<char16_t>((state >> 24) % 26));
            }
            text += QStringLiteral("ж ");
        }
        QElapsedTimer timer;
        timer.start();
        const std::vector<int> ids = t->encode(text);
        QCOMPARE(ids, std::vector<int>(10000, 1));
        QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
        qInfo("10,000 words of 100 characters: %lld ms", timer.elapsed());
    }

    void vocabTxtRules() {
        // A token listed twice encodes as its later line (BertTokenizer's load_vocab dict); the
        // earlier id still decodes. CRLF line ends are read as LF.
        const attn::TokenizerLoadResult r = attn::Tokenizer::fromVocabTxt(
            "[UNK]\r\n[CLS]\r\n[SEP]\r\nhello\r\nworld\r\nhello\r\n", {});
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.tokenizer->encode(u"Hello world"), (std::vector<int>{5, 4}));
        QCOMPARE(decoded(*r.tokenizer, {3, 4}), QStringLiteral("hello world"));
        // strip_accents false with lower-casing keeps the accents.
        const attn::TokenizerLoadResult accents = attn::Tokenizer::fromVocabTxt(
            "[UNK]\n[CLS]\n[SEP]\ncafé\ncafe\n", R"({"strip_accents": false})");
        QVERIFY2(accents.ok(), qPrintable(accents.error));
        QCOMPARE(accents.tokenizer->encode(u"CAFÉ"), std::vector<int>{3});
        // tokenize_chinese_chars false: the ideographs stay one word.
        const attn::TokenizerLoadResult cjk = attn::Tokenizer::fromVocabTxt(
            "[UNK]\n[CLS]\n[SEP]\n注意\n注\n##意\n", R"({"tokenize_chinese_chars": false})");
        QVERIFY2(cjk.ok(), qPrintable(cjk.error));
        QCOMPARE(cjk.tokenizer->encode(u"注意"), std::vector<int>{3});
    }

    void bertSplitsAsBasicTokenizer() {
        // CJK ideographs beyond the BMP (U+20000, CJK Extension B) are set apart, as in the
        // tokenizers crate and BasicTokenizer (the reference library sees only the BMP), and a
        // line separator (U+2028) separates words. Every character here is in the vocabulary.
        const attn::TokenizerLoadResult r =
            attn::Tokenizer::fromVocabTxt("[UNK]\n[CLS]\n[SEP]\na\nb\n##b\n\xF0\xA0\x80\x80\n", {});
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.tokenizer->encode(u"a\U00020000b"), (std::vector<int>{3, 6, 4}));
        QCOMPARE(r.tokenizer->encode(u"a\u2028b"), (std::vector<int>{3, 4}));
        QCOMPARE(r.tokenizer->encode(u"ab"), (std::vector<int>{3, 5}));
        QCOMPARE(decoded(*r.tokenizer, {3, 6, 4, 5}), QString::fromUtf8("a \xF0\xA0\x80\x80 bb"));
    }

    void badFiles_data() {
        QTest::addColumn<QByteArray>("vocab");
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QString>("error");
        QTest::newRow("empty") << QByteArray() << QByteArray()
                               << "vocab.txt: the file is empty; it holds one WordPiece token per "
                                  "line ([PAD], [UNK], [CLS], ...): copy it again from the model";
        QTest::newRow("blank lines") << QByteArray("\n\n  \n") << QByteArray()
                                     << "vocab.txt: the file is empty; it holds one WordPiece "
                                        "token per line ([PAD], [UNK], [CLS], ...): copy it again "
                                        "from the model";
        QTest::newRow("no [UNK]") << QByteArray("[CLS]\n[SEP]\nhello\n") << QByteArray()
                                  << "vocab.txt: the unknown token \"[UNK]\" is not in the "
                                     "vocabulary; add it: WordPiece needs it for the words it "
                                     "cannot cut";
        QTest::newRow("no [SEP]") << QByteArray("[UNK]\n[CLS]\nhello\n") << QByteArray()
                                  << "vocab.txt: the template's special token \"[SEP]\" is not in "
                                     "the vocabulary; add it (BERT's are [CLS] and [SEP])";
        QTest::newRow("invalid UTF-8")
            << QByteArray("[UNK]\n[CLS]\n[SEP]\nab\xff\n") << QByteArray()
            << "vocab.txt: line 4, column 3: the file is not valid UTF-8 (byte 0xff): save it as "
               "UTF-8";
        QTest::newRow("config not JSON") << kSmallVocab << QByteArray("{\"do_lower_case\": tru")
                                         << "(starts with tokenizer_config.json)";
        QTest::newRow("config flag not a bool")
            << kSmallVocab << QByteArray("{\"do_lower_case\": \"yes\"}")
            << "tokenizer_config.json: line 1, column 19: \"do_lower_case\" is the string "
               "\"yes\", not true or false";
        QTest::newRow("renamed unknown token missing")
            << kSmallVocab << QByteArray("{\"unk_token\": \"<unk>\"}")
            << "vocab.txt: the unknown token \"<unk>\" is not in the vocabulary; add it: "
               "WordPiece needs it for the words it cannot cut";
    }
    void badFiles() {
        QFETCH(QByteArray, vocab);
        QFETCH(QByteArray, config);
        QFETCH(QString, error);
        const QString got = vocabTxtError(vocab, config);
        if (error.startsWith(QLatin1String("(starts with "))) {
            QVERIFY2(got.startsWith(error.mid(13).chopped(1) + ": line 1"), qPrintable(got));
        } else {
            QCOMPARE(got, error);
        }
    }

    void tooManyLines() {
        QByteArray vocab = "[UNK]\n[CLS]\n[SEP]\n";
        vocab += QByteArray("x\n").repeated(attn::kMaxTokenizerIds);
        QCOMPARE(vocabTxtError(vocab),
                 QStringLiteral("vocab.txt: line %1, column 1: the vocabulary has more than %2 "
                                "lines, the most this program reads; is it a vocab.txt?")
                     .arg(attn::kMaxTokenizerIds + 1)
                     .arg(attn::kMaxTokenizerIds));
        const QByteArray huge(attn::kMaxTokenizerFileBytes + 1, 'a');
        QCOMPARE(vocabTxtError(huge),
                 "vocab.txt: the file is 64.0 MB; tokenizer files are "
                 "limited to 64.0 MB");
    }

    void badTokenizerJson_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("error");
        QJsonObject noVocab;
        noVocab.insert("vocab", QJsonValue());
        QTest::newRow("no vocab") << wordPieceJson(noVocab)
                                  << "tokenizer.json: line 1, column 153: \"vocab\" is null, not "
                                     "an object of tokens and their ids";
        QTest::newRow("unk_token not in vocab")
            << wordPieceJson({{"unk_token", "<unk>"}})
            << "tokenizer.json: line 1, column 153: the unknown token \"<unk>\" is not in the "
               "vocabulary; add it: WordPiece needs it for the words it cannot cut";
        QTest::newRow("no unk_token")
            << wordPieceJson({{"unk_token", QJsonValue()}})
            << "tokenizer.json: line 1, column 137: \"unk_token\" is null; a WordPiece model "
               "needs its unknown token (\"[UNK]\") for the words it cannot cut";
        const QJsonObject missing{
            {"type", "TemplateProcessing"},
            {"single", QJsonArray{QJsonObject{{"SpecialToken", QJsonObject{{"id", "[CLS]"}}}},
                                  QJsonObject{{"Sequence", QJsonObject{{"id", "A"}}}}}},
            {"pair", QJsonArray{QJsonObject{{"Sequence", QJsonObject{{"id", "A"}}}}}},
            {"special_tokens",
             QJsonObject{{"[CLS]", QJsonObject{{"id", "[CLS]"}, {"ids", QJsonArray{7}}}}}}};
        QTest::newRow("template token not in vocab")
            << wordPieceJson({}, {{"post_processor", missing}})
            << "tokenizer.json: line 1, column 248: the template's special token \"[CLS]\" (id "
               "7) is not in the vocabulary; the tokenizer files must come from one model";
        QJsonObject unlisted = missing;
        unlisted.insert("special_tokens", QJsonObject{});
        QTest::newRow("template token not listed")
            << wordPieceJson({}, {{"post_processor", unlisted}})
            << "tokenizer.json: line 1, column 308: the template's special token \"[CLS]\" is "
               "not in \"special_tokens\" with its \"ids\"; add it there";
        QTest::newRow("bert processing id not in vocab")
            << wordPieceJson({},
                             {{"post_processor", QJsonObject{{"type", "BertProcessing"},
                                                             {"sep", QJsonArray{"[SEP]", 2}},
                                                             {"cls", QJsonArray{"[CLS]", 99}}}}})
            << "tokenizer.json: line 1, column 248: the template's special token \"[CLS]\" (id "
               "99) is not in the vocabulary; the tokenizer files must come from one model";
    }
    void badTokenizerJson() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, error);
        QCOMPARE(tokenizerJsonError(bytes), error);
    }
};

QTEST_GUILESS_MAIN(TestWordPieceTokenizer)
#include "test_wordpiece_tokenizer.moc"
