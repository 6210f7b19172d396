// Writing safetensors files and rounding float32 to F16/BF16: a trained model's weights
// (app/io/train_data.h), the tests' own model folders and the fuzz target's seeds. The reader is
// app/io/safetensors.h.
#pragma once

#include <QByteArray>
#include <QMap>
#include <QString>
#include <cstdint>
#include <vector>

namespace attn {

// float → half/bfloat16, round to nearest, ties to even, as torch's .half() / .bfloat16();
// overflow gives ±inf; NaN gives the quiet NaN torch gives (0x7E00 / 0x7FC0).
std::uint16_t floatToHalf(float value);
std::uint16_t floatToBfloat16(float value);

struct SafetensorsTensorToWrite {
    QString name;
    QString dtype;  // "F32", "F16" or "BF16"
    std::vector<qint64> shape;
    std::vector<float> values;  // row-major, product of shape
};

// The file's bytes: header (keys sorted, padded with spaces to a multiple of 8) then the tensors
// in the given order. Empty with *error set on a bad dtype, a size mismatch or a repeated name.
QByteArray serializeSafetensors(const std::vector<SafetensorsTensorToWrite>& tensors,
                                const QMap<QString, QString>& metadata, QString* error);
// serializeSafetensors written atomically (app/io/atomic_file.h).
bool writeSafetensors(const QString& path, const std::vector<SafetensorsTensorToWrite>& tensors,
                      const QMap<QString, QString>& metadata, QString* error);

}  // namespace attn
