#include "views/explore_lines_view.h"

#include <QCheckBox>
#include <QEvent>
#include <QGridLayout>
#include <QImage>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace views {

namespace {

constexpr float kMinDrawnWeight = 0.01f;  // fainter lines are invisible anyway

// Blends `color` at `alpha` (0..1) over one premultiplied ARGB32 pixel.
inline void blendPixel(QRgb& dst, QColor color, double alpha) {
    const int a = static_cast<int>(std::lround(std::clamp(alpha, 0.0, 1.0) * 255.0));
    if (a == 0) return;
    const int keep = 255 - a;
    const auto mix = [&](int src, int d) { return (src * a + d * keep + 127) / 255; };
    dst = qRgba(mix(color.red(), qRed(dst)), mix(color.green(), qGreen(dst)),
                mix(color.blue(), qBlue(dst)), mix(255, qAlpha(dst)));
}

// Draws an antialiased line of `width` pixels into a premultiplied ARGB32 image: along its
// major axis one pixel at a time, across it each pixel covered by the fraction of the line's
// cross-section that falls on it. QPainter's raster engine would hand every batch of spans of
// every antialiased stroke to Qt's GUI thread pool; for ~1000 thin lines those hand-offs cost
// far more than the blending (hundreds of milliseconds per frame), so the lines view draws
// its lines here and blits the image once.
void rasterizeLine(QImage& image, QPointF a, QPointF b, double width, QColor color, double alpha) {
    const bool steep = std::abs(b.y() - a.y()) > std::abs(b.x() - a.x());
    // (major, minor) coordinates: x and y, or y and x for a steep line.
    double a0 = steep ? a.y() : a.x(), a1 = steep ? a.x() : a.y();
    double b0 = steep ? b.y() : b.x(), b1 = steep ? b.x() : b.y();
    if (a0 > b0) {
        std::swap(a0, b0);
        std::swap(a1, b1);
    }
    const double run = b0 - a0;
    const double slope = run > 0 ? (b1 - a1) / run : 0.0;
    const double half = width / 2.0 * std::sqrt(1.0 + slope * slope);  // across the minor axis
    const int majorLimit = steep ? image.height() : image.width();
    const int minorLimit = steep ? image.width() : image.height();
    const int first = std::max(0, static_cast<int>(std::floor(a0)));
    const int last = std::min(majorLimit - 1, static_cast<int>(std::ceil(b0)) - 1);
    for (int i = first; i <= last; ++i) {
        const double centre = a1 + slope * (std::clamp(i + 0.5, a0, b0) - a0);
        const double lo = centre - half, hi = centre + half;
        const int j0 = std::max(0, static_cast<int>(std::floor(lo)));
        const int j1 = std::min(minorLimit - 1, static_cast<int>(std::floor(hi)));
        for (int j = j0; j <= j1; ++j) {
            const double coverage = std::min(j + 1.0, hi) - std::max(static_cast<double>(j), lo);
            if (coverage <= 0.0) continue;
            const int x = steep ? j : i, y = steep ? i : j;
            QRgb* line = reinterpret_cast<QRgb*>(image.scanLine(y));
            blendPixel(line[x], color, alpha * std::min(coverage, 1.0));
        }
    }
}

}  // namespace

// The drawing surface: token columns and the lines between them.
class LinesCanvas : public QWidget {
public:
    explicit LinesCanvas(ExploreLinesView* view) : QWidget(view), view_(view) {
        setMouseTracking(true);
        setMinimumSize(320, 200);
    }

    int shownLeft() const {
        return static_cast<int>(
            std::min<qsizetype>(view_->left_.size(), ExploreLinesView::kMaxTokens));
    }
    int shownRight() const {
        return static_cast<int>(
            std::min<qsizetype>(view_->right_.size(), ExploreLinesView::kMaxTokens));
    }
    static constexpr double kHeadingHeight = 24.0;  // the "queries" / "keys" headings
    double rowY(int i, int count) const {
        const double top = 16.0 + kHeadingHeight, bottom = height() - 16.0;
        return count <= 1 ? (top + bottom) / 2 : top + (bottom - top) * i / (count - 1);
    }
    double leftX() const { return width() * 0.32; }
    double rightX() const { return width() * 0.68; }

    std::optional<std::pair<ExploreLinesView::Side, int>> tokenAt(QPointF p) const {
        const bool isLeft = p.x() < width() / 2.0;
        const int count = isLeft ? shownLeft() : shownRight();
        if (count == 0) return std::nullopt;
        int best = -1;
        double bestDistance = 1e9;
        for (int i = 0; i < count; ++i) {
            const double d = std::abs(rowY(i, count) - p.y());
            if (d < bestDistance) {
                bestDistance = d;
                best = i;
            }
        }
        const double spacing = count > 1 ? rowY(1, count) - rowY(0, count) : height();
        if (bestDistance > std::max(spacing / 2, 8.0)) return std::nullopt;
        return std::make_pair(isLeft ? ExploreLinesView::Side::Left : ExploreLinesView::Side::Right,
                              best);
    }

    // Calls f(head, row, column, weight) for every line to draw.
    template <typename F>
    void forEachLine(F f) const {
        const int rows = shownLeft(), cols = shownRight();
        const auto& focus = view_->focus_;
        for (std::size_t h = 0; h < view_->weights_.size(); ++h) {
            if (!view_->visible_[h]) continue;
            const attn::Matrix& w = view_->weights_[h];
            for (int r = 0; r < std::min<int>(rows, static_cast<int>(w.rows())); ++r) {
                if (focus && focus->first == ExploreLinesView::Side::Left && focus->second != r)
                    continue;
                for (int c = 0; c < std::min<int>(cols, static_cast<int>(w.cols())); ++c) {
                    if (focus && focus->first == ExploreLinesView::Side::Right &&
                        focus->second != c)
                        continue;
                    const float v = w(r, c);
                    if (std::isfinite(v) && v > kMinDrawnWeight) f(static_cast<int>(h), r, c, v);
                }
            }
        }
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        p.fillRect(rect(), palette().base());
        const int rows = shownLeft(), cols = shownRight();
        const int visibleHeads =
            static_cast<int>(std::count(view_->visible_.begin(), view_->visible_.end(), true));
        // Heads side by side would hide each other: shift each head's lines by a pixel or two.
        int slot = 0;
        std::vector<int> slotOf(view_->weights_.size(), 0);
        for (std::size_t h = 0; h < view_->weights_.size(); ++h)
            if (view_->visible_[h]) slotOf[h] = slot++;
        const qreal dpr = devicePixelRatioF();
        const QSize pixels = (QSizeF(size()) * dpr).toSize();
        if (lines_.size() != pixels) lines_ = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
        lines_.fill(Qt::transparent);
        forEachLine([&](int h, int r, int c, float v) {
            const double offset =
                (slotOf[static_cast<std::size_t>(h)] - (visibleHeads - 1) / 2.0) * 2.0;
            const double w = std::clamp(static_cast<double>(v), 0.0, 1.0);
            rasterizeLine(lines_, QPointF(leftX() + 6, rowY(r, rows) + offset) * dpr,
                          QPointF(rightX() - 6, rowY(c, cols) + offset) * dpr,
                          (1.0 + 3.0 * w) * dpr, ExploreLinesView::headColor(h), w);
        });
        lines_.setDevicePixelRatio(dpr);
        p.drawImage(QPointF(0, 0), lines_);
        const auto& focus = view_->focus_;
        QFont font = p.font();
        const double spacing = std::max(rows, cols) > 1
                                   ? (height() - 32.0 - kHeadingHeight) / (std::max(rows, cols) - 1)
                                   : 24.0;
        font.setPixelSize(static_cast<int>(std::clamp(spacing * 0.7, 7.0, 15.0)));
        p.setFont(font);
        auto drawToken = [&](const QString& text, double x, double y, bool left, bool bold) {
            QFont f = font;
            f.setBold(bold);
            p.setFont(f);
            p.setPen(palette().text().color());
            const QRectF box =
                left ? QRectF(0, y - 10, x - 10, 20) : QRectF(x + 10, y - 10, width() - x - 10, 20);
            p.drawText(box,
                       static_cast<int>((left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter),
                       text);
        };
        QFont heading = font;
        heading.setPixelSize(14);
        heading.setBold(true);
        p.setFont(heading);
        p.setPen(palette().placeholderText().color());
        p.drawText(QRectF(0, 4, leftX() - 10, kHeadingHeight),
                   static_cast<int>(Qt::AlignRight | Qt::AlignVCenter), view_->leftHeading());
        p.drawText(QRectF(rightX() + 10, 4, width() - rightX() - 10, kHeadingHeight),
                   static_cast<int>(Qt::AlignLeft | Qt::AlignVCenter), view_->rightHeading());
        for (int r = 0; r < rows; ++r)
            drawToken(view_->left_[r], leftX(), rowY(r, rows), true,
                      focus && focus->first == ExploreLinesView::Side::Left && focus->second == r);
        for (int c = 0; c < cols; ++c)
            drawToken(view_->right_[c], rightX(), rowY(c, cols), false,
                      focus && focus->first == ExploreLinesView::Side::Right && focus->second == c);
    }
    void mouseMoveEvent(QMouseEvent* e) override {
        const auto token = tokenAt(e->position());
        if (token != view_->focus_) {
            view_->setFocusToken(token);
            emit view_->tokenHovered(token ? token->first : ExploreLinesView::Side::Left,
                                     token ? token->second : -1);
        }
    }
    void leaveEvent(QEvent*) override {
        view_->setFocusToken(std::nullopt);
        emit view_->tokenHovered(ExploreLinesView::Side::Left, -1);
    }

private:
    ExploreLinesView* view_;
    QImage lines_;  // the lines, drawn by rasterizeLine and blitted in one piece
};

ExploreLinesView::ExploreLinesView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    headBoxes_ = new QGridLayout;
    layout->addLayout(headBoxes_);
    note_ = new QLabel(this);
    note_->setWordWrap(true);
    layout->addWidget(note_);
    canvas_ = new LinesCanvas(this);
    layout->addWidget(canvas_, 1);
    retranslate();
}

QColor ExploreLinesView::headColor(int head) {
    // Tableau 10: distinct for the usual 1..10 heads, then repeats.
    static const QColor colors[] = {
        QColor(0x1f77b4), QColor(0xff7f0e), QColor(0x2ca02c), QColor(0xd62728), QColor(0x9467bd),
        QColor(0x8c564b), QColor(0xe377c2), QColor(0x7f7f7f), QColor(0xbcbd22), QColor(0x17becf)};
    return colors[static_cast<std::size_t>(head) % std::size(colors)];
}

void ExploreLinesView::setHeadings(const QString& left, const QString& right) {
    leftHeading_ = left;
    rightHeading_ = right;
    canvas_->update();
}

QString ExploreLinesView::leftHeading() const {
    return leftHeading_.isEmpty() ? tr("queries") : leftHeading_;
}

QString ExploreLinesView::rightHeading() const {
    return rightHeading_.isEmpty() ? tr("keys") : rightHeading_;
}

void ExploreLinesView::retranslate() {
    for (std::size_t h = 0; h < boxes_.size(); ++h) boxes_[h]->setText(tr("head %1").arg(h + 1));
    note_->setText(
        simplified()
            ? tr("Simplified: only the first %1 tokens of each side are drawn.").arg(kMaxTokens)
            : tr("Line opacity = attention weight. Point at a token to see only its "
                 "lines."));
}

void ExploreLinesView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

bool ExploreLinesView::simplified() const {
    return left_.size() > kMaxTokens || right_.size() > kMaxTokens;
}

void ExploreLinesView::setData(const QStringList& left, const QStringList& right,
                               const std::vector<attn::Matrix>& weights) {
    left_ = left;
    right_ = right;
    const bool sameHeads = weights.size() == weights_.size();
    weights_ = weights;
    if (!sameHeads) {
        // Head 1 alone is the clearest start; the others are a click away.
        visible_.assign(weights_.size(), false);
        if (!visible_.empty()) visible_[0] = true;
        rebuildHeadBoxes();
    }
    if (focus_) {
        const qsizetype n = focus_->first == Side::Left ? left_.size() : right_.size();
        if (focus_->second >= n) focus_.reset();
    }
    retranslate();
    canvas_->update();
}

void ExploreLinesView::rebuildHeadBoxes() {
    for (QCheckBox* box : boxes_) delete box;
    boxes_.clear();
    while (QLayoutItem* item = headBoxes_->takeAt(0)) delete item;
    for (std::size_t h = 0; h < weights_.size(); ++h) {
        auto* box = new QCheckBox(this);
        box->setChecked(visible_[h]);
        const QColor c = headColor(static_cast<int>(h));
        box->setStyleSheet(
            QStringLiteral("QCheckBox { color: %1; font-weight: bold; }").arg(c.name()));
        connect(box, &QCheckBox::toggled, this,
                [this, h](bool on) { setHeadVisible(static_cast<int>(h), on); });
        const int at = static_cast<int>(h);
        headBoxes_->addWidget(box, at / kHeadsPerRow, at % kHeadsPerRow);
        boxes_.push_back(box);
    }
    // The boxes keep to the left; the column after them takes the spare width.
    for (int c = 0; c < kHeadsPerRow; ++c) headBoxes_->setColumnStretch(c, 0);
    headBoxes_->setColumnStretch(kHeadsPerRow, 1);
}

void ExploreLinesView::setHeadVisible(int head, bool visible) {
    if (head < 0 || head >= headCount()) return;
    visible_[static_cast<std::size_t>(head)] = visible;
    QCheckBox* box = boxes_[static_cast<std::size_t>(head)];
    if (box->isChecked() != visible) box->setChecked(visible);
    canvas_->update();
}

bool ExploreLinesView::headVisible(int head) const {
    return head >= 0 && head < headCount() && visible_[static_cast<std::size_t>(head)];
}

void ExploreLinesView::setFocusToken(std::optional<std::pair<Side, int>> token) {
    focus_ = token;
    canvas_->update();
}

int ExploreLinesView::drawnLineCount() const {
    int n = 0;
    canvas_->forEachLine([&](int, int, int, float) { ++n; });
    return n;
}

}  // namespace views
