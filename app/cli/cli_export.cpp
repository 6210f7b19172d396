// attention-cli export: the walkthrough's heatmaps as files, without a display. The figures come
// from the same StepPage and HeatmapWidget as the window's (views/figure_render.h), on Qt's
// offscreen platform (cli_main.cpp makes a QApplication for this subcommand only), and are saved
// as the window saves them (app/io/file_batch.h).
#include <QApplication>
#include <QDir>
#include <QRegularExpression>
#include <memory>
#include <vector>

#include "app/cli/cli_command.h"
#include "app/cli/cli_model.h"
#include "app/io/example_file.h"
#include "app/io/file_batch.h"
#include "model/gpt2_forward.h"
#include "model/walkthrough.h"
#include "views/colormaps.h"
#include "views/figure_render.h"
#include "views/language.h"
#include "views/step_page.h"

namespace {

// The largest figure side in logical pixels: 8000 × 4 = 32000 px stays inside QImage's limits.
constexpr int kMaxFigureSide = 8000;

QSize sizeOption(const QCommandLineParser& parser) {
    if (!parser.isSet(QStringLiteral("size"))) return {};
    static const QRegularExpression wxh(
        QStringLiteral("^\\s*(\\d{1,6})\\s*[xX×]\\s*(\\d{1,6})\\s*$"));
    const QString text = parser.value(QStringLiteral("size"));
    const QRegularExpressionMatch m = wxh.match(text);
    if (!m.hasMatch())
        cliFail(QStringLiteral("--size \"%1\" is not WIDTHxHEIGHT: give e.g. --size 800x600")
                    .arg(text));
    const int w = m.captured(1).toInt();
    const int h = m.captured(2).toInt();
    if (w < 100 || h < 100 || w > kMaxFigureSide || h > kMaxFigureSide)
        cliFail(QStringLiteral("--size %1x%2 is outside 100..%3 pixels per side: give e.g. "
                               "--size 800x600 (and --scale for more pixels)")
                    .arg(w)
                    .arg(h)
                    .arg(kMaxFigureSide));
    return {w, h};
}

double scaleOption(const QCommandLineParser& parser, views::FigureFormat format) {
    if (!parser.isSet(QStringLiteral("scale"))) return 1.0;
    const QString text = parser.value(QStringLiteral("scale"));
    if (format != views::FigureFormat::Png)
        cliFail(
            QStringLiteral("--scale applies to PNG only: SVG and PDF are vector figures and CSV "
                           "has no pixels (leave --scale out, or use --format png)"));
    bool ok = false;
    const double scale = text.trimmed().toDouble(&ok);  // QString::toDouble is C-locale
    if (!ok || !(scale >= 1.0 && scale <= views::kMaxFigureScale))
        cliFail(QStringLiteral("--scale \"%1\" is not a number from 1 to %2: give e.g. --scale 2 "
                               "(4 for print)")
                    .arg(text)
                    .arg(views::kMaxFigureScale));
    return scale;
}

// The steps `--step` names: "all", a number 1..16 or a step id such as "causal-softmax".
std::vector<std::size_t> selectSteps(const std::vector<attn::Step>& steps, const QString& which) {
    std::vector<std::size_t> chosen;
    if (which.compare(QLatin1String("all"), Qt::CaseInsensitive) == 0) {
        for (std::size_t i = 0; i < steps.size(); ++i) chosen.push_back(i);
        return chosen;
    }
    bool isNumber = false;
    const int number = which.toInt(&isNumber);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        if ((isNumber && steps[i].number == number) ||
            (!isNumber && QString::fromStdString(steps[i].id) == which))
            chosen.push_back(i);
    }
    if (chosen.empty()) {
        QStringList ids;
        for (const attn::Step& s : steps) ids << QString::fromStdString(s.id);
        cliFail(QStringLiteral("--step \"%1\" is not a step: give all, a number from 1 to %2, or "
                               "one of %3")
                    .arg(which)
                    .arg(steps.size())
                    .arg(ids.join(QStringLiteral(", "))));
    }
    return chosen;
}

// "--layer 3" or "--layer all": 0-based indices among 1..count.
std::vector<Eigen::Index> selectIndices(const QCommandLineParser& parser, const QString& name,
                                        Eigen::Index count) {
    const QString which = parser.isSet(name) ? parser.value(name).trimmed() : QStringLiteral("all");
    std::vector<Eigen::Index> chosen;
    if (which.compare(QLatin1String("all"), Qt::CaseInsensitive) == 0) {
        for (Eigen::Index i = 0; i < count; ++i) chosen.push_back(i);
        return chosen;
    }
    bool ok = false;
    const qlonglong n = which.toLongLong(&ok);
    if (!ok || n < 1 || n > count)
        cliFail(QStringLiteral("--%1 \"%2\" is not all or a number from 1 to %3")
                    .arg(name, which)
                    .arg(count));
    chosen.push_back(static_cast<Eigen::Index>(n - 1));
    return chosen;
}

// --model: the heads of a real model on --text, one walkthrough-like record per layer
// (attn::gpt2_layer_step), so they are drawn and named as the window draws them.
std::vector<attn::Step> modelSteps(const QCommandLineParser& parser, QString* matrixFilter) {
    if (!parser.isSet(QStringLiteral("text")) || parser.value(QStringLiteral("text")).isEmpty())
        cliFail(QStringLiteral("give --text TEXT, the text whose attention to export"));
    for (const char* walkthroughOnly : {"step", "matrix", "example"})
        if (parser.isSet(QString::fromLatin1(walkthroughOnly)))
            cliFail(QStringLiteral("--%1 belongs to the walkthrough's figures: with --model choose "
                                   "--layer and --head")
                        .arg(QLatin1String(walkthroughOnly)));
    const ModelFolder model = openModelOption(parser, true);
    const attn::Gpt2Config& config = model.weights->config;
    const std::vector<int> ids = encodeModelText(model, parser.value(QStringLiteral("text")));
    checkModelLength(config, ids.size());
    const std::vector<Eigen::Index> layers =
        selectIndices(parser, QStringLiteral("layer"), config.n_layer);
    const std::vector<Eigen::Index> heads =
        selectIndices(parser, QStringLiteral("head"), config.n_head);
    attn::Gpt2ForwardOptions options;
    options.keep_qkv = true;
    const attn::Gpt2ForwardResult result = attn::gpt2_forward(*model.weights, ids, options);
    std::vector<std::string> tokens;
    for (int id : ids) tokens.push_back(model.tokenizer->displayToken(id).toStdString());
    std::vector<attn::Step> steps;
    for (Eigen::Index layer : layers) {
        attn::Step step = attn::gpt2_layer_step(result, config, layer, tokens);
        if (heads.size() == 1) {
            const attn::StepMatrix kept = step.matrices.at(static_cast<std::size_t>(heads[0]));
            step.matrices = {kept};
        }
        steps.push_back(std::move(step));
    }
    matrixFilter->clear();
    return steps;
}

}  // namespace

void addExportOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "Save the walkthrough's heatmaps as figures, drawn exactly as the window draws them, "
        "without\na display. One file per heatmap, named step-NN-<matrix>.<format> (e.g. "
        "step-11-causal-weights.png);\nthe KV-cache step exports its last frame. Prints the files "
        "written, one per line. Nothing is\nwritten when a file exists (unless --force) or when "
        "a write fails (the files written before\nare removed again)."));
    parser.addOptions({
        {QStringLiteral("out"), QStringLiteral("Folder for the figures (created if missing)."),
         QStringLiteral("DIR")},
        {QStringLiteral("step"),
         QStringLiteral("all (default), a step number 1-16 or a step id such as causal-softmax."),
         QStringLiteral("ID")},
        {QStringLiteral("matrix"),
         QStringLiteral("Only the heatmap of this matrix id, e.g. causal-weights or head-2."),
         QStringLiteral("ID")},
        {QStringLiteral("format"), QStringLiteral("png (default), svg, pdf or csv (the numbers)."),
         QStringLiteral("FORMAT")},
        {QStringLiteral("size"),
         QStringLiteral("Figure size in pixels, e.g. 800x600 (default: fitted to each matrix)."),
         QStringLiteral("WxH")},
        {QStringLiteral("scale"),
         QStringLiteral("PNG pixels per figure pixel, 1 to 4 (default 1; 4 for print)."),
         QStringLiteral("N")},
        {QStringLiteral("lang"), QStringLiteral("Language of titles: en (default) or zh_CN."),
         QStringLiteral("L")},
        {QStringLiteral("colormap"),
         QStringLiteral("viridis, cividis, magma or diverging (default: as the window shows "
                        "each matrix)."),
         QStringLiteral("NAME")},
        {QStringLiteral("no-title"), QStringLiteral("Leave out the matrix title.")},
        {QStringLiteral("no-values"), QStringLiteral("Leave out the numbers in the cells.")},
        {QStringLiteral("transparent"),
         QStringLiteral("No background (PNG, SVG, PDF) instead of white.")},
        {QStringLiteral("example"),
         QStringLiteral("Walk through the tokens of a JSON example FILE instead of the "
                        "tutorial's."),
         QStringLiteral("FILE")},
        {QStringLiteral("force"), QStringLiteral("Replace figures that already exist.")},
        {QStringLiteral("model"),
         QStringLiteral("Export a GPT-2 model's attention on --text instead of the walkthrough: "
                        "a folder or a name in the Hugging Face cache. Files are named "
                        "layer-L-head-H.<format>."),
         QStringLiteral("DIR|NAME")},
        {QStringLiteral("text"), QStringLiteral("With --model: the text."), QStringLiteral("TEXT")},
        {QStringLiteral("layer"), QStringLiteral("With --model: all (default) or a layer from 1."),
         QStringLiteral("L")},
        {QStringLiteral("head"), QStringLiteral("With --model: all (default) or a head from 1."),
         QStringLiteral("H")},
    });
}

QByteArray runExport(const QCommandLineParser& parser) {
    if (!qobject_cast<QApplication*>(QCoreApplication::instance()))
        cliFail(QStringLiteral("export needs a QApplication (internal error)"));
    if (!parser.isSet(QStringLiteral("out")) || parser.value(QStringLiteral("out")).isEmpty())
        cliFail(QStringLiteral("give --out DIR, the folder for the figures"));

    views::FigureOptions options;
    if (parser.isSet(QStringLiteral("format"))) {
        const QString name = parser.value(QStringLiteral("format"));
        const std::optional<views::FigureFormat> format = views::figureFormatFromName(name);
        if (!format)
            cliFail(
                QStringLiteral("--format \"%1\" is unknown: give png, svg, pdf or csv").arg(name));
        options.format = *format;
    }
    options.size = sizeOption(parser);
    options.scale = scaleOption(parser, options.format);
    options.title = !parser.isSet(QStringLiteral("no-title"));
    options.values = !parser.isSet(QStringLiteral("no-values"));
    options.transparent = parser.isSet(QStringLiteral("transparent"));
    options.overwrite = parser.isSet(QStringLiteral("force"));
    if (parser.isSet(QStringLiteral("colormap"))) {
        options.colorMap = parser.value(QStringLiteral("colormap"));
        if (!attn::colormap::isKnown(options.colorMap))
            cliFail(QStringLiteral("--colormap \"%1\" is unknown: give one of %2")
                        .arg(options.colorMap, attn::colormap::names().join(QStringLiteral(", "))));
    }

    const auto translation = installLanguageOption(parser);
    QString matrix = parser.value(QStringLiteral("matrix"));
    const bool byModel = parser.isSet(QStringLiteral("model"));
    if (!byModel) {
        for (const char* modelOnly : {"text", "layer", "head"})
            if (parser.isSet(QString::fromLatin1(modelOnly)))
                cliFail(
                    QStringLiteral("--%1 needs --model DIR|NAME").arg(QLatin1String(modelOnly)));
    }
    const std::vector<attn::Step> steps =
        byModel ? modelSteps(parser, &matrix)
                : walkthroughOption(parser, QStringLiteral("example"));
    std::vector<std::size_t> chosen;
    if (byModel) {
        for (std::size_t i = 0; i < steps.size(); ++i) chosen.push_back(i);
    } else {
        chosen = selectSteps(steps, parser.isSet(QStringLiteral("step"))
                                        ? parser.value(QStringLiteral("step"))
                                        : QStringLiteral("all"));
    }

    // The pages as the window opens them (last frame, training mode, the step's highlights).
    std::vector<std::unique_ptr<views::StepPage>> pages;
    QList<views::Figure> figures;
    for (std::size_t i : chosen) {
        pages.push_back(std::make_unique<views::StepPage>(steps[i]));
        for (const views::Figure& f : views::pageFigures(*pages.back()))
            if (matrix.isEmpty() || f.matrixId == matrix) figures.append(f);
    }
    if (figures.isEmpty())
        cliFail(QStringLiteral("--matrix \"%1\" is not shown on the chosen step(s): the ids are "
                               "printed in the file names of an export without --matrix")
                    .arg(matrix));

    const QString dir = QDir::cleanPath(parser.value(QStringLiteral("out")));
    const QStringList names = views::figureFileNames(figures, options.format);
    if (!options.overwrite) {
        const QStringList existing = attn::existingFiles(dir, names);
        if (!existing.isEmpty())
            cliFail(QStringLiteral("%1 already exists (%2 of the %3 files): nothing was written; "
                                   "--force replaces existing files")
                        .arg(QDir::toNativeSeparators(existing.first()))
                        .arg(existing.size())
                        .arg(figures.size()));
    }
    QStringList written;
    QString error;
    const auto render = [&](qsizetype i, QByteArray& bytes, QString& problem) {
        return views::renderFigureBytes(figures.at(i), options, &bytes, &problem);
    };
    if (!attn::saveFileBatch(dir, names, views::figureKind(options.format), options.overwrite,
                             render, &written, &error))
        cliFail(error);
    QByteArray out;
    for (const QString& path : written) out += QDir::toNativeSeparators(path).toUtf8() + '\n';
    return out;
}
