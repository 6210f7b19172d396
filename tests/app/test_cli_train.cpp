// attention-cli train end to end: bad options and files refused with status 2 and one message;
// the JSON lines (fields, logged steps, "done"); --save gives a folder that forward opens; a seed
// gives the same run; and ten steps of the text task with --shuffle 0 give PyTorch's losses
// (tests/reference/train_text_reference.py).
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "app/io/model_folder.h"
#include "cli_run.h"
#include "tests/reference/train_text_reference.h"

#ifndef ATTN_TRAIN_DATA_DIR
#error "ATTN_TRAIN_DATA_DIR must name tests/data/train (see tests/app/CMakeLists.txt)"
#endif

namespace {

const QString kDataDir = QStringLiteral(ATTN_TRAIN_DATA_DIR);

QStringList train(const QStringList& args) { return QStringList{QStringLiteral("train")} + args; }

// A tiny attention-only model on the induction task: fast enough for every test.
QStringList tinyInduction() {
    return {QStringLiteral("--layers"),
            QStringLiteral("1"),
            QStringLiteral("--heads"),
            QStringLiteral("2"),
            QStringLiteral("--d-model"),
            QStringLiteral("16"),
            QStringLiteral("--attn-only"),
            QStringLiteral("--vocab"),
            QStringLiteral("16"),
            QStringLiteral("--seq-len"),
            QStringLiteral("12"),
            QStringLiteral("--batch"),
            QStringLiteral("4")};
}

QList<QJsonObject> jsonLines(const CliRun& run) {
    QList<QJsonObject> out;
    for (const QString& line : run.lines()) {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(line.toUtf8(), &error);
        if (error.error != QJsonParseError::NoError || !doc.isObject()) return {};
        out << doc.object();
    }
    return out;
}

// The output without the timings, which differ from run to run.
QByteArray withoutTimings(QByteArray out) {
    static const QRegularExpression timings(
        QStringLiteral("\"(elapsed_ms|tokens_per_second)\":[^,]*,"));
    return QString::fromUtf8(out).remove(timings).toUtf8();
}

}  // namespace

class TestCliTrain : public QObject {
    Q_OBJECT

private slots:
    void badOptionsAreRefused_data();
    void badOptionsAreRefused();
    void printsOneLinePerLoggedStep();
    void zeroStepsSavesTheInitialModel();
    void savedModelOpens();
    void bundledTextByDefault();
    void secondsStopTheRun();
    void seedGivesTheSameRun();
    void textWindowsMatchPyTorch();
};

void TestCliTrain::badOptionsAreRefused_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");  // after "attention-cli: train: "
    const QString missing = QDir(kDataDir).filePath(QStringLiteral("missing.txt"));
    const QString start = QDir(kDataDir).filePath(QStringLiteral("start"));
    QTest::newRow("unknown task") << QStringList{"--task", "copy"}
                                  << "--task \"copy\" is not a task: give --task induction or "
                                     "--task text";
    QTest::newRow("text without the text task")
        << QStringList{"--text", missing} << "--text is the text task's: add --task text";
    QTest::newRow("missing text file") << QStringList{"--task", "text", "--text", missing}
                                       << "--text " + QDir::toNativeSeparators(missing) +
                                              ": no such file: give the path of a text file";
    QTest::newRow("vocab on the text task")
        << QStringList{"--task", "text", "--vocab", "20"}
        << "--vocab is the induction task's; the text task's vocabulary is the text's "
           "characters: leave --vocab out";
    QTest::newRow("vocab too large") << QStringList{"--vocab", "200"}
                                     << "--vocab 200 is outside 3..95: give a whole number in "
                                        "that range";
    QTest::newRow("layers alone") << QStringList{"--layers", "2"}
                                  << "a model of your own needs --layers N --heads H --d-model D "
                                     "together (and --attn-only for no MLP and no norms)";
    QTest::newRow("preset and layers")
        << QStringList{"--preset", "gpt-2l", "--layers", "1", "--heads", "1", "--d-model", "8"}
        << "--preset and --layers/--heads/--d-model both choose the model: give one of them";
    QTest::newRow("unknown preset") << QStringList{"--preset", "gpt-99l"}
                                    << "unknown preset \"gpt-99l\": choose one of attn-only-1l, "
                                       "attn-only-2l, gpt-2l";
    QTest::newRow("learning rate 0") << QStringList{"--lr", "0"}
                                     << "--lr 0 is outside [1e-07, 10]: give a number in that "
                                        "range, e.g. --lr 0.001";
    QTest::newRow("shuffle on induction") << QStringList{"--shuffle", "0"}
                                          << "--shuffle is the text task's (induction sequences "
                                             "are drawn afresh): leave it out or add --task text";
    QTest::newRow("shuffle 2") << QStringList{"--task", "text", "--shuffle", "2"}
                               << "--shuffle 2 is outside 0..1: give a whole number in that range";
    QTest::newRow("model and preset")
        << QStringList{"--model", start, "--preset", "gpt-2l"}
        << "--model continues a saved model, whose size is its own: leave out --preset and "
           "--layers/--heads/--d-model/--attn-only";
    QTest::newRow("sequence longer than the model's positions")
        << QStringList{"--task", "text", "--model", start, "--seq-len", "9"}
        << "--seq-len 9 is more than the model's n_positions 8: give --seq-len 8 or less";
    QTest::newRow("save inside a file")
        << QStringList{"--steps", "1", "--save", QDir(kDataDir).filePath("text.txt/model")}
        << "--save " + QDir::toNativeSeparators(QDir(kDataDir).filePath("text.txt/model")) +
               ": cannot create this folder: choose a folder you can write to";
}

void TestCliTrain::badOptionsAreRefused() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const CliRun run = runCli(train(args));
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(run.out, QByteArray());
    QCOMPARE(QString::fromUtf8(run.err),
             QStringLiteral("attention-cli: train: ") + message + QLatin1Char('\n'));
}

void TestCliTrain::printsOneLinePerLoggedStep() {
    const CliRun run = runCli(
        train(tinyInduction() + QStringList{"--steps", "7", "--log-every", "3", "--seed", "5"}));
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.err, QByteArray());
    const QList<QJsonObject> lines = jsonLines(run);
    QCOMPARE(lines.size(), 3);
    const int steps[] = {3, 6, 7};
    for (int i = 0; i < 3; ++i) {
        const QJsonObject& o = lines[i];
        QStringList keys{"elapsed_ms", "heads", "loss", "step", "tokens_per_second"};
        if (i == 2) keys.prepend(QStringLiteral("done"));
        QCOMPARE(o.keys(), keys);
        QCOMPARE(o.value("step").toInt(), steps[i]);
        QCOMPARE(o.contains("done"), i == 2);
        // Uniform guessing over 16 tokens is ln 16 = 2.77; a few steps stay near it.
        const double loss = o.value("loss").toDouble();
        QVERIFY2(loss > 1.5 && loss < 4.0, qPrintable(QString::number(loss)));
        QVERIFY(o.value("elapsed_ms").toDouble() > 0.0);
        QVERIFY(o.value("tokens_per_second").toDouble() > 0.0);
        const QJsonArray heads = o.value("heads").toArray();
        QCOMPARE(heads.size(), 2);
        for (int h = 0; h < 2; ++h) {
            const QJsonObject head = heads[h].toObject();
            QCOMPARE(head.value("layer").toInt(-1), 0);
            QCOMPARE(head.value("head").toInt(-1), h);
            for (const char* score : {"previous_token_score", "induction_score"}) {
                const double s = head.value(QLatin1String(score)).toDouble(-1.0);
                QVERIFY2(s >= 0.0 && s <= 1.0, score);
            }
        }
    }
    QVERIFY(lines[2].value("done").toBool());
    // The keys in the documented order.
    QVERIFY(run.lines()[0].startsWith(QStringLiteral("{\"step\":3,\"loss\":")));
    QVERIFY(run.lines()[2].endsWith(QStringLiteral("}],\"done\":true}")));
}

void TestCliTrain::zeroStepsSavesTheInitialModel() {
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("init"));
    const CliRun run =
        runCli(train(tinyInduction() + QStringList{"--steps", "0", "--save", folder}));
    QCOMPARE(run.exitCode, 0);
    const QList<QJsonObject> lines = jsonLines(run);
    QCOMPARE(lines.size(), 1);
    QCOMPARE(lines[0].value("step").toInt(-1), 0);
    QVERIFY(lines[0].value("loss").isNull());
    QVERIFY(lines[0].value("done").toBool());
    const attn::ModelLoadResult loaded = attn::loadModelFolder(folder);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    // GPT-2's initialisation: embeddings normal(0, 0.02).
    const attn::WeightView& wte = (*loaded.weights)[attn::TensorRole::TokenEmbedding];
    double sumSquares = 0.0;
    for (Eigen::Index i = 0; i < wte.rows * wte.cols; ++i)
        sumSquares += static_cast<double>(wte.data[i]) * static_cast<double>(wte.data[i]);
    const double std = std::sqrt(sumSquares / static_cast<double>(wte.rows * wte.cols));
    QVERIFY2(std > 0.015 && std < 0.025, qPrintable(QString::number(std)));
}

void TestCliTrain::savedModelOpens() {
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("trained"));
    CliRun run = runCli(train(tinyInduction() + QStringList{"--steps", "5", "--save", folder}));
    QCOMPARE(run.exitCode, 0);
    QVERIFY(jsonLines(run).last().value("done").toBool());

    run = runCli({"forward", "--model", folder, "--text", "abcabc"});
    QCOMPARE(run.exitCode, 0);
    const QJsonObject forward = QJsonDocument::fromJson(run.out).object();
    QCOMPARE(forward.value("ids").toArray(), (QJsonArray{1, 2, 3, 1, 2, 3}));
    const QJsonObject model = forward.value("model").toObject();
    QCOMPARE(model.value("n_layer").toInt(), 1);
    QCOMPARE(model.value("n_head").toInt(), 2);
    QCOMPARE(model.value("vocab_size").toInt(), 16);
    QCOMPARE(forward.value("attentions").toArray().size(), 1);

    const attn::ModelFolderResult opened = attn::openModelFolder(folder, true);
    QVERIFY2(opened.ok(), qPrintable(opened.error));
    QVERIFY(opened.model.weights->spec.attn_only);
    QCOMPARE(opened.model.tokenizer->endOfTextId().value_or(-1), 0);

    // Training continues from the saved folder with its tokenizer.
    run = runCli(train({"--model", folder, "--steps", "2", "--seq-len", "12", "--batch", "2"}));
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(jsonLines(run).last().value("step").toInt(), 2);
}

void TestCliTrain::bundledTextByDefault() {
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("verdict"));
    const CliRun run =
        runCli(train({"--task", "text", "--layers", "1", "--heads", "1", "--d-model", "8",
                      "--seq-len", "16", "--batch", "2", "--steps", "1", "--save", folder}));
    QCOMPARE(run.exitCode, 0);
    // "The Verdict" has 62 different characters; <|endoftext|> is the 63rd token.
    const attn::ModelFolderResult opened = attn::openModelFolder(folder, false);
    QVERIFY2(opened.ok(), qPrintable(opened.error));
    QCOMPARE(opened.model.tokenizer->vocabSize(), 63);
    QCOMPARE(opened.model.tokenizer->encode(QStringLiteral("I HAD")).size(), std::size_t{5});
}

void TestCliTrain::secondsStopTheRun() {
    const CliRun run =
        runCli(train(tinyInduction() + QStringList{"--seconds", "0.3", "--log-every", "1000000"}));
    QCOMPARE(run.exitCode, 0);
    const QList<QJsonObject> lines = jsonLines(run);
    QCOMPARE(lines.size(), 1);
    QVERIFY(lines[0].value("done").toBool());
    QVERIFY(lines[0].value("step").toInt() >= 1);
    QVERIFY(lines[0].value("elapsed_ms").toDouble() >= 300.0);
}

void TestCliTrain::seedGivesTheSameRun() {
    const QStringList args = tinyInduction() + QStringList{"--steps", "6", "--log-every", "2"};
    const CliRun a = runCli(train(args + QStringList{"--seed", "7"}));
    const CliRun b = runCli(train(args + QStringList{"--seed", "7"}));
    const CliRun c = runCli(train(args + QStringList{"--seed", "8"}));
    QCOMPARE(a.exitCode, 0);
    QCOMPARE(jsonLines(a).size(), 3);
    QCOMPARE(withoutTimings(a.out), withoutTimings(b.out));
    QVERIFY(jsonLines(a)[0].value("loss") != jsonLines(c)[0].value("loss"));
}

void TestCliTrain::textWindowsMatchPyTorch() {
    namespace ref = train_text_reference;
    const CliRun run = runCli(train({"--task",         "text",
                                     "--text",         QDir(kDataDir).filePath("text.txt"),
                                     "--model",        QDir(kDataDir).filePath("start"),
                                     "--seq-len",      QString::number(ref::kSeqLen),
                                     "--batch",        QString::number(ref::kBatch),
                                     "--steps",        QString::number(ref::kSteps),
                                     "--lr",           QLatin1String(ref::kLr),
                                     "--weight-decay", QLatin1String(ref::kWeightDecay),
                                     "--grad-clip",    QLatin1String(ref::kGradClip),
                                     "--shuffle",      "0",
                                     "--log-every",    "1"}));
    QCOMPARE(run.exitCode, 0);
    const QList<QJsonObject> lines = jsonLines(run);
    QCOMPARE(lines.size(), ref::kSteps);
    for (int s = 0; s < ref::kSteps; ++s) {
        const double loss = lines[s].value("loss").toDouble();
        const double expected = static_cast<double>(ref::kLosses[static_cast<std::size_t>(s)]);
        QVERIFY2(std::abs(loss - expected) <= 1e-4 * std::abs(expected),
                 qPrintable(QStringLiteral("step %1: %2, PyTorch %3")
                                .arg(s + 1)
                                .arg(loss, 0, 'g', 9)
                                .arg(expected, 0, 'g', 9)));
    }
    // The run learns: the last loss is below the first.
    QVERIFY(lines.last().value("loss").toDouble() < lines.first().value("loss").toDouble());
}

QTEST_GUILESS_MAIN(TestCliTrain)
#include "test_cli_train.moc"
