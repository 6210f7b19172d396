// Figures: the heatmaps of the walkthrough as the bytes of PNG, SVG, PDF or CSV files,
// and the names those files get. The window's File ▸ Export and `attention-cli export` both call
// these functions on the heatmaps of StepPages, so a figure is drawn by the same code, with the
// same styling (colour map, range, labels, masked cells, highlights), as the page on screen; the
// options change only what they name, for the time of the drawing. Nothing here touches the file
// system: the callers save the bytes through app/io/file_batch.h.
//
// Names: step-NN-<matrix-id>.<ext>, NN the step number with two digits
// ("step-11-causal-weights.png", "step-14-head-2.svg"). The KV-cache page exports the frame it
// shows: its last frame (the one the page opens on, every matrix at its largest) gets no suffix, an
// earlier frame adds -frame-N (1-based, as the page counts tokens). A dropout page at inference
// adds -inference to the matrices that inference changes.
#pragma once

#include <QByteArray>
#include <QImage>
#include <QList>
#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>

namespace views {

class HeatmapWidget;

class StepPage;

enum class FigureFormat { Png, Svg, Pdf, Csv };

// "png", "svg", "pdf", "csv": the file suffix and the name the CLI accepts.
QString figureSuffix(FigureFormat format);
// "PNG", "SVG", "PDF", "CSV": the format as messages name it.
QString figureKind(FigureFormat format);
// Case-insensitive; nullopt for an unknown name.
std::optional<FigureFormat> figureFormatFromName(const QString& name);

// Print resolution: 4 × a 900 px figure is a 3600 px PNG, 300 dpi over 30 cm.
inline constexpr double kMaxFigureScale = 4.0;

struct FigureOptions {
    FigureFormat format = FigureFormat::Png;
    QSize size;                // layout in logical pixels; empty = the heatmap's preferredSize()
    double scale = 1.0;        // PNG only: pixels per logical pixel, (0, kMaxFigureScale]
    bool title = true;         // the matrix caption above the figure, as the page shows it
    bool values = true;        // the numbers in the cells
    QString colorMap;          // one of colormap::names(); empty = as on screen
    bool transparent = false;  // PNG/SVG/PDF: no background instead of white
    bool overwrite = false;    // for the caller that saves the file: false refuses an existing one
};

// One heatmap of a page, by the stable id of its matrix.
struct Figure {
    StepPage* page = nullptr;
    QString matrixId;
};

// The heatmaps a page shows now (a frame step: the shown frame), in the page's order.
QList<Figure> pageFigures(StepPage& page);

// "step-11-causal-weights" (see the naming rules above); figureFileName adds ".<suffix>".
QString figureBaseName(const StepPage& page, const QString& matrixId);
QString figureFileName(const StepPage& page, const QString& matrixId, FigureFormat format);
// figureFileName of each figure, in order (every figure must have a page).
QStringList figureFileNames(const QList<Figure>& figures, FigureFormat format);

// The size a figure with options.size empty gets: the heatmap's preferred size with the title
// (or without it) that `options` asks for. Empty for an unknown matrix.
QSize fittedFigureSize(const Figure& figure, const FigureOptions& options);

// The figure as the PNG export draws it (size, scale, title, values, colour map, background),
// for the clipboard. A null image for an unknown matrix.
QImage renderFigure(const Figure& figure, const FigureOptions& options);

// The figure as the bytes of a file in options.format. False with *error a message for the user
// when there are none: an unknown matrix, or a drawing that failed (named by its file name).
bool renderFigureBytes(const Figure& figure, const FigureOptions& options, QByteArray* bytes,
                       QString* error);

// The matrix the heatmap shows, as CSV (RFC 4180, UTF-8): a header row with an empty corner and
// the column labels, then one row per matrix row starting with its label. Numbers with the
// shortest digits that read back as the same float; masked -inf as "-inf", NaN as "nan". Cells
// zeroed by dropout are the 0 PyTorch prints, with no extra column, so the file loads as the same
// matrix in NumPy or a spreadsheet; the figures (PNG, SVG, PDF) mark them "⊘".
QByteArray matrixCsv(const HeatmapWidget& map);
// The CSV rules of matrixCsv, for the other tables: a field quoted when it holds a separator, a
// quote, a line break or edge spaces; a number in the shortest digits that read back as the float.
QByteArray csvField(const QString& text);
QByteArray csvNumber(float value);

// --- all figures of a page in one -----------------------------------------------------------
// "layer-3-heads" for a model's layer page (every head of layer 3), "step-14-figures" for a
// walkthrough step; add ".<suffix>".
QString figureGridBaseName(const StepPage& page);
// The figures (e.g. pageFigures of a layer page: "layer-L-head-H") in one PNG, SVG or PDF, as a
// grid of `columns` (0 = a near-square grid), each with its own title and colour bar so that
// different ranges stay honest; options.size is the whole grid (empty = each cell the largest
// fitted size); transparent clears the background between the figures. CSV: one long table
// "matrix,row,column,row_label,column_label,value", a row per cell (1-based row and column).
// False with *error a message for the user: no figures, an unknown matrix, a failed drawing.
bool renderFiguresGrid(const QList<Figure>& figures, const FigureOptions& options, int columns,
                       QByteArray* bytes, QString* error);

}  // namespace views
