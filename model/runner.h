// "Run a module chosen at run time": the layer between the modules and whoever picks one (the
// command-line interface, the app's explore mode). No Qt here.
//
// Shapes as in tensor.h: B = batch, T = tokens, d_in, d_out, H = num_heads.
//
// A module is a ModuleKind; its name, its one-line description and the settings it takes are
// one row of the table in module_table.cpp, the only place its name is spelled. The modules come
// from the seed files 000 (BERT-style; 004 pairs it with mask == 1), 001 (GPT-2) and 002 (the
// tutorial's classes).
//
// Randomness, as in PyTorch: one generator seeded with `seed` draws the parameters in constructor
// order; a dropout > 0 then runs the forward pass in training mode, drawing its masks from the
// same generator, i.e. torch.manual_seed(seed); m = Module(...); m.train(); m(x).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "examples.h"
#include "modules.h"
#include "tensor.h"

namespace attn {

// The modules, in the order the tutorial introduces them.
enum class ModuleKind {
    SelfAttentionV1,     // SelfAttention_v1: W_query/W_key/W_value from torch.rand(d_in, d_out)
    SelfAttentionV2,     // SelfAttention (v2): nn.Linear projections, optional qkv bias
    CausalAttention,     // CausalAttention: -inf causal mask, dropout on the weights
    MultiHeadWrapper,    // MultiHeadAttentionWrapper: H CausalAttention heads of width d_out each
    MultiHeadAttention,  // MultiHeadAttention: one d_out-wide projection split into H heads
    BertMultiHead,       // BERT-style MultiHeadedAttention, d_model = d_in, self-attention
    Gpt2Attention,       // GPT-2's Attention, nx = d_in, scale = true as GPT2Block uses it
    // The BERT-style module with queries from `inputs` and keys and values from `source`: both
    // sides go through the module's own Linear layers (Wq on the target, Wk and Wv on the
    // source), so both need width d_model.
    CrossAttention,
    // Seed 003: self-attention whose keys/queries (dim_k) and values (dim_v) differ in width, no
    // bias, scores scaled by 1/sqrt(dim_k); the output is (B, T, dim_v).
    SelfAttentionKV,
    // Seed 003's multi-head version: dim_k and dim_v split into num_heads heads, scale
    // 1/sqrt(dim_k / num_heads), heads merged without an output projection.
    MultiHeadSelfAttentionKV,
};

// One named parameter, named as PyTorch's state_dict() names it: "W_query" for
// self-attention-v1 (shape (d_in, d_out), used as x · W), "W_query.weight" (d_out, d_in) and
// "W_query.bias" for nn.Linear, "heads.0.W_query.weight" in the wrapper, "linears.0.weight" ..
// "linears.3.bias" in the BERT-style module, "c_attn.weight" (nx, 3·nx) for GPT-2's Conv1D.
struct NamedMatrix {
    std::string name;
    Matrix value;            // a bias is stored as one row (1, n)
    bool is_vector = false;  // a 1-D tensor (bias): written as a flat list, not a matrix
};

// What to run. A 0 means "the module's default", so a caller sets only what it cares about;
// resolve_config() replaces every 0 with the value actually used.
struct ModuleConfig {
    std::optional<ModuleKind> module;  // unset: no module chosen yet (run_module refuses)
    std::uint64_t seed = 123;          // the tutorial's torch.manual_seed(123)
    Eigen::Index d_out = 0;            // 0 = 2 (the tutorial); d_model = d_in for bert/gpt2/cross
    Eigen::Index num_heads = 0;  // 0 = 2, or 1 when 2 does not divide d_model (bert/gpt2/cross)
    Eigen::Index batch = 1;      // copies of the inputs stacked, as torch.stack((x, x))
    Eigen::Index context_length = 0;  // 0 = the sequence length
    float dropout = 0.0f;             // > 0 runs in training mode with the seeded generator
    bool qkv_bias = false;
    // Seed 003's widths of queries/keys (dim_k) and values (dim_v); 0 = d_in (the seed has no
    // example sizes). Only the seed 003 modules take them; the output width d_out is dim_v there.
    Eigen::Index dim_k = 0;
    Eigen::Index dim_v = 0;
    // gpt2-attention only (seed 001's head_mask and prune_heads); empty = none. prune_heads are
    // head numbers 0 .. num_heads - 1 of the unpruned module, pruned after the parameters are
    // drawn and config.weights replaced (PyTorch's prune_heads); head_mask has one factor in
    // [0, 1] per remaining head and multiplies its attention weights after dropout. num_heads
    // stays the unpruned count.
    std::vector<float> head_mask;
    std::vector<Eigen::Index> prune_heads;
    // Explore mode's switches; the defaults keep every module as its seed writes it.
    // causal: nullopt = the module's own choice (ModuleInfo::causal_by_default).
    std::optional<bool> causal;
    bool scale = true;  // false: softmax of the raw scores, no division by sqrt(head_dim)
    // bert-multi-head / cross-attention with causal on: the mask tensor is the seeds'
    // subsequent_mask (1 = may attend, 0 = future); the convention says which cells are filled.
    // FillWhereOne on that tensor is seed 004's pairing: it hides the past and the diagonal, so
    // the last query row is fully masked (NaN weights with a -inf fill, uniform with -1e9).
    MaskConvention mask_convention = MaskConvention::FillWhereZero;
    // Fill of masked scores; nullopt = the module's (ModuleInfo::default_fill): -inf in seed 002's
    // modules, -1e9 in the BERT-style module, -1e4 (masked_bias) in GPT-2.
    std::optional<float> fill_value;
    // Parameters that replace the drawn ones after construction (like load_state_dict with
    // strict=False); shapes are checked. The generator has drawn all parameters by then, so the
    // dropout draws are the same with or without replacements.
    std::vector<NamedMatrix> weights;
    // multi-head-attention only (the chapters past the tutorial; see MultiHeadAttention):
    // num_kv_heads: K/V heads shared by the query heads (GQA, 1 = MQA), 0 = num_heads.
    // window > 0: sliding-window causal mask of that width (needs causal); 0 = none.
    // lengths: per sequence of the batch, keys at positions >= length are blocked (padding);
    // empty = none, otherwise one per batch copy (lengths.size() == batch).
    // rope: rotary position embeddings with rope_base, positions position_offset + token index.
    Eigen::Index num_kv_heads = 0;
    Eigen::Index window = 0;
    std::vector<Eigen::Index> lengths;
    bool rope = false;
    float rope_base = 10000.0f;
    Eigen::Index position_offset = 0;
};

// The mask kind a resolved config runs with: "causal", "bidirectional" or "window".
std::string_view mask_kind_name(const ModuleConfig& resolved);

// Which settings a module uses; a setting a module does not use must stay at its default (0 /
// false), otherwise resolve_config() says it does not apply, so no option is silently ignored.
struct ModuleInfo {
    ModuleKind kind{};
    std::string_view name;         // as the command line and example files spell it
    std::string_view description;  // one line naming the seed's class
    bool uses_d_out = false;       // false: the output width is d_model = d_in
    bool uses_num_heads = false;
    // The wrapper's num_heads separate modules of width d_out each, concatenated; otherwise
    // num_heads split the width (d_out, or d_model for modules without d_out).
    bool heads_are_modules = false;
    bool uses_dropout = false;
    bool uses_context_length = false;
    bool uses_qkv_bias = false;
    std::string_view no_bias_reason = {};  // why qkv_bias does not apply, when it does not
    bool uses_dim_kv = false;              // seed 003: dim_k and dim_v instead of d_out
    bool uses_head_mask = false;           // seed 001: head_mask and prune_heads
    bool uses_source = false;  // cross-attention: keys and values come from a second sequence
    // Explore mode's switches. uses_causal: causal can be turned on/off; causal_by_default: what
    // the seed's module does (also without the switch: gpt2-attention is always causal).
    bool uses_causal = false;
    bool causal_by_default = false;
    bool uses_scale = true;  // the scale can be turned off (not in seed 003's modules, fixed there)
    bool uses_mask_convention = false;  // the BERT-style modules' masked_fill(mask == 0 / == 1)
    bool uses_fill = false;             // the module has a mask whose fill value can be chosen
    float default_fill = kNegInf;       // the seed's fill value (only meaningful with uses_fill)
    // num_kv_heads, window, lengths, rope, rope_base, position_offset (ModuleConfig)
    bool uses_kv_heads_masks_rope = false;
    bool has_fast_path = false;  // model/fast_attention.h computes its output (see has_fast_path)
    bool decodes_with_kv_cache = false;  // run_decode (model/kv_trace.h) can decode it
};

// All modules in the order the tutorial introduces them.
const std::vector<ModuleInfo>& module_infos();
std::vector<std::string> module_names();
const ModuleInfo& module_info(ModuleKind kind);
std::string_view module_name(ModuleKind kind);
// The kind named `name`, or nullopt.
std::optional<ModuleKind> find_module_kind(std::string_view name);
// The same, throwing AttentionError listing the valid names when `name` is unknown or empty.
ModuleKind module_kind_from_name(std::string_view name);

// Hard limits, so that a typo cannot ask for all memory.
inline constexpr Eigen::Index kMaxBatch = 64;
inline constexpr Eigen::Index kMaxWidth = 16384;  // d_in, d_out, d_model
inline constexpr int kMaxRepeats = 1000;          // run_module's further timed passes
// Bytes of every displayed intermediate (six float T_q × T_k matrices and two masks per head and
// batch item) above which run_module refuses with a message instead of running out of memory.
inline constexpr std::size_t kMaxIntermediateBytes = std::size_t{2} << 30;  // 2 GiB

// Checks config against inputs of width d_in and `tokens` tokens (source_tokens keys for
// cross-attention, otherwise equal to tokens) and returns it with every default filled in.
// Throws AttentionError naming the setting and the fix. With output_only (see run_module) a
// config that has_fast_path() is not held to kMaxIntermediateBytes: it stores no (T, T) matrix.
ModuleConfig resolve_config(const ModuleConfig& config, Eigen::Index d_in, Eigen::Index tokens,
                            Eigen::Index source_tokens, bool output_only = false);
// Whether an output-only run takes the fast path of model/fast_attention.h: a module with
// ModuleInfo::has_fast_path in the seed's settings (no K/V head sharing, window, lengths or rope)
// and without dropout, since the fast path is inference only.
bool has_fast_path(const ModuleConfig& config);
// Bytes the displayed intermediates of a run would take (see kMaxIntermediateBytes).
std::size_t intermediate_bytes(const ModuleConfig& resolved, Eigen::Index tokens,
                               Eigen::Index source_tokens);

struct RunResult {
    ModuleConfig config;    // resolved: no 0 = default left
    bool training = false;  // dropout > 0
    ModuleOutput output;    // context_vecs (B, T, width), heads[b][h] with every intermediate
    std::vector<NamedMatrix> weights;  // every parameter, state_dict names, construction order
    // (after prune_heads: the pruned shapes)
    double forward_ms = 0.0;  // the forward pass alone: building the module is not counted
    // With repeats (see run_module): each further pass's time, first to last. The first pass
    // pays for its fresh memory; these are what a program that runs the module again pays.
    std::vector<double> repeat_ms;
};

// Builds config.module with config.seed, replaces config.weights, stacks config.batch copies of
// inputs and runs forward. `source` is used by cross-attention only (nullptr: the default
// cross_attention_source()); other modules refuse a source. Throws AttentionError on bad input
// (empty or non-finite embeddings, tokens/rows mismatch, unknown weight names, wrong shapes ...).
// output_only (attention-cli compute --summary): the caller keeps only context_vecs and weights;
// when has_fast_path(config) they come from the fast path (equal to forward() within 1e-5
// relative, tests/model/test_fast_attention.cpp) and heads, queries, keys, values and concat
// stay empty. repeats: the forward pass runs that many more times after the first, each timed
// into repeat_ms (output and weights stay the first pass's), as a benchmark times warm runs.
RunResult run_module(const ModuleConfig& config, const Sequence& inputs,
                     const Sequence* source = nullptr, bool output_only = false, int repeats = 0);

// A run's fused projections read as x · W, whatever layout its module stores them in: nn.Linear's
// (out, in) transposed, GPT-2's Conv1D c_attn (nx, 3·w) cut to its first w columns (w = nx, or
// the remaining heads' width after prune_heads). Modules
// without a fused projection (the single-head ones, the wrapper's separate heads) leave both empty.
struct FusedProjections {
    Matrix query;     // (d_in, H·hd): queries of all heads = x · query, head h in columns h·hd..
    Matrix out_proj;  // (H·hd, d_out): output = concat · out_proj (+ bias); empty without one
    Eigen::Index head_dim = 0;  // each head's columns of query; 0 when query is empty
};
FusedProjections fused_projections(const RunResult& run);

// `tokens` random tokens named "t1".."tN": embeddings torch.rand(tokens, d_in) from a generator
// seeded with `seed` (its own generator, so the module's weights stay those of the same seed).
Sequence random_sequence(Eigen::Index tokens, Eigen::Index d_in, std::uint64_t seed);

}  // namespace attn
