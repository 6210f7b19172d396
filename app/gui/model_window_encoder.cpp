// ModelWindow's encoder parts (BERT, DistilBERT, RoBERTa): the "Sentence B" field, the pair
// filter and the [CLS]/[SEP] switch of the mosaic and the head view, the neuron view of a cell,
// the masked LM's fillers for a [MASK] and the padded batch of the two sentences. The records
// come from model/encoder_views.h and the session; this file only places and fills widgets.
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "app/gui/model_window.h"
#include "views/heatmap_widget.h"
#include "views/model_heads_mosaic.h"
#include "views/neuron_view.h"
#include "views/next_token_chart.h"
#include "views/number_text.h"
#include "views/step_page.h"
#include "views/token_strip.h"

namespace {

constexpr int kTypingPauseMs = 200;

QStringList shownTokens(const QStringList& tokens, const std::vector<int>& mask) {
    QStringList out = tokens;
    for (std::size_t i = static_cast<std::size_t>(out.size()); i < mask.size(); ++i)
        out << QStringLiteral("[PAD]");
    return out;
}

}  // namespace

QWidget* ModelWindow::buildPairRow(QWidget* page) {
    pairRow_ = new QWidget(page);
    auto* row = new QHBoxLayout(pairRow_);
    row->setContentsMargins(0, 0, 0, 0);
    pairLabel_ = new QLabel(pairRow_);
    pair_ = new QLineEdit(pairRow_);
    pair_->setClearButtonEnabled(true);
    pairLabel_->setBuddy(pair_);
    row->addWidget(pairLabel_);
    row->addWidget(pair_, 1);
    auto* typing = new QTimer(this);
    typing->setSingleShot(true);
    typing->setInterval(kTypingPauseMs);
    connect(pair_, &QLineEdit::textEdited, typing, qOverload<>(&QTimer::start));
    connect(typing, &QTimer::timeout, this, [this] { setPair(pair_->text()); });
    pairRow_->hide();
    return pairRow_;
}

void ModelWindow::buildEncoderTabs() {
    maskedLmTab_ = new QWidget(tabs_);
    auto* lm = new QVBoxLayout(maskedLmTab_);
    maskedLmText_ = new QLabel(maskedLmTab_);
    maskedLmText_->setWordWrap(true);
    lm->addWidget(maskedLmText_);
    auto* which = new QHBoxLayout;
    maskPositionLabel_ = new QLabel(maskedLmTab_);
    maskPosition_ = new QComboBox(maskedLmTab_);
    maskPosition_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    maskPositionLabel_->setBuddy(maskPosition_);
    which->addWidget(maskPositionLabel_);
    which->addWidget(maskPosition_);
    which->addStretch();
    lm->addLayout(which);
    fillers_ = new views::NextTokenChart(maskedLmTab_);
    fillers_->setMeaning(views::NextTokenChart::Meaning::MaskFiller);
    lm->addWidget(fillers_, 1);
    connect(maskPosition_, &QComboBox::activated, this, [this] { updateFillers(); });
    tabs_->addTab(maskedLmTab_, QString());

    auto* scroll = new QScrollArea(tabs_);
    scroll->setWidgetResizable(true);
    paddingTab_ = new QWidget(scroll);
    auto* pad = new QVBoxLayout(paddingTab_);
    paddingIntro_ = new QLabel(paddingTab_);
    paddingIntro_->setWordWrap(true);
    pad->addWidget(paddingIntro_);
    // The check's result before the matrices it is about, so it is read without scrolling.
    paddingText_ = new QLabel(paddingTab_);
    paddingText_->setWordWrap(true);
    paddingText_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    pad->addWidget(paddingText_);
    paddingMaskCaption_ = new QLabel(paddingTab_);
    pad->addWidget(paddingMaskCaption_);
    paddingMask_ = new views::HeatmapWidget(paddingTab_);
    paddingMask_->setMinimumHeight(150);
    pad->addWidget(paddingMask_);
    for (int b = 0; b < 2; ++b) {
        paddedCaption_[b] = new QLabel(paddingTab_);
        paddedCaption_[b]->setWordWrap(true);
        pad->addWidget(paddedCaption_[b]);
        padded_[b] = new views::HeatmapWidget(paddingTab_);
        padded_[b]->setMinimumHeight(320);
        pad->addWidget(padded_[b]);
    }
    pad->addStretch();
    scroll->setWidget(paddingTab_);
    tabs_->addTab(scroll, QString());
    connect(session_, &ModelSession::paddingChanged, this, &ModelWindow::updatePadding);
}

void ModelWindow::retranslateEncoder() {
    pairLabel_->setText(tr("Sentence &B:"));
    pair_->setPlaceholderText(
        tr("Optional second sentence: the model reads “[CLS] text [SEP] sentence B [SEP]”"));
    pairFilterLabel_->setText(tr("Sentence pair, queries → keys:"));
    const int filter = pairFilter_->currentIndex();
    pairFilter_->clear();
    pairFilter_->addItem(tr("All"), static_cast<int>(attn::PairFilter::All));
    pairFilter_->addItem(tr("A → A"), static_cast<int>(attn::PairFilter::AToA));
    pairFilter_->addItem(tr("A → B"), static_cast<int>(attn::PairFilter::AToB));
    pairFilter_->addItem(tr("B → A"), static_cast<int>(attn::PairFilter::BToA));
    pairFilter_->addItem(tr("B → B"), static_cast<int>(attn::PairFilter::BToB));
    pairFilter_->setCurrentIndex(std::max(0, filter));
    pairFilter_->setToolTip(
        tr("Which cells to show: queries of one sentence (rows) attending to "
           "keys of one sentence (columns). A includes [CLS] and its [SEP]."));
    hideSpecials_->setToolTip(
        tr("Many heads park their weight on [CLS] and [SEP]. Hiding them removes their rows and "
           "columns and divides each remaining row by its sum, so it adds up to 1 again."));
    tabs_->setTabText(MaskedLmTab, tr("Masked LM"));
    tabs_->setTabText(PaddingTab, tr("Padding"));
    paddingIntro_->setText(
        tr("A batch holds sequences of one length: the shorter sentence is padded with [PAD] "
           "and attention_mask (1 real token, 0 padding) keeps every query's weight off the "
           "padding keys. Its weights on the real tokens are then those of the sentence alone."));
    paddingMaskCaption_->setText(tr("attention_mask of the batch (rows: sentence A, sentence B)"));
}

void ModelWindow::setPair(const QString& pair) {
    if (pair_->text() != pair) pair_->setText(pair);
    session_->setPair(pair);
}

attn::EncoderViewOptions ModelWindow::encoderOptions() const {
    attn::EncoderViewOptions options;
    if (!session_->encoder()) return options;
    if (!session_->pair().trimmed().isEmpty() && pairFilter_->currentIndex() >= 0)
        options.filter = static_cast<attn::PairFilter>(pairFilter_->currentData().toInt());
    options.hide_specials = hideSpecials_->isChecked();
    return options;
}

void ModelWindow::updateEncoderControls() {
    const bool encoder = session_->encoder();
    pairRow_->setVisible(session_->hasPairTemplate());
    const bool paired = session_->hasPairTemplate() && !session_->pair().trimmed().isEmpty();
    pairFilterLabel_->setVisible(encoder);
    pairFilter_->setVisible(encoder);
    pairFilter_->setEnabled(paired);
    hideSpecials_->setVisible(encoder);
    const bool model = session_->source() == ModelSession::Source::Model;
    tabs_->setTabVisible(NextTokenTab, !encoder);
    neuron_->setVisible(model);
    tabs_->setTabVisible(MaskedLmTab, encoder);
    tabs_->setTabVisible(PaddingTab, encoder);
    // The template's own special tokens and mask token by name: [CLS]/[SEP] for BERT, <s>/</s>
    // and <mask> for RoBERTa.
    QStringList specials;
    const ModelSession::View& v = session_->view();
    for (std::size_t t = 0; t < v.special.size(); ++t)
        if (v.special[t] && !specials.contains(v.tokens.value(static_cast<int>(t))))
            specials << v.tokens.value(static_cast<int>(t));
    hideSpecials_->setText(tr("Hide %1").arg(specials.isEmpty() ? QStringLiteral("[CLS]/[SEP]")
                                                                : specials.join(QLatin1Char('/'))));
    if (encoder) {
        const std::optional<int> mask =
            session_->model().tokenizer ? session_->model().tokenizer->maskId() : std::nullopt;
        maskedLmText_->setText(
            mask ? tr("Type %1 in the text, or click a token in the strip above to mask it (click "
                      "again to give it back): the model's most likely fillers for that position.")
                       .arg(session_->model().tokenizer->displayToken(*mask))
                 : tr("This tokenizer has no mask token: the model cannot fill one in."));
        maskPositionLabel_->setText(tr("%1 at:").arg(
            mask ? session_->model().tokenizer->displayToken(*mask) : QStringLiteral("[MASK]")));
    }
    updateFillers();
    updatePadding();
}

int ModelWindow::shownMaskPosition() const {
    if (maskPosition_->count() == 0) return -1;
    return maskPosition_->currentData().toInt();
}

void ModelWindow::updateFillers() {
    const ModelSession::View& v = session_->view();
    // The positions the model predicted, kept selected across passes when still there.
    const int previous = shownMaskPosition();
    const int clicked =
        session_->maskedPositions().empty() ? -1 : session_->maskedPositions().back();
    maskPosition_->clear();
    int select = 0;
    for (std::size_t i = 0; i < v.maskPredictions.size(); ++i) {
        const int position = static_cast<int>(v.maskPredictions[i].position);
        const QString original = v.unmaskedTokens.value(position);
        const bool clickedHere = original != v.tokens.value(position);
        maskPosition_->addItem(clickedHere
                                   ? tr("token %1 (was “%2”)").arg(position + 1).arg(original)
                                   : tr("token %1").arg(position + 1),
                               position);
        if (position == clicked) select = static_cast<int>(i);
    }
    for (int i = 0; i < maskPosition_->count(); ++i)
        if (maskPosition_->itemData(i).toInt() == previous && clicked < 0) select = i;
    if (maskPosition_->count() > 0) maskPosition_->setCurrentIndex(select);
    maskPositionLabel_->setVisible(maskPosition_->count() > 0);
    maskPosition_->setVisible(maskPosition_->count() > 0);
    std::vector<views::NextToken> fillers;
    const int position = shownMaskPosition();
    for (const attn::MaskPrediction& p : v.maskPredictions)
        if (static_cast<int>(p.position) == position && session_->model().tokenizer)
            for (const attn::TopToken& t : p.top)
                fillers.push_back({session_->model().tokenizer->displayToken(t.id), t.id,
                                   static_cast<double>(t.prob)});
    fillers_->setPredictions(fillers);
}

views::HeatmapWidget* ModelWindow::paddedHeatmap(int sequence) const {
    return sequence == 0 || sequence == 1 ? padded_[sequence] : nullptr;
}

void ModelWindow::updatePadding() {
    const std::shared_ptr<const attn::PaddingCheck> check = session_->paddingCheck();
    const bool shown = check && check->batch.results.size() == 2;
    paddingMaskCaption_->setVisible(shown);
    paddingMask_->setVisible(shown);
    for (int b = 0; b < 2; ++b) {
        paddedCaption_[b]->setVisible(shown);
        padded_[b]->setVisible(shown);
    }
    if (!shown) {
        paddingText_->setText(session_->paddingProblem());
        return;
    }
    const attn::Tokenizer& tokenizer = *session_->model().tokenizer;
    const auto& batch = check->batch;
    const Eigen::Index length = static_cast<Eigen::Index>(batch.ids.front().size());
    attn::Matrix mask(2, length);
    QStringList positions;
    for (Eigen::Index t = 0; t < length; ++t) positions << QString::number(t + 1);
    QStringList lines;
    const QStringList names = {tr("Sentence A"), tr("Sentence B")};
    for (int b = 0; b < 2; ++b) {
        const auto& ids = batch.ids[static_cast<std::size_t>(b)];
        const auto& keep = batch.attention_mask[static_cast<std::size_t>(b)];
        QStringList tokens;
        for (int id : ids) tokens << tokenizer.displayToken(id);
        attn::BoolMatrix padding = attn::BoolMatrix::Constant(length, length, false);
        for (Eigen::Index t = 0; t < length; ++t) {
            mask(b, t) = static_cast<float>(keep[static_cast<std::size_t>(t)]);
            if (keep[static_cast<std::size_t>(t)] == 0) padding.col(t).setConstant(true);
        }
        const auto& attentions = batch.results[static_cast<std::size_t>(b)].attentions;
        const std::size_t l =
            std::min(static_cast<std::size_t>(selectedLayer()), attentions.size() - 1);
        const std::size_t h =
            std::min(static_cast<std::size_t>(selectedHead()), attentions[l].size() - 1);
        padded_[b]->setMatrix(attentions[l][h], shownTokens(tokens, keep),
                              shownTokens(tokens, keep), padding);
        padded_[b]->setValueRange(0.0, 1.0);
        padded_[b]->setAxisTitles(tr("queries"), tr("keys"));
        const std::size_t real = static_cast<std::size_t>(std::count(keep.begin(), keep.end(), 1));
        paddedCaption_[b]->setText(tr("%1 in the batch: layer %2 · head %3, %4 real tokens + %5 "
                                      "padding (hatched: keys the mask blocks)")
                                       .arg(names[b])
                                       .arg(l + 1)
                                       .arg(h + 1)
                                       .arg(real)
                                       .arg(keep.size() - real));
        lines << tr("%1: in the batch vs alone, max |difference| over every layer and head = %2; "
                    "largest weight on a padding key = %3")
                     .arg(names[b],
                          views::shortestText(check->max_abs_diff[static_cast<std::size_t>(b)]),
                          views::shortestText(check->padding_weight[static_cast<std::size_t>(b)]));
    }
    paddingMask_->setMatrix(mask, names, positions);
    paddingMask_->setValueRange(0.0, 1.0);
    paddingMask_->setDecimals(0);
    paddingText_->setText(lines.join(QLatin1Char('\n')));
}

int ModelWindow::positionOf(int shownIndex) const {
    const ModelSession::View& v = session_->view();
    if (!session_->encoder() || !hideSpecials_->isChecked()) return shownIndex;
    int seen = -1;
    for (std::size_t t = 0; t < v.special.size(); ++t)
        if (!v.special[t] && ++seen == shownIndex) return static_cast<int>(t);
    return -1;
}

void ModelWindow::showNeuron(int row, int column, bool pinned) {
    if (neuronPinned_ && !pinned) return;
    neuronPinned_ = pinned;
    const ModelSession::View& v = session_->view();
    const int query = positionOf(row), key = positionOf(column);
    if (!v.forward || !session_->model().weights || query < 0 || key < 0) return;
    try {
        const attn::NeuronView n = attn::neuron_view(*v.forward, session_->model().weights->spec,
                                                     selectedLayer(), selectedHead(), query, key);
        neuron_->setNeuron(n, v.tokens.value(query), v.tokens.value(key));
    } catch (const std::exception& e) {
        neuron_->clear();
        showMessage(QString::fromUtf8(e.what()), true);
    }
}

void ModelWindow::refreshNeuron() {
    // The same query and key, read again from the pass now shown (a new head, text or mask).
    const attn::NeuronView* shown = neuron_->neuron();
    const ModelSession::View& v = session_->view();
    if (!shown) return;
    const auto t = static_cast<Eigen::Index>(v.ids.size());
    if (!v.forward || !session_->model().weights || shown->query >= t || shown->key >= t ||
        v.forward->queries.size() <= static_cast<std::size_t>(layer_) ||
        v.forward->queries[static_cast<std::size_t>(layer_)].rows() != t) {
        neuron_->clear();
        return;
    }
    const Eigen::Index query = shown->query, key = shown->key;
    try {
        neuron_->setNeuron(attn::neuron_view(*v.forward, session_->model().weights->spec, layer_,
                                             head_, query, key),
                           v.tokens.value(static_cast<int>(query)),
                           v.tokens.value(static_cast<int>(key)));
    } catch (const std::exception&) {
        neuron_->clear();
    }
}

void ModelWindow::connectHeadPage() {
    if (!headPage_ || headPage_->heatmaps().isEmpty()) return;
    views::HeatmapWidget* map = headPage_->heatmaps().front();
    connect(map, &views::HeatmapWidget::cellHovered, this,
            [this](int row, int column) { showNeuron(row, column); });
    connect(map, &views::HeatmapWidget::cellClicked, this,
            [this](int row, int column) { showNeuron(row, column, true); });
}
