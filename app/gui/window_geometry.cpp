#include "app/gui/window_geometry.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>
#include <algorithm>

void fitWindowToScreen(QWidget* window, QSize wanted) {
    QScreen* screen = window->screen();
    if (window->parentWidget() && window->parentWidget()->window()->screen())
        screen = window->parentWidget()->window()->screen();
    if (!screen) screen = QGuiApplication::primaryScreen();
    if (!screen) return;
    const QRect available = screen->availableGeometry();
    // The frame is known once the window manager framed the window; until then leave room for a
    // typical title bar and border.
    const QSize frame = (window->frameGeometry().size() - window->size()).expandedTo(QSize(16, 40));
    const QSize room = available.size() - frame;
    window->resize(wanted.boundedTo(room).expandedTo(window->minimumSizeHint().boundedTo(room)));
    QRect outer(window->frameGeometry().topLeft(), window->size() + frame);
    if (!available.contains(outer)) {
        outer.moveCenter(available.center());
        outer.moveLeft(
            std::clamp(outer.left(), available.left(),
                       std::max(available.left(), available.right() - outer.width() + 1)));
        outer.moveTop(
            std::clamp(outer.top(), available.top(),
                       std::max(available.top(), available.bottom() - outer.height() + 1)));
        window->move(outer.topLeft());
    }
}
