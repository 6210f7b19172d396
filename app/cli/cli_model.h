// A model folder as the model subcommands (tokenize, forward, generate, export --model) open it
// from --model DIR|NAME.
#pragma once

#include <QCommandLineParser>
#include <QString>
#include <memory>
#include <vector>

#include "app/io/model_folder.h"
#include "app/io/tokenizer.h"
#include "model/transformer_spec.h"

using attn::ModelFolder;  // app/io/model_folder.h

// Resolves --model (a folder, else a name in the Hugging Face cache), loads the tokenizer and,
// with `withWeights`, the weights; fails with the folder's own message.
ModelFolder openModelOption(const QCommandLineParser& parser, bool withWeights);
// The ids of a --text, refused when it gives none.
std::vector<int> encodeModelText(const ModelFolder& model, const QString& text);
// --text-pair: the second text of an encoder's pair ("[CLS] A [SEP] B [SEP]").
void addTextPairOption(QCommandLineParser& parser);
// --text (and --text-pair) as the model is fed them: ids, token_type_ids and segments. Refuses an
// empty text, and a pair when the tokenizer has no pair template (decoders).
attn::TokenizedInput encodeModelInput(const QCommandLineParser& parser, const ModelFolder& model);
// Refuses more tokens than the model's positions, naming both.
void checkModelLength(const attn::TransformerSpec& spec, std::size_t tokens);
