#include "generator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "ops.h"
#include "transformer_layers.h"

namespace attn {

using Index = Eigen::Index;

Generator::Generator(const TransformerWeights& weights, const std::vector<int>& prompt,
                     const GenerationOptions& options)
    : weights_(weights), options_(options), gen_(options.seed) {
    check_weights(weights);
    if (is_encoder(weights.spec.family))
        throw AttentionError(encoder_name(weights.spec.family) +
                             " is an encoder: it fills in [MASK] tokens instead of generating; "
                             "use forward");
    if (options.max_new_tokens < 0)
        throw AttentionError("max_new_tokens = " + std::to_string(options.max_new_tokens) +
                             " is negative: give 0 or more");
    if (!(options.temperature >= 0.0f) || !std::isfinite(options.temperature))
        throw AttentionError("temperature must be a finite number >= 0: use 0 for greedy");
    if (options.top_k < 0)
        throw AttentionError("top_k = " + std::to_string(options.top_k) +
                             " is negative: give 0 (all tokens) or more");
    const TransformerSpec& s = weights.spec;
    // attend_one_query reads every cached token; with a sliding window (Mistral's) that is the
    // model's attention as long as every position is inside the window.
    const Index total = static_cast<Index>(prompt.size()) + options.max_new_tokens;
    if (s.sliding_window > 0 && total > s.sliding_window)
        throw AttentionError("prompt + max_new_tokens = " + std::to_string(total) +
                             " tokens pass the model's sliding window of " +
                             std::to_string(s.sliding_window) +
                             ", which generation does not compute: keep them within the window "
                             "(the full pass, forward, computes any length)");
    check_token_ids(s, prompt, options.max_new_tokens);
    prompt_length_ = static_cast<Index>(prompt.size());
    const Index capacity = prompt_length_ + options.max_new_tokens;
    // The prompt in one full pass (GEMMs rather than token by token); its keys and values, after
    // rotary positions when the family has them, fill the kv_cache.
    ModelForwardOptions prefill;
    prefill.keep_attentions = false;
    prefill.keep_qkv = true;
    prefill.top_k = 0;
    const ModelForwardResult full = model_forward(weights, prompt, prefill);
    for (Index l = 0; l < s.num_layers; ++l) {
        const auto li = static_cast<std::size_t>(l);
        kv_cache_.emplace_back(s.num_kv_heads, capacity, s.head_dim, s.head_dim);
        kv_cache_.back().append(split_heads(full.keys[li], s.num_kv_heads),
                                split_heads(full.values[li], s.num_kv_heads));
    }
    tokens_.reserve(static_cast<std::size_t>(capacity));
    tokens_ = prompt;
    prompt_logits_ = full.logits;
    restart();
}

void Generator::restart() {
    tokens_.resize(static_cast<std::size_t>(prompt_length_));
    for (KVCache& cache : kv_cache_) cache.tokens = prompt_length_;
    last_logits_ = prompt_logits_;
    step_logits_.clear();
    generated_ = 0;
    gen_.manual_seed(options_.seed);
    finished_ = options_.max_new_tokens == 0;
}

std::int64_t Generator::cache_bytes() const {
    std::int64_t bytes = 0;
    for (const KVCache& cache : kv_cache_) bytes += static_cast<std::int64_t>(cache.bytes());
    return bytes;
}

void Generator::feed(int id, std::vector<std::vector<RowVector>>* attention_rows) {
    using R = TensorRole;
    const TransformerSpec& s = weights_.spec;
    const Index pos = static_cast<Index>(tokens_.size());
    tokens_.push_back(id);
    // `d ** 0.5` rounded to float, as the full pass divides by it.
    const float divisor = static_cast<float>(std::sqrt(static_cast<double>(s.head_dim)));
    Matrix h = layers::embed(weights_, {id}, pos);
    if (attention_rows) attention_rows->clear();
    for (Index l = 0; l < s.num_layers; ++l) {
        const LayerWeights& w = weights_.layers[static_cast<std::size_t>(l)];
        KVCache& cache = kv_cache_[static_cast<std::size_t>(l)];
        const Matrix a = layers::attention_input(w, s, h);
        const layers::Projections p = layers::project_qkv(w, s, a, pos);
        cache.append(split_heads(p.keys, s.num_kv_heads), split_heads(p.values, s.num_kv_heads));
        attend_one_query(p.queries.row(0), cache, s.num_heads, divisor, attention_rows != nullptr,
                         attention_);
        if (attention_rows) attention_rows->push_back(attention_.attn_weights);
        h += layers::project(attention_.context, w[R::OutWeight], w[R::OutBias]);
        layers::mlp_block(w, s, h);
    }
    last_logits_ = layers::logits(weights_, h);
}

int Generator::choose_next() {
    const RowVector& logits = last_logits_;
    const Index n = logits.size();
    if (options_.temperature == 0.0f) {
        Index best = 0;
        logits.maxCoeff(&best);  // Eigen returns the first maximum: the lowest id
        return static_cast<int>(best);
    }
    RowVector scaled = logits / options_.temperature;
    if (options_.top_k > 0 && options_.top_k < n) {
        std::vector<float> sorted(scaled.data(), scaled.data() + n);
        std::nth_element(sorted.begin(), sorted.begin() + (options_.top_k - 1), sorted.end(),
                         std::greater<float>());
        const float kth = sorted[static_cast<std::size_t>(options_.top_k - 1)];
        for (Index i = 0; i < n; ++i)
            if (scaled[i] < kth) scaled[i] = -std::numeric_limits<float>::infinity();
    }
    const double max = static_cast<double>(scaled.maxCoeff());
    std::vector<double> cumulative(static_cast<std::size_t>(n));
    double total = 0.0;
    for (Index i = 0; i < n; ++i) {
        total += std::exp(static_cast<double>(scaled[i]) - max);
        cumulative[static_cast<std::size_t>(i)] = total;
    }
    const double u = static_cast<double>(gen_.uniform(0.0, 1.0)) * total;
    for (Index i = 0; i < n; ++i)
        if (cumulative[static_cast<std::size_t>(i)] > u &&
            std::isfinite(static_cast<double>(scaled[i])))
            return static_cast<int>(i);
    // u rounded up to the total: the last token that can be drawn.
    for (Index i = n - 1; i >= 0; --i)
        if (std::isfinite(static_cast<double>(scaled[i]))) return static_cast<int>(i);
    return 0;
}

GenerationStep Generator::step() {
    if (finished_)
        throw AttentionError(
            "generation has finished (end-of-text or max_new_tokens reached): start a new "
            "generator to continue");
    GenerationStep s;
    step_logits_.push_back(last_logits_);
    s.id = choose_next();
    feed(s.id, &s.attention_rows);
    ++generated_;
    finished_ =
        generated_ >= options_.max_new_tokens || (options_.eos_id >= 0 && s.id == options_.eos_id);
    s.finished = finished_;
    return s;
}

float max_abs_diff_vs_full_pass(const TransformerWeights& weights, const Generator& generator) {
    if (generator.step_logits().empty()) return 0.0f;
    // Every token that was fed except the last generated one, whose logits chose nothing.
    std::vector<int> sequence = generator.tokens();
    sequence.pop_back();
    ModelForwardOptions full_options;
    full_options.keep_attentions = false;
    full_options.all_logits = true;
    full_options.top_k = 0;
    const ModelForwardResult full = model_forward(weights, sequence, full_options);
    const Index first = generator.prompt_length() - 1;
    float diff = 0.0f;
    for (std::size_t i = 0; i < generator.step_logits().size(); ++i)
        diff = std::max(
            diff, (generator.step_logits()[i] - full.logits.row(first + static_cast<Index>(i)))
                      .cwiseAbs()
                      .maxCoeff());
    return diff;
}

GenerationResult generate(const TransformerWeights& weights, const std::vector<int>& prompt,
                          const GenerationOptions& options) {
    Generator generator(weights, prompt, options);
    GenerationResult result;
    while (!generator.finished()) result.new_ids.push_back(generator.step().id);
    result.cache_bytes = generator.cache_bytes();
    result.max_abs_diff_vs_full_pass = max_abs_diff_vs_full_pass(weights, generator);
    return result;
}

}  // namespace attn
