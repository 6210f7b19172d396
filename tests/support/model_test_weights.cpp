#include "tests/support/model_test_weights.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "app/io/safetensors.h"
#include "app/io/safetensors_writer.h"
#include "model/rng.h"

namespace attn {

using Index = Eigen::Index;

TransformerSpec gpt2_spec(Index n_layer, Index n_head, Index n_embd, Index n_positions,
                          Index vocab_size, Index n_inner, bool tied) {
    TransformerSpec s;
    s.family = ModelFamily::Gpt2;
    s.num_layers = n_layer;
    s.num_heads = n_head;
    s.num_kv_heads = n_head;
    s.d_model = n_embd;
    s.head_dim = n_head > 0 ? n_embd / n_head : 0;
    s.d_ff = n_inner > 0 ? n_inner : 4 * n_embd;
    s.max_positions = n_positions;
    s.vocab_size = vocab_size;
    s.tied_output = tied;
    return s;
}

TransformerSpec tiny_gpt2_spec(bool tied) { return gpt2_spec(2, 2, 8, 16, 32, 32, tied); }

TransformerSpec gpt2_small_spec() { return gpt2_spec(12, 12, 768, 1024, 50257, 3072); }

TransformerSpec tiny_llama_spec() {
    TransformerSpec s;
    s.family = ModelFamily::Llama;
    s.num_layers = 2;
    s.d_model = 16;
    s.num_heads = 4;
    s.num_kv_heads = 2;
    s.head_dim = 4;
    s.d_ff = 24;
    s.vocab_size = 40;
    s.max_positions = 32;
    s.norm = NormKind::RMSNorm;
    s.norm_eps = 1e-6f;
    s.positions = PositionKind::Rotary;
    s.fused_qkv = false;
    s.qkv_bias = false;
    s.out_bias = false;
    s.mlp = MlpKind::Gated;
    s.activation = ActivationKind::Silu;
    s.mlp_bias = false;
    s.tied_output = false;
    return s;
}

namespace {

// Every tensor in one shared vector of matrices, views pointing into them.
// Each tensor on 64-byte lines, as a loaded model's lie in its arena (app/io/weight_arena.h), so
// the products take the register tiles a real model gets (model/attention_kernels.cpp).
struct OwnedTensors {
    std::vector<std::unique_ptr<float, decltype(&std::free)>> tensors;
    WeightView keep(const Matrix& m, TensorLayout layout) {
        const std::size_t bytes =
            (static_cast<std::size_t>(m.size()) * sizeof(float) + 63) / 64 * 64;
        tensors.emplace_back(
            static_cast<float*>(std::aligned_alloc(64, std::max<std::size_t>(bytes, 64))),
            &std::free);
        if (!tensors.back()) throw std::bad_alloc();
        std::copy_n(m.data(), m.size(), tensors.back().get());
        return WeightView{tensors.back().get(), m.rows(), m.cols(), layout};
    }
};

struct Init {
    double mean, stddev;
};

Init init_of(TensorRole role) {
    using R = TensorRole;
    switch (role) {
        case R::TokenEmbedding:
        case R::OutputWeight:
            return {0.0, 0.5};
        case R::PositionEmbedding:
            return {0.0, 0.3};
        case R::TokenTypeEmbedding:
            return {0.0, 0.3};
        case R::AttnNormWeight:
        case R::MlpNormWeight:
        case R::FinalNormWeight:
        case R::EmbedNormWeight:
        case R::MlmNormWeight:
        case R::QueryNormWeight:
        case R::KeyNormWeight:
            return {1.0, 0.1};
        case R::QkvWeight:
        case R::QueryWeight:
        case R::KeyWeight:
        case R::ValueWeight:
            return {0.0, 0.4};
        case R::OutWeight:
        case R::MlmTransformWeight:
        case R::UpWeight:
        case R::GateWeight:
            return {0.0, 0.3};
        case R::DownWeight:
            return {0.0, 0.2};
        default:
            return {0.0, 0.1};  // biases
    }
}

}  // namespace

TransformerWeights make_random_weights(const TransformerSpec& spec, std::uint64_t seed) {
    check_spec(spec);
    const std::vector<TensorEntry> table = tensor_table(spec);
    auto owned = std::make_shared<OwnedTensors>();
    TorchGenerator gen(seed);
    TransformerWeights w;
    w.spec = spec;
    w.layers.resize(static_cast<std::size_t>(spec.num_layers));
    for_each_tensor(table, spec.num_layers, [&](const TensorEntry& entry, Index layer) {
        const Index rows = entry.shape.size() == 2 ? entry.shape[0] : 1;
        const Init init = init_of(entry.role);
        w.slot(entry, layer) =
            owned->keep(gen.normal(rows, entry.shape.back(), init.mean, init.stddev), entry.layout);
    });
    w.dtype = "F32";
    w.storage = owned;
    return w;
}

TransformerWeights round_weights(const TransformerWeights& weights, std::string_view dtype) {
    if (dtype != "F16" && dtype != "BF16")
        throw AttentionError("unknown dtype \"" + std::string(dtype) + "\": use F16 or BF16");
    const bool half = dtype == "F16";
    const std::vector<TensorEntry> table = tensor_table(weights.spec);
    auto owned = std::make_shared<OwnedTensors>();
    TransformerWeights w = weights;
    for_each_tensor(table, weights.spec.num_layers, [&](const TensorEntry& entry, Index layer) {
        const WeightView& v = weights.slot(entry, layer);
        Matrix m = v.matrix();
        for (Index i = 0; i < m.size(); ++i)
            m.data()[i] = half ? halfToFloat(floatToHalf(m.data()[i]))
                               : bfloat16ToFloat(floatToBfloat16(m.data()[i]));
        w.slot(entry, layer) = owned->keep(m, v.layout);
    });
    w.dtype = std::string(dtype);
    w.storage = owned;
    return w;
}

}  // namespace attn
