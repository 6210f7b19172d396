// The tiny encoder folders of tests/data/encoders (BERT with its masked-LM head in F32, BertModel
// without prefix nor head in BF16, DistilBERT in F16, RoBERTa in F32), read by the loader and run
// by the engine, against transformers' forward passes in float64
// (tests/reference/encoder_reference.py): every layer's and head's attention, the last hidden
// state, the masked-LM logits and the top 5 at [MASK], for a sentence, a pair and a padded batch.
// Then the config.json values and damaged folders each message names.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "app/io/model_folder.h"
#include "model/generator.h"
#include "model/transformer.h"
#include "tests/reference/encoder_reference.h"

namespace ref = attn::ref::encoder;

namespace {

const QString kData = QStringLiteral(ATTN_ENCODER_DATA_DIR);

const ref::Model& modelOf(const char* folder) {
    for (const ref::Model& m : ref::kModels)
        if (std::string(m.folder) == folder) return m;
    throw std::runtime_error(std::string("no reference model ") + folder);
}

// The largest |a - b| over a reference's values, or -1 when the sizes differ.
double maxDifference(const attn::Matrix& values, const float* expected, std::size_t count) {
    if (static_cast<std::size_t>(values.size()) != count) return -1.0;
    double worst = 0.0;
    for (Eigen::Index r = 0; r < values.rows(); ++r)
        for (Eigen::Index c = 0; c < values.cols(); ++c)
            worst = std::max(worst, std::abs(static_cast<double>(values(r, c)) -
                                             static_cast<double>(expected[r * values.cols() + c])));
    return worst;
}

// The sequence's real tokens (attention_mask 1), as a caller gives them before padding.
std::vector<int> realPart(const std::vector<int>& values, const std::vector<int>& mask) {
    std::vector<int> out;
    for (std::size_t i = 0; i < values.size(); ++i)
        if (mask[i] == 1) out.push_back(values[i]);
    return out;
}

// One result against one reference sequence: attentions within 2e-5 (probabilities), the hidden
// state within 2e-4 and the logits within 2e-4 of their largest magnitude (float32 against
// float64 through LayerNorms with eps 1e-12), and the top 5 at every [MASK].
void compareSequence(const attn::ModelForwardResult& r, const ref::Sequence& s, const ref::Model& m,
                     const std::vector<int>& ids) {
    const auto t = static_cast<Eigen::Index>(s.ids.size());
    QCOMPARE(static_cast<int>(r.attentions.size()), m.num_layers);
    std::size_t at = 0;
    for (const std::vector<attn::Matrix>& layer : r.attentions) {
        QCOMPARE(static_cast<int>(layer.size()), m.num_heads);
        for (const attn::Matrix& head : layer) {
            const double d =
                maxDifference(head, s.attentions.data() + at, static_cast<std::size_t>(t * t));
            QVERIFY2(d >= 0.0 && d < 2e-5, qPrintable(QString::number(d)));
            at += static_cast<std::size_t>(t * t);
        }
    }
    QCOMPARE(at, s.attentions.size());
    const double hidden = maxDifference(r.hidden, s.hidden.data(), s.hidden.size());
    QVERIFY2(hidden >= 0.0 && hidden < 2e-4, qPrintable(QString::number(hidden)));
    if (!m.mlm_head) {
        QCOMPARE(r.logits.size(), Eigen::Index{0});
        QVERIFY(r.top_tokens.empty());
        return;
    }
    double scale = 0.0;
    for (float v : s.logits) scale = std::max(scale, std::abs(static_cast<double>(v)));
    const double logits = maxDifference(r.logits, s.logits.data(), s.logits.size());
    QVERIFY2(logits >= 0.0 && logits < 2e-4 * scale,
             qPrintable(QString("%1 of %2").arg(logits).arg(scale)));
    const std::vector<attn::MaskPrediction> masks = attn::mask_predictions(r, ids, m.mask_id, 5);
    QCOMPARE(masks.size(), s.masks.size());
    for (std::size_t i = 0; i < masks.size(); ++i) {
        QCOMPARE(masks[i].position, static_cast<Eigen::Index>(s.masks[i].position));
        QCOMPARE(masks[i].top.size(), s.masks[i].top.size());
        for (std::size_t k = 0; k < masks[i].top.size(); ++k) {
            QCOMPARE(masks[i].top[k].id, s.masks[i].top[k].id);
            QVERIFY(std::abs(masks[i].top[k].prob - s.masks[i].top[k].prob) < 2e-5f);
        }
    }
}

attn::ModelLoadResult load(const QString& folder) { return attn::loadModelFolder(folder); }

// A copy of a test folder, so a test can damage it.
bool copyFolder(const QString& from, const QString& to) {
    const QDir source(from);
    for (const QString& name : source.entryList(QDir::Files)) {
        if (!QFile::copy(source.filePath(name), QDir(to).filePath(name))) return false;
        QFile::setPermissions(QDir(to).filePath(name), QFile::ReadOwner | QFile::WriteOwner);
    }
    return true;
}

// Rewrites model.safetensors' header through `edit` (renaming or dropping tensors, or adding
// ones whose bytes it returns, to go after the data of `dataSize` bytes); the data stays where it
// is, as the offsets are relative to the end of the header.
bool editHeader(const QString& folder,
                const std::function<QByteArray(QJsonObject&, qint64 dataSize)>& edit) {
    QFile file(QDir(folder).filePath(QStringLiteral("model.safetensors")));
    if (!file.open(QIODevice::ReadOnly)) return false;
    const QByteArray bytes = file.readAll();
    file.close();
    quint64 length = 0;
    for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<quint8>(bytes[i]);
    QJsonObject header =
        QJsonDocument::fromJson(bytes.mid(8, static_cast<qsizetype>(length))).object();
    const QByteArray data = bytes.mid(8 + static_cast<qsizetype>(length));
    const QByteArray extra = edit(header, data.size());
    QByteArray text = QJsonDocument(header).toJson(QJsonDocument::Compact);
    while (text.size() % 8 != 0) text.append(' ');
    QByteArray out;
    for (int i = 0; i < 8; ++i)
        out.append(static_cast<char>((static_cast<quint64>(text.size()) >> (8 * i)) & 0xff));
    out += text + data + extra;
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
    return file.write(out) == out.size();
}

QByteArray readConfig(const char* folder) {
    QFile f(kData + "/" + folder + "/config.json");
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestEncoderModelFolder : public QObject {
    Q_OBJECT

private slots:
    void matchesTransformers_data();
    void matchesTransformers();
    void configBecomesTheSpec();
    void badConfigsNameTheKey_data();
    void badConfigsNameTheKey();
    void olderLayerNormNamesAndExtraTensors();
    void missingTensorsAreNamed();
    void encodersDoNotGenerate();
};

void TestEncoderModelFolder::matchesTransformers_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < ref::kCases.size(); ++i)
        QTest::newRow(qPrintable(QString("%1 %2").arg(ref::kCases[i].folder, ref::kCases[i].name)))
            << static_cast<int>(i);
}

void TestEncoderModelFolder::matchesTransformers() {
    QFETCH(int, index);
    const ref::Case& c = ref::kCases[static_cast<std::size_t>(index)];
    const ref::Model& m = modelOf(c.folder);
    const attn::ModelLoadResult loaded = load(kData + "/" + c.folder);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    const attn::TransformerWeights& w = *loaded.weights;
    QCOMPARE(w.spec.mlm_head, m.mlm_head);
    QCOMPARE(QString::fromStdString(w.dtype), QString(m.dtype));
    attn::ModelForwardOptions options;
    options.all_logits = true;
    options.keep_hidden = true;
    if (c.sequences.size() == 1) {
        const ref::Sequence& s = c.sequences.front();
        options.token_type_ids = s.token_type_ids;
        options.attention_mask = s.attention_mask;
        const attn::ModelForwardResult r = attn::model_forward(w, s.ids, options);
        compareSequence(r, s, m, s.ids);
        return;
    }
    // The batch from its unpadded sequences: model_forward_padded pads them as the reference did.
    std::vector<std::vector<int>> ids, types;
    for (const ref::Sequence& s : c.sequences) {
        ids.push_back(realPart(s.ids, s.attention_mask));
        if (!s.token_type_ids.empty())
            types.push_back(realPart(s.token_type_ids, s.attention_mask));
    }
    const attn::PaddedBatch batch = attn::model_forward_padded(w, ids, types, m.pad_id, options);
    QCOMPARE(batch.results.size(), c.sequences.size());
    for (std::size_t b = 0; b < c.sequences.size(); ++b) {
        const ref::Sequence& s = c.sequences[b];
        QCOMPARE(batch.ids[b], s.ids);
        QCOMPARE(batch.attention_mask[b], s.attention_mask);
        compareSequence(batch.results[b], s, m, s.ids);
    }
}

// config.json's names and transformers' defaults become the spec.
void TestEncoderModelFolder::configBecomesTheSpec() {
    for (const ref::Model& m : ref::kModels) {
        const attn::ModelConfigResult r = attn::parseModelConfig(readConfig(m.folder));
        QVERIFY2(r.ok(), qPrintable(r.error));
        const attn::TransformerSpec& s = *r.spec;
        QCOMPARE(QString::fromStdString(attn::family_name(s.family)), QString(m.family));
        QCOMPARE(s.num_layers, Eigen::Index{m.num_layers});
        QCOMPARE(s.num_heads, Eigen::Index{m.num_heads});
        QCOMPARE(s.head_dim, Eigen::Index{m.head_dim});
        QCOMPARE(s.d_model, Eigen::Index{m.d_model});
        QCOMPARE(s.d_ff, Eigen::Index{m.d_ff});
        QCOMPARE(s.vocab_size, Eigen::Index{m.vocab_size});
        QCOMPARE(s.max_positions, Eigen::Index{m.max_positions});
        QCOMPARE(s.type_vocab_size, Eigen::Index{m.type_vocab_size});
        QCOMPARE(s.norm_eps, m.norm_eps);
        QCOMPARE(s.activation, attn::ActivationKind::GeluErf);
        QVERIFY(!s.causal && !s.pre_norm && s.embed_norm);
        // The head is the loader's finding, not the config's.
        QVERIFY(!s.mlm_head);
        QCOMPARE(s.padding_idx, std::string(m.family) == "roberta" ? m.pad_id : -1);
    }
    // BertConfig's defaults: bert-base's sizes.
    const attn::ModelConfigResult bare = attn::parseModelConfig("{\"model_type\": \"bert\"}");
    QVERIFY2(bare.ok(), qPrintable(bare.error));
    QCOMPARE(bare.spec->d_model, Eigen::Index{768});
    QCOMPARE(bare.spec->num_layers, Eigen::Index{12});
    QCOMPARE(bare.spec->vocab_size, Eigen::Index{30522});
    QCOMPARE(bare.spec->type_vocab_size, Eigen::Index{2});
    QCOMPARE(bare.spec->norm_eps, 1e-12f);
    const attn::ModelConfigResult tanh =
        attn::parseModelConfig("{\"model_type\": \"distilbert\", \"activation\": \"gelu_new\"}");
    QVERIFY2(tanh.ok(), qPrintable(tanh.error));
    QCOMPARE(tanh.spec->activation, attn::ActivationKind::GeluTanh);
    QCOMPARE(tanh.spec->num_layers, Eigen::Index{6});
    QCOMPARE(tanh.spec->type_vocab_size, Eigen::Index{0});
}

void TestEncoderModelFolder::badConfigsNameTheKey_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown hidden_act")
        << QByteArray("{\"model_type\": \"bert\", \"hidden_act\": \"swish\"}")
        << "config.json: line 1, column 38: \"hidden_act\" is the string \"swish\": give "
           "\"gelu\" (exact erf GELU, BERT's), \"gelu_new\" (the tanh approximation) or \"relu\"";
    QTest::newRow("heads do not divide")
        << QByteArray(
               "{\"model_type\": \"bert\", \"hidden_size\": 32, "
               "\"num_attention_heads\": 5}")
        << "config.json: line 1, column 66: hidden_size 32 is not divisible by "
           "num_attention_heads 5: the heads split the width evenly";
    QTest::newRow("distilbert heads")
        << QByteArray("{\"model_type\": \"distilbert\", \"dim\": 32, \"n_heads\": 3}")
        << "config.json: line 1, column 52: dim 32 is not divisible by n_heads 3: the heads split "
           "the width evenly";
    QTest::newRow("sinusoidal positions")
        << QByteArray("{\"model_type\": \"distilbert\", \"sinusoidal_pos_embds\": true}")
        << "config.json: line 1, column 54: sinusoidal_pos_embds true (fixed sine positions) is "
           "not read: only learned position embeddings are; use a model trained with false";
    QTest::newRow("relative positions")
        << QByteArray("{\"model_type\": \"bert\", \"position_embedding_type\": \"relative_key\"}")
        << "config.json: line 1, column 51: \"position_embedding_type\" is the string "
           "\"relative_key\": only \"absolute\" (learned positions) is computed";
    QTest::newRow("negative eps")
        << QByteArray("{\"model_type\": \"roberta\", \"layer_norm_eps\": -1}")
        << "config.json: line 1, column 45: \"layer_norm_eps\" is the number -1: give a positive "
           "number";
    QTest::newRow("roberta padding past the positions")
        << QByteArray(
               "{\"model_type\": \"roberta\", \"max_position_embeddings\": 8, "
               "\"pad_token_id\": 7}")
        << "config.json: line 1, column 73: pad_token_id 7 leaves no positions in the 8 rows of "
           "max_position_embeddings: RoBERTa's positions start after it";
    QTest::newRow("zero layers")
        << QByteArray("{\"model_type\": \"bert\", \"num_hidden_layers\": 0}")
        << "config.json: line 1, column 45: \"num_hidden_layers\" is the number 0: give a whole "
           "number from 1 to 16777216";
}

void TestEncoderModelFolder::badConfigsNameTheKey() {
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    const attn::ModelConfigResult r = attn::parseModelConfig(json);
    QVERIFY(!r.ok());
    QCOMPARE(r.error, message);
}

// bert-base-uncased's own file names its LayerNorms' weight and bias gamma and beta and holds
// BertForPreTraining's next-sentence head: the same numbers load.
void TestEncoderModelFolder::olderLayerNormNamesAndExtraTensors() {
    QTemporaryDir dir;
    QVERIFY(copyFolder(kData + "/bert-tiny", dir.path()));
    QVERIFY(editHeader(dir.path(), [](QJsonObject& header, qint64 dataSize) {
        const QStringList names = header.keys();
        for (const QString& name : names) {
            QString renamed = name;
            renamed.replace(QLatin1String("LayerNorm.weight"), QLatin1String("LayerNorm.gamma"));
            renamed.replace(QLatin1String("LayerNorm.bias"), QLatin1String("LayerNorm.beta"));
            if (renamed == name) continue;
            header.insert(renamed, header.value(name));
            header.remove(name);
        }
        // BertForPreTraining's next-sentence head, read by no one: two floats after the data.
        header.insert(QStringLiteral("cls.seq_relationship.bias"),
                      QJsonObject{{"dtype", "F32"},
                                  {"shape", QJsonArray{2}},
                                  {"data_offsets", QJsonArray{dataSize, dataSize + 8}}});
        return QByteArray(8, '\0');
    }));
    const attn::ModelLoadResult renamed = load(dir.path());
    QVERIFY2(renamed.ok(), qPrintable(renamed.error));
    const attn::ModelLoadResult original = load(kData + "/bert-tiny");
    QVERIFY2(original.ok(), qPrintable(original.error));
    QVERIFY(renamed.weights->spec.mlm_head);
    const ref::Sequence& s = ref::kCases.front().sequences.front();
    attn::ModelForwardOptions options;
    options.all_logits = true;
    const attn::ModelForwardResult a = attn::model_forward(*renamed.weights, s.ids, options);
    const attn::ModelForwardResult b = attn::model_forward(*original.weights, s.ids, options);
    QCOMPARE(a.logits.rows(), Eigen::Index(s.ids.size()));
    QVERIFY(a.logits == b.logits);
}

void TestEncoderModelFolder::missingTensorsAreNamed() {
    QTemporaryDir dir;
    QVERIFY(copyFolder(kData + "/roberta-tiny", dir.path()));
    QVERIFY(editHeader(dir.path(), [](QJsonObject& header, qint64 dataSize) {
        (void)dataSize;
        header.remove(QStringLiteral("roberta.encoder.layer.1.intermediate.dense.bias"));
        return QByteArray();
    }));
    const attn::ModelLoadResult missing = load(dir.path());
    QVERIFY(!missing.ok());
    QCOMPARE(missing.error,
             QStringLiteral("tensor roberta.encoder.layer.1.intermediate.dense.bias is missing "
                            "from model.safetensors"));
    // Without the head's dense layer the file is a base model: no head, no logits.
    QTemporaryDir headless;
    QVERIFY(copyFolder(kData + "/distilbert-tiny", headless.path()));
    QVERIFY(editHeader(headless.path(), [](QJsonObject& header, qint64 dataSize) {
        (void)dataSize;
        header.remove(QStringLiteral("vocab_transform.weight"));
        return QByteArray();
    }));
    const attn::ModelLoadResult base = load(headless.path());
    QVERIFY2(base.ok(), qPrintable(base.error));
    QVERIFY(!base.weights->spec.mlm_head);
    const attn::ModelForwardResult r = attn::model_forward(*base.weights, {5, 7, 6});
    QCOMPARE(r.logits.size(), Eigen::Index{0});
    // More layers in config.json than in the file.
    QTemporaryDir deeper;
    QVERIFY(copyFolder(kData + "/bert-tiny-base", deeper.path()));
    QFile config(deeper.path() + "/config.json");
    QVERIFY(config.open(QIODevice::ReadWrite));
    QByteArray text = config.readAll();
    text.replace("\"num_hidden_layers\": 2", "\"num_hidden_layers\": 3");
    QVERIFY(config.resize(0) && config.write(text) == text.size());
    config.close();
    const attn::ModelLoadResult deep = load(deeper.path());
    QVERIFY(!deep.ok());
    QCOMPARE(deep.error, QStringLiteral("config.json says 3 layers but tensor "
                                        "encoder.layer.2.attention.self.query.weight is missing: "
                                        "the weights belong to a smaller model"));
}

void TestEncoderModelFolder::encodersDoNotGenerate() {
    const attn::ModelLoadResult loaded = load(kData + "/bert-tiny");
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    try {
        attn::Generator g(*loaded.weights, {5, 123, 7, 6}, attn::GenerationOptions{});
        QFAIL("an encoder generated");
    } catch (const attn::AttentionError& e) {
        QCOMPARE(QString(e.what()),
                 QStringLiteral("BERT is an encoder: it fills in [MASK] tokens instead of "
                                "generating; use forward"));
    }
}

QTEST_APPLESS_MAIN(TestEncoderModelFolder)
#include "test_encoder_model_folder.moc"
