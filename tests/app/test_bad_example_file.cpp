// Bad and extreme example files, tried on purpose: NaN, ±Inf, 1e30 and subnormals, wrong
// shapes, non-UTF-8 text, very long tokens, 4096 tokens, a 100 MB file, numbers beyond float's
// range, and files that must read back unchanged after saving. Each case checks the message the
// user sees and that nothing else changed. The cases and messages are listed in
// docs/reliability.md; crashes the fuzzers found are here as regression tests.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "app/io/example_file.h"
#include "model/runner.h"

namespace {

constexpr float kSubnormal = std::numeric_limits<float>::denorm_min();

QByteArray twoTokens(const QByteArray& embeddings) {
    return "{\"tokens\": [\"a\", \"b\"], \"embeddings\": " + embeddings + "}";
}

bool sameBits(const attn::Matrix& a, const attn::Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(float)) == 0;
}

}  // namespace

class TestBadExampleFile : public QObject {
    Q_OBJECT

private slots:
    void valuesInFiles_data();
    void valuesInFiles();
    void hugeAndSubnormalReadBackExactly();
    void wrongShapes_data();
    void wrongShapes();
    void wrongWeightShapeAtRunTime();
    void nonUtf8_data();
    void nonUtf8();
    void longTokens_data();
    void longTokens();
    void tokenCountLimit();
    void file100MB();
    void nearLimitFileParsesInBoundedTime();
    void numberTooLargeForFloatInMessages_data();
    void numberTooLargeForFloatInMessages();
    void acceptedFilesReadBackAfterSaving_data();
    void acceptedFilesReadBackAfterSaving();
};

// NaN, ±Inf, 1e30 and subnormals as an example file can spell them.
void TestBadExampleFile::valuesInFiles_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");  // empty: accepted
    QTest::newRow("NaN literal")
        << twoTokens("[[1, NaN], [3, 4]]")
        << "line 1, column 43: not valid JSON: illegal number (NaN and Infinity are not JSON "
           "numbers; every value must be finite)";
    QTest::newRow("Infinity literal")
        << twoTokens("[[1, 2], [Infinity, 4]]")
        << "line 1, column 48: not valid JSON: illegal number (NaN and Infinity are not JSON "
           "numbers; every value must be finite)";
    QTest::newRow("-Infinity literal")
        << twoTokens("[[-Infinity, 2], [3, 4]]")
        << "line 1, column 41: not valid JSON: illegal number (NaN and Infinity are not JSON "
           "numbers; every value must be finite)";
    QTest::newRow("\"NaN\" string")
        << twoTokens("[[1, \"NaN\"], [3, 4]]")
        << "line 1, column 43: embeddings row 1, value 2 is the string \"NaN\": NaN and infinity "
           "are not allowed; give a finite number";
    QTest::newRow("\"-inf\" string")
        << twoTokens("[[1, 2], [3, \"-inf\"]]")
        << "line 1, column 51: embeddings row 2, value 2 is the string \"-inf\": NaN and infinity "
           "are not allowed; give a finite number";
    QTest::newRow("null (a NaN written by a JSON library)")
        << twoTokens("[[null, 2], [3, 4]]")
        << "line 1, column 40: embeddings row 1, value 1 is null, not a number (a NaN written by "
           "a JSON library shows up as null): give a finite number";
    QTest::newRow("1e39 (beyond float)")
        << twoTokens("[[1, 2], [3, 1e39]]")
        << "line 1, column 51: embeddings row 2, value 2 = 1e+39 is too large for a 32-bit float "
           "(largest about 3.4e38): give a smaller number";
    QTest::newRow("1e999 (beyond double)")
        << twoTokens("[[1e999, 2], [3, 4]]")
        << "line 1, column 45: not valid JSON: illegal number (the number 1e999 is too large)";
    QTest::newRow("NaN in a weight")
        << QByteArray(
               "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"weights\": {\"W_query\": "
               "[[\"nan\"]]}}")
        << "line 1, column 65: weights \"W_query\" row 1, value 1 is the string \"nan\": NaN and "
           "infinity are not allowed; give a finite number";
    QTest::newRow("1e30 accepted") << twoTokens("[[1e30, -1e30], [3, 4]]") << QString();
    QTest::newRow("FLT_MAX accepted") << twoTokens("[[3.4028235e+38, 2], [3, 4]]") << QString();
    QTest::newRow("subnormal accepted") << twoTokens("[[1e-45, 2], [3, 4]]") << QString();
    QTest::newRow("1e-50 accepted (reads as 0)") << twoTokens("[[1e-50, 2], [3, 4]]") << QString();
}

void TestBadExampleFile::valuesInFiles() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const attn::ExampleParseResult r = attn::parseExampleFile(bytes);
    QCOMPARE(r.error, expected);
    QCOMPARE(r.ok(), expected.isEmpty());
}

// Accepted extreme values keep every bit through open -> save -> open, and 1e-50 (below the
// smallest subnormal) reads as exactly 0, as float32 does it in PyTorch.
void TestBadExampleFile::hugeAndSubnormalReadBackExactly() {
    const attn::ExampleParseResult r =
        attn::parseExampleFile(twoTokens("[[1e30, -1e30, 3.4028235e+38], [1e-45, 1e-38, 1e-50]]"));
    QVERIFY2(r.ok(), qPrintable(r.error));
    const attn::Matrix& e = r.file->inputs.embeddings;
    QCOMPARE(e(0, 0), 1e30f);
    QCOMPARE(e(0, 1), -1e30f);
    QCOMPARE(e(0, 2), FLT_MAX);
    QCOMPARE(e(1, 0), kSubnormal);
    QCOMPARE(e(1, 1), 1e-38f);  // below FLT_MIN: subnormal
    QVERIFY(e(1, 2) == 0.0f);
    const attn::ExampleParseResult again =
        attn::parseExampleFile(attn::serializeExampleFile(*r.file));
    QVERIFY2(again.ok(), qPrintable(again.error));
    QVERIFY(sameBits(again.file->inputs.embeddings, e));
}

// Valid JSON with the wrong shapes: refused with the place and what the shape should be.
void TestBadExampleFile::wrongShapes_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    QTest::newRow("fewer rows than tokens")
        << QByteArray("{\"tokens\": [\"a\", \"b\", \"c\"], \"embeddings\": [[1, 2], [3, 4]]}")
        << "line 1, column 43: embeddings has 2 rows but tokens has 3 entries; give one row per "
           "token";
    QTest::newRow("ragged rows")
        << twoTokens("[[1, 2, 3],\n [4, 5]]")
        << "line 2, column 2: embeddings row 2 has 2 numbers but row 1 has 3; every token needs "
           "the same number of values";
    QTest::newRow("empty row")
        << twoTokens("[[], [4, 5]]")
        << "line 1, column 39: embeddings row 1 is empty: every token needs the same number of "
           "values";
    QTest::newRow("a flat list instead of rows")
        << twoTokens("[1, 2]")
        << "line 1, column 39: embeddings row 1 is the number 1, not a list of numbers";
    QTest::newRow("3-D embeddings")
        << twoTokens("[[[1, 2]], [[3, 4]]]")
        << "line 1, column 40: embeddings row 1, value 1 is a list, not a number";
    QTest::newRow("source of another width")
        << QByteArray(
               "{\"tokens\": [\"a\"], \"embeddings\": [[1, 2]], \"source\": {\"tokens\": "
               "[\"x\"], \"embeddings\": [[1, 2, 3]]}}")
        << "line 1, column 85: source embeddings have 3 values per token but embeddings have 2; "
           "cross-attention needs both sequences of the same width";
    QTest::newRow("weights as a list")
        << QByteArray("{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"weights\": [[1]]}")
        << "line 1, column 51: \"weights\" is a list, not an object of named matrices such as "
           "{\"W_query.weight\": [[...]]}";
    QTest::newRow("ragged weight")
        << QByteArray(
               "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"weights\": {\"W_query\": "
               "[[1, 2], [3]]}}")
        << "line 1, column 72: weights \"W_query\" row 2 has 1 number but row 1 has 2; every row "
           "of a matrix needs the same number of values";
}

void TestBadExampleFile::wrongShapes() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const attn::ExampleParseResult r = attn::parseExampleFile(bytes);
    QVERIFY(!r.ok());
    QCOMPARE(r.error, expected);
}

// A weight of the right form but the wrong size for the module is found when the example runs,
// which is where d_in, d_out and num_heads are known.
void TestBadExampleFile::wrongWeightShapeAtRunTime() {
    const attn::ExampleParseResult r = attn::parseExampleFile(
        "{\"tokens\": [\"a\", \"b\"], \"embeddings\": [[1, 2, 3], [4, 5, 6]], \"weights\": "
        "{\"W_query\": [[1, 0], [0, 1]]}, \"config\": {\"module\": \"self-attention-v1\"}}");
    QVERIFY2(r.ok(), qPrintable(r.error));
    attn::ModuleConfig config = *r.file->config;
    config.weights = r.file->weights;
    QString message;
    try {
        attn::run_module(config, r.file->inputs);
    } catch (const attn::AttentionError& e) {
        message = QString::fromUtf8(e.what());
    }
    QCOMPARE(message, QStringLiteral("weight \"W_query\" is (2, 2) but self-attention-v1 needs "
                                     "(3, 2), (d_in, d_out): queries = x · W_query: check d_in, "
                                     "d_out and num_heads, or transpose the matrix"));
}

// Token text that is not UTF-8: refused with the line, the column (in characters) and the byte.
void TestBadExampleFile::nonUtf8_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    QTest::newRow("Latin-1 é in a token")
        << QByteArray("{\"tokens\": [\"caf\xe9\"], \"embeddings\": [[1]]}")
        << "line 1, column 17: the file is not valid UTF-8 (byte 0xe9): save it as UTF-8";
    QTest::newRow("after CJK on line 2")
        << QByteArray("{\"tokens\": [\"旅程\",\n \"\xff\"], \"embeddings\": [[1], [2]]}")
        << "line 2, column 3: the file is not valid UTF-8 (byte 0xff): save it as UTF-8";
    QTest::newRow("truncated 3-byte sequence")
        << QByteArray("{\"tokens\": [\"\xe6\x97\"], \"embeddings\": [[1]]}")
        << "line 1, column 14: the file is not valid UTF-8 (byte 0xe6): save it as UTF-8";
    QTest::newRow("encoded surrogate")
        << QByteArray("{\"tokens\": [\"\xed\xa0\x80\"], \"embeddings\": [[1]]}")
        << "line 1, column 14: the file is not valid UTF-8 (byte 0xed): save it as UTF-8";
    QTest::newRow("in source tokens")
        << QByteArray(
               "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"source\": {\"tokens\": "
               "[\"\x80\"], \"embeddings\": [[1]]}}")
        << "line 1, column 63: the file is not valid UTF-8 (byte 0x80): save it as UTF-8";
    QTest::newRow("unpaired surrogate escape")
        << QByteArray("{\"tokens\": [\"a\\ud800\"], \"embeddings\": [[1]]}")
        << "line 1, column 13: token 1 contains an unpaired surrogate escape (\\ud800 .. \\udfff "
           "alone): remove it";
}

void TestBadExampleFile::nonUtf8() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    QCOMPARE(attn::parseExampleFile(bytes).error, expected);
}

// Very long token strings: up to kMaxTokenLength (1024) characters, counted as QString units.
void TestBadExampleFile::longTokens_data() {
    QTest::addColumn<int>("length");
    QTest::addColumn<QString>("expected");
    QTest::newRow("1024 characters") << 1024 << QString();
    QTest::newRow("1025 characters")
        << 1025
        << "line 1, column 13: token 1 is 1025 characters long; the limit is 1024: split it into "
           "shorter tokens";
    QTest::newRow("10 000 characters")
        << 10000
        << "line 1, column 13: token 1 is 10000 characters long; the limit is 1024: split it "
           "into shorter tokens";
}

void TestBadExampleFile::longTokens() {
    QFETCH(int, length);
    QFETCH(QString, expected);
    const QByteArray token(length, 'x');
    const attn::ExampleParseResult r =
        attn::parseExampleFile("{\"tokens\": [\"" + token + "\"], \"embeddings\": [[1]]}");
    QCOMPARE(r.error, expected);
    if (r.ok()) {
        QCOMPARE(r.file->inputs.tokens.front().size(), std::size_t(length));
    }
}

// 4096 tokens are accepted (and parse quickly); 4097 are refused.
void TestBadExampleFile::tokenCountLimit() {
    for (const qsizetype count : {attn::kMaxExampleTokens, attn::kMaxExampleTokens + 1}) {
        QByteArray tokens, rows;
        for (qsizetype i = 0; i < count; ++i) {
            tokens += (i ? ", \"t" : "\"t") + QByteArray::number(i) + '"';
            rows += (i ? ", [" : "[") + QByteArray::number(i) + ", 0.5]";
        }
        QElapsedTimer timer;
        timer.start();
        const attn::ExampleParseResult r = attn::parseExampleFile(
            "{\"tokens\": [" + tokens + "], \"embeddings\": [" + rows + "]}");
        qInfo("%lld tokens: %lld ms", static_cast<long long>(count),
              static_cast<long long>(timer.elapsed()));
        if (count == attn::kMaxExampleTokens) {
            QVERIFY2(r.ok(), qPrintable(r.error));
            QCOMPARE(r.file->inputs.embeddings.rows(), Eigen::Index{4096});
        } else {
            QCOMPARE(r.error, QStringLiteral("line 1, column 12: tokens has 4097 entries; the "
                                             "limit is 4096 tokens: shorten the sequence"));
        }
    }
}

// A 100 MB example file: refused by its size before a byte is read, so instantly and without
// memory; the file itself is left as it was. The same bytes arriving in memory (a pipe, a
// clipboard) are refused by parseExampleFile before any parsing.
void TestBadExampleFile::file100MB() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("huge.json"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        const QByteArray head = "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"description\": \"";
        QVERIFY(f.write(head) == head.size());
        const QByteArray chunk(1 << 20, 'x');  // real bytes, not a sparse file
        while (f.size() + chunk.size() <= (qint64{100} << 20) - 2) {
            QVERIFY(f.write(chunk) == chunk.size());
        }
        QVERIFY(f.write(QByteArray((qint64{100} << 20) - 2 - f.size(), 'x')) >= 0);
        QVERIFY(f.write("\"}") == 2);
    }
    const QFileInfo before(path);
    QCOMPARE(before.size(), qint64{100} << 20);
    QElapsedTimer timer;
    timer.start();
    const attn::ExampleParseResult r = attn::loadExampleFile(path);
    const qint64 ms = timer.elapsed();
    QCOMPARE(r.error, QStringLiteral("the file is 100.0 MB; example files are limited to 64.0 MB"));
    QVERIFY2(ms < 1000, qPrintable(QStringLiteral("%1 ms").arg(ms)));
    const QFileInfo after(path);
    QCOMPARE(after.size(), before.size());
    QCOMPARE(after.lastModified(), before.lastModified());

    const QByteArray inMemory(qsizetype{100} << 20, ' ');
    timer.restart();
    QCOMPARE(attn::parseExampleFile(inMemory).error,
             QStringLiteral("the file is 100.0 MB; example files are limited to 64.0 MB"));
    QVERIFY(timer.elapsed() < 1000);
}

// The largest files the limit lets through still parse in bounded time: ~50 MB of numbers
// (4096 tokens × 1200 values).
void TestBadExampleFile::nearLimitFileParsesInBoundedTime() {
    constexpr int kTokens = 4096;
    constexpr int kWidth = 1200;
    QByteArray bytes = "{\"tokens\": [";
    for (int i = 0; i < kTokens; ++i) {
        bytes += (i ? ", \"t" : "\"t") + QByteArray::number(i) + '"';
    }
    bytes += "],\n\"embeddings\": [\n";
    const QByteArray value = "0.123456789,";  // 12 bytes per number
    QByteArray row = "[";
    for (int j = 0; j < kWidth; ++j) {
        row += j + 1 < kWidth ? value : QByteArray("0.123456789]");
    }
    for (int i = 0; i < kTokens; ++i) {
        bytes += row;
        bytes += i + 1 < kTokens ? ",\n" : "\n]}";
    }
    QVERIFY(bytes.size() > (qsizetype{45} << 20));
    QVERIFY(bytes.size() < attn::kMaxExampleFileBytes);
    QElapsedTimer timer;
    timer.start();
    const attn::ExampleParseResult r = attn::parseExampleFile(bytes);
    const qint64 ms = timer.elapsed();
    qInfo("%.1f MB file, %d numbers: parsed in %lld ms",
          static_cast<double>(bytes.size()) / (1 << 20), kTokens * kWidth,
          static_cast<long long>(ms));
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(r.file->inputs.embeddings.rows(), Eigen::Index{kTokens});
    QCOMPARE(r.file->inputs.embeddings.cols(), Eigen::Index{kWidth});
#ifdef QT_NO_DEBUG
    constexpr qint64 kLimitMs = 30000;  // measured ~5 s on the 2-core CI machine
#else
    constexpr qint64 kLimitMs = 240000;  // Debug + sanitizers
#endif
    QVERIFY2(ms < kLimitMs, qPrintable(QStringLiteral("%1 ms").arg(ms)));
}

// Numbers beyond float's range in places that are not float values (description, version,
// config): the message names the number the file holds. Found reading example_file.cpp
// for the fuzzer; describe() rounds the double to float, which is +inf beyond FLT_MAX, and
// formatFloat(inf) is "null", so the message said "the number null".
void TestBadExampleFile::numberTooLargeForFloatInMessages_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("shown");
    QTest::newRow("description") << QByteArray(
                                        "{\"description\": 1e300, \"tokens\": [\"a\"], "
                                        "\"embeddings\": [[1]]}")
                                 << "1e+300";
    QTest::newRow("version") << QByteArray(
                                    "{\"version\": 1e300, \"tokens\": [\"a\"], "
                                    "\"embeddings\": [[1]]}")
                             << "1e+300";
    QTest::newRow("config batch") << QByteArray(
                                         "{\"tokens\": [\"a\"], \"embeddings\": [[1]], "
                                         "\"config\": {\"batch\": 1e300}}")
                                  << "1e+300";
}

void TestBadExampleFile::numberTooLargeForFloatInMessages() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, shown);
    const attn::ExampleParseResult r = attn::parseExampleFile(bytes);
    QVERIFY(!r.ok());
    QVERIFY2(!r.error.contains(QStringLiteral("null")), qPrintable(r.error));
    // The number shown is the file's number (in whatever digits): it reads back as 1e300.
    const QRegularExpressionMatch m =
        QRegularExpression(QStringLiteral("(?:number|version) ([-+.0-9eE]+)")).match(r.error);
    QVERIFY2(m.hasMatch(), qPrintable(r.error));
    QCOMPARE(m.captured(1).toDouble(), shown.toDouble());
}

// Whatever the app opens, it can save and open again, unchanged. Found by
// fuzz_example_file: a "config" without "module" was accepted, saved as "module": "" and then
// refused with "no module given"; a token starting with U+FEFF (zero-width no-break space, what a
// byte-order mark looks like) written as an escape was kept on opening but lost after saving,
// because the save writes it as raw UTF-8 and QString::fromUtf8 drops a leading U+FEFF.
void TestBadExampleFile::acceptedFilesReadBackAfterSaving_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("token starting with \\ufeff")
        << QByteArray("{\"tokens\": [\"\\ufeffYour\"], \"embeddings\": [[0]]}");
    QTest::newRow("token starting with a raw U+FEFF and holding \\u0000")
        << QByteArray("{\"tokens\": [\"\xef\xbb\xbfx\\u0000y\"], \"embeddings\": [[0]]}");
    QTest::newRow("config without module")
        << QByteArray("{\"tokens\": [\"a\"], \"embeddings\": [[0]], \"config\": {\"seed\": 1}}");
    QTest::newRow("empty config") << QByteArray(
        "{\"tokens\": [\"a\"], \"embeddings\": [[0]], \"config\": {}}");
}

void TestBadExampleFile::acceptedFilesReadBackAfterSaving() {
    QFETCH(QByteArray, bytes);
    const attn::ExampleParseResult first = attn::parseExampleFile(bytes);
    if (!first.ok()) {
        // Refusing such a file up front is a fix too, if the message says what is missing.
        QVERIFY2(first.error.contains(QStringLiteral("\"module\"")), qPrintable(first.error));
        return;
    }
    const attn::ExampleParseResult again =
        attn::parseExampleFile(attn::serializeExampleFile(*first.file));
    QVERIFY2(again.ok(), qPrintable(again.error));
    QCOMPARE(again.file->inputs.tokens, first.file->inputs.tokens);
    QVERIFY(sameBits(again.file->inputs.embeddings, first.file->inputs.embeddings));
}

QTEST_GUILESS_MAIN(TestBadExampleFile)
#include "test_bad_example_file.moc"
