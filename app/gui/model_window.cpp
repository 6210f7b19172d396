#include "app/gui/model_window.h"

#include <QAction>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>
#include <string>
#include <vector>

#include "app/gui/export_flow.h"
#include "app/gui/threads_menu.h"
#include "app/gui/window_geometry.h"
#include "app/io/gguf.h"
#include "app/io/hf_cache.h"
#include "app/io/model_store.h"
#include "model/attention_layer_step.h"
#include "views/explore_lines_view.h"
#include "views/model_heads_mosaic.h"
#include "views/next_token_chart.h"
#include "views/number_text.h"
#include "views/step_page.h"
#include "views/token_strip.h"

namespace {

const QString kTextKey = QStringLiteral("model/text");

// "1664 bytes (1.6 KiB)": the exact count the arithmetic before it gives, then a readable
// size, with the one number formatter.
QString bytesText(qint64 bytes) {
    const QString exact = QCoreApplication::translate("ModelWindow", "%1 bytes").arg(bytes);
    if (bytes < 1024) return exact;
    const QString readable =
        bytes < 1024 * 1024
            ? QCoreApplication::translate("ModelWindow", "%1 KiB")
                  .arg(views::fixedText(static_cast<double>(bytes) / 1024.0, 1))
            : QCoreApplication::translate("ModelWindow", "%1 MiB")
                  .arg(views::fixedText(static_cast<double>(bytes) / (1024.0 * 1024.0), 1));
    return QStringLiteral("%1 (%2)").arg(exact, readable);
}

// "124M", "1.1B": a model's size as people say it; small test models exactly.
QString parametersText(qint64 parameters) {
    const auto scaled = [](qint64 n, double unit, const char* suffix) {
        return QCoreApplication::translate("ModelWindow", suffix)
            .arg(views::fixedText(static_cast<double>(n) / unit,
                                  static_cast<double>(n) >= 10.0 * unit ? 0 : 1));
    };
    if (parameters >= 1000000000)
        return scaled(parameters, 1e9, QT_TRANSLATE_NOOP("ModelWindow", "%1B parameters"));
    if (parameters >= 1000000)
        return scaled(parameters, 1e6, QT_TRANSLATE_NOOP("ModelWindow", "%1M parameters"));
    return QCoreApplication::translate("ModelWindow", "%1 parameters").arg(parameters);
}

std::vector<std::string> stdTokens(const QStringList& tokens) {
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(tokens.size()));
    for (const QString& t : tokens) out.push_back(t.toStdString());
    return out;
}

}  // namespace

ModelWindow::ModelWindow(QWidget* parent) : QMainWindow(parent) {
    setAttribute(Qt::WA_DeleteOnClose, false);
    setWindowFlag(Qt::Window);
    session_ = new ModelSession(this);
    exportFlow_ =
        new ExportFlow(this, QStringLiteral("model/export"),
                       [this](const QString& message, bool error) { showMessage(message, error); });

    pages_ = new QStackedWidget(this);
    pages_->addWidget(buildWelcomePage());
    pages_->addWidget(buildLoadingPage());
    pages_->addWidget(buildModelPage());
    // Errors stay on screen above whatever page is shown (a modal box would block a lesson and
    // hide the page behind it); opening something that works clears them.
    errorBanner_ = new QLabel(this);
    errorBanner_->setWordWrap(true);
    errorBanner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    errorBanner_->setFrameShape(QFrame::StyledPanel);
    errorBanner_->setMargin(8);
    // White on a dark red reads the same under light and dark desktop themes.
    QPalette bannerPalette = errorBanner_->palette();
    bannerPalette.setColor(QPalette::Window, QColor(0xa8, 0x1f, 0x1f));
    bannerPalette.setColor(QPalette::WindowText, Qt::white);
    errorBanner_->setPalette(bannerPalette);
    errorBanner_->setAutoFillBackground(true);
    errorBanner_->hide();
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    centralLayout->addWidget(errorBanner_);
    centralLayout->addWidget(pages_, 1);
    setCentralWidget(central);
    buildMenus();

    connect(session_, &ModelSession::loadingChanged, this, [this](bool loading) {
        if (loading) {
            progress_->setValue(0);
            pages_->setCurrentIndex(static_cast<int>(Page::Loading));
        }
    });
    connect(session_, &ModelSession::loadProgress, this,
            [this](double f) { progress_->setValue(static_cast<int>(f * 1000.0)); });
    connect(session_, &ModelSession::loadFailed, this, [this](const QString& message) {
        pages_->setCurrentIndex(static_cast<int>(
            session_->source() == ModelSession::Source::None ? Page::Welcome : Page::Model));
        if (message.isEmpty()) {
            showMessage(tr("Loading cancelled."));
            return;
        }
        showMessage(message, true);
    });
    connect(session_, &ModelSession::sourceChanged, this, [this] {
        pages_->setCurrentIndex(static_cast<int>(Page::Model));
        if (!splitterSized_) {
            // Once the page has its width: two fifths for the mosaic of every head, the rest
            // for the large views (the user's dragging is kept after that).
            splitterSized_ = true;
            QTimer::singleShot(0, this, [this] {
                const int width = splitter_->width();
                splitter_->setSizes({width * 2 / 5, width - width * 2 / 5});
            });
        }
        layer_ = 0;
        head_ = 0;
        leftSplitSized_ = false;
        const bool model = session_->source() == ModelSession::Source::Model;
        text_->setEnabled(model);
        if (!model) text_->clear();  // a dump's tokens are the file's
        updateTextPlaceholder();
        summary_->setText(session_->sourceSummary());
        refreshRecentMenu();
        refreshWelcome();
        if (model && text_->text().isEmpty()) {
            const QString saved = QSettings().value(kTextKey).toString();
            text_->setText(saved.isEmpty() ? QStringLiteral("Your journey starts with one step")
                                           : saved);
        }
        if (model) {
            session_->setPair(pair_->text());
            session_->setText(text_->text());
        }
        showMessage(session_->sourceWarning().isEmpty()
                        ? tr("Opened %1").arg(QDir::toNativeSeparators(session_->sourcePath()))
                        : session_->sourceWarning());
        updateView();
    });
    connect(session_, &ModelSession::viewChanged, this, &ModelWindow::updateView);
    connect(session_, &ModelSession::errorChanged, this, [this](const QString& e) {
        if (!e.isEmpty()) showMessage(e, true);
    });
    connect(session_, &ModelSession::busyChanged, this, &ModelWindow::updateGenerationControls);

    retranslate();
    refreshWelcome();
    pages_->setCurrentIndex(static_cast<int>(Page::Welcome));
}

ModelWindow::~ModelWindow() = default;

ModelWindow* ModelWindow::showFor(QWidget* owner) {
    ModelWindow* window =
        owner ? owner->findChild<ModelWindow*>(QString(), Qt::FindDirectChildrenOnly) : nullptr;
    if (!window) window = new ModelWindow(owner);
    window->show();
    window->fitToScreen();
    window->raise();
    window->activateWindow();
    return window;
}

void ModelWindow::fitToScreen() { fitWindowToScreen(this, QSize(1500, 920)); }

ModelWindow::Page ModelWindow::page() const { return static_cast<Page>(pages_->currentIndex()); }

void ModelWindow::buildMenus() {
    fileMenu_ = menuBar()->addMenu(QString());
    openAction_ = fileMenu_->addAction(QString(), this, &ModelWindow::openModelWithDialog);
    openAction_->setShortcut(QKeySequence::Open);
    openGgufAction_ = fileMenu_->addAction(QString(), this, &ModelWindow::openGgufWithDialog);
    openDumpAction_ = fileMenu_->addAction(QString(), this, &ModelWindow::openDumpWithDialog);
    openDumpAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    cachedMenu_ = fileMenu_->addMenu(QString());
    connect(cachedMenu_, &QMenu::aboutToShow, this, &ModelWindow::refreshCachedMenu);
    recentMenu_ = fileMenu_->addMenu(QString());
    fileMenu_->addSeparator();
    exportMenu_ = fileMenu_->addMenu(QString());
    exportHeadAction_ =
        exportMenu_->addAction(QString(), this, [this] { exportWithDialog(ExportKind::Head); });
    exportHeadAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_E));
    exportLayerAction_ =
        exportMenu_->addAction(QString(), this, [this] { exportWithDialog(ExportKind::Layer); });
    exportLayerAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    exportChartAction_ = exportMenu_->addAction(
        QString(), this, [this] { exportWithDialog(ExportKind::NextTokens); });
    fileMenu_->addSeparator();
    closeAction_ = fileMenu_->addAction(QString(), this, &QWidget::close);
    closeAction_->setShortcut(QKeySequence::Close);

    generateMenu_ = menuBar()->addMenu(QString());
    generateAction_ = generateMenu_->addAction(QString(), this, [this] { session_->generate(1); });
    generateAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
    generateManyAction_ =
        generateMenu_->addAction(QString(), this, [this] { session_->generate(kGenerateMany); });
    generateManyAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
    stopAction_ = generateMenu_->addAction(QString(), session_, &ModelSession::stopGenerating);
    stopAction_->setShortcut(QKeySequence(Qt::Key_Escape));
    resetAction_ = generateMenu_->addAction(QString(), session_, &ModelSession::resetGeneration);
    generateMenu_->addSeparator();
    threadsMenu_ = new ThreadsMenu(generateMenu_, this);
    refreshRecentMenu();
}

QList<QAction*> ModelWindow::windowActions() const {
    return {openAction_,         openGgufAction_,    openDumpAction_, exportHeadAction_,
            exportLayerAction_,  exportChartAction_, closeAction_,    generateAction_,
            generateManyAction_, stopAction_,        resetAction_};
}

void ModelWindow::retranslate() {
    setWindowTitle(tr("Attention Visualizer — a real model"));
    welcomeText_->setText(tr(
        "<h2>No model open</h2>"
        "<p>Open a model to see what its trained heads look at on your own text: GPT-2, Llama "
        "2/3 (and TinyLlama, SmolLM), Mistral, Qwen2/2.5 or Qwen3. A model is a folder from the "
        "<a href=\"https://huggingface.co/gpt2\">Hugging Face Hub</a> with "
        "<code>config.json</code>, <code>model.safetensors</code> and "
        "<code>tokenizer.json</code> (or <code>vocab.json</code> + <code>merges.txt</code>), a "
        "<code>.gguf</code> file (Q4_K_M, Q5_K_M, Q8_0, F16 …) or a model Ollama pulled. To "
        "download GPT-2 small (about 500 MB):</p>"
        "<pre>pip install huggingface_hub\n"
        "huggingface-cli download gpt2 config.json model.safetensors vocab.json merges.txt</pre>"
        "<p>Models in the Hugging Face cache and in Ollama's store are listed below and open by "
        "a double click. An attention dump saved from any model (<code>.npy</code> or "
        "<code>.safetensors</code>, the README shows how) opens the same way.</p>"
        "<p>The tutorial's walkthrough does not need a model: it stays in the main window.</p>"));
    welcomeOpen_->setText(tr("Open model folder…"));
    welcomeDump_->setText(tr("Open attention dump…"));
    cachedHeading_->setText(tr("In the Hugging Face cache (%1) and Ollama's store (%2):")
                                .arg(QDir::toNativeSeparators(attn::huggingFaceHubCache()),
                                     QDir::toNativeSeparators(attn::ollamaModelsFolder())));
    recentHeading_->setText(tr("Recent:"));
    loadingText_->setText(tr("Loading the model… the window stays usable; Cancel stops it."));
    cancel_->setText(tr("Cancel"));
    textLabel_->setText(tr("&Text:"));
    updateTextPlaceholder();
    mosaicHeading_->setText(
        tr("Every layer (rows) × head (columns): click a head to see it large"));
    rangeLabel_->setText(tr("Colours:"));
    const int range = range_->currentIndex();
    range_->clear();
    range_->addItem(tr("each row its own range"),
                    static_cast<int>(views::ModelHeadsMosaic::Range::PerRow));
    range_->addItem(tr("each head its own range"),
                    static_cast<int>(views::ModelHeadsMosaic::Range::PerHead));
    range_->addItem(tr("one range, 0 to 1"),
                    static_cast<int>(views::ModelHeadsMosaic::Range::Shared));
    range_->setCurrentIndex(std::max(0, range));
    tabs_->setTabText(0, tr("Head"));
    tabs_->setTabText(1, tr("Lines"));
    tabs_->setTabText(2, tr("Next token"));
    retranslateEncoder();
    generate_->setText(tr("Generate next token"));
    generateMany_->setText(tr("Generate %n tokens", nullptr, kGenerateMany));
    stop_->setText(tr("Stop"));
    reset_->setText(tr("Back to the text"));
    fileMenu_->setTitle(tr("&File"));
    openAction_->setText(tr("&Open model folder…"));
    openGgufAction_->setText(tr("Open &GGUF file…"));
    openDumpAction_->setText(tr("Open attention &dump…"));
    cachedMenu_->setTitle(tr("Models on this &computer"));
    recentMenu_->setTitle(tr("&Recent"));
    exportMenu_->setTitle(tr("&Export"));
    exportHeadAction_->setText(tr("&Head figure…"));
    exportLayerAction_->setText(tr("All heads of the &layer as one figure…"));
    exportChartAction_->setText(tr("&Next-token chart…"));
    closeAction_->setText(tr("&Close"));
    generateMenu_->setTitle(tr("&Generate"));
    threadsMenu_->retranslate();
    generateAction_->setText(generate_->text());
    generateManyAction_->setText(generateMany_->text());
    stopAction_->setText(tr("&Stop"));
    resetAction_->setText(reset_->text());
    updateView();
}

void ModelWindow::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QMainWindow::changeEvent(event);
}

void ModelWindow::refreshWelcome() {
    cached_->clear();
    for (const attn::LocalModel& m : attn::listLocalModels()) {
        auto* item = new QListWidgetItem(
            m.supported ? QStringLiteral("%1 · %2 · %3 · %4")
                              .arg(m.name, m.family, parametersText(m.parameters), m.dtype)
                        : tr("%1 (cannot be opened: %2)").arg(m.name, m.reason.left(120)),
            cached_);
        item->setData(Qt::UserRole, m.path);
        item->setToolTip(m.supported ? QDir::toNativeSeparators(m.path) : m.reason);
        if (!m.supported) item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
    }
    if (cached_->count() == 0) {
        auto* item = new QListWidgetItem(tr("(no models found)"), cached_);
        item->setFlags(Qt::NoItemFlags);
    }
    recent_->clear();
    for (const QString& path : ModelSession::recentSources()) {
        auto* item = new QListWidgetItem(QDir::toNativeSeparators(path), recent_);
        item->setData(Qt::UserRole, path);
        if (!QFileInfo::exists(path)) item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
    }
}

void ModelWindow::refreshRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = ModelSession::recentSources();
    for (const QString& path : recent) {
        QAction* a = recentMenu_->addAction(QDir::toNativeSeparators(path));
        a->setEnabled(QFileInfo::exists(path));
        connect(a, &QAction::triggered, this, [this, path] {
            if (QFileInfo(path).isFile() && !attn::looksLikeGguf(path))
                openDump(path);
            else
                openModel(path);
        });
    }
    recentMenu_->setEnabled(!recent.isEmpty());
}

void ModelWindow::refreshCachedMenu() {
    cachedMenu_->clear();
    const std::vector<attn::LocalModel> models = attn::listLocalModels();
    for (const attn::LocalModel& m : models) {
        QAction* a = cachedMenu_->addAction(m.name);
        a->setEnabled(m.supported);
        a->setToolTip(m.supported ? QDir::toNativeSeparators(m.path) : m.reason);
        const QString path = m.path;
        connect(a, &QAction::triggered, this, [this, path] { openModel(path); });
    }
    if (models.empty())
        cachedMenu_
            ->addAction(tr("No models in %1 or %2")
                            .arg(QDir::toNativeSeparators(attn::huggingFaceHubCache()),
                                 QDir::toNativeSeparators(attn::ollamaModelsFolder())))
            ->setEnabled(false);
}

void ModelWindow::setText(const QString& text) {
    if (text_->text() != text) text_->setText(text);
    QSettings().setValue(kTextKey, text);
    session_->setText(text);
}

void ModelWindow::selectHead(int layer, int head) {
    layer_ = std::clamp(layer, 0, std::max(0, session_->layerCount() - 1));
    head_ = std::clamp(head, 0, std::max(0, session_->headCount() - 1));
    mosaic_->setSelected(layer_, head_);
    updateHeadPage();
    updateLines();
    if (session_->encoder()) updatePadding();
    tabs_->setCurrentIndex(0);
}

attn::Step ModelWindow::layerStep() const {
    const ModelSession::View& v = session_->view();
    const std::vector<std::string> tokens = stdTokens(v.tokens);
    const auto l = static_cast<std::size_t>(layer_);
    if (v.forward && session_->model().weights && v.forward->queries.size() > l &&
        v.forward->queries[l].rows() == static_cast<Eigen::Index>(tokens.size())) {
        // The layer's weights with its queries and keys: q·k, /√head_dim and the softmax of
        // every cell on hover. Only this layer is copied.
        attn::ModelForwardResult layer;
        layer.attentions.resize(l + 1);
        layer.queries.resize(l + 1);
        layer.keys.resize(l + 1);
        layer.attentions[l] = v.attentions[l];
        layer.queries[l] = v.forward->queries[l];
        layer.keys[l] = v.forward->keys[l];
        return attn::model_layer_step(layer, session_->model().weights->spec, layer_, tokens);
    }
    if (session_->source() == ModelSession::Source::Model && session_->model().weights) {
        // While generating, the rows come from the kv_cache without a full pass's queries and
        // keys: the weights, and the text says when the arithmetic comes back.
        attn::ModelForwardResult layer;
        layer.attentions.resize(l + 1);
        layer.attentions[l] = v.attentions[l];
        return attn::model_layer_step(layer, session_->model().weights->spec, layer_, tokens);
    }
    return attn::attention_layer_step(v.attentions[l], layer_, tokens);
}

void ModelWindow::updateView() {
    if (!tokens_) return;
    const ModelSession::View& v = session_->view();
    const int n = static_cast<int>(v.tokens.size());
    tokenCount_->setText(tr("%n tokens", nullptr, n));
    tokens_->setTokens(v.tokens, v.ids);
    tokens_->setGenerated(v.promptTokens);
    const bool ready = !v.attentions.empty() && !v.attentions.front().empty();
    updateEncoderControls();
    if (ready && session_->encoder() && v.segments.size() == v.ids.size() &&
        static_cast<Eigen::Index>(v.ids.size()) == v.attentions.front().front().rows())
        mosaic_->setAttentions(
            attn::encoder_attentions(v.attentions, v.segments, v.special, encoderOptions()));
    else
        mosaic_->setAttentions(ready ? v.attentions : std::vector<std::vector<attn::Matrix>>{});
    mosaic_->setKvHeads(session_->model().weights
                            ? static_cast<int>(session_->model().weights->spec.num_kv_heads)
                            : 0);
    if (ready && !leftSplitSized_) {
        // The mosaic as tall as its heads need (at most half), the neuron view below.
        leftSplitSized_ = true;
        QTimer::singleShot(0, this, [this] {
            const int height = leftSplit_->height();
            const int wanted = std::min(height / 2, mosaic_->heightForWidth(mosaic_->width()) + 8);
            leftSplit_->setSizes({wanted, height - wanted});
        });
    }
    if (ready) {
        layer_ = std::min(layer_, static_cast<int>(v.attentions.size()) - 1);
        head_ = std::min(head_, static_cast<int>(v.attentions.front().size()) - 1);
        mosaic_->setSelected(layer_, head_);
    }
    std::vector<views::NextToken> next;
    if (session_->model().tokenizer)
        for (const attn::TopToken& t : v.nextTokens)
            next.push_back({session_->model().tokenizer->displayToken(t.id), t.id, t.prob});
    chart_->setPredictions(next);
    tabs_->setTabEnabled(2, session_->source() == ModelSession::Source::Model);
    updateHeadPage();
    updateLines();
    updateGenerationControls();
}

void ModelWindow::updateHeadPage() {
    const ModelSession::View& v = session_->view();
    if (v.attentions.empty() || v.attentions.front().empty() ||
        v.attentions.front().front().rows() == 0) {
        delete headPage_;
        headPage_ = nullptr;
        return;
    }
    attn::Step step;
    try {
        step = layerStep();
    } catch (const std::exception& e) {
        showMessage(QString::fromUtf8(e.what()), true);
        return;
    }
    if (session_->encoder() && v.segments.size() == v.ids.size() &&
        static_cast<Eigen::Index>(v.ids.size()) == v.attentions.front().front().rows()) {
        try {
            step = attn::encoder_layer_step(step, v.segments, v.special, encoderOptions());
        } catch (const std::exception& e) {
            showMessage(QString::fromUtf8(e.what()), true);
        }
    }
    // The chosen head alone, with the operands its hover arithmetic reads.
    const attn::StepMatrix kept = step.matrices.at(static_cast<std::size_t>(head_));
    step.matrices = {kept};
    auto* page = new views::StepPage(std::move(step), headTab_);
    page->setFitToHeight(true);
    page->setSmallestFitScale(0.8);
    delete headPage_;
    headTab_->layout()->addWidget(page);
    headPage_ = page;
    neuronPinned_ = false;
    connectHeadPage();
    refreshNeuron();
}

void ModelWindow::updateLines() {
    const ModelSession::View& v = session_->view();
    if (v.attentions.empty()) {
        lines_->setData({}, {}, {});
        return;
    }
    const auto& layer = v.attentions[static_cast<std::size_t>(layer_)];
    QStringList keys = v.tokens;
    while (keys.size() < layer.front().cols()) keys << QString::number(keys.size() + 1);
    QStringList queries = keys.mid(keys.size() - static_cast<int>(layer.front().rows()));
    lines_->setData(queries, keys, layer);
    for (int h = 0; h < lines_->headCount(); ++h) lines_->setHeadVisible(h, h == head_);
}

void ModelWindow::updateGenerationControls() {
    const bool model = session_->source() == ModelSession::Source::Model;
    const ModelSession::View& v = session_->view();
    const bool encoder = session_->encoder();
    const bool canStart = model && !encoder && !v.ids.empty() && session_->error().isEmpty();
    const QString why =
        encoder ? tr("An encoder reads the whole text at once, every token seeing every other: "
                     "it fills in masked tokens (the Masked LM tab) instead of generating.")
                : QString();
    for (QPushButton* b : {generate_, generateMany_}) b->setToolTip(why);
    for (QWidget* w : std::initializer_list<QWidget*>{generate_, generateMany_})
        w->setEnabled(canStart);
    generateAction_->setEnabled(canStart);
    generateManyAction_->setEnabled(canStart);
    stop_->setEnabled(session_->generating());
    stopAction_->setEnabled(session_->generating());
    const bool generated = static_cast<int>(v.ids.size()) > v.promptTokens;
    reset_->setEnabled(model && generated);
    resetAction_->setEnabled(model && generated);
    for (QWidget* w : std::initializer_list<QWidget*>{generate_, generateMany_, stop_, reset_})
        w->setVisible(model);
    if (!model) {
        cacheLabel_->setText(session_->source() == ModelSession::Source::Dump
                                 ? tr("An attention dump holds only the weights: the hover "
                                      "shows each weight, not its q·k arithmetic.")
                                 : QString());
        return;
    }
    if (encoder) {
        cacheLabel_->setText(why);
        return;
    }
    if (!generated || !session_->model().weights) {
        cacheLabel_->setText(
            tr("Generate: each new token is one new attention row per head, "
               "read against the kv_cache of the tokens before it."));
        return;
    }
    const attn::TransformerSpec& s = session_->model().weights->spec;
    const int newTokens = static_cast<int>(v.ids.size()) - v.promptTokens;
    QString text = tr("%n generated, ", nullptr, newTokens) +
                   tr("kv_cache: %1 tokens × %2 layers × %3 K/V heads × head_dim %4 × 2 (K and "
                      "V) × 4 bytes = %5")
                       .arg(v.ids.size())
                       .arg(s.num_layers)
                       .arg(s.num_kv_heads)
                       .arg(s.head_dim)
                       .arg(bytesText(v.cacheBytes));
    if (v.cachedVsFull >= 0.0f)
        text += tr(" · cached rows vs one full pass: max |difference| %1")
                    .arg(views::shortestText(v.cachedVsFull));
    cacheLabel_->setText(text);
}

void ModelWindow::updateTextPlaceholder() {
    text_->setPlaceholderText(session_->source() == ModelSession::Source::Dump
                                  ? tr("An attention dump: its tokens and weights are the file's")
                                  : tr("Type a text: the model runs on it as you type"));
}

void ModelWindow::showMessage(const QString& message, bool error) {
    lastMessage_ = message;
    statusBar()->showMessage(message, error ? 0 : 6000);
    errorBanner_->setText(message);
    errorBanner_->setVisible(error);
}

void ModelWindow::openModelWithDialog() {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Open a model folder"),
                                                             attn::huggingFaceHubCache());
    if (!folder.isEmpty()) openModel(folder);
}

void ModelWindow::openGgufWithDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a GGUF model file"),
                                                      QDir::homePath(), tr("GGUF models (*.gguf)"));
    if (!path.isEmpty()) openModel(path);
}

void ModelWindow::openDumpWithDialog() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open an attention dump"), QDir::homePath(),
                                     tr("Attention dumps (*.npy *.safetensors)"));
    if (!path.isEmpty()) openDump(path);
}

QString ModelWindow::shownError() const {
    return errorBanner_->isHidden() ? QString() : errorBanner_->text();
}
