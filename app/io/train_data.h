// What training reads and writes besides the engine: the texts of the text task (a file, or the
// short public-domain text that ships with the app), the tokenizers of a trained model (one token
// per character, or the induction task's alphabet) and saving a trained model as a Hugging Face
// GPT-2 folder that the model window opens and transformers' GPT2LMHeadModel loads.
#pragma once

#include <QString>
#include <memory>
#include <vector>

#include "app/io/tokenizer.h"
#include "model/train.h"

namespace attn {

// Edith Wharton, "The Verdict" (1908, public domain), the text the book pretrains on
// (rasbt/LLMs-from-scratch's the-verdict.txt), shipped so the text lesson works offline.
QString bundledTextName();  // "the-verdict.txt"
QString bundledText();

struct TrainTextResult {
    QString text;
    QString error;  // "FILE: ... : give a UTF-8 text file" etc.
    bool ok() const { return error.isEmpty(); }
};
// A UTF-8 text file for the text task. Errors name the file and the problem (missing, not
// UTF-8, empty, too large).
TrainTextResult readTrainText(const QString& path);

// A GPT-2 byte-level tokenizer with one token per character of `text` (each character's UTF-8
// bytes joined by merges, so transformers' GPT2Tokenizer gives the same ids), ids in the order
// of the characters' code points, then the bytes and byte prefixes those merges pass through, plus
// "<|endoftext|>" as the last id. A character not in `text` encodes as "<|endoftext|>".
std::shared_ptr<const Tokenizer> characterTokenizer(const QString& text);
// The induction task's vocabulary: id 0 is "<|endoftext|>" (the task's BOS), ids 1 .. V − 1 are
// single printable ASCII characters (a-z, A-Z, 0-9, then punctuation in code point order), so
// typing "abcdabcd" in the model window shows a trained induction head; other characters encode
// as "<|endoftext|>". V from 2 to maxInductionVocab() (95), else AttentionError: a letter of
// several UTF-8 bytes would need its bytes as tokens too, ids the model does not have.
std::shared_ptr<const Tokenizer> inductionTokenizer(int vocabSize);
int maxInductionVocab();

// Writes FOLDER/config.json (GPT2Config's keys; "attn_only": true for attention-only models, as
// TransformerLens names it), model.safetensors (F32, the names GPT2LMHeadModel saves) and the
// tokenizer's vocab.json and merges.txt, each file atomically; creates the folder. False with
// *error naming the file and the reason.
bool saveGpt2Folder(const QString& folder, const ModelParameters& params,
                    const Tokenizer& tokenizer, QString* error);

}  // namespace attn
