// ModelSession: the state of the model window and all the work that changes it, off the UI
// thread. A source is either a model folder (app/io/model_folder.h: tokenizer and weights) or an
// attention dump computed elsewhere (app/io/attention_dump.h). With a model, the user's text is
// tokenized at once and run through attn::model_forward in the background (stale runs are
// dropped, as in ExploreSession); generation feeds one token at a time through a
// attn::Generator, whose kv_cache makes each new token one attention row per head, and the
// session appends those rows to what the views show. A full pass then refreshes the queries and
// keys behind the hover arithmetic and says how far the cached rows are from it.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "app/io/model_folder.h"
#include "model/encoder_views.h"
#include "model/generator.h"
#include "model/transformer.h"

class ModelSession : public QObject {
    Q_OBJECT

public:
    enum class Source { None, Model, Dump };

    // What the views show: one immutable snapshot per change.
    struct View {
        QStringList tokens;    // as shown: "␣journey" (Tokenizer::displayToken) or the dump's
        std::vector<int> ids;  // the model's token ids; empty for a dump
        int promptTokens = 0;  // tokens before the generated ones
        // [layer][head]: (T, T) attn_weights, or a dump's (T_q, T_k).
        std::vector<std::vector<attn::Matrix>> attentions;
        // The full pass over `ids` with queries and keys kept (hover arithmetic, next tokens),
        // its attentions moved to `attentions`; null for a dump, and while generated rows are
        // newer than the last full pass.
        std::shared_ptr<const attn::ModelForwardResult> forward;
        std::vector<attn::TopToken> nextTokens;  // after the last token, best first
        std::int64_t cacheBytes = 0;             // kv_cache while generating, else 0
        // max |cached attention rows − the full pass| over the generated rows; < 0 unknown.
        float cachedVsFull = -1.0f;
        bool causal = true;  // a dump may be bidirectional (BERT)
        // Encoders: each position's text (0 the first with its special tokens, 1 the pair's),
        // its token_type_id, whether it is a special token ([CLS], [SEP]), and what the masked
        // LM puts at each [MASK] (empty without a masked-LM head).
        std::vector<int> segments, typeIds;
        std::vector<bool> special;
        std::vector<attn::MaskPrediction> maskPredictions;
        QStringList unmaskedTokens;  // the tokens before the user's clicks masked some
    };

    explicit ModelSession(QObject* parent = nullptr);
    ~ModelSession() override;

    // --- sources ----------------------------------------------------------------------------
    // A GPT-2 folder, or a model name found in the Hugging Face cache. Loads in the background
    // with loadProgress(); the current source stays until the new one has loaded.
    void openModel(const QString& nameOrFolder);
    // An .npy or .safetensors attention dump with its tokens JSON beside it.
    void openDump(const QString& path);
    void cancelLoad();
    bool loading() const { return loading_; }
    Source source() const { return source_; }
    // "gpt2 · 12 layers × 12 heads · n_embd 768 · F32" or the dump's file name and shape.
    QString sourceSummary() const;
    QString sourcePath() const { return sourcePath_; }
    const attn::ModelFolder& model() const { return model_; }
    int layerCount() const;
    int headCount() const;
    // A note on the source (a dump without tokens: positions are used).
    QString sourceWarning() const { return warning_; }

    // --- the text ----------------------------------------------------------------------------
    // Tokenizes now (tokens() is current at once); the forward pass follows in the background.
    // An edit ends any generation. Needs a model.
    void setText(const QString& text);
    QString text() const { return text_; }
    const View& view() const { return view_; }
    // Queued or running work (forward pass or generation).
    bool busy() const { return pendingRuns_ > 0 || generating_; }
    // The model's message for the current text (too long, ...), empty when none.
    QString error() const { return error_; }

    // --- encoders (model_session_encoder.cpp) ---------------------------------------------------
    // BERT, DistilBERT, RoBERTa: every token sees every token, nothing to generate.
    bool encoder() const;
    // Whether the tokenizer joins two texts ("[CLS] A [SEP] B [SEP]").
    bool hasPairTemplate() const;
    // The second sentence of a pair; empty: the text alone. Encoders with a pair template only.
    void setPair(const QString& pair);
    QString pair() const { return pair_; }
    // Puts the masked-LM token at `index` in place of the token there, or gives the token back
    // if it was masked by this; the forward pass follows. False when the model has no mask token
    // or the index is a special token or out of range. A new text or pair clears the masks.
    bool toggleMask(int index);
    std::vector<int> maskedPositions() const { return masked_; }
    // The text and the pair as a padded batch of two, beside each run alone (computed in the
    // background after each forward pass of a pair); null without a pair or a padding token.
    std::shared_ptr<const attn::PaddingCheck> paddingCheck() const { return padding_; }
    // Why the padding check is not there (no pair, no padding token, its error); empty when it is.
    QString paddingProblem() const { return paddingProblem_; }

    // --- generation ----------------------------------------------------------------------------
    // Appends `count` tokens one at a time (greedy), each through the kv_cache; stops early at
    // <|endoftext|> or n_positions. Returns false with error() when it cannot start.
    bool generate(int count = 1);
    void stopGenerating();
    bool generating() const { return generating_; }
    // Back to the text's own tokens.
    void resetGeneration();

    // Tests: processes events until loading, forward passes and generation are done.
    bool waitForIdle(int timeoutMs = 60000);

    // Recent sources (QSettings "model/recent", at most 8), most recent first; a dump's path ends
    // in .npy or .safetensors.
    static QStringList recentSources();
    static void addRecentSource(const QString& path);

signals:
    void loadingChanged(bool loading);
    void loadProgress(double fraction);
    // A new source opened, or the open failed (message), or it was cancelled (empty message).
    void sourceChanged();
    void loadFailed(const QString& message);
    void viewChanged();
    void errorChanged(const QString& error);
    void busyChanged(bool busy);
    void paddingChanged();

private:
    struct Generation;
    void setLoading(bool loading);
    void setError(const QString& error);
    void retokenize();
    void tokenize(View& view) const;
    void runForward();
    void finishForward(std::uint64_t run, std::shared_ptr<attn::ModelForwardResult> result,
                       std::vector<attn::MaskPrediction> masks, const QString& error,
                       const std::vector<int>& ids);
    void runPaddingCheck();
    void stepGeneration();
    void emitBusy(bool before);

    Source source_ = Source::None;
    QString sourcePath_;
    QString warning_;
    QString dumpSummary_;
    attn::ModelFolder model_;
    QString text_;
    QString pair_;
    std::vector<int> masked_;  // positions the user masked, in order
    std::shared_ptr<const attn::PaddingCheck> padding_;
    QString paddingProblem_;
    std::uint64_t paddingRun_ = 0;
    View view_;
    QString error_;
    bool loading_ = false;
    // A load's number (a newer one drops its result), its cancel flag and the options that
    // carry both to the worker.
    struct LoadStart {
        std::uint64_t run = 0;
        std::shared_ptr<std::atomic<bool>> cancel;
        attn::ModelLoadOptions options;
    };
    LoadStart startLoad();
    QTimer* loadPoll_ = nullptr;  // reads loadFraction_ while loading
    std::shared_ptr<std::atomic<double>> loadFraction_;
    std::shared_ptr<std::atomic<bool>> cancelLoad_;
    std::uint64_t loadRun_ = 0;
    std::uint64_t run_ = 0;  // forward passes: results of older runs are dropped
    int pendingRuns_ = 0;
    bool generating_ = false;
    int remaining_ = 0;
    float cachedVsFullSoFar_ = 0.0f;
    std::shared_ptr<Generation> generation_;
};
