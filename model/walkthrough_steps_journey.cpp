// The tutorial's steps 1-5: the inputs, one query's journey from scores to its context vector,
// then every token at once.
#include <algorithm>
#include <cmath>

#include "number_format.h"
#include "ops.h"
#include "rng.h"
#include "walkthrough_build.h"

namespace attn::walk {

namespace {

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

// 1. Inputs.
void add_inputs(const TutorialContext& context) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const Eigen::Index q = context.query_index;
    const std::vector<std::string>& dims = context.dims;
    StepBuilder b(1, "inputs", inputs_snippet(context.inputs));
    b.add("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
    b.highlight("inputs", q);
    context.push(b);
}

// 2. One query, the tutorial's "journey": its dot products with every token.
void add_scores_journey(const TutorialContext& context, const QueryJourney& journey) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const Eigen::Index q = context.query_index;
    const std::vector<std::string>& dims = context.dims;
    const std::vector<std::string> query_label = {tok[static_cast<std::size_t>(q)]};
    const Matrix& query = journey.query;
    const Matrix& scores_q = journey.scores;
    StepBuilder b(2, "scores-journey", "query = inputs[" + count(q) + R"(]
attn_scores_2 = inputs @ query
print(attn_scores_2))");
    one_query(b.add("query", "x", query, query_label, dims, MatrixKind::Embeddings), q);
    b.add("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
    one_query(
        derive(b.add("attn-scores-journey", "ω", scores_q, query_label, tok, MatrixKind::Scores),
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
    context.push(b);
}

// 3. From scores to weights: normalising, the naive softmax and where it overflows.
void add_weights_journey(const TutorialContext& context, const QueryJourney& journey) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const Eigen::Index q = context.query_index;
    const std::vector<std::string>& dims = context.dims;
    const std::vector<std::string> query_label = {tok[static_cast<std::size_t>(q)]};
    const Matrix& query = journey.query;
    const Matrix& scores_q = journey.scores;
    const Matrix& weights_q = journey.weights;
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
    one_query(
        derive(b.add("attn-scores-journey", "ω", scores_q, query_label, tok, MatrixKind::Scores),
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
    StepMatrix& ls =
        one_query(derive(b.add("large-scores", "ω", large, query_label, tok, MatrixKind::Scores),
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
    context.push(b);
}

// 4. The query's context vector: the inputs weighted by its attention weights.
void add_context_journey(const TutorialContext& context, const QueryJourney& journey) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const Eigen::Index q = context.query_index;
    const std::vector<std::string>& dims = context.dims;
    const std::vector<std::string> query_label = {tok[static_cast<std::size_t>(q)]};
    const Matrix& query = journey.query;
    const Matrix& scores_q = journey.scores;
    const Matrix& weights_q = journey.weights;
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
    one_query(
        derive(b.add("attn-weights-journey", "α", weights_q, query_label, tok, MatrixKind::Weights),
               Derivation::Softmax, "attn-scores-journey"),
        q);
    one_query(derive(b.add("context-vec-journey", "z", weights_q * x, query_label, dims,
                           MatrixKind::Context),
                     Derivation::WeightedSum, "attn-weights-journey", "inputs"),
              q);
    context.push(b);
}

// 5. Every token at once.
void add_all_tokens(const TutorialContext& context) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const Eigen::Index q = context.query_index;
    const std::vector<std::string>& dims = context.dims;
    const Matrix all_scores = x * x.transpose();
    const Matrix all_weights = softmax_rows(all_scores);
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
    context.push(b);
}

}  // namespace attn::walk
