// A GPT-2 model folder as the model subcommands (tokenize, forward, generate, export --model)
// open it from --model DIR|NAME.
#pragma once

#include <QCommandLineParser>
#include <QString>
#include <memory>
#include <vector>

#include "app/io/bpe_tokenizer.h"
#include "model/gpt2_model.h"

struct ModelFolder {
    QString folder;  // the resolved folder (a cache snapshot for a model name)
    std::shared_ptr<const BpeTokenizer> tokenizer;
    std::shared_ptr<const attn::Gpt2Weights> weights;  // null unless asked for
};

// Resolves --model (a folder, else a name in the Hugging Face cache), loads the tokenizer and,
// with `withWeights`, the weights; fails with the folder's own message.
ModelFolder openModelOption(const QCommandLineParser& parser, bool withWeights);
// The ids of a --text, refused when it gives none.
std::vector<int> encodeModelText(const ModelFolder& model, const QString& text);
// Refuses more tokens than the model's n_positions, naming both.
void checkModelLength(const attn::Gpt2Config& config, std::size_t tokens);
