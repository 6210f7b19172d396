// Numerical robustness of the engine on extreme but valid input: huge values that overflow to NaN
// rows, subnormals, huge and identical softmax inputs, fully masked rows in every module, and the
// float engine against a double-precision reference. Refused input is in test_bad_input.cpp; the
// cases are listed in docs/reliability.md.
#include <QElapsedTimer>
#include <QString>
#include <QTest>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "extreme_input_helpers.h"
#include "model/fast_attention.h"
#include "model/modules.h"
#include "model/ops.h"
#include "model/runner.h"
#include "reference_attention.h"

using attn::AttentionError;
using attn::Matrix;
using attn::ModuleConfig;
using attn::ModuleKind;
using attn::RunResult;
using attn::Sequence;
using attn::TorchGenerator;
using namespace extremetest;  // NOLINT: the suites' shared vocabulary
using runtest::configFor;

using extremetest::Thrower;
Q_DECLARE_METATYPE(Thrower)
Q_DECLARE_METATYPE(Matrix)

namespace {

bool isCausal(ModuleKind module) {
    return module == ModuleKind::CausalAttention || module == ModuleKind::MultiHeadWrapper ||
           module == ModuleKind::MultiHeadAttention || module == ModuleKind::Gpt2Attention;
}

}  // namespace

class TestNumerics : public QObject {
    Q_OBJECT

private slots:
    void hugeValuesOverflowToNaNRows();
    void hugeValuesEveryModule_data();
    void hugeValuesEveryModule();
    void subnormalValues_data();
    void subnormalValues();
    void subnormalWeights();
    void softmaxHugeAndIdentical_data();
    void softmaxHugeAndIdentical();
    void fullyMaskedModuleRows_data();
    void fullyMaskedModuleRows();
    void floatVersusDoubleAttention_data();
    void floatVersusDoubleAttention();
    void floatVersusDoubleModule_data();
    void floatVersusDoubleModule();
};

void TestNumerics::hugeValuesOverflowToNaNRows() {
    Sequence inputs = attn::tutorial_inputs();
    inputs.embeddings(1, 2) = 1e30f;  // "journey", third value
    const RunResult r = attn::run_module(configFor(ModuleKind::SelfAttentionV1), inputs);
    const attn::AttentionResult& head = r.output.heads[0][0];
    QCOMPARE(head.scores(1, 1), kInf);
    for (Eigen::Index i = 0; i < 6; ++i) {
        for (Eigen::Index j = 0; j < 6; ++j) {
            if (i == 1) {
                QVERIFY2(std::isnan(head.weights(i, j)), "the query of the huge token: NaN row");
            } else {
                QCOMPARE(head.weights(i, j), j == 1 ? 1.0f : 0.0f);  // all on the huge token
            }
        }
    }
    QVERIFY(r.output.context_vecs[0].row(1).array().isNaN().all());
    QVERIFY(r.output.context_vecs[0].row(0).allFinite());
}

// 1e30, FLT_MAX and 1e20 in an embedding, in every module: the run returns (no exception, no
// crash) and softmax keeps its promise: every row a distribution or entirely NaN.
void TestNumerics::hugeValuesEveryModule_data() {
    QTest::addColumn<ModuleKind>("module");
    QTest::addColumn<float>("value");
    for (const ModuleKind module : kModules) {
        QTest::addRow("%s 1e30", runtest::rowName(module)) << module << 1e30f;
        QTest::addRow("%s -1e30", runtest::rowName(module)) << module << -1e30f;
        QTest::addRow("%s FLT_MAX", runtest::rowName(module)) << module << FLT_MAX;
        QTest::addRow("%s 1e20", runtest::rowName(module)) << module << 1e20f;
    }
}

void TestNumerics::hugeValuesEveryModule() {
    QFETCH(ModuleKind, module);
    QFETCH(float, value);
    Sequence inputs = attn::tutorial_inputs();
    inputs.embeddings(1, 2) = value;
    RunResult r;
    const QString message = errorOf([&] { r = attn::run_module(configFor(module), inputs); });
    QVERIFY2(message.isEmpty(), qPrintable(message));
    bool overflowed = false;
    for (const std::vector<attn::AttentionResult>& item : r.output.heads) {
        for (const attn::AttentionResult& head : item) {
            const QString problem = distributionOrNaN(head.weights);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            overflowed =
                overflowed || !head.scores.allFinite() || head.scores.cwiseAbs().maxCoeff() > 1e15f;
        }
    }
    QVERIFY2(overflowed, "a huge embedding gives huge or infinite scores");
}

// Subnormal embeddings (down to 1.4e-45): their products underflow to 0, so every score of a row
// is the same and the weights are exactly uniform, 1/T (1/(i+1) under the causal mask).
void TestNumerics::subnormalValues_data() {
    QTest::addColumn<ModuleKind>("module");
    for (const ModuleKind module : kModules) {
        QTest::newRow(runtest::rowName(module)) << module;
    }
}

void TestNumerics::subnormalValues() {
    QFETCH(ModuleKind, module);
    Sequence inputs = attn::tutorial_inputs();
    for (Eigen::Index i = 0; i < inputs.embeddings.size(); ++i) {
        inputs.embeddings.data()[i] = kSubnormal * static_cast<float>(i + 1);
    }
    // Cross-attention's keys come from the source: make it subnormal too.
    Sequence source = attn::cross_attention_source();
    source.embeddings.setConstant(kSubnormal);
    RunResult r;
    const QString message = errorOf([&] {
        r = attn::run_module(configFor(module), inputs,
                             module == ModuleKind::CrossAttention ? &source : nullptr);
    });
    QVERIFY2(message.isEmpty(), qPrintable(message));
    const attn::AttentionResult& head = r.output.heads[0][0];
    for (Eigen::Index i = 0; i < head.weights.rows(); ++i) {
        const Eigen::Index seen = isCausal(module) ? i + 1 : head.weights.cols();
        for (Eigen::Index j = 0; j < head.weights.cols(); ++j) {
            const float expected = j < seen ? 1.0f / static_cast<float>(seen) : 0.0f;
            QVERIFY2(std::abs(head.weights(i, j) - expected) <= 1e-7f,
                     qPrintable(QStringLiteral("weight (%1, %2) = %3, expected %4")
                                    .arg(i + 1)
                                    .arg(j + 1)
                                    .arg(head.weights(i, j))
                                    .arg(expected)));
        }
    }
    QVERIFY(r.output.context_vecs[0].allFinite());
}

// Subnormal query weights: queries and scores are subnormal (below FLT_MIN = 1.2e-38), exp() of
// their differences is exactly 1, so the weights are exactly uniform and each context vector is
// the plain average of the values.
void TestNumerics::subnormalWeights() {
    ModuleConfig config = configFor(ModuleKind::SelfAttentionV2);
    const Sequence inputs = attn::tutorial_inputs();
    const RunResult drawn = attn::run_module(config, inputs);
    attn::NamedMatrix w = drawn.weights.front();
    QCOMPARE(w.name, std::string("W_query.weight"));
    w.value.setConstant(kSubnormal);
    config.weights = {w};
    const RunResult r = attn::run_module(config, inputs);
    const attn::AttentionResult& head = r.output.heads[0][0];
    QVERIFY((head.scores.array().abs() < FLT_MIN).all());
    QVERIFY((head.weights.array() == 1.0f / 6.0f).all());
    const attn::RowVector mean = r.output.values[0].colwise().mean();
    for (Eigen::Index i = 0; i < 6; ++i) {
        QVERIFY((r.output.context_vecs[0].row(i) - mean).cwiseAbs().maxCoeff() <= 1e-6f);
    }
}

// Token text only labels rows: invalid UTF-8, a 10 000-character token and an empty one give the
// same numbers, bit for bit. (Example files refuse both before the engine, see test_bad_input in
// tests/app; text pasted into the app never reaches the engine.)
void TestNumerics::softmaxHugeAndIdentical_data() {
    QTest::addColumn<Matrix>("scores");
    QTest::addColumn<Matrix>("expected");  // NaN = NaN expected
    auto row = [](std::initializer_list<float> v) {
        Matrix m(1, static_cast<Eigen::Index>(v.size()));
        Eigen::Index j = 0;
        for (float x : v) {
            m(0, j++) = x;
        }
        return m;
    };
    QTest::newRow("1e30, 1e30, 0") << row({1e30f, 1e30f, 0.0f}) << row({0.5f, 0.5f, 0.0f});
    QTest::newRow("1e30, -1e30") << row({1e30f, -1e30f}) << row({1.0f, 0.0f});
    QTest::newRow("FLT_MAX twice") << row({FLT_MAX, FLT_MAX}) << row({0.5f, 0.5f});
    QTest::newRow("-FLT_MAX, FLT_MAX") << row({-FLT_MAX, FLT_MAX}) << row({0.0f, 1.0f});
    QTest::newRow("88.8, 0 (naive exp overflows)")
        << row({88.8f, 0.0f}) << row({1.0f, std::exp(-88.8f)});
    QTest::newRow("identical 7 x4") << row({7, 7, 7, 7}) << row({0.25f, 0.25f, 0.25f, 0.25f});
    const float third = 1.0f / 3.0f;
    QTest::newRow("identical 1e30 x3") << row({1e30f, 1e30f, 1e30f}) << row({third, third, third});
    QTest::newRow("identical -1e30 x3")
        << row({-1e30f, -1e30f, -1e30f}) << row({third, third, third});
    QTest::newRow("identical subnormal x5")
        << row({kSubnormal, kSubnormal, kSubnormal, kSubnormal, kSubnormal})
        << row({0.2f, 0.2f, 0.2f, 0.2f, 0.2f});
    const float sixth = 1.0f / 6.0f;
    QTest::newRow("identical -1e9 x6 (BERT fully masked)")
        << row({-1e9f, -1e9f, -1e9f, -1e9f, -1e9f, -1e9f})
        << row({sixth, sixth, sixth, sixth, sixth, sixth});
    QTest::newRow("-inf beside finite") << row({-kInf, 2.0f, -kInf}) << row({0.0f, 1.0f, 0.0f});
    QTest::newRow("all -inf (fully masked): NaN") << row({-kInf, -kInf}) << row({kNaN, kNaN});
    QTest::newRow("+inf: NaN row") << row({kInf, 1.0f}) << row({kNaN, kNaN});
    QTest::newRow("NaN: NaN row") << row({kNaN, 1.0f, 2.0f}) << row({kNaN, kNaN, kNaN});
}

void TestNumerics::softmaxHugeAndIdentical() {
    QFETCH(Matrix, scores);
    QFETCH(Matrix, expected);
    const Matrix w = attn::softmax_rows(scores);
    QCOMPARE(w.cols(), expected.cols());
    for (Eigen::Index j = 0; j < w.cols(); ++j) {
        if (std::isnan(expected(0, j))) {
            QVERIFY2(std::isnan(w(0, j)),
                     qPrintable(QString::number(static_cast<double>(w(0, j)))));
        } else {
            QCOMPARE(w(0, j), expected(0, j));  // exact: these cases have exact float answers
        }
    }
}

// Fully masked query rows inside the modules: with -inf (the tutorial's mask) the row is NaN, with
// -1e9 (BERT) or -1e4 (GPT-2's masked_bias) it is uniform, exactly as PyTorch gives.
void TestNumerics::fullyMaskedModuleRows_data() {
    QTest::addColumn<float>("fill");
    QTest::addColumn<bool>("nan");
    QTest::newRow("-inf: NaN") << attn::kNegInf << true;
    QTest::newRow("-1e9: uniform") << -1e9f << false;
    QTest::newRow("-1e4: uniform") << -1e4f << false;
}

void TestNumerics::fullyMaskedModuleRows() {
    QFETCH(float, fill);
    QFETCH(bool, nan);
    TorchGenerator gen(123);
    const attn::BertMultiHeadedAttention m(1, 3, 0.0f, gen);
    const attn::Batch x{attn::tutorial_inputs().embeddings};
    Matrix mask = Matrix::Ones(6, 6);  // seed 000: 0 = blocked
    mask.row(3).setZero();             // query 4 ("with") sees nothing, like a padding query
    const attn::ModuleOutput out =
        m.forward(x, x, x, &mask, attn::MaskConvention::FillWhereZero, fill);
    const attn::AttentionResult& head = out.heads[0][0];
    for (Eigen::Index j = 0; j < 6; ++j) {
        if (nan) {
            QVERIFY(std::isnan(head.weights(3, j)));
        } else {
            QCOMPARE(head.weights(3, j), 1.0f / 6.0f);
        }
    }
    QVERIFY(distributionOrNaN(head.weights).isEmpty());
    for (Eigen::Index i = 0; i < 6; ++i) {
        QCOMPARE(head.weights.row(i).array().isNaN().any(), nan && i == 3);
    }
}

// The float engine against the double loop reference (tests/model/reference_attention.h) on
// random inputs in [-r, r], far larger than test_ops' sweep.
//
// Bound: every intermediate within (d_k + T_k) · max(1, r²) · ε of the reference, relative to
// max(1, |reference|), ε = 2^-23. Why: a float sum of n terms is off by at most n·ε times the sum
// of the terms' magnitudes (Higham, ch. 3); scores sum d_k products of size <= r², the softmax
// and the weighted sum of values sum T_k terms; exp() and the divisions add a few ε. Measured
// errors stay 20 to 1000 times below the bound (worst: 24ε at T = 64, d_k = 64, r = 3); a wrong
// scale, mask cell or transposed product is off by 1e-2 or more.
void TestNumerics::floatVersusDoubleAttention_data() {
    QTest::addColumn<int>("tokens");
    QTest::addColumn<int>("d_k");
    QTest::addColumn<double>("range");
    QTest::addColumn<bool>("causal");
    const struct {
        int t, d;
        double r;
    } shapes[] = {{1, 1, 1},    {4, 8, 1},    {16, 16, 1}, {64, 64, 1},  {128, 64, 1},
                  {32, 256, 1}, {256, 32, 1}, {64, 64, 3}, {16, 512, 2}, {192, 16, 2}};
    for (const auto& s : shapes) {
        for (const bool causal : {false, true}) {
            QTest::addRow("T=%d d_k=%d r=%g%s", s.t, s.d, s.r, causal ? " causal" : "")
                << s.t << s.d << s.r << causal;
        }
    }
}

void TestNumerics::floatVersusDoubleAttention() {
    QFETCH(int, tokens);
    QFETCH(int, d_k);
    QFETCH(double, range);
    QFETCH(bool, causal);
    const double bound = static_cast<double>(d_k + tokens) * std::max(1.0, range * range) * kEps;
    double worst = 0.0;
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
        TorchGenerator gen(seed * 1000 + static_cast<std::uint64_t>(tokens));
        const Matrix q = gen.uniform(tokens, d_k, -range, range);
        const Matrix k = gen.uniform(tokens, d_k, -range, range);
        const Matrix v = gen.uniform(tokens, d_k, -range, range);
        attn::AttentionOptions options;
        attn::reference::ReferenceOptions ref;
        const attn::BoolMatrix mask = attn::causal_mask(tokens, tokens);
        if (causal) {
            options.blocked = mask;
            ref.blocked = &mask;
        }
        const attn::AttentionResult r = attn::scaled_dot_product_attention(q, k, v, options);
        const attn::reference::ReferenceResult e = attn::reference::attention(q, k, v, ref);
        using attn::reference::max_relative_error;
        for (const double err :
             {max_relative_error(r.scores, e.scores), max_relative_error(r.scaled, e.scaled),
              max_relative_error(r.weights, e.weights), max_relative_error(r.context, e.context)}) {
            worst = std::max(worst, err);
        }
    }
    QVERIFY2(worst <= bound,
             qPrintable(QStringLiteral("max relative error %1 > bound %2").arg(worst).arg(bound)));
}

// The whole MultiHeadAttention module (projections, heads, causal softmax, out_proj) in float
// against the same computation in double from the module's own weights, inputs in [-1, 1].
// Bound: (d_in + d_out + T) · ε relative to max(1, |reference|): the sums are of length d_in
// (projections), hd and T (attention) and d_out (out_proj), with terms below 1 because Linear's
// weights are at most 1/sqrt(in).
void TestNumerics::floatVersusDoubleModule_data() {
    QTest::addColumn<int>("tokens");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("heads");
    QTest::newRow("T=6 d=3 H=1") << 6 << 3 << 1;
    QTest::newRow("T=64 d=64 H=4") << 64 << 64 << 4;
    QTest::newRow("T=256 d=32 H=8") << 256 << 32 << 8;
    QTest::newRow("T=16 d=256 H=2") << 16 << 256 << 2;
}

void TestNumerics::floatVersusDoubleModule() {
    QFETCH(int, tokens);
    QFETCH(int, width);
    QFETCH(int, heads);
    TorchGenerator gen(static_cast<std::uint64_t>(tokens * width));
    const attn::MultiHeadAttention m(width, width, tokens, 0.0f, heads, gen, true);
    const Matrix x = gen.uniform(tokens, width, -1.0, 1.0);
    const Matrix out = m.forward(attn::Batch{x}).context_vecs[0];
    std::vector<Eigen::Index> rows(static_cast<std::size_t>(tokens));
    for (Eigen::Index t = 0; t < tokens; ++t) {
        rows[static_cast<std::size_t>(t)] = t;
    }
    const double bound = static_cast<double>(2 * width + tokens) * kEps;
    const double err = relativeError(out, doubleMha(m, x, rows));
    QVERIFY2(err <= bound, qPrintable(QStringLiteral("error %1 > bound %2").arg(err).arg(bound)));
    const double fastErr =
        relativeError(attn::fast_causal_mha_forward(m, x), doubleMha(m, x, rows));
    QVERIFY2(fastErr <= bound,
             qPrintable(QStringLiteral("fast path error %1 > bound %2").arg(fastErr).arg(bound)));
}

QTEST_APPLESS_MAIN(TestNumerics)
#include "test_numerics.moc"
