#include "views/matrix_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "model/number_format.h"
#include "views/heatmap_widget.h"

namespace views {

QStringList toQStringList(const std::vector<std::string>& labels) {
    QStringList list;
    list.reserve(static_cast<qsizetype>(labels.size()));
    for (const std::string& s : labels) list.append(QString::fromStdString(s));
    return list;
}

bool isBlocked(const attn::StepMatrix& m, Eigen::Index row, Eigen::Index col) {
    return m.blocked.rows() == m.values.rows() && m.blocked.cols() == m.values.cols() &&
           m.blocked(row, col);
}

MatrixPanel::MatrixPanel(QWidget* parent) : QFrame(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    caption = new QLabel(this);
    caption->setWordWrap(true);
    caption->setTextFormat(Qt::RichText);
    caption->setAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    heatmap = new HeatmapWidget(this);
    table = new QTableWidget(this);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::ContiguousSelection);
    table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->setFocusPolicy(Qt::NoFocus);
    table->hide();
    layout->addWidget(caption);
    layout->addWidget(heatmap, 1);
    layout->addWidget(table, 0, Qt::AlignHCenter);
}

void MatrixPanel::fillTable(const attn::StepMatrix& m, const attn::Matrix& values) {
    const int rows = static_cast<int>(values.rows());
    const int cols = static_cast<int>(values.cols());
    table->clear();
    table->setRowCount(rows);
    table->setColumnCount(cols);
    table->setHorizontalHeaderLabels(toQStringList(m.col_labels));
    table->setVerticalHeaderLabels(toQStringList(m.row_labels));
    const QColor maskedBackground = palette().color(QPalette::Mid);
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            const double v = static_cast<double>(values(r, c));
            auto* item = new QTableWidgetItem(QString::fromStdString(
                attn::format_fixed(v, m.kind == attn::MatrixKind::Mask ? 0 : 4)));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (isBlocked(m, r, c)) {
                item->setBackground(maskedBackground);
                // A filled score shows "−∞" whatever its stored value.
                if (std::isinf(m.fill_value) && m.kind == attn::MatrixKind::Scores)
                    item->setText(QString::fromStdString(
                        attn::format_fixed(static_cast<double>(m.fill_value))));
            }
            table->setItem(r, c, item);
        }
    }
    table->resizeColumnsToContents();
    table->resizeRowsToContents();
    fitTable();
}

void MatrixPanel::fitTable() {
    const int frame = 2 * table->frameWidth();
    const int w =
        table->verticalHeader()->sizeHint().width() + table->horizontalHeader()->length() + frame;
    const int h =
        table->horizontalHeader()->sizeHint().height() + table->verticalHeader()->length() + frame;
    table->setFixedSize(w, h);
}

// The heatmap's own hint keeps a 240 px minimum height for its colour scale, which stretches
// a 1 × 6 row into tall bars; a few rows get a height that keeps the cells about square.
QSize MatrixPanel::heatmapHint() const {
    QSize map = heatmap->sizeHint();
    const int rows = std::max(heatmap->rowCount(), 1);
    if (rows <= 3) {
        const double s = heatmap->scale();
        map.setHeight(std::min(map.height(), static_cast<int>((rows * 48 + 110) * s)));
    }
    return map;
}

QSize MatrixPanel::sizeHint() const {
    const QSize map = heatmapHint();
    // At least a caption's width, scaled with the page (a presented page may shrink to fit).
    int w = std::max(map.width(), static_cast<int>(220 * std::min(heatmap->scale(), 1.0)));
    if (!table->isHidden()) w = std::max(w, table->width());
    int h = caption->heightForWidth(w) + 4 + map.height();
    if (!table->isHidden()) h += 4 + table->height();
    return {w, h};
}

}  // namespace views
