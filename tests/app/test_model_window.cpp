// The model window on a tiny GPT-2 the test writes: the weights of the PyTorch reference
// (tests/reference/gpt2_model_reference.h, seed 1234, tied, F32) and a vocab.json whose
// single-character tokens give the reference's ids, so the text "abcde" is ids 3 17 8 30 1 and
// everything the window shows can be compared with what PyTorch printed: the attention of every
// layer and head, the next-token probabilities, greedy generation through the kv_cache. Also the
// welcome page with a Hugging Face cache, loading off the UI thread, cancel, errors, exports
// (File ▸ Export goes through the flow every window shares: the dialog, the choices and folder
// remembered, the replace question, the report).
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>

#include "app/gui/export_dialog.h"
#include "app/gui/model_session.h"
#include "app/gui/model_window.h"
#include "app/gui/threads_menu.h"
#include "modal_dialogs.h"
#include "model/generator.h"
#include "model/matmul.h"
#include "model/transformer.h"
#include "tests/reference/gpt2_model_reference.h"
#include "tests/support/model_test_folder.h"
#include "tests/support/model_test_weights.h"
#include "views/explore_lines_view.h"
#include "views/model_heads_mosaic.h"
#include "views/next_token_chart.h"
#include "views/step_page.h"
#include "views/token_strip.h"
#include "window_test_settings.h"

namespace {

namespace ref = gpt2_model_reference;

// GPT-2's byte-to-unicode map: the printable bytes stand for themselves, the others for
// U+0100 onwards, in byte order.
QList<QString> byteTokens() {
    QList<QString> tokens(256);
    int next = 0;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
        tokens[b] = QString(QChar(printable ? b : 256 + next++));
    }
    return tokens;
}

// A byte-level vocabulary (all 256 byte tokens, as the tokenizer requires) in which "a" is 3,
// "b" 17, "c" 8, "d" 30 and "e" 1, the reference's ids; 27 other bytes fill ids 0..31 and the
// rest lie beyond the model's 32 (a text using them is refused as outside the vocabulary).
QByteArray tinyVocab() {
    QJsonObject vocab;
    const std::pair<char, int> fixed[] = {{'a', 3}, {'b', 17}, {'c', 8}, {'d', 30}, {'e', 1}};
    QList<int> used;
    for (const auto& [letter, id] : fixed) {
        vocab.insert(QString(QLatin1Char(letter)), id);
        used << id;
    }
    int id = 0;
    for (const QString& token : byteTokens()) {
        if (vocab.contains(token)) continue;
        while (used.contains(id)) ++id;
        vocab.insert(token, id++);
    }
    return QJsonDocument(vocab).toJson();
}

QByteArray readFileBytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The window's action whose text, without its '&', is `text`.
QAction* actionNamed(const ModelWindow& w, const QString& text) {
    for (QAction* a : w.windowActions())
        if (a->text().remove(QLatin1Char('&')) == text) return a;
    return nullptr;
}

const ref::Case& referenceCase(const std::vector<int>& ids) {
    for (const ref::Case& c : ref::kCases)
        if (c.tied && QLatin1String(c.dtype) == QLatin1String("F32") && c.ids == ids) return c;
    qFatal("no reference case");
}

}  // namespace

class TestModelWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void welcomePageListsTheCache();
    void showsWhatPyTorchComputed();
    void headViewExplainsEveryCell();
    void generatesThroughTheKvCache();
    void cancelAndErrors();
    void exports();
    void exportDialogsRememberAndAsk();
    void threadsMenuSetsTheEngine();

private:
    bool openTiny(ModelWindow& w);
    QTemporaryDir dir_;
    QString model_;
    QString hub_;
};

void TestModelWindow::initTestCase() {
    useTestSettings("model-window");
    QVERIFY(dir_.isValid());
    model_ = dir_.filePath(QStringLiteral("tiny-gpt2"));
    attn::TransformerWeights weights =
        attn::make_random_weights(attn::tiny_gpt2_spec(true), ref::kSeed);
    // The tokenizer needs all 256 byte tokens and refuses a vocabulary larger than the model's,
    // so wte grows to 256 rows: the reference's 32, then zeros. Attention and the logits of
    // ids 0..31 stay PyTorch's; ids 32..255 get logit exactly 0 (a zero row of the tied wte).
    std::vector<float> wte(std::size_t{256} * 8, 0.0f);
    std::copy(weights[attn::TensorRole::TokenEmbedding].data,
              weights[attn::TensorRole::TokenEmbedding].data + 32 * 8, wte.begin());
    weights[attn::TensorRole::TokenEmbedding].data = wte.data();
    weights[attn::TensorRole::TokenEmbedding].rows = 256;
    weights.spec.vocab_size = 256;
    QString error;
    QVERIFY2(model_test::writeFolder(model_, weights, QStringLiteral("F32"),
                                     model_test::Layout::Plain, &error),
             qPrintable(error));
    QFile vocab(QDir(model_).filePath(QStringLiteral("vocab.json")));
    QVERIFY(vocab.open(QIODevice::WriteOnly));
    vocab.write(tinyVocab());
    vocab.close();
    QFile merges(QDir(model_).filePath(QStringLiteral("merges.txt")));
    QVERIFY(merges.open(QIODevice::WriteOnly));
    merges.write("#version: 0.2\n");
    merges.close();

    // A Hugging Face cache with this model under a name and a BERT beside it.
    hub_ = dir_.filePath(QStringLiteral("hub"));
    const QString snapshot = hub_ + QStringLiteral("/models--test--tiny-gpt2/snapshots/abc123");
    QVERIFY(QDir().mkpath(snapshot));
    for (const QString& f : QDir(model_).entryList(QDir::Files))
        QVERIFY(QFile::copy(QDir(model_).filePath(f), QDir(snapshot).filePath(f)));
    const QString bert = hub_ + QStringLiteral("/models--bert-base-uncased/snapshots/def456");
    QVERIFY(QDir().mkpath(bert));
    QFile bertConfig(QDir(bert).filePath(QStringLiteral("config.json")));
    QVERIFY(bertConfig.open(QIODevice::WriteOnly));
    bertConfig.write(R"({"model_type": "bert"})");
    bertConfig.close();
    qputenv("HF_HUB_CACHE", QFile::encodeName(hub_));
}

void TestModelWindow::init() { QSettings().clear(); }

bool TestModelWindow::openTiny(ModelWindow& w) {
    w.openModel(model_);
    return w.session()->waitForIdle() && w.page() == ModelWindow::Page::Model;
}

void TestModelWindow::welcomePageListsTheCache() {
    ModelWindow w;
    QCOMPARE(w.page(), ModelWindow::Page::Welcome);
    QStringList names;
    for (int i = 0; i < w.cachedModelsList()->count(); ++i) {
        const QListWidgetItem* item = w.cachedModelsList()->item(i);
        names << item->text();
        // Only models the core computes can be opened; the others say why not.
        QCOMPARE(bool(item->flags() & Qt::ItemIsEnabled),
                 item->text().startsWith("test/tiny-gpt2"));
    }
    QCOMPARE(names.size(), 2);
    // Name, family, size and dtype of the tiny model: wte 256 × 8, wpe 16 × 8, ln_f 8 + 8 and two
    // layers of ln_1 16, c_attn 8 × 24 + 24, c_proj 8 × 8 + 8, ln_2 16, c_fc 8 × 32 + 32 and
    // mlp.c_proj 32 × 8 + 8.
    const int layer = 16 + (8 * 24 + 24) + (8 * 8 + 8) + 16 + (8 * 32 + 32) + (32 * 8 + 8);
    const int tinyParameters = 256 * 8 + 16 * 8 + 16 + 2 * layer;
    QVERIFY2(names.contains(
                 QStringLiteral("test/tiny-gpt2 · gpt2 · %1 parameters · F32").arg(tinyParameters)),
             qPrintable(names.join(" | ")));
    QVERIFY(names.filter(QStringLiteral("bert-base-uncased (cannot be opened: ")).size() == 1);
    // BERT opens now; this snapshot has its config.json but no weights.
    QVERIFY(names.filter(QStringLiteral("bert-base-uncased"))
                .first()
                .contains("no .safetensors weights"));
    // The page says how to get a model.
    const QString welcome = w.findChildren<QLabel*>().first()->text();
    bool explained = false;
    for (const QLabel* l : w.findChildren<QLabel*>())
        explained |= l->text().contains(QStringLiteral("huggingface-cli download gpt2"));
    QVERIFY2(explained, qPrintable(welcome));

    // A double click on the cached model opens it by its snapshot folder.
    emit w.cachedModelsList()->itemActivated(
        w.cachedModelsList()
            ->findItems(QStringLiteral("test/tiny-gpt2 "), Qt::MatchStartsWith)
            .first());
    QVERIFY(w.session()->waitForIdle());
    QVERIFY2(w.shownError().isEmpty(), qPrintable(w.shownError()));
    QCOMPARE(w.page(), ModelWindow::Page::Model);
    QVERIFY(w.session()->sourcePath().endsWith(QStringLiteral("snapshots/abc123")));
    QVERIFY(ModelSession::recentSources().value(0).endsWith(QStringLiteral("abc123")));
}

void TestModelWindow::showsWhatPyTorchComputed() {
    ModelWindow w;
    // Loading runs on a worker: the window shows the loading page first.
    QList<ModelWindow::Page> pages;
    connect(w.session(), &ModelSession::loadingChanged, &w, [&](bool loading) {
        if (loading) pages << w.page();
    });
    w.openModel(model_);
    QVERIFY(w.session()->waitForIdle());
    QCOMPARE(pages, QList<ModelWindow::Page>{ModelWindow::Page::Loading});
    QCOMPARE(w.page(), ModelWindow::Page::Model);
    w.setText(QStringLiteral("abcde"));
    QVERIFY(w.session()->waitForIdle());

    const ModelSession::View& v = w.session()->view();
    QCOMPARE(v.ids, (std::vector<int>{3, 17, 8, 30, 1}));
    QCOMPARE(v.tokens, (QStringList{"a", "b", "c", "d", "e"}));
    QCOMPARE(w.tokenStrip()->tokenCount(), 5);
    const ref::Case& c = referenceCase(v.ids);
    const int t = 5;
    QCOMPARE(v.attentions.size(), std::size_t{2});
    std::size_t at = 0;
    for (std::size_t l = 0; l < 2; ++l)
        for (std::size_t h = 0; h < 2; ++h)
            for (int i = 0; i < t; ++i)
                for (int j = 0; j < t; ++j, ++at)
                    QVERIFY2(std::abs(v.attentions[l][h](i, j) - c.attentions[at]) < 2e-6f,
                             qPrintable(QStringLiteral("layer %1 head %2 (%3, %4)")
                                            .arg(l)
                                            .arg(h)
                                            .arg(i)
                                            .arg(j)));
    // The mosaic has every layer × head.
    QCOMPARE(w.mosaic()->layerCount(), 2);
    QCOMPARE(w.mosaic()->headCount(), 2);

    // The next-token chart: softmax of PyTorch's last logits row, with the 224 padded ids at
    // logit 0, best first.
    const std::size_t vocab = 32;
    std::vector<double> logits(256, 0.0);
    const auto last = static_cast<std::size_t>(t - 1) * vocab;
    for (std::size_t k = 0; k < vocab; ++k) logits[k] = double(c.logits[last + k]);
    const double maxLogit = *std::max_element(logits.begin(), logits.end());
    double sum = 0.0, top = -1.0;
    int best = -1;
    for (double& l : logits) sum += std::exp(l - maxLogit);
    for (std::size_t k = 0; k < logits.size(); ++k)
        if (std::exp(logits[k] - maxLogit) / sum > top)
            top = std::exp(logits[k] - maxLogit) / sum, best = static_cast<int>(k);
    QCOMPARE(w.nextTokenChart()->barCount(), 10);
    QCOMPARE(v.nextTokens.front().id, best);
    QVERIFY(std::abs(static_cast<double>(v.nextTokens.front().prob) - top) < 1e-5);
}

void TestModelWindow::headViewExplainsEveryCell() {
    ModelWindow w;
    QVERIFY(openTiny(w));
    w.setText(QStringLiteral("abcde"));
    QVERIFY(w.session()->waitForIdle());
    w.selectHead(1, 1);
    QVERIFY(w.headPage());
    QCOMPARE(w.headPage()->matrixIds(), QStringList{QStringLiteral("layer-2-head-2")});
    const ref::Case& c = referenceCase(w.session()->view().ids);
    const attn::Matrix shown = w.headPage()->shownValues(QStringLiteral("layer-2-head-2"));
    const std::size_t offset = 3 * 25;  // layer 2 head 2 in [layer][head][q][k]
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j)
            QVERIFY(std::abs(shown(i, j) -
                             c.attentions[offset + static_cast<std::size_t>(i * 5 + j)]) < 2e-6f);
    // Every cell explains itself: q·k, /√head_dim (head_dim 4: √4 = 2) and the softmax.
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j <= i; ++j) {
            const QString text = w.headPage()->cellFormula(QStringLiteral("layer-2-head-2"), i, j);
            QVERIFY2(text.contains(QStringLiteral("exp")), qPrintable(text));
        }
    const QString formula = w.headPage()->explainCell(QStringLiteral("layer-2-head-2"), 2, 1);
    QVERIFY2(formula.contains(QStringLiteral("√")) || formula.contains(QStringLiteral("/ 2")),
             qPrintable(formula));
    // The lines view shows the chosen layer with the chosen head switched on.
    QCOMPARE(w.linesView()->headCount(), 2);
    QVERIFY(w.linesView()->headVisible(1));
    QVERIFY(!w.linesView()->headVisible(0));
}

void TestModelWindow::generatesThroughTheKvCache() {
    ModelWindow w;
    QVERIFY(openTiny(w));
    w.setText(QStringLiteral("abc"));
    QVERIFY(w.session()->waitForIdle());
    QCOMPARE(w.session()->view().ids, ref::kGreedyPrompt);
    QVERIFY(w.session()->generate(10));
    QVERIFY(w.session()->waitForIdle());
    const ModelSession::View& v = w.session()->view();
    std::vector<int> expected = ref::kGreedyPrompt;
    expected.insert(expected.end(), ref::kGreedyNewIds.begin(), ref::kGreedyNewIds.end());
    QCOMPARE(v.ids, expected);
    QCOMPARE(v.promptTokens, 3);
    QCOMPARE(w.tokenStrip()->tokenCount(), 13);
    // Every head's attention grew to 13 × 13, its generated rows from the cache equal to a
    // full pass.
    QCOMPARE(v.attentions[1][0].rows(), 13);
    QVERIFY(v.cachedVsFull >= 0.0f && v.cachedVsFull < 1e-5f);
    // kv_cache: 2 (K and V) × 2 layers × 13 tokens × n_embd 8 × 4 bytes.
    QCOMPARE(v.cacheBytes, std::int64_t{2 * 2 * 13 * 8 * 4});
    QVERIFY2(w.cacheLabel()->text().contains(QStringLiteral("1664 bytes")),
             qPrintable(w.cacheLabel()->text()));
    // Back to the text: the prompt's three tokens again.
    w.session()->resetGeneration();
    QVERIFY(w.session()->waitForIdle());
    QCOMPARE(w.session()->view().ids, ref::kGreedyPrompt);
}

void TestModelWindow::cancelAndErrors() {
    {
        // Closed while loading: the worker is cancelled and reports nothing to the deleted
        // window (the sanitize build checks it).
        ModelWindow closing;
        closing.openModel(model_);
    }
    ModelWindow w;
    // Cancel as soon as loading starts (a tiny model may otherwise be loaded before any
    // click could come).
    const auto cancelAtOnce =
        connect(w.session(), &ModelSession::loadingChanged, &w, [&](bool loading) {
            if (loading) w.session()->cancelLoad();
        });
    w.openModel(model_);
    disconnect(cancelAtOnce);
    QVERIFY(w.session()->waitForIdle());
    QCOMPARE(w.page(), ModelWindow::Page::Welcome);
    QCOMPARE(w.session()->source(), ModelSession::Source::None);
    QVERIFY(w.lastMessage().contains(QStringLiteral("cancelled")));

    // A folder that is not a model: the message names it, the window stays usable.
    QTemporaryDir empty;
    w.openModel(empty.path());
    QVERIFY(w.session()->waitForIdle());
    QCOMPARE(w.page(), ModelWindow::Page::Welcome);
    QVERIFY2(w.lastMessage().contains(QStringLiteral("config.json")), qPrintable(w.lastMessage()));
    QCOMPARE(w.shownError(), w.lastMessage());  // on screen above the page, no modal box
    w.openModel(QStringLiteral("no-such-model-anywhere"));
    QVERIFY(w.session()->waitForIdle());
    QVERIFY2(w.lastMessage().contains(QDir::toNativeSeparators(hub_)), qPrintable(w.lastMessage()));

    // More tokens than n_positions (16): an error naming both, no forward pass.
    QVERIFY(openTiny(w));
    QVERIFY(w.shownError().isEmpty());  // a model that opens clears the last error
    w.setText(QString(20, QLatin1Char('a')));
    QVERIFY(w.session()->waitForIdle());
    QVERIFY2(w.session()->error().contains(QStringLiteral("n_positions = 16")),
             qPrintable(w.session()->error()));
    QVERIFY(w.session()->view().attentions.empty());
    QVERIFY(!w.session()->generate(1));
}

void TestModelWindow::exports() {
    ModelWindow w;
    QVERIFY(openTiny(w));
    w.setText(QStringLiteral("abcde"));
    QVERIFY(w.session()->waitForIdle());
    w.selectHead(0, 1);
    QTemporaryDir out;
    QString error;
    views::FigureOptions options;
    options.format = views::FigureFormat::Csv;
    const QString csv = out.filePath(QStringLiteral("head.csv"));
    QVERIFY2(w.exportHead(csv, options, &error), qPrintable(error));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    // A header of the key tokens, then one row per query token: every weight of layer 1
    // head 2 as PyTorch printed it (the CSV keeps the float's shortest exact digits).
    const QStringList lines =
        QString::fromUtf8(file.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 6);
    QCOMPARE(lines.first(), QStringLiteral(",a,b,c,d,e"));
    const ref::Case& c = referenceCase(w.session()->view().ids);
    const std::size_t offset = 1 * 25;  // layer 1 head 2 in [layer][head][q][k]
    for (int i = 0; i < 5; ++i) {
        const QStringList cells = lines[i + 1].split(QLatin1Char(','));
        QCOMPARE(cells.size(), 6);
        QCOMPARE(cells.first(), QString(QLatin1Char("abcde"[i])));
        for (int j = 0; j < 5; ++j)
            QVERIFY2(std::abs(cells[j + 1].toFloat() -
                              c.attentions[offset + static_cast<std::size_t>(i * 5 + j)]) < 2e-6f,
                     qPrintable(lines[i + 1]));
    }

    options.format = views::FigureFormat::Png;
    const QString png = out.filePath(QStringLiteral("head.png"));
    QVERIFY2(w.exportHead(png, options, &error), qPrintable(error));
    QFile pngFile(png);
    QVERIFY(pngFile.open(QIODevice::ReadOnly));
    QVERIFY(pngFile.read(8).startsWith("\x89PNG"));

    options.format = views::FigureFormat::Pdf;
    const QString pdf = out.filePath(QStringLiteral("layer.pdf"));
    QVERIFY2(w.exportLayer(pdf, options, &error), qPrintable(error));
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    QVERIFY(pdfFile.read(5).startsWith("%PDF"));

    const QString chart = out.filePath(QStringLiteral("next.csv"));
    QVERIFY2(w.exportNextTokens(chart, views::FigureFormat::Csv, &error), qPrintable(error));
    QFile chartFile(chart);
    QVERIFY(chartFile.open(QIODevice::ReadOnly));
    const QString chartText = QString::fromUtf8(chartFile.readAll());
    QVERIFY2(chartText.contains(QString::number(w.session()->view().nextTokens.front().id)),
             qPrintable(chartText));

    // An unwritable place: a message, no file.
    QVERIFY(!w.exportHead(QStringLiteral("/proc/no/such/dir/x.png"), options, &error));
    QVERIFY(!error.isEmpty());
}

void TestModelWindow::exportDialogsRememberAndAsk() {
    ModelWindow w;
    QVERIFY(openTiny(w));
    w.setText(QStringLiteral("abcde"));
    QVERIFY(w.session()->waitForIdle());
    w.selectHead(0, 1);
    QAction* exportHead = actionNamed(w, QStringLiteral("Head figure…"));
    QAction* exportLayer = actionNamed(w, QStringLiteral("All heads of the layer as one figure…"));
    QAction* exportChart = actionNamed(w, QStringLiteral("Next-token chart…"));
    QVERIFY(exportHead && exportLayer && exportChart);
    QTemporaryDir out;
    QString error;
    views::FigureOptions csvOptions;
    csvOptions.format = views::FigureFormat::Csv;
    const QString direct = out.filePath(QStringLiteral("direct.csv"));
    QVERIFY2(w.exportHead(direct, csvOptions, &error), qPrintable(error));

    // Nothing remembered yet: a PNG named after the head. The user picks CSV and a folder.
    const QString path = out.filePath(QStringLiteral("layer-1-head-2.csv"));
    QString offered;
    answerModal<ExportDialog>(QDialog::Accepted, [&](ExportDialog* d) {
        offered = d->destination();
        d->formatBox()->setCurrentIndex(d->formatBox()->findData(int(views::FigureFormat::Csv)));
        d->setDestination(path);
    });
    exportHead->trigger();
    QCOMPARE(QFileInfo(offered).fileName(), QStringLiteral("layer-1-head-2.png"));
    // The head's weights, a row per query token, as the export without a dialog writes them.
    QVERIFY(readFileBytes(path).startsWith(",a,b,c,d,e\r\n"));
    QCOMPARE(readFileBytes(path).count("\r\n"), 6);
    QCOMPARE(readFileBytes(path), readFileBytes(direct));
    QCOMPARE(w.lastMessage(), QStringLiteral("Saved ") + QDir::toNativeSeparators(path));
    QCOMPARE(QSettings().value(QStringLiteral("model/export/folder")).toString(), out.path());

    // The next export offers that folder and format; the file there is kept unless the user
    // agrees to replace it.
    checkReplaceQuestion(exportHead, path);
    if (QTest::currentTestFailed()) return;
    QCOMPARE(readFileBytes(path), readFileBytes(direct));

    // The next-token chart, in the format remembered: one row per bar, the likeliest first.
    answerModal<ExportDialog>(QDialog::Accepted,
                              [&](ExportDialog* d) { offered = d->destination(); });
    exportChart->trigger();
    QCOMPARE(offered, out.filePath(QStringLiteral("next-tokens.csv")));
    const QString chart = QString::fromUtf8(readFileBytes(offered));
    const QStringList chartLines = chart.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    QVERIFY2(chartLines.size() >= 2, qPrintable(chart));
    QCOMPARE(chartLines[0], QStringLiteral("token,id,prob"));
    const QStringList top = chartLines[1].split(QLatin1Char(','));
    QCOMPARE(top.value(top.size() - 2), QString::number(w.session()->view().nextTokens.front().id));

    // Every head of the layer as one PDF.
    answerModal<ExportDialog>(QDialog::Accepted, [&](ExportDialog* d) {
        d->formatBox()->setCurrentIndex(d->formatBox()->findData(int(views::FigureFormat::Pdf)));
        offered = d->destination();
    });
    exportLayer->trigger();
    QCOMPARE(offered, out.filePath(QStringLiteral("layer-1-heads.pdf")));
    QVERIFY(readFileBytes(offered).startsWith("%PDF"));

    // A failure: a warning box, and the error stays above the page after it is closed.
    QString warning;
    answerModal<ExportDialog>(QDialog::Accepted, [&](ExportDialog* d) {
        d->setDestination(QStringLiteral("/proc/no/such/dir/x.pdf"));
        answerModal<QMessageBox>(QMessageBox::Ok, [&](QMessageBox* box) { warning = box->text(); });
    });
    exportHead->trigger();
    QVERIFY2(warning.contains(QStringLiteral("x.pdf")), qPrintable(warning));
    QCOMPARE(w.shownError(), warning);
}

void TestModelWindow::threadsMenuSetsTheEngine() {
    QCOMPARE(ThreadsMenu::offeredCounts(2), (std::vector<int>{1, 2}));
    QCOMPARE(ThreadsMenu::offeredCounts(12), (std::vector<int>{1, 2, 4, 8, 12}));
    ModelWindow w;
    QMenu* threads = nullptr;
    for (QMenu* m : w.findChildren<QMenu*>())
        if (m->title() == QStringLiteral("&Threads")) threads = m;
    QVERIFY(threads != nullptr);
    auto action = [&](const QString& text) -> QAction* {
        for (QAction* a : threads->actions())
            if (a->text() == text) return a;
        return nullptr;
    };
    const QString every = QStringLiteral("Every core (%1)").arg(attn::available_cores());
    QVERIFY(action(every) != nullptr);
    QVERIFY(action("1") != nullptr);
    action("1")->trigger();
    QCOMPARE(attn::engine_threads(), 1);
    QCOMPARE(QSettings().value("engine/threads").toInt(), 1);
    QVERIFY(action("1")->isChecked());
    // Remembered: the next start applies it before any window exists.
    attn::set_engine_threads(attn::available_cores());
    ThreadsMenu::applySaved();
    QCOMPARE(attn::engine_threads(), 1);
    action(every)->trigger();
    QCOMPARE(attn::engine_threads(), attn::available_cores());
    QCOMPARE(QSettings().value("engine/threads").toInt(), 0);
    QVERIFY(action(every)->isChecked() && !action("1")->isChecked());
}

QTEST_MAIN(TestModelWindow)
#include "test_model_window.moc"
