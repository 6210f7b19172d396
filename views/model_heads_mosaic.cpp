#include "views/model_heads_mosaic.h"

#include <QEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QToolTip>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "views/colormaps.h"
#include "views/number_text.h"

namespace views {

namespace {

// Viridis sampled once: 720 thumbnails of 64 × 64 cells are 3 million lookups.
const std::array<QRgb, 256>& viridis() {
    static const std::array<QRgb, 256> table = [] {
        std::array<QRgb, 256> t{};
        for (std::size_t i = 0; i < t.size(); ++i)
            t[i] = colormap::colorAt(colormap::kViridis, static_cast<double>(i) / 255.0).rgb();
        return t;
    }();
    return table;
}

QRgb colourOf(float value, float lower, float upper) {
    if (!std::isfinite(value)) return colormap::nanColor().rgb();
    double position = upper > lower
                          ? static_cast<double>(value - lower) / static_cast<double>(upper - lower)
                          : (value > 0.0f ? 1.0 : 0.0);
    position = std::clamp(position, 0.0, 1.0);
    return viridis()[static_cast<std::size_t>(std::lround(position * 255.0))];
}

// Causal: every weight after the query's own token is exactly 0 (what model_forward returns).
bool isCausal(const attn::Matrix& w, Eigen::Index offset) {
    for (Eigen::Index q = 0; q < w.rows(); ++q)
        for (Eigen::Index k = q + offset + 1; k < w.cols(); ++k)
            if (w(q, k) != 0.0f) return false;
    return true;
}

}  // namespace

HeadFocus headFocus(const attn::Matrix& weights) {
    HeadFocus focus;
    const Eigen::Index offset = std::max<Eigen::Index>(0, weights.cols() - weights.rows());
    // From the third token on, the previous, the first and the token itself are three cells.
    for (Eigen::Index q = 0; q < weights.rows(); ++q) {
        const Eigen::Index self = q + offset;
        if (self < 2 || self >= weights.cols()) continue;
        const auto share = [](float v) { return std::isfinite(v) ? static_cast<double>(v) : 0.0; };
        focus.previous += share(weights(q, self - 1));
        focus.first += share(weights(q, 0));
        focus.self += share(weights(q, self));
        ++focus.queries;
    }
    if (focus.queries > 0) {
        focus.previous /= focus.queries;
        focus.first /= focus.queries;
        focus.self /= focus.queries;
    }
    return focus;
}

ModelHeadsMosaic::ModelHeadsMosaic(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

void ModelHeadsMosaic::setAttentions(const std::vector<std::vector<attn::Matrix>>& attentions) {
    cells_.clear();
    layers_ = heads_ = 0;
    rows_ = cols_ = 0;
    simplified_ = false;
    problem_.clear();
    hoveredLayer_ = hoveredHead_ = -1;
    const std::size_t heads = attentions.empty() ? 0 : attentions.front().size();
    if (heads > 0) {
        const attn::Matrix& first = attentions.front().front();
        for (const auto& layer : attentions) {
            if (layer.size() != heads)
                problem_ = tr("The layers have different head counts (%1 and %2): give every "
                              "layer all its heads.")
                               .arg(heads)
                               .arg(layer.size());
            for (const attn::Matrix& m : layer)
                if (problem_.isEmpty() && (m.rows() != first.rows() || m.cols() != first.cols()))
                    problem_ = tr("The heads have different shapes (%1 × %2 and %3 × %4): give "
                                  "every head the weights of the same tokens.")
                                   .arg(first.rows())
                                   .arg(first.cols())
                                   .arg(m.rows())
                                   .arg(m.cols());
        }
        if (first.size() == 0 && problem_.isEmpty())
            problem_ = tr("The attention weights are empty: type a text first.");
    }
    if (heads == 0 || !problem_.isEmpty()) {
        setSelected(-1, -1);
        updateGeometry();
        update();
        return;
    }
    layers_ = static_cast<int>(attentions.size());
    heads_ = static_cast<int>(heads);
    rows_ = attentions.front().front().rows();
    cols_ = attentions.front().front().cols();
    simplified_ = rows_ > kMaxThumbnailCells || cols_ > kMaxThumbnailCells;
    const Eigen::Index rows = std::min(rows_, kMaxThumbnailCells);
    const Eigen::Index cols = std::min(cols_, kMaxThumbnailCells);
    const Eigen::Index offset = std::max<Eigen::Index>(0, cols_ - rows_);
    // Which thumbnail column each key falls in, computed once for all heads.
    std::vector<Eigen::Index> columnOf(static_cast<std::size_t>(cols_));
    for (Eigen::Index c = 0; c < cols; ++c)
        for (Eigen::Index k = c * cols_ / cols; k < (c + 1) * cols_ / cols; ++k)
            columnOf[static_cast<std::size_t>(k)] = c;
    cells_.resize(static_cast<std::size_t>(layers_ * heads_));
    // gpt2-large at 1024 tokens reads 755 million weights: the heads in parallel.
    const int count = layers_ * heads_;
#pragma omp parallel for schedule(dynamic, 1) if (rows_ * cols_ >= 65536)
    for (int i = 0; i < count; ++i) {
        const attn::Matrix& w =
            attentions[static_cast<std::size_t>(i / heads_)][static_cast<std::size_t>(i % heads_)];
        Head& h = cells_[static_cast<std::size_t>(i)];
        // Block maxima: a previous-token diagonal of 1024 tokens stays a bright line.
        h.cells = attn::Matrix::Constant(rows, cols, std::numeric_limits<float>::quiet_NaN());
        for (Eigen::Index r = 0; r < rows; ++r) {
            for (Eigen::Index q = r * rows_ / rows; q < (r + 1) * rows_ / rows; ++q) {
                for (Eigen::Index k = 0; k < cols_; ++k) {
                    const float v = w(q, k);
                    float& cell = h.cells(r, columnOf[static_cast<std::size_t>(k)]);
                    if (std::isfinite(v) && !(cell >= v)) cell = v;
                }
            }
        }
        h.future = attn::BoolMatrix::Constant(rows, cols, false);
        if (rows_ > 1 && isCausal(w, offset)) {
            // A cell lies in the future when its first key comes after its last query.
            for (Eigen::Index r = 0; r < rows; ++r) {
                const Eigen::Index lastQuery = (r + 1) * rows_ / rows - 1 + offset;
                for (Eigen::Index c = 0; c < cols; ++c)
                    h.future(r, c) = c * cols_ / cols > lastQuery;
            }
        }
        bool any = false;
        for (Eigen::Index r = 0; r < rows; ++r) {
            for (Eigen::Index c = 0; c < cols; ++c) {
                const float v = h.cells(r, c);
                if (h.future(r, c) || !std::isfinite(v)) continue;
                h.max = any ? std::max(h.max, v) : v;
                h.min = any ? std::min(h.min, v) : v;
                any = true;
            }
        }
        h.focus = headFocus(w);
    }
    if (selectedLayer_ >= layers_ || selectedHead_ >= heads_) setSelected(-1, -1);
    paintThumbnails();
    updateGeometry();
    update();
}

void ModelHeadsMosaic::paintThumbnails() {
    float sharedMax = 0.0f, sharedMin = 0.0f;
    for (const Head& h : cells_) {
        sharedMax = std::max(sharedMax, h.max);
        sharedMin = std::min(sharedMin, h.min);
    }
    // Future cells recede: the heatmaps' masked grey on a light desktop, a dark grey on a dark
    // one (a light grey half of every thumbnail would glare).
    const QColor window = palette().color(QPalette::Window);
    const QRgb futureColour =
        window.lightnessF() < 0.5f ? window.lighter(160).rgb() : colormap::maskedColor().rgb();
    for (Head& h : cells_) {
        const Eigen::Index rows = h.cells.rows(), cols = h.cells.cols();
        h.image = QImage(static_cast<int>(cols), static_cast<int>(rows), QImage::Format_RGB32);
        for (Eigen::Index r = 0; r < rows; ++r) {
            // The weights' range starts at 0 unless some value is negative (darkest = 0), as
            // the heatmaps' own ranges.
            float lower = std::min(0.0f, h.min), upper = h.max;
            if (range_ == Range::Shared) {
                lower = sharedMin;
                upper = sharedMax;
            } else if (range_ == Range::PerRow) {
                lower = 0.0f;
                upper = 0.0f;
                for (Eigen::Index c = 0; c < cols; ++c) {
                    const float v = h.cells(r, c);
                    if (h.future(r, c) || !std::isfinite(v)) continue;
                    lower = std::min(lower, v);
                    upper = std::max(upper, v);
                }
            }
            auto* line = reinterpret_cast<QRgb*>(h.image.scanLine(static_cast<int>(r)));
            for (Eigen::Index c = 0; c < cols; ++c)
                line[c] = h.future(r, c) ? futureColour : colourOf(h.cells(r, c), lower, upper);
        }
    }
}

void ModelHeadsMosaic::setRange(Range range) {
    if (range == range_) return;
    range_ = range;
    paintThumbnails();
    update();
}

void ModelHeadsMosaic::setSelected(int layer, int head) {
    if (layer < 0 || head < 0 || layer >= layers_ || head >= heads_) layer = head = -1;
    if (layer == selectedLayer_ && head == selectedHead_) return;
    selectedLayer_ = layer;
    selectedHead_ = head;
    update();
}

const ModelHeadsMosaic::Head* ModelHeadsMosaic::head(int layer, int head) const {
    if (layer < 0 || head < 0 || layer >= layers_ || head >= heads_) return nullptr;
    return &cells_[static_cast<std::size_t>(layer * heads_ + head)];
}

QImage ModelHeadsMosaic::thumbnail(int layer, int head) const {
    const Head* h = this->head(layer, head);
    return h ? h->image : QImage();
}

HeadFocus ModelHeadsMosaic::focus(int layer, int head) const {
    const Head* h = this->head(layer, head);
    return h ? h->focus : HeadFocus();
}

void ModelHeadsMosaic::setKvHeads(int kvHeads) {
    if (kvHeads_ == kvHeads) return;
    kvHeads_ = kvHeads;
    update();
}

int ModelHeadsMosaic::groupSize() const {
    return kvHeads_ > 0 && kvHeads_ < heads_ && heads_ % kvHeads_ == 0 ? heads_ / kvHeads_ : 1;
}

QString ModelHeadsMosaic::headToolTip(int layer, int head) const {
    const Head* h = this->head(layer, head);
    if (!h) return {};
    const auto percent = [](double share) { return tr("%1 %").arg(fixedText(share * 100.0, 0)); };
    QStringList lines{tr("Layer %1 · head %2").arg(layer + 1).arg(head + 1)};
    if (const int size = groupSize(); size > 1) {
        const int group = head / size;
        lines << tr("Reads K/V head %1, which query heads %2–%3 share: the same keys, its own "
                    "queries.")
                     .arg(group + 1)
                     .arg(group * size + 1)
                     .arg(group * size + size);
    }
    const HeadFocus& f = h->focus;
    if (f.queries == 0) {
        lines << tr("Too few tokens to tell where this head looks.");
    } else {
        const double best = std::max({f.previous, f.first, f.self});
        // "Mostly" only when one position holds at least half of the weight.
        if (best >= 0.5 && best == f.previous)
            lines << tr("Mostly the previous token: %1 of the weight on it.").arg(percent(best));
        else if (best >= 0.5 && best == f.first)
            lines << tr("Mostly the first token: %1 of the weight on it.").arg(percent(best));
        else if (best >= 0.5)
            lines << tr("Mostly itself: %1 of the weight on its own token.").arg(percent(best));
        else
            lines << tr("No single favourite: %1 on the previous token, %2 on the first, %3 on "
                        "itself.")
                         .arg(percent(f.previous), percent(f.first), percent(f.self));
        lines << tr("(mean over the %n queries from the third token on)", nullptr, f.queries);
    }
    if (simplified_)
        lines << tr("Thumbnail: the maximum of each block of about %1 × %2 weights.")
                     .arg(fixedText(
                         static_cast<double>(rows_) / static_cast<double>(h->cells.rows()), 0))
                     .arg(fixedText(
                         static_cast<double>(cols_) / static_cast<double>(h->cells.cols()), 0));
    return lines.join(QLatin1Char('\n'));
}

// --- layout ---------------------------------------------------------------------------------

ModelHeadsMosaic::Geometry ModelHeadsMosaic::geometry(int width) const {
    const QFontMetrics fm = fontMetrics();
    Geometry g;
    g.left = fm.horizontalAdvance(QStringLiteral("L%1").arg(std::max(layers_, 1))) +
             fm.averageCharWidth();
    g.top = fm.height() + fm.height() / 4;
    // Room between thumbnails for the selection outline; all sizes follow the font (zoom).
    g.gap = std::max(4, fm.height() / 4);
    const int minThumb = std::max(12, fm.height());
    const int maxThumb = 8 * fm.height();
    const int heads = std::max(heads_, 1);
    g.thumb = std::clamp((width - g.left - g.gap * heads) / heads, minThumb, maxThumb);
    return g;
}

QRect ModelHeadsMosaic::thumbnailRect(int layer, int head) const {
    if (!this->head(layer, head)) return {};
    const Geometry g = geometry(width());
    return QRect(g.left + g.gap / 2 + head * (g.thumb + g.gap),
                 g.top + g.gap / 2 + layer * (g.thumb + g.gap), g.thumb, g.thumb);
}

int ModelHeadsMosaic::heightForWidth(int width) const {
    const Geometry g = geometry(width);
    if (layers_ == 0) return 3 * fontMetrics().height();
    return g.top + layers_ * (g.thumb + g.gap);
}

QSize ModelHeadsMosaic::sizeHint() const {
    // About four lines of text per thumbnail: a 12-head layer fits a laptop's width.
    const int thumb = 4 * fontMetrics().height();
    const Geometry g = geometry(0);
    const int width = g.left + std::max(heads_, 1) * (thumb + g.gap);
    return {width, heightForWidth(width)};
}

QSize ModelHeadsMosaic::minimumSizeHint() const {
    const Geometry g = geometry(0);  // the smallest thumbnails
    const int width = g.left + std::max(heads_, 1) * (g.thumb + g.gap);
    return {width, heightForWidth(width)};
}

std::pair<int, int> ModelHeadsMosaic::headAt(QPoint pos) const {
    const Geometry g = geometry(width());
    const int step = g.thumb + g.gap;
    if (pos.x() < g.left || pos.y() < g.top || step <= 0) return {-1, -1};
    const int head = (pos.x() - g.left) / step, layer = (pos.y() - g.top) / step;
    if (!thumbnailRect(layer, head).contains(pos)) return {-1, -1};
    return {layer, head};
}

// --- painting and input -----------------------------------------------------------------------

void ModelHeadsMosaic::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QPalette& pal = palette();
    if (layers_ == 0) {
        p.setPen(problem_.isEmpty() ? pal.color(QPalette::PlaceholderText)
                                    : pal.color(QPalette::Text));
        p.drawText(rect().adjusted(8, 0, -8, 0), Qt::AlignCenter | Qt::TextWordWrap,
                   problem_.isEmpty() ? tr("No attention weights yet.") : problem_);
        return;
    }
    const Geometry g = geometry(width());
    const QFontMetrics fm = fontMetrics();
    p.setPen(pal.color(QPalette::Text));
    // Head labels: every one that fits ("H1", "H5", ... when the thumbnails are narrow).
    const int labelWidth = fm.horizontalAdvance(QStringLiteral("H%1").arg(heads_)) + g.gap;
    const int every = std::max(1, (labelWidth + g.thumb + g.gap - 1) / (g.thumb + g.gap));
    for (int h = 0; h < heads_; h += every) {
        const QRect t = thumbnailRect(0, h);
        p.drawText(QRect(t.center().x() - labelWidth / 2, 0, labelWidth, g.top),
                   Qt::AlignHCenter | Qt::AlignBottom, QStringLiteral("H%1").arg(h + 1));
    }
    const int labelsEvery = std::max(1, (fm.height() + g.thumb + g.gap - 1) / (g.thumb + g.gap));
    for (int l = 0; l < layers_; l += labelsEvery) {
        const QRect t = thumbnailRect(l, 0);
        p.drawText(QRect(0, t.top(), g.left - fm.averageCharWidth() / 2, t.height()),
                   Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("L%1").arg(l + 1));
    }
    // Grouped K/V heads: every other group of query heads on a band of its own, and a bracket
    // over each group under the head labels.
    if (const int size = groupSize(); size > 1) {
        const QRect last = thumbnailRect(layers_ - 1, 0);
        const QColor band = pal.color(QPalette::Window).darker(112);
        p.setPen(QPen(pal.color(QPalette::Highlight), 2));
        for (int group = 0; group < heads_ / size; ++group) {
            const QRect first = thumbnailRect(0, group * size);
            const QRect end = thumbnailRect(0, group * size + size - 1);
            if (group % 2 == 0)
                p.fillRect(QRect(QPoint(first.left() - g.gap / 2, first.top() - g.gap / 2),
                                 QPoint(end.right() + g.gap / 2, last.bottom() + g.gap / 2)),
                           band);
            const int y = first.top() - std::max(2, g.gap / 2) - 1;
            p.drawLine(first.left() + 1, y, end.right() - 1, y);
        }
        p.setPen(pal.color(QPalette::Text));
    }
    // Each cell a block of pixels, no smoothing: a thumbnail shows cells, not a blur.
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    for (int l = 0; l < layers_; ++l)
        for (int h = 0; h < heads_; ++h) p.drawImage(thumbnailRect(l, h), thumbnail(l, h));
    p.setBrush(Qt::NoBrush);
    if (hoveredLayer_ >= 0) {
        p.setPen(QPen(pal.color(QPalette::Text), 1));
        p.drawRect(thumbnailRect(hoveredLayer_, hoveredHead_).adjusted(-1, -1, 0, 0));
    }
    if (selectedLayer_ >= 0) {
        const int w = std::max(2, g.gap / 2);
        QPen pen(pal.color(QPalette::Highlight), w);
        pen.setJoinStyle(Qt::MiterJoin);
        p.setPen(pen);
        const QRectF r = QRectF(thumbnailRect(selectedLayer_, selectedHead_))
                             .adjusted(-w / 2.0, -w / 2.0, w / 2.0, w / 2.0);
        p.drawRect(r);
        if (hasFocus()) {
            p.setPen(QPen(pal.color(QPalette::Text), 1, Qt::DotLine));
            p.drawRect(r.adjusted(-w / 2.0 - 1, -w / 2.0 - 1, w / 2.0 + 1, w / 2.0 + 1));
        }
    }
}

bool ModelHeadsMosaic::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const auto [layer, head] = headAt(help->pos());
        if (layer >= 0)
            QToolTip::showText(help->globalPos(), headToolTip(layer, head), this,
                               thumbnailRect(layer, head));
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void ModelHeadsMosaic::mousePressEvent(QMouseEvent* event) {
    const auto [layer, head] = headAt(event->position().toPoint());
    if (event->button() != Qt::LeftButton || layer < 0) return QWidget::mousePressEvent(event);
    setSelected(layer, head);
    emit headClicked(layer, head);
}

void ModelHeadsMosaic::mouseMoveEvent(QMouseEvent* event) {
    const auto [layer, head] = headAt(event->position().toPoint());
    setHovered(layer, head);
    QWidget::mouseMoveEvent(event);
}

void ModelHeadsMosaic::leaveEvent(QEvent* event) {
    setHovered(-1, -1);
    QWidget::leaveEvent(event);
}

void ModelHeadsMosaic::setHovered(int layer, int head) {
    if (layer == hoveredLayer_ && head == hoveredHead_) return;
    hoveredLayer_ = layer;
    hoveredHead_ = head;
    update();
    emit headHovered(layer, head);
}

void ModelHeadsMosaic::keyPressEvent(QKeyEvent* event) {
    if (layers_ == 0) return QWidget::keyPressEvent(event);
    int layer = std::max(selectedLayer_, 0), head = std::max(selectedHead_, 0);
    const bool none = selectedLayer_ < 0;
    switch (event->key()) {
        case Qt::Key_Left:
            head = none ? 0 : std::max(0, head - 1);
            break;
        case Qt::Key_Right:
            head = none ? 0 : std::min(heads_ - 1, head + 1);
            break;
        case Qt::Key_Up:
            layer = none ? 0 : std::max(0, layer - 1);
            break;
        case Qt::Key_Down:
            layer = none ? 0 : std::min(layers_ - 1, layer + 1);
            break;
        case Qt::Key_Return:
        case Qt::Key_Enter:
        case Qt::Key_Space:
            if (!none) emit headClicked(selectedLayer_, selectedHead_);
            return;
        default:
            return QWidget::keyPressEvent(event);
    }
    setSelected(layer, head);
    // Keep the selection in sight when the mosaic sits in a scroll area.
    QWidget* viewport = parentWidget();
    if (auto* scroll = viewport ? qobject_cast<QScrollArea*>(viewport->parentWidget()) : nullptr) {
        const QRect r = thumbnailRect(layer, head);
        scroll->ensureVisible(r.center().x(), r.center().y(), r.width(), r.height());
    }
}

void ModelHeadsMosaic::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange) updateGeometry();
    if (event->type() == QEvent::PaletteChange) paintThumbnails();
    QWidget::changeEvent(event);
}

}  // namespace views
