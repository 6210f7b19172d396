// StepPage, fitting the page to its screen: the scale, fonts and controls that grow with it, and
// presentation's fit to the page's height, splitting a dense step into parts.
#include <QApplication>
#include <QCheckBox>
#include <QFontDatabase>
#include <QFontInfo>
#include <QFontMetrics>
#include <QGroupBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QResizeEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QStyle>
#include <QTableWidget>
#include <QTextDocument>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "views/flow_layout.h"
#include "views/heatmap_widget.h"
#include "views/matrix_panel.h"
#include "views/step_page.h"
#include "views/step_texts.h"
#include "views/vector_view.h"

namespace views {

namespace {

// Below this a classroom's back row reads nothing: a page that does not fit even so scrolls.
constexpr double kSmallestFitScale = 0.35;
// A presented page's body text is at least 1/kReadableLines of its height; a denser step is
// shown in parts instead of smaller.
constexpr double kReadableLines = 90.0;

// Snippets and formulas mix Latin and CJK ("你的 旅程 始于 一步"): list a CJK face as fallback.
QFont monospaceFont() {
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    font.setFamilies({QStringLiteral("DejaVu Sans Mono"), QStringLiteral("Noto Sans Mono CJK SC"),
                      font.family()});
    font.setStyleHint(QFont::Monospace);
    return font;
}

}  // namespace

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
    explanation_->setVisible(explanationShown_ && !explanation_->text().isEmpty() &&
                             blockInPart(0));
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

void StepPage::setSmallestTextScale(double scale) {
    smallestTextScale_ = scale;
    applyShownScale(shownScale_);
    if (fitToHeight_) fitScale();
}

void StepPage::setExplanationShown(bool shown) {
    explanationShown_ = shown;
    applyPart();  // only the explanation's visibility changes; its text stays
    if (fitToHeight_) fitScale();
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
    const double scale = std::max(shownScale_, smallestTextScale_);
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

}  // namespace views
