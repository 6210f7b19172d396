// MainWindow: the guided walkthrough. The step list on the left, the current step's page in the
// centre, Previous/Next below; Left/Right, PageUp/PageDown (presentation clickers) and Home/End
// navigate from anywhere in the window except a text field: on a step with frames (the KV cache)
// one token at a time, then on to the next step. Help > Keyboard shortcuts (F1) lists every key.
// Remembers the last step (QSettings) and switches between English and Simplified Chinese at run
// time. File > Export is ExportActions; presentation mode, reveal and the themes are
// PresentationMode.
#pragma once

#include <QList>
#include <QMainWindow>
#include <QString>
#include <memory>
#include <utility>
#include <vector>

#include "model/walkthrough.h"

class ExportActions;
class PresentationMode;
class QAction;
class QActionGroup;
class QLabel;
class QListWidget;
class QMenu;
class QPushButton;
class QSplitter;
class QStackedWidget;

namespace views {
class StepPage;
class Translation;
}  // namespace views

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    // steps: build_walkthrough()'s records (the tutorial's by default). Opens on the step saved
    // by the last run, or step 1.
    explicit MainWindow(std::vector<attn::Step> steps = attn::build_walkthrough(),
                        QWidget* parent = nullptr);
    ~MainWindow() override;

    int stepCount() const { return static_cast<int>(steps_.size()); }
    int currentStep() const { return current_; }  // 1-based
    // Clamps to 1..stepCount() and remembers the step for the next run. A step with frames opens
    // on its first frame (one token in the cache).
    void goToStep(int number);
    void nextStep() { goToStep(current_ + 1); }
    // The previous step; a step with frames opens on its last, as it was left.
    void previousStep();
    // A clicker's "next" (→, PageDown; Space while presenting): the next frame of a step with
    // frames until its last, then the next step.
    void stepForward();
    // A clicker's "back" (←, PageUp): the previous frame, from the first frame the previous step.
    void stepBackward();

    // Every key of the window for Help > Keyboard shortcuts (F1): its actions' shortcuts and the
    // navigation and presentation keys, as (keys, what they do) in the current language.
    QList<std::pair<QString, QString>> keyboardShortcuts() const;
    void showKeyboardShortcuts();

    // The page of step `number` (1-based), built on first use; nullptr when out of range.
    views::StepPage* page(int number);
    views::StepPage* currentPage() { return page(current_); }
    // The pages built so far, in step order.
    QList<views::StepPage*> builtPages() const;
    QListWidget* stepList() const { return stepList_; }

    // "en" or "zh_CN" ("zh", "zh-CN" accepted). Installs or removes the translator from
    // ":/i18n/attention_visualizer_<code>.qm" and retranslates every widget at once. Returns
    // false (and stays in English) when the translation is missing.
    bool setLanguage(const QString& code);
    QString language() const { return language_; }

    // Number tables under every heatmap (View > Show numbers).
    void setShowNumbers(bool show);
    bool showNumbers() const { return showNumbers_; }

    // Size of the pages' text and heatmaps: 1 = normal, up to 2.5 for a projector, down to 0.6
    // for a small laptop screen (View > Zoom). Remembered between runs. While presenting it sets
    // the presentation's own zoom instead.
    void setZoom(double zoom);
    double zoom() const { return zoom_; }

    // File > Export and a heatmap's right-click menu.
    ExportActions* exportActions() const { return exports_; }
    // Presentation mode, reveal and the themes (View menu).
    PresentationMode* presentationMode() const { return presentation_; }

signals:
    void stepChanged(int number);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    double pageScale() const;
    void applyPageScale();
    void applyPresentation(bool on);  // PresentationMode::activeChanged
    void buildMenus();
    void retranslate();
    void updateStepList();
    bool handleNavigationKey(int key);
    void enterStep(int number, bool atLastFrame);
    void applyPresentationToPage(views::StepPage* page);

    std::vector<attn::Step> steps_;
    std::vector<views::StepPage*> pages_;  // nullptr until first shown
    int current_ = 0;
    QString language_ = QStringLiteral("en");
    bool showNumbers_ = false;
    double zoom_ = 1.0;
    std::unique_ptr<views::Translation> translation_;

    QSplitter* splitter_ = nullptr;
    QWidget* stepPane_ = nullptr;
    QLabel* stepsHeading_ = nullptr;
    QListWidget* stepList_ = nullptr;
    QStackedWidget* stack_ = nullptr;
    QPushButton* previous_ = nullptr;
    QPushButton* next_ = nullptr;
    QLabel* position_ = nullptr;

    QMenu* fileMenu_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    QMenu* languageMenu_ = nullptr;
    QMenu* helpMenu_ = nullptr;
    QAction* quitAction_ = nullptr;
    QAction* showNumbersAction_ = nullptr;
    QAction* zoomInAction_ = nullptr;
    QAction* zoomOutAction_ = nullptr;
    QAction* zoomResetAction_ = nullptr;
    QAction* englishAction_ = nullptr;
    QAction* chineseAction_ = nullptr;
    QAction* aboutAction_ = nullptr;
    QAction* shortcutsAction_ = nullptr;
    QAction* exploreAction_ = nullptr;
    QAction* modelAction_ = nullptr;
    QAction* openModelAction_ = nullptr;
    QAction* trainAction_ = nullptr;
    QAction* trainFileAction_ = nullptr;
    QActionGroup* languageGroup_ = nullptr;
    ExportActions* exports_ = nullptr;
    PresentationMode* presentation_ = nullptr;
};
