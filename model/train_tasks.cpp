// The training tasks, the head scores and the presets (model/trainer.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "trainer.h"

namespace attn {

using Index = Eigen::Index;

namespace {

constexpr int kBos = 0;  // the induction task's first token

std::string str(Index v) { return std::to_string(v); }

// A uniform draw in [0, n) from one 32-bit draw (n is small: the bias is below 2^-20).
Index draw_below(TorchGenerator& gen, Index n) {
    return static_cast<Index>(gen.random() % static_cast<std::uint32_t>(n));
}

void check_induction_sizes(Index vocab_size, Index seq_len) {
    if (vocab_size < 3)
        throw AttentionError(
            "the induction task needs a vocabulary of at least 3 tokens (BOS and "
            "two others), not " +
            str(vocab_size) + ": give --vocab 3 or more");
    if (seq_len < 5)
        throw AttentionError("the induction task needs seq_len >= 5 to hold [BOS] r r, not " +
                             str(seq_len) + ": give a longer --seq-len");
}

// Random tokens 1 .. V − 1 (BOS never repeats inside r).
int random_token(TorchGenerator& gen, Index vocab_size) {
    return static_cast<int>(1 + draw_below(gen, vocab_size - 1));
}

}  // namespace

TrainBatch induction_batch(Index vocab_size, Index seq_len, Index batch, TorchGenerator& gen) {
    check_induction_sizes(vocab_size, seq_len);
    if (batch < 1) throw AttentionError("batch must be at least 1, not " + str(batch));
    // From 2 (a repeat of one token is a bigram, not a copy) to the longest that fits.
    const Index min_len = 2, max_len = (seq_len - 1) / 2;
    TrainBatch out;
    out.batch = batch;
    out.seq_len = seq_len;
    out.inputs.reserve(static_cast<std::size_t>(batch * seq_len));
    out.targets.reserve(out.inputs.capacity());
    std::vector<int> tokens(static_cast<std::size_t>(seq_len + 1));
    int* seq = tokens.data();
    for (Index b = 0; b < batch; ++b) {
        const Index n = min_len + draw_below(gen, max_len - min_len + 1);
        seq[0] = kBos;
        for (Index i = 1; i <= n; ++i) seq[i] = random_token(gen, vocab_size);
        for (Index i = 1; i <= n; ++i) seq[n + i] = seq[i];
        for (Index i = 2 * n + 1; i <= seq_len; ++i) seq[i] = random_token(gen, vocab_size);
        out.inputs.insert(out.inputs.end(), seq, seq + seq_len);
        out.targets.insert(out.targets.end(), seq + 1, seq + seq_len + 1);
    }
    return out;
}

std::vector<std::vector<int>> induction_probes(Index vocab_size, Index repeat_len, Index count,
                                               std::uint64_t seed) {
    check_induction_sizes(vocab_size, 2 * repeat_len + 1);
    TorchGenerator gen(seed);
    const Index n = repeat_len;
    std::vector<std::vector<int>> probes;
    for (Index p = 0; p < count; ++p) {
        std::vector<int> tokens(static_cast<std::size_t>(2 * n + 1));
        int* seq = tokens.data();
        seq[0] = kBos;
        for (Index i = 1; i <= n; ++i) seq[i] = seq[n + i] = random_token(gen, vocab_size);
        probes.push_back(std::move(tokens));
    }
    return probes;
}

Index probe_repeat_len(Index seq_len) { return std::max<Index>(2, seq_len / 5); }

TextWindows::TextWindows(std::vector<int> tokens, Index seq_len, bool shuffle, std::uint64_t seed)
    : tokens_(std::move(tokens)), seq_len_(seq_len), shuffle_(shuffle), gen_(seed) {
    if (seq_len_ < 1) throw AttentionError("seq_len must be at least 1, not " + str(seq_len_));
    const Index n = static_cast<Index>(tokens_.size());
    if (n <= seq_len_)
        throw AttentionError("the text has " + str(n) + " tokens, fewer than seq_len + 1 = " +
                             str(seq_len_ + 1) + ": give a longer text or a shorter --seq-len");
}

// Windows k with k·T + T < N: k < (N − T) / T, so (N − 1) / T of them.
Index TextWindows::count() const { return (static_cast<Index>(tokens_.size()) - 1) / seq_len_; }

TrainBatch TextWindows::batch(Index index, Index batch_size) {
    if (batch_size < 1) throw AttentionError("batch must be at least 1, not " + str(batch_size));
    const Index windows = count(), T = seq_len_;
    TrainBatch out;
    out.batch = batch_size;
    out.seq_len = T;
    out.inputs.resize(static_cast<std::size_t>(batch_size * T));
    out.targets.resize(out.inputs.size());
    for (Index b = 0; b < batch_size; ++b) {
        const Index position = index * batch_size + b;
        Index k = position % windows;
        if (shuffle_) {
            // One permutation per pass over the windows, drawn when the pass begins.
            const Index pass = position / windows;
            if (order_.empty() || pass != pass_) {
                order_.resize(static_cast<std::size_t>(windows));
                std::iota(order_.begin(), order_.end(), Index{0});
                Index* order = order_.data();
                for (Index i = windows - 1; i > 0; --i)
                    std::swap(order[i], order[draw_below(gen_, i + 1)]);
                pass_ = pass;
            }
            k = order_.data()[k];
        }
        const int* window = tokens_.data() + k * T;
        std::copy(window, window + T, out.inputs.data() + b * T);
        std::copy(window + 1, window + T + 1, out.targets.data() + b * T);
    }
    return out;
}

std::vector<HeadScore> head_scores(const std::vector<std::vector<std::vector<Matrix>>>& attentions,
                                   Index repeat_len) {
    std::vector<HeadScore> scores;
    if (attentions.empty() || repeat_len < 1) return scores;
    const Index n = repeat_len;
    for (std::size_t layer = 0; layer < attentions[0].size(); ++layer) {
        for (std::size_t head = 0; head < attentions[0][layer].size(); ++head) {
            double previous = 0.0, induction = 0.0;
            Index cells = 0;
            for (const auto& probe : attentions) {
                const Matrix& a = probe[layer][head];
                if (a.rows() < 2 * n + 1)
                    throw AttentionError("a probe of " + str(a.rows()) +
                                         " tokens is shorter than [BOS] r r with r of " + str(n));
                // Second copy: positions n + 1 .. 2n; its earlier occurrence is i − n.
                for (Index i = n + 1; i <= 2 * n; ++i) {
                    previous += static_cast<double>(a(i, i - 1));
                    induction += static_cast<double>(a(i, i - n + 1));
                    ++cells;
                }
            }
            HeadScore s;
            s.layer = static_cast<Index>(layer);
            s.head = static_cast<Index>(head);
            s.previous_token_score = static_cast<float>(previous / static_cast<double>(cells));
            s.induction_score = static_cast<float>(induction / static_cast<double>(cells));
            scores.push_back(s);
        }
    }
    return scores;
}

TransformerSpec train_spec(Index num_layers, Index num_heads, Index d_model, Index vocab_size,
                           Index max_positions, bool attn_only) {
    if (num_heads >= 1 && d_model % num_heads != 0)
        check_heads_divide(d_model, num_heads, "d_model");
    TransformerSpec s;
    s.family = ModelFamily::Gpt2;
    s.num_layers = num_layers;
    s.num_heads = num_heads;
    s.num_kv_heads = num_heads;
    s.d_model = d_model;
    s.head_dim = num_heads > 0 ? d_model / num_heads : 0;
    s.d_ff = 4 * d_model;
    s.vocab_size = vocab_size;
    s.max_positions = max_positions;
    s.attn_only = attn_only;
    check_spec(s);
    return s;
}

std::vector<std::string> train_preset_names() { return {"attn-only-1l", "attn-only-2l", "gpt-2l"}; }

TrainPreset train_preset(const std::string& name, Index vocab_size, Index seq_len) {
    TrainPreset p;
    p.name = name;
    p.seq_len = seq_len;
    if (name == "attn-only-1l" || name == "attn-only-2l") {
        // Eight heads of 8: more heads, more chances for a previous-token head to start; 40
        // positions: repeats up to 19 long, twice the probes' 8 (probe_repeat_len).
        if (seq_len <= 0) p.seq_len = 40;
        const Index layers = name == "attn-only-1l" ? 1 : 2;
        p.spec = train_spec(layers, 8, 64, vocab_size, p.seq_len, true);
        p.lr = 3e-3f;
        p.batch = 32;
    } else if (name == "gpt-2l") {
        // A character-level text model that learns words in a minute on one thread.
        if (seq_len <= 0) p.seq_len = 64;
        p.spec = train_spec(2, 4, 64, vocab_size, p.seq_len, false);
        p.lr = 3e-3f;
        p.batch = 16;
    } else {
        std::string names;
        for (const auto& n : train_preset_names()) names += (names.empty() ? "" : ", ") + n;
        throw AttentionError("unknown preset \"" + name + "\": choose one of " + names);
    }
    return p;
}

}  // namespace attn
