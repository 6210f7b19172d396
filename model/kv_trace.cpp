#include "kv_trace.h"

#include <algorithm>
#include <sstream>

#include "fast_attention.h"
#include "module_checks.h"
#include "module_table.h"

namespace attn {

namespace {

// How many tokens the explore mode's stepper steps through: the cache snapshots grow with T².
constexpr Eigen::Index kStepperMaxTokens = 128;

[[noreturn]] void fail_not_decoder(std::string_view name) {
    std::string decoders;
    for (const ModuleInfo& info : module_infos()) {
        if (info.decodes_with_kv_cache) {
            decoders += (decoders.empty() ? "" : " and ");
            decoders += info.name;
        }
    }
    std::ostringstream msg;
    msg << "decoding with a KV cache is available for " << decoders << ", not \"" << name
        << "\": choose one of these two";
    throw AttentionError(msg.str());
}

// The one decoding loop. decode(x_t) feeds one token (1, d_in) through the module and its cache
// and returns decode_step's record; `cache` is that cache, read after each step.
// trace.full_pass is computed before.
template <typename Decode>
void decode_tokens(const Matrix& x, const KvTraceConfig& config, const KVCache& cache,
                   Decode decode, KvTrace& trace) {
    std::int64_t total_cached = 0, total_full = 0;
    for (Eigen::Index t = 0; t < x.rows(); ++t) {
        KvTraceStep step;
        step.token = t;
        DecodeStep decoded = decode(x.middleRows(t, 1));
        if (config.cache_snapshots) {
            for (const Matrix& q : split_heads(decoded.query, trace.num_heads)) {
                step.query.push_back(q.row(0));
            }
        }
        step.output = std::move(decoded.output);
        step.concat = std::move(decoded.concat);
        step.attn_weights = std::move(decoded.attn_weights);
        step.cache_tokens = decoded.cache_tokens;
        step.cache_bytes = decoded.cache_bytes;
        if (config.cache_snapshots) {
            for (Eigen::Index h = 0; h < cache.num_heads(); ++h) {
                step.cache_keys.push_back(cache.keys_of(h));
                step.cache_values.push_back(cache.values_of(h));
            }
        }
        step.full_output = trace.full_pass.row(t);
        step.abs_diff = (step.output - step.full_output).cwiseAbs().maxCoeff();
        trace.max_abs_diff = std::max(trace.max_abs_diff, step.abs_diff);

        const KvStepMultiplications mults = kv_step_multiplications(t + 1, trace.d_in, trace.d_out);
        step.mults_cached = mults.with_cache;
        step.mults_full = mults.without_cache;
        total_cached += step.mults_cached;
        total_full += step.mults_full;
        step.total_cached = total_cached;
        step.total_full = total_full;
        step.saved_percent =
            100.0 * (1.0 - static_cast<double>(total_cached) / static_cast<double>(total_full));
        trace.steps.push_back(std::move(step));
    }
}

void decode_multi_head_attention(const Matrix& x, const KvTraceConfig& config, KvTrace& trace) {
    TorchGenerator gen(config.seed);
    MultiHeadAttention m(trace.d_in, trace.d_out, x.rows(), 0.0f, config.num_heads, gen,
                         config.qkv_bias, config.num_kv_heads);
    m.rope = config.rope;
    m.rope_base = config.rope_base;
    const std::vector<detail::ParamRef> refs = detail::params_of(m);
    detail::apply_matching_weights(refs, config.weights);
    trace.num_heads = m.num_heads;
    trace.head_dim = m.head_dim;
    trace.full_pass = config.full_pass == KvFullPass::Fast ? fast_causal_mha_forward(m, x)
                                                           : m.forward(Batch{x}).context_vecs[0];
    KVCache cache = m.make_cache(x.rows());
    decode_tokens(
        x, config, cache, [&](const Matrix& x_t) { return m.decode_step(x_t, cache); }, trace);
    trace.weights = detail::collect_weights(refs);
}

void decode_gpt2_attention(const Matrix& x, const KvTraceConfig& config, KvTrace& trace) {
    if (config.full_pass == KvFullPass::Fast) {
        throw AttentionError(
            "the fast path computes MultiHeadAttention only: compare GPT-2's decoding with its "
            "forward pass");
    }
    TorchGenerator gen(config.seed);
    Gpt2Attention m(trace.d_in, x.rows(), config.num_heads, /*scale=*/true,
                    /*is_cross_attention=*/false, gen);
    const std::vector<detail::ParamRef> refs = detail::params_of(m);
    detail::apply_matching_weights(refs, config.weights);
    trace.num_heads = m.n_head;
    trace.head_dim = m.split_size / m.n_head;
    Gpt2Attention::Input all;
    all.hidden_states = Batch{x};
    trace.full_pass = m.forward(all).attn.context_vecs[0];
    KVCache cache;
    auto decode = [&](const Matrix& x_t) {
        // layer_past / present as GPT-2's generate() feeds them back, one token per call.
        Gpt2Attention::Input in;
        in.hidden_states = Batch{x_t};
        in.layer_past = cache.tokens > 0 ? &cache : nullptr;
        in.use_cache = true;
        Gpt2Attention::Output out = m.forward(in);
        cache = std::move(out.present);
        DecodeStep step;
        step.output = out.attn.context_vecs[0].row(0);
        step.query = out.attn.queries[0].row(0);
        step.concat = out.attn.concat[0].row(0);
        for (const AttentionResult& head : out.attn.heads[0]) {
            step.attn_weights.push_back(head.weights.row(0));
        }
        step.cache_tokens = cache.tokens;
        step.cache_bytes = cache.bytes();
        return step;
    };
    decode_tokens(x, config, cache, decode, trace);
    trace.weights = detail::collect_weights(refs);
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
    c.max_tokens = kStepperMaxTokens;
    c.cache_snapshots = true;
    c.full_pass = KvFullPass::Fast;
    if (run.config.module == ModuleKind::MultiHeadAttention) {
        c.d_out = run.config.d_out;
        c.num_heads = run.config.num_heads;
        c.qkv_bias = run.config.qkv_bias;
        c.num_kv_heads = run.config.num_kv_heads;
        c.rope = run.config.rope;
        c.rope_base = run.config.rope_base;
        if ((c.num_kv_heads != 0 && c.num_kv_heads != c.num_heads) || c.rope) {
            c.full_pass = KvFullPass::Forward;  // the fast path is the seed's module only
        }
        c.weights = run.weights;
        return c;
    }
    c.d_out = d_in;
    const Eigen::Index h = std::max<Eigen::Index>(run.config.num_heads, 1);
    c.num_heads = d_in % h == 0 ? h : 1;
    return c;
}

KvTrace build_kv_trace(const Sequence& inputs, const KvTraceConfig& config) {
    if (!module_info(config.module).decodes_with_kv_cache) {
        fail_not_decoder(module_name(config.module));
    }
    check_not_empty(inputs.embeddings, "embeddings");
    check_finite(inputs.embeddings, "embeddings");
    KvTrace trace;
    trace.d_in = inputs.embeddings.cols();
    trace.d_out = config.d_out == 0 ? trace.d_in : config.d_out;
    if (config.module == ModuleKind::Gpt2Attention &&
        (config.num_kv_heads != 0 || config.rope || config.rope_base != 10000.0f)) {
        std::ostringstream msg;
        msg << (config.num_kv_heads != 0 ? "num_kv_heads" : "rope") << " does not apply to "
            << module_name(config.module) << ": only "
            << module_name(ModuleKind::MultiHeadAttention)
            << " has K/V head sharing and RoPE; leave it unset";
        throw AttentionError(msg.str());
    }
    if (config.module == ModuleKind::Gpt2Attention && trace.d_out != trace.d_in) {
        std::ostringstream msg;
        msg << "d_out = " << config.d_out << " does not apply to " << module_name(config.module)
            << ": its output width is nx = d_in = " << trace.d_in << "; leave d_out at 0";
        throw AttentionError(msg.str());
    }
    check_heads_divide(trace.d_out, config.num_heads, "d_out");
    trace.truncated = config.max_tokens > 0 && inputs.embeddings.rows() > config.max_tokens;
    const Eigen::Index tokens = trace.truncated ? config.max_tokens : inputs.embeddings.rows();
    const Matrix x = inputs.embeddings.topRows(tokens);
    if (config.module == ModuleKind::Gpt2Attention) {
        decode_gpt2_attention(x, config, trace);
    } else {
        decode_multi_head_attention(x, config, trace);
    }
    return trace;
}

ModuleKind decoder_kind_from_name(std::string_view name) {
    const std::optional<ModuleKind> kind = find_module_kind(name);
    if (!kind || !module_info(*kind).decodes_with_kv_cache) {
        fail_not_decoder(name);
    }
    return *kind;
}

KvTrace run_decode(const DecodeConfig& config, const Sequence& inputs) {
    if (!module_info(config.module).decodes_with_kv_cache) {
        fail_not_decoder(module_name(config.module));
    }
    detail::check_sequence(inputs, "embeddings");
    const Eigen::Index d_model = inputs.embeddings.cols();
    const Eigen::Index tokens = inputs.embeddings.rows();
    detail::check_size(d_model, kMaxWidth, "d_model");
    check_heads_divide(d_model, config.num_heads, "d_model");
    ModuleConfig full_pass_config;
    full_pass_config.module = config.module;
    full_pass_config.num_heads = config.num_heads;
    const std::size_t bytes = intermediate_bytes(full_pass_config, tokens, tokens);
    if (bytes > kMaxIntermediateBytes) {
        std::ostringstream msg;
        msg << "the full pass over " << tokens << " tokens would need about " << (bytes >> 20)
            << " MiB for its displayed intermediates; the limit is "
            << (kMaxIntermediateBytes >> 20) << " MiB: decode fewer tokens or use fewer heads";
        throw AttentionError(msg.str());
    }
    KvTraceConfig decoder;
    decoder.module = config.module;
    decoder.num_heads = config.num_heads;
    decoder.seed = config.seed;
    decoder.num_kv_heads = config.num_kv_heads;
    decoder.rope = config.rope;
    decoder.rope_base = config.rope_base;
    return build_kv_trace(inputs, decoder);
}

}  // namespace attn
