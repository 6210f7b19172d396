// Fuzzes the safetensors reader (app/io/safetensors.h) and GPT-2's config.json parser
// (app/io/model_folder.h) with arbitrary bytes.
//
// Beyond "no crash, no sanitizer report, no hang": every input ends in exactly one of a file or
// a message; every tensor an accepted header lists lies inside the data and reads as floats (or
// is refused for its dtype with a message), and an accepted F32/F16/BF16 file written again by
// the writer reads back with the same values.
#include <QByteArray>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "app/io/model_folder.h"
#include "app/io/safetensors.h"
#include "app/io/safetensors_writer.h"

namespace {

[[noreturn]] void fail(const char* what, const QString& detail = {}) {
    std::fprintf(stderr, "fuzz_safetensors: %s %s\n", what, detail.toUtf8().constData());
    std::abort();
}

bool sameFloat(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));

    const attn::ModelConfigResult config = attn::parseModelConfig(bytes);
    if (config.ok() == !config.error.isEmpty()) fail("config: neither or both", config.error);

    const attn::SafetensorsOpenResult opened = attn::SafetensorsFile::fromBytes(bytes);
    if (opened.ok() == !opened.error.isEmpty()) fail("open: neither or both", opened.error);
    if (!opened.ok()) return 0;
    const attn::SafetensorsFile& file = *opened.file;
    std::vector<attn::SafetensorsTensorToWrite> again;
    for (const QString& name : file.names()) {
        const attn::SafetensorsTensorInfo* info = file.info(name);
        if (!info) fail("listed tensor without info", name);
        const attn::FloatTensorResult floats = file.floats(name);
        const bool readable = info->dtype == QLatin1String("F32") ||
                              info->dtype == QLatin1String("F16") ||
                              info->dtype == QLatin1String("BF16");
        if (floats.ok() != readable) fail("dtype and read disagree", name + floats.error);
        if (!floats.ok()) continue;
        if (floats.tensor.elements != info->elements) fail("element count", name);
        // Touch every value: a view outside the data would be caught by ASan here.
        volatile float sink = 0;
        for (qint64 i = 0; i < floats.tensor.elements; ++i) sink = sink + floats.tensor.data[i];
        attn::SafetensorsTensorToWrite t;
        t.name = name;
        t.dtype = info->dtype;
        t.shape = info->shape;
        t.values.assign(floats.tensor.data, floats.tensor.data + floats.tensor.elements);
        again.push_back(std::move(t));
    }
    if (again.empty()) return 0;
    QString error;
    const QByteArray written = attn::serializeSafetensors(again, {}, &error);
    if (written.isEmpty()) fail("write of an accepted file", error);
    const attn::SafetensorsOpenResult reread = attn::SafetensorsFile::fromBytes(written);
    if (!reread.ok()) fail("reread", reread.error);
    for (const attn::SafetensorsTensorToWrite& t : again) {
        const attn::FloatTensorResult floats = reread.file->floats(t.name);
        if (!floats.ok() || floats.tensor.elements != static_cast<qint64>(t.values.size()))
            fail("reread tensor", t.name);
        for (std::size_t i = 0; i < t.values.size(); ++i)
            if (!sameFloat(floats.tensor.data[i], t.values[i])) fail("value changed", t.name);
    }
    return 0;
}
