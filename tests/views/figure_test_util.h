// The walkthrough's pages and their figures saved as the window and attention-cli save them:
// drawn by views/figure_render.h, written by app/io/file_batch.h.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <vector>

#include "app/io/file_batch.h"
#include "model/walkthrough.h"
#include "views/figure_render.h"

inline const std::vector<attn::Step>& walkthrough() {
    static const std::vector<attn::Step> steps = attn::build_walkthrough();
    return steps;
}

inline const attn::Step& stepNumber(int n) {
    return walkthrough().at(static_cast<std::size_t>(n - 1));
}

// One figure at `path`, as File ▸ Export ▸ Export heatmap… saves it.
inline bool exportFigure(const views::Figure& figure, const QString& path,
                         const views::FigureOptions& options, QString* error) {
    QByteArray bytes;
    return views::renderFigureBytes(figure, options, &bytes, error) &&
           attn::saveFile(path, views::figureKind(options.format), bytes, options.overwrite, error);
}

// The figures into `dir`, all or nothing, as the step and walkthrough exports save them.
inline bool exportFigures(const QList<views::Figure>& figures, const QString& dir,
                          const views::FigureOptions& options, QStringList* written,
                          QString* error) {
    const auto render = [&](qsizetype i, QByteArray& bytes, QString& problem) {
        return views::renderFigureBytes(figures.at(i), options, &bytes, &problem);
    };
    return attn::saveFileBatch(dir, views::figureFileNames(figures, options.format),
                               views::figureKind(options.format), options.overwrite, render,
                               written, error);
}
