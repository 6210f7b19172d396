#include "app/gui/explore_session.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QFileInfo>
#include <QSettings>
#include <QThread>
#include <QUndoStack>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <utility>

#include "app/gui/when_done.h"
#include "app/io/matrix_text.h"
#include "model/rng.h"

namespace {

const QString kRecentKey = QStringLiteral("explore/recentFiles");
constexpr int kMaxRecent = 8;

bool sameMatrix(const attn::Matrix& a, const attn::Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() && a == b;
}

bool sameSequence(const attn::Sequence& a, const attn::Sequence& b) {
    return a.tokens == b.tokens && sameMatrix(a.embeddings, b.embeddings);
}

bool sameWeights(const std::vector<attn::NamedMatrix>& a, const std::vector<attn::NamedMatrix>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].name != b[i].name || a[i].is_vector != b[i].is_vector ||
            !sameMatrix(a[i].value, b[i].value))
            return false;
    }
    return true;
}

// Settings whose change draws other weights: the user's weight edits no longer apply.
bool drawsNewWeights(const attn::ModuleConfig& a, const attn::ModuleConfig& b) {
    return a.module != b.module || a.seed != b.seed || a.d_out != b.d_out ||
           a.num_heads != b.num_heads || a.qkv_bias != b.qkv_bias || a.dim_k != b.dim_k ||
           a.dim_v != b.dim_v || a.prune_heads != b.prune_heads || a.num_kv_heads != b.num_kv_heads;
}

struct RunOutcome {
    std::shared_ptr<const attn::RunResult> result;
    QString error;
};

// Pure: runs on the UI thread or a worker with its own copies.
RunOutcome runState(const ExploreState& state) {
    RunOutcome out;
    try {
        const attn::Sequence* source = state.usesSource() ? &state.source : nullptr;
        out.result = std::make_shared<const attn::RunResult>(
            attn::run_module(state.runConfig(), state.inputs, source));
    } catch (const attn::AttentionError& e) {
        out.error = QString::fromUtf8(e.what());
    } catch (const std::bad_alloc&) {
        out.error = QCoreApplication::translate("ExploreSession",
                                                "not enough memory for this run: use fewer tokens "
                                                "or heads");
    }
    return out;
}

Eigen::Index longestSide(const ExploreState& s) {
    const Eigen::Index t = s.inputs.embeddings.rows();
    return s.usesSource() ? std::max(t, s.source.embeddings.rows()) : t;
}

}  // namespace

attn::ModuleConfig ExploreState::runConfig() const {
    attn::ModuleConfig c = config;
    if (!training) c.dropout = 0.0f;
    return c;
}

bool ExploreState::usesSource() const {
    return config.module && attn::module_info(*config.module).uses_source;
}

bool operator==(const ExploreState& a, const ExploreState& b) {
    const attn::ModuleConfig& x = a.config;
    const attn::ModuleConfig& y = b.config;
    return sameSequence(a.inputs, b.inputs) && sameSequence(a.source, b.source) &&
           x.module == y.module && x.seed == y.seed && x.d_out == y.d_out &&
           x.num_heads == y.num_heads && x.dim_k == y.dim_k && x.dim_v == y.dim_v &&
           x.batch == y.batch && x.context_length == y.context_length && x.dropout == y.dropout &&
           x.qkv_bias == y.qkv_bias && x.causal == y.causal && x.scale == y.scale &&
           x.mask_convention == y.mask_convention && x.fill_value == y.fill_value &&
           x.head_mask == y.head_mask && x.prune_heads == y.prune_heads &&
           x.num_kv_heads == y.num_kv_heads && x.window == y.window && x.lengths == y.lengths &&
           x.rope == y.rope && x.rope_base == y.rope_base &&
           x.position_offset == y.position_offset && sameWeights(x.weights, y.weights) &&
           a.training == b.training && a.description == b.description;
}

// One edit: the whole state before and after, so undo is exact whatever the edit was.
class ExploreStateCommand : public QUndoCommand {
public:
    ExploreStateCommand(ExploreSession* session, ExploreState before, ExploreState after,
                        const QString& text)
        : QUndoCommand(text),
          session_(session),
          before_(std::move(before)),
          after_(std::move(after)) {}
    void redo() override { session_->applyState(after_); }
    void undo() override { session_->applyState(before_); }

private:
    ExploreSession* session_;
    ExploreState before_, after_;
};

ExploreSession::ExploreSession(QObject* parent) : QObject(parent), undo_(new QUndoStack(this)) {
    applyState(defaultState());
}

ExploreSession::~ExploreSession() {
    ++generation_;  // background runs finishing after this are dropped
}

ExploreState ExploreSession::defaultState() {
    ExploreState s;
    s.inputs = attn::tutorial_inputs();
    s.source = attn::cross_attention_source();
    s.config.module = attn::ModuleKind::MultiHeadAttention;
    s.config.seed = 123;
    s.config.d_out = 2;
    s.config.num_heads = 2;
    return s;
}

attn::Sequence& ExploreSession::sequence(ExploreState& s, ExploreSide side) const {
    return side == ExploreSide::Source ? s.source : s.inputs;
}

void ExploreSession::fitHeadsToWidth(ExploreState& s) {
    if (!s.config.module || s.config.num_heads <= 1) return;
    const attn::ModuleInfo& info = attn::module_info(*s.config.module);
    if (!info.uses_num_heads || info.heads_are_modules) return;
    const Eigen::Index d_in = s.inputs.embeddings.cols();
    const Eigen::Index tokens = s.inputs.embeddings.rows();
    const Eigen::Index keys = s.usesSource() ? s.source.embeddings.rows() : tokens;
    // The engine is the judge of what splits: only its num_heads complaints are fixed here.
    const auto headsProblem = [&](const attn::ModuleConfig& c) -> QString {
        try {
            attn::resolve_config(c, d_in, tokens, keys);
        } catch (const attn::AttentionError& e) {
            const QString message = QString::fromUtf8(e.what());
            if (message.contains(QLatin1String("num_heads"))) return message;
        }
        return {};
    };
    const QString problem = headsProblem(s.runConfig());
    if (problem.isEmpty()) return;
    for (Eigen::Index h = s.config.num_heads - 1; h >= 1; --h) {
        attn::ModuleConfig c = s.runConfig();
        c.num_heads = h;
        c.num_kv_heads = 0;  // K/V heads shared in groups of the old count: one per head again
        c.prune_heads.clear();
        c.head_mask.clear();
        if (!headsProblem(c).isEmpty()) continue;
        adjustment_ =
            tr("%1 — num_heads set to %2, which divides the new width.").arg(problem).arg(h);
        s.config.num_heads = h;
        s.config.num_kv_heads = 0;
        s.config.prune_heads.clear();
        s.config.head_mask.clear();
        return;
    }
}

void ExploreSession::push(ExploreState after, const QString& text) {
    if (after == state_) return;
    undo_->push(new ExploreStateCommand(this, state_, std::move(after), text));
}

void ExploreSession::applyState(const ExploreState& state) {
    state_ = state;
    emit stateChanged();
    recompute();
}

void ExploreSession::recompute() {
    const std::uint64_t generation = ++generation_;
    if (longestSide(state_) <= asyncThreshold_) {
        RunOutcome out = runState(state_);
        finishRun(generation, std::move(out.result), out.error, state_);
        return;
    }
    setBusy(true);
    ++pendingRuns_;
    const ExploreState copy = state_;
    auto task = QtConcurrent::run([copy] { return runState(copy); });
    whenDone(this, std::move(task), [this, generation, copy](const RunOutcome& out) {
        --pendingRuns_;
        finishRun(generation, out.result, out.error, copy);
    });
}

void ExploreSession::finishRun(std::uint64_t generation,
                               std::shared_ptr<const attn::RunResult> result, const QString& error,
                               const ExploreState& from) {
    if (generation != generation_) return;  // a newer edit came in: this result is stale
    setBusy(false);
    // The error first: views updating on resultChanged ask whether the result is current.
    const bool errorChanged_ = error != error_;
    error_ = error;
    if (result) {
        result_ = std::move(result);
        resultState_ = from;
        emit resultChanged();
    }
    if (errorChanged_) emit errorChanged(error_);
}

void ExploreSession::setBusy(bool busy) {
    if (busy == busy_) return;
    busy_ = busy;
    emit busyChanged(busy_);
}

bool ExploreSession::waitForIdle(int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    while ((busy_ || pendingRuns_ > 0) && !deadline.hasExpired()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(1);
    }
    return !busy_;
}

void ExploreSession::cancel() {
    ++generation_;
    setBusy(false);
}

void ExploreSession::setToken(ExploreSide side, int row, const QString& text) {
    ExploreState s = state_;
    attn::Sequence& seq = sequence(s, side);
    if (row < 0 || row >= static_cast<int>(seq.tokens.size())) return;
    seq.tokens[static_cast<std::size_t>(row)] = text.toStdString();
    push(std::move(s), tr("Rename token %1").arg(row + 1));
}

void ExploreSession::setEmbedding(ExploreSide side, int row, int column, float value) {
    ExploreState s = state_;
    attn::Matrix& m = sequence(s, side).embeddings;
    if (row < 0 || row >= m.rows() || column < 0 || column >= m.cols()) return;
    m(row, column) = value;
    push(std::move(s), tr("Edit embedding (%1, %2)").arg(row + 1).arg(column + 1));
}

void ExploreSession::insertToken(ExploreSide side, int row, const QString& text) {
    ExploreState s = state_;
    attn::Sequence& seq = sequence(s, side);
    const Eigen::Index t = seq.embeddings.rows();
    if (row < 0 || row > t || t >= attn::kMaxExampleTokens) return;
    const Eigen::Index width = std::max<Eigen::Index>(seq.embeddings.cols(), 1);
    attn::Matrix grown = attn::Matrix::Zero(t + 1, width);
    if (seq.embeddings.cols() == width) {
        grown.topRows(row) = seq.embeddings.topRows(row);
        grown.bottomRows(t - row) = seq.embeddings.bottomRows(t - row);
    }
    seq.embeddings = std::move(grown);
    const QString name = text.isEmpty() ? tr("new") : text;
    seq.tokens.insert(seq.tokens.begin() + row, name.toStdString());
    push(std::move(s), tr("Add token"));
}

void ExploreSession::removeToken(ExploreSide side, int row) {
    ExploreState s = state_;
    attn::Sequence& seq = sequence(s, side);
    const Eigen::Index t = seq.embeddings.rows();
    // The engine needs one token; keep it rather than show an error for an empty table.
    if (row < 0 || row >= t || t <= 1) return;
    attn::Matrix shrunk(t - 1, seq.embeddings.cols());
    shrunk.topRows(row) = seq.embeddings.topRows(row);
    shrunk.bottomRows(t - 1 - row) = seq.embeddings.bottomRows(t - 1 - row);
    seq.embeddings = std::move(shrunk);
    if (row < static_cast<int>(seq.tokens.size())) seq.tokens.erase(seq.tokens.begin() + row);
    push(std::move(s), tr("Remove token %1").arg(row + 1));
}

void ExploreSession::moveToken(ExploreSide side, int from, int to) {
    ExploreState s = state_;
    attn::Sequence& seq = sequence(s, side);
    const int t = static_cast<int>(seq.embeddings.rows());
    if (from < 0 || from >= t || to < 0 || to >= t || from == to) return;
    const attn::RowVector moved = seq.embeddings.row(from);
    const std::string token = seq.tokens[static_cast<std::size_t>(from)];
    const int step = to > from ? 1 : -1;
    for (int r = from; r != to; r += step) {
        seq.embeddings.row(r) = seq.embeddings.row(r + step);
        seq.tokens[static_cast<std::size_t>(r)] = seq.tokens[static_cast<std::size_t>(r + step)];
    }
    seq.embeddings.row(to) = moved;
    seq.tokens[static_cast<std::size_t>(to)] = token;
    push(std::move(s), tr("Move token %1 to %2").arg(from + 1).arg(to + 1));
}

void ExploreSession::randomFill(ExploreSide side, std::uint64_t seed) {
    ExploreState s = state_;
    attn::Sequence& seq = sequence(s, side);
    attn::TorchGenerator gen(seed);
    seq.embeddings = gen.rand(seq.embeddings.rows(), seq.embeddings.cols());
    push(std::move(s), tr("Random embeddings (seed %1)").arg(seed));
}

bool ExploreSession::pasteEmbeddings(ExploreSide side, const QString& text, QString* error) {
    const attn::MatrixTextResult parsed = attn::parseMatrixText(text);
    if (!parsed.ok()) {
        if (error) *error = parsed.error;
        return false;
    }
    const attn::Matrix& m = parsed.value->matrix;
    if (m.rows() > attn::kMaxExampleTokens) {
        if (error)
            *error = tr("the pasted matrix has %1 rows; explore mode takes at most %2 tokens")
                         .arg(m.rows())
                         .arg(attn::kMaxExampleTokens);
        return false;
    }
    ExploreState s = state_;
    attn::Sequence& seq = sequence(s, side);
    std::vector<std::string> tokens;
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        if (!parsed.value->rowLabels.isEmpty())
            tokens.push_back(parsed.value->rowLabels[static_cast<qsizetype>(r)].toStdString());
        else if (r < static_cast<Eigen::Index>(seq.tokens.size()))
            tokens.push_back(seq.tokens[static_cast<std::size_t>(r)]);
        else
            tokens.push_back("t" + std::to_string(r + 1));
    }
    seq.tokens = std::move(tokens);
    seq.embeddings = m;
    // d_in is shared: the other sequence follows the new width.
    attn::Sequence& other =
        sequence(s, side == ExploreSide::Inputs ? ExploreSide::Source : ExploreSide::Inputs);
    if (other.embeddings.cols() != m.cols()) {
        attn::Matrix resized = attn::Matrix::Zero(other.embeddings.rows(), m.cols());
        const Eigen::Index keep = std::min(m.cols(), other.embeddings.cols());
        resized.leftCols(keep) = other.embeddings.leftCols(keep);
        other.embeddings = std::move(resized);
    }
    adjustment_.clear();
    if (m.cols() != state_.inputs.embeddings.cols()) {
        s.config.weights.clear();
        fitHeadsToWidth(s);
    }
    push(std::move(s), tr("Paste %1 × %2 matrix").arg(m.rows()).arg(m.cols()));
    return true;
}

void ExploreSession::setEmbeddingWidth(Eigen::Index d_in) {
    if (d_in < 1 || d_in > attn::kMaxWidth) return;
    ExploreState s = state_;
    for (attn::Sequence* seq : {&s.inputs, &s.source}) {
        attn::Matrix resized = attn::Matrix::Zero(seq->embeddings.rows(), d_in);
        const Eigen::Index keep = std::min(d_in, seq->embeddings.cols());
        resized.leftCols(keep) = seq->embeddings.leftCols(keep);
        seq->embeddings = std::move(resized);
    }
    s.config.weights.clear();  // every projection's input width changed
    adjustment_.clear();
    fitHeadsToWidth(s);
    push(std::move(s), tr("Set d_in = %1").arg(d_in));
}

void ExploreSession::setConfig(const attn::ModuleConfig& config, bool training) {
    ExploreState s = state_;
    std::vector<attn::NamedMatrix> edits = std::move(s.config.weights);
    const bool redraw = drawsNewWeights(s.config, config);
    s.config = config;
    s.config.weights = redraw ? std::vector<attn::NamedMatrix>{} : std::move(edits);
    s.training = training;
    adjustment_.clear();
    push(std::move(s), tr("Change settings"));
}

bool ExploreSession::setWeight(const std::string& name, int row, int column, float value) {
    if (!result_) return false;
    // Start from the matrix the shown result used, so one edit changes one number.
    const attn::NamedMatrix* current = nullptr;
    for (const attn::NamedMatrix& w : state_.config.weights)
        if (w.name == name) current = &w;
    if (!current)
        for (const attn::NamedMatrix& w : result_->weights)
            if (w.name == name) current = &w;
    if (!current || row < 0 || row >= current->value.rows() || column < 0 ||
        column >= current->value.cols())
        return false;
    attn::NamedMatrix edited = *current;
    edited.value(row, column) = value;
    ExploreState s = state_;
    auto it = std::find_if(s.config.weights.begin(), s.config.weights.end(),
                           [&](const attn::NamedMatrix& w) { return w.name == name; });
    if (it != s.config.weights.end())
        *it = std::move(edited);
    else
        s.config.weights.push_back(std::move(edited));
    push(std::move(s),
         tr("Edit %1 (%2, %3)").arg(QString::fromStdString(name)).arg(row + 1).arg(column + 1));
    return true;
}

void ExploreSession::clearWeightEdits() {
    ExploreState s = state_;
    s.config.weights.clear();
    push(std::move(s), tr("Reset weights to the seed's"));
}

void ExploreSession::setState(const ExploreState& state, const QString& commandText) {
    push(state, commandText);
}

attn::ExampleFile ExploreSession::toExampleFile() const {
    attn::ExampleFile file;
    file.inputs = state_.inputs;
    file.weights = state_.config.weights;
    if (state_.usesSource()) file.source = state_.source;
    // The dropout p is kept at inference too; "training" says whether it acts.
    attn::ModuleConfig config = state_.config;
    config.weights.clear();
    file.config = config;
    file.training = state_.training;
    file.description = state_.description;
    return file;
}

bool ExploreSession::loadExample(const attn::ExampleFile& file, QString* error) {
    ExploreState s = defaultState();
    s.inputs = file.inputs;
    if (s.inputs.tokens.empty())
        for (Eigen::Index r = 0; r < s.inputs.embeddings.rows(); ++r)
            s.inputs.tokens.push_back("t" + std::to_string(r + 1));
    if (file.source) {
        s.source = *file.source;
    } else if (s.source.embeddings.cols() != s.inputs.embeddings.cols()) {
        attn::Matrix resized =
            attn::Matrix::Zero(s.source.embeddings.rows(), s.inputs.embeddings.cols());
        const Eigen::Index keep = std::min(resized.cols(), s.source.embeddings.cols());
        resized.leftCols(keep) = s.source.embeddings.leftCols(keep);
        s.source.embeddings = std::move(resized);
    }
    if (file.config) s.config = *file.config;
    // Files without "training" predate the flag: they trained exactly when dropout > 0.
    s.training = file.training.value_or(s.config.dropout > 0.0f);
    s.config.weights = file.weights;
    s.description = file.description;
    // Refuse what the engine cannot run, so an opened file never leaves an empty screen. Large
    // files are checked by their run instead (it keeps the last valid result on failure).
    if (longestSide(s) <= asyncThreshold_) {
        const RunOutcome out = runState(s);
        if (!out.result) {
            if (error) *error = out.error;
            return false;
        }
    }
    undo_->clear();
    applyState(s);
    return true;
}

bool ExploreSession::openFile(const QString& path, QString* error) {
    const attn::ExampleParseResult parsed = attn::loadExampleFile(path);
    if (!parsed.ok()) {
        if (error) *error = parsed.error;
        return false;
    }
    if (!loadExample(*parsed.file, error)) return false;
    filePath_ = path;
    emit filePathChanged(filePath_);
    addRecentFile(path);
    return true;
}

bool ExploreSession::saveFile(const QString& path, QString* error) {
    if (!attn::saveExampleFile(toExampleFile(), path, error)) return false;
    addRecentFile(path);
    if (path != filePath_) {
        filePath_ = path;
        emit filePathChanged(filePath_);
    }
    return true;
}

QStringList ExploreSession::recentFiles() { return QSettings().value(kRecentKey).toStringList(); }

void ExploreSession::addRecentFile(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = recentFiles();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxRecent) list.removeLast();
    QSettings().setValue(kRecentKey, list);
}
