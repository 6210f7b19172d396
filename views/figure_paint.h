// Any painting as the bytes of a PNG, SVG or PDF figure file, for the figures that are not one
// heatmap (the grid of a layer's heads, the next-token chart). The same conventions as
// HeatmapWidget's exports: one logical pixel per SVG pixel and PDF point, a white background
// unless transparent, PNG at `scale` pixels per logical pixel.
#pragma once

#include <QByteArray>
#include <QSize>
#include <QString>
#include <functional>

#include "views/figure_render.h"

class QCPPainter;

namespace views {

// Calls `paint` with a painter whose coordinates are the figure's logical pixels (0, 0) to
// `size`. Empty bytes with *reason (if given) when the format is CSV, the size is empty or the
// painter cannot start.
QByteArray paintFigure(FigureFormat format, QSize size, double scale, bool transparent,
                       const QString& title, const std::function<void(QCPPainter&)>& paint,
                       QString* reason);

}  // namespace views
