#include "views/explore_token_model.h"

#include <QLocale>
#include <cmath>
#include <limits>

#include "model/number_format.h"
#include "views/number_text.h"

namespace views {

ExploreTokenModel::ExploreTokenModel(QObject* parent) : QAbstractTableModel(parent) {}

void ExploreTokenModel::setSequence(const attn::Sequence& sequence) {
    const bool sameShape = sequence.embeddings.rows() == sequence_.embeddings.rows() &&
                           sequence.embeddings.cols() == sequence_.embeddings.cols() &&
                           sequence.tokens.size() == sequence_.tokens.size();
    if (!sameShape) beginResetModel();
    sequence_ = sequence;
    if (!sameShape) {
        endResetModel();
    } else if (rowCount() > 0 && columnCount() > 0) {
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
    }
}

int ExploreTokenModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(sequence_.embeddings.rows());
}

int ExploreTokenModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : 1 + static_cast<int>(sequence_.embeddings.cols());
}

QVariant ExploreTokenModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const int row = index.row();
    if (index.column() == 0) {
        if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
        return row < static_cast<int>(sequence_.tokens.size())
                   ? QString::fromStdString(sequence_.tokens[static_cast<std::size_t>(row)])
                   : QString();
    }
    const float v = sequence_.embeddings(row, index.column() - 1);
    switch (role) {
        case Qt::DisplayRole:
            return fixedText(static_cast<double>(v));
        case Qt::EditRole:
            // Full precision, so editing a cell and leaving it changes nothing.
            return shortestText(v);
        case Qt::TextAlignmentRole:
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        case Qt::ToolTipRole:
            return QString::number(static_cast<double>(v), 'g', 9);
        default:
            return {};
    }
}

QVariant ExploreTokenModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Vertical) return section + 1;
    if (section == 0) return tr("token");
    return tr("x%1").arg(section);
}

Qt::ItemFlags ExploreTokenModel::flags(const QModelIndex& index) const {
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return Qt::NoItemFlags;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable;
}

bool ExploreTokenModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole || !index.isValid() ||
        !checkIndex(index, CheckIndexOption::IndexIsValid))
        return false;
    if (index.column() == 0) {
        emit tokenEdited(index.row(), value.toString());
        return true;
    }
    // Accept both "0.5" and the locale's "0,5".
    const QString text = value.toString().trimmed();
    bool ok = false;
    double v = text.toDouble(&ok);
    if (!ok) v = QLocale().toDouble(text, &ok);
    if (!ok || !std::isfinite(v) || std::abs(v) > double{std::numeric_limits<float>::max()})
        return false;
    emit embeddingEdited(index.row(), index.column() - 1, static_cast<float>(v));
    return true;
}

}  // namespace views
