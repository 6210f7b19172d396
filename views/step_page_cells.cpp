// StepPage, explaining cells: the formula of a hovered or clicked cell in the bar under the
// heatmaps, the cells it came from outlined, and the step's own highlights when none is explained.
#include <QLabel>

#include "views/heatmap_widget.h"
#include "views/matrix_panel.h"
#include "views/step_page.h"
#include "views/step_texts.h"

namespace views {

QString StepPage::cellFormula(const QString& matrixId, int row, int column) const {
    const attn::StepMatrix* m = shownMatrix(matrixId);
    return m ? cellHoverText(step_, *m, row, column, inference_) : QString();
}

QString StepPage::explainCell(const QString& matrixId, int row, int column) {
    const int index = panelIndex(matrixId.toStdString());
    if (index < 0) return {};
    showCell(index, row, column);
    return explanationBarText();
}

QString StepPage::explanationBarText() const { return cellBar_->property("plainText").toString(); }

void StepPage::onCellHovered(int panelIndex, int row, int column) {
    showCell(panelIndex, row, column);
}

void StepPage::onCellClicked(int panelIndex, int row, int column) {
    pinned_ = std::make_pair(panelIndex, std::make_pair(row, column));
    showCell(panelIndex, row, column);
}

void StepPage::onHoverLeft() {
    if (pinned_)
        showCell(pinned_->first, pinned_->second.first, pinned_->second.second);
    else
        resetHighlights();
}

void StepPage::showCell(int index, int row, int column) {
    if (index < 0 || index >= static_cast<int>(panels_.size())) return;
    const QString id = QString::fromStdString(ids_[static_cast<std::size_t>(index)]);
    const attn::StepMatrix* m = shownMatrix(id);
    if (!m || row < 0 || column < 0 || row >= m->values.rows() || column >= m->values.cols())
        return;
    for (MatrixPanel* p : panels_) p->heatmap->clearHighlight();
    panels_[static_cast<std::size_t>(index)]->heatmap->highlightCell(row, column);

    HeatmapWidget* lhs = m->lhs.empty() ? nullptr : heatmap(QString::fromStdString(m->lhs));
    HeatmapWidget* rhs = m->rhs.empty() ? nullptr : heatmap(QString::fromStdString(m->rhs));
    using attn::Derivation;
    switch (m->derivation) {
        case Derivation::None:
            break;
        case Derivation::DotProduct:
            // ω_ij = q_i · k_j: the query row of the left matrix, the key row of the right one.
            // When both are the same matrix (x · xᵀ) the key row wins: the query is the
            // highlighted row of the result already.
            if (lhs) lhs->highlightRow(row);
            if (rhs) rhs->highlightRow(column);
            break;
        case Derivation::Projection:
        case Derivation::WeightedSum:
        case Derivation::Linear:
            if (lhs) lhs->highlightRow(row);
            if (rhs) rhs->highlightColumn(column);
            break;
        case Derivation::Softmax:
        case Derivation::NaiveSoftmax:
        case Derivation::NaiveNorm:
        case Derivation::Renormalize:
            // The whole row enters the denominator.
            if (lhs) {
                lhs->highlightRow(row);
                lhs->highlightCell(row, column);
            }
            break;
        case Derivation::RunningMax:
        case Derivation::RunningSum:
        case Derivation::RunningOutput:
            if (lhs) lhs->highlightRow(row);  // the tile's scores of this query
            break;
        case Derivation::Concat:
        case Derivation::CausalMask:
        case Derivation::RuleMask:
        case Derivation::RescaleFactor:
        case Derivation::TileNormalize:
        case Derivation::TileMap:
        case Derivation::KvHeadMap:
        case Derivation::RopeAngle:
            break;
        case Derivation::RopeRotation:
            // The coordinate and its partner of the same token, rotated by that token's angle.
            if (lhs) lhs->highlightRow(row);
            if (rhs) rhs->highlightRow(row);
            break;
        case Derivation::Scale:
        case Derivation::MaskProduct:
        case Derivation::MaskedFill:
        case Derivation::Dropout:
        case Derivation::Difference:
            if (lhs) lhs->highlightCell(row, column);
            if (rhs) rhs->highlightCell(row, column);
            break;
    }

    const std::size_t r = static_cast<std::size_t>(row);
    const std::size_t c = static_cast<std::size_t>(column);
    const QString rowLabel = r < m->row_labels.size() ? QString::fromStdString(m->row_labels[r])
                                                      : QString::number(row + 1);
    const QString colLabel = c < m->col_labels.size() ? QString::fromStdString(m->col_labels[c])
                                                      : QString::number(column + 1);
    const QString where = tr("%1 — row “%2”, column “%3”").arg(caption(id), rowLabel, colLabel);
    const QString formula = cellFormula(id, row, column);
    cellBar_->setText(QStringLiteral("<span>%1</span><br><span style='font-size:%3pt'>%2</span>")
                          .arg(where.toHtmlEscaped(), formula.toHtmlEscaped())
                          .arg(cellBar_->font().pointSizeF() * 1.25));
    cellBar_->setProperty("plainText", where + QLatin1Char('\n') + formula);
}

void StepPage::resetHighlights() {
    for (MatrixPanel* p : panels_) p->heatmap->clearHighlight();
    applyStepHighlights();
    const QString hint =
        tr("Point at a cell to see how it is computed from the other matrices; "
           "click it to keep the explanation.");
    cellBar_->setText(QStringLiteral("<span>%1</span>").arg(hint.toHtmlEscaped()));
    cellBar_->setProperty("plainText", hint);
}

void StepPage::applyStepHighlights() {
    for (const attn::Highlight& h : step_.highlights) {
        HeatmapWidget* map = heatmap(QString::fromStdString(h.matrix_id));
        if (!map) continue;
        const int row = static_cast<int>(h.row);
        const int col = static_cast<int>(h.col);
        if (row >= 0 && col >= 0)
            map->highlightCell(row, col);
        else if (row >= 0)
            map->highlightRow(row);
        else if (col >= 0)
            map->highlightColumn(col);
    }
    // Decoding frames: the row this token appended to a growing matrix (the cache).
    if (step_.frame_count > 0 && frame_ > 0 && frameText(step_, frame_).isEmpty()) {
        for (std::size_t i = 0; i < ids_.size(); ++i) {
            const QString id = QString::fromStdString(ids_[i]);
            const attn::StepMatrix* m = shownMatrix(id);
            if (!m || m->frame < 0 || m->values.rows() != frame_ + 1) continue;
            panels_[i]->heatmap->highlightRow(frame_);
        }
    }
}

}  // namespace views
