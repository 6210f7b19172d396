#include "explore_tiles_view.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "model/ops.h"
#include "model/walkthrough_chapters.h"
#include "number_text.h"
#include "step_page.h"

namespace views {

namespace {

// The walkthrough's number of the "flash-tiles" step, so the page's title and its text's
// references ("step 11's context vectors") read as in the walkthrough.
int walkthroughTilesNumber() {
    static const int number = [] {
        for (const attn::Step& step : attn::build_walkthrough())
            if (step.id == "flash-tiles") return step.number;
        return 0;
    }();
    return number;
}

struct HeadProjections {
    attn::Matrix queries, keys, values;
    Eigen::Index kvHead = 0;
};

// Query head h's queries and the keys and values of the K/V head it reads (batch item 0), or
// nullopt when the module's projections do not split into heads (the wrapper's separate heads).
std::optional<HeadProjections> headProjections(const attn::RunResult& r, Eigen::Index h) {
    const attn::ModuleOutput& out = r.output;
    if (out.heads.empty() || out.queries.empty() || out.keys.empty() || out.values.empty())
        return std::nullopt;
    const Eigen::Index heads = static_cast<Eigen::Index>(out.heads[0].size());
    Eigen::Index kvHeads = r.config.num_kv_heads > 0 ? r.config.num_kv_heads : heads;
    if (heads < 1 || heads % kvHeads != 0) return std::nullopt;
    const attn::Matrix& q = out.queries[0];
    const attn::Matrix& k = out.keys[0];
    const attn::Matrix& v = out.values[0];
    if (q.cols() % heads != 0 || k.cols() % kvHeads != 0 || v.cols() % kvHeads != 0)
        return std::nullopt;
    const Eigen::Index hd = q.cols() / heads;
    if (k.cols() / kvHeads != hd) return std::nullopt;
    const Eigen::Index vd = v.cols() / kvHeads;
    HeadProjections p;
    p.kvHead = attn::kv_head_of(h, heads, kvHeads);
    p.queries = q.middleCols(h * hd, hd);
    p.keys = k.middleCols(p.kvHead * hd, hd);
    p.values = v.middleCols(p.kvHead * vd, vd);
    return p;
}

// Tiles the walk computes: all but those above the diagonal when causal (as tiles_step counts).
Eigen::Index computedTiles(Eigen::Index t, Eigen::Index bq, Eigen::Index bk, bool causal) {
    Eigen::Index n = 0;
    for (Eigen::Index i0 = 0; i0 < t; i0 += bq)
        for (Eigen::Index j0 = 0; j0 < t; j0 += bk)
            if (!causal || j0 <= std::min(t, i0 + bq) - 1) ++n;
    return n;
}

}  // namespace

ExploreTilesView::ExploreTilesView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    note_ = new QLabel(this);
    note_->setWordWrap(true);
    headCaption_ = new QLabel(this);
    queryTileCaption_ = new QLabel(this);
    keyTileCaption_ = new QLabel(this);
    head_ = new QSpinBox(this);
    queryTile_ = new QSpinBox(this);
    keyTile_ = new QSpinBox(this);
    head_->setMinimum(1);
    // The walkthrough's tiles: key tiles of 1 let the running maximum grow on short sequences.
    const attn::WalkthroughConfig defaults;
    queryTile_->setRange(1, 4096);
    keyTile_->setRange(1, 4096);
    queryTile_->setValue(static_cast<int>(defaults.query_tile));
    keyTile_->setValue(static_cast<int>(defaults.key_tile));
    headCaption_->setBuddy(head_);
    queryTileCaption_->setBuddy(queryTile_);
    keyTileCaption_->setBuddy(keyTile_);
    top->addWidget(note_, 1);
    for (QWidget* w : std::initializer_list<QWidget*>{headCaption_, head_, queryTileCaption_,
                                                      queryTile_, keyTileCaption_, keyTile_})
        top->addWidget(w);
    layout->addLayout(top);
    pageLayout_ = new QVBoxLayout;
    pageLayout_->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(pageLayout_, 1);
    for (QSpinBox* box : {head_, queryTile_, keyTile_})
        connect(box, &QSpinBox::valueChanged, this, [this] { rebuild(); });
    retranslate();
}

void ExploreTilesView::retranslate() {
    headCaption_->setText(tr("&Head"));
    queryTileCaption_->setText(tr("&Query tile"));
    keyTileCaption_->setText(tr("&Key tile"));
    queryTile_->setToolTip(tr("Queries per tile: rows of the weights computed together."));
    keyTile_->setToolTip(tr("Keys per tile: columns of the weights computed together."));
    rebuild();
}

void ExploreTilesView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

QString ExploreTilesView::noteText() const { return note_->text(); }

void ExploreTilesView::setRun(std::shared_ptr<const attn::RunResult> run,
                              const QStringList& tokens) {
    run_ = std::move(run);
    tokens_ = tokens;
    if (run_ && !run_->output.heads.empty()) {
        const QSignalBlocker b1(head_), b2(queryTile_), b3(keyTile_);
        head_->setMaximum(std::max<int>(1, static_cast<int>(run_->output.heads[0].size())));
        const int t = std::max(1, static_cast<int>(tokens_.size()));
        queryTile_->setMaximum(t);
        keyTile_->setMaximum(t);
    }
    rebuild();
}

void ExploreTilesView::rebuild() {
    if (page_) frame_ = page_->frame();  // the tile the user stepped to stays, if it still exists
    delete page_;
    page_ = nullptr;
    if (!run_ || run_->output.heads.empty()) {
        note_->clear();
        return;
    }
    const attn::RunResult& r = *run_;
    const Eigen::Index h = head_->value() - 1;
    const std::optional<HeadProjections> p = headProjections(r, h);
    if (!p) {
        note_->setText(
            tr("This module's projections do not split into one matrix per head: "
               "choose multi-head-attention to see its tiles."));
        return;
    }
    const Eigen::Index t = p->queries.rows();
    if (p->keys.rows() != t) {
        note_->setText(
            tr("The tiles walk one sequence, but cross-attention's keys come from "
               "another: choose a self-attention module."));
        return;
    }
    const attn::ModuleInfo& info = attn::module_info(*r.config.module);
    const bool causal = r.config.causal.value_or(info.causal_by_default);
    const Eigen::Index bq = queryTile_->value(), bk = keyTile_->value();
    const Eigen::Index tiles = computedTiles(t, bq, bk, causal);
    if (tiles > kMaxTiles) {
        note_->setText(tr("%1 tiles are too many to step through: choose larger tiles (at most "
                          "%2).")
                           .arg(tiles)
                           .arg(kMaxTiles));
        return;
    }
    std::vector<std::string> tokens;
    for (const QString& token : tokens_) tokens.push_back(token.toStdString());
    try {
        attn::Step step = attn::tiles_step(p->queries, p->keys, p->values, tokens, causal, bq, bk,
                                           walkthroughTilesNumber());
        step.text_args.emplace_back("num_tokens", std::to_string(t));
        // The tiles know the causal mask and √head_dim only: say when this head did more.
        const attn::StepMatrix* tiled = step.find("causal-context");
        const attn::Matrix& context = r.output.heads[0][static_cast<std::size_t>(h)].context;
        const float diff = tiled && tiled->values.rows() == context.rows() &&
                                   tiled->values.cols() == context.cols()
                               ? (tiled->values - context).cwiseAbs().maxCoeff()
                               : 0.0f;
        const Eigen::Index heads = static_cast<Eigen::Index>(r.output.heads[0].size());
        const QString which = r.config.num_kv_heads > 0 && r.config.num_kv_heads < heads
                                  ? tr("Head %1 (K/V head %2)").arg(h + 1).arg(p->kvHead + 1)
                                  : tr("Head %1").arg(h + 1);
        note_->setText(
            diff <= 1e-4f
                ? tr("%1 of this run, tiled: %2 tiles of %3 × %4 give the head's context vectors.")
                      .arg(which)
                      .arg(tiles)
                      .arg(bq)
                      .arg(bk)
                : tr("%1 of this run, tiled with the %2 mask and √head_dim only: this run's head "
                     "differs by up to %3 (a sliding window, padding, dropout, another fill or "
                     "no scaling).")
                      .arg(which)
                      .arg(causal ? tr("causal") : tr("bidirectional"))
                      .arg(attn::compactText(diff)));
        page_ = new StepPage(std::move(step), this);
        page_->setFrame(std::clamp(frame_, 0, std::max(0, page_->frameCount() - 1)));
        pageLayout_->addWidget(page_);
    } catch (const attn::AttentionError& e) {
        note_->setText(QString::fromUtf8(e.what()));
    }
}

}  // namespace views
