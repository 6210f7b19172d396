// Explore mode's switches of the chapters past the tutorial: K/V heads, mask kind and
// window, per-sentence lengths and RoPE set through the parameter panel reach the session and the
// result (compared with PyTorch, tests/reference/chapters_reference.h), each is one undo step,
// ExploreState's == sees each, invalid lengths keep the last valid result, files keep the
// switches, and the heads grid, KV cache and Tiles tabs show them.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <cmath>
#include <string>

#include "../reference/chapters_reference.h"
#include "app/gui/explore_session.h"
#include "app/gui/explore_window.h"
#include "views/explore_heads_grid.h"
#include "views/explore_kv_stepper.h"
#include "views/explore_parameter_panel.h"
#include "views/explore_tiles_view.h"
#include "views/heatmap_widget.h"
#include "views/step_page.h"

using MaskKind = views::ExploreParameterPanel::MaskKind;

namespace {

const chapters_reference::Case& refCase(const std::string& name) {
    for (const chapters_reference::Case& c : chapters_reference::cases())
        if (name == c.name) return c;
    qFatal("no reference case %s", name.c_str());
}

// Largest |a - b| over matrix m against the flat PyTorch values starting at `offset`; NaN must
// meet NaN (a sentence of length 0 has no key to attend to).
float maxDiff(const attn::Matrix& m, const std::vector<float>& flat, std::size_t offset) {
    float worst = 0.0f;
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            const float want = flat.at(offset + static_cast<std::size_t>(i * m.cols() + j));
            const float got = m(i, j);
            if (std::isnan(want) || std::isnan(got)) {
                if (std::isnan(want) != std::isnan(got)) return INFINITY;
                continue;
            }
            worst = std::max(worst, std::abs(want - got));
        }
    return worst;
}

// Every batch item's and head's attn_weights, queries, keys and context against the reference.
void compareWithReference(const attn::RunResult& r, const chapters_reference::Case& c) {
    const std::size_t batch = r.output.heads.size();
    QCOMPARE(batch, c.lengths.empty() ? std::size_t{1} : c.lengths.size());
    const Eigen::Index t = r.output.context_vecs[0].rows();
    for (std::size_t b = 0; b < batch; ++b) {
        const std::size_t heads = r.output.heads[b].size();
        for (std::size_t h = 0; h < heads; ++h)
            QVERIFY2(maxDiff(r.output.heads[b][h].weights, c.attn_weights,
                             (b * heads + h) * static_cast<std::size_t>(t * t)) < 1e-5f,
                     c.name);
        QVERIFY(maxDiff(r.output.queries[b], c.queries,
                        b * static_cast<std::size_t>(r.output.queries[b].size())) < 1e-5f);
        QVERIFY(maxDiff(r.output.keys[b], c.keys,
                        b * static_cast<std::size_t>(r.output.keys[b].size())) < 1e-5f);
        QVERIFY(maxDiff(r.output.context_vecs[b], c.context_vecs,
                        b * static_cast<std::size_t>(r.output.context_vecs[b].size())) < 1e-5f);
    }
}

void chooseKvHeads(views::ExploreParameterPanel* panel, int g) {
    const int index = panel->kvHeadsBox()->findData(g);
    QVERIFY(index >= 0);
    panel->kvHeadsBox()->setCurrentIndex(index);
}

void enterLengths(views::ExploreParameterPanel* panel, const QString& text) {
    panel->lengthsEdit()->setText(text);
    emit panel->lengthsEdit()->editingFinished();
}

}  // namespace

class TestExploreChapters : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // K/V heads: only divisors of num_heads are offered; 2 and 1 K/V heads give PyTorch's
    // GQA/MQA numbers; the grid says which K/V head each query head reads; undo restores.
    void kvHeads() {
        ExploreWindow window;
        views::ExploreParameterPanel* panel = window.parameterPanel();
        ExploreSession* session = window.session();
        panel->dOutBox()->setValue(8);
        panel->headsBox()->setValue(4);
        QCOMPARE(panel->kvHeadsBox()->count(), 3);  // 4, 2, 1: 3 does not divide 4
        QCOMPARE(panel->kvHeadsBox()->itemData(0).toInt(), 4);
        QCOMPARE(panel->kvHeadsBox()->itemData(1).toInt(), 2);
        QCOMPARE(panel->kvHeadsBox()->itemData(2).toInt(), 1);
        QCOMPARE(session->state().config.num_kv_heads, Eigen::Index{0});
        QCOMPARE(session->result()->output.keys[0].cols(), Eigen::Index{8});
        const int before = session->undoStack()->count();

        chooseKvHeads(panel, 2);
        QCOMPARE(session->undoStack()->count(), before + 1);
        QCOMPARE(session->state().config.num_kv_heads, Eigen::Index{2});
        QVERIFY(session->error().isEmpty());
        QCOMPARE(session->result()->output.keys[0].cols(), Eigen::Index{4});
        compareWithReference(*session->result(), refCase("gqa G = 2"));
        QCOMPARE(window.headsGrid()->heatmap(2)->title(), QStringLiteral("head 3 · K/V 2"));

        chooseKvHeads(panel, 1);
        QCOMPARE(session->result()->output.keys[0].cols(), Eigen::Index{2});  // = head_dim
        compareWithReference(*session->result(), refCase("mqa G = 1"));
        QCOMPARE(window.headsGrid()->heatmap(3)->title(), QStringLiteral("head 4 · K/V 1"));

        // The KV cache holds the one K/V head: 2 × 1 × 6 tokens × 2 × 4 bytes at the last step.
        window.viewTabs()->setCurrentWidget(window.kvStepper());
        views::ExploreKvStepper* kv = window.kvStepper();
        QCOMPARE(kv->kvHeads(), 1);
        QCOMPARE(kv->trace().steps.back().cache_bytes, std::size_t{96});
        kv->setStep(5);
        kv->setHead(3);
        QVERIFY(kv->keysHeatmap()->title().contains(QStringLiteral("K/V head 1")));
        QVERIFY(kv->countersText().contains(QStringLiteral("= 96 bytes")));
        QVERIFY(kv->countersText().contains(QStringLiteral("4 times smaller")));

        session->undoStack()->undo();
        QCOMPARE(session->state().config.num_kv_heads, Eigen::Index{2});
        QCOMPARE(panel->kvHeadsBox()->currentData().toInt(), 2);
        session->undoStack()->undo();
        QCOMPARE(session->state().config.num_kv_heads, Eigen::Index{0});
        QCOMPARE(session->result()->output.keys[0].cols(), Eigen::Index{8});
        QCOMPARE(kv->kvHeads(), 4);
        QCOMPARE(kv->trace().steps.back().cache_bytes, std::size_t{384});

        // Fewer heads: the choices follow, an unfit K/V count falls back to one per head.
        chooseKvHeads(panel, 2);
        panel->headsBox()->setValue(1);
        QCOMPARE(panel->kvHeadsBox()->count(), 1);
        QCOMPARE(session->state().config.num_kv_heads, Eigen::Index{0});
        QVERIFY(session->error().isEmpty());
    }

    // Mask kind and window width: PyTorch's window and bidirectional weights, zeros outside the
    // window marked blocked as the causal cells are; the causal switch follows the kind.
    void maskKindAndWindow() {
        ExploreWindow window;
        views::ExploreParameterPanel* panel = window.parameterPanel();
        ExploreSession* session = window.session();
        panel->dOutBox()->setValue(4);
        QVERIFY(!panel->windowBox()->isEnabled());
        const int before = session->undoStack()->count();
        panel->maskKindBox()->setCurrentIndex(static_cast<int>(MaskKind::Window));
        QCOMPARE(session->undoStack()->count(), before + 1);
        QVERIFY(panel->windowBox()->isEnabled());
        QCOMPARE(panel->windowBox()->value(), 2);
        QCOMPARE(session->state().config.window, Eigen::Index{2});
        QVERIFY(!session->state().config.causal.has_value());  // the module's own: causal
        compareWithReference(*session->result(), refCase("window 2"));
        const attn::AttentionResult& head = session->result()->output.heads[0][1];
        for (Eigen::Index i = 0; i < 6; ++i)
            for (Eigen::Index j = 0; j < 6; ++j) {
                const bool outside = j > i || j <= i - 2;
                QCOMPARE(head.blocked(i, j), outside);
                if (outside) QCOMPARE(head.weights(i, j), 0.0f);
            }
        // Token 4 sees tokens 3 and 4 only: two weights that sum to 1.
        QVERIFY(std::abs(head.weights(3, 2) + head.weights(3, 3) - 1.0f) < 1e-6f);

        panel->windowBox()->setValue(3);
        QCOMPARE(session->state().config.window, Eigen::Index{3});
        QCOMPARE(session->undoStack()->count(), before + 2);
        session->undoStack()->undo();
        QCOMPARE(session->state().config.window, Eigen::Index{2});
        QCOMPARE(panel->windowBox()->value(), 2);

        panel->maskKindBox()->setCurrentIndex(static_cast<int>(MaskKind::Bidirectional));
        QVERIFY(!panel->causalBox()->isChecked());
        QVERIFY(!panel->windowBox()->isEnabled());
        QCOMPARE(session->state().config.causal, std::optional<bool>(false));
        QCOMPARE(session->state().config.window, Eigen::Index{0});
        compareWithReference(*session->result(), refCase("bidirectional"));
        // The causal switch and the mask kind say the same.
        panel->causalBox()->setChecked(true);
        QCOMPARE(panel->maskKindBox()->currentIndex(), static_cast<int>(MaskKind::Causal));
        QVERIFY(!session->state().config.causal.has_value());
        session->undoStack()->undo();
        session->undoStack()->undo();
        QCOMPARE(panel->maskKindBox()->currentIndex(), static_cast<int>(MaskKind::Window));
        QCOMPARE(session->state().config.window, Eigen::Index{2});
        session->undoStack()->undo();
        QCOMPARE(panel->maskKindBox()->currentIndex(), static_cast<int>(MaskKind::Causal));
        QCOMPARE(session->state().config.window, Eigen::Index{0});
    }

    // Lengths set the batch; padded keys get weight 0; the grid offers each sentence; text that
    // is not a list of numbers and lengths the engine refuses keep the last valid result.
    void sentenceLengths() {
        ExploreWindow window;
        views::ExploreParameterPanel* panel = window.parameterPanel();
        ExploreSession* session = window.session();
        panel->dOutBox()->setValue(4);
        enterLengths(panel, QStringLiteral("6, 3, 0"));
        QCOMPARE(session->state().config.lengths, (std::vector<Eigen::Index>{6, 3, 0}));
        QCOMPARE(session->state().config.batch, Eigen::Index{3});
        QVERIFY(session->error().isEmpty());
        compareWithReference(*session->result(), refCase("lengths 6,3,0"));
        const attn::Matrix& second = session->result()->output.heads[1][0].weights;
        for (Eigen::Index i = 0; i < 6; ++i)
            for (Eigen::Index j = 3; j < 6; ++j) QCOMPARE(second(i, j), 0.0f);

        views::ExploreHeadsGrid* grid = window.headsGrid();
        QCOMPARE(grid->sentenceBox()->count(), 3);
        QCOMPARE(grid->sentenceBox()->itemText(1), QStringLiteral("sentence 2 (length 3)"));
        grid->sentenceBox()->setCurrentIndex(1);
        // Sentence 2's padded keys: zero weight, drawn as blocked cells like the causal ones.
        QCOMPARE(grid->heatmap(0)->inputValue(1, 0), static_cast<double>(second(1, 0)));
        using Kind = views::HeatmapWidget::CellKind;
        QCOMPARE(grid->heatmap(0)->cellKind(5, 4), Kind::Masked);  // in the past, but padding
        QCOMPARE(grid->heatmap(0)->cellKind(5, 4), grid->heatmap(0)->cellKind(0, 1));  // future
        QCOMPARE(grid->heatmap(0)->cellKind(5, 1), Kind::Value);

        const std::shared_ptr<const attn::RunResult> valid = session->result();
        const int steps = session->undoStack()->count();
        enterLengths(panel, QStringLiteral("6, x"));
        QVERIFY(panel->lengthsProblem().contains(QStringLiteral("“x” is not a whole number")));
        QCOMPARE(session->undoStack()->count(), steps);
        QCOMPARE(session->state().config.lengths, (std::vector<Eigen::Index>{6, 3, 0}));
        QCOMPARE(session->result(), valid);

        enterLengths(panel, QStringLiteral("7"));
        QVERIFY(panel->lengthsProblem().isEmpty());
        QVERIFY(session->error().startsWith(QStringLiteral("length 7 is outside [0, 6]")));
        QCOMPARE(panel->errorSetting(), QStringLiteral("lengths"));
        QCOMPARE(session->result(), valid);  // the last valid result stays on screen

        session->undoStack()->undo();
        QVERIFY(session->error().isEmpty());
        QCOMPARE(session->state().config.lengths, (std::vector<Eigen::Index>{6, 3, 0}));
        QCOMPARE(panel->lengthsEdit()->text(), QStringLiteral("6, 3, 0"));
        session->undoStack()->undo();
        QVERIFY(session->state().config.lengths.empty());
        QCOMPARE(session->state().config.batch, Eigen::Index{1});
        QVERIFY(panel->lengthsEdit()->text().isEmpty());
        QVERIFY(grid->sentenceBox()->isHidden());
    }

    // RoPE with base and offset gives PyTorch's rotated queries; moving every position by the
    // same offset changes the queries but not attn_weights.
    void rope() {
        ExploreWindow window;
        views::ExploreParameterPanel* panel = window.parameterPanel();
        ExploreSession* session = window.session();
        panel->dOutBox()->setValue(8);
        QVERIFY(panel->ropeBox()->isEnabled());
        QVERIFY(!panel->ropeBaseBox()->isEnabled());
        QVERIFY(!panel->positionOffsetBox()->isEnabled());
        panel->ropeBox()->setChecked(true);
        QVERIFY(session->state().config.rope);
        QVERIFY(panel->positionOffsetBox()->isEnabled());
        compareWithReference(*session->result(), refCase("rope"));
        const std::shared_ptr<const attn::RunResult> atZero = session->result();

        panel->positionOffsetBox()->setValue(5);
        QCOMPARE(session->state().config.position_offset, Eigen::Index{5});
        compareWithReference(*session->result(), refCase("rope offset 5"));
        const attn::RunResult& shifted = *session->result();
        QVERIFY((shifted.output.queries[0] - atZero->output.queries[0]).cwiseAbs().maxCoeff() >
                0.01f);
        for (std::size_t h = 0; h < 2; ++h)
            QVERIFY((shifted.output.heads[0][h].weights - atZero->output.heads[0][h].weights)
                        .cwiseAbs()
                        .maxCoeff() < 1e-5f);

        panel->ropeBaseBox()->setValue(100.0);
        panel->positionOffsetBox()->setValue(3);
        panel->maskKindBox()->setCurrentIndex(static_cast<int>(MaskKind::Bidirectional));
        QCOMPARE(session->state().config.rope_base, 100.0f);
        compareWithReference(*session->result(), refCase("rope base 100 offset 3 bidirectional"));

        // Undo walks back one switch at a time.
        session->undoStack()->undo();
        QVERIFY(!session->state().config.causal.has_value());
        session->undoStack()->undo();
        QCOMPARE(session->state().config.position_offset, Eigen::Index{5});
        session->undoStack()->undo();
        QCOMPARE(session->state().config.rope_base, 10000.0f);
        session->undoStack()->undo();
        QCOMPARE(session->state().config.position_offset, Eigen::Index{0});
        session->undoStack()->undo();
        QVERIFY(!session->state().config.rope);
        QVERIFY(!panel->ropeBox()->isChecked());

        // An odd head_dim has no coordinate pairs to rotate. RoPE already on: the engine's
        // message stands under the switch, which stays enabled so that it can be turned off.
        panel->ropeBox()->setChecked(true);
        const std::shared_ptr<const attn::RunResult> valid = session->result();
        panel->dOutBox()->setValue(6);
        QVERIFY(session->error().startsWith(QStringLiteral("rope needs an even head_dim")));
        QCOMPARE(panel->errorSetting(), QStringLiteral("rope"));
        QCOMPARE(session->result(), valid);
        QVERIFY(panel->ropeBox()->isEnabled());
        // Turned off, it is disabled and says why.
        panel->ropeBox()->setChecked(false);
        QVERIFY(session->error().isEmpty());
        QVERIFY(!panel->ropeBox()->isEnabled());
        QVERIFY(panel->ropeBox()->toolTip().contains(QStringLiteral("6 / 2 must be even")));
        // A module without the chapters' switches: all disabled, with the reason.
        panel->moduleBox()->setCurrentText(QStringLiteral("causal-attention"));
        for (QWidget* w : {static_cast<QWidget*>(panel->kvHeadsBox()),
                           static_cast<QWidget*>(panel->maskKindBox()),
                           static_cast<QWidget*>(panel->lengthsEdit()),
                           static_cast<QWidget*>(panel->ropeBox())}) {
            QVERIFY(!w->isEnabled());
            QVERIFY(w->toolTip().contains(QStringLiteral("Only multi-head-attention")));
        }
        QVERIFY(session->error().isEmpty());
    }

    // ExploreState's == tells each new field apart, so undo and change detection see them.
    void equalitySeesEachSwitch() {
        const ExploreState base = ExploreSession::defaultState();
        QVERIFY(base == ExploreSession::defaultState());
        const auto differs = [&](auto change) {
            ExploreState other = base;
            change(other.config);
            return !(other == base);
        };
        QVERIFY(differs([](attn::ModuleConfig& c) { c.num_kv_heads = 1; }));
        QVERIFY(differs([](attn::ModuleConfig& c) { c.window = 2; }));
        QVERIFY(differs([](attn::ModuleConfig& c) { c.lengths = {6}; }));
        QVERIFY(differs([](attn::ModuleConfig& c) { c.rope = true; }));
        QVERIFY(differs([](attn::ModuleConfig& c) { c.rope_base = 100.0f; }));
        QVERIFY(differs([](attn::ModuleConfig& c) { c.position_offset = 3; }));
        // An edit that changes only one of them is one undo step, and undo restores it.
        ExploreSession session;
        attn::ModuleConfig c = session.state().config;
        c.position_offset = 3;
        c.rope = true;
        session.setConfig(c, true);
        QCOMPARE(session.undoStack()->count(), 1);
        session.setConfig(c, true);  // the same again: nothing to undo
        QCOMPARE(session.undoStack()->count(), 1);
        session.undoStack()->undo();
        QVERIFY(session.state() == base);
    }

    // A file keeps every switch; opened again the result is PyTorch's (dropout included).
    void fileKeepsSwitches() {
        const chapters_reference::Case& ref = refCase("gqa rope window lengths dropout bias");
        ExploreSession session;
        attn::ModuleConfig c = session.state().config;
        c.seed = ref.seed;
        c.d_out = ref.d_out;
        c.num_heads = ref.num_heads;
        c.num_kv_heads = ref.num_kv_heads;
        c.window = ref.window;
        c.lengths = {6, 4};
        c.batch = 2;
        c.rope = true;
        c.position_offset = ref.position_offset;
        c.dropout = ref.dropout;
        c.qkv_bias = ref.qkv_bias;
        session.setConfig(c, true);
        QVERIFY2(session.error().isEmpty(), qPrintable(session.error()));
        compareWithReference(*session.result(), ref);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("switches.json"));
        QString error;
        QVERIFY2(session.saveFile(path, &error), qPrintable(error));

        ExploreWindow window;
        QVERIFY(window.openFile(path, true));
        const ExploreState& opened = window.session()->state();
        QVERIFY(opened == session.state());
        QCOMPARE(opened.config.num_kv_heads, Eigen::Index{2});
        QCOMPARE(opened.config.lengths, (std::vector<Eigen::Index>{6, 4}));
        compareWithReference(*window.session()->result(), ref);
        // The panel shows them and sends them back unchanged.
        views::ExploreParameterPanel* panel = window.parameterPanel();
        QCOMPARE(panel->kvHeadsBox()->currentData().toInt(), 2);
        QCOMPARE(panel->maskKindBox()->currentIndex(), static_cast<int>(MaskKind::Window));
        QCOMPARE(panel->windowBox()->value(), 3);
        QCOMPARE(panel->lengthsEdit()->text(), QStringLiteral("6, 4"));
        QVERIFY(panel->ropeBox()->isChecked());
        QCOMPARE(panel->positionOffsetBox()->value(), 2);
        ExploreState resent = opened;
        resent.config = panel->config();
        resent.config.weights = opened.config.weights;
        QVERIFY(resent == opened);
    }

    // The Tiles tab: the walkthrough's tiled softmax over the chosen head of this run.
    void tilesTab() {
        ExploreWindow window;
        views::ExploreParameterPanel* panel = window.parameterPanel();
        window.viewTabs()->setCurrentWidget(window.tilesView());
        views::ExploreTilesView* tiles = window.tilesView();
        QVERIFY(tiles->page());
        // 6 causal tokens in tiles of 2 queries × 1 key: 2 + 4 + 6 tiles below the diagonal.
        QCOMPARE(tiles->queryTileBox()->value(), 2);
        QCOMPARE(tiles->keyTileBox()->value(), 1);
        QCOMPARE(tiles->page()->frameCount(), 12);
        QVERIFY(tiles->noteText().contains(QStringLiteral("give the head's context vectors")));
        QCOMPARE(tiles->headBox()->maximum(), 2);
        // The tiles reproduce head 2's context vectors.
        tiles->headBox()->setValue(2);
        const attn::StepMatrix* reference = tiles->page()->step().find("causal-context");
        QVERIFY(reference);
        QVERIFY(reference->values.isApprox(window.session()->result()->output.heads[0][1].context,
                                           1e-5f));
        tiles->keyTileBox()->setValue(3);
        QCOMPARE(tiles->page()->frameCount(), 5);  // 1 + 2 + 2
        // Bidirectional: every tile is computed.
        panel->maskKindBox()->setCurrentIndex(static_cast<int>(MaskKind::Bidirectional));
        QCOMPARE(tiles->page()->frameCount(), 6);
        // After the last tile every row is finished: z = o / ℓ is head 2's context vectors.
        const attn::StepMatrix* tiled =
            tiles->page()->step().find("tiled-context", tiles->page()->frameCount() - 1);
        QVERIFY(tiled);
        QVERIFY(
            tiled->values.isApprox(window.session()->result()->output.heads[0][1].context, 1e-5f));
        // A window the tiles do not know: the note says the run's head differs.
        panel->maskKindBox()->setCurrentIndex(static_cast<int>(MaskKind::Window));
        QVERIFY(tiles->noteText().contains(QStringLiteral("differs by up to")));
        // K/V heads: the note names the one the head reads.
        panel->maskKindBox()->setCurrentIndex(static_cast<int>(MaskKind::Causal));
        panel->dOutBox()->setValue(8);
        panel->headsBox()->setValue(4);
        chooseKvHeads(panel, 1);
        tiles->headBox()->setValue(3);
        QVERIFY(tiles->noteText().startsWith(QStringLiteral("Head 3 (K/V head 1)")));
        // Every module either tiles or says why not.
        for (const std::string& name : attn::module_names()) {
            panel->moduleBox()->setCurrentText(QString::fromStdString(name));
            QVERIFY2(!tiles->noteText().isEmpty(), name.c_str());
            if (name == "cross-attention")
                QVERIFY(tiles->noteText().contains(QStringLiteral("cross-attention")));
            if (name == "self-attention-v2") QVERIFY(tiles->page());
        }
    }
};

QTEST_MAIN(TestExploreChapters)
#include "test_explore_chapters.moc"
