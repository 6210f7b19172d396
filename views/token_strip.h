// TokenStrip: the tokens as the model split them, as chips in reading order that wrap like text.
// A leading space is the "␣" of the display strings (tokenizer.h's displayToken), drawn
// dimmer than the letters so "␣journey" reads as " journey"; the tooltip gives the token's
// position and id. Tokens a generate step appended are drawn in another style.
#pragma once

#include <QColor>
#include <QRect>
#include <QStringList>
#include <QWidget>
#include <vector>

namespace views {

class FlowLayout;
class TokenChip;

class TokenStrip : public QWidget {
    Q_OBJECT

public:
    explicit TokenStrip(QWidget* parent = nullptr);

    // Display strings ("␣journey") and their vocabulary ids (empty, or one per token).
    void setTokens(const QStringList& tokens, const std::vector<int>& ids = {});
    int tokenCount() const { return static_cast<int>(chips_.size()); }
    // Outlines token `index`; -1 none.
    void setHighlighted(int index);
    int highlighted() const { return highlighted_; }
    // Tokens from `firstGenerated` on were generated, not typed; -1 (or the count) none.
    void setGenerated(int firstGenerated);
    int firstGenerated() const { return firstGenerated_; }

    // For tests and the window: a chip's place in this widget, its text and tooltip.
    QRect chipRect(int index) const;
    QString chipText(int index) const;
    QString chipToolTip(int index) const;
    bool isGenerated(int index) const;
    // The colour the "␣" mark is drawn in (dimmer than the text).
    QColor spaceMarkColor() const;

signals:
    void tokenClicked(int index);

protected:
    void changeEvent(QEvent* event) override;

private:
    void restyle();

    FlowLayout* flow_ = nullptr;
    std::vector<TokenChip*> chips_;
    QStringList tokens_;
    std::vector<int> ids_;
    int highlighted_ = -1;
    int firstGenerated_ = -1;
};

}  // namespace views
