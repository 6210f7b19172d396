// app/example_file.h: the JSON example format. A full round trip keeps every float bit for bit;
// every malformed file is refused with the line, the column and the problem; saving is atomic.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "app/io/example_file.h"
#include "app/io/json_locator.h"
#include "app/io/json_text.h"
#include "model/examples.h"

namespace {

bool sameBits(const attn::Matrix& a, const attn::Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(float)) == 0;
}

// Tokens and numbers chosen to be awkward: quotes, backslashes, CJK, control characters; floats
// without a short decimal form, the float limits, a subnormal, the float next to 0.1.
attn::ExampleFile awkwardExample() {
    attn::ExampleFile f;
    f.description = QStringLiteral("round trip: \"quotes\", back\\slash, 旅程");
    f.inputs.tokens = {"Your", "\"quoted\"", "back\\slash", "旅程", "tab\there", "line\nbreak"};
    f.inputs.embeddings.resize(6, 3);
    f.inputs.embeddings << 0.43f, 0.15f, 0.89f,                                       //
        1.0f / 3.0f, -2.0f / 7.0f, 0.1f,                                              //
        FLT_MAX, -FLT_MAX, FLT_MIN,                                                   //
        std::numeric_limits<float>::denorm_min(), std::nextafter(0.1f, 1.0f), 1e30f,  //
        16777217.0f, 1e-30f, 123456.789f,                                             //
        0.0f, 1.0f, -1.0f;
    attn::Matrix w(2, 3);
    w << 0.2961f, 0.5166f, 0.2517f, 0.6886f, 0.0740f, 0.8665f;
    attn::Matrix b(1, 2);
    b << -0.25f, 0.125f;
    f.weights = {{"W_query.bias", b, true}, {"W_query.weight", w, false}};
    attn::Sequence source = attn::cross_attention_source();
    f.source = source;
    attn::ModuleConfig config;
    config.module = attn::ModuleKind::CrossAttention;
    config.seed = 9007199254740992ULL;  // 2^53, the largest seed a JSON number holds exactly
    config.num_heads = 3;
    config.batch = 2;
    config.dropout = 0.1f;
    f.config = config;
    return f;
}

QByteArray minimal(const QByteArray& embeddings) {
    return "{\"tokens\": [\"a\", \"b\"], \"embeddings\": " + embeddings + "}";
}

}  // namespace

class TestExampleFile : public QObject {
    Q_OBJECT

private slots:
    void roundTripIsExact() {
        const attn::ExampleFile original = awkwardExample();
        const QByteArray text = attn::serializeExampleFile(original);
        const attn::ExampleParseResult parsed = attn::parseExampleFile(text);
        QVERIFY2(parsed.ok(), qPrintable(parsed.error));
        const attn::ExampleFile& f = *parsed.file;
        QCOMPARE(f.description, original.description);
        QCOMPARE(f.inputs.tokens, original.inputs.tokens);
        QVERIFY(sameBits(f.inputs.embeddings, original.inputs.embeddings));
        // QJsonObject sorts the names: "W_query.bias" < "W_query.weight".
        QCOMPARE(f.weights.size(), std::size_t{2});
        QCOMPARE(f.weights[0].name, std::string("W_query.bias"));
        QVERIFY(f.weights[0].is_vector);
        QVERIFY(sameBits(f.weights[0].value, original.weights[0].value));
        QCOMPARE(f.weights[1].name, std::string("W_query.weight"));
        QVERIFY(!f.weights[1].is_vector);
        QVERIFY(sameBits(f.weights[1].value, original.weights[1].value));
        QVERIFY(f.source.has_value());
        QCOMPARE(f.source->tokens, original.source->tokens);
        QVERIFY(sameBits(f.source->embeddings, original.source->embeddings));
        QVERIFY(f.config.has_value());
        // The file names the module as the table spells it; reading the name gives the kind.
        QVERIFY(text.contains("\"module\": \"cross-attention\""));
        QVERIFY(f.config->module == attn::ModuleKind::CrossAttention);
        QCOMPARE(f.config->seed, original.config->seed);
        QCOMPARE(f.config->num_heads, Eigen::Index{3});
        QCOMPARE(f.config->batch, Eigen::Index{2});
        QCOMPARE(f.config->dropout, 0.1f);
        QCOMPARE(f.config->d_out, Eigen::Index{0});
        // Writing the parsed file again gives the same bytes.
        QCOMPARE(attn::serializeExampleFile(f), text);
    }

    // An inference session keeps its dropout p, and explore mode's switches survive; -inf
    // is written as the string "-inf". Older files without "training" leave it unset.
    void trainingAndSwitchesRoundTrip() {
        attn::ExampleFile f;
        f.inputs = attn::tutorial_inputs();
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::BertMultiHead;
        config.dropout = 0.3f;
        config.causal = true;
        config.scale = false;
        config.mask_convention = attn::MaskConvention::FillWhereOne;
        config.fill_value = attn::kNegInf;
        f.config = config;
        f.training = false;
        const QByteArray text = attn::serializeExampleFile(f);
        QVERIFY(text.contains("\"fill\": \"-inf\""));
        const attn::ExampleParseResult parsed = attn::parseExampleFile(text);
        QVERIFY2(parsed.ok(), qPrintable(parsed.error));
        QCOMPARE(parsed.file->training, std::optional<bool>(false));
        QCOMPARE(parsed.file->config->dropout, 0.3f);
        QCOMPARE(parsed.file->config->causal, std::optional<bool>(true));
        QCOMPARE(parsed.file->config->scale, false);
        QVERIFY(parsed.file->config->mask_convention == attn::MaskConvention::FillWhereOne);
        QCOMPARE(parsed.file->config->fill_value, std::optional<float>(attn::kNegInf));
        QCOMPARE(attn::serializeExampleFile(*parsed.file), text);

        f.config->fill_value = -1e4f;
        const attn::ExampleParseResult finite =
            attn::parseExampleFile(attn::serializeExampleFile(f));
        QVERIFY2(finite.ok(), qPrintable(finite.error));
        QCOMPARE(finite.file->config->fill_value, std::optional<float>(-1e4f));

        const attn::ExampleParseResult old = attn::parseExampleFile(
            "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"config\": {\"dropout\": 0.5}}");
        QVERIFY(old.ok());
        QVERIFY(!old.file->training.has_value());
        QVERIFY(!old.file->config->causal.has_value());
        QVERIFY(!old.file->config->fill_value.has_value());
        QVERIFY(old.file->config->scale);
    }

    // gpt2-attention's head_mask and prune_heads survive; a config without them writes neither.
    void headMaskAndPruneHeadsRoundTrip() {
        attn::ExampleFile f;
        f.inputs = attn::tutorial_inputs();
        attn::ModuleConfig config;
        config.module = attn::ModuleKind::Gpt2Attention;
        f.config = config;
        QVERIFY(!attn::serializeExampleFile(f).contains("head_mask"));
        QVERIFY(!attn::serializeExampleFile(f).contains("prune_heads"));
        config.num_heads = 3;
        config.head_mask = {0.25f, 1.0f};
        config.prune_heads = {2};
        f.config = config;
        const QByteArray text = attn::serializeExampleFile(f);
        const attn::ExampleParseResult parsed = attn::parseExampleFile(text);
        QVERIFY2(parsed.ok(), qPrintable(parsed.error));
        QCOMPARE(parsed.file->config->head_mask, config.head_mask);
        QCOMPARE(parsed.file->config->prune_heads, config.prune_heads);
        QCOMPARE(attn::serializeExampleFile(*parsed.file), text);
    }

    // QJsonValue keeps -0 as the integer 0 (and reads "-0" as 0): the one float whose bits do not
    // survive a round trip; its value does.
    void negativeZeroReadsAsZero() {
        attn::ExampleFile f;
        f.inputs.tokens = {"a"};
        f.inputs.embeddings = attn::Matrix::Constant(1, 1, -0.0f);
        const QByteArray text = attn::serializeExampleFile(f);
        QVERIFY(text.contains("[0]"));
        const attn::ExampleParseResult parsed = attn::parseExampleFile(text);
        QVERIFY(parsed.ok());
        QCOMPARE(parsed.file->inputs.embeddings(0, 0), 0.0f);
        QVERIFY(!std::signbit(parsed.file->inputs.embeddings(0, 0)));
    }

    // Numbers as people write them, one matrix row per line.
    void serializedTextIsReadable() {
        attn::ExampleFile f;
        f.inputs = attn::tutorial_inputs();
        const QByteArray text = attn::serializeExampleFile(f);
        QVERIFY2(
            text.startsWith(
                "{\n  \"format\": \"attention-visualizer-example\",\n  \"version\": 1,\n"
                "  \"tokens\": [\"Your\", \"journey\", \"starts\", \"with\", \"one\", \"step\"],\n"
                "  \"embeddings\": [\n    [0.43, 0.15, 0.89],\n    [0.55, 0.87, 0.66],\n"),
            text.constData());
        QVERIFY(text.endsWith("    [0.05, 0.8, 0.55]\n  ]\n}\n"));
    }

    void acceptsHandWrittenFiles_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<qlonglong>("rows");
        QTest::addColumn<qlonglong>("cols");
        QTest::newRow("minimal") << minimal("[[1, 2], [3, 4]]") << 2LL << 2LL;
        QTest::newRow("byte-order mark") << ("\xEF\xBB\xBF" + minimal("[[1], [2]]")) << 2LL << 1LL;
        QTest::newRow("one token, exponents")
            << QByteArray("{\"tokens\": [\"x\"], \"embeddings\": [[1e-3, -2.5E+2, 0]]}") << 1LL
            << 3LL;
        QTest::newRow("subnormal and 1e30 are finite")
            << minimal("[[1e-45, 1e30], [-1e-40, 3.4e38]]") << 2LL << 2LL;
        QTest::newRow("format and version")
            << QByteArray(
                   "{\"format\": \"attention-visualizer-example\", \"version\": 1, "
                   "\"tokens\": [\"\"], \"embeddings\": [[0]]}")
            << 1LL << 1LL;
    }
    void acceptsHandWrittenFiles() {
        QFETCH(QByteArray, bytes);
        QFETCH(qlonglong, rows);
        QFETCH(qlonglong, cols);
        const attn::ExampleParseResult r = attn::parseExampleFile(bytes);
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.file->inputs.embeddings.rows(), rows);
        QCOMPARE(r.file->inputs.embeddings.cols(), cols);
        QVERIFY(!r.file->config.has_value());
        QVERIFY(!r.file->source.has_value());
    }

    void refusesMalformedFiles_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");

        QTest::newRow("empty")
            << QByteArray() << "the file is empty: an example needs \"tokens\" and \"embeddings\"";
        QTest::newRow("only spaces")
            << QByteArray(" \n\t\n")
            << "the file is empty: an example needs \"tokens\" and \"embeddings\"";
        QTest::newRow("not JSON")
            << QByteArray("tokens: Your journey")
            << "line 1, column 2: not valid JSON: illegal value; fix the JSON at that place";
        QTest::newRow("trailing comma")
            << QByteArray("{\"tokens\": [\"a\"],\n \"embeddings\": [[1, 2,]]}")
            << "line 2, column 24: not valid JSON: object is missing after a comma; fix the JSON "
               "at "
               "that place";
        QTest::newRow("missing comma")
            << QByteArray("{\"tokens\": [\"a\"]\n \"embeddings\": [[1]]}")
            << "line 2, column 3: not valid JSON: unterminated object; fix the JSON at that place";
        QTest::newRow("bare NaN")
            << QByteArray("{\"tokens\": [\"a\"],\n \"embeddings\": [[0.5, NaN]]}")
            << "line 2, column 23: not valid JSON: illegal number (NaN and Infinity are not JSON "
               "numbers; every value must be finite)";
        QTest::newRow("bare -Infinity")
            << QByteArray("{\"tokens\": [\"a\"], \"embeddings\": [[-Infinity]]}")
            << "line 1, column 36: not valid JSON: illegal number (NaN and Infinity are not JSON "
               "numbers; every value must be finite)";
        QTest::newRow("1e999")
            << QByteArray("{\"tokens\": [\"a\"], \"embeddings\": [[1e999]]}")
            << "line 1, column 40: not valid JSON: illegal number (the number 1e999 is too large)";
        QTest::newRow("a list")
            << QByteArray("[[0.43, 0.15]]")
            << "line 1, column 1: the file holds a list; an example is an object "
               "{\"tokens\": [...], \"embeddings\": [[...]]}";
        QTest::newRow("not UTF-8")
            << QByteArray(
                   "{\"tokens\": [\"a\"],\n \"embeddings\": [[1]],\n \"description\": \"caf\xe9\"}")
            << "line 3, column 21: the file is not valid UTF-8 (byte 0xe9): save it as UTF-8";
        QTest::newRow("overlong UTF-8")
            << QByteArray("{\"tokens\": [\"\xc0\xaf\"]}")
            << "line 1, column 14: the file is not valid UTF-8 (byte 0xc0): save it as UTF-8";
        QTest::newRow("no tokens")
            << QByteArray("{\"embeddings\": [[1]]}")
            << "line 1, column 1: the example has no \"tokens\": give the list of "
               "token texts, e.g. \"tokens\": [\"Your\", \"journey\"]";
        QTest::newRow("tokens is a string")
            << QByteArray("{\n  \"tokens\": \"Your journey\",\n  \"embeddings\": [[1]]\n}")
            << "line 2, column 13: tokens is the string \"Your journey\", not a list of strings";
        QTest::newRow("no token") << QByteArray("{\"tokens\": [], \"embeddings\": []}")
                                  << "line 1, column 12: tokens is empty: give at least one token";
        QTest::newRow("token is a number")
            << QByteArray("{\"tokens\": [\"a\", 3], \"embeddings\": [[1], [2]]}")
            << "line 1, column 18: token 2 is the number 3, not a string: put the token's text in "
               "quotes";
        QTest::newRow("unpaired surrogate")
            << QByteArray("{\"tokens\": [\"\\ud800\"], \"embeddings\": [[1]]}")
            << "line 1, column 13: token 1 contains an unpaired surrogate escape (\\ud800 .. "
               "\\udfff "
               "alone): remove it";
        QTest::newRow("no embeddings")
            << QByteArray("{\"tokens\": [\"a\"]}")
            << "line 1, column 1: the example has no \"embeddings\": give one "
               "row of numbers per token";
        QTest::newRow("fewer rows than tokens")
            << QByteArray(
                   "{\n  \"tokens\": [\"a\", \"b\", \"c\"],\n  \"embeddings\": [[1], [2]]\n}")
            << "line 3, column 17: embeddings has 2 rows but tokens has 3 entries; give one row "
               "per token";
        // The brief's own example: a ragged row, named by its line.
        QTest::newRow("ragged row")
            << QByteArray(
                   "{\n  \"tokens\": [\"Your\", \"journey\"],\n  \"embeddings\": [\n"
                   "    [0.43, 0.15, 0.89],\n    [0.55, 0.87]\n  ]\n}")
            << "line 5, column 5: embeddings row 2 has 2 numbers but row 1 has 3; every token "
               "needs "
               "the same number of values";
        QTest::newRow("flat embeddings")
            << minimal("[1, 2]")
            << "line 1, column 39: embeddings row 1 is the number 1, not a list of numbers";
        QTest::newRow("empty row")
            << minimal("[[], []]")
            << "line 1, column 39: embeddings row 1 is empty: every token needs "
               "the same number of values";
        QTest::newRow("string NaN")
            << minimal("[[1, 2], [3, \"NaN\"]]")
            << "line 1, column 51: embeddings row 2, value 2 is the string \"NaN\": NaN "
               "and infinity are not allowed; give a finite number";
        QTest::newRow("string -inf")
            << minimal("[[\"-inf\", 2], [3, 4]]")
            << "line 1, column 40: embeddings row 1, value 1 is the string \"-inf\": "
               "NaN and infinity are not allowed; give a finite number";
        QTest::newRow("quoted number")
            << minimal("[[1, \"0.5\"], [3, 4]]")
            << "line 1, column 43: embeddings row 1, value 2 is the string \"0.5\", "
               "not a number: remove the quotes";
        QTest::newRow("null")
            << minimal("[[1, 2], [null, 4]]")
            << "line 1, column 48: embeddings row 2, value 1 is null, not a number (a NaN "
               "written by a JSON library shows up as null): give a finite number";
        QTest::newRow("boolean")
            << minimal("[[true], [1]]")
            << "line 1, column 40: embeddings row 1, value 1 is true, not a number";
        QTest::newRow("beyond float")
            << minimal("[[1], [1e39]]")
            << "line 1, column 45: embeddings row 2, value 1 = 1e+39 is too large for a "
               "32-bit float (largest about 3.4e38): give a smaller number";
        QTest::newRow("unknown key") << QByteArray("{\"tokens\": [\"a\"], \"embedding\": [[1]]}")
                                     << "line 1, column 32: unknown key \"embedding\": an example "
                                        "has the keys format, version, "
                                        "description, tokens, embeddings, weights, source, config";
        QTest::newRow("wrong format")
            << QByteArray("{\"format\": \"pytorch\", \"tokens\": [\"a\"], \"embeddings\": [[1]]}")
            << "line 1, column 12: \"format\" is the string \"pytorch\": this is not an "
               "attention-visualizer example (expected \"attention-visualizer-example\")";
        QTest::newRow("newer version")
            << QByteArray("{\"version\": 2, \"tokens\": [\"a\"], \"embeddings\": [[1]]}")
            << "line 1, column 13: the file has format version 2, written by a newer version of "
               "the app; this build reads version 1";
        QTest::newRow("version as string")
            << QByteArray("{\"version\": \"1\", \"tokens\": [\"a\"], \"embeddings\": [[1]]}")
            << "line 1, column 13: \"version\" is the string \"1\": this build reads version 1";
        QTest::newRow("weights as list")
            << QByteArray("{\"tokens\": [\"a\"], \"embeddings\": [[1]],\n \"weights\": [[1]]}")
            << "line 2, column 13: \"weights\" is a list, not an object of named matrices such as "
               "{\"W_query.weight\": [[...]]}";
        QTest::newRow("ragged weight") << QByteArray(
                                              "{\"tokens\": [\"a\"], \"embeddings\": [[1]],\n "
                                              "\"weights\": {\"W_key\": [[1, 2],\n [3]]}}")
                                       << "line 3, column 2: weights \"W_key\" row 2 has 1 number "
                                          "but row 1 has 2; every row of "
                                          "a matrix needs the same number of values";
        QTest::newRow("weight vector with a string")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"weights\": {\"b\": [1, \"x\"]}}")
            << "line 1, column 61: weights \"b\", value 2 is the string \"x\", not a number";
        QTest::newRow("empty weight")
            << QByteArray("{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"weights\": {\"W\": []}}")
            << "line 1, column 57: weights \"W\" is empty, not a matrix (list of rows) or a vector "
               "(list of numbers)";
        QTest::newRow("source width")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1, 2]],\n"
                   " \"source\": {\"tokens\": [\"x\"], \"embeddings\": [[1, 2, 3]]}}")
            << "line 2, column 44: source embeddings have 3 values per token but embeddings have "
               "2; "
               "cross-attention needs both sequences of the same width";
        QTest::newRow("source token count")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]],\n"
                   " \"source\": {\"tokens\": [\"x\", \"y\"], \"embeddings\": [[1]]}}")
            << "line 2, column 49: source embeddings has 1 row but source tokens has 2 entries; "
               "give "
               "one row per token";
        QTest::newRow("source unknown key")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"source\": {\"words\": []}}")
            << "line 1, column 60: unknown key \"words\": \"source\" has the keys tokens, "
               "embeddings";
        QTest::newRow("config unknown key")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]],\n \"config\": {\"heads\": 2}}")
            << "line 2, column 22: unknown key \"heads\": \"config\" has the keys module, seed, "
               "d_out, "
               "num_heads, batch, context_length, dropout, qkv_bias, training, causal, scale, "
               "mask_convention, fill, dim_k, dim_v, head_mask, prune_heads, num_kv_heads, mask, "
               "window, lengths, rope, rope_base, position_offset";
        QTest::newRow("config unknown module")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]],\n \"config\": {\"module\": "
                   "\"lstm\"}}")
            << "line 2, column 23: unknown module \"lstm\": choose one of self-attention-v1, "
               "self-attention-v2, causal-attention, multi-head-wrapper, multi-head-attention, "
               "bert-multi-head, gpt2-attention, cross-attention, "
               "self-attention-kv, multi-head-self-attention-kv";
        QTest::newRow("config head_mask number")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"config\": {\"head_mask\": 1}}")
            << "line 1, column 64: config \"head_mask\" is the number 1, not a list of factors "
               "such "
               "as [1, 0.5]";
        QTest::newRow("config head_mask string")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"config\": {\"head_mask\": [1, "
                   "\"x\"]}}")
            << "line 1, column 68: config \"head_mask\", value 2 is the string \"x\", not a number";
        QTest::newRow("config prune_heads fraction")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"config\": {\"prune_heads\": "
                   "[0.5]}}")
            << "line 1, column 67: config \"prune_heads\" is the number 0.5: give a whole number "
               "from 0 to 16383 (a head number)";
        QTest::newRow("config negative seed")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"config\": {\"seed\": -1}}")
            << "line 1, column 59: config \"seed\" is the number -1: give a whole number from 0 to "
               "9007199254740992 (torch.manual_seed)";
        QTest::newRow("config fractional heads")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"config\": {\"num_heads\": 1.5}}")
            << "line 1, column 64: config \"num_heads\" is the number 1.5: give a whole number "
               "from 0 "
               "to 16384 (0 = the module's default)";
        QTest::newRow("config batch 0")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"config\": {\"batch\": 0}}")
            << "line 1, column 60: config \"batch\" is the number 0: give a whole number from 1 to "
               "64 "
               "(copies of the sequence)";
        QTest::newRow("config dropout 2")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"config\": {\"dropout\": 2}}")
            << "line 1, column 62: config \"dropout\" is the number 2: give a probability from 0 "
               "to 1";
        QTest::newRow("config qkv_bias string")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"config\": {\"qkv_bias\": "
                   "\"yes\"}}")
            << "line 1, column 63: config \"qkv_bias\" is the string \"yes\": give true or false";
        QTest::newRow("config training number")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"config\": {\"training\": 1}}")
            << "line 1, column 63: config \"training\" is the number 1: give true or false";
        QTest::newRow("config fill +inf string")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"config\": {\"fill\": \"inf\"}}")
            << "line 1, column 59: config \"fill\" is the string \"inf\": give a number such as "
               "-1e9 or -1e4, or \"-inf\"";
        QTest::newRow("config mask_convention 1")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]], \"config\": "
                   "{\"mask_convention\": 1}}")
            << "line 1, column 70: config \"mask_convention\" is the number 1: give \"zero\" "
               "(fill where mask == 0) or \"one\" (mask == 1)";
        // With duplicate keys the last one counts (as in QJsonDocument), and so does the message.
        QTest::newRow("duplicate key, last counts")
            << QByteArray(
                   "{\"tokens\": [\"a\"], \"embeddings\": [[1]],\n \"embeddings\": [[\"x\"]]}")
            << "line 2, column 18: embeddings row 1, value 1 is the string \"x\", not a number";
    }
    void refusesMalformedFiles() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        const attn::ExampleParseResult r = attn::parseExampleFile(bytes);
        QVERIFY(!r.ok());
        QCOMPARE(r.error, message);
    }

    void refusesLongTokens() {
        const QByteArray longToken(attn::kMaxTokenLength + 1, 'x');
        const attn::ExampleParseResult r = attn::parseExampleFile(
            "{\"tokens\": [\"a\", \"" + longToken + "\"], \"embeddings\": [[1], [2]]}");
        QCOMPARE(r.error, QStringLiteral("line 1, column 18: token 2 is 1025 characters long; the "
                                         "limit is 1024: split it into shorter tokens"));
        const QByteArray justFits(attn::kMaxTokenLength, 'x');
        QVERIFY(
            attn::parseExampleFile("{\"tokens\": [\"" + justFits + "\"], \"embeddings\": [[1]]}")
                .ok());
    }

    void refusesTooManyTokens() {
        QByteArray tokens = "[";
        QByteArray rows = "[";
        for (int i = 0; i <= attn::kMaxExampleTokens; ++i) {
            tokens += (i > 0 ? ", " : "") + QByteArray("\"t\"");
            rows += (i > 0 ? ", " : "") + QByteArray("[0.5]");
        }
        tokens += "]";
        rows += "]";
        const attn::ExampleParseResult r =
            attn::parseExampleFile("{\"tokens\": " + tokens + ", \"embeddings\": " + rows + "}");
        QCOMPARE(r.error, QStringLiteral("line 1, column 12: tokens has 4097 entries; the limit is "
                                         "4096 tokens: shorten the sequence"));
    }

    // Refused by size before any parsing.
    void refusesHugeFiles() {
        QByteArray huge(attn::kMaxExampleFileBytes + 1, ' ');
        QCOMPARE(attn::parseExampleFile(huge).error,
                 QStringLiteral("the file is 64.0 MB; example files are limited to 64.0 MB"));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("huge.json"));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        QVERIFY(out.resize(qint64{100} << 20));  // a 100 MB file, sparse on disk
        out.close();
        QCOMPARE(attn::loadExampleFile(path).error,
                 QStringLiteral("the file is 100.0 MB; example files are limited to 64.0 MB"));
    }

    void loadErrors() {
        QTemporaryDir dir;
        QCOMPARE(attn::loadExampleFile(dir.filePath(QStringLiteral("missing.json"))).error,
                 QStringLiteral("cannot open it: No such file or directory"));
        QCOMPARE(attn::loadExampleFile(dir.path()).error,
                 QStringLiteral("is a directory, not an example file"));
    }

    void saveAndLoad() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("example.json"));
        const attn::ExampleFile original = awkwardExample();
        QString error;
        QVERIFY2(attn::saveExampleFile(original, path, &error), qPrintable(error));
        const attn::ExampleParseResult loaded = attn::loadExampleFile(path);
        QVERIFY2(loaded.ok(), qPrintable(loaded.error));
        QVERIFY(sameBits(loaded.file->inputs.embeddings, original.inputs.embeddings));

        // Overwriting replaces the whole file.
        attn::ExampleFile small;
        small.inputs = attn::tutorial_inputs();
        QVERIFY(attn::saveExampleFile(small, path, &error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), attn::serializeExampleFile(small));
    }

    // A session with NaN cannot be written as JSON: refused, and the file on disk stays intact.
    void saveRefusesNonFinite() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("example.json"));
        attn::ExampleFile f;
        f.inputs = attn::tutorial_inputs();
        QString error;
        QVERIFY(attn::saveExampleFile(f, path, &error));
        const QByteArray before = attn::serializeExampleFile(f);
        f.inputs.embeddings(1, 2) = std::numeric_limits<float>::quiet_NaN();
        QVERIFY(!attn::saveExampleFile(f, path, &error));
        QCOMPARE(error, QStringLiteral(
                            "embeddings has NaN at row 2, column 3 (counting from 1): "
                            "replace it with a finite number (JSON cannot hold NaN or infinity)"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), before);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("example.json")});
    }

    void saveIntoMissingDirectory() {
        QTemporaryDir dir;
        attn::ExampleFile f;
        f.inputs = attn::tutorial_inputs();
        QString error;
        const QString path = dir.filePath(QStringLiteral("no/such/dir/example.json"));
        QVERIFY(!attn::saveExampleFile(f, path, &error));
        QVERIFY2(error.startsWith(QStringLiteral("cannot write ") + path + QStringLiteral(": ")),
                 qPrintable(error));
    }

    // The pieces the messages are built from.
    void locator_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("path");  // "key/1/key"
        QTest::addColumn<qlonglong>("offset");
        QTest::newRow("root") << QByteArray("  {\"a\": 1}") << "" << 2LL;
        QTest::newRow("key") << QByteArray("{\"a\": 1, \"b\": [5, 6]}") << "b" << 14LL;
        QTest::newRow("index") << QByteArray("{\"a\": 1, \"b\": [5, 6]}") << "b/1" << 18LL;
        QTest::newRow("escaped key") << QByteArray("{\"\\u0062\": [\"x,]}\", 7]}") << "b/1" << 20LL;
        QTest::newRow("missing key -> object") << QByteArray("{\"a\": {\"c\": 1}}") << "a/z" << 6LL;
    }
    void locator() {
        QFETCH(QByteArray, text);
        QFETCH(QString, path);
        QFETCH(qlonglong, offset);
        attn::JsonPath steps;
        for (const QString& part : path.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
            bool isIndex = false;
            const qsizetype index = part.toLongLong(&isIndex);
            steps.push_back(isIndex ? attn::JsonPathStep{QString(), index}
                                    : attn::JsonPathStep{part, -1});
        }
        QCOMPARE(static_cast<qlonglong>(attn::locateJsonValue(text, steps)), offset);
    }

    void numbersRoundTrip() {
        QCOMPARE(attn::formatFloat(0.43f), QByteArray("0.43"));
        QCOMPARE(attn::formatFloat(-0.5337386f), QByteArray("-0.5337386"));
        QCOMPARE(attn::formatFloat(std::numeric_limits<float>::infinity()), QByteArray("null"));
        QCOMPARE(attn::writeJson(QJsonArray{attn::jsonNumber(0.1f), attn::jsonNumber(NAN),
                                            attn::jsonNumber(1e30f)}),
                 QByteArray("[0.1, null, 1e+30]\n"));
        QCOMPARE(attn::firstInvalidUtf8(QByteArray("ok \xe6\x97\x85 \xed\xa0\x80")),
                 qsizetype{7});  // a surrogate
        QCOMPARE(attn::firstInvalidUtf8(QByteArray("\xf0\x9f\x98\x80 fine")), qsizetype{-1});
    }
};

QTEST_APPLESS_MAIN(TestExampleFile)
#include "test_example_file.moc"
