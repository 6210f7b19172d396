// Explore mode's views: the KV-cache stepper's outputs equal the full pass at every
// step, its counters and cache size; the heads grid, the lines view and the weight split draw
// the engine's numbers.
#include <QAbstractItemModel>
#include <QCheckBox>
#include <QImage>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <cmath>
#include <tuple>

#include "model/examples.h"
#include "model/kv_trace.h"
#include "model/number_format.h"
#include "model/runner.h"
#include "views/explore_heads_grid.h"
#include "views/explore_kv_stepper.h"
#include "views/explore_lines_view.h"
#include "views/explore_tiles_view.h"
#include "views/explore_weight_editor.h"
#include "views/explore_weight_split.h"
#include "views/heatmap_widget.h"
#include "views/language.h"
#include "views/step_page.h"

namespace {

attn::Matrix weightNamed(const attn::RunResult& run, const std::string& name) {
    for (const attn::NamedMatrix& w : run.weights)
        if (w.name == name) return w.value;
    return {};
}

}  // namespace

class TestExploreViews : public QObject {
    Q_OBJECT

    views::Translation translation_;

private slots:
    // As the app starts: English, whose plural forms ("1 token", "2 tokens") come from its own
    // small translation file.
    void initTestCase() { QVERIFY(translation_.install(QStringLiteral("en"))); }

    void kvTraceEqualsFullPass_data() {
        QTest::addColumn<int>("tokens");
        QTest::addColumn<int>("dIn");
        QTest::addColumn<int>("dOut");
        QTest::addColumn<int>("heads");
        QTest::addColumn<bool>("bias");
        // Multiplications for the last token, counted by hand: with the cache, its q, k and v
        // (3 · d_in · d_out), its scores and weighted sum over T keys and values (2 · T · d_out)
        // and out_proj (d_out²); without, the same for all T tokens (3 · T · d_in · d_out +
        // 2 · T² · d_out + T · d_out²).
        QTest::addColumn<qint64>("lastCached");
        QTest::addColumn<qint64>("lastFull");
        QTest::newRow("tutorial T=6 d_out=2 H=2") << 6 << 3 << 2 << 2 << false << 46LL << 276LL;
        QTest::newRow("T=1") << 1 << 3 << 4 << 2 << false << 60LL << 60LL;
        QTest::newRow("T=12 d_out=8 H=4 bias") << 12 << 5 << 8 << 4 << true << 376LL << 4512LL;
        QTest::newRow("one head") << 7 << 4 << 4 << 1 << false << 120LL << 840LL;
    }
    void kvTraceEqualsFullPass() {
        QFETCH(int, tokens);
        QFETCH(int, dIn);
        QFETCH(int, dOut);
        QFETCH(int, heads);
        QFETCH(bool, bias);
        QFETCH(qint64, lastCached);
        QFETCH(qint64, lastFull);
        const attn::Sequence inputs = attn::random_sequence(tokens, dIn, 9);
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::MultiHeadAttention;
        config.d_out = dOut;
        config.num_heads = heads;
        config.qkv_bias = bias;
        const attn::RunResult run = attn::run_module(config, inputs);
        const attn::KvTraceConfig kv = attn::kv_trace_config(run, dIn);
        const attn::KvTrace trace = attn::build_kv_trace(inputs, kv);
        QCOMPARE(trace.steps.size(), static_cast<std::size_t>(tokens));
        QCOMPARE(trace.num_heads, Eigen::Index{heads});
        const Eigen::Index hd = dOut / heads;
        // The same module's full forward pass over all tokens (causal): row t is token t's output.
        const attn::Matrix& full = run.output.context_vecs[0];
        for (int t = 0; t < tokens; ++t) {
            const attn::KvTraceStep& s = trace.steps[static_cast<std::size_t>(t)];
            // float sums in a different order: 1e-5 covers the rounding of these small widths.
            QVERIFY2((s.output - full.row(t)).cwiseAbs().maxCoeff() <= 1e-5f,
                     qPrintable(QString::number(t)));
            QVERIFY((s.output - s.full_output).cwiseAbs().maxCoeff() <= 1e-5f);
            QCOMPARE(s.cache_keys[0].rows(), Eigen::Index{t + 1});
            QCOMPARE(s.attn_weights[0].cols(), Eigen::Index{t + 1});
            QVERIFY(std::abs(s.attn_weights[0].sum() - 1.0f) <= 1e-5f);
            // Cache size: 2 × heads × tokens × head_dim × 4 bytes.
            QCOMPARE(s.cache_bytes, static_cast<std::size_t>(2 * heads * (t + 1) * hd * 4));
            // The new key row is the token's own key, as the full pass computes it.
            QVERIFY((s.cache_keys[0].row(t) - run.output.keys[0].row(t).leftCols(hd))
                        .cwiseAbs()
                        .maxCoeff() <= 1e-6f);
            // Without the cache each of the t + 1 rows costs what the cached step costs for its
            // one row (every row scored against all t + 1 keys); each further token adds one
            // cached key and one cached value to multiply, d_out numbers each.
            QCOMPARE(s.mults_full, std::int64_t{t + 1} * s.mults_cached);
            if (t > 0)
                QCOMPARE(s.mults_cached - trace.steps[static_cast<std::size_t>(t - 1)].mults_cached,
                         std::int64_t{2 * dOut});
        }
        QCOMPARE(trace.steps.back().mults_cached, std::int64_t{lastCached});
        QCOMPARE(trace.steps.back().mults_full, std::int64_t{lastFull});
        QVERIFY(trace.max_abs_diff <= 1e-5f);
        if (tokens > 1) QVERIFY(trace.steps.back().total_cached < trace.steps.back().total_full);
    }

    void stepperShowsTheStep() {
        const attn::Sequence inputs = attn::tutorial_inputs();
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::MultiHeadAttention;
        config.d_out = 4;
        const attn::RunResult run = attn::run_module(config, inputs);
        views::ExploreKvStepper stepper;
        stepper.resize(1000, 700);
        stepper.setTrace(attn::build_kv_trace(inputs, attn::kv_trace_config(run, 3)),
                         {"Your", "journey", "starts", "with", "one", "step"});
        stepper.setStep(3);
        QCOMPARE(stepper.keysHeatmap()->rowCount(), 4);
        QCOMPARE(stepper.keysHeatmap()->highlightedRow(), std::optional<int>(3));
        QCOMPARE(stepper.weightsHeatmap()->columnCount(), 4);
        QCOMPARE(stepper.outputHeatmap()->rowCount(), 2);
        // Row 1: decode_step with the cache; row 2: the fast causal pass over the 4 tokens, a
        // different summation order, so equal to float rounding.
        for (int c = 0; c < 4; ++c)
            QVERIFY(std::abs(stepper.outputHeatmap()->inputValue(0, c) -
                             stepper.outputHeatmap()->inputValue(1, c)) <= 1e-6);
        // 2 heads × 4 tokens × head_dim 2 × 2 tensors × 4 bytes = 128
        QVERIFY2(stepper.countersText().contains(QStringLiteral("128")),
                 qPrintable(stepper.countersText()));
        QVERIFY2(stepper.explanationText().contains(QStringLiteral("the 3 earlier tokens")),
                 qPrintable(stepper.explanationText()));
        stepper.setStep(0);  // nothing cached yet: no "0 earlier tokens"
        QVERIFY2(stepper.explanationText().contains(QStringLiteral("the cache is empty")),
                 qPrintable(stepper.explanationText()));
        stepper.setStep(99);
        QCOMPARE(stepper.step(), 5);
        stepper.setHead(1);
        QCOMPARE(stepper.keysHeatmap()->rowCount(), 6);
    }

    void headsGridSharedAndHover() {
        const attn::Sequence inputs = attn::tutorial_inputs();
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::MultiHeadAttention;
        config.d_out = 4;
        config.num_heads = 4;
        const attn::RunResult run = attn::run_module(config, inputs);
        std::vector<attn::Matrix> weights;
        for (const attn::AttentionResult& h : run.output.heads[0]) weights.push_back(h.weights);
        views::ExploreHeadsGrid grid;
        grid.setHeads(weights, {"a", "b", "c", "d", "e", "f"}, {"a", "b", "c", "d", "e", "f"});
        QCOMPARE(grid.headCount(), 4);
        QCOMPARE(grid.heatmap(2)->inputValue(4, 1), double{weights[2](4, 1)});
        // Each row its own range by default: with causal attention the first row's 1.0 would
        // wash out the others.
        QCOMPARE(grid.range(), views::ExploreHeadsGrid::Range::PerRow);
        QCOMPARE(grid.heatmap(0)->rangeMode(), views::HeatmapWidget::RangeMode::Row);
        grid.setRange(views::ExploreHeadsGrid::Range::Shared);
        QVERIFY(!grid.heatmap(0)->isAutoRange());
        QCOMPARE(grid.heatmap(0)->rangeUpper(), grid.heatmap(3)->rangeUpper());
        grid.setRange(views::ExploreHeadsGrid::Range::PerHead);
        QVERIFY(grid.heatmap(0)->isAutoRange());
        QCOMPARE(grid.heatmap(0)->rangeMode(), views::HeatmapWidget::RangeMode::Matrix);
        grid.highlightRow(2);
        for (int h = 0; h < 4; ++h)
            QCOMPARE(grid.heatmap(h)->highlightedRow(), std::optional<int>(2));
        views::HeatmapWidget* big = grid.enlarge(1);
        QVERIFY(big);
        QCOMPARE(big->inputValue(5, 5), double{weights[1](5, 5)});
        QVERIFY(!grid.simplified());
        // A long sequence is drawn as block averages and says so.
        grid.setHeads({attn::Matrix::Constant(300, 300, 1.0f / 300.0f)}, {}, {});
        QVERIFY(grid.simplified());
        QCOMPARE(grid.heatmap(0)->rowCount(), int{views::ExploreHeadsGrid::kMaxGridCells});
    }

    void headsOfALongCausalExampleDifferOnlyWithTheirOwnRanges() {
        // 32 tokens, 12 heads: row 1 of every head is 1.0 (the first token sees itself only), so
        // a range shared by all heads puts every later row near the bottom of the map.
        const attn::Sequence inputs = attn::random_sequence(32, 12, 5);
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::MultiHeadAttention;
        config.d_out = 12;
        config.num_heads = 12;
        const attn::RunResult run = attn::run_module(config, inputs);
        std::vector<attn::Matrix> weights;
        std::vector<attn::BoolMatrix> blocked;
        for (const attn::AttentionResult& h : run.output.heads[0]) {
            weights.push_back(h.weights);
            blocked.push_back(h.blocked);
        }
        views::ExploreHeadsGrid grid;
        grid.resize(1200, 900);
        grid.setHeads(weights, {}, {}, blocked);
        QCOMPARE(grid.headCount(), 12);
        // Colour spread of row 20 (keys 1..20) of head 3: how far apart its cells' colours lie.
        const auto spread = [&grid] {
            views::HeatmapWidget* map = grid.heatmap(2);
            int lo = 255 * 3, hi = 0;
            for (int c = 0; c < 20; ++c) {
                const QColor k = map->cellColor(19, c);
                lo = std::min(lo, k.red() + k.green() + k.blue());
                hi = std::max(hi, k.red() + k.green() + k.blue());
            }
            return hi - lo;
        };
        grid.setRange(views::ExploreHeadsGrid::Range::Shared);
        const int shared = spread();
        const QColor sharedCell = grid.heatmap(2)->cellColor(19, 0);
        grid.setRange(views::ExploreHeadsGrid::Range::PerRow);
        const int perRow = spread();
        QVERIFY2(perRow > 2 * shared,
                 qPrintable(QStringLiteral("%1 vs %2").arg(perRow).arg(shared)));
        QVERIFY(grid.heatmap(2)->cellColor(19, 0) != sharedCell);
        // Only the colours change: the value under the cell stays the weight.
        QCOMPARE(grid.heatmap(2)->inputValue(19, 0), double{weights[2](19, 0)});
    }

    void headsGridMarksDroppedCellsAndExplainsThem() {
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::MultiHeadAttention;
        config.d_out = 2;
        config.num_heads = 2;
        config.dropout = 0.5f;
        const attn::RunResult run = attn::run_module(config, attn::tutorial_inputs());
        std::vector<attn::Matrix> weights;
        std::vector<attn::BoolMatrix> dropped;
        for (const attn::AttentionResult& h : run.output.heads[0]) {
            weights.push_back(h.dropped);
            dropped.push_back(h.kept.unaryExpr([](bool k) { return !k; }));
        }
        views::ExploreHeadsGrid grid;
        grid.setTooltipProvider([](int head, int row, int column) {
            return QStringLiteral("head %1 cell %2,%3").arg(head).arg(row).arg(column);
        });
        grid.setHeads(weights, {}, {}, {}, dropped);
        int marked = 0;
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) {
                QCOMPARE(grid.heatmap(1)->cellDropped(i, j), dropped[1](i, j));
                marked += dropped[1](i, j) ? 1 : 0;
            }
        QVERIFY(marked > 0);
        QCOMPARE(grid.heatmap(1)->tooltipText(4, 2), QStringLiteral("head 1 cell 4,2"));
        QCOMPARE(grid.enlarge(1)->tooltipText(3, 0), QStringLiteral("head 1 cell 3,0"));
    }

    void linesViewHeadsItsColumns() {
        views::ExploreLinesView lines;
        QCOMPARE(lines.leftHeading(), QStringLiteral("queries"));
        QCOMPARE(lines.rightHeading(), QStringLiteral("keys"));
        lines.resize(500, 300);
        lines.setData({"a", "b"}, {"x", "y", "z"}, {attn::Matrix::Constant(2, 3, 1.0f / 3.0f)});
        // The headings are drawn: the strip above the first token holds text pixels.
        const QImage image = lines.grab().toImage();
        QVERIFY(!image.isNull());
        lines.setHeadings(QStringLiteral("target (queries)"), QStringLiteral("source (keys)"));
        QCOMPARE(lines.leftHeading(), QStringLiteral("target (queries)"));
        lines.setHeadings({}, {});
        QCOMPARE(lines.rightHeading(), QStringLiteral("keys"));
    }

    void stepperSaysTokensAndHeadsInTheRightNumber() {
        const attn::Sequence inputs = attn::random_sequence(3, 4, 2);
        attn::KvTraceConfig config;
        config.d_out = 4;
        config.num_heads = 1;
        config.cache_snapshots = true;
        views::ExploreKvStepper stepper;
        stepper.setTrace(attn::build_kv_trace(inputs, config), {"a", "b", "c"});
        stepper.setStep(1);
        QVERIFY2(stepper.explanationText().contains(QStringLiteral("the 1 earlier token are")),
                 qPrintable(stepper.explanationText()));
        QVERIFY2(stepper.countersText().contains(QStringLiteral("2 × 1 head × 2 tokens")),
                 qPrintable(stepper.countersText()));
        stepper.setStep(0);
        QVERIFY2(stepper.countersText().contains(QStringLiteral("(recomputing 1 token)")),
                 qPrintable(stepper.countersText()));
    }

    void stepperExplainsItsCells() {
        const attn::Sequence inputs = attn::random_sequence(4, 4, 3);
        attn::KvTraceConfig config;
        config.d_out = 4;
        config.num_heads = 2;
        config.cache_snapshots = true;
        const attn::KvTrace trace = attn::build_kv_trace(inputs, config);
        views::ExploreKvStepper stepper;
        stepper.setTrace(trace, {"a", "b", "c", "d"});
        stepper.setStep(2);
        stepper.setHead(1);
        const attn::KvTraceStep& step = trace.steps[2];
        const QString weight = stepper.weightsHeatmap()->tooltipText(0, 1);
        QVERIFY2(weight.startsWith(QStringLiteral("ω₃₂ = q₃ · k₂")), qPrintable(weight));
        QVERIFY2(
            weight.endsWith(QString::fromStdString(attn::format_fixed(step.attn_weights[1](1)))),
            qPrintable(weight));
        QVERIFY(stepper.keysHeatmap()->tooltipText(0, 1).contains(QStringLiteral("read back")));
        QVERIFY(stepper.valuesHeatmap()->tooltipText(2, 0).contains(QStringLiteral("appended")));
        QVERIFY(stepper.outputHeatmap()->tooltipText(1, 0).contains(QStringLiteral("recomputed")));
    }

    // Grouped-query attention: the cache holds one K/V head; query head 2 is drawn and explained
    // with that head's keys and values.
    void stepperDrawsTheKvHeadAQueryHeadReads() {
        const attn::Sequence inputs = attn::random_sequence(4, 4, 5);
        attn::KvTraceConfig config;
        config.d_out = 4;
        config.num_heads = 2;
        config.num_kv_heads = 1;
        config.cache_snapshots = true;
        const attn::KvTrace trace = attn::build_kv_trace(inputs, config);
        QCOMPARE(trace.steps[2].cache_keys.size(), std::size_t{1});
        views::ExploreKvStepper stepper;
        stepper.setTrace(trace, {"a", "b", "c", "d"});
        QCOMPARE(stepper.kvHeads(), 1);
        stepper.setStep(2);
        stepper.setHead(1);
        const attn::Matrix& keys = trace.steps[2].cache_keys[0];
        const attn::Matrix& values = trace.steps[2].cache_values[0];
        QCOMPARE(stepper.keysHeatmap()->rowCount(), 3);
        QCOMPARE(stepper.keysHeatmap()->inputValue(1, 1), static_cast<double>(keys(1, 1)));
        QCOMPARE(stepper.valuesHeatmap()->inputValue(2, 0), static_cast<double>(values(2, 0)));
        QVERIFY(stepper.keysHeatmap()->title().contains(QStringLiteral("K/V head 1")));
        const QString hover = stepper.keysHeatmap()->tooltipText(1, 1);
        QVERIFY2(hover.contains(QStringLiteral("W_key (head 1, column 2)")), qPrintable(hover));
    }

    // The Tiles tab draws the record it is given: the page, the note, the choosers clamped to the
    // run; choosing asks for new tiles instead of computing them.
    void tilesViewDrawsItsRecord() {
        const attn::Sequence inputs = attn::tutorial_inputs();
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::MultiHeadAttention;
        config.d_out = 4;
        const attn::RunResult run = attn::run_module(config, inputs);
        views::ExploreTilesView view;
        view.setTiles(attn::run_tiles(run, inputs.tokens, 5, 2, 1, 400));
        QVERIFY(view.page());
        QCOMPARE(view.page()->step().number, 20);
        QCOMPARE(view.page()->frameCount(), 12);
        QCOMPARE(view.page()->frame(), 0);
        QCOMPARE(view.headBox()->maximum(), 2);
        QCOMPARE(view.headBox()->value(), 2);  // head 6 of 2 clamped to the last
        QCOMPARE(view.keyTileBox()->maximum(), 6);
        QCOMPARE(view.noteText(), QStringLiteral("Head 2 of this run, tiled: 12 tiles of 2 × 1 "
                                                 "give the head's context vectors."));
        QSignalSpy asked(&view, &views::ExploreTilesView::tilingChanged);
        view.queryTileBox()->setValue(3);
        QCOMPARE(asked.count(), 1);
        QCOMPARE(view.queryTile(), Eigen::Index{3});
        QCOMPARE(view.page()->frameCount(), 12);  // nothing computed until new tiles come
        attn::RunTiles many;
        many.status = attn::RunTiles::Status::TooManyTiles;
        many.num_heads = 2;
        many.num_tokens = 6;
        many.tiles = 500;
        view.setTiles(many);
        QVERIFY(!view.page());
        QCOMPARE(view.noteText(), QStringLiteral("500 tiles are too many to step through: choose "
                                                 "larger tiles (at most 400)."));
        view.setTiles({});
        QVERIFY(view.noteText().isEmpty());
    }

    void linesViewFocus() {
        views::ExploreLinesView lines;
        attn::Matrix w(2, 3);
        w << 0.5f, 0.5f, 0.0f, 0.2f, 0.3f, 0.5f;
        attn::Matrix w2 = attn::Matrix::Constant(2, 3, 1.0f / 3.0f);
        lines.setData({"a", "b"}, {"x", "y", "z"}, {w, w2});
        QCOMPARE(lines.headCount(), 2);
        QVERIFY(lines.headVisible(0));
        QVERIFY(!lines.headVisible(1));
        QCOMPARE(lines.drawnLineCount(), 5);  // the 0 weight draws no line
        lines.setHeadVisible(1, true);
        QCOMPARE(lines.drawnLineCount(), 11);
        lines.setFocusToken(std::make_pair(views::ExploreLinesView::Side::Left, 0));
        QCOMPARE(lines.drawnLineCount(), 5);
        lines.setFocusToken(std::make_pair(views::ExploreLinesView::Side::Right, 2));
        QCOMPARE(lines.drawnLineCount(), 3);
        QVERIFY(views::ExploreLinesView::headColor(0) != views::ExploreLinesView::headColor(1));
    }

    // A Llama's 32 heads: the check boxes wrap in rows of 12, so the view stays narrow enough
    // for a 1280-px screen (one row of 32 made the model window 2983 px wide under Xvfb).
    void linesViewOfManyHeadsStaysNarrow() {
        views::ExploreLinesView lines;
        const std::vector<attn::Matrix> heads(32, attn::Matrix::Constant(3, 3, 1.0f / 3.0f));
        lines.setData({"a", "b", "c"}, {"x", "y", "z"}, heads);
        QCOMPARE(lines.headCount(), 32);
        QVERIFY2(lines.minimumSizeHint().width() < 1100,
                 qPrintable(QString::number(lines.minimumSizeHint().width())));
        const QList<QCheckBox*> boxes = lines.findChildren<QCheckBox*>();
        QCOMPARE(boxes.size(), qsizetype{32});
        lines.resize(1100, 500);
        lines.show();
        QVERIFY(QTest::qWaitForWindowExposed(&lines));
        QSet<int> rows;
        for (const QCheckBox* box : boxes) {
            rows.insert(box->y());
            QVERIFY(box->geometry().right() < lines.width());
        }
        QCOMPARE(rows.size(), qsizetype{3});
        // Twelve heads (GPT-2) stay in one row.
        lines.setData({"a"}, {"x"}, std::vector<attn::Matrix>(12, attn::Matrix::Ones(1, 1)));
        QCoreApplication::processEvents();
        rows.clear();
        for (const QCheckBox* box : lines.findChildren<QCheckBox*>()) rows.insert(box->y());
        QCOMPARE(rows.size(), qsizetype{1});
    }

    // The lines are drawn by the view's own rasteriser: weight 1 in the head's colour at
    // full opacity and width 4, weight 0.25 faint, weight 0 not at all.
    void linesDrawnWithWeightAsOpacity() {
        views::ExploreLinesView lines;
        attn::Matrix w(2, 2);
        w << 1.0f, 0.0f, 0.0f, 0.25f;
        lines.setData({"a", "b"}, {"x", "y"}, {w});
        lines.resize(600, 400);
        QWidget* canvas = nullptr;  // the largest child: the drawing surface
        for (QWidget* child : lines.findChildren<QWidget*>())
            if (!canvas || child->width() * child->height() > canvas->width() * canvas->height())
                canvas = child;
        QVERIFY(canvas);
        const QImage image = canvas->grab().toImage().convertToFormat(QImage::Format_RGB32);
        const int x = image.width() / 2;
        const QColor head = views::ExploreLinesView::headColor(0);
        // Row a to x at y = 40 (the top token row, under the column headings), 4 px wide: full
        // colour at y = 39 and 40.
        QCOMPARE(image.pixelColor(x, 39), head);
        QCOMPARE(image.pixelColor(x, 40), head);
        // Row b to y along the bottom: a quarter of the colour over the white background.
        const int bottom = image.height() - 16;
        const QColor faint = image.pixelColor(x, bottom);
        QVERIFY2(faint.red() > head.red() && faint.red() < 235 && faint.blue() > faint.red(),
                 qPrintable(faint.name()));
        // Weight 0: nothing between the rows.
        QCOMPARE(image.pixelColor(x, image.height() / 2), lines.palette().base().color());
    }

    // Twelve heads' slices scroll in a grid instead of widening the window past the screen (seen
    // under Xvfb: a 12-head split pushed the window to ~1900 px wide).
    void weightSplitOfTwelveHeadsStaysNarrow() {
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::MultiHeadAttention;
        config.d_out = 96;
        config.num_heads = 12;
        const attn::RunResult run = attn::run_module(config, attn::random_sequence(32, 96, 1));
        views::WeightSplitData data;
        data.fused_query = weightNamed(run, "W_query.weight");
        data.num_heads = 12;
        data.concat = run.output.concat[0];
        data.out_proj = weightNamed(run, "out_proj.weight");
        data.output = run.output.context_vecs[0];
        views::ExploreWeightSplit split;
        split.setData(data);
        QCOMPARE(split.sliceCount(), 12);
        QVERIFY2(split.minimumSizeHint().width() < 1000,
                 qPrintable(QString::number(split.minimumSizeHint().width())));
        QCOMPARE(split.slice(11)->rowCount(), 8);
        QCOMPARE(split.slice(11)->inputValue(7, 95), double{data.fused_query(95, 95)});
    }

    // The weight editor shows a whole 768 × 768 parameter (its model formats only what is in
    // view) and hands a typed number to explore mode; text that is not a finite number is refused.
    void weightEditorEditsThroughTheModel() {
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::MultiHeadAttention;
        config.d_out = 768;
        config.num_heads = 12;
        const attn::RunResult run = attn::run_module(config, attn::random_sequence(4, 768, 1));
        views::ExploreWeightEditor editor;
        editor.setWeights(run.weights, {});
        QVERIFY(editor.selectWeight(QStringLiteral("out_proj.weight")));
        QAbstractItemModel* model = editor.table()->model();
        QCOMPARE(model->rowCount(), 768);
        QCOMPARE(model->columnCount(), 768);
        const attn::Matrix& w = weightNamed(run, "out_proj.weight");
        QCOMPARE(model->data(model->index(700, 767)).toString(),
                 QString::number(double{w(700, 767)}, 'f', 4));
        std::vector<std::tuple<std::string, int, int, float>> edits;
        connect(&editor, &views::ExploreWeightEditor::weightEdited, this,
                [&](const std::string& name, int r, int c, float v) {
                    edits.emplace_back(name, r, c, v);
                });
        QVERIFY(model->setData(model->index(700, 767), QStringLiteral("0.5"), Qt::EditRole));
        QVERIFY(!model->setData(model->index(1, 1), QStringLiteral("abc"), Qt::EditRole));
        QVERIFY(!model->setData(model->index(1, 1), QStringLiteral("nan"), Qt::EditRole));
        QCOMPARE(edits.size(), std::size_t{1});
        QCOMPARE(std::get<0>(edits[0]), std::string("out_proj.weight"));
        QCOMPARE(std::get<1>(edits[0]), 700);
        QCOMPARE(std::get<2>(edits[0]), 767);
        QCOMPARE(std::get<3>(edits[0]), 0.5f);
        // New weights of the same shape keep the selection and show the new numbers.
        std::vector<attn::NamedMatrix> changed = run.weights;
        for (attn::NamedMatrix& m : changed)
            if (m.name == "out_proj.weight") m.value(700, 767) = 0.5f;
        editor.setWeights(changed, {"out_proj.weight"});
        QCOMPARE(editor.currentName(), QStringLiteral("out_proj.weight"));
        QCOMPARE(model->data(model->index(700, 767)).toString(), QStringLiteral("0.5000"));
    }

    void weightSplitSlices() {
        const attn::Sequence inputs = attn::tutorial_inputs();
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::MultiHeadAttention;
        config.d_out = 6;
        config.num_heads = 3;
        const attn::RunResult run = attn::run_module(config, inputs);
        views::WeightSplitData data;
        data.fused_query = weightNamed(run, "W_query.weight");  // (6, 3)
        data.num_heads = 3;
        data.concat = run.output.concat[0];
        data.out_proj = weightNamed(run, "out_proj.weight");
        data.output = run.output.context_vecs[0];
        QCOMPARE(data.out_proj.rows(), Eigen::Index{6});
        views::ExploreWeightSplit split;
        split.setData(data);
        QCOMPARE(split.sliceCount(), 3);
        // head 2's slice is rows 2..3 of the fused matrix
        QCOMPARE(split.slice(1)->rowCount(), 2);
        QCOMPARE(split.slice(1)->inputValue(1, 2), double{data.fused_query(3, 2)});
        QCOMPARE(split.concatHeatmap()->columnCount(), 6);
        // the concatenation's columns of head h are that head's context vectors
        QCOMPARE(split.concatHeatmap()->inputValue(4, 3),
                 double{run.output.heads[0][1].context(4, 1)});
        QVERIFY(!split.outProjHeatmap()->isHidden());
        QVERIFY(split.noteText().contains(QStringLiteral("before out_proj mixes them")));
    }

    // Seed 003's multi-head module: queries 4 wide, values 2 wide, no out_proj; the concatenated
    // heads are the output, and the view says so instead of naming an out_proj.
    void weightSplitWithoutOutProj() {
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::MultiHeadSelfAttentionKV;
        config.dim_k = 4;
        config.dim_v = 2;
        config.num_heads = 2;
        const attn::RunResult run = attn::run_module(config, attn::tutorial_inputs());
        const attn::FusedProjections fused = attn::fused_projections(run);
        QCOMPARE(fused.query.cols(), Eigen::Index{4});
        QCOMPARE(fused.out_proj.size(), Eigen::Index{0});
        views::WeightSplitData data;
        data.fused_query = fused.query.transpose();
        data.num_heads = 2;
        if (!run.output.concat.empty()) data.concat = run.output.concat[0];
        data.output = run.output.context_vecs[0];
        views::ExploreWeightSplit split;
        split.setData(data);
        QCOMPARE(split.sliceCount(), 2);
        QVERIFY(split.outProjHeatmap()->isHidden());
        QVERIFY2(
            split.noteText().contains(QStringLiteral("concatenated to width 2, are the output: "
                                                     "this module has no out_proj")),
            qPrintable(split.noteText()));
        QVERIFY(!split.noteText().contains(QStringLiteral("before out_proj")));
        QCOMPARE(split.outputHeatmap()->title(),
                 QStringLiteral("context_vecs = concat (no out_proj)"));
        QCOMPARE(split.outputHeatmap()->columnCount(), 2);
    }
};

QTEST_MAIN(TestExploreViews)
#include "test_explore_views.moc"
