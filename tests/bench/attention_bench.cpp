// attention-bench: how close the engine runs to this machine's GEMM rate.
//
// Every benchmark reports `gflops` = useful FLOPs per second / 1e9. Useful FLOPs, for a layer of
// width d = d_in = d_out over T tokens (one multiply-add = 2 FLOPs):
//   projections  8·T·d²   q, k, v (3 × 2·T·d²) and out_proj (2·T·d²)
//   causal core  2·T²·d   q·kᵀ and weights·v over the T²/2 unmasked cells (2 × 2·(T²/2)·d)
// The naive path computes all T² cells but is credited with the same useful FLOPs, so its gflops
// is directly comparable. A decode step over n cached keys: 8·d² + 4·n·d. Softmax, masking and
// bias additions are not counted. BM_Gemm/1024 counts 2·1024³.
//
// Single-threaded by default; `--threads=N` (or ATTN_THREADS=N; `--threads=all`: every core) runs
// the engine's parallel loops and products on N threads and measures wall-clock time. BM_Gemm is
// the product the engine uses; BM_GemmOpenBLAS, BM_GemmEigen and BM_GemmBLIS the products on
// offer, in the same run, so the ratio shows. Other flags are Google Benchmark's
// (--benchmark_filter=..., --benchmark_repetitions=...). docs/performance.md has the results.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/attention_kernels.h"
#include "model/fast_attention.h"
#include "model/generator.h"
#include "model/matmul.h"
#include "model/modules.h"
#include "model/ops.h"
#include "model/rng.h"
#include "model/train.h"
#include "model/trainer.h"
#include "model/transformer.h"
#include "model/walkthrough.h"
#include "tests/support/model_test_weights.h"

extern "C" void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                            const float* a, int lda, const float* b, int ldb, float beta, float* c,
                            int ldc);
// quant_bench.cpp: BM_QuantMatvec, BM_ReadRoofline, BM_QuantMatmul.
void register_quant_benchmarks(bool real_time);

extern "C" void eigen_native_sgemm(int m, int n, int k, const float* a, const float* b, float* c,
                                   int threads);

namespace {

using attn::Matrix;

// GPT-2 small: d_model 768, 12 heads of 64.
constexpr Eigen::Index kModel = 768;
constexpr Eigen::Index kHeads = 12;
constexpr Eigen::Index kMaxTokens = 2048;

double layer_flops(double tokens, double d) {
    return 8.0 * tokens * d * d + 2.0 * tokens * tokens * d;
}

void report_gflops(benchmark::State& state, double flops_per_iteration) {
    state.counters["gflops"] = benchmark::Counter(flops_per_iteration * 1e-9,
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

// One layer with GPT-2's qkv bias, built once: drawing 2.4M parameters takes longer than a pass.
const attn::MultiHeadAttention& layer() {
    static const attn::MultiHeadAttention mha = [] {
        attn::TorchGenerator gen(123);
        return attn::MultiHeadAttention(kModel, kModel, kMaxTokens, 0.0f, kHeads, gen, true);
    }();
    return mha;
}

const attn::FastAttentionWeights& fast_layer() {
    static const attn::FastAttentionWeights weights = attn::FastAttentionWeights::packed(layer());
    return weights;
}

Matrix random_tokens(Eigen::Index tokens, Eigen::Index width) {
    attn::TorchGenerator gen(7);
    return gen.rand(tokens, width);
}

// The tutorial's way: per head the full (T, T) scores, masked_fill(-inf), softmax of scores/√hd,
// weights · values; separate q, k, v projections. The mask is built once, like the module's
// registered buffer.
Matrix naive_forward(const attn::MultiHeadAttention& mha, const Matrix& x,
                     const attn::BoolMatrix& mask) {
    const attn::Heads queries = attn::split_heads(mha.W_query.forward(x), mha.num_heads);
    const attn::Heads keys = attn::split_heads(mha.W_key.forward(x), mha.num_heads);
    const attn::Heads values = attn::split_heads(mha.W_value.forward(x), mha.num_heads);
    const float divisor = std::sqrt(static_cast<float>(mha.head_dim));
    attn::Heads contexts;
    for (std::size_t h = 0; h < queries.size(); ++h) {
        const Matrix attn_scores = queries[h] * keys[h].transpose();
        const Matrix masked = attn::masked_fill(attn_scores, mask, attn::kNegInf);
        const Matrix attn_weights = attn::softmax_rows(masked / divisor);
        contexts.push_back(attn_weights * values[h]);
    }
    return mha.out_proj.forward(attn::merge_heads(contexts));
}

// The square operands of the BM_Gemm* rows, and their FLOPs.
struct SquareGemm {
    Matrix a, b, c;
    explicit SquareGemm(Eigen::Index n) : c(n, n) {
        attn::TorchGenerator gen(1);
        a = gen.rand(n, n);
        b = gen.rand(n, n);
    }
    double flops() const { return 2.0 * std::pow(static_cast<double>(c.rows()), 3.0); }
};

// The product the engine uses for C = A · B with B as stored (attn::gemm: its register tiles on a
// CPU with AVX2 or AVX-512, else OpenBLAS).
void BM_Gemm(benchmark::State& state) {
    SquareGemm g(state.range(0));
    for (auto _ : state) {
        attn::gemm(g.a, attn::Op::None, g.b, attn::Op::None, g.c);
        benchmark::DoNotOptimize(g.c.data());
        benchmark::ClobberMemory();
    }
    report_gflops(state, g.flops());
}

// OpenBLAS's SGEMM, the engine's product for transposed operands (its kernels chosen for this
// CPU when the program starts).
void BM_GemmOpenBLAS(benchmark::State& state) {
    SquareGemm g(state.range(0));
    const int n = static_cast<int>(state.range(0));
    constexpr int kRowMajor = 101, kNoTrans = 111;
    for (auto _ : state) {
        cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, n, n, n, 1.0f, g.a.data(), n, g.b.data(), n,
                    0.0f, g.c.data(), n);
        benchmark::DoNotOptimize(g.c.data());
        benchmark::ClobberMemory();
    }
    report_gflops(state, g.flops());
}

// The products of a GPT-2-small pass over 128 tokens, (m, k) · (k, n) with B as stored: c_attn
// (768 → 2304), attn c_proj (768 → 768), mlp c_fc (768 → 3072) and mlp c_proj (3072 → 768).
// Args m, k, n; `BM_GemmShape` is the engine's product, `BM_GemmShapeOpenBLAS` OpenBLAS's.
// B cycles through copies filling 64 MB, so that it comes from memory, as a model's weights do in
// a pass (each weight is read once per pass, by every row of A while it is in the caches).
struct ShapeGemm {
    Matrix a, c;
    Eigen::Index k, n;
    std::size_t copies;
    // 64-byte aligned, as a loaded model's weights lie (WeightArena).
    std::unique_ptr<float, decltype(&std::free)> bs{nullptr, &std::free};
    std::size_t next = 0;
    ShapeGemm(Eigen::Index m, Eigen::Index k_, Eigen::Index n_) : c(m, n_), k(k_), n(n_) {
        attn::TorchGenerator gen(1);
        a = gen.rand(m, k);
        const Matrix b = gen.rand(k, n);
        const std::size_t floats = static_cast<std::size_t>(b.size());
        copies = std::max<std::size_t>(2, (std::size_t{64} << 20) / (floats * sizeof(float)));
        const std::size_t stride = (floats + 15) / 16 * 16;
        bs.reset(static_cast<float*>(std::aligned_alloc(64, copies * stride * sizeof(float))));
        for (std::size_t i = 0; i < copies; ++i)
            std::copy_n(b.data(), floats, bs.get() + i * stride);
    }
    Eigen::Map<const Matrix> b() {
        next = (next + 1) % copies;
        return Eigen::Map<const Matrix>(
            bs.get() + next * ((static_cast<std::size_t>(k * n) + 15) / 16 * 16), k, n);
    }
    double flops() const {
        return 2.0 * static_cast<double>(c.rows()) * static_cast<double>(a.cols()) *
               static_cast<double>(c.cols());
    }
};

void BM_GemmShape(benchmark::State& state) {
    ShapeGemm g(state.range(0), state.range(1), state.range(2));
    for (auto _ : state) {
        attn::gemm(g.a, attn::Op::None, g.b(), attn::Op::None, g.c);
        benchmark::DoNotOptimize(g.c.data());
        benchmark::ClobberMemory();
    }
    report_gflops(state, g.flops());
}

void BM_GemmShapeOpenBLAS(benchmark::State& state) {
    ShapeGemm g(state.range(0), state.range(1), state.range(2));
    const int m = static_cast<int>(state.range(0)), k = static_cast<int>(state.range(1)),
              n = static_cast<int>(state.range(2));
    constexpr int kRowMajor = 101, kNoTrans = 111;
    for (auto _ : state) {
        cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, m, n, k, 1.0f, g.a.data(), k, g.b().data(), n,
                    0.0f, g.c.data(), n);
        benchmark::DoNotOptimize(g.c.data());
        benchmark::ClobberMemory();
    }
    report_gflops(state, g.flops());
}

// Eigen's own product at its best: compiled with -march=native (eigen_native_gemm.cpp).
void BM_GemmEigen(benchmark::State& state) {
    SquareGemm g(state.range(0));
    const int n = static_cast<int>(state.range(0));
    for (auto _ : state) {
        eigen_native_sgemm(n, n, n, g.a.data(), g.b.data(), g.c.data(), attn::engine_threads());
        benchmark::DoNotOptimize(g.c.data());
        benchmark::ClobberMemory();
    }
    report_gflops(state, g.flops());
}

// BLIS, Debian's OpenMP build, loaded at run time: it exports the same BLAS names as the
// engine's OpenBLAS, so it is opened with its own symbols first (RTLD_DEEPBIND).
using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                            int, float, float*, int);
CblasSgemm blis_sgemm(int threads) {
    static void* const lib = [] {
        for (const char* path : {"/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4",
                                 "/usr/lib/x86_64-linux-gnu/blis-serial/libblis.so.4"}) {
            if (void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)) return h;
        }
        return static_cast<void*>(nullptr);
    }();
    if (lib == nullptr) return nullptr;
    using SetThreads = void (*)(long);
    if (auto set = reinterpret_cast<SetThreads>(dlsym(lib, "bli_thread_set_num_threads")))
        set(threads);
    return reinterpret_cast<CblasSgemm>(dlsym(lib, "cblas_sgemm"));
}

void BM_GemmBLIS(benchmark::State& state) {
    const CblasSgemm sgemm = blis_sgemm(attn::engine_threads());
    if (sgemm == nullptr) {
        state.SkipWithError("BLIS is not installed (Debian package libblis4-openmp)");
        return;
    }
    SquareGemm g(state.range(0));
    const int n = static_cast<int>(state.range(0));
    constexpr int kRowMajor = 101, kNoTrans = 111;
    for (auto _ : state) {
        sgemm(kRowMajor, kNoTrans, kNoTrans, n, n, n, 1.0f, g.a.data(), n, g.b.data(), n, 0.0f,
              g.c.data(), n);
        benchmark::DoNotOptimize(g.c.data());
        benchmark::ClobberMemory();
    }
    report_gflops(state, g.flops());
}

void BM_LayerForward(benchmark::State& state) {
    const Eigen::Index tokens = state.range(0);
    const Matrix x = random_tokens(tokens, kModel);
    attn::FastAttentionWorkspace ws;
    Matrix out;
    for (auto _ : state) {
        attn::fast_causal_mha_forward(fast_layer(), x, ws, out);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    report_gflops(state, layer_flops(static_cast<double>(tokens), kModel));
}

void BM_LayerForwardNaive(benchmark::State& state) {
    const Eigen::Index tokens = state.range(0);
    const Matrix x = random_tokens(tokens, kModel);
    const attn::BoolMatrix mask = attn::causal_mask(tokens, tokens);
    for (auto _ : state) {
        const Matrix out = naive_forward(layer(), x, mask);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    report_gflops(state, layer_flops(static_cast<double>(tokens), kModel));
}

// The n-th token with a kv_cache holding the n - 1 before it: MultiHeadAttention::decode_step,
// attention over n keys. Each iteration rewinds the cache by one token, so the same step is timed
// again.
void BM_DecodeStep(benchmark::State& state) {
    const Eigen::Index n = state.range(0);
    const Matrix x = random_tokens(n, kModel);
    attn::KVCache cache = layer().make_cache(n);
    // Prefill: the fast pass leaves q | k | v of every token in its workspace.
    attn::FastAttentionWorkspace ws;
    Matrix full;
    attn::fast_causal_mha_forward(fast_layer(), x.topRows(n - 1), ws, full);
    const Eigen::Index hd = layer().head_dim;
    for (Eigen::Index h = 0; h < kHeads; ++h) {
        const std::size_t hi = static_cast<std::size_t>(h);
        cache.keys[hi].topRows(n - 1) = ws.qkv.middleCols(kModel + h * hd, hd);
        cache.values[hi].topRows(n - 1) = ws.qkv.middleCols(2 * kModel + h * hd, hd);
    }
    const Matrix x_t = x.bottomRows(1);
    for (auto _ : state) {
        cache.tokens = n - 1;
        const attn::DecodeStep step = layer().decode_step(x_t, cache);
        benchmark::DoNotOptimize(step.output.data());
        benchmark::ClobberMemory();
    }
    const double d = kModel;
    report_gflops(state, 8.0 * d * d + 4.0 * static_cast<double>(n) * d);
    // Bytes read per step: the layer's weights (W_query, W_key, W_value, out_proj, biases) and the
    // n cached keys and values.
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 4 *
                            (4 * kModel * kModel + 4 * kModel + 2 * n * kModel));
}

// The same n-th output without a cache: the fast pass over all n tokens.
void BM_FullRecompute(benchmark::State& state) {
    const Eigen::Index n = state.range(0);
    const Matrix x = random_tokens(n, kModel);
    attn::FastAttentionWorkspace ws;
    Matrix out;
    for (auto _ : state) {
        attn::fast_causal_mha_forward(fast_layer(), x, ws, out);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    report_gflops(state, layer_flops(static_cast<double>(n), kModel));
}

// All sixteen steps of the six-token example, every matrix recomputed. A nominal FLOP count (the
// causal self-attention it teaches: 3 projections 6·T·d_in·d_out + core 2·T²·d_out, T = 6,
// d_in = 3, d_out = 2); the walkthrough is bound by allocation and bookkeeping, not arithmetic.
void BM_WalkthroughRecompute(benchmark::State& state) {
    for (auto _ : state) {
        const std::vector<attn::Step> steps = attn::build_walkthrough();
        benchmark::DoNotOptimize(steps.data());
        benchmark::ClobberMemory();
    }
    report_gflops(state, 6.0 * 6 * 3 * 2 + 2.0 * 6 * 6 * 2);
}

// Explore mode on 32 tokens at GPT-2 width: the displayed MultiHeadAttention forward with every
// intermediate of every head kept.
void BM_ExploreRecompute(benchmark::State& state) {
    constexpr Eigen::Index tokens = 32;
    const attn::Batch x{random_tokens(tokens, kModel)};
    for (auto _ : state) {
        const attn::ModuleOutput out = layer().forward(x);
        benchmark::DoNotOptimize(out.context_vecs.front().data());
        benchmark::ClobberMemory();
    }
    report_gflops(state, layer_flops(static_cast<double>(tokens), kModel));
}

// --- the whole GPT-2 model, GPT-2-small shaped random weights -----------------------------
const attn::TransformerWeights& gpt2_small() {
    static const attn::TransformerWeights w = attn::make_random_weights(attn::gpt2_small_spec(), 0);
    return w;
}

std::vector<int> gpt2_ids(Eigen::Index n) {
    std::vector<int> ids(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>((i * 7919) % 50257);
    return ids;
}

// FLOPs: per layer 24·T·d² (c_attn 6·T·d², c_proj 2·T·d², MLP 16·T·d²) + causal core 2·T²·d,
// plus the last position's logits 2·d·vocab.
void BM_Gpt2Forward(benchmark::State& state) {
    const attn::TransformerWeights& w = gpt2_small();
    const std::vector<int> ids = gpt2_ids(state.range(0));
    attn::ModelForwardOptions options;
    options.keep_attentions = false;
    for (auto _ : state) {
        const attn::ModelForwardResult r = attn::model_forward(w, ids, options);
        benchmark::DoNotOptimize(r.logits.data());
        benchmark::ClobberMemory();
    }
    const double t = static_cast<double>(state.range(0));
    const double d = static_cast<double>(w.spec.d_model);
    report_gflops(state,
                  static_cast<double>(w.spec.num_layers) * (24.0 * t * d * d + 2.0 * t * t * d) +
                      2.0 * d * static_cast<double>(w.spec.vocab_size));
}

// Every tensor of the table, 4 bytes a value.
std::int64_t weight_bytes(const attn::TransformerWeights& w) {
    std::int64_t values = 0;
    for (const attn::TensorEntry& e : attn::tensor_table(w.spec))
        values += (e.per_layer ? w.spec.num_layers : 1) * e.shape.front() *
                  (e.shape.size() == 2 ? e.shape[1] : 1);
    return 4 * values;
}

// The n-th token with n - 1 cached (as BM_DecodeStep): bytes = weights read once + the kv_cache
// read.
void BM_Gpt2DecodeToken(benchmark::State& state) {
    const attn::TransformerWeights& w = gpt2_small();
    attn::GenerationOptions options;
    options.max_new_tokens = 1;
    attn::Generator gen(w, gpt2_ids(state.range(0) - 1), options);
    for (auto _ : state) {
        gen.restart();
        const attn::GenerationStep s = gen.step();
        benchmark::DoNotOptimize(s.id);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            (weight_bytes(w) + gen.cache_bytes()));
}

// The core's ceiling for float multiply-adds: 16 independent chains of FMAs on registers, no
// memory, the widest vectors this CPU has (AVX-512, else AVX2 + FMA). A product's gflops over
// this row is the fraction of the machine it uses.
__attribute__((target("avx512f"))) float fma_chains512(std::int64_t steps) {
    __m512 acc[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
    const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(1e-3f);
    for (std::int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 16
        for (__m512& v : acc) v = _mm512_fmadd_ps(v, a, b);
        __asm__ volatile("" : "+v"(acc[0]), "+v"(acc[5]), "+v"(acc[10]), "+v"(acc[15]));
    }
    __m512 total = acc[0];
#pragma GCC unroll 16
    for (int i = 1; i < 16; ++i) total = _mm512_add_ps(total, acc[i]);
    alignas(64) float lanes[16];  // GCC 12's _mm512_reduce_add_ps warns of an uninitialized use
    _mm512_store_ps(lanes, total);
    return lanes[0] + lanes[15];
}

__attribute__((target("avx2,fma"))) float fma_chains256(std::int64_t steps) {
    __m256 acc[12];
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
    const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(1e-3f);
    for (std::int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 12
        for (__m256& v : acc) v = _mm256_fmadd_ps(v, a, b);
        __asm__ volatile("" : "+x"(acc[0]), "+x"(acc[6]), "+x"(acc[11]));
    }
    __m256 total = acc[0];
#pragma GCC unroll 12
    for (int i = 1; i < 12; ++i) total = _mm256_add_ps(total, acc[i]);
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, total);
    return lanes[0] + lanes[7];
}

void BM_FmaPeak(benchmark::State& state) {
    constexpr std::int64_t kSteps = 1 << 20;
    const bool avx512 = __builtin_cpu_supports("avx512f");
    if (!avx512 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
        state.SkipWithError("this CPU has neither AVX-512 nor AVX2 + FMA");
        return;
    }
    for (auto _ : state) {
        float r = avx512 ? fma_chains512(kSteps) : fma_chains256(kSteps);
        benchmark::DoNotOptimize(r);
    }
    // 2 FLOPs per lane per FMA: 16 chains × 16 lanes, or 12 chains × 8 lanes.
    report_gflops(state, avx512 ? 2.0 * 16 * 16 * kSteps : 2.0 * 12 * 8 * kSteps);
    state.SetLabel(avx512 ? "avx512" : "avx2");
}

// Sequential read of 512 MB summed with a reduction: the memory bandwidth the decode steps
// are compared with.
void BM_StreamRead(benchmark::State& state) {
    const Eigen::Index n = Eigen::Index{128} * 1024 * 1024;
    const Eigen::VectorXf buffer = Eigen::VectorXf::Constant(n, 1.0f);
    for (auto _ : state) {
        float sum = buffer.sum();
        benchmark::DoNotOptimize(sum);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * n * 4);
}

// --- training: one step of the Train window's presets -------------------------------------
// forward_backward + adamw_step on a batch of 8 sequences, as attention-cli train steps;
// tests/bench/torch_bench.py train times the same step in PyTorch (zero_grad, forward, loss,
// backward, AdamW) on the same shapes. FLOPs: 6 per parameter per token (forward 2, backward 4)
// for every matrix product, plus the causal core (forward 2·T²·d per sequence and layer,
// backward twice that), as nanoGPT's estimate_mfu counts them.
// A preset of model/trainer.h at vocabulary 64 (the induction task's) and its own seq_len.
void BM_TrainStep(benchmark::State& state, const std::string& preset) {
    constexpr Eigen::Index kBatch = 8;
    const attn::TransformerSpec spec = attn::train_preset(preset, 64, 0).spec;
    struct {
        Eigen::Index vocab, seq_len, d_model, layers;
    } shape{spec.vocab_size, spec.max_positions, spec.d_model, spec.num_layers};
    attn::ModelParameters params = attn::make_parameters(spec);
    attn::TorchGenerator gen(0);
    attn::init_gpt2(params, gen);
    attn::TrainBatch batch{kBatch, shape.seq_len, {}, {}};
    for (Eigen::Index i = 0; i < kBatch * shape.seq_len; ++i) {
        batch.inputs.push_back(static_cast<int>((i * 7919) % shape.vocab));
        batch.targets.push_back(static_cast<int>((i * 7919 + 13) % shape.vocab));
    }
    attn::TrainScratch scratch;
    attn::AdamWState adamw;
    std::vector<float> grads;
    // The loss of the starting weights, which torch_bench.py train checks its own against.
    state.counters["first_loss"] = attn::train_loss(params, batch, scratch);
    for (auto _ : state) {
        const float loss = attn::forward_backward(params, batch, grads, scratch);
        attn::adamw_step(params.values, grads, adamw, {});
        benchmark::DoNotOptimize(loss);
        benchmark::ClobberMemory();
    }
    double matrix_params = 0.0;
    for (const attn::ParameterTensor& t : params.tensors)
        if (t.entry.layout == attn::TensorLayout::InOut)
            matrix_params += static_cast<double>(t.size());
    matrix_params += static_cast<double>(spec.vocab_size * spec.d_model);  // the tied head
    const double tokens = static_cast<double>(kBatch * shape.seq_len);
    const double t = static_cast<double>(shape.seq_len), d = static_cast<double>(shape.d_model);
    report_gflops(state, 6.0 * matrix_params * tokens +
                             3.0 * static_cast<double>(shape.layers * kBatch) * 2.0 * t * t * d);
}

// Registered here rather than with BENCHMARK() so that a multi-threaded run measures wall-clock
// time: Google Benchmark's CPU time counts only the main thread, not OpenMP's workers.
void register_benchmarks(int threads) {
    const auto add = [threads](const char* name, void (*fn)(benchmark::State&),
                               std::initializer_list<std::int64_t> args, benchmark::TimeUnit unit) {
        benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(name, fn);
        for (const std::int64_t arg : args) {
            b->Arg(arg);
        }
        b->Unit(unit);
        if (threads > 1) {
            b->UseRealTime();
        }
    };
    add("BM_FmaPeak", BM_FmaPeak, {}, benchmark::kMillisecond);
    add("BM_Gemm", BM_Gemm, {1024}, benchmark::kMillisecond);
    add("BM_GemmOpenBLAS", BM_GemmOpenBLAS, {1024}, benchmark::kMillisecond);
    add("BM_GemmEigen", BM_GemmEigen, {1024}, benchmark::kMillisecond);
    add("BM_GemmBLIS", BM_GemmBLIS, {1024}, benchmark::kMillisecond);
    for (auto* shape : {&BM_GemmShape, &BM_GemmShapeOpenBLAS}) {
        benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(
            shape == &BM_GemmShape ? "BM_GemmShape" : "BM_GemmShapeOpenBLAS", *shape);
        b->Args({128, 768, 2304})->Args({128, 768, 768})->Args({128, 768, 3072});
        b->Args({128, 3072, 768})->Unit(benchmark::kMillisecond);
        if (threads > 1) b->UseRealTime();
    }
    add("BM_LayerForward", BM_LayerForward, {128, 512, 1024, 2048}, benchmark::kMillisecond);
    add("BM_LayerForwardNaive", BM_LayerForwardNaive, {128, 512, 1024, 2048},
        benchmark::kMillisecond);
    add("BM_DecodeStep", BM_DecodeStep, {128, 512, 1024, 2048}, benchmark::kMicrosecond);
    add("BM_FullRecompute", BM_FullRecompute, {128, 512, 1024, 2048}, benchmark::kMillisecond);
    add("BM_WalkthroughRecompute", BM_WalkthroughRecompute, {}, benchmark::kMicrosecond);
    add("BM_ExploreRecompute", BM_ExploreRecompute, {}, benchmark::kMillisecond);
    add("BM_Gpt2Forward", BM_Gpt2Forward, {128, 1024}, benchmark::kMillisecond);
    add("BM_Gpt2DecodeToken", BM_Gpt2DecodeToken, {128, 1024}, benchmark::kMillisecond);
    add("BM_StreamRead", BM_StreamRead, {}, benchmark::kMillisecond);
    for (const std::string preset : {"attn-only-2l", "gpt-2l"}) {
        benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(
            ("BM_TrainStep/" + preset).c_str(),
            [preset](benchmark::State& state) { BM_TrainStep(state, preset); });
        b->Unit(benchmark::kMillisecond);
        if (threads > 1) b->UseRealTime();
    }
    register_quant_benchmarks(threads > 1);
}

// --threads=N or ATTN_THREADS=N; removed from argv before Google Benchmark parses it.
int take_threads(int& argc, char** argv) {
    int threads = 1;
    if (const char* env = std::getenv("ATTN_THREADS")) {
        threads = std::atoi(env);
    }
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--threads=all") == 0) {
            threads = attn::available_cores();
        } else if (std::strncmp(argv[i], "--threads=", 10) == 0) {
            threads = std::atoi(argv[i] + 10);
        } else {
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    return threads;
}

}  // namespace

int main(int argc, char** argv) {
    const int threads = take_threads(argc, argv);
    if (threads < 1) {
        std::cerr << "attention-bench: --threads / ATTN_THREADS must be a number >= 1\n";
        return 2;
    }
    attn::set_engine_threads(threads);
    register_benchmarks(threads);
    benchmark::AddCustomContext("attn_threads", std::to_string(attn::engine_threads()));
    benchmark::AddCustomContext("attn_blas", attn::blas_description());
    benchmark::AddCustomContext("attn_kernels", attn::kernels::kernel_isa());
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
        return 1;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
