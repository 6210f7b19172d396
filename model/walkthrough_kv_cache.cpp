// Step 16 of the walkthrough (model/walkthrough.cpp builds the others).
#include <algorithm>
#include <cmath>

#include "kv_trace.h"
#include "walkthrough_build.h"

namespace attn::walk {

// 16. KV caching with step 14's MultiHeadAttention (same seed, two heads): one token per
// frame. The cache is stored as the module keeps it, (tokens, d_out) with each head's
// columns side by side as in step 14; each head attends with its own columns.
void add_kv_cache_step(const Sequence& inputs, const WalkthroughConfig& config,
                       const MultiHeadAttention& mha, const ModuleOutput& m_out,
                       const std::function<void(StepBuilder&)>& push) {
    const Matrix& x = inputs.embeddings;
    const std::vector<std::string>& tok = inputs.tokens;
    const Eigen::Index t = x.rows();
    const Eigen::Index num_heads = mha.num_heads;
    const Eigen::Index fused_out = mha.d_out;
    const std::vector<std::string> dims = numbered("", x.cols());
    const std::vector<std::string> fused_dims = numbered("", fused_out);
    KvTraceConfig kv;
    kv.d_out = fused_out;
    kv.num_heads = num_heads;
    kv.seed = config.seed;
    kv.cache_snapshots = true;
    const KvTrace trace = build_kv_trace(inputs, kv);
    const Eigen::Index hd = trace.head_dim;
    const float sqrt_hd = std::sqrt(static_cast<float>(hd));
    const std::vector<std::string> head_dims = numbered("", hd);
    std::vector<std::string> head_cols;
    for (Eigen::Index h = 1; h <= num_heads; ++h)
        for (Eigen::Index c = 1; c <= hd; ++c)
            head_cols.push_back("h" + std::to_string(h) + "·" + std::to_string(c));
    StepBuilder b(16, "kv-cache", R"(kv_cache = {"keys": [], "values": []}
for t, x_t in enumerate(inputs):              # one new token per step
    q_t = mha.W_query(x_t)                    # only the new query row
    kv_cache["keys"].append(mha.W_key(x_t))   # keys and values of the past are reused
    kv_cache["values"].append(mha.W_value(x_t))
    keys, values = torch.stack(kv_cache["keys"]), torch.stack(kv_cache["values"])
    # each head h attends with its own head_dim columns of q_t, keys and values
    attn_weights = torch.softmax(q_t @ keys.T / head_dim**0.5, dim=-1)
    out_t = mha.out_proj(attn_weights @ values)  # equals row t of the full causal pass)");
    b.operand("full-concat", "z", m_out.concat[0], tok, head_cols, MatrixKind::Context);
    b.operand("out_proj", "W_o", as_input_by_output(mha.out_proj), head_cols, fused_dims,
              MatrixKind::Parameters);
    b.operand("W_query", "W_q", as_input_by_output(mha.W_query), dims, head_cols,
              MatrixKind::Parameters);
    b.operand("W_key", "W_k", as_input_by_output(mha.W_key), dims, head_cols,
              MatrixKind::Parameters);
    b.operand("W_value", "W_v", as_input_by_output(mha.W_value), dims, head_cols,
              MatrixKind::Parameters);
    derive(b.add("full-output", "y", trace.full_pass, tok, fused_dims, MatrixKind::Context),
           Derivation::Linear, "full-concat", "out_proj")
        .bias = mha.out_proj.bias;
    Matrix cached_outputs(t, fused_out);
    Matrix cached_concat(t, fused_out);
    float max_abs_diff = 0.0f;  // over the tokens decoded so far
    for (const KvTraceStep& s : trace.steps) {
        const Eigen::Index i = s.token;
        const int frame = static_cast<int>(i);
        cached_outputs.row(i) = s.output;
        max_abs_diff = std::max(max_abs_diff, s.abs_diff);
        const std::vector<std::string> seen = first_tokens(tok, i + 1);
        const std::vector<std::string> now = {tok[static_cast<std::size_t>(i)]};
        auto in_frame = [frame](StepMatrix& m, int head = 0) -> StepMatrix& {
            m.frame = frame;
            m.head = head;
            return m;
        };
        in_frame(
            one_query(b.operand("x-new", "x", x.row(i), now, dims, MatrixKind::Embeddings), i));
        in_frame(
            b.operand("inputs-seen", "x", x.topRows(i + 1), seen, dims, MatrixKind::Embeddings));
        const Matrix new_query = merge_heads(Heads(s.query.begin(), s.query.end()));
        const Matrix cache_keys = merge_heads(s.cache_keys);
        const Matrix cache_values = merge_heads(s.cache_values);
        StepMatrix& nq = in_frame(one_query(
            derive(b.add("new-query", "q", new_query, now, head_cols, MatrixKind::Projections),
                   Derivation::Projection, "x-new", "W_query"),
            i));
        nq.head_dim = hd;
        in_frame(
            derive(b.add("cached-keys", "k", cache_keys, seen, head_cols, MatrixKind::Projections),
                   Derivation::Projection, "inputs-seen", "W_key"))
            .head_dim = hd;
        in_frame(derive(b.add("cached-values", "v", cache_values, seen, head_cols,
                              MatrixKind::Projections),
                        Derivation::Projection, "inputs-seen", "W_value"))
            .head_dim = hd;
        for (Eigen::Index h = 0; h < num_heads; ++h) {
            const std::size_t hs = static_cast<std::size_t>(h);
            const std::string n = "-head-" + std::to_string(h + 1);
            const int head = static_cast<int>(h + 1);
            in_frame(one_query(b.operand("new-query" + n, "q", s.query[hs], now, head_dims,
                                         MatrixKind::Projections),
                               i),
                     head);
            in_frame(b.operand("cached-keys" + n, "k", s.cache_keys[hs], seen, head_dims,
                               MatrixKind::Projections),
                     head);
            const Matrix scores = s.query[hs] * s.cache_keys[hs].transpose();
            in_frame(one_query(derive(b.operand("new-scores" + n, "ω", scores, now, seen,
                                                MatrixKind::Scores),
                                      Derivation::DotProduct, "new-query" + n, "cached-keys" + n),
                               i),
                     head);
            in_frame(one_query(derive(b.add("new-weights" + n, "α", s.attn_weights[hs], now, seen,
                                            MatrixKind::Weights),
                                      Derivation::Softmax, "new-scores" + n, {}, sqrt_hd),
                               i),
                     head);
        }
        // The decoder's own context row (attend_one_query), heads side by side.
        cached_concat.row(i) = s.concat;
        in_frame(b.operand("cached-concat", "z", cached_concat.topRows(i + 1), seen, head_cols,
                           MatrixKind::Context));
        StepMatrix& out = derive(b.add("cached-outputs", "y", cached_outputs.topRows(i + 1), seen,
                                       fused_dims, MatrixKind::Context),
                                 Derivation::Linear, "cached-concat", "out_proj");
        out.bias = mha.out_proj.bias;
        out.frame = frame;
        // Multiplications: with the cache only the new token is projected and only its
        // query row attends; without it the whole prefix is recomputed, T×T scores included.
        b.fact("mults_with_cache", static_cast<double>(s.total_cached), frame);
        b.fact("mults_without_cache", static_cast<double>(s.total_full), frame);
        b.fact("mults_saved", static_cast<double>(s.total_full - s.total_cached), frame);
        b.fact("mults_saved_percent", s.saved_percent, frame);
        b.fact("cache_tokens", static_cast<double>(s.cache_tokens), frame);
        b.fact("cache_bytes", static_cast<double>(s.cache_bytes), frame);
        b.fact("max_abs_diff", static_cast<double>(max_abs_diff), frame);
        b.step().frame_labels.push_back(tok[static_cast<std::size_t>(i)]);
    }
    b.step().frame_count = static_cast<int>(t);
    head_split_args(b, num_heads, hd);
    push(b);
}

}  // namespace attn::walk
