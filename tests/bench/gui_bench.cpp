// attention-gui-bench: how long explore mode takes from an edit to repainted views (#4: "a change
// with 32 tokens and 12 heads redraws within 50 ms"). Timed here, never in a test: timings vary
// with the machine and its load. Runs offscreen, so it needs no display.
//
// One iteration: edit one embedding cell through the session (one undo command) -> run_module on
// the UI thread -> every explore view updated -> the window and every tab page grabbed, which
// paints them synchronously (hidden tabs included, so no view is skipped because it is not shown).
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QCoreApplication>
#include <QPixmap>
#include <QTabWidget>
#include <QUndoStack>
#include <cstdlib>

#include "app/explore_session.h"
#include "app/explore_window.h"
#include "model/runner.h"

namespace {

constexpr Eigen::Index kTokens = 32;
constexpr Eigen::Index kHeads = 12;

ExploreState benchState(Eigen::Index d_model) {
    ExploreState s = ExploreSession::defaultState();
    s.inputs = attn::random_sequence(kTokens, d_model, 1);
    s.source = attn::random_sequence(4, d_model, 2);  // d_in is shared by both sequences
    s.config.module = "multi-head-attention";
    s.config.d_out = d_model;
    s.config.num_heads = kHeads;
    s.training = false;
    return s;
}

// Paints the window and every tab page now (QWidget::grab renders synchronously).
qint64 repaintAll(ExploreWindow& window) {
    qint64 pixels = 0;
    const QPixmap shown = window.grab();
    pixels += shown.width();
    QTabWidget* tabs = window.viewTabs();
    for (int i = 0; i < tabs->count(); ++i) {
        const QPixmap page = tabs->widget(i)->grab();
        pixels += page.width();
    }
    return pixels;
}

void setUp(ExploreWindow& window, Eigen::Index d_model, benchmark::State& state) {
    window.resize(1400, 900);
    window.show();
    window.session()->undoStack()->setUndoLimit(64);  // iterations push one command each
    window.session()->setState(benchState(d_model), QStringLiteral("benchmark"));
    QCoreApplication::processEvents();
    if (!window.session()->error().isEmpty() || !window.session()->result()) {
        state.SkipWithError(window.session()->error().toStdString().c_str());
    }
}

// Edit -> recompute -> all views updated and repainted.
void BM_ExploreEditRedraw(benchmark::State& state) {
    const Eigen::Index d_model = state.range(0);
    ExploreWindow window;
    setUp(window, d_model, state);
    int i = 0;
    for (auto _ : state) {
        const int row = i % static_cast<int>(kTokens);
        const int column = (i * 7) % static_cast<int>(d_model);
        window.session()->setEmbedding(ExploreSide::Inputs, row, column,
                                       0.5f + 0.001f * static_cast<float>(i));
        QCoreApplication::processEvents();  // queued view updates, if any
        benchmark::DoNotOptimize(repaintAll(window));
        ++i;
    }
    state.counters["tokens"] = static_cast<double>(kTokens);
    state.counters["heads"] = static_cast<double>(kHeads);
}
BENCHMARK(BM_ExploreEditRedraw)
    ->ArgName("d_model")
    ->Arg(96)
    ->Arg(768)
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

// Repainting without an edit: what the views cost to draw.
void BM_ExploreRepaintOnly(benchmark::State& state) {
    ExploreWindow window;
    setUp(window, state.range(0), state);
    for (auto _ : state) {
        benchmark::DoNotOptimize(repaintAll(window));
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
