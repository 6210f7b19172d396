// MatrixPanel: one matrix of a step page, its caption, its heatmap and (on demand) its number
// table. Not a step widget: every page holds as many as its record has matrices.
#pragma once

#include <QFrame>
#include <QSize>
#include <QStringList>
#include <string>
#include <vector>

#include "model/walkthrough.h"

class QLabel;
class QTableWidget;

namespace views {

class HeatmapWidget;

// The record's labels as Qt strings.
QStringList toQStringList(const std::vector<std::string>& labels);
// Whether the record's mask hides cell (row, col); a record without a mask hides nothing.
bool isBlocked(const attn::StepMatrix& m, Eigen::Index row, Eigen::Index col);

class MatrixPanel : public QFrame {
public:
    explicit MatrixPanel(QWidget* parent);

    // The number table of `values` (the matrix as shown): 4 decimals (0 for a 0/1 mask), masked
    // cells shaded and filled scores shown as "−∞"; sized to its contents.
    void fillTable(const attn::StepMatrix& m, const attn::Matrix& values);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

    QLabel* caption = nullptr;
    HeatmapWidget* heatmap = nullptr;
    QTableWidget* table = nullptr;

private:
    void fitTable();
    QSize heatmapHint() const;
};

}  // namespace views
