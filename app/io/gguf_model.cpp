#include "app/io/gguf_model.h"

#include <QMap>
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "app/io/weight_arena.h"
#include "model/ggml_types.h"
#include "model/quant.h"

namespace attn {

namespace {

using Index = Eigen::Index;

// llama.cpp's tensor names for each role ("{L}" the layer), as its converter writes them.
const char* ggufTensorName(TensorRole role) {
    using R = TensorRole;
    switch (role) {
        case R::TokenEmbedding:
            return "token_embd.weight";
        case R::AttnNormWeight:
            return "blk.{L}.attn_norm.weight";
        case R::QueryWeight:
            return "blk.{L}.attn_q.weight";
        case R::QueryBias:
            return "blk.{L}.attn_q.bias";
        case R::KeyWeight:
            return "blk.{L}.attn_k.weight";
        case R::KeyBias:
            return "blk.{L}.attn_k.bias";
        case R::ValueWeight:
            return "blk.{L}.attn_v.weight";
        case R::ValueBias:
            return "blk.{L}.attn_v.bias";
        case R::OutWeight:
            return "blk.{L}.attn_output.weight";
        case R::QueryNormWeight:
            return "blk.{L}.attn_q_norm.weight";
        case R::KeyNormWeight:
            return "blk.{L}.attn_k_norm.weight";
        case R::MlpNormWeight:
            return "blk.{L}.ffn_norm.weight";
        case R::GateWeight:
            return "blk.{L}.ffn_gate.weight";
        case R::UpWeight:
            return "blk.{L}.ffn_up.weight";
        case R::DownWeight:
            return "blk.{L}.ffn_down.weight";
        case R::FinalNormWeight:
            return "output_norm.weight";
        case R::OutputWeight:
            return "output.weight";
        default:
            return nullptr;
    }
}

QByteArray ggufName(TensorRole role, Index layer) {
    QByteArray name(ggufTensorName(role));
    return name.replace("{L}", QByteArray::number(static_cast<qint64>(layer)));
}

QString dimsText(const std::vector<qint64>& dims) {
    QStringList parts;
    for (qint64 d : dims) parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

// The architectures the core computes, as llama.cpp names them.
std::optional<ModelFamily> familyOf(const QString& architecture) {
    if (architecture == QLatin1String("llama")) return ModelFamily::Llama;
    if (architecture == QLatin1String("qwen2")) return ModelFamily::Qwen2;
    if (architecture == QLatin1String("qwen3")) return ModelFamily::Qwen3;
    return std::nullopt;
}

// The matrices' types by the bytes they take, most first: "Q4_K + Q6_K".
QString dtypeOf(const GgufFile& file) {
    QMap<QString, quint64> bytes;
    for (const GgufTensorInfo& t : file.tensors())
        if (t.dims.size() == 2 && t.dims[1] > 1) {
            const char* name = ggml_type_traits(t.type).name;
            bytes[name ? QString::fromLatin1(name) : QString::number(t.type)] += t.bytes;
        }
    QList<QString> names = bytes.keys();
    std::sort(names.begin(), names.end(),
              [&](const QString& a, const QString& b) { return bytes[a] > bytes[b]; });
    return names.join(QStringLiteral(" + "));
}

// Floats of a 1-d tensor (rope_freqs, norms): F32 in place is read, others converted.
std::vector<float> tensorFloats(const GgufTensorInfo& t) {
    std::vector<float> out(static_cast<std::size_t>(t.elements));
    dequantize_row(static_cast<GgmlType>(t.type), t.data, out.data(), t.elements);
    return out;
}

bool readSpec(const GgufFile& file, ModelFamily family, TransformerSpec& s, QString* error) {
    auto need = [&](const char* key, Index* out) {
        const std::optional<qint64> v = file.integer(QByteArray("{arch}.") + key);
        if (!v || *v < 1 || *v > (qint64{1} << 24)) {
            *error = QStringLiteral(
                         "the file's %1.%2 is %3: converted by a llama.cpp that "
                         "does not write it? Convert the model again")
                         .arg(file.architecture(), QLatin1String(key),
                              v ? QString::number(*v) : QStringLiteral("missing"));
            return false;
        }
        *out = static_cast<Index>(*v);
        return true;
    };
    s.family = family;
    s.norm = NormKind::RMSNorm;
    s.positions = PositionKind::Rotary;
    s.fused_qkv = false;
    s.out_bias = false;
    s.mlp = MlpKind::Gated;
    s.activation = ActivationKind::Silu;
    s.mlp_bias = false;
    if (!need("embedding_length", &s.d_model) || !need("block_count", &s.num_layers) ||
        !need("feed_forward_length", &s.d_ff) || !need("attention.head_count", &s.num_heads) ||
        !need("context_length", &s.max_positions))
        return false;
    // Every layer's tensors must be there before anything is sized by block_count.
    const QByteArray lastLayer =
        "blk." + QByteArray::number(static_cast<qint64>(s.num_layers - 1)) + ".attn_norm.weight";
    if (!file.tensor(lastLayer)) {
        *error = QStringLiteral(
                     "%1.block_count is %2 but the file has no %3: it is not a "
                     "complete model")
                     .arg(file.architecture())
                     .arg(s.num_layers)
                     .arg(QString::fromLatin1(lastLayer));
        return false;
    }
    s.num_kv_heads = s.num_heads;
    if (file.value("{arch}.attention.head_count_kv") &&
        !need("attention.head_count_kv", &s.num_kv_heads))
        return false;
    s.head_dim = s.d_model / s.num_heads;
    if (file.value("{arch}.attention.key_length") && !need("attention.key_length", &s.head_dim))
        return false;
    Index value_length = s.head_dim;
    if (file.value("{arch}.attention.value_length") &&
        !need("attention.value_length", &value_length))
        return false;
    if (value_length != s.head_dim) {
        *error = QStringLiteral("key_length %1 differs from value_length %2: not computed")
                     .arg(s.head_dim)
                     .arg(value_length);
        return false;
    }
    s.norm_eps =
        static_cast<float>(file.floating("{arch}.attention.layer_norm_rms_epsilon").value_or(1e-5));
    s.rope.base = static_cast<float>(file.floating("{arch}.rope.freq_base").value_or(10000.0));
    const QByteArray scaling = file.string("{arch}.rope.scaling.type").value_or(QByteArray());
    const double linear = file.floating("{arch}.rope.scale_linear").value_or(1.0);
    if (scaling == "linear" || (scaling.isEmpty() && linear != 1.0)) {
        s.rope.scaling = RopeScaling::Linear;
        s.rope.factor =
            static_cast<float>(file.floating("{arch}.rope.scaling.factor").value_or(linear));
    } else if (!scaling.isEmpty() && scaling != "none") {
        *error = QStringLiteral(
                     "rope scaling \"%1\" is not computed: only none, linear and "
                     "Llama 3's rope_freqs are")
                     .arg(QString::fromUtf8(scaling.left(40)));
        return false;
    }
    if (const GgufTensorInfo* freqs = file.tensor("rope_freqs.weight")) {
        if (freqs->dims.size() != 1 || !ggml_type_computed(freqs->type)) {
            *error = QStringLiteral(
                         "rope_freqs.weight has dims %1 of type %2: expected head_dim "
                         "/ 2 floats")
                         .arg(dimsText(freqs->dims))
                         .arg(freqs->type);
            return false;
        }
        s.rope.freq_factors = tensorFloats(*freqs);
    }
    const GgufTensorInfo* embedding = file.tensor("token_embd.weight");
    if (!embedding || embedding->dims.size() != 2) {
        *error = QStringLiteral(
            "the file has no token_embd.weight of two dimensions: it is not a "
            "complete model");
        return false;
    }
    s.vocab_size = static_cast<Index>(embedding->dims[1]);
    s.tied_output = file.tensor("output.weight") == nullptr;
    s.qkv_bias = family == ModelFamily::Qwen2;
    s.qk_norm = family == ModelFamily::Qwen3;
    try {
        check_spec(s);
    } catch (const AttentionError& e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

// Hugging Face's row order of one projection whose heads llama.cpp's converter permuted: row
// h·hd + i·hd/2 + j is the file's row h·hd + 2j + i.
std::shared_ptr<std::vector<uchar>> unpermuteRows(const GgufTensorInfo& t, Index heads,
                                                  Index head_dim) {
    const auto rowBytes = static_cast<std::size_t>(t.bytes / static_cast<quint64>(t.dims[1]));
    auto out = std::make_shared<std::vector<uchar>>(t.bytes);
    const Index half = head_dim / 2;
    for (Index h = 0; h < heads; ++h)
        for (Index i = 0; i < 2; ++i)
            for (Index j = 0; j < half; ++j) {
                const auto to = static_cast<std::size_t>(h * head_dim + i * half + j);
                const auto from = static_cast<std::size_t>(h * head_dim + 2 * j + i);
                std::memcpy(out->data() + to * rowBytes, t.data + from * rowBytes, rowBytes);
            }
    return out;
}

}  // namespace

GgufModelInfo ggufModelInfo(const GgufFile& file) {
    GgufModelInfo info;
    info.architecture = file.architecture();
    info.name = QString::fromUtf8(file.string("general.name").value_or(QByteArray()));
    for (const GgufTensorInfo& t : file.tensors()) info.parameters += t.elements;
    info.dtype = dtypeOf(file);
    const std::optional<ModelFamily> family = familyOf(info.architecture);
    if (!family) {
        info.error = QStringLiteral(
                         "architecture \"%1\" is not supported: GGUF files of llama "
                         "(Llama 2/3, TinyLlama, SmolLM, Mistral), qwen2 and qwen3 "
                         "open")
                         .arg(info.architecture.left(40));
        return info;
    }
    TransformerSpec spec;
    if (!readSpec(file, *family, spec, &info.error)) return info;
    info.spec = spec;
    return info;
}

GgufVocabResult ggufVocab(const GgufFile& file) {
    GgufVocabResult r;
    GgufVocab v;
    const GgufValue* tokens = file.value("tokenizer.ggml.tokens");
    const std::optional<QList<QByteArray>> list =
        tokens ? tokens->stringArray() : std::optional<QList<QByteArray>>();
    if (!list || list->isEmpty()) {
        r.error = QStringLiteral(
            "the file has no vocabulary (tokenizer.ggml.tokens): convert the "
            "model again with its tokenizer");
        return r;
    }
    v.tokens = *list;
    v.model = file.string("tokenizer.ggml.model").value_or(QByteArray("llama"));
    v.pre = file.string("tokenizer.ggml.pre").value_or(QByteArray());
    auto numbers = [&](const char* key) {
        const GgufValue* value = file.value(key);
        return value ? value->numberArray().value_or(std::vector<double>()) : std::vector<double>();
    };
    for (double score : numbers("tokenizer.ggml.scores"))
        v.scores.push_back(static_cast<float>(score));
    for (double type : numbers("tokenizer.ggml.token_type"))
        v.tokenTypes.push_back(static_cast<int>(type));
    if (const GgufValue* merges = file.value("tokenizer.ggml.merges"))
        v.merges = merges->stringArray().value_or(QList<QByteArray>());
    auto id = [&](const char* key) -> std::optional<int> {
        const std::optional<qint64> value = file.integer(key);
        if (!value || *value < 0 || *value >= v.tokens.size()) return std::nullopt;
        return static_cast<int>(*value);
    };
    v.bos = id("tokenizer.ggml.bos_token_id");
    v.eos = id("tokenizer.ggml.eos_token_id");
    v.unk = id("tokenizer.ggml.unknown_token_id");
    v.pad = id("tokenizer.ggml.padding_token_id");
    v.addBos = file.boolean("tokenizer.ggml.add_bos_token");
    v.addEos = file.boolean("tokenizer.ggml.add_eos_token");
    v.addSpacePrefix = file.boolean("tokenizer.ggml.add_space_prefix");
    r.vocab = std::move(v);
    return r;
}

ModelLoadResult loadGgufWeights(const GgufFile& file, const ModelLoadOptions& options) {
    auto fail = [](const QString& message) {
        return ModelLoadResult{std::nullopt, message, false};
    };
    const GgufModelInfo info = ggufModelInfo(file);
    if (!info.spec) return fail(info.error);
    const QString types = checkGgufTensorTypes(file);
    if (!types.isEmpty()) return fail(types);
    const TransformerSpec& spec = *info.spec;
    const std::vector<TensorEntry> table = tensor_table(spec);
    // The mapping and every converted or reordered buffer.
    auto owners = std::make_shared<std::vector<std::shared_ptr<const void>>>();
    owners->push_back(file.storage());
    // The tensors read as they lie are copied into huge pages (weight_arena.h) when the file is
    // mapped: room for all of them, the few reordered or converted ones left unused (reserved
    // only, never backed by memory).
    std::size_t tensorBytes = 0;
    for (const GgufTensorInfo& t : file.tensors()) tensorBytes += (t.bytes + 63) / 64 * 64;
    WeightCopies copies(tensorBytes, file.fileMapped());
    if (copies.owner()) owners->push_back(copies.owner());
    TransformerWeights weights;
    weights.spec = spec;
    weights.layers.resize(static_cast<std::size_t>(spec.num_layers));
    const bool permuted = info.architecture == QLatin1String("llama");
    qint64 total = 0, done = 0;
    for (const TensorEntry& entry : table) total += entry.per_layer ? spec.num_layers : 1;
    QString error;
    bool cancelled = false;
    auto load = [&](const TensorEntry& entry, Index layer) {
        if (options.cancel && options.cancel->load()) {
            cancelled = true;
            error = QStringLiteral("loading cancelled");
            return false;
        }
        const QByteArray name = ggufName(entry.role, layer);
        const GgufTensorInfo* t = file.tensor(name);
        if (!t) {
            error = QStringLiteral("tensor %1 is missing: the file is not a complete %2 model")
                        .arg(QString::fromUtf8(name), info.architecture);
            return false;
        }
        // GGUF lists dimensions innermost first: (out, in) is stored as [in, out].
        const std::vector<qint64> expected(entry.shape.rbegin(), entry.shape.rend());
        if (t->dims != expected) {
            error = QStringLiteral("tensor %1 has dims %2; the metadata needs %3")
                        .arg(QString::fromUtf8(name), dimsText(t->dims), dimsText(expected));
            return false;
        }
        WeightView& view = weights.slot(entry, layer);
        view.rows = entry.shape.size() == 2 ? static_cast<Index>(entry.shape[0]) : 1;
        view.cols = static_cast<Index>(entry.shape.back());
        view.layout = entry.layout;
        const auto type = static_cast<GgmlType>(t->type);
        if (entry.shape.size() == 1 && type != GgmlType::F32) {
            auto floats = std::make_shared<std::vector<float>>(tensorFloats(*t));
            view.data = floats->data();
            owners->push_back(floats);
        } else {
            const void* data = nullptr;
            const bool rotated =
                entry.role == TensorRole::QueryWeight || entry.role == TensorRole::KeyWeight;
            if (permuted && rotated) {
                auto rows = unpermuteRows(
                    *t, entry.role == TensorRole::QueryWeight ? spec.num_heads : spec.num_kv_heads,
                    spec.head_dim);
                data = rows->data();
                owners->push_back(rows);
            } else {
                data = copies.place(t->data, t->bytes);
            }
            if (type == GgmlType::F32) {
                view.data = static_cast<const float*>(data);
            } else {
                view.blocks = data;
                view.type = type;
            }
        }
        ++done;
        if (options.progress)
            options.progress(static_cast<double>(done) / static_cast<double>(total));
        return true;
    };
    bool ok = true;
    for_each_tensor(table, spec.num_layers,
                    [&](const TensorEntry& entry, Index layer) { ok = ok && load(entry, layer); });
    if (!ok) return ModelLoadResult{std::nullopt, error, cancelled};
    weights.dtype = info.dtype.toStdString();
    weights.storage = owners;
    try {
        check_weights(weights);
    } catch (const AttentionError& e) {
        return fail(QString::fromStdString(e.what()));
    }
    return ModelLoadResult{std::move(weights), QString(), false};
}

}  // namespace attn
