// ExportFlow: the one way a window exports figures, whatever it shows (the walkthrough's pages,
// the model window's head, layer and next-token chart). The window says what to draw (the bytes of
// one file for the options chosen, or of a batch of named files) and what to call it; the flow
// shows the export dialog with the choices and folder remembered from the last export (a QSettings
// group of the window's own), asks before replacing files, writes through app/io/file_batch.h
// (atomically, a batch all or nothing) and reports: a warning box when the export failed, and the
// outcome to the window (its status bar unless it says otherwise).
#pragma once

#include <QByteArray>
#include <QObject>
#include <QSize>
#include <QString>
#include <QStringList>
#include <functional>

#include "app/gui/export_dialog.h"
#include "views/figure_render.h"

class QWidget;

class ExportFlow : public QObject {
    Q_OBJECT

public:
    // The bytes of one file in options.format; false with *error a message for the user.
    using RenderFile =
        std::function<bool(const views::FigureOptions& options, QByteArray* bytes, QString* error)>;
    // The bytes of file `index` of a batch.
    using RenderBatchFile = std::function<bool(qsizetype index, const views::FigureOptions& options,
                                               QByteArray* bytes, QString* error)>;
    // The file names of a batch in `format`, one per file, in order.
    using BatchNames = std::function<QStringList(views::FigureFormat format)>;
    // Shows an export's outcome: what was saved, or (error true) why it failed.
    using Report = std::function<void(const QString& message, bool error)>;

    // `parent` owns the flow and its dialogs. `settingsGroup` holds the last export's choices and
    // folder ("export" for the walkthrough). Without `report`, a QMainWindow parent shows what was
    // saved in its status bar.
    ExportFlow(QWidget* parent, const QString& settingsGroup, Report report = {});

    // One file: the dialog (the last choices; `baseName` plus the format's suffix in the last
    // folder; `fittedSize` the figure's own size, may be empty), the replace question, then the
    // file and the report.
    void exportFile(const QString& baseName, QSize fittedSize, const RenderFile& render);
    // A batch of files into a folder: the dialog for `target` (Step or Walkthrough), the replace
    // question for the files already there, then the files, all or nothing, and the report.
    void exportFiles(ExportDialog::Target target, const BatchNames& names,
                     const RenderBatchFile& render);
    // One file in a fixed format through a file dialog (`filter` e.g. "CSV files (*.csv)"), which
    // asks before replacing a file.
    void exportWithFileDialog(const QString& title, const QString& fileName, const QString& filter,
                              views::FigureFormat format, const RenderFile& render);

    // The writing halves, without dialogs (the dialogs end here; windows and tests call them).
    static bool saveFile(const QString& path, const views::FigureOptions& options,
                         const RenderFile& render, QString* error);
    static bool saveFiles(const QString& dir, const views::FigureOptions& options,
                          const QStringList& names, const RenderBatchFile& render,
                          QStringList* written, QString* error);

    // The choices of the last export (defaults before the first), and where it wrote.
    views::FigureOptions savedOptions() const;
    void saveOptions(const views::FigureOptions& options, const QString& folder) const;
    // The last export's folder while it exists, else the pictures folder, else home.
    QString folder() const;
    QString settingsGroup() const { return group_; }

    // Yes when nothing exists or the user agrees to replace `existing`.
    bool confirmReplace(const QStringList& existing);
    // A warning box and the report when !ok (`error`), else the report of `saved`.
    void report(bool ok, const QString& error, const QString& saved);
    // A message for the window (e.g. what was copied).
    void showMessage(const QString& message);

private:
    QWidget* parent_ = nullptr;
    QString group_;
    Report report_;
};
