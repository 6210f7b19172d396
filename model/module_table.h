// Internal to model/: the table of modules behind runner.h (one row per ModuleKind: its
// ModuleInfo, the function that builds and runs it, where its fused projections are) and the
// parameters of each module by their state_dict names, shared by run_module and the KV decoder.
#pragma once

#include <string>
#include <vector>

#include "runner.h"

namespace attn::detail {

// A parameter of a built module, reachable by its state_dict name.
struct ParamRef {
    std::string name;
    Matrix* matrix = nullptr;     // a 2-D parameter
    RowVector* vector = nullptr;  // a 1-D parameter (bias)
    std::string layout;           // how its shape reads, for the error message
};

std::vector<ParamRef> params_of(SelfAttentionV1& m);
std::vector<ParamRef> params_of(SelfAttentionV2& m);
std::vector<ParamRef> params_of(CausalAttention& m);
std::vector<ParamRef> params_of(MultiHeadAttentionWrapper& m);
std::vector<ParamRef> params_of(MultiHeadAttention& m);
std::vector<ParamRef> params_of(BertMultiHeadedAttention& m);
std::vector<ParamRef> params_of(Gpt2Attention& m);
std::vector<ParamRef> params_of(SelfAttentionKV& m);
std::vector<ParamRef> params_of(MultiHeadSelfAttentionKV& m);

// Replaces drawn parameters by the given ones after checking names, shapes and values; throws
// AttentionError naming the parameter and the fix.
void apply_weights(const std::vector<ParamRef>& refs, const std::vector<NamedMatrix>& weights,
                   const ModuleConfig& config);
// Replaces only the given parameters whose name and shape match and ignores the rest (the KV
// stepper's weights come from a run whose module may differ).
void apply_matching_weights(const std::vector<ParamRef>& refs,
                            const std::vector<NamedMatrix>& weights);
// The parameters' values, in the order of refs. refs point into a module: collect while it lives.
std::vector<NamedMatrix> collect_weights(const std::vector<ParamRef>& refs);

// What a module's run function gets: the resolved config and everything run_module derived from
// it and from the inputs.
struct ModuleRun {
    const ModuleConfig& config;  // resolved
    const Batch& x;              // config.batch copies of the inputs, (B, T, d_in)
    const Sequence* source;      // the keys' and values' sequence of cross-attention, else null
    Eigen::Index d_in, tokens;
    TorchGenerator& gen;     // seeded with config.seed, nothing drawn yet
    ForwardOptions options;  // training, gen, causal, scale and fill, resolved
    bool output_only;        // see run_module
    int repeats;             // further timed passes, see run_module
};

struct ModuleEntry {
    ModuleInfo info;
    // Builds the module from run.gen, replaces run.config.weights, runs it and fills result's
    // output and weights.
    void (*run)(const ModuleRun& run, RunResult& result);
    // The run's fused projections, read from result.weights; null: the module has none.
    FusedProjections (*fused)(const RunResult& result) = nullptr;
};

const ModuleEntry& module_entry(ModuleKind kind);
// Throws AttentionError ("no module given: choose one of ...") when config.module is unset.
const ModuleEntry& module_entry(const ModuleConfig& config);
// "self-attention-v1, self-attention-v2, ...": every name, for messages.
std::string joined_module_names();
// "no module given: choose one of ..." for an empty name, else "unknown module \"x\": ...".
[[noreturn]] void fail_unknown_module(std::string_view name);

}  // namespace attn::detail
