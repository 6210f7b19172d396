// HeatmapWidget, fitting the drawing to its size: fonts, label measurements and thinning, the
// title and the note under it, and the size a figure prefers.
#include <qcustomplot.h>

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>

#include "views/heatmap_style.h"
#include "views/heatmap_widget.h"

namespace views {

using namespace heatmap_style;

namespace {

double maxAdvance(const QFontMetricsF& metrics, const auto& texts) {
    double widest = 0.0;
    for (const QString& text : texts) widest = std::max(widest, metrics.horizontalAdvance(text));
    return widest;
}

}  // namespace

// --- fonts and fitting --------------------------------------------------------------------------

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

QSize HeatmapWidget::preferredSize() const {
    const double cell = kPreferredCellPx * scale_;
    const double label = kLabelPx * scale_ / 100.0;
    double rowLabels = maxRowLabelWidthAt100Px_ * label + 24 * scale_;
    double columnLabels = textHeightAt100Px_ * label + 12 * scale_;
    if (maxColumnLabelWidthAt100Px_ * label > cell * 0.92)  // will be rotated
        columnLabels = maxColumnLabelWidthAt100Px_ * label + 12 * scale_;
    if (!plot_->yAxis->label().isEmpty()) rowLabels += 24 * scale_;
    if (!plot_->xAxis2->label().isEmpty()) columnLabels += 24 * scale_;
    // The colour bar's numbers, plus a line of its label per line (name, range, dropout mark).
    const QString barLabel = colorBarLabel();
    const double labelLines =
        barLabel.isEmpty() ? 0.0 : static_cast<double>(barLabel.count(QLatin1Char('\n'))) + 1.0;
    const double colorBar = (kColorBarPx + 70.0) * scale_ +
                            labelLines * textHeightAt100Px_ * kAxisTitlePx * scale_ / 100.0;
    const double header = (title_.isEmpty() ? 0.0 : 30 * scale_) + 12 * scale_;
    const double matrixColumn =
        std::max(std::max(1, columnCount()) * cell + rowLabels,
                 titleWidthAt100Px_ * kTitlePx * scale_ / 100.0 + 16 * scale_);
    const double w = matrixColumn + colorBar;
    // The bar's label runs along the bar, which is as tall as the rows: a one-row matrix needs
    // the height to show "this matrix: 0 – 0.3403" whole.
    double labelLength = 0.0;
    for (const QString& line : barLabel.split(QLatin1Char('\n')))
        labelLength = std::max(labelLength, QFontMetricsF(font100_).horizontalAdvance(line));
    labelLength = labelLength * kAxisTitlePx * scale_ / 100.0 + 16 * scale_;
    const double h = std::max(std::max(1, rowCount()) * cell, labelLength) + columnLabels + header;
    return QSize(static_cast<int>(std::ceil(std::max(w, 320 * scale_))),
                 static_cast<int>(std::ceil(std::max(h, 240 * scale_))));
}

QSize HeatmapWidget::sizeHint() const { return preferredSize().boundedTo(QSize(960, 720)); }

QSize HeatmapWidget::minimumSizeHint() const { return QSize(200, 150); }

}  // namespace views
