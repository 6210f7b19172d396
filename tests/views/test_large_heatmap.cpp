// 4096 tokens on screen. Explore mode's heads grid shows a 4096 × 4096 attention
// matrix per head as block averages of at most 64 × 64 cells and says so, in bounded time; a
// plain heatmap too dense for its numbers hides them and says why, and thins its token labels.
#include <qcustomplot.h>

#include <QElapsedTimer>
#include <QImage>
#include <QLabel>
#include <QTest>

#include "model/rng.h"
#include "views/explore_heads_grid.h"
#include "views/heatmap_widget.h"

namespace {

QStringList tokenLabels(int count) {
    QStringList labels;
    for (int i = 0; i < count; ++i) {
        labels << QStringLiteral("t%1").arg(i + 1);
    }
    return labels;
}

}  // namespace

class TestLargeHeatmap : public QObject {
    Q_OBJECT

private slots:
    void headsGrid4096Tokens();
    void denseHeatmapHidesValues();
};

void TestLargeHeatmap::headsGrid4096Tokens() {
    constexpr int kTokens = 4096;
    attn::TorchGenerator gen(7);
    const std::vector<attn::Matrix> heads = {gen.rand(kTokens, kTokens),
                                             gen.rand(kTokens, kTokens)};
    const QStringList labels = tokenLabels(kTokens);
    views::ExploreHeadsGrid grid;
    grid.resize(1000, 700);
    QElapsedTimer timer;
    timer.start();
    grid.setHeads(heads, labels, labels);
    grid.show();
    QVERIFY(QTest::qWaitForWindowExposed(&grid));
    const QImage image = grid.grab().toImage();
    const qint64 ms = timer.elapsed();
    qInfo("heads grid, 2 heads of 4096 x 4096: set, shown and drawn in %lld ms",
          static_cast<long long>(ms));
#ifdef QT_NO_DEBUG
    constexpr qint64 kLimitMs = 10000;  // the UI must not freeze; 100x slack for a busy CI
#else
    constexpr qint64 kLimitMs = 120000;  // Debug + sanitizers
#endif
    QVERIFY2(ms < kLimitMs, qPrintable(QStringLiteral("%1 ms").arg(ms)));
    QVERIFY(!image.isNull());
    QVERIFY(grid.simplified());
    QCOMPARE(grid.headCount(), 2);
    for (int h = 0; h < 2; ++h) {
        QVERIFY(grid.heatmap(h)->rowCount() <= views::ExploreHeadsGrid::kMaxGridCells);
        QVERIFY(grid.heatmap(h)->columnCount() <= views::ExploreHeadsGrid::kMaxGridCells);
    }
    bool noted = false;
    for (const QLabel* label : grid.findChildren<QLabel*>()) {
        noted = noted || label->text() == QStringLiteral(
                                              "Simplified: long sequences are shown as "
                                              "block averages of at most 64 × 64 cells.");
    }
    QVERIFY2(noted, "the grid says that it shows block averages");
}

// 512 tokens in one plain heatmap (what an enlarged head may show): the numbers do not fit, so
// they are hidden with a note, and at most one token label per 10 px is drawn.
void TestLargeHeatmap::denseHeatmapHidesValues() {
    constexpr int kTokens = 512;
    attn::TorchGenerator gen(8);
    const QStringList labels = tokenLabels(kTokens);
    views::HeatmapWidget heatmap;
    heatmap.resize(800, 600);
    QElapsedTimer timer;
    timer.start();
    heatmap.setMatrix(gen.rand(kTokens, kTokens), labels, labels);
    heatmap.show();
    QVERIFY(QTest::qWaitForWindowExposed(&heatmap));
    QVERIFY(!heatmap.renderImage(QSize(800, 600)).isNull());
    qInfo("512 x 512 heatmap: %lld ms", static_cast<long long>(timer.elapsed()));
    QVERIFY(!heatmap.valuesVisible());
    QCOMPARE(heatmap.subtitle(), QStringLiteral("values hidden: 512×512 too small to label"));
    const int rowTicks = static_cast<int>(heatmap.plot()->yAxis->tickVector().size());
    QVERIFY2(rowTicks > 0 && rowTicks <= 600 / 10, qPrintable(QString::number(rowTicks)));
}

QTEST_MAIN(TestLargeHeatmap)
#include "test_large_heatmap.moc"
