// The encoder path of the transformer core (BERT, DistilBERT, RoBERTa) on tiny random weights:
// the tensor tables in file order, bidirectional attention, post-norm rows, padding that changes
// nothing for the real tokens, RoBERTa's positions, the masked-LM head's [MASK] predictions, and
// the messages for inputs and specs the core refuses. The numbers against transformers are in
// tests/app/test_encoder_model_folder.cpp.
#include <QObject>
#include <QTest>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "model/generator.h"
#include "model/train.h"
#include "model/transformer.h"
#include "model/transformer_layers.h"
#include "tests/support/model_test_weights.h"

using attn::Matrix;
using attn::ModelFamily;
using attn::TensorRole;
using attn::TransformerSpec;
using attn::TransformerWeights;

namespace {

// 2 layers, d_model 8, 2 heads of 4, MLP width 16, vocab 20, 12 positions, exact GELU.
TransformerSpec tiny_encoder_spec(ModelFamily family, bool mlm_head = true) {
    TransformerSpec s;
    s.family = family;
    s.num_layers = 2;
    s.d_model = 8;
    s.num_heads = 2;
    s.num_kv_heads = 2;
    s.head_dim = 4;
    s.d_ff = 16;
    s.vocab_size = 20;
    s.max_positions = 12;
    s.norm_eps = 1e-12f;
    s.pre_norm = false;
    s.causal = false;
    s.fused_qkv = false;
    s.activation = attn::ActivationKind::GeluErf;
    s.embed_norm = true;
    s.mlm_head = mlm_head;
    s.type_vocab_size = family == ModelFamily::DistilBert ? 0 : 2;
    s.padding_idx = family == ModelFamily::Roberta ? 1 : -1;
    return s;
}

std::vector<std::string> file_order(const TransformerSpec& spec) {
    std::vector<std::string> names;
    attn::for_each_tensor(attn::tensor_table(spec), spec.num_layers,
                          [&](const attn::TensorEntry& e, Eigen::Index layer) {
                              names.push_back(attn::tensor_name(e, layer));
                          });
    return names;
}

// The message model_forward throws, or "" when it does not.
std::string forward_error(const TransformerWeights& w, const std::vector<int>& ids,
                          const attn::ModelForwardOptions& options) {
    try {
        attn::model_forward(w, ids, options);
    } catch (const attn::AttentionError& e) {
        return e.what();
    }
    return {};
}

std::string spec_error(const TransformerSpec& spec) {
    try {
        attn::check_spec(spec);
    } catch (const attn::AttentionError& e) {
        return e.what();
    }
    return {};
}

}  // namespace

class TestEncoderCore : public QObject {
    Q_OBJECT

private slots:
    void tablesInFileOrder();
    void bidirectionalRowsSeeLaterTokens();
    void postNormRowsAreStandardized();
    void paddingChangesNothingForRealTokens_data();
    void paddingChangesNothingForRealTokens();
    void robertaPositionsSkipPadding();
    void maskPredictionsAtEveryMask();
    void withoutHeadNoLogits();
    void badInputsAreNamed();
    void specsTheCoreDoesNotCompute();
    void decoderPaddedBatchMatchesAlone();
    void encodersNeitherGenerateNorTrain();
};

void TestEncoderCore::tablesInFileOrder() {
    const std::vector<std::string> bert = file_order(tiny_encoder_spec(ModelFamily::Bert));
    QCOMPARE(bert.size(), std::size_t{5 + 2 * 16 + 5});
    QCOMPARE(bert[0], std::string("embeddings.word_embeddings.weight"));
    QCOMPARE(bert[2], std::string("embeddings.token_type_embeddings.weight"));
    QCOMPARE(bert[4], std::string("embeddings.LayerNorm.bias"));
    QCOMPARE(bert[5], std::string("encoder.layer.0.attention.self.query.weight"));
    QCOMPARE(bert[13], std::string("encoder.layer.0.attention.output.LayerNorm.weight"));
    QCOMPARE(bert[20], std::string("encoder.layer.0.output.LayerNorm.bias"));
    QCOMPARE(bert[21], std::string("encoder.layer.1.attention.self.query.weight"));
    QCOMPARE(bert[37], std::string("cls.predictions.bias"));
    QCOMPARE(bert[41], std::string("cls.predictions.transform.LayerNorm.bias"));
    // Post-norm: the attention's output LayerNorm takes the AttnNorm role.
    const std::vector<attn::TensorEntry> table =
        attn::tensor_table(tiny_encoder_spec(ModelFamily::Bert));
    QCOMPARE(table[13].role, TensorRole::AttnNormWeight);
    QCOMPARE(table[19].role, TensorRole::MlpNormWeight);
    QVERIFY(table.back().prefixed == false && table.front().prefixed);

    const std::vector<std::string> distil = file_order(tiny_encoder_spec(ModelFamily::DistilBert));
    QCOMPARE(distil.size(), std::size_t{4 + 2 * 16 + 5});
    QCOMPARE(distil[2], std::string("embeddings.LayerNorm.weight"));
    QCOMPARE(distil[4], std::string("transformer.layer.0.attention.q_lin.weight"));
    QCOMPARE(distil[12], std::string("transformer.layer.0.sa_layer_norm.weight"));
    QCOMPARE(distil[18], std::string("transformer.layer.0.output_layer_norm.weight"));
    QCOMPARE(distil[36], std::string("vocab_transform.weight"));
    QCOMPARE(distil[40], std::string("vocab_projector.bias"));

    const std::vector<std::string> roberta =
        file_order(tiny_encoder_spec(ModelFamily::Roberta, false));
    QCOMPARE(roberta.size(), std::size_t{5 + 2 * 16});
    QCOMPARE(roberta.back(), std::string("encoder.layer.1.output.LayerNorm.bias"));
    QCOMPARE(file_order(tiny_encoder_spec(ModelFamily::Roberta))[37], std::string("lm_head.bias"));
}

// Token 0's attention reaches the last token, and changing the last token changes token 0's
// output: nothing is causal.
void TestEncoderCore::bidirectionalRowsSeeLaterTokens() {
    const TransformerWeights w = attn::make_random_weights(tiny_encoder_spec(ModelFamily::Bert), 3);
    attn::ModelForwardOptions options;
    options.keep_hidden = true;
    const attn::ModelForwardResult a = attn::model_forward(w, {5, 6, 7, 8}, options);
    for (const std::vector<Matrix>& layer : a.attentions)
        for (const Matrix& head : layer) {
            QVERIFY(head(0, 3) > 1e-4f);
            for (Eigen::Index r = 0; r < head.rows(); ++r)
                QVERIFY(std::abs(head.row(r).sum() - 1.0f) < 1e-6f);
        }
    const attn::ModelForwardResult b = attn::model_forward(w, {5, 6, 7, 9}, options);
    QVERIFY((a.hidden.row(0) - b.hidden.row(0)).norm() > 1e-3f);
    QVERIFY(a.top_tokens.empty());
}

// After the last block's norm with weight 1 and bias 0, every row has mean 0 and variance 1.
void TestEncoderCore::postNormRowsAreStandardized() {
    TransformerWeights w = attn::make_random_weights(tiny_encoder_spec(ModelFamily::Bert), 4);
    auto identity = std::make_shared<std::vector<float>>(16, 0.0f);
    std::fill(identity->begin(), identity->begin() + 8, 1.0f);
    w.layers.back()[TensorRole::MlpNormWeight] =
        attn::WeightView{identity->data(), 1, 8, attn::TensorLayout::Vector};
    w.layers.back()[TensorRole::MlpNormBias] =
        attn::WeightView{identity->data() + 8, 1, 8, attn::TensorLayout::Vector};
    attn::ModelForwardOptions options;
    options.keep_hidden = true;
    const attn::ModelForwardResult r = attn::model_forward(w, {1, 2, 3, 4, 5}, options);
    QCOMPARE(r.hidden.rows(), Eigen::Index{5});
    for (Eigen::Index t = 0; t < r.hidden.rows(); ++t) {
        const double mean = r.hidden.row(t).cast<double>().mean();
        const double var = (r.hidden.row(t).cast<double>().array() - mean).square().mean();
        QVERIFY2(std::abs(mean) < 1e-6, qPrintable(QString::number(mean)));
        QVERIFY2(std::abs(var - 1.0) < 1e-5, qPrintable(QString::number(var)));
    }
}

void TestEncoderCore::paddingChangesNothingForRealTokens_data() {
    QTest::addColumn<int>("family");
    QTest::addColumn<int>("pad");
    QTest::newRow("bert") << static_cast<int>(ModelFamily::Bert) << 0;
    QTest::newRow("distilbert") << static_cast<int>(ModelFamily::DistilBert) << 0;
    QTest::newRow("roberta") << static_cast<int>(ModelFamily::Roberta) << 1;
}

// A sequence padded with attention_mask 0 gives its real tokens the numbers it has alone, and
// the padding keys exactly 0 weight in every row.
void TestEncoderCore::paddingChangesNothingForRealTokens() {
    QFETCH(int, family);
    QFETCH(int, pad);
    const TransformerWeights w =
        attn::make_random_weights(tiny_encoder_spec(static_cast<ModelFamily>(family)), 5);
    attn::ModelForwardOptions options;
    options.keep_hidden = true;
    options.all_logits = true;
    const std::vector<int> ids = {5, 9, 3};
    const attn::ModelForwardResult alone = attn::model_forward(w, ids, options);
    const attn::PaddedBatch batch =
        attn::model_forward_padded(w, {ids, {4, 4, 4, 4, 4}}, {}, pad, options);
    QCOMPARE(batch.ids[0], (std::vector<int>{5, 9, 3, pad, pad}));
    QCOMPARE(batch.attention_mask[0], (std::vector<int>{1, 1, 1, 0, 0}));
    QCOMPARE(batch.attention_mask[1], (std::vector<int>{1, 1, 1, 1, 1}));
    const attn::ModelForwardResult& padded = batch.results[0];
    for (std::size_t l = 0; l < alone.attentions.size(); ++l)
        for (std::size_t h = 0; h < alone.attentions[l].size(); ++h) {
            const Matrix& p = padded.attentions[l][h];
            QCOMPARE(p.rows(), Eigen::Index{5});
            QVERIFY((p.topLeftCorner(3, 3) - alone.attentions[l][h]).cwiseAbs().maxCoeff() < 1e-6f);
            QVERIFY(p.rightCols(2).isZero(0.0f));
        }
    QVERIFY((padded.hidden.topRows(3) - alone.hidden).cwiseAbs().maxCoeff() < 1e-5f);
    QVERIFY((padded.logits.topRows(3) - alone.logits).cwiseAbs().maxCoeff() < 1e-4f);
    // The walkthrough record blocks the padding keys.
    const attn::Step step = attn::model_layer_step(padded, w.spec, 0, {"a", "b", "c", "p", "p"});
    const attn::BoolMatrix& blocked = step.matrices[0].blocked;
    QCOMPARE(blocked.rows(), Eigen::Index{5});
    QVERIFY(blocked(0, 3) && blocked(4, 4));
    QVERIFY(!blocked(0, 2) && !blocked(4, 0));
}

void TestEncoderCore::robertaPositionsSkipPadding() {
    const TransformerSpec roberta = tiny_encoder_spec(ModelFamily::Roberta);
    using Positions = std::vector<Eigen::Index>;
    QCOMPARE(attn::layers::encoder_positions(roberta, {0, 5, 1, 1}), (Positions{2, 3, 1, 1}));
    QCOMPARE(attn::layers::encoder_positions(roberta, {5, 1, 6}), (Positions{2, 1, 3}));
    QCOMPARE(attn::layers::encoder_positions(tiny_encoder_spec(ModelFamily::Bert), {1, 1, 0}),
             (Positions{0, 1, 2}));
    // 12 rows less padding_idx + 1 = 2: 10 tokens fit, 11 do not.
    attn::check_token_ids(roberta, std::vector<int>(10, 5), 0);
    try {
        attn::check_token_ids(roberta, std::vector<int>(11, 5), 0);
        QFAIL("11 tokens accepted");
    } catch (const attn::AttentionError& e) {
        QCOMPARE(std::string(e.what()),
                 std::string("11 tokens are more than the model's 10 positions (12 rows of the "
                             "position table less padding_idx + 1 = 2): shorten the text to at "
                             "most 10 tokens"));
    }
    attn::check_token_ids(tiny_encoder_spec(ModelFamily::Bert), std::vector<int>(12, 5), 0);
}

void TestEncoderCore::maskPredictionsAtEveryMask() {
    const TransformerWeights w = attn::make_random_weights(tiny_encoder_spec(ModelFamily::Bert), 6);
    const std::vector<int> ids = {2, 3, 8, 3, 4};
    attn::ModelForwardOptions options;
    options.all_logits = true;
    const attn::ModelForwardResult r = attn::model_forward(w, ids, options);
    QCOMPARE(r.logits.rows(), Eigen::Index{5});
    QCOMPARE(r.logits.cols(), Eigen::Index{20});
    const std::vector<attn::MaskPrediction> masks = attn::mask_predictions(r, ids, 3, 4);
    QCOMPARE(masks.size(), std::size_t{2});
    QCOMPARE(masks[0].position, Eigen::Index{1});
    QCOMPARE(masks[1].position, Eigen::Index{3});
    for (const attn::MaskPrediction& m : masks) {
        QCOMPARE(m.top.size(), std::size_t{4});
        Eigen::Index best = 0;
        r.logits.row(m.position).maxCoeff(&best);
        QCOMPARE(m.top[0].id, static_cast<int>(best));
        for (std::size_t k = 1; k < m.top.size(); ++k) QVERIFY(m.top[k].prob <= m.top[k - 1].prob);
        QVERIFY(m.top[0].prob > 1.0f / 20.0f && m.top[0].prob < 1.0f);
    }
    // Only the last position's logits: no predictions to make.
    const attn::ModelForwardResult last = attn::model_forward(w, ids);
    QCOMPARE(last.logits.rows(), Eigen::Index{1});
    QVERIFY_THROWS_EXCEPTION(attn::AttentionError, attn::mask_predictions(last, ids, 3, 4));
}

void TestEncoderCore::withoutHeadNoLogits() {
    const TransformerWeights w =
        attn::make_random_weights(tiny_encoder_spec(ModelFamily::Bert, false), 7);
    attn::ModelForwardOptions options;
    options.all_logits = true;
    const attn::ModelForwardResult r = attn::model_forward(w, {1, 2, 3}, options);
    QCOMPARE(r.logits.size(), Eigen::Index{0});
    QVERIFY(r.top_tokens.empty());
    QCOMPARE(r.attentions.size(), std::size_t{2});
    try {
        attn::mask_predictions(r, {1, 2, 3}, 2, 5);
        QFAIL("predictions without logits");
    } catch (const attn::AttentionError& e) {
        QCOMPARE(std::string(e.what()),
                 std::string("the forward pass has logits for 0 positions but there are 3 tokens: "
                             "run model_forward with all_logits on a model with its masked-LM "
                             "head"));
    }
}

void TestEncoderCore::badInputsAreNamed() {
    const TransformerWeights bert =
        attn::make_random_weights(tiny_encoder_spec(ModelFamily::Bert), 8);
    const TransformerWeights distil =
        attn::make_random_weights(tiny_encoder_spec(ModelFamily::DistilBert), 8);
    const std::vector<int> ids = {1, 2, 3};
    auto with = [](std::vector<int> types, std::vector<int> mask) {
        attn::ModelForwardOptions o;
        o.token_type_ids = std::move(types);
        o.attention_mask = std::move(mask);
        return o;
    };
    QCOMPARE(forward_error(bert, ids, with({0, 1}, {})),
             std::string("token_type_ids has 2 entries but there are 3 tokens: give one token "
                         "type per token, or none (all 0)"));
    QCOMPARE(forward_error(bert, ids, with({}, {1, 1, 1, 0})),
             std::string("attention_mask has 4 entries but there are 3 tokens: give one 1 (real) "
                         "or 0 (padding) per token, or none"));
    QCOMPARE(forward_error(bert, ids, with({0, 0, 2}, {})),
             std::string("token type 2 at position 3 is outside [0, 2): segment A is 0, segment B "
                         "is 1"));
    QCOMPARE(forward_error(distil, ids, with({0, 1, 1}, {})),
             std::string("distilbert has no token types, but token 2 has type 1: give no "
                         "token_type_ids (or all 0)"));
    QCOMPARE(forward_error(distil, ids, with({0, 0, 0}, {})), std::string());
    QCOMPARE(forward_error(bert, ids, with({}, {1, 2, 1})),
             std::string("attention_mask is 2 at position 2: give 1 (a real token) or 0 "
                         "(padding)"));
    QCOMPARE(forward_error(bert, ids, with({}, {0, 0, 0})),
             std::string("attention_mask is all 0: at least one token must be real"));
    // An encoder may have padding anywhere; a decoder's goes after its tokens.
    QCOMPARE(forward_error(bert, ids, with({}, {0, 1, 1})), std::string());
    const TransformerWeights gpt2 = attn::make_random_weights(attn::tiny_gpt2_spec(), 8);
    QCOMPARE(forward_error(gpt2, ids, with({}, {0, 1, 1})),
             std::string("attention_mask has padding before token 2: a decoder's padding goes "
                         "after the real tokens"));
    QCOMPARE(forward_error(gpt2, ids, with({0, 1, 0}, {})),
             std::string("gpt2 has no token types, but token 2 has type 1: give no "
                         "token_type_ids (or all 0)"));
    try {
        attn::model_forward_padded(bert, {}, {}, 0);
        QFAIL("an empty batch ran");
    } catch (const attn::AttentionError& e) {
        QCOMPARE(std::string(e.what()),
                 std::string("the batch is empty: give at least one sequence"));
    }
    try {
        attn::model_forward_padded(bert, {{1, 2}, {3, 25}}, {}, 0);
        QFAIL("an id outside the vocabulary ran");
    } catch (const attn::AttentionError& e) {
        QCOMPARE(std::string(e.what()),
                 std::string("sequence 2 of the batch: token id 25 at position 2 is outside [0, "
                             "20): use ids from this model's tokenizer"));
    }
}

void TestEncoderCore::specsTheCoreDoesNotCompute() {
    TransformerSpec causal = tiny_encoder_spec(ModelFamily::Bert);
    causal.causal = true;
    QCOMPARE(spec_error(causal),
             std::string("BERT is an encoder computed as BERT's layout, but the spec has causal = "
                         "true: encoders are bidirectional, set causal = false"));
    TransformerSpec pre = tiny_encoder_spec(ModelFamily::Roberta);
    pre.pre_norm = true;
    QCOMPARE(spec_error(pre),
             std::string("RoBERTa is an encoder computed as BERT's layout, but the spec has "
                         "pre_norm = true: encoders norm after the residual (pre_norm = false)"));
    TransformerSpec types = tiny_encoder_spec(ModelFamily::DistilBert);
    types.type_vocab_size = 2;
    QCOMPARE(spec_error(types),
             std::string("DistilBERT is an encoder computed as BERT's layout, but the spec has "
                         "token types: DistilBERT has none, set type_vocab_size = 0"));
    TransformerSpec padding = tiny_encoder_spec(ModelFamily::Roberta);
    padding.padding_idx = 11;
    QVERIFY(spec_error(padding).find("padding_idx = 11") != std::string::npos);
    TransformerSpec decoder = attn::tiny_gpt2_spec();
    decoder.type_vocab_size = 2;
    QCOMPARE(spec_error(decoder),
             std::string("token types, the embedding norm, the masked-LM head and padding_idx "
                         "are encoder parts, but the spec's family is gpt2: leave them at their "
                         "defaults"));
    QCOMPARE(spec_error(tiny_encoder_spec(ModelFamily::Roberta)), std::string());
}

// A decoder's right padding: the real tokens keep their numbers (causal rows never reach the
// padding after them).
void TestEncoderCore::decoderPaddedBatchMatchesAlone() {
    const TransformerWeights w = attn::make_random_weights(attn::tiny_gpt2_spec(), 9);
    attn::ModelForwardOptions options;
    options.all_logits = true;
    const attn::ModelForwardResult alone = attn::model_forward(w, {4, 5}, options);
    const attn::PaddedBatch batch =
        attn::model_forward_padded(w, {{1, 2, 3}, {4, 5}}, {}, 0, options);
    const attn::ModelForwardResult& padded = batch.results[1];
    QCOMPARE(padded.logits.rows(), Eigen::Index{3});
    QVERIFY((padded.logits.topRows(2) - alone.logits).cwiseAbs().maxCoeff() < 1e-5f);
    QCOMPARE(padded.attentions[0][0](2, 2), 0.0f);
    QVERIFY(std::abs(padded.attentions[0][0].row(2).sum() - 1.0f) < 1e-6f);
    // Decoders keep their next-token candidates.
    QCOMPARE(padded.top_tokens.size(), std::size_t{5});
}

void TestEncoderCore::encodersNeitherGenerateNorTrain() {
    const TransformerWeights w =
        attn::make_random_weights(tiny_encoder_spec(ModelFamily::DistilBert), 10);
    try {
        attn::Generator g(w, {1, 2}, attn::GenerationOptions{});
        QFAIL("an encoder generated");
    } catch (const attn::AttentionError& e) {
        QCOMPARE(std::string(e.what()),
                 std::string("DistilBERT is an encoder: it fills in [MASK] tokens instead of "
                             "generating; use forward"));
    }
    try {
        attn::make_parameters(tiny_encoder_spec(ModelFamily::Bert));
        QFAIL("an encoder trained");
    } catch (const attn::AttentionError& e) {
        QCOMPARE(std::string(e.what()),
                 std::string("BERT is an encoder (bidirectional, masked-LM): training computes "
                             "GPT-2's next-token layout only; train a GPT-2 layout model "
                             "(train_spec)"));
    }
}

QTEST_APPLESS_MAIN(TestEncoderCore)
#include "test_encoder_core.moc"
