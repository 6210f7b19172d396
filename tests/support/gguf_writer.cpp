#include "tests/support/gguf_writer.h"

#include <QtEndian>
#include <algorithm>
#include <cstring>

#include "model/ggml_types.h"

namespace attn {

namespace {

using Type = GgufValue::Type;

template <typename T>
QByteArray littleEndian(T v) {
    QByteArray out(sizeof(T), '\0');
    qToLittleEndian<T>(v, out.data());
    return out;
}

QByteArray lengthPrefixed(const QByteArray& s) {
    return littleEndian<quint64>(static_cast<quint64>(s.size())) + s;
}

GgufTestValue scalar(Type type, QByteArray bytes) { return {type, std::move(bytes)}; }

// Tensors whose replaced offset lies past this get no data: the test wants the offset refused.
constexpr quint64 kMaxWrittenOffset = quint64{1} << 20;

}  // namespace

GgufTestValue ggufUInt8(quint8 v) { return scalar(Type::UInt8, littleEndian<quint8>(v)); }
GgufTestValue ggufInt8(qint8 v) { return scalar(Type::Int8, littleEndian<qint8>(v)); }
GgufTestValue ggufUInt16(quint16 v) { return scalar(Type::UInt16, littleEndian<quint16>(v)); }
GgufTestValue ggufInt16(qint16 v) { return scalar(Type::Int16, littleEndian<qint16>(v)); }
GgufTestValue ggufUInt32(quint32 v) { return scalar(Type::UInt32, littleEndian<quint32>(v)); }
GgufTestValue ggufInt32(qint32 v) { return scalar(Type::Int32, littleEndian<qint32>(v)); }
GgufTestValue ggufUInt64(quint64 v) { return scalar(Type::UInt64, littleEndian<quint64>(v)); }
GgufTestValue ggufInt64(qint64 v) { return scalar(Type::Int64, littleEndian<qint64>(v)); }
GgufTestValue ggufBool(bool v) { return scalar(Type::Bool, QByteArray(1, v ? '\1' : '\0')); }
GgufTestValue ggufString(const QByteArray& v) { return scalar(Type::String, lengthPrefixed(v)); }

GgufTestValue ggufFloat32(float v) {
    quint32 bits;
    std::memcpy(&bits, &v, sizeof bits);
    return scalar(Type::Float32, littleEndian<quint32>(bits));
}

GgufTestValue ggufFloat64(double v) {
    quint64 bits;
    std::memcpy(&bits, &v, sizeof bits);
    return scalar(Type::Float64, littleEndian<quint64>(bits));
}

GgufTestValue ggufArray(Type elementType, const std::vector<GgufTestValue>& elements,
                        std::optional<quint64> count) {
    QByteArray bytes = littleEndian<quint32>(static_cast<quint32>(elementType)) +
                       littleEndian<quint64>(count.value_or(elements.size()));
    for (const GgufTestValue& e : elements) bytes += e.bytes;
    return {Type::Array, bytes};
}

GgufTestValue ggufStringArray(const QList<QByteArray>& strings) {
    std::vector<GgufTestValue> elements;
    for (const QByteArray& s : strings) elements.push_back(ggufString(s));
    return ggufArray(Type::String, elements);
}

GgufTestValue ggufFloat32Array(const std::vector<float>& values) {
    std::vector<GgufTestValue> elements;
    for (float v : values) elements.push_back(ggufFloat32(v));
    return ggufArray(Type::Float32, elements);
}

GgufTestValue ggufInt32Array(const std::vector<qint32>& values) {
    std::vector<GgufTestValue> elements;
    for (qint32 v : values) elements.push_back(ggufInt32(v));
    return ggufArray(Type::Int32, elements);
}

GgufTestValue ggufRaw(std::uint32_t type, const QByteArray& bytes) {
    return {static_cast<Type>(type), bytes};
}

GgufTestValue ggufTestValue(const GgufValue& value) {
    if (value.type == Type::String) return ggufString(value.string);
    if (value.type != Type::Array) return scalar(value.type, value.raw);
    QByteArray bytes = littleEndian<quint32>(static_cast<quint32>(value.elementType)) +
                       littleEndian<quint64>(static_cast<quint64>(value.count));
    if (value.elementType == Type::String) {
        for (const QByteArray& s : value.strings) bytes += lengthPrefixed(s);
    } else if (value.elementType == Type::Array) {
        for (const GgufValue& item : value.items) bytes += ggufTestValue(item).bytes;
    } else {
        bytes += value.raw;
    }
    return {Type::Array, bytes};
}

GgufTestTensor ggufF32Tensor(const QByteArray& name, const std::vector<quint64>& dims,
                             const std::vector<float>& values) {
    GgufTestTensor t;
    t.name = name;
    t.dims = dims;
    t.type = static_cast<std::uint32_t>(GgmlType::F32);
    for (float v : values) t.data += ggufFloat32(v).bytes;
    return t;
}

GgufTestFile ggufTestFile() {
    GgufTestFile file;
    file.metadata.push_back({"general.architecture", ggufString("llama")});
    return file;
}

QByteArray serializeGguf(const GgufTestFile& file) {
    const quint64 alignment = std::max<quint64>(file.alignment, 1);
    auto alignUp = [alignment](quint64 n) { return (n + alignment - 1) / alignment * alignment; };
    QByteArray out = file.magic + littleEndian<quint32>(file.version) +
                     littleEndian<quint64>(file.tensorCount.value_or(file.tensors.size())) +
                     littleEndian<quint64>(file.metadataCount.value_or(file.metadata.size()));
    for (const auto& [key, value] : file.metadata)
        out += lengthPrefixed(key) + littleEndian<quint32>(static_cast<quint32>(value.type)) +
               value.bytes;
    // The offsets: each tensor at the next multiple of the alignment after the one before.
    std::vector<quint64> offsets;
    quint64 next = 0;
    for (const GgufTestTensor& t : file.tensors) {
        offsets.push_back(t.offset.value_or(next));
        next = alignUp(offsets.back() + static_cast<quint64>(t.data.size()));
    }
    for (std::size_t i = 0; i < file.tensors.size(); ++i) {
        const GgufTestTensor& t = file.tensors[i];
        out += lengthPrefixed(t.name) + littleEndian<quint32>(static_cast<quint32>(t.dims.size()));
        for (quint64 d : t.dims) out += littleEndian<quint64>(d);
        out += littleEndian<quint32>(t.type) + littleEndian<quint64>(offsets[i]);
    }
    if (file.tensors.empty()) return out;
    const auto dataStart = static_cast<qsizetype>(alignUp(static_cast<quint64>(out.size())));
    out.resize(dataStart, '\0');
    for (std::size_t i = 0; i < file.tensors.size(); ++i) {
        const QByteArray& data = file.tensors[i].data;
        if (offsets[i] > kMaxWrittenOffset) continue;
        const qsizetype at = dataStart + static_cast<qsizetype>(offsets[i]);
        if (out.size() < at + data.size()) out.resize(at + data.size(), '\0');
        std::memcpy(out.data() + at, data.constData(), static_cast<std::size_t>(data.size()));
    }
    return out;
}

}  // namespace attn
