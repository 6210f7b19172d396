// Bad and extreme input to the engine, tried on purpose. Each case checks what the user
// sees (the exact message, or the documented result) and that nothing else changed: the inputs,
// the generator's position, a fast-path output buffer, a KV cache, and the next good run. The
// cases and messages are listed in docs/reliability.md.
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

// Bit-for-bit equality (NaN payloads included): "nothing changed" means exactly nothing.
bool sameBits(const Matrix& a, const Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(float)) == 0;
}

bool sameOutput(const RunResult& a, const RunResult& b) {
    if (a.output.context_vecs.size() != b.output.context_vecs.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.output.context_vecs.size(); ++i) {
        if (!sameBits(a.output.context_vecs[i], b.output.context_vecs[i])) {
            return false;
        }
    }
    return true;
}

}  // namespace

class TestBadInput : public QObject {
    Q_OBJECT

private slots:
    // --- values in embeddings and weights ---------------------------------------------------
    void nonFiniteEmbeddings_data();
    void nonFiniteEmbeddings();
    void nonFiniteWeights_data();
    void nonFiniteWeights();
    void tokenTextIsNeverRead();

    // --- sizes and settings -----------------------------------------------------------------
    void sizes_data();
    void sizes();
    void zeroMeansDefault();
    void oneToken_data();
    void oneToken();
    void wrapperMayHaveMoreHeadsThanDOut();
    void dropoutOneGivesZeros();
    void dropoutRefusedLeavesGeneratorAlone_data();
    void dropoutRefusedLeavesGeneratorAlone();
    void refusedFastPathLeavesBuffersAlone();
    void tooManyTokensForDisplayedPath();
    void fastPath4096Tokens();

    // --- numerical robustness ---------------------------------------------------------------
};

// NaN or ±Inf anywhere in the embeddings: refused before any arithmetic, naming the cell.
void TestBadInput::nonFiniteEmbeddings_data() {
    QTest::addColumn<ModuleKind>("module");
    QTest::addColumn<bool>("inSource");
    QTest::addColumn<float>("value");
    QTest::addColumn<QString>("expected");
    const struct {
        const char* name;
        float value;
    } values[] = {{"NaN", kNaN}, {"+Inf", kInf}, {"-Inf", -kInf}};
    for (const ModuleKind module : kModules) {
        for (const auto& v : values) {
            QTest::addRow("%s %s", runtest::rowName(module), v.name)
                << module << false << v.value
                << QStringLiteral(
                       "embeddings has %1 at row 2, column 3 (counting from 1): replace "
                       "it with a finite number")
                       .arg(QLatin1String(v.name));
        }
    }
    QTest::newRow("cross-attention source NaN")
        << ModuleKind::CrossAttention << true << kNaN
        << "source embeddings has NaN at row 2, column 3 (counting from 1): replace it with a "
           "finite number";
}

void TestBadInput::nonFiniteEmbeddings() {
    QFETCH(ModuleKind, module);
    QFETCH(bool, inSource);
    QFETCH(float, value);
    QFETCH(QString, expected);
    const ModuleConfig config = configFor(module);
    const Sequence clean = attn::tutorial_inputs();
    const Sequence cleanSource = attn::cross_attention_source();
    const RunResult before = attn::run_module(config, clean);

    Sequence bad = inSource ? cleanSource : clean;
    bad.embeddings(1, 2) = value;
    const Sequence badCopy = bad;
    const QString message = errorOf([&] {
        if (inSource) {
            attn::run_module(config, clean, &bad);
        } else {
            attn::run_module(config, bad);
        }
    });
    QCOMPARE(message, expected);
    // Nothing else changed: the input is as given, and the next good run is bit for bit the same.
    QVERIFY(sameBits(bad.embeddings, badCopy.embeddings));
    QVERIFY(sameOutput(attn::run_module(config, clean), before));
}

// NaN or ±Inf in a replaced parameter: refused with the state_dict name and the cell.
void TestBadInput::nonFiniteWeights_data() {
    QTest::addColumn<ModuleKind>("module");
    QTest::addColumn<QString>("weight");
    QTest::addColumn<float>("value");
    QTest::addColumn<QString>("expected");
    const struct {
        ModuleKind module;
        const char* weight;
    } cases[] = {
        {ModuleKind::SelfAttentionV1, "W_query"},
        {ModuleKind::SelfAttentionV2, "W_key.weight"},
        {ModuleKind::CausalAttention, "W_value.weight"},
        {ModuleKind::MultiHeadWrapper, "heads.1.W_query.weight"},
        {ModuleKind::MultiHeadAttention, "out_proj.bias"},
        {ModuleKind::BertMultiHead, "linears.3.bias"},
        {ModuleKind::Gpt2Attention, "c_attn.weight"},
        {ModuleKind::CrossAttention, "linears.1.weight"},
    };
    for (const auto& c : cases) {
        for (const float v : {kNaN, kInf, -kInf}) {
            const QString shown = std::isnan(v) ? "NaN" : (v > 0 ? "+Inf" : "-Inf");
            QTest::addRow("%s %s %s", runtest::rowName(c.module), c.weight, qPrintable(shown))
                << c.module << c.weight << v
                << QStringLiteral(
                       "weight \"%1\" has %2 at row 1, column 2 (counting from 1): "
                       "replace it with a finite number")
                       .arg(QLatin1String(c.weight), shown);
        }
    }
}

void TestBadInput::nonFiniteWeights() {
    QFETCH(ModuleKind, module);
    QFETCH(QString, weight);
    QFETCH(float, value);
    QFETCH(QString, expected);
    ModuleConfig config = configFor(module);
    const Sequence inputs = attn::tutorial_inputs();
    const RunResult before = attn::run_module(config, inputs);
    for (const attn::NamedMatrix& w : before.weights) {
        if (w.name == weight.toStdString()) {
            config.weights.push_back(w);
        }
    }
    QCOMPARE(config.weights.size(), std::size_t{1});
    config.weights.front().value(0, 1) = value;
    QCOMPARE(errorOf([&] { attn::run_module(config, inputs); }), expected);
    QVERIFY(sameOutput(attn::run_module(configFor(module), inputs), before));
}

// 1e30 is a finite float, so it is accepted; q·k = 1e30 · 1e30 overflows float to +inf, and a
// row holding +inf has softmax NaN (inf - inf), exactly as torch.softmax gives. What the user sees:
// the scores show "inf", that query's weights and context show NaN (null in attention-cli's JSON),
// every other query attends entirely to the huge token. Seed 002's SelfAttention_v1 weights are
// all positive (torch.rand), so the picture is exact.
void TestBadInput::tokenTextIsNeverRead() {
    const Sequence clean = attn::tutorial_inputs();
    Sequence odd = clean;
    odd.tokens[0] = "caf\xE9";  // Latin-1, not UTF-8
    odd.tokens[1] = std::string(10000, 'x');
    odd.tokens[2] = "\xF0\x28\x8C\x28";  // a broken 4-byte sequence
    odd.tokens[3] = "";
    for (const ModuleKind module : kModules) {
        QVERIFY2(sameOutput(attn::run_module(configFor(module), odd),
                            attn::run_module(configFor(module), clean)),
                 runtest::rowName(module));
    }
}

// Zero tokens, zero width, d_out = 0, heads = 0 or more than d_out, p outside [0, 1]: through
// run_module (the app and attention-cli) and through the module constructors.
void TestBadInput::sizes_data() {
    QTest::addColumn<Thrower>("run");
    QTest::addColumn<QString>("expected");
    const Sequence tutorial = attn::tutorial_inputs();
    auto run = [tutorial](ModuleKind module, Eigen::Index d_out, Eigen::Index heads,
                          float dropout = 0.0f) {
        return Thrower([=] {
            ModuleConfig c = configFor(module);
            c.d_out = d_out;
            c.num_heads = heads;
            c.dropout = dropout;
            attn::run_module(c, tutorial);
        });
    };
    Sequence none;
    none.embeddings.resize(0, 3);
    QTest::newRow("zero tokens") << Thrower([none] {
        attn::run_module(configFor(ModuleKind::SelfAttentionV2), none);
    }) << "embeddings is empty: give at least one token";
    Sequence noWidth;
    noWidth.embeddings.resize(2, 0);
    noWidth.tokens = {"a", "b"};
    QTest::newRow("zero width") << Thrower([noWidth] {
        attn::run_module(configFor(ModuleKind::CausalAttention), noWidth);
    }) << "embeddings have no values per token: give every token at least one number";
    Sequence source;
    source.embeddings.resize(0, 3);
    QTest::newRow("zero source tokens") << Thrower([tutorial, source] {
        attn::run_module(configFor(ModuleKind::CrossAttention), tutorial, &source);
    }) << "source embeddings is empty: give at least one token";
    QTest::newRow("tokens and rows disagree") << Thrower([tutorial] {
        Sequence s = tutorial;
        s.tokens.pop_back();
        attn::run_module(configFor(ModuleKind::SelfAttentionV1), s);
    }) << "embeddings have 6 rows but there are 5 tokens: give one row per token";
    QTest::newRow("d_out = -1") << run(ModuleKind::MultiHeadAttention, -1, 0)
                                << "d_out = -1 is outside 1..16384: give d_out between 1 and 16384";
    QTest::newRow("d_out = 4 for bert (d_model = d_in)")
        << run(ModuleKind::BertMultiHead, 4, 0)
        << "d_out = 4 does not apply to bert-multi-head: its output width is d_model = d_in = 3 "
           "(the embedding width); leave d_out unset";
    QTest::newRow("heads = 8 > d_out = 4")
        << run(ModuleKind::MultiHeadAttention, 4, 8)
        << "d_out = 4 is not divisible by num_heads = 8: choose num_heads among 1, 2, 4";
    QTest::newRow("heads = 5 > d_model = 3")
        << run(ModuleKind::Gpt2Attention, 0, 5)
        << "d_model = 3 is not divisible by num_heads = 5: choose num_heads among 1, 3";
    QTest::newRow("heads = -1") << run(ModuleKind::MultiHeadAttention, 4, -1)
                                << "num_heads = -1 is not a number of heads: choose num_heads "
                                   "among 1, 2, 4";
    QTest::newRow("heads = 2 on a single-head module")
        << run(ModuleKind::CausalAttention, 2, 2)
        << "causal-attention has a single head: num_heads = 2 does not apply; choose "
           "multi-head-attention or multi-head-wrapper for several heads";
    QTest::newRow("p = -0.1") << run(ModuleKind::CausalAttention, 2, 0, -0.1f)
                              << "dropout p = -0.1 is outside [0, 1]: use a probability such as "
                                 "0.1 or 0.5";
    QTest::newRow("p = 1.5") << run(ModuleKind::MultiHeadAttention, 2, 2, 1.5f)
                             << "dropout p = 1.5 is outside [0, 1]: use a probability such as 0.1 "
                                "or 0.5";
    QTest::newRow("p = NaN") << run(ModuleKind::CausalAttention, 2, 0, kNaN)
                             << "dropout p = nan is outside [0, 1]: use a probability such as 0.1 "
                                "or 0.5";

    // The module constructors, as code using model/ directly calls them.
    QTest::newRow("MultiHeadAttention d_out = 0") << Thrower([] {
        TorchGenerator gen(123);
        attn::MultiHeadAttention m(3, 0, 6, 0.0f, 1, gen);
    }) << "d_out = 0 leaves no width to split into heads: give d_out >= 1";
    QTest::newRow("SelfAttentionV1 d_out = 0") << Thrower([] {
        TorchGenerator gen(123);
        attn::SelfAttentionV1 m(3, 0, gen);
    }) << "d_out = 0 is not a size: give d_out >= 1";
    QTest::newRow("MultiHeadAttention heads = 0") << Thrower([] {
        TorchGenerator gen(123);
        attn::MultiHeadAttention m(3, 4, 6, 0.0f, 0, gen);
    }) << "num_heads = 0 is not a number of heads: choose num_heads among 1, 2, 4";
    QTest::newRow("MultiHeadAttention heads = 8 > d_out") << Thrower([] {
        TorchGenerator gen(123);
        attn::MultiHeadAttention m(3, 4, 6, 0.0f, 8, gen);
    }) << "d_out = 4 is not divisible by num_heads = 8: choose num_heads among 1, 2, 4";
    QTest::newRow("CausalAttention p = -0.1") << Thrower([] {
        TorchGenerator gen(123);
        attn::CausalAttention m(3, 2, 6, -0.1f, gen);
    }) << "dropout p = -0.1 is outside [0, 1]: use a probability such as 0.1 or 0.5";
}

void TestBadInput::sizes() {
    QFETCH(Thrower, run);
    QFETCH(QString, expected);
    QCOMPARE(errorOf(run), expected);
}

// In a config (and so in an example file) d_out = 0 and num_heads = 0 mean "the module's
// default", like every 0 in ModuleConfig: the tutorial's d_out = 2 and 2 heads.
void TestBadInput::zeroMeansDefault() {
    ModuleConfig c = configFor(ModuleKind::MultiHeadAttention);
    c.d_out = 0;
    c.num_heads = 0;
    const RunResult r = attn::run_module(c, attn::tutorial_inputs());
    QCOMPARE(r.config.d_out, Eigen::Index{2});
    QCOMPARE(r.config.num_heads, Eigen::Index{2});
    QCOMPARE(r.output.context_vecs[0].cols(), Eigen::Index{2});
}

// One token: the only key gets weight exactly 1 and the context is that token's value vector.
void TestBadInput::oneToken_data() {
    QTest::addColumn<ModuleKind>("module");
    for (const ModuleKind module : kModules) {
        QTest::newRow(runtest::rowName(module)) << module;
    }
}

void TestBadInput::oneToken() {
    QFETCH(ModuleKind, module);
    Sequence one;
    one.tokens = {"Your"};
    one.embeddings = attn::tutorial_inputs().embeddings.topRows(1);
    Sequence oneSource;
    oneSource.tokens = {"你的"};
    oneSource.embeddings = attn::cross_attention_source().embeddings.topRows(1);
    const RunResult r = attn::run_module(
        configFor(module), one, module == ModuleKind::CrossAttention ? &oneSource : nullptr);
    QCOMPARE(r.output.context_vecs[0].rows(), Eigen::Index{1});
    for (const attn::AttentionResult& head : r.output.heads[0]) {
        QCOMPARE(head.weights.rows(), Eigen::Index{1});
        QCOMPARE(head.weights.cols(), Eigen::Index{1});
        QCOMPARE(head.weights(0, 0), 1.0f);
        QVERIFY(head.context.allFinite());
    }
    if (module == ModuleKind::SelfAttentionV1 || module == ModuleKind::SelfAttentionV2 ||
        module == ModuleKind::CausalAttention) {
        QVERIFY(sameBits(r.output.context_vecs[0], r.output.values[0]));
    }
}

// The wrapper's d_out is each head's width, so num_heads > d_out is fine: 4 heads of width 2.
void TestBadInput::wrapperMayHaveMoreHeadsThanDOut() {
    ModuleConfig c = configFor(ModuleKind::MultiHeadWrapper);
    c.d_out = 2;
    c.num_heads = 4;
    const RunResult r = attn::run_module(c, attn::tutorial_inputs());
    QCOMPARE(r.output.context_vecs[0].cols(), Eigen::Index{8});
    QCOMPARE(r.output.heads[0].size(), std::size_t{4});
}

// p = 1, as nn.Dropout(1.0) in training mode: every weight dropped, so every context vector is 0;
// the attention weights before dropout are still shown.
void TestBadInput::dropoutOneGivesZeros() {
    for (const ModuleKind module :
         {ModuleKind::CausalAttention, ModuleKind::MultiHeadWrapper, ModuleKind::MultiHeadAttention,
          ModuleKind::BertMultiHead, ModuleKind::Gpt2Attention}) {
        ModuleConfig c = configFor(module);
        c.dropout = 1.0f;
        const RunResult r = attn::run_module(c, attn::tutorial_inputs());
        QVERIFY(r.training);
        for (const attn::AttentionResult& head : r.output.heads[0]) {
            QVERIFY2((head.dropped.array() == 0.0f).all(), runtest::rowName(module));
            QVERIFY2(!head.kept.any(), runtest::rowName(module));
            QVERIFY2((head.context.array() == 0.0f).all(), runtest::rowName(module));
            QVERIFY2(distributionOrNaN(head.weights).isEmpty(), runtest::rowName(module));
        }
    }
}

// A refused dropout draws nothing: the generator is where it was (the next draw equals a fresh
// generator's), so a student's seeded sequence of runs is not shifted by a typo. p = 1 and p = 0
// also draw nothing, as in PyTorch.
void TestBadInput::dropoutRefusedLeavesGeneratorAlone_data() {
    QTest::addColumn<float>("p");
    QTest::addColumn<QString>("expected");
    QTest::newRow("p = -0.1") << -0.1f
                              << "dropout p = -0.1 is outside [0, 1]: use a probability such as "
                                 "0.1 or 0.5";
    QTest::newRow("p = 1.0000001")
        << std::nextafter(1.0f, 2.0f)
        << "dropout p = 1.0000001 is outside [0, 1]: use a probability such "
           "as 0.1 or 0.5";
    QTest::newRow("p = 1 (accepted, draws nothing)") << 1.0f << QString();
    QTest::newRow("p = 0 (accepted, draws nothing)") << 0.0f << QString();
}

void TestBadInput::dropoutRefusedLeavesGeneratorAlone() {
    QFETCH(float, p);
    QFETCH(QString, expected);
    const Matrix x = attn::tutorial_inputs().embeddings;
    attn::AttentionOptions options;
    options.training = true;
    options.dropout_p = p;
    TorchGenerator gen(123);
    const QString message =
        errorOf([&] { attn::scaled_dot_product_attention(x, x, x, options, &gen); });
    QCOMPARE(message, expected);
    TorchGenerator fresh(123);
    QCOMPARE(gen.random64(), fresh.random64());
}

// The fast path refuses NaN and a wrong width without touching the caller's output buffer;
// decode_step refuses NaN and an overfull cache without touching the KV cache.
void TestBadInput::refusedFastPathLeavesBuffersAlone() {
    TorchGenerator gen(5);
    const attn::MultiHeadAttention mha(3, 4, 6, 0.0f, 2, gen);
    const attn::FastAttentionWeights weights(mha);
    attn::FastAttentionWorkspace workspace;
    Matrix out;
    const Matrix x = attn::tutorial_inputs().embeddings;
    attn::fast_causal_mha_forward(weights, x, workspace, out);
    const Matrix good = out;

    Matrix bad = x;
    bad(4, 0) = kNaN;
    QVERIFY(
        !errorOf([&] { attn::fast_causal_mha_forward(weights, bad, workspace, out); }).isEmpty());
    QVERIFY(sameBits(out, good));
    QVERIFY(!errorOf([&] {
                 attn::fast_causal_mha_forward(weights, Matrix::Ones(6, 5), workspace, out);
             }).isEmpty());
    QVERIFY(sameBits(out, good));

    attn::KVCache cache = mha.make_cache(2);
    mha.decode_step(x.topRows(1), cache);
    const attn::KVCache before = cache;
    QVERIFY(!errorOf([&] { mha.decode_step(bad.middleRows(4, 1), cache); }).isEmpty());
    QCOMPARE(cache.tokens, before.tokens);
    for (std::size_t h = 0; h < cache.keys.size(); ++h) {
        QVERIFY(sameBits(cache.keys[h], before.keys[h]));
        QVERIFY(sameBits(cache.values[h], before.values[h]));
    }
    mha.decode_step(x.middleRows(1, 1), cache);
    QVERIFY(!errorOf([&] {
                 mha.decode_step(x.middleRows(2, 1), cache);
             }).isEmpty());  // the cache holds 2 tokens
    QCOMPARE(cache.tokens, Eigen::Index{2});
}

// 4096 tokens with every intermediate displayed is refused up front when it would not fit, with a
// message saying how much memory it needs, instead of running out of memory.
void TestBadInput::tooManyTokensForDisplayedPath() {
    ModuleConfig c = configFor(ModuleKind::MultiHeadAttention);
    c.d_out = 64;
    c.num_heads = 8;
    QCOMPARE(errorOf([&] { attn::resolve_config(c, 64, 4096, 4096); }),
             QStringLiteral("this run would need about 2816 MiB for its displayed intermediates "
                            "(1 × 8 heads × 4096 × 4096 attention matrices); the limit is 2048 "
                            "MiB: use fewer tokens, heads or batch copies"));
    c.num_heads = 2;  // 704 MiB: allowed
    QCOMPARE(attn::intermediate_bytes(attn::resolve_config(c, 64, 4096, 4096), 4096, 4096),
             std::size_t{738197504});
}

// 4096 tokens through the fast path (what the app uses when intermediates are not displayed):
// finishes in bounded time with memory linear in T, and its rows match a double recomputation.
void TestBadInput::fastPath4096Tokens() {
    constexpr Eigen::Index kTokens = 4096;
    TorchGenerator gen(4096);
    const attn::MultiHeadAttention mha(16, 16, kTokens, 0.0f, 2, gen);
    const Matrix x = gen.uniform(kTokens, 16, -1.0, 1.0);
    QElapsedTimer timer;
    timer.start();
    const Matrix out = attn::fast_causal_mha_forward(mha, x);
    const qint64 ms = timer.elapsed();
    qInfo("fast path, 4096 tokens, d = 16, 2 heads: %lld ms", ms);
#ifdef EIGEN_NO_DEBUG
    constexpr qint64 kLimitMs = 5000;  // optimised builds take ~50 ms; 100x slack for a busy CI
#else
    constexpr qint64 kLimitMs = 180000;  // Debug + sanitizers run Eigen unoptimised
#endif
    QVERIFY2(ms < kLimitMs, qPrintable(QStringLiteral("%1 ms").arg(ms)));
    QCOMPARE(out.rows(), kTokens);
    const std::vector<Eigen::Index> rows = {0, 1, 127, 128, 2047, 4094, 4095};
    const Eigen::MatrixXd expected = doubleMha(mha, x, rows);
    Matrix actual(static_cast<Eigen::Index>(rows.size()), 16);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        actual.row(static_cast<Eigen::Index>(r)) = out.row(rows[r]);
    }
    // Same bound as floatVersusDoubleModule: (d_in + d_out + T) · ε.
    const double bound = static_cast<double>(16 + 16 + kTokens) * kEps;
    const double err = relativeError(actual, expected);
    QVERIFY2(err <= bound, qPrintable(QStringLiteral("error %1 > bound %2").arg(err).arg(bound)));
}

// softmax of rows with huge or identical scores: the row max is subtracted first, so 1e30 and
// FLT_MAX give exact answers; identical scores give exactly 1/n whatever their size; +inf gives a
// NaN row (inf - inf), as torch.softmax does.
QTEST_APPLESS_MAIN(TestBadInput)
#include "test_bad_input.moc"
