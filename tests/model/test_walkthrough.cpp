// The walkthrough's records: the tutorial's sixteen steps in its order, then the chapters, their
// numbers equal to the tutorial's printed tensors, and the cell explanations quoting the right
// numbers.
#include <QtTest>
#include <cmath>
#include <set>

#include "model/ops.h"
#include "model/runner.h"
#include "model/walkthrough.h"
#include "module_test_helpers.h"
#include "tests/reference/scaling_reference.h"

using attn::Matrix;

namespace {

// Every cell rounds to the printed 4 decimals; printed zeros must be exact zeros.
bool matchesPrinted(const Matrix& m, const std::vector<std::vector<double>>& printed) {
    return modtest::printedMismatches(m, modtest::toMatrix(printed), /*exactZeros=*/true).isEmpty();
}

const attn::StepMatrix& matrix(const attn::Step& step, const std::string& id) {
    const attn::StepMatrix* m = step.find(id);
    if (!m) qFatal("step %s has no matrix %s", step.id.c_str(), id.c_str());
    return *m;
}

const std::vector<std::vector<double>> kCausalWeights = {
    {1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000},
    {0.4833, 0.5167, 0.0000, 0.0000, 0.0000, 0.0000},
    {0.3190, 0.3408, 0.3402, 0.0000, 0.0000, 0.0000},
    {0.2445, 0.2545, 0.2542, 0.2468, 0.0000, 0.0000},
    {0.1994, 0.2060, 0.2058, 0.1935, 0.1953, 0.0000},
    {0.1624, 0.1709, 0.1706, 0.1654, 0.1625, 0.1682}};

}  // namespace

class TestWalkthrough : public QObject {
    Q_OBJECT

private:
    std::vector<attn::Step> steps_ = attn::build_walkthrough();

private slots:
    void stepsInOrder() {
        QCOMPARE(steps_.size(), std::size_t{20});
        std::set<std::string> ids;
        for (std::size_t i = 0; i < steps_.size(); ++i) {
            QCOMPARE(steps_[i].number, static_cast<int>(i + 1));
            QVERIFY(!steps_[i].matrices.empty());
            QVERIFY2(!steps_[i].snippet.empty(), steps_[i].id.c_str());
            ids.insert(steps_[i].id);
        }
        QCOMPARE(ids.size(), std::size_t{20});
        QCOMPARE(steps_[10].id, std::string("causal-softmax"));
        QCOMPARE(steps_[15].id, std::string("kv-cache"));
        QCOMPARE(steps_[16].id, std::string("gqa"));
        QCOMPARE(steps_[17].id, std::string("masks"));
        QCOMPARE(steps_[18].id, std::string("rope"));
        QCOMPARE(steps_[19].id, std::string("flash-tiles"));
    }

    void derivationsReferToMatricesOfTheirStep() {
        for (const attn::Step& s : steps_)
            for (const attn::StepMatrix& m : s.matrices) {
                if (!m.lhs.empty()) QVERIFY2(s.find(m.lhs), (s.id + ": " + m.lhs).c_str());
                if (!m.rhs.empty()) QVERIFY2(s.find(m.rhs), (s.id + ": " + m.rhs).c_str());
                QCOMPARE(static_cast<Eigen::Index>(m.row_labels.size()), m.values.rows());
                QCOMPARE(static_cast<Eigen::Index>(m.col_labels.size()), m.values.cols());
            }
    }

    void printedTensors_data() {
        QTest::addColumn<int>("step");
        QTest::addColumn<QString>("matrixId");
        QTest::addColumn<QVariant>("printed");
        auto row = [](std::vector<double> v) {
            return QVariant::fromValue(std::vector<std::vector<double>>{v});
        };
        auto rows = [](std::vector<std::vector<double>> v) { return QVariant::fromValue(v); };
        QTest::newRow("In[2] scores of journey")
            << 2 << "attn-scores-journey" << row({0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865});
        QTest::newRow("In[3] softmax weights")
            << 3 << "softmax" << row({0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581});
        QTest::newRow("In[4] context z(2)")
            << 4 << "context-vec-journey" << row({0.4419, 0.6515, 0.5683});
        QTest::newRow("In[5] all context vectors") << 5 << "context-vecs"
                                                   << rows({{0.4421, 0.5931, 0.5790},
                                                            {0.4419, 0.6515, 0.5683},
                                                            {0.4431, 0.6496, 0.5671},
                                                            {0.4304, 0.6298, 0.5510},
                                                            {0.4671, 0.5910, 0.5266},
                                                            {0.4177, 0.6503, 0.5645}});
        QTest::newRow("In[8] keys") << 7 << "keys"
                                    << rows({{0.3669, 0.7646},
                                             {0.4433, 1.1419},
                                             {0.4361, 1.1156},
                                             {0.2408, 0.6706},
                                             {0.1827, 0.3292},
                                             {0.3275, 0.9642}});
        QTest::newRow("In[8] values") << 7 << "values"
                                      << rows({{0.1855, 0.8812},
                                               {0.3951, 1.0037},
                                               {0.3879, 0.9831},
                                               {0.2393, 0.5493},
                                               {0.1492, 0.3346},
                                               {0.3221, 0.7863}});
        QTest::newRow("In[13] SelfAttention v2") << 9 << "context-v2"
                                                 << rows({{-0.5337, -0.1051},
                                                          {-0.5323, -0.1080},
                                                          {-0.5323, -0.1079},
                                                          {-0.5297, -0.1076},
                                                          {-0.5311, -0.1066},
                                                          {-0.5299, -0.1081}});
        QTest::newRow("In[14] causal method 1") << 10 << "causal-weights" << rows(kCausalWeights);
        QTest::newRow("In[15] causal method 2") << 11 << "causal-weights" << rows(kCausalWeights);
        QTest::newRow("In[16] dropout") << 12 << "dropped-weights"
                                        << rows({{2.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000},
                                                 {0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000},
                                                 {0.6380, 0.6816, 0.6804, 0.0000, 0.0000, 0.0000},
                                                 {0.0000, 0.5090, 0.5085, 0.0000, 0.0000, 0.0000},
                                                 {0.0000, 0.4120, 0.0000, 0.3869, 0.0000, 0.0000},
                                                 {0.0000, 0.3418, 0.3413, 0.3308, 0.3249, 0.0000}});
    }

    void printedTensors() {
        QFETCH(int, step);
        QFETCH(QString, matrixId);
        QFETCH(QVariant, printed);
        const attn::Step& s = steps_[static_cast<std::size_t>(step - 1)];
        const attn::StepMatrix& m = matrix(s, matrixId.toStdString());
        QVERIFY(matchesPrinted(m.values, printed.value<std::vector<std::vector<double>>>()));
    }

    void query2RowOfTheQueries() {
        const attn::StepMatrix& q = matrix(steps_[6], "queries");
        QVERIFY(matchesPrinted(q.values.row(1), {{0.4306, 1.4551}}));
    }

    void naiveSoftmaxOverflowsWhereStableDoesNot() {
        const attn::Step& s = steps_[2];
        QVERIFY(matrix(s, "large-naive-softmax").values.array().isNaN().any());
        const Matrix& stable = matrix(s, "large-softmax").values;
        QVERIFY(stable.allFinite());
        QVERIFY(std::abs(stable.sum() - 1.0f) < 1e-6f);
    }

    void bothCausalMethodsAgree() {
        const attn::Step& s = steps_[10];
        QVERIFY(matrix(s, "method-difference").values.maxCoeff() < 1e-6f);
        const attn::StepMatrix& w = matrix(s, "causal-weights");
        QCOMPARE(w.blocked.count(), Eigen::Index{15});
        QVERIFY(std::isinf(w.fill_value) && w.fill_value < 0);
    }

    void batchItemsAreEqual() {
        const attn::Step& s = steps_[12];
        QCOMPARE(matrix(s, "batch-1-context").values, matrix(s, "batch-2-context").values);
        QCOMPARE(matrix(s, "batch-1-context").values.cols(), Eigen::Index{2});
    }

    void multiHeadShapes() {
        const attn::Step& s = steps_[13];
        QCOMPARE(matrix(s, "wrapper-context").values.cols(), Eigen::Index{4});
        QCOMPARE(matrix(s, "head-2").values.rows(), Eigen::Index{6});
        QCOMPARE(matrix(s, "W_query-fused").values.rows(), Eigen::Index{3});
        QCOMPARE(matrix(s, "W_query-fused").values.cols(), Eigen::Index{4});
        // The wrapper's first head is CausalAttention seeded like the tutorial: its causal weights.
        QVERIFY(matchesPrinted(matrix(s, "wrapper-head-1").values, kCausalWeights));
    }

    void crossAttentionIsRectangular() {
        const attn::StepMatrix& w = matrix(steps_[14], "cross-weights");
        QCOMPARE(w.values.rows(), Eigen::Index{6});
        QCOMPARE(w.values.cols(), Eigen::Index{4});
        QCOMPARE(w.col_labels[0], std::string("你的"));
        for (Eigen::Index r = 0; r < 6; ++r)
            QVERIFY(std::abs(w.values.row(r).sum() - 1.0f) < 1e-5f);
    }

    void kvCacheFramesGrowAndMatchTheFullPass() {
        const attn::Step& s = steps_[15];
        QCOMPARE(s.frame_count, 6);
        int keysSeen = 0;
        for (const attn::StepMatrix& m : s.matrices)
            if (m.id == "cached-keys") {
                QCOMPARE(m.values.rows(), Eigen::Index{m.frame + 1});
                ++keysSeen;
            }
        QCOMPARE(keysSeen, 6);
        // Every frame states each fact; a missing one reads as NaN, which no check accepts.
        auto fact = [&s](const std::string& id, int frame) {
            for (const attn::StepFact& f : s.facts)
                if (f.id == id && f.frame == frame) return f.value;
            return std::nan("");
        };
        for (int frame = 0; frame < 6; ++frame) {
            QVERIFY2(fact("max_abs_diff", frame) <= 1e-5, qPrintable(QString::number(frame)));
            QCOMPARE(fact("cache_tokens", frame), frame + 1.0);
        }
        // Step 14's MultiHeadAttention: 2 tensors × 2 heads × 6 tokens × head_dim 2 × 4 bytes.
        QCOMPARE(fact("cache_bytes", 5), 2.0 * 2 * 6 * 2 * 4);
        // d_in 3, d_out 4: Σ_n (3·3·4 + 2·n·4 + 4²) = 6·52 + 8·21 with the cache.
        QCOMPARE(fact("mults_with_cache", 5), 6 * 52.0 + 8 * 21.0);
        // Σ_n (36n + 8n² + 16n) = 52·21 + 8·91 without it.
        QCOMPARE(fact("mults_without_cache", 5), 52 * 21.0 + 8 * 91.0);
        // What the page states as saved: 1820 - 480 = 1340 multiplications, 73.6 %.
        QCOMPARE(fact("mults_saved", 5), 1340.0);
        QVERIFY(std::abs(fact("mults_saved_percent", 5) - 100.0 * 1340.0 / 1820.0) <= 1e-9);
        QCOMPARE(fact("mults_saved", 0), 0.0);
    }

    // Step 16 decodes with step 14's module: both heads in every frame, the same full pass.
    void kvCacheIsStep14sTwoHeadModule() {
        const attn::Step& kv = steps_[15];
        const attn::Step& mh = steps_[13];
        QCOMPARE(matrix(kv, "full-output").values.cols(), Eigen::Index{4});
        QVERIFY(
            (matrix(kv, "full-output").values - matrix(mh, "output").values).cwiseAbs().maxCoeff() <
            1e-6f);
        for (int frame = 0; frame < 6; ++frame)
            for (const char* id : {"new-query", "cached-keys", "cached-values",
                                   "new-weights-head-1", "new-weights-head-2", "cached-outputs"}) {
                const attn::StepMatrix* m = kv.find(id, frame);
                QVERIFY2(m && m->frame == frame, id);
                if (QByteArray(id).startsWith("cached-"))
                    QCOMPARE(m->values.rows(), Eigen::Index{frame + 1});
            }
        // The cache as the module keeps it: (tokens, d_out), head 2 in columns 3-4.
        const attn::StepMatrix* keys = kv.find("cached-keys", 4);
        QVERIFY(keys);
        QCOMPARE(keys->values.cols(), Eigen::Index{4});
        QCOMPARE(keys->col_labels[2], std::string("h2·1"));
        const QString k = QString::fromStdString(attn::explain_cell(kv, *keys, 1, 2));
        QVERIFY2(k.startsWith(QStringLiteral("head 2: k₂₃ = x₂ · W_k[:, 3] = ")), qPrintable(k));
        // Frame 2 ("starts"), head 2: its weights over the three cached keys sum to 1, and the
        // explanation names the head.
        const attn::StepMatrix* w = kv.find("new-weights-head-2", 2);
        QVERIFY(w);
        QCOMPARE(w->values.cols(), Eigen::Index{3});
        QVERIFY(std::abs(w->values.sum() - 1.0f) < 1e-5f);
        const QString text = QString::fromStdString(attn::explain_cell(kv, *w, 0, 1));
        QVERIFY2(text.startsWith(QStringLiteral("head 2: ω̃₃₂ = ω₃₂ / √2 = ")) &&
                     text.contains(QStringLiteral("; α₃₂ = exp(ω̃₃₂ − max)")),
                 qPrintable(text));
        // The decoded output row 2 of frame 5 is out_proj of the cached heads, with the bias.
        const attn::StepMatrix* out = kv.find("cached-outputs", 5);
        QVERIFY(out);
        const QString y = QString::fromStdString(attn::explain_cell(kv, *out, 2, 0));
        QVERIFY2(y.startsWith(QStringLiteral("y₃₁ = z₃ · W_o[:, 1] + b₁ = ")), qPrintable(y));
    }

    void explanations_data() {
        QTest::addColumn<int>("step");
        QTest::addColumn<QString>("matrixId");
        QTest::addColumn<int>("row");
        QTest::addColumn<int>("col");
        QTest::addColumn<QString>("expected");
        QTest::newRow("dot product of journey and starts")
            << 2 << "attn-scores-journey" << 0 << 2
            << "ω₂₃ = x₂ · x₃ = (0.5500·0.5700 + 0.8700·0.8500 + 0.6600·0.6400) = 1.4754";
        QTest::newRow("scaled score from q2 and k3")
            << 8 << "attn-scores-scaled" << 1 << 2
            << "ω̃₂₃ = q₂ · k₃ / √2 = (0.4306·0.4361 + 1.4551·1.1156) / 1.4142 = 1.2806";
        // exp() of the value actually exponentiated: the score minus the row maximum 1.4950.
        QTest::newRow("stable softmax shows the shifted exponent")
            << 3 << "softmax" << 0 << 0
            << "α₂₁ = exp(ω₂₁ − max) / Σⱼ exp(ω₂ⱼ − max), max = 1.4950: exp(0.9544 − 1.4950) = "
               "exp(−0.5406) = 0.5824; ";
        QTest::newRow("softmax weight ends with its value")
            << 3 << "softmax" << 0 << 0 << "/ 4.2036 = 0.1385";
        QTest::newRow("scaled weights exponentiate ω̃")
            << 8 << "attn-weights" << 1 << 2 << "α₂₃ = exp(ω̃₂₃ − max) / Σⱼ exp(ω̃₂ⱼ − max)";
        QTest::newRow("softmax with the division names ω̃")
            << 11 << "causal-weights" << 1 << 0 << "ω̃₂₁ = ω₂₁ / √2 = ";
        QTest::newRow("naive softmax overflows")
            << 3 << "large-naive-softmax" << 0 << 1 << "α₂₂ = exp(ω₂₂) / Σⱼ exp(ω₂ⱼ) = exp(149.5";
        QTest::newRow("scores times 100")
            << 3 << "large-scores" << 0 << 1 << "ω₂₂ · 100 = 1.4950 · 100 = 149.5000";
        QTest::newRow("causal mask cell")
            << 10 << "causal-mask" << 1 << 3 << "m₂₄ = 0: key 4 comes after query 2";
        QTest::newRow("projection of the query")
            << 7 << "queries" << 1 << 0 << "q₂₁ = x₂ · W_q[:, 1] = ";
        QTest::newRow("masked score") << 11 << "masked-scores" << 0 << 1 << "ω₁₂ = −∞";
        QTest::newRow("dropped weight")
            << 12 << "dropped-weights" << 1 << 0 << "α′₂₁ = 0: dropped (α₂₁ was 0.4833)";
        QTest::newRow("kept weight") << 12 << "dropped-weights" << 2 << 0
                                     << "α′₃₁ = α₃₁ / (1 − p) = 0.3190 / (1 − 0.5) = 0.6380";
        QTest::newRow("wrapper head weight names its head")
            << 14 << "wrapper-head-2" << 1 << 0 << "head 2: ω̃₂₁ = ω₂₁ / √2 = ";
        QTest::newRow("fused head weight exponentiates ω̃")
            << 14 << "head-1" << 1 << 0 << "; α₂₁ = exp(ω̃₂₁ − max) / Σⱼ exp(ω̃₂ⱼ − max)";
        QTest::newRow("fused W_query column feeds head 2")
            << 14 << "W_query-fused" << 0 << 2
            << ": column 3 feeds head 2 (columns 3–4), its column 1";
        QTest::newRow("concatenation names head and column")
            << 14 << "concat" << 3 << 3
            << "z₄₄ = head 2, column 2 (columns 3–4 are head 2): z₄₂ = Σⱼ α₄ⱼ · vⱼ₂ = ";
        QTest::newRow("wrapper concatenation") << 14 << "wrapper-context" << 0 << 1
                                               << "z₁₂ = head 1, column 2 (columns 1–2 are head 1)";
        QTest::newRow("out_proj with bias")
            << 14 << "output" << 0 << 3 << "y₁₄ = z₁ · W_o[:, 4] + b₄";
        QTest::newRow("batch item values")
            << 13 << "batch-2-values" << 0 << 0 << "v₁₁ = x₁ · W_v[:, 1] = 0.4300·";
        QTest::newRow("cross-attention keys from the source")
            << 15 << "keys" << 0 << 0 << "k₁₁ = s₁ · W_k[:, 1] = ";
        QTest::newRow("cross-attention scaled score")
            << 15 << "cross-scores" << 0 << 0 << "ω̃₁₁ = q₁ · k₁ / √2";
    }

    void explanations() {
        QFETCH(int, step);
        QFETCH(QString, matrixId);
        QFETCH(int, row);
        QFETCH(int, col);
        QFETCH(QString, expected);
        const attn::Step& s = steps_[static_cast<std::size_t>(step - 1)];
        const QString text = QString::fromStdString(
            attn::explain_cell(s, matrix(s, matrixId.toStdString()), row, col));
        QVERIFY2(text.contains(expected), qPrintable(text + "  <- expected: " + expected));
    }

    // Every cell of every drawn matrix that is computed explains itself with its numbers; only
    // given matrices (inputs, parameters, the random keep mask) have no formula.
    void everyComputedCellIsExplained() {
        const std::set<std::string> given = {"inputs",  "query",    "W_query",     "W_key",
                                             "W_value", "out_proj", "dropout-mask"};
        for (const attn::Step& s : steps_)
            for (const attn::StepMatrix& m : s.matrices) {
                const bool isGiven = m.derivation == attn::Derivation::None && m.head_dim == 0;
                if (isGiven) {
                    QVERIFY2(given.count(m.id),
                             (s.id + ": " + m.id + " has no derivation").c_str());
                    continue;
                }
                for (Eigen::Index r = 0; r < m.values.rows(); ++r)
                    for (Eigen::Index c = 0; c < m.values.cols(); ++c) {
                        const std::string text = attn::explain_cell(s, m, r, c);
                        QVERIFY2(
                            !text.empty() && text.find(" = ") != std::string::npos,
                            (s.id + ": " + m.id + " " + std::to_string(r) + "," + std::to_string(c))
                                .c_str());
                    }
            }
    }

    // One notation: α′ after dropout, never "α = α / (1 − p)"; ω̃ where ω / √d_k is exponentiated.
    void notationIsOneWay() {
        for (const attn::Step& s : steps_)
            for (const attn::StepMatrix& m : s.matrices)
                for (Eigen::Index r = 0; r < m.values.rows(); ++r)
                    for (Eigen::Index c = 0; c < m.values.cols(); ++c) {
                        const QString text = QString::fromStdString(attn::explain_cell(s, m, r, c));
                        if (m.derivation == attn::Derivation::Dropout)
                            QVERIFY2(text.startsWith(QStringLiteral("α′")), qPrintable(text));
                        if (m.derivation == attn::Derivation::Softmax && m.divisor != 1.0f &&
                            !text.contains(QStringLiteral("exp(−∞)")))
                            QVERIFY2(text.contains(QStringLiteral("ω̃")) &&
                                         !QString(text)
                                              .remove(QStringLiteral("ω̃"))
                                              .contains(QStringLiteral("exp(ω")),
                                     qPrintable(text));
                        QVERIFY2(!text.contains(QStringLiteral("/√")), qPrintable(text));
                    }
    }

    // Step 8: at the tutorial's d_k = 2 nothing saturates; at d_k = 64 the unscaled weights are
    // nearly one-hot and the scaled ones are not.
    void scalingMattersAtWideHeads() {
        const attn::Step& s = steps_[7];
        auto meanRowMax = [&](const char* id) {
            return static_cast<double>(matrix(s, id).values.rowwise().maxCoeff().mean());
        };
        QVERIFY(meanRowMax("attn-weights-unscaled") < 0.3);
        QVERIFY(meanRowMax("attn-weights") < 0.3);
        const attn::StepMatrix& wideUnscaled = matrix(s, "attn-weights-unscaled-64");
        const attn::StepMatrix& wideScaled = matrix(s, "attn-weights-64");
        QCOMPARE(wideUnscaled.values.rows(), Eigen::Index{6});
        QVERIFY2(meanRowMax("attn-weights-unscaled-64") > 0.85,
                 qPrintable(QString::number(meanRowMax("attn-weights-unscaled-64"))));
        QVERIFY2(meanRowMax("attn-weights-64") < 0.6,
                 qPrintable(QString::number(meanRowMax("attn-weights-64"))));
        QCOMPARE(wideScaled.divisor, 8.0f);
        // PyTorch's own numbers for the snippet the step shows
        // (tests/reference/scaling_reference.py).
        for (int r = 0; r < 6; ++r)
            for (int c = 0; c < 6; ++c) {
                QVERIFY(std::abs(wideUnscaled.values(r, c) - scaling_reference::kUnscaled[r][c]) <
                        1e-6f);
                QVERIFY(std::abs(wideScaled.values(r, c) - scaling_reference::kScaled[r][c]) <
                        1e-6f);
            }
        QVERIFY(std::abs(meanRowMax("attn-weights-unscaled-64") -
                         scaling_reference::kUnscaledMeanRowMax) < 1e-6);
        QVERIFY(std::abs(meanRowMax("attn-weights-64") - scaling_reference::kScaledMeanRowMax) <
                1e-6);
        const attn::StepMatrix* scores = s.find("attn-scores-64");
        QVERIFY(scores && scores->values.cols() == 6);
        QCOMPARE(s.find("queries-64")->values.cols(), Eigen::Index{64});
        // The text quotes the record's means, 4 decimals.
        QCOMPARE(QString::fromStdString(s.arg("wide_max_unscaled")),
                 QString::number(meanRowMax("attn-weights-unscaled-64"), 'f', 4));
        QCOMPARE(QString::fromStdString(s.arg("wide_d_k")), QStringLiteral("64"));
    }

    // Dropped cells: the tutorial's dropout zeroes 9 of the 21 weights on and below the
    // diagonal (the printed tensor's zeros there); masked cells are not "dropped".
    void droppedCellsAreMarked() {
        const attn::Step& s = steps_[11];
        const attn::StepMatrix& d = matrix(s, "dropped-weights");
        QCOMPARE(d.dropped.rows(), Eigen::Index{6});
        QCOMPARE(d.dropped.count(), Eigen::Index{9});
        QVERIFY(d.dropped(1, 0) && d.dropped(1, 1) && d.dropped(5, 5));
        QVERIFY(!d.dropped(0, 0) && !d.dropped(0, 1) && !d.dropped(2, 2));
        for (const attn::Step& step : steps_)
            for (const attn::StepMatrix& m : step.matrices)
                if (m.derivation == attn::Derivation::Dropout)
                    QCOMPARE(m.dropped.size(), m.values.size());
        QCOMPARE(s.arg("kept_unmasked"), std::string("12"));
        QCOMPARE(s.arg("dropped_cells"), std::string("9"));
        // Inference has its own code and the count of kept cells holds in training only.
        QVERIFY(s.inference_snippet.find(".eval()") != std::string::npos);
        bool keptIsTrainingOnly = false;
        for (const attn::StepFact& f : s.facts)
            if (f.id == "kept_cells") keptIsTrainingOnly = f.training_only;
        QVERIFY(keptIsTrainingOnly);
    }

    // Step 3's grid: the naive softmax of the scores × 100 is NaN exactly where exp() overflows
    // (score × 100 above 88.72): Your, journey, starts and step.
    void largeScoresOverflowWhereTheTextSays() {
        const attn::Step& s = steps_[2];
        const Matrix& naive = matrix(s, "large-naive-softmax").values;
        // 95.44, 149.50, 147.54, 84.34, 70.70, 108.65: four above 88.72.
        QCOMPARE(naive.array().isNaN().count(), Eigen::Index{4});
        QVERIFY(std::isnan(naive(0, 0)) && naive(0, 3) == 0.0f && naive(0, 4) == 0.0f);
        QCOMPARE(s.arg("large_nan_count"), std::string("4"));
        QCOMPARE(s.arg("large_factor"), std::string("100"));
    }

    void editedInputsRecompute() {
        attn::Sequence seq = attn::tutorial_inputs();
        seq.embeddings(0, 0) = 2.0f;
        const std::vector<attn::Step> edited = attn::build_walkthrough(seq);
        QVERIFY(matrix(edited[4], "attn-scores").values(0, 0) >
                matrix(steps_[4], "attn-scores").values(0, 0));
    }

    // An example file of another width (here 32 tokens of width 96, as explore mode's benchmark)
    // gets the whole walkthrough: the cross-attention step draws its 4 source tokens at the
    // file's width instead of refusing it. It stopped the app at start-up before.
    void otherWidthGetsEveryStep() {
        const attn::Sequence seq = attn::random_sequence(32, 96, 1);
        const std::vector<attn::Step> wide = attn::build_walkthrough(seq);
        QCOMPARE(wide.size(), steps_.size());
        const attn::Step& cross = wide[14];
        QCOMPARE(cross.id, steps_[14].id);
        const attn::StepMatrix& keys = matrix(cross, "keys");
        QCOMPARE(keys.values.rows(), Eigen::Index{4});
        const attn::StepMatrix& weights = matrix(cross, "cross-weights");
        QCOMPARE(weights.values.rows(), Eigen::Index{32});
        QCOMPARE(weights.values.cols(), Eigen::Index{4});
        for (Eigen::Index r = 0; r < 32; ++r)
            QVERIFY(std::abs(weights.values.row(r).sum() - 1.0f) < 1e-5f);
        // The tutorial's own width keeps the built-in source embeddings.
        QCOMPARE(matrix(steps_[14], "keys").values.rows(), Eigen::Index{4});
        // Any shape explore mode accepts has a walkthrough: one token, width 1, odd widths.
        for (const auto& [tokens, width] : {std::pair{1, 3}, {2, 1}, {1, 1}, {7, 5}, {3, 2}}) {
            const std::vector<attn::Step> steps =
                attn::build_walkthrough(attn::random_sequence(tokens, width, 2));
            QCOMPARE(steps.size(), steps_.size());
        }
    }

    void badInputIsRefusedWithTheEngineMessage() {
        attn::Sequence seq = attn::tutorial_inputs();
        seq.embeddings(2, 1) = std::nanf("");
        try {
            attn::build_walkthrough(seq);
            QFAIL("NaN input was accepted");
        } catch (const attn::AttentionError& e) {
            QVERIFY2(QString(e.what()).contains("NaN"), e.what());
        }
    }
};

Q_DECLARE_METATYPE(std::vector<std::vector<double>>)

QTEST_APPLESS_MAIN(TestWalkthrough)
#include "test_walkthrough.moc"
