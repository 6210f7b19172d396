// Reading example files: every check of example_file.h, with the line and column of the first
// problem. The "config" object is example_config.cpp; writing the file is
// example_file_writer.cpp.
#include "app/io/example_file.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <cfloat>
#include <cmath>

#include "app/io/example_file_read.h"
#include "app/io/json_locator.h"

namespace attn {

namespace example_read {

namespace {

// Whether d rounds to a finite float: below FLT_MAX plus half a float ulp (2^103), so that
// FLT_MAX's own shortest digits "3.4028235e+38", a little above it, still read back.
bool fitsFloat(double d) { return std::fabs(d) < static_cast<double>(FLT_MAX) + 0x1p103; }

}  // namespace

float number(const JsonText& text, const QJsonValue& v, const JsonPath& at, const QString& what) {
    if (v.isDouble()) {
        const double d = v.toDouble();
        if (!fitsFloat(d)) {
            text.fail(at, QStringLiteral("%1 = %2 is too large for a 32-bit float (largest about "
                                         "3.4e38): give a smaller number")
                              .arg(what, QString::number(d, 'g', 6)));
        }
        return static_cast<float>(d);
    }
    if (v.isString() && isNonFiniteWord(v.toString())) {
        text.fail(at, QStringLiteral("%1 is the string %2: NaN and infinity are not allowed; "
                                     "give a finite number")
                          .arg(what, quotedForMessage(v.toString())));
    }
    if (v.isString()) {
        bool ok = false;
        v.toString().trimmed().toDouble(&ok);
        if (ok) {
            text.fail(at, QStringLiteral("%1 is the string %2, not a number: remove the quotes")
                              .arg(what, quotedForMessage(v.toString())));
        }
    }
    if (v.isNull()) {
        text.fail(at, QStringLiteral("%1 is null, not a number (a NaN written by a JSON library "
                                     "shows up as null): give a finite number")
                          .arg(what));
    }
    text.fail(at, QStringLiteral("%1 is %2, not a number").arg(what, describeJsonValue(v)));
}

void checkKeys(const JsonText& text, const QJsonObject& object, const JsonPath& at,
               const QStringList& known, const QString& what) {
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!known.contains(it.key())) {
            text.fail(jsonChild(at, it.key()),
                      QStringLiteral("unknown key %1: %2 has the keys %3")
                          .arg(quotedForMessage(it.key()), what, known.join(QStringLiteral(", "))));
        }
    }
}

}  // namespace example_read

namespace {

using example_read::checkKeys;

QString plural(qsizetype n, const char* one, const char* many) {
    return QString::number(n) + QLatin1Char(' ') + QLatin1String(n == 1 ? one : many);
}

class Parser {
public:
    explicit Parser(const JsonText& text) : text_(text) {}

    [[noreturn]] void fail(const JsonPath& path, const QString& message) const {
        text_.fail(path, message);
    }

    ExampleFile parse(const QJsonObject& root) {
        static const QStringList known = {"format",     "version", "description", "tokens",
                                          "embeddings", "weights", "source",      "config"};
        checkKeys(text_, root, {}, known, QStringLiteral("an example"));

        if (root.contains(QLatin1String("format"))) {
            const QJsonValue f = root.value(QLatin1String("format"));
            if (f.toString() != QLatin1String(kExampleFormatName)) {
                fail(jsonChild({}, QStringLiteral("format")),
                     QStringLiteral("\"format\" is %1: this is not an attention-visualizer example "
                                    "(expected \"%2\")")
                         .arg(describeJsonValue(f), QLatin1String(kExampleFormatName)));
            }
        }
        if (root.contains(QLatin1String("version"))) {
            const QJsonValue v = root.value(QLatin1String("version"));
            const double d = v.toDouble(-1.0);
            if (v.isDouble() && d > kExampleFormatVersion && d == std::floor(d)) {
                fail(jsonChild({}, QStringLiteral("version")),
                     QStringLiteral("the file has format version %1, written by a newer version "
                                    "of the app; this build reads version %2")
                         .arg(QString::number(d, 'g', 17))
                         .arg(kExampleFormatVersion));
            }
            if (!v.isDouble() || d != kExampleFormatVersion) {
                fail(jsonChild({}, QStringLiteral("version")),
                     QStringLiteral("\"version\" is %1: this build reads version %2")
                         .arg(describeJsonValue(v))
                         .arg(kExampleFormatVersion));
            }
        }

        ExampleFile file;
        if (root.contains(QLatin1String("description"))) {
            const QJsonValue d = root.value(QLatin1String("description"));
            if (!d.isString()) {
                fail(jsonChild({}, QStringLiteral("description")),
                     QStringLiteral("\"description\" is %1, not a string")
                         .arg(describeJsonValue(d)));
            }
            file.description = d.toString();
        }
        file.inputs = parseSequence(root, {}, QString());
        if (root.contains(QLatin1String("weights"))) {
            file.weights = parseWeights(root.value(QLatin1String("weights")),
                                        jsonChild({}, QStringLiteral("weights")));
        }
        if (root.contains(QLatin1String("source"))) {
            const JsonPath at = jsonChild({}, QStringLiteral("source"));
            const QJsonValue s = root.value(QLatin1String("source"));
            if (!s.isObject()) {
                fail(at, QStringLiteral("\"source\" is %1, not an object with \"tokens\" and "
                                        "\"embeddings\"")
                             .arg(describeJsonValue(s)));
            }
            checkKeys(text_, s.toObject(), at, {"tokens", "embeddings"},
                      QStringLiteral("\"source\""));
            file.source = parseSequence(s.toObject(), at, QStringLiteral("source "));
            if (file.source->embeddings.cols() != file.inputs.embeddings.cols()) {
                fail(jsonChild(at, QStringLiteral("embeddings")),
                     QStringLiteral("source embeddings have %1 per token but embeddings have "
                                    "%2; cross-attention needs both sequences of the same width")
                         .arg(plural(file.source->embeddings.cols(), "value", "values"))
                         .arg(file.inputs.embeddings.cols()));
            }
        }
        if (root.contains(QLatin1String("config"))) {
            file.config =
                example_read::parseConfig(text_, root.value(QLatin1String("config")),
                                          jsonChild({}, QStringLiteral("config")), &file.training);
        }
        return file;
    }

private:
    // A non-empty list of numbers: one row of a matrix, or a vector.
    attn::RowVector numberRow(const QJsonArray& row, const JsonPath& at,
                              const QString& what) const {
        attn::RowVector out(row.size());
        for (qsizetype j = 0; j < row.size(); ++j) {
            out(j) = example_read::number(text_, row.at(j), jsonChild(at, j),
                                          QStringLiteral("%1, value %2").arg(what).arg(j + 1));
        }
        return out;
    }

    // A rectangular list of rows; `name` names the whole ("embeddings", "weights \"W_query\"").
    attn::Matrix matrix(const QJsonArray& rows, const JsonPath& at, const QString& name,
                        const QString& rowWord, const QString& fix) const {
        attn::Matrix out;
        for (qsizetype i = 0; i < rows.size(); ++i) {
            const JsonPath rowAt = jsonChild(at, i);
            const QString rowName = QStringLiteral("%1 %2 %3").arg(name, rowWord).arg(i + 1);
            const QJsonValue rowValue = rows.at(i);
            if (!rowValue.isArray()) {
                fail(rowAt, QStringLiteral("%1 is %2, not a list of numbers")
                                .arg(rowName, describeJsonValue(rowValue)));
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
        const JsonPath tokensAt = jsonChild(at, QStringLiteral("tokens"));
        const JsonPath embAt = jsonChild(at, QStringLiteral("embeddings"));
        if (!object.contains(QLatin1String("tokens"))) {
            fail(at, QStringLiteral("%1has no \"tokens\": give the list of token texts, e.g. "
                                    "\"tokens\": [\"Your\", \"journey\"]")
                         .arg(prefix.isEmpty() ? QStringLiteral("the example ") : prefix));
        }
        const QJsonValue tokensValue = object.value(QLatin1String("tokens"));
        if (!tokensValue.isArray()) {
            fail(tokensAt, QStringLiteral("%1 is %2, not a list of strings")
                               .arg(tokensName, describeJsonValue(tokensValue)));
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
                fail(jsonChild(tokensAt, i),
                     QStringLiteral("%1 is %2, not a string: put the token's text in quotes")
                         .arg(what, describeJsonValue(t)));
            }
            const QString text = t.toString();
            if (!text.isValidUtf16()) {
                fail(jsonChild(tokensAt, i),
                     QStringLiteral("%1 contains an unpaired surrogate escape "
                                    "(\\ud800 .. \\udfff alone): remove it")
                         .arg(what));
            }
            if (text.size() > kMaxTokenLength) {
                fail(jsonChild(tokensAt, i),
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
                            .arg(embName, describeJsonValue(embValue)));
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
                         .arg(describeJsonValue(value)));
        }
        std::vector<attn::NamedMatrix> out;
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            const JsonPath wAt = jsonChild(at, it.key());
            const QString name = QStringLiteral("weights %1").arg(quotedForMessage(it.key()));
            if (it.key().isEmpty()) {
                fail(wAt, QStringLiteral("a weight has an empty name: use the module's parameter "
                                         "name, e.g. \"W_query.weight\""));
            }
            if (!it.value().isArray() || it.value().toArray().isEmpty()) {
                fail(wAt, QStringLiteral("%1 is %2, not a matrix (list of rows) or a vector (list "
                                         "of numbers)")
                              .arg(name, it.value().isArray() ? QStringLiteral("empty")
                                                              : describeJsonValue(it.value())));
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

    const JsonText& text_;
};

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
    if (bytes.trimmed().isEmpty() || bytes.trimmed() == "\xEF\xBB\xBF") {
        result.error =
            QStringLiteral("the file is empty: an example needs \"tokens\" and \"embeddings\"");
        return result;
    }
    // Messages start at "line": the caller puts the file's path in front.
    const JsonText text(QString(), bytes);
    const std::optional<QJsonObject> root = text.parseObject(
        QStringLiteral("fix the JSON at that place"),
        QStringLiteral("an example is an object {\"tokens\": [...], \"embeddings\": [[...]]}"),
        &result.error);
    if (!root) {
        return result;
    }
    try {
        result.file = Parser(text).parse(*root);
    } catch (const JsonError& failure) {
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

}  // namespace attn
