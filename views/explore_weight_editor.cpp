#include "explore_weight_editor.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

namespace views {

ExploreWeightEditor::ExploreWeightEditor(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    names_ = new QComboBox(this);
    shape_ = new QLabel(this);
    reset_ = new QPushButton(this);
    top->addWidget(names_);
    top->addWidget(shape_, 1);
    top->addWidget(reset_);
    layout->addLayout(top);
    table_ = new QTableWidget(this);
    table_->horizontalHeader()->setDefaultSectionSize(72);
    layout->addWidget(table_, 1);
    connect(names_, &QComboBox::currentIndexChanged, this, [this] { showCurrent(); });
    connect(reset_, &QPushButton::clicked, this, &ExploreWeightEditor::resetRequested);
    connect(table_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
        if (filling_) return;
        const QString text = item->text().trimmed();
        bool ok = false;
        double v = text.toDouble(&ok);
        if (!ok) v = QLocale().toDouble(text, &ok);
        const std::size_t i = static_cast<std::size_t>(names_->currentIndex());
        if (!ok || !std::isfinite(v) || i >= weights_.size()) {
            showCurrent();  // not a number: put the old value back
            return;
        }
        emit weightEdited(weights_[i].name, item->row(), item->column(), static_cast<float>(v));
    });
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
    filling_ = true;
    const int i = names_->currentIndex();
    if (i < 0 || static_cast<std::size_t>(i) >= weights_.size()) {
        table_->clear();
        table_->setRowCount(0);
        table_->setColumnCount(0);
        shape_->clear();
        filling_ = false;
        return;
    }
    const attn::NamedMatrix& w = weights_[static_cast<std::size_t>(i)];
    const attn::Matrix& m = w.value;
    shape_->setText(w.is_vector ? tr("vector of %1").arg(m.cols())
                                : tr("%1 × %2").arg(m.rows()).arg(m.cols()));
    // A huge matrix would make thousands of items; show its corner and say so.
    const int rows = static_cast<int>(std::min<Eigen::Index>(m.rows(), 256));
    const int cols = static_cast<int>(std::min<Eigen::Index>(m.cols(), 256));
    if (rows < m.rows() || cols < m.cols())
        shape_->setText(shape_->text() + tr(" (first %1 × %2 shown)").arg(rows).arg(cols));
    table_->setRowCount(rows);
    table_->setColumnCount(cols);
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            QTableWidgetItem* item = table_->item(r, c);
            if (!item) {
                item = new QTableWidgetItem;
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                table_->setItem(r, c, item);
            }
            item->setText(QString::number(static_cast<double>(m(r, c)), 'f', 4));
            item->setToolTip(QString::number(static_cast<double>(m(r, c)), 'g', 9));
        }
    }
    filling_ = false;
}

}  // namespace views
