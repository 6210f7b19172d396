// app/matrix_text.h: a matrix pasted from a spreadsheet, a CSV file or a printed tensor. Every
// accepted layout gives the same numbers; every refused paste names the line and column.
#include <QTest>
#include <cfloat>
#include <limits>
#include <vector>

#include "app/io/matrix_text.h"

Q_DECLARE_METATYPE(attn::Matrix)

namespace {

attn::Matrix toMatrix(const std::vector<std::vector<float>>& rows) {
    attn::Matrix m(static_cast<Eigen::Index>(rows.size()),
                   static_cast<Eigen::Index>(rows.front().size()));
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            m(i, j) = rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
        }
    }
    return m;
}

attn::Matrix tutorialTwoRows() { return toMatrix({{0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}}); }

}  // namespace

class TestMatrixText : public QObject {
    Q_OBJECT

private slots:
    void accepts_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<attn::Matrix>("expected");
        QTest::addColumn<QStringList>("labels");
        const attn::Matrix two = tutorialTwoRows();
        QTest::newRow("tabs (spreadsheet)") << "0.43\t0.15\t0.89\n0.55\t0.87\t0.66\n"
                                            << two << QStringList();
        QTest::newRow("tabs, trailing tab, CRLF") << "0.43\t0.15\t0.89\t\r\n0.55\t0.87\t0.66\t\r\n"
                                                  << two << QStringList();
        QTest::newRow("commas") << "0.43, 0.15, 0.89\n0.55, 0.87, 0.66" << two << QStringList();
        QTest::newRow("semicolons, trailing separator")
            << "0.43;0.15;0.89;\n0.55;0.87;0.66;" << two << QStringList();
        QTest::newRow("spaces, blank lines") << "\n  0.43 0.15   0.89\n\n0.55 0.87 0.66\n\n"
                                             << two << QStringList();
        QTest::newRow("plus sign and exponents")
            << "+4.3e-1 1.5E-1 0.89\n0.55 8.7e-01 .66" << two << QStringList();
        QTest::newRow("labels in front")
            << "Your\t0.43\t0.15\t0.89\njourney\t0.55\t0.87\t0.66" << two
            << QStringList{QStringLiteral("Your"), QStringLiteral("journey")};
        QTest::newRow("header and labels")
            << "\tx\ty\tz\nYour\t0.43\t0.15\t0.89\njourney\t0.55\t0.87\t0.66" << two
            << QStringList{QStringLiteral("Your"), QStringLiteral("journey")};
        QTest::newRow("header only")
            << "a,b,c\n0.43,0.15,0.89\n0.55,0.87,0.66" << two << QStringList();
        QTest::newRow("python list")
            << "[[0.43, 0.15, 0.89], [0.55, 0.87, 0.66]]" << two << QStringList();
        QTest::newRow("python list, trailing commas")
            << "[[0.43, 0.15, 0.89,], [0.55, 0.87, 0.66],]," << two << QStringList();
        QTest::newRow("printed tensor") << "tensor([[0.4300, 0.1500, 0.8900],\n        [0.5500, "
                                           "0.8700, 0.6600]], grad_fn=<MmBackward0>)"
                                        << two << QStringList();
        QTest::newRow("parameter") << "Parameter containing:\ntensor([[0.4300, 0.1500, 0.8900],\n  "
                                      "      [0.5500, 0.8700, 0.6600]], requires_grad=True)"
                                   << two << QStringList();
        QTest::newRow("numpy without commas")
            << "array([[0.43 0.15 0.89]\n [0.55 0.87 0.66]])" << two << QStringList();
        QTest::newRow("1-D tensor -> one row")
            << "tensor([0.4306, 1.4551], grad_fn=<SqueezeBackward4>)"
            << toMatrix({{0.4306f, 1.4551f}}) << QStringList();
        QTest::newRow("3-D batch of one")
            << "tensor([[[0.43, 0.15, 0.89],\n [0.55, 0.87, 0.66]]])" << two << QStringList();
        QTest::newRow("one number") << "7" << toMatrix({{7.0f}}) << QStringList();
        QTest::newRow("underflow is 0") << "1e-50 1" << toMatrix({{0.0f, 1.0f}}) << QStringList();
    }
    void accepts() {
        QFETCH(QString, text);
        QFETCH(attn::Matrix, expected);
        QFETCH(QStringList, labels);
        const attn::MatrixTextResult r = attn::parseMatrixText(text);
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.value->matrix, expected);
        QCOMPARE(r.value->rowLabels, labels);
    }

    void refuses_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << ""
                               << "the text is empty: paste rows of numbers";
        QTest::newRow("blank") << " \n\t\n"
                               << "the text is empty: paste rows of numbers";
        QTest::newRow("ragged rows")
            << "0.43 0.15 0.89\n0.55 0.87"
            << "line 2, column 1: row 2 has 2 numbers but row 1 has 3; every row "
               "needs the same number of values";
        QTest::newRow("word in the middle") << "1 2 3\n4 five 6"
                                            << "line 2, column 3: \"five\" is not a number";
        QTest::newRow("nan") << "1\t2\n3\tnan"
                             << "line 2, column 3: \"nan\" is not a finite number: replace "
                                "NaN or infinity with a number";
        QTest::newRow("-inf in a tensor")
            << "tensor([[1., -inf],\n        [2., 3.]])"
            << "line 1, column 14: \"-inf\" is not a finite number: replace NaN or "
               "infinity with a number";
        QTest::newRow("beyond float") << "1, 2\n3, 1e39"
                                      << "line 2, column 4: \"1e39\" is too large for a 32-bit "
                                         "float (largest about 3.4e38)";
        QTest::newRow("beyond double") << "[1e400]"
                                       << "line 1, column 2: \"1e400\" is too large for a 32-bit "
                                          "float (largest about 3.4e38)";
        QTest::newRow("empty cell") << "1\t\t3\n4\t5\t6"
                                    << "line 1, column 3: an empty cell: every cell needs a number";
        QTest::newRow("ragged list")
            << "[[1, 2, 3],\n [4, 5]]"
            << "line 2, column 2: row 2 has 2 numbers but row 1 has 3; every row "
               "needs the same number of values";
        QTest::newRow("unclosed")
            << "[[1, 2], [3, 4]"
            << "line 1, column 1: this '[' is never closed: add the missing ']'";
        QTest::newRow("double comma") << "[1,, 2]"
                                      << "line 1, column 4: a ',' without a value before it";
        QTest::newRow("elided tensor") << "tensor([[0.1, 0.2, ..., 0.9],\n [0.3, 0.4, ..., 0.8]])"
                                       << "line 1, column 20: the tensor was printed with '...' "
                                          "(values left out): print it in "
                                          "full, e.g. torch.set_printoptions(profile=\"full\")";
        QTest::newRow("batch of two")
            << "[[[1, 2]], [[3, 4]]]"
            << "line 1, column 1: this is a 3-D tensor holding 2 matrices: paste "
               "one of them, e.g. print(x[0])";
        QTest::newRow("four levels") << "[[[[1]]]]"
                                     << "line 1, column 4: the list is nested more than 3 levels "
                                        "deep: paste one matrix";
        QTest::newRow("text before") << "x = [[1, 2]]"
                                     << "line 1, column 1: expected a list such as [[0.43, "
                                        "0.15], [0.55, 0.87]] or tensor([[...]]), found \"x\"";
        QTest::newRow("text after") << "[[1, 2]] and more"
                                    << "line 1, column 10: unexpected text after the "
                                       "matrix: paste one matrix";
        QTest::newRow("unclosed tensor(") << "tensor([[1, 2]]"
                                          << "line 1, column 16: expected ')' to close the "
                                             "tensor(...) around the matrix";
        QTest::newRow("row and number mixed") << "[[1, 2], 3]"
                                              << "line 1, column 10: row 2 is a single number "
                                                 "but row 1 is a list: give every row as a list";
        QTest::newRow("empty list")
            << "[]"
            << "line 1, column 1: the list is empty: paste at least one number";
        QTest::newRow("label only") << "Your"
                                    << "line 1, column 1: \"Your\" is not a number";
    }
    void refuses() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const attn::MatrixTextResult r = attn::parseMatrixText(text);
        QVERIFY(!r.ok());
        QCOMPARE(r.error, message);
    }

    void refusesHugeText() {
        const QString huge(attn::kMaxMatrixTextLength + 1, QLatin1Char('1'));
        QCOMPARE(
            attn::parseMatrixText(huge).error,
            QStringLiteral(
                "the text has 16777217 characters; the limit is 16777216: paste a smaller matrix"));
    }

    // Every float survives text: what jsonText/printing writes, the parser reads back exactly.
    void shortestDigitsReadBack() {
        const attn::MatrixTextResult r =
            attn::parseMatrixText(QStringLiteral("0.1 3.4028235e+38 1e-45 -0.5337386"));
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.value->matrix(0, 0), 0.1f);
        QCOMPARE(r.value->matrix(0, 1), FLT_MAX);
        QCOMPARE(r.value->matrix(0, 2), std::numeric_limits<float>::denorm_min());
        QCOMPARE(r.value->matrix(0, 3), -0.5337386f);
    }
};

QTEST_APPLESS_MAIN(TestMatrixText)
#include "test_matrix_text.moc"
