#include "views/figure_paint.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QCoreApplication>
#include <QGuiApplication>
#include <QImageWriter>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QSvgGenerator>

#include "views/heatmap_style.h"

namespace views {

namespace {

class FigurePaint {
    Q_DECLARE_TR_FUNCTIONS(FigurePaint)
};

// Starts `painter` on `device` and draws the background; false when it cannot start.
bool begin(QCPPainter& painter, QPaintDevice* device, QSize size, bool vectors, bool transparent) {
    if (!painter.begin(device)) return false;
    painter.setWindow(QRect(QPoint(0, 0), size));
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    if (vectors) {
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
    }
    if (!transparent) painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    return true;
}

}  // namespace

QByteArray paintFigure(FigureFormat format, QSize size, double scale, bool transparent,
                       const QString& title, const std::function<void(QCPPainter&)>& paint,
                       QString* reason) {
    if (size.isEmpty()) {
        if (reason) *reason = FigurePaint::tr("the figure has no size");
        return {};
    }
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    switch (format) {
        case FigureFormat::Png: {
            if (!(scale > 0)) scale = 1.0;
            QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
            image.fill(Qt::transparent);
            {
                QCPPainter painter;
                if (!painter.begin(&image)) {
                    if (reason) *reason = FigurePaint::tr("the PNG painter could not start");
                    return {};
                }
                painter.setRenderHint(QPainter::Antialiasing);
                painter.setRenderHint(QPainter::TextAntialiasing);
                painter.scale(scale, scale);
                if (!transparent) painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
                paint(painter);
            }
            QImageWriter writer(&buffer, "png");
            if (!writer.write(image)) {
                if (reason) *reason = writer.errorString();
                return {};
            }
            return buffer.data();
        }
        case FigureFormat::Svg: {
            QSvgGenerator generator;
            generator.setOutputDevice(&buffer);
            generator.setSize(size);
            generator.setViewBox(QRect(QPoint(0, 0), size));
            generator.setResolution(96);
            generator.setTitle(title);
            {
                QCPPainter painter;
                if (!begin(painter, &generator, size, true, transparent)) {
                    if (reason) *reason = FigurePaint::tr("the SVG painter could not start");
                    return {};
                }
                paint(painter);
            }
            // As the heatmaps: viewers without the font get the CJK face, then any sans-serif.
            QByteArray svg = buffer.data();
            const QByteArray family = QGuiApplication::font().family().toUtf8();
            svg.replace("font-family=\"" + family + '"', "font-family=\"" + family + ", " +
                                                             heatmap_style::kCjkFallback.toUtf8() +
                                                             ", sans-serif\"");
            return svg;
        }
        case FigureFormat::Pdf: {
            {
                // As QCustomPlot::savePdf, but into memory: one point per logical pixel. The
                // writer goes out of scope before the bytes are read.
                QPdfWriter writer(&buffer);
                writer.setCreator(QStringLiteral("Attention Visualizer"));
                writer.setTitle(title);
                writer.setResolution(96);
                writer.setPageLayout(QPageLayout(
                    QPageSize(QSizeF(size), QPageSize::Point, QString(), QPageSize::ExactMatch),
                    QPageLayout::Portrait, QMarginsF(0, 0, 0, 0), QPageLayout::Point));
                QCPPainter painter;
                if (!begin(painter, &writer, size, true, transparent)) {
                    if (reason) *reason = FigurePaint::tr("the PDF painter could not start");
                    return {};
                }
                paint(painter);
            }
            return buffer.data();
        }
        case FigureFormat::Csv:
            break;
    }
    if (reason) *reason = FigurePaint::tr("CSV is a table, not a drawing");
    return {};
}

}  // namespace views
