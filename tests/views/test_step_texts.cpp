// The walkthrough's texts and captions for an example that is not the tutorial's: every number,
// shape, token and sentence comes from the record, none of the tutorial's survives.
#include <QtTest>

#include "model/walkthrough.h"
#include "views/step_texts.h"

namespace {

// "the cat sat down", 4 tokens of width 4, following token 3 ("sat").
attn::Sequence catSequence() {
    attn::Sequence seq;
    seq.tokens = {"the", "cat", "sat", "down"};
    seq.embeddings.resize(4, 4);
    seq.embeddings << 0.9f, 0.1f, 0.3f, 0.5f,  //
        0.2f, 0.8f, 0.6f, 0.1f,                //
        0.4f, 0.7f, 0.9f, 0.3f,                //
        0.6f, 0.2f, 0.1f, 0.8f;
    return seq;
}

const attn::Step& stepById(const std::vector<attn::Step>& steps, const std::string& id) {
    for (const attn::Step& s : steps)
        if (s.id == id) return s;
    qFatal("no step %s", id.c_str());
}

}  // namespace

class TestStepTexts : public QObject {
    Q_OBJECT

private:
    std::vector<attn::Step> steps_ = [] {
        attn::WalkthroughConfig config;
        config.query_index = 2;
        return attn::build_walkthrough(catSequence(), config);
    }();

    QString text(const std::string& id) const {
        const views::StepText t = views::stepText(stepById(steps_, id));
        return t.title + QLatin1Char('\n') + t.html;
    }
    QString caption(const std::string& stepId, const std::string& matrixId) const {
        const attn::Step& s = stepById(steps_, stepId);
        const attn::StepMatrix* m = s.find(matrixId);
        if (!m) qFatal("no matrix %s", matrixId.c_str());
        return views::matrixCaption(s, *m);
    }

private slots:
    void noTutorialWordOrShapeSurvives() {
        for (const attn::Step& s : steps_) {
            const views::StepText t = views::stepText(s);
            const QString all = t.title + QLatin1Char('\n') + t.html;
            for (const char* tutorial :
                 {"journey", "Your journey", "6 × 6", "(2, 6, 3)", "6 × 4", "3 × 2", "3 × 4",
                  "-0.5337", "Row 2", "x<sup>(2)</sup>", "z⁽²⁾", "{", "}"})
                QVERIFY2(!all.contains(QString::fromUtf8(tutorial)),
                         qPrintable(QString::fromStdString(s.id) + ": " + tutorial));
            for (const attn::StepMatrix& m : s.matrices) {
                const QString c = views::matrixCaption(s, m);
                QVERIFY2(!c.contains(QLatin1Char('{')) && !c.contains(QStringLiteral("⁽²⁾")),
                         qPrintable(c));
            }
        }
    }

    void textsQuoteTheExample() {
        QVERIFY(text("inputs").contains(QStringLiteral("“the cat sat down”")));
        QVERIFY(text("inputs").contains(QStringLiteral("d_in = 4")));
        QVERIFY(text("inputs").contains(QStringLiteral("all 4 tokens")));
        QVERIFY(text("inputs").contains(QStringLiteral("<i>sat</i>, x<sup>(3)</sup>")));
        QVERIFY(text("scores-journey").startsWith(QStringLiteral("Attention scores for “sat”")));
        QVERIFY(text("scores-journey").contains(QStringLiteral("ω<sub>3j</sub>")));
        QVERIFY(text("context-journey").startsWith(QStringLiteral("The context vector z⁽³⁾")));
        QVERIFY(text("all-tokens").contains(QStringLiteral("(4 × 4), &nbsp; A")));
        QVERIFY(text("all-tokens").contains(QStringLiteral("Row 3 repeats")));
        QVERIFY(text("trainable-weights").contains(QStringLiteral("= 4 × 2")));
        QVERIFY(text("self-attention-classes").contains(QStringLiteral("±1/√d_in = ±0.5000")));
        QVERIFY(text("causal-attention-batch").contains(QStringLiteral("(2, 4, 4)")));
        QVERIFY(text("causal-attention-batch").contains(QStringLiteral("(2, 4, 2)")));
        QVERIFY(text("multi-head").contains(QStringLiteral("(4 × 4)")));
        QVERIFY(text("multi-head")
                    .contains(QStringLiteral("columns 1–2 belong to head 1, "
                                             "columns 3–4 to head 2")));
        QVERIFY(text("cross-attention").contains(QStringLiteral("4 × 4: each target token")));
        QVERIFY(text("kv-cache").contains(QStringLiteral("Step through the 4 tokens")));
        QVERIFY(text("kv-cache").contains(QStringLiteral("2 heads of head_dim 2")));
    }

    // Step 3's claim about the overflowing naive softmax counts the record's own NaN cells.
    void overflowClaimCountsTheRecordsNaNs() {
        const attn::Step& s = stepById(steps_, "weights-journey");
        const attn::StepMatrix* naive = s.find("large-naive-softmax");
        QVERIFY(naive);
        const Eigen::Index nans = naive->values.array().isNaN().count();
        QVERIFY(nans > 0);
        QVERIFY2(text("weights-journey")
                     .contains(QStringLiteral("gives NaN for %1 of the 4 weights").arg(nans)),
                 qPrintable(text("weights-journey")));
    }

    void dropoutTextStatesTheDraw() {
        const attn::Step& s = stepById(steps_, "dropout");
        const attn::StepMatrix* d = s.find("dropped-weights");
        QVERIFY(d);
        // 10 weights on and below the diagonal of 4 tokens.
        const QString t = text("dropout");
        QVERIFY2(t.contains(QStringLiteral("of the 10 weights")), qPrintable(t));
        QVERIFY(t.contains(QStringLiteral("drops %1.").arg(d->dropped.count())));
        QVERIFY(t.contains(QStringLiteral("= 2 · α")));
    }

    void captionsFollowTheQuery() {
        QCOMPARE(caption("scores-journey", "query"), QStringLiteral("Query x⁽³⁾"));
        QCOMPARE(caption("scores-journey", "attn-scores-journey"), QStringLiteral("Scores ω₃ⱼ"));
        QCOMPARE(caption("context-journey", "attn-weights-journey"), QStringLiteral("Weights α₃ⱼ"));
        QCOMPARE(caption("context-journey", "context-vec-journey"),
                 QStringLiteral("Context vector z⁽³⁾"));
        QCOMPARE(caption("kv-cache", "new-weights-head-2"),
                 QStringLiteral("Head 2 · New weights row"));
        QCOMPARE(caption("scaled-scores", "attn-weights-64"),
                 QStringLiteral("d_k = 64: weights of ω / √d_k"));
    }

    // The chapters' numbers and frame names come from the example's records too.
    void chapterTextsQuoteTheExample() {
        // 2 × 4 tokens × K/V heads × head_dim 2 × 4 bytes.
        const QString gqa = text("gqa");
        QVERIFY(gqa.contains(QStringLiteral("256 bytes with 4 K/V heads, 128 with 2, 64 with 1")));
        QVERIFY(gqa.contains(QStringLiteral("2 × 4 tokens")));
        const QString rope = text("rope");
        QVERIFY(rope.contains(QStringLiteral("“down sat cat the”")));
        QVERIFY(rope.contains(QStringLiteral("<i>sat</i> at position 2 turns by 2.0000 rad")));
        const attn::Step& g = stepById(steps_, "gqa");
        QCOMPARE(views::frameText(g, 0), QStringLiteral("1 of 3: 1 K/V head (MQA)"));
        QCOMPARE(views::frameText(g, 1), QStringLiteral("2 of 3: 2 K/V heads (GQA)"));
        QCOMPARE(views::frameButtonTexts(g).second, QStringLiteral("More K/V heads ▶"));
        const attn::StepMatrix* head3 = g.find("gqa-weights-head-3", 1);
        QVERIFY(head3);
        QCOMPARE(views::matrixCaption(g, *head3), QStringLiteral("Query head 3 · K/V head 2"));
        const attn::Step& r = stepById(steps_, "rope");
        QCOMPARE(views::frameText(r, 1), QStringLiteral("Case 2 of 3: RoPE, positions 0–3"));
        QCOMPARE(views::frameText(r, 2), QStringLiteral("Case 3 of 3: RoPE, positions + 3"));
        QCOMPARE(views::frameText(r, 3), QString());
    }

    // The tutorial keeps its own words: the placeholders give back the printed numbers.
    void tutorialTextsKeepTheirNumbers() {
        const std::vector<attn::Step> tutorial = attn::build_walkthrough();
        auto tutorialText = [&](const std::string& id) {
            const views::StepText t = views::stepText(stepById(tutorial, id));
            return t.title + QLatin1Char('\n') + t.html;
        };
        QVERIFY(
            tutorialText("inputs").contains(QStringLiteral("“Your journey starts with one "
                                                           "step”")));
        QVERIFY(tutorialText("scores-journey").contains(QStringLiteral("<i>journey</i> (1.4950)")));
        QVERIFY(tutorialText("self-attention-classes")
                    .contains(QStringLiteral("[[-0.5337, -0.1051], …]")));
        QVERIFY(tutorialText("causal-attention-batch").contains(QStringLiteral("(2, 6, 3)")));
        QVERIFY(tutorialText("dropout").contains(QStringLiteral("p = 0.5")));
        QVERIFY(tutorialText("cross-attention").contains(QStringLiteral("6 × 4")));
        QVERIFY(tutorialText("cross-attention").contains(QStringLiteral("“你的 旅程 始于 一步”")));
    }
};

QTEST_APPLESS_MAIN(TestStepTexts)
#include "test_step_texts.moc"
