#include "app/io/gguf.h"

#include <QDir>
#include <QFile>
#include <QtEndian>
#include <algorithm>
#include <limits>
#include <numeric>

#include "model/ggml_types.h"

namespace attn {

namespace {

// The smallest a metadata entry can be (key length, value type, a one-byte value) and a tensor
// info (name length, dimension count, type, offset): a count above remaining bytes / this is
// refused before anything is allocated.
constexpr quint64 kMinMetadataEntryBytes = 8 + 4 + 1;
constexpr quint64 kMinTensorInfoBytes = 8 + 4 + 4 + 8;

const QString kConvertAgain = QStringLiteral("convert the model again with a current llama.cpp");

QString quoted(const QByteArray& text) {
    // Names come from the file: cut very long ones so the message stays one readable line.
    QString s = QString::fromUtf8(text.left(80));
    for (QChar& c : s)
        if (c.unicode() < 0x20) c = QLatin1Char(' ');
    return QLatin1Char('"') + s + (text.size() > 80 ? QStringLiteral("…\"") : QStringLiteral("\""));
}

QString hexBytes(const uchar* p, int n) {
    QStringList parts;
    for (int i = 0; i < n; ++i) parts << QStringLiteral("%1").arg(p[i], 2, 16, QLatin1Char('0'));
    return parts.join(QLatin1Char(' '));
}

}  // namespace

// Reads the file front to back once; every read checks the bytes that remain first, so no count
// or length from the file reaches an allocation unchecked.
class GgufParser {
public:
    GgufParser(const uchar* data, qint64 size)
        : data_(data), size_(size > 0 && data ? static_cast<quint64>(size) : 0) {}

    GgufResult run(std::shared_ptr<const void> storage) {
        if (!readHeader() || !readMetadata() || !checkGeneralKeys() || !readTensorInfos() ||
            !placeTensors())
            return {std::nullopt, error_};
        file_.storage_ = std::move(storage);
        return {std::move(file_), QString()};
    }

private:
    quint64 remaining() const { return size_ - pos_; }

    bool fail(const QString& message) {
        error_ = message;
        return false;
    }

    // `where` says what was being read, built only for a message: a vocabulary's 150k strings
    // are read without formatting a text for each.
    template <typename Where>
    bool truncated(const Where& where) {
        return fail(QStringLiteral("the file ends at byte %1 inside %2: it is truncated or "
                                   "damaged; download or convert it again")
                        .arg(size_)
                        .arg(where()));
    }

    template <typename Where>
    bool readU32(quint32* out, const Where& where) {
        if (remaining() < 4) return truncated(where);
        *out = qFromLittleEndian<quint32>(data_ + pos_);
        pos_ += 4;
        return true;
    }

    template <typename Where>
    bool readU64(quint64* out, const Where& where) {
        if (remaining() < 8) return truncated(where);
        *out = qFromLittleEndian<quint64>(data_ + pos_);
        pos_ += 8;
        return true;
    }

    template <typename Where>
    bool readString(QByteArray* out, const Where& where) {
        quint64 length = 0;
        if (!readU64(&length, where)) return false;
        if (length > remaining())
            return fail(QStringLiteral("%1 is a string of %2 bytes, but only %3 bytes follow: the "
                                       "file is truncated or damaged; download or convert it again")
                            .arg(where())
                            .arg(length)
                            .arg(remaining()));
        *out =
            QByteArray(reinterpret_cast<const char*>(data_ + pos_), static_cast<qsizetype>(length));
        pos_ += length;
        return true;
    }

    bool readHeader() {
        if (size_ < 4)
            return fail(QStringLiteral("not a GGUF file: %1 bytes, shorter than the 4-byte "
                                       "magic \"GGUF\"; choose a .gguf model file")
                            .arg(size_));
        const QByteArray magic(reinterpret_cast<const char*>(data_), 4);
        if (magic != "GGUF") {
            // GGML, GGMF and GGJT, llama.cpp's formats before GGUF, wrote their magic as a
            // little-endian uint32.
            if (magic == "lmgg" || magic == "fmgg" || magic == "tjgg")
                return fail(QStringLiteral("an old GGML/GGJT model file from before GGUF, which "
                                           "is not read: %1 to get a .gguf file")
                                .arg(kConvertAgain));
            return fail(QStringLiteral("not a GGUF file: it starts with the bytes %1 instead of "
                                       "\"GGUF\"; choose a .gguf model file")
                            .arg(hexBytes(data_, 4)));
        }
        pos_ = 4;
        quint32 version = 0;
        if (!readU32(&version, [] { return QStringLiteral("the header's version"); })) return false;
        if (version != 2 && version != 3) {
            const quint32 swapped = qbswap(version);
            if (swapped >= 1 && swapped <= 3)
                return fail(QStringLiteral("the file is a big-endian GGUF (its version %1 reads "
                                           "byte-swapped), which is not read: only little-endian "
                                           "files are; convert the model again without "
                                           "--bigendian")
                                .arg(swapped));
            if (version == 1)
                return fail(QStringLiteral("GGUF version 1 is not read: only versions 2 and 3 "
                                           "are; %1")
                                .arg(kConvertAgain));
            return fail(QStringLiteral("GGUF version %1 is not read: only versions 2 and 3 are; "
                                       "use a file written as version 3 (current llama.cpp "
                                       "writes it) or a newer version of this app")
                            .arg(version));
        }
        file_.version_ = version;
        quint64 tensorCount = 0, metadataCount = 0;
        if (!readU64(&tensorCount, [] { return QStringLiteral("the header's tensor count"); }) ||
            !readU64(&metadataCount, [] { return QStringLiteral("the header's metadata count"); }))
            return false;
        if (!countFits(metadataCount, kMinMetadataEntryBytes, QStringLiteral("metadata entries")) ||
            !countFits(tensorCount, kMinTensorInfoBytes, QStringLiteral("tensors")))
            return false;
        metadataCount_ = metadataCount;
        tensorCount_ = tensorCount;
        return true;
    }

    // A count from the file against what the remaining bytes could hold at `minBytes` each.
    bool countFits(quint64 count, quint64 minBytes, const QString& what) {
        if (count <= remaining() / minBytes) return true;
        return fail(QStringLiteral("the header says the file has %1 %2, but the %3 bytes that "
                                   "follow hold at most %4: the file is truncated or damaged; "
                                   "download or convert it again")
                        .arg(count)
                        .arg(what)
                        .arg(remaining())
                        .arg(remaining() / minBytes));
    }

    static QString keyPlace(const QByteArray& key) {
        return QStringLiteral("metadata key %1").arg(quoted(key));
    }

    bool readMetadata() {
        file_.metadata_.reserve(static_cast<std::size_t>(metadataCount_));
        for (quint64 i = 0; i < metadataCount_; ++i) {
            GgufMetadataEntry entry;
            if (!readString(&entry.key,
                            [i] { return QStringLiteral("metadata entry %1's key").arg(i); }))
                return false;
            if (file_.metadataIndex_.contains(entry.key))
                return fail(QStringLiteral("the metadata key %1 appears twice: the file is "
                                           "damaged; %2")
                                .arg(quoted(entry.key), kConvertAgain));
            quint32 type = 0;
            if (!readU32(&type, [&entry] { return keyPlace(entry.key); }) ||
                !readValue(&entry.value, type, 0, entry.key))
                return false;
            file_.metadataIndex_.insert(entry.key, static_cast<qsizetype>(i));
            file_.metadata_.push_back(std::move(entry));
        }
        return true;
    }

    bool unknownType(quint32 type, const QByteArray& key) {
        return fail(QStringLiteral("%1 has value type %2, which GGUF does not define (0 to 12): "
                                   "the file is damaged or newer than this app; %3")
                        .arg(keyPlace(key))
                        .arg(type)
                        .arg(kConvertAgain));
    }

    bool checkBools(const QByteArray& raw, const QByteArray& key) {
        for (char c : raw)
            if (c != 0 && c != 1)
                return fail(QStringLiteral("%1: a bool must be 0 or 1, not %2: the file is "
                                           "damaged; %3")
                                .arg(keyPlace(key))
                                .arg(static_cast<uchar>(c))
                                .arg(kConvertAgain));
        return true;
    }

    // `depth`: how many arrays enclose this value.
    bool readValue(GgufValue* value, quint32 type, int depth, const QByteArray& key) {
        if (type > static_cast<quint32>(GgufValue::Type::Float64)) return unknownType(type, key);
        value->type = static_cast<GgufValue::Type>(type);
        value->elementType = value->type;
        if (value->type == GgufValue::Type::String)
            return readString(&value->string, [&key] { return keyPlace(key); });
        if (value->type != GgufValue::Type::Array) {
            const auto size = static_cast<quint64>(ggufScalarBytes(value->type));
            if (remaining() < size) return truncated([&key] { return keyPlace(key); });
            value->raw = QByteArray(reinterpret_cast<const char*>(data_ + pos_),
                                    static_cast<qsizetype>(size));
            pos_ += size;
            return value->type != GgufValue::Type::Bool || checkBools(value->raw, key);
        }
        if (depth + 1 > kMaxGgufArrayDepth)
            return fail(QStringLiteral("%1 nests arrays %2 deep, more than the %3 this app reads: "
                                       "the file is damaged or not a model file; %4")
                            .arg(keyPlace(key))
                            .arg(depth + 1)
                            .arg(kMaxGgufArrayDepth)
                            .arg(kConvertAgain));
        return readArray(value, depth, key);
    }

    bool readArray(GgufValue* value, int depth, const QByteArray& key) {
        quint32 elementType = 0;
        quint64 count = 0;
        const auto where = [&key] { return keyPlace(key); };
        if (!readU32(&elementType, where) || !readU64(&count, where)) return false;
        if (elementType > static_cast<quint32>(GgufValue::Type::Float64))
            return unknownType(elementType, key);
        const auto type = static_cast<GgufValue::Type>(elementType);
        value->elementType = type;
        // A string takes at least its 8-byte length, an array its type and count.
        const quint64 minBytes = type == GgufValue::Type::String ? 8
                                 : type == GgufValue::Type::Array
                                     ? 12
                                     : static_cast<quint64>(ggufScalarBytes(type));
        if (count > remaining() / minBytes)
            return fail(QStringLiteral("%1 is an array of %2 elements of type %3, but the %4 "
                                       "bytes left in the file hold at most %5: the file is "
                                       "truncated or damaged; download or convert it again")
                            .arg(keyPlace(key))
                            .arg(count)
                            .arg(ggufTypeName(type))
                            .arg(remaining())
                            .arg(remaining() / minBytes));
        value->count = static_cast<qint64>(count);
        if (type == GgufValue::Type::String) {
            value->strings.reserve(static_cast<qsizetype>(count));
            QByteArray element;
            for (quint64 i = 0; i < count; ++i) {
                if (!readString(&element, where)) return false;
                value->strings.push_back(element);
            }
            return true;
        }
        if (type == GgufValue::Type::Array) {
            nestedArrays_ += count;  // ≤ the file's size / 12: no overflow
            if (nestedArrays_ > kMaxGgufNestedArrays)
                return fail(QStringLiteral("%1 brings the arrays inside arrays to %2, more than "
                                           "the %3 this app reads (model files have none): the "
                                           "file is damaged or not a model file")
                                .arg(keyPlace(key))
                                .arg(nestedArrays_)
                                .arg(kMaxGgufNestedArrays));
            value->items.resize(static_cast<std::size_t>(count));
            for (GgufValue& item : value->items)
                if (!readValue(&item, elementType, depth + 1, key)) return false;
            return true;
        }
        const quint64 bytes = count * minBytes;  // ≤ remaining(), checked above
        value->raw =
            QByteArray(reinterpret_cast<const char*>(data_ + pos_), static_cast<qsizetype>(bytes));
        pos_ += bytes;
        return type != GgufValue::Type::Bool || checkBools(value->raw, key);
    }

    bool checkGeneralKeys() {
        if (const GgufValue* alignment = file_.value("general.alignment")) {
            const std::optional<quint64> a =
                alignment->type == GgufValue::Type::UInt32 ? alignment->toUInt() : std::nullopt;
            if (!a)
                return fail(QStringLiteral("general.alignment is a %1, not a uint32: the file is "
                                           "damaged; %2")
                                .arg(ggufValueTypeName(*alignment), kConvertAgain));
            if (*a == 0 || (*a & (*a - 1)) != 0)
                return fail(QStringLiteral("general.alignment is %1, not a power of two: the file "
                                           "is damaged; %2")
                                .arg(*a)
                                .arg(kConvertAgain));
            file_.alignment_ = *a;
        }
        const GgufValue* architecture = file_.value("general.architecture");
        if (!architecture)
            return fail(QStringLiteral("the file has no general.architecture, the key that "
                                       "names the model's architecture: %1 (its "
                                       "convert_hf_to_gguf.py writes it)")
                            .arg(kConvertAgain));
        if (architecture->type != GgufValue::Type::String)
            return fail(QStringLiteral("general.architecture is a %1, not a string: the file is "
                                       "damaged; %2")
                            .arg(ggufValueTypeName(*architecture), kConvertAgain));
        if (architecture->string.isEmpty())
            return fail(QStringLiteral("general.architecture is empty, so the file names no "
                                       "model architecture: %1")
                            .arg(kConvertAgain));
        return countFits(tensorCount_, kMinTensorInfoBytes, QStringLiteral("tensors"));
    }

    bool readTensorInfos() {
        file_.tensors_.reserve(static_cast<std::size_t>(tensorCount_));
        for (quint64 i = 0; i < tensorCount_; ++i) {
            GgufTensorInfo info;
            if (!readString(&info.name,
                            [i] { return QStringLiteral("tensor info %1's name").arg(i); }))
                return false;
            if (file_.tensorIndex_.contains(info.name))
                return fail(QStringLiteral("the tensor name %1 appears twice: the file is "
                                           "damaged; %2")
                                .arg(quoted(info.name), kConvertAgain));
            if (!readTensorInfo(&info)) return false;
            file_.tensorIndex_.insert(info.name, static_cast<qsizetype>(i));
            file_.tensors_.push_back(std::move(info));
        }
        return true;
    }

    bool damagedTensor(const GgufTensorInfo& info, const QString& problem) {
        return fail(QStringLiteral("tensor %1 %2: the file is damaged; %3")
                        .arg(quoted(info.name), problem, kConvertAgain));
    }

    bool readTensorInfo(GgufTensorInfo* info) {
        const auto where = [info] {
            return QStringLiteral("tensor %1's info").arg(quoted(info->name));
        };
        quint32 dimCount = 0;
        if (!readU32(&dimCount, where)) return false;
        if (dimCount == 0) return damagedTensor(*info, QStringLiteral("has no dimensions"));
        if (dimCount > kMaxGgufDims)
            return damagedTensor(*info, QStringLiteral("has %1 dimensions, more than ggml's %2")
                                            .arg(dimCount)
                                            .arg(kMaxGgufDims));
        qint64 elements = 1;
        for (quint32 d = 0; d < dimCount; ++d) {
            quint64 dim = 0;
            if (!readU64(&dim, where)) return false;
            if (dim == 0 || dim > static_cast<quint64>(std::numeric_limits<qint64>::max()))
                return damagedTensor(*info, QStringLiteral("has a dimension of %1, where ggml "
                                                           "needs 1 to 2^63 - 1")
                                                .arg(dim));
            info->dims.push_back(static_cast<qint64>(dim));
            if (__builtin_mul_overflow(elements, static_cast<qint64>(dim), &elements)) {
                QStringList dims;
                for (qint64 n : info->dims) dims << QString::number(n);
                return damagedTensor(*info, QStringLiteral("has %1 elements, more than a 64-bit "
                                                           "count holds")
                                                .arg(dims.join(QStringLiteral(" × "))));
            }
        }
        info->elements = elements;
        if (!readU32(&info->type, where) || !readU64(&info->offset, where)) return false;
        const GgmlTypeTraits traits = ggml_type_traits(info->type);
        if (!traits.name)
            return fail(QStringLiteral("tensor %1 has type %2, which ggml does not define: the "
                                       "file is damaged or needs a newer app; %3")
                            .arg(quoted(info->name))
                            .arg(info->type)
                            .arg(kConvertAgain));
        if (info->dims[0] % traits.block_size != 0)
            return damagedTensor(*info, QStringLiteral("is %1, whose blocks hold %2 values, but "
                                                       "its rows hold %3, not a multiple of %2")
                                            .arg(QLatin1String(traits.name))
                                            .arg(traits.block_size)
                                            .arg(info->dims[0]));
        const quint64 blocks = static_cast<quint64>(elements) / traits.block_size;
        if (__builtin_mul_overflow(blocks, quint64{traits.type_size}, &info->bytes))
            return damagedTensor(*info, QStringLiteral("takes more bytes than a 64-bit count "
                                                       "holds"));
        if (info->offset % file_.alignment_ != 0)
            return damagedTensor(*info, QStringLiteral("starts at offset %1, not a multiple of "
                                                       "the alignment %2")
                                            .arg(info->offset)
                                            .arg(file_.alignment_));
        return true;
    }

    bool placeTensors() {
        // The data starts at the next multiple of the alignment (pos_ ≤ size_ < 2^63, alignment
        // ≤ 2^31: no overflow).
        const quint64 a = file_.alignment_;
        file_.dataStart_ = (pos_ + a - 1) / a * a;
        const quint64 dataBytes = size_ > file_.dataStart_ ? size_ - file_.dataStart_ : 0;
        for (GgufTensorInfo& info : file_.tensors_) {
            if (info.offset > dataBytes || info.bytes > dataBytes - info.offset)
                return fail(QStringLiteral("tensor %1's %2 bytes at offset %3 end past the end of "
                                           "the file, whose tensor data holds %4 bytes: the file "
                                           "is truncated or damaged; download or convert it again")
                                .arg(quoted(info.name))
                                .arg(info.bytes)
                                .arg(info.offset)
                                .arg(dataBytes));
            info.data = data_ + file_.dataStart_ + info.offset;
        }
        std::vector<std::size_t> order(file_.tensors_.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        const std::vector<GgufTensorInfo>& t = file_.tensors_;
        std::sort(order.begin(), order.end(),
                  [&t](std::size_t x, std::size_t y) { return t[x].offset < t[y].offset; });
        for (std::size_t k = 1; k < order.size(); ++k) {
            const GgufTensorInfo& before = t[order[k - 1]];
            const GgufTensorInfo& after = t[order[k]];
            if (before.offset + before.bytes > after.offset)
                return fail(QStringLiteral("tensors %1 and %2 overlap in the file (%3 bytes at "
                                           "offset %4, %5 at %6): the file is damaged; %7")
                                .arg(quoted(before.name), quoted(after.name))
                                .arg(before.bytes)
                                .arg(before.offset)
                                .arg(after.bytes)
                                .arg(after.offset)
                                .arg(kConvertAgain));
        }
        return true;
    }

    const uchar* data_;
    quint64 size_;
    quint64 pos_ = 0;
    quint64 metadataCount_ = 0, tensorCount_ = 0;
    quint64 nestedArrays_ = 0;
    GgufFile file_;
    QString error_;
};

GgufResult parseGguf(const uchar* data, qint64 size, std::shared_ptr<const void> storage) {
    return GgufParser(data, size).run(std::move(storage));
}

namespace {

// The open file and its mapping, released together when the last tensor view is gone.
struct MappedFile {
    QFile file;
    uchar* bytes = nullptr;
    explicit MappedFile(const QString& path) : file(path) {}
    ~MappedFile() {
        if (bytes) file.unmap(bytes);
    }
};

}  // namespace

GgufResult openGguf(const QString& path) {
    const QString shown = QDir::toNativeSeparators(path);
    auto mapped = std::make_shared<MappedFile>(path);
    if (!mapped->file.open(QIODevice::ReadOnly))
        return {std::nullopt,
                QStringLiteral("%1: cannot open: %2").arg(shown, mapped->file.errorString())};
    const qint64 size = mapped->file.size();
    if (size > 0) {
        mapped->bytes = mapped->file.map(0, size);
        if (!mapped->bytes)
            return {std::nullopt,
                    QStringLiteral("%1: cannot map: %2").arg(shown, mapped->file.errorString())};
    }
    const uchar* bytes = mapped->bytes;
    GgufResult result = parseGguf(bytes, size, std::move(mapped));
    if (result.ok()) result.file->fileMapped_ = size > 0;
    if (!result.ok()) result.error = QStringLiteral("%1: %2").arg(shown, result.error);
    return result;
}

bool looksLikeGguf(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) && file.read(4) == "GGUF";
}

}  // namespace attn
