#include "app/gui/main_window.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableWidget>
#include <QTextEdit>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "app/gui/explore_window.h"
#include "app/gui/export_actions.h"
#include "app/gui/model_window.h"
#include "app/gui/presentation_mode.h"
#include "app/gui/train_window.h"
#include "views/language.h"
#include "views/step_page.h"
#include "views/step_texts.h"

namespace {

const QString kLastStepKey = QStringLiteral("walkthrough/lastStep");
const QString kShowNumbersKey = QStringLiteral("view/showNumbers");
const QString kLanguageKey = QStringLiteral("view/language");
const QString kZoomKey = QStringLiteral("view/zoom");
constexpr double kZoomStep = 1.15;

// The window's own keys (without modifiers): handleNavigationKey() and Help > Keyboard shortcuts
// both read this table. The descriptions are translated in MainWindow's context.
struct NavigationKey {
    std::vector<int> keys;
    void (*go)(MainWindow&);
    const char* description;
};

const std::vector<NavigationKey>& navigationKeys() {
    static const std::vector<NavigationKey> keys{
        {{Qt::Key_Right, Qt::Key_PageDown},
         [](MainWindow& w) { w.stepForward(); },
         QT_TRANSLATE_NOOP("MainWindow", "Next token of a step with frames, else the next step")},
        {{Qt::Key_Left, Qt::Key_PageUp},
         [](MainWindow& w) { w.stepBackward(); },
         QT_TRANSLATE_NOOP("MainWindow",
                           "Previous token of a step with frames, else the previous step")},
        {{Qt::Key_Home},
         [](MainWindow& w) { w.goToStep(1); },
         QT_TRANSLATE_NOOP("MainWindow", "First step")},
        {{Qt::Key_End},
         [](MainWindow& w) { w.goToStep(w.stepCount()); },
         QT_TRANSLATE_NOOP("MainWindow", "Last step")},
    };
    return keys;
}

// Arrows as arrows (what the keycaps show); every other key as the platform names it.
QString keyName(int key) {
    switch (key) {
        case Qt::Key_Left:
            return QStringLiteral("←");
        case Qt::Key_Right:
            return QStringLiteral("→");
        case Qt::Key_Up:
            return QStringLiteral("↑");
        case Qt::Key_Down:
            return QStringLiteral("↓");
        default:
            return QKeySequence(key).toString(QKeySequence::NativeText);
    }
}

template <typename Keys>
QString keyNames(const Keys& keys) {
    QStringList names;
    for (int key : keys) names << keyName(key);
    return names.join(QStringLiteral(" / "));
}

// Keys belong to a widget that takes typed text; everything else lets navigation through.
bool isTextField(const QWidget* w) {
    if (!w) return false;
    if (const auto* line = qobject_cast<const QLineEdit*>(w)) return !line->isReadOnly();
    if (qobject_cast<const QAbstractSpinBox*>(w)) return true;
    if (const auto* text = qobject_cast<const QTextEdit*>(w)) return !text->isReadOnly();
    if (const auto* plain = qobject_cast<const QPlainTextEdit*>(w)) return !plain->isReadOnly();
    if (const auto* combo = qobject_cast<const QComboBox*>(w)) return combo->isEditable();
    return false;
}

}  // namespace

MainWindow::MainWindow(std::vector<attn::Step> steps, QWidget* parent)
    : QMainWindow(parent),
      steps_(std::move(steps)),
      pages_(steps_.size(), nullptr),
      translation_(std::make_unique<views::Translation>()) {
    splitter_ = new QSplitter(Qt::Horizontal, this);
    splitter_->setChildrenCollapsible(false);

    auto* left = new QWidget(splitter_);
    stepPane_ = left;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(8, 8, 0, 8);
    stepsHeading_ = new QLabel(left);
    QFont heading = stepsHeading_->font();
    heading.setBold(true);
    stepsHeading_->setFont(heading);
    stepList_ = new QListWidget(left);
    stepList_->setWordWrap(true);
    // Long titles wrap onto a second line; eliding them inside a wrapped item left a blank line.
    stepList_->setTextElideMode(Qt::ElideNone);
    stepList_->setResizeMode(QListView::Adjust);
    stepList_->setUniformItemSizes(false);
    stepList_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    stepsHeading_->setBuddy(stepList_);
    for (std::size_t i = 0; i < steps_.size(); ++i) stepList_->addItem(QString());
    leftLayout->addWidget(stepsHeading_);
    leftLayout->addWidget(stepList_, 1);
    connect(stepList_, &QListWidget::currentRowChanged, this,
            [this](int row) { goToStep(row + 1); });

    auto* right = new QWidget(splitter_);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->setSpacing(0);
    stack_ = new QStackedWidget(right);
    rightLayout->addWidget(stack_, 1);
    auto* nav = new QHBoxLayout;
    nav->setContentsMargins(12, 6, 12, 8);
    previous_ = new QPushButton(right);
    next_ = new QPushButton(right);
    position_ = new QLabel(right);
    position_->setAlignment(Qt::AlignCenter);
    nav->addWidget(previous_);
    nav->addStretch(1);
    nav->addWidget(position_);
    nav->addStretch(1);
    nav->addWidget(next_);
    rightLayout->addLayout(nav);
    connect(previous_, &QPushButton::clicked, this, &MainWindow::previousStep);
    connect(next_, &QPushButton::clicked, this, &MainWindow::nextStep);

    splitter_->addWidget(left);
    splitter_->addWidget(right);
    splitter_->setStretchFactor(0, 0);
    splitter_->setStretchFactor(1, 1);
    splitter_->setSizes({250, 1150});
    setCentralWidget(splitter_);

    buildMenus();

    // A laptop and a projector both fit 1400 × 900 or less; never larger than the screen.
    QSize size(1400, 900);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableGeometry().size() * 0.95);
    resize(size);

    const QSettings settings;
    showNumbers_ = settings.value(kShowNumbersKey, false).toBool();
    zoom_ = std::clamp(settings.value(kZoomKey, 1.0).toDouble(), 0.6, 2.5);
    presentation_->restoreSettings();
    showNumbersAction_->setChecked(showNumbers_);
    retranslate();
    goToStep(std::clamp(settings.value(kLastStepKey, 1).toInt(), 1, std::max(stepCount(), 1)));

    // Application-wide, so the keys work whichever child has focus (the list, a heatmap, a
    // button) and clickers that send PageUp/PageDown drive the walkthrough.
    qApp->installEventFilter(this);
}

MainWindow::~MainWindow() { qApp->removeEventFilter(this); }

void MainWindow::buildMenus() {
    fileMenu_ = menuBar()->addMenu(QString());
    // A real model's attention lives in its own window (app/gui/model_window.h).
    openModelAction_ = fileMenu_->addAction(QString(), this, [this] {
        ModelWindow* window = ModelWindow::showFor(this);
        QMetaObject::invokeMethod(window, "openModelWithDialog", Qt::QueuedConnection);
    });
    openModelAction_->setShortcut(QKeySequence::Open);
    // Training a small model while its heads learn (app/gui/train_window.h).
    trainFileAction_ =
        fileMenu_->addAction(QString(), this, [this] { TrainWindow::showFor(this); });
    fileMenu_->addSeparator();
    exports_ = new ExportActions(this, fileMenu_,
                                 {[this] { return currentPage(); }, [this] { return builtPages(); },
                                  [this] { return stepCount(); }, [this](int n) { return page(n); },
                                  [this] { return language(); }});
    fileMenu_->addSeparator();
    quitAction_ = fileMenu_->addAction(QString(), this, &QWidget::close);
    quitAction_->setShortcut(QKeySequence::Quit);
    quitAction_->setMenuRole(QAction::QuitRole);

    viewMenu_ = menuBar()->addMenu(QString());
    showNumbersAction_ = viewMenu_->addAction(QString());
    showNumbersAction_->setCheckable(true);
    showNumbersAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    connect(showNumbersAction_, &QAction::toggled, this, &MainWindow::setShowNumbers);
    viewMenu_->addSeparator();
    zoomInAction_ =
        viewMenu_->addAction(QString(), this, [this] { setZoom(pageScale() * kZoomStep); });
    zoomInAction_->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    zoomOutAction_ =
        viewMenu_->addAction(QString(), this, [this] { setZoom(pageScale() / kZoomStep); });
    zoomOutAction_->setShortcut(QKeySequence::ZoomOut);
    zoomResetAction_ = viewMenu_->addAction(QString(), this, [this] { setZoom(1.0); });
    zoomResetAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    viewMenu_->addSeparator();
    languageMenu_ = viewMenu_->addMenu(QString());
    languageGroup_ = new QActionGroup(this);
    // Each language named in itself, so a reader of either finds it.
    englishAction_ = languageMenu_->addAction(QStringLiteral("English"));
    chineseAction_ = languageMenu_->addAction(QStringLiteral("简体中文"));
    for (QAction* a : {englishAction_, chineseAction_}) {
        a->setCheckable(true);
        languageGroup_->addAction(a);
    }
    englishAction_->setChecked(true);
    connect(englishAction_, &QAction::triggered, this, [this] {
        setLanguage(QStringLiteral("en"));
        QSettings().setValue(kLanguageKey, language_);
    });
    connect(chineseAction_, &QAction::triggered, this, [this] {
        if (!setLanguage(QStringLiteral("zh_CN")))
            QMessageBox::warning(this, tr("Language"),
                                 tr("The Chinese translation is missing from this build."));
        QSettings().setValue(kLanguageKey, language_);
    });

    presentation_ = new PresentationMode(this, viewMenu_);
    connect(presentation_, &PresentationMode::activeChanged, this, &MainWindow::applyPresentation);
    // The menu bar is hidden while presenting: actions of the window itself keep their keys.
    addActions(presentation_->windowActions() +
               QList<QAction*>{zoomInAction_, zoomOutAction_, zoomResetAction_} +
               exports_->windowActions());

    helpMenu_ = menuBar()->addMenu(QString());
    shortcutsAction_ = helpMenu_->addAction(QString(), this, &MainWindow::showKeyboardShortcuts);
    shortcutsAction_->setShortcut(QKeySequence::HelpContents);
    addAction(shortcutsAction_);  // F1 works while presenting, with the menu bar hidden
    aboutAction_ = helpMenu_->addAction(QString(), this, [this] {
        QMessageBox::about(
            this, tr("About Attention Visualizer"),
            tr("<h3>Attention Visualizer %1</h3>"
               "<p>Learn how transformer attention works, step by step: every matrix of the "
               "tutorial “Your journey starts with one step”, computed live.</p>"
               "<p>Keys: ←/→ or PageUp/PageDown for the previous and next step, Home/End for "
               "the first and last. Point at a cell to see how it is computed.</p>")
                .arg(QApplication::applicationVersion()));
    });
    aboutAction_->setMenuRole(QAction::AboutRole);

    // Ctrl+E opens the explore window (app/gui/explore_window.h).
    exploreAction_ = menuBar()->addAction(tr("&Explore"));
    exploreAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(exploreAction_, &QAction::triggered, this, [this] { ExploreWindow::showFor(this); });
    // Ctrl+M: the model window, a real model's heads on the user's text.
    modelAction_ = menuBar()->addAction(tr("&Model"));
    modelAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    connect(modelAction_, &QAction::triggered, this, [this] { ModelWindow::showFor(this); });
    trainAction_ = menuBar()->addAction(tr("&Train"));
    connect(trainAction_, &QAction::triggered, this, [this] { TrainWindow::showFor(this); });
}

views::StepPage* MainWindow::page(int number) {
    if (number < 1 || number > stepCount()) return nullptr;
    const std::size_t i = static_cast<std::size_t>(number - 1);
    if (!pages_[i]) {
        auto* p = new views::StepPage(steps_[i], stack_);
        p->setShowTables(showNumbers_);
        if (pageScale() != 1.0) p->setScale(pageScale());
        applyPresentationToPage(p);
        exports_->connectHeatmaps(p);
        connect(p, &views::StepPage::showTablesChanged, this, &MainWindow::setShowNumbers);
        stack_->addWidget(p);
        pages_[i] = p;
    }
    return pages_[i];
}

void MainWindow::goToStep(int number) { enterStep(number, false); }

void MainWindow::previousStep() { enterStep(current_ - 1, true); }

// The clicker's next key: the next token of a frame step, then the next part of a step shown in
// parts (each part with frames starts again at the first token), then the next step.
void MainWindow::stepForward() {
    views::StepPage* p = currentPage();
    if (p && p->partShowsFrames() && p->frame() + 1 < p->frameCount()) {
        const int before = p->frame();
        p->setFrame(before + 1);
        presentation_->revealNewFrame(p, before);
        return;
    }
    if (p && p->part() + 1 < p->partCount()) {
        p->setPart(p->part() + 1);
        if (p->partShowsFrames()) p->setFrame(0);
        return;
    }
    nextStep();
}

void MainWindow::stepBackward() {
    views::StepPage* p = currentPage();
    if (p && p->partShowsFrames() && p->frame() > 0) {
        p->setFrame(p->frame() - 1);
        presentation_->revealWholePage(p);
        return;
    }
    if (p && p->part() > 0) {
        p->setPart(p->part() - 1);
        if (p->partShowsFrames()) p->setFrame(p->frameCount() - 1);
        presentation_->revealWholePage(p);
        return;
    }
    previousStep();
}

void MainWindow::enterStep(int number, bool atLastFrame) {
    if (stepCount() == 0) return;
    const int n = std::clamp(number, 1, stepCount());
    if (n == current_) return;
    current_ = n;
    views::StepPage* p = page(n);
    if (p->frameCount() > 0) p->setFrame(atLastFrame ? p->frameCount() - 1 : 0);
    // Entered backwards, a step in parts opens on its last part (fitted once it is shown).
    p->setPart(atLastFrame ? -1 : 0);
    p->scrollToTop();
    // At the stack's size before it shows, so a presented page fits itself once, to the screen.
    p->resize(stack_->size());
    stack_->setCurrentWidget(p);
    // Each step starts hidden again.
    if (presentation_->reveal()) presentation_->resetReveal(page(n));
    {
        const QSignalBlocker block(stepList_);
        stepList_->setCurrentRow(n - 1);
    }
    stepList_->scrollToItem(stepList_->item(n - 1));
    updateStepList();
    previous_->setEnabled(n > 1);
    next_->setEnabled(n < stepCount());
    position_->setText(tr("Step %1 of %2").arg(n).arg(stepCount()));
    QSettings().setValue(kLastStepKey, n);
    emit stepChanged(n);
}

void MainWindow::updateStepList() {
    for (int i = 0; i < stepList_->count(); ++i) {
        QListWidgetItem* item = stepList_->item(i);
        const attn::Step& s = steps_[static_cast<std::size_t>(i)];
        item->setText(tr("%1. %2").arg(s.number).arg(views::stepText(s).title));
        QFont f = stepList_->font();
        f.setBold(i + 1 == current_);
        item->setFont(f);
    }
}

void MainWindow::setShowNumbers(bool show) {
    showNumbers_ = show;
    {
        const QSignalBlocker block(showNumbersAction_);
        showNumbersAction_->setChecked(show);
    }
    for (views::StepPage* p : pages_)
        if (p) p->setShowTables(show);
    QSettings().setValue(kShowNumbersKey, show);
}

void MainWindow::setZoom(double zoom) {
    if (presentation_->isActive()) {
        presentation_->setZoom(zoom);
        applyPageScale();
        return;
    }
    const double z = std::clamp(zoom, 0.6, 2.5);
    // Snap back to exactly 1 when zooming in and out returns near it.
    zoom_ = std::abs(z - 1.0) < 0.01 ? 1.0 : z;
    for (views::StepPage* p : pages_)
        if (p) p->setScale(zoom_);
    QSettings().setValue(kZoomKey, zoom_);
}

bool MainWindow::setLanguage(const QString& code) {
    QString lang = views::normalizeLanguage(code);
    if (lang.isEmpty()) lang = QStringLiteral("en");
    bool ok = translation_->install(lang);
    if (!ok) {
        qWarning("attention-visualizer: no translation for %s, staying in English",
                 qPrintable(lang));
        lang = QStringLiteral("en");
        translation_->remove();
    }
    language_ = lang;
    {
        const QSignalBlocker a(englishAction_);
        const QSignalBlocker b(chineseAction_);
        englishAction_->setChecked(lang == QLatin1String("en"));
        chineseAction_->setChecked(lang == QLatin1String("zh_CN"));
    }
    // Installing a translator posts LanguageChange to every widget; deliver it now so the window
    // is in one language when this returns.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LanguageChange);
    retranslate();
    return ok;
}

void MainWindow::retranslate() {
    setWindowTitle(tr("Attention Visualizer"));
    fileMenu_->setTitle(tr("&File"));
    quitAction_->setText(tr("&Quit"));
    viewMenu_->setTitle(tr("&View"));
    showNumbersAction_->setText(tr("Show &numbers as tables"));
    zoomInAction_->setText(tr("Zoom &in"));
    zoomOutAction_->setText(tr("Zoom &out"));
    zoomResetAction_->setText(tr("&Actual size"));
    languageMenu_->setTitle(tr("&Language"));
    helpMenu_->setTitle(tr("&Help"));
    aboutAction_->setText(tr("&About Attention Visualizer"));
    shortcutsAction_->setText(tr("&Keyboard shortcuts…"));
    if (exploreAction_) exploreAction_->setText(tr("&Explore"));
    if (modelAction_) modelAction_->setText(tr("&Model"));
    openModelAction_->setText(tr("Open &model…"));
    trainFileAction_->setText(tr("&Train a model…"));
    if (trainAction_) trainAction_->setText(tr("&Train"));
    stepsHeading_->setText(tr("&Steps"));
    previous_->setText(tr("◀ &Previous"));
    next_->setText(tr("&Next ▶"));
    previous_->setToolTip(tr("Previous step (← or PageUp)"));
    next_->setToolTip(tr("Next step (→ or PageDown)"));
    if (current_ > 0) position_->setText(tr("Step %1 of %2").arg(current_).arg(stepCount()));
    updateStepList();
    exports_->retranslate();
    presentation_->retranslate();
}

bool MainWindow::handleNavigationKey(int key) {
    if (presentation_->handleKey(key)) return true;
    for (const NavigationKey& k : navigationKeys())
        if (std::find(k.keys.begin(), k.keys.end(), key) != k.keys.end()) {
            k.go(*this);
            return true;
        }
    return false;
}

QList<std::pair<QString, QString>> MainWindow::keyboardShortcuts() const {
    QList<std::pair<QString, QString>> rows;
    for (const NavigationKey& k : navigationKeys())
        rows.append({keyNames(k.keys), tr(k.description)});
    for (const KeyHelp& k : presentation_->keyHelp())
        rows.append({keyNames(k.keys), k.description});
    // The actions of this window (not of the explore window, a window of its own).
    auto ownedHere = [this](const QObject* action) {
        for (const QObject* o = action->parent(); o; o = o->parent())
            if (const auto* w = qobject_cast<const QWidget*>(o);
                w && w->isWindow() && !qobject_cast<const QMenu*>(w))
                return w == this;
        return false;
    };
    for (const QAction* a : findChildren<QAction*>()) {
        if (a->shortcuts().isEmpty() || !ownedHere(a)) continue;
        QStringList keys;
        for (const QKeySequence& key : a->shortcuts())
            keys << key.toString(QKeySequence::NativeText);
        // "&Quit" and "退出(&Q)" as "Quit" and "退出": the mnemonic is the menu's, not the key's.
        static const QRegularExpression mnemonic(QStringLiteral("\\(&.\\)|&"));
        rows.append({keys.join(QStringLiteral(" / ")), QString(a->text()).remove(mnemonic)});
    }
    return rows;
}

void MainWindow::showKeyboardShortcuts() {
    auto* dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Keyboard shortcuts"));
    if (presentation_->isActive()) {
        QFont big = dialog->font();
        big.setPointSizeF(big.pointSizeF() * presentation_->zoom());
        dialog->setFont(big);
    }
    auto* layout = new QVBoxLayout(dialog);
    const QList<std::pair<QString, QString>> rows = keyboardShortcuts();
    auto* table = new QTableWidget(static_cast<int>(rows.size()), 2, dialog);
    table->setHorizontalHeaderLabels({tr("Keys"), tr("What they do")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->setWordWrap(true);
    for (int i = 0; i < rows.size(); ++i) {
        table->setItem(i, 0, new QTableWidgetItem(rows[i].first));
        table->setItem(i, 1, new QTableWidgetItem(rows[i].second));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    table->resizeRowsToContents();
    layout->addWidget(table);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(buttons);
    const int width = table->horizontalHeader()->length() + 2 * table->frameWidth() + 40;
    const int height = table->verticalHeader()->length() + table->horizontalHeader()->height() +
                       buttons->sizeHint().height() + 60;
    QSize size(std::max(width, 520), height);
    if (const QScreen* s = screen()) size = size.boundedTo(s->availableGeometry().size() * 0.9);
    dialog->resize(size);
    dialog->show();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::KeyPress) {
        auto* widget = qobject_cast<QWidget*>(watched);
        const auto* key = static_cast<QKeyEvent*>(event);
        const Qt::KeyboardModifiers mods = key->modifiers() & ~Qt::KeypadModifier;
        if (widget && widget->window() == this && mods == Qt::NoModifier &&
            !isTextField(QApplication::focusWidget()) && handleNavigationKey(key->key()))
            return true;
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QMainWindow::changeEvent(event);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings().setValue(kLastStepKey, current_);
    QMainWindow::closeEvent(event);
}

void MainWindow::applyPresentationToPage(views::StepPage* page) {
    const bool on = presentation_->isActive();
    page->setFitToHeight(on);
    page->setCellTooltips(!on);
}

QList<views::StepPage*> MainWindow::builtPages() const {
    QList<views::StepPage*> built;
    for (views::StepPage* p : pages_)
        if (p) built.append(p);
    return built;
}

double MainWindow::pageScale() const {
    return presentation_->isActive() ? presentation_->zoom() : zoom_;
}

void MainWindow::applyPageScale() {
    for (views::StepPage* p : pages_)
        if (p) p->setScale(pageScale());
}

void MainWindow::applyPresentation(bool on) {
    // Keys and clickers only: no list, menus or buttons to aim at on a projector.
    stepPane_->setVisible(!on);
    menuBar()->setVisible(!on);
    previous_->setVisible(!on);
    next_->setVisible(!on);
    statusBar()->setVisible(!on);
    QFont positionFont = font();
    if (on) positionFont.setPointSizeF(positionFont.pointSizeF() * presentation_->zoom());
    position_->setFont(positionFont);
    for (views::StepPage* p : pages_)
        if (p) applyPresentationToPage(p);
    applyPageScale();
    if (views::StepPage* p = currentPage()) p->scrollToTop();
}
