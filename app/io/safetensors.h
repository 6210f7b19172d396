// The safetensors format (Hugging Face's weight files): an 8-byte little-endian header length,
// a JSON header {"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}}
// and the raw tensor bytes. The reader memory-maps the file, checks every header entry before
// anything is read, and hands out float32 views: F32 points into the mapping (no copy), F16 and
// BF16 are converted. (The writer is app/io/safetensors_writer.h.)
#pragma once

#include <QByteArray>
#include <QFile>
#include <QMap>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <vector>

namespace attn {

// Largest header we read: the format's own reference implementation refuses more than 100 MB.
inline constexpr quint64 kMaxSafetensorsHeaderBytes = quint64{100} << 20;

struct SafetensorsTensorInfo {
    QString dtype;              // as the header names it: "F32", "F16", "BF16", "I64", ...
    std::vector<qint64> shape;  // [] for a scalar
    qint64 elements = 0;        // product of shape
    qint64 begin = 0, end = 0;  // byte offsets into the data buffer
};

// float32 values of one tensor. `data` stays valid while `owner` lives (the mapping for F32,
// the converted buffer for F16/BF16).
struct FloatTensor {
    const float* data = nullptr;
    qint64 elements = 0;
    std::vector<qint64> shape;
    std::shared_ptr<const void> owner;
};

class SafetensorsFile;

struct SafetensorsOpenResult {
    std::shared_ptr<const SafetensorsFile> file;  // set on success
    QString error;                                // otherwise one line naming the problem
    bool ok() const { return file != nullptr; }
};

struct FloatTensorResult {
    FloatTensor tensor;
    QString error;
    bool ok() const { return error.isEmpty(); }
};

class SafetensorsFile : public std::enable_shared_from_this<SafetensorsFile> {
public:
    // Maps `path` read-only and validates the header. Errors do not name the file: the caller does.
    static SafetensorsOpenResult open(const QString& path);
    // The same checks on bytes in memory (tests, the fuzzer).
    static SafetensorsOpenResult fromBytes(const QByteArray& bytes);

    QStringList names() const;  // sorted
    bool contains(const QString& name) const { return tensors_.contains(name); }
    // nullptr for an unknown name.
    const SafetensorsTensorInfo* info(const QString& name) const;
    const QMap<QString, QString>& metadata() const { return metadata_; }
    // float32 values of `name`: F32 without a copy (unless misaligned), F16/BF16 converted;
    // other dtypes and unknown names give an error.
    FloatTensorResult floats(const QString& name) const;
    // Whether the tensors lie in a read-only mapping of the file (open), whose pages a loader may
    // give back once it has copied them (WeightCopies); false for fromBytes.
    bool fileMapped() const { return file_ != nullptr; }
    qint64 size() const { return size_; }

    SafetensorsFile(const SafetensorsFile&) = delete;
    SafetensorsFile& operator=(const SafetensorsFile&) = delete;
    ~SafetensorsFile();

private:
    SafetensorsFile() = default;
    static SafetensorsOpenResult parse(std::shared_ptr<SafetensorsFile> file);

    std::unique_ptr<QFile> file_;  // open while mapped
    QByteArray bytes_;             // fromBytes
    const uchar* base_ = nullptr;  // whole file
    qint64 size_ = 0;
    qint64 dataStart_ = 0;  // 8 + header length
    QMap<QString, SafetensorsTensorInfo> tensors_;
    QMap<QString, QString> metadata_;
};

// half / bfloat16 bits → float32, exactly (exposed for tests).
float halfToFloat(std::uint16_t bits);
float bfloat16ToFloat(std::uint16_t bits);

}  // namespace attn
