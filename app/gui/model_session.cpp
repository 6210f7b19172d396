#include "app/gui/model_session.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <exception>
#include <utility>

#include "app/gui/when_done.h"
#include "app/io/attention_dump.h"
#include "model/tensor.h"
#include "views/number_text.h"

namespace {

const QString kRecentKey = QStringLiteral("model/recent");
constexpr int kMaxRecent = 8;
// Next-token candidates the chart shows.
constexpr Eigen::Index kNextTokens = 10;

struct ForwardOutcome {
    std::shared_ptr<attn::ModelForwardResult> result;
    std::vector<attn::MaskPrediction> masks;
    QString error;
};

// type_ids empty for a decoder; mask_id < 0: no masked-LM predictions.
ForwardOutcome runForwardPass(const std::shared_ptr<const attn::TransformerWeights>& weights,
                              const std::vector<int>& ids, const std::vector<int>& type_ids,
                              int mask_id) {
    attn::ModelForwardOptions options;
    options.keep_attentions = true;
    options.keep_qkv = true;  // the head view's hover arithmetic: q·k, /√d, softmax
    options.top_k = kNextTokens;
    options.token_type_ids = type_ids;
    const bool encoder = attn::is_encoder(weights->spec.family);
    // The masked LM's fillers need every position's logits; a decoder only the last one's.
    options.all_logits = encoder && mask_id >= 0;
    ForwardOutcome out;
    try {
        out.result =
            std::make_shared<attn::ModelForwardResult>(attn::model_forward(*weights, ids, options));
    } catch (const std::exception& e) {
        out.error = QString::fromUtf8(e.what());
        return out;
    }
    if (options.all_logits && out.result->logits.rows() == static_cast<Eigen::Index>(ids.size())) {
        try {
            out.masks = attn::mask_predictions(*out.result, ids, mask_id, kNextTokens);
        } catch (const std::exception&) {
            // A base model without the masked-LM head: no fillers, the attention stays.
        }
    }
    if (encoder) out.result->logits.resize(0, 0);  // T × V floats no view reads
    return out;
}

}  // namespace

// The kv_cache of one generation; the weights it reads stay alive with it. Steps run one at a
// time on a worker thread, never two at once.
struct ModelSession::Generation {
    std::shared_ptr<const attn::TransformerWeights> weights;
    std::unique_ptr<attn::Generator> generator;
};

ModelSession::ModelSession(QObject* parent) : QObject(parent) {
    // The worker writes how far a load got; the UI thread reads it. Nothing on the worker calls
    // into this object, so closing the window while a load runs is safe.
    loadPoll_ = new QTimer(this);
    loadPoll_->setInterval(50);
    connect(loadPoll_, &QTimer::timeout, this, [this] {
        if (loadFraction_) emit loadProgress(loadFraction_->load());
    });
}

ModelSession::~ModelSession() {
    // A running load stops at its next tensor. Running tasks hold their own shared copies of
    // what they read; their continuations are dropped with this object.
    if (cancelLoad_) cancelLoad_->store(true);
}

int ModelSession::layerCount() const {
    return view_.attentions.empty() && model_.weights
               ? static_cast<int>(model_.weights->spec.num_layers)
               : static_cast<int>(view_.attentions.size());
}

int ModelSession::headCount() const {
    if (!view_.attentions.empty()) return static_cast<int>(view_.attentions.front().size());
    return model_.weights ? static_cast<int>(model_.weights->spec.num_heads) : 0;
}

QString ModelSession::sourceSummary() const {
    if (source_ == Source::Dump) return dumpSummary_;
    if (source_ != Source::Model || !model_.weights) return {};
    const attn::TransformerSpec& s = model_.weights->spec;
    const QString name = QFileInfo(sourcePath_).fileName().isEmpty()
                             ? sourcePath_
                             : QFileInfo(sourcePath_).fileName();
    const QString family = QString::fromStdString(attn::family_name(s.family));
    const QString dtype = QString::fromStdString(model_.weights->dtype);
    if (s.num_kv_heads == s.num_heads)
        return tr("%1 · %2 · %3 layers × %4 heads · n_embd %5 · %6")
            .arg(name, family)
            .arg(s.num_layers)
            .arg(s.num_heads)
            .arg(s.d_model)
            .arg(dtype);
    // Grouped-query attention: each K/V head serves num_heads / num_kv_heads query heads.
    return tr("%1 · %2 · %3 layers × %4 query heads sharing %5 K/V heads (%6 each) · n_embd %7 "
              "· %8")
        .arg(name, family)
        .arg(s.num_layers)
        .arg(s.num_heads)
        .arg(s.num_kv_heads)
        .arg(s.num_heads / s.num_kv_heads)
        .arg(s.d_model)
        .arg(dtype);
}

void ModelSession::setLoading(bool loading) {
    if (loading == loading_) return;
    loading_ = loading;
    if (loading)
        loadPoll_->start();
    else
        loadPoll_->stop();
    emit loadingChanged(loading_);
}

void ModelSession::setError(const QString& error) {
    if (error == error_) return;
    error_ = error;
    emit errorChanged(error_);
}

void ModelSession::emitBusy(bool before) {
    if (busy() != before) emit busyChanged(busy());
}

void ModelSession::cancelLoad() {
    if (!loading_) return;
    if (cancelLoad_) cancelLoad_->store(true);
    ++loadRun_;  // the result, if it still comes, is dropped
    setLoading(false);
    emit loadFailed(QString());
}

ModelSession::LoadStart ModelSession::startLoad() {
    cancelLoad();
    LoadStart start;
    start.run = ++loadRun_;
    start.cancel = std::make_shared<std::atomic<bool>>(false);
    cancelLoad_ = start.cancel;
    setLoading(true);
    emit loadProgress(0.0);
    start.options.cancel = start.cancel.get();  // alive as long as the worker's copy of `start`
    auto fraction = std::make_shared<std::atomic<double>>(0.0);
    loadFraction_ = fraction;
    start.options.progress = [fraction](double f) { fraction->store(f); };
    return start;
}

void ModelSession::openModel(const QString& nameOrFolder) {
    const LoadStart start = startLoad();
    const std::uint64_t run = start.run;
    auto task = QtConcurrent::run(
        [nameOrFolder, start] { return attn::openModelFolder(nameOrFolder, true, start.options); });
    whenDone(this, std::move(task), [this, run](const attn::ModelFolderResult& opened) {
        if (run != loadRun_) return;  // cancelled, or another open started
        setLoading(false);
        if (!opened.ok()) {
            emit loadFailed(opened.cancelled ? QString() : opened.error);
            return;
        }
        const bool wasBusy = busy();
        ++run_;  // forward passes of the old model are dropped
        pendingRuns_ = 0;
        generating_ = false;
        generation_.reset();
        source_ = Source::Model;
        model_ = opened.model;
        sourcePath_ = opened.model.folder;
        masked_.clear();
        padding_.reset();
        warning_.clear();
        addRecentSource(sourcePath_);
        view_ = View{};
        emit sourceChanged();
        setText(text_);
        emitBusy(wasBusy);
    });
}

void ModelSession::openDump(const QString& path) {
    const LoadStart start = startLoad();
    const std::uint64_t run = start.run;
    auto task = QtConcurrent::run(
        [path, start] { return attn::loadAttentionDump(path, QString(), start.options); });
    whenDone(this, std::move(task), [this, run, path](const attn::AttentionDumpResult& loaded) {
        if (run != loadRun_) return;
        setLoading(false);
        if (!loaded.ok()) {
            emit loadFailed(
                QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path), loaded.error));
            return;
        }
        const bool wasBusy = busy();
        ++run_;
        pendingRuns_ = 0;
        generating_ = false;
        generation_.reset();
        source_ = Source::Dump;
        model_ = attn::ModelFolder{};
        sourcePath_ = path;
        warning_ = loaded.dump.warning;
        addRecentSource(path);
        const auto& att = loaded.dump.attentions;
        const Eigen::Index rows = att.empty() || att[0].empty() ? 0 : att[0][0].rows();
        const Eigen::Index cols = att.empty() || att[0].empty() ? 0 : att[0][0].cols();
        dumpSummary_ = tr("%1 · %2 layers × %3 heads · %4 × %5 · %6")
                           .arg(QFileInfo(path).fileName())
                           .arg(att.size())
                           .arg(att.empty() ? 0 : att[0].size())
                           .arg(rows)
                           .arg(cols)
                           .arg(loaded.dump.dtype);
        view_ = View{};
        view_.tokens = attn::Tokenizer::displayVocabTokens(loaded.dump.tokens);
        view_.promptTokens = static_cast<int>(view_.tokens.size());
        view_.attentions = att;
        // Causal when nothing above the diagonal has weight (a decoder); else drawn whole.
        bool causal = rows == cols;
        for (const auto& layer : att)
            for (const attn::Matrix& head : layer)
                for (Eigen::Index r = 0; causal && r < head.rows(); ++r)
                    for (Eigen::Index c = r + 1; causal && c < head.cols(); ++c)
                        causal = head(r, c) == 0.0f;
        view_.causal = causal;
        setError(QString());
        emit sourceChanged();
        emit viewChanged();
        emitBusy(wasBusy);
    });
}

void ModelSession::setText(const QString& text) {
    if (text != text_) masked_.clear();
    text_ = text;
    retokenize();
}

void ModelSession::retokenize() {
    if (source_ != Source::Model) return;
    const bool wasBusy = busy();
    generating_ = false;
    remaining_ = 0;
    generation_.reset();
    cachedVsFullSoFar_ = 0.0f;
    View view;
    tokenize(view);
    view.promptTokens = static_cast<int>(view.ids.size());
    view.causal = model_.weights->spec.causal;
    // Attention of the old text stays on screen only while it still matches these tokens.
    view_ = std::move(view);
    const Eigen::Index limit = model_.weights->spec.max_positions;
    if (view_.ids.empty()) {
        ++run_;
        setError(text_.isEmpty() ? QString() : tr("The text gives no tokens."));
    } else if (static_cast<Eigen::Index>(view_.ids.size()) > limit) {
        ++run_;
        setError(tr("The text is %n tokens but the model reads at most n_positions = %1: "
                    "shorten it.",
                    nullptr, static_cast<int>(view_.ids.size()))
                     .arg(limit));
    } else {
        setError(QString());
        runForward();
    }
    emit viewChanged();
    emitBusy(wasBusy);
}

void ModelSession::runForward() {
    const std::uint64_t run = ++run_;
    ++pendingRuns_;
    const std::vector<int> ids = view_.ids;
    const std::vector<int> typeIds = view_.typeIds;
    const int maskId = encoder() ? model_.tokenizer->maskId().value_or(-1) : -1;
    const std::shared_ptr<const attn::TransformerWeights> weights = model_.weights;
    auto task = QtConcurrent::run(
        [weights, ids, typeIds, maskId] { return runForwardPass(weights, ids, typeIds, maskId); });
    whenDone(this, std::move(task), [this, run, ids](const ForwardOutcome& out) {
        finishForward(run, out.result, out.masks, out.error, ids);
    });
}

void ModelSession::finishForward(std::uint64_t run,
                                 std::shared_ptr<attn::ModelForwardResult> result,
                                 std::vector<attn::MaskPrediction> masks, const QString& error,
                                 const std::vector<int>& ids) {
    const bool wasBusy = busy();
    pendingRuns_ = std::max(0, pendingRuns_ - 1);
    if (run != run_ || ids != view_.ids) {  // a newer edit came in: stale
        emitBusy(wasBusy);
        return;
    }
    if (!result) {
        setError(error);
        emitBusy(wasBusy);
        return;
    }
    // How far the rows the kv_cache produced are from the full pass (generated rows only).
    if (view_.promptTokens < static_cast<int>(view_.ids.size()) && !view_.attentions.empty()) {
        float diff = 0.0f;
        for (std::size_t l = 0; l < result->attentions.size(); ++l)
            for (std::size_t h = 0; h < result->attentions[l].size(); ++h) {
                const attn::Matrix& full = result->attentions[l][h];
                const attn::Matrix& cached = view_.attentions[l][h];
                const Eigen::Index from = view_.promptTokens;
                const Eigen::Index n = full.rows() - from;
                diff = std::max(diff,
                                (full.bottomRows(n) - cached.bottomRows(n)).cwiseAbs().maxCoeff());
            }
        cachedVsFullSoFar_ = std::max(cachedVsFullSoFar_, diff);
        view_.cachedVsFull = cachedVsFullSoFar_;
    }
    // The attentions move to the view (n_layer · n_head · T² floats: not kept twice).
    view_.attentions = std::move(result->attentions);
    result->attentions.clear();
    view_.nextTokens = result->top_tokens;
    view_.maskPredictions = std::move(masks);
    view_.forward = std::move(result);
    setError(QString());
    runPaddingCheck();
    emit viewChanged();
    emitBusy(wasBusy);
}

bool ModelSession::generate(int count) {
    if (source_ != Source::Model || view_.ids.empty() || count < 1) return false;
    if (encoder()) {
        setError(tr("An encoder does not generate: every token already sees the whole text."));
        return false;
    }
    if (generating_) {
        remaining_ += count;
        return true;
    }
    const attn::TransformerSpec& spec = model_.weights->spec;
    const Eigen::Index room = spec.max_positions - static_cast<Eigen::Index>(view_.ids.size());
    if (room < 1) {
        setError(tr("The model reads at most n_positions = %1 tokens: nothing more can be "
                    "generated.")
                     .arg(spec.max_positions));
        return false;
    }
    const bool wasBusy = busy();
    if (!generation_) {
        // The cache starts from the shown tokens (a generation may continue an earlier one).
        auto g = std::make_shared<Generation>();
        g->weights = model_.weights;
        attn::GenerationOptions options;
        options.max_new_tokens = room;
        options.eos_id = model_.tokenizer->endOfTextId().value_or(-1);
        try {
            g->generator = std::make_unique<attn::Generator>(*g->weights, view_.ids, options);
        } catch (const std::exception& e) {
            setError(QString::fromUtf8(e.what()));
            return false;
        }
        generation_ = g;
        view_.promptTokens = static_cast<int>(view_.ids.size());
    }
    generating_ = true;
    remaining_ = count;
    emitBusy(wasBusy);
    stepGeneration();
    return true;
}

void ModelSession::stepGeneration() {
    const std::shared_ptr<Generation> g = generation_;
    if (!g || g->generator->finished() || remaining_ <= 0) {
        const bool wasBusy = busy();
        generating_ = false;
        remaining_ = 0;
        emitBusy(wasBusy);
        return;
    }
    --remaining_;
    struct StepOutcome {
        attn::GenerationStep step;
        std::int64_t cacheBytes = 0;
        QString error;
    };
    auto task = QtConcurrent::run([g] {
        StepOutcome out;
        try {
            out.step = g->generator->step();
            out.cacheBytes = g->generator->cache_bytes();
        } catch (const std::exception& e) {
            out.error = QString::fromUtf8(e.what());
        }
        return out;
    });
    whenDone(this, std::move(task), [this, g](const StepOutcome& out) {
        if (g != generation_) return;  // reset or a new text meanwhile
        if (!out.error.isEmpty()) {
            const bool wasBusy = busy();
            generating_ = false;
            setError(out.error);
            emitBusy(wasBusy);
            return;
        }
        // One new row per head: the old (T, T) matrices grow by a zero column (the new key
        // is after every earlier query) and the new token's row.
        const Eigen::Index t = static_cast<Eigen::Index>(view_.ids.size()) + 1;
        for (std::size_t l = 0; l < view_.attentions.size(); ++l)
            for (std::size_t h = 0; h < view_.attentions[l].size(); ++h) {
                attn::Matrix grown = attn::Matrix::Zero(t, t);
                const attn::Matrix& old = view_.attentions[l][h];
                grown.topLeftCorner(old.rows(), old.cols()) = old;
                grown.row(t - 1) = out.step.attention_rows[l][h];
                view_.attentions[l][h] = std::move(grown);
            }
        view_.ids.push_back(out.step.id);
        view_.tokens << model_.tokenizer->displayToken(out.step.id);
        view_.cacheBytes = out.cacheBytes;
        view_.forward.reset();  // the hover's queries and keys follow with the full pass
        view_.nextTokens.clear();
        if (out.step.finished) remaining_ = 0;
        runForward();
        emit viewChanged();
        stepGeneration();
    });
}

void ModelSession::stopGenerating() { remaining_ = 0; }

void ModelSession::resetGeneration() {
    if (source_ != Source::Model) return;
    setText(text_);
}

bool ModelSession::waitForIdle(int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    while ((loading_ || busy()) && !deadline.hasExpired()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(1);
    }
    return !loading_ && !busy();
}

QStringList ModelSession::recentSources() { return QSettings().value(kRecentKey).toStringList(); }

void ModelSession::addRecentSource(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = recentSources();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxRecent) list.removeLast();
    QSettings().setValue(kRecentKey, list);
}
