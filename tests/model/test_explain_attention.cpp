// Explore mode's hover formulas: their numbers are recomputed here from the run's own matrices
// (projections, weights, parameters), so a formula that does not add up fails.
#include <QTest>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "model/examples.h"
#include "model/explain_attention.h"
#include "model/kv_trace.h"
#include "model/number_format.h"
#include "model/runner.h"

namespace {

// The numbers of "a·b + c·d + …" between `after` and the next " = ", as pairs.
std::vector<std::pair<double, double>> productsAfter(const std::string& text,
                                                     const std::string& after) {
    std::vector<std::pair<double, double>> out;
    const std::size_t start = text.find(after);
    if (start == std::string::npos) return out;
    const std::size_t from = start + after.size();
    const std::string part = text.substr(from, text.find(" = ", from) - from);
    std::string plain;
    for (std::size_t i = 0; i < part.size(); ++i) {
        if (part.compare(i, 3, "−") == 0) {
            plain += '-';
            i += 2;
        } else if (part[i] != '(' && part[i] != ')') {
            plain += part[i];
        }
    }
    static const std::regex pair(R"((-?[0-9.]+)·(-?[0-9.]+))");
    for (auto it = std::sregex_iterator(plain.begin(), plain.end(), pair);
         it != std::sregex_iterator(); ++it)
        out.emplace_back(std::stod((*it)[1].str()), std::stod((*it)[2].str()));
    return out;
}

// The engine's float values against the doubles parsed from a text.
double wide(float v) { return static_cast<double>(v); }

double sumOf(const std::vector<std::pair<double, double>>& products) {
    double s = 0.0;
    for (const auto& [a, b] : products) s += a * b;
    return s;
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

attn::RunResult tutorialRun(attn::ModuleKind kind, float dropout = 0.0f) {
    attn::ModuleConfig config;
    config.module = kind;
    config.dropout = dropout;
    if (kind == attn::ModuleKind::MultiHeadAttention || kind == attn::ModuleKind::MultiHeadWrapper)
        config.num_heads = 2;
    return attn::run_module(config, attn::tutorial_inputs());
}

}  // namespace

class TestExplainAttention : public QObject {
    Q_OBJECT

private slots:
    void weightFormulaQuotesTheHeadsQueriesAndKeys() {
        const attn::RunResult run = tutorialRun(attn::ModuleKind::MultiHeadAttention);
        const attn::AttentionResult& head = run.output.heads[0][1];
        // Row 5 ("one"), column 3 ("starts"): unmasked under the causal mask.
        const std::string text = attn::explain_attention_weight(run, 1, 4, 2);
        QVERIFY2(text.rfind("ω₅₃ = q₅ · k₃", 0) == 0, text.c_str());
        // Head 2 of d_out = 2 is column 2 of the projected queries and keys.
        const auto products = productsAfter(text, "q₅ · k₃ = ");
        QCOMPARE(products.size(), std::size_t{1});
        QVERIFY(std::abs(products[0].first - wide(run.output.queries[0](4, 1))) < 1e-4);
        QVERIFY(std::abs(products[0].second - wide(run.output.keys[0](2, 1))) < 1e-4);
        // The softmax's max is the row's largest scaled score among keys 1..5.
        double max = -1e30;
        for (Eigen::Index j = 0; j <= 4; ++j)
            max = std::max(max, wide(run.output.queries[0](4, 1)) * wide(run.output.keys[0](j, 1)) /
                                    std::sqrt(1.0));
        QVERIFY2(text.find("max = " + attn::format_fixed(max)) != std::string::npos, text.c_str());
        QVERIFY(endsWith(text, "= " + attn::format_fixed(head.dropped(4, 2))));
    }

    void maskedWeightSaysItWasFilled() {
        const attn::RunResult run = tutorialRun(attn::ModuleKind::CausalAttention);
        const std::string text = attn::explain_attention_weight(run, 0, 1, 4);
        QVERIFY2(text.find("masked") != std::string::npos, text.c_str());
        QVERIFY2(text.find("−∞") != std::string::npos, text.c_str());
        QVERIFY(endsWith(text, "α₂₅ = 0.0000"));
    }

    void scaledWeightDividesBySqrtOfTheHeadWidth() {
        const attn::RunResult run = tutorialRun(attn::ModuleKind::SelfAttentionV2);
        const std::string text = attn::explain_attention_weight(run, 0, 1, 2);
        // d_out = 2: one head of width 2.
        QVERIFY2(text.find("ω̃₂₃ = ω₂₃ / √2") != std::string::npos, text.c_str());
        const auto products = productsAfter(text, "q₂ · k₃ = ");
        QCOMPARE(products.size(), std::size_t{2});
        QVERIFY(std::abs(sumOf(products) - wide(run.output.heads[0][0].scores(1, 2))) < 1e-3);
        QVERIFY(endsWith(text, "= " + attn::format_fixed(run.output.heads[0][0].weights(1, 2))));
    }

    void dropoutSaysWhichWeightsItZeroed() {
        const attn::RunResult run = tutorialRun(attn::ModuleKind::CausalAttention, 0.5f);
        const attn::AttentionResult& head = run.output.heads[0][0];
        int zeroed = 0, kept = 0;
        for (Eigen::Index i = 0; i < head.weights.rows(); ++i)
            for (Eigen::Index j = 0; j <= i; ++j) {
                const std::string text = attn::explain_attention_weight(run, 0, i, j);
                if (!head.kept(i, j)) {
                    ++zeroed;
                    QVERIFY2(text.find("dropout zeroed it: α′") != std::string::npos, text.c_str());
                    QVERIFY(endsWith(text, " = 0"));
                    QCOMPARE(head.dropped(i, j), 0.0f);
                } else {
                    ++kept;
                    QVERIFY2(text.find("/ (1 − 0.5) = ") != std::string::npos, text.c_str());
                    QVERIFY(endsWith(text, "= " + attn::format_fixed(head.dropped(i, j))));
                    QVERIFY(std::abs(head.dropped(i, j) - 2.0f * head.weights(i, j)) < 1e-5f);
                }
            }
        QVERIFY(zeroed > 0);
        QVERIFY(kept > 0);
    }

    void singleHeadOutputIsTheWeightedSumOfValues() {
        const attn::RunResult run = tutorialRun(attn::ModuleKind::SelfAttentionV1);
        const std::string text = attn::explain_output(run, 1, 0);
        QVERIFY2(text.rfind("z₂₁ = Σⱼ α₂ⱼ · vⱼ₁ = ", 0) == 0, text.c_str());
        const auto products = productsAfter(text, "vⱼ₁ = ");
        QCOMPARE(products.size(), std::size_t{6});
        for (std::size_t j = 0; j < 6; ++j) {
            QVERIFY(std::abs(products[j].first - wide(run.output.heads[0][0].weights(
                                                     1, static_cast<Eigen::Index>(j)))) < 1e-4);
            QVERIFY(std::abs(products[j].second -
                             wide(run.output.values[0](static_cast<Eigen::Index>(j), 0))) < 1e-4);
        }
        // The tutorial's context vector of "journey": 0.3061.
        QVERIFY(endsWith(text, "= 0.3061"));
    }

    void projectedOutputQuotesConcatAndOutProj() {
        const attn::RunResult run = tutorialRun(attn::ModuleKind::MultiHeadAttention);
        const std::string text = attn::explain_output(run, 2, 1);
        QVERIFY2(text.rfind("y₃₂ = concat₃ · W_o[:, 2] + b₂ = ", 0) == 0, text.c_str());
        const auto products = productsAfter(text, "b₂ = ");
        QCOMPARE(products.size(), std::size_t{2});
        double bias = 0.0;
        for (const attn::NamedMatrix& w : run.weights)
            if (w.name == "out_proj.bias") bias = w.value(0, 1);
        QVERIFY(std::abs(sumOf(products) + bias - wide(run.output.context_vecs[0](2, 1))) < 1e-3);
        QVERIFY(endsWith(text, "= " + attn::format_fixed(run.output.context_vecs[0](2, 1))));
    }

    void kvWeightRecomputesTheSoftmaxOverTheCache() {
        const attn::RunResult run = tutorialRun(attn::ModuleKind::MultiHeadAttention);
        const attn::KvTrace trace =
            attn::build_kv_trace(attn::tutorial_inputs(), attn::kv_trace_config(run, 3));
        const attn::KvTraceStep& step = trace.steps[3];
        const std::string text = attn::explain_kv_weight(step, 0, 1);
        QVERIFY2(text.rfind("ω₄₂ = q₄ · k₂ = ", 0) == 0, text.c_str());
        const auto products = productsAfter(text, "q₄ · k₂ = ");
        QCOMPARE(products.size(), static_cast<std::size_t>(trace.head_dim));
        QVERIFY(std::abs(products[0].first - wide(step.query[0](0))) < 1e-4);
        QVERIFY(std::abs(products[0].second - wide(step.cache_keys[0](1, 0))) < 1e-4);
        QVERIFY(endsWith(text, "= " + attn::format_fixed(step.attn_weights[0](1))));
        // A cached key older than the step is read back, not recomputed.
        QVERIFY(attn::explain_kv_cache(step, 0, false, 1, 0).find("read back") !=
                std::string::npos);
        QVERIFY(attn::explain_kv_cache(step, 0, true, 3, 0).find("appended") != std::string::npos);
    }

    // Four query heads over two K/V heads: query head 4 (index 3) reads K/V head 2's cache.
    void kvWeightUnderGqaReadsTheGroupsKeys() {
        attn::KvTraceConfig config;
        config.num_heads = 4;
        config.d_out = 8;
        config.num_kv_heads = 2;
        config.cache_snapshots = true;
        const attn::KvTrace trace = attn::build_kv_trace(attn::tutorial_inputs(), config);
        const attn::KvTraceStep& step = trace.steps[3];
        QCOMPARE(step.cache_keys.size(), std::size_t{2});
        QCOMPARE(step.attn_weights.size(), std::size_t{4});
        const std::string text = attn::explain_kv_weight(step, 3, 1);
        QVERIFY2(text.rfind("ω₄₂ = q₄ · k₂ = ", 0) == 0, text.c_str());
        const auto products = productsAfter(text, "q₄ · k₂ = ");
        QCOMPARE(products.size(), std::size_t{2});
        for (std::size_t d = 0; d < 2; ++d) {
            QVERIFY(std::abs(products[d].first -
                             wide(step.query[3](static_cast<Eigen::Index>(d)))) < 1e-4);
            QVERIFY(std::abs(products[d].second -
                             wide(step.cache_keys[1](1, static_cast<Eigen::Index>(d)))) < 1e-4);
        }
        QVERIFY(endsWith(text, "= " + attn::format_fixed(step.attn_weights[3](1))));
    }

    void cellsOutsideTheRunExplainNothing() {
        const attn::RunResult run = tutorialRun(attn::ModuleKind::MultiHeadAttention);
        QVERIFY(attn::explain_attention_weight(run, 2, 0, 0).empty());
        QVERIFY(attn::explain_attention_weight(run, 0, 6, 0).empty());
        QVERIFY(attn::explain_output(run, 0, 2).empty());
    }
};

QTEST_APPLESS_MAIN(TestExplainAttention)
#include "test_explain_attention.moc"
