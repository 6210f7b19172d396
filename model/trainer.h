// The training loop the Train window and `attention-cli train` share: the tasks that make the
// batches, the presets, the head scores that show an induction head forming, and a Trainer that
// steps (forward, backward, clipping, AdamW) deterministically for a seed.
//
// Tasks:
//   induction: every sequence is [BOS] r r followed by fresh random tokens up to seq_len + 1
//     tokens, r of random tokens (ids 1 .. V − 1; BOS is id 0) whose length is drawn afresh for
//     every sequence, uniformly in [2, (seq_len − 1) / 2], so position alone predicts
//     nothing and only copying from the earlier occurrence lowers the loss on the repeat.
//   text: windows of a token list (GPTDatasetV1 with stride seq_len): window k has inputs
//     tokens[k·T .. k·T + T − 1] and targets tokens[k·T + 1 .. k·T + T], for every k with
//     k·T + T < tokens.size(). Without shuffling, batch i holds windows (i·B + b) mod count; with
//     shuffling, each pass over the windows visits them in a fresh random order.
//
// Head scores (as TransformerLens defines them) on repeated random sequences [BOS] r r with r of
// length n: a head's mean attention from each position i of the second copy (n + 1 .. 2n) to
// i − n + 1, the token after the earlier occurrence (induction), and to i − 1 (previous token).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rng.h"
#include "train.h"

namespace attn {

enum class TrainTask { Induction, Text };

// Sequences of the induction task, B × (T + 1) tokens split into inputs and targets.
TrainBatch induction_batch(Eigen::Index vocab_size, Eigen::Index seq_len, Eigen::Index batch,
                           TorchGenerator& gen);
// The probes the scores are measured on: `count` sequences [BOS] r r with r of `repeat_len`
// random tokens, drawn from a generator of their own (the same probes for every step of a run).
std::vector<std::vector<int>> induction_probes(Eigen::Index vocab_size, Eigen::Index repeat_len,
                                               Eigen::Index count, std::uint64_t seed);
// The probes' repeat length for a run of seq_len: seq_len / 5 (at least 2), short against the
// longest repeats the task trains on ((seq_len − 1) / 2). Then a probe's query position does not
// tell where its earlier occurrence is, and a head that attends by position alone (all a
// one-layer model can do) scores about 2 / (1.5 · repeat_len); only copying through a
// previous-token head scores high.
Eigen::Index probe_repeat_len(Eigen::Index seq_len);

// Windows of a token list as above. Throws AttentionError naming the sizes when the tokens make
// no window ("the text has 40 tokens, fewer than seq_len + 1 = 65: give a longer text or a
// shorter --seq-len").
class TextWindows {
public:
    TextWindows(std::vector<int> tokens, Eigen::Index seq_len, bool shuffle, std::uint64_t seed);
    Eigen::Index count() const;
    // Batch i (from 0) of B windows.
    TrainBatch batch(Eigen::Index index, Eigen::Index batch_size);

private:
    std::vector<int> tokens_;
    Eigen::Index seq_len_;
    bool shuffle_;
    TorchGenerator gen_;
    std::vector<Eigen::Index> order_;  // the windows in this pass's order (shuffle)
    Eigen::Index pass_ = -1;           // the pass order_ belongs to
};

struct HeadScore {
    Eigen::Index layer = 0, head = 0;  // from 0
    float previous_token_score = 0.0f;
    float induction_score = 0.0f;
};
// Scores of every (layer, head), layer by layer, from attentions[probe][layer][head] (T, T) of
// probes [BOS] r r with r of length repeat_len.
std::vector<HeadScore> head_scores(const std::vector<std::vector<std::vector<Matrix>>>& attentions,
                                   Eigen::Index repeat_len);

// A named model and its training settings.
struct TrainPreset {
    std::string name;          // "attn-only-1l", "attn-only-2l", "gpt-2l"
    TransformerSpec spec;      // vocab_size and max_positions from the task
    float lr = 1e-3f;          // its own learning rate
    Eigen::Index batch = 8;    //
    Eigen::Index seq_len = 0;  // the default sequence length
};
std::vector<std::string> train_preset_names();
// Throws AttentionError listing the names for an unknown one.
TrainPreset train_preset(const std::string& name, Eigen::Index vocab_size, Eigen::Index seq_len);
// A GPT-2 layout spec of the given sizes for training (learned positions, tied output, d_ff =
// 4 · d_model, LayerNorm eps 1e-5, tanh GELU); attn_only drops the MLP and the norms.
TransformerSpec train_spec(Eigen::Index num_layers, Eigen::Index num_heads, Eigen::Index d_model,
                           Eigen::Index vocab_size, Eigen::Index max_positions, bool attn_only);

struct TrainerOptions {
    TrainTask task = TrainTask::Induction;
    Eigen::Index batch = 8;
    Eigen::Index seq_len = 32;
    std::vector<int> text_tokens;  // the text task's tokens
    bool shuffle = true;           // text task
    AdamWOptions adamw;
    float grad_clip = 1.0f;  // the global norm clipped to; 0: no clipping
    std::uint64_t seed = 0;  // the initial weights (when not given), the batches, the shuffling
    Eigen::Index probe_count = 8;
};

struct TrainStepResult {
    std::int64_t step = 0;  // from 1
    float loss = 0.0f;      // before this step's update
    float grad_norm = 0.0f;
};

// Owns the parameters, the optimizer state and the batch source. Not thread-safe: one thread
// steps it; hand weights_copy(parameters()) to others.
class Trainer {
public:
    // Fresh weights: init_gpt2 with TorchGenerator(seed). Throws AttentionError for bad options
    // (batch < 1, seq_len above the spec's max_positions, a text that makes no window, ...).
    Trainer(const TransformerSpec& spec, const TrainerOptions& options);
    // Continues from given parameters (a loaded model); the optimizer starts fresh.
    Trainer(ModelParameters params, const TrainerOptions& options);

    TrainStepResult step();
    std::int64_t steps_done() const { return step_; }
    const ModelParameters& parameters() const { return params_; }
    const TrainerOptions& options() const { return options_; }

    // The probes' attentions [layer][head] and the scores they give; empty for a model of fewer
    // than 5 positions, which holds no probe.
    const std::vector<std::vector<int>>& probes() const { return probes_; }
    std::vector<std::vector<Matrix>> probe_attentions(std::size_t probe = 0);
    std::vector<HeadScore> scores();

private:
    TrainBatch next_batch();

    ModelParameters params_;
    TrainerOptions options_;
    AdamWState adamw_;
    TorchGenerator gen_;
    std::unique_ptr<TextWindows> windows_;
    std::vector<std::vector<int>> probes_;
    std::vector<float> grads_;
    TrainScratch scratch_;
    std::int64_t step_ = 0;
};

}  // namespace attn
