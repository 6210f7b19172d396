#include "explore_parameter_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <limits>

namespace views {

namespace {

// Modules whose forward applies a causal mask (the runner has no switch: it follows the module).
bool isCausal(std::string_view module) {
    return module == "causal-attention" || module == "multi-head-wrapper" ||
           module == "multi-head-attention" || module == "gpt2-attention";
}

QLabel* makeErrorLabel(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setStyleSheet(QStringLiteral("color: #b00020;"));
    label->hide();
    return label;
}

}  // namespace

ExploreParameterPanel::ExploreParameterPanel(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    module_ = new QComboBox(this);
    for (const attn::ModuleInfo& info : attn::module_infos())
        module_->addItem(QString::fromUtf8(info.name.data(), static_cast<qsizetype>(info.name.size())));
    description_ = new QLabel(this);
    description_->setWordWrap(true);
    description_->setStyleSheet(QStringLiteral("color: palette(mid);"));
    dIn_ = new QSpinBox(this);
    dIn_->setRange(1, 512);
    dOut_ = new QSpinBox(this);
    dOut_->setRange(1, 512);
    heads_ = new QSpinBox(this);
    heads_->setRange(1, 64);
    seed_ = new QSpinBox(this);
    seed_->setRange(0, std::numeric_limits<int>::max());
    dropout_ = new QDoubleSpinBox(this);
    dropout_->setRange(0.0, 1.0);
    dropout_->setSingleStep(0.1);
    dropout_->setDecimals(2);
    training_ = new QCheckBox(this);
    causal_ = new QCheckBox(this);
    causal_->setEnabled(false);
    bias_ = new QCheckBox(this);

    auto addRow = [&](const QString& key, QWidget* field) {
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
    };
    addRow(QStringLiteral("module"), module_);
    form->addRow(description_);
    addRow(QStringLiteral("d_in"), dIn_);
    addRow(QStringLiteral("d_out"), dOut_);
    addRow(QStringLiteral("num_heads"), heads_);
    addRow(QStringLiteral("seed"), seed_);
    addRow(QStringLiteral("dropout"), dropout_);
    addRow(QStringLiteral("training"), training_);
    addRow(QStringLiteral("causal"), causal_);
    addRow(QStringLiteral("qkv_bias"), bias_);
    QLabel* general = makeErrorLabel(this);
    errorLabels_.insert(QString(), general);
    form->addRow(general);

    auto* outer = new QVBoxLayout(this);
    outer->addLayout(form);
    outer->addStretch(1);

    connect(module_, &QComboBox::currentIndexChanged, this, [this] {
        updateEnabled();
        emitEdited();
    });
    for (QSpinBox* box : {dOut_, heads_, seed_})
        connect(box, &QSpinBox::valueChanged, this, [this] { emitEdited(); });
    connect(dropout_, &QDoubleSpinBox::valueChanged, this, [this] { emitEdited(); });
    for (QCheckBox* box : {training_, bias_})
        connect(box, &QCheckBox::toggled, this, [this] { emitEdited(); });
    connect(dIn_, &QSpinBox::valueChanged, this, [this](int v) {
        if (!updating_) emit dInEdited(v);
    });
    retranslate();
    updateEnabled();
}

void ExploreParameterPanel::retranslate() {
    captions_[QStringLiteral("module")]->setText(tr("Module"));
    captions_[QStringLiteral("d_in")]->setText(tr("d_in (embedding width)"));
    captions_[QStringLiteral("d_out")]->setText(tr("d_out"));
    captions_[QStringLiteral("num_heads")]->setText(tr("num_heads"));
    captions_[QStringLiteral("seed")]->setText(tr("Seed"));
    captions_[QStringLiteral("dropout")]->setText(tr("Dropout p"));
    captions_[QStringLiteral("training")]->setText(tr("Mode"));
    captions_[QStringLiteral("causal")]->setText(tr("Causal mask"));
    captions_[QStringLiteral("qkv_bias")]->setText(tr("qkv_bias"));
    training_->setText(tr("training (dropout on)"));
    causal_->setText(tr("future tokens hidden"));
    causal_->setToolTip(tr("The causal mask is part of the module: choose causal-attention, a "
                           "multi-head module or gpt2-attention to see it."));
    bias_->setText(tr("bias in W_query, W_key, W_value"));
    module_->setToolTip(tr("The attention module of the tutorials to run."));
    updateEnabled();
}

void ExploreParameterPanel::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

void ExploreParameterPanel::updateEnabled() {
    const attn::ModuleInfo& info = attn::module_info(module_->currentText().toStdString());
    description_->setText(QString::fromUtf8(info.description.data(),
                                            static_cast<qsizetype>(info.description.size())));
    dOut_->setEnabled(info.uses_d_out);
    dOut_->setToolTip(info.uses_d_out ? QString()
                                      : tr("This module's output width is d_model = d_in."));
    heads_->setEnabled(info.uses_num_heads);
    dropout_->setEnabled(info.uses_dropout);
    training_->setEnabled(info.uses_dropout);
    bias_->setEnabled(info.uses_qkv_bias);
    const QSignalBlocker block(causal_);
    causal_->setChecked(isCausal(info.name));
}

void ExploreParameterPanel::setConfig(const attn::ModuleConfig& config, bool training,
                                      Eigen::Index d_in, const attn::ModuleConfig* resolved) {
    updating_ = true;
    const QSignalBlocker b1(module_), b2(dOut_), b3(heads_), b4(seed_), b5(dropout_),
        b6(training_), b7(bias_), b8(dIn_);
    const int index = module_->findText(QString::fromStdString(config.module));
    if (index >= 0) module_->setCurrentIndex(index);
    dIn_->setValue(static_cast<int>(d_in));
    auto shown = [&](Eigen::Index given, Eigen::Index fromResolved, int current) {
        if (given != 0) return static_cast<int>(given);
        return resolved ? static_cast<int>(fromResolved) : current;
    };
    const attn::ModuleInfo& info = attn::module_info(module_->currentText().toStdString());
    // Modules without a d_out of their own output d_model = d_in: show that width.
    dOut_->setValue(info.uses_d_out
                        ? shown(config.d_out, resolved ? resolved->d_out : 0, dOut_->value())
                        : static_cast<int>(d_in));
    heads_->setValue(shown(config.num_heads, resolved ? resolved->num_heads : 0, heads_->value()));
    seed_->setValue(static_cast<int>(std::min<std::uint64_t>(
        config.seed, static_cast<std::uint64_t>(std::numeric_limits<int>::max()))));
    dropout_->setValue(static_cast<double>(config.dropout));
    training_->setChecked(training);
    bias_->setChecked(config.qkv_bias);
    updateEnabled();
    updating_ = false;
}

attn::ModuleConfig ExploreParameterPanel::config() const {
    attn::ModuleConfig c;
    c.module = module_->currentText().toStdString();
    const attn::ModuleInfo& info = attn::module_info(c.module);
    c.seed = static_cast<std::uint64_t>(seed_->value());
    c.d_out = info.uses_d_out ? dOut_->value() : 0;
    c.num_heads = info.uses_num_heads ? heads_->value() : 0;
    c.dropout = info.uses_dropout ? static_cast<float>(dropout_->value()) : 0.0f;
    c.qkv_bias = info.uses_qkv_bias && bias_->isChecked();
    return c;
}

bool ExploreParameterPanel::training() const { return training_->isChecked(); }

Eigen::Index ExploreParameterPanel::dIn() const { return dIn_->value(); }

void ExploreParameterPanel::emitEdited() {
    if (updating_) return;
    emit configEdited(config(), training());
}

void ExploreParameterPanel::setError(const QString& message) {
    error_ = message;
    for (QLabel* label : std::as_const(errorLabels_)) label->hide();
    errorSetting_.clear();
    if (message.isEmpty()) return;
    // A head count that does not divide the width is fixed at num_heads; otherwise the setting
    // the message names first.
    QString key;
    if (message.contains(QStringLiteral("num_heads"))) {
        key = QStringLiteral("num_heads");
    } else {
        qsizetype best = -1;
        const std::pair<const char*, const char*> names[] = {
            {"d_out", "d_out"},     {"d_model", "d_in"},   {"d_in", "d_in"},
            {"dropout", "dropout"}, {"qkv_bias", "qkv_bias"}, {"weight", ""},
            {"seed", "seed"}};
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
