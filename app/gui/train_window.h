// TrainWindow: training a small transformer while the learner watches its heads learn. The task
// (copying a repeated random sequence, the induction task, or a text: the bundled "The Verdict" or
// a file), the preset (attn-only-1l, attn-only-2l, gpt-2l), the seed and the learning rate; Start,
// Pause, Step, Reset and saving the model as a GPT-2 folder the model window opens. Live: the
// loss of every step (the phase change shows as a sudden drop), every head's attention on a fixed
// probe [BOS] r r as small multiples (views/model_heads_mosaic.h) with the chosen head large and
// its q·k arithmetic on hover (a StepPage of attn::model_layer_step, as in the model window),
// each head's previous-token and induction scores over the steps, a timeline that scrubs back
// through the snapshots (the heads and the curves' marker follow it), the text task's latest
// sample, and a guide written from the run's numbers. The trainer runs in TrainSession, on a
// worker thread; the UI thread only draws.
//
// Keys (the Training menu's actions, listed in the guide): Space starts or pauses; → and
// PageDown train one step when the timeline is on the newest snapshot, else show the next
// snapshot; ← and PageUp the previous snapshot; Home and End the first and the newest.
#pragma once

#include <QList>
#include <QMainWindow>
#include <QString>
#include <memory>
#include <utility>

#include "app/gui/train_session.h"

class QAction;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QPushButton;
class QSlider;
class QSpinBox;
class QSplitter;
class QTextBrowser;
class QTimer;
class ThreadsMenu;

namespace views {
class ModelHeadsMosaic;
class StepPage;
class TrainChart;
}  // namespace views

class TrainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit TrainWindow(QWidget* parent = nullptr);
    ~TrainWindow() override;

    // The Train window of `owner` (created on first use as its child window), shown and raised.
    static TrainWindow* showFor(QWidget* owner);
    void fitToScreen();

    TrainSession* session() const { return session_; }

    // The task combo's entries.
    enum class TaskChoice { Induction, BundledText, FileText };
    // Chooses the task, preset, seed and learning rate (0: the preset's) and resets with them.
    // A FileText task reads `textFile`; false with the message shown when it cannot be read.
    bool applySettings(TaskChoice task, const QString& preset, int seed, double lr,
                       const QString& textFile = QString());
    void startOrPause();
    void stepForward();   // → / PageDown
    void stepBackward();  // ← / PageUp
    void showFirst();     // Home
    void showNewest();    // End
    void resetTraining();
    // Saves the model as it is now (between two steps) as a GPT-2 folder; the result comes with
    // TrainSession::saved and shows in the status bar.
    void saveTo(const QString& folder);

    // The snapshot the views show (index into session()->snapshots()), -1 before the first.
    int shownSnapshot() const { return shown_; }
    void showSnapshot(int index);
    void selectHead(int layer, int head);
    int selectedLayer() const { return layer_; }
    int selectedHead() const { return head_; }

    // The pieces, for tests.
    views::TrainChart* lossChart() const { return lossChart_; }
    views::TrainChart* previousTokenChart() const { return previousChart_; }
    views::TrainChart* inductionChart() const { return inductionChart_; }
    views::ModelHeadsMosaic* mosaic() const { return mosaic_; }
    views::StepPage* headPage() const { return headPage_; }
    QSlider* timeline() const { return timeline_; }
    QLabel* timelineLabel() const { return timelineLabel_; }
    QPlainTextEdit* sampleView() const { return sample_; }
    QTextBrowser* guide() const { return guide_; }
    QLabel* statusLabel() const { return status_; }
    QComboBox* taskCombo() const { return task_; }
    QComboBox* presetCombo() const { return preset_; }
    QPushButton* startButton() const { return start_; }
    QString lastMessage() const { return lastMessage_; }
    // The actions with keys (tests/app/test_train_window.cpp checks they are unique), and the
    // keys as (keys, what they do) for the guide.
    QList<QAction*> windowActions() const;
    QList<std::pair<QString, QString>> keyboardShortcuts() const;

protected:
    void changeEvent(QEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    // A closed window does not train on in the background: closing pauses.
    void closeEvent(QCloseEvent* event) override;

private:
    using Settings = TrainSession::Settings;

    void buildMenus();
    void sizeSplits();
    QWidget* buildControls();
    QWidget* buildViews();
    void retranslate();
    void fillTaskCombo();
    void chooseTask(int index);
    Settings currentSettings() const;
    void settingsEdited();
    void onResetDone();
    void onProgressed();
    void updateControls();
    void updateCharts();
    void updateScoreCharts();
    void updateSnapshotViews();
    void updateHeadPage();
    void updateSample();
    void updateGuide();
    void updateStatus();
    void showMessage(const QString& message, bool error = false);
    void saveWithDialog();

    TrainSession* session_ = nullptr;
    QString textFile_;       // the FileText task's file
    QString fileText_;       // and its text
    int shown_ = -1;         // shown snapshot
    bool following_ = true;  // the timeline follows the newest snapshot
    std::shared_ptr<const TrainSession::Snapshot> headPageSnapshot_;  // what headPage_ shows
    // While training runs, the large head is rebuilt at most once a second (a page replaced
    // faster never settles on screen); the timer brings it up to date.
    QTimer* headPageTimer_ = nullptr;
    std::shared_ptr<const TrainSession::Snapshot> mosaicSnapshot_;  // what mosaic_ shows
    qint64 headPageBuiltMs_ = 0;
    int layer_ = 0, head_ = 0;  // the head shown large
    int lossPoints_ = 0;        // losses already in the loss chart
    QString lastMessage_;
    qint64 rateStartMs_ = 0;          // steps per second: since this time …
    std::int64_t rateStartStep_ = 0;  // … and this step
    double stepsPerSecond_ = 0.0;

    // Controls
    QLabel* taskLabel_ = nullptr;
    QComboBox* task_ = nullptr;
    QLabel* presetLabel_ = nullptr;
    QComboBox* preset_ = nullptr;
    QLabel* seedLabel_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QLabel* lrLabel_ = nullptr;
    QDoubleSpinBox* lr_ = nullptr;
    QPushButton* start_ = nullptr;
    QPushButton* step_ = nullptr;
    QPushButton* reset_ = nullptr;
    QPushButton* save_ = nullptr;
    QLabel* status_ = nullptr;
    // Views
    QSplitter* splitter_ = nullptr;
    QSplitter* headsSplitter_ = nullptr;
    bool splitsSized_ = false;
    bool userSplit_ = false;  // the learner dragged a split: it stays as they left it
    int sizedLayers_ = -1;    // the mosaic's layers when the splits were last sized
    views::TrainChart* lossChart_ = nullptr;
    views::TrainChart* previousChart_ = nullptr;
    views::TrainChart* inductionChart_ = nullptr;
    QLabel* headsHeading_ = nullptr;
    views::ModelHeadsMosaic* mosaic_ = nullptr;
    QWidget* headBox_ = nullptr;
    views::StepPage* headPage_ = nullptr;
    QLabel* sampleHeading_ = nullptr;
    QPlainTextEdit* sample_ = nullptr;
    QTextBrowser* guide_ = nullptr;
    QLabel* timelineHeading_ = nullptr;
    QSlider* timeline_ = nullptr;
    QLabel* timelineLabel_ = nullptr;
    // Menus
    QMenu* fileMenu_ = nullptr;
    QMenu* trainMenu_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    ThreadsMenu* threadsMenu_ = nullptr;
    QAction* saveAction_ = nullptr;
    QAction* closeAction_ = nullptr;
    QAction* startAction_ = nullptr;
    QAction* stepAction_ = nullptr;
    QAction* resetAction_ = nullptr;
    QAction* backAction_ = nullptr;
    QAction* firstAction_ = nullptr;
    QAction* newestAction_ = nullptr;
};
