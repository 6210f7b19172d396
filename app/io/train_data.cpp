// Texts, tokenizers and saving for training (app/io/train_data.h).
#include "app/io/train_data.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringDecoder>
#include <algorithm>
#include <set>

#include "app/io/atomic_file.h"
#include "app/io/bpe_bytes.h"
#include "app/io/json_locator.h"
#include "app/io/json_text.h"
#include "app/io/safetensors_writer.h"

namespace attn {

namespace {

constexpr qint64 kMaxTrainTextBytes = qint64{64} << 20;  // 64 MiB

// The byte-level string of some bytes: each byte as GPT-2's printable symbol for it.
QString byteLevelString(const QByteArray& bytes) {
    const bpe::ByteMap& map = bpe::byteMap();
    QString out;
    for (const char b : bytes) out.append(QChar(map.toChar[static_cast<unsigned char>(b)]));
    return out;
}

// vocab.json and merges.txt of a vocabulary with one token per character: `characters` get
// `firstId`, `firstId` + 1, ... in the given order; the bytes of a multi-byte character and the
// prefixes its merges pass through get ids after them (a byte-level BPE can only join tokens
// that exist), each once; "<|endoftext|>" gets `endOfTextId`, or the id after all of them when
// negative.
std::shared_ptr<const Tokenizer> oneTokenPerCharacter(const std::vector<char32_t>& characters,
                                                      int firstId, int endOfTextId) {
    QJsonObject vocab;
    int next = firstId;
    std::vector<QByteArray> utf8;
    for (char32_t c : characters) {
        QByteArray bytes;
        bpe::appendUtf8(bytes, c);
        vocab.insert(byteLevelString(bytes), next++);
        utf8.push_back(bytes);
    }
    QByteArray merges("#version: 0.2\n");
    std::set<QString> mergesSeen;
    for (const QByteArray& bytes : utf8) {
        if (bytes.size() < 2) continue;
        // "ä ¸" then "ä¸ Ń": each step joins the prefix so far and the next byte.
        for (qsizetype k = 0; k < bytes.size(); ++k) {
            for (const QString& part :
                 {byteLevelString(bytes.mid(k, 1)), byteLevelString(bytes.left(k + 1))}) {
                if (!vocab.contains(part)) vocab.insert(part, next++);
            }
            if (k == 0) continue;
            const QString merge = byteLevelString(bytes.left(k)) + QLatin1Char(' ') +
                                  byteLevelString(bytes.mid(k, 1));
            if (mergesSeen.insert(merge).second) merges += merge.toUtf8() + '\n';
        }
    }
    vocab.insert(QLatin1String(kEndOfTextToken), endOfTextId >= 0 ? endOfTextId : next);
    TokenizerLoadResult loaded =
        Tokenizer::fromVocabAndMerges(QJsonDocument(vocab).toJson(QJsonDocument::Compact), merges);
    if (!loaded.ok())
        throw AttentionError("the training tokenizer could not be built: " +
                             loaded.error.toStdString());
    return loaded.tokenizer;
}

// The induction alphabet: a-z, A-Z, 0-9, then ASCII punctuation in code point order.
std::vector<char32_t> inductionAlphabet() {
    std::vector<char32_t> out;
    for (char32_t c = U'a'; c <= U'z'; ++c) out.push_back(c);
    for (char32_t c = U'A'; c <= U'Z'; ++c) out.push_back(c);
    for (char32_t c = U'0'; c <= U'9'; ++c) out.push_back(c);
    for (char32_t c = U'!'; c <= U'~'; ++c)
        if (!(c >= U'a' && c <= U'z') && !(c >= U'A' && c <= U'Z') && !(c >= U'0' && c <= U'9'))
            out.push_back(c);
    return out;
}

QJsonValue floatValue(float value) { return formatFloat(value).toDouble(); }

// GPT2Config's keys, as transformers writes them (sorted), for a trained model.
QByteArray gpt2ConfigJson(const TransformerSpec& s, const Tokenizer& tokenizer) {
    QJsonObject o;
    o.insert(QStringLiteral("model_type"), QStringLiteral("gpt2"));
    o.insert(QStringLiteral("architectures"), QJsonArray{QStringLiteral("GPT2LMHeadModel")});
    o.insert(QStringLiteral("n_layer"), static_cast<qint64>(s.num_layers));
    o.insert(QStringLiteral("n_head"), static_cast<qint64>(s.num_heads));
    o.insert(QStringLiteral("n_embd"), static_cast<qint64>(s.d_model));
    o.insert(QStringLiteral("n_positions"), static_cast<qint64>(s.max_positions));
    o.insert(QStringLiteral("n_ctx"), static_cast<qint64>(s.max_positions));
    o.insert(QStringLiteral("n_inner"), static_cast<qint64>(s.d_ff));
    o.insert(QStringLiteral("vocab_size"), static_cast<qint64>(s.vocab_size));
    o.insert(QStringLiteral("activation_function"), QStringLiteral("gelu_new"));
    o.insert(QStringLiteral("layer_norm_epsilon"), floatValue(s.norm_eps));
    o.insert(QStringLiteral("initializer_range"), 0.02);
    // Trained without dropout.
    for (const char* key : {"attn_pdrop", "embd_pdrop", "resid_pdrop"})
        o.insert(QLatin1String(key), 0.0);
    if (const std::optional<int> eot = tokenizer.endOfTextId()) {
        o.insert(QStringLiteral("bos_token_id"), *eot);
        o.insert(QStringLiteral("eos_token_id"), *eot);
    }
    o.insert(QStringLiteral("tie_word_embeddings"), s.tied_output);
    o.insert(QStringLiteral("torch_dtype"), QStringLiteral("float32"));
    if (s.attn_only) o.insert(QStringLiteral("attn_only"), true);
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

// The names GPT2LMHeadModel's save_pretrained writes: the base model's under "transformer.";
// a tied output head is the token embedding and is not written again.
std::vector<SafetensorsTensorToWrite> safetensorsTensors(const ModelParameters& params) {
    const QString prefix = QString::fromStdString(lm_head_prefix(params.spec.family));
    std::vector<SafetensorsTensorToWrite> out;
    out.reserve(params.tensors.size());
    for (const ParameterTensor& t : params.tensors) {
        SafetensorsTensorToWrite w;
        w.name = (t.entry.prefixed ? prefix : QString()) + QString::fromStdString(t.name());
        w.dtype = QStringLiteral("F32");
        w.shape.assign(t.entry.shape.begin(), t.entry.shape.end());
        const float* data = params.data(t);
        w.values.assign(data, data + t.size());
        out.push_back(std::move(w));
    }
    return out;
}

}  // namespace

QString bundledTextName() { return QStringLiteral("the-verdict.txt"); }

QString bundledText() {
    QFile file(QStringLiteral(":/texts/") + bundledTextName());
    if (!file.open(QIODevice::ReadOnly)) return {};  // only a broken build lacks it
    return QString::fromUtf8(file.readAll());
}

TrainTextResult readTrainText(const QString& path) {
    auto fail = [&path](const QString& problem) {
        TrainTextResult r;
        r.error = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path), problem);
        return r;
    };
    const QFileInfo info(path);
    if (!info.exists()) return fail(QStringLiteral("no such file: give the path of a text file"));
    if (info.isDir()) return fail(QStringLiteral("is a folder: give a text file in it"));
    if (info.size() > kMaxTrainTextBytes)
        return fail(QStringLiteral("%1 MiB is more than the %2 MiB a training text may have: give "
                                   "a shorter text")
                        .arg(info.size() >> 20)
                        .arg(kMaxTrainTextBytes >> 20));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(
            QStringLiteral("cannot be read (%1): check its permissions").arg(file.errorString()));
    // Read one byte past the limit: a file that grew since it was measured is still refused.
    const QByteArray bytes = file.read(kMaxTrainTextBytes + 1);
    if (file.error() != QFileDevice::NoError)
        return fail(QStringLiteral("cannot be read (%1)").arg(file.errorString()));
    if (bytes.size() > kMaxTrainTextBytes)
        return fail(QStringLiteral("more than the %1 MiB a training text may have: give a shorter "
                                   "text")
                        .arg(kMaxTrainTextBytes >> 20));
    if (bytes.isEmpty()) return fail(QStringLiteral("the file is empty: give a text to train on"));
    // Stateless: a character cut off at the end is an error, not bytes kept for a next chunk.
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    TrainTextResult result;
    result.text = decoder.decode(bytes);
    if (decoder.hasError()) {
        const qsizetype offset = std::max<qsizetype>(firstInvalidUtf8(bytes), 0);
        return fail(QStringLiteral("byte %1 (%2) is not UTF-8: save the text as UTF-8 (plain "
                                   "text, Unicode)")
                        .arg(offset)
                        .arg(positionText(textPosition(bytes, offset))));
    }
    if (result.text.isEmpty())
        return fail(QStringLiteral("the file is empty: give a text to train on"));
    return result;
}

std::shared_ptr<const Tokenizer> characterTokenizer(const QString& text) {
    std::set<char32_t> seen;
    // toUcs4 gives U+FFFD for an unpaired surrogate, as encode() does.
    for (const char32_t c : text.toUcs4()) seen.insert(c);
    return oneTokenPerCharacter(std::vector<char32_t>(seen.begin(), seen.end()), 0, -1);
}

int maxInductionVocab() { return 1 + static_cast<int>(inductionAlphabet().size()); }

std::shared_ptr<const Tokenizer> inductionTokenizer(int vocabSize) {
    if (vocabSize < 2 || vocabSize > maxInductionVocab())
        throw AttentionError("the induction vocabulary is " + std::to_string(vocabSize) +
                             " tokens: give 2 to " + std::to_string(maxInductionVocab()) +
                             " (BOS and the printable ASCII characters)");
    std::vector<char32_t> alphabet = inductionAlphabet();
    alphabet.resize(static_cast<std::size_t>(vocabSize - 1));
    return oneTokenPerCharacter(alphabet, 1, 0);
}

bool saveGpt2Folder(const QString& folder, const ModelParameters& params,
                    const Tokenizer& tokenizer, QString* error) {
    const QDir dir(folder);
    auto fail = [&](const QString& file, const QString& problem) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(
                QDir::toNativeSeparators(file.isEmpty() ? folder : dir.filePath(file)), problem);
        return false;
    };
    const QString fix = QStringLiteral(": choose a folder you can write to");
    if (tokenizer.vocabSize() > params.spec.vocab_size)
        return fail(QString(), QStringLiteral("the tokenizer has %1 ids but the model only %2 "
                                              "tokens: train with the tokenizer's vocabulary")
                                   .arg(tokenizer.vocabSize())
                                   .arg(params.spec.vocab_size));
    if (!QDir().mkpath(folder)) return fail(QString(), QStringLiteral("cannot create it") + fix);
    QString reason;
    const QByteArray weights = serializeSafetensors(
        safetensorsTensors(params), {{QStringLiteral("format"), QStringLiteral("pt")}}, &reason);
    if (weights.isEmpty()) return fail(QStringLiteral("model.safetensors"), reason);
    const std::pair<const char*, QByteArray> files[] = {
        {"config.json", gpt2ConfigJson(params.spec, tokenizer)},
        {"model.safetensors", weights},
        {"vocab.json", tokenizer.vocabJson()},
        {"merges.txt", tokenizer.mergesTxt()},
    };
    for (const auto& [name, bytes] : files) {
        const QString file = QLatin1String(name);
        if (!writeFileAtomically(dir.filePath(file), bytes, &reason))
            return fail(file, reason + fix);
    }
    return true;
}

}  // namespace attn
