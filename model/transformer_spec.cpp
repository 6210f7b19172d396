#include "transformer_spec.h"

#include <cmath>
#include <string>
#include <vector>

namespace attn {

namespace {

using Index = Eigen::Index;

void check_size(Index value, const char* name) {
    if (value < 1)
        throw AttentionError(std::string("the model's ") + name + " is " + std::to_string(value) +
                             ": it must be at least 1; check config.json");
}

// GPT-2 (GPT2Model's names; GPT2LMHeadModel adds "transformer." and lm_head.weight).
std::vector<TensorEntry> gpt2_table(const TransformerSpec& s) {
    const Index d = s.d_model, f = s.d_ff, qkv = s.q_width() + 2 * s.kv_width();
    using R = TensorRole;
    using L = TensorLayout;
    std::vector<TensorEntry> t = {
        {"wte.weight", R::TokenEmbedding, false, {s.vocab_size, d}, L::Rows},
        {"h.{L}.ln_1.weight", R::AttnNormWeight, true, {d}, L::Vector},
        {"h.{L}.ln_1.bias", R::AttnNormBias, true, {d}, L::Vector},
        {"h.{L}.attn.c_attn.weight", R::QkvWeight, true, {d, qkv}, L::InOut},
        {"h.{L}.attn.c_attn.bias", R::QkvBias, true, {qkv}, L::Vector},
        {"h.{L}.attn.c_proj.weight", R::OutWeight, true, {s.q_width(), d}, L::InOut},
        {"h.{L}.attn.c_proj.bias", R::OutBias, true, {d}, L::Vector},
        {"h.{L}.ln_2.weight", R::MlpNormWeight, true, {d}, L::Vector},
        {"h.{L}.ln_2.bias", R::MlpNormBias, true, {d}, L::Vector},
        {"h.{L}.mlp.c_fc.weight", R::UpWeight, true, {d, f}, L::InOut},
        {"h.{L}.mlp.c_fc.bias", R::UpBias, true, {f}, L::Vector},
        {"h.{L}.mlp.c_proj.weight", R::DownWeight, true, {f, d}, L::InOut},
        {"h.{L}.mlp.c_proj.bias", R::DownBias, true, {d}, L::Vector},
        {"ln_f.weight", R::FinalNormWeight, false, {d}, L::Vector},
        {"ln_f.bias", R::FinalNormBias, false, {d}, L::Vector},
    };
    // Learned positions right after the token embedding, as GPT2Model registers them.
    if (s.positions == PositionKind::Learned)
        t.insert(t.begin() + 1,
                 {"wpe.weight", R::PositionEmbedding, false, {s.max_positions, d}, L::Rows});
    if (!s.tied_output)
        t.push_back({"lm_head.weight", R::OutputWeight, false, {s.vocab_size, d}, L::Rows, false});
    // Attention-only models have neither norms nor an MLP: those tensors are not in the file.
    if (s.attn_only)
        std::erase_if(t, [](const TensorEntry& e) {
            switch (e.role) {
                case R::AttnNormWeight:
                case R::AttnNormBias:
                case R::MlpNormWeight:
                case R::MlpNormBias:
                case R::UpWeight:
                case R::UpBias:
                case R::DownWeight:
                case R::DownBias:
                case R::FinalNormWeight:
                case R::FinalNormBias:
                    return true;
                default:
                    return false;
            }
        });
    return t;
}

// LLaMA (LlamaModel's names, in the order its modules register them; LlamaForCausalLM adds
// "model." and lm_head.weight). nn.Linear stores (out, in).
std::vector<TensorEntry> llama_table(const TransformerSpec& s) {
    const Index d = s.d_model, f = s.d_ff, q = s.q_width(), kv = s.kv_width();
    using R = TensorRole;
    using L = TensorLayout;
    std::vector<TensorEntry> t = {
        {"embed_tokens.weight", R::TokenEmbedding, false, {s.vocab_size, d}, L::Rows}};
    auto layer = [&](std::string name, R role, std::vector<Index> shape, L layout) {
        t.push_back({"layers.{L}." + std::move(name), role, true, std::move(shape), layout});
    };
    layer("self_attn.q_proj.weight", R::QueryWeight, {q, d}, L::OutIn);
    if (s.qkv_bias) layer("self_attn.q_proj.bias", R::QueryBias, {q}, L::Vector);
    layer("self_attn.k_proj.weight", R::KeyWeight, {kv, d}, L::OutIn);
    if (s.qkv_bias) layer("self_attn.k_proj.bias", R::KeyBias, {kv}, L::Vector);
    layer("self_attn.v_proj.weight", R::ValueWeight, {kv, d}, L::OutIn);
    if (s.qkv_bias) layer("self_attn.v_proj.bias", R::ValueBias, {kv}, L::Vector);
    layer("self_attn.o_proj.weight", R::OutWeight, {d, q}, L::OutIn);
    if (s.qk_norm) {
        layer("self_attn.q_norm.weight", R::QueryNormWeight, {s.head_dim}, L::Vector);
        layer("self_attn.k_norm.weight", R::KeyNormWeight, {s.head_dim}, L::Vector);
    }
    layer("mlp.gate_proj.weight", R::GateWeight, {f, d}, L::OutIn);
    layer("mlp.up_proj.weight", R::UpWeight, {f, d}, L::OutIn);
    layer("mlp.down_proj.weight", R::DownWeight, {d, f}, L::OutIn);
    layer("input_layernorm.weight", R::AttnNormWeight, {d}, L::Vector);
    layer("post_attention_layernorm.weight", R::MlpNormWeight, {d}, L::Vector);
    t.push_back({"norm.weight", R::FinalNormWeight, false, {d}, L::Vector});
    if (!s.tied_output)
        t.push_back({"lm_head.weight", R::OutputWeight, false, {s.vocab_size, d}, L::Rows, false});
    return t;
}

// BERT and RoBERTa (BertModel's / RobertaModel's names; *ForMaskedLM adds "bert." /
// "roberta." and the head's tensors, unprefixed), DistilBERT (DistilBertModel's). Post-norm:
// the attention's output LayerNorm fills AttnNorm*, the block's output LayerNorm MlpNorm*.
std::vector<TensorEntry> encoder_table(const TransformerSpec& s) {
    const Index d = s.d_model, f = s.d_ff, q = s.q_width();
    const bool distil = s.family == ModelFamily::DistilBert;
    using R = TensorRole;
    using L = TensorLayout;
    std::vector<TensorEntry> t = {
        {"embeddings.word_embeddings.weight", R::TokenEmbedding, false, {s.vocab_size, d}, L::Rows},
        {"embeddings.position_embeddings.weight",
         R::PositionEmbedding,
         false,
         {s.max_positions, d},
         L::Rows}};
    if (s.type_vocab_size > 0)
        t.push_back({"embeddings.token_type_embeddings.weight",
                     R::TokenTypeEmbedding,
                     false,
                     {s.type_vocab_size, d},
                     L::Rows});
    t.push_back({"embeddings.LayerNorm.weight", R::EmbedNormWeight, false, {d}, L::Vector});
    t.push_back({"embeddings.LayerNorm.bias", R::EmbedNormBias, false, {d}, L::Vector});
    const std::string base = distil ? "transformer.layer.{L}." : "encoder.layer.{L}.";
    // nn.Linear: weight (out, in) and bias (out); nn.LayerNorm: weight and bias (d).
    auto linear = [&](const std::string& stem, R w, R b, Index out, Index in) {
        t.push_back({base + stem + ".weight", w, true, {out, in}, L::OutIn});
        t.push_back({base + stem + ".bias", b, true, {out}, L::Vector});
    };
    auto layer_norm = [&](const std::string& stem, R w, R b) {
        t.push_back({base + stem + ".weight", w, true, {d}, L::Vector});
        t.push_back({base + stem + ".bias", b, true, {d}, L::Vector});
    };
    if (distil) {
        linear("attention.q_lin", R::QueryWeight, R::QueryBias, q, d);
        linear("attention.k_lin", R::KeyWeight, R::KeyBias, q, d);
        linear("attention.v_lin", R::ValueWeight, R::ValueBias, q, d);
        linear("attention.out_lin", R::OutWeight, R::OutBias, d, q);
        layer_norm("sa_layer_norm", R::AttnNormWeight, R::AttnNormBias);
        linear("ffn.lin1", R::UpWeight, R::UpBias, f, d);
        linear("ffn.lin2", R::DownWeight, R::DownBias, d, f);
        layer_norm("output_layer_norm", R::MlpNormWeight, R::MlpNormBias);
    } else {
        linear("attention.self.query", R::QueryWeight, R::QueryBias, q, d);
        linear("attention.self.key", R::KeyWeight, R::KeyBias, q, d);
        linear("attention.self.value", R::ValueWeight, R::ValueBias, q, d);
        linear("attention.output.dense", R::OutWeight, R::OutBias, d, q);
        layer_norm("attention.output.LayerNorm", R::AttnNormWeight, R::AttnNormBias);
        linear("intermediate.dense", R::UpWeight, R::UpBias, f, d);
        linear("output.dense", R::DownWeight, R::DownBias, d, f);
        layer_norm("output.LayerNorm", R::MlpNormWeight, R::MlpNormBias);
    }
    if (!s.mlm_head) return t;
    // The masked-LM head, saved outside the base model's prefix; its decoder weight is the
    // token embedding (tied), its bias registered before the head's submodules except in
    // DistilBERT, whose vocab_projector comes last.
    auto head = [&](std::string name, R role, std::vector<Index> shape, L layout) {
        t.push_back({std::move(name), role, false, std::move(shape), layout, false});
    };
    const std::string h = s.family == ModelFamily::Bert ? "cls.predictions." : "lm_head.";
    if (distil) {
        head("vocab_transform.weight", R::MlmTransformWeight, {d, d}, L::OutIn);
        head("vocab_transform.bias", R::MlmTransformBias, {d}, L::Vector);
        head("vocab_layer_norm.weight", R::MlmNormWeight, {d}, L::Vector);
        head("vocab_layer_norm.bias", R::MlmNormBias, {d}, L::Vector);
        head("vocab_projector.bias", R::OutputBias, {s.vocab_size}, L::Vector);
        return t;
    }
    const bool bert = s.family == ModelFamily::Bert;
    head(h + "bias", R::OutputBias, {s.vocab_size}, L::Vector);
    head(h + (bert ? "transform.dense.weight" : "dense.weight"), R::MlmTransformWeight, {d, d},
         L::OutIn);
    head(h + (bert ? "transform.dense.bias" : "dense.bias"), R::MlmTransformBias, {d}, L::Vector);
    head(h + (bert ? "transform.LayerNorm.weight" : "layer_norm.weight"), R::MlmNormWeight, {d},
         L::Vector);
    head(h + (bert ? "transform.LayerNorm.bias" : "layer_norm.bias"), R::MlmNormBias, {d},
         L::Vector);
    return t;
}

std::string shape_text(Index rows, Index cols) {
    return std::to_string(rows) + " × " + std::to_string(cols);
}

void check_rope(const TransformerSpec& s) {
    const RopeSpec& r = s.rope;
    if (!std::isfinite(r.base) || r.base <= 1.0f)
        throw AttentionError("rope_theta = " + std::to_string(r.base) +
                             " gives no rotation frequencies: it must be above 1 (LLaMA uses "
                             "10000, Llama 3 500000)");
    if (!r.freq_factors.empty()) {
        if (static_cast<Index>(r.freq_factors.size()) != s.head_dim / 2)
            throw AttentionError("rope_freqs has " + std::to_string(r.freq_factors.size()) +
                                 " values but head_dim / 2 = " + std::to_string(s.head_dim / 2) +
                                 ": the file's rope_freqs does not belong to this model");
        for (float f : r.freq_factors)
            if (!std::isfinite(f) || f <= 0.0f)
                throw AttentionError(
                    "rope_freqs holds a factor that is not a positive number: the file is damaged");
        return;
    }
    if (r.scaling == RopeScaling::None) return;
    if (!std::isfinite(r.factor) || r.factor < 1.0f)
        throw AttentionError("rope_scaling's factor is " + std::to_string(r.factor) +
                             ": it must be a number >= 1");
    if (r.scaling == RopeScaling::Llama3 &&
        (!(r.low_freq_factor > 0.0f) || !(r.high_freq_factor > r.low_freq_factor) ||
         !std::isfinite(r.high_freq_factor) || r.original_max_positions < 1))
        throw AttentionError(
            "rope_scaling (llama3) needs 0 < low_freq_factor < high_freq_factor and "
            "original_max_position_embeddings >= 1: check config.json");
}

// The encoder path computes one layout: BERT's post-norm block with separate q/k/v projections
// and biases, learned positions, LayerNorm, a plain MLP, the embedding norm.
void check_encoder_spec(const TransformerSpec& s) {
    const std::string name = encoder_name(s.family);
    auto refuse = [&](const std::string& what) {
        throw AttentionError(name + " is an encoder computed as BERT's layout, but the spec has " +
                             what);
    };
    if (s.causal) refuse("causal = true: encoders are bidirectional, set causal = false");
    if (s.pre_norm) refuse("pre_norm = true: encoders norm after the residual (pre_norm = false)");
    if (s.positions != PositionKind::Learned) refuse("rotary positions: use learned positions");
    if (s.norm != NormKind::LayerNorm) refuse("RMSNorm: use LayerNorm");
    if (s.fused_qkv || !s.qkv_bias || !s.out_bias || !s.mlp_bias || s.mlp != MlpKind::Plain)
        refuse("fused q/k/v, a gated MLP or projections without biases");
    if (s.sliding_window != 0 || s.qk_norm || s.attn_only || !s.tied_output)
        refuse("a sliding window, qk_norm, attn_only or an untied head");
    if (!s.embed_norm) refuse("no embedding LayerNorm: set embed_norm");
    if (s.num_kv_heads != s.num_heads) refuse("grouped K/V heads: num_kv_heads = num_heads");
    if (s.type_vocab_size < 0) refuse("a negative type_vocab_size");
    if (s.family == ModelFamily::DistilBert && s.type_vocab_size != 0)
        refuse("token types: DistilBERT has none, set type_vocab_size = 0");
    if (s.family == ModelFamily::Roberta) {
        if (s.padding_idx < 0 || s.padding_idx + 1 >= s.max_positions)
            refuse("padding_idx = " + std::to_string(s.padding_idx) +
                   ": RoBERTa's positions start after padding_idx (pad_token_id, 1 in "
                   "roberta-base), which must be from 0 to max_positions - 2");
    } else if (s.padding_idx != -1) {
        refuse("padding_idx = " + std::to_string(s.padding_idx) +
               ": only RoBERTa offsets positions by it; set -1");
    }
}

}  // namespace

void check_spec(const TransformerSpec& s) {
    check_size(s.num_layers, "num_layers");
    check_size(s.d_model, "d_model");
    check_size(s.num_heads, "num_heads");
    check_size(s.num_kv_heads, "num_kv_heads");
    check_size(s.head_dim, "head_dim");
    check_size(s.d_ff, "d_ff");
    check_size(s.vocab_size, "vocab_size");
    check_size(s.max_positions, "max_positions");
    if (s.num_heads % s.num_kv_heads != 0)
        throw AttentionError(
            "num_heads = " + std::to_string(s.num_heads) + " is not a multiple of num_kv_heads = " +
            std::to_string(s.num_kv_heads) + ": each K/V head serves a whole group of query heads");
    if (s.positions == PositionKind::Rotary && s.head_dim % 2 != 0)
        throw AttentionError("rotary positions pair coordinates, but head_dim = " +
                             std::to_string(s.head_dim) + " is odd");
    if (!(s.norm_eps > 0.0f))
        throw AttentionError("the norm's epsilon must be a small positive number");
    if (s.positions == PositionKind::Rotary) check_rope(s);
    if (s.qk_norm && s.norm != NormKind::RMSNorm)
        throw AttentionError("qk_norm (Qwen3's) is an RMSNorm: the spec's norm must be RMSNorm");
    if (is_encoder(s.family))
        check_encoder_spec(s);
    else if (!s.pre_norm)
        // The spec can describe this; the core does not compute it, so it says so rather than
        // giving other numbers than the model's.
        throw AttentionError(
            "post-norm blocks (norm after the residual) are computed for the "
            "encoders (BERT, DistilBERT, RoBERTa) only, but the spec's family "
            "is " +
            family_name(s.family) + ": use pre_norm");
    else if (s.type_vocab_size != 0 || s.embed_norm || s.mlm_head || s.padding_idx != -1)
        throw AttentionError(
            "token types, the embedding norm, the masked-LM head and "
            "padding_idx are encoder parts, but the spec's family is " +
            family_name(s.family) + ": leave them at their defaults");
    if (s.attn_only && s.family != ModelFamily::Gpt2)
        throw AttentionError(
            "attn_only (no norms, no MLP) is computed for the GPT-2 layout only, "
            "but the spec's family is " +
            family_name(s.family) + ": use family gpt2 or drop attn_only");
    if (s.sliding_window < 0)
        throw AttentionError("sliding_window = " + std::to_string(s.sliding_window) +
                             " is negative: give 0 (none) or a window of tokens");
}

std::vector<TensorEntry> tensor_table(const TransformerSpec& spec) {
    switch (spec.family) {
        case ModelFamily::Gpt2:
            return gpt2_table(spec);
        case ModelFamily::Llama:
        case ModelFamily::Mistral:
        case ModelFamily::Qwen2:
        case ModelFamily::Qwen3:
            return llama_table(spec);
        case ModelFamily::Bert:
        case ModelFamily::DistilBert:
        case ModelFamily::Roberta:
            return encoder_table(spec);
    }
    throw AttentionError("unknown model family");
}

std::string tensor_name(const TensorEntry& entry, Index layer) {
    std::string name = entry.name;
    const std::size_t at = name.find("{L}");
    if (at != std::string::npos) name.replace(at, 3, std::to_string(layer));
    return name;
}

std::string lm_head_prefix(ModelFamily family) {
    switch (family) {
        case ModelFamily::Gpt2:
            return "transformer.";
        case ModelFamily::Llama:
        case ModelFamily::Mistral:
        case ModelFamily::Qwen2:
        case ModelFamily::Qwen3:
            return "model.";
        case ModelFamily::Bert:
            return "bert.";
        case ModelFamily::DistilBert:
            return "distilbert.";
        case ModelFamily::Roberta:
            return "roberta.";
    }
    return {};
}

std::string family_name(ModelFamily family) {
    switch (family) {
        case ModelFamily::Gpt2:
            return "gpt2";
        case ModelFamily::Llama:
            return "llama";
        case ModelFamily::Mistral:
            return "mistral";
        case ModelFamily::Qwen2:
            return "qwen2";
        case ModelFamily::Qwen3:
            return "qwen3";
        case ModelFamily::Bert:
            return "bert";
        case ModelFamily::DistilBert:
            return "distilbert";
        case ModelFamily::Roberta:
            return "roberta";
    }
    return {};
}

std::string family_architecture(ModelFamily family) {
    switch (family) {
        case ModelFamily::Gpt2:
            return "GPT2LMHeadModel";
        case ModelFamily::Llama:
            return "LlamaForCausalLM";
        case ModelFamily::Mistral:
            return "MistralForCausalLM";
        case ModelFamily::Qwen2:
            return "Qwen2ForCausalLM";
        case ModelFamily::Qwen3:
            return "Qwen3ForCausalLM";
        case ModelFamily::Bert:
            return "BertForMaskedLM";
        case ModelFamily::DistilBert:
            return "DistilBertForMaskedLM";
        case ModelFamily::Roberta:
            return "RobertaForMaskedLM";
    }
    return {};
}

std::string encoder_name(ModelFamily family) {
    switch (family) {
        case ModelFamily::Bert:
            return "BERT";
        case ModelFamily::DistilBert:
            return "DistilBERT";
        case ModelFamily::Roberta:
            return "RoBERTa";
        default:
            return family_name(family);
    }
}

bool is_encoder(ModelFamily family) {
    return family == ModelFamily::Bert || family == ModelFamily::DistilBert ||
           family == ModelFamily::Roberta;
}

RowVector rope_inv_freq(const TransformerSpec& spec) {
    const Index half = spec.head_dim / 2;
    const RopeSpec& r = spec.rope;
    const auto dim = static_cast<float>(spec.head_dim);
    RowVector inv_freq(half);
    for (Index i = 0; i < half; ++i)
        // float32 as transformers: 1 / (base ** (arange(0, dim, 2).float() / dim))
        inv_freq[i] = 1.0f / std::pow(r.base, static_cast<float>(2 * i) / dim);
    if (!r.freq_factors.empty()) {
        for (Index i = 0; i < half; ++i) inv_freq[i] /= r.freq_factors[static_cast<std::size_t>(i)];
        return inv_freq;
    }
    if (r.scaling == RopeScaling::Linear) return inv_freq / r.factor;
    if (r.scaling == RopeScaling::Llama3) {
        // transformers' _compute_llama3_parameters, element by element in float32.
        const auto old_context = static_cast<float>(r.original_max_positions);
        const float low_wavelen = old_context / r.low_freq_factor;
        const float high_wavelen = old_context / r.high_freq_factor;
        for (Index i = 0; i < half; ++i) {
            const float wavelen = static_cast<float>(2.0 * 3.14159265358979323846) / inv_freq[i];
            const float scaled = wavelen > low_wavelen ? inv_freq[i] / r.factor : inv_freq[i];
            if (wavelen < high_wavelen || wavelen > low_wavelen) {
                inv_freq[i] = scaled;
                continue;
            }
            const float smooth = (old_context / wavelen - r.low_freq_factor) /
                                 (r.high_freq_factor - r.low_freq_factor);
            inv_freq[i] = (1.0f - smooth) * scaled / r.factor + smooth * scaled;
        }
    }
    return inv_freq;
}

WeightView& TransformerWeights::slot(const TensorEntry& entry, Index layer) {
    const auto role = static_cast<std::size_t>(entry.role);
    if (!entry.per_layer) return model_tensors[role];
    if (layer < 0 || layer >= static_cast<Index>(layers.size()))
        throw AttentionError("layer " + std::to_string(layer) + " is outside the model's " +
                             std::to_string(layers.size()) + " layers");
    return layers[static_cast<std::size_t>(layer)].tensors[role];
}

const WeightView& TransformerWeights::slot(const TensorEntry& entry, Index layer) const {
    return const_cast<TransformerWeights*>(this)->slot(entry, layer);
}

void check_weights(const TransformerWeights& w) {
    check_spec(w.spec);
    if (static_cast<Index>(w.layers.size()) != w.spec.num_layers)
        throw AttentionError("the weights have " + std::to_string(w.layers.size()) +
                             " layers but num_layers = " + std::to_string(w.spec.num_layers) +
                             ": load weights that match config.json");
    for_each_tensor(
        tensor_table(w.spec), w.spec.num_layers, [&](const TensorEntry& entry, Index layer) {
            const Index rows = entry.shape.size() == 2 ? entry.shape[0] : 1;
            const Index cols = entry.shape.back();
            const WeightView& v = w.slot(entry, layer);
            if (v.empty() || v.rows * v.cols != rows * cols)
                throw AttentionError(tensor_name(entry, layer) + " has " +
                                     shape_text(v.rows, v.cols) + " values but the config needs " +
                                     shape_text(rows, cols) +
                                     ": load weights that match config.json");
        });
}

}  // namespace attn
