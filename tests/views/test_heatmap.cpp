// The reusable heatmap (#3 "Heatmaps", #5 export): what it draws, how it maps the mouse to cells,
// and that its exports are complete files or nothing.
#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPainter>
#include <QSet>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>
#include <cmath>
#include <limits>

#include "model/examples.h"
#include "views/colormaps.h"
#include "views/heatmap_widget.h"
#include "views/number_format.h"

using attn::HeatmapWidget;
using attn::Matrix;

Q_DECLARE_METATYPE(attn::Matrix)

namespace {

const QStringList kTokens = {"Your", "journey", "starts", "with", "one", "step"};
const QStringList kChineseTokens = {"你的", "旅程", "始于", "一步"};
const QString kMinusInfinity = QStringLiteral("\u2212\u221E");
constexpr float kInf = std::numeric_limits<float>::infinity();

// Plain Eigen, independent of model/ops: softmax over each row, max subtracted first.
Matrix softmaxRows(const Matrix& scores) {
    Matrix out(scores.rows(), scores.cols());
    for (Eigen::Index r = 0; r < scores.rows(); ++r) {
        const float m = scores.row(r).maxCoeff();
        float sum = 0.0f;
        for (Eigen::Index c = 0; c < scores.cols(); ++c) {
            out(r, c) = std::exp(scores(r, c) - m);
            sum += out(r, c);
        }
        out.row(r) /= sum;
    }
    return out;
}

// The tutorial's In [5]: attn_weights = softmax(inputs @ inputs.T, dim=-1).
Matrix tutorialWeights() {
    const Matrix inputs = attn::tutorial_inputs().embeddings;
    const Matrix scores = inputs * inputs.transpose();
    return softmaxRows(scores);
}

// inputs @ inputs.T with the future (j > i) filled with -inf, as masked_fill does.
Matrix causalScores() {
    const Matrix inputs = attn::tutorial_inputs().embeddings;
    Matrix scores = inputs * inputs.transpose();
    for (Eigen::Index r = 0; r < scores.rows(); ++r)
        for (Eigen::Index c = r + 1; c < scores.cols(); ++c) scores(r, c) = -kInf;
    return scores;
}

attn::BoolMatrix causalBlocked(Eigen::Index t) {
    attn::BoolMatrix blocked(t, t);
    for (Eigen::Index r = 0; r < t; ++r)
        for (Eigen::Index c = 0; c < t; ++c) blocked(r, c) = c > r;
    return blocked;
}

// Signed scores: centred embeddings, so dot products fall on both sides of 0.
Matrix signedScores() {
    Matrix inputs = attn::tutorial_inputs().embeddings;
    const attn::RowVector mean = inputs.colwise().mean();
    inputs.rowwise() -= mean;
    return inputs * inputs.transpose() * 10.0f;
}

// Cross-attention: English queries over the Chinese source keys, softmax(q kᵀ / √3).
Matrix crossWeights() {
    const Matrix queries = attn::tutorial_inputs().embeddings;
    const Matrix keys = attn::cross_attention_source().embeddings;
    const Matrix scores = queries * keys.transpose() / std::sqrt(3.0f);
    return softmaxRows(scores);
}

int distinctColors(const QImage& image) {
    QSet<QRgb> colors;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3) colors.insert(image.pixel(x, y));
    return static_cast<int>(colors.size());
}

bool sameColor(const QColor& a, const QColor& b, int tolerance) {
    return std::abs(a.red() - b.red()) <= tolerance &&
           std::abs(a.green() - b.green()) <= tolerance &&
           std::abs(a.blue() - b.blue()) <= tolerance;
}

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
    void numberFormat_data();
    void numberFormat();
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
    void svgExport();
    void pdfExport();
    void failedSaveLeavesNothing_data();
    void failedSaveLeavesNothing();
    void saveShots();
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
    QVERIFY(attn::colormap::isKnown(name));
    QCOMPARE(attn::colormap::colorAt(name, 0.0), low);
    QCOMPARE(attn::colormap::colorAt(name, 1.0), high);
    // 128/255 is a stop for the sampled maps; 0.5 is RdBu's centre stop. ±1 for rounding.
    const double mid = name == "diverging" ? 0.5 : 128.0 / 255.0;
    QVERIFY(sameColor(attn::colormap::colorAt(name, mid), middle, 1));
    // The QCustomPlot gradient (what the colour map draws) agrees with the stops.
    QCPColorGradient gradient = attn::colormap::gradient(name);
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
    QTest::newRow("masked grey") << attn::colormap::maskedColor() << QColor(Qt::black);
}

void TestHeatmap::readableTextColor() {
    QFETCH(QColor, background);
    QFETCH(QColor, expected);
    QCOMPARE(attn::colormap::readableTextColor(background), expected);
}

void TestHeatmap::numberFormat_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<int>("decimals");
    QTest::addColumn<QString>("number");
    QTest::addColumn<QString>("compact");
    QTest::newRow("weight") << 0.43056 << 4 << "0.4306"
                            << "0.4306";
    QTest::newRow("negative") << -0.5337 << 4 << "-0.5337"
                              << "-0.5337";
    QTest::newRow("two") << 2.0 << 4 << "2.0000"
                         << "2";
    QTest::newRow("negative zero") << -0.00001 << 4 << "0.0000"
                                   << "-1e-5";
    QTest::newRow("-inf") << -std::numeric_limits<double>::infinity() << 4 << kMinusInfinity
                          << kMinusInfinity;
    QTest::newRow("+inf") << std::numeric_limits<double>::infinity() << 4 << QString("\u221E")
                          << QString("\u221E");
    QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN() << 4 << "NaN"
                         << "NaN";
    QTest::newRow("BERT fill -1e9") << -1e9 << 4 << "-1e9"
                                    << "-1e9";
    QTest::newRow("GPT-2 fill -1e4") << -1e4 << 4 << "-10000.0000"
                                     << "-1e4";
    QTest::newRow("2 decimals") << 0.23791 << 2 << "0.24"
                                << "0.2379";
}

void TestHeatmap::numberFormat() {
    QFETCH(double, value);
    QFETCH(int, decimals);
    QFETCH(QString, number);
    QFETCH(QString, compact);
    QCOMPARE(attn::formatNumber(value, decimals), number);
    QCOMPARE(attn::formatCompact(value), compact);
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
                QCOMPARE(widget.cellColor(r, c), attn::colormap::maskedColor());
            } else {
                QCOMPARE(widget.cellKind(r, c), HeatmapWidget::CellKind::Value);
                QCOMPARE(widget.cellValue(r, c), static_cast<double>(values(r, c)));
                lo = std::min(lo, static_cast<double>(values(r, c)));
                hi = std::max(hi, static_cast<double>(values(r, c)));
            }
        }
    }
    // Masked cells are excluded from the colour range and the colour scale shows that range.
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
    QCOMPARE(widget.rangeLower(), static_cast<double>(weights.minCoeff()));
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
    withNaN << 0.25f, std::numeric_limits<float>::quiet_NaN(), 0.75f;
    widget.setMatrix(withNaN);
    QCOMPARE(widget.cellKind(0, 1), HeatmapWidget::CellKind::NaN);
    QCOMPARE(widget.cellText(0, 1), QString("NaN"));
    QCOMPARE(widget.cellColor(0, 1), attn::colormap::nanColor());
    QCOMPARE(widget.rangeLower(), 0.25);
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
    QVERIFY(plain != highlighted);  // the export shows the highlight, as #5 asks
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

// A heatmap in a hidden tab defers its replot until it is shown (#4: an edit redraws only what
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

void TestHeatmap::svgExport() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    HeatmapWidget widget;
    widget.setTitle("cross-attention weights");
    widget.setMatrix(crossWeights(), kTokens, kChineseTokens);
    const QString path = dir.filePath("cross.svg");
    QString error;
    QVERIFY2(widget.saveSvg(path, QSize(640, 520), &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
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
    QSvgRenderer renderer(path);
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
    const QString folder =
        qEnvironmentVariable("ATTN_VIEWS_SHOTS_DIR", QDir::temp().filePath("views-shots"));
    QVERIFY(QDir().mkpath(folder));
    QVERIFY(image.save(QDir(folder).filePath("h-svg-rendered-back.png")));
    QFile::remove(QDir(folder).filePath("h-cross.svg"));
    QVERIFY(QFile::copy(path, QDir(folder).filePath("h-cross.svg")));
}

void TestHeatmap::pdfExport() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    HeatmapWidget widget;
    widget.setMatrix(causalScores(), kTokens, kTokens, causalBlocked(6),
                     -std::numeric_limits<double>::infinity());
    const QString path = dir.filePath("masked.pdf");
    QString error;
    QVERIFY2(widget.savePdf(path, QSize(600, 480), &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(bytes.startsWith("%PDF-"));
    QVERIFY(bytes.trimmed().endsWith("%%EOF"));
    QVERIFY(bytes.size() > 2000);
    // Nothing else was left in the folder (no temporary file).
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList({"masked.pdf"}));
    const QString folder =
        qEnvironmentVariable("ATTN_VIEWS_SHOTS_DIR", QDir::temp().filePath("views-shots"));
    QVERIFY(QDir().mkpath(folder));
    QFile::remove(QDir(folder).filePath("i-masked.pdf"));
    QVERIFY(QFile::copy(path, QDir(folder).filePath("i-masked.pdf")));
}

void TestHeatmap::failedSaveLeavesNothing_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("where");
    for (const char* format : {"png", "svg", "pdf"}) {
        QTest::addRow("%s, missing folder", format) << format << "missing";
        QTest::addRow("%s, folder is a file", format) << format << "file";
    }
}

void TestHeatmap::failedSaveLeavesNothing() {
    QFETCH(QString, format);
    QFETCH(QString, where);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // Both fail for root too (unlike a read-only folder, which root can write).
    QString folder = dir.filePath("no-such-folder");
    if (where == "file") {
        folder = dir.filePath("plain-file");
        QFile blocker(folder);
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.write("not a folder");
    }
    const QString path = folder + "/figure." + format;
    HeatmapWidget widget;
    widget.setMatrix(tutorialWeights(), kTokens, kTokens);
    QString error;
    bool ok = true;
    if (format == "png") ok = widget.savePng(path, QSize(300, 200), 1.0, false, &error);
    if (format == "svg") ok = widget.saveSvg(path, QSize(300, 200), &error);
    if (format == "pdf") ok = widget.savePdf(path, QSize(300, 200), &error);
    QVERIFY(!ok);
    QVERIFY2(error.contains(QDir::toNativeSeparators(path)), qPrintable(error));
    QVERIFY2(error.contains(format.toUpper()), qPrintable(error));
    QVERIFY(!QFileInfo::exists(path));
    // Only what the test made is in the temporary folder: no half-written file anywhere.
    const QStringList expected = where == "file" ? QStringList{"plain-file"} : QStringList{};
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), expected);
}

// Writes the figures a person should look at (#3: "look at the screenshots yourself") into
// ATTN_VIEWS_SHOTS_DIR (set by CMake to the build folder), and checks each is a real image.
void TestHeatmap::saveShots() {
    const QString folder =
        qEnvironmentVariable("ATTN_VIEWS_SHOTS_DIR", QDir::temp().filePath("views-shots"));
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
        QString error;
        QVERIFY2(widget.savePng(path, widget.preferredSize(), 1.0, false, &error),
                 qPrintable(error));
        QImage image(path);
        QCOMPARE(image.size(), widget.preferredSize());
        QVERIFY(distinctColors(image) >= 20);
        QVERIFY(widget.valuesVisible());
    }
    // The widget itself on the (offscreen) screen, in presentation scale, hovered and highlighted.
    {
        HeatmapWidget shown;
        shown.setTitle("on screen, scale 1.5");
        shown.setScale(1.5);
        shown.setMatrix(weights, kTokens, kTokens);
        shown.setValueRange(0, 1);
        shown.highlightRow(1);
        showAndLayOut(shown, QSize(900, 640));
        const QImage grabbed = shown.grab().toImage();
        QVERIFY(distinctColors(grabbed) >= 20);
        QVERIFY(grabbed.save(QDir(folder).filePath("j-onscreen-scale-1.5.png")));
        QVERIFY(shown.valuesVisible());
    }
    // A big matrix: values hidden, and the figure says so.
    HeatmapWidget widget;
    widget.setTitle("64×64 weights");
    widget.setMatrix(softmaxRows(Matrix::Random(64, 64) * 3.0f));
    const QString path = QDir(folder).filePath("f-64x64-hidden-values.png");
    QVERIFY(widget.savePng(path, QSize(700, 620), 1.0, false));
    QVERIFY(!widget.valuesVisible());
    // At 2× a figure has twice the pixels and the same layout, sharp for print.
    widget.setTitle("attn_weights at 2×");
    widget.setMatrix(weights, kTokens, kTokens);
    QVERIFY(widget.savePng(QDir(folder).filePath("g-attn-weights-2x.png"), QSize(560, 440), 2.0,
                           false));
    QCOMPARE(QImage(QDir(folder).filePath("g-attn-weights-2x.png")).size(), QSize(1120, 880));
}

QTEST_MAIN(TestHeatmap)
#include "test_heatmap.moc"
