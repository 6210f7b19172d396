// ExploreHeadsGrid: every head of the layer as a small heatmap of its attention weights, the
// "model view" of other tools. The colour scale is shared by all heads or per head; clicking a
// head enlarges it in a dialog; hovering a row highlights the same query row in every head.
// Matrices larger than kMaxGridCells per side are shown as block averages and say so.
#pragma once

#include <QStringList>
#include <QWidget>
#include <vector>

#include "model/tensor.h"

class QCheckBox;
class QGridLayout;
class QLabel;

namespace attn {
class HeatmapWidget;
}

namespace views {

class ExploreHeadsGrid : public QWidget {
    Q_OBJECT

public:
    static constexpr Eigen::Index kMaxGridCells = 64;

    explicit ExploreHeadsGrid(QWidget* parent = nullptr);

    // One (T_q, T_k) weight matrix per head; blocked per head or empty.
    void setHeads(const std::vector<attn::Matrix>& weights, const QStringList& rowLabels,
                  const QStringList& columnLabels,
                  const std::vector<attn::BoolMatrix>& blocked = {});
    int headCount() const { return static_cast<int>(heatmaps_.size()); }
    attn::HeatmapWidget* heatmap(int head) const;

    void setSharedScale(bool shared);
    bool sharedScale() const;
    // Outlines query row `row` in every head; -1 clears.
    void highlightRow(int row);
    // Opens head `head` large in a dialog (what a click does). Returns the dialog's heatmap.
    attn::HeatmapWidget* enlarge(int head);
    // True when the matrices are shown as block averages.
    bool simplified() const { return simplified_; }

signals:
    void rowHovered(int row);  // -1 when the pointer left

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    void retranslate();

    std::vector<attn::Matrix> weights_;
    std::vector<attn::BoolMatrix> blocked_;
    QStringList rowLabels_, columnLabels_;
    std::vector<attn::HeatmapWidget*> heatmaps_;
    QGridLayout* grid_ = nullptr;
    QCheckBox* shared_ = nullptr;
    QLabel* note_ = nullptr;
    bool simplified_ = false;
};

// Block means of m down to at most maxCells per side (cells of blocked entries count as 0);
// m itself when it is small enough. Used by the views that simplify long sequences.
attn::Matrix downsampleMatrix(const attn::Matrix& m, Eigen::Index maxCells);
QStringList downsampleLabels(const QStringList& labels, Eigen::Index maxCells);

}  // namespace views
