// ExploreHeadsGrid: every head of the layer as a small heatmap of its attention weights, the
// "model view" of other tools. The colours span one range shared by all heads, each head's own
// range or each row's own (the default: with causal attention the first row's 1.0 would otherwise
// wash out every other row); clicking a head enlarges it in a dialog; hovering a row highlights
// the same query row in every head; hovering a cell shows its arithmetic (setTooltipProvider).
// Matrices larger than kMaxGridCells per side are shown as block averages and say so. With
// grouped-query attention each title names the K/V head its query head reads; a padded batch
// gets a sentence selector.
#pragma once

#include <QStringList>
#include <QWidget>
#include <functional>
#include <vector>

#include "model/tensor.h"

class QComboBox;
class QGridLayout;
class QLabel;

namespace views {

class HeatmapWidget;

class ExploreHeadsGrid : public QWidget {
    Q_OBJECT

public:
    static constexpr Eigen::Index kMaxGridCells = 64;

    explicit ExploreHeadsGrid(QWidget* parent = nullptr);

    // Which values each head's colours span.
    enum class Range { Shared, PerHead, PerRow };

    // One (T_q, T_k) weight matrix per head; blocked (masked) and dropped (zeroed by dropout)
    // cells per head or empty.
    void setHeads(const std::vector<attn::Matrix>& weights, const QStringList& rowLabels,
                  const QStringList& columnLabels,
                  const std::vector<attn::BoolMatrix>& blocked = {},
                  const std::vector<attn::BoolMatrix>& dropped = {});
    // Text of the hover over cell (row, column) of head `head`; used while cells are not block
    // averages. Empty function: the heatmap's own "row → column: value".
    void setTooltipProvider(std::function<QString(int head, int row, int column)> provider);
    int headCount() const { return static_cast<int>(heatmaps_.size()); }
    // K/V heads the query heads share (GQA); 0 or the head count: one each, titles say "head n".
    void setKvHeads(int numKvHeads);
    // One entry per sentence of the batch; the selector shows when there are two or more. Keeps
    // the chosen sentence when it is still there.
    void setSentences(const QStringList& names);
    int sentence() const;
    QComboBox* sentenceBox() const { return sentence_; }
    HeatmapWidget* heatmap(int head) const;

    void setRange(Range range);
    Range range() const;
    QComboBox* rangeBox() const { return range_; }
    // Outlines query row `row` in every head; -1 clears.
    void highlightRow(int row);
    // Opens head `head` large in a dialog (what a click does). Returns the dialog's heatmap.
    HeatmapWidget* enlarge(int head);
    // True when the matrices are shown as block averages.
    bool simplified() const { return simplified_; }

signals:
    void rowHovered(int row);  // -1 when the pointer left
    void sentenceChanged(int sentence);

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    void retranslate();
    // Masks, dropout marks and hovers of head h onto `map` when it shows the full matrix.
    void decorate(HeatmapWidget* map, std::size_t h) const;

    std::vector<attn::Matrix> weights_;
    std::vector<attn::BoolMatrix> blocked_;
    std::vector<attn::BoolMatrix> dropped_;
    std::function<QString(int, int, int)> tooltip_;
    QStringList rowLabels_, columnLabels_;
    std::vector<HeatmapWidget*> heatmaps_;
    QGridLayout* grid_ = nullptr;
    QComboBox* range_ = nullptr;
    QLabel* rangeCaption_ = nullptr;
    QLabel* note_ = nullptr;
    QLabel* sentenceCaption_ = nullptr;
    QComboBox* sentence_ = nullptr;
    int kvHeads_ = 0;
    bool simplified_ = false;
};

// Block means of m down to at most maxCells per side (cells of blocked entries count as 0);
// m itself when it is small enough. Used by the views that simplify long sequences.
attn::Matrix downsampleMatrix(const attn::Matrix& m, Eigen::Index maxCells);
QStringList downsampleLabels(const QStringList& labels, Eigen::Index maxCells);

}  // namespace views
