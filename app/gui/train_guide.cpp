#include "app/gui/train_guide.h"

#include <QCoreApplication>
#include <algorithm>

#include "views/number_text.h"

namespace {

// The guide's texts are translated in the context "TrainGuide".
struct TrainGuide {
    Q_DECLARE_TR_FUNCTIONS(TrainGuide)
};

// Two sentences in a row: a space in English, none after a Chinese full stop.
QString sentences(const QString& first, const QString& second) {
    return TrainGuide::tr("%1 %2", "two sentences in a row").arg(first, second);
}

QString score(float value) { return views::fixedText(value, 2); }

// "L1 H2": layers and heads from 1, as the mosaic and the legends name them.
QString headName(int layer, int head) {
    return TrainGuide::tr("L%1 H%2").arg(layer + 1).arg(head + 1);
}

// The best head of layers [firstLayer, lastLayer] by `value` in each snapshot up to shownIndex.
template <typename Value>
std::optional<HeadEvent> bestHead(const TrainSession& session, int shownIndex, int firstLayer,
                                  int lastLayer, Value value) {
    const auto& snapshots = session.snapshots();
    if (shownIndex < 0 || shownIndex >= static_cast<int>(snapshots.size()) ||
        firstLayer > lastLayer)
        return std::nullopt;
    std::optional<HeadEvent> event;
    for (int i = 0; i <= shownIndex; ++i) {
        const TrainSession::Snapshot& s = *snapshots[static_cast<std::size_t>(i)];
        HeadEvent best;
        best.score = -1.0f;
        for (const attn::HeadScore& h : s.scores) {
            const int layer = static_cast<int>(h.layer);
            if (layer < firstLayer || layer > lastLayer || value(h) <= best.score) continue;
            best.layer = layer;
            best.head = static_cast<int>(h.head);
            best.score = value(h);
        }
        if (best.score < 0.0f) continue;
        if (event && event->formedAt) {
            best.formedAt = event->formedAt;
            best.formedScore = event->formedScore;
        } else if (best.score >= kFormedScore) {
            best.formedAt = s.step;
            best.formedScore = best.score;
        }
        event = best;
    }
    return event;
}

QString paragraph(const QString& heading, const QString& text) {
    return QStringLiteral("<p><b>%1</b><br>%2</p>").arg(heading, text);
}

QString stepZeroText(const TrainSession& session, int shownIndex) {
    const auto& first = *session.snapshots().front();
    // The last query sees every token: an even spread gives each 1/T.
    float largest = 0.0f;
    Eigen::Index t = 0;
    for (const auto& layer : first.attentions)
        for (const attn::Matrix& head : layer) {
            t = head.cols();
            if (t > 0) largest = std::max(largest, head.row(t - 1).maxCoeff());
        }
    const QString spread = views::fixedText(t > 0 ? 1.0 / static_cast<double>(t) : 0.0, 3);
    const QString text =
        TrainGuide::tr(
            "The weights start random and small, so every query spreads its attention almost "
            "evenly over the tokens it can see: in the last row (%1 tokens) no head gives any "
            "token more than %2, against %3 for a perfectly even spread. The heatmaps are pale "
            "triangles.")
            .arg(t)
            .arg(views::fixedText(largest, 3), spread);
    const bool atZero = session.snapshots()[static_cast<std::size_t>(shownIndex)]->step == 0;
    return paragraph(
        atZero ? TrainGuide::tr("Step 0: uniform attention") : TrainGuide::tr("At step 0"), text);
}

QString previousTokenText(const TrainSession& session, int shownIndex) {
    const std::optional<HeadEvent> e = previousTokenHead(session, shownIndex);
    if (!e) return {};
    QString text = TrainGuide::tr(
                       "A previous-token head puts each token's attention on the token just "
                       "before it: its heatmap becomes the diagonal right under the main one. "
                       "Best in layer 1 now: %1, previous-token score %2.")
                       .arg(headName(e->layer, e->head), score(e->score));
    if (e->formedAt)
        text = sentences(text, TrainGuide::tr("It passed %1 at step %2 (score %3).")
                                   .arg(score(kFormedScore))
                                   .arg(*e->formedAt)
                                   .arg(score(e->formedScore)));
    else
        text = sentences(
            text, TrainGuide::tr("Watch for a layer-1 score climbing toward 1 (none above %1 yet).")
                      .arg(score(kFormedScore)));
    return paragraph(TrainGuide::tr("Layer 1: a previous-token head"), text);
}

QString inductionText(const TrainSession& session, int shownIndex) {
    const int layers = static_cast<int>(session.spec().num_layers);
    const TrainSession::Snapshot& shown =
        *session.snapshots()[static_cast<std::size_t>(shownIndex)];
    if (layers < 2) {
        float best = 0.0f;
        int head = 0;
        for (const attn::HeadScore& h : shown.scores)
            if (h.induction_score > best) {
                best = h.induction_score;
                head = static_cast<int>(h.head);
            }
        return paragraph(
            TrainGuide::tr("One layer: no induction head"),
            TrainGuide::tr(
                "An induction head reads what a previous-token head in an earlier layer wrote, "
                "so a one-layer attention-only model cannot form one: its best induction score "
                "at step %1 is %2 (%3), and the loss never makes the sudden drop. Choose a "
                "two-layer preset to see one form.")
                .arg(shown.step)
                .arg(score(best), headName(0, head)));
    }
    const std::optional<HeadEvent> e = inductionHead(session, shownIndex);
    if (!e) return {};
    QString text =
        TrainGuide::tr(
            "An induction head attends from each token of the repeat to the token after that "
            "token's earlier occurrence, a stripe %1 places left of the diagonal in the second "
            "half, and copies it: the loss drops suddenly when it appears. Best in the later "
            "layers now: %2, induction score %3.")
            .arg(session.repeatLength() - 1)
            .arg(headName(e->layer, e->head), score(e->score));
    if (e->formedAt) {
        text = sentences(
            text,
            TrainGuide::tr("It passed %1 at step %2.").arg(score(kFormedScore)).arg(*e->formedAt));
        const std::int64_t window = TrainSession::kSnapshotEvery;
        const std::int64_t before = std::max<std::int64_t>(window, *e->formedAt - 4 * window);
        const std::optional<double> lossBefore = meanLoss(session, before, window);
        const std::optional<double> lossNow = meanLoss(session, shown.step, window);
        if (lossBefore && lossNow && shown.step > before)
            text = sentences(
                text,
                TrainGuide::tr("Mean loss of the %1 steps up to step %2: %3; up to step %4: %5.")
                    .arg(window)
                    .arg(before)
                    .arg(views::fixedText(*lossBefore, 3))
                    .arg(shown.step)
                    .arg(views::fixedText(*lossNow, 3)));
    } else {
        text = sentences(text, TrainGuide::tr("None above %1 yet: keep an eye on the loss curve.")
                                   .arg(score(kFormedScore)));
    }
    return paragraph(TrainGuide::tr("Layer 2: the induction head and the loss drop"), text);
}

QString sampleText(const TrainSession& session) {
    if (session.settings().task != attn::TrainTask::Text) return {};
    return paragraph(
        TrainGuide::tr("Text"),
        TrainGuide::tr(
            "The scores are measured on probes of random tokens repeated once, also here. Every "
            "%1 steps the model writes a sample after the first tokens of %2 (below): first "
            "common letters and spaces, then words.")
            .arg(TrainSession::kSampleEvery)
            .arg(session.settings().textName.toHtmlEscaped()));
}

}  // namespace

std::optional<HeadEvent> previousTokenHead(const TrainSession& session, int shownIndex) {
    return bestHead(session, shownIndex, 0, 0,
                    [](const attn::HeadScore& h) { return h.previous_token_score; });
}

std::optional<HeadEvent> inductionHead(const TrainSession& session, int shownIndex) {
    return bestHead(session, shownIndex, 1, static_cast<int>(session.spec().num_layers) - 1,
                    [](const attn::HeadScore& h) { return h.induction_score; });
}

std::optional<double> meanLoss(const TrainSession& session, std::int64_t step,
                               std::int64_t window) {
    const auto& losses = session.losses();
    const std::int64_t last =
        std::min<std::int64_t>(step, static_cast<std::int64_t>(losses.size()));
    const std::int64_t first = std::max<std::int64_t>(0, last - window);
    if (last <= first) return std::nullopt;
    double sum = 0.0;
    for (std::int64_t i = first; i < last; ++i)
        sum += static_cast<double>(losses[static_cast<std::size_t>(i)]);
    return sum / static_cast<double>(last - first);
}

QString trainGuideHtml(const TrainSession& session, int shownIndex,
                       const QList<std::pair<QString, QString>>& keys) {
    QString html;
    if (session.ready() && shownIndex >= 0 &&
        shownIndex < static_cast<int>(session.snapshots().size())) {
        html += stepZeroText(session, shownIndex);
        html += previousTokenText(session, shownIndex);
        html += inductionText(session, shownIndex);
        html += sampleText(session);
    } else {
        html += paragraph(TrainGuide::tr("Preparing the model"),
                          TrainGuide::tr("The window builds the model with the chosen settings."));
    }
    html += QStringLiteral("<p><b>%1</b><br>").arg(TrainGuide::tr("Keys"));
    QStringList rows;
    for (const auto& [key, what] : keys)
        rows << QStringLiteral("%1: %2").arg(key.toHtmlEscaped(), what.toHtmlEscaped());
    html += rows.join(QStringLiteral("<br>")) + QStringLiteral("</p>");
    return html;
}
