// ExploreWeightSplit: how multi-head attention cuts one fused projection into heads and puts
// them back together. Top: the fused W_query (nn.Linear layout (d_out, d_in)) and its per-head
// slices of head_dim rows each; bottom: the heads' context vectors concatenated (T, H·hd), then
// out_proj and the module's output. The window finds the matrices; this widget draws them.
#pragma once

#include <QStringList>
#include <QWidget>
#include <vector>

#include "model/tensor.h"

class QGridLayout;
class QLabel;

namespace views {

class HeatmapWidget;

struct WeightSplitData {
    attn::Matrix fused_query;  // (d_out, d_in); empty when the module has no fused projection
    Eigen::Index num_heads = 1;
    attn::Matrix concat;    // (T, H·hd) before out_proj; empty for single-head modules
    attn::Matrix out_proj;  // (d_out, H·hd) Linear layout; empty when there is none
    attn::Matrix output;    // (T, d_out) context_vecs
    QStringList tokens;
    QString note;  // why something is missing, e.g. "one head: nothing to split"
};

class ExploreWeightSplit : public QWidget {
    Q_OBJECT

public:
    explicit ExploreWeightSplit(QWidget* parent = nullptr);
    void setData(const WeightSplitData& data);
    int sliceCount() const { return static_cast<int>(slices_.size()); }
    HeatmapWidget* slice(int head) const;
    HeatmapWidget* concatHeatmap() const { return concat_; }
    HeatmapWidget* outProjHeatmap() const { return outProj_; }
    HeatmapWidget* outputHeatmap() const { return output_; }
    QString noteText() const;

private:
    QLabel* note_ = nullptr;
    HeatmapWidget* fused_ = nullptr;
    QGridLayout* slicesLayout_ = nullptr;  // in a scroll area: 12 slices do not widen the window
    std::vector<HeatmapWidget*> slices_;
    HeatmapWidget* concat_ = nullptr;
    HeatmapWidget* outProj_ = nullptr;
    HeatmapWidget* output_ = nullptr;
};

}  // namespace views
