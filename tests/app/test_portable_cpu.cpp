// One build runs on any x86-64 CPU: nothing of ours is compiled for the build machine's CPU, and
// OpenBLAS picks its kernels for the CPU it finds. attention-cli runs under qemu-x86_64 emulating
// older and other processors (a 2006 Core 2 with SSSE3 only, Nehalem's SSE4.2, Haswell's AVX2)
// without an illegal instruction, and gives the same model output as on this machine up to the
// rounding of the kernels each CPU gets: the displayed path, the fast path (whose attention
// kernels come in AVX-512, AVX2 and BLAS versions) and decoding.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "cli_run.h"
#include "tests/support/model_test_folder.h"
#include "tests/support/model_test_weights.h"

#ifndef ATTN_QEMU_X86_64
#error "ATTN_QEMU_X86_64 must name qemu-x86_64 (see tests/app/CMakeLists.txt)"
#endif

class TestPortableCpu : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void forwardOnOtherCpus_data();
    void forwardOnOtherCpus();

private:
    QJsonObject forward(const QStringList& launcher, const QStringList& extra = {"--logits"});
    QJsonObject generate(const QStringList& launcher);
    QTemporaryDir dir_;
    QString model_;
    QJsonObject native_, nativeSummary_, nativeGenerate_;
};

void TestPortableCpu::initTestCase() {
    QVERIFY(dir_.isValid());
    model_ = dir_.filePath(QStringLiteral("gpt2"));
    // Wide enough (64, 40 tokens) that the products run OpenBLAS's blocked kernels, not its
    // small-matrix paths.
    const attn::TransformerWeights weights =
        attn::make_random_weights(attn::gpt2_spec(2, 4, 64, 64, 50257, 256), 11);
    QString error;
    QVERIFY2(model_test::writeFolder(model_, weights, QStringLiteral("F32"),
                                     model_test::Layout::Plain, &error),
             qPrintable(error));
    QVERIFY(model_test::copyTokenizer(model_, QStringLiteral(ATTN_GPT2_TOKENIZER_DIR)));
    native_ = forward({});
    nativeSummary_ = forward({}, {"--summary"});
    nativeGenerate_ = generate({});
    QCOMPARE(native_.value("next_tokens").toArray().size(), 5);
    QCOMPARE(nativeGenerate_.value("new_ids").toArray().size(), 8);
}

// forward over 40 ids: with --logits every intermediate (the displayed path), with --summary the
// fast path (the attention kernels chosen for the CPU: AVX-512, AVX2 or the BLAS's).
QJsonObject TestPortableCpu::forward(const QStringList& launcher, const QStringList& extra) {
    QStringList ids;
    for (int i = 0; i < 40; ++i) ids << QString::number((i * 1237) % 50257);
    const CliRun r = runCli(
        QStringList{"forward", "--model", model_, "--ids", ids.join(','), "--threads", "2"} + extra,
        0, 600000, QString(), launcher);
    [&] { QVERIFY2(r.exitCode == 0, r.err.constData()); }();
    return QJsonDocument::fromJson(r.out).object();
}

// Greedy decoding through the kv_cache: matrix-vector products, single-query attention.
QJsonObject TestPortableCpu::generate(const QStringList& launcher) {
    const CliRun r = runCli({"generate", "--model", model_, "--text", "Your journey starts with",
                             "--max-new-tokens", "8", "--threads", "2"},
                            0, 600000, QString(), launcher);
    [&] { QVERIFY2(r.exitCode == 0, r.err.constData()); }();
    return QJsonDocument::fromJson(r.out).object();
}

void TestPortableCpu::forwardOnOtherCpus_data() {
    QTest::addColumn<QString>("cpu");
    QTest::newRow("Core 2 (SSSE3)") << QStringLiteral("Conroe");
    QTest::newRow("Nehalem (SSE4.2)") << QStringLiteral("Nehalem");
    QTest::newRow("Haswell (AVX2)") << QStringLiteral("Haswell");
    QTest::newRow("EPYC Rome (AVX2, AMD)") << QStringLiteral("EPYC-Rome");
}

void TestPortableCpu::forwardOnOtherCpus() {
    QFETCH(QString, cpu);
    const QJsonObject emulated = forward({QStringLiteral(ATTN_QEMU_X86_64), "-cpu", cpu});
    const QJsonArray a = emulated.value("next_tokens").toArray();
    const QJsonArray b = native_.value("next_tokens").toArray();
    QCOMPARE(a.size(), 5);
    for (qsizetype i = 0; i < a.size(); ++i)
        QCOMPARE(a[i].toObject().value("id"), b[i].toObject().value("id"));
    // Every logit of every position, and every attention weight, within float rounding.
    const QJsonArray la = emulated.value("logits").toArray();
    const QJsonArray lb = native_.value("logits").toArray();
    QCOMPARE(la.size(), 40);
    double worst = 0.0;
    for (qsizetype t = 0; t < la.size(); ++t) {
        const QJsonArray ra = la[t].toArray(), rb = lb[t].toArray();
        QCOMPARE(ra.size(), qsizetype{50257});
        for (qsizetype v = 0; v < ra.size(); ++v)
            worst = std::max(worst, std::abs(ra[v].toDouble() - rb[v].toDouble()) /
                                        std::max(1.0, std::abs(rb[v].toDouble())));
    }
    QVERIFY2(worst <= 1e-4, qPrintable(QString::number(worst)));
    // [layer][head][query][key]: 2 × 4 × 40 × 40 weights.
    const QJsonArray aa = emulated.value("attentions").toArray();
    const QJsonArray ab = native_.value("attentions").toArray();
    QCOMPARE(aa.size(), 2);
    double worstWeight = 0.0;
    qsizetype cells = 0;
    for (qsizetype l = 0; l < aa.size(); ++l)
        for (qsizetype h = 0; h < 4; ++h)
            for (qsizetype q = 0; q < 40; ++q)
                for (qsizetype k = 0; k < 40; ++k, ++cells)
                    worstWeight = std::max(worstWeight, std::abs(aa[l][h][q][k].toDouble(-1) -
                                                                 ab[l][h][q][k].toDouble(-2)));
    QCOMPARE(cells, qsizetype{2 * 4 * 40 * 40});
    QVERIFY2(worstWeight <= 1e-5, qPrintable(QString::number(worstWeight)));

    // The fast path: the same five tokens, their probabilities within float rounding.
    const QJsonArray fa = forward({QStringLiteral(ATTN_QEMU_X86_64), "-cpu", cpu}, {"--summary"})
                              .value("next_tokens")
                              .toArray();
    const QJsonArray fb = nativeSummary_.value("next_tokens").toArray();
    QCOMPARE(fa.size(), 5);
    for (qsizetype i = 0; i < fa.size(); ++i) {
        QCOMPARE(fa[i].toObject().value("id"), fb[i].toObject().value("id"));
        const double pa = fa[i].toObject().value("prob").toDouble();
        const double pb = fb[i].toObject().value("prob").toDouble();
        QVERIFY2(std::abs(pa - pb) <= 1e-5 * pb + 1e-9, qPrintable(QString::number(pa - pb)));
    }
    // Decoding: the same greedy tokens.
    const QJsonObject g = generate({QStringLiteral(ATTN_QEMU_X86_64), "-cpu", cpu});
    QCOMPARE(g.value("new_ids"), nativeGenerate_.value("new_ids"));
    QVERIFY(g.value("max_abs_diff_vs_full_pass").toDouble(1) <= 1e-4);
}

QTEST_GUILESS_MAIN(TestPortableCpu)
#include "test_portable_cpu.moc"
