// attention-gui-bench: how long explore mode takes from an edit to repainted views (the target: an
// edit with 32 tokens and 12 heads redraws within 50 ms, docs/performance.md). Timed here, never in
// a test: timings vary with the machine and its load. Runs offscreen, so it needs no display.
//
// One iteration: edit one embedding cell through the session (one undo command) -> run_module on
// the UI thread -> the shown view updated -> the window grabbed, which paints it synchronously.
// The views in hidden tabs are updated when their tab is shown; the `view` argument chooses the
// tab that is shown, so every view's cost is measured as the one on screen.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QCoreApplication>
#include <QPixmap>
#include <QTabBar>
#include <QTabWidget>
#include <QUndoStack>
#include <cstdlib>

#include "app/gui/explore_session.h"
#include "app/gui/explore_window.h"
#include "model/runner.h"

namespace {

constexpr Eigen::Index kTokens = 32;
constexpr Eigen::Index kHeads = 12;

ExploreState benchState(Eigen::Index d_model) {
    ExploreState s = ExploreSession::defaultState();
    s.inputs = attn::random_sequence(kTokens, d_model, 1);
    s.source = attn::random_sequence(4, d_model, 2);  // d_in is shared by both sequences
    s.config.module = attn::ModuleKind::MultiHeadAttention;
    s.config.d_out = d_model;
    s.config.num_heads = kHeads;
    s.training = false;
    return s;
}

// Paints the window now (QWidget::grab renders synchronously).
qint64 repaintWindow(ExploreWindow& window) { return window.grab().width(); }

void setUp(ExploreWindow& window, Eigen::Index d_model, int view, benchmark::State& state) {
    window.resize(1400, 900);
    window.show();
    window.session()->undoStack()->setUndoLimit(64);  // iterations push one command each
    window.session()->setState(benchState(d_model), QStringLiteral("benchmark"));
    window.viewTabs()->setCurrentIndex(view);
    QCoreApplication::processEvents();
    state.SetLabel(window.viewTabs()->tabText(view).remove(QLatin1Char('&')).toStdString());
    if (!window.session()->error().isEmpty() || !window.session()->result()) {
        state.SkipWithError(window.session()->error().toStdString().c_str());
    }
}

// Edit -> recompute -> the shown view updated and repainted.
void BM_ExploreEditRedraw(benchmark::State& state) {
    const Eigen::Index d_model = state.range(0);
    ExploreWindow window;
    setUp(window, d_model, static_cast<int>(state.range(1)), state);
    int i = 0;
    for (auto _ : state) {
        const int row = i % static_cast<int>(kTokens);
        const int column = (i * 7) % static_cast<int>(d_model);
        window.session()->setEmbedding(ExploreSide::Inputs, row, column,
                                       0.5f + 0.001f * static_cast<float>(i));
        QCoreApplication::processEvents();  // queued replots
        benchmark::DoNotOptimize(repaintWindow(window));
        ++i;
    }
    state.counters["tokens"] = static_cast<double>(kTokens);
    state.counters["heads"] = static_cast<double>(kHeads);
}
// The view tabs of ExploreWindow: heads, output, weights, lines, weight split, cross-attention,
// KV cache.
constexpr int kViews = 7;
BENCHMARK(BM_ExploreEditRedraw)
    ->ArgNames({"d_model", "view"})
    ->ArgsProduct({{96, 768}, benchmark::CreateDenseRange(0, kViews - 1, 1)})
    ->Unit(benchmark::kMillisecond);

// The engine alone, for comparison: the same run_module the session makes per edit.
void BM_ExploreRecomputeOnly(benchmark::State& state) {
    const ExploreState s = benchState(state.range(0));
    for (auto _ : state) {
        attn::RunResult r = attn::run_module(s.runConfig(), s.inputs);
        benchmark::DoNotOptimize(r.output.context_vecs.data());
    }
}
BENCHMARK(BM_ExploreRecomputeOnly)
    ->ArgName("d_model")
    ->Arg(96)
    ->Arg(768)
    ->Unit(benchmark::kMillisecond);

// Repainting the heads view without an edit: what drawing costs.
void BM_ExploreRepaintOnly(benchmark::State& state) {
    ExploreWindow window;
    setUp(window, state.range(0), 0, state);
    for (auto _ : state) {
        benchmark::DoNotOptimize(repaintWindow(window));
    }
}
BENCHMARK(BM_ExploreRepaintOnly)
    ->ArgName("d_model")
    ->Arg(96)
    ->Arg(768)
    ->Unit(benchmark::kMillisecond);

// The offscreen platform warns once per window resize that it cannot propagate size hints;
// drop that line so the table stays readable, pass everything else on.
QtMessageHandler previousHandler = nullptr;
void quietHandler(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (message.contains(QLatin1String("propagateSizeHints"))) return;
    if (previousHandler) previousHandler(type, context, message);
}

}  // namespace

int main(int argc, char** argv) {
    // Before QApplication: it picks its platform plugin when constructed.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    previousHandler = qInstallMessageHandler(quietHandler);
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
