// attention-cli decode: KV-cached decoding, one token at a time, beside one full causal pass.
#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <cmath>

#include "app/cli/cli_command.h"
#include "app/io/json_text.h"
#include "model/kv_trace.h"
#include "model/runner.h"

namespace {

constexpr qint64 kMaxDecodeLength = 4096;

QString nameOf(attn::ModuleKind kind) {
    const std::string_view name = attn::module_name(kind);
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

// "multi-head-attention or gpt2-attention", each name after `prefix`.
QString decoderNames(const QString& prefix) {
    QStringList names;
    for (const attn::ModuleInfo& info : attn::module_infos()) {
        if (info.decodes_with_kv_cache) names << prefix + nameOf(info.kind);
    }
    return names.join(QStringLiteral(" or "));
}

}  // namespace

void addDecodeOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "Feed N random tokens (torch.rand(N, d_model) seeded with --seed) one at a time through a\n"
        "KV cache: each step projects only the new token, appends its key and value to the cache\n"
        "and attends over all cached tokens. Prints each step's output row, attention weights and\n"
        "cache size (tokens, bytes = 2 × K/V heads × tokens × head_dim × 4), the outputs of one "
        "causal\n"
        "pass over all tokens, and the largest difference between the two (float rounding only)."));
    parser.addOptions({
        {QStringLiteral("module"), decoderNames(QString()) + QStringLiteral("."),
         QStringLiteral("NAME")},
        {QStringLiteral("length"), QStringLiteral("Number of tokens to decode (1..4096)."),
         QStringLiteral("N")},
        {QStringLiteral("d-model"), QStringLiteral("Embedding and output width (default 4)."),
         QStringLiteral("N")},
        {QStringLiteral("num-heads"), QStringLiteral("Heads; must divide --d-model (default 2)."),
         QStringLiteral("N")},
        {QStringLiteral("seed"),
         QStringLiteral("Seed for the tokens and the parameters (default 123)."),
         QStringLiteral("N")},
        {QStringLiteral("num-kv-heads"),
         QStringLiteral("Key/value heads of %1, dividing --num-heads (default --num-heads): the "
                        "cache holds this many heads (grouped-query attention).")
             .arg(nameOf(attn::ModuleKind::MultiHeadAttention)),
         QStringLiteral("G")},
        {QStringLiteral("rope"),
         QStringLiteral("Rotary position embeddings in %1 (positions are the token indices).")
             .arg(nameOf(attn::ModuleKind::MultiHeadAttention))},
        {QStringLiteral("rope-base"), QStringLiteral("RoPE base of --rope (default 10000)."),
         QStringLiteral("B")},
    });
}

QByteArray runDecode(const QCommandLineParser& parser) {
    if (!parser.isSet(QStringLiteral("module"))) {
        cliFail(QStringLiteral("give %1").arg(decoderNames(QStringLiteral("--module "))));
    }
    if (!parser.isSet(QStringLiteral("length"))) {
        cliFail(QStringLiteral("give --length N, the number of tokens to decode (1..%1)")
                    .arg(kMaxDecodeLength));
    }
    attn::DecodeConfig config;
    const qint64 length = integerOption(parser, QStringLiteral("length"), 0, 1, kMaxDecodeLength);
    const qint64 d_model = integerOption(parser, QStringLiteral("d-model"), 4, 1, attn::kMaxWidth);
    config.num_heads = integerOption(parser, QStringLiteral("num-heads"), 2, 1, attn::kMaxWidth);
    config.seed = static_cast<std::uint64_t>(
        integerOption(parser, QStringLiteral("seed"), 123, 0, qint64{1} << 53));
    config.module =
        attn::decoder_kind_from_name(parser.value(QStringLiteral("module")).toStdString());
    const bool mha = config.module == attn::ModuleKind::MultiHeadAttention;
    for (const char* option : {"num-kv-heads", "rope", "rope-base"}) {
        if (!mha && parser.isSet(QString::fromLatin1(option))) {
            cliFail(QStringLiteral("--%1 does not apply to %2: only %3 has K/V head sharing and "
                                   "RoPE")
                        .arg(QString::fromLatin1(option), nameOf(config.module),
                             nameOf(attn::ModuleKind::MultiHeadAttention)));
        }
    }
    config.num_kv_heads =
        integerOption(parser, QStringLiteral("num-kv-heads"), config.num_heads, 1, attn::kMaxWidth);
    if (!mha) config.num_kv_heads = 0;
    config.rope = parser.isSet(QStringLiteral("rope"));
    if (parser.isSet(QStringLiteral("rope-base"))) {
        if (!config.rope) {
            cliFail(QStringLiteral("--rope-base applies only with --rope: add --rope"));
        }
        const QString v = parser.value(QStringLiteral("rope-base")).trimmed();
        bool ok = false;
        config.rope_base = v.toFloat(&ok);
        if (!ok || !std::isfinite(config.rope_base) || config.rope_base <= 1.0f) {
            cliFail(QStringLiteral("--rope-base \"%1\": give a number above 1, e.g. 10000").arg(v));
        }
    }

    const attn::Sequence inputs = attn::random_sequence(length, d_model, config.seed);
    const attn::KvTrace run = attn::run_decode(config, inputs);

    QJsonArray steps;
    for (std::size_t t = 0; t < run.steps.size(); ++t) {
        const attn::KvTraceStep& step = run.steps[t];
        QJsonArray weights;
        for (const attn::RowVector& w : step.attn_weights) {
            weights.append(attn::jsonRow(w));
        }
        QJsonObject s;
        s.insert(QStringLiteral("token"), static_cast<double>(t + 1));
        s.insert(QStringLiteral("output"), attn::jsonRow(step.output));
        s.insert(QStringLiteral("attn_weights"), weights);
        s.insert(QStringLiteral("cache_tokens"), static_cast<double>(step.cache_tokens));
        s.insert(QStringLiteral("cache_bytes"), static_cast<double>(step.cache_bytes));
        steps.append(s);
    }
    QJsonArray tokens;
    for (const std::string& t : inputs.tokens) {
        tokens.append(QString::fromStdString(t));
    }

    attn::OrderedMembers json;
    json.emplace_back(QStringLiteral("module"), nameOf(config.module));
    json.emplace_back(QStringLiteral("seed"), static_cast<double>(config.seed));
    json.emplace_back(QStringLiteral("length"), static_cast<double>(length));
    json.emplace_back(QStringLiteral("d_model"), static_cast<double>(d_model));
    json.emplace_back(QStringLiteral("num_heads"), static_cast<double>(config.num_heads));
    json.emplace_back(QStringLiteral("head_dim"), static_cast<double>(d_model / config.num_heads));
    if (mha) {
        json.emplace_back(QStringLiteral("num_kv_heads"), static_cast<double>(config.num_kv_heads));
        json.emplace_back(QStringLiteral("rope"), config.rope);
        if (config.rope) {
            json.emplace_back(QStringLiteral("rope_base"), attn::jsonNumber(config.rope_base));
        }
    }
    json.emplace_back(QStringLiteral("tokens"), tokens);
    json.emplace_back(QStringLiteral("inputs"), attn::jsonMatrix(inputs.embeddings));
    json.emplace_back(QStringLiteral("steps"), steps);
    json.emplace_back(QStringLiteral("full_pass"), attn::jsonMatrix(run.full_pass));
    json.emplace_back(QStringLiteral("max_abs_diff"), attn::jsonNumber(run.max_abs_diff));
    json.emplace_back(QStringLiteral("weights"), attn::jsonWeights(run.weights));
    return attn::writeJsonObject(json);
}
