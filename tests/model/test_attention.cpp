// scaled_dot_product_attention and the head split of model/ops.h against the naive loop reference
// (tests/model/reference_attention.h) over a sweep of shapes, masks, scaling and dropout, and its
// edge sizes.
#include <QString>
#include <QTest>
#include <cmath>
#include <limits>

#include "model/ops.h"
#include "model/rng.h"
#include "model/tensor.h"
#include "reference_attention.h"

using attn::AttentionOptions;
using attn::AttentionResult;
using attn::BoolMatrix;
using attn::Matrix;
using attn::RowVector;
using attn::TorchGenerator;

Q_DECLARE_METATYPE(AttentionOptions)

namespace {

constexpr double kTol = attn::reference::kReferenceTolerance;

// Reproducible inputs in [-2, 2]: wide enough that softmax is far from uniform.
Matrix randomMatrix(TorchGenerator& gen, Eigen::Index rows, Eigen::Index cols) {
    return gen.uniform(rows, cols, -2.0, 2.0);
}

// Compares every intermediate of the engine with the reference; "" when all are within kTol.
QString compareWithReference(const AttentionResult& r,
                             const attn::reference::ReferenceResult& ref) {
    using attn::reference::max_relative_error;
    const struct {
        const char* name;
        const Matrix& actual;
        const attn::reference::Grid& expected;
    } parts[] = {
        {"scores", r.scores, ref.scores},    {"scaled", r.scaled, ref.scaled},
        {"masked", r.masked, ref.masked},    {"weights", r.weights, ref.weights},
        {"dropped", r.dropped, ref.dropped}, {"context", r.context, ref.context},
    };
    QString out;
    for (const auto& part : parts) {
        const double err = max_relative_error(part.actual, part.expected);
        if (!(err <= kTol)) {
            out += QStringLiteral("%1: max relative error %2; ")
                       .arg(QString::fromUtf8(part.name))
                       .arg(err);
        }
    }
    return out;
}

attn::reference::ReferenceOptions referenceOptionsFor(const AttentionOptions& o,
                                                      const AttentionResult& r) {
    attn::reference::ReferenceOptions ref;
    ref.scale = o.scale;
    ref.scale_dim = o.scale_dim ? static_cast<double>(*o.scale_dim) : 0.0;
    ref.blocked = o.blocked ? &*o.blocked : nullptr;
    ref.fill_value = static_cast<double>(o.fill_value);
    ref.additive_mask = o.additive_mask ? &*o.additive_mask : nullptr;
    if (o.training && o.dropout_p > 0.0f) {
        ref.kept = &r.kept;  // the pattern is random; the reference applies the same one
        ref.dropout_p = static_cast<double>(o.dropout_p);
    }
    ref.head_mask = o.head_mask ? static_cast<double>(*o.head_mask) : 1.0;
    return ref;
}

}  // namespace

class TestAttention : public QObject {
    Q_OBJECT

private slots:
    void attentionMatchesReference_data();
    void attentionMatchesReference();
    void attentionVariantsMatchReference_data();
    void attentionVariantsMatchReference();
    void attentionCausalUpperTriangleIsZero_data();
    void attentionCausalUpperTriangleIsZero();
    void attentionEdgeSizes();
    void attentionFullyMaskedRow_data();
    void attentionFullyMaskedRow();
    void attentionDropoutTraining();
    void fillBeforeScaleDividesTheFill();
    void fullyMaskedRowStaysNaNThroughDropout_data();
    void fullyMaskedRowStaysNaNThroughDropout();
    void splitMergeRoundTrip_data();
    void splitMergeRoundTrip();
};

// --- attention -------------------------------------------------------------------------------

void TestAttention::attentionMatchesReference_data() {
    QTest::addColumn<Eigen::Index>("T");
    QTest::addColumn<bool>("causal");
    for (Eigen::Index T = 1; T <= 9; ++T) {
        for (const bool causal : {false, true}) {
            const QByteArray name =
                QByteArrayLiteral("T=") + QByteArray::number(T) + (causal ? " causal" : " full");
            QTest::newRow(name.constData()) << T << causal;
        }
    }
}

// The sweep: T = 1..9, d_k = 1..5, d_v = 1..4, causal on and off, every intermediate.
void TestAttention::attentionMatchesReference() {
    QFETCH(Eigen::Index, T);
    QFETCH(bool, causal);
    for (Eigen::Index d_k = 1; d_k <= 5; ++d_k) {
        for (Eigen::Index d_v = 1; d_v <= 4; ++d_v) {
            TorchGenerator gen(static_cast<std::uint64_t>(T * 100 + d_k * 10 + d_v));
            const Matrix queries = randomMatrix(gen, T, d_k);
            const Matrix keys = randomMatrix(gen, T, d_k);
            const Matrix values = randomMatrix(gen, T, d_v);
            AttentionOptions options;
            if (causal) {
                options.blocked = attn::causal_mask(T, T);
            }
            const AttentionResult r =
                attn::scaled_dot_product_attention(queries, keys, values, options);
            const attn::reference::ReferenceResult ref =
                attn::reference::attention(queries, keys, values, referenceOptionsFor(options, r));
            const QString diff = compareWithReference(r, ref);
            const QString where = QStringLiteral("d_k=%1 d_v=%2: ").arg(d_k).arg(d_v);
            QVERIFY2(diff.isEmpty(), qPrintable(where + diff));
            QCOMPARE(r.scale_divisor, static_cast<float>(std::sqrt(static_cast<double>(d_k))));
            QVERIFY(r.blocked ==
                    (causal ? attn::reference::causal(T, T) : BoolMatrix::Constant(T, T, false)));
            QVERIFY(r.kept.rows() == T && r.kept.cols() == T && r.kept.all());
            QVERIFY(r.dropped == r.weights);
            QCOMPARE(r.fill_value, attn::kNegInf);
        }
    }
}

void TestAttention::attentionVariantsMatchReference_data() {
    QTest::addColumn<Eigen::Index>("t_q");
    QTest::addColumn<Eigen::Index>("t_k");
    QTest::addColumn<Eigen::Index>("d_k");
    QTest::addColumn<Eigen::Index>("d_v");
    QTest::addColumn<AttentionOptions>("options");

    const auto row = [](const char* name, Eigen::Index t_q, Eigen::Index t_k, Eigen::Index d_k,
                        Eigen::Index d_v, const AttentionOptions& o) {
        QTest::newRow(name) << t_q << t_k << d_k << d_v << o;
    };
    row("cross-attention T_q=6 T_k=4", 6, 4, 3, 2, {});
    {
        AttentionOptions o;
        o.blocked = attn::causal_mask(2, 6);
        row("decode causal T_q=2 T_k=6", 2, 6, 4, 3, o);
    }
    {
        AttentionOptions o;
        o.blocked = attn::padding_mask(5, 5, 3);
        o.fill_value = -1e9f;
        row("BERT padding, fill -1e9", 5, 5, 4, 4, o);
    }
    {
        AttentionOptions o;
        o.blocked = attn::causal_mask(5, 5);
        o.fill_value = -1e4f;
        RowVector keep(5);
        keep << 1.0f, 1.0f, 1.0f, 0.0f, 1.0f;
        o.additive_mask = attn::additive_mask_from_keep(keep, 5);
        row("GPT-2 causal -1e4 + attention_mask", 5, 5, 2, 2, o);
    }
    {
        AttentionOptions o;
        o.scale = false;
        row("no scaling", 4, 4, 3, 3, o);
    }
    {
        AttentionOptions o;
        o.scale_dim = 8.0f;
        row("scale_dim 8 (GPT-2 divides by v width)", 4, 4, 2, 8, o);
    }
    {
        AttentionOptions o;
        o.head_mask = 0.5f;
        row("head_mask 0.5", 3, 3, 2, 2, o);
    }
    {
        AttentionOptions o;
        o.head_mask = 0.0f;
        o.blocked = attn::causal_mask(3, 3);
        row("head_mask 0 silences the head", 3, 3, 2, 2, o);
    }
    {
        AttentionOptions o;
        o.blocked = attn::causal_mask(6, 6);
        o.training = true;
        o.dropout_p = 0.5f;
        row("causal + dropout 0.5 (training)", 6, 6, 2, 2, o);
    }
    {
        AttentionOptions o;
        o.training = false;
        o.dropout_p = 0.5f;
        row("dropout 0.5 in eval mode does nothing", 4, 4, 2, 2, o);
    }
}

void TestAttention::attentionVariantsMatchReference() {
    QFETCH(Eigen::Index, t_q);
    QFETCH(Eigen::Index, t_k);
    QFETCH(Eigen::Index, d_k);
    QFETCH(Eigen::Index, d_v);
    QFETCH(AttentionOptions, options);
    TorchGenerator gen(31);
    const Matrix queries = randomMatrix(gen, t_q, d_k);
    const Matrix keys = randomMatrix(gen, t_k, d_k);
    const Matrix values = randomMatrix(gen, t_k, d_v);
    const AttentionResult r =
        attn::scaled_dot_product_attention(queries, keys, values, options, &gen);
    const attn::reference::ReferenceResult ref =
        attn::reference::attention(queries, keys, values, referenceOptionsFor(options, r));
    const QString diff = compareWithReference(r, ref);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    QCOMPARE(r.fill_value, options.fill_value);
    if (options.blocked) {
        QVERIFY(r.blocked == *options.blocked);
    }
    if (!(options.training && options.dropout_p > 0.0f)) {
        QVERIFY(r.kept.all());
    }
    if (!options.scale) {
        QVERIFY(r.scaled == r.scores);
        QCOMPARE(r.scale_divisor, 1.0f);
    }
}

void TestAttention::attentionCausalUpperTriangleIsZero_data() {
    QTest::addColumn<Eigen::Index>("T");
    for (Eigen::Index T = 1; T <= 9; ++T) {
        QTest::newRow(qPrintable(QStringLiteral("causal T=%1").arg(T))) << T;
    }
}

void TestAttention::attentionCausalUpperTriangleIsZero() {
    QFETCH(Eigen::Index, T);
    TorchGenerator gen(static_cast<std::uint64_t>(T));
    const Matrix x = randomMatrix(gen, T, 3);
    AttentionOptions options;
    options.blocked = attn::causal_mask(T, T);
    options.training = true;
    options.dropout_p = 0.2f;
    const AttentionResult r = attn::scaled_dot_product_attention(x, x, x, options, &gen);
    for (Eigen::Index i = 0; i < T; ++i) {
        for (Eigen::Index j = i + 1; j < T; ++j) {
            QVERIFY(r.masked(i, j) == attn::kNegInf);
            QVERIFY(r.weights(i, j) == 0.0f);  // exactly 0.0f, not merely small
            QVERIFY(r.dropped(i, j) == 0.0f);
        }
        QVERIFY(std::abs(static_cast<double>(r.weights.row(i).sum()) - 1.0) <= 1e-6);
    }
    QVERIFY(r.weights(0, 0) == 1.0f);  // the first token can only attend to itself
}

void TestAttention::attentionEdgeSizes() {
    // T = 1: the only weight is 1 and the context is the value itself.
    Matrix q(1, 3);
    q << 0.3f, -0.7f, 1.1f;
    Matrix k(1, 3);
    k << -0.2f, 0.9f, 0.4f;
    Matrix v(1, 2);
    v << 0.55f, -1.25f;
    const AttentionResult one = attn::scaled_dot_product_attention(q, k, v, {});
    QVERIFY(one.weights.rows() == 1 && one.weights.cols() == 1 && one.weights(0, 0) == 1.0f);
    QVERIFY(one.context == v);

    // d_k = 1: sqrt(1) = 1, so scaling changes nothing.
    Matrix q1(3, 1);
    q1 << 1.0f, -2.0f, 0.5f;
    Matrix k1(2, 1);
    k1 << 3.0f, -1.0f;
    Matrix v1(2, 1);
    v1 << 10.0f, 20.0f;
    const AttentionResult r = attn::scaled_dot_product_attention(q1, k1, v1, {});
    QCOMPARE(r.scale_divisor, 1.0f);
    QVERIFY(r.scaled == r.scores);
    Matrix expected_scores(3, 2);
    expected_scores << 3.0f, -1.0f, -6.0f, 2.0f, 1.5f, -0.5f;
    QVERIFY(r.scores == expected_scores);
    QVERIFY(r.context.rows() == 3 && r.context.cols() == 1);
    // Row 0: weights softmax(3, -1); context = 10 w0 + 20 w1.
    const double w1 = 1.0 / (1.0 + std::exp(4.0));
    QVERIFY(std::abs(static_cast<double>(r.context(0, 0)) - (10.0 * (1.0 - w1) + 20.0 * w1)) <=
            1e-5);
}

void TestAttention::attentionFullyMaskedRow_data() {
    QTest::addColumn<float>("fill");
    QTest::addColumn<bool>("nan");
    QTest::newRow("fill -inf: NaN, as PyTorch") << attn::kNegInf << true;
    QTest::newRow("fill -1e9: uniform 1/T_k") << -1e9f << false;
    QTest::newRow("fill -1e4 (GPT-2): uniform 1/T_k") << -1e4f << false;
}

// A query whose every key is masked (e.g. a padding query): documented PyTorch behaviour.
void TestAttention::attentionFullyMaskedRow() {
    QFETCH(float, fill);
    QFETCH(bool, nan);
    const Eigen::Index t_k = 5;
    TorchGenerator gen(8);
    const Matrix x = randomMatrix(gen, t_k, 3);
    AttentionOptions options;
    options.blocked = BoolMatrix::Constant(t_k, t_k, false);
    options.blocked->row(2).setConstant(true);
    options.fill_value = fill;
    const AttentionResult r = attn::scaled_dot_product_attention(x, x, x, options);
    for (Eigen::Index j = 0; j < t_k; ++j) {
        if (nan) {
            QVERIFY(std::isnan(r.weights(2, j)));
        } else {
            QVERIFY(r.weights(2, j) == 1.0f / static_cast<float>(t_k));
        }
    }
    if (nan) {
        QVERIFY(r.context.row(2).array().isNaN().all());
    } else {
        // Uniform weights average the values.
        const RowVector mean = x.colwise().mean();
        QVERIFY((r.context.row(2) - mean).cwiseAbs().maxCoeff() <= 1e-6f);
    }
    // The other rows are untouched.
    QVERIFY(r.weights.row(1).allFinite());
    QVERIFY(r.context.row(3).allFinite());
}

void TestAttention::fillBeforeScaleDividesTheFill() {
    // Query 1 sees only key 1, whose score -12000 lies between the fill -1e4 and -1e4 · sqrt(2):
    // filling the raw scores (seed 002) lets the masked key win, filling the scaled ones (BERT,
    // GPT-2) keeps the real key.
    Matrix queries(1, 2);
    queries << 100.0f, 0.0f;
    Matrix keys(2, 2);
    keys << -120.0f, 0.0f,  //
        0.0f, 0.0f;
    const Matrix values = Matrix::Identity(2, 2);
    AttentionOptions options;
    options.blocked = BoolMatrix::Constant(1, 2, false);
    (*options.blocked)(0, 1) = true;
    options.fill_value = -1e4f;

    const AttentionResult scale_first =
        attn::scaled_dot_product_attention(queries, keys, values, options);
    QVERIFY(!scale_first.fill_before_scale);
    QCOMPARE(scale_first.masked(0, 1), -1e4f);
    QCOMPARE(scale_first.masked(0, 0), -12000.0f / std::sqrt(2.0f));
    QCOMPARE(scale_first.weights(0, 0), 1.0f);
    QCOMPARE(scale_first.weights(0, 1), 0.0f);

    options.fill_before_scale = true;
    const AttentionResult fill_first =
        attn::scaled_dot_product_attention(queries, keys, values, options);
    QVERIFY(fill_first.fill_before_scale);
    QCOMPARE(fill_first.masked(0, 1), -1e4f / std::sqrt(2.0f));
    QCOMPARE(fill_first.masked(0, 0), -12000.0f / std::sqrt(2.0f));
    QCOMPARE(fill_first.weights(0, 0), 0.0f);
    QCOMPARE(fill_first.weights(0, 1), 1.0f);

    // With -inf the order cannot matter.
    options.fill_value = attn::kNegInf;
    const AttentionResult inf_first =
        attn::scaled_dot_product_attention(queries, keys, values, options);
    QCOMPARE(inf_first.masked(0, 1), attn::kNegInf);
    QCOMPARE(inf_first.weights(0, 0), 1.0f);
}

void TestAttention::fullyMaskedRowStaysNaNThroughDropout_data() {
    QTest::addColumn<float>("p");
    QTest::addColumn<bool>("withGenerator");
    QTest::newRow("p = 0.5") << 0.5f << true;
    QTest::newRow("p = 1") << 1.0f << true;
    QTest::newRow("p = 1 without a generator") << 1.0f << false;
}

void TestAttention::fullyMaskedRowStaysNaNThroughDropout() {
    // PyTorch's dropout multiplies the weights by its mask: NaN · 0 is NaN, so a fully masked row
    // stays NaN whether its cells are kept or dropped.
    QFETCH(float, p);
    QFETCH(bool, withGenerator);
    const Eigen::Index t = 4;
    TorchGenerator gen(3);
    const Matrix x = randomMatrix(gen, t, 2);
    AttentionOptions options;
    options.blocked = BoolMatrix::Constant(t, t, false);
    options.blocked->row(1).setConstant(true);
    options.training = true;
    options.dropout_p = p;
    const AttentionResult r =
        attn::scaled_dot_product_attention(x, x, x, options, withGenerator ? &gen : nullptr);
    QVERIFY(r.weights.row(1).array().isNaN().all());
    QVERIFY(r.dropped.row(1).array().isNaN().all());
    QVERIFY(r.context.row(1).array().isNaN().all());
    for (Eigen::Index i : {Eigen::Index{0}, Eigen::Index{2}, Eigen::Index{3}}) {
        QVERIFY(r.dropped.row(i).allFinite());
        for (Eigen::Index j = 0; j < t; ++j) {
            const float expected = r.kept(i, j) ? r.weights(i, j) / (1.0f - p) : 0.0f;
            QCOMPARE(r.dropped(i, j), expected);
        }
    }
    if (p == 1.0f) QVERIFY(!r.kept.any());
}

void TestAttention::attentionDropoutTraining() {
    TorchGenerator gen(123);
    const Matrix x = randomMatrix(gen, 6, 4);
    AttentionOptions options;
    options.training = true;
    options.dropout_p = 0.5f;
    TorchGenerator twin = gen;
    const AttentionResult r = attn::scaled_dot_product_attention(x, x, x, options, &gen);
    // The same as applying dropout to the weights with the same generator state.
    BoolMatrix kept;
    QVERIFY(r.dropped == attn::dropout(r.weights, 0.5f, twin, &kept));
    QVERIFY(r.kept == kept);
    QVERIFY(!r.kept.all() && r.kept.any());
    QCOMPARE(gen.random(), twin.random());

    // p == 1 draws nothing, so it needs no generator: all weights dropped, context zero.
    options.dropout_p = 1.0f;
    const AttentionResult all = attn::scaled_dot_product_attention(x, x, x, options);
    QVERIFY(all.dropped == Matrix::Zero(6, 6));
    QVERIFY(!all.kept.any());
    QVERIFY(all.context == Matrix::Zero(6, 4));

    // Eval mode: dropout does nothing and draws nothing.
    options.training = false;
    options.dropout_p = 0.5f;
    TorchGenerator eval_twin = gen;
    const AttentionResult eval = attn::scaled_dot_product_attention(x, x, x, options, &gen);
    QVERIFY(eval.dropped == eval.weights);
    QCOMPARE(gen.random(), eval_twin.random());
}

// --- heads -----------------------------------------------------------------------------------

void TestAttention::splitMergeRoundTrip_data() {
    QTest::addColumn<Eigen::Index>("T");
    QTest::addColumn<Eigen::Index>("width");
    QTest::addColumn<Eigen::Index>("num_heads");
    QTest::newRow("T=1 width 1, 1 head") << Eigen::Index{1} << Eigen::Index{1} << Eigen::Index{1};
    QTest::newRow("T=6 width 6, 1 head") << Eigen::Index{6} << Eigen::Index{6} << Eigen::Index{1};
    QTest::newRow("T=6 width 6, 2 heads") << Eigen::Index{6} << Eigen::Index{6} << Eigen::Index{2};
    QTest::newRow("T=6 width 6, 3 heads") << Eigen::Index{6} << Eigen::Index{6} << Eigen::Index{3};
    QTest::newRow("T=6 width 6, 6 heads") << Eigen::Index{6} << Eigen::Index{6} << Eigen::Index{6};
    QTest::newRow("T=4 width 12, 4 heads")
        << Eigen::Index{4} << Eigen::Index{12} << Eigen::Index{4};
}

void TestAttention::splitMergeRoundTrip() {
    QFETCH(Eigen::Index, T);
    QFETCH(Eigen::Index, width);
    QFETCH(Eigen::Index, num_heads);
    TorchGenerator gen(4);
    const Matrix x = randomMatrix(gen, T, width);
    const attn::Heads heads = attn::split_heads(x, num_heads);
    const Eigen::Index head_dim = width / num_heads;
    QCOMPARE(static_cast<Eigen::Index>(heads.size()), num_heads);
    for (Eigen::Index h = 0; h < num_heads; ++h) {
        const Matrix& head = heads[static_cast<std::size_t>(h)];
        QVERIFY(head.rows() == T && head.cols() == head_dim);
        // view(T, H, hd).transpose: head h holds columns [h*hd, (h+1)*hd).
        for (Eigen::Index t = 0; t < T; ++t) {
            for (Eigen::Index c = 0; c < head_dim; ++c) {
                QVERIFY(head(t, c) == x(t, h * head_dim + c));
            }
        }
    }
    QVERIFY(attn::merge_heads(heads) == x);
}

QTEST_APPLESS_MAIN(TestAttention)
#include "test_attention.moc"
