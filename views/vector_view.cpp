#include "views/vector_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <vector>

namespace views {

namespace {

const QColor kArrow(0x4c, 0x72, 0xb0);
const QColor kAccent(0xdd, 0x84, 0x52);

}  // namespace

VectorView::VectorView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout;
    pairLabel_ = new QLabel(this);
    pairs_ = new QComboBox(this);
    pairLabel_->setBuddy(pairs_);
    row->addWidget(pairLabel_);
    row->addWidget(pairs_);
    row->addStretch(1);
    layout->addLayout(row);
    plot_ = new QCustomPlot(this);
    // Tick numbers as model/number_format.h prints them: "0.5", never "0,5" on a German desktop.
    plot_->setLocale(QLocale::c());
    plot_->setMinimumSize(320, 300);
    layout->addWidget(plot_, 1);
    connect(pairs_, &QComboBox::activated, this, [this](int index) {
        const QPoint dims = pairs_->itemData(index).toPoint();
        setDimensions(dims.x(), dims.y());
    });
    retranslate();
}

QSize VectorView::sizeHint() const {
    return QSize(static_cast<int>(460 * scale_), static_cast<int>(400 * scale_));
}

void VectorView::setVectors(const attn::Matrix& vectors, const QStringList& labels,
                            int highlighted) {
    vectors_ = vectors;
    labels_ = labels;
    highlighted_ = highlighted;
    const int d = static_cast<int>(vectors_.cols());
    xDim_ = std::clamp(xDim_, 0, std::max(d - 1, 0));
    yDim_ = std::clamp(yDim_, 0, std::max(d - 1, 0));
    if (xDim_ == yDim_ && d > 1) yDim_ = (xDim_ + 1) % d;
    fillPairs();
    rebuild();
}

void VectorView::setDimensions(int xDim, int yDim) {
    const int d = static_cast<int>(vectors_.cols());
    xDim_ = std::clamp(xDim, 0, std::max(d - 1, 0));
    yDim_ = std::clamp(yDim, 0, std::max(d - 1, 0));
    const int index = pairs_->findData(QPoint(xDim_, yDim_));
    if (index >= 0) pairs_->setCurrentIndex(index);
    rebuild();
}

void VectorView::setScale(double scale) {
    scale_ = scale;
    updateGeometry();
    rebuild();
}

void VectorView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    if (event->type() == QEvent::PaletteChange) rebuild();
    QWidget::changeEvent(event);
}

void VectorView::retranslate() {
    pairLabel_->setText(tr("&Plane:"));
    fillPairs();
    rebuild();
}

void VectorView::fillPairs() {
    pairs_->clear();
    const int d = static_cast<int>(vectors_.cols());
    // Embeddings wider than 8 would give a long list of pairs; the first few are enough to see
    // that vectors pointing the same way get high dot products.
    const int shown = std::min(d, 8);
    for (int a = 0; a < shown; ++a)
        for (int b = a + 1; b < shown; ++b)
            pairs_->addItem(tr("dimension %1 and %2").arg(a + 1).arg(b + 1), QPoint(a, b));
    const int index = pairs_->findData(QPoint(xDim_, yDim_));
    if (index >= 0) pairs_->setCurrentIndex(index);
    pairs_->setVisible(pairs_->count() > 1);
    pairLabel_->setVisible(pairs_->count() > 1);
}

void VectorView::rebuild() {
    plot_->clearItems();
    plot_->clearGraphs();
    const QFont base = font();
    QFont labelFont = base;
    labelFont.setPointSizeF(base.pointSizeF() * scale_);
    QFont tokenFont = labelFont;
    tokenFont.setBold(true);
    plot_->xAxis->setLabel(tr("dimension %1").arg(xDim_ + 1));
    plot_->yAxis->setLabel(tr("dimension %1").arg(yDim_ + 1));
    // The plot follows the palette, so a dark desktop gets no white panel.
    const QPalette& pal = palette();
    const bool dark = pal.color(QPalette::Base).lightness() < 128;
    plot_->setBackground(pal.base());
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
        axis->setLabelFont(labelFont);
        axis->setTickLabelFont(labelFont);
        axis->setLabelColor(pal.color(QPalette::Text));
        axis->setTickLabelColor(pal.color(QPalette::Text));
        axis->setBasePen(QPen(pal.color(QPalette::Text)));
        axis->setTickPen(QPen(pal.color(QPalette::Text)));
        axis->setSubTickPen(QPen(pal.color(QPalette::Text)));
        axis->grid()->setPen(QPen(pal.color(QPalette::Mid), 1, Qt::DotLine));
    }
    const Eigen::Index n = vectors_.rows();
    if (n == 0 || vectors_.cols() == 0) {
        plot_->replot();
        return;
    }
    const bool flat = vectors_.cols() < 2;
    double lo = 0.0;
    double hi = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
        const double x = static_cast<double>(vectors_(i, xDim_));
        const double y = flat ? 0.0 : static_cast<double>(vectors_(i, yDim_));
        lo = std::min({lo, x, y});
        hi = std::max({hi, x, y});
    }
    // Same range on both axes, so angles between the arrows are the true angles.
    const double pad = std::max((hi - lo) * 0.15, 0.05);
    plot_->xAxis->setRange(lo - pad * 0.3, hi + pad);
    plot_->yAxis->setRange(lo - pad * 0.3, hi + pad);

    // Labels of nearly equal vectors ("journey", "starts") would overprint: the later one goes
    // under its arrow head instead of above it.
    std::vector<QPointF> placedAbove;
    const double near = (hi - lo + pad) * 0.08;
    for (Eigen::Index i = 0; i < n; ++i) {
        const double x = static_cast<double>(vectors_(i, xDim_));
        const double y = flat ? 0.0 : static_cast<double>(vectors_(i, yDim_));
        const bool accent = i == highlighted_;
        bool crowded = false;
        for (const QPointF& p : placedAbove)
            crowded = crowded || (std::abs(p.x() - x) < near * 2.5 && std::abs(p.y() - y) < near);
        if (!crowded) placedAbove.emplace_back(x, y);
        const QColor colour = accent ? kAccent : kArrow;
        auto* arrow = new QCPItemLine(plot_);
        arrow->start->setCoords(0.0, 0.0);
        arrow->end->setCoords(x, y);
        arrow->setPen(QPen(colour, (accent ? 3.0 : 2.0) * scale_));
        arrow->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 10 * scale_, 12 * scale_));
        auto* text = new QCPItemText(plot_);
        text->position->setCoords(x, y);
        text->setPositionAlignment(Qt::AlignLeft | (crowded ? Qt::AlignTop : Qt::AlignBottom));
        text->setPadding(crowded ? QMargins(8, 4, 0, 0) : QMargins(4, 0, 0, 2));
        text->setFont(tokenFont);
        text->setColor(dark ? colour.lighter(140) : colour.darker(130));
        const QString label =
            i < labels_.size() ? labels_[static_cast<int>(i)] : QString::number(i + 1);
        text->setText(label);
        text->setClipToAxisRect(false);
    }
    plot_->replot();
}

}  // namespace views
