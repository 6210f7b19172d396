// attention-cli tokenize / forward / generate: a model from a Hugging Face folder (or a name
// found in the Hugging Face cache), its tokenizer, its forward pass and KV-cached generation
// through the one transformer core (model/transformer.h, model/generator.h).
#include "app/cli/cli_model.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "app/cli/cli_command.h"
#include "app/io/hf_cache.h"
#include "app/io/json_text.h"
#include "app/io/model_folder.h"
#include "app/io/model_store.h"
#include "app/io/tokenizer.h"
#include "model/generator.h"
#include "model/transformer.h"

namespace {

const QString kModelHelp = QStringLiteral(
    "A Hugging Face model folder (GPT-2, Llama, Mistral, Qwen2, Qwen3: config.json, "
    "model.safetensors or its index and shards, tokenizer.json or vocab.json + merges.txt), a "
    ".gguf file, ollama:NAME[:TAG] from Ollama's store, or a model name found in the Hugging "
    "Face cache (e.g. gpt2, Qwen/Qwen2.5-0.5B). attention-cli models lists them.");

QJsonArray jsonIds(const std::vector<int>& ids) {
    QJsonArray out;
    for (int id : ids) out.append(id);
    return out;
}

QJsonArray jsonTokens(const attn::Tokenizer& tokenizer, const std::vector<int>& ids) {
    QJsonArray out;
    for (int id : ids) out.append(tokenizer.token(id));
    return out;
}

QString textOption(const QCommandLineParser& parser) {
    if (!parser.isSet(QStringLiteral("text")))
        cliFail(QStringLiteral("give --text TEXT, the text to run the model on"));
    const QString text = parser.value(QStringLiteral("text"));
    if (text.isEmpty()) cliFail(QStringLiteral("--text is empty: give at least one character"));
    return text;
}

// "--ids 1,2,3": every id a whole number inside the vocabulary.
std::vector<int> idsOption(const QCommandLineParser& parser, int vocabSize) {
    const QString text = parser.value(QStringLiteral("ids"));
    std::vector<int> ids;
    for (const QString& item : text.split(QLatin1Char(','))) {
        bool ok = false;
        const qlonglong id = item.trimmed().toLongLong(&ok);
        if (!ok)
            cliFail(QStringLiteral("--ids \"%1\": \"%2\" is not a whole number: give token ids "
                                   "separated by commas, e.g. --ids 15496,11,995")
                        .arg(text, item));
        if (id < 0 || id >= vocabSize)
            cliFail(QStringLiteral("--ids: id %1 is outside the vocabulary (0 .. %2)")
                        .arg(id)
                        .arg(vocabSize - 1));
        ids.push_back(static_cast<int>(id));
    }
    return ids;
}

// GPT-2's config.json names for every family's sizes (n_head: query heads), plus the grouped
// K/V heads, the head width and the rotary base where the family has them.
QJsonObject modelJson(const attn::TransformerWeights& weights) {
    const attn::TransformerSpec& s = weights.spec;
    QJsonObject model;
    model.insert(QStringLiteral("model_type"), QString::fromStdString(attn::family_name(s.family)));
    model.insert(QStringLiteral("n_layer"), static_cast<qint64>(s.num_layers));
    model.insert(QStringLiteral("n_head"), static_cast<qint64>(s.num_heads));
    model.insert(QStringLiteral("n_embd"), static_cast<qint64>(s.d_model));
    model.insert(QStringLiteral("vocab_size"), static_cast<qint64>(s.vocab_size));
    model.insert(QStringLiteral("n_positions"), static_cast<qint64>(s.max_positions));
    model.insert(QStringLiteral("num_key_value_heads"), static_cast<qint64>(s.num_kv_heads));
    model.insert(QStringLiteral("head_dim"), static_cast<qint64>(s.head_dim));
    if (s.positions == attn::PositionKind::Rotary)
        model.insert(QStringLiteral("rope_theta"), static_cast<double>(s.rope.base));
    if (s.sliding_window > 0)
        model.insert(QStringLiteral("sliding_window"), static_cast<qint64>(s.sliding_window));
    model.insert(QStringLiteral("dtype"), QString::fromStdString(weights.dtype));
    return model;
}

QJsonArray nextTokensJson(const attn::Tokenizer& tokenizer,
                          const std::vector<attn::TopToken>& top) {
    QJsonArray out;
    for (const attn::TopToken& t : top) {
        QJsonObject o;
        o.insert(QStringLiteral("id"), t.id);
        o.insert(QStringLiteral("token"), tokenizer.token(t.id));
        o.insert(QStringLiteral("prob"), attn::jsonNumber(t.prob));
        out.append(o);
    }
    return out;
}

void addModelOption(QCommandLineParser& parser) {
    parser.addOption({QStringLiteral("model"), kModelHelp, QStringLiteral("DIR|NAME")});
}

}  // namespace

std::vector<int> encodeModelText(const ModelFolder& model, const QString& text) {
    std::vector<int> ids = model.tokenizer->encodeForModel(text);
    if (ids.empty()) cliFail(QStringLiteral("--text gives no tokens: give some text"));
    return ids;
}

void addTextPairOption(QCommandLineParser& parser) {
    parser.addOption({QStringLiteral("text-pair"),
                      QStringLiteral("Encoders (BERT, RoBERTa): a second text, fed as a pair "
                                     "([CLS] A [SEP] B [SEP]; token_type_ids 0 for A, 1 for B)."),
                      QStringLiteral("TEXT")});
}

attn::TokenizedInput encodeModelInput(const QCommandLineParser& parser, const ModelFolder& model) {
    const QString text = textOption(parser);
    if (!parser.isSet(QStringLiteral("text-pair"))) {
        attn::TokenizedInput input = model.tokenizer->encodeInput(text);
        if (input.ids.empty()) cliFail(QStringLiteral("--text gives no tokens: give some text"));
        return input;
    }
    const QString pair = parser.value(QStringLiteral("text-pair"));
    if (!model.tokenizer->hasPairTemplate())
        cliFail(QStringLiteral("--text-pair needs an encoder's tokenizer (BERT, DistilBERT, "
                               "RoBERTa), but %1's has no template for two texts: drop "
                               "--text-pair or open an encoder")
                    .arg(QDir::toNativeSeparators(model.folder)));
    if (pair.isEmpty())
        cliFail(QStringLiteral("--text-pair is empty: give at least one character"));
    return model.tokenizer->encodeInput(text, pair);
}

void checkModelLength(const attn::TransformerSpec& spec, std::size_t tokens) {
    const Eigen::Index limit = attn::max_tokens(spec);
    if (static_cast<Eigen::Index>(tokens) > limit)
        cliFail(QStringLiteral("the text is %1 tokens but the model reads at most %2 tokens: "
                               "give a shorter text")
                    .arg(tokens)
                    .arg(limit));
}

ModelFolder openModelOption(const QCommandLineParser& parser, bool withWeights) {
    if (!parser.isSet(QStringLiteral("model")))
        cliFail(QStringLiteral("give --model DIR|NAME: %1").arg(kModelHelp));
    attn::ModelFolderResult opened =
        attn::openModelFolder(parser.value(QStringLiteral("model")), withWeights);
    if (!opened.ok()) cliFail(opened.error);
    return opened.model;
}

void addTokenizeOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "Split a text into tokens as the model's own tokenizer does: {\"ids\", \"tokens\"}, the\n"
        "ids the model is fed (BOS first when the model adds it), tokens as the vocabulary writes\n"
        "them (GPT-2's \"Ġjourney\": Ġ marks the leading space; SentencePiece's \"▁journey\";\n"
        "WordPiece's \"##ing\" continues a word). Encoders (BERT, DistilBERT, RoBERTa) also give\n"
        "token_type_ids, and take a second text with --text-pair."));
    addModelOption(parser);
    parser.addOption({QStringLiteral("text"), QStringLiteral("The text."), QStringLiteral("TEXT")});
    addTextPairOption(parser);
}

QByteArray runTokenize(const QCommandLineParser& parser) {
    textOption(parser);
    const ModelFolder model = openModelOption(parser, false);
    const attn::TokenizedInput input = encodeModelInput(parser, model);
    attn::OrderedMembers members{
        {QStringLiteral("ids"), jsonIds(input.ids)},
        {QStringLiteral("tokens"), jsonTokens(*model.tokenizer, input.ids)}};
    // Encoders' tokenizers (those with a pair template) give the segment of every token.
    if (model.tokenizer->hasPairTemplate())
        members.emplace_back(QStringLiteral("token_type_ids"), jsonIds(input.typeIds));
    return attn::writeJsonObject(members);
}

void addForwardOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "Run the whole model on a text (or token ids) as Hugging Face's transformers does (GPT-2,\n"
        "Llama, Mistral, Qwen2, Qwen3; the encoders BERT, DistilBERT, RoBERTa), in float32: every\n"
        "layer's and head's attention weights [layer][head][query][key] (a decoder's are zeros\n"
        "above the diagonal) and the five most probable next tokens (none for an encoder).\n"
        "Encoders also print token_type_ids and, with the masked-LM head, mask_predictions: for\n"
        "each [MASK] position its five likeliest fillers. --summary prints only the model, the "
        "token count, the next tokens, the time of\n"
        "the forward pass (loading excluded) and the process's peak memory."));
    addModelOption(parser);
    parser.addOptions({
        {QStringLiteral("text"), QStringLiteral("The text."), QStringLiteral("TEXT")},
        {QStringLiteral("ids"), QStringLiteral("Token ids instead of --text, e.g. 15496,11,995."),
         QStringLiteral("IDS")},
        {QStringLiteral("logits"),
         QStringLiteral("Also print the logits of every position [position][vocab].")},
        {QStringLiteral("summary"),
         QStringLiteral("Print only model, tokens (the count), next_tokens, mask_predictions "
                        "(encoders), elapsed_ms and peak_rss_mb.")},
        repeatOption(),
    });
    addTextPairOption(parser);
}

// For each [MASK] position of an encoder with its masked-LM head: the five likeliest fillers.
QJsonArray maskPredictionsJson(const attn::Tokenizer& tokenizer,
                               const std::vector<attn::MaskPrediction>& predictions) {
    QJsonArray out;
    for (const attn::MaskPrediction& p : predictions)
        out.append(QJsonObject{{QStringLiteral("position"), static_cast<qint64>(p.position)},
                               {QStringLiteral("top"), nextTokensJson(tokenizer, p.top)}});
    return out;
}

// --ids or --text (with --text-pair): what the model is fed.
attn::TokenizedInput forwardInput(const QCommandLineParser& parser, const ModelFolder& model) {
    if (!parser.isSet(QStringLiteral("ids"))) return encodeModelInput(parser, model);
    if (parser.isSet(QStringLiteral("text-pair")))
        cliFail(
            QStringLiteral("--text-pair goes with --text: give --text and --text-pair, or "
                           "--ids alone"));
    attn::TokenizedInput input;
    input.ids = idsOption(parser, static_cast<int>(model.weights->spec.vocab_size));
    input.typeIds.assign(input.ids.size(), 0);
    input.segments.assign(input.ids.size(), 0);
    return input;
}

QByteArray runForward(const QCommandLineParser& parser) {
    const bool byIds = parser.isSet(QStringLiteral("ids"));
    if (byIds == parser.isSet(QStringLiteral("text")))
        cliFail(QStringLiteral("give either --text TEXT or --ids 1,2,3"));
    const bool summary = parser.isSet(QStringLiteral("summary"));
    const bool logits = parser.isSet(QStringLiteral("logits"));
    if (summary && logits)
        cliFail(QStringLiteral("--summary prints no logits: give --summary or --logits"));
    if (!byIds) textOption(parser);
    const int repeats = repeatCount(parser);
    const ModelFolder model = openModelOption(parser, true);
    const attn::TransformerWeights& weights = *model.weights;
    const attn::TransformerSpec& spec = weights.spec;
    const attn::TokenizedInput input = forwardInput(parser, model);
    const std::vector<int>& ids = input.ids;
    checkModelLength(spec, ids.size());
    const bool encoder = attn::is_encoder(spec.family);
    const std::optional<int> maskId = model.tokenizer->maskId();
    const bool fillsMasks = encoder && spec.mlm_head && maskId.has_value();

    attn::ModelForwardOptions options;
    options.keep_attentions = !summary;
    options.all_logits = logits || fillsMasks;
    if (spec.type_vocab_size > 0) options.token_type_ids = input.typeIds;
    QElapsedTimer timer;
    timer.start();
    const attn::ModelForwardResult result = attn::model_forward(weights, ids, options);
    const double elapsed = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    std::vector<double> repeatMs;
    for (int r = 0; r < repeats; ++r) {
        timer.restart();
        [[maybe_unused]] const attn::ModelForwardResult again =
            attn::model_forward(weights, ids, options);
        repeatMs.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    }
    const QJsonArray masks =
        fillsMasks
            ? maskPredictionsJson(*model.tokenizer, attn::mask_predictions(result, ids, *maskId, 5))
            : QJsonArray();

    if (summary) {
        attn::OrderedMembers members{
            {QStringLiteral("model"), modelJson(weights)},
            {QStringLiteral("tokens"), static_cast<qint64>(ids.size())},
            {QStringLiteral("next_tokens"), nextTokensJson(*model.tokenizer, result.top_tokens)}};
        if (fillsMasks) members.emplace_back(QStringLiteral("mask_predictions"), masks);
        members.emplace_back(QStringLiteral("elapsed_ms"), elapsed);
        if (!repeatMs.empty())
            members.emplace_back(QStringLiteral("repeat_ms"), repeatTimesJson(repeatMs));
        members.emplace_back(QStringLiteral("peak_rss_mb"), peakResidentMegabytes());
        return attn::writeJsonObject(members);
    }
    QJsonArray attentions;
    for (const std::vector<attn::Matrix>& layer : result.attentions) {
        QJsonArray heads;
        for (const attn::Matrix& head : layer) heads.append(attn::jsonMatrix(head));
        attentions.append(heads);
    }
    attn::OrderedMembers members{
        {QStringLiteral("model"), modelJson(weights)},
        {QStringLiteral("ids"), jsonIds(ids)},
        {QStringLiteral("tokens"), jsonTokens(*model.tokenizer, ids)},
    };
    if (encoder) members.emplace_back(QStringLiteral("token_type_ids"), jsonIds(input.typeIds));
    members.emplace_back(QStringLiteral("attentions"), attentions);
    members.emplace_back(QStringLiteral("next_tokens"),
                         nextTokensJson(*model.tokenizer, result.top_tokens));
    if (fillsMasks) members.emplace_back(QStringLiteral("mask_predictions"), masks);
    if (logits) members.emplace_back(QStringLiteral("logits"), attn::jsonMatrix(result.logits));
    return attn::writeJsonObject(members);
}

void addGenerateOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "Continue a text token by token with a KV cache per layer: greedy by default, or sampled\n"
        "with --temperature (and --top-k, --seed). Stops early after the model's end-of-sequence\n"
        "token (kept in new_ids). Prints the ids (prompt + new), the new ids, the text, the bytes "
        "the K and V\n"
        "caches hold, how far the cached logits are from one full pass, the time of the new\n"
        "tokens alone (elapsed_ms) and their tokens per second, the prompt's pass (prompt_ms)\n"
        "and the check against the full pass (check_ms)."));
    addModelOption(parser);
    parser.addOptions({
        {QStringLiteral("text"), QStringLiteral("The prompt."), QStringLiteral("TEXT")},
        {QStringLiteral("max-new-tokens"), QStringLiteral("How many tokens to add at most."),
         QStringLiteral("N")},
        {QStringLiteral("temperature"),
         QStringLiteral("Sample at this temperature, up to 100 (default 0: greedy)."),
         QStringLiteral("T")},
        {QStringLiteral("top-k"), QStringLiteral("Sample among the K most probable tokens only."),
         QStringLiteral("K")},
        {QStringLiteral("seed"), QStringLiteral("Seed of the sampling (default 0)."),
         QStringLiteral("S")},
    });
}

QByteArray runGenerate(const QCommandLineParser& parser) {
    const QString text = textOption(parser);
    if (!parser.isSet(QStringLiteral("max-new-tokens")))
        cliFail(QStringLiteral("give --max-new-tokens N, how many tokens to add"));
    attn::GenerationOptions options;
    options.max_new_tokens = integerOption(parser, QStringLiteral("max-new-tokens"), 0, 1, 100000);
    options.top_k = integerOption(parser, QStringLiteral("top-k"), 0, 1, 10000000);
    options.seed = static_cast<std::uint64_t>(
        integerOption(parser, QStringLiteral("seed"), 0, 0, qint64{1} << 53));
    if (parser.isSet(QStringLiteral("temperature"))) {
        const QString value = parser.value(QStringLiteral("temperature"));
        bool ok = false;
        const double t = value.trimmed().toDouble(&ok);
        if (!ok || !(t >= 0.0 && t <= 100.0))
            cliFail(QStringLiteral("--temperature \"%1\" is not a number in [0, 100]: give e.g. "
                                   "--temperature 0.8, or 0 for greedy decoding")
                        .arg(value));
        options.temperature = static_cast<float>(t);
        if (options.temperature == 0.0f &&
            (parser.isSet(QStringLiteral("top-k")) || parser.isSet(QStringLiteral("seed"))))
            cliFail(
                QStringLiteral("--top-k and --seed choose how to sample, but --temperature 0 "
                               "is greedy: give a temperature above 0"));
    } else if (parser.isSet(QStringLiteral("top-k")) || parser.isSet(QStringLiteral("seed"))) {
        cliFail(
            QStringLiteral("--top-k and --seed choose how to sample: give --temperature T "
                           "too (without it decoding is greedy)"));
    }
    const ModelFolder model = openModelOption(parser, true);
    const attn::TransformerWeights& weights = *model.weights;
    const std::vector<int> prompt = encodeModelText(model, text);
    if (static_cast<Eigen::Index>(prompt.size()) + options.max_new_tokens >
        weights.spec.max_positions)
        cliFail(QStringLiteral("the prompt is %1 tokens and --max-new-tokens %2 more, beyond the "
                               "model's n_positions = %3: give fewer new tokens or a shorter "
                               "prompt")
                    .arg(prompt.size())
                    .arg(options.max_new_tokens)
                    .arg(weights.spec.max_positions));
    if (const std::optional<int> eos = model.tokenizer->eosId())
        options.eos_id = *eos;
    else if (const std::optional<int> end = model.tokenizer->endOfTextId())
        options.eos_id = *end;

    // Three timings, each of what it names: the prompt's full pass that fills the kv_cache, the
    // new tokens alone, and the check against one full pass over everything.
    QElapsedTimer timer;
    timer.start();
    attn::Generator generator(weights, prompt, options);
    const double promptMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    timer.restart();
    std::vector<int> newIds;
    while (!generator.finished()) newIds.push_back(generator.step().id);
    const double elapsed = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    timer.restart();
    const float diff = attn::max_abs_diff_vs_full_pass(weights, generator);
    const double checkMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;

    const attn::TokenizerDecodeResult decoded = model.tokenizer->decode(generator.tokens());
    if (!decoded.ok()) cliFail(decoded.error);
    const double seconds = elapsed / 1000.0;
    return attn::writeJsonObject({
        {QStringLiteral("ids"), jsonIds(generator.tokens())},
        {QStringLiteral("new_ids"), jsonIds(newIds)},
        {QStringLiteral("text"), *decoded.text},
        {QStringLiteral("cache_bytes"), static_cast<qint64>(generator.cache_bytes())},
        {QStringLiteral("max_abs_diff_vs_full_pass"), attn::jsonNumber(diff)},
        {QStringLiteral("elapsed_ms"), elapsed},
        {QStringLiteral("tokens_per_second"),
         seconds > 0.0 ? static_cast<double>(newIds.size()) / seconds : 0.0},
        {QStringLiteral("prompt_ms"), promptMs},
        {QStringLiteral("check_ms"), checkMs},
    });
}

void addModelsOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "List the models on this machine: the Hugging Face cache (folders and .gguf files) and\n"
        "Ollama's store (OLLAMA_MODELS, else ~/.ollama/models), as a JSON array of {name, path,\n"
        "source, family, parameters, dtype, bytes, supported, reason}. --model takes the name\n"
        "or the path."));
}

QByteArray runModels(const QCommandLineParser&) {
    QJsonArray out;
    for (const attn::LocalModel& m : attn::listLocalModels()) {
        QJsonObject o;
        o.insert(QStringLiteral("name"), m.name);
        o.insert(QStringLiteral("path"), QDir::toNativeSeparators(m.path));
        o.insert(QStringLiteral("source"), m.source);
        o.insert(QStringLiteral("family"), m.family);
        o.insert(QStringLiteral("parameters"), m.parameters);
        o.insert(QStringLiteral("dtype"), m.dtype);
        o.insert(QStringLiteral("bytes"), m.bytes);
        o.insert(QStringLiteral("supported"), m.supported);
        if (!m.supported) o.insert(QStringLiteral("reason"), m.reason);
        out.append(o);
    }
    return attn::writeJson(out);
}
