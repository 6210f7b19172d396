// config.json as a TransformerSpec: the names each family's transformers config class uses
// (GPT2Config; LlamaConfig, MistralConfig, Qwen2Config, Qwen3Config; BertConfig,
// DistilBertConfig, RobertaConfig), every message pointing at the key.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>

#include "app/io/json_locator.h"
#include "app/io/model_folder.h"

namespace attn {

namespace {

// Any dimension above this is not a real config (and would overflow shape products).
constexpr double kMaxDimension = 1 << 24;

// GPT-2's config.json (GPT2Config's names) as a spec; every message points at the key.
ModelConfigResult parseGpt2Config(const JsonText& text, const QJsonObject& o) {
    auto fail = [](const QString& message) { return ModelConfigResult::failure(message); };
    auto at = [&text](const char* key, const QString& problem) {
        return text.message({jsonKey(key)}, problem);
    };
    TransformerSpec spec;
    spec.family = ModelFamily::Gpt2;
    auto dimension = [&](const char* key, Eigen::Index* out, QString* message) {
        const QJsonValue v = o.value(QLatin1String(key));
        const double d = v.toDouble(-1.0);
        if (!v.isDouble() || !(d >= 1.0) || d > kMaxDimension || std::floor(d) != d) {
            *message = at(key, QStringLiteral("\"%1\" is %2: give a whole number from 1 to %3")
                                   .arg(QLatin1String(key), describeJsonValue(v))
                                   .arg(static_cast<qint64>(kMaxDimension)));
            return false;
        }
        *out = static_cast<Eigen::Index>(d);
        return true;
    };
    QString message;
    if (!dimension("n_layer", &spec.num_layers, &message) ||
        !dimension("n_head", &spec.num_heads, &message) ||
        !dimension("n_embd", &spec.d_model, &message) ||
        !dimension("n_positions", &spec.max_positions, &message) ||
        !dimension("vocab_size", &spec.vocab_size, &message))
        return fail(message);
    if (spec.d_model % spec.num_heads != 0)
        return fail(at("n_head", QStringLiteral("n_embd %1 is not divisible by n_head %2: the "
                                                "heads split the width evenly")
                                     .arg(spec.d_model)
                                     .arg(spec.num_heads)));
    spec.num_kv_heads = spec.num_heads;
    spec.head_dim = spec.d_model / spec.num_heads;
    const QJsonValue inner = o.value(QLatin1String("n_inner"));
    if (inner.isUndefined() || inner.isNull()) {
        spec.d_ff = 4 * spec.d_model;
    } else if (!dimension("n_inner", &spec.d_ff, &message)) {
        return fail(message + QStringLiteral(", or null for 4 · n_embd"));
    }
    const QJsonValue eps = o.value(QLatin1String("layer_norm_epsilon"));
    if (!eps.isUndefined()) {
        const double e = eps.toDouble(-1.0);
        if (!eps.isDouble() || !(e > 0.0) || e > 1.0)
            return fail(at("layer_norm_epsilon",
                           QStringLiteral("\"layer_norm_epsilon\" is %1: give a small positive "
                                          "number such as 1e-05")
                               .arg(describeJsonValue(eps))));
        spec.norm_eps = static_cast<float>(e);
    }
    // transformers' ACT2FN names of the activations the core computes.
    const QJsonValue act = o.value(QLatin1String("activation_function"));
    if (!act.isUndefined()) {
        const QString name = act.toString();
        if (name == QLatin1String("gelu_new") || name == QLatin1String("gelu_pytorch_tanh"))
            spec.activation = ActivationKind::GeluTanh;
        else if (name == QLatin1String("gelu"))
            spec.activation = ActivationKind::GeluErf;
        else if (name == QLatin1String("relu"))
            spec.activation = ActivationKind::Relu;
        else
            return fail(at("activation_function",
                           QStringLiteral("activation_function %1 is not supported; use "
                                          "gelu_new (GPT-2's), gelu_pytorch_tanh, gelu or relu")
                               .arg(describeJsonValue(act))));
    }
    const QJsonValue tie = o.value(QLatin1String("tie_word_embeddings"));
    if (!tie.isUndefined()) {
        if (!tie.isBool())
            return fail(at("tie_word_embeddings",
                           QStringLiteral("\"tie_word_embeddings\" is %1: give true or false")
                               .arg(describeJsonValue(tie))));
        spec.tied_output = tie.toBool();
    }
    // Attention-only models trained here (TransformerLens's key): no norms, no MLP.
    const QJsonValue attnOnly = o.value(QLatin1String("attn_only"));
    if (!attnOnly.isUndefined()) {
        if (!attnOnly.isBool())
            return fail(at("attn_only", QStringLiteral("\"attn_only\" is %1: give true or false")
                                            .arg(describeJsonValue(attnOnly))));
        spec.attn_only = attnOnly.toBool();
    }
    ModelConfigResult result;
    result.spec = spec;
    return result;
}

// Reads the keys of a LLaMA-layout config, remembering the first problem.
class ConfigReader {
public:
    ConfigReader(const JsonText& text, const QJsonObject& o) : text_(text), o_(o) {}
    bool failed() const { return !error_.isEmpty(); }
    const QString& error() const { return error_; }
    bool has(const char* key) const {
        const QJsonValue v = o_.value(QLatin1String(key));
        return !v.isUndefined() && !v.isNull();
    }
    QJsonValue value(const char* key) const { return o_.value(QLatin1String(key)); }
    void fail(const char* key, const QString& problem) {
        if (error_.isEmpty()) error_ = text_.message({jsonKey(key)}, problem);
    }
    // A whole number from 1 to kMaxDimension; `fallback` when the key is absent or null (< 0:
    // the key is required).
    Eigen::Index dimension(const char* key, Eigen::Index fallback = -1) {
        if (!has(key)) {
            if (fallback < 0)
                fail(key, QStringLiteral("config.json has no \"%1\": copy config.json again "
                                         "from the model")
                              .arg(QLatin1String(key)));
            return fallback < 0 ? 1 : fallback;
        }
        const QJsonValue v = value(key);
        const double d = v.toDouble(-1.0);
        if (!v.isDouble() || !(d >= 1.0) || d > kMaxDimension || std::floor(d) != d) {
            fail(key, QStringLiteral("\"%1\" is %2: give a whole number from 1 to %3")
                          .arg(QLatin1String(key), describeJsonValue(v))
                          .arg(static_cast<qint64>(kMaxDimension)));
            return 1;
        }
        return static_cast<Eigen::Index>(d);
    }
    // A positive finite number, `fallback` when absent.
    double positive(const char* key, double fallback) {
        if (!has(key)) return fallback;
        const QJsonValue v = value(key);
        const double d = v.toDouble(-1.0);
        if (!v.isDouble() || !(d > 0.0) || !std::isfinite(d)) {
            fail(key, QStringLiteral("\"%1\" is %2: give a positive number")
                          .arg(QLatin1String(key), describeJsonValue(v)));
            return fallback;
        }
        return d;
    }
    bool boolean(const char* key, bool fallback) {
        if (!has(key)) return fallback;
        const QJsonValue v = value(key);
        if (!v.isBool()) {
            fail(key, QStringLiteral("\"%1\" is %2: give true or false")
                          .arg(QLatin1String(key), describeJsonValue(v)));
            return fallback;
        }
        return v.toBool();
    }
    // A token id or a list of them (eos_token_id may be either).
    std::vector<int> tokenIds(const char* key) {
        std::vector<int> ids;
        if (!has(key)) return ids;
        const QJsonValue v = value(key);
        const QJsonArray list = v.isArray() ? v.toArray() : QJsonArray{v};
        for (const QJsonValue& id : list) {
            const double d = id.toDouble(-1.0);
            if (!id.isDouble() || d < 0.0 || d > 1e9 || std::floor(d) != d) {
                fail(key, QStringLiteral("\"%1\" is %2: give a token id (a whole number >= 0) "
                                         "or a list of them")
                              .arg(QLatin1String(key), describeJsonValue(v)));
                return {};
            }
            ids.push_back(static_cast<int>(d));
        }
        return ids;
    }

private:
    const JsonText& text_;
    const QJsonObject& o_;
    QString error_;
};

// rope_scaling: null, {"type"|"rope_type": "default" | "linear" | "llama3", ...}.
void readRopeScaling(ConfigReader& r, RopeSpec& rope) {
    if (!r.has("rope_scaling")) return;
    const QJsonValue v = r.value("rope_scaling");
    if (!v.isObject()) {
        r.fail("rope_scaling", QStringLiteral("\"rope_scaling\" is %1: give null or an object "
                                              "such as {\"rope_type\": \"llama3\", ...}")
                                   .arg(describeJsonValue(v)));
        return;
    }
    const QJsonObject o = v.toObject();
    const QString type =
        o.value(QLatin1String("rope_type")).toString(o.value(QLatin1String("type")).toString());
    auto number = [&](const char* key, double fallback) {
        const QJsonValue n = o.value(QLatin1String(key));
        if (n.isUndefined() || n.isNull()) return fallback;
        if (!n.isDouble() || !(n.toDouble() > 0.0) || !std::isfinite(n.toDouble())) {
            r.fail("rope_scaling",
                   QStringLiteral("rope_scaling's \"%1\" is %2: give a positive number")
                       .arg(QLatin1String(key), describeJsonValue(n)));
            return fallback;
        }
        return n.toDouble();
    };
    if (type == QLatin1String("default")) return;
    if (type == QLatin1String("linear")) {
        rope.scaling = RopeScaling::Linear;
        rope.factor = static_cast<float>(number("factor", 1.0));
        return;
    }
    if (type == QLatin1String("llama3")) {
        rope.scaling = RopeScaling::Llama3;
        rope.factor = static_cast<float>(number("factor", 8.0));
        rope.low_freq_factor = static_cast<float>(number("low_freq_factor", 1.0));
        rope.high_freq_factor = static_cast<float>(number("high_freq_factor", 4.0));
        rope.original_max_positions =
            static_cast<Eigen::Index>(number("original_max_position_embeddings", 8192.0));
        return;
    }
    r.fail("rope_scaling",
           QStringLiteral("rope_scaling type \"%1\" is not computed: only none, \"linear\" and "
                          "\"llama3\" are (dynamic, yarn and longrope scale positions "
                          "differently)")
               .arg(type.left(40)));
}

// LlamaConfig and the configs that share its layout; `family` says which.
ModelConfigResult parseLlamaConfig(const JsonText& text, const QJsonObject& o, ModelFamily family) {
    ConfigReader r(text, o);
    TransformerSpec s;
    s.family = family;
    s.norm = NormKind::RMSNorm;
    s.positions = PositionKind::Rotary;
    s.fused_qkv = false;
    s.out_bias = false;
    s.mlp = MlpKind::Gated;
    s.activation = ActivationKind::Silu;
    s.mlp_bias = false;
    s.d_model = r.dimension("hidden_size");
    s.d_ff = r.dimension("intermediate_size");
    s.num_layers = r.dimension("num_hidden_layers");
    s.num_heads = r.dimension("num_attention_heads");
    s.num_kv_heads = r.dimension("num_key_value_heads", s.num_heads);
    s.vocab_size = r.dimension("vocab_size");
    s.max_positions = r.dimension("max_position_embeddings", 2048);
    if (r.failed()) return ModelConfigResult::failure(r.error());
    s.head_dim = r.has("head_dim") ? r.dimension("head_dim") : s.d_model / s.num_heads;
    if (!r.has("head_dim") && s.d_model % s.num_heads != 0)
        r.fail("num_attention_heads",
               QStringLiteral("hidden_size %1 is not divisible by num_attention_heads %2 and "
                              "there is no head_dim")
                   .arg(s.d_model)
                   .arg(s.num_heads));
    if (s.num_heads % s.num_kv_heads != 0)
        r.fail("num_key_value_heads",
               QStringLiteral("num_attention_heads %1 is not a multiple of num_key_value_heads "
                              "%2: each K/V head serves a whole group of query heads")
                   .arg(s.num_heads)
                   .arg(s.num_kv_heads));
    s.norm_eps = static_cast<float>(r.positive("rms_norm_eps", 1e-6));
    s.rope.base = static_cast<float>(r.positive("rope_theta", 10000.0));
    readRopeScaling(r, s.rope);
    s.tied_output = r.boolean("tie_word_embeddings", false);
    const QJsonValue act = r.value("hidden_act");
    if (!act.isUndefined() && act.toString() != QLatin1String("silu"))
        r.fail("hidden_act", QStringLiteral("hidden_act %1 is not computed: these models use "
                                            "\"silu\" (SwiGLU)")
                                 .arg(describeJsonValue(act)));
    // Qwen2 always has q/k/v biases; LLaMA and Qwen3 when attention_bias says so.
    s.qkv_bias = family == ModelFamily::Qwen2 || r.boolean("attention_bias", false);
    if (family != ModelFamily::Qwen2 && s.qkv_bias)
        r.fail("attention_bias", QStringLiteral("attention_bias true (a bias on o_proj too) is "
                                                "not read: only models without it are"));
    if (r.boolean("mlp_bias", false))
        r.fail("mlp_bias", QStringLiteral("mlp_bias true is not read: only MLPs without biases "
                                          "are"));
    s.qk_norm = family == ModelFamily::Qwen3;
    if (family == ModelFamily::Mistral && r.has("sliding_window"))
        s.sliding_window = r.dimension("sliding_window");
    if ((family == ModelFamily::Qwen2 || family == ModelFamily::Qwen3) &&
        r.boolean("use_sliding_window", false))
        r.fail("use_sliding_window",
               QStringLiteral("use_sliding_window true (a window on some layers only) is not "
                              "computed: only Qwen models without it are"));
    ModelConfigResult result;
    result.bosTokenIds = r.tokenIds("bos_token_id");
    result.eosTokenIds = r.tokenIds("eos_token_id");
    if (r.failed()) return ModelConfigResult::failure(r.error());
    try {
        check_spec(s);
    } catch (const AttentionError& e) {
        return ModelConfigResult::failure(QStringLiteral("config.json: ") +
                                          QString::fromStdString(e.what()));
    }
    result.spec = s;
    return result;
}

// hidden_act / DistilBERT's activation: transformers' ACT2FN names the core computes.
ActivationKind readEncoderActivation(ConfigReader& r, const char* key) {
    if (!r.has(key)) return ActivationKind::GeluErf;
    const QJsonValue v = r.value(key);
    const QString name = v.toString();
    if (name == QLatin1String("gelu")) return ActivationKind::GeluErf;
    if (name == QLatin1String("gelu_new") || name == QLatin1String("gelu_pytorch_tanh"))
        return ActivationKind::GeluTanh;
    if (name == QLatin1String("relu")) return ActivationKind::Relu;
    r.fail(key, QStringLiteral("\"%1\" is %2: give \"gelu\" (exact erf GELU, BERT's), "
                               "\"gelu_new\" (the tanh approximation) or \"relu\"")
                    .arg(QLatin1String(key), describeJsonValue(v)));
    return ActivationKind::GeluErf;
}

// BertConfig, RobertaConfig and DistilBertConfig with their defaults (bert-base's sizes). The
// masked-LM head is the loader's to find: config.json does not say whether the file has it.
ModelConfigResult parseEncoderConfig(const JsonText& text, const QJsonObject& o,
                                     ModelFamily family) {
    ConfigReader r(text, o);
    TransformerSpec s;
    s.family = family;
    s.pre_norm = false;
    s.causal = false;
    s.fused_qkv = false;
    s.embed_norm = true;
    const bool distil = family == ModelFamily::DistilBert;
    s.vocab_size = r.dimension("vocab_size", family == ModelFamily::Roberta ? 50265 : 30522);
    s.max_positions = r.dimension("max_position_embeddings", 512);
    const char* heads = distil ? "n_heads" : "num_attention_heads";
    const char* width = distil ? "dim" : "hidden_size";
    if (distil) {
        s.d_model = r.dimension("dim", 768);
        s.num_layers = r.dimension("n_layers", 6);
        s.num_heads = r.dimension("n_heads", 12);
        s.d_ff = r.dimension("hidden_dim", 3072);
        s.activation = readEncoderActivation(r, "activation");
        s.norm_eps = 1e-12f;  // DistilBERT's LayerNorms fix it
        if (r.boolean("sinusoidal_pos_embds", false))
            r.fail("sinusoidal_pos_embds",
                   QStringLiteral("sinusoidal_pos_embds true (fixed sine positions) is not read: "
                                  "only learned position embeddings are; use a model trained "
                                  "with false"));
    } else {
        s.d_model = r.dimension("hidden_size", 768);
        s.num_layers = r.dimension("num_hidden_layers", 12);
        s.num_heads = r.dimension("num_attention_heads", 12);
        s.d_ff = r.dimension("intermediate_size", 3072);
        s.activation = readEncoderActivation(r, "hidden_act");
        s.type_vocab_size = r.dimension("type_vocab_size", 2);
        s.norm_eps = static_cast<float>(r.positive("layer_norm_eps", 1e-12));
        const QJsonValue positions = r.value("position_embedding_type");
        if (r.has("position_embedding_type") && positions.toString() != QLatin1String("absolute"))
            r.fail("position_embedding_type",
                   QStringLiteral("\"position_embedding_type\" is %1: only \"absolute\" "
                                  "(learned positions) is computed")
                       .arg(describeJsonValue(positions)));
    }
    if (r.failed()) return ModelConfigResult::failure(r.error());
    if (s.d_model % s.num_heads != 0)
        r.fail(heads, QStringLiteral("%1 %2 is not divisible by %3 %4: the heads split the "
                                     "width evenly")
                          .arg(QLatin1String(width))
                          .arg(s.d_model)
                          .arg(QLatin1String(heads))
                          .arg(s.num_heads));
    s.num_kv_heads = s.num_heads;
    s.head_dim = s.d_model / s.num_heads;
    if (family == ModelFamily::Roberta) {
        const std::vector<int> pad =
            r.has("pad_token_id") ? r.tokenIds("pad_token_id") : std::vector<int>{1};
        if (!r.failed() && pad.size() != 1)
            r.fail("pad_token_id", QStringLiteral("\"pad_token_id\" must be one token id (1 "
                                                  "in roberta-base)"));
        else if (!pad.empty() && pad.front() + 1 >= s.max_positions)
            r.fail("pad_token_id",
                   QStringLiteral("pad_token_id %1 leaves no positions in the %2 rows of "
                                  "max_position_embeddings: RoBERTa's positions start after it")
                       .arg(pad.front())
                       .arg(s.max_positions));
        else if (!pad.empty())
            s.padding_idx = pad.front();
    }
    if (r.failed()) return ModelConfigResult::failure(r.error());
    try {
        check_spec(s);
    } catch (const AttentionError& e) {
        return ModelConfigResult::failure(QStringLiteral("config.json: ") +
                                          QString::fromStdString(e.what()));
    }
    ModelConfigResult result;
    result.spec = s;
    return result;
}

}  // namespace

QString modelTypeOf(const QByteArray& configJson) {
    return QJsonDocument::fromJson(configJson)
        .object()
        .value(QLatin1String("model_type"))
        .toString();
}

ModelConfigResult parseModelConfig(const QByteArray& json) {
    auto fail = [](const QString& message) { return ModelConfigResult::failure(message); };
    const JsonText text(QStringLiteral("config.json"), json);
    QString error;
    const std::optional<QJsonObject> o = text.parseObject(
        QStringLiteral("copy config.json again from the model"),
        QStringLiteral("a model config is an object such as {\"model_type\": \"gpt2\", ...}"),
        &error);
    if (!o) return fail(error);
    const QJsonValue type = o->value(QLatin1String("model_type"));
    const QString name = type.toString();
    if (name == QLatin1String("gpt2")) return parseGpt2Config(text, *o);
    if (name == QLatin1String("llama")) return parseLlamaConfig(text, *o, ModelFamily::Llama);
    if (name == QLatin1String("mistral")) return parseLlamaConfig(text, *o, ModelFamily::Mistral);
    if (name == QLatin1String("qwen2")) return parseLlamaConfig(text, *o, ModelFamily::Qwen2);
    if (name == QLatin1String("qwen3")) return parseLlamaConfig(text, *o, ModelFamily::Qwen3);
    if (name == QLatin1String("bert")) return parseEncoderConfig(text, *o, ModelFamily::Bert);
    if (name == QLatin1String("distilbert"))
        return parseEncoderConfig(text, *o, ModelFamily::DistilBert);
    if (name == QLatin1String("roberta")) return parseEncoderConfig(text, *o, ModelFamily::Roberta);
    return fail(text.message(
        {jsonKey("model_type")},
        QStringLiteral("\"model_type\" is %1; the models that open are \"gpt2\", \"llama\" "
                       "(Llama 2/3, TinyLlama, SmolLM), \"mistral\", \"qwen2\", \"qwen3\", "
                       "and the encoders \"bert\", \"distilbert\" and \"roberta\"")
            .arg(describeJsonValue(type))));
}

}  // namespace attn
