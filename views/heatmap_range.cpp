// HeatmapWidget, the colour range: fixed, the matrix's own or each row's, the colour bar's note
// and ticks that say which, and the menu that switches between them.
#include <qcustomplot.h>

#include <QActionGroup>
#include <QContextMenuEvent>
#include <QMenu>
#include <algorithm>
#include <cmath>
#include <limits>

#include "views/colormaps.h"
#include "views/heatmap_widget.h"
#include "views/number_text.h"

namespace views {

void HeatmapWidget::updateRange() {
    double lower = fixedLower_;
    double upper = fixedUpper_;
    if (rangeMode_ == RangeMode::Row) {
        // The map's data holds row-relative values (updateColorMapData).
        lower = colormap::isDiverging(colorMapName_) ? -1.0 : 0.0;
        upper = 1.0;
    } else if (rangeMode_ == RangeMode::Matrix) {
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
        if (!colormap::isDiverging(colorMapName_) && lo >= 0.0) {
            // Non-negative values (weights) start at 0, so the darkest colour still means 0 and
            // three weights of 0.32-0.34 look alike instead of black and yellow.
            lo = 0.0;
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
    updateColorScaleText();
    requestReplot();
}

bool HeatmapWidget::valuesNonNegative() const {
    const float* v = values_.data();  // row-major, indexed as kinds_
    for (std::size_t i = 0; i < kinds_.size(); ++i)
        if (kinds_[i] == CellKind::Value && v[i] < 0.0f) return false;
    return true;
}

QString HeatmapWidget::rangeNote() const {
    switch (rangeMode_) {
        case RangeMode::Fixed:
            return tr("fixed %1 – %2").arg(compactText(rangeLower_), compactText(rangeUpper_));
        case RangeMode::Matrix:
            return tr("this matrix: %1 – %2")
                .arg(compactText(rangeLower_), compactText(rangeUpper_));
        case RangeMode::Row:
            if (colormap::isDiverging(colorMapName_)) return tr("each row: −max|x| – max|x|");
            return valuesNonNegative() ? tr("each row: 0 – its max")
                                       : tr("each row: its min – its max");
    }
    return {};
}

void HeatmapWidget::updateColorScaleText() {
    // The colour bar says what it spans, and explains the dropout mark when the matrix has one.
    QStringList lines;
    if (!colorScaleLabel_.isEmpty()) lines << colorScaleLabel_;
    lines << rangeNote();
    if (anyDropped()) lines << tr("⊘ dropped by dropout (0)");
    colorScale_->axis()->setLabel(lines.join(QLatin1Char('\n')));
    if (rangeMode_ == RangeMode::Row) {
        // Row-relative positions are no values: the ends say what they are instead.
        rowModeTicker_->clear();
        if (colormap::isDiverging(colorMapName_)) {
            rowModeTicker_->addTick(-1.0, tr("−max"));
            rowModeTicker_->addTick(0.0, QStringLiteral("0"));
        } else {
            rowModeTicker_->addTick(0.0, valuesNonNegative() ? QStringLiteral("0") : tr("min"));
        }
        rowModeTicker_->addTick(1.0, tr("max"));
        colorScale_->axis()->setTicker(rowModeTicker_);
    } else {
        colorScale_->axis()->setTicker(valueTicker_);
    }
}

bool HeatmapWidget::setColorMap(const QString& name) {
    if (!colormap::isKnown(name)) return false;
    if (name == colorMapName_) return true;
    colorMapName_ = name;
    colorMap_->setGradient(colormap::gradient(name));
    if (rangeMode_ == RangeMode::Row)
        updateColorMapData();  // row-relative values depend on the kind of map
    else
        updateRange();
    return true;
}

QString HeatmapWidget::colorMapName() const { return colorMapName_; }

void HeatmapWidget::setRangeMode(RangeMode mode) {
    const bool rowChange = (mode == RangeMode::Row) != (rangeMode_ == RangeMode::Row);
    rangeMode_ = mode;
    if (rowChange)
        updateColorMapData();  // the map's data switches between values and row-relative ones
    else
        updateRange();
}

HeatmapWidget::RangeMode HeatmapWidget::rangeMode() const { return rangeMode_; }

QMenu* HeatmapWidget::createRangeMenu(QWidget* parent) {
    auto* menu = new QMenu(tr("Colour range"), parent);
    auto* group = new QActionGroup(menu);
    const auto add = [&](const QString& text, RangeMode mode) {
        QAction* action = menu->addAction(text);
        action->setCheckable(true);
        action->setChecked(rangeMode_ == mode);
        action->setActionGroup(group);
        connect(action, &QAction::triggered, this, [this, mode] { setRangeMode(mode); });
    };
    add(tr("Fixed %1 – %2").arg(compactText(fixedLower_), compactText(fixedUpper_)),
        RangeMode::Fixed);
    add(tr("This matrix"), RangeMode::Matrix);
    add(tr("Each row"), RangeMode::Row);
    return menu;
}

void HeatmapWidget::contextMenuEvent(QContextMenuEvent* event) {
    // Pages that build their own heatmap menu (File ▸ Export's) add createRangeMenu to it.
    QMenu menu;
    menu.addMenu(createRangeMenu(&menu));
    menu.exec(event->globalPos());
}

void HeatmapWidget::setAutoRange() { setRangeMode(RangeMode::Matrix); }

void HeatmapWidget::setValueRange(double lower, double upper) {
    if (!(lower < upper))
        throw attn::AttentionError("heatmap value range [" + std::to_string(lower) + ", " +
                                   std::to_string(upper) +
                                   "] is empty: give lower < upper, e.g. [0, 1] for weights");
    fixedLower_ = lower;
    fixedUpper_ = upper;
    setRangeMode(RangeMode::Fixed);
}

bool HeatmapWidget::isAutoRange() const { return rangeMode_ != RangeMode::Fixed; }
double HeatmapWidget::rangeLower() const { return rangeLower_; }
double HeatmapWidget::rangeUpper() const { return rangeUpper_; }

}  // namespace views
