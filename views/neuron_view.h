// NeuronView: one head's arithmetic for one query → key cell, bertviz's neuron view: q·k (the sum
// of the products below), q·k / √head_dim and the softmax weight of the cell; under them the
// query vector q, the key vector k and their element-wise product q × k as bars, one row per
// dimension of head_dim, each with its value; with the one number formatter, so they read as the
// head view's hover arithmetic does. Draws an attn::NeuronView record; computes nothing.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <optional>

#include "model/encoder_views.h"

class QLabel;

namespace views {

class NeuronBars;

class NeuronView : public QWidget {
    Q_OBJECT

public:
    explicit NeuronView(QWidget* parent = nullptr);

    // The cell of `neuron`, its query and key named by their tokens.
    void setNeuron(const attn::NeuronView& neuron, const QString& queryToken,
                   const QString& keyToken);
    // Nothing chosen: a hint to point at a cell of the head view.
    void clear();
    bool hasNeuron() const { return neuron_.has_value(); }
    const attn::NeuronView* neuron() const { return neuron_ ? &*neuron_ : nullptr; }

    // What is drawn, for tests: the heading, the values of column 0 (q), 1 (k) or 2 (q × k)
    // from the first dimension down, and the lines under the bars.
    QString heading() const;
    QStringList columnTexts(int column) const;
    QStringList resultLines() const;
    // The bars' area in widget coordinates (tests check nothing is cut off).
    QWidget* barsWidget() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();

    std::optional<attn::NeuronView> neuron_;
    QString queryToken_, keyToken_;
    QLabel* heading_ = nullptr;
    NeuronBars* bars_ = nullptr;
    QLabel* results_ = nullptr;
};

}  // namespace views
