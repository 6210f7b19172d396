// MainWindow: the guided walkthrough. The step list on the left, the current step's page in the
// centre, Previous/Next below; Left/Right, PageUp/PageDown (presentation clickers) and Home/End
// navigate from anywhere in the window except a text field. Remembers the last step (QSettings)
// and switches between English and Simplified Chinese at run time.
#pragma once

#include <QMainWindow>
#include <QPalette>
#include <QPointer>
#include <QRect>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

#include "model/walkthrough.h"
#include "views/figure_export.h"

class QAction;
class QActionGroup;
class QLabel;
class QListWidget;
class QMenu;
class QPushButton;
class QSplitter;
class QStackedWidget;

namespace attn {
class HeatmapWidget;
}

namespace views {
class StepPage;
class Translation;
}

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
    // Clamps to 1..stepCount() and remembers the step for the next run.
    void goToStep(int number);
    void nextStep() { goToStep(current_ + 1); }
    void previousStep() { goToStep(current_ - 1); }

    // The page of step `number` (1-based), built on first use; nullptr when out of range.
    views::StepPage* page(int number);
    views::StepPage* currentPage() { return page(current_); }
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
    // for a small laptop screen (View > Zoom). Remembered between runs.
    void setZoom(double zoom);
    double zoom() const { return zoom_; }

    // Visits every step, grabs the window into dir/step-NN.png. Returns false with a message
    // naming the file when a screenshot cannot be written.
    bool saveWalkScreenshots(const QString& dir, QString* error);
    // Grabs the window as it is now into `path` (PNG).
    bool saveScreenshot(const QString& path, QString* error);

    // --- File > Export (issue 5) -----------------------------------------------------------------
    // The heatmap the export actions act on: the one last pointed at, clicked or right-clicked on
    // the current page, else the page's first.
    attn::HeatmapWidget* activeHeatmap();
    // The page and matrix a heatmap belongs to; a null page for a heatmap of no built page.
    views::Figure figureOf(attn::HeatmapWidget* map) const;
    // A right click's menu on `map`: the File > Export actions, acting on `map`. Caller owns it.
    QMenu* createHeatmapMenu(attn::HeatmapWidget* map);
    QMenu* exportMenu() const { return exportMenu_; }
    // The writing half of the actions, without dialogs (the dialogs end here; tests call them).
    bool exportHeatmap(attn::HeatmapWidget* map, const QString& path,
                       const views::FigureOptions& options, QString* error);
    bool exportStepFigures(const QString& dir, const views::FigureOptions& options,
                           QStringList* written, QString* error);
    // Every page (built if needed) as it is now, one file per heatmap.
    bool exportWalkthrough(const QString& dir, const views::FigureOptions& options,
                           QStringList* written, QString* error);
    // Puts `map` (the active heatmap when null) on the clipboard as an image, at 2× for slides.
    void copyFigure(attn::HeatmapWidget* map = nullptr);

    // --- presentation mode (issue 5) -------------------------------------------------------------
    // Full screen, the step list, menu bar and buttons hidden (keys and clickers navigate),
    // the presentation zoom and the high-contrast theme. F11 toggles it, Escape leaves it.
    void setPresentation(bool on);
    bool presentation() const { return presentation_; }
    // Scale of the pages in presentation mode (View > Zoom changes it while presenting).
    double presentationZoom() const { return presentationZoom_; }
    // System: the desktop's colours (presentation: high-contrast light). Light and Dark, in
    // presentation mode their high-contrast variants. Remembered.
    enum class Theme { System, Light, Dark };
    void setTheme(Theme theme);
    Theme theme() const { return theme_; }
    // Reveal: the matrices a page computes show their rows one by one; Space, Down, → and
    // PageDown reveal the next row (then go to the next step), ↑ hides the last one again.
    void setReveal(bool on);
    bool reveal() const { return reveal_; }
    bool revealNextRow();      // false when every row of the page is shown
    bool revealPreviousRow();  // false when nothing is revealed

signals:
    void stepChanged(int number);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void buildExportMenu();
    void buildPresentationMenu();
    void retranslateExtras();
    void connectHeatmaps(views::StepPage* page);
    void exportHeatmapWithDialog();
    void exportStepWithDialog();
    void exportWalkthroughWithDialog();
    void exportCsvWithDialog();
    bool confirmReplace(const QStringList& existing);
    views::FigureOptions savedExportOptions() const;
    void saveExportOptions(const views::FigureOptions& options, const QString& folder) const;
    QString exportFolder() const;
    double pageScale() const { return presentation_ ? presentationZoom_ : zoom_; }
    void applyPageScale();
    void applyTheme();
    void resetReveal(views::StepPage* page);
    void buildMenus();
    void retranslate();
    void updateStepList();
    bool handleNavigationKey(int key);

    std::vector<attn::Step> steps_;
    std::vector<views::StepPage*> pages_;  // nullptr until first shown
    int current_ = 0;
    QString language_ = QStringLiteral("en");
    bool showNumbers_ = false;
    double zoom_ = 1.0;
    std::unique_ptr<views::Translation> translation_;

    QSplitter* splitter_ = nullptr;
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
    QAction* exploreAction_ = nullptr;
    QActionGroup* languageGroup_ = nullptr;

    // Export and presentation (issue 5).
    QWidget* stepPane_ = nullptr;
    QPointer<attn::HeatmapWidget> activeHeatmap_;
    QMenu* exportMenu_ = nullptr;
    QAction* exportHeatmapAction_ = nullptr;
    QAction* exportStepAction_ = nullptr;
    QAction* exportAllAction_ = nullptr;
    QAction* copyFigureAction_ = nullptr;
    QAction* exportCsvAction_ = nullptr;
    QAction* presentationAction_ = nullptr;
    QAction* revealAction_ = nullptr;
    QMenu* themeMenu_ = nullptr;
    QAction* themeSystemAction_ = nullptr;
    QAction* themeLightAction_ = nullptr;
    QAction* themeDarkAction_ = nullptr;
    bool presentation_ = false;
    bool reveal_ = false;
    double presentationZoom_ = 1.5;
    Theme theme_ = Theme::System;
    QPalette systemPalette_;
    bool wasMaximized_ = false;
    QRect normalGeometry_;
};
