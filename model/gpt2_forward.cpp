#include "gpt2_forward.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>

#include "attention_layer_step.h"
#include "fast_attention.h"
#include "number_format.h"
#include "ops.h"

namespace attn {

namespace {

using Index = Eigen::Index;

void check_view(const WeightView& w, Index rows, Index cols, const std::string& name) {
    if (w.empty() || w.rows * w.cols != rows * cols)
        throw AttentionError(name + " has " + std::to_string(w.rows) + " × " +
                             std::to_string(w.cols) + " values but the config needs " +
                             std::to_string(rows) + " × " + std::to_string(cols) +
                             ": load weights that match config.json");
}

void check_weights(const Gpt2Weights& w) {
    const Gpt2Config& c = w.config;
    if (c.n_layer < 1 || c.n_embd < 1 || c.n_positions < 1 || c.vocab_size < 1 || c.n_inner < 1)
        throw AttentionError(
            "the GPT-2 config has a size below 1: give n_layer, n_embd, n_inner, n_positions and "
            "vocab_size of at least 1");
    check_heads_divide(c.n_embd, c.n_head, "n_embd");
    if (static_cast<Index>(w.blocks.size()) != c.n_layer)
        throw AttentionError("the weights have " + std::to_string(w.blocks.size()) +
                             " blocks but n_layer = " + std::to_string(c.n_layer) +
                             ": load weights that match config.json");
    const Index d = c.n_embd;
    check_view(w.wte, c.vocab_size, d, "wte");
    check_view(w.wpe, c.n_positions, d, "wpe");
    for (std::size_t l = 0; l < w.blocks.size(); ++l) {
        const Gpt2BlockWeights& b = w.blocks[l];
        const std::string p = "h." + std::to_string(l) + ".";
        check_view(b.ln_1_weight, 1, d, p + "ln_1.weight");
        check_view(b.ln_1_bias, 1, d, p + "ln_1.bias");
        check_view(b.c_attn_weight, d, 3 * d, p + "attn.c_attn.weight");
        check_view(b.c_attn_bias, 1, 3 * d, p + "attn.c_attn.bias");
        check_view(b.attn_c_proj_weight, d, d, p + "attn.c_proj.weight");
        check_view(b.attn_c_proj_bias, 1, d, p + "attn.c_proj.bias");
        check_view(b.ln_2_weight, 1, d, p + "ln_2.weight");
        check_view(b.ln_2_bias, 1, d, p + "ln_2.bias");
        check_view(b.c_fc_weight, d, c.n_inner, p + "mlp.c_fc.weight");
        check_view(b.c_fc_bias, 1, c.n_inner, p + "mlp.c_fc.bias");
        check_view(b.mlp_c_proj_weight, c.n_inner, d, p + "mlp.c_proj.weight");
        check_view(b.mlp_c_proj_bias, 1, d, p + "mlp.c_proj.bias");
    }
    check_view(w.ln_f_weight, 1, d, "ln_f.weight");
    check_view(w.ln_f_bias, 1, d, "ln_f.bias");
    if (!c.tie_word_embeddings) check_view(w.lm_head, c.vocab_size, d, "lm_head.weight");
}

void check_ids(const Gpt2Config& c, const std::vector<int>& ids, Index extra_positions) {
    if (ids.empty()) throw AttentionError("the token ids are empty: give at least one token");
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= c.vocab_size)
            throw AttentionError("token id " + std::to_string(ids[i]) + " at position " +
                                 std::to_string(i + 1) + " is outside [0, " +
                                 std::to_string(c.vocab_size) +
                                 "): use ids from this model's tokenizer");
    const Index total = static_cast<Index>(ids.size()) + extra_positions;
    if (total > c.n_positions) {
        if (extra_positions == 0)
            throw AttentionError(
                std::to_string(ids.size()) +
                " tokens are more than n_positions = " + std::to_string(c.n_positions) +
                ": shorten the text to at most " + std::to_string(c.n_positions) + " tokens");
        throw AttentionError("prompt (" + std::to_string(ids.size()) + ") + max_new_tokens (" +
                             std::to_string(extra_positions) + ") = " + std::to_string(total) +
                             " exceeds n_positions = " + std::to_string(c.n_positions) +
                             ": shorten the prompt or lower max_new_tokens");
    }
}

// torch.nn.LayerNorm over each row: biased variance, eps inside the square root.
Matrix layer_norm(const Matrix& x, const WeightView& weight, const WeightView& bias, float eps) {
    Matrix out(x.rows(), x.cols());
    const auto w = weight.row();
    const auto b = bias.row();
    const float n = static_cast<float>(x.cols());
    for (Index r = 0; r < x.rows(); ++r) {
        const float mean = x.row(r).sum() / n;
        const float var = (x.row(r).array() - mean).square().sum() / n;
        const float inv = 1.0f / std::sqrt(var + eps);
        out.row(r) = ((x.row(r).array() - mean) * inv * w.array() + b.array()).matrix();
    }
    return out;
}

// Conv1D: x · W + b.
Matrix linear(const Matrix& x, const WeightView& w, const WeightView& b) {
    Matrix y = x * w.matrix();
    y.rowwise() += b.row();
    return y;
}

void gelu_new(Matrix& x) {
    const float c = std::sqrt(2.0f / 3.14159265358979323846f);
    x = (0.5f * x.array() * (1.0f + (c * (x.array() + 0.044715f * x.array().cube())).tanh()))
            .matrix();
}

Eigen::Map<const Matrix> output_matrix(const Gpt2Weights& w) {
    return w.config.tie_word_embeddings ? w.wte.matrix() : w.lm_head.matrix();
}

// The MLP half of a block, in place on h.
void mlp_block(const Gpt2BlockWeights& b, float eps, Matrix& h) {
    Matrix m = layer_norm(h, b.ln_2_weight, b.ln_2_bias, eps);
    Matrix f = linear(m, b.c_fc_weight, b.c_fc_bias);
    gelu_new(f);
    h += linear(f, b.mlp_c_proj_weight, b.mlp_c_proj_bias);
}

}  // namespace

std::vector<Gpt2TopToken> gpt2_top_tokens(const Eigen::Ref<const RowVector>& logits, Index k) {
    const Index n = logits.size();
    k = std::clamp<Index>(k, 0, n);
    if (k == 0) return {};
    const double max = static_cast<double>(logits.maxCoeff());
    double sum = 0.0;
    for (Index i = 0; i < n; ++i) sum += std::exp(static_cast<double>(logits[i]) - max);
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
        return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
    });
    std::vector<Gpt2TopToken> top;
    for (Index i = 0; i < k; ++i) {
        const int id = order[static_cast<std::size_t>(i)];
        top.push_back(
            {id, static_cast<float>(std::exp(static_cast<double>(logits[id]) - max) / sum)});
    }
    return top;
}

Gpt2ForwardResult gpt2_forward(const Gpt2Weights& weights, const std::vector<int>& ids,
                               const Gpt2ForwardOptions& options) {
    check_weights(weights);
    const Gpt2Config& c = weights.config;
    check_ids(c, ids, 0);
    const Index T = static_cast<Index>(ids.size());
    const Index d = c.n_embd;
    const Index num_heads = c.n_head;
    const Index head_dim = d / num_heads;

    Matrix h(T, d);
    const auto wte = weights.wte.matrix();
    const auto wpe = weights.wpe.matrix();
    for (Index t = 0; t < T; ++t) h.row(t) = wte.row(ids[static_cast<std::size_t>(t)]) + wpe.row(t);

    Gpt2ForwardResult result;
    AttentionOptions attention_options;
    attention_options.blocked = causal_mask(T, T);
    const float eps = c.layer_norm_epsilon;
    // Without displayed intermediates the attention half runs on the engine's fast kernel
    // (model/fast_attention.h): no (T, T) matrix, queries pre-scaled by 1/√head_dim.
    const bool fast = !options.keep_attentions && !options.keep_qkv;
    FastAttentionWeights fast_weights;
    FastAttentionWorkspace workspace;
    Matrix attention_out;
    if (fast) {
        fast_weights.d_in = d;
        fast_weights.d_out = d;
        fast_weights.num_heads = num_heads;
        fast_weights.head_dim = head_dim;
        fast_weights.context_length = c.n_positions;
    }
    for (const Gpt2BlockWeights& b : weights.blocks) {
        const Matrix a = layer_norm(h, b.ln_1_weight, b.ln_1_bias, eps);
        if (fast) {
            const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(head_dim));
            fast_weights.w_qkv = b.c_attn_weight.matrix();
            fast_weights.w_qkv.leftCols(d) *= inv_sqrt;
            fast_weights.b_qkv = b.c_attn_bias.row();
            fast_weights.b_qkv.leftCols(d) *= inv_sqrt;
            fast_weights.w_out = b.attn_c_proj_weight.matrix();
            fast_weights.b_out = b.attn_c_proj_bias.row();
            fast_causal_mha_forward(fast_weights, a, workspace, attention_out);
            h += attention_out;
            mlp_block(b, eps, h);
            continue;
        }
        const Matrix qkv = linear(a, b.c_attn_weight, b.c_attn_bias);
        Matrix context_vecs(T, d);
        std::vector<Matrix> layer_weights;
        for (Index head = 0; head < num_heads; ++head) {
            const Matrix queries = qkv.middleCols(head * head_dim, head_dim);
            const Matrix keys = qkv.middleCols(d + head * head_dim, head_dim);
            const Matrix values = qkv.middleCols(2 * d + head * head_dim, head_dim);
            AttentionResult r =
                scaled_dot_product_attention(queries, keys, values, attention_options);
            context_vecs.middleCols(head * head_dim, head_dim) = r.context;
            if (options.keep_attentions) layer_weights.push_back(std::move(r.weights));
        }
        if (options.keep_attentions) result.attentions.push_back(std::move(layer_weights));
        if (options.keep_qkv) {
            result.queries.push_back(qkv.leftCols(d));
            result.keys.push_back(qkv.middleCols(d, d));
            result.values.push_back(qkv.rightCols(d));
        }
        h += linear(context_vecs, b.attn_c_proj_weight, b.attn_c_proj_bias);
        mlp_block(b, eps, h);
    }
    const auto out = output_matrix(weights);
    if (options.all_logits) {
        const Matrix final_h = layer_norm(h, weights.ln_f_weight, weights.ln_f_bias, eps);
        result.logits = final_h * out.transpose();
    } else {
        const Matrix last = h.bottomRows(1);
        result.logits =
            layer_norm(last, weights.ln_f_weight, weights.ln_f_bias, eps) * out.transpose();
    }
    result.top_tokens = gpt2_top_tokens(result.logits.bottomRows(1), options.top_k);
    return result;
}

// --- generation -------------------------------------------------------------------------------

Gpt2Generator::Gpt2Generator(const Gpt2Weights& weights, const std::vector<int>& prompt,
                             const Gpt2GenerationOptions& options)
    : weights_(weights), options_(options), gen_(options.seed) {
    check_weights(weights);
    if (options.max_new_tokens < 0)
        throw AttentionError("max_new_tokens = " + std::to_string(options.max_new_tokens) +
                             " is negative: give 0 or more");
    if (!(options.temperature >= 0.0f) || !std::isfinite(options.temperature))
        throw AttentionError("temperature must be a finite number >= 0: use 0 for greedy");
    if (options.top_k < 0)
        throw AttentionError("top_k = " + std::to_string(options.top_k) +
                             " is negative: give 0 (all tokens) or more");
    check_ids(weights.config, prompt, options.max_new_tokens);
    const Index capacity = static_cast<Index>(prompt.size()) + options.max_new_tokens;
    for (Index l = 0; l < weights.config.n_layer; ++l) {
        keys_.emplace_back(capacity, weights.config.n_embd);
        values_.emplace_back(capacity, weights.config.n_embd);
    }
    tokens_.reserve(static_cast<std::size_t>(capacity));
    prompt_length_ = static_cast<Index>(prompt.size());
    // The prompt in one full pass (GEMMs rather than token by token); its keys and values fill
    // the kv_cache.
    Gpt2ForwardOptions prefill;
    prefill.keep_attentions = false;
    prefill.keep_qkv = true;
    prefill.top_k = 0;
    const Gpt2ForwardResult full = gpt2_forward(weights, prompt, prefill);
    for (std::size_t l = 0; l < keys_.size(); ++l) {
        keys_[l].topRows(prompt_length_) = full.keys[l];
        values_[l].topRows(prompt_length_) = full.values[l];
    }
    tokens_ = prompt;
    prompt_logits_ = full.logits;
    restart();
}

void Gpt2Generator::restart() {
    tokens_.resize(static_cast<std::size_t>(prompt_length_));
    last_logits_ = prompt_logits_;
    step_logits_.clear();
    generated_ = 0;
    gen_.manual_seed(options_.seed);
    finished_ = options_.max_new_tokens == 0;
}

std::int64_t Gpt2Generator::cache_bytes() const {
    return 2 * static_cast<std::int64_t>(weights_.config.n_layer) *
           static_cast<std::int64_t>(tokens_.size()) *
           static_cast<std::int64_t>(weights_.config.n_embd) * 4;
}

void Gpt2Generator::feed(int id, std::vector<std::vector<RowVector>>* attention_rows) {
    const Gpt2Config& c = weights_.config;
    const Index pos = static_cast<Index>(tokens_.size());
    tokens_.push_back(id);
    const Index d = c.n_embd;
    const Index num_heads = c.n_head;
    const Index head_dim = d / num_heads;
    const float eps = c.layer_norm_epsilon;
    Matrix h = weights_.wte.matrix().row(id) + weights_.wpe.matrix().row(pos);
    if (attention_rows) attention_rows->clear();
    for (Index l = 0; l < c.n_layer; ++l) {
        const Gpt2BlockWeights& b = weights_.blocks[static_cast<std::size_t>(l)];
        const Matrix a = layer_norm(h, b.ln_1_weight, b.ln_1_bias, eps);
        const Matrix qkv = linear(a, b.c_attn_weight, b.c_attn_bias);
        Matrix& keys_cache = keys_[static_cast<std::size_t>(l)];
        Matrix& values_cache = values_[static_cast<std::size_t>(l)];
        keys_cache.row(pos) = qkv.middleCols(d, d);
        values_cache.row(pos) = qkv.rightCols(d);
        Matrix context_vecs(1, d);
        std::vector<RowVector> rows;
        // One query row against the cached keys: the same scaled dot product, softmax and
        // weighted sum as scaled_dot_product_attention, on blocks of the cache (copying them per
        // head would double the memory traffic of a decode step).
        const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(head_dim));
        for (Index head = 0; head < num_heads; ++head) {
            const auto queries = qkv.middleCols(head * head_dim, head_dim);
            const auto keys = keys_cache.block(0, head * head_dim, pos + 1, head_dim);
            const auto values = values_cache.block(0, head * head_dim, pos + 1, head_dim);
            RowVector attn_weights = (queries * keys.transpose()) * inv_sqrt;
            attn_weights = (attn_weights.array() - attn_weights.maxCoeff()).exp().matrix();
            attn_weights /= attn_weights.sum();
            context_vecs.middleCols(head * head_dim, head_dim).noalias() = attn_weights * values;
            if (attention_rows) rows.push_back(std::move(attn_weights));
        }
        if (attention_rows) attention_rows->push_back(std::move(rows));
        h += linear(context_vecs, b.attn_c_proj_weight, b.attn_c_proj_bias);
        mlp_block(b, eps, h);
    }
    last_logits_ = layer_norm(h, weights_.ln_f_weight, weights_.ln_f_bias, eps) *
                   output_matrix(weights_).transpose();
}

int Gpt2Generator::choose_next() {
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

Gpt2Step Gpt2Generator::step() {
    if (finished_)
        throw AttentionError(
            "generation has finished (end-of-text or max_new_tokens reached): start a new "
            "generator to continue");
    Gpt2Step s;
    step_logits_.push_back(last_logits_);
    s.id = choose_next();
    feed(s.id, &s.attention_rows);
    ++generated_;
    finished_ =
        generated_ >= options_.max_new_tokens || (options_.eos_id >= 0 && s.id == options_.eos_id);
    s.finished = finished_;
    return s;
}

Gpt2GenerationResult gpt2_generate(const Gpt2Weights& weights, const std::vector<int>& prompt,
                                   const Gpt2GenerationOptions& options) {
    Gpt2Generator generator(weights, prompt, options);
    Gpt2GenerationResult result;
    while (!generator.finished()) result.new_ids.push_back(generator.step().id);
    result.cache_bytes = generator.cache_bytes();
    if (result.new_ids.empty()) return result;
    // The full pass over every token that was fed except the last generated one, whose logits
    // chose nothing.
    std::vector<int> sequence = generator.tokens();
    sequence.pop_back();
    Gpt2ForwardOptions full_options;
    full_options.keep_attentions = false;
    full_options.all_logits = true;
    full_options.top_k = 0;
    const Gpt2ForwardResult full = gpt2_forward(weights, sequence, full_options);
    const Index first = static_cast<Index>(prompt.size()) - 1;
    for (std::size_t i = 0; i < generator.step_logits().size(); ++i) {
        const float diff =
            (generator.step_logits()[i] - full.logits.row(first + static_cast<Index>(i)))
                .cwiseAbs()
                .maxCoeff();
        result.max_abs_diff_vs_full_pass = std::max(result.max_abs_diff_vs_full_pass, diff);
    }
    return result;
}

// --- test weights ---------------------------------------------------------------------------

Gpt2Config tiny_gpt2_config(bool tied) {
    Gpt2Config c;
    c.n_layer = 2;
    c.n_head = 2;
    c.n_embd = 8;
    c.n_positions = 16;
    c.vocab_size = 32;
    c.n_inner = 32;
    c.tie_word_embeddings = tied;
    return c;
}

Gpt2Config gpt2_small_config() {
    Gpt2Config c;
    c.n_layer = 12;
    c.n_head = 12;
    c.n_embd = 768;
    c.n_positions = 1024;
    c.vocab_size = 50257;
    c.n_inner = 3072;
    return c;
}

namespace {

// Owned weights: every tensor in one shared vector of matrices, views pointing into them.
struct OwnedTensors {
    std::vector<Matrix> tensors;
};

}  // namespace

Gpt2Weights make_random_gpt2_weights(const Gpt2Config& config, std::uint64_t seed) {
    Gpt2Config c = config;
    if (c.n_inner == 0) c.n_inner = 4 * c.n_embd;
    if (c.n_layer < 1 || c.n_embd < 1 || c.n_positions < 1 || c.vocab_size < 1 || c.n_inner < 1)
        throw AttentionError("random GPT-2 weights need sizes of at least 1: fix the config");
    check_heads_divide(c.n_embd, c.n_head, "n_embd");
    auto owned = std::make_shared<OwnedTensors>();
    owned->tensors.reserve(static_cast<std::size_t>(12 * c.n_layer + 5));
    TorchGenerator gen(seed);
    auto draw = [&](Index rows, Index cols, double mean, double stddev) {
        owned->tensors.push_back(gen.normal(rows, cols, mean, stddev));
        const Matrix& m = owned->tensors.back();
        return WeightView{m.data(), m.rows(), m.cols()};
    };
    Gpt2Weights w;
    w.config = c;
    const Index d = c.n_embd;
    w.wte = draw(c.vocab_size, d, 0.0, 0.5);
    w.wpe = draw(c.n_positions, d, 0.0, 0.3);
    for (Index l = 0; l < c.n_layer; ++l) {
        Gpt2BlockWeights b;
        b.ln_1_weight = draw(1, d, 1.0, 0.1);
        b.ln_1_bias = draw(1, d, 0.0, 0.1);
        b.c_attn_weight = draw(d, 3 * d, 0.0, 0.4);
        b.c_attn_bias = draw(1, 3 * d, 0.0, 0.1);
        b.attn_c_proj_weight = draw(d, d, 0.0, 0.3);
        b.attn_c_proj_bias = draw(1, d, 0.0, 0.1);
        b.ln_2_weight = draw(1, d, 1.0, 0.1);
        b.ln_2_bias = draw(1, d, 0.0, 0.1);
        b.c_fc_weight = draw(d, c.n_inner, 0.0, 0.3);
        b.c_fc_bias = draw(1, c.n_inner, 0.0, 0.1);
        b.mlp_c_proj_weight = draw(c.n_inner, d, 0.0, 0.2);
        b.mlp_c_proj_bias = draw(1, d, 0.0, 0.1);
        w.blocks.push_back(b);
    }
    w.ln_f_weight = draw(1, d, 1.0, 0.1);
    w.ln_f_bias = draw(1, d, 0.0, 0.1);
    if (!c.tie_word_embeddings) w.lm_head = draw(c.vocab_size, d, 0.0, 0.5);
    w.dtype = "F32";
    w.storage = owned;
    return w;
}

namespace {

float round_to_bf16(float x) {
    if (!std::isfinite(x)) return x;
    std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
    bits += 0x7FFFu + ((bits >> 16) & 1u);  // round to nearest, ties to even
    bits &= 0xFFFF0000u;
    return std::bit_cast<float>(bits);
}

float round_to_f16(float x) {
    if (!std::isfinite(x)) return x;
    const float a = std::fabs(x);
    if (a >= 65520.0f) return std::copysign(std::numeric_limits<float>::infinity(), x);
    // Spacing of float16 numbers around a: 2^(e - 10) for normals, 2^-24 for subnormals.
    int e = 0;
    std::frexp(a, &e);  // a = m · 2^e, m in [0.5, 1)
    const int exponent = std::max(e - 1, -14);
    const float spacing = std::ldexp(1.0f, exponent - 10);
    // nearbyint rounds ties to even in the default rounding mode.
    return std::copysign(std::nearbyint(a / spacing) * spacing, x);
}

}  // namespace

Gpt2Weights round_gpt2_weights(const Gpt2Weights& weights, std::string_view dtype) {
    if (dtype != "F16" && dtype != "BF16")
        throw AttentionError("unknown dtype \"" + std::string(dtype) + "\": use F16 or BF16");
    const bool half = dtype == "F16";
    auto owned = std::make_shared<OwnedTensors>();
    owned->tensors.reserve(weights.blocks.size() * 12 + 5);
    auto copy = [&](const WeightView& v) {
        if (v.empty()) return WeightView{};
        Matrix m = v.matrix();
        for (Index i = 0; i < m.size(); ++i)
            m.data()[i] = half ? round_to_f16(m.data()[i]) : round_to_bf16(m.data()[i]);
        owned->tensors.push_back(std::move(m));
        const Matrix& back = owned->tensors.back();
        return WeightView{back.data(), back.rows(), back.cols()};
    };
    Gpt2Weights w;
    w.config = weights.config;
    w.wte = copy(weights.wte);
    w.wpe = copy(weights.wpe);
    for (const Gpt2BlockWeights& src : weights.blocks) {
        Gpt2BlockWeights b;
        b.ln_1_weight = copy(src.ln_1_weight);
        b.ln_1_bias = copy(src.ln_1_bias);
        b.c_attn_weight = copy(src.c_attn_weight);
        b.c_attn_bias = copy(src.c_attn_bias);
        b.attn_c_proj_weight = copy(src.attn_c_proj_weight);
        b.attn_c_proj_bias = copy(src.attn_c_proj_bias);
        b.ln_2_weight = copy(src.ln_2_weight);
        b.ln_2_bias = copy(src.ln_2_bias);
        b.c_fc_weight = copy(src.c_fc_weight);
        b.c_fc_bias = copy(src.c_fc_bias);
        b.mlp_c_proj_weight = copy(src.mlp_c_proj_weight);
        b.mlp_c_proj_bias = copy(src.mlp_c_proj_bias);
        w.blocks.push_back(b);
    }
    w.ln_f_weight = copy(weights.ln_f_weight);
    w.ln_f_bias = copy(weights.ln_f_bias);
    w.lm_head = copy(weights.lm_head);
    w.dtype = std::string(dtype);
    w.storage = owned;
    return w;
}

Step gpt2_layer_step(const Gpt2ForwardResult& result, const Gpt2Config& config, Eigen::Index layer,
                     const std::vector<std::string>& tokens) {
    if (layer < 0 || layer >= static_cast<Eigen::Index>(result.attentions.size())) {
        throw AttentionError("layer " + std::to_string(layer + 1) +
                             " has no attention weights: run gpt2_forward with keep_attentions "
                             "and give a layer from 1 to " +
                             std::to_string(result.attentions.size()));
    }
    const auto l = static_cast<std::size_t>(layer);
    const std::vector<Matrix>& heads = result.attentions[l];
    const Eigen::Index t = heads.empty() ? 0 : heads.front().rows();
    const Eigen::Index head_dim = config.n_embd / std::max<Eigen::Index>(config.n_head, 1);
    const bool explained = l < result.queries.size() && l < result.keys.size();
    const BoolMatrix future = causal_mask(t, t);
    std::vector<std::string> dims;
    for (Eigen::Index d = 0; d < head_dim; ++d) dims.push_back(std::to_string(d + 1));

    Step step = attention_layer_step(heads, layer, tokens);
    step.text_args.emplace_back("head_dim", std::to_string(head_dim));
    if (explained)
        step.text_args.emplace_back("sqrt_head_dim",
                                    format_shortest(std::sqrt(static_cast<float>(head_dim))));
    for (std::size_t h = 0; h < heads.size(); ++h) {
        const std::string n = std::to_string(h + 1);
        StepMatrix& w = step.matrices[h];
        // GPT-2 is causal by construction, whatever its numbers (attention_layer_step detects it)
        w.blocked = future;
        w.head_dim = head_dim;
        if (explained) {
            const Eigen::Index c0 = static_cast<Eigen::Index>(h) * head_dim;
            const Matrix q = result.queries[l].middleCols(c0, head_dim);
            const Matrix k = result.keys[l].middleCols(c0, head_dim);
            auto operand = [&](std::string id, std::string symbol, Matrix values,
                               std::vector<std::string> cols, MatrixKind kind) -> StepMatrix& {
                StepMatrix m;
                m.id = std::move(id);
                m.symbol = std::move(symbol);
                m.values = std::move(values);
                m.row_labels = tokens;
                m.col_labels = std::move(cols);
                m.kind = kind;
                step.operands.push_back(std::move(m));
                return step.operands.back();
            };
            operand("queries-" + n, "q", q, dims, MatrixKind::Projections);
            operand("keys-" + n, "k", k, dims, MatrixKind::Projections);
            StepMatrix& scores =
                operand("scores-" + n, "ω", q * k.transpose(), tokens, MatrixKind::Scores);
            scores.derivation = Derivation::DotProduct;
            scores.lhs = "queries-" + n;
            scores.rhs = "keys-" + n;
            StepMatrix& masked =
                operand("masked-" + n, "ω", masked_fill(q * k.transpose(), future, kNegInf), tokens,
                        MatrixKind::Scores);
            masked.derivation = Derivation::MaskedFill;
            masked.lhs = "scores-" + n;
            masked.blocked = future;
            masked.fill_value = kNegInf;
            w.derivation = Derivation::Softmax;
            w.lhs = "masked-" + n;
            w.divisor = std::sqrt(static_cast<float>(head_dim));
        }
    }
    return step;
}

}  // namespace attn
