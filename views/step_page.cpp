#include "views/step_page.h"

#include <QApplication>
#include <QButtonGroup>
#include <QCheckBox>
#include <QClipboard>
#include <QEvent>
#include <QFrame>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QSlider>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "model/number_format.h"
#include "views/flow_layout.h"
#include "views/heatmap_widget.h"
#include "views/matrix_panel.h"
#include "views/number_text.h"
#include "views/step_texts.h"
#include "views/vector_view.h"

namespace views {

namespace {

bool isUnitRange(attn::MatrixKind kind) {
    return kind == attn::MatrixKind::Weights || kind == attn::MatrixKind::Mask;
}

// Through the one formatter (C locale), so a German desktop shows the digits the cells show.
QString formatFact(const std::string& id, double value) {
    const bool whole = id != "max_abs_diff" && std::abs(value) < 1e15 && value == std::floor(value);
    return whole ? shortestText(value) : compactText(value);  // 4 significant digits
}

}  // namespace

StepPage::StepPage(attn::Step step, QWidget* parent) : QWidget(parent), step_(std::move(step)) {
    for (const attn::StepMatrix& m : step_.matrices) {
        if (std::find(ids_.begin(), ids_.end(), m.id) == ids_.end()) ids_.push_back(m.id);
        if (m.derivation == attn::Derivation::Dropout) hasDropout_ = true;
    }

    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(0);
    scroll_ = new QScrollArea(this);
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    auto* content = new QWidget(scroll_);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(20, 14, 20, 14);
    layout->setSpacing(12);

    title_ = new QLabel(content);
    title_->setWordWrap(true);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(title_);

    explanation_ = new QLabel(content);
    explanation_->setWordWrap(true);
    explanation_->setTextFormat(Qt::RichText);
    explanation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    explanation_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    layout->addWidget(explanation_);

    // The step's numbers (cache savings, heads, ...) where they are read with the explanation.
    facts_ = new QLabel(content);
    facts_->setWordWrap(true);
    facts_->setTextFormat(Qt::RichText);
    facts_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(facts_);

    layout->addLayout(buildControls(content));

    auto* matrices = new QWidget(content);
    matrixLayout_ = new FlowLayout(matrices, 28, 20);
    layout->addWidget(matrices);
    buildMatrices();

    if (step_.id == "inputs") buildVectorView(matrices);

    buildSnippet(content);
    layout->addWidget(snippetBox_);
    layout->addStretch(1);

    scroll_->setWidget(content);
    outer->addWidget(scroll_, 1);

    // The bar stays under the heatmaps on screen however far the page scrolls.
    cellBar_ = new QLabel(this);
    cellBar_->setWordWrap(true);
    cellBar_->setTextFormat(Qt::RichText);
    cellBar_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    cellBar_->setFrameShape(QFrame::StyledPanel);
    cellBar_->setAutoFillBackground(true);
    cellBar_->setBackgroundRole(QPalette::AlternateBase);
    cellBar_->setMargin(8);
    cellBar_->setMinimumHeight(56);
    outer->addWidget(cellBar_);

    applyFonts();
    retranslate();  // also fills the matrices
}

QHBoxLayout* StepPage::buildControls(QWidget* content) {
    auto* controls = new QHBoxLayout;
    controls->setSpacing(12);
    frameBar_ = new QWidget(content);
    auto* frameLayout = new QHBoxLayout(frameBar_);
    frameLayout->setContentsMargins(0, 0, 0, 0);
    previousToken_ = new QPushButton(frameBar_);
    nextToken_ = new QPushButton(frameBar_);
    frameSlider_ = new QSlider(Qt::Horizontal, frameBar_);
    // Keys belong to step navigation (clickers send arrows and PageUp/PageDown); the slider is
    // for the mouse and the two buttons for the keyboard.
    frameSlider_->setFocusPolicy(Qt::NoFocus);
    frameSlider_->setTickPosition(QSlider::TicksBelow);
    frameSlider_->setMinimumWidth(160);
    frameLabel_ = new QLabel(frameBar_);
    frameLayout->addWidget(previousToken_);
    frameLayout->addWidget(frameSlider_);
    frameLayout->addWidget(nextToken_);
    frameLayout->addWidget(frameLabel_);
    controls->addWidget(frameBar_);
    frameBar_->setVisible(step_.frame_count > 0);
    if (step_.frame_count > 0) {
        frameSlider_->setRange(0, step_.frame_count - 1);
        frameSlider_->setPageStep(1);
        frame_ = step_.frame_count - 1;  // open on the full sequence: every matrix at its largest
        frameSlider_->setValue(frame_);
    }
    connect(frameSlider_, &QSlider::valueChanged, this, &StepPage::setFrame);
    connect(previousToken_, &QPushButton::clicked, this, [this] { setFrame(frame_ - 1); });
    connect(nextToken_, &QPushButton::clicked, this, [this] { setFrame(frame_ + 1); });

    modeBar_ = new QWidget(content);
    auto* modeLayout = new QHBoxLayout(modeBar_);
    modeLayout->setContentsMargins(0, 0, 0, 0);
    modeLabel_ = new QLabel(modeBar_);
    training_ = new QRadioButton(modeBar_);
    inferenceButton_ = new QRadioButton(modeBar_);
    auto* modeGroup = new QButtonGroup(modeBar_);
    modeGroup->addButton(training_);
    modeGroup->addButton(inferenceButton_);
    training_->setChecked(true);
    modeLayout->addWidget(modeLabel_);
    modeLayout->addWidget(training_);
    modeLayout->addWidget(inferenceButton_);
    controls->addWidget(modeBar_);
    modeBar_->setVisible(hasDropout_);
    connect(inferenceButton_, &QRadioButton::toggled, this, &StepPage::setInference);

    controls->addStretch(1);
    tablesBox_ = new QCheckBox(content);
    controls->addWidget(tablesBox_);
    connect(tablesBox_, &QCheckBox::toggled, this, &StepPage::setShowTables);
    return controls;
}

// The inputs step also draws its embeddings as arrows, captioned like the heatmaps beside it.
void StepPage::buildVectorView(QWidget* matrices) {
    const attn::StepMatrix* inputs = step_.find("inputs");
    if (!inputs) return;
    auto* box = new QWidget(matrices);
    auto* boxLayout = new QVBoxLayout(box);
    boxLayout->setContentsMargins(0, 0, 0, 0);
    boxLayout->setSpacing(4);
    vectorCaption_ = new QLabel(box);
    vectorCaption_->setAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    vectorView_ = new VectorView(box);
    int highlighted = -1;
    for (const attn::Highlight& h : step_.highlights)
        if (h.matrix_id == "inputs" && h.col < 0) highlighted = static_cast<int>(h.row);
    vectorView_->setVectors(inputs->values, toQStringList(inputs->row_labels), highlighted);
    boxLayout->addWidget(vectorCaption_);
    boxLayout->addWidget(vectorView_, 1);
    matrixLayout_->addWidget(box);
}

void StepPage::buildSnippet(QWidget* content) {
    snippetBox_ = new QGroupBox(content);
    auto* snippetLayout = new QVBoxLayout(snippetBox_);
    snippetEdit_ = new QPlainTextEdit(snippetBox_);
    snippetEdit_->setReadOnly(true);
    snippetEdit_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    snippetEdit_->setLineWrapMode(QPlainTextEdit::NoWrap);
    snippetEdit_->setPlainText(QString::fromStdString(step_.snippet));
    snippetLayout->addWidget(snippetEdit_);
    copyButton_ = new QPushButton(snippetBox_);
    connect(copyButton_, &QPushButton::clicked, this, [this] {
        QApplication::clipboard()->setText(snippet());
        copyButton_->setText(tr("Copied"));
        QTimer::singleShot(1500, copyButton_, [this] { copyButton_->setText(tr("&Copy code")); });
    });
    snippetLayout->addWidget(copyButton_, 0, Qt::AlignLeft);
    snippetBox_->setVisible(!step_.snippet.empty());
}

StepPage::~StepPage() = default;

QString StepPage::title() const { return stepText(step_).title; }

QStringList StepPage::matrixIds() const { return toQStringList(ids_); }

QList<HeatmapWidget*> StepPage::heatmaps() const {
    QList<HeatmapWidget*> list;
    for (const MatrixPanel* p : panels_) list.append(p->heatmap);
    return list;
}

int StepPage::panelIndex(const std::string& matrixId) const {
    for (std::size_t i = 0; i < ids_.size(); ++i)
        if (ids_[i] == matrixId) return static_cast<int>(i);
    return -1;
}

MatrixPanel* StepPage::panel(const QString& matrixId) const {
    const int i = panelIndex(matrixId.toStdString());
    return i < 0 ? nullptr : panels_[static_cast<std::size_t>(i)];
}

HeatmapWidget* StepPage::heatmap(const QString& matrixId) const {
    MatrixPanel* p = panel(matrixId);
    return p ? p->heatmap : nullptr;
}

QTableWidget* StepPage::table(const QString& matrixId) const {
    MatrixPanel* p = panel(matrixId);
    return p ? p->table : nullptr;
}

const attn::StepMatrix* StepPage::shownMatrix(const QString& matrixId) const {
    const std::string id = matrixId.toStdString();
    for (const attn::StepMatrix& m : step_.matrices)
        if (m.id == id && (m.frame < 0 || m.frame == frame_)) return &m;
    return nullptr;
}

attn::Matrix StepPage::shownValues(const QString& matrixId) const {
    const attn::StepMatrix* m = shownMatrix(matrixId);
    if (!m) return {};
    return views::shownValues(step_, *m, inference_);
}

QString StepPage::caption(const QString& matrixId) const {
    const attn::StepMatrix* m = shownMatrix(matrixId);
    if (!m) return {};
    QString text = matrixCaption(step_, *m);
    if (inference_ && m->derivation == attn::Derivation::Dropout)
        text = tr("%1 (inference: unchanged)").arg(text);
    return text;
}

QString StepPage::snippet() const {
    return QString::fromStdString(
        inference_ && !step_.inference_snippet.empty() ? step_.inference_snippet : step_.snippet);
}

void StepPage::buildMatrices() {
    for (std::size_t i = 0; i < ids_.size(); ++i) {
        auto* p = new MatrixPanel(matrixLayout_->parentWidget());
        const int index = static_cast<int>(i);
        const QString id = QString::fromStdString(ids_[i]);
        connect(p->heatmap, &HeatmapWidget::cellHovered, this,
                [this, index](int r, int c) { onCellHovered(index, r, c); });
        connect(p->heatmap, &HeatmapWidget::cellClicked, this,
                [this, index](int r, int c) { onCellClicked(index, r, c); });
        connect(p->heatmap, &HeatmapWidget::hoverLeft, this, &StepPage::onHoverLeft);
        p->heatmap->setTooltipProvider(
            [this, id](int r, int c) { return cellTooltips_ ? cellFormula(id, r, c) : QString(); });
        panels_.push_back(p);
        matrixLayout_->addWidget(p);
    }
}

void StepPage::updateMatrices() {
    for (std::size_t i = 0; i < ids_.size(); ++i) {
        MatrixPanel* p = panels_[i];
        const QString id = QString::fromStdString(ids_[i]);
        const attn::StepMatrix* m = shownMatrix(id);
        p->setVisible(m != nullptr && panelInPart(i));
        if (!m) continue;
        const attn::Matrix values = shownValues(id);
        // A filled score shows its fill ("−∞"); a masked weight is a plain 0 after softmax.
        std::optional<double> fill;
        if (m->blocked.size() > 0 && !isUnitRange(m->kind))
            fill = static_cast<double>(m->fill_value);
        p->heatmap->setMatrix(values, toQStringList(m->row_labels), toQStringList(m->col_labels),
                              m->blocked, fill);
        p->heatmap->setDropped(inference_ ? attn::BoolMatrix() : m->dropped);
        // A 0/1 mask reads as "1" and "0", not "1.0000".
        p->heatmap->setDecimals(m->kind == attn::MatrixKind::Mask ? 0 : 4);
        if (isUnitRange(m->kind)) {
            p->heatmap->setColorMap(QStringLiteral("viridis"));
            // Dropout's kept weights are scaled by 1/(1 − p): the range shows that ×2.
            double upper = 1.0;
            if (m->derivation == attn::Derivation::Dropout && m->dropout_p < 1.0f && !inference_)
                upper = 1.0 / (1.0 - static_cast<double>(m->dropout_p));
            p->heatmap->setValueRange(0.0, upper);
            // Six weights near 1/6 look alike on 0–1: weights span their own min..max (the colour
            // bar says so; the heatmap's menu switches back to 0–1). A 0/1 mask keeps 0–1.
            if (m->kind == attn::MatrixKind::Weights) p->heatmap->setAutoRange();
        } else {
            p->heatmap->setColorMap(QStringLiteral("diverging"));
            p->heatmap->setAutoRange();
        }
        // An encoder's weights without [CLS]/[SEP] are no longer the model's own rows: the
        // colour bar says so beside the range.
        const bool specialsHidden =
            m->derivation == attn::Derivation::Renormalize && step_.arg("specials_hidden") == "1";
        p->heatmap->setColorScaleLabel(specialsHidden ? tr("[CLS]/[SEP] hidden, rows renormalised")
                                                      : QString());
        p->caption->setText(
            QStringLiteral("<b>%1</b> &nbsp;<span style='color:%2'>%3 × %4</span>")
                .arg(caption(id).toHtmlEscaped(), palette().color(QPalette::PlaceholderText).name())
                .arg(values.rows())
                .arg(values.cols()));
        p->fillTable(*m, values);
        p->table->setVisible(showTables_);
        p->updateGeometry();
    }
    matrixLayout_->invalidate();
    pinned_.reset();
    updateFrameControls();
    updateFacts();
    resetHighlights();
}

void StepPage::updateFrameControls() {
    if (step_.frame_count <= 0) return;
    const QSignalBlocker block(frameSlider_);
    frameSlider_->setValue(frame_);
    previousToken_->setEnabled(frame_ > 0);
    nextToken_->setEnabled(frame_ + 1 < step_.frame_count);
    const std::size_t f = static_cast<std::size_t>(frame_);
    const QString token = f < step_.frame_labels.size()
                              ? QString::fromStdString(step_.frame_labels[f])
                              : QString::number(frame_ + 1);
    const QString chapterFrame = frameText(step_, frame_);  // a chapter's masks or tiles
    frameLabel_->setText(
        chapterFrame.isEmpty()
            ? tr("Token %1 of %2: “%3”").arg(frame_ + 1).arg(step_.frame_count).arg(token)
            : chapterFrame);
}

void StepPage::updateFacts() {
    QStringList parts;
    QStringList plain;
    auto add = [&](const QString& label, const QString& value, bool strong) {
        const QString l = label.toHtmlEscaped();
        const QString v = value.toHtmlEscaped();
        parts.append(strong ? QStringLiteral("<b>%1: %2</b>").arg(l, v)
                            : QStringLiteral("%1: <b>%2</b>").arg(l, v));
        plain.append(label + QStringLiteral(": ") + value);
    };
    // The record states what the cache saved in two facts, shown as one item.
    double saved = -1.0;
    double savedPercent = 0.0;
    for (const attn::StepFact& f : step_.facts) {
        if (f.frame >= 0 && f.frame != frame_) continue;
        if (f.training_only && inference_) continue;
        if (f.id == "mults_saved") {
            saved = f.value;
        } else if (f.id == "mults_saved_percent") {
            savedPercent = f.value;
        } else {
            add(factLabel(f.id), formatFact(f.id, f.value), false);
        }
    }
    if (saved >= 0.0) {
        add(tr("Multiplications saved"),
            tr("%1 (%2 %)").arg(formatFact({}, saved)).arg(fixedText(savedPercent, 0)), true);
    }
    facts_->setText(parts.join(QStringLiteral(" &nbsp;·&nbsp; ")));
    facts_->setProperty("plainText", plain.join(QStringLiteral(" · ")));
    facts_->setVisible(!parts.isEmpty());
    if (snippetEdit_->toPlainText() != snippet()) snippetEdit_->setPlainText(snippet());
}

QString StepPage::factsText() const { return facts_->property("plainText").toString(); }

void StepPage::setShowTables(bool show) {
    if (show == showTables_) return;
    showTables_ = show;
    {
        const QSignalBlocker block(tablesBox_);
        tablesBox_->setChecked(show);
    }
    for (MatrixPanel* p : panels_) {
        p->table->setVisible(show);
        p->updateGeometry();
    }
    matrixLayout_->invalidate();
    emit showTablesChanged(show);
}

void StepPage::setFrame(int frame) {
    if (step_.frame_count <= 0) return;
    const int clamped = std::clamp(frame, 0, step_.frame_count - 1);
    if (clamped == frame_) {
        updateFrameControls();
        return;
    }
    frame_ = clamped;
    updateMatrices();
}

void StepPage::setInference(bool inference) {
    if (!hasDropout_ || inference == inference_) return;
    inference_ = inference;
    {
        const QSignalBlocker a(training_);
        const QSignalBlocker b(inferenceButton_);
        inferenceButton_->setChecked(inference);
        training_->setChecked(!inference);
    }
    updateMatrices();
}

void StepPage::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

void StepPage::retranslate() {
    const StepText text = stepText(step_);
    updateTitle();
    explanation_->setText(text.html);
    explanation_->setVisible(explanationShown_ && !text.html.isEmpty() && blockInPart(0));
    tablesBox_->setText(tr("Show numbers as &tables"));
    const std::pair<QString, QString> chapterButtons = frameButtonTexts(step_);  // masks, tiles
    previousToken_->setText(chapterButtons.first.isEmpty() ? tr("◀ Previous token")
                                                           : chapterButtons.first);
    nextToken_->setText(chapterButtons.second.isEmpty() ? tr("Next token ▶")
                                                        : chapterButtons.second);
    modeLabel_->setText(tr("Dropout:"));
    training_->setText(tr("Training"));
    inferenceButton_->setText(tr("Inference"));
    snippetBox_->setTitle(tr("The same in PyTorch"));
    copyButton_->setText(tr("&Copy code"));
    if (vectorCaption_)
        vectorCaption_->setText(QStringLiteral("<b>%1</b>").arg(tr("Embeddings as arrows")));
    if (!panels_.empty()) updateMatrices();
}

}  // namespace views
