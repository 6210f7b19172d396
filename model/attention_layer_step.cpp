#include "attention_layer_step.h"

#include "ops.h"

namespace attn {

bool is_causal_attention(const std::vector<Matrix>& heads) {
    if (heads.empty()) return false;
    const Eigen::Index t_q = heads.front().rows(), t_k = heads.front().cols();
    if (t_k < 2) return false;
    const BoolMatrix future = causal_mask(t_q, t_k);
    if (!future.any()) return false;
    for (const Matrix& head : heads) {
        if (head.rows() != t_q || head.cols() != t_k) return false;
        for (Eigen::Index i = 0; i < t_q; ++i)
            for (Eigen::Index j = 0; j < t_k; ++j)
                if (future(i, j) && head(i, j) != 0.0f) return false;
    }
    return true;
}

namespace {

// One head's weights as a record matrix, as every layer-like step draws them.
StepMatrix head_weights(std::string id, const Matrix& values, std::vector<std::string> rows,
                        std::vector<std::string> cols, BoolMatrix blocked, std::size_t head) {
    StepMatrix w;
    w.id = std::move(id);
    w.symbol = "α";
    w.values = values;
    w.row_labels = std::move(rows);
    w.col_labels = std::move(cols);
    w.kind = MatrixKind::Weights;
    w.blocked = std::move(blocked);
    w.fill_value = kNegInf;
    w.head = static_cast<int>(head + 1);
    return w;
}

}  // namespace

Step attention_layer_step(const std::vector<Matrix>& heads, Eigen::Index layer,
                          const std::vector<std::string>& tokens) {
    const Eigen::Index t_q = heads.empty() ? 0 : heads.front().rows();
    const Eigen::Index t_k = heads.empty() ? 0 : heads.front().cols();
    for (const Matrix& head : heads)
        if (head.rows() != t_q || head.cols() != t_k)
            throw AttentionError("attention_layer_step: the heads of layer " +
                                 std::to_string(layer + 1) + " differ in shape");
    if (t_q > t_k)
        throw AttentionError("attention_layer_step: " + std::to_string(t_q) + " queries but only " +
                             std::to_string(t_k) + " keys");
    if (static_cast<Eigen::Index>(tokens.size()) != t_k)
        throw AttentionError("attention_layer_step: " + std::to_string(tokens.size()) +
                             " token labels for " + std::to_string(t_k) + " tokens");
    const std::vector<std::string> query_tokens(tokens.end() - static_cast<std::ptrdiff_t>(t_q),
                                                tokens.end());
    BoolMatrix blocked;
    if (is_causal_attention(heads)) blocked = causal_mask(t_q, t_k);

    Step step;
    step.number = 0;  // not a step of the walkthrough: files are named after the id
    step.id = "layer-" + std::to_string(layer + 1);
    step.text_args = {{"layer", std::to_string(layer + 1)},
                      {"num_heads", std::to_string(heads.size())},
                      {"num_tokens", std::to_string(t_k)}};
    for (std::size_t h = 0; h < heads.size(); ++h) {
        StepMatrix w = head_weights(step.id + "-head-" + std::to_string(h + 1), heads[h],
                                    query_tokens, tokens, blocked, h);
        // explanations name a query by its position in the whole sequence
        w.row_offset = t_k - t_q;
        step.matrices.push_back(std::move(w));
    }
    return step;
}

Step run_heads_step(const std::vector<AttentionResult>& heads,
                    const std::vector<BoolMatrix>& dropped,
                    const std::vector<std::string>& query_tokens,
                    const std::vector<std::string>& key_tokens) {
    Step step;
    step.number = 0;  // not a step of the walkthrough: files are named after the matrix id
    step.id = "attn-weights";
    step.text_args = {{"num_heads", std::to_string(heads.size())},
                      {"num_tokens", std::to_string(key_tokens.size())}};
    for (std::size_t h = 0; h < heads.size(); ++h) {
        const AttentionResult& r = heads[h];
        // With dropout the values were averaged with the dropped weights; without, `dropped`
        // is left empty.
        const Matrix& values = r.dropped.size() > 0 ? r.dropped : r.weights;
        if (values.rows() != static_cast<Eigen::Index>(query_tokens.size()) ||
            values.cols() != static_cast<Eigen::Index>(key_tokens.size()))
            throw AttentionError("run_heads_step: head " + std::to_string(h + 1) + " is " +
                                 std::to_string(values.rows()) + " × " +
                                 std::to_string(values.cols()) + " but the labels give " +
                                 std::to_string(query_tokens.size()) + " queries × " +
                                 std::to_string(key_tokens.size()) + " keys");
        StepMatrix w = head_weights("attn-weights-head-" + std::to_string(h + 1), values,
                                    query_tokens, key_tokens, r.blocked, h);
        if (h < dropped.size()) w.dropped = dropped[h];
        step.matrices.push_back(std::move(w));
    }
    return step;
}

}  // namespace attn
