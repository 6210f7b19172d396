// Fuzzes the pasted-matrix parser (app/matrix_text.h).
//
// The first byte picks how the rest becomes a QString: UTF-8 (what a clipboard usually holds,
// invalid bytes replaced), or raw UTF-16 (which can hold unpaired surrogates, as a clipboard on
// some systems does). Beyond "no crash": exactly one of a matrix and a message; an accepted matrix
// is non-empty, finite and has one label per row or none; and the matrix printed back as
// tab-separated shortest digits parses to the same values.
#include <QString>
#include <QStringList>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "app/io/json_text.h"
#include "app/io/matrix_text.h"

namespace {

[[noreturn]] void fail(const char* what, const QString& detail = {}) {
    std::fprintf(stderr, "fuzz_matrix_text: %s %s\n", what, detail.toUtf8().constData());
    std::abort();
}

QString toText(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return {};
    }
    const auto* rest = reinterpret_cast<const char*>(data + 1);
    const std::size_t n = size - 1;
    if ((data[0] & 1u) == 0) {
        return QString::fromUtf8(rest, static_cast<qsizetype>(n));
    }
    QString text(static_cast<qsizetype>(n / 2), QChar());
    std::memcpy(text.data(), rest, (n / 2) * sizeof(char16_t));
    return text;
}

QString tabSeparated(const attn::Matrix& m) {
    QString out;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        QStringList cells;
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            cells << QString::fromLatin1(attn::formatFloat(m(i, j)));
        }
        out += cells.join(QLatin1Char('\t')) + QLatin1Char('\n');
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const attn::MatrixTextResult result = attn::parseMatrixText(toText(data, size));
    if (result.ok() == !result.error.isEmpty()) {
        fail("expected exactly one of a matrix and a message; message:", result.error);
    }
    if (!result.ok()) {
        return 0;
    }
    const attn::MatrixText& m = *result.value;
    if (m.matrix.rows() < 1 || m.matrix.cols() < 1 || !m.matrix.allFinite()) {
        fail("accepted an empty or non-finite matrix");
    }
    if (!m.rowLabels.isEmpty() && m.rowLabels.size() != m.matrix.rows()) {
        fail("row labels do not match the rows");
    }
    const attn::MatrixTextResult again = attn::parseMatrixText(tabSeparated(m.matrix));
    if (!again.ok()) {
        fail("the accepted matrix printed back is refused:", again.error);
    }
    if (again.value->matrix.rows() != m.matrix.rows() ||
        again.value->matrix.cols() != m.matrix.cols() ||
        !(again.value->matrix.array() == m.matrix.array()).all()) {
        fail("the accepted matrix printed back reads as other numbers");
    }
    return 0;
}
