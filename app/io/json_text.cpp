#include "app/io/json_text.h"

#include <QJsonObject>
#include <QStringDecoder>
#include <array>
#include <charconv>
#include <cmath>

#include "model/number_format.h"

namespace attn {

namespace {

QByteArray shortestDouble(double value) {
    return QByteArray::fromStdString(attn::format_shortest(value));
}

bool isScalar(const QJsonValue& v) { return !v.isArray() && !v.isObject(); }

void writeValue(QByteArray& out, const QJsonValue& value, int indent);

void newline(QByteArray& out, int indent) {
    out += '\n';
    out += QByteArray(indent, ' ');
}

void writeScalar(QByteArray& out, const QJsonValue& value) {
    switch (value.type()) {
        case QJsonValue::Bool:
            out += value.toBool() ? "true" : "false";
            break;
        case QJsonValue::Double: {
            const double d = value.toDouble();
            out += std::isfinite(d) ? shortestDouble(d) : QByteArray("null");
            break;
        }
        case QJsonValue::String:
            out += jsonString(value.toString());
            break;
        default:  // Null, Undefined
            out += "null";
            break;
    }
}

void writeArray(QByteArray& out, const QJsonArray& array, int indent) {
    if (array.isEmpty()) {
        out += "[]";
        return;
    }
    bool allScalars = true;
    for (const QJsonValue& v : array) {
        allScalars = allScalars && isScalar(v);
    }
    out += '[';
    if (allScalars) {
        for (qsizetype i = 0; i < array.size(); ++i) {
            if (i > 0) {
                out += ", ";
            }
            writeScalar(out, array.at(i));
        }
        out += ']';
        return;
    }
    for (qsizetype i = 0; i < array.size(); ++i) {
        newline(out, indent + 2);
        writeValue(out, array.at(i), indent + 2);
        if (i + 1 < array.size()) {
            out += ',';
        }
    }
    newline(out, indent);
    out += ']';
}

void writeMembers(QByteArray& out, const OrderedMembers& members, int indent) {
    if (members.empty()) {
        out += "{}";
        return;
    }
    out += '{';
    for (std::size_t i = 0; i < members.size(); ++i) {
        newline(out, indent + 2);
        out += jsonString(members[i].first);
        out += ": ";
        writeValue(out, members[i].second, indent + 2);
        if (i + 1 < members.size()) {
            out += ',';
        }
    }
    newline(out, indent);
    out += '}';
}

void writeValue(QByteArray& out, const QJsonValue& value, int indent) {
    if (value.isArray()) {
        writeArray(out, value.toArray(), indent);
    } else if (value.isObject()) {
        const QJsonObject object = value.toObject();
        OrderedMembers members;
        members.reserve(static_cast<std::size_t>(object.size()));
        for (auto it = object.begin(); it != object.end(); ++it) {
            members.emplace_back(it.key(), it.value());
        }
        writeMembers(out, members, indent);
    } else {
        writeScalar(out, value);
    }
}

}  // namespace

QByteArray formatFloat(float value) {
    if (!std::isfinite(value)) {
        return QByteArrayLiteral("null");
    }
    return QByteArray::fromStdString(attn::format_shortest(value));
}

QJsonValue jsonNumber(float value) {
    if (!std::isfinite(value)) {
        return QJsonValue(QJsonValue::Null);
    }
    // The double nearest to the float's shortest digits prints as those same digits, and reads
    // back (double -> float) as the original float.
    const QByteArray digits = formatFloat(value);
    double d = 0.0;
    std::from_chars(digits.constData(), digits.constData() + digits.size(), d);
    return QJsonValue(d);
}

QJsonArray jsonRow(const attn::RowVector& row) {
    QJsonArray out;
    for (Eigen::Index j = 0; j < row.size(); ++j) {
        out.append(jsonNumber(row(j)));
    }
    return out;
}

QJsonArray jsonMatrix(const attn::Matrix& matrix) {
    QJsonArray out;
    for (Eigen::Index i = 0; i < matrix.rows(); ++i) {
        QJsonArray row;
        for (Eigen::Index j = 0; j < matrix.cols(); ++j) {
            row.append(jsonNumber(matrix(i, j)));
        }
        out.append(row);
    }
    return out;
}

QJsonObject jsonWeights(const std::vector<attn::NamedMatrix>& weights) {
    QJsonObject out;
    for (const attn::NamedMatrix& w : weights) {
        const QString name = QString::fromStdString(w.name);
        if (w.is_vector && w.value.rows() == 1) {
            out.insert(name, jsonRow(w.value.row(0)));
        } else {
            out.insert(name, jsonMatrix(w.value));
        }
    }
    return out;
}

QByteArray writeJson(const QJsonValue& value) {
    QByteArray out;
    writeValue(out, value, 0);
    out += '\n';
    return out;
}

QByteArray writeJsonObject(const OrderedMembers& members) {
    QByteArray out;
    writeMembers(out, members, 0);
    out += '\n';
    return out;
}

QString fromUtf8KeepingBom(QByteArrayView utf8) {
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::ConvertInitialBom);
    return decoder.decode(utf8);
}

QByteArray jsonString(const QString& text) {
    const QByteArray utf8 = text.toUtf8();
    QByteArray out;
    out.reserve(utf8.size() + 2);
    out += '"';
    for (qsizetype i = 0; i < utf8.size(); ++i) {
        const char c = utf8[i];
        const auto u = static_cast<unsigned char>(c);
        // U+FEFF (EF BB BF) is escaped: QString::fromUtf8 drops it at the start of a string, so
        // a token starting with it would not read back (found by fuzz_example_file).
        if (u == 0xef && i + 2 < utf8.size() && static_cast<unsigned char>(utf8[i + 1]) == 0xbb &&
            static_cast<unsigned char>(utf8[i + 2]) == 0xbf) {
            out += "\\ufeff";
            i += 2;
            continue;
        }
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (u < 0x20) {
                    static const char hex[] = "0123456789abcdef";
                    out += "\\u00";
                    out += hex[u >> 4];
                    out += hex[u & 0xf];
                } else {
                    out += c;
                }
        }
    }
    out += '"';
    return out;
}

}  // namespace attn
