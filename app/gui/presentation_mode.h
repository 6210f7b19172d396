// PresentationMode: the walkthrough window on a projector, and its colours. Presenting is full
// screen with the step list, menu bar and buttons hidden (keys and clickers navigate), at a zoom
// of its own that each page lowers as far as it must to fit the screen, without hover tooltips
// (the bar under the page explains a cell), and in the high-contrast variant of the theme. Reveal
// shows the matrices a page computes row by row, as slides with builds. Owns View > Presentation
// mode, Reveal and Theme, and remembers the presentation zoom and the theme (QSettings).
#pragma once

#include <QList>
#include <QObject>
#include <QPalette>
#include <QRect>
#include <QString>

class MainWindow;
class QAction;
class QMenu;

namespace views {
class StepPage;
}

// One line of Help > Keyboard shortcuts: keys (Qt::Key codes, any of them does it) and what they
// do.
struct KeyHelp {
    QList<int> keys;
    QString description;
};

class PresentationMode : public QObject {
    Q_OBJECT

public:
    // Adds its actions to `viewMenu`. Call restoreSettings() once the window has its size.
    PresentationMode(MainWindow* window, QMenu* viewMenu);

    // The zoom and theme of the last run, over the window's own palette (the System theme).
    void restoreSettings();
    // The actions that keep their keys while the menu bar is hidden.
    QList<QAction*> windowActions() const;
    void retranslate();

    // Full screen, chrome hidden, presentation zoom, high contrast. F11 toggles, Escape leaves.
    void setActive(bool on);
    bool isActive() const { return active_; }
    // Scale of the pages while presenting (View > Zoom changes it while presenting): 1 to 3.
    double zoom() const { return zoom_; }
    void setZoom(double zoom);

    // System: the desktop's colours (presenting: high-contrast light). Light and Dark, while
    // presenting their high-contrast variants.
    enum class Theme { System, Light, Dark };
    void setTheme(Theme theme);
    Theme theme() const { return theme_; }

    // Reveal: the matrices a page computes show their rows one by one; Space, Down, → and
    // PageDown reveal the next row (then the next token of a step with frames, or the next
    // step), ↑ hides the last one again.
    void setReveal(bool on);
    bool reveal() const { return reveal_; }
    bool revealNextRow();      // false when every row of the page is shown
    bool revealPreviousRow();  // false when nothing is revealed
    // Hides the computed rows of `page` again when reveal is on, shows every row when it is off.
    void resetReveal(views::StepPage* page);
    // A frame step moved on from frame `previousFrame`: with reveal on, the rows the matrices
    // already had stay shown and the token's new rows wait for the next key.
    void revealNewFrame(views::StepPage* page, int previousFrame);
    // A frame step went back a frame: that frame was seen already, so all of it shows.
    void revealWholePage(views::StepPage* page);

    // The keys presenting and reveal give a meaning of their own (Escape, Space, ↓, ↑, and with
    // reveal → and PageDown); false when `key` is plain navigation.
    bool handleKey(int key);
    // The keys handleKey() gives a meaning, for Help > Keyboard shortcuts, translated.
    QList<KeyHelp> keyHelp() const;

signals:
    // Emitted before the theme and the window's state change: the window hides or shows its
    // chrome and rescales its pages.
    void activeChanged(bool on);

private:
    void applyTheme();

    MainWindow* window_ = nullptr;
    QAction* presentationAction_ = nullptr;
    QAction* revealAction_ = nullptr;
    QMenu* themeMenu_ = nullptr;
    QAction* themeSystemAction_ = nullptr;
    QAction* themeLightAction_ = nullptr;
    QAction* themeDarkAction_ = nullptr;
    bool active_ = false;
    bool reveal_ = false;
    double zoom_ = 1.5;
    Theme theme_ = Theme::System;
    QPalette systemPalette_;
    bool wasMaximized_ = false;
    QRect normalGeometry_;
};
