// The kv_cache: decoding one token at a time with the cache gives the outputs of one causal pass
// over the whole sequence (max abs difference <= 1e-5), for MultiHeadAttention (decode_step) and
// GPT-2 (layer_past / present); the cache reports its size in tokens and bytes and never
// reallocates while it fills. attend_one_query, the single-query attention behind both, against
// a naive loop over a sweep of shapes and bit for bit against scaled_dot_product_attention.
#include <QString>
#include <QStringList>
#include <QTest>
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "model/decode_attention.h"
#include "model/modules.h"
#include "model/ops.h"
#include "model/rng.h"
#include "model/tensor.h"
#include "module_test_helpers.h"

using attn::Batch;
using attn::Heads;
using attn::KVCache;
using attn::Matrix;
using modtest::errorOf;
using modtest::maxAbs;
using modtest::maxAbsDiff;
using modtest::randomInputs;

using Thrower = std::function<void()>;
Q_DECLARE_METATYPE(Thrower)

namespace {

// The bound for cached decoding against the full pass. Both sides compute the same sums
// in a different order (one query row against the cache vs the whole score matrix), so float
// rounding differs by ~1e-7; a wrong mask or a missing token moves outputs by > 1e-2.
constexpr double kDecodeTolerance = 1e-5;

// GPT-2 initialises with normal(0, 0.02), so outputs are ~1e-3 and any comparison would pass;
// redraw the weights so attention is far from uniform and outputs are of order 1.
void widenGpt2(attn::Gpt2Attention& m, std::uint64_t seed) {
    attn::TorchGenerator gen(seed);
    const double bound = 3.0 / std::sqrt(static_cast<double>(m.c_attn.weight.rows()));
    m.c_attn.weight = gen.uniform(m.c_attn.weight.rows(), m.c_attn.weight.cols(), -bound, bound);
    m.c_attn.bias = gen.uniform(1, m.c_attn.bias.size(), -0.2, 0.2);
    m.c_proj.weight = gen.uniform(m.c_proj.weight.rows(), m.c_proj.weight.cols(), -1.0, 1.0);
    m.c_proj.bias = gen.uniform(1, m.c_proj.bias.size(), -0.2, 0.2);
}

Heads constantHeads(Eigen::Index heads, Eigen::Index rows, Eigen::Index cols, float value) {
    return Heads(static_cast<std::size_t>(heads), Matrix::Constant(rows, cols, value));
}

bool sameBits(const Matrix& a, const Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(float)) == 0;
}

// A cache of G heads holding n tokens drawn in [-scale, scale), in a buffer of `capacity` rows
// (the unfilled rows hold 99, which must never be read).
KVCache randomCache(Eigen::Index g, Eigen::Index n, Eigen::Index capacity, Eigen::Index hd_k,
                    Eigen::Index hd_v, double scale, std::uint64_t seed) {
    KVCache cache(g, capacity, hd_k, hd_v);
    for (std::size_t h = 0; h < cache.keys.size(); ++h) {
        cache.keys[h].setConstant(99.0f);
        cache.values[h].setConstant(99.0f);
    }
    Heads keys, values;
    for (Eigen::Index h = 0; h < g; ++h) {
        const std::uint64_t s = seed + 2 * static_cast<std::uint64_t>(h);
        keys.push_back(randomInputs(n, hd_k, s) * static_cast<float>(scale));
        values.push_back(randomInputs(n, hd_v, s + 1) * static_cast<float>(scale));
    }
    cache.append(keys, values);
    return cache;
}

// The reference: single-query attention written as the tutorial's loops, in double. Query head h
// reads K/V head h / (H / G).
struct NaiveSingleQuery {
    std::vector<std::vector<double>> weights;  // H × n
    std::vector<double> context;               // H·hd_v
};
NaiveSingleQuery naiveSingleQuery(const attn::RowVector& queries, const KVCache& cache,
                                  int num_heads, double divisor) {
    const int g = static_cast<int>(cache.num_heads());
    const int hd_k = static_cast<int>(cache.head_dim_k());
    const int hd_v = static_cast<int>(cache.head_dim_v());
    const int n = static_cast<int>(cache.tokens);
    NaiveSingleQuery out;
    out.context.assign(static_cast<std::size_t>(num_heads * hd_v), 0.0);
    for (int h = 0; h < num_heads; ++h) {
        const std::size_t kv = static_cast<std::size_t>(h / (num_heads / g));
        std::vector<double> w(static_cast<std::size_t>(n));
        double max_score = -1e300;
        for (int j = 0; j < n; ++j) {
            double dot = 0.0;
            for (int c = 0; c < hd_k; ++c) {
                dot += static_cast<double>(queries(h * hd_k + c)) *
                       static_cast<double>(cache.keys[kv](j, c));
            }
            w[static_cast<std::size_t>(j)] = dot / divisor;
            max_score = std::max(max_score, dot / divisor);
        }
        double sum = 0.0;
        for (double& x : w) {
            x = std::exp(x - max_score);
            sum += x;
        }
        for (double& x : w) x /= sum;
        for (int j = 0; j < n; ++j) {
            for (int c = 0; c < hd_v; ++c) {
                out.context[static_cast<std::size_t>(h * hd_v + c)] +=
                    w[static_cast<std::size_t>(j)] * static_cast<double>(cache.values[kv](j, c));
            }
        }
        out.weights.push_back(std::move(w));
    }
    return out;
}

}  // namespace

class TestKVCache : public QObject {
    Q_OBJECT

private slots:
    void mhaDecodingEqualsFullPass_data();
    void mhaDecodingEqualsFullPass();
    void gpt2DecodingEqualsFullPass_data();
    void gpt2DecodingEqualsFullPass();
    void gpt2PreallocatedPast();
    void gpt2DecodingPathEqualsGeneralPath();
    void attendOneQueryMatchesNaiveLoop_data();
    void attendOneQueryMatchesNaiveLoop();
    void attendOneQueryMatchesFullKernelBitForBit();
    void cacheSize_data();
    void cacheSize();
    void badInput_data();
    void badInput();
};

void TestKVCache::mhaDecodingEqualsFullPass_data() {
    QTest::addColumn<int>("tokens");
    QTest::addColumn<int>("num_heads");
    QTest::addColumn<bool>("qkv_bias");
    for (int t = 1; t <= 12; ++t) {
        for (int h : {1, 2, 3, 4}) {
            const bool bias = (t + h) % 2 == 0;
            QTest::addRow("T=%d H=%d%s", t, h, bias ? " bias" : "") << t << h << bias;
        }
    }
}

void TestKVCache::mhaDecodingEqualsFullPass() {
    QFETCH(int, tokens);
    QFETCH(int, num_heads);
    QFETCH(bool, qkv_bias);
    const Eigen::Index d_in = 5, d_out = 12;
    attn::TorchGenerator gen(static_cast<std::uint64_t>(100 + tokens));
    const attn::MultiHeadAttention mha(d_in, d_out, 12, 0.0f, num_heads, gen, qkv_bias);
    const Matrix x = randomInputs(tokens, d_in, static_cast<std::uint64_t>(200 + tokens));
    const attn::ModuleOutput full = mha.forward(Batch{x});
    QVERIFY(maxAbs(full.context_vecs[0]) > 0.01);  // outputs large enough for the test to bite

    KVCache cache = mha.make_cache(tokens);
    const float* storage = cache.keys[0].data();
    const Eigen::Index head_dim = d_out / num_heads;
    for (Eigen::Index t = 0; t < tokens; ++t) {
        const attn::DecodeStep step = mha.decode_step(x.row(t), cache);
        const double diff = maxAbsDiff(step.output, full.context_vecs[0].row(t));
        QVERIFY2(diff <= kDecodeTolerance,
                 qPrintable(QStringLiteral("token %1: max abs diff %2").arg(t).arg(diff)));
        QCOMPARE(step.attn_weights.size(), static_cast<std::size_t>(num_heads));
        for (std::size_t h = 0; h < step.attn_weights.size(); ++h) {
            // The new query's weights over the t + 1 cached tokens are the full pass's row t
            // without the (zero) future columns.
            const Matrix full_row = full.heads[0][h].weights.row(t).leftCols(t + 1);
            QVERIFY(maxAbsDiff(step.attn_weights[h], full_row) <= kDecodeTolerance);
        }
        QCOMPARE(step.cache_tokens, t + 1);
        QCOMPARE(step.cache_bytes,
                 static_cast<std::size_t>(2 * num_heads * (t + 1) * head_dim) * sizeof(float));
    }
    QCOMPARE(cache.tokens, Eigen::Index{tokens});
    QCOMPARE(cache.capacity(), Eigen::Index{tokens});
    QCOMPARE(cache.keys[0].data(), storage);  // filled in place, never reallocated
    // The cache holds exactly the keys of the full pass, split into heads.
    const Heads full_keys = attn::split_heads(full.keys[0], num_heads);
    for (Eigen::Index h = 0; h < num_heads; ++h) {
        QVERIFY(maxAbsDiff(cache.keys_of(h), full_keys[static_cast<std::size_t>(h)]) <= 1e-6);
    }
}

void TestKVCache::gpt2DecodingEqualsFullPass_data() {
    QTest::addColumn<int>("tokens");
    QTest::addColumn<int>("n_head");
    QTest::addColumn<int>("prefill");  // tokens of the first call; then one token per call
    for (int t = 1; t <= 12; ++t) {
        for (int h : {1, 2, 3, 4, 6}) {
            QTest::addRow("T=%d H=%d token by token", t, h) << t << h << 1;
        }
    }
    QTest::newRow("T=8 H=2 prefill 3") << 8 << 2 << 3;
    QTest::newRow("T=12 H=4 prefill 5") << 12 << 4 << 5;
    QTest::newRow("T=6 H=3 prefill 6 (no decoding)") << 6 << 3 << 6;
}

void TestKVCache::gpt2DecodingEqualsFullPass() {
    QFETCH(int, tokens);
    QFETCH(int, n_head);
    QFETCH(int, prefill);
    const Eigen::Index nx = 12;
    attn::TorchGenerator gen(static_cast<std::uint64_t>(300 + tokens));
    attn::Gpt2Attention gpt(nx, 12, n_head, true, false, gen);
    widenGpt2(gpt, static_cast<std::uint64_t>(400 + n_head));
    const Matrix x = randomInputs(tokens, nx, static_cast<std::uint64_t>(500 + tokens));

    attn::Gpt2Attention::Input whole;
    whole.hidden_states = {x};
    const Matrix full = gpt.forward(whole).attn.context_vecs[0];
    QVERIFY(maxAbs(full) > 0.05);

    // First call: the prefill tokens, no past; it returns their keys and values as present.
    attn::Gpt2Attention::Input first;
    first.hidden_states = {x.topRows(prefill)};
    first.use_cache = true;
    attn::Gpt2Attention::Output out = gpt.forward(first);
    double diff = maxAbsDiff(out.attn.context_vecs[0], full.topRows(prefill));
    QVERIFY2(diff <= kDecodeTolerance, qPrintable(QStringLiteral("prefill: %1").arg(diff)));
    const Eigen::Index head_dim = nx / n_head;
    for (Eigen::Index t = prefill; t < tokens; ++t) {
        const KVCache past = out.present;
        attn::Gpt2Attention::Input step;
        step.hidden_states = {x.row(t)};
        step.layer_past = &past;
        step.use_cache = true;
        out = gpt.forward(step);
        diff = maxAbsDiff(out.attn.context_vecs[0], full.row(t));
        QVERIFY2(diff <= kDecodeTolerance,
                 qPrintable(QStringLiteral("token %1: max abs diff %2").arg(t).arg(diff)));
        // The single query row sees every token so far: bias[ns-1:ns, :ns] blocks nothing.
        QVERIFY(!out.attn.heads[0][0].blocked.any());
        QCOMPARE(out.attn.heads[0][0].weights.cols(), t + 1);
        QCOMPARE(out.present.tokens, t + 1);
        QCOMPARE(out.present.bytes(),
                 static_cast<std::size_t>(2 * n_head * (t + 1) * head_dim) * sizeof(float));
    }
    QCOMPARE(out.present.tokens, Eigen::Index{tokens});
}

void TestKVCache::gpt2PreallocatedPast() {
    // An empty cache of capacity 8 as the first layer_past: present keeps that capacity, so the
    // caller's buffer size survives every step, and the outputs still match the full pass.
    attn::TorchGenerator gen(77);
    attn::Gpt2Attention gpt(6, 8, 2, true, false, gen);
    widenGpt2(gpt, 78);
    const Matrix x = randomInputs(5, 6, 79);
    attn::Gpt2Attention::Input whole;
    whole.hidden_states = {x};
    const Matrix full = gpt.forward(whole).attn.context_vecs[0];

    KVCache past(2, 8, 3, 3);
    QCOMPARE(past.bytes(), std::size_t{0});
    for (Eigen::Index t = 0; t < 5; ++t) {
        attn::Gpt2Attention::Input step;
        step.hidden_states = {x.row(t)};
        step.layer_past = &past;
        step.use_cache = true;
        const attn::Gpt2Attention::Output out = gpt.forward(step);
        QVERIFY(maxAbsDiff(out.attn.context_vecs[0], full.row(t)) <= kDecodeTolerance);
        QCOMPARE(out.present.capacity(), Eigen::Index{8});
        QCOMPARE(out.present.tokens, t + 1);
        past = out.present;
    }
    // Without use_cache there is no present.
    attn::Gpt2Attention::Input no_cache;
    no_cache.hidden_states = {x};
    QCOMPARE(gpt.forward(no_cache).present.tokens, Eigen::Index{0});
    QCOMPARE(gpt.forward(no_cache).present.capacity(), Eigen::Index{0});
}

void TestKVCache::gpt2DecodingPathEqualsGeneralPath() {
    // One token against layer_past takes attend_one_query; a head_mask of ones sends the same
    // call through scaled_dot_product_attention (multiplying by 1 changes no bit). The two must
    // agree bit for bit, present included.
    attn::TorchGenerator gen(91);
    attn::Gpt2Attention gpt(12, 10, 3, true, false, gen);
    widenGpt2(gpt, 92);
    const Matrix x = randomInputs(7, 12, 93);
    attn::Gpt2Attention::Input first;
    first.hidden_states = {x.topRows(6)};
    first.use_cache = true;
    const KVCache past = gpt.forward(first).present;

    attn::Gpt2Attention::Input step;
    step.hidden_states = {x.bottomRows(1)};
    step.layer_past = &past;
    step.use_cache = true;
    const attn::Gpt2Attention::Output decoded = gpt.forward(step);
    const attn::RowVector ones = attn::RowVector::Ones(3);
    step.head_mask = &ones;
    const attn::Gpt2Attention::Output general = gpt.forward(step);

    QCOMPARE(decoded.attn.heads[0][0].scores.size(), Eigen::Index{0});  // the decoding path ran
    QCOMPARE(general.attn.heads[0][0].scores.cols(), Eigen::Index{7});
    QVERIFY(sameBits(decoded.attn.context_vecs[0], general.attn.context_vecs[0]));
    QVERIFY(sameBits(decoded.attn.concat[0], general.attn.concat[0]));
    for (std::size_t h = 0; h < 3; ++h) {
        QVERIFY(sameBits(decoded.attn.heads[0][h].weights, general.attn.heads[0][h].weights));
        QVERIFY(sameBits(decoded.attn.heads[0][h].context, general.attn.heads[0][h].context));
        QCOMPARE(decoded.attn.heads[0][h].scale_divisor, general.attn.heads[0][h].scale_divisor);
        QVERIFY(!decoded.attn.heads[0][h].blocked.any());
        QVERIFY(decoded.attn.heads[0][h].kept.all());
    }
    QCOMPARE(decoded.present.tokens, Eigen::Index{7});
    QCOMPARE(decoded.present.capacity(), general.present.capacity());
    for (Eigen::Index h = 0; h < 3; ++h) {
        QVERIFY(sameBits(decoded.present.keys_of(h), general.present.keys_of(h)));
        QVERIFY(sameBits(decoded.present.values_of(h), general.present.values_of(h)));
    }
    // The past the caller passed is left alone.
    QCOMPARE(past.tokens, Eigen::Index{6});
}

void TestKVCache::attendOneQueryMatchesNaiveLoop_data() {
    QTest::addColumn<int>("num_heads");
    QTest::addColumn<int>("num_kv_heads");
    QTest::addColumn<int>("hd_k");
    QTest::addColumn<int>("hd_v");
    QTest::addColumn<int>("tokens");
    QTest::addColumn<int>("capacity");
    QTest::addColumn<double>("divisor");
    QTest::newRow("H=1 G=1 hd=1 n=1") << 1 << 1 << 1 << 1 << 1 << 1 << 1.0;
    QTest::newRow("H=2 G=2 hd=2 n=1 (first token)") << 2 << 2 << 2 << 2 << 1 << 6 << std::sqrt(2.0);
    QTest::newRow("H=4 G=4 hd=3 n=7") << 4 << 4 << 3 << 3 << 7 << 7 << std::sqrt(3.0);
    QTest::newRow("H=4 G=2 hd=4 n=9 (grouped)") << 4 << 2 << 4 << 4 << 9 << 12 << 2.0;
    QTest::newRow("H=6 G=3 hd=2 n=13 (grouped)") << 6 << 3 << 2 << 2 << 13 << 20 << std::sqrt(2.0);
    QTest::newRow("H=8 G=1 hd=4 n=5 (multi-query)") << 8 << 1 << 4 << 4 << 5 << 5 << 2.0;
    QTest::newRow("H=3 G=1 hd=1 n=30 (multi-query)") << 3 << 1 << 1 << 1 << 30 << 31 << 1.0;
    QTest::newRow("H=2 G=2 hd_k=2 hd_v=5") << 2 << 2 << 2 << 5 << 6 << 8 << std::sqrt(2.0);
    QTest::newRow("H=4 G=2 hd_k=6 hd_v=3 (grouped)") << 4 << 2 << 6 << 3 << 11 << 11 << 2.5;
    QTest::newRow("H=2 G=1 hd_k=3 hd_v=7 n=1") << 2 << 1 << 3 << 7 << 1 << 4 << std::sqrt(3.0);
    QTest::newRow("H=12 G=4 hd=64 n=200 (large)") << 12 << 4 << 64 << 64 << 200 << 256 << 8.0;
    QTest::newRow("H=2 G=2 hd_k=32 hd_v=48 n=150") << 2 << 2 << 32 << 48 << 150 << 150 << 4.0;
}

void TestKVCache::attendOneQueryMatchesNaiveLoop() {
    QFETCH(int, num_heads);
    QFETCH(int, num_kv_heads);
    QFETCH(int, hd_k);
    QFETCH(int, hd_v);
    QFETCH(int, tokens);
    QFETCH(int, capacity);
    QFETCH(double, divisor);
    // Keys of scale 3 make the weights far from uniform, so a wrong key row or head shows.
    const KVCache cache = randomCache(num_kv_heads, tokens, capacity, hd_k, hd_v, 3.0,
                                      static_cast<std::uint64_t>(700 + tokens));
    const attn::RowVector queries =
        randomInputs(1, num_heads * hd_k, static_cast<std::uint64_t>(800 + num_heads)).row(0);
    attn::SingleQueryAttention out;
    attn::attend_one_query(queries, cache, num_heads, static_cast<float>(divisor), true, out);
    const NaiveSingleQuery naive = naiveSingleQuery(queries, cache, num_heads, divisor);

    // Float sums of up to 200 terms of size ~10 against double: a few float epsilons times the
    // terms; a wrong head, key row or divisor moves weights by > 1e-2.
    constexpr double kTolerance = 2e-5;
    QCOMPARE(out.context.size(), Eigen::Index{num_heads * hd_v});
    QCOMPARE(out.attn_weights.size(), static_cast<std::size_t>(num_heads));
    for (int h = 0; h < num_heads; ++h) {
        const attn::RowVector& w = out.attn_weights[static_cast<std::size_t>(h)];
        QCOMPARE(w.size(), Eigen::Index{tokens});
        for (int j = 0; j < tokens; ++j) {
            const double expected =
                naive.weights[static_cast<std::size_t>(h)][static_cast<std::size_t>(j)];
            QVERIFY2(std::abs(static_cast<double>(w(j)) - expected) <= kTolerance,
                     qPrintable(QStringLiteral("head %1 key %2: %3 vs %4")
                                    .arg(h)
                                    .arg(j)
                                    .arg(static_cast<double>(w(j)))
                                    .arg(expected)));
        }
    }
    for (int c = 0; c < num_heads * hd_v; ++c) {
        const double expected = naive.context[static_cast<std::size_t>(c)];
        QVERIFY2(std::abs(static_cast<double>(out.context(c)) - expected) <=
                     kTolerance * std::max(1.0, std::abs(expected)),
                 qPrintable(QStringLiteral("context %1: %2 vs %3")
                                .arg(c)
                                .arg(static_cast<double>(out.context(c)))
                                .arg(expected)));
    }
    // Without keep_weights the same context and no weights; `out` is reused as it is.
    const attn::RowVector context = out.context;
    attn::attend_one_query(queries, cache, num_heads, static_cast<float>(divisor), false, out);
    QVERIFY(out.attn_weights.empty());
    QVERIFY(sameBits(out.context, context));
}

void TestKVCache::attendOneQueryMatchesFullKernelBitForBit() {
    // decode_step and GPT-2's decoding path must give what scaled_dot_product_attention gives for
    // the same (1, hd) query against the cached rows copied out, bit for bit, on both sides of
    // Eigen's switch from coefficient-based to matrix-vector products (width + n + 1 = 20), for a
    // cache filled to capacity and one with spare rows.
    for (const int hd : {1, 2, 3, 5, 8, 16, 64}) {
        for (const int n : {1, 2, 3, 6, 9, 12, 16, 17, 18, 31, 64, 130}) {
            for (const int spare : {0, 5}) {
                for (const int hd_v : {hd, hd + 3}) {
                    const KVCache cache = randomCache(1, n, n + spare, hd, hd_v, 2.0,
                                                      static_cast<std::uint64_t>(n * hd));
                    const attn::RowVector query =
                        randomInputs(1, hd, static_cast<std::uint64_t>(n + hd)).row(0);
                    attn::SingleQueryAttention out;
                    attn::attend_one_query(query, cache, 1, attn::scale_divisor_of(hd), true, out);
                    const attn::AttentionResult r = attn::scaled_dot_product_attention(
                        Matrix(query), cache.keys_of(0), cache.values_of(0),
                        attn::AttentionOptions{});
                    const QString where = QStringLiteral("hd_k=%1 hd_v=%2 n=%3 spare rows=%4")
                                              .arg(hd)
                                              .arg(hd_v)
                                              .arg(n)
                                              .arg(spare);
                    QVERIFY2(sameBits(out.attn_weights[0], r.weights), qPrintable(where));
                    QVERIFY2(sameBits(out.context, r.context), qPrintable(where));
                }
            }
        }
    }
}

void TestKVCache::cacheSize_data() {
    QTest::addColumn<int>("num_heads");
    QTest::addColumn<int>("head_dim_k");
    QTest::addColumn<int>("head_dim_v");
    QTest::addColumn<int>("rows_per_append");
    QTest::newRow("H=2 hd=1, one token per append") << 2 << 1 << 1 << 1;
    QTest::newRow("H=4 hd=3, two tokens per append") << 4 << 3 << 3 << 2;
    QTest::newRow("H=2 hd_k=2 hd_v=5 (dim_k != dim_v)") << 2 << 2 << 5 << 1;
    QTest::newRow("H=1 hd=64, three tokens per append") << 1 << 64 << 64 << 3;
}

void TestKVCache::cacheSize() {
    QFETCH(int, num_heads);
    QFETCH(int, head_dim_k);
    QFETCH(int, head_dim_v);
    QFETCH(int, rows_per_append);
    const Eigen::Index capacity = 12;
    KVCache cache(num_heads, capacity, head_dim_k, head_dim_v);
    QCOMPARE(cache.tokens, Eigen::Index{0});
    QCOMPARE(cache.bytes(), std::size_t{0});
    QCOMPARE(cache.capacity(), capacity);
    QCOMPARE(cache.num_heads(), Eigen::Index{num_heads});
    const float* key_storage = cache.keys[0].data();
    const float* value_storage = cache.values[0].data();
    Eigen::Index filled = 0;
    float marker = 1.0f;
    while (filled + rows_per_append <= capacity) {
        cache.append(constantHeads(num_heads, rows_per_append, head_dim_k, marker),
                     constantHeads(num_heads, rows_per_append, head_dim_v, -marker));
        filled += rows_per_append;
        QCOMPARE(cache.tokens, filled);
        // (hd_k + hd_v) × H × tokens floats of 4 bytes: 2 × H × tokens × hd × 4 when equal.
        QCOMPARE(cache.bytes(),
                 static_cast<std::size_t>((head_dim_k + head_dim_v) * num_heads * filled) * 4);
        QCOMPARE(cache.keys[0].data(), key_storage);
        QCOMPARE(cache.values[0].data(), value_storage);
        const Matrix keys = cache.keys_of(num_heads - 1);
        QCOMPARE(keys.rows(), filled);
        QCOMPARE(keys.cols(), Eigen::Index{head_dim_k});
        QCOMPARE(keys(filled - 1, 0), marker);  // the newest rows are the last ones
        QCOMPARE(cache.values_of(0)(filled - 1, head_dim_v - 1), -marker);
        marker += 1.0f;
    }
    QCOMPARE(cache.keys_of(0)(0, 0), 1.0f);  // the first token is still first
}

void TestKVCache::badInput_data() {
    QTest::addColumn<Thrower>("call");
    QTest::addColumn<QStringList>("expected");

    QTest::newRow("decode past the cache capacity")
        << Thrower([] {
               attn::TorchGenerator g(1);
               const attn::MultiHeadAttention mha(3, 4, 6, 0.0f, 2, g);
               KVCache cache = mha.make_cache(3);
               const Matrix x = randomInputs(4, 3, 2);
               for (Eigen::Index t = 0; t < 4; ++t) {
                   mha.decode_step(x.row(t), cache);
               }
           })
        << QStringList{"kv_cache is full: it holds 3 of 3 tokens and cannot take 1 more",
                       "create the cache with capacity >= 4"};
    QTest::newRow("append past the capacity")
        << Thrower([] {
               KVCache cache(2, 4, 2, 2);
               cache.append(constantHeads(2, 3, 2, 1.0f), constantHeads(2, 3, 2, 1.0f));
               cache.append(constantHeads(2, 2, 2, 1.0f), constantHeads(2, 2, 2, 1.0f));
           })
        << QStringList{"kv_cache is full: it holds 3 of 4 tokens and cannot take 2 more",
                       "capacity >= 5"};
    QTest::newRow("cache longer than context_length") << Thrower([] {
        attn::TorchGenerator g(1);
        attn::MultiHeadAttention(3, 4, 6, 0.0f, 2, g).make_cache(9);
    }) << QStringList{"sequence has 9 tokens but context_length = 6"};
    QTest::newRow("decode_step with two tokens") << Thrower([] {
        attn::TorchGenerator g(1);
        const attn::MultiHeadAttention mha(3, 4, 6, 0.0f, 2, g);
        KVCache cache = mha.make_cache(6);
        mha.decode_step(Matrix::Ones(2, 3), cache);
    }) << QStringList{"decode_step takes one token but x_t has 2 rows"};
    QTest::newRow("decode_step with d_in mismatch") << Thrower([] {
        attn::TorchGenerator g(1);
        const attn::MultiHeadAttention mha(3, 4, 6, 0.0f, 2, g);
        KVCache cache = mha.make_cache(6);
        mha.decode_step(Matrix::Ones(1, 5), cache);
    }) << QStringList{"x_t has 5 columns but d_in = 3"};
    QTest::newRow("decode_step with another module's cache")
        << Thrower([] {
               attn::TorchGenerator g(1);
               const attn::MultiHeadAttention mha(3, 4, 6, 0.0f, 2, g);
               KVCache cache(4, 6, 1, 1);
               mha.decode_step(Matrix::Ones(1, 3), cache);
           })
        << QStringList{"kv_cache has 4 heads of width 1", "num_heads = 2, head_dim = 2",
                       "make_cache()"};
    QTest::newRow("append with the wrong number of heads") << Thrower([] {
        KVCache cache(2, 4, 2, 2);
        cache.append(constantHeads(3, 1, 2, 1.0f), constantHeads(3, 1, 2, 1.0f));
    }) << QStringList{"kv_cache holds 2 heads but 3 key heads and 3 value heads were given"};
    QTest::newRow("append with the wrong head width") << Thrower([] {
        KVCache cache(2, 4, 2, 2);
        cache.append(constantHeads(2, 1, 3, 1.0f), constantHeads(2, 1, 2, 1.0f));
    }) << QStringList{"kv_cache head 0 expects keys (n, 2)", "got (1, 3)"};
    QTest::newRow("empty cache capacity") << Thrower([] { KVCache cache(2, 0, 2, 2); })
                                          << QStringList{"kv_cache capacity = 0 is not a size"};
    QTest::newRow("GPT-2 layer_past from a module with other heads") << Thrower([] {
        attn::TorchGenerator g(1);
        const attn::Gpt2Attention gpt(6, 8, 2, true, false, g);
        const KVCache past(3, 8, 2, 2);
        attn::Gpt2Attention::Input in;
        in.hidden_states = {Matrix::Ones(1, 6)};
        in.layer_past = &past;
        gpt.forward(in);
    }) << QStringList{"layer_past has 3 heads of width 2 but the module has n_head = 2"};
    QTest::newRow("GPT-2 past + new tokens beyond n_ctx") << Thrower([] {
        attn::TorchGenerator g(1);
        const attn::Gpt2Attention gpt(4, 3, 2, true, false, g);
        KVCache past(2, 3, 2, 2);
        past.append(constantHeads(2, 3, 2, 0.5f), constantHeads(2, 3, 2, 0.5f));
        attn::Gpt2Attention::Input in;
        in.hidden_states = {Matrix::Ones(1, 4)};
        in.layer_past = &past;
        gpt.forward(in);
    }) << QStringList{"sequence has 4 tokens but n_ctx = 3"};
    QTest::newRow("single query of the wrong width")
        << Thrower([] {
               const KVCache cache = randomCache(2, 3, 3, 2, 2, 1.0, 1);
               attn::SingleQueryAttention out;
               attn::attend_one_query(attn::RowVector::Ones(5), cache, 2, 1.0f, true, out);
           })
        << QStringList{"query of num_heads × head_dim = 2 × 2 values", "got 5 values",
                       "2 K/V heads"};
    QTest::newRow("single query with K/V heads not dividing num_heads") << Thrower([] {
        const KVCache cache = randomCache(2, 3, 3, 2, 2, 1.0, 1);
        attn::SingleQueryAttention out;
        attn::attend_one_query(attn::RowVector::Ones(6), cache, 3, 1.0f, true, out);
    }) << QStringList{"num_kv_heads dividing num_heads", "2 K/V heads"};
    QTest::newRow("single query against an empty cache") << Thrower([] {
        const KVCache cache(2, 4, 2, 2);
        attn::SingleQueryAttention out;
        attn::attend_one_query(attn::RowVector::Ones(4), cache, 2, 1.0f, true, out);
    }) << QStringList{"0 cached tokens", "append the new token to the cache first"};
}

void TestKVCache::badInput() {
    QFETCH(Thrower, call);
    QFETCH(QStringList, expected);
    const QString message = errorOf(call);
    for (const QString& part : expected) {
        QVERIFY2(message.contains(part),
                 qPrintable(QStringLiteral("message \"%1\" lacks \"%2\"").arg(message, part)));
    }
}

QTEST_APPLESS_MAIN(TestKVCache)
#include "test_kv_cache.moc"
