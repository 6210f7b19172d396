// attention-cli handout end to end: the built executable, started without a display, writes the
// whole walkthrough as a PDF (read back with poppler's pdftotext) or one self-contained HTML
// file, in English or Chinese, for the tutorial or an example file; unwritable paths and writes
// that fail part-way end with status 2 and leave no file behind, an existing one as it was.
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_run.h"
#include "model/walkthrough.h"
#include "tests/test_files.h"
#include "tests/views/pdf_tools.h"
#include "views/step_texts.h"

namespace {

CliRun runHandout(const QStringList& args, qint64 fileSizeLimit = 0) {
    return runCli(QStringList{QStringLiteral("handout")} + args, fileSizeLimit);
}

QString describe(const CliRun& run) {
    return QStringLiteral("exit %1\nstdout: %2\nstderr: %3")
        .arg(run.exitCode)
        .arg(QString::fromUtf8(run.out.left(2000)), QString::fromUtf8(run.err.left(2000)));
}

// Line breaks and runs of spaces as one space: pdftotext breaks long headings.
QString squeezed(const QString& text) {
    static const QRegularExpression space(QStringLiteral("\\s+"));
    return QString(text).replace(space, QStringLiteral(" "));
}

// One inline SVG per heatmap of the tutorial's walkthrough, the steps with frames at their last
// frame. Counted from `attention-cli steps` (distinct matrices per step, those of a frame step's
// last frame), steps 1 to 20: 1 + 3 + 7 + 3 + 4 + 3 + 7 + 10 + 6 + 4 + 5 + 3 + 6 + 9 + 6 + 7 =
// 84 for the tutorial, then 8 (GQA) + 4 (masks) + 7 (RoPE) + 7 (tiles) = 110.
constexpr int kWalkthroughFigures = 110;

const char* kCatExample = R"({"tokens": ["the", "cat", "sat", "<down>"],
    "embeddings": [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9], [0.2, 0.1, 0.4]]})";

}  // namespace

class TestCliHandout : public QObject {
    Q_OBJECT

private slots:
    void englishPdfHasEveryStep();
    void chinesePdf();
    void htmlIsSelfContained();
    void exampleFileTokens();
    void unwritablePath_data();
    void unwritablePath();
    void failedWriteLeavesOldFile();
    void badSuffix();
};

void TestCliHandout::englishPdfHasEveryStep() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("handout.pdf");
    const CliRun run = runHandout({"--output", path});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(run.lines(), QStringList{path});
    const QByteArray pdf = readFile(path);
    QVERIFY(pdf.startsWith("%PDF-"));
    const QString text = squeezed(pdfText(path));
    const std::vector<attn::Step> steps = attn::build_walkthrough();
    QCOMPARE(steps.size(), std::size_t{20});
    for (const attn::Step& step : steps) {
        const QString heading = QStringLiteral("Step %1 · %2")
                                    .arg(step.number)
                                    .arg(squeezed(views::stepText(step).title))
                                    .normalized(QString::NormalizationForm_KC);
        QVERIFY2(text.contains(heading), qPrintable(heading));
    }
    // The tutorial's numbers: ω₂₁ = x⁽²⁾ · x⁽¹⁾ = 0.9544, the embedding of "journey", and the
    // PyTorch code of step 1.
    QVERIFY(text.contains("0.9544"));
    QVERIFY(text.contains("(0.5500, 0.8700, 0.6600)"));
    QVERIFY(text.contains("Your journey starts with one step"));
    QVERIFY(text.contains("inputs = torch.tensor("));
    // The KV-cache step says which frame it prints.
    QVERIFY(text.contains("token 6 of 6"));
    // A title page and one page (or more) per step, A4.
    const QString info = pdfInfo(path);
    const QRegularExpressionMatch pages = QRegularExpression("Pages:\\s+(\\d+)").match(info);
    QVERIFY2(pages.hasMatch() && pages.captured(1).toInt() >= 17, qPrintable(info));
    QVERIFY2(info.contains("(A4)"), qPrintable(info));
}

void TestCliHandout::chinesePdf() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("讲义.pdf");
    const CliRun run = runHandout({"--output", path, "--lang", "zh_CN"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QString text = squeezed(pdfText(path));
    // Step titles as resources/translations/attention_visualizer_zh_CN.ts translates them; the
    // text comes back only when the CJK font is embedded with its Unicode map.
    for (const char* title : {"输入嵌入", "一次计算所有词元", "查询、键和值", "缩放点积注意力"})
        QVERIFY2(text.contains(QString::fromUtf8(title)), title);
    QVERIFY(readFile(path).contains("NotoSansCJK"));
    QVERIFY(text.contains("0.9544"));
}

void TestCliHandout::htmlIsSelfContained() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("handout.html");
    CliRun run = runHandout({"--output", path});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QString html = QString::fromUtf8(readFile(path));
    QVERIFY(html.startsWith("<!DOCTYPE html>"));
    QVERIFY(html.contains("<html lang=\"en\">"));
    QVERIFY(html.contains("<meta charset=\"utf-8\">"));
    QCOMPARE(html.count("<svg"), kWalkthroughFigures);
    for (const attn::Step& step : attn::build_walkthrough())
        QVERIFY2(html.contains(views::stepText(step).title.toHtmlEscaped()), step.id.c_str());
    QVERIFY(html.contains("0.9544"));
    // Nothing outside the file: no scripts, style sheets or pictures fetched.
    for (const char* external : {"src=", "<link", "<script", "@import", "href=\"http"})
        QVERIFY2(!html.contains(QLatin1String(external), Qt::CaseInsensitive), external);
    // Ids of the inline figures are unique in the page (clip paths would collide otherwise).
    QStringList ids;
    const QRegularExpression id(QStringLiteral("\\sid=\"([^\"]+)\""));
    for (auto it = id.globalMatch(html); it.hasNext();) ids << it.next().captured(1);
    QVERIFY(!ids.isEmpty());
    QCOMPARE(QSet<QString>(ids.begin(), ids.end()).size(), ids.size());

    const QString zh = dir.filePath("handout-zh.html");
    run = runHandout({"--output", zh, "--lang", "zh_CN"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QString zhHtml = QString::fromUtf8(readFile(zh));
    QVERIFY(zhHtml.contains("<html lang=\"zh-CN\">"));
    QVERIFY(zhHtml.contains(QString::fromUtf8("缩放点积注意力")));
}

void TestCliHandout::exampleFileTokens() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString example = dir.filePath("cat.json");
    QVERIFY(writeFile(example, kCatExample));
    const QString pdf = dir.filePath("cat.pdf");
    CliRun run = runHandout({"--output", pdf, "--input", example});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QString text = squeezed(pdfText(pdf));
    QVERIFY2(text.contains("the cat sat <down>"), qPrintable(text.left(600)));
    QVERIFY(text.contains("(0.4000, 0.5000, 0.6000)"));  // the embedding of "cat"
    QVERIFY(!text.contains("journey starts"));

    const QString html = dir.filePath("cat.html");
    run = runHandout({"--output", html, "--input", example});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QString page = QString::fromUtf8(readFile(html));
    // The token is text, escaped wherever it appears, never markup.
    QVERIFY(page.contains("the cat sat &lt;down&gt;"));
    QVERIFY(!page.contains("<down>"));
}

void TestCliHandout::unwritablePath_data() {
    QTest::addColumn<QString>("where");
    QTest::newRow("under a regular file") << QStringLiteral("file");
    QTest::newRow("missing folder") << QStringLiteral("missing");
    QTest::newRow("/proc") << QStringLiteral("/proc");
    QTest::newRow("a folder") << QStringLiteral("folder");
}

void TestCliHandout::unwritablePath() {
    QFETCH(QString, where);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(writeFile(dir.filePath("plain.txt"), "text"));
    QVERIFY(QDir(dir.path()).mkdir("taken.pdf"));
    QString path;
    if (where == "file") path = dir.filePath("plain.txt/handout.pdf");
    if (where == "missing") path = dir.filePath("no/such/folder/handout.pdf");
    if (where == "/proc") path = QStringLiteral("/proc/attention-handout.pdf");
    if (where == "folder") path = dir.filePath("taken.pdf");
    const CliRun run = runHandout({"--output", path});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.contains("handout.pdf") || run.err.contains("taken.pdf"), run.err.constData());
    QVERIFY(!QFileInfo(path).isFile());
    QCOMPARE(folderEntries(dir.path()), QStringList({"plain.txt", "taken.pdf"}));
    QCOMPARE(readFile(dir.filePath("plain.txt")), QByteArray("text"));
}

void TestCliHandout::failedWriteLeavesOldFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("handout.pdf");
    QVERIFY(writeFile(path, "the old handout"));
    // A file size limit fails the write part-way, as a full disk does.
    for (const QString& name : {QStringLiteral("handout.pdf"), QStringLiteral("handout.html")}) {
        const QString target = dir.filePath(name);
        const CliRun run = runHandout({"--output", target}, 64 * 1024);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        QVERIFY2(run.err.contains("File too large"), run.err.constData());
        QCOMPARE(folderEntries(dir.path()), QStringList{"handout.pdf"});  // no temp file either
        QCOMPARE(readFile(path), QByteArray("the old handout"));
    }
    // Without the limit the old file is replaced by the whole new one.
    const CliRun run = runHandout({"--output", path});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QVERIFY(readFile(path).startsWith("%PDF-"));
    QVERIFY(squeezed(pdfText(path)).contains("Step 20 ·"));
    QCOMPARE(folderEntries(dir.path()), QStringList{"handout.pdf"});
}

void TestCliHandout::badSuffix() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    CliRun run = runHandout({"--output", dir.filePath("handout.docx")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(".pdf or .html"), run.err.constData());
    run = runHandout({});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("--output"), run.err.constData());
    run = runHandout({"--output", dir.filePath("h.pdf"), "--lang", "fr"});
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(folderEntries(dir.path()), QStringList());
}

QTEST_GUILESS_MAIN(TestCliHandout)
#include "test_cli_handout.moc"
