#include "trainer.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

using Index = Eigen::Index;

namespace {

std::string str(Index v) { return std::to_string(v); }

void check_options(const TransformerSpec& spec, const TrainerOptions& o) {
    if (o.batch < 1) throw AttentionError("batch must be at least 1, not " + str(o.batch));
    if (o.seq_len < 2 || o.seq_len > spec.max_positions)
        throw AttentionError("seq_len " + str(o.seq_len) + " must be from 2 to the model's " +
                             str(spec.max_positions) + " positions");
    if (!(o.adamw.lr > 0.0f) || !std::isfinite(o.adamw.lr))
        throw AttentionError("the learning rate must be a positive number");
    if (!(o.adamw.weight_decay >= 0.0f) || !std::isfinite(o.adamw.weight_decay))
        throw AttentionError("the weight decay must be 0 or more");
    if (!(o.grad_clip >= 0.0f)) throw AttentionError("the gradient clip must be 0 (off) or more");
    if (o.probe_count < 1) throw AttentionError("probe_count must be at least 1");
    if (spec.vocab_size < 3)
        throw AttentionError("training needs a vocabulary of at least 3 tokens, not " +
                             str(spec.vocab_size) + ": give a text with more than one character");
    if (o.task == TrainTask::Induction && o.seq_len < 5)
        throw AttentionError("the induction task needs seq_len >= 5 to hold [BOS] r r, not " +
                             str(o.seq_len) + ": give a longer --seq-len");
    for (int id : o.text_tokens)
        if (id < 0 || id >= spec.vocab_size)
            throw AttentionError("the text has token id " + std::to_string(id) +
                                 " outside the model's vocabulary of " + str(spec.vocab_size));
}

// The probes are the same for every run of one size.
constexpr std::uint64_t kProbeSeed = 20221208;  // the day TransformerLens shipped its scores

}  // namespace

Trainer::Trainer(const TransformerSpec& spec, const TrainerOptions& options)
    : Trainer(make_parameters(spec), options) {
    TorchGenerator init(options.seed);
    init_gpt2(params_, init);
}

Trainer::Trainer(ModelParameters params, const TrainerOptions& options)
    // Batches draw from a stream of their own, so fresh and continued runs see the same ones.
    : params_(std::move(params)), options_(options), gen_(options.seed + 1) {
    check_options(params_.spec, options_);
    if (options_.task == TrainTask::Text)
        windows_ = std::make_unique<TextWindows>(options_.text_tokens, options_.seq_len,
                                                 options_.shuffle, options_.seed);
    // Probes fit the model's positions; a model of fewer than 5 positions has none (no scores).
    const Index repeat_len =
        std::min(probe_repeat_len(options_.seq_len), (params_.spec.max_positions - 1) / 2);
    if (repeat_len >= 2)
        probes_ =
            induction_probes(params_.spec.vocab_size, repeat_len, options_.probe_count, kProbeSeed);
}

TrainBatch Trainer::next_batch() {
    if (windows_) return windows_->batch(step_, options_.batch);
    return induction_batch(params_.spec.vocab_size, options_.seq_len, options_.batch, gen_);
}

TrainStepResult Trainer::step() {
    const TrainBatch batch = next_batch();
    TrainStepResult r;
    r.loss = forward_backward(params_, batch, grads_, scratch_);
    const float max_norm =
        options_.grad_clip > 0.0f ? options_.grad_clip : std::numeric_limits<float>::infinity();
    r.grad_norm = clip_grad_norm(grads_, max_norm);
    adamw_step(params_.values, grads_, adamw_, options_.adamw);
    r.step = ++step_;
    return r;
}

std::vector<std::vector<Matrix>> Trainer::probe_attentions(std::size_t probe) {
    if (probe >= probes_.size()) return {};
    return train_attentions(params_, probes_[probe], scratch_);
}

std::vector<HeadScore> Trainer::scores() {
    if (probes_.empty()) return {};
    std::vector<std::vector<std::vector<Matrix>>> attentions;
    for (const auto& p : probes_) attentions.push_back(train_attentions(params_, p, scratch_));
    return head_scores(attentions, (static_cast<Index>(probes_.front().size()) - 1) / 2);
}

}  // namespace attn
