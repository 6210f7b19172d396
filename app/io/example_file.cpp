// Reading example files: every check of example_file.h, with the line and column of the first
// problem. Writing them is example_file_writer.cpp.
#include "app/io/example_file.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <algorithm>
#include <cctype>
#include <cfloat>
#include <charconv>
#include <cmath>

#include "app/io/json_locator.h"
#include "app/io/json_text.h"

namespace {

constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53: larger JSON integers lose digits
constexpr qsizetype kMaxSettingValue = qsizetype{1} << 20;

// Thrown inside the parser only, caught by parseExampleFile: the first problem ends the parse.
struct ParseFailure {
    QString message;
};

JsonPath child(const JsonPath& path, const QString& key) {
    JsonPath out = path;
    out.push_back({key, -1});
    return out;
}

JsonPath child(const JsonPath& path, qsizetype index) {
    JsonPath out = path;
    out.push_back({QString(), index});
    return out;
}

QString quoted(const QString& text) {
    constexpr qsizetype kShown = 40;
    return QLatin1Char('"') +
           (text.size() > kShown ? text.left(kShown) + QStringLiteral("...") : text) +
           QLatin1Char('"');
}

// "a string \"abc\"", "null", "a list", ... for messages about a value of the wrong type.
QString describe(const QJsonValue& v) {
    switch (v.type()) {
        case QJsonValue::Null:
            return QStringLiteral("null");
        case QJsonValue::Bool:
            return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        case QJsonValue::Double: {
            // A number beyond float's range is shown as written, not as the float it overflows to.
            const double d = v.toDouble();
            const bool inFloatRange = std::fabs(d) < static_cast<double>(FLT_MAX) + 0x1p103;
            return QStringLiteral("the number ") +
                   (inFloatRange ? QString::fromUtf8(formatFloat(static_cast<float>(d)))
                                 : QString::number(d, 'g', 17));
        }
        case QJsonValue::String:
            return QStringLiteral("the string ") + quoted(v.toString());
        case QJsonValue::Array:
            return QStringLiteral("a list");
        case QJsonValue::Object:
            return QStringLiteral("an object");
        default:
            return QStringLiteral("missing");
    }
}

// Whether d rounds to a finite float: below FLT_MAX plus half a float ulp (2^103), so that
// FLT_MAX's own shortest digits "3.4028235e+38", a little above it, still read back.
bool fitsFloat(double d) { return std::fabs(d) < static_cast<double>(FLT_MAX) + 0x1p103; }

bool isNonFiniteWord(const QString& text) {
    const QString w = text.trimmed().toLower();
    static const QStringList words = {"nan",  "+nan",     "-nan",      "inf",      "+inf",
                                      "-inf", "infinity", "+infinity", "-infinity"};
    return words.contains(w);
}

QString plural(qsizetype n, const char* one, const char* many) {
    return QString::number(n) + QLatin1Char(' ') + QLatin1String(n == 1 ? one : many);
}

class Parser {
public:
    explicit Parser(const QByteArray& bytes) : bytes_(bytes) {}

    [[noreturn]] void fail(const JsonPath& path, const QString& message) const {
        const TextPosition pos = textPosition(bytes_, locateJsonValue(bytes_, path));
        throw ParseFailure{
            QStringLiteral("line %1, column %2: %3").arg(pos.line).arg(pos.column).arg(message)};
    }

    ExampleFile parse(const QJsonObject& root) {
        static const QStringList known = {"format",     "version", "description", "tokens",
                                          "embeddings", "weights", "source",      "config"};
        checkKeys(root, {}, known, QStringLiteral("an example"));

        if (root.contains(QLatin1String("format"))) {
            const QJsonValue f = root.value(QLatin1String("format"));
            if (f.toString() != QLatin1String(kExampleFormatName)) {
                fail(child({}, QStringLiteral("format")),
                     QStringLiteral("\"format\" is %1: this is not an attention-visualizer example "
                                    "(expected \"%2\")")
                         .arg(describe(f), QLatin1String(kExampleFormatName)));
            }
        }
        if (root.contains(QLatin1String("version"))) {
            const QJsonValue v = root.value(QLatin1String("version"));
            const double d = v.toDouble(-1.0);
            if (v.isDouble() && d > kExampleFormatVersion && d == std::floor(d)) {
                fail(child({}, QStringLiteral("version")),
                     QStringLiteral("the file has format version %1, written by a newer version "
                                    "of the app; this build reads version %2")
                         .arg(QString::number(d, 'g', 17))
                         .arg(kExampleFormatVersion));
            }
            if (!v.isDouble() || d != kExampleFormatVersion) {
                fail(child({}, QStringLiteral("version")),
                     QStringLiteral("\"version\" is %1: this build reads version %2")
                         .arg(describe(v))
                         .arg(kExampleFormatVersion));
            }
        }

        ExampleFile file;
        if (root.contains(QLatin1String("description"))) {
            const QJsonValue d = root.value(QLatin1String("description"));
            if (!d.isString()) {
                fail(child({}, QStringLiteral("description")),
                     QStringLiteral("\"description\" is %1, not a string").arg(describe(d)));
            }
            file.description = d.toString();
        }
        file.inputs = parseSequence(root, {}, QString());
        if (root.contains(QLatin1String("weights"))) {
            file.weights = parseWeights(root.value(QLatin1String("weights")),
                                        child({}, QStringLiteral("weights")));
        }
        if (root.contains(QLatin1String("source"))) {
            const JsonPath at = child({}, QStringLiteral("source"));
            const QJsonValue s = root.value(QLatin1String("source"));
            if (!s.isObject()) {
                fail(at, QStringLiteral("\"source\" is %1, not an object with \"tokens\" and "
                                        "\"embeddings\"")
                             .arg(describe(s)));
            }
            checkKeys(s.toObject(), at, {"tokens", "embeddings"}, QStringLiteral("\"source\""));
            file.source = parseSequence(s.toObject(), at, QStringLiteral("source "));
            if (file.source->embeddings.cols() != file.inputs.embeddings.cols()) {
                fail(child(at, QStringLiteral("embeddings")),
                     QStringLiteral("source embeddings have %1 per token but embeddings have "
                                    "%2; cross-attention needs both sequences of the same width")
                         .arg(plural(file.source->embeddings.cols(), "value", "values"))
                         .arg(file.inputs.embeddings.cols()));
            }
        }
        if (root.contains(QLatin1String("config"))) {
            file.config = parseConfig(root.value(QLatin1String("config")),
                                      child({}, QStringLiteral("config")), &file.training);
        }
        return file;
    }

private:
    void checkKeys(const QJsonObject& object, const JsonPath& at, const QStringList& known,
                   const QString& what) const {
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (!known.contains(it.key())) {
                fail(child(at, it.key()),
                     QStringLiteral("unknown key %1: %2 has the keys %3")
                         .arg(quoted(it.key()), what, known.join(QStringLiteral(", "))));
            }
        }
    }

    // A JSON number that fits a float; `what` names it: "embeddings row 2, value 3".
    float number(const QJsonValue& v, const JsonPath& at, const QString& what) const {
        if (v.isDouble()) {
            const double d = v.toDouble();
            if (!fitsFloat(d)) {
                fail(at, QStringLiteral("%1 = %2 is too large for a 32-bit float (largest about "
                                        "3.4e38): give a smaller number")
                             .arg(what, QString::number(d, 'g', 6)));
            }
            return static_cast<float>(d);
        }
        if (v.isString() && isNonFiniteWord(v.toString())) {
            fail(at, QStringLiteral("%1 is the string %2: NaN and infinity are not allowed; give "
                                    "a finite number")
                         .arg(what, quoted(v.toString())));
        }
        if (v.isString()) {
            bool ok = false;
            v.toString().trimmed().toDouble(&ok);
            if (ok) {
                fail(at, QStringLiteral("%1 is the string %2, not a number: remove the quotes")
                             .arg(what, quoted(v.toString())));
            }
        }
        if (v.isNull()) {
            fail(at, QStringLiteral("%1 is null, not a number (a NaN written by a JSON library "
                                    "shows up as null): give a finite number")
                         .arg(what));
        }
        fail(at, QStringLiteral("%1 is %2, not a number").arg(what, describe(v)));
    }

    // A non-empty list of numbers: one row of a matrix, or a vector.
    attn::RowVector numberRow(const QJsonArray& row, const JsonPath& at,
                              const QString& what) const {
        attn::RowVector out(row.size());
        for (qsizetype j = 0; j < row.size(); ++j) {
            out(j) = number(row.at(j), child(at, j),
                            QStringLiteral("%1, value %2").arg(what).arg(j + 1));
        }
        return out;
    }

    // A rectangular list of rows; `name` names the whole ("embeddings", "weights \"W_query\"").
    attn::Matrix matrix(const QJsonArray& rows, const JsonPath& at, const QString& name,
                        const QString& rowWord, const QString& fix) const {
        attn::Matrix out;
        for (qsizetype i = 0; i < rows.size(); ++i) {
            const JsonPath rowAt = child(at, i);
            const QString rowName = QStringLiteral("%1 %2 %3").arg(name, rowWord).arg(i + 1);
            const QJsonValue rowValue = rows.at(i);
            if (!rowValue.isArray()) {
                fail(rowAt, QStringLiteral("%1 is %2, not a list of numbers")
                                .arg(rowName, describe(rowValue)));
            }
            const QJsonArray row = rowValue.toArray();
            if (row.isEmpty()) {
                fail(rowAt, QStringLiteral("%1 is empty: %2").arg(rowName, fix));
            }
            if (i == 0) {
                if (row.size() > attn::kMaxWidth) {
                    fail(rowAt, QStringLiteral("%1 has %2 values; the limit is %3")
                                    .arg(rowName)
                                    .arg(row.size())
                                    .arg(attn::kMaxWidth));
                }
                out.resize(rows.size(), row.size());
            } else if (row.size() != out.cols()) {
                fail(rowAt, QStringLiteral("%1 has %2 but %3 1 has %4; %5")
                                .arg(rowName, plural(row.size(), "number", "numbers"), rowWord)
                                .arg(out.cols())
                                .arg(fix));
            }
            out.row(i) = numberRow(row, rowAt, rowName);
        }
        return out;
    }

    attn::Sequence parseSequence(const QJsonObject& object, const JsonPath& at,
                                 const QString& prefix) const {
        attn::Sequence seq;
        const QString tokensName = prefix + QStringLiteral("tokens");
        const QString embName = prefix + QStringLiteral("embeddings");
        const JsonPath tokensAt = child(at, QStringLiteral("tokens"));
        const JsonPath embAt = child(at, QStringLiteral("embeddings"));
        if (!object.contains(QLatin1String("tokens"))) {
            fail(at, QStringLiteral("%1has no \"tokens\": give the list of token texts, e.g. "
                                    "\"tokens\": [\"Your\", \"journey\"]")
                         .arg(prefix.isEmpty() ? QStringLiteral("the example ") : prefix));
        }
        const QJsonValue tokensValue = object.value(QLatin1String("tokens"));
        if (!tokensValue.isArray()) {
            fail(tokensAt, QStringLiteral("%1 is %2, not a list of strings")
                               .arg(tokensName, describe(tokensValue)));
        }
        const QJsonArray tokens = tokensValue.toArray();
        if (tokens.isEmpty()) {
            fail(tokensAt, QStringLiteral("%1 is empty: give at least one token").arg(tokensName));
        }
        if (tokens.size() > kMaxExampleTokens) {
            fail(tokensAt,
                 QStringLiteral("%1 has %2 entries; the limit is %3 tokens: shorten the sequence")
                     .arg(tokensName)
                     .arg(tokens.size())
                     .arg(kMaxExampleTokens));
        }
        for (qsizetype i = 0; i < tokens.size(); ++i) {
            const QJsonValue t = tokens.at(i);
            const QString what =
                QStringLiteral("%1 %2").arg(prefix + QStringLiteral("token")).arg(i + 1);
            if (!t.isString()) {
                fail(child(tokensAt, i),
                     QStringLiteral("%1 is %2, not a string: put the token's text in quotes")
                         .arg(what, describe(t)));
            }
            const QString text = t.toString();
            if (!text.isValidUtf16()) {
                fail(child(tokensAt, i), QStringLiteral("%1 contains an unpaired surrogate escape "
                                                        "(\\ud800 .. \\udfff alone): remove it")
                                             .arg(what));
            }
            if (text.size() > kMaxTokenLength) {
                fail(child(tokensAt, i),
                     QStringLiteral("%1 is %2 characters long; the limit is %3: "
                                    "split it into shorter tokens")
                         .arg(what)
                         .arg(text.size())
                         .arg(kMaxTokenLength));
            }
            seq.tokens.push_back(text.toStdString());
        }

        if (!object.contains(QLatin1String("embeddings"))) {
            fail(at, QStringLiteral("%1has no \"embeddings\": give one row of numbers per token")
                         .arg(prefix.isEmpty() ? QStringLiteral("the example ") : prefix));
        }
        const QJsonValue embValue = object.value(QLatin1String("embeddings"));
        if (!embValue.isArray()) {
            fail(embAt, QStringLiteral("%1 is %2, not a list of rows of numbers")
                            .arg(embName, describe(embValue)));
        }
        const QJsonArray rows = embValue.toArray();
        if (rows.size() != tokens.size()) {
            fail(embAt, QStringLiteral("%1 has %2 but %3 has %4; give one row per token")
                            .arg(embName, plural(rows.size(), "row", "rows"), tokensName,
                                 plural(tokens.size(), "entry", "entries")));
        }
        seq.embeddings = matrix(rows, embAt, embName, QStringLiteral("row"),
                                QStringLiteral("every token needs the same number of values"));
        return seq;
    }

    std::vector<attn::NamedMatrix> parseWeights(const QJsonValue& value, const JsonPath& at) const {
        if (!value.isObject()) {
            fail(at, QStringLiteral("\"weights\" is %1, not an object of named matrices such as "
                                    "{\"W_query.weight\": [[...]]}")
                         .arg(describe(value)));
        }
        std::vector<attn::NamedMatrix> out;
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            const JsonPath wAt = child(at, it.key());
            const QString name = QStringLiteral("weights %1").arg(quoted(it.key()));
            if (it.key().isEmpty()) {
                fail(wAt, QStringLiteral("a weight has an empty name: use the module's parameter "
                                         "name, e.g. \"W_query.weight\""));
            }
            if (!it.value().isArray() || it.value().toArray().isEmpty()) {
                fail(wAt, QStringLiteral("%1 is %2, not a matrix (list of rows) or a vector (list "
                                         "of numbers)")
                              .arg(name, it.value().isArray() ? QStringLiteral("empty")
                                                              : describe(it.value())));
            }
            const QJsonArray array = it.value().toArray();
            attn::NamedMatrix w;
            w.name = it.key().toStdString();
            if (array.at(0).isArray()) {
                w.value =
                    matrix(array, wAt, name, QStringLiteral("row"),
                           QStringLiteral("every row of a matrix needs the same number of values"));
            } else {
                w.is_vector = true;
                w.value = numberRow(array, wAt, name);
            }
            out.push_back(std::move(w));
        }
        return out;
    }

    qsizetype integer(const QJsonValue& v, const JsonPath& at, const QString& key, double min,
                      double max, const QString& meaning) const {
        const double d = v.toDouble(std::nan(""));
        if (!v.isDouble() || d != std::floor(d) || d < min || d > max) {
            fail(at, QStringLiteral("config \"%1\" is %2: give a whole number from %3 to %4 (%5)")
                         .arg(key, describe(v), QString::number(min, 'g', 17),
                              QString::number(max, 'g', 17), meaning));
        }
        return static_cast<qsizetype>(d);
    }

    attn::ModuleConfig parseConfig(const QJsonValue& value, const JsonPath& at,
                                   std::optional<bool>* training) const {
        if (!value.isObject()) {
            fail(at, QStringLiteral("\"config\" is %1, not an object of module settings")
                         .arg(describe(value)));
        }
        const QJsonObject object = value.toObject();
        checkKeys(
            object, at,
            {"module",  "seed",     "d_out",    "num_heads", "batch",       "context_length",
             "dropout", "qkv_bias", "training", "causal",    "scale",       "mask_convention",
             "fill",    "dim_k",    "dim_v",    "head_mask", "prune_heads", "num_kv_heads",
             "mask",    "window",   "lengths",  "rope",      "rope_base",   "position_offset"},
            QStringLiteral("\"config\""));
        attn::ModuleConfig config;
        QString mask;  // "causal", "bidirectional" or "window"; checked against causal and window
        JsonPath maskAt;
        for (auto it = object.begin(); it != object.end(); ++it) {
            const QString& key = it.key();
            const QJsonValue v = it.value();
            const JsonPath vAt = child(at, key);
            if (key == QLatin1String("module")) {
                if (!v.isString()) {
                    fail(vAt, QStringLiteral("config \"module\" is %1, not a module name")
                                  .arg(describe(v)));
                }
                try {
                    config.module = attn::module_kind_from_name(v.toString().toStdString());
                } catch (const attn::AttentionError& e) {
                    fail(vAt, QString::fromStdString(e.what()));
                }
            } else if (key == QLatin1String("seed")) {
                config.seed = static_cast<std::uint64_t>(
                    integer(v, vAt, key, 0, kMaxExactInteger, QStringLiteral("torch.manual_seed")));
            } else if (key == QLatin1String("d_out")) {
                config.d_out = integer(v, vAt, key, 0, attn::kMaxWidth,
                                       QStringLiteral("0 = the module's default"));
            } else if (key == QLatin1String("num_heads")) {
                config.num_heads = integer(v, vAt, key, 0, attn::kMaxWidth,
                                           QStringLiteral("0 = the module's default"));
            } else if (key == QLatin1String("dim_k") || key == QLatin1String("dim_v")) {
                const Eigen::Index width =
                    integer(v, vAt, key, 0, attn::kMaxWidth, QStringLiteral("0 = d_in"));
                (key == QLatin1String("dim_k") ? config.dim_k : config.dim_v) = width;
            } else if (key == QLatin1String("head_mask")) {
                // Ranges and the count per head are the model's checks (resolve_config).
                if (!v.isArray()) {
                    fail(vAt, QStringLiteral("config \"head_mask\" is %1, not a list of factors "
                                             "such as [1, 0.5]")
                                  .arg(describe(v)));
                }
                const QJsonArray array = v.toArray();
                config.head_mask.clear();
                for (qsizetype i = 0; i < array.size(); ++i) {
                    config.head_mask.push_back(
                        number(array.at(i), child(vAt, i),
                               QStringLiteral("config \"head_mask\", value %1").arg(i + 1)));
                }
            } else if (key == QLatin1String("prune_heads")) {
                if (!v.isArray()) {
                    fail(vAt, QStringLiteral("config \"prune_heads\" is %1, not a list of head "
                                             "numbers such as [0, 2]")
                                  .arg(describe(v)));
                }
                const QJsonArray array = v.toArray();
                config.prune_heads.clear();
                for (qsizetype i = 0; i < array.size(); ++i) {
                    config.prune_heads.push_back(integer(array.at(i), child(vAt, i), key, 0,
                                                         attn::kMaxWidth - 1,
                                                         QStringLiteral("a head number")));
                }
            } else if (key == QLatin1String("batch")) {
                config.batch = integer(v, vAt, key, 1, attn::kMaxBatch,
                                       QStringLiteral("copies of the sequence"));
            } else if (key == QLatin1String("context_length")) {
                config.context_length =
                    integer(v, vAt, key, 0, static_cast<double>(kMaxSettingValue),
                            QStringLiteral("0 = the sequence length"));
            } else if (key == QLatin1String("dropout")) {
                const double d = v.toDouble(-1.0);
                if (!v.isDouble() || d < 0.0 || d > 1.0) {
                    fail(vAt,
                         QStringLiteral("config \"dropout\" is %1: give a probability from 0 to 1")
                             .arg(describe(v)));
                }
                config.dropout = static_cast<float>(d);
            } else if (key == QLatin1String("qkv_bias")) {
                if (!v.isBool()) {
                    fail(vAt, QStringLiteral("config \"qkv_bias\" is %1: give true or false")
                                  .arg(describe(v)));
                }
                config.qkv_bias = v.toBool();
            } else if (key == QLatin1String("training") || key == QLatin1String("causal") ||
                       key == QLatin1String("scale")) {
                if (!v.isBool()) {
                    fail(vAt, QStringLiteral("config \"%1\" is %2: give true or false")
                                  .arg(key, describe(v)));
                }
                if (key == QLatin1String("training")) {
                    *training = v.toBool();
                } else if (key == QLatin1String("causal")) {
                    config.causal = v.toBool();
                } else {
                    config.scale = v.toBool();
                }
            } else if (key == QLatin1String("mask_convention")) {
                if (v == QJsonValue(QStringLiteral("zero"))) {
                    config.mask_convention = attn::MaskConvention::FillWhereZero;
                } else if (v == QJsonValue(QStringLiteral("one"))) {
                    config.mask_convention = attn::MaskConvention::FillWhereOne;
                } else {
                    fail(vAt, QStringLiteral("config \"mask_convention\" is %1: give \"zero\" "
                                             "(fill where mask == 0) or \"one\" (mask == 1)")
                                  .arg(describe(v)));
                }
            } else if (key == QLatin1String("num_kv_heads")) {
                config.num_kv_heads =
                    integer(v, vAt, key, 0, attn::kMaxWidth, QStringLiteral("0 = num_heads"));
            } else if (key == QLatin1String("window")) {
                config.window = integer(v, vAt, key, 0, static_cast<double>(kMaxSettingValue),
                                        QStringLiteral("0 = no window"));
            } else if (key == QLatin1String("position_offset")) {
                config.position_offset = integer(v, vAt, key, 0, double{1 << 24},
                                                 QStringLiteral("the first token's RoPE position"));
            } else if (key == QLatin1String("lengths")) {
                // Their count against the batch and each against T are the model's checks.
                if (!v.isArray()) {
                    fail(vAt, QStringLiteral("config \"lengths\" is %1, not a list of sequence "
                                             "lengths such as [6, 4]")
                                  .arg(describe(v)));
                }
                const QJsonArray array = v.toArray();
                config.lengths.clear();
                for (qsizetype i = 0; i < array.size() && i <= attn::kMaxBatch; ++i) {
                    config.lengths.push_back(integer(array.at(i), child(vAt, i), key, 0,
                                                     static_cast<double>(kMaxSettingValue),
                                                     QStringLiteral("a sequence length")));
                }
            } else if (key == QLatin1String("rope")) {
                if (!v.isBool()) {
                    fail(vAt, QStringLiteral("config \"rope\" is %1: give true or false")
                                  .arg(describe(v)));
                }
                config.rope = v.toBool();
            } else if (key == QLatin1String("rope_base")) {
                const double d = v.toDouble(std::nan(""));
                if (!v.isDouble() || !(d > 1.0) || d > 3.0e38) {
                    fail(vAt, QStringLiteral("config \"rope_base\" is %1: give a number above 1 "
                                             "such as 10000")
                                  .arg(describe(v)));
                }
                config.rope_base = static_cast<float>(d);
            } else if (key == QLatin1String("mask")) {
                if (v != QJsonValue(QStringLiteral("causal")) &&
                    v != QJsonValue(QStringLiteral("bidirectional")) &&
                    v != QJsonValue(QStringLiteral("window"))) {
                    fail(vAt, QStringLiteral("config \"mask\" is %1: give \"causal\", "
                                             "\"bidirectional\" or \"window\"")
                                  .arg(describe(v)));
                }
                mask = v.toString();
                maskAt = vAt;
            } else if (key == QLatin1String("fill")) {
                // JSON has no infinity: -inf is written as the string "-inf".
                if (v == QJsonValue(QStringLiteral("-inf"))) {
                    config.fill_value = attn::kNegInf;
                } else if (v.isDouble() && std::isfinite(v.toDouble()) &&
                           std::abs(v.toDouble()) <= 3.0e38) {
                    config.fill_value = static_cast<float>(v.toDouble());
                } else {
                    fail(vAt, QStringLiteral("config \"fill\" is %1: give a number such as "
                                             "-1e9 or -1e4, or \"-inf\"")
                                  .arg(describe(v)));
                }
            }
        }
        // "mask" says again what "causal" and "window" say; they must agree.
        if (config.window > 0 && mask != QLatin1String("window")) {
            fail(child(at, QStringLiteral("window")),
                 QStringLiteral("config \"window\" is %1 but \"mask\" is not \"window\": add "
                                "\"mask\": \"window\" or remove the window")
                     .arg(config.window));
        }
        if (!mask.isEmpty()) {
            if (mask == QLatin1String("window") && config.window == 0) {
                fail(maskAt, QStringLiteral("config \"mask\" is \"window\" without a width: add "
                                            "\"window\": W (W >= 1)"));
            }
            const bool causal = mask != QLatin1String("bidirectional");
            if (config.causal.has_value() && *config.causal != causal) {
                fail(maskAt, QStringLiteral("config \"mask\" is \"%1\" but \"causal\" is %2: "
                                            "give one of them, or make them agree")
                                 .arg(mask, *config.causal ? QStringLiteral("true")
                                                           : QStringLiteral("false")));
            }
            // As on the command line: "bidirectional" is causal = false, "causal" causal = true;
            // a module that is causal anyway keeps causal unset, so a saved session reads back
            // as it was.
            if (!causal || !config.module || !attn::module_info(*config.module).causal_by_default)
                config.causal = causal;
        }
        return config;
    }

    const QByteArray& bytes_;
};

// The token at the syntax error, for a hint about NaN / Infinity / huge numbers.
QByteArray wordAt(const QByteArray& bytes, qsizetype offset) {
    auto isWordChar = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
    };
    qsizetype begin = std::min(offset, bytes.size());
    // Qt reports some errors just after the bad token: step back onto it.
    if (begin > 0 && (begin == bytes.size() || !isWordChar(bytes[begin])) &&
        isWordChar(bytes[begin - 1])) {
        --begin;
    }
    while (begin > 0 && isWordChar(bytes[begin - 1])) {
        --begin;
    }
    qsizetype end = begin;
    while (end < bytes.size() && isWordChar(bytes[end]) && end - begin < 64) {
        ++end;
    }
    return bytes.mid(begin, end - begin);
}

QString syntaxHint(const QByteArray& bytes, qsizetype offset) {
    const QByteArray word = wordAt(bytes, offset);
    if (isNonFiniteWord(QString::fromLatin1(word))) {
        return QStringLiteral(
            " (NaN and Infinity are not JSON numbers; every value must be finite)");
    }
    double d = 0.0;
    const char* end = word.constData() + word.size();
    const std::from_chars_result r = std::from_chars(word.constData(), end, d);
    const bool negativeExponent = word.contains("e-") || word.contains("E-");
    if (r.ptr == end && r.ec == std::errc::result_out_of_range && !negativeExponent) {
        return QStringLiteral(" (the number %1 is too large)").arg(QString::fromLatin1(word));
    }
    return QString();
}

QString positionText(const QByteArray& bytes, qsizetype offset) {
    const TextPosition pos = textPosition(bytes, offset);
    return QStringLiteral("line %1, column %2: ").arg(pos.line).arg(pos.column);
}

QString megabytes(qint64 bytes) {
    return QString::number(static_cast<double>(bytes) / (1 << 20), 'f', 1);
}

}  // namespace

ExampleParseResult parseExampleFile(const QByteArray& bytes) {
    ExampleParseResult result;
    if (bytes.size() > kMaxExampleFileBytes) {
        result.error = QStringLiteral("the file is %1 MB; example files are limited to %2 MB")
                           .arg(megabytes(bytes.size()), megabytes(kMaxExampleFileBytes));
        return result;
    }
    const qsizetype bad = firstInvalidUtf8(bytes);
    if (bad >= 0) {
        result.error = positionText(bytes, bad) +
                       QStringLiteral("the file is not valid UTF-8 (byte 0x%1): save it as UTF-8")
                           .arg(static_cast<unsigned char>(bytes[bad]), 2, 16, QLatin1Char('0'));
        return result;
    }
    if (bytes.trimmed().isEmpty() || bytes.trimmed() == "\xEF\xBB\xBF") {
        result.error =
            QStringLiteral("the file is empty: an example needs \"tokens\" and \"embeddings\"");
        return result;
    }
    QJsonParseError jsonError;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &jsonError);
    if (jsonError.error != QJsonParseError::NoError) {
        const qsizetype offset = jsonError.offset;
        result.error = positionText(bytes, offset) + QStringLiteral("not valid JSON: ") +
                       jsonError.errorString() + syntaxHint(bytes, offset);
        return result;
    }
    if (!doc.isObject()) {
        const qsizetype start = locateJsonValue(bytes, {});
        result.error =
            positionText(bytes, start) +
            QStringLiteral(
                "the file holds %1; an example is an object "
                "{\"tokens\": [...], \"embeddings\": [[...]]}")
                .arg(doc.isArray() ? QStringLiteral("a list") : QStringLiteral("a single value"));
        return result;
    }
    try {
        result.file = Parser(bytes).parse(doc.object());
    } catch (const ParseFailure& failure) {
        result.error = failure.message;
    }
    return result;
}

ExampleParseResult loadExampleFile(const QString& path) {
    ExampleParseResult result;
    const QFileInfo info(path);
    if (info.isDir()) {
        result.error = QStringLiteral("is a directory, not an example file");
        return result;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        result.error = QStringLiteral("cannot open it: %1").arg(file.errorString());
        return result;
    }
    if (file.size() > kMaxExampleFileBytes) {
        result.error = QStringLiteral("the file is %1 MB; example files are limited to %2 MB")
                           .arg(megabytes(file.size()), megabytes(kMaxExampleFileBytes));
        return result;
    }
    // Read one byte past the limit so a pipe or a growing file is refused too.
    const QByteArray bytes = file.read(kMaxExampleFileBytes + 1);
    if (file.error() != QFileDevice::NoError) {
        result.error = QStringLiteral("cannot read it: %1").arg(file.errorString());
        return result;
    }
    return parseExampleFile(bytes);
}
