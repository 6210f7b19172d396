// The safetensors reader and writer (app/io/safetensors.h) and the GPT-2 folder loader
// (app/io/model_folder.h): F16/BF16 bits as torch rounds them (hand-computed), F32 views into the
// mapped file, and every hostile file or folder refused with its own one-line message.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <cstring>
#include <limits>

#include "app/io/model_folder.h"
#include "app/io/safetensors.h"
#include "model/generator.h"
#include "model/transformer.h"
#include "tests/support/model_test_folder.h"
#include "tests/support/model_test_weights.h"

namespace {

QByteArray file(const QByteArray& header, const QByteArray& data) {
    QByteArray out(8, '\0');
    const quint64 n = static_cast<quint64>(header.size());
    for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    return out + header + data;
}

QString openError(const QByteArray& bytes) {
    const attn::SafetensorsOpenResult r = attn::SafetensorsFile::fromBytes(bytes);
    return r.ok() ? QString() : r.error;
}

}  // namespace

class TestSafetensors : public QObject {
    Q_OBJECT

private slots:
    // Bits computed by hand from IEEE 754 binary16 / bfloat16 (round to nearest, ties to even).
    void halfAndBfloat16Bits() {
        QCOMPARE(attn::halfToFloat(0x3C00), 1.0f);
        QCOMPARE(attn::halfToFloat(0xC000), -2.0f);
        QCOMPARE(attn::halfToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
        QCOMPARE(attn::halfToFloat(0x03FF), std::ldexp(1023.0f, -24));
        QCOMPARE(attn::halfToFloat(0x7BFF), 65504.0f);
        QVERIFY(std::isinf(attn::halfToFloat(0x7C00)) && attn::halfToFloat(0x7C00) > 0);
        QVERIFY(std::isinf(attn::halfToFloat(0xFC00)) && attn::halfToFloat(0xFC00) < 0);
        QVERIFY(std::isnan(attn::halfToFloat(0x7E00)));
        QCOMPARE(attn::floatToHalf(1.0f), std::uint16_t{0x3C00});
        QCOMPARE(attn::floatToHalf(1.0f + std::ldexp(1.0f, -11)), std::uint16_t{0x3C00});  // tie
        QCOMPARE(attn::floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), std::uint16_t{0x3C02});
        QCOMPARE(attn::floatToHalf(65520.0f), std::uint16_t{0x7C00});  // rounds up to inf
        QCOMPARE(attn::floatToHalf(std::ldexp(1.0f, -25)), std::uint16_t{0x0000});  // tie to 0
        QCOMPARE(attn::floatToHalf(std::ldexp(3.0f, -26)), std::uint16_t{0x0001});
        QCOMPARE(attn::floatToHalf(std::numeric_limits<float>::quiet_NaN()), std::uint16_t{0x7E00});
        QCOMPARE(attn::bfloat16ToFloat(0x3F80), 1.0f);
        QCOMPARE(attn::floatToBfloat16(1.0f + std::ldexp(1.0f, -8)), std::uint16_t{0x3F80});
        QCOMPARE(attn::floatToBfloat16(1.0f + 3 * std::ldexp(1.0f, -8)), std::uint16_t{0x3F82});
        QCOMPARE(attn::floatToBfloat16(-0.43f), std::uint16_t{0xBEDC});  // 0xBEDC28F6 rounds down
    }

    void roundTripAndViews() {
        QTemporaryDir dir;
        const QString path = dir.filePath("t.safetensors");
        std::vector<attn::SafetensorsTensorToWrite> tensors{
            {"a", "F32", {2, 3}, {0.43f, 0.15f, 0.89f, -1.0f, 2.5f, 1e-8f}},
            {"b", "F16", {2}, {1.0f + std::ldexp(1.0f, -11), 65520.0f}},
            {"c", "BF16", {1}, {1.0f + 3 * std::ldexp(1.0f, -8)}}};
        QString error;
        QVERIFY2(attn::writeSafetensors(path, tensors, {{"format", "pt"}}, &error),
                 qPrintable(error));
        const attn::SafetensorsOpenResult opened = attn::SafetensorsFile::open(path);
        QVERIFY2(opened.ok(), qPrintable(opened.error));
        QCOMPARE(opened.file->names(), (QStringList{"a", "b", "c"}));
        QCOMPARE(opened.file->metadata().value("format"), QStringLiteral("pt"));
        const attn::FloatTensorResult a = opened.file->floats("a");
        QVERIFY(a.ok());
        QCOMPARE(a.tensor.shape, (std::vector<qint64>{2, 3}));
        for (int i = 0; i < 6; ++i)
            QCOMPARE(a.tensor.data[i], tensors[0].values[static_cast<std::size_t>(i)]);
        const attn::FloatTensorResult b = opened.file->floats("b");
        QCOMPARE(b.tensor.data[0], 1.0f);
        QVERIFY(std::isinf(b.tensor.data[1]));
        QCOMPARE(opened.file->floats("c").tensor.data[0], 1.0f + std::ldexp(1.0f, -6));
        QVERIFY(opened.file->floats("zz").error.contains("no tensor \"zz\""));
    }

    void hostileFiles_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        const QByteArray f32x2(8, '\0');
        QTest::newRow("too short") << QByteArray("abc") << "shorter than the 8-byte";
        QTest::newRow("header past the end")
            << file("{}", {}).left(8) + QByteArray("{", 1) << "header length";
        QByteArray huge(8, '\0');
        huge[5] = 1;  // 2^40
        QTest::newRow("header length huge") << huge + QByteArray("{}") << "header length";
        QTest::newRow("not json") << file("{nope", {}) << "not valid JSON";
        QTest::newRow("not an object") << file("[1, 2]", {}) << "not a JSON object";
        QTest::newRow("unknown dtype")
            << file(R"({"x": {"dtype": "F8", "shape": [1], "data_offsets": [0, 1]}})", "\0")
            << "unknown dtype \"F8\"";
        QTest::newRow("negative shape")
            << file(R"({"x": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", f32x2)
            << "non-negative";
        QTest::newRow("absurd shape")
            << file(R"({"x": {"dtype": "F32", "shape": [4294967296, 4294967296, 4294967296],
                        "data_offsets": [0, 8]}})",
                    f32x2)
            << "absurdly large";
        QTest::newRow("offsets outside")
            << file(R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 16]}})", f32x2)
            << "outside the";
        QTest::newRow("size mismatch")
            << file(R"({"x": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", f32x2)
            << "bytes for 3 elements";
        QTest::newRow("overlap")
            << file(R"({"x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                        "y": {"dtype": "F32", "shape": [1], "data_offsets": [2, 6]}})",
                    f32x2)
            << "overlap";
    }

    void hostileFiles() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        const QString error = openError(bytes);
        QVERIFY2(!error.isEmpty(), "accepted");
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY(!error.contains('\n'));
    }

    // Folders that are not GPT-2 models, or whose weights do not match their config.
    void badFolders() {
        QTemporaryDir dir;
        const attn::TransformerWeights w = attn::make_random_weights(attn::tiny_gpt2_spec(), 1);
        QString error;
        const QString good = dir.filePath("good");
        QVERIFY(model_test::writeFolder(good, w, "F32", model_test::Layout::Plain, &error));
        QVERIFY(attn::loadModelFolder(good).ok());
        auto loadError = [](const QString& folder) { return attn::loadModelFolder(folder).error; };
        QVERIFY(loadError(dir.filePath("absent")).contains("is not a folder"));
        QVERIFY(QDir().mkpath(dir.filePath("empty")));
        QVERIFY(loadError(dir.filePath("empty")).contains("has no config.json"));

        auto withConfig = [&](const QString& name, const QByteArray& from, const QByteArray& to) {
            const QString folder = dir.filePath(name);
            model_test::writeFolder(folder, w, "F32", model_test::Layout::Plain, &error);
            QFile config(QDir(folder).filePath("config.json"));
            config.open(QIODevice::ReadOnly);
            QByteArray text = config.readAll();
            config.close();
            text.replace(from, to);
            config.open(QIODevice::WriteOnly | QIODevice::Truncate);
            config.write(text);
            config.close();
            return loadError(folder);
        };
        // GPT-2's keys under another family's model_type: that family's reader names its key.
        const QString llama = withConfig("llama", "\"gpt2\"", "\"llama\"");
        QVERIFY2(llama.contains("config.json has no \"hidden_size\""), qPrintable(llama));
        const QString t5 = withConfig("t5", "\"gpt2\"", "\"t5\"");
        QVERIFY2(t5.contains("\"model_type\" is the string \"t5\"; the models that open are"),
                 qPrintable(t5));
        const QString tanh = withConfig("tanh", "\"gelu_new\"", "\"tanh\"");
        QVERIFY2(tanh.contains("activation_function the string \"tanh\" is not supported"),
                 qPrintable(tanh));
        const QString shape = withConfig("wide", "\"n_embd\": 8", "\"n_embd\": 16");
        QVERIFY2(shape.contains("tensor wte.weight has shape [32, 8]; the config needs [32, 16]"),
                 qPrintable(shape));
        const QString untied =
            withConfig("untied", "\"tie_word_embeddings\": true", "\"tie_word_embeddings\": false");
        QVERIFY2(untied.contains("lm_head.weight") && untied.contains("missing"),
                 qPrintable(untied));

        // A shard named by the index but absent.
        const QString sharded = dir.filePath("sharded");
        QVERIFY(model_test::writeFolder(sharded, w, "F32", model_test::Layout::Sharded, &error));
        QVERIFY(attn::loadModelFolder(sharded).ok());
        QVERIFY(QFile::remove(QDir(sharded).filePath("model-00002-of-00002.safetensors")));
        QVERIFY(loadError(sharded).contains("model-00002-of-00002.safetensors is missing"));

        // A truncated weights file.
        const QString cut = dir.filePath("cut");
        QVERIFY(model_test::writeFolder(cut, w, "F32", model_test::Layout::Plain, &error));
        QFile weights(QDir(cut).filePath("model.safetensors"));
        QVERIFY(weights.resize(weights.size() - 100));
        QVERIFY2(loadError(cut).contains("model.safetensors: "), qPrintable(loadError(cut)));

        // Cancelled between tensors.
        std::atomic<bool> cancel{true};
        attn::ModelLoadOptions options;
        options.cancel = &cancel;
        const attn::ModelLoadResult cancelled = attn::loadModelFolder(good, options);
        QVERIFY(!cancelled.ok() && cancelled.cancelled);
    }

    // F32 weights read back bit for bit (views into the mapped file).
    void f32BitExact() {
        QTemporaryDir dir;
        const attn::TransformerWeights w = attn::make_random_weights(attn::tiny_gpt2_spec(), 2);
        QString error;
        QVERIFY(model_test::writeFolder(dir.path(), w, "F32", model_test::Layout::Plain, &error));
        attn::ModelLoadResult loaded = attn::loadModelFolder(dir.path());
        QVERIFY(loaded.ok());
        QFile f(dir.filePath("model.safetensors"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        const float* wte = (*loaded.weights)[attn::TensorRole::TokenEmbedding].data;
        // The mapping holds exactly the file's bytes at the view's address.
        QCOMPARE(std::memcmp(wte, w[attn::TensorRole::TokenEmbedding].data, sizeof(float) * 32 * 8),
                 0);
        QCOMPARE(std::memcmp(loaded.weights->layers[1][attn::TensorRole::UpWeight].data,
                             w.layers[1][attn::TensorRole::UpWeight].data, sizeof(float) * 8 * 32),
                 0);
        QVERIFY(bytes.contains(QByteArray(reinterpret_cast<const char*>(wte), 64)));
    }
};

QTEST_GUILESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
