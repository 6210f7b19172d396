// The words of the walkthrough: titles, teaching texts, matrix captions and fact labels, all
// through Qt's translation system (context "StepText") so English and Chinese come from one
// table. Keyed by the stable ids of model/walkthrough.h.
#pragma once

#include <QString>
#include <string>
#include <utility>

#include "model/walkthrough.h"

namespace views {

struct StepText {
    QString title;  // "Causal mask, method 2: −∞ before softmax"
    QString html;   // rich-text explanation with the formula
};

// Translated title and explanation of a step with every {name} placeholder replaced by the
// record's text_args: what the page shows. A generic text for an unknown id.
StepText stepText(const attn::Step& step);
// Translated caption of a matrix of a step, e.g. "Attention weights α", with the record's
// text_args filled in ("Query x⁽²⁾"): what the page shows.
QString matrixCaption(const attn::Step& step, const attn::StepMatrix& matrix);
// The values a matrix shows: the record's, except dropout at inference (the identity: the
// weights pass unchanged and the keep mask is all ones).
attn::Matrix shownValues(const attn::Step& step, const attn::StepMatrix& matrix, bool inference);
// The text hovering a cell shows (its tooltip and the formula line of the page's bar): the
// cell's formula with its numbers (attn::explain_cell), or "name = value" for a given matrix,
// with inference mode's dropout. The page and `attention-cli steps` both print this.
QString cellHoverText(const attn::Step& step, const attn::StepMatrix& matrix, int row, int column,
                      bool inference);
// The frame control's text for the chapters' frames ("Mask 2 of 3: sliding window w = 3",
// "Tile 3 of 12: q 1–2 × k 2"); empty for a step whose frames are tokens (the page says so).
QString frameText(const attn::Step& step, int frame);
// The frame buttons' texts of a chapter ("◀ Previous mask", "Next mask ▶"); empty for a step
// whose frames are tokens.
std::pair<QString, QString> frameButtonTexts(const attn::Step& step);
// Translated label of a StepFact id, e.g. "Multiplications with the cache".
QString factLabel(const std::string& factId);

}  // namespace views
