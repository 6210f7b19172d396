// attention-cli's refusals: every bad argument and every malformed file ends with status 2, one
// message on stderr naming the problem and the fix, and nothing on stdout.
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.h"

namespace {

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly)) {
        file.write(bytes);
    }
    return path;
}
}  // namespace

class TestCliErrors : public QObject {
    Q_OBJECT

private slots:
    void badArguments_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");  // stderr, without the trailing newline
        QTest::newRow("unknown module")
            << QStringList{"compute", "--module", "lstm"}
            << "attention-cli: compute: unknown module \"lstm\": choose one of self-attention-v1, "
               "self-attention-v2, causal-attention, multi-head-wrapper, multi-head-attention, "
               "bert-multi-head, gpt2-attention, cross-attention, "
               "self-attention-kv, multi-head-self-attention-kv";
        QTest::newRow("4 heads do not divide d_out 6")
            << QStringList{"compute",     "--module", "multi-head-attention", "--d-out", "6",
                           "--num-heads", "4"}
            << "attention-cli: compute: d_out = 6 is not divisible by num_heads = 4: choose "
               "num_heads "
               "among 1, 2, 3, 6";
        QTest::newRow("dropout 1.5")
            << QStringList{"compute", "--module", "causal-attention", "--dropout", "1.5"}
            << "attention-cli: compute: --dropout 1.5 is outside [0, 1]: it is a probability; give "
               "e.g. --dropout 0.1";
        QTest::newRow("dropout -0.1")
            << QStringList{"compute", "--module", "causal-attention", "--dropout=-0.1"}
            << "attention-cli: compute: --dropout -0.1 is outside [0, 1]: it is a probability; "
               "give e.g. --dropout 0.1";
        QTest::newRow("dropout nan")
            << QStringList{"compute", "--module", "causal-attention", "--dropout", "nan"}
            << "attention-cli: compute: --dropout \"nan\" is not a number: give a probability such "
               "as --dropout 0.1";
        QTest::newRow("missing file") << QStringList{"compute", "--module", "causal-attention",
                                                     "--input", "/nonexistent/example.json"}
                                      << "attention-cli: compute: /nonexistent/example.json: "
                                         "cannot open it: No such file or directory";
        QTest::newRow("no module")
            << QStringList{"compute"}
            << "attention-cli: compute: give --module NAME, one of self-attention-v1, "
               "self-attention-v2, causal-attention, multi-head-wrapper, "
               "multi-head-attention, bert-multi-head, gpt2-attention, cross-attention, "
               "self-attention-kv, multi-head-self-attention-kv";
        QTest::newRow("0 heads")
            << QStringList{"compute", "--module", "multi-head-attention", "--num-heads", "0"}
            << "attention-cli: compute: --num-heads 0 is outside 1..16384: give a whole "
               "number in that range";
        QTest::newRow("d_out 0")
            << QStringList{"compute", "--module", "causal-attention", "--d-out", "0"}
            << "attention-cli: compute: --d-out 0 is outside 1..16384: give a whole number "
               "in that range";
        QTest::newRow("heads more than d_out")
            << QStringList{"compute", "--module", "multi-head-attention", "--num-heads", "3"}
            << "attention-cli: compute: d_out = 2 is not divisible by num_heads = 3: choose "
               "num_heads among 1, 2";
        QTest::newRow("batch 65") << QStringList{"compute", "--module", "causal-attention",
                                                 "--batch", "65"}
                                  << "attention-cli: compute: --batch 65 is outside 1..64: give a "
                                     "whole number in that range";
        QTest::newRow("seed text")
            << QStringList{"compute", "--module", "causal-attention", "--seed", "12x"}
            << "attention-cli: compute: --seed \"12x\" is not a whole number: give a whole "
               "number from 0 to 9007199254740992";
        QTest::newRow("context shorter than input")
            << QStringList{"compute", "--module", "causal-attention", "--context-length", "3"}
            << "attention-cli: compute: the sequence has 6 tokens but context_length = 3: give "
               "context_length >= 6 or at most 3 tokens";
        QTest::newRow("dropout on v2")
            << QStringList{"compute", "--module", "self-attention-v2", "--dropout", "0.5"}
            << "attention-cli: compute: self-attention-v2 has no dropout layer: dropout = "
               "0.5 does not apply; choose causal-attention or a multi-head module for dropout";
        QTest::newRow("unknown option")
            << QStringList{"compute", "--module", "causal-attention", "--heads", "2"}
            << "attention-cli: compute: Unknown option 'heads' (see attention-cli compute --help)";
        QTest::newRow("stray argument")
            << QStringList{"compute", "--module", "causal-attention", "6"}
            << "attention-cli: compute: unexpected argument \"6\": every value belongs to an "
               "option such as --module NAME (see attention-cli compute --help)";
        QTest::newRow("unknown subcommand")
            << QStringList{"plot"}
            << "attention-cli: unknown subcommand \"plot\": use one of compute, decode, export, "
               "steps, handout, models, tokenize, forward, generate, train (see attention-cli "
               "--help)";
        QTest::newRow("no subcommand")
            << QStringList{}
            << "attention-cli: give a subcommand: compute, decode, export, steps, handout, "
               "models, tokenize, forward, generate, train (see "
               "attention-cli --help)";
        QTest::newRow("input and random tokens")
            << QStringList{"compute",         "--module", "causal-attention", "--input", "x.json",
                           "--random-tokens", "5"}
            << "attention-cli: compute: --input and --random-tokens both give the input: choose "
               "one";
        QTest::newRow("d-in alone")
            << QStringList{"compute", "--module", "causal-attention", "--d-in", "8"}
            << "attention-cli: compute: --d-in sets the width of --random-tokens: add "
               "--random-tokens N, or leave --d-in out (a file or the example sets its own width)";
        QTest::newRow("memory limit") << QStringList{"compute",
                                                     "--module",
                                                     "multi-head-attention",
                                                     "--random-tokens",
                                                     "8192",
                                                     "--d-in",
                                                     "48",
                                                     "--d-out",
                                                     "48",
                                                     "--num-heads",
                                                     "12"}
                                      << "attention-cli: compute: this run would need about 16896 "
                                         "MiB for its displayed intermediates "
                                         "(1 × 12 heads × 8192 × 8192 attention matrices); the "
                                         "limit is 2048 MiB: use fewer tokens, "
                                         "heads or batch copies";
        QTest::newRow("causal and no-causal")
            << QStringList{"compute", "--module", "causal-attention", "--causal", "--no-causal"}
            << "attention-cli: compute: --causal and --no-causal contradict each other: choose one";
        QTest::newRow("bad mask convention")
            << QStringList{"compute", "--module", "bert-multi-head", "--mask-convention", "2"}
            << "attention-cli: compute: --mask-convention \"2\": give zero (fill where mask == 0) "
               "or one "
               "(fill where mask == 1)";
        QTest::newRow("bad fill")
            << QStringList{"compute", "--module", "causal-attention", "--fill", "inf"}
            << "attention-cli: compute: --fill \"inf\" is not a number: give -inf, -1e9 or -1e4";
        QTest::newRow("no-causal on gpt2")
            << QStringList{"compute", "--module", "gpt2-attention", "--no-causal"}
            << "attention-cli: compute: causal = off does not apply to gpt2-attention: its causal "
               "mask is "
               "part of the module; choose self-attention-v2 or bert-multi-head for attention "
               "without one";
        QTest::newRow("dim-k on causal-attention")
            << QStringList{"compute", "--module", "causal-attention", "--dim-k", "4"}
            << "attention-cli: compute: dim_k = 4 does not apply to causal-attention: only "
               "self-attention-kv and multi-head-self-attention-kv (seed 003) have separate key "
               "and value widths; leave dim_k and dim_v unset";
        QTest::newRow("heads do not divide dim-v")
            << QStringList{"compute", "--module",    "multi-head-self-attention-kv",
                           "--dim-k", "4",           "--dim-v",
                           "6",       "--num-heads", "4"}
            << "attention-cli: compute: dim_v = 6 is not divisible by num_heads = 4: choose "
               "num_heads among 1, 2, 3, 6";
        QTest::newRow("d-out on self-attention-kv")
            << QStringList{"compute", "--module", "self-attention-kv", "--d-out", "2"}
            << "attention-cli: compute: d_out = 2 does not apply to self-attention-kv: its output "
               "width is dim_v = 3; set dim_v (and dim_k for queries and keys) instead of d_out";
        const QStringList gpt2{"compute", "--module", "gpt2-attention", "--num-heads", "3"};
        QTest::newRow("head-mask not a number")
            << gpt2 + QStringList{"--head-mask", "1,x,1"}
            << "attention-cli: compute: --head-mask: \"x\" is not a number: give one factor in "
               "[0, 1] per head, e.g. --head-mask 1,0.5";
        QTest::newRow("head-mask gap") << gpt2 + QStringList{"--head-mask", "1,,1"}
                                       << "attention-cli: compute: --head-mask \"1,,1\" has an "
                                          "empty item: give a comma-separated list without gaps, "
                                          "e.g. --head-mask 1,0.5";
        QTest::newRow("head-mask count after pruning")
            << gpt2 + QStringList{"--prune-heads", "1", "--head-mask", "1,1,1"}
            << "attention-cli: compute: head_mask has 3 values but it needs 2, one per head left "
               "after pruning 1 of 3 (1 keeps a head, 0 silences it)";
        QTest::newRow("head-mask above 1")
            << gpt2 + QStringList{"--head-mask", "1,1.5,1"}
            << "attention-cli: compute: head_mask value 2 is 1.5: give a factor in [0, 1] per head "
               "(1 keeps a head, 0 silences it)";
        QTest::newRow("prune-heads not a head") << gpt2 + QStringList{"--prune-heads", "0,a"}
                                                << "attention-cli: compute: --prune-heads: \"a\" "
                                                   "is not a head number: give heads 0, 1, ... "
                                                   "separated by commas, e.g. --prune-heads 0,2";
        QTest::newRow("prune-heads out of range")
            << gpt2 + QStringList{"--prune-heads", "3"}
            << "attention-cli: compute: prune_heads: head 3 does not exist; gpt2-attention has "
               "heads 0..2 (num_heads = 3)";
        QTest::newRow("prune-heads all") << gpt2 + QStringList{"--prune-heads", "0,1,2"}
                                         << "attention-cli: compute: prune_heads would remove all "
                                            "3 heads: keep at least one head";
        QTest::newRow("head-mask on causal-attention")
            << QStringList{"compute", "--module", "causal-attention", "--head-mask", "1"}
            << "attention-cli: compute: head_mask does not apply to causal-attention: only "
               "gpt2-attention has head_mask and prune_heads (seed 001); leave them unset";
        QTest::newRow("decode without length")
            << QStringList{"decode", "--module", "gpt2-attention"}
            << "attention-cli: decode: give --length N, the number of tokens to "
               "decode (1..4096)";
        QTest::newRow("decode length 0")
            << QStringList{"decode", "--module", "gpt2-attention", "--length", "0"}
            << "attention-cli: decode: --length 0 is outside 1..4096: give a whole "
               "number in that range";
        QTest::newRow("decode causal")
            << QStringList{"decode", "--module", "causal-attention", "--length", "4"}
            << "attention-cli: decode: decoding with a KV cache is available for "
               "multi-head-attention and gpt2-attention, not \"causal-attention\": choose "
               "one of these two";
        QTest::newRow("decode heads")
            << QStringList{"decode",    "--module", "multi-head-attention", "--length", "4",
                           "--d-model", "6",        "--num-heads",          "4"}
            << "attention-cli: decode: d_model = 6 is not divisible by num_heads = 4: "
               "choose num_heads among 1, 2, 3, 6";
    }
    void badArguments() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliRun run = runCli(args);
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.out, QByteArray());
        QCOMPARE(QString::fromUtf8(run.err), message + QLatin1Char('\n'));
    }

    // A malformed file: status 2, the file name, the line and the problem.
    void malformedFile() {
        QTemporaryDir dir;
        const QString path =
            writeFile(dir, QStringLiteral("bad.json"),
                      "{\n  \"tokens\": [\"Your\", \"journey\"],\n  \"embeddings\": [\n"
                      "    [0.43, 0.15, 0.89],\n    [0.55, 0.87]\n  ]\n}\n");
        const CliRun run =
            runCli({QStringLiteral("compute"), QStringLiteral("--module"),
                    QStringLiteral("causal-attention"), QStringLiteral("--input"), path});
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.out, QByteArray());
        QCOMPARE(QString::fromUtf8(run.err),
                 QStringLiteral(
                     "attention-cli: compute: %1: line 5, column 5: embeddings row 2 has 2 numbers "
                     "but row 1 has 3; every token needs the same number of values\n")
                     .arg(path));
        const QString notJson = writeFile(dir, QStringLiteral("notjson.json"), "tokens: [a]\n");
        const CliRun run2 =
            runCli({QStringLiteral("compute"), QStringLiteral("--module"),
                    QStringLiteral("causal-attention"), QStringLiteral("--input"), notJson});
        QCOMPARE(run2.exitCode, 2);
        QCOMPARE(run2.out, QByteArray());
        QVERIFY2(run2.err.contains(": line 1, column 2: not valid JSON: "), run2.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliErrors)
#include "test_cli_errors.moc"
