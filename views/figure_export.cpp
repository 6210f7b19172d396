#include "figure_export.h"

#include <qcustomplot.h>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <charconv>
#include <cmath>

#include "app/io/atomic_file.h"
#include "colormaps.h"
#include "heatmap_widget.h"
#include "step_page.h"

namespace views {

namespace {

// The context of the messages below in the translation files.
class FigureExport {
    Q_DECLARE_TR_FUNCTIONS(FigureExport)
};

QString native(const QString& path) { return QDir::toNativeSeparators(path); }

// The options applied to a heatmap for one export and undone afterwards, so the page on screen
// keeps its own title, values and colour map.
class FigureStyle {
public:
    FigureStyle(attn::HeatmapWidget& map, const QString& caption, const FigureOptions& options)
        : map_(map), title_(map.title()), values_(map.showValues()), colorMap_(map.colorMapName()) {
        map_.setTitle(options.title ? caption : QString());
        map_.setShowValues(options.values);
        if (!options.colorMap.isEmpty()) map_.setColorMap(options.colorMap);
        if (options.transparent) map_.plot()->setBackground(QBrush(Qt::NoBrush));
    }
    ~FigureStyle() {
        // White is the heatmap's own background (HeatmapWidget's constructor).
        map_.plot()->setBackground(QBrush(Qt::white));
        map_.setColorMap(colorMap_);
        map_.setShowValues(values_);
        map_.setTitle(title_);
    }
    FigureStyle(const FigureStyle&) = delete;
    FigureStyle& operator=(const FigureStyle&) = delete;

private:
    attn::HeatmapWidget& map_;
    QString title_;
    bool values_;
    QString colorMap_;
};

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
    // std::to_chars' shortest form reads back as the same float; it spells "-inf" and "nan".
    char buffer[32];
    const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof buffer, value);
    return QByteArray(buffer, static_cast<qsizetype>(r.ptr - buffer));
}

bool writeCsv(const attn::HeatmapWidget& map, const QString& path, QString* error) {
    QString reason;
    if (attn::writeFileAtomically(path, matrixCsv(map), &reason)) return true;
    if (error)
        *error = FigureExport::tr("Could not save %1 to %2: %3")
                     .arg(QStringLiteral("CSV"), native(path), reason);
    return false;
}

}  // namespace

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
    QString name =
        QStringLiteral("step-%1-%2").arg(page.step().number, 2, 10, QLatin1Char('0')).arg(matrixId);
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

QSize fittedFigureSize(const Figure& figure, const FigureOptions& options) {
    attn::HeatmapWidget* map = figure.page ? figure.page->heatmap(figure.matrixId) : nullptr;
    if (!map || !figure.page->shownMatrix(figure.matrixId)) return {};
    const FigureStyle style(*map, figure.page->caption(figure.matrixId), options);
    return map->preferredSize();
}

QImage renderFigure(const Figure& figure, const FigureOptions& options) {
    attn::HeatmapWidget* map = figure.page ? figure.page->heatmap(figure.matrixId) : nullptr;
    if (!map || !figure.page->shownMatrix(figure.matrixId)) return {};
    const FigureStyle style(*map, figure.page->caption(figure.matrixId), options);
    return map->renderImage(options.size, std::clamp(options.scale, 0.1, kMaxFigureScale),
                            options.transparent);
}

QByteArray matrixCsv(const attn::HeatmapWidget& map) {
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

bool exportFigure(const Figure& figure, const QString& path, const FigureOptions& options,
                  QString* error) {
    attn::HeatmapWidget* map = figure.page ? figure.page->heatmap(figure.matrixId) : nullptr;
    if (!map || !figure.page->shownMatrix(figure.matrixId)) {
        if (error)
            *error = FigureExport::tr("There is no matrix “%1” on this page.").arg(figure.matrixId);
        return false;
    }
    const QFileInfo info(path);
    if (info.exists() && !options.overwrite) {
        if (error)
            *error = FigureExport::tr(
                         "%1 already exists and was left as it is: choose another name or folder, "
                         "or allow replacing existing files.")
                         .arg(native(path));
        return false;
    }
    if (info.isDir()) {
        if (error) *error = FigureExport::tr("%1 is a folder: give a file name.").arg(native(path));
        return false;
    }
    if (!info.dir().exists()) {
        if (error)
            *error = FigureExport::tr("Could not save to %1: the folder %2 does not exist.")
                         .arg(native(path), native(info.dir().path()));
        return false;
    }
    if (options.format == FigureFormat::Csv) return writeCsv(*map, path, error);

    const FigureStyle style(*map, figure.page->caption(figure.matrixId), options);
    switch (options.format) {
        case FigureFormat::Png:
            return map->savePng(path, options.size, std::clamp(options.scale, 0.1, kMaxFigureScale),
                                options.transparent, error);
        case FigureFormat::Svg:
            return map->saveSvg(path, options.size, error);
        case FigureFormat::Pdf:
            return map->savePdf(path, options.size, error);
        case FigureFormat::Csv:
            break;
    }
    return false;
}

QStringList existingFigureFiles(const QList<Figure>& figures, const QString& dir,
                                FigureFormat format) {
    QStringList existing;
    for (const Figure& f : figures) {
        if (!f.page) continue;
        const QString path = QDir(dir).filePath(figureFileName(*f.page, f.matrixId, format));
        if (QFileInfo::exists(path)) existing.append(path);
    }
    return existing;
}

bool exportFigures(const QList<Figure>& figures, const QString& dir, const FigureOptions& options,
                   QStringList* written, QString* error) {
    QStringList done;
    const auto finish = [&](bool ok) {
        if (written) *written = done;
        return ok;
    };
    const QFileInfo folder(dir);
    if (folder.exists() && !folder.isDir()) {
        if (error)
            *error =
                FigureExport::tr("%1 is a file, not a folder: choose a folder for the figures.")
                    .arg(native(dir));
        return finish(false);
    }
    if (!folder.exists() && !QDir().mkpath(dir)) {
        if (error)
            *error = FigureExport::tr(
                         "Could not create the folder %1: check that its parent exists and is "
                         "writable, or choose another folder.")
                         .arg(native(dir));
        return finish(false);
    }
    if (!options.overwrite) {
        const QStringList existing = existingFigureFiles(figures, dir, options.format);
        if (!existing.isEmpty()) {
            if (error)
                *error = FigureExport::tr(
                             "%1 already exists (%2 of the %3 files): nothing was written. Choose "
                             "another folder, or allow replacing existing files.")
                             .arg(native(existing.first()))
                             .arg(existing.size())
                             .arg(figures.size());
            return finish(false);
        }
    }
    QStringList created;  // files this call made, removed again if a later one fails
    for (const Figure& f : figures) {
        if (!f.page) continue;
        const QString path =
            QDir(dir).filePath(figureFileName(*f.page, f.matrixId, options.format));
        const bool existed = QFileInfo::exists(path);
        QString problem;
        if (!exportFigure(f, path, options, &problem)) {
            for (const QString& p : std::as_const(created)) QFile::remove(p);
            if (error) {
                *error = problem;
                if (!created.isEmpty())
                    *error += QLatin1Char(' ') +
                              FigureExport::tr("The figures written before it were removed again.");
            }
            done.clear();
            return finish(false);
        }
        if (!existed) created.append(path);
        done.append(path);
    }
    return finish(true);
}

}  // namespace views
