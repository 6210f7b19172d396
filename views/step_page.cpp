#include "step_page.h"

#include <QApplication>
#include <QButtonGroup>
#include <QCheckBox>
#include <QClipboard>
#include <QEvent>
#include <QFontDatabase>
#include <QFontInfo>
#include <QFrame>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QStyle>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "flow_layout.h"
#include "heatmap_widget.h"
#include "matrix_panel.h"
#include "model/number_format.h"
#include "number_text.h"
#include "step_texts.h"
#include "vector_view.h"

namespace views {

namespace {

// Below this a classroom's back row reads nothing: a page that does not fit even so scrolls.
constexpr double kSmallestFitScale = 0.35;
// A presented page's body text is at least 1/kReadableLines of its height; a denser step is
// shown in parts instead of smaller.
constexpr double kReadableLines = 90.0;

bool isUnitRange(attn::MatrixKind kind) {
    return kind == attn::MatrixKind::Weights || kind == attn::MatrixKind::Mask;
}

// Snippets and formulas mix Latin and CJK ("你的 旅程 始于 一步"): list a CJK face as fallback.
QFont monospaceFont() {
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    font.setFamilies({QStringLiteral("DejaVu Sans Mono"), QStringLiteral("Noto Sans Mono CJK SC"),
                      font.family()});
    font.setStyleHint(QFont::Monospace);
    return font;
}

// Through the one formatter (C locale), so a German desktop shows the digits the cells show.
QString formatFact(const std::string& id, double value) {
    const bool whole = id != "max_abs_diff" && std::abs(value) < 1e15 && value == std::floor(value);
    return whole ? attn::shortestText(value) : attn::compactText(value);  // 4 significant digits
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

    // Controls: frames, training/inference, tables.
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
    layout->addLayout(controls);

    auto* matrices = new QWidget(content);
    matrixLayout_ = new FlowLayout(matrices, 28, 20);
    layout->addWidget(matrices);
    buildMatrices();

    if (step_.id == "inputs") {
        if (const attn::StepMatrix* inputs = step_.find("inputs")) {
            // Captioned like the heatmaps beside it.
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
    }

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

StepPage::~StepPage() = default;

QString StepPage::title() const { return stepText(step_).title; }

QStringList StepPage::matrixIds() const { return toQStringList(ids_); }

QList<attn::HeatmapWidget*> StepPage::heatmaps() const {
    QList<attn::HeatmapWidget*> list;
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

attn::HeatmapWidget* StepPage::heatmap(const QString& matrixId) const {
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
        connect(p->heatmap, &attn::HeatmapWidget::cellHovered, this,
                [this, index](int r, int c) { onCellHovered(index, r, c); });
        connect(p->heatmap, &attn::HeatmapWidget::cellClicked, this,
                [this, index](int r, int c) { onCellClicked(index, r, c); });
        connect(p->heatmap, &attn::HeatmapWidget::hoverLeft, this, &StepPage::onHoverLeft);
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
    double with = -1.0;
    double without = -1.0;
    for (const attn::StepFact& f : step_.facts) {
        if (f.frame >= 0 && f.frame != frame_) continue;
        if (f.training_only && inference_) continue;
        if (f.id == "mults_with_cache") with = f.value;
        if (f.id == "mults_without_cache") without = f.value;
        add(factLabel(f.id), formatFact(f.id, f.value), false);
    }
    if (with >= 0.0 && without > 0.0) {
        const double saved = without - with;
        add(tr("Multiplications saved"),
            tr("%1 (%2 %)")
                .arg(formatFact({}, saved))
                .arg(attn::fixedText(100.0 * saved / without, 0)),
            true);
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

QString StepPage::cellFormula(const QString& matrixId, int row, int column) const {
    const attn::StepMatrix* m = shownMatrix(matrixId);
    return m ? cellHoverText(step_, *m, row, column, inference_) : QString();
}

QString StepPage::explainCell(const QString& matrixId, int row, int column) {
    const int index = panelIndex(matrixId.toStdString());
    if (index < 0) return {};
    showCell(index, row, column);
    return explanationBarText();
}

QString StepPage::explanationBarText() const { return cellBar_->property("plainText").toString(); }

void StepPage::onCellHovered(int panelIndex, int row, int column) {
    showCell(panelIndex, row, column);
}

void StepPage::onCellClicked(int panelIndex, int row, int column) {
    pinned_ = std::make_pair(panelIndex, std::make_pair(row, column));
    showCell(panelIndex, row, column);
}

void StepPage::onHoverLeft() {
    if (pinned_)
        showCell(pinned_->first, pinned_->second.first, pinned_->second.second);
    else
        resetHighlights();
}

void StepPage::showCell(int index, int row, int column) {
    if (index < 0 || index >= static_cast<int>(panels_.size())) return;
    const QString id = QString::fromStdString(ids_[static_cast<std::size_t>(index)]);
    const attn::StepMatrix* m = shownMatrix(id);
    if (!m || row < 0 || column < 0 || row >= m->values.rows() || column >= m->values.cols())
        return;
    for (MatrixPanel* p : panels_) p->heatmap->clearHighlight();
    panels_[static_cast<std::size_t>(index)]->heatmap->highlightCell(row, column);

    attn::HeatmapWidget* lhs = m->lhs.empty() ? nullptr : heatmap(QString::fromStdString(m->lhs));
    attn::HeatmapWidget* rhs = m->rhs.empty() ? nullptr : heatmap(QString::fromStdString(m->rhs));
    using attn::Derivation;
    switch (m->derivation) {
        case Derivation::None:
            break;
        case Derivation::DotProduct:
            // ω_ij = q_i · k_j: the query row of the left matrix, the key row of the right one.
            // When both are the same matrix (x · xᵀ) the key row wins: the query is the
            // highlighted row of the result already.
            if (lhs) lhs->highlightRow(row);
            if (rhs) rhs->highlightRow(column);
            break;
        case Derivation::Projection:
        case Derivation::WeightedSum:
        case Derivation::Linear:
            if (lhs) lhs->highlightRow(row);
            if (rhs) rhs->highlightColumn(column);
            break;
        case Derivation::Softmax:
        case Derivation::NaiveSoftmax:
        case Derivation::NaiveNorm:
        case Derivation::Renormalize:
            // The whole row enters the denominator.
            if (lhs) {
                lhs->highlightRow(row);
                lhs->highlightCell(row, column);
            }
            break;
        case Derivation::RunningMax:
        case Derivation::RunningSum:
        case Derivation::RunningOutput:
            if (lhs) lhs->highlightRow(row);  // the tile's scores of this query
            break;
        case Derivation::Concat:
        case Derivation::CausalMask:
        case Derivation::RuleMask:
        case Derivation::RescaleFactor:
        case Derivation::TileNormalize:
        case Derivation::TileMap:
        case Derivation::KvHeadMap:
        case Derivation::RopeAngle:
            break;
        case Derivation::RopeRotation:
            // The coordinate and its partner of the same token, rotated by that token's angle.
            if (lhs) lhs->highlightRow(row);
            if (rhs) rhs->highlightRow(row);
            break;
        case Derivation::Scale:
        case Derivation::MaskProduct:
        case Derivation::MaskedFill:
        case Derivation::Dropout:
        case Derivation::Difference:
            if (lhs) lhs->highlightCell(row, column);
            if (rhs) rhs->highlightCell(row, column);
            break;
    }

    const std::size_t r = static_cast<std::size_t>(row);
    const std::size_t c = static_cast<std::size_t>(column);
    const QString rowLabel = r < m->row_labels.size() ? QString::fromStdString(m->row_labels[r])
                                                      : QString::number(row + 1);
    const QString colLabel = c < m->col_labels.size() ? QString::fromStdString(m->col_labels[c])
                                                      : QString::number(column + 1);
    const QString where = tr("%1 — row “%2”, column “%3”").arg(caption(id), rowLabel, colLabel);
    const QString formula = cellFormula(id, row, column);
    cellBar_->setText(QStringLiteral("<span>%1</span><br><span style='font-size:%3pt'>%2</span>")
                          .arg(where.toHtmlEscaped(), formula.toHtmlEscaped())
                          .arg(cellBar_->font().pointSizeF() * 1.25));
    cellBar_->setProperty("plainText", where + QLatin1Char('\n') + formula);
}

void StepPage::resetHighlights() {
    for (MatrixPanel* p : panels_) p->heatmap->clearHighlight();
    applyStepHighlights();
    const QString hint =
        tr("Point at a cell to see how it is computed from the other matrices; "
           "click it to keep the explanation.");
    cellBar_->setText(QStringLiteral("<span>%1</span>").arg(hint.toHtmlEscaped()));
    cellBar_->setProperty("plainText", hint);
}

void StepPage::applyStepHighlights() {
    for (const attn::Highlight& h : step_.highlights) {
        attn::HeatmapWidget* map = heatmap(QString::fromStdString(h.matrix_id));
        if (!map) continue;
        const int row = static_cast<int>(h.row);
        const int col = static_cast<int>(h.col);
        if (row >= 0 && col >= 0)
            map->highlightCell(row, col);
        else if (row >= 0)
            map->highlightRow(row);
        else if (col >= 0)
            map->highlightColumn(col);
    }
    // Decoding frames: the row this token appended to a growing matrix (the cache).
    if (step_.frame_count > 0 && frame_ > 0 && frameText(step_, frame_).isEmpty()) {
        for (std::size_t i = 0; i < ids_.size(); ++i) {
            const QString id = QString::fromStdString(ids_[i]);
            const attn::StepMatrix* m = shownMatrix(id);
            if (!m || m->frame < 0 || m->values.rows() != frame_ + 1) continue;
            panels_[i]->heatmap->highlightRow(frame_);
        }
    }
}

void StepPage::setScale(double scale) {
    scale_ = std::max(scale, 0.25);
    fitScale();
}

bool StepPage::blockInPart(std::size_t block) const {
    if (parts_.empty()) return true;
    const BlockRange& shown = parts_[static_cast<std::size_t>(part_)];
    return block >= shown.first && block < shown.second;
}

bool StepPage::partShowsFrames() const {
    if (step_.frame_count <= 0) return false;
    for (std::size_t i = 0; i < ids_.size(); ++i) {
        if (!panelInPart(i)) continue;
        for (const attn::StepMatrix& m : step_.matrices)
            if (m.id == ids_[i] && m.frame >= 0) return true;
    }
    return false;
}

void StepPage::updateTitle() {
    // Number 0: a record that is not a step of the walkthrough (a real model's layer).
    const QString title = step_.number > 0
                              ? tr("Step %1 · %2").arg(step_.number).arg(stepText(step_).title)
                              : stepText(step_).title;
    title_->setText(partCount() > 1
                        ? tr("%1 · part %2 of %3").arg(title).arg(part_ + 1).arg(partCount())
                        : title);
}

void StepPage::applyPart() {
    part_ = std::clamp(part_, 0, partCount() - 1);
    explanation_->setVisible(!explanation_->text().isEmpty() && blockInPart(0));
    snippetBox_->setVisible(!step_.snippet.empty() && blockInPart(blockCount() - 1));
    frameBar_->setVisible(step_.frame_count > 0 && (parts_.empty() || partShowsFrames()));
    if (vectorView_) vectorView_->parentWidget()->setVisible(blockInPart(1));
    updateTitle();
    for (std::size_t i = 0; i < panels_.size(); ++i) {
        const bool shown = shownMatrix(QString::fromStdString(ids_[i])) != nullptr;
        panels_[i]->setVisible(shown && panelInPart(i));
    }
    for (MatrixPanel* p : panels_) p->updateGeometry();
    matrixLayout_->invalidate();
    scroll_->widget()->layout()->invalidate();
}

void StepPage::setPart(int part) {
    wantLastPart_ = part < 0 && (parts_.empty() || !isVisible());
    const int wanted = part < 0 ? partCount() - 1 : part;
    const int clamped = std::clamp(wanted, 0, partCount() - 1);
    if (clamped == part_) return;
    part_ = clamped;
    applyPart();
    scrollToTop();
    resetHighlights();
}

double StepPage::readableScale() const {
    const double basePixels = std::max(1, QFontInfo(QApplication::font()).pixelSize());
    const double wanted = availableHeight() / kReadableLines / basePixels;
    return std::clamp(wanted, smallestFit_, std::max(scale_, smallestFit_));
}

std::vector<StepPage::BlockRange> StepPage::packParts(double scale) {
    std::vector<BlockRange> packed;
    const std::size_t n = blockCount();
    auto fits = [&](std::size_t from, std::size_t to) {
        parts_ = {{from, to}};
        part_ = 0;
        applyPart();
        applyShownScale(scale);
        return contentHeight() <= availableHeight();
    };
    std::size_t start = 0;
    while (start < n) {
        std::size_t end = start + 1;
        while (end < n && fits(start, end + 1)) ++end;
        packed.emplace_back(start, end);
        start = end;
    }
    // A part of nothing (no code, no text) joins its neighbour.
    auto empty = [&](const BlockRange& r) {
        for (std::size_t b = r.first; b < r.second; ++b) {
            if (b == 0 ? !explanation_->text().isEmpty() : b + 1 < n || !step_.snippet.empty())
                return false;
        }
        return true;
    };
    for (std::size_t k = 0; k < packed.size() && packed.size() > 1;) {
        if (!empty(packed[k])) {
            ++k;
            continue;
        }
        if (k > 0)
            packed[k - 1].second = packed[k].second;
        else
            packed[k + 1].first = packed[k].first;
        packed.erase(packed.begin() + static_cast<std::ptrdiff_t>(k));
    }
    return packed;
}

void StepPage::setFitToHeight(bool fit) {
    if (fit == fitToHeight_) return;
    fitToHeight_ = fit;
    fitScale();
}

void StepPage::setCellTooltips(bool on) { cellTooltips_ = on; }

void StepPage::scrollToTop() {
    scroll_->verticalScrollBar()->setValue(0);
    scroll_->horizontalScrollBar()->setValue(0);
}

void StepPage::applyShownScale(double scale) {
    shownScale_ = scale;
    for (MatrixPanel* p : panels_) p->heatmap->setScale(shownScale_);
    if (vectorView_) vectorView_->setScale(shownScale_);
    applyFonts();
    // The layouts cache sizes: drop them now, so fitScale() measures the new ones at once.
    for (MatrixPanel* p : panels_) p->updateGeometry();
    matrixLayout_->invalidate();
    matrixLayout_->parentWidget()->updateGeometry();
    scroll_->widget()->layout()->invalidate();
}

int StepPage::contentHeight() const {
    QWidget* content = scroll_->widget();
    // Measured as if the scroll bar were shown: a page that fits that narrow fits without it,
    // while one measured at full width can wrap a line more once a scroll bar appears and keep
    // it for good.
    const int bar = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, scroll_);
    return std::max(content->layout()->totalHeightForWidth(scroll_->width() - bar),
                    content->layout()->totalMinimumSize().height());
}

int StepPage::availableHeight() const {
    const int bar = std::max(cellBar_->minimumHeight(), cellBar_->heightForWidth(width()));
    return height() - bar;
}

// Heights grow about linearly with the scale, so a few proportional steps find the largest scale
// that fits; a hidden page waits until it is shown at its real size.
void StepPage::fitScale() {
    if (fitting_) return;
    if (!fitToHeight_) {
        if (!parts_.empty()) {
            parts_.clear();
            part_ = 0;
            applyPart();
        }
        applyShownScale(scale_);
        return;
    }
    if (!isVisible() || height() <= 0) return;  // fitted when shown, at its real size
    fitting_ = true;
    // The last frame holds every matrix at its largest: fitted to it, the scale stays put as the
    // tokens come in one by one.
    const int shownFrame = frame_;
    const bool otherFrame = step_.frame_count > 0 && frame_ != step_.frame_count - 1;
    if (otherFrame) {
        frame_ = step_.frame_count - 1;
        updateMatrices();
    }
    const int shownPart = wantLastPart_ ? -1 : part_;
    wantLastPart_ = false;
    auto fits = [this](double scale) {
        applyShownScale(scale);
        return contentHeight() <= availableHeight();
    };
    // The largest scale up to `high` at which the shown part fits. Heights do not follow the
    // scale in proportion (heatmaps wrap to new lines as they grow), so bisect from a scale
    // known to fit: the readable one, which packing made every part fit where it could.
    auto largestFit = [&](double high) {
        if (fits(high)) return high;
        double low = std::min(readableScale(), high);
        if (!fits(low)) low = smallestFit_;
        if (!fits(low)) return low;
        for (int i = 0; i < 7; ++i) {
            const double middle = (low + high) / 2;
            if (fits(middle))
                low = middle;
            else
                high = middle;
        }
        return low;
    };
    parts_.clear();
    part_ = 0;
    applyPart();
    const double readable = readableScale();
    // With a floor (setSmallestFitScale) the page scrolls below it instead of splitting.
    if (!fits(readable) && smallestFit_ <= kSmallestFitScale) {
        parts_ = packParts(readable);
        if (parts_.size() <= 1) parts_.clear();
    }
    // One scale for every part of the step, so its matrices keep their size from part to part.
    double scale = scale_;
    for (int k = 0; k < partCount(); ++k) {
        part_ = k;
        applyPart();
        scale = largestFit(scale);
    }
    part_ = shownPart < 0 ? partCount() - 1 : std::min(shownPart, partCount() - 1);
    applyPart();
    if (shownScale_ != scale) applyShownScale(scale);
    if (otherFrame) {
        frame_ = shownFrame;
        updateMatrices();
    }
    fitting_ = false;
    settleAttempts_ = 0;
    QTimer::singleShot(50, this, &StepPage::settleFit);
}

// The measured height can miss the laid-out one by a few pixels (wrapped text, a label that grew
// with the font): once laid out, shrink a little while the page still scrolls.
void StepPage::settleFit() {
    if (!fitToHeight_ || fitting_ || !isVisible() || shownScale_ <= smallestFit_) return;
    if (scroll_->verticalScrollBar()->maximum() <= 0 || ++settleAttempts_ > 8) return;
    applyShownScale(std::max(smallestFit_, shownScale_ * 0.97));
    QTimer::singleShot(50, this, &StepPage::settleFit);
}

void StepPage::setSmallestFitScale(double scale) {
    smallestFit_ = std::max(scale, kSmallestFitScale);
    fitScale();
}

void StepPage::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // Texts wrap at the visible width even when a wide heatmap makes the page scroll sideways.
    const int textWidth = std::max(
        200, event->size().width() - 40 - scroll_->verticalScrollBar()->sizeHint().width());
    for (QLabel* label : {title_, explanation_, facts_}) label->setMaximumWidth(textWidth);
    if (fitToHeight_) fitScale();
}

void StepPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (fitToHeight_) fitScale();
}

void StepPage::applyFonts() {
    const QFont base = QApplication::font();
    const double size = base.pointSizeF() > 0 ? base.pointSizeF() : 10.0;
    const double scale = shownScale_;
    QFont titleFont = base;
    titleFont.setPointSizeF(size * 1.7 * scale);
    titleFont.setBold(true);
    title_->setFont(titleFont);
    QFont text = base;
    text.setPointSizeF(size * 1.15 * scale);
    explanation_->setFont(text);
    facts_->setFont(text);
    cellBar_->setFont(text);
    QFont normal = base;
    normal.setPointSizeF(size * scale);
    if (vectorCaption_) vectorCaption_->setFont(text);
    for (MatrixPanel* p : panels_) {
        p->caption->setFont(text);
        p->table->setFont(normal);
    }
    // The controls grow with the page: a teacher clicks "Next token" on a projector too.
    for (QWidget* control : std::initializer_list<QWidget*>{previousToken_, nextToken_, frameLabel_,
                                                            modeLabel_, training_, inferenceButton_,
                                                            tablesBox_, copyButton_, snippetBox_})
        control->setFont(text);
    const int buttonHeight = static_cast<int>(std::lround(32 * scale));
    previousToken_->setMinimumHeight(buttonHeight);
    nextToken_->setMinimumHeight(buttonHeight);
    frameSlider_->setMinimumWidth(static_cast<int>(std::lround(160 * scale)));
    frameSlider_->setMinimumHeight(buttonHeight);
    // Room for the hint or a cell's two lines, so pointing at cells never moves the page.
    const QFontMetrics textMetrics(text);
    cellBar_->setMinimumHeight(static_cast<int>(std::ceil(textMetrics.lineSpacing() * 2.3)) +
                               2 * cellBar_->margin() + 2 * cellBar_->frameWidth());
    QFont mono = monospaceFont();
    mono.setPointSizeF(size * scale);
    snippetEdit_->setFont(mono);
    // Tall enough for the whole snippet, so the page scrolls instead of the snippet.
    const int lines = static_cast<int>(
        step_.snippet.empty() ? 1
                              : std::count(step_.snippet.begin(), step_.snippet.end(), '\n') + 1);
    const QFontMetrics fm(mono);
    snippetEdit_->setFixedHeight(fm.lineSpacing() * lines + 2 * snippetEdit_->frameWidth() +
                                 static_cast<int>(2 * snippetEdit_->document()->documentMargin()) +
                                 style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 4);
}

void StepPage::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

void StepPage::retranslate() {
    const StepText text = stepText(step_);
    updateTitle();
    explanation_->setText(text.html);
    explanation_->setVisible(!text.html.isEmpty() && blockInPart(0));
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
