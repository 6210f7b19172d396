#include "views/explore_kv_stepper.h"

#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

#include "model/explain_attention.h"
#include "model/number_format.h"
#include "model/ops.h"
#include "views/heatmap_widget.h"
#include "views/number_text.h"

namespace views {

namespace {

attn::Matrix rowMatrix(const attn::RowVector& v) { return attn::Matrix(v); }

QStringList numbered(Eigen::Index n, const QString& prefix) {
    QStringList out;
    for (Eigen::Index i = 0; i < n; ++i) out << QStringLiteral("%1%2").arg(prefix).arg(i + 1);
    return out;
}

}  // namespace

ExploreKvStepper::ExploreKvStepper(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* controls = new QHBoxLayout;
    previous_ = new QPushButton(this);
    next_ = new QPushButton(this);
    slider_ = new QSlider(Qt::Horizontal, this);
    position_ = new QLabel(this);
    headCaption_ = new QLabel(this);
    headBox_ = new QSpinBox(this);
    headBox_->setMinimum(1);
    controls->addWidget(previous_);
    controls->addWidget(next_);
    controls->addWidget(slider_, 1);
    controls->addWidget(position_);
    controls->addSpacing(16);
    controls->addWidget(headCaption_);
    controls->addWidget(headBox_);
    layout->addLayout(controls);
    explanation_ = new QLabel(this);
    explanation_->setWordWrap(true);
    layout->addWidget(explanation_);

    auto* grid = new QGridLayout;
    keys_ = new HeatmapWidget(this);
    values_ = new HeatmapWidget(this);
    query_ = new HeatmapWidget(this);
    weights_ = new HeatmapWidget(this);
    output_ = new HeatmapWidget(this);
    for (HeatmapWidget* map : {keys_, values_, query_, weights_, output_}) {
        map->setMinimumSize(200, 110);
        map->setDecimals(3);
    }
    keys_->setColorMap(QStringLiteral("diverging"));
    values_->setColorMap(QStringLiteral("diverging"));
    query_->setColorMap(QStringLiteral("diverging"));
    output_->setColorMap(QStringLiteral("diverging"));
    grid->addWidget(keys_, 0, 0, 2, 1);
    grid->addWidget(values_, 0, 1, 2, 1);
    grid->addWidget(query_, 0, 2);
    grid->addWidget(weights_, 1, 2);
    grid->addWidget(output_, 2, 0, 1, 3);
    grid->setRowStretch(0, 2);
    grid->setRowStretch(1, 2);
    grid->setRowStretch(2, 1);
    layout->addLayout(grid, 1);
    counters_ = new QLabel(this);
    counters_->setWordWrap(true);
    counters_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(counters_);

    connect(previous_, &QPushButton::clicked, this, [this] { setStep(step_ - 1); });
    connect(next_, &QPushButton::clicked, this, [this] { setStep(step_ + 1); });
    connect(slider_, &QSlider::valueChanged, this, [this](int v) { setStep(v); });
    connect(headBox_, &QSpinBox::valueChanged, this, [this](int v) { setHead(v - 1); });
    // Each cell's arithmetic, from the step shown when the pointer rests on it; the cache's cells
    // are those of the K/V head the shown query head reads.
    const auto explained = [this](auto explain, bool cache = false) {
        return [this, explain, cache](int row, int column) {
            if (step_ < 0 || step_ >= static_cast<int>(trace_.steps.size())) return QString();
            return QString::fromStdString(
                explain(trace_.steps[static_cast<std::size_t>(step_)],
                        static_cast<std::size_t>(cache ? kvHead() : head_), row, column));
        };
    };
    const auto cacheCell = [](bool values) {
        return [values](const attn::KvTraceStep& s, std::size_t h, int r, int c) {
            return attn::explain_kv_cache(s, h, values, r, c);
        };
    };
    keys_->setTooltipProvider(explained(cacheCell(false), true));
    values_->setTooltipProvider(explained(cacheCell(true), true));
    query_->setTooltipProvider(explained([](const attn::KvTraceStep& s, std::size_t h, int, int c) {
        return attn::explain_kv_query(s, h, c);
    }));
    weights_->setTooltipProvider(explained([](const attn::KvTraceStep& s, std::size_t h, int,
                                              int c) { return attn::explain_kv_weight(s, h, c); }));
    output_->setTooltipProvider(explained([](const attn::KvTraceStep& s, std::size_t, int r,
                                             int c) { return attn::explain_kv_output(s, r, c); }));
    retranslate();
}

void ExploreKvStepper::retranslate() {
    previous_->setText(tr("◀ Previous token"));
    next_->setText(tr("Next token ▶"));
    headCaption_->setText(tr("Head"));
    showStep();
}

void ExploreKvStepper::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

void ExploreKvStepper::setTrace(attn::KvTrace trace, const QStringList& tokens,
                                const QString& note) {
    trace_ = std::move(trace);
    // Grouped-query attention: the cache holds fewer heads than the queries (kvHead()).
    kvHeads_ = trace_.steps.empty() ? static_cast<int>(trace_.num_heads)
                                    : static_cast<int>(trace_.steps[0].cache_keys.size());
    tokens_ = tokens;
    note_ = note;
    const int count = static_cast<int>(trace_.steps.size());
    {
        const QSignalBlocker b1(slider_), b2(headBox_);
        slider_->setRange(0, std::max(count - 1, 0));
        headBox_->setMaximum(std::max<int>(static_cast<int>(trace_.num_heads), 1));
    }
    step_ = std::clamp(step_, 0, std::max(count - 1, 0));
    head_ = std::clamp(head_, 0, std::max<int>(static_cast<int>(trace_.num_heads) - 1, 0));
    showStep();
}

void ExploreKvStepper::setStep(int step) {
    const int count = static_cast<int>(trace_.steps.size());
    step_ = std::clamp(step, 0, std::max(count - 1, 0));
    showStep();
}

void ExploreKvStepper::setHead(int head) {
    head_ = std::clamp(head, 0, std::max<int>(static_cast<int>(trace_.num_heads) - 1, 0));
    showStep();
}

bool ExploreKvStepper::sharedKv() const { return kvHeads_ > 0 && kvHeads_ < trace_.num_heads; }

int ExploreKvStepper::kvHead() const {
    return sharedKv() ? static_cast<int>(attn::kv_head_of(head_, trace_.num_heads, kvHeads_))
                      : head_;
}

QString ExploreKvStepper::countersText() const { return counters_->text(); }
QString ExploreKvStepper::explanationText() const { return explanation_->text(); }

void ExploreKvStepper::showStep() {
    const int count = static_cast<int>(trace_.steps.size());
    {
        const QSignalBlocker b1(slider_), b2(headBox_);
        slider_->setValue(step_);
        headBox_->setValue(head_ + 1);
    }
    previous_->setEnabled(step_ > 0);
    next_->setEnabled(step_ + 1 < count);
    if (count == 0) {
        position_->clear();
        explanation_->setText(note_);
        counters_->clear();
        for (HeatmapWidget* map : {keys_, values_, query_, weights_, output_}) map->clear();
        return;
    }
    const attn::KvTraceStep& s = trace_.steps[static_cast<std::size_t>(step_)];
    const std::size_t h = static_cast<std::size_t>(head_);
    const QStringList seen = tokens_.mid(0, static_cast<qsizetype>(s.token + 1));
    const QString token = tokens_.value(static_cast<qsizetype>(s.token));
    position_->setText(tr("token %1 of %2").arg(s.token + 1).arg(count));
    QString text =
        s.token == 0
            ? tr("Step 1 feeds “%1”: the cache is empty, so its key and value become the cache's "
                 "first row, and its query attends to itself alone. From the next token on, the "
                 "cached keys and values are reused, not recomputed.")
                  .arg(token)
            : tr("Step %1 feeds “%2”: its key and value are computed once and appended to the "
                 "cache (outlined row); the keys and values of the %3 are reused, not "
                 "recomputed. Only the new query row attends over the cache, so no causal mask "
                 "is needed: every cached token is in the past.")
                  .arg(s.token + 1)
                  .arg(token)
                  .arg(tr("%n earlier token(s)", nullptr, static_cast<int>(s.token)));
    if (!note_.isEmpty()) text += QStringLiteral(" ") + note_;
    explanation_->setText(text);

    const QStringList dims = numbered(trace_.head_dim, QStringLiteral("d"));
    try {
        const bool shared = sharedKv();
        const int kv = kvHead();
        const std::size_t g = static_cast<std::size_t>(kv);
        keys_->setMatrix(s.cache_keys[g], seen, dims);
        keys_->setTitle((shared ? tr("K cache, K/V head %1 (%2 × %3)").arg(kv + 1)
                                : tr("K cache, head %1 (%2 × %3)").arg(head_ + 1))
                            .arg(s.token + 1)
                            .arg(trace_.head_dim));
        keys_->highlightRow(static_cast<int>(s.token));
        values_->setMatrix(s.cache_values[g], seen, dims);
        values_->setTitle(shared ? tr("V cache, K/V head %1").arg(kv + 1)
                                 : tr("V cache, head %1").arg(head_ + 1));
        values_->highlightRow(static_cast<int>(s.token));
        query_->setMatrix(rowMatrix(s.query[h]), QStringList{token}, dims);
        query_->setTitle(tr("new query row"));
        weights_->setMatrix(rowMatrix(s.attn_weights[h]), QStringList{token}, seen);
        weights_->setTitle(tr("its attn_weights over the cache"));
        weights_->setValueRange(0.0, 1.0);
        attn::Matrix both(2, s.output.cols());
        both.row(0) = s.output;
        both.row(1) = s.full_output;
        output_->setMatrix(both, QStringList{tr("with cache"), tr("full recomputation")},
                           numbered(trace_.d_out, QStringLiteral("y")));
        output_->setTitle(
            tr("output row of “%1”: max difference %2").arg(token).arg(compactText(s.abs_diff)));
    } catch (const attn::AttentionError&) {
        for (HeatmapWidget* map : {keys_, values_, query_, weights_, output_}) map->clear();
    }
    const int seenCount = static_cast<int>(s.token + 1);
    counters_->setText(
        tr("Multiplications this step: %1 with the cache, %2 without (recomputing %3). So far: "
           "%4 with, %5 without (%6% saved). Cache: 2 × %7 × %8 × %9 head_dim × 4 bytes = %10 "
           "bytes per layer.")
            .arg(fixedText(static_cast<double>(s.mults_cached), 0),
                 fixedText(static_cast<double>(s.mults_full), 0),
                 tr("%n token(s)", nullptr, seenCount),
                 fixedText(static_cast<double>(s.total_cached), 0),
                 fixedText(static_cast<double>(s.total_full), 0), fixedText(s.saved_percent, 1),
                 tr("%n head(s)", nullptr, kvHeads_), tr("%n token(s)", nullptr, seenCount))
            .arg(trace_.head_dim)
            .arg(fixedText(static_cast<double>(s.cache_bytes), 0)) +
        (sharedKv()
             ? QStringLiteral(" ") +
                   tr("The %1 query heads share %2 K/V heads: the cache is %3 times smaller than "
                      "with one K/V head per query head.")
                       .arg(trace_.num_heads)
                       .arg(kvHeads_)
                       .arg(trace_.num_heads / kvHeads_)
             : QString()));
}

}  // namespace views
