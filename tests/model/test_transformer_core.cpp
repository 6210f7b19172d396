// The one transformer core: tensor tables in file order, weight checks naming the tensor, and the
// parts the LLaMA layout uses (separate projections, grouped K/V heads, rotary positions,
// RMSNorm, SwiGLU, untied head) against a naive double-precision loop written here, and the
// generator's kv_cache against the full pass, and the same model against float64 PyTorch
// (tests/reference/llama_core_reference.py). GPT-2's numbers against PyTorch are in
// test_gpt2_forward.
#include <QObject>
#include <QTest>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "model/attention_layer_step.h"
#include "model/generator.h"
#include "model/matmul.h"
#include "model/ops.h"
#include "model/transformer.h"
#include "model/transformer_layers.h"
#include "tests/reference/llama_core_reference.h"
#include "tests/support/model_test_weights.h"

using attn::Matrix;
using attn::TensorRole;
using attn::TransformerSpec;
using attn::TransformerWeights;

namespace {

using Grid = std::vector<std::vector<double>>;

std::vector<std::string> file_order(const TransformerSpec& spec) {
    std::vector<std::string> names;
    attn::for_each_tensor(attn::tensor_table(spec), spec.num_layers,
                          [&](const attn::TensorEntry& e, Eigen::Index layer) {
                              names.push_back(attn::tensor_name(e, layer));
                          });
    return names;
}

// y = x · Wᵀ for an (out, in) weight, in double.
Grid linear_out_in(const Grid& x, const attn::WeightView& w) {
    Grid y(x.size(), std::vector<double>(static_cast<std::size_t>(w.rows), 0.0));
    for (std::size_t t = 0; t < x.size(); ++t)
        for (Eigen::Index o = 0; o < w.rows; ++o)
            for (Eigen::Index i = 0; i < w.cols; ++i)
                y[t][static_cast<std::size_t>(o)] +=
                    x[t][static_cast<std::size_t>(i)] * static_cast<double>(w.data[o * w.cols + i]);
    return y;
}

Grid rms_norm(const Grid& x, const attn::WeightView& w, double eps) {
    Grid y = x;
    for (std::vector<double>& row : y) {
        double ms = 0.0;
        for (double v : row) ms += v * v;
        const double inv = 1.0 / std::sqrt(ms / static_cast<double>(row.size()) + eps);
        for (std::size_t c = 0; c < row.size(); ++c) row[c] *= inv * static_cast<double>(w.data[c]);
    }
    return y;
}

// Rotary positions in rotate_half's layout: coordinate i pairs with i + hd/2.
void rope(Grid& x, Eigen::Index heads, Eigen::Index hd, double base) {
    const std::size_t half = static_cast<std::size_t>(hd / 2);
    for (std::size_t t = 0; t < x.size(); ++t)
        for (Eigen::Index h = 0; h < heads; ++h)
            for (std::size_t i = 0; i < half; ++i) {
                const double theta =
                    std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(hd));
                const double angle = static_cast<double>(t) * theta;
                const std::size_t a = static_cast<std::size_t>(h * hd) + i, b = a + half;
                const double xa = x[t][a], xb = x[t][b];
                x[t][a] = xa * std::cos(angle) - xb * std::sin(angle);
                x[t][b] = xb * std::cos(angle) + xa * std::sin(angle);
            }
}

// y = x · W + b for a Conv1D (in, out) weight, in double.
Grid linear_in_out(const Grid& x, const attn::WeightView& w, const attn::WeightView& b) {
    Grid y(x.size(), std::vector<double>(static_cast<std::size_t>(w.cols), 0.0));
    for (std::size_t t = 0; t < x.size(); ++t)
        for (Eigen::Index o = 0; o < w.cols; ++o) {
            double sum = static_cast<double>(b.data[o]);
            for (Eigen::Index i = 0; i < w.rows; ++i)
                sum +=
                    x[t][static_cast<std::size_t>(i)] * static_cast<double>(w.data[i * w.cols + o]);
            y[t][static_cast<std::size_t>(o)] = sum;
        }
    return y;
}

struct NaiveResult {
    std::vector<std::vector<Grid>> attentions;  // [layer][head] (T, T)
    Grid logits;                                // (T, V)
};

// The LLaMA layout, written out loop by loop.
NaiveResult naive_llama(const TransformerWeights& w, const std::vector<int>& ids) {
    const TransformerSpec& s = w.spec;
    const std::size_t T = ids.size(), hd = static_cast<std::size_t>(s.head_dim);
    const Eigen::Index group = s.num_heads / s.num_kv_heads;
    Grid h(T, std::vector<double>(static_cast<std::size_t>(s.d_model)));
    for (std::size_t t = 0; t < T; ++t)
        for (std::size_t c = 0; c < h[t].size(); ++c)
            h[t][c] = w[TensorRole::TokenEmbedding]
                          .data[ids[t] * s.d_model + static_cast<Eigen::Index>(c)];
    NaiveResult out;
    for (const attn::LayerWeights& l : w.layers) {
        const Grid a = rms_norm(h, l[TensorRole::AttnNormWeight], s.norm_eps);
        Grid q = linear_out_in(a, l[TensorRole::QueryWeight]);
        Grid k = linear_out_in(a, l[TensorRole::KeyWeight]);
        const Grid v = linear_out_in(a, l[TensorRole::ValueWeight]);
        rope(q, s.num_heads, s.head_dim, s.rope.base);
        rope(k, s.num_kv_heads, s.head_dim, s.rope.base);
        Grid context(T, std::vector<double>(static_cast<std::size_t>(s.q_width()), 0.0));
        std::vector<Grid> heads;
        for (Eigen::Index head = 0; head < s.num_heads; ++head) {
            const std::size_t qo = static_cast<std::size_t>(head) * hd;
            const std::size_t ko = static_cast<std::size_t>(head / group) * hd;
            Grid weights(T, std::vector<double>(T, 0.0));
            for (std::size_t i = 0; i < T; ++i) {
                double max = -1e300, sum = 0.0;
                std::vector<double> score(i + 1);
                for (std::size_t j = 0; j <= i; ++j) {
                    for (std::size_t c = 0; c < hd; ++c) score[j] += q[i][qo + c] * k[j][ko + c];
                    score[j] /= std::sqrt(static_cast<double>(hd));
                    max = std::max(max, score[j]);
                }
                for (std::size_t j = 0; j <= i; ++j) sum += std::exp(score[j] - max);
                for (std::size_t j = 0; j <= i; ++j) {
                    weights[i][j] = std::exp(score[j] - max) / sum;
                    for (std::size_t c = 0; c < hd; ++c)
                        context[i][qo + c] += weights[i][j] * v[j][ko + c];
                }
            }
            heads.push_back(std::move(weights));
        }
        out.attentions.push_back(std::move(heads));
        const Grid o = linear_out_in(context, l[TensorRole::OutWeight]);
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t c = 0; c < h[t].size(); ++c) h[t][c] += o[t][c];
        const Grid m = rms_norm(h, l[TensorRole::MlpNormWeight], s.norm_eps);
        Grid gate = linear_out_in(m, l[TensorRole::GateWeight]);
        const Grid up = linear_out_in(m, l[TensorRole::UpWeight]);
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t c = 0; c < gate[t].size(); ++c)
                gate[t][c] = gate[t][c] / (1.0 + std::exp(-gate[t][c])) * up[t][c];
        const Grid down = linear_out_in(gate, l[TensorRole::DownWeight]);
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t c = 0; c < h[t].size(); ++c) h[t][c] += down[t][c];
    }
    out.logits = linear_out_in(rms_norm(h, w[TensorRole::FinalNormWeight], s.norm_eps),
                               w[TensorRole::OutputWeight]);
    return out;
}

// GPT-2's layout without norms or MLP (attn_only), loop by loop: h = wte[id] + wpe[t];
// per layer h += c_proj(causal attention(c_attn(h))); logits = h · wteᵀ.
NaiveResult naive_attn_only(const TransformerWeights& w, const std::vector<int>& ids) {
    const TransformerSpec& s = w.spec;
    const std::size_t T = ids.size(), hd = static_cast<std::size_t>(s.head_dim);
    const std::size_t d = static_cast<std::size_t>(s.d_model);
    Grid h(T, std::vector<double>(d));
    for (std::size_t t = 0; t < T; ++t)
        for (std::size_t c = 0; c < d; ++c)
            h[t][c] =
                static_cast<double>(
                    w[TensorRole::TokenEmbedding].data[static_cast<std::size_t>(ids[t]) * d + c]) +
                static_cast<double>(w[TensorRole::PositionEmbedding].data[t * d + c]);
    NaiveResult out;
    for (const attn::LayerWeights& l : w.layers) {
        const Grid qkv = linear_in_out(h, l[TensorRole::QkvWeight], l[TensorRole::QkvBias]);
        Grid context(T, std::vector<double>(d, 0.0));
        std::vector<Grid> heads;
        for (std::size_t head = 0; head < static_cast<std::size_t>(s.num_heads); ++head) {
            const std::size_t qo = head * hd, ko = d + head * hd, vo = 2 * d + head * hd;
            Grid weights(T, std::vector<double>(T, 0.0));
            for (std::size_t i = 0; i < T; ++i) {
                double max = -1e300, sum = 0.0;
                std::vector<double> score(i + 1, 0.0);
                for (std::size_t j = 0; j <= i; ++j) {
                    for (std::size_t c = 0; c < hd; ++c)
                        score[j] += qkv[i][qo + c] * qkv[j][ko + c];
                    score[j] /= std::sqrt(static_cast<double>(hd));
                    max = std::max(max, score[j]);
                }
                for (std::size_t j = 0; j <= i; ++j) sum += std::exp(score[j] - max);
                for (std::size_t j = 0; j <= i; ++j) {
                    weights[i][j] = std::exp(score[j] - max) / sum;
                    for (std::size_t c = 0; c < hd; ++c)
                        context[i][qo + c] += weights[i][j] * qkv[j][vo + c];
                }
            }
            heads.push_back(std::move(weights));
        }
        out.attentions.push_back(std::move(heads));
        const Grid o = linear_in_out(context, l[TensorRole::OutWeight], l[TensorRole::OutBias]);
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t c = 0; c < d; ++c) h[t][c] += o[t][c];
    }
    const attn::WeightView& wte = w[TensorRole::TokenEmbedding];
    out.logits.assign(T, std::vector<double>(static_cast<std::size_t>(s.vocab_size), 0.0));
    for (std::size_t t = 0; t < T; ++t)
        for (std::size_t v = 0; v < static_cast<std::size_t>(s.vocab_size); ++v)
            for (std::size_t c = 0; c < d; ++c)
                out.logits[t][v] += h[t][c] * static_cast<double>(wte.data[v * d + c]);
    return out;
}

TransformerSpec attn_only_spec() {
    TransformerSpec spec = attn::gpt2_spec(2, 2, 8, 16, 32);
    spec.attn_only = true;
    return spec;
}

}  // namespace

class TestTransformerCore : public QObject {
    Q_OBJECT

private slots:
    void gpt2TableInFileOrder();
    void llamaTableHasGroupedProjections();
    void checkWeightsNamesTheTensor();
    void llamaLayoutEqualsNaiveLoops();
    void llamaLayoutMatchesPyTorch();
    void generatorWithGroupedHeadsEqualsFullPass();
    void slidingWindowBlocksOldKeys();
    void threadsDoNotChangeABit();
    void runHeadsStepDrawsCrossAttention();
    void attnOnlyTableHasNoNormsNorMlp();
    void attnOnlyEqualsNaiveLoops();
    void attnOnlyGeneratorEqualsFullPass();
    void lastPositionAloneEqualsNaiveLoops();
    void geluTanhIsGpt2sFormula();
};

void TestTransformerCore::gpt2TableInFileOrder() {
    TransformerSpec spec = attn::gpt2_spec(1, 2, 8, 16, 32, 0, false);
    const std::vector<std::string> expected = {"wte.weight",
                                               "wpe.weight",
                                               "h.0.ln_1.weight",
                                               "h.0.ln_1.bias",
                                               "h.0.attn.c_attn.weight",
                                               "h.0.attn.c_attn.bias",
                                               "h.0.attn.c_proj.weight",
                                               "h.0.attn.c_proj.bias",
                                               "h.0.ln_2.weight",
                                               "h.0.ln_2.bias",
                                               "h.0.mlp.c_fc.weight",
                                               "h.0.mlp.c_fc.bias",
                                               "h.0.mlp.c_proj.weight",
                                               "h.0.mlp.c_proj.bias",
                                               "ln_f.weight",
                                               "ln_f.bias",
                                               "lm_head.weight"};
    QCOMPARE(file_order(spec), expected);
    // Two layers: layer 0's twelve tensors, then layer 1's, between the model-level ones.
    spec.num_layers = 2;
    spec.tied_output = true;
    const std::vector<std::string> two = file_order(spec);
    QCOMPARE(two.size(), std::size_t{28});
    QCOMPARE(two[13], std::string("h.0.mlp.c_proj.bias"));
    QCOMPARE(two[14], std::string("h.1.ln_1.weight"));
    QCOMPARE(two.back(), std::string("ln_f.bias"));
    const attn::TensorEntry c_attn = attn::tensor_table(spec)[4];
    QCOMPARE(c_attn.shape, (std::vector<Eigen::Index>{8, 24}));
    QVERIFY(c_attn.layout == attn::TensorLayout::InOut);
}

void TestTransformerCore::llamaTableHasGroupedProjections() {
    const TransformerSpec spec = attn::tiny_llama_spec();
    const std::vector<std::string> names = file_order(spec);
    QCOMPARE(names.size(), std::size_t{1 + 2 * 9 + 2});
    QCOMPARE(names.front(), std::string("embed_tokens.weight"));
    QCOMPARE(names[1], std::string("layers.0.self_attn.q_proj.weight"));
    QCOMPARE(names.back(), std::string("lm_head.weight"));
    for (const attn::TensorEntry& e : attn::tensor_table(spec)) {
        QVERIFY(e.role != TensorRole::PositionEmbedding);  // rotary: no position table
        if (e.role == TensorRole::KeyWeight)  // G · head_dim = 2 · 4 rows of d_model 16
            QCOMPARE(e.shape, (std::vector<Eigen::Index>{8, 16}));
        if (e.role == TensorRole::OutputWeight) QVERIFY(!e.prefixed);
    }
    QCOMPARE(attn::lm_head_prefix(spec.family), std::string("model."));
}

void TestTransformerCore::checkWeightsNamesTheTensor() {
    TransformerWeights w = attn::make_random_weights(attn::tiny_gpt2_spec(), 1);
    w.layers[1][TensorRole::QkvWeight] = attn::WeightView{};
    try {
        attn::check_weights(w);
        QFAIL("missing c_attn accepted");
    } catch (const attn::AttentionError& e) {
        QCOMPARE(QString(e.what()),
                 QString("h.1.attn.c_attn.weight has 0 × 0 values but the config "
                         "needs 8 × 24: load weights that match config.json"));
    }
    TransformerSpec bad = attn::tiny_llama_spec();
    bad.num_kv_heads = 3;
    try {
        attn::check_spec(bad);
        QFAIL("3 K/V heads for 4 query heads accepted");
    } catch (const attn::AttentionError& e) {
        QVERIFY(QString(e.what()).contains("num_heads = 4 is not a multiple of num_kv_heads = 3"));
    }
    // What the spec describes but the core does not compute, or cannot mean, is refused.
    TransformerSpec scaled = attn::tiny_llama_spec();
    scaled.rope.scaling = attn::RopeScaling::Llama3;
    scaled.rope.low_freq_factor = 4.0f;
    TransformerSpec post_norm = attn::tiny_gpt2_spec();
    post_norm.pre_norm = false;
    for (const auto& [spec, message] :
         {std::pair{scaled, "needs 0 < low_freq_factor < high_freq_factor"},
          std::pair{post_norm,
                    "post-norm blocks (norm after the residual) are computed for the encoders "
                    "(BERT, DistilBERT, RoBERTa) only, but the spec's family is gpt2"}}) {
        try {
            attn::check_spec(spec);
            QFAIL(message);
        } catch (const attn::AttentionError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }
}

void TestTransformerCore::llamaLayoutEqualsNaiveLoops() {
    const TransformerWeights w = attn::make_random_weights(attn::tiny_llama_spec(), 5);
    const std::vector<int> ids = {3, 17, 0, 39, 8, 8, 21};
    attn::ModelForwardOptions options;
    options.all_logits = true;
    options.keep_qkv = true;
    const attn::ModelForwardResult r = attn::model_forward(w, ids, options);
    const NaiveResult naive = naive_llama(w, ids);
    QCOMPARE(r.attentions.size(), std::size_t{2});
    for (std::size_t l = 0; l < 2; ++l) {
        QCOMPARE(r.attentions[l].size(), std::size_t{4});
        for (std::size_t h = 0; h < 4; ++h)
            for (Eigen::Index i = 0; i < 7; ++i)
                for (Eigen::Index j = 0; j < 7; ++j)
                    QVERIFY2(std::abs(static_cast<double>(r.attentions[l][h](i, j)) -
                                      naive.attentions[l][h][static_cast<std::size_t>(i)]
                                                      [static_cast<std::size_t>(j)]) <= 2e-6,
                             qPrintable(
                                 QString("layer %1 head %2 (%3, %4)").arg(l).arg(h).arg(i).arg(j)));
    }
    // Keys are G · head_dim = 8 wide, queries H · head_dim = 16.
    QCOMPARE(r.keys[0].cols(), Eigen::Index{8});
    QCOMPARE(r.queries[0].cols(), Eigen::Index{16});
    for (Eigen::Index t = 0; t < 7; ++t)
        for (Eigen::Index v = 0; v < 40; ++v)
            QVERIFY2(
                std::abs(static_cast<double>(r.logits(t, v)) -
                         naive.logits[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)]) <=
                    2e-5,
                qPrintable(QString("logit (%1, %2)").arg(t).arg(v)));
    // The layer record explains a grouped head with its K/V head's keys: query head 3 reads
    // K/V head 1 (columns 4..7 of the keys).
    const attn::Step step =
        attn::model_layer_step(r, w.spec, 0, {"a", "b", "c", "d", "e", "f", "g"});
    for (const attn::StepMatrix& m : step.operands)
        if (m.id == "keys-4") QVERIFY(m.values.isApprox(r.keys[0].middleCols(4, 4), 0.0f));
}

// The same layout as transformers' LlamaForCausalLM computes it, in float64 PyTorch
// (tests/reference/llama_core_reference.py): our float32 within float rounding.
void TestTransformerCore::llamaLayoutMatchesPyTorch() {
    namespace ref = llama_core_reference;
    const TransformerWeights w = attn::make_random_weights(attn::tiny_llama_spec(), ref::kSeed);
    attn::ModelForwardOptions options;
    options.all_logits = true;
    const attn::ModelForwardResult r = attn::model_forward(w, ref::kIds, options);
    const Eigen::Index t = static_cast<Eigen::Index>(ref::kIds.size());
    std::size_t at = 0;
    for (const std::vector<Matrix>& layer : r.attentions)
        for (const Matrix& head : layer)
            for (Eigen::Index i = 0; i < t; ++i)
                for (Eigen::Index j = 0; j < t; ++j)
                    QVERIFY2(
                        std::abs(static_cast<double>(head(i, j)) - ref::kAttentions[at++]) <= 2e-6,
                        qPrintable(QString("attention value %1").arg(at - 1)));
    QCOMPARE(at, ref::kAttentions.size());
    QCOMPARE(static_cast<std::size_t>(r.logits.size()), ref::kLogits.size());
    for (Eigen::Index i = 0; i < r.logits.size(); ++i)
        QVERIFY2(std::abs(static_cast<double>(r.logits.data()[i]) -
                          ref::kLogits[static_cast<std::size_t>(i)]) <= 2e-5,
                 qPrintable(QString("logit %1").arg(i)));
}

void TestTransformerCore::generatorWithGroupedHeadsEqualsFullPass() {
    const TransformerWeights w = attn::make_random_weights(attn::tiny_llama_spec(), 9);
    attn::GenerationOptions options;
    options.max_new_tokens = 6;
    attn::Generator generator(w, {1, 2, 3}, options);
    std::vector<int> new_ids;
    while (!generator.finished()) {
        const attn::GenerationStep step = generator.step();
        QCOMPARE(step.attention_rows.size(), std::size_t{2});
        QCOMPARE(step.attention_rows[0].size(), std::size_t{4});
        new_ids.push_back(step.id);
    }
    QCOMPARE(new_ids.size(), std::size_t{6});
    QVERIFY(attn::max_abs_diff_vs_full_pass(w, generator) <= 1e-5f);
    // 2 layers · 9 tokens · (K and V of 2 K/V heads of 4) · 4 bytes: the grouped cache.
    QCOMPARE(generator.cache_bytes(), std::int64_t{2 * 9 * (8 + 8) * 4});
    // Greedy picks the full pass's argmax at every step.
    std::vector<int> sequence = {1, 2, 3};
    for (int id : new_ids) {
        attn::ModelForwardOptions o;
        o.keep_attentions = false;
        const attn::ModelForwardResult r = attn::model_forward(w, sequence, o);
        Eigen::Index best = 0;
        r.logits.row(0).maxCoeff(&best);
        QCOMPARE(id, static_cast<int>(best));
        sequence.push_back(id);
    }
}

void TestTransformerCore::threadsDoNotChangeABit() {
    // Large enough that the BLAS splits its products between threads (GPT-2's width, 200
    // tokens): each output element is still summed by one thread in one order, so the forward
    // pass and every decoded token are the same bits on one thread and on two.
    const TransformerWeights w =
        attn::make_random_weights(attn::gpt2_spec(2, 12, 768, 256, 1000, 3072, true), 5);
    std::vector<int> ids;
    for (int i = 0; i < 200; ++i) ids.push_back((i * 37) % 1000);
    attn::ModelForwardOptions o;
    o.keep_attentions = false;
    attn::GenerationOptions g;
    g.max_new_tokens = 4;
    auto run = [&](int threads, std::vector<int>* generated) {
        attn::set_engine_threads(threads);
        Matrix logits = attn::model_forward(w, ids, o).logits;
        attn::Generator generator(w, ids, g);
        while (!generator.finished()) generator.step();
        *generated = generator.tokens();
        logits.conservativeResize(1, logits.cols() + 1);
        logits(0, logits.cols() - 1) = attn::max_abs_diff_vs_full_pass(w, generator);
        return logits;
    };
    const int before = attn::engine_threads();
    std::vector<int> one_ids, two_ids;
    const Matrix one = run(1, &one_ids);
    const Matrix two = run(2, &two_ids);
    attn::set_engine_threads(before);
    QCOMPARE(one_ids, two_ids);
    QCOMPARE(one.cols(), Eigen::Index{1001});
    QVERIFY(one == two);
}

void TestTransformerCore::slidingWindowBlocksOldKeys() {
    TransformerSpec spec = attn::tiny_gpt2_spec();
    spec.sliding_window = 2;
    const TransformerWeights w = attn::make_random_weights(spec, 3);
    const attn::ModelForwardResult r = attn::model_forward(w, {4, 5, 6, 7, 8});
    for (const std::vector<Matrix>& layer : r.attentions)
        for (const Matrix& head : layer)
            for (Eigen::Index i = 0; i < 5; ++i) {
                QVERIFY(std::abs(head.row(i).sum() - 1.0f) <= 1e-6f);
                for (Eigen::Index j = 0; j < 5; ++j)
                    if (j <= i - 2 || j > i)
                        QCOMPARE(head(i, j), 0.0f);
                    else
                        QVERIFY(head(i, j) > 0.0f);
            }
    try {
        attn::Generator(w, {1}, attn::GenerationOptions{});
        QFAIL("a generator past the window was built");
    } catch (const attn::AttentionError& e) {
        QVERIFY2(QString(e.what()).contains("21 tokens pass the model's sliding window of 2,"),
                 e.what());
    }
    // Inside the window generation is the full pass's: the same tokens as without a window.
    attn::GenerationOptions two;
    two.max_new_tokens = 1;
    TransformerSpec unwindowed = spec;
    unwindowed.sliding_window = 0;
    const TransformerWeights plain = attn::make_random_weights(unwindowed, 3);
    const attn::GenerationResult windowed = attn::generate(w, {4}, two);
    QCOMPARE(windowed.new_ids, attn::generate(plain, {4}, two).new_ids);
    QVERIFY(windowed.max_abs_diff_vs_full_pass <= 1e-5f);
}

// A module run's heads as a record (explore mode's export): three target queries over two source
// keys, the run's own blocked and dropped cells, the weights that multiplied the values.
void TestTransformerCore::runHeadsStepDrawsCrossAttention() {
    Matrix q(3, 2), k(2, 2), v(2, 2);
    q << 1, 0, 0, 1, 1, 1;
    k << 1, 2, 3, 4;
    v << 1, 0, 0, 1;
    attn::AttentionOptions options;
    attn::BoolMatrix blocked(3, 2);
    blocked << false, true, false, false, false, false;
    options.blocked = blocked;
    const std::vector<attn::AttentionResult> heads = {
        attn::scaled_dot_product_attention(q, k, v, options),
        attn::scaled_dot_product_attention(q, k * 2.0f, v, {})};
    attn::BoolMatrix dropped = attn::BoolMatrix::Constant(3, 2, false);
    dropped(2, 1) = true;
    const attn::Step step =
        attn::run_heads_step(heads, {dropped}, {"你的", "旅程", "始于"}, {"Your", "journey"});
    QCOMPARE(step.matrices.size(), std::size_t{2});
    const attn::StepMatrix& first = step.matrices[0];
    QCOMPARE(first.id, std::string("attn-weights-head-1"));
    QCOMPARE(first.row_labels, (std::vector<std::string>{"你的", "旅程", "始于"}));
    QCOMPARE(first.col_labels, (std::vector<std::string>{"Your", "journey"}));
    QVERIFY(first.values == heads[0].dropped);
    QCOMPARE(first.values(0, 0), 1.0f);  // its only key left by the mask
    QVERIFY(first.blocked == blocked);
    QVERIFY(first.dropped == dropped);
    QCOMPARE(step.matrices[1].head, 2);
    QCOMPARE(step.matrices[1].dropped.size(), Eigen::Index{0});
    try {
        attn::run_heads_step(heads, {}, {"a", "b"}, {"Your", "journey"});
        QFAIL("two labels for three queries accepted");
    } catch (const attn::AttentionError& e) {
        QCOMPARE(QString(e.what()), QString("run_heads_step: head 1 is 3 × 2 but the labels give 2 "
                                            "queries × 2 keys"));
    }
}

void TestTransformerCore::attnOnlyTableHasNoNormsNorMlp() {
    TransformerSpec spec = attn_only_spec();
    spec.num_layers = 1;
    const std::vector<std::string> want = {"wte.weight",
                                           "wpe.weight",
                                           "h.0.attn.c_attn.weight",
                                           "h.0.attn.c_attn.bias",
                                           "h.0.attn.c_proj.weight",
                                           "h.0.attn.c_proj.bias"};
    QCOMPARE(file_order(spec), want);
    spec.family = attn::ModelFamily::Llama;
    try {
        attn::check_spec(spec);
        QFAIL("attn_only LLaMA accepted");
    } catch (const attn::AttentionError& e) {
        QVERIFY2(QString(e.what()).contains("GPT-2 layout only"), e.what());
        QVERIFY2(QString(e.what()).contains("llama"), e.what());
    }
}

// Both paths of model_forward (every attention kept, and the fast kernel) against the loops.
void TestTransformerCore::attnOnlyEqualsNaiveLoops() {
    const TransformerWeights w = attn::make_random_weights(attn_only_spec(), 11);
    const std::vector<int> ids = {3, 17, 0, 31, 8, 8, 21};
    const NaiveResult naive = naive_attn_only(w, ids);
    for (const bool keep : {true, false}) {
        attn::ModelForwardOptions options;
        options.all_logits = true;
        options.keep_attentions = keep;
        const attn::ModelForwardResult r = attn::model_forward(w, ids, options);
        QCOMPARE(r.attentions.size(), keep ? std::size_t{2} : std::size_t{0});
        for (std::size_t l = 0; l < r.attentions.size(); ++l)
            for (std::size_t h = 0; h < 2; ++h)
                for (Eigen::Index i = 0; i < 7; ++i)
                    for (Eigen::Index j = 0; j < 7; ++j)
                        QVERIFY(std::abs(static_cast<double>(r.attentions[l][h](i, j)) -
                                         naive.attentions[l][h][static_cast<std::size_t>(i)]
                                                         [static_cast<std::size_t>(j)]) <= 2e-6);
        QCOMPARE(r.logits.rows(), Eigen::Index{7});
        for (Eigen::Index t = 0; t < 7; ++t)
            for (Eigen::Index v = 0; v < 32; ++v) {
                const double want =
                    naive.logits[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)];
                QVERIFY2(std::abs(static_cast<double>(r.logits(t, v)) - want) <=
                             1e-5 * std::max(1.0, std::abs(want)),
                         qPrintable(QString("logit (%1, %2): %3 vs %4")
                                        .arg(t)
                                        .arg(v)
                                        .arg(r.logits(t, v))
                                        .arg(want)));
            }
    }
}

void TestTransformerCore::attnOnlyGeneratorEqualsFullPass() {
    const TransformerWeights w = attn::make_random_weights(attn_only_spec(), 12);
    attn::GenerationOptions options;
    options.max_new_tokens = 6;
    attn::Generator generator(w, {4, 9, 1}, options);
    std::vector<int> sequence = {4, 9, 1};
    while (!generator.finished()) {
        const attn::GenerationStep step = generator.step();
        attn::ModelForwardOptions o;
        o.keep_attentions = false;
        Eigen::Index best = 0;
        attn::model_forward(w, sequence, o).logits.row(0).maxCoeff(&best);
        QCOMPARE(step.id, static_cast<int>(best));
        sequence.push_back(step.id);
    }
    QCOMPARE(sequence.size(), std::size_t{9});
    QVERIFY(attn::max_abs_diff_vs_full_pass(w, generator) <= 1e-5f);
}

// Without all_logits or keep_hidden the last layer's out projection and MLP run on the last row
// alone: its logits, every layer's attention (the last one's queries included) and the top
// tokens are still the naive loops' and those of the pass over every row. Both paths: the
// displayed one (LLaMA layout, grouped heads, rotary) and the fast kernel (GPT-2's layout).
void TestTransformerCore::lastPositionAloneEqualsNaiveLoops() {
    struct Case {
        TransformerWeights w;
        NaiveResult naive;
        bool keep_attentions;
    };
    const std::vector<int> ids = {3, 17, 0, 31, 8, 8, 21};
    const TransformerWeights llama = attn::make_random_weights(attn::tiny_llama_spec(), 5);
    const TransformerWeights attn_only = attn::make_random_weights(attn_only_spec(), 11);
    const std::vector<Case> cases = {{llama, naive_llama(llama, ids), true},
                                     {attn_only, naive_attn_only(attn_only, ids), false}};
    for (const Case& c : cases) {
        attn::ModelForwardOptions options;
        options.keep_attentions = c.keep_attentions;
        options.top_k = 8;
        const attn::ModelForwardResult last = attn::model_forward(c.w, ids, options);
        options.all_logits = true;
        const attn::ModelForwardResult all = attn::model_forward(c.w, ids, options);
        QCOMPARE(last.logits.rows(), Eigen::Index{1});
        QCOMPARE(last.logits.cols(), c.w.spec.vocab_size);
        for (Eigen::Index v = 0; v < c.w.spec.vocab_size; ++v) {
            const double want = c.naive.logits[6][static_cast<std::size_t>(v)];
            QVERIFY2(
                std::abs(static_cast<double>(last.logits(0, v)) - want) <=
                    2e-5 * std::max(1.0, std::abs(want)),
                qPrintable(QString("logit %1: %2 vs %3").arg(v).arg(last.logits(0, v)).arg(want)));
        }
        QCOMPARE(last.top_tokens.size(), std::size_t{8});
        for (std::size_t k = 0; k < 8; ++k) QCOMPARE(last.top_tokens[k].id, all.top_tokens[k].id);
        QCOMPARE(last.attentions.size(), all.attentions.size());
        for (std::size_t l = 0; l < last.attentions.size(); ++l)
            for (std::size_t h = 0; h < last.attentions[l].size(); ++h) {
                QCOMPARE(last.attentions[l][h].rows(), Eigen::Index{7});
                QVERIFY(last.attentions[l][h] == all.attentions[l][h]);
            }
    }
}

// GPT-2's gelu_new, 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))), against the formula in double:
// within 4 float epsilons of max(1, |x|), over a sweep of [-12, 12], the small-x branch of the
// rational tanh (|u| < 0.0004), its clamp (|u| > 7.9), and lengths that leave a vector tail.
void TestTransformerCore::geluTanhIsGpt2sFormula() {
    std::vector<float> xs = {0.0f, -0.0f, 1e-6f, -1e-6f, 3e-4f, -3e-4f, 5e-4f,
                             8.0f, -8.0f, 30.0f, -30.0f, 1e4f,  -1e4f};
    for (int i = -1200; i <= 1200; ++i) xs.push_back(0.01f * static_cast<float>(i) + 0.003f);
    for (const Eigen::Index n : {Eigen::Index{1}, Eigen::Index{15}, Eigen::Index{17},
                                 static_cast<Eigen::Index>(xs.size())}) {
        attn::Matrix x(1, n);
        for (Eigen::Index i = 0; i < n; ++i) x(0, i) = xs[static_cast<std::size_t>(i)];
        attn::layers::activate(x, attn::ActivationKind::GeluTanh);
        for (Eigen::Index i = 0; i < n; ++i) {
            const double v = xs[static_cast<std::size_t>(i)];
            const double want =
                0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
            QVERIFY2(
                std::abs(static_cast<double>(x(0, i)) - want) <=
                    4.0 * double{FLT_EPSILON} * std::max(1.0, std::abs(v)),
                qPrintable(QString("gelu(%1) = %2, expected %3").arg(v).arg(x(0, i)).arg(want)));
        }
    }
}

QTEST_APPLESS_MAIN(TestTransformerCore)
#include "test_transformer_core.moc"
