// The explore window fits the screen it opens on, size and position, on a 1920×1080 and a
// 1280×720 screen (ctest runs this suite once per size: ATTN_SCREEN=WIDTHxHEIGHT). The offscreen
// platform takes its screens from a config file, written before QApplication starts.
#include <QApplication>
#include <QFile>
#include <QMainWindow>
#include <QScreen>
#include <QTemporaryDir>
#include <QTest>

#include "app/gui/explore_window.h"
#include "window_test_settings.h"

namespace {

QSize screenSize() {
    const QList<QByteArray> parts = qgetenv("ATTN_SCREEN").split('x');
    if (parts.size() != 2) return QSize(1920, 1080);
    return QSize(parts[0].toInt(), parts[1].toInt());
}

}  // namespace

class TestExploreGeometry : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        useTestSettings("explore-geometry");
        QCOMPARE(QGuiApplication::primaryScreen()->geometry().size(), screenSize());
    }

    void opensInsideTheAvailableArea() {
        QMainWindow owner;
        owner.show();
        ExploreWindow* window = ExploreWindow::showFor(&owner);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        const QRect available = window->screen()->availableGeometry();
        QVERIFY2(available.contains(window->frameGeometry()),
                 qPrintable(QStringLiteral("frame %1,%2 %3×%4 outside %5×%6")
                                .arg(window->frameGeometry().x())
                                .arg(window->frameGeometry().y())
                                .arg(window->frameGeometry().width())
                                .arg(window->frameGeometry().height())
                                .arg(available.width())
                                .arg(available.height())));
        // As large as the screen allows, up to the designed 1500 × 920.
        QVERIFY(window->width() >= std::min(1500, available.width() - 60));
        QVERIFY(window->height() >= std::min(920, available.height() - 80));
    }

    void comesBackOnScreenWhenShownAgain() {
        QMainWindow owner;
        owner.show();
        ExploreWindow* window = ExploreWindow::showFor(&owner);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        const QRect available = window->screen()->availableGeometry();
        window->move(available.right() - 200, available.bottom() - 100);
        QVERIFY(!available.contains(window->frameGeometry()));
        QCOMPARE(ExploreWindow::showFor(&owner), window);
        QVERIFY(available.contains(window->frameGeometry()));
    }
};

int main(int argc, char** argv) {
    QTemporaryDir dir;
    const QSize size = screenSize();
    const QString config = dir.filePath(QStringLiteral("screens.json"));
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly)) return 2;
    file.write(QStringLiteral("{\"screens\": [{\"name\": \"test\", \"x\": 0, \"y\": 0, "
                              "\"width\": %1, \"height\": %2, \"logicalDpi\": 96, "
                              "\"logicalBaseDpi\": 96, \"dpr\": 1}]}")
                   .arg(size.width())
                   .arg(size.height())
                   .toUtf8());
    file.close();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.toUtf8());
    QApplication app(argc, argv);
    TestExploreGeometry test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_explore_geometry.moc"
