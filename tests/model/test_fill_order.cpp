// Where each module puts a finite mask fill, and NaN rows through dropout, against the seeds' own
// module code run in PyTorch (tests/reference/fill_dropout_reference.py). Seed 002's modules fill
// the raw scores and divide by sqrt(d_k) afterwards; BERT and GPT-2 divide first and fill after.
// The references' inputs put a row's scores between the fill and fill · sqrt(d_k), where the two
// orders give different weights.
#include <QTest>
#include <cmath>
#include <string>

#include "../reference/fill_dropout_reference.h"
#include "model/runner.h"

namespace ref = fill_dropout_reference;

namespace {

// Equal within 1e-6, relative to the tensor's largest magnitude: the inputs that separate the
// fill orders are scaled up to 1e6, and float32 sums of such terms round differently in PyTorch's
// and Eigen's summation order by about 1e-7 of the largest term. NaN equals NaN.
QString compare(const char* what, const std::vector<float>& expected,
                const std::vector<float>& actual) {
    double largest = 1.0;
    for (float v : expected)
        if (std::isfinite(v)) largest = std::max(largest, std::abs(static_cast<double>(v)));
    if (expected.size() != actual.size())
        return QStringLiteral("%1: %2 values, expected %3")
            .arg(QLatin1String(what))
            .arg(actual.size())
            .arg(expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const double e = static_cast<double>(expected[i]);
        const double a = static_cast<double>(actual[i]);
        if (std::isnan(e) || std::isnan(a)) {
            if (std::isnan(e) != std::isnan(a))
                return QStringLiteral("%1[%2]: %3, expected %4")
                    .arg(QLatin1String(what))
                    .arg(i)
                    .arg(a)
                    .arg(e);
            continue;
        }
        if (std::abs(a - e) > 1e-6 * largest)
            return QStringLiteral("%1[%2]: %3, expected %4")
                .arg(QLatin1String(what))
                .arg(i)
                .arg(a, 0, 'g', 9)
                .arg(e, 0, 'g', 9);
    }
    return {};
}

std::vector<float> flat(const attn::Matrix& m) {
    std::vector<float> out;
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j) out.push_back(m(i, j));
    return out;
}

}  // namespace

class TestFillOrder : public QObject {
    Q_OBJECT

private slots:
    void matchesPyTorch_data() {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < ref::cases().size(); ++i)
            QTest::newRow(ref::cases()[i].name) << static_cast<int>(i);
    }

    void matchesPyTorch() {
        QFETCH(int, index);
        const ref::Case& c = ref::cases()[static_cast<std::size_t>(index)];
        attn::ModuleConfig config;
        config.module = attn::module_kind_from_name(c.module);
        config.seed = c.seed;
        config.num_heads = c.num_heads;
        const std::string module = c.module;
        if (module == "multi-head-attention") config.d_out = 4;
        if (module == "self-attention-v2" || module == "bert-multi-head") config.causal = true;
        config.fill_value = c.fill;
        config.mask_convention = c.mask_convention == 1 ? attn::MaskConvention::FillWhereOne
                                                        : attn::MaskConvention::FillWhereZero;
        config.dropout = c.dropout;
        attn::Sequence inputs;
        inputs.embeddings = Eigen::Map<const attn::Matrix>(c.embeddings.data(), 6, 3);
        inputs.tokens = {"t1", "t2", "t3", "t4", "t5", "t6"};

        const attn::RunResult run = attn::run_module(config, inputs);
        QCOMPARE(run.output.context_vecs.size(), std::size_t{1});
        QCOMPARE(run.output.heads[0].size(), static_cast<std::size_t>(c.num_heads));
        std::vector<float> weights;
        std::vector<float> dropped;
        for (const attn::AttentionResult& head : run.output.heads[0]) {
            const std::vector<float> w = flat(head.weights);
            const std::vector<float> d = flat(head.dropped);
            weights.insert(weights.end(), w.begin(), w.end());
            dropped.insert(dropped.end(), d.begin(), d.end());
        }
        QString error = compare("attn_weights", c.attn_weights, weights);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        error = compare("context_vecs", c.context_vecs, flat(run.output.context_vecs[0]));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        if (!c.attn_weights_after_dropout.empty()) {
            error = compare("attn_weights_after_dropout", c.attn_weights_after_dropout, dropped);
            QVERIFY2(error.isEmpty(), qPrintable(error));
        }
    }

    // The order is recorded with the result, so views and texts can say which one a module uses.
    void eachModuleRecordsItsOrder_data() {
        QTest::addColumn<QString>("module");
        QTest::addColumn<bool>("fillFirst");
        QTest::newRow("self-attention-v2") << "self-attention-v2" << true;
        QTest::newRow("causal-attention") << "causal-attention" << true;
        QTest::newRow("multi-head-wrapper") << "multi-head-wrapper" << true;
        QTest::newRow("multi-head-attention") << "multi-head-attention" << true;
        QTest::newRow("bert-multi-head") << "bert-multi-head" << false;
        QTest::newRow("gpt2-attention") << "gpt2-attention" << false;
        QTest::newRow("cross-attention") << "cross-attention" << false;
    }

    void eachModuleRecordsItsOrder() {
        QFETCH(QString, module);
        QFETCH(bool, fillFirst);
        attn::ModuleConfig config;
        config.module = attn::module_kind_from_name(module.toStdString());
        config.causal = true;
        const attn::RunResult run = attn::run_module(config, attn::tutorial_inputs());
        for (const attn::AttentionResult& head : run.output.heads[0])
            QCOMPARE(head.fill_before_scale, fillFirst);
    }
};

QTEST_APPLESS_MAIN(TestFillOrder)
#include "test_fill_order.moc"
