// Under a dark desktop palette nothing stays a white panel: the walkthrough window on every step
// and every tab of explore mode are grabbed and their near-white pixels counted. Light colour-map
// cells (a diverging map is white at 0) are allowed, a white background is not.
#include <QApplication>
#include <QImage>
#include <QPalette>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTest>

#include "app/gui/explore_window.h"
#include "app/gui/main_window.h"
#include "tests/dark_palette.h"
#include "window_test_settings.h"

namespace {

// Near-white pixels above this share of a window mean a panel ignores the palette.
constexpr double kMaxNearWhite = 0.06;

// With ATTN_DARK_SHOTS set, every grab is also saved there, to see what a failure saw.
void keep(const QImage& image, const QString& name) {
    const QString dir = qEnvironmentVariable("ATTN_DARK_SHOTS");
    if (!dir.isEmpty()) image.save(dir + QLatin1Char('/') + name + QStringLiteral(".png"));
}

QString describe(const QString& what, double share) {
    return QStringLiteral("%1: %2% of the pixels are near white")
        .arg(what)
        .arg(static_cast<int>(share * 100.0));
}

}  // namespace

class TestDarkPalette : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        useTestSettings("dark-palette");
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(darkPalette());
    }

    void everyStepPageFollowsTheDarkPalette() {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        for (int step = 1; step <= window.stepCount(); ++step) {
            window.goToStep(step);
            QCoreApplication::processEvents();
            const QImage image = window.grab().toImage();
            keep(image, QStringLiteral("step-%1").arg(step));
            const double share = nearWhiteShare(image);
            QVERIFY2(share < kMaxNearWhite,
                     qPrintable(describe(QStringLiteral("step %1").arg(step), share)));
        }
    }

    void everyExploreTabFollowsTheDarkPalette() {
        QMainWindow owner;
        ExploreWindow* explore = ExploreWindow::showFor(&owner);
        explore->resize(1400, 900);
        QVERIFY(QTest::qWaitForWindowExposed(explore));
        QTabWidget* tabs = explore->viewTabs();
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            QCoreApplication::processEvents();
            const QImage image = explore->grab().toImage();
            keep(image, QStringLiteral("explore-%1").arg(i));
            const double share = nearWhiteShare(image);
            QVERIFY2(share < kMaxNearWhite, qPrintable(describe(tabs->tabText(i), share)));
        }
    }

    void aWhitePanelIsCaught() {
        // The measure itself: a white panel over a third of a dark window fails the threshold.
        QImage image(300, 300, QImage::Format_RGB32);
        image.fill(QColor(0x20, 0x21, 0x24));
        for (int y = 0; y < 100; ++y)
            for (int x = 0; x < 300; ++x) image.setPixel(x, y, qRgb(255, 255, 255));
        QVERIFY(nearWhiteShare(image) > kMaxNearWhite);
    }
};

QTEST_MAIN(TestDarkPalette)
#include "test_dark_palette.moc"
