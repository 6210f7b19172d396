#include "views/explore_heads_grid.h"

#include <QComboBox>
#include <QDialog>
#include <QEvent>
#include <QGridLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "model/ops.h"
#include "views/heatmap_widget.h"

namespace views {

attn::Matrix downsampleMatrix(const attn::Matrix& m, Eigen::Index maxCells) {
    if (m.rows() <= maxCells && m.cols() <= maxCells) return m;
    const Eigen::Index rows = std::min(m.rows(), maxCells);
    const Eigen::Index cols = std::min(m.cols(), maxCells);
    attn::Matrix out = attn::Matrix::Zero(rows, cols);
    for (Eigen::Index r = 0; r < rows; ++r) {
        const Eigen::Index r0 = r * m.rows() / rows, r1 = (r + 1) * m.rows() / rows;
        for (Eigen::Index c = 0; c < cols; ++c) {
            const Eigen::Index c0 = c * m.cols() / cols, c1 = (c + 1) * m.cols() / cols;
            const attn::Matrix block = m.block(r0, c0, r1 - r0, c1 - c0);
            // -inf of masked scores would swamp the mean: average finite cells only.
            float sum = 0.0f;
            Eigen::Index n = 0;
            for (Eigen::Index i = 0; i < block.size(); ++i) {
                const float v = block.data()[i];
                if (std::isfinite(v)) {
                    sum += v;
                    ++n;
                }
            }
            out(r, c) = n > 0 ? sum / static_cast<float>(n) : 0.0f;
        }
    }
    return out;
}

QStringList downsampleLabels(const QStringList& labels, Eigen::Index maxCells) {
    const Eigen::Index n = labels.size();
    if (n <= maxCells) return labels;
    QStringList out;
    for (Eigen::Index i = 0; i < maxCells; ++i) {
        const Eigen::Index a = i * n / maxCells, b = (i + 1) * n / maxCells - 1;
        out << QStringLiteral("%1–%2").arg(a + 1).arg(b + 1);
    }
    return out;
}

ExploreHeadsGrid::ExploreHeadsGrid(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    rangeCaption_ = new QLabel(this);
    range_ = new QComboBox(this);
    rangeCaption_->setBuddy(range_);
    for (int i = 0; i < 3; ++i) range_->addItem(QString());
    range_->setCurrentIndex(static_cast<int>(Range::PerRow));
    note_ = new QLabel(this);
    note_->setWordWrap(true);
    sentenceCaption_ = new QLabel(this);
    sentence_ = new QComboBox(this);
    sentenceCaption_->setBuddy(sentence_);
    sentenceCaption_->hide();
    sentence_->hide();
    top->addWidget(sentenceCaption_);
    top->addWidget(sentence_);
    top->addWidget(rangeCaption_);
    top->addWidget(range_);
    top->addWidget(note_, 1);
    layout->addLayout(top);
    grid_ = new QGridLayout;
    grid_->setSpacing(6);
    layout->addLayout(grid_, 1);
    connect(range_, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
    connect(sentence_, &QComboBox::currentIndexChanged, this,
            [this](int index) { emit sentenceChanged(index); });
    retranslate();
}

void ExploreHeadsGrid::retranslate() {
    sentenceCaption_->setText(tr("&Sentence:"));
    rangeCaption_->setText(tr("Colour &range:"));
    range_->setItemText(static_cast<int>(Range::Shared), tr("Shared by all heads"));
    range_->setItemText(static_cast<int>(Range::PerHead), tr("Each head its own"));
    range_->setItemText(static_cast<int>(Range::PerRow), tr("Each row its own"));
    range_->setToolTip(
        tr("Shared: the heads compare at a glance, but a row holding 1.0 washes out the others. "
           "Each head or each row: its own min → max, so small differences show."));
    rebuild();
}

void ExploreHeadsGrid::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

void ExploreHeadsGrid::setHeads(const std::vector<attn::Matrix>& weights,
                                const QStringList& rowLabels, const QStringList& columnLabels,
                                const std::vector<attn::BoolMatrix>& blocked,
                                const std::vector<attn::BoolMatrix>& dropped) {
    weights_ = weights;
    blocked_ = blocked;
    dropped_ = dropped;
    rowLabels_ = rowLabels;
    columnLabels_ = columnLabels;
    rebuild();
}

HeatmapWidget* ExploreHeadsGrid::heatmap(int head) const {
    return head >= 0 && head < headCount() ? heatmaps_[static_cast<std::size_t>(head)] : nullptr;
}

void ExploreHeadsGrid::setTooltipProvider(std::function<QString(int, int, int)> provider) {
    tooltip_ = std::move(provider);
    rebuild();
}

void ExploreHeadsGrid::setKvHeads(int numKvHeads) {
    if (numKvHeads == kvHeads_) return;
    kvHeads_ = numKvHeads;
    rebuild();
}

void ExploreHeadsGrid::setSentences(const QStringList& names) {
    const QSignalBlocker block(sentence_);
    const int current = sentence_->currentIndex();
    sentence_->clear();
    sentence_->addItems(names);
    sentence_->setCurrentIndex(
        std::clamp(current, 0, std::max(0, static_cast<int>(names.size()) - 1)));
    sentence_->setVisible(names.size() > 1);
    sentenceCaption_->setVisible(names.size() > 1);
}

int ExploreHeadsGrid::sentence() const { return std::max(0, sentence_->currentIndex()); }

void ExploreHeadsGrid::setRange(Range range) { range_->setCurrentIndex(static_cast<int>(range)); }
ExploreHeadsGrid::Range ExploreHeadsGrid::range() const {
    return static_cast<Range>(range_->currentIndex());
}

void ExploreHeadsGrid::decorate(HeatmapWidget* map, std::size_t h) const {
    if (h < dropped_.size() && dropped_[h].rows() == map->rowCount() &&
        dropped_[h].cols() == map->columnCount())
        map->setDropped(dropped_[h]);
    else
        map->setDropped({});
    const int head = static_cast<int>(h);
    if (tooltip_)
        map->setTooltipProvider([provider = tooltip_, head](int row, int column) {
            return provider(head, row, column);
        });
    else
        map->setTooltipProvider({});
}

void ExploreHeadsGrid::rebuild() {
    const std::size_t count = weights_.size();
    // Keep the widgets when the head count stays: a rebuild per keystroke would flicker.
    while (heatmaps_.size() > count) {
        delete heatmaps_.back();
        heatmaps_.pop_back();
    }
    while (heatmaps_.size() < count) {
        auto* map = new HeatmapWidget(this);
        const int head = static_cast<int>(heatmaps_.size());
        map->setMinimumSize(160, 140);
        connect(map, &HeatmapWidget::cellHovered, this, [this](int row, int) {
            highlightRow(row);
            emit rowHovered(row);
        });
        connect(map, &HeatmapWidget::hoverLeft, this, [this] {
            highlightRow(-1);
            emit rowHovered(-1);
        });
        connect(map, &HeatmapWidget::cellClicked, this, [this, head] { enlarge(head); });
        heatmaps_.push_back(map);
    }
    const int columns = count <= 1 ? 1 : count <= 4 ? 2 : count <= 9 ? 3 : 4;
    for (std::size_t h = 0; h < count; ++h)
        grid_->addWidget(heatmaps_[h], static_cast<int>(h) / columns,
                         static_cast<int>(h) % columns);

    simplified_ = false;
    float sharedMax = 0.0f;
    for (const attn::Matrix& w : weights_)
        for (Eigen::Index i = 0; i < w.size(); ++i)
            if (std::isfinite(w.data()[i])) sharedMax = std::max(sharedMax, w.data()[i]);
    for (std::size_t h = 0; h < count; ++h) {
        HeatmapWidget* map = heatmaps_[h];
        const attn::Matrix& w = weights_[h];
        const bool big = w.rows() > kMaxGridCells || w.cols() > kMaxGridCells;
        simplified_ = simplified_ || big;
        try {
            if (big) {
                map->setMatrix(downsampleMatrix(w, kMaxGridCells),
                               downsampleLabels(rowLabels_, kMaxGridCells),
                               downsampleLabels(columnLabels_, kMaxGridCells));
            } else {
                const attn::BoolMatrix mask =
                    h < blocked_.size() ? blocked_[h] : attn::BoolMatrix();
                const bool labelsFit =
                    rowLabels_.size() == w.rows() && columnLabels_.size() == w.cols();
                map->setMatrix(w, labelsFit ? rowLabels_ : QStringList(),
                               labelsFit ? columnLabels_ : QStringList(), mask);
            }
        } catch (const attn::AttentionError&) {
            map->clear();
        }
        // Block averages have no single cell to explain or mark.
        if (big) {
            map->setDropped({});
            map->setTooltipProvider({});
        } else {
            decorate(map, h);
        }
        // Query head h reads K/V head kv_head_of(h): LLaMA's repeat_kv.
        const int heads = static_cast<int>(count);
        if (kvHeads_ > 0 && kvHeads_ < heads && heads % kvHeads_ == 0)
            map->setTitle(
                tr("head %1 · K/V %2")
                    .arg(h + 1)
                    .arg(attn::kv_head_of(static_cast<Eigen::Index>(h), heads, kvHeads_) + 1));
        else
            map->setTitle(tr("head %1").arg(h + 1));
        map->setDecimals(2);
        switch (range()) {
            case Range::Shared:
                map->setValueRange(0.0, sharedMax > 0.0f ? static_cast<double>(sharedMax) : 1.0);
                break;
            case Range::PerHead:
                map->setRangeMode(HeatmapWidget::RangeMode::Matrix);
                break;
            case Range::PerRow:
                map->setRangeMode(HeatmapWidget::RangeMode::Row);
                break;
        }
    }
    note_->setText(simplified_ ? tr("Simplified: long sequences are shown as block averages of "
                                    "at most %1 × %1 cells.")
                                     .arg(kMaxGridCells)
                               : tr("Click a head to enlarge it; point at a row to follow that "
                                    "query in every head."));
}

void ExploreHeadsGrid::highlightRow(int row) {
    for (HeatmapWidget* map : heatmaps_) {
        if (row < 0 || row >= map->rowCount())
            map->clearHighlight();
        else
            map->highlightRow(row);
    }
}

HeatmapWidget* ExploreHeadsGrid::enlarge(int head) {
    if (head < 0 || head >= headCount()) return nullptr;
    auto* dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Head %1").arg(head + 1));
    auto* layout = new QVBoxLayout(dialog);
    auto* map = new HeatmapWidget(dialog);
    const attn::Matrix& w = weights_[static_cast<std::size_t>(head)];
    const std::size_t h = static_cast<std::size_t>(head);
    try {
        if (w.rows() > 4 * kMaxGridCells || w.cols() > 4 * kMaxGridCells) {
            map->setMatrix(downsampleMatrix(w, 4 * kMaxGridCells),
                           downsampleLabels(rowLabels_, 4 * kMaxGridCells),
                           downsampleLabels(columnLabels_, 4 * kMaxGridCells));
        } else {
            const bool labelsFit =
                rowLabels_.size() == w.rows() && columnLabels_.size() == w.cols();
            map->setMatrix(w, labelsFit ? rowLabels_ : QStringList(),
                           labelsFit ? columnLabels_ : QStringList(),
                           h < blocked_.size() ? blocked_[h] : attn::BoolMatrix());
            decorate(map, h);
        }
    } catch (const attn::AttentionError&) {
        map->clear();
    }
    map->setTitle(tr("attn_weights, head %1").arg(head + 1));
    map->setAxisTitles(tr("queries"), tr("keys"));
    layout->addWidget(map);
    dialog->resize(720, 620);
    dialog->show();
    return map;
}

}  // namespace views
