// Seed 003's self-attention with dim_k != dim_v, single and multi-head, run through run_module
// (the modules self-attention-kv and multi-head-self-attention-kv) and compared with the seed's
// own code in PyTorch (tests/reference/seed003_reference.py prints the header): parameters bit
// for bit (the same uniform draws), every intermediate within 1e-6. Also the settings' checks.
#include <QString>
#include <QTest>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>

#include "model/examples.h"
#include "model/runner.h"
#include "tests/model/runner_test_helpers.h"
#include "tests/reference/seed003_reference.h"

using attn::Matrix;
using attn::ModuleKind;
namespace ref = attn::seed003_reference;

namespace {

constexpr double kTolerance = 1e-6;

Matrix rowMajor(const float* values, Eigen::Index rows, Eigen::Index cols) {
    return Eigen::Map<const Matrix>(values, rows, cols);
}

// "" when every value is within kTolerance, else the first difference.
QString difference(const Matrix& got, const float* expected, const QString& what) {
    if (got.size() == 0) {
        return what + QStringLiteral(" is empty");
    }
    for (Eigen::Index r = 0; r < got.rows(); ++r) {
        for (Eigen::Index c = 0; c < got.cols(); ++c) {
            const float e = expected[r * got.cols() + c];
            if (!(std::abs(static_cast<double>(got(r, c)) - static_cast<double>(e)) <=
                  kTolerance)) {
                return QStringLiteral("%1 (%2, %3): got %4, PyTorch %5")
                    .arg(what)
                    .arg(r)
                    .arg(c)
                    .arg(static_cast<double>(got(r, c)), 0, 'g', 9)
                    .arg(static_cast<double>(e), 0, 'g', 9);
            }
        }
    }
    return {};
}

bool bitEqual(const Matrix& got, const float* expected) {
    for (Eigen::Index i = 0; i < got.size(); ++i) {
        if (std::bit_cast<std::uint32_t>(got.data()[i]) !=
            std::bit_cast<std::uint32_t>(expected[i])) {
            return false;
        }
    }
    return true;
}

attn::ModuleConfig configOf(const ref::Case& c) {
    attn::ModuleConfig config;
    config.module =
        c.num_heads == 0 ? ModuleKind::SelfAttentionKV : ModuleKind::MultiHeadSelfAttentionKV;
    config.seed = c.seed;
    config.dim_k = c.dim_k;
    config.dim_v = c.dim_v;
    config.num_heads = c.num_heads;  // 0 for the single-head module: its default, 1
    config.batch = c.batch;
    return config;
}

}  // namespace

class TestSeed003 : public QObject {
    Q_OBJECT

private slots:
    void matchesTorch_data() {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < std::size(ref::kCases); ++i) {
            const ref::Case& c = ref::kCases[i];
            QTest::addRow("dim_in %d, dim_k %d, dim_v %d, heads %d, seed %llu, batch %d", c.dim_in,
                          c.dim_k, c.dim_v, c.num_heads, static_cast<unsigned long long>(c.seed),
                          c.batch)
                << static_cast<int>(i);
        }
    }

    void matchesTorch() {
        QFETCH(int, index);
        const ref::Case& c = ref::kCases[index];
        const bool tutorial = c.dim_in == 3 && c.tokens == 6;
        attn::Sequence inputs =
            tutorial ? attn::tutorial_inputs() : attn::random_sequence(c.tokens, c.dim_in, c.seed);
        QCOMPARE(inputs.embeddings, rowMajor(c.input, c.tokens, c.dim_in));

        const attn::RunResult r = attn::run_module(configOf(c), inputs);
        const int heads = c.num_heads == 0 ? 1 : c.num_heads;
        QCOMPARE(r.config.dim_k, Eigen::Index{c.dim_k});
        QCOMPARE(r.config.dim_v, Eigen::Index{c.dim_v});
        QCOMPARE(r.config.d_out, Eigen::Index{c.dim_v});
        QCOMPARE(r.config.num_heads, Eigen::Index{heads});
        QVERIFY(!r.training);

        // Parameters: the same uniform draws, bit for bit, named as the seed's state_dict.
        QCOMPARE(r.weights.size(), std::size_t{3});
        const char* names[] = {"linear_q.weight", "linear_k.weight", "linear_v.weight"};
        const float* expected[] = {c.linear_q, c.linear_k, c.linear_v};
        for (int i = 0; i < 3; ++i) {
            const attn::NamedMatrix* w = runtest::findWeight(r, names[i]);
            QVERIFY2(w != nullptr, names[i]);
            QCOMPARE(w->value.rows(), Eigen::Index{i == 2 ? c.dim_v : c.dim_k});
            QCOMPARE(w->value.cols(), Eigen::Index{c.dim_in});
            QVERIFY2(bitEqual(w->value, expected[i]), names[i]);
        }

        QCOMPARE(r.output.context_vecs.size(), std::size_t(c.batch));
        QCOMPARE(r.output.heads.size(), std::size_t(c.batch));
        const Eigen::Index t = c.tokens;
        for (int b = 0; b < c.batch; ++b) {
            const auto bi = static_cast<std::size_t>(b);
            const QString at = QStringLiteral("[%1]").arg(b);
            QString d =
                difference(r.output.queries[bi], c.queries + b * t * c.dim_k, "queries" + at);
            QVERIFY2(d.isEmpty(), qPrintable(d));
            d = difference(r.output.keys[bi], c.keys + b * t * c.dim_k, "keys" + at);
            QVERIFY2(d.isEmpty(), qPrintable(d));
            d = difference(r.output.values[bi], c.values + b * t * c.dim_v, "values" + at);
            QVERIFY2(d.isEmpty(), qPrintable(d));
            d = difference(r.output.context_vecs[bi], c.output + b * t * c.dim_v,
                           "context_vecs" + at);
            QVERIFY2(d.isEmpty(), qPrintable(d));
            QCOMPARE(r.output.heads[bi].size(), std::size_t(heads));
            for (int h = 0; h < heads; ++h) {
                const attn::AttentionResult& head = r.output.heads[bi][static_cast<std::size_t>(h)];
                const std::ptrdiff_t offset = (b * heads + h) * t * t;
                const QString where = QStringLiteral("[%1][%2]").arg(b).arg(h);
                d = difference(head.scores, c.scores + offset, "attn_scores" + where);
                QVERIFY2(d.isEmpty(), qPrintable(d));
                d = difference(head.weights, c.weights + offset, "attn_weights" + where);
                QVERIFY2(d.isEmpty(), qPrintable(d));
                // Inference, no mask: what multiplied the values is the softmax itself.
                QCOMPARE(head.dropped, head.weights);
            }
        }
    }

    // d_in is the default of both widths (the seed gives no sizes); two heads when 2 divides
    // both, otherwise one.
    void defaults() {
        attn::ModuleConfig config;
        config.module = ModuleKind::SelfAttentionKV;
        attn::RunResult r = attn::run_module(config, attn::tutorial_inputs());
        QCOMPARE(r.config.dim_k, Eigen::Index{3});
        QCOMPARE(r.config.dim_v, Eigen::Index{3});
        QCOMPARE(r.config.num_heads, Eigen::Index{1});
        config.module = ModuleKind::MultiHeadSelfAttentionKV;
        r = attn::run_module(config, attn::tutorial_inputs());
        QCOMPARE(r.config.num_heads, Eigen::Index{1});
        config.dim_k = 4;
        config.dim_v = 6;
        r = attn::run_module(config, attn::tutorial_inputs());
        QCOMPARE(r.config.num_heads, Eigen::Index{2});
        QCOMPARE(r.output.context_vecs.front().cols(), Eigen::Index{6});
    }

    void refusedSettings_data() {
        QTest::addColumn<attn::ModuleConfig>("config");
        QTest::addColumn<QString>("message");
        QTest::newRow("heads do not divide dim_k")
            << runtest::with(ModuleKind::MultiHeadSelfAttentionKV,
                             [](attn::ModuleConfig& c) {
                                 c.dim_k = 5;
                                 c.dim_v = 4;
                                 c.num_heads = 2;
                             })
            << "dim_k = 5 is not divisible by num_heads = 2";
        QTest::newRow("heads do not divide dim_v")
            << runtest::with(ModuleKind::MultiHeadSelfAttentionKV,
                             [](attn::ModuleConfig& c) {
                                 c.dim_k = 4;
                                 c.dim_v = 6;
                                 c.num_heads = 4;
                             })
            << "dim_v = 6 is not divisible by num_heads = 4";
        QTest::newRow("dim_k on causal-attention")
            << runtest::with(ModuleKind::CausalAttention,
                             [](attn::ModuleConfig& c) { c.dim_k = 4; })
            << "dim_k = 4 does not apply to causal-attention";
        QTest::newRow("dim_v on gpt2-attention")
            << runtest::with(ModuleKind::Gpt2Attention, [](attn::ModuleConfig& c) { c.dim_v = 4; })
            << "dim_v = 4 does not apply to gpt2-attention";
        QTest::newRow("d_out on self-attention-kv")
            << runtest::with(ModuleKind::SelfAttentionKV,
                             [](attn::ModuleConfig& c) { c.d_out = 2; })
            << "d_out = 2 does not apply to self-attention-kv";
        QTest::newRow("num_heads on self-attention-kv")
            << runtest::with(ModuleKind::SelfAttentionKV,
                             [](attn::ModuleConfig& c) { c.num_heads = 2; })
            << "self-attention-kv has a single head";
        QTest::newRow("dropout") << runtest::with(ModuleKind::MultiHeadSelfAttentionKV,
                                                  [](attn::ModuleConfig& c) { c.dropout = 0.5f; })
                                 << "has no dropout layer";
        QTest::newRow("qkv_bias") << runtest::with(ModuleKind::SelfAttentionKV,
                                                   [](attn::ModuleConfig& c) { c.qkv_bias = true; })
                                  << "bias=False";
        QTest::newRow("causal") << runtest::with(ModuleKind::SelfAttentionKV,
                                                 [](attn::ModuleConfig& c) { c.causal = true; })
                                << "causal = on does not apply";
        QTest::newRow("no scale") << runtest::with(ModuleKind::MultiHeadSelfAttentionKV,
                                                   [](attn::ModuleConfig& c) { c.scale = false; })
                                  << "scale = off does not apply";
    }

    void refusedSettings() {
        QFETCH(attn::ModuleConfig, config);
        QFETCH(QString, message);
        const QString error = runtest::errorOf(config, attn::tutorial_inputs());
        QVERIFY2(error.contains(message), qPrintable(error));
    }
};

QTEST_APPLESS_MAIN(TestSeed003)
#include "test_seed003.moc"
