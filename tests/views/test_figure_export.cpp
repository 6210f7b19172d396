// Figure export (issue 5): the walkthrough's heatmaps as PNG, SVG, PDF and CSV through
// views/figure_export.h, the code the window and `attention-cli export` share. Checks the file
// names, that a PNG has the requested pixels and is what the screen shows, that SVG and PDF hold
// the cells and labels as text, the CSV numbers to the last bit, that a failed or refused export
// leaves the folder as it was, the presentation "reveal", and that the default colour maps stay
// readable with colour-vision deficiencies.
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>

#include "model/walkthrough.h"
#include "views/colormaps.h"
#include "views/figure_export.h"
#include "views/heatmap_widget.h"
#include "views/step_page.h"

using views::Figure;
using views::FigureFormat;
using views::FigureOptions;

namespace {

const std::vector<attn::Step>& walkthrough() {
    static const std::vector<attn::Step> steps = attn::build_walkthrough();
    return steps;
}

const attn::Step& stepNumber(int n) { return walkthrough().at(static_cast<std::size_t>(n - 1)); }

QByteArray readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

int distinctColors(const QImage& image) {
    QSet<QRgb> colors;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3) colors.insert(image.pixel(x, y));
    return static_cast<int>(colors.size());
}

double nonWhiteShare(const QImage& image) {
    qint64 count = 0;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            if ((image.pixel(x, y) & 0xffffff) != 0xffffff) ++count;
    return static_cast<double>(count) / ((image.height() + 1) / 2 * ((image.width() + 1) / 2));
}

bool sameColor(const QColor& a, const QColor& b, int tolerance) {
    return std::abs(a.red() - b.red()) <= tolerance &&
           std::abs(a.green() - b.green()) <= tolerance &&
           std::abs(a.blue() - b.blue()) <= tolerance;
}

// The text content of every <text> element, in document order.
QStringList svgTexts(const QByteArray& svg, QString* xmlError) {
    QXmlStreamReader xml(svg);
    QStringList texts;
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("text"))
            texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
    }
    *xmlError = xml.hasError() ? xml.errorString() : QString();
    return texts;
}

QStringList folderEntries(const QString& dir) {
    return QDir(dir).entryList(
        QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

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
    void svgCellsAndLabels_data();
    void svgCellsAndLabels();
    void pdfHeaderTrailerAndText();
    void csvNumbers();
    void csvQuoting();
    void clipboardImage();
    void existingFileRefused_data();
    void existingFileRefused();
    void failedBatchLeavesFolderAsFound_data();
    void failedBatchLeavesFolderAsFound();
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
    QTest::newRow("kv-cache opens on the last frame") << 16 << "new-weights" << -1 << false << "png"
                                                      << "step-16-new-weights.png";
    QTest::newRow("kv-cache last frame chosen") << 16 << "cached-keys" << 5 << false << "png"
                                                << "step-16-cached-keys.png";
    QTest::newRow("kv-cache frame 3") << 16 << "new-weights" << 2 << false << "pdf"
                                      << "step-16-new-weights-frame-3.pdf";
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
    QCOMPARE(expected, 81);  // the walkthrough as the issue was written; update with new steps
    std::vector<std::unique_ptr<views::StepPage>> pages;
    QSet<QString> names;
    const QRegularExpression pattern("^step-(0[1-9]|1[0-6])-[A-Za-z0-9_-]+\\.png$");
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
    QVERIFY2(views::exportFigure({&page, "causal-weights"}, path, options, &error),
             qPrintable(error));
    const QImage image(path);
    QVERIFY(!image.isNull());
    if (pixels.isEmpty()) {
        // Fitted: the preferred size with the title the export adds.
        attn::HeatmapWidget* map = page.heatmap("causal-weights");
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
    attn::HeatmapWidget* map = page.heatmap("masked-scores");
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
    QVERIFY2(views::exportFigure({&page, "masked-scores"}, path, options, &error),
             qPrintable(error));
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
    attn::HeatmapWidget* map = page.heatmap("attn-scores");
    QCOMPARE(map->colorMapName(), QString("diverging"));
    QVERIFY(map->title().isEmpty());
    QVERIFY(map->showValues());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    FigureOptions options;
    options.size = QSize(600, 480);
    options.values = false;
    options.colorMap = attn::colormap::kCividis;
    options.transparent = true;
    const QString path = dir.filePath("options.png");
    QString error;
    QVERIFY2(views::exportFigure({&page, "attn-scores"}, path, options, &error), qPrintable(error));
    // The layout of the export is still the plot's: sample its cells where they were drawn.
    const QPointF corner = map->cellCenter(0, 0);
    const QPointF far = map->cellCenter(5, 5);
    const QImage image(path);
    QCOMPARE(qAlpha(image.pixel(1, 1)), 0);  // transparent background
    // Cividis over the matrix's own min..max (the auto range of a non-diverging map).
    const attn::Matrix& scores = stepNumber(11).find("attn-scores")->values;
    const double lo = static_cast<double>(scores.minCoeff());
    const double hi = static_cast<double>(scores.maxCoeff());
    for (const auto& [point, value] :
         {std::pair{corner, scores(0, 0)}, std::pair{far, scores(5, 5)}}) {
        const QColor expected = attn::colormap::colorAt(
            attn::colormap::kCividis, (static_cast<double>(value) - lo) / (hi - lo));
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

void TestFigureExport::svgCellsAndLabels_data() {
    QTest::addColumn<bool>("values");
    QTest::addColumn<bool>("title");
    QTest::newRow("values and title") << true << true;
    QTest::newRow("no values") << false << true;
    QTest::newRow("no title") << true << false;
}

void TestFigureExport::svgCellsAndLabels() {
    QFETCH(bool, values);
    QFETCH(bool, title);
    views::StepPage page(stepNumber(11));
    attn::HeatmapWidget* map = page.heatmap("masked-scores");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    FigureOptions options;
    options.format = FigureFormat::Svg;
    options.values = values;
    options.title = title;
    QStringList written;
    QString error;
    QVERIFY2(
        views::exportFigures({{&page, "masked-scores"}}, dir.path(), options, &written, &error),
        qPrintable(error));
    QCOMPARE(written, QStringList{dir.filePath("step-11-masked-scores.svg")});
    const QByteArray svg = readFile(written.first());
    QString xmlError;
    const QStringList texts = svgTexts(svg, &xmlError);
    QVERIFY2(xmlError.isEmpty(), qPrintable(xmlError));
    QVERIFY(svg.contains("<svg"));

    // Every cell is a text element ("0.3111", and "−∞" for the 15 masked ones).
    QSet<QString> cellTexts;
    for (int r = 0; r < map->rowCount(); ++r)
        for (int c = 0; c < map->columnCount(); ++c) cellTexts.insert(map->cellText(r, c));
    QVERIFY(cellTexts.contains("0.3111"));
    QVERIFY(cellTexts.contains(QString::fromUtf8("−∞")));
    const qsizetype cells = std::count_if(texts.begin(), texts.end(),
                                          [&](const QString& t) { return cellTexts.contains(t); });
    QCOMPARE(cells, values ? qsizetype{36} : qsizetype{0});
    QCOMPARE(texts.count(QString::fromUtf8("−∞")), values ? qsizetype{15} : qsizetype{0});
    // Token labels on both axes.
    for (const char* token : {"Your", "journey", "starts", "with", "one", "step"})
        QCOMPARE(texts.count(QString::fromUtf8(token)), qsizetype{2});
    QCOMPARE(texts.contains(page.caption("masked-scores")), title);
    QVERIFY(!page.caption("masked-scores").isEmpty());

    QSvgRenderer renderer(written.first());
    QVERIFY(renderer.isValid());
}

void TestFigureExport::pdfHeaderTrailerAndText() {
    views::StepPage page(stepNumber(15));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    FigureOptions options;
    options.format = FigureFormat::Pdf;
    options.size = QSize(640, 520);
    const QString path = dir.filePath("cross.pdf");
    QString error;
    QVERIFY2(views::exportFigure({&page, "cross-weights"}, path, options, &error),
             qPrintable(error));
    const QByteArray pdf = readFile(path);
    QVERIFY(pdf.startsWith("%PDF-"));
    QVERIFY(pdf.trimmed().endsWith("%%EOF"));
#ifdef ATTN_PDFINFO
    {
        QProcess info;
        info.start(QStringLiteral(ATTN_PDFINFO), {path});
        QVERIFY(info.waitForFinished(30000));
        QCOMPARE(info.exitCode(), 0);
        const QString out = QString::fromUtf8(info.readAllStandardOutput());
        QVERIFY2(out.contains(QRegularExpression("Pages:\\s+1\\n")), qPrintable(out));
        // One point per logical pixel.
        QVERIFY2(out.contains(QRegularExpression("Page size:\\s+640 x 520 pts")), qPrintable(out));
        QVERIFY2(out.contains(page.caption("cross-weights")), qPrintable(out));
    }
#endif
#ifdef ATTN_PDFTOTEXT
    {
        QProcess text;
        text.start(QStringLiteral(ATTN_PDFTOTEXT), {path, "-"});
        QVERIFY(text.waitForFinished(30000));
        QCOMPARE(text.exitCode(), 0);
        // NFKC: pdftotext may name 一 by its twin glyph, the Kangxi radical ⼀ (U+2F00).
        const QString out = QString::fromUtf8(text.readAllStandardOutput())
                                .normalized(QString::NormalizationForm_KC);
        for (const char* label : {"Your", "journey", "step", "你的", "旅程", "始于", "一步"})
            QVERIFY2(out.contains(QString::fromUtf8(label)), label);
        // A weight of the tutorial's cross-attention, as the cell prints it.
        QVERIFY2(out.contains(page.heatmap("cross-weights")->cellText(0, 1)), qPrintable(out));
    }
#endif
}

void TestFigureExport::csvNumbers() {
    views::StepPage page(stepNumber(11));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    FigureOptions options;
    options.format = FigureFormat::Csv;
    const QString path = dir.filePath("scores.csv");
    QString error;
    QVERIFY2(views::exportFigure({&page, "masked-scores"}, path, options, &error),
             qPrintable(error));
    const QByteArray csv = readFile(path);
    QVERIFY(csv.endsWith("\r\n"));
    const QList<QByteArray> lines = csv.trimmed().split('\n');
    QCOMPARE(lines.size(), 7);
    QCOMPARE(lines[0].trimmed(), QByteArray(",Your,journey,starts,with,one,step"));
    const attn::StepMatrix* m = stepNumber(11).find("masked-scores");
    int negInf = 0;
    for (int r = 0; r < 6; ++r) {
        const QList<QByteArray> fields = lines[r + 1].trimmed().split(',');
        QCOMPARE(fields.size(), 7);
        QCOMPARE(QString::fromUtf8(fields[0]),
                 QString::fromStdString(m->row_labels[static_cast<std::size_t>(r)]));
        for (int c = 0; c < 6; ++c) {
            const QByteArray& f = fields[c + 1];
            if (c > r) {
                QCOMPARE(f, QByteArray("-inf"));
                ++negInf;
                continue;
            }
            bool ok = false;
            const float v = f.toFloat(&ok);
            QVERIFY2(ok, f.constData());
            QCOMPARE(v, m->values(r, c));  // bit for bit: the shortest digits read back exactly
        }
    }
    QCOMPARE(negInf, 15);
    // The tutorial's first score, as printed: 0.3111.
    QCOMPARE(QString::number(lines[1].split(',')[1].toDouble(), 'f', 4), QString("0.3111"));
}

void TestFigureExport::csvQuoting() {
    attn::HeatmapWidget map;
    attn::Matrix values(2, 2);
    values << 1.0e-7f, std::numeric_limits<float>::quiet_NaN(),
        -std::numeric_limits<float>::infinity(), -0.25f;
    map.setMatrix(values, {"a,b", "say \"hi\""}, {" x", "你的"});
    QCOMPARE(views::matrixCsv(map), QByteArray(",\" x\",你的\r\n"
                                               "\"a,b\",1e-07,nan\r\n"
                                               "\"say \"\"hi\"\"\",-inf,-0.25\r\n"));
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

void TestFigureExport::existingFileRefused_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<QByteArray>("magic");  // how the new file starts
    QTest::newRow("png") << "png" << QByteArray("\x89PNG");
    QTest::newRow("svg") << "svg" << QByteArray("<?xml");
    QTest::newRow("pdf") << "pdf" << QByteArray("%PDF-");
    QTest::newRow("csv") << "csv" << QByteArray(",Your");
}

void TestFigureExport::existingFileRefused() {
    QFETCH(QString, format);
    QFETCH(QByteArray, magic);
    views::StepPage page(stepNumber(11));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("step-11-causal-weights." + format);
    QVERIFY(writeFile(path, "keep me"));
    FigureOptions options;
    options.format = *views::figureFormatFromName(format);
    QString error;
    QVERIFY(!views::exportFigure({&page, "causal-weights"}, path, options, &error));
    QVERIFY2(error.contains(QDir::toNativeSeparators(path)), qPrintable(error));
    QVERIFY2(error.contains("already exists"), qPrintable(error));
    QCOMPARE(readFile(path), QByteArray("keep me"));

    options.overwrite = true;
    QVERIFY2(views::exportFigure({&page, "causal-weights"}, path, options, &error),
             qPrintable(error));
    QVERIFY(readFile(path).startsWith(magic));
    QCOMPARE(folderEntries(dir.path()), QStringList{"step-11-causal-weights." + format});
}

void TestFigureExport::failedBatchLeavesFolderAsFound_data() {
    QTest::addColumn<QString>("problem");
    QTest::addColumn<QString>("message");  // part of the error
    QTest::newRow("an existing file") << "existing"
                                      << "already exists";
    QTest::newRow("a folder where the last figure goes") << "blocked"
                                                         << "is a folder";
    QTest::newRow("the folder is a file") << "file"
                                          << "is a file, not a folder";
    QTest::newRow("the folder's parent is a file") << "under-file"
                                                   << "Could not create the folder";
}

// Root can write into read-only folders, so the failures are made with paths no one can write.
void TestFigureExport::failedBatchLeavesFolderAsFound() {
    QFETCH(QString, problem);
    QFETCH(QString, message);
    views::StepPage page(stepNumber(11));
    QTemporaryDir root;
    QVERIFY(root.isValid());
    QString dir = root.filePath("figures");
    QVERIFY(QDir().mkpath(dir));
    FigureOptions options;
    if (problem == "existing") {
        QVERIFY(writeFile(QDir(dir).filePath("step-11-causal-weights.png"), "keep me"));
    } else if (problem == "blocked") {
        // The last figure of the step cannot be written: the four before it must go again.
        QVERIFY(QDir(dir).mkdir("step-11-method-difference.png"));
        options.overwrite = true;
    } else if (problem == "file") {
        QVERIFY(QDir(dir).removeRecursively());
        QVERIFY(writeFile(dir, "not a folder"));
    } else {
        QVERIFY(QDir(dir).removeRecursively());
        QVERIFY(writeFile(dir, "not a folder"));
        dir += "/sub";
    }
    const QStringList before = folderEntries(root.path());
    const QStringList beforeInside = folderEntries(dir);
    QStringList written{"stale"};
    QString error;
    QVERIFY(!views::exportFigures(views::pageFigures(page), dir, options, &written, &error));
    QVERIFY2(error.contains(message), qPrintable(error));
    QVERIFY(written.isEmpty());
    QCOMPARE(folderEntries(root.path()), before);
    QCOMPARE(folderEntries(dir), beforeInside);
    if (problem == "existing")
        QCOMPARE(readFile(QDir(dir).filePath("step-11-causal-weights.png")), QByteArray("keep me"));
    if (problem == "blocked") QVERIFY2(error.contains("removed again"), qPrintable(error));
}

void TestFigureExport::revealHidesRows() {
    views::StepPage page(stepNumber(5));
    attn::HeatmapWidget* map = page.heatmap("attn-weights");
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
    using attn::colormap::colorAt;
    for (int deficiency = 0; deficiency < 4; ++deficiency) {
        double previous = -1.0;
        for (int i = 0; i <= 16; ++i) {
            const double lightness =
                simulatedLab(colorAt(attn::colormap::kViridis, i / 16.0), deficiency)[0];
            QVERIFY2(lightness > previous + 2.0,
                     qPrintable(QString("viridis %1/16, deficiency %2").arg(i).arg(deficiency)));
            previous = lightness;
        }
        double lighterNegative = 101.0;
        double lighterPositive = 101.0;
        for (int k = 1; k <= 5; ++k) {
            const auto negative =
                simulatedLab(colorAt(attn::colormap::kDiverging, 0.5 - 0.1 * k), deficiency);
            const auto positive =
                simulatedLab(colorAt(attn::colormap::kDiverging, 0.5 + 0.1 * k), deficiency);
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
        for (attn::HeatmapWidget* map : page.heatmaps())
            QVERIFY2(map->colorMapName() == attn::colormap::kViridis ||
                         map->colorMapName() == attn::colormap::kDiverging,
                     qPrintable(map->colorMapName()));
    }
}

QTEST_MAIN(TestFigureExport)
#include "test_figure_export.moc"
