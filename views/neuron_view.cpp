#include "views/neuron_view.h"

#include <QEvent>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "views/colormaps.h"
#include "views/number_text.h"

namespace views {

namespace {

// Values under the bars: 4 decimals, as the head view's hover arithmetic prints them.
constexpr int kDecimals = 4;

float columnValue(const attn::NeuronView& n, int column, Eigen::Index d) {
    return column == 0 ? n.q(d) : column == 1 ? n.k(d) : n.product(d);
}

}  // namespace

// The bars: a row per dimension, three columns (q, k, q × k), each bar from the column's zero
// line, scaled by the column's largest |value|, blue below 0 and red above (the diverging map's
// ends), its value beside it.
class NeuronBars : public QWidget {
public:
    explicit NeuronBars(NeuronView* owner) : QWidget(owner), owner_(owner) {
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    }
    int rowHeight() const { return fontMetrics().height() + 6; }
    QSize sizeHint() const override {
        const attn::NeuronView* n = owner_->neuron();
        const int rows = n ? static_cast<int>(n->head_dim) + 1 : 1;
        return {fontMetrics().horizontalAdvance(QStringLiteral("0")) * 60, rows * rowHeight()};
    }
    QSize minimumSizeHint() const override { return {240, sizeHint().height()}; }

protected:
    void paintEvent(QPaintEvent*) override {
        const attn::NeuronView* n = owner_->neuron();
        if (!n) return;
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing, false);
        const QFontMetrics fm = fontMetrics();
        const int rowH = rowHeight();
        const int indexW = fm.horizontalAdvance(QStringLiteral("000")) + 8;
        const int columnW = std::max(60, (width() - indexW) / 3);
        const QColor text = palette().color(QPalette::WindowText);
        const QStringList titles = {QStringLiteral("q"), QStringLiteral("k"),
                                    QStringLiteral("q × k")};
        p.setPen(text);
        for (int c = 0; c < 3; ++c)
            p.drawText(QRect(indexW + c * columnW, 0, columnW, rowH), Qt::AlignCenter, titles[c]);
        for (int c = 0; c < 3; ++c) {
            float largest = 0.0f;
            for (Eigen::Index d = 0; d < n->head_dim; ++d)
                largest = std::max(largest, std::abs(columnValue(*n, c, d)));
            const int left = indexW + c * columnW;
            // Half of the column for the bar, the rest for its value.
            const int barHalf =
                (columnW - fm.horizontalAdvance(QStringLiteral("−00.0000")) - 12) / 2;
            const int zero = left + 4 + std::max(8, barHalf);
            for (Eigen::Index d = 0; d < n->head_dim; ++d) {
                const int top = static_cast<int>(d + 1) * rowH;
                const float v = columnValue(*n, c, d);
                const int length =
                    largest > 0.0f
                        ? static_cast<int>(std::lround(static_cast<double>(std::abs(v) / largest) *
                                                       std::max(8, barHalf)))
                        : 0;
                const QColor colour = colormap::colorAt(colormap::kDiverging, v < 0.0f ? 0.1 : 0.9);
                const QRect bar = v < 0.0f ? QRect(zero - length, top + 3, length, rowH - 6)
                                           : QRect(zero, top + 3, length, rowH - 6);
                p.fillRect(bar, colour);
                p.setPen(palette().color(QPalette::Mid));
                p.drawLine(zero, top + 1, zero, top + rowH - 1);
                p.setPen(text);
                p.drawText(QRect(zero + std::max(8, barHalf) + 6, top, columnW, rowH),
                           Qt::AlignVCenter | Qt::AlignLeft,
                           fixedText(static_cast<double>(v), kDecimals));
            }
        }
        p.setPen(palette().color(QPalette::PlaceholderText));
        for (Eigen::Index d = 0; d < n->head_dim; ++d)
            p.drawText(QRect(0, static_cast<int>(d + 1) * rowH, indexW - 6, rowH),
                       Qt::AlignVCenter | Qt::AlignRight, QString::number(d + 1));
    }

private:
    NeuronView* owner_;
};

NeuronView::NeuronView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    heading_ = new QLabel(this);
    heading_->setWordWrap(true);
    heading_->setTextFormat(Qt::PlainText);
    layout->addWidget(heading_);
    // The three results first: with head_dim 64 the bars scroll, the numbers stay in sight.
    results_ = new QLabel(this);
    results_->setWordWrap(true);
    results_->setTextFormat(Qt::PlainText);
    results_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(results_);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    bars_ = new NeuronBars(this);
    scroll->setWidget(bars_);
    layout->addWidget(scroll, 1);
    retranslate();
}

void NeuronView::setNeuron(const attn::NeuronView& neuron, const QString& queryToken,
                           const QString& keyToken) {
    neuron_ = neuron;
    queryToken_ = queryToken;
    keyToken_ = keyToken;
    bars_->updateGeometry();
    bars_->adjustSize();
    bars_->update();
    retranslate();
}

void NeuronView::clear() {
    neuron_.reset();
    bars_->updateGeometry();
    bars_->update();
    retranslate();
}

QString NeuronView::heading() const { return heading_->text(); }

QStringList NeuronView::columnTexts(int column) const {
    QStringList out;
    if (!neuron_ || column < 0 || column > 2) return out;
    for (Eigen::Index d = 0; d < neuron_->head_dim; ++d)
        out << fixedText(static_cast<double>(columnValue(*neuron_, column, d)), kDecimals);
    return out;
}

QStringList NeuronView::resultLines() const {
    return results_->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

QWidget* NeuronView::barsWidget() const { return bars_; }

void NeuronView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

void NeuronView::retranslate() {
    if (!neuron_) {
        heading_->setText(
            tr("Neuron view: point at a cell of the head view (or click it to keep "
               "it) to see the query and key vectors that make its weight."));
        results_->clear();
        return;
    }
    const attn::NeuronView& n = *neuron_;
    bars_->setToolTip(
        tr("The head's query q and key k and their product q × k, dimension by "
           "dimension: q·k is the sum of the last column."));
    heading_->setText(tr("Neuron view · layer %1 · head %2 · query “%3” (%4) → key “%5” (%6) · "
                         "head_dim = %7")
                          .arg(n.layer + 1)
                          .arg(n.head + 1)
                          .arg(queryToken_)
                          .arg(n.query + 1)
                          .arg(keyToken_)
                          .arg(n.key + 1)
                          .arg(n.head_dim));
    const QString dot = fixedText(static_cast<double>(n.dot), kDecimals);
    const QStringList lines = {
        tr("q·k = Σ (q × k) = %1").arg(dot),
        tr("q·k / √%1 = %2 / %3 = %4")
            .arg(n.head_dim)
            .arg(dot, fixedText(static_cast<double>(n.sqrt_head_dim), kDecimals),
                 fixedText(static_cast<double>(n.scaled), kDecimals)),
        tr("softmax over the query's row: α = %1")
            .arg(fixedText(static_cast<double>(n.weight), kDecimals))};
    results_->setText(lines.join(QLatin1Char('\n')));
}

}  // namespace views
