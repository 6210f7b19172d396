// A dark desktop palette and the measure the dark-theme checks use: how much of a grab is near
// white (a panel that ignores the palette). Shared by tests/app and tests/views.
#pragma once

#include <QColor>
#include <QImage>
#include <QPalette>

inline double nearWhiteShare(const QImage& image) {
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    qint64 white = 0;
    for (int y = 0; y < rgb.height(); ++y) {
        const QRgb* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
        for (int x = 0; x < rgb.width(); ++x)
            if (qRed(line[x]) >= 235 && qGreen(line[x]) >= 235 && qBlue(line[x]) >= 235) ++white;
    }
    const qint64 total = qint64{rgb.width()} * rgb.height();
    return total > 0 ? static_cast<double>(white) / static_cast<double>(total) : 1.0;
}

inline QPalette darkPalette() {
    QPalette p;
    const QColor window(0x20, 0x21, 0x24), base(0x2a, 0x2b, 0x2e), text(0xe8, 0xe8, 0xe8);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x30, 0x31, 0x35));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x30, 0x31, 0x35));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0xa0, 0xa0, 0xa0));
    p.setColor(QPalette::Light, QColor(0x45, 0x45, 0x48));
    p.setColor(QPalette::Midlight, QColor(0x3a, 0x3a, 0x3d));
    p.setColor(QPalette::Mid, QColor(0x50, 0x50, 0x50));
    p.setColor(QPalette::Dark, QColor(0x15, 0x15, 0x15));
    p.setColor(QPalette::Shadow, QColor(0, 0, 0));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xd6));
    p.setColor(QPalette::HighlightedText, QColor(255, 255, 255));
    return p;
}
