// Fuzzes the GGUF reader (app/io/gguf.h) with arbitrary bytes.
//
// Beyond "no crash, no sanitizer report, no hang, no huge allocation": every input ends in
// exactly one of a file and a one-line message; every value of an accepted file reads through
// every accessor; every tensor lies inside the input, aligned, with the bytes its dims and type
// give; and the accepted file written again by the test writer reads back the same. An accepted
// file then goes through the model loader (app/io/gguf_model.h): its spec, its vocabulary as a
// tokenizer (encode and decode), its weights and, for small models, a forward pass, each ending in
// a result or one message (AttentionError from the engine).
#include <QByteArray>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "app/io/gguf.h"
#include "app/io/gguf_model.h"
#include "app/io/tokenizer.h"
#include "model/ggml_types.h"
#include "model/transformer.h"
#include "tests/support/gguf_writer.h"

namespace {

void checkModel(const attn::GgufFile& file);

[[noreturn]] void fail(const char* what, const QString& detail = {}) {
    std::fprintf(stderr, "fuzz_gguf: %s %s\n", what, detail.toUtf8().constData());
    std::abort();
}

// Reads the value through every accessor; an array's elements one by one.
void walk(const attn::GgufValue& v) {
    volatile double sink = 0;
    if (const auto i = v.toInt()) sink = sink + static_cast<double>(*i);
    if (const auto u = v.toUInt()) sink = sink + static_cast<double>(*u);
    if (const auto d = v.toDouble()) sink = sink + *d;
    if (const auto b = v.toBool()) sink = sink + (*b ? 1 : 0);
    if (const auto s = v.toString()) sink = sink + static_cast<double>(s->size());
    if (v.type == attn::GgufValue::Type::String && !v.toString()) fail("string without text");
    if (!v.isArray()) return;
    (void)attn::ggufValueTypeName(v);
    if (const auto strings = v.stringArray())
        if (strings->size() != v.count) fail("string array count");
    if (const auto numbers = v.numberArray())
        if (static_cast<qint64>(numbers->size()) != v.count) fail("number array count");
    (void)v.integerArray();
    if (v.elementType == attn::GgufValue::Type::Array) {
        if (static_cast<qint64>(v.items.size()) != v.count) fail("array of arrays count");
        for (const attn::GgufValue& item : v.items) walk(item);
        return;
    }
    for (qint64 i = 0; i < v.count; ++i) {
        const std::optional<attn::GgufValue> e = v.element(i);
        if (!e || e->type != v.elementType) fail("element missing");
        walk(*e);
    }
}

bool sameValue(const attn::GgufValue& a, const attn::GgufValue& b) {
    if (a.type != b.type || a.count != b.count || a.raw != b.raw || a.string != b.string ||
        a.strings != b.strings || a.items.size() != b.items.size())
        return false;
    if (a.isArray() && a.elementType != b.elementType) return false;
    for (std::size_t i = 0; i < a.items.size(); ++i)
        if (!sameValue(a.items[i], b.items[i])) return false;
    return true;
}

void checkTensor(const attn::GgufFile& file, const attn::GgufTensorInfo& t, const uchar* data,
                 std::size_t size) {
    const attn::GgmlTypeTraits traits = attn::ggml_type_traits(t.type);
    if (!traits.name) fail("accepted an undefined type", QString::fromUtf8(t.name));
    if (t.dims.empty() || t.dims.size() > attn::kMaxGgufDims) fail("dimension count");
    qint64 elements = 1;
    for (qint64 d : t.dims) {
        if (d < 1) fail("dimension below 1");
        elements *= d;  // no overflow: the reader checked it
    }
    if (elements != t.elements || t.dims[0] % traits.block_size != 0) fail("elements");
    if (t.bytes != static_cast<quint64>(elements) / traits.block_size * traits.type_size)
        fail("bytes");
    if (t.offset % file.alignment() != 0) fail("misaligned offset");
    if (t.data != data + file.dataStart() + t.offset || t.data < data ||
        t.bytes > static_cast<quint64>(data + size - t.data))
        fail("tensor outside the input", QString::fromUtf8(t.name));
    if (file.tensor(t.name) != &t) fail("tensor lookup");
    // Touch the first and last byte: outside the input, ASan stops here.
    if (t.bytes > 0) {
        volatile uchar sink = t.data[0];
        sink = static_cast<uchar>(sink + t.data[t.bytes - 1]);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // A copy of its own, so a read one past the end is caught.
    const QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const auto* base = reinterpret_cast<const uchar*>(bytes.constData());
    const attn::GgufResult r = attn::parseGguf(base, bytes.size());
    if (r.ok() == !r.error.isEmpty()) fail("neither or both", r.error);
    if (!r.ok()) {
        if (r.error.contains(QLatin1Char('\n'))) fail("message of more than one line", r.error);
        return 0;
    }
    const attn::GgufFile& file = *r.file;
    if (file.version() != 2 && file.version() != 3) fail("version");
    const quint64 a = file.alignment();
    if (a == 0 || (a & (a - 1)) != 0 || file.dataStart() % a != 0) fail("alignment");
    if (file.architecture().isEmpty() && !file.string("general.architecture")) fail("arch");
    (void)file.value("{arch}.context_length");
    for (const attn::GgufMetadataEntry& entry : file.metadata()) {
        if (file.value(entry.key) != &entry.value && !entry.key.contains("{arch}"))
            fail("metadata lookup", QString::fromUtf8(entry.key));
        walk(entry.value);
    }
    for (const attn::GgufTensorInfo& t : file.tensors()) checkTensor(file, t, base, size);
    const QString types = attn::checkGgufTensorTypes(file);
    bool allComputed = true;
    for (const attn::GgufTensorInfo& t : file.tensors())
        allComputed = allComputed && attn::ggml_type_computed(t.type);
    if (types.isEmpty() != allComputed) fail("checkGgufTensorTypes", types);

    // Written again by the test writer, the file reads back the same.
    attn::GgufTestFile again;
    again.version = file.version();
    again.alignment = file.alignment();
    for (const attn::GgufMetadataEntry& entry : file.metadata())
        again.metadata.push_back({entry.key, attn::ggufTestValue(entry.value)});
    for (const attn::GgufTensorInfo& t : file.tensors()) {
        std::vector<quint64> dims(t.dims.begin(), t.dims.end());
        again.tensors.push_back(
            {t.name, dims, t.type,
             QByteArray(reinterpret_cast<const char*>(t.data), static_cast<qsizetype>(t.bytes)),
             t.offset});
    }
    const QByteArray written = attn::serializeGguf(again);
    const attn::GgufResult reread =
        attn::parseGguf(reinterpret_cast<const uchar*>(written.constData()), written.size());
    if (!reread.ok()) fail("reread", reread.error);
    const attn::GgufFile& f2 = *reread.file;
    if (f2.metadata().size() != file.metadata().size() ||
        f2.tensors().size() != file.tensors().size() || f2.dataStart() != file.dataStart())
        fail("reread counts");
    for (std::size_t i = 0; i < file.metadata().size(); ++i)
        if (f2.metadata()[i].key != file.metadata()[i].key ||
            !sameValue(f2.metadata()[i].value, file.metadata()[i].value))
            fail("reread value", QString::fromUtf8(file.metadata()[i].key));
    for (std::size_t i = 0; i < file.tensors().size(); ++i) {
        const attn::GgufTensorInfo& x = file.tensors()[i];
        const attn::GgufTensorInfo& y = f2.tensors()[i];
        if (x.name != y.name || x.dims != y.dims || x.type != y.type || x.offset != y.offset ||
            x.bytes != y.bytes || std::memcmp(x.data, y.data, x.bytes) != 0)
            fail("reread tensor", QString::fromUtf8(x.name));
    }
    checkModel(file);
    return 0;
}

namespace {

void checkModel(const attn::GgufFile& file) {
    const attn::GgufModelInfo info = attn::ggufModelInfo(file);
    if (info.spec.has_value() == !info.error.isEmpty()) fail("model info: neither or both");
    const attn::GgufVocabResult vocab = attn::ggufVocab(file);
    if (vocab.vocab.has_value() == !vocab.error.isEmpty()) fail("vocab: neither or both");
    if (vocab.vocab && vocab.vocab->tokens.size() <= 4096) {
        const attn::TokenizerLoadResult tokenizer = attn::Tokenizer::fromGgufVocab(*vocab.vocab);
        if (tokenizer.ok()) {
            const std::vector<int> ids = tokenizer.tokenizer->encodeForModel(u"ab c 你好 12");
            (void)tokenizer.tokenizer->decode(ids);
        }
    }
    if (!info.spec) return;
    const attn::ModelLoadResult loaded = attn::loadGgufWeights(file);
    if (loaded.ok() == !loaded.error.isEmpty()) fail("weights: neither or both", loaded.error);
    if (!loaded.ok()) return;
    const attn::TransformerSpec& s = loaded.weights->spec;
    // Only small models run: the fuzzer's time goes to the parsing.
    if (s.num_layers * s.d_model * (s.d_ff + s.q_width()) > 1000000 || s.vocab_size > 100000)
        return;
    try {
        (void)attn::model_forward(*loaded.weights, {0, static_cast<int>(s.vocab_size - 1)});
    } catch (const attn::AttentionError&) {
    }
}

}  // namespace
