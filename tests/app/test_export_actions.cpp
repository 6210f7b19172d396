// File > Export of the walkthrough window (ExportActions): the menu and a heatmap's right-click
// menu act on the heatmap last pointed at, the step's and the walkthrough's figures are written
// with the names and frames shown, copying puts the figure on the clipboard, the export dialog
// collects the options it shows, and the actions' dialogs remember the last choices and ask before
// replacing files (ExportFlow, the flow every window shares).
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

#include "app/gui/export_actions.h"
#include "app/gui/export_dialog.h"
#include "app/gui/main_window.h"
#include "modal_dialogs.h"
#include "model/examples.h"
#include "model/walkthrough.h"
#include "views/figure_render.h"
#include "views/heatmap_widget.h"
#include "views/step_page.h"
#include "window_test_settings.h"

namespace {

QByteArray readFileBytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QStringList actionTexts(const QMenu* menu) {
    QStringList texts;
    for (const QAction* a : menu->actions())
        if (!a->isSeparator()) texts << a->text().remove(QLatin1Char('&'));
    return texts;
}

}  // namespace

class TestExportActions : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void exportMenuAndContextMenu();
    void exportFromWindow();
    void exportDialogOptions();
    void exportDialogsRememberAndAsk();
    void exportHandout();
};

void TestExportActions::initTestCase() { useTestSettings("export-actions"); }

void TestExportActions::init() { QSettings().clear(); }

void TestExportActions::exportMenuAndContextMenu() {
    MainWindow w;
    w.goToStep(11);
    const QStringList all{"Export heatmap…", "Export all heatmaps of this step…",
                          "Export the whole walkthrough…", "Copy figure", "Export matrix as CSV…"};
    QCOMPARE(actionTexts(w.exportActions()->menu()), all);
    // Nothing pointed at yet: the page's first heatmap.
    views::StepPage* page = w.currentPage();
    QCOMPARE(w.exportActions()->activeHeatmap(), page->heatmap("attn-scores"));
    // Pointing at a cell makes that heatmap the one File > Export acts on.
    views::HeatmapWidget* weights = page->heatmap("causal-weights");
    emit weights->cellHovered(2, 1);
    QCOMPARE(w.exportActions()->activeHeatmap(), weights);
    // A right click offers the same actions, acting on the heatmap clicked.
    views::HeatmapWidget* scores = page->heatmap("masked-scores");
    QCOMPARE(scores->contextMenuPolicy(), Qt::CustomContextMenu);
    const std::unique_ptr<QMenu> menu(w.exportActions()->createHeatmapMenu(scores));
    QStringList sorted = actionTexts(menu.get());
    sorted.sort();
    // ... and the colour range of the heatmap clicked.
    QStringList expected = all + QStringList{"Colour range"};
    expected.sort();
    QCOMPARE(sorted, expected);
    QCOMPARE(w.exportActions()->activeHeatmap(), scores);
    // Another step: its own first heatmap again.
    w.goToStep(14);
    QCOMPARE(w.exportActions()->activeHeatmap(), w.currentPage()->heatmap("wrapper-head-1"));

    // Copy figure: the image on the clipboard, at twice the figure's pixels.
    QApplication::clipboard()->clear();
    w.exportActions()->copyFigure(w.currentPage()->heatmap("head-2"));
    const QImage copied = QApplication::clipboard()->image();
    QVERIFY(!copied.isNull());
    QVERIFY2(copied.width() >= 640 && copied.height() >= 480,
             qPrintable(QString("%1x%2").arg(copied.width()).arg(copied.height())));
}

void TestExportActions::exportFromWindow() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    MainWindow w;
    ExportActions* exports = w.exportActions();
    w.goToStep(14);
    views::FigureOptions options;
    options.format = views::FigureFormat::Svg;
    QStringList written;
    QString error;
    QVERIFY2(exports->exportStepFigures(dir.filePath("step14"), options, &written, &error),
             qPrintable(error));
    QCOMPARE(written.size(), w.currentPage()->matrixIds().size());
    QVERIFY(written.contains(QDir(dir.filePath("step14")).filePath("step-14-head-2.svg")));
    // The same again is refused unless replacing is allowed.
    QVERIFY(!exports->exportStepFigures(dir.filePath("step14"), options, &written, &error));
    QVERIFY2(error.contains("already exists"), qPrintable(error));

    // The KV-cache page exports the frame it shows.
    w.goToStep(16);
    w.currentPage()->setFrame(2);
    options.format = views::FigureFormat::Csv;
    QVERIFY2(exports->exportStepFigures(dir.filePath("kv"), options, &written, &error),
             qPrintable(error));
    QStringList names;
    for (const QString& path : written) names << QFileInfo(path).fileName();
    names.sort();
    QCOMPARE(names,
             QStringList({"step-16-cached-keys-frame-3.csv", "step-16-cached-outputs-frame-3.csv",
                          "step-16-cached-values-frame-3.csv", "step-16-full-output.csv",
                          "step-16-new-query-frame-3.csv", "step-16-new-weights-head-1-frame-3.csv",
                          "step-16-new-weights-head-2-frame-3.csv"}));
    // Frame 3 holds three cached keys: a header and three rows.
    QCOMPARE(QFile(dir.filePath("kv/step-16-cached-keys-frame-3.csv")).size() > 0, true);
    QFile keys(dir.filePath("kv/step-16-cached-keys-frame-3.csv"));
    QVERIFY(keys.open(QIODevice::ReadOnly));
    QCOMPARE(keys.readAll().count('\n'), 4);

    // One heatmap, under a name of the user's choosing.
    const QString single = dir.filePath("mine.png");
    options = {};
    QVERIFY2(exports->exportHeatmap(w.currentPage()->heatmap("new-weights-head-1"), single, options,
                                    &error),
             qPrintable(error));
    QVERIFY(!QImage(single).isNull());

    // The whole walkthrough: every step, one file per heatmap.
    w.currentPage()->setFrame(5);
    options.format = views::FigureFormat::Csv;
    QVERIFY2(exports->exportWalkthrough(dir.filePath("all"), options, &written, &error),
             qPrintable(error));
    QCOMPARE(written.size(), 110);  // the tutorial's 84, GQA's 8, masks' 4, RoPE's 7, tiles' 7
    QCOMPARE(QDir(dir.filePath("all")).entryList(QDir::Files).size(), 110);
}

void TestExportActions::exportDialogOptions() {
    ExportDialog dialog(ExportDialog::Target::Heatmap, "/tmp/figures/step-11-causal-weights.png",
                        QSize(480, 400));
    views::FigureOptions o = dialog.options();
    QCOMPARE(o.format, views::FigureFormat::Png);
    QVERIFY(o.size.isEmpty());  // fitted to the matrix
    QCOMPARE(o.scale, 1.0);
    QVERIFY(o.title && o.values && !o.transparent && o.colorMap.isEmpty());
    QVERIFY(dialog.scaleBox()->isEnabled());
    QVERIFY(!dialog.widthBox()->isEnabled());

    dialog.formatBox()->setCurrentIndex(
        dialog.formatBox()->findData(int(views::FigureFormat::Svg)));
    QCOMPARE(dialog.destination(), QString("/tmp/figures/step-11-causal-weights.svg"));
    QVERIFY(!dialog.scaleBox()->isEnabled());  // vector: no pixels to scale
    dialog.fitBox()->setChecked(false);
    dialog.widthBox()->setValue(700);
    dialog.heightBox()->setValue(500);
    dialog.valuesBox()->setChecked(false);
    dialog.colorMapBox()->setCurrentIndex(dialog.colorMapBox()->findData(QString("cividis")));
    dialog.backgroundBox()->setCurrentIndex(1);
    o = dialog.options();
    QCOMPARE(o.format, views::FigureFormat::Svg);
    QCOMPARE(o.size, QSize(700, 500));
    QVERIFY(!o.values && o.title && o.transparent);
    QCOMPARE(o.colorMap, QString("cividis"));

    dialog.formatBox()->setCurrentIndex(
        dialog.formatBox()->findData(int(views::FigureFormat::Png)));
    dialog.scaleBox()->setValue(4.0);
    QCOMPARE(dialog.options().scale, 4.0);
    QCOMPARE(dialog.destination(), QString("/tmp/figures/step-11-causal-weights.png"));

    dialog.formatBox()->setCurrentIndex(
        dialog.formatBox()->findData(int(views::FigureFormat::Csv)));
    QVERIFY(!dialog.titleBox()->isEnabled() && !dialog.backgroundBox()->isEnabled());
    QVERIFY(!dialog.options().transparent);
    QVERIFY(dialog.destination().endsWith(".csv"));

    // Round trip through setOptions, as the window restores the last export's choices.
    ExportDialog folder(ExportDialog::Target::Walkthrough, "/tmp/figures", QSize());
    folder.setOptions(o);
    const views::FigureOptions back = folder.options();
    QCOMPARE(back.format, o.format);
    QCOMPARE(back.size, o.size);
    QCOMPARE(back.values, o.values);
    QCOMPARE(back.colorMap, o.colorMap);
    QCOMPARE(back.transparent, o.transparent);
    QCOMPARE(folder.destination(), QString("/tmp/figures"));
}

void TestExportActions::exportDialogsRememberAndAsk() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    MainWindow w;
    w.goToStep(11);
    const QList<QAction*> actions = w.exportActions()->windowActions();
    QAction* exportHeatmap = actions.at(0);
    QAction* exportStep = actions.at(1);
    QCOMPARE(exportHeatmap->text(), QStringLiteral("Export &heatmap…"));
    QCOMPARE(exportStep->text(), QStringLiteral("Export all heatmaps of this &step…"));

    // Nothing remembered yet: a PNG named after the page's first heatmap. The user picks SVG and
    // a folder.
    const QString svg = dir.filePath(QStringLiteral("step-11-attn-scores.svg"));
    QString offered;
    answerModal<ExportDialog>(QDialog::Accepted, [&](ExportDialog* d) {
        offered = d->destination();
        d->formatBox()->setCurrentIndex(d->formatBox()->findData(int(views::FigureFormat::Svg)));
        d->setDestination(svg);
    });
    exportHeatmap->trigger();
    QCOMPARE(QFileInfo(offered).fileName(), QStringLiteral("step-11-attn-scores.png"));
    QVERIFY(readFileBytes(svg).contains("<svg"));
    QCOMPARE(w.statusBar()->currentMessage(),
             QStringLiteral("Saved ") + QDir::toNativeSeparators(svg));
    QCOMPARE(QSettings().value(QStringLiteral("export/folder")).toString(), dir.path());
    QCOMPARE(QSettings().value(QStringLiteral("export/format")).toString(), QStringLiteral("svg"));

    // All heatmaps of the step: the folder and format remembered; one file is there already, and
    // nothing is written unless the user agrees to replace it.
    QString question;
    views::FigureFormat offeredFormat = views::FigureFormat::Png;
    answerModal<ExportDialog>(QDialog::Accepted, [&](ExportDialog* d) {
        offered = d->destination();
        offeredFormat = d->options().format;
        answerModal<QMessageBox>(QMessageBox::Cancel,
                                 [&](QMessageBox* box) { question = box->text(); });
    });
    exportStep->trigger();
    QCOMPARE(offered, dir.path());
    QCOMPARE(offeredFormat, views::FigureFormat::Svg);
    QCOMPARE(question,
             QDir::toNativeSeparators(svg) + QStringLiteral(" already exists. Replace it?"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files),
             QStringList{QStringLiteral("step-11-attn-scores.svg")});
    answerModal<ExportDialog>(QDialog::Accepted,
                              [](ExportDialog*) { answerModal<QMessageBox>(QMessageBox::Yes); });
    exportStep->trigger();
    const QStringList names =
        views::figureFileNames(views::pageFigures(*w.currentPage()), views::FigureFormat::Svg);
    QStringList sorted = names;
    sorted.sort();
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files, QDir::Name), sorted);
    QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Figures saved: %1, in %2")
                                                  .arg(names.size())
                                                  .arg(QDir::toNativeSeparators(dir.path())));
}

void TestExportActions::exportHandout() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    attn::Sequence cat;
    cat.tokens = {"the", "cat", "sat", "down"};
    cat.embeddings = attn::Matrix(4, 3);
    cat.embeddings << 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 0.2f, 0.1f, 0.4f;
    MainWindow w(attn::build_walkthrough(cat));
    // File > Export handout…, beside the Export submenu.
    QMenu* fileMenu = qobject_cast<QMenu*>(w.exportActions()->menu()->parentWidget());
    QVERIFY(fileMenu);
    QVERIFY(actionTexts(fileMenu).contains("Export handout…"));

    // The window's example and language arrive in the handout.
    QVERIFY(w.setLanguage("zh_CN"));
    const QString html = dir.filePath("cat.html");
    QString error;
    int reported = 0;
    QVERIFY2(w.exportActions()->exportHandout(html, &error,
                                              [&](int done, int total) {
                                                  reported = done;
                                                  return total == w.stepCount();
                                              }),
             qPrintable(error));
    QCOMPARE(reported, w.stepCount());
    const QString page = QString::fromUtf8(readFileBytes(html));
    QVERIFY(page.contains("<html lang=\"zh-CN\">"));
    QVERIFY(page.contains("the cat sat down"));
    QVERIFY(!page.contains("journey starts"));
    QVERIFY(page.contains(QString::fromUtf8("缩放点积注意力")));

    const QString pdf = dir.filePath("cat.pdf");
    QVERIFY2(w.exportActions()->exportHandout(pdf, &error), qPrintable(error));
    QVERIFY(readFileBytes(pdf).startsWith("%PDF-"));

    // Cancelled after the first step: nothing written.
    const QString cancelled = dir.filePath("cancelled.pdf");
    QVERIFY(!w.exportActions()->exportHandout(cancelled, &error, [](int, int) { return false; }));
    QVERIFY(!QFileInfo::exists(cancelled));
    // Neither PDF nor HTML, and a folder that is a file: refused with a message, no file.
    QVERIFY(!w.exportActions()->exportHandout(dir.filePath("cat.docx"), &error));
    QVERIFY2(error.contains(".pdf") && error.contains(".html"), qPrintable(error));
    QVERIFY(!w.exportActions()->exportHandout(dir.filePath("cat.pdf/inner.pdf"), &error));
    QVERIFY2(error.contains("inner.pdf"), qPrintable(error));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden, QDir::Name),
             QStringList({"cat.html", "cat.pdf"}));
}

QTEST_MAIN(TestExportActions)
#include "test_export_actions.moc"
