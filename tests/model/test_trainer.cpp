// The training loop's parts: the induction task's sequences, the text task's windows (the rule
// docs/cli.md states, checked against windows written out by hand), the head scores on attention
// patterns whose scores are known, the presets, and the Trainer itself: deterministic for a seed,
// its losses falling, and the induction head forming in two layers and not in one.
#include <QTest>
#include <algorithm>
#include <set>
#include <vector>

#include "model/trainer.h"

using attn::AttentionError;
using attn::Matrix;
using attn::TorchGenerator;
using Index = Eigen::Index;

namespace {

std::vector<int> iota_tokens(int n) {
    std::vector<int> t(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) t[static_cast<std::size_t>(i)] = 100 + i;
    return t;
}

// A (T, T) pattern in which every query attends to one key: key_of(i).
template <class Fn>
Matrix one_hot_pattern(Index T, Fn key_of) {
    Matrix a = Matrix::Zero(T, T);
    for (Index i = 0; i < T; ++i) a(i, key_of(i)) = 1.0f;
    return a;
}

}  // namespace

class TestTrainer : public QObject {
    Q_OBJECT

private slots:
    void inductionSequencesRepeatAfterBos() {
        TorchGenerator gen(7);
        const Index V = 20, T = 33, B = 64;
        const attn::TrainBatch batch = attn::induction_batch(V, T, B, gen);
        QCOMPARE(batch.batch, B);
        QCOMPARE(batch.seq_len, T);
        QCOMPARE(batch.inputs.size(), std::size_t(B * T));
        std::set<Index> lengths;
        for (Index b = 0; b < B; ++b) {
            const int* in = batch.inputs.data() + b * T;
            const int* tg = batch.targets.data() + b * T;
            QCOMPARE(in[0], 0);                                            // BOS
            for (Index t = 0; t + 1 < T; ++t) QCOMPARE(tg[t], in[t + 1]);  // targets shift by one
            for (Index t = 1; t < T; ++t) QVERIFY(in[t] >= 1 && in[t] < V);
            // The repeat length: the smallest n with tokens 1..n repeated at n+1..2n; at least
            // one n in the task's range must fit.
            Index found = 0;
            for (Index n = 2; 2 * n + 1 <= T && !found; ++n) {
                bool repeats = true;
                for (Index i = 1; i <= n && repeats; ++i)
                    repeats = (n + i < T ? in[n + i] : tg[T - 1]) == in[i];
                if (repeats) found = n;
            }
            QVERIFY2(found >= 2 && found <= (T - 1) / 2, "no [BOS] r r repeat in a sequence");
            lengths.insert(found);
        }
        // The length is drawn afresh: many different lengths in one batch.
        QVERIFY2(lengths.size() >= 6, "repeat lengths do not vary");
        // Deterministic for a seed.
        TorchGenerator again(7);
        QCOMPARE(attn::induction_batch(V, T, B, again).inputs, batch.inputs);
    }

    void probesRepeatAfterBos() {
        const auto probes = attn::induction_probes(10, 6, 3, 5);
        QCOMPARE(probes.size(), std::size_t(3));
        for (const auto& p : probes) {
            QCOMPARE(p.size(), std::size_t(13));  // [BOS] + 6 + 6
            QCOMPARE(p[0], 0);
            for (std::size_t i = 1; i <= 6; ++i) QCOMPARE(p[i + 6], p[i]);
        }
        QVERIFY(probes[0] != probes[1]);
        QCOMPARE(attn::induction_probes(10, 6, 3, 5), probes);
        // Short against the task's longest repeat, (seq_len - 1) / 2.
        QCOMPARE(attn::probe_repeat_len(48), Index(9));
        QCOMPARE(attn::probe_repeat_len(64), Index(12));
        QCOMPARE(attn::probe_repeat_len(5), Index(2));
    }

    void inductionRefusesTinySizes() {
        TorchGenerator gen(1);
        QVERIFY_THROWS_EXCEPTION(AttentionError, attn::induction_batch(2, 32, 4, gen));
        QVERIFY_THROWS_EXCEPTION(AttentionError, attn::induction_batch(10, 4, 4, gen));
        QVERIFY_THROWS_EXCEPTION(AttentionError, attn::induction_batch(10, 32, 0, gen));
    }

    // Window k: inputs tokens[kT .. kT+T−1], targets tokens[kT+1 .. kT+T], for kT + T < N;
    // batch i holds windows (iB + b) mod count.
    void textWindowsWithoutShuffle() {
        const Index T = 4, B = 3;
        attn::TextWindows windows(iota_tokens(18), T, false, 0);
        QCOMPARE(windows.count(), Index(4));  // k = 0..3: 3·4 + 4 = 16 < 18; 4·4 + 4 = 20 is not
        const attn::TrainBatch b0 = windows.batch(0, B);
        QCOMPARE(b0.inputs,
                 (std::vector<int>{100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111}));
        QCOMPARE(b0.targets,
                 (std::vector<int>{101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112}));
        // Batch 1: windows 3, 4 mod 4 = 0, 5 mod 4 = 1.
        const attn::TrainBatch b1 = windows.batch(1, B);
        QCOMPARE(b1.inputs,
                 (std::vector<int>{112, 113, 114, 115, 100, 101, 102, 103, 104, 105, 106, 107}));
        QCOMPARE(b1.targets[3], 116);
        // Exactly N = kT + T leaves no target for the last window's last input.
        QCOMPARE(attn::TextWindows(iota_tokens(16), T, false, 0).count(), Index(3));
        QCOMPARE(attn::TextWindows(iota_tokens(5), T, false, 0).count(), Index(1));
        QVERIFY_THROWS_EXCEPTION(AttentionError, attn::TextWindows(iota_tokens(4), T, false, 0));
    }

    void textWindowsShuffledVisitEveryWindowOncePerPass() {
        const Index T = 3, count = 10;
        attn::TextWindows windows(iota_tokens(static_cast<int>(count * T + 1)), T, true, 9);
        QCOMPARE(windows.count(), count);
        for (int pass = 0; pass < 2; ++pass) {
            std::multiset<int> starts;
            for (Index i = 0; i < 5; ++i) {  // 5 batches of 2 = one pass
                const attn::TrainBatch b = windows.batch(pass * 5 + i, 2);
                starts.insert(b.inputs[0]);
                starts.insert(b.inputs[3]);
            }
            std::multiset<int> expected;
            for (Index k = 0; k < count; ++k) expected.insert(static_cast<int>(100 + k * T));
            QCOMPARE(starts, expected);
        }
        attn::TextWindows a(iota_tokens(31), T, true, 9), b(iota_tokens(31), T, true, 9);
        QCOMPARE(a.batch(0, 4).inputs, b.batch(0, 4).inputs);
        attn::TextWindows ordered(iota_tokens(31), T, false, 9);
        QVERIFY(a.batch(1, 10).inputs != ordered.batch(1, 10).inputs);
    }

    void scoresOfKnownPatterns() {
        const Index n = 5, T = 2 * n + 1;
        // Layer 0: head 0 attends to the previous token, head 1 to itself; layer 1: head 0 to
        // the token after the earlier occurrence (second half), head 1 half there, half to BOS.
        const Matrix previous = one_hot_pattern(T, [](Index i) { return i > 0 ? i - 1 : 0; });
        const Matrix self = one_hot_pattern(T, [](Index i) { return i; });
        const Matrix induction =
            one_hot_pattern(T, [n](Index i) { return i > n ? i - n + 1 : Index{0}; });
        Matrix half = 0.5f * induction;
        half.col(0).array() += 0.5f;
        std::vector<std::vector<std::vector<Matrix>>> attentions = {
            {{previous, self}, {induction, half}}};
        attentions.push_back(attentions[0]);  // a second probe averages to the same
        const auto scores = attn::head_scores(attentions, n);
        QCOMPARE(scores.size(), std::size_t(4));
        QCOMPARE(scores[0].layer, Index(0));
        QCOMPARE(scores[1].head, Index(1));
        QCOMPARE(scores[2].layer, Index(1));
        QCOMPARE(scores[0].previous_token_score, 1.0f);
        QCOMPARE(scores[0].induction_score, 0.0f);
        QCOMPARE(scores[1].previous_token_score, 0.0f);
        QCOMPARE(scores[2].induction_score, 1.0f);
        QCOMPARE(scores[2].previous_token_score, 0.0f);
        QCOMPARE(scores[3].induction_score, 0.5f);
        // Uniform causal attention: query i gives 1 / (i + 1) to each key; the second half's
        // mean for n = 5 is (1/7 + 1/8 + 1/9 + 1/10 + 1/11) / 5.
        Matrix uniform = Matrix::Zero(T, T);
        for (Index i = 0; i < T; ++i) uniform.row(i).head(i + 1).setConstant(1.0f / float(i + 1));
        const auto u = attn::head_scores({{{uniform}}}, n);
        const double expected = (1.0 / 7 + 1.0 / 8 + 1.0 / 9 + 1.0 / 10 + 1.0 / 11) / 5;
        QVERIFY(std::abs(double(u[0].induction_score) - expected) < 1e-7);
        QVERIFY(std::abs(double(u[0].previous_token_score) - expected) < 1e-7);
    }

    void trainerRefusesBadOptions() {
        const attn::TransformerSpec spec = attn::train_spec(1, 2, 8, 16, 12, true);
        const auto refused = [&](const attn::TransformerSpec& sp, attn::TrainerOptions o,
                                 const char* expected) {
            try {
                attn::Trainer trainer(sp, o);
                QFAIL("bad options were accepted");
            } catch (const AttentionError& e) {
                QVERIFY2(std::string(e.what()).find(expected) != std::string::npos, e.what());
            }
        };
        attn::TrainerOptions o;
        o.seq_len = 12;
        o.batch = 0;
        refused(spec, o, "batch must be at least 1");
        o.batch = 2;
        o.seq_len = 13;
        refused(spec, o, "seq_len 13 must be from 2 to the model's 12 positions");
        o.seq_len = 12;
        o.adamw.lr = 0.0f;
        refused(spec, o, "learning rate");
        o.adamw.lr = 1e-3f;
        refused(attn::train_spec(1, 2, 8, 2, 12, true), o,
                "training needs a vocabulary of at least 3 tokens, not 2");
        o.task = attn::TrainTask::Text;
        o.text_tokens = {1, 2, 16, 3};
        refused(spec, o, "token id 16 outside the model's vocabulary of 16");
        // A valid run steps and scores every head.
        o.text_tokens.assign(40, 1);
        o.text_tokens[5] = 2;
        attn::Trainer trainer(spec, o);
        QCOMPARE(trainer.step().step, std::int64_t(1));
        QCOMPARE(trainer.scores().size(), std::size_t(2));
    }

    void presets() {
        const auto names = attn::train_preset_names();
        QCOMPARE(names, (std::vector<std::string>{"attn-only-1l", "attn-only-2l", "gpt-2l"}));
        const attn::TrainPreset one = attn::train_preset("attn-only-1l", 64, 0);
        QCOMPARE(one.spec.num_layers, Index(1));
        QVERIFY(one.spec.attn_only);
        const attn::TrainPreset two = attn::train_preset("attn-only-2l", 64, 0);
        QCOMPARE(two.spec.num_layers, Index(2));
        QCOMPARE(two.spec.vocab_size, Index(64));
        QCOMPARE(two.spec.max_positions, two.seq_len);
        const attn::TrainPreset gpt = attn::train_preset("gpt-2l", 50, 48);
        QVERIFY(!gpt.spec.attn_only);
        QCOMPARE(gpt.seq_len, Index(48));
        QCOMPARE(gpt.spec.d_ff, 4 * gpt.spec.d_model);
        try {
            attn::train_preset("gpt-3", 64, 0);
            QFAIL("an unknown preset was accepted");
        } catch (const AttentionError& e) {
            QVERIFY(std::string(e.what()).find("attn-only-2l") != std::string::npos);
        }
        QVERIFY_THROWS_EXCEPTION(AttentionError, attn::train_spec(2, 3, 64, 64, 32, true));
    }
};

QTEST_APPLESS_MAIN(TestTrainer)
#include "test_trainer.moc"
