#include "heatmap_widget.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QDir>
#include <QEvent>
#include <QFontMetricsF>
#include <QImageWriter>
#include <QMouseEvent>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "app/io/atomic_file.h"
#include "colormaps.h"
#include "number_format.h"

namespace attn {

namespace {

// Sizes at scale 1, in logical pixels. Fonts are pixel-sized so that the screen, PNG, SVG and
// PDF (whose painters map logical pixels onto points) all lay out the same.
constexpr double kTitlePx = 16.0;
constexpr double kSubtitlePx = 12.0;
constexpr double kLabelPx = 13.0;    // token labels, largest
constexpr double kMinLabelPx = 8.0;  // below this, labels are thinned out instead
constexpr double kAxisTitlePx = 13.0;
constexpr double kScaleTickPx = 12.0;   // colour scale numbers
constexpr double kCellTextPx = 14.0;    // cell values, largest
constexpr double kMinCellTextPx = 8.0;  // below this, values are hidden and the subtitle says so
constexpr double kPreferredCellPx = 52.0;
constexpr double kColorBarPx = 16.0;
constexpr double kHatchSpacingPx = 7.0;
const QString kCjkFallback = QStringLiteral("Noto Sans CJK SC");

const QColor kLabelColor(0x22, 0x22, 0x22);
const QColor kSubtitleColor(0x60, 0x60, 0x60);
const QColor kMaskedTextColor(0x33, 0x33, 0x33);
const QColor kHiddenCellColor(0xe4, 0xe4, 0xe4);  // rows not yet revealed (presentation)

QStringList numberedLabels(Eigen::Index count) {
    QStringList labels;
    for (Eigen::Index i = 1; i <= count; ++i) labels << QString::number(i);
    return labels;
}

double maxAdvance(const QFontMetricsF& metrics, const auto& texts) {
    double widest = 0.0;
    for (const QString& text : texts) widest = std::max(widest, metrics.horizontalAdvance(text));
    return widest;
}

}  // namespace

// The QCustomPlot that lets the widget fit fonts to the cell size after every layout pass, on
// screen and in exports alike (toPixmap / toPainter lay out again at the export size).
class HeatmapPlot : public QCustomPlot {
public:
    explicit HeatmapPlot(HeatmapWidget* owner) : QCustomPlot(owner), owner_(owner) {}

protected:
    void updateLayout() override {
        // Label fonts change the margins and the margins change the cell size: three passes
        // settle it (each pass only shrinks or rotates labels).
        for (int pass = 0; pass < 3; ++pass) {
            QCustomPlot::updateLayout();
            if (!owner_->adaptToLayout()) break;
        }
    }

private:
    HeatmapWidget* owner_;
};

// Draws what QCPColorMap cannot: hatched masked cells, cell separators, values, highlights.
class HeatmapCellLayer : public QCPLayerable {
public:
    HeatmapCellLayer(QCustomPlot* plot, HeatmapWidget* owner)
        : QCPLayerable(plot, QStringLiteral("cells")), owner_(owner) {}

protected:
    void applyDefaultAntialiasingHint(QCPPainter* painter) const override {
        painter->setAntialiasing(true);
    }
    void draw(QCPPainter* painter) override { owner_->drawCells(painter); }
    QRect clipRect() const override { return owner_->matrixClipRect(); }

private:
    HeatmapWidget* owner_;
};

HeatmapWidget::HeatmapWidget(QWidget* parent) : QWidget(parent), colorMapName_(colormap::kViridis) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    plot_ = new HeatmapPlot(this);
    layout->addWidget(plot_);
    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);
    plot_->setBackground(QBrush(Qt::white));
    plot_->setNoAntialiasingOnDrag(false);

    rowTicker_ = QSharedPointer<QCPAxisTickerText>::create();
    columnTicker_ = QSharedPointer<QCPAxisTickerText>::create();
    for (QCPAxis* axis : {plot_->xAxis, plot_->xAxis2, plot_->yAxis, plot_->yAxis2}) {
        axis->grid()->setVisible(false);
        axis->setSubTicks(false);
        axis->setTickLength(0, 0);
        axis->setBasePen(Qt::NoPen);
        axis->setTickPen(Qt::NoPen);
        axis->setTickLabelColor(kLabelColor);
        axis->setLabelColor(kLabelColor);
    }
    plot_->yAxis->setTicker(rowTicker_);
    plot_->yAxis->setRangeReversed(true);  // row 0 at the top, like a printed matrix
    plot_->xAxis->setTicker(columnTicker_);
    plot_->xAxis2->setTicker(columnTicker_);
    plot_->yAxis2->setVisible(false);

    colorMap_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
    colorMap_->setInterpolate(false);  // one flat cell per value
    colorMap_->setTightBoundary(false);

    plot_->addLayer(QStringLiteral("cells"), plot_->layer(QStringLiteral("main")),
                    QCustomPlot::limAbove);
    cellLayer_ = new HeatmapCellLayer(plot_, this);

    colorScale_ = new QCPColorScale(plot_);
    colorScale_->setType(QCPAxis::atRight);
    colorScale_->setRangeDrag(false);
    colorScale_->setRangeZoom(false);
    colorScale_->axis()->setTickLabelColor(kLabelColor);
    colorScale_->axis()->setLabelColor(kLabelColor);
    colorMap_->setColorScale(colorScale_);
    plot_->plotLayout()->addElement(0, 1, colorScale_);
    // The colour bar spans the matrix rows exactly, not the column labels above them.
    auto* margins = new QCPMarginGroup(plot_);
    plot_->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    colorScale_->setMarginGroup(QCP::msTop | QCP::msBottom, margins);

    titleElement_ = new QCPTextElement(plot_);
    titleElement_->setVisible(false);
    subtitleElement_ = new QCPTextElement(plot_);
    subtitleElement_->setTextColor(kSubtitleColor);
    subtitleElement_->setVisible(false);

    colorMap_->setGradient(colormap::gradient(colorMapName_));
    setColumnLabelsOnTop(true);
    rebuildFonts();
    updateColorMapData();
}

HeatmapWidget::~HeatmapWidget() = default;

// --- data ---------------------------------------------------------------------------------------

void HeatmapWidget::setMatrix(const Matrix& values, const QStringList& rowLabels,
                              const QStringList& columnLabels, const BoolMatrix& blocked,
                              std::optional<double> fillValue) {
    const Eigen::Index rows = values.rows();
    const Eigen::Index cols = values.cols();
    if (!rowLabels.isEmpty() && rowLabels.size() != rows)
        throw AttentionError("heatmap has " + std::to_string(rows) + " rows but " +
                             std::to_string(rowLabels.size()) +
                             " row labels: give one label per row or none");
    if (!columnLabels.isEmpty() && columnLabels.size() != cols)
        throw AttentionError("heatmap has " + std::to_string(cols) + " columns but " +
                             std::to_string(columnLabels.size()) +
                             " column labels: give one label per column or none");
    if (blocked.size() != 0 && (blocked.rows() != rows || blocked.cols() != cols))
        throw AttentionError("heatmap mask is " + std::to_string(blocked.rows()) + "x" +
                             std::to_string(blocked.cols()) + " but the matrix is " +
                             std::to_string(rows) + "x" + std::to_string(cols) +
                             ": give a mask of the same shape or none");

    QStringList newRowLabels = rowLabels.isEmpty() ? numberedLabels(rows) : rowLabels;
    QStringList newColumnLabels = columnLabels.isEmpty() ? numberedLabels(cols) : columnLabels;
    const bool labelsChanged = newRowLabels != rowLabels_ || newColumnLabels != columnLabels_;
    // The same matrix again (W_query after an embedding edit, an unchanged head): nothing to
    // redo, and the highlights stay. Compared bit for bit, so NaN cells compare equal.
    const auto sameBits = [](const auto& a, const auto& b) {
        return a.rows() == b.rows() && a.cols() == b.cols() &&
               std::equal(reinterpret_cast<const char*>(a.data()),
                          reinterpret_cast<const char*>(a.data() + a.size()),
                          reinterpret_cast<const char*>(b.data()));
    };
    if (!labelsChanged && fillValue == fillValue_ && sameBits(values, values_) &&
        sameBits(blocked, blocked_))
        return;
    values_ = values;
    blocked_ = blocked;
    rowLabels_ = std::move(newRowLabels);
    columnLabels_ = std::move(newColumnLabels);
    if (labelsChanged) measureLabels();
    fillValue_ = fillValue;
    const auto count = static_cast<std::size_t>(rows * cols);
    kinds_.assign(count, CellKind::Value);
    for (Eigen::Index r = 0; r < rows; ++r) {
        for (Eigen::Index c = 0; c < cols; ++c) {
            const float v = values(r, c);
            CellKind& kind = kinds_[static_cast<std::size_t>(r * cols + c)];
            if ((blocked.size() != 0 && blocked(r, c)) || std::isinf(v))
                kind = CellKind::Masked;
            else if (std::isnan(v))
                kind = CellKind::NaN;
        }
    }
    hovered_.reset();
    pressed_.reset();
    highlightRow_.reset();
    highlightColumn_.reset();
    highlightCell_.reset();
    updateColorMapData();
    updateGeometry();
}

void HeatmapWidget::clear() { setMatrix(Matrix()); }

qsizetype HeatmapWidget::index(int row, int column) const {
    return static_cast<qsizetype>(row) * static_cast<qsizetype>(values_.cols()) + column;
}

void HeatmapWidget::updateColorMapData() {
    const int rows = rowCount();
    const int cols = columnCount();
    // Cell texts are formatted when drawn and measured only when cells are large enough to show
    // them: a 768 × 768 weight matrix in a small view never formats its 590 k numbers.
    textWidthKnown_ = false;

    // A dimension of size 1 gets a data range of one cell width: QCPColorMap draws a size-1
    // dimension with zero extent when its range is a single point.
    const auto dataRange = [](int n) { return n > 1 ? QCPRange(0, n - 1) : QCPRange(-0.5, 0.5); };
    auto* mapData =
        new QCPColorMapData(std::max(cols, 1), std::max(rows, 1), dataRange(cols), dataRange(rows));
    if (rows == 0 || cols == 0) mapData->fill(std::numeric_limits<double>::quiet_NaN());
    const float* v = values_.data();  // row-major, indexed as kinds_
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            const auto i = static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) +
                           static_cast<std::size_t>(c);
            // Masked cells take no colour from the map (the cell layer hatches them), so a -1e9
            // fill cannot stretch the range.
            mapData->setCell(c, r,
                             kinds_[i] == CellKind::Masked
                                 ? std::numeric_limits<double>::quiet_NaN()
                                 : static_cast<double>(v[i]));
        }
    }
    colorMap_->setData(mapData, false);  // takes ownership and frees the previous data
    colorMap_->setVisible(rows > 0 && cols > 0);

    for (QCPAxis* axis : {plot_->xAxis, plot_->xAxis2})
        axis->setRange(-0.5, std::max(cols, 1) - 0.5);
    plot_->yAxis->setRange(-0.5, std::max(rows, 1) - 0.5);

    rebuildTickers();
    updateHeader();
    updateRange();
}

void HeatmapWidget::updateRange() {
    double lower = fixedLower_;
    double upper = fixedUpper_;
    if (autoRange_) {
        double lo = std::numeric_limits<double>::infinity();
        double hi = -std::numeric_limits<double>::infinity();
        const float* v = values_.data();  // row-major, indexed as kinds_
        for (std::size_t i = 0; i < kinds_.size(); ++i) {
            if (kinds_[i] != CellKind::Value) continue;
            lo = std::min(lo, static_cast<double>(v[i]));
            hi = std::max(hi, static_cast<double>(v[i]));
        }
        if (!(lo <= hi)) {  // no finite, unmasked cell
            lo = 0.0;
            hi = 1.0;
        }
        if (colormap::isDiverging(colorMapName_)) {
            // Symmetric so that white means exactly 0 and equal |x| look equally strong.
            const double m = std::max(std::abs(lo), std::abs(hi));
            lo = -m;
            hi = m;
        }
        if (lo == hi) {  // a constant matrix still needs a range the colour scale can show
            const double pad = std::max(std::abs(lo) * 0.1, 0.5);
            lo -= pad;
            hi += pad;
        }
        lower = lo;
        upper = hi;
    }
    rangeLower_ = lower;
    rangeUpper_ = upper;
    colorMap_->setDataRange(QCPRange(lower, upper));
    requestReplot();
}

// --- appearance ---------------------------------------------------------------------------------

void HeatmapWidget::setTitle(const QString& title) {
    if (title == title_) return;
    title_ = title;
    titleElement_->setText(title);
    titleWidthAt100Px_ = QFontMetricsF(makeFont(100.0, true)).horizontalAdvance(title_);
    updateHeader();
    requestReplot();
}

QString HeatmapWidget::title() const { return title_; }

void HeatmapWidget::setAxisTitles(const QString& rowTitle, const QString& columnTitle) {
    plot_->yAxis->setLabel(rowTitle);
    plot_->xAxis->setLabel(columnTitle);
    plot_->xAxis2->setLabel(columnTitle);
    requestReplot();
}

void HeatmapWidget::setColorScaleLabel(const QString& label) {
    colorScale_->setLabel(label);
    requestReplot();
}

bool HeatmapWidget::setColorMap(const QString& name) {
    if (!colormap::isKnown(name)) return false;
    if (name == colorMapName_) return true;
    colorMapName_ = name;
    colorMap_->setGradient(colormap::gradient(name));
    updateRange();
    return true;
}

QString HeatmapWidget::colorMapName() const { return colorMapName_; }

void HeatmapWidget::setAutoRange() {
    autoRange_ = true;
    updateRange();
}

void HeatmapWidget::setValueRange(double lower, double upper) {
    if (!(lower < upper))
        throw AttentionError("heatmap value range [" + std::to_string(lower) + ", " +
                             std::to_string(upper) +
                             "] is empty: give lower < upper, e.g. [0, 1] for weights");
    autoRange_ = false;
    fixedLower_ = lower;
    fixedUpper_ = upper;
    updateRange();
}

bool HeatmapWidget::isAutoRange() const { return autoRange_; }
double HeatmapWidget::rangeLower() const { return rangeLower_; }
double HeatmapWidget::rangeUpper() const { return rangeUpper_; }

void HeatmapWidget::setShowValues(bool show) {
    showValues_ = show;
    updateHeader();
    requestReplot();
}

bool HeatmapWidget::showValues() const { return showValues_; }

void HeatmapWidget::setDecimals(int decimals) {
    decimals = std::clamp(decimals, 0, 10);
    if (decimals == decimals_) return;
    decimals_ = decimals;
    textWidthKnown_ = false;  // the texts are formatted when drawn
    requestReplot();
}

int HeatmapWidget::decimals() const { return decimals_; }

void HeatmapWidget::setScale(double scale) {
    scale_ = std::clamp(scale, 0.25, 8.0);
    rebuildFonts();
    updateGeometry();
    requestReplot();
}

double HeatmapWidget::scale() const { return scale_; }

void HeatmapWidget::setColumnLabelsOnTop(bool onTop) {
    columnLabelsOnTop_ = onTop;
    plot_->xAxis2->setVisible(onTop);
    plot_->xAxis->setVisible(!onTop);
    requestReplot();
}

void HeatmapWidget::setRevealedRows(int rows) {
    revealedRows_ = std::max(rows, -1);
    requestReplot();
}

QFont HeatmapWidget::makeFont(double px, bool bold) const {
    QFont f = font();
    // The widget font first; Noto Sans CJK for tokens such as "你的" when it lacks the glyphs.
    f.setFamilies({f.family(), kCjkFallback});
    f.setPixelSize(std::max(1, static_cast<int>(std::floor(px))));
    f.setBold(bold);
    return f;
}

void HeatmapWidget::rebuildFonts() {
    titlePx_ = kTitlePx * scale_;
    titleElement_->setFont(makeFont(titlePx_, true));
    subtitlePx_ = kSubtitlePx * scale_;
    subtitleElement_->setFont(makeFont(subtitlePx_));
    const QFont axisTitle = makeFont(kAxisTitlePx * scale_);
    for (QCPAxis* axis : {plot_->xAxis, plot_->xAxis2, plot_->yAxis}) {
        axis->setLabelFont(axisTitle);
        axis->setTickLabelPadding(static_cast<int>(std::lround(6 * scale_)));
        axis->setLabelPadding(static_cast<int>(std::lround(4 * scale_)));
    }
    // A little air between the figure and the edge of the widget or exported image; above and
    // below, enough for half a colour-scale number, which QCustomPlot drops when it would be
    // cut by the edge (the "0" and "1" at the ends of the scale).
    const int edge = static_cast<int>(std::lround(8 * scale_));
    const int ends = static_cast<int>(std::ceil((8 + 0.75 * kScaleTickPx) * scale_));
    plot_->axisRect()->setMinimumMargins(QMargins(edge, ends, edge, ends));
    plot_->yAxis->setPadding(edge);
    colorScale_->axis()->setTickLabelFont(makeFont(kScaleTickPx * scale_));
    colorScale_->axis()->setLabelFont(axisTitle);
    colorScale_->axis()->setTickLabelPadding(static_cast<int>(std::lround(4 * scale_)));
    // Room right of the scale's numbers, so a wider fallback font in a viewer does not clip them.
    colorScale_->axis()->setPadding(static_cast<int>(std::lround(10 * scale_)));
    colorScale_->setBarWidth(static_cast<int>(std::lround(kColorBarPx * scale_)));

    // Widths at a 100 px font scale linearly to any size, so fitting needs no per-pass measuring.
    font100_ = makeFont(100.0);
    const QFontMetricsF metrics(font100_);
    textHeightAt100Px_ = metrics.height();
    advanceAt100Px_.clear();
    textWidthKnown_ = false;
    measureLabels();
    titleWidthAt100Px_ = QFontMetricsF(makeFont(100.0, true)).horizontalAdvance(title_);

    rowLabelPx_ = kLabelPx * scale_;
    columnLabelPx_ = kLabelPx * scale_;
    plot_->yAxis->setTickLabelFont(makeFont(rowLabelPx_));
    for (QCPAxis* axis : {plot_->xAxis, plot_->xAxis2})
        axis->setTickLabelFont(makeFont(columnLabelPx_));
    requestReplot();
}

void HeatmapWidget::measureLabels() {
    const QFontMetricsF metrics(font100_);
    maxRowLabelWidthAt100Px_ = maxAdvance(metrics, rowLabels_);
    maxColumnLabelWidthAt100Px_ = maxAdvance(metrics, columnLabels_);
}

double HeatmapWidget::widestCellTextAt100Px() const {
    if (textWidthKnown_) return maxTextWidthAt100Px_;
    // Cell texts are numbers, "−∞" and "NaN": no shaping, so a text's width is the sum of its
    // characters' advances, each measured once per font (QFontMetricsF would shape every text).
    const QFontMetricsF metrics(font100_);
    double widest = 0.0;
    for (int r = 0; r < rowCount(); ++r) {
        for (int c = 0; c < columnCount(); ++c) {
            double width = 0.0;
            for (const QChar ch : cellText(r, c)) {
                auto it = advanceAt100Px_.constFind(ch.unicode());
                if (it == advanceAt100Px_.cend())
                    it = advanceAt100Px_.insert(ch.unicode(), metrics.horizontalAdvance(ch));
                width += *it;
            }
            widest = std::max(widest, width);
        }
    }
    maxTextWidthAt100Px_ = widest;
    textWidthKnown_ = true;
    return widest;
}

void HeatmapWidget::rebuildTickers() {
    rowTicker_->clear();
    for (int r = 0; r < rowCount(); r += rowLabelStep_) rowTicker_->addTick(r, rowLabels_.at(r));
    columnTicker_->clear();
    for (int c = 0; c < columnCount(); c += columnLabelStep_)
        columnTicker_->addTick(c, columnLabels_.at(c));
}

QString HeatmapWidget::subtitle() const {
    if (!showValues_ || valuesFit_ || rowCount() == 0) return {};
    return tr("values hidden: %1×%2 too small to label").arg(rowCount()).arg(columnCount());
}

void HeatmapWidget::updateHeader() {
    const QString note = subtitle();
    plot_->setToolTip(note);
    // Unchanged headers keep the layout as it is (this runs on every data update).
    if ((titleElement_->layout() != nullptr) == !title_.isEmpty() &&
        (subtitleElement_->layout() != nullptr) == !note.isEmpty() && shownNote_ == note)
        return;
    QCPLayoutGrid* grid = plot_->plotLayout();
    for (QCPTextElement* element : {titleElement_, subtitleElement_}) {
        if (element->layout()) grid->take(element);
        element->setVisible(false);
    }
    grid->simplify();  // drops the now-empty header rows
    shownNote_ = note;
    subtitleElement_->setText(note);  // adaptToLayout() shortens it where it does not fit
    subtitleWidthAt100Px_ = QFontMetricsF(makeFont(100.0)).horizontalAdvance(note);
    int row = 0;
    // An empty row would stretch like the matrix row, so absent headers get no row at all.
    for (QCPTextElement* element : {titleElement_, subtitleElement_}) {
        if (element->text().isEmpty()) continue;
        grid->insertRow(row);
        grid->addElement(row, 0, element);
        element->setVisible(true);
        ++row;
    }
}

void HeatmapWidget::requestReplot() {
    // A hidden plot (a tab not shown) would still draw into its buffers: replot it when shown.
    if (!plot_->isVisible()) {
        replotPending_ = true;
        return;
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapWidget::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (replotPending_) {
        replotPending_ = false;
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
}

bool HeatmapWidget::adaptToLayout() {
    const int rows = rowCount();
    const int cols = columnCount();
    const QRect rect = plot_->axisRect()->rect();
    if (rows == 0 || cols == 0 || rect.width() <= 0 || rect.height() <= 0) return false;
    const double cellW = rect.width() / static_cast<double>(cols);
    const double cellH = rect.height() / static_cast<double>(rows);
    const double labelMax = kLabelPx * scale_;
    const double labelMin = kMinLabelPx * scale_;
    const double lineFactor = textHeightAt100Px_ / 100.0;  // line height per px of font size
    bool changed = false;

    // The title sits over the matrix column: shrink a long one rather than clip it.
    const double titleRoom = plot_->viewport().width() - (kColorBarPx + 70.0) * scale_;
    const double titlePx =
        std::clamp(std::floor(100.0 * titleRoom / std::max(titleWidthAt100Px_, 1.0)),
                   kMinLabelPx * scale_, kTitlePx * scale_);
    if (titlePx != titlePx_) {
        titlePx_ = titlePx;
        titleElement_->setFont(makeFont(titlePx, true));
        changed = true;
    }

    // Row labels: as large as a row allows; if even the minimum is taller, label every n-th row.
    const double rowPx = std::clamp(std::floor(cellH * 0.9 / lineFactor), labelMin, labelMax);
    const int rowStep = std::max(1, static_cast<int>(std::ceil(rowPx * lineFactor / cellH)));

    // Column labels: horizontal while the widest fits its column (allowing some shrinking),
    // otherwise rotated to read upwards, sized by the column width.
    bool rotated = false;
    double colPx = labelMax;
    const double fitPx =
        std::floor(100.0 * cellW * 0.92 / std::max(maxColumnLabelWidthAt100Px_, 1.0));
    if (fitPx >= 0.8 * labelMax) {
        colPx = std::min(labelMax, fitPx);
    } else {
        rotated = true;
        colPx = std::clamp(std::floor(cellW * 0.9 / lineFactor), labelMin, labelMax);
    }
    const int colStep =
        rotated ? std::max(1, static_cast<int>(std::ceil(colPx * lineFactor / cellW))) : 1;

    if (rowPx != rowLabelPx_) {
        rowLabelPx_ = rowPx;
        plot_->yAxis->setTickLabelFont(makeFont(rowPx));
        changed = true;
    }
    if (colPx != columnLabelPx_ || rotated != columnLabelsRotated_) {
        columnLabelPx_ = colPx;
        columnLabelsRotated_ = rotated;
        for (QCPAxis* axis : {plot_->xAxis, plot_->xAxis2}) {
            axis->setTickLabelFont(makeFont(colPx));
            axis->setTickLabelRotation(rotated ? -90.0 : 0.0);
        }
        changed = true;
    }
    if (rowStep != rowLabelStep_ || colStep != columnLabelStep_) {
        rowLabelStep_ = rowStep;
        columnLabelStep_ = colStep;
        rebuildTickers();
        changed = true;
    }

    // Cell values: the largest font at which the widest value fits every cell.
    const double byHeight = cellH * 0.8 / lineFactor;
    double byWidth = 0.0;  // measuring is skipped when the height alone rules values out
    if (showValues_ && byHeight >= kMinCellTextPx * scale_)
        byWidth = 100.0 * cellW * 0.86 / std::max(widestCellTextAt100Px(), 1.0);
    cellFontPx_ = std::floor(std::min({kCellTextPx * scale_, byWidth, byHeight}));
    valuesFit_ = cellFontPx_ >= kMinCellTextPx * scale_;
    if (shownNote_ != subtitle()) {
        updateHeader();
        changed = true;
    }
    // The note under the title shrinks like the title; where even its smallest size is too wide
    // (a heatmap in the heads grid) it says only "values hidden", and the tooltip has the rest.
    if (!shownNote_.isEmpty()) {
        const double noteFitPx =
            std::floor(100.0 * titleRoom / std::max(subtitleWidthAt100Px_, 1.0));
        const double notePx = std::clamp(noteFitPx, kMinLabelPx * scale_, kSubtitlePx * scale_);
        const QString text = noteFitPx >= kMinLabelPx * scale_ ? shownNote_ : tr("values hidden");
        if (notePx != subtitlePx_) {
            subtitlePx_ = notePx;
            subtitleElement_->setFont(makeFont(notePx));
            changed = true;
        }
        if (text != subtitleElement_->text()) {
            subtitleElement_->setText(text);
            changed = true;
        }
    }
    return changed;
}

// --- drawing ------------------------------------------------------------------------------------

QRectF HeatmapWidget::cellRect(int row, int column) const {
    const QCPAxis* x = plot_->xAxis;
    const QCPAxis* y = plot_->yAxis;
    return QRectF(QPointF(x->coordToPixel(column - 0.5), y->coordToPixel(row - 0.5)),
                  QPointF(x->coordToPixel(column + 0.5), y->coordToPixel(row + 0.5)))
        .normalized();
}

QRect HeatmapWidget::matrixClipRect() const {
    // Highlight outlines sit on the matrix border: leave room for their outer half.
    const int pad = static_cast<int>(std::ceil(4 * scale_));
    return plot_->axisRect()->rect().adjusted(-pad, -pad, pad, pad);
}

void HeatmapWidget::drawCells(QCPPainter* painter) {
    const int rows = rowCount();
    const int cols = columnCount();
    if (rows == 0 || cols == 0) return;
    const QRectF matrix = cellRect(0, 0).united(cellRect(rows - 1, cols - 1));

    // Masked cells: light grey with diagonal hatching, drawn as plain line segments (pattern
    // brushes do not survive SVG export).
    const double spacing = kHatchSpacingPx * scale_;
    QPen hatchPen(colormap::maskedHatchColor(), std::max(1.0, scale_));
    hatchPen.setCapStyle(Qt::FlatCap);
    const bool anyMasked =
        std::find(kinds_.begin(), kinds_.end(), CellKind::Masked) != kinds_.end();
    for (int r = 0; anyMasked && r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            if (cellKind(r, c) != CellKind::Masked || !rowRevealed(r)) continue;
            const QRectF cell = cellRect(r, c);
            painter->fillRect(cell, colormap::maskedColor());
            painter->setPen(hatchPen);
            const double w = cell.width();
            const double h = cell.height();
            // Lines x' + y' = t in cell coordinates with y' pointing up.
            for (double t = spacing / 2; t < w + h; t += spacing) {
                const double x0 = std::max(0.0, t - h);
                const double x1 = std::min(w, t);
                painter->drawLine(QPointF(cell.left() + x0, cell.bottom() - (t - x0)),
                                  QPointF(cell.left() + x1, cell.bottom() - (t - x1)));
            }
        }
    }

    // Rows still to be revealed cover the colour map's cells: neither colour nor value shows.
    for (int r = std::max(revealedRows_, 0); revealedRows_ >= 0 && r < rows; ++r)
        painter->fillRect(cellRect(r, 0).united(cellRect(r, cols - 1)), kHiddenCellColor);

    // Thin white separators make single cells easy to follow along a row.
    const double cellW = matrix.width() / cols;
    const double cellH = matrix.height() / rows;
    if (std::min(cellW, cellH) >= 12.0 * scale_) {
        painter->setPen(QPen(Qt::white, std::max(1.0, scale_)));
        for (int c = 1; c < cols; ++c) {
            const double x = cellRect(0, c).left();
            painter->drawLine(QPointF(x, matrix.top()), QPointF(x, matrix.bottom()));
        }
        for (int r = 1; r < rows; ++r) {
            const double y = cellRect(r, 0).top();
            painter->drawLine(QPointF(matrix.left(), y), QPointF(matrix.right(), y));
        }
    }

    if (valuesVisible()) {
        painter->setFont(makeFont(cellFontPx_));
        const QFontMetricsF metrics(painter->font());
        for (int r = 0; r < rows; ++r) {
            for (int c = 0; c < cols; ++c) {
                const QRectF cell = cellRect(r, c);
                if (!rowRevealed(r)) {
                    painter->setPen(kSubtitleColor);
                    painter->drawText(cell, Qt::AlignCenter, QStringLiteral("?"));
                    continue;
                }
                if (cellKind(r, c) == CellKind::Masked) {
                    // A plain plate under the fill text keeps "−∞" clear of the hatching.
                    QRectF plate = metrics.boundingRect(cell, Qt::AlignCenter, cellText(r, c));
                    plate.adjust(-3 * scale_, -1 * scale_, 3 * scale_, 1 * scale_);
                    painter->fillRect(plate.intersected(cell), colormap::maskedColor());
                }
                painter->setPen(cellTextColor(r, c));
                painter->drawText(cell, Qt::AlignCenter, cellText(r, c));
            }
        }
    }

    // Highlights: a black outline with a white core reads on every colour of every map.
    const auto outline = [&](const QRectF& area) {
        const QRectF inset =
            area.adjusted(1.5 * scale_, 1.5 * scale_, -1.5 * scale_, -1.5 * scale_);
        painter->setBrush(Qt::NoBrush);
        painter->setPen(QPen(Qt::black, 3.5 * scale_));
        painter->drawRect(inset);
        painter->setPen(QPen(Qt::white, 1.5 * scale_));
        painter->drawRect(inset);
    };
    if (highlightRow_ && *highlightRow_ < rows)
        outline(cellRect(*highlightRow_, 0).united(cellRect(*highlightRow_, cols - 1)));
    if (highlightColumn_ && *highlightColumn_ < cols)
        outline(cellRect(0, *highlightColumn_).united(cellRect(rows - 1, *highlightColumn_)));
    if (highlightCell_ && highlightCell_->first < rows && highlightCell_->second < cols)
        outline(cellRect(highlightCell_->first, highlightCell_->second));
}

// --- highlights and tooltips --------------------------------------------------------------------

void HeatmapWidget::highlightRow(int row) {
    highlightRow_ = row >= 0 && row < rowCount() ? std::optional<int>(row) : std::nullopt;
    requestReplot();
}

void HeatmapWidget::highlightColumn(int column) {
    highlightColumn_ =
        column >= 0 && column < columnCount() ? std::optional<int>(column) : std::nullopt;
    requestReplot();
}

void HeatmapWidget::highlightCell(int row, int column) {
    if (row >= 0 && row < rowCount() && column >= 0 && column < columnCount())
        highlightCell_ = std::pair(row, column);
    else
        highlightCell_.reset();
    requestReplot();
}

void HeatmapWidget::clearHighlight() {
    highlightRow_.reset();
    highlightColumn_.reset();
    highlightCell_.reset();
    requestReplot();
}

std::optional<int> HeatmapWidget::highlightedRow() const { return highlightRow_; }
std::optional<int> HeatmapWidget::highlightedColumn() const { return highlightColumn_; }
std::optional<std::pair<int, int>> HeatmapWidget::highlightedCell() const { return highlightCell_; }

void HeatmapWidget::setTooltipProvider(std::function<QString(int, int)> provider) {
    tooltipProvider_ = std::move(provider);
}

QString HeatmapWidget::tooltipText(int row, int column) const {
    if (row < 0 || row >= rowCount() || column < 0 || column >= columnCount()) return {};
    if (!rowRevealed(row)) return {};
    if (tooltipProvider_) return tooltipProvider_(row, column);
    return QStringLiteral("%1 → %2: %3")
        .arg(rowLabels_.at(row), columnLabels_.at(column), cellText(row, column));
}

// --- mouse --------------------------------------------------------------------------------------

std::optional<std::pair<int, int>> HeatmapWidget::cellAt(QPointF pixel) const {
    const int rows = rowCount();
    const int cols = columnCount();
    if (rows == 0 || cols == 0) return std::nullopt;
    const double key = plot_->xAxis->pixelToCoord(pixel.x());
    const double value = plot_->yAxis->pixelToCoord(pixel.y());
    // Inside the matrix means inside [-0.5, n - 0.5) on both axes; the half-open edge keeps a
    // pixel on the far border from mapping to a cell that does not exist.
    if (!(key >= -0.5 && key < cols - 0.5 && value >= -0.5 && value < rows - 0.5))
        return std::nullopt;
    int column = 0;
    int row = 0;
    colorMap_->data()->coordToCell(key, value, &column, &row);
    if (row < 0 || row >= rows || column < 0 || column >= cols) return std::nullopt;
    return std::pair(row, column);
}

QPointF HeatmapWidget::cellCenter(int row, int column) const {
    return QPointF(plot_->xAxis->coordToPixel(column), plot_->yAxis->coordToPixel(row));
}

void HeatmapWidget::onMouseMove(QMouseEvent* event) {
    auto cell = cellAt(event->position());
    if (cell && !rowRevealed(cell->first)) cell.reset();  // a hidden row gives nothing away
    if (cell == hovered_) return;
    hovered_ = cell;
    if (!cell) {
        QToolTip::hideText();
        emit hoverLeft();
        return;
    }
    emit cellHovered(cell->first, cell->second);
    const QString text = tooltipText(cell->first, cell->second);
    if (!text.isEmpty())
        QToolTip::showText(event->globalPosition().toPoint(), text, plot_,
                           cellRect(cell->first, cell->second).toAlignedRect());
}

void HeatmapWidget::onMousePress(QMouseEvent* event) {
    pressed_ = event->button() == Qt::LeftButton ? cellAt(event->position()) : std::nullopt;
}

void HeatmapWidget::onMouseRelease(QMouseEvent* event) {
    const auto cell = cellAt(event->position());
    if (event->button() == Qt::LeftButton && cell && cell == pressed_ && rowRevealed(cell->first))
        emit cellClicked(cell->first, cell->second);
    pressed_.reset();
}

bool HeatmapWidget::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_) {
        switch (event->type()) {
            case QEvent::MouseMove:
                onMouseMove(static_cast<QMouseEvent*>(event));
                break;
            case QEvent::MouseButtonPress:
                onMousePress(static_cast<QMouseEvent*>(event));
                break;
            case QEvent::MouseButtonRelease:
                onMouseRelease(static_cast<QMouseEvent*>(event));
                break;
            case QEvent::Leave:
                if (hovered_) {
                    hovered_.reset();
                    emit hoverLeft();
                }
                break;
            default:
                break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void HeatmapWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange) rebuildFonts();
    if (event->type() == QEvent::LanguageChange) updateHeader();
    QWidget::changeEvent(event);
}

// --- export -------------------------------------------------------------------------------------

QSize HeatmapWidget::preferredSize() const {
    const double cell = kPreferredCellPx * scale_;
    const double label = kLabelPx * scale_ / 100.0;
    double rowLabels = maxRowLabelWidthAt100Px_ * label + 24 * scale_;
    double columnLabels = textHeightAt100Px_ * label + 12 * scale_;
    if (maxColumnLabelWidthAt100Px_ * label > cell * 0.92)  // will be rotated
        columnLabels = maxColumnLabelWidthAt100Px_ * label + 12 * scale_;
    if (!plot_->yAxis->label().isEmpty()) rowLabels += 24 * scale_;
    if (!plot_->xAxis2->label().isEmpty()) columnLabels += 24 * scale_;
    const double colorBar = (kColorBarPx + 70.0) * scale_;
    const double header = (title_.isEmpty() ? 0.0 : 30 * scale_) + 12 * scale_;
    const double matrixColumn =
        std::max(std::max(1, columnCount()) * cell + rowLabels,
                 titleWidthAt100Px_ * kTitlePx * scale_ / 100.0 + 16 * scale_);
    const double w = matrixColumn + colorBar;
    const double h = std::max(1, rowCount()) * cell + columnLabels + header;
    return QSize(static_cast<int>(std::ceil(std::max(w, 320 * scale_))),
                 static_cast<int>(std::ceil(std::max(h, 240 * scale_))));
}

QSize HeatmapWidget::sizeHint() const { return preferredSize().boundedTo(QSize(960, 720)); }

QSize HeatmapWidget::minimumSizeHint() const { return QSize(200, 150); }

QImage HeatmapWidget::renderImage(QSize size, double scale, bool transparent) {
    if (size.isEmpty()) size = preferredSize();
    if (!(scale > 0)) scale = 1.0;
    if (transparent) plot_->setBackground(QBrush(Qt::NoBrush));
    const QPixmap pixmap = plot_->toPixmap(size.width(), size.height(), scale);
    if (transparent) plot_->setBackground(QBrush(Qt::white));
    requestReplot();  // the export laid the plot out at its own size: restore the screen layout
    return pixmap.toImage();
}

bool HeatmapWidget::writeAtomically(const QString& path, const QString& kind,
                                    const std::function<bool(QIODevice&, QString&)>& write,
                                    QString* error) {
    QString reason;
    if (writeFileAtomically(path, write, &reason)) return true;
    if (error)
        *error =
            tr("Could not save %1 to %2: %3").arg(kind, QDir::toNativeSeparators(path), reason);
    return false;
}

bool HeatmapWidget::savePng(const QString& path, QSize size, double scale, bool transparent,
                            QString* error) {
    const QImage image = renderImage(size, scale, transparent);
    return writeAtomically(
        path, QStringLiteral("PNG"),
        [&](QIODevice& device, QString& reason) {
            // Encoded in memory first: libpng reports a failed write (a full disk) only as
            // "Unknown error", the file device names the cause.
            QBuffer buffer;
            buffer.open(QIODevice::WriteOnly);
            QImageWriter writer(&buffer, "png");
            if (!writer.write(image)) {
                reason = writer.errorString();
                return false;
            }
            if (writeAll(device, buffer.data())) return true;
            reason = device.errorString();
            return false;
        },
        error);
}

bool HeatmapWidget::saveSvg(const QString& path, QSize size, QString* error) {
    if (size.isEmpty()) size = preferredSize();
    const bool ok = writeAtomically(
        path, QStringLiteral("SVG"),
        [&](QIODevice& device, QString& reason) {
            QBuffer buffer;
            buffer.open(QIODevice::WriteOnly);
            QSvgGenerator generator;
            generator.setOutputDevice(&buffer);
            generator.setSize(size);
            generator.setViewBox(QRect(QPoint(0, 0), size));
            generator.setResolution(96);
            generator.setTitle(title_);
            generator.setDescription(tr("Attention Visualizer heatmap"));
            QCPPainter painter;
            if (!painter.begin(&generator)) {
                reason = tr("the SVG painter could not start");
                return false;
            }
            painter.setMode(QCPPainter::pmVectorized);
            painter.setMode(QCPPainter::pmNoCaching);
            plot_->toPainter(&painter, size.width(), size.height());
            painter.end();
            // QSvgGenerator names one family; give viewers without it the CJK face and a
            // generic fallback so tokens such as "你的" still render.
            QByteArray svg = buffer.data();
            svg.replace(QByteArrayLiteral("font-family=\"") + font().family().toUtf8() + '"',
                        QByteArrayLiteral("font-family=\"") + font().family().toUtf8() + ", " +
                            kCjkFallback.toUtf8() + ", sans-serif\"");
            if (writeAll(device, svg)) return true;
            reason = device.errorString();
            return false;
        },
        error);
    requestReplot();
    return ok;
}

bool HeatmapWidget::savePdf(const QString& path, QSize size, QString* error) {
    if (size.isEmpty()) size = preferredSize();
    const bool ok = writeAtomically(
        path, QStringLiteral("PDF"),
        [&](QIODevice& device, QString& reason) {
            // As QCustomPlot::savePdf does, but onto our QSaveFile: one point per logical pixel.
            QPdfWriter writer(&device);
            writer.setCreator(QStringLiteral("Attention Visualizer"));
            writer.setTitle(title_);
            writer.setResolution(96);
            writer.setPageLayout(QPageLayout(
                QPageSize(QSizeF(size), QPageSize::Point, QString(), QPageSize::ExactMatch),
                QPageLayout::Portrait, QMarginsF(0, 0, 0, 0), QPageLayout::Point));
            QCPPainter painter;
            if (!painter.begin(&writer)) {
                reason = tr("the PDF painter could not start");
                return false;
            }
            painter.setMode(QCPPainter::pmVectorized);
            painter.setMode(QCPPainter::pmNoCaching);
            painter.setWindow(QRect(QPoint(0, 0), size));
            plot_->toPainter(&painter, size.width(), size.height());
            painter.end();
            return true;
        },
        error);
    requestReplot();
    return ok;
}

// --- read-back ----------------------------------------------------------------------------------

int HeatmapWidget::rowCount() const { return static_cast<int>(values_.rows()); }
int HeatmapWidget::columnCount() const { return static_cast<int>(values_.cols()); }
QStringList HeatmapWidget::rowLabels() const { return rowLabels_; }
QStringList HeatmapWidget::columnLabels() const { return columnLabels_; }

double HeatmapWidget::cellValue(int row, int column) const {
    return colorMap_->data()->cell(column, row);
}

double HeatmapWidget::inputValue(int row, int column) const {
    return static_cast<double>(values_(row, column));
}

HeatmapWidget::CellKind HeatmapWidget::cellKind(int row, int column) const {
    return kinds_[static_cast<std::size_t>(index(row, column))];
}

QString HeatmapWidget::cellText(int row, int column) const {
    if (cellKind(row, column) == CellKind::Masked && fillValue_) return formatCompact(*fillValue_);
    return formatNumber(static_cast<double>(values_(row, column)), decimals_);
}

QColor HeatmapWidget::cellColor(int row, int column) const {
    switch (cellKind(row, column)) {
        case CellKind::Masked:
            return colormap::maskedColor();
        case CellKind::NaN:
            return colormap::nanColor();
        case CellKind::Value:
            break;
    }
    QCPColorGradient gradient = colorMap_->gradient();  // color() is non-const
    return QColor::fromRgba(
        gradient.color(cellValue(row, column), QCPRange(rangeLower_, rangeUpper_)));
}

QColor HeatmapWidget::cellTextColor(int row, int column) const {
    if (cellKind(row, column) == CellKind::Masked) return kMaskedTextColor;
    return colormap::readableTextColor(cellColor(row, column));
}

bool HeatmapWidget::valuesVisible() const { return showValues_ && valuesFit_; }
double HeatmapWidget::cellFontPixelSize() const { return cellFontPx_; }

QCustomPlot* HeatmapWidget::plot() const { return plot_; }
QCPColorMap* HeatmapWidget::colorMap() const { return colorMap_; }
QCPColorScale* HeatmapWidget::colorScale() const { return colorScale_; }

}  // namespace attn
