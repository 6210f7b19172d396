// BERT's original tokenizer files: vocab.txt (one WordPiece token per line, its id the line
// number from 0) and tokenizer_config.json (do_lower_case, strip_accents, tokenize_chinese_chars
// and the special tokens' names), read as transformers' BertTokenizer reads them and turned into
// the steps its tokenizer.json would have: BertNormalizer, BertPreTokenizer, WordPiece, BERT's
// template and the WordPiece decoder.
#include <QJsonObject>
#include <QJsonValue>
#include <utility>

#include "app/io/bpe_builder.h"
#include "app/io/tokenizer.h"

namespace attn {

namespace {

// tokenizer_config.json's settings for BERT, with BertTokenizer's defaults.
struct BertConfig {
    bool lowercase = true;
    std::optional<bool> stripAccents;  // unset: as lowercase
    bool chineseChars = true;
    QString unk = QStringLiteral("[UNK]");
    QString sep = QStringLiteral("[SEP]");
    QString pad = QStringLiteral("[PAD]");
    QString cls = QStringLiteral("[CLS]");
    QString mask = QStringLiteral("[MASK]");
};

BertConfig readBertConfig(const QByteArray& bytes) {
    BertConfig config;
    if (bytes.isEmpty()) {
        return config;
    }
    const JsonText text(QStringLiteral("tokenizer_config.json"), bytes);
    QString error;
    const std::optional<QJsonObject> root =
        text.parseObject(QStringLiteral("is it cut short? Copy it again from the model"),
                         QStringLiteral("tokenizer_config.json is an object of settings"), &error);
    if (!root) {
        throw JsonError{error};
    }
    const auto flag = [&](const char* key, bool* out) {
        const QJsonValue v = root->value(QLatin1String(key));
        if (v.isBool()) {
            *out = v.toBool();
        } else if (!v.isUndefined() && !v.isNull()) {
            text.fail({jsonKey(key)}, QStringLiteral("\"%1\" is %2, not true or false")
                                          .arg(QLatin1String(key), describeJsonValue(v)));
        }
        return v.isBool();
    };
    flag("do_lower_case", &config.lowercase);
    flag("tokenize_chinese_chars", &config.chineseChars);
    bool strip = false;
    if (flag("strip_accents", &strip)) {
        config.stripAccents = strip;
    }
    for (auto [key, name] :
         {std::pair{"unk_token", &config.unk}, std::pair{"sep_token", &config.sep},
          std::pair{"pad_token", &config.pad}, std::pair{"cls_token", &config.cls},
          std::pair{"mask_token", &config.mask}}) {
        const QJsonValue v = root->value(QLatin1String(key));
        if (v.isString()) {
            *name = v.toString();
        } else if (v.isObject() && v.toObject().value(QLatin1String("content")).isString()) {
            *name = v.toObject().value(QLatin1String("content")).toString();
        }
    }
    return config;
}

QString megabytes(qint64 bytes) {
    return QString::number(static_cast<double>(bytes) / (1 << 20), 'f', 1);
}

}  // namespace

TokenizerLoadResult Tokenizer::fromVocabTxt(const QByteArray& vocabTxt,
                                            const QByteArray& tokenizerConfigJson) {
    const JsonText text(QStringLiteral("vocab.txt"), vocabTxt);
    try {
        if (vocabTxt.size() > kMaxTokenizerFileBytes) {
            throw JsonError{text.fileMessage(
                QStringLiteral("the file is %1 MB; tokenizer files are limited to %2 MB")
                    .arg(megabytes(vocabTxt.size()), megabytes(kMaxTokenizerFileBytes)))};
        }
        if (vocabTxt.trimmed().isEmpty()) {
            throw JsonError{text.fileMessage(
                QStringLiteral("the file is empty; it holds one WordPiece token per line "
                               "([PAD], [UNK], [CLS], ...): copy it again from the model"))};
        }
        if (const qsizetype bad = firstInvalidUtf8(vocabTxt); bad >= 0) {
            throw JsonError{text.messageAt(
                bad, QStringLiteral("the file is not valid UTF-8 (byte 0x%1): save it as UTF-8")
                         .arg(static_cast<unsigned char>(vocabTxt[bad]), 2, 16, QLatin1Char('0')))};
        }
        const BertConfig config = readBertConfig(tokenizerConfigJson);
        BpeBuilder b;
        std::vector<qsizetype> lineStarts;
        for (qsizetype start = 0; start < vocabTxt.size();) {
            qsizetype end = vocabTxt.indexOf('\n', start);
            if (end < 0) {
                end = vocabTxt.size();
            }
            QByteArrayView line(vocabTxt.constData() + start, end - start);
            if (line.endsWith('\r')) {
                line.chop(1);
            }
            if (lineStarts.size() >= static_cast<std::size_t>(kMaxTokenizerIds)) {
                throw JsonError{text.messageAt(
                    start, QStringLiteral("the vocabulary has more than %1 lines, the most this "
                                          "program reads; is it a vocab.txt?")
                               .arg(kMaxTokenizerIds))};
            }
            // An empty line is a token too (it keeps the ids of the lines after it), one that no
            // word matches. A token listed twice encodes as its later id, as load_vocab's dict.
            QString token = QString::fromUtf8(line);
            if (token.isNull()) {
                token = QLatin1String("");
            }
            b.vocab.push_back({token, static_cast<int>(lineStarts.size())});
            lineStarts.push_back(start);
            start = end + 1;
        }
        b.wordPiece = true;
        b.unkToken = config.unk;
        tok::NormalizerStep normalizer;
        normalizer.kind = tok::NormalizerStep::Kind::kBert;
        normalizer.lowercase = config.lowercase;
        normalizer.stripAccents = config.stripAccents.value_or(config.lowercase);
        normalizer.handleChineseChars = config.chineseChars;
        b.pipeline.normalizers.push_back(normalizer);
        tok::PreTokenizerStep pre;
        pre.kind = tok::PreTokenizerStep::Kind::kBert;
        b.pipeline.preTokenizers.push_back(pre);
        tok::DecoderStep decoder;
        decoder.kind = tok::DecoderStep::Kind::kWordPiece;
        b.pipeline.decoders.push_back(decoder);
        // The special tokens are split out of the text as written, before lower-casing.
        for (const QString* name :
             {&config.pad, &config.unk, &config.cls, &config.sep, &config.mask}) {
            for (auto it = b.vocab.rbegin(); it != b.vocab.rend(); ++it) {
                if (it->token == *name) {
                    b.added.push_back({*name, it->id});
                    break;
                }
            }
        }
        b.templ = bertTemplate(config.cls, config.sep);
        b.tokenAt = [&](const QString& token) {
            for (const BpeBuilder::VocabEntry& e : b.vocab)
                if (e.token == token)
                    return text.whereOffset(lineStarts[static_cast<std::size_t>(e.id)]);
            return text.file();
        };
        b.vocabAt = [&] { return text.file(); };
        b.mergeAt = [&](qsizetype) { return text.file(); };
        b.addedAt = [&](qsizetype i) {
            return b.tokenAt(b.added[static_cast<std::size_t>(i)].content);
        };
        b.templateAt = [&] { return text.file(); };
        return {b.build(), {}};
    } catch (const JsonError& failure) {
        return TokenizerLoadResult{nullptr, failure.message};
    }
}

}  // namespace attn
