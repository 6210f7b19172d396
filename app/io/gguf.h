// GGUF, llama.cpp's model file (ggml's docs/gguf.md): "GGUF", a version, the counts of tensors
// and metadata entries, the metadata (typed key-value pairs, arrays included), one info per
// tensor (name, dims, ggml type, offset), padding to `general.alignment`, then the tensor data.
// Versions 2 and 3, little-endian. The reader checks every count, length, dimension and offset
// against the bytes that are really there before it allocates or reads anything, and points into
// the mapped file instead of copying the tensors. (Tests write files with
// tests/support/gguf_writer.h.)
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QHash>
#include <QList>
#include <QString>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace attn {

// Arrays of arrays deeper than this are refused (ggml itself reads none): an array, of arrays,
// of arrays.
inline constexpr int kMaxGgufArrayDepth = 3;
// Arrays inside arrays, in the whole file: each takes ~100 bytes of memory for 12 in the file, and
// no model file has any, so a file of them is refused before it costs gigabytes.
inline constexpr quint64 kMaxGgufNestedArrays = 65536;
// ggml's GGML_MAX_DIMS.
inline constexpr int kMaxGgufDims = 4;
// When the file has no general.alignment.
inline constexpr quint64 kDefaultGgufAlignment = 32;

// One metadata value. Numbers and bools, alone or in an array, keep the file's little-endian
// bytes (compact: a vocabulary's 150k scores stay 600 kB) and are decoded by the accessors.
struct GgufValue {
    // GGUF's numbering.
    enum class Type : std::uint32_t {
        UInt8 = 0,
        Int8 = 1,
        UInt16 = 2,
        Int16 = 3,
        UInt32 = 4,
        Int32 = 5,
        Float32 = 6,
        Bool = 7,
        String = 8,
        Array = 9,
        UInt64 = 10,
        Int64 = 11,
        Float64 = 12,
    };

    Type type = Type::UInt8;
    Type elementType = Type::UInt8;  // arrays
    qint64 count = 1;                // elements of an array, 1 for a scalar
    QByteArray raw;                  // numbers and bools: count elements, little-endian
    QByteArray string;               // Type::String (UTF-8, as in the file)
    QList<QByteArray> strings;       // an array of strings
    std::vector<GgufValue> items;    // an array of arrays

    bool isArray() const { return type == Type::Array; }
    // A scalar integer of any width (not bool); nullopt for other types and for a uint64 past
    // qint64's range.
    std::optional<qint64> toInt() const;
    std::optional<quint64> toUInt() const;  // integers ≥ 0
    // Any scalar number, integers included.
    std::optional<double> toDouble() const;
    std::optional<bool> toBool() const;
    std::optional<QByteArray> toString() const;

    // Arrays: nullopt unless the elements are of that kind.
    std::optional<QList<QByteArray>> stringArray() const;
    std::optional<std::vector<double>> numberArray() const;   // numbers of any type
    std::optional<std::vector<qint64>> integerArray() const;  // integers, each in range
    // Element i of an array of numbers, bools or strings as a scalar value (nullopt for arrays
    // of arrays, and past the end).
    std::optional<GgufValue> element(qint64 i) const;
};

// Bytes of one number or bool of `type` in the file; 0 for strings and arrays.
int ggufScalarBytes(GgufValue::Type type);
// "uint32", "array of string", ... for messages.
QString ggufTypeName(GgufValue::Type type);
QString ggufValueTypeName(const GgufValue& value);

struct GgufMetadataEntry {
    QByteArray key;
    GgufValue value;
};

struct GgufTensorInfo {
    QByteArray name;
    std::vector<qint64> dims;     // ggml order: dims[0] is the row length (ne[0]), each ≥ 1
    std::uint32_t type = 0;       // GgmlType's number (model/ggml_types.h)
    quint64 offset = 0;           // from the start of the tensor data, a multiple of the alignment
    qint64 elements = 0;          // product of dims
    quint64 bytes = 0;            // elements / block_size * type_size
    const uchar* data = nullptr;  // offset's first byte; valid while the file's storage lives
};

struct GgufResult;

class GgufFile {
public:
    std::uint32_t version() const { return version_; }
    quint64 alignment() const { return alignment_; }
    quint64 dataStart() const { return dataStart_; }  // from the start of the file

    // In the file's order.
    const std::vector<GgufMetadataEntry>& metadata() const { return metadata_; }
    const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }
    // Keeps the bytes the tensors (and nothing else) point into alive: the mapping, or the
    // storage given to parseGguf.
    const std::shared_ptr<const void>& storage() const { return storage_; }
    // Whether the tensors point into a read-only mapping of the file (openGguf), whose pages a
    // loader may give back once it has copied them (WeightCopies); false for bytes given to
    // parseGguf, which are someone else's memory.
    bool fileMapped() const { return fileMapped_; }

    // general.architecture ("llama", "qwen2", ...); parseGguf refuses a file without it.
    QString architecture() const;

    // A key written as llama.cpp's gguf-py writes them, "{arch}" standing for the architecture:
    // value("{arch}.context_length") is "llama.context_length" in a LLaMA file. nullptr (or
    // nullopt) when the key is missing or of another type.
    const GgufValue* value(QByteArrayView key) const;
    std::optional<qint64> integer(QByteArrayView key) const;
    std::optional<double> floating(QByteArrayView key) const;  // integers too
    std::optional<QByteArray> string(QByteArrayView key) const;
    std::optional<bool> boolean(QByteArrayView key) const;

    const GgufTensorInfo* tensor(QByteArrayView name) const;  // nullptr for an unknown name

private:
    friend class GgufParser;
    friend GgufResult openGguf(const QString& path);
    bool fileMapped_ = false;
    std::uint32_t version_ = 0;
    quint64 alignment_ = kDefaultGgufAlignment;
    quint64 dataStart_ = 0;
    std::vector<GgufMetadataEntry> metadata_;
    std::vector<GgufTensorInfo> tensors_;
    QHash<QByteArray, qsizetype> metadataIndex_, tensorIndex_;
    std::shared_ptr<const void> storage_;
};

struct GgufResult {
    std::optional<GgufFile> file;  // set on success
    QString error;                 // otherwise one line naming the problem and the fix
    bool ok() const { return file.has_value(); }
};

// Checks and reads `size` bytes. The tensors point into `data`, which must outlive the result:
// `storage` (kept by the file) can own it. Errors do not name the file: openGguf does.
GgufResult parseGguf(const uchar* data, qint64 size, std::shared_ptr<const void> storage = {});
// Maps `path` read-only (the whole file) and parses it; the file's storage keeps the mapping.
// Errors start with the path.
GgufResult openGguf(const QString& path);
// The first four bytes are "GGUF".
bool looksLikeGguf(const QString& path);

// Empty when the engine computes every tensor's type (ggml_type_computed); otherwise one line
// naming the first tensor it does not, its type, and the files to use instead.
QString checkGgufTensorTypes(const GgufFile& file);

}  // namespace attn
