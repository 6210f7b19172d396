// The tutorial's steps 14 and 15: multi-head attention (the wrapper, then the fused module) and
// cross-attention.
#include <algorithm>
#include <cmath>

#include "number_format.h"
#include "ops.h"
#include "rng.h"
#include "walkthrough_build.h"

namespace attn::walk {

namespace {

// Head h's weights, values and context of one module: the weights and context drawn.
std::vector<std::string> add_heads(StepBuilder& b, const std::string& prefix,
                                   const ModuleOutput& out, Eigen::Index num_heads,
                                   Eigen::Index d_out, const std::vector<std::string>& tok,
                                   const std::vector<std::string>& out_dims) {
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
        StepMatrix& z =
            derive(b.operand(n + "-context", "z", r.context, tok, out_dims, MatrixKind::Context),
                   Derivation::WeightedSum, n, n + "-values");
        z.head = head;
        parts.push_back(n + "-context");
    }
    return parts;
}

}  // namespace

// 14. Multi-head attention: the wrapper, then the fused module (step 16 decodes with it).
void add_multi_head(const TutorialContext& context, const MultiHeadAttention& mha,
                    const ModuleOutput& m_out) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const std::vector<std::string>& dims = context.dims;
    const std::vector<std::string>& out_dims = context.out_dims;
    const std::string& seed = context.seed;
    const Eigen::Index t = context.inputs.embeddings.rows();
    const Eigen::Index d_in = context.inputs.embeddings.cols();
    const Eigen::Index d_out = context.config.d_out;
    const WalkthroughConfig& config = context.config;
    const Eigen::Index num_heads = mha.num_heads;
    const Eigen::Index fused_out = mha.d_out;
    const std::vector<std::string> fused_dims = numbered("", fused_out);
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
    const std::vector<std::string> wrapper_parts =
        add_heads(b, "wrapper-head-", w_out, num_heads, d_out, tok, out_dims);
    StepMatrix& wc = derive(
        b.add("wrapper-context", "z", w_out.context_vecs[0], tok, head_cols, MatrixKind::Context),
        Derivation::Concat, {});
    wc.parts = wrapper_parts;
    wc.head_dim = d_out;
    b.add("W_query-fused", "W_q", as_input_by_output(mha.W_query), dims, head_cols,
          MatrixKind::Parameters)
        .head_dim = d_out;
    const std::vector<std::string> fused_parts =
        add_heads(b, "head-", m_out, num_heads, d_out, tok, out_dims);
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
    context.push(b);
}

// 15. Cross-attention: the English tokens ask, the Chinese source answers. The projections
// are SelfAttention v2's, so only where keys and values come from changes.
void add_cross_attention(const TutorialContext& context, const SelfAttentionV2& sa_v2) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const std::vector<std::string>& dims = context.dims;
    const std::vector<std::string>& out_dims = context.out_dims;
    const float sqrt_dk = context.sqrt_dk;
    const Eigen::Index t = context.inputs.embeddings.rows();
    const Eigen::Index d_out = context.config.d_out;
    const WalkthroughConfig& config = context.config;
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
    context.push(b);
}

}  // namespace attn::walk
