// The walkthrough window (issue #3): opens on step 1, keys and clickers move through all sixteen
// steps and back from wherever the focus is (except a text field), the last step is remembered,
// the language switches at run time, and the command line is read as documented.
#include <QAction>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/export_dialog.h"
#include "app/gui/gui_setup.h"
#include "app/gui/main_window.h"
#include "views/figure_export.h"
#include "views/heatmap_widget.h"
#include "views/step_page.h"

namespace {

bool containsCjk(const QString& s) {
    static const QRegularExpression cjk(QStringLiteral("[\\x{4e00}-\\x{9fff}]"));
    return cjk.match(s).hasMatch();
}

QStringList parse(const QStringList& args, GuiParseResult::Status* status, GuiOptions* options) {
    const GuiParseResult r = parseGuiOptions(QStringList{"attention-visualizer"} + args);
    *status = r.status;
    *options = r.options;
    return {r.text};
}

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void opensOnStepOne();
    void keysNavigate();
    void keysWorkFromChildren();
    void textFieldsKeepTheirKeys();
    void buttonsAndListNavigate();
    void remembersLastStep();
    void everyPageMatchesItsStep();
    void showNumbersMenu();
    void zoom();
    void languageSwitch();
    void commandLine_data();
    void commandLine();
    void helpListsOptions();
    // Issue 5: export from the window, presentation mode, reveal, themes.
    void exportMenuAndContextMenu();
    void exportFromWindow();
    void exportDialogOptions();
    void presentationMode();
    void presentationKeys();
    void presentationOption();
    void themes();
    void revealRowByRow();
};

void TestMainWindow::initTestCase() {
    // Never read or write the user's real settings (~/.config).
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionVisualizer"));
    QCoreApplication::setApplicationName(QStringLiteral("attention-visualizer"));
}

void TestMainWindow::init() { QSettings().clear(); }

void TestMainWindow::opensOnStepOne() {
    MainWindow w;
    QCOMPARE(w.stepCount(), 16);
    QCOMPARE(w.currentStep(), 1);
    QCOMPARE(w.stepList()->currentRow(), 0);
    QCOMPARE(w.stepList()->count(), 16);
    QCOMPARE(w.stepList()->item(0)->text(), QStringLiteral("1. Input embeddings"));
    QVERIFY(w.stepList()->item(15)->text().startsWith(QStringLiteral("16. ")));
    // The current step is marked in the list.
    QVERIFY(w.stepList()->item(0)->font().bold());
    QVERIFY(!w.stepList()->item(1)->font().bold());
    QCOMPARE(w.currentPage()->step().number, 1);
    // 1400 × 900, or 95 % of a smaller screen (the offscreen platform's is 800 × 600).
    const QSize expected = QSize(1400, 900).boundedTo(
        QGuiApplication::primaryScreen()->availableGeometry().size() * 0.95);
    QCOMPARE(w.size(), expected);
}

void TestMainWindow::keysNavigate() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    for (int i = 0; i < 15; ++i) QTest::keyClick(&w, Qt::Key_Right);
    QCOMPARE(w.currentStep(), 16);
    QCOMPARE(w.currentPage()->step().id, std::string("kv-cache"));
    QTest::keyClick(&w, Qt::Key_Right);  // past the end stays on the last step
    QCOMPARE(w.currentStep(), 16);
    QTest::keyClick(&w, Qt::Key_Home);
    QCOMPARE(w.currentStep(), 1);
    QTest::keyClick(&w, Qt::Key_Left);  // before the start stays on step 1
    QCOMPARE(w.currentStep(), 1);
    QTest::keyClick(&w, Qt::Key_End);
    QCOMPARE(w.currentStep(), 16);
    QTest::keyClick(&w, Qt::Key_PageUp);
    QCOMPARE(w.currentStep(), 15);
    QTest::keyClick(&w, Qt::Key_PageUp);
    QCOMPARE(w.currentStep(), 14);
    QTest::keyClick(&w, Qt::Key_PageDown);
    QCOMPARE(w.currentStep(), 15);
    for (int i = 0; i < 14; ++i) QTest::keyClick(&w, Qt::Key_Left);
    QCOMPARE(w.currentStep(), 1);
    QCOMPARE(w.stepList()->currentRow(), 0);
    // Modified keys are not navigation (Shift+Right selects text elsewhere).
    QTest::keyClick(&w, Qt::Key_Right, Qt::ShiftModifier);
    QCOMPARE(w.currentStep(), 1);
}

void TestMainWindow::keysWorkFromChildren() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    // From the step list, which would otherwise move its own selection on Home/End.
    w.stepList()->setFocus();
    QTest::keyClick(w.stepList(), Qt::Key_Right);
    QCOMPARE(w.currentStep(), 2);
    QTest::keyClick(w.stepList(), Qt::Key_End);
    QCOMPARE(w.currentStep(), 16);
    // From a heatmap of the page and from the read-only snippet.
    attn::HeatmapWidget* map = w.currentPage()->heatmaps().constFirst();
    map->setFocus();
    QTest::keyClick(map, Qt::Key_PageUp);
    QCOMPARE(w.currentStep(), 15);
    QPlainTextEdit* snippet = w.currentPage()->findChild<QPlainTextEdit*>();
    QVERIFY(snippet && snippet->isReadOnly());
    QTest::keyClick(snippet, Qt::Key_Home);
    QCOMPARE(w.currentStep(), 1);
}

void TestMainWindow::textFieldsKeepTheirKeys() {
    MainWindow w;
    auto* edit = new QLineEdit(QStringLiteral("query"), w.statusBar());
    w.statusBar()->addWidget(edit);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    edit->setFocus();
    edit->setCursorPosition(0);
    QTest::keyClick(edit, Qt::Key_Right);
    QTest::keyClick(edit, Qt::Key_End);
    QCOMPARE(w.currentStep(), 1);
    QCOMPARE(edit->cursorPosition(), 5);
}

void TestMainWindow::buttonsAndListNavigate() {
    MainWindow w;
    QSignalSpy spy(&w, &MainWindow::stepChanged);
    QPushButton* next = nullptr;
    QPushButton* previous = nullptr;
    for (QPushButton* b : w.findChildren<QPushButton*>()) {
        if (b->text().contains(QStringLiteral("Next ▶"))) next = b;
        if (b->text().contains(QStringLiteral("◀")) &&
            b->text().contains(QStringLiteral("Previous")) &&
            !b->text().contains(QStringLiteral("token")))
            previous = b;
    }
    QVERIFY(next && previous);
    QVERIFY(!previous->isEnabled());
    next->click();
    QCOMPARE(w.currentStep(), 2);
    QVERIFY(previous->isEnabled());
    w.stepList()->setCurrentRow(11);
    QCOMPARE(w.currentStep(), 12);
    QCOMPARE(w.currentPage()->step().id, std::string("dropout"));
    previous->click();
    QCOMPARE(w.currentStep(), 11);
    QCOMPARE(spy.count(), 3);
    QCOMPARE(spy.last().at(0).toInt(), 11);
    w.goToStep(99);
    QCOMPARE(w.currentStep(), 16);
    QVERIFY(!next->isEnabled());
}

void TestMainWindow::remembersLastStep() {
    {
        MainWindow first;
        QCOMPARE(first.currentStep(), 1);
        first.goToStep(7);
        first.close();
    }
    MainWindow second;
    QCOMPARE(second.currentStep(), 7);
    QCOMPARE(second.stepList()->currentRow(), 6);
    QCOMPARE(second.currentPage()->step().id, std::string("queries-keys-values"));
}

void TestMainWindow::everyPageMatchesItsStep() {
    const std::vector<attn::Step> steps = attn::build_walkthrough();
    MainWindow w;
    for (int n = 1; n <= w.stepCount(); ++n) {
        w.goToStep(n);
        views::StepPage* page = w.currentPage();
        QCOMPARE(page->step().number, n);
        QCOMPARE(page->step().id, steps[static_cast<std::size_t>(n - 1)].id);
        QVERIFY(page->isVisibleTo(&w));
        QVERIFY(!page->heatmaps().isEmpty());
    }
}

void TestMainWindow::showNumbersMenu() {
    MainWindow w;
    w.goToStep(8);
    QAction* action = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text().contains(QStringLiteral("numbers"))) action = a;
    QVERIFY(action && action->isCheckable());
    QVERIFY(!w.showNumbers());
    action->trigger();
    QVERIFY(w.showNumbers());
    QVERIFY(w.currentPage()->showTables());
    // Pages built later follow the setting, and the setting is remembered.
    QVERIFY(w.page(14)->showTables());
    QVERIFY(QSettings().value(QStringLiteral("view/showNumbers")).toBool());
    // The page's own check box drives the menu too.
    w.page(3)->setShowTables(false);
    QVERIFY(!w.showNumbers());
    QVERIFY(!action->isChecked());
    QVERIFY(!w.currentPage()->showTables());
}

void TestMainWindow::zoom() {
    {
        MainWindow w;
        QCOMPARE(w.zoom(), 1.0);
        w.goToStep(8);
        w.setZoom(1.5);
        QCOMPARE(w.currentPage()->scale(), 1.5);
        QCOMPARE(w.currentPage()->heatmaps().constFirst()->scale(), 1.5);
        QCOMPARE(w.page(2)->scale(), 1.5);  // built after the change
        w.setZoom(10.0);
        QCOMPARE(w.zoom(), 2.5);
        w.setZoom(1.3);
    }
    MainWindow again;
    QCOMPARE(again.zoom(), 1.3);
    QCOMPARE(again.currentPage()->scale(), 1.3);
}

void TestMainWindow::languageSwitch() {
    MainWindow w;
    w.goToStep(11);
    QVERIFY(w.setLanguage(QStringLiteral("en")));
    const QString english = w.stepList()->item(0)->text();
    const QString englishTitle = w.currentPage()->title();
    const QString englishMenu = w.menuBar()->actions().constFirst()->text();
    QCOMPARE(english, QStringLiteral("1. Input embeddings"));

    // Needs the lead's resources/attention_visualizer_zh_CN.ts compiled into attn_gui.
    QVERIFY2(w.setLanguage(QStringLiteral("zh_CN")),
             "no :/i18n/attention_visualizer_zh_CN.qm: qt_add_translations missing for attn_gui");
    QCOMPARE(w.language(), QStringLiteral("zh_CN"));
    const QString chinese = w.stepList()->item(0)->text();
    QVERIFY2(chinese != english, qPrintable(chinese));
    QVERIFY2(containsCjk(chinese), qPrintable(chinese));
    QVERIFY(chinese.startsWith(QStringLiteral("1")));
    QVERIFY2(containsCjk(w.currentPage()->title()), qPrintable(w.currentPage()->title()));
    QVERIFY(w.menuBar()->actions().constFirst()->text() != englishMenu);
    // Every menu bar entry is retranslated, the Explore action included.
    QStringList menuTexts;
    for (const QAction* a : w.menuBar()->actions()) menuTexts << a->text();
    QVERIFY2(menuTexts.contains(QStringLiteral("探索(&E)")), qPrintable(menuTexts.join(u' ')));
    QVERIFY2(!menuTexts.contains(QStringLiteral("&Explore")), qPrintable(menuTexts.join(u' ')));
    // Pages built after the switch come up in Chinese too.
    QVERIFY(containsCjk(w.page(4)->title()));

    QVERIFY(w.setLanguage(QStringLiteral("en")));
    QCOMPARE(w.stepList()->item(0)->text(), english);
    QCOMPARE(w.currentPage()->title(), englishTitle);
    QCOMPARE(w.menuBar()->actions().constFirst()->text(), englishMenu);
}

void TestMainWindow::commandLine_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("step");
    QTest::addColumn<QString>("language");
    using S = GuiParseResult::Status;
    QTest::newRow("none") << QStringList{} << int(S::Ok) << 0 << QString();
    QTest::newRow("--step 5") << QStringList{"--step", "5"} << int(S::Ok) << 5 << QString();
    QTest::newRow("--lang zh_CN") << QStringList{"--lang", "zh_CN"} << int(S::Ok) << 0
                                  << QStringLiteral("zh_CN");
    QTest::newRow("--lang zh-cn") << QStringList{"--lang", "zh-cn"} << int(S::Ok) << 0
                                  << QStringLiteral("zh_CN");
    QTest::newRow("--lang en") << QStringList{"--lang=en"} << int(S::Ok) << 0
                               << QStringLiteral("en");
    QTest::newRow("--step 0") << QStringList{"--step", "0"} << int(S::Error) << 0 << QString();
    QTest::newRow("--step x") << QStringList{"--step", "x"} << int(S::Error) << 0 << QString();
    QTest::newRow("--lang fr") << QStringList{"--lang", "fr"} << int(S::Error) << 0 << QString();
    QTest::newRow("unknown") << QStringList{"--bogus"} << int(S::Error) << 0 << QString();
    QTest::newRow("stray") << QStringList{"file.json"} << int(S::Error) << 0 << QString();
    QTest::newRow("--walk alone") << QStringList{"--walk"} << int(S::Error) << 0 << QString();
    QTest::newRow("--version") << QStringList{"--version"} << int(S::Version) << 0 << QString();
}

void TestMainWindow::commandLine() {
    QFETCH(QStringList, args);
    QFETCH(int, status);
    QFETCH(int, step);
    QFETCH(QString, language);
    GuiParseResult::Status got{};
    GuiOptions options;
    const QStringList text = parse(args, &got, &options);
    QCOMPARE(int(got), status);
    if (got == GuiParseResult::Status::Error) {
        QVERIFY(!text.constFirst().isEmpty());
        return;
    }
    QCOMPARE(options.step, step);
    QCOMPARE(options.language, language);
}

void TestMainWindow::helpListsOptions() {
    GuiParseResult::Status status{};
    GuiOptions options;
    const QString help = parse({"--help"}, &status, &options).constFirst();
    QCOMPARE(status, GuiParseResult::Status::Help);
    for (const char* option : {"--step", "--lang", "--example", "--help", "--version"})
        QVERIFY2(help.contains(QLatin1String(option)), option);
    // The screenshot options are for the smoke test, not for users.
    QVERIFY(!help.contains(QStringLiteral("--walk")));
    QVERIFY(!help.contains(QStringLiteral("--screenshot-dir")));

    parse({"--screenshot-dir", "/tmp/x", "--walk", "--window-size", "1280x720", "--example",
           "e.json"},
          &status, &options);
    QCOMPARE(status, GuiParseResult::Status::Ok);
    QVERIFY(options.walk);
    QCOMPARE(options.screenshotDir, QStringLiteral("/tmp/x"));
    QCOMPARE(options.windowSize, QSize(1280, 720));
    QCOMPARE(options.exampleFile, QStringLiteral("e.json"));
}

// --- issue 5 ------------------------------------------------------------------------------------

namespace {

QStringList actionTexts(const QMenu* menu) {
    QStringList texts;
    for (const QAction* a : menu->actions())
        if (!a->isSeparator()) texts << a->text().remove(QLatin1Char('&'));
    return texts;
}

}  // namespace

void TestMainWindow::exportMenuAndContextMenu() {
    MainWindow w;
    w.goToStep(11);
    const QStringList all{"Export heatmap…", "Export all heatmaps of this step…",
                          "Export the whole walkthrough…", "Copy figure", "Export matrix as CSV…"};
    QCOMPARE(actionTexts(w.exportMenu()), all);
    // Nothing pointed at yet: the page's first heatmap.
    views::StepPage* page = w.currentPage();
    QCOMPARE(w.activeHeatmap(), page->heatmap("attn-scores"));
    // Pointing at a cell makes that heatmap the one File > Export acts on.
    attn::HeatmapWidget* weights = page->heatmap("causal-weights");
    emit weights->cellHovered(2, 1);
    QCOMPARE(w.activeHeatmap(), weights);
    // A right click offers the same actions, acting on the heatmap clicked.
    attn::HeatmapWidget* scores = page->heatmap("masked-scores");
    QCOMPARE(scores->contextMenuPolicy(), Qt::CustomContextMenu);
    const std::unique_ptr<QMenu> menu(w.createHeatmapMenu(scores));
    QStringList sorted = actionTexts(menu.get());
    sorted.sort();
    QStringList expected = all;
    expected.sort();
    QCOMPARE(sorted, expected);
    QCOMPARE(w.activeHeatmap(), scores);
    // Another step: its own first heatmap again.
    w.goToStep(14);
    QCOMPARE(w.activeHeatmap(), w.currentPage()->heatmap("wrapper-head-1"));

    // Copy figure: the image on the clipboard, at twice the figure's pixels.
    QApplication::clipboard()->clear();
    w.copyFigure(w.currentPage()->heatmap("head-2"));
    const QImage copied = QApplication::clipboard()->image();
    QVERIFY(!copied.isNull());
    QVERIFY2(copied.width() >= 640 && copied.height() >= 480,
             qPrintable(QString("%1x%2").arg(copied.width()).arg(copied.height())));
}

void TestMainWindow::exportFromWindow() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    MainWindow w;
    w.goToStep(14);
    views::FigureOptions options;
    options.format = views::FigureFormat::Svg;
    QStringList written;
    QString error;
    QVERIFY2(w.exportStepFigures(dir.filePath("step14"), options, &written, &error),
             qPrintable(error));
    QCOMPARE(written.size(), w.currentPage()->matrixIds().size());
    QVERIFY(written.contains(QDir(dir.filePath("step14")).filePath("step-14-head-2.svg")));
    // The same again is refused unless replacing is allowed.
    QVERIFY(!w.exportStepFigures(dir.filePath("step14"), options, &written, &error));
    QVERIFY2(error.contains("already exists"), qPrintable(error));

    // The KV-cache page exports the frame it shows.
    w.goToStep(16);
    w.currentPage()->setFrame(2);
    options.format = views::FigureFormat::Csv;
    QVERIFY2(w.exportStepFigures(dir.filePath("kv"), options, &written, &error), qPrintable(error));
    QStringList names;
    for (const QString& path : written) names << QFileInfo(path).fileName();
    names.sort();
    QCOMPARE(names,
             QStringList({"step-16-cached-keys-frame-3.csv", "step-16-cached-outputs-frame-3.csv",
                          "step-16-cached-values-frame-3.csv", "step-16-full-output.csv",
                          "step-16-new-query-frame-3.csv", "step-16-new-weights-frame-3.csv"}));
    // Frame 3 holds three cached keys: a header and three rows.
    QCOMPARE(QFile(dir.filePath("kv/step-16-cached-keys-frame-3.csv")).size() > 0, true);
    QFile keys(dir.filePath("kv/step-16-cached-keys-frame-3.csv"));
    QVERIFY(keys.open(QIODevice::ReadOnly));
    QCOMPARE(keys.readAll().count('\n'), 4);

    // One heatmap, under a name of the user's choosing.
    const QString single = dir.filePath("mine.png");
    options = {};
    QVERIFY2(w.exportHeatmap(w.currentPage()->heatmap("new-weights"), single, options, &error),
             qPrintable(error));
    QVERIFY(!QImage(single).isNull());

    // The whole walkthrough: every step, one file per heatmap.
    w.currentPage()->setFrame(5);
    options.format = views::FigureFormat::Csv;
    QVERIFY2(w.exportWalkthrough(dir.filePath("all"), options, &written, &error),
             qPrintable(error));
    QCOMPARE(written.size(), 81);
    QCOMPARE(QDir(dir.filePath("all")).entryList(QDir::Files).size(), 81);
}

void TestMainWindow::exportDialogOptions() {
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

void TestMainWindow::presentationMode() {
    MainWindow w;
    w.resize(1000, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.goToStep(5);
    QVERIFY(w.stepList()->isVisible());
    QVERIFY(w.menuBar()->isVisible());
    QCOMPARE(w.currentPage()->scale(), 1.0);

    w.setPresentation(true);
    QVERIFY(w.presentation());
    QVERIFY(w.windowState() & Qt::WindowFullScreen);
    QVERIFY(!w.stepList()->isVisible());
    QVERIFY(!w.menuBar()->isVisible());
    for (QPushButton* b : w.findChildren<QPushButton*>())
        if (b->text().contains("Next") || b->text().contains("Previous")) QVERIFY(!b->isVisible());
    // Larger text and cells, on the page shown and on pages built later.
    QCOMPARE(w.currentPage()->scale(), w.presentationZoom());
    QVERIFY(w.presentationZoom() >= 1.5);
    QCOMPARE(w.currentPage()->heatmaps().constFirst()->scale(), w.presentationZoom());
    QCOMPARE(w.page(9)->scale(), w.presentationZoom());
    // High contrast: black on white by default.
    QCOMPARE(w.palette().color(QPalette::Window), QColor(Qt::white));
    QCOMPARE(w.palette().color(QPalette::WindowText), QColor(Qt::black));
    // Zooming while presenting changes the presentation's zoom only.
    w.setZoom(2.0);
    QCOMPARE(w.presentationZoom(), 2.0);
    QCOMPARE(w.currentPage()->scale(), 2.0);
    QCOMPARE(w.zoom(), 1.0);

    w.setPresentation(false);
    QVERIFY(!(w.windowState() & Qt::WindowFullScreen));
    QVERIFY(w.stepList()->isVisible());
    QVERIFY(w.menuBar()->isVisible());
    QCOMPARE(w.currentPage()->scale(), 1.0);
    QCOMPARE(w.page(9)->scale(), 1.0);
    // Remembered for the next presentation.
    MainWindow again;
    QCOMPARE(again.presentationZoom(), 2.0);
}

void TestMainWindow::presentationKeys() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.goToStep(3);
    // F11 enters (the window's own action, so it works with the menu bar hidden) ...
    QTest::keyClick(&w, Qt::Key_F11);
    QVERIFY(w.presentation());
    // ... keys and clickers navigate ...
    QTest::keyClick(w.currentPage(), Qt::Key_PageDown);
    QCOMPARE(w.currentStep(), 4);
    QTest::keyClick(w.currentPage(), Qt::Key_Left);
    QCOMPARE(w.currentStep(), 3);
    // ... ↓ and ↑ scroll a long page, Space moves on ...
    w.goToStep(14);
    QScrollBar* bar = w.currentPage()->findChild<QScrollArea*>()->verticalScrollBar();
    QVERIFY(bar->maximum() > 0);
    QCOMPARE(bar->value(), 0);
    QTest::keyClick(w.currentPage(), Qt::Key_Down);
    QVERIFY(bar->value() > 0);
    QTest::keyClick(w.currentPage(), Qt::Key_Up);
    QCOMPARE(bar->value(), 0);
    QTest::keyClick(w.currentPage(), Qt::Key_Space);
    QCOMPARE(w.currentStep(), 15);
    w.goToStep(3);
    // ... Escape leaves, and F11 toggles.
    QTest::keyClick(w.currentPage(), Qt::Key_Escape);
    QVERIFY(!w.presentation());
    QVERIFY(w.stepList()->isVisible());
    QTest::keyClick(&w, Qt::Key_F11);
    QVERIFY(w.presentation());
    QTest::keyClick(&w, Qt::Key_F11);
    QVERIFY(!w.presentation());
    // Escape outside presentation mode does nothing to the window.
    QTest::keyClick(&w, Qt::Key_Escape);
    QVERIFY(!w.presentation());
    QCOMPARE(w.currentStep(), 3);
}

void TestMainWindow::presentationOption() {
    GuiParseResult::Status status{};
    GuiOptions options;
    parse({"--presentation", "--step", "7"}, &status, &options);
    QCOMPARE(status, GuiParseResult::Status::Ok);
    QVERIFY(options.presentation);
    QCOMPARE(options.step, 7);
    parse({"-p"}, &status, &options);
    QVERIFY(options.presentation);
    parse({}, &status, &options);
    QVERIFY(!options.presentation);
    const QString help = parse({"--help"}, &status, &options).constFirst();
    QVERIFY(help.contains("--presentation"));
}

void TestMainWindow::themes() {
    {
        MainWindow w;
        const QColor system = w.palette().color(QPalette::Window);
        w.setTheme(MainWindow::Theme::Dark);
        QVERIFY(w.palette().color(QPalette::Window).lightness() < 60);
        QVERIFY(w.palette().color(QPalette::WindowText).lightness() > 200);
        w.setPresentation(true);  // high contrast: white on black
        QCOMPARE(w.palette().color(QPalette::Window), QColor(Qt::black));
        QCOMPARE(w.palette().color(QPalette::WindowText), QColor(Qt::white));
        w.setPresentation(false);
        w.setTheme(MainWindow::Theme::Light);
        QVERIFY(w.palette().color(QPalette::Window).lightness() > 230);
        QVERIFY(w.palette().color(QPalette::WindowText).lightness() < 40);
        w.setTheme(MainWindow::Theme::System);
        QCOMPARE(w.palette().color(QPalette::Window), system);
        w.setTheme(MainWindow::Theme::Dark);
    }
    MainWindow again;  // remembered
    QCOMPARE(again.theme(), MainWindow::Theme::Dark);
    QVERIFY(again.palette().color(QPalette::Window).lightness() < 60);
}

// Reveal: the matrices a step computes appear row by row on each key, so a class can predict the
// next numbers; then the next key moves on.
void TestMainWindow::revealRowByRow() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.goToStep(11);
    w.setPresentation(true);
    w.setReveal(true);
    views::StepPage* page = w.currentPage();
    const QStringList computed{"masked-scores", "causal-weights", "method-difference"};
    // Given (the scores) or brought from the previous step for comparison: shown whole.
    QCOMPARE(page->heatmap("attn-scores")->revealedRows(), -1);
    QCOMPARE(page->heatmap("causal-weights-renormalized")->revealedRows(), -1);
    for (const QString& id : computed) QCOMPARE(page->heatmap(id)->revealedRows(), 0);

    attn::HeatmapWidget* first = page->heatmap("masked-scores");
    QTest::keyClick(page, Qt::Key_Space);
    QCOMPARE(first->revealedRows(), 1);
    QVERIFY(first->rowRevealed(0));
    QVERIFY(!first->rowRevealed(1));
    QTest::keyClick(page, Qt::Key_Down);
    QCOMPARE(first->revealedRows(), 2);
    QTest::keyClick(page, Qt::Key_Up);  // back one row
    QCOMPARE(first->revealedRows(), 1);
    for (int i = 0; i < 5; ++i) QTest::keyClick(page, Qt::Key_Space);
    QCOMPARE(first->revealedRows(), 6);
    QCOMPARE(page->heatmap("causal-weights")->revealedRows(), 0);
    QTest::keyClick(page, Qt::Key_PageDown);  // a clicker's "next" reveals too
    QCOMPARE(page->heatmap("causal-weights")->revealedRows(), 1);
    // The rest: 5 + 6 rows, all on this step.
    for (int i = 0; i < 11; ++i) QTest::keyClick(page, Qt::Key_Space);
    QCOMPARE(w.currentStep(), 11);
    for (const QString& id : computed) QCOMPARE(page->heatmap(id)->revealedRows(), 6);
    // Everything shown: the next key goes to the next step, which starts hidden.
    QTest::keyClick(page, Qt::Key_Space);
    QCOMPARE(w.currentStep(), 12);
    QCOMPARE(w.currentPage()->heatmap("dropped-weights")->revealedRows(), 0);
    QCOMPARE(w.currentPage()->heatmap("causal-weights")->revealedRows(), -1);
    // Left goes back a step, and the step starts hidden again.
    QTest::keyClick(w.currentPage(), Qt::Key_Left);
    QCOMPARE(w.currentStep(), 11);
    QCOMPARE(first->revealedRows(), 0);
    // Off: every row of every page shows.
    w.setReveal(false);
    for (const QString& id : computed) QCOMPARE(page->heatmap(id)->revealedRows(), -1);
    QTest::keyClick(page, Qt::Key_Space);  // presenting without reveal: Space is "next"
    QCOMPARE(w.currentStep(), 12);
    QCOMPARE(w.currentPage()->heatmap("dropped-weights")->revealedRows(), -1);
}

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
