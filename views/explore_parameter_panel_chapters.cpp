// The parameter panel's switches of the chapters past the tutorial, which only
// multi-head-attention takes (attn::ModuleInfo::uses_kv_heads_masks_rope): K/V heads shared by
// the query heads, the mask kind with its window width, one length per sentence of a padded
// batch, and RoPE with its base and position offset. A file of its own to keep both short.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSpinBox>
#include <initializer_list>

#include "views/explore_parameter_panel.h"

namespace views {

namespace {

constexpr float kDefaultRopeBase = 10000.0f;  // attn::ModuleConfig's, LLaMA's
constexpr int kMaxWindow = 4096;              // wider than any sequence explore mode takes

QString lengthsText(const std::vector<Eigen::Index>& lengths) {
    QStringList parts;
    for (Eigen::Index n : lengths) parts << QString::number(n);
    return parts.join(QStringLiteral(", "));
}

}  // namespace

void ExploreParameterPanel::createChapterWidgets() {
    kvHeads_ = new QComboBox(this);
    maskRow_ = new QWidget(this);
    auto* maskLayout = new QHBoxLayout(maskRow_);
    maskLayout->setContentsMargins(0, 0, 0, 0);
    maskKind_ = new QComboBox(maskRow_);
    for (MaskKind kind : {MaskKind::Causal, MaskKind::Bidirectional, MaskKind::Window})
        maskKind_->addItem(QString(), static_cast<int>(kind));
    window_ = new QSpinBox(maskRow_);
    window_->setRange(1, kMaxWindow);
    window_->setValue(2);
    maskLayout->addWidget(maskKind_, 1);
    maskLayout->addWidget(window_);
    lengths_ = new QLineEdit(this);
    lengths_->setClearButtonEnabled(true);
    rope_ = new QCheckBox(this);
    ropeBase_ = new QDoubleSpinBox(this);
    ropeBase_->setDecimals(0);
    ropeBase_->setRange(2.0, 1e8);
    ropeBase_->setValue(static_cast<double>(kDefaultRopeBase));
    positionOffset_ = new QSpinBox(this);
    positionOffset_->setRange(0, 1 << 24);  // the engine's limit: float32 integer positions
}

void ExploreParameterPanel::connectChapterWidgets() {
    // The choices are the divisors of num_heads: rebuilt before the edit is sent.
    connect(heads_, &QSpinBox::valueChanged, this, [this](int heads) {
        if (updating_) return;
        // "One per query head" stays that; a shared count stays while it still divides.
        const int g = kvHeads_->currentIndex() > 0 ? kvHeads_->currentData().toInt() : 0;
        rebuildKvHeads(heads, g > 0 && heads % g == 0 ? g : 0);
    });
    for (QSpinBox* box : {heads_, dOut_})
        connect(box, &QSpinBox::valueChanged, this, [this] { updateEnabled(); });
    connect(kvHeads_, &QComboBox::currentIndexChanged, this, [this] { emitEdited(); });
    connect(maskKind_, &QComboBox::currentIndexChanged, this, [this] {
        {
            const QSignalBlocker block(causal_);
            causal_->setChecked(maskKind_->currentData().toInt() !=
                                static_cast<int>(MaskKind::Bidirectional));
        }
        updateEnabled();
        emitEdited();
    });
    connect(window_, &QSpinBox::valueChanged, this, [this] { emitEdited(); });
    connect(lengths_, &QLineEdit::editingFinished, this, [this] { lengthsEdited(); });
    connect(rope_, &QCheckBox::toggled, this, [this] {
        updateEnabled();
        emitEdited();
    });
    connect(ropeBase_, &QDoubleSpinBox::valueChanged, this, [this] { emitEdited(); });
    connect(positionOffset_, &QSpinBox::valueChanged, this, [this] { emitEdited(); });
}

void ExploreParameterPanel::retranslateChapters() {
    captions_[QStringLiteral("num_kv_heads")]->setText(tr("K/V heads (GQA)"));
    captions_[QStringLiteral("mask_kind")]->setText(tr("Mask kind"));
    captions_[QStringLiteral("lengths")]->setText(tr("Sentence lengths"));
    captions_[QStringLiteral("rope")]->setText(tr("RoPE"));
    captions_[QStringLiteral("rope_base")]->setText(tr("RoPE base"));
    captions_[QStringLiteral("position_offset")]->setText(tr("Position offset"));
    maskKind_->setItemText(static_cast<int>(MaskKind::Causal), tr("causal"));
    maskKind_->setItemText(static_cast<int>(MaskKind::Bidirectional), tr("bidirectional"));
    maskKind_->setItemText(static_cast<int>(MaskKind::Window), tr("sliding window"));
    window_->setPrefix(tr("width "));
    lengths_->setPlaceholderText(tr("e.g. 6, 4: one per sentence"));
    rope_->setText(tr("rotate queries and keys"));
    rebuildKvHeads(heads_->value(), kvHeads_->currentData().toInt());
}

void ExploreParameterPanel::updateChaptersEnabled(const attn::ModuleInfo& info) {
    const bool uses = info.uses_kv_heads_masks_rope;
    const QString notHere =
        uses ? QString()
             : tr("Only multi-head-attention shares K/V heads and has window and padding masks "
                  "and RoPE (the chapters after the tutorial).");
    for (QWidget* w : std::initializer_list<QWidget*>{kvHeads_, maskKind_, lengths_, rope_}) {
        w->setEnabled(uses);
        w->setToolTip(notHere);
    }
    if (uses) {
        kvHeads_->setToolTip(
            tr("Query heads share K/V heads in groups (grouped-query attention): fewer K/V "
               "heads, a smaller KV cache. 1 is multi-query attention."));
        maskKind_->setToolTip(
            tr("causal: each token sees itself and the past. bidirectional: every token sees "
               "every token. sliding window: only the last “width” tokens."));
        lengths_->setToolTip(
            tr("A padded batch: one copy of the tokens per sentence, keys past a sentence's "
               "length are padding and get weight 0. Empty: one sentence, no padding."));
    }
    const bool window = maskKind_->currentData().toInt() == static_cast<int>(MaskKind::Window);
    window_->setEnabled(uses && window);
    window_->setToolTip(uses && !window ? tr("Choose the sliding window mask to set its width.")
                                        : notHere);
    // RoPE rotates coordinate pairs: an odd head_dim has no rotation. A switch already on stays
    // enabled, so it can be turned off; the engine's message says what is wrong.
    const int heads = std::max(1, heads_->value());
    const int headDim = dOut_->value() / heads;
    const bool evenHeads = dOut_->value() % heads == 0 && headDim % 2 == 0;
    rope_->setEnabled(uses && (evenHeads || rope_->isChecked()));
    if (uses && !evenHeads)
        rope_->setToolTip(tr("RoPE rotates pairs of coordinates: head_dim = d_out / num_heads = "
                             "%1 / %2 must be even.")
                              .arg(dOut_->value())
                              .arg(heads));
    else if (uses)
        rope_->setToolTip(
            tr("Rotary position embeddings: each query and key is rotated by its position, so "
               "the scores depend on how far apart two tokens are, not where they are."));
    const bool ropeOn = uses && rope_->isChecked();
    ropeBase_->setEnabled(ropeOn);
    positionOffset_->setEnabled(ropeOn);
    const QString ropeOff = uses ? tr("Turn RoPE on to set this.") : notHere;
    ropeBase_->setToolTip(ropeOn ? tr("θᵢ = base^(−2i/head_dim); LLaMA uses 10000.") : ropeOff);
    positionOffset_->setToolTip(
        ropeOn ? tr("The first token's position: moving every position by the same amount "
                    "changes the queries and keys but not the weights.")
               : ropeOff);
}

void ExploreParameterPanel::followCausalSwitch() {
    const QSignalBlocker block(maskKind_);
    const int kind = maskKind_->currentData().toInt();
    if (!causal_->isChecked())
        maskKind_->setCurrentIndex(static_cast<int>(MaskKind::Bidirectional));
    else if (kind == static_cast<int>(MaskKind::Bidirectional))
        maskKind_->setCurrentIndex(static_cast<int>(MaskKind::Causal));
}

void ExploreParameterPanel::rebuildKvHeads(int numHeads, int chosen) {
    const QSignalBlocker block(kvHeads_);
    kvHeads_->clear();
    numHeads = std::max(numHeads, 1);
    for (int g = numHeads; g >= 1; --g) {
        if (numHeads % g != 0) continue;
        const QString text = g == numHeads ? tr("%1: one per query head").arg(g)
                             : g == 1      ? tr("1: shared by all (MQA)")
                                           : tr("%1: %2 query heads each").arg(g).arg(numHeads / g);
        kvHeads_->addItem(text, g);
    }
    // A count from a file that does not divide num_heads is shown too, for the engine's message.
    int index = chosen > 0 ? kvHeads_->findData(chosen) : 0;
    if (index < 0) {
        kvHeads_->addItem(QString::number(chosen), chosen);
        index = kvHeads_->count() - 1;
    }
    kvHeads_->setCurrentIndex(std::max(index, 0));
}

void ExploreParameterPanel::showChapterDefaults(const attn::ModuleInfo& info) {
    const QSignalBlocker b1(maskKind_), b2(lengths_), b3(rope_), b4(ropeBase_), b5(positionOffset_);
    rebuildKvHeads(heads_->value(), 0);
    maskKind_->setCurrentIndex(
        static_cast<int>(info.causal_by_default ? MaskKind::Causal : MaskKind::Bidirectional));
    lengths_->clear();
    validLengths_.clear();
    lengthsProblem_->hide();
    rope_->setChecked(false);
    ropeBase_->setValue(static_cast<double>(kDefaultRopeBase));
    positionOffset_->setValue(0);
}

void ExploreParameterPanel::showChapters(const attn::ModuleConfig& config,
                                         const attn::ModuleInfo& info) {
    const QSignalBlocker b1(maskKind_), b2(window_), b3(lengths_), b4(rope_), b5(ropeBase_),
        b6(positionOffset_);
    rebuildKvHeads(heads_->value(), static_cast<int>(config.num_kv_heads));
    const bool causal = config.causal.value_or(info.causal_by_default);
    MaskKind kind = causal ? MaskKind::Causal : MaskKind::Bidirectional;
    if (config.window > 0) {
        kind = MaskKind::Window;
        window_->setValue(static_cast<int>(config.window));
    }
    maskKind_->setCurrentIndex(static_cast<int>(kind));
    validLengths_ = config.lengths;
    lengths_->setText(lengthsText(config.lengths));
    lengthsProblem_->hide();
    rope_->setChecked(config.rope);
    ropeBase_->setValue(static_cast<double>(config.rope_base));
    positionOffset_->setValue(static_cast<int>(config.position_offset));
}

void ExploreParameterPanel::chaptersInto(attn::ModuleConfig& c,
                                         const attn::ModuleInfo& info) const {
    if (!info.uses_kv_heads_masks_rope) return;
    // num_heads K/V heads is the seed's module: left 0, so a saved session reads back equal.
    const int g = kvHeads_->currentData().toInt();
    if (g > 0 && g != heads_->value()) c.num_kv_heads = g;
    if (maskKind_->currentData().toInt() == static_cast<int>(MaskKind::Window))
        c.window = window_->value();
    c.lengths = validLengths_;
    if (!c.lengths.empty()) c.batch = static_cast<Eigen::Index>(c.lengths.size());
    c.rope = rope_->isChecked();
    if (c.rope) {
        c.rope_base = static_cast<float>(ropeBase_->value());
        c.position_offset = positionOffset_->value();
    }
}

void ExploreParameterPanel::lengthsEdited() {
    const QString text = lengths_->text().trimmed();
    std::vector<Eigen::Index> lengths;
    QString problem;
    for (const QString& part :
         text.split(QRegularExpression(QStringLiteral("[,;\\s]+")), Qt::SkipEmptyParts)) {
        bool ok = false;
        const qlonglong n = part.toLongLong(&ok);
        if (!ok) {
            problem = tr("“%1” is not a whole number: give one length per sentence, e.g. 6, 4.")
                          .arg(part);
            break;
        }
        lengths.push_back(static_cast<Eigen::Index>(n));
    }
    if (problem.isEmpty() && static_cast<Eigen::Index>(lengths.size()) > attn::kMaxBatch)
        problem =
            tr("%1 lengths: give at most %2 sentences.").arg(lengths.size()).arg(attn::kMaxBatch);
    lengthsProblem_->setText(problem);
    lengthsProblem_->setVisible(!problem.isEmpty());
    // Not a list of numbers: nothing is sent, the last valid lengths stay in effect.
    if (!problem.isEmpty() || lengths == validLengths_) return;
    validLengths_ = std::move(lengths);
    emitEdited();
}

QString ExploreParameterPanel::lengthsProblem() const {
    return lengthsProblem_->isHidden() ? QString() : lengthsProblem_->text();
}

QString ExploreParameterPanel::chapterSettingOf(const QString& message) {
    // The engine's messages start with the setting they are about (model/runner.cpp); the
    // K/V heads message also names num_heads, so it is recognised first.
    if (message.contains(QLatin1String("num_kv_heads"))) return QStringLiteral("num_kv_heads");
    const std::pair<const char*, const char*> prefixes[] = {
        {"rope_base", "rope_base"}, {"position_offset", "position_offset"}, {"rope", "rope"},
        {"window", "mask_kind"},    {"a window of", "mask_kind"},           {"length", "lengths"}};
    for (const auto& [prefix, setting] : prefixes)
        if (message.startsWith(QLatin1String(prefix))) return QLatin1String(setting);
    if (message.contains(QLatin1String(" lengths but "))) return QStringLiteral("lengths");
    return {};
}

}  // namespace views
