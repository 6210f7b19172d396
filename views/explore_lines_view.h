// ExploreLinesView: the "head view" of attention: the query tokens in a left column, the key
// tokens in a right column, each column headed (queries / keys), and a line from query i to key j
// whose opacity is attn_weights[i][j].
// Several heads are drawn at once in distinct colours (a check box per head); pointing at a token
// shows only its lines. Used for self-attention and, with other right-hand tokens, for
// cross-attention. Long sequences are cut to the first kMaxTokens tokens and say so.
#pragma once

#include <QStringList>
#include <QWidget>
#include <optional>
#include <vector>

#include "model/tensor.h"

class QCheckBox;
class QGridLayout;
class QLabel;

namespace views {

class LinesCanvas;

class ExploreLinesView : public QWidget {
    Q_OBJECT

public:
    static constexpr int kMaxTokens = 64;
    // Head check boxes a row: GPT-2's 12 heads in one, a Llama's 32 in three, so that the row
    // does not widen the window past the screen (32 in one row made it 2983 px wide).
    static constexpr int kHeadsPerRow = 12;
    enum class Side { Left, Right };

    explicit ExploreLinesView(QWidget* parent = nullptr);

    // weights: one (left.size(), right.size()) matrix per head.
    void setData(const QStringList& left, const QStringList& right,
                 const std::vector<attn::Matrix>& weights);
    // Headings above the two columns; empty = "queries" and "keys" in the interface language.
    void setHeadings(const QString& left, const QString& right);
    QString leftHeading() const;
    QString rightHeading() const;
    void setHeadVisible(int head, bool visible);
    bool headVisible(int head) const;
    int headCount() const { return static_cast<int>(weights_.size()); }
    // The token whose lines alone are shown (what hovering does); nullopt shows all.
    void setFocusToken(std::optional<std::pair<Side, int>> token);
    std::optional<std::pair<Side, int>> focusToken() const { return focus_; }
    // Lines that would be drawn now (visible heads, focus, weight > 0.01), for tests.
    int drawnLineCount() const;
    // The colour of head h's lines.
    static QColor headColor(int head);
    bool simplified() const;

signals:
    void tokenHovered(views::ExploreLinesView::Side side, int index);  // index -1: left the view

protected:
    void changeEvent(QEvent* event) override;

private:
    friend class LinesCanvas;
    void rebuildHeadBoxes();
    void retranslate();

    QStringList left_, right_;
    QString leftHeading_, rightHeading_;  // as given to setHeadings
    std::vector<attn::Matrix> weights_;
    std::vector<bool> visible_;
    std::optional<std::pair<Side, int>> focus_;
    QGridLayout* headBoxes_ = nullptr;  // kHeadsPerRow check boxes a row
    std::vector<QCheckBox*> boxes_;
    QLabel* note_ = nullptr;
    LinesCanvas* canvas_ = nullptr;
};

}  // namespace views
