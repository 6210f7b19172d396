#include "views/colormaps.h"

#include <QMap>
#include <algorithm>
#include <cmath>
#include <span>

namespace views::colormap {

namespace {

struct Stop {
    double position;
    QRgb rgb;
};

// matplotlib _cm_listed.py, entries 0, 16, ..., 240, 255 of 256 (position = entry / 255).
constexpr Stop kViridisStops[] = {
    {0 / 255.0, 0x440154},   {16 / 255.0, 0x48186a},  {32 / 255.0, 0x472d7b},
    {48 / 255.0, 0x424086},  {64 / 255.0, 0x3b528b},  {80 / 255.0, 0x33638d},
    {96 / 255.0, 0x2c728e},  {112 / 255.0, 0x26828e}, {128 / 255.0, 0x21918c},
    {144 / 255.0, 0x1fa088}, {160 / 255.0, 0x28ae80}, {176 / 255.0, 0x3fbc73},
    {192 / 255.0, 0x5ec962}, {208 / 255.0, 0x84d44b}, {224 / 255.0, 0xaddc30},
    {240 / 255.0, 0xd8e219}, {255 / 255.0, 0xfde725},
};

constexpr Stop kCividisStops[] = {
    {0 / 255.0, 0x00224e},   {16 / 255.0, 0x002e6a},  {32 / 255.0, 0x1a386f},
    {48 / 255.0, 0x32436d},  {64 / 255.0, 0x434e6c},  {80 / 255.0, 0x535a6d},
    {96 / 255.0, 0x61656f},  {112 / 255.0, 0x6f7073}, {128 / 255.0, 0x7d7c78},
    {144 / 255.0, 0x8c8878}, {160 / 255.0, 0x9b9476}, {176 / 255.0, 0xaba072},
    {192 / 255.0, 0xbcae6c}, {208 / 255.0, 0xcdbb63}, {224 / 255.0, 0xdec958},
    {240 / 255.0, 0xf0d846}, {255 / 255.0, 0xfee838},
};

constexpr Stop kMagmaStops[] = {
    {0 / 255.0, 0x000004},   {16 / 255.0, 0x0a0822},  {32 / 255.0, 0x1d1147},
    {48 / 255.0, 0x36106b},  {64 / 255.0, 0x51127c},  {80 / 255.0, 0x6a1c81},
    {96 / 255.0, 0x832681},  {112 / 255.0, 0x9c2e7f}, {128 / 255.0, 0xb73779},
    {144 / 255.0, 0xd0416f}, {160 / 255.0, 0xe75263}, {176 / 255.0, 0xf56b5c},
    {192 / 255.0, 0xfc8961}, {208 / 255.0, 0xfea772}, {224 / 255.0, 0xfec488},
    {240 / 255.0, 0xfde2a3}, {255 / 255.0, 0xfcfdbf},
};

// ColorBrewer RdBu, 11 classes, reversed so that negative scores are blue.
constexpr Stop kDivergingStops[] = {
    {0.0, 0x053061}, {0.1, 0x2166ac}, {0.2, 0x4393c3}, {0.3, 0x92c5de},
    {0.4, 0xd1e5f0}, {0.5, 0xf7f7f7}, {0.6, 0xfddbc7}, {0.7, 0xf4a582},
    {0.8, 0xd6604d}, {0.9, 0xb2182b}, {1.0, 0x67001f},
};

std::span<const Stop> stopsFor(const QString& name) {
    if (name == kCividis) return kCividisStops;
    if (name == kMagma) return kMagmaStops;
    if (name == kDiverging) return kDivergingStops;
    return kViridisStops;
}

double srgbToLinear(double channel) {
    return channel <= 0.04045 ? channel / 12.92 : std::pow((channel + 0.055) / 1.055, 2.4);
}

}  // namespace

QStringList names() { return {kViridis, kCividis, kMagma, kDiverging}; }

bool isKnown(const QString& name) { return names().contains(name); }

bool isDiverging(const QString& name) { return name == kDiverging; }

QCPColorGradient gradient(const QString& name) {
    QMap<double, QColor> stops;
    for (const Stop& stop : stopsFor(name)) stops.insert(stop.position, QColor(stop.rgb));
    QCPColorGradient result;
    result.setColorStops(stops);
    // The stops are dense samples of maps designed in a perceptual space, so linear RGB between
    // neighbours stays on the published curve.
    result.setColorInterpolation(QCPColorGradient::ciRGB);
    result.setLevelCount(256);
    result.setNanHandling(QCPColorGradient::nhNanColor);
    result.setNanColor(nanColor());
    return result;
}

QColor colorAt(const QString& name, double position) {
    const std::span<const Stop> stops = stopsFor(name);
    const double t = std::isnan(position) ? 0.0 : std::clamp(position, 0.0, 1.0);
    for (std::size_t i = 1; i < stops.size(); ++i) {
        if (t > stops[i].position) continue;
        const Stop& a = stops[i - 1];
        const Stop& b = stops[i];
        const double f = (t - a.position) / (b.position - a.position);
        const auto mix = [f](int x, int y) {
            return static_cast<int>(std::lround(x + (y - x) * f));
        };
        return QColor(mix(qRed(a.rgb), qRed(b.rgb)), mix(qGreen(a.rgb), qGreen(b.rgb)),
                      mix(qBlue(a.rgb), qBlue(b.rgb)));
    }
    return QColor(stops.back().rgb);
}

double relativeLuminance(const QColor& color) {
    const QColor rgb = color.toRgb();
    return 0.2126 * srgbToLinear(rgb.redF()) + 0.7152 * srgbToLinear(rgb.greenF()) +
           0.0722 * srgbToLinear(rgb.blueF());
}

QColor readableTextColor(const QColor& background) {
    const double luminance = relativeLuminance(background);
    const double contrastWithBlack = (luminance + 0.05) / 0.05;
    const double contrastWithWhite = 1.05 / (luminance + 0.05);
    return contrastWithBlack >= contrastWithWhite ? QColor(Qt::black) : QColor(Qt::white);
}

// Mid grey with a blue tint none of the maps passes through.
QColor nanColor() { return QColor(0x9e, 0xa3, 0xab); }
QColor maskedColor() { return QColor(0xe6, 0xe6, 0xe6); }
QColor maskedHatchColor() { return QColor(0x9a, 0x9a, 0x9a); }

}  // namespace views::colormap
