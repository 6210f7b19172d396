// ExportActions: File > Export and File > Export handout of a window of step pages (the
// walkthrough). The actions (also offered by a heatmap's right-click menu) and the heatmap they
// act on: the one last pointed at, clicked or right-clicked on the current page, else the page's
// first. The dialogs, the choices remembered from the last export (QSettings group "export"), the
// replace question and the report are ExportFlow's, as in every window that exports.
#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <functional>

#include "views/figure_render.h"
#include "views/handout.h"

class ExportFlow;
class QAction;
class QMenu;
class QWidget;

namespace views {
class HeatmapWidget;
class StepPage;
}  // namespace views

// What the window gives its exports: its pages and its language.
struct StepPages {
    std::function<views::StepPage*()> current;       // the page shown; null when none
    std::function<QList<views::StepPage*>()> built;  // the pages built so far
    std::function<int()> count;                      // the number of steps
    std::function<views::StepPage*(int)> page;       // step n (1-based), built if needed
    std::function<QString()> language;               // "en", "zh_CN": the handout's language
};

class ExportActions : public QObject {
    Q_OBJECT

public:
    // Adds the Export submenu to `fileMenu`. `window` is the dialogs' parent and shows the
    // outcome in its status bar (a QMainWindow); `pages` are what the actions export.
    ExportActions(QWidget* window, QMenu* fileMenu, StepPages pages);

    QMenu* menu() const { return menu_; }
    ExportFlow* flow() const { return flow_; }
    // The actions that keep their keys while the menu bar is hidden (presentation mode).
    QList<QAction*> windowActions() const;
    // Follows pointing, clicking and right-clicking on the heatmaps of a newly built page.
    void connectHeatmaps(views::StepPage* page);
    void retranslate();

    views::HeatmapWidget* activeHeatmap();
    // The page and matrix a heatmap belongs to; a null page for a heatmap of no built page.
    views::Figure figureOf(views::HeatmapWidget* map) const;
    // A right click's menu on `map`: the Export actions, acting on `map`. Caller owns it.
    QMenu* createHeatmapMenu(views::HeatmapWidget* map);
    // The writing half of the actions, without dialogs (the dialogs end here; tests call them).
    bool exportHeatmap(views::HeatmapWidget* map, const QString& path,
                       const views::FigureOptions& options, QString* error);
    bool exportStepFigures(const QString& dir, const views::FigureOptions& options,
                           QStringList* written, QString* error);
    // Every page (built if needed) as it is now, one file per heatmap.
    bool exportWalkthrough(const QString& dir, const views::FigureOptions& options,
                           QStringList* written, QString* error);
    // The whole walkthrough of the window's example, in its language, as a handout for students
    // (views/handout.h): PDF or HTML by the suffix of `path`, written atomically. `progress` is
    // told after each step and cancels by returning false.
    bool exportHandout(const QString& path, QString* error,
                       const views::HandoutProgress& progress = {});
    // Puts `map` (the active heatmap when null) on the clipboard as an image, at 2× for slides.
    void copyFigure(views::HeatmapWidget* map = nullptr);

private:
    void exportHeatmapWithDialog();
    void exportStepWithDialog();
    void exportWalkthroughWithDialog();
    void exportCsvWithDialog();
    void exportHandoutWithDialog();
    // Every figure of every step, each page as it is now.
    QList<views::Figure> walkthroughFigures() const;

    QWidget* window_ = nullptr;
    StepPages pages_;
    ExportFlow* flow_ = nullptr;
    QPointer<views::HeatmapWidget> activeHeatmap_;
    QMenu* menu_ = nullptr;
    QAction* exportHeatmapAction_ = nullptr;
    QAction* exportStepAction_ = nullptr;
    QAction* exportAllAction_ = nullptr;
    QAction* copyFigureAction_ = nullptr;
    QAction* exportCsvAction_ = nullptr;
    QAction* exportHandoutAction_ = nullptr;  // in the File menu itself
};
