// Tiny GGUF models of each architecture the loader reads (llama with its Q/K rows permuted by
// llama.cpp's converter, GQA and rope_freqs; qwen2 with biases and a tied head; qwen3 with q/k
// norms and a key_length of its own), their matrices in ggml's block formats (Q4_0, Q8_0, Q4_K,
// Q5_K, Q6_K, F16), written by tests/reference/gguf_models_reference.py and run there in float64
// PyTorch on the blocks' dequantized values, as transformers computes the families. Opened,
// loaded and run here by the engine, which reads the blocks in place.
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "app/io/gguf.h"
#include "app/io/gguf_model.h"
#include "app/io/tokenizer.h"
#include "app/io/weight_arena.h"
#include "model/generator.h"
#include "model/transformer.h"
#include "tests/reference/gguf_models_reference.h"
#include "tests/support/process_memory.h"

namespace ref = gguf_models_reference;

namespace {

QString pathOf(const ref::Model& m) {
    return QStringLiteral(ATTN_GGUF_DATA_DIR "/") + QLatin1String(m.file);
}

const ref::Model& model(const char* name) {
    for (const ref::Model& m : ref::kModels)
        if (QByteArray(m.name) == name) return m;
    throw std::runtime_error("no such model");
}

// The largest |a - b| over a matrix and its reference, row-major.
double worstDiff(const attn::Matrix& a, const std::vector<double>& b) {
    if (static_cast<std::size_t>(a.size()) != b.size()) return INFINITY;
    double worst = 0.0;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < a.cols(); ++j)
            worst = std::max(worst, std::abs(static_cast<double>(a(i, j)) -
                                             b[static_cast<std::size_t>(i * a.cols() + j)]));
    return worst;
}

double largest(const std::vector<double>& values) {
    double m = 0.0;
    for (double v : values) m = std::max(m, std::abs(v));
    return m;
}

}  // namespace

class TestGgufModel : public QObject {
    Q_OBJECT

private slots:
    void matchesTransformers_data();
    void matchesTransformers();
    void metadataBecomesTheSpec();
    void vocabularyIsComplete();
    void weightsMoveIntoHugePages();
    void weightArenaHandsOutAlignedPieces();
};

void TestGgufModel::matchesTransformers_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < ref::kModels.size(); ++i)
        QTest::newRow(ref::kModels[i].name) << static_cast<int>(i);
}

// Loader and engine against the reference on the same dequantized weights (float32 against
// float64; the worst seen is 3e-7): every layer's and head's attention, layer 0's queries and keys,
// and every position's logits. The llama file's Q and K rows are stored permuted: without the
// loader's undo its queries and keys, and so every attention, would differ by far more than the
// tolerance.
void TestGgufModel::matchesTransformers() {
    QFETCH(int, index);
    const ref::Model& m = ref::kModels[static_cast<std::size_t>(index)];
    QCOMPARE(QFileInfo(pathOf(m)).size(), m.file_size);
    const attn::GgufResult file = attn::openGguf(pathOf(m));
    QVERIFY2(file.ok(), qPrintable(file.error));
    const attn::ModelLoadResult loaded = attn::loadGgufWeights(*file.file);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    const attn::TransformerWeights& w = *loaded.weights;
    QCOMPARE(QString::fromStdString(w.dtype), QString::fromLatin1(m.dtype));
    QVERIFY(w.layers[0][attn::TensorRole::QueryWeight].quantized());

    attn::ModelForwardOptions forward;
    forward.keep_qkv = true;
    forward.all_logits = true;
    const attn::ModelForwardResult r = attn::model_forward(w, ref::kIds, forward);
    const auto t = static_cast<Eigen::Index>(ref::kIds.size());
    const attn::TransformerSpec& s = w.spec;
    QCOMPARE(m.attentions.size(), static_cast<std::size_t>(s.num_layers * s.num_heads * t * t));
    double worst_attention = 0.0;
    std::size_t at = 0;
    for (const auto& layer : r.attentions)
        for (const attn::Matrix& head : layer)
            for (Eigen::Index i = 0; i < t; ++i)
                for (Eigen::Index j = 0; j < t; ++j)
                    worst_attention =
                        std::max(worst_attention,
                                 std::abs(static_cast<double>(head(i, j)) - m.attentions[at++]));
    QCOMPARE(at, m.attentions.size());
    QVERIFY2(worst_attention <= 1e-6, qPrintable(QString::number(worst_attention)));

    const double worst_query = worstDiff(r.queries[0], m.queries);
    QVERIFY2(worst_query <= 1e-6 * largest(m.queries), qPrintable(QString::number(worst_query)));
    const double worst_key = worstDiff(r.keys[0], m.keys);
    QVERIFY2(worst_key <= 1e-6 * largest(m.keys), qPrintable(QString::number(worst_key)));

    const double max_logit = largest(m.logits);
    const double worst_logit = worstDiff(r.logits, m.logits);
    QVERIFY2(worst_logit <= 2e-6 * max_logit,
             qPrintable(QStringLiteral("%1 of %2").arg(worst_logit).arg(max_logit)));

    // Generation through the kv_cache, the blocks read one token at a time (quant_matvec), gives
    // the full pass's logits.
    attn::GenerationOptions options;
    options.max_new_tokens = 4;
    const attn::GenerationResult g = attn::generate(w, {ref::kIds[0], ref::kIds[1]}, options);
    QCOMPARE(g.new_ids.size(), std::size_t{4});
    QVERIFY2(static_cast<double>(g.max_abs_diff_vs_full_pass) <= 2e-6 * max_logit,
             qPrintable(QString::number(g.max_abs_diff_vs_full_pass)));
}

// The metadata the script wrote, as the spec (tests/reference/gguf_models_reference.py's MODELS).
void TestGgufModel::metadataBecomesTheSpec() {
    auto info = [](const char* name) {
        const attn::GgufResult file = attn::openGguf(pathOf(model(name)));
        if (!file.ok()) throw std::runtime_error(file.error.toStdString());
        return attn::ggufModelInfo(*file.file);
    };
    const attn::GgufModelInfo llama = info("llama");
    QVERIFY2(llama.spec, qPrintable(llama.error));
    QCOMPARE(llama.architecture, QStringLiteral("llama"));
    QCOMPARE(llama.name, QStringLiteral("tiny llama"));
    QCOMPARE(llama.dtype, QStringLiteral("Q6_K + Q8_0 + Q4_K + Q4_0 + Q5_K"));
    const attn::TransformerSpec& l = *llama.spec;
    QCOMPARE(l.family, attn::ModelFamily::Llama);
    QCOMPARE(l.num_layers, Eigen::Index{2});
    QCOMPARE(l.d_model, Eigen::Index{256});
    QCOMPARE(l.num_heads, Eigen::Index{4});
    QCOMPARE(l.num_kv_heads, Eigen::Index{2});
    QCOMPARE(l.head_dim, Eigen::Index{64});
    QCOMPARE(l.d_ff, Eigen::Index{256});
    QCOMPARE(l.vocab_size, Eigen::Index{300});
    QCOMPARE(l.max_positions, Eigen::Index{64});
    QCOMPARE(l.rope.base, 500000.0f);
    QCOMPARE(l.norm_eps, 1e-5f);
    QVERIFY(!l.tied_output);
    QVERIFY(!l.qkv_bias);
    QVERIFY(!l.qk_norm);
    // convert_hf_to_gguf.py's llama3 factors (factor 8, bands 1 and 4, original context 64): the
    // highest frequencies kept, one blended, the low ones divided by 8.
    QCOMPARE(l.rope.freq_factors.size(), std::size_t{32});
    QCOMPARE(l.rope.freq_factors[0], 1.0f);
    QCOMPARE(l.rope.freq_factors[3], 1.4254949f);
    QCOMPARE(l.rope.freq_factors[31], 8.0f);
    // 2 layers of (4 + 2 + 2 + 4) · 64 · 256 attention, 3 · 256 · 256 MLP and 2 · 256 norms; two
    // 300 · 256 embeddings; the final norm; 32 rope factors.
    QCOMPARE(llama.parameters,
             qint64{2 * (12 * 64 * 256 + 3 * 256 * 256 + 2 * 256) + 2 * 300 * 256 + 256 + 32});

    const attn::GgufModelInfo qwen2 = info("qwen2");
    QVERIFY2(qwen2.spec, qPrintable(qwen2.error));
    QCOMPARE(qwen2.spec->family, attn::ModelFamily::Qwen2);
    QCOMPARE(qwen2.spec->num_kv_heads, Eigen::Index{2});
    QCOMPARE(qwen2.spec->head_dim, Eigen::Index{16});
    QCOMPARE(qwen2.spec->rope.base, 1000000.0f);
    QCOMPARE(qwen2.spec->norm_eps, 1e-6f);
    QVERIFY(qwen2.spec->rope.freq_factors.empty());
    QVERIFY(qwen2.spec->tied_output);
    QVERIFY(qwen2.spec->qkv_bias);
    QCOMPARE(qwen2.dtype, QStringLiteral("Q8_0 + Q6_K + Q4_0"));

    const attn::GgufModelInfo qwen3 = info("qwen3");
    QVERIFY2(qwen3.spec, qPrintable(qwen3.error));
    QCOMPARE(qwen3.spec->family, attn::ModelFamily::Qwen3);
    QCOMPARE(qwen3.spec->d_model, Eigen::Index{128});
    QCOMPARE(qwen3.spec->head_dim, Eigen::Index{64});  // key_length, not 128 / 4
    QCOMPARE(qwen3.spec->q_width(), Eigen::Index{256});
    QCOMPARE(qwen3.spec->num_kv_heads, Eigen::Index{2});
    QVERIFY(qwen3.spec->qk_norm);
    QVERIFY(!qwen3.spec->qkv_bias);
    QVERIFY(qwen3.spec->tied_output);
    QCOMPARE(qwen3.dtype, QStringLiteral("Q8_0 + F16 + Q5_K + Q4_K"));
}

// The embedded vocabulary: GPT-2's 256 byte symbols, 43 merges, <|endoftext|> as BOS and EOS.
void TestGgufModel::vocabularyIsComplete() {
    const attn::GgufResult file = attn::openGguf(pathOf(model("qwen2")));
    QVERIFY2(file.ok(), qPrintable(file.error));
    const attn::GgufVocabResult v = attn::ggufVocab(*file.file);
    QVERIFY2(v.vocab, qPrintable(v.error));
    QCOMPARE(v.vocab->tokens.size(), qsizetype{300});
    QCOMPARE(v.vocab->model, QByteArray("gpt2"));
    QCOMPARE(v.vocab->pre, QByteArray("qwen2"));
    QCOMPARE(v.vocab->merges.size(), qsizetype{43});
    QCOMPARE(v.vocab->bos, std::optional<int>(299));
    QCOMPARE(v.vocab->eos, std::optional<int>(299));
    QCOMPARE(v.vocab->tokenTypes.back(), 3);
    const attn::TokenizerLoadResult tokenizer = attn::Tokenizer::fromGgufVocab(*v.vocab);
    QVERIFY2(tokenizer.ok(), qPrintable(tokenizer.error));
    // "Ġthe" is merge 4 ("Ġt he") and "Ġand" merge 37 ("Ġan d"), after the 256 byte symbols.
    QCOMPARE(tokenizer.tokenizer->encode(u" the and"), (std::vector<int>{260, 293}));
}

// Loaded from its file, a model's blocks are copied out of the file's mapping into memory of the
// process's own that may use 2 MB pages (weight_arena.h): the pages holding a weight are no
// longer the file's. From bytes in memory the loader reads them in place and leaves them intact.
void TestGgufModel::weightsMoveIntoHugePages() {
    const QString path = pathOf(model("qwen2"));
    const attn::GgufResult file = attn::openGguf(path);
    QVERIFY2(file.ok(), qPrintable(file.error));
    QVERIFY(file.file->fileMapped());
    const attn::ModelLoadResult loaded = attn::loadGgufWeights(*file.file);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    const attn::WeightView& mlp = loaded.weights->layers[0][attn::TensorRole::UpWeight];
    QVERIFY(mlp.quantized());
    const attn::GgufTensorInfo* stored = file.file->tensor("blk.0.ffn_up.weight");
    QVERIFY(stored != nullptr);
    QVERIFY(mlp.blocks != static_cast<const void*>(stored->data));
    QVERIFY(std::memcmp(mlp.blocks, stored->data, stored->bytes) == 0);  // the page cache's copy
    const QStringList block = model_test::smapsBlockOf(mlp.blocks);
    QVERIFY(!block.isEmpty());
    QVERIFY2(!block.first().contains(QFileInfo(path).fileName()), qPrintable(block.first()));
    const QString mode = model_test::transparentHugePages();
    if (!mode.isEmpty()) {
        const QStringList eligible = block.filter(QStringLiteral("THPeligible:"));
        QCOMPARE(eligible.size(), 1);
        QCOMPARE(eligible.first().endsWith(u'1'), mode != QLatin1String("never"));
    }

    QFile raw(path);
    QVERIFY(raw.open(QIODevice::ReadOnly));
    const QByteArray bytes = raw.readAll();
    const QByteArray before = bytes;
    const attn::GgufResult inMemory =
        attn::parseGguf(reinterpret_cast<const uchar*>(bytes.constData()), bytes.size());
    QVERIFY2(inMemory.ok(), qPrintable(inMemory.error));
    QVERIFY(!inMemory.file->fileMapped());
    const attn::ModelLoadResult fromBytes = attn::loadGgufWeights(*inMemory.file);
    QVERIFY2(fromBytes.ok(), qPrintable(fromBytes.error));
    const attn::GgufTensorInfo* up = inMemory.file->tensor("blk.0.ffn_up.weight");
    QCOMPARE(fromBytes.weights->layers[0][attn::TensorRole::UpWeight].blocks,
             static_cast<const void*>(up->data));
    QVERIFY(bytes == before);
}

void TestGgufModel::weightArenaHandsOutAlignedPieces() {
    const std::shared_ptr<attn::WeightArena> arena = attn::WeightArena::create(1000);
#ifdef __linux__
    QVERIFY(arena != nullptr);
    QCOMPARE(reinterpret_cast<quintptr>(arena->base()) % (quintptr{2} << 20), quintptr{0});
    void* a = arena->take(10);
    void* b = arena->take(100);
    QCOMPARE(a, arena->base());
    QCOMPARE(static_cast<char*>(b) - static_cast<char*>(a), std::ptrdiff_t{64});
    QCOMPARE(arena->used(), std::size_t{164});
    QVERIFY(arena->take(837) == nullptr);  // 192 + 837 > 1000
    QVERIFY(arena->take(808) != nullptr);  // 192 + 808 = 1000 exactly
    QVERIFY(arena->take(1) == nullptr);
#else
    QVERIFY(arena == nullptr);
#endif
    QVERIFY(attn::WeightArena::create(0) == nullptr);
    QVERIFY(attn::WeightArena::create(std::size_t{1} << 50) == nullptr);  // more than the machine

    // Bytes that are not a file's mapping are read where they lie, never copied or given back.
    const char text[] = "kept";
    attn::WeightCopies copies(4096, false);
    QVERIFY(copies.owner() == nullptr);
    QCOMPARE(copies.place(text, sizeof text), static_cast<const void*>(text));
    QCOMPARE(QByteArray(text), QByteArray("kept"));
}

QTEST_GUILESS_MAIN(TestGgufModel)
#include "test_gguf_model.moc"
