// Figure files: the SVG, PDF and CSV bytes views/figure_render.h makes, saved through
// app/io/file_batch.h as the window and `attention-cli export` save them. Checks that SVG and PDF
// hold the cells and labels as text (poppler's tools read the PDF back), the CSV numbers to the
// last bit, and that a refused or failed export leaves the folder as it was.
#include <QRegularExpression>
#include <QSet>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <algorithm>
#include <limits>

#include "figure_test_util.h"
#include "pdf_tools.h"
#include "tests/test_files.h"
#include "views/heatmap_widget.h"
#include "views/step_page.h"

using views::Figure;
using views::FigureFormat;
using views::FigureOptions;

namespace {

// The text content of every <text> element, in document order.
QStringList svgTexts(const QByteArray& svg, QString* xmlError) {
    QXmlStreamReader xml(svg);
    QStringList texts;
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("text"))
            texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
    }
    *xmlError = xml.hasError() ? xml.errorString() : QString();
    return texts;
}

}  // namespace

class TestFigureFiles : public QObject {
    Q_OBJECT

private slots:
    void svgCellsAndLabels_data();
    void svgCellsAndLabels();
    void pdfHeaderTrailerAndText();
    void csvNumbers();
    void csvQuoting();
    void existingFileRefused_data();
    void existingFileRefused();
    void failedBatchLeavesFolderAsFound_data();
    void failedBatchLeavesFolderAsFound();
};

void TestFigureFiles::svgCellsAndLabels_data() {
    QTest::addColumn<bool>("values");
    QTest::addColumn<bool>("title");
    QTest::newRow("values and title") << true << true;
    QTest::newRow("no values") << false << true;
    QTest::newRow("no title") << true << false;
}

void TestFigureFiles::svgCellsAndLabels() {
    QFETCH(bool, values);
    QFETCH(bool, title);
    views::StepPage page(stepNumber(11));
    views::HeatmapWidget* map = page.heatmap("masked-scores");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    FigureOptions options;
    options.format = FigureFormat::Svg;
    options.values = values;
    options.title = title;
    QStringList written;
    QString error;
    QVERIFY2(exportFigures({{&page, "masked-scores"}}, dir.path(), options, &written, &error),
             qPrintable(error));
    QCOMPARE(written, QStringList{dir.filePath("step-11-masked-scores.svg")});
    const QByteArray svg = readFile(written.first());
    QString xmlError;
    const QStringList texts = svgTexts(svg, &xmlError);
    QVERIFY2(xmlError.isEmpty(), qPrintable(xmlError));
    QVERIFY(svg.contains("<svg"));

    // Every cell is a text element ("0.3111", and "−∞" for the 15 masked ones).
    QSet<QString> cellTexts;
    for (int r = 0; r < map->rowCount(); ++r)
        for (int c = 0; c < map->columnCount(); ++c) cellTexts.insert(map->cellText(r, c));
    QVERIFY(cellTexts.contains("0.3111"));
    QVERIFY(cellTexts.contains(QString::fromUtf8("−∞")));
    const qsizetype cells = std::count_if(texts.begin(), texts.end(),
                                          [&](const QString& t) { return cellTexts.contains(t); });
    QCOMPARE(cells, values ? qsizetype{36} : qsizetype{0});
    QCOMPARE(texts.count(QString::fromUtf8("−∞")), values ? qsizetype{15} : qsizetype{0});
    // Token labels on both axes.
    for (const char* token : {"Your", "journey", "starts", "with", "one", "step"})
        QCOMPARE(texts.count(QString::fromUtf8(token)), qsizetype{2});
    QCOMPARE(texts.contains(page.caption("masked-scores")), title);
    QVERIFY(!page.caption("masked-scores").isEmpty());

    QSvgRenderer renderer(written.first());
    QVERIFY(renderer.isValid());
}

void TestFigureFiles::pdfHeaderTrailerAndText() {
    views::StepPage page(stepNumber(15));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    FigureOptions options;
    options.format = FigureFormat::Pdf;
    options.size = QSize(640, 520);
    const QString path = dir.filePath("cross.pdf");
    QString error;
    QVERIFY2(exportFigure({&page, "cross-weights"}, path, options, &error), qPrintable(error));
    const QByteArray pdf = readFile(path);
    QVERIFY(pdf.startsWith("%PDF-"));
    QVERIFY(pdf.trimmed().endsWith("%%EOF"));
    const QString info = pdfInfo(path);
    QVERIFY2(info.contains(QRegularExpression("Pages:\\s+1\\n")), qPrintable(info));
    // One point per logical pixel.
    QVERIFY2(info.contains(QRegularExpression("Page size:\\s+640 x 520 pts")), qPrintable(info));
    QVERIFY2(info.contains(page.caption("cross-weights")), qPrintable(info));
    const QString text = pdfText(path);
    for (const char* label : {"Your", "journey", "step", "你的", "旅程", "始于", "一步"})
        QVERIFY2(text.contains(QString::fromUtf8(label)), label);
    // A weight of the tutorial's cross-attention, as the cell prints it.
    QVERIFY2(text.contains(page.heatmap("cross-weights")->cellText(0, 1)), qPrintable(text));
}

void TestFigureFiles::csvNumbers() {
    views::StepPage page(stepNumber(11));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    FigureOptions options;
    options.format = FigureFormat::Csv;
    const QString path = dir.filePath("scores.csv");
    QString error;
    QVERIFY2(exportFigure({&page, "masked-scores"}, path, options, &error), qPrintable(error));
    const QByteArray csv = readFile(path);
    QVERIFY(csv.endsWith("\r\n"));
    const QList<QByteArray> lines = csv.trimmed().split('\n');
    QCOMPARE(lines.size(), 7);
    QCOMPARE(lines[0].trimmed(), QByteArray(",Your,journey,starts,with,one,step"));
    const attn::StepMatrix* m = stepNumber(11).find("masked-scores");
    int negInf = 0;
    for (int r = 0; r < 6; ++r) {
        const QList<QByteArray> fields = lines[r + 1].trimmed().split(',');
        QCOMPARE(fields.size(), 7);
        QCOMPARE(QString::fromUtf8(fields[0]),
                 QString::fromStdString(m->row_labels[static_cast<std::size_t>(r)]));
        for (int c = 0; c < 6; ++c) {
            const QByteArray& f = fields[c + 1];
            if (c > r) {
                QCOMPARE(f, QByteArray("-inf"));
                ++negInf;
                continue;
            }
            bool ok = false;
            const float v = f.toFloat(&ok);
            QVERIFY2(ok, f.constData());
            QCOMPARE(v, m->values(r, c));  // bit for bit: the shortest digits read back exactly
        }
    }
    QCOMPARE(negInf, 15);
    // The tutorial's first score, as printed: 0.3111.
    QCOMPARE(QString::number(lines[1].split(',')[1].toDouble(), 'f', 4), QString("0.3111"));
}

void TestFigureFiles::csvQuoting() {
    views::HeatmapWidget map;
    attn::Matrix values(2, 2);
    values << 1.0e-7f, std::numeric_limits<float>::quiet_NaN(),
        -std::numeric_limits<float>::infinity(), -0.25f;
    map.setMatrix(values, {"a,b", "say \"hi\""}, {" x", "你的"});
    QCOMPARE(views::matrixCsv(map), QByteArray(",\" x\",你的\r\n"
                                               "\"a,b\",1e-07,nan\r\n"
                                               "\"say \"\"hi\"\"\",-inf,-0.25\r\n"));
}

void TestFigureFiles::existingFileRefused_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<QByteArray>("magic");  // how the new file starts
    QTest::newRow("png") << "png" << QByteArray("\x89PNG");
    QTest::newRow("svg") << "svg" << QByteArray("<?xml");
    QTest::newRow("pdf") << "pdf" << QByteArray("%PDF-");
    QTest::newRow("csv") << "csv" << QByteArray(",Your");
}

void TestFigureFiles::existingFileRefused() {
    QFETCH(QString, format);
    QFETCH(QByteArray, magic);
    views::StepPage page(stepNumber(11));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("step-11-causal-weights." + format);
    QVERIFY(writeFile(path, "keep me"));
    FigureOptions options;
    options.format = *views::figureFormatFromName(format);
    QString error;
    QVERIFY(!exportFigure({&page, "causal-weights"}, path, options, &error));
    QVERIFY2(error.contains(QDir::toNativeSeparators(path)), qPrintable(error));
    QVERIFY2(error.contains("already exists"), qPrintable(error));
    QCOMPARE(readFile(path), QByteArray("keep me"));

    options.overwrite = true;
    QVERIFY2(exportFigure({&page, "causal-weights"}, path, options, &error), qPrintable(error));
    QVERIFY(readFile(path).startsWith(magic));
    QCOMPARE(folderEntries(dir.path()), QStringList{"step-11-causal-weights." + format});
}

void TestFigureFiles::failedBatchLeavesFolderAsFound_data() {
    QTest::addColumn<QString>("problem");
    QTest::addColumn<QString>("message");  // part of the error
    QTest::newRow("an existing file") << "existing"
                                      << "already exists";
    QTest::newRow("a folder where the last figure goes") << "blocked"
                                                         << "is a folder";
    QTest::newRow("the folder is a file") << "file"
                                          << "is a file, not a folder";
    QTest::newRow("the folder's parent is a file") << "under-file"
                                                   << "Could not create the folder";
}

// Root can write into read-only folders, so the failures are made with paths no one can write.
void TestFigureFiles::failedBatchLeavesFolderAsFound() {
    QFETCH(QString, problem);
    QFETCH(QString, message);
    views::StepPage page(stepNumber(11));
    QTemporaryDir root;
    QVERIFY(root.isValid());
    QString dir = root.filePath("figures");
    QVERIFY(QDir().mkpath(dir));
    FigureOptions options;
    if (problem == "existing") {
        QVERIFY(writeFile(QDir(dir).filePath("step-11-causal-weights.png"), "keep me"));
    } else if (problem == "blocked") {
        // The last figure of the step cannot be written: the four before it must go again.
        QVERIFY(QDir(dir).mkdir("step-11-method-difference.png"));
        options.overwrite = true;
    } else if (problem == "file") {
        QVERIFY(QDir(dir).removeRecursively());
        QVERIFY(writeFile(dir, "not a folder"));
    } else {
        QVERIFY(QDir(dir).removeRecursively());
        QVERIFY(writeFile(dir, "not a folder"));
        dir += "/sub";
    }
    const QStringList before = folderEntries(root.path());
    const QStringList beforeInside = folderEntries(dir);
    QStringList written{"stale"};
    QString error;
    QVERIFY(!exportFigures(views::pageFigures(page), dir, options, &written, &error));
    QVERIFY2(error.contains(message), qPrintable(error));
    QVERIFY(written.isEmpty());
    QCOMPARE(folderEntries(root.path()), before);
    QCOMPARE(folderEntries(dir), beforeInside);
    if (problem == "existing")
        QCOMPARE(readFile(QDir(dir).filePath("step-11-causal-weights.png")), QByteArray("keep me"));
    if (problem == "blocked") QVERIFY2(error.contains("removed again"), qPrintable(error));
}

QTEST_MAIN(TestFigureFiles)
#include "test_figure_files.moc"
