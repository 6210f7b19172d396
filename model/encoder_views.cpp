#include "encoder_views.h"

#include <cmath>
#include <limits>

#include "ops.h"

namespace attn {

using Eigen::Index;

namespace {

// The segment pair a filter keeps, or -1, -1 for All.
std::pair<int, int> filter_pair(PairFilter filter) {
    switch (filter) {
        case PairFilter::AToA:
            return {0, 0};
        case PairFilter::AToB:
            return {0, 1};
        case PairFilter::BToA:
            return {1, 0};
        case PairFilter::BToB:
            return {1, 1};
        case PairFilter::All:
            break;
    }
    return {-1, -1};
}

void check_size(std::size_t given, Index t, const char* what) {
    if (static_cast<Index>(given) != t)
        throw AttentionError(std::string(what) + " has " + std::to_string(given) + " entries for " +
                             std::to_string(t) + " tokens: give one per token");
}

// m restricted to the kept rows and columns.
Matrix kept_cells(const Matrix& m, const std::vector<Index>& kept) {
    const Index n = static_cast<Index>(kept.size());
    Matrix out(n, n);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < n; ++j)
            out(i, j) = m(kept[static_cast<std::size_t>(i)], kept[static_cast<std::size_t>(j)]);
    return out;
}

BoolMatrix kept_cells(const BoolMatrix& m, const std::vector<Index>& kept) {
    const Index n = static_cast<Index>(kept.size());
    BoolMatrix out(n, n);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < n; ++j)
            out(i, j) = m(kept[static_cast<std::size_t>(i)], kept[static_cast<std::size_t>(j)]);
    return out;
}

std::vector<std::string> kept_labels(const std::vector<std::string>& labels,
                                     const std::vector<Index>& kept) {
    std::vector<std::string> out;
    for (Index k : kept)
        if (k < static_cast<Index>(labels.size()))
            out.push_back(labels[static_cast<std::size_t>(k)]);
    return out;
}

}  // namespace

BoolMatrix pair_filter_mask(const std::vector<int>& segments, PairFilter filter) {
    const Index t = static_cast<Index>(segments.size());
    for (int s : segments)
        if (s != 0 && s != 1)
            throw AttentionError("segment " + std::to_string(s) +
                                 " is neither sentence A (0) nor sentence B (1)");
    const auto [query_segment, key_segment] = filter_pair(filter);
    BoolMatrix hidden = BoolMatrix::Constant(t, t, false);
    if (query_segment < 0) return hidden;
    for (Index i = 0; i < t; ++i)
        for (Index j = 0; j < t; ++j)
            hidden(i, j) = segments[static_cast<std::size_t>(i)] != query_segment ||
                           segments[static_cast<std::size_t>(j)] != key_segment;
    return hidden;
}

Matrix hide_cells(const Matrix& weights, const BoolMatrix& hidden) {
    if (hidden.size() == 0) return weights;
    if (hidden.rows() != weights.rows() || hidden.cols() != weights.cols())
        throw AttentionError("hide_cells: the mask is " + std::to_string(hidden.rows()) + "x" +
                             std::to_string(hidden.cols()) + " but the weights are " +
                             std::to_string(weights.rows()) + "x" + std::to_string(weights.cols()));
    Matrix out = weights;
    for (Index i = 0; i < out.rows(); ++i)
        for (Index j = 0; j < out.cols(); ++j)
            if (hidden(i, j)) out(i, j) = std::numeric_limits<float>::quiet_NaN();
    return out;
}

SpecialsHidden hide_special_tokens(const Matrix& weights, const std::vector<bool>& special) {
    check_size(special.size(), weights.cols(), "the special-token list");
    if (weights.rows() != weights.cols())
        throw AttentionError("hide_special_tokens needs (T, T) weights, not " +
                             std::to_string(weights.rows()) + "x" + std::to_string(weights.cols()));
    SpecialsHidden out;
    for (Index t = 0; t < weights.cols(); ++t)
        if (!special[static_cast<std::size_t>(t)]) out.kept.push_back(t);
    if (out.kept.empty())
        throw AttentionError("every token is a special token: type some text to see it");
    out.kept_weights = kept_cells(weights, out.kept);
    out.weights = out.kept_weights;
    // Each row's weight on the special keys is given back to the others in proportion, so the
    // row is a distribution over the tokens still shown.
    for (Index i = 0; i < out.weights.rows(); ++i) {
        const float sum = out.kept_weights.row(i).sum();
        if (sum > 0.0f) out.weights.row(i) /= sum;
    }
    return out;
}

Step encoder_layer_step(const Step& layer, const std::vector<int>& segments,
                        const std::vector<bool>& special, const EncoderViewOptions& options) {
    Step step = layer;
    const BoolMatrix hidden = pair_filter_mask(segments, options.filter);
    std::vector<StepMatrix> heads;
    for (StepMatrix& w : step.matrices) {
        const Index t = w.values.rows();
        check_size(segments.size(), t, "the segment list");
        BoolMatrix blocked = w.blocked.size() == 0 ? BoolMatrix::Constant(t, t, false) : w.blocked;
        blocked = blocked.array() || hidden.array();
        if (!options.hide_specials) {
            w.blocked = blocked.any() ? blocked : BoolMatrix();
            continue;
        }
        const SpecialsHidden kept = hide_special_tokens(w.values, special);
        StepMatrix original = w;
        original.id = "kept-" + std::to_string(w.head);
        original.values = kept.kept_weights;
        original.row_labels = kept_labels(w.row_labels, kept.kept);
        original.col_labels = kept_labels(w.col_labels, kept.kept);
        original.blocked = BoolMatrix();
        original.derivation = Derivation::None;
        original.lhs.clear();
        w.values = kept.weights;
        w.row_labels = original.row_labels;
        w.col_labels = original.col_labels;
        const BoolMatrix kept_blocked = kept_cells(blocked, kept.kept);
        w.blocked = kept_blocked.any() ? kept_blocked : BoolMatrix();
        // α′ for the renormalised weight, so its explanation reads α′ = α / Σ α.
        w.symbol = "α′";
        w.derivation = Derivation::Renormalize;
        w.lhs = original.id;
        w.divisor = 1.0f;
        // Query names count the shown rows: the explanation's α₂₃ is row 2 of this matrix.
        w.row_vector_index = false;
        step.operands.push_back(std::move(original));
    }
    step.text_args.emplace_back("encoder", "1");
    if (options.hide_specials) step.text_args.emplace_back("specials_hidden", "1");
    return step;
}

std::vector<std::vector<Matrix>> encoder_attentions(
    const std::vector<std::vector<Matrix>>& attentions, const std::vector<int>& segments,
    const std::vector<bool>& special, const EncoderViewOptions& options) {
    if (options.filter == PairFilter::All && !options.hide_specials) return attentions;
    const BoolMatrix hidden = pair_filter_mask(segments, options.filter);
    std::vector<std::vector<Matrix>> out(attentions.size());
    for (std::size_t l = 0; l < attentions.size(); ++l)
        for (const Matrix& w : attentions[l]) {
            check_size(segments.size(), w.rows(), "the segment list");
            if (!options.hide_specials) {
                out[l].push_back(hide_cells(w, hidden));
                continue;
            }
            const SpecialsHidden kept = hide_special_tokens(w, special);
            out[l].push_back(hide_cells(kept.weights, kept_cells(hidden, kept.kept)));
        }
    return out;
}

NeuronView neuron_view(const ModelForwardResult& result, const TransformerSpec& spec, Index layer,
                       Index head, Index query, Index key, const std::vector<int>& attention_mask) {
    const auto l = static_cast<std::size_t>(layer);
    if (layer < 0 || l >= result.queries.size() || l >= result.keys.size())
        throw AttentionError("layer " + std::to_string(layer + 1) +
                             " has no queries and keys: run model_forward with keep_qkv");
    const Matrix& queries = result.queries[l];
    const Matrix& keys = result.keys[l];
    const Index hd = spec.head_dim;
    if (head < 0 || head >= spec.num_heads || query < 0 || query >= queries.rows() || key < 0 ||
        key >= keys.rows())
        throw AttentionError("neuron_view: head " + std::to_string(head + 1) + ", query " +
                             std::to_string(query + 1) + ", key " + std::to_string(key + 1) +
                             " is outside the pass's " + std::to_string(spec.num_heads) +
                             " heads and " + std::to_string(queries.rows()) + " tokens");
    if (!attention_mask.empty()) check_size(attention_mask.size(), keys.rows(), "attention_mask");
    const Index g = kv_head_of(head, spec.num_heads, spec.num_kv_heads);
    const Matrix q_head = queries.middleCols(head * hd, hd);
    const Matrix k_head = keys.middleCols(g * hd, hd);
    NeuronView v;
    v.layer = layer;
    v.head = head;
    v.query = query;
    v.key = key;
    v.head_dim = hd;
    v.q = q_head.row(query);
    v.k = k_head.row(key);
    v.product = v.q.cwiseProduct(v.k);
    // The whole row of scores as model_layer_step's operand computes it (q · kᵀ), so the numbers
    // are the hover arithmetic's.
    Matrix scores = q_head.row(query) * k_head.transpose();
    v.dot = scores(0, key);
    v.sqrt_head_dim = std::sqrt(static_cast<float>(hd));
    scores /= v.sqrt_head_dim;
    v.scaled = scores(0, key);
    BoolMatrix blocked = BoolMatrix::Constant(1, scores.cols(), false);
    if (spec.causal)
        for (Index j = query + 1; j < scores.cols(); ++j) blocked(0, j) = true;
    for (std::size_t j = 0; j < attention_mask.size(); ++j)
        if (attention_mask[j] == 0) blocked(0, static_cast<Index>(j)) = true;
    v.weight = softmax_rows(masked_fill(scores, blocked, kNegInf))(0, key);
    return v;
}

}  // namespace attn
