// A tiny random GPT-2 written as Hugging Face saves it, read back by the loader and run by the
// engine, gives PyTorch's attentions and logits (tests/reference/gpt2_model_reference.py): in
// F32, F16 and BF16, in one file, with GPT2LMHeadModel's names and in two shards.
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "app/io/model_folder.h"
#include "tests/support/model_test_folder.h"
#include "model/generator.h"
#include "model/transformer.h"
#include "tests/support/model_test_weights.h"
#include "tests/reference/gpt2_model_reference.h"

class TestGpt2ModelFolder : public QObject {
    Q_OBJECT

private slots:
    void matchesPyTorch_data();
    void matchesPyTorch();
};

void TestGpt2ModelFolder::matchesPyTorch_data() {
    QTest::addColumn<int>("caseIndex");
    QTest::addColumn<int>("layout");
    const char* layouts[] = {"plain", "prefixed", "sharded"};
    for (std::size_t i = 0; i < gpt2_model_reference::kCases.size(); ++i) {
        const auto& c = gpt2_model_reference::kCases[i];
        for (int l = 0; l < 3; ++l)
            QTest::addRow("%s T=%zu %s", c.name, c.ids.size(), layouts[l])
                << static_cast<int>(i) << l;
    }
}

void TestGpt2ModelFolder::matchesPyTorch() {
    QFETCH(int, caseIndex);
    QFETCH(int, layout);
    const auto& c = gpt2_model_reference::kCases[static_cast<std::size_t>(caseIndex)];
    const attn::TransformerWeights written =
        attn::make_random_weights(attn::tiny_gpt2_spec(c.tied), gpt2_model_reference::kSeed);
    QTemporaryDir dir;
    QString error;
    // The writer rounds to F16/BF16 as torch's .half() / .bfloat16() do.
    QVERIFY2(model_test::writeFolder(dir.path(), written, QString::fromLatin1(c.dtype),
                                    static_cast<model_test::Layout>(layout), &error),
             qPrintable(error));
    const attn::ModelLoadResult loaded = attn::loadModelFolder(dir.path());
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    QCOMPARE(QString::fromStdString(loaded.weights->dtype), QString::fromLatin1(c.dtype));
    QCOMPARE(loaded.weights->spec.tied_output, c.tied);

    attn::ModelForwardOptions options;
    options.all_logits = true;
    const attn::ModelForwardResult result = attn::model_forward(*loaded.weights, c.ids, options);
    const auto t = static_cast<Eigen::Index>(c.ids.size());
    std::size_t k = 0;
    float worst = 0.0f;
    for (const auto& layer : result.attentions)
        for (const attn::Matrix& head : layer)
            for (Eigen::Index r = 0; r < t; ++r)
                for (Eigen::Index col = 0; col < t; ++col, ++k)
                    worst = std::max(worst, std::abs(head(r, col) - c.attentions.at(k)));
    QCOMPARE(k, c.attentions.size());
    QVERIFY2(worst <= 1e-5f, qPrintable(QString::number(static_cast<double>(worst))));
    QCOMPARE(static_cast<std::size_t>(result.logits.size()), c.logits.size());
    for (std::size_t i = 0; i < c.logits.size(); ++i) {
        const float got = result.logits.data()[i];
        const float want = c.logits[i];
        QVERIFY2(std::abs(got - want) <= 1e-5f * std::max(1.0f, std::abs(want)),
                 qPrintable(QStringLiteral("logit %1: %2 vs %3").arg(i).arg(got).arg(want)));
    }
}

QTEST_GUILESS_MAIN(TestGpt2ModelFolder)
#include "test_gpt2_model_folder.moc"
