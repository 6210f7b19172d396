// attention-cli export: the walkthrough's heatmaps as files, without a display. The figures come
// from the same StepPage and HeatmapWidget as the window's (views/figure_render.h), on Qt's
// offscreen platform (cli_main.cpp makes a QApplication for this subcommand only), and are saved
// as the window saves them (app/io/file_batch.h).
#include <QApplication>
#include <QDir>
#include <QRegularExpression>
#include <cstdio>
#include <memory>
#include <vector>

#include "app/cli/cli_command.h"
#include "app/cli/cli_model.h"
#include "app/io/attention_dump.h"
#include "app/io/example_file.h"
#include "app/io/file_batch.h"
#include "model/attention_layer_step.h"
#include "model/transformer.h"
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

// --model and --dump draw a real model's heads: the walkthrough's own options do not apply.
void refuseWalkthroughOptions(const QCommandLineParser& parser, const QString& source) {
    for (const char* walkthroughOnly : {"step", "matrix", "example"})
        if (parser.isSet(QString::fromLatin1(walkthroughOnly)))
            cliFail(QStringLiteral("--%1 belongs to the walkthrough's figures: with --%2 choose "
                                   "--layer and --head")
                        .arg(QLatin1String(walkthroughOnly), source));
}

// A layer's Step reduced to the one head --head names (all heads when it names all).
void keepHeads(attn::Step* step, const std::vector<Eigen::Index>& heads) {
    if (heads.size() != 1) return;
    const attn::StepMatrix kept = step->matrices.at(static_cast<std::size_t>(heads[0]));
    step->matrices = {kept};
}

// --model: the heads of a real model on --text, one walkthrough-like record per layer
// (attn::model_layer_step), so they are drawn and named as the window draws them.
std::vector<attn::Step> modelSteps(const QCommandLineParser& parser) {
    if (!parser.isSet(QStringLiteral("text")) || parser.value(QStringLiteral("text")).isEmpty())
        cliFail(QStringLiteral("give --text TEXT, the text whose attention to export"));
    refuseWalkthroughOptions(parser, QStringLiteral("model"));
    const ModelFolder model = openModelOption(parser, true);
    const attn::TransformerSpec& spec = model.weights->spec;
    const attn::TokenizedInput input = encodeModelInput(parser, model);
    const std::vector<int>& ids = input.ids;
    checkModelLength(spec, ids.size());
    const std::vector<Eigen::Index> layers =
        selectIndices(parser, QStringLiteral("layer"), spec.num_layers);
    const std::vector<Eigen::Index> heads =
        selectIndices(parser, QStringLiteral("head"), spec.num_heads);
    attn::ModelForwardOptions options;
    options.keep_qkv = true;
    if (spec.type_vocab_size > 0) options.token_type_ids = input.typeIds;
    const attn::ModelForwardResult result = attn::model_forward(*model.weights, ids, options);
    std::vector<std::string> tokens;
    for (int id : ids) tokens.push_back(model.tokenizer->displayToken(id).toStdString());
    std::vector<attn::Step> steps;
    for (Eigen::Index layer : layers) {
        attn::Step step = attn::model_layer_step(result, spec, layer, tokens);
        keepHeads(&step, heads);
        steps.push_back(std::move(step));
    }
    return steps;
}

// --dump: attention saved from any model in Python (app/io/attention_dump.h), drawn as --model's
// layers are (attn::attention_layer_step).
std::vector<attn::Step> dumpSteps(const QCommandLineParser& parser) {
    refuseWalkthroughOptions(parser, QStringLiteral("dump"));
    const attn::AttentionDumpResult loaded = attn::loadAttentionDump(
        parser.value(QStringLiteral("dump")), parser.value(QStringLiteral("tokens")));
    if (!loaded.ok()) cliFail(loaded.error);
    // Not an error: the figures are right, only labelled by position.
    if (!loaded.dump.warning.isEmpty())
        std::fprintf(stderr, "attention-cli: export: %s\n",
                     loaded.dump.warning.toUtf8().constData());
    const auto& attentions = loaded.dump.attentions;
    const std::vector<Eigen::Index> layers = selectIndices(
        parser, QStringLiteral("layer"), static_cast<Eigen::Index>(attentions.size()));
    const std::vector<Eigen::Index> heads = selectIndices(
        parser, QStringLiteral("head"), static_cast<Eigen::Index>(attentions.front().size()));
    std::vector<std::string> tokens;
    for (const QString& token : loaded.dump.tokens) tokens.push_back(token.toStdString());
    std::vector<attn::Step> steps;
    for (Eigen::Index layer : layers) {
        attn::Step step =
            attn::attention_layer_step(attentions[static_cast<std::size_t>(layer)], layer, tokens);
        keepHeads(&step, heads);
        steps.push_back(std::move(step));
    }
    return steps;
}

}  // namespace

void addExportOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "Save the walkthrough's heatmaps as figures, drawn exactly as the window draws them, "
        "without\na display. One file per heatmap, named step-NN-<matrix>.<format> (e.g. "
        "step-11-causal-weights.png);\nthe KV-cache step exports its last frame. With --model or "
        "--dump, a real model's heads:\nlayer-L-head-H.<format>, or layer-L-heads.<format> with "
        "--one-figure. Prints the files written,\none per line. Nothing is written when a file "
        "exists (unless --force) or when a write fails\n(the files written before are removed "
        "again)."));
    parser.addOptions({
        {QStringLiteral("out"), QStringLiteral("Folder for the figures (created if missing)."),
         QStringLiteral("DIR")},
        {QStringLiteral("step"),
         QStringLiteral("all (default), a step number or a step id such as causal-softmax "
                        "(attention-cli steps lists them)."),
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
         QStringLiteral("Export a model's attention on --text instead of the walkthrough: a "
                        "folder, a .gguf file or a name in the Hugging Face cache (GPT-2, Llama, "
                        "Mistral, Qwen, BERT, DistilBERT, RoBERTa). Files are named "
                        "layer-L-head-H.<format>."),
         QStringLiteral("DIR|NAME")},
        {QStringLiteral("text"), QStringLiteral("With --model: the text."), QStringLiteral("TEXT")},
        {QStringLiteral("text-pair"),
         QStringLiteral("With --model, an encoder (BERT, RoBERTa): a second text, fed as a pair."),
         QStringLiteral("TEXT")},
        {QStringLiteral("dump"),
         QStringLiteral("Export an attention dump saved from any model in Python instead of the "
                        "walkthrough: .npy [layers, heads, queries, keys] or .safetensors (one "
                        "tensor per layer). Files are named layer-L-head-H.<format>."),
         QStringLiteral("FILE")},
        {QStringLiteral("tokens"),
         QStringLiteral("With --dump: the JSON list of its tokens (default: <name>.tokens.json "
                        "or tokens.json beside it, else the positions)."),
         QStringLiteral("FILE.json")},
        {QStringLiteral("layer"),
         QStringLiteral("With --model or --dump: all (default) or a layer from 1."),
         QStringLiteral("L")},
        {QStringLiteral("head"),
         QStringLiteral("With --model or --dump: all (default) or a head from 1."),
         QStringLiteral("H")},
        {
            QStringLiteral("one-figure"),
            QStringLiteral("With --model or --dump: all heads of a layer in one figure, "
                           "layer-L-heads.<format> (CSV: one long table)."),
        },
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
        if (!views::colormap::isKnown(options.colorMap))
            cliFail(
                QStringLiteral("--colormap \"%1\" is unknown: give one of %2")
                    .arg(options.colorMap, views::colormap::names().join(QStringLiteral(", "))));
    }

    const auto translation = installLanguageOption(parser);
    const QString matrix = parser.value(QStringLiteral("matrix"));
    const bool byModel = parser.isSet(QStringLiteral("model"));
    const bool byDump = parser.isSet(QStringLiteral("dump"));
    const bool oneFigure = parser.isSet(QStringLiteral("one-figure"));
    if (byModel && byDump) cliFail(QStringLiteral("give --model or --dump, not both"));
    if (!byModel && parser.isSet(QStringLiteral("text")))
        cliFail(QStringLiteral("--text needs --model DIR|NAME"));
    if (!byModel && parser.isSet(QStringLiteral("text-pair")))
        cliFail(QStringLiteral("--text-pair needs --model DIR|NAME and --text"));
    if (!byDump && parser.isSet(QStringLiteral("tokens")))
        cliFail(QStringLiteral("--tokens needs --dump FILE"));
    if (!byModel && !byDump) {
        for (const char* layerOption : {"layer", "head", "one-figure"})
            if (parser.isSet(QString::fromLatin1(layerOption)))
                cliFail(QStringLiteral("--%1 needs --model DIR|NAME or --dump FILE")
                            .arg(QLatin1String(layerOption)));
    }
    if (oneFigure && parser.isSet(QStringLiteral("head")) &&
        parser.value(QStringLiteral("head"))
                .trimmed()
                .compare(QLatin1String("all"), Qt::CaseInsensitive) != 0)
        cliFail(
            QStringLiteral("--one-figure draws every head of a layer: leave out --head (or "
                           "give --head all)"));
    const std::vector<attn::Step> steps =
        byModel  ? modelSteps(parser)
        : byDump ? dumpSteps(parser)
                 : walkthroughOption(parser, QStringLiteral("example"));
    std::vector<std::size_t> chosen;
    if (byModel || byDump) {
        for (std::size_t i = 0; i < steps.size(); ++i) chosen.push_back(i);
    } else {
        chosen = selectSteps(steps, parser.isSet(QStringLiteral("step"))
                                        ? parser.value(QStringLiteral("step"))
                                        : QStringLiteral("all"));
    }

    // The pages as the window opens them (last frame, training mode, the step's highlights).
    std::vector<std::unique_ptr<views::StepPage>> pages;
    QList<views::Figure> figures;
    // --one-figure: one file per page, the page's figures side by side.
    QList<QList<views::Figure>> grids;
    for (std::size_t i : chosen) {
        pages.push_back(std::make_unique<views::StepPage>(steps[i]));
        QList<views::Figure> shown;
        for (const views::Figure& f : views::pageFigures(*pages.back()))
            if (matrix.isEmpty() || f.matrixId == matrix) shown.append(f);
        figures.append(shown);
        if (!shown.isEmpty()) grids.append(shown);
    }
    if (figures.isEmpty())
        cliFail(QStringLiteral("--matrix \"%1\" is not shown on the chosen step(s): the ids are "
                               "printed in the file names of an export without --matrix")
                    .arg(matrix));

    const QString dir = QDir::cleanPath(parser.value(QStringLiteral("out")));
    QStringList names;
    attn::FileBytes render;
    if (oneFigure) {
        for (const QList<views::Figure>& grid : grids)
            names << views::figureGridBaseName(*grid.front().page) + QLatin1Char('.') +
                         views::figureSuffix(options.format);
        render = [&](qsizetype i, QByteArray& bytes, QString& problem) {
            return views::renderFiguresGrid(grids.at(i), options, 0, &bytes, &problem);
        };
    } else {
        names = views::figureFileNames(figures, options.format);
        render = [&](qsizetype i, QByteArray& bytes, QString& problem) {
            return views::renderFigureBytes(figures.at(i), options, &bytes, &problem);
        };
    }
    if (!options.overwrite) {
        const QStringList existing = attn::existingFiles(dir, names);
        if (!existing.isEmpty())
            cliFail(QStringLiteral("%1 already exists (%2 of the %3 files): nothing was written; "
                                   "--force replaces existing files")
                        .arg(QDir::toNativeSeparators(existing.first()))
                        .arg(existing.size())
                        .arg(names.size()));
    }
    QStringList written;
    QString error;
    if (!attn::saveFileBatch(dir, names, views::figureKind(options.format), options.overwrite,
                             render, &written, &error))
        cliFail(error);
    QByteArray out;
    for (const QString& path : written) out += QDir::toNativeSeparators(path).toUtf8() + '\n';
    return out;
}
