// The attention modules of seeds 000, 002, 003 and 004 (GPT-2's in gpt2_attention.cpp, the cache
// in kv_cache.cpp). Every module projects, then hands each head to scaled_dot_product_attention:
// the attention arithmetic lives in ops.cpp only.
#include "modules.h"

#include <cmath>
#include <sstream>
#include <string>
#include <utility>

#include "decode_attention.h"
#include "module_checks.h"

namespace attn {

// --- checks ----------------------------------------------------------------------------------

namespace detail {

void check_batch(const Batch& x, Eigen::Index width, std::string_view name,
                 std::string_view width_name) {
    if (x.empty()) {
        std::ostringstream msg;
        msg << name << " is an empty batch: give at least one sequence";
        throw AttentionError(msg.str());
    }
    for (std::size_t b = 0; b < x.size(); ++b) {
        std::string label(name);
        if (x.size() > 1) {
            label += "[" + std::to_string(b) + "]";
        }
        check_not_empty(x[b], label);
        check_cols(x[b], width, label, width_name);
        check_finite(x[b], label);
        if (x[b].rows() != x[0].rows()) {
            std::ostringstream msg;
            msg << label << " has " << x[b].rows() << " tokens but " << name << "[0] has "
                << x[0].rows()
                << ": every sequence of a batch needs the same number of tokens (pad the "
                   "shorter ones)";
            throw AttentionError(msg.str());
        }
    }
}

void check_positive(Eigen::Index value, std::string_view name) {
    if (value < 1) {
        std::ostringstream msg;
        msg << name << " = " << value << " is not a size: give " << name << " >= 1";
        throw AttentionError(msg.str());
    }
}

void check_context_length(Eigen::Index tokens, Eigen::Index context_length,
                          std::string_view length_name) {
    if (tokens > context_length) {
        std::ostringstream msg;
        msg << "sequence has " << tokens << " tokens but " << length_name << " = " << context_length
            << ": build the module with " << length_name << " >= " << tokens << " or give at most "
            << context_length << " tokens";
        throw AttentionError(msg.str());
    }
}

void check_generator(float p, bool training, const TorchGenerator* gen, std::string_view what) {
    if (training && p > 0.0f && p < 1.0f && gen == nullptr) {
        std::ostringstream msg;
        msg << what << " = " << p
            << " in training mode draws random numbers but no generator was given: pass "
               "ForwardOptions::gen, or set training = false";
        throw AttentionError(msg.str());
    }
}

}  // namespace detail

namespace {

using detail::check_batch;
using detail::check_context_length;
using detail::check_generator;
using detail::check_positive;

// The tutorial's causal attention for T tokens: the upper triangle filled with -inf, then dropout
// on the weights in training mode.
// options.causal = false (explore mode) leaves the mask out; options.scale = false the
// division by sqrt(head_dim).
AttentionOptions causal_options(Eigen::Index tokens, float dropout_p,
                                const ForwardOptions& options) {
    AttentionOptions opt;
    if (options.causal) {
        opt.blocked = causal_mask(tokens, tokens);
    }
    opt.fill_value = options.causal_fill;
    // attn_scores.masked_fill_(mask, fill), then softmax(attn_scores / d_key ** 0.5): a finite fill
    // is divided by sqrt(d_k) too.
    opt.fill_before_scale = true;
    opt.scale = options.scale;
    opt.dropout_p = dropout_p;
    opt.training = options.training;
    return opt;
}

// One projection per batch item: (B, T, in) -> (B, T, out).
Batch project(const Linear& layer, const Batch& x) {
    Batch out;
    out.reserve(x.size());
    for (const Matrix& item : x) {
        out.push_back(layer.forward(item));
    }
    return out;
}

// The queries, keys and values of every batch item, (B, T, width) each.
ModuleOutput project_qkv(const Linear& W_query, const Linear& W_key, const Linear& W_value,
                         const Batch& x) {
    ModuleOutput out;
    out.queries = project(W_query, x);
    out.keys = project(W_key, x);
    out.values = project(W_value, x);
    return out;
}

// What CausalAttention and MultiHeadAttention compute before attending: the batch checked, the
// queries, keys and values of every item, and the causal options for its T tokens.
struct CausalProjections {
    ModuleOutput out;  // queries, keys and values filled
    AttentionOptions opt;
};

CausalProjections project_causal(const Linear& W_query, const Linear& W_key, const Linear& W_value,
                                 const Batch& x, Eigen::Index context_length, float dropout_p,
                                 const ForwardOptions& options) {
    check_batch(x, W_query.in_features(), "x", "d_in");
    const Eigen::Index tokens = x[0].rows();
    check_context_length(tokens, context_length);
    check_generator(dropout_p, options.training, options.gen, "dropout");

    return {project_qkv(W_query, W_key, W_value, x), causal_options(tokens, dropout_p, options)};
}

// Attends every head of one batch item, in head order so dropout draws follow PyTorch's (B, H,
// T, T) row-major walk when the caller loops over b outside.
std::vector<AttentionResult> attend_heads(const Heads& queries, const Heads& keys,
                                          const Heads& values, const AttentionOptions& opt,
                                          TorchGenerator* gen) {
    std::vector<AttentionResult> results;
    results.reserve(queries.size());
    for (std::size_t h = 0; h < queries.size(); ++h) {
        results.push_back(scaled_dot_product_attention(queries[h], keys[h], values[h], opt, gen));
    }
    return results;
}

Heads contexts_of(const std::vector<AttentionResult>& results) {
    Heads contexts;
    contexts.reserve(results.size());
    for (const AttentionResult& r : results) {
        contexts.push_back(r.context);
    }
    return contexts;
}

}  // namespace

// --- Linear, Conv1D --------------------------------------------------------------------------

Linear Linear::init(Eigen::Index in, Eigen::Index out, bool bias, TorchGenerator& gen) {
    check_positive(in, "in_features");
    check_positive(out, "out_features");
    // kaiming_uniform_(a = sqrt(5)) computed in double exactly as torch.nn.init does, so the float
    // bound rounds the same way: gain = sqrt(2 / (1 + a^2)), bound = sqrt(3) * gain / sqrt(fan_in).
    const double a = std::sqrt(5.0);
    const double gain = std::sqrt(2.0 / (1.0 + a * a));
    const double fan_in = static_cast<double>(in);
    const double weight_bound = std::sqrt(3.0) * (gain / std::sqrt(fan_in));
    Linear layer;
    layer.weight = gen.uniform(out, in, -weight_bound, weight_bound);
    if (bias) {
        const double bias_bound = 1.0 / std::sqrt(fan_in);
        layer.bias = gen.uniform(1, out, -bias_bound, bias_bound);
    }
    return layer;
}

Matrix Linear::forward(const Matrix& x) const {
    check_cols(x, in_features(), "Linear input", "in_features");
    Matrix y = x * weight.transpose();
    if (bias.size() > 0) {
        y.rowwise() += bias;
    }
    return y;
}

Conv1D Conv1D::init(Eigen::Index nf, Eigen::Index nx, TorchGenerator& gen) {
    check_positive(nf, "nf");
    check_positive(nx, "nx");
    Conv1D layer;
    layer.weight = gen.normal(nx, nf, 0.0, 0.02);  // nn.init.normal_(w, std=0.02)
    layer.bias = RowVector::Zero(nf);
    return layer;
}

Matrix Conv1D::forward(const Matrix& x) const {
    check_cols(x, weight.rows(), "Conv1D input", "nx");
    Matrix y = x * weight;
    y.rowwise() += bias;
    return y;
}

// --- SelfAttention v1 / v2 -------------------------------------------------------------------

SelfAttentionV1::SelfAttentionV1(Eigen::Index d_in, Eigen::Index d_out, TorchGenerator& gen) {
    check_positive(d_in, "d_in");
    check_positive(d_out, "d_out");
    // Same order as the tutorial's three torch.rand calls.
    W_query = gen.rand(d_in, d_out);
    W_key = gen.rand(d_in, d_out);
    W_value = gen.rand(d_in, d_out);
}

ModuleOutput SelfAttentionV1::forward(const Matrix& x) const {
    return forward(x, AttentionOptions{});
}

ModuleOutput SelfAttentionV1::forward(const Matrix& x, const AttentionOptions& attention) const {
    check_batch(Batch{x}, W_query.rows(), "x", "d_in");
    ModuleOutput out;
    out.queries.push_back(x * W_query);
    out.keys.push_back(x * W_key);
    out.values.push_back(x * W_value);
    out.heads.push_back(
        {scaled_dot_product_attention(out.queries[0], out.keys[0], out.values[0], attention)});
    out.context_vecs.push_back(out.heads[0][0].context);
    return out;
}

SelfAttentionV2::SelfAttentionV2(Eigen::Index d_in, Eigen::Index d_out, TorchGenerator& gen,
                                 bool qkv_bias)
    : W_query(Linear::init(d_in, d_out, qkv_bias, gen)),
      W_key(Linear::init(d_in, d_out, qkv_bias, gen)),
      W_value(Linear::init(d_in, d_out, qkv_bias, gen)) {}

ModuleOutput SelfAttentionV2::forward(const Matrix& x) const {
    return forward(x, AttentionOptions{});
}

ModuleOutput SelfAttentionV2::forward(const Matrix& x, const AttentionOptions& attention) const {
    check_batch(Batch{x}, W_query.in_features(), "x", "d_in");
    ModuleOutput out;
    out.queries.push_back(W_query.forward(x));
    out.keys.push_back(W_key.forward(x));
    out.values.push_back(W_value.forward(x));
    out.heads.push_back(
        {scaled_dot_product_attention(out.queries[0], out.keys[0], out.values[0], attention)});
    out.context_vecs.push_back(out.heads[0][0].context);
    return out;
}

// --- CausalAttention and the wrapper ---------------------------------------------------------

CausalAttention::CausalAttention(Eigen::Index d_in, Eigen::Index d_out,
                                 Eigen::Index context_length_, float dropout_p, TorchGenerator& gen,
                                 bool qkv_bias)
    : W_query(Linear::init(d_in, d_out, qkv_bias, gen)),
      W_key(Linear::init(d_in, d_out, qkv_bias, gen)),
      W_value(Linear::init(d_in, d_out, qkv_bias, gen)),
      context_length(context_length_),
      dropout(dropout_p) {
    check_positive(context_length, "context_length");
    check_dropout_p(dropout);
}

ModuleOutput CausalAttention::forward(const Batch& x, const ForwardOptions& options) const {
    CausalProjections p =
        project_causal(W_query, W_key, W_value, x, context_length, dropout, options);
    ModuleOutput& out = p.out;
    for (std::size_t b = 0; b < x.size(); ++b) {
        out.heads.push_back({scaled_dot_product_attention(out.queries[b], out.keys[b],
                                                          out.values[b], p.opt, options.gen)});
        out.context_vecs.push_back(out.heads[b][0].context);
    }
    return std::move(out);
}

MultiHeadAttentionWrapper::MultiHeadAttentionWrapper(Eigen::Index d_in, Eigen::Index d_out,
                                                     Eigen::Index context_length, float dropout,
                                                     Eigen::Index num_heads, TorchGenerator& gen,
                                                     bool qkv_bias) {
    check_positive(num_heads, "num_heads");
    // nn.ModuleList([CausalAttention(...) for _ in range(num_heads)]): head 0 draws first.
    heads.reserve(static_cast<std::size_t>(num_heads));
    for (Eigen::Index h = 0; h < num_heads; ++h) {
        heads.emplace_back(d_in, d_out, context_length, dropout, gen, qkv_bias);
    }
}

ModuleOutput MultiHeadAttentionWrapper::forward(const Batch& x,
                                                const ForwardOptions& options) const {
    // torch.cat([head(x) for head in self.heads], dim=-1): each head runs on the whole batch in
    // turn, so head 0 makes all its dropout draws before head 1.
    std::vector<ModuleOutput> per_head;
    per_head.reserve(heads.size());
    for (const CausalAttention& head : heads) {
        per_head.push_back(head.forward(x, options));
    }
    ModuleOutput out;
    for (std::size_t b = 0; b < x.size(); ++b) {
        Heads contexts, queries, keys, values;
        std::vector<AttentionResult> results;
        for (const ModuleOutput& head_out : per_head) {
            contexts.push_back(head_out.context_vecs[b]);
            queries.push_back(head_out.queries[b]);
            keys.push_back(head_out.keys[b]);
            values.push_back(head_out.values[b]);
            results.push_back(head_out.heads[b][0]);
        }
        // Concatenating along the last dimension is exactly merge_heads of the per-head outputs.
        out.context_vecs.push_back(merge_heads(contexts));
        out.queries.push_back(merge_heads(queries));
        out.keys.push_back(merge_heads(keys));
        out.values.push_back(merge_heads(values));
        out.heads.push_back(std::move(results));
    }
    out.concat = out.context_vecs;
    return out;
}

// --- MultiHeadAttention ----------------------------------------------------------------------

MultiHeadAttention::MultiHeadAttention(Eigen::Index d_in, Eigen::Index d_out_,
                                       Eigen::Index context_length_, float dropout_p,
                                       Eigen::Index num_heads_, TorchGenerator& gen, bool qkv_bias,
                                       Eigen::Index num_kv_heads_)
    : num_heads(num_heads_),
      head_dim(0),
      d_out(d_out_),
      context_length(context_length_),
      dropout(dropout_p),
      num_kv_heads(num_kv_heads_ == 0 ? num_heads_ : num_kv_heads_) {
    // The seed's `assert d_out % num_heads == 0`, checked before any parameter is drawn.
    check_positive(d_in, "d_in");
    check_heads_divide(d_out, num_heads, "d_out");
    check_positive(context_length, "context_length");
    check_dropout_p(dropout);
    kv_head_of(0, num_heads, num_kv_heads);  // throws unless G divides num_heads
    head_dim = d_out / num_heads;
    W_query = Linear::init(d_in, d_out, qkv_bias, gen);
    W_key = Linear::init(d_in, num_kv_heads * head_dim, qkv_bias, gen);
    W_value = Linear::init(d_in, num_kv_heads * head_dim, qkv_bias, gen);
    out_proj = Linear::init(d_out, d_out, true, gen);
}

namespace {

// The mask of one batch item: causal, sliding window or none, then its padding.
AttentionOptions item_options(AttentionOptions opt, Eigen::Index tokens,
                              const ForwardOptions& options, std::size_t b) {
    if (options.window > 0) {
        opt.blocked = window_mask(tokens, tokens, options.window);
    }
    if (!options.lengths.empty()) {
        const BoolMatrix padded = padding_mask(tokens, tokens, options.lengths[b]);
        opt.blocked = opt.blocked ? BoolMatrix(opt.blocked->array() || padded.array()) : padded;
    }
    return opt;
}

void check_mask_options(const ForwardOptions& options, std::size_t batch, Eigen::Index tokens) {
    if (options.window < 0 || (options.window > 0 && !options.causal)) {
        std::ostringstream msg;
        msg << "window = " << options.window
            << (options.window < 0 ? " is negative: give a window of at least 1 token"
                                   : " needs the causal mask: a sliding window is causal");
        throw AttentionError(msg.str());
    }
    if (!options.lengths.empty() && options.lengths.size() != batch) {
        std::ostringstream msg;
        msg << "lengths has " << options.lengths.size() << " values but the batch has " << batch
            << " sequences: give one length per sequence";
        throw AttentionError(msg.str());
    }
    for (std::size_t b = 0; b < options.lengths.size(); ++b) {
        if (options.lengths[b] < 0 || options.lengths[b] > tokens) {
            std::ostringstream msg;
            msg << "length " << options.lengths[b] << " of sequence " << b << " is outside [0, "
                << tokens << "]: give at most the " << tokens << " tokens of the input";
            throw AttentionError(msg.str());
        }
    }
}

// Rotates every head of a (T, heads·hd) projection for RoPE, in place.
void rotate_heads(Matrix& projected, Eigen::Index heads, Eigen::Index position_offset, float base) {
    Heads split = split_heads(projected, heads);
    for (Matrix& head : split) {
        head = rope_rotate(head, position_offset, base);
    }
    projected = merge_heads(split);
}

}  // namespace

ModuleOutput MultiHeadAttention::forward(const Batch& x, const ForwardOptions& options) const {
    CausalProjections p =
        project_causal(W_query, W_key, W_value, x, context_length, dropout, options);
    const Eigen::Index tokens = x[0].rows();
    check_mask_options(options, x.size(), tokens);
    ModuleOutput& out = p.out;
    for (std::size_t b = 0; b < x.size(); ++b) {
        if (rope) {
            rotate_heads(out.queries[b], num_heads, options.position_offset, rope_base);
            rotate_heads(out.keys[b], num_kv_heads, options.position_offset, rope_base);
        }
        const Heads queries = split_heads(out.queries[b], num_heads);
        const Heads keys = repeat_kv(split_heads(out.keys[b], num_kv_heads), num_heads);
        const Heads values = repeat_kv(split_heads(out.values[b], num_kv_heads), num_heads);
        out.heads.push_back(attend_heads(queries, keys, values,
                                         item_options(p.opt, tokens, options, b), options.gen));
        out.concat.push_back(merge_heads(contexts_of(out.heads[b])));
        out.context_vecs.push_back(out_proj.forward(out.concat[b]));
    }
    return std::move(out);
}

KVCache MultiHeadAttention::make_cache(Eigen::Index capacity) const {
    check_positive(capacity, "kv_cache capacity");
    // The full pass refuses more than context_length tokens; decoding keeps the same limit so
    // both paths accept the same sequences.
    check_context_length(capacity, context_length);
    return KVCache(num_kv_heads, capacity, head_dim, head_dim);
}

DecodeStep MultiHeadAttention::decode_step(const Matrix& x_t, KVCache& cache) const {
    if (x_t.rows() != 1) {
        std::ostringstream msg;
        msg << "decode_step takes one token but x_t has " << x_t.rows()
            << " rows: call it once per token, or use forward() for a whole sequence";
        throw AttentionError(msg.str());
    }
    check_cols(x_t, W_query.in_features(), "x_t", "d_in");
    check_finite(x_t, "x_t");
    if (cache.num_heads() != num_kv_heads || cache.head_dim_k() != head_dim ||
        cache.head_dim_v() != head_dim) {
        std::ostringstream msg;
        msg << "kv_cache has " << cache.num_heads() << " heads of width " << cache.head_dim_k()
            << " but the module has "
            << (num_kv_heads == num_heads ? "num_heads = " : "num_kv_heads = ") << num_kv_heads
            << ", head_dim = " << head_dim << ": create the cache with make_cache()";
        throw AttentionError(msg.str());
    }

    // The new token's key and value go into the cache; its query attends over every cached
    // token. All of them are in the past (or the token itself), so no causal mask is needed.
    Matrix query = W_query.forward(x_t);
    Matrix key = W_key.forward(x_t);
    if (rope) {
        // Its position is the number of tokens before it, as in the full pass.
        rotate_heads(query, num_heads, cache.tokens, rope_base);
        rotate_heads(key, num_kv_heads, cache.tokens, rope_base);
    }
    cache.append(split_heads(key, num_kv_heads), split_heads(W_value.forward(x_t), num_kv_heads));

    SingleQueryAttention attended;
    attend_one_query(Eigen::Map<const RowVector>(query.data(), query.size()), cache, num_heads,
                     scale_divisor_of(head_dim), /*keep_weights=*/true, attended);
    DecodeStep step;
    step.attn_weights = std::move(attended.attn_weights);
    step.output = out_proj.forward(Matrix(attended.context)).row(0);
    step.query = query.row(0);
    step.concat = std::move(attended.context);
    step.cache_tokens = cache.tokens;
    step.cache_bytes = cache.bytes();
    return step;
}

// --- seed 003: dim_k != dim_v ----------------------------------------------------------------

SelfAttentionKV::SelfAttentionKV(Eigen::Index dim_in_, Eigen::Index dim_k_, Eigen::Index dim_v_,
                                 TorchGenerator& gen)
    : linear_q(Linear::init(dim_in_, dim_k_, false, gen)),
      linear_k(Linear::init(dim_in_, dim_k_, false, gen)),
      linear_v(Linear::init(dim_in_, dim_v_, false, gen)),
      dim_in(dim_in_),
      dim_k(dim_k_),
      dim_v(dim_v_) {}

ModuleOutput SelfAttentionKV::forward(const Batch& x) const {
    // The seed's `assert dim_in == self.dim_in`, with the numbers.
    check_batch(x, dim_in, "x", "dim_in");
    ModuleOutput out = project_qkv(linear_q, linear_k, linear_v, x);
    // _norm_fact = 1 / sqrt(dim_k): the default scale, sqrt of the query width.
    for (std::size_t b = 0; b < x.size(); ++b) {
        out.heads.push_back({scaled_dot_product_attention(out.queries[b], out.keys[b],
                                                          out.values[b], AttentionOptions{})});
        out.context_vecs.push_back(out.heads[b][0].context);
    }
    return out;
}

MultiHeadSelfAttentionKV::MultiHeadSelfAttentionKV(Eigen::Index dim_in_, Eigen::Index dim_k_,
                                                   Eigen::Index dim_v_, Eigen::Index num_heads_,
                                                   TorchGenerator& gen)
    : dim_in(dim_in_), dim_k(dim_k_), dim_v(dim_v_), num_heads(num_heads_) {
    // "dim_k and dim_v must be multiple of num_heads", checked before drawing.
    check_positive(dim_in, "dim_in");
    check_heads_divide(dim_k, num_heads, "dim_k");
    check_heads_divide(dim_v, num_heads, "dim_v");
    linear_q = Linear::init(dim_in, dim_k, false, gen);
    linear_k = Linear::init(dim_in, dim_k, false, gen);
    linear_v = Linear::init(dim_in, dim_v, false, gen);
}

ModuleOutput MultiHeadSelfAttentionKV::forward(const Batch& x) const {
    check_batch(x, dim_in, "x", "dim_in");
    ModuleOutput out = project_qkv(linear_q, linear_k, linear_v, x);
    // _norm_fact = 1 / sqrt(dim_k // num_heads): the per-head query width, sdpa's default.
    for (std::size_t b = 0; b < x.size(); ++b) {
        out.heads.push_back(attend_heads(
            split_heads(out.queries[b], num_heads), split_heads(out.keys[b], num_heads),
            split_heads(out.values[b], num_heads), AttentionOptions{}, nullptr));
        // No output projection in this seed: the merged heads are the output (B, T, dim_v).
        out.concat.push_back(merge_heads(contexts_of(out.heads[b])));
        out.context_vecs.push_back(out.concat[b]);
    }
    return out;
}

// --- seeds 000 / 004: BERT-style MultiHeadedAttention ----------------------------------------

BertMultiHeadedAttention::BertMultiHeadedAttention(Eigen::Index num_heads_, Eigen::Index d_model_,
                                                   float dropout_p, TorchGenerator& gen)
    : num_heads(num_heads_), head_dim(0), d_model(d_model_), dropout(dropout_p) {
    // `assert d_model % h == 0`, checked before drawing.
    check_heads_divide(d_model, num_heads, "d_model");
    check_dropout_p(dropout);
    head_dim = d_model / num_heads;
    // Seed 000 creates Wq, Wk, Wv then output_linear, each drawing its own weights. (Seed 004
    // deep-copies one Linear four times, so all four start equal there; we follow seed 000.)
    linears.reserve(4);
    for (int i = 0; i < 4; ++i) {
        linears.push_back(Linear::init(d_model, d_model, true, gen));
    }
}

ModuleOutput BertMultiHeadedAttention::forward(const Batch& query, const Batch& key,
                                               const Batch& value, const Matrix* mask,
                                               MaskConvention convention, float fill_value,
                                               const ForwardOptions& options) const {
    check_batch(query, d_model, "query", "d_model");
    check_batch(key, d_model, "key", "d_model");
    check_batch(value, d_model, "value", "d_model");
    if (key.size() != query.size() || value.size() != query.size()) {
        std::ostringstream msg;
        msg << "query, key and value have batch sizes " << query.size() << ", " << key.size()
            << " and " << value.size() << ": give the same batch size to all three";
        throw AttentionError(msg.str());
    }
    const Eigen::Index t_q = query[0].rows();
    const Eigen::Index t_k = key[0].rows();
    if (value[0].rows() != t_k) {
        std::ostringstream msg;
        msg << "key has " << t_k << " tokens but value has " << value[0].rows()
            << ": every key needs exactly one value, give both the same tokens";
        throw AttentionError(msg.str());
    }
    check_generator(dropout, options.training, options.gen, "dropout");

    AttentionOptions opt;
    opt.fill_value = fill_value;
    opt.scale = options.scale;
    opt.dropout_p = dropout;
    opt.training = options.training;
    if (mask != nullptr) {
        if (mask->rows() != t_q || mask->cols() != t_k) {
            std::ostringstream msg;
            msg << "mask is " << mask->rows() << " x " << mask->cols() << " but the scores are "
                << t_q << " x " << t_k << " (queries x keys): give a (" << t_q << ", " << t_k
                << ") mask";
            throw AttentionError(msg.str());
        }
        check_finite(*mask, "mask");
        opt.blocked = convention == MaskConvention::FillWhereZero ? blocked_where_zero(*mask)
                                                                  : blocked_where_one(*mask);
    }

    const std::size_t wq = 0, wk = 1, wv = 2, wo = 3;
    ModuleOutput out;
    out.queries = project(linears[wq], query);
    out.keys = project(linears[wk], key);
    out.values = project(linears[wv], value);
    for (std::size_t b = 0; b < query.size(); ++b) {
        // scores / sqrt(d_k): sdpa's default divides by the per-head query width.
        out.heads.push_back(attend_heads(split_heads(out.queries[b], num_heads),
                                         split_heads(out.keys[b], num_heads),
                                         split_heads(out.values[b], num_heads), opt, options.gen));
        out.concat.push_back(merge_heads(contexts_of(out.heads[b])));
        out.context_vecs.push_back(linears[wo].forward(out.concat[b]));
    }
    return out;
}

}  // namespace attn
