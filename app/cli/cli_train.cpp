// attention-cli train: trains a small GPT-2-layout transformer (model/trainer.h) on the induction
// task or a text, printing one JSON line per logged step (the loss and every head's previous-token
// and induction scores) while it runs, and saves the result as a GPT-2 folder
// (app/io/train_data.h) that `forward`, `generate` and the model window open.
#include <QDir>
#include <QElapsedTimer>
#include <cstdio>
#include <limits>
#include <optional>

#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "app/cli/cli_model.h"
#include "app/io/json_text.h"
#include "app/io/train_data.h"
#include "model/matmul.h"
#include "model/trainer.h"

namespace {

using Index = Eigen::Index;

constexpr qint64 kMaxSteps = qint64{1} << 40;
constexpr qint64 kMaxSize = 16384;  // layers, heads, width, sequence length, batch: typos beyond

QString opt(const char* name) { return QString::fromLatin1(name); }

double numberOption(const QCommandLineParser& parser, const char* name, double fallback, double min,
                    double max, const char* example) {
    if (!parser.isSet(opt(name))) return fallback;
    QString error;
    const std::optional<double> v =
        parseNumberOption(QStringLiteral("--") + opt(name), parser.value(opt(name)), min, max,
                          QString::fromLatin1(example), &error);
    if (!v) cliFail(error);
    return *v;
}

Index sizeOption(const QCommandLineParser& parser, const char* name, Index fallback, qint64 min,
                 qint64 max = kMaxSize) {
    return static_cast<Index>(integerOption(parser, opt(name), fallback, min, max));
}

attn::TrainTask taskOption(const QCommandLineParser& parser) {
    const QString task = parser.value(opt("task"));
    if (!parser.isSet(opt("task")) || task == QLatin1String("induction"))
        return attn::TrainTask::Induction;
    if (task == QLatin1String("text")) return attn::TrainTask::Text;
    cliFail(QStringLiteral("--task \"%1\" is not a task: give --task induction or --task text")
                .arg(task));
}

// Options that make no sense together fail before anything is read.
void checkCombinations(const QCommandLineParser& parser, attn::TrainTask task) {
    const bool text = task == attn::TrainTask::Text;
    if (parser.isSet(opt("text")) && !text)
        cliFail(QStringLiteral("--text is the text task's: add --task text"));
    if (parser.isSet(opt("vocab")) && text)
        cliFail(
            QStringLiteral("--vocab is the induction task's; the text task's vocabulary is "
                           "the text's characters: leave --vocab out"));
    if (parser.isSet(opt("shuffle")) && !text)
        cliFail(
            QStringLiteral("--shuffle is the text task's (induction sequences are drawn "
                           "afresh): leave it out or add --task text"));
    const bool custom = parser.isSet(opt("layers")) || parser.isSet(opt("heads")) ||
                        parser.isSet(opt("d-model")) || parser.isSet(opt("attn-only"));
    if (custom && !(parser.isSet(opt("layers")) && parser.isSet(opt("heads")) &&
                    parser.isSet(opt("d-model"))))
        cliFail(
            QStringLiteral("a model of your own needs --layers N --heads H --d-model D "
                           "together (and --attn-only for no MLP and no norms)"));
    if (custom && parser.isSet(opt("preset")))
        cliFail(
            QStringLiteral("--preset and --layers/--heads/--d-model both choose the model: "
                           "give one of them"));
    if (parser.isSet(opt("model")) && (custom || parser.isSet(opt("preset"))))
        cliFail(
            QStringLiteral("--model continues a saved model, whose size is its own: leave "
                           "out --preset and --layers/--heads/--d-model/--attn-only"));
    if (parser.isSet(opt("model")) && parser.isSet(opt("vocab")))
        cliFail(QStringLiteral("--model brings its own vocabulary: leave --vocab out"));
}

// What the run trains: the starting parameters (a continued model) or a spec to initialise,
// the tokenizer, and the options the model's choice gives (lr, batch, seq_len).
struct TrainSetup {
    std::optional<attn::ModelParameters> start;
    attn::TransformerSpec spec;
    std::shared_ptr<const attn::Tokenizer> tokenizer;
    attn::TrainerOptions options;
};

QString textOfRun(const QCommandLineParser& parser) {
    if (!parser.isSet(opt("text"))) return attn::bundledText();
    const attn::TrainTextResult r = attn::readTrainText(parser.value(opt("text")));
    if (!r.ok()) cliFail(QStringLiteral("--text ") + r.error);
    return r.text;
}

TrainSetup setupRun(const QCommandLineParser& parser, attn::TrainTask task) {
    TrainSetup s;
    const bool text = task == attn::TrainTask::Text;
    const QString trainText = text ? textOfRun(parser) : QString();
    Index vocab = 0;
    float lr = 1e-3f;
    Index batch = 16, seqLen = 32;
    if (parser.isSet(opt("model"))) {
        const ModelFolder model = openModelOption(parser, true);
        s.start = attn::parameters_from_weights(*model.weights);
        s.spec = s.start->spec;
        s.tokenizer = model.tokenizer;
        lr = 1e-4f;  // continuing: smaller steps than from scratch
        seqLen = std::min<Index>(seqLen, s.spec.max_positions);
    } else {
        if (text) {
            s.tokenizer = attn::characterTokenizer(trainText);
        } else {
            const int v = static_cast<int>(
                integerOption(parser, opt("vocab"), 64, 3, attn::maxInductionVocab()));
            s.tokenizer = attn::inductionTokenizer(v);
        }
        vocab = s.tokenizer->vocabSize();
        const Index requestedSeqLen = sizeOption(parser, "seq-len", 0, 2);
        if (parser.isSet(opt("layers"))) {
            seqLen = requestedSeqLen > 0 ? requestedSeqLen : seqLen;
            s.spec = attn::train_spec(
                sizeOption(parser, "layers", 0, 1, 64), sizeOption(parser, "heads", 0, 1),
                sizeOption(parser, "d-model", 0, 1), vocab, seqLen, parser.isSet(opt("attn-only")));
        } else {
            const QString name = parser.isSet(opt("preset"))
                                     ? parser.value(opt("preset"))
                                     : QLatin1String(text ? "gpt-2l" : "attn-only-2l");
            const attn::TrainPreset preset =
                attn::train_preset(name.toStdString(), vocab, requestedSeqLen);
            s.spec = preset.spec;
            lr = preset.lr;
            batch = preset.batch;
            seqLen = preset.seq_len;
        }
    }
    attn::TrainerOptions& o = s.options;
    o.task = task;
    o.seq_len = sizeOption(parser, "seq-len", seqLen, 2);
    if (o.seq_len > s.spec.max_positions)
        cliFail(QStringLiteral("--seq-len %1 is more than the model's n_positions %2: give "
                               "--seq-len %2 or less")
                    .arg(o.seq_len)
                    .arg(s.spec.max_positions));
    o.batch = sizeOption(parser, "batch", batch, 1);
    if (text) o.text_tokens = s.tokenizer->encode(trainText);
    o.shuffle = integerOption(parser, opt("shuffle"), 1, 0, 1) == 1;
    o.adamw.lr = static_cast<float>(numberOption(parser, "lr", lr, 1e-7, 10.0, "0.001"));
    o.adamw.weight_decay =
        static_cast<float>(numberOption(parser, "weight-decay", 0.01, 0.0, 10.0, "0.01"));
    o.grad_clip = static_cast<float>(numberOption(parser, "grad-clip", 1.0, 0.0, 1e6, "1"));
    o.seed = static_cast<std::uint64_t>(integerOption(parser, opt("seed"), 0, 0, qint64{1} << 53));
    if (s.tokenizer->vocabSize() > s.spec.vocab_size)
        cliFail(QStringLiteral("--model: the tokenizer has %1 ids but the model %2: the folder "
                               "mixes two models")
                    .arg(s.tokenizer->vocabSize())
                    .arg(s.spec.vocab_size));
    return s;
}

// One logged step as one line of JSON.
QByteArray stepLine(std::int64_t step, float loss, double elapsedMs, double tokensPerSecond,
                    const std::vector<attn::HeadScore>& scores, bool done) {
    QByteArray line =
        "{\"step\":" + QByteArray::number(static_cast<qint64>(step)) +
        ",\"loss\":" + attn::formatFloat(loss) +
        ",\"elapsed_ms\":" + attn::formatFloat(static_cast<float>(elapsedMs)) +
        ",\"tokens_per_second\":" + attn::formatFloat(static_cast<float>(tokensPerSecond)) +
        ",\"heads\":[";
    for (std::size_t i = 0; i < scores.size(); ++i) {
        const attn::HeadScore& h = scores[i];
        line += (i ? ",{\"layer\":" : "{\"layer\":") + QByteArray::number(qint64{h.layer}) +
                ",\"head\":" + QByteArray::number(qint64{h.head}) +
                ",\"previous_token_score\":" + attn::formatFloat(h.previous_token_score) +
                ",\"induction_score\":" + attn::formatFloat(h.induction_score) + '}';
    }
    line += done ? "],\"done\":true}\n" : "]}\n";
    return line;
}

}  // namespace

void addTrainOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "Train a small GPT-2-layout transformer from scratch (or continue a saved one) and watch\n"
        "its heads: on the induction task ([BOS] r r, random tokens repeated) an induction head\n"
        "forms; on a text (the bundled \"The Verdict\" by default) it learns the characters.\n"
        "Prints one JSON object per logged step while it runs: step, loss, elapsed_ms,\n"
        "tokens_per_second and heads (layer, head, previous_token_score, induction_score); the\n"
        "last adds \"done\": true. AdamW (betas 0.9/0.999, eps 1e-8) as torch.optim.AdamW.\n"
        "Computes on one thread unless --threads is given: the models are small, and one thread\n"
        "runs their products fastest."));
    parser.addOptions({
        {opt("task"), QStringLiteral("induction (default) or text."), QStringLiteral("TASK")},
        {opt("text"),
         QStringLiteral("The text task's UTF-8 text file (default: the bundled The Verdict)."),
         QStringLiteral("FILE")},
        {opt("preset"),
         QStringLiteral("attn-only-1l, attn-only-2l (the induction task's default) or gpt-2l (the "
                        "text task's)."),
         QStringLiteral("NAME")},
        {opt("layers"), QStringLiteral("Layers of a model of your own (with --heads, --d-model)."),
         QStringLiteral("N")},
        {opt("heads"), QStringLiteral("Heads per layer; must divide --d-model."),
         QStringLiteral("H")},
        {opt("d-model"), QStringLiteral("Width of the model."), QStringLiteral("D")},
        {opt("attn-only"), QStringLiteral("Attention only: no MLP and no LayerNorm.")},
        {opt("model"),
         QStringLiteral("Continue training a saved GPT-2 folder (its tokenizer too)."),
         QStringLiteral("DIR")},
        {opt("vocab"),
         QStringLiteral("The induction task's vocabulary, 3 to %1 (default 64).")
             .arg(attn::maxInductionVocab()),
         QStringLiteral("V")},
        {opt("seq-len"), QStringLiteral("Tokens per sequence (default: the preset's, 40 or 64)."),
         QStringLiteral("T")},
        {opt("batch"),
         QStringLiteral(
             "Sequences per step (default: the preset's, 32 or 16; 16 for your own model)."),
         QStringLiteral("B")},
        {opt("steps"),
         QStringLiteral("Steps to train (default 1000; unlimited when only --seconds is given)."),
         QStringLiteral("S")},
        {opt("seconds"), QStringLiteral("Stop after this many seconds."), QStringLiteral("S")},
        {opt("lr"),
         QStringLiteral("Learning rate (default: the preset's; 0.001 for your own model, 0.0001 "
                        "with --model)."),
         QStringLiteral("LR")},
        {opt("weight-decay"), QStringLiteral("AdamW's weight decay (default 0.01)."),
         QStringLiteral("W")},
        {opt("grad-clip"),
         QStringLiteral("Clip the gradients' global norm to this (default 1; 0: no clipping)."),
         QStringLiteral("C")},
        {opt("shuffle"),
         QStringLiteral("Text task: 1 visits the windows in a fresh random order each pass "
                        "(default), 0 in order."),
         QStringLiteral("0|1")},
        {opt("seed"),
         QStringLiteral("Seed of the initial weights, batches and shuffling (default 0)."),
         QStringLiteral("S")},
        {opt("log-every"), QStringLiteral("Print every K steps (default 10), and the last."),
         QStringLiteral("K")},
        {opt("save"),
         QStringLiteral("Save the trained model as a GPT-2 folder (config.json, model.safetensors, "
                        "vocab.json, merges.txt)."),
         QStringLiteral("DIR")},
    });
}

QByteArray runTrain(const QCommandLineParser& parser) {
    const attn::TrainTask task = taskOption(parser);
    checkCombinations(parser, task);
    const bool limitedBySteps = parser.isSet(opt("steps")) || !parser.isSet(opt("seconds"));
    const qint64 steps = integerOption(parser, opt("steps"), 1000, 0, kMaxSteps);
    const double seconds = numberOption(parser, "seconds", 0.0, 0.001, 1e9, "60");
    const qint64 logEvery = integerOption(parser, opt("log-every"), 10, 1, kMaxSteps);
    const QString save = parser.value(opt("save"));
    // A folder that cannot be made fails now, not after the training.
    if (parser.isSet(opt("save")) && (save.isEmpty() || !QDir().mkpath(save)))
        cliFail(QStringLiteral("--save %1: cannot create this folder: choose a folder you can "
                               "write to")
                    .arg(QDir::toNativeSeparators(save)));

    TrainSetup setup = setupRun(parser, task);
    // The presets' products are small: one thread computes them fastest (more only with
    // --threads).
    if (!parser.isSet(QStringLiteral("threads"))) attn::set_engine_threads(1);
    attn::Trainer trainer = setup.start ? attn::Trainer(std::move(*setup.start), setup.options)
                                        : attn::Trainer(setup.spec, setup.options);
    const Index tokensPerStep = setup.options.batch * setup.options.seq_len;

    QElapsedTimer clock;
    clock.start();
    qint64 stepNanoseconds = 0;
    attn::TrainStepResult last;
    last.loss = std::numeric_limits<float>::quiet_NaN();  // no step: null
    bool done = false;
    while (!done) {
        if (limitedBySteps && trainer.steps_done() >= steps) break;
        const qint64 before = clock.nsecsElapsed();
        last = trainer.step();
        stepNanoseconds += clock.nsecsElapsed() - before;
        done = (limitedBySteps && last.step >= steps) ||
               (seconds > 0.0 && static_cast<double>(clock.nsecsElapsed()) >= seconds * 1e9);
        if (done || last.step % logEvery != 0) continue;
        const double tokens = static_cast<double>(last.step * tokensPerStep);
        const QByteArray line = stepLine(
            last.step, last.loss, static_cast<double>(clock.nsecsElapsed()) / 1e6,
            tokens / (static_cast<double>(stepNanoseconds) / 1e9), trainer.scores(), false);
        std::fwrite(line.constData(), 1, static_cast<std::size_t>(line.size()), stdout);
        std::fflush(stdout);
    }
    const double elapsedMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    if (!save.isEmpty()) {
        QString error;
        if (!attn::saveGpt2Folder(save, trainer.parameters(), *setup.tokenizer, &error))
            cliFail(QStringLiteral("--save ") + error);
    }
    const double tokens = static_cast<double>(trainer.steps_done() * tokensPerStep);
    return stepLine(
        trainer.steps_done(), last.loss, elapsedMs,
        stepNanoseconds > 0 ? tokens / (static_cast<double>(stepNanoseconds) / 1e9) : 0.0,
        trainer.scores(), true);
}
