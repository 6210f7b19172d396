// PyTorch 1.13's normal_ stream, value for value: torch.empty(n).normal_(mean, std) on both of its
// paths (the scalar distribution below 16 elements, the vectorised kernel from 16 on), the cached
// second value of the scalar Box-Muller across calls and manual_seed, and GPT-2's Attention (seed
// 001), whose Conv1D weights are normal(0, 0.02), with the dropout masks drawn after them from the
// same generator. The references were printed by PyTorch itself
// (tests/reference/torch_normal_reference.py); CI has no PyTorch, so they live in a header.
#include <QString>
#include <QTest>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "model/examples.h"
#include "model/modules.h"
#include "model/rng.h"
#include "model/tensor.h"
#include "tests/reference/torch_normal_reference.h"

using attn::Matrix;
using attn::TorchGenerator;
namespace ref = attn::torch_reference;

namespace {

// Downstream values (softmax, matrix products) may round differently from PyTorch's kernels.
constexpr double kDownstreamTolerance = 1e-6;

// 9 significant digits and the exact bits, so a one-ulp difference shows.
QString describe(float v) {
    return QString::asprintf("%.9g (%a)", static_cast<double>(v), static_cast<double>(v));
}

// Generator values are bit-identical to PyTorch's: "" when they are, else the first difference.
QString bitDifference(const float* got, const float* expected, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        if (std::bit_cast<std::uint32_t>(got[i]) != std::bit_cast<std::uint32_t>(expected[i])) {
            return QStringLiteral("value %1: got %2, PyTorch %3")
                .arg(i)
                .arg(describe(got[i]), describe(expected[i]));
        }
    }
    return {};
}

QString bitDifference(const Matrix& got, const float* expected) {
    return bitDifference(got.data(), expected, static_cast<std::size_t>(got.size()));
}

// Same cells zero (the dropout mask, and the causal cells softmax sends to 0) and every value
// within kDownstreamTolerance: "" when so, else the first difference.
QString downstreamDifference(const Matrix& got, const float* expected) {
    for (Eigen::Index i = 0; i < got.size(); ++i) {
        const float g = got.data()[i];
        const float e = expected[i];
        if ((g == 0.0f) != (e == 0.0f)) {
            return QStringLiteral("cell %1: got %2, PyTorch %3 (dropout mask differs)")
                .arg(i)
                .arg(describe(g), describe(e));
        }
        if (!(std::abs(static_cast<double>(g) - static_cast<double>(e)) <= kDownstreamTolerance)) {
            return QStringLiteral("cell %1: got %2, PyTorch %3")
                .arg(i)
                .arg(describe(g), describe(e));
        }
    }
    return {};
}

Matrix rowMajor(const float* values, Eigen::Index rows, Eigen::Index cols) {
    return Eigen::Map<const Matrix>(values, rows, cols);
}

}  // namespace

class TestTorchNormal : public QObject {
    Q_OBJECT

private slots:
    void normalMatchesTorch_data();
    void normalMatchesTorch();
    void sequenceMatchesTorch_data();
    void sequenceMatchesTorch();
    void gpt2MatchesTorch_data();
    void gpt2MatchesTorch();
    void shapeDoesNotMatter();
    void negativeStdThrows_data();
    void negativeStdThrows();
};

// --- torch.empty(n).normal_(mean, std) ---------------------------------------------------------

void TestTorchNormal::normalMatchesTorch_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < std::size(ref::kNormalCases); ++i) {
        const ref::NormalCase& c = ref::kNormalCases[i];
        QTest::addRow("seed %llu, %d values, normal(%g, %g)",
                      static_cast<unsigned long long>(c.seed), c.size, c.mean, c.stddev)
            << static_cast<int>(i);
    }
}

void TestTorchNormal::normalMatchesTorch() {
    QFETCH(int, index);
    const ref::NormalCase& c = ref::kNormalCases[index];
    TorchGenerator gen(c.seed);
    const Matrix values = gen.normal(1, c.size, c.mean, c.stddev);
    const QString difference = bitDifference(values, c.values);
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
}

// --- several draws on one generator ------------------------------------------------------------

void TestTorchNormal::sequenceMatchesTorch_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < std::size(ref::kSequenceCases); ++i) {
        QTest::newRow(ref::kSequenceCases[i].name) << static_cast<int>(i);
    }
}

void TestTorchNormal::sequenceMatchesTorch() {
    QFETCH(int, index);
    const ref::SequenceCase& c = ref::kSequenceCases[index];
    TorchGenerator gen(c.seed);
    std::vector<float> got;
    for (std::size_t s = 0; s < c.num_steps; ++s) {
        const ref::SequenceStep& step = c.steps[s];
        Matrix values;
        switch (step.op) {
            case ref::Step::Normal:
                values = gen.normal(1, step.n, step.mean, step.stddev);
                break;
            case ref::Step::Rand:
                values = gen.rand(1, step.n);
                break;
            case ref::Step::ManualSeed:
                gen.manual_seed(static_cast<std::uint64_t>(step.n));
                break;
        }
        got.insert(got.end(), values.data(), values.data() + values.size());
    }
    QCOMPARE(got.size(), c.num_values);
    const QString difference = bitDifference(got.data(), c.values, got.size());
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
}

// --- GPT-2's Attention: parameters, then dropout from the same generator ----------------------

void TestTorchNormal::gpt2MatchesTorch_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < std::size(ref::kGpt2Cases); ++i) {
        const ref::Gpt2Case& c = ref::kGpt2Cases[i];
        QTest::addRow("nx %d, %d heads, seed %llu, batch %d", c.nx, c.n_head,
                      static_cast<unsigned long long>(c.seed), c.batch)
            << static_cast<int>(i);
    }
}

void TestTorchNormal::gpt2MatchesTorch() {
    QFETCH(int, index);
    const ref::Gpt2Case& c = ref::kGpt2Cases[index];
    const Eigen::Index nx = c.nx;
    const Eigen::Index tokens = c.tokens;
    // torch.manual_seed(seed); Attention(nx, n_ctx, config, scale=True)
    TorchGenerator gen(c.seed);
    const attn::Gpt2Attention m(nx, tokens, c.n_head, /*scale=*/true,
                                /*is_cross_attention=*/false, gen, c.attn_pdrop);
    QCOMPARE(m.c_attn.weight.rows(), nx);
    QCOMPARE(m.c_attn.weight.cols(), 3 * nx);
    QString difference = bitDifference(m.c_attn.weight, c.c_attn_weight);
    QVERIFY2(difference.isEmpty(), qPrintable("c_attn.weight " + difference));
    difference = bitDifference(m.c_proj.weight, c.c_proj_weight);
    QVERIFY2(difference.isEmpty(), qPrintable("c_proj.weight " + difference));

    const Matrix input = rowMajor(c.input, tokens, nx);
    if (nx == 3) {
        // The script's tutorial tokens are the app's, float for float.
        QCOMPARE(input, attn::tutorial_inputs().embeddings);
    }
    // m.train(); m(torch.stack([x] * batch), output_attentions=True)
    attn::Gpt2Attention::Input in;
    in.hidden_states = attn::Batch(static_cast<std::size_t>(c.batch), input);
    attn::ForwardOptions options;
    options.training = true;
    options.gen = &gen;
    const attn::Gpt2Attention::Output out = m.forward(in, options);

    const Eigen::Index cells = tokens * tokens;
    for (int b = 0; b < c.batch; ++b) {
        const auto bi = static_cast<std::size_t>(b);
        for (int h = 0; h < c.n_head; ++h) {
            const float* expected = c.weights + (b * c.n_head + h) * cells;
            difference = downstreamDifference(
                out.attn.heads[bi][static_cast<std::size_t>(h)].dropped, expected);
            QVERIFY2(difference.isEmpty(),
                     qPrintable(
                         QStringLiteral("batch %1 head %2 weights after dropout, ").arg(b).arg(h) +
                         difference));
        }
        difference = downstreamDifference(out.attn.context_vecs[bi], c.output + b * tokens * nx);
        QVERIFY2(difference.isEmpty(),
                 qPrintable(QStringLiteral("batch %1 output, ").arg(b) + difference));
    }
}

// normal_ sees the number of elements only: a (rows, cols) fill is the 1-d fill, row-major.
void TestTorchNormal::shapeDoesNotMatter() {
    for (const Eigen::Index n : {Eigen::Index{6}, Eigen::Index{40}}) {
        TorchGenerator flat(9);
        TorchGenerator shaped(9);
        const Matrix a = flat.normal(1, 2 * n, 0.0, 0.02);
        const Matrix b = shaped.normal(2, n, 0.0, 0.02);
        QVERIFY(bitDifference(b, a.data()).isEmpty());
        // Both generators are at the same point of the stream, cache included.
        QCOMPARE(flat.normal(1, 3, 0.0, 1.0), shaped.normal(1, 3, 0.0, 1.0));
    }
}

void TestTorchNormal::negativeStdThrows_data() {
    QTest::addColumn<double>("stddev");
    QTest::newRow("-0.02") << -0.02;
    QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN();
}

// normal_ refuses a negative std ("normal expects std >= 0.0") before drawing anything.
void TestTorchNormal::negativeStdThrows() {
    QFETCH(double, stddev);
    for (const Eigen::Index n : {Eigen::Index{3}, Eigen::Index{32}}) {
        TorchGenerator gen(4);
        QVERIFY_THROWS_EXCEPTION(attn::AttentionError, gen.normal(1, n, 0.0, stddev));
        TorchGenerator fresh(4);
        QCOMPARE(gen.random(), fresh.random());
    }
}

QTEST_APPLESS_MAIN(TestTorchNormal)
#include "test_torch_normal.moc"
