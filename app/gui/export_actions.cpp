#include "app/gui/export_actions.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QProgressDialog>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <algorithm>
#include <memory>

#include "app/gui/export_dialog.h"
#include "app/gui/main_window.h"
#include "app/io/file_batch.h"
#include "views/heatmap_widget.h"
#include "views/step_page.h"

namespace {

const QString kExportGroup = QStringLiteral("export");

// The figures drawn by the views and saved all or nothing into `dir`.
bool saveFigures(const QList<views::Figure>& figures, const QString& dir,
                 const views::FigureOptions& options, QStringList* written, QString* error) {
    const auto render = [&](qsizetype i, QByteArray& bytes, QString& problem) {
        return views::renderFigureBytes(figures.at(i), options, &bytes, &problem);
    };
    return attn::saveFileBatch(dir, views::figureFileNames(figures, options.format),
                               views::figureKind(options.format), options.overwrite, render,
                               written, error);
}

}  // namespace

ExportActions::ExportActions(MainWindow* window, QMenu* fileMenu)
    : QObject(window), window_(window) {
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
    for (attn::HeatmapWidget* map : page->heatmaps()) {
        // "The heatmap under the cursor": the last one pointed at or clicked.
        connect(map, &attn::HeatmapWidget::cellHovered, this,
                [this, map] { activeHeatmap_ = map; });
        connect(map, &attn::HeatmapWidget::cellClicked, this,
                [this, map] { activeHeatmap_ = map; });
        map->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(map, &QWidget::customContextMenuRequested, this, [this, map](const QPoint& pos) {
            const std::unique_ptr<QMenu> menu(createHeatmapMenu(map));
            menu->exec(map->mapToGlobal(pos));
        });
    }
}

attn::HeatmapWidget* ExportActions::activeHeatmap() {
    views::StepPage* p = window_->currentPage();
    if (!p) return nullptr;
    // The last one pointed at counts while it is on this page and shown (not another frame's).
    if (attn::HeatmapWidget* active = activeHeatmap_.data()) {
        const views::Figure figure = figureOf(active);
        if (figure.page == p && p->shownMatrix(figure.matrixId)) return active;
    }
    for (const views::Figure& f : views::pageFigures(*p)) return p->heatmap(f.matrixId);
    return nullptr;
}

views::Figure ExportActions::figureOf(attn::HeatmapWidget* map) const {
    if (!map) return {};
    for (views::StepPage* p : window_->builtPages()) {
        for (const QString& id : p->matrixIds())
            if (p->heatmap(id) == map) return {p, id};
    }
    return {};
}

QMenu* ExportActions::createHeatmapMenu(attn::HeatmapWidget* map) {
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

bool ExportActions::exportHeatmap(attn::HeatmapWidget* map, const QString& path,
                                  const views::FigureOptions& options, QString* error) {
    const views::Figure figure = figureOf(map);
    if (!figure.page) {
        if (error) *error = tr("There is no heatmap to export on this page.");
        return false;
    }
    QByteArray bytes;
    return views::renderFigureBytes(figure, options, &bytes, error) &&
           attn::saveFile(path, views::figureKind(options.format), bytes, options.overwrite, error);
}

bool ExportActions::exportStepFigures(const QString& dir, const views::FigureOptions& options,
                                      QStringList* written, QString* error) {
    views::StepPage* p = window_->currentPage();
    if (!p) {
        if (error) *error = tr("There is no step to export.");
        return false;
    }
    return saveFigures(views::pageFigures(*p), dir, options, written, error);
}

bool ExportActions::exportWalkthrough(const QString& dir, const views::FigureOptions& options,
                                      QStringList* written, QString* error) {
    QList<views::Figure> figures;
    for (int n = 1; n <= window_->stepCount(); ++n)
        figures += views::pageFigures(*window_->page(n));
    return saveFigures(figures, dir, options, written, error);
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
    for (int n = 1; n <= window_->stepCount(); ++n) steps.push_back(window_->page(n)->step());
    QString reason;
    const QByteArray bytes =
        pdf ? views::renderHandoutPdf(steps, &reason, progress)
            : views::renderHandoutHtml(steps, window_->language(), &reason, progress);
    if (bytes.isEmpty()) {
        if (error)
            *error =
                tr("Could not draw the handout %1: %2").arg(QDir::toNativeSeparators(path), reason);
        return false;
    }
    return attn::saveFile(path, pdf ? QStringLiteral("PDF") : QStringLiteral("HTML"), bytes,
                          /*overwrite=*/true, error);
}

void ExportActions::copyFigure(attn::HeatmapWidget* map) {
    const views::Figure figure = figureOf(map ? map : activeHeatmap());
    if (!figure.page) return;
    views::FigureOptions options = savedExportOptions();
    options.format = views::FigureFormat::Png;
    options.size = QSize();
    options.scale = 2.0;  // sharp on a slide or in a document
    options.transparent = false;
    const QImage image = views::renderFigure(figure, options);
    if (image.isNull()) return;
    QApplication::clipboard()->setImage(image);
    window_->statusBar()->showMessage(
        tr("Copied the figure “%1” to the clipboard").arg(figure.page->caption(figure.matrixId)),
        4000);
}

views::FigureOptions ExportActions::savedExportOptions() const {
    QSettings settings;
    settings.beginGroup(kExportGroup);
    views::FigureOptions o;
    o.format = views::figureFormatFromName(settings.value(QStringLiteral("format")).toString())
                   .value_or(views::FigureFormat::Png);
    o.size = settings.value(QStringLiteral("size")).toSize();
    o.scale = std::clamp(settings.value(QStringLiteral("scale"), 1.0).toDouble(), 1.0,
                         views::kMaxFigureScale);
    o.title = settings.value(QStringLiteral("title"), true).toBool();
    o.values = settings.value(QStringLiteral("values"), true).toBool();
    o.colorMap = settings.value(QStringLiteral("colorMap")).toString();
    o.transparent = settings.value(QStringLiteral("transparent"), false).toBool();
    return o;
}

void ExportActions::saveExportOptions(const views::FigureOptions& o, const QString& folder) const {
    QSettings settings;
    settings.beginGroup(kExportGroup);
    settings.setValue(QStringLiteral("format"), views::figureSuffix(o.format));
    settings.setValue(QStringLiteral("size"), o.size);
    settings.setValue(QStringLiteral("scale"), o.scale);
    settings.setValue(QStringLiteral("title"), o.title);
    settings.setValue(QStringLiteral("values"), o.values);
    settings.setValue(QStringLiteral("colorMap"), o.colorMap);
    settings.setValue(QStringLiteral("transparent"), o.transparent);
    settings.setValue(QStringLiteral("folder"), folder);
}

QString ExportActions::exportFolder() const {
    const QString saved = QSettings().value(kExportGroup + QStringLiteral("/folder")).toString();
    if (!saved.isEmpty() && QFileInfo(saved).isDir()) return saved;
    const QString pictures = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    return QFileInfo(pictures).isDir() ? pictures : QDir::homePath();
}

bool ExportActions::confirmReplace(const QStringList& existing) {
    if (existing.isEmpty()) return true;
    const QString text =
        existing.size() == 1
            ? tr("%1 already exists. Replace it?").arg(QDir::toNativeSeparators(existing.first()))
            : tr("%1 of the files already exist, for example %2. Replace them?")
                  .arg(existing.size())
                  .arg(QDir::toNativeSeparators(existing.first()));
    return QMessageBox::question(window_, tr("Replace existing files?"), text,
                                 QMessageBox::Yes | QMessageBox::Cancel,
                                 QMessageBox::Cancel) == QMessageBox::Yes;
}

void ExportActions::reportExport(bool ok, const QString& error, const QString& saved) {
    if (!ok) {
        QMessageBox::warning(window_, tr("Export failed"), error);
        return;
    }
    window_->statusBar()->showMessage(saved, 6000);
}

void ExportActions::exportHeatmapWithDialog() {
    attn::HeatmapWidget* map = activeHeatmap();
    const views::Figure figure = figureOf(map);
    if (!figure.page) return;
    views::FigureOptions options = savedExportOptions();
    const QString name = views::figureFileName(*figure.page, figure.matrixId, options.format);
    ExportDialog dialog(ExportDialog::Target::Heatmap, QDir(exportFolder()).filePath(name),
                        views::fittedFigureSize(figure, options), window_);
    dialog.setOptions(options);
    if (dialog.exec() != QDialog::Accepted) return;
    options = dialog.options();
    const QString path = dialog.destination();
    if (!confirmReplace(QFileInfo::exists(path) ? QStringList{path} : QStringList{})) return;
    options.overwrite = true;  // asked above
    saveExportOptions(options, QFileInfo(path).absolutePath());
    QString error;
    const bool ok = exportHeatmap(map, path, options, &error);
    reportExport(ok, error, tr("Saved %1").arg(QDir::toNativeSeparators(path)));
}

void ExportActions::exportCsvWithDialog() {
    attn::HeatmapWidget* map = activeHeatmap();
    const views::Figure figure = figureOf(map);
    if (!figure.page) return;
    const QString name =
        views::figureFileName(*figure.page, figure.matrixId, views::FigureFormat::Csv);
    // The file dialog asks before replacing a file.
    const QString path =
        QFileDialog::getSaveFileName(window_, tr("Export matrix as CSV"),
                                     QDir(exportFolder()).filePath(name), tr("CSV files (*.csv)"));
    if (path.isEmpty()) return;
    views::FigureOptions options;
    options.format = views::FigureFormat::Csv;
    options.overwrite = true;
    QString error;
    const bool ok = exportHeatmap(map, path, options, &error);
    reportExport(ok, error, tr("Saved %1").arg(QDir::toNativeSeparators(path)));
}

void ExportActions::exportStepWithDialog() {
    views::StepPage* p = window_->currentPage();
    if (!p) return;
    ExportDialog dialog(ExportDialog::Target::Step, exportFolder(), QSize(), window_);
    dialog.setOptions(savedExportOptions());
    if (dialog.exec() != QDialog::Accepted) return;
    views::FigureOptions options = dialog.options();
    const QString dir = dialog.destination();
    if (!confirmReplace(attn::existingFiles(
            dir, views::figureFileNames(views::pageFigures(*p), options.format))))
        return;
    options.overwrite = true;
    saveExportOptions(options, dir);
    QStringList written;
    QString error;
    const bool ok = exportStepFigures(dir, options, &written, &error);
    reportExport(
        ok, error,
        tr("Figures saved: %1, in %2").arg(written.size()).arg(QDir::toNativeSeparators(dir)));
}

void ExportActions::exportWalkthroughWithDialog() {
    ExportDialog dialog(ExportDialog::Target::Walkthrough, exportFolder(), QSize(), window_);
    dialog.setOptions(savedExportOptions());
    if (dialog.exec() != QDialog::Accepted) return;
    views::FigureOptions options = dialog.options();
    const QString dir = dialog.destination();
    QList<views::Figure> figures;
    for (int n = 1; n <= window_->stepCount(); ++n)
        figures += views::pageFigures(*window_->page(n));
    if (!confirmReplace(attn::existingFiles(dir, views::figureFileNames(figures, options.format))))
        return;
    options.overwrite = true;
    saveExportOptions(options, dir);
    QStringList written;
    QString error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const bool ok = saveFigures(figures, dir, options, &written, &error);
    QApplication::restoreOverrideCursor();
    reportExport(
        ok, error,
        tr("Figures saved: %1, in %2").arg(written.size()).arg(QDir::toNativeSeparators(dir)));
}

void ExportActions::exportHandoutWithDialog() {
    const QString pdfFilter = tr("PDF handout (*.pdf)");
    const QString htmlFilter = tr("HTML handout (*.html *.htm)");
    QString filter = pdfFilter;
    // The file dialog asks before replacing a file.
    QString path = QFileDialog::getSaveFileName(
        window_, tr("Export handout"),
        QDir(exportFolder()).filePath(QStringLiteral("attention-handout.pdf")),
        pdfFilter + QStringLiteral(";;") + htmlFilter, &filter);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty())
        path += filter == htmlFilter ? QStringLiteral(".html") : QStringLiteral(".pdf");
    QProgressDialog progress(tr("Drawing the handout…"), tr("Cancel"), 0, window_->stepCount(),
                             window_);
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
    reportExport(ok, error, tr("Saved the handout %1").arg(QDir::toNativeSeparators(path)));
}
