#include "app/gui/export_actions.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QProgressDialog>
#include <memory>
#include <utility>

#include "app/gui/export_flow.h"
#include "app/io/file_batch.h"
#include "views/heatmap_widget.h"
#include "views/step_page.h"

namespace {

// The figure drawn by the views.
ExportFlow::RenderFile renderFigure(const views::Figure& figure) {
    return [figure](const views::FigureOptions& options, QByteArray* bytes, QString* error) {
        return views::renderFigureBytes(figure, options, bytes, error);
    };
}

// The figures drawn by the views, file i of a batch.
ExportFlow::RenderBatchFile renderFigures(const QList<views::Figure>& figures) {
    return [figures](qsizetype i, const views::FigureOptions& options, QByteArray* bytes,
                     QString* error) {
        return views::renderFigureBytes(figures.at(i), options, bytes, error);
    };
}

}  // namespace

ExportActions::ExportActions(QWidget* window, QMenu* fileMenu, StepPages pages)
    : QObject(window), window_(window), pages_(std::move(pages)) {
    flow_ = new ExportFlow(window, QStringLiteral("export"));
    menu_ = fileMenu->addMenu(QString());
    exportHeatmapAction_ =
        menu_->addAction(QString(), this, &ExportActions::exportHeatmapWithDialog);
    // Ctrl+E is Explore; every key of the window is unique (tests/app/test_shortcuts.cpp).
    exportHeatmapAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_E));
    exportStepAction_ = menu_->addAction(QString(), this, &ExportActions::exportStepWithDialog);
    exportStepAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    exportAllAction_ =
        menu_->addAction(QString(), this, &ExportActions::exportWalkthroughWithDialog);
    menu_->addSeparator();
    copyFigureAction_ = menu_->addAction(QString(), this, [this] { copyFigure(); });
    copyFigureAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    exportCsvAction_ = menu_->addAction(QString(), this, &ExportActions::exportCsvWithDialog);
    exportHandoutAction_ =
        fileMenu->addAction(QString(), this, &ExportActions::exportHandoutWithDialog);
}

QList<QAction*> ExportActions::windowActions() const {
    return {exportHeatmapAction_, exportStepAction_, copyFigureAction_};
}

void ExportActions::retranslate() {
    menu_->setTitle(tr("&Export"));
    exportHeatmapAction_->setText(tr("Export &heatmap…"));
    exportStepAction_->setText(tr("Export all heatmaps of this &step…"));
    exportAllAction_->setText(tr("Export the &whole walkthrough…"));
    copyFigureAction_->setText(tr("&Copy figure"));
    exportCsvAction_->setText(tr("Export matrix as &CSV…"));
    exportHandoutAction_->setText(tr("Export &handout…"));
}

void ExportActions::connectHeatmaps(views::StepPage* page) {
    for (views::HeatmapWidget* map : page->heatmaps()) {
        // "The heatmap under the cursor": the last one pointed at or clicked.
        connect(map, &views::HeatmapWidget::cellHovered, this,
                [this, map] { activeHeatmap_ = map; });
        connect(map, &views::HeatmapWidget::cellClicked, this,
                [this, map] { activeHeatmap_ = map; });
        map->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(map, &QWidget::customContextMenuRequested, this, [this, map](const QPoint& pos) {
            const std::unique_ptr<QMenu> menu(createHeatmapMenu(map));
            menu->exec(map->mapToGlobal(pos));
        });
    }
}

views::HeatmapWidget* ExportActions::activeHeatmap() {
    views::StepPage* p = pages_.current();
    if (!p) return nullptr;
    // The last one pointed at counts while it is on this page and shown (not another frame's).
    if (views::HeatmapWidget* active = activeHeatmap_.data()) {
        const views::Figure figure = figureOf(active);
        if (figure.page == p && p->shownMatrix(figure.matrixId)) return active;
    }
    for (const views::Figure& f : views::pageFigures(*p)) return p->heatmap(f.matrixId);
    return nullptr;
}

views::Figure ExportActions::figureOf(views::HeatmapWidget* map) const {
    if (!map) return {};
    for (views::StepPage* p : pages_.built()) {
        for (const QString& id : p->matrixIds())
            if (p->heatmap(id) == map) return {p, id};
    }
    return {};
}

QMenu* ExportActions::createHeatmapMenu(views::HeatmapWidget* map) {
    activeHeatmap_ = map;  // the actions below act on the heatmap that was right-clicked
    auto* menu = new QMenu(window_);
    menu->addAction(exportHeatmapAction_);
    menu->addAction(copyFigureAction_);
    menu->addAction(exportCsvAction_);
    menu->addSeparator();
    menu->addAction(exportStepAction_);
    menu->addAction(exportAllAction_);
    menu->addSeparator();
    menu->addMenu(map->createRangeMenu(menu));  // Colour range ▸ Fixed / This matrix / Each row
    return menu;
}

bool ExportActions::exportHeatmap(views::HeatmapWidget* map, const QString& path,
                                  const views::FigureOptions& options, QString* error) {
    const views::Figure figure = figureOf(map);
    if (!figure.page) {
        if (error) *error = tr("There is no heatmap to export on this page.");
        return false;
    }
    return ExportFlow::saveFile(path, options, renderFigure(figure), error);
}

bool ExportActions::exportStepFigures(const QString& dir, const views::FigureOptions& options,
                                      QStringList* written, QString* error) {
    views::StepPage* p = pages_.current();
    if (!p) {
        if (error) *error = tr("There is no step to export.");
        return false;
    }
    const QList<views::Figure> figures = views::pageFigures(*p);
    return ExportFlow::saveFiles(dir, options, views::figureFileNames(figures, options.format),
                                 renderFigures(figures), written, error);
}

bool ExportActions::exportWalkthrough(const QString& dir, const views::FigureOptions& options,
                                      QStringList* written, QString* error) {
    const QList<views::Figure> figures = walkthroughFigures();
    return ExportFlow::saveFiles(dir, options, views::figureFileNames(figures, options.format),
                                 renderFigures(figures), written, error);
}

QList<views::Figure> ExportActions::walkthroughFigures() const {
    QList<views::Figure> figures;
    for (int n = 1; n <= pages_.count(); ++n) figures += views::pageFigures(*pages_.page(n));
    return figures;
}

bool ExportActions::exportHandout(const QString& path, QString* error,
                                  const views::HandoutProgress& progress) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    const bool pdf = suffix == QLatin1String("pdf");
    if (!pdf && suffix != QLatin1String("html") && suffix != QLatin1String("htm")) {
        if (error)
            *error =
                tr("%1 is neither a PDF nor an HTML file: give a name ending in .pdf or .html.")
                    .arg(QDir::toNativeSeparators(path));
        return false;
    }
    // The records of the window's example; fresh pages draw them as each step opens.
    std::vector<attn::Step> steps;
    for (int n = 1; n <= pages_.count(); ++n) steps.push_back(pages_.page(n)->step());
    QString reason;
    const QByteArray bytes =
        pdf ? views::renderHandoutPdf(steps, &reason, progress)
            : views::renderHandoutHtml(steps, pages_.language(), &reason, progress);
    if (bytes.isEmpty()) {
        if (error)
            *error =
                tr("Could not draw the handout %1: %2").arg(QDir::toNativeSeparators(path), reason);
        return false;
    }
    return attn::saveFile(path, pdf ? QStringLiteral("PDF") : QStringLiteral("HTML"), bytes,
                          /*overwrite=*/true, error);
}

void ExportActions::copyFigure(views::HeatmapWidget* map) {
    const views::Figure figure = figureOf(map ? map : activeHeatmap());
    if (!figure.page) return;
    views::FigureOptions options = flow_->savedOptions();
    options.format = views::FigureFormat::Png;
    options.size = QSize();
    options.scale = 2.0;  // sharp on a slide or in a document
    options.transparent = false;
    const QImage image = views::renderFigure(figure, options);
    if (image.isNull()) return;
    QApplication::clipboard()->setImage(image);
    flow_->showMessage(
        tr("Copied the figure “%1” to the clipboard").arg(figure.page->caption(figure.matrixId)));
}

void ExportActions::exportHeatmapWithDialog() {
    const views::Figure figure = figureOf(activeHeatmap());
    if (!figure.page) return;
    flow_->exportFile(views::figureBaseName(*figure.page, figure.matrixId),
                      views::fittedFigureSize(figure, flow_->savedOptions()), renderFigure(figure));
}

void ExportActions::exportCsvWithDialog() {
    const views::Figure figure = figureOf(activeHeatmap());
    if (!figure.page) return;
    flow_->exportWithFileDialog(
        tr("Export matrix as CSV"),
        views::figureFileName(*figure.page, figure.matrixId, views::FigureFormat::Csv),
        tr("CSV files (*.csv)"), views::FigureFormat::Csv, renderFigure(figure));
}

void ExportActions::exportStepWithDialog() {
    views::StepPage* p = pages_.current();
    if (!p) return;
    const QList<views::Figure> figures = views::pageFigures(*p);
    flow_->exportFiles(
        ExportDialog::Target::Step,
        [figures](views::FigureFormat format) { return views::figureFileNames(figures, format); },
        renderFigures(figures));
}

void ExportActions::exportWalkthroughWithDialog() {
    const QList<views::Figure> figures = walkthroughFigures();
    flow_->exportFiles(
        ExportDialog::Target::Walkthrough,
        [figures](views::FigureFormat format) { return views::figureFileNames(figures, format); },
        renderFigures(figures));
}

void ExportActions::exportHandoutWithDialog() {
    const QString pdfFilter = tr("PDF handout (*.pdf)");
    const QString htmlFilter = tr("HTML handout (*.html *.htm)");
    QString filter = pdfFilter;
    // The file dialog asks before replacing a file.
    QString path = QFileDialog::getSaveFileName(
        window_, tr("Export handout"),
        QDir(flow_->folder()).filePath(QStringLiteral("attention-handout.pdf")),
        pdfFilter + QStringLiteral(";;") + htmlFilter, &filter);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty())
        path += filter == htmlFilter ? QStringLiteral(".html") : QStringLiteral(".pdf");
    QProgressDialog progress(tr("Drawing the handout…"), tr("Cancel"), 0, pages_.count(), window_);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(300);
    QString error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const bool ok = exportHandout(path, &error, [&progress](int done, int total) {
        progress.setMaximum(total);
        progress.setValue(done);  // a modal dialog processes events here
        return !progress.wasCanceled();
    });
    QApplication::restoreOverrideCursor();
    if (!ok && progress.wasCanceled()) return;
    flow_->report(ok, error, tr("Saved the handout %1").arg(QDir::toNativeSeparators(path)));
}
