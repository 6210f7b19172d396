// ModelWindow: a real model's attention. Opens a GPT-2 folder from the Hugging Face Hub (or a
// model already in the Hugging Face cache, or a recent one) or an attention dump computed
// elsewhere, and shows, for the user's text: the tokens as the model split them, every layer ×
// head as a small heatmap (views/model_heads_mosaic.h), the chosen head large with the arithmetic
// of every cell on hover (a StepPage of attn::model_layer_step, as the walkthrough's heads), the
// chosen layer's heads as lines between tokens, the next-token probabilities, and generation one
// token at a time through the kv_cache. The work runs in ModelSession, off the UI thread.
#pragma once

#include <QMainWindow>
#include <QString>
#include <memory>

#include "app/gui/model_session.h"
#include "views/figure_render.h"

class ExportFlow;
class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class ThreadsMenu;
class QListWidget;
class QMenu;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QSplitter;
class QStackedWidget;
class QTabWidget;

namespace views {
class ExploreLinesView;
class HeatmapWidget;
class ModelHeadsMosaic;
class NeuronView;
class NextTokenChart;
class StepPage;
class TokenStrip;
}  // namespace views

class ModelWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit ModelWindow(QWidget* parent = nullptr);
    ~ModelWindow() override;

    // The model window of `owner` (created on first use as its child window), shown and raised.
    static ModelWindow* showFor(QWidget* owner);

    ModelSession* session() const { return session_; }
    // Which page is up: the welcome page (no model: how to get one), loading, or the model.
    enum class Page { Welcome, Loading, Model };
    Page page() const;

    void openModel(const QString& nameOrFolder) { session_->openModel(nameOrFolder); }
    void openDump(const QString& path) { session_->openDump(path); }
    void setText(const QString& text);

    // The head shown large (0-based); the mosaic's selection.
    void selectHead(int layer, int head);
    int selectedLayer() const { return layer_; }
    int selectedHead() const { return head_; }

    // The pieces, for tests.
    QLineEdit* textEdit() const { return text_; }
    views::TokenStrip* tokenStrip() const { return tokens_; }
    views::ModelHeadsMosaic* mosaic() const { return mosaic_; }
    views::StepPage* headPage() const { return headPage_; }
    views::ExploreLinesView* linesView() const { return lines_; }
    views::NextTokenChart* nextTokenChart() const { return chart_; }
    QTabWidget* viewTabs() const { return tabs_; }
    QListWidget* cachedModelsList() const { return cached_; }
    QProgressBar* progressBar() const { return progress_; }
    QPushButton* cancelButton() const { return cancel_; }
    QLabel* cacheLabel() const { return cacheLabel_; }
    QPushButton* generateButton() const { return generate_; }

    // Encoders (model_window_encoder.cpp): the second sentence, the pair filter and [CLS]/[SEP]
    // switch of the mosaic and head view, the masked LM's fillers, and the padded batch of the
    // two sentences; and for every model, under the mosaic, the neuron view of a head view cell.
    QLineEdit* pairEdit() const { return pair_; }
    void setPair(const QString& pair);
    QComboBox* pairFilterBox() const { return pairFilter_; }
    QCheckBox* hideSpecialsBox() const { return hideSpecials_; }
    attn::EncoderViewOptions encoderOptions() const;
    views::NeuronView* neuronView() const { return neuron_; }
    // The neuron view of the head view's cell (row, column) as drawn (specials hidden or not);
    // pinned: hovering other cells leaves it until the next click.
    void showNeuron(int row, int column, bool pinned = false);
    views::NextTokenChart* fillersChart() const { return fillers_; }
    QComboBox* maskPositionBox() const { return maskPosition_; }
    // The position (0-based) whose fillers the chart shows; -1 when there is no [MASK].
    int shownMaskPosition() const;
    views::HeatmapWidget* paddedHeatmap(int sequence) const;
    views::HeatmapWidget* paddingMaskHeatmap() const { return paddingMask_; }
    QLabel* paddingLabel() const { return paddingText_; }
    // The tabs: 0 head, 1 lines, 2 next token (decoders), 3 masked LM and 4 padding (encoders).
    enum Tab { HeadTab, LinesTab, NextTokenTab, MaskedLmTab, PaddingTab };
    QString lastMessage() const { return lastMessage_; }
    // The error shown above the page, empty when there is none.
    QString shownError() const;
    // The menus' actions with their keys (tests/app/test_shortcuts.cpp checks they are unique).
    QList<QAction*> windowActions() const;

    // File ▸ Export's flow, shared with every window (dialog, remembered choices and folder under
    // "model/export", replace question, report).
    ExportFlow* exportFlow() const { return exportFlow_; }
    // Exports without dialogs (the dialogs end here). The format follows options.format; the
    // layer figure draws every head of the selected layer in one figure.
    bool exportHead(const QString& path, const views::FigureOptions& options, QString* error);
    bool exportLayer(const QString& path, const views::FigureOptions& options, QString* error);
    bool exportNextTokens(const QString& path, views::FigureFormat format, QString* error);

    void fitToScreen();

protected:
    void changeEvent(QEvent* event) override;

public slots:
    // File ▸ Open model folder…: a folder dialog, then openModel().
    void openModelWithDialog();
    void openDumpWithDialog();
    void openGgufWithDialog();

private:
    // Tokens the "Generate" button with a count adds.
    static constexpr int kGenerateMany = 10;

    void buildMenus();
    QWidget* buildWelcomePage();
    QWidget* buildLoadingPage();
    QWidget* buildModelPage();
    void retranslate();
    void refreshWelcome();
    void refreshRecentMenu();
    void refreshCachedMenu();
    void updateView();
    void updateHeadPage();
    void updateLines();
    void updateGenerationControls();
    void showMessage(const QString& message, bool error = false);
    void updateTextPlaceholder();
    QWidget* buildPairRow(QWidget* page);
    void buildEncoderTabs();
    void retranslateEncoder();
    void updateEncoderControls();
    void updateFillers();
    void updatePadding();
    void connectHeadPage();
    void refreshNeuron();
    // The head view's shown row or column as a position of the text.
    int positionOf(int shownIndex) const;
    enum class ExportKind { Head, Layer, NextTokens };
    void exportWithDialog(ExportKind kind);
    // The bytes of an export's file in options.format (the chart: PNG, SVG, PDF or CSV).
    bool renderHead(const views::FigureOptions& options, QByteArray* bytes, QString* error);
    bool renderLayer(const views::FigureOptions& options, QByteArray* bytes, QString* error);
    bool renderNextTokens(const views::FigureOptions& options, QByteArray* bytes, QString* error);
    // The selected layer as a walkthrough-like record (with the hover arithmetic when the
    // session's forward pass kept queries and keys).
    attn::Step layerStep() const;

    ModelSession* session_ = nullptr;
    ExportFlow* exportFlow_ = nullptr;
    int layer_ = 0;
    int head_ = 0;
    QString lastMessage_;

    QStackedWidget* pages_ = nullptr;
    QLabel* errorBanner_ = nullptr;
    // Welcome
    QLabel* welcomeText_ = nullptr;
    QLabel* cachedHeading_ = nullptr;
    QListWidget* cached_ = nullptr;
    QLabel* recentHeading_ = nullptr;
    QListWidget* recent_ = nullptr;
    QPushButton* welcomeOpen_ = nullptr;
    QPushButton* welcomeDump_ = nullptr;
    // Loading
    QLabel* loadingText_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QPushButton* cancel_ = nullptr;
    // Model
    QLabel* summary_ = nullptr;
    QLabel* textLabel_ = nullptr;
    QLineEdit* text_ = nullptr;
    QLabel* tokenCount_ = nullptr;
    views::TokenStrip* tokens_ = nullptr;
    QSplitter* splitter_ = nullptr;
    bool splitterSized_ = false;
    QSplitter* leftSplit_ = nullptr;  // the mosaic above the neuron view
    bool leftSplitSized_ = false;     // the mosaic's height given once per model
    QLabel* mosaicHeading_ = nullptr;
    QLabel* rangeLabel_ = nullptr;
    QComboBox* range_ = nullptr;
    views::ModelHeadsMosaic* mosaic_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QWidget* headTab_ = nullptr;
    views::StepPage* headPage_ = nullptr;
    views::ExploreLinesView* lines_ = nullptr;
    views::NextTokenChart* chart_ = nullptr;
    QPushButton* generate_ = nullptr;
    QPushButton* generateMany_ = nullptr;
    QPushButton* stop_ = nullptr;
    QPushButton* reset_ = nullptr;
    QLabel* cacheLabel_ = nullptr;
    // Encoders
    QWidget* pairRow_ = nullptr;
    QLabel* pairLabel_ = nullptr;
    QLineEdit* pair_ = nullptr;
    QLabel* pairFilterLabel_ = nullptr;
    QComboBox* pairFilter_ = nullptr;
    QCheckBox* hideSpecials_ = nullptr;
    views::NeuronView* neuron_ = nullptr;
    bool neuronPinned_ = false;
    QWidget* maskedLmTab_ = nullptr;
    QLabel* maskedLmText_ = nullptr;
    QLabel* maskPositionLabel_ = nullptr;
    QComboBox* maskPosition_ = nullptr;
    views::NextTokenChart* fillers_ = nullptr;
    QWidget* paddingTab_ = nullptr;
    QLabel* paddingIntro_ = nullptr;
    QLabel* paddingText_ = nullptr;
    QLabel* paddedCaption_[2] = {nullptr, nullptr};
    views::HeatmapWidget* padded_[2] = {nullptr, nullptr};
    QLabel* paddingMaskCaption_ = nullptr;
    views::HeatmapWidget* paddingMask_ = nullptr;

    QMenu* fileMenu_ = nullptr;
    QMenu* cachedMenu_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QMenu* exportMenu_ = nullptr;
    QMenu* generateMenu_ = nullptr;
    ThreadsMenu* threadsMenu_ = nullptr;
    QAction* openAction_ = nullptr;
    QAction* openDumpAction_ = nullptr;
    QAction* openGgufAction_ = nullptr;
    QAction* exportHeadAction_ = nullptr;
    QAction* exportLayerAction_ = nullptr;
    QAction* exportChartAction_ = nullptr;
    QAction* closeAction_ = nullptr;
    QAction* generateAction_ = nullptr;
    QAction* generateManyAction_ = nullptr;
    QAction* stopAction_ = nullptr;
    QAction* resetAction_ = nullptr;
};
