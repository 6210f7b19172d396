// ExploreWindow's File ▸ Export: the attn_weights of the current run as figures. The figures are
// drawn from a record (attn::run_heads_step of batch item 0's heads, drawn as the model window's
// layer is) by StepPage and views/figure_render.h; the dialogs, the remembered choices, the replace
// question and the report are ExportFlow's, as in every window.
#include <QByteArray>
#include <QSpinBox>
#include <QString>
#include <algorithm>
#include <exception>
#include <string>
#include <vector>

#include "app/gui/explore_window.h"
#include "app/gui/export_flow.h"
#include "model/attention_layer_step.h"
#include "views/step_page.h"

int ExploreWindow::shownHead() const {
    const std::shared_ptr<const attn::RunResult> r = session_->result();
    const int heads =
        r && !r->output.heads.empty() ? static_cast<int>(r->output.heads.front().size()) : 0;
    return std::clamp(shownHead_, 0, std::max(heads - 1, 0));
}

bool ExploreWindow::headsStep(attn::Step* step, QString* error) const {
    const std::shared_ptr<const attn::RunResult> r = session_->result();
    if (!session_->error().isEmpty()) {
        // The views still show the last valid run, but it is not what the settings say.
        *error = tr("Nothing to export: the current settings are not computed (%1).")
                     .arg(session_->error());
        return false;
    }
    if (!r || r->output.heads.empty() || r->output.heads.front().empty()) {
        *error = tr("Nothing to export: the module has not computed attention weights yet.");
        return false;
    }
    const ExploreState& from = session_->resultState();
    const std::vector<std::string>& queries = from.inputs.tokens;
    const std::vector<std::string>& keys = from.usesSource() ? from.source.tokens : queries;
    try {
        // The weights the values were averaged with, as the heads grid shows them.
        *step = attn::run_heads_step(r->output.heads.front(), droppedOf(*r), queries, keys);
    } catch (const std::exception& e) {
        *error = tr("Nothing to export: %1").arg(QString::fromUtf8(e.what()));
        return false;
    }
    return true;
}

bool ExploreWindow::renderHeads(ExportKind kind, const views::FigureOptions& options,
                                QByteArray* bytes, QString* error) const {
    attn::Step step;
    if (!headsStep(&step, error)) return false;
    if (kind == ExportKind::Head) {
        const attn::StepMatrix kept = step.matrices.at(static_cast<std::size_t>(shownHead()));
        step.matrices = {kept};
    }
    views::StepPage page(std::move(step));
    page.resize(1200, 900);
    if (kind == ExportKind::Head)
        return views::renderFigureBytes({&page, page.matrixIds().first()}, options, bytes, error);
    return views::renderFiguresGrid(views::pageFigures(page), options, 0, bytes, error);
}

bool ExploreWindow::exportHead(const QString& path, const views::FigureOptions& options,
                               QString* error) {
    return ExportFlow::saveFile(
        path, options,
        [this](const views::FigureOptions& o, QByteArray* bytes, QString* problem) {
            return renderHeads(ExportKind::Head, o, bytes, problem);
        },
        error);
}

bool ExploreWindow::exportAllHeads(const QString& path, const views::FigureOptions& options,
                                   QString* error) {
    return ExportFlow::saveFile(
        path, options,
        [this](const views::FigureOptions& o, QByteArray* bytes, QString* problem) {
            return renderHeads(ExportKind::AllHeads, o, bytes, problem);
        },
        error);
}

void ExploreWindow::exportWithDialog(ExportKind kind) {
    const QString base = kind == ExportKind::Head
                             ? QStringLiteral("explore-head-%1").arg(shownHead() + 1)
                             : QStringLiteral("explore-heads");
    // The head figure's own size, as the model window offers it.
    QSize fitted;
    attn::Step step;
    QString ignored;
    if (kind == ExportKind::Head && headsStep(&step, &ignored)) {
        const attn::StepMatrix kept = step.matrices.at(static_cast<std::size_t>(shownHead()));
        step.matrices = {kept};
        views::StepPage page(std::move(step));
        fitted =
            views::fittedFigureSize({&page, page.matrixIds().first()}, exportFlow_->savedOptions());
    }
    exportFlow_->exportFile(
        base, fitted, [this, kind](const views::FigureOptions& o, QByteArray* bytes, QString* e) {
            return renderHeads(kind, o, bytes, e);
        });
}
