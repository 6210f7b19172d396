// Fuzzes the example file parser (app/example_file.h) with arbitrary bytes.
//
// Beyond "no crash, no sanitizer report, no hang", every input must end in exactly one of a
// parsed file or a message, and an accepted file must survive serialize -> parse unchanged (the
// app saves what it opened). Small accepted files with a config also run through the engine,
// which must return or throw AttentionError.
#include <QByteArray>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "app/io/example_file.h"
#include "model/runner.h"

namespace {

[[noreturn]] void fail(const char* what, const QString& detail = {}) {
    std::fprintf(stderr, "fuzz_example_file: %s %s\n", what, detail.toUtf8().constData());
    std::abort();
}

// Values compare with == so that -0 (read back as 0, see test_example_file) counts as equal.
bool sameMatrix(const attn::Matrix& a, const attn::Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

bool sameSequence(const attn::Sequence& a, const attn::Sequence& b) {
    return a.tokens == b.tokens && sameMatrix(a.embeddings, b.embeddings);
}

void checkRoundTrip(const attn::ExampleFile& file) {
    const attn::ExampleParseResult again = attn::parseExampleFile(attn::serializeExampleFile(file));
    if (!again.ok()) {
        fail("an accepted file does not read back after saving:", again.error);
    }
    const attn::ExampleFile& f = *again.file;
    if (!sameSequence(f.inputs, file.inputs) || f.description != file.description ||
        f.source.has_value() != file.source.has_value() ||
        (f.source && !sameSequence(*f.source, *file.source)) ||
        f.config.has_value() != file.config.has_value() ||
        f.weights.size() != file.weights.size()) {
        fail("the round trip changed the file");
    }
    // serializeExampleFile writes weights through a QJsonObject, which sorts names: compare by
    // name.
    for (const attn::NamedMatrix& w : file.weights) {
        bool found = false;
        for (const attn::NamedMatrix& v : f.weights) {
            found = found || (v.name == w.name && v.is_vector == w.is_vector &&
                              sameMatrix(v.value, w.value));
        }
        if (!found) {
            fail("the round trip changed weight", QString::fromStdString(w.name));
        }
    }
}

// Runs small files only: the limits of the format allow runs far too slow for a fuzzer.
void runSmall(const attn::ExampleFile& file) {
    if (!file.config || file.inputs.embeddings.size() > 64 || file.config->d_out > 32 ||
        file.config->num_heads > 32 || file.config->batch > 2 ||
        (file.source && file.source->embeddings.size() > 64)) {
        return;
    }
    for (const attn::NamedMatrix& w : file.weights) {
        if (w.value.size() > 1024) {
            return;
        }
    }
    attn::ModuleConfig config = *file.config;
    config.weights = file.weights;
    try {
        attn::run_module(config, file.inputs, file.source ? &*file.source : nullptr);
    } catch (const attn::AttentionError&) {
        // A refused run is a correct answer; anything else escapes and is reported as a crash.
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const attn::ExampleParseResult result = attn::parseExampleFile(bytes);
    if (result.ok() == !result.error.isEmpty()) {
        fail("expected exactly one of a file and a message; message:", result.error);
    }
    if (result.ok()) {
        const attn::ExampleFile& file = *result.file;
        if (file.inputs.tokens.empty() ||
            static_cast<qsizetype>(file.inputs.tokens.size()) != file.inputs.embeddings.rows() ||
            !file.inputs.embeddings.allFinite()) {
            fail("accepted a file that breaks the format's promises");
        }
        checkRoundTrip(file);
        runSmall(file);
    }
    return 0;
}
