// The generic step page: every step of the walkthrough builds from its record, each
// heatmap holds exactly the engine's numbers, and hovering a cell explains it with its own
// numbers and outlines where it came from.
#include <qcustomplot.h>

#include <QCheckBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableWidget>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <limits>

#include "model/walkthrough.h"
#include "views/heatmap_widget.h"
#include "views/step_page.h"
#include "views/vector_view.h"

using views::HeatmapWidget;
using views::StepPage;

namespace {

const std::vector<attn::Step>& walkthrough() {
    static const std::vector<attn::Step> steps = attn::build_walkthrough();
    return steps;
}

const attn::Step& stepNumber(int number) {
    return walkthrough().at(static_cast<std::size_t>(number - 1));
}

// The record of `id` a page shows in `frame`, looked up in the engine's output directly rather
// than through the page.
const attn::StepMatrix* modelMatrix(const attn::Step& step, const std::string& id, int frame) {
    for (const attn::StepMatrix& m : step.matrices)
        if (m.id == id && (m.frame < 0 || m.frame == frame)) return &m;
    return nullptr;
}

QStringList labels(const std::vector<std::string>& v) {
    QStringList list;
    for (const std::string& s : v) list.append(QString::fromStdString(s));
    return list;
}

// Every cell of the heatmap against the engine's matrix: colour data for plain cells, the given
// value for masked ones (which take no colour), labels on both axes.
void compareHeatmap(const HeatmapWidget* map, const attn::StepMatrix& m, const QString& what) {
    QVERIFY2(map, qPrintable(what));
    QCOMPARE(map->rowCount(), static_cast<int>(m.values.rows()));
    QCOMPARE(map->columnCount(), static_cast<int>(m.values.cols()));
    QCOMPARE(map->rowLabels(), labels(m.row_labels));
    QCOMPARE(map->columnLabels(), labels(m.col_labels));
    for (int r = 0; r < map->rowCount(); ++r) {
        for (int c = 0; c < map->columnCount(); ++c) {
            const double expected = static_cast<double>(m.values(r, c));
            const bool blocked = m.blocked.size() > 0 && m.blocked(r, c);
            const QString cell = QStringLiteral("%1 (%2, %3)").arg(what).arg(r).arg(c);
            if (std::isnan(expected)) {
                QVERIFY2(std::isnan(map->inputValue(r, c)), qPrintable(cell));
                QCOMPARE(map->cellKind(r, c), HeatmapWidget::CellKind::NaN);
            } else if (blocked || std::isinf(expected)) {
                QCOMPARE(map->cellKind(r, c), HeatmapWidget::CellKind::Masked);
                QCOMPARE(map->inputValue(r, c), expected);
            } else {
                QCOMPARE(map->cellKind(r, c), HeatmapWidget::CellKind::Value);
                if (map->cellValue(r, c) != expected)
                    QFAIL(qPrintable(QStringLiteral("%1: heatmap %2, engine %3")
                                         .arg(cell)
                                         .arg(map->cellValue(r, c), 0, 'g', 9)
                                         .arg(expected, 0, 'g', 9)));
            }
        }
    }
}

bool containsCjk(const QString& s) {
    static const QRegularExpression cjk(QStringLiteral("[\\x{4e00}-\\x{9fff}]"));
    return cjk.match(s).hasMatch();
}

}  // namespace

class TestStepPage : public QObject {
    Q_OBJECT

private slots:
    void everyStepBuilds_data();
    void everyStepBuilds();
    void heatmapsEqualEngine_data();
    void heatmapsEqualEngine();
    void colourMapsFollowKind();
    void cellExplanation_data();
    void cellExplanation();
    void hoverHighlightsSources_data();
    void hoverHighlightsSources();
    void stepHighlightsOnOpen();
    void tablesShowNumbers();
    void kvCacheFrames();
    void controlsGrowWithScale();
    void fitToHeightShrinksToTheScreen();
    void tooltipsCanBeTurnedOff();
    void dropoutInference();
    void vectorViewOnFirstStep();
    void snippetIsTheTutorials();
};

void TestStepPage::everyStepBuilds_data() {
    QTest::addColumn<int>("number");
    QTest::addColumn<QString>("id");
    QTest::addColumn<int>("heatmaps");
    // One heatmap per distinct matrix of the record; the KV-cache step shows one frame at a time.
    QTest::newRow("1 inputs") << 1 << "inputs" << 1;
    QTest::newRow("2 scores-journey") << 2 << "scores-journey" << 3;
    QTest::newRow("3 weights-journey") << 3 << "weights-journey" << 7;
    QTest::newRow("4 context-journey") << 4 << "context-journey" << 3;
    QTest::newRow("5 all-tokens") << 5 << "all-tokens" << 4;
    QTest::newRow("6 trainable-weights") << 6 << "trainable-weights" << 3;
    QTest::newRow("7 queries-keys-values") << 7 << "queries-keys-values" << 7;
    QTest::newRow("8 scaled-scores") << 8 << "scaled-scores" << 10;
    QTest::newRow("9 self-attention-classes") << 9 << "self-attention-classes" << 6;
    QTest::newRow("10 causal-renormalize") << 10 << "causal-renormalize" << 4;
    QTest::newRow("11 causal-softmax") << 11 << "causal-softmax" << 5;
    QTest::newRow("12 dropout") << 12 << "dropout" << 3;
    QTest::newRow("13 causal-attention-batch") << 13 << "causal-attention-batch" << 6;
    QTest::newRow("14 multi-head") << 14 << "multi-head" << 9;
    QTest::newRow("15 cross-attention") << 15 << "cross-attention" << 6;
    QTest::newRow("16 kv-cache") << 16 << "kv-cache" << 7;
    QTest::newRow("17 gqa") << 17 << "gqa" << 8;
    QTest::newRow("18 masks") << 18 << "masks" << 4;
    QTest::newRow("19 rope") << 19 << "rope" << 7;
    QTest::newRow("20 flash-tiles") << 20 << "flash-tiles" << 7;
}

void TestStepPage::everyStepBuilds() {
    QFETCH(int, number);
    QFETCH(QString, id);
    QFETCH(int, heatmaps);
    QCOMPARE(static_cast<int>(walkthrough().size()), 20);
    const attn::Step& step = stepNumber(number);
    QCOMPARE(QString::fromStdString(step.id), id);
    StepPage page(step);
    page.resize(1200, 800);
    QCOMPARE(page.heatmaps().size(), heatmaps);
    QCOMPARE(page.matrixIds().size(), heatmaps);
    QVERIFY(!page.title().isEmpty());
    for (HeatmapWidget* map : page.heatmaps()) QVERIFY(map->rowCount() > 0);
}

void TestStepPage::heatmapsEqualEngine_data() {
    QTest::addColumn<int>("number");
    for (const attn::Step& s : walkthrough())
        QTest::addRow("%d %s", s.number, s.id.c_str()) << s.number;
}

void TestStepPage::heatmapsEqualEngine() {
    QFETCH(int, number);
    const attn::Step& step = stepNumber(number);
    StepPage page(step);
    for (const QString& id : page.matrixIds()) {
        const attn::StepMatrix* m = modelMatrix(step, id.toStdString(), page.frame());
        QVERIFY2(m, qPrintable(id));
        compareHeatmap(page.heatmap(id), *m, id);
        if (QTest::currentTestFailed()) return;
    }
}

void TestStepPage::colourMapsFollowKind() {
    for (const attn::Step& step : walkthrough()) {
        StepPage page(step);
        for (const QString& id : page.matrixIds()) {
            const attn::StepMatrix* m = page.shownMatrix(id);
            const HeatmapWidget* map = page.heatmap(id);
            const QString what = QStringLiteral("step %1 %2").arg(step.number).arg(id);
            if (m->kind == attn::MatrixKind::Mask) {
                QVERIFY2(map->colorMapName() == QLatin1String("viridis"), qPrintable(what));
                QVERIFY2(map->rangeMode() == HeatmapWidget::RangeMode::Fixed, qPrintable(what));
                QCOMPARE(map->rangeLower(), 0.0);
                QCOMPARE(map->rangeUpper(), 1.0);
            } else if (m->kind == attn::MatrixKind::Weights) {
                // Weights span their own unmasked min..max, so six values near 1/6 still differ.
                QVERIFY2(map->colorMapName() == QLatin1String("viridis"), qPrintable(what));
                QVERIFY2(map->rangeMode() == HeatmapWidget::RangeMode::Matrix, qPrintable(what));
                const attn::Matrix shown = page.shownValues(id);
                float lo = std::numeric_limits<float>::infinity();
                float hi = -lo;
                for (Eigen::Index r = 0; r < shown.rows(); ++r)
                    for (Eigen::Index c = 0; c < shown.cols(); ++c) {
                        const bool blocked = m->blocked.size() > 0 && m->blocked(r, c);
                        if (blocked || !std::isfinite(shown(r, c))) continue;
                        lo = std::min(lo, shown(r, c));
                        hi = std::max(hi, shown(r, c));
                    }
                if (lo < hi) {
                    // Non-negative weights start at 0.
                    QCOMPARE(map->rangeLower(), lo >= 0.0f ? 0.0 : double{lo});
                    QCOMPARE(map->rangeUpper(), double{hi});
                }
                QVERIFY2(map->colorBarLabel().contains(QStringLiteral("this matrix")),
                         qPrintable(what));
            } else {
                QVERIFY2(map->colorMapName() == QLatin1String("diverging"), qPrintable(what));
                QVERIFY2(map->rangeLower() < 0.0 && map->rangeUpper() > 0.0, qPrintable(what));
                QVERIFY2(qFuzzyCompare(-map->rangeLower(), map->rangeUpper()), qPrintable(what));
            }
        }
    }
}

void TestStepPage::cellExplanation_data() {
    QTest::addColumn<int>("number");
    QTest::addColumn<QString>("matrix");
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("column");
    QTest::addColumn<QStringList>("expected");
    // ω̃₂₃ = (q₂ · k₃) / √2 with the tutorial's query_2 = [0.4306, 1.4551] and keys[2].
    QTest::newRow("8 scaled score (2,3)")
        << 8 << "attn-scores-scaled" << 1 << 2
        << QStringList{"ω̃₂₃", "0.4306", "1.4551", "0.4361", "1.1156", "1.4142"};
    // ω₂₃ = x² · x³ = 1.4754, the tutorial's attn_scores_2[2].
    QTest::newRow("2 score journey·starts")
        << 2 << "attn-scores-journey" << 0 << 2 << QStringList{"ω₂₃", "0.5500", "1.4754"};
    // attn_weights_2 = softmax(attn_scores_2): α₂₂ = 0.2379.
    QTest::newRow("3 softmax journey")
        << 3 << "softmax" << 0 << 1 << QStringList{"α₂₂", "exp(", "0.2379"};
    // context_vec_2 = [0.4419, 0.6515, 0.5683].
    QTest::newRow("4 context z2 dim 2")
        << 4 << "context-vec-journey" << 0 << 1 << QStringList{"z₂₂", "0.6515"};
    // all_context_vecs row 1: [0.4421, 0.5931, 0.5790].
    QTest::newRow("5 context row 1")
        << 5 << "context-vecs" << 0 << 0 << QStringList{"z₁₁", "0.4421"};
    // query_2 = x² · W_query[:, 1] = 0.4306.
    QTest::newRow("7 query_2 dim 1")
        << 7 << "queries" << 1 << 0 << QStringList{"q₂₁", "0.5500", "0.4306"};
    // A score above the diagonal is filled with −∞.
    QTest::newRow("11 masked score") << 11 << "masked-scores" << 0 << 1 << QStringList{"ω₁₂", "−∞"};
    // Given matrices still name the cell and its value.
    QTest::newRow("1 input x_2,3") << 1 << "inputs" << 1 << 2 << QStringList{"x₂₃", "0.6600"};
}

void TestStepPage::cellExplanation() {
    QFETCH(int, number);
    QFETCH(QString, matrix);
    QFETCH(int, row);
    QFETCH(int, column);
    QFETCH(QStringList, expected);
    StepPage page(stepNumber(number));
    const QString text = page.explainCell(matrix, row, column);
    QCOMPARE(page.explanationBarText(), text);
    for (const QString& part : expected)
        QVERIFY2(text.contains(part),
                 qPrintable(QStringLiteral("'%1' not in '%2'").arg(part, text)));
    // The hovered cell itself is outlined.
    QCOMPARE(page.heatmap(matrix)->highlightedCell(),
             std::make_optional(std::make_pair(row, column)));
    QVERIFY(page.explainCell(QStringLiteral("no-such-matrix"), 0, 0).isEmpty());
}

void TestStepPage::hoverHighlightsSources_data() {
    QTest::addColumn<int>("number");
    QTest::addColumn<QString>("matrix");
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("lhs");
    QTest::addColumn<int>("lhsRow");
    QTest::addColumn<QString>("rhs");
    QTest::addColumn<int>("rhsRow");     // -1: none expected
    QTest::addColumn<int>("rhsColumn");  // -1: none expected
    // ω₂₃ = q₂ · k₃: query row 2, key row 3.
    QTest::newRow("dot product") << 8 << "attn-scores-scaled" << 1 << 2 << "queries" << 1 << "keys"
                                 << 2 << -1;
    // q₂₁ = x₂ · W_query[:, 1]: input row 2, weight column 1.
    QTest::newRow("projection") << 7 << "queries" << 1 << 0 << "inputs" << 1 << "W_query" << -1
                                << 0;
    // z₃₂ = Σⱼ α₃ⱼ vⱼ₂: weights row 3, values column 2.
    QTest::newRow("weighted sum") << 8 << "context-vecs" << 2 << 1 << "attn-weights" << 2
                                  << "values" << -1 << 1;
}

void TestStepPage::hoverHighlightsSources() {
    QFETCH(int, number);
    QFETCH(QString, matrix);
    QFETCH(int, row);
    QFETCH(int, column);
    QFETCH(QString, lhs);
    QFETCH(int, lhsRow);
    QFETCH(QString, rhs);
    QFETCH(int, rhsRow);
    QFETCH(int, rhsColumn);
    StepPage page(stepNumber(number));
    page.explainCell(matrix, row, column);
    QCOMPARE(page.heatmap(lhs)->highlightedRow(), std::make_optional(lhsRow));
    if (rhsRow >= 0) QCOMPARE(page.heatmap(rhs)->highlightedRow(), std::make_optional(rhsRow));
    if (rhsColumn >= 0)
        QCOMPARE(page.heatmap(rhs)->highlightedColumn(), std::make_optional(rhsColumn));
    // Back to the step's own highlights: the query "journey" in the weights.
    page.resetHighlights();
    QCOMPARE(page.heatmap(lhs)->highlightedCell(), std::nullopt);
}

void TestStepPage::stepHighlightsOnOpen() {
    // Step 5 points at the row of "journey" in the weights; step 7 at q⁽²⁾.
    StepPage five(stepNumber(5));
    QCOMPARE(five.heatmap(QStringLiteral("attn-weights"))->highlightedRow(), std::make_optional(1));
    StepPage seven(stepNumber(7));
    QCOMPARE(seven.heatmap(QStringLiteral("queries"))->highlightedRow(), std::make_optional(1));
    QCOMPARE(seven.heatmap(QStringLiteral("keys"))->highlightedRow(), std::nullopt);
}

void TestStepPage::tablesShowNumbers() {
    StepPage page(stepNumber(11));
    page.resize(1200, 800);
    page.show();
    QTableWidget* scores = page.table(QStringLiteral("masked-scores"));
    QVERIFY(scores);
    QVERIFY(!scores->isVisible());
    QSignalSpy spy(&page, &StepPage::showTablesChanged);
    page.setShowTables(true);
    QCOMPARE(spy.count(), 1);
    QVERIFY(scores->isVisible());
    QVERIFY(page.findChild<QCheckBox*>()->isChecked());
    const attn::StepMatrix* m = page.shownMatrix(QStringLiteral("masked-scores"));
    QCOMPARE(scores->rowCount(), static_cast<int>(m->values.rows()));
    QCOMPARE(scores->columnCount(), static_cast<int>(m->values.cols()));
    QCOMPARE(scores->item(0, 1)->text(), QStringLiteral("−∞"));
    QCOMPARE(scores->item(1, 0)->text(),
             QString::number(static_cast<double>(m->values(1, 0)), 'f', 4));
    QCOMPARE(scores->horizontalHeaderItem(1)->text(), QStringLiteral("journey"));

    StepPage eight(stepNumber(8));
    eight.setShowTables(true);
    QCOMPARE(eight.table(QStringLiteral("queries"))->item(1, 0)->text(), QStringLiteral("0.4306"));
    QCOMPARE(eight.table(QStringLiteral("queries"))->item(1, 1)->text(), QStringLiteral("1.4551"));
    page.setShowTables(false);
    QVERIFY(!scores->isVisible());
}

void TestStepPage::kvCacheFrames() {
    const attn::Step& step = stepNumber(16);
    StepPage page(step);
    QCOMPARE(page.frameCount(), 6);
    QCOMPARE(page.frame(), 5);  // opens on the whole sequence
    for (int frame = 0; frame < page.frameCount(); ++frame) {
        page.setFrame(frame);
        QCOMPARE(page.frame(), frame);
        QCOMPARE(page.heatmap(QStringLiteral("cached-keys"))->rowCount(), frame + 1);
        QCOMPARE(page.heatmap(QStringLiteral("new-weights-head-2"))->columnCount(), frame + 1);
        for (const QString& id : page.matrixIds()) {
            const attn::StepMatrix* m = modelMatrix(step, id.toStdString(), frame);
            QVERIFY2(m, qPrintable(id));
            compareHeatmap(page.heatmap(id), *m, QStringLiteral("frame %1 %2").arg(frame).arg(id));
            if (QTest::currentTestFailed()) return;
        }
        // The counters of this frame, and the multiplications the cache saves.
        double with = 0.0;
        double without = 0.0;
        for (const attn::StepFact& f : step.facts) {
            if (f.frame != frame) continue;
            if (f.id == "mults_with_cache") with = f.value;
            if (f.id == "mults_without_cache") without = f.value;
        }
        QVERIFY(with > 0.0 && without >= with);
        const QString facts = page.factsText();
        // Whole numbers without group separators, whatever the locale (model/number_format.h).
        QVERIFY2(facts.contains(QString::number(static_cast<qlonglong>(with))), qPrintable(facts));
        QVERIFY2(facts.contains(QStringLiteral("Multiplications saved: ") +
                                QString::number(static_cast<qlonglong>(without - with))),
                 qPrintable(facts));
        // The row this token appended to the cache is outlined.
        if (frame > 0)
            QCOMPARE(page.heatmap(QStringLiteral("cached-keys"))->highlightedRow(),
                     std::make_optional(frame));
    }
    page.setFrame(99);
    QCOMPARE(page.frame(), 5);
    page.setFrame(-3);
    QCOMPARE(page.frame(), 0);
    // The new query row of the first frame is "Your".
    QCOMPARE(page.heatmap(QStringLiteral("new-query"))->rowLabels(), QStringList{"Your"});
}

// A teacher clicks "Next token" on a projector: the frame controls grow with the page.
void TestStepPage::controlsGrowWithScale() {
    StepPage page(stepNumber(16));
    QPushButton* nextToken = nullptr;
    for (QPushButton* b : page.findChildren<QPushButton*>())
        if (b->text().contains(QStringLiteral("Next token"))) nextToken = b;
    QVERIFY(nextToken);
    const double normalSize = nextToken->font().pointSizeF();
    const int normalHeight = nextToken->minimumHeight();
    page.setScale(2.0);
    QCOMPARE(nextToken->font().pointSizeF(), 2.0 * normalSize);
    QVERIFY2(nextToken->minimumHeight() >= 2 * normalHeight - 1,
             qPrintable(QString::number(nextToken->minimumHeight())));
    QVERIFY(nextToken->minimumHeight() >= 60);
}

// Presenting: the page shrinks below its zoom until all of it fits the page's height, in every
// frame, and goes back to the zoom when fitting is off.
void TestStepPage::fitToHeightShrinksToTheScreen() {
    StepPage page(stepNumber(16));
    page.resize(1280, 720);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    page.setScale(2.5);
    QCOMPARE(page.shownScale(), 2.5);
    auto* area = page.findChild<QScrollArea*>();
    QVERIFY(area);
    QTRY_VERIFY(area->verticalScrollBar()->maximum() > 0);  // 2.5× does not fit 720 px
    page.setFitToHeight(true);
    QVERIFY2(page.shownScale() < 2.5 && page.shownScale() >= 0.35,
             qPrintable(QString::number(page.shownScale())));
    QCOMPARE(page.scale(), 2.5);
    QCOMPARE(page.heatmaps().constFirst()->scale(), page.shownScale());
    QTRY_COMPARE(area->verticalScrollBar()->maximum(), 0);  // laid out, it fits
    const double fitted = page.shownScale();
    for (int frame = 0; frame < page.frameCount(); ++frame) {
        page.setFrame(frame);
        QCOMPARE(page.shownScale(), fitted);  // the size stays put as the tokens come in
        QTRY_COMPARE(area->verticalScrollBar()->maximum(), 0);
    }
    // A larger screen fits a larger page.
    page.resize(1920, 1080);
    QVERIFY2(page.shownScale() > fitted, qPrintable(QString::number(page.shownScale())));
    page.setFitToHeight(false);
    QCOMPARE(page.shownScale(), 2.5);
    QCOMPARE(page.heatmaps().constFirst()->scale(), 2.5);
}

void TestStepPage::tooltipsCanBeTurnedOff() {
    StepPage page(stepNumber(8));
    HeatmapWidget* map = page.heatmaps().constFirst();
    QVERIFY(page.cellTooltips());
    QVERIFY(!map->tooltipText(0, 0).isEmpty());
    page.setCellTooltips(false);
    QVERIFY(map->tooltipText(0, 0).isEmpty());
    // The bar under the page still explains the cell.
    QVERIFY(page.explainCell(page.matrixIds().constFirst(), 0, 0).contains(QLatin1Char('=')));
}

void TestStepPage::dropoutInference() {
    const attn::Step& step = stepNumber(12);
    StepPage page(step);
    QVERIFY(page.hasInferenceSwitch());
    QVERIFY(!StepPage(stepNumber(11)).hasInferenceSwitch());
    const attn::StepMatrix* dropped = step.find("dropped-weights");
    const attn::StepMatrix* input = step.find("causal-weights");
    QVERIFY(dropped && input);
    // Training: the engine's dropped weights, some cells 0 and the kept ones ×2.
    compareHeatmap(page.heatmap(QStringLiteral("dropped-weights")), *dropped, "training");
    QVERIFY(
        page.explainCell(QStringLiteral("dropped-weights"), 2, 0).contains(QStringLiteral("0.5")));
    page.setInference(true);
    QVERIFY(page.inference());
    // Inference: dropout is the identity; the keep mask is all ones.
    attn::StepMatrix identity = *dropped;
    identity.values = input->values;
    compareHeatmap(page.heatmap(QStringLiteral("dropped-weights")), identity, "inference");
    const HeatmapWidget* keep = page.heatmap(QStringLiteral("dropout-mask"));
    for (int r = 0; r < keep->rowCount(); ++r)
        for (int c = 0; c < keep->columnCount(); ++c) QCOMPARE(keep->cellValue(r, c), 1.0);
    QVERIFY(page.explainCell(QStringLiteral("dropped-weights"), 2, 0)
                .contains(QStringLiteral("inference")));
    // Inference states no cell counts of a draw and shows model.eval()'s code.
    QVERIFY2(!page.factsText().contains(QStringLiteral("Weights kept")),
             qPrintable(page.factsText()));
    QVERIFY(page.snippet().contains(QStringLiteral(".eval()")));
    page.setInference(false);
    compareHeatmap(page.heatmap(QStringLiteral("dropped-weights")), *dropped, "training again");
    QVERIFY(page.factsText().contains(QStringLiteral("Weights kept: 12")));
    QVERIFY(!page.snippet().contains(QStringLiteral(".eval()")));
}

void TestStepPage::vectorViewOnFirstStep() {
    StepPage first(stepNumber(1));
    QVERIFY(first.vectorView());
    QCOMPARE(first.vectorView()->pointCount(), 6);
    QCOMPARE(first.vectorView()->xDimension(), 0);
    QCOMPARE(first.vectorView()->yDimension(), 1);
    first.vectorView()->setDimensions(1, 2);
    QCOMPARE(first.vectorView()->yDimension(), 2);
    StepPage second(stepNumber(2));
    QCOMPARE(second.vectorView(), nullptr);
    // A page can be titled in any language: the title is the translated step text.
    QVERIFY(!containsCjk(first.title()));
}

void TestStepPage::snippetIsTheTutorials() {
    StepPage page(stepNumber(8));
    QVERIFY(page.snippet().contains(QStringLiteral("attn_scores_2 = query_2 @ keys.T")));
    QCOMPARE(page.snippet(), QString::fromStdString(stepNumber(8).snippet));
}

QTEST_MAIN(TestStepPage)
#include "test_step_page.moc"
