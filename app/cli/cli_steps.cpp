// attention-cli steps: the walkthrough's records as JSON, with the texts and cell explanations the
// window shows, for checking a translation or an example file without opening the app.
#include <QJsonArray>
#include <QJsonObject>

#include "app/cli/cli_command.h"
#include "app/io/json_text.h"
#include "views/language.h"
#include "views/step_texts.h"

namespace {

QJsonArray labels(const std::vector<std::string>& names) {
    QJsonArray out;
    for (const std::string& n : names) out.append(QString::fromStdString(n));
    return out;
}

// One matrix as the page shows it when the step opens (training mode): its numbers and, per
// cell, the text hovering the cell shows.
QJsonObject matrixJson(const attn::Step& step, const attn::StepMatrix& m) {
    QJsonObject out;
    out.insert(QStringLiteral("name"), QString::fromStdString(m.id));
    out.insert(QStringLiteral("caption"), views::matrixCaption(step, m));
    if (m.frame >= 0) out.insert(QStringLiteral("frame"), m.frame);
    out.insert(QStringLiteral("row_labels"), labels(m.row_labels));
    out.insert(QStringLiteral("col_labels"), labels(m.col_labels));
    out.insert(QStringLiteral("values"), attn::jsonMatrix(m.values));
    QJsonArray explain;
    for (Eigen::Index r = 0; r < m.values.rows(); ++r) {
        QJsonArray row;
        for (Eigen::Index c = 0; c < m.values.cols(); ++c)
            row.append(views::cellHoverText(step, m, static_cast<int>(r), static_cast<int>(c),
                                            /*inference=*/false));
        explain.append(row);
    }
    out.insert(QStringLiteral("explain"), explain);
    return out;
}

}  // namespace

void addStepsOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(
        QStringLiteral("Print every step of the walkthrough as JSON: {\"steps\": [{\"number\", "
                       "\"id\", \"title\", \"text\" (HTML, as the window shows it), \"matrices\": "
                       "[{\"name\", \"caption\", \"row_labels\", \"col_labels\", \"values\", "
                       "\"explain\"}]}]}. explain[r][c] is the text hovering cell (r, c) "
                       "shows, in training mode. The KV-cache step lists its matrices once per "
                       "frame (decoded token), each with a 0-based \"frame\"; matrices without "
                       "\"frame\" are shown in every frame. Numbers as `compute` prints them, "
                       "NaN and infinities as null."));
    parser.addOptions({
        {QStringLiteral("lang"),
         QStringLiteral("Language of titles and texts: en (default) or "
                        "zh_CN."),
         QStringLiteral("L")},
        {QStringLiteral("input"),
         QStringLiteral("Walk through the tokens of a JSON example FILE instead of the "
                        "tutorial's."),
         QStringLiteral("FILE")},
    });
}

QByteArray runSteps(const QCommandLineParser& parser) {
    const auto translation = installLanguageOption(parser);
    const std::vector<attn::Step> steps = walkthroughOption(parser, QStringLiteral("input"));
    QJsonArray list;
    for (const attn::Step& step : steps) {
        const views::StepText text = views::stepText(step);
        QJsonArray matrices;
        for (const attn::StepMatrix& m : step.matrices) matrices.append(matrixJson(step, m));
        QJsonObject s;
        s.insert(QStringLiteral("number"), step.number);
        s.insert(QStringLiteral("id"), QString::fromStdString(step.id));
        s.insert(QStringLiteral("title"), text.title);
        s.insert(QStringLiteral("text"), text.html);
        s.insert(QStringLiteral("matrices"), matrices);
        list.append(s);
    }
    return attn::writeJsonObject({{QStringLiteral("steps"), list}});
}
