// A matrix pasted as text, as users copy it from a spreadsheet or from a printed tensor:
//
//   0.43	0.15	0.89          tab-separated (spreadsheet), one row per line
//   0.43, 0.15, 0.89          comma- or semicolon-separated (CSV)
//   0.43 0.15 0.89            whitespace-separated
//   Your	0.43	0.15	0.89     the same with a label in front of every row (kept as
//   rowLabels) tensor([[0.4300, 0.1500, 0.8900],
//           [0.5500, 0.8700, 0.6600]], grad_fn=<MmBackward0>)   PyTorch, also "Parameter
//                                          containing:", array([...]) and plain [[...]] lists
//
// A first line without any number (a spreadsheet's header) is skipped. A 1-D list gives one row;
// a 3-D tensor is accepted only when its first dimension is 1. Numbers must be finite and fit a
// float. Parsing is a pure function; an error names the line and column and the problem.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

#include "model/tensor.h"

namespace attn {

inline constexpr qsizetype kMaxMatrixTextLength = qsizetype{16} << 20;  // characters

struct MatrixText {
    attn::Matrix matrix;
    QStringList rowLabels;  // one per row when every row started with a label, otherwise empty
};

struct MatrixTextResult {
    std::optional<MatrixText> value;
    QString error;  // "line 3, column 7: row 3 has 2 numbers but row 1 has 3; ..."
    bool ok() const { return value.has_value(); }
};

MatrixTextResult parseMatrixText(const QString& text);

}  // namespace attn
