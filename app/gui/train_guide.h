// The Train window's guidance: what to watch for at the step the timeline shows, written from the
// run's own numbers (the steps where heads formed, their scores, the loss around those steps),
// never from numbers typed into the text. A head "has formed" once its score passes kFormedScore.
#pragma once

#include <QList>
#include <QString>
#include <cstdint>
#include <optional>
#include <utility>

#include "app/gui/train_session.h"

// A score above this: the head does the job (most of each query's weight on the one token).
inline constexpr float kFormedScore = 0.5f;

// The best head of a kind in a snapshot, and the first snapshot up to a given one where the best
// passed kFormedScore.
struct HeadEvent {
    int layer = 0, head = 0;               // from 0
    float score = 0.0f;                    // at the shown snapshot
    std::optional<std::int64_t> formedAt;  // the step, if it formed by the shown snapshot
    float formedScore = 0.0f;
};
// Previous-token heads are looked for in the first layer, induction heads in the later ones;
// nullopt when there is no such layer or no snapshot.
std::optional<HeadEvent> previousTokenHead(const TrainSession& session, int shownIndex);
std::optional<HeadEvent> inductionHead(const TrainSession& session, int shownIndex);
// The mean loss of the steps (step − window, step], nullopt before any step.
std::optional<double> meanLoss(const TrainSession& session, std::int64_t step, std::int64_t window);

// The guidance as HTML, for snapshot `shownIndex` of the session, with the window's keys (keys,
// what they do) listed at the end.
QString trainGuideHtml(const TrainSession& session, int shownIndex,
                       const QList<std::pair<QString, QString>>& keys);
