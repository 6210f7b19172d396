// Attention dumps saved from Python (app/io/attention_dump.h): the files NumPy wrote
// (tests/data/attention-dumps/make_dumps.py) read back as the numbers the script put in, their
// tokens, the warning without tokens, the layer as a Step (model/attention_layer_step.h), and
// every hostile file refused with its own one-line message.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>

#include "app/io/attention_dump.h"
#include "model/attention_layer_step.h"

namespace {

const QString kDumps = QStringLiteral(ATTN_ATTENTION_DUMPS_DIR);

// make_dumps.py's ROW, and np.roll(ROW, shift)[j] = ROW[(j - shift) mod n].
constexpr float kRow[4] = {0.5f, 0.25f, 0.125f, 0.125f};
float rolled(const float* row, int n, int shift, int j) { return row[((j - shift) % n + n) % n]; }

QByteArray readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return f.readAll();
}

// An .npy file as np.save writes it: magic, version, header padded with spaces to 64 bytes.
QByteArray npy(const QByteArray& dict, const QByteArray& data, int major = 1) {
    const int prefix = major == 1 ? 10 : 12;
    QByteArray header = dict;
    while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    QByteArray out("\x93NUMPY", 6);
    out += static_cast<char>(major);
    out += '\0';
    const auto n = static_cast<quint32>(header.size());
    for (int i = 0; i < (major == 1 ? 2 : 4); ++i) out += static_cast<char>((n >> (8 * i)) & 0xff);
    return out + header + data;
}

QByteArray f32(std::initializer_list<float> values) {
    QByteArray out;
    for (float v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
    return out;
}

QByteArray f32Dict(const QByteArray& shape) {
    return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
}

QByteArray safetensors(const QByteArray& header, const QByteArray& data) {
    QByteArray out(8, '\0');
    const auto n = static_cast<quint64>(header.size());
    for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    return out + header + data;
}

QString bytesError(const QByteArray& dump, const QByteArray& tokens = {}) {
    const attn::AttentionDumpResult r = attn::attentionDumpFromBytes(dump, tokens);
    return r.ok() ? QStringLiteral("(accepted)") : r.error;
}

const attn::Matrix& head(const attn::AttentionDump& dump, int layer, int h) {
    return dump.attentions.at(static_cast<std::size_t>(layer)).at(static_cast<std::size_t>(h));
}

std::vector<std::string> stdTokens(const QStringList& tokens) {
    std::vector<std::string> out;
    for (const QString& t : tokens) out.push_back(t.toStdString());
    return out;
}

}  // namespace

class TestAttentionDump : public QObject {
    Q_OBJECT

private slots:
    void npyFloat32AsNumPyWroteIt() {
        const attn::NpyParseResult r = attn::parseNpy(readAll(kDumps + "/bert-like.npy"));
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.array.descr, QStringLiteral("<f4"));
        QCOMPARE(r.array.shape, (std::vector<qint64>{2, 3, 4, 4}));
        QCOMPARE(r.array.values.size(), std::size_t{96});
        std::size_t k = 0;
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 3; ++h)
                for (int i = 0; i < 4; ++i)
                    for (int j = 0; j < 4; ++j)
                        QCOMPARE(r.array.values[k++], rolled(kRow, 4, l + h + i, j));
    }

    void bertLikeDumpWithItsTokens() {
        const attn::AttentionDumpResult r = attn::loadAttentionDump(kDumps + "/bert-like.npy");
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.dump.dtype, QStringLiteral("float32"));
        QCOMPARE(r.dump.tokens, (QStringList{"[CLS]", QString::fromUtf8("猫"), "sat", "[SEP]"}));
        QCOMPARE(QFileInfo(r.dump.tokensPath).fileName(), QStringLiteral("bert-like.tokens.json"));
        QVERIFY(r.dump.warning.isEmpty());
        QCOMPARE(r.dump.attentions.size(), std::size_t{2});
        for (int l = 0; l < 2; ++l) {
            QCOMPARE(r.dump.attentions.at(static_cast<std::size_t>(l)).size(), std::size_t{3});
            for (int h = 0; h < 3; ++h) {
                const attn::Matrix& m = head(r.dump, l, h);
                QCOMPARE(m.rows(), Eigen::Index{4});
                QCOMPARE(m.cols(), Eigen::Index{4});
                for (int i = 0; i < 4; ++i)
                    for (int j = 0; j < 4; ++j) QCOMPARE(m(i, j), rolled(kRow, 4, l + h + i, j));
            }
        }
        // An encoder attends to later tokens: nothing is drawn blocked.
        QVERIFY(!attn::is_causal_attention(r.dump.attentions[1]));
        const attn::Step step =
            attn::attention_layer_step(r.dump.attentions[1], 1, stdTokens(r.dump.tokens));
        QCOMPARE(step.id, std::string("layer-2"));
        QCOMPARE(step.matrices.size(), std::size_t{3});
        QCOMPARE(step.matrices[2].id, std::string("layer-2-head-3"));
        QCOMPARE(step.matrices[2].head, 3);
        QCOMPARE(step.matrices[2].kind, attn::MatrixKind::Weights);
        QCOMPARE(step.matrices[2].col_labels[1], std::string("猫"));
        QCOMPARE(step.matrices[2].row_labels, step.matrices[2].col_labels);
        QCOMPARE(step.matrices[2].values(0, 0), rolled(kRow, 4, 3, 0));
        QCOMPARE(step.matrices[2].blocked.size(), Eigen::Index{0});
    }

    void float16WithoutTokensUsesPositionsAndWarns() {
        const attn::AttentionDumpResult r = attn::loadAttentionDump(kDumps + "/causal-f16.npy");
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.dump.dtype, QStringLiteral("float16"));
        QCOMPARE(r.dump.tokens, (QStringList{"1", "2", "3", "4"}));
        QVERIFY(r.dump.tokensPath.isEmpty());
        QVERIFY2(r.dump.warning.contains("causal-f16.tokens.json and tokens.json") &&
                     r.dump.warning.contains("positions 1 to 4"),
                 qPrintable(r.dump.warning));
        QCOMPARE(r.dump.attentions.size(), std::size_t{1});
        QCOMPARE(r.dump.attentions[0].size(), std::size_t{3});
        const float prefixes[4][4] = {{1, 0, 0, 0},
                                      {0.5f, 0.5f, 0, 0},
                                      {0.5f, 0.25f, 0.25f, 0},
                                      {0.5f, 0.25f, 0.125f, 0.125f}};
        // softmax(0..i) in float16, as make_dumps.py prints it
        const float softmax[4][4] = {{1, 0, 0, 0},
                                     {0.269042969f, 0.730957031f, 0, 0},
                                     {0.0900268555f, 0.244750977f, 0.665039062f, 0},
                                     {0.032043457f, 0.0871582031f, 0.236938477f, 0.644042969f}};
        for (int i = 0; i < 4; ++i) {
            for (int j = 0; j < 4; ++j) {
                QCOMPARE(r.dump.attentions[0][0](i, j), prefixes[i][j]);
                QCOMPARE(r.dump.attentions[0][1](i, j), j <= i ? prefixes[i][i - j] : 0.0f);
                QCOMPARE(r.dump.attentions[0][2](i, j), softmax[i][j]);
            }
        }
        // A decoder's dump: exactly zero after every query, so the future cells are blocked.
        QVERIFY(attn::is_causal_attention(r.dump.attentions[0]));
        const attn::Step step =
            attn::attention_layer_step(r.dump.attentions[0], 0, stdTokens(r.dump.tokens));
        const attn::StepMatrix& m = step.matrices[0];
        QCOMPARE(m.id, std::string("layer-1-head-1"));
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) QCOMPARE(m.blocked(i, j), j > i);
    }

    void batchOfOneAndStackedTuple() {
        const float row3[3] = {0.5f, 0.25f, 0.25f};
        for (const char* name : {"batch1.npy", "stacked.npy"}) {
            const attn::AttentionDumpResult r = attn::loadAttentionDump(kDumps + "/" + name);
            QVERIFY2(r.ok(), qPrintable(r.error));
            QCOMPARE(r.dump.attentions.size(), std::size_t{2});
            for (int l = 0; l < 2; ++l) {
                QCOMPARE(r.dump.attentions.at(static_cast<std::size_t>(l)).size(), std::size_t{2});
                for (int h = 0; h < 2; ++h)
                    for (int i = 0; i < 3; ++i)
                        for (int j = 0; j < 3; ++j)
                            QCOMPARE(head(r.dump, l, h)(i, j), rolled(row3, 3, l + h + i, j));
            }
        }
        const attn::AttentionDumpResult batch = attn::loadAttentionDump(kDumps + "/batch1.npy");
        QCOMPARE(batch.dump.tokens,
                 (QStringList{QString::fromUtf8("ĠThe"), QString::fromUtf8("Ġcat"),
                              QString::fromUtf8("Ġsat")}));
        // stacked.npy has no stacked.tokens.json, and its folder no tokens.json
        const attn::AttentionDumpResult stacked = attn::loadAttentionDump(kDumps + "/stacked.npy");
        QCOMPARE(stacked.dump.tokens, (QStringList{"1", "2", "3"}));
        QVERIFY(!stacked.dump.warning.isEmpty());
    }

    // One tensor per layer in natural order, fewer queries than keys (decoding), tokens.json
    // beside it as an object.
    void safetensorsLayersInNaturalOrder() {
        const attn::AttentionDumpResult r =
            attn::loadAttentionDump(kDumps + "/decoding/attentions.safetensors");
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.dump.dtype, QStringLiteral("F16"));
        QCOMPARE(r.dump.tokens, (QStringList{"A", "B", "C", "D"}));
        QCOMPARE(QFileInfo(r.dump.tokensPath).fileName(), QStringLiteral("tokens.json"));
        QCOMPARE(r.dump.attentions.size(), std::size_t{2});
        for (int l = 0; l < 2; ++l) {  // layer.2 has shift 0, layer.10 shift 1
            for (int h = 0; h < 2; ++h) {
                const attn::Matrix& m = head(r.dump, l, h);
                QCOMPARE(m.rows(), Eigen::Index{2});
                QCOMPARE(m.cols(), Eigen::Index{4});
                for (int i = 0; i < 2; ++i)
                    for (int j = 0; j < 4; ++j) QCOMPARE(m(i, j), rolled(kRow, 4, l + h + i, j));
            }
        }
        const attn::Step step =
            attn::attention_layer_step(r.dump.attentions[0], 0, stdTokens(r.dump.tokens));
        QCOMPARE(step.matrices[1].row_labels, (std::vector<std::string>{"C", "D"}));
        QCOMPARE(step.matrices[1].col_labels, (std::vector<std::string>{"A", "B", "C", "D"}));
        QCOMPARE(step.matrices[1].row_offset, Eigen::Index{2});
        QCOMPARE(step.matrices[1].blocked.size(), Eigen::Index{0});
    }

    void tokensFileGivenOrBroken() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto write = [&](const QString& name, const QByteArray& bytes) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes);
        };
        write("mine.json", R"({"tokens": ["w", "x", "y", "z"]})");
        write("three.json", R"(["a", "b", "c"])");
        write("number.json", R"(["a", 2, "c", "d"])");
        write("broken.json", R"(["a", )");
        write("dict.json", R"({"ids": [1, 2]})");
        write("nested.json", "{\"tokens\": [\"a\",\n  \"b\", \"ü\", \"d\", [\"e\"]]}");
        const QString dump = kDumps + "/bert-like.npy";
        const attn::AttentionDumpResult mine =
            attn::loadAttentionDump(dump, dir.filePath("mine.json"));
        QVERIFY2(mine.ok(), qPrintable(mine.error));
        QCOMPARE(mine.dump.tokens, (QStringList{"w", "x", "y", "z"}));
        QCOMPARE(mine.dump.tokensPath, dir.filePath("mine.json"));
        auto error = [&](const QString& tokens) {
            return attn::loadAttentionDump(dump, dir.filePath(tokens)).error;
        };
        QCOMPARE(error("three.json"),
                 QStringLiteral("three.json has 3 tokens but the attention has 4 key "
                                "positions: save the tokens of the same sequence"));
        // A wrong-typed value and a syntax error, each with its line and column.
        QCOMPARE(error("number.json"),
                 QStringLiteral("number.json: line 1, column 7: token 2 is the number 2, not a "
                                "string: save json.dump(tokenizer.convert_ids_to_tokens(ids), f) "
                                "again"));
        QCOMPARE(
            error("broken.json"),
            QStringLiteral("broken.json: line 1, column 7: not valid JSON: unterminated array; "
                           "save json.dump(tokenizer.convert_ids_to_tokens(ids), f) again"));
        QCOMPARE(error("dict.json"),
                 QStringLiteral("dict.json: line 1, column 1: the file holds an object without a "
                                "\"tokens\" list; a tokens file is a list of token strings (or "
                                "an object with one as \"tokens\"): save "
                                "json.dump(tokenizer.convert_ids_to_tokens(ids), f) again"));
        QCOMPARE(error("nested.json"),
                 QStringLiteral("nested.json: line 2, column 18: token 5 is a list, not a string: "
                                "save json.dump(tokenizer.convert_ids_to_tokens(ids), f) again"));
        QVERIFY2(error("missing.json").startsWith("missing.json: cannot open"),
                 qPrintable(error("missing.json")));
    }

    void progressAndCancel() {
        std::vector<double> fractions;
        attn::ModelLoadOptions options;
        options.progress = [&](double f) { fractions.push_back(f); };
        const attn::AttentionDumpResult r =
            attn::loadAttentionDump(kDumps + "/bert-like.npy", {}, options);
        QVERIFY(r.ok());
        QCOMPARE(fractions, (std::vector<double>{0.5, 1.0}));
        const std::atomic<bool> stop{true};
        options.cancel = &stop;
        for (const char* name : {"/bert-like.npy", "/decoding/attentions.safetensors"}) {
            const attn::AttentionDumpResult c = attn::loadAttentionDump(kDumps + name, {}, options);
            QVERIFY(c.cancelled);
            QCOMPARE(c.error, QStringLiteral("loading cancelled"));
        }
    }

    void hostileNpy_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        const QByteArray two = f32({0.5f, 0.5f, 0.25f, 0.75f});  // [1, 2, 2]
        QTest::newRow("not npy") << QByteArray("PK\x03\x04 a zip, not an array")
                                 << "not a NumPy .npy file";
        QTest::newRow("empty") << QByteArray() << "not a NumPy .npy file";
        QByteArray v4 = npy(f32Dict("(1, 2, 2)"), two);
        v4[6] = 4;
        QTest::newRow("version 4") << v4 << "NumPy format version 4.0 is not supported";
        QTest::newRow("float64")
            << npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2, 1), }", two)
            << "dtype '<f8' is not supported: save float32 ('<f4') or float16";
        QTest::newRow("big endian")
            << npy("{'descr': '>f4', 'fortran_order': False, 'shape': (1, 2, 2), }", two)
            << "dtype '>f4'";
        QTest::newRow("int64")
            << npy("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2, 1), }", two)
            << "dtype '<i8'";
        QTest::newRow("fortran")
            << npy("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2, 2), }", two)
            << "Fortran order";
        QTest::newRow("not a dict")
            << npy("[1, 2, 3]", two) << "not the {'descr', 'fortran_order', 'shape'} dict";
        QTest::newRow("missing shape")
            << npy("{'descr': '<f4', 'fortran_order': False, }", two) << "not the {'descr'";
        QTest::newRow("negative dim") << npy(f32Dict("(1, -2, 2)"), two) << "not the {'descr'";
        QByteArray past = npy(f32Dict("(1, 2, 2)"), {});
        past[8] = '\xff';
        QTest::newRow("header past end") << past << "runs past the end of the file";
        QTest::newRow("truncated")
            << npy(f32Dict("(1, 2, 2)"), two.left(10))
            << "truncated: the shape [1, 2, 2] needs 16 bytes of float32 but only 10";
        QTest::newRow("huge shape")
            << npy(f32Dict("(100000, 100000, 100000, 100000)"), two)
            << "truncated: the shape [100000, 100000, 100000, 100000] needs more";
        QTest::newRow("too long") << npy(f32Dict("(1, 2, 2)"), two + two)
                                  << "not one array as np.save writes it";
        QTest::newRow("rank 2") << npy(f32Dict("(2, 2)"), two)
                                << "the array has shape [2, 2]; an attention dump is";
        QTest::newRow("rank 6") << npy(f32Dict("(1, 1, 1, 1, 2, 2)"), two)
                                << "the array has shape [1, 1, 1, 1, 2, 2]";
        QTest::newRow("batch 2") << npy(f32Dict("(2, 2, 1, 1, 1)"), two)
                                 << "a batch of 2 sequences (shape [2, 2, 1, 1, 1]): save one";
        QTest::newRow("empty dim") << npy(f32Dict("(0, 2, 2)"), {}) << "has an empty dimension";
        QTest::newRow("queries > keys")
            << npy(f32Dict("(1, 4, 1)"), two) << "4 queries but only 1 keys (shape [1, 4, 1])";
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        QTest::newRow("NaN") << npy(f32Dict("(1, 2, 2)"), f32({1, nan, 0.5f, 0.5f}))
                             << "layer 1, head 1 has a NaN or infinite weight at query 1, key 2";
        QTest::newRow("inf") << npy(f32Dict("(2, 1, 1, 2)"), f32({1, 0, inf, 0}))
                             << "layer 2, head 1 has a NaN or infinite weight at query 1, key 1";
        QTest::newRow("scores")
            << npy(f32Dict("(1, 2, 2)"), f32({1, 0, 2.5f, -1}))
            << "has the value 2.5 at query 2, key 1, outside [0, 1]: this does not "
               "look like attention weights";
        QTest::newRow("negative") << npy(f32Dict("(1, 2, 2)"), f32({1, 0, 0.5f, -0.25f}))
                                  << "has the value -0.25 at query 2, key 2";
    }

    void hostileNpy() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        // Without NumPy's magic the bytes would be tried as safetensors: ask parseNpy itself.
        const QString error =
            bytes.startsWith("\x93NUMPY") ? bytesError(bytes) : attn::parseNpy(bytes).error;
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY(!error.contains('\n'));
    }

    void roundingAndOtherVersionsAccepted() {
        // float16 rounds a weight of 1 up by at most 2^-10; -0 is 0.
        const attn::AttentionDumpResult r = attn::attentionDumpFromBytes(
            npy(f32Dict("(1, 2, 2)"), f32({1.001f, -0.0f, 0.5f, 0.5f}), 2), R"(["x", "y"])");
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.dump.attentions[0][0](0, 0), 1.001f);
        QCOMPARE(r.dump.tokens, (QStringList{"x", "y"}));
        const attn::NpyParseResult v3 =
            attn::parseNpy(npy("{\"descr\": \"<f2\", \"shape\": (2,), \"fortran_order\": False}",
                               QByteArray("\x00\x3c\x00\xb8", 4), 3));
        QVERIFY2(v3.ok(), qPrintable(v3.error));
        QCOMPARE(v3.array.shape, std::vector<qint64>{2});
        QCOMPARE(v3.array.values, (std::vector<float>{1.0f, -0.5f}));
        QCOMPARE(bytesError(npy(f32Dict("(1, 2, 2)"), f32({1, 0, 0.5f, 0.5f})), R"(["x"])"),
                 QStringLiteral(
                     "the tokens list has 1 tokens but the attention has 2 key positions: save "
                     "the tokens of the same sequence"));
    }

    void hostileSafetensors_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        const QByteArray one = f32({1, 0, 0.5f, 0.5f});  // [1, 2, 2] in F32
        QTest::newRow("no tensors")
            << safetensors("{}", {}) << "the file holds no tensors: save one per layer";
        QTest::newRow("shapes differ")
            << safetensors(R"({"a.1":{"dtype":"F32","shape":[1,2,2],"data_offsets":[0,16]},)"
                           R"("a.2":{"dtype":"F32","shape":[2,2],"data_offsets":[16,32]}})",
                           one + one)
            << "tensor \"a.2\" has shape [2, 2] but \"a.1\" has [1, 2, 2]: every layer must have "
               "the same shape";
        QTest::newRow("batch 2")
            << safetensors(R"({"l":{"dtype":"F32","shape":[2,1,1,2],"data_offsets":[0,16]}})", one)
            << "a batch of 2 sequences";
        QTest::newRow("rank 2")
            << safetensors(R"({"l":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})", one)
            << "tensor \"l\" has shape [2, 2]; each layer is [heads, queries, keys]";
        QTest::newRow("int64")
            << safetensors(R"({"l":{"dtype":"I64","shape":[1,1,2],"data_offsets":[0,16]}})", one)
            << "only F32, F16 and BF16 are supported";
        QTest::newRow("truncated")
            << safetensors(R"({"l":{"dtype":"F32","shape":[1,2,2],"data_offsets":[0,16]}})",
                           one.left(8))
            << "truncated";
        QTest::newRow("queries > keys")
            << safetensors(R"({"l":{"dtype":"F32","shape":[1,4,1],"data_offsets":[0,16]}})", one)
            << "4 queries but only 1 keys";
        QTest::newRow("scores")
            << safetensors(R"({"l":{"dtype":"F32","shape":[1,2,2],"data_offsets":[0,16]}})",
                           f32({1, 0, 3, 0}))
            << "does not look like attention weights";
    }

    void hostileSafetensors() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        const QString error = bytesError(bytes);
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY(!error.contains('\n'));
    }

    // Found by fuzz_attention_dump: a dtype with a line break gave a message of two lines.
    void namesWithLineBreaksStayOneLine() {
        const QString npyError = bytesError(
            npy("{'descr': '<f2  \n', 'fortran_order': False, 'shape': (1, 2, 2), }", {}));
        QVERIFY2(npyError.startsWith("the .npy header is not the"), qPrintable(npyError));
        const QString stError = bytesError(
            safetensors("{\"a\\nb\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}",
                        f32({1, 0, 0.5f, 0.5f})));
        QCOMPARE(stError,
                 QStringLiteral("tensor \"a\\x0ab\" has shape [2, 2]; each layer is [heads, "
                                "queries, keys] (a leading batch of 1 is allowed)"));
    }

    // Found by fuzz_attention_dump: an array with no values copied 0 bytes to a null pointer.
    void emptyArrayParsesWithoutValues() {
        const attn::NpyParseResult r = attn::parseNpy(npy(f32Dict("(1, 2, 0)"), {}));
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.array.shape, (std::vector<qint64>{1, 2, 0}));
        QVERIFY(r.array.values.empty());
        QVERIFY(bytesError(npy(f32Dict("(1, 2, 0)"), {})).contains("has an empty dimension"));
    }

    void hostileFilesNameTheFile() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile text(dir.filePath("notes.txt"));
        QVERIFY(text.open(QIODevice::WriteOnly));
        text.write("these are not attention weights");
        text.close();
        QCOMPARE(
            attn::loadAttentionDump(dir.filePath("notes.txt")).error,
            QStringLiteral("notes.txt: not an attention dump: a .npy file starts with \\x93NUMPY; "
                           "save with np.save, or give a .safetensors file"));
        QVERIFY(attn::loadAttentionDump(dir.filePath("none.npy"))
                    .error.startsWith("none.npy: cannot open"));
        QFile fake(dir.filePath("fake.safetensors"));
        QVERIFY(fake.open(QIODevice::WriteOnly));
        fake.write("abc");
        fake.close();
        QVERIFY2(attn::loadAttentionDump(dir.filePath("fake.safetensors"))
                     .error.startsWith("fake.safetensors: not a safetensors file"),
                 qPrintable(attn::loadAttentionDump(dir.filePath("fake.safetensors")).error));
        QFile scores(dir.filePath("scores.npy"));
        QVERIFY(scores.open(QIODevice::WriteOnly));
        scores.write(npy(f32Dict("(1, 2, 2)"), f32({1, 0, 3, 0})));
        scores.close();
        QVERIFY(attn::loadAttentionDump(dir.filePath("scores.npy"))
                    .error.startsWith("scores.npy: layer 1, head 1"));
    }

    void layerStepRefusesMismatchedInput() {
        const std::vector<attn::Matrix> heads{attn::Matrix::Constant(2, 2, 0.5f)};
        auto error = [](auto f) -> QString {
            try {
                f();
            } catch (const attn::AttentionError& e) {
                return QString::fromStdString(e.what());
            }
            return {};
        };
        QVERIFY(error([&] {
                    attn::attention_layer_step(heads, 0, {"a"});
                }).contains("1 token labels for 2 tokens"));
        QVERIFY(error([&] {
                    attn::attention_layer_step(
                        {attn::Matrix::Constant(2, 2, 0.5f), attn::Matrix::Constant(1, 2, 0.5f)}, 0,
                        {"a", "b"});
                }).contains("differ in shape"));
        QVERIFY(error([&] {
                    attn::attention_layer_step({attn::Matrix::Constant(3, 2, 0.5f)}, 0, {"a", "b"});
                }).contains("3 queries but only 2 keys"));
        QVERIFY(!attn::is_causal_attention({attn::Matrix::Constant(1, 1, 1.0f)}));
        // Two new queries over three keys, decoder-style: the queries are positions 2 and 3, so
        // only the first query has a future key.
        attn::Matrix decoding(2, 3);
        decoding << 0.5f, 0.5f, 0.0f, 0.25f, 0.25f, 0.5f;
        QVERIFY(attn::is_causal_attention({decoding}));
        const attn::Step step = attn::attention_layer_step({decoding}, 4, {"a", "b", "c"});
        QCOMPARE(step.matrices[0].id, std::string("layer-5-head-1"));
        QCOMPARE(step.matrices[0].row_labels, (std::vector<std::string>{"b", "c"}));
        QCOMPARE(step.matrices[0].blocked.count(), Eigen::Index{1});
        QVERIFY(step.matrices[0].blocked(0, 2));
        decoding(0, 2) = 0.001f;  // one future weight that is not exactly 0: bidirectional
        QVERIFY(!attn::is_causal_attention({decoding}));
    }
};

QTEST_APPLESS_MAIN(TestAttentionDump)
#include "test_attention_dump.moc"
