// What training reads and writes (app/io/train_data.h): the bundled text, text files refused
// with their reason, the one-token-per-character and induction tokenizers (one id per character,
// decoded back), and a trained model saved as a GPT-2 folder that loads again with the same
// values and the same tokenizer ids.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <set>

#include "app/io/model_folder.h"
#include "app/io/safetensors.h"
#include "app/io/train_data.h"
#include "tests/support/model_test_weights.h"

namespace {

// Parameters laid out by the tensor table, each value a different number (sin of its index), so
// a tensor saved under the wrong name or transposed fails the comparison.
attn::ModelParameters filledParameters(const attn::TransformerSpec& spec) {
    attn::ModelParameters p;
    p.spec = spec;
    std::size_t offset = 0;
    attn::for_each_tensor(attn::tensor_table(spec), spec.num_layers,
                          [&](const attn::TensorEntry& entry, Eigen::Index layer) {
                              attn::ParameterTensor t;
                              t.entry = entry;
                              t.layer = layer;
                              t.offset = offset;
                              t.rows = entry.shape.size() == 2 ? entry.shape[0] : 1;
                              t.cols = entry.shape.back();
                              offset += t.size();
                              p.tensors.push_back(t);
                          });
    p.values.resize(offset);
    for (std::size_t i = 0; i < offset; ++i)
        p.values[i] = 0.1f * std::sin(static_cast<float>(i) + 0.5f);
    return p;
}

QByteArray writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) return {};
    return bytes;
}

// The number of code points, counted without the tokenizer.
int codePoints(const QString& text) { return static_cast<int>(text.toUcs4().size()); }

}  // namespace

class TestTrainData : public QObject {
    Q_OBJECT

private slots:
    void bundledTextIsTheVerdict();
    void readsUtf8Text();
    void refusesBadTextFiles_data();
    void refusesBadTextFiles();
    void refusesTooLargeText();
    void characterTokenizerGivesOneIdPerCharacter_data();
    void characterTokenizerGivesOneIdPerCharacter();
    void characterTokenizerIdsFollowCodePoints();
    void unseenCharactersBecomeEndOfText();
    void inductionTokenizerAlphabet();
    void inductionVocabOutsideRangeIsRefused();
    void savedFolderLoadsBack();
    void savedConfigAndNames();
    void attnOnlyRoundTrip();
    void attnOnlyConfigMustBeBool();
    void unwritableFolderIsAnError();
};

void TestTrainData::bundledTextIsTheVerdict() {
    QCOMPARE(attn::bundledTextName(), QStringLiteral("the-verdict.txt"));
    const QString text = attn::bundledText();
    QCOMPARE(text.size(), 20479);  // ASCII: one character per byte of the original file
    QVERIFY(text.startsWith(QStringLiteral("I HAD always thought Jack Gisburn rather a cheap")));
    QVERIFY(text.endsWith(QStringLiteral("there's no exterminating our kind of art.\"")));
}

void TestTrainData::readsUtf8Text() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("text.txt"));
    // A byte-order mark is not part of the text.
    writeFile(path,
              QByteArray("\xEF\xBB\xBF") + QStringLiteral("注意力 attention 🙂\n").toUtf8());
    const attn::TrainTextResult r = attn::readTrainText(path);
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(r.text, QStringLiteral("注意力 attention 🙂\n"));
}

void TestTrainData::refusesBadTextFiles_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("bytes");  // null: the file is not made
    QTest::addColumn<QString>("message");   // after "PATH: "
    QTest::newRow("missing") << "missing.txt" << QByteArray()
                             << "no such file: give the path of a text file";
    QTest::newRow("empty") << "empty.txt" << QByteArray("")
                           << "the file is empty: give a text to train on";
    QTest::newRow("only a byte-order mark")
        << "bom.txt" << QByteArray("\xEF\xBB\xBF") << "the file is empty: give a text to train on";
    QTest::newRow("Latin-1") << "latin1.txt" << QByteArray("ab\ncaf\xE9 au lait")
                             << "byte 6 (line 2, column 4) is not UTF-8: save the text as UTF-8 "
                                "(plain text, Unicode)";
    QTest::newRow("cut in a character")
        << "cut.txt" << QByteArray("\xE4\xB8\xAD\xE4\xB8")
        << "byte 3 (line 1, column 2) is not UTF-8: save the text as UTF-8 (plain text, Unicode)";
}

void TestTrainData::refusesBadTextFiles() {
    QFETCH(QString, name);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString path = dir.filePath(name);
    if (!bytes.isNull()) QVERIFY(!writeFile(path, bytes).isNull());
    const attn::TrainTextResult r = attn::readTrainText(path);
    QVERIFY(!r.ok());
    QCOMPARE(r.error, QDir::toNativeSeparators(path) + QStringLiteral(": ") + message);
    QVERIFY(r.text.isEmpty());
}

void TestTrainData::refusesTooLargeText() {
    QTemporaryDir dir;
    // A folder is not a file.
    attn::TrainTextResult r = attn::readTrainText(dir.path());
    QCOMPARE(r.error, QDir::toNativeSeparators(dir.path()) +
                          QStringLiteral(": is a folder: give a text file in it"));
    const QString path = dir.filePath(QStringLiteral("big.txt"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QVERIFY(f.resize((qint64{64} << 20) + 1));  // sparse: costs no disk
    f.close();
    r = attn::readTrainText(path);
    QCOMPARE(r.error, QDir::toNativeSeparators(path) +
                          QStringLiteral(": 64 MiB is more than the 64 MiB a training text may "
                                         "have: give a shorter text"));
}

void TestTrainData::characterTokenizerGivesOneIdPerCharacter_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("ASCII") << QStringLiteral(
        "I HAD always thought Jack Gisburn rather a cheap "
        "genius--though a good fellow enough.\n\n  end");
    QTest::newRow("Chinese") << QStringLiteral("注意力机制就是加权平均。注意，力！");
    QTest::newRow("emoji") << QStringLiteral("🙂👍🏽 ok 🙂🙂 a👍b");
    QTest::newRow("mixed") << QStringLiteral("café 中文 🙂\tnaïve—«done»");
}

void TestTrainData::characterTokenizerGivesOneIdPerCharacter() {
    QFETCH(QString, text);
    const auto tokenizer = attn::characterTokenizer(text);
    const std::vector<int> ids = tokenizer->encode(text);
    QCOMPARE(static_cast<int>(ids.size()), codePoints(text));
    // Same character, same id; different characters, different ids.
    const QList<uint> chars = text.toUcs4();
    for (qsizetype i = 0; i < chars.size(); ++i)
        for (qsizetype j = 0; j < chars.size(); ++j)
            QCOMPARE(ids[static_cast<std::size_t>(i)] == ids[static_cast<std::size_t>(j)],
                     chars[i] == chars[j]);
    const attn::TokenizerDecodeResult decoded = tokenizer->decode(ids);
    QVERIFY(decoded.ok());
    QCOMPARE(*decoded.text, text);
    // Each character alone is its own id, and <|endoftext|> is the last id.
    QCOMPARE(tokenizer->endOfTextId().value_or(-1), tokenizer->vocabSize() - 1);
    // GPT-2's files of the tokenizer read back to the same ids.
    const attn::TokenizerLoadResult again =
        attn::Tokenizer::fromVocabAndMerges(tokenizer->vocabJson(), tokenizer->mergesTxt());
    QVERIFY2(again.ok(), qPrintable(again.error));
    QCOMPARE(again.tokenizer->encode(text), ids);
    QCOMPARE(again.tokenizer->vocabSize(), tokenizer->vocabSize());
}

void TestTrainData::characterTokenizerIdsFollowCodePoints() {
    const auto ascii = attn::characterTokenizer(QStringLiteral("cab ba"));
    QCOMPARE(ascii->encode(QStringLiteral("cab ba")), (std::vector<int>{3, 1, 2, 0, 2, 1}));
    QCOMPARE(ascii->vocabSize(), 5);
    QCOMPARE(ascii->endOfTextId().value_or(-1), 4);
    QCOMPARE(ascii->token(0), QStringLiteral("Ġ"));  // the space, as GPT-2 writes it
    QCOMPARE(ascii->token(3), QStringLiteral("c"));
    // 中 U+4E2D (E4 B8 AD) and 文 U+6587 (E6 96 87): ids 0 and 1, then the bytes and prefixes
    // their merges pass through (E4, B8, E4 B8, AD; E6, 96, E6 96, 87), then <|endoftext|>.
    const auto chinese = attn::characterTokenizer(QStringLiteral("文中"));
    QCOMPARE(chinese->encode(QStringLiteral("中文中")), (std::vector<int>{0, 1, 0}));
    QCOMPARE(chinese->vocabSize(), 11);
    QCOMPARE(chinese->endOfTextId().value_or(-1), 10);
    QCOMPARE(chinese->displayToken(0), QStringLiteral("中"));
    QCOMPARE(chinese->mergesTxt(), QByteArray("#version: 0.2\n"
                                              "ä ¸\n"
                                              "ä¸ Ń\n"
                                              "æ ĸ\n"
                                              "æĸ ĩ\n"));
}

void TestTrainData::unseenCharactersBecomeEndOfText() {
    // A vocabulary without every byte token: a byte without a token is <|endoftext|>, as
    // GPT2Tokenizer maps a missing token to its unk_token.
    const auto tokenizer = attn::characterTokenizer(QStringLiteral("ab"));
    QCOMPARE(tokenizer->encode(QStringLiteral("abc")), (std::vector<int>{0, 1, 2}));
    QCOMPARE(tokenizer->encode(QStringLiteral("a中")), (std::vector<int>{0, 2, 2, 2}));
    // An unpaired surrogate is U+FFFD for the tokenizer, and so a character of its own.
    const QString lone = QString(QChar(0xD800)) + QLatin1Char('a');
    const auto withLone = attn::characterTokenizer(lone);
    QCOMPARE(withLone->encode(lone), (std::vector<int>{1, 0}));
    QCOMPARE(*withLone->decode({1}).text, QString(QChar(0xFFFD)));
}

void TestTrainData::inductionTokenizerAlphabet() {
    const auto tokenizer = attn::inductionTokenizer(64);
    QCOMPARE(tokenizer->vocabSize(), 64);
    QCOMPARE(tokenizer->endOfTextId().value_or(-1), 0);
    QCOMPARE(tokenizer->encode(QStringLiteral("abcdabcd")),
             (std::vector<int>{1, 2, 3, 4, 1, 2, 3, 4}));
    QCOMPARE(tokenizer->token(26), QStringLiteral("z"));
    QCOMPARE(tokenizer->token(27), QStringLiteral("A"));
    QCOMPARE(tokenizer->token(53), QStringLiteral("0"));
    QCOMPARE(tokenizer->token(63), QStringLiteral("!"));
    QCOMPARE(*tokenizer->decode({0, 8, 9}).text, QStringLiteral("<|endoftext|>hi"));
    QCOMPARE(attn::maxInductionVocab(), 95);  // BOS and the 94 printable ASCII characters
    const auto widest = attn::inductionTokenizer(95);
    QCOMPARE(widest->token(94), QStringLiteral("~"));
    QCOMPARE(attn::inductionTokenizer(2)->encode(QStringLiteral("ab")), (std::vector<int>{1, 0}));
}

void TestTrainData::inductionVocabOutsideRangeIsRefused() {
    for (int v : {1, 96}) {
        try {
            attn::inductionTokenizer(v);
            QFAIL("no error");
        } catch (const attn::AttentionError& e) {
            QCOMPARE(QString::fromStdString(e.what()),
                     QStringLiteral("the induction vocabulary is %1 tokens: give 2 to 95 (BOS and "
                                    "the printable ASCII characters)")
                         .arg(v));
        }
    }
}

void TestTrainData::savedFolderLoadsBack() {
    const QString text = QStringLiteral("注意力 attention 🙂");
    const auto tokenizer = attn::characterTokenizer(text);
    const attn::ModelParameters params =
        filledParameters(attn::gpt2_spec(2, 2, 8, 16, tokenizer->vocabSize()));
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("trained/model"));  // created
    QString error;
    QVERIFY2(attn::saveGpt2Folder(folder, params, *tokenizer, &error), qPrintable(error));

    const attn::ModelFolderResult opened = attn::openModelFolder(folder, true);
    QVERIFY2(opened.ok(), qPrintable(opened.error));
    QCOMPARE(opened.model.tokenizer->encode(text), tokenizer->encode(text));
    QCOMPARE(opened.model.tokenizer->endOfTextId(), tokenizer->endOfTextId());
    const attn::TransformerWeights& w = *opened.model.weights;
    QCOMPARE(w.spec.num_layers, 2);
    QCOMPARE(w.spec.num_heads, 2);
    QCOMPARE(w.spec.d_model, 8);
    QCOMPARE(w.spec.d_ff, 32);
    QCOMPARE(w.spec.max_positions, 16);
    QCOMPARE(w.spec.vocab_size, tokenizer->vocabSize());
    QCOMPARE(w.spec.norm_eps, 1e-5f);
    QVERIFY(w.spec.tied_output);
    QVERIFY(!w.spec.attn_only);
    for (const attn::ParameterTensor& t : params.tensors) {
        const attn::WeightView& view = w.slot(t.entry, t.layer);
        QCOMPARE(view.rows * view.cols, static_cast<Eigen::Index>(t.size()));
        for (std::size_t i = 0; i < t.size(); ++i) QCOMPARE(view.data[i], params.data(t)[i]);
    }
}

void TestTrainData::savedConfigAndNames() {
    const auto tokenizer = attn::inductionTokenizer(32);
    const attn::ModelParameters params = filledParameters(attn::gpt2_spec(1, 2, 8, 16, 32));
    QTemporaryDir dir;
    QString error;
    QVERIFY2(attn::saveGpt2Folder(dir.path(), params, *tokenizer, &error), qPrintable(error));
    QFile configFile(dir.filePath(QStringLiteral("config.json")));
    QVERIFY(configFile.open(QIODevice::ReadOnly));
    const QJsonObject config = QJsonDocument::fromJson(configFile.readAll()).object();
    QCOMPARE(config.value(QStringLiteral("model_type")).toString(), QStringLiteral("gpt2"));
    QCOMPARE(config.value(QStringLiteral("architectures")).toArray(),
             QJsonArray{QStringLiteral("GPT2LMHeadModel")});
    QCOMPARE(config.value(QStringLiteral("n_layer")).toInt(), 1);
    QCOMPARE(config.value(QStringLiteral("n_head")).toInt(), 2);
    QCOMPARE(config.value(QStringLiteral("n_embd")).toInt(), 8);
    QCOMPARE(config.value(QStringLiteral("n_positions")).toInt(), 16);
    QCOMPARE(config.value(QStringLiteral("n_ctx")).toInt(), 16);
    QCOMPARE(config.value(QStringLiteral("n_inner")).toInt(), 32);
    QCOMPARE(config.value(QStringLiteral("vocab_size")).toInt(), 32);
    QCOMPARE(config.value(QStringLiteral("activation_function")).toString(),
             QStringLiteral("gelu_new"));
    QCOMPARE(config.value(QStringLiteral("layer_norm_epsilon")).toDouble(), 1e-5);
    QCOMPARE(config.value(QStringLiteral("bos_token_id")).toInt(-1), 0);
    QCOMPARE(config.value(QStringLiteral("eos_token_id")).toInt(-1), 0);
    QCOMPARE(config.value(QStringLiteral("tie_word_embeddings")).toBool(false), true);
    QVERIFY(!config.contains(QStringLiteral("attn_only")));

    const attn::SafetensorsOpenResult st =
        attn::SafetensorsFile::open(dir.filePath(QStringLiteral("model.safetensors")));
    QVERIFY2(st.ok(), qPrintable(st.error));
    QCOMPARE(st.file->metadata().value(QStringLiteral("format")), QStringLiteral("pt"));
    QVERIFY(st.file->contains(QStringLiteral("transformer.wte.weight")));
    QVERIFY(st.file->contains(QStringLiteral("transformer.wpe.weight")));
    QVERIFY(st.file->contains(QStringLiteral("transformer.h.0.attn.c_attn.weight")));
    QVERIFY(st.file->contains(QStringLiteral("transformer.h.0.mlp.c_proj.bias")));
    QVERIFY(st.file->contains(QStringLiteral("transformer.ln_f.weight")));
    QVERIFY(!st.file->contains(QStringLiteral("lm_head.weight")));  // tied: not written again
    QCOMPARE(st.file->info(QStringLiteral("transformer.h.0.attn.c_attn.weight"))->shape,
             (std::vector<qint64>{8, 24}));  // Conv1D (in, out)
    QCOMPARE(st.file->info(QStringLiteral("transformer.h.0.attn.c_attn.weight"))->dtype,
             QStringLiteral("F32"));
    QCOMPARE(static_cast<std::size_t>(st.file->names().size()), params.tensors.size());

    QFile merges(dir.filePath(QStringLiteral("merges.txt")));
    QVERIFY(merges.open(QIODevice::ReadOnly));
    QCOMPARE(merges.readAll(), QByteArray("#version: 0.2\n"));  // ASCII: no merges
}

void TestTrainData::attnOnlyRoundTrip() {
    attn::TransformerSpec spec = attn::gpt2_spec(2, 2, 8, 16, 32);
    spec.attn_only = true;
    const attn::ModelParameters params = filledParameters(spec);
    QTemporaryDir dir;
    QString error;
    QVERIFY2(attn::saveGpt2Folder(dir.path(), params, *attn::inductionTokenizer(32), &error),
             qPrintable(error));
    const attn::SafetensorsOpenResult st =
        attn::SafetensorsFile::open(dir.filePath(QStringLiteral("model.safetensors")));
    QVERIFY2(st.ok(), qPrintable(st.error));
    // Embeddings and attention only: no LayerNorm, no MLP.
    for (const QString& name : st.file->names()) {
        QVERIFY2(!name.contains(QStringLiteral("ln_")), qPrintable(name));
        QVERIFY2(!name.contains(QStringLiteral("mlp")), qPrintable(name));
    }
    QVERIFY(st.file->contains(QStringLiteral("transformer.h.1.attn.c_proj.weight")));
    const attn::ModelLoadResult loaded = attn::loadModelFolder(dir.path());
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    QVERIFY(loaded.weights->spec.attn_only);
    for (const attn::ParameterTensor& t : params.tensors)
        QCOMPARE(loaded.weights->slot(t.entry, t.layer).data[t.size() - 1],
                 params.data(t)[t.size() - 1]);
}

void TestTrainData::attnOnlyConfigMustBeBool() {
    const QByteArray head =
        "{\"model_type\": \"gpt2\", \"n_layer\": 1, \"n_head\": 2, \"n_embd\": "
        "8, \"n_positions\": 16, \"vocab_size\": 32";
    attn::ModelConfigResult r = attn::parseModelConfig(head + ", \"attn_only\": true}");
    QVERIFY(r.ok());
    QVERIFY(r.spec->attn_only);
    r = attn::parseModelConfig(head + "}");
    QVERIFY(r.ok());
    QVERIFY(!r.spec->attn_only);
    r = attn::parseModelConfig(head + ",\n \"attn_only\": 1}");
    QCOMPARE(r.error, QStringLiteral("config.json: line 2, column 15: \"attn_only\" is the number "
                                     "1: give true or false"));
}

void TestTrainData::unwritableFolderIsAnError() {
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("a-file"));
    QVERIFY(!writeFile(file, "x").isNull());
    const QString folder = file + QStringLiteral("/model");  // a folder inside a file
    const auto tokenizer = attn::inductionTokenizer(16);
    QString error;
    QVERIFY(!attn::saveGpt2Folder(folder, filledParameters(attn::gpt2_spec(1, 1, 4, 8, 16)),
                                  *tokenizer, &error));
    QCOMPARE(error, QDir::toNativeSeparators(folder) +
                        QStringLiteral(": cannot create it: choose a folder you can write to"));
    QVERIFY(!QFileInfo::exists(folder));
    // A tokenizer larger than the model's vocabulary is refused before anything is written.
    const QString other = dir.filePath(QStringLiteral("other"));
    QVERIFY(!attn::saveGpt2Folder(other, filledParameters(attn::gpt2_spec(1, 1, 4, 8, 8)),
                                  *tokenizer, &error));
    QCOMPARE(error, QDir::toNativeSeparators(other) +
                        QStringLiteral(": the tokenizer has 16 ids but the model only 8 tokens: "
                                       "train with the tokenizer's vocabulary"));
    QVERIFY(!QFileInfo::exists(other));
}

QTEST_GUILESS_MAIN(TestTrainData)
#include "test_train_data.moc"
