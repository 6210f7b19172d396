#include "walkthrough.h"

#include <algorithm>
#include <cmath>

#include "modules.h"
#include "number_format.h"
#include "ops.h"
#include "rng.h"
#include "walkthrough_build.h"

namespace attn {

using namespace walk;

const StepMatrix* Step::find(const std::string& matrix_id, int frame) const {
    for (const std::vector<StepMatrix>* list : {&matrices, &operands})
        for (const StepMatrix& m : *list)
            if (m.id == matrix_id && (frame < 0 || m.frame < 0 || m.frame == frame)) return &m;
    return nullptr;
}

std::string Step::arg(const std::string& name) const {
    for (const auto& [key, value] : text_args)
        if (key == name) return value;
    return {};
}

namespace {

// "[[-0.5337, -0.1051], …]": a matrix's first row as PyTorch prints it, the rest elided.
std::string first_row_text(const Matrix& m) {
    std::string s = "[[";
    for (Eigen::Index c = 0; c < m.cols(); ++c)
        s += (c > 0 ? ", " : "") + format_fixed(static_cast<double>(m(0, c)));
    return s + (m.rows() > 1 ? "], …]" : "]]");
}

// The mean over rows of each row's largest weight: 1 when softmax is one-hot.
double mean_row_max(const Matrix& weights) {
    return static_cast<double>(weights.rowwise().maxCoeff().mean());
}

// Step 1's code: the sequence's own embeddings, one commented row per token.
std::string inputs_snippet(const Sequence& inputs) {
    std::size_t width = 8;
    for (const std::string& t : inputs.tokens) width = std::max(width, t.size() + 1);
    std::string s = "import torch\ninputs = torch.tensor(\n";
    const Matrix& x = inputs.embeddings;
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        std::string row = r == 0 ? "    [[" : "     [";
        for (Eigen::Index c = 0; c < x.cols(); ++c)
            row += (c > 0 ? ", " : "") + format_shortest(x(r, c));
        row += r + 1 < x.rows() ? "]," : "]]";
        const std::string& token = inputs.tokens[static_cast<std::size_t>(r)];
        s += row + " # " + token + std::string(width - std::min(width, token.size()), ' ') + "(x^" +
             count(r + 1) + ")\n";
    }
    return s + ")";
}

}  // namespace

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
    const std::string& query_token = tok[static_cast<std::size_t>(q)];
    const std::vector<std::string> dims = numbered("", d_in);
    const std::vector<std::string> out_dims = numbered("", d_out);
    const std::vector<std::string> query_label = {query_token};
    const float sqrt_dk = std::sqrt(static_cast<float>(d_out));
    const std::string seed = std::to_string(config.seed);
    std::vector<Step> steps;
    // What every text may quote: the sequence, its sizes and the followed query.
    auto push = [&](StepBuilder& b) {
        b.arg("num_tokens", count(t));
        b.arg("d_in", count(d_in));
        b.arg("d_out", count(d_out));
        b.arg("query_token", query_token);
        b.arg("query_number", count(q + 1));
        b.arg("query_index", count(q));
        b.arg("query_sup", superscript(q + 1));
        b.arg("query_sub", subscript(q + 1));
        b.arg("sentence", joined(tok, " "));
        b.arg("seed", seed);
        steps.push_back(b.take());
    };

    // 1. Inputs.
    {
        StepBuilder b(1, "inputs", inputs_snippet(inputs));
        b.add("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
        b.highlight("inputs", q);
        push(b);
    }

    // 2-4. One query, the tutorial's "journey".
    const Matrix query = x.row(q);
    const Matrix scores_q = query * x.transpose();
    const Matrix weights_q = softmax_rows(scores_q);
    {
        StepBuilder b(2, "scores-journey", "query = inputs[" + count(q) + R"(]
attn_scores_2 = inputs @ query
print(attn_scores_2))");
        one_query(b.add("query", "x", query, query_label, dims, MatrixKind::Embeddings), q);
        b.add("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
        one_query(derive(b.add("attn-scores-journey", "ω", scores_q, query_label, tok,
                               MatrixKind::Scores),
                         Derivation::DotProduct, "query", "inputs"),
                  q);
        b.highlight("inputs", q);
        Eigen::Index best = 0, worst = 0;
        scores_q.row(0).maxCoeff(&best);
        scores_q.row(0).minCoeff(&worst);
        b.arg("best_token", tok[static_cast<std::size_t>(best)]);
        b.arg("best_score", format_fixed(static_cast<double>(scores_q(0, best))));
        b.arg("worst_token", tok[static_cast<std::size_t>(worst)]);
        b.arg("worst_score", format_fixed(static_cast<double>(scores_q(0, worst))));
        push(b);
    }
    {
        // Scores as large as a wide model's: ×100, or more until the largest passes 100, where
        // exp() overflows float (above 88.72) and the naive softmax fails.
        const float largest = scores_q.cwiseAbs().maxCoeff();
        float factor = 100.0f;
        while (largest * factor <= 100.0f && factor < 1e12f) factor *= 10.0f;
        const std::string factor_text = format_shortest(factor);
        StepBuilder b(3, "weights-journey",
                      R"(attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()

def softmax_naive(x):
    return torch.exp(x) / torch.exp(x).sum(dim=0)

attn_weights_2_naive = softmax_naive(attn_scores_2)
attn_weights_2 = torch.softmax(attn_scores_2, dim=0)
print(attn_weights_2)

print(softmax_naive(attn_scores_2 * )" +
                          factor_text + R"())      # exp() overflows: nan
print(torch.softmax(attn_scores_2 * )" +
                          factor_text + R"(, dim=0)))");
        one_query(b.operand("query", "x", query, query_label, dims, MatrixKind::Embeddings), q);
        b.operand("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
        one_query(derive(b.add("attn-scores-journey", "ω", scores_q, query_label, tok,
                               MatrixKind::Scores),
                         Derivation::DotProduct, "query", "inputs"),
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
        const Matrix large = scores_q * factor;
        StepMatrix& ls = one_query(
            derive(b.add("large-scores", "ω", large, query_label, tok, MatrixKind::Scores),
                   Derivation::Scale, "attn-scores-journey"),
            q);
        ls.factor = factor;
        const Matrix large_naive = softmax_rows_naive(large);
        one_query(derive(b.add("large-naive-softmax", "α", large_naive, query_label, tok,
                               MatrixKind::Weights),
                         Derivation::NaiveSoftmax, "large-scores"),
                  q);
        one_query(derive(b.add("large-softmax", "α", softmax_rows(large), query_label, tok,
                               MatrixKind::Weights),
                         Derivation::Softmax, "large-scores"),
                  q);
        b.arg("large_factor", factor_text);
        b.arg("large_max", format_fixed(static_cast<double>(large.maxCoeff())));
        b.arg("large_nan_count", count(large_naive.array().isNaN().count()));
        push(b);
    }
    {
        StepBuilder b(4, "context-journey", "query = inputs[" + count(q) + R"(]
context_vec_2 = torch.zeros(query.shape)
for i, x_i in enumerate(inputs):
    context_vec_2 += attn_weights_2[i] * x_i
print(context_vec_2))");
        b.add("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
        one_query(b.operand("query", "x", query, query_label, dims, MatrixKind::Embeddings), q);
        one_query(derive(b.operand("attn-scores-journey", "ω", scores_q, query_label, tok,
                                   MatrixKind::Scores),
                         Derivation::DotProduct, "query", "inputs"),
                  q);
        one_query(derive(b.add("attn-weights-journey", "α", weights_q, query_label, tok,
                               MatrixKind::Weights),
                         Derivation::Softmax, "attn-scores-journey"),
                  q);
        one_query(derive(b.add("context-vec-journey", "z", weights_q * x, query_label, dims,
                               MatrixKind::Context),
                         Derivation::WeightedSum, "attn-weights-journey", "inputs"),
                  q);
        push(b);
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
        push(b);
    }

    // 6-8. Trainable weights, seed 123, torch.rand as SelfAttention_v1 draws them.
    TorchGenerator gen(config.seed);
    const SelfAttentionV1 sa_v1(d_in, d_out, gen);
    const Matrix queries = x * sa_v1.W_query;
    const Matrix keys = x * sa_v1.W_key;
    const Matrix values = x * sa_v1.W_value;
    const AttentionResult v1 = scaled_dot_product_attention(queries, keys, values, {});
    {
        StepBuilder b(
            6, "trainable-weights",
            "d_in, d_out = inputs.shape[1], " + count(d_out) + "\ntorch.manual_seed(" + seed + R"()
W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_key   = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False))");
        b.add("W_query", "W_q", sa_v1.W_query, dims, out_dims, MatrixKind::Parameters);
        b.add("W_key", "W_k", sa_v1.W_key, dims, out_dims, MatrixKind::Parameters);
        b.add("W_value", "W_v", sa_v1.W_value, dims, out_dims, MatrixKind::Parameters);
        push(b);
    }
    {
        StepBuilder b(7, "queries-keys-values", "x_2 = inputs[" + count(q) + R"(]
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
        push(b);
    }
    {
        // The same comparison at the width of a real head: d_k = 64, standard-normal queries
        // and keys from the walkthrough's seed, as torch.randn draws them.
        const Eigen::Index wide = 64;
        TorchGenerator gen_wide(config.seed);
        const Matrix q_wide = gen_wide.normal(t, wide, 0.0, 1.0);
        const Matrix k_wide = gen_wide.normal(t, wide, 0.0, 1.0);
        const Matrix scores_wide = q_wide * k_wide.transpose();
        const float sqrt_wide = std::sqrt(static_cast<float>(wide));
        const Matrix unscaled_wide = softmax_rows(scores_wide);
        const Matrix scaled_wide = softmax_rows(scores_wide / sqrt_wide);
        const Matrix unscaled_small = softmax_rows(v1.scores);
        StepBuilder b(8, "scaled-scores",
                      R"(attn_scores_2 = query_2 @ keys.T
d_k = keys.shape[-1]
attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)
context_vec_2 = attn_weights_2 @ values
print(context_vec_2)

# the same comparison at d_k = 64, the width of a real head
torch.manual_seed()" + seed +
                          R"()
q, k = torch.randn()" + count(t) +
                          ", " + count(wide) + "), torch.randn(" + count(t) + ", " + count(wide) +
                          R"()
print(torch.softmax(q @ k.T, dim=-1))             # nearly one-hot
print(torch.softmax(q @ k.T / 64**0.5, dim=-1)))");
        b.operand("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
        b.operand("W_query", "W_q", sa_v1.W_query, dims, out_dims, MatrixKind::Parameters);
        b.operand("W_key", "W_k", sa_v1.W_key, dims, out_dims, MatrixKind::Parameters);
        b.operand("W_value", "W_v", sa_v1.W_value, dims, out_dims, MatrixKind::Parameters);
        derive(b.add("queries", "q", queries, tok, out_dims, MatrixKind::Projections),
               Derivation::Projection, "inputs", "W_query");
        derive(b.add("keys", "k", keys, tok, out_dims, MatrixKind::Projections),
               Derivation::Projection, "inputs", "W_key");
        derive(b.add("attn-scores", "ω", v1.scores, tok, tok, MatrixKind::Scores),
               Derivation::DotProduct, "queries", "keys");
        derive(b.add("attn-scores-scaled", "ω̃", v1.scaled, tok, tok, MatrixKind::Scores),
               Derivation::DotProduct, "queries", "keys", sqrt_dk);
        derive(b.add("attn-weights-unscaled", "α", unscaled_small, tok, tok, MatrixKind::Weights),
               Derivation::Softmax, "attn-scores");
        derive(b.add("attn-weights", "α", v1.weights, tok, tok, MatrixKind::Weights),
               Derivation::Softmax, "attn-scores-scaled");
        derive(b.add("values", "v", values, tok, out_dims, MatrixKind::Projections),
               Derivation::Projection, "inputs", "W_value");
        derive(b.add("context-vecs", "z", v1.context, tok, out_dims, MatrixKind::Context),
               Derivation::WeightedSum, "attn-weights", "values");
        const std::vector<std::string> wide_dims = numbered("", wide);
        b.operand("queries-64", "q", q_wide, tok, wide_dims, MatrixKind::Projections);
        b.operand("keys-64", "k", k_wide, tok, wide_dims, MatrixKind::Projections);
        derive(b.operand("attn-scores-64", "ω", scores_wide, tok, tok, MatrixKind::Scores),
               Derivation::DotProduct, "queries-64", "keys-64");
        derive(b.add("attn-weights-unscaled-64", "α", unscaled_wide, tok, tok, MatrixKind::Weights),
               Derivation::Softmax, "attn-scores-64");
        derive(b.add("attn-weights-64", "α", scaled_wide, tok, tok, MatrixKind::Weights),
               Derivation::Softmax, "attn-scores-64", {}, sqrt_wide);
        b.highlight("attn-weights", q);
        b.arg("d_k", count(d_out));
        b.arg("sqrt_d_k", format_fixed(static_cast<double>(sqrt_dk)));
        b.arg("max_unscaled", format_fixed(mean_row_max(unscaled_small)));
        b.arg("max_scaled", format_fixed(mean_row_max(v1.weights)));
        b.arg("wide_d_k", count(wide));
        b.arg("wide_sqrt_d_k", format_shortest(sqrt_wide));
        b.arg("wide_max_unscaled", format_fixed(mean_row_max(unscaled_wide)));
        b.arg("wide_max_scaled", format_fixed(mean_row_max(scaled_wide)));
        push(b);
    }
    // 9. The two SelfAttention classes; v2 draws nn.Linear weights from a fresh seed 123.
    TorchGenerator gen_v2(config.seed);
    const SelfAttentionV2 sa_v2(d_in, d_out, gen_v2);
    const ModuleOutput v2_out = sa_v2.forward(x);
    const AttentionResult& v2 = v2_out.heads[0][0];
    // The operands behind a module's weights: its queries and keys, the raw scores ω.
    auto score_operands = [&](StepBuilder& b, const std::string& prefix, const Matrix& qs,
                              const Matrix& ks, const Matrix& scores, const BoolMatrix& blocked,
                              const std::vector<std::string>& key_labels,
                              const std::vector<std::string>& cols) {
        b.operand(prefix + "queries", "q", qs, tok, cols, MatrixKind::Projections);
        b.operand(prefix + "keys", "k", ks, key_labels, cols, MatrixKind::Projections);
        StepMatrix& m =
            derive(b.operand(prefix + "scores", "ω",
                             blocked.size() > 0 ? masked_fill(scores, blocked, kNegInf) : scores,
                             tok, key_labels, MatrixKind::Scores),
                   Derivation::DotProduct, prefix + "queries", prefix + "keys");
        if (blocked.size() > 0) masked(m, blocked, kNegInf);
    };
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

torch.manual_seed()" + seed + R"()
sa = SelfAttention(d_in, d_out)
print(sa(inputs)))");
        b.operand("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
        b.operand("W_value-v1", "W_v", sa_v1.W_value, dims, out_dims, MatrixKind::Parameters);
        b.operand("W_value-v2", "W_v", as_input_by_output(sa_v2.W_value), dims, out_dims,
                  MatrixKind::Parameters);
        score_operands(b, "v1-", queries, keys, v1.scores, {}, tok, out_dims);
        score_operands(b, "v2-", v2_out.queries[0], v2_out.keys[0], v2.scores, {}, tok, out_dims);
        derive(b.add("attn-weights-v1", "α", v1.weights, tok, tok, MatrixKind::Weights),
               Derivation::Softmax, "v1-scores", {}, sqrt_dk);
        derive(b.add("values-v1", "v", values, tok, out_dims, MatrixKind::Projections),
               Derivation::Projection, "inputs", "W_value-v1");
        derive(b.add("context-v1", "z", v1.context, tok, out_dims, MatrixKind::Context),
               Derivation::WeightedSum, "attn-weights-v1", "values-v1");
        derive(b.add("attn-weights-v2", "α", v2.weights, tok, tok, MatrixKind::Weights),
               Derivation::Softmax, "v2-scores", {}, sqrt_dk);
        derive(b.add("values-v2", "v", v2_out.values[0], tok, out_dims, MatrixKind::Projections),
               Derivation::Projection, "inputs", "W_value-v2");
        derive(b.add("context-v2", "z", v2.context, tok, out_dims, MatrixKind::Context),
               Derivation::WeightedSum, "attn-weights-v2", "values-v2");
        b.arg("v2_first_row", first_row_text(v2.context));
        b.arg("linear_bound", format_fixed(1.0 / std::sqrt(static_cast<double>(d_in))));
        push(b);
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
        score_operands(b, "", v2_out.queries[0], v2_out.keys[0], v2.scores, {}, tok, out_dims);
        derive(b.add("attn-weights", "α", v2.weights, tok, tok, MatrixKind::Weights),
               Derivation::Softmax, "scores", {}, sqrt_dk);
        derive(b.add("causal-mask", "m", tril, tok, tok, MatrixKind::Mask), Derivation::CausalMask,
               {});
        masked(derive(b.add("masked-weights", "α", masked_product, tok, tok, MatrixKind::Weights),
                      Derivation::MaskProduct, "attn-weights", "causal-mask"),
               future, 0.0f);
        masked(derive(b.add("causal-weights", "α", causal_renorm, tok, tok, MatrixKind::Weights),
                      Derivation::Renormalize, "masked-weights"),
               future, 0.0f);
        push(b);
    }
    {
        StepBuilder b(11, "causal-softmax",
                      R"(mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)
print(attn_weights))");
        b.operand("queries", "q", v2_out.queries[0], tok, out_dims, MatrixKind::Projections);
        b.operand("keys", "k", v2_out.keys[0], tok, out_dims, MatrixKind::Projections);
        masked(b.operand("masked-weights", "α", masked_product, tok, tok, MatrixKind::Weights),
               future, 0.0f);
        derive(b.add("attn-scores", "ω", v2.scores, tok, tok, MatrixKind::Scores),
               Derivation::DotProduct, "queries", "keys");
        masked(derive(b.add("masked-scores", "ω", masked_fill(v2.scores, future, kNegInf), tok, tok,
                            MatrixKind::Scores),
                      Derivation::MaskedFill, "attn-scores"),
               future, kNegInf);
        masked(derive(b.add("causal-weights", "α", causal.weights, tok, tok, MatrixKind::Weights),
                      Derivation::Softmax, "masked-scores", {}, sqrt_dk),
               future, kNegInf);
        masked(derive(b.add("causal-weights-renormalized", "α", causal_renorm, tok, tok,
                            MatrixKind::Weights),
                      Derivation::Renormalize, "masked-weights"),
               future, 0.0f);
        derive(b.add("method-difference", "Δ", (causal.weights - causal_renorm).cwiseAbs(), tok,
                     tok, MatrixKind::Weights),
               Derivation::Difference, "causal-weights", "causal-weights-renormalized");
        b.fact("max_abs_diff",
               static_cast<double>((causal.weights - causal_renorm).cwiseAbs().maxCoeff()));
        push(b);
    }
    {
        TorchGenerator gen_dropout(config.seed);
        BoolMatrix kept;
        const Matrix dropped = dropout(causal.weights, config.dropout_p, gen_dropout, &kept);
        const std::string p_text = format_shortest(config.dropout_p);
        StepBuilder b(12, "dropout",
                      "torch.manual_seed(" + seed + ")\ndropout = torch.nn.Dropout(" + p_text +
                          ")\nprint(dropout(attn_weights))");
        b.step().inference_snippet =
            "torch.manual_seed(" + seed + ")\ndropout = torch.nn.Dropout(" + p_text +
            ").eval()   # model.eval() does this for every module\n"
            "print(dropout(attn_weights))             # unchanged: the identity at inference";
        b.operand("queries", "q", v2_out.queries[0], tok, out_dims, MatrixKind::Projections);
        b.operand("keys", "k", v2_out.keys[0], tok, out_dims, MatrixKind::Projections);
        masked(derive(b.operand("masked-scores", "ω", masked_fill(v2.scores, future, kNegInf), tok,
                                tok, MatrixKind::Scores),
                      Derivation::DotProduct, "queries", "keys"),
               future, kNegInf);
        masked(derive(b.add("causal-weights", "α", causal.weights, tok, tok, MatrixKind::Weights),
                      Derivation::Softmax, "masked-scores", {}, sqrt_dk),
               future, kNegInf);
        b.add("dropout-mask", "keep", to_float(kept), tok, tok, MatrixKind::Mask);
        StepMatrix& d =
            derive(b.add("dropped-weights", "α′", dropped, tok, tok, MatrixKind::Weights),
                   Derivation::Dropout, "causal-weights", "dropout-mask");
        d.dropout_p = config.dropout_p;
        masked(d, future, kNegInf);
        // Dropped are the weights dropout zeroed; a masked weight is 0 either way.
        d.dropped = kept.array() == false && future.array() == false;
        const Eigen::Index unmasked = (future.array() == false).count();
        const Eigen::Index kept_unmasked = (kept.array() && future.array() == false).count();
        b.fact("dropout_p", static_cast<double>(config.dropout_p));
        b.fact("kept_cells", static_cast<double>(kept_unmasked), -1, /*training_only=*/true);
        b.arg("dropout_p", p_text);
        b.arg("dropout_scale",
              format_shortest(1.0 / (1.0 - static_cast<double>(config.dropout_p))));
        b.arg("unmasked_cells", count(unmasked));
        b.arg("kept_unmasked", count(kept_unmasked));
        b.arg("dropped_cells", count(unmasked - kept_unmasked));
        push(b);
    }

    // 13. CausalAttention on a batch of two identical sequences.
    {
        TorchGenerator gen_ca(config.seed);
        const CausalAttention ca(d_in, d_out, t, 0.0f, gen_ca);
        const ModuleOutput out = ca.forward(stack_copies(x, 2));
        StepBuilder b(13, "causal-attention-batch", "torch.manual_seed(" + seed + R"()
batch = torch.stack((inputs, inputs), dim=0)
context_length = batch.shape[1]
ca = CausalAttention(d_in, d_out, context_length, 0.0)
context_vecs = ca(batch)
print("context_vecs.shape:", context_vecs.shape))");
        b.operand("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
        b.operand("W_value", "W_v", as_input_by_output(ca.W_value), dims, out_dims,
                  MatrixKind::Parameters);
        for (std::size_t i = 0; i < 2; ++i) {
            const std::string n = "batch-" + std::to_string(i + 1) + "-";
            const AttentionResult& r = out.heads[i][0];
            score_operands(b, n, out.queries[i], out.keys[i], r.scores, r.blocked, tok, out_dims);
            masked(derive(b.add(n + "weights", "α", r.weights, tok, tok, MatrixKind::Weights),
                          Derivation::Softmax, n + "scores", {}, r.scale_divisor),
                   r.blocked, kNegInf);
            derive(b.add(n + "values", "v", out.values[i], tok, out_dims, MatrixKind::Projections),
                   Derivation::Projection, "inputs", "W_value");
            derive(
                b.add(n + "context", "z", out.context_vecs[i], tok, out_dims, MatrixKind::Context),
                Derivation::WeightedSum, n + "weights", n + "values");
        }
        b.fact("batch_size", 2);
        b.fact("num_tokens", static_cast<double>(t));
        b.fact("d_out", static_cast<double>(d_out));
        b.arg("batch_size", "2");
        b.arg("batch_shape", shape({2, t, d_in}));
        b.arg("context_shape", shape({2, t, d_out}));
        push(b);
    }

    // 14. Multi-head attention: the wrapper, then the fused module. Step 16 decodes with the
    // same fused module.
    const Eigen::Index num_heads = 2;
    const Eigen::Index fused_out = d_out * num_heads;
    TorchGenerator gen_mha(config.seed);
    const MultiHeadAttention mha(d_in, fused_out, t, 0.0f, num_heads, gen_mha);
    const ModuleOutput m_out = mha.forward({x});
    const std::vector<std::string> fused_dims = numbered("", fused_out);
    // Head h's weights, values and context of one module: the weights and context drawn.
    auto add_heads = [&](StepBuilder& b, const std::string& prefix, const ModuleOutput& out) {
        std::vector<std::string> parts;
        for (Eigen::Index h = 0; h < num_heads; ++h) {
            const std::string n = prefix + std::to_string(h + 1);
            const int head = static_cast<int>(h + 1);
            const AttentionResult& r = out.heads[0][static_cast<std::size_t>(h)];
            score_operands(b, n + "-", out.queries[0].middleCols(h * d_out, d_out),
                           out.keys[0].middleCols(h * d_out, d_out), r.scores, r.blocked, tok,
                           out_dims);
            StepMatrix& w = masked(derive(b.add(n, "α", r.weights, tok, tok, MatrixKind::Weights),
                                          Derivation::Softmax, n + "-scores", {}, r.scale_divisor),
                                   r.blocked, kNegInf);
            w.head = head;
            b.operand(n + "-values", "v", out.values[0].middleCols(h * d_out, d_out), tok, out_dims,
                      MatrixKind::Projections)
                .head = head;
            StepMatrix& z = derive(
                b.operand(n + "-context", "z", r.context, tok, out_dims, MatrixKind::Context),
                Derivation::WeightedSum, n, n + "-values");
            z.head = head;
            parts.push_back(n + "-context");
        }
        return parts;
    };
    {
        TorchGenerator gen_wrapper(config.seed);
        const MultiHeadAttentionWrapper wrapper(d_in, d_out, t, 0.0f, num_heads, gen_wrapper);
        const ModuleOutput w_out = wrapper.forward({x});
        StepBuilder b(14, "multi-head",
                      "torch.manual_seed(" + seed + R"()
mha = MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, num_heads=2)
context_vecs = mha(batch)          # )" +
                          shape({2, t, fused_out}) +
                          R"(: the heads' outputs side by side

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
        const std::vector<std::string> wrapper_parts = add_heads(b, "wrapper-head-", w_out);
        StepMatrix& wc = derive(b.add("wrapper-context", "z", w_out.context_vecs[0], tok, head_cols,
                                      MatrixKind::Context),
                                Derivation::Concat, {});
        wc.parts = wrapper_parts;
        wc.head_dim = d_out;
        b.add("W_query-fused", "W_q", as_input_by_output(mha.W_query), dims, head_cols,
              MatrixKind::Parameters)
            .head_dim = d_out;
        const std::vector<std::string> fused_parts = add_heads(b, "head-", m_out);
        StepMatrix& c =
            derive(b.add("concat", "z", m_out.concat[0], tok, head_cols, MatrixKind::Context),
                   Derivation::Concat, {});
        c.parts = fused_parts;
        c.head_dim = d_out;
        b.add("out_proj", "W_o", as_input_by_output(mha.out_proj), head_cols, fused_dims,
              MatrixKind::Parameters);
        derive(b.add("output", "y", m_out.context_vecs[0], tok, fused_dims, MatrixKind::Context),
               Derivation::Linear, "concat", "out_proj")
            .bias = mha.out_proj.bias;
        head_split_args(b, num_heads, d_out);
        push(b);
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
        const Eigen::Index s_len = source.embeddings.rows();
        const Matrix cross_q = sa_v2.W_query.forward(x);
        const Matrix cross_k = sa_v2.W_key.forward(source.embeddings);
        const Matrix cross_v = sa_v2.W_value.forward(source.embeddings);
        const AttentionResult cross = scaled_dot_product_attention(cross_q, cross_k, cross_v, {});
        const std::string target_text = joined(tok, " ");
        const std::string source_text = joined(src, " ");
        StepBuilder b(15, "cross-attention",
                      "# decoder tokens ask, encoder tokens answer\n"
                      "queries = sa.W_query(target)          # " +
                          shape({t, d_out}) + "  \"" + target_text +
                          "\"\n"
                          "keys    = sa.W_key(source)            # " +
                          shape({s_len, d_out}) + "  \"" + source_text +
                          "\"\n"
                          "values  = sa.W_value(source)\n"
                          "attn_weights = torch.softmax(queries @ keys.T / "
                          "keys.shape[-1]**0.5, dim=-1)   # " +
                          shape({t, s_len}) + "\ncontext_vecs = attn_weights @ values");
        b.operand("target", "x", x, tok, dims, MatrixKind::Embeddings);
        b.operand("source", "s", source.embeddings, src, dims, MatrixKind::Embeddings);
        b.operand("W_query", "W_q", as_input_by_output(sa_v2.W_query), dims, out_dims,
                  MatrixKind::Parameters);
        b.operand("W_key", "W_k", as_input_by_output(sa_v2.W_key), dims, out_dims,
                  MatrixKind::Parameters);
        b.operand("W_value", "W_v", as_input_by_output(sa_v2.W_value), dims, out_dims,
                  MatrixKind::Parameters);
        derive(b.add("queries", "q", cross_q, tok, out_dims, MatrixKind::Projections),
               Derivation::Projection, "target", "W_query");
        derive(b.add("keys", "k", cross_k, src, out_dims, MatrixKind::Projections),
               Derivation::Projection, "source", "W_key");
        derive(b.add("values", "v", cross_v, src, out_dims, MatrixKind::Projections),
               Derivation::Projection, "source", "W_value");
        derive(b.add("cross-scores", "ω̃", cross.scaled, tok, src, MatrixKind::Scores),
               Derivation::DotProduct, "queries", "keys", sqrt_dk);
        derive(b.add("cross-weights", "α", cross.weights, tok, src, MatrixKind::Weights),
               Derivation::Softmax, "cross-scores");
        derive(b.add("cross-context", "z", cross.context, tok, out_dims, MatrixKind::Context),
               Derivation::WeightedSum, "cross-weights", "values");
        b.arg("num_source", count(s_len));
        b.arg("source_sentence", source_text);
        push(b);
    }

    // 16. KV caching (walkthrough_kv_cache.cpp).
    add_kv_cache_step(inputs, config, mha, m_out, push);
    // The chapters past the tutorial (walkthrough_chapters.cpp), numbered by their place.
    add_chapters({inputs, config, q, sa_v2, v2_out, causal, future, push,
                  [&] { return static_cast<int>(steps.size()) + 1; }});
    return steps;
}

}  // namespace attn
