// The encoder views' widgets: the neuron view prints the record's q, k, q × k and results with
// the one number formatter (the head view's hover digits), fits its bars without cutting values
// off, and the head page's colour bar says when [CLS]/[SEP] are hidden.
#include <qcustomplot.h>

#include <QApplication>
#include <QTest>

#include "model/attention_layer_step.h"
#include "model/encoder_views.h"
#include "views/heatmap_widget.h"
#include "views/neuron_view.h"
#include "views/next_token_chart.h"
#include "views/step_page.h"
#include "views/step_texts.h"

namespace {

// Head 1 of head_dim 4 (columns 0–3): query 0 is (1, 2, 0, −1), keys (3, 1, 5, 2) and
// (0, 1, 0, 0): q·k = 3 and 2, scaled 1.5 and 1, softmax e^1.5 / (e^1.5 + e) = 0.6225.
attn::NeuronView handMadeNeuron() {
    attn::TransformerSpec spec;
    spec.num_heads = 1;
    spec.num_kv_heads = 1;
    spec.head_dim = 4;
    spec.causal = false;
    attn::ModelForwardResult pass;
    attn::Matrix q = attn::Matrix::Zero(2, 4);
    q.row(0) << 1.0f, 2.0f, 0.0f, -1.0f;
    attn::Matrix k(2, 4);
    k << 3.0f, 1.0f, 5.0f, 2.0f, 0.0f, 1.0f, 0.0f, 0.0f;
    pass.queries = {q};
    pass.keys = {k};
    return attn::neuron_view(pass, spec, 0, 0, 0, 0);
}

attn::Matrix fourTokenWeights() {
    attn::Matrix w(4, 4);
    w << 0.25f, 0.25f, 0.25f, 0.25f, 0.4f, 0.3f, 0.1f, 0.2f, 0.5f, 0.125f, 0.125f, 0.25f, 0.1f,
        0.2f, 0.6f, 0.1f;
    return w;
}

}  // namespace

class TestEncoderWidgets : public QObject {
    Q_OBJECT

private slots:
    void neuronViewPrintsTheRecord() {
        views::NeuronView view;
        QVERIFY(!view.hasNeuron());
        QVERIFY(view.resultLines().isEmpty());
        view.setNeuron(handMadeNeuron(), QStringLiteral("my"), QStringLiteral("dog"));
        QCOMPARE(view.columnTexts(0), (QStringList{"1.0000", "2.0000", "0.0000", "-1.0000"}));
        QCOMPARE(view.columnTexts(1), (QStringList{"3.0000", "1.0000", "5.0000", "2.0000"}));
        QCOMPARE(view.columnTexts(2), (QStringList{"3.0000", "2.0000", "0.0000", "-2.0000"}));
        const QStringList lines = view.resultLines();
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], QStringLiteral("q·k = Σ (q × k) = 3.0000"));
        QCOMPARE(lines[1], QStringLiteral("q·k / √4 = 3.0000 / 2.0000 = 1.5000"));
        QCOMPARE(lines[2], QStringLiteral("softmax over the query's row: α = 0.6225"));
        QVERIFY(view.heading().contains(QStringLiteral("“my” (1) → key “dog” (1) · head_dim = 4")));
        view.clear();
        QVERIFY(!view.hasNeuron());
        QVERIFY(view.resultLines().isEmpty());
    }

    void neuronBarsGetARowPerDimension() {
        views::NeuronView view;
        view.resize(520, 600);
        view.setNeuron(handMadeNeuron(), QStringLiteral("my"), QStringLiteral("dog"));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // A heading row and 4 dimensions, each at least a line of text high.
        const int line = view.fontMetrics().height();
        QVERIFY(view.barsWidget()->sizeHint().height() >= 5 * line);
        QVERIFY(view.barsWidget()->height() >= view.barsWidget()->sizeHint().height());
    }

    void colourBarSaysWhenSpecialsAreHidden() {
        const attn::Step layer =
            attn::attention_layer_step({fourTokenWeights()}, 0, {"[CLS]", "x", "y", "[SEP]"});
        attn::EncoderViewOptions options;
        options.hide_specials = true;
        views::StepPage hidden(
            attn::encoder_layer_step(layer, {0, 0, 0, 0}, {true, false, false, true}, options));
        views::HeatmapWidget* map = hidden.heatmaps().at(0);
        QVERIFY2(
            map->colorBarLabel().contains(QStringLiteral("[CLS]/[SEP] hidden, rows renormalised")),
            qPrintable(map->colorBarLabel()));
        QCOMPARE(map->rowLabels(), (QStringList{"x", "y"}));
        // Shown rows sum to 1 again: 0.75 + 0.25.
        QCOMPARE(hidden.shownValues(hidden.matrixIds().at(0))(0, 0), 0.75f);
        views::StepPage shown(
            attn::encoder_layer_step(layer, {0, 0, 0, 0}, {true, false, false, true}, {}));
        QVERIFY(!shown.heatmaps().at(0)->colorBarLabel().contains(QStringLiteral("[CLS]")));
    }

    void encoderLayerTextHasNoCausalMask() {
        // A layer with its arithmetic (sqrt_head_dim) read by an encoder.
        attn::Step layer =
            attn::attention_layer_step({fourTokenWeights()}, 0, {"[CLS]", "x", "y", "[SEP]"});
        layer.text_args.emplace_back("head_dim", "8");
        layer.text_args.emplace_back("sqrt_head_dim", "2.828427");
        const QString decoder = views::stepText(layer).html;
        QVERIFY(decoder.contains(QStringLiteral("causal mask hides")));
        const QString encoder =
            views::stepText(
                attn::encoder_layer_step(layer, {0, 0, 0, 0}, {true, false, false, true}, {}))
                .html;
        QVERIFY2(encoder.contains(QStringLiteral("an encoder has no causal mask")),
                 qPrintable(encoder));
        QVERIFY(encoder.contains(QStringLiteral("√8 = 2.828427")));
    }

    void fillersChartSaysWhatItsProbabilitiesAre() {
        views::NextTokenChart chart;
        chart.setPredictions(
            {{QStringLiteral("dog"), 12, 0.625}, {QStringLiteral("cat"), 9, 0.25}});
        QCOMPARE(chart.plot()->xAxis->label(), QStringLiteral("probability of the next token"));
        chart.setMeaning(views::NextTokenChart::Meaning::MaskFiller);
        QCOMPARE(chart.plot()->xAxis->label(),
                 QStringLiteral("probability of the token at the masked position"));
        QCOMPARE(chart.barTexts(), (QStringList{"62.5 %", "25.0 %"}));
    }
};

QTEST_MAIN(TestEncoderWidgets)
#include "test_encoder_widgets.moc"
