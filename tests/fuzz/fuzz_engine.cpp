// Fuzzes the engine (model/) with random small shapes and values, NaN, ±Inf, 1e30, FLT_MAX and
// subnormals among them. Every call must return or throw attn::AttentionError; any
// other exception escapes and libFuzzer reports it, as it does a sanitizer finding.
//
// What a returned result must satisfy, whatever the input:
//   - shapes as documented;
//   - each row of attn_weights is a probability distribution (finite, in [0, 1], summing to 1
//     within 1e-4) or entirely NaN (a fully masked row, or +inf / NaN scores after an overflow);
//   - the fast path equals MultiHeadAttention::forward within 1e-4 · max(1, max|forward|) when
//     the inputs are moderate (|x| <= 4), and every decoding step equals its row of the full pass.
#include <fuzzer/FuzzedDataProvider.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "model/fast_attention.h"
#include "model/kv_trace.h"
#include "model/modules.h"
#include "model/ops.h"
#include "model/runner.h"

namespace {

using attn::Matrix;

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "fuzz_engine: %s\n", what);
    std::abort();
}

// Mostly ordinary numbers, so that inputs get past validation; one draw in four is a special one.
float fuzzValue(FuzzedDataProvider& in) {
    switch (in.ConsumeIntegralInRange<int>(0, 31)) {
        case 0:
            return std::numeric_limits<float>::quiet_NaN();
        case 1:
            return std::numeric_limits<float>::infinity();
        case 2:
            return -std::numeric_limits<float>::infinity();
        case 3:
            return 1e30f;
        case 4:
            return -1e30f;
        case 5:
            return std::numeric_limits<float>::denorm_min() *
                   static_cast<float>(in.ConsumeIntegralInRange<int>(1, 1000));
        case 6:
            return FLT_MAX;
        case 7: {  // any bit pattern
            const std::uint32_t bits = in.ConsumeIntegral<std::uint32_t>();
            float f = 0.0f;
            static_assert(sizeof f == sizeof bits);
            std::memcpy(&f, &bits, sizeof f);
            return f;
        }
        default:
            return in.ConsumeFloatingPointInRange<float>(-4.0f, 4.0f);
    }
}

Matrix fuzzMatrix(FuzzedDataProvider& in, Eigen::Index rows, Eigen::Index cols) {
    Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) {
        m.data()[i] = fuzzValue(in);
    }
    return m;
}

Eigen::Index fuzzSize(FuzzedDataProvider& in, Eigen::Index max) {
    return in.ConsumeIntegralInRange<Eigen::Index>(0, max);
}

bool moderate(const Matrix& m) { return m.size() == 0 || m.cwiseAbs().maxCoeff() <= 4.0f; }

void checkWeights(const Matrix& weights) {
    for (Eigen::Index i = 0; i < weights.rows(); ++i) {
        const Eigen::Index nans = weights.row(i).array().isNaN().count();
        if (nans == weights.cols()) {
            continue;
        }
        if (nans != 0 || !weights.row(i).allFinite()) {
            fail("a row of attn_weights is partly NaN or infinite");
        }
        if (weights.row(i).minCoeff() < 0.0f || weights.row(i).maxCoeff() > 1.0f + 1e-6f ||
            std::abs(weights.row(i).sum() - 1.0f) > 1e-4f) {
            fail("a row of attn_weights is not a probability distribution");
        }
    }
}

void checkOutput(const attn::ModuleOutput& out) {
    for (const std::vector<attn::AttentionResult>& item : out.heads) {
        for (const attn::AttentionResult& head : item) {
            checkWeights(head.weights);
            if (head.context.rows() != head.weights.rows()) {
                fail("context and weights disagree on T_q");
            }
        }
    }
}

// --- run_module: the path of the app and of attention-cli -------------------------------------

void fuzzRunModule(FuzzedDataProvider& in) {
    const std::vector<attn::ModuleInfo>& modules = attn::module_infos();
    attn::ModuleConfig config;
    // Now and then a random name: unknown ones leave no module, which run_module must refuse.
    config.module =
        in.ConsumeIntegralInRange<int>(0, 15) == 0
            ? attn::find_module_kind(in.ConsumeRandomLengthString(12))
            : modules[in.ConsumeIntegralInRange<std::size_t>(0, modules.size() - 1)].kind;
    config.seed = in.ConsumeIntegral<std::uint64_t>();
    config.d_out = in.ConsumeIntegralInRange<Eigen::Index>(-1, 8);
    config.num_heads = in.ConsumeIntegralInRange<Eigen::Index>(-1, 9);
    config.batch = in.ConsumeIntegralInRange<Eigen::Index>(0, 2);
    config.context_length = in.ConsumeIntegralInRange<Eigen::Index>(-1, 9);
    config.dropout = in.ConsumeBool() ? 0.0f : fuzzValue(in);
    config.qkv_bias = in.ConsumeBool();

    attn::Sequence inputs;
    const Eigen::Index tokens = fuzzSize(in, 6);
    inputs.embeddings = fuzzMatrix(in, tokens, fuzzSize(in, 6));
    const Eigen::Index names_given = in.ConsumeBool() ? tokens : fuzzSize(in, 7);
    for (Eigen::Index t = 0; t < names_given; ++t) {
        inputs.tokens.push_back("t" + std::to_string(t));
    }
    attn::Sequence source;
    const bool with_source = in.ConsumeIntegralInRange<int>(0, 3) == 0;
    if (with_source) {
        source.embeddings = fuzzMatrix(in, fuzzSize(in, 5), fuzzSize(in, 6));
    }

    attn::RunResult first;
    try {
        first = attn::run_module(config, inputs, with_source ? &source : nullptr);
    } catch (const attn::AttentionError&) {
        return;
    }
    checkOutput(first.output);
    if (static_cast<Eigen::Index>(first.output.context_vecs.size()) != first.config.batch) {
        fail("context_vecs has not one matrix per batch item");
    }

    // Again with some parameters replaced: right names, values from the palette, shapes mostly
    // right and sometimes wrong.
    for (std::size_t k = 0; k < first.weights.size(); ++k) {
        if (!in.ConsumeBool()) {
            continue;
        }
        attn::NamedMatrix w = first.weights[k];
        Eigen::Index rows = w.value.rows();
        Eigen::Index cols = w.value.cols();
        if (in.ConsumeIntegralInRange<int>(0, 7) == 0) {
            rows = fuzzSize(in, 4);
            cols = fuzzSize(in, 4);
        }
        w.value = fuzzMatrix(in, rows, cols);
        if (in.ConsumeIntegralInRange<int>(0, 15) == 0) {
            w.name = in.ConsumeRandomLengthString(16);
        }
        config.weights.push_back(std::move(w));
    }
    try {
        const attn::RunResult second =
            attn::run_module(config, inputs, with_source ? &source : nullptr);
        checkOutput(second.output);
    } catch (const attn::AttentionError&) {
    }
}

// --- scaled_dot_product_attention with every option ---------------------------------------------

void fuzzAttention(FuzzedDataProvider& in) {
    const Eigen::Index t_q = fuzzSize(in, 5);
    const Eigen::Index t_k = fuzzSize(in, 5);
    const Eigen::Index d_k = fuzzSize(in, 4);
    const Matrix queries = fuzzMatrix(in, t_q, d_k);
    const Matrix keys = fuzzMatrix(in, in.ConsumeBool() ? t_k : fuzzSize(in, 5),
                                   in.ConsumeBool() ? d_k : fuzzSize(in, 4));
    const Matrix values = fuzzMatrix(in, in.ConsumeBool() ? t_k : fuzzSize(in, 5), fuzzSize(in, 4));

    attn::AttentionOptions options;
    options.scale = in.ConsumeBool();
    if (in.ConsumeBool()) {
        options.scale_dim = fuzzValue(in);
    }
    if (in.ConsumeBool()) {
        const Eigen::Index r = in.ConsumeBool() ? t_q : fuzzSize(in, 5);
        const Eigen::Index c = in.ConsumeBool() ? t_k : fuzzSize(in, 5);
        attn::BoolMatrix blocked(r, c);
        for (Eigen::Index i = 0; i < blocked.size(); ++i) {
            blocked.data()[i] = in.ConsumeBool();
        }
        options.blocked = blocked;
    }
    const float fills[] = {attn::kNegInf, -1e9f, -1e4f, 0.0f};
    options.fill_value =
        in.ConsumeBool() ? fills[in.ConsumeIntegralInRange<int>(0, 3)] : fuzzValue(in);
    if (in.ConsumeBool()) {
        options.additive_mask = fuzzMatrix(in, in.ConsumeBool() ? t_q : fuzzSize(in, 5),
                                           in.ConsumeBool() ? t_k : fuzzSize(in, 5));
    }
    const float ps[] = {0.0f, 0.1f, 0.5f, 1.0f, -0.1f};
    options.dropout_p = in.ConsumeBool() ? ps[in.ConsumeIntegralInRange<int>(0, 4)] : fuzzValue(in);
    options.training = in.ConsumeBool();
    if (in.ConsumeBool()) {
        options.head_mask = fuzzValue(in);
    }
    attn::TorchGenerator gen(in.ConsumeIntegral<std::uint32_t>());
    try {
        const attn::AttentionResult r = attn::scaled_dot_product_attention(
            queries, keys, values, options, in.ConsumeBool() ? &gen : nullptr);
        if (r.weights.rows() != t_q || r.weights.cols() != keys.rows() || r.context.rows() != t_q ||
            r.context.cols() != values.cols()) {
            fail("attention result has the wrong shape");
        }
        checkWeights(r.weights);
    } catch (const attn::AttentionError&) {
    }
}

// --- softmax_rows on any values
// -------------------------------------------------------------------

void fuzzSoftmax(FuzzedDataProvider& in) {
    const Matrix scores = fuzzMatrix(in, fuzzSize(in, 4), fuzzSize(in, 8));
    const Matrix weights = attn::softmax_rows(scores);
    if (weights.rows() != scores.rows() || weights.cols() != scores.cols()) {
        fail("softmax changed the shape");
    }
    checkWeights(weights);
    for (Eigen::Index i = 0; i < scores.rows(); ++i) {
        // A row of finite scores (1e30 included) always gives a distribution.
        if (scores.cols() > 0 && scores.row(i).allFinite() && !weights.row(i).allFinite()) {
            fail("softmax of finite scores is not finite");
        }
    }
}

// --- the fast path and fast decoding against the displayed path ----------------------------------

void fuzzFastPath(FuzzedDataProvider& in) {
    const Eigen::Index d_in = in.ConsumeIntegralInRange<Eigen::Index>(1, 6);
    const Eigen::Index num_heads = in.ConsumeIntegralInRange<Eigen::Index>(1, 3);
    const Eigen::Index d_out = num_heads * in.ConsumeIntegralInRange<Eigen::Index>(1, 3);
    const Eigen::Index tokens = in.ConsumeIntegralInRange<Eigen::Index>(0, 12);
    const Eigen::Index context_length = in.ConsumeIntegralInRange<Eigen::Index>(1, 13);
    attn::TorchGenerator gen(in.ConsumeIntegral<std::uint32_t>());
    const attn::MultiHeadAttention mha(d_in, d_out, context_length, 0.0f, num_heads, gen,
                                       in.ConsumeBool());
    const Matrix x = fuzzMatrix(in, tokens, in.ConsumeBool() ? d_in : fuzzSize(in, 6));

    attn::FastAttentionWeights weights(mha);
    attn::FastAttentionWorkspace workspace;
    workspace.query_block = in.ConsumeIntegralInRange<Eigen::Index>(0, 5);
    workspace.key_block = in.ConsumeIntegralInRange<Eigen::Index>(0, 5);
    workspace.diagonal_block = in.ConsumeIntegralInRange<Eigen::Index>(0, 5);
    Matrix fast;
    try {
        attn::fast_causal_mha_forward(weights, x, workspace, fast);
    } catch (const attn::AttentionError&) {
        return;
    }
    if (!moderate(x)) {
        return;
    }
    Matrix full;
    try {
        full = mha.forward(attn::Batch{x}).context_vecs.at(0);
    } catch (const attn::AttentionError&) {
        fail("the fast path accepted an input that forward refuses");
    }
    const float tolerance = 1e-4f * std::max(1.0f, full.cwiseAbs().maxCoeff());
    if (fast.rows() != full.rows() || fast.cols() != full.cols() ||
        !((fast - full).cwiseAbs().array() <= tolerance).all()) {
        fail("the fast path differs from MultiHeadAttention::forward");
    }

    attn::KVCache cache = mha.make_cache(tokens);
    for (Eigen::Index t = 0; t < tokens; ++t) {
        const attn::RowVector row = mha.decode_step(x.middleRows(t, 1), cache).output;
        if (!((row - full.row(t)).cwiseAbs().array() <= tolerance).all()) {
            fail("a decoding step differs from its row of the full pass");
        }
    }
}

void fuzzDecode(FuzzedDataProvider& in) {
    attn::DecodeConfig config;
    config.module =
        in.ConsumeBool() ? attn::ModuleKind::MultiHeadAttention : attn::ModuleKind::Gpt2Attention;
    config.num_heads = in.ConsumeIntegralInRange<Eigen::Index>(-1, 5);
    config.seed = in.ConsumeIntegral<std::uint64_t>();
    attn::Sequence inputs;
    inputs.embeddings = fuzzMatrix(in, fuzzSize(in, 6), fuzzSize(in, 6));
    try {
        const attn::KvTrace run = attn::run_decode(config, inputs);
        if (moderate(inputs.embeddings) && !(run.max_abs_diff <= 1e-4f)) {
            fail("cached decoding differs from the full pass");
        }
    } catch (const attn::AttentionError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    switch (in.ConsumeIntegralInRange<int>(0, 4)) {
        case 0:
            fuzzRunModule(in);
            break;
        case 1:
            fuzzAttention(in);
            break;
        case 2:
            fuzzSoftmax(in);
            break;
        case 3:
            fuzzFastPath(in);
            break;
        default:
            fuzzDecode(in);
            break;
    }
    return 0;
}
