// Bad and extreme input to the parts of the app that read outside data, tried on purpose:
// pasted matrices, attention-cli's numbers, and atomic saving checked by killing a saving
// process (example files: test_bad_example_file.cpp). Each case checks the message the user sees
// and that nothing else changed. The cases and messages are listed in docs/reliability.md; crashes
// the fuzzers found are here as regression tests.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <cmath>
#include <limits>

#include "app/cli/cli_args.h"
#include "app/io/example_file.h"
#include "app/io/matrix_text.h"
#include "model/runner.h"
#include "save_loop_example.h"

namespace {

// Every file in dir except `keep`, for "a refused save leaves nothing behind".
QStringList otherFiles(const QDir& dir, const QString& keep) {
    QStringList names = dir.entryList(QDir::Files | QDir::Hidden | QDir::System);
    names.removeAll(keep);
    return names;
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// How the kills of one save loop turned out.
struct KillStats {
    int kills = 0;
    int previous = 0;  // the file held the "previous" example
    int fresh = 0;     // the file held the "new" example
    int broken = 0;    // anything else: a partial or mixed file
    QString firstBroken;
};

}  // namespace

class TestBadInputApp : public QObject {
    Q_OBJECT

private slots:
    // --- pasted matrices ----------------------------------------------------------------------
    void pastedMatrices_data();
    void pastedMatrices();

    // --- attention-cli's numbers --------------------------------------------------------------
    void cliIntegers_data();
    void cliIntegers();
    void cliProbabilities_data();
    void cliProbabilities();
    void cliNumbers_data();
    void cliNumbers();

    // --- saving -------------------------------------------------------------------------------
    void refusedSaveLeavesFileAlone();
    void killDuringSaveKeepsPreviousOrNew();
    void killDuringPlainWriteIsCaught();

    // Crashed the test process until app/io/matrix_text.cpp was fixed.
    void pastedSeparatorsOnly_data();
    void pastedSeparatorsOnly();

private:
    KillStats killSaveLoop(const QString& dir, bool plain, int kills);
};

// Pasted matrices with odd values and odd text.
void TestBadInputApp::pastedMatrices_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");  // empty: accepted
    QTest::newRow("nan") << "1 nan 3\n4 5 6"
                         << "line 1, column 3: \"nan\" is not a finite number: replace NaN or "
                            "infinity with a number";
    QTest::newRow("-inf in a tensor") << "tensor([[1., -inf]])"
                                      << "line 1, column 14: \"-inf\" is not a finite number: "
                                         "replace NaN or infinity with a number";
    QTest::newRow("1e39") << "1e39\t2\n3\t4"
                          << "line 1, column 1: \"1e39\" is too large for a 32-bit float "
                             "(largest about 3.4e38)";
    QTest::newRow("1e30 accepted") << "1e30 -1e30\n1 2" << QString();
    QTest::newRow("subnormal accepted") << "1e-45, 2\n3, 4" << QString();
    QTest::newRow("printed with ...")
        << "tensor([[1., 2., ..., 9.]])"
        << "line 1, column 18: the tensor was printed with '...' (values left out): print it in "
           "full, e.g. torch.set_printoptions(profile=\"full\")";
    QTest::newRow("ragged") << "1 2 3\n4 5"
                            << "line 2, column 1: row 2 has 2 numbers but row 1 has 3; every row "
                               "needs the same number of values";
    QTest::newRow("empty") << " \n\t "
                           << "the text is empty: paste rows of numbers";
    QTest::newRow("too deep") << "[[[[1]]]]"
                              << "line 1, column 4: the list is nested more than 3 levels deep: "
                                 "paste one matrix";
    QTest::newRow("unclosed") << "[[1, 2], [3, 4]"
                              << "line 1, column 1: this '[' is never closed: add the missing ']'";
}

void TestBadInputApp::pastedMatrices() {
    QFETCH(QString, text);
    QFETCH(QString, expected);
    const attn::MatrixTextResult r = attn::parseMatrixText(text);
    QCOMPARE(r.error, expected);
    QCOMPARE(r.ok(), expected.isEmpty());
}

// Text made only of separators has no rows: refused with a message, not a crash. Found
// by fuzz_matrix_text; parseLines() called rows.front() on an empty list (undefined behaviour).
void TestBadInputApp::pastedSeparatorsOnly_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("one comma") << ",";
    QTest::newRow("semicolons") << ";;;";
    QTest::newRow("tabs and commas on lines") << ",\n\t\n;";
}

void TestBadInputApp::pastedSeparatorsOnly() {
    QFETCH(QString, text);
    const attn::MatrixTextResult r = attn::parseMatrixText(text);
    QVERIFY(!r.ok());
    QCOMPARE(r.error, QStringLiteral("no numbers found, only separators: paste rows of numbers "
                                     "separated by tabs, commas or spaces"));
}

// attention-cli's whole-number options.
void TestBadInputApp::cliIntegers_data() {
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("min");
    QTest::addColumn<qint64>("max");
    QTest::addColumn<qint64>("value");
    QTest::addColumn<QString>("expected");
    QTest::newRow("heads = 0") << "--num-heads"
                               << "0" << qint64{1} << qint64{16384} << qint64{0}
                               << "--num-heads 0 is outside 1..16384: give a whole number in that "
                                  "range";
    QTest::newRow("d_out = 0") << "--d-out"
                               << "0" << qint64{1} << qint64{16384} << qint64{0}
                               << "--d-out 0 is outside 1..16384: give a whole number in that "
                                  "range";
    QTest::newRow("spaces around") << "--batch"
                                   << " 2 " << qint64{1} << qint64{64} << qint64{2} << QString();
    QTest::newRow("2.5") << "--batch"
                         << "2.5" << qint64{1} << qint64{64} << qint64{0}
                         << "--batch \"2.5\" is not a whole number: give a whole number from 1 "
                            "to 64";
    QTest::newRow("1e3") << "--d-out"
                         << "1e3" << qint64{1} << qint64{16384} << qint64{0}
                         << "--d-out \"1e3\" is not a whole number: give a whole number from 1 to "
                            "16384";
    QTest::newRow("beyond int64") << "--seed"
                                  << "99999999999999999999" << qint64{0} << (qint64{1} << 53)
                                  << qint64{0}
                                  << "--seed \"99999999999999999999\" is not a whole number: give "
                                     "a whole number from 0 to 9007199254740992";
    QTest::newRow("2^53 + 1") << "--seed"
                              << "9007199254740993" << qint64{0} << (qint64{1} << 53) << qint64{0}
                              << "--seed 9007199254740993 is outside 0..9007199254740992: give a "
                                 "whole number in that range";
    QTest::newRow("empty") << "--length"
                           << "" << qint64{1} << qint64{4096} << qint64{0}
                           << "--length \"\" is not a whole number: give a whole number from 1 to "
                              "4096";
    QTest::newRow("10 000 digits")
        << "--batch" << QString(10000, QLatin1Char('9')) << qint64{1} << qint64{64} << qint64{0}
        << "--batch \"999999999999999999999999999999...\" is not a whole number: give a whole "
           "number from 1 to 64";
}

void TestBadInputApp::cliIntegers() {
    QFETCH(QString, option);
    QFETCH(QString, text);
    QFETCH(qint64, min);
    QFETCH(qint64, max);
    QFETCH(qint64, value);
    QFETCH(QString, expected);
    QString error = QStringLiteral("untouched");
    const std::optional<qint64> v = parseIntegerOption(option, text, min, max, &error);
    if (expected.isEmpty()) {
        QVERIFY(v.has_value());
        QCOMPARE(*v, value);
        QCOMPARE(error, QStringLiteral("untouched"));
    } else {
        QVERIFY(!v.has_value());
        QCOMPARE(error, expected);
    }
}

// attention-cli's --dropout: p = 1 is allowed (everything dropped), p = -0.1 is not.
void TestBadInputApp::cliProbabilities_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("expected");
    QTest::newRow("p = 1") << "1" << 1.0 << QString();
    QTest::newRow("p = 0") << "0" << 0.0 << QString();
    QTest::newRow("p = -0.1") << "-0.1" << 0.0
                              << "--dropout -0.1 is outside [0, 1]: it is a probability; give e.g. "
                                 "--dropout 0.1";
    QTest::newRow("p = 1.5") << "1.5" << 0.0
                             << "--dropout 1.5 is outside [0, 1]: it is a probability; give e.g. "
                                "--dropout 0.1";
    QTest::newRow("nan") << "nan" << 0.0
                         << "--dropout \"nan\" is not a number: give a probability such as "
                            "--dropout 0.1";
    QTest::newRow("inf") << "inf" << 0.0
                         << "--dropout \"inf\" is not a number: give a probability such as "
                            "--dropout 0.1";
    QTest::newRow("German comma") << "0,1" << 0.0
                                  << "--dropout \"0,1\" is not a number: give a probability such "
                                     "as --dropout 0.1";
}

void TestBadInputApp::cliProbabilities() {
    QFETCH(QString, text);
    QFETCH(double, value);
    QFETCH(QString, expected);
    QString error;
    const std::optional<double> p =
        parseProbabilityOption(QStringLiteral("--dropout"), text, &error);
    QCOMPARE(error, expected);
    if (expected.isEmpty()) {
        QVERIFY(p.has_value());
        QCOMPARE(*p, value);
    } else {
        QVERIFY(!p.has_value());
    }
}

void TestBadInputApp::cliNumbers_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("expected");
    QTest::newRow("lr 0.001") << " 0.001 " << 0.001 << QString();
    QTest::newRow("lr 1e-3") << "1e-3" << 0.001 << QString();
    QTest::newRow("lr 10 (the maximum)") << "10" << 10.0 << QString();
    QTest::newRow("lr 0") << "0" << 0.0
                          << "--lr 0 is outside [1e-06, 10]: give a number in that range, e.g. "
                             "--lr 0.001";
    QTest::newRow("lr 11") << "11" << 0.0
                           << "--lr 11 is outside [1e-06, 10]: give a number in that range, e.g. "
                              "--lr 0.001";
    QTest::newRow("German comma") << "0,001" << 0.0
                                  << "--lr \"0,001\" is not a number: give a number such as --lr "
                                     "0.001";
    QTest::newRow("nan") << "nan" << 0.0
                         << "--lr \"nan\" is not a number: give a number such as --lr 0.001";
}

void TestBadInputApp::cliNumbers() {
    QFETCH(QString, text);
    QFETCH(double, value);
    QFETCH(QString, expected);
    QString error;
    const std::optional<double> v = parseNumberOption(QStringLiteral("--lr"), text, 1e-6, 10.0,
                                                      QStringLiteral("0.001"), &error);
    QCOMPARE(error, expected);
    QCOMPARE(v.has_value(), expected.isEmpty());
    if (v) QCOMPARE(*v, value);
}

// A save refused for NaN leaves the previous file byte for byte and no temporary file behind.
void TestBadInputApp::refusedSaveLeavesFileAlone() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("example.json"));
    const QByteArray previous = attn::serializeExampleFile(saveLoopExample(1));
    QVERIFY(writeFile(path, previous));
    attn::ExampleFile bad = saveLoopExample(0);
    bad.inputs.embeddings(7, 3) = std::numeric_limits<float>::quiet_NaN();
    QString error;
    QVERIFY(!attn::saveExampleFile(bad, path, &error));
    QCOMPARE(error, QStringLiteral("embeddings has NaN at row 8, column 4 (counting from 1): "
                                   "replace it with a finite number (JSON cannot hold NaN or "
                                   "infinity)"));
    QCOMPARE(readFile(path), previous);
    QCOMPARE(otherFiles(QDir(dir.path()), QStringLiteral("example.json")), QStringList());
}

// Starts attn-save-loop `kills` times and SIGKILLs it at a random moment during its loop; after
// each kill the file must hold exactly the previous or the new example.
KillStats TestBadInputApp::killSaveLoop(const QString& dirPath, bool plain, int kills) {
    const QString path = QDir(dirPath).filePath(QStringLiteral("example.json"));
    const QByteArray previous = attn::serializeExampleFile(saveLoopExample(0));
    const QByteArray fresh = attn::serializeExampleFile(saveLoopExample(1));
    KillStats stats;
    QRandomGenerator random(7);  // fixed seed: the same kill moments on every run
    for (int k = 0; k < kills; ++k) {
        if (!writeFile(path, previous)) {
            return stats;
        }
        QProcess child;
        child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        QStringList args{path};
        if (plain) {
            args << QStringLiteral("--plain");
        }
        child.start(QStringLiteral(ATTN_SAVE_LOOP), args);
        if (!child.waitForStarted(30000)) {
            return stats;
        }
        // Wait for a random number of completed saves (0 to 2), then a random part of one save.
        const int savesBefore = static_cast<int>(random.bounded(3));
        QByteArray out;
        while (out.count("saved") < savesBefore || !out.contains("ready")) {
            if (!child.waitForReadyRead(60000)) {
                break;
            }
            out += child.readAllStandardOutput();
        }
        QThread::usleep(random.bounded(40000u));
        child.kill();  // SIGKILL: no chance to clean up or finish the write
        child.waitForFinished(30000);
        ++stats.kills;
        const QByteArray now = readFile(path);
        if (now == previous) {
            ++stats.previous;
        } else if (now == fresh) {
            ++stats.fresh;
        } else {
            ++stats.broken;
            if (stats.firstBroken.isEmpty()) {
                stats.firstBroken = QStringLiteral("kill %1: %2 bytes, parse: %3")
                                        .arg(k + 1)
                                        .arg(now.size())
                                        .arg(attn::parseExampleFile(now).error);
            }
        }
    }
    return stats;
}

// Saving is atomic: killed at random moments during a save loop, 30 times, the file always holds
// the previous or the new example in full, never a partial one.
void TestBadInputApp::killDuringSaveKeepsPreviousOrNew() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const KillStats s = killSaveLoop(dir.path(), /*plain=*/false, 30);
    qInfo("atomic: %d kills; file held previous %d, new %d, broken %d", s.kills, s.previous,
          s.fresh, s.broken);
    QCOMPARE(s.kills, 30);
    QVERIFY2(s.broken == 0, qPrintable(s.firstBroken));
    // The loop spends its time saving, so kills land inside saves; finding both contents shows
    // they landed on both sides of a commit.
    QVERIFY2(s.previous > 0 && s.fresh > 0, "kills must land both before and after a commit");
    // Qt 6 on Linux writes an unnamed O_TMPFILE, so a kill leaves nothing; where that is not
    // available a killed save may leave its temporary file, named after the target.
    const QStringList leftovers = otherFiles(QDir(dir.path()), QStringLiteral("example.json"));
    qInfo("temporary files left by the kills: %lld", static_cast<long long>(leftovers.size()));
    for (const QString& name : leftovers) {
        QVERIFY2(name.startsWith(QStringLiteral("example.json.")), qPrintable(name));
    }
}

// The same kills against a naive truncate-and-write save do leave partial files: the test above
// would notice a save that is not atomic.
void TestBadInputApp::killDuringPlainWriteIsCaught() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const KillStats s = killSaveLoop(dir.path(), /*plain=*/true, 10);
    qInfo("plain: %d kills; file held previous %d, new %d, broken %d", s.kills, s.previous, s.fresh,
          s.broken);
    QCOMPARE(s.kills, 10);
    QVERIFY2(s.broken > 0, "a kill during a plain write leaves a partial file");
}

QTEST_GUILESS_MAIN(TestBadInputApp)
#include "test_bad_input.moc"
