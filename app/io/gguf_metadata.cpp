// GGUF metadata values and lookups (app/io/gguf.h); the parser is in gguf.cpp.
#include <QStringList>
#include <QtEndian>
#include <cstring>
#include <limits>

#include "app/io/gguf.h"
#include "model/ggml_types.h"

namespace attn {

namespace {

using Type = GgufValue::Type;

bool isInteger(Type t) {
    switch (t) {
        case Type::UInt8:
        case Type::Int8:
        case Type::UInt16:
        case Type::Int16:
        case Type::UInt32:
        case Type::Int32:
        case Type::UInt64:
        case Type::Int64:
            return true;
        default:
            return false;
    }
}

bool isUnsigned(Type t) {
    return t == Type::UInt8 || t == Type::UInt16 || t == Type::UInt32 || t == Type::UInt64;
}

bool isFloat(Type t) { return t == Type::Float32 || t == Type::Float64; }

// One decoded number: unsigned types in u (and in i when they fit), signed in i, every type in f.
struct Number {
    qint64 i = 0;
    quint64 u = 0;
    double f = 0;
};

Number decode(const QByteArray& raw, Type t, qint64 index) {
    const auto* p = reinterpret_cast<const uchar*>(raw.constData()) +
                    index * static_cast<qint64>(ggufScalarBytes(t));
    Number n;
    switch (t) {
        case Type::UInt8:
        case Type::Bool:
            n.u = p[0];
            break;
        case Type::Int8:
            n.i = static_cast<qint8>(p[0]);
            break;
        case Type::UInt16:
            n.u = qFromLittleEndian<quint16>(p);
            break;
        case Type::Int16:
            n.i = qFromLittleEndian<qint16>(p);
            break;
        case Type::UInt32:
            n.u = qFromLittleEndian<quint32>(p);
            break;
        case Type::Int32:
            n.i = qFromLittleEndian<qint32>(p);
            break;
        case Type::UInt64:
            n.u = qFromLittleEndian<quint64>(p);
            break;
        case Type::Int64:
            n.i = qFromLittleEndian<qint64>(p);
            break;
        case Type::Float32: {
            const quint32 bits = qFromLittleEndian<quint32>(p);
            float value;
            std::memcpy(&value, &bits, sizeof value);
            n.f = static_cast<double>(value);
            break;
        }
        case Type::Float64: {
            const quint64 bits = qFromLittleEndian<quint64>(p);
            std::memcpy(&n.f, &bits, sizeof n.f);
            break;
        }
        default:
            break;
    }
    if (isUnsigned(t) || t == Type::Bool) {
        n.i = n.u > static_cast<quint64>(std::numeric_limits<qint64>::max())
                  ? 0
                  : static_cast<qint64>(n.u);
    }
    if (!isFloat(t)) n.f = isUnsigned(t) ? static_cast<double>(n.u) : static_cast<double>(n.i);
    return n;
}

// The raw bytes hold count elements (a value built by hand may not).
bool hasNumbers(const GgufValue& v, Type t) {
    return v.raw.size() == v.count * static_cast<qint64>(ggufScalarBytes(t)) && v.count >= 1;
}

bool fitsInt64(const Number& n, Type t) {
    return !isUnsigned(t) || n.u <= static_cast<quint64>(std::numeric_limits<qint64>::max());
}

}  // namespace

int ggufScalarBytes(Type type) {
    switch (type) {
        case Type::UInt8:
        case Type::Int8:
        case Type::Bool:
            return 1;
        case Type::UInt16:
        case Type::Int16:
            return 2;
        case Type::UInt32:
        case Type::Int32:
        case Type::Float32:
            return 4;
        case Type::UInt64:
        case Type::Int64:
        case Type::Float64:
            return 8;
        case Type::String:
        case Type::Array:
            break;
    }
    return 0;
}

QString ggufTypeName(Type type) {
    static const char* const names[] = {"uint8",  "int8",    "uint16", "int16",  "uint32",
                                        "int32",  "float32", "bool",   "string", "array",
                                        "uint64", "int64",   "float64"};
    const auto index = static_cast<std::uint32_t>(type);
    return index < std::size(names) ? QLatin1String(names[index])
                                    : QStringLiteral("type %1").arg(index);
}

QString ggufValueTypeName(const GgufValue& value) {
    if (!value.isArray()) return ggufTypeName(value.type);
    return QStringLiteral("array of %1").arg(ggufTypeName(value.elementType));
}

std::optional<qint64> GgufValue::toInt() const {
    if (!isInteger(type) || !hasNumbers(*this, type)) return std::nullopt;
    const Number n = decode(raw, type, 0);
    if (!fitsInt64(n, type)) return std::nullopt;
    return n.i;
}

std::optional<quint64> GgufValue::toUInt() const {
    if (!isInteger(type) || !hasNumbers(*this, type)) return std::nullopt;
    const Number n = decode(raw, type, 0);
    if (isUnsigned(type)) return n.u;
    if (n.i < 0) return std::nullopt;
    return static_cast<quint64>(n.i);
}

std::optional<double> GgufValue::toDouble() const {
    if (!(isInteger(type) || isFloat(type)) || !hasNumbers(*this, type)) return std::nullopt;
    return decode(raw, type, 0).f;
}

std::optional<bool> GgufValue::toBool() const {
    if (type != Type::Bool || !hasNumbers(*this, type)) return std::nullopt;
    return decode(raw, type, 0).u != 0;
}

std::optional<QByteArray> GgufValue::toString() const {
    if (type != Type::String) return std::nullopt;
    return string;
}

std::optional<QList<QByteArray>> GgufValue::stringArray() const {
    if (type != Type::Array || elementType != Type::String) return std::nullopt;
    return strings;
}

std::optional<std::vector<double>> GgufValue::numberArray() const {
    if (type != Type::Array || !(isInteger(elementType) || isFloat(elementType)))
        return std::nullopt;
    std::vector<double> out;
    if (count == 0) return out;
    if (!hasNumbers(*this, elementType)) return std::nullopt;
    out.reserve(static_cast<std::size_t>(count));
    for (qint64 i = 0; i < count; ++i) out.push_back(decode(raw, elementType, i).f);
    return out;
}

std::optional<std::vector<qint64>> GgufValue::integerArray() const {
    if (type != Type::Array || !isInteger(elementType)) return std::nullopt;
    std::vector<qint64> out;
    if (count == 0) return out;
    if (!hasNumbers(*this, elementType)) return std::nullopt;
    out.reserve(static_cast<std::size_t>(count));
    for (qint64 i = 0; i < count; ++i) {
        const Number n = decode(raw, elementType, i);
        if (!fitsInt64(n, elementType)) return std::nullopt;
        out.push_back(n.i);
    }
    return out;
}

std::optional<GgufValue> GgufValue::element(qint64 i) const {
    if (type != Type::Array || i < 0 || i >= count || elementType == Type::Array)
        return std::nullopt;
    GgufValue scalar;
    scalar.type = elementType;
    scalar.elementType = elementType;
    if (elementType == Type::String) {
        if (i >= strings.size()) return std::nullopt;
        scalar.string = strings[static_cast<qsizetype>(i)];
        return scalar;
    }
    const qint64 size = ggufScalarBytes(elementType);
    if (!hasNumbers(*this, elementType)) return std::nullopt;
    scalar.raw = raw.mid(static_cast<qsizetype>(i * size), static_cast<qsizetype>(size));
    return scalar;
}

QString GgufFile::architecture() const {
    const std::optional<QByteArray> name = string("general.architecture");
    return name ? QString::fromUtf8(*name) : QString();
}

const GgufValue* GgufFile::value(QByteArrayView key) const {
    QByteArray full = key.toByteArray();
    if (full.contains("{arch}")) {
        const auto arch = metadataIndex_.constFind(QByteArrayLiteral("general.architecture"));
        if (arch == metadataIndex_.constEnd()) return nullptr;
        full.replace("{arch}", metadata_[static_cast<std::size_t>(*arch)].value.string);
    }
    const auto it = metadataIndex_.constFind(full);
    return it == metadataIndex_.constEnd() ? nullptr
                                           : &metadata_[static_cast<std::size_t>(*it)].value;
}

std::optional<qint64> GgufFile::integer(QByteArrayView key) const {
    const GgufValue* v = value(key);
    return v ? v->toInt() : std::nullopt;
}

std::optional<double> GgufFile::floating(QByteArrayView key) const {
    const GgufValue* v = value(key);
    return v ? v->toDouble() : std::nullopt;
}

std::optional<QByteArray> GgufFile::string(QByteArrayView key) const {
    const GgufValue* v = value(key);
    return v ? v->toString() : std::nullopt;
}

std::optional<bool> GgufFile::boolean(QByteArrayView key) const {
    const GgufValue* v = value(key);
    return v ? v->toBool() : std::nullopt;
}

const GgufTensorInfo* GgufFile::tensor(QByteArrayView name) const {
    const auto it = tensorIndex_.constFind(name.toByteArray());
    return it == tensorIndex_.constEnd() ? nullptr : &tensors_[static_cast<std::size_t>(*it)];
}

QString checkGgufTensorTypes(const GgufFile& file) {
    for (const GgufTensorInfo& info : file.tensors()) {
        if (ggml_type_computed(info.type)) continue;
        const GgmlTypeTraits traits = ggml_type_traits(info.type);
        const QString type =
            traits.name ? QLatin1String(traits.name) : QStringLiteral("type %1").arg(info.type);
        return QStringLiteral(
                   "tensor \"%1\" is %2, which this app does not compute: use a "
                   "Q4_K_M, Q5_K_M, Q8_0, F16 or F32 file of the model")
            .arg(QString::fromUtf8(info.name.left(80)), type);
    }
    return {};
}

}  // namespace attn
