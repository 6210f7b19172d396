#include "app/io/safetensors_writer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <cstring>

#include "app/io/atomic_file.h"

namespace attn {

namespace {

std::uint32_t floatBits(float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

}  // namespace

std::uint16_t floatToHalf(float value) {
    const std::uint32_t bits = floatBits(value);
    const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
    const std::uint32_t x = bits & 0x7FFFFFFFu;
    if (x > 0x7F800000u) return sign | 0x7E00u;   // NaN
    if (x >= 0x47800000u) return sign | 0x7C00u;  // ≥ 65536 and inf: inf
    if (x >= 0x38800000u) {                       // a normal half (≥ 2^-14)
        // Rebias the exponent (−112 · 2^23) and round the 13 dropped bits to nearest even; a
        // carry into the exponent is the right result (up to inf from 65520 on).
        const std::uint32_t odd = (x >> 13) & 1u;
        return static_cast<std::uint16_t>(sign | ((x - 0x38000000u + 0xFFFu + odd) >> 13));
    }
    // Subnormal half: the value in units of 2^-24, rounded to nearest even.
    const std::uint32_t exponent = x >> 23;
    if (exponent < 102) return sign;  // below 2^-25: rounds to zero
    const std::uint32_t mantissa = (x & 0x7FFFFFu) | 0x800000u;
    const std::uint32_t shift = 126u - exponent;  // 14..24
    std::uint32_t q = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (q & 1u))) ++q;
    return static_cast<std::uint16_t>(sign | q);
}

std::uint16_t floatToBfloat16(float value) {
    if (std::isnan(value)) return 0x7FC0u;
    const std::uint32_t bits = floatBits(value);
    // As c10::BFloat16: add 0x7FFF plus the lowest kept bit, then truncate.
    return static_cast<std::uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

QByteArray serializeSafetensors(const std::vector<SafetensorsTensorToWrite>& tensors,
                                const QMap<QString, QString>& metadata, QString* error) {
    auto fail = [error](const QString& message) {
        if (error) *error = message;
        return QByteArray();
    };
    QJsonObject header;
    if (!metadata.isEmpty()) {
        QJsonObject meta;
        for (auto it = metadata.begin(); it != metadata.end(); ++it) meta.insert(it.key(), *it);
        header.insert(QStringLiteral("__metadata__"), meta);
    }
    QByteArray data;
    for (const SafetensorsTensorToWrite& tensor : tensors) {
        if (tensor.name == QLatin1String("__metadata__") || header.contains(tensor.name))
            return fail(
                QStringLiteral("tensor name \"%1\" is reserved or repeated").arg(tensor.name));
        qint64 elements = 1;
        QJsonArray shape;
        for (qint64 d : tensor.shape) {
            if (d < 0)
                return fail(QStringLiteral("tensor \"%1\": negative dimension").arg(tensor.name));
            elements *= d;
            shape.append(d);
        }
        if (elements != static_cast<qint64>(tensor.values.size()))
            return fail(QStringLiteral("tensor \"%1\": %2 values for a shape of %3 elements")
                            .arg(tensor.name)
                            .arg(tensor.values.size())
                            .arg(elements));
        const qint64 begin = data.size();
        if (tensor.dtype == QLatin1String("F32")) {
            for (float v : tensor.values) {
                const std::uint32_t bits = floatBits(v);
                for (int b = 0; b < 4; ++b)
                    data.append(static_cast<char>((bits >> (8 * b)) & 0xFF));
            }
        } else if (tensor.dtype == QLatin1String("F16") || tensor.dtype == QLatin1String("BF16")) {
            const bool half = tensor.dtype == QLatin1String("F16");
            for (float v : tensor.values) {
                const std::uint16_t bits = half ? floatToHalf(v) : floatToBfloat16(v);
                data.append(static_cast<char>(bits & 0xFF));
                data.append(static_cast<char>(bits >> 8));
            }
        } else {
            return fail(QStringLiteral("tensor \"%1\": dtype %2 cannot be written; use F32, F16 "
                                       "or BF16")
                            .arg(tensor.name, tensor.dtype));
        }
        QJsonObject entry;
        entry.insert(QStringLiteral("dtype"), tensor.dtype);
        entry.insert(QStringLiteral("shape"), shape);
        entry.insert(QStringLiteral("data_offsets"), QJsonArray{begin, qint64{data.size()}});
        header.insert(tensor.name, entry);
    }
    QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
    // Padding to 8 bytes keeps every F32 tensor 4-byte aligned in the mapping (zero copy).
    while (json.size() % 8 != 0) json.append(' ');
    QByteArray out;
    const auto length = static_cast<quint64>(json.size());
    for (int b = 0; b < 8; ++b) out.append(static_cast<char>((length >> (8 * b)) & 0xFF));
    out.append(json);
    out.append(data);
    return out;
}

bool writeSafetensors(const QString& path, const std::vector<SafetensorsTensorToWrite>& tensors,
                      const QMap<QString, QString>& metadata, QString* error) {
    QString reason;
    const QByteArray bytes = serializeSafetensors(tensors, metadata, &reason);
    if (bytes.isEmpty()) {
        if (error) *error = reason;
        return false;
    }
    return writeFileAtomically(path, bytes, error);
}

}  // namespace attn
