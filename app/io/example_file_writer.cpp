// Writing example files: the JSON text, the atomic save and the config object (which
// attention-cli prints too). Reading and validating them is example_file.cpp.
#include <QJsonArray>
#include <cmath>

#include "app/io/atomic_file.h"
#include "app/io/example_file.h"
#include "app/io/json_text.h"

namespace attn {

QJsonObject moduleConfigToJson(const attn::ModuleConfig& config) {
    QJsonObject o;
    // A config without a module (the file's settings for any module) stays without one.
    const attn::ModuleInfo* info = config.module ? &attn::module_info(*config.module) : nullptr;
    if (info != nullptr)
        o.insert(QStringLiteral("module"),
                 QString::fromUtf8(info->name.data(), static_cast<qsizetype>(info->name.size())));
    o.insert(QStringLiteral("seed"), static_cast<double>(config.seed));
    o.insert(QStringLiteral("d_out"), static_cast<double>(config.d_out));
    o.insert(QStringLiteral("num_heads"), static_cast<double>(config.num_heads));
    o.insert(QStringLiteral("batch"), static_cast<double>(config.batch));
    o.insert(QStringLiteral("context_length"), static_cast<double>(config.context_length));
    o.insert(QStringLiteral("dropout"), jsonNumber(config.dropout));
    o.insert(QStringLiteral("qkv_bias"), config.qkv_bias);
    // Seed 003's widths only where they are set, so other modules' output is unchanged.
    if (config.dim_k != 0) {
        o.insert(QStringLiteral("dim_k"), static_cast<double>(config.dim_k));
    }
    if (config.dim_v != 0) {
        o.insert(QStringLiteral("dim_v"), static_cast<double>(config.dim_v));
    }
    // Seed 001's head_mask and prune_heads only where they are set, likewise.
    if (!config.head_mask.empty()) {
        QJsonArray mask;
        for (float f : config.head_mask) {
            mask.append(jsonNumber(f));
        }
        o.insert(QStringLiteral("head_mask"), mask);
    }
    if (!config.prune_heads.empty()) {
        QJsonArray heads;
        for (Eigen::Index h : config.prune_heads) {
            heads.append(static_cast<double>(h));
        }
        o.insert(QStringLiteral("prune_heads"), heads);
    }
    // Explore mode's switches only when they differ from the module's own, so existing output is
    // unchanged.
    if (config.causal.has_value() &&
        (info == nullptr || *config.causal != info->causal_by_default)) {
        o.insert(QStringLiteral("causal"), *config.causal);
    }
    if (!config.scale) {
        o.insert(QStringLiteral("scale"), false);
    }
    if (config.mask_convention == attn::MaskConvention::FillWhereOne) {
        o.insert(QStringLiteral("mask_convention"), QStringLiteral("one"));
    }
    if (config.fill_value.has_value() &&
        (info == nullptr || *config.fill_value != info->default_fill)) {
        if (std::isinf(*config.fill_value)) {
            o.insert(QStringLiteral("fill"), QStringLiteral("-inf"));
        } else {
            o.insert(QStringLiteral("fill"), jsonNumber(*config.fill_value));
        }
    }
    // multi-head-attention's K/V heads, masks and RoPE: the module always lists them, another
    // config only what is set.
    const bool chapters = info != nullptr && info->uses_kv_heads_masks_rope;
    if (chapters || config.num_kv_heads != 0) {
        o.insert(QStringLiteral("num_kv_heads"), static_cast<double>(config.num_kv_heads));
    }
    if (chapters || config.window != 0) {
        const std::string_view mask = attn::mask_kind_name(config);
        o.insert(QStringLiteral("mask"),
                 QString::fromUtf8(mask.data(), static_cast<qsizetype>(mask.size())));
    }
    if (config.window != 0) {
        o.insert(QStringLiteral("window"), static_cast<double>(config.window));
    }
    if (!config.lengths.empty()) {
        QJsonArray lengths;
        for (Eigen::Index l : config.lengths) {
            lengths.append(static_cast<double>(l));
        }
        o.insert(QStringLiteral("lengths"), lengths);
    }
    if (chapters || config.rope) {
        o.insert(QStringLiteral("rope"), config.rope);
    }
    if (config.rope || config.rope_base != 10000.0f) {
        o.insert(QStringLiteral("rope_base"), jsonNumber(config.rope_base));
    }
    if (config.rope || config.position_offset != 0) {
        o.insert(QStringLiteral("position_offset"), static_cast<double>(config.position_offset));
    }
    return o;
}

namespace {

QJsonArray tokensToJson(const std::vector<std::string>& tokens) {
    QJsonArray out;
    for (const std::string& t : tokens) {
        out.append(fromUtf8KeepingBom(t));
    }
    return out;
}

}  // namespace

QByteArray serializeExampleFile(const ExampleFile& file) {
    OrderedMembers members;
    members.emplace_back(QStringLiteral("format"), QLatin1String(kExampleFormatName));
    members.emplace_back(QStringLiteral("version"), kExampleFormatVersion);
    if (!file.description.isEmpty()) {
        members.emplace_back(QStringLiteral("description"), file.description);
    }
    members.emplace_back(QStringLiteral("tokens"), tokensToJson(file.inputs.tokens));
    members.emplace_back(QStringLiteral("embeddings"), jsonMatrix(file.inputs.embeddings));
    if (!file.weights.empty()) {
        members.emplace_back(QStringLiteral("weights"), jsonWeights(file.weights));
    }
    if (file.source) {
        QJsonObject source;
        source.insert(QStringLiteral("tokens"), tokensToJson(file.source->tokens));
        source.insert(QStringLiteral("embeddings"), jsonMatrix(file.source->embeddings));
        members.emplace_back(QStringLiteral("source"), source);
    }
    if (file.config) {
        QJsonObject config = moduleConfigToJson(*file.config);
        if (file.training.has_value()) {
            config.insert(QStringLiteral("training"), *file.training);
        }
        members.emplace_back(QStringLiteral("config"), config);
    }
    return writeJsonObject(members);
}

bool saveExampleFile(const ExampleFile& file, const QString& path, QString* error) {
    auto setError = [error](const QString& message) {
        if (error != nullptr) {
            *error = message;
        }
        return false;
    };
    try {
        attn::check_finite(file.inputs.embeddings, "embeddings");
        if (file.source) {
            attn::check_finite(file.source->embeddings, "source embeddings");
        }
        for (const attn::NamedMatrix& w : file.weights) {
            attn::check_finite(w.value, "weights \"" + w.name + "\"");
        }
    } catch (const attn::AttentionError& e) {
        return setError(QString::fromStdString(e.what()) +
                        QStringLiteral(" (JSON cannot hold NaN or infinity)"));
    }
    QString reason;
    if (!attn::writeFileAtomically(path, serializeExampleFile(file), &reason))
        return setError(QStringLiteral("cannot write %1: %2").arg(path, reason));
    return true;
}

}  // namespace attn
