#include "views/explore_weight_split.h"

#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

#include "views/explore_lines_view.h"
#include "views/heatmap_widget.h"

namespace views {

namespace {

constexpr int kSlicesPerRow = 3;

void showMatrix(HeatmapWidget* map, const attn::Matrix& m, const QStringList& rows = {},
                const QStringList& cols = {}) {
    map->setVisible(m.size() > 0);
    if (m.size() == 0) return;
    try {
        const bool fit = (rows.isEmpty() || rows.size() == m.rows()) &&
                         (cols.isEmpty() || cols.size() == m.cols());
        map->setMatrix(m, fit ? rows : QStringList(), fit ? cols : QStringList());
    } catch (const attn::AttentionError&) {
        map->clear();
    }
}

}  // namespace

ExploreWeightSplit::ExploreWeightSplit(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    note_ = new QLabel(this);
    note_->setWordWrap(true);
    layout->addWidget(note_);
    auto* top = new QHBoxLayout;
    fused_ = new HeatmapWidget(this);
    top->addWidget(fused_, 2);
    // The per-head slices, up to three in a row; more rows scroll instead of widening the window.
    auto* slicesArea = new QScrollArea(this);
    slicesArea->setWidgetResizable(true);
    slicesArea->setFrameShape(QFrame::NoFrame);
    auto* slicesBox = new QWidget(slicesArea);
    slicesLayout_ = new QGridLayout(slicesBox);
    slicesLayout_->setContentsMargins(0, 0, 0, 0);
    slicesArea->setWidget(slicesBox);
    top->addWidget(slicesArea, 3);
    layout->addLayout(top, 1);
    auto* bottom = new QHBoxLayout;
    concat_ = new HeatmapWidget(this);
    outProj_ = new HeatmapWidget(this);
    output_ = new HeatmapWidget(this);
    bottom->addWidget(concat_, 2);
    bottom->addWidget(outProj_, 2);
    bottom->addWidget(output_, 2);
    layout->addLayout(bottom, 1);
    for (HeatmapWidget* map : {fused_, concat_, outProj_, output_}) {
        map->setColorMap(QStringLiteral("diverging"));
        map->setDecimals(2);
        map->setMinimumSize(180, 150);
    }
}

HeatmapWidget* ExploreWeightSplit::slice(int head) const {
    return head >= 0 && head < sliceCount() ? slices_[static_cast<std::size_t>(head)] : nullptr;
}

QString ExploreWeightSplit::noteText() const { return note_->text(); }

void ExploreWeightSplit::setData(const WeightSplitData& split) {
    const Eigen::Index heads = split.num_heads;
    const bool sliced =
        split.fused_query.size() > 0 && heads > 1 && split.fused_query.rows() % heads == 0;
    const Eigen::Index hd = sliced ? split.fused_query.rows() / heads : split.fused_query.rows();
    // Seed 003's multi-head module has no out_proj, and its values may be narrower than its
    // queries: the concatenated heads are the output.
    const bool mixed = split.out_proj.size() > 0;
    QString text = split.note;
    if (sliced) {
        text = mixed ? tr("W_query is one (d_out = %1, d_in = %2) matrix. Head h takes its rows "
                          "h·head_dim … (h+1)·head_dim − 1 (head_dim = %3): the %4 heads are %4 "
                          "independent projections stored side by side. Their context vectors "
                          "are concatenated back to width %1 before out_proj mixes them.")
                           .arg(split.fused_query.rows())
                           .arg(split.fused_query.cols())
                           .arg(hd)
                           .arg(heads)
                     : tr("W_query is one (dim_k = %1, d_in = %2) matrix. Head h takes its rows "
                          "h·head_dim … (h+1)·head_dim − 1 (head_dim = %3): the %4 heads are %4 "
                          "independent projections stored side by side. Their context vectors, "
                          "concatenated to width %5, are the output: this module has no "
                          "out_proj.")
                           .arg(split.fused_query.rows())
                           .arg(split.fused_query.cols())
                           .arg(hd)
                           .arg(heads)
                           .arg(split.concat.cols());
        if (!split.note.isEmpty()) text += QStringLiteral(" ") + split.note;
    }
    note_->setText(text);

    QStringList rowLabels;
    for (Eigen::Index r = 0; r < split.fused_query.rows(); ++r)
        rowLabels << (sliced ? tr("h%1·%2").arg(r / hd + 1).arg(r % hd + 1)
                             : QString::number(r + 1));
    showMatrix(fused_, split.fused_query, rowLabels);
    fused_->setTitle(tr("fused W_query.weight"));

    const std::size_t wanted = sliced ? static_cast<std::size_t>(heads) : 0;
    while (slices_.size() > wanted) {
        delete slices_.back();
        slices_.pop_back();
    }
    while (slices_.size() < wanted) {
        auto* map = new HeatmapWidget(slicesLayout_->parentWidget());
        map->setColorMap(QStringLiteral("diverging"));
        map->setDecimals(2);
        map->setMinimumSize(200, 150);
        const int index = static_cast<int>(slices_.size());
        slicesLayout_->addWidget(map, index / kSlicesPerRow, index % kSlicesPerRow);
        slices_.push_back(map);
    }
    for (std::size_t h = 0; h < wanted; ++h) {
        const Eigen::Index hh = static_cast<Eigen::Index>(h);
        showMatrix(slices_[h], split.fused_query.middleRows(hh * hd, hd),
                   rowLabels.mid(hh * hd, hd));
        slices_[h]->setTitle(tr("head %1 slice").arg(h + 1));
        // The head's colour, as in the lines view, ties the slice to its lines.
        slices_[h]->setStyleSheet(
            QStringLiteral("border-top: 4px solid %1;")
                .arg(ExploreLinesView::headColor(static_cast<int>(h)).name()));
    }

    QStringList concatColumns;
    const Eigen::Index chd =
        heads > 0 && split.concat.cols() % heads == 0 ? split.concat.cols() / heads : 0;
    for (Eigen::Index c = 0; c < split.concat.cols(); ++c)
        concatColumns << (chd > 0 ? tr("h%1·%2").arg(c / chd + 1).arg(c % chd + 1)
                                  : QString::number(c + 1));
    showMatrix(concat_, split.concat, split.tokens, concatColumns);
    concat_->setTitle(tr("heads concatenated (T, H·head_dim)"));
    showMatrix(outProj_, split.out_proj, {}, concatColumns);
    outProj_->setTitle(tr("out_proj.weight"));
    outProj_->setVisible(mixed);
    showMatrix(output_, split.output, split.tokens);
    output_->setTitle(mixed ? tr("context_vecs = concat · out_projᵀ + b")
                            : tr("context_vecs = concat (no out_proj)"));
}

}  // namespace views
