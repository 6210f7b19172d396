// The whole GPT-2 forward pass (model/transformer.h, model/generator.h) against plain-torch GPT-2
// (tests/reference/gpt2_model_reference.py) on tiny random weights: every attention and logit,
// the top tokens, F16/BF16-rounded and untied weights, greedy generation, the kv_cache against
// the full pass, sampling by its properties, and the bad-input messages.
//
// Tolerance: |ours - torch| <= 1e-5 · max(1, |torch|) per value; both compute in float with
// different summation orders, which moves the values by a few float epsilons.
#include <QString>
#include <QTest>
#include <cmath>
#include <functional>
#include <set>
#include <string>

#include "model/generator.h"
#include "model/transformer.h"
#include "tests/reference/gpt2_model_reference.h"
#include "tests/support/model_test_weights.h"

namespace {

using attn::GenerationOptions;
using attn::ModelForwardOptions;

QString error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const attn::AttentionError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

attn::TransformerWeights weights_for(const gpt2_model_reference::Case& c) {
    attn::TransformerWeights w =
        attn::make_random_weights(attn::tiny_gpt2_spec(c.tied), gpt2_model_reference::kSeed);
    const std::string dtype = c.dtype;
    return dtype == "F32" ? w : attn::round_weights(w, dtype);
}

}  // namespace

class TestGpt2Forward : public QObject {
    Q_OBJECT

private slots:
    void matchesTorchEveryAttentionAndLogit() {
        int cases = 0;
        for (const auto& c : gpt2_model_reference::kCases) {
            const attn::TransformerWeights w = weights_for(c);
            ModelForwardOptions options;
            options.all_logits = true;
            options.top_k = 3;
            const attn::ModelForwardResult r = attn::model_forward(w, c.ids, options);
            const auto T = static_cast<Eigen::Index>(c.ids.size());
            QCOMPARE(r.attentions.size(), std::size_t{2});
            std::size_t i = 0;
            for (const auto& layer : r.attentions) {
                QCOMPARE(layer.size(), std::size_t{2});
                for (const attn::Matrix& a : layer) {
                    QCOMPARE(a.rows(), T);
                    QCOMPARE(a.cols(), T);
                    for (Eigen::Index q = 0; q < T; ++q)
                        for (Eigen::Index k = 0; k < T; ++k, ++i) {
                            const float want = c.attentions[i];
                            if (k > q) QCOMPARE(a(q, k), 0.0f);
                            QVERIFY2(std::fabs(a(q, k) - want) <=
                                         1e-5f * std::max(1.0f, std::fabs(want)),
                                     qPrintable(QString("%1: attention %2 vs %3")
                                                    .arg(c.name)
                                                    .arg(a(q, k))
                                                    .arg(want)));
                        }
                }
            }
            QCOMPARE(i, c.attentions.size());
            QCOMPARE(static_cast<std::size_t>(r.logits.size()), c.logits.size());
            for (Eigen::Index j = 0; j < r.logits.size(); ++j) {
                const float want = c.logits[static_cast<std::size_t>(j)];
                QVERIFY2(
                    std::fabs(r.logits.data()[j] - want) <= 1e-5f * std::max(1.0f, std::fabs(want)),
                    qPrintable(QString("%1: logit %2 vs %3")
                                   .arg(c.name)
                                   .arg(r.logits.data()[j])
                                   .arg(want)));
            }
            // Top tokens: the reference's last row sorted, probabilities its softmax.
            const std::size_t vocab = 32;
            const float* last = c.logits.data() + c.logits.size() - vocab;
            QCOMPARE(r.top_tokens.size(), std::size_t{3});
            double sum = 0.0;
            float max = last[0];
            for (std::size_t v = 0; v < vocab; ++v) max = std::max(max, last[v]);
            for (std::size_t v = 0; v < vocab; ++v) sum += std::exp(double(last[v] - max));
            for (std::size_t t = 0; t < 3; ++t) {
                int rank = 0;
                const float mine = last[r.top_tokens[t].id];
                for (std::size_t v = 0; v < vocab; ++v) rank += last[v] > mine ? 1 : 0;
                QCOMPARE(rank, int(t));
                QVERIFY(std::fabs(r.top_tokens[t].prob -
                                  float(std::exp(double(mine - max)) / sum)) < 1e-5f);
            }
            // Last-row logits (the default) equal the full matrix's last row.
            const attn::ModelForwardResult last_only = attn::model_forward(w, c.ids);
            QCOMPARE(last_only.logits.rows(), Eigen::Index{1});
            QVERIFY((last_only.logits - r.logits.bottomRows(1)).cwiseAbs().maxCoeff() <= 1e-5f);
            // The fast kernel (no attentions kept) gives the same logits as the displayed path.
            ModelForwardOptions fast_options;
            fast_options.keep_attentions = false;
            fast_options.all_logits = true;
            const attn::ModelForwardResult fast = attn::model_forward(w, c.ids, fast_options);
            QVERIFY(fast.attentions.empty());
            QVERIFY((fast.logits - r.logits).cwiseAbs().maxCoeff() <= 1e-5f);
            ++cases;
        }
        QCOMPARE(cases, 12);
    }

    void roundedWeightsDiffer() {
        const auto w = attn::make_random_weights(attn::tiny_gpt2_spec(), 1);
        const auto h = attn::round_weights(w, "F16");
        const auto b = attn::round_weights(w, "BF16");
        QCOMPARE(h.dtype, std::string("F16"));
        // bfloat16 keeps 8 significant bits, float16 11: the rounding error is within half a step.
        QVERIFY(w[attn::TensorRole::TokenEmbedding].data[0] !=
                b[attn::TensorRole::TokenEmbedding].data[0]);
        QVERIFY(std::fabs(w[attn::TensorRole::TokenEmbedding].data[0] -
                          b[attn::TensorRole::TokenEmbedding].data[0]) <=
                std::fabs(w[attn::TensorRole::TokenEmbedding].data[0]) / 256.0f);
        QVERIFY(std::fabs(w[attn::TensorRole::TokenEmbedding].data[0] -
                          h[attn::TensorRole::TokenEmbedding].data[0]) <=
                std::fabs(w[attn::TensorRole::TokenEmbedding].data[0]) / 2048.0f);
    }

    void greedyGenerationMatchesTorch() {
        const auto w =
            attn::make_random_weights(attn::tiny_gpt2_spec(), gpt2_model_reference::kSeed);
        GenerationOptions options;
        options.max_new_tokens = 10;
        const auto r = attn::generate(w, gpt2_model_reference::kGreedyPrompt, options);
        QCOMPARE(r.new_ids, gpt2_model_reference::kGreedyNewIds);
        QCOMPARE(r.cache_bytes, std::int64_t{2 * 2 * 13 * 8 * 4});
        QVERIFY(r.max_abs_diff_vs_full_pass <= 1e-5f);
    }

    void kvCacheEqualsFullPassUntiedSampled() {
        const auto w = attn::make_random_weights(attn::tiny_gpt2_spec(false), 7);
        GenerationOptions options;
        options.max_new_tokens = 12;
        options.temperature = 1.5f;
        options.seed = 3;
        const std::vector<int> prompt = {1, 2, 3, 4};
        attn::Generator gen(w, prompt, options);
        std::vector<int> ids;
        while (!gen.finished()) {
            const attn::GenerationStep s = gen.step();
            ids.push_back(s.id);
            // The step's attention rows equal the last row of a full forward's attentions.
            const auto full = attn::model_forward(w, gen.tokens());
            for (std::size_t l = 0; l < 2; ++l)
                for (std::size_t h = 0; h < 2; ++h) {
                    const attn::RowVector& row = s.attention_rows[l][h];
                    QCOMPARE(row.size(), Eigen::Index(gen.tokens().size()));
                    QVERIFY((row - full.attentions[l][h].bottomRows(1)).cwiseAbs().maxCoeff() <=
                            1e-5f);
                }
        }
        QCOMPARE(ids.size(), std::size_t{12});
        const auto r = attn::generate(w, prompt, options);
        QCOMPARE(r.new_ids, ids);  // same seed, same draws
        QVERIFY(r.max_abs_diff_vs_full_pass <= 1e-5f);
        QVERIFY(QString(error_of([&] { gen.step(); })).contains("start a new generator"));
    }

    void samplingProperties() {
        const auto w = attn::make_random_weights(attn::tiny_gpt2_spec(), 5);
        const std::vector<int> prompt = {9, 4};
        // top_k = 1 is greedy whatever the temperature.
        GenerationOptions greedy;
        greedy.max_new_tokens = 8;
        GenerationOptions top1 = greedy;
        top1.temperature = 2.0f;
        top1.top_k = 1;
        top1.seed = 11;
        QCOMPARE(attn::generate(w, prompt, top1).new_ids,
                 attn::generate(w, prompt, greedy).new_ids);
        // top_k = 3: every drawn token is among the 3 most probable of its step.
        GenerationOptions top3 = greedy;
        top3.temperature = 5.0f;
        top3.top_k = 3;
        std::set<int> seen;
        for (std::uint64_t seed = 0; seed < 20; ++seed) {
            top3.seed = seed;
            attn::Generator gen(w, prompt, top3);
            while (!gen.finished()) {
                const auto s = gen.step();
                const attn::RowVector& logits = gen.step_logits().back();
                int above = 0;
                for (Eigen::Index v = 0; v < logits.size(); ++v)
                    above += logits[v] > logits[s.id] ? 1 : 0;
                QVERIFY(above < 3);
                seen.insert(s.id);
            }
        }
        QVERIFY(seen.size() > 3);  // high temperature draws more than the greedy choices
    }

    void stopsAtEndOfText() {
        const auto w =
            attn::make_random_weights(attn::tiny_gpt2_spec(), gpt2_model_reference::kSeed);
        GenerationOptions options;
        options.max_new_tokens = 10;
        options.eos_id = 14;  // the reference's greedy run emits 14 second
        const auto r = attn::generate(w, gpt2_model_reference::kGreedyPrompt, options);
        QCOMPARE(r.new_ids, (std::vector<int>{23, 14}));
        QCOMPARE(r.cache_bytes, std::int64_t{2 * 2 * 5 * 8 * 4});
    }

    void badInput() {
        const auto w = attn::make_random_weights(attn::tiny_gpt2_spec());
        QCOMPARE(error_of([&] { attn::model_forward(w, {}); }),
                 QString("the token ids are empty: give at least one token"));
        QCOMPARE(error_of([&] {
                     attn::model_forward(w, {1, 32});
                 }),
                 QString("token id 32 at position 2 is outside [0, 32): use ids from this model's "
                         "tokenizer"));
        QVERIFY(
            error_of([&] { attn::model_forward(w, {-1}); }).contains("token id -1 at position 1"));
        QCOMPARE(
            error_of([&] { attn::model_forward(w, std::vector<int>(17, 1)); }),
            QString(
                "17 tokens are more than the model's 16 positions: shorten the text to at most 16 "
                "tokens"));
        GenerationOptions options;
        options.max_new_tokens = 10;
        QCOMPARE(error_of([&] { attn::generate(w, std::vector<int>(7, 1), options); }),
                 QString("prompt (7) + max_new_tokens (10) = 17 exceeds the model's 16 positions: "
                         "shorten the "
                         "prompt or lower max_new_tokens"));
        options.temperature = -1.0f;
        QVERIFY(error_of([&] { attn::generate(w, {1}, options); }).contains("temperature"));
        attn::TransformerWeights broken = w;
        broken.layers.pop_back();
        QVERIFY(error_of([&] { attn::model_forward(broken, {1}); }).contains("num_layers = 2"));
        QVERIFY(error_of([&] { attn::round_weights(w, "F8"); }).contains("use F16 or BF16"));
    }

    // A layer as a walkthrough record: every head's weights are PyTorch's, and hovering a cell
    // explains it as the walkthrough does, softmax of q·k / √head_dim, ending in that value.
    void layerStepExplainsEveryCell() {
        const gpt2_model_reference::Case& c = gpt2_model_reference::kCases.at(1);
        QCOMPARE(c.ids.size(), std::size_t{5});
        const attn::TransformerWeights w = weights_for(c);
        ModelForwardOptions options;
        options.keep_qkv = true;
        const attn::ModelForwardResult result = attn::model_forward(w, c.ids, options);
        const std::vector<std::string> tokens{"a", "b", "c", "d", "e"};
        std::size_t k = 0;
        for (Eigen::Index layer = 0; layer < 2; ++layer) {
            const attn::Step step = attn::model_layer_step(result, w.spec, layer, tokens);
            QCOMPARE(step.id, "layer-" + std::to_string(layer + 1));
            QCOMPARE(step.matrices.size(), std::size_t{2});
            for (const attn::StepMatrix& m : step.matrices) {
                QCOMPARE(m.kind, attn::MatrixKind::Weights);
                for (Eigen::Index r = 0; r < 5; ++r) {
                    for (Eigen::Index col = 0; col < 5; ++col, ++k) {
                        const float torch = c.attentions.at(k);
                        QVERIFY(std::abs(m.values(r, col) - torch) <= 1e-5f);
                        QCOMPARE(m.blocked(r, col), col > r);
                        const QString text =
                            QString::fromStdString(attn::explain_cell(step, m, r, col));
                        if (col > r) continue;
                        QVERIFY2(text.contains("exp(") && text.contains(QString::fromUtf8("√")),
                                 qPrintable(text));
                        QVERIFY2(text.endsWith(QString::number(static_cast<double>(torch), 'f', 4)),
                                 qPrintable(text));
                    }
                }
            }
        }
        QCOMPARE(k, c.attentions.size());
        QVERIFY(error_of([&] {
                    attn::model_layer_step(result, w.spec, 2, tokens);
                }).contains("give a layer from 1 to 2"));
    }
};

QTEST_APPLESS_MAIN(TestGpt2Forward)
#include "test_gpt2_forward.moc"
