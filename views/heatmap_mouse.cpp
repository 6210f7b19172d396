// HeatmapWidget, pointing at cells: highlights, the tooltip of a cell and the mouse that hovers
// and clicks them.
#include <qcustomplot.h>

#include <QMouseEvent>
#include <QToolTip>

#include "views/heatmap_widget.h"

namespace views {

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
    QString text = tooltipProvider_ ? tooltipProvider_(row, column)
                                    : QStringLiteral("%1 → %2: %3")
                                          .arg(rowLabels_.at(row), columnLabels_.at(column),
                                               cellText(row, column));
    if (cellDropped(row, column)) {
        const bool rich = Qt::mightBeRichText(text);
        text += (rich ? QStringLiteral("<br>") : QStringLiteral("\n")) +
                tr("⊘ Dropped by dropout: set to 0 in training, so this key adds nothing to the "
                   "context vector.");
    }
    return text;
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

}  // namespace views
