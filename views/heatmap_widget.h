// HeatmapWidget: one matrix of the walkthrough drawn as a QCustomPlot colour map.
//
// One cell per value, no interpolation; row 0 (the first query) at the top as in a printed
// matrix; token labels on both axes (rows left, columns on top); each value printed in its cell
// in black or white by the cell colour's luminance; masked cells grey and hatched, labelled with
// the fill value ("−∞", "-1e9") and left out of the colour range; NaN cells neutral grey, "NaN";
// cells zeroed by dropout keep their colour and value and get a "⊘" mark and a dashed outline.
// The colour bar says which values its colours span (fixed, this matrix, each row).
// The same drawing serves the screen and the exports (PNG, SVG, PDF), so a figure is what the
// student saw. The widget draws; it computes nothing about attention.
#pragma once

#include <QByteArray>
#include <QFont>
#include <QHash>
#include <QImage>
#include <QSize>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

#include "model/tensor.h"

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPTextElement;
class QCPAxisTicker;
class QCPAxisTickerText;
class QCPPainter;
class QCPRange;
class QContextMenuEvent;
class QMenu;
class QMouseEvent;

namespace views {

class HeatmapPlot;
class HeatmapCellLayer;

class HeatmapWidget : public QWidget {
    Q_OBJECT

public:
    // Cell states, for the drawing and for tests.
    enum class CellKind { Value, Masked, NaN };

    explicit HeatmapWidget(QWidget* parent = nullptr);
    ~HeatmapWidget() override;

    // values (R, C). Empty label lists mean "1", "2", ... (the tutorial's 1-based x^(i));
    // otherwise they must have R and C entries. blocked (R, C), true = masked, or empty for none;
    // an infinite value is treated as masked too (a masked_fill'ed score matrix needs no mask).
    // fillValue is what masked cells show (-inf -> "−∞", -1e9 -> "-1e9"); without it they show
    // their own value. Throws AttentionError on mismatched label counts or mask shape.
    void setMatrix(const attn::Matrix& values, const QStringList& rowLabels = {},
                   const QStringList& columnLabels = {}, const attn::BoolMatrix& blocked = {},
                   std::optional<double> fillValue = std::nullopt);
    void clear();

    void setTitle(const QString& title);
    QString title() const;
    // Axis titles, e.g. "queries" and "keys"; empty = none.
    void setAxisTitles(const QString& rowTitle, const QString& columnTitle);
    // Label beside the colour scale, e.g. "weight".
    void setColorScaleLabel(const QString& label);

    // One of colormap::names(); returns false and keeps the current map for an unknown name.
    bool setColorMap(const QString& name);
    QString colorMapName() const;

    // Auto: min..max of the finite, unmasked cells, from 0 when none is negative (darkest = 0);
    // for a diverging map ±max|x| so 0 is white.
    // The same as setRangeMode(RangeMode::Matrix).
    void setAutoRange();
    // Fixed, e.g. setValueRange(0, 1) for attention weights so pages compare at a glance; also
    // switches to RangeMode::Fixed.
    void setValueRange(double lower, double upper);
    bool isAutoRange() const;  // true unless the range is Fixed
    // Which values the colours span, said on the colour bar: Fixed (setValueRange), Matrix (this
    // matrix's min..max, setAutoRange) or Row (each row its own min..max, so rows with small
    // differences still show them; a diverging map spans each row's ±max|x|).
    // (GCC's -Wshadow counts a scoped enumerator named Matrix as shadowing attn::Matrix.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
    enum class RangeMode { Fixed, Matrix, Row };
#pragma GCC diagnostic pop
    void setRangeMode(RangeMode mode);
    RangeMode rangeMode() const;
    // What the colour bar says about the range, e.g. "fixed 0 – 1", "this matrix: 0.1011 – 0.2369",
    // "each row: its min → its max".
    QString rangeNote() const;
    // The colour bar's label as drawn: the label given, then the range note and marks under it.
    QString colorBarLabel() const;
    // The "Colour range" submenu (Fixed / This matrix / Each row), for a context menu; the
    // widget's own context menu shows it too.
    QMenu* createRangeMenu(QWidget* parent);
    // Cells zeroed by dropout (R, C), true = dropped, or empty for none: drawn marked so they do
    // not look like true zeros, on screen and in every export; their tooltip says so. A new
    // matrix of another shape clears them. Throws AttentionError on a shape mismatch.
    void setDropped(const attn::BoolMatrix& dropped);
    bool cellDropped(int row, int column) const;
    bool anyDropped() const;
    double rangeLower() const;  // the range the colour scale shows now (Row mode: 0..1 or -1..1)
    double rangeUpper() const;

    void setShowValues(bool show);
    bool showValues() const;
    void setDecimals(int decimals);  // default 4, as PyTorch prints
    int decimals() const;
    // Multiplies fonts, line widths and the colour bar (presentation mode, print exports).
    void setScale(double scale);
    double scale() const;
    // Column labels above the matrix (default) or below it.
    void setColumnLabelsOnTop(bool onTop);
    // Presentation "reveal": rows from `rows` on are drawn as blank "?" cells with no
    // colour, value, tooltip or hover signal, so a class can predict them before they appear.
    // -1 (the default) shows every row.
    void setRevealedRows(int rows);
    int revealedRows() const { return revealedRows_; }
    bool rowRevealed(int row) const { return revealedRows_ < 0 || row < revealedRows_; }

    // Outlines that tie a cell to the matrices it came from. Each call replaces the previous
    // highlight of the same kind; row, column and cell highlights can be shown together.
    void highlightRow(int row);
    void highlightColumn(int column);
    void highlightCell(int row, int column);
    void clearHighlight();
    std::optional<int> highlightedRow() const;
    std::optional<int> highlightedColumn() const;
    std::optional<std::pair<int, int>> highlightedCell() const;

    // Text of the hover tooltip for a cell, e.g. "ω₂₃ = q₂ · k₃ / √2 = ...". Without a provider
    // the tooltip is "row label → column label: value".
    void setTooltipProvider(std::function<QString(int row, int column)> provider);
    QString tooltipText(int row, int column) const;

    // --- figures: the same drawing at a chosen size --------------------------------------------
    // size is the layout in logical pixels (empty = preferredSize()); the image has size × scale
    // pixels with fonts and lines scaled with it (a 800×600 figure at scale 4 is 3200×2400 for
    // print). Transparent leaves the background clear instead of white.
    QImage renderImage(QSize size, double scale = 1.0, bool transparent = false);
    // The bytes of a PNG (through renderImage), SVG or PDF file of the figure, for the caller to
    // save (app/io). Empty, with *reason (if given) saying why, when the drawing fails.
    QByteArray renderPng(QSize size, double scale = 1.0, bool transparent = false,
                         QString* reason = nullptr);
    QByteArray renderSvg(QSize size, QString* reason = nullptr, bool transparent = false);
    QByteArray renderPdf(QSize size, QString* reason = nullptr, bool transparent = false);
    // The same vector drawing into a painter that is already drawing (a page of a PDF handout):
    // laid out at `size` logical pixels (empty = preferredSize()) and scaled onto `target`.
    void renderTo(QCPPainter* painter, const QRectF& target, QSize size = {});
    // A size that fits the matrix at ~48 px per cell (times scale()), for exports with no size.
    QSize preferredSize() const;

    // --- read-back, for tests and step pages --------------------------------------------------
    int rowCount() const;
    int columnCount() const;
    QStringList rowLabels() const;
    QStringList columnLabels() const;
    // The value stored in the colour map's data for cell (row, column); NaN for masked cells,
    // which take no colour from the map. In Row mode, the value relative to its row (0..1, or
    // -1..1 for a diverging map).
    double cellValue(int row, int column) const;
    // The value given to setMatrix.
    double inputValue(int row, int column) const;
    CellKind cellKind(int row, int column) const;
    // The text the cell shows (also when values are hidden): "0.4306", "−∞", "NaN".
    QString cellText(int row, int column) const;
    QColor cellColor(int row, int column) const;      // fill colour of the cell
    QColor cellTextColor(int row, int column) const;  // black or white by cellColor's luminance
    // Whether cell values are drawn at the current size (false when hidden or too small).
    bool valuesVisible() const;
    // Pixel size of the cell value font at the current size (shrinks to fit small cells).
    double cellFontPixelSize() const;
    // The note under the title, e.g. "values hidden: 64×64 too small to label"; empty if none.
    QString subtitle() const;
    // The background the plot draws on now: the palette's base colour on screen (a dark desktop
    // gets a dark heatmap background), white in figures.
    QColor backgroundColor() const;
    // The plot and the pieces it is made of, for tests and exports.
    QCustomPlot* plot() const;
    QCPColorMap* colorMap() const;
    QCPColorScale* colorScale() const;
    // Pixel centre of a cell in plot() coordinates, and the cell under a pixel (nullopt outside
    // the matrix). Valid after the plot has been laid out (replot or render).
    QPointF cellCenter(int row, int column) const;
    std::optional<std::pair<int, int>> cellAt(QPointF pixel) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void cellHovered(int row, int column);
    void cellClicked(int row, int column);
    // The pointer left the matrix (pages clear their cross-highlights on this).
    void hoverLeft();

protected:
    void changeEvent(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    friend class HeatmapPlot;
    friend class HeatmapCellLayer;

    QFont makeFont(double px, bool bold = false) const;
    void rebuildFonts();
    void measureLabels();
    double widestCellTextAt100Px() const;  // measured on first use after a change
    void rebuildTickers();
    void updateColorMapData();
    void updateRange();
    bool valuesNonNegative() const;  // every finite, unmasked value >= 0 (weights)
    void updateColorScaleText();
    void updateHeader();
    // Screen colours follow the palette; figures (exports) are drawn on white, or on nothing.
    void applyColours(bool figure, bool transparent = false);
    friend class FigureColours;
    void requestReplot();
    // Called by the plot after each layout pass: fits label and cell fonts to the cell size, hides
    // values that cannot fit. Returns true when something that moves the layout changed.
    bool adaptToLayout();
    void drawCells(QCPPainter* painter);
    QRectF cellRect(int row, int column) const;
    QRect matrixClipRect() const;
    void onMouseMove(QMouseEvent* event);
    void onMousePress(QMouseEvent* event);
    void onMouseRelease(QMouseEvent* event);
    qsizetype index(int row, int column) const;

    QCustomPlot* plot_ = nullptr;  // a HeatmapPlot (heatmap_widget.cpp)
    QCPColorMap* colorMap_ = nullptr;
    QCPColorScale* colorScale_ = nullptr;
    QCPTextElement* titleElement_ = nullptr;
    QCPTextElement* subtitleElement_ = nullptr;
    HeatmapCellLayer* cellLayer_ = nullptr;
    QSharedPointer<QCPAxisTickerText> rowTicker_;
    QSharedPointer<QCPAxisTickerText> columnTicker_;

    attn::Matrix values_;
    attn::BoolMatrix blocked_;  // as given to setMatrix
    attn::BoolMatrix dropped_;  // as given to setDropped
    RangeMode rangeMode_ = RangeMode::Matrix;
    std::vector<CellKind> kinds_;
    QStringList rowLabels_;
    QStringList columnLabels_;
    std::optional<double> fillValue_;

    QString title_;
    QString colorMapName_;
    QString colorScaleLabel_;  // as given to setColorScaleLabel; the range note goes under it
    QSharedPointer<QCPAxisTickerText> rowModeTicker_;  // "row min" / "row max" on the colour bar
    QSharedPointer<QCPAxisTicker> valueTicker_;        // the colour bar's own numbers
    bool figureColours_ = false;  // drawing a figure now (white, fixed label colours)
    QColor backgroundColor_;      // what applyColours gave the plot (QCustomPlot has no getter)
    double fixedLower_ = 0.0;
    double fixedUpper_ = 1.0;
    double rangeLower_ = 0.0;
    double rangeUpper_ = 1.0;
    bool showValues_ = true;
    int decimals_ = 4;
    double scale_ = 1.0;
    bool columnLabelsOnTop_ = true;
    int revealedRows_ = -1;

    std::optional<int> highlightRow_;
    std::optional<int> highlightColumn_;
    std::optional<std::pair<int, int>> highlightCell_;
    std::function<QString(int, int)> tooltipProvider_;

    // Derived from the current layout by adaptToLayout().
    bool valuesFit_ = true;
    double cellFontPx_ = 13.0;
    int rowLabelStep_ = 1;
    int columnLabelStep_ = 1;
    bool columnLabelsRotated_ = false;
    double rowLabelPx_ = 13.0;
    double columnLabelPx_ = 13.0;
    // Widest cell text and labels, and the line height, at a 100 px font, for fitting.
    QFont font100_;
    mutable QHash<char16_t, double> advanceAt100Px_;
    mutable double maxTextWidthAt100Px_ = 0.0;
    mutable bool textWidthKnown_ = false;
    double maxRowLabelWidthAt100Px_ = 0.0;
    double maxColumnLabelWidthAt100Px_ = 0.0;
    double textHeightAt100Px_ = 120.0;
    double titleWidthAt100Px_ = 0.0;
    double titlePx_ = 16.0;
    QString shownNote_;  // the subtitle() the header was built for (shown shortened if need be)
    double subtitleWidthAt100Px_ = 0.0;
    double subtitlePx_ = 12.0;

    bool replotPending_ = false;  // a replot asked for while hidden
    std::optional<std::pair<int, int>> hovered_;
    std::optional<std::pair<int, int>> pressed_;
};

}  // namespace views
