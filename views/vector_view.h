// VectorView: the token embeddings as arrows from the origin in a plane of two of their
// dimensions (the tutorial draws them in 3-D; two chosen axes read better on a flat screen and a
// projector). Draws only; the vectors come from the walkthrough's "inputs" matrix.
#pragma once

#include <QStringList>
#include <QWidget>

#include "model/tensor.h"

class QComboBox;
class QCustomPlot;
class QLabel;

namespace views {

class VectorView : public QWidget {
    Q_OBJECT

public:
    explicit VectorView(QWidget* parent = nullptr);

    // vectors (T, d): one token per row; highlighted = the row drawn in the accent colour, or -1.
    void setVectors(const attn::Matrix& vectors, const QStringList& labels, int highlighted = -1);
    // The two dimensions shown, 0-based (clamped to the vectors' width).
    void setDimensions(int xDim, int yDim);
    int xDimension() const { return xDim_; }
    int yDimension() const { return yDim_; }
    int pointCount() const { return static_cast<int>(vectors_.rows()); }
    // Fonts and lines multiplied (presentation mode).
    void setScale(double scale);
    QCustomPlot* plot() const { return plot_; }
    QSize sizeHint() const override;

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    void retranslate();
    void fillPairs();

    attn::Matrix vectors_;
    QStringList labels_;
    int highlighted_ = -1;
    int xDim_ = 0;
    int yDim_ = 1;
    double scale_ = 1.0;
    QLabel* pairLabel_ = nullptr;
    QComboBox* pairs_ = nullptr;
    QCustomPlot* plot_ = nullptr;
};

}  // namespace views
