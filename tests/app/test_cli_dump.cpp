// attention-cli export --dump: attention saved from Python (tests/data/attention-dumps, written by
// NumPy) exported as the model's heads are, layer-L-head-H.<format>, holding the dump's numbers;
// --one-figure puts a layer's heads in one file (with --dump and --model); every refusal is one
// line on stderr with exit status 2.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include "app/io/model_folder.h"
#include "cli_run.h"
#include "model/generator.h"
#include "model/transformer.h"
#include "tests/support/model_test_folder.h"
#include "tests/support/model_test_weights.h"

namespace {

const QString kDumps = QStringLiteral(ATTN_ATTENTION_DUMPS_DIR);

// make_dumps.py's ROW; np.roll(ROW, shift)[j] = ROW[(j - shift) mod 4].
constexpr float kRow[4] = {0.5f, 0.25f, 0.125f, 0.125f};
float rolled(int shift, int j) { return kRow[((j - shift) % 4 + 4) % 4]; }

QStringList csvRows(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
}

// What attention-cli wrote on stderr, without Qt's own notes about the environment
// ("QStandardPaths: XDG_RUNTIME_DIR not set").
QStringList messages(const CliRun& run) {
    QStringList out;
    for (const QString& line : QString::fromUtf8(run.err).split('\n', Qt::SkipEmptyParts))
        if (!line.startsWith(QLatin1String("QStandardPaths:"))) out << line;
    return out;
}

QStringList names(const CliRun& run) {
    QStringList out;
    for (const QString& line : run.lines()) out << QFileInfo(line).fileName();
    return out;
}

}  // namespace

class TestCliDump : public QObject {
    Q_OBJECT

private slots:
    void everyHeadWithTheDumpsNumbers() {
        QTemporaryDir out;
        const CliRun run = runCli({"export", "--dump", kDumps + "/bert-like.npy", "--format", "csv",
                                   "--out", out.path()});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(messages(run).isEmpty(), run.err.constData());  // its tokens file was found
        QCOMPARE(names(run),
                 (QStringList{"layer-1-head-1.csv", "layer-1-head-2.csv", "layer-1-head-3.csv",
                              "layer-2-head-1.csv", "layer-2-head-2.csv", "layer-2-head-3.csv"}));
        const QStringList labels{"[CLS]", QString::fromUtf8("猫"), "sat", "[SEP]"};
        for (int l = 0; l < 2; ++l) {
            for (int h = 0; h < 3; ++h) {
                const QStringList rows = csvRows(
                    out.filePath(QStringLiteral("layer-%1-head-%2.csv").arg(l + 1).arg(h + 1)));
                QCOMPARE(rows.size(), 5);
                QCOMPARE(rows[0], "," + labels.join(','));
                for (int i = 0; i < 4; ++i) {
                    const QStringList cells = rows[i + 1].split(',');
                    QCOMPARE(cells.size(), 5);
                    QCOMPARE(cells[0], labels[i]);
                    for (int j = 0; j < 4; ++j)
                        QCOMPARE(cells[j + 1].toFloat(), rolled(l + h + i, j));
                }
            }
        }
    }

    void oneHeadTokensAndSafetensors() {
        QTemporaryDir out;
        QFile tokens(out.filePath("mine.json"));
        QVERIFY(tokens.open(QIODevice::WriteOnly));
        tokens.write(R"(["p", "q", "r", "s"])");
        tokens.close();
        const CliRun one = runCli({"export", "--dump", kDumps + "/bert-like.npy", "--tokens",
                                   out.filePath("mine.json"), "--layer", "2", "--head", "3",
                                   "--format", "csv", "--out", out.filePath("one")});
        QVERIFY2(one.exitCode == 0, one.err.constData());
        QCOMPARE(names(one), QStringList{"layer-2-head-3.csv"});
        const QStringList rows = csvRows(out.filePath("one/layer-2-head-3.csv"));
        QCOMPARE(rows.value(0), QStringLiteral(",p,q,r,s"));
        QCOMPARE(rows.value(1), QStringLiteral("p,0.25,0.125,0.125,0.5"));  // ROW rolled by 3

        // Decoding: 2 queries over 4 keys, the rows labelled by the last two tokens.
        const CliRun dec =
            runCli({"export", "--dump", kDumps + "/decoding/attentions.safetensors", "--layer", "2",
                    "--format", "csv", "--out", out.filePath("dec")});
        QVERIFY2(dec.exitCode == 0, dec.err.constData());
        QCOMPARE(names(dec), (QStringList{"layer-2-head-1.csv", "layer-2-head-2.csv"}));
        const QStringList decRows = csvRows(out.filePath("dec/layer-2-head-2.csv"));
        // layer.10 (the second layer) rolls ROW by 1 + head + query
        QCOMPARE(decRows,
                 (QStringList{",A,B,C,D", "C,0.125,0.125,0.5,0.25", "D,0.25,0.125,0.125,0.5"}));

        const CliRun png = runCli({"export", "--dump", kDumps + "/causal-f16.npy", "--head", "3",
                                   "--out", out.filePath("png")});
        QVERIFY2(png.exitCode == 0, png.err.constData());
        QCOMPARE(names(png), QStringList{"layer-1-head-3.png"});
        // No tokens file: the positions, and a warning that says so (not an error).
        QCOMPARE(messages(png), QStringList{"attention-cli: export: no tokens file (looked for "
                                            "causal-f16.tokens.json and tokens.json beside "
                                            "causal-f16.npy): the positions 1 to 4 label the rows "
                                            "and columns"});
        QFile image(png.lines().value(0));
        QVERIFY(image.open(QIODevice::ReadOnly));
        QVERIFY(image.readAll().startsWith("\x89PNG"));
    }

    void oneFigurePerLayer() {
        QTemporaryDir out;
        const CliRun csv = runCli({"export", "--dump", kDumps + "/bert-like.npy", "--one-figure",
                                   "--format", "csv", "--out", out.path()});
        QVERIFY2(csv.exitCode == 0, csv.err.constData());
        QCOMPARE(names(csv), (QStringList{"layer-1-heads.csv", "layer-2-heads.csv"}));
        const QStringList rows = csvRows(out.filePath("layer-2-heads.csv"));
        QCOMPARE(rows.size(), 1 + 3 * 16);  // header, then a row per cell of the three heads
        QCOMPARE(rows[0], QStringLiteral("matrix,row,column,row_label,column_label,value"));
        for (int h = 0; h < 3; ++h) {
            for (int i = 0; i < 4; ++i) {
                for (int j = 0; j < 4; ++j) {
                    const QStringList cells = rows[1 + h * 16 + i * 4 + j].split(',');
                    QCOMPARE(cells.value(0), QStringLiteral("layer-2-head-%1").arg(h + 1));
                    QCOMPARE(cells.value(1).toInt(), i + 1);
                    QCOMPARE(cells.value(2).toInt(), j + 1);
                    QCOMPARE(cells.value(5).toFloat(), rolled(1 + h + i, j));
                }
            }
        }
        const CliRun svg = runCli({"export", "--dump", kDumps + "/batch1.npy", "--layer", "1",
                                   "--one-figure", "--format", "svg", "--out", out.path()});
        QVERIFY2(svg.exitCode == 0, svg.err.constData());
        QCOMPARE(names(svg), QStringList{"layer-1-heads.svg"});
        QFile file(svg.lines().value(0));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("<svg"));
    }

    // --one-figure of a GPT-2 folder: every head of each layer, the numbers of the forward pass.
    void oneFigureOfAModel() {
        QTemporaryDir dir;
        const attn::TransformerSpec spec = attn::gpt2_spec(2, 2, 8, 24, 50257, 32);
        const attn::TransformerWeights weights = attn::make_random_weights(spec, 7);
        const QString model = dir.filePath("tiny-gpt2");
        QString error;
        QVERIFY2(model_test::writeFolder(model, weights, "F32", model_test::Layout::Plain, &error),
                 qPrintable(error));
        QVERIFY(model_test::copyTokenizer(model, QStringLiteral(ATTN_GPT2_TOKENIZER_DIR)));
        const CliRun run =
            runCli({"export", "--model", model, "--text", "Your journey starts", "--one-figure",
                    "--format", "csv", "--out", dir.filePath("out")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(names(run), (QStringList{"layer-1-heads.csv", "layer-2-heads.csv"}));
        const attn::ModelForwardResult expected = attn::model_forward(weights, {7120, 7002, 4940});
        const QStringList rows = csvRows(dir.filePath("out/layer-2-heads.csv"));
        QCOMPARE(rows.size(), 1 + 2 * 9);
        for (int h = 0; h < 2; ++h)
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j)
                    QCOMPARE(rows[1 + h * 9 + i * 3 + j].split(',').value(5).toFloat(),
                             expected.attentions[1][static_cast<std::size_t>(h)](i, j));
    }

    void refusals_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString dump = kDumps + "/bert-like.npy";
        QTest::newRow("missing file") << QStringList{"--dump", kDumps + "/none.npy"}
                                      << "attention-cli: export: none.npy: cannot open";
        QTest::newRow("with --model") << QStringList{"--dump", dump, "--model", "gpt2"}
                                      << "attention-cli: export: give --model or --dump, not both";
        QTest::newRow("--text") << QStringList{"--dump", dump, "--text", "hi"}
                                << "attention-cli: export: --text needs --model DIR|NAME";
        QTest::newRow("--tokens alone") << QStringList{"--tokens", "t.json"}
                                        << "attention-cli: export: --tokens needs --dump FILE";
        QTest::newRow("--layer alone")
            << QStringList{"--layer", "1"}
            << "attention-cli: export: --layer needs --model DIR|NAME or --dump FILE";
        QTest::newRow("--one-figure alone")
            << QStringList{"--one-figure"}
            << "attention-cli: export: --one-figure needs --model DIR|NAME or --dump FILE";
        QTest::newRow("--one-figure --head 2")
            << QStringList{"--dump", dump, "--one-figure", "--head", "2"}
            << "attention-cli: export: --one-figure draws every head of a layer: leave out --head";
        QTest::newRow("layer 3 of 2")
            << QStringList{"--dump", dump, "--layer", "3"}
            << "attention-cli: export: --layer \"3\" is not all or a number from 1 to 2";
        QTest::newRow("head 4 of 3")
            << QStringList{"--dump", dump, "--head", "4"}
            << "attention-cli: export: --head \"4\" is not all or a number from 1 to 3";
        QTest::newRow("--step")
            << QStringList{"--dump", dump, "--step", "3"}
            << "attention-cli: export: --step belongs to the walkthrough's figures: with --dump";
        QTest::newRow("wrong tokens")
            << QStringList{"--dump", dump, "--tokens", kDumps + "/batch1.tokens.json"}
            << "attention-cli: export: batch1.tokens.json has 3 tokens but the attention has 4";
        QTest::newRow("not a dump") << QStringList{"--dump", kDumps + "/README.md"}
                                    << "attention-cli: export: README.md: not an attention dump";
    }

    void refusals() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QTemporaryDir out;
        const CliRun run =
            runCli(QStringList{"export"} + args + QStringList{"--out", out.filePath("figures")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        QCOMPARE(messages(run).size(), 1);
        QVERIFY2(messages(run).front().startsWith(message), run.err.constData());
        QVERIFY(!QFileInfo::exists(out.filePath("figures")));
    }
};

QTEST_GUILESS_MAIN(TestCliDump)
#include "test_cli_dump.moc"
