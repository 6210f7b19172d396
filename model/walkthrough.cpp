// The walkthrough: a step's lookups, and build_walkthrough, which computes the passes several
// steps share and calls each step's builder in order (walkthrough_steps_*.cpp, the chapters).
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

void check_inputs(const Sequence& inputs) {
    const Matrix& x = inputs.embeddings;
    check_not_empty(x, "inputs");
    check_finite(x, "inputs");
    if (static_cast<Eigen::Index>(inputs.tokens.size()) != x.rows())
        throw AttentionError("inputs have " + std::to_string(inputs.tokens.size()) +
                             " tokens but " + std::to_string(x.rows()) +
                             " embedding rows: give one row per token");
}

// Steps 2-4: the followed query against every token, the tutorial's "journey".
QueryJourney query_journey(const TutorialContext& context) {
    const Matrix& x = context.inputs.embeddings;
    QueryJourney journey;
    journey.query = x.row(context.query_index);
    journey.scores = journey.query * x.transpose();
    journey.weights = softmax_rows(journey.scores);
    return journey;
}

// Steps 6-9: trainable weights, the walkthrough's seed, torch.rand as SelfAttention_v1 draws them.
SelfAttentionV1Pass self_attention_v1_pass(const TutorialContext& context) {
    const Matrix& x = context.inputs.embeddings;
    TorchGenerator gen(context.config.seed);
    SelfAttentionV1Pass pass{SelfAttentionV1(x.cols(), context.config.d_out, gen), {}, {}, {}, {}};
    pass.queries = x * pass.sa_v1.W_query;
    pass.keys = x * pass.sa_v1.W_key;
    pass.values = x * pass.sa_v1.W_value;
    pass.v1 = scaled_dot_product_attention(pass.queries, pass.keys, pass.values, {});
    return pass;
}

// Steps 10-12: causal attention on SelfAttention v2's scores.
CausalPass causal_pass(const ModuleOutput& v2_out) {
    const AttentionResult& v2 = v2_out.heads[0][0];
    const Eigen::Index t = v2.weights.rows();
    CausalPass pass;
    pass.future = causal_mask(t, t);
    pass.tril = to_float(pass.future.array() == false);
    pass.masked_product = v2.weights.cwiseProduct(pass.tril);
    pass.renormalized = mask_and_renormalize(v2.weights, pass.future);
    AttentionOptions causal_options;
    causal_options.blocked = pass.future;
    pass.causal = scaled_dot_product_attention(v2_out.queries[0], v2_out.keys[0], v2_out.values[0],
                                               causal_options);
    return pass;
}

}  // namespace

std::vector<Step> build_walkthrough(const Sequence& inputs, const WalkthroughConfig& config) {
    check_inputs(inputs);
    const Matrix& x = inputs.embeddings;
    const Eigen::Index t = x.rows();
    const Eigen::Index d_in = x.cols();
    const Eigen::Index d_out = config.d_out;
    const Eigen::Index q = std::min<Eigen::Index>(config.query_index, t - 1);
    const std::string& query_token = inputs.tokens[static_cast<std::size_t>(q)];
    std::vector<Step> steps;
    const TutorialContext context{
        inputs, config, q, numbered("", d_in), numbered("", d_out),
        std::sqrt(static_cast<float>(d_out)), std::to_string(config.seed),
        // What every text may quote: the sequence, its sizes and the followed query.
        [&](StepBuilder& b) {
            b.arg("num_tokens", count(t));
            b.arg("d_in", count(d_in));
            b.arg("d_out", count(d_out));
            b.arg("query_token", query_token);
            b.arg("query_number", count(q + 1));
            b.arg("query_index", count(q));
            b.arg("query_sup", superscript(q + 1));
            b.arg("query_sub", subscript(q + 1));
            b.arg("sentence", joined(inputs.tokens, " "));
            b.arg("seed", std::to_string(config.seed));
            steps.push_back(b.take());
        }};

    add_inputs(context);
    const QueryJourney journey = query_journey(context);
    add_scores_journey(context, journey);
    add_weights_journey(context, journey);
    add_context_journey(context, journey);
    add_all_tokens(context);
    const SelfAttentionV1Pass v1 = self_attention_v1_pass(context);
    add_trainable_weights(context, v1);
    add_queries_keys_values(context, v1);
    add_scaled_scores(context, v1);
    // v2 draws nn.Linear weights from a fresh generator of the same seed.
    TorchGenerator gen_v2(config.seed);
    const SelfAttentionV2 sa_v2(d_in, d_out, gen_v2);
    const ModuleOutput v2_out = sa_v2.forward(x);
    add_self_attention_classes(context, v1, sa_v2, v2_out);
    const CausalPass causal = causal_pass(v2_out);
    add_causal_renormalize(context, v2_out, causal);
    add_causal_softmax(context, v2_out, causal);
    add_dropout(context, v2_out, causal);
    add_causal_attention_batch(context);
    // Two heads of d_out: step 14 shows this fused module and step 16 decodes with it.
    const Eigen::Index num_heads = 2;
    TorchGenerator gen_mha(config.seed);
    const MultiHeadAttention mha(d_in, d_out * num_heads, t, 0.0f, num_heads, gen_mha);
    const ModuleOutput m_out = mha.forward({x});
    add_multi_head(context, mha, m_out);
    add_cross_attention(context, sa_v2);
    // 16. KV caching (walkthrough_kv_cache.cpp).
    add_kv_cache_step(inputs, config, mha, m_out, context.push);
    // The chapters past the tutorial (walkthrough_chapters.cpp), numbered by their place.
    add_chapters({inputs, config, q, sa_v2, v2_out, causal.causal, causal.future, context.push,
                  [&] { return static_cast<int>(steps.size()) + 1; }});
    return steps;
}

}  // namespace attn
