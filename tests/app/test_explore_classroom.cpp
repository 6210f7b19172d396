// Explore mode in class: a head count that no longer fits a new width is fixed and said, the KV
// tab says why it has no dropout, dropout's zeroed cells are marked, every heatmap cell explains
// its arithmetic with the engine's numbers, counts read "1 token" / "2 tokens", and the export
// dialog's labels carry working mnemonics.
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QUndoStack>

#include "app/gui/explore_session.h"
#include "app/gui/explore_window.h"
#include "app/gui/export_dialog.h"
#include "model/explain_attention.h"
#include "model/number_format.h"
#include "views/explore_heads_grid.h"
#include "views/explore_kv_stepper.h"
#include "views/explore_parameter_panel.h"
#include "views/heatmap_widget.h"
#include "views/language.h"

namespace {

attn::ModuleConfig moduleConfig(attn::ModuleKind kind) {
    attn::ModuleConfig c;
    c.module = kind;
    return c;
}

}  // namespace

class TestExploreClassroom : public QObject {
    Q_OBJECT

    views::Translation translation_;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(translation_.install(QStringLiteral("en")));
    }

    void crossAttentionHeadsFollowANewWidth() {
        ExploreWindow window;
        ExploreSession* session = window.session();
        attn::ModuleConfig c = moduleConfig(attn::ModuleKind::CrossAttention);
        c.num_heads = 3;  // divides d_model = d_in = 3
        session->setConfig(c, false);
        QVERIFY(session->waitForIdle());
        QVERIFY2(session->error().isEmpty(), qPrintable(session->error()));
        QCOMPARE(session->result()->config.num_heads, Eigen::Index{3});
        // A source pasted with four numbers per token makes d_in = d_model = 4.
        QString error;
        QVERIFY(session->pasteEmbeddings(ExploreSide::Source,
                                         QStringLiteral("1 0 0 1\n0 1 1 0\n1 1 0 0"), &error));
        QVERIFY(session->waitForIdle());
        QCOMPARE(session->state().inputs.embeddings.cols(), Eigen::Index{4});
        // 3 does not divide 4: the largest count that does is 2, and the run is current.
        QCOMPARE(session->state().config.num_heads, Eigen::Index{2});
        QVERIFY2(session->error().isEmpty(), qPrintable(session->error()));
        QCOMPARE(session->result()->config.num_heads, Eigen::Index{2});
        QCOMPARE(session->result()->output.heads[0].size(), std::size_t{2});
        QVERIFY(session->adjustment().contains(QStringLiteral("num_heads set to 2")));
        QCOMPARE(window.parameterPanel()->headsNotice(), session->adjustment());
        QCOMPARE(window.lastMessage(), session->adjustment());
        QCOMPARE(window.parameterPanel()->headsBox()->value(), 2);
        // Undo brings back the three heads and the old width together.
        session->undoStack()->undo();
        QVERIFY(session->waitForIdle());
        QCOMPARE(session->state().config.num_heads, Eigen::Index{3});
        QCOMPARE(session->state().inputs.embeddings.cols(), Eigen::Index{3});
    }

    void kvTabShowsDropoutOffAndWhy() {
        ExploreWindow window;
        ExploreSession* session = window.session();
        attn::ModuleConfig c = moduleConfig(attn::ModuleKind::MultiHeadAttention);
        c.dropout = 0.3f;
        session->setConfig(c, true);
        QVERIFY(session->waitForIdle());
        views::ExploreParameterPanel* panel = window.parameterPanel();
        QVERIFY(panel->dropoutBox()->isEnabled());
        window.viewTabs()->setCurrentWidget(window.kvStepper());
        QVERIFY(!panel->dropoutBox()->isEnabled());
        QVERIFY(!panel->trainingBox()->isEnabled());
        QVERIFY(panel->dropoutBox()->toolTip().contains(QStringLiteral("inference")));
        QVERIFY(panel->dropoutUnavailableReason().contains(QStringLiteral("p = 0.3")));
        QVERIFY2(window.kvStepper()->explanationText().contains(QStringLiteral("Dropout is off")),
                 qPrintable(window.kvStepper()->explanationText()));
        window.viewTabs()->setCurrentWidget(window.headsGrid());
        QVERIFY(panel->dropoutBox()->isEnabled());
        QVERIFY(panel->dropoutUnavailableReason().isEmpty());
    }

    void droppedCellsAreMarkedAndExplained() {
        ExploreWindow window;
        ExploreSession* session = window.session();
        attn::ModuleConfig c = moduleConfig(attn::ModuleKind::MultiHeadAttention);
        c.dropout = 0.5f;
        session->setConfig(c, true);
        QVERIFY(session->waitForIdle());
        window.viewTabs()->setCurrentWidget(window.headsGrid());
        const attn::AttentionResult& head = session->result()->output.heads[0][1];
        views::HeatmapWidget* map = window.headsGrid()->heatmap(1);
        int dropped = 0;
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j <= i; ++j) {
                QCOMPARE(map->cellDropped(i, j), !head.kept(i, j));
                QCOMPARE(map->inputValue(i, j), double{head.dropped(i, j)});
                if (!head.kept(i, j)) {
                    ++dropped;
                    QVERIFY(map->tooltipText(i, j).contains(QStringLiteral("dropout zeroed it")));
                }
            }
        QVERIFY(dropped > 0);
    }

    void everyHeatmapCellExplainsItsArithmetic() {
        ExploreWindow window;
        ExploreSession* session = window.session();
        QVERIFY(session->waitForIdle());
        const std::shared_ptr<const attn::RunResult> run = session->result();
        window.viewTabs()->setCurrentWidget(window.headsGrid());
        const QString weight = window.headsGrid()->heatmap(0)->tooltipText(3, 1);
        QVERIFY2(weight.startsWith(QStringLiteral("ω₄₂ = q₄ · k₂")), qPrintable(weight));
        QVERIFY(weight.endsWith(
            QString::fromStdString(attn::format_fixed(run->output.heads[0][0].dropped(3, 1)))));
        window.viewTabs()->setCurrentWidget(window.outputHeatmap());
        const QString output = window.outputHeatmap()->tooltipText(2, 1);
        QVERIFY2(output.startsWith(QStringLiteral("y₃₂ = concat₃ · W_o[:, 2] + b₂")),
                 qPrintable(output));
        QVERIFY(output.endsWith(
            QString::fromStdString(attn::format_fixed(run->output.context_vecs[0](2, 1)))));
        window.viewTabs()->setCurrentWidget(window.kvStepper());
        window.kvStepper()->setStep(2);
        QVERIFY(window.kvStepper()->weightsHeatmap()->tooltipText(0, 0).contains(
            QStringLiteral("exp(")));
        // Cross-attention: target × source weights, explained the same way.
        session->setConfig(moduleConfig(attn::ModuleKind::CrossAttention), false);
        QVERIFY(session->waitForIdle());
        window.viewTabs()->setCurrentWidget(window.crossTab());
        const std::shared_ptr<const attn::RunResult> cross = session->result();
        const QString crossWeight = window.crossHeatmap()->tooltipText(1, 2);
        QVERIFY2(crossWeight.startsWith(QStringLiteral("ω₂₃ = q₂ · k₃")), qPrintable(crossWeight));
        QVERIFY(crossWeight.endsWith(
            QString::fromStdString(attn::format_fixed(cross->output.heads[0][0].dropped(1, 2)))));
    }

    void crossNoteCountsTokensInTheRightNumber() {
        ExploreWindow window;
        ExploreSession* session = window.session();
        session->setConfig(moduleConfig(attn::ModuleKind::CrossAttention), false);
        while (session->state().inputs.embeddings.rows() > 1)
            session->removeToken(ExploreSide::Inputs, 0);
        QVERIFY(session->waitForIdle());
        window.viewTabs()->setCurrentWidget(window.crossTab());
        const QString note = window.crossTab()->findChild<QLabel*>()->text();
        QVERIFY2(note.contains(QStringLiteral("Queries from 1 target token,")), qPrintable(note));
        QVERIFY2(note.contains(QRegularExpression(QStringLiteral("from [0-9]+ source tokens:"))),
                 qPrintable(note));
    }

    void exportDialogLabelsHaveBuddies() {
        ExportDialog dialog(ExportDialog::Target::Heatmap, QStringLiteral("/tmp/x.png"),
                            QSize(400, 300));
        int labelled = 0;
        for (QLabel* label : dialog.findChildren<QLabel*>()) {
            if (!label->text().contains(QLatin1Char('&'))) continue;
            ++labelled;
            // A label with a mnemonic and no buddy shows the "&" itself.
            QVERIFY2(label->buddy() != nullptr, qPrintable(label->text()));
        }
        QVERIFY(labelled >= 6);  // Format, Size, Scale, Colour map, Background, File
    }
};

QTEST_MAIN(TestExploreClassroom)
#include "test_explore_classroom.moc"
