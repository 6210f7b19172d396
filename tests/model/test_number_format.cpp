// The one number formatter (model/number_format.h): the digits every surface prints, and that
// they stay the same whatever the C locale says.
#include <QTest>
#include <clocale>
#include <cstdio>
#include <limits>
#include <string>

#include "model/number_format.h"

namespace {

const QString kMinusInfinity = QStringLiteral("\u2212\u221E");
const double kInf = std::numeric_limits<double>::infinity();

QString q(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

class TestNumberFormat : public QObject {
    Q_OBJECT

private slots:
    void fixedAndCompact_data();
    void fixedAndCompact();
    void shortestReadsBack_data();
    void shortestReadsBack();
    void sameDigitsUnderGermanLocale();
};

void TestNumberFormat::fixedAndCompact_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<int>("decimals");
    QTest::addColumn<QString>("fixed");
    QTest::addColumn<QString>("compact");
    QTest::newRow("weight") << 0.43056 << 4 << "0.4306"
                            << "0.4306";
    QTest::newRow("negative") << -0.5337 << 4 << "-0.5337"
                              << "-0.5337";
    QTest::newRow("two") << 2.0 << 4 << "2.0000"
                         << "2";
    QTest::newRow("negative zero") << -0.00001 << 4 << "0.0000"
                                   << "-1e-5";
    QTest::newRow("-inf") << -kInf << 4 << kMinusInfinity << kMinusInfinity;
    QTest::newRow("+inf") << kInf << 4 << QString("\u221E") << QString("\u221E");
    QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN() << 4 << "NaN"
                         << "NaN";
    QTest::newRow("BERT fill -1e9") << -1e9 << 4 << "-1e9"
                                    << "-1e9";
    QTest::newRow("GPT-2 fill -1e4") << -1e4 << 4 << "-10000.0000"
                                     << "-1e4";
    QTest::newRow("2 decimals") << 0.23791 << 2 << "0.24"
                                << "0.2379";
    QTest::newRow("0 decimals mask") << 1.0 << 0 << "1"
                                     << "1";
    QTest::newRow("1e5 compact") << 123456.0 << 4 << "1.235e5"
                                 << "1.235e5";
    QTest::newRow("tiny exponent") << 1.5e-7 << 4 << "0.0000"
                                   << "1.5e-7";
    QTest::newRow("half rounds to even digit of the binary value") << 0.00005 << 4 << "0.0001"
                                                                   << "5e-5";
}

void TestNumberFormat::fixedAndCompact() {
    QFETCH(double, value);
    QFETCH(int, decimals);
    QFETCH(QString, fixed);
    QFETCH(QString, compact);
    QCOMPARE(q(attn::format_fixed(value, decimals)), fixed);
    QCOMPARE(q(attn::format_compact(value)), compact);
}

void TestNumberFormat::shortestReadsBack_data() {
    QTest::addColumn<float>("value");
    QTest::addColumn<QString>("text");
    QTest::newRow("0.43f") << 0.43f << "0.43";
    QTest::newRow("tutorial context") << -0.45192027f << "-0.45192027";
    QTest::newRow("1.0000001f") << 1.0000001f << "1.0000001";
    QTest::newRow("float max") << std::numeric_limits<float>::max() << "3.4028235e+38";
    QTest::newRow("-inf") << -std::numeric_limits<float>::infinity() << "-inf";
    QTest::newRow("nan") << std::numeric_limits<float>::quiet_NaN() << "nan";
}

void TestNumberFormat::shortestReadsBack() {
    QFETCH(float, value);
    QFETCH(QString, text);
    QCOMPARE(q(attn::format_shortest(value)), text);
    if (std::isfinite(value)) {
        // strtof in the C locale: the digits read back as the same float.
        QCOMPARE(std::strtof(text.toLatin1().constData(), nullptr), value);
    }
}

void TestNumberFormat::sameDigitsUnderGermanLocale() {
    // scripts/setup generates de_DE.UTF-8; without it this test fails rather than passes blindly.
    const std::string previous = std::setlocale(LC_ALL, nullptr);
    QVERIFY2(std::setlocale(LC_ALL, "de_DE.UTF-8") != nullptr,
             "the de_DE.UTF-8 locale is missing: run scripts/setup (localedef -i de_DE -f UTF-8)");
    char printed[16];
    std::snprintf(printed, sizeof printed, "%.4f", 0.9544);
    const QString cLibrary = QString::fromLatin1(printed);
    const QString fixed = q(attn::format_fixed(0.9544));
    const QString compact = q(attn::format_compact(-1.5e-7));
    const QString shortest = q(attn::format_shortest(0.25f));
    std::setlocale(LC_ALL, previous.c_str());
    QCOMPARE(cLibrary, QStringLiteral("0,9544"));  // the locale really is active
    QCOMPARE(fixed, QStringLiteral("0.9544"));
    QCOMPARE(compact, QStringLiteral("-1.5e-7"));
    QCOMPARE(shortest, QStringLiteral("0.25"));
}

QTEST_APPLESS_MAIN(TestNumberFormat)
#include "test_number_format.moc"
