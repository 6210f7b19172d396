#include "views/train_chart.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "views/chart_axes.h"
#include "views/explore_lines_view.h"
#include "views/heatmap_style.h"
#include "views/number_text.h"

namespace views {

namespace {

// Tick labels through the app's one number formatter (never "0,5" under a German locale);
// steps as whole numbers ("12000", not "1.2 · 10⁴").
class NumberTicker : public QCPAxisTicker {
public:
    explicit NumberTicker(bool whole) : whole_(whole) {}

protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        return whole_ ? fixedText(tick, 0) : compactText(tick);
    }
    // Steps tick at whole numbers: a chart of one step shows 0 and 1, not 0, 0, 0, 1, 1, 1.
    double getTickStep(const QCPRange& range) override {
        const double step = QCPAxisTicker::getTickStep(range);
        return whole_ ? std::max(1.0, std::round(step)) : step;
    }

private:
    bool whole_;
};

}  // namespace

TrainChart::TrainChart(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    plot_ = new QCustomPlot(this);
    layout->addWidget(plot_);
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0, new QCPTextElement(plot_, QString()));
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new NumberTicker(true)));
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new NumberTicker(false)));
    // The legend in a column of its own right of the plot, so no line hides behind it: one
    // column per layer, a head per row.
    auto* legendColumn = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 1, legendColumn);
    legendColumn->addElement(0, 0, plot_->legend);
    legendColumn->setMargins(QMargins(0, 0, 0, 0));
    plot_->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
    plot_->legend->setRowSpacing(0);
    plot_->legend->setColumnSpacing(2);
    plot_->legend->setVisible(false);
    plot_->plotLayout()->setColumnStretchFactor(1, 0.001);
    markerLine_ = new QCPItemStraightLine(plot_);
    markerLine_->setVisible(false);
    applyColours();
}

void TrainChart::setLabels(const QString& title, const QString& xLabel, const QString& yLabel) {
    if (auto* t = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0)))
        t->setText(title);
    plot_->xAxis->setLabel(xLabel);
    plot_->yAxis->setLabel(yLabel);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void TrainChart::setValueRange(double lower, double upper) {
    fixedRange_ = true;
    plot_->yAxis->setRange(lower, upper);
    rescale();
}

void TrainChart::setSeries(const std::vector<Series>& series) {
    plot_->clearGraphs();
    layers_.clear();
    heads_.clear();
    for (const Series& s : series) {
        QCPGraph* g = plot_->addGraph();
        g->setName(s.name);
        QVector<double> keys(s.steps.begin(), s.steps.end());
        QVector<double> values(s.values.begin(), s.values.end());
        g->setData(keys, values, true);
        layers_.push_back(s.layer);
        heads_.push_back(s.head);
    }
    // One legend column per layer: wrap after the heads of a layer.
    int headsPerLayer = 1;
    for (const Series& s : series) headsPerLayer = std::max(headsPerLayer, s.head + 1);
    plot_->legend->setWrap(headsPerLayer);
    plot_->legend->setVisible(series.size() > 1);
    applyColours();
    rescale();
}

void TrainChart::appendPoints(int index, const std::vector<double>& steps,
                              const std::vector<double>& values) {
    if (index < 0 || index >= plot_->graphCount()) return;
    QVector<double> keys(steps.begin(), steps.end());
    QVector<double> v(values.begin(), values.end());
    plot_->graph(index)->addData(keys, v, true);
    rescale();
}

void TrainChart::setMarker(double step) {
    marker_ = step;
    markerLine_->setVisible(step >= 0.0);
    markerLine_->point1->setCoords(step, 0.0);
    markerLine_->point2->setCoords(step, 1.0);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void TrainChart::rescale() {
    double lastStep = 1.0;
    double low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < plot_->graphCount(); ++i) {
        const QCPGraph* g = plot_->graph(i);
        if (g->data()->isEmpty()) continue;
        lastStep = std::max(lastStep, (g->data()->constEnd() - 1)->key);
        bool found = false;
        const QCPRange r = g->getValueRange(found);
        if (found) {
            low = std::min(low, r.lower);
            high = std::max(high, r.upper);
        }
    }
    plot_->xAxis->setRange(0.0, lastStep);
    if (!fixedRange_) {
        if (std::isfinite(low) && std::isfinite(high))
            plot_->yAxis->setRange(std::min(0.0, low), high > low ? high * 1.05 : low + 1.0);
        else
            plot_->yAxis->setRange(0.0, 1.0);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void TrainChart::applyColours() {
    const QPalette& pal = palette();
    const QColor text = pal.color(QPalette::Text);
    const QColor muted = pal.color(QPalette::PlaceholderText);
    plot_->setBackground(pal.base());
    const QFont font = styleChartAxes(plot_, this->font(), text, muted);
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis})
        axis->grid()->setPen(QPen(pal.color(QPalette::Mid), 1, Qt::DotLine));
    if (auto* t = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0))) {
        QFont bold = font;
        bold.setBold(true);
        t->setFont(bold);
        t->setTextColor(text);
    }
    plot_->legend->setFont(font);
    plot_->legend->setTextColor(text);
    plot_->legend->setBrush(pal.base());
    plot_->legend->setBorderPen(QPen(muted));
    const bool many = plot_->graphCount() > 1;
    for (int i = 0; i < plot_->graphCount(); ++i) {
        const auto k = static_cast<std::size_t>(i);
        QPen pen(many ? ExploreLinesView::headColor(heads_[k]) : pal.color(QPalette::Highlight));
        pen.setWidthF(2.0);
        // Layer 1 dashed, later layers solid: the two layers' heads apart without a legend.
        if (many && layers_[k] == 0) pen.setStyle(Qt::DashLine);
        plot_->graph(i)->setPen(pen);
    }
    QPen markerPen(text);
    markerPen.setWidthF(1.5);
    markerPen.setStyle(Qt::DotLine);
    markerLine_->setPen(markerPen);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

int TrainChart::seriesCount() const { return plot_->graphCount(); }

int TrainChart::pointCount(int index) const {
    return index >= 0 && index < plot_->graphCount() ? plot_->graph(index)->data()->size() : 0;
}

double TrainChart::valueAt(int index, int i) const {
    if (i < 0 || i >= pointCount(index)) return std::numeric_limits<double>::quiet_NaN();
    return (plot_->graph(index)->data()->constBegin() + i)->value;
}

double TrainChart::stepAt(int index, int i) const {
    if (i < 0 || i >= pointCount(index)) return std::numeric_limits<double>::quiet_NaN();
    return (plot_->graph(index)->data()->constBegin() + i)->key;
}

QString TrainChart::seriesName(int index) const {
    return index >= 0 && index < plot_->graphCount() ? plot_->graph(index)->name() : QString();
}

QSize TrainChart::sizeHint() const { return {480, 240}; }

QSize TrainChart::minimumSizeHint() const { return {240, 140}; }

void TrainChart::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        applyColours();
    QWidget::changeEvent(event);
}

}  // namespace views
