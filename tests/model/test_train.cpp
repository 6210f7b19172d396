// Training (model/train.h) against PyTorch (tests/reference/train_reference.py): init_gpt2's
// values bit for bit, every gradient of the first step, clipping, the AdamW update and the losses
// of 20 steps, with the MLP, attention-only and with clipping, and with heads of 8 and 16 over 19
// positions (the attention kernels' vector paths); a finite-difference check of the
// backward pass on a sample of every tensor; bad input; determinism; no allocation per step; and
// the parameters seen by model_forward (weights_view) giving train's own probabilities.
//
// Tolerance against torch: |ours − torch| <= 1e-4 · |torch| + a floor of 1e-4 × the largest
// |value| of the vector compared: both sides compute in float with different summation orders, and
// gradients near zero are differences of much larger terms.
#include <QString>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "model/ggml_types.h"
#include "model/rng.h"
#include "model/train.h"
#include "model/train_layers.h"
#include "model/transformer.h"
#include "tests/reference/train_reference.h"
#include "tests/support/model_test_weights.h"

using attn::Matrix;
using attn::ModelParameters;
using attn::TrainBatch;
using attn::TransformerSpec;

namespace {

namespace ref = train_reference;

TransformerSpec reference_spec(bool attn_only) {
    TransformerSpec s =
        attn::gpt2_spec(ref::kLayers, ref::kHeads, ref::kDModel, ref::kPositions, ref::kVocab);
    s.attn_only = attn_only;
    return s;
}

// A run's own shape: the base one, or heads of 8 and 16 over 19 positions.
TransformerSpec reference_spec(const ref::Run& r) {
    TransformerSpec s = attn::gpt2_spec(r.layers, r.heads, r.d_model, r.positions, ref::kVocab);
    s.attn_only = r.attn_only;
    return s;
}

TrainBatch reference_batch(const ref::Run& r, int step) {
    const auto i = static_cast<std::size_t>(step % ref::kBatches);
    return {r.batch, r.seq_len, r.inputs[i], r.targets[i]};
}

// The base shape's batches.
TrainBatch reference_batch(int step) { return reference_batch(ref::kRuns.front(), step); }

ModelParameters initial_parameters(const TransformerSpec& spec, std::uint64_t seed) {
    ModelParameters p = attn::make_parameters(spec);
    attn::TorchGenerator gen(seed);
    attn::init_gpt2(p, gen);
    return p;
}

// Compares element by element; names the first mismatch with its tensor.
bool close(const std::vector<float>& got, const std::vector<float>& want, const ModelParameters* p,
           const char* what, QString& message, double rel = 1e-4) {
    if (got.size() != want.size()) {
        message = QString("%1: %2 values, torch has %3").arg(what).arg(got.size()).arg(want.size());
        return false;
    }
    double largest = 0.0;
    for (float w : want) largest = std::max(largest, std::abs(static_cast<double>(w)));
    const double floor = 1e-4 * largest;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double g = got[i], w = want[i];
        if (std::abs(g - w) <= rel * std::abs(w) + floor) continue;
        QString name;
        if (p)
            for (const attn::ParameterTensor& t : p->tensors)
                if (i >= t.offset && i < t.offset + t.size())
                    name = QString::fromStdString(t.name()) + QString(" [%1]").arg(i - t.offset);
        message = QString("%1 %2 (value %3): ours %4, torch %5")
                      .arg(what, name)
                      .arg(i)
                      .arg(g, 0, 'g', 9)
                      .arg(w, 0, 'g', 9);
        return false;
    }
    return true;
}

QString error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const attn::AttentionError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

}  // namespace

class TestTrain : public QObject {
    Q_OBJECT

private slots:
    void matchesTorch_data();
    void matchesTorch();
    void adamwAndClippingMatchTorch();
    void gradientsMatchFiniteDifferences_data();
    void gradientsMatchFiniteDifferences();
    void badInputIsNamed();
    void sameSeedSameValues();
    void stepsAllocateNothing();
    void weightsViewGivesTrainsNumbers();
};

void TestTrain::matchesTorch_data() {
    QTest::addColumn<int>("run");
    for (std::size_t i = 0; i < ref::kRuns.size(); ++i)
        QTest::newRow(ref::kRuns[i].name) << static_cast<int>(i);
}

// init_gpt2, the first step's gradients (and clipped gradients), the values after its update,
// and the loss and gradient norm of every step.
void TestTrain::matchesTorch() {
    QFETCH(int, run);
    const ref::Run& r = ref::kRuns[static_cast<std::size_t>(run)];
    ModelParameters p = initial_parameters(reference_spec(r), ref::kSeed);
    // Same generator, same draws: the starting values are torch's bit for bit.
    QCOMPARE(p.values, r.initial);
    attn::AdamWOptions options;
    options.lr = ref::kLr;
    options.weight_decay = ref::kWeightDecay;
    attn::AdamWState state;
    attn::TrainScratch scratch;
    std::vector<float> grads;
    QString message;
    for (int step = 0; step < ref::kSteps; ++step) {
        const float loss = attn::forward_backward(p, reference_batch(r, step), grads, scratch);
        const float want_loss = r.losses[static_cast<std::size_t>(step)];
        QVERIFY2(std::abs(loss - want_loss) <= 1e-4f * want_loss,
                 qPrintable(
                     QString("step %1: loss %2, torch %3").arg(step + 1).arg(loss).arg(want_loss)));
        if (step == 0)
            QVERIFY2(close(grads, r.grads, &p, "gradient", message), qPrintable(message));
        const float norm = r.max_norm > 0.0f ? attn::clip_grad_norm(grads, r.max_norm) : [&] {
            double sum = 0.0;
            for (float g : grads) sum += static_cast<double>(g) * static_cast<double>(g);
            return static_cast<float>(std::sqrt(sum));
        }();
        const float want_norm = r.norms[static_cast<std::size_t>(step)];
        QVERIFY2(std::abs(norm - want_norm) <= 1e-4f * want_norm,
                 qPrintable(
                     QString("step %1: norm %2, torch %3").arg(step + 1).arg(norm).arg(want_norm)));
        if (step == 0 && r.max_norm > 0.0f)
            QVERIFY2(close(grads, r.clipped, &p, "clipped gradient", message), qPrintable(message));
        attn::adamw_step(p.values, grads, state, options);
        if (step == 0)
            QVERIFY2(close(p.values, r.after_first, &p, "after step 1", message),
                     qPrintable(message));
    }
    QCOMPARE(state.step, std::int64_t{ref::kSteps});
    // Training lowered the loss of each batch (the base shape's runs; the wider ones, at the same
    // learning rate on random tokens, are there for the attention's vector paths step by step).
    if (r.d_model == ref::kDModel) QVERIFY(r.losses.back() < r.losses[ref::kSteps - ref::kBatches]);
}

// adamw_step and clip_grad_norm alone, on torch's own gradients: the update and the clipping as
// torch computes them, whatever our backward gives.
void TestTrain::adamwAndClippingMatchTorch() {
    QString message;
    for (const ref::Run& r : ref::kRuns) {
        const ModelParameters p = attn::make_parameters(reference_spec(r));
        std::vector<float> values = r.initial, grads = r.grads;
        if (r.max_norm > 0.0f) {
            const float norm = attn::clip_grad_norm(grads, r.max_norm);
            QVERIFY(std::abs(norm - r.norms[0]) <= 1e-5f * r.norms[0]);
            QVERIFY(norm > r.max_norm);  // the reference clips
            QVERIFY2(close(grads, r.clipped, &p, "clipped", message, 1e-6), qPrintable(message));
        }
        attn::AdamWOptions options;
        options.lr = ref::kLr;
        options.weight_decay = ref::kWeightDecay;
        attn::AdamWState state;
        attn::adamw_step(values, grads, state, options);
        QVERIFY2(close(values, r.after_first, &p, "adamw", message, 1e-6), qPrintable(message));
    }
    // Below max_norm nothing changes, and the norm is returned.
    std::vector<float> small = {0.3f, -0.4f};
    QCOMPARE(attn::clip_grad_norm(small, 1.0f), 0.5f);
    QCOMPARE(small, (std::vector<float>{0.3f, -0.4f}));
    std::vector<float> big = {3.0f, 4.0f};
    QCOMPARE(attn::clip_grad_norm(big, 1.0f), 5.0f);
    QVERIFY(std::abs(std::hypot(big[0], big[1]) - 1.0f) < 1e-6f);
}

void TestTrain::gradientsMatchFiniteDifferences_data() {
    QTest::addColumn<bool>("attn_only");
    QTest::addColumn<int>("head_dim");
    QTest::addColumn<int>("seq_len");
    QTest::newRow("mlp") << false << 0 << 4;
    QTest::newRow("attn_only") << true << 0 << 4;
    // The attention's loops in chunks of 8 and 16 floats, over more than one chunk of 16 keys and
    // a last block of fewer than 4 query rows.
    QTest::newRow("head_dim 8, 19 positions") << true << 8 << 19;
    QTest::newRow("head_dim 16, 19 positions") << false << 16 << 19;
}

// Central differences of the float loss on values drawn large enough (std 0.3) that gradients are
// far above float's rounding of the loss: a backward that is wrong anywhere (a factor, a
// transpose, a missing path) is off by far more than the tolerance.
void TestTrain::gradientsMatchFiniteDifferences() {
    QFETCH(bool, attn_only);
    QFETCH(int, head_dim);
    QFETCH(int, seq_len);
    TransformerSpec spec = reference_spec(attn_only);
    if (head_dim > 0) {
        spec = attn::gpt2_spec(ref::kLayers, 2, 2 * head_dim, seq_len, ref::kVocab);
        spec.attn_only = attn_only;
    }
    ModelParameters p = attn::make_parameters(spec);
    attn::TorchGenerator gen(3);
    const Matrix noise = gen.normal(1, static_cast<Eigen::Index>(p.values.size()), 0.0, 0.3);
    for (std::size_t i = 0; i < p.values.size(); ++i)
        p.values[i] = noise(0, static_cast<Eigen::Index>(i));
    for (const attn::ParameterTensor& t : p.tensors)
        if (t.entry.layout == attn::TensorLayout::Vector &&
            t.name().find("weight") != std::string::npos)
            for (std::size_t i = 0; i < t.size(); ++i) p.data(t)[i] += 1.0f;  // LayerNorm gains
    TrainBatch batch{2, seq_len, {}, {}};
    const std::vector<int> tokens = {1, 5, 9, 2, 0, 10, 3, 3, 4};
    for (int i = 0; i < 2 * seq_len; ++i) {
        batch.inputs.push_back(tokens[static_cast<std::size_t>(i) % tokens.size()]);
        batch.targets.push_back(tokens[static_cast<std::size_t>(i + 1) % tokens.size()]);
    }
    attn::TrainScratch scratch;
    std::vector<float> grads;
    attn::forward_backward(p, batch, grads, scratch);
    constexpr float h = 1e-2f;
    int checked = 0, large = 0;
    for (const attn::ParameterTensor& t : p.tensors) {
        // Every third value and the last of each tensor.
        std::vector<std::size_t> sample;
        for (std::size_t i = 0; i + 1 < t.size(); i += 3) sample.push_back(i);
        sample.push_back(t.size() - 1);
        for (const std::size_t i : sample) {
            float& v = p.values[t.offset + i];
            const float saved = v;
            v = saved + h;
            const double up = attn::train_loss(p, batch, scratch);
            v = saved - h;
            const double down = attn::train_loss(p, batch, scratch);
            v = saved;
            const double fd = (up - down) / (2.0 * static_cast<double>(h));
            const double an = grads[t.offset + i];
            // Float rounding of the loss (~2e-7 over a step of 2e-2) and the h² term.
            QVERIFY2(std::abs(fd - an) <= 2e-3 + 2e-2 * std::abs(an),
                     qPrintable(QString("%1 [%2]: finite difference %3, backward %4")
                                    .arg(QString::fromStdString(t.name()))
                                    .arg(i)
                                    .arg(fd)
                                    .arg(an)));
            ++checked;
            if (std::abs(an) > 1e-2) ++large;
        }
    }
    QVERIFY(checked > 100);
    QVERIFY(large > checked / 3);  // not a check of zeros
}

void TestTrain::badInputIsNamed() {
    const ModelParameters p = initial_parameters(reference_spec(false), 1);
    attn::TrainScratch scratch;
    std::vector<float> grads;
    auto loss_error = [&](TrainBatch b) {
        return error_of([&] { attn::forward_backward(p, b, grads, scratch); });
    };
    TrainBatch ok = reference_batch(0);
    TrainBatch b = ok;
    b.inputs[7] = 11;
    QVERIFY2(loss_error(b).contains("input token 11 (sequence 2, position 3) is outside [0, 11)"),
             qPrintable(loss_error(b)));
    b = ok;
    b.targets[0] = -1;
    QVERIFY2(loss_error(b).contains("target token -1"), qPrintable(loss_error(b)));
    b = ok;
    b.inputs.pop_back();
    QVERIFY2(loss_error(b).contains("B · T = 3 · 5 = 15"), qPrintable(loss_error(b)));
    b = {1, 9, std::vector<int>(9, 1), std::vector<int>(9, 1)};
    QVERIFY2(loss_error(b).contains("seq_len = 9 is more than the model's 8 positions"),
             qPrintable(loss_error(b)));
    b = {0, 5, {}, {}};
    QVERIFY2(loss_error(b).contains("at least one sequence"), qPrintable(loss_error(b)));
    QVERIFY(error_of([&] { attn::train_loss(p, b, scratch); }).contains("at least one sequence"));
    QVERIFY(error_of([&] {
                attn::train_attentions(p, std::vector<int>(9, 1), scratch);
            }).contains("more than the model's 8 positions"));
    QVERIFY(error_of([&] { attn::train_attentions(p, {}, scratch); }).contains("empty"));
    // A family that is not GPT-2's layout.
    const QString llama = error_of([] { attn::make_parameters(attn::tiny_llama_spec()); });
    QVERIFY2(llama.contains("GPT-2's layout only") && llama.contains("llama"), qPrintable(llama));
    const QString untied = error_of([] { attn::make_parameters(attn::tiny_gpt2_spec(false)); });
    QVERIFY2(untied.contains("untied output head"), qPrintable(untied));
    // Quantized weights cannot be trained.
    attn::TransformerWeights w = attn::make_random_weights(attn::tiny_gpt2_spec(), 2);
    const std::vector<unsigned char> blocks(4096);
    attn::WeightView& qkv = w.layers[0][attn::TensorRole::QkvWeight];
    qkv.data = nullptr;
    qkv.blocks = blocks.data();
    qkv.type = attn::GgmlType::Q8_0;
    const QString quantized = error_of([&] { attn::parameters_from_weights(w); });
    QVERIFY2(quantized.contains("h.0.attn.c_attn.weight is stored quantized"),
             qPrintable(quantized));
    // Gradients that do not fit the values.
    attn::AdamWState state;
    std::vector<float> values(4, 1.0f);
    QVERIFY(error_of([&] {
                attn::adamw_step(values, std::vector<float>(3), state, {});
            }).contains("3 gradients for 4 parameters"));
}

void TestTrain::sameSeedSameValues() {
    auto train = [] {
        ModelParameters p = initial_parameters(reference_spec(false), 11);
        attn::AdamWState state;
        attn::TrainScratch scratch;
        std::vector<float> grads, losses;
        for (int step = 0; step < 5; ++step) {
            losses.push_back(attn::forward_backward(p, reference_batch(step), grads, scratch));
            attn::clip_grad_norm(grads, 1.0f);
            attn::adamw_step(p.values, grads, state, {});
        }
        losses.insert(losses.end(), p.values.begin(), p.values.end());
        return losses;
    };
    const std::vector<float> first = train();
    QCOMPARE(train(), first);
    // Another seed, other values.
    QVERIFY(initial_parameters(reference_spec(false), 12).values !=
            initial_parameters(reference_spec(false), 11).values);
}

// The activations are laid out once for the largest shape seen; later steps, and smaller shapes
// (a probe's attentions between steps), reuse the same memory.
void TestTrain::stepsAllocateNothing() {
    ModelParameters p = initial_parameters(reference_spec(false), 1);
    attn::TrainScratch scratch;
    std::vector<float> grads;
    attn::forward_backward(p, reference_batch(0), grads, scratch);
    const float* memory = scratch.acts->memory.data();
    const float* grad_memory = grads.data();
    for (int step = 1; step < 4; ++step) {
        attn::forward_backward(p, reference_batch(step), grads, scratch);
        attn::train_attentions(p, {1, 2, 3}, scratch);
    }
    QCOMPARE(scratch.acts->memory.data(), memory);
    QCOMPARE(grads.data(), grad_memory);
}

// model_forward on weights_view(params) gives the probabilities train_loss leaves in its
// activations and the attentions of train_attentions; parameters_from_weights gives the values
// back; weights_copy does not follow later changes.
void TestTrain::weightsViewGivesTrainsNumbers() {
    for (const bool attn_only : {false, true}) {
        ModelParameters p = initial_parameters(reference_spec(attn_only), 4);
        // Larger values than init's, so the probabilities differ from uniform.
        for (float& v : p.values) v *= 20.0f;
        const attn::TransformerWeights view = attn::weights_view(p);
        const std::vector<int> ids = {3, 1, 4, 1, 5, 9, 2};
        attn::ModelForwardOptions options;
        options.all_logits = true;
        const attn::ModelForwardResult r = attn::model_forward(view, ids, options);
        attn::TrainScratch scratch;
        const std::vector<int> targets = {1, 4, 1, 5, 9, 2, 6};
        const float loss = attn::train_loss(p, {1, 7, ids, targets}, scratch);
        double want_loss = 0.0;
        for (Eigen::Index t = 0; t < 7; ++t) {
            // softmax of model_forward's logits, in double
            const double max = static_cast<double>(r.logits.row(t).maxCoeff());
            std::vector<double> softmax;
            double sum = 0.0;
            for (Eigen::Index v = 0; v < ref::kVocab; ++v) {
                softmax.push_back(std::exp(static_cast<double>(r.logits(t, v)) - max));
                sum += softmax.back();
            }
            for (double& prob : softmax) prob /= sum;
            want_loss -=
                std::log(softmax[static_cast<std::size_t>(targets[static_cast<std::size_t>(t)])]);
            for (Eigen::Index v = 0; v < ref::kVocab; ++v)
                QVERIFY(std::abs(static_cast<double>(scratch.acts->logits[t * ref::kVocab + v]) -
                                 softmax[static_cast<std::size_t>(v)]) <= 1e-5);
        }
        QVERIFY(std::abs(static_cast<double>(loss) - want_loss / 7.0) <= 1e-5 * want_loss);
        const std::vector<std::vector<Matrix>> attentions = attn::train_attentions(p, ids, scratch);
        QCOMPARE(attentions.size(), r.attentions.size());
        for (std::size_t l = 0; l < attentions.size(); ++l)
            for (std::size_t h = 0; h < attentions[l].size(); ++h)
                QVERIFY(attentions[l][h].isApprox(r.attentions[l][h], 1e-5f));
        QCOMPARE(attn::parameters_from_weights(view).values, p.values);
        const attn::TransformerWeights copy = attn::weights_copy(p);
        const float before = copy[attn::TensorRole::TokenEmbedding].data[0];
        p.values[0] += 1.0f;
        QCOMPARE(copy[attn::TensorRole::TokenEmbedding].data[0], before);
        QCOMPARE(view[attn::TensorRole::TokenEmbedding].data[0], p.values[0]);
    }
}

QTEST_APPLESS_MAIN(TestTrain)
#include "test_train.moc"
