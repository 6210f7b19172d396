// Presentation mode of the walkthrough window (PresentationMode): full screen without the step
// list, menus and buttons, its own remembered zoom, keys and clickers that navigate and scroll,
// the themes and their high-contrast variants, and reveal, row by row.
#include <QListWidget>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QtTest>

#include "app/gui/main_window.h"
#include "app/gui/presentation_mode.h"
#include "views/heatmap_widget.h"
#include "views/step_page.h"
#include "window_test_settings.h"

class TestPresentationMode : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void presentationMode();
    void presentationKeys();
    void themes();
    void revealRowByRow();
};

void TestPresentationMode::initTestCase() { useTestSettings("presentation-mode"); }

void TestPresentationMode::init() { QSettings().clear(); }

void TestPresentationMode::presentationMode() {
    MainWindow w;
    w.resize(1000, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.goToStep(5);
    QVERIFY(w.stepList()->isVisible());
    QVERIFY(w.menuBar()->isVisible());
    QCOMPARE(w.currentPage()->scale(), 1.0);

    w.presentationMode()->setActive(true);
    QVERIFY(w.presentationMode()->isActive());
    QVERIFY(w.windowState() & Qt::WindowFullScreen);
    QVERIFY(!w.stepList()->isVisible());
    QVERIFY(!w.menuBar()->isVisible());
    for (QPushButton* b : w.findChildren<QPushButton*>())
        if (b->text().contains("Next") || b->text().contains("Previous")) QVERIFY(!b->isVisible());
    // Larger text and cells, on the page shown and on pages built later.
    QCOMPARE(w.currentPage()->scale(), w.presentationMode()->zoom());
    QVERIFY(w.presentationMode()->zoom() >= 1.5);
    QCOMPARE(w.currentPage()->heatmaps().constFirst()->scale(), w.presentationMode()->zoom());
    QCOMPARE(w.page(9)->scale(), w.presentationMode()->zoom());
    // High contrast: black on white by default.
    QCOMPARE(w.palette().color(QPalette::Window), QColor(Qt::white));
    QCOMPARE(w.palette().color(QPalette::WindowText), QColor(Qt::black));
    // Zooming while presenting changes the presentation's zoom only.
    w.setZoom(2.0);
    QCOMPARE(w.presentationMode()->zoom(), 2.0);
    QCOMPARE(w.currentPage()->scale(), 2.0);
    QCOMPARE(w.zoom(), 1.0);

    w.presentationMode()->setActive(false);
    QVERIFY(!(w.windowState() & Qt::WindowFullScreen));
    QVERIFY(w.stepList()->isVisible());
    QVERIFY(w.menuBar()->isVisible());
    QCOMPARE(w.currentPage()->scale(), 1.0);
    QCOMPARE(w.page(9)->scale(), 1.0);
    // Remembered for the next presentation.
    MainWindow again;
    QCOMPARE(again.presentationMode()->zoom(), 2.0);
}

void TestPresentationMode::presentationKeys() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.goToStep(3);
    // F11 enters (the window's own action, so it works with the menu bar hidden) ...
    QTest::keyClick(&w, Qt::Key_F11);
    QVERIFY(w.presentationMode()->isActive());
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
    QVERIFY(!w.presentationMode()->isActive());
    QVERIFY(w.stepList()->isVisible());
    QTest::keyClick(&w, Qt::Key_F11);
    QVERIFY(w.presentationMode()->isActive());
    QTest::keyClick(&w, Qt::Key_F11);
    QVERIFY(!w.presentationMode()->isActive());
    // Escape outside presentation mode does nothing to the window.
    QTest::keyClick(&w, Qt::Key_Escape);
    QVERIFY(!w.presentationMode()->isActive());
    QCOMPARE(w.currentStep(), 3);
}

void TestPresentationMode::themes() {
    {
        MainWindow w;
        const QColor system = w.palette().color(QPalette::Window);
        w.presentationMode()->setTheme(PresentationMode::Theme::Dark);
        QVERIFY(w.palette().color(QPalette::Window).lightness() < 60);
        QVERIFY(w.palette().color(QPalette::WindowText).lightness() > 200);
        w.presentationMode()->setActive(true);  // high contrast: white on black
        QCOMPARE(w.palette().color(QPalette::Window), QColor(Qt::black));
        QCOMPARE(w.palette().color(QPalette::WindowText), QColor(Qt::white));
        w.presentationMode()->setActive(false);
        w.presentationMode()->setTheme(PresentationMode::Theme::Light);
        QVERIFY(w.palette().color(QPalette::Window).lightness() > 230);
        QVERIFY(w.palette().color(QPalette::WindowText).lightness() < 40);
        w.presentationMode()->setTheme(PresentationMode::Theme::System);
        QCOMPARE(w.palette().color(QPalette::Window), system);
        w.presentationMode()->setTheme(PresentationMode::Theme::Dark);
    }
    MainWindow again;  // remembered
    QCOMPARE(again.presentationMode()->theme(), PresentationMode::Theme::Dark);
    QVERIFY(again.palette().color(QPalette::Window).lightness() < 60);
}

// Reveal: the matrices a step computes appear row by row on each key, so a class can predict the
// next numbers; then the next key moves on.
void TestPresentationMode::revealRowByRow() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.goToStep(11);
    w.presentationMode()->setActive(true);
    w.presentationMode()->setReveal(true);
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
    w.presentationMode()->setReveal(false);
    for (const QString& id : computed) QCOMPARE(page->heatmap(id)->revealedRows(), -1);
    QTest::keyClick(page, Qt::Key_Space);  // presenting without reveal: Space is "next"
    QCOMPARE(w.currentStep(), 12);
    QCOMPARE(w.currentPage()->heatmap("dropped-weights")->revealedRows(), -1);
}

QTEST_MAIN(TestPresentationMode)
#include "test_presentation_mode.moc"
