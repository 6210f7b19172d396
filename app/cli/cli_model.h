// A GPT-2 model folder as the model subcommands (tokenize, forward, generate, export --model)
// open it from --model DIR|NAME.
#pragma once

#include <QCommandLineParser>
#include <QString>
#include <memory>
#include <vector>

#include "app/io/gpt2_folder.h"
#include "model/gpt2_model.h"

using ModelFolder = attn::Gpt2Model;  // app/io/gpt2_folder.h

// Resolves --model (a folder, else a name in the Hugging Face cache), loads the tokenizer and,
// with `withWeights`, the weights; fails with the folder's own message.
ModelFolder openModelOption(const QCommandLineParser& parser, bool withWeights);
// The ids of a --text, refused when it gives none.
std::vector<int> encodeModelText(const ModelFolder& model, const QString& text);
// Refuses more tokens than the model's n_positions, naming both.
void checkModelLength(const attn::Gpt2Config& config, std::size_t tokens);
