// Internal to the walkthrough (walkthrough.cpp, walkthrough_steps_*.cpp and the chapters): the
// builder that makes one step's records read as the tutorial's cells, the small text helpers they
// use, and the passes several steps share.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "modules.h"
#include "walkthrough.h"

namespace attn::walk {

inline std::vector<std::string> numbered(const char* prefix, Eigen::Index n) {
    std::vector<std::string> labels;
    for (Eigen::Index i = 1; i <= n; ++i) labels.push_back(prefix + std::to_string(i));
    return labels;
}

inline std::vector<std::string> first_tokens(const std::vector<std::string>& tokens,
                                             Eigen::Index n) {
    return {tokens.begin(), tokens.begin() + n};
}

inline Matrix to_float(const BoolMatrix& b) { return b.cast<float>(); }

inline std::string joined(const std::vector<std::string>& words, const std::string& separator) {
    std::string s;
    for (std::size_t i = 0; i < words.size(); ++i) s += (i > 0 ? separator : "") + words[i];
    return s;
}

inline std::string count(Eigen::Index n) { return std::to_string(n); }

// "(2, 6, 3)": a tensor shape as PyTorch prints it.
inline std::string shape(std::initializer_list<Eigen::Index> dims) {
    std::string s = "(";
    for (const Eigen::Index d : dims) s += (s.size() > 1 ? ", " : "") + count(d);
    return s + ")";
}

// Builder for one step's matrices, so each step reads as the tutorial's cells.
class StepBuilder {
public:
    StepBuilder(int number, std::string id, std::string snippet) {
        step_.number = number;
        step_.id = std::move(id);
        step_.snippet = std::move(snippet);
    }
    // Continues a step built elsewhere (tiles_step), e.g. to add the walkthrough's text_args.
    explicit StepBuilder(Step step) : step_(std::move(step)) {}

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

    // A matrix an explanation quotes but the page does not draw.
    StepMatrix& operand(std::string id, std::string symbol, Matrix values,
                        std::vector<std::string> rows, std::vector<std::string> cols,
                        MatrixKind kind) {
        StepMatrix& m = add(std::move(id), std::move(symbol), std::move(values), std::move(rows),
                            std::move(cols), kind);
        step_.operands.push_back(std::move(m));
        step_.matrices.pop_back();
        return step_.operands.back();
    }

    void fact(std::string id, double value, int frame = -1, bool training_only = false) {
        step_.facts.push_back({std::move(id), value, frame, training_only});
    }
    void arg(std::string name, std::string value) {
        step_.text_args.emplace_back(std::move(name), std::move(value));
    }
    void highlight(std::string matrix_id, Eigen::Index row, Eigen::Index col = -1) {
        step_.highlights.push_back({std::move(matrix_id), row, col});
    }
    Step& step() { return step_; }
    Step take() { return std::move(step_); }

private:
    Step step_;
};

inline StepMatrix& derive(StepMatrix& m, Derivation d, std::string lhs, std::string rhs = {},
                          float divisor = 1.0f) {
    m.derivation = d;
    m.lhs = std::move(lhs);
    m.rhs = std::move(rhs);
    m.divisor = divisor;
    return m;
}

inline StepMatrix& one_query(StepMatrix& m, Eigen::Index query_index) {
    m.row_vector_index = true;
    m.query_index = query_index;
    return m;
}

inline StepMatrix& masked(StepMatrix& m, BoolMatrix blocked, float fill) {
    m.blocked = std::move(blocked);
    m.fill_value = fill;
    return m;
}

// The weights of SelfAttentionV1 seen as (d_in, d_out) and of a Linear as x · Wᵀ, so both read
// like the tutorial's `inputs @ W`.
inline Matrix as_input_by_output(const Linear& l) { return l.weight.transpose(); }

// How the fused W_query of `num_heads` heads of `head_dim` splits, in the facts and in the texts
// ({num_heads}, {head_dim}, {fused_out}, {head1_cols}, {head2_cols}): steps 14 and 16 say it.
inline void head_split_args(StepBuilder& b, Eigen::Index num_heads, Eigen::Index head_dim) {
    const Eigen::Index fused_out = num_heads * head_dim;
    b.fact("num_heads", static_cast<double>(num_heads));
    b.fact("head_dim", static_cast<double>(head_dim));
    b.arg("num_heads", count(num_heads));
    b.arg("head_dim", count(head_dim));
    b.arg("fused_out", count(fused_out));
    b.arg("head1_cols", "1–" + count(head_dim));
    b.arg("head2_cols", count(head_dim + 1) + "–" + count(fused_out));
}

// The operands behind a module's weights, for the hover: its queries and keys, the raw scores ω
// (blocked cells filled with -inf when the module masks). Rows and keys are the tokens.
inline void score_operands(StepBuilder& b, const std::string& prefix, const Matrix& queries,
                           const Matrix& keys, const Matrix& scores, const BoolMatrix& blocked,
                           const std::vector<std::string>& tokens,
                           const std::vector<std::string>& cols) {
    b.operand(prefix + "queries", "q", queries, tokens, cols, MatrixKind::Projections);
    b.operand(prefix + "keys", "k", keys, tokens, cols, MatrixKind::Projections);
    StepMatrix& m =
        derive(b.operand(prefix + "scores", "ω",
                         blocked.size() > 0 ? masked_fill(scores, blocked, kNegInf) : scores,
                         tokens, tokens, MatrixKind::Scores),
               Derivation::DotProduct, prefix + "queries", prefix + "keys");
    if (blocked.size() > 0) masked(m, blocked, kNegInf);
}

// What the tutorial's steps 1-15 read (build_walkthrough makes it once).
struct TutorialContext {
    const Sequence& inputs;
    const WalkthroughConfig& config;
    Eigen::Index query_index;                // the followed query, clamped to the tokens
    std::vector<std::string> dims;           // d_in's column labels
    std::vector<std::string> out_dims;       // d_out's column labels
    float sqrt_dk;                           // √d_out, the scale of steps 8 onwards
    std::string seed;                        // config.seed as the snippets print it
    std::function<void(StepBuilder&)> push;  // adds the texts' common args and appends the step
};

// Steps 2-4: the followed query's scores against every token and their softmax.
struct QueryJourney {
    Matrix query;    // (1, d_in)
    Matrix scores;   // (1, T)
    Matrix weights;  // (1, T)
};

// Steps 6-9: SelfAttention_v1's torch.rand weights (the walkthrough's seed) and its pass.
struct SelfAttentionV1Pass {
    SelfAttentionV1 sa_v1;
    Matrix queries, keys, values;  // (T, d_out)
    AttentionResult v1;
};

// Steps 10-12: the causal mask on SelfAttention v2's weights, both ways the tutorial applies it.
struct CausalPass {
    BoolMatrix future;       // (T, T) true = a later token, blocked
    Matrix tril;             // (T, T) 1 where allowed
    Matrix masked_product;   // v2's weights × tril
    Matrix renormalized;     // masked_product with each row summing to 1
    AttentionResult causal;  // -inf before softmax
};

// The tutorial's steps, one builder each, in the order build_walkthrough calls them.
// Steps 1-5 (walkthrough_steps_journey.cpp): the inputs, one query's journey, every token.
void add_inputs(const TutorialContext& context);
void add_scores_journey(const TutorialContext& context, const QueryJourney& journey);
void add_weights_journey(const TutorialContext& context, const QueryJourney& journey);
void add_context_journey(const TutorialContext& context, const QueryJourney& journey);
void add_all_tokens(const TutorialContext& context);
// Steps 6-9 (walkthrough_steps_weights.cpp): trainable weights, scaling, the two classes.
void add_trainable_weights(const TutorialContext& context, const SelfAttentionV1Pass& v1_pass);
void add_queries_keys_values(const TutorialContext& context, const SelfAttentionV1Pass& v1_pass);
void add_scaled_scores(const TutorialContext& context, const SelfAttentionV1Pass& v1_pass);
void add_self_attention_classes(const TutorialContext& context, const SelfAttentionV1Pass& v1_pass,
                                const SelfAttentionV2& sa_v2, const ModuleOutput& v2_out);
// Steps 10-13 (walkthrough_steps_causal.cpp): the causal mask two ways, dropout, a batch.
void add_causal_renormalize(const TutorialContext& context, const ModuleOutput& v2_out,
                            const CausalPass& causal_pass);
void add_causal_softmax(const TutorialContext& context, const ModuleOutput& v2_out,
                        const CausalPass& causal_pass);
void add_dropout(const TutorialContext& context, const ModuleOutput& v2_out,
                 const CausalPass& causal_pass);
void add_causal_attention_batch(const TutorialContext& context);
// Steps 14-15 (walkthrough_steps_heads.cpp): multi-head attention, cross-attention.
void add_multi_head(const TutorialContext& context, const MultiHeadAttention& mha,
                    const ModuleOutput& m_out);
void add_cross_attention(const TutorialContext& context, const SelfAttentionV2& sa_v2);

// Step 16, KV caching with step 14's MultiHeadAttention `mha` and its pass `m_out` over the
// inputs (walkthrough_kv_cache.cpp); push adds the texts' common args and appends the step.
void add_kv_cache_step(const Sequence& inputs, const WalkthroughConfig& config,
                       const MultiHeadAttention& mha, const ModuleOutput& m_out,
                       const std::function<void(StepBuilder&)>& push);

// What the chapters past the tutorial reuse from its steps.
struct ChapterContext {
    const Sequence& inputs;
    const WalkthroughConfig& config;
    Eigen::Index query_index;                // the followed query, clamped to the tokens
    const SelfAttentionV2& sa_v2;            // step 9's SelfAttention v2 (seed 123)
    const ModuleOutput& v2_out;              // its pass over the inputs
    const AttentionResult& causal;           // step 11's causal attention of those projections
    const BoolMatrix& future;                // step 11's causal mask
    std::function<void(StepBuilder&)> push;  // adds the texts' common args and appends the step
    std::function<int()> next_number;        // the number of the step pushed next
};

// Steps 17 onwards: GQA, masks, RoPE, FlashAttention's tiles, in that order.
void add_chapters(const ChapterContext& context);

}  // namespace attn::walk
