// The one transformer core: the forward pass of any family described by a TransformerSpec
// (model/transformer_spec.h), returning every layer's and head's attention, and a layer as a
// walkthrough record. Generation through the kv_cache is model/generator.h.
//
// Pre-norm decoder (GPT-2, LLaMA), per layer:
//   a = norm(h; attn norm) → queries, keys, values (fused or separate projections, biases)
//     → H query heads and G K/V heads of head_dim (query head h reads K/V head h / (H / G))
//     → rotary positions on queries and keys when the family has them
//     → causal softmax(queries · keysᵀ / √head_dim) · values (scaled_dot_product_attention)
//     → merge heads → out projection → h += ...
//   m = norm(h; mlp norm) → up → activation (gated: act(gate) * up) → down → h += ...
// then norm(h; final norm) → logits = h · token embeddingᵀ (or the output head when untied).
//
// Post-norm encoder (BERT, DistilBERT, RoBERTa): h = norm(word + position + token-type
// embeddings; embedding norm), per layer h = norm(h + attn(h); attn norm), h = norm(h + mlp(h);
// mlp norm) with bidirectional attention (padding keys blocked), then the masked-LM head when
// the file has it: norm(act(dense(h)); head norm) · token embeddingᵀ + output bias.
//
// Shapes as in model/transformer_spec.h.
#pragma once

#include <string>
#include <vector>

#include "tensor.h"
#include "transformer_spec.h"
#include "walkthrough.h"

namespace attn {

struct ModelForwardOptions {
    // Keep every layer's and head's attn_weights (T × T each): num_layers · H · T² floats, so
    // off for long inputs whose attention is not displayed.
    bool keep_attentions = true;
    bool keep_qkv = false;    // queries (T, H·hd), keys and values (T, G·hd) per layer
    bool all_logits = false;  // false: only the last position's logits (1, V)
    Eigen::Index top_k = 5;   // next-token candidates from the last position
    // Encoders: each token's segment (BERT's token_type_ids: 0 for [CLS] A [SEP], 1 for B [SEP]);
    // empty: all 0.
    std::vector<int> token_type_ids;
    // Hugging Face's attention_mask: 1 a real token, 0 padding, whose keys get no weight (seed
    // 004's mask == 0 → -inf); empty: all 1. Decoders: the padding after the real tokens only.
    std::vector<int> attention_mask;
    bool keep_hidden = false;  // ModelForwardResult::hidden
};

struct TopToken {
    int id = 0;
    float prob = 0.0f;  // softmax of the last position's logits
};

struct ModelForwardResult {
    // [layer][head]: (T, T) attn_weights, zeros above the diagonal (decoders) and in padding
    // columns; empty unless kept.
    std::vector<std::vector<Matrix>> attentions;
    // [layer]: after rotary positions when the family has them; empty unless keep_qkv.
    std::vector<Matrix> queries, keys, values;
    // (T, V) or (1, V) for the last position; encoders: the masked-LM head's, empty without it.
    Matrix logits;
    std::vector<TopToken> top_tokens;  // highest probability first; decoders only
    // (T, d), with keep_hidden: the last layer's output before any final norm or head (an
    // encoder's is transformers' last_hidden_state); empty otherwise.
    Matrix hidden;
    std::vector<int> attention_mask;  // the options' mask, so model_layer_step blocks the padding
};

// What a masked LM puts at one [MASK] position.
struct MaskPrediction {
    Eigen::Index position = 0;  // 0-based token index
    std::vector<TopToken> top;  // the k most probable fillers, best first
};

// For each position whose id is mask_id, the k most probable tokens there, from a forward pass
// with all_logits. Throws AttentionError when the result has no logits for every position.
std::vector<MaskPrediction> mask_predictions(const ModelForwardResult& result,
                                             const std::vector<int>& ids, int mask_id,
                                             Eigen::Index k);

// A padded batch, as a framework runs sentences of different lengths together: every sequence
// padded with pad_id to the longest, attention_mask 0 on the padding, each row computed with its
// mask. results[b] has the padded length; its weights on real tokens equal those of sequence b
// alone (the padding keys get weight 0).
struct PaddedBatch {
    std::vector<std::vector<int>> ids;             // [b]: padded to the longest
    std::vector<std::vector<int>> token_type_ids;  // [b]: padded with 0
    std::vector<std::vector<int>> attention_mask;  // [b]: 1 real, 0 padding
    std::vector<ModelForwardResult> results;       // [b]
};
// Throws AttentionError for an empty batch or a sequence model_forward refuses.
PaddedBatch model_forward_padded(const TransformerWeights& weights,
                                 const std::vector<std::vector<int>>& ids,
                                 const std::vector<std::vector<int>>& token_type_ids, int pad_id,
                                 const ModelForwardOptions& options = {});

// Throws AttentionError on empty ids, an id outside [0, V), more ids than max_positions, or
// weights that do not match their spec's tensor table; token_type_ids or attention_mask whose
// size is not the number of ids, a token type outside [0, type_vocab_size) (any nonzero type for
// a model without token types), a mask value other than 0 and 1, a mask of only 0, or a
// decoder's padding before a real token.
ModelForwardResult model_forward(const TransformerWeights& weights, const std::vector<int>& ids,
                                 const ModelForwardOptions& options = {});

// The k most probable next tokens from one row of logits (softmax in double), best first.
std::vector<TopToken> top_tokens(const Eigen::Ref<const RowVector>& logits, Eigen::Index k);

// Throws AttentionError unless ids is non-empty, every id is in [0, V) and ids.size() +
// extra_positions <= max_positions (extra_positions: tokens still to be generated); RoBERTa:
// max_positions - padding_idx - 1, as its first padding_idx + 1 position rows are no token's.
void check_token_ids(const TransformerSpec& spec, const std::vector<int>& ids,
                     Eigen::Index extra_positions);

// One layer's attention as a Step, so the views draw, explain and export a real model's heads as
// they do the tutorial's: matrices "layer-L-head-H" (1-based; attn_weights, causal cells blocked),
// and when the forward pass kept queries and keys, each derived by Softmax (divided by
// √head_dim) from operand "masked-H", the MaskedFill of "scores-H" = "queries-H" · "keys-H"ᵀ
// (keys of the head's K/V group, after rotation), so hovering a cell gives q·k, /√d and the
// softmax with the model's own numbers. `tokens` label the rows and columns. Throws
// AttentionError for a layer that was not kept.
Step model_layer_step(const ModelForwardResult& result, const TransformerSpec& spec,
                      Eigen::Index layer, const std::vector<std::string>& tokens);

}  // namespace attn
