// The heatmap's figures for export: the SVG and PDF bytes it renders hold the cells and labels as
// text; saved through app/io a figure is a complete file or nothing; and the figures a person
// looks at (written into ATTN_VIEWS_SHOTS_DIR) show what they should: their size, the title, and
// cells in the colour map's colour for their values.
#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>
#include <cmath>
#include <limits>

#include "app/io/file_batch.h"
#include "heatmap_test_data.h"
#include "image_checks.h"
#include "pdf_tools.h"
#include "tests/test_files.h"
#include "views/colormaps.h"
#include "views/heatmap_widget.h"

using attn::Matrix;
using views::HeatmapWidget;

namespace {

QString shotsFolder() {
    return qEnvironmentVariable("ATTN_VIEWS_SHOTS_DIR", QDir::temp().filePath("views-shots"));
}

// Where the plot drew the text element showing `text` (title or note), in logical pixels; empty
// if no element shows it.
QRect textElementRect(const HeatmapWidget& widget, const QString& text) {
    QCPLayoutGrid* grid = widget.plot()->plotLayout();
    for (int i = 0; i < grid->elementCount(); ++i)
        if (auto* element = qobject_cast<QCPTextElement*>(grid->elementAt(i)))
            if (element->visible() && element->text() == text) return element->outerRect();
    return {};
}

// The colour of cell (row, column) in `image` (drawn at `scale` pixels per logical pixel), taken
// above the centred number, against the colour the map gives the cell's value.
QString cellColorProblem(const HeatmapWidget& widget, const QImage& image, int row, int column,
                         double scale = 1.0) {
    const QPointF centre = widget.cellCenter(row, column);
    const double h = widget.cellCenter(1, 0).y() - widget.cellCenter(0, 0).y();
    const QPoint pixel = ((centre - QPointF(0, 0.35 * h)) * scale).toPoint();
    const double fraction = (widget.inputValue(row, column) - widget.rangeLower()) /
                            (widget.rangeUpper() - widget.rangeLower());
    const QColor expected = views::colormap::colorAt(widget.colorMapName(), fraction);
    const QColor actual = image.pixelColor(pixel);
    if (sameColor(actual, expected, 8)) return {};
    return QStringLiteral("cell %1,%2 at %3,%4 is %5, the map gives %6")
        .arg(row)
        .arg(column)
        .arg(pixel.x())
        .arg(pixel.y())
        .arg(actual.name(), expected.name());
}

}  // namespace

class TestHeatmapFigures : public QObject {
    Q_OBJECT

private slots:
    void svgFigure();
    void pdfFigure();
    void failedSaveLeavesNothing_data();
    void failedSaveLeavesNothing();
    void saveShots();
};

void TestHeatmapFigures::svgFigure() {
    HeatmapWidget widget;
    widget.setTitle("cross-attention weights");
    widget.setMatrix(crossWeights(), kTokens, kChineseTokens);
    QString reason;
    const QByteArray bytes = widget.renderSvg(QSize(640, 520), &reason);
    QVERIFY2(!bytes.isEmpty(), qPrintable(reason));
    QXmlStreamReader xml(bytes);
    QString root;
    int textElements = 0;
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement) continue;
        if (root.isEmpty()) root = xml.name().toString();
        if (xml.name() == QLatin1String("text")) ++textElements;
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QCOMPARE(root, QString("svg"));
    const QString text = QString::fromUtf8(bytes);
    for (const QString& token : kTokens + kChineseTokens)
        QVERIFY2(text.contains(token), qPrintable(token));
    QVERIFY(text.contains("cross-attention weights"));
    // Every cell value is text, so the figure stays vector and searchable: 6×4 cells + labels.
    QVERIFY2(textElements >= 24 + 10, qPrintable(QString::number(textElements)));
    // And it draws back into a real picture (saved beside the shots for a look by eye).
    QSvgRenderer renderer(bytes);
    QVERIFY(renderer.isValid());
    // Coordinates are the logical pixels of the layout (width/height are written in mm at
    // 96 dpi, which browsers read back as 640×520 px).
    QCOMPARE(renderer.viewBox(), QRect(0, 0, 640, 520));
    QImage image(QSize(640, 520), QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    renderer.render(&painter);
    painter.end();
    QVERIFY(distinctColors(image) >= 20);
    // The SVG was laid out at 640×520 like the image, so the widget's cell centres hold for it.
    for (const auto& [r, c] : {std::pair{0, 0}, std::pair{2, 3}, std::pair{5, 1}}) {
        const QString problem = cellColorProblem(widget, image, r, c);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
    QVERIFY(darkPixels(image, textElementRect(widget, "cross-attention weights")) > 50);
    const QString folder = shotsFolder();
    QVERIFY(QDir().mkpath(folder));
    QVERIFY(image.save(QDir(folder).filePath("h-svg-rendered-back.png")));
    QVERIFY(writeFile(QDir(folder).filePath("h-cross.svg"), bytes));
}

void TestHeatmapFigures::pdfFigure() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    HeatmapWidget widget;
    widget.setMatrix(causalScores(), kTokens, kTokens, causalBlocked(6),
                     -std::numeric_limits<double>::infinity());
    QString reason;
    const QByteArray bytes = widget.renderPdf(QSize(600, 480), &reason);
    QVERIFY2(!bytes.isEmpty(), qPrintable(reason));
    QVERIFY(bytes.startsWith("%PDF-"));
    QVERIFY(bytes.trimmed().endsWith("%%EOF"));
    QVERIFY(bytes.size() > 2000);
    const QString path = dir.filePath("masked.pdf");
    QString error;
    QVERIFY2(attn::saveFile(path, "PDF", bytes, false, &error), qPrintable(error));
    QCOMPARE(readFile(path), bytes);
    // Nothing else was left in the folder (no temporary file).
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList({"masked.pdf"}));
    // One page of one point per logical pixel, with the labels and the cells' numbers as text.
    const QString info = pdfInfo(path);
    QVERIFY2(info.contains(QRegularExpression("Pages:\\s+1\\n")), qPrintable(info));
    QVERIFY2(info.contains(QRegularExpression("Page size:\\s+600 x 480 pts")), qPrintable(info));
    const QString text = pdfText(path);
    for (const QString& token : kTokens) QVERIFY2(text.contains(token), qPrintable(text));
    QVERIFY2(text.contains(widget.cellText(1, 0)), qPrintable(text));
    const QString folder = shotsFolder();
    QVERIFY(QDir().mkpath(folder));
    QVERIFY(writeFile(QDir(folder).filePath("i-masked.pdf"), bytes));
}

void TestHeatmapFigures::failedSaveLeavesNothing_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("where");
    for (const char* format : {"png", "svg", "pdf"}) {
        QTest::addRow("%s, missing folder", format) << format << "missing";
        QTest::addRow("%s, folder is a file", format) << format << "file";
    }
}

void TestHeatmapFigures::failedSaveLeavesNothing() {
    QFETCH(QString, format);
    QFETCH(QString, where);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // Both fail for root too (unlike a read-only folder, which root can write).
    QString folder = dir.filePath("no-such-folder");
    if (where == "file") {
        folder = dir.filePath("plain-file");
        QVERIFY(writeFile(folder, "not a folder"));
    }
    const QString path = folder + "/figure." + format;
    HeatmapWidget widget;
    widget.setMatrix(tutorialWeights(), kTokens, kTokens);
    QByteArray bytes;
    if (format == "png") bytes = widget.renderPng(QSize(300, 200), 1.0, false);
    if (format == "svg") bytes = widget.renderSvg(QSize(300, 200));
    if (format == "pdf") bytes = widget.renderPdf(QSize(300, 200));
    QVERIFY(!bytes.isEmpty());
    QString error;
    QVERIFY(!attn::saveFile(path, format.toUpper(), bytes, false, &error));
    QVERIFY2(error.contains(QDir::toNativeSeparators(path)), qPrintable(error));
    QVERIFY2(error.contains("does not exist"), qPrintable(error));  // the reason
    QVERIFY(!QFileInfo::exists(path));
    // Only what the test made is in the temporary folder: no half-written file anywhere.
    const QStringList expected = where == "file" ? QStringList{"plain-file"} : QStringList{};
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), expected);
}

// Writes the figures a person should look at (to look at, as a person would) into
// ATTN_VIEWS_SHOTS_DIR (set by CMake to the build folder), and checks what each shows.
void TestHeatmapFigures::saveShots() {
    const QString folder = shotsFolder();
    QVERIFY(QDir().mkpath(folder));
    const double negInf = -std::numeric_limits<double>::infinity();
    struct Shot {
        QString file;
        QString title;
        Matrix values;
        QStringList columns;
        attn::BoolMatrix blocked;
        std::optional<double> fill;
        QString colorMap;
        bool unitRange;
    };
    const Matrix weights = tutorialWeights();
    const std::vector<Shot> shots = {
        {"a-attn-weights.png",
         "attn_weights = softmax(inputs @ inputs.T)",
         weights,
         kTokens,
         {},
         std::nullopt,
         "viridis",
         true},
        {"b-causal-masked-scores.png", "masked_fill(mask, −∞)", causalScores(), kTokens,
         causalBlocked(6), negInf, "viridis", false},
        {"c-diverging-scores.png",
         "signed scores (diverging, centred on 0)",
         signedScores(),
         kTokens,
         {},
         std::nullopt,
         "diverging",
         false},
        {"d-cross-attention-zh.png",
         "cross-attention: English queries, Chinese keys",
         crossWeights(),
         kChineseTokens,
         {},
         std::nullopt,
         "viridis",
         true},
        {"e-masked-weights.png", "causal attn_weights (masked cells 0)",
         softmaxRows(causalScores()), kTokens, causalBlocked(6), std::nullopt, "cividis", true},
    };
    for (const Shot& shot : shots) {
        HeatmapWidget widget;
        widget.setTitle(shot.title);
        widget.setAxisTitles("queries", "keys");
        QVERIFY(widget.setColorMap(shot.colorMap));
        widget.setMatrix(shot.values, kTokens, shot.columns, shot.blocked, shot.fill);
        if (shot.unitRange) widget.setValueRange(0, 1);
        if (shot.file.startsWith("a")) widget.highlightCell(1, 2);
        const QString path = QDir(folder).filePath(shot.file);
        QString reason;
        const QByteArray png = widget.renderPng(widget.preferredSize(), 1.0, false, &reason);
        QVERIFY2(!png.isEmpty(), qPrintable(reason));
        QVERIFY(writeFile(path, png));
        QImage image(path);
        QCOMPARE(image.size(), widget.preferredSize());
        QVERIFY(distinctColors(image) >= 20);
        QVERIFY(widget.valuesVisible());
        QVERIFY2(darkPixels(image, textElementRect(widget, shot.title)) > 50, qPrintable(path));
        // The last row is unmasked in every shot; its cells take the map's colour.
        for (int c = 0; c < widget.columnCount(); ++c) {
            const QString problem = cellColorProblem(widget, image, widget.rowCount() - 1, c);
            QVERIFY2(problem.isEmpty(), qPrintable(shot.file + ": " + problem));
        }
    }
    // The widget itself on the (offscreen) screen, in presentation scale, hovered and highlighted.
    {
        HeatmapWidget shown;
        shown.setTitle("on screen, scale 1.5");
        shown.setScale(1.5);
        shown.setMatrix(weights, kTokens, kTokens);
        shown.setValueRange(0, 1);
        shown.highlightRow(1);
        shown.resize(QSize(900, 640));
        shown.show();
        QVERIFY(QTest::qWaitForWindowExposed(&shown));
        shown.plot()->replot(QCustomPlot::rpImmediateRefresh);
        const QImage grabbed = shown.grab().toImage();
        QCOMPARE(grabbed.size(), QSize(900, 640));
        QVERIFY(distinctColors(grabbed) >= 20);
        QVERIFY(grabbed.save(QDir(folder).filePath("j-onscreen-scale-1.5.png")));
        QVERIFY(shown.valuesVisible());
        QVERIFY(darkPixels(grabbed, textElementRect(shown, "on screen, scale 1.5")) > 50);
        const QString problem = cellColorProblem(shown, grabbed, 4, 3);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
    // A big matrix: values hidden, and the figure says so.
    HeatmapWidget widget;
    widget.setTitle("64×64 weights");
    widget.setMatrix(softmaxRows(Matrix::Random(64, 64) * 3.0f));
    const QString path = QDir(folder).filePath("f-64x64-hidden-values.png");
    QVERIFY(writeFile(path, widget.renderPng(QSize(700, 620), 1.0, false)));
    QVERIFY(!widget.valuesVisible());
    const QImage big(path);
    QCOMPARE(big.size(), QSize(700, 620));
    QVERIFY(darkPixels(big, textElementRect(widget, "64×64 weights")) > 50);
    QVERIFY(!textElementRect(widget, widget.subtitle()).isEmpty());
    for (const auto& [r, c] : {std::pair{0, 0}, std::pair{31, 40}, std::pair{63, 63}}) {
        // Cells too small for the number: the centre is the cell's colour.
        const QPoint pixel = widget.cellCenter(r, c).toPoint();
        const double fraction = (widget.inputValue(r, c) - widget.rangeLower()) /
                                (widget.rangeUpper() - widget.rangeLower());
        QVERIFY(sameColor(big.pixelColor(pixel), views::colormap::colorAt("viridis", fraction), 8));
    }
    // At 2× a figure has twice the pixels and the same layout, sharp for print.
    widget.setTitle("attn_weights at 2×");
    widget.setMatrix(weights, kTokens, kTokens);
    const QString twice = QDir(folder).filePath("g-attn-weights-2x.png");
    QVERIFY(writeFile(twice, widget.renderPng(QSize(560, 440), 2.0, false)));
    const QImage sharp(twice);
    QCOMPARE(sharp.size(), QSize(1120, 880));
    for (int c = 0; c < 6; ++c) {
        const QString problem = cellColorProblem(widget, sharp, 2, c, 2.0);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
    const QRect title = textElementRect(widget, "attn_weights at 2×");
    QVERIFY(darkPixels(sharp, QRect(title.topLeft() * 2, title.size() * 2)) > 200);
}

QTEST_MAIN(TestHeatmapFigures)
#include "test_heatmap_figures.moc"
