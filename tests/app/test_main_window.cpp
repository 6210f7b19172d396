// The walkthrough window: opens on step 1, keys and clickers move through all eighteen steps and
// back from wherever the focus is (except a text field), the last step is remembered, the
// language switches at run time, and the command line is read as documented. File > Export is
// tested in test_export_actions.cpp, presentation mode in test_presentation_mode.cpp.
#include <QAction>
#include <QDialogButtonBox>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QtTest>

#include "app/gui/gui_setup.h"
#include "app/gui/main_window.h"
#include "views/heatmap_widget.h"
#include "views/step_page.h"
#include "window_test_settings.h"

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
    void presentationOption();
    void modelOptions();
};

void TestMainWindow::initTestCase() { useTestSettings("main-window"); }

void TestMainWindow::init() { QSettings().clear(); }

void TestMainWindow::opensOnStepOne() {
    MainWindow w;
    QCOMPARE(w.stepCount(), 20);
    QCOMPARE(w.currentStep(), 1);
    QCOMPARE(w.stepList()->currentRow(), 0);
    QCOMPARE(w.stepList()->count(), 20);
    QCOMPARE(w.stepList()->item(0)->text(), QStringLiteral("1. Input embeddings"));
    QVERIFY(w.stepList()->item(15)->text().startsWith(QStringLiteral("16. ")));
    QVERIFY(w.stepList()->item(19)->text().startsWith(QStringLiteral("20. ")));
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
    QTest::keyClick(&w, Qt::Key_Home);
    QCOMPARE(w.currentStep(), 1);
    QTest::keyClick(&w, Qt::Key_Left);  // before the start stays on step 1
    QCOMPARE(w.currentStep(), 1);
    QTest::keyClick(&w, Qt::Key_End);
    QCOMPARE(w.currentStep(), 20);
    QCOMPARE(w.currentPage()->step().id, std::string("flash-tiles"));
    // Its 12 tiles one key at a time, then past the end stays on the last step.
    for (int i = 0; i < 11; ++i) QTest::keyClick(&w, Qt::Key_Right);
    QCOMPARE(w.currentPage()->frame(), 11);
    QTest::keyClick(&w, Qt::Key_Right);
    QCOMPARE(w.currentStep(), 20);
    QCOMPARE(w.currentPage()->frame(), 11);
    QTest::keyClick(&w, Qt::Key_Home);
    QTest::keyClick(&w, Qt::Key_End);  // entered afresh: on its first tile
    QCOMPARE(w.currentStep(), 20);
    QTest::keyClick(&w, Qt::Key_PageUp);  // back into RoPE, on its last frame
    QCOMPARE(w.currentStep(), 19);
    QCOMPARE(w.currentPage()->frame(), 2);
    QTest::keyClick(&w, Qt::Key_PageUp);
    QCOMPARE(w.currentStep(), 19);
    QCOMPARE(w.currentPage()->frame(), 1);
    QTest::keyClick(&w, Qt::Key_PageDown);
    QCOMPARE(w.currentPage()->frame(), 2);
    QTest::keyClick(&w, Qt::Key_PageDown);
    QCOMPARE(w.currentStep(), 20);
    w.goToStep(15);
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
    QCOMPARE(w.currentStep(), 20);
    // From a heatmap of the page and from the read-only snippet.
    views::HeatmapWidget* map = w.currentPage()->heatmaps().constFirst();
    map->setFocus();
    QTest::keyClick(map, Qt::Key_PageUp);
    QCOMPARE(w.currentStep(), 19);
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
    QCOMPARE(w.currentStep(), 20);
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
    // Qt's own buttons (the Close of Help > Keyboard shortcuts) follow: qtbase's translation is
    // installed by scripts/setup (qt6-translations-l10n) and loaded with ours.
    QCOMPARE(QDialogButtonBox(QDialogButtonBox::Close).button(QDialogButtonBox::Close)->text(),
             QStringLiteral("关闭"));

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
    // The screenshot options belong to the test program attention-visualizer-shots.
    QTest::newRow("--walk") << QStringList{"--walk"} << int(S::Error) << 0 << QString();
    QTest::newRow("--screenshot-dir")
        << QStringList{"--screenshot-dir", "/tmp/x"} << int(S::Error) << 0 << QString();
    QTest::newRow("--window-size")
        << QStringList{"--window-size", "1280x720"} << int(S::Error) << 0 << QString();
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
    // The screenshot options are the test program's (attention-visualizer-shots): the app
    // neither lists them nor accepts them, and refuses them as it refuses any unknown option.
    for (const char* option : {"--walk", "--screenshot-dir", "--window-size"})
        QVERIFY2(!help.contains(QLatin1String(option)), option);
    const QString unknown = parse({"--bogus"}, &status, &options).constFirst();
    QCOMPARE(status, GuiParseResult::Status::Error);
    const QList<QStringList> testOnly{
        {"--screenshot-dir", "/tmp/x"}, {"--walk"}, {"--window-size", "1280x720"}};
    for (const QStringList& args : testOnly) {
        const QString refused =
            parse(args + QStringList{"--example", "e.json"}, &status, &options).constFirst();
        QCOMPARE(status, GuiParseResult::Status::Error);
        const QString name = args.constFirst().mid(2);
        QCOMPARE(refused, QString(unknown).replace(QStringLiteral("bogus"), name));
    }

    parse({"--example", "e.json"}, &status, &options);
    QCOMPARE(status, GuiParseResult::Status::Ok);
    QCOMPARE(options.exampleFile, QStringLiteral("e.json"));
}

// --model, --dump, --text and --pair open the model window; mistakes are refused with the fix.
void TestMainWindow::modelOptions() {
    GuiParseResult::Status status{};
    GuiOptions options;
    parse({"--model", "gpt2", "--text", "The cat sat"}, &status, &options);
    QCOMPARE(status, GuiParseResult::Status::Ok);
    QCOMPARE(options.model, QStringLiteral("gpt2"));
    QCOMPARE(options.modelText, QStringLiteral("The cat sat"));
    parse({"--dump", "bert.npy"}, &status, &options);
    QCOMPARE(status, GuiParseResult::Status::Ok);
    QCOMPARE(options.dump, QStringLiteral("bert.npy"));
    QVERIFY(options.model.isEmpty());
    const QString both = parse({"--model", "gpt2", "--dump", "a.npy"}, &status, &options).first();
    QCOMPARE(status, GuiParseResult::Status::Error);
    QVERIFY2(both.contains("give one of them"), qPrintable(both));
    const QString lonely = parse({"--text", "hello"}, &status, &options).first();
    QCOMPARE(status, GuiParseResult::Status::Error);
    QVERIFY2(lonely.contains("--text needs --model"), qPrintable(lonely));
    parse({"--model", "bert-tiny", "--text", "A", "--pair", "it was sunny"}, &status, &options);
    QCOMPARE(status, GuiParseResult::Status::Ok);
    QCOMPARE(options.modelPair, QStringLiteral("it was sunny"));
    const QString pairAlone = parse({"--pair", "B"}, &status, &options).first();
    QCOMPARE(status, GuiParseResult::Status::Error);
    QVERIFY2(pairAlone.contains("--pair needs --model"), qPrintable(pairAlone));
    const QString help = parse({"--help"}, &status, &options).constFirst();
    for (const char* option : {"--model", "--dump", "--text", "--pair"})
        QVERIFY2(help.contains(QLatin1String(option)), option);
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

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
