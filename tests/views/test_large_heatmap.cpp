// 4096 tokens on screen (issue #7): a 4096 × 4096 attention matrix sets, lays out and draws in
// bounded time, says that its values are hidden because the cells are too small to label, and
// thins its token labels instead of drawing 4096 of them on top of each other.
#include <qcustomplot.h>

#include <QElapsedTimer>
#include <QImage>
#include <QTest>

#include "model/rng.h"
#include "views/heatmap_widget.h"

class TestLargeHeatmap : public QObject {
    Q_OBJECT

private slots:
    void tokens4096();
};

void TestLargeHeatmap::tokens4096() {
    constexpr int kTokens = 4096;
    attn::TorchGenerator gen(7);
    const attn::Matrix weights = gen.rand(kTokens, kTokens);
    QStringList labels;
    for (int i = 0; i < kTokens; ++i) {
        labels << QStringLiteral("t%1").arg(i + 1);
    }
    attn::HeatmapWidget heatmap;
    heatmap.resize(900, 700);
    QElapsedTimer timer;
    timer.start();
    heatmap.setMatrix(weights, labels, labels);
    heatmap.show();
    QVERIFY(QTest::qWaitForWindowExposed(&heatmap));
    const QImage image = heatmap.renderImage(QSize(900, 700));
    const qint64 ms = timer.elapsed();
    qInfo("4096 x 4096 heatmap: set, shown and drawn in %lld ms", static_cast<long long>(ms));
#ifdef QT_NO_DEBUG
    constexpr qint64 kLimitMs = 20000;
#else
    constexpr qint64 kLimitMs = 240000;  // Debug + sanitizers
#endif
    QVERIFY2(ms < kLimitMs, qPrintable(QStringLiteral("%1 ms").arg(ms)));
    QVERIFY(!image.isNull());
    QCOMPARE(heatmap.rowCount(), kTokens);
    QVERIFY(!heatmap.valuesVisible());
    QCOMPARE(heatmap.subtitle(), QStringLiteral("values hidden: 4096×4096 too small to label"));
    // At most one label per ~10 px of the axis: 4096 labels would be an unreadable black bar.
    const int rowTicks = static_cast<int>(heatmap.plot()->yAxis->tickVector().size());
    QVERIFY2(rowTicks > 0 && rowTicks <= 700 / 10, qPrintable(QString::number(rowTicks)));
}

QTEST_MAIN(TestLargeHeatmap)
#include "test_large_heatmap.moc"
