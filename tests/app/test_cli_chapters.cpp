// attention-cli's options for the chapters past the tutorial: compute
// --module multi-head-attention with --num-kv-heads, --mask, --window, --lengths, --rope,
// --rope-base and --position-offset against the committed PyTorch references, their config, an
// example file's config holding them, decode with K/V heads and RoPE, and every refusal.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "../reference/chapters_reference.h"
#include "cli_run.h"

namespace {

// Every number of a nested JSON array, in order; null (NaN in JSON) as NaN.
void flatten(const QJsonValue& v, std::vector<float>& out) {
    if (v.isArray()) {
        for (const QJsonValue& item : v.toArray()) flatten(item, out);
    } else if (v.isNull()) {
        out.push_back(std::nanf(""));
    } else {
        out.push_back(static_cast<float>(v.toDouble()));
    }
}

QString compare(const QJsonValue& got, const std::vector<float>& want, const char* what) {
    std::vector<float> values;
    flatten(got, values);
    if (values.size() != want.size()) {
        return QStringLiteral("%1: %2 values, expected %3 ")
            .arg(what)
            .arg(values.size())
            .arg(want.size());
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
        const bool bothNan = std::isnan(values[i]) && std::isnan(want[i]);
        if (!bothNan &&
            !(std::abs(values[i] - want[i]) <= 1e-5f * std::max(1.0f, std::abs(want[i])))) {
            return QStringLiteral("%1[%2] = %3, expected %4 ")
                .arg(what)
                .arg(i)
                .arg(static_cast<double>(values[i]))
                .arg(static_cast<double>(want[i]));
        }
    }
    return {};
}

const chapters_reference::Case& referenceCase(const char* name) {
    for (const chapters_reference::Case& c : chapters_reference::cases()) {
        if (QByteArray(c.name) == name) return c;
    }
    qFatal("no reference case %s", name);
}

QJsonObject computeJson(const QStringList& options, QString* error) {
    const CliRun run = runCli(QStringList{"compute", "--module", "multi-head-attention"} + options);
    if (run.exitCode != 0) {
        *error = QString::fromUtf8(run.err);
        return {};
    }
    return QJsonDocument::fromJson(run.out).object();
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly)) file.write(bytes);
    return path;
}

}  // namespace

class TestCliChapters : public QObject {
    Q_OBJECT

private slots:
    void matchesPyTorch_data() {
        QTest::addColumn<QString>("reference");
        QTest::addColumn<QStringList>("options");
        QTest::newRow("--num-kv-heads 2")
            << "gqa G = 2"
            << QStringList{"--d-out", "8", "--num-heads", "4", "--num-kv-heads", "2"};
        QTest::newRow("--num-kv-heads 1")
            << "mqa G = 1"
            << QStringList{"--d-out", "8", "--num-heads", "4", "--num-kv-heads", "1"};
        QTest::newRow("--mask window --window 2")
            << "window 2" << QStringList{"--d-out", "4", "--mask", "window", "--window", "2"};
        QTest::newRow("--mask bidirectional")
            << "bidirectional" << QStringList{"--d-out", "4", "--mask", "bidirectional"};
        QTest::newRow("--lengths 6,3,0")
            << "lengths 6,3,0" << QStringList{"--d-out", "4", "--lengths", "6,3,0"};
        QTest::newRow("--no-causal --lengths 4,6")
            << "bidirectional lengths 4,6"
            << QStringList{"--d-out", "4", "--no-causal", "--lengths", "4,6", "--batch", "2"};
        QTest::newRow("--rope") << "rope" << QStringList{"--d-out", "8", "--rope"};
        QTest::newRow("--rope --position-offset 5")
            << "rope offset 5" << QStringList{"--d-out", "8", "--rope", "--position-offset", "5"};
        QTest::newRow("--rope-base 100")
            << "rope base 100 offset 3 bidirectional"
            << QStringList{"--d-out",           "8", "--rope", "--rope-base",  "100",
                           "--position-offset", "3", "--mask", "bidirectional"};
        QTest::newRow("all with --dropout and --qkv-bias") << "gqa rope window lengths dropout bias"
                                                           << QStringList{"--seed",
                                                                          "7",
                                                                          "--d-out",
                                                                          "8",
                                                                          "--num-heads",
                                                                          "4",
                                                                          "--num-kv-heads",
                                                                          "2",
                                                                          "--mask",
                                                                          "window",
                                                                          "--window",
                                                                          "3",
                                                                          "--lengths",
                                                                          "6,4",
                                                                          "--rope",
                                                                          "--position-offset",
                                                                          "2",
                                                                          "--dropout",
                                                                          "0.5",
                                                                          "--qkv-bias"};
    }

    void matchesPyTorch() {
        QFETCH(QString, reference);
        QFETCH(QStringList, options);
        const chapters_reference::Case& c = referenceCase(reference.toUtf8().constData());
        QString error;
        const QJsonObject json = computeJson(options, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QString problems = compare(json.value("queries"), c.queries, "queries") +
                           compare(json.value("keys"), c.keys, "keys") +
                           compare(json.value("values"), c.values, "values") +
                           compare(json.value("attn_scores"), c.attn_scores, "attn_scores") +
                           compare(json.value("attn_weights"), c.attn_weights, "attn_weights") +
                           compare(json.value("context_vecs"), c.context_vecs, "context_vecs");
        if (c.dropout > 0.0f) {
            problems += compare(json.value("attn_weights_after_dropout"),
                                c.attn_weights_after_dropout, "attn_weights_after_dropout");
        }
        QVERIFY2(problems.isEmpty(), qPrintable(problems));

        const QJsonObject config = json.value("config").toObject();
        QCOMPARE(config.value("num_kv_heads").toInt(), c.num_kv_heads);
        QCOMPARE(config.value("mask").toString(), QString::fromLatin1(c.mask));
        QCOMPARE(config.value("rope").toBool(), c.rope);
        QCOMPARE(config.contains("window"), c.window > 0);
        QCOMPARE(config.value("window").toInt(), c.window);
        QJsonArray lengths;
        for (int l : c.lengths) lengths.append(l);
        QCOMPARE(config.value("lengths").toArray(), lengths);
        QCOMPARE(config.value("batch").toInt(), c.lengths.empty() ? 1 : int(c.lengths.size()));
        QCOMPARE(config.contains("rope_base"), c.rope);
        if (c.rope) {
            QCOMPARE(config.value("rope_base").toDouble(), static_cast<double>(c.rope_base));
            QCOMPARE(config.value("position_offset").toInt(), c.position_offset);
        }
    }

    // A file's config may hold every new setting; run as given, the same numbers as the options.
    void exampleFileConfig() {
        const CliRun withOptions = runCli({"compute",
                                           "--module",
                                           "multi-head-attention",
                                           "--seed",
                                           "7",
                                           "--d-out",
                                           "8",
                                           "--num-heads",
                                           "4",
                                           "--num-kv-heads",
                                           "2",
                                           "--mask",
                                           "window",
                                           "--window",
                                           "3",
                                           "--lengths",
                                           "6,4",
                                           "--rope",
                                           "--position-offset",
                                           "2",
                                           "--dropout",
                                           "0.5",
                                           "--qkv-bias"});
        QCOMPARE(withOptions.exitCode, 0);
        const QJsonObject printed = QJsonDocument::fromJson(withOptions.out).object();
        QTemporaryDir dir;
        QJsonObject file;
        file.insert("format", "attention-visualizer-example");
        file.insert("version", 1);
        file.insert("tokens", printed.value("tokens"));
        QJsonArray embeddings{QJsonArray{0.43, 0.15, 0.89}, QJsonArray{0.55, 0.87, 0.66},
                              QJsonArray{0.57, 0.85, 0.64}, QJsonArray{0.22, 0.58, 0.33},
                              QJsonArray{0.77, 0.25, 0.10}, QJsonArray{0.05, 0.80, 0.55}};
        file.insert("embeddings", embeddings);
        file.insert("config", printed.value("config"));
        const QString path =
            writeFile(dir, "chapters.json", QJsonDocument(file).toJson(QJsonDocument::Compact));
        const CliRun fromFile = runCli({"compute", "--input", path});
        QVERIFY2(fromFile.exitCode == 0, fromFile.err.constData());
        const QJsonObject again = QJsonDocument::fromJson(fromFile.out).object();
        QCOMPARE(again.value("config"), printed.value("config"));
        QCOMPARE(again.value("context_vecs"), printed.value("context_vecs"));
        QCOMPARE(again.value("attn_weights_after_dropout"),
                 printed.value("attn_weights_after_dropout"));
        // The options override the file: --mask causal takes the window away.
        const CliRun causal = runCli({"compute", "--input", path, "--mask", "causal"});
        QVERIFY2(causal.exitCode == 0, causal.err.constData());
        const QJsonObject causalConfig =
            QJsonDocument::fromJson(causal.out).object().value("config").toObject();
        QCOMPARE(causalConfig.value("mask").toString(), QStringLiteral("causal"));
        QVERIFY(!causalConfig.contains("window"));
    }

    void badExampleFileConfig_data() {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QString>("message");
        QTest::newRow("mask") << QByteArray(R"({"module":"multi-head-attention","mask":"sliding"})")
                              << "config \"mask\" is the string \"sliding\": give \"causal\", "
                                 "\"bidirectional\" or \"window\"";
        QTest::newRow("window without mask")
            << QByteArray(R"({"module":"multi-head-attention","window":2})")
            << "config \"window\" is 2 but \"mask\" is not \"window\": add \"mask\": \"window\" "
               "or remove the window";
        QTest::newRow("mask window without width")
            << QByteArray(R"({"module":"multi-head-attention","mask":"window"})")
            << "config \"mask\" is \"window\" without a width: add \"window\": W (W >= 1)";
        QTest::newRow("mask against causal")
            << QByteArray(
                   R"({"module":"multi-head-attention","mask":"bidirectional","causal":true})")
            << "config \"mask\" is \"bidirectional\" but \"causal\" is true: give one of them, "
               "or make them agree";
        QTest::newRow("lengths not a list")
            << QByteArray(R"({"module":"multi-head-attention","lengths":6})")
            << "config \"lengths\" is the number 6, not a list of sequence lengths such as [6, 4]";
        QTest::newRow("rope not a bool")
            << QByteArray(R"({"module":"multi-head-attention","rope":1})")
            << "config \"rope\" is the number 1: give true or false";
        QTest::newRow("rope_base 1")
            << QByteArray(R"({"module":"multi-head-attention","rope":true,"rope_base":1})")
            << "config \"rope_base\" is the number 1: give a number above 1 such as 10000";
        QTest::newRow("lengths count against batch")
            << QByteArray(R"({"module":"multi-head-attention","lengths":[6,4]})")
            << "2 lengths but batch = 1: give one length per sequence (their count is the batch)";
    }

    void badExampleFileConfig() {
        QFETCH(QByteArray, config);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path =
            writeFile(dir, "bad.json",
                      R"({"format":"attention-visualizer-example","version":1,"tokens":["a","b"],)"
                      R"("embeddings":[[1,2,3],[4,5,6]],"config":)" +
                          config + "}");
        const CliRun run = runCli({"compute", "--input", path});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        const QString err = QString::fromUtf8(run.err).trimmed();
        QVERIFY2(err.endsWith(message), qPrintable(err));
    }

    void decodeWithKvHeadsAndRope() {
        const CliRun run =
            runCli({"decode", "--module", "multi-head-attention", "--length", "7", "--d-model", "8",
                    "--num-heads", "4", "--num-kv-heads", "2", "--rope", "--rope-base", "500"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject json = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(json.value("num_kv_heads").toInt(), 2);
        QCOMPARE(json.value("rope").toBool(), true);
        QCOMPARE(json.value("rope_base").toDouble(), 500.0);
        QVERIFY(json.value("max_abs_diff").toDouble() < 1e-5);
        const QJsonArray steps = json.value("steps").toArray();
        QCOMPARE(steps.size(), 7);
        // 2 tensors × 2 K/V heads × 7 tokens × head_dim 2 × 4 bytes; one weight row per query head.
        QCOMPARE(steps.last().toObject().value("cache_bytes").toInt(), 2 * 2 * 7 * 2 * 4);
        QCOMPARE(steps.last().toObject().value("attn_weights").toArray().size(), 4);
        // Without sharing the cache is twice as large.
        const CliRun mha = runCli({"decode", "--module", "multi-head-attention", "--length", "7",
                                   "--d-model", "8", "--num-heads", "4"});
        const QJsonArray mhaSteps =
            QJsonDocument::fromJson(mha.out).object().value("steps").toArray();
        QCOMPARE(mhaSteps.last().toObject().value("cache_bytes").toInt(), 2 * 4 * 7 * 2 * 4);
    }

    void errors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QStringList mha{"compute", "--module", "multi-head-attention"};
        QTest::newRow("kv heads do not divide")
            << mha + QStringList{"--num-kv-heads", "3"}
            << "num_kv_heads = 3 does not divide num_heads = 2: give a divisor of num_heads "
               "(num_heads is multi-head attention, 1 is multi-query)";
        QTest::newRow("kv heads 0") << mha + QStringList{"--num-kv-heads", "0"}
                                    << "--num-kv-heads 0 is outside 1..16384: give a whole "
                                       "number in that range";
        QTest::newRow("unknown mask") << mha + QStringList{"--mask", "sliding"}
                                      << "--mask \"sliding\": give causal, bidirectional or window";
        QTest::newRow("mask causal --no-causal")
            << mha + QStringList{"--mask", "causal", "--no-causal"}
            << "--mask causal and --no-causal contradict each other: choose one";
        QTest::newRow("mask bidirectional --causal")
            << mha + QStringList{"--mask", "bidirectional", "--causal"}
            << "--mask bidirectional and --causal contradict each other: choose one";
        QTest::newRow("mask window --no-causal")
            << mha + QStringList{"--mask", "window", "--window", "2", "--no-causal"}
            << "--mask window and --no-causal contradict each other: choose one";
        QTest::newRow("window without mask") << mha + QStringList{"--window", "2"}
                                             << "--window needs --mask window: add --mask window";
        QTest::newRow("window with mask causal")
            << mha + QStringList{"--mask", "causal", "--window", "2"}
            << "--window needs --mask window, not --mask causal";
        QTest::newRow("mask window without width")
            << mha + QStringList{"--mask", "window"}
            << "--mask window needs --window W, the number of tokens each query sees (W >= 1)";
        QTest::newRow("window 0") << mha + QStringList{"--mask", "window", "--window", "0"}
                                  << "--window 0 is outside 1..1048576: give a whole number in "
                                     "that range";
        QTest::newRow("length above T")
            << mha + QStringList{"--lengths", "6,7"}
            << "length 7 is outside [0, 6]: each sequence has at most the input's 6 tokens";
        QTest::newRow("length not a number")
            << mha + QStringList{"--lengths", "6,x"}
            << "--lengths: \"x\" is not a length: give one number of tokens per sequence, e.g. "
               "--lengths 6,4";
        QTest::newRow("negative length")
            << mha + QStringList{"--lengths", "-1"}
            << "--lengths: \"-1\" is not a length: give one number of tokens per sequence, e.g. "
               "--lengths 6,4";
        QTest::newRow("lengths against batch")
            << mha + QStringList{"--lengths", "6,4", "--batch", "3"}
            << "--batch 3 but --lengths has 2 values: their count is the batch, so leave --batch "
               "out or make them agree";
        QTest::newRow("empty lengths") << mha + QStringList{"--lengths", ""}
                                       << "--lengths is empty: give a comma-separated list, e.g. "
                                          "--lengths 6,4";
        QTest::newRow("rope odd head_dim")
            << mha + QStringList{"--d-out", "6", "--rope"}
            << "rope needs an even head_dim but d_out / num_heads = 6 / 2 = 3: RoPE rotates "
               "coordinate pairs; choose d_out and num_heads so that head_dim is even";
        QTest::newRow("rope-base without rope")
            << mha + QStringList{"--rope-base", "500"}
            << "rope_base applies only with rope: turn rope on or leave it unset";
        QTest::newRow("position-offset without rope")
            << mha + QStringList{"--position-offset", "3"}
            << "position_offset applies only with rope: turn rope on or leave it unset";
        QTest::newRow("rope-base not a number")
            << mha + QStringList{"--rope", "--rope-base", "big"}
            << "--rope-base \"big\": give a number above 1, e.g. 10000";
        QTest::newRow("rope-base 1") << mha + QStringList{"--rope", "--rope-base", "1"}
                                     << "--rope-base \"1\": give a number above 1, e.g. 10000";
        QTest::newRow("negative offset")
            << mha + QStringList{"--rope", "--position-offset", "-1"}
            << "--position-offset -1 is outside 0..16777216: give a whole number in that range";
        QTest::newRow("kv heads on another module")
            << QStringList{"compute", "--module", "multi-head-wrapper", "--num-kv-heads", "1"}
            << "num_kv_heads does not apply to multi-head-wrapper: only multi-head-attention has "
               "K/V head sharing, window and padding masks and RoPE; leave it unset";
        QTest::newRow("lengths on another module")
            << QStringList{"compute", "--module", "causal-attention", "--lengths", "6"}
            << "lengths does not apply to causal-attention: only multi-head-attention has K/V "
               "head sharing, window and padding masks and RoPE; leave it unset";
        QTest::newRow("rope on another module")
            << QStringList{"compute", "--module", "gpt2-attention", "--rope"}
            << "rope does not apply to gpt2-attention: only multi-head-attention has K/V head "
               "sharing, window and padding masks and RoPE; leave it unset";
        QTest::newRow("mask on another module")
            << QStringList{"compute", "--module", "self-attention-v2", "--mask", "bidirectional"}
            << "--mask does not apply to self-attention-v2: only multi-head-attention has window "
               "and bidirectional masks; use --causal or --no-causal";
        QTest::newRow("decode kv heads on gpt2")
            << QStringList{"decode",         "--module", "gpt2-attention", "--length", "3",
                           "--num-kv-heads", "1"}
            << "--num-kv-heads does not apply to gpt2-attention: only multi-head-attention has "
               "K/V head sharing and RoPE";
        QTest::newRow("decode rope on gpt2")
            << QStringList{"decode", "--module", "gpt2-attention", "--length", "3", "--rope"}
            << "--rope does not apply to gpt2-attention: only multi-head-attention has K/V head "
               "sharing and RoPE";
        QTest::newRow("decode kv heads do not divide")
            << QStringList{"decode",         "--module", "multi-head-attention", "--length", "3",
                           "--num-kv-heads", "3"}
            << "num_kv_heads = 3 does not divide num_heads = 2: give a divisor of num_heads "
               "(num_heads for multi-head, 1 for multi-query)";
        QTest::newRow("decode rope-base without rope")
            << QStringList{"decode",      "--module", "multi-head-attention", "--length", "3",
                           "--rope-base", "100"}
            << "--rope-base applies only with --rope: add --rope";
        QTest::newRow("decode rope odd head_dim")
            << QStringList{"decode",   "--module", "multi-head-attention",
                           "--length", "3",        "--d-model",
                           "6",        "--rope"}
            << "RoPE needs an even head_dim but head_dim = 3: it rotates coordinate pairs (i, i + "
               "head_dim/2); choose d_out and num_heads so that d_out / num_heads is even";
    }

    void errors() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliRun run = runCli(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        QCOMPARE(QString::fromUtf8(run.err).trimmed(),
                 QStringLiteral("attention-cli: %1: %2").arg(args.first(), message));
    }
};

QTEST_GUILESS_MAIN(TestCliChapters)
#include "test_cli_chapters.moc"
