// One layer's attention weights as a walkthrough record, whatever computed them: a GPT-2 forward
// pass here (attn::model_layer_step builds on it) or an attention dump saved from another model
// (app/io/attention_dump.h). The views draw, explain and export the Step as the tutorial's heads.
//
//   heads: H matrices (T_q, T_k), T_q <= T_k; with T_q < T_k the queries are the last T_q
//          positions (a dump saved while decoding), as in causal_mask.
#pragma once

#include <string>
#include <vector>

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

}  // namespace attn
