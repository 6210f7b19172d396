#include "app/io/matrix_text.h"

#include <cfloat>
#include <charconv>
#include <cmath>
#include <vector>

#include "app/io/json_locator.h"

namespace attn {

namespace {

struct Failure {
    QString message;
};

// What a field of text holds when read as a number.
struct NumberRead {
    enum Kind { Number, NotNumber, NotFinite, TooLarge } kind = NotNumber;
    float value = 0.0f;
};

NumberRead readNumber(QStringView field) {
    NumberRead out;
    QString text = field.trimmed().toString();
    if (text.startsWith(QLatin1Char('+'))) {
        text.remove(0, 1);
    }
    if (text.isEmpty()) {
        return out;
    }
    const QByteArray bytes = text.toLatin1();
    if (QString::fromLatin1(bytes) != text) {
        return out;  // characters outside Latin-1 are never part of a number
    }
    double d = 0.0;
    const char* begin = bytes.constData();
    const char* end = begin + bytes.size();
    // from_chars ignores the C locale, which a German user's environment would otherwise set.
    const std::from_chars_result r = std::from_chars(begin, end, d, std::chars_format::general);
    if (r.ptr != end) {
        return out;
    }
    if (r.ec == std::errc::result_out_of_range) {
        // Out of double range: an overflow unless the exponent is negative (an underflow to 0).
        const qsizetype e = text.indexOf(QLatin1Char('e'), 0, Qt::CaseInsensitive);
        const bool underflow = e >= 0 && text.mid(e + 1).startsWith(QLatin1Char('-'));
        if (!underflow) {
            out.kind = NumberRead::TooLarge;
            return out;
        }
        d = text.startsWith(QLatin1Char('-')) ? -0.0 : 0.0;
    } else if (r.ec != std::errc()) {
        return out;
    }
    if (std::isnan(d) || std::isinf(d)) {
        out.kind = NumberRead::NotFinite;
        return out;
    }
    // Beyond FLT_MAX plus half a float ulp (2^103) the float would be infinite.
    if (!(std::fabs(d) < static_cast<double>(FLT_MAX) + 0x1p103)) {
        out.kind = NumberRead::TooLarge;
        return out;
    }
    out.kind = NumberRead::Number;
    out.value = static_cast<float>(d);
    return out;
}

class TextParser {
public:
    explicit TextParser(QString text) : t_(std::move(text)) {}

    MatrixText parse() {
        qsizetype first = skipSpace(0);
        if (first >= t_.size()) {
            throw Failure{QStringLiteral("the text is empty: paste rows of numbers")};
        }
        if (t_.indexOf(QLatin1Char('[')) >= 0) {
            return parseBrackets(first);
        }
        return parseLines();
    }

private:
    [[noreturn]] void fail(qsizetype index, const QString& message) const {
        throw Failure{positionText(textPosition(QStringView(t_), index)) + QStringLiteral(": ") +
                      message};
    }

    static QString shown(QStringView s) {
        constexpr qsizetype kShown = 30;
        return QLatin1Char('"') +
               (s.size() > kShown ? s.left(kShown).toString() + QStringLiteral("...")
                                  : s.toString()) +
               QLatin1Char('"');
    }

    [[noreturn]] void failNumber(qsizetype index, QStringView field, NumberRead::Kind kind) const {
        switch (kind) {
            case NumberRead::NotFinite:
                fail(index, QStringLiteral(
                                "%1 is not a finite number: replace NaN or infinity with a number")
                                .arg(shown(field.trimmed())));
            case NumberRead::TooLarge:
                fail(index,
                     QStringLiteral("%1 is too large for a 32-bit float (largest about 3.4e38)")
                         .arg(shown(field.trimmed())));
            default:
                fail(index, QStringLiteral("%1 is not a number").arg(shown(field.trimmed())));
        }
    }

    bool isSpace(qsizetype i) const { return i < t_.size() && t_[i].isSpace(); }
    qsizetype skipSpace(qsizetype i) const {
        while (isSpace(i)) {
            ++i;
        }
        return i;
    }

    // --- tensor([[...]]) and [[...]] -------------------------------------------------------------

    struct Node {
        bool isList = false;
        float value = 0.0f;
        qsizetype pos = 0;
        std::vector<Node> items;
    };

    static constexpr int kMaxDepth = 3;

    Node parseList(qsizetype& i, int depth) const {
        Node node;
        node.isList = true;
        node.pos = i;
        ++i;                     // '['
        bool expectItem = true;  // false right after an item: a ',' or whitespace must follow
        for (;;) {
            i = skipSpace(i);
            if (i >= t_.size()) {
                fail(node.pos, QStringLiteral("this '[' is never closed: add the missing ']'"));
            }
            const QChar c = t_[i];
            if (c == QLatin1Char(']')) {
                ++i;
                return node;
            }
            if (c == QLatin1Char(',')) {
                if (expectItem) {
                    fail(i, QStringLiteral("a ',' without a value before it"));
                }
                expectItem = true;
                ++i;
                continue;
            }
            if (c == QLatin1Char('[')) {
                if (depth + 1 >= kMaxDepth) {
                    fail(i, QStringLiteral("the list is nested more than 3 levels deep: paste one "
                                           "matrix"));
                }
                node.items.push_back(parseList(i, depth + 1));
            } else {
                const qsizetype start = i;
                while (i < t_.size() && !t_[i].isSpace() && t_[i] != QLatin1Char(',') &&
                       t_[i] != QLatin1Char('[') && t_[i] != QLatin1Char(']') &&
                       t_[i] != QLatin1Char(')')) {
                    ++i;
                }
                const QStringView field = QStringView(t_).mid(start, i - start);
                if (field.isEmpty()) {
                    fail(start, QStringLiteral("unexpected %1 inside the list")
                                    .arg(shown(QStringView(t_).mid(start, 1))));
                }
                if (field.contains(QStringLiteral("..."))) {
                    fail(start,
                         QStringLiteral(
                             "the tensor was printed with '...' (values left out): "
                             "print it in full, e.g. torch.set_printoptions(profile=\"full\")"));
                }
                const NumberRead n = readNumber(field);
                if (n.kind != NumberRead::Number) {
                    failNumber(start, field, n.kind);
                }
                Node leaf;
                leaf.value = n.value;
                leaf.pos = start;
                node.items.push_back(leaf);
            }
            expectItem = false;
        }
    }

    MatrixText parseBrackets(qsizetype i) const {
        static const QString kParameter = QStringLiteral("Parameter containing:");
        if (QStringView(t_).mid(i).startsWith(kParameter)) {
            i = skipSpace(i + kParameter.size());
        }
        bool wrapped = false;
        const qsizetype nameStart = i;
        while (i < t_.size() && (t_[i].isLetterOrNumber() || t_[i] == QLatin1Char('_') ||
                                 t_[i] == QLatin1Char('.'))) {
            ++i;
        }
        if (i > nameStart) {
            const qsizetype nameEnd = i;
            i = skipSpace(i);
            if (i >= t_.size() || t_[i] != QLatin1Char('(')) {
                fail(nameStart,
                     QStringLiteral("expected a list such as [[0.43, 0.15], [0.55, 0.87]] or "
                                    "tensor([[...]]), found %1")
                         .arg(shown(QStringView(t_).mid(nameStart, nameEnd - nameStart))));
            }
            wrapped = true;
            i = skipSpace(i + 1);
        }
        if (i >= t_.size() || t_[i] != QLatin1Char('[')) {
            fail(i, QStringLiteral("expected '[' to start the matrix"));
        }
        const Node root = parseList(i, 0);

        // What may follow: ", grad_fn=<...>)" or ")" after tensor(...), nothing after a plain list.
        i = skipSpace(i);
        if (wrapped) {
            if (i >= t_.size() || (t_[i] != QLatin1Char(',') && t_[i] != QLatin1Char(')'))) {
                fail(i, QStringLiteral("expected ')' to close the tensor(...) around the matrix"));
            }
            const QString rest = t_.mid(i).trimmed();
            if (!rest.endsWith(QLatin1Char(')'))) {
                fail(t_.size(),
                     QStringLiteral("expected ')' to close the tensor(...) around the matrix"));
            }
        } else {
            if (i < t_.size() && t_[i] == QLatin1Char(',')) {
                i = skipSpace(i + 1);
            }
            if (i < t_.size()) {
                fail(i, QStringLiteral("unexpected text after the matrix: paste one matrix"));
            }
        }
        return toMatrix(root);
    }

    MatrixText toMatrix(const Node& root) const {
        if (root.items.empty()) {
            fail(root.pos, QStringLiteral("the list is empty: paste at least one number"));
        }
        const Node* rows = &root;
        if (root.items.front().isList && !root.items.front().items.empty() &&
            root.items.front().items.front().isList) {
            // A 3-D tensor: fine only as a batch of one.
            if (root.items.size() != 1) {
                fail(root.pos,
                     QStringLiteral("this is a 3-D tensor holding %1 matrices: paste one of "
                                    "them, e.g. print(x[0])")
                         .arg(root.items.size()));
            }
            rows = &root.items.front();
        }
        MatrixText out;
        if (!rows->items.front().isList) {
            // A 1-D tensor: one row.
            out.matrix.resize(1, static_cast<Eigen::Index>(rows->items.size()));
            for (std::size_t j = 0; j < rows->items.size(); ++j) {
                const Node& item = rows->items[j];
                if (item.isList) {
                    fail(item.pos,
                         QStringLiteral(
                             "a list inside a list of numbers: give every row as a list"));
                }
                out.matrix(0, static_cast<Eigen::Index>(j)) = item.value;
            }
            return out;
        }
        const std::size_t cols = rows->items.front().items.size();
        out.matrix.resize(static_cast<Eigen::Index>(rows->items.size()),
                          static_cast<Eigen::Index>(cols));
        for (std::size_t r = 0; r < rows->items.size(); ++r) {
            const Node& row = rows->items[r];
            if (!row.isList) {
                fail(row.pos, QStringLiteral("row %1 is a single number but row 1 is a list: give "
                                             "every row as a list")
                                  .arg(r + 1));
            }
            if (row.items.size() != cols || cols == 0) {
                fail(row.pos, QStringLiteral("row %1 has %2 numbers but row 1 has %3; every row "
                                             "needs the same number of values")
                                  .arg(r + 1)
                                  .arg(row.items.size())
                                  .arg(cols));
            }
            for (std::size_t j = 0; j < cols; ++j) {
                const Node& item = row.items[j];
                if (item.isList) {
                    fail(item.pos,
                         QStringLiteral("row %1 holds a list where a number belongs").arg(r + 1));
                }
                out.matrix(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(j)) = item.value;
            }
        }
        return out;
    }

    // --- rows of separated values ------------------------------------------------------------

    struct Field {
        QStringView text;
        qsizetype pos = 0;
        NumberRead number;
    };

    struct Row {
        qsizetype pos = 0;  // start of the line
        std::vector<Field> fields;
    };

    std::vector<Field> splitLine(qsizetype start, qsizetype end) const {
        const QStringView line = QStringView(t_).mid(start, end - start);
        std::vector<Field> fields;
        auto addField = [&](qsizetype from, qsizetype to) {
            qsizetype a = from;
            qsizetype b = to;
            while (a < b && line[a].isSpace()) {
                ++a;
            }
            while (b > a && line[b - 1].isSpace()) {
                --b;
            }
            Field f;
            f.text = line.mid(a, b - a);
            f.pos = start + a;
            f.number = readNumber(f.text);
            fields.push_back(f);
        };
        const bool tabs = line.contains(QLatin1Char('\t'));
        const bool commas =
            !tabs && (line.contains(QLatin1Char(',')) || line.contains(QLatin1Char(';')));
        if (tabs || commas) {
            qsizetype from = 0;
            for (qsizetype k = 0; k <= line.size(); ++k) {
                const bool separator =
                    k < line.size() &&
                    (tabs ? line[k] == QLatin1Char('\t')
                          : (line[k] == QLatin1Char(',') || line[k] == QLatin1Char(';')));
                if (k == line.size() || separator) {
                    addField(from, k);
                    from = k + 1;
                }
            }
            // A separator at the end of the line (spreadsheets and CSV writers add one) is fine.
            while (!fields.empty() && fields.back().text.isEmpty()) {
                fields.pop_back();
            }
        } else {
            qsizetype k = 0;
            while (k < line.size()) {
                while (k < line.size() && line[k].isSpace()) {
                    ++k;
                }
                const qsizetype from = k;
                while (k < line.size() && !line[k].isSpace()) {
                    ++k;
                }
                if (k > from) {
                    addField(from, k);
                }
            }
        }
        return fields;
    }

    static bool isLabel(const Field& f) {
        return f.number.kind == NumberRead::NotNumber && !f.text.isEmpty();
    }

    MatrixText parseLines() const {
        std::vector<Row> rows;
        qsizetype start = 0;
        while (start <= t_.size()) {
            qsizetype end = t_.indexOf(QLatin1Char('\n'), start);
            if (end < 0) {
                end = t_.size();
            }
            Row row;
            row.pos = start;
            row.fields = splitLine(start, end);
            if (!row.fields.empty()) {
                rows.push_back(std::move(row));
            }
            start = end + 1;
        }

        // Separators alone (",", ";;;") leave no row at all.
        if (rows.empty()) {
            throw Failure{QStringLiteral(
                "no numbers found, only separators: paste rows of numbers separated by tabs, "
                "commas or spaces")};
        }

        // A header line (column names, no number at all; its corner cell may be empty) above data
        // rows is skipped.
        if (rows.size() > 1) {
            bool header = true;
            for (const Field& f : rows.front().fields) {
                header = header && f.number.kind == NumberRead::NotNumber;
            }
            if (header) {
                rows.erase(rows.begin());
            }
        }
        for (const Row& row : rows) {
            for (const Field& f : row.fields) {
                if (f.text.isEmpty()) {
                    fail(f.pos, QStringLiteral("an empty cell: every cell needs a number"));
                }
            }
        }

        // Labels: every row starts with a non-number and has values after it.
        bool labels = true;
        for (const Row& row : rows) {
            labels = labels && row.fields.size() >= 2 && isLabel(row.fields.front());
        }

        const std::size_t skip = labels ? 1 : 0;
        const std::size_t cols = rows.front().fields.size() - skip;
        MatrixText out;
        out.matrix.resize(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(cols));
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const Row& row = rows[r];
            if (labels) {
                out.rowLabels.append(row.fields.front().text.toString());
            }
            for (std::size_t j = skip; j < row.fields.size(); ++j) {
                const Field& f = row.fields[j];
                if (f.number.kind != NumberRead::Number) {
                    failNumber(f.pos, f.text, f.number.kind);
                }
            }
            if (row.fields.size() - skip != cols) {
                fail(row.pos,
                     QStringLiteral("row %1 has %2 numbers but row 1 has %3; every row needs "
                                    "the same number of values")
                         .arg(r + 1)
                         .arg(row.fields.size() - skip)
                         .arg(cols));
            }
            for (std::size_t j = 0; j < cols; ++j) {
                out.matrix(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(j)) =
                    row.fields[j + skip].number.value;
            }
        }
        return out;
    }

    QString t_;
};

}  // namespace

MatrixTextResult parseMatrixText(const QString& text) {
    MatrixTextResult result;
    if (text.size() > kMaxMatrixTextLength) {
        result.error =
            QStringLiteral("the text has %1 characters; the limit is %2: paste a smaller matrix")
                .arg(text.size())
                .arg(kMaxMatrixTextLength);
        return result;
    }
    QString normalized = text;
    normalized.replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
    normalized.replace(QLatin1Char('\r'), QLatin1Char('\n'));
    try {
        result.value = TextParser(std::move(normalized)).parse();
    } catch (const Failure& failure) {
        result.error = failure.message;
    }
    return result;
}

}  // namespace attn
