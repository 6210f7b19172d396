// Reading tokenizer.json's "normalizer", "pre_tokenizer" and "decoder" into a Pipeline; every
// component this program does not apply is refused by name, at its line and column.
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>

#include "app/io/json_locator.h"
#include "app/io/tokenizer_pipeline.h"

namespace attn::tok {

namespace {

bool absent(const QJsonValue& v) { return v.isUndefined() || v.isNull(); }

QString typeOf(const QJsonValue& v) { return v.toObject().value(QLatin1String("type")).toString(); }

// {"String": "x"} or {"Regex": "x"}: the pattern of Split and Replace.
struct PatternSpec {
    QString literal;
    std::shared_ptr<const QRegularExpression> regex;
};

PatternSpec readPattern(const JsonText& text, const QJsonObject& o, const JsonPath& path) {
    const QJsonObject p = o.value(QLatin1String("pattern")).toObject();
    const JsonPath at = jsonChild(path, QStringLiteral("pattern"));
    if (p.value(QLatin1String("String")).isString()) {
        const QString literal = p.value(QLatin1String("String")).toString();
        QString error;
        // A literal Split is the escaped pattern, so that one code path splits.
        return {literal, compilePattern(QRegularExpression::escape(literal), &error)};
    }
    if (p.value(QLatin1String("Regex")).isString()) {
        QString error;
        auto regex = compilePattern(p.value(QLatin1String("Regex")).toString(), &error);
        if (!regex) {
            text.fail(jsonChild(at, QStringLiteral("Regex")),
                      QStringLiteral("the pattern is not a regular expression this program can "
                                     "run (%1)")
                          .arg(error));
        }
        return {QString(), regex};
    }
    text.fail(at, QStringLiteral("a pattern is {\"String\": \"...\"} or {\"Regex\": \"...\"}"));
}

QChar readChar(const JsonText& text, const QJsonObject& o, const char* key, const JsonPath& path,
               QChar fallback) {
    const QJsonValue v = o.value(QLatin1String(key));
    if (absent(v)) {
        return fallback;
    }
    if (!v.isString() || v.toString().size() != 1) {
        text.fail(jsonChild(path, QLatin1String(key)),
                  QStringLiteral("\"%1\" is %2, not one character")
                      .arg(QLatin1String(key), describeJsonValue(v)));
    }
    return v.toString().at(0);
}

// Metaspace's prepend_scheme, or the older add_prefix_space.
PrependScheme readScheme(const JsonText& text, const QJsonObject& o, const JsonPath& path) {
    const QJsonValue scheme = o.value(QLatin1String("prepend_scheme"));
    if (absent(scheme)) {
        return o.value(QLatin1String("add_prefix_space")).toBool(true) ? PrependScheme::kAlways
                                                                       : PrependScheme::kNever;
    }
    const QString s = scheme.toString();
    if (s == QLatin1String("first")) return PrependScheme::kFirst;
    if (s == QLatin1String("always")) return PrependScheme::kAlways;
    if (s == QLatin1String("never")) return PrependScheme::kNever;
    text.fail(jsonChild(path, QStringLiteral("prepend_scheme")),
              QStringLiteral("prepend_scheme is %1, not \"first\", \"always\" or \"never\"")
                  .arg(describeJsonValue(scheme)));
}

void refuse(const JsonText& text, const JsonPath& path, const char* component,
            const QJsonValue& value, const char* known) {
    text.fail(path, QStringLiteral("%1 type %2 is not read: this program applies %3")
                        .arg(QLatin1String(component),
                             describeJsonValue(value.toObject().value(QLatin1String("type"))),
                             QLatin1String(known)));
}

void readNormalizer(const JsonText& text, const QJsonValue& v, const JsonPath& path,
                    std::vector<NormalizerStep>& out) {
    const QString type = typeOf(v);
    const QJsonObject o = v.toObject();
    NormalizerStep step;
    if (type == QLatin1String("Sequence")) {
        const QJsonArray list = o.value(QLatin1String("normalizers")).toArray();
        for (qsizetype i = 0; i < list.size(); ++i) {
            readNormalizer(text, list.at(i),
                           jsonChild(jsonChild(path, QStringLiteral("normalizers")), i), out);
        }
        return;
    }
    if (type == QLatin1String("NFC")) {
        step.kind = NormalizerStep::Kind::kNfc;
    } else if (type == QLatin1String("NFD")) {
        step.kind = NormalizerStep::Kind::kNfd;
    } else if (type == QLatin1String("NFKC")) {
        step.kind = NormalizerStep::Kind::kNfkc;
    } else if (type == QLatin1String("NFKD")) {
        step.kind = NormalizerStep::Kind::kNfkd;
    } else if (type == QLatin1String("Lowercase")) {
        step.kind = NormalizerStep::Kind::kLowercase;
    } else if (type == QLatin1String("BertNormalizer")) {
        step.kind = NormalizerStep::Kind::kBert;
        step.cleanText = o.value(QLatin1String("clean_text")).toBool(true);
        step.handleChineseChars = o.value(QLatin1String("handle_chinese_chars")).toBool(true);
        step.lowercase = o.value(QLatin1String("lowercase")).toBool(true);
        // strip_accents null: as lowercase, BERT's rule.
        step.stripAccents = o.value(QLatin1String("strip_accents")).toBool(step.lowercase);
    } else if (type == QLatin1String("Prepend")) {
        step.kind = NormalizerStep::Kind::kPrepend;
        step.prepend = o.value(QLatin1String("prepend")).toString();
    } else if (type == QLatin1String("Replace")) {
        step.kind = NormalizerStep::Kind::kReplace;
        const PatternSpec p = readPattern(text, o, path);
        step.replace = {p.literal, p.literal.isEmpty() ? p.regex : nullptr,
                        o.value(QLatin1String("content")).toString()};
    } else {
        refuse(text, path, "normalizer", v,
               "NFC, NFD, NFKC, NFKD, Lowercase, Prepend, Replace, BertNormalizer and a "
               "Sequence of them");
    }
    out.push_back(step);
}

SplitBehavior readBehavior(const JsonText& text, const QJsonObject& o, const JsonPath& path) {
    const QString b = o.value(QLatin1String("behavior")).toString();
    if (b == QLatin1String("Isolated")) return SplitBehavior::kIsolated;
    if (b == QLatin1String("Removed")) return SplitBehavior::kRemoved;
    if (b == QLatin1String("MergedWithPrevious")) return SplitBehavior::kMergedWithPrevious;
    if (b == QLatin1String("MergedWithNext")) return SplitBehavior::kMergedWithNext;
    if (b == QLatin1String("Contiguous")) return SplitBehavior::kContiguous;
    text.fail(jsonChild(path, QStringLiteral("behavior")),
              QStringLiteral("the Split behavior is %1, not Isolated, Removed, "
                             "MergedWithPrevious, MergedWithNext or Contiguous")
                  .arg(describeJsonValue(o.value(QLatin1String("behavior")))));
}

void readPreTokenizer(const JsonText& text, const QJsonValue& v, const JsonPath& path,
                      Pipeline& out) {
    const QString type = typeOf(v);
    const QJsonObject o = v.toObject();
    if (out.byteLevel) {
        text.fail(path, QStringLiteral("a pre_tokenizer after ByteLevel is not read: ByteLevel "
                                       "must come last"));
    }
    PreTokenizerStep step;
    if (type == QLatin1String("Sequence")) {
        const QJsonArray list = o.value(QLatin1String("pretokenizers")).toArray();
        for (qsizetype i = 0; i < list.size(); ++i) {
            readPreTokenizer(text, list.at(i),
                             jsonChild(jsonChild(path, QStringLiteral("pretokenizers")), i), out);
        }
        return;
    }
    if (type == QLatin1String("Split")) {
        step.kind = PreTokenizerStep::Kind::kSplit;
        step.regex = readPattern(text, o, path).regex;
        step.behavior = readBehavior(text, o, path);
        step.invert = o.value(QLatin1String("invert")).toBool(false);
    } else if (type == QLatin1String("ByteLevel")) {
        step.kind = PreTokenizerStep::Kind::kByteLevel;
        step.addPrefixSpace = o.value(QLatin1String("add_prefix_space")).toBool(false);
        if (o.value(QLatin1String("use_regex")).toBool(true)) {
            QString error;
            step.regex = compilePattern(gpt2Pattern(), &error);
        }
        out.byteLevel = true;
    } else if (type == QLatin1String("Metaspace")) {
        step.kind = PreTokenizerStep::Kind::kMetaspace;
        step.replacement = readChar(text, o, "replacement", path, QChar(kSpaceMark));
        step.scheme = readScheme(text, o, path);
        step.split = o.value(QLatin1String("split")).toBool(true);
    } else if (type == QLatin1String("Digits")) {
        step.kind = PreTokenizerStep::Kind::kDigits;
        step.individualDigits = o.value(QLatin1String("individual_digits")).toBool(false);
    } else if (type == QLatin1String("BertPreTokenizer")) {
        step.kind = PreTokenizerStep::Kind::kBert;
    } else {
        refuse(text, path, "pre_tokenizer", v,
               "Split, ByteLevel, Metaspace, Digits, BertPreTokenizer and a Sequence of them");
    }
    out.preTokenizers.push_back(step);
}

void readDecoder(const JsonText& text, const QJsonValue& v, const JsonPath& path,
                 std::vector<DecoderStep>& out) {
    const QString type = typeOf(v);
    const QJsonObject o = v.toObject();
    DecoderStep step;
    if (type == QLatin1String("Sequence")) {
        const QJsonArray list = o.value(QLatin1String("decoders")).toArray();
        for (qsizetype i = 0; i < list.size(); ++i) {
            readDecoder(text, list.at(i), jsonChild(jsonChild(path, QStringLiteral("decoders")), i),
                        out);
        }
        return;
    }
    if (type == QLatin1String("ByteLevel")) {
        step.kind = DecoderStep::Kind::kByteLevel;
    } else if (type == QLatin1String("Replace")) {
        step.kind = DecoderStep::Kind::kReplace;
        const PatternSpec p = readPattern(text, o, path);
        step.replace = {p.literal, p.literal.isEmpty() ? p.regex : nullptr,
                        o.value(QLatin1String("content")).toString()};
    } else if (type == QLatin1String("ByteFallback")) {
        step.kind = DecoderStep::Kind::kByteFallback;
    } else if (type == QLatin1String("Fuse")) {
        step.kind = DecoderStep::Kind::kFuse;
    } else if (type == QLatin1String("Strip")) {
        step.kind = DecoderStep::Kind::kStrip;
        step.strip = readChar(text, o, "content", path, QLatin1Char(' '));
        step.start = o.value(QLatin1String("start")).toInt(0);
        step.stop = o.value(QLatin1String("stop")).toInt(0);
    } else if (type == QLatin1String("Metaspace")) {
        step.kind = DecoderStep::Kind::kMetaspace;
        step.replacement = readChar(text, o, "replacement", path, QChar(kSpaceMark));
        step.prependFirst = readScheme(text, o, path) != PrependScheme::kNever;
    } else if (type == QLatin1String("WordPiece")) {
        step.kind = DecoderStep::Kind::kWordPiece;
        step.prefix = o.value(QLatin1String("prefix")).toString(QStringLiteral("##"));
        step.cleanup = o.value(QLatin1String("cleanup")).toBool(true);
    } else {
        refuse(text, path, "decoder", v,
               "ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, WordPiece and a Sequence "
               "of them");
    }
    out.push_back(step);
}

}  // namespace

Pipeline readPipeline(const JsonText& text, const QJsonObject& root) {
    Pipeline p;
    const QJsonValue normalizer = root.value(QLatin1String("normalizer"));
    if (!absent(normalizer)) {
        readNormalizer(text, normalizer, {jsonKey("normalizer")}, p.normalizers);
    }
    const QJsonValue pre = root.value(QLatin1String("pre_tokenizer"));
    if (!absent(pre)) {
        readPreTokenizer(text, pre, {jsonKey("pre_tokenizer")}, p);
    }
    const QJsonValue decoder = root.value(QLatin1String("decoder"));
    if (!absent(decoder)) {
        readDecoder(text, decoder, {jsonKey("decoder")}, p.decoders);
    } else if (p.byteLevel) {
        p.decoders.push_back({});  // a byte-level tokenizer's tokens are bytes all the same
    }
    return p;
}

}  // namespace attn::tok
