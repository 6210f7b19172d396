// What a model is fed for a text or a pair of texts: the post-processor's template
// (TemplateProcessing, BertProcessing, RobertaProcessing; BERT's for vocab.txt) with the special
// tokens around the texts, their token type ids and which text each position belongs to. Without
// a template (the decoders) BOS and EOS as addsBos and addsEos say.
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <algorithm>

#include "app/io/bpe_builder.h"
#include "app/io/tokenizer.h"

namespace attn {

namespace {

using TemplateItem = BpeBuilder::TemplateItem;
using TemplateSpec = BpeBuilder::TemplateSpec;

int readTypeId(const JsonText& text, const QJsonObject& o, const JsonPath& path) {
    const QJsonValue v = o.value(QLatin1String("type_id"));
    if (v.isUndefined() || v.isNull()) {
        return 0;
    }
    if (!v.isDouble() || v.toDouble() < 0 || v.toDouble() > 1000 ||
        v.toDouble() != static_cast<int>(v.toDouble())) {
        text.fail(jsonChild(path, QStringLiteral("type_id")),
                  QStringLiteral("\"type_id\" is %1, not a small whole number such as 0 or 1")
                      .arg(describeJsonValue(v)));
    }
    return static_cast<int>(v.toDouble());
}

// One of "single" and "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
// {"Sequence": {"id": "A", "type_id": 0}}, ...], the ids from "special_tokens".
std::vector<TemplateItem> readTemplateList(const JsonText& text, const QJsonObject& o,
                                           const JsonPath& processor, const char* key) {
    const JsonPath path = jsonChild(processor, QLatin1String(key));
    const QJsonValue list = o.value(QLatin1String(key));
    if (!list.isArray()) {
        text.fail(path, QStringLiteral("\"%1\" is %2, not a list of SpecialToken and Sequence "
                                       "items")
                            .arg(QLatin1String(key), describeJsonValue(list)));
    }
    const QJsonObject specials = o.value(QLatin1String("special_tokens")).toObject();
    std::vector<TemplateItem> out;
    const QJsonArray items = list.toArray();
    for (qsizetype i = 0; i < items.size(); ++i) {
        const JsonPath at = jsonChild(path, i);
        const QJsonObject item = items.at(i).toObject();
        TemplateItem piece;
        if (item.value(QLatin1String("Sequence")).isObject()) {
            const QJsonObject seq = item.value(QLatin1String("Sequence")).toObject();
            const QString id = seq.value(QLatin1String("id")).toString();
            if (id != QLatin1String("A") && id != QLatin1String("B")) {
                text.fail(
                    jsonChild(jsonChild(at, QStringLiteral("Sequence")), QStringLiteral("id")),
                    QStringLiteral("a Sequence's \"id\" is %1, not \"A\" or \"B\"")
                        .arg(describeJsonValue(seq.value(QLatin1String("id")))));
            }
            piece.sequence = id == QLatin1String("A") ? 0 : 1;
            piece.typeId = readTypeId(text, seq, jsonChild(at, QStringLiteral("Sequence")));
        } else if (item.value(QLatin1String("SpecialToken")).isObject()) {
            const JsonPath sp = jsonChild(at, QStringLiteral("SpecialToken"));
            const QJsonObject token = item.value(QLatin1String("SpecialToken")).toObject();
            piece.name = token.value(QLatin1String("id")).toString();
            piece.typeId = readTypeId(text, token, sp);
            const QJsonValue entry = specials.value(piece.name);
            const QJsonArray ids = entry.toObject().value(QLatin1String("ids")).toArray();
            if (!entry.isObject() || ids.isEmpty()) {
                text.fail(sp, QStringLiteral("the template's special token %1 is not in "
                                             "\"special_tokens\" with its \"ids\"; add it there")
                                  .arg(quotedForMessage(piece.name)));
            }
            for (const QJsonValue id : ids) {
                if (!id.isDouble() || id.toDouble() < 0 || id.toDouble() >= kMaxTokenizerIds ||
                    id.toDouble() != static_cast<int>(id.toDouble())) {
                    text.fail(jsonChild(jsonChild(jsonChild({jsonKey("post_processor")},
                                                            QStringLiteral("special_tokens")),
                                                  piece.name),
                                        QStringLiteral("ids")),
                              QStringLiteral("the ids of %1 are not whole numbers from 0 to %2")
                                  .arg(quotedForMessage(piece.name))
                                  .arg(kMaxTokenizerIds - 1));
                }
                piece.ids.push_back(static_cast<int>(id.toDouble()));
            }
        } else {
            text.fail(at, QStringLiteral("a template item is {\"SpecialToken\": {...}} or "
                                         "{\"Sequence\": {...}}"));
        }
        out.push_back(piece);
    }
    const bool hasA =
        std::any_of(out.begin(), out.end(), [](const TemplateItem& p) { return p.sequence == 0; });
    if (!hasA) {
        text.fail(path,
                  QStringLiteral("the template \"%1\" has no {\"Sequence\": {\"id\": \"A\"}}: "
                                 "where does the text go?")
                      .arg(QLatin1String(key)));
    }
    return out;
}

// BertProcessing's and RobertaProcessing's ["[SEP]", 102].
TemplateItem readNamedId(const JsonText& text, const QJsonObject& o, const JsonPath& path,
                         const char* key) {
    const QJsonArray pair = o.value(QLatin1String(key)).toArray();
    const double id = pair.at(1).toDouble(-1);
    if (pair.size() != 2 || !pair.at(0).isString() || !(id >= 0 && id < kMaxTokenizerIds) ||
        id != static_cast<int>(id)) {
        text.fail(jsonChild(path, QLatin1String(key)),
                  QStringLiteral("\"%1\" is %2, not a token and its id such as [\"[SEP]\", 102]")
                      .arg(QLatin1String(key), describeJsonValue(o.value(QLatin1String(key)))));
    }
    TemplateItem item;
    item.name = pair.at(0).toString();
    item.ids = {static_cast<int>(id)};
    return item;
}

TemplateItem textItem(int sequence, int typeId) {
    TemplateItem item;
    item.sequence = sequence;
    item.typeId = typeId;
    return item;
}

TemplateItem special(const TemplateItem& token, int typeId) {
    TemplateItem item = token;
    item.typeId = typeId;
    return item;
}

}  // namespace

void readTemplateProcessing(const JsonText& text, const QJsonObject& o, const JsonPath& path,
                            BpeBuilder* b) {
    TemplateSpec spec;
    spec.single = readTemplateList(text, o, path, "single");
    spec.pair = readTemplateList(text, o, path, "pair");
    b->templ = spec;
    b->templateAt = [&text, path] { return text.where(path); };
}

namespace {

// BERT's "[CLS] A [SEP]" / "[CLS] A [SEP] B:1 [SEP]:1", or RoBERTa's "<s> A </s>" /
// "<s> A </s></s> B </s>", all type 0: RoBERTa has no token type embeddings to speak of.
TemplateSpec clsSepTemplate(const TemplateItem& cls, const TemplateItem& sep, bool roberta) {
    TemplateSpec spec;
    spec.always = true;
    spec.single = {special(cls, 0), textItem(0, 0), special(sep, 0)};
    if (roberta)
        spec.pair = {special(cls, 0), textItem(0, 0), special(sep, 0),
                     special(sep, 0), textItem(1, 0), special(sep, 0)};
    else
        spec.pair = {special(cls, 0), textItem(0, 0), special(sep, 0), textItem(1, 1),
                     special(sep, 1)};
    return spec;
}

TemplateSpec clsSepTemplate(const QString& cls, const QString& sep, bool roberta) {
    TemplateItem c;
    c.name = cls;
    TemplateItem s;
    s.name = sep;
    return clsSepTemplate(c, s, roberta);
}

}  // namespace

void readBertOrRobertaProcessing(const JsonText& text, const QJsonObject& o, const JsonPath& path,
                                 bool roberta, BpeBuilder* b) {
    const TemplateItem sep = readNamedId(text, o, path, "sep");
    const TemplateItem cls = readNamedId(text, o, path, "cls");
    if (roberta) {
        b->bosToken = cls.name;
        b->eosToken = sep.name;
    }
    b->templ = clsSepTemplate(cls, sep, roberta);
    b->templateAt = [&text, path] { return text.where(path); };
}

BpeBuilder::TemplateSpec bertTemplate(const QString& cls, const QString& sep) {
    return clsSepTemplate(cls, sep, false);
}

BpeBuilder::TemplateSpec robertaTemplate(const QString& cls, const QString& sep) {
    return clsSepTemplate(cls, sep, true);
}

void BpeBuilder::fillTemplate(Tokenizer& t, const std::unordered_map<QString, int>& ids) const {
    if (!templ || !(templ->always || wordPiece)) {
        return;
    }
    const auto resolve = [&](const std::vector<TemplateItem>& items) {
        std::vector<Tokenizer::TemplatePiece> out;
        for (const TemplateItem& item : items) {
            Tokenizer::TemplatePiece piece{item.sequence, item.ids, item.typeId};
            if (item.sequence < 0 && piece.ids.empty()) {
                const auto addedIt = std::find_if(
                    this->added.begin(), this->added.end(),
                    [&](const Tokenizer::AddedToken& a) { return a.content == item.name; });
                const auto it = ids.find(item.name);
                if (addedIt != this->added.end()) {
                    piece.ids = {addedIt->id};
                } else if (it != ids.end()) {
                    piece.ids = {it->second};
                }
            }
            for (const int id : piece.ids) {
                if (id >= t.vocabSize() || t.tokens_[static_cast<std::size_t>(id)].isNull()) {
                    throw JsonError{QStringLiteral("%1: the template's special token %2 (id %3) "
                                                   "is not in the vocabulary; the tokenizer files "
                                                   "must come from one model")
                                        .arg(templateAt(), quotedForMessage(item.name))
                                        .arg(id)};
                }
            }
            if (item.sequence < 0 && piece.ids.empty()) {
                throw JsonError{QStringLiteral("%1: the template's special token %2 is not in the "
                                               "vocabulary; add it (BERT's are [CLS] and [SEP])")
                                    .arg(templateAt(), quotedForMessage(item.name))};
            }
            out.push_back(piece);
        }
        return out;
    };
    t.single_ = resolve(templ->single);
    t.pair_ = resolve(templ->pair);
    // BOS and EOS as the template puts them, so that addsBos and addsEos tell the truth.
    const auto& s = t.single_;
    t.addBos_ = t.bos_ && !s.empty() && s.front().sequence < 0 && s.front().ids.size() == 1 &&
                s.front().ids[0] == *t.bos_;
    t.addEos_ = t.eos_ && !s.empty() && s.back().sequence < 0 && s.back().ids.size() == 1 &&
                s.back().ids[0] == *t.eos_;
}

TokenizedInput Tokenizer::encodeInput(QStringView text, std::optional<QStringView> pair) const {
    TokenizedInput in;
    const auto append = [&in](const std::vector<int>& ids, int typeId, int segment) {
        in.ids.insert(in.ids.end(), ids.begin(), ids.end());
        in.typeIds.insert(in.typeIds.end(), ids.size(), typeId);
        in.segments.insert(in.segments.end(), ids.size(), segment);
    };
    const std::vector<TemplatePiece>& pieces = pair && !pair_.empty() ? pair_ : single_;
    if (pieces.empty()) {
        if (addBos_ && bos_) {
            append({*bos_}, 0, 0);
        }
        append(encode(text), 0, 0);
        if (addEos_ && eos_) {
            append({*eos_}, 0, 0);
        }
    } else {
        const std::vector<int> texts[2] = {
            encode(text), pair && !pair_.empty() ? encode(*pair) : std::vector<int>{}};
        // A special token belongs to the text beside it; of a run between the two texts
        // ("</s></s>"), the first half to the first text and the rest to the second.
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            const TemplatePiece& p = pieces[i];
            if (p.sequence >= 0) {
                append(texts[p.sequence], p.typeId, p.sequence);
                continue;
            }
            std::size_t first = i;
            while (first > 0 && pieces[first - 1].sequence < 0) --first;
            std::size_t last = i;
            while (last + 1 < pieces.size() && pieces[last + 1].sequence < 0) ++last;
            const int before = first > 0 ? pieces[first - 1].sequence : -1;
            const int after = last + 1 < pieces.size() ? pieces[last + 1].sequence : -1;
            const std::size_t run = last - first + 1;
            const int segment = before < 0                  ? after
                                : after < 0                 ? before
                                : i - first < (run + 1) / 2 ? before
                                                            : after;
            append(p.ids, p.typeId, std::max(segment, 0));
        }
    }
    if (pair && pair_.empty()) {
        append(encode(*pair), 0, 1);
    }
    return in;
}

std::vector<int> Tokenizer::encodeForModel(QStringView text) const { return encodeInput(text).ids; }

bool Tokenizer::hasPairTemplate() const { return !pair_.empty(); }

std::optional<int> Tokenizer::namedId(std::initializer_list<const char*> names) const {
    for (const char* name : names) {
        for (const AddedToken& a : added_)
            if (a.content == QLatin1String(name)) return a.id;
    }
    for (const char* name : names) {
        if (const int id = idOf_.value(QByteArray(name), -1); id >= 0) {
            return id;
        }
    }
    return std::nullopt;
}

std::optional<int> Tokenizer::maskId() const { return namedId({"[MASK]", "<mask>"}); }

std::optional<int> Tokenizer::padId() const { return namedId({"[PAD]", "<pad>"}); }

bool Tokenizer::isSpecial(int id) const {
    // The unknown and the mask token stand for text (the mask for the word the model fills
    // in), so the views keep them.
    if (id < 0 || id >= vocabSize() || (unk_ && id == *unk_) || id == maskId()) {
        return false;
    }
    for (const auto* pieces : {&single_, &pair_})
        for (const TemplatePiece& p : *pieces)
            if (std::find(p.ids.begin(), p.ids.end(), id) != p.ids.end()) return true;
    if ((addBos_ && bos_ && id == *bos_) || (addEos_ && eos_ && id == *eos_)) {
        return true;
    }
    return std::any_of(added_.begin(), added_.end(),
                       [id](const AddedToken& a) { return a.id == id && a.special; });
}

}  // namespace attn
