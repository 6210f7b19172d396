#!/usr/bin/python3
# The SentencePiece half of tests/reference/llama_tokenizer_reference.js, which runs it: trains a
# small SentencePiece BPE model (byte_fallback, as Llama 2's) with Debian's python3-sentencepiece
# (`apt-get install python3-sentencepiece`, run with /usr/bin/python3) and writes, from it,
#
#   tests/data/tokenizers/llama2-style/   tokenizer.json as Hugging Face converts such a model for
#                                         Llama 2 (normalizer Prepend + Replace, byte fallback,
#                                         decoder Replace, ByteFallback, Fuse, Strip) and
#                                         tokenizer_config.json (add_bos_token)
#   tests/data/tokenizers/mistral-style/  the same model in the newer form (pre_tokenizer and
#                                         decoder Metaspace, prepend_scheme "first")
#   tests/data/tokenizers/spm-vocab.json  its pieces, scores and piece types, for a GGUF "llama"
#                                         vocabulary (GgufVocab)
#
# and prints SentencePiece's own ids for each text of argv[1] (a JSON list) as a JSON list.
import json
import os
import sys
import tempfile

import sentencepiece as spm

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data', 'tokenizers')

# Training text: English, French, German, digits, code-like punctuation and a little CJK, so the
# model learns merges of each and has to fall back to bytes for what it has not seen.
SENTENCES = [
    "The transformer reads every token at once, and attention decides how much each word "
    "should look at the others.",
    "Queries meet keys; the softmax of their scores weighs the values.",
    "Don't worry if the maths feels heavy at first: we'll go one step at a time.",
    "In 2017, the paper said attention is all you need, and by 2026 it's everywhere.",
    "Le modèle lit chaque mot et décide où porter son attention, même très loin.",
    "Die Aufmerksamkeit gewichtet die Wörter über die ganze Länge des Satzes.",
    "def attention(query, keys, values): return softmax(query @ keys.T) @ values",
    "注意力机制 让模型 关注 重要的 词语。",
    "Numbers like 3.14159, 1,000,000 and 42 show how digits are split.",
    "She said: \"Hello, world!\" and he replied (quietly) with a smile.",
]


def train(workdir):
    corpus = os.path.join(workdir, 'corpus.txt')
    with open(corpus, 'w', encoding='utf-8') as f:
        for i in range(40):
            for s in SENTENCES:
                f.write(s + '\n')
    prefix = os.path.join(workdir, 'spm')
    spm.SentencePieceTrainer.train(
        input=corpus, model_prefix=prefix, model_type='bpe', vocab_size=700,
        byte_fallback=True, split_digits=True, normalization_rule_name='identity',
        remove_extra_whitespaces=False, add_dummy_prefix=True, allow_whitespace_only_pieces=True,
        hard_vocab_limit=False, num_threads=1, minloglevel=2,
        unk_id=0, bos_id=1, eos_id=2, pad_id=-1)
    return spm.SentencePieceProcessor(model_file=prefix + '.model')


def pieces_of(sp):
    pieces = []
    for i in range(sp.get_piece_size()):
        if sp.is_unknown(i):
            kind = 2
        elif sp.is_control(i):
            kind = 3
        elif sp.is_byte(i):
            kind = 6
        elif sp.is_unused(i):
            kind = 5
        else:
            kind = 1
        pieces.append((sp.id_to_piece(i), sp.get_score(i), kind))
    return pieces


def hf_merges(pieces):
    # transformers' SentencePieceExtractor: every split of a piece into two pieces, ordered by the
    # piece's score (highest first), then by the parts' ids.
    vocab = {p: i for i, (p, _, _) in enumerate(pieces)}
    merges = []
    for merged, score, _ in pieces:
        local = []
        for k in range(1, len(merged)):
            left, right = merged[:k], merged[k:]
            if left in vocab and right in vocab:
                local.append((left, right, score))
        local.sort(key=lambda m: (vocab[m[0]], vocab[m[1]]))
        merges.extend(local)
    merges.sort(key=lambda m: m[2], reverse=True)
    return [[l, r] for l, r, _ in merges]


def added(pieces):
    return [{"id": i, "content": p, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for i, (p, _, kind) in enumerate(pieces) if kind in (2, 3)]


def model(pieces):
    return {"type": "BPE", "dropout": None, "unk_token": "<unk>",
            "continuing_subword_prefix": None, "end_of_word_suffix": None, "fuse_unk": True,
            "byte_fallback": True, "ignore_merges": False,
            "vocab": {p: i for i, (p, _, _) in enumerate(pieces)}, "merges": hf_merges(pieces)}


def template():
    return {"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "<s>", "type_id": 1}},
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}}


def llama2_style(pieces):
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added(pieces),
            "normalizer": {"type": "Sequence", "normalizers": [
                {"type": "Prepend", "prepend": "\u2581"},
                {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
            "pre_tokenizer": None, "post_processor": template(),
            "decoder": {"type": "Sequence", "decoders": [
                {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
                {"type": "ByteFallback"}, {"type": "Fuse"},
                {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
            "model": model(pieces)}


def mistral_style(pieces):
    meta = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first",
            "split": False}
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added(pieces),
            "normalizer": None, "pre_tokenizer": meta, "post_processor": template(),
            "decoder": {"type": "Sequence", "decoders": [
                {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first",
                 "split": False},
                {"type": "ByteFallback"}, {"type": "Fuse"}]},
            "model": model(pieces)}


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        json.dump(value, f, ensure_ascii=False, separators=(',', ':'))
        f.write('\n')


def main():
    texts = json.load(open(sys.argv[1], encoding='utf-8'))
    with tempfile.TemporaryDirectory() as workdir:
        sp = train(workdir)
    pieces = pieces_of(sp)
    config = {"add_bos_token": True, "add_eos_token": False, "bos_token": "<s>",
              "eos_token": "</s>", "clean_up_tokenization_spaces": False}
    write_json(os.path.join(ROOT, 'llama2-style', 'tokenizer.json'), llama2_style(pieces))
    write_json(os.path.join(ROOT, 'llama2-style', 'tokenizer_config.json'), config)
    write_json(os.path.join(ROOT, 'mistral-style', 'tokenizer.json'), mistral_style(pieces))
    write_json(os.path.join(ROOT, 'mistral-style', 'tokenizer_config.json'), config)
    write_json(os.path.join(ROOT, 'spm-vocab.json'),
               {"tokens": [p for p, _, _ in pieces], "scores": [s for _, s, _ in pieces],
                "types": [k for _, _, k in pieces]})
    json.dump([sp.encode(t) for t in texts], sys.stdout)


if __name__ == '__main__':
    main()
