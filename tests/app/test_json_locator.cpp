// The one way app/io's readers report a bad JSON file (app/io/json_locator.h): "<file>: line L,
// column C: <problem>; <fix>" for the empty file, bytes that are not UTF-8, a syntax error, a
// document of the wrong kind and a value of the wrong type; positions counted in characters.
#include <QJsonArray>
#include <QtTest>

#include "app/io/json_locator.h"

class TestJsonLocator : public QObject {
    Q_OBJECT

private slots:
    void parseErrors_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("error");
        QTest::newRow("empty") << QByteArray(" \n") << "config.json: the file is empty; copy it";
        QTest::newRow("only a byte-order mark")
            << QByteArray("\xEF\xBB\xBF") << "config.json: the file is empty; copy it";
        QTest::newRow("not UTF-8")
            << QByteArray("{\"a\":\n \"caf\xe9\"}")
            << "config.json: line 2, column 6: the file is not valid UTF-8 (byte 0xe9): save it "
               "as UTF-8";
        QTest::newRow("trailing comma")
            << QByteArray("{\"a\": 1,\n \"b\": [1, 2,]}")
            << "config.json: line 2, column 14: not valid JSON: object is missing after a comma; "
               "copy it";
        // Columns count characters: "ü" is two bytes but one column.
        QTest::newRow("after a two-byte character")
            << QByteArray("{\"ü\": 1 \"b\": 2}")
            << "config.json: line 1, column 10: not valid JSON: unterminated object; copy it";
        QTest::newRow("NaN names itself instead of the fix")
            << QByteArray("{\"a\": [1,\n  NaN]}")
            << "config.json: line 2, column 3: not valid JSON: illegal number (NaN and Infinity "
               "are not JSON numbers; every value must be finite)";
        QTest::newRow("a list")
            << QByteArray("\n  [1, 2]")
            << "config.json: line 2, column 3: the file holds a list; it is an object";
        // Qt's parser takes only an object or a list at the top.
        QTest::newRow("a number") << QByteArray("3")
                                  << "config.json: line 1, column 2: not valid JSON: illegal "
                                     "value; copy it";
    }
    void parseErrors() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, error);
        const attn::JsonText text(QStringLiteral("config.json"), bytes);
        QString message;
        QVERIFY(!text.parseObject(QStringLiteral("copy it"), QStringLiteral("it is an object"),
                                  &message));
        QCOMPARE(message, error);
    }

    void parseGivesTheDocument() {
        const attn::JsonText text(QStringLiteral("tokens.json"), "\xEF\xBB\xBF[\"a\", \"b\"]");
        QString error;
        const std::optional<QJsonDocument> doc = text.parse(QStringLiteral("fix"), &error);
        QVERIFY2(doc.has_value(), qPrintable(error));
        QVERIFY(error.isEmpty());
        QCOMPARE(doc->array(), (QJsonArray{"a", "b"}));
    }

    // A wrong-typed value, found by its path: the message points at the value, not its key.
    void messageAtAValue() {
        const QByteArray bytes =
            "{\n  \"n_layer\": 12,\n  \"n_head\": \"twelve\",\n"
            "  \"shape\": [1, [2, 3]]\n}";
        const attn::JsonText text(QStringLiteral("config.json"), bytes);
        QCOMPARE(text.where({attn::jsonKey("n_head")}),
                 QStringLiteral("config.json: line 3, column 13"));
        QCOMPARE(
            text.message({attn::jsonKey("n_head")},
                         QStringLiteral("\"n_head\" is %1: give a whole number")
                             .arg(attn::describeJsonValue(QJsonValue(QStringLiteral("twelve"))))),
            QStringLiteral("config.json: line 3, column 13: \"n_head\" is the string "
                           "\"twelve\": give a whole number"));
        QCOMPARE(text.where({attn::jsonKey("shape"), attn::jsonIndex(1), attn::jsonIndex(1)}),
                 QStringLiteral("config.json: line 4, column 20"));
        // A path that does not exist ends at its deepest existing step.
        QCOMPARE(text.where(attn::jsonChild({attn::jsonKey("shape")}, 5)),
                 QStringLiteral("config.json: line 4, column 12"));
        QCOMPARE(text.fileMessage(QStringLiteral("no vocabulary")),
                 QStringLiteral("config.json: no vocabulary"));
        bool thrown = false;
        try {
            text.fail({attn::jsonKey("n_layer")}, QStringLiteral("too many layers"));
        } catch (const attn::JsonError& e) {
            thrown = true;
            QCOMPARE(e.message, QStringLiteral("config.json: line 2, column 14: too many layers"));
        }
        QVERIFY(thrown);
    }

    // Without a file name (the caller names the file) messages begin with "line".
    void messageWithoutAFileName() {
        const attn::JsonText text(QString(), "[1,\n 2]");
        QCOMPARE(text.message({attn::jsonIndex(1)}, QStringLiteral("too large")),
                 QStringLiteral("line 2, column 2: too large"));
        QCOMPARE(text.messageAt(0, QStringLiteral("here")),
                 QStringLiteral("line 1, column 1: here"));
        QCOMPARE(text.fileMessage(QStringLiteral("empty")), QStringLiteral("empty"));
    }

    void describeValues_data() {
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("text");
        QTest::newRow("whole number") << QJsonValue(1e9) << "the number 1000000000";
        QTest::newRow("negative") << QJsonValue(-1) << "the number -1";
        QTest::newRow("fraction") << QJsonValue(0.1) << "the number 0.1";
        QTest::newRow("huge") << QJsonValue(1e300) << "the number 1e+300";
        QTest::newRow("string") << QJsonValue("12") << "the string \"12\"";
        QTest::newRow("long string") << QJsonValue(QString(50, QLatin1Char('x')))
                                     << "the string \"" + QString(40, QLatin1Char('x')) + "...\"";
        QTest::newRow("null") << QJsonValue(QJsonValue::Null) << "null";
        QTest::newRow("false") << QJsonValue(false) << "false";
        QTest::newRow("list") << QJsonValue(QJsonArray{1}) << "a list";
        QTest::newRow("object") << QJsonValue(QJsonObject{}) << "an object";
        QTest::newRow("missing") << QJsonValue(QJsonValue::Undefined) << "missing";
    }
    void describeValues() {
        QFETCH(QJsonValue, value);
        QFETCH(QString, text);
        QCOMPARE(attn::describeJsonValue(value), text);
    }

    void utf8Sequences() {
        char32_t cp = 0;
        QCOMPARE(attn::utf8SequenceAt("a", 0, &cp), 1);
        QCOMPARE(cp, U'a');
        QCOMPARE(attn::utf8SequenceAt("\xe6\x97\x85", 0, &cp), 3);
        QCOMPARE(cp, U'\u65c5');
        QCOMPARE(attn::utf8SequenceAt("\xf0\x9f\x98\x80", 0, &cp), 4);
        QCOMPARE(cp, U'\U0001F600');
        QCOMPARE(attn::utf8SequenceAt("\xc0\xaf", 0, &cp), 0);          // overlong "/"
        QCOMPARE(attn::utf8SequenceAt("\xed\xa0\x80", 0, &cp), 0);      // a surrogate
        QCOMPARE(attn::utf8SequenceAt("\xf4\x90\x80\x80", 0, &cp), 0);  // above U+10FFFF
        QCOMPARE(attn::utf8SequenceAt("\xe6\x97", 0, &cp), 0);          // cut short
        QCOMPARE(attn::firstInvalidUtf8("ok \xe6\x97\x85 \xff"), qsizetype{7});
    }

    // Positions in decoded text (pasted matrices) count a surrogate pair as one column.
    void positionsInText() {
        const QString text = QStringLiteral("1 2\n\U0001F600 x");
        QCOMPARE(attn::positionText(
                     attn::textPosition(QStringView(text), text.indexOf(QLatin1Char('x')))),
                 QStringLiteral("line 2, column 3"));
        QCOMPARE(attn::positionText(attn::textPosition(QByteArray("ab\ncd"), 4)),
                 QStringLiteral("line 2, column 2"));
    }
};

QTEST_APPLESS_MAIN(TestJsonLocator)
#include "test_json_locator.moc"
