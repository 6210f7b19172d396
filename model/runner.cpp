#include "runner.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "module_checks.h"
#include "module_table.h"

namespace attn {

namespace detail {

void fail(const std::ostringstream& msg) { throw AttentionError(msg.str()); }

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

}  // namespace detail

using detail::check_sequence;
using detail::check_size;
using detail::fail;

namespace {

// d_in, the batch and the token count, which every module needs.
void check_sizes(const ModuleConfig& config, Eigen::Index d_in, Eigen::Index tokens) {
    check_size(d_in, kMaxWidth, "d_in");
    check_size(config.batch, kMaxBatch, "batch");
    if (tokens < 1) {
        std::ostringstream msg;
        msg << "the sequence has no tokens: give at least one token";
        fail(msg);
    }
}

// Seed 003's dim_k and dim_v (default d_in); the output width d_out is dim_v.
void resolve_key_value_widths(const ModuleInfo& info, const ModuleConfig& config, Eigen::Index d_in,
                              ModuleConfig& out) {
    if (info.uses_dim_kv) {
        out.dim_k = config.dim_k == 0 ? d_in : config.dim_k;
        out.dim_v = config.dim_v == 0 ? d_in : config.dim_v;
        check_size(out.dim_k, kMaxWidth, "dim_k");
        check_size(out.dim_v, kMaxWidth, "dim_v");
        if (config.d_out != 0 && config.d_out != out.dim_v) {
            std::ostringstream msg;
            msg << "d_out = " << config.d_out << " does not apply to " << info.name
                << ": its output width is dim_v = " << out.dim_v
                << "; set dim_v (and dim_k for queries and keys) instead of d_out";
            fail(msg);
        }
    } else if (config.dim_k != 0 || config.dim_v != 0) {
        std::ostringstream msg;
        msg << (config.dim_k != 0 ? "dim_k = " : "dim_v = ")
            << (config.dim_k != 0 ? config.dim_k : config.dim_v) << " does not apply to "
            << info.name << ": only " << module_name(ModuleKind::SelfAttentionKV) << " and "
            << module_name(ModuleKind::MultiHeadSelfAttentionKV)
            << " (seed 003) have separate key and value widths; leave dim_k and dim_v unset";
        fail(msg);
    }
}

// d_out: the projection width, or d_model = d_in for the modules without one.
void resolve_d_out(const ModuleInfo& info, const ModuleConfig& config, Eigen::Index d_in,
                   ModuleConfig& out) {
    if (info.uses_dim_kv) {
        out.d_out = out.dim_v;
    } else if (info.uses_d_out) {
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
}

// num_heads: 2 by default where the width allows it, 1 for the single-head modules.
void resolve_num_heads(const ModuleInfo& info, const ModuleConfig& config, ModuleConfig& out) {
    if (info.uses_num_heads) {
        if (info.heads_are_modules) {
            out.num_heads = config.num_heads == 0 ? 2 : config.num_heads;
            check_size(out.num_heads, kMaxWidth, "num_heads");
            if (out.num_heads * out.d_out > kMaxWidth) {
                std::ostringstream msg;
                msg << "num_heads × d_out = " << out.num_heads * out.d_out << " exceeds "
                    << kMaxWidth << ": use fewer or narrower heads";
                fail(msg);
            }
        } else if (info.uses_dim_kv) {
            // Seed 003: "dim_k and dim_v must be multiple of num_heads".
            if (config.num_heads == 0) {
                out.num_heads = out.dim_k % 2 == 0 && out.dim_v % 2 == 0 ? 2 : 1;
            }
            check_heads_divide(out.dim_k, out.num_heads, "dim_k");
            check_heads_divide(out.dim_v, out.num_heads, "dim_v");
        } else {
            const std::string_view width_name = info.uses_d_out ? "d_out" : "d_model";
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
                << " does not apply; choose " << module_name(ModuleKind::MultiHeadAttention)
                << " or " << module_name(ModuleKind::MultiHeadWrapper) << " for several heads";
            fail(msg);
        }
        out.num_heads = 1;
    }
}

// Seed 001's prune_heads and head_mask (gpt2-attention only), against the resolved num_heads.
void check_head_mask(const ModuleInfo& info, const ModuleConfig& config, const ModuleConfig& out) {
    if (info.uses_head_mask) {
        std::vector<Eigen::Index> sorted = config.prune_heads;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t i = 0; i < sorted.size(); ++i) {
            const Eigen::Index h = sorted[i];
            if (h < 0 || h >= out.num_heads) {
                std::ostringstream msg;
                msg << "prune_heads: head " << h << " does not exist; " << info.name
                    << " has heads 0.." << out.num_heads - 1 << " (num_heads = " << out.num_heads
                    << ")";
                fail(msg);
            }
            if (i > 0 && sorted[i - 1] == h) {
                std::ostringstream msg;
                msg << "prune_heads: head " << h << " is given twice; list each head once";
                fail(msg);
            }
        }
        const Eigen::Index remaining = out.num_heads - static_cast<Eigen::Index>(sorted.size());
        if (remaining < 1) {
            std::ostringstream msg;
            msg << "prune_heads would remove all " << out.num_heads
                << " heads: keep at least one head";
            fail(msg);
        }
        if (!config.head_mask.empty()) {
            if (static_cast<Eigen::Index>(config.head_mask.size()) != remaining) {
                std::ostringstream msg;
                msg << "head_mask has " << config.head_mask.size() << " values but it needs "
                    << remaining << ", one per head";
                if (!sorted.empty()) {
                    msg << " left after pruning " << sorted.size() << " of " << out.num_heads;
                }
                msg << " (1 keeps a head, 0 silences it)";
                fail(msg);
            }
            for (std::size_t i = 0; i < config.head_mask.size(); ++i) {
                const float f = config.head_mask[i];
                if (!std::isfinite(f) || f < 0.0f || f > 1.0f) {
                    std::ostringstream msg;
                    msg << "head_mask value " << i + 1 << " is " << f
                        << ": give a factor in [0, 1] per head (1 keeps a head, 0 silences it)";
                    fail(msg);
                }
            }
        }
    } else if (!config.head_mask.empty() || !config.prune_heads.empty()) {
        std::ostringstream msg;
        msg << (config.head_mask.empty() ? "prune_heads" : "head_mask") << " does not apply to "
            << info.name << ": only " << module_name(ModuleKind::Gpt2Attention)
            << " has head_mask and prune_heads (seed 001); leave them unset";
        fail(msg);
    }
}

// context_length: the size of the causal mask buffer.
void resolve_context_length(const ModuleInfo& info, const ModuleConfig& config, Eigen::Index tokens,
                            ModuleConfig& out) {
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
}

// dropout and qkv_bias: only the modules with the layer take them.
void check_dropout_and_bias(const ModuleInfo& info, const ModuleConfig& config) {
    check_dropout_p(config.dropout);
    if (!info.uses_dropout && config.dropout != 0.0f) {
        std::ostringstream msg;
        msg << info.name << " has no dropout layer: dropout = " << config.dropout
            << " does not apply; choose " << module_name(ModuleKind::CausalAttention)
            << " or a multi-head module for dropout";
        fail(msg);
    }

    if (!info.uses_qkv_bias && config.qkv_bias) {
        std::ostringstream msg;
        msg << "qkv_bias does not apply to " << info.name << ": " << info.no_bias_reason;
        fail(msg);
    }
}

// Explore mode's switches (causal, scale, mask convention, fill value): a module without the
// switch keeps what its seed does.
void resolve_switches(const ModuleInfo& info, const ModuleConfig& config, ModuleConfig& out) {
    if (config.causal.has_value() && *config.causal != info.causal_by_default &&
        !info.uses_causal) {
        std::ostringstream msg;
        if (info.causal_by_default) {
            msg << "causal = off does not apply to " << info.name
                << ": its causal mask is part of the module; choose "
                << module_name(ModuleKind::SelfAttentionV2) << " or "
                << module_name(ModuleKind::BertMultiHead) << " for attention without one";
        } else {
            msg << "causal = on does not apply to " << info.name << ": it has no mask; choose "
                << module_name(ModuleKind::SelfAttentionV2) << " for an optional causal mask";
        }
        fail(msg);
    }
    out.causal = config.causal.value_or(info.causal_by_default);
    if (!info.uses_scale && !config.scale) {
        std::ostringstream msg;
        msg << "scale = off does not apply to " << info.name
            << ": its seed fixes the 1/sqrt(d_k) factor; leave scale on";
        fail(msg);
    }
    if (!info.uses_mask_convention && config.mask_convention != MaskConvention::FillWhereZero) {
        std::ostringstream msg;
        msg << "mask convention \"mask == 1\" does not apply to " << info.name
            << ": only the BERT-style modules (" << module_name(ModuleKind::BertMultiHead) << ", "
            << module_name(ModuleKind::CrossAttention)
            << ") take a mask tensor; leave the convention at \"mask == 0\"";
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
}

// RoPE's base and position offset, and a head_dim even enough to rotate in pairs.
void check_rope(const ModuleConfig& config, const ModuleConfig& out) {
    if (!config.rope && (config.rope_base != 10000.0f || config.position_offset != 0)) {
        std::ostringstream msg;
        msg << (config.position_offset != 0 ? "position_offset" : "rope_base")
            << " applies only with rope: turn rope on or leave it unset";
        fail(msg);
    }
    if (config.rope) {
        if (!std::isfinite(config.rope_base) || config.rope_base <= 1.0f) {
            std::ostringstream msg;
            msg << "rope_base = " << config.rope_base
                << " gives no rotation frequencies: give a base > 1 (LLaMA uses 10000)";
            fail(msg);
        }
        if (config.position_offset < 0 || config.position_offset > (Eigen::Index{1} << 24)) {
            std::ostringstream msg;
            msg << "position_offset = " << config.position_offset
                << " is outside [0, 16777216]: positions are float32 integers";
            fail(msg);
        }
        const Eigen::Index head_dim = out.d_out / out.num_heads;
        if (head_dim % 2 != 0) {
            std::ostringstream msg;
            msg << "rope needs an even head_dim but d_out / num_heads = " << out.d_out << " / "
                << out.num_heads << " = " << head_dim
                << ": RoPE rotates coordinate pairs; choose d_out and num_heads so that "
                   "head_dim is even";
            fail(msg);
        }
    }
}

// The chapters' options of multi-head-attention: K/V heads, window and padding masks, RoPE.
void resolve_chapter_options(const ModuleInfo& info, const ModuleConfig& config,
                             Eigen::Index tokens, ModuleConfig& out) {
    if (info.uses_kv_heads_masks_rope) {
        out.num_kv_heads = config.num_kv_heads == 0 ? out.num_heads : config.num_kv_heads;
        if (out.num_kv_heads < 1 || out.num_heads % out.num_kv_heads != 0) {
            std::ostringstream msg;
            msg << "num_kv_heads = " << config.num_kv_heads
                << " does not divide num_heads = " << out.num_heads
                << ": give a divisor of num_heads (num_heads is multi-head attention, 1 is "
                   "multi-query)";
            fail(msg);
        }
        if (config.window < 0) {
            std::ostringstream msg;
            msg << "window = " << config.window << " sees no key: give a window of at least 1";
            fail(msg);
        }
        if (config.window > 0 && !out.causal.value_or(true)) {
            std::ostringstream msg;
            msg << "a window of " << config.window
                << " is a causal mask: choose the window mask or the bidirectional one, not both";
            fail(msg);
        }
        if (!config.lengths.empty()) {
            if (static_cast<Eigen::Index>(config.lengths.size()) != config.batch) {
                std::ostringstream msg;
                msg << config.lengths.size() << " lengths but batch = " << config.batch
                    << ": give one length per sequence (their count is the batch)";
                fail(msg);
            }
            for (const Eigen::Index length : config.lengths) {
                if (length < 0 || length > tokens) {
                    std::ostringstream msg;
                    msg << "length " << length << " is outside [0, " << tokens
                        << "]: each sequence has at most the input's " << tokens << " tokens";
                    fail(msg);
                }
            }
        }
        check_rope(config, out);
    } else if (config.num_kv_heads != 0 || config.window != 0 || !config.lengths.empty() ||
               config.rope || config.rope_base != 10000.0f || config.position_offset != 0) {
        std::ostringstream msg;
        msg << (config.num_kv_heads != 0       ? "num_kv_heads"
                : config.window != 0           ? "window"
                : !config.lengths.empty()      ? "lengths"
                : config.rope                  ? "rope"
                : config.rope_base != 10000.0f ? "rope_base"
                                               : "position_offset")
            << " does not apply to " << info.name << ": only "
            << module_name(ModuleKind::MultiHeadAttention)
            << " has K/V head sharing, window and padding masks and RoPE; leave it unset";
        fail(msg);
    }
}

// A source for cross-attention, and the displayed intermediates within the memory limit.
void check_source_and_memory(const ModuleInfo& info, const ModuleConfig& out, Eigen::Index tokens,
                             Eigen::Index source_tokens, bool output_only) {
    if (info.uses_source && source_tokens < 1) {
        std::ostringstream msg;
        msg << "the source sequence has no tokens: " << info.name
            << " needs at least one source token for keys and values";
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
}

}  // namespace

ModuleConfig resolve_config(const ModuleConfig& config, Eigen::Index d_in, Eigen::Index tokens,
                            Eigen::Index source_tokens, bool output_only) {
    const ModuleInfo& info = detail::module_entry(config).info;
    ModuleConfig out = config;
    check_sizes(config, d_in, tokens);
    resolve_key_value_widths(info, config, d_in, out);
    resolve_d_out(info, config, d_in, out);
    resolve_num_heads(info, config, out);
    check_head_mask(info, config, out);
    resolve_context_length(info, config, tokens, out);
    check_dropout_and_bias(info, config);
    resolve_switches(info, config, out);
    resolve_chapter_options(info, config, tokens, out);
    check_source_and_memory(info, out, tokens, source_tokens, output_only);
    return out;
}

std::size_t intermediate_bytes(const ModuleConfig& resolved, Eigen::Index tokens,
                               Eigen::Index source_tokens) {
    const bool cross = detail::module_entry(resolved).info.uses_source;
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
    return config.module.has_value() && module_info(*config.module).has_fast_path &&
           config.dropout == 0.0f && config.causal.value_or(true) && config.scale &&
           config.fill_value.value_or(kNegInf) == kNegInf &&
           (config.num_kv_heads == 0 || config.num_kv_heads == config.num_heads) &&
           config.window == 0 && config.lengths.empty() && !config.rope;
}

std::string_view mask_kind_name(const ModuleConfig& resolved) {
    if (!resolved.causal.value_or(true)) return "bidirectional";
    return resolved.window > 0 ? "window" : "causal";
}

RunResult run_module(const ModuleConfig& config, const Sequence& inputs, const Sequence* source,
                     bool output_only, int repeats) {
    if (repeats < 0 || repeats > kMaxRepeats) {
        std::ostringstream msg;
        msg << "repeats is " << repeats << ": give 0 to " << kMaxRepeats << " further timed passes";
        fail(msg);
    }
    const detail::ModuleEntry& entry = detail::module_entry(config);
    const ModuleInfo& info = entry.info;
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
                << " values per token but embeddings have " << inputs.embeddings.cols() << ": "
                << info.name
                << " projects both with Linear(d_model, d_model), so give both sequences the same "
                   "width";
            fail(msg);
        }
    } else if (source != nullptr) {
        std::ostringstream msg;
        const std::string_view cross = module_name(ModuleKind::CrossAttention);
        msg << "a source sequence applies only to " << cross << ", not to " << info.name
            << ": remove the source or choose " << cross;
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
    options.window = c.window;
    options.lengths = c.lengths;
    options.position_offset = c.position_offset;
    const Batch x = stack_copies(inputs.embeddings, static_cast<int>(c.batch));
    const detail::ModuleRun run{c, x, source, d_in, tokens, gen, options, output_only, repeats};
    entry.run(run, result);
    return result;
}

FusedProjections fused_projections(const RunResult& run) {
    const detail::ModuleEntry& entry = detail::module_entry(run.config);
    return entry.fused != nullptr ? entry.fused(run) : FusedProjections{};
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

}  // namespace attn
