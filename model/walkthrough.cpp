#include "walkthrough.h"

#include <algorithm>
#include <cmath>

#include "kv_trace.h"
#include "modules.h"
#include "ops.h"
#include "rng.h"

namespace attn {

namespace {

std::vector<std::string> numbered(const char* prefix, Eigen::Index n) {
    std::vector<std::string> labels;
    for (Eigen::Index i = 1; i <= n; ++i) labels.push_back(prefix + std::to_string(i));
    return labels;
}

std::vector<std::string> first_tokens(const std::vector<std::string>& tokens, Eigen::Index n) {
    return {tokens.begin(), tokens.begin() + n};
}

Matrix to_float(const BoolMatrix& b) { return b.cast<float>(); }

// Builder for one step's matrices, so each step below reads as the tutorial's cells.
class StepBuilder {
public:
    StepBuilder(int number, std::string id, std::string snippet) {
        step_.number = number;
        step_.id = std::move(id);
        step_.snippet = std::move(snippet);
    }

    StepMatrix& add(std::string id, std::string symbol, Matrix values,
                    std::vector<std::string> rows, std::vector<std::string> cols, MatrixKind kind) {
        StepMatrix m;
        m.id = std::move(id);
        m.symbol = std::move(symbol);
        m.values = std::move(values);
        m.row_labels = std::move(rows);
        m.col_labels = std::move(cols);
        m.kind = kind;
        step_.matrices.push_back(std::move(m));
        return step_.matrices.back();
    }

    void fact(std::string id, double value, int frame = -1) {
        step_.facts.push_back({std::move(id), value, frame});
    }
    void highlight(std::string matrix_id, Eigen::Index row, Eigen::Index col = -1) {
        step_.highlights.push_back({std::move(matrix_id), row, col});
    }
    Step& step() { return step_; }
    Step take() { return std::move(step_); }

private:
    Step step_;
};

StepMatrix& derive(StepMatrix& m, Derivation d, std::string lhs, std::string rhs = {},
                   float divisor = 1.0f) {
    m.derivation = d;
    m.lhs = std::move(lhs);
    m.rhs = std::move(rhs);
    m.divisor = divisor;
    return m;
}

StepMatrix& one_query(StepMatrix& m, Eigen::Index query_index) {
    m.row_vector_index = true;
    m.query_index = query_index;
    return m;
}

StepMatrix& masked(StepMatrix& m, BoolMatrix blocked, float fill) {
    m.blocked = std::move(blocked);
    m.fill_value = fill;
    return m;
}

// One causal weight matrix per head, "<prefix>1", "<prefix>2", ..., for a sequence of tokens.
void add_head_weights(StepBuilder& b, const std::string& prefix,
                      const std::vector<AttentionResult>& heads,
                      const std::vector<std::string>& tokens) {
    for (std::size_t h = 0; h < heads.size(); ++h) {
        masked(b.add(prefix + std::to_string(h + 1), "α", heads[h].weights, tokens, tokens,
                     MatrixKind::Weights),
               heads[h].blocked, kNegInf);
    }
}

// The weights of SelfAttentionV1 seen as (d_in, d_out) and of a Linear as x · Wᵀ, so both read
// like the tutorial's `inputs @ W`.
Matrix as_input_by_output(const Linear& l) { return l.weight.transpose(); }

}  // namespace

const StepMatrix* Step::find(const std::string& matrix_id) const {
    for (const StepMatrix& m : matrices)
        if (m.id == matrix_id) return &m;
    return nullptr;
}

std::vector<Step> build_walkthrough(const Sequence& inputs, const WalkthroughConfig& config) {
    const Matrix& x = inputs.embeddings;
    check_not_empty(x, "inputs");
    check_finite(x, "inputs");
    if (static_cast<Eigen::Index>(inputs.tokens.size()) != x.rows())
        throw AttentionError("inputs have " + std::to_string(inputs.tokens.size()) +
                             " tokens but " + std::to_string(x.rows()) +
                             " embedding rows: give one row per token");
    const Eigen::Index t = x.rows();
    const Eigen::Index d_in = x.cols();
    const Eigen::Index d_out = config.d_out;
    const Eigen::Index q = std::min<Eigen::Index>(config.query_index, t - 1);
    const std::vector<std::string>& tok = inputs.tokens;
    const std::vector<std::string> dims = numbered("", d_in);
    const std::vector<std::string> out_dims = numbered("", d_out);
    const std::vector<std::string> query_label = {tok[static_cast<std::size_t>(q)]};
    const float sqrt_dk = std::sqrt(static_cast<float>(d_out));
    std::vector<Step> steps;

    // 1. Inputs.
    {
        StepBuilder b(1, "inputs", R"(import torch
inputs = torch.tensor(
    [[0.43, 0.15, 0.89], # Your     (x^1)
     [0.55, 0.87, 0.66], # journey  (x^2)
     [0.57, 0.85, 0.64], # starts   (x^3)
     [0.22, 0.58, 0.33], # with     (x^4)
     [0.77, 0.25, 0.10], # one      (x^5)
     [0.05, 0.80, 0.55]] # step     (x^6)
))");
        b.add("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
        b.highlight("inputs", q);
        steps.push_back(b.take());
    }

    // 2-4. One query, "journey".
    const Matrix query = x.row(q);
    const Matrix scores_q = query * x.transpose();
    const Matrix weights_q = softmax_rows(scores_q);
    {
        StepBuilder b(2, "scores-journey", R"(query = inputs[1]
attn_scores_2 = inputs @ query
print(attn_scores_2))");
        one_query(b.add("query", "x", query, query_label, dims, MatrixKind::Embeddings), q);
        b.add("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
        one_query(derive(b.add("attn-scores-journey", "ω", scores_q, query_label, tok,
                               MatrixKind::Scores),
                         Derivation::DotProduct, "query", "inputs"),
                  q);
        b.highlight("inputs", q);
        steps.push_back(b.take());
    }
    {
        StepBuilder b(3, "weights-journey",
                      R"(attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()

def softmax_naive(x):
    return torch.exp(x) / torch.exp(x).sum(dim=0)

attn_weights_2_naive = softmax_naive(attn_scores_2)
attn_weights_2 = torch.softmax(attn_scores_2, dim=0)
print(attn_weights_2))");
        one_query(b.add("attn-scores-journey", "ω", scores_q, query_label, tok, MatrixKind::Scores),
                  q);
        one_query(derive(b.add("naive-norm", "α", normalize_rows_naive(scores_q), query_label, tok,
                               MatrixKind::Weights),
                         Derivation::NaiveNorm, "attn-scores-journey"),
                  q);
        one_query(derive(b.add("naive-softmax", "α", softmax_rows_naive(scores_q), query_label, tok,
                               MatrixKind::Weights),
                         Derivation::NaiveSoftmax, "attn-scores-journey"),
                  q);
        one_query(derive(b.add("softmax", "α", weights_q, query_label, tok, MatrixKind::Weights),
                         Derivation::Softmax, "attn-scores-journey"),
                  q);
        // Scores a hundred times larger, as a wide model produces: exp() overflows float.
        const Matrix large = scores_q * 100.0f;
        one_query(b.add("large-scores", "ω", large, query_label, tok, MatrixKind::Scores), q);
        one_query(derive(b.add("large-naive-softmax", "α", softmax_rows_naive(large), query_label,
                               tok, MatrixKind::Weights),
                         Derivation::NaiveSoftmax, "large-scores"),
                  q);
        one_query(derive(b.add("large-softmax", "α", softmax_rows(large), query_label, tok,
                               MatrixKind::Weights),
                         Derivation::Softmax, "large-scores"),
                  q);
        steps.push_back(b.take());
    }
    {
        StepBuilder b(4, "context-journey", R"(query = inputs[1]
context_vec_2 = torch.zeros(query.shape)
for i, x_i in enumerate(inputs):
    context_vec_2 += attn_weights_2[i] * x_i
print(context_vec_2))");
        b.add("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
        one_query(
            b.add("attn-weights-journey", "α", weights_q, query_label, tok, MatrixKind::Weights),
            q);
        one_query(derive(b.add("context-vec-journey", "z", weights_q * x, query_label, dims,
                               MatrixKind::Context),
                         Derivation::WeightedSum, "attn-weights-journey", "inputs"),
                  q);
        steps.push_back(b.take());
    }

    // 5. Every token at once.
    const Matrix all_scores = x * x.transpose();
    const Matrix all_weights = softmax_rows(all_scores);
    {
        StepBuilder b(5, "all-tokens", R"(attn_scores = inputs @ inputs.T
attn_weights = torch.softmax(attn_scores, dim=-1)
all_context_vecs = attn_weights @ inputs
print(all_context_vecs))");
        b.add("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
        derive(b.add("attn-scores", "ω", all_scores, tok, tok, MatrixKind::Scores),
               Derivation::DotProduct, "inputs", "inputs");
        derive(b.add("attn-weights", "α", all_weights, tok, tok, MatrixKind::Weights),
               Derivation::Softmax, "attn-scores");
        derive(b.add("context-vecs", "z", all_weights * x, tok, dims, MatrixKind::Context),
               Derivation::WeightedSum, "attn-weights", "inputs");
        b.highlight("attn-weights", q);
        steps.push_back(b.take());
    }

    // 6-8. Trainable weights, seed 123, torch.rand as SelfAttention_v1 draws them.
    TorchGenerator gen(config.seed);
    const SelfAttentionV1 sa_v1(d_in, d_out, gen);
    const Matrix queries = x * sa_v1.W_query;
    const Matrix keys = x * sa_v1.W_key;
    const Matrix values = x * sa_v1.W_value;
    const AttentionResult v1 = scaled_dot_product_attention(queries, keys, values, {});
    {
        StepBuilder b(6, "trainable-weights", R"(d_in, d_out = inputs.shape[1], 2
torch.manual_seed(123)
W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_key   = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False))");
        b.add("W_query", "W_q", sa_v1.W_query, dims, out_dims, MatrixKind::Parameters);
        b.add("W_key", "W_k", sa_v1.W_key, dims, out_dims, MatrixKind::Parameters);
        b.add("W_value", "W_v", sa_v1.W_value, dims, out_dims, MatrixKind::Parameters);
        steps.push_back(b.take());
    }
    {
        StepBuilder b(7, "queries-keys-values", R"(x_2 = inputs[1]
query_2 = x_2 @ W_query
keys = inputs @ W_key
values = inputs @ W_value
print(query_2, keys, values))");
        b.add("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
        b.add("W_query", "W_q", sa_v1.W_query, dims, out_dims, MatrixKind::Parameters);
        b.add("W_key", "W_k", sa_v1.W_key, dims, out_dims, MatrixKind::Parameters);
        b.add("W_value", "W_v", sa_v1.W_value, dims, out_dims, MatrixKind::Parameters);
        derive(b.add("queries", "q", queries, tok, out_dims, MatrixKind::Projections),
               Derivation::Projection, "inputs", "W_query");
        derive(b.add("keys", "k", keys, tok, out_dims, MatrixKind::Projections),
               Derivation::Projection, "inputs", "W_key");
        derive(b.add("values", "v", values, tok, out_dims, MatrixKind::Projections),
               Derivation::Projection, "inputs", "W_value");
        b.highlight("queries", q);
        steps.push_back(b.take());
    }
    {
        StepBuilder b(8, "scaled-scores", R"(attn_scores_2 = query_2 @ keys.T
d_k = keys.shape[-1]
attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)
context_vec_2 = attn_weights_2 @ values
print(context_vec_2))");
        b.add("queries", "q", queries, tok, out_dims, MatrixKind::Projections);
        b.add("keys", "k", keys, tok, out_dims, MatrixKind::Projections);
        derive(b.add("attn-scores", "ω", v1.scores, tok, tok, MatrixKind::Scores),
               Derivation::DotProduct, "queries", "keys");
        derive(b.add("attn-scores-scaled", "ω", v1.scaled, tok, tok, MatrixKind::Scores),
               Derivation::DotProduct, "queries", "keys", sqrt_dk);
        derive(b.add("attn-weights-unscaled", "α", softmax_rows(v1.scores), tok, tok,
                     MatrixKind::Weights),
               Derivation::Softmax, "attn-scores");
        derive(b.add("attn-weights", "α", v1.weights, tok, tok, MatrixKind::Weights),
               Derivation::Softmax, "attn-scores-scaled");
        b.add("values", "v", values, tok, out_dims, MatrixKind::Projections);
        derive(b.add("context-vecs", "z", v1.context, tok, out_dims, MatrixKind::Context),
               Derivation::WeightedSum, "attn-weights", "values");
        b.highlight("attn-weights", q);
        steps.push_back(b.take());
    }

    // 9. The two SelfAttention classes; v2 draws nn.Linear weights from a fresh seed 123.
    TorchGenerator gen_v2(config.seed);
    const SelfAttentionV2 sa_v2(d_in, d_out, gen_v2);
    const ModuleOutput v2_out = sa_v2.forward(x);
    const AttentionResult& v2 = v2_out.heads[0][0];
    {
        StepBuilder b(9, "self-attention-classes", R"(class SelfAttention(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        queries = self.W_query(x)
        keys = self.W_key(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        return attn_weights @ values

torch.manual_seed(123)
sa = SelfAttention(d_in, d_out)
print(sa(inputs)))");
        b.add("attn-weights-v1", "α", v1.weights, tok, tok, MatrixKind::Weights);
        b.add("values-v1", "v", values, tok, out_dims, MatrixKind::Projections);
        derive(b.add("context-v1", "z", v1.context, tok, out_dims, MatrixKind::Context),
               Derivation::WeightedSum, "attn-weights-v1", "values-v1");
        b.add("attn-weights-v2", "α", v2.weights, tok, tok, MatrixKind::Weights);
        b.add("values-v2", "v", v2_out.values[0], tok, out_dims, MatrixKind::Projections);
        derive(b.add("context-v2", "z", v2.context, tok, out_dims, MatrixKind::Context),
               Derivation::WeightedSum, "attn-weights-v2", "values-v2");
        steps.push_back(b.take());
    }

    // 10-12. Causal attention on v2's scores.
    const BoolMatrix future = causal_mask(t, t);
    const Matrix tril = to_float(future.array() == false);
    const Matrix masked_product = v2.weights.cwiseProduct(tril);
    const Matrix causal_renorm = mask_and_renormalize(v2.weights, future);
    AttentionOptions causal_options;
    causal_options.blocked = future;
    const AttentionResult causal = scaled_dot_product_attention(v2_out.queries[0], v2_out.keys[0],
                                                                v2_out.values[0], causal_options);
    {
        StepBuilder b(10, "causal-renormalize", R"(context_length = attn_scores.shape[0]
mask_simple = torch.tril(torch.ones(context_length, context_length))
masked_simple = attn_weights * mask_simple
row_sums = masked_simple.sum(dim=-1, keepdim=True)
masked_simple_norm = masked_simple / row_sums
print(masked_simple_norm))");
        b.add("attn-weights", "α", v2.weights, tok, tok, MatrixKind::Weights);
        b.add("causal-mask", "m", tril, tok, tok, MatrixKind::Mask);
        masked(derive(b.add("masked-weights", "α", masked_product, tok, tok, MatrixKind::Weights),
                      Derivation::MaskProduct, "attn-weights", "causal-mask"),
               future, 0.0f);
        masked(derive(b.add("causal-weights", "α", causal_renorm, tok, tok, MatrixKind::Weights),
                      Derivation::Renormalize, "masked-weights"),
               future, 0.0f);
        steps.push_back(b.take());
    }
    {
        StepBuilder b(11, "causal-softmax",
                      R"(mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)
print(attn_weights))");
        b.add("attn-scores", "ω", v2.scores, tok, tok, MatrixKind::Scores);
        masked(derive(b.add("masked-scores", "ω", masked_fill(v2.scores, future, kNegInf), tok, tok,
                            MatrixKind::Scores),
                      Derivation::MaskedFill, "attn-scores"),
               future, kNegInf);
        masked(derive(b.add("causal-weights", "α", causal.weights, tok, tok, MatrixKind::Weights),
                      Derivation::Softmax, "masked-scores", {}, sqrt_dk),
               future, kNegInf);
        masked(
            b.add("causal-weights-renormalized", "α", causal_renorm, tok, tok, MatrixKind::Weights),
            future, 0.0f);
        derive(b.add("method-difference", "Δ", (causal.weights - causal_renorm).cwiseAbs(), tok,
                     tok, MatrixKind::Weights),
               Derivation::Difference, "causal-weights", "causal-weights-renormalized");
        b.fact("max_abs_diff",
               static_cast<double>((causal.weights - causal_renorm).cwiseAbs().maxCoeff()));
        steps.push_back(b.take());
    }
    {
        TorchGenerator gen_dropout(config.seed);
        BoolMatrix kept;
        const Matrix dropped = dropout(causal.weights, config.dropout_p, gen_dropout, &kept);
        StepBuilder b(12, "dropout", R"(torch.manual_seed(123)
dropout = torch.nn.Dropout(0.5)
print(dropout(attn_weights)))");
        masked(b.add("causal-weights", "α", causal.weights, tok, tok, MatrixKind::Weights), future,
               kNegInf);
        b.add("dropout-mask", "keep", to_float(kept), tok, tok, MatrixKind::Mask);
        StepMatrix& d =
            derive(b.add("dropped-weights", "α", dropped, tok, tok, MatrixKind::Weights),
                   Derivation::Dropout, "causal-weights", "dropout-mask");
        d.dropout_p = config.dropout_p;
        masked(d, future, kNegInf);
        b.fact("dropout_p", static_cast<double>(config.dropout_p));
        b.fact("kept_cells", static_cast<double>(kept.count()));
        steps.push_back(b.take());
    }

    // 13. CausalAttention on a batch of two identical sequences.
    {
        TorchGenerator gen_ca(config.seed);
        const CausalAttention ca(d_in, d_out, t, 0.0f, gen_ca);
        const ModuleOutput out = ca.forward(stack_copies(x, 2));
        StepBuilder b(13, "causal-attention-batch", R"(torch.manual_seed(123)
batch = torch.stack((inputs, inputs), dim=0)
context_length = batch.shape[1]
ca = CausalAttention(d_in, d_out, context_length, 0.0)
context_vecs = ca(batch)
print("context_vecs.shape:", context_vecs.shape))");
        for (std::size_t i = 0; i < 2; ++i) {
            const std::string n = std::to_string(i + 1);
            const AttentionResult& r = out.heads[i][0];
            masked(b.add("batch-" + n + "-weights", "α", r.weights, tok, tok, MatrixKind::Weights),
                   r.blocked, kNegInf);
            b.add("batch-" + n + "-values", "v", out.values[i], tok, out_dims,
                  MatrixKind::Projections);
            derive(b.add("batch-" + n + "-context", "z", out.context_vecs[i], tok, out_dims,
                         MatrixKind::Context),
                   Derivation::WeightedSum, "batch-" + n + "-weights", "batch-" + n + "-values");
        }
        b.fact("batch_size", 2);
        b.fact("num_tokens", static_cast<double>(t));
        b.fact("d_out", static_cast<double>(d_out));
        steps.push_back(b.take());
    }

    // 14. Multi-head attention: the wrapper, then the fused module.
    {
        const Eigen::Index num_heads = 2;
        TorchGenerator gen_wrapper(config.seed);
        const MultiHeadAttentionWrapper wrapper(d_in, d_out, t, 0.0f, num_heads, gen_wrapper);
        const ModuleOutput w_out = wrapper.forward({x});
        TorchGenerator gen_mha(config.seed);
        const Eigen::Index fused_out = d_out * num_heads;
        const MultiHeadAttention mha(d_in, fused_out, t, 0.0f, num_heads, gen_mha);
        const ModuleOutput m_out = mha.forward({x});
        StepBuilder b(14, "multi-head", R"(torch.manual_seed(123)
mha = MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, num_heads=2)
context_vecs = mha(batch)          # (2, 6, 4): the heads' outputs side by side

class MultiHeadAttention(nn.Module):
    ...
    def forward(self, x):
        b, num_tokens, d_in = x.shape
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim)
        keys = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim)
        values = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim)
        queries, keys, values = (t.transpose(1, 2) for t in (queries, keys, values))
        attn_scores = queries @ keys.transpose(2, 3)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec))");
        std::vector<std::string> head_cols;
        for (Eigen::Index h = 1; h <= num_heads; ++h)
            for (Eigen::Index c = 1; c <= d_out; ++c)
                head_cols.push_back("h" + std::to_string(h) + "·" + std::to_string(c));
        add_head_weights(b, "wrapper-head-", w_out.heads[0], tok);
        b.add("wrapper-context", "z", w_out.context_vecs[0], tok, head_cols, MatrixKind::Context);
        b.add("W_query-fused", "W_q", as_input_by_output(mha.W_query), dims, head_cols,
              MatrixKind::Parameters);
        add_head_weights(b, "head-", m_out.heads[0], tok);
        b.add("concat", "z", m_out.concat[0], tok, head_cols, MatrixKind::Context);
        b.add("out_proj", "W_o", as_input_by_output(mha.out_proj), head_cols,
              numbered("", fused_out), MatrixKind::Parameters);
        b.add("output", "y", m_out.context_vecs[0], tok, numbered("", fused_out),
              MatrixKind::Context);
        b.fact("num_heads", static_cast<double>(num_heads));
        b.fact("head_dim", static_cast<double>(d_out));
        steps.push_back(b.take());
    }

    // 15. Cross-attention: the English tokens ask, the Chinese source answers. The projections
    // are SelfAttention v2's, so only where keys and values come from changes.
    {
        // The built-in source is 3 wide, as the tutorial's inputs; for inputs of another width
        // (an example file) the same four tokens get torch.rand(4, d_in) from the walkthrough's
        // seed, so the step still shows cross-attention instead of refusing the file.
        Sequence source = cross_attention_source();
        if (source.embeddings.cols() != x.cols()) {
            TorchGenerator source_gen(config.seed);
            source.embeddings = source_gen.rand(source.embeddings.rows(), x.cols());
        }
        const std::vector<std::string>& src = source.tokens;
        const Matrix cross_q = sa_v2.W_query.forward(x);
        const Matrix cross_k = sa_v2.W_key.forward(source.embeddings);
        const Matrix cross_v = sa_v2.W_value.forward(source.embeddings);
        const AttentionResult cross = scaled_dot_product_attention(cross_q, cross_k, cross_v, {});
        StepBuilder b(15, "cross-attention", R"(# decoder tokens ask, encoder tokens answer
queries = sa.W_query(target)          # (6, d_out)  "Your journey starts with one step"
keys    = sa.W_key(source)            # (4, d_out)  "你的 旅程 始于 一步"
values  = sa.W_value(source)
attn_weights = torch.softmax(queries @ keys.T / keys.shape[-1]**0.5, dim=-1)   # (6, 4)
context_vecs = attn_weights @ values)");
        b.add("queries", "q", cross_q, tok, out_dims, MatrixKind::Projections);
        b.add("keys", "k", cross_k, src, out_dims, MatrixKind::Projections);
        b.add("values", "v", cross_v, src, out_dims, MatrixKind::Projections);
        derive(b.add("cross-scores", "ω", cross.scaled, tok, src, MatrixKind::Scores),
               Derivation::DotProduct, "queries", "keys", sqrt_dk);
        derive(b.add("cross-weights", "α", cross.weights, tok, src, MatrixKind::Weights),
               Derivation::Softmax, "cross-scores");
        derive(b.add("cross-context", "z", cross.context, tok, out_dims, MatrixKind::Context),
               Derivation::WeightedSum, "cross-weights", "values");
        steps.push_back(b.take());
    }

    // 16. KV caching: one token at a time, one head so the cache reads as two small matrices.
    {
        KvTraceConfig kv;
        kv.d_out = d_out;
        kv.seed = config.seed;
        kv.cache_snapshots = true;
        const KvTrace trace = build_kv_trace(inputs, kv);
        StepBuilder b(16, "kv-cache", R"(kv_cache = {"keys": [], "values": []}
for t, x_t in enumerate(inputs):              # one new token per step
    q_t = mha.W_query(x_t)                    # only the new query row
    kv_cache["keys"].append(mha.W_key(x_t))   # keys and values of the past are reused
    kv_cache["values"].append(mha.W_value(x_t))
    keys, values = torch.stack(kv_cache["keys"]), torch.stack(kv_cache["values"])
    attn_weights = torch.softmax(q_t @ keys.T / keys.shape[-1]**0.5, dim=-1)
    out_t = mha.out_proj(attn_weights @ values)   # equals row t of the full causal pass)");
        b.add("full-output", "y", trace.full_pass, tok, out_dims, MatrixKind::Context);
        Matrix cached_outputs(t, d_out);
        float max_abs_diff = 0.0f;  // over the tokens decoded so far
        for (const KvTraceStep& s : trace.steps) {
            const Eigen::Index i = s.token;
            const int frame = static_cast<int>(i);
            cached_outputs.row(i) = s.output;
            max_abs_diff = std::max(max_abs_diff, (s.output - s.full_output).cwiseAbs().maxCoeff());
            const std::vector<std::string> seen = first_tokens(tok, i + 1);
            const std::vector<std::string> now = {tok[static_cast<std::size_t>(i)]};
            StepMatrix& nq =
                b.add("new-query", "q", s.query[0], now, out_dims, MatrixKind::Projections);
            nq.frame = frame;
            StepMatrix& ck =
                b.add("cached-keys", "k", s.cache_keys[0], seen, out_dims, MatrixKind::Projections);
            ck.frame = frame;
            StepMatrix& cv = b.add("cached-values", "v", s.cache_values[0], seen, out_dims,
                                   MatrixKind::Projections);
            cv.frame = frame;
            StepMatrix& w =
                b.add("new-weights", "α", s.attn_weights[0], now, seen, MatrixKind::Weights);
            w.frame = frame;
            one_query(w, i);
            StepMatrix& out = b.add("cached-outputs", "y", cached_outputs.topRows(i + 1), seen,
                                    out_dims, MatrixKind::Context);
            out.frame = frame;
            // Multiplications: with the cache only the new token is projected and only its
            // query row attends; without it the whole prefix is recomputed, T×T scores included.
            b.fact("mults_with_cache", static_cast<double>(s.total_cached), frame);
            b.fact("mults_without_cache", static_cast<double>(s.total_full), frame);
            b.fact("cache_tokens", static_cast<double>(s.cache_tokens), frame);
            b.fact("cache_bytes", static_cast<double>(s.cache_bytes), frame);
            b.fact("max_abs_diff", static_cast<double>(max_abs_diff), frame);
            b.step().frame_labels.push_back(tok[static_cast<std::size_t>(i)]);
        }
        b.step().frame_count = static_cast<int>(t);
        steps.push_back(b.take());
    }
    return steps;
}

}  // namespace attn
