// What the model window shows of an encoder (BERT, DistilBERT, RoBERTa) beyond a decoder's
// views, as records the views draw: which query → key cells a sentence pair filter keeps, the
// weights with [CLS]/[SEP] taken out and each row renormalised, one head's q and k for a single
// cell (the neuron view), and a padded batch beside each sentence run alone.
//
// Shapes: T = tokens, H = heads, hd = head_dim, B = sequences in a batch.
#pragma once

#include <string>
#include <vector>

#include "tensor.h"
#include "transformer.h"
#include "walkthrough.h"

namespace attn {

// Which cells of a pair's attention to show, query segment → key segment (segment 0: sentence A
// with [CLS] and its [SEP]; 1: sentence B with its [SEP]).
enum class PairFilter { All, AToA, AToB, BToA, BToB };

// (T, T), true = hidden: the query's and key's segments are not the filter's pair. All hides
// nothing. Throws AttentionError for a segment other than 0 or 1.
BoolMatrix pair_filter_mask(const std::vector<int>& segments, PairFilter filter);

// weights (T_q, T_k) with the hidden cells NaN: what the mosaic draws as "no value".
Matrix hide_cells(const Matrix& weights, const BoolMatrix& hidden);

// Attention without the special tokens: the kept positions (not special, in order) and the
// weights among them, each row divided by its sum over the kept keys so it sums to 1 again.
struct SpecialsHidden {
    std::vector<Eigen::Index> kept;  // positions still shown
    Matrix kept_weights;             // (K, K): the original weights of the kept cells
    Matrix weights;                  // (K, K): kept_weights, rows renormalised
};
// weights (T, T); special[t]: position t is [CLS], [SEP], <s>, </s>. Throws AttentionError when
// sizes differ or nothing is left.
SpecialsHidden hide_special_tokens(const Matrix& weights, const std::vector<bool>& special);

// How the model window shows an encoder layer.
struct EncoderViewOptions {
    PairFilter filter = PairFilter::All;
    bool hide_specials = false;
};
// A layer's record (model_layer_step) as the encoder views show it: the filter's hidden cells
// blocked; with hide_specials each head's weights replaced by the renormalised ones (Derivation
// Renormalize of the operand "kept-H", so hovering a cell gives α / Σ α) and
// text_args "specials_hidden" = "1" for the colour bar's note; "encoder" = "1" for the texts.
// segments and special have T entries.
Step encoder_layer_step(const Step& layer, const std::vector<int>& segments,
                        const std::vector<bool>& special, const EncoderViewOptions& options);
// attentions[layer][head] (T, T) as the mosaic shows them with the same options: hidden cells
// NaN, or the renormalised weights without the special tokens.
std::vector<std::vector<Matrix>> encoder_attentions(
    const std::vector<std::vector<Matrix>>& attentions, const std::vector<int>& segments,
    const std::vector<bool>& special, const EncoderViewOptions& options);

// The neuron view of one head and one cell: what the query and key vectors multiply to.
struct NeuronView {
    Eigen::Index layer = 0, head = 0, query = 0, key = 0;  // 0-based
    Eigen::Index head_dim = 0;
    RowVector q, k;     // (hd): the head's query of `query`, key of `key`
    RowVector product;  // (hd): q ⊙ k, element by element
    float dot = 0.0f;   // q·k = Σ product, as the scores matrix computes it
    float sqrt_head_dim = 0.0f;
    float scaled = 0.0f;  // q·k / √hd
    float weight = 0.0f;  // softmax of the query's row of scaled scores, at `key`
};
// From a forward pass with keep_qkv. attention_mask (T; 1 real, 0 padding; empty: all real)
// blocks padding keys before the softmax, as the forward pass does. Throws AttentionError for a
// layer without queries and keys or an index out of range.
NeuronView neuron_view(const ModelForwardResult& result, const TransformerSpec& spec,
                       Eigen::Index layer, Eigen::Index head, Eigen::Index query, Eigen::Index key,
                       const std::vector<int>& attention_mask = {});

// A padded batch of sequences beside each sequence run alone.
struct PaddingCheck {
    PaddedBatch batch;                      // keep_attentions
    std::vector<ModelForwardResult> alone;  // [b]: sequence b by itself
    // [b]: max |batch weights − alone weights| over every layer, head and real query/key cell,
    // and the batch's weight on padding keys (which must be 0).
    std::vector<float> max_abs_diff;
    std::vector<float> padding_weight;
};
PaddingCheck padding_check(const TransformerWeights& weights,
                           const std::vector<std::vector<int>>& ids,
                           const std::vector<std::vector<int>>& token_type_ids, int pad_id);

}  // namespace attn
