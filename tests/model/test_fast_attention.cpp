// The fast path (model/fast_attention.h) against the displayed path, MultiHeadAttention::forward,
// over a sweep of shapes; MultiHeadAttention::decode_step token by token against both full passes;
// the errors it raises.
//
// Tolerance: for every cell, |fast - displayed| <= 1e-5 · max|displayed| (the largest magnitude
// of the displayed output). Both paths round every product and exp() to float but in different
// orders (fused projection, query pre-scaled by 1/√hd, online softmax rescaling, division by the
// row sum at the end), which moves the result by a few float epsilons (1.2e-7) times the length
// of the dot products; a wrong mask cell, scale or head column moves it by far more than 1e-5.
#include <QString>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "model/fast_attention.h"
#include "model/matmul.h"
#include "model/modules.h"
#include "model/rng.h"
#include "model/runner.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

using attn::Matrix;

constexpr double kRelativeTolerance = 1e-5;

// Empty when |actual - expected| <= 1e-5 · max|expected| in every cell; otherwise the worst cell.
QString mismatch(const Matrix& actual, const Matrix& expected) {
    if (actual.rows() != expected.rows() || actual.cols() != expected.cols()) {
        return QStringLiteral("shape (%1, %2), expected (%3, %4)")
            .arg(actual.rows())
            .arg(actual.cols())
            .arg(expected.rows())
            .arg(expected.cols());
    }
    const double scale = static_cast<double>(expected.cwiseAbs().maxCoeff());
    double worst = -1.0;
    Eigen::Index wi = 0, wj = 0;
    for (Eigen::Index i = 0; i < actual.rows(); ++i) {
        for (Eigen::Index j = 0; j < actual.cols(); ++j) {
            const double diff =
                std::abs(static_cast<double>(actual(i, j)) - static_cast<double>(expected(i, j)));
            // !(diff <= worst) also catches NaN.
            if (!(diff <= worst)) {
                worst = std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff;
                wi = i;
                wj = j;
            }
        }
    }
    if (worst <= kRelativeTolerance * scale) {
        return {};
    }
    return QStringLiteral("cell [%1,%2]: got %3, expected %4, |diff| %5 > 1e-5 * %6")
        .arg(wi)
        .arg(wj)
        .arg(static_cast<double>(actual(wi, wj)), 0, 'g', 9)
        .arg(static_cast<double>(expected(wi, wj)), 0, 'g', 9)
        .arg(worst, 0, 'g', 3)
        .arg(scale, 0, 'g', 3);
}

Matrix inputs(Eigen::Index tokens, Eigen::Index d_in, std::uint64_t seed) {
    attn::TorchGenerator gen(seed);
    // Values in [-2, 2] make the softmax rows peaked as well as flat.
    return gen.uniform(tokens, d_in, -2.0, 2.0);
}

template <typename F>
QString errorOf(F&& f) {
    try {
        f();
    } catch (const attn::AttentionError& e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("<no AttentionError>");
}

}  // namespace

class TestFastAttention : public QObject {
    Q_OBJECT

private slots:
    void matchesDisplayedPath_data();
    void matchesDisplayedPath();
    void smallBlocksMatchDisplayedPath_data();
    void smallBlocksMatchDisplayedPath();
    void differentInputAndOutputWidths();
    void workspaceReuseAcrossShapes();
    void lastRowsAloneAreTheFullPassRows();
    void packedWeightsGiveTheSameOutput();
    void threadsDoNotChangeTheResult();
    void decodeEqualsFullPass_data();
    void decodeEqualsFullPass();
    void errors_data();
    void errors();
    void runnerOutputOnly();
};

void TestFastAttention::matchesDisplayedPath_data() {
    QTest::addColumn<int>("tokens");
    QTest::addColumn<int>("numHeads");
    QTest::addColumn<int>("dModel");
    QTest::addColumn<bool>("qkvBias");
    // T around the default block sizes (256 queries, 256 keys, strips of 64): one partial strip,
    // exactly one strip, one more, several key blocks before the diagonal (513 = 2·256 + 1).
    for (const int tokens : {1, 2, 7, 63, 64, 65, 200, 513}) {
        for (const int heads : {1, 2, 3, 12}) {
            // d = 192 gives head widths 192, 96, 64 and 16: the fast path's register-tiled
            // weights · values kernel covers multiples of 64 (AVX-512) or 32 (AVX2) columns,
            // Eigen the rest.
            for (const int d : {12, 48, 96, 192}) {
                for (const bool bias : {false, true}) {
                    const std::string name =
                        "T=" + std::to_string(tokens) + " H=" + std::to_string(heads) +
                        " d=" + std::to_string(d) + (bias ? " bias" : " no bias");
                    QTest::newRow(name.c_str()) << tokens << heads << d << bias;
                }
            }
        }
    }
}

void TestFastAttention::matchesDisplayedPath() {
    QFETCH(int, tokens);
    QFETCH(int, numHeads);
    QFETCH(int, dModel);
    QFETCH(bool, qkvBias);
    attn::TorchGenerator gen(123);
    const attn::MultiHeadAttention mha(dModel, dModel, tokens, 0.0f, numHeads, gen, qkvBias);
    const Matrix x = inputs(tokens, dModel, 7);
    const Matrix displayed = mha.forward(attn::Batch{x}).context_vecs.front();
    const Matrix fast = attn::fast_causal_mha_forward(mha, x);
    QCOMPARE(mismatch(fast, displayed), QString());
}

void TestFastAttention::smallBlocksMatchDisplayedPath_data() {
    QTest::addColumn<int>("tokens");
    QTest::addColumn<int>("queryBlock");
    QTest::addColumn<int>("keyBlock");
    QTest::addColumn<int>("diagonalBlock");
    // Blocks that do not divide T, key blocks smaller and larger than query blocks, diagonal
    // strips that do not divide the query block, single rows.
    QTest::newRow("T=37 Bq=5 Bk=7 Bd=5") << 37 << 5 << 7 << 5;
    QTest::newRow("T=37 Bq=7 Bk=5 Bd=3") << 37 << 7 << 5 << 3;
    QTest::newRow("T=20 Bq=1 Bk=1 Bd=1") << 20 << 1 << 1 << 1;
    QTest::newRow("T=20 Bq=20 Bk=3 Bd=6") << 20 << 20 << 3 << 6;
    QTest::newRow("T=20 Bq=3 Bk=100 Bd=100") << 20 << 3 << 100 << 100;
    QTest::newRow("T=130 Bq=64 Bk=64 Bd=64") << 130 << 64 << 64 << 64;
    QTest::newRow("T=300 Bq=256 Bk=512 Bd=64") << 300 << 256 << 512 << 64;
}

void TestFastAttention::smallBlocksMatchDisplayedPath() {
    QFETCH(int, tokens);
    QFETCH(int, queryBlock);
    QFETCH(int, keyBlock);
    QFETCH(int, diagonalBlock);
    attn::TorchGenerator gen(5);
    const attn::MultiHeadAttention mha(24, 24, tokens, 0.0f, 3, gen, true);
    const Matrix x = inputs(tokens, 24, 11);
    const Matrix displayed = mha.forward(attn::Batch{x}).context_vecs.front();
    attn::FastAttentionWorkspace ws;
    ws.query_block = queryBlock;
    ws.key_block = keyBlock;
    ws.diagonal_block = diagonalBlock;
    Matrix fast;
    attn::fast_causal_mha_forward(attn::FastAttentionWeights(mha), x, ws, fast);
    QCOMPARE(mismatch(fast, displayed), QString());
}

// out_rows asks for the output's last rows only (a model's last layer): they are the full pass's
// rows, also when they start inside a query block or span several, and the blocks before them
// are skipped.
void TestFastAttention::lastRowsAloneAreTheFullPassRows() {
    attn::TorchGenerator gen(8);
    const attn::MultiHeadAttention mha(24, 24, 40, 0.0f, 3, gen, true);
    const attn::FastAttentionWeights weights(mha);
    const Matrix x = inputs(37, 24, 4);
    const Matrix displayed = mha.forward(attn::Batch{x}).context_vecs.front();
    // Separate q, k, v (queries projected for the output's rows alone) and one fused (T, 3d)
    // projection (its query columns for those rows, keys and values for all); rows that start
    // inside a diagonal strip (37 - 1 = 36 = 7 · 5 + 1, 37 - 12 = 25 = 5 · 5) and one that does
    // not.
    const attn::FastAttentionWeights fused = attn::FastAttentionWeights::packed(mha);
    for (const attn::FastAttentionWeights* w : {&weights, &fused}) {
        for (const Eigen::Index rows : {Eigen::Index{1}, Eigen::Index{3}, Eigen::Index{12}}) {
            attn::FastAttentionWorkspace ws;
            ws.query_block = 5;
            ws.key_block = 7;
            ws.diagonal_block = 3;
            Matrix out;
            attn::fast_causal_mha_forward(*w, x, ws, out, rows);
            QCOMPARE(out.rows(), rows);
            QCOMPARE(mismatch(out, displayed.bottomRows(rows)), QString());
        }
    }
    // 0, negative or more than T: every row.
    attn::FastAttentionWorkspace ws;
    Matrix out;
    attn::fast_causal_mha_forward(weights, x, ws, out, 0);
    QCOMPARE(mismatch(out, displayed), QString());
    attn::fast_causal_mha_forward(weights, x, ws, out, 38);
    QCOMPARE(mismatch(out, displayed), QString());
}

void TestFastAttention::differentInputAndOutputWidths() {
    // The tutorial's shapes: d_in = 3, d_out = 2, two heads of width 1, the six tokens.
    attn::TorchGenerator gen(123);
    const attn::MultiHeadAttention mha(3, 2, 6, 0.0f, 2, gen);
    const Matrix x = inputs(6, 3, 1);
    const Matrix displayed = mha.forward(attn::Batch{x}).context_vecs.front();
    const Matrix fast = attn::fast_causal_mha_forward(mha, x);
    QCOMPARE(fast.cols(), Eigen::Index{2});
    QCOMPARE(mismatch(fast, displayed), QString());

    attn::TorchGenerator gen2(9);
    const attn::MultiHeadAttention wide(20, 8, 50, 0.0f, 4, gen2, true);
    const Matrix x2 = inputs(50, 20, 2);
    QCOMPARE(mismatch(attn::fast_causal_mha_forward(wide, x2),
                      wide.forward(attn::Batch{x2}).context_vecs.front()),
             QString());
}

void TestFastAttention::workspaceReuseAcrossShapes() {
    attn::TorchGenerator gen(3);
    const attn::MultiHeadAttention mha(48, 48, 300, 0.0f, 4, gen, true);
    const attn::FastAttentionWeights weights(mha);
    attn::FastAttentionWorkspace ws;
    Matrix out;
    // Long, short, long again through the same workspace: stale rows must not leak in.
    for (const Eigen::Index tokens : {300, 7, 300, 65}) {
        const Matrix x = inputs(tokens, 48, static_cast<std::uint64_t>(tokens));
        attn::fast_causal_mha_forward(weights, x, ws, out);
        const Matrix fresh = attn::fast_causal_mha_forward(mha, x);
        QVERIFY(out == fresh);  // same arithmetic in the same order: bit for bit
        QCOMPARE(mismatch(out, mha.forward(attn::Batch{x}).context_vecs.front()), QString());
    }
}

void TestFastAttention::packedWeightsGiveTheSameOutput() {
    // packed() copies q | k | v into one (d_in, 3·d_out) matrix and out_proj into (d_out, d_out),
    // stored as x · W reads them: the same output as the views of the module's nn.Linear
    // weights, with and without biases, and the copies are the packed weights' own.
    for (const bool qkv_bias : {false, true}) {
        attn::TorchGenerator gen(qkv_bias ? 21 : 22);
        attn::MultiHeadAttention mha(40, 24, 90, 0.0f, 4, gen, qkv_bias);
        const Matrix x = inputs(90, 40, 6);
        const Matrix displayed = mha.forward(attn::Batch{x}).context_vecs.front();
        const attn::FastAttentionWeights packed = attn::FastAttentionWeights::packed(mha);
        QCOMPARE(packed.qkv.size(), std::size_t{1});
        QCOMPARE(packed.qkv[0].op, attn::Op::None);
        QCOMPARE(packed.qkv[0].rows, Eigen::Index{40});
        QCOMPARE(packed.qkv[0].cols, Eigen::Index{72});
        QCOMPARE(packed.qkv[0].bias != nullptr, qkv_bias);
        QCOMPARE(packed.out.op, attn::Op::None);
        QVERIFY(packed.out.bias != nullptr);  // out_proj always has one
        // W_value's first weight, W_value.weight[0][0], is packed row 0, column 2 · d_out.
        QCOMPARE(packed.qkv[0].weight[48], mha.W_value.weight(0, 0));
        attn::FastAttentionWorkspace ws;
        Matrix out;
        attn::fast_causal_mha_forward(packed, x, ws, out);
        QCOMPARE(mismatch(out, displayed), QString());
        QCOMPARE(mismatch(out, attn::fast_causal_mha_forward(mha, x)), QString());

        // A copy shares the storage; editing the module afterwards does not reach either.
        const attn::FastAttentionWeights copy = packed;
        QCOMPARE(copy.storage.get(), packed.storage.get());
        mha.W_query.weight.setZero();
        mha.out_proj.bias.setZero();
        Matrix again;
        attn::fast_causal_mha_forward(copy, x, ws, again);
        QVERIFY(again == out);
    }
}

void TestFastAttention::threadsDoNotChangeTheResult() {
    // Each (head, query block) is computed by one thread in a fixed order, so the thread count
    // must not change a single bit of the attention part.
    attn::TorchGenerator gen(4);
    const attn::MultiHeadAttention mha(96, 96, 400, 0.0f, 12, gen, true);
    const Matrix x = inputs(400, 96, 8);
    const int before = attn::engine_threads();
    attn::set_engine_threads(1);
    QCOMPARE(attn::engine_threads(), 1);
    const Matrix one = attn::fast_causal_mha_forward(mha, x);
    attn::set_engine_threads(2);
#ifdef _OPENMP
    QCOMPARE(attn::engine_threads(), 2);
#endif
    const Matrix two = attn::fast_causal_mha_forward(mha, x);
    attn::set_engine_threads(before);
    QCOMPARE(mismatch(two, one), QString());
    QCOMPARE(errorOf([] { attn::set_engine_threads(0); }).contains("at least 1"), true);
}

void TestFastAttention::decodeEqualsFullPass_data() {
    QTest::addColumn<int>("tokens");
    QTest::addColumn<int>("numHeads");
    QTest::addColumn<int>("dModel");
    QTest::addColumn<bool>("qkvBias");
    for (const int tokens : {1, 7, 65, 200}) {
        for (const int heads : {1, 3, 12}) {
            for (const bool bias : {false, true}) {
                const std::string name = "T=" + std::to_string(tokens) +
                                         " H=" + std::to_string(heads) +
                                         (bias ? " bias" : " no bias");
                QTest::newRow(name.c_str()) << tokens << heads << 48 << bias;
            }
        }
    }
    // 700 keys × d 96: a long cache of wide rows, far above Eigen's small-product threshold.
    QTest::newRow("T=700 H=12 d=96 bias") << 700 << 12 << 96 << true;
}

void TestFastAttention::decodeEqualsFullPass() {
    QFETCH(int, tokens);
    QFETCH(int, numHeads);
    QFETCH(int, dModel);
    QFETCH(bool, qkvBias);
    attn::TorchGenerator gen(321);
    const attn::MultiHeadAttention mha(dModel, dModel, tokens, 0.0f, numHeads, gen, qkvBias);
    const Matrix x = inputs(tokens, dModel, 17);
    const Matrix displayed = mha.forward(attn::Batch{x}).context_vecs.front();

    // decode_step (attend_one_query over the kv_cache) is a third way to compute each row.
    attn::KVCache cache = mha.make_cache(tokens);
    Matrix decoded(tokens, dModel);
    for (Eigen::Index t = 0; t < tokens; ++t) {
        decoded.row(t) = mha.decode_step(x.row(t), cache).output;
        QCOMPARE(cache.tokens, t + 1);
    }
    QCOMPARE(mismatch(decoded, displayed), QString());
    QCOMPARE(mismatch(decoded, attn::fast_causal_mha_forward(mha, x)), QString());
}

void TestFastAttention::errors_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("expected");
    QTest::newRow("wrong width") << 0 << "d_in";
    QTest::newRow("longer than context_length") << 1 << "context_length";
    QTest::newRow("NaN input") << 2 << "NaN";
    QTest::newRow("no tokens") << 3 << "empty";
    QTest::newRow("query block 0") << 4 << "query_block";
    QTest::newRow("key block 0") << 5 << "key_block";
    QTest::newRow("diagonal block 0") << 10 << "diagonal_block";
}

void TestFastAttention::errors() {
    QFETCH(int, which);
    QFETCH(QString, expected);
    attn::TorchGenerator gen(2);
    const attn::MultiHeadAttention mha(6, 6, 8, 0.0f, 2, gen);
    const attn::FastAttentionWeights weights(mha);
    attn::FastAttentionWorkspace ws;
    Matrix out;
    Matrix x = inputs(4, 6, 1);
    const QString message = errorOf([&] {
        switch (which) {
            case 0:
                attn::fast_causal_mha_forward(weights, inputs(4, 5, 1), ws, out);
                break;
            case 1:
                attn::fast_causal_mha_forward(weights, inputs(9, 6, 1), ws, out);
                break;
            case 2:
                x(1, 2) = std::numeric_limits<float>::quiet_NaN();
                attn::fast_causal_mha_forward(weights, x, ws, out);
                break;
            case 3:
                attn::fast_causal_mha_forward(weights, Matrix(0, 6), ws, out);
                break;
            case 4:
                ws.query_block = 0;
                attn::fast_causal_mha_forward(weights, x, ws, out);
                break;
            case 5:
                ws.key_block = 0;
                attn::fast_causal_mha_forward(weights, x, ws, out);
                break;
            case 10:
                ws.diagonal_block = 0;
                attn::fast_causal_mha_forward(weights, x, ws, out);
                break;
            default:
                break;
        }
    });
    QVERIFY2(message.contains(expected), qPrintable(message));
}

void TestFastAttention::runnerOutputOnly() {
    // run_module(..., output_only = true) takes the fast path for multi-head-attention without
    // dropout, and only there lifts the displayed-intermediates limit (attention-cli --summary).
    attn::ModuleConfig config;
    config.module = attn::ModuleKind::MultiHeadAttention;
    config.d_out = 16;
    config.num_heads = 4;
    config.qkv_bias = true;
    QVERIFY(attn::has_fast_path(config));
    const attn::Sequence inputs = attn::random_sequence(70, 16, 123);
    const attn::RunResult fast = attn::run_module(config, inputs, nullptr, true);
    const attn::RunResult displayed = attn::run_module(config, inputs);
    QVERIFY(fast.output.heads.empty());
    QVERIFY(fast.output.queries.empty());
    QCOMPARE(fast.weights.size(), displayed.weights.size());
    QCOMPARE(mismatch(fast.output.context_vecs.at(0), displayed.output.context_vecs.at(0)),
             QString());
    QVERIFY(fast.repeat_ms.empty());

    // Repeated passes (attention-cli --summary --repeat) are timed each, through the kept
    // workspace, and leave the first pass's output: bit for bit that of a single run. With
    // dropout (the displayed path) the repeats draw further masks, the output is still the first.
    const attn::RunResult repeated = attn::run_module(config, inputs, nullptr, true, 3);
    QCOMPARE(repeated.repeat_ms.size(), std::size_t{3});
    for (const double ms : repeated.repeat_ms) QVERIFY(ms > 0.0);
    QVERIFY(repeated.output.context_vecs.at(0) == fast.output.context_vecs.at(0));
    attn::ModuleConfig dropped = config;
    dropped.dropout = 0.5f;
    const attn::RunResult once = attn::run_module(dropped, inputs, nullptr, true);
    const attn::RunResult again = attn::run_module(dropped, inputs, nullptr, true, 2);
    QCOMPARE(again.repeat_ms.size(), std::size_t{2});
    QVERIFY(again.output.context_vecs.at(0) == once.output.context_vecs.at(0));
    QVERIFY(errorOf([&] {
                attn::run_module(config, inputs, nullptr, true, -1);
            }).contains("repeats is -1: give 0 to 1000"));

    // 12 heads × 8192² cells: far over kMaxIntermediateBytes when displayed, fine on the fast path.
    config.num_heads = 12;
    config.d_out = 48;
    QCOMPARE(attn::resolve_config(config, 48, 8192, 8192, true).num_heads, Eigen::Index{12});
    QVERIFY(errorOf([&] {
                attn::resolve_config(config, 48, 8192, 8192);
            }).contains("displayed intermediates"));
    attn::ModuleConfig training = config;
    training.dropout = 0.1f;  // dropout draws masks: the fast path is inference only
    QVERIFY(!attn::has_fast_path(training));
    QVERIFY(errorOf([&] {
                attn::resolve_config(training, 48, 8192, 8192, true);
            }).contains("displayed intermediates"));
    attn::ModuleConfig wrapper = config;
    wrapper.module = attn::ModuleKind::MultiHeadWrapper;
    wrapper.d_out = 4;
    QVERIFY(!attn::has_fast_path(wrapper));
    QVERIFY(errorOf([&] {
                attn::resolve_config(wrapper, 48, 8192, 8192, true);
            }).contains("displayed intermediates"));
}

QTEST_APPLESS_MAIN(TestFastAttention)
#include "test_fast_attention.moc"
