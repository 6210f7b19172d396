// Writing GGUF files byte by byte, for the reader's tests and the fuzz target's seeds: every field
// is the test's to set, so a test can write a good file or any one kind of damage (a wrong count,
// a misaligned offset, an unknown type). The product only reads GGUF (app/io/gguf.h).
#pragma once

#include <QByteArray>
#include <QList>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "app/io/gguf.h"

namespace attn {

// A metadata value as its bytes in the file, without the leading value type.
struct GgufTestValue {
    GgufValue::Type type = GgufValue::Type::UInt8;
    QByteArray bytes;
};

// Scalars: the number's little-endian bytes, or the string's length and bytes.
GgufTestValue ggufUInt8(quint8 v);
GgufTestValue ggufInt8(qint8 v);
GgufTestValue ggufUInt16(quint16 v);
GgufTestValue ggufInt16(qint16 v);
GgufTestValue ggufUInt32(quint32 v);
GgufTestValue ggufInt32(qint32 v);
GgufTestValue ggufFloat32(float v);
GgufTestValue ggufBool(bool v);
GgufTestValue ggufString(const QByteArray& v);
GgufTestValue ggufUInt64(quint64 v);
GgufTestValue ggufInt64(qint64 v);
GgufTestValue ggufFloat64(double v);
// An array of `elements`, all of `elementType`; `count` replaces their number in the file (a
// count the bytes do not hold).
GgufTestValue ggufArray(GgufValue::Type elementType, const std::vector<GgufTestValue>& elements,
                        std::optional<quint64> count = std::nullopt);
GgufTestValue ggufStringArray(const QList<QByteArray>& strings);
GgufTestValue ggufFloat32Array(const std::vector<float>& values);
GgufTestValue ggufInt32Array(const std::vector<qint32>& values);
// Any bytes under any type number (an unknown type, a bool of 7).
GgufTestValue ggufRaw(std::uint32_t type, const QByteArray& bytes);
// A value the reader accepted, written back (the fuzz target's round trip).
GgufTestValue ggufTestValue(const GgufValue& value);

struct GgufTestTensor {
    QByteArray name;
    std::vector<quint64> dims;  // ggml order: dims[0] is the row length
    std::uint32_t type = 0;     // GgmlType's number
    QByteArray data;            // the tensor's bytes as they go in the file
    // Replaces the offset the writer would give (the next multiple of the alignment).
    std::optional<quint64> offset;
};

// float32 values as an F32 tensor.
GgufTestTensor ggufF32Tensor(const QByteArray& name, const std::vector<quint64>& dims,
                             const std::vector<float>& values);

struct GgufTestFile {
    QByteArray magic = "GGUF";
    std::uint32_t version = 3;
    // Where the writer puts the data section and the tensors; general.alignment is written only
    // if the metadata has it.
    quint64 alignment = kDefaultGgufAlignment;
    std::vector<std::pair<QByteArray, GgufTestValue>> metadata;
    std::vector<GgufTestTensor> tensors;
    // Replace the header's counts.
    std::optional<quint64> tensorCount, metadataCount;
};

// A file with general.architecture = "llama" and nothing else.
GgufTestFile ggufTestFile();

// The file's bytes: header, metadata, tensor infos, padding, each tensor's data at its offset
// (zeros between), the file ending with the last tensor's bytes. A replaced offset past 1 MB gets
// no data.
QByteArray serializeGguf(const GgufTestFile& file);

}  // namespace attn
