// The model window's widgets: the layers × heads mosaic (thumbnail colours follow the weights,
// ranges, clicks, keys, the "previous token" classification), the token strip, the next-token
// chart and its files, and one figure with all heads of a layer.
#include <QApplication>
#include <QDir>
#include <QImage>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "image_checks.h"
#include "model/generator.h"
#include "model/transformer.h"
#include "pdf_tools.h"
#include "tests/dark_palette.h"
#include "tests/support/model_test_weights.h"
#include "views/colormaps.h"
#include "views/figure_render.h"
#include "views/model_heads_mosaic.h"
#include "views/next_token_chart.h"
#include "views/step_page.h"
#include "views/token_strip.h"

namespace {

using Heads = std::vector<std::vector<attn::Matrix>>;

// matplotlib's viridis at 0 and at 1 (_cm_listed.py entries 0 and 255) and at 0.5 (entry 128).
const QColor kViridisLow(68, 1, 84);
const QColor kViridisHigh(253, 231, 37);
const QColor kViridisMid(33, 145, 140);

// Every query on the token before it (the first on itself): GPT-2's "previous token" heads.
attn::Matrix previousTokenHead(Eigen::Index t) {
    attn::Matrix w = attn::Matrix::Zero(t, t);
    w(0, 0) = 1.0f;
    for (Eigen::Index q = 1; q < t; ++q) w(q, q - 1) = 1.0f;
    return w;
}
attn::Matrix firstTokenHead(Eigen::Index t) {
    attn::Matrix w = attn::Matrix::Zero(t, t);
    w.col(0).setOnes();
    return w;
}
// Causal and uniform: query q gives 1 / (q + 1) to each token up to itself.
attn::Matrix uniformHead(Eigen::Index t) {
    attn::Matrix w = attn::Matrix::Zero(t, t);
    for (Eigen::Index q = 0; q < t; ++q)
        for (Eigen::Index k = 0; k <= q; ++k) w(q, k) = 1.0f / static_cast<float>(q + 1);
    return w;
}

QColor pixel(const QImage& image, int x, int y) { return QColor(image.pixel(x, y)); }

// With ATTN_VIEWS_SHOTS_DIR set, the grabs are saved there to be looked at.
void keep(const QImage& image, const QString& name) {
    const QString dir = qEnvironmentVariable("ATTN_VIEWS_SHOTS_DIR");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    image.save(dir + QLatin1Char('/') + name + QStringLiteral(".png"));
}

// The bounding box of the pixels near viridis' top colour inside `area`.
QRect brightBox(const QImage& image, const QRect& area) {
    QRect box;
    for (int y = area.top(); y <= area.bottom(); ++y)
        for (int x = area.left(); x <= area.right(); ++x)
            if (sameColor(pixel(image, x, y), kViridisHigh, 12)) {
                // Cells only: runs at least 30 pixels wide, not the colour bar's 16.
                int run = 0;
                while (x + run <= area.right() &&
                       sameColor(pixel(image, x + run, y), kViridisHigh, 12))
                    ++run;
                if (run >= 30) box |= QRect(x, y, run, 1);
                x += run;
            }
    return box;
}

// A layer page of two heads of four tokens, as the model window builds it.
attn::Step twoHeadLayerStep() {
    attn::ModelForwardResult result;
    attn::Matrix self = attn::Matrix::Identity(4, 4);
    result.attentions = {{firstTokenHead(4), self}};
    const attn::TransformerSpec spec = attn::gpt2_spec(1, 2, 4, 1024, 50257);
    return attn::model_layer_step(result, spec, 0, {"A", "B", "C", "D"});
}

}  // namespace

class TestModelViews : public QObject {
    Q_OBJECT

private slots:
    void mosaicThumbnailsFollowTheWeights() {
        views::ModelHeadsMosaic mosaic;
        mosaic.setAttentions(Heads{{previousTokenHead(6), uniformHead(6)},
                                   {firstTokenHead(6), attn::Matrix::Identity(6, 6)}});
        QCOMPARE(mosaic.layerCount(), 2);
        QCOMPARE(mosaic.headCount(), 2);
        QVERIFY(!mosaic.simplified());
        const QImage prev = mosaic.thumbnail(0, 0);
        QCOMPARE(prev.size(), QSize(6, 6));
        // The bright sub-diagonal; the rest of the past dark; the future grey, outside the map.
        for (int q = 1; q < 6; ++q) {
            QVERIFY2(sameColor(pixel(prev, q - 1, q), kViridisHigh, 3),
                     qPrintable(pixel(prev, q - 1, q).name()));
            QVERIFY(sameColor(pixel(prev, q, q), kViridisLow, 3));
            for (int k = q + 1; k < 6; ++k)
                QCOMPARE(pixel(prev, k, q), views::colormap::maskedColor());
        }
        const QImage first = mosaic.thumbnail(1, 0);
        QVERIFY(sameColor(pixel(first, 0, 5), kViridisHigh, 3));
        QVERIFY(sameColor(pixel(first, 4, 5), kViridisLow, 3));
        QVERIFY(mosaic.thumbnail(2, 0).isNull());
        QVERIFY(mosaic.thumbnailRect(0, 2).isNull());
    }

    void mosaicRanges() {
        views::ModelHeadsMosaic mosaic;
        attn::Matrix half = attn::Matrix::Zero(3, 3);  // a head whose largest weight is 0.5
        half(2, 1) = 0.5f;
        mosaic.setAttentions(Heads{{uniformHead(3), half}});
        QCOMPARE(mosaic.range(), views::ModelHeadsMosaic::Range::PerRow);
        // Each row its own: the uniform head's last row (1/3 each) is as bright as its first.
        QVERIFY(sameColor(pixel(mosaic.thumbnail(0, 0), 0, 2), kViridisHigh, 3));
        QVERIFY(sameColor(pixel(mosaic.thumbnail(0, 1), 1, 2), kViridisHigh, 3));
        mosaic.setRange(views::ModelHeadsMosaic::Range::PerHead);
        QVERIFY(sameColor(pixel(mosaic.thumbnail(0, 1), 1, 2), kViridisHigh, 3));
        QVERIFY(sameColor(pixel(mosaic.thumbnail(0, 0), 0, 0), kViridisHigh, 3));
        QVERIFY(!sameColor(pixel(mosaic.thumbnail(0, 0), 0, 2), kViridisHigh, 60));
        // Shared 0..1: the 0.5 is the middle of the map.
        mosaic.setRange(views::ModelHeadsMosaic::Range::Shared);
        QVERIFY2(sameColor(pixel(mosaic.thumbnail(0, 1), 1, 2), kViridisMid, 4),
                 qPrintable(pixel(mosaic.thumbnail(0, 1), 1, 2).name()));
        QVERIFY(sameColor(pixel(mosaic.thumbnail(0, 1), 0, 2), kViridisLow, 3));
    }

    void mosaicClicksAndHovers() {
        views::ModelHeadsMosaic mosaic;
        mosaic.setAttentions(Heads(3, std::vector<attn::Matrix>(4, uniformHead(5))));
        mosaic.resize(600, mosaic.heightForWidth(600));
        mosaic.show();
        QVERIFY(QTest::qWaitForWindowExposed(&mosaic));
        QSignalSpy clicked(&mosaic, &views::ModelHeadsMosaic::headClicked);
        QSignalSpy hovered(&mosaic, &views::ModelHeadsMosaic::headHovered);
        const QRect r = mosaic.thumbnailRect(2, 1);
        QVERIFY(mosaic.rect().contains(r));
        QVERIFY(r.width() > 40);  // scaled to the width, not the minimum
        QTest::mouseClick(&mosaic, Qt::LeftButton, {}, r.center());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.at(0), (QVariantList{2, 1}));
        QCOMPARE(mosaic.selectedLayer(), 2);
        QCOMPARE(mosaic.selectedHead(), 1);
        // The labels' margin is no head.
        QTest::mouseClick(&mosaic, Qt::LeftButton, {}, QPoint(2, 2));
        QCOMPARE(clicked.count(), 1);
        QTest::mouseMove(&mosaic, mosaic.thumbnailRect(1, 3).center());
        QTRY_VERIFY(!hovered.isEmpty());
        QCOMPARE(hovered.last(), (QVariantList{1, 3}));
    }

    void mosaicKeyboard() {
        views::ModelHeadsMosaic mosaic;
        mosaic.setAttentions(Heads(2, std::vector<attn::Matrix>(3, uniformHead(4))));
        QSignalSpy clicked(&mosaic, &views::ModelHeadsMosaic::headClicked);
        QTest::keyClick(&mosaic, Qt::Key_Right);  // nothing selected: starts at the first head
        QCOMPARE(mosaic.selectedLayer(), 0);
        QCOMPARE(mosaic.selectedHead(), 0);
        QTest::keyClick(&mosaic, Qt::Key_Right);
        QTest::keyClick(&mosaic, Qt::Key_Right);
        QTest::keyClick(&mosaic, Qt::Key_Right);  // stays on the last head
        QTest::keyClick(&mosaic, Qt::Key_Down);
        QCOMPARE(mosaic.selectedLayer(), 1);
        QCOMPARE(mosaic.selectedHead(), 2);
        QTest::keyClick(&mosaic, Qt::Key_Left);
        QTest::keyClick(&mosaic, Qt::Key_Up);
        QCOMPARE(mosaic.selectedLayer(), 0);
        QCOMPARE(mosaic.selectedHead(), 1);
        QCOMPARE(clicked.count(), 0);
        QTest::keyClick(&mosaic, Qt::Key_Return);
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.at(0), (QVariantList{0, 1}));
    }

    void mosaicInAScrollArea() {
        // As the model window holds it: the thumbnails fill the width, the layers scroll.
        QScrollArea area;
        area.setWidgetResizable(true);
        auto* mosaic = new views::ModelHeadsMosaic;
        area.setWidget(mosaic);
        mosaic->setAttentions(Heads(24, std::vector<attn::Matrix>(16, uniformHead(8))));
        area.resize(700, 300);
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        QTRY_COMPARE(mosaic->height(), mosaic->heightForWidth(mosaic->width()));
        QVERIFY(mosaic->height() > area.viewport()->height());
        QVERIFY(mosaic->thumbnailRect(0, 15).right() < area.viewport()->width());
        mosaic->setFocus();
        mosaic->setSelected(0, 0);
        for (int i = 0; i < 23; ++i) QTest::keyClick(mosaic, Qt::Key_Down);
        QCOMPARE(mosaic->selectedLayer(), 23);
        // The last layer scrolled into sight.
        const QRect shown(QPoint(0, area.verticalScrollBar()->value()), area.viewport()->size());
        QVERIFY(shown.contains(mosaic->thumbnailRect(23, 0)));
    }

    void mosaicTooltipSaysWhereTheHeadLooks() {
        // 62 % on the previous token and 38 % on itself, from the third token on.
        attn::Matrix mostlyPrevious = attn::Matrix::Zero(6, 6);
        mostlyPrevious(0, 0) = 1.0f;
        mostlyPrevious(1, 0) = 1.0f;
        for (Eigen::Index q = 2; q < 6; ++q) {
            mostlyPrevious(q, q - 1) = 0.62f;
            mostlyPrevious(q, q) = 0.38f;
        }
        views::ModelHeadsMosaic mosaic;
        mosaic.setAttentions(Heads{
            {mostlyPrevious, firstTokenHead(6), attn::Matrix::Identity(6, 6), uniformHead(6)}});
        const views::HeadFocus focus = mosaic.focus(0, 0);
        QCOMPARE(focus.queries, 4);
        QCOMPARE(focus.previous, static_cast<double>(0.62f));
        QCOMPARE(focus.self, static_cast<double>(0.38f));
        QCOMPARE(focus.first, 0.0);
        const QString previous = mosaic.headToolTip(0, 0);
        QVERIFY2(previous.startsWith(QStringLiteral("Layer 1 · head 1")), qPrintable(previous));
        QVERIFY2(previous.contains(QStringLiteral("Mostly the previous token: 62 %")),
                 qPrintable(previous));
        QVERIFY(mosaic.headToolTip(0, 1).contains(QStringLiteral("Mostly the first token: 100 %")));
        QVERIFY(mosaic.headToolTip(0, 2).contains(QStringLiteral("Mostly itself: 100 %")));
        // Without K/V groups the tooltip names none; with two K/V heads for the heads, each
        // head says which K/V head it reads and which query heads share it.
        QCOMPARE(mosaic.groupSize(), 1);
        QVERIFY(!mosaic.headToolTip(0, 0).contains(QStringLiteral("K/V head")));
        QCOMPARE(mosaic.headCount(), 4);
        mosaic.setKvHeads(2);
        QCOMPARE(mosaic.groupSize(), 2);
        QVERIFY2(mosaic.headToolTip(0, 1).contains(
                     QStringLiteral("Reads K/V head 1, which query heads 1–2 share")),
                 qPrintable(mosaic.headToolTip(0, 1)));
        QVERIFY(mosaic.headToolTip(0, 2).contains(
            QStringLiteral("Reads K/V head 2, which query heads 3–4 share")));
        mosaic.setKvHeads(3);  // 3 does not divide 4: no groups
        QCOMPARE(mosaic.groupSize(), 1);
        mosaic.setKvHeads(0);
        // Uniform over 3..6 tokens: (1/3 + 1/4 + 1/5 + 1/6) / 4 = 23.75 % on each position.
        const QString spread = mosaic.headToolTip(0, 3);
        QVERIFY2(spread.contains(QStringLiteral("No single favourite: 24 % on the previous token")),
                 qPrintable(spread));
        QVERIFY(!spread.contains(QStringLiteral("maximum")));
        views::ModelHeadsMosaic two;
        two.setAttentions(Heads{{previousTokenHead(2)}});
        QVERIFY(two.headToolTip(0, 0).contains(QStringLiteral("Too few tokens")));
    }

    void mosaicLongSequencesShowBlockMaxima() {
        views::ModelHeadsMosaic mosaic;
        mosaic.setAttentions(Heads{{previousTokenHead(200)}});
        QVERIFY(mosaic.simplified());
        const QImage thumb = mosaic.thumbnail(0, 0);
        QCOMPARE(thumb.size(), QSize(64, 64));
        // Every block on the diagonal holds some (q, q − 1) = 1: the line stays bright (a block
        // average would be about 1/3 of the block's rows).
        mosaic.setRange(views::ModelHeadsMosaic::Range::Shared);
        for (int r = 1; r < 64; ++r)
            QVERIFY2(sameColor(pixel(mosaic.thumbnail(0, 0), r, r), kViridisHigh, 3),
                     qPrintable(QString::number(r)));
        QVERIFY(sameColor(pixel(mosaic.thumbnail(0, 0), 0, 40), kViridisLow, 3));
        QVERIFY(mosaic.headToolTip(0, 0).contains(
            QStringLiteral("the maximum of each block of about 3 × 3 weights")));
    }

    void mosaicBadInputAndEmpty() {
        views::ModelHeadsMosaic mosaic;
        mosaic.setAttentions(Heads{{uniformHead(4), uniformHead(5)}});
        QCOMPARE(mosaic.layerCount(), 0);
        QVERIFY(mosaic.problem().contains(QStringLiteral("different shapes (4 × 4 and 5 × 5)")));
        mosaic.setAttentions(Heads{{uniformHead(4)}, {uniformHead(4), uniformHead(4)}});
        QVERIFY(mosaic.problem().contains(QStringLiteral("different head counts")));
        mosaic.resize(300, 100);
        QVERIFY(!mosaic.grab().isNull());
        mosaic.setAttentions(Heads{{uniformHead(4)}});
        mosaic.setSelected(0, 0);
        QVERIFY(mosaic.problem().isEmpty());
        mosaic.setAttentions({});
        QCOMPARE(mosaic.layerCount(), 0);
        QCOMPARE(mosaic.selectedLayer(), -1);
        QVERIFY(!mosaic.grab().isNull());
    }

    void mosaicOfGpt2LargePaints() {
        // gpt2-large's 36 layers × 20 heads of 64 tokens.
        Heads heads(36, std::vector<attn::Matrix>(20));
        for (int l = 0; l < 36; ++l)
            for (int h = 0; h < 20; ++h)
                heads[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)] =
                    (l + h) % 3 == 0   ? previousTokenHead(64)
                    : (l + h) % 3 == 1 ? firstTokenHead(64)
                                       : uniformHead(64);
        views::ModelHeadsMosaic mosaic;
        mosaic.setAttentions(heads);
        QCOMPARE(mosaic.layerCount(), 36);
        QCOMPARE(mosaic.headCount(), 20);
        mosaic.resize(1000, mosaic.heightForWidth(1000));
        mosaic.setSelected(3, 4);
        const QImage image = mosaic.grab().toImage();
        QVERIFY(!image.isNull());
        QVERIFY(distinctColors(image) > 20);
        QVERIFY(mosaic.thumbnailRect(35, 19).bottom() < image.height());
        keep(image, QStringLiteral("model-mosaic-36x20"));
    }

    void tokenStripChips() {
        views::TokenStrip strip;
        QPalette palette = strip.palette();
        palette.setColor(QPalette::Text, Qt::black);
        palette.setColor(QPalette::PlaceholderText, QColor(255, 0, 0));
        strip.setPalette(palette);
        strip.setTokens({QStringLiteral("The"), QStringLiteral("␣journey"),
                         QStringLiteral("␣begins"), QStringLiteral("␣with")},
                        {464, 7002, 6140, 351});
        strip.setGenerated(3);
        QCOMPARE(strip.tokenCount(), 4);
        QCOMPARE(strip.chipText(1), QStringLiteral("␣journey"));
        QVERIFY2(
            strip.chipToolTip(1).startsWith(QStringLiteral("Token 2 of 4: “␣journey” · id 7002")),
            qPrintable(strip.chipToolTip(1)));
        QVERIFY(strip.isGenerated(3));
        QVERIFY(!strip.isGenerated(2));
        QVERIFY(strip.chipToolTip(3).contains(QStringLiteral("Generated")));
        strip.resize(500, 80);
        strip.show();
        QVERIFY(QTest::qWaitForWindowExposed(&strip));
        const QImage image = strip.grab().toImage();
        keep(image, QStringLiteral("token-strip"));
        // The ␣ mark is drawn in the dim colour, letters in the text colour.
        const auto reds = [&](const QRect& r) {
            int n = 0;
            for (int y = r.top(); y <= r.bottom(); ++y)
                for (int x = r.left(); x <= r.right(); ++x) {
                    const QColor c = pixel(image, x, y);
                    if (c.red() > 180 && c.green() < 90 && c.blue() < 90) ++n;
                }
            return n;
        };
        QVERIFY(reds(strip.chipRect(1)) > 5);
        QCOMPARE(reds(strip.chipRect(0)), 0);
        QVERIFY(darkPixels(image, strip.chipRect(0)) > 5);
        // In reading order, left to right.
        QVERIFY(strip.chipRect(0).right() < strip.chipRect(1).left());
        QSignalSpy clicked(&strip, &views::TokenStrip::tokenClicked);
        QWidget* chip = strip.childAt(strip.chipRect(2).center());
        QVERIFY(chip);
        QTest::mouseClick(chip, Qt::LeftButton, {}, chip->rect().center());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.at(0).at(0).toInt(), 2);
        strip.setHighlighted(2);
        QCOMPARE(strip.highlighted(), 2);
        strip.setTokens({QStringLiteral("a")});
        QCOMPARE(strip.tokenCount(), 1);
        QCOMPARE(strip.highlighted(), -1);
        QVERIFY(strip.chipToolTip(0).endsWith(QStringLiteral("“a”")));  // no ids: none said
    }

    void nextTokenChartBarsAndFiles() {
        views::NextTokenChart chart;
        chart.resize(500, 240);
        chart.setPredictions({{QStringLiteral("␣the"), 262, 0.25},
                              {QStringLiteral("␣a"), 257, 0.5},
                              {QStringLiteral("␣extraordinarily,long"), 1, 0.0013}});
        QCOMPARE(chart.barCount(), 3);
        QCOMPARE(chart.bars().front().token, QStringLiteral("␣a"));
        QCOMPARE(chart.bars().back().id, 1);
        QCOMPARE(chart.barTexts(), (QStringList{QStringLiteral("50.0 %"), QStringLiteral("25.0 %"),
                                                QStringLiteral("0.13 %")}));
        QCOMPARE(chart.barLabels().at(0), QStringLiteral("␣a"));
        QCOMPARE(chart.barLabels().at(2), QStringLiteral("␣extraordinaril…"));
        QString error;
        const QByteArray png = chart.renderBytes(views::FigureFormat::Png, &error);
        QVERIFY2(png.startsWith("\x89PNG\r\n\x1a\n"), qPrintable(error));
        QImage image;
        QVERIFY(image.loadFromData(png, "png"));
        keep(image, QStringLiteral("next-token-chart"));
        QVERIFY(nonWhiteShare(image) > 0.02);
        const QByteArray svg = chart.renderBytes(views::FigureFormat::Svg, &error);
        QVERIFY(svg.contains("<svg"));
        QVERIFY(svg.contains("50.0 %"));
        const QByteArray pdf = chart.renderBytes(views::FigureFormat::Pdf, &error);
        QVERIFY(pdf.startsWith("%PDF-"));
        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("chart.pdf")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(pdf);
        file.close();
        const QString text = pdfText(file.fileName());
        QVERIFY2(text.contains(QStringLiteral("25.0 %")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("␣the")));
        QCOMPARE(chart.renderBytes(views::FigureFormat::Csv, &error),
                 QByteArray("token,id,prob\r\n␣a,257,0.5\r\n␣the,262,0.25\r\n"
                            "\"␣extraordinarily,long\",1,0.0013\r\n"));
        chart.setPredictions({});
        error.clear();
        QVERIFY(chart.renderBytes(views::FigureFormat::Png, &error).isEmpty());
        QVERIFY(error.contains(QStringLiteral("empty")));
    }

    void layerGridFigure() {
        views::StepPage page(twoHeadLayerStep());
        page.resize(1000, 700);
        QCOMPARE(views::figureGridBaseName(page), QStringLiteral("layer-1-heads"));
        const QList<views::Figure> figures = views::pageFigures(page);
        QCOMPARE(figures.size(), 2);
        QCOMPARE(figures.at(1).matrixId, QStringLiteral("layer-1-head-2"));
        views::FigureOptions options;
        options.size = QSize(840, 400);
        QByteArray png;
        QString error;
        QVERIFY2(views::renderFiguresGrid(figures, options, 0, &png, &error), qPrintable(error));
        QVERIFY(png.startsWith("\x89PNG"));
        QImage image;
        QVERIFY(image.loadFromData(png, "png"));
        QCOMPARE(image.size(), QSize(840, 400));
        keep(image, QStringLiteral("layer-grid"));
        // Head 1 looks at the first token: a tall, narrow bright column in the left half.
        // Head 2 at itself: a bright diagonal, as wide as it is tall, in the right half.
        const QRect left = brightBox(image, QRect(0, 0, 420, 400));
        const QRect right = brightBox(image, QRect(420, 0, 420, 400));
        QVERIFY(!left.isNull() && !right.isNull());
        QVERIFY2(left.height() > 3 * left.width(),
                 qPrintable(QStringLiteral("%1 × %2").arg(left.width()).arg(left.height())));
        QVERIFY(right.height() < 2 * right.width() && right.width() < 2 * right.height());
        QVERIFY(right.width() > 2 * left.width());

        options.format = views::FigureFormat::Svg;
        QByteArray svg;
        QVERIFY(views::renderFiguresGrid(figures, options, 2, &svg, &error));
        QVERIFY(svg.startsWith("<?xml"));
        QVERIFY(svg.contains("</svg>"));
        QVERIFY(
            svg.contains(page.caption(QStringLiteral("layer-1-head-1")).toHtmlEscaped().toUtf8()));
        QVERIFY(
            svg.contains(page.caption(QStringLiteral("layer-1-head-2")).toHtmlEscaped().toUtf8()));

        options.format = views::FigureFormat::Pdf;
        QByteArray pdf;
        QVERIFY(views::renderFiguresGrid(figures, options, 1, &pdf, &error));
        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("grid.pdf")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(pdf);
        file.close();
        QVERIFY2(
            pdfInfo(file.fileName()).contains(QRegularExpression(QStringLiteral("Pages:\\s+1\\n"))),
            qPrintable(pdfInfo(file.fileName())));

        options.format = views::FigureFormat::Csv;
        QByteArray csv;
        QVERIFY(views::renderFiguresGrid(figures, options, 0, &csv, &error));
        const QList<QByteArray> lines = csv.split('\n');
        QCOMPARE(lines.size(), 1 + 2 * 4 * 4 + 1);  // header, heads × T × T, the last "\r\n"
        QCOMPARE(lines.at(0), QByteArray("matrix,row,column,row_label,column_label,value\r"));
        QCOMPARE(lines.at(1), QByteArray("layer-1-head-1,1,1,A,A,1\r"));
        QCOMPARE(lines.at(7), QByteArray("layer-1-head-1,2,3,B,C,0\r"));
        QCOMPARE(lines.at(13), QByteArray("layer-1-head-1,4,1,D,A,1\r"));
        QCOMPARE(lines.at(17 + 10), QByteArray("layer-1-head-2,3,3,C,C,1\r"));
        QCOMPARE(lines.at(17 + 11), QByteArray("layer-1-head-2,3,4,C,D,0\r"));

        QVERIFY(!views::renderFiguresGrid({}, options, 0, &csv, &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!views::renderFiguresGrid({{&page, QStringLiteral("layer-9-head-1")}}, options, 0,
                                          &csv, &error));
        QVERIFY(error.contains(QStringLiteral("layer-9-head-1")));
    }

    void darkPaletteHasNoWhitePanels() {
        QWidget window;
        window.setPalette(darkPalette());
        window.setAutoFillBackground(true);
        auto* mosaic = new views::ModelHeadsMosaic(&window);
        mosaic->setAttentions(Heads(4, std::vector<attn::Matrix>(6, uniformHead(8))));
        mosaic->setSelected(1, 2);
        mosaic->setGeometry(0, 0, 500, mosaic->heightForWidth(500));
        auto* strip = new views::TokenStrip(&window);
        strip->setTokens(
            {QStringLiteral("The"), QStringLiteral("␣journey"), QStringLiteral("␣starts")});
        strip->setGenerated(2);
        strip->setHighlighted(0);
        strip->setGeometry(0, 0, 500, 60);
        auto* chart = new views::NextTokenChart(&window);
        chart->setPredictions(
            {{QStringLiteral("␣with"), 351, 0.4}, {QStringLiteral("."), 13, 0.1}});
        chart->setGeometry(0, 0, 500, 200);
        window.resize(520, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        for (QWidget* w : {static_cast<QWidget*>(mosaic), static_cast<QWidget*>(strip),
                           static_cast<QWidget*>(chart)}) {
            const QImage image = w->grab().toImage();
            keep(image, QStringLiteral("dark-") + QString::fromLatin1(w->metaObject()->className())
                                                      .section(QStringLiteral("::"), -1));
            QVERIFY2(nearWhiteShare(image) < 0.06, w->metaObject()->className());
        }
    }
};

QTEST_MAIN(TestModelViews)
#include "test_model_views.moc"
