// The reusable heatmap: what it draws, how it maps the mouse to cells, how it
// fits its text to the cell size, and the images it renders. Its figure files (SVG, PDF, the
// shots for a look by eye) are in test_heatmap_figures.cpp.
#include <qcustomplot.h>

#include <QSignalSpy>
#include <QTest>
#include <cmath>
#include <limits>

#include "heatmap_test_data.h"
#include "image_checks.h"
#include "views/colormaps.h"
#include "views/heatmap_widget.h"

using attn::Matrix;
using views::HeatmapWidget;

Q_DECLARE_METATYPE(attn::Matrix)

namespace {

// Lays the widget out on the offscreen screen so pixel <-> cell mapping is defined.
void showAndLayOut(HeatmapWidget& widget, QSize size) {
    widget.resize(size);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    widget.plot()->replot(QCustomPlot::rpImmediateRefresh);
}

}  // namespace

class TestHeatmap : public QObject {
    Q_OBJECT

private slots:
    void colormapEndpoints_data();
    void colormapEndpoints();
    void readableTextColor_data();
    void readableTextColor();

    void cellDataEqualsMatrix();
    void rowZeroDrawnAtTop();
    void labels();
    void badInputThrows();
    void maskedCells_data();
    void maskedCells();
    void ranges();
    void divergingRangeIsSymmetric();
    void cellTextColorOnViridisEnds();
    void mouseMapping_data();
    void mouseMapping();
    void mouseOutsideMatrix();
    void tooltipProvider();
    void highlights();
    void valuesHiddenWhenCellsTooSmall();
    void hiddenWidgetLaysOutWhenShown();
    void longNoteShortenedInSmallHeatmaps();
    void sameMatrixAgainKeepsHighlights();
    void scaleGrowsFonts();
    void renderImageSize_data();
    void renderImageSize();
    void transparentBackground();
};

void TestHeatmap::colormapEndpoints_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QColor>("low");
    QTest::addColumn<QColor>("middle");
    QTest::addColumn<QColor>("high");
    // matplotlib's published entries 0, 128, 255; RdBu's ends and its near-white centre.
    QTest::newRow("viridis") << "viridis" << QColor(0x440154) << QColor(0x21918c)
                             << QColor(0xfde725);
    QTest::newRow("cividis") << "cividis" << QColor(0x00224e) << QColor(0x7d7c78)
                             << QColor(0xfee838);
    QTest::newRow("magma") << "magma" << QColor(0x000004) << QColor(0xb73779) << QColor(0xfcfdbf);
    QTest::newRow("diverging") << "diverging" << QColor(0x053061) << QColor(0xf7f7f7)
                               << QColor(0x67001f);
}

void TestHeatmap::colormapEndpoints() {
    QFETCH(QString, name);
    QFETCH(QColor, low);
    QFETCH(QColor, middle);
    QFETCH(QColor, high);
    QVERIFY(views::colormap::isKnown(name));
    QCOMPARE(views::colormap::colorAt(name, 0.0), low);
    QCOMPARE(views::colormap::colorAt(name, 1.0), high);
    // 128/255 is a stop for the sampled maps; 0.5 is RdBu's centre stop. ±1 for rounding.
    const double mid = name == "diverging" ? 0.5 : 128.0 / 255.0;
    QVERIFY(sameColor(views::colormap::colorAt(name, mid), middle, 1));
    // The QCustomPlot gradient (what the colour map draws) agrees with the stops.
    QCPColorGradient gradient = views::colormap::gradient(name);
    QVERIFY(sameColor(QColor::fromRgba(gradient.color(0.0, QCPRange(0, 1))), low, 1));
    QVERIFY(sameColor(QColor::fromRgba(gradient.color(1.0, QCPRange(0, 1))), high, 1));
    QVERIFY(sameColor(QColor::fromRgba(gradient.color(mid, QCPRange(0, 1))), middle, 3));
    QCOMPARE(gradient.nanHandling(), QCPColorGradient::nhNanColor);
}

void TestHeatmap::readableTextColor_data() {
    QTest::addColumn<QColor>("background");
    QTest::addColumn<QColor>("expected");
    QTest::newRow("viridis low (dark purple)") << QColor(0x440154) << QColor(Qt::white);
    QTest::newRow("viridis high (yellow)") << QColor(0xfde725) << QColor(Qt::black);
    QTest::newRow("viridis middle (teal)") << QColor(0x21918c) << QColor(Qt::black);
    QTest::newRow("magma low (black)") << QColor(0x000004) << QColor(Qt::white);
    QTest::newRow("diverging centre (white)") << QColor(0xf7f7f7) << QColor(Qt::black);
    QTest::newRow("diverging low (navy)") << QColor(0x053061) << QColor(Qt::white);
    QTest::newRow("diverging high (dark red)") << QColor(0x67001f) << QColor(Qt::white);
    QTest::newRow("masked grey") << views::colormap::maskedColor() << QColor(Qt::black);
}

void TestHeatmap::readableTextColor() {
    QFETCH(QColor, background);
    QFETCH(QColor, expected);
    QCOMPARE(views::colormap::readableTextColor(background), expected);
}

void TestHeatmap::cellDataEqualsMatrix() {
    const Matrix weights = tutorialWeights();
    HeatmapWidget widget;
    widget.setMatrix(weights, kTokens, kTokens);
    QCOMPARE(widget.rowCount(), 6);
    QCOMPARE(widget.columnCount(), 6);
    QCPColorMapData* data = widget.colorMap()->data();
    QCOMPARE(data->keySize(), 6);
    QCOMPARE(data->valueSize(), 6);
    for (int r = 0; r < 6; ++r) {
        for (int c = 0; c < 6; ++c) {
            QCOMPARE(widget.cellValue(r, c), static_cast<double>(weights(r, c)));
            QCOMPARE(widget.cellKind(r, c), HeatmapWidget::CellKind::Value);
        }
    }
    // The tutorial prints the row of "journey" (In [3]): tensor([0.1385, 0.2379, 0.2333, ...]).
    const QStringList printed = {"0.1385", "0.2379", "0.2333", "0.1240", "0.1082", "0.1581"};
    for (int c = 0; c < 6; ++c) QCOMPARE(widget.cellText(1, c), printed.at(c));
    QCOMPARE(widget.colorMap()->interpolate(), false);
    QCOMPARE(widget.colorMapName(), QString("viridis"));
    QCOMPARE(widget.decimals(), 4);
    widget.setDecimals(2);
    QCOMPARE(widget.cellText(1, 1), QString("0.24"));
}

void TestHeatmap::rowZeroDrawnAtTop() {
    // A matrix whose rows differ strongly: row 0 all 0 (dark), row 3 all 1 (yellow).
    Matrix m(4, 3);
    m << 0, 0, 0, 0.3f, 0.3f, 0.3f, 0.6f, 0.6f, 0.6f, 1, 1, 1;
    HeatmapWidget widget;
    widget.setMatrix(m);
    widget.setValueRange(0, 1);
    widget.setShowValues(false);  // sample the cell colour, not its text
    const QImage image = widget.renderImage(QSize(400, 400), 1.0, false);
    // The render laid the plot out at 400×400; cell centres refer to that layout.
    const QPointF top = widget.cellCenter(0, 1);
    const QPointF bottom = widget.cellCenter(3, 1);
    QVERIFY2(top.y() < bottom.y(), "row 0 must be above row 3 (y axis reversed)");
    QVERIFY(widget.plot()->yAxis->rangeReversed());
    const QColor topPixel = image.pixelColor(top.toPoint());
    const QColor bottomPixel = image.pixelColor(bottom.toPoint());
    QVERIFY2(sameColor(topPixel, QColor(0x440154), 3), qPrintable(topPixel.name()));
    QVERIFY2(sameColor(bottomPixel, QColor(0xfde725), 3), qPrintable(bottomPixel.name()));
    QVERIFY(sameColor(widget.cellColor(0, 0), topPixel, 3));
}

void TestHeatmap::labels() {
    HeatmapWidget widget;
    widget.setMatrix(crossWeights(), kTokens, kChineseTokens);
    QCOMPARE(widget.rowLabels(), kTokens);
    QCOMPARE(widget.columnLabels(), kChineseTokens);
    const auto rowTicker = widget.plot()->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
    const auto columnTicker = widget.plot()->xAxis2->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(rowTicker && columnTicker);
    QCOMPARE(rowTicker->ticks().values(), kTokens);
    QCOMPARE(rowTicker->ticks().keys(), QList<double>({0, 1, 2, 3, 4, 5}));
    QCOMPARE(columnTicker->ticks().values(), kChineseTokens);
    QVERIFY(widget.plot()->xAxis2->visible());  // column labels on top by default

    widget.setMatrix(Matrix::Zero(2, 3));  // no labels: 1-based numbers as in x^(1)
    QCOMPARE(widget.rowLabels(), QStringList({"1", "2"}));
    QCOMPARE(widget.columnLabels(), QStringList({"1", "2", "3"}));
}

void TestHeatmap::badInputThrows() {
    HeatmapWidget widget;
    QVERIFY_THROWS_EXCEPTION(attn::AttentionError,
                             widget.setMatrix(Matrix::Zero(2, 2), {"a"}, {"b", "c"}));
    QVERIFY_THROWS_EXCEPTION(attn::AttentionError,
                             widget.setMatrix(Matrix::Zero(2, 2), {}, {}, causalBlocked(3)));
    QVERIFY_THROWS_EXCEPTION(attn::AttentionError, widget.setValueRange(1, 1));
    QVERIFY(!widget.setColorMap("jet"));
    QCOMPARE(widget.colorMapName(), QString("viridis"));
}

void TestHeatmap::maskedCells_data() {
    QTest::addColumn<Matrix>("values");
    QTest::addColumn<bool>("withMask");
    QTest::addColumn<double>("fill");  // NaN = no fill given
    QTest::addColumn<QString>("maskedText");

    Matrix filled = causalScores();
    Matrix bert = filled;
    Matrix weights = softmaxRows(filled);
    for (Eigen::Index r = 0; r < 6; ++r)
        for (Eigen::Index c = r + 1; c < 6; ++c) bert(r, c) = -1e9f;
    const double noFill = std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("-inf fill, mask given")
        << filled << true << -std::numeric_limits<double>::infinity() << kMinusInfinity;
    QTest::newRow("-inf values, no mask") << filled << false << noFill << kMinusInfinity;
    QTest::newRow("BERT -1e9 fill") << bert << true << -1e9 << QString("-1e9");
    QTest::newRow("masked weights show 0") << weights << true << noFill << QString("0.0000");
}

void TestHeatmap::maskedCells() {
    QFETCH(Matrix, values);
    QFETCH(bool, withMask);
    QFETCH(double, fill);
    QFETCH(QString, maskedText);
    HeatmapWidget widget;
    widget.setMatrix(values, kTokens, kTokens, withMask ? causalBlocked(6) : attn::BoolMatrix(),
                     std::isnan(fill) ? std::nullopt : std::optional<double>(fill));
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (int r = 0; r < 6; ++r) {
        for (int c = 0; c < 6; ++c) {
            if (c > r) {
                QCOMPARE(widget.cellKind(r, c), HeatmapWidget::CellKind::Masked);
                QCOMPARE(widget.cellText(r, c), maskedText);
                QVERIFY(std::isnan(widget.cellValue(r, c)));  // no colour from the map
                QCOMPARE(widget.cellColor(r, c), views::colormap::maskedColor());
            } else {
                QCOMPARE(widget.cellKind(r, c), HeatmapWidget::CellKind::Value);
                QCOMPARE(widget.cellValue(r, c), static_cast<double>(values(r, c)));
                lo = std::min(lo, static_cast<double>(values(r, c)));
                hi = std::max(hi, static_cast<double>(values(r, c)));
            }
        }
    }
    // Masked cells are excluded from the colour range (a -1e9 fill would pull it down) and the
    // colour scale shows that range; non-negative values start at 0.
    lo = std::min(lo, 0.0);
    QCOMPARE(widget.rangeLower(), lo);
    QCOMPARE(widget.rangeUpper(), hi);
    QCOMPARE(widget.colorScale()->dataRange().lower, lo);
    QCOMPARE(widget.colorScale()->dataRange().upper, hi);
}

void TestHeatmap::ranges() {
    const Matrix weights = tutorialWeights();
    HeatmapWidget widget;
    widget.setMatrix(weights, kTokens, kTokens);
    QVERIFY(widget.isAutoRange());
    QVERIFY(weights.minCoeff() > 0.0f);  // so the auto range starts at 0, not at the minimum
    QCOMPARE(widget.rangeLower(), 0.0);
    QCOMPARE(widget.rangeUpper(), static_cast<double>(weights.maxCoeff()));
    widget.setValueRange(0, 1);
    QVERIFY(!widget.isAutoRange());
    QCOMPARE(widget.rangeLower(), 0.0);
    QCOMPARE(widget.rangeUpper(), 1.0);
    QCOMPARE(widget.colorMap()->dataRange().upper, 1.0);
    QCOMPARE(widget.colorScale()->dataRange().lower, 0.0);
    widget.setMatrix(weights * 0.5f);  // a fixed range survives new data
    QCOMPARE(widget.rangeUpper(), 1.0);
    widget.setAutoRange();
    QCOMPARE(widget.rangeUpper(), static_cast<double>((weights * 0.5f).maxCoeff()));

    // NaN cells: neutral colour, "NaN", outside the range.
    Matrix withNaN(1, 3);
    withNaN << -0.25f, std::numeric_limits<float>::quiet_NaN(), 0.75f;
    widget.setMatrix(withNaN);
    QCOMPARE(widget.cellKind(0, 1), HeatmapWidget::CellKind::NaN);
    QCOMPARE(widget.cellText(0, 1), QString("NaN"));
    QCOMPARE(widget.cellColor(0, 1), views::colormap::nanColor());
    QCOMPARE(widget.rangeLower(), -0.25);
    QCOMPARE(widget.rangeUpper(), 0.75);
}

void TestHeatmap::divergingRangeIsSymmetric() {
    const Matrix scores = signedScores();
    QVERIFY(scores.minCoeff() < 0 && scores.maxCoeff() > 0);
    HeatmapWidget widget;
    QVERIFY(widget.setColorMap("diverging"));
    widget.setMatrix(scores, kTokens, kTokens);
    const double m = std::max(std::abs(static_cast<double>(scores.minCoeff())),
                              std::abs(static_cast<double>(scores.maxCoeff())));
    QCOMPARE(widget.rangeLower(), -m);
    QCOMPARE(widget.rangeUpper(), m);
    QCOMPARE(widget.colorScale()->dataRange().lower, -m);
    // A zero cell is the map's white centre.
    Matrix zeroCentre(1, 3);
    zeroCentre << -2.0f, 0.0f, 1.0f;
    widget.setMatrix(zeroCentre);
    QCOMPARE(widget.rangeLower(), -2.0);
    QCOMPARE(widget.rangeUpper(), 2.0);
    QVERIFY(sameColor(widget.cellColor(0, 1), QColor(0xf7f7f7), 3));
}

void TestHeatmap::cellTextColorOnViridisEnds() {
    Matrix ends(1, 2);
    ends << 0.0f, 1.0f;
    HeatmapWidget widget;
    widget.setMatrix(ends);
    widget.setValueRange(0, 1);
    QVERIFY(sameColor(widget.cellColor(0, 0), QColor(0x440154), 2));
    QVERIFY(sameColor(widget.cellColor(0, 1), QColor(0xfde725), 2));
    QCOMPARE(widget.cellTextColor(0, 0), QColor(Qt::white));
    QCOMPARE(widget.cellTextColor(0, 1), QColor(Qt::black));
}

void TestHeatmap::mouseMapping_data() {
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("column");
    QTest::newRow("top-left") << 0 << 0;
    QTest::newRow("inner") << 2 << 3;
    QTest::newRow("bottom-right") << 5 << 5;
    QTest::newRow("last row, first column") << 5 << 0;
}

void TestHeatmap::mouseMapping() {
    QFETCH(int, row);
    QFETCH(int, column);
    HeatmapWidget widget;
    widget.setMatrix(tutorialWeights(), kTokens, kTokens);
    showAndLayOut(widget, QSize(640, 480));
    QCustomPlot* plot = widget.plot();
    // Pixel of the cell centre and of a point near its corner, through the plot's own axes.
    const QPoint centre(qRound(plot->xAxis->coordToPixel(column)),
                        qRound(plot->yAxis->coordToPixel(row)));
    const QPoint nearCorner(qRound(plot->xAxis->coordToPixel(column - 0.4)),
                            qRound(plot->yAxis->coordToPixel(row + 0.4)));
    QCOMPARE(widget.cellAt(centre), std::optional(std::pair(row, column)));
    QCOMPARE(widget.cellAt(nearCorner), std::optional(std::pair(row, column)));

    QSignalSpy hovered(&widget, &HeatmapWidget::cellHovered);
    QSignalSpy clicked(&widget, &HeatmapWidget::cellClicked);
    QTest::mouseMove(plot, centre);
    QTRY_COMPARE(hovered.count(), 1);
    QCOMPARE(hovered.at(0).at(0).toInt(), row);
    QCOMPARE(hovered.at(0).at(1).toInt(), column);
    QTest::mouseClick(plot, Qt::LeftButton, {}, centre);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).toInt(), row);
    QCOMPARE(clicked.at(0).at(1).toInt(), column);
}

void TestHeatmap::mouseOutsideMatrix() {
    HeatmapWidget widget;
    widget.setMatrix(tutorialWeights(), kTokens, kTokens);
    showAndLayOut(widget, QSize(640, 480));
    QCustomPlot* plot = widget.plot();
    const QRect matrix = plot->axisRect()->rect();
    const QList<QPoint> outside = {
        QPoint(2, 2),                                     // corner of the widget
        QPoint(matrix.left() - 5, matrix.center().y()),   // on the row labels
        QPoint(matrix.center().x(), matrix.top() - 5),    // on the column labels
        QPoint(matrix.right() + 8, matrix.center().y()),  // between matrix and colour bar
    };
    QSignalSpy hovered(&widget, &HeatmapWidget::cellHovered);
    QSignalSpy clicked(&widget, &HeatmapWidget::cellClicked);
    for (const QPoint& p : outside) {
        QVERIFY2(!widget.cellAt(p), qPrintable(QString("%1,%2").arg(p.x()).arg(p.y())));
        QTest::mouseMove(plot, p);
        QTest::mouseClick(plot, Qt::LeftButton, {}, p);
    }
    QCoreApplication::processEvents();
    QCOMPARE(hovered.count(), 0);
    QCOMPARE(clicked.count(), 0);
}

void TestHeatmap::tooltipProvider() {
    HeatmapWidget widget;
    widget.setMatrix(tutorialWeights(), kTokens, kTokens);
    QCOMPARE(widget.tooltipText(1, 2), QString("journey → starts: 0.2333"));
    widget.setTooltipProvider(
        [](int r, int c) { return QString("ω%1%2 = q%1 · k%2").arg(r + 1).arg(c + 1); });
    QCOMPARE(widget.tooltipText(1, 2), QString("ω23 = q2 · k3"));
    QCOMPARE(widget.tooltipText(6, 0), QString());  // outside the matrix
}

void TestHeatmap::highlights() {
    HeatmapWidget widget;
    widget.setMatrix(tutorialWeights(), kTokens, kTokens);
    const QImage plain = widget.renderImage(QSize(500, 400), 1.0, false);
    widget.highlightRow(1);
    widget.highlightColumn(2);
    widget.highlightCell(1, 2);
    QCOMPARE(widget.highlightedRow(), std::optional(1));
    QCOMPARE(widget.highlightedColumn(), std::optional(2));
    QCOMPARE(widget.highlightedCell(), std::optional(std::pair(1, 2)));
    const QImage highlighted = widget.renderImage(QSize(500, 400), 1.0, false);
    QVERIFY(plain != highlighted);  // the export shows the highlight
    widget.highlightRow(6);         // out of range: no highlight rather than a stray outline
    QCOMPARE(widget.highlightedRow(), std::nullopt);
    widget.clearHighlight();
    QCOMPARE(widget.highlightedColumn(), std::nullopt);
    QCOMPARE(widget.highlightedCell(), std::nullopt);
    QCOMPARE(widget.renderImage(QSize(500, 400), 1.0, false), plain);
}

void TestHeatmap::valuesHiddenWhenCellsTooSmall() {
    HeatmapWidget widget;
    widget.setMatrix(tutorialWeights(), kTokens, kTokens);
    widget.renderImage(QSize(600, 450), 1.0, false);
    QVERIFY(widget.valuesVisible());
    QCOMPARE(widget.subtitle(), QString());
    const double roomyPx = widget.cellFontPixelSize();
    QCOMPARE(roomyPx, 14.0);  // the largest cell font
    // Smaller cells: the font shrinks, the values stay.
    widget.renderImage(QSize(360, 300), 1.0, false);
    QVERIFY(widget.valuesVisible());
    QVERIFY2(widget.cellFontPixelSize() < roomyPx,
             qPrintable(QString::number(widget.cellFontPixelSize())));

    Matrix big = Matrix::Random(64, 64).cwiseAbs();
    widget.setMatrix(big);
    widget.renderImage(QSize(600, 500), 1.0, false);
    QVERIFY(!widget.valuesVisible());
    QCOMPARE(widget.subtitle(), QString("values hidden: 64×64 too small to label"));
    // The same matrix at poster size has room for its values.
    widget.renderImage(QSize(4000, 3000), 1.0, false);
    QVERIFY(widget.valuesVisible());

    // Values turned off by the page: hidden without a note.
    widget.setMatrix(tutorialWeights());
    widget.setShowValues(false);
    widget.renderImage(QSize(600, 450), 1.0, false);
    QVERIFY(!widget.valuesVisible());
    QCOMPARE(widget.subtitle(), QString());
}

// A heatmap in a hidden tab defers its replot until it is shown (an edit redraws only what
// is on screen); shown, it is laid out for the latest data, and fewer decimals fit a larger font.
void TestHeatmap::hiddenWidgetLaysOutWhenShown() {
    HeatmapWidget widget;
    widget.resize(420, 330);
    widget.setMatrix(tutorialWeights(), kTokens, kTokens);
    QCoreApplication::processEvents();
    widget.show();
    for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
    QVERIFY(widget.valuesVisible());
    const double fourDecimals = widget.cellFontPixelSize();
    QVERIFY2(fourDecimals < 14.0, qPrintable(QString::number(fourDecimals)));
    widget.setDecimals(1);
    for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
    QCOMPARE(widget.cellText(0, 0), QStringLiteral("0.2"));
    QVERIFY2(widget.cellFontPixelSize() > fourDecimals,
             qPrintable(QString::number(widget.cellFontPixelSize())));
}

// In a heads-grid-sized heatmap the note "values hidden: 32×32 too small to label" does not fit
// even at the smallest font: it shows "values hidden" and keeps the whole note as the tooltip.
void TestHeatmap::longNoteShortenedInSmallHeatmaps() {
    HeatmapWidget widget;
    widget.setTitle(QStringLiteral("head 1"));
    widget.setMatrix(Matrix::Constant(32, 32, 1.0f / 32.0f));
    const auto shownNote = [&] {
        QStringList texts;
        for (int i = 0; i < widget.plot()->plotLayout()->elementCount(); ++i)
            if (auto* text =
                    qobject_cast<QCPTextElement*>(widget.plot()->plotLayout()->elementAt(i)))
                texts << text->text();
        return texts;
    };
    widget.renderImage(QSize(200, 180), 1.0, false);
    QCOMPARE(widget.subtitle(), QStringLiteral("values hidden: 32×32 too small to label"));
    QCOMPARE(shownNote(), (QStringList{QStringLiteral("head 1"), QStringLiteral("values hidden")}));
    QCOMPARE(widget.plot()->toolTip(), widget.subtitle());
    // Wide enough: the whole note.
    widget.renderImage(QSize(600, 450), 1.0, false);
    QCOMPARE(shownNote(), (QStringList{QStringLiteral("head 1"), widget.subtitle()}));
}

// Setting the matrix it already shows (W_query after an embedding edit) changes nothing, not even
// the highlights; a changed value, label or mask is drawn anew.
void TestHeatmap::sameMatrixAgainKeepsHighlights() {
    HeatmapWidget widget;
    Matrix w = tutorialWeights();
    w(0, 1) = std::numeric_limits<float>::quiet_NaN();  // NaN cells compare equal bit for bit
    widget.setMatrix(w, kTokens, kTokens);
    widget.highlightRow(2);
    widget.setMatrix(w, kTokens, kTokens);
    QCOMPARE(widget.highlightedRow(), std::optional<int>(2));
    QCOMPARE(widget.cellKind(0, 1), HeatmapWidget::CellKind::NaN);
    QStringList other = kTokens;
    other[5] = QStringLiteral("stride");
    widget.setMatrix(w, other, kTokens);
    QCOMPARE(widget.highlightedRow(), std::nullopt);
    QCOMPARE(widget.rowLabels().at(5), QStringLiteral("stride"));
    widget.highlightRow(2);
    w(3, 3) = 0.5f;
    widget.setMatrix(w, other, kTokens);
    QCOMPARE(widget.highlightedRow(), std::nullopt);
    QCOMPARE(widget.inputValue(3, 3), 0.5);
    attn::BoolMatrix mask = attn::BoolMatrix::Constant(6, 6, false);
    mask(0, 5) = true;
    widget.setMatrix(w, other, kTokens, mask);
    QCOMPARE(widget.cellKind(0, 5), HeatmapWidget::CellKind::Masked);
}

void TestHeatmap::scaleGrowsFonts() {
    HeatmapWidget widget;
    widget.setMatrix(tutorialWeights(), kTokens, kTokens);
    const int bar = widget.colorScale()->barWidth();
    const int tickPx = widget.colorScale()->axis()->tickLabelFont().pixelSize();
    const QSize preferred = widget.preferredSize();
    widget.setScale(2.0);
    QCOMPARE(widget.colorScale()->barWidth(), 2 * bar);
    QCOMPARE(widget.colorScale()->axis()->tickLabelFont().pixelSize(), 2 * tickPx);
    QVERIFY(widget.preferredSize().width() > preferred.width());
}

void TestHeatmap::renderImageSize_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<double>("scale");
    QTest::addColumn<QSize>("pixels");
    QTest::newRow("800x600 x1") << QSize(800, 600) << 1.0 << QSize(800, 600);
    QTest::newRow("400x300 x2.5") << QSize(400, 300) << 2.5 << QSize(1000, 750);
    QTest::newRow("600x450 x4 (print)") << QSize(600, 450) << 4.0 << QSize(2400, 1800);
}

void TestHeatmap::renderImageSize() {
    QFETCH(QSize, size);
    QFETCH(double, scale);
    QFETCH(QSize, pixels);
    HeatmapWidget widget;
    widget.setTitle("attn_weights");
    widget.setMatrix(tutorialWeights(), kTokens, kTokens);
    const QImage image = widget.renderImage(size, scale, false);
    QCOMPARE(image.size(), pixels);
    // Not blank: the viridis cells, the colour bar, text edges.
    QVERIFY2(distinctColors(image) >= 20, qPrintable(QString::number(distinctColors(image))));
}

void TestHeatmap::transparentBackground() {
    HeatmapWidget widget;
    widget.setMatrix(tutorialWeights(), kTokens, kTokens);
    const QImage clear = widget.renderImage(QSize(300, 200), 1.0, true);
    QCOMPARE(qAlpha(clear.pixel(1, 1)), 0);
    const QImage white = widget.renderImage(QSize(300, 200), 1.0, false);
    QCOMPARE(white.pixelColor(1, 1), QColor(Qt::white));
}

QTEST_MAIN(TestHeatmap)
#include "test_heatmap.moc"
