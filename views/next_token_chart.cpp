#include "views/next_token_chart.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "views/chart_axes.h"
#include "views/colormaps.h"
#include "views/figure_paint.h"
#include "views/heatmap_style.h"
#include "views/number_text.h"

namespace views {

namespace {

// Probabilities on the axis as percentages, through the app's number formatter.
class PercentTicker : public QCPAxisTicker {
protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        return NextTokenChart::tr("%1 %").arg(compactText(tick * 100.0));
    }
};

}  // namespace

NextTokenChart::NextTokenChart(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    plot_ = new QCustomPlot(this);
    plot_->setMinimumHeight(120);
    layout->addWidget(plot_);
    bars_ = new QCPBars(plot_->yAxis, plot_->xAxis);  // keys down the side, values across
    bars_->setWidth(0.7);
    plot_->yAxis->setRangeReversed(true);  // rank 1 at the top
    plot_->yAxis->grid()->setVisible(false);
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new PercentTicker));
    rebuild();
}

QString NextTokenChart::percentText(double prob) const {
    const double percent = prob * 100.0;
    // One decimal from 1 %, two below it; tiny ones keep their significant digits.
    const QString number = percent >= 1.0    ? fixedText(percent, 1)
                           : percent >= 0.01 ? fixedText(percent, 2)
                                             : compactText(percent);
    return tr("%1 %").arg(number);
}

void NextTokenChart::setPredictions(const std::vector<NextToken>& predictions) {
    predictions_ = predictions;
    std::stable_sort(predictions_.begin(), predictions_.end(),
                     [](const NextToken& a, const NextToken& b) { return a.prob > b.prob; });
    rebuild();
}

QStringList NextTokenChart::barLabels() const {
    QStringList labels;
    for (const NextToken& t : predictions_)
        labels << (t.token.size() > kMaxLabelChars
                       ? t.token.left(kMaxLabelChars - 1) + QChar(0x2026)  // …
                       : t.token);
    return labels;
}

QStringList NextTokenChart::barTexts() const {
    QStringList texts;
    for (const NextToken& t : predictions_) texts << percentText(t.prob);
    return texts;
}

void NextTokenChart::rebuild() {
    plot_->clearItems();
    const int n = barCount();
    QVector<double> keys, values;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const QStringList labels = barLabels();
    double top = 0.0;
    for (int i = 0; i < n; ++i) {
        keys << i + 1;
        values << std::max(0.0, predictions_[static_cast<std::size_t>(i)].prob);
        ticker->addTick(i + 1, labels[i]);
        top = std::max(top, values.back());
    }
    bars_->setData(keys, values, true);
    plot_->yAxis->setTicker(ticker);
    plot_->yAxis->setRange(0.4, std::max(n, 1) + 0.6);
    // Room after the longest bar for its percentage.
    plot_->xAxis->setRange(0.0, top > 0.0 ? top * 1.3 : 1.0);
    plot_->xAxis->setLabel(n > 0 ? axisTitle() : QString());
    const QStringList texts = barTexts();
    for (int i = 0; i < n; ++i) {
        auto* text = new QCPItemText(plot_);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        text->position->setType(QCPItemPosition::ptPlotCoords);
        text->position->setCoords(values[i], keys[i]);
        text->setPadding(QMargins(4, 0, 0, 0));
        text->setText(texts[i]);
        text->setClipToAxisRect(false);
    }
    if (n == 0) {
        auto* empty = new QCPItemText(plot_);
        empty->position->setType(QCPItemPosition::ptAxisRectRatio);
        empty->position->setCoords(0.5, 0.5);
        empty->setText(tr("No prediction yet: type a text and run the model."));
        empty->setObjectName(QStringLiteral("empty"));
    }
    applyColours(false);
    updateGeometry();
}

void NextTokenChart::applyColours(bool figure) const {
    // Screen: the palette's colours (no white panel on a dark desktop); figure: black on white.
    const QPalette& pal = palette();
    const QColor text = figure ? heatmap_style::kLabelColor : pal.color(QPalette::Text);
    const QColor muted =
        figure ? heatmap_style::kSubtitleColor : pal.color(QPalette::PlaceholderText);
    plot_->setBackground(figure ? QBrush(Qt::NoBrush) : pal.base());
    const QFont font = styleChartAxes(plot_, this->font(), text, muted);
    plot_->xAxis->grid()->setPen(
        QPen(figure ? QColor(0xd0, 0xd0, 0xd0) : pal.color(QPalette::Mid), 1, Qt::DotLine));
    plot_->yAxis->setTickLength(0, 0);
    // The bars in the colour of a high weight in the heatmaps, so "likely" looks the same.
    const QColor bar = colormap::colorAt(colormap::kViridis, 0.35);
    bars_->setBrush(bar);
    bars_->setPen(QPen(bar.darker(130)));
    for (int i = 0; i < plot_->itemCount(); ++i) {
        if (auto* item = qobject_cast<QCPItemText*>(plot_->item(i))) {
            item->setColor(item->objectName() == QLatin1String("empty") ? muted : text);
            item->setFont(font);
        }
    }
    plot_->replot();
}

QSize NextTokenChart::figureSize() const {
    const int row = fontMetrics().height() * 2;
    return {std::max(480, plot_->width()),
            3 * fontMetrics().height() + std::max(barCount(), 1) * row + row};
}

QSize NextTokenChart::sizeHint() const { return {480, figureSize().height()}; }

QByteArray NextTokenChart::renderBytes(FigureFormat format, QString* error) const {
    if (barCount() == 0) {
        if (error) *error = tr("The next-token chart is empty: run the model on a text first.");
        return {};
    }
    if (format == FigureFormat::Csv) {
        QByteArray csv = "token,id,prob\r\n";
        for (const NextToken& t : predictions_)
            csv += csvField(t.token) + ',' + QByteArray::number(t.id) + ',' +
                   csvNumber(static_cast<float>(t.prob)) + "\r\n";
        return csv;
    }
    const QSize size = figureSize();
    QString reason;
    applyColours(true);
    const QByteArray bytes = paintFigure(
        format, size, 1.0, false, tr("Next-token probabilities"),
        [&](QCPPainter& painter) { plot_->toPainter(&painter, size.width(), size.height()); },
        &reason);
    applyColours(false);
    if (bytes.isEmpty() && error)
        *error =
            tr("Could not draw the next-token chart as %1: %2").arg(figureKind(format), reason);
    return bytes;
}

void NextTokenChart::setMeaning(Meaning meaning) {
    meaning_ = meaning;
    rebuild();
}

QString NextTokenChart::axisTitle() const {
    return meaning_ == Meaning::MaskFiller ? tr("probability of the token at the masked position")
                                           : tr("probability of the next token");
}

void NextTokenChart::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        applyColours(false);
    if (event->type() == QEvent::LanguageChange) rebuild();
    QWidget::changeEvent(event);
}

}  // namespace views
