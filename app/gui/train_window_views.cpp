// TrainWindow's views: the controls, the charts, the heads, the guide, the sample and the
// timeline, and how each follows the session and the shown snapshot.
#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>
#include <string>

#include "app/gui/train_guide.h"
#include "app/gui/train_window.h"
#include "app/io/tokenizer.h"
#include "model/transformer.h"
#include "views/flow_layout.h"
#include "views/model_heads_mosaic.h"
#include "views/number_text.h"
#include "views/step_page.h"
#include "views/train_chart.h"

namespace {

// A label and its field, kept together when the controls wrap.
QWidget* labelled(QWidget* parent, QLabel* label, QWidget* field) {
    auto* box = new QWidget(parent);
    auto* row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    label->setBuddy(field);
    row->addWidget(label);
    row->addWidget(field);
    return box;
}

// While training runs, the large head follows the newest snapshot at most this often.
constexpr qint64 kHeadPageIntervalMs = 1000;

}  // namespace

QWidget* TrainWindow::buildControls() {
    auto* bar = new QWidget(this);
    auto* flow = new views::FlowLayout(bar, 16, 6);
    flow->setContentsMargins(0, 0, 0, 0);
    start_ = new QPushButton(bar);
    step_ = new QPushButton(bar);
    reset_ = new QPushButton(bar);
    save_ = new QPushButton(bar);
    connect(start_, &QPushButton::clicked, this, &TrainWindow::startOrPause);
    connect(step_, &QPushButton::clicked, this, [this] {
        following_ = true;
        session_->stepOnce();
    });
    connect(reset_, &QPushButton::clicked, this, &TrainWindow::resetTraining);
    connect(save_, &QPushButton::clicked, this, &TrainWindow::saveWithDialog);
    auto* buttons = new QWidget(bar);
    auto* buttonRow = new QHBoxLayout(buttons);
    buttonRow->setContentsMargins(0, 0, 0, 0);
    for (QPushButton* b : {start_, step_, reset_}) buttonRow->addWidget(b);
    flow->addWidget(buttons);

    taskLabel_ = new QLabel(bar);
    task_ = new QComboBox(bar);
    task_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(task_, &QComboBox::activated, this, &TrainWindow::chooseTask);
    flow->addWidget(labelled(bar, taskLabel_, task_));
    presetLabel_ = new QLabel(bar);
    preset_ = new QComboBox(bar);
    for (const std::string& name : attn::train_preset_names())
        preset_->addItem(QString::fromStdString(name));
    const int twoLayers = preset_->findText(QStringLiteral("attn-only-2l"));
    if (twoLayers >= 0) preset_->setCurrentIndex(twoLayers);
    connect(preset_, &QComboBox::activated, this, &TrainWindow::settingsEdited);
    flow->addWidget(labelled(bar, presetLabel_, preset_));
    seedLabel_ = new QLabel(bar);
    seed_ = new QSpinBox(bar);
    seed_->setRange(0, 999999);
    connect(seed_, &QSpinBox::valueChanged, this, &TrainWindow::settingsEdited);
    flow->addWidget(labelled(bar, seedLabel_, seed_));
    lrLabel_ = new QLabel(bar);
    lr_ = new QDoubleSpinBox(bar);
    lr_->setDecimals(4);
    lr_->setRange(0.0, 0.1);
    lr_->setSingleStep(0.0005);
    connect(lr_, &QDoubleSpinBox::valueChanged, this, &TrainWindow::settingsEdited);
    flow->addWidget(labelled(bar, lrLabel_, lr_));
    flow->addWidget(save_);
    status_ = new QLabel(bar);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    flow->addWidget(status_);
    return bar;
}

QWidget* TrainWindow::buildViews() {
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    splitter_ = new QSplitter(Qt::Horizontal, page);

    auto* charts = new QWidget(splitter_);
    auto* chartsLayout = new QVBoxLayout(charts);
    chartsLayout->setContentsMargins(0, 0, 0, 0);
    lossChart_ = new views::TrainChart(charts);
    previousChart_ = new views::TrainChart(charts);
    inductionChart_ = new views::TrainChart(charts);
    previousChart_->setValueRange(0.0, 1.0);
    inductionChart_->setValueRange(0.0, 1.0);
    chartsLayout->addWidget(lossChart_, 4);
    chartsLayout->addWidget(previousChart_, 3);
    chartsLayout->addWidget(inductionChart_, 3);

    // The heads: the small multiples above, the chosen head large below; the learner drags the
    // split (a short screen gives the large head little room otherwise).
    auto* heads = new QSplitter(Qt::Vertical, splitter_);
    headsSplitter_ = heads;
    connect(heads, &QSplitter::splitterMoved, this, [this] { userSplit_ = true; });
    auto* top = new QWidget(heads);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    headsHeading_ = new QLabel(top);
    headsHeading_->setWordWrap(true);
    topLayout->addWidget(headsHeading_);
    mosaic_ = new views::ModelHeadsMosaic(top);
    // One range for every head: uniform attention looks pale, a formed head bright.
    mosaic_->setRange(views::ModelHeadsMosaic::Range::Shared);
    connect(mosaic_, &views::ModelHeadsMosaic::headClicked, this, &TrainWindow::selectHead);
    topLayout->addWidget(mosaic_, 1);
    headPageTimer_ = new QTimer(this);
    headPageTimer_->setSingleShot(true);
    connect(headPageTimer_, &QTimer::timeout, this, &TrainWindow::updateHeadPage);
    headBox_ = new QWidget(heads);
    auto* headBoxLayout = new QVBoxLayout(headBox_);
    headBoxLayout->setContentsMargins(0, 0, 0, 0);
    heads->addWidget(top);
    heads->addWidget(headBox_);
    heads->setStretchFactor(0, 2);
    heads->setStretchFactor(1, 3);

    auto* side = new QWidget(splitter_);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    guide_ = new QTextBrowser(side);
    guide_->setOpenLinks(false);
    sideLayout->addWidget(guide_, 3);
    sampleHeading_ = new QLabel(side);
    sample_ = new QPlainTextEdit(side);
    sample_->setReadOnly(true);
    sideLayout->addWidget(sampleHeading_);
    sideLayout->addWidget(sample_, 2);

    splitter_->addWidget(charts);
    splitter_->addWidget(heads);
    splitter_->addWidget(side);
    splitter_->setStretchFactor(0, 3);
    splitter_->setStretchFactor(1, 4);
    splitter_->setStretchFactor(2, 2);
    layout->addWidget(splitter_, 1);
    connect(splitter_, &QSplitter::splitterMoved, this, [this] { userSplit_ = true; });

    auto* timelineRow = new QHBoxLayout;
    timelineHeading_ = new QLabel(page);
    timeline_ = new QSlider(Qt::Horizontal, page);
    timeline_->setRange(0, 0);
    timelineHeading_->setBuddy(timeline_);
    timelineLabel_ = new QLabel(page);
    connect(timeline_, &QSlider::valueChanged, this, &TrainWindow::showSnapshot);
    timelineRow->addWidget(timelineHeading_);
    timelineRow->addWidget(timeline_, 1);
    timelineRow->addWidget(timelineLabel_);
    layout->addLayout(timelineRow);
    return page;
}

void TrainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (splitsSized_) return;
    splitsSized_ = true;
    // Once the window has its size: the mosaic as tall as its thumbnails need, the large head
    // the rest (the learner's dragging is kept after that).
    QTimer::singleShot(0, this, &TrainWindow::sizeSplits);
}

void TrainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    // The window may be fitted to the screen after it is shown: the splits follow until the
    // learner drags one.
    if (splitsSized_ && !userSplit_) QTimer::singleShot(0, this, &TrainWindow::sizeSplits);
}

void TrainWindow::sizeSplits() {
    const int width = splitter_->width();
    splitter_->setSizes({width * 4 / 10, width * 4 / 10, width - width * 8 / 10});
    // The mosaic whole, in at most half the column's height: on a short screen its thumbnails
    // get narrower rather than cut off; the large head takes the rest.
    const int height = headsSplitter_->height();
    const int heading = headsHeading_->heightForWidth(width * 4 / 10) + 8;
    int mosaicWidth = width * 4 / 10;
    while (mosaicWidth > 160 && heading + mosaic_->heightForWidth(mosaicWidth) > height / 2)
        mosaicWidth -= 16;
    mosaic_->setMaximumWidth(mosaicWidth);
    const int top = heading + mosaic_->heightForWidth(mosaicWidth);
    headsSplitter_->setSizes({top, height - top});
    sizedLayers_ = mosaic_->layerCount();
}

void TrainWindow::onResetDone() {
    lossPoints_ = 0;
    lossChart_->setSeries({views::TrainChart::Series{tr("loss"), 0, 0, {}, {}}});
    layer_ = std::clamp(layer_, 0, std::max(0, static_cast<int>(session_->spec().num_layers) - 1));
    head_ = std::clamp(head_, 0, std::max(0, static_cast<int>(session_->spec().num_heads) - 1));
    shown_ = 0;
    following_ = true;
    headPageSnapshot_ = nullptr;
    mosaicSnapshot_.reset();
    stepsPerSecond_ = 0.0;
    onProgressed();
    // A model with another number of layers wants another height for its mosaic.
    if (splitsSized_ && sizedLayers_ != mosaic_->layerCount())
        QTimer::singleShot(0, this, &TrainWindow::sizeSplits);
}

void TrainWindow::onProgressed() {
    const auto& snapshots = session_->snapshots();
    const int last = static_cast<int>(snapshots.size()) - 1;
    if (following_ || shown_ > last) {
        shown_ = last;
    } else if (shown_ >= 0 && mosaicSnapshot_) {
        // Old snapshots thin out as the run grows: keep the shown step, or the one before it.
        const std::int64_t step = mosaicSnapshot_->step;
        int index = 0;
        for (int i = 0; i <= last; ++i)
            if (snapshots[static_cast<std::size_t>(i)]->step <= step) index = i;
        shown_ = index;
    }
    if (session_->running()) {
        const qint64 ms = QDateTime::currentMSecsSinceEpoch() - rateStartMs_;
        if (ms > 500)
            stepsPerSecond_ = static_cast<double>(session_->stepsDone() - rateStartStep_) * 1000.0 /
                              static_cast<double>(ms);
    }
    updateCharts();
    updateScoreCharts();
    updateSnapshotViews();
    updateControls();
}

void TrainWindow::updateCharts() {
    const std::vector<float>& losses = session_->losses();
    if (static_cast<int>(losses.size()) < lossPoints_) lossPoints_ = 0;
    std::vector<double> steps, values;
    for (std::size_t i = static_cast<std::size_t>(lossPoints_); i < losses.size(); ++i) {
        steps.push_back(static_cast<double>(i + 1));
        values.push_back(losses[i]);
    }
    lossChart_->appendPoints(0, steps, values);
    lossPoints_ = static_cast<int>(losses.size());
}

void TrainWindow::updateScoreCharts() {
    if (!session_->ready()) {
        previousChart_->setSeries({});
        inductionChart_->setSeries({});
        return;
    }
    std::vector<views::TrainChart::Series> previous, induction;
    for (const auto& snapshot : session_->snapshots())
        for (std::size_t i = 0; i < snapshot->scores.size(); ++i) {
            const attn::HeadScore& h = snapshot->scores[i];
            if (previous.size() <= i) {
                const int layer = static_cast<int>(h.layer), head = static_cast<int>(h.head);
                const QString name = tr("L%1 H%2").arg(layer + 1).arg(head + 1);
                previous.push_back({name, layer, head, {}, {}});
                induction.push_back({name, layer, head, {}, {}});
            }
            const auto step = static_cast<double>(snapshot->step);
            previous[i].steps.push_back(step);
            previous[i].values.push_back(h.previous_token_score);
            induction[i].steps.push_back(step);
            induction[i].values.push_back(h.induction_score);
        }
    previousChart_->setSeries(previous);
    inductionChart_->setSeries(induction);
}

void TrainWindow::showSnapshot(int index) {
    const int last = static_cast<int>(session_->snapshots().size()) - 1;
    if (last < 0) return;
    shown_ = std::clamp(index, 0, last);
    following_ = shown_ == last;
    updateSnapshotViews();
}

void TrainWindow::selectHead(int layer, int head) {
    layer_ = std::clamp(layer, 0, std::max(0, static_cast<int>(session_->spec().num_layers) - 1));
    head_ = std::clamp(head, 0, std::max(0, static_cast<int>(session_->spec().num_heads) - 1));
    mosaic_->setSelected(layer_, head_);
    headPageSnapshot_ = nullptr;
    updateHeadPage();
}

void TrainWindow::updateSnapshotViews() {
    const auto& snapshots = session_->snapshots();
    const int count = static_cast<int>(snapshots.size());
    {
        const QSignalBlocker block(timeline_);
        timeline_->setRange(0, std::max(0, count - 1));
        timeline_->setValue(std::max(0, shown_));
    }
    if (shown_ < 0 || shown_ >= count) {
        timelineLabel_->setText(QString());
        mosaicSnapshot_.reset();
        mosaic_->setAttentions({});
        for (views::TrainChart* c : {lossChart_, previousChart_, inductionChart_})
            c->setMarker(-1.0);
        updateHeadPage();
        updateSample();
        updateGuide();
        return;
    }
    const TrainSession::Snapshot& s = *snapshots[static_cast<std::size_t>(shown_)];
    timelineLabel_->setText(
        tr("step %1 (snapshot %2 of %3)").arg(s.step).arg(shown_ + 1).arg(count));
    if (mosaicSnapshot_ != snapshots[static_cast<std::size_t>(shown_)]) {
        mosaicSnapshot_ = snapshots[static_cast<std::size_t>(shown_)];
        mosaic_->setAttentions(s.attentions);
        mosaic_->setSelected(layer_, head_);
    }
    for (views::TrainChart* c : {lossChart_, previousChart_, inductionChart_})
        c->setMarker(static_cast<double>(s.step));
    updateHeadPage();
    updateSample();
    updateGuide();
}

void TrainWindow::updateHeadPage() {
    const auto& snapshots = session_->snapshots();
    if (shown_ < 0 || shown_ >= static_cast<int>(snapshots.size())) {
        delete headPage_;
        headPage_ = nullptr;
        headPageSnapshot_ = nullptr;
        return;
    }
    const std::shared_ptr<const TrainSession::Snapshot>& shown =
        snapshots[static_cast<std::size_t>(shown_)];
    const TrainSession::Snapshot& s = *shown;
    if (headPageSnapshot_ == shown && headPage_) return;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (session_->running() && headPage_ && now - headPageBuiltMs_ < kHeadPageIntervalMs) {
        if (!headPageTimer_->isActive())
            headPageTimer_->start(static_cast<int>(kHeadPageIntervalMs - (now - headPageBuiltMs_)));
        return;
    }
    const auto l = static_cast<std::size_t>(layer_);
    if (l >= s.attentions.size()) return;
    std::vector<std::string> tokens;
    for (const QString& t : session_->probeTokens()) tokens.push_back(t.toStdString());
    // The layer's weights with the same pass's queries and keys: hovering a cell gives q·k,
    // /√head_dim and the softmax with the model's numbers at this step.
    attn::ModelForwardResult layer;
    layer.attentions.resize(l + 1);
    layer.attentions[l] = s.attentions[l];
    if (l < s.queries.size() && l < s.keys.size()) {
        layer.queries.resize(l + 1);
        layer.keys.resize(l + 1);
        layer.queries[l] = s.queries[l];
        layer.keys[l] = s.keys[l];
    }
    attn::Step step;
    try {
        step = attn::model_layer_step(layer, session_->spec(), layer_, tokens);
    } catch (const std::exception& e) {
        showMessage(QString::fromUtf8(e.what()), true);
        return;
    }
    const attn::StepMatrix kept = step.matrices.at(static_cast<std::size_t>(head_));
    step.matrices = {kept};
    auto* page = new views::StepPage(std::move(step), headBox_);
    // Beside the charts the heatmap shrinks to fit (its colours are the lesson, hovering gives
    // each number), but the texts stay readable (0.45 gave 5-point text even at 1920×1080); the
    // guide beside it explains the matrix, so the page's own explanation is left out.
    page->setExplanationShown(false);
    page->setSmallestTextScale(0.9);
    page->setFitToHeight(true);
    page->setSmallestFitScale(0.45);
    delete headPage_;
    headBox_->layout()->addWidget(page);
    page->show();
    headPage_ = page;
    headPageSnapshot_ = shown;
    headPageBuiltMs_ = now;
}

void TrainWindow::updateSample() {
    const bool text = session_->settings().task == attn::TrainTask::Text;
    sampleHeading_->setVisible(text);
    sample_->setVisible(text);
    if (!text) return;
    const auto& snapshots = session_->snapshots();
    const std::int64_t step = shown_ >= 0 && shown_ < static_cast<int>(snapshots.size())
                                  ? snapshots[static_cast<std::size_t>(shown_)]->step
                                  : 0;
    const TrainSession::Sample* latest = nullptr;
    for (const TrainSession::Sample& s : session_->samples())
        if (s.step <= step) latest = &s;
    const QString shown =
        latest ? tr("After %1 steps, from “%2”:\n%2%3")
                     .arg(latest->step)
                     .arg(latest->prompt, latest->text)
               : tr("A sample follows every %1 steps.").arg(TrainSession::kSampleEvery);
    if (sample_->toPlainText() != shown) sample_->setPlainText(shown);
}

void TrainWindow::updateGuide() {
    const QString html = trainGuideHtml(*session_, shown_, keyboardShortcuts());
    if (guide_->property("html").toString() == html) return;
    guide_->setProperty("html", html);
    guide_->setHtml(html);
}

void TrainWindow::updateControls() {
    const bool ready = session_->ready();
    const bool running = session_->running();
    start_->setText(running ? tr("Pause") : tr("Start"));
    start_->setToolTip(running ? tr("Pause training (Space)") : tr("Start training (Space)"));
    start_->setEnabled(ready);
    startAction_->setEnabled(ready);
    step_->setEnabled(ready);
    stepAction_->setEnabled(ready);
    save_->setEnabled(ready);
    saveAction_->setEnabled(ready);
    updateStatus();
}

void TrainWindow::updateStatus() {
    if (!session_->ready()) {
        status_->setText(tr("Building the model…"));
        return;
    }
    const attn::TransformerSpec& spec = session_->spec();
    QString text = tr("%1 layers × %2 heads, d_model %3 · step %4")
                       .arg(spec.num_layers)
                       .arg(spec.num_heads)
                       .arg(spec.d_model)
                       .arg(session_->stepsDone());
    if (!session_->losses().empty())
        text += tr(" · loss %1").arg(views::fixedText(session_->losses().back(), 3));
    if (session_->running() && stepsPerSecond_ > 0.0)
        text += tr(" · %1 steps/s").arg(views::fixedText(stepsPerSecond_, 0));
    status_->setText(text);
}
