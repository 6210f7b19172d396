#include "views/figure_render.h"

#include <qcustomplot.h>

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

#include "model/number_format.h"
#include "views/colormaps.h"
#include "views/figure_paint.h"
#include "views/heatmap_widget.h"
#include "views/step_page.h"

namespace views {

namespace {

// The context of the messages below in the translation files.
class FigureExport {
    Q_DECLARE_TR_FUNCTIONS(FigureExport)
};

// The options applied to a heatmap for one export and undone afterwards, so the page on screen
// keeps its own title, values and colour map.
class FigureStyle {
public:
    FigureStyle(HeatmapWidget& map, const QString& caption, const FigureOptions& options)
        : map_(map), title_(map.title()), values_(map.showValues()), colorMap_(map.colorMapName()) {
        map_.setTitle(options.title ? caption : QString());
        map_.setShowValues(options.values);
        if (!options.colorMap.isEmpty()) map_.setColorMap(options.colorMap);
    }
    ~FigureStyle() {
        map_.setColorMap(colorMap_);
        map_.setShowValues(values_);
        map_.setTitle(title_);
    }
    FigureStyle(const FigureStyle&) = delete;
    FigureStyle& operator=(const FigureStyle&) = delete;

private:
    HeatmapWidget& map_;
    QString title_;
    bool values_;
    QString colorMap_;
};

}  // namespace

// One CSV field: quoted when it holds a separator, a quote, a line break or edge spaces.
QByteArray csvField(const QString& text) {
    QByteArray bytes = text.toUtf8();
    const bool quote = bytes.contains(',') || bytes.contains('"') || bytes.contains('\n') ||
                       bytes.contains('\r') || text != text.trimmed();
    if (!quote) return bytes;
    bytes.replace("\"", "\"\"");
    return '"' + bytes + '"';
}

QByteArray csvNumber(float value) {
    // The shortest form reads back as the same float; it spells "-inf" and "nan".
    return QByteArray::fromStdString(attn::format_shortest(value));
}

QString figureSuffix(FigureFormat format) {
    switch (format) {
        case FigureFormat::Png:
            return QStringLiteral("png");
        case FigureFormat::Svg:
            return QStringLiteral("svg");
        case FigureFormat::Pdf:
            return QStringLiteral("pdf");
        case FigureFormat::Csv:
            return QStringLiteral("csv");
    }
    return {};
}

QString figureKind(FigureFormat format) { return figureSuffix(format).toUpper(); }

std::optional<FigureFormat> figureFormatFromName(const QString& name) {
    for (FigureFormat f :
         {FigureFormat::Png, FigureFormat::Svg, FigureFormat::Pdf, FigureFormat::Csv})
        if (name.compare(figureSuffix(f), Qt::CaseInsensitive) == 0) return f;
    return std::nullopt;
}

QList<Figure> pageFigures(StepPage& page) {
    QList<Figure> figures;
    for (const QString& id : page.matrixIds())
        if (page.shownMatrix(id)) figures.append({&page, id});
    return figures;
}

QString figureBaseName(const StepPage& page, const QString& matrixId) {
    // A record that is not a walkthrough step (a model's layer, number 0) is named by its
    // matrices alone: "layer-3-head-5".
    QString name = page.step().number > 0 ? QStringLiteral("step-%1-%2")
                                                .arg(page.step().number, 2, 10, QLatin1Char('0'))
                                                .arg(matrixId)
                                          : matrixId;
    const attn::StepMatrix* m = page.shownMatrix(matrixId);
    if (!m) return name;
    // The last frame is the page's default view and needs no suffix; earlier frames must not
    // overwrite it.
    if (page.frameCount() > 0 && m->frame >= 0 && page.frame() != page.frameCount() - 1)
        name += QStringLiteral("-frame-%1").arg(page.frame() + 1);
    if (page.inference()) {
        const attn::Matrix shown = page.shownValues(matrixId);
        const bool changed = shown.rows() != m->values.rows() || shown.cols() != m->values.cols() ||
                             !(shown.array() == m->values.array()).all();
        if (changed) name += QStringLiteral("-inference");
    }
    return name;
}

QString figureFileName(const StepPage& page, const QString& matrixId, FigureFormat format) {
    return figureBaseName(page, matrixId) + QLatin1Char('.') + figureSuffix(format);
}

QStringList figureFileNames(const QList<Figure>& figures, FigureFormat format) {
    QStringList names;
    for (const Figure& f : figures) names.append(figureFileName(*f.page, f.matrixId, format));
    return names;
}

QSize fittedFigureSize(const Figure& figure, const FigureOptions& options) {
    HeatmapWidget* map = figure.page ? figure.page->heatmap(figure.matrixId) : nullptr;
    if (!map || !figure.page->shownMatrix(figure.matrixId)) return {};
    const FigureStyle style(*map, figure.page->caption(figure.matrixId), options);
    return map->preferredSize();
}

QImage renderFigure(const Figure& figure, const FigureOptions& options) {
    HeatmapWidget* map = figure.page ? figure.page->heatmap(figure.matrixId) : nullptr;
    if (!map || !figure.page->shownMatrix(figure.matrixId)) return {};
    const FigureStyle style(*map, figure.page->caption(figure.matrixId), options);
    return map->renderImage(options.size, std::clamp(options.scale, 0.1, kMaxFigureScale),
                            options.transparent);
}

QByteArray matrixCsv(const HeatmapWidget& map) {
    QByteArray csv;
    const QStringList rowLabels = map.rowLabels();
    const QStringList columnLabels = map.columnLabels();
    for (const QString& label : columnLabels) csv += ',' + csvField(label);
    csv += "\r\n";
    for (int r = 0; r < map.rowCount(); ++r) {
        csv += csvField(rowLabels.value(r));
        for (int c = 0; c < map.columnCount(); ++c)
            csv += ',' + csvNumber(static_cast<float>(map.inputValue(r, c)));
        csv += "\r\n";
    }
    return csv;
}

bool renderFigureBytes(const Figure& figure, const FigureOptions& options, QByteArray* bytes,
                       QString* error) {
    HeatmapWidget* map = figure.page ? figure.page->heatmap(figure.matrixId) : nullptr;
    if (!map || !figure.page->shownMatrix(figure.matrixId)) {
        if (error)
            *error = FigureExport::tr("There is no matrix “%1” on this page.").arg(figure.matrixId);
        return false;
    }
    if (options.format == FigureFormat::Csv) {
        *bytes = matrixCsv(*map);
        return true;
    }
    const FigureStyle style(*map, figure.page->caption(figure.matrixId), options);
    QString reason;
    switch (options.format) {
        case FigureFormat::Png:
            *bytes = map->renderPng(options.size, std::clamp(options.scale, 0.1, kMaxFigureScale),
                                    options.transparent, &reason);
            break;
        case FigureFormat::Svg:
            *bytes = map->renderSvg(options.size, &reason, options.transparent);
            break;
        case FigureFormat::Pdf:
            *bytes = map->renderPdf(options.size, &reason, options.transparent);
            break;
        case FigureFormat::Csv:
            break;
    }
    if (!bytes->isEmpty()) return true;
    if (error)
        *error = FigureExport::tr("Could not save %1 to %2: %3")
                     .arg(figureKind(options.format),
                          figureFileName(*figure.page, figure.matrixId, options.format), reason);
    return false;
}

// --- all figures of a page in one -----------------------------------------------------------

QString figureGridBaseName(const StepPage& page) {
    // A model's layer page (number 0, id "layer-3") holds that layer's heads.
    if (page.step().number <= 0)
        return QString::fromStdString(page.step().id) + QStringLiteral("-heads");
    return QStringLiteral("step-%1-figures").arg(page.step().number, 2, 10, QLatin1Char('0'));
}

bool renderFiguresGrid(const QList<Figure>& figures, const FigureOptions& options, int columns,
                       QByteArray* bytes, QString* error) {
    if (figures.isEmpty()) {
        if (error) *error = FigureExport::tr("There are no figures to put side by side.");
        return false;
    }
    std::vector<HeatmapWidget*> maps;
    for (const Figure& f : figures) {
        HeatmapWidget* map = f.page ? f.page->heatmap(f.matrixId) : nullptr;
        if (!map || !f.page->shownMatrix(f.matrixId)) {
            if (error)
                *error = FigureExport::tr("There is no matrix “%1” on this page.").arg(f.matrixId);
            return false;
        }
        maps.push_back(map);
    }
    if (options.format == FigureFormat::Csv) {
        // One long table: a row per cell, named by its matrix, so all heads load as one frame.
        QByteArray csv = "matrix,row,column,row_label,column_label,value\r\n";
        for (std::size_t i = 0; i < maps.size(); ++i) {
            const HeatmapWidget& map = *maps[i];
            const QByteArray id = csvField(figures[static_cast<qsizetype>(i)].matrixId);
            const QStringList rowLabels = map.rowLabels(), columnLabels = map.columnLabels();
            for (int r = 0; r < map.rowCount(); ++r)
                for (int c = 0; c < map.columnCount(); ++c)
                    csv += id + ',' + QByteArray::number(r + 1) + ',' + QByteArray::number(c + 1) +
                           ',' + csvField(rowLabels.value(r)) + ',' +
                           csvField(columnLabels.value(c)) + ',' +
                           csvNumber(static_cast<float>(map.inputValue(r, c))) + "\r\n";
        }
        *bytes = csv;
        return true;
    }
    const int count = static_cast<int>(figures.size());
    const int cols = columns > 0
                         ? std::min(columns, count)
                         : static_cast<int>(std::ceil(std::sqrt(static_cast<double>(count))));
    const int rows = (count + cols - 1) / cols;
    constexpr int kGap = 16;  // logical pixels between the figures
    // Each figure keeps its own title and colour bar: ranges that differ stay honest.
    QSize cell;
    if (!options.size.isEmpty()) {
        cell = QSize(std::max(1, (options.size.width() - kGap * (cols - 1)) / cols),
                     std::max(1, (options.size.height() - kGap * (rows - 1)) / rows));
    } else {
        for (const Figure& f : figures) cell = cell.expandedTo(fittedFigureSize(f, options));
    }
    const QSize size(cols * cell.width() + (cols - 1) * kGap,
                     rows * cell.height() + (rows - 1) * kGap);
    const double scale = std::clamp(options.scale, 0.1, kMaxFigureScale);
    QString reason;
    *bytes = paintFigure(
        options.format, size, scale, options.transparent, figureGridBaseName(*figures.front().page),
        [&](QCPPainter& painter) {
            for (int i = 0; i < count; ++i) {
                const Figure& f = figures[i];
                const FigureStyle style(*maps[static_cast<std::size_t>(i)],
                                        f.page->caption(f.matrixId), options);
                const QRectF target(QPointF((i % cols) * (cell.width() + kGap),
                                            (i / cols) * (cell.height() + kGap)),
                                    QSizeF(cell));
                maps[static_cast<std::size_t>(i)]->renderTo(&painter, target, cell);
            }
        },
        &reason);
    if (!bytes->isEmpty()) return true;
    if (error)
        *error = FigureExport::tr("Could not save %1 to %2: %3")
                     .arg(figureKind(options.format),
                          figureGridBaseName(*figures.front().page) + QLatin1Char('.') +
                              figureSuffix(options.format),
                          reason);
    return false;
}

}  // namespace views
