// The walkthrough's chapters "Masks beyond causal" and "FlashAttention's tiles": their numbers
// against plain PyTorch (tests/reference/chapters_walk_reference.py), the tiled result against
// step 11, and the hover arithmetic of every new derivation.
#include <QtTest>
#include <cmath>

#include "model/walkthrough.h"
#include "tests/reference/chapters_walk_reference.h"

using attn::Matrix;
namespace ref = chapters_walk_reference;

namespace {

template <std::size_t R, std::size_t C>
Matrix fromArray(const float (&a)[R][C]) {
    Matrix m(static_cast<Eigen::Index>(R), static_cast<Eigen::Index>(C));
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t c = 0; c < C; ++c)
            m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = a[r][c];
    return m;
}

double maxDiff(const Matrix& a, const Matrix& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
    return static_cast<double>((a - b).cwiseAbs().maxCoeff());
}

const attn::Step& stepById(const std::vector<attn::Step>& steps, const std::string& id) {
    for (const attn::Step& s : steps)
        if (s.id == id) return s;
    qFatal("no step %s", id.c_str());
}

const attn::StepMatrix& matrix(const attn::Step& step, const std::string& id, int frame = -1) {
    const attn::StepMatrix* m = step.find(id, frame);
    if (!m) qFatal("step %s has no matrix %s in frame %d", step.id.c_str(), id.c_str(), frame);
    return *m;
}

double fact(const attn::Step& step, const std::string& id, int frame = -1) {
    for (const attn::StepFact& f : step.facts)
        if (f.id == id && (f.frame < 0 || f.frame == frame)) return f.value;
    return NAN;
}

int frameOf(const attn::Step& step, const std::string& label) {
    for (std::size_t i = 0; i < step.frame_labels.size(); ++i)
        if (step.frame_labels[i] == label) return static_cast<int>(i);
    return -1;
}

}  // namespace

class TestWalkthroughChapters : public QObject {
    Q_OBJECT

private:
    std::vector<attn::Step> steps_ = attn::build_walkthrough();
    const attn::Step& masks_ = stepById(steps_, "masks");
    const attn::Step& tiles_ = stepById(steps_, "flash-tiles");
    const attn::Step& causal_ = stepById(steps_, "causal-softmax");

    // Step 11's context vectors: its causal weights times step 9's values of SelfAttention v2.
    Matrix step11Context() const {
        return matrix(causal_, "causal-weights").values *
               matrix(stepById(steps_, "self-attention-classes"), "values-v2").values;
    }

private slots:
    void chaptersFollowTheTutorial() {
        // After step 16 (kv-cache), the masks before the tiles; other chapters may come between.
        QVERIFY(masks_.number > 16);
        QVERIFY(tiles_.number > masks_.number);
        QCOMPARE(steps_[static_cast<std::size_t>(masks_.number - 1)].id, std::string("masks"));
        QCOMPARE(masks_.frame_count, 3);
        QCOMPARE(masks_.frame_labels,
                 (std::vector<std::string>{"window", "bidirectional", "padding"}));
        QCOMPARE(masks_.arg("window"), std::to_string(ref::kWindow));
        QCOMPARE(masks_.arg("valid_tokens"), std::to_string(ref::kValidTokens));
    }

    void paddingMatchesPyTorch() {
        const int f = frameOf(masks_, "padding");
        // Sentence 1 is step 11's causal weights, shown beside every mask.
        QVERIFY(maxDiff(matrix(masks_, "causal-weights", f).values,
                        fromArray(ref::kPaddingWeights1)) < 1e-6);
        QVERIFY(maxDiff(matrix(masks_, "mask-weights", f).values,
                        fromArray(ref::kPaddingWeights2)) < 1e-6);
        QVERIFY(maxDiff(matrix(masks_, "mask-context", f).values,
                        fromArray(ref::kPaddingContext2)) < 1e-6);
        // Sentence 2's real rows are step 11's first rows.
        const Matrix& step11 = matrix(causal_, "causal-weights").values;
        QCOMPARE(matrix(masks_, "causal-weights", f).values, step11);
        QCOMPARE(matrix(masks_, "causal-weights", f).frame, -1);
        const Matrix& padded = matrix(masks_, "mask-weights", f).values;
        QVERIFY(maxDiff(padded.topRows(ref::kValidTokens), step11.topRows(ref::kValidTokens)) <
                1e-6);
        // Padded keys get exactly no weight, from every query; padded queries are labelled.
        const attn::StepMatrix& w = matrix(masks_, "mask-weights", f);
        for (Eigen::Index r = 0; r < 6; ++r)
            for (Eigen::Index c = ref::kValidTokens; c < 6; ++c) {
                QCOMPARE(w.values(r, c), 0.0f);
                QVERIFY(w.blocked(r, c));
            }
        QCOMPARE(w.row_labels[4], std::string("[PAD]"));
        QCOMPARE(w.row_labels[3], std::string("with"));
        const attn::StepMatrix& mask = matrix(masks_, "mask", f);
        QCOMPARE(mask.values.sum(), 1.0f + 2 + 3 + 4 + 4 + 4);  // causal, then 4 real keys
        QCOMPARE(fact(masks_, "visible_cells", f), 18.0);
    }

    void windowAndBidirectionalMatchPyTorch() {
        const int w = frameOf(masks_, "window");
        const int b = frameOf(masks_, "bidirectional");
        QVERIFY(maxDiff(matrix(masks_, "mask-weights", w).values, fromArray(ref::kWindowWeights)) <
                1e-6);
        QVERIFY(maxDiff(matrix(masks_, "mask-context", w).values, fromArray(ref::kWindowContext)) <
                1e-6);
        QVERIFY(maxDiff(matrix(masks_, "mask-weights", b).values,
                        fromArray(ref::kBidirectionalWeights)) < 1e-6);
        QVERIFY(maxDiff(matrix(masks_, "mask-context", b).values,
                        fromArray(ref::kBidirectionalContext)) < 1e-6);
        // Window 3: 1 + 2 + 3 + 3 + 3 + 3 visible cells; bidirectional: all 36, nothing blocked.
        QCOMPARE(fact(masks_, "visible_cells", w), 15.0);
        QCOMPARE(fact(masks_, "visible_cells", b), 36.0);
        QCOMPARE(matrix(masks_, "mask-weights", b).blocked.count(), Eigen::Index{0});
        QVERIFY(matrix(masks_, "mask-weights", w).blocked(3, 0));
        QVERIFY(!matrix(masks_, "mask-weights", w).blocked(3, 1));
    }

    void maskHoverSaysWhyACellIsBlocked() {
        const int w = frameOf(masks_, "window");
        const int p = frameOf(masks_, "padding");
        QCOMPARE(attn::explain_cell(masks_, matrix(masks_, "mask", w), 3, 0),
                 std::string("m₄₁ = 0: key 1 is outside query 4's window of the last 3 tokens "
                             "(2–4)"));
        QCOMPARE(attn::explain_cell(masks_, matrix(masks_, "mask", w), 3, 1),
                 std::string("m₄₂ = 1: query 4 sees key 2"));
        QCOMPARE(attn::explain_cell(masks_, matrix(masks_, "mask", p), 5, 4),
                 std::string("m₆₅ = 0: key 5 is padding (the sentence has 4 tokens)"));
        QCOMPARE(attn::explain_cell(masks_, matrix(masks_, "mask", p), 1, 2),
                 std::string("m₂₃ = 0: key 3 comes after query 2"));
        const std::string padded_row =
            attn::explain_cell(masks_, matrix(masks_, "mask-weights", p), 4, 0);
        QVERIFY2(
            padded_row.find("1.0000 / 4.0000 = 0.2500 (query 5 is padding") != std::string::npos,
            padded_row.c_str());
        // The filled score says which rule blocked it.
        const attn::StepMatrix* filled = masks_.find("masked-scores", p);
        QVERIFY(filled);
        QCOMPARE(attn::explain_cell(masks_, *filled, 5, 5),
                 std::string("ω₆₆ = −∞: key 6 is padding (the sentence has 4 tokens)"));
    }

    void tilesSkipTheUpperTriangle() {
        // 3 query tiles × 6 key tiles, of which 4 + 2 lie above the diagonal.
        QCOMPARE(tiles_.frame_count, 12);
        QCOMPARE(fact(tiles_, "tiles_skipped"), 6.0);
        const attn::StepMatrix& map = matrix(tiles_, "tile-map", 0);
        QCOMPARE(map.values.rows(), Eigen::Index{3});
        QCOMPARE(map.values.cols(), Eigen::Index{6});
        QCOMPARE(map.blocked.count(), Eigen::Index{6});
        QVERIFY(map.blocked(0, 2) && map.blocked(1, 4) && !map.blocked(1, 3));
        QCOMPARE(tiles_.frame_labels[3], std::string("q 3–4 × k 2"));
        // The page's current tile is 1, earlier ones 0.5.
        const attn::StepMatrix& later = matrix(tiles_, "tile-map", 3);
        QCOMPARE(later.values(1, 1), 1.0f);
        QCOMPARE(later.values(0, 1), 0.5f);
        QCOMPARE(later.values(2, 0), 0.0f);
        QCOMPARE(attn::explain_cell(tiles_, later, 0, 3),
                 std::string("T₁₄ = 0: tile q 1–2 × k 4, skipped: every key comes after every "
                             "query"));
        QCOMPARE(attn::explain_cell(tiles_, later, 0, 1),
                 std::string("T₁₂ = 0.5: tile q 1–2 × k 2, computed earlier: only m, ℓ and o "
                             "were kept"));
    }

    void runningMaxAndSumMatchPyTorch() {
        const int n = static_cast<int>(std::size(ref::kTiles));
        QCOMPARE(n, tiles_.frame_count);
        for (int f = 0; f < n; ++f) {
            const ref::Tile& t = ref::kTiles[f];
            const attn::StepMatrix& m = matrix(tiles_, "running-max", f);
            QCOMPARE(m.row_offset, Eigen::Index{t.query_start});
            QCOMPARE(matrix(tiles_, "tile-scores", f).col_offset, Eigen::Index{t.key_start});
            for (Eigen::Index i = 0; i < 2; ++i) {
                QVERIFY(std::abs(m.values(i, 0) - t.m[i]) < 1e-6f);
                QVERIFY(std::abs(matrix(tiles_, "running-sum", f).values(i, 0) - t.l[i]) < 1e-6f);
                QVERIFY(std::abs(matrix(tiles_, "rescale", f).values(i, 0) - t.scale[i]) < 1e-6f);
                for (Eigen::Index c = 0; c < 2; ++c)
                    QVERIFY(std::abs(matrix(tiles_, "running-output", f).values(i, c) - t.o[i][c]) <
                            1e-6f);
            }
        }
    }

    void tiledContextEqualsStep11() {
        const int last = tiles_.frame_count - 1;
        const Matrix& tiled = matrix(tiles_, "tiled-context", last).values;
        QVERIFY(maxDiff(tiled, step11Context()) < 1e-6);
        QVERIFY(maxDiff(tiled, fromArray(ref::kTiledContext)) < 1e-6);
        QVERIFY(maxDiff(tiled, fromArray(ref::kCausalContext)) < 1e-6);
        QVERIFY(fact(tiles_, "max_abs_diff", last) < 1e-6);
        // Before a query tile's last key tile its rows are not done yet.
        QVERIFY(tiles_.find("tiled-context", 0) == nullptr);
        QCOMPARE(matrix(tiles_, "tiled-context", 1).values.rows(), Eigen::Index{2});
    }

    void otherTileSizesGiveTheSameContext() {
        attn::WalkthroughConfig config;
        config.query_tile = 4;
        config.key_tile = 4;
        const std::vector<attn::Step> steps =
            attn::build_walkthrough(attn::tutorial_inputs(), config);
        const attn::Step& tiles = stepById(steps, "flash-tiles");
        QCOMPARE(tiles.frame_count, 3);  // (1–4 × 1–4), (5–6 × 1–4), (5–6 × 5–6)
        QVERIFY(maxDiff(matrix(tiles, "tiled-context", 2).values, step11Context()) < 1e-6);
    }

    void theFullMatrixIsNeverStored() {
        for (const auto* list : {&tiles_.matrices, &tiles_.operands})
            for (const attn::StepMatrix& m : *list)
                QVERIFY2(!(m.values.rows() == 6 && m.values.cols() == 6), m.id.c_str());
        QCOMPARE(fact(tiles_, "scores_bytes_4096"), 4096.0 * 4096.0 * 4.0);
        QCOMPARE(fact(tiles_, "tiled_bytes_4096"), (2.0 * 4096.0 + 2.0) * 4.0);
        QCOMPARE(tiles_.arg("scores_bytes"), std::string("67108864"));
        QCOMPARE(tiles_.arg("tiled_bytes"), std::string("32776"));
    }

    void tileHoverArithmetic() {
        // Tile (queries 1–2, key 2): journey's maximum grows from ω̃₂₁ to ω̃₂₂.
        const int f = 1;
        QCOMPARE(attn::explain_cell(tiles_, matrix(tiles_, "tile-scores", f), 0, 0),
                 std::string("ω̃₁₂ = −∞: key 2 comes after query 1, masked inside the tile"));
        QCOMPARE(attn::explain_cell(tiles_, matrix(tiles_, "tile-scores", f), 1, 0),
                 std::string("ω̃₂₂ = q₂ · k₂ / √2 = ((−0.3021)·(−0.8709) + (−0.0289)·0.1008) / "
                             "1.4142 = 0.1840"));
        QCOMPARE(attn::explain_cell(tiles_, matrix(tiles_, "running-max", f), 1, 0),
                 std::string("m₂ = max(m_old, the tile's ω̃) = max(0.1170, 0.1840) = 0.1840"));
        QCOMPARE(attn::explain_cell(tiles_, matrix(tiles_, "rescale", f), 1, 0),
                 std::string("s₂ = exp(m_old − m_new) = exp(0.1170 − 0.1840) = 0.9352: the "
                             "maximum grew, so ℓ and o so far shrink by this factor"));
        QCOMPARE(attn::explain_cell(tiles_, matrix(tiles_, "rescale", f), 0, 0),
                 std::string("s₁ = exp(m_old − m_new) = exp(0.2200 − 0.2200) = 1.0000: the "
                             "maximum did not grow, nothing to rescale"));
        QCOMPARE(attn::explain_cell(tiles_, matrix(tiles_, "running-sum", f), 1, 0),
                 std::string("ℓ₂ = ℓ_old · s₂ + Σⱼ exp(ω̃₂ⱼ − m₂) = 1.0000 · 0.9352 + "
                             "exp(0.1840 − 0.1840) = 1.9352"));
        QCOMPARE(attn::explain_cell(tiles_, matrix(tiles_, "running-output", f), 1, 0),
                 std::string("o₂₁ = o_old · s₂ + Σⱼ exp(ω̃₂ⱼ − m₂) · vⱼ₁ = (−0.4519) · 0.9352 + "
                             "exp(0.1840 − 0.1840)·(−0.7142) = −1.1368"));
        QCOMPARE(attn::explain_cell(tiles_, matrix(tiles_, "tiled-context", f), 1, 0),
                 std::string("z₂₁ = o₂₁ / ℓ₂ = (−1.1368) / 1.9352 = −0.5874"));
        // Rows of a later query tile are named by their place in the whole sequence.
        QCOMPARE(attn::explain_cell(tiles_, matrix(tiles_, "running-max", 2), 0, 0),
                 std::string("m₃ = max(m_old, the tile's ω̃) = max(−∞, 0.1179) = 0.1179"));
        // Every drawn cell of both chapters has its arithmetic.
        for (const attn::Step* s : {&masks_, &tiles_})
            for (const attn::StepMatrix& m : s->matrices)
                for (Eigen::Index r = 0; r < m.values.rows(); ++r)
                    for (Eigen::Index c = 0; c < m.values.cols(); ++c)
                        QVERIFY2(!attn::explain_cell(*s, m, r, c).empty(), m.id.c_str());
    }
};

QTEST_APPLESS_MAIN(TestWalkthroughChapters)
#include "test_walkthrough_chapters.moc"
