#include "app/gui/explore_window.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <set>

#include "app/gui/export_flow.h"
#include "model/explain_attention.h"
#include "model/number_format.h"
#include "views/explore_heads_grid.h"
#include "views/explore_kv_stepper.h"
#include "views/explore_lines_view.h"
#include "views/explore_parameter_panel.h"
#include "views/explore_tiles_view.h"
#include "views/explore_token_model.h"
#include "views/explore_weight_editor.h"
#include "views/explore_weight_split.h"
#include "views/heatmap_widget.h"
#include "views/number_text.h"

ExploreWindow::ExploreWindow(QWidget* parent) : QMainWindow(parent) {
    session_ = new ExploreSession(this);
    exportFlow_ =
        new ExportFlow(this, QStringLiteral("explore/export"),
                       [this](const QString& message, bool error) { showMessage(message, error); });
    inputsModel_ = new views::ExploreTokenModel(this);
    sourceModel_ = new views::ExploreTokenModel(this);

    // Left: what the user edits. Right: what the engine made of it.
    auto* splitter = new QSplitter(this);
    auto* left = new QWidget(splitter);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(4, 4, 4, 4);
    editTabs_ = new QTabWidget(left);
    editTabs_->addTab(buildTokenEditor(ExploreSide::Inputs, inputsModel_, &inputsView_), QString());
    sourceEditor_ = buildTokenEditor(ExploreSide::Source, sourceModel_, &sourceView_);
    editTabs_->addTab(sourceEditor_, QString());
    leftLayout->addWidget(editTabs_, 3);
    panel_ = new views::ExploreParameterPanel(left);
    auto* panelScroll = new QScrollArea(left);
    panelScroll->setWidget(panel_);
    panelScroll->setWidgetResizable(true);
    panelScroll->setFrameShape(QFrame::NoFrame);
    // Only a tall panel scrolls: the column keeps room for the panel and its vertical scroll bar,
    // and the per-head switches wrap, so nothing is cut off at the right.
    panelScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    panelScroll_ = panelScroll;
    leftLayout->addWidget(panelScroll, 4);

    tabs_ = new QTabWidget(splitter);
    grid_ = new views::ExploreHeadsGrid(tabs_);
    tabs_->addTab(grid_, QString());
    output_ = new views::HeatmapWidget(tabs_);
    output_->setColorMap(QStringLiteral("diverging"));
    tabs_->addTab(output_, QString());
    weightEditor_ = new views::ExploreWeightEditor(tabs_);
    tabs_->addTab(weightEditor_, QString());
    lines_ = new views::ExploreLinesView(tabs_);
    tabs_->addTab(lines_, QString());
    split_ = new views::ExploreWeightSplit(tabs_);
    tabs_->addTab(split_, QString());
    crossTab_ = new QWidget(tabs_);
    {
        auto* layout = new QVBoxLayout(crossTab_);
        auto* top = new QHBoxLayout;
        crossNote_ = new QLabel(crossTab_);
        crossNote_->setWordWrap(true);
        crossHead_ = new QSpinBox(crossTab_);
        crossHead_->setMinimum(1);
        top->addWidget(crossNote_, 1);
        top->addWidget(crossHead_);
        layout->addLayout(top);
        auto* body = new QHBoxLayout;
        crossHeatmap_ = new views::HeatmapWidget(crossTab_);
        crossLines_ = new views::ExploreLinesView(crossTab_);
        body->addWidget(crossHeatmap_, 1);
        body->addWidget(crossLines_, 1);
        layout->addLayout(body, 1);
        connect(crossHead_, &QSpinBox::valueChanged, this, [this](int head) {
            shownHead_ = head - 1;
            updateCross();
        });
    }
    tabs_->addTab(crossTab_, QString());
    kvStepper_ = new views::ExploreKvStepper(tabs_);
    tabs_->addTab(kvStepper_, QString());
    tiles_ = new views::ExploreTilesView(tabs_);
    tabs_->addTab(tiles_, QString());
    connect(tiles_, &views::ExploreTilesView::tilingChanged, this, [this] { updateTiles(); });
    connect(tiles_->headBox(), &QSpinBox::valueChanged, this,
            [this](int head) { shownHead_ = head - 1; });
    // Views are brought up to date when their tab is shown (the stepper reruns decode_step for
    // every token): an edit redraws only what the user sees.
    connect(tabs_, &QTabWidget::currentChanged, this, [this] { updateCurrentView(); });
    splitter->addWidget(left);
    splitter->addWidget(tabs_);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 5);
    splitter->setSizes({430, 1000});
    setCentralWidget(splitter);

    status_ = new QLabel(this);
    status_->setWordWrap(true);
    cancel_ = new QPushButton(this);
    cancel_->hide();
    statusBar()->addWidget(status_, 1);
    statusBar()->addPermanentWidget(cancel_);
    connect(cancel_, &QPushButton::clicked, session_, &ExploreSession::cancel);

    connect(inputsModel_, &views::ExploreTokenModel::tokenEdited, this,
            [this](int row, const QString& t) { session_->setToken(ExploreSide::Inputs, row, t); });
    connect(inputsModel_, &views::ExploreTokenModel::embeddingEdited, this,
            [this](int row, int col, float v) {
                session_->setEmbedding(ExploreSide::Inputs, row, col, v);
            });
    connect(sourceModel_, &views::ExploreTokenModel::tokenEdited, this,
            [this](int row, const QString& t) { session_->setToken(ExploreSide::Source, row, t); });
    connect(sourceModel_, &views::ExploreTokenModel::embeddingEdited, this,
            [this](int row, int col, float v) {
                session_->setEmbedding(ExploreSide::Source, row, col, v);
            });
    connect(panel_, &views::ExploreParameterPanel::configEdited, session_,
            &ExploreSession::setConfig);
    connect(panel_, &views::ExploreParameterPanel::dInEdited, session_,
            &ExploreSession::setEmbeddingWidth);
    connect(weightEditor_, &views::ExploreWeightEditor::weightEdited, session_,
            &ExploreSession::setWeight);
    connect(weightEditor_, &views::ExploreWeightEditor::resetRequested, session_,
            &ExploreSession::clearWeightEdits);
    connect(inputsView_, &QTableView::entered, this,
            [this](const QModelIndex& index) { grid_->highlightRow(index.row()); });
    connect(lines_, &views::ExploreLinesView::tokenHovered, this,
            [this](views::ExploreLinesView::Side side, int index) {
                grid_->highlightRow(side == views::ExploreLinesView::Side::Left ? index : -1);
            });
    connect(grid_, &views::ExploreHeadsGrid::sentenceChanged, this, [this] { updateHeadsGrid(); });
    connect(grid_, &views::ExploreHeadsGrid::rowHovered, this, [this](int row) {
        if (row >= 0 && row < inputsModel_->rowCount()) inputsView_->selectRow(row);
    });

    connect(session_, &ExploreSession::stateChanged, this, &ExploreWindow::updateFromState);
    connect(session_, &ExploreSession::resultChanged, this, &ExploreWindow::updateFromResult);
    connect(session_, &ExploreSession::errorChanged, this, [this](const QString& error) {
        panel_->setError(error);
        showMessage(error.isEmpty() ? QString()
                                    : tr("Not computed: %1 — the views show the last valid "
                                         "result.")
                                          .arg(error));
    });
    connect(session_, &ExploreSession::busyChanged, this, [this](bool busy) {
        cancel_->setVisible(busy);
        if (busy)
            showMessage(tr("Computing %n token(s) in the background…", nullptr,
                           static_cast<int>(session_->state().inputs.embeddings.rows())));
        else if (session_->error().isEmpty())
            showMessage(QString());
    });
    connect(session_, &ExploreSession::filePathChanged, this, [this] { retranslate(); });

    buildMenus();
    retranslate();
    updateFromState();
    updateFromResult();
    connect(tabs_, &QTabWidget::currentChanged, this, &ExploreWindow::updateDropoutNote);
    fitToScreen();
}

ExploreWindow::~ExploreWindow() = default;

ExploreWindow* ExploreWindow::showFor(QWidget* owner) {
    ExploreWindow* window =
        owner ? owner->findChild<ExploreWindow*>(QString(), Qt::FindDirectChildrenOnly) : nullptr;
    if (!window) window = new ExploreWindow(owner);
    window->show();
    window->fitToScreen();  // again, now that the window is framed and on its screen
    window->raise();
    window->activateWindow();
    return window;
}

QWidget* ExploreWindow::buildTokenEditor(ExploreSide side, views::ExploreTokenModel* model,
                                         QTableView** viewOut) {
    auto* box = new QWidget(this);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* view = new QTableView(box);
    view->setModel(model);
    view->setMouseTracking(true);
    view->setSelectionBehavior(QAbstractItemView::SelectItems);
    view->horizontalHeader()->setDefaultSectionSize(66);
    view->verticalHeader()->setDefaultSectionSize(24);
    // Reorder by dragging a row number: the header reports the drag, the session moves the token
    // (one undo step) and the table, rebuilt from the session, shows the new order.
    view->verticalHeader()->setSectionsMovable(true);
    connect(view->verticalHeader(), &QHeaderView::sectionMoved, this,
            [this, side, view](int, int from, int to) {
                QHeaderView* header = view->verticalHeader();
                {
                    const QSignalBlocker block(header);
                    header->moveSection(to, from);  // the sections stay in model order
                }
                const int column = std::max(view->currentIndex().column(), 0);
                session_->moveToken(side, from, to);
                view->setCurrentIndex(view->model()->index(to, column));
            });
    layout->addWidget(view, 1);
    *viewOut = view;

    auto currentRow = [view] {
        const QModelIndex index = view->currentIndex();
        return index.isValid() ? index.row() : -1;
    };
    auto* buttons = new QHBoxLayout;
    auto* add = new QPushButton(box);
    auto* remove = new QPushButton(box);
    auto* up = new QPushButton(box);
    auto* down = new QPushButton(box);
    for (QPushButton* b : {add, remove, up, down}) buttons->addWidget(b);
    layout->addLayout(buttons);
    auto* fill = new QHBoxLayout;
    auto* random = new QPushButton(box);
    auto* seed = new QSpinBox(box);
    seed->setRange(0, 1000000);
    seed->setValue(123);
    auto* paste = new QPushButton(box);
    fill->addWidget(random);
    fill->addWidget(seed);
    fill->addStretch(1);
    fill->addWidget(paste);
    layout->addLayout(fill);

    connect(add, &QPushButton::clicked, this, [this, side, view, currentRow] {
        const int row = currentRow();
        const int at = row >= 0 ? row + 1 : static_cast<int>(view->model()->rowCount());
        session_->insertToken(side, at);
        view->setCurrentIndex(view->model()->index(at, 0));
    });
    connect(remove, &QPushButton::clicked, this, [this, side, currentRow] {
        if (currentRow() >= 0) session_->removeToken(side, currentRow());
    });
    connect(up, &QPushButton::clicked, this, [this, side, view, currentRow] {
        const int row = currentRow();
        if (row <= 0) return;
        const int column = view->currentIndex().column();
        session_->moveToken(side, row, row - 1);
        view->setCurrentIndex(view->model()->index(row - 1, column));
    });
    connect(down, &QPushButton::clicked, this, [this, side, view, currentRow] {
        const int row = currentRow();
        if (row < 0 || row + 1 >= view->model()->rowCount()) return;
        const int column = view->currentIndex().column();
        session_->moveToken(side, row, row + 1);
        view->setCurrentIndex(view->model()->index(row + 1, column));
    });
    connect(random, &QPushButton::clicked, this, [this, side, seed] {
        session_->randomFill(side, static_cast<std::uint64_t>(seed->value()));
    });
    connect(paste, &QPushButton::clicked, this, [this, side] { pasteInto(side); });

    // Texts set here and again on a language change.
    auto retranslateButtons = [=] {
        add->setText(tr("Add"));
        add->setToolTip(tr("Insert a token after the current one"));
        remove->setText(tr("Remove"));
        view->verticalHeader()->setToolTip(tr("Drag a row number to move its token"));
        up->setText(tr("Up"));
        down->setText(tr("Down"));
        random->setText(tr("Random fill, seed"));
        random->setToolTip(tr("Embeddings = torch.rand(T, d_in) after torch.manual_seed(seed)"));
        paste->setText(tr("Paste matrix"));
        paste->setToolTip(
            tr("Replace the embeddings by a matrix copied from a spreadsheet or a "
               "printed tensor"));
    };
    retranslateButtons();
    retranslators_.push_back(retranslateButtons);
    return box;
}

void ExploreWindow::buildMenus() {
    fileMenu_ = menuBar()->addMenu(QString());
    openAction_ = fileMenu_->addAction(QString(), this, &ExploreWindow::openDialog);
    openAction_->setShortcut(QKeySequence::Open);
    recentMenu_ = fileMenu_->addMenu(QString());
    saveAction_ = fileMenu_->addAction(QString(), this, &ExploreWindow::save);
    saveAction_->setShortcut(QKeySequence::Save);
    saveAsAction_ = fileMenu_->addAction(QString(), this, &ExploreWindow::saveAs);
    saveAsAction_->setShortcut(QKeySequence::SaveAs);
    fileMenu_->addSeparator();
    // The model window's keys for the same figures: a head, every head on one page.
    exportMenu_ = fileMenu_->addMenu(QString());
    exportHeadAction_ =
        exportMenu_->addAction(QString(), this, [this] { exportWithDialog(ExportKind::Head); });
    exportHeadAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_E));
    exportAllHeadsAction_ =
        exportMenu_->addAction(QString(), this, [this] { exportWithDialog(ExportKind::AllHeads); });
    exportAllHeadsAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    fileMenu_->addSeparator();
    closeAction_ = fileMenu_->addAction(QString(), this, &QWidget::close);
    closeAction_->setShortcut(QKeySequence::Close);
    connect(recentMenu_, &QMenu::aboutToShow, this, &ExploreWindow::updateRecentMenu);

    editMenu_ = menuBar()->addMenu(QString());
    undoAction_ = session_->undoStack()->createUndoAction(this);
    undoAction_->setShortcut(QKeySequence::Undo);
    redoAction_ = session_->undoStack()->createRedoAction(this);
    redoAction_->setShortcut(QKeySequence::Redo);
    editMenu_->addAction(undoAction_);
    editMenu_->addAction(redoAction_);
    editMenu_->addSeparator();
    resetAction_ = editMenu_->addAction(QString(), this, [this] {
        session_->setState(ExploreSession::defaultState(), tr("Reset to the tutorial example"));
    });
}

void ExploreWindow::fitPanelWidth() {
    panelScroll_->setMinimumWidth(panel_->minimumSizeHint().width() +
                                  panelScroll_->verticalScrollBar()->sizeHint().width());
}

void ExploreWindow::retranslate() {
    const QString file = session_->filePath().isEmpty()
                             ? tr("tutorial example")
                             : QFileInfo(session_->filePath()).fileName();
    setWindowTitle(tr("Explore attention — %1").arg(file));
    editTabs_->setTabText(0, tr("Tokens"));
    editTabs_->setTabText(1, tr("Source (cross-attention)"));
    tabs_->setTabText(tabs_->indexOf(grid_), tr("Heads"));
    tabs_->setTabText(tabs_->indexOf(output_), tr("Output"));
    tabs_->setTabText(tabs_->indexOf(weightEditor_), tr("Weights"));
    tabs_->setTabText(tabs_->indexOf(kvStepper_), tr("KV cache"));
    tabs_->setTabText(tabs_->indexOf(lines_), tr("Lines"));
    tabs_->setTabText(tabs_->indexOf(split_), tr("Weight split"));
    tabs_->setTabText(tabs_->indexOf(crossTab_), tr("Cross-attention"));
    tabs_->setTabText(tabs_->indexOf(tiles_), tr("Tiles"));
    crossHead_->setPrefix(tr("head "));
    output_->setTitle(tr("context_vecs (the module's output)"));
    output_->setAxisTitles(tr("tokens"), tr("output features"));
    cancel_->setText(tr("Cancel"));
    fileMenu_->setTitle(tr("&File"));
    openAction_->setText(tr("&Open example…"));
    recentMenu_->setTitle(tr("Open &recent"));
    saveAction_->setText(tr("&Save"));
    saveAsAction_->setText(tr("Save &as…"));
    exportMenu_->setTitle(tr("&Export"));
    exportHeadAction_->setText(tr("&Head figure…"));
    exportAllHeadsAction_->setText(tr("&All heads as one figure…"));
    closeAction_->setText(tr("&Close explore mode"));
    editMenu_->setTitle(tr("&Edit"));
    resetAction_->setText(tr("Reset to the tutorial example"));
    for (const std::function<void()>& f : retranslators_) f();  // the token editors' buttons
    // The notes of the weight split and cross-attention are written from the result.
    staleViews_.insert(split_);
    staleViews_.insert(crossTab_);
    updateCurrentView();
    fitPanelWidth();  // the labels' widths change with the language
}

void ExploreWindow::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QMainWindow::changeEvent(event);
}

void ExploreWindow::updateFromState() {
    const ExploreState& s = session_->state();
    inputsModel_->setSequence(s.inputs);
    sourceModel_->setSequence(s.source);
    const bool source = s.usesSource();
    editTabs_->setTabEnabled(1, source);
    if (!source && editTabs_->currentIndex() == 1) editTabs_->setCurrentIndex(0);
    const attn::RunResult* r = session_->result().get();
    panel_->setConfig(s.config, s.training, s.inputs.embeddings.cols(),
                      r && session_->error().isEmpty() ? &r->config : nullptr);
    panel_->setHeadsNotice(session_->adjustment());
    if (!session_->adjustment().isEmpty()) showMessage(session_->adjustment(), false);
    updateDropoutNote();
}

void ExploreWindow::updateFromResult() {
    const std::shared_ptr<const attn::RunResult> r = session_->result();
    if (!r || r->output.heads.empty()) return;
    staleViews_.clear();
    for (int i = 0; i < tabs_->count(); ++i) staleViews_.insert(tabs_->widget(i));
    updateCurrentView();
    // The panel shows resolved defaults (e.g. num_heads) once a run has resolved them.
    if (session_->error().isEmpty()) {
        const ExploreState& s = session_->state();
        panel_->setConfig(s.config, s.training, s.inputs.embeddings.cols(), &r->config);
    }
}

void ExploreWindow::updateCurrentView() {
    QWidget* view = tabs_->currentWidget();
    if (!staleViews_.remove(view)) return;
    const std::shared_ptr<const attn::RunResult> r = session_->result();
    if (!r || r->output.heads.empty()) return;
    const ExploreState& from = session_->resultState();
    const QStringList queries = labelsOf(from.inputs);
    const QStringList keys = from.usesSource() ? labelsOf(from.source) : queries;
    const auto headWeights = [&] {
        std::vector<attn::Matrix> weights;
        for (const attn::AttentionResult& head : r->output.heads[0])
            weights.push_back(head.dropped);
        return weights;
    };
    if (view == grid_) {
        updateHeadsGrid();
    } else if (view == output_) {
        const attn::Matrix& out = r->output.context_vecs[0];
        try {
            if (out.rows() > 256) {
                output_->setMatrix(views::downsampleMatrix(out, 256));
                output_->setTooltipProvider({});
            } else {
                output_->setMatrix(out, queries);
                output_->setTooltipProvider([r](int row, int column) {
                    return QString::fromStdString(attn::explain_output(*r, row, column));
                });
            }
        } catch (const attn::AttentionError&) {
            output_->clear();
        }
    } else if (view == weightEditor_) {
        std::set<std::string> edited;
        for (const attn::NamedMatrix& w : from.config.weights) edited.insert(w.name);
        weightEditor_->setWeights(r->weights, edited);
    } else if (view == lines_) {
        lines_->setData(queries, keys, headWeights());
    } else if (view == split_) {
        updateWeightSplit();
    } else if (view == crossTab_) {
        updateCross();
    } else if (view == kvStepper_) {
        updateKvStepper();
    } else if (view == tiles_) {
        updateTiles();
    }
}

void ExploreWindow::pasteInto(ExploreSide side) {
    QString error;
    const QString text = QApplication::clipboard()->text();
    if (!session_->pasteEmbeddings(side, text, &error))
        showMessage(
            tr("Cannot paste: %1").arg(error.isEmpty() ? tr("the clipboard is empty") : error));
}

void ExploreWindow::showMessage(const QString& text, bool problem) {
    lastMessage_ = text;
    status_->setText(text);
    status_->setStyleSheet(text.isEmpty() || !problem ? QString()
                                                      : views::errorStyleSheet(palette()));
}

void ExploreWindow::showStartupMessage(const QString& message) {
    showMessage(message);
    lastMessage_ = message;
}

bool ExploreWindow::openFile(const QString& path, bool quiet) {
    QString error;
    if (session_->openFile(path, &error)) {
        showMessage(QString());
        return true;
    }
    const QString text = tr("%1 was not opened: %2").arg(QDir::toNativeSeparators(path), error);
    showMessage(text);
    if (!quiet) QMessageBox::warning(this, tr("Open example"), text);
    return false;
}

void ExploreWindow::openDialog() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open example"), QFileInfo(session_->filePath()).absolutePath(),
        tr("Attention examples (*.json);;All files (*)"));
    if (!path.isEmpty()) openFile(path);
}

void ExploreWindow::save() {
    if (session_->filePath().isEmpty()) {
        saveAs();
        return;
    }
    QString error;
    if (!session_->saveFile(session_->filePath(), &error))
        QMessageBox::warning(this, tr("Save example"), error);
}

void ExploreWindow::saveAs() {
    QString path = QFileDialog::getSaveFileName(this, tr("Save example"), session_->filePath(),
                                                tr("Attention examples (*.json)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");
    QString error;
    if (!session_->saveFile(path, &error)) QMessageBox::warning(this, tr("Save example"), error);
}

void ExploreWindow::updateRecentMenu() {
    recentMenu_->clear();
    const QStringList files = ExploreSession::recentFiles();
    if (files.isEmpty()) {
        recentMenu_->addAction(tr("(none)"))->setEnabled(false);
        return;
    }
    for (const QString& f : files)
        recentMenu_->addAction(QDir::toNativeSeparators(f), this, [this, f] { openFile(f); });
}
