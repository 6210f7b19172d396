// The heatmap in a classroom: the wheel scrolls the page, dropout's zeros are marked, the colour
// range is chosen and named on the colour bar, numbers read the same under a German locale, and a
// dark desktop gets a dark heatmap while figures stay white.
#include <qcustomplot.h>

#include <QApplication>
#include <QMenu>
#include <QScrollArea>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QTest>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <clocale>

#include "heatmap_test_data.h"
#include "pdf_tools.h"
#include "views/colormaps.h"
#include "views/heatmap_widget.h"

using views::HeatmapWidget;
using RangeMode = views::HeatmapWidget::RangeMode;

namespace {

void showAndLayOut(QWidget& widget, QSize size) {
    widget.resize(size);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
}

void wheel(QWidget* target, Qt::KeyboardModifiers modifiers) {
    const QPointF pos(target->width() / 2.0, target->height() / 2.0);
    QWheelEvent event(pos, target->mapToGlobal(pos), QPoint(), QPoint(0, -120), Qt::NoButton,
                      modifiers, Qt::NoScrollPhase, false);
    QApplication::sendEvent(target, &event);
}

bool near(const QColor& a, const QColor& b, int tolerance = 2) {
    return std::abs(a.red() - b.red()) <= tolerance &&
           std::abs(a.green() - b.green()) <= tolerance &&
           std::abs(a.blue() - b.blue()) <= tolerance;
}

// Pixels that differ between two equal-sized squares of `image` centred on a and b.
int differingPixels(const QImage& image, QPointF a, QPointF b, int half) {
    int count = 0;
    for (int dy = -half; dy <= half; ++dy)
        for (int dx = -half; dx <= half; ++dx) {
            const QColor pa = image.pixelColor(qRound(a.x()) + dx, qRound(a.y()) + dy);
            const QColor pb = image.pixelColor(qRound(b.x()) + dx, qRound(b.y()) + dy);
            if (!near(pa, pb, 24)) ++count;
        }
    return count;
}

// Tutorial weights with cells (0, 1) and (0, 2) both 0: only (0, 1) was dropped.
Matrix weightsWithZeros() {
    Matrix w = tutorialWeights();
    w(0, 1) = 0.0f;
    w(0, 2) = 0.0f;
    return w;
}

}  // namespace

class TestHeatmapClassroom : public QObject {
    Q_OBJECT

private slots:
    void wheelScrollsThePage();
    void ctrlWheelZoomsOnlyWhenZoomIsOffered();

    void droppedCellsAreMarked();
    void droppedCellsExplainedInTooltipAndColourBar();
    void droppedMarkInSvgAndPdf();
    void droppedPatternOfAnotherShapeThrows();

    void fixedRangeKeepsWeightsOnZeroToOne();
    void matrixRangeSpansMinToMax();
    void rowRangeGivesEachRowMaxTheTopColour();
    void rowRangeOnDivergingMapKeepsZeroAtCentre();
    void setValueRangeAndSetAutoRangeSetTheMode();
    void rangeMenuSwitchesMode();
    void colourBarLabelInExports();

    void darkPaletteGivesDarkScreenButWhiteFigures();

    void germanLocalePrintsTheSameDigits();
};

void TestHeatmapClassroom::wheelScrollsThePage() {
    QScrollArea area;
    auto* page = new QWidget;
    auto* layout = new QVBoxLayout(page);
    auto* map = new HeatmapWidget;
    map->setMinimumHeight(500);
    map->setMatrix(tutorialWeights(), kTokens, kTokens);
    layout->addWidget(map);
    auto* below = new QWidget;
    below->setMinimumHeight(1200);
    layout->addWidget(below);
    area.setWidget(page);
    area.setWidgetResizable(true);
    showAndLayOut(area, QSize(600, 400));
    QScrollBar* bar = area.verticalScrollBar();
    QCOMPARE(bar->value(), 0);
    QVERIFY(bar->maximum() > 0);

    wheel(map->plot(), Qt::NoModifier);
    QVERIFY2(bar->value() > 0, "the wheel over the heatmap did not scroll the page");
    // The matrix did not move inside the plot.
    QCOMPARE(map->plot()->xAxis->range().lower, -0.5);
    QCOMPARE(map->plot()->yAxis->range().upper, 5.5);
}

void TestHeatmapClassroom::ctrlWheelZoomsOnlyWhenZoomIsOffered() {
    QScrollArea area;
    auto* page = new QWidget;
    auto* layout = new QVBoxLayout(page);
    auto* map = new HeatmapWidget;
    map->setMinimumHeight(500);
    map->setMatrix(tutorialWeights(), kTokens, kTokens);
    layout->addWidget(map);
    auto* below = new QWidget;
    below->setMinimumHeight(1200);
    layout->addWidget(below);
    area.setWidget(page);
    area.setWidgetResizable(true);
    showAndLayOut(area, QSize(600, 400));
    QScrollBar* bar = area.verticalScrollBar();

    // No zoom offered: Ctrl+wheel goes to the page too.
    wheel(map->plot(), Qt::ControlModifier);
    const int afterCtrl = bar->value();
    QVERIFY2(afterCtrl > 0, "Ctrl+wheel without zoom did not reach the page");
    QCOMPARE(map->plot()->xAxis->range().size(), 6.0);

    // Zoom offered: Ctrl+wheel zooms the matrix and leaves the page where it is.
    map->plot()->setInteractions(QCP::iRangeZoom);
    map->plot()->axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    wheel(map->plot(), Qt::ControlModifier);
    QCOMPARE(bar->value(), afterCtrl);
    QVERIFY(map->plot()->xAxis->range().size() != 6.0);
    // The plain wheel still scrolls the page.
    wheel(map->plot(), Qt::NoModifier);
    QVERIFY(bar->value() > afterCtrl);
}

void TestHeatmapClassroom::droppedCellsAreMarked() {
    HeatmapWidget map;
    map.setMatrix(weightsWithZeros(), kTokens, kTokens);
    attn::BoolMatrix dropped = attn::BoolMatrix::Constant(6, 6, false);
    dropped(0, 1) = true;
    showAndLayOut(map, QSize(700, 600));
    map.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const int half =
        static_cast<int>(std::floor(std::min(map.cellCenter(0, 2).x() - map.cellCenter(0, 1).x(),
                                             map.cellCenter(1, 0).y() - map.cellCenter(0, 0).y()) /
                                    2)) -
        2;
    QVERIFY(half > 10);
    // Without the pattern the two zero cells look alike; with it, (0, 1) carries a mark.
    const QImage plain = map.plot()->toPixmap().toImage();
    const int control = differingPixels(plain, map.cellCenter(0, 1), map.cellCenter(0, 2), half);

    map.setDropped(dropped);
    map.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(map.cellDropped(0, 1));
    QVERIFY(!map.cellDropped(0, 2));
    QVERIFY(!map.cellDropped(6, 0));
    const QImage marked = map.plot()->toPixmap().toImage();
    const int mark = differingPixels(marked, map.cellCenter(0, 1), map.cellCenter(0, 2), half);
    QVERIFY2(mark > 3 * control + 40,
             qPrintable(QStringLiteral("mark %1 px, control %2 px").arg(mark).arg(control)));
    // A dropped cell keeps its value and the colour of 0: it is not drawn as masked.
    QCOMPARE(map.cellKind(0, 1), HeatmapWidget::CellKind::Value);
    QCOMPARE(map.cellText(0, 1), QStringLiteral("0.0000"));
    QCOMPARE(map.cellColor(0, 1), map.cellColor(0, 2));
    QVERIFY(map.cellColor(0, 1) != views::colormap::maskedColor());
}

void TestHeatmapClassroom::droppedCellsExplainedInTooltipAndColourBar() {
    HeatmapWidget map;
    map.setColorScaleLabel(QStringLiteral("weight"));
    map.setMatrix(weightsWithZeros(), kTokens, kTokens);
    QVERIFY(!map.colorBarLabel().contains(QStringLiteral("dropout")));
    attn::BoolMatrix dropped = attn::BoolMatrix::Constant(6, 6, false);
    dropped(0, 1) = true;
    map.setDropped(dropped);
    QVERIFY(map.tooltipText(0, 1).contains(QStringLiteral("Dropped by dropout")));
    QVERIFY(map.tooltipText(0, 1).startsWith(QStringLiteral("Your → journey: 0.0000")));
    QVERIFY(!map.tooltipText(0, 2).contains(QStringLiteral("ropped")));
    // A provider's text gets the note too.
    map.setTooltipProvider([](int, int) { return QStringLiteral("ω = 0"); });
    QVERIFY(map.tooltipText(0, 1).startsWith(QStringLiteral("ω = 0\n")));
    const QStringList lines = map.colorBarLabel().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines.at(0), QStringLiteral("weight"));
    QCOMPARE(lines.at(2), QStringLiteral("⊘ dropped by dropout (0)"));
    map.setDropped({});
    QVERIFY(!map.cellDropped(0, 1));
    QCOMPARE(map.colorBarLabel().split(QLatin1Char('\n')).size(), 2);
}

void TestHeatmapClassroom::droppedMarkInSvgAndPdf() {
    HeatmapWidget map;
    map.setMatrix(weightsWithZeros(), kTokens, kTokens);
    attn::BoolMatrix dropped = attn::BoolMatrix::Constant(6, 6, false);
    dropped(0, 1) = true;
    map.setDropped(dropped);
    const QByteArray svg = map.renderSvg(QSize(700, 560));
    QVERIFY(svg.contains("dropped by dropout"));
    // The mark is drawn as a circle: an SVG ellipse (QSvgGenerator writes <ellipse> or a path
    // with arcs); without dropped cells there is none.
    HeatmapWidget plain;
    plain.setMatrix(weightsWithZeros(), kTokens, kTokens);
    const QByteArray plainSvg = plain.renderSvg(QSize(700, 560));
    QVERIFY(!plainSvg.contains("dropped by dropout"));
    QVERIFY(svg.size() > plainSvg.size());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("dropped.pdf"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(map.renderPdf(QSize(700, 560)));
    file.close();
    QVERIFY(pdfText(path).contains(QStringLiteral("dropped by dropout")));
}

void TestHeatmapClassroom::droppedPatternOfAnotherShapeThrows() {
    HeatmapWidget map;
    map.setMatrix(tutorialWeights());
    QVERIFY_THROWS_EXCEPTION(attn::AttentionError,
                             map.setDropped(attn::BoolMatrix::Constant(5, 6, true)));
    map.setDropped(attn::BoolMatrix::Constant(6, 6, true));
    QVERIFY(map.cellDropped(5, 5));
    // A matrix of another shape clears the pattern.
    map.setMatrix(Matrix::Constant(3, 3, 0.5f));
    QVERIFY(!map.cellDropped(0, 0));
}

void TestHeatmapClassroom::fixedRangeKeepsWeightsOnZeroToOne() {
    HeatmapWidget map;
    map.setMatrix(tutorialWeights(), kTokens, kTokens);
    map.setValueRange(0.0, 1.0);
    QCOMPARE(map.rangeMode(), RangeMode::Fixed);
    QCOMPARE(map.rangeNote(), QStringLiteral("fixed 0 – 1"));
    QVERIFY(map.colorBarLabel().contains(QStringLiteral("fixed 0 – 1")));
    // Every tutorial weight is below 0.25: on 0–1 none reaches the top colour.
    const QColor top = views::colormap::colorAt(views::colormap::kViridis, 1.0);
    for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 6; ++c) QVERIFY(!near(map.cellColor(r, c), top, 40));
}

void TestHeatmapClassroom::matrixRangeSpansMinToMax() {
    // Weights are non-negative: the range runs from 0 (darkest still means 0) to their maximum.
    const Matrix w = tutorialWeights();
    HeatmapWidget map;
    map.setMatrix(w, kTokens, kTokens);
    map.setRangeMode(RangeMode::Matrix);
    QCOMPARE(map.rangeLower(), 0.0);
    QCOMPARE(map.rangeUpper(), double{w.maxCoeff()});
    Eigen::Index maxR = 0, maxC = 0, minR = 0, minC = 0;
    w.maxCoeff(&maxR, &maxC);
    const float lowest = w.minCoeff(&minR, &minC);
    const QColor top = views::colormap::colorAt(views::colormap::kViridis, 1.0);
    const QColor atLowest = views::colormap::colorAt(
        views::colormap::kViridis, static_cast<double>(lowest) / static_cast<double>(w.maxCoeff()));
    QVERIFY(near(map.cellColor(int(maxR), int(maxC)), top));
    QVERIFY(near(map.cellColor(int(minR), int(minC)), atLowest));
    // The note names the numbers with 4 significant digits, '.' as the decimal point.
    const QString note = map.rangeNote();
    QVERIFY2(note.startsWith(QStringLiteral("this matrix: 0 – 0.")), qPrintable(note));
    const QStringList ends = note.mid(QStringLiteral("this matrix: ").size()).split(" – ");
    QCOMPARE(ends.size(), 2);
    QCOMPARE(ends.at(0), QStringLiteral("0"));
    QVERIFY(std::abs(ends.at(1).toDouble() - double{w.maxCoeff()}) < 5e-5);
    QVERIFY(map.colorBarLabel().contains(note));

    // Signed values keep their own min..max (here with a sequential map, no symmetry).
    Matrix signedValues(1, 3);
    signedValues << -0.5f, 0.25f, 2.0f;
    map.setMatrix(signedValues);
    QCOMPARE(map.rangeLower(), -0.5);
    QCOMPARE(map.rangeUpper(), 2.0);
}

void TestHeatmapClassroom::rowRangeGivesEachRowMaxTheTopColour() {
    const Matrix w = tutorialWeights();
    HeatmapWidget map;
    map.setMatrix(w, kTokens, kTokens);
    map.setRangeMode(RangeMode::Row);
    // Weights are non-negative: each row runs from 0 to its own maximum.
    QCOMPARE(map.rangeNote(), QStringLiteral("each row: 0 – its max"));
    QVERIFY(map.colorBarLabel().contains(map.rangeNote()));
    const QColor top = views::colormap::colorAt(views::colormap::kViridis, 1.0);
    int rowsWhoseMaxIsNotTheMatrixMax = 0;
    for (int r = 0; r < 6; ++r) {
        Eigen::Index maxC = 0, minC = 0;
        const float rowMax = w.row(r).maxCoeff(&maxC);
        const float rowMin = w.row(r).minCoeff(&minC);
        const QColor atRowMin = views::colormap::colorAt(
            views::colormap::kViridis, static_cast<double>(rowMin) / static_cast<double>(rowMax));
        QVERIFY2(near(map.cellColor(r, int(maxC)), top), qPrintable(QString::number(r)));
        QVERIFY2(near(map.cellColor(r, int(minC)), atRowMin), qPrintable(QString::number(r)));
        // The value itself is still what the cell shows.
        QCOMPARE(map.inputValue(r, int(maxC)), double{w(r, maxC)});
        if (w(r, maxC) < w.maxCoeff()) ++rowsWhoseMaxIsNotTheMatrixMax;
    }
    QVERIFY(rowsWhoseMaxIsNotTheMatrixMax > 0);
    // The same rows on the matrix's range: a row max below the matrix max is not the top colour.
    map.setRangeMode(RangeMode::Matrix);
    for (int r = 0; r < 6; ++r) {
        Eigen::Index maxC = 0;
        if (w.row(r).maxCoeff(&maxC) < w.maxCoeff() - 0.01f)
            QVERIFY(!near(map.cellColor(r, int(maxC)), top, 10));
    }
}

void TestHeatmapClassroom::rowRangeOnDivergingMapKeepsZeroAtCentre() {
    const Matrix s = signedScores();
    HeatmapWidget map;
    map.setColorMap(views::colormap::kDiverging);
    map.setMatrix(s);
    map.setRangeMode(RangeMode::Row);
    QCOMPARE(map.rangeLower(), -1.0);
    QCOMPARE(map.rangeUpper(), 1.0);
    for (int r = 0; r < s.rows(); ++r) {
        Eigen::Index c = 0;
        const float m = s.row(r).cwiseAbs().maxCoeff(&c);
        QCOMPARE(std::abs(map.cellValue(r, int(c))), 1.0);
        QVERIFY(std::abs(map.cellValue(r, 0) - double{s(r, 0)} / double{m}) < 1e-6);
    }
    // Switching the map while in row mode recomputes the row-relative values for 0..1.
    map.setColorMap(views::colormap::kViridis);
    QCOMPARE(map.rangeLower(), 0.0);
    Eigen::Index minC = 0;
    s.row(0).minCoeff(&minC);
    QCOMPARE(map.cellValue(0, int(minC)), 0.0);
}

void TestHeatmapClassroom::setValueRangeAndSetAutoRangeSetTheMode() {
    HeatmapWidget map;
    map.setMatrix(tutorialWeights());
    QCOMPARE(map.rangeMode(), RangeMode::Matrix);
    map.setValueRange(0.0, 2.0);
    QCOMPARE(map.rangeMode(), RangeMode::Fixed);
    QCOMPARE(map.rangeNote(), QStringLiteral("fixed 0 – 2"));
    QVERIFY(!map.isAutoRange());
    map.setRangeMode(RangeMode::Row);
    QVERIFY(map.isAutoRange());
    map.setAutoRange();
    QCOMPARE(map.rangeMode(), RangeMode::Matrix);
    // Back to Fixed keeps the fixed range given before.
    map.setRangeMode(RangeMode::Fixed);
    QCOMPARE(map.rangeUpper(), 2.0);
}

void TestHeatmapClassroom::rangeMenuSwitchesMode() {
    HeatmapWidget map;
    map.setMatrix(tutorialWeights());
    map.setValueRange(0.0, 1.0);
    std::unique_ptr<QMenu> menu(map.createRangeMenu(nullptr));
    QCOMPARE(menu->title(), QStringLiteral("Colour range"));
    const QList<QAction*> actions = menu->actions();
    QCOMPARE(actions.size(), 3);
    QCOMPARE(actions.at(0)->text(), QStringLiteral("Fixed 0 – 1"));
    QVERIFY(actions.at(0)->isChecked());
    QVERIFY(!actions.at(2)->isChecked());
    actions.at(2)->trigger();
    QCOMPARE(map.rangeMode(), RangeMode::Row);
    actions.at(1)->trigger();
    QCOMPARE(map.rangeMode(), RangeMode::Matrix);
    QVERIFY(!actions.at(0)->isChecked());
}

void TestHeatmapClassroom::colourBarLabelInExports() {
    HeatmapWidget map;
    map.setColorScaleLabel(QStringLiteral("weight"));
    map.setMatrix(tutorialWeights(), kTokens, kTokens);
    const QString note = map.rangeNote();
    QVERIFY(note.startsWith(QStringLiteral("this matrix: ")));
    const QByteArray svg = map.renderSvg(QSize(700, 560));
    QVERIFY2(svg.contains(note.toUtf8()), svg.left(2000).constData());

    map.setRangeMode(RangeMode::Row);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("row.pdf"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(map.renderPdf(QSize(700, 560)));
    file.close();
    const QString text = pdfText(path);
    QVERIFY2(text.contains(QStringLiteral("its max")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("each row:")));
    QVERIFY(text.contains(QStringLiteral("max")));
}

void TestHeatmapClassroom::darkPaletteGivesDarkScreenButWhiteFigures() {
    HeatmapWidget map;
    map.setMatrix(tutorialWeights(), kTokens, kTokens);
    QCOMPARE(map.backgroundColor(), QColor(Qt::white));
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
    map.setPalette(dark);
    QCOMPARE(map.backgroundColor(), QColor(0x1e, 0x1e, 0x1e));
    QCOMPARE(map.plot()->yAxis->tickLabelColor(), QColor(0xe8, 0xe8, 0xe8));
    showAndLayOut(map, QSize(600, 500));
    map.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const QImage screen = map.plot()->toPixmap().toImage();
    QVERIFY(screen.pixelColor(2, 2).lightnessF() < 0.3f);

    // A figure is white with dark labels; the screen keeps its dark colours afterwards.
    const QImage figure = map.renderImage(QSize(600, 500));
    QCOMPARE(figure.pixelColor(2, 2), QColor(Qt::white));
    QCOMPARE(map.backgroundColor(), QColor(0x1e, 0x1e, 0x1e));
    const QImage clear = map.renderImage(QSize(600, 500), 1.0, true);
    QCOMPARE(clear.pixelColor(2, 2).alpha(), 0);
}

void TestHeatmapClassroom::germanLocalePrintsTheSameDigits() {
    const QLocale before;
    QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    QVERIFY(std::setlocale(LC_ALL, "de_DE.UTF-8") != nullptr);
    {
        HeatmapWidget map;
        map.setMatrix(tutorialWeights(), kTokens, kTokens);
        showAndLayOut(map, QSize(700, 560));
        map.plot()->replot(QCustomPlot::rpImmediateRefresh);
        const QString cell = map.cellText(1, 2);
        QVERIFY2(cell.startsWith(QStringLiteral("0.")) && !cell.contains(QLatin1Char(',')),
                 qPrintable(cell));
        QVERIFY(map.tooltipText(1, 2).endsWith(QStringLiteral(": ") + cell));
        const QString note = map.rangeNote();
        QVERIFY2(note.contains(QStringLiteral("0.")) && !note.contains(QLatin1Char(',')),
                 qPrintable(note));
        const QCPAxis* barAxis = map.colorScale()->axis();
        if (barAxis == nullptr) QFAIL("the colour bar has no axis");
        const QVector<QString> ticks = barAxis->tickVectorLabels();
        QVERIFY(!ticks.isEmpty());
        bool anyDecimal = false;
        for (const QString& tick : ticks) {
            QVERIFY2(!tick.contains(QLatin1Char(',')), qPrintable(tick));
            anyDecimal = anyDecimal || tick.contains(QLatin1Char('.'));
        }
        QVERIFY(anyDecimal);
    }
    QLocale::setDefault(before);
    std::setlocale(LC_ALL, "C");
}

QTEST_MAIN(TestHeatmapClassroom)
#include "test_heatmap_classroom.moc"
