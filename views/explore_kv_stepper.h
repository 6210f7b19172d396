// ExploreKvStepper: the KV-cache stepper of explore mode. Feeds the tokens one at a time (Next /
// Previous / slider) and shows, for one head, the cache's keys and values growing (the new row
// outlined), the new query row and its weights over the cache, and the output row beside the full
// recomputation's; counters compare the multiplications with and without the cache and give the
// cache's size. It draws an attn::KvTrace (model/kv_trace.h) and computes nothing itself. With
// grouped-query attention the cache holds fewer K/V heads than there are query heads; each query
// head is shown with the K/V head it reads.
#pragma once

#include <QStringList>
#include <QWidget>

#include "model/kv_trace.h"

class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace views {

class HeatmapWidget;

class ExploreKvStepper : public QWidget {
    Q_OBJECT

public:
    explicit ExploreKvStepper(QWidget* parent = nullptr);

    // Keeps the current step when the trace still has it.
    void setTrace(attn::KvTrace trace, const QStringList& tokens, const QString& note = QString());
    const attn::KvTrace& trace() const { return trace_; }
    void setStep(int step);  // 0-based, clamped
    int step() const { return step_; }
    void setHead(int head);
    int head() const { return head_; }
    // K/V heads in the cache (= trace().num_heads unless the query heads share them).
    int kvHeads() const { return kvHeads_; }

    HeatmapWidget* keysHeatmap() const { return keys_; }
    HeatmapWidget* valuesHeatmap() const { return values_; }
    HeatmapWidget* queryHeatmap() const { return query_; }
    HeatmapWidget* weightsHeatmap() const { return weights_; }
    HeatmapWidget* outputHeatmap() const { return output_; }
    QString countersText() const;
    QString explanationText() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void showStep();
    void retranslate();
    bool sharedKv() const;  // fewer K/V heads in the cache than query heads
    int kvHead() const;     // the cache's head the shown query head reads

    attn::KvTrace trace_;
    QStringList tokens_;
    QString note_;
    int step_ = 0;
    int head_ = 0;
    int kvHeads_ = 0;
    QPushButton* previous_ = nullptr;
    QPushButton* next_ = nullptr;
    QSlider* slider_ = nullptr;
    QLabel* position_ = nullptr;
    QSpinBox* headBox_ = nullptr;
    QLabel* headCaption_ = nullptr;
    QLabel* explanation_ = nullptr;
    QLabel* counters_ = nullptr;
    HeatmapWidget* keys_ = nullptr;
    HeatmapWidget* values_ = nullptr;
    HeatmapWidget* query_ = nullptr;
    HeatmapWidget* weights_ = nullptr;
    HeatmapWidget* output_ = nullptr;
};

}  // namespace views
