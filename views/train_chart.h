// TrainChart: values over training steps as lines, for the Train window: the loss of every step,
// where the phase change shows as a sudden drop, or one line per head of a head score (legend
// "L1 H2", layer 1 dashed so the two layers part at a glance; the heads' colours are the lines
// view's). A vertical marker shows the step the timeline is on. Draw only: the window hands it the
// numbers.
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

class QCustomPlot;
class QCPItemStraightLine;

namespace views {

class TrainChart : public QWidget {
    Q_OBJECT

public:
    // One line: its legend name ("loss", "L1 H2"), the steps and the values at them.
    struct Series {
        QString name;
        int layer = 0;  // from 0; layer 0's lines are dashed when there is more than one line
        int head = 0;   // from 0; the colour
        std::vector<double> steps, values;
    };

    explicit TrainChart(QWidget* parent = nullptr);

    // Replaces the lines. A single line is drawn without a legend.
    void setSeries(const std::vector<Series>& series);
    // Appends points to line `index` (the loss, every step, without copying the history).
    void appendPoints(int index, const std::vector<double>& steps,
                      const std::vector<double>& values);
    void setLabels(const QString& title, const QString& xLabel, const QString& yLabel);
    // Fixed value axis (scores: 0 to 1); without it the axis spans the data.
    void setValueRange(double lower, double upper);
    // The step the timeline is on; < 0 hides the marker.
    void setMarker(double step);
    double marker() const { return marker_; }

    int seriesCount() const;
    int pointCount(int index) const;
    // The value of line `index` at its point `i`, and that point's step.
    double valueAt(int index, int i) const;
    double stepAt(int index, int i) const;
    QString seriesName(int index) const;
    QCustomPlot* plot() const { return plot_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void changeEvent(QEvent* event) override;

private:
    void rescale();
    void applyColours();

    QCustomPlot* plot_ = nullptr;
    QCPItemStraightLine* markerLine_ = nullptr;
    double marker_ = -1.0;
    bool fixedRange_ = false;
    std::vector<int> layers_, heads_;
};

}  // namespace views
