#include "views/token_strip.h"

#include <QEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <functional>

#include "views/flow_layout.h"

namespace views {

namespace {

const QChar kSpaceMark(0x2423);  // ␣
// Longer tokens are elided on their chip; the tooltip has them whole.
constexpr int kMaxChipChars = 24;

}  // namespace

// One token, painted: a rounded plate in the palette's colours with the text, "␣" dimmed.
class TokenChip : public QWidget {
public:
    TokenChip(const QString& text, QWidget* parent) : QWidget(parent), text_(text) {
        if (text_.size() > kMaxChipChars) text_ = text_.left(kMaxChipChars - 1) + QChar(0x2026);
        setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
        setCursor(Qt::PointingHandCursor);
    }
    std::function<void()> clicked;
    bool generated = false;
    bool highlighted = false;
    QString text() const { return text_; }

    QSize sizeHint() const override {
        const QFontMetrics fm = fontMetrics();
        const int pad = fm.height() / 3;
        return {fm.horizontalAdvance(text_.isEmpty() ? QStringLiteral(" ") : text_) + 2 * pad + 2,
                fm.height() + pad + 2};
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        const QPalette& pal = palette();
        const QFontMetrics fm = fontMetrics();
        const int pad = fm.height() / 3;
        QColor fill = pal.color(QPalette::AlternateBase);
        QColor border = pal.color(QPalette::Mid);
        if (generated) {
            // Generated tokens: a tint of the highlight colour, dashed edge.
            fill = pal.color(QPalette::Highlight);
            fill.setAlphaF(0.18f);
        }
        QPen pen(border, 1, generated ? Qt::DashLine : Qt::SolidLine);
        if (highlighted) pen = QPen(pal.color(QPalette::Highlight), 2.5);
        const qreal radius = fm.height() / 4.0;
        p.setPen(pen);
        p.setBrush(fill);
        p.drawRoundedRect(QRectF(rect()).adjusted(1.25, 1.25, -1.25, -1.25), radius, radius);
        QFont f = font();
        f.setItalic(generated);
        p.setFont(f);
        // The text in runs: "␣" in the dim colour, everything else in the text colour.
        const QFontMetrics ffm(f);
        qreal x = pad + 1;
        const qreal baseline = (height() + ffm.ascent() - ffm.descent()) / 2.0;
        int i = 0;
        while (i < text_.size()) {
            const bool mark = text_[i] == kSpaceMark;
            int j = i;
            while (j < text_.size() && (text_[j] == kSpaceMark) == mark) ++j;
            const QString run = text_.mid(i, j - i);
            p.setPen(mark ? pal.color(QPalette::PlaceholderText) : pal.color(QPalette::Text));
            p.drawText(QPointF(x, baseline), run);
            x += ffm.horizontalAdvance(run);
            i = j;
        }
    }
    void mousePressEvent(QMouseEvent* event) override {
        if (event->button() == Qt::LeftButton && clicked) clicked();
    }

private:
    QString text_;
};

TokenStrip::TokenStrip(QWidget* parent) : QWidget(parent) {
    const int spacing = std::max(3, fontMetrics().height() / 4);
    flow_ = new FlowLayout(this, spacing, spacing);
    flow_->setContentsMargins(0, 0, 0, 0);
}

void TokenStrip::setTokens(const QStringList& tokens, const std::vector<int>& ids) {
    for (TokenChip* chip : chips_) delete chip;
    chips_.clear();
    tokens_ = tokens;
    ids_ = ids.size() == static_cast<std::size_t>(tokens.size()) ? ids : std::vector<int>();
    for (int i = 0; i < tokens.size(); ++i) {
        auto* chip = new TokenChip(tokens[i], this);
        chip->clicked = [this, i] { emit tokenClicked(i); };
        chip->setAccessibleName(tokens[i]);
        flow_->addWidget(chip);
        chips_.push_back(chip);
    }
    if (highlighted_ >= tokenCount()) highlighted_ = -1;
    restyle();
    updateGeometry();
}

void TokenStrip::setHighlighted(int index) {
    highlighted_ = index >= 0 && index < tokenCount() ? index : -1;
    restyle();
}

void TokenStrip::setGenerated(int firstGenerated) {
    firstGenerated_ = firstGenerated;
    restyle();
}

bool TokenStrip::isGenerated(int index) const {
    return firstGenerated_ >= 0 && index >= firstGenerated_ && index < tokenCount();
}

void TokenStrip::restyle() {
    for (int i = 0; i < tokenCount(); ++i) {
        TokenChip* chip = chips_[static_cast<std::size_t>(i)];
        chip->generated = isGenerated(i);
        chip->highlighted = i == highlighted_;
        chip->setToolTip(chipToolTip(i));
        chip->update();
    }
}

QRect TokenStrip::chipRect(int index) const {
    if (index < 0 || index >= tokenCount()) return {};
    return chips_[static_cast<std::size_t>(index)]->geometry();
}

QString TokenStrip::chipText(int index) const {
    if (index < 0 || index >= tokenCount()) return {};
    return chips_[static_cast<std::size_t>(index)]->text();
}

QString TokenStrip::chipToolTip(int index) const {
    if (index < 0 || index >= tokenCount()) return {};
    QString text =
        ids_.empty()
            ? tr("Token %1 of %2: “%3”").arg(index + 1).arg(tokenCount()).arg(tokens_[index])
            : tr("Token %1 of %2: “%3” · id %4")
                  .arg(index + 1)
                  .arg(tokenCount())
                  .arg(tokens_[index])
                  .arg(ids_[static_cast<std::size_t>(index)]);
    if (tokens_[index].startsWith(kSpaceMark))
        text += QLatin1Char('\n') + tr("␣ marks the space the token starts with.");
    if (isGenerated(index)) text += QLatin1Char('\n') + tr("Generated by the model.");
    return text;
}

QColor TokenStrip::spaceMarkColor() const { return palette().color(QPalette::PlaceholderText); }

void TokenStrip::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        for (TokenChip* chip : chips_) chip->updateGeometry();
        update();
    }
    QWidget::changeEvent(event);
}

}  // namespace views
