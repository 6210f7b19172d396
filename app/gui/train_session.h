// TrainSession: an attn::Trainer (model/trainer.h) stepping on a worker thread of its own, for the
// Train window. The UI thread never steps: it sends commands (reset with settings, start, pause,
// one step, save) and, at most ten times a second, takes what the worker has posted since: the
// loss of every step, and every few steps a snapshot of the probe's attention (every layer and
// head on the fixed probe sequence [BOS] r r, with the queries and keys behind each weight) and
// the head scores, kept in a list so the timeline scrubs back; for the text task, now and then a
// sample generated from the start of the text.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <vector>

#include "model/trainer.h"

class QThread;
class QTimer;

namespace attn {
class Tokenizer;
}

class TrainSession : public QObject {
    Q_OBJECT

public:
    // The induction task's vocabulary: the BOS and 63 single characters.
    static constexpr int kInductionVocab = 64;
    // A snapshot every this many steps (doubling as the run grows, so at most kMaxSnapshots are
    // kept), and a text sample every kSampleEvery steps.
    static constexpr std::int64_t kSnapshotEvery = 25;
    static constexpr int kMaxSnapshots = 240;
    static constexpr std::int64_t kSampleEvery = 200;
    // How often the UI thread takes the worker's results.
    static constexpr int kPostIntervalMs = 100;

    struct Settings {
        attn::TrainTask task = attn::TrainTask::Induction;
        QString preset = QStringLiteral("attn-only-2l");
        std::uint64_t seed = 0;
        float lr = 0.0f;   // 0: the preset's own
        QString text;      // the text task's text
        QString textName;  // "the-verdict.txt"
    };

    // One point of the timeline: the probe as the model saw it after `step` steps.
    struct Snapshot {
        std::int64_t step = 0;
        // [layer][head] (T, T): attn_weights on probe 0, Trainer::probe_attentions(0).
        std::vector<std::vector<attn::Matrix>> attentions;
        // [layer] (T, H·hd): the same pass's queries and keys, for the hover's q·k arithmetic;
        // empty when the forward pass could not give them.
        std::vector<attn::Matrix> queries, keys;
        std::vector<attn::HeadScore> scores;  // Trainer::scores()
    };
    struct Sample {
        std::int64_t step = 0;
        QString prompt, text;  // the prompt, then what the model wrote after it
    };

    explicit TrainSession(QObject* parent = nullptr);
    ~TrainSession() override;

    // A new Trainer with these settings, built on the worker; the history starts again at step 0
    // (resetDone, or failed with the reason). Stops a run.
    void reset(const Settings& settings);
    void start();
    void pause();
    // Exactly one more step (pauses a run first).
    void stepOnce();
    // Saves a GPT-2 folder (app/io/train_data.h) from a copy of the parameters, on the worker,
    // between two steps; saved() reports.
    void save(const QString& folder);

    bool ready() const { return ready_; }  // a trainer is in place
    bool running() const { return running_; }
    const Settings& settings() const { return settings_; }
    std::int64_t stepsDone() const { return step_; }
    // losses()[i]: the loss of step i + 1 (before its update).
    const std::vector<float>& losses() const { return losses_; }
    const std::vector<std::shared_ptr<const Snapshot>>& snapshots() const { return snapshots_; }
    const std::vector<Sample>& samples() const { return samples_; }
    const attn::TransformerSpec& spec() const { return spec_; }
    // Probe 0 as ids and as the tokenizer shows them ("<|endoftext|>", "a", ...).
    const std::vector<int>& probeIds() const { return probeIds_; }
    const QStringList& probeTokens() const { return probeTokens_; }
    // n of the probe [BOS] r r, r of n tokens (attn::probe_repeat_len of the run's seq_len).
    int repeatLength() const { return repeatLength_; }
    std::shared_ptr<const attn::Tokenizer> tokenizer() const { return tokenizer_; }

    // Tests: processes events until stepsDone() >= step (and that step is posted).
    bool waitForStep(std::int64_t step, int timeoutMs = 60000);
    // Tests: until the worker has nothing left to do and everything is posted.
    bool waitForIdle(int timeoutMs = 60000);

signals:
    void resetDone();
    void failed(const QString& message);
    // New steps, snapshots or samples were taken in.
    void progressed();
    void runningChanged(bool running);
    void saved(const QString& folder, const QString& error);

private:
    struct Worker;
    void takePosted();
    void setRunning(bool running);

    std::shared_ptr<Worker> worker_;
    QThread* thread_ = nullptr;
    QTimer* poll_ = nullptr;
    Settings settings_;
    bool ready_ = false;
    bool running_ = false;
    std::uint64_t generation_ = 0;  // resets asked for; older posts are dropped
    std::int64_t step_ = 0;
    std::vector<float> losses_;
    std::vector<std::shared_ptr<const Snapshot>> snapshots_;
    std::vector<Sample> samples_;
    attn::TransformerSpec spec_;
    std::vector<int> probeIds_;
    QStringList probeTokens_;
    int repeatLength_ = 0;
    std::shared_ptr<const attn::Tokenizer> tokenizer_;
};
