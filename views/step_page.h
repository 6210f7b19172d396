// StepPage: one step of the walkthrough, built from its attn::Step record. Every step uses this
// one page: the explanation, the matrices as heatmaps (and on demand as number tables), the
// facts, the PyTorch snippet, frames for the KV-cache step and the training/inference switch for
// dropout all come from the record, so a new step needs data and words, not a widget.
//
// Hovering or clicking a cell writes explain_cell()'s formula in the bar under the heatmaps and
// outlines where the cell came from: the lhs row and, for a dot product, the rhs row (a key), for
// a projection or weighted sum the rhs column.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/walkthrough.h"

class QCheckBox;
class QGroupBox;
class QHBoxLayout;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;
class QScrollArea;
class QSlider;
class QTableWidget;

namespace views {

class HeatmapWidget;

class FlowLayout;
class MatrixPanel;
class VectorView;

class StepPage : public QWidget {
    Q_OBJECT

public:
    explicit StepPage(attn::Step step, QWidget* parent = nullptr);
    ~StepPage() override;

    const attn::Step& step() const { return step_; }
    // "Scaled dot-product attention", translated.
    QString title() const;

    // One heatmap per matrix id, in the record's order (a frame step shows the selected frame).
    QStringList matrixIds() const;
    QList<HeatmapWidget*> heatmaps() const;
    HeatmapWidget* heatmap(const QString& matrixId) const;
    QTableWidget* table(const QString& matrixId) const;
    // The record the heatmap of `matrixId` shows now (frame-aware); nullptr for an unknown id.
    const attn::StepMatrix* shownMatrix(const QString& matrixId) const;
    // The values on screen: the record's, except the identity dropout at inference.
    attn::Matrix shownValues(const QString& matrixId) const;
    QString caption(const QString& matrixId) const;

    // Number tables under the heatmaps (4 decimals, "−∞" for filled cells).
    void setShowTables(bool show);
    bool showTables() const { return showTables_; }

    // Frames (the KV-cache step decodes one token per frame); 0 when the step has none.
    int frameCount() const { return step_.frame_count; }
    int frame() const { return frame_; }
    void setFrame(int frame);

    // Dropout steps: inference shows dropout as the identity. False when the step has no dropout.
    bool hasInferenceSwitch() const { return hasDropout_; }
    void setInference(bool inference);
    bool inference() const { return inference_; }

    // Explains a cell as hovering it does (text in the bar, cross-highlights); returns the text
    // of the bar, empty for an unknown matrix or cell.
    QString explainCell(const QString& matrixId, int row, int column);
    // The formula line alone, e.g. "ω₂₃ = q₂ · k₃ / √2 = ... = 1.2808".
    QString cellFormula(const QString& matrixId, int row, int column) const;
    QString explanationBarText() const;
    // Back to the step's own highlights and the hint in the bar.
    void resetHighlights();

    // Fonts, heatmap cells, the vector plot and the controls multiplied (View > Zoom, presentation
    // mode).
    void setScale(double scale);
    double scale() const { return scale_; }
    // Presentation: the page is drawn at the largest scale up to scale() at which all of it, in
    // every frame, fits the page's height, so nothing scrolls on a projector. Off: scale() itself.
    void setFitToHeight(bool fit);
    bool fitToHeight() const { return fitToHeight_; }
    // Fitting shrinks no further than `scale` (default 0.35, the projector's limit); a page that
    // still does not fit scrolls rather than splitting into parts. For a page beside other views,
    // where small fonts are worse than a scroll bar.
    void setSmallestFitScale(double scale);
    // Texts (title, explanation, the cell bar, the controls) are drawn at no less than `scale`
    // while the heatmaps shrink further to fit (default 0: texts follow the page's scale). For a
    // page in a crowded window, where the colours matter and hovering gives every number.
    void setSmallestTextScale(double scale);
    // The step's explanation under the title (default shown). Off where the window explains the
    // matrix beside the page.
    void setExplanationShown(bool shown);
    // The scale the page is drawn at now: scale(), or less when fitting needs it.
    double shownScale() const { return shownScale_; }
    // A page always opens at its top.
    void scrollToTop();

    // Presentation on a screen too small for a dense step (many matrices at 1280×720): rather than
    // shrink everything below what a classroom reads, the step is shown in parts, each with the
    // title, in record order: the first part with the explanation, the last with the code. The
    // clicker's next key moves through them as through frames. 1 part when it all fits.
    int partCount() const { return parts_.empty() ? 1 : static_cast<int>(parts_.size()); }
    int part() const { return part_; }
    // Clamped to the parts there are; -1 is the last part, also when the parts are not known yet
    // (a page entered backwards before it is shown).
    void setPart(int part);
    // The matrices of the shown part include one that changes with the frame.
    bool partShowsFrames() const;
    // The smallest scale the page shrinks to before it splits into parts: text at least
    // 1/90 of the page's height (about 0.6 at 1280×720, 0.9 at 1920×1080).
    double readableScale() const;
    // Hover tooltips over the cells (default on). Off while presenting, where a tooltip would
    // cover the matrices on the projector: the bar under the page explains the cell instead.
    void setCellTooltips(bool on);
    bool cellTooltips() const { return cellTooltips_; }

    VectorView* vectorView() const { return vectorView_; }
    // The step's numbers as shown, e.g. "Heads: 2 · head_dim: 2" (frame-aware).
    QString factsText() const;
    QString snippet() const;

signals:
    void showTablesChanged(bool show);

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    // Parts of the page the constructor builds: the frame, dropout and tables controls; the
    // inputs step's arrows; the PyTorch snippet with its copy button.
    QHBoxLayout* buildControls(QWidget* content);
    void buildVectorView(QWidget* matrices);
    void buildSnippet(QWidget* content);
    MatrixPanel* panel(const QString& matrixId) const;
    int panelIndex(const std::string& matrixId) const;
    void buildMatrices();
    void updateMatrices();
    void updateFrameControls();
    void updateFacts();
    void applyStepHighlights();
    void onCellHovered(int panelIndex, int row, int column);
    void onCellClicked(int panelIndex, int row, int column);
    void onHoverLeft();
    void showCell(int panelIndex, int row, int column);
    void applyFonts();
    void applyShownScale(double scale);
    void fitScale();
    void settleFit();
    int contentHeight() const;  // the scrolled content's height at the page's width
    // A page is a column of blocks: 0 the explanation, 1..n the matrices (the vector plot with the
    // first), n + 1 the code. A part is a range [first, second) of them.
    using BlockRange = std::pair<std::size_t, std::size_t>;
    std::size_t blockCount() const { return panels_.size() + 2; }
    bool blockInPart(std::size_t block) const;
    bool panelInPart(std::size_t panel) const { return blockInPart(panel + 1); }
    void applyPart();  // shows the blocks of part_ only
    void updateTitle();
    // Greedy: as many blocks per part as fit at `scale`, in order.
    std::vector<BlockRange> packParts(double scale);
    int availableHeight() const;
    void retranslate();

    attn::Step step_;
    std::vector<std::string> ids_;  // distinct matrix ids, in order
    std::vector<MatrixPanel*> panels_;
    int frame_ = 0;
    bool inference_ = false;
    bool hasDropout_ = false;
    bool showTables_ = false;
    double scale_ = 1.0;
    double shownScale_ = 1.0;
    bool fitToHeight_ = false;
    double smallestFit_ = 0.35;
    double smallestTextScale_ = 0.0;
    bool explanationShown_ = true;
    bool fitting_ = false;
    int settleAttempts_ = 0;
    bool cellTooltips_ = true;
    std::vector<BlockRange> parts_;  // empty: one part, the whole page
    int part_ = 0;
    bool wantLastPart_ = false;
    // The clicked cell stays explained when the pointer leaves the matrices.
    std::optional<std::pair<int, std::pair<int, int>>> pinned_;

    QScrollArea* scroll_ = nullptr;
    QLabel* title_ = nullptr;
    QLabel* explanation_ = nullptr;
    QCheckBox* tablesBox_ = nullptr;
    QWidget* frameBar_ = nullptr;
    QPushButton* previousToken_ = nullptr;
    QPushButton* nextToken_ = nullptr;
    QSlider* frameSlider_ = nullptr;
    QLabel* frameLabel_ = nullptr;
    QWidget* modeBar_ = nullptr;
    QLabel* modeLabel_ = nullptr;
    QRadioButton* training_ = nullptr;
    QRadioButton* inferenceButton_ = nullptr;
    FlowLayout* matrixLayout_ = nullptr;
    QLabel* cellBar_ = nullptr;
    QLabel* facts_ = nullptr;
    QLabel* vectorCaption_ = nullptr;
    VectorView* vectorView_ = nullptr;
    QGroupBox* snippetBox_ = nullptr;
    QPlainTextEdit* snippetEdit_ = nullptr;
    QPushButton* copyButton_ = nullptr;
};

}  // namespace views
