// Figures: the walkthrough's heatmaps as views/figure_render.h draws them for the window
// and `attention-cli export`. Checks the file names, that a PNG has the requested pixels and is
// what the screen shows, that the options apply to the figure only, the clipboard image, the
// presentation "reveal", and that the default colour maps stay readable with colour-vision
// deficiencies. The file formats and saving are in test_figure_files.cpp.
#include <QImage>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "figure_test_util.h"
#include "image_checks.h"
#include "tests/test_files.h"
#include "views/colormaps.h"
#include "views/heatmap_widget.h"
#include "views/step_page.h"

using views::Figure;
using views::FigureFormat;
using views::FigureOptions;

namespace {

// CIE L*a*b* (D65) of linear RGB, for colour differences as a viewer perceives them.
std::array<double, 3> labOfLinear(const std::array<double, 3>& rgb) {
    const double x = (0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]) / 0.95047;
    const double y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
    const double z = (0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]) / 1.08883;
    const auto f = [](double t) {
        constexpr double d = 6.0 / 29.0;
        return t > d * d * d ? std::cbrt(t) : t / (3 * d * d) + 4.0 / 29.0;
    };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

double srgbToLinear(double c) {
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

// Machado, Oliveira & Fernandes (2009), severity 1: how a colour looks with protanopia,
// deuteranopia or tritanopia (index 0..2); index 3 is normal vision.
std::array<double, 3> simulatedLab(const QColor& color, int deficiency) {
    static const double kMatrices[4][3][3] = {
        {{0.152286, 1.052583, -0.204868},
         {0.114503, 0.786281, 0.099216},
         {-0.003882, -0.048116, 1.051998}},
        {{0.367322, 0.860646, -0.227968},
         {0.280085, 0.672501, 0.047413},
         {-0.011820, 0.042940, 0.968881}},
        {{1.255528, -0.076749, -0.178779},
         {-0.078411, 0.930809, 0.147602},
         {0.004733, 0.691367, 0.303900}},
        {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
    };
    const std::array<double, 3> rgb = {srgbToLinear(color.redF()), srgbToLinear(color.greenF()),
                                       srgbToLinear(color.blueF())};
    std::array<double, 3> out{};
    for (int i = 0; i < 3; ++i) {
        double v = 0.0;
        for (int j = 0; j < 3; ++j)
            v += kMatrices[deficiency][i][j] * rgb[static_cast<std::size_t>(j)];
        out[static_cast<std::size_t>(i)] = std::clamp(v, 0.0, 1.0);
    }
    return labOfLinear(out);
}

double deltaE(const std::array<double, 3>& a, const std::array<double, 3>& b) {
    return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

}  // namespace

class TestFigureExport : public QObject {
    Q_OBJECT

private slots:
    void formatNames();
    void fileNames_data();
    void fileNames();
    void walkthroughFigures();
    void pngSize_data();
    void pngSize();
    void pngIsWhatTheScreenShows();
    void optionsApplyAndRestore();
    void clipboardImage();
    void revealHidesRows();
    void defaultPalettesAreColourBlindSafe();
};

void TestFigureExport::formatNames() {
    QCOMPARE(views::figureFormatFromName("png"), std::optional(FigureFormat::Png));
    QCOMPARE(views::figureFormatFromName("SVG"), std::optional(FigureFormat::Svg));
    QCOMPARE(views::figureFormatFromName("Pdf"), std::optional(FigureFormat::Pdf));
    QCOMPARE(views::figureFormatFromName("csv"), std::optional(FigureFormat::Csv));
    QVERIFY(!views::figureFormatFromName("gif"));
    QVERIFY(!views::figureFormatFromName(""));
    QCOMPARE(views::figureSuffix(FigureFormat::Pdf), QString("pdf"));
}

void TestFigureExport::fileNames_data() {
    QTest::addColumn<int>("step");
    QTest::addColumn<QString>("matrix");
    QTest::addColumn<int>("frame");  // -1: as the page opens
    QTest::addColumn<bool>("inference");
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("expected");
    QTest::newRow("step 11 causal weights") << 11 << "causal-weights" << -1 << false << "png"
                                            << "step-11-causal-weights.png";
    QTest::newRow("step 14 head 2") << 14 << "head-2" << -1 << false << "svg"
                                    << "step-14-head-2.svg";
    QTest::newRow("step 1 inputs") << 1 << "inputs" << -1 << false << "csv"
                                   << "step-01-inputs.csv";
    QTest::newRow("kv-cache opens on the last frame")
        << 16 << "new-weights-head-1" << -1 << false << "png"
        << "step-16-new-weights-head-1.png";
    QTest::newRow("kv-cache last frame chosen") << 16 << "cached-keys" << 5 << false << "png"
                                                << "step-16-cached-keys.png";
    QTest::newRow("kv-cache frame 3") << 16 << "new-weights-head-1" << 2 << false << "pdf"
                                      << "step-16-new-weights-head-1-frame-3.pdf";
    QTest::newRow("kv-cache frame 3, matrix of every frame")
        << 16 << "full-output" << 2 << false << "png"
        << "step-16-full-output.png";
    QTest::newRow("dropout at inference") << 12 << "dropped-weights" << -1 << true << "png"
                                          << "step-12-dropped-weights-inference.png";
    QTest::newRow("dropout mask at inference") << 12 << "dropout-mask" << -1 << true << "svg"
                                               << "step-12-dropout-mask-inference.svg";
    QTest::newRow("dropout input unchanged at inference")
        << 12 << "causal-weights" << -1 << true << "png"
        << "step-12-causal-weights.png";
}

void TestFigureExport::fileNames() {
    QFETCH(int, step);
    QFETCH(QString, matrix);
    QFETCH(int, frame);
    QFETCH(bool, inference);
    QFETCH(QString, format);
    QFETCH(QString, expected);
    views::StepPage page(stepNumber(step));
    if (frame >= 0) page.setFrame(frame);
    page.setInference(inference);
    QVERIFY(page.shownMatrix(matrix));
    QCOMPARE(views::figureFileName(page, matrix, *views::figureFormatFromName(format)), expected);
}

// One figure per heatmap the pages open with; the KV-cache step at its last frame.
void TestFigureExport::walkthroughFigures() {
    int expected = 0;
    for (const attn::Step& s : walkthrough()) {
        std::set<std::string> ids;
        for (const attn::StepMatrix& m : s.matrices)
            if (m.frame < 0 || m.frame == s.frame_count - 1) ids.insert(m.id);
        expected += static_cast<int>(ids.size());
    }
    QCOMPARE(expected, 110);  // the tutorial's 84, GQA's 8, masks' 4, RoPE's 7, tiles' 7
    std::vector<std::unique_ptr<views::StepPage>> pages;
    QSet<QString> names;
    const QRegularExpression pattern("^step-(0[1-9]|1[0-9]|20)-[A-Za-z0-9_-]+\\.png$");
    for (const attn::Step& s : walkthrough()) {
        pages.push_back(std::make_unique<views::StepPage>(s));
        for (const Figure& f : views::pageFigures(*pages.back())) {
            const QString name = views::figureFileName(*f.page, f.matrixId, FigureFormat::Png);
            QVERIFY2(pattern.match(name).hasMatch(), qPrintable(name));
            QVERIFY2(!names.contains(name), qPrintable(name));
            names.insert(name);
        }
    }
    QCOMPARE(names.size(), expected);
}

void TestFigureExport::pngSize_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<double>("scale");
    QTest::addColumn<QSize>("pixels");  // empty: the heatmap's preferred size × scale
    QTest::newRow("fitted x1") << QSize() << 1.0 << QSize();
    QTest::newRow("fitted x2") << QSize() << 2.0 << QSize();
    QTest::newRow("800x600 x1") << QSize(800, 600) << 1.0 << QSize(800, 600);
    QTest::newRow("500x400 x1.5") << QSize(500, 400) << 1.5 << QSize(750, 600);
    QTest::newRow("640x480 x4 (print)") << QSize(640, 480) << 4.0 << QSize(2560, 1920);
}

void TestFigureExport::pngSize() {
    QFETCH(QSize, size);
    QFETCH(double, scale);
    QFETCH(QSize, pixels);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    views::StepPage page(stepNumber(11));
    FigureOptions options;
    options.size = size;
    options.scale = scale;
    const QString path = dir.filePath("figure.png");
    QString error;
    QVERIFY2(exportFigure({&page, "causal-weights"}, path, options, &error), qPrintable(error));
    const QImage image(path);
    QVERIFY(!image.isNull());
    if (pixels.isEmpty()) {
        // Fitted: the preferred size with the title the export adds.
        views::HeatmapWidget* map = page.heatmap("causal-weights");
        const QSize logical = views::fittedFigureSize({&page, "causal-weights"}, options);
        QVERIFY(map->title().isEmpty());
        map->setTitle(page.caption("causal-weights"));
        QCOMPARE(logical, map->preferredSize());
        map->setTitle({});
        pixels = QSize(qRound(logical.width() * scale), qRound(logical.height() * scale));
        QVERIFY(logical.width() >= 320 && logical.height() >= 240);
    }
    QCOMPARE(image.size(), pixels);
    QVERIFY2(distinctColors(image) >= 20, qPrintable(QString::number(distinctColors(image))));
    // Not blank: the cells cover a good part of the figure.
    QVERIFY2(nonWhiteShare(image) > 0.25, qPrintable(QString::number(nonWhiteShare(image))));
    QCOMPARE(folderEntries(dir.path()), QStringList{"figure.png"});
}

// The promise: what is exported is what is on screen. The page is shown with a clicked
// cell (its outline and the outlines it draws on the matrices it came from); the heatmap grabbed
// from the screen and the PNG of the same size must agree pixel for pixel.
void TestFigureExport::pngIsWhatTheScreenShows() {
    views::StepPage page(stepNumber(11));
    page.resize(1300, 1000);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QVERIFY(!page.explainCell("causal-weights", 3, 1).isEmpty());
    views::HeatmapWidget* map = page.heatmap("masked-scores");
    QVERIFY(map->highlightedCell().has_value());  // the cell the clicked one came from
    for (int i = 0; i < 5; ++i) QCoreApplication::processEvents();
    const QImage screen = map->plot()->grab().toImage().convertToFormat(QImage::Format_RGB32);
    QVERIFY(screen.width() > 200 && screen.height() > 200);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    FigureOptions options;
    options.size = map->plot()->size();
    options.title = false;  // the page shows the caption above the heatmap, not in it
    const QString path = dir.filePath("screen.png");
    QString error;
    QVERIFY2(exportFigure({&page, "masked-scores"}, path, options, &error), qPrintable(error));
    const QImage file = QImage(path).convertToFormat(QImage::Format_RGB32);
    QCOMPARE(file.size(), screen.size());
    qint64 same = 0;
    for (int y = 0; y < file.height(); ++y)
        for (int x = 0; x < file.width(); ++x)
            if (sameColor(file.pixelColor(x, y), screen.pixelColor(x, y), 3)) ++same;
    // Glyph edges differ a little (the screen composes text from QCustomPlot's transparent layer
    // buffers, the file draws it straight onto white); everything else is the same.
    const double share = static_cast<double>(same) / (file.width() * file.height());
    QVERIFY2(share > 0.97, qPrintable(QString::number(share)));
    // Cell fills (colour map and hatching) and the outlines, away from the centred numbers: the
    // export laid the plot out at the screen's size, so cellCenter() holds for both images.
    const double w = map->cellCenter(0, 1).x() - map->cellCenter(0, 0).x();
    const double h = map->cellCenter(1, 0).y() - map->cellCenter(0, 0).y();
    QVERIFY(w > 30 && h > 30);
    for (int r = 0; r < 6; ++r) {
        for (int c = 0; c < 6; ++c) {
            const QPointF centre = map->cellCenter(r, c);
            for (const QPointF offset : {QPointF(-0.4 * w, -0.4 * h), QPointF(0.4 * w, 0.35 * h),
                                         QPointF(-0.45 * w, 0), QPointF(0, -0.45 * h)}) {
                const QPoint p = (centre + offset).toPoint();
                QVERIFY2(
                    sameColor(file.pixelColor(p), screen.pixelColor(p), 3),
                    qPrintable(QString("cell %1,%2 at %3,%4: %5 vs %6")
                                   .arg(r)
                                   .arg(c)
                                   .arg(p.x())
                                   .arg(p.y())
                                   .arg(file.pixelColor(p).name(), screen.pixelColor(p).name())));
            }
        }
    }
}

// Title, values, colour map and background apply to the file only: the page keeps its own.
void TestFigureExport::optionsApplyAndRestore() {
    views::StepPage page(stepNumber(11));
    views::HeatmapWidget* map = page.heatmap("attn-scores");
    QCOMPARE(map->colorMapName(), QString("diverging"));
    QVERIFY(map->title().isEmpty());
    QVERIFY(map->showValues());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    FigureOptions options;
    options.size = QSize(600, 480);
    options.values = false;
    options.colorMap = views::colormap::kCividis;
    options.transparent = true;
    const QString path = dir.filePath("options.png");
    QString error;
    QVERIFY2(exportFigure({&page, "attn-scores"}, path, options, &error), qPrintable(error));
    // The layout of the export is still the plot's: sample its cells where they were drawn.
    const QPointF corner = map->cellCenter(0, 0);
    const QPointF far = map->cellCenter(5, 5);
    const QImage image(path);
    QCOMPARE(qAlpha(image.pixel(1, 1)), 0);  // transparent background
    // Cividis over the matrix's own min..max (the auto range of a non-diverging map).
    const attn::Matrix& scores = stepNumber(11).find("attn-scores")->values;
    // Non-negative scores start at 0.
    const double lo = std::min(0.0, static_cast<double>(scores.minCoeff()));
    const double hi = static_cast<double>(scores.maxCoeff());
    for (const auto& [point, value] :
         {std::pair{corner, scores(0, 0)}, std::pair{far, scores(5, 5)}}) {
        const QColor expected = views::colormap::colorAt(
            views::colormap::kCividis, (static_cast<double>(value) - lo) / (hi - lo));
        const QColor actual = image.pixelColor(point.toPoint());
        QVERIFY2(sameColor(actual, expected, 8),
                 qPrintable(actual.name() + " vs " + expected.name()));
    }
    // With values off the cell centre is the plain cell colour, no digit drawn over it.
    QVERIFY(sameColor(image.pixelColor(corner.toPoint() + QPoint(3, 0)),
                      image.pixelColor(corner.toPoint()), 2));

    // The page is back as it was.
    QCOMPARE(map->colorMapName(), QString("diverging"));
    QVERIFY(map->title().isEmpty());
    QVERIFY(map->showValues());
    const QImage again = map->renderImage(QSize(300, 240));
    QCOMPARE(again.pixelColor(1, 1), QColor(Qt::white));
}

void TestFigureExport::clipboardImage() {
    views::StepPage page(stepNumber(14));
    FigureOptions options;
    options.size = QSize(400, 300);
    options.scale = 2.0;
    const QImage image = views::renderFigure({&page, "head-2"}, options);
    QCOMPARE(image.size(), QSize(800, 600));
    QVERIFY(distinctColors(image) >= 20);
    QVERIFY(views::renderFigure({&page, "no-such-matrix"}, options).isNull());
    QVERIFY(page.heatmap("head-2")->title().isEmpty());
}

void TestFigureExport::revealHidesRows() {
    views::StepPage page(stepNumber(5));
    views::HeatmapWidget* map = page.heatmap("attn-weights");
    QCOMPARE(map->revealedRows(), -1);
    QVERIFY(!map->tooltipText(4, 0).isEmpty());
    map->setRevealedRows(2);
    QVERIFY(map->rowRevealed(1));
    QVERIFY(!map->rowRevealed(2));
    QVERIFY(map->tooltipText(1, 0).contains("="));
    QVERIFY(map->tooltipText(4, 0).isEmpty());  // a hidden row gives nothing away
    const QImage image = map->renderImage(QSize(520, 440));
    for (int r = 0; r < 6; ++r) {
        for (int c = 0; c < 6; ++c) {
            // Left of the centred text, on the cell's own fill.
            const QPointF centre = map->cellCenter(r, c);
            const QColor pixel =
                image.pixelColor(QPoint(qRound(centre.x()) - 22, qRound(centre.y())));
            if (r < 2)
                QVERIFY2(sameColor(pixel, map->cellColor(r, c), 3), qPrintable(pixel.name()));
            else
                QVERIFY2(sameColor(pixel, QColor(0xe4, 0xe4, 0xe4), 2), qPrintable(pixel.name()));
        }
    }
    map->setRevealedRows(-1);
    QVERIFY(map->rowRevealed(5));
    QVERIFY(!map->tooltipText(4, 0).isEmpty());
}

// The default maps (viridis for weights, ColorBrewer RdBu for signed values) as seen with
// protanopia, deuteranopia and tritanopia: viridis stays ordered by lightness, and the two sides
// of the diverging map stay apart at every distance from 0 with lightness falling away from it.
void TestFigureExport::defaultPalettesAreColourBlindSafe() {
    using views::colormap::colorAt;
    for (int deficiency = 0; deficiency < 4; ++deficiency) {
        double previous = -1.0;
        for (int i = 0; i <= 16; ++i) {
            const double lightness =
                simulatedLab(colorAt(views::colormap::kViridis, i / 16.0), deficiency)[0];
            QVERIFY2(lightness > previous + 2.0,
                     qPrintable(QString("viridis %1/16, deficiency %2").arg(i).arg(deficiency)));
            previous = lightness;
        }
        double lighterNegative = 101.0;
        double lighterPositive = 101.0;
        for (int k = 1; k <= 5; ++k) {
            const auto negative =
                simulatedLab(colorAt(views::colormap::kDiverging, 0.5 - 0.1 * k), deficiency);
            const auto positive =
                simulatedLab(colorAt(views::colormap::kDiverging, 0.5 + 0.1 * k), deficiency);
            QVERIFY2(deltaE(negative, positive) >= 15.0,
                     qPrintable(QString("±%1, deficiency %2: ΔE %3")
                                    .arg(0.1 * k)
                                    .arg(deficiency)
                                    .arg(deltaE(negative, positive))));
            QVERIFY(negative[0] < lighterNegative);
            QVERIFY(positive[0] < lighterPositive);
            lighterNegative = negative[0];
            lighterPositive = positive[0];
        }
    }
    // And the pages use these two by default.
    for (const attn::Step& s : walkthrough()) {
        views::StepPage page(s);
        for (views::HeatmapWidget* map : page.heatmaps())
            QVERIFY2(map->colorMapName() == views::colormap::kViridis ||
                         map->colorMapName() == views::colormap::kDiverging,
                     qPrintable(map->colorMapName()));
    }
}

QTEST_MAIN(TestFigureExport)
#include "test_figure_export.moc"
