// attention-cli compute: run one module and print every matrix it computed as JSON, or only a
// short summary for long inputs (--summary).
#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <cmath>
#include <optional>

#include "app/cli/cli_command.h"
#include "app/io/example_file.h"
#include "app/io/json_text.h"
#include "model/examples.h"
#include "model/runner.h"

namespace {

constexpr qint64 kMaxSeed = qint64{1} << 53;  // what a JSON number holds exactly
constexpr qint64 kMaxRandomTokens = 65536;
constexpr qint64 kMaxRandomValues = qint64{1} << 28;  // tokens × d_in: 1 GiB of floats

QString nameOf(const attn::ModuleInfo& info) {
    return QString::fromUtf8(info.name.data(), static_cast<qsizetype>(info.name.size()));
}

QString nameOf(attn::ModuleKind kind) { return nameOf(attn::module_info(kind)); }

// The names of the modules `pick` selects, in the table's order: "a, b<last>c".
template <typename Pick>
QString namesWhere(Pick pick, const QString& last = QStringLiteral(", ")) {
    QStringList picked;
    for (const attn::ModuleInfo& info : attn::module_infos()) {
        if (pick(info)) picked << nameOf(info);
    }
    const QString tail = picked.isEmpty() ? QString() : picked.takeLast();
    return picked.isEmpty() ? tail : picked.join(QStringLiteral(", ")) + last + tail;
}

QString names() {
    return namesWhere([](const attn::ModuleInfo&) { return true; });
}

QJsonArray tokensJson(const std::vector<std::string>& tokens) {
    QJsonArray out;
    for (const std::string& t : tokens) {
        out.append(QString::fromStdString(t));
    }
    return out;
}

QJsonArray batchJson(const attn::Batch& batch) {
    QJsonArray out;
    for (const attn::Matrix& m : batch) {
        out.append(attn::jsonMatrix(m));
    }
    return out;
}

// [batch][head][query][key] of one intermediate of every head.
QJsonArray perHeadJson(const attn::ModuleOutput& output,
                       attn::Matrix attn::AttentionResult::*field) {
    QJsonArray out;
    for (const std::vector<attn::AttentionResult>& heads : output.heads) {
        QJsonArray perBatch;
        for (const attn::AttentionResult& head : heads) {
            perBatch.append(attn::jsonMatrix(head.*field));
        }
        out.append(perBatch);
    }
    return out;
}

// attn_weights per head with head_mask applied (before dropout): with a head_mask PyTorch's
// output_attentions reports the masked weights.
QJsonArray maskedWeightsJson(const attn::ModuleOutput& output, const std::vector<float>& mask) {
    QJsonArray out;
    for (const std::vector<attn::AttentionResult>& heads : output.heads) {
        QJsonArray perBatch;
        for (std::size_t h = 0; h < heads.size(); ++h) {
            const float factor = h < mask.size() ? mask[h] : 1.0f;
            perBatch.append(attn::jsonMatrix(attn::Matrix(heads[h].weights * factor)));
        }
        out.append(perBatch);
    }
    return out;
}

// "1,0.5" -> its comma-separated items, trimmed; fails on an empty list or an empty item.
QStringList listOption(const QCommandLineParser& parser, const QString& name,
                       const QString& example) {
    const QString v = parser.value(name);
    const QStringList items = v.split(QLatin1Char(','));
    if (v.trimmed().isEmpty()) {
        cliFail(QStringLiteral("--%1 is empty: give a comma-separated list, e.g. --%1 %2")
                    .arg(name, example));
    }
    QStringList out;
    for (const QString& item : items) {
        if (item.trimmed().isEmpty()) {
            cliFail(QStringLiteral("--%1 \"%2\" has an empty item: give a comma-separated "
                                   "list without gaps, e.g. --%1 %3")
                        .arg(name, v, example));
        }
        out << item.trimmed();
    }
    return out;
}

// The modules that take --num-kv-heads, --mask, --window, --lengths and --rope.
QString chapterModules() {
    return namesWhere([](const attn::ModuleInfo& i) { return i.uses_kv_heads_masks_rope; },
                      QStringLiteral(" and "));
}

// --num-kv-heads, --mask, --window, --lengths, --rope, --rope-base and --position-offset into
// config (the model checks the values against the module: resolve_config).
void readChapterOptions(const QCommandLineParser& parser, const attn::ModuleInfo& info,
                        attn::ModuleConfig& config) {
    config.num_kv_heads = integerOption(parser, QStringLiteral("num-kv-heads"), config.num_kv_heads,
                                        1, attn::kMaxWidth);
    if (parser.isSet(QStringLiteral("mask"))) {
        const QString mask = parser.value(QStringLiteral("mask"));
        if (mask != QLatin1String("causal") && mask != QLatin1String("bidirectional") &&
            mask != QLatin1String("window")) {
            cliFail(
                QStringLiteral("--mask \"%1\": give causal, bidirectional or window").arg(mask));
        }
        if (!info.uses_kv_heads_masks_rope) {
            cliFail(QStringLiteral("--mask does not apply to %1: only %2 has window and "
                                   "bidirectional masks; use --causal or --no-causal")
                        .arg(nameOf(info), chapterModules()));
        }
        const bool causal = mask != QLatin1String("bidirectional");
        if (parser.isSet(QString::fromLatin1(causal ? "no-causal" : "causal"))) {
            cliFail(
                QStringLiteral("--mask %1 and --%2 contradict each other: choose one")
                    .arg(mask, causal ? QStringLiteral("no-causal") : QStringLiteral("causal")));
        }
        config.causal = causal;
        if (mask != QLatin1String("window")) {
            if (parser.isSet(QStringLiteral("window"))) {
                cliFail(QStringLiteral("--window needs --mask window, not --mask %1").arg(mask));
            }
            config.window = 0;
        } else if (!parser.isSet(QStringLiteral("window")) && config.window == 0) {
            cliFail(
                QStringLiteral("--mask window needs --window W, the number of tokens each "
                               "query sees (W >= 1)"));
        }
    } else if (parser.isSet(QStringLiteral("window")) && config.window == 0) {
        cliFail(QStringLiteral("--window needs --mask window: add --mask window"));
    }
    if (parser.isSet(QStringLiteral("window"))) {
        if (parser.isSet(QStringLiteral("no-causal"))) {
            cliFail(
                QStringLiteral("--window is a causal mask and --no-causal turns it off: "
                               "choose one"));
        }
        config.window =
            integerOption(parser, QStringLiteral("window"), config.window, 1, qint64{1} << 20);
    }
    if (parser.isSet(QStringLiteral("lengths"))) {
        config.lengths.clear();
        for (const QString& item :
             listOption(parser, QStringLiteral("lengths"), QStringLiteral("6,4"))) {
            bool ok = false;
            const qint64 length = item.toLongLong(&ok);
            if (!ok || length < 0 || length > (qint64{1} << 20)) {
                cliFail(QStringLiteral("--lengths: \"%1\" is not a length: give one number of "
                                       "tokens per sequence, e.g. --lengths 6,4")
                            .arg(item));
            }
            config.lengths.push_back(static_cast<Eigen::Index>(length));
        }
        const auto count = static_cast<qint64>(config.lengths.size());
        if (count > attn::kMaxBatch) {
            cliFail(QStringLiteral("--lengths has %1 values; the batch limit is %2: give fewer")
                        .arg(count)
                        .arg(attn::kMaxBatch));
        }
        if (parser.isSet(QStringLiteral("batch")) &&
            integerOption(parser, QStringLiteral("batch"), 1, 1, attn::kMaxBatch) != count) {
            cliFail(QStringLiteral("--batch %1 but --lengths has %2 values: their count is the "
                                   "batch, so leave --batch out or make them agree")
                        .arg(parser.value(QStringLiteral("batch")))
                        .arg(count));
        }
        config.batch = count;
    }
    if (parser.isSet(QStringLiteral("rope"))) {
        config.rope = true;
    }
    if (parser.isSet(QStringLiteral("rope-base"))) {
        const QString v = parser.value(QStringLiteral("rope-base")).trimmed();
        bool ok = false;
        const float base = v.toFloat(&ok);
        if (!ok || !std::isfinite(base) || base <= 1.0f) {
            cliFail(QStringLiteral("--rope-base \"%1\": give a number above 1, e.g. 10000").arg(v));
        }
        config.rope_base = base;
    }
    config.position_offset = integerOption(parser, QStringLiteral("position-offset"),
                                           config.position_offset, 0, qint64{1} << 24);
}

// What compute runs on: the tutorial's inputs, or an example file's inputs, source and config.
struct ComputeInput {
    attn::ModuleConfig config;
    attn::Sequence inputs = attn::tutorial_inputs();
    std::optional<attn::Sequence> source;
};

// --input (an example file), which --random-tokens replaces and --d-in does not apply to.
ComputeInput readComputeInput(const QCommandLineParser& parser, bool random) {
    ComputeInput input;
    if (parser.isSet(QStringLiteral("input")) && random) {
        cliFail(QStringLiteral("--input and --random-tokens both give the input: choose one"));
    }
    if (parser.isSet(QStringLiteral("d-in")) && !random) {
        cliFail(
            QStringLiteral("--d-in sets the width of --random-tokens: add --random-tokens N, or "
                           "leave --d-in out (a file or the example sets its own width)"));
    }
    if (parser.isSet(QStringLiteral("input"))) {
        const QString path = parser.value(QStringLiteral("input"));
        attn::ExampleParseResult loaded = attn::loadExampleFile(path);
        if (!loaded.ok()) {
            cliFail(QStringLiteral("%1: %2").arg(path, loaded.error));
        }
        attn::ExampleFile& file = *loaded.file;
        input.inputs = std::move(file.inputs);
        input.source = std::move(file.source);
        if (file.config) {
            input.config = *file.config;
        }
        input.config.weights = std::move(file.weights);
        // An inference session saved with its dropout p: no dropout unless --dropout says so.
        if (file.training.has_value() && !*file.training) {
            input.config.dropout = 0.0f;
        }
    }
    return input;
}

// --head-mask and --prune-heads into config.
void readHeadOptions(const QCommandLineParser& parser, attn::ModuleConfig& config) {
    if (parser.isSet(QStringLiteral("head-mask"))) {
        config.head_mask.clear();
        for (const QString& item :
             listOption(parser, QStringLiteral("head-mask"), QStringLiteral("1,0.5"))) {
            bool ok = false;
            const float f = item.toFloat(&ok);
            if (!ok || !std::isfinite(f)) {
                cliFail(QStringLiteral("--head-mask: \"%1\" is not a number: give one factor in "
                                       "[0, 1] per head, e.g. --head-mask 1,0.5")
                            .arg(item));
            }
            config.head_mask.push_back(f);
        }
    }
    if (parser.isSet(QStringLiteral("prune-heads"))) {
        config.prune_heads.clear();
        for (const QString& item :
             listOption(parser, QStringLiteral("prune-heads"), QStringLiteral("0,2"))) {
            bool ok = false;
            const qint64 h = item.toLongLong(&ok);
            if (!ok || h < 0 || h >= attn::kMaxWidth) {
                cliFail(QStringLiteral("--prune-heads: \"%1\" is not a head number: give heads "
                                       "0, 1, ... separated by commas, e.g. --prune-heads 0,2")
                            .arg(item));
            }
            config.prune_heads.push_back(static_cast<Eigen::Index>(h));
        }
    }
}

// --causal or --no-causal, --no-scale, --mask-convention and --fill into config.
void readMaskOptions(const QCommandLineParser& parser, attn::ModuleConfig& config) {
    if (parser.isSet(QStringLiteral("causal")) && parser.isSet(QStringLiteral("no-causal"))) {
        cliFail(QStringLiteral("--causal and --no-causal contradict each other: choose one"));
    }
    if (parser.isSet(QStringLiteral("causal"))) {
        config.causal = true;
    } else if (parser.isSet(QStringLiteral("no-causal"))) {
        config.causal = false;
    }
    if (parser.isSet(QStringLiteral("no-scale"))) {
        config.scale = false;
    }
    if (parser.isSet(QStringLiteral("mask-convention"))) {
        const QString v = parser.value(QStringLiteral("mask-convention"));
        if (v == QLatin1String("zero")) {
            config.mask_convention = attn::MaskConvention::FillWhereZero;
        } else if (v == QLatin1String("one")) {
            config.mask_convention = attn::MaskConvention::FillWhereOne;
        } else {
            cliFail(QStringLiteral("--mask-convention \"%1\": give zero (fill where mask == 0) "
                                   "or one (fill where mask == 1)")
                        .arg(v));
        }
    }
    if (parser.isSet(QStringLiteral("fill"))) {
        const QString v = parser.value(QStringLiteral("fill")).trimmed();
        bool ok = false;
        const float fill = v == QLatin1String("-inf") ? attn::kNegInf : v.toFloat(&ok);
        if (v != QLatin1String("-inf") && (!ok || !std::isfinite(fill))) {
            cliFail(
                QStringLiteral("--fill \"%1\" is not a number: give -inf, -1e9 or -1e4").arg(v));
        }
        config.fill_value = fill;
    }
}

// --module and the options of every module into config, over the file's config; returns the
// module's row of the table.
const attn::ModuleInfo& readModuleOptions(const QCommandLineParser& parser,
                                          attn::ModuleConfig& config) {
    if (parser.isSet(QStringLiteral("module"))) {
        const std::string name = parser.value(QStringLiteral("module")).toStdString();
        // An empty --module NAME chooses no module, as if it were not given.
        config.module =
            name.empty() ? std::nullopt : std::optional(attn::module_kind_from_name(name));
    }
    if (!config.module) {
        cliFail(QStringLiteral("give --module NAME, one of %1").arg(names()));
    }
    const attn::ModuleInfo& info = attn::module_info(*config.module);
    config.seed = static_cast<std::uint64_t>(integerOption(
        parser, QStringLiteral("seed"), static_cast<qint64>(config.seed), 0, kMaxSeed));
    config.d_out = integerOption(parser, QStringLiteral("d-out"), config.d_out, 1, attn::kMaxWidth);
    config.num_heads =
        integerOption(parser, QStringLiteral("num-heads"), config.num_heads, 1, attn::kMaxWidth);
    config.dim_k = integerOption(parser, QStringLiteral("dim-k"), config.dim_k, 1, attn::kMaxWidth);
    config.dim_v = integerOption(parser, QStringLiteral("dim-v"), config.dim_v, 1, attn::kMaxWidth);
    readHeadOptions(parser, config);
    config.batch = integerOption(parser, QStringLiteral("batch"), config.batch, 1, attn::kMaxBatch);
    config.context_length = integerOption(parser, QStringLiteral("context-length"),
                                          config.context_length, 1, qint64{1} << 20);
    config.dropout = static_cast<float>(
        probabilityOption(parser, QStringLiteral("dropout"), static_cast<double>(config.dropout)));
    if (parser.isSet(QStringLiteral("qkv-bias"))) {
        config.qkv_bias = true;
    }
    readMaskOptions(parser, config);
    return info;
}

// --random-tokens N of --d-in values from the seed, once the settings (and the memory they need)
// pass.
attn::Sequence randomInputs(const QCommandLineParser& parser, const attn::ModuleConfig& config,
                            const attn::ModuleInfo& info) {
    const qint64 tokens =
        integerOption(parser, QStringLiteral("random-tokens"), 0, 1, kMaxRandomTokens);
    const qint64 d_in = integerOption(parser, QStringLiteral("d-in"), 3, 1, attn::kMaxWidth);
    if (tokens * d_in > kMaxRandomValues) {
        cliFail(QStringLiteral("--random-tokens %1 × --d-in %2 = %3 values; the limit is %4: use "
                               "fewer tokens or a smaller width")
                    .arg(tokens)
                    .arg(d_in)
                    .arg(tokens * d_in)
                    .arg(kMaxRandomValues));
    }
    // Check the settings (and the memory they need) before drawing the tokens.
    attn::resolve_config(
        config, d_in, tokens,
        info.uses_source ? attn::cross_attention_source().embeddings.rows() : tokens,
        parser.isSet(QStringLiteral("summary")));
    return attn::random_sequence(tokens, d_in, config.seed);
}

// --summary: the module, its settings, the output's shape and checksums, time and memory.
QByteArray summaryJson(const attn::RunResult& result, const attn::Sequence& inputs,
                       double elapsedMs) {
    const attn::ModuleOutput& out = result.output;
    double sum = 0.0;
    double absSum = 0.0;
    for (const attn::Matrix& m : out.context_vecs) {
        sum += static_cast<double>(m.cast<double>().sum());
        absSum += static_cast<double>(m.cast<double>().cwiseAbs().sum());
    }
    const attn::Matrix& first = out.context_vecs.front();
    attn::OrderedMembers summary;
    summary.emplace_back(QStringLiteral("module"), nameOf(*result.config.module));
    summary.emplace_back(QStringLiteral("config"), attn::moduleConfigToJson(result.config));
    summary.emplace_back(QStringLiteral("d_in"), static_cast<double>(inputs.embeddings.cols()));
    summary.emplace_back(
        QStringLiteral("shape"),
        QJsonArray{static_cast<double>(out.context_vecs.size()), static_cast<double>(first.rows()),
                   static_cast<double>(first.cols())});
    summary.emplace_back(QStringLiteral("checksum"),
                         std::isfinite(sum) ? QJsonValue(sum) : QJsonValue());
    summary.emplace_back(QStringLiteral("abs_checksum"),
                         std::isfinite(absSum) ? QJsonValue(absSum) : QJsonValue());
    summary.emplace_back(QStringLiteral("elapsed_ms"), std::round(elapsedMs * 1000.0) / 1000.0);
    if (!result.repeat_ms.empty())
        summary.emplace_back(QStringLiteral("repeat_ms"), repeatTimesJson(result.repeat_ms));
    summary.emplace_back(QStringLiteral("peak_rss_mb"),
                         std::round(peakResidentMegabytes() * 10.0) / 10.0);
    return attn::writeJsonObject(summary);
}

// Every matrix the module computed, with the tokens, settings and weights.
QByteArray outputJson(const attn::RunResult& result, const attn::Sequence& inputs,
                      const attn::ModuleInfo& info, const attn::Sequence* sourcePtr) {
    const attn::ModuleOutput& out = result.output;
    attn::OrderedMembers json;
    json.emplace_back(QStringLiteral("module"), nameOf(*result.config.module));
    json.emplace_back(QStringLiteral("config"), attn::moduleConfigToJson(result.config));
    json.emplace_back(QStringLiteral("training"), result.training);
    json.emplace_back(QStringLiteral("d_in"), static_cast<double>(inputs.embeddings.cols()));
    json.emplace_back(QStringLiteral("tokens"), tokensJson(inputs.tokens));
    if (info.uses_source) {
        const attn::Sequence& used =
            sourcePtr != nullptr ? *sourcePtr : attn::cross_attention_source();
        json.emplace_back(QStringLiteral("source_tokens"), tokensJson(used.tokens));
    }
    json.emplace_back(QStringLiteral("context_vecs"), batchJson(out.context_vecs));
    json.emplace_back(QStringLiteral("attn_weights"),
                      result.config.head_mask.empty()
                          ? perHeadJson(out, &attn::AttentionResult::weights)
                          : maskedWeightsJson(out, result.config.head_mask));
    if (result.training) {
        json.emplace_back(QStringLiteral("attn_weights_after_dropout"),
                          perHeadJson(out, &attn::AttentionResult::dropped));
    }
    json.emplace_back(QStringLiteral("attn_scores"),
                      perHeadJson(out, &attn::AttentionResult::scores));
    json.emplace_back(QStringLiteral("queries"), batchJson(out.queries));
    json.emplace_back(QStringLiteral("keys"), batchJson(out.keys));
    json.emplace_back(QStringLiteral("values"), batchJson(out.values));
    json.emplace_back(QStringLiteral("weights"), attn::jsonWeights(result.weights));
    return attn::writeJsonObject(json);
}

}  // namespace

void addComputeOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "Run an attention module and print its context_vecs ([batch][token][d_out]), attn_weights\n"
        "([batch][head][query][key], after softmax, before dropout), attn_scores (raw query·key),\n"
        "queries/keys/values and its weights (named as PyTorch's state_dict). Input: the "
        "tutorial's\n"
        "six tokens \"Your journey starts with one step\", a JSON example file, or random tokens.\n"
        "Settings in the file's \"config\" apply unless an option overrides them. With --dropout > "
        "0\n"
        "the module runs in training mode, its masks drawn from the same seeded generator after\n"
        "the parameters, as torch.manual_seed(seed); m = Module(...); m.train(); m(x)."));
    parser.addOptions({
        {QStringLiteral("module"), QStringLiteral("The module: %1.").arg(names()),
         QStringLiteral("NAME")},
        {QStringLiteral("seed"),
         QStringLiteral("torch.manual_seed for the parameters (default 123)."),
         QStringLiteral("N")},
        {QStringLiteral("d-out"),
         QStringLiteral("Projection width (default 2); each head's width for %1; %2 keep d_out = "
                        "d_in.")
             .arg(namesWhere([](const attn::ModuleInfo& i) { return i.heads_are_modules; }),
                  namesWhere([](const attn::ModuleInfo& i) { return !i.uses_d_out; },
                             QStringLiteral(" and "))),
         QStringLiteral("N")},
        {QStringLiteral("num-heads"),
         QStringLiteral(
             "Heads of the multi-head modules (default 2, or 1 when 2 does not divide the width)."),
         QStringLiteral("N")},
        {QStringLiteral("dim-k"),
         QStringLiteral("Width of queries and keys of %1 (seed 003; default d_in).")
             .arg(namesWhere([](const attn::ModuleInfo& i) { return i.uses_dim_kv; },
                             QStringLiteral(" and "))),
         QStringLiteral("N")},
        {QStringLiteral("dim-v"),
         QStringLiteral("Width of the values, and so of the output, of %1 (seed 003; default "
                        "d_in).")
             .arg(namesWhere([](const attn::ModuleInfo& i) { return i.uses_dim_kv; },
                             QStringLiteral(" and "))),
         QStringLiteral("N")},
        {QStringLiteral("head-mask"),
         QStringLiteral("Factors in [0, 1] multiplying each head's attention weights after "
                        "dropout, one per head left after --prune-heads, e.g. 1,0.5 (%1, seed "
                        "001's head_mask).")
             .arg(namesWhere([](const attn::ModuleInfo& i) { return i.uses_head_mask; })),
         QStringLiteral("LIST")},
        {QStringLiteral("prune-heads"),
         QStringLiteral("Heads to remove before running, numbered 0..num_heads-1, e.g. 0,2 (%1, "
                        "seed 001's prune_heads; the weights shrink to the remaining heads).")
             .arg(namesWhere([](const attn::ModuleInfo& i) { return i.uses_head_mask; })),
         QStringLiteral("LIST")},
        {QStringLiteral("dropout"),
         QStringLiteral(
             "Dropout p in [0, 1] on the attention weights (default 0); > 0 means training mode."),
         QStringLiteral("P")},
        {QStringLiteral("batch"),
         QStringLiteral("Stack N copies of the input, as torch.stack (default 1)."),
         QStringLiteral("N")},
        {QStringLiteral("context-length"),
         QStringLiteral("Causal mask size of the causal modules (default: the number of tokens)."),
         QStringLiteral("N")},
        {QStringLiteral("qkv-bias"),
         QStringLiteral("Give the query, key and value projections a bias.")},
        {QStringLiteral("causal"), QStringLiteral("Turn the causal mask on (%1).")
                                       .arg(namesWhere([](const attn::ModuleInfo& i) {
                                           return i.uses_causal && !i.causal_by_default;
                                       }))},
        {QStringLiteral("no-causal"), QStringLiteral("Turn the causal mask off (%1).")
                                          .arg(namesWhere([](const attn::ModuleInfo& i) {
                                              return i.uses_causal && i.causal_by_default;
                                          }))},
        {QStringLiteral("no-scale"), QStringLiteral("Do not divide the scores by sqrt(head_dim).")},
        {QStringLiteral("mask-convention"),
         QStringLiteral("zero (default, seed 000: fill where mask == 0) or one (seed 004: fill "
                        "where mask == 1) for the BERT-style modules' causal mask tensor."),
         QStringLiteral("zero|one")},
        {QStringLiteral("fill"),
         QStringLiteral("Fill value of masked scores: -inf, -1e9 or -1e4 (default: the module's; "
                        "-inf, -1e9 for the BERT-style modules, -1e4 for %1).")
             .arg(nameOf(attn::ModuleKind::Gpt2Attention)),
         QStringLiteral("VALUE")},
        {QStringLiteral("num-kv-heads"),
         QStringLiteral("Key/value heads shared by the query heads (%1; grouped-query attention, "
                        "1 = multi-query; must divide --num-heads; default --num-heads).")
             .arg(chapterModules()),
         QStringLiteral("G")},
        {QStringLiteral("mask"),
         QStringLiteral("causal (default, = --causal), bidirectional (= --no-causal) or window "
                        "(a sliding causal window of --window tokens) (%1).")
             .arg(chapterModules()),
         QStringLiteral("causal|bidirectional|window")},
        {QStringLiteral("window"),
         QStringLiteral("Width W >= 1 of --mask window: query i sees keys i-W+1..i."),
         QStringLiteral("W")},
        {QStringLiteral("lengths"),
         QStringLiteral("A batch of one copy of the input per length, e.g. 6,4 (%1): keys of "
                        "sequence b at positions >= its length are blocked (padding); each in "
                        "[0, tokens].")
             .arg(chapterModules()),
         QStringLiteral("LIST")},
        {QStringLiteral("rope"),
         QStringLiteral("Rotate queries and keys with rotary position embeddings (%1; Hugging "
                        "Face's LLaMA convention).")
             .arg(chapterModules())},
        {QStringLiteral("rope-base"), QStringLiteral("RoPE base of --rope (default 10000)."),
         QStringLiteral("B")},
        {QStringLiteral("position-offset"),
         QStringLiteral("RoPE position of the first token for --rope (default 0)."),
         QStringLiteral("K")},
        {QStringLiteral("input"),
         QStringLiteral("JSON example file with tokens and embeddings (and optionally weights, "
                        "source, config)."),
         QStringLiteral("FILE")},
        {QStringLiteral("random-tokens"),
         QStringLiteral("Use N random tokens, torch.rand(N, d_in) seeded with --seed, instead of "
                        "the example."),
         QStringLiteral("N")},
        {QStringLiteral("d-in"), QStringLiteral("Embedding width of --random-tokens (default 3)."),
         QStringLiteral("N")},
        {QStringLiteral("summary"),
         QStringLiteral("Print only the output shape, a checksum, the time and the peak memory.")},
        repeatOption(),
    });
}

QByteArray runCompute(const QCommandLineParser& parser) {
    const bool random = parser.isSet(QStringLiteral("random-tokens"));
    ComputeInput input = readComputeInput(parser, random);
    attn::ModuleConfig& config = input.config;
    const attn::ModuleInfo& info = readModuleOptions(parser, config);
    readChapterOptions(parser, info, config);
    if (random) {
        input.inputs = randomInputs(parser, config, info);
    }

    // A file's source is data for cross-attention; other modules simply do not use it.
    const attn::Sequence* sourcePtr = info.uses_source && input.source ? &*input.source : nullptr;
    // A summary shows only the output, so multi-head-attention takes the fast path.
    const int repeats = repeatCount(parser);
    const attn::RunResult result = attn::run_module(
        config, input.inputs, sourcePtr, parser.isSet(QStringLiteral("summary")), repeats);
    if (parser.isSet(QStringLiteral("summary"))) {
        return summaryJson(result, input.inputs, result.forward_ms);
    }
    return outputJson(result, input.inputs, info, sourcePtr);
}
