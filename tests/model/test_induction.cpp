// The lesson the Train window teaches, as the Trainer runs it: on the induction task, the
// two-layer attention-only preset forms a previous-token head in layer 1 and an induction head in
// layer 2, and the loss drops when they appear; the one-layer preset, trained as long, has no
// head that scores as an induction head. Deterministic for the seed; the steps are a margin over
// where the phase change happens on this machine (about step 2000 of seed 0).
#include <QTest>
#include <algorithm>
#include <numeric>
#include <vector>

#include "model/matmul.h"
#include "model/trainer.h"

using Index = Eigen::Index;

namespace {

constexpr int kSteps = 3000;

struct Run {
    std::vector<float> losses;
    std::vector<attn::HeadScore> scores;
};

Run train(const std::string& preset_name) {
    const attn::TrainPreset preset = attn::train_preset(preset_name, 64, 0);
    attn::TrainerOptions options;
    options.task = attn::TrainTask::Induction;
    options.batch = preset.batch;
    options.seq_len = preset.seq_len;
    options.adamw.lr = preset.lr;
    options.seed = 0;
    attn::Trainer trainer(preset.spec, options);
    Run run;
    for (int s = 0; s < kSteps; ++s) run.losses.push_back(trainer.step().loss);
    run.scores = trainer.scores();
    return run;
}

float mean(const std::vector<float>& v, std::size_t from, std::size_t to) {
    return std::accumulate(v.begin() + static_cast<long>(from), v.begin() + static_cast<long>(to),
                           0.0f) /
           static_cast<float>(to - from);
}

float best(const std::vector<attn::HeadScore>& scores, Index layer, bool induction) {
    float b = 0.0f;
    for (const auto& s : scores)
        if (s.layer == layer)
            b = std::max(b, induction ? s.induction_score : s.previous_token_score);
    return b;
}

}  // namespace

class TestInduction : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { attn::set_engine_threads(1); }

    void twoLayersFormAnInductionHead() {
        const Run run = train("attn-only-2l");
        const float prev0 = best(run.scores, 0, false), ind1 = best(run.scores, 1, true);
        qInfo(
            "attn-only-2l after %d steps: best previous-token score in layer 1 %.3f, best "
            "induction score in layer 2 %.3f, loss %.3f -> %.3f",
            kSteps, double(prev0), double(ind1), double(mean(run.losses, 0, 100)),
            double(mean(run.losses, kSteps - 100, kSteps)));
        QVERIFY2(prev0 >= 0.3f, "no previous-token head in the first layer");
        QVERIFY2(ind1 >= 0.4f, "no induction head in the second layer");
        // The plateau at log(64) = 4.16 (nothing predictable without the circuit), then the
        // drop: the repeats become predictable.
        QVERIFY(mean(run.losses, 0, 100) > 4.1f);
        QVERIFY(mean(run.losses, kSteps - 100, kSteps) < 3.7f);
    }

    void oneLayerFormsNone() {
        const Run run = train("attn-only-1l");
        float highest = 0.0f;
        for (const auto& s : run.scores) highest = std::max(highest, s.induction_score);
        qInfo("attn-only-1l after %d steps: highest induction score %.3f", kSteps, double(highest));
        QCOMPARE(run.scores.size(), std::size_t(8));
        QVERIFY2(highest <= 0.2f, "a one-layer model scored as an induction head");
        // It still learns something (copying tokens seen before), just not induction.
        QVERIFY(mean(run.losses, kSteps - 100, kSteps) < mean(run.losses, 0, 100));
    }
};

QTEST_APPLESS_MAIN(TestInduction)
#include "test_induction.moc"
