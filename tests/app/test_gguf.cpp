// The GGUF reader (app/io/gguf.h): a file NumPy and struct wrote from the spec
// (tests/reference/gguf_sample.py), files of tests/support/gguf_writer.h read back value by value
// (versions 2 and 3, alignments 32 and 64), and every kind of damage refused with its own
// one-line message, fast, without a crash.
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>
#include <cmath>
#include <cstring>
#include <limits>

#include "app/io/gguf.h"
#include "model/ggml_types.h"
#include "tests/reference/gguf_sample_reference.h"
#include "tests/support/gguf_writer.h"

namespace {

using attn::GgufValue;
using Type = attn::GgufValue::Type;
namespace ref = gguf_sample_reference;

attn::GgufResult parse(const QByteArray& bytes) {
    return attn::parseGguf(reinterpret_cast<const uchar*>(bytes.constData()), bytes.size());
}

QString parseError(const QByteArray& bytes) {
    const attn::GgufResult r = parse(bytes);
    return r.ok() ? QString() : r.error;
}

QByteArray u64(quint64 v) {
    QByteArray out(8, '\0');
    qToLittleEndian<quint64>(v, out.data());
    return out;
}

std::uint32_t ggml(attn::GgmlType t) { return static_cast<std::uint32_t>(t); }

// A tensor of `type` whose rows hold `rowLength` values, with the bytes ggml's table gives.
attn::GgufTestTensor rawTensor(const QByteArray& name, attn::GgmlType type, quint64 rowLength,
                               quint64 rows) {
    const attn::GgmlTypeTraits traits = attn::ggml_type_traits(ggml(type));
    QByteArray data;
    const quint64 bytes = rowLength / traits.block_size * traits.type_size * rows;
    for (quint64 i = 0; i < bytes; ++i) data.append(static_cast<char>(i * 7 + 3));
    return {name, {rowLength, rows}, ggml(type), data, std::nullopt};
}

// One key of every value type, a vocabulary, arrays of arrays, an empty array; three tensors.
attn::GgufTestFile everyKindFile(std::uint32_t version, quint64 alignment) {
    attn::GgufTestFile f = attn::ggufTestFile();
    f.version = version;
    f.alignment = alignment;
    if (alignment != attn::kDefaultGgufAlignment)
        f.metadata.push_back({"general.alignment", attn::ggufUInt32(quint32(alignment))});
    f.metadata.push_back({"t.u8", attn::ggufUInt8(255)});
    f.metadata.push_back({"t.i8", attn::ggufInt8(-128)});
    f.metadata.push_back({"t.u16", attn::ggufUInt16(65535)});
    f.metadata.push_back({"t.i16", attn::ggufInt16(-32768)});
    f.metadata.push_back({"t.u32", attn::ggufUInt32(4294967295u)});
    f.metadata.push_back({"t.i32", attn::ggufInt32(std::numeric_limits<qint32>::min())});
    f.metadata.push_back({"t.f32", attn::ggufFloat32(-0.43f)});
    f.metadata.push_back({"t.bool", attn::ggufBool(false)});
    f.metadata.push_back({"t.string", attn::ggufString("Grüße")});
    f.metadata.push_back({"t.u64", attn::ggufUInt64(std::numeric_limits<quint64>::max())});
    f.metadata.push_back({"t.i64", attn::ggufInt64(std::numeric_limits<qint64>::min())});
    f.metadata.push_back({"t.f64", attn::ggufFloat64(1e-300)});
    f.metadata.push_back({"tokenizer.ggml.tokens", attn::ggufStringArray({"<s>", "", "ab"})});
    f.metadata.push_back({"tokenizer.ggml.scores", attn::ggufFloat32Array({0.5f, -1.25f, 3.0f})});
    f.metadata.push_back(
        {"t.bools", attn::ggufArray(Type::Bool, {attn::ggufBool(true), attn::ggufBool(false)})});
    f.metadata.push_back({"t.nested", attn::ggufArray(Type::Array, {attn::ggufInt32Array({7, -8}),
                                                                    attn::ggufInt32Array({})})});
    f.tensors.push_back(attn::ggufF32Tensor("token_embd.weight", {3, 2}, {1, -2, 0.5f, 4, 5, 6}));
    f.tensors.push_back(rawTensor("blk.0.attn_q.weight", attn::GgmlType::Q4_K, 256, 2));
    f.tensors.push_back(rawTensor("output_norm.weight", attn::GgmlType::F16, 3, 1));
    return f;
}

}  // namespace

class TestGguf : public QObject {
    Q_OBJECT

private slots:
    // Bytes Python wrote from the spec: every value as the script printed it.
    void readsTheFilePythonWrote() {
        const QString path = QStringLiteral(ATTN_GGUF_DATA_DIR "/sample.gguf");
        QVERIFY(attn::looksLikeGguf(path));
        const attn::GgufResult r = attn::openGguf(path);
        QVERIFY2(r.ok(), qPrintable(r.error));
        const attn::GgufFile& f = *r.file;
        QCOMPARE(f.version(), 3u);
        QCOMPARE(f.alignment(), quint64{ref::kAlignment});
        QCOMPARE(f.dataStart(), quint64(ref::kDataStart));
        QCOMPARE(int(f.metadata().size()), ref::kMetadataCount);
        QCOMPARE(f.metadata()[2].key, QByteArray("general.name"));
        QCOMPARE(f.architecture(), QStringLiteral("llama"));
        QCOMPARE(f.string("general.name"), QByteArray(ref::kName));
        QCOMPARE(f.integer("{arch}.context_length"), qint64{2048});
        QCOMPARE(f.integer("llama.embedding_length"), qint64{8});
        QCOMPARE(f.floating("{arch}.attention.layer_norm_rms_epsilon"), double(1e-5f));
        QCOMPARE(f.integer("test.uint8"), qint64{200});
        QCOMPARE(f.integer("test.int8"), qint64{-100});
        QCOMPARE(f.integer("test.uint16"), qint64{60000});
        QCOMPARE(f.integer("test.int16"), qint64{-30000});
        QCOMPARE(f.integer("test.uint32"), qint64{4000000000});
        QCOMPARE(f.integer("test.int32"), qint64{-2000000000});
        QCOMPARE(f.floating("test.float32"), double(0.1f));
        QCOMPARE(f.boolean("test.bool"), true);
        QCOMPARE(f.integer("test.uint64"), std::nullopt);  // past qint64
        QCOMPARE(f.value("test.uint64")->toUInt(), (quint64{1} << 63) + 5);
        QCOMPARE(f.integer("test.int64"), -(qint64{1} << 62) - 3);
        QCOMPARE(f.floating("test.float64"), 1.0 / 3.0);
        const GgufValue* nested = f.value("test.nested");
        QVERIFY(nested && nested->elementType == Type::Array && nested->items.size() == 2);
        QCOMPARE(nested->items[0].integerArray(), (std::vector<qint64>{1, 2}));
        QCOMPARE(nested->items[1].integerArray(), (std::vector<qint64>{3}));
        QCOMPARE(nested->items[1].elementType, Type::UInt16);
        QCOMPARE(f.value("test.empty")->count, qint64{0});
        QCOMPARE(f.value("test.empty")->numberArray(), std::vector<double>{});
        QList<QByteArray> tokens;
        for (const char* t : ref::kTokens) tokens << QByteArray(t);
        QCOMPARE(f.value("tokenizer.ggml.tokens")->stringArray(), tokens);
        std::vector<double> scores;
        for (float s : ref::kScores) scores.push_back(double(s));
        QCOMPARE(f.value("tokenizer.ggml.scores")->numberArray(), scores);
        QCOMPARE(f.value("tokenizer.ggml.token_type")->integerArray(),
                 (std::vector<qint64>(ref::kTokenTypes.begin(), ref::kTokenTypes.end())));

        QCOMPARE(f.tensors().size(), ref::kTensors.size());
        for (std::size_t i = 0; i < ref::kTensors.size(); ++i) {
            const ref::Tensor& want = ref::kTensors[i];
            const attn::GgufTensorInfo& got = f.tensors()[i];
            QCOMPARE(got.name, QByteArray(want.name));
            QCOMPARE(got.dims, (std::vector<qint64>(want.dims.begin(), want.dims.end())));
            QCOMPARE(got.type, want.type);
            QCOMPARE(got.offset, want.offset);
            QCOMPARE(got.bytes, want.bytes);
            QCOMPARE(QByteArray(reinterpret_cast<const char*>(got.data), qsizetype(got.bytes)),
                     QByteArray(reinterpret_cast<const char*>(want.data.data()),
                                qsizetype(want.data.size())));
            QCOMPARE(f.tensor(want.name), &got);
        }
        const attn::GgufTensorInfo* embd = f.tensor("token_embd.weight");
        std::vector<float> values(ref::kEmbd.size());
        std::memcpy(values.data(), embd->data, values.size() * sizeof(float));
        QCOMPARE(values, ref::kEmbd);
        QCOMPARE(embd->elements, qint64{32});
        QCOMPARE(f.tensor("nope"), nullptr);
        QVERIFY(f.storage() != nullptr);
        QCOMPARE(attn::checkGgufTensorTypes(f), QString());  // F32, F16, Q8_0
    }

    void readsEveryValueBack_data() {
        QTest::addColumn<uint>("version");
        QTest::addColumn<quint64>("alignment");
        QTest::newRow("v3 align 32") << 3u << quint64{32};
        QTest::newRow("v3 align 64") << 3u << quint64{64};
        QTest::newRow("v2 align 32") << 2u << quint64{32};
        QTest::newRow("v2 align 64") << 2u << quint64{64};
    }

    void readsEveryValueBack() {
        QFETCH(uint, version);
        QFETCH(quint64, alignment);
        const attn::GgufTestFile written = everyKindFile(version, alignment);
        const QByteArray bytes = attn::serializeGguf(written);
        const attn::GgufResult r = parse(bytes);
        QVERIFY2(r.ok(), qPrintable(r.error));
        const attn::GgufFile& f = *r.file;
        QCOMPARE(f.version(), version);
        QCOMPARE(f.alignment(), alignment);
        QCOMPARE(f.metadata().size(), written.metadata.size());
        for (std::size_t i = 0; i < written.metadata.size(); ++i)
            QCOMPARE(f.metadata()[i].key, written.metadata[i].first);
        QCOMPARE(f.integer("t.u8"), qint64{255});
        QCOMPARE(f.integer("t.i8"), qint64{-128});
        QCOMPARE(f.integer("t.u16"), qint64{65535});
        QCOMPARE(f.integer("t.i16"), qint64{-32768});
        QCOMPARE(f.integer("t.u32"), qint64{4294967295});
        QCOMPARE(f.integer("t.i32"), qint64{std::numeric_limits<qint32>::min()});
        QCOMPARE(f.floating("t.f32"), double(-0.43f));
        QCOMPARE(f.boolean("t.bool"), false);
        QCOMPARE(f.string("t.string"), QByteArray("Grüße"));
        QCOMPARE(f.value("t.u64")->toUInt(), std::numeric_limits<quint64>::max());
        QCOMPARE(f.integer("t.i64"), std::numeric_limits<qint64>::min());
        QCOMPARE(f.floating("t.f64"), 1e-300);
        QCOMPARE(f.value("t.u32")->type, Type::UInt32);
        // Asked as another kind, a value is missing rather than converted.
        QCOMPARE(f.string("t.u8"), std::nullopt);
        QCOMPARE(f.integer("t.f32"), std::nullopt);
        QCOMPARE(f.boolean("t.u8"), std::nullopt);
        QCOMPARE(f.value("t.i8")->toUInt(), std::nullopt);
        QCOMPARE(f.floating("t.u16"), 65535.0);  // integers read as numbers
        QCOMPARE(f.value("tokenizer.ggml.tokens")->stringArray(),
                 (QList<QByteArray>{"<s>", "", "ab"}));
        QCOMPARE(f.value("tokenizer.ggml.tokens")->element(2)->toString(), QByteArray("ab"));
        QCOMPARE(f.value("tokenizer.ggml.scores")->numberArray(),
                 (std::vector<double>{0.5, -1.25, 3.0}));
        QCOMPARE(f.value("tokenizer.ggml.scores")->element(1)->toDouble(), -1.25);
        QCOMPARE(f.value("tokenizer.ggml.scores")->element(3), std::nullopt);
        QCOMPARE(f.value("tokenizer.ggml.scores")->integerArray(), std::nullopt);
        QCOMPARE(f.value("t.bools")->element(0)->toBool(), true);
        QCOMPARE(f.value("t.bools")->element(1)->toBool(), false);
        const GgufValue* nested = f.value("t.nested");
        QCOMPARE(attn::ggufValueTypeName(*nested), QStringLiteral("array of array"));
        QCOMPARE(nested->items.size(), std::size_t{2});
        QCOMPARE(nested->items[0].integerArray(), (std::vector<qint64>{7, -8}));
        QCOMPARE(nested->items[1].count, qint64{0});

        // Offsets: each tensor at the next multiple of the alignment.
        const quint64 q4kOffset = (24 + alignment - 1) / alignment * alignment;
        const quint64 q4kBytes = 2 * 144;
        const std::vector<quint64> offsets{
            0, q4kOffset, (q4kOffset + q4kBytes + alignment - 1) / alignment * alignment};
        const std::vector<quint64> sizes{24, q4kBytes, 6};
        QCOMPARE(f.tensors().size(), std::size_t{3});
        QCOMPARE(f.dataStart() % alignment, quint64{0});
        for (std::size_t i = 0; i < 3; ++i) {
            const attn::GgufTensorInfo& t = f.tensors()[i];
            QCOMPARE(t.name, written.tensors[i].name);
            QCOMPARE(t.type, written.tensors[i].type);
            QCOMPARE(t.offset, offsets[i]);
            QCOMPARE(t.bytes, sizes[i]);
            QCOMPARE(t.data, reinterpret_cast<const uchar*>(bytes.constData()) + f.dataStart() +
                                 offsets[i]);
            QCOMPARE(QByteArray(reinterpret_cast<const char*>(t.data), qsizetype(t.bytes)),
                     written.tensors[i].data);
        }
        QCOMPARE(f.tensors()[0].dims, (std::vector<qint64>{3, 2}));
        QCOMPARE(f.tensors()[0].elements, qint64{6});
        QCOMPARE(f.tensors()[1].dims, (std::vector<qint64>{256, 2}));
        QCOMPARE(f.tensors()[1].elements, qint64{512});
        float second;
        std::memcpy(&second, f.tensors()[0].data + 4, sizeof second);
        QCOMPARE(second, -2.0f);
    }

    void keysWithTheArchitecture() {
        attn::GgufTestFile w;
        w.metadata.push_back({"qwen2.block_count", attn::ggufUInt32(24)});
        w.metadata.push_back({"general.architecture", attn::ggufString("qwen2")});
        w.metadata.push_back({"llama.block_count", attn::ggufUInt32(3)});
        const attn::GgufResult r = parse(attn::serializeGguf(w));
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.file->integer("{arch}.block_count"), qint64{24});
        QCOMPARE(r.file->integer("{arch}.context_length"), std::nullopt);
        QCOMPARE(r.file->alignment(), quint64{32});  // the default
        QVERIFY(r.file->tensors().empty());
    }

    // Parsed, but the engine would refuse it: the loader asks checkGgufTensorTypes.
    void typesThisAppDoesNotCompute() {
        attn::GgufTestFile w = attn::ggufTestFile();
        w.tensors.push_back(attn::ggufF32Tensor("token_embd.weight", {2}, {1, 2}));
        w.tensors.push_back(rawTensor("blk.0.attn_q.weight", attn::GgmlType::IQ2_XXS, 256, 1));
        const attn::GgufResult r = parse(attn::serializeGguf(w));
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.file->tensors()[1].bytes, quint64{66});
        const QString error = attn::checkGgufTensorTypes(*r.file);
        QVERIFY2(error.contains("\"blk.0.attn_q.weight\" is IQ2_XXS, which this app does not "
                                "compute: use a Q4_K_M, Q5_K_M, Q8_0, F16 or F32 file"),
                 qPrintable(error));
    }

    void damagedFiles_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        using namespace attn;
        auto file = [](auto change) {
            GgufTestFile f = ggufTestFile();
            f.tensors.push_back(ggufF32Tensor("blk.0.attn_q.weight", {2, 2}, {1, 2, 3, 4}));
            change(f);
            return serializeGguf(f);
        };
        auto meta = [&file](const QByteArray& key, const GgufTestValue& value) {
            return file([&](GgufTestFile& f) { f.metadata.push_back({key, value}); });
        };
        auto tensor = [&file](auto change) {
            return file([&](GgufTestFile& f) { change(f.tensors[0]); });
        };
        const quint64 huge = quint64{1} << 60;

        QTest::newRow("shorter than the magic") << QByteArray("GG") << "shorter than the 4-byte";
        QTest::newRow("wrong magic") << QByteArray("PK\3\4 a zip file") << "not a GGUF file";
        QTest::newRow("old GGJT file") << file([](GgufTestFile& f) { f.magic = "tjgg"; })
                                       << "old GGML/GGJT model file from before GGUF";
        QTest::newRow("version 1") << file([](GgufTestFile& f) { f.version = 1; })
                                   << "GGUF version 1 is not read: only versions 2 and 3 are; "
                                      "convert the model again with a current llama.cpp";
        QTest::newRow("version 4")
            << file([](GgufTestFile& f) { f.version = 4; }) << "GGUF version 4 is not read";
        QTest::newRow("big-endian")
            << file([](GgufTestFile& f) { f.version = 0x03000000; }) << "big-endian GGUF";
        QTest::newRow("metadata count past the file")
            << file([&](GgufTestFile& f) { f.metadataCount = huge; })
            << "1152921504606846976 metadata entries";
        QTest::newRow("tensor count past the file")
            << file([&](GgufTestFile& f) { f.tensorCount = ~quint64{0}; })
            << "18446744073709551615 tensors";
        QTest::newRow("key length past the file")
            << file([](GgufTestFile& f) { f.metadataCount = 2; }).left(24 + 8 + 20 + 8 + 4 + 5) +
                   u64(quint64{1} << 63) + QByteArray(40, 'k')
            << "metadata entry 1's key is a string of 9223372036854775808 bytes";
        QTest::newRow("string length near 2^64") << meta("t.s", ggufRaw(8, u64(~quint64{0})))
                                                 << "\"t.s\" is a string of 18446744073709551615";
        QTest::newRow("array of 2^60 uint8")
            << meta("t.a", ggufArray(GgufValue::Type::UInt8, {}, huge))
            << "\"t.a\" is an array of 1152921504606846976 elements of type uint8";
        QTest::newRow("array of 2^60 strings")
            << meta("t.a", ggufArray(GgufValue::Type::String, {}, huge))
            << "1152921504606846976 elements of type string";
        QTest::newRow("array of 2^60 arrays")
            << meta("t.a", ggufArray(GgufValue::Type::Array, {}, huge))
            << "1152921504606846976 elements of type array";
        const GgufTestValue depth3 = ggufArray(
            GgufValue::Type::Array, {ggufArray(GgufValue::Type::Array, {ggufInt32Array({1})})});
        QTest::newRow("arrays nested 4 deep")
            << meta("t.deep", ggufArray(GgufValue::Type::Array, {depth3}))
            << "\"t.deep\" nests arrays 4 deep, more than the 3";
        const std::vector<GgufTestValue> manyArrays(40000, ggufInt32Array({}));
        QTest::newRow("80000 arrays in arrays") << file([&](GgufTestFile& f) {
            f.metadata.push_back({"t.a", ggufArray(GgufValue::Type::Array, manyArrays)});
            f.metadata.push_back({"t.b", ggufArray(GgufValue::Type::Array, manyArrays)});
        }) << "\"t.b\" brings the arrays inside arrays to 80000, more than the 65536";
        QTest::newRow("unknown value type")
            << meta("t.x", ggufRaw(13, QByteArray(8, '\0'))) << "\"t.x\" has value type 13";
        QTest::newRow("unknown array element type")
            << meta("t.x", ggufRaw(9, QByteArray("\x63\0\0\0", 4) + u64(1)))
            << "\"t.x\" has value type 99";
        QTest::newRow("bool of 7")
            << meta("t.b", ggufRaw(7, "\x07")) << "\"t.b\": a bool must be 0 or 1, not 7";
        QTest::newRow("bool array with a 2")
            << meta("t.b", ggufRaw(9, QByteArray("\7\0\0\0", 4) + u64(2) + QByteArray("\1\2", 2)))
            << "a bool must be 0 or 1, not 2";
        QTest::newRow("repeated key") << meta("general.architecture", ggufString("qwen2"))
                                      << "the metadata key \"general.architecture\" appears twice";
        QTest::newRow("no architecture")
            << file([](GgufTestFile& f) { f.metadata.clear(); }) << "no general.architecture";
        QTest::newRow("architecture not a string")
            << file([](GgufTestFile& f) { f.metadata[0].second = ggufUInt32(1); })
            << "general.architecture is a uint32, not a string";
        QTest::newRow("architecture empty")
            << file([](GgufTestFile& f) { f.metadata[0].second = ggufString(""); })
            << "general.architecture is empty";
        // The message stays one line whatever the name holds.
        QTest::newRow("repeated name with a line break") << file([](GgufTestFile& f) {
            f.tensors[0].name = "x\ny";
            f.tensors.push_back(f.tensors[0]);
        }) << "the tensor name \"x y\" appears twice";
        QTest::newRow("alignment 48") << meta("general.alignment", ggufUInt32(48))
                                      << "general.alignment is 48, not a power of two";
        QTest::newRow("alignment 0") << meta("general.alignment", ggufUInt32(0))
                                     << "general.alignment is 0, not a power of two";
        QTest::newRow("alignment as uint64") << meta("general.alignment", ggufUInt64(64))
                                             << "general.alignment is a uint64, not a uint32";
        QTest::newRow("offset not a multiple of 32")
            << tensor([](GgufTestTensor& t) { t.offset = 16; })
            << "\"blk.0.attn_q.weight\" starts at offset 16, not a multiple of the alignment 32";
        // Laid out for 32, read with general.alignment 64: the second tensor is at 32.
        QTest::newRow("general.alignment 64 honoured") << file([](GgufTestFile& f) {
            f.metadata.push_back({"general.alignment", ggufUInt32(64)});
            f.tensors.push_back(ggufF32Tensor("b", {1}, {1}));
        }) << "\"b\" starts at offset 32, not a multiple of the alignment 64";
        QTest::newRow("offset past the end")
            << tensor([](GgufTestTensor& t) { t.offset = quint64{1} << 40; })
            << "16 bytes at offset 1099511627776 end past the end of the file";
        QTest::newRow("offset near 2^64")
            << tensor([](GgufTestTensor& t) { t.offset = ~quint64{0} - 31; })
            << "end past the end of the file";
        QTest::newRow("data cut short")
            << file([](GgufTestFile&) {}).chopped(1) << "end past the end of the file";
        QTest::newRow("tensors overlap") << file([](GgufTestFile& f) {
            f.tensors.push_back(ggufF32Tensor("b", {1}, {1}));
            f.tensors[1].offset = 0;
        }) << "tensors \"blk.0.attn_q.weight\" and \"b\" overlap";
        QTest::newRow("unknown tensor type") << tensor([](GgufTestTensor& t) { t.type = 99; })
                                             << "tensor \"blk.0.attn_q.weight\" has type 99, "
                                                "which ggml does not define";
        QTest::newRow("removed tensor type") << tensor([](GgufTestTensor& t) { t.type = 4; })
                                             << "has type 4, which ggml does not define";
        QTest::newRow("5 dimensions") << tensor([](GgufTestTensor& t) {
            t.dims = {1, 1, 1, 1, 4};
        }) << "has 5 dimensions, more than ggml's 4";
        QTest::newRow("no dimensions") << tensor([](GgufTestTensor& t) { t.dims = {}; })
                                       << "\"blk.0.attn_q.weight\" has no dimensions";
        QTest::newRow("dimension 0") << tensor([](GgufTestTensor& t) {
            t.dims = {4, 0};
        }) << "has a dimension of 0, where ggml needs 1 to 2^63 - 1";
        QTest::newRow("negative dimension") << tensor([](GgufTestTensor& t) {
            t.dims = {4, quint64{1} << 63};
        }) << "has a dimension of 9223372036854775808";
        QTest::newRow("elements past 64 bits") << tensor([](GgufTestTensor& t) {
            t.dims = {quint64{1} << 32, quint64{1} << 32};
        }) << "has 4294967296 × 4294967296 elements, more than a 64-bit count holds";
        QTest::newRow("bytes past 64 bits") << tensor([](GgufTestTensor& t) {
            t.dims = {quint64{1} << 31, quint64{1} << 31};
        }) << "takes more bytes than a 64-bit count holds";
        QTest::newRow("row not a multiple of the block") << tensor([](GgufTestTensor& t) {
            t.type = ggml(GgmlType::Q4_K);
            t.dims = {100, 1};
        }) << "is Q4_K, whose blocks hold 256 values, but its rows hold 100";
        QTest::newRow("repeated tensor name")
            << file([](GgufTestFile& f) { f.tensors.push_back(f.tensors[0]); })
            << "the tensor name \"blk.0.attn_q.weight\" appears twice";
        QTest::newRow("tensor name past the file")
            << tensor([](GgufTestTensor& t) { t.name = QByteArray(200, 'n'); }).left(100)
            << "tensor info 0's name is a string of 200 bytes";
    }

    void damagedFiles() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        const QString error = parseError(bytes);
        QVERIFY2(!error.isEmpty(), "accepted");
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY2(!error.contains('\n'), qPrintable(error));
    }

    // Every prefix of a valid file (all value kinds, three tensors) is refused with one line.
    void everyTruncationRefused() {
        const QByteArray bytes = attn::serializeGguf(everyKindFile(3, 32));
        QVERIFY(parse(bytes).ok());
        for (qsizetype n = 0; n < bytes.size(); ++n) {
            const QByteArray prefix = bytes.left(n);  // its own buffer: ASan sees a read past it
            const QString error = parseError(prefix);
            QVERIFY2(!error.isEmpty(), qPrintable(QStringLiteral("prefix %1 accepted").arg(n)));
            QVERIFY2(!error.contains('\n'), qPrintable(error));
        }
    }

    // A count of 2^62 elements is refused from the bytes left, before anything is allocated
    // (an allocation of 2^62 × 8 bytes would abort the test), and a large vocabulary reads in
    // linear time.
    void hugeCountsRefusedAtOnce() {
        QElapsedTimer timer;
        timer.start();
        for (Type t : {Type::UInt64, Type::String, Type::Array}) {
            attn::GgufTestFile w = attn::ggufTestFile();
            w.metadata.push_back({"t.a", attn::ggufArray(t, {}, quint64{1} << 62)});
            const QString error = parseError(attn::serializeGguf(w));
            QVERIFY2(error.contains("4611686018427387904 elements"), qPrintable(error));
        }
        QVERIFY(timer.elapsed() < 1000);

        QList<QByteArray> vocab;
        for (int i = 0; i < 150000; ++i) vocab << QByteArray::number(i * 7919);
        attn::GgufTestFile w = attn::ggufTestFile();
        w.metadata.push_back({"tokenizer.ggml.tokens", attn::ggufStringArray(vocab)});
        const QByteArray bytes = attn::serializeGguf(w);
        timer.restart();
        const attn::GgufResult r = parse(bytes);
        QVERIFY(r.ok());
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
        const QList<QByteArray> read = *r.file->value("tokenizer.ggml.tokens")->stringArray();
        QCOMPARE(read.size(), 150000);
        QCOMPARE(read[149999], QByteArray("1187842081"));
    }

    void openErrorsNameTheFile() {
        QTemporaryDir dir;
        const QString missing = dir.filePath("missing.gguf");
        QVERIFY(!attn::looksLikeGguf(missing));
        const attn::GgufResult r = attn::openGguf(missing);
        QVERIFY(!r.ok());
        QVERIFY2(r.error.startsWith(missing + ": cannot open"), qPrintable(r.error));
        const QString empty = dir.filePath("empty.gguf");
        QVERIFY(QFile(empty).open(QIODevice::WriteOnly));
        QVERIFY2(attn::openGguf(empty).error.startsWith(empty + ": not a GGUF file: 0 bytes"),
                 qPrintable(attn::openGguf(empty).error));
        const QString safetensors = dir.filePath("model.safetensors");
        QFile out(safetensors);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QByteArray("\x10\0\0\0\0\0\0\0{}", 10));
        out.close();
        QVERIFY(!attn::looksLikeGguf(safetensors));
        QVERIFY2(attn::openGguf(safetensors).error.contains("starts with the bytes 10 00 00 00"),
                 qPrintable(attn::openGguf(safetensors).error));
    }

    // The file's tensors outlive the GgufResult they came in: the storage keeps the mapping.
    void tensorsOutliveTheResult() {
        QTemporaryDir dir;
        const QString path = dir.filePath("t.gguf");
        attn::GgufTestFile w = attn::ggufTestFile();
        w.tensors.push_back(attn::ggufF32Tensor("x", {2}, {0.25f, -8.0f}));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(attn::serializeGguf(w));
        out.close();
        std::optional<attn::GgufFile> file = attn::openGguf(path).file;
        QVERIFY(file);
        float values[2];
        std::memcpy(values, file->tensor("x")->data, sizeof values);
        QCOMPARE(values[0], 0.25f);
        QCOMPARE(values[1], -8.0f);
    }
};

QTEST_APPLESS_MAIN(TestGguf)
#include "test_gguf.moc"
