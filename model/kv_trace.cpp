#include "kv_trace.h"

#include <algorithm>

#include "fast_attention.h"

namespace attn {

namespace {

void replace(Linear& layer, const std::string& prefix, const std::vector<NamedMatrix>& weights) {
    for (const NamedMatrix& w : weights) {
        if (w.name == prefix + ".weight" && w.value.rows() == layer.weight.rows() &&
            w.value.cols() == layer.weight.cols())
            layer.weight = w.value;
        if (w.name == prefix + ".bias" && w.value.cols() == layer.bias.cols() &&
            w.value.rows() == 1)
            layer.bias = w.value.row(0);
    }
}

}  // namespace

KvStepMultiplications kv_step_multiplications(std::int64_t n, std::int64_t d_in,
                                              std::int64_t d_out) {
    return {3 * d_in * d_out + 2 * n * d_out + d_out * d_out,
            3 * n * d_in * d_out + 2 * n * n * d_out + n * d_out * d_out};
}

KvTraceConfig kv_trace_config(const RunResult& run, Eigen::Index d_in) {
    KvTraceConfig c;
    c.seed = run.config.seed;
    if (run.config.module == "multi-head-attention") {
        c.d_out = run.config.d_out;
        c.num_heads = run.config.num_heads;
        c.qkv_bias = run.config.qkv_bias;
        c.weights = run.weights;
        return c;
    }
    c.d_out = d_in;
    const Eigen::Index h = std::max<Eigen::Index>(run.config.num_heads, 1);
    c.num_heads = d_in % h == 0 ? h : 1;
    return c;
}

KvTrace build_kv_trace(const Sequence& inputs, const KvTraceConfig& config,
                       Eigen::Index max_tokens) {
    check_not_empty(inputs.embeddings, "embeddings");
    check_finite(inputs.embeddings, "embeddings");
    const Eigen::Index d_in = inputs.embeddings.cols();
    const Eigen::Index d_out = config.d_out == 0 ? d_in : config.d_out;
    check_heads_divide(d_out, config.num_heads, "d_out");
    KvTrace trace;
    trace.truncated = inputs.embeddings.rows() > max_tokens;
    const Eigen::Index tokens = std::min(inputs.embeddings.rows(), max_tokens);
    const Matrix x = inputs.embeddings.topRows(tokens);

    TorchGenerator gen(config.seed);
    MultiHeadAttention m(d_in, d_out, tokens, 0.0f, config.num_heads, gen, config.qkv_bias);
    replace(m.W_query, "W_query", config.weights);
    replace(m.W_key, "W_key", config.weights);
    replace(m.W_value, "W_value", config.weights);
    replace(m.out_proj, "out_proj", config.weights);
    trace.num_heads = m.num_heads;
    trace.head_dim = m.head_dim;
    trace.d_in = d_in;
    trace.d_out = d_out;

    KVCache cache = m.make_cache(tokens);
    // What a decoder without a cache computes for token t is row t of the causal pass over
    // tokens 0..t, which is row t of one causal pass over all of them (as run_decode and the
    // walkthrough compare). It runs on the fast path, another implementation than decode_step, so
    // equal rows check one against the other.
    const Matrix full = fast_causal_mha_forward(m, x);
    std::int64_t totalCached = 0, totalFull = 0;
    for (Eigen::Index t = 0; t < tokens; ++t) {
        KvTraceStep step;
        step.token = t;
        const Matrix x_t = x.middleRows(t, 1);
        const Heads queries = split_heads(m.W_query.forward(x_t), m.num_heads);
        for (const Matrix& q : queries) step.query.push_back(q.row(0));
        const DecodeStep decoded = m.decode_step(x_t, cache);
        step.output = decoded.output;
        step.attn_weights = decoded.attn_weights;
        step.cache_bytes = decoded.cache_bytes;
        for (Eigen::Index h = 0; h < m.num_heads; ++h) {
            step.cache_keys.push_back(cache.keys_of(h));
            step.cache_values.push_back(cache.values_of(h));
        }
        step.full_output = full.row(t);
        trace.max_abs_diff =
            std::max(trace.max_abs_diff, (step.output - step.full_output).cwiseAbs().maxCoeff());

        const KvStepMultiplications mults = kv_step_multiplications(t + 1, d_in, d_out);
        step.mults_cached = mults.with_cache;
        step.mults_full = mults.without_cache;
        totalCached += step.mults_cached;
        totalFull += step.mults_full;
        step.total_cached = totalCached;
        step.total_full = totalFull;
        trace.steps.push_back(std::move(step));
    }
    return trace;
}

}  // namespace attn
