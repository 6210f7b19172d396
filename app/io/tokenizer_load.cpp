// Loading a BPE tokenizer from its files (tokenizer.json and tokenizer_config.json, or
// vocab.json and merges.txt), every problem reported with the file, line and column
// (json_locator.h). The shared checks are bpe_tokenizer_build.cpp; encoding and decoding
// tokenizer.cpp.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

#include "app/io/bpe_builder.h"
#include "app/io/bpe_bytes.h"
#include "app/io/json_locator.h"
#include "app/io/model_folder.h"
#include "app/io/tokenizer.h"

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

}  // namespace

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

namespace {

// RobertaTokenizer's special tokens, each an added token of the vocabulary; "<mask>" takes the
// space before it (lstrip), as its tokenizer.json says.
void addRobertaSpecials(const QJsonObject& vocab, const JsonText& vocabText, BpeBuilder* b) {
    for (const char* name : {"<s>", "<pad>", "</s>", "<unk>", "<mask>"}) {
        const QString content = QLatin1String(name);
        const std::optional<int> id = jsonId(vocab.value(content));
        if (!id) {
            throw JsonError{QStringLiteral("%1: RoBERTa's special token %2 is not in the "
                                           "vocabulary; is it RoBERTa's vocab.json?")
                                .arg(vocabText.where({}), quotedForMessage(content))};
        }
        b->added.push_back({content, *id});
        b->added.back().lstrip = content == QLatin1String("<mask>");
    }
    b->unkToken = QStringLiteral("<unk>");
    b->bosToken = QStringLiteral("<s>");
    b->eosToken = QStringLiteral("</s>");
    b->templ = robertaTemplate(QStringLiteral("<s>"), QStringLiteral("</s>"));
    b->templateAt = [&vocabText] { return vocabText.where({}); };
}

TokenizerLoadResult vocabAndMerges(const QByteArray& vocabJson, const QByteArray& mergesTxt,
                                   bool roberta);

}  // namespace

TokenizerLoadResult Tokenizer::fromVocabAndMerges(const QByteArray& vocabJson,
                                                  const QByteArray& mergesTxt) {
    return vocabAndMerges(vocabJson, mergesTxt, false);
}

TokenizerLoadResult Tokenizer::fromRobertaVocabAndMerges(const QByteArray& vocabJson,
                                                         const QByteArray& mergesTxt) {
    return vocabAndMerges(vocabJson, mergesTxt, true);
}

namespace {

TokenizerLoadResult vocabAndMerges(const QByteArray& vocabJson, const QByteArray& mergesTxt,
                                   bool roberta) {
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
        // GPT-2's steps: its pattern, byte-level symbols, and back.
        b.pipeline.byteLevel = true;
        tok::PreTokenizerStep byteLevel;
        byteLevel.kind = tok::PreTokenizerStep::Kind::kByteLevel;
        byteLevel.regex = tok::compilePattern(tok::gpt2Pattern(), &error);
        b.pipeline.preTokenizers.push_back(byteLevel);
        b.pipeline.decoders.push_back({});
        b.readVocab(vocabText, *root, {});
        // Without tokenizer.json, Hugging Face's GPT2Tokenizer makes "<|endoftext|>" its special
        // token: split out of the text, never merged.
        const QString endOfText = QLatin1String(kEndOfTextToken);
        if (roberta) {
            addRobertaSpecials(*root, vocabText, &b);
        } else if (const std::optional<int> id = jsonId(root->value(endOfText))) {
            b.added.push_back({endOfText, *id});
            b.missingBytesAsEndOfText = true;
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
        return {b.build(), {}};
    } catch (const JsonError& failure) {
        return TokenizerLoadResult{nullptr, failure.message};
    }
}

}  // namespace

QByteArray Tokenizer::vocabJson() const {
    QJsonObject vocab;
    for (std::size_t id = 0; id < tokens_.size(); ++id)
        if (!tokens_[id].isNull()) vocab.insert(tokens_[id], static_cast<int>(id));
    return QJsonDocument(vocab).toJson(QJsonDocument::Compact);
}

QByteArray Tokenizer::mergesTxt() const {
    std::vector<std::pair<int, quint64>> byRank;
    byRank.reserve(merges_.size());
    for (const auto& [pair, merge] : merges_) byRank.emplace_back(merge.rank, pair);
    std::sort(byRank.begin(), byRank.end());
    QByteArray out("#version: 0.2\n");
    for (const auto& [rank, pair] : byRank) {
        out += token(static_cast<int>(pair >> 32)).toUtf8() + ' ' +
               token(static_cast<int>(pair & 0xFFFFFFFFu)).toUtf8() + '\n';
    }
    return out;
}

namespace {

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

// tokenizer.json's "added_tokens": content, id, lstrip, rstrip, single_word. "normalized" is not
// read: every added token is found in the text as written.
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
        b->added.push_back({content.toString(), *id, a.value(QLatin1String("lstrip")).toBool(),
                            a.value(QLatin1String("rstrip")).toBool(),
                            a.value(QLatin1String("single_word")).toBool(),
                            a.value(QLatin1String("special")).toBool(true)});
    }
}

// tokenizer.json's WordPiece "model" (BERT): unk_token, continuing_subword_prefix,
// max_input_chars_per_word.
void readWordPieceOptions(const JsonText& text, const QJsonObject& model, BpeBuilder* b) {
    b->wordPiece = true;
    const QJsonValue unk = model.value(QLatin1String("unk_token"));
    if (!unk.isString() || unk.toString().isEmpty()) {
        text.fail({jsonKey("model"), jsonKey("unk_token")},
                  QStringLiteral("\"unk_token\" is %1; a WordPiece model needs its unknown "
                                 "token (\"[UNK]\") for the words it cannot cut")
                      .arg(describeJsonValue(unk)));
    }
    b->unkToken = unk.toString();
    const QJsonValue prefix = model.value(QLatin1String("continuing_subword_prefix"));
    if (prefix.isString()) {
        b->continuingPrefix = prefix.toString();
    }
    const QJsonValue maxChars = model.value(QLatin1String("max_input_chars_per_word"));
    if (maxChars.isDouble() && maxChars.toDouble() >= 0 && maxChars.toDouble() <= 1e9) {
        b->maxInputCharsPerWord = static_cast<int>(maxChars.toDouble());
    } else if (!maxChars.isUndefined() && !maxChars.isNull()) {
        text.fail({jsonKey("model"), jsonKey("max_input_chars_per_word")},
                  QStringLiteral("\"max_input_chars_per_word\" is %1, not a whole number such "
                                 "as 100")
                      .arg(describeJsonValue(maxChars)));
    }
}

// tokenizer.json's "model": BPE, and the options Llama 2's SentencePiece-style files set; or
// WordPiece.
void readModelOptions(const JsonText& text, const QJsonObject& model, BpeBuilder* b) {
    const QJsonValue type = model.value(QLatin1String("type"));
    if (type.toString() == QLatin1String("WordPiece")) {
        readWordPieceOptions(text, model, b);
        return;
    }
    if (!type.isUndefined() && type.toString() != QLatin1String("BPE")) {
        text.fail({jsonKey("model"), jsonKey("type")},
                  QStringLiteral("the model type is %1; this program reads BPE and WordPiece "
                                 "tokenizers only")
                      .arg(describeJsonValue(type)));
    }
    const QJsonValue dropout = model.value(QLatin1String("dropout"));
    if (dropout.isDouble() && dropout.toDouble() != 0) {
        text.fail({jsonKey("model"), jsonKey("dropout")},
                  QStringLiteral("BPE dropout (%1) makes encoding random; set it to null")
                      .arg(dropout.toDouble()));
    }
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
        if (!model.value(QLatin1String(key)).toString().isEmpty()) {
            text.fail({jsonKey("model"), jsonKey(key)},
                      QStringLiteral("\"%1\" is not read: this program reads BPE models "
                                     "without it (set it to null)")
                          .arg(QLatin1String(key)));
        }
    }
    b->byteFallback = model.value(QLatin1String("byte_fallback")).toBool(false);
    b->ignoreMerges = model.value(QLatin1String("ignore_merges")).toBool(false);
    b->fuseUnk = model.value(QLatin1String("fuse_unk")).toBool(false);
    const QJsonValue unk = model.value(QLatin1String("unk_token"));
    if (unk.isString()) {
        b->unkToken = unk.toString();
    }
}

// tokenizer.json's "post_processor": the tokens TemplateProcessing puts around a text ("<s> $A")
// make BOS and EOS added, and for WordPiece its whole template (tokenizer_template.cpp) applies,
// as BertProcessing's and RobertaProcessing's always do; ByteLevel's only changes offsets.
void readPostProcessor(const JsonText& text, const QJsonValue& v, const JsonPath& path,
                       BpeBuilder* b) {
    if (v.isUndefined() || v.isNull()) {
        return;
    }
    const QJsonObject o = v.toObject();
    const QString type = o.value(QLatin1String("type")).toString();
    if (type == QLatin1String("ByteLevel")) {
        return;
    }
    if (type == QLatin1String("Sequence")) {
        const QJsonArray list = o.value(QLatin1String("processors")).toArray();
        for (qsizetype i = 0; i < list.size(); ++i) {
            readPostProcessor(text, list.at(i),
                              jsonChild(jsonChild(path, QStringLiteral("processors")), i), b);
        }
        return;
    }
    if (type == QLatin1String("BertProcessing") || type == QLatin1String("RobertaProcessing")) {
        readBertOrRobertaProcessing(text, o, path, type == QLatin1String("RobertaProcessing"), b);
        return;
    }
    if (type != QLatin1String("TemplateProcessing")) {
        text.fail(path, QStringLiteral("post_processor type %1 is not read: this program applies "
                                       "TemplateProcessing, BertProcessing, RobertaProcessing, "
                                       "ByteLevel and a Sequence of them")
                            .arg(describeJsonValue(o.value(QLatin1String("type")))));
    }
    if (b->wordPiece) {
        readTemplateProcessing(text, o, path, b);
    }
    QStringList before;
    QStringList after;
    bool seenText = false;
    for (const QJsonValue item : o.value(QLatin1String("single")).toArray()) {
        const QJsonObject i = item.toObject();
        if (i.contains(QLatin1String("Sequence"))) {
            seenText = true;
        } else if (i.contains(QLatin1String("SpecialToken"))) {
            const QString id = i.value(QLatin1String("SpecialToken"))
                                   .toObject()
                                   .value(QLatin1String("id"))
                                   .toString();
            (seenText ? after : before) << id;
        }
    }
    // BERT's [CLS] and [SEP] are not BOS and EOS: its template is the whole story.
    if (!before.isEmpty() && !b->wordPiece) {
        b->bosToken = before.front();
        b->addBos = true;
    }
    if (!after.isEmpty() && !b->wordPiece) {
        b->eosToken = after.back();
        b->addEos = true;
    }
}

// A token named in tokenizer_config.json: "<s>" or {"content": "<s>", ...}.
std::optional<QString> configToken(const QJsonValue& v) {
    if (v.isString()) {
        return v.toString();
    }
    if (v.isObject() && v.toObject().value(QLatin1String("content")).isString()) {
        return v.toObject().value(QLatin1String("content")).toString();
    }
    return std::nullopt;
}

// tokenizer_config.json: add_bos_token / add_eos_token and the BOS/EOS names win over the
// post-processor, as in transformers.
void readTokenizerConfig(const QByteArray& bytes, BpeBuilder* b) {
    const JsonText text(QStringLiteral("tokenizer_config.json"), bytes);
    QString error;
    const std::optional<QJsonObject> root = text.parseObject(
        kSyntaxFix, QStringLiteral("tokenizer_config.json is an object of settings"), &error);
    if (!root) {
        throw JsonError{error};
    }
    if (const auto bos = configToken(root->value(QLatin1String("bos_token")))) {
        b->bosToken = bos;
    }
    if (const auto eos = configToken(root->value(QLatin1String("eos_token")))) {
        b->eosToken = eos;
    }
    for (const auto& [key, flag] :
         {std::pair{"add_bos_token", &b->addBos}, std::pair{"add_eos_token", &b->addEos}}) {
        const QJsonValue v = root->value(QLatin1String(key));
        if (v.isBool()) {
            *flag = v.toBool();
        } else if (!v.isUndefined() && !v.isNull()) {
            text.fail({jsonKey(key)}, QStringLiteral("\"%1\" is %2, not true or false")
                                          .arg(QLatin1String(key), describeJsonValue(v)));
        }
    }
}

}  // namespace

TokenizerLoadResult Tokenizer::fromTokenizerJson(const QByteArray& bytes) {
    return fromTokenizerJson(bytes, {});
}

TokenizerLoadResult Tokenizer::fromTokenizerJson(const QByteArray& bytes,
                                                 const QByteArray& configBytes) {
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
        BpeBuilder b;
        b.pipeline = tok::readPipeline(text, *root);
        const QJsonValue modelValue = root->value(QLatin1String("model"));
        if (!modelValue.isObject()) {
            text.fail({}, QStringLiteral("\"model\" is %1, not an object with \"vocab\" and "
                                         "\"merges\": is it a Hugging Face tokenizer.json?")
                              .arg(describeJsonValue(modelValue)));
        }
        const QJsonObject model = modelValue.toObject();
        readModelOptions(text, model, &b);
        const JsonPath vocabPath{jsonKey("model"), jsonKey("vocab")};
        const QJsonValue vocab = model.value(QLatin1String("vocab"));
        if (!vocab.isObject()) {
            text.fail(vocabPath, QStringLiteral("\"vocab\" is %1, not an object of tokens and "
                                                "their ids")
                                     .arg(describeJsonValue(vocab)));
        }
        b.readVocab(text, vocab.toObject(), vocabPath);
        if (!b.wordPiece) {
            readMergeList(text, model, &b);
        }
        readAddedTokens(text, *root, &b);
        readPostProcessor(text, root->value(QLatin1String("post_processor")),
                          {jsonKey("post_processor")}, &b);
        if (!configBytes.isEmpty()) {
            readTokenizerConfig(configBytes, &b);
        }
        b.tokenAt = [&](const QString& token) { return text.where(jsonChild(vocabPath, token)); };
        b.vocabAt = [&] { return text.where(vocabPath); };
        b.mergeAt = [&](qsizetype i) {
            return text.where({jsonKey("model"), jsonKey("merges"), jsonIndex(i)});
        };
        b.addedAt = [&](qsizetype i) {
            return text.where({jsonKey("added_tokens"), jsonIndex(i)});
        };
        return {b.build(), {}};
    } catch (const JsonError& failure) {
        return TokenizerLoadResult{nullptr, failure.message};
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

// Whether vocab.json + merges.txt are RoBERTa's, as transformers' AutoTokenizer decides:
// tokenizer_config.json's tokenizer_class, else config.json's model_type.
bool isRobertaFolder(const QDir& dir, const QByteArray& tokenizerConfig) {
    const QString tokenizerClass = QJsonDocument::fromJson(tokenizerConfig)
                                       .object()
                                       .value(QLatin1String("tokenizer_class"))
                                       .toString();
    if (!tokenizerClass.isEmpty()) {
        return tokenizerClass.startsWith(QLatin1String("RobertaTokenizer"));
    }
    QFile config(dir.filePath(QStringLiteral("config.json")));
    if (config.size() > kMaxTokenizerFileBytes || !config.open(QIODevice::ReadOnly)) {
        return false;
    }
    return modelTypeOf(config.readAll()) == QLatin1String("roberta");
}

// tokenizer_config.json beside the tokenizer: its bytes, empty when the folder has none.
std::optional<QByteArray> readTokenizerConfig(const QDir& dir, QString* error) {
    const QString path = dir.filePath(QStringLiteral("tokenizer_config.json"));
    if (!QFileInfo::exists(path)) {
        return QByteArray();
    }
    return readTokenizerFile(path, QStringLiteral("tokenizer_config.json"), error);
}

}  // namespace

TokenizerLoadResult Tokenizer::load(const QString& folder) {
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
        if (!bytes) {
            return {nullptr, error};
        }
        const std::optional<QByteArray> config = readTokenizerConfig(dir, &error);
        if (!config) {
            return {nullptr, error};
        }
        return fromTokenizerJson(*bytes, *config);
    }
    const QString vocabPath = dir.filePath(QStringLiteral("vocab.json"));
    const QString mergesPath = dir.filePath(QStringLiteral("merges.txt"));
    const bool hasVocab = QFileInfo::exists(vocabPath);
    const bool hasMerges = QFileInfo::exists(mergesPath);
    const QString vocabTxtPath = dir.filePath(QStringLiteral("vocab.txt"));
    if (!hasVocab && !hasMerges && QFileInfo::exists(vocabTxtPath)) {
        // BERT's original files: vocab.txt and, for its settings, tokenizer_config.json.
        const auto vocabTxt = readTokenizerFile(vocabTxtPath, QStringLiteral("vocab.txt"), &error);
        if (!vocabTxt) {
            return {nullptr, error};
        }
        const std::optional<QByteArray> config = readTokenizerConfig(dir, &error);
        if (!config) {
            return {nullptr, error};
        }
        return fromVocabTxt(*vocabTxt, *config);
    }
    if (!hasVocab && !hasMerges) {
        return {nullptr, QStringLiteral("no tokenizer: the folder has neither tokenizer.json, "
                                        "vocab.json and merges.txt, nor vocab.txt; copy them "
                                        "from the model")};
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
    const std::optional<QByteArray> config = readTokenizerConfig(dir, &error);
    if (!config) {
        return {nullptr, error};
    }
    return isRobertaFolder(dir, *config) ? fromRobertaVocabAndMerges(*vocab, *merges)
                                         : fromVocabAndMerges(*vocab, *merges);
}

}  // namespace attn
