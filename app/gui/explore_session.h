// ExploreSession: the state of explore mode and everything that changes it.
//
// The state is a record (tokens and embeddings, the cross-attention source, the module settings
// with the user's weight edits, training on/off). Every edit replaces the state through one
// QUndoStack command holding the state before and after, so undo restores it exactly. After each
// change the session runs the engine (attn::run_module); a run that fails keeps the last valid
// result and reports the engine's message (error()). Sequences longer than asyncThreshold() run
// on a worker thread; a generation counter drops stale results, so typing never waits for them.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <string>

#include "app/io/example_file.h"
#include "model/runner.h"

class QUndoStack;

struct ExploreState {
    attn::Sequence inputs;      // (T, d_in): the tokens the queries come from
    attn::Sequence source;      // (T_k, d_in): keys and values of cross-attention
    attn::ModuleConfig config;  // 0 = default; config.weights holds the user's weight edits
    bool training = true;       // false: dropout is off whatever config.dropout says
    QString description;

    // The settings actually run: dropout 0 at inference.
    attn::ModuleConfig runConfig() const;
    bool usesSource() const;
};

bool operator==(const ExploreState& a, const ExploreState& b);

// Which sequence an edit applies to.
enum class ExploreSide { Inputs, Source };

class ExploreSession : public QObject {
    Q_OBJECT

public:
    // Starts on the tutorial's six tokens with multi-head-attention, d_out = 2, 2 heads.
    explicit ExploreSession(QObject* parent = nullptr);
    ~ExploreSession() override;

    static ExploreState defaultState();

    const ExploreState& state() const { return state_; }
    QUndoStack* undoStack() const { return undo_; }

    // The last valid run and the state it was computed from (labels of the views); nullptr
    // before the first valid run.
    std::shared_ptr<const attn::RunResult> result() const { return result_; }
    const ExploreState& resultState() const { return resultState_; }
    // The engine's message for the current state, empty when the shown result is current.
    QString error() const { return error_; }
    // What the last edit changed by itself to keep the settings runnable, e.g. a num_heads that
    // no longer divides the new width, lowered to one that does; empty when nothing.
    QString adjustment() const { return adjustment_; }
    bool busy() const { return busy_; }

    // Runs at or below this many tokens (queries or keys) are computed at once on the UI thread.
    void setAsyncThreshold(Eigen::Index tokens) { asyncThreshold_ = tokens; }
    Eigen::Index asyncThreshold() const { return asyncThreshold_; }
    // Tests: processes events until no run is pending (or timeoutMs passed). True when idle.
    bool waitForIdle(int timeoutMs = 30000);
    // Drops the pending background run; the shown result stays.
    void cancel();

    // --- edits: each pushes one undo command (none when nothing changes) ---------------------
    void setToken(ExploreSide side, int row, const QString& text);
    void setEmbedding(ExploreSide side, int row, int column, float value);
    // Inserts a token before `row` (row = count appends) with zero embeddings.
    void insertToken(ExploreSide side, int row, const QString& text = QString());
    void removeToken(ExploreSide side, int row);
    void moveToken(ExploreSide side, int from, int to);
    // Embeddings = torch.rand(T, d_in) of a generator seeded with `seed`.
    void randomFill(ExploreSide side, std::uint64_t seed);
    // Replaces the embeddings (and d_in) by a pasted matrix (app/matrix_text.h); with row labels
    // they become the tokens. Returns false with the parser's message; nothing changes then.
    bool pasteEmbeddings(ExploreSide side, const QString& text, QString* error);
    // Changes d_in of both sequences: extra columns are zeros, missing ones are cut.
    void setEmbeddingWidth(Eigen::Index d_in);
    // Module settings. A change of module, d_out, num_heads, K/V heads, qkv bias or seed draws
    // new weights, so the user's weight edits are dropped with it (undo brings them back).
    void setConfig(const attn::ModuleConfig& config, bool training);
    // One number of a parameter, by its state_dict name (attn::NamedMatrix::name).
    bool setWeight(const std::string& name, int row, int column, float value);
    void clearWeightEdits();
    // Replaces the whole state as one undoable command, e.g. a reset to the default.
    void setState(const ExploreState& state, const QString& commandText);

    // --- files ---------------------------------------------------------------------------------
    attn::ExampleFile toExampleFile() const;
    // Refuses (returning false with the message, the session untouched) a malformed file or one
    // the engine cannot run. A loaded file clears the undo history.
    bool openFile(const QString& path, QString* error);
    bool loadExample(const attn::ExampleFile& file, QString* error);
    bool saveFile(const QString& path, QString* error);
    QString filePath() const { return filePath_; }

    // Recent files, most recent first (QSettings "explore/recentFiles", at most 8).
    static QStringList recentFiles();
    static void addRecentFile(const QString& path);

signals:
    void stateChanged();
    void resultChanged();
    void errorChanged(const QString& error);
    void busyChanged(bool busy);
    void filePathChanged(const QString& path);

private:
    friend class ExploreStateCommand;
    void applyState(const ExploreState& state);
    void recompute();
    void finishRun(std::uint64_t generation, std::shared_ptr<const attn::RunResult> result,
                   const QString& error, const ExploreState& from);
    void setBusy(bool busy);
    void push(ExploreState after, const QString& text);
    // After d_in changed: lowers num_heads to the largest count the engine accepts for the new
    // width (dropping GPT-2's per-head switches with it) and says so in adjustment().
    void fitHeadsToWidth(ExploreState& s);
    attn::Sequence& sequence(ExploreState& s, ExploreSide side) const;

    ExploreState state_;
    ExploreState resultState_;
    std::shared_ptr<const attn::RunResult> result_;
    QString error_;
    QString adjustment_;
    QString filePath_;
    QUndoStack* undo_ = nullptr;
    std::uint64_t generation_ = 0;
    Eigen::Index asyncThreshold_ = 256;
    bool busy_ = false;
    int pendingRuns_ = 0;
};
