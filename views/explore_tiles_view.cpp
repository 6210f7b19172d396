#include "views/explore_tiles_view.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <initializer_list>

#include "views/number_text.h"
#include "views/step_page.h"

namespace views {

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
        connect(box, &QSpinBox::valueChanged, this, &ExploreTilesView::tilingChanged);
    retranslate();
}

void ExploreTilesView::retranslate() {
    headCaption_->setText(tr("&Head"));
    queryTileCaption_->setText(tr("&Query tile"));
    keyTileCaption_->setText(tr("&Key tile"));
    queryTile_->setToolTip(tr("Queries per tile: rows of the weights computed together."));
    keyTile_->setToolTip(tr("Keys per tile: columns of the weights computed together."));
    updateNote();
}

void ExploreTilesView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

QString ExploreTilesView::noteText() const { return note_->text(); }

Eigen::Index ExploreTilesView::head() const { return head_->value() - 1; }
Eigen::Index ExploreTilesView::queryTile() const { return queryTile_->value(); }
Eigen::Index ExploreTilesView::keyTile() const { return keyTile_->value(); }

void ExploreTilesView::setTiles(attn::RunTiles tiles) {
    if (page_) frame_ = page_->frame();  // the tile the user stepped to stays, if it still exists
    delete page_;
    page_ = nullptr;
    if (tiles.status != attn::RunTiles::Status::NoRun) {
        const QSignalBlocker b1(head_), b2(queryTile_), b3(keyTile_);
        head_->setMaximum(std::max(1, static_cast<int>(tiles.num_heads)));
        const int t = std::max(1, static_cast<int>(tiles.num_tokens));
        queryTile_->setMaximum(t);
        keyTile_->setMaximum(t);
        head_->setValue(static_cast<int>(tiles.head) + 1);
        queryTile_->setValue(static_cast<int>(tiles.query_tile));
        keyTile_->setValue(static_cast<int>(tiles.key_tile));
    }
    if (tiles.status == attn::RunTiles::Status::Tiled) {
        page_ = new StepPage(std::move(tiles.step), this);
        page_->setFrame(std::clamp(frame_, 0, std::max(0, page_->frameCount() - 1)));
        pageLayout_->addWidget(page_);
    }
    tiles.step = {};
    tiles_ = std::move(tiles);
    updateNote();
}

void ExploreTilesView::updateNote() {
    using Status = attn::RunTiles::Status;
    const attn::RunTiles& t = tiles_;
    switch (t.status) {
        case Status::NoRun:
            note_->clear();
            return;
        case Status::NotSplit:
            note_->setText(
                tr("This module's projections do not split into one matrix per head: "
                   "choose multi-head-attention to see its tiles."));
            return;
        case Status::CrossAttention:
            note_->setText(
                tr("The tiles walk one sequence, but cross-attention's keys come from "
                   "another: choose a self-attention module."));
            return;
        case Status::TooManyTiles:
            note_->setText(tr("%1 tiles are too many to step through: choose larger tiles (at "
                              "most %2).")
                               .arg(t.tiles)
                               .arg(kMaxTiles));
            return;
        case Status::Refused:
            note_->setText(QString::fromStdString(t.error));
            return;
        case Status::Tiled:
            break;
    }
    const QString which = t.grouped ? tr("Head %1 (K/V head %2)").arg(t.head + 1).arg(t.kv_head + 1)
                                    : tr("Head %1").arg(t.head + 1);
    note_->setText(
        t.matches_run
            ? tr("%1 of this run, tiled: %2 tiles of %3 × %4 give the head's context vectors.")
                  .arg(which)
                  .arg(t.tiles)
                  .arg(t.query_tile)
                  .arg(t.key_tile)
            : tr("%1 of this run, tiled with the %2 mask and √head_dim only: this run's head "
                 "differs by up to %3 (a sliding window, padding, dropout, another fill or "
                 "no scaling).")
                  .arg(which)
                  .arg(t.causal ? tr("causal") : tr("bidirectional"))
                  .arg(compactText(t.max_abs_diff)));
}

}  // namespace views
