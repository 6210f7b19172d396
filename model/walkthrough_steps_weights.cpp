// The tutorial's steps 6-9: trainable weights (SelfAttention_v1's torch.rand), the scaled
// scores, and the two SelfAttention classes side by side.
#include <algorithm>
#include <cmath>

#include "number_format.h"
#include "ops.h"
#include "rng.h"
#include "walkthrough_build.h"

namespace attn::walk {

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

}  // namespace

// 6. Trainable weights, seed 123, torch.rand as SelfAttention_v1 draws them.
void add_trainable_weights(const TutorialContext& context, const SelfAttentionV1Pass& v1_pass) {
    const std::vector<std::string>& dims = context.dims;
    const std::vector<std::string>& out_dims = context.out_dims;
    const std::string& seed = context.seed;
    const Eigen::Index d_out = context.config.d_out;
    const SelfAttentionV1& sa_v1 = v1_pass.sa_v1;
    StepBuilder b(
        6, "trainable-weights",
        "d_in, d_out = inputs.shape[1], " + count(d_out) + "\ntorch.manual_seed(" + seed + R"()
W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_key   = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False))");
    b.add("W_query", "W_q", sa_v1.W_query, dims, out_dims, MatrixKind::Parameters);
    b.add("W_key", "W_k", sa_v1.W_key, dims, out_dims, MatrixKind::Parameters);
    b.add("W_value", "W_v", sa_v1.W_value, dims, out_dims, MatrixKind::Parameters);
    context.push(b);
}

// 7. Queries, keys and values: the inputs projected by the three weights.
void add_queries_keys_values(const TutorialContext& context, const SelfAttentionV1Pass& v1_pass) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const Eigen::Index q = context.query_index;
    const std::vector<std::string>& dims = context.dims;
    const std::vector<std::string>& out_dims = context.out_dims;
    const SelfAttentionV1& sa_v1 = v1_pass.sa_v1;
    const Matrix& queries = v1_pass.queries;
    const Matrix& keys = v1_pass.keys;
    const Matrix& values = v1_pass.values;
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
    derive(b.add("keys", "k", keys, tok, out_dims, MatrixKind::Projections), Derivation::Projection,
           "inputs", "W_key");
    derive(b.add("values", "v", values, tok, out_dims, MatrixKind::Projections),
           Derivation::Projection, "inputs", "W_value");
    b.highlight("queries", q);
    context.push(b);
}

// 8. Scores scaled by √d_k, and why: the same softmax at a real head's width.
void add_scaled_scores(const TutorialContext& context, const SelfAttentionV1Pass& v1_pass) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const Eigen::Index q = context.query_index;
    const std::vector<std::string>& dims = context.dims;
    const std::vector<std::string>& out_dims = context.out_dims;
    const std::string& seed = context.seed;
    const float sqrt_dk = context.sqrt_dk;
    const Eigen::Index t = context.inputs.embeddings.rows();
    const Eigen::Index d_out = context.config.d_out;
    const WalkthroughConfig& config = context.config;
    const SelfAttentionV1& sa_v1 = v1_pass.sa_v1;
    const Matrix& queries = v1_pass.queries;
    const Matrix& keys = v1_pass.keys;
    const Matrix& values = v1_pass.values;
    const AttentionResult& v1 = v1_pass.v1;
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
q, k = torch.randn()" +
                      count(t) + ", " + count(wide) + "), torch.randn(" + count(t) + ", " +
                      count(wide) +
                      R"()
print(torch.softmax(q @ k.T, dim=-1))             # nearly one-hot
print(torch.softmax(q @ k.T / 64**0.5, dim=-1)))");
    b.operand("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
    b.operand("W_query", "W_q", sa_v1.W_query, dims, out_dims, MatrixKind::Parameters);
    b.operand("W_key", "W_k", sa_v1.W_key, dims, out_dims, MatrixKind::Parameters);
    b.operand("W_value", "W_v", sa_v1.W_value, dims, out_dims, MatrixKind::Parameters);
    derive(b.add("queries", "q", queries, tok, out_dims, MatrixKind::Projections),
           Derivation::Projection, "inputs", "W_query");
    derive(b.add("keys", "k", keys, tok, out_dims, MatrixKind::Projections), Derivation::Projection,
           "inputs", "W_key");
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
    context.push(b);
}

// 9. The two SelfAttention classes; v2 draws nn.Linear weights from a fresh seed 123.
void add_self_attention_classes(const TutorialContext& context, const SelfAttentionV1Pass& v1_pass,
                                const SelfAttentionV2& sa_v2, const ModuleOutput& v2_out) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const std::vector<std::string>& dims = context.dims;
    const std::vector<std::string>& out_dims = context.out_dims;
    const std::string& seed = context.seed;
    const float sqrt_dk = context.sqrt_dk;
    const Eigen::Index d_in = context.inputs.embeddings.cols();
    const SelfAttentionV1& sa_v1 = v1_pass.sa_v1;
    const Matrix& queries = v1_pass.queries;
    const Matrix& keys = v1_pass.keys;
    const Matrix& values = v1_pass.values;
    const AttentionResult& v1 = v1_pass.v1;
    const AttentionResult& v2 = v2_out.heads[0][0];
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
    context.push(b);
}

}  // namespace attn::walk
