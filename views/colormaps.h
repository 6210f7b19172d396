// Colour maps for the heatmaps, and the colour rules that keep cell text readable.
//
// QCustomPlot 2.1 has no perceptually uniform presets, so the maps are built from colour stops:
// viridis, cividis and magma use 17 stops sampled from matplotlib's published 256-entry tables
// (_cm_listed.py, entries 0, 16, 32, ..., 240, 255); "diverging" is ColorBrewer's 11-class RdBu
// reversed (blue = negative, near-white #f7f7f7 at 0, red = positive), whose lightness is
// symmetric about the centre so equal |x| look equally strong on both sides.
#pragma once

#include <qcustomplot.h>

#include <QColor>
#include <QString>
#include <QStringList>

namespace views::colormap {

inline const QString kViridis = QStringLiteral("viridis");  // default, weights in [0, 1]
inline const QString kCividis = QStringLiteral("cividis");  // colour-vision-deficiency safe
inline const QString kMagma = QStringLiteral("magma");
inline const QString kDiverging = QStringLiteral("diverging");  // signed values, centred on 0

// All names setColorMap accepts, default first.
QStringList names();
bool isKnown(const QString& name);
// Diverging maps want a range symmetric about 0 so that white means exactly 0.
bool isDiverging(const QString& name);

// The gradient for `name` (viridis for an unknown name), with NaN cells drawn in nanColor().
QCPColorGradient gradient(const QString& name);
// The colour at `position` in [0, 1] along the map (clamped), without the level quantisation.
QColor colorAt(const QString& name, double position);

// WCAG 2 relative luminance of an sRGB colour, in [0, 1].
double relativeLuminance(const QColor& color);
// Black or white, whichever contrasts more with `background` (WCAG contrast ratio): the switch is
// at luminance ~0.18, so text stays readable on both ends of every map.
QColor readableTextColor(const QColor& background);

// Neutral colours outside every map: NaN cells, and masked cells with their hatching.
QColor nanColor();
QColor maskedColor();
QColor maskedHatchColor();

}  // namespace views::colormap
