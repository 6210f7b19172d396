// What a screenshot of a window must show, for the tests that take them (test_gui_smoke,
// test_explore_session): not a blank or single-colour grab, heatmap cells in the colours of the
// colour maps, and a different picture after a step or a tab changes. Counts run over a grid of
// samples (every third pixel each way), which is enough for cells tens of pixels wide.
#pragma once

#include <QColor>
#include <QImage>
#include <QRect>
#include <QSet>
#include <algorithm>
#include <array>

namespace shots {

constexpr int kSampleStep = 3;

// Distinct colours over the samples: a blank or single-colour grab has one or two.
inline int distinctColours(const QImage& image) {
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += kSampleStep)
        for (int x = 0; x < image.width(); x += kSampleStep) colours.insert(image.pixel(x, y));
    return static_cast<int>(colours.size());
}

namespace detail {

// matplotlib's viridis (_cm_listed.py, entries 0, 32, ..., 224, 255) and ColorBrewer's 11-class
// RdBu, the published tables the heatmaps' maps are built from; cells lie on the straight lines
// between neighbouring entries.
constexpr std::array<QRgb, 9> kViridis = {0x440154, 0x472d7b, 0x3b528b, 0x2c728e, 0x21918c,
                                          0x28ae80, 0x5ec962, 0xaddc30, 0xfde725};
constexpr std::array<QRgb, 11> kRdBu = {0x053061, 0x2166ac, 0x4393c3, 0x92c5de, 0xd1e5f0, 0xf7f7f7,
                                        0xfddbc7, 0xf4a582, 0xd6604d, 0xb2182b, 0x67001f};
// Greys, whites and blacks are the interface's colours too: only clearly coloured pixels count.
constexpr int kMinChroma = 40;
constexpr int kBin = 8;  // 32 levels per channel; a neighbouring bin is as good

inline int chroma(QRgb c) {
    const int r = qRed(c), g = qGreen(c), b = qBlue(c);
    return std::max({r, g, b}) - std::min({r, g, b});
}

inline int binOf(int r, int g, int b) { return (r / kBin) * 1024 + (g / kBin) * 32 + b / kBin; }

inline QSet<int> colourMapBins() {
    QSet<int> bins;
    auto addLine = [&bins](QRgb from, QRgb to) {
        for (int i = 0; i <= 64; ++i) {
            const double t = i / 64.0;
            const int r = qRound(qRed(from) + t * (qRed(to) - qRed(from)));
            const int g = qRound(qGreen(from) + t * (qGreen(to) - qGreen(from)));
            const int b = qRound(qBlue(from) + t * (qBlue(to) - qBlue(from)));
            for (int dr = -1; dr <= 1; ++dr)
                for (int dg = -1; dg <= 1; ++dg)
                    for (int db = -1; db <= 1; ++db)
                        bins.insert(binOf(std::clamp(r + dr * kBin, 0, 255),
                                          std::clamp(g + dg * kBin, 0, 255),
                                          std::clamp(b + db * kBin, 0, 255)));
        }
    };
    for (std::size_t i = 0; i + 1 < kViridis.size(); ++i) addLine(kViridis[i], kViridis[i + 1]);
    for (std::size_t i = 0; i + 1 < kRdBu.size(); ++i) addLine(kRdBu[i], kRdBu[i + 1]);
    return bins;
}

}  // namespace detail

// Samples inside `area` coloured like a viridis or diverging heatmap cell.
inline int colourMapPixels(const QImage& image, const QRect& area) {
    static const QSet<int> bins = detail::colourMapBins();
    const QRect r = area.intersected(image.rect());
    int count = 0;
    for (int y = r.top(); y <= r.bottom(); y += kSampleStep) {
        for (int x = r.left(); x <= r.right(); x += kSampleStep) {
            const QRgb c = image.pixel(x, y);
            if (detail::chroma(c) >= detail::kMinChroma &&
                bins.contains(detail::binOf(qRed(c), qGreen(c), qBlue(c))))
                ++count;
        }
    }
    return count;
}

// Samples inside `area` whose colour differs between two grabs of the same size.
inline int differingPixels(const QImage& a, const QImage& b, const QRect& area) {
    const QRect r = area.intersected(a.rect()).intersected(b.rect());
    int count = 0;
    for (int y = r.top(); y <= r.bottom(); y += kSampleStep)
        for (int x = r.left(); x <= r.right(); x += kSampleStep)
            if (a.pixel(x, y) != b.pixel(x, y)) ++count;
    return count;
}

// The number of samples in `area`, to state thresholds as fractions.
inline int sampleCount(const QImage& image, const QRect& area) {
    const QRect r = area.intersected(image.rect());
    if (r.isEmpty()) return 0;
    return ((r.width() + kSampleStep - 1) / kSampleStep) *
           ((r.height() + kSampleStep - 1) / kSampleStep);
}

}  // namespace shots
