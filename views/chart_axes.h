// The look of a QCustomPlot chart's two axes, shared by every chart of the views (the next-token
// bars, the training curves): the font with the CJK fallback, text-coloured labels, muted lines.
#pragma once

#include <QColor>
#include <QFont>

class QCustomPlot;

namespace views {

// Returns the font it gave the axes (`font` with the CJK fallback) for the chart's other texts.
QFont styleChartAxes(QCustomPlot* plot, const QFont& font, const QColor& text, const QColor& muted);

}  // namespace views
