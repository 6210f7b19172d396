// The walkthrough's chapters "Grouped-query attention", "Masks beyond causal", "Rotary position
// embeddings" and "FlashAttention's tiles": their numbers against plain PyTorch
// (tests/reference/chapters_walk_reference.py), the tiled result against step 11, GQA against
// MultiHeadAttention, RoPE's shift property, and the hover arithmetic of every new derivation.
#include <QtTest>
#include <cmath>

#include "model/modules.h"
#include "model/rng.h"
#include "model/runner.h"
#include "model/walkthrough.h"
#include "model/walkthrough_chapters.h"
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
    const attn::Step& gqa_ = stepById(steps_, "gqa");
    const attn::Step& rope_ = stepById(steps_, "rope");

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

    // Every step's PyTorch code is Python a student can paste: a line opening a block (ending in
    // ':' before any comment) is followed by a more indented line.
    void everySnippetIndentsItsBlocks() {
        for (const attn::Step& step : steps_)
            for (const std::string* code : {&step.snippet, &step.inference_snippet}) {
                std::vector<std::string> lines;
                std::size_t from = 0;
                while (from <= code->size()) {
                    const std::size_t to = std::min(code->find('\n', from), code->size());
                    lines.push_back(code->substr(from, to - from));
                    from = to + 1;
                }
                auto indent = [](const std::string& l) { return l.find_first_not_of(' '); };
                for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
                    std::string body = lines[i].substr(0, lines[i].find('#'));
                    body.erase(body.find_last_not_of(' ') + 1);
                    if (body.empty() || body.back() != ':') continue;
                    QVERIFY2(indent(lines[i + 1]) > indent(lines[i]),
                             qPrintable(QString("step %1: \"%2\" opens a block but \"%3\" is not "
                                                "indented under it")
                                            .arg(step.number)
                                            .arg(QString::fromStdString(lines[i]),
                                                 QString::fromStdString(lines[i + 1]))));
                }
            }
    }

    void chaptersInTheirOrder() {
        // GQA, masks, RoPE, tiles right after the tutorial's sixteen steps.
        QCOMPARE(gqa_.number, 17);
        QCOMPARE(masks_.number, 18);
        QCOMPARE(rope_.number, 19);
        QCOMPARE(tiles_.number, 20);
        QCOMPARE(gqa_.frame_labels, (std::vector<std::string>{"mqa", "gqa", "mha"}));
        QCOMPARE(rope_.frame_labels, (std::vector<std::string>{"reversed", "rope", "shift"}));
    }

    void gqaMatchesPyTorch() {
        struct Frame {
            const char* label;
            int kv_heads;
            const float (*weights[4])[6][6];
            Matrix keys;
            const float (*output)[6][8];
            int cache_bytes;
        };
        const Frame frames[] = {
            {"mqa",
             1,
             {&ref::kGqa1Weights1, &ref::kGqa1Weights2, &ref::kGqa1Weights3, &ref::kGqa1Weights4},
             fromArray(ref::kGqa1Keys),
             &ref::kGqa1Output,
             ref::kGqa1CacheBytes},
            {"gqa",
             2,
             {&ref::kGqa2Weights1, &ref::kGqa2Weights2, &ref::kGqa2Weights3, &ref::kGqa2Weights4},
             fromArray(ref::kGqa2Keys),
             &ref::kGqa2Output,
             ref::kGqa2CacheBytes},
            {"mha",
             4,
             {&ref::kGqa4Weights1, &ref::kGqa4Weights2, &ref::kGqa4Weights3, &ref::kGqa4Weights4},
             fromArray(ref::kGqa4Keys),
             &ref::kGqa4Output,
             ref::kGqa4CacheBytes},
        };
        for (const Frame& fr : frames) {
            const int f = frameOf(gqa_, fr.label);
            QVERIFY(f >= 0);
            for (int h = 0; h < 4; ++h) {
                const attn::StepMatrix& w =
                    matrix(gqa_, "gqa-weights-head-" + std::to_string(h + 1), f);
                QVERIFY2(maxDiff(w.values, fromArray(*fr.weights[h])) < 1e-6, fr.label);
                QCOMPARE(w.head, h + 1);
                QCOMPARE(w.kv_head, h / (4 / fr.kv_heads) + 1);  // repeat_interleave's groups
                // The map: one 1 per query head, at its K/V head.
                const Matrix& map = matrix(gqa_, "kv-map", f).values;
                QCOMPARE(map.cols(), Eigen::Index{fr.kv_heads});
                QCOMPARE(map.row(h).sum(), 1.0f);
                QCOMPARE(map(h, h / (4 / fr.kv_heads)), 1.0f);
            }
            QCOMPARE(fr.keys.cols(), Eigen::Index{2 * fr.kv_heads});
            QVERIFY(maxDiff(matrix(gqa_, "gqa-keys", f).values, fr.keys) < 1e-6);
            QVERIFY(maxDiff(matrix(gqa_, "gqa-output", f).values, fromArray(*fr.output)) < 1e-6);
            QCOMPARE(fact(gqa_, "cache_bytes", f), double(fr.cache_bytes));
            QCOMPARE(fact(gqa_, "num_kv_heads", f), double(fr.kv_heads));
        }
        // The cache shrinks by the group factor: 4 query heads over 2, then 1 K/V heads.
        QCOMPARE(ref::kGqa4CacheBytes, 2 * ref::kGqa2CacheBytes);
        QCOMPARE(ref::kGqa4CacheBytes, 4 * ref::kGqa1CacheBytes);
        QCOMPARE(gqa_.arg("mha_cache_bytes"), std::to_string(ref::kGqa4CacheBytes));
        QCOMPARE(gqa_.arg("gqa_cache_bytes"), std::to_string(ref::kGqa2CacheBytes));
        QCOMPARE(gqa_.arg("mqa_cache_bytes"), std::to_string(ref::kGqa1CacheBytes));
    }

    void gqaWithAsManyKvHeadsIsMultiHeadAttention() {
        const int f = frameOf(gqa_, "mha");
        const Matrix& output = matrix(gqa_, "gqa-output", f).values;
        // The seed's MultiHeadAttention in PyTorch, and the engine's module without
        // num_kv_heads: the same numbers, the latter bit for bit.
        QVERIFY(maxDiff(output, fromArray(ref::kMhaOutput)) < 1e-6);
        attn::TorchGenerator gen(123);
        const attn::MultiHeadAttention mha(3, 8, 6, 0.0f, 4, gen);
        QCOMPARE(output, mha.forward({attn::tutorial_inputs().embeddings}).context_vecs[0]);
        QCOMPARE(fact(gqa_, "max_abs_diff_mha", f), 0.0);
        // Fewer K/V heads give other outputs (other W_key, W_value and out_proj draws).
        QVERIFY(maxDiff(matrix(gqa_, "gqa-output", frameOf(gqa_, "gqa")).values, output) > 1e-3);
        QVERIFY(std::isnan(fact(gqa_, "max_abs_diff_mha", frameOf(gqa_, "gqa"))));
    }

    void gqaHoverArithmetic() {
        const int g = frameOf(gqa_, "gqa");
        QCOMPARE(attn::explain_cell(gqa_, matrix(gqa_, "kv-map", g), 2, 1),
                 std::string("r₃₂ = 1: query head 3 reads K/V head 2 = ⌊2 / 2⌋ + 1 (4 query "
                             "heads / 2 K/V heads = groups of 2: query heads 3–4 share it)"));
        QCOMPARE(attn::explain_cell(gqa_, matrix(gqa_, "kv-map", g), 2, 0),
                 std::string("r₃₁ = 0: query head 3 reads K/V head 2, not 1"));
        // Query head 4's scores use K/V head 2's keys.
        const std::string weights =
            attn::explain_cell(gqa_, matrix(gqa_, "gqa-weights-head-4", g), 1, 0);
        QVERIFY2(weights.rfind("head 4: ω̃₂₁ = ω₂₁ / √2", 0) == 0, weights.c_str());
        const attn::StepMatrix* scores = gqa_.find("gqa-scores-head-4", g);
        QVERIFY(scores);
        QCOMPARE(scores->rhs, std::string("gqa-keys-kv-2"));
    }

    void ropeMatchesPyTorch() {
        const int r = frameOf(rope_, "reversed");
        const int p = frameOf(rope_, "rope");
        const int s = frameOf(rope_, "shift");
        // Without RoPE the reversed sentence's scores are the scores reversed: difference 0.
        QVERIFY(maxDiff(matrix(rope_, "rope-scores", r).values, fromArray(ref::kReversedScores)) <
                1e-6);
        Matrix reversed(6, 6);
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) reversed(i, j) = ref::kPlainScores[5 - i][5 - j];
        QVERIFY(maxDiff(matrix(rope_, "rope-scores", r).values, reversed) < 1e-6);
        QVERIFY(fact(rope_, "max_abs_diff", r) < 1e-6);
        QCOMPARE(matrix(rope_, "rope-angles", r).values, Matrix::Zero(6, 1));
        // With RoPE, positions 0-5 and 3-8.
        QVERIFY(maxDiff(matrix(rope_, "rotated-queries", p).values, fromArray(ref::kRopeQueries)) <
                1e-6);
        QVERIFY(maxDiff(matrix(rope_, "rope-scores", p).values, fromArray(ref::kRopeScores)) <
                1e-6);
        QVERIFY(maxDiff(matrix(rope_, "rope-weights", p).values, fromArray(ref::kRopeWeights)) <
                1e-6);
        QVERIFY(fact(rope_, "max_abs_diff", p) > 0.1);  // RoPE changes the scores
        QVERIFY(maxDiff(matrix(rope_, "rotated-queries", s).values,
                        fromArray(ref::kShiftedQueries)) < 1e-6);
        QVERIFY(maxDiff(matrix(rope_, "rope-scores", s).values, fromArray(ref::kShiftedScores)) <
                1e-6);
        QVERIFY(maxDiff(matrix(rope_, "rope-weights", s).values, fromArray(ref::kShiftedWeights)) <
                1e-6);
        QCOMPARE(rope_.arg("rope_shift"), std::to_string(ref::kRopeShift));
    }

    void ropeScoresDependOnlyOnRelativePosition() {
        // PyTorch: scores at positions + 3 equal those at 0-5 to float rounding.
        QVERIFY(maxDiff(fromArray(ref::kShiftedScores), fromArray(ref::kRopeScores)) < 1e-6);
        const int s = frameOf(rope_, "shift");
        QVERIFY(maxDiff(matrix(rope_, "rope-scores", s).values,
                        matrix(rope_, "rope-scores", frameOf(rope_, "rope")).values) < 1e-6);
        QVERIFY(fact(rope_, "max_abs_diff", s) < 1e-6);
        // The angles did move: every one by 3 rad, and the rotated queries differ.
        QVERIFY(maxDiff(matrix(rope_, "rope-angles", s).values,
                        matrix(rope_, "rope-angles", frameOf(rope_, "rope")).values.array() +
                            3.0f) < 1e-6);
        QVERIFY(maxDiff(fromArray(ref::kShiftedQueries), fromArray(ref::kRopeQueries)) > 0.1);
        // Another shift, another sentence width: the same property.
        attn::WalkthroughConfig config;
        config.rope_shift = 40;
        config.d_out = 4;
        const std::vector<attn::Step> steps =
            attn::build_walkthrough(attn::tutorial_inputs(), config);
        const attn::Step& rope = stepById(steps, "rope");
        QCOMPARE(rope.arg("rope_dim"), std::string("4"));
        QVERIFY(fact(rope, "max_abs_diff", frameOf(rope, "shift")) < 1e-5);
        QVERIFY(fact(rope, "max_abs_diff", frameOf(rope, "rope")) > 1e-3);
    }

    void ropeHoverArithmetic() {
        const int p = frameOf(rope_, "rope");
        QCOMPARE(attn::explain_cell(rope_, matrix(rope_, "rope-angles", p), 1, 0),
                 std::string("θ₂₁ = position · θ₁ = 1 · 10000^(−2·0/2) = 1 · 1.0000 = 1.0000 rad"));
        QCOMPARE(
            attn::explain_cell(rope_, matrix(rope_, "rope-angles", frameOf(rope_, "shift")), 1, 0),
            std::string("θ′₂₁ = position · θ₁ = (3 + 1) · 10000^(−2·0/2) = 4 · 1.0000 = "
                        "4.0000 rad"));
        QCOMPARE(attn::explain_cell(rope_, matrix(rope_, "rope-angles", frameOf(rope_, "reversed")),
                                    1, 0),
                 std::string("θ₂₁ = 0: without RoPE nothing turns"));
        // "journey" (position 1) turns by 1 rad: qʳ = (q₁ cos 1 − q₂ sin 1, q₂ cos 1 + q₁ sin 1).
        QCOMPARE(attn::explain_cell(rope_, matrix(rope_, "rotated-queries", p), 1, 0),
                 std::string("qʳ₂₁ = q₂₁·cos θ − q₂₂·sin θ, θ = θ₂₁ = 1.0000 rad: "
                             "(−0.3021)·0.5403 − (−0.0289)·0.8415 = −0.1389"));
        QCOMPARE(attn::explain_cell(rope_, matrix(rope_, "rotated-queries", p), 1, 1),
                 std::string("qʳ₂₂ = q₂₂·cos θ + q₂₁·sin θ, θ = θ₂₁ = 1.0000 rad: "
                             "(−0.0289)·0.5403 + (−0.3021)·0.8415 = −0.2698"));
        QVERIFY(std::abs(ref::kRopeQueries[1][0] - (-0.1389f)) < 5e-5f);
        QVERIFY(std::abs(ref::kRopeQueries[1][1] - (-0.2698f)) < 5e-5f);
    }

    void tilesStepForAnyRun() {
        // explore mode's Tiles tab: the same tiles for other inputs, causal or not.
        attn::TorchGenerator gen(7);
        const Matrix q = gen.rand(5, 4), k = gen.rand(5, 4), v = gen.rand(5, 3);
        const std::vector<std::string> tokens = {"a", "b", "c", "d", "e"};
        const attn::Step causal = attn::tiles_step(q, k, v, tokens, true, 2, 2, 3, "flash-tiles");
        QCOMPARE(causal.number, 3);
        QCOMPARE(causal.frame_count, 6);  // 3 query tiles × 3 key tiles, 3 above the diagonal
        QCOMPARE(causal.arg("tiles_skipped"), std::string("3"));
        QVERIFY(fact(causal, "max_abs_diff", causal.frame_count - 1) < 1e-6);
        const attn::Step full = attn::tiles_step(q, k, v, tokens, false, 2, 2);
        QCOMPARE(full.frame_count, 9);
        QCOMPARE(full.arg("tiles_skipped"), std::string("0"));
        QVERIFY(fact(full, "max_abs_diff", full.frame_count - 1) < 1e-6);
        QCOMPARE(matrix(full, "tiled-context", full.frame_count - 1).values.cols(),
                 Eigen::Index{3});
        // Bad input: one clear message, no crash.
        QVERIFY_THROWS_EXCEPTION(attn::AttentionError,
                                 attn::tiles_step(q, k, v, {"a"}, true, 2, 2));
        QVERIFY_THROWS_EXCEPTION(attn::AttentionError,
                                 attn::tiles_step(q, k, v, tokens, true, 0, 2));
        QVERIFY_THROWS_EXCEPTION(attn::AttentionError,
                                 attn::tiles_step(q, k.leftCols(3), v, tokens, true, 2, 2));
    }

    void tilesStepNumberIsTheWalkthroughs() {
        QCOMPARE(tiles_.number, attn::kFlashTilesStepNumber);
        QCOMPARE(tiles_.number, 20);
    }

    // Explore mode's Tiles tab: a run's head tiled, with what the tab says beside the page.
    void runTilesOfAHead() {
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::MultiHeadAttention;
        config.d_out = 4;  // 2 heads of head_dim 2, causal by default
        const attn::Sequence inputs = attn::tutorial_inputs();
        const attn::RunResult run = attn::run_module(config, inputs);
        const attn::RunTiles tiles = attn::run_tiles(run, inputs.tokens, 1, 2, 1, 400);
        QVERIFY(tiles.status == attn::RunTiles::Status::Tiled);
        QCOMPARE(tiles.num_heads, Eigen::Index{2});
        QCOMPARE(tiles.num_tokens, Eigen::Index{6});
        QCOMPARE(tiles.head, Eigen::Index{1});
        QVERIFY(tiles.causal);
        QVERIFY(!tiles.grouped);
        QCOMPARE(tiles.tiles, Eigen::Index{12});  // 2 + 4 + 6 tiles below the diagonal
        QCOMPARE(tiles.step.frame_count, 12);
        QCOMPARE(tiles.step.number, 20);
        QCOMPARE(tiles.step.id, std::string("flash-tiles"));
        QCOMPARE(tiles.step.arg("num_tokens"), std::string("6"));
        QVERIFY(tiles.matches_run);
        QVERIFY(tiles.max_abs_diff < 1e-5f);
        QVERIFY(maxDiff(matrix(tiles.step, "tiled-context", 11).values,
                        run.output.heads[0][1].context) < 1e-5);
        // Out-of-range choices are clamped to the run: the last head, tiles of 1..T.
        const attn::RunTiles clamped = attn::run_tiles(run, inputs.tokens, 7, 0, 100, 400);
        QCOMPARE(clamped.head, Eigen::Index{1});
        QCOMPARE(clamped.query_tile, Eigen::Index{1});
        QCOMPARE(clamped.key_tile, Eigen::Index{6});
        QCOMPARE(clamped.tiles, Eigen::Index{6});  // one key tile per query row
        // More tiles than a page steps through: counted, not computed.
        const attn::RunTiles many = attn::run_tiles(run, inputs.tokens, 0, 1, 1, 20);
        QVERIFY(many.status == attn::RunTiles::Status::TooManyTiles);
        QCOMPARE(many.tiles, Eigen::Index{21});
        QCOMPARE(many.step.frame_count, 0);
        // Tokens that do not match the rows: the engine's message.
        const attn::RunTiles refused = attn::run_tiles(run, {"a", "b"}, 0, 2, 1, 400);
        QVERIFY(refused.status == attn::RunTiles::Status::Refused);
        QVERIFY2(refused.error.find("give one token per row") != std::string::npos,
                 refused.error.c_str());
        QVERIFY(attn::run_tiles(attn::RunResult{}, inputs.tokens, 0, 2, 1, 400).status ==
                attn::RunTiles::Status::NoRun);
    }

    void runTilesSayWhyNot() {
        const attn::Sequence inputs = attn::tutorial_inputs();
        attn::ModuleConfig config;
        // A sliding window the tiles do not know: the head differs from its tiles.
        config.module = attn::ModuleKind::MultiHeadAttention;
        config.d_out = 4;
        config.window = 2;
        const attn::RunTiles window =
            attn::run_tiles(attn::run_module(config, inputs), inputs.tokens, 0, 2, 1, 400);
        QVERIFY(window.status == attn::RunTiles::Status::Tiled);
        QVERIFY(!window.matches_run);
        QVERIFY(window.max_abs_diff > 1e-4f);
        // Grouped-query attention: query head 3 of 4 reads K/V head 1 of 1.
        config.window = 0;
        config.d_out = 8;
        config.num_heads = 4;
        config.num_kv_heads = 1;
        const attn::RunTiles grouped =
            attn::run_tiles(attn::run_module(config, inputs), inputs.tokens, 2, 2, 1, 400);
        QVERIFY(grouped.status == attn::RunTiles::Status::Tiled);
        QVERIFY(grouped.grouped);
        QCOMPARE(grouped.kv_head, Eigen::Index{0});
        QVERIFY(grouped.matches_run);
        // A run without per-head projections (the queries not kept) has nothing to split.
        attn::RunResult unsplit = attn::run_module(config, inputs);
        unsplit.output.queries.clear();
        QVERIFY(attn::run_tiles(unsplit, inputs.tokens, 0, 2, 1, 400).status ==
                attn::RunTiles::Status::NotSplit);
        attn::ModuleConfig cross;
        cross.module = attn::ModuleKind::CrossAttention;
        QVERIFY(
            attn::run_tiles(attn::run_module(cross, inputs), inputs.tokens, 0, 2, 1, 400).status ==
            attn::RunTiles::Status::CrossAttention);
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
        // Every drawn cell of the chapters has its arithmetic.
        for (const attn::Step* s : {&gqa_, &masks_, &rope_, &tiles_})
            for (const attn::StepMatrix& m : s->matrices)
                for (Eigen::Index r = 0; r < m.values.rows(); ++r)
                    for (Eigen::Index c = 0; c < m.values.cols(); ++c)
                        QVERIFY2(!attn::explain_cell(*s, m, r, c).empty(), m.id.c_str());
    }
};

QTEST_APPLESS_MAIN(TestWalkthroughChapters)
#include "test_walkthrough_chapters.moc"
