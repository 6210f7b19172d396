#include "app/gui/train_session.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <utility>

#include "app/io/train_data.h"
#include "model/generator.h"
#include "model/matmul.h"
#include "model/transformer.h"

namespace {

// The text task's samples: the first tokens of the text as the prompt (at most a quarter of the
// model's positions), then as many more as fit, up to kSampleTokens.
constexpr int kPromptTokens = 24;
constexpr Eigen::Index kSampleTokens = 160;
// Sampled, not greedy: a small model's greedy text loops on one word.
constexpr float kSampleTemperature = 0.8f;
// The queries and keys of the hover are the probe's own when a plain forward pass gives the
// trainer's weights to within float rounding.
constexpr float kSameAttention = 1e-4f;

}  // namespace

// The worker's side: the commands the UI thread sends, what the worker posts back, and the
// trainer, which only the worker thread touches.
struct TrainSession::Worker {
    std::mutex mutex;
    std::condition_variable wake;

    // Commands (under mutex).
    bool quit = false;
    bool running = false;
    int stepsWanted = 0;
    bool snapshotWanted = false;
    std::optional<std::pair<std::uint64_t, Settings>> resetWanted;
    std::vector<QString> saves;
    bool busy = false;  // between taking a command and posting its result

    // Posted for the UI thread (under mutex); a reset starts it afresh.
    struct Posted {
        std::uint64_t generation = 0;
        bool reset = false;  // a new trainer: what follows replaces the history
        bool stopped = false;
        QString error;
        std::int64_t step = 0;
        std::vector<float> losses;
        std::vector<std::shared_ptr<const Snapshot>> snapshots;
        std::vector<Sample> samples;
        std::vector<std::pair<QString, QString>> saves;  // folder, error
        attn::TransformerSpec spec;
        std::vector<int> probeIds;
        QStringList probeTokens;
        int repeatLength = 0;
        std::shared_ptr<const attn::Tokenizer> tokenizer;
    } posted;

    // The worker thread's own.
    std::unique_ptr<attn::Trainer> trainer;
    std::shared_ptr<const attn::Tokenizer> tokenizer;
    std::vector<int> textIds;
    std::uint64_t generation = 0;

    void run();
    void rebuild(std::uint64_t gen, const Settings& settings);
    void stepOnce(bool snapshot);
    std::shared_ptr<const Snapshot> snapshot();
    Sample sample();
    void saveTo(const QString& folder);
    void fail(const QString& message);
};

void TrainSession::Worker::run() {
    // The presets' products are small: one thread computes them fastest, and the model window
    // keeps the count its Threads menu chose.
    attn::set_thread_engine_threads(1);
    for (;;) {
        std::optional<std::pair<std::uint64_t, Settings>> reset;
        std::vector<QString> toSave;
        bool step = false, single = false, snap = false;
        {
            std::unique_lock<std::mutex> lock(mutex);
            wake.wait(lock, [this] {
                return quit || resetWanted || !saves.empty() ||
                       (trainer && (running || stepsWanted > 0 || snapshotWanted));
            });
            if (quit) return;
            reset = std::move(resetWanted);
            resetWanted.reset();
            toSave.swap(saves);
            if (trainer || reset) {
                single = !running && stepsWanted > 0;
                step = running || single;
                if (single) --stepsWanted;
                snap = snapshotWanted && !step;
                snapshotWanted = false;
            }
            busy = true;
        }
        if (reset) rebuild(reset->first, reset->second);
        for (const QString& folder : toSave) saveTo(folder);
        if (trainer && step) stepOnce(single);
        if (trainer && snap) {
            std::shared_ptr<const Snapshot> s = snapshot();
            const std::lock_guard<std::mutex> lock(mutex);
            if (posted.snapshots.empty() || posted.snapshots.back()->step != s->step)
                posted.snapshots.push_back(std::move(s));
        }
        const std::lock_guard<std::mutex> lock(mutex);
        busy = false;
    }
}

void TrainSession::Worker::fail(const QString& message) {
    const std::lock_guard<std::mutex> lock(mutex);
    running = false;
    stepsWanted = 0;
    posted.stopped = true;
    posted.error = message;
}

void TrainSession::Worker::rebuild(std::uint64_t gen, const Settings& settings) {
    generation = gen;
    trainer.reset();
    textIds.clear();
    {
        const std::lock_guard<std::mutex> lock(mutex);
        posted = Posted{};
        posted.generation = gen;
    }
    try {
        attn::TrainerOptions options;
        options.task = settings.task;
        options.seed = settings.seed;
        Eigen::Index vocab = kInductionVocab;
        if (settings.task == attn::TrainTask::Text) {
            tokenizer = attn::characterTokenizer(settings.text);
            textIds = tokenizer->encode(settings.text);
            options.text_tokens = textIds;
            vocab = tokenizer->vocabSize();
        } else {
            tokenizer = attn::inductionTokenizer(kInductionVocab);
        }
        const attn::TrainPreset preset =
            attn::train_preset(settings.preset.toStdString(), vocab, 0);
        options.batch = preset.batch;
        options.seq_len = preset.seq_len;
        options.adamw.lr = settings.lr > 0.0f ? settings.lr : preset.lr;
        trainer = std::make_unique<attn::Trainer>(preset.spec, options);
    } catch (const std::exception& e) {
        trainer.reset();
        fail(QString::fromUtf8(e.what()));
        return;
    }
    std::shared_ptr<const Snapshot> first = snapshot();
    const std::lock_guard<std::mutex> lock(mutex);
    posted.reset = true;
    posted.spec = trainer->parameters().spec;
    if (!trainer->probes().empty()) posted.probeIds = trainer->probes().front();
    for (const int id : posted.probeIds) posted.probeTokens << tokenizer->displayToken(id);
    posted.repeatLength =
        static_cast<int>((static_cast<Eigen::Index>(posted.probeIds.size()) - 1) / 2);
    posted.tokenizer = tokenizer;
    posted.snapshots.push_back(std::move(first));
}

void TrainSession::Worker::stepOnce(bool single) {
    attn::TrainStepResult result;
    try {
        result = trainer->step();
    } catch (const std::exception& e) {
        fail(QString::fromUtf8(e.what()));
        return;
    }
    // Snapshots thin out as the run grows: the interval doubles each time the list would pass
    // kMaxSnapshots (the UI thread drops every other old one then).
    std::int64_t every = kSnapshotEvery;
    while (result.step / every >= kMaxSnapshots) every *= 2;
    std::shared_ptr<const Snapshot> snap;
    if (single || result.step % every == 0) snap = snapshot();
    std::optional<Sample> text;
    if (!textIds.empty() && result.step % kSampleEvery == 0) text = sample();
    const std::lock_guard<std::mutex> lock(mutex);
    posted.step = result.step;
    posted.losses.push_back(result.loss);
    if (snap) posted.snapshots.push_back(std::move(snap));
    if (text) posted.samples.push_back(std::move(*text));
}

std::shared_ptr<const TrainSession::Snapshot> TrainSession::Worker::snapshot() {
    auto s = std::make_shared<Snapshot>();
    s->step = trainer->steps_done();
    s->attentions = trainer->probe_attentions(0);
    s->scores = trainer->scores();
    if (trainer->probes().empty()) return s;  // a model too short for a probe: no heads to show
    try {
        attn::ModelForwardOptions options;
        options.keep_qkv = true;
        options.top_k = 1;
        attn::ModelForwardResult pass = attn::model_forward(
            attn::weights_view(trainer->parameters()), trainer->probes().front(), options);
        float diff = pass.attentions.size() == s->attentions.size() ? 0.0f : 1.0f;
        for (std::size_t l = 0; diff <= kSameAttention && l < pass.attentions.size(); ++l)
            for (std::size_t h = 0; h < pass.attentions[l].size(); ++h)
                diff = std::max(
                    diff, (pass.attentions[l][h] - s->attentions[l][h]).cwiseAbs().maxCoeff());
        if (diff <= kSameAttention) {
            s->queries = std::move(pass.queries);
            s->keys = std::move(pass.keys);
        }
    } catch (const std::exception&) {
        // The heads still show their weights; only the hover's arithmetic is missing.
    }
    return s;
}

TrainSession::Sample TrainSession::Worker::sample() {
    Sample s;
    s.step = trainer->steps_done();
    const attn::TransformerSpec& spec = trainer->parameters().spec;
    // The model reads at most max_positions tokens: the prompt takes a quarter of them.
    const std::size_t n = std::min<std::size_t>(
        {kPromptTokens, textIds.size(),
         static_cast<std::size_t>(std::max<Eigen::Index>(1, spec.max_positions / 4))});
    const std::vector<int> prompt(textIds.begin(), textIds.begin() + static_cast<long>(n));
    attn::GenerationOptions options;
    options.max_new_tokens =
        std::min<Eigen::Index>(kSampleTokens, spec.max_positions - static_cast<Eigen::Index>(n));
    options.temperature = kSampleTemperature;
    options.seed = static_cast<std::uint64_t>(s.step);
    s.prompt = tokenizer->decode(prompt).text.value_or(QString());
    if (options.max_new_tokens < 1) return s;
    try {
        const attn::TransformerWeights weights = attn::weights_copy(trainer->parameters());
        attn::Generator generator(weights, prompt, options);
        std::vector<int> ids;
        while (!generator.finished()) ids.push_back(generator.step().id);
        s.text = tokenizer->decode(ids).text.value_or(QString());
    } catch (const std::exception& e) {
        s.text = QString::fromUtf8(e.what());
    }
    return s;
}

void TrainSession::Worker::saveTo(const QString& folder) {
    QString error;
    if (!trainer) {
        error = QCoreApplication::translate("TrainSession", "There is no model to save yet.");
    } else {
        // A copy: the folder gets the parameters of one step, whatever comes next.
        const attn::ModelParameters copy = trainer->parameters();
        attn::saveGpt2Folder(folder, copy, *tokenizer, &error);
    }
    const std::lock_guard<std::mutex> lock(mutex);
    posted.saves.emplace_back(folder, error);
}

TrainSession::TrainSession(QObject* parent) : QObject(parent) {
    worker_ = std::make_shared<Worker>();
    std::shared_ptr<Worker> worker = worker_;
    thread_ = QThread::create([worker] { worker->run(); });
    thread_->start();
    poll_ = new QTimer(this);
    poll_->setInterval(kPostIntervalMs);
    connect(poll_, &QTimer::timeout, this, &TrainSession::takePosted);
    poll_->start();
}

TrainSession::~TrainSession() {
    {
        const std::lock_guard<std::mutex> lock(worker_->mutex);
        worker_->quit = true;
    }
    worker_->wake.notify_all();
    thread_->wait();  // at most one step: the models here are small
    delete thread_;
}

void TrainSession::reset(const Settings& settings) {
    settings_ = settings;
    ready_ = false;
    setRunning(false);
    {
        const std::lock_guard<std::mutex> lock(worker_->mutex);
        worker_->running = false;
        worker_->stepsWanted = 0;
        worker_->resetWanted = std::make_pair(++generation_, settings);
    }
    worker_->wake.notify_all();
}

void TrainSession::start() {
    if (!ready_) return;
    {
        const std::lock_guard<std::mutex> lock(worker_->mutex);
        worker_->running = true;
    }
    worker_->wake.notify_all();
    setRunning(true);
}

void TrainSession::pause() {
    {
        const std::lock_guard<std::mutex> lock(worker_->mutex);
        if (worker_->running) worker_->snapshotWanted = true;  // the step it stopped at
        worker_->running = false;
        worker_->stepsWanted = 0;
    }
    worker_->wake.notify_all();
    setRunning(false);
}

void TrainSession::stepOnce() {
    if (!ready_) return;
    {
        // A run stops first; steps asked for in a row all happen.
        const std::lock_guard<std::mutex> lock(worker_->mutex);
        worker_->running = false;
        worker_->snapshotWanted = false;  // the step takes its own
        ++worker_->stepsWanted;
    }
    worker_->wake.notify_all();
    setRunning(false);
}

void TrainSession::save(const QString& folder) {
    {
        const std::lock_guard<std::mutex> lock(worker_->mutex);
        worker_->saves.push_back(folder);
    }
    worker_->wake.notify_all();
}

void TrainSession::setRunning(bool running) {
    if (running == running_) return;
    running_ = running;
    emit runningChanged(running_);
}

void TrainSession::takePosted() {
    Worker::Posted p;
    {
        const std::lock_guard<std::mutex> lock(worker_->mutex);
        if (worker_->posted.generation != generation_) return;  // a reset is on its way
        p = std::move(worker_->posted);
        worker_->posted = Worker::Posted{};
        worker_->posted.generation = generation_;
        worker_->posted.step = p.step;
    }
    if (p.reset) {
        ready_ = true;
        step_ = 0;
        losses_.clear();
        snapshots_.clear();
        samples_.clear();
        spec_ = p.spec;
        probeIds_ = std::move(p.probeIds);
        probeTokens_ = std::move(p.probeTokens);
        repeatLength_ = p.repeatLength;
        tokenizer_ = std::move(p.tokenizer);
    }
    const bool changed = !p.losses.empty() || !p.snapshots.empty() || !p.samples.empty();
    if (!p.losses.empty()) step_ = p.step;
    losses_.insert(losses_.end(), p.losses.begin(), p.losses.end());
    for (auto& s : p.snapshots)
        if (snapshots_.empty() || snapshots_.back()->step != s->step)
            snapshots_.push_back(std::move(s));
    if (static_cast<int>(snapshots_.size()) > kMaxSnapshots) {
        // Every other one goes; the first (step 0) and the newest stay.
        std::vector<std::shared_ptr<const Snapshot>> kept;
        for (std::size_t i = 0; i < snapshots_.size(); ++i)
            if (i % 2 == 0 || i + 1 == snapshots_.size()) kept.push_back(snapshots_[i]);
        snapshots_ = std::move(kept);
    }
    for (Sample& s : p.samples) samples_.push_back(std::move(s));
    if (p.stopped) setRunning(false);
    if (p.reset) emit resetDone();
    if (changed) emit progressed();
    for (const auto& [folder, error] : p.saves) emit saved(folder, error);
    if (!p.error.isEmpty()) emit failed(p.error);
}

bool TrainSession::waitForStep(std::int64_t step, int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    while (step_ < step && !deadline.hasExpired()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(1);
    }
    return step_ >= step;
}

bool TrainSession::waitForIdle(int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    auto idle = [this] {
        const std::lock_guard<std::mutex> lock(worker_->mutex);
        const Worker& w = *worker_;
        return !w.busy && !w.running && w.stepsWanted == 0 && !w.resetWanted && w.saves.empty() &&
               !w.snapshotWanted && w.posted.losses.empty() && w.posted.snapshots.empty() &&
               w.posted.saves.empty() && w.posted.error.isEmpty() && !w.posted.reset;
    };
    while (!deadline.hasExpired()) {
        if (idle()) {
            takePosted();
            return true;
        }
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(1);
    }
    return false;
}
