// ExploreTilesView: explore mode's Tiles tab. FlashAttention's tiled online softmax over one head
// of the current run (batch item 0): the walkthrough's "flash-tiles" step (attn::tiles_step,
// model/walkthrough_chapters.h) built from that head's queries, keys and values and shown by a
// StepPage, which steps through the computed tiles with its own buttons and explains each cell
// on hover. Read-only; the head and the query and key tile sizes are chosen here.
#pragma once

#include <QStringList>
#include <QWidget>
#include <memory>

#include "model/runner.h"

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

    // The run to tile; tokens label its rows. Keeps the chosen head and tile sizes when they
    // still fit.
    void setRun(std::shared_ptr<const attn::RunResult> run, const QStringList& tokens);

    QSpinBox* headBox() const { return head_; }            // 1-based query head
    QSpinBox* queryTileBox() const { return queryTile_; }  // queries per tile
    QSpinBox* keyTileBox() const { return keyTile_; }      // keys per tile
    // The page of the tiles; nullptr when the run cannot be tiled (the note says why).
    StepPage* page() const { return page_; }
    QString noteText() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    void retranslate();

    std::shared_ptr<const attn::RunResult> run_;
    QStringList tokens_;
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
