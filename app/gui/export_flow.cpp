#include "app/gui/export_flow.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QWidget>
#include <algorithm>

#include "app/io/file_batch.h"

// The flow's messages keep the context "ExportActions" they have in the translation files, where
// they were first written for the walkthrough window's File ▸ Export.

ExportFlow::ExportFlow(QWidget* parent, const QString& settingsGroup, Report report)
    : QObject(parent), parent_(parent), group_(settingsGroup), report_(std::move(report)) {
    if (!report_)
        report_ = [parent](const QString& message, bool error) {
            auto* window = qobject_cast<QMainWindow*>(parent);
            if (window && !error) window->statusBar()->showMessage(message, 6000);
        };
}

bool ExportFlow::saveFile(const QString& path, const views::FigureOptions& options,
                          const RenderFile& render, QString* error) {
    QByteArray bytes;
    return render(options, &bytes, error) &&
           attn::saveFile(path, views::figureKind(options.format), bytes, options.overwrite, error);
}

bool ExportFlow::saveFiles(const QString& dir, const views::FigureOptions& options,
                           const QStringList& names, const RenderBatchFile& render,
                           QStringList* written, QString* error) {
    const auto renderOne = [&](qsizetype i, QByteArray& bytes, QString& problem) {
        return render(i, options, &bytes, &problem);
    };
    return attn::saveFileBatch(dir, names, views::figureKind(options.format), options.overwrite,
                               renderOne, written, error);
}

void ExportFlow::exportFile(const QString& baseName, QSize fittedSize, const RenderFile& render) {
    views::FigureOptions options = savedOptions();
    const QString name = baseName + QLatin1Char('.') + views::figureSuffix(options.format);
    ExportDialog dialog(ExportDialog::Target::Heatmap, QDir(folder()).filePath(name), fittedSize,
                        parent_);
    dialog.setOptions(options);
    if (dialog.exec() != QDialog::Accepted) return;
    options = dialog.options();
    const QString path = dialog.destination();
    if (!confirmReplace(QFileInfo::exists(path) ? QStringList{path} : QStringList{})) return;
    options.overwrite = true;  // asked above
    saveOptions(options, QFileInfo(path).absolutePath());
    QString error;
    const bool ok = saveFile(path, options, render, &error);
    report(ok, error,
           QCoreApplication::translate("ExportActions", "Saved %1")
               .arg(QDir::toNativeSeparators(path)));
}

void ExportFlow::exportFiles(ExportDialog::Target target, const BatchNames& names,
                             const RenderBatchFile& render) {
    ExportDialog dialog(target, folder(), QSize(), parent_);
    dialog.setOptions(savedOptions());
    if (dialog.exec() != QDialog::Accepted) return;
    views::FigureOptions options = dialog.options();
    const QString dir = dialog.destination();
    const QStringList files = names(options.format);
    if (!confirmReplace(attn::existingFiles(dir, files))) return;
    options.overwrite = true;
    saveOptions(options, dir);
    QStringList written;
    QString error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const bool ok = saveFiles(dir, options, files, render, &written, &error);
    QApplication::restoreOverrideCursor();
    report(ok, error,
           QCoreApplication::translate("ExportActions", "Figures saved: %1, in %2")
               .arg(written.size())
               .arg(QDir::toNativeSeparators(dir)));
}

void ExportFlow::exportWithFileDialog(const QString& title, const QString& fileName,
                                      const QString& filter, views::FigureFormat format,
                                      const RenderFile& render) {
    const QString path =
        QFileDialog::getSaveFileName(parent_, title, QDir(folder()).filePath(fileName), filter);
    if (path.isEmpty()) return;
    views::FigureOptions options;
    options.format = format;
    options.overwrite = true;  // the file dialog asked
    QString error;
    const bool ok = saveFile(path, options, render, &error);
    report(ok, error,
           QCoreApplication::translate("ExportActions", "Saved %1")
               .arg(QDir::toNativeSeparators(path)));
}

views::FigureOptions ExportFlow::savedOptions() const {
    QSettings settings;
    settings.beginGroup(group_);
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

void ExportFlow::saveOptions(const views::FigureOptions& o, const QString& folder) const {
    QSettings settings;
    settings.beginGroup(group_);
    settings.setValue(QStringLiteral("format"), views::figureSuffix(o.format));
    settings.setValue(QStringLiteral("size"), o.size);
    settings.setValue(QStringLiteral("scale"), o.scale);
    settings.setValue(QStringLiteral("title"), o.title);
    settings.setValue(QStringLiteral("values"), o.values);
    settings.setValue(QStringLiteral("colorMap"), o.colorMap);
    settings.setValue(QStringLiteral("transparent"), o.transparent);
    settings.setValue(QStringLiteral("folder"), folder);
}

QString ExportFlow::folder() const {
    const QString saved = QSettings().value(group_ + QStringLiteral("/folder")).toString();
    if (!saved.isEmpty() && QFileInfo(saved).isDir()) return saved;
    const QString pictures = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    return QFileInfo(pictures).isDir() ? pictures : QDir::homePath();
}

bool ExportFlow::confirmReplace(const QStringList& existing) {
    if (existing.isEmpty()) return true;
    const QString text =
        existing.size() == 1
            ? QCoreApplication::translate("ExportActions", "%1 already exists. Replace it?")
                  .arg(QDir::toNativeSeparators(existing.first()))
            : QCoreApplication::translate(
                  "ExportActions", "%1 of the files already exist, for example %2. Replace them?")
                  .arg(existing.size())
                  .arg(QDir::toNativeSeparators(existing.first()));
    return QMessageBox::question(
               parent_, QCoreApplication::translate("ExportActions", "Replace existing files?"),
               text, QMessageBox::Yes | QMessageBox::Cancel,
               QMessageBox::Cancel) == QMessageBox::Yes;
}

void ExportFlow::report(bool ok, const QString& error, const QString& saved) {
    if (!ok) {
        // The window first: its message stays on screen after the box is closed.
        report_(error, true);
        QMessageBox::warning(parent_, QCoreApplication::translate("ExportActions", "Export failed"),
                             error);
        return;
    }
    report_(saved, false);
}

void ExportFlow::showMessage(const QString& message) { report_(message, false); }
