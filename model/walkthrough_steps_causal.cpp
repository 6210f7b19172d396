// The tutorial's steps 10-13: causal attention on SelfAttention v2's scores (two ways to mask,
// then dropout), and CausalAttention on a batch.
#include <algorithm>
#include <cmath>

#include "number_format.h"
#include "ops.h"
#include "rng.h"
#include "walkthrough_build.h"

namespace attn::walk {

// 10. The simple mask: zero the weights above the diagonal, then renormalise each row.
void add_causal_renormalize(const TutorialContext& context, const ModuleOutput& v2_out,
                            const CausalPass& causal_pass) {
    const std::vector<std::string>& tok = context.inputs.tokens;
    const std::vector<std::string>& out_dims = context.out_dims;
    const float sqrt_dk = context.sqrt_dk;
    const AttentionResult& v2 = v2_out.heads[0][0];
    const BoolMatrix& future = causal_pass.future;
    const Matrix& tril = causal_pass.tril;
    const Matrix& masked_product = causal_pass.masked_product;
    const Matrix& causal_renorm = causal_pass.renormalized;
    StepBuilder b(10, "causal-renormalize", R"(context_length = attn_scores.shape[0]
mask_simple = torch.tril(torch.ones(context_length, context_length))
masked_simple = attn_weights * mask_simple
row_sums = masked_simple.sum(dim=-1, keepdim=True)
masked_simple_norm = masked_simple / row_sums
print(masked_simple_norm))");
    score_operands(b, "", v2_out.queries[0], v2_out.keys[0], v2.scores, {}, tok, out_dims);
    derive(b.add("attn-weights", "α", v2.weights, tok, tok, MatrixKind::Weights),
           Derivation::Softmax, "scores", {}, sqrt_dk);
    derive(b.add("causal-mask", "m", tril, tok, tok, MatrixKind::Mask), Derivation::CausalMask, {});
    masked(derive(b.add("masked-weights", "α", masked_product, tok, tok, MatrixKind::Weights),
                  Derivation::MaskProduct, "attn-weights", "causal-mask"),
           future, 0.0f);
    masked(derive(b.add("causal-weights", "α", causal_renorm, tok, tok, MatrixKind::Weights),
                  Derivation::Renormalize, "masked-weights"),
           future, 0.0f);
    context.push(b);
}

// 11. The -inf mask before softmax, and how little it differs from step 10's.
void add_causal_softmax(const TutorialContext& context, const ModuleOutput& v2_out,
                        const CausalPass& causal_pass) {
    const std::vector<std::string>& tok = context.inputs.tokens;
    const std::vector<std::string>& out_dims = context.out_dims;
    const float sqrt_dk = context.sqrt_dk;
    const AttentionResult& v2 = v2_out.heads[0][0];
    const BoolMatrix& future = causal_pass.future;
    const Matrix& masked_product = causal_pass.masked_product;
    const Matrix& causal_renorm = causal_pass.renormalized;
    const AttentionResult& causal = causal_pass.causal;
    StepBuilder b(11, "causal-softmax",
                  R"(mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)
print(attn_weights))");
    b.operand("queries", "q", v2_out.queries[0], tok, out_dims, MatrixKind::Projections);
    b.operand("keys", "k", v2_out.keys[0], tok, out_dims, MatrixKind::Projections);
    masked(b.operand("masked-weights", "α", masked_product, tok, tok, MatrixKind::Weights), future,
           0.0f);
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
    derive(b.add("method-difference", "Δ", (causal.weights - causal_renorm).cwiseAbs(), tok, tok,
                 MatrixKind::Weights),
           Derivation::Difference, "causal-weights", "causal-weights-renormalized");
    b.fact("max_abs_diff",
           static_cast<double>((causal.weights - causal_renorm).cwiseAbs().maxCoeff()));
    context.push(b);
}

// 12. Dropout on the causal weights, the identity at inference.
void add_dropout(const TutorialContext& context, const ModuleOutput& v2_out,
                 const CausalPass& causal_pass) {
    const std::vector<std::string>& tok = context.inputs.tokens;
    const std::vector<std::string>& out_dims = context.out_dims;
    const std::string& seed = context.seed;
    const float sqrt_dk = context.sqrt_dk;
    const WalkthroughConfig& config = context.config;
    const AttentionResult& v2 = v2_out.heads[0][0];
    const BoolMatrix& future = causal_pass.future;
    const AttentionResult& causal = causal_pass.causal;
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
    masked(derive(b.operand("masked-scores", "ω", masked_fill(v2.scores, future, kNegInf), tok, tok,
                            MatrixKind::Scores),
                  Derivation::DotProduct, "queries", "keys"),
           future, kNegInf);
    masked(derive(b.add("causal-weights", "α", causal.weights, tok, tok, MatrixKind::Weights),
                  Derivation::Softmax, "masked-scores", {}, sqrt_dk),
           future, kNegInf);
    b.add("dropout-mask", "keep", to_float(kept), tok, tok, MatrixKind::Mask);
    StepMatrix& d = derive(b.add("dropped-weights", "α′", dropped, tok, tok, MatrixKind::Weights),
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
    b.arg("dropout_scale", format_shortest(1.0 / (1.0 - static_cast<double>(config.dropout_p))));
    b.arg("unmasked_cells", count(unmasked));
    b.arg("kept_unmasked", count(kept_unmasked));
    b.arg("dropped_cells", count(unmasked - kept_unmasked));
    context.push(b);
}

// 13. CausalAttention on a batch of two identical sequences.
void add_causal_attention_batch(const TutorialContext& context) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const std::vector<std::string>& dims = context.dims;
    const std::vector<std::string>& out_dims = context.out_dims;
    const std::string& seed = context.seed;
    const Eigen::Index t = context.inputs.embeddings.rows();
    const Eigen::Index d_in = context.inputs.embeddings.cols();
    const Eigen::Index d_out = context.config.d_out;
    const WalkthroughConfig& config = context.config;
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
        derive(b.add(n + "context", "z", out.context_vecs[i], tok, out_dims, MatrixKind::Context),
               Derivation::WeightedSum, n + "weights", n + "values");
    }
    b.fact("batch_size", 2);
    b.fact("num_tokens", static_cast<double>(t));
    b.fact("d_out", static_cast<double>(d_out));
    b.arg("batch_size", "2");
    b.arg("batch_shape", shape({2, t, d_in}));
    b.arg("context_shape", shape({2, t, d_out}));
    context.push(b);
}

}  // namespace attn::walk
