#include "views/chart_axes.h"

#include <qcustomplot.h>

#include "views/heatmap_style.h"

namespace views {

QFont styleChartAxes(QCustomPlot* plot, const QFont& font, const QColor& text,
                     const QColor& muted) {
    QFont f = font;
    f.setFamilies({font.family(), heatmap_style::kCjkFallback});
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
        axis->setLabelFont(f);
        axis->setTickLabelFont(f);
        axis->setLabelColor(text);
        axis->setTickLabelColor(text);
        axis->setBasePen(QPen(muted));
        axis->setTickPen(QPen(muted));
        axis->setSubTickPen(QPen(muted));
    }
    return f;
}

}  // namespace views
