// Explore mode: the session recomputes the right matrices after each edit, undo
// restores exactly, invalid settings keep the last valid result, files round-trip and a malformed
// file changes nothing; the token table passes QAbstractItemModelTester.
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <algorithm>
#include <optional>

#include "app/gui/explore_session.h"
#include "app/gui/explore_window.h"
#include "model/rng.h"
#include "screenshot_checks.h"
#include "views/explore_heads_grid.h"
#include "views/explore_kv_stepper.h"
#include "views/explore_lines_view.h"
#include "views/explore_parameter_panel.h"
#include "views/explore_token_model.h"
#include "views/explore_weight_split.h"
#include "views/heatmap_widget.h"

Q_DECLARE_METATYPE(attn::ModuleKind)

namespace {

// The engine run directly on a state, to compare the session's result with.
attn::RunResult direct(const ExploreState& s) {
    return attn::run_module(s.runConfig(), s.inputs, s.usesSource() ? &s.source : nullptr);
}

bool sameOutput(const attn::RunResult& a, const attn::RunResult& b) {
    if (a.output.heads.size() != b.output.heads.size() ||
        a.output.heads[0].size() != b.output.heads[0].size())
        return false;
    for (std::size_t h = 0; h < a.output.heads[0].size(); ++h)
        if (a.output.heads[0][h].weights != b.output.heads[0][h].weights) return false;
    return a.output.context_vecs[0] == b.output.context_vecs[0];
}

// Shows `window` at `size` running multi-head-attention with d_out 4 and 2 heads (training
// on); returns that config.
attn::ModuleConfig showTwoHeads(ExploreWindow& window, QSize size) {
    window.resize(size);
    window.show();
    attn::ModuleConfig c;
    c.module = attn::ModuleKind::MultiHeadAttention;
    c.d_out = 4;
    c.num_heads = 2;
    window.session()->setConfig(c, true);
    return c;
}

}  // namespace

class TestExploreSession : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void startsOnTheTutorial() {
        ExploreSession session;
        QVERIFY(session.result());
        QVERIFY(session.error().isEmpty());
        QCOMPARE(session.state().inputs.embeddings.rows(), Eigen::Index{6});
        QVERIFY(sameOutput(*session.result(), direct(session.state())));
        // multi-head-attention, d_out = 2, two heads of width 1: two 6 × 6 weight matrices
        QCOMPARE(session.result()->output.heads[0].size(), std::size_t{2});
    }

    void editsRecompute_data() {
        QTest::addColumn<QString>("edit");
        QTest::newRow("embedding") << "embedding";
        QTest::newRow("insert token") << "insert";
        QTest::newRow("remove token") << "remove";
        QTest::newRow("move token") << "move";
        QTest::newRow("random fill") << "random";
        QTest::newRow("paste") << "paste";
        QTest::newRow("settings") << "settings";
        QTest::newRow("weight") << "weight";
        QTest::newRow("d_in") << "d_in";
        QTest::newRow("cross-attention source") << "source";
    }
    void editsRecompute() {
        QFETCH(QString, edit);
        ExploreSession session;
        if (edit == "source") {
            attn::ModuleConfig c;
            c.module = attn::ModuleKind::CrossAttention;
            session.setConfig(c, true);
        }
        const ExploreState before = session.state();
        const std::shared_ptr<const attn::RunResult> first = session.result();
        if (edit == "embedding") {
            session.setEmbedding(ExploreSide::Inputs, 1, 2, 5.0f);
            QCOMPARE(session.state().inputs.embeddings(1, 2), 5.0f);
        } else if (edit == "insert") {
            session.insertToken(ExploreSide::Inputs, 2, QStringLiteral("new"));
            QCOMPARE(session.state().inputs.embeddings.rows(), Eigen::Index{7});
            QCOMPARE(session.state().inputs.tokens[2], std::string("new"));
        } else if (edit == "remove") {
            session.removeToken(ExploreSide::Inputs, 0);
            QCOMPARE(session.state().inputs.tokens[0], std::string("journey"));
        } else if (edit == "move") {
            session.moveToken(ExploreSide::Inputs, 0, 3);
            QCOMPARE(session.state().inputs.tokens[3], std::string("Your"));
            QCOMPARE(session.state().inputs.embeddings.row(3), before.inputs.embeddings.row(0));
        } else if (edit == "random") {
            session.randomFill(ExploreSide::Inputs, 7);
            attn::TorchGenerator gen(7);
            QCOMPARE(session.state().inputs.embeddings, gen.rand(6, 3));
        } else if (edit == "paste") {
            QString error;
            QVERIFY(session.pasteEmbeddings(
                ExploreSide::Inputs, QStringLiteral("a\t1\t2\t3\t4\nb\t5\t6\t7\t8\n"), &error));
            QCOMPARE(session.state().inputs.tokens, (std::vector<std::string>{"a", "b"}));
            QCOMPARE(session.state().inputs.embeddings.cols(), Eigen::Index{4});
        } else if (edit == "settings") {
            attn::ModuleConfig c = session.state().config;
            c.d_out = 4;
            c.num_heads = 4;
            session.setConfig(c, true);
            QCOMPARE(session.result()->output.heads[0].size(), std::size_t{4});
        } else if (edit == "weight") {
            QVERIFY(session.setWeight("W_query.weight", 0, 1, 2.5f));
            QCOMPARE(session.state().config.weights.size(), std::size_t{1});
            bool found = false;
            for (const attn::NamedMatrix& w : session.result()->weights)
                if (w.name == "W_query.weight") {
                    QCOMPARE(w.value(0, 1), 2.5f);
                    found = true;
                }
            QVERIFY(found);
        } else if (edit == "d_in") {
            session.setEmbeddingWidth(5);
            QCOMPARE(session.state().inputs.embeddings.cols(), Eigen::Index{5});
            QCOMPARE(session.state().inputs.embeddings.col(4).cwiseAbs().sum(), 0.0f);
        } else if (edit == "source") {
            session.setEmbedding(ExploreSide::Source, 0, 0, -1.0f);
            QCOMPARE(session.result()->output.heads[0][0].weights.cols(),
                     session.state().source.embeddings.rows());
        }
        QVERIFY2(session.error().isEmpty(), qPrintable(session.error()));
        QVERIFY(session.result() != first);
        QVERIFY(sameOutput(*session.result(), direct(session.state())));
        QVERIFY(!(session.state() == before));
        // Undo restores exactly, and so does the result; redo comes back.
        const ExploreState after = session.state();
        session.undoStack()->undo();
        QVERIFY(session.state() == before);
        QVERIFY(sameOutput(*session.result(), *first));
        session.undoStack()->redo();
        QVERIFY(session.state() == after);
        QVERIFY(sameOutput(*session.result(), direct(after)));
    }

    void undoAllEdits() {
        ExploreSession session;
        const ExploreState start = session.state();
        session.setEmbedding(ExploreSide::Inputs, 0, 0, 1.0f);
        session.setToken(ExploreSide::Inputs, 1, QStringLiteral("road"));
        session.insertToken(ExploreSide::Inputs, 6);
        QVERIFY(session.setWeight("out_proj.weight", 1, 1, -3.0f));
        attn::ModuleConfig c = session.state().config;
        c.dropout = 0.5f;
        session.setConfig(c, true);
        QCOMPARE(session.undoStack()->count(), 5);
        while (session.undoStack()->canUndo()) session.undoStack()->undo();
        QVERIFY(session.state() == start);
        QVERIFY(sameOutput(*session.result(), direct(start)));
    }

    void noCommandWithoutChange() {
        ExploreSession session;
        const float v = session.state().inputs.embeddings(0, 0);
        session.setEmbedding(ExploreSide::Inputs, 0, 0, v);
        session.removeToken(ExploreSide::Inputs, 99);
        session.moveToken(ExploreSide::Inputs, 2, 2);
        QCOMPARE(session.undoStack()->count(), 0);
    }

    void invalidSettingsKeepLastResult_data() {
        QTest::addColumn<attn::ModuleKind>("module");
        QTest::addColumn<int>("dOut");
        QTest::addColumn<int>("heads");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("setting");
        QTest::newRow("d_out 6, 4 heads") << attn::ModuleKind::MultiHeadAttention << 6 << 4
                                          << "d_out = 6 is not divisible by num_heads = 4"
                                          << "num_heads";
        QTest::newRow("bert d_model 3, 2 heads") << attn::ModuleKind::BertMultiHead << 0 << 2
                                                 << "d_model = 3 is not divisible by num_heads = 2"
                                                 << "num_heads";
    }
    void invalidSettingsKeepLastResult() {
        QFETCH(attn::ModuleKind, module);
        QFETCH(int, dOut);
        QFETCH(int, heads);
        QFETCH(QString, message);
        QFETCH(QString, setting);
        ExploreWindow window;
        ExploreSession* session = window.session();
        const std::shared_ptr<const attn::RunResult> last = session->result();
        const double shown = window.headsGrid()->heatmap(0)->inputValue(1, 0);
        QSignalSpy errors(session, &ExploreSession::errorChanged);
        attn::ModuleConfig c;
        c.module = module;
        c.d_out = dOut;
        c.num_heads = heads;
        session->setConfig(c, true);
        QCOMPARE(errors.count(), 1);
        QVERIFY2(session->error().contains(message), qPrintable(session->error()));
        QCOMPARE(session->result(), last);  // the last valid result stays on screen
        QCOMPARE(window.headsGrid()->heatmap(0)->inputValue(1, 0), shown);
        QCOMPARE(window.parameterPanel()->error(), session->error());
        QCOMPARE(window.parameterPanel()->errorSetting(), setting);
        // Fixing it clears the message.
        c.num_heads = 1;
        session->setConfig(c, true);
        QVERIFY(session->error().isEmpty());
        QVERIFY(window.parameterPanel()->error().isEmpty());
        QVERIFY(session->result() != last);
    }

    void fileRoundTrip() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ExploreSession session;
        session.setToken(ExploreSide::Inputs, 0, QStringLiteral("Ihr"));
        session.setEmbedding(ExploreSide::Inputs, 2, 1, 0.123456789f);
        QVERIFY(session.setWeight("W_value.weight", 1, 2, -0.75f));
        attn::ModuleConfig c = session.state().config;
        c.dropout = 0.25f;
        session.setConfig(c, true);
        const QString path = dir.filePath(QStringLiteral("session.json"));
        QString error;
        QVERIFY2(session.saveFile(path, &error), qPrintable(error));

        ExploreSession other;
        QVERIFY2(other.openFile(path, &error), qPrintable(error));
        QVERIFY(other.state() == session.state());
        QVERIFY(sameOutput(*other.result(), *session.result()));
        QCOMPARE(other.undoStack()->count(), 0);
        QCOMPARE(ExploreSession::recentFiles().value(0), QFileInfo(path).absoluteFilePath());

        // Cross-attention keeps its source sequence.
        attn::ModuleConfig cross;
        cross.module = attn::ModuleKind::CrossAttention;
        other.setConfig(cross, true);
        other.setToken(ExploreSide::Source, 1, QStringLiteral("路"));
        QVERIFY(other.saveFile(path, &error));
        ExploreSession third;
        QVERIFY2(third.openFile(path, &error), qPrintable(error));
        QVERIFY(third.state() == other.state());
    }

    // An inference session with dropout p = 0.3 keeps p and stays at inference.
    void inferenceWithDropoutRoundTrips() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ExploreSession session;
        attn::ModuleConfig c = session.state().config;
        c.dropout = 0.3f;
        c.causal = false;
        c.scale = false;
        session.setConfig(c, false);
        QVERIFY(session.error().isEmpty());
        QVERIFY(!session.result()->training);
        const QString path = dir.filePath(QStringLiteral("inference.json"));
        QString error;
        QVERIFY2(session.saveFile(path, &error), qPrintable(error));
        ExploreSession other;
        QVERIFY2(other.openFile(path, &error), qPrintable(error));
        QVERIFY(!other.state().training);
        QCOMPARE(other.state().config.dropout, 0.3f);
        QCOMPARE(other.state().config.causal, std::optional<bool>(false));
        QVERIFY(!other.state().config.scale);
        QVERIFY(other.state() == session.state());
        QVERIFY(sameOutput(*other.result(), *session.result()));
        // A file without "training" (older files) trains exactly when dropout > 0.
        attn::ExampleFile old = session.toExampleFile();
        old.training.reset();
        QVERIFY(other.loadExample(old, &error));
        QVERIFY(other.state().training);
    }

    void malformedFileRefused_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        QTest::newRow("syntax") << QByteArray(
                                       "{\n  \"tokens\": [\"a\"],\n  \"embeddings\": [[1, 2]\n")
                                << "line ";
        QTest::newRow("ragged rows")
            << QByteArray("{\n\"tokens\": [\"a\", \"b\"],\n\"embeddings\": [[1, 2],\n[3]]\n}\n")
            << "line 4";
        QTest::newRow("engine refuses")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1, 2, 3]],\n"
                   " \"config\": {\"module\": \"multi-head-attention\", \"d_out\": 6, "
                   "\"num_heads\": 4}}")
            << "not divisible";
    }
    void malformedFileRefused() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        f.close();
        ExploreSession session;
        session.setEmbedding(ExploreSide::Inputs, 0, 0, 9.0f);
        const ExploreState before = session.state();
        const std::shared_ptr<const attn::RunResult> result = session.result();
        QString error;
        QVERIFY(!session.openFile(path, &error));
        QVERIFY2(error.contains(expected), qPrintable(error));
        QVERIFY(session.state() == before);
        QCOMPARE(session.result(), result);
        QCOMPARE(session.undoStack()->count(), 1);
        QVERIFY(session.filePath().isEmpty());
    }

    void longSequenceRunsInBackground() {
        ExploreSession session;
        session.setAsyncThreshold(4);
        QSignalSpy busy(&session, &ExploreSession::busyChanged);
        session.randomFill(ExploreSide::Inputs, 5);  // 6 tokens > 4: background run
        QVERIFY(session.busy());
        // A second edit while the first runs: the first result is stale and must not show.
        session.setEmbedding(ExploreSide::Inputs, 0, 0, 2.0f);
        QVERIFY(session.waitForIdle());
        QVERIFY(!session.busy());
        QVERIFY(sameOutput(*session.result(), direct(session.state())));
        QVERIFY(session.resultState() == session.state());
        // Cancelled: the shown result stays the previous one.
        const std::shared_ptr<const attn::RunResult> shown = session.result();
        session.setEmbedding(ExploreSide::Inputs, 0, 0, 3.0f);
        session.cancel();
        QVERIFY(session.waitForIdle());
        QTest::qWait(200);  // the dropped run may finish meanwhile: it must stay dropped
        QCOMPARE(session.result(), shown);
    }

    void tokenModelPassesTester() {
        views::ExploreTokenModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSequence(attn::tutorial_inputs());
        QCOMPARE(model.rowCount(), 6);
        QCOMPARE(model.columnCount(), 4);
        QCOMPARE(model.data(model.index(0, 0)).toString(), QStringLiteral("Your"));
        QCOMPARE(model.data(model.index(0, 1)).toString(), QStringLiteral("0.4300"));
        attn::Sequence s = attn::tutorial_inputs();
        s.embeddings(0, 0) = 1.0f;
        model.setSequence(s);                               // same shape: in place
        model.setSequence(attn::random_sequence(3, 5, 1));  // other shape: reset
        QCOMPARE(model.columnCount(), 6);
        QSignalSpy edits(&model, &views::ExploreTokenModel::embeddingEdited);
        QVERIFY(model.setData(model.index(1, 2), QStringLiteral("0.5")));
        QVERIFY(!model.setData(model.index(1, 2), QStringLiteral("abc")));
        QVERIFY(!model.setData(model.index(1, 2), QStringLiteral("inf")));
        QCOMPARE(edits.count(), 1);
        QCOMPARE(edits[0][0].toInt(), 1);
        QCOMPARE(edits[0][1].toInt(), 1);
        QCOMPARE(edits[0][2].toFloat(), 0.5f);
    }

    void windowTableEditsGoThroughTheSession() {
        ExploreWindow window;
        views::ExploreTokenModel* model = window.tokenModel();
        QVERIFY(model->setData(model->index(2, 1), QStringLiteral("0.25")));
        QCOMPARE(window.session()->state().inputs.embeddings(2, 0), 0.25f);
        QCOMPARE(model->data(model->index(2, 1), Qt::EditRole).toString(), QStringLiteral("0.25"));
        QVERIFY(sameOutput(*window.session()->result(), direct(window.session()->state())));
        // the heads grid shows the new weights
        const attn::Matrix& w = window.session()->result()->output.heads[0][1].weights;
        QCOMPARE(window.headsGrid()->heatmap(1)->inputValue(3, 2), double{w(3, 2)});
        window.session()->undoStack()->undo();
        // The shortest digits that read back as the tutorial's 0.57f: editing it changes nothing.
        const QString undone = model->data(model->index(2, 1), Qt::EditRole).toString();
        QCOMPARE(undone, QStringLiteral("0.57"));
        QCOMPARE(undone.toFloat(), attn::tutorial_inputs().embeddings(2, 0));
    }

    // Dragging a row number in the token table moves that token (one undo step).
    void dragRowNumberReordersTokens() {
        ExploreWindow window;
        QTableView* view = window.tokenView();
        QHeaderView* header = view->verticalHeader();
        QVERIFY(header->sectionsMovable());
        const attn::Sequence before = window.session()->state().inputs;
        header->moveSection(0, 2);  // what a drag of row 1 onto row 3 does
        const attn::Sequence& after = window.session()->state().inputs;
        const std::vector<std::string> expected = {"journey", "starts", "Your",
                                                   "with",    "one",    "step"};
        QCOMPARE(after.tokens, expected);
        QCOMPARE(attn::Matrix(after.embeddings.row(2)), attn::Matrix(before.embeddings.row(0)));
        QCOMPARE(attn::Matrix(after.embeddings.row(0)), attn::Matrix(before.embeddings.row(1)));
        // The table shows the new order in plain row order, and the weights were recomputed.
        QCOMPARE(header->visualIndex(0), 0);
        QCOMPARE(header->visualIndex(2), 2);
        QCOMPARE(window.tokenModel()->data(window.tokenModel()->index(2, 0)).toString(),
                 QStringLiteral("Your"));
        QVERIFY(sameOutput(*window.session()->result(), direct(window.session()->state())));
        window.session()->undoStack()->undo();
        QCOMPARE(window.session()->state().inputs.tokens, before.tokens);
        QCOMPARE(window.session()->state().inputs.embeddings, before.embeddings);
    }

    // An edit redraws the shown view; the others are brought up to date when their tab is shown
    // (the redraw budget), so every view ends up showing the latest result.
    void hiddenViewsCatchUpWhenShown() {
        ExploreWindow window;
        showTwoHeads(window, QSize(1200, 800));
        window.viewTabs()->setCurrentWidget(window.headsGrid());
        window.session()->setEmbedding(ExploreSide::Inputs, 1, 2, 0.75f);
        QCoreApplication::processEvents();
        const attn::RunResult& r = *window.session()->result();
        QVERIFY(sameOutput(r, direct(window.session()->state())));
        QCOMPARE(window.headsGrid()->heatmap(1)->inputValue(4, 1),
                 double{r.output.heads[0][1].dropped(4, 1)});

        window.viewTabs()->setCurrentWidget(window.outputHeatmap());
        for (int row = 0; row < 6; ++row)
            for (int col = 0; col < 4; ++col)
                QCOMPARE(window.outputHeatmap()->inputValue(row, col),
                         double{r.output.context_vecs[0](row, col)});
        window.viewTabs()->setCurrentWidget(window.weightSplit());
        QCOMPARE(window.weightSplit()->sliceCount(), 2);
        const auto wq = std::find_if(r.weights.begin(), r.weights.end(),
                                     [](const auto& w) { return w.name == "W_query.weight"; });
        QVERIFY(wq != r.weights.end());
        // W_query.weight (d_out 4, d_in 3): row 3 is head 2's first row (head_dim 2).
        QCOMPARE(window.weightSplit()->slice(1)->inputValue(0, 2), double{wq->value(2, 2)});
        window.viewTabs()->setCurrentWidget(window.linesView());
        QCOMPARE(window.linesView()->headCount(), 2);
    }

    // One PNG per view tab into ATTN_EXPLORE_SHOTS_DIR, for a person to look at. Each is the
    // whole window, not blank, and its view differs from the previous tab's; the views that draw
    // heatmaps show cells in the colour maps' colours.
    void screenshots() {
        ExploreWindow window;
        const attn::ModuleConfig c = showTwoHeads(window, QSize(1500, 920));
        const QString dir = qEnvironmentVariable("ATTN_EXPLORE_SHOTS_DIR", QDir::tempPath());
        QVERIFY(QDir().mkpath(dir));
        // The cross-attention tab draws its heatmap once the module is cross-attention (below).
        QSet<QWidget*> heatmapViews{window.headsGrid(), window.outputHeatmap(),
                                    window.weightSplit(), window.kvStepper()};
        QImage previous;
        QRect previousArea;
        auto shoot = [&](const QString& name) {
            for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
            const QImage image = window.grab().toImage();
            QVERIFY(!image.isNull());
            QVERIFY(image.save(QDir(dir).filePath(name + QStringLiteral(".png"))));
            QCOMPARE(image.size(), window.size());
            QVERIFY2(shots::distinctColours(image) > 50, qPrintable(name));
            QWidget* view = window.viewTabs()->currentWidget();
            const QRect area(view->mapTo(&window, QPoint(0, 0)), view->size());
            if (heatmapViews.contains(view)) {
                // Several cells' worth (a 40 × 30 px cell is about 130 samples).
                const int cells = shots::colourMapPixels(image, area);
                QVERIFY2(cells > 1000, qPrintable(QStringLiteral("%1: %2").arg(name).arg(cells)));
            }
            if (!previous.isNull() && area == previousArea) {
                const int changed = shots::differingPixels(previous, image, area);
                QVERIFY2(changed * 20 > shots::sampleCount(image, area),
                         qPrintable(QStringLiteral("%1: %2 changed").arg(name).arg(changed)));
            }
            previous = image;
            previousArea = area;
        };
        for (int i = 0; i < window.viewTabs()->count(); ++i) {
            window.viewTabs()->setCurrentIndex(i);
            if (window.viewTabs()->currentWidget() == window.kvStepper())
                window.kvStepper()->setStep(3);
            shoot(QStringLiteral("explore-%1").arg(i + 1, 2, 10, QLatin1Char('0')));
        }
        attn::ModuleConfig bad = c;
        bad.d_out = 6;
        bad.num_heads = 4;
        window.session()->setConfig(bad, true);
        window.viewTabs()->setCurrentIndex(0);
        const QImage firstTab(QDir(dir).filePath(QStringLiteral("explore-01.png")));
        previous = QImage();  // the view itself keeps the last valid result
        shoot(QStringLiteral("explore-invalid"));
        // The last valid result stays on screen; the panel explains the invalid settings.
        QWidget* panel = window.parameterPanel();
        const QRect panelArea(panel->mapTo(&window, QPoint(0, 0)), panel->size());
        const int explained = shots::differingPixels(firstTab, previous, panelArea);
        QVERIFY2(explained > 50, qPrintable(QString::number(explained)));
        attn::ModuleConfig cross;
        cross.module = attn::ModuleKind::CrossAttention;
        window.session()->setConfig(cross, true);
        window.viewTabs()->setCurrentWidget(window.crossTab());
        heatmapViews.insert(window.crossTab());
        shoot(QStringLiteral("explore-cross"));
        QVERIFY(window.session()->error().isEmpty());
        // The panel shows what ran: d_model = d_in = 3 and the default single head.
        QCOMPARE(window.parameterPanel()->dOutBox()->value(), 3);
        QCOMPARE(window.parameterPanel()->headsBox()->value(), 1);
    }
};

QTEST_MAIN(TestExploreSession)
#include "test_explore_session.moc"
