// Fuzzes the attention dump reader (app/io/attention_dump.h): bytes as an .npy array (parseNpy)
// and as a whole dump (.npy or .safetensors), with a tokens JSON after the marker "@@tokens@@"
// when the input has one.
//
// Beyond "no crash, no sanitizer report, no hang": every input ends in exactly one of a result
// and a message; an accepted array has as many values as its shape says; an accepted dump has
// layers of equal shape with queries <= keys, only finite weights in [0, 1] give or take
// rounding, one token per key, the same numbers parseNpy read (for .npy), and each layer turns
// into a Step (model/attention_layer_step.h) without throwing.
#include <QByteArray>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "app/io/attention_dump.h"
#include "model/attention_layer_step.h"

namespace {

[[noreturn]] void fail(const char* what, const QString& detail = {}) {
    std::fprintf(stderr, "fuzz_attention_dump: %s %s\n", what, detail.toUtf8().constData());
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const QByteArray input(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const qsizetype cut = input.indexOf("@@tokens@@");
    const QByteArray bytes = cut < 0 ? input : input.left(cut);
    const QByteArray tokens = cut < 0 ? QByteArray() : input.mid(cut + 10);

    const attn::NpyParseResult npy = attn::parseNpy(bytes);
    if (npy.ok() == !npy.error.isEmpty()) fail("npy: neither or both", npy.error);
    if (npy.ok()) {
        qint64 elements = 1;
        for (qint64 d : npy.array.shape) elements *= d;
        if (elements != static_cast<qint64>(npy.array.values.size())) fail("npy: value count");
        if (npy.array.descr != QLatin1String("<f4") && npy.array.descr != QLatin1String("<f2"))
            fail("npy: accepted dtype", npy.array.descr);
    }

    const attn::AttentionDumpResult r = attn::attentionDumpFromBytes(bytes, tokens);
    if (r.ok() == !r.error.isEmpty()) fail("dump: neither or both", r.error);
    if (r.error.contains(QLatin1Char('\n'))) fail("dump: message of several lines", r.error);
    if (!r.ok()) return 0;
    const attn::AttentionDump& dump = r.dump;
    if (dump.attentions.empty() || dump.attentions.front().empty()) fail("dump: empty");
    const Eigen::Index t_q = dump.attentions.front().front().rows();
    const Eigen::Index t_k = dump.attentions.front().front().cols();
    if (t_q < 1 || t_q > t_k) fail("dump: queries > keys");
    if (dump.tokens.size() != t_k) fail("dump: token count");
    std::size_t k = 0;
    std::vector<std::string> labels;
    for (const QString& t : dump.tokens) labels.push_back(t.toStdString());
    for (std::size_t l = 0; l < dump.attentions.size(); ++l) {
        const std::vector<attn::Matrix>& heads = dump.attentions[l];
        if (heads.size() != dump.attentions.front().size()) fail("dump: head count differs");
        for (const attn::Matrix& m : heads) {
            if (m.rows() != t_q || m.cols() != t_k) fail("dump: shape differs");
            for (Eigen::Index i = 0; i < m.rows(); ++i) {
                for (Eigen::Index j = 0; j < m.cols(); ++j, ++k) {
                    const float v = m(i, j);
                    if (!std::isfinite(v) || v < -0.01f || v > 1.01f) fail("dump: not a weight");
                    if (npy.ok() && (k >= npy.array.values.size() || npy.array.values[k] != v))
                        fail("dump: differs from parseNpy");
                }
            }
        }
        try {
            const attn::Step step =
                attn::attention_layer_step(heads, static_cast<Eigen::Index>(l), labels);
            if (step.matrices.size() != heads.size()) fail("step: head count");
        } catch (const attn::AttentionError& e) {
            fail("step threw", QString::fromStdString(e.what()));
        }
    }
    if (npy.ok() && k != npy.array.values.size()) fail("dump: value count differs from parseNpy");
    return 0;
}
