// ExploreWindow's view tabs that draw more than one widget's worth from a run: the KV cache,
// the weight split, cross-attention and FlashAttention's tiles, plus the window's sizing. A file
// of its own to keep explore_window.cpp short.
#include <QGuiApplication>
#include <QLabel>
#include <QScreen>
#include <QSpinBox>
#include <QTabWidget>
#include <algorithm>
#include <cmath>

#include "app/gui/explore_window.h"
#include "app/gui/window_geometry.h"
#include "model/explain_attention.h"
#include "model/kv_trace.h"
#include "model/number_format.h"
#include "views/explore_heads_grid.h"
#include "views/explore_kv_stepper.h"
#include "views/explore_lines_view.h"
#include "views/explore_parameter_panel.h"
#include "views/explore_tiles_view.h"
#include "views/explore_weight_split.h"
#include "views/heatmap_widget.h"
#include "views/number_text.h"

QStringList ExploreWindow::labelsOf(const attn::Sequence& s) {
    QStringList out;
    for (const std::string& t : s.tokens) out << QString::fromStdString(t);
    return out;
}

std::vector<attn::BoolMatrix> ExploreWindow::droppedOf(const attn::RunResult& r,
                                                       std::size_t batch) {
    std::vector<attn::BoolMatrix> out;
    if (!r.training || r.config.dropout <= 0.0f || r.output.heads.size() <= batch) return out;
    for (const attn::AttentionResult& head : r.output.heads[batch]) {
        attn::BoolMatrix dropped =
            attn::BoolMatrix::Constant(head.kept.rows(), head.kept.cols(), false);
        // A masked cell is 0 before dropout: only weights that were there can be dropped.
        for (Eigen::Index i = 0; i < head.kept.rows(); ++i)
            for (Eigen::Index j = 0; j < head.kept.cols(); ++j)
                dropped(i, j) =
                    !head.kept(i, j) && !(head.blocked.size() > 0 && head.blocked(i, j));
        out.push_back(std::move(dropped));
    }
    return out;
}

void ExploreWindow::updateKvStepper() {
    const std::shared_ptr<const attn::RunResult> r = session_->result();
    if (!r) return;
    const ExploreState& from = session_->resultState();
    const QStringList tokens = labelsOf(from.inputs);
    try {
        const attn::KvTraceConfig config = attn::kv_trace_config(*r, from.inputs.embeddings.cols());
        attn::KvTrace trace = attn::build_kv_trace(from.inputs, config);
        QString note;
        if (r->config.module != attn::ModuleKind::MultiHeadAttention)
            note = tr("The cache is shown for a MultiHeadAttention with d_out = d_in = %1 and %2 "
                      "heads drawn from seed %3 (the KV cache belongs to decoder modules).")
                       .arg(config.d_out)
                       .arg(config.num_heads)
                       .arg(config.seed);
        if (trace.truncated)
            note += tr(" Only the first %n token(s) are stepped through.", nullptr,
                       static_cast<int>(trace.steps.size()));
        if (r->training && r->config.dropout > 0.0f)
            note += QStringLiteral(" ") + kvDropoutReason();
        // Decoding feeds one sentence from position 0; the other tabs' masks do not apply.
        if (r->config.window > 0 || !r->config.lengths.empty() || r->config.position_offset != 0)
            note += (note.isEmpty() ? QString() : QStringLiteral(" ")) +
                    tr("The cache decodes the tokens one at a time from position 0: the sliding "
                       "window, the sentence lengths and the position offset of the other tabs "
                       "are not applied here.");
        kvStepper_->setTrace(std::move(trace), tokens, note);
    } catch (const attn::AttentionError& e) {
        kvStepper_->setTrace({}, tokens, QString::fromUtf8(e.what()));
    }
}

QString ExploreWindow::kvDropoutReason() const {
    return tr("Dropout is off in the KV cache: a cache is used when generating text, at "
              "inference, where nn.Dropout does nothing. The other tabs use p = %1.")
        .arg(views::shortestText(session_->state().config.dropout));
}

void ExploreWindow::updateDropoutNote() {
    const ExploreState& s = session_->state();
    const bool kv = tabs_->currentWidget() == kvStepper_;
    panel_->setDropoutUnavailable(kv && s.config.module &&
                                          attn::module_info(*s.config.module).uses_dropout
                                      ? kvDropoutReason()
                                      : QString());
}

void ExploreWindow::fitToScreen() { fitWindowToScreen(this, QSize(1500, 920)); }

void ExploreWindow::updateWeightSplit() {
    const std::shared_ptr<const attn::RunResult> r = session_->result();
    if (!r) return;
    const ExploreState& from = session_->resultState();
    views::WeightSplitData split;
    // The heads that remain: GPT-2's pruned heads have left the fused projection.
    const attn::FusedProjections fused = attn::fused_projections(*r);
    split.num_heads =
        fused.head_dim > 0 ? fused.query.cols() / fused.head_dim : r->config.num_heads;
    split.tokens = labelsOf(from.inputs);
    split.output = r->output.context_vecs[0];
    if (!r->output.concat.empty()) split.concat = r->output.concat[0];
    const attn::ModuleKind module = *r->config.module;
    // The model reads every module's own parameter layout as x · W; the view shows nn.Linear's
    // (out, in), one head per block of rows.
    split.fused_query = fused.query.transpose();
    split.out_proj = fused.out_proj.transpose();
    if (module == attn::ModuleKind::Gpt2Attention) {
        split.note =
            tr("GPT-2 fuses query, key and value into one c_attn (Conv1D, x · W): its "
               "first d_model columns are W_query, shown transposed.");
    } else if (module == attn::ModuleKind::MultiHeadWrapper) {
        split.note =
            tr("MultiHeadAttentionWrapper keeps one W_query per head (heads.h.W_query): "
               "nothing is split; the heads' outputs are concatenated and there is no "
               "out_proj.");
    } else if (fused.query.size() == 0) {
        const std::string_view name = attn::module_name(module);
        split.note = tr("%1 has a single head: there is nothing to split. Choose "
                        "multi-head-attention to see the split.")
                         .arg(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())));
    }
    split_->setData(split);
}

void ExploreWindow::updateCross() {
    const std::shared_ptr<const attn::RunResult> r = session_->result();
    if (!r) return;
    const ExploreState& from = session_->resultState();
    if (!from.usesSource()) {
        crossNote_->setText(
            tr("Choose the module cross-attention: the tokens ask the queries, "
               "the source sequence (its own tab on the left) gives keys and "
               "values, e.g. a sentence and its translation."));
        crossHeatmap_->clear();
        crossLines_->setData({}, {}, {});
        crossHead_->setEnabled(false);
        return;
    }
    const std::vector<attn::AttentionResult>& heads = r->output.heads[0];
    crossHead_->setEnabled(true);
    crossHead_->setMaximum(static_cast<int>(heads.size()));
    const int h = std::clamp(crossHead_->value() - 1, 0, static_cast<int>(heads.size()) - 1);
    const QStringList target = labelsOf(from.inputs), source = labelsOf(from.source);
    crossNote_->setText(tr("Queries from %1, keys and values from %2: the weight matrix is "
                           "%3 × %4, not square, and there is no causal mask. Edit both "
                           "sequences on the left.")
                            .arg(tr("%n target token(s)", nullptr, static_cast<int>(target.size())),
                                 tr("%n source token(s)", nullptr, static_cast<int>(source.size())))
                            .arg(target.size())
                            .arg(source.size()));
    // The weights the values were averaged with: after dropout, its zeroed cells marked.
    const attn::Matrix& w = heads[static_cast<std::size_t>(h)].dropped;
    const std::vector<attn::BoolMatrix> dropped = droppedOf(*r);
    try {
        if (w.rows() > 128 || w.cols() > 128) {
            crossHeatmap_->setMatrix(views::downsampleMatrix(w, 128));
            crossHeatmap_->setTooltipProvider({});
        } else {
            crossHeatmap_->setMatrix(w, target, source);
            if (static_cast<std::size_t>(h) < dropped.size())
                crossHeatmap_->setDropped(dropped[static_cast<std::size_t>(h)]);
            crossHeatmap_->setTooltipProvider([r, h](int row, int column) {
                return QString::fromStdString(
                    attn::explain_attention_weight(*r, static_cast<std::size_t>(h), row, column));
            });
        }
    } catch (const attn::AttentionError&) {
        crossHeatmap_->clear();
    }
    crossHeatmap_->setTitle(tr("attn_weights, head %1").arg(h + 1));
    crossHeatmap_->setAxisTitles(tr("target (queries)"), tr("source (keys)"));
    crossLines_->setHeadings(tr("target (queries)"), tr("source (keys)"));
    // Dropout scales kept weights by 1 / (1 − p): the range grows with them.
    const float top =
        w.size() > 0 ? w.unaryExpr([](float v) { return std::isfinite(v) ? v : 0.0f; }).maxCoeff()
                     : 1.0f;
    crossHeatmap_->setValueRange(0.0, std::max(1.0, static_cast<double>(top)));
    std::vector<attn::Matrix> all;
    for (const attn::AttentionResult& head : heads) all.push_back(head.dropped);
    crossLines_->setData(target, source, all);
}

void ExploreWindow::updateHeadsGrid() {
    const std::shared_ptr<const attn::RunResult> r = session_->result();
    if (!r || r->output.heads.empty()) return;
    const ExploreState& from = session_->resultState();
    const QStringList queries = labelsOf(from.inputs);
    const QStringList keys = from.usesSource() ? labelsOf(from.source) : queries;
    // A padded batch: one entry per sentence, named with its length.
    QStringList sentences;
    for (std::size_t b = 0; b < r->output.heads.size(); ++b)
        sentences << (b < r->config.lengths.size()
                          ? tr("sentence %1 (length %2)").arg(b + 1).arg(r->config.lengths[b])
                          : tr("sentence %1").arg(b + 1));
    grid_->setSentences(sentences);
    const std::size_t b = std::min<std::size_t>(static_cast<std::size_t>(grid_->sentence()),
                                                r->output.heads.size() - 1);
    std::vector<attn::Matrix> weights;
    std::vector<attn::BoolMatrix> blocked;
    for (const attn::AttentionResult& head : r->output.heads[b]) {
        weights.push_back(head.dropped);
        blocked.push_back(head.blocked);
    }
    // The explanations are of batch item 0; other sentences show the plain value.
    if (b == 0)
        grid_->setTooltipProvider([r](int head, int row, int column) {
            return QString::fromStdString(
                attn::explain_attention_weight(*r, static_cast<std::size_t>(head), row, column));
        });
    else
        grid_->setTooltipProvider({});
    grid_->setKvHeads(static_cast<int>(r->config.num_kv_heads));
    grid_->setHeads(weights, queries, keys, blocked, droppedOf(*r, b));
    // A clicked head is the one File ▸ Export ▸ Head figure draws. The grid keeps its heatmaps
    // while the head count stays, so each is connected once.
    for (int h = 0; h < grid_->headCount(); ++h) {
        views::HeatmapWidget* map = grid_->heatmap(h);
        disconnect(map, &views::HeatmapWidget::cellClicked, this, nullptr);
        connect(map, &views::HeatmapWidget::cellClicked, this, [this, h] { shownHead_ = h; });
    }
}

void ExploreWindow::updateTiles() {
    const std::shared_ptr<const attn::RunResult> r = session_->result();
    tiles_->setTiles(r ? attn::run_tiles(*r, session_->resultState().inputs.tokens, tiles_->head(),
                                         tiles_->queryTile(), tiles_->keyTile(),
                                         views::ExploreTilesView::kMaxTiles)
                       : attn::RunTiles{});
}
