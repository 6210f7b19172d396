// The take-home handout: the whole walkthrough (every step's title, text, numbers, heatmaps and
// PyTorch snippet) as the bytes of one PDF or one self-contained HTML file, in the language that
// is installed (views/language.h). `attention-cli handout` and the window's File ▸ Export handout
// both call these; the callers save the bytes atomically (app/io). The heatmaps come from the
// same StepPage and HeatmapWidget as the window's, opened as the window opens them (the last
// frame of the KV-cache step, dropout in training mode), so the handout shows what was taught.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

#include "model/walkthrough.h"

namespace views {

// Called after each step is drawn with (steps done, steps in all); returning false cancels the
// rendering (the result is then empty, with reason "cancelled").
using HandoutProgress = std::function<bool(int done, int total)>;

// A4 pages: a title page (the example's sentence, its tokens and embeddings, the contents and
// the app's version, no date), then each step from a new page. Heatmaps are vector drawings
// that never break across pages; the text and the fonts (CJK too) are embedded, so the text can
// be searched and copied. Empty, with *reason, when drawing fails. Needs a QApplication.
QByteArray renderHandoutPdf(const std::vector<attn::Step>& steps, QString* reason = nullptr,
                            const HandoutProgress& progress = {});

// One UTF-8 HTML file with inline SVG heatmaps and its CSS, referring to nothing outside itself;
// `language` ("en", "zh_CN") names the installed translation for <html lang>. Empty, with
// *reason, when a heatmap cannot be drawn. Needs a QApplication.
QByteArray renderHandoutHtml(const std::vector<attn::Step>& steps, const QString& language,
                             QString* reason = nullptr, const HandoutProgress& progress = {});

// The tokens of the example the steps walk through (the rows of the first step's first matrix).
QStringList handoutTokens(const std::vector<attn::Step>& steps);

}  // namespace views
