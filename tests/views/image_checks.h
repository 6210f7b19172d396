// What the views suites check in a drawn figure: that it is not blank, that a pixel has a given
// colour, and that text was drawn somewhere.
#pragma once

#include <QColor>
#include <QImage>
#include <QRect>
#include <QSet>
#include <cstdlib>

// Colours on a 3-pixel grid: a blank or one-colour image has 1, a drawn heatmap dozens.
inline int distinctColors(const QImage& image) {
    QSet<QRgb> colors;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3) colors.insert(image.pixel(x, y));
    return static_cast<int>(colors.size());
}

inline bool sameColor(const QColor& a, const QColor& b, int tolerance) {
    return std::abs(a.red() - b.red()) <= tolerance &&
           std::abs(a.green() - b.green()) <= tolerance &&
           std::abs(a.blue() - b.blue()) <= tolerance;
}

// The share of pixels (on a 2-pixel grid) that are not white.
inline double nonWhiteShare(const QImage& image) {
    qint64 count = 0;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            if ((image.pixel(x, y) & 0xffffff) != 0xffffff) ++count;
    return static_cast<double>(count) / ((image.height() + 1) / 2 * ((image.width() + 1) / 2));
}

// Pixels in `area` dark enough to be text on white (the labels and titles are near black).
inline int darkPixels(const QImage& image, const QRect& area) {
    int count = 0;
    const QRect inside = area.intersected(image.rect());
    for (int y = inside.top(); y <= inside.bottom(); ++y)
        for (int x = inside.left(); x <= inside.right(); ++x)
            if (qGray(image.pixel(x, y)) < 100) ++count;
    return count;
}
