// The table of modules: one row per ModuleKind with its name, what it takes, the function that
// builds and runs it and where its fused projections are. Each module's parameters by their
// state_dict names are listed once here, for run_module and for the KV decoder.
#include "module_table.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <sstream>
#include <utility>

#include "fast_attention.h"
#include "module_checks.h"

namespace attn {

namespace detail {

namespace {

constexpr float kBertFill = -1e9f;  // seed 000's masked_fill(mask == 0, -1e9)
constexpr float kGpt2Fill = -1e4f;  // GPT-2's masked_bias

std::string shape_text(Eigen::Index rows, Eigen::Index cols) {
    return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

void add_linear(std::vector<ParamRef>& refs, const std::string& prefix, Linear& layer) {
    refs.push_back({prefix + ".weight", &layer.weight, nullptr,
                    "(out_features, in_features), nn.Linear's layout: y = x · weightᵀ"});
    if (layer.bias.size() > 0) {
        refs.push_back({prefix + ".bias", nullptr, &layer.bias, "(out_features)"});
    }
}

// W_query, W_key, W_value as the tutorial's Linear modules name them, under `prefix`.
void add_qkv(std::vector<ParamRef>& refs, const std::string& prefix, Linear& query, Linear& key,
             Linear& value) {
    add_linear(refs, prefix + "W_query", query);
    add_linear(refs, prefix + "W_key", key);
    add_linear(refs, prefix + "W_value", value);
}

void add_conv1d(std::vector<ParamRef>& refs, const std::string& prefix, Conv1D& layer) {
    refs.push_back({prefix + ".weight", &layer.weight, nullptr,
                    "(nx, nf), GPT-2's Conv1D layout: y = x · weight"});
    refs.push_back({prefix + ".bias", nullptr, &layer.bias, "(nf)"});
}

}  // namespace

std::vector<ParamRef> params_of(SelfAttentionV1& m) {
    return {{"W_query", &m.W_query, nullptr, "(d_in, d_out): queries = x · W_query"},
            {"W_key", &m.W_key, nullptr, "(d_in, d_out): keys = x · W_key"},
            {"W_value", &m.W_value, nullptr, "(d_in, d_out): values = x · W_value"}};
}

std::vector<ParamRef> params_of(SelfAttentionV2& m) {
    std::vector<ParamRef> refs;
    add_qkv(refs, "", m.W_query, m.W_key, m.W_value);
    return refs;
}

std::vector<ParamRef> params_of(CausalAttention& m) {
    std::vector<ParamRef> refs;
    add_qkv(refs, "", m.W_query, m.W_key, m.W_value);
    return refs;
}

std::vector<ParamRef> params_of(MultiHeadAttentionWrapper& m) {
    std::vector<ParamRef> refs;
    for (std::size_t h = 0; h < m.heads.size(); ++h) {
        CausalAttention& head = m.heads[h];
        add_qkv(refs, "heads." + std::to_string(h) + ".", head.W_query, head.W_key, head.W_value);
    }
    return refs;
}

std::vector<ParamRef> params_of(BertMultiHeadedAttention& m) {
    std::vector<ParamRef> refs;
    for (std::size_t i = 0; i < m.linears.size(); ++i) {
        add_linear(refs, "linears." + std::to_string(i), m.linears[i]);
    }
    return refs;
}

std::vector<ParamRef> params_of(MultiHeadAttention& m) {
    std::vector<ParamRef> refs;
    add_qkv(refs, "", m.W_query, m.W_key, m.W_value);
    add_linear(refs, "out_proj", m.out_proj);
    return refs;
}

std::vector<ParamRef> params_of(Gpt2Attention& m) {
    std::vector<ParamRef> refs;
    add_conv1d(refs, "c_attn", m.c_attn);
    add_conv1d(refs, "c_proj", m.c_proj);
    return refs;
}

// Seed 003 names its layers linear_q, linear_k, linear_v (bias=False).
std::vector<ParamRef> params_of(SelfAttentionKV& m) {
    std::vector<ParamRef> refs;
    add_linear(refs, "linear_q", m.linear_q);
    add_linear(refs, "linear_k", m.linear_k);
    add_linear(refs, "linear_v", m.linear_v);
    return refs;
}

std::vector<ParamRef> params_of(MultiHeadSelfAttentionKV& m) {
    std::vector<ParamRef> refs;
    add_linear(refs, "linear_q", m.linear_q);
    add_linear(refs, "linear_k", m.linear_k);
    add_linear(refs, "linear_v", m.linear_v);
    return refs;
}

namespace {

const NamedMatrix* find_weight(const RunResult& r, const std::string& name) {
    for (const NamedMatrix& w : r.weights) {
        if (w.name == name) {
            return &w;
        }
    }
    return nullptr;
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

// Every run function ends the same way: the given weights replace the drawn ones, the module runs
// and its parameters are collected while it lives. `prepare` readies the weights for the pass
// (what a program does once per module, as PyTorch's prepared weights are); forward_ms times
// `forward` alone, and repeat_ms each of run.repeats further calls.
template <typename Module, typename Prepare, typename Forward>
void run_built(Module& m, const ModuleRun& run, RunResult& result, Prepare prepare,
               Forward forward) {
    const std::vector<ParamRef> refs = params_of(m);
    apply_weights(refs, run.config.weights, run.config);
    const auto prepared = prepare();
    const auto start = std::chrono::steady_clock::now();
    result.output = forward(prepared);
    const auto since = [](auto from) {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - from)
            .count();
    };
    result.forward_ms = since(start);
    for (int r = 0; r < run.repeats; ++r) {
        const auto again = std::chrono::steady_clock::now();
        [[maybe_unused]] const auto discarded = forward(prepared);
        result.repeat_ms.push_back(since(again));
    }
    result.weights = collect_weights(refs);
}

template <typename Module, typename Forward>
void run_built(Module& m, const ModuleRun& run, RunResult& result, Forward forward) {
    run_built(
        m, run, result, [] { return 0; }, [&](int) { return forward(); });
}

// v1 and v2 take one sequence and explore mode's switches as AttentionOptions: run each batch
// item on its own.
template <typename Module>
ModuleOutput per_item(const Module& m, const ModuleRun& run) {
    AttentionOptions single;
    single.scale = run.config.scale;
    if (run.options.causal) {
        // The tutorial's causal step on v2: masked_fill on the raw scores, then / sqrt(d_k).
        single.blocked = causal_mask(run.tokens, run.tokens);
        single.fill_value = run.options.causal_fill;
        single.fill_before_scale = true;
    }
    ModuleOutput out;
    for (const Matrix& item : run.x) {
        append_output(out, m.forward(item, single));
    }
    return out;
}

void run_self_attention_v1(const ModuleRun& run, RunResult& result) {
    SelfAttentionV1 m(run.d_in, run.config.d_out, run.gen);
    run_built(m, run, result, [&] { return per_item(m, run); });
}

void run_self_attention_v2(const ModuleRun& run, RunResult& result) {
    SelfAttentionV2 m(run.d_in, run.config.d_out, run.gen, run.config.qkv_bias);
    run_built(m, run, result, [&] { return per_item(m, run); });
}

void run_causal_attention(const ModuleRun& run, RunResult& result) {
    const ModuleConfig& c = run.config;
    CausalAttention m(run.d_in, c.d_out, c.context_length, c.dropout, run.gen, c.qkv_bias);
    run_built(m, run, result, [&] { return m.forward(run.x, run.options); });
}

void run_multi_head_wrapper(const ModuleRun& run, RunResult& result) {
    const ModuleConfig& c = run.config;
    MultiHeadAttentionWrapper m(run.d_in, c.d_out, c.context_length, c.dropout, c.num_heads,
                                run.gen, c.qkv_bias);
    run_built(m, run, result, [&] { return m.forward(run.x, run.options); });
}

void run_multi_head_attention(const ModuleRun& run, RunResult& result) {
    const ModuleConfig& c = run.config;
    MultiHeadAttention m(run.d_in, c.d_out, c.context_length, c.dropout, c.num_heads, run.gen,
                         c.qkv_bias, c.num_kv_heads);
    m.rope = c.rope;
    m.rope_base = c.rope_base;
    const bool fast_path = run.output_only && has_fast_path(c);
    const auto prepare = [&] {
        return fast_path ? FastAttentionWeights::packed(m) : FastAttentionWeights{};
    };
    // Kept across repeated passes, as a program that runs the layer again keeps its buffers.
    FastAttentionWorkspace workspace;
    run_built(m, run, result, prepare, [&](const FastAttentionWeights& fast) {
        if (!fast_path) {
            return m.forward(run.x, run.options);
        }
        // No (T, T) matrix per head: the fast path, equal to forward() within 1e-5.
        ModuleOutput out;
        for (const Matrix& item : run.x) {
            Matrix context_vecs;
            fast_causal_mha_forward(fast, item, workspace, context_vecs);
            out.context_vecs.push_back(std::move(context_vecs));
        }
        return out;
    });
}

// bert-multi-head attends over the inputs, cross-attention over run.source.
void run_bert_style(const ModuleRun& run, RunResult& result) {
    const ModuleConfig& c = run.config;
    BertMultiHeadedAttention m(c.num_heads, run.d_in, c.dropout, run.gen);
    run_built(m, run, result, [&] {
        const Eigen::Index t_k = run.source != nullptr ? run.source->embeddings.rows() : run.tokens;
        // The seeds' subsequent_mask: 1 where query i may see key j (j <= i), 0 for the future.
        Matrix mask = Matrix::Zero(run.tokens, t_k);
        for (Eigen::Index i = 0; i < run.tokens; ++i) {
            mask.row(i).head(std::min(i + 1, t_k)).setOnes();
        }
        const Matrix* mask_ptr = run.options.causal ? &mask : nullptr;
        if (run.source == nullptr) {
            return m.forward(run.x, run.x, run.x, mask_ptr, c.mask_convention,
                             run.options.causal_fill, run.options);
        }
        const Batch src = stack_copies(run.source->embeddings, static_cast<int>(c.batch));
        return m.forward(run.x, src, src, mask_ptr, c.mask_convention, run.options.causal_fill,
                         run.options);
    });
}

void run_gpt2_attention(const ModuleRun& run, RunResult& result) {
    const ModuleConfig& c = run.config;
    Gpt2Attention m(run.d_in, c.context_length, c.num_heads, c.scale,
                    /*is_cross_attention=*/false, run.gen, c.dropout);
    m.masked_bias = run.options.causal_fill;
    // As run_built, with PyTorch's prune_heads between the given weights and the forward pass:
    // the given weights have the unpruned shapes, the collected ones the pruned shapes. A weight
    // given in its pruned shape (as a saved run lists them) replaces the pruned one instead, as
    // load_state_dict into the pruned module would; no other shape of it is the same.
    const Eigen::Index pruned_width =
        run.d_in / c.num_heads * (c.num_heads - static_cast<Eigen::Index>(c.prune_heads.size()));
    const auto is_pruned_shape = [&](const NamedMatrix& w) {
        return !c.prune_heads.empty() &&
               ((w.name == "c_attn.weight" && w.value.rows() == run.d_in &&
                 w.value.cols() == 3 * pruned_width) ||
                (w.name == "c_attn.bias" && w.value.rows() == 1 &&
                 w.value.cols() == 3 * pruned_width) ||
                (w.name == "c_proj.weight" && w.value.rows() == pruned_width &&
                 w.value.cols() == run.d_in));
    };
    std::vector<NamedMatrix> before, after;
    for (const NamedMatrix& w : c.weights) {
        (is_pruned_shape(w) ? after : before).push_back(w);
    }
    apply_weights(params_of(m), before, c);
    if (!c.prune_heads.empty()) {
        m.prune_heads(std::set<Eigen::Index>(c.prune_heads.begin(), c.prune_heads.end()));
        // transformers' prune_conv1d_layer builds each pruned layer as a new Conv1D, whose
        // constructor draws normal_ (c_attn first, then c_proj) before copying the kept values:
        // the dropout masks come after those draws.
        const Eigen::Index width = m.split_size;
        (void)Conv1D::init(3 * width, run.d_in, run.gen);
        (void)Conv1D::init(run.d_in, width, run.gen);
        apply_weights(params_of(m), after, c);
    }
    RowVector head_mask;
    Gpt2Attention::Input in;
    in.hidden_states = run.x;
    if (!c.head_mask.empty()) {
        head_mask = Eigen::Map<const RowVector>(c.head_mask.data(),
                                                static_cast<Eigen::Index>(c.head_mask.size()));
        in.head_mask = &head_mask;
    }
    result.output = m.forward(in, run.options).attn;
    result.weights = collect_weights(params_of(m));
}

void run_self_attention_kv(const ModuleRun& run, RunResult& result) {
    const ModuleConfig& c = run.config;
    SelfAttentionKV m(run.d_in, c.dim_k, c.dim_v, run.gen);
    run_built(m, run, result, [&] { return m.forward(run.x); });
}

void run_multi_head_self_attention_kv(const ModuleRun& run, RunResult& result) {
    const ModuleConfig& c = run.config;
    MultiHeadSelfAttentionKV m(run.d_in, c.dim_k, c.dim_v, c.num_heads, run.gen);
    run_built(m, run, result, [&] { return m.forward(run.x); });
}

// nn.Linear stores (out, in) for y = x · weightᵀ: the query and out projections read as x · W
// are the transposed weights.
FusedProjections linear_fused(const RunResult& r, const std::string& query,
                              const std::string& out) {
    FusedProjections p;
    if (const NamedMatrix* w = find_weight(r, query)) {
        p.query = w->value.transpose();
        p.head_dim = p.query.cols() / std::max<Eigen::Index>(r.config.num_heads, 1);
    }
    if (const NamedMatrix* w = find_weight(r, out)) {
        p.out_proj = w->value.transpose();
    }
    return p;
}

FusedProjections multi_head_attention_fused(const RunResult& r) {
    return linear_fused(r, "W_query.weight", "out_proj.weight");
}

// Seed 003's multi-head module has no output projection: only the query side.
FusedProjections multi_head_self_attention_kv_fused(const RunResult& r) {
    return linear_fused(r, "linear_q.weight", "");
}

// Wq = linears.0, Wo = linears.3.
FusedProjections bert_style_fused(const RunResult& r) {
    return linear_fused(r, "linears.0.weight", "linears.3.weight");
}

// Conv1D stores (nx, nf) used as x · W: c_attn (nx, 3·w) holds query | key | value, so the
// query projection is its first w columns; c_proj (w, nx) is already x · W. w = nx, or the
// remaining heads' width after prune_heads (each head keeps nx / num_heads columns).
FusedProjections gpt2_fused(const RunResult& r) {
    FusedProjections p;
    if (const NamedMatrix* w = find_weight(r, "c_attn.weight")) {
        p.query = w->value.leftCols(w->value.cols() / 3);
        p.head_dim = w->value.rows() / std::max<Eigen::Index>(r.config.num_heads, 1);
    }
    if (const NamedMatrix* w = find_weight(r, "c_proj.weight")) {
        p.out_proj = w->value;
    }
    return p;
}

// The table. A setting left out is not used (false), see ModuleInfo.
const ModuleEntry kModules[] = {
    {.info = {.kind = ModuleKind::SelfAttentionV1,
              .name = "self-attention-v1",
              .description = "SelfAttention_v1 (seed 002): parameters from torch.rand(d_in, d_out)",
              .uses_d_out = true,
              .no_bias_reason = "its parameters come from torch.rand and have no bias"},
     .run = run_self_attention_v1},
    {.info = {.kind = ModuleKind::SelfAttentionV2,
              .name = "self-attention-v2",
              .description = "SelfAttention v2 (seed 002): nn.Linear projections",
              .uses_d_out = true,
              .uses_qkv_bias = true,
              .uses_causal = true,
              .uses_fill = true},
     .run = run_self_attention_v2},
    {.info = {.kind = ModuleKind::CausalAttention,
              .name = "causal-attention",
              .description = "CausalAttention (seed 002): causal mask and dropout",
              .uses_d_out = true,
              .uses_dropout = true,
              .uses_context_length = true,
              .uses_qkv_bias = true,
              .uses_causal = true,
              .causal_by_default = true,
              .uses_fill = true},
     .run = run_causal_attention},
    {.info = {.kind = ModuleKind::MultiHeadWrapper,
              .name = "multi-head-wrapper",
              .description = "MultiHeadAttentionWrapper (seed 002): num_heads CausalAttention "
                             "heads, d_out each",
              .uses_d_out = true,
              .uses_num_heads = true,
              .heads_are_modules = true,
              .uses_dropout = true,
              .uses_context_length = true,
              .uses_qkv_bias = true,
              .uses_causal = true,
              .causal_by_default = true,
              .uses_fill = true},
     .run = run_multi_head_wrapper},
    {.info = {.kind = ModuleKind::MultiHeadAttention,
              .name = "multi-head-attention",
              .description =
                  "MultiHeadAttention (seed 002): one projection split into heads, out_proj",
              .uses_d_out = true,
              .uses_num_heads = true,
              .uses_dropout = true,
              .uses_context_length = true,
              .uses_qkv_bias = true,
              .uses_causal = true,
              .causal_by_default = true,
              .uses_fill = true,
              .uses_kv_heads_masks_rope = true,
              .has_fast_path = true,
              .decodes_with_kv_cache = true},
     .run = run_multi_head_attention,
     .fused = multi_head_attention_fused},
    {.info = {.kind = ModuleKind::BertMultiHead,
              .name = "bert-multi-head",
              .description = "BERT-style MultiHeadedAttention (seed 000), d_model = d_in",
              .uses_num_heads = true,
              .uses_dropout = true,
              .no_bias_reason = "its Linear layers always have a bias",
              .uses_causal = true,
              .uses_mask_convention = true,
              .uses_fill = true,
              .default_fill = kBertFill},
     .run = run_bert_style,
     .fused = bert_style_fused},
    {.info = {.kind = ModuleKind::Gpt2Attention,
              .name = "gpt2-attention",
              .description = "GPT-2 Attention (seed 001): fused c_attn, causal, nx = d_in",
              .uses_num_heads = true,
              .uses_dropout = true,
              .uses_context_length = true,
              .no_bias_reason = "GPT-2's Conv1D layers always have a bias",
              .uses_head_mask = true,
              .causal_by_default = true,
              .uses_fill = true,
              .default_fill = kGpt2Fill,
              .decodes_with_kv_cache = true},
     .run = run_gpt2_attention,
     .fused = gpt2_fused},
    {.info = {.kind = ModuleKind::CrossAttention,
              .name = "cross-attention",
              .description = "BERT-style MultiHeadedAttention with queries from the inputs, keys "
                             "and values from a source sequence",
              .uses_num_heads = true,
              .uses_dropout = true,
              .no_bias_reason = "its Linear layers always have a bias",
              .uses_source = true,
              .uses_causal = true,
              .uses_mask_convention = true,
              .uses_fill = true,
              .default_fill = kBertFill},
     .run = run_bert_style,
     .fused = bert_style_fused},
    {.info = {.kind = ModuleKind::SelfAttentionKV,
              .name = "self-attention-kv",
              .description = "SelfAttention (seed 003): dim_k != dim_v, no bias, scale "
                             "1/sqrt(dim_k)",
              .no_bias_reason = "seed 003's Linear layers have bias=False",
              .uses_dim_kv = true,
              .uses_scale = false},
     .run = run_self_attention_kv},
    {.info = {.kind = ModuleKind::MultiHeadSelfAttentionKV,
              .name = "multi-head-self-attention-kv",
              .description = "MultiHeadSelfAttention (seed 003): dim_k and dim_v split into "
                             "heads, no output projection",
              .uses_num_heads = true,
              .no_bias_reason = "seed 003's Linear layers have bias=False",
              .uses_dim_kv = true,
              .uses_scale = false},
     .run = run_multi_head_self_attention_kv,
     .fused = multi_head_self_attention_kv_fused},
};

}  // namespace

void apply_weights(const std::vector<ParamRef>& refs, const std::vector<NamedMatrix>& weights,
                   const ModuleConfig& config) {
    const ModuleInfo& info = module_entry(config).info;
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
            msg << info.name << " has no parameter \"" << given.name << "\"";
            const bool is_bias =
                given.name.size() > 5 && given.name.compare(given.name.size() - 5, 5, ".bias") == 0;
            if (is_bias && !config.qkv_bias && info.uses_qkv_bias) {
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
                    << " but " << info.name << " needs "
                    << shape_text(it->matrix->rows(), it->matrix->cols()) << ", " << it->layout
                    << ": check d_in, d_out and num_heads, or transpose the matrix";
                fail(msg);
            }
            *it->matrix = given.value;
        } else {
            if (given.value.rows() != 1 || given.value.cols() != it->vector->cols()) {
                std::ostringstream msg;
                msg << label << " is " << shape_text(given.value.rows(), given.value.cols())
                    << " but " << info.name << " needs a vector of " << it->vector->cols()
                    << " numbers " << it->layout;
                fail(msg);
            }
            *it->vector = given.value.row(0);
        }
    }
}

void apply_matching_weights(const std::vector<ParamRef>& refs,
                            const std::vector<NamedMatrix>& weights) {
    for (const NamedMatrix& w : weights) {
        for (const ParamRef& r : refs) {
            if (r.name != w.name) {
                continue;
            }
            if (r.matrix != nullptr && w.value.rows() == r.matrix->rows() &&
                w.value.cols() == r.matrix->cols()) {
                *r.matrix = w.value;
            }
            if (r.vector != nullptr && w.value.rows() == 1 && w.value.cols() == r.vector->cols()) {
                *r.vector = w.value.row(0);
            }
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

const ModuleEntry& module_entry(ModuleKind kind) {
    for (const ModuleEntry& entry : kModules) {
        if (entry.info.kind == kind) {
            return entry;
        }
    }
    throw AttentionError("module kind " + std::to_string(static_cast<int>(kind)) +
                         " has no row in the table of modules: report a bug");
}

const ModuleEntry& module_entry(const ModuleConfig& config) {
    if (!config.module.has_value()) {
        fail_unknown_module("");
    }
    return module_entry(*config.module);
}

void fail_unknown_module(std::string_view name) {
    std::ostringstream msg;
    if (name.empty()) {
        msg << "no module given: choose one of " << joined_module_names();
    } else {
        msg << "unknown module \"" << name << "\": choose one of " << joined_module_names();
    }
    fail(msg);
}

std::string joined_module_names() {
    std::string out;
    for (const ModuleEntry& entry : kModules) {
        out += (out.empty() ? "" : ", ");
        out += entry.info.name;
    }
    return out;
}

}  // namespace detail

const std::vector<ModuleInfo>& module_infos() {
    static const std::vector<ModuleInfo> infos = [] {
        std::vector<ModuleInfo> out;
        for (const detail::ModuleEntry& entry : detail::kModules) {
            out.push_back(entry.info);
        }
        return out;
    }();
    return infos;
}

std::vector<std::string> module_names() {
    std::vector<std::string> names;
    for (const ModuleInfo& info : module_infos()) {
        names.emplace_back(info.name);
    }
    return names;
}

const ModuleInfo& module_info(ModuleKind kind) { return detail::module_entry(kind).info; }

std::string_view module_name(ModuleKind kind) { return module_info(kind).name; }

std::optional<ModuleKind> find_module_kind(std::string_view name) {
    for (const ModuleInfo& info : module_infos()) {
        if (info.name == name) {
            return info.kind;
        }
    }
    return std::nullopt;
}

ModuleKind module_kind_from_name(std::string_view name) {
    if (const std::optional<ModuleKind> kind = find_module_kind(name)) {
        return *kind;
    }
    detail::fail_unknown_module(name);
}

}  // namespace attn
