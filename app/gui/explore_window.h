// ExploreWindow: explore mode. The tokens and their embeddings, the module settings
// and the weights are editable; every view (heads grid, output, lines, weight split, KV cache,
// cross-attention, FlashAttention's tiles) shows the session's last valid run and follows each
// edit. Edits go through ExploreSession, so each one can be undone.
#pragma once

#include <QMainWindow>
#include <QSet>
#include <QString>
#include <functional>
#include <vector>

#include "app/gui/explore_session.h"

class ExportFlow;
class QAction;
class QScrollArea;
class QLabel;
class QMenu;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableView;

namespace attn {
struct Step;
}  // namespace attn

namespace views {
class HeatmapWidget;
class ExploreTokenModel;
class ExploreParameterPanel;
class ExploreHeadsGrid;
class ExploreWeightEditor;
class ExploreKvStepper;
class ExploreLinesView;
class ExploreWeightSplit;
class ExploreTilesView;
struct FigureOptions;
}  // namespace views

class ExploreWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit ExploreWindow(QWidget* parent = nullptr);
    ~ExploreWindow() override;

    // The explore window of `owner` (created on first use as its child window), shown and raised:
    // the hook the walkthrough window's Explore action and --example call.
    static ExploreWindow* showFor(QWidget* owner);

    ExploreSession* session() const { return session_; }
    views::ExploreTokenModel* tokenModel() const { return inputsModel_; }
    views::ExploreTokenModel* sourceModel() const { return sourceModel_; }
    views::ExploreParameterPanel* parameterPanel() const { return panel_; }
    views::ExploreHeadsGrid* headsGrid() const { return grid_; }
    views::ExploreWeightEditor* weightEditor() const { return weightEditor_; }
    views::HeatmapWidget* outputHeatmap() const { return output_; }
    QTabWidget* viewTabs() const { return tabs_; }
    QTableView* tokenView() const { return inputsView_; }
    views::ExploreKvStepper* kvStepper() const { return kvStepper_; }
    views::ExploreLinesView* linesView() const { return lines_; }
    views::ExploreWeightSplit* weightSplit() const { return split_; }
    views::HeatmapWidget* crossHeatmap() const { return crossHeatmap_; }
    views::ExploreLinesView* crossLines() const { return crossLines_; }
    QWidget* crossTab() const { return crossTab_; }
    views::ExploreTilesView* tilesView() const { return tiles_; }

    // Opens `path`; on failure shows the message in the status bar and a dialog (unless quiet)
    // and keeps the session. Returns whether the file was loaded.
    bool openFile(const QString& path, bool quiet = false);
    // The message shown at start-up when --example named a bad file.
    void showStartupMessage(const QString& message);
    QString lastMessage() const { return lastMessage_; }
    // Sizes and places the window inside its screen's available area (at most 1500 × 920).
    void fitToScreen();

    // File ▸ Export, through the flow every window shares (settings group "explore/export").
    ExportFlow* exportFlow() const { return exportFlow_; }
    // The 0-based head the head figure shows: the one last clicked in the heads grid or chosen
    // in the cross-attention or tiles tab (head 1 at first), within the run's heads.
    int shownHead() const;
    // The attn_weights of batch item 0 of the current run, written to `path` without dialogs:
    // the shown head, or every head on one page.
    bool exportHead(const QString& path, const views::FigureOptions& options, QString* error);
    bool exportAllHeads(const QString& path, const views::FigureOptions& options, QString* error);

protected:
    void changeEvent(QEvent* event) override;

private:
    QWidget* buildTokenEditor(ExploreSide side, views::ExploreTokenModel* model, QTableView** view);
    void buildMenus();
    void retranslate();
    void fitPanelWidth();
    void updateFromState();
    void updateFromResult();
    // Brings the shown view tab up to date if the result changed since it was last drawn.
    void updateCurrentView();
    void updateKvStepper();
    void updateHeadsGrid();  // the sentence chosen in the grid, batch item 0 by default
    void updateTiles();
    void updateWeightSplit();
    void updateCross();
    void updateRecentMenu();
    void pasteInto(ExploreSide side);
    void showMessage(const QString& text, bool problem = true);
    // Why the KV tab decodes without dropout, shown there and at the disabled dropout control.
    QString kvDropoutReason() const;
    void updateDropoutNote();
    void saveAs();
    void save();
    void openDialog();
    // The run's heads as a record for StepPage (attn::attention_layer_step); false with *error
    // "Nothing to export: …" when the run has no weights to show.
    bool headsStep(attn::Step* step, QString* error) const;
    enum class ExportKind { Head, AllHeads };
    bool renderHeads(ExportKind kind, const views::FigureOptions& options, QByteArray* bytes,
                     QString* error) const;
    void exportWithDialog(ExportKind kind);
    static QStringList labelsOf(const attn::Sequence& s);
    // The cells dropout zeroed in each head of batch item `batch`; empty without dropout.
    static std::vector<attn::BoolMatrix> droppedOf(const attn::RunResult& r, std::size_t batch = 0);

    ExploreSession* session_ = nullptr;
    views::ExploreTokenModel* inputsModel_ = nullptr;
    views::ExploreTokenModel* sourceModel_ = nullptr;
    QTableView* inputsView_ = nullptr;
    QTableView* sourceView_ = nullptr;
    QTabWidget* editTabs_ = nullptr;
    QWidget* sourceEditor_ = nullptr;
    views::ExploreParameterPanel* panel_ = nullptr;
    QScrollArea* panelScroll_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    views::ExploreHeadsGrid* grid_ = nullptr;
    views::ExploreWeightEditor* weightEditor_ = nullptr;
    views::HeatmapWidget* output_ = nullptr;
    views::ExploreKvStepper* kvStepper_ = nullptr;
    views::ExploreLinesView* lines_ = nullptr;
    views::ExploreWeightSplit* split_ = nullptr;
    QWidget* crossTab_ = nullptr;
    QLabel* crossNote_ = nullptr;
    QSpinBox* crossHead_ = nullptr;
    views::HeatmapWidget* crossHeatmap_ = nullptr;
    views::ExploreLinesView* crossLines_ = nullptr;
    views::ExploreTilesView* tiles_ = nullptr;
    QLabel* status_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QString lastMessage_;
    QSet<QWidget*> staleViews_;  // view tabs drawn from an older result
    std::vector<std::function<void()>> retranslators_;
    ExportFlow* exportFlow_ = nullptr;
    int shownHead_ = 0;

    QMenu* fileMenu_ = nullptr;
    QMenu* editMenu_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QAction* openAction_ = nullptr;
    QAction* saveAction_ = nullptr;
    QAction* saveAsAction_ = nullptr;
    QAction* closeAction_ = nullptr;
    QMenu* exportMenu_ = nullptr;
    QAction* exportHeadAction_ = nullptr;
    QAction* exportAllHeadsAction_ = nullptr;
    QAction* undoAction_ = nullptr;
    QAction* redoAction_ = nullptr;
    QAction* resetAction_ = nullptr;
};
