// ModelWindow's pages: the welcome page (how to get a model, the Hugging Face cache, the recent
// ones), the loading page and the model page (the text, its tokens, the mosaic of every head, the
// head, lines and next-token tabs, and the generation controls).
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <utility>

#include "app/gui/model_window.h"
#include "views/explore_lines_view.h"
#include "views/model_heads_mosaic.h"
#include "views/neuron_view.h"
#include "views/next_token_chart.h"
#include "views/token_strip.h"

namespace {

// The text typed stops changing for this long before the forward pass runs.
constexpr int kTypingPauseMs = 200;

}  // namespace

QWidget* ModelWindow::buildWelcomePage() {
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(24, 24, 24, 24);
    welcomeText_ = new QLabel(page);
    welcomeText_->setWordWrap(true);
    welcomeText_->setTextFormat(Qt::RichText);
    welcomeText_->setTextInteractionFlags(Qt::TextBrowserInteraction);
    welcomeText_->setOpenExternalLinks(true);
    layout->addWidget(welcomeText_);
    auto* buttons = new QHBoxLayout;
    welcomeOpen_ = new QPushButton(page);
    welcomeDump_ = new QPushButton(page);
    connect(welcomeOpen_, &QPushButton::clicked, this, &ModelWindow::openModelWithDialog);
    connect(welcomeDump_, &QPushButton::clicked, this, &ModelWindow::openDumpWithDialog);
    buttons->addWidget(welcomeOpen_);
    buttons->addWidget(welcomeDump_);
    buttons->addStretch();
    layout->addLayout(buttons);
    auto* lists = new QHBoxLayout;
    auto list = [&](QLabel** heading, QListWidget** widget) {
        auto* column = new QVBoxLayout;
        *heading = new QLabel(page);
        *widget = new QListWidget(page);
        column->addWidget(*heading);
        column->addWidget(*widget);
        lists->addLayout(column);
        // Double click or Enter opens the entry; its data is the folder or file.
        connect(*widget, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
            if (!(item->flags() & Qt::ItemIsEnabled)) return;
            const QString path = item->data(Qt::UserRole).toString();
            if (path.endsWith(QLatin1String(".npy")) ||
                path.endsWith(QLatin1String(".safetensors")))
                openDump(path);
            else
                openModel(path);
        });
    };
    list(&cachedHeading_, &cached_);
    list(&recentHeading_, &recent_);
    layout->addLayout(lists, 1);
    return page;
}

QWidget* ModelWindow::buildLoadingPage() {
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->addStretch();
    loadingText_ = new QLabel(page);
    loadingText_->setAlignment(Qt::AlignCenter);
    progress_ = new QProgressBar(page);
    progress_->setRange(0, 1000);
    progress_->setMinimumWidth(480);  // wide enough to see it move on a projector
    progress_->setMaximumWidth(600);
    cancel_ = new QPushButton(page);
    connect(cancel_, &QPushButton::clicked, session_, &ModelSession::cancelLoad);
    layout->addWidget(loadingText_);
    layout->addWidget(progress_, 0, Qt::AlignHCenter);
    layout->addWidget(cancel_, 0, Qt::AlignHCenter);
    layout->addStretch();
    return page;
}

QWidget* ModelWindow::buildModelPage() {
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    summary_ = new QLabel(page);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary_);

    auto* textRow = new QHBoxLayout;
    textLabel_ = new QLabel(page);
    text_ = new QLineEdit(page);
    text_->setClearButtonEnabled(true);
    textLabel_->setBuddy(text_);
    tokenCount_ = new QLabel(page);
    textRow->addWidget(textLabel_);
    textRow->addWidget(text_, 1);
    textRow->addWidget(tokenCount_);
    layout->addLayout(textRow);
    layout->addWidget(buildPairRow(page));
    auto* typing = new QTimer(this);
    typing->setSingleShot(true);
    typing->setInterval(kTypingPauseMs);
    connect(text_, &QLineEdit::textEdited, typing, qOverload<>(&QTimer::start));
    connect(typing, &QTimer::timeout, this, [this] { setText(text_->text()); });

    tokens_ = new views::TokenStrip(page);
    layout->addWidget(tokens_);
    connect(tokens_, &views::TokenStrip::tokenClicked, this, [this](int index) {
        // An encoder: a click masks the token (or gives it back) for the masked LM.
        if (session_->encoder() && session_->toggleMask(index)) {
            tabs_->setCurrentIndex(MaskedLmTab);
            return;
        }
        if (lines_)
            lines_->setFocusToken(std::make_pair(views::ExploreLinesView::Side::Left, index));
        tokens_->setHighlighted(index);
    });

    splitter_ = new QSplitter(Qt::Horizontal, page);
    auto* left = new QWidget(splitter_);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    // The heading wraps on its own line; the colour range below it keeps its full width.
    mosaicHeading_ = new QLabel(left);
    mosaicHeading_->setWordWrap(true);
    leftLayout->addWidget(mosaicHeading_);
    auto* mosaicBar = new QHBoxLayout;
    rangeLabel_ = new QLabel(left);
    range_ = new QComboBox(left);
    range_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    rangeLabel_->setBuddy(range_);
    mosaicBar->addWidget(rangeLabel_);
    mosaicBar->addWidget(range_);
    mosaicBar->addStretch();
    leftLayout->addLayout(mosaicBar);
    // Encoders, on a row of their own (the colour range keeps its width on a laptop): which
    // sentence's queries and keys, and the special tokens shown or not.
    auto* encoderBar = new QHBoxLayout;
    pairFilterLabel_ = new QLabel(left);
    pairFilter_ = new QComboBox(left);
    pairFilter_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    pairFilterLabel_->setBuddy(pairFilter_);
    hideSpecials_ = new QCheckBox(left);
    encoderBar->addWidget(pairFilterLabel_);
    encoderBar->addWidget(pairFilter_);
    encoderBar->addSpacing(12);
    encoderBar->addWidget(hideSpecials_);
    encoderBar->addStretch();
    connect(pairFilter_, &QComboBox::activated, this, &ModelWindow::updateView);
    connect(hideSpecials_, &QCheckBox::toggled, this, &ModelWindow::updateView);
    leftLayout->addLayout(encoderBar);
    auto* mosaicScroll = new QScrollArea(left);
    mosaicScroll->setWidgetResizable(true);
    mosaic_ = new views::ModelHeadsMosaic(mosaicScroll);
    mosaicScroll->setWidget(mosaic_);
    // Below the mosaic, the neuron view of the head view's cell: beside the head it explains.
    leftSplit_ = new QSplitter(Qt::Vertical, left);
    leftSplit_->addWidget(mosaicScroll);
    neuron_ = new views::NeuronView(leftSplit_);
    leftSplit_->addWidget(neuron_);
    leftLayout->addWidget(leftSplit_, 1);
    connect(mosaic_, &views::ModelHeadsMosaic::headClicked, this,
            [this](int layer, int head) { selectHead(layer, head); });
    connect(range_, &QComboBox::activated, this, [this] {
        mosaic_->setRange(
            static_cast<views::ModelHeadsMosaic::Range>(range_->currentData().toInt()));
    });

    tabs_ = new QTabWidget(splitter_);
    // The page scrolls itself and shrinks to fit the tab's height, as in presentation mode.
    headTab_ = new QWidget(tabs_);
    auto* headLayout = new QVBoxLayout(headTab_);
    headLayout->setContentsMargins(0, 0, 0, 0);
    tabs_->addTab(headTab_, QString());
    lines_ = new views::ExploreLinesView(tabs_);
    tabs_->addTab(lines_, QString());
    chart_ = new views::NextTokenChart(tabs_);
    tabs_->addTab(chart_, QString());
    buildEncoderTabs();
    splitter_->addWidget(left);
    splitter_->addWidget(tabs_);
    splitter_->setStretchFactor(0, 2);
    splitter_->setStretchFactor(1, 3);
    layout->addWidget(splitter_, 1);

    auto* generation = new QHBoxLayout;
    generate_ = new QPushButton(page);
    generateMany_ = new QPushButton(page);
    stop_ = new QPushButton(page);
    reset_ = new QPushButton(page);
    cacheLabel_ = new QLabel(page);
    cacheLabel_->setWordWrap(true);
    connect(generate_, &QPushButton::clicked, this, [this] { session_->generate(1); });
    connect(generateMany_, &QPushButton::clicked, this,
            [this] { session_->generate(kGenerateMany); });
    connect(stop_, &QPushButton::clicked, session_, &ModelSession::stopGenerating);
    connect(reset_, &QPushButton::clicked, session_, &ModelSession::resetGeneration);
    for (QPushButton* b : {generate_, generateMany_, stop_, reset_}) generation->addWidget(b);
    generation->addWidget(cacheLabel_, 1);
    layout->addLayout(generation);
    return page;
}
