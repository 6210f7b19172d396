#include "views/explore_parameter_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPalette>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "views/flow_layout.h"
#include "views/number_text.h"

namespace views {

namespace {

// The fill values of the seeds: -inf (seed 002), -1e9 (BERT), -1e4 (GPT-2's masked_bias).
constexpr float kFills[] = {attn::kNegInf, -1e9f, -1e4f};

// Through the one formatter, as the hover, the heatmap's masked cells and the step texts write a
// fill ("-1e9", "-1e4"); -inf as the command line's --fill and the example files spell it. The
// box's items carry the value itself, so no text is read back.
QString fillText(float fill) {
    return std::isinf(fill) ? QStringLiteral("-inf") : compactText(static_cast<double>(fill));
}

QLabel* makeErrorLabel(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setStyleSheet(errorStyleSheet(parent->palette()));
    label->hide();
    return label;
}

}  // namespace

QString errorStyleSheet(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() < 128 ? QStringLiteral("color: #ff7b86;")
                                                             : QStringLiteral("color: #b00020;");
}

ExploreParameterPanel::ExploreParameterPanel(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    module_ = new QComboBox(this);
    for (const attn::ModuleInfo& info : attn::module_infos())
        module_->addItem(
            QString::fromUtf8(info.name.data(), static_cast<qsizetype>(info.name.size())),
            static_cast<int>(info.kind));
    description_ = new QLabel(this);
    description_->setWordWrap(true);
    description_->setForegroundRole(QPalette::PlaceholderText);  // muted, readable in dark themes
    dIn_ = new QSpinBox(this);
    dIn_->setRange(1, 512);
    dOut_ = new QSpinBox(this);
    dOut_->setRange(1, 512);
    heads_ = new QSpinBox(this);
    heads_->setRange(1, 64);
    dimK_ = new QSpinBox(this);
    dimK_->setRange(1, 512);
    dimV_ = new QSpinBox(this);
    dimV_->setRange(1, 512);
    seed_ = new QSpinBox(this);
    seed_->setRange(0, std::numeric_limits<int>::max());
    dropout_ = new QDoubleSpinBox(this);
    dropout_->setRange(0.0, 1.0);
    dropout_->setSingleStep(0.1);
    dropout_->setDecimals(2);
    training_ = new QCheckBox(this);
    causal_ = new QCheckBox(this);
    bias_ = new QCheckBox(this);
    scale_ = new QCheckBox(this);
    maskConvention_ = new QComboBox(this);
    maskConvention_->addItem(QString(), static_cast<int>(attn::MaskConvention::FillWhereZero));
    maskConvention_->addItem(QString(), static_cast<int>(attn::MaskConvention::FillWhereOne));
    fill_ = new QComboBox(this);
    for (float fill : kFills) fill_->addItem(fillText(fill), fill);
    // One switch per head, wrapped into lines: twelve heads must not widen the panel.
    headMask_ = new QWidget(this);
    (new FlowLayout(headMask_, 8, 2))->setContentsMargins(0, 0, 0, 0);
    prune_ = new QWidget(this);
    (new FlowLayout(prune_, 8, 2))->setContentsMargins(0, 0, 0, 0);

    createChapterWidgets();

    addRow(form, QStringLiteral("module"), module_);
    form->addRow(description_);
    addRow(form, QStringLiteral("d_in"), dIn_);
    addRow(form, QStringLiteral("d_out"), dOut_);
    addRow(form, QStringLiteral("dim_k"), dimK_);
    addRow(form, QStringLiteral("dim_v"), dimV_);
    addRow(form, QStringLiteral("num_heads"), heads_);
    headsNotice_ = new QLabel(this);
    headsNotice_->setWordWrap(true);
    headsNotice_->hide();
    form->addRow(headsNotice_);
    addRow(form, QStringLiteral("num_kv_heads"), kvHeads_);
    addRow(form, QStringLiteral("seed"), seed_);
    addRow(form, QStringLiteral("dropout"), dropout_);
    addRow(form, QStringLiteral("training"), training_);
    dropoutNote_ = new QLabel(this);
    dropoutNote_->setWordWrap(true);
    dropoutNote_->hide();
    form->addRow(dropoutNote_);
    addRow(form, QStringLiteral("causal"), causal_);
    addRow(form, QStringLiteral("mask_kind"), maskRow_);
    addRow(form, QStringLiteral("lengths"), lengths_);
    lengthsProblem_ = makeErrorLabel(this);
    form->addRow(lengthsProblem_);
    addRow(form, QStringLiteral("mask_convention"), maskConvention_);
    addRow(form, QStringLiteral("fill"), fill_);
    addRow(form, QStringLiteral("prune_heads"), prune_);
    addRow(form, QStringLiteral("head_mask"), headMask_);
    addRow(form, QStringLiteral("scale"), scale_);
    addRow(form, QStringLiteral("qkv_bias"), bias_);
    addRow(form, QStringLiteral("rope"), rope_);
    addRow(form, QStringLiteral("rope_base"), ropeBase_);
    addRow(form, QStringLiteral("position_offset"), positionOffset_);
    QLabel* general = makeErrorLabel(this);
    errorLabels_.insert(QString(), general);
    form->addRow(general);

    auto* outer = new QVBoxLayout(this);
    outer->addLayout(form);
    outer->addStretch(1);

    connect(module_, &QComboBox::currentIndexChanged, this, [this] {
        if (!updating_) showModuleDefaults();
        updateEnabled();
        emitEdited();
    });
    for (QComboBox* box : {maskConvention_, fill_})
        connect(box, &QComboBox::currentIndexChanged, this, [this] { emitEdited(); });
    connect(causal_, &QCheckBox::toggled, this, [this] {
        followCausalSwitch();
        updateEnabled();
        emitEdited();
    });
    connect(heads_, &QSpinBox::valueChanged, this, [this] {
        if (updating_ || !currentModule().uses_head_mask) return;
        pruneHeads_.clear();
        rebuildPruneSwitches(heads_->value());
        for (QCheckBox* box : pruneOn_) {
            const QSignalBlocker block(box);
            box->setChecked(false);
        }
        rebuildHeadSwitches(remainingHeads());
    });
    connectChapterWidgets();  // before the edit is sent: the K/V choices follow num_heads
    for (QSpinBox* box : {dOut_, dimK_, dimV_, heads_, seed_})
        connect(box, &QSpinBox::valueChanged, this, [this] { emitEdited(); });
    connect(dropout_, &QDoubleSpinBox::valueChanged, this, [this] { emitEdited(); });
    for (QCheckBox* box : {training_, bias_, scale_})
        connect(box, &QCheckBox::toggled, this, [this] { emitEdited(); });
    connect(dIn_, &QSpinBox::valueChanged, this, [this](int v) {
        if (!updating_) emit dInEdited(v);
    });
    retranslate();
    updateEnabled();
}

void ExploreParameterPanel::addRow(QFormLayout* form, const QString& key, QWidget* field) {
    auto* caption = new QLabel(this);
    captions_.insert(key, caption);
    auto* box = new QWidget(this);
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    v->addWidget(field);
    QLabel* error = makeErrorLabel(box);
    v->addWidget(error);
    errorLabels_.insert(key, error);
    form->addRow(caption, box);
}

void ExploreParameterPanel::retranslate() {
    captions_[QStringLiteral("module")]->setText(tr("Module"));
    captions_[QStringLiteral("d_in")]->setText(tr("d_in (embedding width)"));
    captions_[QStringLiteral("d_out")]->setText(tr("d_out"));
    captions_[QStringLiteral("dim_k")]->setText(tr("dim_k (queries, keys)"));
    captions_[QStringLiteral("dim_v")]->setText(tr("dim_v (values)"));
    captions_[QStringLiteral("num_heads")]->setText(tr("num_heads"));
    captions_[QStringLiteral("seed")]->setText(tr("Seed"));
    captions_[QStringLiteral("dropout")]->setText(tr("Dropout p"));
    captions_[QStringLiteral("training")]->setText(tr("Mode"));
    captions_[QStringLiteral("causal")]->setText(tr("Causal mask"));
    captions_[QStringLiteral("qkv_bias")]->setText(tr("qkv_bias"));
    captions_[QStringLiteral("mask_convention")]->setText(tr("Mask convention"));
    captions_[QStringLiteral("fill")]->setText(tr("Fill value"));
    captions_[QStringLiteral("scale")]->setText(tr("Scaling"));
    captions_[QStringLiteral("head_mask")]->setText(tr("Heads on (head_mask)"));
    for (int h = 0; h < headOn_.size(); ++h) headOn_[h]->setText(tr("head %1").arg(h + 1));
    captions_[QStringLiteral("prune_heads")]->setText(tr("Pruned heads (prune_heads)"));
    for (int h = 0; h < pruneOn_.size(); ++h) pruneOn_[h]->setText(tr("head %1").arg(h + 1));
    prune_->setToolTip(
        tr("GPT-2's prune_heads: a pruned head is removed with its parameters; "
           "the heads that remain are numbered again from 1."));
    headMask_->setToolTip(
        tr("GPT-2's head_mask: a head switched off has its weights multiplied "
           "by 0, so it adds nothing to the output."));
    training_->setText(tr("training (dropout on)"));
    causal_->setText(tr("future tokens hidden"));
    scale_->setText(tr("divide scores by √head_dim"));
    maskConvention_->setItemText(0, tr("fill where mask == 0 (seed 000)"));
    maskConvention_->setItemText(1, tr("fill where mask == 1 (seed 004)"));
    maskConvention_->setToolTip(
        tr("The mask tensor is the subsequent mask: 1 where a token may look, 0 for the future. "
           "Filling where mask == 1 hides the past instead, and the last token sees nothing."));
    fill_->setToolTip(
        tr("The score put in masked cells before softmax. A fully masked row gives "
           "NaN with -inf and equal weights with -1e9 or -1e4."));
    bias_->setText(tr("bias in W_query, W_key, W_value"));
    module_->setToolTip(tr("The attention module of the tutorials to run."));
    retranslateChapters();
    updateEnabled();
}

void ExploreParameterPanel::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    if (event->type() == QEvent::PaletteChange) {
        for (QLabel* label : std::as_const(errorLabels_))
            label->setStyleSheet(errorStyleSheet(palette()));
        lengthsProblem_->setStyleSheet(errorStyleSheet(palette()));
    }
    QWidget::changeEvent(event);
}

void ExploreParameterPanel::updateEnabled() {
    const attn::ModuleInfo& info = currentModule();
    description_->setText(QString::fromUtf8(info.description.data(),
                                            static_cast<qsizetype>(info.description.size())));
    dOut_->setEnabled(info.uses_d_out);
    dOut_->setToolTip(info.uses_d_out    ? QString()
                      : info.uses_dim_kv ? tr("This module's output width is dim_v.")
                                         : tr("This module's output width is d_model = d_in."));
    dimK_->setEnabled(info.uses_dim_kv);
    dimV_->setEnabled(info.uses_dim_kv);
    heads_->setEnabled(info.uses_num_heads);
    dropout_->setEnabled(info.uses_dropout && dropoutReason_.isEmpty());
    training_->setEnabled(info.uses_dropout && dropoutReason_.isEmpty());
    dropout_->setToolTip(dropoutReason_);
    training_->setToolTip(dropoutReason_);
    bias_->setEnabled(info.uses_qkv_bias);
    causal_->setEnabled(info.uses_causal);
    causal_->setToolTip(info.uses_causal
                            ? QString()
                            : (info.causal_by_default
                                   ? tr("The causal mask is part of this module.")
                                   : tr("This module has no mask: choose self-attention-v2 for "
                                        "an optional causal mask.")));
    scale_->setEnabled(info.uses_scale);
    headMask_->setEnabled(info.uses_head_mask);
    prune_->setEnabled(info.uses_head_mask);
    // Convention and fill matter only while a mask is applied.
    const bool masked = info.uses_causal ? causal_->isChecked() : info.causal_by_default;
    maskConvention_->setEnabled(info.uses_mask_convention && masked);
    fill_->setEnabled(info.uses_fill && masked);
    updateChaptersEnabled(info);
}

void ExploreParameterPanel::showModuleDefaults() {
    const attn::ModuleInfo& info = currentModule();
    const QSignalBlocker b1(causal_), b2(maskConvention_), b3(fill_);
    causal_->setChecked(info.causal_by_default);
    maskConvention_->setCurrentIndex(0);
    setFill(info.default_fill);
    pruneHeads_.clear();
    rebuildPruneSwitches(info.uses_head_mask ? heads_->value() : 0);
    for (QCheckBox* box : pruneOn_) {
        const QSignalBlocker block(box);
        box->setChecked(false);
    }
    rebuildHeadSwitches(info.uses_head_mask ? remainingHeads() : 0);
    showChapterDefaults(info);
}

void ExploreParameterPanel::rebuildPruneSwitches(int count) {
    while (pruneOn_.size() > count) delete pruneOn_.takeLast();
    while (pruneOn_.size() < count) {
        auto* box = new QCheckBox(tr("head %1").arg(pruneOn_.size() + 1), prune_);
        prune_->layout()->addWidget(box);
        connect(box, &QCheckBox::toggled, this, [this] { prunedChanged(); });
        pruneOn_.append(box);
    }
}

void ExploreParameterPanel::prunedChanged() {
    pruneHeads_.clear();
    for (int h = 0; h < pruneOn_.size(); ++h)
        if (pruneOn_[h]->isChecked()) pruneHeads_.push_back(h);
    // Other heads remain: the mask starts again with every remaining head on.
    rebuildHeadSwitches(0);
    rebuildHeadSwitches(remainingHeads());
    emitEdited();
}

int ExploreParameterPanel::remainingHeads() const {
    return std::max(1, heads_->value() - static_cast<int>(pruneHeads_.size()));
}

void ExploreParameterPanel::rebuildHeadSwitches(int count) {
    while (headOn_.size() > count) delete headOn_.takeLast();
    while (headOn_.size() < count) {
        auto* on = new QCheckBox(tr("head %1").arg(headOn_.size() + 1), headMask_);
        on->setChecked(true);
        headMask_->layout()->addWidget(on);
        connect(on, &QCheckBox::toggled, this, [this] { emitEdited(); });
        headOn_.append(on);
    }
}

const attn::ModuleInfo& ExploreParameterPanel::currentModule() const {
    return attn::module_info(static_cast<attn::ModuleKind>(module_->currentData().toInt()));
}

void ExploreParameterPanel::setFill(float fill) {
    int index = -1;
    for (int i = 0; i < fill_->count(); ++i)
        if (fill_->itemData(i).toFloat() == fill) index = i;
    if (index < 0) {  // a value from a file: offer it too
        fill_->addItem(fillText(fill), fill);
        index = fill_->count() - 1;
    }
    fill_->setCurrentIndex(index);
}

void ExploreParameterPanel::setConfig(const attn::ModuleConfig& config, bool training,
                                      Eigen::Index d_in, const attn::ModuleConfig* resolved) {
    updating_ = true;
    const QSignalBlocker b1(module_), b2(dOut_), b3(heads_), b4(seed_), b5(dropout_), b6(training_),
        b7(bias_), b8(dIn_), b9(causal_), b10(scale_), b11(maskConvention_), b12(fill_), b13(dimK_),
        b14(dimV_);
    const int index = config.module ? module_->findData(static_cast<int>(*config.module)) : -1;
    if (index >= 0) module_->setCurrentIndex(index);
    dIn_->setValue(static_cast<int>(d_in));
    auto shown = [&](Eigen::Index given, Eigen::Index fromResolved, int current) {
        if (given != 0) return static_cast<int>(given);
        return resolved ? static_cast<int>(fromResolved) : current;
    };
    const attn::ModuleInfo& info = currentModule();
    // Modules without a d_out of their own output d_model = d_in (seed 003: dim_v): show that.
    dOut_->setValue(info.uses_d_out
                        ? shown(config.d_out, resolved ? resolved->d_out : 0, dOut_->value())
                        : static_cast<int>(resolved ? resolved->d_out : d_in));
    // dim_k and dim_v default to d_in; modules without them show d_in, disabled.
    dimK_->setValue(info.uses_dim_kv
                        ? shown(config.dim_k, resolved ? resolved->dim_k : d_in, dimK_->value())
                        : static_cast<int>(d_in));
    dimV_->setValue(info.uses_dim_kv
                        ? shown(config.dim_v, resolved ? resolved->dim_v : d_in, dimV_->value())
                        : static_cast<int>(d_in));
    heads_->setValue(shown(config.num_heads, resolved ? resolved->num_heads : 0, heads_->value()));
    seed_->setValue(static_cast<int>(std::min<std::uint64_t>(
        config.seed, static_cast<std::uint64_t>(std::numeric_limits<int>::max()))));
    dropout_->setValue(static_cast<double>(config.dropout));
    training_->setChecked(training);
    bias_->setChecked(config.qkv_bias);
    causal_->setChecked(config.causal.value_or(info.causal_by_default));
    scale_->setChecked(config.scale);
    maskConvention_->setCurrentIndex(
        config.mask_convention == attn::MaskConvention::FillWhereOne ? 1 : 0);
    setFill(config.fill_value.value_or(info.default_fill));
    pruneHeads_ = info.uses_head_mask ? config.prune_heads : std::vector<Eigen::Index>{};
    rebuildPruneSwitches(info.uses_head_mask ? heads_->value() : 0);
    for (int h = 0; h < pruneOn_.size(); ++h) {
        const QSignalBlocker block(pruneOn_[h]);
        pruneOn_[h]->setChecked(std::find(pruneHeads_.begin(), pruneHeads_.end(), h) !=
                                pruneHeads_.end());
    }
    rebuildHeadSwitches(info.uses_head_mask ? remainingHeads() : 0);
    for (int h = 0; h < headOn_.size(); ++h) {
        const QSignalBlocker block(headOn_[h]);
        headOn_[h]->setChecked(static_cast<std::size_t>(h) >= config.head_mask.size() ||
                               config.head_mask[static_cast<std::size_t>(h)] != 0.0f);
    }
    showChapters(config, info);
    updateEnabled();
    updating_ = false;
}

attn::ModuleConfig ExploreParameterPanel::config() const {
    attn::ModuleConfig c;
    const attn::ModuleInfo& info = currentModule();
    c.module = info.kind;
    c.seed = static_cast<std::uint64_t>(seed_->value());
    c.d_out = info.uses_d_out ? dOut_->value() : 0;
    c.dim_k = info.uses_dim_kv ? dimK_->value() : 0;
    c.dim_v = info.uses_dim_kv ? dimV_->value() : 0;
    c.num_heads = info.uses_num_heads ? heads_->value() : 0;
    c.dropout = info.uses_dropout ? static_cast<float>(dropout_->value()) : 0.0f;
    c.qkv_bias = info.uses_qkv_bias && bias_->isChecked();
    // The module's own choices stay unset, so a session saved from the panel reads back equal.
    if (info.uses_causal && causal_->isChecked() != info.causal_by_default)
        c.causal = causal_->isChecked();
    c.scale = !info.uses_scale || scale_->isChecked();
    if (info.uses_mask_convention && maskConvention_->currentIndex() == 1)
        c.mask_convention = attn::MaskConvention::FillWhereOne;
    const float fill = fill_->currentData().toFloat();
    if (info.uses_fill && fill != info.default_fill) c.fill_value = fill;
    if (info.uses_head_mask) {
        c.prune_heads = pruneHeads_;
        // All heads on is the module's own choice: no head_mask at all.
        bool allOn = true;
        for (QCheckBox* on : headOn_) allOn = allOn && on->isChecked();
        if (!allOn)
            for (QCheckBox* on : headOn_) c.head_mask.push_back(on->isChecked() ? 1.0f : 0.0f);
    }
    chaptersInto(c, info);
    return c;
}

bool ExploreParameterPanel::training() const { return training_->isChecked(); }

Eigen::Index ExploreParameterPanel::dIn() const { return dIn_->value(); }

void ExploreParameterPanel::emitEdited() {
    if (updating_) return;
    emit configEdited(config(), training());
}

void ExploreParameterPanel::setHeadsNotice(const QString& message) {
    headsNotice_->setText(message);
    headsNotice_->setVisible(!message.isEmpty());
}

QString ExploreParameterPanel::headsNotice() const { return headsNotice_->text(); }

void ExploreParameterPanel::setDropoutUnavailable(const QString& reason) {
    dropoutReason_ = reason;
    dropoutNote_->setText(reason);
    dropoutNote_->setVisible(!reason.isEmpty());
    updateEnabled();
}

void ExploreParameterPanel::setError(const QString& message) {
    error_ = message;
    for (QLabel* label : std::as_const(errorLabels_)) label->hide();
    errorSetting_.clear();
    if (message.isEmpty()) return;
    // The chapters' settings first (their K/V heads and RoPE messages name num_heads too); then
    // a head count that does not divide the width is fixed at num_heads; otherwise the setting
    // the message names first.
    QString key = chapterSettingOf(message);
    if (key.isEmpty() && message.contains(QStringLiteral("num_heads"))) {
        key = QStringLiteral("num_heads");
    } else if (key.isEmpty()) {
        qsizetype best = -1;
        const std::pair<const char*, const char*> names[] = {{"d_out", "d_out"},
                                                             {"d_model", "d_in"},
                                                             {"d_in", "d_in"},
                                                             {"dropout", "dropout"},
                                                             {"qkv_bias", "qkv_bias"},
                                                             {"weight", ""},
                                                             {"seed", "seed"},
                                                             {"causal", "causal"},
                                                             {"mask convention", "mask_convention"},
                                                             {"fill value", "fill"}};
        for (const auto& [word, setting] : names) {
            const qsizetype at = message.indexOf(QLatin1String(word));
            if (at >= 0 && (best < 0 || at < best)) {
                best = at;
                key = QLatin1String(setting);
            }
        }
    }
    errorSetting_ = key;
    QLabel* label = errorLabels_.value(key, errorLabels_.value(QString()));
    label->setText(message);
    label->show();
}

}  // namespace views
