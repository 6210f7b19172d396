// The walkthrough's chapters past the tutorial, steps 17 onwards: grouped-query attention, masks
// beyond causal, rotary position embeddings and FlashAttention's tiles (walkthrough_tiles.cpp).
#include "walkthrough_chapters.h"

#include <algorithm>
#include <cmath>

#include "number_format.h"
#include "ops.h"
#include "rng.h"
#include "walkthrough_build.h"

namespace attn::walk {

namespace {

// The sizes and labels every frame of the GQA step shares.
struct GqaLayout {
    Eigen::Index num_heads;
    Eigen::Index d_out;  // num_heads × head_dim
    Eigen::Index head_dim;
    std::vector<std::string> dims, head_dims, out_dims;  // d_in's, head_dim's and d_out's columns
    std::vector<std::string> q_heads;                    // "Q1", "Q2" …
    std::vector<std::string> head_cols;                  // "h1·1" …: the query heads' columns
};

// Frame `frame` of the GQA step: the module with g_count K/V heads (the seed's draws), its
// matrices for the hover, and the kv_cache it keeps.
void add_gqa_frame(StepBuilder& b, const ChapterContext& context, const GqaLayout& layout,
                   Eigen::Index g_count, int frame) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const Eigen::Index t = x.rows();
    const Eigen::Index d_in = x.cols();
    const Eigen::Index num_heads = layout.num_heads;
    const Eigen::Index gqa_d_out = layout.d_out;
    const Eigen::Index hd = layout.head_dim;
    const std::vector<std::string>& dims = layout.dims;
    const std::vector<std::string>& head_dims = layout.head_dims;
    const std::vector<std::string>& out_dims = layout.out_dims;
    const std::vector<std::string>& q_heads = layout.q_heads;
    const std::vector<std::string>& head_cols = layout.head_cols;
    TorchGenerator gen(context.config.seed);
    const MultiHeadAttention gqa(d_in, gqa_d_out, t, 0.0f, num_heads, gen, false, g_count);
    const ModuleOutput out = gqa.forward({x});
    std::vector<std::string> kv_cols, kv_names;
    for (Eigen::Index g = 1; g <= g_count; ++g) {
        kv_names.push_back("KV" + count(g));
        for (Eigen::Index c = 1; c <= hd; ++c) kv_cols.push_back("kv" + count(g) + "·" + count(c));
    }
    auto in_frame = [frame](StepMatrix& m) -> StepMatrix& {
        m.frame = frame;
        return m;
    };
    Matrix kv_map = Matrix::Zero(num_heads, g_count);
    for (Eigen::Index h = 0; h < num_heads; ++h)
        kv_map(h, kv_head_of(h, num_heads, g_count)) = 1.0f;
    in_frame(b.add("kv-map", "r", kv_map, q_heads, kv_names, MatrixKind::Mask)).derivation =
        Derivation::KvHeadMap;
    in_frame(b.operand("W_query", "W_q", gqa.W_query.weight.transpose(), dims, head_cols,
                       MatrixKind::Parameters));
    in_frame(b.operand("W_key", "W_k", gqa.W_key.weight.transpose(), dims, kv_cols,
                       MatrixKind::Parameters));
    in_frame(b.operand("W_value", "W_v", gqa.W_value.weight.transpose(), dims, kv_cols,
                       MatrixKind::Parameters));
    in_frame(derive(b.add("gqa-keys", "k", out.keys[0], tok, kv_cols, MatrixKind::Projections),
                    Derivation::Projection, "inputs", "W_key"));
    in_frame(derive(b.add("gqa-values", "v", out.values[0], tok, kv_cols, MatrixKind::Projections),
                    Derivation::Projection, "inputs", "W_value"));
    std::vector<std::string> parts;
    for (Eigen::Index h = 0; h < num_heads; ++h) {
        const Eigen::Index g = kv_head_of(h, num_heads, g_count);
        const std::string n = "-head-" + count(h + 1);
        const std::string kv = "-kv-" + count(g + 1);
        const int head = static_cast<int>(h + 1);
        const AttentionResult& r = out.heads[0][static_cast<std::size_t>(h)];
        in_frame(b.operand("gqa-queries" + n, "q", out.queries[0].middleCols(h * hd, hd), tok,
                           head_dims, MatrixKind::Projections))
            .head = head;
        // Operands are per K/V head: the repeated ones are the same matrix, as repeat_kv.
        if (b.step().find("gqa-keys" + kv, frame) == nullptr) {
            in_frame(b.operand("gqa-keys" + kv, "k", out.keys[0].middleCols(g * hd, hd), tok,
                               head_dims, MatrixKind::Projections));
            in_frame(b.operand("gqa-values" + kv, "v", out.values[0].middleCols(g * hd, hd), tok,
                               head_dims, MatrixKind::Projections));
        }
        in_frame(masked(derive(b.operand("gqa-scores" + n, "ω",
                                         masked_fill(r.scores, r.blocked, kNegInf), tok, tok,
                                         MatrixKind::Scores),
                               Derivation::DotProduct, "gqa-queries" + n, "gqa-keys" + kv),
                        r.blocked, kNegInf))
            .head = head;
        StepMatrix& w = in_frame(
            masked(derive(b.add("gqa-weights" + n, "α", r.weights, tok, tok, MatrixKind::Weights),
                          Derivation::Softmax, "gqa-scores" + n, {}, r.scale_divisor),
                   r.blocked, kNegInf));
        w.head = head;
        w.kv_head = static_cast<int>(g + 1);
        StepMatrix& z = in_frame(derive(
            b.operand("gqa-context" + n, "z", r.context, tok, head_dims, MatrixKind::Context),
            Derivation::WeightedSum, "gqa-weights" + n, "gqa-values" + kv));
        z.head = head;
        parts.push_back("gqa-context" + n);
    }
    StepMatrix& c = in_frame(
        derive(b.operand("gqa-concat", "z", out.concat[0], tok, head_cols, MatrixKind::Context),
               Derivation::Concat, {}));
    c.parts = parts;
    c.head_dim = hd;
    in_frame(b.operand("gqa-out_proj", "W_o", gqa.out_proj.weight.transpose(), head_cols, out_dims,
                       MatrixKind::Parameters));
    in_frame(
        derive(b.add("gqa-output", "y", out.context_vecs[0], tok, out_dims, MatrixKind::Context),
               Derivation::Linear, "gqa-concat", "gqa-out_proj"))
        .bias = gqa.out_proj.bias;
    // The cache a decoder keeps: keys and values of every token, G heads of head_dim.
    KVCache cache = gqa.make_cache(t);
    cache.append(split_heads(out.keys[0], g_count), split_heads(out.values[0], g_count));
    b.fact("num_kv_heads", static_cast<double>(g_count), frame);
    b.fact("group_size", static_cast<double>(num_heads / g_count), frame);
    b.fact("cache_bytes", static_cast<double>(cache.bytes()), frame);
    b.arg("cache_bytes_" + count(g_count), count(static_cast<Eigen::Index>(cache.bytes())));
    if (g_count == num_heads) {
        // The seed's MultiHeadAttention (no num_kv_heads) with the same seed: the same module.
        TorchGenerator mha_gen(context.config.seed);
        const MultiHeadAttention mha(d_in, gqa_d_out, t, 0.0f, num_heads, mha_gen);
        const Matrix mha_out = mha.forward({x}).context_vecs[0];
        b.fact("max_abs_diff_mha",
               static_cast<double>((mha_out - out.context_vecs[0]).cwiseAbs().maxCoeff()), frame);
    }
    b.step().frame_labels.push_back(g_count == 1 ? "mqa" : g_count == num_heads ? "mha" : "gqa");
}

// Grouped-query and multi-query attention: the seed's MultiHeadAttention with 4 query heads
// (d_out 8, so head_dim 2 as the tutorial's heads; head_dim 1 would make every score a single
// product), seed 123, whose W_key and W_value shrink to G K/V heads. One frame per G, from one
// K/V head to as many as query heads: the page opens on the last frame and fits its matrices to
// it, and that frame (the multi-head module itself) has the widest keys and values.
void add_gqa(const ChapterContext& context) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const Eigen::Index d_in = x.cols();
    const Eigen::Index num_heads = std::max<Eigen::Index>(1, context.config.gqa_num_heads);
    const Eigen::Index gqa_d_out =
        std::max<Eigen::Index>(1, context.config.gqa_d_out / num_heads) * num_heads;
    const Eigen::Index hd = gqa_d_out / num_heads;
    const std::string seed = std::to_string(context.config.seed);
    // The K/V head counts that divide num_heads, fewest first: 1, 2, 4 for four heads.
    std::vector<Eigen::Index> kv_counts = {1};
    if (num_heads % 2 == 0 && num_heads > 2) kv_counts.push_back(num_heads / 2);
    if (num_heads > 1) kv_counts.push_back(num_heads);
    const Eigen::Index gqa_kv = kv_counts.size() == 3 ? kv_counts[1] : num_heads;
    const std::vector<std::string> dims = numbered("", d_in);
    const std::vector<std::string> head_dims = numbered("", hd);
    const std::vector<std::string> out_dims = numbered("", gqa_d_out);
    std::vector<std::string> q_heads;
    for (Eigen::Index h = 1; h <= num_heads; ++h) q_heads.push_back("Q" + count(h));
    std::vector<std::string> head_cols;
    for (Eigen::Index h = 1; h <= num_heads; ++h)
        for (Eigen::Index c = 1; c <= hd; ++c) head_cols.push_back("h" + count(h) + "·" + count(c));

    const GqaLayout layout{num_heads, gqa_d_out, hd, dims, head_dims, out_dims, q_heads, head_cols};
    StepBuilder b(
        context.next_number(), "gqa",
        R"(class GroupedQueryAttention(nn.Module):   # MultiHeadAttention with fewer K/V heads
    def __init__(self, d_in, d_out, num_heads, num_kv_heads):
        super().__init__()
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=False)
        self.W_key = nn.Linear(d_in, num_kv_heads * self.head_dim, bias=False)
        self.W_value = nn.Linear(d_in, num_kv_heads * self.head_dim, bias=False)
        self.out_proj = nn.Linear(d_out, d_out)

    def forward(self, x):
        b, T, _ = x.shape
        queries = self.W_query(x).view(b, T, self.num_heads, self.head_dim).transpose(1, 2)
        keys = self.W_key(x).view(b, T, self.num_kv_heads, self.head_dim).transpose(1, 2)
        values = self.W_value(x).view(b, T, self.num_kv_heads, self.head_dim).transpose(1, 2)
        group = self.num_heads // self.num_kv_heads      # query head h reads K/V head h // group
        keys = keys.repeat_interleave(group, dim=1)
        values = values.repeat_interleave(group, dim=1)
        attn_scores = queries @ keys.transpose(2, 3)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        attn_scores.masked_fill_(mask, -torch.inf)
        attn_weights = torch.softmax(attn_scores / self.head_dim**0.5, dim=-1)
        context_vec = (attn_weights @ values).transpose(1, 2).reshape(b, T, -1)
        return self.out_proj(context_vec)

for num_kv_heads in ()" +
            [&] {
                std::string s;
                for (const Eigen::Index g : kv_counts) s += count(g) + ", ";
                return s;
            }() +
            R"():
    torch.manual_seed()" +
            seed + R"()
    gqa = GroupedQueryAttention(d_in, )" +
            count(gqa_d_out) + ", " + count(num_heads) +
            R"(, num_kv_heads)
    context_vecs = gqa(inputs.unsqueeze(0))
    kv_cache_bytes = 2 * T * num_kv_heads * gqa.head_dim * 4   # keys and values, float32)");
    b.operand("inputs", "x", x, tok, dims, MatrixKind::Embeddings);
    for (std::size_t f = 0; f < kv_counts.size(); ++f) {
        add_gqa_frame(b, context, layout, kv_counts[f], static_cast<int>(f));
    }
    b.step().frame_count = static_cast<int>(kv_counts.size());
    b.fact("num_heads", static_cast<double>(num_heads));
    b.fact("head_dim", static_cast<double>(hd));
    b.arg("num_heads", count(num_heads));
    b.arg("head_dim", count(hd));
    b.arg("gqa_d_out", count(gqa_d_out));
    b.arg("gqa_kv_heads", count(gqa_kv));
    b.arg("gqa_group", count(num_heads / gqa_kv));
    b.arg("mha_cache_bytes", b.step().arg("cache_bytes_" + count(num_heads)));
    b.arg("gqa_cache_bytes", b.step().arg("cache_bytes_" + count(gqa_kv)));
    b.arg("mqa_cache_bytes", b.step().arg("cache_bytes_1"));
    context.push(b);
}

// Masks beyond causal, one frame per mask, each one change against step 11's causal
// weights (SelfAttention v2, seed 123): a padded batch, a sliding window, no mask at all.
void add_masks(const ChapterContext& context) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const Eigen::Index t = x.rows();
    const std::vector<std::string> out_dims = numbered("", context.config.d_out);
    const float sqrt_dk = std::sqrt(static_cast<float>(context.config.d_out));
    const SelfAttentionV2& sa_v2 = context.sa_v2;
    const ModuleOutput& v2_out = context.v2_out;
    const AttentionResult& v2 = v2_out.heads[0][0];
    const AttentionResult& causal = context.causal;
    const BoolMatrix& future = context.future;
    const WalkthroughConfig& config = context.config;
    const Eigen::Index valid = std::max<Eigen::Index>(1, t - 2);  // sentence 2's real tokens
    const Eigen::Index w = std::max<Eigen::Index>(1, config.mask_window);
    // Padding rows are zero embeddings, as nn.Embedding gives its padding_idx.
    Matrix x_pad = x;
    x_pad.bottomRows(t - valid).setZero();
    std::vector<std::string> pad_tok = first_tokens(tok, valid);
    for (Eigen::Index i = valid; i < t; ++i) pad_tok.push_back("[PAD]");
    StepBuilder b(context.next_number(), "masks",
                  R"(# 1 = attend, 0 = blocked: the seeds' masked_fill(mask == 0, -inf)
T = inputs.shape[0]
causal = torch.tril(torch.ones(T, T))
lengths = torch.tensor([)" +
                      count(t) + ", " + count(valid) + R"(])      # a batch of two sentences
batch = torch.stack([inputs, inputs.clone()])
batch[1, lengths[1]:] = 0                                 # padding tokens: zero embeddings
padding = (torch.arange(T) < lengths[:, None]).float()    # (2, T): 0 = padding key
mask_padding = causal * padding[:, None, :]               # (2, T, T)
mask_window = causal * torch.triu(torch.ones(T, T), diagonal=-()" +
                      count(w - 1) + R"())  # last )" + count(w) + R"( keys
mask_bidirectional = torch.ones(T, T)                     # an encoder sees every token

x = batch   # with mask_padding; inputs with the other two masks
queries, keys, values = sa.W_query(x), sa.W_key(x), sa.W_value(x)
attn_scores = queries @ keys.transpose(-2, -1)
masked = attn_scores.masked_fill(mask == 0, -torch.inf)
attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)
context_vecs = attn_weights @ values)");
    const Matrix q2 = sa_v2.W_query.forward(x_pad);
    const Matrix k2 = sa_v2.W_key.forward(x_pad);
    const Matrix v2_pad = sa_v2.W_value.forward(x_pad);
    struct MaskFrame {
        std::string label;
        MaskRule rule;
        bool batch;  // the padded batch: sentence 2 is drawn, sentence 1 is step 11's
    };
    MaskRule padding_rule;
    padding_rule.valid_tokens = valid;
    MaskRule window_rule;
    window_rule.window = w;
    MaskRule bidirectional_rule;
    bidirectional_rule.causal = false;
    // The padded batch last: the page opens on the last frame and fits it, and it has the
    // most matrices.
    const std::vector<MaskFrame> frames = {{"window", window_rule, false},
                                           {"bidirectional", bidirectional_rule, false},
                                           {"padding", padding_rule, true}};
    for (std::size_t f = 0; f < frames.size(); ++f) {
        const MaskFrame& mf = frames[f];
        const int frame = static_cast<int>(f);
        BoolMatrix blocked = BoolMatrix::Constant(t, t, false);
        if (mf.rule.causal) blocked = causal_mask(t, t);
        if (mf.rule.window > 0) blocked = window_mask(t, t, mf.rule.window);
        if (mf.rule.valid_tokens >= 0)
            blocked = blocked.array() || padding_mask(t, t, mf.rule.valid_tokens).array();
        const Matrix& qs = mf.batch ? q2 : v2_out.queries[0];
        const Matrix& ks = mf.batch ? k2 : v2_out.keys[0];
        const Matrix& vs = mf.batch ? v2_pad : v2_out.values[0];
        const std::vector<std::string>& labels = mf.batch ? pad_tok : tok;
        AttentionOptions options;
        options.blocked = blocked;
        options.fill_before_scale = true;
        const AttentionResult r = scaled_dot_product_attention(qs, ks, vs, options);
        auto in_frame = [&](StepMatrix& m) -> StepMatrix& {
            m.frame = frame;
            m.mask_rule = mf.rule;
            return m;
        };
        in_frame(b.operand("queries", "q", qs, labels, out_dims, MatrixKind::Projections));
        in_frame(b.operand("keys", "k", ks, labels, out_dims, MatrixKind::Projections));
        in_frame(b.operand("values", "v", vs, labels, out_dims, MatrixKind::Projections));
        in_frame(derive(b.operand("attn-scores", "ω", r.scores, labels, labels, MatrixKind::Scores),
                        Derivation::DotProduct, "queries", "keys"));
        in_frame(
            masked(derive(b.operand("masked-scores", "ω", masked_fill(r.scores, blocked, kNegInf),
                                    labels, labels, MatrixKind::Scores),
                          Derivation::MaskedFill, "attn-scores"),
                   blocked, kNegInf));
        in_frame(derive(b.add("mask", "m", to_float(blocked.array() == false), labels, labels,
                              MatrixKind::Mask),
                        Derivation::RuleMask, {}));
        in_frame(masked(
            derive(b.add("mask-weights", "α", r.weights, labels, labels, MatrixKind::Weights),
                   Derivation::Softmax, "masked-scores", {}, sqrt_dk),
            blocked, kNegInf));
        // Step 11's causal weights beside every mask (added once, drawn in every frame): the
        // one change to compare against; in the padded batch they are sentence 1's.
        if (f == 0)
            masked(
                derive(b.add("causal-weights", "α", causal.weights, tok, tok, MatrixKind::Weights),
                       Derivation::Softmax, "step11-masked-scores", {}, sqrt_dk),
                future, kNegInf);
        in_frame(
            derive(b.add("mask-context", "z", r.context, labels, out_dims, MatrixKind::Context),
                   Derivation::WeightedSum, "mask-weights", "values"));
        b.fact("visible_cells", static_cast<double>((blocked.array() == false).count()), frame);
        b.step().frame_labels.push_back(mf.label);
    }
    masked(derive(b.operand("step11-masked-scores", "ω", masked_fill(v2.scores, future, kNegInf),
                            tok, tok, MatrixKind::Scores),
                  Derivation::MaskedFill, "step11-attn-scores"),
           future, kNegInf);
    derive(b.operand("step11-attn-scores", "ω", v2.scores, tok, tok, MatrixKind::Scores),
           Derivation::DotProduct, "step11-queries", "step11-keys");
    b.operand("step11-queries", "q", v2_out.queries[0], tok, out_dims, MatrixKind::Projections);
    b.operand("step11-keys", "k", v2_out.keys[0], tok, out_dims, MatrixKind::Projections);
    b.step().frame_count = static_cast<int>(frames.size());
    b.arg("window", count(w));
    b.arg("valid_tokens", count(valid));
    b.arg("num_padding", count(t - valid));
    b.arg("first_padding", count(valid + 1));
    context.push(b);
}

// Rotary position embeddings on SelfAttention v2's projections (step 9, seed 123, no mask:
// the scores of every pair of positions), Hugging Face's LLaMA convention. d_out 2 gives one pair
// of coordinates per token, rotated by its position in radians (θ₀ = base⁰ = 1); an odd d_out
// gets one more column so that the coordinates pair up.
void add_rope(const ChapterContext& context) {
    const Matrix& x = context.inputs.embeddings;
    const std::vector<std::string>& tok = context.inputs.tokens;
    const Eigen::Index t = x.rows();
    const Eigen::Index d_in = x.cols();
    const Eigen::Index hd = context.config.d_out + context.config.d_out % 2;
    const Eigen::Index shift = std::max<Eigen::Index>(1, context.config.rope_shift);
    const Eigen::Index q = context.query_index;
    const float base = 10000.0f;  // MultiHeadAttention's rope_base, LLaMA's
    const std::vector<std::string> dims = numbered("", hd);
    const std::vector<std::string> pairs = numbered("θ", hd / 2);
    TorchGenerator gen(context.config.seed);
    const SelfAttentionV2 sa(d_in, hd, gen);
    const ModuleOutput plain = sa.forward(x);
    // The tokens in reverse order: the same module on the permuted inputs.
    std::vector<Eigen::Index> order;
    std::vector<std::string> perm_tok;
    for (Eigen::Index i = t - 1; i >= 0; --i) {
        order.push_back(i);
        perm_tok.push_back(tok[static_cast<std::size_t>(i)]);
    }
    Matrix x_perm(t, d_in);
    for (Eigen::Index i = 0; i < t; ++i) x_perm.row(i) = x.row(order[static_cast<std::size_t>(i)]);
    const ModuleOutput permuted = sa.forward(x_perm);
    // ωᴾ: the scores of the sentence in order, rows and columns reversed.
    const Matrix& scores = plain.heads[0][0].scores;
    Matrix scores_reversed(t, t);
    for (Eigen::Index i = 0; i < t; ++i)
        for (Eigen::Index j = 0; j < t; ++j)
            scores_reversed(i, j) =
                scores(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
    const std::string perm_text = [&] {
        std::string s;
        for (const Eigen::Index i : order) s += (s.empty() ? "" : ", ") + count(i);
        return s;
    }();
    StepBuilder b(context.next_number(), "rope",
                  R"(def rotate_half(x):                   # pairs coordinate i with i + head_dim/2
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)

def rope(x, offset=0, base=)" +
                      format_shortest(base) + R"():   # Hugging Face's LLaMA convention
    T, head_dim = x.shape
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))  # θ_i
    angles = torch.outer(torch.arange(offset, offset + T).float(), inv_freq)
    emb = torch.cat((angles, angles), dim=-1)
    return x * emb.cos() + rotate_half(x) * emb.sin()

torch.manual_seed()" + std::to_string(context.config.seed) +
                      R"()
sa = SelfAttention_v2(d_in, )" +
                      count(hd) + R"()       # no mask: every pair of positions
queries, keys = sa.W_query(inputs), sa.W_key(inputs)
perm = torch.tensor([)" +
                      perm_text + R"(])       # the tokens in reverse order
reversed_scores = sa.W_query(inputs[perm]) @ sa.W_key(inputs[perm]).T
print((reversed_scores - (queries @ keys.T)[perm][:, perm]).abs().max())   # 0 without RoPE
attn_scores = rope(queries) @ rope(keys).T
shifted = rope(queries, )" +
                      count(shift) + ") @ rope(keys, " + count(shift) + R"().T
print((shifted - attn_scores).abs().max())   # ≈ 0: only the distance j − i matters
attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1))");
    b.operand("inputs", "x", x, tok, numbered("", d_in), MatrixKind::Embeddings);
    b.operand("inputs-reversed", "x", x_perm, perm_tok, numbered("", d_in), MatrixKind::Embeddings);
    b.operand("W_query", "W_q", sa.W_query.weight.transpose(), numbered("", d_in), dims,
              MatrixKind::Parameters);
    b.operand("W_key", "W_k", sa.W_key.weight.transpose(), numbered("", d_in), dims,
              MatrixKind::Parameters);
    b.operand("scores-reversed", "ωᴾ", scores_reversed, perm_tok, perm_tok, MatrixKind::Scores);
    b.operand("plain-scores", "ω", scores, tok, tok, MatrixKind::Scores);
    // Every frame draws the same matrices: angles, queries before and after the rotation,
    // rotated keys, scores, weights, and the difference from the frame's comparison.
    struct RopeFrame {
        std::string label;
        bool reversed;
        bool rotate;
        Eigen::Index offset;
        std::string compare_with;  // operand the difference is taken against
    };
    const std::vector<RopeFrame> frames = {{"reversed", true, false, 0, "scores-reversed"},
                                           {"rope", false, true, 0, "plain-scores"},
                                           {"shift", false, true, shift, "rope-scores-0"}};
    for (std::size_t f = 0; f < frames.size(); ++f) {
        const RopeFrame& rf = frames[f];
        const int frame = static_cast<int>(f);
        const ModuleOutput& out = rf.reversed ? permuted : plain;
        const std::vector<std::string>& labels = rf.reversed ? perm_tok : tok;
        RopeAngles angles;
        const Matrix rot_q =
            rf.rotate ? rope_rotate(out.queries[0], rf.offset, base, &angles) : out.queries[0];
        const Matrix rot_k = rf.rotate ? rope_rotate(out.keys[0], rf.offset, base) : out.keys[0];
        const AttentionResult r = scaled_dot_product_attention(rot_q, rot_k, out.values[0], {});
        // Angles per position and pair, position · θ_i as rope_angles computes them; 0 without.
        Matrix angle = Matrix::Zero(t, hd / 2);
        if (rf.rotate)
            for (Eigen::Index p = 0; p < t; ++p)
                angle.row(p) = static_cast<float>(p + rf.offset) * angles.inv_freq;
        auto in_frame = [frame](StepMatrix& m) -> StepMatrix& {
            m.frame = frame;
            return m;
        };
        const std::string prime = rf.offset > 0 ? "′" : "";
        StepMatrix& a =
            in_frame(b.add("rope-angles", "θ" + prime, angle, labels, pairs, MatrixKind::Scores));
        a.derivation = Derivation::RopeAngle;
        a.position_offset = rf.offset;
        a.rope_base = rf.rotate ? base : 0.0f;
        const std::string source = rf.reversed ? "inputs-reversed" : "inputs";
        in_frame(derive(b.add("rope-queries-before", "q", out.queries[0], labels, dims,
                              MatrixKind::Projections),
                        Derivation::Projection, source, "W_query"));
        in_frame(derive(
            b.operand("rope-keys-before", "k", out.keys[0], labels, dims, MatrixKind::Projections),
            Derivation::Projection, source, "W_key"));
        in_frame(derive(
            b.add("rotated-queries", "qʳ" + prime, rot_q, labels, dims, MatrixKind::Projections),
            Derivation::RopeRotation, "rope-queries-before", "rope-angles"));
        in_frame(derive(
            b.add("rotated-keys", "kʳ" + prime, rot_k, labels, dims, MatrixKind::Projections),
            Derivation::RopeRotation, "rope-keys-before", "rope-angles"));
        const std::string omega = rf.rotate ? "ωʳ" + prime : "ω";
        in_frame(derive(b.add("rope-scores", omega, r.scores, labels, labels, MatrixKind::Scores),
                        Derivation::DotProduct, "rotated-queries", "rotated-keys"));
        in_frame(derive(b.add("rope-weights", "α", r.weights, labels, labels, MatrixKind::Weights),
                        Derivation::Softmax, "rope-scores", {}, r.scale_divisor));
        if (f == 1) {
            b.operand("rope-scores-0", "ωʳ", r.scores, tok, tok, MatrixKind::Scores);
        }
        const StepMatrix* reference = b.step().find(rf.compare_with);
        const Matrix difference = (r.scores - reference->values).cwiseAbs();
        // Non-negative like step 11's |method 2 − method 1|: viridis over its own range.
        in_frame(
            derive(b.add("rope-difference", "Δ", difference, labels, labels, MatrixKind::Weights),
                   Derivation::Difference, "rope-scores", rf.compare_with));
        b.fact("max_abs_diff", static_cast<double>(difference.maxCoeff()), frame);
        b.step().frame_labels.push_back(rf.label);
    }
    b.step().frame_count = static_cast<int>(frames.size());
    b.highlight("rotated-queries", q);
    b.arg("rope_dim", count(hd));
    b.arg("rope_shift", count(shift));
    b.arg("rope_base", format_shortest(base));
    b.arg("last_position", count(t - 1));
    b.arg("permuted_sentence", joined(perm_tok, " "));
    b.arg("query_angle", format_fixed(static_cast<double>(q)));
    b.arg("query_position", count(q));
    context.push(b);
}

}  // namespace

void add_chapters(const ChapterContext& context) {
    add_gqa(context);
    add_masks(context);
    add_rope(context);
    // FlashAttention's tiles on step 11's causal attention; key tiles of at least 1.
    StepBuilder tiles(tiles_step(
        context.v2_out.queries[0], context.v2_out.keys[0], context.v2_out.values[0],
        context.inputs.tokens, true, std::max<Eigen::Index>(1, context.config.query_tile),
        std::max<Eigen::Index>(1, context.config.key_tile), context.next_number(), "flash-tiles"));
    context.push(tiles);
}

}  // namespace attn::walk
