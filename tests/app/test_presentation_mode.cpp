// Presentation mode of the walkthrough window (PresentationMode): full screen without the step
// list, menus and buttons, its own remembered zoom, keys and clickers that navigate and scroll,
// the themes and their high-contrast variants, and reveal, row by row.
#include <QGroupBox>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QtTest>
#include <algorithm>

#include "app/gui/main_window.h"
#include "app/gui/presentation_mode.h"
#include "model/walkthrough.h"
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
    void framesStepByClicker();
    void framesWhilePresenting();
    void revealFrameByFrame();
    void pageOpensAtItsTop();
    void pagesFitTheScreen_data();
    void pagesFitTheScreen();
    void denseStepInParts();
    void noTooltipsWhilePresenting();
};

namespace {

// The walkthrough's step with frames between two others, so it is entered from both sides.
std::vector<attn::Step> framesBetweenSteps() {
    std::vector<attn::Step> all = attn::build_walkthrough();
    std::vector<attn::Step> three;
    for (const attn::Step& s : all)
        if (s.frame_count > 1) three.push_back(s);
    three.insert(three.begin(), all.at(14));
    three.push_back(all.at(13));
    return three;
}

// Every heatmap of the shown frame of `page` shows all its rows.
bool frameFullyShown(views::StepPage* page) {
    for (views::HeatmapWidget* map : page->heatmaps())
        if (map->isVisibleTo(page) && map->revealedRows() >= 0 &&
            map->revealedRows() < map->rowCount())
            return false;
    return true;
}

}  // namespace

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
    // Drawn at the zoom, or smaller where the page would not fit the screen.
    QVERIFY(w.currentPage()->fitToHeight());
    QVERIFY(w.currentPage()->heatmaps().constFirst()->scale() <= w.presentationMode()->zoom());
    QCOMPARE(w.currentPage()->heatmaps().constFirst()->scale(), w.currentPage()->shownScale());
    QCOMPARE(w.page(9)->scale(), w.presentationMode()->zoom());
    QVERIFY(w.page(9)->fitToHeight());
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
    QCOMPARE(w.currentPage()->shownScale(), 1.0);
    QVERIFY(!w.currentPage()->fitToHeight());
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
    // ... keys and clickers navigate (through the parts of a step the small screen splits) ...
    views::StepPage* three = w.currentPage();
    QTRY_VERIFY(three->isVisible());
    for (int k = 1; k < three->partCount(); ++k) {
        QTest::keyClick(three, Qt::Key_PageDown);
        QCOMPARE(three->part(), k);
        QCOMPARE(w.currentStep(), 3);
    }
    QTest::keyClick(w.currentPage(), Qt::Key_PageDown);
    QCOMPARE(w.currentStep(), 4);
    QTest::keyClick(w.currentPage(), Qt::Key_Left);
    QCOMPARE(w.currentStep(), 3);
    QTRY_COMPARE(three->part(), three->partCount() - 1);  // back where it was left
    // ... ↓ and ↑ scroll a page that cannot fit (a tiny screen), Space moves on ...
    w.resize(480, 300);
    w.goToStep(14);
    QScrollBar* bar = w.currentPage()->findChild<QScrollArea*>()->verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 0);
    QCOMPARE(bar->value(), 0);
    QTest::keyClick(w.currentPage(), Qt::Key_Down);
    QVERIFY(bar->value() > 0);
    QTest::keyClick(w.currentPage(), Qt::Key_Up);
    QCOMPARE(bar->value(), 0);
    // Space: the step's next parts, then the next step.
    const int partsLeft = w.currentPage()->partCount() - w.currentPage()->part();
    for (int k = 0; k < partsLeft; ++k) {
        QCOMPARE(w.currentStep(), 14);
        QTest::keyClick(w.currentPage(), Qt::Key_Space);
    }
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
    // The matrices the step computes start hidden; the given ones (inputs, parameters) show.
    QStringList computed;
    int hiddenRows = 0;
    for (const QString& id : page->matrixIds()) {
        const attn::StepMatrix* m = page->shownMatrix(id);
        QVERIFY(m);
        if (m->derivation == attn::Derivation::None) {
            QCOMPARE(page->heatmap(id)->revealedRows(), -1);
        } else {
            QCOMPARE(page->heatmap(id)->revealedRows(), 0);
            computed << id;
            hiddenRows += static_cast<int>(m->values.rows());
        }
    }
    QVERIFY(computed.size() >= 2);
    QVERIFY(computed.contains("masked-scores") && computed.contains("causal-weights"));

    views::HeatmapWidget* first = page->heatmap(computed[0]);
    const int rows = first->rowCount();
    QVERIFY(rows >= 3);
    QTest::keyClick(page, Qt::Key_Space);
    QCOMPARE(first->revealedRows(), 1);
    QVERIFY(first->rowRevealed(0));
    QVERIFY(!first->rowRevealed(1));
    QTest::keyClick(page, Qt::Key_Down);
    QCOMPARE(first->revealedRows(), 2);
    QTest::keyClick(page, Qt::Key_Up);  // back one row
    QCOMPARE(first->revealedRows(), 1);
    for (int i = 1; i < rows; ++i) QTest::keyClick(page, Qt::Key_Space);
    QCOMPARE(first->revealedRows(), rows);
    // The rest, all on this step: each key reveals the next row of the part shown (a step the
    // small screen splits moves to its next part only when the part is all shown).
    auto revealed = [&] {
        int n = 0;
        for (const QString& id : computed) n += std::max(page->heatmap(id)->revealedRows(), 0);
        return n;
    };
    const int parts = page->partCount();
    int presses = 0;
    while (revealed() < hiddenRows && presses < hiddenRows + parts) {
        const int before = revealed();
        const int part = page->part();
        const bool partShown =
            std::all_of(computed.begin(), computed.end(), [&](const QString& id) {
                views::HeatmapWidget* map = page->heatmap(id);
                return !map->isVisibleTo(page) || map->revealedRows() == map->rowCount();
            });
        QTest::keyClick(page, presses % 2 ? Qt::Key_PageDown : Qt::Key_Space);  // clickers too
        ++presses;
        QCOMPARE(w.currentStep(), 11);
        if (partShown) {
            QCOMPARE(page->part(), part + 1);
            QCOMPARE(revealed(), before);
        } else {
            QCOMPARE(page->part(), part);
            QCOMPARE(revealed(), before + 1);
        }
    }
    QCOMPARE(presses, hiddenRows - rows + parts - 1);
    for (const QString& id : computed)
        QCOMPARE(page->heatmap(id)->revealedRows(), page->heatmap(id)->rowCount());
    // Everything shown: the next key goes to the next step, which starts hidden.
    QTest::keyClick(page, Qt::Key_Space);
    QCOMPARE(w.currentStep(), 12);
    QCOMPARE(w.currentPage()->heatmap("dropped-weights")->revealedRows(), 0);
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

// A clicker in the normal window: → and PageDown put the cache's tokens in one at a time from the
// first, then move on; ← and PageUp take them out again, then go back a step.
void TestPresentationMode::framesStepByClicker() {
    MainWindow w(framesBetweenSteps());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.goToStep(1);
    QTest::keyClick(w.currentPage(), Qt::Key_Right);
    QCOMPARE(w.currentStep(), 2);
    views::StepPage* kv = w.currentPage();
    const int frames = kv->frameCount();
    QVERIFY(frames > 1);
    QCOMPARE(kv->frame(), 0);  // one token in the cache
    for (int f = 1; f < frames; ++f) {
        QTest::keyClick(w.currentPage(), f % 2 ? Qt::Key_PageDown : Qt::Key_Right);
        QCOMPARE(w.currentStep(), 2);
        QCOMPARE(kv->frame(), f);
    }
    QTest::keyClick(w.currentPage(), Qt::Key_Right);  // every token in: the next step
    QCOMPARE(w.currentStep(), 3);
    QTest::keyClick(w.currentPage(), Qt::Key_Left);  // back: the step as it was left
    QCOMPARE(w.currentStep(), 2);
    QCOMPARE(kv->frame(), frames - 1);
    for (int f = frames - 2; f >= 0; --f) {
        QTest::keyClick(w.currentPage(), f % 2 ? Qt::Key_PageUp : Qt::Key_Left);
        QCOMPARE(w.currentStep(), 2);
        QCOMPARE(kv->frame(), f);
    }
    QTest::keyClick(w.currentPage(), Qt::Key_PageUp);
    QCOMPARE(w.currentStep(), 1);
    // Entered from anywhere but the next step (the list, Home/End): the first token.
    kv->setFrame(3);
    w.goToStep(2);
    QCOMPARE(kv->frame(), 0);
}

void TestPresentationMode::framesWhilePresenting() {
    MainWindow w(framesBetweenSteps());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.goToStep(1);
    w.presentationMode()->setActive(true);
    views::StepPage* first = w.currentPage();
    QTRY_VERIFY(first->isVisible());
    for (int k = 0; k < first->partCount(); ++k) QTest::keyClick(first, Qt::Key_Space);
    views::StepPage* kv = w.currentPage();
    QCOMPARE(w.currentStep(), 2);
    QCOMPARE(kv->frame(), 0);
    // Space puts the tokens in one at a time, in each part that shows them (on the offscreen
    // platform's small screen the step may come in parts), then moves on.
    for (int k = 0; k < kv->partCount(); ++k) {
        QCOMPARE(kv->part(), k);
        const int frames = kv->partShowsFrames() ? kv->frameCount() : 1;
        if (kv->partShowsFrames()) QCOMPARE(kv->frame(), 0);
        for (int f = 1; f < frames; ++f) {
            QTest::keyClick(w.currentPage(), Qt::Key_Space);
            QCOMPARE(kv->frame(), f);
            QCOMPARE(w.currentStep(), 2);
        }
        if (k + 1 < kv->partCount()) QTest::keyClick(w.currentPage(), Qt::Key_Space);
    }
    QTest::keyClick(w.currentPage(), Qt::Key_Space);
    QCOMPARE(w.currentStep(), 3);
}

// Reveal on a step with frames: each token's new rows wait for a key, the rows the cache already
// had stay shown, and only a fully shown frame moves on to the next token.
void TestPresentationMode::revealFrameByFrame() {
    MainWindow w(framesBetweenSteps());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.presentationMode()->setActive(true);
    w.presentationMode()->setReveal(true);
    w.goToStep(2);
    views::StepPage* kv = w.currentPage();
    QCOMPARE(kv->frame(), 0);
    QVERIFY(!frameFullyShown(kv));  // the computed rows of the first token are hidden
    int presses = 0;
    int frame = 0;
    int part = 0;
    while (w.currentStep() == 2 && presses < 500) {
        const bool wasShown = frameFullyShown(kv);
        QTest::keyClick(w.currentPage(), presses % 2 ? Qt::Key_Space : Qt::Key_PageDown);
        ++presses;
        if (w.currentStep() != 2) {
            QVERIFY(wasShown);
            break;
        }
        if (kv->part() != part) {  // a step the small screen splits: its next part, first token
            QVERIFY(wasShown);
            QCOMPARE(kv->part(), part + 1);
            part = kv->part();
            if (kv->partShowsFrames()) QCOMPARE(kv->frame(), 0);
            frame = kv->frame();
            continue;
        }
        if (kv->frame() == frame) continue;
        QVERIFY2(wasShown, qPrintable(QStringLiteral("frame %1 moved on half shown").arg(frame)));
        QCOMPARE(kv->frame(), frame + 1);
        frame = kv->frame();
        // The new token's rows are hidden; a growing matrix keeps the rows it had.
        int growing = 0;
        for (const QString& id : kv->matrixIds()) {
            const attn::StepMatrix* m = kv->shownMatrix(id);
            if (!m || m->frame < 0 || m->derivation == attn::Derivation::None) continue;
            if (!kv->heatmap(id)->isVisibleTo(kv)) continue;
            const attn::StepMatrix* before = kv->step().find(id.toStdString(), frame - 1);
            QVERIFY(before);
            const int rows = static_cast<int>(m->values.rows());
            const int had = static_cast<int>(before->values.rows());
            QCOMPARE(kv->heatmap(id)->revealedRows(), had < rows ? had : 0);
            if (had < rows) ++growing;
        }
        QVERIFY(growing > 0 || !kv->partShowsFrames());
    }
    QCOMPARE(part, kv->partCount() - 1);
    QCOMPARE(frame, kv->frameCount() - 1);
    QCOMPARE(w.currentStep(), 3);
    // Up hides a row again; Left goes back a token, which was seen: all of it shows.
    w.goToStep(2);
    kv->setFrame(2);
    QTest::keyClick(w.currentPage(), Qt::Key_Right);
    QCOMPARE(kv->frame(), 2);  // revealing, not moving on
    QTest::keyClick(w.currentPage(), Qt::Key_Left);
    QCOMPARE(kv->frame(), 1);
    QVERIFY(frameFullyShown(kv));
}

void TestPresentationMode::pageOpensAtItsTop() {
    MainWindow w;
    w.resize(900, 600);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.goToStep(14);
    QScrollBar* bar = w.currentPage()->findChild<QScrollArea*>()->verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 0);
    bar->setValue(bar->maximum());
    QVERIFY(bar->value() > 0);
    w.goToStep(15);
    w.goToStep(14);
    QCOMPARE(bar->value(), 0);
}

void TestPresentationMode::pagesFitTheScreen_data() {
    QTest::addColumn<QSize>("screen");
    QTest::addColumn<QString>("language");
    QTest::newRow("1920x1080 en") << QSize(1920, 1080) << "en";
    QTest::newRow("1280x720 en") << QSize(1280, 720) << "en";
    QTest::newRow("1920x1080 zh_CN") << QSize(1920, 1080) << "zh_CN";
    QTest::newRow("1280x720 zh_CN") << QSize(1280, 720) << "zh_CN";
}

// Presenting, every step, part and frame fits the screen at a readable size: nothing to scroll,
// the top in view. Walked as a clicker walks it, so every part and frame is reached by the key.
void TestPresentationMode::pagesFitTheScreen() {
    QFETCH(QSize, screen);
    QFETCH(QString, language);
    MainWindow w;
    QVERIFY(w.setLanguage(language));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.presentationMode()->setActive(true);
    // The projector's size: the offscreen platform has one 800 × 600 screen, and would put a
    // full-screen window back to it.
    w.setWindowState(Qt::WindowNoState);
    w.resize(screen);
    QTRY_COMPARE(w.size(), screen);
    w.goToStep(1);
    int split = 0;
    for (int presses = 0;; ++presses) {
        QVERIFY(presses < 400);
        views::StepPage* page = w.currentPage();
        const QString where = QStringLiteral("step %1 part %2/%3 frame %4")
                                  .arg(w.currentStep())
                                  .arg(page->part() + 1)
                                  .arg(page->partCount())
                                  .arg(page->frame());
        QScrollBar* bar = page->findChild<QScrollArea*>()->verticalScrollBar();
        QTRY_VERIFY2(bar->maximum() == 0, qPrintable(QStringLiteral("%1: %2 px to scroll, scale %3")
                                                         .arg(where)
                                                         .arg(bar->maximum())
                                                         .arg(page->shownScale())));
        QCOMPARE(bar->value(), 0);
        // Text at least 1/90 of the screen's height (settling may take a few per cent off).
        QVERIFY2(page->shownScale() >= 0.9 * page->readableScale(),
                 qPrintable(QStringLiteral("%1 at %2, readable from %3")
                                .arg(where)
                                .arg(page->shownScale())
                                .arg(page->readableScale())));
        if (page->part() == 0 && page->partCount() > 1) ++split;
        const bool lastFrame = !page->partShowsFrames() || page->frame() + 1 == page->frameCount();
        if (w.currentStep() == w.stepCount() && page->part() + 1 == page->partCount() && lastFrame)
            break;
        w.stepForward();
    }
    // 1280 × 720 splits the dense steps (3, 8, 11, 14, 16) rather than shrink them.
    if (screen.height() < 1080) QVERIFY2(split >= 5, qPrintable(QString::number(split)));
}

// A dense step at 1280 × 720 in parts: each matrix in exactly one part, the text on the first and
// the code on the last; the keys walk the parts both ways, entered backwards it opens on its last
// part; out of presentation the page is whole again.
void TestPresentationMode::denseStepInParts() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.presentationMode()->setActive(true);
    w.setWindowState(Qt::WindowNoState);
    w.resize(1280, 720);
    QTRY_COMPARE(w.size(), QSize(1280, 720));
    w.goToStep(11);
    views::StepPage* page = w.currentPage();
    QTRY_VERIFY(page->partCount() >= 2);
    const int parts = page->partCount();
    QCOMPARE(page->part(), 0);
    QVERIFY(page->shownScale() >= 0.9 * page->readableScale());
    QStringList seen;
    auto* explanation = page->findChildren<QLabel*>().at(1);  // title, then the explanation
    auto* code = page->findChild<QGroupBox*>();
    for (int k = 0; k < parts; ++k) {
        QCOMPARE(w.currentStep(), 11);
        QCOMPARE(page->part(), k);
        QVERIFY(page->findChildren<QLabel*>().constFirst()->text().contains(
            QStringLiteral("part %1 of %2").arg(k + 1).arg(parts)));
        QCOMPARE(explanation->isVisibleTo(page), k == 0);
        QCOMPARE(code->isVisibleTo(page), k == parts - 1);
        for (const QString& id : page->matrixIds()) {
            if (!page->heatmap(id)->isVisibleTo(page)) continue;
            QVERIFY2(!seen.contains(id), qPrintable(id));
            seen << id;
        }
        QTest::keyClick(page, Qt::Key_PageDown);
    }
    QCOMPARE(seen, page->matrixIds());  // every matrix once, in the record's order
    QCOMPARE(w.currentStep(), 12);
    QTest::keyClick(w.currentPage(), Qt::Key_PageUp);  // back: the last part
    QCOMPARE(w.currentStep(), 11);
    QTRY_COMPARE(page->part(), parts - 1);
    for (int k = parts - 2; k >= 0; --k) {
        QTest::keyClick(page, Qt::Key_Left);
        QCOMPARE(page->part(), k);
    }
    QTest::keyClick(page, Qt::Key_Left);
    QCOMPARE(w.currentStep(), 10);
    w.goToStep(11);
    QCOMPARE(page->part(), 0);  // entered forwards: the first part
    w.presentationMode()->setActive(false);
    QTRY_COMPARE(page->partCount(), 1);
    for (const QString& id : page->matrixIds()) QVERIFY(page->heatmap(id)->isVisibleTo(page));
    QVERIFY(explanation->isVisibleTo(page));
    QVERIFY(code->isVisibleTo(page));
}

// A hover tooltip would cover the matrices on the projector: presenting, the bar under the page
// explains the cell instead.
void TestPresentationMode::noTooltipsWhilePresenting() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.goToStep(8);
    views::HeatmapWidget* map = w.currentPage()->heatmaps().constFirst();
    const QString id = w.currentPage()->matrixIds().constFirst();
    QVERIFY(!map->tooltipText(1, 1).isEmpty());
    w.presentationMode()->setActive(true);
    QVERIFY(map->tooltipText(1, 1).isEmpty());
    QVERIFY(w.page(10)->heatmaps().constFirst()->tooltipText(0, 0).isEmpty());  // built later
    const QString bar = w.currentPage()->explainCell(id, 1, 1);
    QVERIFY2(bar.contains(QLatin1Char('=')), qPrintable(bar));
    w.presentationMode()->setActive(false);
    QVERIFY(!map->tooltipText(1, 1).isEmpty());
}

QTEST_MAIN(TestPresentationMode)
#include "test_presentation_mode.moc"
