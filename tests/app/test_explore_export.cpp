// Explore mode's File ▸ Export: the shown head's attn_weights as a CSV holding the run's numbers,
// every head on one PDF, "Nothing to export" while the settings do not run, and the shared
// flow's remembered folder and replace question (ExportFlow, settings group "explore/export").
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "app/gui/explore_session.h"
#include "app/gui/explore_window.h"
#include "app/gui/export_dialog.h"
#include "modal_dialogs.h"
#include "views/explore_heads_grid.h"
#include "views/figure_render.h"
#include "views/heatmap_widget.h"
#include "window_test_settings.h"

namespace {

QByteArray readFileBytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The window's action whose text, without its '&', is `text`.
QAction* actionNamed(const ExploreWindow& w, const QString& text) {
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text().remove(QLatin1Char('&')) == text) return a;
    return nullptr;
}

// The CSV's rows without the header, each without its label: the numbers of the matrix.
std::vector<std::vector<double>> csvNumbers(const QByteArray& csv, QStringList* labels) {
    QStringList lines = QString::fromUtf8(csv).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    std::vector<std::vector<double>> out;
    if (lines.isEmpty()) return out;
    lines.removeFirst();
    for (const QString& line : lines) {
        QStringList fields = line.split(QLatin1Char(','));
        if (labels)
            *labels << fields.takeFirst();
        else
            fields.removeFirst();
        std::vector<double> row;
        for (const QString& f : fields) row.push_back(f.toDouble());
        out.push_back(row);
    }
    return out;
}

}  // namespace

class TestExploreExport : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { useTestSettings("explore-export"); }
    void init() { QSettings().clear(); }

    void headCsvHoldsTheRunsWeights();
    void allHeadsPdfAndNothingToExport();
    void crossAttentionRowsAreTheQueries();
    void exportDialogsRememberAndAsk();
};

void TestExploreExport::headCsvHoldsTheRunsWeights() {
    ExploreWindow w;
    QVERIFY(w.session()->waitForIdle());
    const auto r = w.session()->result();
    QVERIFY(r && r->output.heads.size() >= 1 && r->output.heads[0].size() == 2);
    // Clicking head 2 in the heads grid makes it the head the export draws.
    QCOMPARE(w.shownHead(), 0);
    emit w.headsGrid()->heatmap(1)->cellClicked(0, 0);
    QCOMPARE(w.shownHead(), 1);

    QTemporaryDir out;
    views::FigureOptions csv;
    csv.format = views::FigureFormat::Csv;
    const QString path = out.filePath(QStringLiteral("head.csv"));
    QString error;
    QVERIFY2(w.exportHead(path, csv, &error), qPrintable(error));
    QStringList labels;
    const std::vector<std::vector<double>> numbers = csvNumbers(readFileBytes(path), &labels);
    const attn::Matrix& expected = r->output.heads[0][1].dropped;
    QCOMPARE(labels, QStringList({"Your", "journey", "starts", "with", "one", "step"}));
    QCOMPARE(static_cast<Eigen::Index>(numbers.size()), expected.rows());
    for (Eigen::Index i = 0; i < expected.rows(); ++i) {
        const auto& row = numbers[static_cast<std::size_t>(i)];
        QCOMPARE(static_cast<Eigen::Index>(row.size()), expected.cols());
        for (Eigen::Index j = 0; j < expected.cols(); ++j)
            QCOMPARE(static_cast<float>(row[static_cast<std::size_t>(j)]), expected(i, j));
    }
    // Head 2 is not head 1: the export followed the click.
    QVERIFY(!r->output.heads[0][0].dropped.isApprox(expected));
}

void TestExploreExport::allHeadsPdfAndNothingToExport() {
    ExploreWindow w;
    QVERIFY(w.session()->waitForIdle());
    QTemporaryDir out;
    views::FigureOptions pdf;
    pdf.format = views::FigureFormat::Pdf;
    const QString path = out.filePath(QStringLiteral("heads.pdf"));
    QString error;
    QVERIFY2(w.exportAllHeads(path, pdf, &error), qPrintable(error));
    QVERIFY(readFileBytes(path).startsWith("%PDF"));
    // The all-heads CSV: one row per cell of both 6 × 6 heads, after the header.
    views::FigureOptions csv;
    csv.format = views::FigureFormat::Csv;
    const QString table = out.filePath(QStringLiteral("heads.csv"));
    QVERIFY2(w.exportAllHeads(table, csv, &error), qPrintable(error));
    QCOMPARE(readFileBytes(table).count("\r\n"), 1 + 2 * 36);

    // Settings that do not run: nothing is written, and the message says why.
    attn::ModuleConfig bad = w.session()->state().config;
    bad.d_out = 6;
    bad.num_heads = 4;
    w.session()->setConfig(bad, true);
    QVERIFY(w.session()->waitForIdle());
    QVERIFY(!w.session()->error().isEmpty());
    const QString refused = out.filePath(QStringLiteral("refused.pdf"));
    QVERIFY(!w.exportAllHeads(refused, pdf, &error));
    QVERIFY2(error.startsWith(QStringLiteral("Nothing to export: ")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("not divisible by num_heads = 4")), qPrintable(error));
    QVERIFY(!QFileInfo::exists(refused));
    QVERIFY(!w.exportHead(refused, pdf, &error));
    QVERIFY(!QFileInfo::exists(refused));
}

void TestExploreExport::crossAttentionRowsAreTheQueries() {
    ExploreWindow w;
    QVERIFY(w.session()->waitForIdle());
    attn::ModuleConfig c;  // the module's defaults
    c.module = attn::ModuleKind::CrossAttention;
    w.session()->setConfig(c, true);
    QVERIFY(w.session()->waitForIdle());
    QVERIFY2(w.session()->error().isEmpty(), qPrintable(w.session()->error()));
    const auto r = w.session()->result();
    const attn::Matrix& expected = r->output.heads[0][0].dropped;
    // Six target tokens ask four source tokens: more queries than keys.
    QCOMPARE(expected.rows(), Eigen::Index{6});
    QCOMPARE(expected.cols(), Eigen::Index{4});
    QTemporaryDir out;
    views::FigureOptions csv;
    csv.format = views::FigureFormat::Csv;
    const QString path = out.filePath(QStringLiteral("cross.csv"));
    QString error;
    QVERIFY2(w.exportHead(path, csv, &error), qPrintable(error));
    const QByteArray bytes = readFileBytes(path);
    QVERIFY2(bytes.startsWith(",你的,旅程,始于,一步\r\n"), bytes.constData());
    QStringList labels;
    const std::vector<std::vector<double>> numbers = csvNumbers(bytes, &labels);
    QCOMPARE(labels, QStringList({"Your", "journey", "starts", "with", "one", "step"}));
    QCOMPARE(numbers.size(), std::size_t{6});
    for (Eigen::Index i = 0; i < 6; ++i)
        for (Eigen::Index j = 0; j < 4; ++j)
            QCOMPARE(static_cast<float>(
                         numbers[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]),
                     expected(i, j));
}

void TestExploreExport::exportDialogsRememberAndAsk() {
    ExploreWindow w;
    QVERIFY(w.session()->waitForIdle());
    QAction* exportHead = actionNamed(w, QStringLiteral("Head figure…"));
    QAction* exportAll = actionNamed(w, QStringLiteral("All heads as one figure…"));
    QVERIFY(exportHead && exportAll);
    QCOMPARE(exportHead->shortcut(), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_E));
    QCOMPARE(exportAll->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    QTemporaryDir out;

    // Nothing remembered yet: a PNG named after the head. The user picks CSV and a folder.
    const QString path = out.filePath(QStringLiteral("explore-head-1.csv"));
    QString offered;
    answerModal<ExportDialog>(QDialog::Accepted, [&](ExportDialog* d) {
        offered = d->destination();
        d->formatBox()->setCurrentIndex(d->formatBox()->findData(int(views::FigureFormat::Csv)));
        d->setDestination(path);
    });
    exportHead->trigger();
    QCOMPARE(QFileInfo(offered).fileName(), QStringLiteral("explore-head-1.png"));
    QVERIFY(readFileBytes(path).startsWith(",Your,journey,starts,with,one,step\r\n"));
    QCOMPARE(w.lastMessage(), QStringLiteral("Saved ") + QDir::toNativeSeparators(path));
    QCOMPARE(QSettings().value(QStringLiteral("explore/export/folder")).toString(), out.path());
    const QByteArray written = readFileBytes(path);

    // The next export offers that folder and format; the file there is kept unless the user
    // agrees to replace it.
    checkReplaceQuestion(exportHead, path);
    if (QTest::currentTestFailed()) return;
    QCOMPARE(readFileBytes(path), written);

    // Every head as one PDF, in the remembered folder.
    answerModal<ExportDialog>(QDialog::Accepted, [&](ExportDialog* d) {
        d->formatBox()->setCurrentIndex(d->formatBox()->findData(int(views::FigureFormat::Pdf)));
        offered = d->destination();
    });
    exportAll->trigger();
    QCOMPARE(offered, out.filePath(QStringLiteral("explore-heads.pdf")));
    QVERIFY(readFileBytes(offered).startsWith("%PDF"));

    // Settings that do not run: the warning box says there is nothing to export.
    attn::ModuleConfig bad = w.session()->state().config;
    bad.d_out = 6;
    bad.num_heads = 4;
    w.session()->setConfig(bad, true);
    QVERIFY(w.session()->waitForIdle());
    QString warning;
    const QString refused = out.filePath(QStringLiteral("refused.pdf"));
    answerModal<ExportDialog>(QDialog::Accepted, [&](ExportDialog* d) {
        d->setDestination(refused);
        answerModal<QMessageBox>(QMessageBox::Ok, [&](QMessageBox* box) { warning = box->text(); });
    });
    exportAll->trigger();
    QVERIFY2(warning.startsWith(QStringLiteral("Nothing to export: ")), qPrintable(warning));
    QVERIFY(!QFileInfo::exists(refused));
}

QTEST_MAIN(TestExploreExport)
#include "test_explore_export.moc"
