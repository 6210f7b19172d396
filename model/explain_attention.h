// Explore mode's hovers: the arithmetic behind one cell of a run's matrices, written out with the
// run's own numbers in the style of the walkthrough's explain_cell ("α₂₃ = exp(ω̃₂₃ − max) / Σ …
// = 0.1234", "z = Σ α v"). Formulas are language-neutral text; no Qt here, so they are tested
// against the engine without widgets. Products are written out only when they reproduce the
// engine's value, so a hover never shows arithmetic that does not add up.
#pragma once

#include <cstddef>
#include <string>

#include "kv_trace.h"
#include "runner.h"

namespace attn {

// attn_weights[row][col] of head `head` (batch item 0) as explore shows it, after dropout: the
// score, its scaling, the softmax and, in training, what dropout did. Empty outside the run.
std::string explain_attention_weight(const RunResult& run, std::size_t head, Eigen::Index row,
                                     Eigen::Index col);

// context_vecs[row][col] (batch item 0): Σⱼ α · v for a single head, concat · W_o + b for a
// module with an output projection, the head's own Σⱼ α · v for concatenated heads.
std::string explain_output(const RunResult& run, Eigen::Index row, Eigen::Index col);

// The KV stepper's matrices of one step and head: the new token's weight over cached key `col`,
// a cached key or value (values = true), the new query, and the output row (row 0 with the
// cache, row 1 the full recomputation).
std::string explain_kv_weight(const KvTraceStep& step, std::size_t head, Eigen::Index col);
std::string explain_kv_cache(const KvTraceStep& step, std::size_t head, bool values,
                             Eigen::Index row, Eigen::Index col);
std::string explain_kv_query(const KvTraceStep& step, std::size_t head, Eigen::Index col);
std::string explain_kv_output(const KvTraceStep& step, Eigen::Index row, Eigen::Index col);

}  // namespace attn
