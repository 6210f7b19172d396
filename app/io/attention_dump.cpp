#include "app/io/attention_dump.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include "app/io/json_locator.h"
#include "app/io/safetensors.h"

namespace attn {

namespace {

// More values than this (2 GB of float32) is not a figure anyone reads: refused before
// allocating. GPT-2 small's 12 layers × 12 heads at 1024 tokens are 151 M.
constexpr qint64 kMaxDumpValues = qint64{1} << 29;
// Tokens files are short lists; this only keeps a wrong file from being read whole.
constexpr qint64 kMaxTokensBytes = qint64{64} << 20;
// Softmax weights lie in [0, 1]; float16 rounds 1 to at most 1 + 2^-10, and a sum computed in
// half precision may stray a little more.
constexpr float kWeightSlack = 2e-3f;

const char kNpyMagic[] = "\x93NUMPY";

// Names from the file (a dtype, a tensor name) may hold line breaks: messages stay one line.
QString oneLine(const QString& message) {
    QString out;
    out.reserve(message.size());
    for (QChar c : message) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            out += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
        else
            out += c;
    }
    return out;
}

QString shapeText(const std::vector<qint64>& shape) {
    QStringList parts;
    for (qint64 d : shape) parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

// --- .npy -------------------------------------------------------------------------------------

struct NpyHeader {
    QString descr;
    bool fortranOrder = false;
    std::vector<qint64> shape;
    qint64 elements = 0;
    qint64 itemSize = 0;   // 4 or 2
    qint64 dataStart = 0;  // offset of the first value
};

// The Python literal np.save writes: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// (keys in any order, trailing commas, Python 2's "3L"). Anything else is not NumPy's header.
class HeaderDict {
public:
    explicit HeaderDict(const QByteArray& text) : s_(text) {}

    bool parse(NpyHeader* out) {
        bool haveDescr = false, haveOrder = false, haveShape = false;
        if (!eat('{')) return false;
        while (true) {
            if (eat('}')) break;
            QString key;
            if (!string(&key) || !eat(':')) return false;
            if (key == QLatin1String("descr")) {
                if (!string(&out->descr)) return false;
                haveDescr = true;
            } else if (key == QLatin1String("fortran_order")) {
                if (!boolean(&out->fortranOrder)) return false;
                haveOrder = true;
            } else if (key == QLatin1String("shape")) {
                if (!tuple(&out->shape)) return false;
                haveShape = true;
            } else {
                return false;
            }
            if (!eat(',')) {
                if (!eat('}')) return false;
                break;
            }
        }
        skipSpace();
        return pos_ == s_.size() && haveDescr && haveOrder && haveShape;
    }

private:
    void skipSpace() {
        while (pos_ < s_.size() &&
               (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r'))
            ++pos_;
    }
    bool eat(char c) {
        skipSpace();
        if (pos_ < s_.size() && s_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    bool word(const char* w) {
        skipSpace();
        const auto n = static_cast<qsizetype>(std::strlen(w));
        if (s_.mid(pos_, n) != w) return false;
        pos_ += n;
        return true;
    }
    bool string(QString* out) {
        skipSpace();
        if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return false;
        const char quote = s_[pos_++];
        const qsizetype end = s_.indexOf(quote, pos_);
        if (end < 0 || end - pos_ > 64) return false;
        for (qsizetype i = pos_; i < end; ++i)
            if (static_cast<uchar>(s_[i]) < 0x20) return false;
        *out = QString::fromUtf8(s_.mid(pos_, end - pos_));
        pos_ = end + 1;
        return true;
    }
    bool boolean(bool* out) {
        if (word("True")) {
            *out = true;
            return true;
        }
        if (word("False")) {
            *out = false;
            return true;
        }
        return false;
    }
    bool tuple(std::vector<qint64>* out) {
        if (!eat('(')) return false;
        while (!eat(')')) {
            skipSpace();
            qint64 value = 0;
            qsizetype digits = 0;
            while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
                if (++digits > 15) return false;  // beyond any file: refuse before overflowing
                value = value * 10 + (s_[pos_++] - '0');
            }
            if (digits == 0 || out->size() >= 32) return false;
            if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;
            out->push_back(value);
            if (!eat(',')) {
                if (!eat(')')) return false;
                break;
            }
        }
        return true;
    }

    QByteArray s_;
    qsizetype pos_ = 0;
};

// Everything about the array except its values; error empty on success.
NpyHeader readNpyHeader(const QByteArray& bytes, QString* error) {
    NpyHeader h;
    auto fail = [&](const QString& message) {
        *error = message;
        return h;
    };
    if (bytes.size() < 10 || !bytes.startsWith(QByteArray(kNpyMagic, 6)))
        return fail(QStringLiteral("not a NumPy .npy file: it does not start with \\x93NUMPY"));
    const auto* p = reinterpret_cast<const uchar*>(bytes.constData());
    const int major = p[6], minor = p[7];
    qint64 headerLength = 0;
    if (major == 1) {
        headerLength = p[8] | (p[9] << 8);
        h.dataStart = 10 + headerLength;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12)
            return fail(QStringLiteral("truncated: the file ends inside the .npy header"));
        headerLength =
            qint64{p[8]} | (qint64{p[9]} << 8) | (qint64{p[10]} << 16) | (qint64{p[11]} << 24);
        h.dataStart = 12 + headerLength;
    } else {
        return fail(QStringLiteral("NumPy format version %1.%2 is not supported (1.0, 2.0 and "
                                   "3.0 are): save it again with np.save")
                        .arg(major)
                        .arg(minor));
    }
    if (h.dataStart > bytes.size())
        return fail(QStringLiteral("truncated: the .npy header of %1 bytes runs past the end of "
                                   "the file (%2 bytes)")
                        .arg(headerLength)
                        .arg(bytes.size()));
    const qint64 headerStart = h.dataStart - headerLength;
    HeaderDict dict(
        bytes.mid(static_cast<qsizetype>(headerStart), static_cast<qsizetype>(headerLength)));
    if (!dict.parse(&h))
        return fail(
            QStringLiteral("the .npy header is not the {'descr', 'fortran_order', "
                           "'shape'} dict np.save writes"));
    if (h.descr == QLatin1String("<f4")) {
        h.itemSize = 4;
    } else if (h.descr == QLatin1String("<f2")) {
        h.itemSize = 2;
    } else {
        return fail(QStringLiteral("dtype '%1' is not supported: save float32 ('<f4') or float16 "
                                   "('<f2') little-endian, e.g. np.save(path, "
                                   "a.astype(np.float32))")
                        .arg(h.descr));
    }
    if (h.fortranOrder)
        return fail(
            QStringLiteral("the array is in Fortran order: save a C-ordered one, e.g. "
                           "np.save(path, np.ascontiguousarray(a))"));
    const qint64 available = bytes.size() - h.dataStart;
    // The product is bounded before it is formed (no overflow), and compared with the bytes that
    // follow before anything is allocated.
    h.elements = 1;
    bool beyondFile = false;
    if (std::find(h.shape.begin(), h.shape.end(), 0) != h.shape.end()) {
        h.elements = 0;
    } else {
        for (qint64 d : h.shape) {
            if (h.elements > std::numeric_limits<qint64>::max() / h.itemSize / d) {
                beyondFile = true;
                break;
            }
            h.elements *= d;
        }
    }
    const QString dtype = h.itemSize == 4 ? QStringLiteral("float32") : QStringLiteral("float16");
    if (beyondFile)
        return fail(QStringLiteral("truncated: the shape %1 needs more %2 values than the %3 bytes "
                                   "after the header hold")
                        .arg(shapeText(h.shape), dtype)
                        .arg(available));
    const qint64 needed = h.elements * h.itemSize;
    if (needed > available)
        return fail(QStringLiteral("truncated: the shape %1 needs %2 bytes of %3 but only %4 "
                                   "follow the header")
                        .arg(shapeText(h.shape))
                        .arg(needed)
                        .arg(dtype)
                        .arg(available));
    if (needed < available)
        return fail(QStringLiteral("the file has %1 bytes after the header but the shape %2 "
                                   "needs %3: not one array as np.save writes it")
                        .arg(available)
                        .arg(shapeText(h.shape))
                        .arg(needed));
    return h;
}

// `count` values from the data at `offset` (in values), converted to float32.
void readNpyValues(const QByteArray& bytes, const NpyHeader& h, qint64 offset, qint64 count,
                   float* out) {
    if (count == 0) return;  // out may be null: an empty vector's data()
    const char* p = bytes.constData() + h.dataStart + offset * h.itemSize;
    if (h.itemSize == 4) {
        std::memcpy(out, p, static_cast<std::size_t>(count) * sizeof(float));
        return;
    }
    const auto* u = reinterpret_cast<const uchar*>(p);
    for (qint64 i = 0; i < count; ++i)
        out[i] = halfToFloat(static_cast<std::uint16_t>(u[2 * i] | (u[2 * i + 1] << 8)));
}

// --- the dump ---------------------------------------------------------------------------------

// [layers, heads, queries, keys] of the shapes a dump may have; error empty on success.
struct DumpShape {
    qint64 layers = 0, heads = 0, queries = 0, keys = 0;
};

QString checkDumpShape(const DumpShape& s, const std::vector<qint64>& shape) {
    if (s.layers == 0 || s.heads == 0 || s.queries == 0 || s.keys == 0)
        return QStringLiteral("the shape %1 has an empty dimension: nothing to show")
            .arg(shapeText(shape));
    if (s.queries > s.keys)
        return QStringLiteral(
                   "%1 queries but only %2 keys (shape %3): the last two dimensions "
                   "must be [queries, keys], as output_attentions gives them")
            .arg(s.queries)
            .arg(s.keys)
            .arg(shapeText(shape));
    if (s.layers > kMaxDumpValues / s.heads / s.queries / s.keys)
        return QStringLiteral(
                   "the shape %1 holds more than %2 values: save fewer layers or a "
                   "shorter text")
            .arg(shapeText(shape))
            .arg(kMaxDumpValues);
    return {};
}

QString batchError(qint64 batch, const std::vector<qint64>& shape, const QString& fix) {
    return QStringLiteral("the array holds a batch of %1 sequences (shape %2): save one, e.g. %3")
        .arg(batch)
        .arg(shapeText(shape), fix);
}

std::optional<DumpShape> npyDumpShape(const std::vector<qint64>& shape, QString* error) {
    DumpShape s;
    const std::size_t rank = shape.size();
    if (rank == 3) {
        s = {1, shape[0], shape[1], shape[2]};
    } else if (rank == 4) {
        // [1, H, q, k] with a batch of 1 is the same as one layer: no need to tell them apart.
        s = {shape[0], shape[1], shape[2], shape[3]};
    } else if (rank == 5) {
        if (shape[0] != 1 && shape[1] != 1) {
            *error = batchError(shape[1], shape, QStringLiteral("a[:, 0]"));
            return std::nullopt;
        }
        // [1, L, H, q, k], or torch.stack(out.attentions)'s [L, 1, H, q, k]
        s = {shape[0] == 1 ? shape[1] : shape[0], shape[2], shape[3], shape[4]};
    } else {
        *error = QStringLiteral(
                     "the array has shape %1; an attention dump is [layers, heads, "
                     "queries, keys] or [heads, queries, keys] (a leading batch of 1 "
                     "is allowed)")
                     .arg(shapeText(shape));
        return std::nullopt;
    }
    *error = checkDumpShape(s, shape);
    if (!error->isEmpty()) return std::nullopt;
    return s;
}

// NaN, inf or values no softmax gives are refused rather than shown: the views call every cell
// an attention weight α and explain it as one, which would mislead for scores or logits saved
// by mistake (the fix, saving output_attentions, is one line).
QString checkHead(const Matrix& head, qint64 layer, qint64 h) {
    for (Eigen::Index r = 0; r < head.rows(); ++r) {
        for (Eigen::Index c = 0; c < head.cols(); ++c) {
            const float v = head(r, c);
            if (!std::isfinite(v))
                return QStringLiteral(
                           "layer %1, head %2 has a NaN or infinite weight at query %3, "
                           "key %4: save the attention of a forward pass that did not "
                           "overflow (float32)")
                    .arg(layer + 1)
                    .arg(h + 1)
                    .arg(r + 1)
                    .arg(c + 1);
            if (v < -kWeightSlack || v > 1.0f + kWeightSlack)
                return QStringLiteral(
                           "layer %1, head %2 has the value %3 at query %4, key %5, "
                           "outside [0, 1]: this does not look like attention weights; "
                           "save the softmax output (output_attentions), not the scores")
                    .arg(layer + 1)
                    .arg(h + 1)
                    .arg(static_cast<double>(v))
                    .arg(r + 1)
                    .arg(c + 1);
        }
    }
    return {};
}

// One layer's heads from `values` (heads · queries · keys float32, row-major) into the dump.
QString appendLayer(const float* values, const DumpShape& s, AttentionDump* dump) {
    const auto layer = static_cast<qint64>(dump->attentions.size());
    std::vector<Matrix> heads;
    heads.reserve(static_cast<std::size_t>(s.heads));
    for (qint64 h = 0; h < s.heads; ++h) {
        Matrix m(s.queries, s.keys);
        std::memcpy(m.data(), values + h * s.queries * s.keys,
                    static_cast<std::size_t>(s.queries * s.keys) * sizeof(float));
        const QString error = checkHead(m, layer, h);
        if (!error.isEmpty()) return error;
        heads.push_back(std::move(m));
    }
    dump->attentions.push_back(std::move(heads));
    return {};
}

bool cancelled(const ModelLoadOptions& options, AttentionDumpResult* result) {
    if (!options.cancel || !options.cancel->load()) return false;
    result->cancelled = true;
    result->error = QStringLiteral("loading cancelled");
    return true;
}

void progress(const ModelLoadOptions& options, qint64 done, qint64 total) {
    if (options.progress) options.progress(static_cast<double>(done) / static_cast<double>(total));
}

AttentionDumpResult dumpFromNpy(const QByteArray& bytes, const ModelLoadOptions& options) {
    AttentionDumpResult result;
    const NpyHeader h = readNpyHeader(bytes, &result.error);
    if (!result.ok()) return result;
    const std::optional<DumpShape> s = npyDumpShape(h.shape, &result.error);
    if (!s) return result;
    result.dump.dtype = h.itemSize == 4 ? QStringLiteral("float32") : QStringLiteral("float16");
    const qint64 perLayer = s->heads * s->queries * s->keys;
    std::vector<float> layer(static_cast<std::size_t>(perLayer));
    for (qint64 l = 0; l < s->layers; ++l) {
        if (cancelled(options, &result)) return result;
        readNpyValues(bytes, h, l * perLayer, perLayer, layer.data());
        result.error = appendLayer(layer.data(), *s, &result.dump);
        if (!result.ok()) return result;
        progress(options, l + 1, s->layers);
    }
    return result;
}

// "layer.2" before "layer.10": digit runs compare as numbers.
bool naturalLess(const QString& a, const QString& b) {
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            qsizetype i1 = i, j1 = j;
            while (i1 < a.size() && a[i1].isDigit()) ++i1;
            while (j1 < b.size() && b[j1].isDigit()) ++j1;
            QStringView x = QStringView(a).mid(i, i1 - i), y = QStringView(b).mid(j, j1 - j);
            while (x.size() > 1 && x.front() == QLatin1Char('0')) x = x.mid(1);
            while (y.size() > 1 && y.front() == QLatin1Char('0')) y = y.mid(1);
            if (x.size() != y.size()) return x.size() < y.size();
            if (x != y) return x < y;
            i = i1;
            j = j1;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    if ((a.size() - i) != (b.size() - j)) return a.size() - i < b.size() - j;
    return a < b;
}

AttentionDumpResult dumpFromSafetensors(const SafetensorsFile& file,
                                        const ModelLoadOptions& options) {
    AttentionDumpResult result;
    QStringList names = file.names();
    std::sort(names.begin(), names.end(), naturalLess);
    if (names.isEmpty()) {
        result.error = QStringLiteral(
            "the file holds no tensors: save one per layer, e.g. "
            "{f\"layer.{i}\": a[0] for i, a in "
            "enumerate(out.attentions)}");
        return result;
    }
    // Every shape is checked before any layer is converted.
    std::optional<DumpShape> s;
    const SafetensorsTensorInfo* first = file.info(names.first());
    for (const QString& name : names) {
        const SafetensorsTensorInfo* info = file.info(name);
        const std::vector<qint64>& shape = info->shape;
        if (info->shape != first->shape) {
            result.error = QStringLiteral(
                               "tensor \"%1\" has shape %2 but \"%3\" has %4: every "
                               "layer must have the same shape")
                               .arg(name, shapeText(shape), names.first(), shapeText(first->shape));
            return result;
        }
        if (s) continue;
        if (shape.size() == 4 && shape[0] != 1) {
            result.error = batchError(shape[0], shape, QStringLiteral("a[0] for each layer"));
            return result;
        }
        if (shape.size() != 3 && shape.size() != 4) {
            result.error = QStringLiteral(
                               "tensor \"%1\" has shape %2; each layer is [heads, "
                               "queries, keys] (a leading batch of 1 is allowed)")
                               .arg(name, shapeText(shape));
            return result;
        }
        const std::size_t o = shape.size() - 3;
        s = DumpShape{names.size(), shape[o], shape[o + 1], shape[o + 2]};
        std::vector<qint64> whole{names.size()};
        whole.insert(whole.end(), shape.begin() + static_cast<std::ptrdiff_t>(o), shape.end());
        result.error = checkDumpShape(*s, whole);
        if (!result.ok()) return result;
    }
    result.dump.dtype = first->dtype;
    for (qsizetype l = 0; l < names.size(); ++l) {
        if (cancelled(options, &result)) return result;
        const FloatTensorResult values = file.floats(names[l]);
        if (!values.ok()) {
            result.error = values.error;
            return result;
        }
        result.error = appendLayer(values.tensor.data, *s, &result.dump);
        if (!result.ok()) return result;
        progress(options, l + 1, names.size());
    }
    return result;
}

// The tokens of a JSON list of strings or an object with a "tokens" list; otherwise *error holds
// the message, with the file's name, line and column.
QStringList parseTokens(const JsonText& text, QString* error) {
    const QString fix =
        QStringLiteral("save json.dump(tokenizer.convert_ids_to_tokens(ids), f) again");
    const std::optional<QJsonDocument> doc = text.parse(fix, error);
    if (!doc) return {};
    JsonPath listAt;
    QJsonArray list = doc->array();
    if (doc->isObject() && doc->object().value(QLatin1String("tokens")).isArray()) {
        list = doc->object().value(QLatin1String("tokens")).toArray();
        listAt = {jsonKey("tokens")};
    } else if (!doc->isArray()) {
        *error = text.message(
            {}, QStringLiteral("the file holds %1; a tokens file is a list of token strings (or "
                               "an object with one as \"tokens\"): %2")
                    .arg(doc->isObject() ? QStringLiteral("an object without a \"tokens\" list")
                                         : QStringLiteral("a single value"),
                         fix));
        return {};
    }
    QStringList tokens;
    for (qsizetype i = 0; i < list.size(); ++i) {
        if (!list.at(i).isString()) {
            *error = text.message(jsonChild(listAt, i),
                                  QStringLiteral("token %1 is %2, not a string: %3")
                                      .arg(i + 1)
                                      .arg(describeJsonValue(list.at(i)), fix));
            return {};
        }
        tokens << list.at(i).toString();
    }
    return tokens;
}

// Labels the dump's keys with `tokens` (positions when null); false with error on a count that
// does not match.
bool setTokens(const QStringList* tokens, const QString& name, AttentionDump* dump,
               QString* error) {
    const Eigen::Index keys = dump->attentions.front().front().cols();
    if (!tokens) {
        for (Eigen::Index i = 1; i <= keys; ++i) dump->tokens << QString::number(i);
        return true;
    }
    if (tokens->size() != keys) {
        *error = QStringLiteral(
                     "%1 has %2 tokens but the attention has %3 key positions: save "
                     "the tokens of the same sequence")
                     .arg(name)
                     .arg(tokens->size())
                     .arg(keys);
        return false;
    }
    dump->tokens = *tokens;
    return true;
}

}  // namespace

NpyParseResult parseNpy(const QByteArray& bytes) {
    NpyParseResult result;
    const NpyHeader h = readNpyHeader(bytes, &result.error);
    if (!result.ok()) {
        result.error = oneLine(result.error);
        return result;
    }
    result.array.descr = h.descr;
    result.array.shape = h.shape;
    result.array.values.resize(static_cast<std::size_t>(h.elements));
    readNpyValues(bytes, h, 0, h.elements, result.array.values.data());
    return result;
}

namespace {

AttentionDumpResult dumpFromBytes(const QByteArray& dump, const QByteArray& tokensJson) {
    AttentionDumpResult result;
    if (dump.startsWith(QByteArray(kNpyMagic, 6))) {
        result = dumpFromNpy(dump, {});
    } else {
        const SafetensorsOpenResult file = SafetensorsFile::fromBytes(dump);
        if (!file.ok()) return {{}, file.error};
        result = dumpFromSafetensors(*file.file, {});
    }
    if (!result.ok()) return result;
    QStringList tokens;
    if (!tokensJson.isEmpty()) {
        tokens = parseTokens(JsonText(QStringLiteral("tokens"), tokensJson), &result.error);
        if (!result.ok()) return result;
    }
    setTokens(tokensJson.isEmpty() ? nullptr : &tokens, QStringLiteral("the tokens list"),
              &result.dump, &result.error);
    return result;
}

AttentionDumpResult loadDump(const QString& path, const QString& tokensPath,
                             const ModelLoadOptions& options) {
    const QFileInfo info(path);
    const QString name = info.fileName();
    auto fail = [&](const QString& message) {
        AttentionDumpResult r;
        r.error = name + QStringLiteral(": ") + message;
        return r;
    };
    // The tokens first: a missing or broken tokens file is found before a long load.
    QString tokensFile = tokensPath;
    QStringList looked;
    if (tokensFile.isEmpty()) {
        for (const QString& candidate : {info.completeBaseName() + QStringLiteral(".tokens.json"),
                                         QStringLiteral("tokens.json")}) {
            looked << candidate;
            if (QFileInfo(info.dir().filePath(candidate)).isFile()) {
                tokensFile = info.dir().filePath(candidate);
                break;
            }
        }
    }
    std::optional<QStringList> tokens;
    const QString tokensName = QFileInfo(tokensFile).fileName();
    if (!tokensFile.isEmpty()) {
        QFile file(tokensFile);
        if (!file.open(QIODevice::ReadOnly))
            return {{}, tokensName + QStringLiteral(": cannot open: ") + file.errorString()};
        if (file.size() > kMaxTokensBytes)
            return {{},
                    QStringLiteral("%1: %2 bytes is too large for a list of tokens")
                        .arg(tokensName)
                        .arg(file.size())};
        QString error;  // parseTokens names the file, line and column
        tokens = parseTokens(JsonText(tokensName, file.readAll()), &error);
        if (!error.isEmpty()) return {{}, error};
    }

    AttentionDumpResult result;
    const bool safetensors =
        info.suffix().compare(QLatin1String("safetensors"), Qt::CaseInsensitive) == 0;
    if (safetensors) {
        const SafetensorsOpenResult file = SafetensorsFile::open(path);
        if (!file.ok()) return fail(file.error);
        result = dumpFromSafetensors(*file.file, options);
    } else {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return fail(QStringLiteral("cannot open: %1").arg(file.errorString()));
        if (file.size() < 10)
            return fail(QStringLiteral("%1 bytes: not an attention dump (.npy or .safetensors)")
                            .arg(file.size()));
        // Mapped, not read: a dump of a long text is hundreds of MB, and only the conversion
        // to matrices needs memory.
        uchar* mapped = file.map(0, file.size());
        if (!mapped) return fail(QStringLiteral("cannot map: %1").arg(file.errorString()));
        const QByteArray bytes = QByteArray::fromRawData(reinterpret_cast<const char*>(mapped),
                                                         static_cast<qsizetype>(file.size()));
        if (!bytes.startsWith(QByteArray(kNpyMagic, 6))) {
            file.unmap(mapped);
            return fail(
                QStringLiteral("not an attention dump: a .npy file starts with "
                               "\\x93NUMPY; save with np.save, or give a .safetensors "
                               "file"));
        }
        result = dumpFromNpy(bytes, options);
        file.unmap(mapped);
    }
    if (!result.ok()) {
        if (!result.cancelled) result.error = name + QStringLiteral(": ") + result.error;
        return result;
    }
    if (!setTokens(tokens ? &*tokens : nullptr, tokensName, &result.dump, &result.error)) {
        result.dump = {};
        return result;
    }
    if (tokens) {
        result.dump.tokensPath = tokensFile;
    } else {
        result.dump.warning = QStringLiteral(
                                  "no tokens file (looked for %1 beside %2): the "
                                  "positions 1 to %3 label the rows and columns")
                                  .arg(looked.join(QStringLiteral(" and ")), name)
                                  .arg(result.dump.tokens.size());
    }
    return result;
}

}  // namespace

AttentionDumpResult attentionDumpFromBytes(const QByteArray& dump, const QByteArray& tokensJson) {
    AttentionDumpResult result = dumpFromBytes(dump, tokensJson);
    result.error = oneLine(result.error);
    return result;
}

AttentionDumpResult loadAttentionDump(const QString& path, const QString& tokensPath,
                                      const ModelLoadOptions& options) {
    AttentionDumpResult result = loadDump(path, tokensPath, options);
    result.error = oneLine(result.error);
    return result;
}

}  // namespace attn
