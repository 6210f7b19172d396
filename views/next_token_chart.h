// NextTokenChart: the model's most likely next tokens as horizontal bars, the most likely at the
// top, each bar ending in its probability as a percentage; the token labels are the display
// strings ("␣journey"), long ones elided. The chart follows the palette on screen and is drawn
// black on white (or on nothing) as a figure, like the heatmaps.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

#include "views/figure_render.h"

class QCustomPlot;
class QCPBars;

namespace views {

struct NextToken {
    QString token;  // display string, "␣journey"
    int id = -1;
    double prob = 0.0;
};

class NextTokenChart : public QWidget {
    Q_OBJECT

public:
    // Labels longer than this many characters are elided (the tooltip and CSV keep them whole).
    static constexpr int kMaxLabelChars = 16;

    explicit NextTokenChart(QWidget* parent = nullptr);

    // Drawn in the order of decreasing probability, whatever the order given.
    void setPredictions(const std::vector<NextToken>& predictions);
    // What the probabilities are of: the token after the text (a decoder), or the token at a
    // [MASK] (a masked LM's fillers); the axis title says which.
    enum class Meaning { NextToken, MaskFiller };
    void setMeaning(Meaning meaning);
    QString axisTitle() const;
    int barCount() const { return static_cast<int>(predictions_.size()); }
    // The bars from the top: their tokens, labels as drawn, and the texts at their ends.
    std::vector<NextToken> bars() const { return predictions_; }
    QStringList barLabels() const;
    QStringList barTexts() const;
    // PNG, SVG or PDF of the chart as drawn (in figure colours), or CSV "token,id,prob" rows.
    // Empty with *error (if given) when there is nothing to draw or the drawing failed.
    QByteArray renderBytes(FigureFormat format, QString* error) const;
    // The size a figure gets: the screen's width, a row per bar.
    QSize figureSize() const;
    QCustomPlot* plot() const { return plot_; }

    QSize sizeHint() const override;

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    void applyColours(bool figure) const;
    QString percentText(double prob) const;

    QCustomPlot* plot_ = nullptr;
    QCPBars* bars_ = nullptr;
    std::vector<NextToken> predictions_;
    Meaning meaning_ = Meaning::NextToken;
};

}  // namespace views
