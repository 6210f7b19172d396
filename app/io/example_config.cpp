// Reading an example file's "config" object: the module settings, each checked against its range
// with the line and column of a bad value. The rest of the file is example_file.cpp.
#include <QJsonArray>
#include <cmath>

#include "app/io/example_file_read.h"

namespace attn::example_read {

namespace {

constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53: larger JSON integers lose digits
constexpr qsizetype kMaxSettingValue = qsizetype{1} << 20;

// A setting's value while the object is read; "mask" is checked against "causal" and "window"
// once every key is read.
struct ConfigReading {
    const JsonText& text;
    attn::ModuleConfig config;
    std::optional<bool>* training;
    QString mask;  // "causal", "bidirectional" or "window"
    JsonPath maskAt;
};

qsizetype integer(const JsonText& text, const QJsonValue& v, const JsonPath& at, const QString& key,
                  double min, double max, const QString& meaning) {
    const double d = v.toDouble(std::nan(""));
    if (!v.isDouble() || d != std::floor(d) || d < min || d > max) {
        text.fail(at, QStringLiteral("config \"%1\" is %2: give a whole number from %3 to %4 (%5)")
                          .arg(key, describeJsonValue(v), QString::number(min, 'g', 17),
                               QString::number(max, 'g', 17), meaning));
    }
    return static_cast<qsizetype>(d);
}

// The whole-number settings: range, meaning (for the message) and where the value goes.
struct IntegerSetting {
    const char* key;
    double min;
    double max;
    const char* meaning;
    void (*set)(attn::ModuleConfig&, qsizetype);
};

const IntegerSetting kIntegerSettings[] = {
    {"seed", 0, kMaxExactInteger, "torch.manual_seed",
     [](attn::ModuleConfig& c, qsizetype v) { c.seed = static_cast<std::uint64_t>(v); }},
    {"d_out", 0, attn::kMaxWidth, "0 = the module's default",
     [](attn::ModuleConfig& c, qsizetype v) { c.d_out = v; }},
    {"num_heads", 0, attn::kMaxWidth, "0 = the module's default",
     [](attn::ModuleConfig& c, qsizetype v) { c.num_heads = v; }},
    {"dim_k", 0, attn::kMaxWidth, "0 = d_in",
     [](attn::ModuleConfig& c, qsizetype v) { c.dim_k = v; }},
    {"dim_v", 0, attn::kMaxWidth, "0 = d_in",
     [](attn::ModuleConfig& c, qsizetype v) { c.dim_v = v; }},
    {"batch", 1, attn::kMaxBatch, "copies of the sequence",
     [](attn::ModuleConfig& c, qsizetype v) { c.batch = v; }},
    {"context_length", 0, static_cast<double>(kMaxSettingValue), "0 = the sequence length",
     [](attn::ModuleConfig& c, qsizetype v) { c.context_length = v; }},
    {"num_kv_heads", 0, attn::kMaxWidth, "0 = num_heads",
     [](attn::ModuleConfig& c, qsizetype v) { c.num_kv_heads = v; }},
    {"window", 0, static_cast<double>(kMaxSettingValue), "0 = no window",
     [](attn::ModuleConfig& c, qsizetype v) { c.window = v; }},
    {"position_offset", 0, double{1 << 24}, "the first token's RoPE position",
     [](attn::ModuleConfig& c, qsizetype v) { c.position_offset = v; }},
};

bool readInteger(ConfigReading& r, const QString& key, const QJsonValue& v, const JsonPath& vAt) {
    for (const IntegerSetting& s : kIntegerSettings) {
        if (key == QLatin1String(s.key)) {
            s.set(r.config, integer(r.text, v, vAt, key, s.min, s.max, QLatin1String(s.meaning)));
            return true;
        }
    }
    return false;
}

bool readBool(ConfigReading& r, const QString& key, const QJsonValue& v, const JsonPath& vAt) {
    static const QStringList keys = {"qkv_bias", "training", "causal", "scale", "rope"};
    if (!keys.contains(key)) {
        return false;
    }
    if (!v.isBool()) {
        r.text.fail(vAt, QStringLiteral("config \"%1\" is %2: give true or false")
                             .arg(key, describeJsonValue(v)));
    }
    const bool b = v.toBool();
    if (key == QLatin1String("qkv_bias")) {
        r.config.qkv_bias = b;
    } else if (key == QLatin1String("training")) {
        *r.training = b;
    } else if (key == QLatin1String("causal")) {
        r.config.causal = b;
    } else if (key == QLatin1String("scale")) {
        r.config.scale = b;
    } else {
        r.config.rope = b;
    }
    return true;
}

bool readList(ConfigReading& r, const QString& key, const QJsonValue& v, const JsonPath& vAt) {
    // Ranges and counts against heads, batch and T are the model's checks (resolve_config).
    QString example;
    if (key == QLatin1String("head_mask")) {
        example = QStringLiteral("a list of factors such as [1, 0.5]");
    } else if (key == QLatin1String("prune_heads")) {
        example = QStringLiteral("a list of head numbers such as [0, 2]");
    } else if (key == QLatin1String("lengths")) {
        example = QStringLiteral("a list of sequence lengths such as [6, 4]");
    } else {
        return false;
    }
    if (!v.isArray()) {
        r.text.fail(
            vAt,
            QStringLiteral("config \"%1\" is %2, not %3").arg(key, describeJsonValue(v), example));
    }
    const QJsonArray array = v.toArray();
    attn::ModuleConfig& c = r.config;
    if (key == QLatin1String("head_mask")) {
        c.head_mask.clear();
        for (qsizetype i = 0; i < array.size(); ++i) {
            c.head_mask.push_back(
                number(r.text, array.at(i), jsonChild(vAt, i),
                       QStringLiteral("config \"head_mask\", value %1").arg(i + 1)));
        }
    } else if (key == QLatin1String("prune_heads")) {
        c.prune_heads.clear();
        for (qsizetype i = 0; i < array.size(); ++i) {
            c.prune_heads.push_back(integer(r.text, array.at(i), jsonChild(vAt, i), key, 0,
                                            attn::kMaxWidth - 1, QStringLiteral("a head number")));
        }
    } else {
        c.lengths.clear();
        for (qsizetype i = 0; i < array.size() && i <= attn::kMaxBatch; ++i) {
            c.lengths.push_back(integer(r.text, array.at(i), jsonChild(vAt, i), key, 0,
                                        static_cast<double>(kMaxSettingValue),
                                        QStringLiteral("a sequence length")));
        }
    }
    return true;
}

// The settings that are neither whole numbers, flags nor lists.
void readOther(ConfigReading& r, const QString& key, const QJsonValue& v, const JsonPath& vAt) {
    const JsonText& text = r.text;
    attn::ModuleConfig& c = r.config;
    if (key == QLatin1String("module")) {
        if (!v.isString()) {
            text.fail(vAt, QStringLiteral("config \"module\" is %1, not a module name")
                               .arg(describeJsonValue(v)));
        }
        try {
            c.module = attn::module_kind_from_name(v.toString().toStdString());
        } catch (const attn::AttentionError& e) {
            text.fail(vAt, QString::fromStdString(e.what()));
        }
    } else if (key == QLatin1String("dropout")) {
        const double d = v.toDouble(-1.0);
        if (!v.isDouble() || d < 0.0 || d > 1.0) {
            text.fail(vAt,
                      QStringLiteral("config \"dropout\" is %1: give a probability from 0 to 1")
                          .arg(describeJsonValue(v)));
        }
        c.dropout = static_cast<float>(d);
    } else if (key == QLatin1String("mask_convention")) {
        if (v == QJsonValue(QStringLiteral("zero"))) {
            c.mask_convention = attn::MaskConvention::FillWhereZero;
        } else if (v == QJsonValue(QStringLiteral("one"))) {
            c.mask_convention = attn::MaskConvention::FillWhereOne;
        } else {
            text.fail(vAt, QStringLiteral("config \"mask_convention\" is %1: give \"zero\" "
                                          "(fill where mask == 0) or \"one\" (mask == 1)")
                               .arg(describeJsonValue(v)));
        }
    } else if (key == QLatin1String("rope_base")) {
        const double d = v.toDouble(std::nan(""));
        if (!v.isDouble() || !(d > 1.0) || d > 3.0e38) {
            text.fail(vAt, QStringLiteral("config \"rope_base\" is %1: give a number above 1 "
                                          "such as 10000")
                               .arg(describeJsonValue(v)));
        }
        c.rope_base = static_cast<float>(d);
    } else if (key == QLatin1String("mask")) {
        if (v != QJsonValue(QStringLiteral("causal")) &&
            v != QJsonValue(QStringLiteral("bidirectional")) &&
            v != QJsonValue(QStringLiteral("window"))) {
            text.fail(vAt, QStringLiteral("config \"mask\" is %1: give \"causal\", "
                                          "\"bidirectional\" or \"window\"")
                               .arg(describeJsonValue(v)));
        }
        r.mask = v.toString();
        r.maskAt = vAt;
    } else if (key == QLatin1String("fill")) {
        // JSON has no infinity: -inf is written as the string "-inf".
        if (v == QJsonValue(QStringLiteral("-inf"))) {
            c.fill_value = attn::kNegInf;
        } else if (v.isDouble() && std::isfinite(v.toDouble()) &&
                   std::abs(v.toDouble()) <= 3.0e38) {
            c.fill_value = static_cast<float>(v.toDouble());
        } else {
            text.fail(vAt, QStringLiteral("config \"fill\" is %1: give a number such as "
                                          "-1e9 or -1e4, or \"-inf\"")
                               .arg(describeJsonValue(v)));
        }
    }
}

// "mask" says again what "causal" and "window" say; they must agree.
void checkMask(ConfigReading& r, const JsonPath& at) {
    attn::ModuleConfig& c = r.config;
    if (c.window > 0 && r.mask != QLatin1String("window")) {
        r.text.fail(jsonChild(at, QStringLiteral("window")),
                    QStringLiteral("config \"window\" is %1 but \"mask\" is not \"window\": add "
                                   "\"mask\": \"window\" or remove the window")
                        .arg(c.window));
    }
    if (r.mask.isEmpty()) {
        return;
    }
    if (r.mask == QLatin1String("window") && c.window == 0) {
        r.text.fail(r.maskAt, QStringLiteral("config \"mask\" is \"window\" without a width: add "
                                             "\"window\": W (W >= 1)"));
    }
    const bool causal = r.mask != QLatin1String("bidirectional");
    if (c.causal.has_value() && *c.causal != causal) {
        r.text.fail(r.maskAt,
                    QStringLiteral("config \"mask\" is \"%1\" but \"causal\" is %2: "
                                   "give one of them, or make them agree")
                        .arg(r.mask, *c.causal ? QStringLiteral("true") : QStringLiteral("false")));
    }
    // As on the command line: "bidirectional" is causal = false, "causal" causal = true; a
    // module that is causal anyway keeps causal unset, so a saved session reads back as it was.
    if (!causal || !c.module || !attn::module_info(*c.module).causal_by_default) c.causal = causal;
}

}  // namespace

attn::ModuleConfig parseConfig(const JsonText& text, const QJsonValue& value, const JsonPath& at,
                               std::optional<bool>* training) {
    if (!value.isObject()) {
        text.fail(at, QStringLiteral("\"config\" is %1, not an object of module settings")
                          .arg(describeJsonValue(value)));
    }
    const QJsonObject object = value.toObject();
    checkKeys(text, object, at,
              {"module",  "seed",     "d_out",    "num_heads", "batch",       "context_length",
               "dropout", "qkv_bias", "training", "causal",    "scale",       "mask_convention",
               "fill",    "dim_k",    "dim_v",    "head_mask", "prune_heads", "num_kv_heads",
               "mask",    "window",   "lengths",  "rope",      "rope_base",   "position_offset"},
              QStringLiteral("\"config\""));
    ConfigReading r{text, {}, training, {}, {}};
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString& key = it.key();
        const QJsonValue v = it.value();
        const JsonPath vAt = jsonChild(at, key);
        if (!readInteger(r, key, v, vAt) && !readBool(r, key, v, vAt) &&
            !readList(r, key, v, vAt)) {
            readOther(r, key, v, vAt);
        }
    }
    checkMask(r, at);
    return r.config;
}

}  // namespace attn::example_read
