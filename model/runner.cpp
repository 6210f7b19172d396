#include "runner.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <utility>

#include "fast_attention.h"

namespace attn {

namespace {

constexpr float kBertFill = -1e9f;  // seed 000's masked_fill(mask == 0, -1e9)
constexpr float kGpt2Fill = -1e4f;  // GPT-2's masked_bias

const std::vector<ModuleInfo> kModules = {
    // name, description, d_out, num_heads, dropout, context_length, qkv_bias, source,
    // causal switch, causal by default, scale, mask convention, fill, default fill
    {"self-attention-v1", "SelfAttention_v1 (seed 002): parameters from torch.rand(d_in, d_out)",
     true, false, false, false, false, false, false, false, true, false, false, kNegInf},
    {"self-attention-v2", "SelfAttention v2 (seed 002): nn.Linear projections", true, false, false,
     false, true, false, true, false, true, false, true, kNegInf},
    {"causal-attention", "CausalAttention (seed 002): causal mask and dropout", true, false, true,
     true, true, false, true, true, true, false, true, kNegInf},
    {"multi-head-wrapper",
     "MultiHeadAttentionWrapper (seed 002): num_heads CausalAttention heads, d_out each", true,
     true, true, true, true, false, true, true, true, false, true, kNegInf},
    {"multi-head-attention",
     "MultiHeadAttention (seed 002): one projection split into heads, out_proj", true, true, true,
     true, true, false, true, true, true, false, true, kNegInf},
    {"bert-multi-head", "BERT-style MultiHeadedAttention (seed 000), d_model = d_in", false, true,
     true, false, false, false, true, false, true, true, true, kBertFill},
    {"gpt2-attention", "GPT-2 Attention (seed 001): fused c_attn, causal, nx = d_in", false, true,
     true, true, false, false, false, true, true, false, true, kGpt2Fill},
    {"cross-attention",
     "BERT-style MultiHeadedAttention with queries from the inputs, keys and values from a "
     "source sequence",
     false, true, true, false, false, true, true, false, true, true, true, kBertFill},
};

std::string joined_names() {
    std::string out;
    for (const ModuleInfo& info : kModules) {
        out += (out.empty() ? "" : ", ");
        out += info.name;
    }
    return out;
}

[[noreturn]] void fail(const std::ostringstream& msg) { throw AttentionError(msg.str()); }

// A parameter of a built module, reachable by its state_dict name.
struct ParamRef {
    std::string name;
    Matrix* matrix = nullptr;     // a 2-D parameter
    RowVector* vector = nullptr;  // a 1-D parameter (bias)
    std::string layout;           // how its shape reads, for the error message
};

void add_linear(std::vector<ParamRef>& refs, const std::string& prefix, Linear& layer) {
    refs.push_back({prefix + ".weight", &layer.weight, nullptr,
                    "(out_features, in_features), nn.Linear's layout: y = x · weightᵀ"});
    if (layer.bias.size() > 0) {
        refs.push_back({prefix + ".bias", nullptr, &layer.bias, "(out_features)"});
    }
}

void add_conv1d(std::vector<ParamRef>& refs, const std::string& prefix, Conv1D& layer) {
    refs.push_back({prefix + ".weight", &layer.weight, nullptr,
                    "(nx, nf), GPT-2's Conv1D layout: y = x · weight"});
    refs.push_back({prefix + ".bias", nullptr, &layer.bias, "(nf)"});
}

std::string shape_text(Eigen::Index rows, Eigen::Index cols) {
    return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

// Replaces drawn parameters by the given ones, after checking names, shapes and values.
void apply_weights(const std::vector<ParamRef>& refs, const std::vector<NamedMatrix>& weights,
                   const ModuleConfig& config) {
    std::set<std::string> seen;
    for (const NamedMatrix& given : weights) {
        if (!seen.insert(given.name).second) {
            std::ostringstream msg;
            msg << "weight \"" << given.name << "\" is given twice: keep one of them";
            fail(msg);
        }
        const auto it = std::find_if(refs.begin(), refs.end(),
                                     [&](const ParamRef& r) { return r.name == given.name; });
        if (it == refs.end()) {
            std::ostringstream msg;
            msg << config.module << " has no parameter \"" << given.name << "\"";
            const bool is_bias =
                given.name.size() > 5 && given.name.compare(given.name.size() - 5, 5, ".bias") == 0;
            if (is_bias && !config.qkv_bias && module_info(config.module).uses_qkv_bias) {
                msg << " (qkv_bias is off; turn it on to give biases)";
            }
            msg << "; its parameters are:";
            for (const ParamRef& r : refs) {
                msg << " " << r.name;
            }
            fail(msg);
        }
        const std::string label = "weight \"" + given.name + "\"";
        check_finite(given.value, label);
        if (it->matrix != nullptr) {
            if (given.value.rows() != it->matrix->rows() ||
                given.value.cols() != it->matrix->cols()) {
                std::ostringstream msg;
                msg << label << " is " << shape_text(given.value.rows(), given.value.cols())
                    << " but " << config.module << " needs "
                    << shape_text(it->matrix->rows(), it->matrix->cols()) << ", " << it->layout
                    << ": check d_in, d_out and num_heads, or transpose the matrix";
                fail(msg);
            }
            *it->matrix = given.value;
        } else {
            if (given.value.rows() != 1 || given.value.cols() != it->vector->cols()) {
                std::ostringstream msg;
                msg << label << " is " << shape_text(given.value.rows(), given.value.cols())
                    << " but " << config.module << " needs a vector of " << it->vector->cols()
                    << " numbers " << it->layout;
                fail(msg);
            }
            *it->vector = given.value.row(0);
        }
    }
}

std::vector<NamedMatrix> collect_weights(const std::vector<ParamRef>& refs) {
    std::vector<NamedMatrix> out;
    out.reserve(refs.size());
    for (const ParamRef& r : refs) {
        if (r.matrix != nullptr) {
            out.push_back({r.name, *r.matrix, false});
        } else {
            out.push_back({r.name, Matrix(*r.vector), true});
        }
    }
    return out;
}

// Appends one batch item's output of a module that only takes a single sequence (v1, v2).
void append_output(ModuleOutput& into, ModuleOutput&& part) {
    auto move_all = [](Batch& to, Batch& from) {
        for (Matrix& m : from) {
            to.push_back(std::move(m));
        }
    };
    move_all(into.context_vecs, part.context_vecs);
    move_all(into.queries, part.queries);
    move_all(into.keys, part.keys);
    move_all(into.values, part.values);
    move_all(into.concat, part.concat);
    for (std::vector<AttentionResult>& h : part.heads) {
        into.heads.push_back(std::move(h));
    }
}

void check_sequence(const Sequence& s, std::string_view name) {
    check_not_empty(s.embeddings, name);
    if (s.embeddings.cols() < 1) {
        std::ostringstream msg;
        msg << name << " have no values per token: give every token at least one number";
        fail(msg);
    }
    if (!s.tokens.empty() && static_cast<Eigen::Index>(s.tokens.size()) != s.embeddings.rows()) {
        std::ostringstream msg;
        msg << name << " have " << s.embeddings.rows() << " rows but there are " << s.tokens.size()
            << " tokens: give one row per token";
        fail(msg);
    }
    check_finite(s.embeddings, name);
}

void check_size(Eigen::Index value, Eigen::Index max, std::string_view name) {
    if (value < 1 || value > max) {
        std::ostringstream msg;
        msg << name << " = " << value << " is outside 1.." << max << ": give " << name
            << " between 1 and " << max;
        fail(msg);
    }
}

std::string_view no_bias_reason(std::string_view module) {
    if (module == "self-attention-v1") {
        return "its parameters come from torch.rand and have no bias";
    }
    if (module == "gpt2-attention") {
        return "GPT-2's Conv1D layers always have a bias";
    }
    return "its Linear layers always have a bias";
}

}  // namespace

const std::vector<ModuleInfo>& module_infos() { return kModules; }

std::vector<std::string> module_names() {
    std::vector<std::string> names;
    for (const ModuleInfo& info : kModules) {
        names.emplace_back(info.name);
    }
    return names;
}

const ModuleInfo& module_info(std::string_view name) {
    for (const ModuleInfo& info : kModules) {
        if (info.name == name) {
            return info;
        }
    }
    std::ostringstream msg;
    if (name.empty()) {
        msg << "no module given: choose one of " << joined_names();
    } else {
        msg << "unknown module \"" << name << "\": choose one of " << joined_names();
    }
    fail(msg);
}

ModuleConfig resolve_config(const ModuleConfig& config, Eigen::Index d_in, Eigen::Index tokens,
                            Eigen::Index source_tokens, bool output_only) {
    const ModuleInfo& info = module_info(config.module);
    ModuleConfig out = config;
    check_size(d_in, kMaxWidth, "d_in");
    check_size(config.batch, kMaxBatch, "batch");
    if (tokens < 1) {
        std::ostringstream msg;
        msg << "the sequence has no tokens: give at least one token";
        fail(msg);
    }

    // d_out: the projection width, or d_model = d_in for the modules without one.
    if (info.uses_d_out) {
        out.d_out = config.d_out == 0 ? 2 : config.d_out;
        check_size(out.d_out, kMaxWidth, "d_out");
    } else {
        if (config.d_out != 0 && config.d_out != d_in) {
            std::ostringstream msg;
            msg << "d_out = " << config.d_out << " does not apply to " << info.name
                << ": its output width is d_model = d_in = " << d_in
                << " (the embedding width); leave d_out unset";
            fail(msg);
        }
        out.d_out = d_in;
    }

    // num_heads
    if (info.uses_num_heads) {
        if (info.name == "multi-head-wrapper") {
            out.num_heads = config.num_heads == 0 ? 2 : config.num_heads;
            check_size(out.num_heads, kMaxWidth, "num_heads");
            if (out.num_heads * out.d_out > kMaxWidth) {
                std::ostringstream msg;
                msg << "num_heads × d_out = " << out.num_heads * out.d_out << " exceeds "
                    << kMaxWidth << ": use fewer or narrower heads";
                fail(msg);
            }
        } else {
            const std::string_view width_name =
                info.name == "multi-head-attention" ? "d_out" : "d_model";
            if (config.num_heads == 0) {
                // The tutorial's 2 heads, unless they do not divide the width (the 3-d example).
                out.num_heads = out.d_out % 2 == 0 ? 2 : 1;
            }
            check_heads_divide(out.d_out, out.num_heads, width_name);
        }
    } else {
        if (config.num_heads != 0 && config.num_heads != 1) {
            std::ostringstream msg;
            msg << info.name << " has a single head: num_heads = " << config.num_heads
                << " does not apply; choose multi-head-attention or multi-head-wrapper for "
                   "several heads";
            fail(msg);
        }
        out.num_heads = 1;
    }

    // context_length: the size of the causal mask buffer.
    if (info.uses_context_length) {
        if (config.context_length < 0) {
            std::ostringstream msg;
            msg << "context_length = " << config.context_length
                << " is negative: give 0 (the sequence length) or at least " << tokens;
            fail(msg);
        }
        out.context_length = config.context_length == 0 ? tokens : config.context_length;
        if (tokens > out.context_length) {
            std::ostringstream msg;
            msg << "the sequence has " << tokens
                << " tokens but context_length = " << out.context_length
                << ": give context_length >= " << tokens << " or at most " << out.context_length
                << " tokens";
            fail(msg);
        }
    } else {
        if (config.context_length != 0) {
            std::ostringstream msg;
            msg << "context_length = " << config.context_length << " does not apply to "
                << info.name << ": it has no causal mask; leave context_length unset";
            fail(msg);
        }
    }

    check_dropout_p(config.dropout);
    if (!info.uses_dropout && config.dropout != 0.0f) {
        std::ostringstream msg;
        msg << info.name << " has no dropout layer: dropout = " << config.dropout
            << " does not apply; choose causal-attention or a multi-head module for dropout";
        fail(msg);
    }

    if (!info.uses_qkv_bias && config.qkv_bias) {
        std::ostringstream msg;
        msg << "qkv_bias does not apply to " << info.name << ": " << no_bias_reason(info.name);
        fail(msg);
    }

    // #4's switches: a module without the switch keeps what its seed does.
    if (config.causal.has_value() && *config.causal != info.causal_by_default &&
        !info.uses_causal) {
        std::ostringstream msg;
        if (info.causal_by_default) {
            msg << "causal = off does not apply to " << info.name
                << ": its causal mask is part of the module; choose self-attention-v2 or "
                   "bert-multi-head for attention without one";
        } else {
            msg << "causal = on does not apply to " << info.name
                << ": it has no mask; choose self-attention-v2 for an optional causal mask";
        }
        fail(msg);
    }
    out.causal = config.causal.value_or(info.causal_by_default);
    if (!info.uses_mask_convention && config.mask_convention != MaskConvention::FillWhereZero) {
        std::ostringstream msg;
        msg << "mask convention \"mask == 1\" does not apply to " << info.name
            << ": only the BERT-style modules (bert-multi-head, cross-attention) take a mask "
               "tensor; leave the convention at \"mask == 0\"";
        fail(msg);
    }
    if (config.fill_value.has_value()) {
        if (!info.uses_fill) {
            std::ostringstream msg;
            msg << "fill value does not apply to " << info.name
                << ": it has no mask; leave the fill value unset";
            fail(msg);
        }
        if (std::isnan(*config.fill_value)) {
            std::ostringstream msg;
            msg << "fill value is NaN: give -inf, -1e9 or -1e4";
            fail(msg);
        }
    }
    if (info.uses_fill) {
        out.fill_value = config.fill_value.value_or(info.default_fill);
    }

    if (info.uses_source && source_tokens < 1) {
        std::ostringstream msg;
        msg << "the source sequence has no tokens: cross-attention needs at least one source "
               "token for keys and values";
        fail(msg);
    }

    const std::size_t bytes = intermediate_bytes(out, tokens, source_tokens);
    if (bytes > kMaxIntermediateBytes && !(output_only && has_fast_path(out))) {
        std::ostringstream msg;
        msg << "this run would need about " << (bytes >> 20) << " MiB for its displayed "
            << "intermediates (" << out.batch << " × " << out.num_heads << " heads × " << tokens
            << " × " << (info.uses_source ? source_tokens : tokens)
            << " attention matrices); the limit is " << (kMaxIntermediateBytes >> 20)
            << " MiB: use fewer tokens, heads or batch copies";
        fail(msg);
    }
    return out;
}

std::size_t intermediate_bytes(const ModuleConfig& resolved, Eigen::Index tokens,
                               Eigen::Index source_tokens) {
    const bool cross = module_info(resolved.module).uses_source;
    const double t_k = static_cast<double>(cross ? source_tokens : tokens);
    // scores, scaled, masked, weights and dropped as floats, blocked and kept as bools, per cell.
    const double per_cell = 5.0 * 4.0 + 2.0;
    const double cells = static_cast<double>(resolved.batch) *
                         static_cast<double>(std::max<Eigen::Index>(resolved.num_heads, 1)) *
                         static_cast<double>(tokens) * t_k;
    const double bytes = cells * per_cell;
    // Saturate: a product beyond size_t only needs to compare as "too large".
    return bytes >= 1e18 ? static_cast<std::size_t>(1e18) : static_cast<std::size_t>(bytes);
}

bool has_fast_path(const ModuleConfig& config) {
    // The fast path is the seed's module: causal with a -inf fill and scaled.
    return config.module == "multi-head-attention" && config.dropout == 0.0f &&
           config.causal.value_or(true) && config.scale &&
           config.fill_value.value_or(kNegInf) == kNegInf;
}

RunResult run_module(const ModuleConfig& config, const Sequence& inputs, const Sequence* source,
                     bool output_only) {
    const ModuleInfo& info = module_info(config.module);
    check_sequence(inputs, "embeddings");
    Sequence default_source;
    if (info.uses_source) {
        if (source == nullptr) {
            default_source = cross_attention_source();
            source = &default_source;
        }
        check_sequence(*source, "source embeddings");
        if (source->embeddings.cols() != inputs.embeddings.cols()) {
            std::ostringstream msg;
            msg << "source embeddings have " << source->embeddings.cols()
                << " values per token but embeddings have " << inputs.embeddings.cols()
                << ": cross-attention projects both with Linear(d_model, d_model), so give both "
                   "sequences the same width";
            fail(msg);
        }
    } else if (source != nullptr) {
        std::ostringstream msg;
        msg << "a source sequence applies only to cross-attention, not to " << info.name
            << ": remove the source or choose cross-attention";
        fail(msg);
    }

    const Eigen::Index d_in = inputs.embeddings.cols();
    const Eigen::Index tokens = inputs.embeddings.rows();
    const Eigen::Index source_tokens = source != nullptr ? source->embeddings.rows() : tokens;

    RunResult result;
    result.config = resolve_config(config, d_in, tokens, source_tokens, output_only);
    const ModuleConfig& c = result.config;
    result.training = c.dropout > 0.0f;

    TorchGenerator gen(c.seed);
    ForwardOptions options;
    options.training = result.training;
    options.gen = &gen;
    options.causal = c.causal.value_or(info.causal_by_default);
    options.scale = c.scale;
    options.causal_fill = c.fill_value.value_or(info.default_fill);
    // The attention options of the single-sequence modules (v1, v2), which take no ForwardOptions.
    auto single_options = [&] {
        AttentionOptions single;
        single.scale = c.scale;
        if (options.causal) {
            single.blocked = causal_mask(tokens, tokens);
            single.fill_value = options.causal_fill;
        }
        return single;
    };
    const Batch x = stack_copies(inputs.embeddings, static_cast<int>(c.batch));
    std::vector<ParamRef> refs;
    const std::string_view name = info.name;

    if (name == "self-attention-v1") {
        SelfAttentionV1 m(d_in, c.d_out, gen);
        refs = {{"W_query", &m.W_query, nullptr, "(d_in, d_out): queries = x · W_query"},
                {"W_key", &m.W_key, nullptr, "(d_in, d_out): keys = x · W_key"},
                {"W_value", &m.W_value, nullptr, "(d_in, d_out): values = x · W_value"}};
        apply_weights(refs, c.weights, c);
        const AttentionOptions single = single_options();
        for (const Matrix& item : x) {
            append_output(result.output, m.forward(item, single));
        }
        result.weights = collect_weights(refs);  // refs point into m: collect while it lives
    } else if (name == "self-attention-v2") {
        SelfAttentionV2 m(d_in, c.d_out, gen, c.qkv_bias);
        add_linear(refs, "W_query", m.W_query);
        add_linear(refs, "W_key", m.W_key);
        add_linear(refs, "W_value", m.W_value);
        apply_weights(refs, c.weights, c);
        const AttentionOptions single = single_options();
        for (const Matrix& item : x) {
            append_output(result.output, m.forward(item, single));
        }
        result.weights = collect_weights(refs);  // refs point into m: collect while it lives
    } else if (name == "causal-attention") {
        CausalAttention m(d_in, c.d_out, c.context_length, c.dropout, gen, c.qkv_bias);
        add_linear(refs, "W_query", m.W_query);
        add_linear(refs, "W_key", m.W_key);
        add_linear(refs, "W_value", m.W_value);
        apply_weights(refs, c.weights, c);
        result.output = m.forward(x, options);
        result.weights = collect_weights(refs);
    } else if (name == "multi-head-wrapper") {
        MultiHeadAttentionWrapper m(d_in, c.d_out, c.context_length, c.dropout, c.num_heads, gen,
                                    c.qkv_bias);
        for (std::size_t h = 0; h < m.heads.size(); ++h) {
            const std::string prefix = "heads." + std::to_string(h) + ".";
            add_linear(refs, prefix + "W_query", m.heads[h].W_query);
            add_linear(refs, prefix + "W_key", m.heads[h].W_key);
            add_linear(refs, prefix + "W_value", m.heads[h].W_value);
        }
        apply_weights(refs, c.weights, c);
        result.output = m.forward(x, options);
        result.weights = collect_weights(refs);
    } else if (name == "multi-head-attention") {
        MultiHeadAttention m(d_in, c.d_out, c.context_length, c.dropout, c.num_heads, gen,
                             c.qkv_bias);
        add_linear(refs, "W_query", m.W_query);
        add_linear(refs, "W_key", m.W_key);
        add_linear(refs, "W_value", m.W_value);
        add_linear(refs, "out_proj", m.out_proj);
        apply_weights(refs, c.weights, c);
        if (output_only && has_fast_path(c)) {
            // No (T, T) matrix per head: the fast path, equal to forward() within 1e-5 (#6).
            const FastAttentionWeights fast(m);
            FastAttentionWorkspace workspace;
            for (const Matrix& item : x) {
                Matrix context_vecs;
                fast_causal_mha_forward(fast, item, workspace, context_vecs);
                result.output.context_vecs.push_back(std::move(context_vecs));
            }
        } else {
            result.output = m.forward(x, options);
        }
        result.weights = collect_weights(refs);
    } else if (name == "bert-multi-head" || name == "cross-attention") {
        BertMultiHeadedAttention m(c.num_heads, d_in, c.dropout, gen);
        for (std::size_t i = 0; i < m.linears.size(); ++i) {
            add_linear(refs, "linears." + std::to_string(i), m.linears[i]);
        }
        apply_weights(refs, c.weights, c);
        const Eigen::Index t_k = info.uses_source ? source_tokens : tokens;
        // The seeds' subsequent_mask: 1 where query i may see key j (j <= i), 0 for the future.
        Matrix mask = Matrix::Zero(tokens, t_k);
        for (Eigen::Index i = 0; i < tokens; ++i) {
            mask.row(i).head(std::min(i + 1, t_k)).setOnes();
        }
        const Matrix* mask_ptr = options.causal ? &mask : nullptr;
        if (info.uses_source) {
            const Batch src = stack_copies(source->embeddings, static_cast<int>(c.batch));
            result.output =
                m.forward(x, src, src, mask_ptr, c.mask_convention, options.causal_fill, options);
        } else {
            result.output =
                m.forward(x, x, x, mask_ptr, c.mask_convention, options.causal_fill, options);
        }
        result.weights = collect_weights(refs);
    } else if (name == "gpt2-attention") {
        Gpt2Attention m(d_in, c.context_length, c.num_heads, c.scale,
                        /*is_cross_attention=*/false, gen, c.dropout);
        m.masked_bias = options.causal_fill;
        add_conv1d(refs, "c_attn", m.c_attn);
        add_conv1d(refs, "c_proj", m.c_proj);
        apply_weights(refs, c.weights, c);
        Gpt2Attention::Input in;
        in.hidden_states = x;
        result.output = m.forward(in, options).attn;
        result.weights = collect_weights(refs);
    } else {
        std::ostringstream msg;
        msg << "module \"" << name << "\" is listed but not wired into run_module: report a bug";
        fail(msg);
    }
    return result;
}

Sequence random_sequence(Eigen::Index tokens, Eigen::Index d_in, std::uint64_t seed) {
    check_size(tokens, Eigen::Index{1} << 20, "tokens");
    check_size(d_in, kMaxWidth, "d_in");
    TorchGenerator gen(seed);
    Sequence s;
    s.embeddings = gen.rand(tokens, d_in);
    s.tokens.reserve(static_cast<std::size_t>(tokens));
    for (Eigen::Index t = 0; t < tokens; ++t) {
        s.tokens.push_back("t" + std::to_string(t + 1));
    }
    return s;
}

DecodeRun run_decode(const DecodeConfig& config, const Sequence& inputs) {
    if (config.module != "multi-head-attention" && config.module != "gpt2-attention") {
        std::ostringstream msg;
        msg << "decoding with a KV cache is available for multi-head-attention and "
               "gpt2-attention, not \""
            << config.module << "\": choose one of these two";
        fail(msg);
    }
    check_sequence(inputs, "embeddings");
    const Eigen::Index d_model = inputs.embeddings.cols();
    const Eigen::Index tokens = inputs.embeddings.rows();
    check_size(d_model, kMaxWidth, "d_model");
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
        fail(msg);
    }

    DecodeRun run;
    TorchGenerator gen(config.seed);
    std::vector<ParamRef> refs;
    if (config.module == "multi-head-attention") {
        MultiHeadAttention m(d_model, d_model, tokens, 0.0f, config.num_heads, gen);
        add_linear(refs, "W_query", m.W_query);
        add_linear(refs, "W_key", m.W_key);
        add_linear(refs, "W_value", m.W_value);
        add_linear(refs, "out_proj", m.out_proj);
        KVCache cache = m.make_cache(tokens);
        for (Eigen::Index t = 0; t < tokens; ++t) {
            run.steps.push_back(m.decode_step(inputs.embeddings.middleRows(t, 1), cache));
        }
        run.full_pass = m.forward(Batch{inputs.embeddings}).context_vecs[0];
        run.weights = collect_weights(refs);  // refs point into m: collect while it lives
    } else {
        Gpt2Attention m(d_model, tokens, config.num_heads, /*scale=*/true,
                        /*is_cross_attention=*/false, gen);
        add_conv1d(refs, "c_attn", m.c_attn);
        add_conv1d(refs, "c_proj", m.c_proj);
        KVCache cache;
        for (Eigen::Index t = 0; t < tokens; ++t) {
            // layer_past / present as GPT-2's generate() feeds them back, one token per call.
            Gpt2Attention::Input in;
            in.hidden_states = Batch{inputs.embeddings.middleRows(t, 1)};
            in.layer_past = t > 0 ? &cache : nullptr;
            in.use_cache = true;
            Gpt2Attention::Output out = m.forward(in);
            cache = std::move(out.present);
            DecodeStep step;
            step.output = out.attn.context_vecs[0].row(0);
            for (const AttentionResult& head : out.attn.heads[0]) {
                step.attn_weights.push_back(head.weights.row(0));
            }
            step.cache_tokens = cache.tokens;
            step.cache_bytes = cache.bytes();
            run.steps.push_back(std::move(step));
        }
        Gpt2Attention::Input in;
        in.hidden_states = Batch{inputs.embeddings};
        run.full_pass = m.forward(in).attn.context_vecs[0];
        run.weights = collect_weights(refs);
    }
    for (Eigen::Index t = 0; t < tokens; ++t) {
        const RowVector& row = run.steps[static_cast<std::size_t>(t)].output;
        const float diff = (row - run.full_pass.row(t)).cwiseAbs().maxCoeff();
        run.max_abs_diff = std::max(run.max_abs_diff, diff);
    }
    return run;
}

}  // namespace attn
