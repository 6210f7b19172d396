// HeatmapWidget: its data, settings and colours. The colour range is in heatmap_range.cpp,
// highlights, tooltips and the mouse in heatmap_mouse.cpp, fitting the drawing to its size in
// heatmap_layout.cpp, drawing the cells and rendering figures in heatmap_render.cpp.
#include "views/heatmap_widget.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QFontMetricsF>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>

#include "views/colormaps.h"
#include "views/heatmap_style.h"
#include "views/number_text.h"

namespace views {

using namespace heatmap_style;

namespace {

QStringList numberedLabels(Eigen::Index count) {
    QStringList labels;
    for (Eigen::Index i = 1; i <= count; ++i) labels << QString::number(i);
    return labels;
}

}  // namespace

// The QCustomPlot that lets the widget fit fonts to the cell size after every layout pass, on
// screen and in exports alike (toPixmap / toPainter lay out again at the export size).
class HeatmapPlot : public QCustomPlot {
public:
    explicit HeatmapPlot(HeatmapWidget* owner) : QCustomPlot(owner), owner_(owner) {}

protected:
    // The wheel scrolls the page the heatmap sits in; only Ctrl+wheel zooms, and only when zoom is
    // offered (QCP::iRangeZoom). The event is handed up the parents here rather than ignored:
    // Qt passes on only spontaneous wheel events, and a synthesized one must scroll the page too.
    void wheelEvent(QWheelEvent* event) override {
        if ((event->modifiers() & Qt::ControlModifier) &&
            interactions().testFlag(QCP::iRangeZoom)) {
            QCustomPlot::wheelEvent(event);
            return;
        }
        event->ignore();
        for (QWidget* w = parentWidget(); w; w = w->parentWidget()) {
            QWheelEvent up(w->mapFromGlobal(event->globalPosition()), event->globalPosition(),
                           event->pixelDelta(), event->angleDelta(), event->buttons(),
                           event->modifiers(), event->phase(), event->inverted(), event->source(),
                           event->pointingDevice());
            QCoreApplication::sendEvent(w, &up);
            if (up.isAccepted()) {
                event->accept();
                return;
            }
            if (w->isWindow()) return;
        }
    }

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
    // Axis numbers in the C locale, as every other number (model/number_format.h): QCustomPlot
    // formats ticks with the widget's locale, which would print "0,2" under a German desktop.
    plot_->setLocale(QLocale::c());
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
    valueTicker_ = QSharedPointer<QCPAxisTicker>::create();
    colorScale_->axis()->setTicker(valueTicker_);
    rowModeTicker_ = QSharedPointer<QCPAxisTickerText>::create();
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
    applyColours(false);
    rebuildFonts();
    updateColorMapData();
}

HeatmapWidget::~HeatmapWidget() = default;

// --- data ---------------------------------------------------------------------------------------

void HeatmapWidget::setMatrix(const attn::Matrix& values, const QStringList& rowLabels,
                              const QStringList& columnLabels, const attn::BoolMatrix& blocked,
                              std::optional<double> fillValue) {
    const Eigen::Index rows = values.rows();
    const Eigen::Index cols = values.cols();
    if (!rowLabels.isEmpty() && rowLabels.size() != rows)
        throw attn::AttentionError("heatmap has " + std::to_string(rows) + " rows but " +
                                   std::to_string(rowLabels.size()) +
                                   " row labels: give one label per row or none");
    if (!columnLabels.isEmpty() && columnLabels.size() != cols)
        throw attn::AttentionError("heatmap has " + std::to_string(cols) + " columns but " +
                                   std::to_string(columnLabels.size()) +
                                   " column labels: give one label per column or none");
    if (blocked.size() != 0 && (blocked.rows() != rows || blocked.cols() != cols))
        throw attn::AttentionError("heatmap mask is " + std::to_string(blocked.rows()) + "x" +
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
    if (dropped_.rows() != rows || dropped_.cols() != cols) dropped_ = attn::BoolMatrix();
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

void HeatmapWidget::clear() { setMatrix(attn::Matrix()); }

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
    const bool perRow = rangeMode_ == RangeMode::Row;
    const bool diverging = colormap::isDiverging(colorMapName_);
    const bool nonNegative = valuesNonNegative();
    for (int r = 0; r < rows; ++r) {
        const auto first = static_cast<std::size_t>(r) * static_cast<std::size_t>(cols);
        // Row mode stores each value relative to its row: (x - min) / (max - min), so the row's
        // largest value takes the top colour; a diverging map keeps 0 white with x / max|x|.
        double lo = std::numeric_limits<double>::infinity();
        double hi = -lo;
        for (std::size_t i = first; perRow && i < first + static_cast<std::size_t>(cols); ++i) {
            if (kinds_[i] != CellKind::Value) continue;
            lo = std::min(lo, static_cast<double>(v[i]));
            hi = std::max(hi, static_cast<double>(v[i]));
        }
        // Non-negative matrices (weights) start each row at 0, as the matrix range does: five
        // weights of 0.20 then look alike instead of spanning the map over differences of 0.0001.
        if (!diverging && nonNegative) lo = 0.0;
        const double maxAbs = std::max(std::abs(lo), std::abs(hi));
        for (int c = 0; c < cols; ++c) {
            const std::size_t i = first + static_cast<std::size_t>(c);
            double cell = static_cast<double>(v[i]);
            // Masked cells take no colour from the map (the cell layer hatches them), so a -1e9
            // fill cannot stretch the range.
            if (kinds_[i] == CellKind::Masked) {
                cell = std::numeric_limits<double>::quiet_NaN();
            } else if (perRow && kinds_[i] == CellKind::Value) {
                if (diverging)
                    cell = maxAbs > 0.0 ? cell / maxAbs : 0.0;
                else
                    cell = hi > lo ? (cell - lo) / (hi - lo) : 1.0;  // a constant row: all top
            }
            mapData->setCell(c, r, cell);
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
    colorScaleLabel_ = label;
    updateColorScaleText();
    requestReplot();
}

void HeatmapWidget::setDropped(const attn::BoolMatrix& dropped) {
    if (dropped.size() != 0 &&
        (dropped.rows() != values_.rows() || dropped.cols() != values_.cols()))
        throw attn::AttentionError(
            "heatmap dropout pattern is " + std::to_string(dropped.rows()) + "x" +
            std::to_string(dropped.cols()) + " but the matrix is " +
            std::to_string(values_.rows()) + "x" + std::to_string(values_.cols()) +
            ": call setMatrix first, then give a pattern of its shape or none");
    if (dropped.size() == 0 && dropped_.size() == 0) return;
    dropped_ = dropped;
    textWidthKnown_ = false;
    updateColorScaleText();
    requestReplot();
}

bool HeatmapWidget::cellDropped(int row, int column) const {
    return dropped_.size() > 0 && row >= 0 && column >= 0 && row < dropped_.rows() &&
           column < dropped_.cols() && dropped_(row, column);
}

bool HeatmapWidget::anyDropped() const { return dropped_.size() > 0 && dropped_.any(); }

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

void HeatmapWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange) rebuildFonts();
    if (event->type() == QEvent::LanguageChange) {
        updateHeader();
        updateColorScaleText();
    }
    if (event->type() == QEvent::PaletteChange && !figureColours_) {
        applyColours(false);
        requestReplot();
    }
    QWidget::changeEvent(event);
}

void HeatmapWidget::applyColours(bool figure, bool transparent) {
    figureColours_ = figure;
    // A light desktop keeps the figure's own colours, so the screen and the exports match; a dark
    // one gets its base colour behind the matrix and its text colour for the labels.
    const QColor base = palette().color(QPalette::Base);
    const bool dark = !figure && base.lightnessF() < 0.5f;
    const QColor label = dark ? palette().color(QPalette::Text) : kLabelColor;
    const QColor note = dark ? palette().color(QPalette::PlaceholderText) : kSubtitleColor;
    QBrush background = dark ? QBrush(base) : QBrush(Qt::white);
    if (transparent) background = QBrush(Qt::NoBrush);
    plot_->setBackground(background);
    backgroundColor_ = transparent ? QColor(Qt::transparent) : background.color();
    for (QCPAxis* axis :
         {plot_->xAxis, plot_->xAxis2, plot_->yAxis, plot_->yAxis2, colorScale_->axis()}) {
        axis->setTickLabelColor(label);
        axis->setLabelColor(label);
    }
    titleElement_->setTextColor(label);
    subtitleElement_->setTextColor(note);
}

QColor HeatmapWidget::backgroundColor() const { return backgroundColor_; }

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
    if (cellKind(row, column) == CellKind::Masked && fillValue_) return compactText(*fillValue_);
    return fixedText(static_cast<double>(values_(row, column)), decimals_);
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

QString HeatmapWidget::colorBarLabel() const {
    const QCPAxis* axis = colorScale_->axis();
    return axis != nullptr ? axis->label() : QString();
}

}  // namespace views
