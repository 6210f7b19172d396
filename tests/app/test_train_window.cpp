// The Train window: a real Trainer on the session's worker thread, checked against a second
// Trainer the test steps itself with the same settings (training is deterministic for a seed), so
// the heads the window draws, the loss curve and the score plots hold the trainer's own numbers
// at that step. Also Start, Pause, Step, Reset, the timeline, the keys, saving a GPT-2 folder that
// the model loader opens, and the text task's sample.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHash>
#include <QKeySequence>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>
#include <algorithm>
#include <cmath>

#include "app/gui/gui_setup.h"
#include "app/gui/main_window.h"
#include "app/gui/train_guide.h"
#include "app/gui/train_session.h"
#include "app/gui/train_window.h"
#include "app/io/model_folder.h"
#include "app/io/train_data.h"
#include "model/matmul.h"
#include "model/trainer.h"
#include "views/model_heads_mosaic.h"
#include "views/number_text.h"
#include "views/step_page.h"
#include "views/train_chart.h"
#include "window_test_settings.h"

namespace {

// The Trainer the window builds for the induction task with `preset` and `seed`, built here
// from the same documented settings (the preset's batch, seq_len and lr, the default clipping).
attn::Trainer referenceTrainer(const std::string& preset, std::uint64_t seed) {
    const attn::TrainPreset p = attn::train_preset(preset, TrainSession::kInductionVocab, 0);
    attn::TrainerOptions o;
    o.task = attn::TrainTask::Induction;
    o.batch = p.batch;
    o.seq_len = p.seq_len;
    o.adamw.lr = p.lr;
    o.seed = seed;
    return attn::Trainer(p.spec, o);
}

float maxDiff(const attn::Matrix& a, const attn::Matrix& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
    return (a - b).cwiseAbs().maxCoeff();
}

const TrainSession::Snapshot* snapshotAt(const TrainSession& s, std::int64_t step) {
    for (const auto& snapshot : s.snapshots())
        if (snapshot->step == step) return snapshot.get();
    return nullptr;
}

}  // namespace

class TestTrainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        useTestSettings("train");
        attn::set_engine_threads(1);  // the machine is shared: one core is plenty for these
    }

    void opensAtStepZeroWithUniformHeads();
    void startTrainsPauseStops();
    void stepAdvancesExactlyOne();
    void resetReturnsToStepZero();
    void timelineScrubsBack();
    void keysDriveTraining();
    void savesAFolderTheLoaderOpens();
    void textTaskShowsASample();
    void oneLayerModelSaysNoInductionHead();
    void commandLineOpensTheWindow();
    void uiStaysResponsiveWhileTraining();
    void headViewTextStaysReadable();
};

void TestTrainWindow::opensAtStepZeroWithUniformHeads() {
    TrainWindow w;
    w.show();
    QVERIFY(w.session()->waitForIdle());
    TrainSession& s = *w.session();
    QVERIFY(s.ready());
    QCOMPARE(s.stepsDone(), 0);
    QCOMPARE(s.settings().preset, QStringLiteral("attn-only-2l"));
    QCOMPARE(s.snapshots().size(), std::size_t{1});
    QCOMPARE(w.shownSnapshot(), 0);
    // attn-only-2l: 2 layers × 8 heads on the probe [BOS] r r, r of seq_len 40 / 5 = 8 tokens.
    QCOMPARE(w.mosaic()->layerCount(), 2);
    QCOMPARE(w.mosaic()->headCount(), 8);
    QCOMPARE(s.probeIds().size(), std::size_t{17});
    QCOMPARE(s.repeatLength(), 8);
    QCOMPARE(s.probeTokens().front(), QStringLiteral("<|endoftext|>"));

    // The head view shows the fresh trainer's weights on its probe.
    attn::Trainer reference = referenceTrainer("attn-only-2l", 0);
    QCOMPARE(reference.probes().front(), s.probeIds());
    const auto attentions = reference.probe_attentions(0);
    QVERIFY(w.headPage());
    const QString id = w.headPage()->matrixIds().constFirst();
    QCOMPARE(id, QStringLiteral("layer-1-head-1"));
    QVERIFY(maxDiff(w.headPage()->shownValues(id), attentions[0][0]) < 1e-6f);
    // Step 0 is close to uniform: the last query gives no token much more than 1/17.
    float largest = 0.0f;
    for (const auto& layer : attentions)
        for (const attn::Matrix& head : layer) largest = std::max(largest, head.row(16).maxCoeff());
    QVERIFY2(largest < 1.2f / 17.0f, qPrintable(QString::number(largest)));
    // The guide says so with that number, computed from the snapshot.
    const QString guide = w.guide()->toPlainText();
    QVERIFY2(guide.contains(QStringLiteral("Step 0: uniform attention")), qPrintable(guide));
    QVERIFY2(guide.contains(views::fixedText(largest, 3)), qPrintable(guide));
    QVERIFY(guide.contains(views::fixedText(1.0 / 17.0, 3)));
    QCOMPARE(w.lossChart()->pointCount(0), 0);
    QCOMPARE(w.previousTokenChart()->seriesCount(), 16);
    QCOMPARE(w.previousTokenChart()->seriesName(9), QStringLiteral("L2 H2"));
    QVERIFY(!w.sampleView()->isVisible());  // the induction task has no sample
}

void TestTrainWindow::startTrainsPauseStops() {
    TrainWindow w;
    w.show();
    TrainSession& s = *w.session();
    QVERIFY(s.waitForIdle());
    QVERIFY(w.startButton()->isEnabled());
    w.startButton()->click();
    QVERIFY(s.running());
    QCOMPARE(w.startButton()->text(), QStringLiteral("Pause"));
    QVERIFY(s.waitForStep(60));
    w.startButton()->click();
    QVERIFY(!s.running());
    QVERIFY(s.waitForIdle());
    const std::int64_t stopped = s.stepsDone();
    QVERIFY(stopped >= 60);
    QTest::qWait(300);
    QVERIFY(s.waitForIdle());
    QCOMPARE(s.stepsDone(), stopped);  // paused: no more steps

    // The loss curve: every step's loss, as the reference trainer computes it.
    attn::Trainer reference = referenceTrainer("attn-only-2l", 0);
    QCOMPARE(static_cast<std::int64_t>(s.losses().size()), stopped);
    QCOMPARE(static_cast<std::int64_t>(w.lossChart()->pointCount(0)), stopped);
    for (std::int64_t i = 0; i < stopped; ++i) {
        const attn::TrainStepResult r = reference.step();
        QCOMPARE(r.loss, s.losses()[static_cast<std::size_t>(i)]);
        QCOMPARE(w.lossChart()->valueAt(0, static_cast<int>(i)), static_cast<double>(r.loss));
        QCOMPARE(w.lossChart()->stepAt(0, static_cast<int>(i)), static_cast<double>(i + 1));
    }
    // Snapshots every 25 steps and where it paused; the newest is shown, with the trainer's
    // attention and scores at that step.
    QVERIFY(snapshotAt(s, 25) && snapshotAt(s, 50));
    const TrainSession::Snapshot* last = snapshotAt(s, stopped);
    QVERIFY(last);
    QCOMPARE(w.shownSnapshot(), static_cast<int>(s.snapshots().size()) - 1);
    const auto attentions = reference.probe_attentions(0);
    const QString id = w.headPage()->matrixIds().constFirst();
    QVERIFY(maxDiff(w.headPage()->shownValues(id), attentions[0][0]) < 1e-6f);
    const std::vector<attn::HeadScore> scores = reference.scores();
    const int points = static_cast<int>(s.snapshots().size());
    QCOMPARE(w.inductionChart()->seriesCount(), 16);
    for (int h = 0; h < 16; ++h) {
        QCOMPARE(w.inductionChart()->pointCount(h), points);
        QCOMPARE(w.previousTokenChart()->pointCount(h), points);
        const auto k = static_cast<std::size_t>(h);
        QCOMPARE(w.inductionChart()->valueAt(h, points - 1),
                 static_cast<double>(scores[k].induction_score));
        QCOMPARE(w.previousTokenChart()->valueAt(h, points - 1),
                 static_cast<double>(scores[k].previous_token_score));
    }
    QCOMPARE(w.lossChart()->marker(), static_cast<double>(stopped));
    QVERIFY(w.statusLabel()->text().contains(QString::number(stopped)));
}

void TestTrainWindow::stepAdvancesExactlyOne() {
    TrainWindow w;
    TrainSession& s = *w.session();
    QVERIFY(s.waitForIdle());
    for (int i = 1; i <= 3; ++i) {
        w.stepForward();
        QVERIFY(s.waitForIdle());
        QCOMPARE(s.stepsDone(), i);
        QCOMPARE(s.losses().size(), static_cast<std::size_t>(i));
        // A single step shows its own snapshot.
        QCOMPARE(s.snapshots().back()->step, i);
        QCOMPARE(w.shownSnapshot(), i);
    }
    attn::Trainer reference = referenceTrainer("attn-only-2l", 0);
    for (int i = 0; i < 3; ++i) reference.step();
    const auto attentions = reference.probe_attentions(0);
    w.selectHead(1, 2);
    const QString id = w.headPage()->matrixIds().constFirst();
    QCOMPARE(id, QStringLiteral("layer-2-head-3"));
    QVERIFY(maxDiff(w.headPage()->shownValues(id), attentions[1][2]) < 1e-6f);
}

void TestTrainWindow::resetReturnsToStepZero() {
    TrainWindow w;
    TrainSession& s = *w.session();
    QVERIFY(s.waitForIdle());
    s.start();
    QVERIFY(s.waitForStep(30));
    w.resetTraining();
    QVERIFY(!s.running());
    QVERIFY(s.waitForIdle());
    QCOMPARE(s.stepsDone(), 0);
    QVERIFY(s.losses().empty());
    QCOMPARE(s.snapshots().size(), std::size_t{1});
    QCOMPARE(w.lossChart()->pointCount(0), 0);
    QCOMPARE(w.inductionChart()->pointCount(0), 1);
    QCOMPARE(w.timeline()->maximum(), 0);
    // Back to the initial weights of seed 0.
    attn::Trainer reference = referenceTrainer("attn-only-2l", 0);
    const QString id = w.headPage()->matrixIds().constFirst();
    QVERIFY(maxDiff(w.headPage()->shownValues(id), reference.probe_attentions(0)[0][0]) < 1e-6f);
    // Another seed gives other weights.
    QVERIFY(w.applySettings(TrainWindow::TaskChoice::Induction, QStringLiteral("attn-only-2l"), 7,
                            0.0));
    QVERIFY(s.waitForIdle());
    QCOMPARE(s.settings().seed, std::uint64_t{7});
    attn::Trainer seven = referenceTrainer("attn-only-2l", 7);
    QVERIFY(maxDiff(w.headPage()->shownValues(id), seven.probe_attentions(0)[0][0]) < 1e-6f);
}

void TestTrainWindow::timelineScrubsBack() {
    TrainWindow w;
    w.show();
    TrainSession& s = *w.session();
    QVERIFY(s.waitForIdle());
    s.start();
    QVERIFY(s.waitForStep(80));
    s.pause();
    QVERIFY(s.waitForIdle());
    QVERIFY(s.snapshots().size() >= 4);
    // The snapshot of step 25, on the timeline: the heads, the markers and the label follow.
    int index = -1;
    for (std::size_t i = 0; i < s.snapshots().size(); ++i)
        if (s.snapshots()[i]->step == 25) index = static_cast<int>(i);
    QCOMPARE(index, 1);
    w.timeline()->setValue(index);
    QCOMPARE(w.shownSnapshot(), 1);
    QVERIFY(w.timelineLabel()->text().contains(QStringLiteral("step 25")));
    QCOMPARE(w.inductionChart()->marker(), 25.0);
    attn::Trainer reference = referenceTrainer("attn-only-2l", 0);
    for (int i = 0; i < 25; ++i) reference.step();
    const auto attentions = reference.probe_attentions(0);
    const QString id = w.headPage()->matrixIds().constFirst();
    QVERIFY(maxDiff(w.headPage()->shownValues(id), attentions[0][0]) < 1e-6f);
    // The mosaic draws the same snapshot: its focus numbers are those of the step-25 weights.
    const views::HeadFocus focus = views::headFocus(attentions[1][3]);
    QCOMPARE(w.mosaic()->focus(1, 3).previous, focus.previous);
    // Hovering a cell explains it with the step's numbers.
    const QString formula = w.headPage()->cellFormula(id, 4, 3);
    QVERIFY2(formula.contains(views::fixedText(attentions[0][0](4, 3), 4)), qPrintable(formula));
    // Training on from an older snapshot jumps back to the newest.
    const std::int64_t before = s.stepsDone();
    w.showNewest();
    w.stepForward();
    QVERIFY(s.waitForIdle());
    QCOMPARE(s.stepsDone(), before + 1);
}

void TestTrainWindow::keysDriveTraining() {
    TrainWindow w;
    w.show();
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    TrainSession& s = *w.session();
    QVERIFY(s.waitForIdle());
    // Every key of the window does one thing.
    QHash<QString, int> uses;
    for (const QAction* a : w.findChildren<QAction*>())
        for (const QKeySequence& key : a->shortcuts())
            ++uses[key.toString(QKeySequence::PortableText)];
    for (auto it = uses.cbegin(); it != uses.cend(); ++it)
        QVERIFY2(it.value() == 1, qPrintable(it.key()));
    QVERIFY(uses.contains(QStringLiteral("Space")));

    QTest::keyClick(&w, Qt::Key_Right);  // one step
    QVERIFY(s.waitForIdle());
    QCOMPARE(s.stepsDone(), 1);
    QTest::keyClick(&w, Qt::Key_PageDown);
    QVERIFY(s.waitForIdle());
    QCOMPARE(s.stepsDone(), 2);
    QTest::keyClick(&w, Qt::Key_Space);  // start
    QVERIFY(s.running());
    QVERIFY(s.waitForStep(30));
    QTest::keyClick(&w, Qt::Key_Space);  // pause
    QVERIFY(!s.running());
    QVERIFY(s.waitForIdle());
    const std::int64_t steps = s.stepsDone();
    const int last = static_cast<int>(s.snapshots().size()) - 1;
    QCOMPARE(w.shownSnapshot(), last);
    QTest::keyClick(&w, Qt::Key_Home);
    QCOMPARE(w.shownSnapshot(), 0);
    QTest::keyClick(&w, Qt::Key_Right);  // looking back: the next snapshot, no training
    QCOMPARE(w.shownSnapshot(), 1);
    QTest::keyClick(&w, Qt::Key_End);
    QCOMPARE(w.shownSnapshot(), last);
    QTest::keyClick(&w, Qt::Key_Left);
    QCOMPARE(w.shownSnapshot(), last - 1);
    QTest::keyClick(&w, Qt::Key_PageUp);
    QCOMPARE(w.shownSnapshot(), last - 2);
    QVERIFY(s.waitForIdle());
    QCOMPARE(s.stepsDone(), steps);
    // The guide lists the keys from the actions.
    const QString guide = w.guide()->toPlainText();
    for (const QString& key : {QKeySequence(Qt::Key_Space).toString(QKeySequence::NativeText),
                               QKeySequence(Qt::Key_Home).toString(QKeySequence::NativeText)})
        QVERIFY2(guide.contains(key), qPrintable(key));
}

void TestTrainWindow::savesAFolderTheLoaderOpens() {
    QTemporaryDir dir;
    TrainWindow w;
    TrainSession& s = *w.session();
    QVERIFY(s.waitForIdle());
    for (int i = 0; i < 5; ++i) s.stepOnce();
    QVERIFY(s.waitForIdle());
    QCOMPARE(s.stepsDone(), 5);
    QSignalSpy saved(&s, &TrainSession::saved);
    const QString folder = dir.filePath(QStringLiteral("trained"));
    w.saveTo(folder);
    QVERIFY(saved.wait(30000));
    QCOMPARE(saved.first().at(0).toString(), folder);
    QCOMPARE(saved.first().at(1).toString(), QString());
    QVERIFY(w.lastMessage().contains(QDir::toNativeSeparators(folder)));
    const attn::ModelLoadResult loaded = attn::loadModelFolder(folder);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    QCOMPARE(loaded.weights->spec.num_layers, 2);
    QCOMPARE(loaded.weights->spec.num_heads, 8);
    QVERIFY(loaded.weights->spec.attn_only);
    // The weights of step 5.
    attn::Trainer reference = referenceTrainer("attn-only-2l", 0);
    for (int i = 0; i < 5; ++i) reference.step();
    const attn::TransformerWeights expected = attn::weights_view(reference.parameters());
    using attn::TensorRole;
    QVERIFY((*loaded.weights)[TensorRole::TokenEmbedding].row().isApprox(
        expected[TensorRole::TokenEmbedding].row(), 0.0f));
    QVERIFY(loaded.weights->layers[1][TensorRole::QkvWeight].row().isApprox(
        expected.layers[1][TensorRole::QkvWeight].row(), 0.0f));
    const attn::TokenizerLoadResult tokenizer = attn::Tokenizer::load(folder);
    QVERIFY2(tokenizer.ok(), qPrintable(tokenizer.error));
    QCOMPARE(tokenizer.tokenizer->vocabSize(), TrainSession::kInductionVocab);
}

void TestTrainWindow::textTaskShowsASample() {
    TrainWindow w;
    w.show();
    TrainSession& s = *w.session();
    QVERIFY(w.applySettings(TrainWindow::TaskChoice::BundledText, QStringLiteral("attn-only-1l"), 0,
                            0.0));
    QVERIFY(s.waitForIdle());
    QVERIFY(s.ready());
    QCOMPARE(s.settings().task, attn::TrainTask::Text);
    QCOMPARE(w.taskCombo()->currentIndex(), 1);
    QVERIFY(w.sampleView()->isVisible());
    s.start();
    QVERIFY(s.waitForStep(TrainSession::kSampleEvery));
    s.pause();
    QVERIFY(s.waitForIdle());
    QVERIFY(!s.samples().empty());
    const TrainSession::Sample& sample = s.samples().front();
    QCOMPARE(sample.step, TrainSession::kSampleEvery);
    // The prompt is the text's first characters (one token per character), a quarter of the
    // model's 40 positions; the sample fills the rest.
    QCOMPARE(s.spec().max_positions, 40);
    QCOMPARE(sample.prompt, attn::bundledText().left(10));
    QCOMPARE(sample.text.size(), 30);
    const QString shown = w.sampleView()->toPlainText();
    QVERIFY2(shown.contains(sample.prompt + s.samples().back().text), qPrintable(shown));
    QVERIFY(w.guide()->toPlainText().contains(attn::bundledTextName()));
    // A file that is not there is refused with its name, and the run stays as it was.
    QVERIFY(!w.applySettings(TrainWindow::TaskChoice::FileText, QStringLiteral("attn-only-1l"), 0,
                             0.0, QStringLiteral("/nonexistent/words.txt")));
    QVERIFY(w.lastMessage().contains(QStringLiteral("words.txt")));
    QCOMPARE(s.settings().task, attn::TrainTask::Text);
}

void TestTrainWindow::oneLayerModelSaysNoInductionHead() {
    TrainWindow w;
    TrainSession& s = *w.session();
    QVERIFY(w.applySettings(TrainWindow::TaskChoice::Induction, QStringLiteral("attn-only-1l"), 0,
                            0.0));
    QVERIFY(s.waitForIdle());
    QCOMPARE(s.spec().num_layers, 1);
    QCOMPARE(w.mosaic()->layerCount(), 1);
    QVERIFY(!inductionHead(s, 0).has_value());  // no later layer to hold one
    const QString guide = w.guide()->toPlainText();
    QVERIFY2(guide.contains(QStringLiteral("One layer: no induction head")), qPrintable(guide));
}

void TestTrainWindow::commandLineOpensTheWindow() {
    GuiParseResult parsed =
        parseGuiOptions({QStringLiteral("attention-visualizer"), QStringLiteral("--train")});
    QCOMPARE(parsed.status, GuiParseResult::Status::Ok);
    QVERIFY(parsed.options.train);
    parsed = parseGuiOptions({QStringLiteral("attention-visualizer"), QStringLiteral("--help")});
    QVERIFY(parsed.text.contains(QStringLiteral("--train")));
    // The walkthrough window opens it from File ▸ Train a model… (and the Train menu).
    MainWindow main;
    QAction* train = nullptr;
    for (QAction* a : main.findChildren<QAction*>())
        if (a->text() == QStringLiteral("&Train a model…")) train = a;
    QVERIFY(train);
    train->trigger();
    auto* window = main.findChild<TrainWindow*>(QString(), Qt::FindDirectChildrenOnly);
    QVERIFY(window && window->isVisible());
    QVERIFY(window->session()->waitForIdle());
    // Closing it while it trains pauses the run.
    window->session()->start();
    QVERIFY(window->session()->waitForStep(5));
    window->close();
    QVERIFY(!window->session()->running());
    QVERIFY(window->session()->waitForIdle());
}

// The worker trains; the UI thread only takes the results in: its event loop keeps turning.
void TestTrainWindow::uiStaysResponsiveWhileTraining() {
    TrainWindow w;
    w.show();
    TrainSession& s = *w.session();
    QVERIFY(s.waitForIdle());
    s.start();
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0, longest = 0;
    QTimer tick;
    connect(&tick, &QTimer::timeout, this, [&] {
        longest = std::max(longest, clock.elapsed() - last);
        last = clock.elapsed();
    });
    tick.start(10);
    QTest::qWait(1500);
    s.pause();
    QVERIFY(s.waitForIdle());
    QVERIFY(s.stepsDone() > 0);
    // Training on the UI thread would stop its loop for the whole run; drawing a snapshot (the
    // large head is rebuilt once a second) takes a fraction of a second on a loaded machine.
    qInfo("longest pause of the UI thread while training: %lld ms", longest);
    QVERIFY2(longest < 1000, qPrintable(QString::number(longest)));
}

// The large head view shares the window with the charts: at 1280×720 its heatmap shrinks to
// fit, while its texts stay at 0.9 of the normal size or more.
void TestTrainWindow::headViewTextStaysReadable() {
    TrainWindow w;
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.session()->waitForIdle());
    views::StepPage* page = w.headPage();
    QVERIFY(page);
    QTest::qWait(300);  // the page fits itself once laid out (StepPage::settleFit)
    QVERIFY2(page->shownScale() < 0.9, qPrintable(QString::number(page->shownScale())));
    const double normal = QApplication::font().pointSizeF();
    const QList<QLabel*> labels = page->findChildren<QLabel*>();
    int texts = 0;
    for (const QLabel* label : labels) {
        if (!label->isVisible() || label->text().isEmpty()) continue;
        ++texts;
        QVERIFY2(label->font().pointSizeF() >= 0.9 * normal - 1e-9,
                 qPrintable(QStringLiteral("%1: %2 pt")
                                .arg(label->text().left(40))
                                .arg(label->font().pointSizeF())));
    }
    QVERIFY(texts >= 2);  // the title and the cell bar
}

QTEST_MAIN(TestTrainWindow)
#include "test_train_window.moc"
