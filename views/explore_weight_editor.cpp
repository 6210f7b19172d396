#include "views/explore_weight_editor.h"

#include <QAbstractTableModel>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>
#include <functional>

#include "model/number_format.h"
#include "views/number_text.h"

namespace views {

// One parameter matrix as a table model: numbers are formatted when the view asks for a cell, so
// a 768 × 768 out_proj costs what the visible cells cost. An edit is handed to onEdit and shows
// once the engine has rerun with it (setMatrix with the new weights).
class WeightTableModel : public QAbstractTableModel {
public:
    using QAbstractTableModel::QAbstractTableModel;

    std::function<void(int row, int column, float value)> onEdit;

    // m must stay alive until the next setMatrix (the editor keeps the weights; the previous
    // matrix may already be gone, so only its remembered shape is compared).
    void setMatrix(const attn::Matrix* m) {
        const Eigen::Index rows = m ? m->rows() : 0, cols = m ? m->cols() : 0;
        if (rows != rows_ || cols != cols_) {
            beginResetModel();
            matrix_ = m;
            rows_ = rows;
            cols_ = cols;
            endResetModel();
            return;
        }
        matrix_ = m;  // same shape: keep the view's scroll position and current cell
        if (rows_ > 0 && cols_ > 0)
            emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
    }

    int rowCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : static_cast<int>(rows_);
    }
    int columnCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : static_cast<int>(cols_);
    }
    QVariant data(const QModelIndex& index, int role) const override {
        if (!matrix_ || !index.isValid()) return {};
        const float v = (*matrix_)(index.row(), index.column());
        switch (role) {
            case Qt::DisplayRole:
                return fixedText(static_cast<double>(v));
            case Qt::EditRole:  // full precision, so editing a cell and leaving it changes nothing
            case Qt::ToolTipRole:
                return shortestText(v);
            case Qt::TextAlignmentRole:
                return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
            default:
                return {};
        }
    }
    Qt::ItemFlags flags(const QModelIndex& index) const override {
        return QAbstractTableModel::flags(index) | Qt::ItemIsEditable;
    }
    // Text that is not a finite number is refused: the cell keeps its value.
    bool setData(const QModelIndex& index, const QVariant& value, int role) override {
        if (role != Qt::EditRole || !index.isValid() || !matrix_) return false;
        const QString text = value.toString().trimmed();
        bool ok = false;
        double v = text.toDouble(&ok);
        if (!ok) v = QLocale().toDouble(text, &ok);
        if (!ok || !std::isfinite(v)) return false;
        if (onEdit) onEdit(index.row(), index.column(), static_cast<float>(v));
        return true;
    }

private:
    const attn::Matrix* matrix_ = nullptr;
    Eigen::Index rows_ = 0, cols_ = 0;
};

ExploreWeightEditor::ExploreWeightEditor(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    names_ = new QComboBox(this);
    names_->setSizeAdjustPolicy(QComboBox::AdjustToContents);  // room for the " *" of an edit
    shape_ = new QLabel(this);
    reset_ = new QPushButton(this);
    top->addWidget(names_);
    top->addWidget(shape_, 1);
    top->addWidget(reset_);
    layout->addLayout(top);
    table_ = new QTableView(this);
    model_ = new WeightTableModel(this);
    table_->setModel(model_);
    table_->horizontalHeader()->setDefaultSectionSize(72);
    layout->addWidget(table_, 1);
    connect(names_, &QComboBox::currentIndexChanged, this, [this] { showCurrent(); });
    connect(reset_, &QPushButton::clicked, this, &ExploreWeightEditor::resetRequested);
    model_->onEdit = [this](int row, int column, float value) {
        const std::size_t i = static_cast<std::size_t>(names_->currentIndex());
        if (i < weights_.size()) emit weightEdited(weights_[i].name, row, column, value);
    };
    retranslate();
}

void ExploreWeightEditor::retranslate() {
    reset_->setText(tr("Reset to the seed's weights"));
    names_->setToolTip(tr("Parameters by their PyTorch state_dict names; * = edited"));
    showCurrent();
}

void ExploreWeightEditor::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

void ExploreWeightEditor::setWeights(const std::vector<attn::NamedMatrix>& weights,
                                     const std::set<std::string>& edited) {
    const QString keep = currentName();
    weights_ = weights;
    edited_ = edited;
    {
        const QSignalBlocker block(names_);
        names_->clear();
        for (const attn::NamedMatrix& w : weights_) {
            const QString name = QString::fromStdString(w.name);
            names_->addItem(edited_.count(w.name) ? name + QStringLiteral(" *") : name, name);
        }
        const int index = names_->findData(keep);
        names_->setCurrentIndex(index >= 0 ? index : 0);
    }
    reset_->setEnabled(!edited_.empty());
    showCurrent();
}

QString ExploreWeightEditor::currentName() const { return names_->currentData().toString(); }

bool ExploreWeightEditor::selectWeight(const QString& name) {
    const int index = names_->findData(name);
    if (index < 0) return false;
    names_->setCurrentIndex(index);
    return true;
}

void ExploreWeightEditor::showCurrent() {
    const int i = names_->currentIndex();
    if (i < 0 || static_cast<std::size_t>(i) >= weights_.size()) {
        model_->setMatrix(nullptr);
        shape_->clear();
        return;
    }
    const attn::NamedMatrix& w = weights_[static_cast<std::size_t>(i)];
    const attn::Matrix& m = w.value;
    shape_->setText(w.is_vector ? tr("vector of %1").arg(m.cols())
                                : tr("%1 × %2").arg(m.rows()).arg(m.cols()));
    model_->setMatrix(&m);
}

}  // namespace views
