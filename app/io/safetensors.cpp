#include "app/io/safetensors.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace attn {

namespace {

// Bytes per element of every dtype the format defines; 0 for an unknown name.
qint64 dtypeSize(const QString& dtype) {
    static const QMap<QString, qint64> sizes{{"BOOL", 1},    {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1},
                                             {"F8_E4M3", 1}, {"I16", 2}, {"U16", 2}, {"F16", 2},
                                             {"BF16", 2},    {"I32", 4}, {"U32", 4}, {"F32", 4},
                                             {"F64", 8},     {"I64", 8}, {"U64", 8}};
    return sizes.value(dtype, 0);
}

// JSON numbers are doubles: an offset or dimension must be a whole number that a double holds
// exactly.
bool toCount(const QJsonValue& value, qint64* out) {
    if (!value.isDouble()) return false;
    const double d = value.toDouble();
    if (!(d >= 0.0) || d > 9007199254740992.0 || std::floor(d) != d) return false;
    *out = static_cast<qint64>(d);
    return true;
}

float bitsFloat(std::uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

std::uint16_t readU16(const uchar* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }

}  // namespace

float halfToFloat(std::uint16_t bits) {
    const std::uint32_t sign = (std::uint32_t{bits} & 0x8000u) << 16;
    const std::uint32_t exponent = (std::uint32_t{bits} >> 10) & 0x1Fu;
    const std::uint32_t mantissa = std::uint32_t{bits} & 0x3FFu;
    if (exponent == 0) {
        // Zero or subnormal: mantissa · 2^-24, exact in float32.
        const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 31) return bitsFloat(sign | 0x7F800000u | (mantissa << 13));  // inf, NaN
    return bitsFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

float bfloat16ToFloat(std::uint16_t bits) { return bitsFloat(std::uint32_t{bits} << 16); }

SafetensorsFile::~SafetensorsFile() {
    if (file_ && base_) file_->unmap(const_cast<uchar*>(base_));
}

SafetensorsOpenResult SafetensorsFile::open(const QString& path) {
    std::shared_ptr<SafetensorsFile> file(new SafetensorsFile);
    file->file_ = std::make_unique<QFile>(path);
    if (!file->file_->open(QIODevice::ReadOnly))
        return {nullptr, QStringLiteral("cannot open: %1").arg(file->file_->errorString())};
    file->size_ = file->file_->size();
    if (file->size_ < 8)
        return {nullptr, QStringLiteral("not a safetensors file: %1 bytes, shorter than the "
                                        "8-byte header length")
                             .arg(file->size_)};
    file->base_ = file->file_->map(0, file->size_);
    if (!file->base_)
        return {nullptr, QStringLiteral("cannot map: %1").arg(file->file_->errorString())};
    return parse(std::move(file));
}

SafetensorsOpenResult SafetensorsFile::fromBytes(const QByteArray& bytes) {
    std::shared_ptr<SafetensorsFile> file(new SafetensorsFile);
    file->bytes_ = bytes;
    file->base_ = reinterpret_cast<const uchar*>(file->bytes_.constData());
    file->size_ = file->bytes_.size();
    return parse(std::move(file));
}

SafetensorsOpenResult SafetensorsFile::parse(std::shared_ptr<SafetensorsFile> file) {
    auto fail = [](const QString& message) { return SafetensorsOpenResult{nullptr, message}; };
    if (file->size_ < 8)
        return fail(QStringLiteral("not a safetensors file: %1 bytes, shorter than the 8-byte "
                                   "header length")
                        .arg(file->size_));
    quint64 headerLength = 0;
    for (int i = 7; i >= 0; --i) headerLength = (headerLength << 8) | file->base_[i];
    const auto available = static_cast<quint64>(file->size_ - 8);
    if (headerLength > available)
        return fail(QStringLiteral("not a safetensors file or truncated: the header length %1 is "
                                   "more than the %2 bytes that follow it")
                        .arg(headerLength)
                        .arg(available));
    if (headerLength > kMaxSafetensorsHeaderBytes)
        return fail(QStringLiteral("the header is %1 bytes, more than the 100 MB allowed")
                        .arg(headerLength));
    const auto headerSize = static_cast<qsizetype>(headerLength);
    const QByteArray header =
        QByteArray::fromRawData(reinterpret_cast<const char*>(file->base_ + 8), headerSize);
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(header, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fail(QStringLiteral("the header is not valid JSON (%1 at byte %2)")
                        .arg(parseError.errorString())
                        .arg(parseError.offset));
    if (!doc.isObject()) return fail(QStringLiteral("the header is not a JSON object"));
    file->dataStart_ = 8 + static_cast<qint64>(headerLength);
    const qint64 dataSize = file->size_ - file->dataStart_;

    const QJsonObject root = doc.object();
    std::vector<std::pair<const SafetensorsTensorInfo*, QString>> byOffset;
    for (auto it = root.begin(); it != root.end(); ++it) {
        const QString name = it.key();
        if (name == QLatin1String("__metadata__")) {
            if (!it.value().isObject())
                return fail(QStringLiteral("__metadata__ is not an object of strings"));
            const QJsonObject meta = it.value().toObject();
            for (auto m = meta.begin(); m != meta.end(); ++m) {
                if (!m.value().isString())
                    return fail(
                        QStringLiteral("__metadata__ entry \"%1\" is not a string").arg(m.key()));
                file->metadata_.insert(m.key(), m.value().toString());
            }
            continue;
        }
        if (!it.value().isObject())
            return fail(QStringLiteral("tensor \"%1\": its entry is not an object").arg(name));
        const QJsonObject entry = it.value().toObject();
        SafetensorsTensorInfo info;
        if (!entry.value(QLatin1String("dtype")).isString())
            return fail(QStringLiteral("tensor \"%1\" has no \"dtype\" string").arg(name));
        info.dtype = entry.value(QLatin1String("dtype")).toString();
        const qint64 elementSize = dtypeSize(info.dtype);
        if (elementSize == 0)
            return fail(QStringLiteral("tensor \"%1\" has the unknown dtype \"%2\"; supported: "
                                       "F32, F16, BF16")
                            .arg(name, info.dtype.left(40)));
        const QJsonValue shape = entry.value(QLatin1String("shape"));
        if (!shape.isArray())
            return fail(QStringLiteral("tensor \"%1\" has no \"shape\" list").arg(name));
        const QJsonArray dims = shape.toArray();
        if (dims.size() > 16)
            return fail(QStringLiteral("tensor \"%1\" has %2 dimensions; at most 16 are "
                                       "supported")
                            .arg(name)
                            .arg(dims.size()));
        info.elements = 1;
        for (const QJsonValue& dim : dims) {
            qint64 d = 0;
            if (!toCount(dim, &d))
                return fail(QStringLiteral("tensor \"%1\": shape entries must be non-negative "
                                           "integers")
                                .arg(name));
            info.shape.push_back(d);
            // Bounded by the data buffer below; refusing early keeps the product from overflowing.
            if (d != 0 && info.elements > (std::numeric_limits<qint64>::max() / 8) / d)
                return fail(QStringLiteral("tensor \"%1\": its shape is absurdly large").arg(name));
            info.elements *= d;
        }
        const QJsonValue offsets = entry.value(QLatin1String("data_offsets"));
        if (!offsets.isArray() || offsets.toArray().size() != 2 ||
            !toCount(offsets.toArray().at(0), &info.begin) ||
            !toCount(offsets.toArray().at(1), &info.end))
            return fail(QStringLiteral("tensor \"%1\" has no \"data_offsets\": [begin, end] of "
                                       "non-negative integers")
                            .arg(name));
        if (info.begin > info.end || info.end > dataSize)
            return fail(QStringLiteral("tensor \"%1\": data_offsets [%2, %3] lie outside the "
                                       "%4 data bytes (truncated file?)")
                            .arg(name)
                            .arg(info.begin)
                            .arg(info.end)
                            .arg(dataSize));
        if (info.end - info.begin != info.elements * elementSize)
            return fail(QStringLiteral("tensor \"%1\": %2 bytes for %3 elements of %4 (%5 bytes "
                                       "expected)")
                            .arg(name)
                            .arg(info.end - info.begin)
                            .arg(info.elements)
                            .arg(info.dtype)
                            .arg(info.elements * elementSize));
        auto inserted = file->tensors_.insert(name, std::move(info));
        byOffset.emplace_back(&inserted.value(), name);
    }
    std::sort(byOffset.begin(), byOffset.end(),
              [](const auto& a, const auto& b) { return a.first->begin < b.first->begin; });
    qint64 reached = 0;
    QString previous;
    for (const auto& [info, name] : byOffset) {
        if (info->begin == info->end) continue;  // empty tensors occupy nothing
        if (info->begin < reached)
            return fail(QStringLiteral("tensors \"%1\" and \"%2\" overlap in the data buffer")
                            .arg(previous, name));
        reached = info->end;
        previous = name;
    }
    return {std::move(file), QString()};
}

QStringList SafetensorsFile::names() const { return tensors_.keys(); }

const SafetensorsTensorInfo* SafetensorsFile::info(const QString& name) const {
    const auto it = tensors_.constFind(name);
    return it == tensors_.cend() ? nullptr : &it.value();
}

FloatTensorResult SafetensorsFile::floats(const QString& name) const {
    FloatTensorResult result;
    const SafetensorsTensorInfo* info = this->info(name);
    if (!info) {
        result.error = QStringLiteral("no tensor \"%1\"").arg(name);
        return result;
    }
    const uchar* bytes = base_ + dataStart_ + info->begin;
    const auto count = static_cast<std::size_t>(info->elements);
    result.tensor.elements = info->elements;
    result.tensor.shape = info->shape;
    if (info->dtype == QLatin1String("F32")) {
        if (reinterpret_cast<std::uintptr_t>(bytes) % alignof(float) == 0 || count == 0) {
            result.tensor.data = reinterpret_cast<const float*>(bytes);
            result.tensor.owner = shared_from_this();
            return result;
        }
        // A misaligned float* may not be read through: copy instead.
        auto copy = std::make_shared<std::vector<float>>(count);
        std::memcpy(copy->data(), bytes, count * sizeof(float));
        result.tensor.data = copy->data();
        result.tensor.owner = std::move(copy);
        return result;
    }
    const bool half = info->dtype == QLatin1String("F16");
    if (!half && info->dtype != QLatin1String("BF16")) {
        result.error = QStringLiteral(
                           "tensor \"%1\" has dtype %2; only F32, F16 and BF16 are "
                           "supported")
                           .arg(name, info->dtype);
        return result;
    }
    auto converted = std::make_shared<std::vector<float>>(count);
    float* out = converted->data();
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint16_t bits = readU16(bytes + 2 * i);
        out[i] = half ? halfToFloat(bits) : bfloat16ToFloat(bits);
    }
    result.tensor.data = converted->data();
    result.tensor.owner = std::move(converted);
    return result;
}

}  // namespace attn
