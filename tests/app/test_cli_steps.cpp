// attention-cli steps: the walkthrough as JSON, run as a user runs it. Titles and texts come from
// the records, explain[r][c] is what hovering the cell on the page shows, the bytes do not depend
// on the locale, and bad input is refused on stderr with status 2.
#include <QApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.h"
#include "model/walkthrough.h"
#include "views/step_page.h"

namespace {

// stderr without Qt's note about XDG_RUNTIME_DIR, which a GUI subcommand prints on a build
// server.
QString messages(const CliRun& run) {
    QStringList lines = QString::fromUtf8(run.err).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    lines.removeIf(
        [](const QString& l) { return l.startsWith(QStringLiteral("QStandardPaths: ")); });
    return lines.join(QLatin1Char('\n'));
}

QString describe(const CliRun& run) {
    return QStringLiteral("exit %1, stderr: %2").arg(run.exitCode).arg(QString::fromUtf8(run.err));
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

QJsonObject matrixOf(const QJsonObject& step, const QString& name, int frame = -1) {
    for (const QJsonValue& v : step.value(QStringLiteral("matrices")).toArray()) {
        const QJsonObject m = v.toObject();
        if (m.value(QStringLiteral("name")).toString() != name) continue;
        if (frame >= 0 && m.value(QStringLiteral("frame")).toInt(-1) != frame) continue;
        return m;
    }
    return {};
}

}  // namespace

class TestCliSteps : public QObject {
    Q_OBJECT

private:
    QByteArray tutorial_;
    QJsonArray steps_;

private slots:
    void initTestCase() {
        const CliRun run = runCli({"steps"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        tutorial_ = run.out;
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(run.out, &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        steps_ = doc.object().value(QStringLiteral("steps")).toArray();
    }

    void everyStepWithItsText() {
        QCOMPARE(steps_.size(), 20);
        QCOMPARE(steps_.at(16).toObject().value(QStringLiteral("title")).toString(),
                 QStringLiteral("Grouped-query and multi-query attention"));
        QCOMPARE(steps_.at(17).toObject().value(QStringLiteral("id")).toString(),
                 QStringLiteral("masks"));
        QCOMPARE(steps_.at(18).toObject().value(QStringLiteral("title")).toString(),
                 QStringLiteral("Rotary position embeddings (RoPE)"));
        QCOMPARE(steps_.at(19).toObject().value(QStringLiteral("title")).toString(),
                 QStringLiteral("FlashAttention's tiles"));
        const QJsonObject first = steps_.at(0).toObject();
        QCOMPARE(first.value(QStringLiteral("number")).toInt(), 1);
        QCOMPARE(first.value(QStringLiteral("id")).toString(), QStringLiteral("inputs"));
        QCOMPARE(first.value(QStringLiteral("title")).toString(),
                 QStringLiteral("Input embeddings"));
        QVERIFY(first.value(QStringLiteral("text"))
                    .toString()
                    .contains(QStringLiteral("“Your journey starts with one step”")));
        const QJsonObject second = steps_.at(1).toObject();
        QCOMPARE(second.value(QStringLiteral("title")).toString(),
                 QStringLiteral("Attention scores for “journey”"));
        // The tutorial's In[2]: the scores of journey, and the formula of one of them.
        const QJsonObject scores = matrixOf(second, QStringLiteral("attn-scores-journey"));
        const QJsonArray row = scores.value(QStringLiteral("values")).toArray().at(0).toArray();
        QCOMPARE(row.size(), 6);
        QVERIFY(std::abs(row.at(2).toDouble() - 1.4754) < 5e-5);
        QCOMPARE(scores.value(QStringLiteral("col_labels")).toArray().at(1).toString(),
                 QStringLiteral("journey"));
        QCOMPARE(scores.value(QStringLiteral("explain")).toArray().at(0).toArray().at(2).toString(),
                 QStringLiteral("ω₂₃ = x₂ · x₃ = (0.5500·0.5700 + 0.8700·0.8500 + 0.6600·0.6400) "
                                "= 1.4754"));
    }

    // NaN (the naive softmax of the scores × 100) prints as null, as `compute` prints it.
    void nanIsNull() {
        const QJsonObject naive = matrixOf(steps_.at(2).toObject(), "large-naive-softmax");
        const QJsonArray row = naive.value(QStringLiteral("values")).toArray().at(0).toArray();
        QVERIFY(row.at(1).isNull());
        QCOMPARE(row.at(3).toDouble(), 0.0);
        QVERIFY(tutorial_.contains("[null, null, null, 0, 0, null]"));
    }

    // The KV-cache step: every matrix once per frame, numbered from 0; the full pass in none.
    void framesAreListedOneByOne() {
        const QJsonObject kv = steps_.at(15).toObject();
        int keyFrames = 0;
        for (const QJsonValue& v : kv.value(QStringLiteral("matrices")).toArray()) {
            const QJsonObject m = v.toObject();
            if (m.value(QStringLiteral("name")).toString() == QStringLiteral("cached-keys")) {
                QCOMPARE(m.value(QStringLiteral("values")).toArray().size(),
                         m.value(QStringLiteral("frame")).toInt() + 1);
                ++keyFrames;
            }
        }
        QCOMPARE(keyFrames, 6);
        QVERIFY(!matrixOf(kv, "full-output").contains(QStringLiteral("frame")));
    }

    // explain[r][c] is exactly the page's hover text.
    void explainIsThePagesHoverText_data() {
        QTest::addColumn<int>("step");
        QTest::addColumn<QString>("matrix");
        QTest::addColumn<int>("row");
        QTest::addColumn<int>("col");
        QTest::newRow("scaled score") << 8 << "attn-scores-scaled" << 1 << 2;
        QTest::newRow("masked weight") << 11 << "causal-weights" << 0 << 3;
        QTest::newRow("dropout") << 12 << "dropped-weights" << 2 << 0;
        QTest::newRow("given input") << 1 << "inputs" << 0 << 0;
        QTest::newRow("concat") << 14 << "concat" << 4 << 2;
        QTest::newRow("out_proj") << 14 << "output" << 5 << 1;
    }
    void explainIsThePagesHoverText() {
        QFETCH(int, step);
        QFETCH(QString, matrix);
        QFETCH(int, row);
        QFETCH(int, col);
        const std::vector<attn::Step> records = attn::build_walkthrough();
        views::StepPage page(records[static_cast<std::size_t>(step - 1)]);
        const QString hover = page.cellFormula(matrix, row, col);
        QVERIFY(!hover.isEmpty());
        const QJsonObject m = matrixOf(steps_.at(step - 1).toObject(), matrix);
        QCOMPARE(m.value(QStringLiteral("explain")).toArray().at(row).toArray().at(col).toString(),
                 hover);
    }

    // The last frame of the KV step is the one the page opens on: the same hover text.
    void kvFrameExplainIsThePagesHoverText() {
        const std::vector<attn::Step> records = attn::build_walkthrough();
        views::StepPage page(records[15]);
        page.setFrame(5);
        const QJsonObject m = matrixOf(steps_.at(15).toObject(), "new-weights-head-1", 5);
        QCOMPARE(m.value(QStringLiteral("explain")).toArray().at(0).toArray().at(4).toString(),
                 page.cellFormula(QStringLiteral("new-weights-head-1"), 0, 4));
    }

    // A German locale (decimal comma) changes no byte.
    void germanLocalePrintsTheSameBytes() {
        const CliRun german = runCli({"steps"}, 0, 240000, QStringLiteral("de_DE.UTF-8"));
        QVERIFY2(german.exitCode == 0, qPrintable(describe(german)));
        QCOMPARE(german.out.size(), tutorial_.size());
        QVERIFY(german.out == tutorial_);
    }

    void chineseTitles() {
        const CliRun run = runCli({"steps", "--lang", "zh_CN"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonArray steps =
            QJsonDocument::fromJson(run.out).object().value(QStringLiteral("steps")).toArray();
        QCOMPARE(steps.at(7).toObject().value(QStringLiteral("title")).toString(),
                 QStringLiteral("缩放点积注意力"));
    }

    // An example file: its tokens and sizes in the texts, none of the tutorial's.
    void exampleFileTexts() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = dir.filePath("cat.json");
        QVERIFY(writeFile(file, R"({"tokens": ["the", "cat", "sat", "down"],
            "embeddings": [[0.9, 0.1, 0.3, 0.5], [0.2, 0.8, 0.6, 0.1],
                           [0.4, 0.7, 0.9, 0.3], [0.6, 0.2, 0.1, 0.8]]})"));
        const CliRun run = runCli({"steps", "--input", file});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QJsonArray steps =
            QJsonDocument::fromJson(run.out).object().value(QStringLiteral("steps")).toArray();
        QCOMPARE(steps.size(), 20);
        // Step ids stay ("scores-journey"); no title, text or caption names the tutorial.
        for (const QJsonValue& v : steps) {
            const QJsonObject s = v.toObject();
            QString words = s.value(QStringLiteral("title")).toString() +
                            s.value(QStringLiteral("text")).toString();
            for (const QJsonValue& m : s.value(QStringLiteral("matrices")).toArray())
                words += m.toObject().value(QStringLiteral("caption")).toString();
            QVERIFY2(!words.contains(QStringLiteral("journey")), qPrintable(words));
            QVERIFY2(!words.contains(QStringLiteral("(2, 6, 3)")), qPrintable(words));
        }
        QVERIFY(steps.at(0)
                    .toObject()
                    .value(QStringLiteral("text"))
                    .toString()
                    .contains(QStringLiteral("“the cat sat down”")));
        QCOMPARE(steps.at(1).toObject().value(QStringLiteral("title")).toString(),
                 QStringLiteral("Attention scores for “cat”"));
        QVERIFY(steps.at(12)
                    .toObject()
                    .value(QStringLiteral("text"))
                    .toString()
                    .contains(QStringLiteral("(2, 4, 4)")));
    }

    void badInputIsRefused_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown language")
            << QStringList{"steps", "--lang", "fr"}
            << "attention-cli: steps: --lang \"fr\" is not available: give en or zh_CN";
        QTest::newRow("missing file")
            << QStringList{"steps", "--input", "/nonexistent/example.json"}
            << "attention-cli: steps: /nonexistent/example.json: cannot open it: No such file "
               "or directory";
        QTest::newRow("stray argument") << QStringList{"steps", "6"} << "";
    }
    void badInputIsRefused() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliRun run = runCli(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        const QString err = messages(run);
        QVERIFY2(!err.isEmpty() && !err.contains(QLatin1Char('\n')), qPrintable(err));
        QVERIFY(err.startsWith(QStringLiteral("attention-cli: steps: ")));
        if (!message.isEmpty()) QCOMPARE(err, message);
    }

    void malformedFileIsRefused() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = dir.filePath("bad.json");
        QVERIFY(writeFile(file, R"({"tokens": ["a", "b"], "embeddings": [[0.1, 0.2]]})"));
        const CliRun run = runCli({"steps", "--input", file});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        QVERIFY2(messages(run).startsWith(QStringLiteral("attention-cli: steps: ") + file + ": "),
                 run.err.constData());
    }

    void help() {
        const CliRun run = runCli({"steps", "--help"});
        QCOMPARE(run.exitCode, 0);
        const QString out = QString::fromUtf8(run.out);
        QVERIFY(out.contains(QStringLiteral("--input <FILE>")));
        QVERIFY(out.contains(QStringLiteral("--lang <L>")));
        QVERIFY(out.contains(QStringLiteral("\"frame\"")));
    }
};

QTEST_MAIN(TestCliSteps)
#include "test_cli_steps.moc"
