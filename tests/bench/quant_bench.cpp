// attention-bench's quantized products (model/quant.h), measured against the memory they read.
//
//   BM_QuantMatvec/<type>   y = W · x, W 4096 × 4096 of the type: bytes/s = the weight's bytes
//   BM_ReadRoofline/<type>  a plain sum of as many bytes, read as floats: the rate a matrix-vector
//                           product could reach at best (it must read every weight byte once)
//   BM_QuantMatmul/<type>   Y = X · Wᵀ for a prompt of 128 tokens: gflops = 2 · 128 · 4096²
//
// One token reads hundreds of MB of weights, never the same matrix twice in a row: each
// benchmark cycles through copies of its matrix (or chunks of its buffer) filling 256 MB, eight
// times the L3 cache, so every byte comes from memory as in generation. The ratio of the first two
// rows (bench_ratios.py prints it) is how close a product streams to the read roofline. Both
// pools lie in 2 MB pages where the system grants them, as a loaded model's weights do
// (app/io/weight_arena.h): reading through 4 KB pages costs the roofline itself about a fifth.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "app/io/weight_arena.h"
#include "model/ggml_types.h"
#include "model/matmul.h"
#include "model/quant.h"

namespace {

using attn::GgmlType;

constexpr Eigen::Index kRows = 4096, kCols = 4096;
constexpr std::size_t kPoolBytes = std::size_t{256} << 20;

// Where a block keeps its halves (d, m, dmin): random bits there would be NaN or Inf now and then.
std::vector<std::size_t> half_offsets(GgmlType type) {
    switch (type) {
        case GgmlType::Q4_1:
        case GgmlType::Q5_1:
        case GgmlType::Q4_K:
        case GgmlType::Q5_K:
            return {0, 2};
        case GgmlType::Q6_K:
            return {208};
        case GgmlType::F16:
        case GgmlType::Q4_0:
        case GgmlType::Q5_0:
        case GgmlType::Q8_0:
            return {0};
        default:
            return {};
    }
}

// `bytes` of memory in the weights' arena (2 MB pages), or on the heap where there is none.
class Pool {
public:
    explicit Pool(std::size_t bytes) : arena_(attn::WeightArena::create(bytes)), size_(bytes) {
        data_ = arena_ ? static_cast<std::uint8_t*>(arena_->take(bytes)) : nullptr;
        if (data_ == nullptr) {
            heap_.resize(bytes);
            data_ = heap_.data();
        }
    }
    Pool(const Pool&) = delete;  // data_ may point into heap_
    Pool(Pool&&) = default;      // a moved vector keeps its buffer
    std::uint8_t* data() const { return data_; }
    std::size_t size() const { return size_; }

private:
    std::shared_ptr<attn::WeightArena> arena_;
    std::vector<std::uint8_t> heap_;
    std::uint8_t* data_ = nullptr;
    std::size_t size_;
};

// Random bits, fast enough to fill 256 MB in a fraction of a second (xorshift64).
void fill_random(const Pool& bytes, std::uint64_t seed) {
    std::uint64_t s = seed;
    for (std::size_t i = 0; i + 8 <= bytes.size(); i += 8) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        std::memcpy(bytes.data() + i, &s, 8);
    }
}

// Copies of a kRows × kCols weight of the type, filling the pool; halves set to 0.0078 (0x2000)
// and float types to ordinary values, so no NaN or Inf changes what the sums cost.
Pool weight_pool(GgmlType type, std::size_t& matrix_bytes) {
    matrix_bytes = attn::quant_row_bytes(type, kCols) * static_cast<std::size_t>(kRows);
    const std::size_t copies = (kPoolBytes + matrix_bytes - 1) / matrix_bytes;
    Pool pool(copies * matrix_bytes);
    fill_random(pool, 0x9E3779B97F4A7C15ull);
    const attn::GgmlTypeTraits traits = attn::ggml_type_traits(static_cast<std::uint32_t>(type));
    if (type == GgmlType::F32 || type == GgmlType::BF16) {
        // A float's exponent kept near 1: the top byte of each value's high half becomes 0x3F.
        const std::size_t step = traits.type_size;
        for (std::size_t i = step - 1; i < pool.size(); i += step) pool.data()[i] = 0x3F;
        return pool;
    }
    const std::uint16_t half = 0x2000;
    for (std::size_t b = 0; b < pool.size(); b += traits.type_size)
        for (const std::size_t at : half_offsets(type)) std::memcpy(pool.data() + b + at, &half, 2);
    return pool;
}

std::vector<float> activations(Eigen::Index n) {
    std::vector<float> x(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.001f * static_cast<float>(i % 997) - 0.5f;
    return x;
}

void BM_QuantMatvec(benchmark::State& state, GgmlType type) {
    std::size_t matrix_bytes = 0;
    const Pool pool = weight_pool(type, matrix_bytes);
    const std::size_t copies = pool.size() / matrix_bytes;
    const std::vector<float> x = activations(kCols);
    std::vector<float> y(static_cast<std::size_t>(kRows));
    std::size_t next = 0;
    for (auto _ : state) {
        const attn::QuantMatrix w{type, pool.data() + next * matrix_bytes, kRows, kCols};
        attn::quant_matvec(w, x.data(), y.data());
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
        next = (next + 1) % copies;
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(matrix_bytes));
}

// The same bytes as BM_QuantMatvec/<type> read once each, as floats summed (the reduction
// BM_StreamRead uses), from a pool of the same size.
void BM_ReadRoofline(benchmark::State& state, GgmlType type) {
    const std::size_t chunk_bytes =
        attn::quant_row_bytes(type, kCols) * static_cast<std::size_t>(kRows);
    const std::size_t copies = (kPoolBytes + chunk_bytes - 1) / chunk_bytes;
    const Eigen::Index chunk = static_cast<Eigen::Index>(chunk_bytes / 4);
    const Pool memory(static_cast<std::size_t>(chunk) * copies * sizeof(float));
    Eigen::Map<Eigen::VectorXf> pool(reinterpret_cast<float*>(memory.data()),
                                     chunk * static_cast<Eigen::Index>(copies));
    pool.setConstant(1.0f);
    std::size_t next = 0;
    for (auto _ : state) {
        float sum = pool.segment(static_cast<Eigen::Index>(next) * chunk, chunk).sum();
        benchmark::DoNotOptimize(sum);
        benchmark::ClobberMemory();
        next = (next + 1) % copies;
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(chunk_bytes));
}

void BM_QuantMatmul(benchmark::State& state, GgmlType type) {
    const Eigen::Index tokens = state.range(0);
    std::size_t matrix_bytes = 0;
    const Pool pool = weight_pool(type, matrix_bytes);
    const std::vector<float> xs = activations(tokens * kCols);
    const attn::Matrix x = Eigen::Map<const attn::Matrix>(xs.data(), tokens, kCols);
    attn::Matrix y(tokens, kRows);
    for (auto _ : state) {
        attn::quant_matmul(attn::QuantMatrix{type, pool.data(), kRows, kCols}, x, y);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.counters["gflops"] =
        benchmark::Counter(2.0 * static_cast<double>(tokens) * kRows * kCols * 1e-9,
                           benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

// Called by attention-bench's register_benchmarks; real_time for runs on several threads.
void register_quant_benchmarks(bool real_time) {
    const GgmlType types[] = {GgmlType::F32,  GgmlType::F16,  GgmlType::BF16, GgmlType::Q4_0,
                              GgmlType::Q4_1, GgmlType::Q5_0, GgmlType::Q5_1, GgmlType::Q8_0,
                              GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K};
    for (const GgmlType type : types) {
        const std::string name = attn::ggml_type_traits(static_cast<std::uint32_t>(type)).name;
        for (auto* b : {benchmark::RegisterBenchmark(("BM_QuantMatvec/" + name).c_str(),
                                                     BM_QuantMatvec, type),
                        benchmark::RegisterBenchmark(("BM_ReadRoofline/" + name).c_str(),
                                                     BM_ReadRoofline, type)}) {
            b->Unit(benchmark::kMillisecond);
            if (real_time) b->UseRealTime();
        }
    }
    for (const GgmlType type : {GgmlType::Q8_0, GgmlType::Q4_K}) {
        const std::string name = attn::ggml_type_traits(static_cast<std::uint32_t>(type)).name;
        auto* b =
            benchmark::RegisterBenchmark(("BM_QuantMatmul/" + name).c_str(), BM_QuantMatmul, type);
        b->Arg(4)->Arg(16)->Arg(32)->Arg(64)->Arg(128)->Unit(benchmark::kMillisecond);
        if (real_time) b->UseRealTime();
    }
}
