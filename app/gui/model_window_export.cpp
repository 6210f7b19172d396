// ModelWindow's File ▸ Export: what the head, layer and next-token figures are; the dialogs, the
// remembered choices, the replace question and the report are ExportFlow's, as in every window.
#include <QByteArray>
#include <QString>

#include "app/gui/export_flow.h"
#include "app/gui/model_window.h"
#include "views/next_token_chart.h"
#include "views/step_page.h"

bool ModelWindow::renderHead(const views::FigureOptions& options, QByteArray* bytes,
                             QString* error) {
    if (!headPage_) {
        *error = tr("Nothing to export: open a model and type a text first.");
        return false;
    }
    return views::renderFigureBytes({headPage_, headPage_->matrixIds().first()}, options, bytes,
                                    error);
}

bool ModelWindow::renderLayer(const views::FigureOptions& options, QByteArray* bytes,
                              QString* error) {
    if (session_->view().attentions.empty()) {
        *error = tr("Nothing to export: open a model and type a text first.");
        return false;
    }
    // Every head of the layer on one page, drawn as the head view draws one.
    views::StepPage page(layerStep());
    page.resize(1200, 900);
    return views::renderFiguresGrid(views::pageFigures(page), options, 0, bytes, error);
}

bool ModelWindow::renderNextTokens(const views::FigureOptions& options, QByteArray* bytes,
                                   QString* error) {
    if (chart_->barCount() == 0) {
        *error = tr("Nothing to export: the next-token chart is empty.");
        return false;
    }
    *bytes = chart_->renderBytes(options.format, error);
    return !bytes->isEmpty();
}

bool ModelWindow::exportHead(const QString& path, const views::FigureOptions& options,
                             QString* error) {
    return ExportFlow::saveFile(
        path, options,
        [this](const views::FigureOptions& o, QByteArray* bytes, QString* problem) {
            return renderHead(o, bytes, problem);
        },
        error);
}

bool ModelWindow::exportLayer(const QString& path, const views::FigureOptions& options,
                              QString* error) {
    return ExportFlow::saveFile(
        path, options,
        [this](const views::FigureOptions& o, QByteArray* bytes, QString* problem) {
            return renderLayer(o, bytes, problem);
        },
        error);
}

bool ModelWindow::exportNextTokens(const QString& path, views::FigureFormat format,
                                   QString* error) {
    views::FigureOptions options;
    options.format = format;
    options.overwrite = true;
    return ExportFlow::saveFile(
        path, options,
        [this](const views::FigureOptions& o, QByteArray* bytes, QString* problem) {
            return renderNextTokens(o, bytes, problem);
        },
        error);
}

void ModelWindow::exportWithDialog(ExportKind kind) {
    // Named as attention-cli export names a model's figures (1-based layer and head).
    const QString base = kind == ExportKind::NextTokens ? QStringLiteral("next-tokens")
                         : kind == ExportKind::Layer
                             ? QStringLiteral("layer-%1-heads").arg(layer_ + 1)
                             : QStringLiteral("layer-%1-head-%2").arg(layer_ + 1).arg(head_ + 1);
    QSize fitted;
    if (kind == ExportKind::Head && headPage_)
        fitted = views::fittedFigureSize({headPage_, headPage_->matrixIds().first()},
                                         exportFlow_->savedOptions());
    exportFlow_->exportFile(
        base, fitted, [this, kind](const views::FigureOptions& o, QByteArray* bytes, QString* e) {
            switch (kind) {
                case ExportKind::Head:
                    return renderHead(o, bytes, e);
                case ExportKind::Layer:
                    return renderLayer(o, bytes, e);
                case ExportKind::NextTokens:
                    break;
            }
            return renderNextTokens(o, bytes, e);
        });
}
