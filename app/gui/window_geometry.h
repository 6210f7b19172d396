// Where a secondary window (explore, model) opens: sized to what it wants but never larger than
// the available area of its owner's screen, and moved fully onto it.
#pragma once

#include <QSize>

class QWidget;

void fitWindowToScreen(QWidget* window, QSize wanted);
