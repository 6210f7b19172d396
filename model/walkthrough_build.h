// Internal to the walkthrough (walkthrough.cpp and walkthrough_chapters.cpp): the builder that
// makes one step's records read as the tutorial's cells, and the small text helpers both use.
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
