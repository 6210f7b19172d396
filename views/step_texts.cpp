#include "views/step_texts.h"

#include <QCoreApplication>

#include "model/number_format.h"
#include "views/matrix_panel.h"
#include "views/number_text.h"

namespace views {

namespace {

// Marked with QT_TRANSLATE_NOOP so lupdate collects them; translated when looked up.
struct StepEntry {
    const char* id;
    const char* title;
    const char* html;
};

// Every number, shape, token and sentence is a {placeholder} filled from the step's text_args,
// so the texts stay true for any example file.
constexpr StepEntry kSteps[] = {
    {"inputs", QT_TRANSLATE_NOOP("StepText", "Input embeddings"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>Each token of the sentence <i>“{sentence}”</i> is a vector of "
                       "d_in = {d_in} numbers, its <b>embedding</b> x<sup>(i)</sup>.</p>"
                       "<p>Self-attention computes, for every token, a <b>context vector</b> "
                       "z<sup>(i)</sup> that mixes information from all {num_tokens} tokens. We "
                       "follow token {query_number}, <i>{query_token}</i>, "
                       "x<sup>({query_number})</sup>.</p>")},
    {"scores-journey", QT_TRANSLATE_NOOP("StepText", "Attention scores for “{query_token}”"),
     QT_TRANSLATE_NOOP(
         "StepText",
         "<p>The <b>query</b> is x<sup>({query_number})</sup>. Its attention score with every "
         "token is a dot product:</p>"
         "<p align=center>ω<sub>{query_number}j</sub> = x<sup>({query_number})</sup> · "
         "x<sup>(j)</sup> = Σ<sub>k</sub> x<sup>({query_number})</sup><sub>k</sub> "
         "x<sup>(j)</sup><sub>k</sub></p>"
         "<p>The larger the dot product, the more the two vectors point the same "
         "way: <i>{query_token}</i> scores highest with <i>{best_token}</i> ({best_score}) and "
         "lowest with <i>{worst_token}</i> ({worst_score}).</p>")},
    {"weights-journey", QT_TRANSLATE_NOOP("StepText", "Attention weights: normalising the scores"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>Scores become <b>weights</b> α<sub>{query_number}j</sub> that are "
                       "positive and sum to 1. Dividing by the sum works here but fails for "
                       "negative scores. <b>Softmax</b> always gives positive weights:</p>"
                       "<p align=center>α<sub>{query_number}j</sub> = exp(ω<sub>{query_number}j"
                       "</sub>) / Σ<sub>k</sub> exp(ω<sub>{query_number}k</sub>)</p>"
                       "<p>Computed naively, exp() overflows a float for scores above about "
                       "88.7. The last three matrices multiply the scores by {large_factor} "
                       "(largest {large_max}): the naive softmax gives NaN for {large_nan_count} "
                       "of the {num_tokens} weights, while the stable softmax subtracts the row "
                       "maximum first and gets weights that sum to 1.</p>")},
    {"context-journey", QT_TRANSLATE_NOOP("StepText", "The context vector z⁽{query_sup}⁾"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>The context vector of <i>{query_token}</i> is the sum of all "
                       "embeddings, each weighted by its attention weight:</p>"
                       "<p align=center>z<sup>({query_number})</sup> = Σ<sub>j</sub> "
                       "α<sub>{query_number}j</sub> x<sup>(j)</sup></p>"
                       "<p>Tokens with larger weights contribute more.</p>")},
    {"all-tokens", QT_TRANSLATE_NOOP("StepText", "All tokens at once"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>In matrix form every token is a query at the same time:</p>"
                       "<p align=center>Ω = X X<sup>T</sup> &nbsp;({num_tokens} × {num_tokens}), "
                       "&nbsp; A = softmax(Ω) row by row, &nbsp; Z = A X &nbsp;({num_tokens} × "
                       "{d_in})</p>"
                       "<p>Row {query_number} repeats what the last three steps computed for "
                       "<i>{query_token}</i>.</p>")},
    {"trainable-weights", QT_TRANSLATE_NOOP("StepText", "Trainable weights W_q, W_k, W_v"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>Self-attention in a transformer <b>learns</b> three matrices, each "
                       "d_in × d_out = {d_in} × {d_out}: W<sub>q</sub> for queries, "
                       "W<sub>k</sub> for keys and W<sub>v</sub> for values.</p>"
                       "<p><code>torch.manual_seed({seed})</code> and <code>torch.rand</code> "
                       "give the same numbers as in PyTorch; training would change them.</p>")},
    {"queries-keys-values", QT_TRANSLATE_NOOP("StepText", "Queries, keys and values"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>Every token is projected three times:</p>"
                       "<p align=center>q<sup>(i)</sup> = x<sup>(i)</sup> W<sub>q</sub>, &nbsp; "
                       "k<sup>(i)</sup> = x<sup>(i)</sup> W<sub>k</sub>, &nbsp; "
                       "v<sup>(i)</sup> = x<sup>(i)</sup> W<sub>v</sub></p>"
                       "<p>The <b>query</b> asks, the <b>keys</b> are matched against it, and "
                       "the <b>values</b> are what gets mixed. The highlighted row is "
                       "q<sup>({query_number})</sup> of <i>{query_token}</i>.</p>")},
    {"scaled-scores", QT_TRANSLATE_NOOP("StepText", "Scaled dot-product attention"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>Scores are ω<sub>ij</sub> = q<sup>(i)</sup> · k<sup>(j)</sup>; "
                       "softmax gets the <b>scaled score</b> ω̃<sub>ij</sub> = ω<sub>ij</sub> "
                       "/ √d<sub>k</sub>:</p><p align=center>α = softmax(ω̃) = softmax(Q "
                       "K<sup>T</sup> / √d<sub>k</sub>), &nbsp; Z = α V</p><p>Why scale? Dot "
                       "products of wide vectors grow like √d<sub>k</sub>; unscaled, softmax "
                       "turns almost one-hot and its gradients vanish. At d<sub>k</sub> = "
                       "{d_k} nothing saturates: the largest weight of a row is "
                       "{max_unscaled} on average unscaled, {max_scaled} scaled. The last two "
                       "matrices use d<sub>k</sub> = {wide_d_k} (random q, k from "
                       "<code>torch.randn</code>, seed {seed}): {wide_max_unscaled} unscaled, "
                       "close to one-hot; {wide_max_scaled} divided by √{wide_d_k} = "
                       "{wide_sqrt_d_k}.</p>")},
    {"self-attention-classes", QT_TRANSLATE_NOOP("StepText", "The SelfAttention class, v1 and v2"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>The same computation packed into a module. <b>v1</b> keeps W as "
                       "<code>nn.Parameter(torch.rand(d_in, d_out))</code>; <b>v2</b> uses "
                       "<code>nn.Linear</code> layers, initialised uniformly in ±1/√d_in = "
                       "±{linear_bound} and able to add a bias.</p><p>Different weights, hence "
                       "different context vectors: v2's are <code>{v2_first_row}</code>.</p>")},
    {"causal-renormalize",
     QT_TRANSLATE_NOOP("StepText", "Causal mask, method 1: mask and renormalise"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>A language model must not look at future tokens. Multiply the weights "
                       "by a lower-triangular mask (1 on and below the diagonal), then divide "
                       "each row by its new sum so that it adds up to 1 again.</p>")},
    {"causal-softmax", QT_TRANSLATE_NOOP("StepText", "Causal mask, method 2: −∞ before softmax"),
     QT_TRANSLATE_NOOP(
         "StepText",
         "<p>Fill the scores above the diagonal with −∞, then apply softmax. "
         "Because exp(−∞) = 0 the future gets zero weight and every row sums to 1 "
         "in a single step.</p><p>The difference matrix shows that both methods "
         "give the same weights.</p><p>The fill goes into the raw scores, before "
         "the division by √d_k, as <code>CausalAttention</code> does it; BERT and "
         "GPT-2 divide first and fill after. With −∞ the order makes no "
         "difference; a finite fill is divided by √d_k only in the first order.</p>")},
    {"dropout", QT_TRANSLATE_NOOP("StepText", "Dropout on the attention weights"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>During <b>training</b>, dropout with p = {dropout_p} sets each weight "
                       "to 0 with probability {dropout_p} and divides the kept ones by 1 − p: "
                       "α′ = α / (1 − p) = {dropout_scale} · α, so the expected value stays the "
                       "same. This draw keeps {kept_unmasked} of the {unmasked_cells} weights on "
                       "and below the diagonal and drops {dropped_cells}.</p><p>In "
                       "<b>inference</b> (<code>model.eval()</code>) dropout does nothing: "
                       "α′ = α. Switch between the two modes to compare.</p>")},
    {"causal-attention-batch", QT_TRANSLATE_NOOP("StepText", "CausalAttention on a batch of two"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>The <code>CausalAttention</code> class combines the projections, the "
                       "causal mask and dropout, and accepts batches: an input of shape "
                       "{batch_shape} gives context vectors of shape {context_shape}. The two "
                       "copies of the sentence give the same result.</p>")},
    {"multi-head", QT_TRANSLATE_NOOP("StepText", "Multi-head attention"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>Several <b>heads</b> attend in parallel, each with its own "
                       "W<sub>q</sub>, W<sub>k</sub>, W<sub>v</sub>; their outputs are "
                       "concatenated.</p><p>The wrapper stacks {num_heads} CausalAttention "
                       "modules. <code>MultiHeadAttention</code> splits the columns of one "
                       "wide W<sub>q</sub> ({d_in} × {fused_out}) between the heads (head_dim "
                       "= {fused_out} / {num_heads} = {head_dim}): columns {head1_cols} "
                       "belong to head 1, columns {head2_cols} to head 2. It computes all "
                       "heads at once, concatenates them in that order and mixes them with "
                       "<code>out_proj</code>.</p>")},
    {"cross-attention", QT_TRANSLATE_NOOP("StepText", "Cross-attention"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>In a translation model the decoder's tokens ask and the encoder's "
                       "tokens answer: <b>queries</b> come from one sequence, <b>keys and "
                       "values</b> from another.</p><p>The weight matrix is rectangular, "
                       "{num_tokens} × {num_source}: each target token spreads its attention "
                       "over the {num_source} tokens of the Chinese source "
                       "“{source_sentence}”.</p>")},
    {"kv-cache", QT_TRANSLATE_NOOP("StepText", "KV caching"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>When a model generates text one token at a time, the keys and values "
                       "of past tokens never change. A <b>KV cache</b> keeps them, so each new "
                       "token computes only its own query, key and value and one row of "
                       "attention per head.</p><p>This is step 14's "
                       "<code>MultiHeadAttention</code>: {num_heads} heads of head_dim "
                       "{head_dim}. The cache keeps their keys and values side by side, columns "
                       "{head1_cols} for head 1 and {head2_cols} for head 2, and each head "
                       "attends with its own columns. Step through the {num_tokens} "
                       "tokens: the cache grows by one row, the output equals the full causal "
                       "pass, and the counters show the multiplications saved.</p>")},
    {"gqa", QT_TRANSLATE_NOOP("StepText", "Grouped-query and multi-query attention"),
     QT_TRANSLATE_NOOP(
         "StepText",
         "<p>The KV cache keeps every head's keys and values. In <b>grouped-query attention</b> "
         "(GQA: LLaMA 2 and 3, Mistral) several query heads share one key/value head; with a "
         "single K/V head it is <b>multi-query attention</b> (MQA). Here {num_heads} query heads "
         "of head_dim {head_dim} (d_out = {gqa_d_out}) share 1, {gqa_kv_heads}, then "
         "{num_heads} K/V heads: W_key and W_value have K/V heads × head_dim columns, and "
         "<code>repeat_interleave</code> hands each K/V head to its group of query heads, "
         "{gqa_group} of them with {gqa_kv_heads} K/V heads.</p>"
         "<p>The cache a decoder keeps, 2 × {num_tokens} tokens × K/V heads × {head_dim} × 4 "
         "bytes, shrinks by the group factor: {mha_cache_bytes} bytes with {num_heads} K/V "
         "heads, {gqa_cache_bytes} with {gqa_kv_heads}, {mqa_cache_bytes} with 1. The query "
         "heads still attend in their own ways, with fewer distinct keys.</p>"
         "<p>With as many K/V heads as query heads nothing is shared: it is the seed's "
         "<code>MultiHeadAttention</code> with the same seed, number for number (the largest "
         "difference is among the page's numbers).</p>")},
    {"masks", QT_TRANSLATE_NOOP("StepText", "Masks beyond causal"),
     QT_TRANSLATE_NOOP(
         "StepText",
         "<p>Step 11's causal mask is one of several. A mask says which keys each query may see: "
         "1 = attend, 0 = blocked, and blocked scores become −∞ before softmax "
         "(<code>masked_fill(mask == 0, -inf)</code>). Switch between three masks on the same "
         "scores; step 11's causal weights stay beside them:</p>"
         "<p><b>sliding window</b>: each token sees only the last {window} tokens, itself "
         "included (Mistral, Longformer), so the cost grows with the window, not the "
         "length.</p>"
         "<p><b>bidirectional</b>: an encoder (BERT) sees every token, before and after.</p>"
         "<p><b>padding</b>: a batch holds sentences of different lengths, so the shorter one "
         "is filled up with {num_padding} padding tokens after its {valid_tokens} real ones. "
         "Padded keys get no weight; the padded query rows (from row {first_padding}) are "
         "computed and then ignored. Sentence 1 is step 11 itself; the matrices show sentence "
         "2, whose real rows equal step 11's first {valid_tokens} rows: a causal token never sees "
         "what follows "
         "it.</p>")},
    {"rope", QT_TRANSLATE_NOOP("StepText", "Rotary position embeddings (RoPE)"),
     QT_TRANSLATE_NOOP(
         "StepText",
         "<p>Attention has no notion of order: a score compares a query with a key wherever the "
         "two tokens stand. Reverse the sentence to “{permuted_sentence}” and the scores are "
         "the same numbers, reversed in rows and columns (ωᴾ): the difference is 0.</p>"
         "<p><b>RoPE</b> (LLaMA, Mistral, Qwen) rotates every query and key before the scores. "
         "Coordinate i pairs with coordinate i + head_dim/2, and the pair of the token at "
         "position p turns by the angle p · θ<sub>i</sub>, θ<sub>i</sub> = "
         "{rope_base}<sup>−2i/head_dim</sup>. Here head_dim = {rope_dim}, and the first pair "
         "turns by p radians: <i>{query_token}</i> at position {query_position} turns by "
         "{query_angle} rad. The scores change: their difference from those without RoPE is not "
         "0.</p>"
         "<p>Rotating both vectors keeps their lengths, and their dot product depends only on "
         "the angle between them, so the score of query i and key j depends on j − i. Shift "
         "every position by {rope_shift}: every angle changes, and the difference from the "
         "unshifted scores is 0 up to float rounding.</p>")},
    {"flash-tiles", QT_TRANSLATE_NOOP("StepText", "FlashAttention's tiles"),
     QT_TRANSLATE_NOOP(
         "StepText",
         "<p>Step 11 stores the whole {num_tokens} × {num_tokens} matrix of weights. "
         "FlashAttention never does: it walks over tiles of {query_tile} queries × {key_tile} "
         "key, and keeps per query only a running maximum <b>m</b>, a running sum <b>ℓ</b> of "
         "exp(ω̃ − m) and an unnormalised output <b>o</b>.</p>"
         "<p>When a tile raises the maximum, what was summed so far was computed against the "
         "old maximum: ℓ and o are multiplied by <b>s = exp(m<sub>old</sub> − "
         "m<sub>new</sub>)</b>. After a query tile's last key tile, z = o / ℓ, which equals "
         "step 11's context vectors. Of the {num_tiles} tiles, {tiles_skipped} lie above the "
         "diagonal and are skipped: every key comes after every query.</p>"
         "<p>At T = {big_t} tokens the full matrix takes T² × 4 = {scores_bytes} bytes per "
         "head; the tiles need only m and ℓ per query and one tile, (2T + {query_tile} × "
         "{key_tile}) × 4 = {tiled_bytes} bytes, about {memory_ratio} times less. The "
         "engine's own fast path (model/fast_attention.cpp) works this way, with larger "
         "tiles.</p>")},
};

struct CaptionEntry {
    const char* id;
    const char* caption;
};

// Captions by matrix id; the same id means the same concept in every step.
constexpr CaptionEntry kCaptions[] = {
    {"inputs", QT_TRANSLATE_NOOP("StepText", "Inputs X")},
    {"query", QT_TRANSLATE_NOOP("StepText", "Query x⁽{query_sup}⁾")},
    {"attn-scores-journey", QT_TRANSLATE_NOOP("StepText", "Scores ω{query_sub}ⱼ")},
    {"naive-norm", QT_TRANSLATE_NOOP("StepText", "Divided by the sum")},
    {"naive-softmax", QT_TRANSLATE_NOOP("StepText", "Naive softmax")},
    {"softmax", QT_TRANSLATE_NOOP("StepText", "Stable softmax")},
    {"large-scores", QT_TRANSLATE_NOOP("StepText", "Scores × {large_factor}")},
    {"large-naive-softmax",
     QT_TRANSLATE_NOOP("StepText", "Naive softmax of scores × {large_factor}")},
    {"large-softmax", QT_TRANSLATE_NOOP("StepText", "Stable softmax of scores × {large_factor}")},
    {"attn-weights-journey", QT_TRANSLATE_NOOP("StepText", "Weights α{query_sub}ⱼ")},
    {"context-vec-journey", QT_TRANSLATE_NOOP("StepText", "Context vector z⁽{query_sup}⁾")},
    {"attn-scores", QT_TRANSLATE_NOOP("StepText", "Attention scores ω")},
    {"attn-scores-scaled", QT_TRANSLATE_NOOP("StepText", "Scaled scores ω̃ = ω / √d_k")},
    {"attn-weights", QT_TRANSLATE_NOOP("StepText", "Attention weights α")},
    {"attn-weights-unscaled", QT_TRANSLATE_NOOP("StepText", "Weights without scaling")},
    {"attn-weights-unscaled-64",
     QT_TRANSLATE_NOOP("StepText", "d_k = {wide_d_k}: weights without scaling")},
    {"attn-weights-64", QT_TRANSLATE_NOOP("StepText", "d_k = {wide_d_k}: weights of ω / √d_k")},
    {"context-vecs", QT_TRANSLATE_NOOP("StepText", "Context vectors Z")},
    {"W_query", QT_TRANSLATE_NOOP("StepText", "W_query")},
    {"W_key", QT_TRANSLATE_NOOP("StepText", "W_key")},
    {"W_value", QT_TRANSLATE_NOOP("StepText", "W_value")},
    {"queries", QT_TRANSLATE_NOOP("StepText", "Queries Q")},
    {"keys", QT_TRANSLATE_NOOP("StepText", "Keys K")},
    {"values", QT_TRANSLATE_NOOP("StepText", "Values V")},
    {"attn-weights-v1", QT_TRANSLATE_NOOP("StepText", "v1: attention weights")},
    {"values-v1", QT_TRANSLATE_NOOP("StepText", "v1: values")},
    {"context-v1", QT_TRANSLATE_NOOP("StepText", "v1: context vectors")},
    {"attn-weights-v2", QT_TRANSLATE_NOOP("StepText", "v2: attention weights")},
    {"values-v2", QT_TRANSLATE_NOOP("StepText", "v2: values")},
    {"context-v2", QT_TRANSLATE_NOOP("StepText", "v2: context vectors")},
    {"causal-mask", QT_TRANSLATE_NOOP("StepText", "Causal mask (lower triangle)")},
    {"masked-weights", QT_TRANSLATE_NOOP("StepText", "Weights × mask")},
    {"causal-weights", QT_TRANSLATE_NOOP("StepText", "Causal attention weights")},
    {"masked-scores", QT_TRANSLATE_NOOP("StepText", "Scores with −∞ above the diagonal")},
    {"causal-weights-renormalized", QT_TRANSLATE_NOOP("StepText", "Method 1 (renormalised)")},
    {"method-difference", QT_TRANSLATE_NOOP("StepText", "|method 2 − method 1|")},
    {"dropout-mask", QT_TRANSLATE_NOOP("StepText", "Kept (1) and dropped (0)")},
    {"dropped-weights", QT_TRANSLATE_NOOP("StepText", "Weights after dropout α′")},
    {"batch-1-weights", QT_TRANSLATE_NOOP("StepText", "Batch item 1: weights")},
    {"batch-1-values", QT_TRANSLATE_NOOP("StepText", "Batch item 1: values")},
    {"batch-1-context", QT_TRANSLATE_NOOP("StepText", "Batch item 1: context vectors")},
    {"batch-2-weights", QT_TRANSLATE_NOOP("StepText", "Batch item 2: weights")},
    {"batch-2-values", QT_TRANSLATE_NOOP("StepText", "Batch item 2: values")},
    {"batch-2-context", QT_TRANSLATE_NOOP("StepText", "Batch item 2: context vectors")},
    {"wrapper-head-1", QT_TRANSLATE_NOOP("StepText", "Wrapper, head 1")},
    {"wrapper-head-2", QT_TRANSLATE_NOOP("StepText", "Wrapper, head 2")},
    {"wrapper-context", QT_TRANSLATE_NOOP("StepText", "Wrapper: heads concatenated")},
    {"W_query-fused", QT_TRANSLATE_NOOP("StepText", "Fused W_query, split by head")},
    {"head-1", QT_TRANSLATE_NOOP("StepText", "Head 1 weights")},
    {"head-2", QT_TRANSLATE_NOOP("StepText", "Head 2 weights")},
    {"concat", QT_TRANSLATE_NOOP("StepText", "Heads concatenated")},
    {"out_proj", QT_TRANSLATE_NOOP("StepText", "out_proj")},
    {"output", QT_TRANSLATE_NOOP("StepText", "Output after out_proj")},
    {"cross-scores", QT_TRANSLATE_NOOP("StepText", "Cross-attention scaled scores ω̃")},
    {"cross-weights", QT_TRANSLATE_NOOP("StepText", "Cross-attention weights")},
    {"cross-context", QT_TRANSLATE_NOOP("StepText", "Context vectors")},
    {"full-output", QT_TRANSLATE_NOOP("StepText", "Full causal pass")},
    {"new-query", QT_TRANSLATE_NOOP("StepText", "New query")},
    {"cached-keys", QT_TRANSLATE_NOOP("StepText", "Cached keys")},
    {"cached-values", QT_TRANSLATE_NOOP("StepText", "Cached values")},
    {"new-weights", QT_TRANSLATE_NOOP("StepText", "New weights row")},
    {"cached-outputs", QT_TRANSLATE_NOOP("StepText", "Outputs with the cache")},
    {"kv-map", QT_TRANSLATE_NOOP("StepText", "Query head → K/V head")},
    {"gqa-keys", QT_TRANSLATE_NOOP("StepText", "Cached keys, K/V heads side by side")},
    {"gqa-values", QT_TRANSLATE_NOOP("StepText", "Cached values, K/V heads side by side")},
    {"gqa-output", QT_TRANSLATE_NOOP("StepText", "Output after out_proj")},
    {"rope-angles", QT_TRANSLATE_NOOP("StepText", "Angles p · θᵢ (radians)")},
    {"rope-queries-before", QT_TRANSLATE_NOOP("StepText", "Queries before rotation")},
    {"rotated-queries", QT_TRANSLATE_NOOP("StepText", "Rotated queries qʳ")},
    {"rotated-keys", QT_TRANSLATE_NOOP("StepText", "Rotated keys kʳ")},
    {"rope-scores", QT_TRANSLATE_NOOP("StepText", "Scores ωʳ = qʳ · kʳ")},
    {"rope-weights", QT_TRANSLATE_NOOP("StepText", "Attention weights α")},
    {"rope-difference", QT_TRANSLATE_NOOP("StepText", "|Scores − the comparison|")},
    {"mask", QT_TRANSLATE_NOOP("StepText", "Mask (1 = attend, 0 = blocked)")},
    {"mask-weights", QT_TRANSLATE_NOOP("StepText", "Weights with this mask")},
    {"mask-context", QT_TRANSLATE_NOOP("StepText", "Context vectors with this mask")},
    {"tile-map", QT_TRANSLATE_NOOP("StepText", "Tiles: now (1), done (0.5), skipped (masked)")},
    {"tile-scores", QT_TRANSLATE_NOOP("StepText", "This tile's scores ω̃")},
    {"running-max", QT_TRANSLATE_NOOP("StepText", "Running maximum m")},
    {"rescale", QT_TRANSLATE_NOOP("StepText", "Rescaling s = exp(m_old − m)")},
    {"running-sum", QT_TRANSLATE_NOOP("StepText", "Running sum ℓ")},
    {"running-output", QT_TRANSLATE_NOOP("StepText", "Unnormalised output o")},
    {"tiled-context", QT_TRANSLATE_NOOP("StepText", "Context vectors z = o / ℓ")},
};

constexpr CaptionEntry kFacts[] = {
    {"max_abs_diff", QT_TRANSLATE_NOOP("StepText", "Largest difference")},
    {"dropout_p", QT_TRANSLATE_NOOP("StepText", "Dropout probability p")},
    {"kept_cells", QT_TRANSLATE_NOOP("StepText", "Weights kept")},
    {"batch_size", QT_TRANSLATE_NOOP("StepText", "Batch size")},
    {"num_tokens", QT_TRANSLATE_NOOP("StepText", "Tokens")},
    {"d_out", QT_TRANSLATE_NOOP("StepText", "d_out")},
    {"num_heads", QT_TRANSLATE_NOOP("StepText", "Heads")},
    {"head_dim", QT_TRANSLATE_NOOP("StepText", "head_dim")},
    {"mults_with_cache", QT_TRANSLATE_NOOP("StepText", "Multiplications with the cache")},
    {"mults_without_cache", QT_TRANSLATE_NOOP("StepText", "Multiplications without the cache")},
    {"cache_tokens", QT_TRANSLATE_NOOP("StepText", "Tokens in the cache")},
    {"cache_bytes", QT_TRANSLATE_NOOP("StepText", "Cache size (bytes)")},
    {"num_kv_heads", QT_TRANSLATE_NOOP("StepText", "K/V heads")},
    {"group_size", QT_TRANSLATE_NOOP("StepText", "Query heads per K/V head")},
    {"max_abs_diff_mha",
     QT_TRANSLATE_NOOP("StepText", "Largest difference from MultiHeadAttention")},
    {"visible_cells", QT_TRANSLATE_NOOP("StepText", "Weights not blocked")},
    {"tiles_done", QT_TRANSLATE_NOOP("StepText", "Tiles computed")},
    {"tiles_skipped", QT_TRANSLATE_NOOP("StepText", "Tiles skipped")},
    {"scores_bytes_4096", QT_TRANSLATE_NOOP("StepText", "Full matrix, long sequence (bytes)")},
    {"tiled_bytes_4096", QT_TRANSLATE_NOOP("StepText", "Tiles, long sequence (bytes)")},
};

// What a frame of a chapter is called; the KV-cache step's tokens are the page's own words.
constexpr CaptionEntry kFrameLabels[] = {
    {"padding", QT_TRANSLATE_NOOP("StepText", "padding")},
    {"window", QT_TRANSLATE_NOOP("StepText", "sliding window w = {window}")},
    {"bidirectional", QT_TRANSLATE_NOOP("StepText", "bidirectional")},
    {"mha", QT_TRANSLATE_NOOP("StepText", "{num_heads} K/V heads (MHA)")},
    {"gqa", QT_TRANSLATE_NOOP("StepText", "{gqa_kv_heads} K/V heads (GQA)")},
    {"mqa", QT_TRANSLATE_NOOP("StepText", "1 K/V head (MQA)")},
    {"reversed", QT_TRANSLATE_NOOP("StepText", "reversed, no RoPE")},
    {"rope", QT_TRANSLATE_NOOP("StepText", "RoPE, positions 0–{last_position}")},
    {"shift", QT_TRANSLATE_NOOP("StepText", "RoPE, positions + {rope_shift}")},
};

// The frame control of each chapter: "Mask 2 of 3: …" and its two buttons.
struct FrameEntry {
    const char* step_id;
    const char* frame_text;  // %1 of %2: %3 (the frame's label)
    const char* previous;
    const char* next;
};

constexpr FrameEntry kFrames[] = {
    {"gqa", QT_TRANSLATE_NOOP("StepText", "%1 of %2: %3"),
     QT_TRANSLATE_NOOP("StepText", "◀ Fewer K/V heads"),
     QT_TRANSLATE_NOOP("StepText", "More K/V heads ▶")},
    {"masks", QT_TRANSLATE_NOOP("StepText", "Mask %1 of %2: %3"),
     QT_TRANSLATE_NOOP("StepText", "◀ Previous mask"),
     QT_TRANSLATE_NOOP("StepText", "Next mask ▶")},
    {"rope", QT_TRANSLATE_NOOP("StepText", "Case %1 of %2: %3"),
     QT_TRANSLATE_NOOP("StepText", "◀ Previous case"),
     QT_TRANSLATE_NOOP("StepText", "Next case ▶")},
    {"flash-tiles", QT_TRANSLATE_NOOP("StepText", "Tile %1 of %2: %3"),
     QT_TRANSLATE_NOOP("StepText", "◀ Previous tile"),
     QT_TRANSLATE_NOOP("StepText", "Next tile ▶")},
};

const FrameEntry* frameEntry(const std::string& stepId) {
    for (const FrameEntry& e : kFrames)
        if (stepId == e.step_id) return &e;
    return nullptr;
}

QString tr(const char* text) { return QCoreApplication::translate("StepText", text); }

// The translated title and text with their {placeholders} still in.
StepText rawStepText(const std::string& stepId) {
    for (const StepEntry& e : kSteps)
        if (stepId == e.id) return {tr(e.title), tr(e.html)};
    return {QString::fromStdString(stepId), QString()};
}

// {name} -> the record's value; values in HTML are escaped (a token may be "<b>").
QString substituted(QString text, const attn::Step& step, bool html) {
    for (const auto& [name, value] : step.text_args) {
        const QString key = QLatin1Char('{') + QString::fromStdString(name) + QLatin1Char('}');
        const QString v = QString::fromStdString(value);
        text.replace(key, html ? v.toHtmlEscaped() : v);
    }
    return text;
}

}  // namespace

// A layer of a real model (attn::attention_layer_step, attn::model_layer_step): "layer-3".
StepText rawLayerText(const attn::Step& step) {
    const QString title = QCoreApplication::translate("StepText", "Layer {layer}");
    if (!step.arg("sqrt_head_dim").empty() && step.arg("encoder") == "1")
        return {title,
                QCoreApplication::translate(
                    "StepText",
                    "<p>Each row is one token of your text as a query; its cells are the "
                    "attention weights α it gives to every token, before and after it (an "
                    "encoder has no causal mask): softmax(q·k / √{head_dim}) with this model's "
                    "own queries and keys, head_dim = {head_dim}, √{head_dim} = "
                    "{sqrt_head_dim}. Every row sums to 1.</p>"
                    "<p>Point at a cell to see its arithmetic: the dot product q·k, the division "
                    "by {sqrt_head_dim} and the softmax over the row; the neuron view beside "
                    "it shows the vectors q and k behind it.</p>")};
    if (!step.arg("sqrt_head_dim").empty())
        return {title,
                QCoreApplication::translate(
                    "StepText",
                    "<p>Each row is one token of your text as a query; its cells are the "
                    "attention weights α it gives to itself and to the tokens before it (the "
                    "causal mask hides the later ones): softmax(q·k / √{head_dim}) with this "
                    "model's own queries and keys, head_dim = {head_dim}, √{head_dim} = "
                    "{sqrt_head_dim}. Every row sums to 1.</p>"
                    "<p>Point at a cell to see its arithmetic: the dot product q·k, the division "
                    "by {sqrt_head_dim} and the softmax over the row.</p>")};
    if (!step.arg("head_dim").empty())
        return {title,
                QCoreApplication::translate(
                    "StepText",
                    "<p>Each row is one token as a query, its cells the attention weights α it "
                    "gives to itself and to the tokens before it: softmax(q·k / √{head_dim}). "
                    "The rows of generated tokens come from the kv_cache, one new query against "
                    "the cached keys. Every row sums to 1.</p>"
                    "<p>The arithmetic of every cell comes back on hover once generation stops "
                    "and one full pass has run.</p>")};
    return {title, QCoreApplication::translate(
                       "StepText",
                       "<p>Attention weights as the model that wrote the file computed them: row "
                       "= query token, column = key token, {num_heads} heads over {num_tokens} "
                       "tokens. The file holds only the weights, not the queries and keys, so "
                       "a cell shows its value but not its arithmetic.</p>")};
}

StepText stepText(const attn::Step& step) {
    const StepText text = step.number == 0 && step.id.rfind("layer-", 0) == 0
                              ? rawLayerText(step)
                              : rawStepText(step.id);
    return {substituted(text.title, step, false), substituted(text.html, step, true)};
}

namespace {

// The translated caption with its {placeholders} still in.
QString rawCaption(const std::string& matrixId) {
    for (const CaptionEntry& e : kCaptions)
        if (matrixId == e.id) return tr(e.caption);
    // A head's copy of a matrix: "new-query-head-2" is "Head 2 · New query".
    const std::string marker = "-head-";
    const std::size_t at = matrixId.rfind(marker);
    if (at != std::string::npos && at > 0) {
        const std::string head = matrixId.substr(at + marker.size());
        const std::string base = matrixId.substr(0, at);
        for (const CaptionEntry& e : kCaptions)
            if (base == e.id)
                return QCoreApplication::translate("StepText", "Head %1 · %2")
                    .arg(QString::fromStdString(head), tr(e.caption));
        // A real model's head (attn::model_layer_step): "layer-3-head-5".
        if (base.rfind("layer-", 0) == 0)
            return QCoreApplication::translate("StepText", "Layer %1 · head %2")
                .arg(QString::fromStdString(base.substr(6)), QString::fromStdString(head));
    }
    return QString::fromStdString(matrixId);
}

}  // namespace

QString matrixCaption(const attn::Step& step, const attn::StepMatrix& matrix) {
    // Grouped-query attention: which K/V head this query head's weights read.
    if (matrix.kv_head > 0 && matrix.head > 0)
        return QCoreApplication::translate("StepText", "Query head %1 · K/V head %2")
            .arg(matrix.head)
            .arg(matrix.kv_head);
    return substituted(rawCaption(matrix.id), step, false);
}

QString frameText(const attn::Step& step, int frame) {
    if (frame < 0 || static_cast<std::size_t>(frame) >= step.frame_labels.size()) return {};
    const FrameEntry* entry = frameEntry(step.id);
    if (!entry) return {};
    const std::string& label = step.frame_labels[static_cast<std::size_t>(frame)];
    // Named frames (masks, variants, parts) are translated; tiles are named by their tokens.
    QString name = QString::fromStdString(label);
    for (const CaptionEntry& e : kFrameLabels)
        if (label == e.id) name = substituted(tr(e.caption), step, false);
    return tr(entry->frame_text)
        .arg(QString::number(frame + 1), QString::number(step.frame_count), name);
}

std::pair<QString, QString> frameButtonTexts(const attn::Step& step) {
    const FrameEntry* entry = frameEntry(step.id);
    if (!entry) return {};
    return {tr(entry->previous), tr(entry->next)};
}

QString factLabel(const std::string& factId) {
    for (const CaptionEntry& e : kFacts)
        if (factId == e.id) return tr(e.caption);
    return QString::fromStdString(factId);
}

attn::Matrix shownValues(const attn::Step& step, const attn::StepMatrix& m, bool inference) {
    if (inference) {
        // model.eval(): dropout passes the weights through and keeps every cell.
        if (m.derivation == attn::Derivation::Dropout) {
            if (const attn::StepMatrix* input = step.find(m.lhs, m.frame)) return input->values;
        }
        for (const attn::StepMatrix& other : step.matrices)
            if (other.derivation == attn::Derivation::Dropout && other.rhs == m.id)
                return attn::Matrix::Ones(m.values.rows(), m.values.cols());
    }
    return m.values;
}

QString cellHoverText(const attn::Step& step, const attn::StepMatrix& m, int row, int column,
                      bool inference) {
    if (row < 0 || column < 0 || row >= m.values.rows() || column >= m.values.cols()) return {};
    // The page's own words keep the page's translation context.
    auto pageTr = [](const char* text) {
        return QCoreApplication::translate("views::StepPage", text);
    };
    const attn::Matrix values = shownValues(step, m, inference);
    const double value = static_cast<double>(values(row, column));
    const Eigen::Index shownRow = m.row_vector_index ? m.query_index : row;
    const QString name = QString::fromStdString(m.symbol + attn::subscript(shownRow + 1) +
                                                attn::subscript(column + 1));
    if (inference) {
        if (m.derivation == attn::Derivation::Dropout)
            return pageTr(QT_TRANSLATE_NOOP(
                              "views::StepPage",
                              "%1 = %2: at inference dropout keeps every weight as it is"))
                .arg(name, fixedText(value));
        for (const attn::StepMatrix& other : step.matrices)
            if (other.derivation == attn::Derivation::Dropout && other.rhs == m.id)
                return pageTr(QT_TRANSLATE_NOOP("views::StepPage",
                                                "%1 = 1: at inference nothing is dropped"))
                    .arg(name);
    }
    const QString formula = QString::fromStdString(attn::explain_cell(step, m, row, column));
    if (!formula.isEmpty()) return formula;
    QString text = name + QStringLiteral(" = ") + fixedText(value);
    if (isBlocked(m, row, column))
        text +=
            QLatin1Char(' ') +
            pageTr(QT_TRANSLATE_NOOP("views::StepPage", "(masked: filled with %1 before softmax)"))
                .arg(fixedText(static_cast<double>(m.fill_value)));
    return text;
}

}  // namespace views
