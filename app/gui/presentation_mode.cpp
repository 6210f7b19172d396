#include "app/gui/presentation_mode.h"

#include <QAction>
#include <QActionGroup>
#include <QMenu>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <algorithm>

#include "app/gui/main_window.h"
#include "views/figure_render.h"
#include "views/heatmap_widget.h"
#include "views/step_page.h"

namespace {

const QString kPresentationZoomKey = QStringLiteral("view/presentationZoom");
const QString kThemeKey = QStringLiteral("view/theme");

// A clicker's "next" while revealing, and the keys that scroll a presented page; handleKey() and
// Help > Keyboard shortcuts both read them.
const QList<int> kRevealForwardKeys{Qt::Key_Space, Qt::Key_Down, Qt::Key_Right, Qt::Key_PageDown};
const QList<int> kScrollKeys{Qt::Key_Down, Qt::Key_Up};

}  // namespace

PresentationMode::PresentationMode(MainWindow* window, QMenu* viewMenu)
    : QObject(window), window_(window) {
    viewMenu->addSeparator();
    presentationAction_ = viewMenu->addAction(QString());
    presentationAction_->setCheckable(true);
    presentationAction_->setShortcut(QKeySequence(Qt::Key_F11));
    connect(presentationAction_, &QAction::toggled, this, &PresentationMode::setActive);
    revealAction_ = viewMenu->addAction(QString());
    revealAction_->setCheckable(true);
    revealAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(revealAction_, &QAction::toggled, this, &PresentationMode::setReveal);
    themeMenu_ = viewMenu->addMenu(QString());
    auto* themes = new QActionGroup(this);
    themeSystemAction_ =
        themeMenu_->addAction(QString(), this, [this] { setTheme(Theme::System); });
    themeLightAction_ = themeMenu_->addAction(QString(), this, [this] { setTheme(Theme::Light); });
    themeDarkAction_ = themeMenu_->addAction(QString(), this, [this] { setTheme(Theme::Dark); });
    for (QAction* a : {themeSystemAction_, themeLightAction_, themeDarkAction_}) {
        a->setCheckable(true);
        themes->addAction(a);
    }
    themeSystemAction_->setChecked(true);
}

void PresentationMode::restoreSettings() {
    const QSettings settings;
    zoom_ = std::clamp(settings.value(kPresentationZoomKey, 1.5).toDouble(), 1.0, 3.0);
    systemPalette_ = window_->palette();
    const QString theme = settings.value(kThemeKey).toString();
    setTheme(theme == QLatin1String("dark")    ? Theme::Dark
             : theme == QLatin1String("light") ? Theme::Light
                                               : Theme::System);
}

QList<QAction*> PresentationMode::windowActions() const {
    return {presentationAction_, revealAction_};
}

void PresentationMode::retranslate() {
    presentationAction_->setText(tr("&Presentation mode"));
    revealAction_->setText(tr("&Reveal values row by row"));
    revealAction_->setToolTip(
        tr("Space or ↓ shows the next row of the computed matrices, ↑ hides it again"));
    themeMenu_->setTitle(tr("&Theme"));
    themeSystemAction_->setText(tr("&System"));
    themeLightAction_->setText(tr("&Light"));
    themeDarkAction_->setText(tr("&Dark"));
}

void PresentationMode::setActive(bool on) {
    if (on == active_) return;
    active_ = on;
    {
        const QSignalBlocker block(presentationAction_);
        presentationAction_->setChecked(on);
    }
    emit activeChanged(on);
    applyTheme();
    if (on) {
        wasMaximized_ = window_->isMaximized();
        normalGeometry_ = window_->geometry();
        // Without a window manager (a kiosk, a bare X server) nobody resizes the window to the
        // screen: do it first; with one, this is the geometry it sets anyway. (After
        // showFullScreen() a new geometry would end the full-screen state.)
        if (const QScreen* s = window_->screen()) window_->setGeometry(s->geometry());
        window_->showFullScreen();
    } else if (wasMaximized_) {
        window_->showMaximized();
    } else {
        window_->showNormal();
        if (normalGeometry_.isValid()) window_->setGeometry(normalGeometry_);
    }
}

void PresentationMode::setZoom(double zoom) {
    // Presenting has its own zoom, so the projector's size never changes the desk's.
    zoom_ = std::clamp(zoom, 1.0, 3.0);
    QSettings().setValue(kPresentationZoomKey, zoom_);
}

void PresentationMode::setTheme(Theme theme) {
    theme_ = theme;
    QAction* checked = theme == Theme::Dark    ? themeDarkAction_
                       : theme == Theme::Light ? themeLightAction_
                                               : themeSystemAction_;
    if (checked) checked->setChecked(true);
    QSettings().setValue(kThemeKey, theme == Theme::Dark    ? QStringLiteral("dark")
                                    : theme == Theme::Light ? QStringLiteral("light")
                                                            : QStringLiteral("system"));
    applyTheme();
}

void PresentationMode::applyTheme() {
    // The heatmaps keep their white card in every theme: their colour maps and labels are made
    // for it, and a figure looks the same on screen, on a projector and in an export.
    const bool dark = theme_ == Theme::Dark;
    if (theme_ == Theme::System && !active_) {
        window_->setPalette(systemPalette_);
        return;
    }
    // Presentation: pure black on white or white on black, for a washed-out projector.
    const bool strong = active_;
    const QColor window = dark ? (strong ? QColor(0, 0, 0) : QColor(0x20, 0x21, 0x24))
                               : (strong ? QColor(255, 255, 255) : QColor(0xf6, 0xf6, 0xf6));
    const QColor text = dark ? (strong ? QColor(255, 255, 255) : QColor(0xe8, 0xe8, 0xe8))
                             : (strong ? QColor(0, 0, 0) : QColor(0x1e, 0x1e, 0x1e));
    const QColor base = dark ? (strong ? QColor(0x10, 0x10, 0x10) : QColor(0x2a, 0x2b, 0x2e))
                             : QColor(255, 255, 255);
    const QColor alternate = dark ? QColor(0x30, 0x31, 0x35) : QColor(0xea, 0xea, 0xea);
    const QColor muted = dark ? QColor(0xc8, 0xc8, 0xc8) : QColor(0x44, 0x44, 0x44);
    const QColor accent = dark ? QColor(0xff, 0xd4, 0x00) : QColor(0x00, 0x3f, 0x9e);
    window_->setAttribute(Qt::WA_WindowPropagation);  // dialogs and menus of the window follow it
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, alternate);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, dark ? QColor(0x30, 0x31, 0x35) : QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, muted);
    p.setColor(QPalette::Highlight, accent);
    p.setColor(QPalette::HighlightedText, dark ? QColor(0, 0, 0) : QColor(255, 255, 255));
    p.setColor(QPalette::Link, accent);
    p.setColor(QPalette::Mid, dark ? QColor(0x50, 0x50, 0x50) : QColor(0xb0, 0xb0, 0xb0));
    p.setColor(QPalette::Disabled, QPalette::WindowText, muted);
    p.setColor(QPalette::Disabled, QPalette::Text, muted);
    p.setColor(QPalette::Disabled, QPalette::ButtonText, muted);
    window_->setPalette(p);
}

void PresentationMode::setReveal(bool on) {
    reveal_ = on;
    {
        const QSignalBlocker block(revealAction_);
        revealAction_->setChecked(on);
    }
    for (views::StepPage* p : window_->builtPages()) resetReveal(p);
}

// The matrices a page computes (not its given inputs and parameters) are the ones to predict.
void PresentationMode::resetReveal(views::StepPage* page) {
    for (const QString& id : page->matrixIds()) {
        views::HeatmapWidget* map = page->heatmap(id);
        const attn::StepMatrix* m = page->shownMatrix(id);
        const bool computed = m && m->derivation != attn::Derivation::None;
        map->setRevealedRows(reveal_ && computed ? 0 : -1);
    }
}

bool PresentationMode::revealNextRow() {
    views::StepPage* p = window_->currentPage();
    if (!p) return false;
    for (const views::Figure& f : views::pageFigures(*p)) {
        views::HeatmapWidget* map = p->heatmap(f.matrixId);
        if (!map->isVisibleTo(p)) continue;  // another part of a step shown in parts
        const int shown = map->revealedRows();
        if (shown >= 0 && shown < map->rowCount()) {
            map->setRevealedRows(shown + 1);
            // The matrix being revealed stays in view however far down the page it is.
            if (QScrollArea* area = p->findChild<QScrollArea*>())
                area->ensureWidgetVisible(map, 0, 24);
            return true;
        }
    }
    return false;
}

void PresentationMode::revealNewFrame(views::StepPage* page, int previousFrame) {
    if (!reveal_) return;
    for (const QString& id : page->matrixIds()) {
        views::HeatmapWidget* map = page->heatmap(id);
        const attn::StepMatrix* m = page->shownMatrix(id);
        // Matrices of every frame keep what they show.
        if (!m || m->frame < 0) continue;
        if (m->derivation == attn::Derivation::None) {
            map->setRevealedRows(-1);
            continue;
        }
        // A growing matrix (the cache) keeps the rows it had; a matrix of the new token alone
        // (its query, its weights) is all new.
        const attn::StepMatrix* before = page->step().find(id.toStdString(), previousFrame);
        const int had = before ? static_cast<int>(before->values.rows()) : 0;
        map->setRevealedRows(had < map->rowCount() ? had : 0);
    }
}

void PresentationMode::revealWholePage(views::StepPage* page) {
    for (views::HeatmapWidget* map : page->heatmaps()) map->setRevealedRows(-1);
}

bool PresentationMode::revealPreviousRow() {
    views::StepPage* p = window_->currentPage();
    if (!p) return false;
    const QList<views::Figure> figures = views::pageFigures(*p);
    for (auto it = figures.rbegin(); it != figures.rend(); ++it) {
        views::HeatmapWidget* map = p->heatmap(it->matrixId);
        if (!map->isVisibleTo(p)) continue;
        if (map->revealedRows() > 0) {
            map->setRevealedRows(map->revealedRows() - 1);
            return true;
        }
    }
    return false;
}

bool PresentationMode::handleKey(int key) {
    if (key == Qt::Key_Escape && active_) {
        setActive(false);
        return true;
    }
    if (active_ && !reveal_ && kScrollKeys.contains(key)) {
        // No scroll bar to aim at on a projector: ↓ and ↑ scroll the page by a third.
        views::StepPage* page = window_->currentPage();
        if (QScrollArea* area = page ? page->findChild<QScrollArea*>() : nullptr) {
            QScrollBar* bar = area->verticalScrollBar();
            const int step = std::max(area->viewport()->height() / 3, 1);
            bar->setValue(bar->value() + (key == Qt::Key_Down ? step : -step));
        }
        return true;
    }
    if (active_ && !reveal_ && key == Qt::Key_Space) {
        window_->stepForward();
        return true;
    }
    if (reveal_) {
        // A clicker's "next" first reveals the page's rows, then moves on (the next token of a
        // frame step, or the next step), as slides with builds.
        if (kRevealForwardKeys.contains(key)) {
            if (!revealNextRow()) window_->stepForward();
            return true;
        }
        if (key == Qt::Key_Up) {
            revealPreviousRow();
            return true;
        }
    }
    return false;
}

QList<KeyHelp> PresentationMode::keyHelp() const {
    return {
        {{Qt::Key_Escape}, tr("Leave presentation mode")},
        {{Qt::Key_Space}, tr("Presenting: the next token of a frame step, or the next step")},
        {kScrollKeys, tr("Presenting: scroll a page that does not fit the screen")},
        {kRevealForwardKeys,
         tr("Reveal on: show the next row of the computed matrices, then move on")},
        {{Qt::Key_Up}, tr("Reveal on: hide the last row shown")},
    };
}
