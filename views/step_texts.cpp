#include "step_texts.h"

#include <QCoreApplication>

namespace views {

namespace {

// Marked with QT_TRANSLATE_NOOP so lupdate collects them; translated when looked up.
struct StepEntry {
    const char* id;
    const char* title;
    const char* html;
};

constexpr StepEntry kSteps[] = {
    {"inputs", QT_TRANSLATE_NOOP("StepText", "Input embeddings"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>Each token of the sentence <i>“Your journey starts with one step”</i> "
                       "is a vector of three numbers, its <b>embedding</b> "
                       "x<sup>(i)</sup>.</p><p>Self-attention computes, for every token, a "
                       "<b>context vector</b> z<sup>(i)</sup> that mixes information from all "
                       "tokens. We follow the second token, <i>journey</i>, "
                       "x<sup>(2)</sup>, as the tutorial does.</p>")},
    {"scores-journey", QT_TRANSLATE_NOOP("StepText", "Attention scores for “journey”"),
     QT_TRANSLATE_NOOP(
         "StepText",
         "<p>The <b>query</b> is x<sup>(2)</sup>. Its attention score with every "
         "token is a dot product:</p>"
         "<p align=center>ω<sub>2j</sub> = x<sup>(2)</sup> · x<sup>(j)</sup> = "
         "Σ<sub>k</sub> x<sup>(2)</sup><sub>k</sub> x<sup>(j)</sup><sub>k</sub></p>"
         "<p>The larger the dot product, the more the two vectors point the same "
         "way: <i>journey</i> scores highest with itself and with <i>starts</i>.</p>")},
    {"weights-journey", QT_TRANSLATE_NOOP("StepText", "Attention weights: normalising the scores"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>Scores become <b>weights</b> α<sub>2j</sub> that are positive and sum "
                       "to 1. Dividing by the sum works here but fails for negative scores. "
                       "<b>Softmax</b> always gives positive weights:</p>"
                       "<p align=center>α<sub>2j</sub> = exp(ω<sub>2j</sub>) / "
                       "Σ<sub>k</sub> exp(ω<sub>2k</sub>)</p>"
                       "<p>Computed naively, exp() overflows a float for scores above about 88. "
                       "The last three rows multiply the scores by 100: the naive softmax "
                       "returns NaN, while the stable softmax subtracts the row maximum first "
                       "and gets the right answer.</p>")},
    {"context-journey", QT_TRANSLATE_NOOP("StepText", "The context vector z⁽²⁾"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>The context vector of <i>journey</i> is the sum of all embeddings, "
                       "each weighted by its attention weight:</p>"
                       "<p align=center>z<sup>(2)</sup> = Σ<sub>j</sub> α<sub>2j</sub> "
                       "x<sup>(j)</sup></p>"
                       "<p>Tokens with larger weights contribute more.</p>")},
    {"all-tokens", QT_TRANSLATE_NOOP("StepText", "All tokens at once"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>In matrix form every token is a query at the same time:</p>"
                       "<p align=center>Ω = X X<sup>T</sup> &nbsp;(6 × 6), &nbsp; "
                       "A = softmax(Ω) row by row, &nbsp; Z = A X &nbsp;(6 × 3)</p>"
                       "<p>Row 2 repeats what the last three steps computed for "
                       "<i>journey</i>.</p>")},
    {"trainable-weights", QT_TRANSLATE_NOOP("StepText", "Trainable weights W_q, W_k, W_v"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>Self-attention in a transformer <b>learns</b> three matrices, each "
                       "d_in × d_out = 3 × 2: W<sub>q</sub> for queries, W<sub>k</sub> for keys "
                       "and W<sub>v</sub> for values.</p><p><code>torch.manual_seed(123)</code> "
                       "and <code>torch.rand</code> give the tutorial's exact numbers; training "
                       "would change them.</p>")},
    {"queries-keys-values", QT_TRANSLATE_NOOP("StepText", "Queries, keys and values"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>Every token is projected three times:</p>"
                       "<p align=center>q<sup>(i)</sup> = x<sup>(i)</sup> W<sub>q</sub>, &nbsp; "
                       "k<sup>(i)</sup> = x<sup>(i)</sup> W<sub>k</sub>, &nbsp; "
                       "v<sup>(i)</sup> = x<sup>(i)</sup> W<sub>v</sub></p>"
                       "<p>The <b>query</b> asks, the <b>keys</b> are matched against it, and "
                       "the <b>values</b> are what gets mixed. The highlighted row is "
                       "q<sup>(2)</sup> of <i>journey</i>.</p>")},
    {"scaled-scores", QT_TRANSLATE_NOOP("StepText", "Scaled dot-product attention"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>Scores are now ω<sub>ij</sub> = q<sup>(i)</sup> · k<sup>(j)</sup>, "
                       "divided by √d<sub>k</sub> before softmax:</p>"
                       "<p align=center>α = softmax(Q K<sup>T</sup> / √d<sub>k</sub>), "
                       "&nbsp; Z = α V</p>"
                       "<p>Why scale? Dot products of wide vectors grow like √d<sub>k</sub>; "
                       "without the division softmax turns almost one-hot and its gradients "
                       "vanish. Compare the unscaled and the scaled weights.</p>")},
    {"self-attention-classes", QT_TRANSLATE_NOOP("StepText", "The SelfAttention class, v1 and v2"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>The same computation packed into a module. <b>v1</b> keeps W as "
                       "<code>nn.Parameter(torch.rand(d_in, d_out))</code>; <b>v2</b> uses "
                       "<code>nn.Linear</code> layers, initialised uniformly in ±1/√d_in and "
                       "able to add a bias.</p><p>Different weights, hence different context "
                       "vectors: v2's are the tutorial's "
                       "<code>[[-0.5337, -0.1051], …]</code>.</p>")},
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
                       "<p>During <b>training</b>, dropout with p = 0.5 sets each weight to 0 "
                       "with probability 0.5 and multiplies the kept ones by 1/(1 − p) = 2, so "
                       "the expected value stays the same.</p><p>In <b>inference</b> "
                       "(<code>model.eval()</code>) dropout does nothing. Switch between the "
                       "two modes to compare.</p>")},
    {"causal-attention-batch", QT_TRANSLATE_NOOP("StepText", "CausalAttention on a batch of two"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>The <code>CausalAttention</code> class combines the projections, the "
                       "causal mask and dropout, and accepts batches: an input of shape "
                       "(2, 6, 3) gives context vectors of shape (2, 6, 2). The two copies of "
                       "the sentence give the same result.</p>")},
    {"multi-head", QT_TRANSLATE_NOOP("StepText", "Multi-head attention"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>Several <b>heads</b> attend in parallel, each with its own "
                       "W<sub>q</sub>, W<sub>k</sub>, W<sub>v</sub>, and their outputs are "
                       "concatenated.</p><p>The wrapper stacks CausalAttention modules. "
                       "<code>MultiHeadAttention</code> uses one wide W<sub>q</sub> (3 × 4) "
                       "whose columns are split between the heads (head_dim = d_out / "
                       "num_heads), computes all heads at once, concatenates them and mixes "
                       "them with <code>out_proj</code>.</p>")},
    {"cross-attention", QT_TRANSLATE_NOOP("StepText", "Cross-attention"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>In a translation model the decoder's tokens ask and the encoder's "
                       "tokens answer: <b>queries</b> come from one sequence, <b>keys and "
                       "values</b> from another.</p><p>The weight matrix is rectangular, 6 × 4: "
                       "each English token spreads its attention over the four tokens of the "
                       "Chinese source “你的 旅程 始于 一步”.</p>")},
    {"kv-cache", QT_TRANSLATE_NOOP("StepText", "KV caching"),
     QT_TRANSLATE_NOOP("StepText",
                       "<p>When a model generates text one token at a time, the keys and values "
                       "of past tokens never change. A <b>KV cache</b> keeps them, so each new "
                       "token computes only its own query, key and value and one row of "
                       "attention.</p><p>Step through the tokens: the cache grows by one row, "
                       "the output equals the full causal pass, and the counters show the "
                       "multiplications saved.</p>")},
};

struct CaptionEntry {
    const char* id;
    const char* caption;
};

// Captions by matrix id; the same id means the same concept in every step.
constexpr CaptionEntry kCaptions[] = {
    {"inputs", QT_TRANSLATE_NOOP("StepText", "Inputs X")},
    {"query", QT_TRANSLATE_NOOP("StepText", "Query x⁽²⁾")},
    {"attn-scores-journey", QT_TRANSLATE_NOOP("StepText", "Scores ω₂ⱼ")},
    {"naive-norm", QT_TRANSLATE_NOOP("StepText", "Divided by the sum")},
    {"naive-softmax", QT_TRANSLATE_NOOP("StepText", "Naive softmax")},
    {"softmax", QT_TRANSLATE_NOOP("StepText", "Stable softmax")},
    {"large-scores", QT_TRANSLATE_NOOP("StepText", "Scores × 100")},
    {"large-naive-softmax", QT_TRANSLATE_NOOP("StepText", "Naive softmax of scores × 100")},
    {"large-softmax", QT_TRANSLATE_NOOP("StepText", "Stable softmax of scores × 100")},
    {"attn-weights-journey", QT_TRANSLATE_NOOP("StepText", "Weights α₂ⱼ")},
    {"context-vec-journey", QT_TRANSLATE_NOOP("StepText", "Context vector z⁽²⁾")},
    {"attn-scores", QT_TRANSLATE_NOOP("StepText", "Attention scores ω")},
    {"attn-scores-scaled", QT_TRANSLATE_NOOP("StepText", "Scaled scores ω / √d_k")},
    {"attn-weights", QT_TRANSLATE_NOOP("StepText", "Attention weights α")},
    {"attn-weights-unscaled", QT_TRANSLATE_NOOP("StepText", "Weights without scaling")},
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
    {"dropped-weights", QT_TRANSLATE_NOOP("StepText", "Weights after dropout")},
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
    {"cross-scores", QT_TRANSLATE_NOOP("StepText", "Cross-attention scores")},
    {"cross-weights", QT_TRANSLATE_NOOP("StepText", "Cross-attention weights")},
    {"cross-context", QT_TRANSLATE_NOOP("StepText", "Context vectors")},
    {"full-output", QT_TRANSLATE_NOOP("StepText", "Full causal pass")},
    {"new-query", QT_TRANSLATE_NOOP("StepText", "New query")},
    {"cached-keys", QT_TRANSLATE_NOOP("StepText", "Cached keys")},
    {"cached-values", QT_TRANSLATE_NOOP("StepText", "Cached values")},
    {"new-weights", QT_TRANSLATE_NOOP("StepText", "New weights row")},
    {"cached-outputs", QT_TRANSLATE_NOOP("StepText", "Outputs with the cache")},
};

constexpr CaptionEntry kFacts[] = {
    {"max_abs_diff", QT_TRANSLATE_NOOP("StepText", "Largest difference")},
    {"dropout_p", QT_TRANSLATE_NOOP("StepText", "Dropout probability p")},
    {"kept_cells", QT_TRANSLATE_NOOP("StepText", "Cells kept")},
    {"batch_size", QT_TRANSLATE_NOOP("StepText", "Batch size")},
    {"num_tokens", QT_TRANSLATE_NOOP("StepText", "Tokens")},
    {"d_out", QT_TRANSLATE_NOOP("StepText", "d_out")},
    {"num_heads", QT_TRANSLATE_NOOP("StepText", "Heads")},
    {"head_dim", QT_TRANSLATE_NOOP("StepText", "head_dim")},
    {"mults_with_cache", QT_TRANSLATE_NOOP("StepText", "Multiplications with the cache")},
    {"mults_without_cache", QT_TRANSLATE_NOOP("StepText", "Multiplications without the cache")},
    {"cache_tokens", QT_TRANSLATE_NOOP("StepText", "Tokens in the cache")},
    {"cache_bytes", QT_TRANSLATE_NOOP("StepText", "Cache size (bytes)")},
};

QString tr(const char* text) { return QCoreApplication::translate("StepText", text); }

}  // namespace

StepText stepText(const std::string& stepId) {
    for (const StepEntry& e : kSteps)
        if (stepId == e.id) return {tr(e.title), tr(e.html)};
    return {QString::fromStdString(stepId), QString()};
}

StepText stepText(const attn::Step& step) {
    StepText text = stepText(step.id);
    for (const auto& [name, value] : step.text_args) {
        const QString key = QLatin1Char('{') + QString::fromStdString(name) + QLatin1Char('}');
        text.title.replace(key, QString::fromStdString(value));
        text.html.replace(key, QString::fromStdString(value));
    }
    return text;
}

QString matrixCaption(const std::string& /*stepId*/, const std::string& matrixId) {
    for (const CaptionEntry& e : kCaptions)
        if (matrixId == e.id) return tr(e.caption);
    return QString::fromStdString(matrixId);
}

QString factLabel(const std::string& factId) {
    for (const CaptionEntry& e : kFacts)
        if (factId == e.id) return tr(e.caption);
    return QString::fromStdString(factId);
}

}  // namespace views
