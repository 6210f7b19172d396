// A GGUF file's embedded vocabulary as a Tokenizer, following llama.cpp's src/llama-vocab.cpp:
// "llama" vocabularies are SentencePiece's (merged by score, byte fallback, a leading "▁"),
// "gpt2" ones byte-level BPE whose words are cut by the patterns llama.cpp picks for
// tokenizer.ggml.pre.
#include <QStringList>
#include <algorithm>
#include <queue>

#include "app/io/bpe_builder.h"
#include "app/io/json_locator.h"
#include "app/io/tokenizer.h"

namespace attn {

namespace {

// ggml's token types.
constexpr int kTypeNormal = 1;
constexpr int kTypeUnknown = 2;
constexpr int kTypeControl = 3;
constexpr int kTypeUserDefined = 4;

const char kGpt2Pattern[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)";
const char kLlama3Pattern[] =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
    "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char kQwen2Pattern[] =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
    "\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

struct PreType {
    QStringList names;
    QStringList patterns;  // applied one after the other, each cutting the words further
    bool ignoreMerges;
    bool addBos;  // llama.cpp's default when the file does not say
};

const std::vector<PreType>& preTypes() {
    static const std::vector<PreType> types = {
        {{"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2"},
         {kLlama3Pattern},
         true,
         true},
        {{"smaug-bpe", "dbrx"}, {kLlama3Pattern}, false, false},
        {{"qwen2", "deepseek-r1-qwen", "megrez", "stablelm2", "hunyuan"},
         {kQwen2Pattern},
         false,
         false},
        {{"smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva-7b"},
         {"\\p{N}", kGpt2Pattern},
         false,
         false},
        {{"gpt-2", "phi-2", "jina-es", "jina-de", "jina-v2-es", "jina-v2-de", "jina-v2-code",
          "roberta-bpe", "gigachat", "mpt", "olmo", "jais", "trillion", "granite-docling"},
         {kGpt2Pattern},
         false,
         false},
        {{"default", ""},
         {"[\\p{P}\\$\\+<=>\\^~\\|]+", kGpt2Pattern, "\\p{N}+", "[0-9][0-9][0-9]"},
         false,
         false},
    };
    return types;
}

[[noreturn]] void fail(const QString& text) {
    throw JsonError{QStringLiteral("the GGUF tokenizer: ") + text};
}

int typeOf(const GgufVocab& v, std::size_t i) {
    return v.tokenTypes.empty() ? kTypeNormal : v.tokenTypes[i];
}

// The counts agree, and the special ids name tokens.
void checkVocab(const GgufVocab& v) {
    const std::size_t n = static_cast<std::size_t>(v.tokens.size());
    if (n == 0 || n > static_cast<std::size_t>(kMaxTokenizerIds)) {
        fail(QStringLiteral("tokenizer.ggml.tokens holds %1 tokens; a vocabulary has 1 to %2")
                 .arg(n)
                 .arg(kMaxTokenizerIds));
    }
    if (!v.scores.empty() && v.scores.size() != n) {
        fail(QStringLiteral("tokenizer.ggml.scores has %1 scores for %2 tokens; the file is "
                            "damaged")
                 .arg(v.scores.size())
                 .arg(n));
    }
    if (!v.tokenTypes.empty() && v.tokenTypes.size() != n) {
        fail(QStringLiteral("tokenizer.ggml.token_type has %1 types for %2 tokens; the file is "
                            "damaged")
                 .arg(v.tokenTypes.size())
                 .arg(n));
    }
    for (const auto& [name, id] : {std::pair{"bos", v.bos}, std::pair{"eos", v.eos},
                                   std::pair{"unknown", v.unk}, std::pair{"padding", v.pad}}) {
        if (id && (*id < 0 || static_cast<std::size_t>(*id) >= n)) {
            fail(QStringLiteral("the %1 token id %2 is not in the vocabulary (ids 0 to %3)")
                     .arg(QLatin1String(name))
                     .arg(*id)
                     .arg(n - 1));
        }
    }
}

// The steps llama.cpp takes for a "llama" vocabulary: spaces as "▁", one more in front of each
// section of text (add_space_prefix), and back.
tok::Pipeline sentencePiecePipeline(bool addSpacePrefix) {
    tok::Pipeline p;
    const QString metaspace{QChar(tok::kSpaceMark)};
    tok::NormalizerStep replace;
    replace.kind = tok::NormalizerStep::Kind::kReplace;
    replace.replace = {QStringLiteral(" "), nullptr, metaspace};
    p.normalizers.push_back(replace);
    if (addSpacePrefix) {
        tok::NormalizerStep prepend;
        prepend.kind = tok::NormalizerStep::Kind::kPrepend;
        prepend.prepend = metaspace;
        p.normalizers.push_back(prepend);
    }
    tok::DecoderStep space;
    space.kind = tok::DecoderStep::Kind::kReplace;
    space.replace = {metaspace, nullptr, QStringLiteral(" ")};
    p.decoders.push_back(space);
    for (const auto kind : {tok::DecoderStep::Kind::kByteFallback, tok::DecoderStep::Kind::kFuse}) {
        tok::DecoderStep step;
        step.kind = kind;
        p.decoders.push_back(step);
    }
    if (addSpacePrefix) {
        tok::DecoderStep strip;
        strip.kind = tok::DecoderStep::Kind::kStrip;
        strip.strip = QStringLiteral(" ");
        strip.start = 1;
        p.decoders.push_back(strip);
    }
    return p;
}

// The byte-level steps for `pre`: its patterns, then bytes.
tok::Pipeline byteLevelPipeline(const PreType& type) {
    tok::Pipeline p;
    for (const QString& pattern : type.patterns) {
        QString error;
        tok::PreTokenizerStep split;
        split.regex = tok::compilePattern(pattern, &error);
        p.preTokenizers.push_back(split);
    }
    tok::PreTokenizerStep byteLevel;
    byteLevel.kind = tok::PreTokenizerStep::Kind::kByteLevel;
    p.preTokenizers.push_back(byteLevel);
    p.byteLevel = true;
    p.decoders.push_back({});
    return p;
}

}  // namespace

struct GgufBuilder {
    static TokenizerLoadResult build(const GgufVocab& v);
};

TokenizerLoadResult GgufBuilder::build(const GgufVocab& v) {
    checkVocab(v);
    const bool llama = v.model == "llama";
    if (!llama && v.model != "gpt2") {
        fail(QStringLiteral("tokenizer.ggml.model %1 is not read: this program reads \"llama\" "
                            "(SentencePiece) and \"gpt2\" (byte-level BPE) vocabularies")
                 .arg(quotedForMessage(QString::fromUtf8(v.model))));
    }
    BpeBuilder b;
    const PreType* pre = nullptr;
    if (llama) {
        if (v.scores.empty()) {
            fail(QStringLiteral("a \"llama\" vocabulary needs tokenizer.ggml.scores"));
        }
        b.pipeline = sentencePiecePipeline(v.addSpacePrefix.value_or(true));
        b.byteFallback = true;
    } else {
        const QString name = QString::fromUtf8(v.pre);
        for (const PreType& t : preTypes())
            if (t.names.contains(name)) pre = &t;
        if (pre == nullptr) {
            fail(QStringLiteral("tokenizer.ggml.pre %1 is not read: this program knows the "
                                "pre-tokenizers of llama-bpe, qwen2, smollm, gpt-2, default and "
                                "their kin")
                     .arg(quotedForMessage(name)));
        }
        b.pipeline = byteLevelPipeline(*pre);
        b.ignoreMerges = pre->ignoreMerges;
        for (qsizetype i = 0; i < v.merges.size(); ++i) {
            const auto merge = splitMerge(QString::fromUtf8(v.merges[i]));
            if (!merge) {
                fail(QStringLiteral("merge %1 is %2, not two tokens separated by one space")
                         .arg(i + 1)
                         .arg(quotedForMessage(QString::fromUtf8(v.merges[i]))));
            }
            b.merges.push_back(*merge);
        }
    }
    for (qsizetype i = 0; i < v.tokens.size(); ++i) {
        const QString token = QString::fromUtf8(v.tokens[i]);
        const int type = typeOf(v, static_cast<std::size_t>(i));
        const int id = static_cast<int>(i);
        // llama.cpp splits these out of the text (the unknown token too, as Hugging Face does).
        if ((type == kTypeControl || type == kTypeUserDefined || type == kTypeUnknown) &&
            !token.isEmpty()) {
            b.added.push_back({token, id});
        } else {
            b.vocab.push_back({token, id});
        }
    }
    b.tokenAt = [](const QString& t) {
        return QStringLiteral("the GGUF tokenizer (the token %1)").arg(quotedForMessage(t));
    };
    b.vocabAt = [] { return QStringLiteral("the GGUF tokenizer (tokenizer.ggml.tokens)"); };
    b.mergeAt = [](qsizetype i) {
        return QStringLiteral("the GGUF tokenizer (tokenizer.ggml.merges, merge %1)").arg(i + 1);
    };
    b.addedAt = [](qsizetype i) { return QStringLiteral("the GGUF tokenizer (token %1)").arg(i); };
    std::shared_ptr<Tokenizer> t = b.build();
    const std::size_t n = static_cast<std::size_t>(v.tokens.size());
    if (llama) {
        t->scores_ = v.scores;
        t->mergeable_.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const int type = typeOf(v, i);
            t->mergeable_[i] = type == kTypeNormal || type == kTypeUserDefined || type == 0;
        }
    }
    std::optional<int> unk = v.unk;
    for (std::size_t i = 0; !unk && i < v.tokenTypes.size(); ++i)
        if (v.tokenTypes[i] == kTypeUnknown) unk = static_cast<int>(i);
    t->unk_ = unk;
    t->bos_ = v.bos;
    t->eos_ = v.eos;
    t->addBos_ = v.bos && v.addBos.value_or(llama || (pre != nullptr && pre->addBos));
    t->addEos_ = v.eos && v.addEos.value_or(false);
    return {t, {}};
}

TokenizerLoadResult Tokenizer::fromGgufVocab(const GgufVocab& vocab) {
    try {
        return GgufBuilder::build(vocab);
    } catch (const JsonError& failure) {
        return {nullptr, failure.message};
    }
}

void Tokenizer::mergeByScore(const QString& word, std::vector<int>& out) const {
    // llama.cpp's llm_tokenizer_spm (and SentencePiece's BPE): start from the characters, and
    // join the adjacent pair whose text is a token with the highest score, leftmost among
    // equals, until no pair is a token. Stale heap entries (a side since merged) are skipped.
    const QByteArray utf8 = word.toUtf8();
    struct Symbol {
        qsizetype start;
        qsizetype size;
        std::ptrdiff_t prev;
        std::ptrdiff_t next;
    };
    std::vector<Symbol> sym;
    for (qsizetype i = 0; i < utf8.size();) {
        char32_t c = 0;
        const int len = std::max(utf8SequenceAt(utf8, i, &c), 1);
        const auto k = static_cast<std::ptrdiff_t>(sym.size());
        sym.push_back({i, len, k - 1, i + len < utf8.size() ? k + 1 : -1});
        i += len;
    }
    struct Bigram {
        float score;
        std::ptrdiff_t left;
        std::ptrdiff_t right;
        qsizetype size;
        bool operator<(const Bigram& o) const {
            return score != o.score ? score < o.score : left > o.left;
        }
    };
    std::priority_queue<Bigram> heap;
    const auto tryPair = [&](std::ptrdiff_t l, std::ptrdiff_t r) {
        if (l < 0 || r < 0) {
            return;
        }
        const Symbol& a = sym[static_cast<std::size_t>(l)];
        const qsizetype size = a.size + sym[static_cast<std::size_t>(r)].size;
        const auto it = idOf_.constFind(utf8.mid(a.start, size));
        if (it != idOf_.constEnd() && mergeable_[static_cast<std::size_t>(*it)]) {
            heap.push({scores_[static_cast<std::size_t>(*it)], l, r, size});
        }
    };
    for (std::size_t i = 1; i < sym.size(); ++i) {
        tryPair(static_cast<std::ptrdiff_t>(i - 1), static_cast<std::ptrdiff_t>(i));
    }
    while (!heap.empty()) {
        const Bigram top = heap.top();
        heap.pop();
        Symbol& a = sym[static_cast<std::size_t>(top.left)];
        Symbol& b = sym[static_cast<std::size_t>(top.right)];
        if (a.size == 0 || b.size == 0 || a.size + b.size != top.size) {
            continue;
        }
        a.size += b.size;
        b.size = 0;
        a.next = b.next;
        if (b.next >= 0) {
            sym[static_cast<std::size_t>(b.next)].prev = top.left;
        }
        tryPair(a.prev, top.left);
        tryPair(top.left, a.next);
    }
    for (std::ptrdiff_t i = sym.empty() ? -1 : 0; i >= 0;
         i = sym[static_cast<std::size_t>(i)].next) {
        const Symbol& s = sym[static_cast<std::size_t>(i)];
        const QByteArray text = utf8.mid(s.start, s.size);
        if (const auto it = idOf_.constFind(text); it != idOf_.constEnd()) {
            out.push_back(*it);
            continue;
        }
        // Not a token: a character the vocabulary lacks, as its bytes' "<0xE6>" tokens.
        for (const char byte : text) {
            const int id = byteToken_[static_cast<unsigned char>(byte)];
            if (id >= 0) {
                out.push_back(id);
            } else if (unk_) {
                out.push_back(*unk_);
            }
        }
    }
}

}  // namespace attn
