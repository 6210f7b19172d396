// ExploreTokenModel: a sequence as an editable table, one row per token: column 0 the token's
// text, columns 1..d_in its embedding (x1, x2, ...). The model shows what it is given and asks
// for changes through editRequested(): explore mode turns each request into an undoable command
// and gives the model the new sequence, so the table never holds state of its own.
#pragma once

#include <QAbstractTableModel>

#include "model/examples.h"

namespace views {

class ExploreTokenModel : public QAbstractTableModel {
    Q_OBJECT

public:
    explicit ExploreTokenModel(QObject* parent = nullptr);

    // Same shape: the cells change in place (editors and selection stay); otherwise a reset.
    void setSequence(const attn::Sequence& sequence);
    const attn::Sequence& sequence() const { return sequence_; }

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    // Emits tokenEdited or embeddingEdited; false for text that is not a finite number.
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

signals:
    void tokenEdited(int row, const QString& text);
    void embeddingEdited(int row, int column, float value);

private:
    attn::Sequence sequence_;
};

}  // namespace views
