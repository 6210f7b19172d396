// The encoder views' records on hand-made matrices, every expected value worked out by hand in
// the comments: the sentence-pair filter, [CLS]/[SEP] hidden with rows renormalised, and the
// neuron view of one cell.
#include <QTest>
#include <cmath>
#include <string>
#include <vector>

#include "model/attention_layer_step.h"
#include "model/encoder_views.h"

namespace {

// [CLS] a b [SEP] c [SEP]: sentence A (with [CLS] and its [SEP]) is positions 0–3, B is 4–5.
const std::vector<int> kSegments = {0, 0, 0, 0, 1, 1};

// A 4-token encoder layer's weights: [CLS] x y [SEP], every row summing to 1.
attn::Matrix fourTokenWeights() {
    attn::Matrix w(4, 4);
    w << 0.25f, 0.25f, 0.25f, 0.25f,  //
        0.4f, 0.3f, 0.1f, 0.2f,       //
        0.5f, 0.125f, 0.125f, 0.25f,  //
        0.1f, 0.2f, 0.6f, 0.1f;
    return w;
}

const std::vector<bool> kFourSpecial = {true, false, false, true};

// One layer of 2 heads of head_dim 4 over 3 tokens, bidirectional.
attn::TransformerSpec tinyEncoderSpec() {
    attn::TransformerSpec s;
    s.family = attn::ModelFamily::Bert;
    s.num_heads = 2;
    s.num_kv_heads = 2;
    s.head_dim = 4;
    s.d_model = 8;
    s.num_layers = 1;
    s.causal = false;
    return s;
}

// Head 2 (columns 4–7): query 1 is (1, 2, 0, −1); keys (3, 1, 5, 2), (0, 1, 0, 0), (1, 0, 0, 1).
// Head 1 holds other numbers, so reading the wrong columns fails.
attn::ModelForwardResult tinyPass() {
    attn::ModelForwardResult r;
    attn::Matrix q = attn::Matrix::Constant(3, 8, 9.0f);
    q.block(1, 4, 1, 4) << 1.0f, 2.0f, 0.0f, -1.0f;
    attn::Matrix k = attn::Matrix::Constant(3, 8, -7.0f);
    k.block(0, 4, 3, 4) << 3.0f, 1.0f, 5.0f, 2.0f,  //
        0.0f, 1.0f, 0.0f, 0.0f,                     //
        1.0f, 0.0f, 0.0f, 1.0f;
    r.queries = {q};
    r.keys = {k};
    return r;
}

}  // namespace

class TestEncoderViews : public QObject {
    Q_OBJECT

private slots:
    void pairFilterHidesOtherSegments_data() {
        QTest::addColumn<int>("filter");
        QTest::addColumn<int>("querySegment");  // -1: every cell shown
        QTest::addColumn<int>("keySegment");
        QTest::newRow("All") << static_cast<int>(attn::PairFilter::All) << -1 << -1;
        QTest::newRow("A→A") << static_cast<int>(attn::PairFilter::AToA) << 0 << 0;
        QTest::newRow("A→B") << static_cast<int>(attn::PairFilter::AToB) << 0 << 1;
        QTest::newRow("B→A") << static_cast<int>(attn::PairFilter::BToA) << 1 << 0;
        QTest::newRow("B→B") << static_cast<int>(attn::PairFilter::BToB) << 1 << 1;
    }
    void pairFilterHidesOtherSegments() {
        QFETCH(int, filter);
        QFETCH(int, querySegment);
        QFETCH(int, keySegment);
        const attn::BoolMatrix hidden =
            attn::pair_filter_mask(kSegments, static_cast<attn::PairFilter>(filter));
        QCOMPARE(hidden.rows(), 6);
        QCOMPARE(hidden.cols(), 6);
        // Rows 0–3 are A's queries, 4–5 B's; the same for the key columns.
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) {
                const int qs = i < 4 ? 0 : 1, ks = j < 4 ? 0 : 1;
                const bool shown = querySegment < 0 || (qs == querySegment && ks == keySegment);
                QCOMPARE(hidden(i, j), !shown);
            }
    }

    void pairFilterCountsTheBlock() {
        // A→B over 4 A tokens and 2 B tokens: 4 × 2 = 8 cells shown of 36.
        const attn::BoolMatrix hidden = attn::pair_filter_mask(kSegments, attn::PairFilter::AToB);
        QCOMPARE(static_cast<int>((!hidden.array()).count()), 8);
    }

    void pairFilterRefusesAThirdSegment() {
        QVERIFY_THROWS_EXCEPTION(attn::AttentionError,
                                 attn::pair_filter_mask({0, 2}, attn::PairFilter::AToA));
    }

    void hiddenCellsBecomeNaN() {
        const attn::BoolMatrix hidden =
            attn::pair_filter_mask({0, 0, 0, 1}, attn::PairFilter::BToA);
        const attn::Matrix shown = attn::hide_cells(fourTokenWeights(), hidden);
        // Row 3 (B) over keys 0–2 (A): 0.1, 0.2, 0.6 kept; everything else NaN.
        QCOMPARE(shown(3, 0), 0.1f);
        QCOMPARE(shown(3, 2), 0.6f);
        QVERIFY(std::isnan(shown(3, 3)));
        QVERIFY(std::isnan(shown(0, 0)));
        QVERIFY(std::isnan(shown(2, 1)));
    }

    void hidingSpecialsRenormalisesRows() {
        const attn::SpecialsHidden s = attn::hide_special_tokens(fourTokenWeights(), kFourSpecial);
        QCOMPARE(s.kept, (std::vector<Eigen::Index>{1, 2}));
        QCOMPARE(s.weights.rows(), 2);
        // x's row 0.3, 0.1 over 0.4: 0.75, 0.25. y's row 0.125, 0.125 over 0.25: 0.5, 0.5.
        QCOMPARE(s.kept_weights(0, 0), 0.3f);
        QCOMPARE(s.weights(0, 0), 0.75f);
        QCOMPARE(s.weights(0, 1), 0.25f);
        QCOMPARE(s.weights(1, 0), 0.5f);
        QCOMPARE(s.weights(1, 1), 0.5f);
        for (Eigen::Index i = 0; i < s.weights.rows(); ++i)
            QVERIFY(std::abs(s.weights.row(i).sum() - 1.0f) < 1e-6f);
    }

    void hidingEverySpecialIsRefused() {
        QVERIFY_THROWS_EXCEPTION(
            attn::AttentionError,
            attn::hide_special_tokens(fourTokenWeights(), {true, true, true, true}));
        QVERIFY_THROWS_EXCEPTION(attn::AttentionError,
                                 attn::hide_special_tokens(fourTokenWeights(), {true, false}));
    }

    void layerStepBlocksTheFilteredCells() {
        const attn::Step layer =
            attn::attention_layer_step({fourTokenWeights()}, 0, {"[CLS]", "x", "[SEP]", "y"});
        attn::EncoderViewOptions options;
        options.filter = attn::PairFilter::AToB;
        const attn::Step step =
            attn::encoder_layer_step(layer, {0, 0, 0, 1}, {true, false, true, false}, options);
        const attn::StepMatrix& w = step.matrices.at(0);
        QCOMPARE(w.blocked.rows(), 4);
        // Only A's queries (0–2) on B's key (3) are shown.
        QCOMPARE(w.blocked(0, 3), false);
        QCOMPARE(w.blocked(2, 3), false);
        QCOMPARE(w.blocked(0, 0), true);
        QCOMPARE(w.blocked(3, 3), true);
        QCOMPARE(w.values(1, 3), 0.2f);  // the values stay the model's
        QVERIFY(step.arg("specials_hidden").empty());
    }

    void layerStepWithSpecialsHiddenExplainsTheRenormalisation() {
        const attn::Step layer =
            attn::attention_layer_step({fourTokenWeights()}, 0, {"[CLS]", "x", "y", "[SEP]"});
        attn::EncoderViewOptions options;
        options.hide_specials = true;
        const attn::Step step =
            attn::encoder_layer_step(layer, {0, 0, 0, 0}, kFourSpecial, options);
        const attn::StepMatrix& w = step.matrices.at(0);
        QCOMPARE(w.values.rows(), 2);
        QCOMPARE(w.row_labels, (std::vector<std::string>{"x", "y"}));
        QCOMPARE(w.col_labels, (std::vector<std::string>{"x", "y"}));
        QCOMPARE(w.values(0, 1), 0.25f);
        QCOMPARE(w.derivation, attn::Derivation::Renormalize);
        QCOMPARE(step.arg("specials_hidden"), std::string("1"));
        // α = 0.3 / (0.3 + 0.1) = 0.75, with the original weight and the kept row's sum.
        const std::string text = attn::explain_cell(step, w, 0, 0);
        QCOMPARE(text, std::string("head 1: α′₁₁ = α₁₁ / Σⱼ α₁ⱼ = 0.3000 / 0.4000 = 0.7500"));
    }

    void mosaicAttentionsFollowTheOptions() {
        const std::vector<std::vector<attn::Matrix>> attentions = {{fourTokenWeights()}};
        attn::EncoderViewOptions options;
        options.hide_specials = true;
        options.filter = attn::PairFilter::AToA;
        // Segments: [CLS] x A, y [SEP] B. Kept: x (A), y (B); A→A leaves x → x only.
        const auto shown =
            attn::encoder_attentions(attentions, {0, 0, 1, 1}, kFourSpecial, options);
        const attn::Matrix& m = shown.at(0).at(0);
        QCOMPARE(m.rows(), 2);
        QCOMPARE(m(0, 0), 0.75f);
        QVERIFY(std::isnan(m(0, 1)));
        QVERIFY(std::isnan(m(1, 0)));
        QVERIFY(std::isnan(m(1, 1)));
        // No filter and no hiding: the model's matrices unchanged.
        const auto all = attn::encoder_attentions(attentions, {0, 0, 1, 1}, kFourSpecial, {});
        QCOMPARE(all.at(0).at(0), fourTokenWeights());
    }

    void neuronViewOfOneCell() {
        const attn::NeuronView v = attn::neuron_view(tinyPass(), tinyEncoderSpec(), 0, 1, 1, 0);
        QCOMPARE(v.head_dim, 4);
        QCOMPARE(v.q, (attn::RowVector(4) << 1.0f, 2.0f, 0.0f, -1.0f).finished());
        QCOMPARE(v.k, (attn::RowVector(4) << 3.0f, 1.0f, 5.0f, 2.0f).finished());
        // q ⊙ k = (3, 2, 0, −2); q·k = 3; / √4 = 1.5.
        QCOMPARE(v.product, (attn::RowVector(4) << 3.0f, 2.0f, 0.0f, -2.0f).finished());
        QCOMPARE(v.dot, 3.0f);
        QCOMPARE(v.sqrt_head_dim, 2.0f);
        QCOMPARE(v.scaled, 1.5f);
        // The row's scaled scores are 1.5, 1, 0: e^1.5 / (e^1.5 + e^1 + e^0) = 0.5465494.
        QVERIFY(std::abs(v.weight - 0.5465494f) < 1e-6f);
    }

    void neuronViewLeavesPaddingKeysOut() {
        // Key 2 is padding: e^1.5 / (e^1.5 + e^1) = 0.6224593.
        const attn::NeuronView v =
            attn::neuron_view(tinyPass(), tinyEncoderSpec(), 0, 1, 1, 0, {1, 1, 0});
        QVERIFY(std::abs(v.weight - 0.6224593f) < 1e-6f);
    }

    void neuronViewOfACausalModelSeesNoFutureKey() {
        attn::TransformerSpec s = tinyEncoderSpec();
        s.causal = true;
        // Query 1 sees keys 0 and 1 only: the same 0.6224593 as with key 2 padded.
        const attn::NeuronView v = attn::neuron_view(tinyPass(), s, 0, 1, 1, 0);
        QVERIFY(std::abs(v.weight - 0.6224593f) < 1e-6f);
    }

    void neuronViewRefusesWhatThePassDidNotKeep() {
        QVERIFY_THROWS_EXCEPTION(attn::AttentionError,
                                 attn::neuron_view({}, tinyEncoderSpec(), 0, 0, 0, 0));
        QVERIFY_THROWS_EXCEPTION(attn::AttentionError,
                                 attn::neuron_view(tinyPass(), tinyEncoderSpec(), 0, 2, 0, 0));
        QVERIFY_THROWS_EXCEPTION(attn::AttentionError,
                                 attn::neuron_view(tinyPass(), tinyEncoderSpec(), 0, 0, 0, 3));
    }
};

QTEST_APPLESS_MAIN(TestEncoderViews)
#include "test_encoder_views.moc"
