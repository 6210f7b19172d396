#include "app/gui/main_window.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTextEdit>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "app/gui/explore_window.h"  // explore mode hook (issue #4)
#include "app/gui/export_dialog.h"
#include "app/gui/gui_setup.h"
#include "views/language.h"
#include "views/figure_export.h"
#include "views/heatmap_widget.h"
#include "views/step_page.h"
#include "views/step_texts.h"

namespace {

const QString kLastStepKey = QStringLiteral("walkthrough/lastStep");
const QString kShowNumbersKey = QStringLiteral("view/showNumbers");
const QString kLanguageKey = QStringLiteral("view/language");
const QString kZoomKey = QStringLiteral("view/zoom");
const QString kPresentationZoomKey = QStringLiteral("view/presentationZoom");
const QString kThemeKey = QStringLiteral("view/theme");
constexpr double kZoomStep = 1.15;

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
    presentationZoom_ = std::clamp(settings.value(kPresentationZoomKey, 1.5).toDouble(), 1.0, 3.0);
    systemPalette_ = palette();
    const QString theme = settings.value(kThemeKey).toString();
    setTheme(theme == QLatin1String("dark")    ? Theme::Dark
             : theme == QLatin1String("light") ? Theme::Light
                                               : Theme::System);
    showNumbersAction_->setChecked(showNumbers_);
    retranslate();
    goToStep(std::clamp(settings.value(kLastStepKey, 1).toInt(), 1, std::max(stepCount(), 1)));

    // Application-wide, so the keys work whichever child has focus (the list, a heatmap, a
    // button) and clickers that send PageUp/PageDown drive the walkthrough.
    qApp->installEventFilter(this);
}

MainWindow::~MainWindow() {
    qApp->removeEventFilter(this);
}

void MainWindow::buildMenus() {
    fileMenu_ = menuBar()->addMenu(QString());
    buildExportMenu();
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

    buildPresentationMenu();

    helpMenu_ = menuBar()->addMenu(QString());
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

    // --- explore mode hook (issue #4): Ctrl+E opens the explore window (app/explore_window.h).
    exploreAction_ = menuBar()->addAction(tr("&Explore"));
    exploreAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(exploreAction_, &QAction::triggered, this, [this] { ExploreWindow::showFor(this); });
    // --- end of explore mode hook
}

views::StepPage* MainWindow::page(int number) {
    if (number < 1 || number > stepCount()) return nullptr;
    const std::size_t i = static_cast<std::size_t>(number - 1);
    if (!pages_[i]) {
        auto* p = new views::StepPage(steps_[i], stack_);
        p->setShowTables(showNumbers_);
        if (pageScale() != 1.0) p->setScale(pageScale());
        connectHeatmaps(p);
        connect(p, &views::StepPage::showTablesChanged, this, &MainWindow::setShowNumbers);
        stack_->addWidget(p);
        pages_[i] = p;
    }
    return pages_[i];
}

void MainWindow::goToStep(int number) {
    if (stepCount() == 0) return;
    const int n = std::clamp(number, 1, stepCount());
    if (n == current_) return;
    current_ = n;
    stack_->setCurrentWidget(page(n));
    if (reveal_) resetReveal(page(n));  // each step starts hidden again
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
        item->setText(tr("%1. %2").arg(s.number).arg(views::stepText(s.id).title));
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
    if (presentation_) {
        // Presenting has its own zoom, so the projector's size never changes the desk's.
        presentationZoom_ = std::clamp(zoom, 1.0, 3.0);
        applyPageScale();
        QSettings().setValue(kPresentationZoomKey, presentationZoom_);
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
    if (exploreAction_) exploreAction_->setText(tr("&Explore"));
    stepsHeading_->setText(tr("&Steps"));
    previous_->setText(tr("◀ &Previous"));
    next_->setText(tr("&Next ▶"));
    previous_->setToolTip(tr("Previous step (← or PageUp)"));
    next_->setToolTip(tr("Next step (→ or PageDown)"));
    if (current_ > 0) position_->setText(tr("Step %1 of %2").arg(current_).arg(stepCount()));
    updateStepList();
    retranslateExtras();
}

bool MainWindow::handleNavigationKey(int key) {
    if (key == Qt::Key_Escape && presentation_) {
        setPresentation(false);
        return true;
    }
    if (presentation_ && !reveal_ && (key == Qt::Key_Down || key == Qt::Key_Up)) {
        // No scroll bar to aim at on a projector: ↓ and ↑ scroll the page by a third.
        if (QScrollArea* area =
                currentPage() ? currentPage()->findChild<QScrollArea*>() : nullptr) {
            QScrollBar* bar = area->verticalScrollBar();
            const int step = std::max(area->viewport()->height() / 3, 1);
            bar->setValue(bar->value() + (key == Qt::Key_Down ? step : -step));
        }
        return true;
    }
    if (presentation_ && !reveal_ && key == Qt::Key_Space) {
        nextStep();
        return true;
    }
    if (reveal_) {
        // A clicker's "next" first reveals the page's rows, then moves on, as slides with builds.
        if (key == Qt::Key_Space || key == Qt::Key_Down || key == Qt::Key_Right ||
            key == Qt::Key_PageDown) {
            if (!revealNextRow()) nextStep();
            return true;
        }
        if (key == Qt::Key_Up) {
            revealPreviousRow();
            return true;
        }
    }
    switch (key) {
        case Qt::Key_Right:
        case Qt::Key_PageDown:
            nextStep();
            return true;
        case Qt::Key_Left:
        case Qt::Key_PageUp:
            previousStep();
            return true;
        case Qt::Key_Home:
            goToStep(1);
            return true;
        case Qt::Key_End:
            goToStep(stepCount());
            return true;
        default:
            return false;
    }
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

bool MainWindow::saveScreenshot(const QString& path, QString* error) {
    const QImage image = grab().toImage();
    if (image.isNull() || !image.save(path, "PNG")) {
        if (error)
            *error = tr("cannot write the screenshot %1").arg(QDir::toNativeSeparators(path));
        return false;
    }
    return true;
}

bool MainWindow::saveWalkScreenshots(const QString& dir, QString* error) {
    if (!QDir().mkpath(dir)) {
        if (error) *error = tr("cannot create the folder %1").arg(QDir::toNativeSeparators(dir));
        return false;
    }
    for (int n = 1; n <= stepCount(); ++n) {
        goToStep(n);
        // Layout and the heatmaps' queued replots happen in the event loop.
        for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
        const QString path =
            QDir(dir).filePath(QStringLiteral("step-%1.png").arg(n, 2, 10, QLatin1Char('0')));
        if (!saveScreenshot(path, error)) return false;
    }
    return true;
}

// --- File > Export (issue 5) --------------------------------------------------------------------

namespace {

const QString kExportGroup = QStringLiteral("export");

}  // namespace

void MainWindow::buildExportMenu() {
    exportMenu_ = fileMenu_->addMenu(QString());
    exportHeatmapAction_ =
        exportMenu_->addAction(QString(), this, &MainWindow::exportHeatmapWithDialog);
    exportHeatmapAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportStepAction_ = exportMenu_->addAction(QString(), this, &MainWindow::exportStepWithDialog);
    exportStepAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    exportAllAction_ =
        exportMenu_->addAction(QString(), this, &MainWindow::exportWalkthroughWithDialog);
    exportMenu_->addSeparator();
    copyFigureAction_ = exportMenu_->addAction(QString(), this, [this] { copyFigure(); });
    copyFigureAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    exportCsvAction_ = exportMenu_->addAction(QString(), this, &MainWindow::exportCsvWithDialog);
    fileMenu_->addSeparator();
}

void MainWindow::connectHeatmaps(views::StepPage* page) {
    for (attn::HeatmapWidget* map : page->heatmaps()) {
        // "The heatmap under the cursor": the last one pointed at or clicked.
        connect(map, &attn::HeatmapWidget::cellHovered, this,
                [this, map] { activeHeatmap_ = map; });
        connect(map, &attn::HeatmapWidget::cellClicked, this,
                [this, map] { activeHeatmap_ = map; });
        map->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(map, &QWidget::customContextMenuRequested, this, [this, map](const QPoint& pos) {
            const std::unique_ptr<QMenu> menu(createHeatmapMenu(map));
            menu->exec(map->mapToGlobal(pos));
        });
    }
}

attn::HeatmapWidget* MainWindow::activeHeatmap() {
    views::StepPage* p = currentPage();
    if (!p) return nullptr;
    // The last one pointed at counts while it is on this page and shown (not another frame's).
    if (attn::HeatmapWidget* active = activeHeatmap_.data()) {
        const views::Figure figure = figureOf(active);
        if (figure.page == p && p->shownMatrix(figure.matrixId)) return active;
    }
    for (const views::Figure& f : views::pageFigures(*p)) return p->heatmap(f.matrixId);
    return nullptr;
}

views::Figure MainWindow::figureOf(attn::HeatmapWidget* map) const {
    if (!map) return {};
    for (views::StepPage* p : pages_) {
        if (!p) continue;
        for (const QString& id : p->matrixIds())
            if (p->heatmap(id) == map) return {p, id};
    }
    return {};
}

QMenu* MainWindow::createHeatmapMenu(attn::HeatmapWidget* map) {
    activeHeatmap_ = map;  // the actions below act on the heatmap that was right-clicked
    auto* menu = new QMenu(this);
    menu->addAction(exportHeatmapAction_);
    menu->addAction(copyFigureAction_);
    menu->addAction(exportCsvAction_);
    menu->addSeparator();
    menu->addAction(exportStepAction_);
    menu->addAction(exportAllAction_);
    return menu;
}

bool MainWindow::exportHeatmap(attn::HeatmapWidget* map, const QString& path,
                               const views::FigureOptions& options, QString* error) {
    const views::Figure figure = figureOf(map);
    if (!figure.page) {
        if (error) *error = tr("There is no heatmap to export on this page.");
        return false;
    }
    return views::exportFigure(figure, path, options, error);
}

bool MainWindow::exportStepFigures(const QString& dir, const views::FigureOptions& options,
                                   QStringList* written, QString* error) {
    views::StepPage* p = currentPage();
    if (!p) {
        if (error) *error = tr("There is no step to export.");
        return false;
    }
    return views::exportFigures(views::pageFigures(*p), dir, options, written, error);
}

bool MainWindow::exportWalkthrough(const QString& dir, const views::FigureOptions& options,
                                   QStringList* written, QString* error) {
    QList<views::Figure> figures;
    for (int n = 1; n <= stepCount(); ++n) figures += views::pageFigures(*page(n));
    return views::exportFigures(figures, dir, options, written, error);
}

void MainWindow::copyFigure(attn::HeatmapWidget* map) {
    const views::Figure figure = figureOf(map ? map : activeHeatmap());
    if (!figure.page) return;
    views::FigureOptions options = savedExportOptions();
    options.format = views::FigureFormat::Png;
    options.size = QSize();
    options.scale = 2.0;  // sharp on a slide or in a document
    options.transparent = false;
    const QImage image = views::renderFigure(figure, options);
    if (image.isNull()) return;
    QApplication::clipboard()->setImage(image);
    statusBar()->showMessage(
        tr("Copied the figure “%1” to the clipboard").arg(figure.page->caption(figure.matrixId)),
        4000);
}

views::FigureOptions MainWindow::savedExportOptions() const {
    QSettings settings;
    settings.beginGroup(kExportGroup);
    views::FigureOptions o;
    o.format = views::figureFormatFromName(settings.value(QStringLiteral("format")).toString())
                   .value_or(views::FigureFormat::Png);
    o.size = settings.value(QStringLiteral("size")).toSize();
    o.scale = std::clamp(settings.value(QStringLiteral("scale"), 1.0).toDouble(), 1.0,
                         views::kMaxFigureScale);
    o.title = settings.value(QStringLiteral("title"), true).toBool();
    o.values = settings.value(QStringLiteral("values"), true).toBool();
    o.colorMap = settings.value(QStringLiteral("colorMap")).toString();
    o.transparent = settings.value(QStringLiteral("transparent"), false).toBool();
    return o;
}

void MainWindow::saveExportOptions(const views::FigureOptions& o, const QString& folder) const {
    QSettings settings;
    settings.beginGroup(kExportGroup);
    settings.setValue(QStringLiteral("format"), views::figureSuffix(o.format));
    settings.setValue(QStringLiteral("size"), o.size);
    settings.setValue(QStringLiteral("scale"), o.scale);
    settings.setValue(QStringLiteral("title"), o.title);
    settings.setValue(QStringLiteral("values"), o.values);
    settings.setValue(QStringLiteral("colorMap"), o.colorMap);
    settings.setValue(QStringLiteral("transparent"), o.transparent);
    settings.setValue(QStringLiteral("folder"), folder);
}

QString MainWindow::exportFolder() const {
    const QString saved = QSettings().value(kExportGroup + QStringLiteral("/folder")).toString();
    if (!saved.isEmpty() && QFileInfo(saved).isDir()) return saved;
    const QString pictures = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    return QFileInfo(pictures).isDir() ? pictures : QDir::homePath();
}

bool MainWindow::confirmReplace(const QStringList& existing) {
    if (existing.isEmpty()) return true;
    const QString text =
        existing.size() == 1
            ? tr("%1 already exists. Replace it?").arg(QDir::toNativeSeparators(existing.first()))
            : tr("%1 of the files already exist, for example %2. Replace them?")
                  .arg(existing.size())
                  .arg(QDir::toNativeSeparators(existing.first()));
    return QMessageBox::question(this, tr("Replace existing files?"), text,
                                 QMessageBox::Yes | QMessageBox::Cancel,
                                 QMessageBox::Cancel) == QMessageBox::Yes;
}

void MainWindow::exportHeatmapWithDialog() {
    attn::HeatmapWidget* map = activeHeatmap();
    const views::Figure figure = figureOf(map);
    if (!figure.page) return;
    views::FigureOptions options = savedExportOptions();
    const QString name = views::figureFileName(*figure.page, figure.matrixId, options.format);
    ExportDialog dialog(ExportDialog::Target::Heatmap, QDir(exportFolder()).filePath(name),
                        views::fittedFigureSize(figure, options), this);
    dialog.setOptions(options);
    if (dialog.exec() != QDialog::Accepted) return;
    options = dialog.options();
    const QString path = dialog.destination();
    if (!confirmReplace(QFileInfo::exists(path) ? QStringList{path} : QStringList{})) return;
    options.overwrite = true;  // asked above
    saveExportOptions(options, QFileInfo(path).absolutePath());
    QString error;
    if (!exportHeatmap(map, path, options, &error)) {
        QMessageBox::warning(this, tr("Export failed"), error);
        return;
    }
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 6000);
}

void MainWindow::exportCsvWithDialog() {
    attn::HeatmapWidget* map = activeHeatmap();
    const views::Figure figure = figureOf(map);
    if (!figure.page) return;
    const QString name =
        views::figureFileName(*figure.page, figure.matrixId, views::FigureFormat::Csv);
    // The file dialog asks before replacing a file.
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export matrix as CSV"),
                                     QDir(exportFolder()).filePath(name), tr("CSV files (*.csv)"));
    if (path.isEmpty()) return;
    views::FigureOptions options;
    options.format = views::FigureFormat::Csv;
    options.overwrite = true;
    QString error;
    if (!exportHeatmap(map, path, options, &error)) {
        QMessageBox::warning(this, tr("Export failed"), error);
        return;
    }
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 6000);
}

void MainWindow::exportStepWithDialog() {
    views::StepPage* p = currentPage();
    if (!p) return;
    ExportDialog dialog(ExportDialog::Target::Step, exportFolder(), QSize(), this);
    dialog.setOptions(savedExportOptions());
    if (dialog.exec() != QDialog::Accepted) return;
    views::FigureOptions options = dialog.options();
    const QString dir = dialog.destination();
    if (!confirmReplace(views::existingFigureFiles(views::pageFigures(*p), dir, options.format)))
        return;
    options.overwrite = true;
    saveExportOptions(options, dir);
    QStringList written;
    QString error;
    if (!exportStepFigures(dir, options, &written, &error)) {
        QMessageBox::warning(this, tr("Export failed"), error);
        return;
    }
    statusBar()->showMessage(
        tr("Figures saved: %1, in %2").arg(written.size()).arg(QDir::toNativeSeparators(dir)),
        6000);
}

void MainWindow::exportWalkthroughWithDialog() {
    ExportDialog dialog(ExportDialog::Target::Walkthrough, exportFolder(), QSize(), this);
    dialog.setOptions(savedExportOptions());
    if (dialog.exec() != QDialog::Accepted) return;
    views::FigureOptions options = dialog.options();
    const QString dir = dialog.destination();
    QList<views::Figure> figures;
    for (int n = 1; n <= stepCount(); ++n) figures += views::pageFigures(*page(n));
    if (!confirmReplace(views::existingFigureFiles(figures, dir, options.format))) return;
    options.overwrite = true;
    saveExportOptions(options, dir);
    QStringList written;
    QString error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const bool ok = views::exportFigures(figures, dir, options, &written, &error);
    QApplication::restoreOverrideCursor();
    if (!ok) {
        QMessageBox::warning(this, tr("Export failed"), error);
        return;
    }
    statusBar()->showMessage(
        tr("Figures saved: %1, in %2").arg(written.size()).arg(QDir::toNativeSeparators(dir)),
        6000);
}

// --- presentation mode (issue 5) ----------------------------------------------------------------

void MainWindow::buildPresentationMenu() {
    viewMenu_->addSeparator();
    presentationAction_ = viewMenu_->addAction(QString());
    presentationAction_->setCheckable(true);
    presentationAction_->setShortcut(QKeySequence(Qt::Key_F11));
    connect(presentationAction_, &QAction::toggled, this, &MainWindow::setPresentation);
    revealAction_ = viewMenu_->addAction(QString());
    revealAction_->setCheckable(true);
    revealAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(revealAction_, &QAction::toggled, this, &MainWindow::setReveal);
    themeMenu_ = viewMenu_->addMenu(QString());
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
    // The menu bar is hidden while presenting: actions of the window itself keep their keys.
    addActions({presentationAction_, revealAction_, zoomInAction_, zoomOutAction_, zoomResetAction_,
                exportHeatmapAction_, exportStepAction_, copyFigureAction_});
}

void MainWindow::retranslateExtras() {
    exportMenu_->setTitle(tr("&Export"));
    exportHeatmapAction_->setText(tr("Export &heatmap…"));
    exportStepAction_->setText(tr("Export all heatmaps of this &step…"));
    exportAllAction_->setText(tr("Export the &whole walkthrough…"));
    copyFigureAction_->setText(tr("&Copy figure"));
    exportCsvAction_->setText(tr("Export matrix as &CSV…"));
    presentationAction_->setText(tr("&Presentation mode"));
    revealAction_->setText(tr("&Reveal values row by row"));
    revealAction_->setToolTip(
        tr("Space or ↓ shows the next row of the computed matrices, ↑ hides it again"));
    themeMenu_->setTitle(tr("&Theme"));
    themeSystemAction_->setText(tr("&System"));
    themeLightAction_->setText(tr("&Light"));
    themeDarkAction_->setText(tr("&Dark"));
}

void MainWindow::setPresentation(bool on) {
    if (on == presentation_) return;
    presentation_ = on;
    {
        const QSignalBlocker block(presentationAction_);
        presentationAction_->setChecked(on);
    }
    // Keys and clickers only: no list, menus or buttons to aim at on a projector.
    stepPane_->setVisible(!on);
    menuBar()->setVisible(!on);
    previous_->setVisible(!on);
    next_->setVisible(!on);
    statusBar()->setVisible(!on);
    QFont positionFont = font();
    if (on) positionFont.setPointSizeF(positionFont.pointSizeF() * presentationZoom_);
    position_->setFont(positionFont);
    applyTheme();
    applyPageScale();
    if (on) {
        wasMaximized_ = isMaximized();
        normalGeometry_ = geometry();
        // Without a window manager (a kiosk, a bare X server) nobody resizes the window to the
        // screen: do it first; with one, this is the geometry it sets anyway. (After
        // showFullScreen() a new geometry would end the full-screen state.)
        if (const QScreen* s = screen()) setGeometry(s->geometry());
        showFullScreen();
    } else if (wasMaximized_) {
        showMaximized();
    } else {
        showNormal();
        if (normalGeometry_.isValid()) setGeometry(normalGeometry_);
    }
}

void MainWindow::applyPageScale() {
    for (views::StepPage* p : pages_)
        if (p) p->setScale(pageScale());
}

void MainWindow::setTheme(Theme theme) {
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

void MainWindow::applyTheme() {
    // The heatmaps keep their white card in every theme: their colour maps and labels are made
    // for it, and a figure looks the same on screen, on a projector and in an export.
    const bool dark = theme_ == Theme::Dark;
    if (theme_ == Theme::System && !presentation_) {
        setPalette(systemPalette_);
        return;
    }
    // Presentation: pure black on white or white on black, for a washed-out projector.
    const bool strong = presentation_;
    const QColor window = dark ? (strong ? QColor(0, 0, 0) : QColor(0x20, 0x21, 0x24))
                               : (strong ? QColor(255, 255, 255) : QColor(0xf6, 0xf6, 0xf6));
    const QColor text = dark ? (strong ? QColor(255, 255, 255) : QColor(0xe8, 0xe8, 0xe8))
                             : (strong ? QColor(0, 0, 0) : QColor(0x1e, 0x1e, 0x1e));
    const QColor base = dark ? (strong ? QColor(0x10, 0x10, 0x10) : QColor(0x2a, 0x2b, 0x2e))
                             : QColor(255, 255, 255);
    const QColor alternate = dark ? QColor(0x30, 0x31, 0x35) : QColor(0xea, 0xea, 0xea);
    const QColor muted = dark ? QColor(0xc8, 0xc8, 0xc8) : QColor(0x44, 0x44, 0x44);
    const QColor accent = dark ? QColor(0xff, 0xd4, 0x00) : QColor(0x00, 0x3f, 0x9e);
    setAttribute(Qt::WA_WindowPropagation);  // dialogs and menus of the window follow it
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
    setPalette(p);
}

void MainWindow::setReveal(bool on) {
    reveal_ = on;
    {
        const QSignalBlocker block(revealAction_);
        revealAction_->setChecked(on);
    }
    for (views::StepPage* p : pages_)
        if (p) resetReveal(p);
}

// The matrices a page computes (not its given inputs and parameters) are the ones to predict.
void MainWindow::resetReveal(views::StepPage* page) {
    for (const QString& id : page->matrixIds()) {
        attn::HeatmapWidget* map = page->heatmap(id);
        const attn::StepMatrix* m = page->shownMatrix(id);
        const bool computed = m && m->derivation != attn::Derivation::None;
        map->setRevealedRows(reveal_ && computed ? 0 : -1);
    }
}

bool MainWindow::revealNextRow() {
    views::StepPage* p = currentPage();
    if (!p) return false;
    for (const views::Figure& f : views::pageFigures(*p)) {
        attn::HeatmapWidget* map = p->heatmap(f.matrixId);
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

bool MainWindow::revealPreviousRow() {
    views::StepPage* p = currentPage();
    if (!p) return false;
    const QList<views::Figure> figures = views::pageFigures(*p);
    for (auto it = figures.rbegin(); it != figures.rend(); ++it) {
        attn::HeatmapWidget* map = p->heatmap(it->matrixId);
        if (map->revealedRows() > 0) {
            map->setRevealedRows(map->revealedRows() - 1);
            return true;
        }
    }
    return false;
}
