// ExploreWeightEditor: the module's parameters (W_query, W_key, W_value, out_proj ... by their
// state_dict names) as editable number tables. A changed number is asked for through
// weightEdited(); explore mode reruns the engine with it, so every downstream view follows.
#pragma once

#include <QStringList>
#include <QWidget>
#include <set>
#include <string>
#include <vector>

#include "model/runner.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;

namespace views {

class ExploreWeightEditor : public QWidget {
    Q_OBJECT

public:
    explicit ExploreWeightEditor(QWidget* parent = nullptr);

    // The parameters of the last run; `edited` names the ones the user changed (marked "*").
    void setWeights(const std::vector<attn::NamedMatrix>& weights,
                    const std::set<std::string>& edited);
    QString currentName() const;
    bool selectWeight(const QString& name);
    // The shown parameter as a table (all of it: the model formats only the cells in view).
    QTableView* table() const { return table_; }

signals:
    void weightEdited(const std::string& name, int row, int column, float value);
    void resetRequested();

protected:
    void changeEvent(QEvent* event) override;

private:
    void showCurrent();
    void retranslate();

    std::vector<attn::NamedMatrix> weights_;
    std::set<std::string> edited_;
    QComboBox* names_ = nullptr;
    QLabel* shape_ = nullptr;
    QTableView* table_ = nullptr;
    class WeightTableModel* model_ = nullptr;
    QPushButton* reset_ = nullptr;
};

}  // namespace views
