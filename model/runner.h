// "Run a module by name": the layer between the modules and whoever picks one at run time (the
// command-line interface, the app's explore mode). No Qt here.
//
// Shapes as in tensor.h: B = batch, T = tokens, d_in, d_out, H = num_heads.
//
// Module names and what they build (seed files in /work/shared/seeds):
//   self-attention-v1     SelfAttention_v1: W_query/W_key/W_value from torch.rand(d_in, d_out)
//   self-attention-v2     SelfAttention (v2): nn.Linear projections, optional qkv bias
//   causal-attention      CausalAttention: -inf causal mask, dropout on the weights
//   multi-head-wrapper    MultiHeadAttentionWrapper: H CausalAttention heads of width d_out each
//   multi-head-attention  MultiHeadAttention: one d_out-wide projection split into H heads
//   bert-multi-head       BERT-style MultiHeadedAttention (seed 000), d_model = d_in,
//                         self-attention
//   gpt2-attention        GPT-2's Attention (seed 001), nx = d_in, scale = true as GPT2Block
//                         uses it
//   cross-attention       the BERT-style module with queries from `inputs` and keys and values
//                         from `source`: both sides go through the module's own Linear layers
//                         (Wq on the target, Wk and Wv on the source), so both need width d_model
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
    std::string module;          // one of module_names()
    std::uint64_t seed = 123;    // the tutorial's torch.manual_seed(123)
    Eigen::Index d_out = 0;      // 0 = 2 (the tutorial); d_model = d_in for bert/gpt2/cross
    Eigen::Index num_heads = 0;  // 0 = 2, or 1 when 2 does not divide d_model (bert/gpt2/cross)
    Eigen::Index batch = 1;      // copies of the inputs stacked, as torch.stack((x, x))
    Eigen::Index context_length = 0;  // 0 = the sequence length
    float dropout = 0.0f;             // > 0 runs in training mode with the seeded generator
    bool qkv_bias = false;
    // Explore mode's switches (#4); the defaults keep every module as its seed writes it.
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
};

// Which settings a module uses; a setting a module does not use must stay at its default (0 /
// false), otherwise resolve_config() says it does not apply, so no option is silently ignored.
struct ModuleInfo {
    std::string_view name;
    std::string_view description;  // one line naming the seed's class
    bool uses_d_out;               // false: the output width is d_model = d_in
    bool uses_num_heads;
    bool uses_dropout;
    bool uses_context_length;
    bool uses_qkv_bias;
    bool uses_source;  // cross-attention: keys and values come from a second sequence
    // #4's switches. uses_causal: causal can be turned on/off; causal_by_default: what the seed's
    // module does (also for modules without the switch: gpt2-attention is always causal).
    bool uses_causal;
    bool causal_by_default;
    bool uses_scale;            // every module divides by sqrt(d); all can turn it off
    bool uses_mask_convention;  // the BERT-style modules' masked_fill(mask == 0 / == 1)
    bool uses_fill;             // the module has a mask whose fill value can be chosen
    float default_fill;         // the seed's fill value (only meaningful with uses_fill)
};

// All modules in the order the tutorial introduces them.
const std::vector<ModuleInfo>& module_infos();
std::vector<std::string> module_names();
// Throws AttentionError listing the valid names when `name` is unknown.
const ModuleInfo& module_info(std::string_view name);

// Hard limits, so that a typo cannot ask for all memory.
inline constexpr Eigen::Index kMaxBatch = 64;
inline constexpr Eigen::Index kMaxWidth = 16384;  // d_in, d_out, d_model
// Bytes of every displayed intermediate (six float T_q × T_k matrices and two masks per head and
// batch item) above which run_module refuses with a message instead of running out of memory.
inline constexpr std::size_t kMaxIntermediateBytes = std::size_t{2} << 30;  // 2 GiB

// Checks config against inputs of width d_in and `tokens` tokens (source_tokens keys for
// cross-attention, otherwise equal to tokens) and returns it with every default filled in.
// Throws AttentionError naming the setting and the fix. With output_only (see run_module) a
// config that has_fast_path() is not held to kMaxIntermediateBytes: it stores no (T, T) matrix.
ModuleConfig resolve_config(const ModuleConfig& config, Eigen::Index d_in, Eigen::Index tokens,
                            Eigen::Index source_tokens, bool output_only = false);
// Whether an output-only run takes the fast path of model/fast_attention.h (#6):
// multi-head-attention without dropout, since the fast path is inference only.
bool has_fast_path(const ModuleConfig& config);
// Bytes the displayed intermediates of a run would take (see kMaxIntermediateBytes).
std::size_t intermediate_bytes(const ModuleConfig& resolved, Eigen::Index tokens,
                               Eigen::Index source_tokens);

struct RunResult {
    ModuleConfig config;    // resolved: no 0 = default left
    bool training = false;  // dropout > 0
    ModuleOutput output;    // context_vecs (B, T, width), heads[b][h] with every intermediate
    std::vector<NamedMatrix> weights;  // every parameter, state_dict names, construction order
};

// Builds config.module with config.seed, replaces config.weights, stacks config.batch copies of
// inputs and runs forward. `source` is used by cross-attention only (nullptr: the default
// cross_attention_source()); other modules refuse a source. Throws AttentionError on bad input
// (empty or non-finite embeddings, tokens/rows mismatch, unknown weight names, wrong shapes ...).
// output_only (attention-cli compute --summary): the caller keeps only context_vecs and weights;
// when has_fast_path(config) they come from the fast path (equal to forward() within 1e-5
// relative, tests/model/test_fast_attention.cpp) and heads, queries, keys, values and concat
// stay empty.
RunResult run_module(const ModuleConfig& config, const Sequence& inputs,
                     const Sequence* source = nullptr, bool output_only = false);

// `tokens` random tokens named "t1".."tN": embeddings torch.rand(tokens, d_in) from a generator
// seeded with `seed` (its own generator, so the module's weights stay those of the same seed).
Sequence random_sequence(Eigen::Index tokens, Eigen::Index d_in, std::uint64_t seed);

// --- KV-cached decoding ----------------------------------------------------------------------

struct DecodeConfig {
    std::string module = "multi-head-attention";  // or "gpt2-attention"
    Eigen::Index num_heads = 2;
    std::uint64_t seed = 123;
};

struct DecodeRun {
    std::vector<DecodeStep> steps;     // one per token: output row, weights, cache size
    Matrix full_pass;                  // (T, d_model): one causal forward over all tokens
    float max_abs_diff = 0.0f;         // max |steps[t].output - full_pass.row(t)|
    std::vector<NamedMatrix> weights;  // the module's parameters
};

// Decodes inputs one token at a time with a KV cache (module built with d_in = d_out = d_model =
// inputs width, context_length = T, no dropout), and runs the same module once over the whole
// sequence, so the two can be compared. Throws AttentionError on bad input.
DecodeRun run_decode(const DecodeConfig& config, const Sequence& inputs);

}  // namespace attn
