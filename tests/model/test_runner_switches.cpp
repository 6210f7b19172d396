// model/runner.h, explore mode's switches: causal on and off, scaling, the BERT-style modules'
// mask convention and the fill value of masked scores, their defaults, and the switches a module
// does not have.
#include <QString>
#include <QTest>
#include <cmath>
#include <optional>

#include "model/examples.h"
#include "model/ops.h"
#include "model/runner.h"
#include "module_test_helpers.h"
#include "runner_test_helpers.h"

using attn::Matrix;
using attn::ModuleConfig;
using attn::ModuleKind;
using attn::RunResult;
using modtest::maxAbsDiff;
using runtest::configFor;
using runtest::errorOf;
using runtest::with;

namespace {

// One _data() row per module.
void everyModuleRows() {
    QTest::addColumn<ModuleKind>("module");
    for (const attn::ModuleInfo& info : attn::module_infos()) {
        QTest::newRow(runtest::rowName(info.kind)) << info.kind;
    }
}

}  // namespace

class TestRunnerSwitches : public QObject {
    Q_OBJECT

private slots:
    // Leaving the switches unset and setting them to the module's own values give the same run,
    // so the defaults change nothing (the tutorial tests in test_runner.cpp run with them unset).
    void explicitDefaultsChangeNothing_data() { everyModuleRows(); }
    void explicitDefaultsChangeNothing() {
        QFETCH(ModuleKind, module);
        const attn::ModuleInfo& info = attn::module_info(module);
        const RunResult unset = attn::run_module(configFor(module), attn::tutorial_inputs());
        QCOMPARE(unset.config.causal, std::optional<bool>(info.causal_by_default));
        QCOMPARE(unset.config.fill_value.has_value(), info.uses_fill);
        ModuleConfig c = configFor(module);
        c.causal = info.causal_by_default;
        c.scale = true;
        if (info.uses_fill) c.fill_value = info.default_fill;
        const RunResult given = attn::run_module(c, attn::tutorial_inputs());
        QCOMPARE(given.output.context_vecs[0], unset.output.context_vecs[0]);
        QCOMPARE(given.output.heads[0][0].weights, unset.output.heads[0][0].weights);
    }

    // Causal off on causal-attention is SelfAttention v2: the same seed draws the same three
    // Linear layers, and without the mask the weights are the full softmax.
    void causalOffEqualsSelfAttentionV2() {
        ModuleConfig off = configFor(ModuleKind::CausalAttention);
        off.causal = false;
        const RunResult r = attn::run_module(off, attn::tutorial_inputs());
        const RunResult v2 =
            attn::run_module(configFor(ModuleKind::SelfAttentionV2), attn::tutorial_inputs());
        QCOMPARE(r.output.heads[0][0].weights, v2.output.heads[0][0].weights);
        QCOMPARE(r.output.context_vecs[0], v2.output.context_vecs[0]);
        QVERIFY(!r.output.heads[0][0].blocked.any());
        QVERIFY(r.output.heads[0][0].weights(0, 5) > 0.0f);  // "Your" now sees "step"
        // And causal on for v2 is causal-attention: the tutorial's printed causal weights.
        ModuleConfig on = configFor(ModuleKind::SelfAttentionV2);
        on.causal = true;
        const RunResult v2causal = attn::run_module(on, attn::tutorial_inputs());
        const RunResult causal =
            attn::run_module(configFor(ModuleKind::CausalAttention), attn::tutorial_inputs());
        QCOMPARE(v2causal.output.heads[0][0].weights, causal.output.heads[0][0].weights);
        QCOMPARE(
            QString::number(static_cast<double>(v2causal.output.heads[0][0].weights(1, 0)), 'f', 4),
            QStringLiteral("0.4833"));
    }

    // Causal off on the multi-head modules: every head's weights are the plain softmax of its
    // scaled scores, nothing is blocked; the projections are untouched.
    void causalOffMultiHead_data() {
        QTest::addColumn<ModuleKind>("module");
        QTest::newRow("wrapper") << ModuleKind::MultiHeadWrapper;
        QTest::newRow("mha") << ModuleKind::MultiHeadAttention;
    }
    void causalOffMultiHead() {
        QFETCH(ModuleKind, module);
        ModuleConfig off = configFor(module);
        off.causal = false;
        const RunResult r = attn::run_module(off, attn::tutorial_inputs());
        const RunResult on = attn::run_module(configFor(module), attn::tutorial_inputs());
        QCOMPARE(r.output.queries[0], on.output.queries[0]);
        QCOMPARE(r.output.heads[0].size(), std::size_t{2});
        // head_dim: 2 in the wrapper (d_out per head), 1 in MultiHeadAttention (d_out / 2)
        const float head_dim = static_cast<float>(r.output.queries[0].cols()) /
                               static_cast<float>(r.output.heads[0].size());
        for (const attn::AttentionResult& head : r.output.heads[0]) {
            QVERIFY(!head.blocked.any());
            const Matrix expected = attn::softmax_rows(head.scores / std::sqrt(head_dim));
            QVERIFY(maxAbsDiff(head.weights, expected) <= 1e-6);
        }
        QVERIFY(maxAbsDiff(r.output.context_vecs[0], on.output.context_vecs[0]) > 1e-3);
        QVERIFY(!attn::has_fast_path(r.config));
    }

    // Scaling off: the softmax sees the raw scores; with it on, scores / sqrt(head_dim).
    void scaleOff_data() {
        QTest::addColumn<ModuleKind>("module");
        QTest::addColumn<qlonglong>("dIn");
        QTest::newRow("v1") << ModuleKind::SelfAttentionV1 << 3LL;
        QTest::newRow("v2") << ModuleKind::SelfAttentionV2 << 3LL;
        QTest::newRow("causal") << ModuleKind::CausalAttention << 3LL;
        QTest::newRow("wrapper") << ModuleKind::MultiHeadWrapper << 3LL;
        QTest::newRow("mha") << ModuleKind::MultiHeadAttention << 3LL;
        QTest::newRow("bert d=4, 2 heads") << ModuleKind::BertMultiHead << 4LL;
        QTest::newRow("gpt2 d=4, 2 heads") << ModuleKind::Gpt2Attention << 4LL;
        QTest::newRow("cross d=4, 2 heads") << ModuleKind::CrossAttention << 4LL;
    }
    void scaleOff() {
        QFETCH(ModuleKind, module);
        QFETCH(qlonglong, dIn);
        const attn::Sequence inputs = attn::random_sequence(5, dIn, 7);
        attn::Sequence source = attn::random_sequence(3, dIn, 8);
        const attn::Sequence* src = attn::module_info(module).uses_source ? &source : nullptr;
        ModuleConfig c = configFor(module);
        // head_dim 2 everywhere, so sqrt(head_dim) != 1
        if (attn::module_info(module).uses_d_out)
            c.d_out = module == ModuleKind::MultiHeadAttention ? 4 : 2;
        const RunResult scaled = attn::run_module(c, inputs, src);
        c.scale = false;
        const RunResult raw = attn::run_module(c, inputs, src);
        for (std::size_t h = 0; h < raw.output.heads[0].size(); ++h) {
            const attn::AttentionResult& a = raw.output.heads[0][h];
            const attn::AttentionResult& b = scaled.output.heads[0][h];
            QCOMPARE(a.scores, b.scores);
            QCOMPARE(a.scaled, a.scores);
            QCOMPARE(a.scale_divisor, 1.0f);
            QVERIFY(b.scale_divisor > 1.0f);
            QVERIFY(maxAbsDiff(b.scaled, b.scores / b.scale_divisor) <= 1e-6);
            const Matrix masked = attn::masked_fill(a.scores, a.blocked, a.fill_value);
            QVERIFY(maxAbsDiff(a.weights, attn::softmax_rows(masked)) <= 1e-6);
            QCOMPARE(a.blocked, b.blocked);
        }
        // GPT-2's normal(0, 0.02) weights give tiny scores: compare weights, not outputs.
        QVERIFY(raw.output.heads[0][0].weights != scaled.output.heads[0][0].weights);
    }

    // The BERT-style module with the causal switch: mask == 0 on the subsequent mask hides the
    // future; -1e9, -1e4 and -inf give the same weights, since no row is fully masked.
    void bertCausalFills_data() {
        QTest::addColumn<ModuleKind>("module");
        QTest::newRow("bert") << ModuleKind::BertMultiHead;
        QTest::newRow("cross") << ModuleKind::CrossAttention;
    }
    void bertCausalFills() {
        QFETCH(ModuleKind, module);
        ModuleConfig c = configFor(module);
        c.causal = true;
        const RunResult bert = attn::run_module(c, attn::tutorial_inputs());
        QCOMPARE(bert.config.fill_value, std::optional<float>(-1e9f));
        const Matrix& w = bert.output.heads[0][0].weights;
        for (Eigen::Index i = 0; i < w.rows(); ++i) {
            for (Eigen::Index j = 0; j < w.cols(); ++j) {
                QCOMPARE(bert.output.heads[0][0].blocked(i, j), j > i);
                if (j > i) QCOMPARE(w(i, j), 0.0f);
            }
            QVERIFY(std::abs(w.row(i).sum() - 1.0f) <= 1e-5f);
        }
        for (float fill : {attn::kNegInf, -1e4f}) {
            c.fill_value = fill;
            const RunResult other = attn::run_module(c, attn::tutorial_inputs());
            QCOMPARE(other.output.heads[0][0].weights, w);
        }
        const RunResult plain = attn::run_module(configFor(module), attn::tutorial_inputs());
        QVERIFY(!plain.output.heads[0][0].blocked.any());
    }

    // mask == 1 on the same subsequent mask (seed 004's pairing) blocks the past and the
    // diagonal: the last row is fully masked. -1e9 makes it uniform, -inf makes it NaN (as
    // torch.softmax does); every other row is the same under both fills.
    void maskConventionOneAndFill() {
        ModuleConfig c = configFor(ModuleKind::BertMultiHead);
        c.causal = true;
        c.mask_convention = attn::MaskConvention::FillWhereOne;
        const RunResult bert = attn::run_module(c, attn::tutorial_inputs());
        c.fill_value = attn::kNegInf;
        const RunResult inf = attn::run_module(c, attn::tutorial_inputs());
        const Matrix& w = bert.output.heads[0][0].weights;
        const Matrix& wi = inf.output.heads[0][0].weights;
        for (Eigen::Index i = 0; i < 5; ++i) {
            for (Eigen::Index j = 0; j <= i; ++j) QCOMPARE(w(i, j), 0.0f);
            QCOMPARE(wi.row(i), w.row(i));
        }
        for (Eigen::Index j = 0; j < 6; ++j) {
            QVERIFY(std::abs(w(5, j) - 1.0f / 6.0f) <= 1e-6f);
            QVERIFY(std::isnan(wi(5, j)));
        }
        QVERIFY(bert.output.heads[0][0].blocked.row(5).all());
    }

    void switchesThatDoNotApply_data() {
        QTest::addColumn<ModuleConfig>("config");
        QTest::addColumn<QString>("message");
        QTest::newRow("causal off on gpt2")
            << with(ModuleKind::Gpt2Attention, [](ModuleConfig& c) { c.causal = false; })
            << "causal = off does not apply to gpt2-attention: its causal mask is part of the "
               "module; choose self-attention-v2 or bert-multi-head for attention without one";
        QTest::newRow("causal on v1")
            << with(ModuleKind::SelfAttentionV1, [](ModuleConfig& c) { c.causal = true; })
            << "causal = on does not apply to self-attention-v1: it has no mask; choose "
               "self-attention-v2 for an optional causal mask";
        QTest::newRow("convention on mha")
            << with(ModuleKind::MultiHeadAttention,
                    [](ModuleConfig& c) { c.mask_convention = attn::MaskConvention::FillWhereOne; })
            << "mask convention \"mask == 1\" does not apply to multi-head-attention: only the "
               "BERT-style modules (bert-multi-head, cross-attention) take a mask tensor; leave "
               "the convention at \"mask == 0\"";
        QTest::newRow("fill on v1")
            << with(ModuleKind::SelfAttentionV1, [](ModuleConfig& c) { c.fill_value = -1e9f; })
            << "fill value does not apply to self-attention-v1: it has no mask; leave the fill "
               "value unset";
        QTest::newRow("NaN fill") << with(ModuleKind::CausalAttention, [](ModuleConfig& c) {
            c.fill_value = NAN;
        }) << "fill value is NaN: give -inf, -1e9 or -1e4";
    }
    void switchesThatDoNotApply() {
        QFETCH(ModuleConfig, config);
        QFETCH(QString, message);
        QCOMPARE(errorOf(config, attn::tutorial_inputs()), message);
    }

    // GPT-2's fill is its masked_bias; -1e4 and -inf give the same causal weights.
    void gpt2Fill() {
        ModuleConfig c = configFor(ModuleKind::Gpt2Attention);
        const RunResult byDefault = attn::run_module(c, attn::tutorial_inputs());
        QCOMPARE(byDefault.config.fill_value, std::optional<float>(-1e4f));
        QCOMPARE(byDefault.output.heads[0][0].fill_value, -1e4f);
        c.fill_value = attn::kNegInf;
        const RunResult inf = attn::run_module(c, attn::tutorial_inputs());
        QCOMPARE(inf.output.heads[0][0].fill_value, attn::kNegInf);
        QCOMPARE(inf.output.heads[0][0].weights, byDefault.output.heads[0][0].weights);
    }
};

QTEST_APPLESS_MAIN(TestRunnerSwitches)
#include "test_runner_switches.moc"
