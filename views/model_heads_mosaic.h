// ModelHeadsMosaic: every layer × head of a model as a small thumbnail of its attention weights,
// rows = layers ("L1".."Ln"), columns = heads ("H1"..), so a learner can spot the trained heads
// (previous token, first token, itself) at a glance and click one for the large head view.
//
// Painted directly from one QImage per head (no QCustomPlot per head: gpt2-large has 720 heads).
// Matrices longer than kMaxThumbnailCells per side are shown as block maxima, so a sharp diagonal
// of a long sequence stays visible; the tooltip says so. Causal heads (zeros above the diagonal)
// draw their future cells in the masked grey and leave them out of the colour range.
// Only the thumbnails and a few numbers per head are kept, not the matrices.
#pragma once

#include <QImage>
#include <QRect>
#include <QString>
#include <QWidget>
#include <vector>

#include "model/tensor.h"

namespace views {

// Where one head's queries put their weight, on average (see headFocus).
struct HeadFocus {
    // The mean share of a query's weight on the previous token, the first token and itself,
    // over the queries that have three distinct such tokens (the third on); all 0 with fewer.
    double previous = 0.0;
    double first = 0.0;
    double self = 0.0;
    int queries = 0;  // how many queries the means are over
};
// The focus of a (T_q, T_k) weight matrix; with T_q < T_k the queries are the last T_q tokens.
HeadFocus headFocus(const attn::Matrix& weights);

class ModelHeadsMosaic : public QWidget {
    Q_OBJECT

public:
    // Larger matrices are thumbnailed as block maxima of at most this many cells per side.
    static constexpr Eigen::Index kMaxThumbnailCells = 64;

    // Which values each thumbnail's colours span: as ExploreHeadsGrid, each row its own by
    // default (causal rows start at 1.0, which would wash out every other row).
    enum class Range { PerRow, PerHead, Shared };

    explicit ModelHeadsMosaic(QWidget* parent = nullptr);

    // attentions[layer][head]: (T_q, T_k) weights; all the same shape. Empty clears.
    void setAttentions(const std::vector<std::vector<attn::Matrix>>& attentions);
    void setRange(Range range);
    // Grouped-query attention: num_kv_heads K/V heads, each shared by heads / num_kv_heads
    // neighbouring query heads; each group is drawn on its own band. 0 or heads: no groups.
    void setKvHeads(int kvHeads);
    int kvHeads() const { return kvHeads_; }
    // The query heads sharing a K/V head (1 without groups).
    int groupSize() const;
    Range range() const { return range_; }
    void setSelected(int layer, int head);  // outlined; -1, -1 none
    int selectedLayer() const { return selectedLayer_; }
    int selectedHead() const { return selectedHead_; }
    int layerCount() const { return layers_; }
    int headCount() const { return heads_; }
    QRect thumbnailRect(int layer, int head) const;  // widget coordinates (tests, clicks)
    QImage thumbnail(int layer, int head) const;     // what is drawn for that head
    // The hover text of a head: its name, where it looks most and how its thumbnail is made.
    QString headToolTip(int layer, int head) const;
    HeadFocus focus(int layer, int head) const;
    // True when the thumbnails are block maxima of longer sequences.
    bool simplified() const { return simplified_; }
    // The one-line problem with the last setAttentions (empty when none).
    QString problem() const { return problem_; }

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void headClicked(int layer, int head);
    void headHovered(int layer, int head);  // -1, -1 when the pointer leaves

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    // One head as kept: its thumbnail values (block maxima), which of them lie in the future
    // of every query they stand for, and the numbers the tooltip and the ranges need.
    struct Head {
        attn::Matrix cells;
        attn::BoolMatrix future;
        float max = 0.0f;
        float min = 0.0f;
        HeadFocus focus;
        QImage image;
    };
    struct Geometry {
        int left = 0, top = 0, thumb = 0, gap = 0;
    };
    Geometry geometry(int width) const;
    const Head* head(int layer, int head) const;
    void paintThumbnails();
    std::pair<int, int> headAt(QPoint pos) const;
    void setHovered(int layer, int head);

    std::vector<Head> cells_;  // layer-major
    int layers_ = 0;
    int heads_ = 0;
    int kvHeads_ = 0;
    Eigen::Index rows_ = 0, cols_ = 0;  // the matrices' shape
    Range range_ = Range::PerRow;
    int selectedLayer_ = -1, selectedHead_ = -1;
    int hoveredLayer_ = -1, hoveredHead_ = -1;
    bool simplified_ = false;
    QString problem_;
};

}  // namespace views
