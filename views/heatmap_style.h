// The sizes and colours of HeatmapWidget's drawing, shared by its source files
// (heatmap_widget.cpp, heatmap_layout.cpp, heatmap_render.cpp); not for use elsewhere.
#pragma once

#include <QColor>
#include <QString>

namespace views::heatmap_style {

// Sizes at scale 1, in logical pixels. Fonts are pixel-sized so that the screen, PNG, SVG and
// PDF (whose painters map logical pixels onto points) all lay out the same.
inline constexpr double kTitlePx = 16.0;
inline constexpr double kSubtitlePx = 12.0;
inline constexpr double kLabelPx = 13.0;    // token labels, largest
inline constexpr double kMinLabelPx = 8.0;  // below this, labels are thinned out instead
inline constexpr double kAxisTitlePx = 13.0;
inline constexpr double kScaleTickPx = 12.0;  // colour scale numbers
inline constexpr double kCellTextPx = 14.0;   // cell values, largest
// Below this, values are hidden and the subtitle says so.
inline constexpr double kMinCellTextPx = 8.0;
inline constexpr double kPreferredCellPx = 52.0;
inline constexpr double kColorBarPx = 16.0;
inline constexpr double kHatchSpacingPx = 7.0;
inline const QString kCjkFallback = QStringLiteral("Noto Sans CJK SC");

inline const QColor kLabelColor(0x22, 0x22, 0x22);
inline const QColor kSubtitleColor(0x60, 0x60, 0x60);
inline const QColor kMaskedTextColor(0x33, 0x33, 0x33);
inline const QColor kHiddenCellColor(0xe4, 0xe4, 0xe4);  // rows not yet revealed (presentation)

}  // namespace views::heatmap_style
