// Explore mode's parameter panel: which settings each module uses, the switches that reach the
// engine (causal, mask convention, fill, scaling), seed 003's dim_k and dim_v, and GPT-2's
// head_mask and prune_heads as one switch per head.
#include <QCheckBox>
#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>

#include "app/gui/explore_session.h"
#include "app/gui/explore_window.h"
#include "views/explore_heads_grid.h"
#include "views/explore_parameter_panel.h"
#include "views/heatmap_widget.h"

Q_DECLARE_METATYPE(attn::ModuleKind)

class TestExplorePanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void panelDisablesUnusedSettings_data() {
        QTest::addColumn<attn::ModuleKind>("module");
        QTest::addColumn<bool>("dOut");
        QTest::addColumn<bool>("heads");
        QTest::addColumn<bool>("dropout");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<bool>("causal");
        QTest::newRow("v1") << attn::ModuleKind::SelfAttentionV1 << true << false << false << false
                            << false;
        QTest::newRow("causal") << attn::ModuleKind::CausalAttention << true << false << true
                                << true << true;
        QTest::newRow("mha") << attn::ModuleKind::MultiHeadAttention << true << true << true << true
                             << true;
        QTest::newRow("bert") << attn::ModuleKind::BertMultiHead << false << true << true << false
                              << false;
    }
    void panelDisablesUnusedSettings() {
        QFETCH(attn::ModuleKind, module);
        QFETCH(bool, dOut);
        QFETCH(bool, heads);
        QFETCH(bool, dropout);
        QFETCH(bool, bias);
        QFETCH(bool, causal);
        views::ExploreParameterPanel panel;
        attn::ModuleConfig c;
        c.module = module;
        panel.setConfig(c, true, 3);
        QCOMPARE(panel.dOutBox()->isEnabled(), dOut);
        QCOMPARE(panel.headsBox()->isEnabled(), heads);
        QCOMPARE(panel.dropoutBox()->isEnabled(), dropout);
        QCOMPARE(panel.biasBox()->isEnabled(), bias);
        QCOMPARE(panel.causalBox()->isChecked(), causal);
        // Unused settings go out as 0 / false, so the engine never calls them "does not apply".
        const attn::ModuleConfig out = panel.config();
        if (!heads) QCOMPARE(out.num_heads, Eigen::Index{0});
        if (!dOut) QCOMPARE(out.d_out, Eigen::Index{0});
        QVERIFY(attn::resolve_config(out, 4, 3, 3).module == c.module);
        QVERIFY(!out.causal.has_value());  // the module's own choice stays unset
        QVERIFY(!out.fill_value.has_value());
    }

    // Seed 003's modules take dim_k and dim_v instead of d_out; other modules keep them disabled
    // and send 0, so the engine never says "does not apply".
    void panelSetsKeyAndValueWidths() {
        ExploreWindow window;
        views::ExploreParameterPanel* panel = window.parameterPanel();
        attn::ModuleConfig c;
        c.module = attn::ModuleKind::CausalAttention;
        window.session()->setConfig(c, false);
        QVERIFY(!panel->dimKBox()->isEnabled());
        QVERIFY(!panel->dimVBox()->isEnabled());
        QCOMPARE(panel->config().dim_k, Eigen::Index{0});

        c.module = attn::ModuleKind::SelfAttentionKV;
        window.session()->setConfig(c, false);
        QVERIFY(window.session()->error().isEmpty());
        QVERIFY(panel->dimKBox()->isEnabled());
        QVERIFY(panel->dimVBox()->isEnabled());
        QVERIFY(!panel->dOutBox()->isEnabled());
        QCOMPARE(panel->dimKBox()->value(), 3);  // the default, d_in
        panel->dimKBox()->setValue(4);
        panel->dimVBox()->setValue(2);
        QCOMPARE(window.session()->state().config.dim_k, Eigen::Index{4});
        QCOMPARE(window.session()->state().config.dim_v, Eigen::Index{2});
        QVERIFY(window.session()->error().isEmpty());
        // queries and keys 4 wide, values and the output 2 wide, six tokens
        const attn::RunResult& run = *window.session()->result();
        QCOMPARE(run.output.queries[0].cols(), Eigen::Index{4});
        QCOMPARE(run.output.keys[0].cols(), Eigen::Index{4});
        QCOMPARE(run.output.context_vecs[0].rows(), Eigen::Index{6});
        QCOMPARE(run.output.context_vecs[0].cols(), Eigen::Index{2});
        QCOMPARE(panel->dOutBox()->value(), 2);  // the output width it shows is dim_v

        // The multi-head form explains a head count that does not divide the widths.
        c.module = attn::ModuleKind::MultiHeadSelfAttentionKV;
        c.dim_k = 4;
        c.dim_v = 3;
        c.num_heads = 2;
        window.session()->setConfig(c, false);
        QVERIFY(window.session()->error().contains(QStringLiteral("dim_v")));
    }

    // GPT-2's head_mask as one switch per head: switching a head off zeroes its weights and
    // changes the output; switching it on again restores both.
    void headSwitchesMaskGpt2Heads() {
        ExploreWindow window;
        views::ExploreParameterPanel* panel = window.parameterPanel();
        attn::ModuleConfig c;
        c.module = attn::ModuleKind::Gpt2Attention;
        c.num_heads = 3;  // d_in 3: three heads of width 1
        window.session()->setConfig(c, false);
        QVERIFY(window.session()->error().isEmpty());
        QCOMPARE(panel->headSwitches().size(), 3);
        QVERIFY(panel->headSwitches()[1]->isEnabled());
        const attn::Matrix before = window.session()->result()->output.context_vecs[0];
        // The heads grid shows what multiplied the values: the weights after dropout and head_mask.
        const attn::Matrix headTwo = window.session()->result()->output.heads[0][1].dropped;
        QVERIFY(headTwo.maxCoeff() > 0.0f);

        panel->headSwitches()[1]->setChecked(false);
        QCOMPARE(window.session()->state().config.head_mask,
                 (std::vector<float>{1.0f, 0.0f, 1.0f}));
        const attn::RunResult& off = *window.session()->result();
        QCOMPARE(off.output.heads[0][1].dropped.cwiseAbs().maxCoeff(), 0.0f);
        QCOMPARE(off.output.heads[0][1].weights, headTwo);  // softmax itself is unchanged
        QCOMPARE(window.headsGrid()->heatmap(1)->inputValue(3, 0), 0.0);
        QVERIFY((off.output.context_vecs[0] - before).cwiseAbs().maxCoeff() > 1e-6f);

        panel->headSwitches()[1]->setChecked(true);
        QVERIFY(window.session()->state().config.head_mask.empty());  // all on: no head_mask
        QCOMPARE(window.session()->result()->output.context_vecs[0], before);

        // Pruning head 1 removes it with its parameters; the two that remain are heads 1 and 2.
        QCOMPARE(panel->pruneSwitches().size(), 3);
        panel->pruneSwitches()[0]->setChecked(true);
        QCOMPARE(window.session()->state().config.prune_heads, (std::vector<Eigen::Index>{0}));
        QVERIFY2(window.session()->error().isEmpty(), qPrintable(window.session()->error()));
        const attn::RunResult& pruned = *window.session()->result();
        QCOMPARE(pruned.output.heads[0].size(), std::size_t{2});
        QCOMPARE(panel->headSwitches().size(), 2);
        QCOMPARE(pruned.weights[0].name, std::string("c_attn.weight"));
        QCOMPARE(pruned.weights[0].value.cols(), Eigen::Index{6});  // 3 · 2 heads · head_dim 1
        // the remaining heads are the old heads 2 and 3, unchanged
        QCOMPARE(pruned.output.heads[0][0].weights, headTwo);
        panel->pruneSwitches()[0]->setChecked(false);
        QCOMPARE(window.session()->result()->output.heads[0].size(), std::size_t{3});
        QCOMPARE(window.session()->result()->output.context_vecs[0], before);

        // Other modules have no head_mask: no switches.
        c.module = attn::ModuleKind::CausalAttention;
        c.num_heads = 0;
        window.session()->setConfig(c, false);
        QCOMPARE(panel->headSwitches().size(), 0);
        QCOMPARE(panel->pruneSwitches().size(), 0);
    }

    // The fill box spells the seeds' fills as every other surface does (-1e9, -1e4, not -1e+09
    // or -10000), whatever the locale, and each item carries the fill itself.
    void fillBoxSpellsTheSeedsFills_data() {
        QTest::addColumn<attn::ModuleKind>("module");
        QTest::addColumn<QString>("text");
        QTest::addColumn<float>("fill");
        QTest::newRow("causal-attention")
            << attn::ModuleKind::CausalAttention << QStringLiteral("-inf") << attn::kNegInf;
        QTest::newRow("bert") << attn::ModuleKind::BertMultiHead << QStringLiteral("-1e9") << -1e9f;
        QTest::newRow("gpt2") << attn::ModuleKind::Gpt2Attention << QStringLiteral("-1e4") << -1e4f;
    }

    void fillBoxSpellsTheSeedsFills() {
        QFETCH(attn::ModuleKind, module);
        QFETCH(QString, text);
        QFETCH(float, fill);
        const QLocale before;
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        views::ExploreParameterPanel panel;
        attn::ModuleConfig c;
        c.module = module;
        panel.setConfig(c, false, 3);
        QLocale::setDefault(before);
        QCOMPARE(panel.fillBox()->currentText(), text);
        QCOMPARE(panel.fillBox()->currentData().toFloat(), fill);
        QCOMPARE(panel.fillBox()->count(), 3);
        QCOMPARE(panel.fillBox()->itemText(0), QStringLiteral("-inf"));
        QCOMPARE(panel.fillBox()->itemText(1), QStringLiteral("-1e9"));
        QCOMPARE(panel.fillBox()->itemText(2), QStringLiteral("-1e4"));
        // A fill of the seeds given as -1e+09 or -10000 (a file, the command line) is the same
        // value: it selects the seed's item rather than adding one.
        c.module = attn::ModuleKind::BertMultiHead;
        c.causal = true;
        c.fill_value = QStringLiteral("-1e+09").toFloat();
        panel.setConfig(c, false, 3);
        QCOMPARE(panel.fillBox()->currentText(), QStringLiteral("-1e9"));
        c.fill_value = QStringLiteral("-10000").toFloat();
        panel.setConfig(c, false, 3);
        QCOMPARE(panel.fillBox()->currentText(), QStringLiteral("-1e4"));
        QCOMPARE(panel.fillBox()->count(), 3);
        QCOMPARE(panel.config().fill_value, std::optional<float>(-1e4f));
    }

    // The causal switch, mask convention, fill value and scaling reach the engine; the
    // convention and fill are enabled only while a mask applies.
    void panelSwitches() {
        views::ExploreParameterPanel panel;
        attn::ModuleConfig c;
        c.module = attn::ModuleKind::BertMultiHead;
        panel.setConfig(c, false, 3);
        QVERIFY(panel.causalBox()->isEnabled());
        QVERIFY(!panel.causalBox()->isChecked());
        QVERIFY(!panel.maskConventionBox()->isEnabled());
        QVERIFY(!panel.fillBox()->isEnabled());
        QCOMPARE(panel.fillBox()->currentText(), QStringLiteral("-1e9"));
        QSignalSpy edited(&panel, &views::ExploreParameterPanel::configEdited);
        panel.causalBox()->setChecked(true);
        QCOMPARE(edited.count(), 1);
        QVERIFY(panel.maskConventionBox()->isEnabled());
        QVERIFY(panel.fillBox()->isEnabled());
        panel.maskConventionBox()->setCurrentIndex(1);
        panel.fillBox()->setCurrentIndex(panel.fillBox()->findText(QStringLiteral("-inf")));
        panel.scaleBox()->setChecked(false);
        attn::ModuleConfig out = panel.config();
        QCOMPARE(out.causal, std::optional<bool>(true));
        QVERIFY(out.mask_convention == attn::MaskConvention::FillWhereOne);
        QCOMPARE(out.fill_value, std::optional<float>(attn::kNegInf));
        QVERIFY(!out.scale);
        QCOMPARE(edited.count(), 4);
        // setConfig shows what it is given and emits nothing.
        ExploreSession session;
        session.setConfig(out, false);
        QVERIFY(session.error().isEmpty());
        QVERIFY(session.result()->output.heads[0][0].blocked.row(5).all());
        views::ExploreParameterPanel shown;
        shown.setConfig(session.state().config, false, 3);
        QVERIFY(shown.causalBox()->isChecked());
        QCOMPARE(shown.maskConventionBox()->currentIndex(), 1);
        QCOMPARE(shown.fillBox()->currentText(), QStringLiteral("-inf"));
        QVERIFY(!shown.scaleBox()->isChecked());
        QVERIFY(shown.config().mask_convention == attn::MaskConvention::FillWhereOne);
        // A newly chosen module starts from its own switches.
        shown.moduleBox()->setCurrentText(QStringLiteral("causal-attention"));
        QVERIFY(shown.causalBox()->isChecked());
        QVERIFY(!shown.maskConventionBox()->isEnabled());
        QCOMPARE(shown.fillBox()->currentText(), QStringLiteral("-inf"));
        shown.causalBox()->setChecked(false);
        QCOMPARE(shown.config().causal, std::optional<bool>(false));
        QVERIFY(!shown.fillBox()->isEnabled());
        // gpt2 is always causal: the switch is shown on and disabled.
        shown.moduleBox()->setCurrentText(QStringLiteral("gpt2-attention"));
        QVERIFY(shown.causalBox()->isChecked());
        QVERIFY(!shown.causalBox()->isEnabled());
        QCOMPARE(shown.fillBox()->currentText(), QStringLiteral("-1e4"));
        QVERIFY(!shown.config().causal.has_value());
    }
};

QTEST_MAIN(TestExplorePanel)
#include "test_explore_panel.moc"
