// The model window on the tiny BERT of tests/data/encoders/bert-tiny (BertForMaskedLM, random
// weights, 4 heads of head_dim 8, 2 layers): a sentence pair, the pair filter, [CLS]/[SEP]
// hidden, the neuron view, masking a token by a click and the padded batch. Every number the
// window shows is compared with a forward pass the test runs itself.
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTest>
#include <algorithm>
#include <cmath>

#include "app/gui/model_session.h"
#include "app/gui/model_window.h"
#include "model/transformer.h"
#include "views/heatmap_widget.h"
#include "views/model_heads_mosaic.h"
#include "views/neuron_view.h"
#include "views/next_token_chart.h"
#include "views/step_page.h"
#include "views/token_strip.h"
#include "window_test_settings.h"

namespace {

const QString kBertTiny = QStringLiteral(ATTN_ENCODER_DATA_DIR "/bert-tiny");
const QString kSentenceA = QStringLiteral("your journey starts");
const QString kSentenceB = QStringLiteral("with one step");

// The head page's one heatmap (the chosen head).
views::HeatmapWidget* headMap(const ModelWindow& w) {
    return w.headPage() ? w.headPage()->heatmaps().value(0) : nullptr;
}

}  // namespace

class TestEncoderWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { useTestSettings("encoder-window"); }
    void init() { QSettings().clear(); }

    void opensBertWithAPair();
    void pairFilterBlocksTheOtherCells();
    void hidingSpecialsRenormalisesRows();
    void neuronViewMatchesTheHoverArithmetic();
    void clickingATokenMasksItAndShowsItsFillers();
    void typedMaskGetsFillers();
    void paddedBatchEqualsEachSentenceAlone();

private:
    // The window with bert-tiny open on kSentenceA and, when paired, kSentenceB.
    bool open(ModelWindow& w, bool paired = true) {
        w.resize(1400, 900);
        w.show();
        w.openModel(kBertTiny);
        if (!w.session()->waitForIdle() || w.page() != ModelWindow::Page::Model) return false;
        w.setText(kSentenceA);
        if (paired) w.setPair(kSentenceB);
        return w.session()->waitForIdle();
    }
};

void TestEncoderWindow::opensBertWithAPair() {
    ModelWindow w;
    QVERIFY(open(w));
    QVERIFY2(w.shownError().isEmpty(), qPrintable(w.shownError()));
    const ModelSession& s = *w.session();
    QVERIFY(s.encoder());
    QVERIFY(s.hasPairTemplate());
    QVERIFY(w.pairEdit()->isVisibleTo(&w));
    QCOMPARE(w.hideSpecialsBox()->text(), QStringLiteral("Hide [CLS]/[SEP]"));
    // [CLS] A [SEP] B [SEP] with B's token_type_ids 1.
    const attn::TokenizedInput input = s.model().tokenizer->encodeInput(kSentenceA, kSentenceB);
    QCOMPARE(s.view().ids, input.ids);
    QCOMPARE(s.view().typeIds, input.typeIds);
    QCOMPARE(s.view().tokens.front(), QStringLiteral("[CLS]"));
    QCOMPARE(s.view().tokens.back(), QStringLiteral("[SEP]"));
    QCOMPARE(std::count(s.view().segments.begin(), s.view().segments.end(), 1),
             std::count(input.typeIds.begin(), input.typeIds.end(), 1));
    // The mosaic and the head view show the forward pass of those ids with their types.
    attn::ModelForwardOptions options;
    options.token_type_ids = input.typeIds;
    const attn::ModelForwardResult pass =
        attn::model_forward(*s.model().weights, input.ids, options);
    QCOMPARE(w.mosaic()->layerCount(), 2);
    QCOMPARE(w.mosaic()->headCount(), 4);
    views::HeatmapWidget* map = headMap(w);
    QVERIFY(map);
    for (int r = 0; r < map->rowCount(); ++r)
        for (int c = 0; c < map->columnCount(); ++c)
            QVERIFY(std::abs(map->inputValue(r, c) -
                             static_cast<double>(pass.attentions[0][0](r, c))) < 1e-6);
    // Bidirectional: no cell is masked without a filter.
    QCOMPARE(map->cellKind(0, map->columnCount() - 1), views::HeatmapWidget::CellKind::Value);
    // Decoder-only parts hidden or disabled, with the reason.
    QVERIFY(!w.viewTabs()->isTabVisible(ModelWindow::NextTokenTab));
    QVERIFY(w.viewTabs()->isTabVisible(ModelWindow::MaskedLmTab));
    QVERIFY(w.viewTabs()->isTabVisible(ModelWindow::PaddingTab));
    QVERIFY(!w.generateButton()->isEnabled());
    QVERIFY(w.generateButton()->toolTip().contains(QStringLiteral("encoder")));
    QVERIFY(!w.session()->generate(1));
}

void TestEncoderWindow::pairFilterBlocksTheOtherCells() {
    ModelWindow w;
    QVERIFY(open(w));
    QVERIFY(w.pairFilterBox()->isEnabled());
    const std::vector<int> segments = w.session()->view().segments;
    const int filters[] = {1, 2, 3, 4};  // A→A, A→B, B→A, B→B
    const std::pair<int, int> pairs[] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
    for (int f = 0; f < 4; ++f) {
        w.pairFilterBox()->setCurrentIndex(filters[f]);
        emit w.pairFilterBox()->activated(filters[f]);
        views::HeatmapWidget* map = headMap(w);
        QVERIFY(map);
        int shown = 0;
        for (int r = 0; r < map->rowCount(); ++r)
            for (int c = 0; c < map->columnCount(); ++c) {
                const bool keep = segments[static_cast<std::size_t>(r)] == pairs[f].first &&
                                  segments[static_cast<std::size_t>(c)] == pairs[f].second;
                QCOMPARE(map->cellKind(r, c) == views::HeatmapWidget::CellKind::Masked, !keep);
                shown += keep ? 1 : 0;
            }
        const auto a = std::count(segments.begin(), segments.end(), 0);
        const auto b = std::count(segments.begin(), segments.end(), 1);
        QCOMPARE(shown, static_cast<int>((pairs[f].first ? b : a) * (pairs[f].second ? b : a)));
        // The mosaic's thumbnail of the head greys the same cells out (NaN).
        QCOMPARE(w.encoderOptions().filter, static_cast<attn::PairFilter>(filters[f]));
    }
}

void TestEncoderWindow::hidingSpecialsRenormalisesRows() {
    ModelWindow w;
    QVERIFY(open(w));
    const ModelSession::View& v = w.session()->view();
    const attn::Matrix full = v.attentions[0][0];
    w.hideSpecialsBox()->setChecked(true);
    views::HeatmapWidget* map = headMap(w);
    QVERIFY(map);
    // [CLS] and two [SEP] gone.
    QCOMPARE(map->rowCount(), static_cast<int>(v.ids.size()) - 3);
    QVERIFY(!map->rowLabels().contains(QStringLiteral("[CLS]")));
    QVERIFY(!map->columnLabels().contains(QStringLiteral("[SEP]")));
    std::vector<int> kept;
    for (std::size_t t = 0; t < v.special.size(); ++t)
        if (!v.special[t]) kept.push_back(static_cast<int>(t));
    for (int r = 0; r < map->rowCount(); ++r) {
        double sum = 0.0, keptSum = 0.0;
        for (int k : kept)
            keptSum += static_cast<double>(full(kept[static_cast<std::size_t>(r)], k));
        for (int c = 0; c < map->columnCount(); ++c) {
            sum += map->inputValue(r, c);
            const double expected = static_cast<double>(full(kept[static_cast<std::size_t>(r)],
                                                             kept[static_cast<std::size_t>(c)])) /
                                    keptSum;
            QVERIFY(std::abs(map->inputValue(r, c) - expected) < 1e-6);
        }
        QVERIFY2(std::abs(sum - 1.0) < 1e-5, qPrintable(QString::number(sum)));
    }
    QVERIFY(map->colorScale() != nullptr);
    QVERIFY(w.headPage()->step().arg("specials_hidden") == "1");
}

void TestEncoderWindow::neuronViewMatchesTheHoverArithmetic() {
    ModelWindow w;
    QVERIFY(open(w));
    w.selectHead(1, 2);
    w.showNeuron(1, 3, true);
    const attn::NeuronView* n = w.neuronView()->neuron();
    QVERIFY(n);
    QCOMPARE(n->layer, 1);
    QCOMPARE(n->head, 2);
    QCOMPARE(n->head_dim, 8);
    const ModelSession::View& v = w.session()->view();
    QVERIFY(std::abs(n->weight - v.attentions[1][2](1, 3)) < 1e-6f);
    // q·k as the head view's operand holds it, and the hover text's softmax digits.
    const attn::StepMatrix* scores = w.headPage()->step().find("scores-3");
    QVERIFY(scores);
    QVERIFY(std::abs(n->dot - scores->values(1, 3)) < 1e-5f);
    const QString formula = w.headPage()->cellFormula(w.headPage()->matrixIds().at(0), 1, 3);
    QVERIFY2(formula.contains(w.neuronView()->resultLines().at(2).section(' ', -1)),
             qPrintable(formula));
    // Hovering elsewhere leaves a clicked cell.
    w.showNeuron(0, 0);
    QCOMPARE(w.neuronView()->neuron()->query, 1);
    // Another head: the same cell read from that head's q and k.
    w.selectHead(0, 1);
    QCOMPARE(w.neuronView()->neuron()->head, 1);
    QCOMPARE(w.neuronView()->neuron()->key, 3);
    QVERIFY(std::abs(w.neuronView()->neuron()->weight - v.attentions[0][1](1, 3)) < 1e-6f);
}

void TestEncoderWindow::clickingATokenMasksItAndShowsItsFillers() {
    ModelWindow w;
    QVERIFY(open(w, false));
    const int maskId = *w.session()->model().tokenizer->maskId();
    emit w.tokenStrip()->tokenClicked(2);  // "journey"
    QVERIFY(w.session()->waitForIdle());
    const ModelSession::View& v = w.session()->view();
    QCOMPARE(v.ids[2], maskId);
    QCOMPARE(v.tokens[2], QStringLiteral("[MASK]"));
    QCOMPARE(w.viewTabs()->currentIndex(), static_cast<int>(ModelWindow::MaskedLmTab));
    QCOMPARE(w.shownMaskPosition(), 2);
    QCOMPARE(w.maskPositionBox()->currentText(), QStringLiteral("token 3 (was “journey”)"));
    attn::ModelForwardOptions options;
    options.all_logits = true;
    options.token_type_ids = v.typeIds;
    const attn::ModelForwardResult pass =
        attn::model_forward(*w.session()->model().weights, v.ids, options);
    const std::vector<attn::MaskPrediction> expected =
        attn::mask_predictions(pass, v.ids, maskId, 10);
    QCOMPARE(expected.size(), std::size_t{1});
    const std::vector<views::NextToken> bars = w.fillersChart()->bars();
    QCOMPARE(bars.size(), expected[0].top.size());
    for (std::size_t i = 0; i < bars.size(); ++i) {
        QCOMPARE(bars[i].id, expected[0].top[i].id);
        QCOMPARE(bars[i].prob, static_cast<double>(expected[0].top[i].prob));
    }
    // A second click gives the token back.
    emit w.tokenStrip()->tokenClicked(2);
    QVERIFY(w.session()->waitForIdle());
    QVERIFY(w.session()->view().ids[2] != maskId);
    QCOMPARE(w.fillersChart()->barCount(), 0);
    // [CLS] cannot be masked.
    QVERIFY(!w.session()->toggleMask(0));
}

void TestEncoderWindow::typedMaskGetsFillers() {
    ModelWindow w;
    QVERIFY(open(w, false));
    w.setText(QStringLiteral("your [MASK] starts"));
    QVERIFY(w.session()->waitForIdle());
    const ModelSession::View& v = w.session()->view();
    const int maskId = *w.session()->model().tokenizer->maskId();
    QCOMPARE(v.ids.at(2), maskId);
    QCOMPARE(v.maskPredictions.size(), std::size_t{1});
    QCOMPARE(w.fillersChart()->barCount(), 10);
    QCOMPARE(w.fillersChart()->bars().front().id, v.maskPredictions[0].top[0].id);
}

void TestEncoderWindow::paddedBatchEqualsEachSentenceAlone() {
    ModelWindow w;
    QVERIFY(open(w));
    const std::shared_ptr<const attn::PaddingCheck> check = w.session()->paddingCheck();
    QVERIFY2(check, qPrintable(w.session()->paddingProblem()));
    QCOMPARE(check->max_abs_diff.size(), std::size_t{2});
    for (float d : check->max_abs_diff) QVERIFY(d < 1e-6f);
    for (float p : check->padding_weight) QCOMPARE(p, 0.0f);
    QVERIFY(w.paddingLabel()->text().contains(QStringLiteral("max |difference|")));
    // The batch's mask is 1 on sentence A's own tokens.
    const attn::Tokenizer& tokenizer = *w.session()->model().tokenizer;
    const attn::TokenizedInput a = tokenizer.encodeInput(kSentenceA);
    views::HeatmapWidget* mask = w.paddingMaskHeatmap();
    QCOMPARE(mask->rowCount(), 2);
    QCOMPARE(mask->inputValue(0, static_cast<int>(a.ids.size()) - 1), 1.0);
    // The padded heatmap of sentence A, its real cells against A run alone, computed here.
    attn::ModelForwardOptions options;
    options.token_type_ids = a.typeIds;
    const attn::ModelForwardResult alone =
        attn::model_forward(*w.session()->model().weights, a.ids, options);
    views::HeatmapWidget* padded = w.paddedHeatmap(0);
    for (int r = 0; r < static_cast<int>(a.ids.size()); ++r)
        for (int c = 0; c < static_cast<int>(a.ids.size()); ++c)
            QVERIFY(std::abs(padded->inputValue(r, c) -
                             static_cast<double>(alone.attentions[0][0](r, c))) < 1e-6);
    // A longer B pads A: its padding keys are masked cells with weight 0.
    w.setPair(QStringLiteral("with one step and the journey starts"));
    QVERIFY(w.session()->waitForIdle());
    QVERIFY(w.session()->paddingCheck());
    const int length = padded->columnCount();
    QVERIFY(length > static_cast<int>(a.ids.size()));
    QCOMPARE(mask->inputValue(0, length - 1), 0.0);
    QCOMPARE(padded->cellKind(0, length - 1), views::HeatmapWidget::CellKind::Masked);
    QCOMPARE(padded->inputValue(0, length - 1), 0.0);
    for (float d : w.session()->paddingCheck()->max_abs_diff) QVERIFY(d < 1e-6f);
}

QTEST_MAIN(TestEncoderWindow)
#include "test_encoder_window.moc"
