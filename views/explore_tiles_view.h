// ExploreTilesView: explore mode's Tiles tab. FlashAttention's tiled online softmax over one head
// of the current run (batch item 0): an attn::RunTiles record (model/walkthrough_chapters.h), the
// walkthrough's "flash-tiles" step built from that head's queries, keys and values, shown by a
// StepPage, which steps through the computed tiles with its own buttons and explains each cell
// on hover. Read-only; the head and the query and key tile sizes are chosen here, and the window
// tiles the run again for them (tilingChanged).
#pragma once

#include <QWidget>

#include "model/walkthrough_chapters.h"

class QLabel;
class QSpinBox;
class QVBoxLayout;

namespace views {

class StepPage;

class ExploreTilesView : public QWidget {
    Q_OBJECT

public:
    // Tiles computed per page at most: each is a frame of several matrices.
    static constexpr Eigen::Index kMaxTiles = 400;

    explicit ExploreTilesView(QWidget* parent = nullptr);

    // The run's head tiled with the chosen sizes (attn::run_tiles with head(), queryTile(),
    // keyTile() and kMaxTiles); the choosers follow the record's clamped head and sizes. The page
    // stays on the tile the user stepped to when the new record has it.
    void setTiles(attn::RunTiles tiles);

    // The choice to tile with: 0-based query head, queries and keys per tile.
    Eigen::Index head() const;
    Eigen::Index queryTile() const;
    Eigen::Index keyTile() const;

    QSpinBox* headBox() const { return head_; }            // 1-based query head
    QSpinBox* queryTileBox() const { return queryTile_; }  // queries per tile
    QSpinBox* keyTileBox() const { return keyTile_; }      // keys per tile
    // The page of the tiles; nullptr when the run cannot be tiled (the note says why).
    StepPage* page() const { return page_; }
    QString noteText() const;

signals:
    // The head or a tile size was chosen: tile again (setTiles).
    void tilingChanged();

protected:
    void changeEvent(QEvent* event) override;

private:
    void updateNote();
    void retranslate();

    attn::RunTiles tiles_;  // without its step, which the page holds
    QLabel* note_ = nullptr;
    QLabel* headCaption_ = nullptr;
    QLabel* queryTileCaption_ = nullptr;
    QLabel* keyTileCaption_ = nullptr;
    QSpinBox* head_ = nullptr;
    QSpinBox* queryTile_ = nullptr;
    QSpinBox* keyTile_ = nullptr;
    QVBoxLayout* pageLayout_ = nullptr;
    StepPage* page_ = nullptr;
    int frame_ = 0;  // the first tile until the user steps
};

}  // namespace views
