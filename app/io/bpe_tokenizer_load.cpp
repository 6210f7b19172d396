// Loading GPT-2's tokenizer from its files (tokenizer.json, or vocab.json and merges.txt), every
// problem reported with the file, line and column (json_locator.h). Encoding and decoding are
// bpe_tokenizer.cpp.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <cmath>
#include <functional>
#include <utility>

#include "app/io/bpe_bytes.h"
#include "app/io/bpe_tokenizer.h"
#include "app/io/json_locator.h"

namespace attn {

namespace {

QString megabytes(qint64 bytes) {
    return QString::number(static_cast<double>(bytes) / (1 << 20), 'f', 1);
}

const QString kSyntaxFix = QStringLiteral("is it cut short? Copy it again from the model");

// An id: an integer 0 <= id < kMaxTokenizerIds.
std::optional<int> jsonId(const QJsonValue& v) {
    if (!v.isDouble()) {
        return std::nullopt;
    }
    const double d = v.toDouble();
    if (!(d >= 0 && d < kMaxTokenizerIds) || std::floor(d) != d) {
        return std::nullopt;
    }
    return static_cast<int>(d);
}

QString idRule() {
    return QStringLiteral("ids are whole numbers from 0 to %1").arg(kMaxTokenizerIds - 1);
}

// "a b" -> ("a", "b"); nothing unless it is two non-empty parts around one space.
std::optional<std::pair<QString, QString>> splitMerge(const QString& line) {
    const qsizetype space = line.indexOf(QLatin1Char(' '));
    if (space <= 0 || space + 1 >= line.size() || line.indexOf(QLatin1Char(' '), space + 1) >= 0) {
        return std::nullopt;
    }
    return std::pair{line.left(space), line.mid(space + 1)};
}

}  // namespace

// What the two file forms have in common, before the checks that need the whole picture.
struct BpeBuilder {
    struct VocabEntry {
        QString token;
        int id;
    };
    std::vector<VocabEntry> vocab;
    std::vector<std::pair<QString, QString>> merges;  // in rank order
    std::vector<BpeTokenizer::AddedToken> added;
    std::function<QString(const QString&)> tokenAt;  // "vocab.json: line 3, column 9" for a token
    std::function<QString()> vocabAt;                // where the vocabulary starts
    std::function<QString(qsizetype)> mergeAt;       // "merges.txt: line 7, column 1" for merge i
    std::function<QString(qsizetype)> addedAt;       // where added token i is

    // The vocabulary object at `path` of `text`: every token with its id.
    void readVocab(const JsonText& text, const QJsonObject& vocabulary, const JsonPath& path);
    // merges.txt: one merge "a b" per line in rank order.
    void readMergesTxt(const JsonText& text, std::vector<qsizetype>* lineStarts);
    BpeLoadResult build() const;
};

void BpeBuilder::readVocab(const JsonText& text, const QJsonObject& vocabulary,
                           const JsonPath& path) {
    for (auto it = vocabulary.begin(); it != vocabulary.end(); ++it) {
        const std::optional<int> id = jsonId(it.value());
        if (!id) {
            text.fail(jsonChild(path, it.key()), QStringLiteral("the token %1 has %2 as its id; %3")
                                                     .arg(quotedForMessage(it.key()),
                                                          describeJsonValue(it.value()), idRule()));
        }
        vocab.push_back({it.key(), *id});
    }
}

void BpeBuilder::readMergesTxt(const JsonText& text, std::vector<qsizetype>* lineStarts) {
    const QByteArray& bytes = text.bytes();
    const qsizetype bad = firstInvalidUtf8(bytes);
    if (bad >= 0) {
        throw JsonError{text.messageAt(
            bad, QStringLiteral("the file is not valid UTF-8 (byte 0x%1): save it as UTF-8")
                     .arg(static_cast<unsigned char>(bytes[bad]), 2, 16, QLatin1Char('0')))};
    }
    qsizetype lineNo = 0;
    qsizetype start = 0;
    while (start < bytes.size()) {
        qsizetype end = bytes.indexOf('\n', start);
        if (end < 0) {
            end = bytes.size();
        }
        ++lineNo;
        const qsizetype lineStart = start;
        QByteArrayView line(bytes.constData() + start, end - start);
        start = end + 1;
        if (line.endsWith('\r')) {
            line.chop(1);
        }
        if (line.isEmpty() || (lineNo == 1 && line.startsWith("#version"))) {
            continue;
        }
        const QString lineText = QString::fromUtf8(line);
        const auto merge = splitMerge(lineText);
        if (!merge) {
            throw JsonError{text.messageAt(
                lineStart, QStringLiteral("%1 is not a merge: each line holds two tokens "
                                          "separated by one space, as \"Ġ t\"")
                               .arg(quotedForMessage(lineText)))};
        }
        merges.push_back(*merge);
        lineStarts->push_back(lineStart);
    }
}

BpeLoadResult BpeBuilder::build() const {
    std::shared_ptr<BpeTokenizer> t(new BpeTokenizer());
    std::unordered_map<QString, int> ids;
    ids.reserve(vocab.size());
    int size = 0;
    for (const VocabEntry& e : vocab) {
        ids.emplace(e.token, e.id);
        size = std::max(size, e.id + 1);
    }
    for (const BpeTokenizer::AddedToken& a : added) {
        size = std::max(size, a.id + 1);
    }
    t->tokens_.resize(static_cast<std::size_t>(size));
    t->bytes_.resize(static_cast<std::size_t>(size));
    for (const VocabEntry& e : vocab) {
        QString& slot = t->tokens_[static_cast<std::size_t>(e.id)];
        if (!slot.isNull()) {
            throw JsonError{
                QStringLiteral("%1: %2 and %3 both have id %4; every token needs "
                               "its own id")
                    .arg(tokenAt(e.token), quotedForMessage(slot), quotedForMessage(e.token))
                    .arg(e.id)};
        }
        slot = e.token;
        t->bytes_[static_cast<std::size_t>(e.id)] = bpe::byteLevelBytes(e.token);
    }
    for (std::size_t i = 0; i < added.size(); ++i) {
        const BpeTokenizer::AddedToken& a = added[i];
        QString& slot = t->tokens_[static_cast<std::size_t>(a.id)];
        if (!slot.isNull() && slot != a.content) {
            throw JsonError{
                QStringLiteral("%1: the added token %2 has id %3, which the "
                               "vocabulary gives to %4; give it its own id")
                    .arg(addedAt(static_cast<qsizetype>(i)), quotedForMessage(a.content))
                    .arg(a.id)
                    .arg(quotedForMessage(slot))};
        }
        slot = a.content;
        t->bytes_[static_cast<std::size_t>(a.id)] = a.content.toUtf8();
        t->added_.push_back(a);
        if (a.content == QLatin1String(kEndOfTextToken)) {
            t->endOfText_ = a.id;
        }
    }
    const bpe::ByteMap& map = bpe::byteMap();
    for (int b = 0; b < 256; ++b) {
        const QString symbol(QChar(map.toChar[b]));
        const auto it = ids.find(symbol);
        if (it == ids.end()) {
            throw JsonError{QStringLiteral("%1: the vocabulary has no token for the byte 0x%2 "
                                           "(%3): a byte-level BPE vocabulary has all 256 "
                                           "byte tokens; is it a GPT-2-style tokenizer?")
                                .arg(vocabAt())
                                .arg(b, 2, 16, QLatin1Char('0'))
                                .arg(quotedForMessage(symbol))};
        }
        t->byteSymbol_[b] = it->second;
    }
    t->merges_.reserve(merges.size());
    for (std::size_t i = 0; i < merges.size(); ++i) {
        const auto& [left, right] = merges[i];
        const QString merged = left + right;
        for (const QString* part : {&left, &right, &merged}) {
            if (ids.find(*part) == ids.end()) {
                throw JsonError{QStringLiteral("%1: the merge %2 needs %3, which is not in the "
                                               "vocabulary; vocabulary and merges must come "
                                               "from the same model")
                                    .arg(mergeAt(static_cast<qsizetype>(i)),
                                         quotedForMessage(left + QLatin1Char(' ') + right),
                                         quotedForMessage(*part))};
            }
        }
        const quint64 key = (quint64(quint32(ids[left])) << 32) | quint32(ids[right]);
        // A merge listed twice keeps its later rank, as in encoder.py and Hugging Face.
        t->merges_[key] = BpeTokenizer::Merge{static_cast<int>(i), ids[merged]};
    }
    return BpeLoadResult{t, {}};
}

BpeLoadResult BpeTokenizer::fromVocabAndMerges(const QByteArray& vocabJson,
                                               const QByteArray& mergesTxt) {
    const JsonText vocabText(QStringLiteral("vocab.json"), vocabJson);
    const JsonText mergesText(QStringLiteral("merges.txt"), mergesTxt);
    try {
        QString error;
        const std::optional<QJsonObject> root = vocabText.parseObject(
            kSyntaxFix,
            QStringLiteral("vocab.json is an object of tokens and their ids, such as "
                           "{\"Ġthe\": 262}: is it the right file?"),
            &error);
        if (!root) {
            return {nullptr, error};
        }
        BpeBuilder b;
        b.readVocab(vocabText, *root, {});
        // Without tokenizer.json, Hugging Face's GPT2Tokenizer makes "<|endoftext|>" its special
        // token: split out of the text, never merged.
        const QString endOfText = QLatin1String(kEndOfTextToken);
        if (const std::optional<int> id = jsonId(root->value(endOfText))) {
            b.added.push_back({endOfText, *id});
        }
        std::vector<qsizetype> lineStarts;  // merge index -> offset of its line
        b.readMergesTxt(mergesText, &lineStarts);
        b.tokenAt = [&](const QString& token) { return vocabText.where({jsonKey(token)}); };
        b.vocabAt = [&] { return vocabText.where({}); };
        b.mergeAt = [&](qsizetype i) {
            return mergesText.whereOffset(lineStarts[static_cast<std::size_t>(i)]);
        };
        b.addedAt = [&](qsizetype i) {
            return vocabText.where({jsonKey(b.added[static_cast<std::size_t>(i)].content)});
        };
        return b.build();
    } catch (const JsonError& failure) {
        return BpeLoadResult{nullptr, failure.message};
    }
}

namespace {

// tokenizer.json's normalizer and pre_tokenizer: only GPT-2's (none, and ByteLevel).
void checkGpt2Pipeline(const JsonText& text, const QJsonObject& root) {
    const QJsonValue normalizer = root.value(QLatin1String("normalizer"));
    if (!normalizer.isUndefined() && !normalizer.isNull()) {
        text.fail({jsonKey("normalizer")},
                  QStringLiteral("the tokenizer has a normalizer, which GPT-2's has not and this "
                                 "program does not apply; use a GPT-2 tokenizer "
                                 "(\"normalizer\": null)"));
    }
    const QJsonValue pre = root.value(QLatin1String("pre_tokenizer"));
    if (!pre.isUndefined() && !pre.isNull()) {
        const QJsonObject p = pre.toObject();
        if (p.value(QLatin1String("type")).toString() != QLatin1String("ByteLevel") ||
            p.value(QLatin1String("add_prefix_space")).toBool(false) ||
            !p.value(QLatin1String("use_regex")).toBool(true)) {
            text.fail({jsonKey("pre_tokenizer")},
                      QStringLiteral("the pre_tokenizer is not GPT-2's (ByteLevel without "
                                     "add_prefix_space); use a GPT-2 tokenizer"));
        }
    }
}

// tokenizer.json's "merges": "a b" strings or ["a", "b"] pairs, in rank order.
void readMergeList(const JsonText& text, const QJsonObject& model, BpeBuilder* b) {
    const JsonPath path{jsonKey("model"), jsonKey("merges")};
    const QJsonValue mergesValue = model.value(QLatin1String("merges"));
    if (!mergesValue.isArray()) {
        text.fail(path, QStringLiteral("\"merges\" is %1, not a list of merges")
                            .arg(describeJsonValue(mergesValue)));
    }
    const QJsonArray merges = mergesValue.toArray();
    for (qsizetype i = 0; i < merges.size(); ++i) {
        const QJsonValue m = merges.at(i);
        std::optional<std::pair<QString, QString>> merge;
        if (m.isString()) {
            merge = splitMerge(m.toString());
        } else if (m.isArray() && m.toArray().size() == 2 && m.toArray().at(0).isString() &&
                   m.toArray().at(1).isString() && !m.toArray().at(0).toString().isEmpty() &&
                   !m.toArray().at(1).toString().isEmpty()) {
            merge = std::pair{m.toArray().at(0).toString(), m.toArray().at(1).toString()};
        }
        if (!merge) {
            text.fail(jsonChild(path, i), QStringLiteral("merge %1 is %2, not \"a b\" or "
                                                         "[\"a\", \"b\"]")
                                              .arg(i + 1)
                                              .arg(describeJsonValue(m)));
        }
        b->merges.push_back(*merge);
    }
}

// tokenizer.json's "added_tokens": content and id, none of the options GPT-2 does not use.
void readAddedTokens(const JsonText& text, const QJsonObject& root, BpeBuilder* b) {
    const QJsonValue addedValue = root.value(QLatin1String("added_tokens"));
    if (!addedValue.isUndefined() && !addedValue.isNull() && !addedValue.isArray()) {
        text.fail({jsonKey("added_tokens")}, QStringLiteral("\"added_tokens\" is %1, not a list")
                                                 .arg(describeJsonValue(addedValue)));
    }
    const QJsonArray added = addedValue.toArray();
    for (qsizetype i = 0; i < added.size(); ++i) {
        const JsonPath path{jsonKey("added_tokens"), jsonIndex(i)};
        const QJsonObject a = added.at(i).toObject();
        const QJsonValue content = a.value(QLatin1String("content"));
        const std::optional<int> id = jsonId(a.value(QLatin1String("id")));
        if (!content.isString() || content.toString().isEmpty() || !id) {
            text.fail(path, QStringLiteral("an added token needs a non-empty \"content\" and an "
                                           "\"id\"; %1")
                                .arg(idRule()));
        }
        for (const char* flag : {"lstrip", "rstrip", "single_word"}) {
            if (a.value(QLatin1String(flag)).toBool(false)) {
                text.fail(path,
                          QStringLiteral("the added token %1 sets \"%2\", which this "
                                         "program does not support (GPT-2's tokens do not)")
                              .arg(quotedForMessage(content.toString()), QLatin1String(flag)));
            }
        }
        b->added.push_back({content.toString(), *id});
    }
}

}  // namespace

BpeLoadResult BpeTokenizer::fromTokenizerJson(const QByteArray& bytes) {
    const JsonText text(QStringLiteral("tokenizer.json"), bytes);
    try {
        QString error;
        const std::optional<QJsonObject> root = text.parseObject(
            kSyntaxFix,
            QStringLiteral("tokenizer.json is an object with \"model\": {\"vocab\": ..., "
                           "\"merges\": ...}: is it the right file?"),
            &error);
        if (!root) {
            return {nullptr, error};
        }
        checkGpt2Pipeline(text, *root);
        const QJsonValue modelValue = root->value(QLatin1String("model"));
        if (!modelValue.isObject()) {
            text.fail({}, QStringLiteral("\"model\" is %1, not an object with \"vocab\" and "
                                         "\"merges\": is it a Hugging Face tokenizer.json?")
                              .arg(describeJsonValue(modelValue)));
        }
        const QJsonObject model = modelValue.toObject();
        const QJsonValue type = model.value(QLatin1String("type"));
        if (!type.isUndefined() && type.toString() != QLatin1String("BPE")) {
            text.fail({jsonKey("model"), jsonKey("type")},
                      QStringLiteral("the model type is %1; this program reads BPE tokenizers "
                                     "(GPT-2's) only")
                          .arg(describeJsonValue(type)));
        }
        const JsonPath vocabPath{jsonKey("model"), jsonKey("vocab")};
        const QJsonValue vocab = model.value(QLatin1String("vocab"));
        if (!vocab.isObject()) {
            text.fail(vocabPath, QStringLiteral("\"vocab\" is %1, not an object of tokens and "
                                                "their ids")
                                     .arg(describeJsonValue(vocab)));
        }
        BpeBuilder b;
        b.readVocab(text, vocab.toObject(), vocabPath);
        readMergeList(text, model, &b);
        readAddedTokens(text, *root, &b);
        b.tokenAt = [&](const QString& token) { return text.where(jsonChild(vocabPath, token)); };
        b.vocabAt = [&] { return text.where(vocabPath); };
        b.mergeAt = [&](qsizetype i) {
            return text.where({jsonKey("model"), jsonKey("merges"), jsonIndex(i)});
        };
        b.addedAt = [&](qsizetype i) {
            return text.where({jsonKey("added_tokens"), jsonIndex(i)});
        };
        return b.build();
    } catch (const JsonError& failure) {
        return BpeLoadResult{nullptr, failure.message};
    }
}

namespace {

// The whole file, refusing one over the limit before reading it.
std::optional<QByteArray> readTokenizerFile(const QString& path, const QString& name,
                                            QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: cannot open it: %2").arg(name, file.errorString());
        return std::nullopt;
    }
    if (file.size() > kMaxTokenizerFileBytes) {
        *error = QStringLiteral("%1: the file is %2 MB; tokenizer files are limited to %3 MB")
                     .arg(name, megabytes(file.size()), megabytes(kMaxTokenizerFileBytes));
        return std::nullopt;
    }
    // One byte past the limit, so a pipe or a growing file is refused too.
    QByteArray bytes = file.read(kMaxTokenizerFileBytes + 1);
    if (file.error() != QFileDevice::NoError) {
        *error = QStringLiteral("%1: cannot read it: %2").arg(name, file.errorString());
        return std::nullopt;
    }
    if (bytes.size() > kMaxTokenizerFileBytes) {
        *error = QStringLiteral("%1: the file is over %2 MB, the limit for tokenizer files")
                     .arg(name, megabytes(kMaxTokenizerFileBytes));
        return std::nullopt;
    }
    return bytes;
}

}  // namespace

BpeLoadResult BpeTokenizer::load(const QString& folder) {
    const QDir dir(folder);
    if (!QFileInfo(folder).isDir()) {
        return {nullptr, QStringLiteral("the folder does not exist; give the folder that holds "
                                        "the model's tokenizer.json or vocab.json and merges.txt")};
    }
    QString error;
    const QString tokenizerJson = dir.filePath(QStringLiteral("tokenizer.json"));
    if (QFileInfo::exists(tokenizerJson)) {
        const auto bytes =
            readTokenizerFile(tokenizerJson, QStringLiteral("tokenizer.json"), &error);
        return bytes ? fromTokenizerJson(*bytes) : BpeLoadResult{nullptr, error};
    }
    const QString vocabPath = dir.filePath(QStringLiteral("vocab.json"));
    const QString mergesPath = dir.filePath(QStringLiteral("merges.txt"));
    const bool hasVocab = QFileInfo::exists(vocabPath);
    const bool hasMerges = QFileInfo::exists(mergesPath);
    if (!hasVocab && !hasMerges) {
        return {nullptr, QStringLiteral("no tokenizer: the folder has neither tokenizer.json nor "
                                        "vocab.json and merges.txt; copy them from the model")};
    }
    if (!hasVocab || !hasMerges) {
        return {nullptr,
                QStringLiteral("%1 is there but %2 is missing; copy it from the model")
                    .arg(hasVocab ? QStringLiteral("vocab.json") : QStringLiteral("merges.txt"),
                         hasVocab ? QStringLiteral("merges.txt") : QStringLiteral("vocab.json"))};
    }
    const auto vocab = readTokenizerFile(vocabPath, QStringLiteral("vocab.json"), &error);
    if (!vocab) {
        return {nullptr, error};
    }
    const auto merges = readTokenizerFile(mergesPath, QStringLiteral("merges.txt"), &error);
    if (!merges) {
        return {nullptr, error};
    }
    return fromVocabAndMerges(*vocab, *merges);
}

}  // namespace attn
