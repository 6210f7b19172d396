// ExportActions: File > Export and File > Export handout of the walkthrough window. The actions
// (also offered by a heatmap's right-click menu), their dialogs, the choices remembered from the
// last export (QSettings group "export"), and the heatmap they act on: the one last pointed at,
// clicked or right-clicked on the current page, else the page's first.
#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include "views/figure_render.h"
#include "views/handout.h"

class MainWindow;
class QAction;
class QMenu;

namespace attn {
class HeatmapWidget;
}

namespace views {
class StepPage;
}

class ExportActions : public QObject {
    Q_OBJECT

public:
    // Adds the Export submenu to `fileMenu`. The window provides the pages, is the dialogs'
    // parent and shows the outcome in its status bar.
    ExportActions(MainWindow* window, QMenu* fileMenu);

    QMenu* menu() const { return menu_; }
    // The actions that keep their keys while the menu bar is hidden (presentation mode).
    QList<QAction*> windowActions() const;
    // Follows pointing, clicking and right-clicking on the heatmaps of a newly built page.
    void connectHeatmaps(views::StepPage* page);
    void retranslate();

    attn::HeatmapWidget* activeHeatmap();
    // The page and matrix a heatmap belongs to; a null page for a heatmap of no built page.
    views::Figure figureOf(attn::HeatmapWidget* map) const;
    // A right click's menu on `map`: the Export actions, acting on `map`. Caller owns it.
    QMenu* createHeatmapMenu(attn::HeatmapWidget* map);
    // The writing half of the actions, without dialogs (the dialogs end here; tests call them).
    bool exportHeatmap(attn::HeatmapWidget* map, const QString& path,
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
    void copyFigure(attn::HeatmapWidget* map = nullptr);

private:
    void exportHeatmapWithDialog();
    void exportStepWithDialog();
    void exportWalkthroughWithDialog();
    void exportCsvWithDialog();
    void exportHandoutWithDialog();
    bool confirmReplace(const QStringList& existing);
    // A warning when the export failed, else `saved` in the status bar.
    void reportExport(bool ok, const QString& error, const QString& saved);
    views::FigureOptions savedExportOptions() const;
    void saveExportOptions(const views::FigureOptions& options, const QString& folder) const;
    QString exportFolder() const;

    MainWindow* window_ = nullptr;
    QPointer<attn::HeatmapWidget> activeHeatmap_;
    QMenu* menu_ = nullptr;
    QAction* exportHeatmapAction_ = nullptr;
    QAction* exportStepAction_ = nullptr;
    QAction* exportAllAction_ = nullptr;
    QAction* copyFigureAction_ = nullptr;
    QAction* exportCsvAction_ = nullptr;
    QAction* exportHandoutAction_ = nullptr;  // in the File menu itself
};
