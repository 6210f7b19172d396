// attention-cli end to end: the built executable runs in a child process; its JSON must parse and
// equal run_module's result number for number, print the tutorial's values, and every bad
// argument must end with status 2, a message on stderr and nothing on stdout.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <vector>

#include "app/io/example_file.h"
#include "cli_run.h"
#include "model/examples.h"
#include "model/kv_trace.h"
#include "model/runner.h"

namespace {

// Reads a JSON list of rows; null (NaN/Inf in the output) becomes NaN.
attn::Matrix toMatrix(const QJsonArray& rows) {
    const qsizetype cols = rows.isEmpty() ? 0 : rows.at(0).toArray().size();
    attn::Matrix m(rows.size(), cols);
    for (qsizetype i = 0; i < rows.size(); ++i) {
        const QJsonArray row = rows.at(i).toArray();
        if (row.size() != cols) {
            return attn::Matrix();
        }
        for (qsizetype j = 0; j < cols; ++j) {
            m(i, j) = row.at(j).isNull() ? NAN : static_cast<float>(row.at(j).toDouble());
        }
    }
    return m;
}

attn::Matrix toRowMatrix(const QJsonArray& row) { return toMatrix(QJsonArray{row}); }

QJsonObject parseOutput(const CliRun& run) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(run.out, &error);
    return error.error == QJsonParseError::NoError ? doc.object() : QJsonObject();
}

// Compares the CLI's JSON with the library's result; empty when equal, otherwise what differs.
// Floats must be equal exactly: the output's digits read back as the same floats.
QString differences(const QJsonObject& json, const attn::RunResult& expected,
                    const attn::Sequence& inputs) {
    QStringList problems;
    const attn::ModuleOutput& out = expected.output;
    const QJsonArray contexts = json.value(QStringLiteral("context_vecs")).toArray();
    const QJsonArray weights = json.value(QStringLiteral("attn_weights")).toArray();
    const QJsonArray scores = json.value(QStringLiteral("attn_scores")).toArray();
    if (contexts.size() != static_cast<qsizetype>(out.context_vecs.size()) ||
        weights.size() != static_cast<qsizetype>(out.heads.size())) {
        return QStringLiteral("batch sizes differ");
    }
    for (std::size_t b = 0; b < out.context_vecs.size(); ++b) {
        const qsizetype bi = static_cast<qsizetype>(b);
        if (toMatrix(contexts.at(bi).toArray()) != out.context_vecs[b]) {
            problems << QStringLiteral("context_vecs[%1]").arg(b);
        }
        for (const char* name : {"queries", "keys", "values"}) {
            const attn::Batch& batch = QLatin1String(name) == QLatin1String("queries") ? out.queries
                                       : QLatin1String(name) == QLatin1String("keys")  ? out.keys
                                                                                       : out.values;
            if (toMatrix(json.value(QLatin1String(name)).toArray().at(bi).toArray()) != batch[b]) {
                problems << QStringLiteral("%1[%2]").arg(QLatin1String(name)).arg(b);
            }
        }
        const QJsonArray heads = weights.at(bi).toArray();
        if (heads.size() != static_cast<qsizetype>(out.heads[b].size())) {
            problems << QStringLiteral("number of heads");
            continue;
        }
        for (std::size_t h = 0; h < out.heads[b].size(); ++h) {
            const qsizetype hi = static_cast<qsizetype>(h);
            // With a head_mask the weights are printed masked, as output_attentions has them.
            const std::vector<float>& mask = expected.config.head_mask;
            const float factor = h < mask.size() ? mask[h] : 1.0f;
            if (toMatrix(heads.at(hi).toArray()) !=
                attn::Matrix(out.heads[b][h].weights * factor)) {
                problems << QStringLiteral("attn_weights[%1][%2]").arg(b).arg(h);
            }
            if (toMatrix(scores.at(bi).toArray().at(hi).toArray()) != out.heads[b][h].scores) {
                problems << QStringLiteral("attn_scores[%1][%2]").arg(b).arg(h);
            }
            if (expected.training &&
                toMatrix(json.value(QStringLiteral("attn_weights_after_dropout"))
                             .toArray()
                             .at(bi)
                             .toArray()
                             .at(hi)
                             .toArray()) != out.heads[b][h].dropped) {
                problems << QStringLiteral("attn_weights_after_dropout[%1][%2]").arg(b).arg(h);
            }
        }
    }
    const QJsonObject jsonWeights = json.value(QStringLiteral("weights")).toObject();
    if (jsonWeights.size() != static_cast<qsizetype>(expected.weights.size())) {
        problems << QStringLiteral("number of weights");
    }
    for (const attn::NamedMatrix& w : expected.weights) {
        const QJsonValue v = jsonWeights.value(QString::fromStdString(w.name));
        const attn::Matrix m = w.is_vector ? toRowMatrix(v.toArray()) : toMatrix(v.toArray());
        if (m != w.value) {
            problems << QStringLiteral("weights %1").arg(QString::fromStdString(w.name));
        }
    }
    const QJsonObject config = json.value(QStringLiteral("config")).toObject();
    if (config.value(QStringLiteral("module")).toString().toStdString() !=
            attn::module_name(*expected.config.module) ||
        config.value(QStringLiteral("d_out")).toInteger() != expected.config.d_out ||
        config.value(QStringLiteral("num_heads")).toInteger() != expected.config.num_heads ||
        config.value(QStringLiteral("batch")).toInteger() != expected.config.batch ||
        config.value(QStringLiteral("head_mask")).toArray().size() !=
            static_cast<qsizetype>(expected.config.head_mask.size()) ||
        config.value(QStringLiteral("prune_heads")).toArray().size() !=
            static_cast<qsizetype>(expected.config.prune_heads.size()) ||
        config.value(QStringLiteral("seed")).toInteger() !=
            static_cast<qint64>(expected.config.seed) ||
        static_cast<float>(config.value(QStringLiteral("dropout")).toDouble()) !=
            expected.config.dropout ||
        json.value(QStringLiteral("training")).toBool() != expected.training) {
        problems << QStringLiteral("config");
    }
    QJsonArray tokens;
    for (const std::string& t : inputs.tokens) {
        tokens.append(QString::fromStdString(t));
    }
    if (json.value(QStringLiteral("tokens")).toArray() != tokens) {
        problems << QStringLiteral("tokens");
    }
    return problems.join(QStringLiteral(", "));
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly)) {
        file.write(bytes);
    }
    return path;
}

}  // namespace

using Configure = void (*)(attn::ModuleConfig&);
Q_DECLARE_METATYPE(Configure)

class TestCli : public QObject {
    Q_OBJECT

private slots:
    void computeMatchesLibrary_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<Configure>("configure");
        for (const std::string& name : attn::module_names()) {
            QTest::newRow(name.c_str())
                << QStringList{QStringLiteral("--module"), QString::fromStdString(name)}
                << Configure([](attn::ModuleConfig&) {});
        }
        QTest::newRow("mha d_out 4, batch 2, qkv bias, seed 5")
            << QStringList{"--module",
                           "multi-head-attention",
                           "--d-out",
                           "4",
                           "--num-heads",
                           "2",
                           "--batch",
                           "2",
                           "--qkv-bias",
                           "--seed",
                           "5"}
            << Configure([](attn::ModuleConfig& c) {
                   c.d_out = 4;
                   c.num_heads = 2;
                   c.batch = 2;
                   c.qkv_bias = true;
                   c.seed = 5;
               });
        QTest::newRow("causal, dropout 0.5 (training), context 10")
            << QStringList{"--module", "causal-attention", "--dropout",
                           "0.5",      "--context-length", "10"}
            << Configure([](attn::ModuleConfig& c) {
                   c.dropout = 0.5f;
                   c.context_length = 10;
               });
        QTest::newRow("wrapper, 3 heads of 1")
            << QStringList{"--module", "multi-head-wrapper", "--num-heads", "3", "--d-out", "1"}
            << Configure([](attn::ModuleConfig& c) {
                   c.num_heads = 3;
                   c.d_out = 1;
               });
        // explore mode's switches
        QTest::newRow("mha --no-causal --no-scale")
            << QStringList{"--module", "multi-head-attention", "--no-causal", "--no-scale"}
            << Configure([](attn::ModuleConfig& c) {
                   c.causal = false;
                   c.scale = false;
               });
        QTest::newRow("bert --causal, mask == 1, fill -1e4")
            << QStringList{"--module", "bert-multi-head", "--causal", "--mask-convention",
                           "one",      "--fill",          "-1e4"}
            << Configure([](attn::ModuleConfig& c) {
                   c.causal = true;
                   c.mask_convention = attn::MaskConvention::FillWhereOne;
                   c.fill_value = -1e4f;
               });
        QTest::newRow("v2 --causal --fill -inf")
            << QStringList{"--module", "self-attention-v2", "--causal", "--fill", "-inf"}
            << Configure([](attn::ModuleConfig& c) {
                   c.causal = true;
                   c.fill_value = attn::kNegInf;
               });
        // seed 003: keys and values of different widths
        QTest::newRow("self-attention-kv dim_k 2, dim_v 4, batch 2")
            << QStringList{"--module", "self-attention-kv", "--dim-k", "2", "--dim-v",
                           "4",        "--batch",           "2"}
            << Configure([](attn::ModuleConfig& c) {
                   c.dim_k = 2;
                   c.dim_v = 4;
                   c.batch = 2;
               });
        QTest::newRow("multi-head-self-attention-kv dim_k 6, dim_v 9, 3 heads")
            << QStringList{"--module",    "multi-head-self-attention-kv",
                           "--dim-k",     "6",
                           "--dim-v",     "9",
                           "--num-heads", "3"}
            << Configure([](attn::ModuleConfig& c) {
                   c.dim_k = 6;
                   c.dim_v = 9;
                   c.num_heads = 3;
               });
        QTest::newRow("gpt2, 3 heads, dropout 0.2")
            << QStringList{"--module", "gpt2-attention", "--num-heads", "3", "--dropout", "0.2"}
            << Configure([](attn::ModuleConfig& c) {
                   c.num_heads = 3;
                   c.dropout = 0.2f;
               });
        QTest::newRow("gpt2, 3 heads, head mask")
            << QStringList{"--module", "gpt2-attention", "--num-heads",
                           "3",        "--head-mask",    "1,0,0.5"}
            << Configure([](attn::ModuleConfig& c) {
                   c.num_heads = 3;
                   c.head_mask = {1.0f, 0.0f, 0.5f};
               });
        QTest::newRow("gpt2, prune 0 and 2 of 3, head mask, dropout 0.2")
            << QStringList{"--module",      "gpt2-attention",
                           "--num-heads",   "3",
                           "--prune-heads", "2,0",
                           "--head-mask",   "0.5",
                           "--dropout",     "0.2"}
            << Configure([](attn::ModuleConfig& c) {
                   c.num_heads = 3;
                   c.prune_heads = {2, 0};
                   c.head_mask = {0.5f};
                   c.dropout = 0.2f;
               });
    }
    void computeMatchesLibrary() {
        QFETCH(QStringList, args);
        QFETCH(Configure, configure);
        const CliRun run = runCli(QStringList{QStringLiteral("compute")} + args);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(run.err.isEmpty());
        const QJsonObject json = parseOutput(run);
        QVERIFY2(!json.isEmpty(), "stdout is not a JSON object");
        attn::ModuleConfig config;
        config.module = attn::module_kind_from_name(args.at(1).toStdString());
        configure(config);
        const attn::RunResult expected = attn::run_module(config, attn::tutorial_inputs());
        const QString problems = differences(json, expected, attn::tutorial_inputs());
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
    }

    // The tutorial's causal weights and context vectors, as the seed prints them.
    void causalAttentionPrintsTutorial() {
        const CliRun run = runCli({QStringLiteral("compute"), QStringLiteral("--module"),
                                   QStringLiteral("causal-attention")});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject json = parseOutput(run);
        const attn::Matrix weights = toMatrix(
            json.value(QStringLiteral("attn_weights")).toArray().at(0).toArray().at(0).toArray());
        const char* printed[6][6] = {{"1.0000", "0.0000", "0.0000", "0.0000", "0.0000", "0.0000"},
                                     {"0.4833", "0.5167", "0.0000", "0.0000", "0.0000", "0.0000"},
                                     {"0.3190", "0.3408", "0.3402", "0.0000", "0.0000", "0.0000"},
                                     {"0.2445", "0.2545", "0.2542", "0.2468", "0.0000", "0.0000"},
                                     {"0.1994", "0.2060", "0.2058", "0.1935", "0.1953", "0.0000"},
                                     {"0.1624", "0.1709", "0.1706", "0.1654", "0.1625", "0.1682"}};
        QCOMPARE(weights.rows(), Eigen::Index{6});
        for (Eigen::Index i = 0; i < 6; ++i) {
            for (Eigen::Index j = 0; j < 6; ++j) {
                QCOMPARE(QString::number(static_cast<double>(weights(i, j)), 'f', 4),
                         QLatin1String(printed[i][j]));
            }
        }
        // "Your" attends only to itself with weight 1, so its context vector is its value row.
        const attn::Matrix contexts =
            toMatrix(json.value(QStringLiteral("context_vecs")).toArray().at(0).toArray());
        const attn::Matrix values =
            toMatrix(json.value(QStringLiteral("values")).toArray().at(0).toArray());
        QCOMPARE(weights(0, 0), 1.0f);
        QCOMPARE(contexts.row(0), values.row(0));
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::CausalAttention;
        QCOMPARE(contexts,
                 attn::run_module(config, attn::tutorial_inputs()).output.context_vecs[0]);
    }

    // 002_*.txt In [13], printed to 4 decimals.
    void selfAttentionV2PrintsTutorial() {
        const CliRun run = runCli({QStringLiteral("compute"), QStringLiteral("--module"),
                                   QStringLiteral("self-attention-v2")});
        QCOMPARE(run.exitCode, 0);
        const attn::Matrix contexts = toMatrix(
            parseOutput(run).value(QStringLiteral("context_vecs")).toArray().at(0).toArray());
        const char* printed[6][2] = {{"-0.5337", "-0.1051"}, {"-0.5323", "-0.1080"},
                                     {"-0.5323", "-0.1079"}, {"-0.5297", "-0.1076"},
                                     {"-0.5311", "-0.1066"}, {"-0.5299", "-0.1081"}};
        QCOMPARE(contexts.rows(), Eigen::Index{6});
        QCOMPARE(contexts.cols(), Eigen::Index{2});
        for (Eigen::Index i = 0; i < 6; ++i) {
            for (Eigen::Index j = 0; j < 2; ++j) {
                QCOMPARE(QString::number(static_cast<double>(contexts(i, j)), 'f', 4),
                         QLatin1String(printed[i][j]));
            }
        }
    }

    // Tokens, embeddings, weights and config from a file; options override the file's config.
    void inputFile() {
        QTemporaryDir dir;
        attn::ExampleFile file;
        file.inputs.tokens = {"猫", "sat", "down"};
        file.inputs.embeddings.resize(3, 4);
        file.inputs.embeddings << 0.1f, 0.2f, 0.3f, 0.4f, -1.0f, 0.5f, 0.25f, 2.0f, 0.0f, 1.0f,
            -0.5f, 0.75f;
        attn::Matrix wq(2, 4);
        wq << 1, 0, 0, 0, 0, 1, 0, 0;
        file.weights = {{"W_query.weight", wq, false}};
        attn::ModuleConfig fileConfig;
        fileConfig.module = attn::ModuleKind::CausalAttention;
        fileConfig.seed = 5;
        file.config = fileConfig;
        const QString path = dir.filePath(QStringLiteral("example.json"));
        QString error;
        QVERIFY2(attn::saveExampleFile(file, path, &error), qPrintable(error));

        const CliRun run = runCli({QStringLiteral("compute"), QStringLiteral("--input"), path});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        attn::ModuleConfig config = fileConfig;
        config.weights = file.weights;
        const attn::RunResult expected = attn::run_module(config, file.inputs);
        QVERIFY2(differences(parseOutput(run), expected, file.inputs).isEmpty(),
                 qPrintable(differences(parseOutput(run), expected, file.inputs)));
        // queries = x · W_queryᵀ picks the first two values of every token.
        QCOMPARE(expected.output.queries[0], attn::Matrix(file.inputs.embeddings.leftCols(2)));

        const CliRun overridden = runCli({QStringLiteral("compute"), QStringLiteral("--input"),
                                          path, QStringLiteral("--seed"), QStringLiteral("9"),
                                          QStringLiteral("--d-out"), QStringLiteral("2")});
        QVERIFY2(overridden.exitCode == 0, overridden.err.constData());
        config.seed = 9;
        config.d_out = 2;
        const QString problems = differences(parseOutput(overridden),
                                             attn::run_module(config, file.inputs), file.inputs);
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
    }

    // A file's source sequence gives cross-attention its keys and values: a 2 x 3 weight matrix.
    void crossAttentionSourceFromFile() {
        QTemporaryDir dir;
        const QString path = writeFile(
            dir, QStringLiteral("pair.json"),
            "{\"tokens\": [\"one\", \"step\"], \"embeddings\": [[0.77, 0.25, 0.1], [0.05, 0.8, "
            "0.55]],\n"
            " \"source\": {\"tokens\": [\"一\", \"步\", \"。\"],\n"
            "            \"embeddings\": [[0.1, 0.7, 0.4], [0.12, 0.7, 0.47], [0, 0, 1]]}}");
        const CliRun run =
            runCli({QStringLiteral("compute"), QStringLiteral("--module"),
                    QStringLiteral("cross-attention"), QStringLiteral("--input"), path});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject json = parseOutput(run);
        QCOMPARE(json.value(QStringLiteral("source_tokens")).toArray(),
                 (QJsonArray{QStringLiteral("一"), QStringLiteral("步"), QStringLiteral("。")}));
        const attn::ExampleParseResult parsed = attn::loadExampleFile(path);
        QVERIFY(parsed.ok());
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::CrossAttention;
        const attn::RunResult expected =
            attn::run_module(config, parsed.file->inputs, &*parsed.file->source);
        QVERIFY(differences(json, expected, parsed.file->inputs).isEmpty());
        QCOMPARE(expected.output.heads[0][0].weights.cols(), Eigen::Index{3});
    }

    // NaN and infinity are not JSON: they print as null and the output still parses.
    void overflowPrintsNull() {
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("huge.json"),
                                       "{\"tokens\": [\"a\", \"b\"], \"embeddings\": [[1e30, 1e30, "
                                       "1e30], [1e30, -1e30, 1e30]]}");
        const CliRun run =
            runCli({QStringLiteral("compute"), QStringLiteral("--module"),
                    QStringLiteral("self-attention-v1"), QStringLiteral("--input"), path});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject json = parseOutput(run);
        QVERIFY(!json.isEmpty());
        const QJsonArray scores =
            json.value(QStringLiteral("attn_scores")).toArray().at(0).toArray().at(0).toArray();
        QVERIFY(scores.at(0).toArray().at(0).isNull());  // 1e30 · 1e30 overflows float to +inf
        QVERIFY(run.out.contains("null"));
    }

    void decode_data() {
        QTest::addColumn<QString>("module");
        QTest::addColumn<int>("length");
        QTest::addColumn<int>("dModel");
        QTest::addColumn<int>("heads");
        QTest::newRow("mha 6 tokens") << "multi-head-attention" << 6 << 4 << 2;
        QTest::newRow("mha 1 token") << "multi-head-attention" << 1 << 4 << 2;
        QTest::newRow("gpt2 16 tokens d 12 h 3") << "gpt2-attention" << 16 << 12 << 3;
    }
    void decode() {
        QFETCH(QString, module);
        QFETCH(int, length);
        QFETCH(int, dModel);
        QFETCH(int, heads);
        const CliRun run = runCli({QStringLiteral("decode"), QStringLiteral("--module"), module,
                                   QStringLiteral("--length"), QString::number(length),
                                   QStringLiteral("--d-model"), QString::number(dModel),
                                   QStringLiteral("--num-heads"), QString::number(heads)});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject json = parseOutput(run);
        const double maxDiff = json.value(QStringLiteral("max_abs_diff")).toDouble(-1.0);
        QVERIFY2(maxDiff >= 0.0 && maxDiff <= 1e-5, qPrintable(QString::number(maxDiff)));
        const attn::Matrix full = toMatrix(json.value(QStringLiteral("full_pass")).toArray());
        const QJsonArray steps = json.value(QStringLiteral("steps")).toArray();
        QCOMPARE(steps.size(), qsizetype{length});
        QCOMPARE(full.rows(), Eigen::Index{length});
        attn::DecodeConfig config;
        config.module = attn::decoder_kind_from_name(module.toStdString());
        config.num_heads = heads;
        const attn::KvTrace expected =
            attn::run_decode(config, attn::random_sequence(length, dModel, 123));
        QCOMPARE(full, expected.full_pass);
        for (int t = 0; t < length; ++t) {
            const QJsonObject step = steps.at(t).toObject();
            const attn::Matrix output = toRowMatrix(step.value(QStringLiteral("output")).toArray());
            QVERIFY(static_cast<double>((output.row(0) - full.row(t)).cwiseAbs().maxCoeff()) <=
                    1e-5);
            QCOMPARE(output.row(0), expected.steps[static_cast<std::size_t>(t)].output);
            QCOMPARE(step.value(QStringLiteral("cache_tokens")).toInt(), t + 1);
            // 2 × heads × tokens × head_dim × 4 bytes
            QCOMPARE(step.value(QStringLiteral("cache_bytes")).toInt(),
                     2 * heads * (t + 1) * (dModel / heads) * 4);
            QCOMPARE(step.value(QStringLiteral("attn_weights")).toArray().size(), qsizetype{heads});
        }
    }

    // The whole-process measurement: a short summary only.
    void summary() {
        const CliRun run =
            runCli({QStringLiteral("compute"), QStringLiteral("--module"),
                    QStringLiteral("multi-head-attention"), QStringLiteral("--random-tokens"),
                    QStringLiteral("64"), QStringLiteral("--d-in"), QStringLiteral("16"),
                    QStringLiteral("--d-out"), QStringLiteral("16"), QStringLiteral("--num-heads"),
                    QStringLiteral("4"), QStringLiteral("--summary")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject json = parseOutput(run);
        QCOMPARE(json.keys(), (QStringList{"abs_checksum", "checksum", "config", "d_in",
                                           "elapsed_ms", "module", "peak_rss_mb", "shape"}));
        QCOMPARE(json.value(QStringLiteral("shape")).toArray(), (QJsonArray{1, 64, 16}));
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::MultiHeadAttention;
        config.d_out = 16;
        config.num_heads = 4;
        // The summary takes the fast path: the same numbers as run_module's output-only
        // run, and the displayed path's within the fast path's 1e-5 relative tolerance.
        const attn::Sequence inputs = attn::random_sequence(64, 16, 123);
        const attn::RunResult expected = attn::run_module(config, inputs, nullptr, true);
        QVERIFY(expected.output.heads.empty());
        const double sum = expected.output.context_vecs[0].cast<double>().sum();
        QCOMPARE(json.value(QStringLiteral("checksum")).toDouble(), sum);
        const attn::Matrix displayed = attn::run_module(config, inputs).output.context_vecs[0];
        const double absSum = displayed.cast<double>().cwiseAbs().sum();
        QVERIFY(std::abs(displayed.cast<double>().sum() - sum) <= 1e-5 * absSum);
        QVERIFY(json.value(QStringLiteral("elapsed_ms")).toDouble(-1.0) >= 0.0);
        QVERIFY(json.value(QStringLiteral("peak_rss_mb")).toDouble() > 0.0);
        QVERIFY(run.out.size() < 1000);
    }

    // --repeat: the pass again in the same process, each time printed; the output stays the
    // first pass's (the same checksum as without --repeat).
    void summaryRepeat() {
        const QStringList args{QStringLiteral("compute"),
                               QStringLiteral("--module"),
                               QStringLiteral("multi-head-attention"),
                               QStringLiteral("--random-tokens"),
                               QStringLiteral("64"),
                               QStringLiteral("--d-in"),
                               QStringLiteral("16"),
                               QStringLiteral("--num-heads"),
                               QStringLiteral("4"),
                               QStringLiteral("--d-out"),
                               QStringLiteral("16"),
                               QStringLiteral("--summary")};
        const CliRun once = runCli(args);
        const CliRun run =
            runCli(args + QStringList{QStringLiteral("--repeat"), QStringLiteral("3")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject json = parseOutput(run);
        QCOMPARE(json.value(QStringLiteral("checksum")),
                 parseOutput(once).value(QStringLiteral("checksum")));
        const QJsonArray times = json.value(QStringLiteral("repeat_ms")).toArray();
        QCOMPARE(times.size(), qsizetype{3});
        for (const QJsonValue t : times) QVERIFY(t.isDouble() && t.toDouble() > 0.0);
        QVERIFY(!parseOutput(once).contains(QStringLiteral("repeat_ms")));

        const CliRun alone = runCli({QStringLiteral("compute"), QStringLiteral("--module"),
                                     QStringLiteral("multi-head-attention"),
                                     QStringLiteral("--repeat"), QStringLiteral("2")});
        QCOMPARE(alone.exitCode, 2);
        QVERIFY2(alone.err.contains("--repeat times the pass of a --summary: add --summary"),
                 alone.err.constData());
        const CliRun zero =
            runCli(args + QStringList{QStringLiteral("--repeat"), QStringLiteral("0")});
        QCOMPARE(zero.exitCode, 2);
        QVERIFY2(zero.err.contains("--repeat 0 is outside 1..1000"), zero.err.constData());
    }

    // peak_rss_mb is the CLI's own peak, not that of the large process that started it (a
    // forked child inherits its parent's high-water mark in ru_maxrss, even across exec).
    void summaryPeakIsTheCliOwn() {
        std::vector<char> big(400u << 20);
        for (std::size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>(i >> 12);
        const CliRun run =
            runCli({QStringLiteral("compute"), QStringLiteral("--module"),
                    QStringLiteral("multi-head-attention"), QStringLiteral("--summary")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const double peak = parseOutput(run).value(QStringLiteral("peak_rss_mb")).toDouble();
        QVERIFY2(peak > 1.0 && peak < 200.0, qPrintable(QString::number(peak)));
        QVERIFY(big[4096] == 1);
    }

    void help() {
        const CliRun run = runCli({QStringLiteral("--help")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.err.isEmpty());
        for (const char* expected :
             {"Usage: attention-cli <subcommand> [options]", "  compute ", "  decode ",
              "--module <NAME>", "--seed <N>", "--d-out <N>", "--num-heads <N>", "--dropout <P>",
              "--batch <N>", "--context-length <N>", "--qkv-bias", "--input <FILE>",
              "--random-tokens <N>", "--d-in <N>", "--summary", "--length <N>", "--d-model <N>",
              "printed as null", "exit status is 2"}) {
            QVERIFY2(run.out.contains(expected), expected);
        }
        const CliRun sub = runCli({QStringLiteral("decode"), QStringLiteral("--help")});
        QCOMPARE(sub.exitCode, 0);
        QVERIFY(sub.out.startsWith("Usage: attention-cli decode [options]\n"));
        QVERIFY(sub.out.contains("--length <N>"));
        QVERIFY(!sub.out.contains("--qkv-bias"));
    }

    void version() {
        const CliRun run = runCli({QStringLiteral("--version")});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("attention-cli " ATTN_VERSION "\n"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
