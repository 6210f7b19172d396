#include "app/gui/train_window.h"

#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>

#include "app/gui/threads_menu.h"
#include "app/gui/train_guide.h"
#include "app/gui/window_geometry.h"
#include "app/io/train_data.h"
#include "views/number_text.h"
#include "views/train_chart.h"

TrainWindow::TrainWindow(QWidget* parent) : QMainWindow(parent) {
    setAttribute(Qt::WA_DeleteOnClose, false);
    setWindowFlag(Qt::Window);
    session_ = new TrainSession(this);
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->addWidget(buildControls());
    layout->addWidget(buildViews(), 1);
    setCentralWidget(central);
    buildMenus();

    connect(session_, &TrainSession::resetDone, this, &TrainWindow::onResetDone);
    connect(session_, &TrainSession::progressed, this, &TrainWindow::onProgressed);
    connect(session_, &TrainSession::runningChanged, this, [this](bool running) {
        if (running) {
            rateStartMs_ = QDateTime::currentMSecsSinceEpoch();
            rateStartStep_ = session_->stepsDone();
        }
        updateControls();
    });
    connect(session_, &TrainSession::failed, this,
            [this](const QString& message) { showMessage(message, true); });
    connect(
        session_, &TrainSession::saved, this, [this](const QString& folder, const QString& error) {
            if (!error.isEmpty()) {
                showMessage(
                    tr("Could not save %1: %2").arg(QDir::toNativeSeparators(folder), error), true);
                return;
            }
            showMessage(tr("Saved to %1: the model window opens it (File ▸ Open model "
                           "folder…).")
                            .arg(QDir::toNativeSeparators(folder)));
        });

    retranslate();
    session_->reset(currentSettings());
    updateControls();
}

TrainWindow::~TrainWindow() = default;

TrainWindow* TrainWindow::showFor(QWidget* owner) {
    TrainWindow* window =
        owner ? owner->findChild<TrainWindow*>(QString(), Qt::FindDirectChildrenOnly) : nullptr;
    if (!window) window = new TrainWindow(owner);
    window->show();
    window->fitToScreen();
    window->raise();
    window->activateWindow();
    return window;
}

void TrainWindow::fitToScreen() { fitWindowToScreen(this, QSize(1700, 980)); }

void TrainWindow::buildMenus() {
    fileMenu_ = menuBar()->addMenu(QString());
    saveAction_ = fileMenu_->addAction(QString(), this, &TrainWindow::saveWithDialog);
    saveAction_->setShortcut(QKeySequence::Save);
    fileMenu_->addSeparator();
    closeAction_ = fileMenu_->addAction(QString(), this, &QWidget::close);
    closeAction_->setShortcut(QKeySequence::Close);

    // The presentation keys of the walkthrough (app/gui/presentation_mode.h): Space, the
    // clicker's → / PageDown and ← / PageUp, Home and End.
    trainMenu_ = menuBar()->addMenu(QString());
    startAction_ = trainMenu_->addAction(QString(), this, &TrainWindow::startOrPause);
    startAction_->setShortcut(QKeySequence(Qt::Key_Space));
    stepAction_ = trainMenu_->addAction(QString(), this, &TrainWindow::stepForward);
    stepAction_->setShortcuts({QKeySequence(Qt::Key_Right), QKeySequence(Qt::Key_PageDown)});
    resetAction_ = trainMenu_->addAction(QString(), this, &TrainWindow::resetTraining);
    resetAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    trainMenu_->addSeparator();
    threadsMenu_ = new ThreadsMenu(trainMenu_, this);

    viewMenu_ = menuBar()->addMenu(QString());
    backAction_ = viewMenu_->addAction(QString(), this, &TrainWindow::stepBackward);
    backAction_->setShortcuts({QKeySequence(Qt::Key_Left), QKeySequence(Qt::Key_PageUp)});
    firstAction_ = viewMenu_->addAction(QString(), this, &TrainWindow::showFirst);
    firstAction_->setShortcut(QKeySequence(Qt::Key_Home));
    newestAction_ = viewMenu_->addAction(QString(), this, &TrainWindow::showNewest);
    newestAction_->setShortcut(QKeySequence(Qt::Key_End));
    // The keys work wherever the focus is in the window, also with the menus closed.
    addActions(windowActions());
}

QList<QAction*> TrainWindow::windowActions() const {
    return {saveAction_,  closeAction_, startAction_, stepAction_,
            resetAction_, backAction_,  firstAction_, newestAction_};
}

QList<std::pair<QString, QString>> TrainWindow::keyboardShortcuts() const {
    QList<std::pair<QString, QString>> rows;
    for (const QAction* a : windowActions()) {
        QStringList keys;
        for (const QKeySequence& key : a->shortcuts())
            keys << key.toString(QKeySequence::NativeText);
        QString what = a->text();
        what.remove(QRegularExpression(QStringLiteral("\\(&.\\)|&")));
        rows.append({keys.join(QStringLiteral(" / ")), what});
    }
    return rows;
}

void TrainWindow::retranslate() {
    setWindowTitle(tr("Attention Visualizer — train a model"));
    fileMenu_->setTitle(tr("&File"));
    saveAction_->setText(tr("&Save as GPT-2 folder…"));
    closeAction_->setText(tr("&Close"));
    trainMenu_->setTitle(tr("T&raining"));
    startAction_->setText(tr("&Start or pause"));
    stepAction_->setText(tr("One training s&tep (looking back: the next snapshot)"));
    resetAction_->setText(tr("&Reset to step 0 with the chosen settings"));
    threadsMenu_->retranslate();
    viewMenu_->setTitle(tr("T&imeline"));
    backAction_->setText(tr("&Previous snapshot"));
    firstAction_->setText(tr("&First snapshot (step 0)"));
    newestAction_->setText(tr("&Newest snapshot"));
    taskLabel_->setText(tr("&Task:"));
    fillTaskCombo();
    presetLabel_->setText(tr("&Model:"));
    seedLabel_->setText(tr("S&eed:"));
    lrLabel_->setText(tr("&Learning rate:"));
    lr_->setSpecialValueText(tr("the model's own"));
    step_->setText(tr("Step"));
    step_->setToolTip(tr("Train exactly one step (→ or PageDown)"));
    reset_->setText(tr("Reset"));
    reset_->setToolTip(tr("Back to step 0 with the chosen settings (Ctrl+R)"));
    save_->setText(tr("Save as GPT-2 folder…"));
    headsHeading_->setText(
        tr("Every head on the probe (rows: layers, columns: heads); click one "
           "to see it large and point at a cell for its q·k arithmetic"));
    sampleHeading_->setText(tr("What the model writes"));
    timelineHeading_->setText(tr("Timeline:"));
    // The three charts share their steps: only the lowest names its axis.
    lossChart_->setLabels(tr("Loss"), QString(), tr("cross-entropy"));
    previousChart_->setLabels(tr("Previous-token score of each head"), QString(), tr("score"));
    inductionChart_->setLabels(tr("Induction score of each head"), tr("step"), tr("score"));
    updateControls();
    updateScoreCharts();
    updateSnapshotViews();
}

void TrainWindow::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange && fileMenu_) retranslate();
    QMainWindow::changeEvent(event);
}

void TrainWindow::closeEvent(QCloseEvent* event) {
    session_->pause();
    QMainWindow::closeEvent(event);
}

void TrainWindow::fillTaskCombo() {
    const QSignalBlocker block(task_);
    const int index = std::max(0, task_->currentIndex());
    task_->clear();
    task_->addItem(tr("Induction: copy a repeated random sequence"));
    task_->addItem(tr("Text: %1 (Edith Wharton)").arg(attn::bundledTextName()));
    task_->addItem(textFile_.isEmpty() ? tr("Text: a file…")
                                       : tr("Text: %1").arg(QFileInfo(textFile_).fileName()));
    task_->setCurrentIndex(index);
}

TrainSession::Settings TrainWindow::currentSettings() const {
    Settings s;
    const auto choice = static_cast<TaskChoice>(task_->currentIndex());
    s.task = choice == TaskChoice::Induction ? attn::TrainTask::Induction : attn::TrainTask::Text;
    if (choice == TaskChoice::BundledText) {
        s.text = attn::bundledText();
        s.textName = attn::bundledTextName();
    } else if (choice == TaskChoice::FileText) {
        s.text = fileText_;
        s.textName = QFileInfo(textFile_).fileName();
    }
    s.preset = preset_->currentText();
    s.seed = static_cast<std::uint64_t>(seed_->value());
    s.lr = static_cast<float>(lr_->value());
    return s;
}

void TrainWindow::chooseTask(int index) {
    if (static_cast<TaskChoice>(index) == TaskChoice::FileText) {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("A text to train on"), QDir::homePath(), tr("Text files (*.txt);;All (*)"));
        if (path.isEmpty() || !applySettings(TaskChoice::FileText, preset_->currentText(),
                                             seed_->value(), lr_->value(), path)) {
            const QSignalBlocker block(task_);
            task_->setCurrentIndex(static_cast<int>(
                session_->settings().task == attn::TrainTask::Induction ? TaskChoice::Induction
                                                                        : TaskChoice::BundledText));
        }
        return;
    }
    settingsEdited();
}

bool TrainWindow::applySettings(TaskChoice task, const QString& preset, int seed, double lr,
                                const QString& textFile) {
    if (task == TaskChoice::FileText) {
        const attn::TrainTextResult read = attn::readTrainText(textFile);
        if (!read.ok()) {
            showMessage(read.error, true);
            return false;
        }
        textFile_ = textFile;
        fileText_ = read.text;
        fillTaskCombo();
    }
    const QSignalBlocker a(task_), b(preset_), c(seed_), d(lr_);
    task_->setCurrentIndex(static_cast<int>(task));
    const int presetIndex = preset_->findText(preset);
    if (presetIndex >= 0) preset_->setCurrentIndex(presetIndex);
    seed_->setValue(seed);
    lr_->setValue(lr);
    resetTraining();
    return true;
}

void TrainWindow::settingsEdited() {
    // Before the first step nothing is lost: the new settings apply at once. Later, Reset applies
    // them, so a slip of the mouse does not throw a run away.
    if (session_->stepsDone() == 0 && !session_->running()) {
        resetTraining();
        return;
    }
    showMessage(tr("Reset applies the new settings (the run so far is kept until then)."));
    updateControls();
}

void TrainWindow::resetTraining() {
    session_->reset(currentSettings());
    shown_ = -1;
    following_ = true;
    updateControls();
}

void TrainWindow::startOrPause() {
    if (session_->running())
        session_->pause();
    else
        session_->start();
}

void TrainWindow::stepForward() {
    const int last = static_cast<int>(session_->snapshots().size()) - 1;
    if (shown_ >= 0 && shown_ < last) {
        showSnapshot(shown_ + 1);
        return;
    }
    following_ = true;
    session_->stepOnce();
}

void TrainWindow::stepBackward() {
    if (shown_ > 0) showSnapshot(shown_ - 1);
}

void TrainWindow::showFirst() { showSnapshot(0); }

void TrainWindow::showNewest() { showSnapshot(static_cast<int>(session_->snapshots().size()) - 1); }

void TrainWindow::saveTo(const QString& folder) { session_->save(folder); }

void TrainWindow::saveWithDialog() {
    const Settings& s = session_->settings();
    const QString name =
        QStringLiteral("%1-%2-step%3")
            .arg(s.preset, s.task == attn::TrainTask::Induction ? QStringLiteral("induction")
                                                                : QStringLiteral("text"))
            .arg(session_->stepsDone());
    const QString folder = QFileDialog::getSaveFileName(
        this, tr("Save the model as a GPT-2 folder"), QDir::home().filePath(name));
    if (!folder.isEmpty()) saveTo(folder);
}

void TrainWindow::showMessage(const QString& message, bool error) {
    lastMessage_ = message;
    statusBar()->showMessage(message, error ? 0 : 8000);
}
