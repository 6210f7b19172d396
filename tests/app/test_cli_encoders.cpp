// attention-cli tokenize / forward / export --model on the tiny encoders of tests/data/encoders/
// (BERT with its masked-LM head, BertModel in BF16, DistilBERT in F16, RoBERTa), against the
// float64 PyTorch references of tests/reference/encoder_reference.h: the ids and token_type_ids
// of singles and pairs, every attention weight, the [MASK] fillers, the exported heatmap's
// numbers, and the refusals (a pair for a decoder, generating with an encoder) as one line.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "cli_run.h"
#include "tests/reference/encoder_reference.h"
#include "tests/reference/gpt2_tokenizer_reference.h"
#include "tests/support/model_test_folder.h"
#include "tests/support/model_test_weights.h"

namespace ref = attn::ref::encoder;

class TestCliEncoders : public QObject {
    Q_OBJECT

private slots:
    void tokenize();
    void forward();
    void summaryAndNoHead();
    void exportPairHeads();
    void errors();
    void badFiles();

private:
    static QString folder(const char* name) {
        return QStringLiteral(ATTN_ENCODERS_DIR "/") + QString::fromLatin1(name);
    }
    static QStringList textArgs(const ref::Sequence& s) {
        QStringList args{QStringLiteral("--text"), QString::fromUtf8(s.text)};
        if (s.text_pair) args << QStringLiteral("--text-pair") << QString::fromUtf8(s.text_pair);
        return args;
    }
    QJsonObject run(const QStringList& args);
};

QJsonObject TestCliEncoders::run(const QStringList& args) {
    const CliRun r = runCli(args);
    if (r.exitCode != 0) qWarning() << r.err;
    [&] { QCOMPARE(r.exitCode, 0); }();
    return QJsonDocument::fromJson(r.out).object();
}

static QJsonArray intArray(const std::vector<int>& values) {
    QJsonArray out;
    for (int v : values) out.append(v);
    return out;
}

// Singles and pairs: the ids, the pieces and the segments PyTorch's run was fed.
void TestCliEncoders::tokenize() {
    int checked = 0;
    for (const ref::Case& c : ref::kCases) {
        if (QByteArrayLiteral("batch") == c.name) continue;
        const ref::Sequence& s = c.sequences.front();
        const QJsonObject json =
            run(QStringList{"tokenize", "--model", folder(c.folder)} + textArgs(s));
        QCOMPARE(json.value("ids").toArray(), intArray(s.ids));
        const QJsonArray tokens = json.value("tokens").toArray();
        QCOMPARE(static_cast<std::size_t>(tokens.size()), s.tokens.size());
        for (std::size_t i = 0; i < s.tokens.size(); ++i)
            QCOMPARE(tokens[static_cast<qsizetype>(i)].toString(), QString::fromUtf8(s.tokens[i]));
        // DistilBERT's tokenizer gives no token types; ours are its template's, all 0 here.
        const std::vector<int> types =
            s.token_type_ids.empty() ? std::vector<int>(s.ids.size(), 0) : s.token_type_ids;
        QCOMPARE(json.value("token_type_ids").toArray(), intArray(types));
        ++checked;
    }
    QCOMPARE(checked, 7);
}

// Every attention weight and the [MASK] fillers of each single and pair.
void TestCliEncoders::forward() {
    for (const ref::Case& c : ref::kCases) {
        if (QByteArrayLiteral("batch") == c.name) continue;
        const ref::Sequence& s = c.sequences.front();
        const ref::Model& m =
            *std::find_if(ref::kModels.begin(), ref::kModels.end(),
                          [&](const ref::Model& x) { return QByteArray(x.folder) == c.folder; });
        const QJsonObject json =
            run(QStringList{"forward", "--model", folder(c.folder)} + textArgs(s));
        const QJsonObject model = json.value("model").toObject();
        QCOMPARE(model.value("model_type").toString(), QString::fromLatin1(m.family));
        QCOMPARE(model.value("dtype").toString(), QString::fromLatin1(m.dtype));
        QCOMPARE(json.value("ids").toArray(), intArray(s.ids));
        QVERIFY(json.contains("token_type_ids"));
        QCOMPARE(json.value("next_tokens").toArray().size(), 0);
        const auto t = static_cast<qsizetype>(s.ids.size());
        const QJsonArray layers = json.value("attentions").toArray();
        QCOMPARE(layers.size(), m.num_layers);
        std::size_t at = 0;
        for (const QJsonValue layer : layers) {
            QCOMPARE(layer.toArray().size(), m.num_heads);
            for (const QJsonValue head : layer.toArray()) {
                QCOMPARE(head.toArray().size(), t);
                for (const QJsonValue row : head.toArray())
                    for (const QJsonValue cell : row.toArray()) {
                        const double expected = static_cast<double>(s.attentions[at++]);
                        QVERIFY2(std::abs(cell.toDouble() - expected) < 2e-5,
                                 qPrintable(QStringLiteral("%1 %2: %3 vs %4")
                                                .arg(c.folder, c.name)
                                                .arg(cell.toDouble())
                                                .arg(expected)));
                    }
            }
        }
        QCOMPARE(at, s.attentions.size());
        const QJsonArray masks = json.value("mask_predictions").toArray();
        QCOMPARE(static_cast<std::size_t>(masks.size()), s.masks.size());
        for (std::size_t i = 0; i < s.masks.size(); ++i) {
            const QJsonObject mask = masks[static_cast<qsizetype>(i)].toObject();
            QCOMPARE(mask.value("position").toInt(), s.masks[i].position);
            const QJsonArray top = mask.value("top").toArray();
            QCOMPARE(top.size(), 5);
            for (std::size_t k = 0; k < 5; ++k) {
                const QJsonObject filler = top[static_cast<qsizetype>(k)].toObject();
                QCOMPARE(filler.value("id").toInt(), s.masks[i].top[k].id);
                QVERIFY(std::abs(filler.value("prob").toDouble() -
                                 static_cast<double>(s.masks[i].top[k].prob)) < 1e-5);
                QVERIFY(!filler.value("token").toString().isEmpty());
            }
        }
    }
}

// --summary keeps the fillers; BertModel (no head) has none to give.
void TestCliEncoders::summaryAndNoHead() {
    const ref::Sequence& s = ref::kCases.front().sequences.front();
    QCOMPARE(QByteArray(ref::kCases.front().folder), QByteArrayLiteral("bert-tiny"));
    const QJsonObject summary = run({"forward", "--model", folder("bert-tiny"), "--text",
                                     QString::fromUtf8(s.text), "--summary"});
    QCOMPARE(summary.value("tokens").toInt(), static_cast<int>(s.ids.size()));
    const QJsonArray masks = summary.value("mask_predictions").toArray();
    QCOMPARE(masks.size(), 1);
    QCOMPARE(masks[0].toObject().value("top").toArray()[0].toObject().value("id").toInt(),
             s.masks.front().top.front().id);
    const QJsonObject base =
        run({"forward", "--model", folder("bert-tiny-base"), "--text", QString::fromUtf8(s.text)});
    QVERIFY(!base.contains("mask_predictions"));
    QCOMPARE(base.value("ids").toArray(), intArray(s.ids));
}

// export --model with a pair: layer 1, head 2 as CSV holds PyTorch's weights.
void TestCliEncoders::exportPairHeads() {
    const ref::Case& pair = *std::find_if(ref::kCases.begin(), ref::kCases.end(), [](auto& c) {
        return QByteArray(c.folder) == "bert-tiny" && QByteArray(c.name) == "pair";
    });
    const ref::Sequence& s = pair.sequences.front();
    QTemporaryDir out;
    QVERIFY(out.isValid());
    const CliRun r =
        runCli(QStringList{"export", "--out", out.path(), "--model", folder("bert-tiny"), "--layer",
                           "1", "--head", "2", "--format", "csv"} +
               textArgs(s));
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QFile csv(out.filePath(QStringLiteral("layer-1-head-2.csv")));
    QVERIFY2(csv.open(QIODevice::ReadOnly), qPrintable(r.out));
    const QStringList lines =
        QString::fromUtf8(csv.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    const auto t = s.ids.size();
    QCOMPARE(static_cast<std::size_t>(lines.size()), t + 1);  // a header row of key tokens
    const std::size_t head = t * t;                           // layer 0, head 1 (0-based)
    for (std::size_t q = 0; q < t; ++q) {
        const QStringList cells = lines[static_cast<qsizetype>(q + 1)].split(QLatin1Char(','));
        QCOMPARE(static_cast<std::size_t>(cells.size()), t + 1);  // the query token first
        for (std::size_t k = 0; k < t; ++k)
            QVERIFY(std::abs(cells[static_cast<qsizetype>(k + 1)].toDouble() -
                             static_cast<double>(s.attentions[head + q * t + k])) < 1e-4);
    }
}

void TestCliEncoders::errors() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString gpt2 = dir.filePath(QStringLiteral("tiny-gpt2"));
    const attn::TransformerSpec spec =
        attn::gpt2_spec(1, 2, 8, 16, gpt2_tokenizer_reference::kVocabSize, 32);
    QString error;
    QVERIFY2(model_test::writeFolder(gpt2, attn::make_random_weights(spec, 3),
                                     QStringLiteral("F32"), model_test::Layout::Prefixed, &error),
             qPrintable(error));
    QVERIFY(model_test::copyTokenizer(gpt2, QStringLiteral(ATTN_GPT2_TOKENIZER_DIR)));
    const struct {
        QStringList args;
        const char* message;
    } cases[] = {
        {{"tokenize", "--model", gpt2, "--text", "a", "--text-pair", "b"},
         "--text-pair needs an encoder's tokenizer"},
        {{"forward", "--model", folder("bert-tiny"), "--ids", "5,6", "--text-pair", "b"},
         "--text-pair goes with --text"},
        {{"forward", "--model", folder("bert-tiny"), "--text", "a", "--text-pair", ""},
         "--text-pair is empty"},
        {{"export", "--out", dir.path(), "--text-pair", "b"}, "--text-pair needs --model"},
        {{"generate", "--model", folder("bert-tiny"), "--text", "your journey", "--max-new-tokens",
          "2"},
         "encoder"},
        // RoBERTa's 26 positions hold 24 tokens: padding_idx + 1 positions are never used.
        {{"forward", "--model", folder("roberta-tiny"), "--text",
          QStringLiteral("a ").repeated(30)},
         "reads at most 24 tokens"},
    };
    for (const auto& c : cases) {
        const CliRun r = runCli(c.args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(c.message), r.err.constData());
        QCOMPARE(r.err.count("attention-cli: "), 1);  // one message
        QVERIFY(r.out.isEmpty());
    }
}

// A damaged copy of bert-tiny: each bad vocab.txt or config.json is one line naming the file and
// the problem, status 2, nothing on stdout.
void TestCliEncoders::badFiles() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString copy = dir.filePath(QStringLiteral("bert"));
    QVERIFY(QDir().mkpath(copy));
    for (const char* name :
         {"config.json", "model.safetensors", "tokenizer_config.json", "vocab.txt"})
        QVERIFY(QFile::copy(folder("bert-tiny") + "/" + name, copy + "/" + name));
    const auto rewrite = [&](const char* name, const QByteArray& from, const QByteArray& to) {
        QFile file(copy + "/" + name);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QByteArray bytes = file.readAll();
        file.close();
        QVERIFY2(bytes.contains(from), name);
        bytes.replace(from, to);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(file.write(bytes), bytes.size());
    };
    const auto expectRefusal = [&](const char* message) {
        for (const char* command : {"tokenize", "forward"}) {
            const CliRun r = runCli({command, "--model", copy, "--text", "your journey"});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(message), r.err.constData());
            QCOMPARE(r.err.count('\n'), 1);
            QVERIFY(r.out.isEmpty());
        }
    };
    // [UNK] taken out of the vocabulary: WordPiece has nothing to give an unknown word.
    rewrite("vocab.txt", "[UNK]\n", "[NOT-UNK]\n");
    expectRefusal("vocab.txt");
    rewrite("vocab.txt", "[NOT-UNK]\n", "[UNK]\n");
    QCOMPARE(runCli({"tokenize", "--model", copy, "--text", "your journey"}).exitCode, 0);
    // 4 heads cannot share a width of 30.
    rewrite("config.json", "\"hidden_size\": 32", "\"hidden_size\": 30");
    const CliRun r = runCli({"forward", "--model", copy, "--text", "your journey"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("config.json") && r.err.contains("hidden_size"), r.err.constData());
    QCOMPARE(r.err.count('\n'), 1);
}

QTEST_GUILESS_MAIN(TestCliEncoders)
#include "test_cli_encoders.moc"
