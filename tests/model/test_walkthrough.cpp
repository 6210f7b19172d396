// The walkthrough's records: sixteen steps in the tutorial's order, their numbers equal to the
// tutorial's printed tensors, and the cell explanations quoting the right numbers.
#include <QtTest>
#include <cmath>
#include <set>

#include "model/ops.h"
#include "model/runner.h"
#include "model/walkthrough.h"
#include "module_test_helpers.h"

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
    void sixteenStepsInOrder() {
        QCOMPARE(steps_.size(), std::size_t{16});
        std::set<std::string> ids;
        for (std::size_t i = 0; i < steps_.size(); ++i) {
            QCOMPARE(steps_[i].number, static_cast<int>(i + 1));
            QVERIFY(!steps_[i].matrices.empty());
            QVERIFY2(!steps_[i].snippet.empty(), steps_[i].id.c_str());
            ids.insert(steps_[i].id);
        }
        QCOMPARE(ids.size(), std::size_t{16});
        QCOMPARE(steps_[10].id, std::string("causal-softmax"));
        QCOMPARE(steps_[15].id, std::string("kv-cache"));
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
        // 2 tensors × 1 head × 6 tokens × head_dim 2 × 4 bytes
        QCOMPARE(fact("cache_bytes", 5), 2.0 * 1 * 6 * 2 * 4);
        // d_in 3, d_out 2, one head: Σ_n (18 + 4n + 4) = 6·22 + 4·21 with the cache.
        QCOMPARE(fact("mults_with_cache", 5), 6 * 22.0 + 4 * 21.0);
        // Σ_n (18n + 4n² + 4n) = 22·21 + 4·91 without it.
        QCOMPARE(fact("mults_without_cache", 5), 22 * 21.0 + 4 * 91.0);
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
            << "ω₂₃ = q₂ · k₃ / √2 = (0.4306·0.4361 + 1.4551·1.1156) / 1.4142 = 1.2806";
        QTest::newRow("projection of the query")
            << 7 << "queries" << 1 << 0 << "q₂₁ = x₂ · W_q[:, 1] = ";
        QTest::newRow("masked score") << 11 << "masked-scores" << 0 << 1 << "ω₁₂ = −∞";
        QTest::newRow("dropped weight")
            << 12 << "dropped-weights" << 1 << 0 << "dropped (was 0.4833)";
        QTest::newRow("kept weight")
            << 12 << "dropped-weights" << 2 << 0 << "= 0.3190 / 0.5000 = 0.6380";
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
