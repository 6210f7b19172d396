// One layer's attention weights as a walkthrough record, whatever computed them: a GPT-2 forward
// pass here (attn::model_layer_step builds on it) or an attention dump saved from another model
// (app/io/attention_dump.h). The views draw, explain and export the Step as the tutorial's heads.
//
//   heads: H matrices (T_q, T_k), T_q <= T_k; with T_q < T_k the queries are the last T_q
//          positions (a dump saved while decoding), as in causal_mask.
#pragma once

#include <string>
#include <vector>

#include "ops.h"
#include "tensor.h"
#include "walkthrough.h"

namespace attn {

// True when every head is exactly 0 at every key after its query (causal_mask's cells): a
// decoder's weights. A bidirectional model (BERT) attends there, and softmax never gives an exact
// 0 for a finite score, so no real bidirectional dump passes. Empty or T_k = 1: false.
bool is_causal_attention(const std::vector<Matrix>& heads);

// Matrices "layer-L-head-H" (1-based, symbol α, kind Weights) with `tokens` (T_k of them) on the
// columns and the last T_q of them on the rows. Cells are drawn blocked only when the heads are
// causal (is_causal_attention): an encoder's weights above the diagonal are real attention.
// Throws AttentionError when the heads differ in shape, T_q > T_k or tokens.size() != T_k.
Step attention_layer_step(const std::vector<Matrix>& heads, Eigen::Index layer,
                          const std::vector<std::string>& tokens);

// One module run's heads (explore mode's export), drawn as a layer is: per head the weights that
// multiplied the values (AttentionResult::dropped, the softmax when no dropout ran), the run's own
// blocked cells and `dropped` cells (empty: none), rows labelled by `query_tokens` (a
// cross-attention target may have more tokens than its source) and columns by `key_tokens`.
// Matrices "attn-weights-head-H" (1-based). Throws AttentionError when the heads differ in shape
// or the labels do not fit them.
Step run_heads_step(const std::vector<AttentionResult>& heads,
                    const std::vector<BoolMatrix>& dropped,
                    const std::vector<std::string>& query_tokens,
                    const std::vector<std::string>& key_tokens);

}  // namespace attn
