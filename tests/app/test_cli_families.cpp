// attention-cli on the models people run today: a tiny Llama folder with a SentencePiece-style
// tokenizer.json (BOS added, as tokenizer_config.json says), the reference GGUF files
// (tests/data/gguf, tests/reference/gguf_models_reference.py), a model in a fake Ollama store,
// `attention-cli models` over a fake Hugging Face cache and Ollama store, and damaged GGUF files,
// each refused with one line and status 2. The numbers themselves are checked against PyTorch in
// test_llama_model_folder and test_gguf_model; here the command line around them.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "app/io/gguf.h"
#include "app/io/model_folder.h"
#include "cli_run.h"
#include "tests/support/gguf_writer.h"
#include "tests/support/model_test_folder.h"
#include "tests/support/model_test_weights.h"

namespace {

const QString kGgufDir = QStringLiteral(ATTN_GGUF_DATA_DIR);
const QString kSpmTokenizer = QStringLiteral(ATTN_TOKENIZERS_DIR "/llama2-style");
const char kDigest[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

// A CLI run with extra environment variables.
CliRun runWith(const QStringList& args, const QList<QPair<QString, QString>>& env) {
    for (const auto& [name, value] : env) qputenv(name.toUtf8().constData(), value.toUtf8());
    const CliRun r = runCli(args);
    for (const auto& [name, value] : env) qunsetenv(name.toUtf8().constData());
    return r;
}

QJsonObject object(const CliRun& r) {
    if (r.exitCode != 0) qWarning() << r.err;
    return QJsonDocument::fromJson(r.out).object();
}

// Ollama's layout: manifests/registry.ollama.ai/library/<model>/<tag> naming blobs/sha256-<hex>.
bool makeOllamaStore(const QString& root, const QString& model, const QString& tag,
                     const QString& gguf) {
    const QDir store(root);
    if (!store.mkpath(QStringLiteral("blobs")) ||
        !store.mkpath(QStringLiteral("manifests/registry.ollama.ai/library/") + model))
        return false;
    if (!QFile::copy(gguf, store.filePath(QStringLiteral("blobs/sha256-") + kDigest))) return false;
    QJsonObject layer{{"mediaType", "application/vnd.ollama.image.model"},
                      {"digest", QStringLiteral("sha256:") + kDigest},
                      {"size", QFileInfo(gguf).size()}};
    QJsonObject templ{{"mediaType", "application/vnd.ollama.image.template"},
                      {"digest", QStringLiteral("sha256:") + QString(64, QLatin1Char('e'))}};
    const QJsonObject manifest{{"schemaVersion", 2}, {"layers", QJsonArray{templ, layer}}};
    QFile file(store.filePath(
        QStringLiteral("manifests/registry.ollama.ai/library/%1/%2").arg(model, tag)));
    return file.open(QIODevice::WriteOnly) && file.write(QJsonDocument(manifest).toJson()) > 0;
}

}  // namespace

class TestCliFamilies : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void llamaFolder();
    void layersPastTheWeights();
    void ggufFile();
    void ollamaStore();
    void modelsLists();
    void badGgufFiles_data();
    void badGgufFiles();

private:
    QTemporaryDir dir_;
    QString llama_;
    attn::TransformerSpec spec_;
};

void TestCliFamilies::initTestCase() {
    QVERIFY(dir_.isValid());
    // A tiny Llama (GQA 4/2, rope_theta 500000) with the Llama-2-style tokenizer's 700 tokens.
    const QByteArray config =
        "{\"model_type\": \"llama\", \"hidden_size\": 16, \"intermediate_size\": 24, "
        "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"num_key_value_heads\": 2, "
        "\"vocab_size\": 700, \"max_position_embeddings\": 64, \"rope_theta\": 500000.0, "
        "\"rms_norm_eps\": 1e-5, \"bos_token_id\": 1, \"eos_token_id\": 2}";
    const attn::ModelConfigResult parsed = attn::parseModelConfig(config);
    QVERIFY2(parsed.ok(), qPrintable(parsed.error));
    spec_ = *parsed.spec;
    llama_ = dir_.filePath(QStringLiteral("tiny-llama"));
    QString error;
    QVERIFY2(
        model_test::writeFolder(llama_, attn::make_random_weights(spec_, 3), QStringLiteral("BF16"),
                                model_test::Layout::Prefixed, &error, config),
        qPrintable(error));
    for (const QString& name :
         {QStringLiteral("tokenizer.json"), QStringLiteral("tokenizer_config.json")})
        QVERIFY(QFile::copy(QDir(kSpmTokenizer).filePath(name), QDir(llama_).filePath(name)));
}

void TestCliFamilies::llamaFolder() {
    const QJsonObject tokens =
        object(runCli({"tokenize", "--model", llama_, "--text", "Hello world"}));
    const QJsonArray ids = tokens.value("ids").toArray();
    QVERIFY(ids.size() >= 3);
    QCOMPARE(ids[0].toInt(), 1);  // <s>, as add_bos_token says
    QCOMPARE(tokens.value("tokens").toArray()[0].toString(), QStringLiteral("<s>"));

    const QJsonObject forward =
        object(runCli({"forward", "--model", llama_, "--text", "Hello world"}));
    const QJsonObject model = forward.value("model").toObject();
    QCOMPARE(model.value("model_type").toString(), QStringLiteral("llama"));
    QCOMPARE(model.value("n_head").toInt(), 4);
    QCOMPARE(model.value("num_key_value_heads").toInt(), 2);
    QCOMPARE(model.value("head_dim").toInt(), 4);
    QCOMPARE(model.value("rope_theta").toDouble(), 500000.0);
    QCOMPARE(model.value("dtype").toString(), QStringLiteral("BF16"));
    const QJsonArray attentions = forward.value("attentions").toArray();
    QCOMPARE(attentions.size(), 2);
    QCOMPARE(attentions[0].toArray().size(), 4);  // every query head
    const QJsonArray first = attentions[1].toArray()[3].toArray();
    QCOMPARE(first.size(), ids.size());
    for (qsizetype i = 0; i < first.size(); ++i) {
        double sum = 0.0;
        for (const QJsonValue& w : first[i].toArray()) sum += w.toDouble();
        QVERIFY(std::abs(sum - 1.0) <= 1e-5);
    }

    const QJsonObject generate =
        object(runCli({"generate", "--model", llama_, "--text", "Hello", "--max-new-tokens", "3"}));
    // Every token is fed through the cache, the last generated one too.
    const qint64 tokens_cached = generate.value("ids").toArray().size();
    // K and V of the 2 key/value heads of width 4, in 2 layers, of every fed token.
    QCOMPARE(generate.value("cache_bytes").toInteger(), 2 * 2 * 2 * 4 * 4 * (tokens_cached));
    QVERIFY(generate.value("max_abs_diff_vs_full_pass").toDouble() <= 1e-5);
    QVERIFY(generate.value("text").toString().startsWith(QStringLiteral("<s> Hello")));
}

// A config.json whose layer count the weights do not have is refused before anything is sized by
// it.
void TestCliFamilies::layersPastTheWeights() {
    QTemporaryDir dir;
    for (const QString& f : QDir(llama_).entryList(QDir::Files))
        QVERIFY(QFile::copy(QDir(llama_).filePath(f), dir.filePath(f)));
    QFile config(dir.filePath(QStringLiteral("config.json")));
    QVERIFY(config.open(QIODevice::ReadOnly));
    QByteArray text = config.readAll();
    config.close();
    text.replace("\"num_hidden_layers\": 2", "\"num_hidden_layers\": 16777216");
    QVERIFY(config.open(QIODevice::WriteOnly | QIODevice::Truncate) && config.write(text) > 0);
    config.close();
    const CliRun r = runCli({"forward", "--model", dir.path(), "--text", "a", "--summary"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("config.json says 16777216 layers but tensor "
                            "model.layers.16777215.self_attn.q_proj.weight is missing"),
             r.err.constData());
}

void TestCliFamilies::ggufFile() {
    const QString path = QDir(kGgufDir).filePath(QStringLiteral("tiny-llama.gguf"));
    const QJsonObject forward =
        object(runCli({"forward", "--model", path, "--ids", "5,17,260,3", "--summary"}));
    const QJsonObject model = forward.value("model").toObject();
    QCOMPARE(model.value("model_type").toString(), QStringLiteral("llama"));
    QCOMPARE(model.value("n_embd").toInt(), 256);
    QCOMPARE(model.value("num_key_value_heads").toInt(), 2);
    QCOMPARE(model.value("head_dim").toInt(), 64);
    QVERIFY2(model.value("dtype").toString().contains(QStringLiteral("Q")),
             qPrintable(model.value("dtype").toString()));
    QCOMPARE(forward.value("tokens").toInt(), 4);
    QCOMPARE(forward.value("next_tokens").toArray().size(), 5);
    const QJsonObject tokens = object(runCli({"tokenize", "--model", path, "--text", " the and"}));
    QVERIFY(!tokens.value("ids").toArray().isEmpty());
    const QJsonObject generate =
        object(runCli({"generate", "--model", path, "--text", " the", "--max-new-tokens", "4"}));
    QCOMPARE(generate.value("new_ids").toArray().size(), 4);
    QVERIFY(generate.value("max_abs_diff_vs_full_pass").toDouble() <= 1e-4);
}

void TestCliFamilies::ollamaStore() {
    QTemporaryDir store;
    QVERIFY(makeOllamaStore(store.path(), QStringLiteral("qwen-tiny"), QStringLiteral("latest"),
                            QDir(kGgufDir).filePath(QStringLiteral("tiny-qwen2.gguf"))));
    const QList<QPair<QString, QString>> env{{QStringLiteral("OLLAMA_MODELS"), store.path()}};
    const CliRun r =
        runWith({"forward", "--model", "ollama:qwen-tiny", "--ids", "1,2,3", "--summary"}, env);
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(object(r).value("model").toObject().value("model_type").toString(),
             QStringLiteral("qwen2"));
    // The same with the tag written out; a missing tag names where it looked and what to do.
    QCOMPARE(
        runWith({"tokenize", "--model", "ollama:qwen-tiny:latest", "--text", "a"}, env).exitCode,
        0);
    const CliRun missing =
        runWith({"tokenize", "--model", "ollama:qwen-tiny:7b", "--text", "a"}, env);
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains("ollama:qwen-tiny:7b is not in Ollama's store") &&
                 missing.err.contains("ollama pull qwen-tiny:7b"),
             missing.err.constData());
    const CliRun climbing =
        runWith({"tokenize", "--model", "ollama:../../etc:passwd", "--text", "a"}, env);
    QCOMPARE(climbing.exitCode, 2);
    QVERIFY2(climbing.err.contains("is not a model name"), climbing.err.constData());
}

void TestCliFamilies::modelsLists() {
    QTemporaryDir hub, store;
    // A Hugging Face cache with the Llama folder as a snapshot and a GGUF repository.
    const QDir cache(hub.path());
    for (const auto& [repo, files] :
         {std::pair{QStringLiteral("models--org--tiny-llama"),
                    QStringList{"config.json", "model.safetensors", "tokenizer.json"}},
          std::pair{QStringLiteral("models--org--tiny-GGUF"), QStringList{}}}) {
        const QString snapshot = repo + QStringLiteral("/snapshots/abc");
        QVERIFY(cache.mkpath(snapshot));
        QVERIFY(cache.mkpath(repo + QStringLiteral("/refs")));
        QFile ref(cache.filePath(repo + QStringLiteral("/refs/main")));
        QVERIFY(ref.open(QIODevice::WriteOnly) && ref.write("abc") == 3);
        for (const QString& f : files)
            QVERIFY(QFile::copy(QDir(llama_).filePath(f),
                                cache.filePath(snapshot + QLatin1Char('/') + f)));
    }
    QVERIFY(QFile::copy(QDir(kGgufDir).filePath(QStringLiteral("tiny-qwen3.gguf")),
                        cache.filePath(QStringLiteral(
                            "models--org--tiny-GGUF/snapshots/abc/tiny-qwen3-Q4_K.gguf"))));
    QVERIFY(makeOllamaStore(store.path(), QStringLiteral("llama-tiny"), QStringLiteral("1b"),
                            QDir(kGgufDir).filePath(QStringLiteral("tiny-llama.gguf"))));
    const CliRun r = runWith({"models"}, {{QStringLiteral("HF_HUB_CACHE"), hub.path()},
                                          {QStringLiteral("OLLAMA_MODELS"), store.path()}});
    QCOMPARE(r.exitCode, 0);
    const QJsonArray models = QJsonDocument::fromJson(r.out).array();
    QCOMPARE(models.size(), 3);
    QMap<QString, QJsonObject> byName;
    for (const QJsonValue& m : models) byName[m.toObject().value("name").toString()] = m.toObject();
    const QJsonObject folder = byName.value(QStringLiteral("org/tiny-llama"));
    QCOMPARE(folder.value("source").toString(), QStringLiteral("huggingface"));
    QCOMPARE(folder.value("family").toString(), QStringLiteral("llama"));
    QCOMPARE(folder.value("dtype").toString(), QStringLiteral("BF16"));
    QCOMPARE(folder.value("supported").toBool(), true);
    QVERIFY(!folder.contains("reason"));
    // Every tensor of the tiny Llama: the embedding, 2 layers, the norm and the head.
    const qint64 d = 16, f = 24, q = 16, kv = 8;
    const qint64 perLayer = q * d + 2 * kv * d + d * q + 3 * f * d + 2 * d;
    QCOMPARE(folder.value("parameters").toInteger(), 700 * d + 2 * perLayer + d + 700 * d);
    const QJsonObject gguf = byName.value(QStringLiteral("org/tiny-GGUF/tiny-qwen3-Q4_K.gguf"));
    QCOMPARE(gguf.value("family").toString(), QStringLiteral("qwen3"));
    QCOMPARE(gguf.value("supported").toBool(), true);
    QCOMPARE(gguf.value("bytes").toInteger(),
             QFileInfo(QDir(kGgufDir).filePath(QStringLiteral("tiny-qwen3.gguf"))).size());
    const QJsonObject ollama = byName.value(QStringLiteral("ollama:llama-tiny:1b"));
    QCOMPARE(ollama.value("source").toString(), QStringLiteral("ollama"));
    QCOMPARE(ollama.value("family").toString(), QStringLiteral("llama"));
    QVERIFY(ollama.value("path").toString().endsWith(QStringLiteral("sha256-") + kDigest));
    QVERIFY(ollama.value("parameters").toInteger() > 0);
    for (const char* key :
         {"name", "path", "source", "family", "parameters", "dtype", "bytes", "supported"})
        QVERIFY2(ollama.contains(key), qPrintable(key));
}

void TestCliFamilies::badGgufFiles_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    // The reference llama file, damaged in one place each.
    QFile file(QDir(kGgufDir).filePath(QStringLiteral("tiny-llama.gguf")));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray good = file.readAll();
    QTest::newRow("wrong magic") << QByteArray("GGUG") + good.mid(4) << "GGUF";
    QByteArray v1 = good;
    v1[4] = 1;
    QTest::newRow("version 1") << v1 << "version 1";
    QTest::newRow("cut short") << good.left(good.size() / 2) << "";
    QTest::newRow("cut in the header") << good.left(40) << "";

    attn::GgufTestFile gpt2 = attn::ggufTestFile();
    gpt2.metadata = {{"general.architecture", attn::ggufString("gpt2")}};
    QTest::newRow("another architecture")
        << attn::serializeGguf(gpt2) << "architecture \"gpt2\" is not supported";
    attn::GgufTestFile noVocab = attn::ggufTestFile();
    noVocab.metadata = {{"general.architecture", attn::ggufString("llama")},
                        {"llama.embedding_length", attn::ggufUInt32(4)},
                        {"llama.block_count", attn::ggufUInt32(1)},
                        {"llama.feed_forward_length", attn::ggufUInt32(8)},
                        {"llama.attention.head_count", attn::ggufUInt32(2)},
                        {"llama.context_length", attn::ggufUInt32(16)}};
    noVocab.tensors = {
        attn::ggufF32Tensor("token_embd.weight", {4, 10}, std::vector<float>(40, 0.5f)),
        attn::ggufF32Tensor("blk.0.attn_norm.weight", {4}, std::vector<float>(4, 1.0f))};
    QTest::newRow("no vocabulary")
        << attn::serializeGguf(noVocab) << "no vocabulary (tokenizer.ggml.tokens)";
    // Nothing is sized by block_count before the last layer is found (the fuzzer's first find:
    // 2^24 layers of views was 20 GB).
    attn::GgufTestFile manyLayers = noVocab;
    manyLayers.metadata[2] = {"llama.block_count", attn::ggufUInt32(16777216)};
    QTest::newRow("block_count past the tensors")
        << attn::serializeGguf(manyLayers)
        << "llama.block_count is 16777216 but the file has no blk.16777215.attn_norm.weight";
    attn::GgufTestFile noEmbedding = noVocab;
    noEmbedding.tensors.erase(noEmbedding.tensors.begin());
    QTest::newRow("no embedding") << attn::serializeGguf(noEmbedding) << "no token_embd.weight";
    attn::GgufTestFile iq = noVocab;
    iq.tensors.push_back({"blk.0.attn_q.weight", {256, 4}, 16, QByteArray(4 * 66, '\0'), {}});
    QTest::newRow("a type not computed") << attn::serializeGguf(iq) << "IQ2_XXS";
}

// Each refused with one line naming the problem, status 2, well within 10 s.
void TestCliFamilies::badGgufFiles() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("model.gguf"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size());
    file.close();
    QElapsedTimer timer;
    timer.start();
    const CliRun r = runCli({"forward", "--model", path, "--text", "a", "--summary"});
    QVERIFY(timer.elapsed() < 10000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QVERIFY2(r.err.contains("model.gguf"), r.err.constData());
}

QTEST_GUILESS_MAIN(TestCliFamilies)
#include "test_cli_families.moc"
