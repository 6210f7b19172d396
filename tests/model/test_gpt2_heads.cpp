// gpt2-attention's head_mask and prune_heads (seed 001) through run_module, compared with the
// seed's own Attention in PyTorch (tests/reference/gpt2_heads_reference.py prints the header):
// the pruned parameters bit for bit, the attention weights (as output_attentions returns them:
// after dropout and head_mask) and the output within 1e-6. Also the settings' checks.
#include <QString>
#include <QStringList>
#include <QTest>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/runner.h"
#include "tests/model/runner_test_helpers.h"
#include "tests/reference/gpt2_heads_reference.h"

using attn::Matrix;
using attn::ModuleKind;
namespace ref = gpt2_heads_reference;

namespace {

constexpr double kTolerance = 1e-6;

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

// "" when got has expected's size and every float has the same bits.
QString bitDifference(const Matrix& got, const std::vector<float>& expected, const char* what) {
    if (static_cast<std::size_t>(got.size()) != expected.size()) {
        return QStringLiteral("%1 has %2 values, PyTorch %3")
            .arg(what)
            .arg(got.size())
            .arg(expected.size());
    }
    for (Eigen::Index i = 0; i < got.size(); ++i) {
        const std::size_t si = static_cast<std::size_t>(i);
        if (std::bit_cast<std::uint32_t>(got.data()[i]) !=
            std::bit_cast<std::uint32_t>(expected[si])) {
            return QStringLiteral("%1 value %2: got %3, PyTorch %4")
                .arg(what)
                .arg(i)
                .arg(static_cast<double>(got.data()[i]), 0, 'g', 9)
                .arg(static_cast<double>(expected[si]), 0, 'g', 9);
        }
    }
    return {};
}

attn::ModuleConfig configOf(const ref::Case& c) {
    attn::ModuleConfig config;
    config.module = ModuleKind::Gpt2Attention;
    config.seed = c.seed;
    config.num_heads = c.n_head;
    config.batch = c.batch;
    config.dropout = c.attn_pdrop;
    config.head_mask = c.head_mask;
    config.prune_heads.assign(c.prune.begin(), c.prune.end());
    return config;
}

attn::Sequence inputsOf(const ref::Case& c) {
    attn::Sequence s;
    s.embeddings = Eigen::Map<const Matrix>(c.input.data(), c.tokens, c.nx);
    for (int t = 0; t < c.tokens; ++t) {
        s.tokens.push_back("t" + std::to_string(t + 1));
    }
    return s;
}

QString listText(const auto& values) {
    QStringList items;
    for (const auto v : values) {
        items << QString::number(static_cast<double>(v));
    }
    return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
}

}  // namespace

class TestGpt2Heads : public QObject {
    Q_OBJECT

private slots:
    void matchesTorch_data() {
        QTest::addColumn<int>("index");
        const std::vector<ref::Case>& cases = ref::cases();
        for (std::size_t i = 0; i < cases.size(); ++i) {
            const ref::Case& c = cases[i];
            QTest::addRow("nx %d, heads %d, seed %u, batch %d, p %g, mask %s, prune %s", c.nx,
                          c.n_head, c.seed, c.batch, static_cast<double>(c.attn_pdrop),
                          qPrintable(listText(c.head_mask)), qPrintable(listText(c.prune)))
                << static_cast<int>(i);
        }
    }

    void matchesTorch() {
        QFETCH(int, index);
        const ref::Case& c = ref::cases()[static_cast<std::size_t>(index)];
        const attn::RunResult r = attn::run_module(configOf(c), inputsOf(c));
        QCOMPARE(r.config.num_heads, Eigen::Index{c.n_head});  // the unpruned count
        QCOMPARE(r.training, c.attn_pdrop > 0.0f);
        const int heads = c.n_head - static_cast<int>(c.prune.size());
        const Eigen::Index width = c.nx / c.n_head * heads;

        // The pruned parameters: the kept columns and rows of the same normal_ draws.
        QCOMPARE(r.weights.size(), std::size_t{4});
        const char* names[] = {"c_attn.weight", "c_attn.bias", "c_proj.weight", "c_proj.bias"};
        const std::vector<float>* expected[] = {&c.c_attn_weight, &c.c_attn_bias, &c.c_proj_weight,
                                                &c.c_proj_bias};
        for (int i = 0; i < 4; ++i) {
            const attn::NamedMatrix* w = runtest::findWeight(r, names[i]);
            if (w == nullptr) QFAIL(names[i]);
            const QString d = bitDifference(w->value, *expected[i], names[i]);
            QVERIFY2(d.isEmpty(), qPrintable(d));
        }
        QCOMPARE(runtest::findWeight(r, "c_attn.weight")->value.cols(), 3 * width);
        QCOMPARE(runtest::findWeight(r, "c_proj.weight")->value.rows(), width);

        const Eigen::Index t = c.tokens;
        QCOMPARE(r.output.heads.size(), std::size_t(c.batch));
        for (int b = 0; b < c.batch; ++b) {
            const auto bi = static_cast<std::size_t>(b);
            QString d = difference(r.output.context_vecs[bi], c.output.data() + b * t * c.nx,
                                   QStringLiteral("context_vecs[%1]").arg(b));
            QVERIFY2(d.isEmpty(), qPrintable(d));
            QCOMPARE(r.output.heads[bi].size(), std::size_t(heads));
            for (int h = 0; h < heads; ++h) {
                const attn::AttentionResult& head = r.output.heads[bi][static_cast<std::size_t>(h)];
                d = difference(head.dropped, c.weights.data() + (b * heads + h) * t * t,
                               QStringLiteral("attn_weights[%1][%2]").arg(b).arg(h));
                QVERIFY2(d.isEmpty(), qPrintable(d));
            }
        }

        // The fused projections read the pruned width: the query columns of the kept heads.
        const attn::FusedProjections p = attn::fused_projections(r);
        QCOMPARE(p.query.rows(), Eigen::Index{c.nx});
        QCOMPARE(p.query.cols(), width);
        QCOMPARE(p.head_dim, Eigen::Index{c.nx / c.n_head});
        QCOMPARE(p.out_proj.rows(), width);
    }

    // No head_mask and no pruning is the module as before; a mask of ones changes nothing.
    void onesMaskIsNoMask() {
        attn::ModuleConfig config;
        config.module = ModuleKind::Gpt2Attention;
        const attn::Sequence inputs = attn::random_sequence(5, 4, 3);
        const attn::RunResult plain = attn::run_module(config, inputs);
        config.head_mask = {1.0f, 1.0f};
        const attn::RunResult ones = attn::run_module(config, inputs);
        QCOMPARE(ones.output.context_vecs.front(), plain.output.context_vecs.front());
    }

    // A run's weights (pruned) given back with the same prune_heads reproduce the run, as do the
    // unpruned weights they came from.
    void prunedWeightsReload() {
        attn::ModuleConfig config;
        config.module = ModuleKind::Gpt2Attention;
        config.num_heads = 4;
        config.prune_heads = {1, 3};
        config.head_mask = {0.5f, 1.0f};
        const attn::Sequence inputs = attn::random_sequence(5, 8, 2);
        const attn::RunResult first = attn::run_module(config, inputs);
        config.weights = first.weights;
        config.seed = 99;  // different draws: only the given weights matter
        const attn::RunResult again = attn::run_module(config, inputs);
        QCOMPARE(again.output.context_vecs.front(), first.output.context_vecs.front());
        QCOMPARE(again.weights.size(), first.weights.size());
        for (std::size_t i = 0; i < first.weights.size(); ++i) {
            QCOMPARE(again.weights[i].value, first.weights[i].value);
        }
        config.weights[0].value = Matrix::Zero(8, 5);  // neither shape
        const QString error = runtest::errorOf(config, inputs);
        QVERIFY2(error.contains("is (8, 5) but gpt2-attention needs (8, 24)"), qPrintable(error));
    }

    void refusedSettings_data() {
        QTest::addColumn<attn::ModuleConfig>("config");
        QTest::addColumn<QString>("message");
        const auto gpt2 = [](std::vector<float> mask, std::vector<Eigen::Index> prune) {
            return runtest::with(ModuleKind::Gpt2Attention, [&](attn::ModuleConfig& c) {
                c.num_heads = 4;
                c.head_mask = mask;
                c.prune_heads = prune;
            });
        };
        QTest::newRow("mask too short") << gpt2({1.0f, 0.0f}, {})
                                        << "head_mask has 2 values but "
                                           "it needs 4, one per head";
        QTest::newRow("mask after pruning")
            << gpt2({1.0f, 0.0f, 1.0f, 1.0f}, {1}) << "it needs 3, one per head left after pruning";
        QTest::newRow("mask above 1") << gpt2({1.0f, 2.0f, 1.0f, 1.0f}, {})
                                      << "head_mask value 2 is 2: give a factor in [0, 1]";
        QTest::newRow("mask negative")
            << gpt2({1.0f, 1.0f, -0.5f, 1.0f}, {}) << "head_mask value 3 is -0.5";
        QTest::newRow("mask NaN") << gpt2({1.0f, 1.0f, 1.0f, std::nanf("")}, {})
                                  << "head_mask value 4 is nan";
        QTest::newRow("prune out of range")
            << gpt2({}, {4}) << "prune_heads: head 4 does not exist; gpt2-attention has heads 0..3";
        QTest::newRow("prune negative") << gpt2({}, {-1}) << "prune_heads: head -1 does not exist";
        QTest::newRow("prune twice") << gpt2({}, {2, 2}) << "head 2 is given twice";
        QTest::newRow("prune all")
            << gpt2({}, {0, 1, 2, 3}) << "would remove all 4 heads: keep at least one";
        QTest::newRow("head_mask on multi-head-attention")
            << runtest::with(ModuleKind::MultiHeadAttention,
                             [](attn::ModuleConfig& c) {
                                 c.head_mask = {1.0f, 0.0f};
                             })
            << "head_mask does not apply to multi-head-attention: only gpt2-attention has "
               "head_mask";
        QTest::newRow("prune_heads on bert-multi-head")
            << runtest::with(ModuleKind::BertMultiHead,
                             [](attn::ModuleConfig& c) { c.prune_heads = {0}; })
            << "prune_heads does not apply to bert-multi-head";
    }

    void refusedSettings() {
        QFETCH(attn::ModuleConfig, config);
        QFETCH(QString, message);
        const QString error = runtest::errorOf(config, attn::random_sequence(5, 8, 1));
        QVERIFY2(error.contains(message), qPrintable(error));
    }
};

QTEST_APPLESS_MAIN(TestGpt2Heads)
#include "test_gpt2_heads.moc"
