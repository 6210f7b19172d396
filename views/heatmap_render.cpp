// HeatmapWidget, drawing: the cell layer (hatching, values, highlights) and the figures rendered
// to an image or to the bytes of a PNG, SVG or PDF file.
#include <qcustomplot.h>

#include <QBuffer>
#include <QImageWriter>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>

#include "views/colormaps.h"
#include "views/heatmap_style.h"
#include "views/heatmap_widget.h"

namespace views {

using namespace heatmap_style;

namespace {

// Draws `plot` at a size × size layout onto `device` as vectors, so text stays text. `window`
// maps the layout's logical pixels onto the page (PDF); false when the painter cannot start.
bool paintVectors(QCustomPlot* plot, QPaintDevice* device, QSize size, bool window) {
    QCPPainter painter;
    if (!painter.begin(device)) return false;
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    if (window) painter.setWindow(QRect(QPoint(0, 0), size));
    plot->toPainter(&painter, size.width(), size.height());
    painter.end();
    return true;
}

}  // namespace

// A figure is drawn in its own colours (white, or nothing with `transparent`, and dark labels)
// whatever the desktop's palette; the screen colours come back afterwards.
class FigureColours {
public:
    FigureColours(HeatmapWidget& map, bool transparent) : map_(map) {
        map_.applyColours(true, transparent);
    }
    ~FigureColours() { map_.applyColours(false); }
    FigureColours(const FigureColours&) = delete;
    FigureColours& operator=(const FigureColours&) = delete;

private:
    HeatmapWidget& map_;
};

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

    // Cells zeroed by dropout keep their colour and value (a 0 is a 0) and get a dashed inset
    // outline and a "⊘" (a circle and a slash, drawn as lines so every export keeps it): in the
    // corner when the value is shown, filling the cell when it is not.
    if (anyDropped()) {
        const bool corner = valuesVisible();
        for (int r = 0; r < rows; ++r) {
            for (int c = 0; c < cols; ++c) {
                if (!cellDropped(r, c) || !rowRevealed(r) || cellKind(r, c) == CellKind::Masked)
                    continue;
                const QRectF cell = cellRect(r, c);
                const double side = std::min(cell.width(), cell.height());
                const QColor ink = cellTextColor(r, c);
                QPen dash(ink, std::max(1.0, 1.2 * scale_), Qt::DashLine);
                dash.setCapStyle(Qt::FlatCap);
                painter->setBrush(Qt::NoBrush);
                if (side >= 10.0 * scale_) {
                    painter->setPen(dash);
                    const double in = std::max(2.0 * scale_, side * 0.06);
                    painter->drawRect(cell.adjusted(in, in, -in, -in));
                }
                const double d = corner ? side * 0.26 : side * 0.6;
                const QPointF centre =
                    corner ? cell.topLeft() + QPointF(side * 0.1 + d / 2, side * 0.1 + d / 2)
                           : cell.center();
                const QRectF ring(centre - QPointF(d / 2, d / 2), QSizeF(d, d));
                painter->setPen(QPen(ink, std::max(1.0, d * 0.12)));
                painter->drawEllipse(ring);
                const double k = d / 2 * 0.7071;
                painter->drawLine(centre + QPointF(-k, k), centre + QPointF(k, -k));
            }
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

// --- figures ------------------------------------------------------------------------------------

QImage HeatmapWidget::renderImage(QSize size, double scale, bool transparent) {
    if (size.isEmpty()) size = preferredSize();
    if (!(scale > 0)) scale = 1.0;
    QPixmap pixmap;
    {
        const FigureColours colours(*this, transparent);
        pixmap = plot_->toPixmap(size.width(), size.height(), scale);
    }
    requestReplot();  // the export laid the plot out at its own size: restore the screen layout
    return pixmap.toImage();
}

QByteArray HeatmapWidget::renderPng(QSize size, double scale, bool transparent, QString* reason) {
    const QImage image = renderImage(size, scale, transparent);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QImageWriter writer(&buffer, "png");
    if (!writer.write(image)) {
        if (reason) *reason = writer.errorString();
        return {};
    }
    return buffer.data();
}

QByteArray HeatmapWidget::renderSvg(QSize size, QString* reason, bool transparent) {
    if (size.isEmpty()) size = preferredSize();
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setResolution(96);
    generator.setTitle(title_);
    generator.setDescription(tr("Attention Visualizer heatmap"));
    bool drawn = false;
    {
        const FigureColours colours(*this, transparent);
        drawn = paintVectors(plot_, &generator, size, false);
    }
    requestReplot();
    if (!drawn) {
        if (reason) *reason = tr("the SVG painter could not start");
        return {};
    }
    // QSvgGenerator names one family; give viewers without it the CJK face and a generic
    // fallback so tokens such as "你的" still render.
    QByteArray svg = buffer.data();
    svg.replace(QByteArrayLiteral("font-family=\"") + font().family().toUtf8() + '"',
                QByteArrayLiteral("font-family=\"") + font().family().toUtf8() + ", " +
                    kCjkFallback.toUtf8() + ", sans-serif\"");
    return svg;
}

QByteArray HeatmapWidget::renderPdf(QSize size, QString* reason, bool transparent) {
    if (size.isEmpty()) size = preferredSize();
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    bool drawn = false;
    {
        // As QCustomPlot::savePdf does, but into memory: one point per logical pixel. The writer
        // goes out of scope before the bytes are read.
        QPdfWriter writer(&buffer);
        writer.setCreator(QStringLiteral("Attention Visualizer"));
        writer.setTitle(title_);
        writer.setResolution(96);
        writer.setPageLayout(
            QPageLayout(QPageSize(QSizeF(size), QPageSize::Point, QString(), QPageSize::ExactMatch),
                        QPageLayout::Portrait, QMarginsF(0, 0, 0, 0), QPageLayout::Point));
        const FigureColours colours(*this, transparent);
        drawn = paintVectors(plot_, &writer, size, true);
    }
    requestReplot();
    if (!drawn) {
        if (reason) *reason = tr("the PDF painter could not start");
        return {};
    }
    return buffer.data();
}

void HeatmapWidget::renderTo(QCPPainter* painter, const QRectF& target, QSize size) {
    if (size.isEmpty()) size = preferredSize();
    if (size.isEmpty() || target.isEmpty() || !painter->isActive()) return;
    const QCPPainter::PainterModes modes = painter->modes();
    painter->save();
    painter->translate(target.topLeft());
    painter->scale(target.width() / size.width(), target.height() / size.height());
    painter->setClipRect(QRectF(QPointF(0, 0), QSizeF(size)));
    painter->setMode(QCPPainter::pmVectorized);
    painter->setMode(QCPPainter::pmNoCaching);
    {
        const FigureColours colours(*this, false);  // a handout page is paper
        plot_->toPainter(painter, size.width(), size.height());
    }
    painter->restore();
    painter->setModes(modes);
    requestReplot();
}

}  // namespace views
