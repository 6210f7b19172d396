#!/usr/bin/env node
// Reference ids for tests/app/test_llama_tokenizer.cpp from Hugging Face's Tokenizers.js (the npm
// package @huggingface/tokenizers 0.2.0, which reads tokenizer.json as the Rust crate does) and
// from SentencePiece itself (Debian's python3-sentencepiece, through llama_tokenizer_spm.py).
// Install both outside the repository and run from the repository root:
//
//   apt-get install python3-sentencepiece
//   tmp=$(mktemp -d) && (cd "$tmp" && npm install --no-save @huggingface/tokenizers@0.2.0)
//   HF_TOKENIZERS_DIR="$tmp/node_modules/@huggingface/tokenizers" node \
//     tests/reference/llama_tokenizer_reference.js | clang-format --assume-filename=x.h \
//     > tests/reference/llama_tokenizer_reference.h
//
// The tokenizers (their files under tests/data/tokenizers/):
// - llama3-style, qwen2-style, smollm2-style: GPT-2's vocabulary and merges
//   (tests/data/gpt2-tokenizer/) inside each family's own tokenizer.json steps, written here as
//   <name>.skeleton.json ("vocab" and "merges" are filled in from GPT-2's files by this script
//   and by the test alike): Llama 3's Split pattern with ignore_merges and a BOS template, Qwen2's
//   NFC and Split pattern, SmolLM2's Digits and ByteLevel. Real vocabularies cannot be shipped; the
//   patterns, steps and special tokens are the families' own.
// - llama2-style, mistral-style: a SentencePiece BPE model with byte fallback trained by
//   llama_tokenizer_spm.py, in Hugging Face's two forms. SentencePiece's own ids for the same
//   model are written too (for the GGUF "llama" path) and checked against Hugging Face's here.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const dir = process.env.HF_TOKENIZERS_DIR;
if (!dir) {
  console.error('set HF_TOKENIZERS_DIR to the installed @huggingface/tokenizers (see the top of this file)');
  process.exit(2);
}
const { Tokenizer } = require(path.join(dir, 'dist', 'tokenizers.cjs'));
const DATA = path.join('tests', 'data', 'tokenizers');

const LLAMA3_PATTERN = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const QWEN2_PATTERN = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

function addedToken(id, content, special = true, extra = {}) {
  return Object.assign({ id, content, single_word: false, lstrip: false, rstrip: false,
                         normalized: false, special }, extra);
}
const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false };
const bpeModel = (ignoreMerges) => ({ type: 'BPE', dropout: null, unk_token: null,
  continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false,
  byte_fallback: false, ignore_merges: ignoreMerges, vocab: {}, merges: [] });

const skeletons = {
  'llama3-style': {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [addedToken(50257, '<|begin_of_text|>'), addedToken(50258, '<|end_of_text|>'),
                   addedToken(50259, '<|start_header_id|>'), addedToken(50260, '<|end_header_id|>'),
                   addedToken(50261, '<|eot_id|>')],
    normalizer: null,
    pre_tokenizer: { type: 'Sequence', pretokenizers: [
      { type: 'Split', pattern: { Regex: LLAMA3_PATTERN }, behavior: 'Isolated', invert: false },
      byteLevel] },
    post_processor: { type: 'Sequence', processors: [
      Object.assign({}, byteLevel, { trim_offsets: false }),
      { type: 'TemplateProcessing',
        single: [{ SpecialToken: { id: '<|begin_of_text|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
        pair: [{ SpecialToken: { id: '<|begin_of_text|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
               { SpecialToken: { id: '<|begin_of_text|>', type_id: 1 } }, { Sequence: { id: 'B', type_id: 1 } }],
        special_tokens: { '<|begin_of_text|>': { id: '<|begin_of_text|>', ids: [50257], tokens: ['<|begin_of_text|>'] } } }] },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: bpeModel(true),
  },
  'qwen2-style': {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [addedToken(50256, '<|endoftext|>'), addedToken(50257, '<|im_start|>'),
                   addedToken(50258, '<|im_end|>'), addedToken(50259, '<tool_call>', false),
                   addedToken(50260, '<mask>', true, { lstrip: true }),
                   addedToken(50261, '<sep>', true, { rstrip: true })],
    normalizer: { type: 'NFC' },
    pre_tokenizer: { type: 'Sequence', pretokenizers: [
      { type: 'Split', pattern: { Regex: QWEN2_PATTERN }, behavior: 'Isolated', invert: false },
      byteLevel] },
    post_processor: Object.assign({}, byteLevel, { trim_offsets: false }),
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    model: bpeModel(false),
  },
  'smollm2-style': {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [addedToken(50256, '<|endoftext|>'), addedToken(50257, '<|im_start|>'),
                   addedToken(50258, '<|im_end|>')],
    normalizer: null,
    pre_tokenizer: { type: 'Sequence', pretokenizers: [
      { type: 'Digits', individual_digits: true },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true }] },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: bpeModel(false),
  },
};
const configs = {
  'llama3-style': { bos_token: '<|begin_of_text|>', eos_token: '<|end_of_text|>', clean_up_tokenization_spaces: true },
  'qwen2-style': { bos_token: null, eos_token: '<|im_end|>', clean_up_tokenization_spaces: false },
  'smollm2-style': { bos_token: '<|im_start|>', eos_token: '<|im_end|>', clean_up_tokenization_spaces: false },
};

const cases = [
  ['english', 'Your journey starts with one step'],
  ['paragraph', "The transformer reads every token at once, and attention decides how much each " +
    "word should look at the others. In 2017, Vaswani et al. called it \"all you need\"; by 2026 " +
    "it's everywhere."],
  ['contractions', "I'm sure they'll come, but don't wait: it's John's, we've, I'd, you're."],
  ['contractions_upper', "WE'LL GO, DON'T STOP 'S, I'M"],
  ['two_spaces', 'a  b   c    d'],
  ['leading_spaces', '   leading'],
  ['trailing_spaces', 'trailing   '],
  ['only_spaces', '     '],
  ['one_space', ' '],
  ['newlines', 'line one\nline two\n\n\nline three\n'],
  ['crlf', 'a\r\nb\r\n\r\nc'],
  ['tabs', '\tindented\t\ttabs \t mixed'],
  ['space_before_newline', 'end   \n  next'],
  ['digits', '1234567890'],
  ['long_digits', '3141592653589793238462643383279'],
  ['numbers', 'pi is 3.14159, a million is 1,000,000 and 2026-11-26'],
  ['code', 'def f(x):\n    return x**2  # square\n'],
  ['accents', 'café naïve résumé Ærøskøbing'],
  ['decomposed', 'cafe\u0301 and e\u0301\u0302 and n\u0303'],
  ['german', 'Die Aufmerksamkeit gewichtet die Wörter über die ganze Länge.'],
  ['french', 'Le modèle lit chaque mot et décide où porter son attention.'],
  ['cjk', '注意力机制让模型关注重要的词语。'],
  ['japanese', 'こんにちは、世界！カタカナ'],
  ['korean', '안녕하세요 세계'],
  ['emoji', 'I ❤️ attention 🤖!'],
  ['zwj_family', '👨‍👩‍👧‍👦 family and 🏳️‍🌈'],
  ['flags_skin', '🇫🇷🇩🇪 👍🏽👋🏿'],
  ['mixed_scripts', 'Hello мир 世界 مرحبا नमस्ते'],
  ['punctuation', '!!! ??? ... --- "quoted" (paren) [bracket] {brace}'],
  ['white_space_kinds', 'a\u00a0b\u3000c\u2009d\u0085e\u180ef\u200bg'],
  ['llama3_specials', '<|begin_of_text|>Hi there<|eot_id|>\n<|start_header_id|>user<|end_header_id|>'],
  ['chatml_specials', '<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n'],
  ['sentencepiece_specials', '<s>Hello</s> world <unk>'],
  ['non_special_added', 'call <tool_call>{"x": 1}</tool_call>'],
  ['lstrip_token', 'the answer is   <mask> here'],
  ['rstrip_token', 'one<sep>   two <sep>\nthree'],
  ['special_glued', 'x<|endoftext|>y<|endoftext|><|endoftext|>'],
  ['empty', ''],
];

function cString(s) {
  let out = '"';
  for (const b of Buffer.from(s, 'utf-8')) {
    if (b === 0x22) out += '\\"';
    else if (b === 0x5c) out += '\\\\';
    else if (b === 0x3f) out += '\\?';  // no trigraphs
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += '\\' + b.toString(8).padStart(3, '0');
  }
  return out + '"';
}

function gpt2VocabAndMerges() {
  const vocab = JSON.parse(fs.readFileSync(path.join('tests', 'data', 'gpt2-tokenizer', 'vocab.json'), 'utf-8'));
  const merges = fs.readFileSync(path.join('tests', 'data', 'gpt2-tokenizer', 'merges.txt'), 'utf-8')
    .split('\n').slice(1).filter((l) => l.length > 0);
  return { vocab, merges };
}

function main() {
  const texts = cases.map((c) => c[1]);
  const textsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'llama-ref-')), 'texts.json');
  fs.writeFileSync(textsFile, JSON.stringify(texts));
  const spmIds = JSON.parse(execFileSync('/usr/bin/python3',
    [path.join('tests', 'reference', 'llama_tokenizer_spm.py'), textsFile], { encoding: 'utf-8' }));

  const { vocab, merges } = gpt2VocabAndMerges();
  const tokenizers = [];
  for (const [name, skeleton] of Object.entries(skeletons)) {
    fs.mkdirSync(path.join(DATA, name), { recursive: true });
    fs.writeFileSync(path.join(DATA, name + '.skeleton.json'), JSON.stringify(skeleton, null, 1) + '\n');
    fs.writeFileSync(path.join(DATA, name, 'tokenizer_config.json'), JSON.stringify(configs[name]) + '\n');
    const full = JSON.parse(JSON.stringify(skeleton));
    full.model.vocab = vocab;
    full.model.merges = merges;
    tokenizers.push([name, new Tokenizer(full, configs[name])]);
  }
  for (const name of ['llama2-style', 'mistral-style']) {
    const json = JSON.parse(fs.readFileSync(path.join(DATA, name, 'tokenizer.json'), 'utf-8'));
    const config = JSON.parse(fs.readFileSync(path.join(DATA, name, 'tokenizer_config.json'), 'utf-8'));
    tokenizers.push([name, new Tokenizer(json, config)]);
  }

  const out = [];
  out.push('// Generated by tests/reference/llama_tokenizer_reference.js from @huggingface/tokenizers');
  out.push('// 0.2.0 and SentencePiece 0.1.97; do not edit. Regenerate with the commands at the top of that file.');
  out.push('#pragma once', '', '#include <vector>', '', 'namespace llama_tokenizer_reference {', '');
  out.push('// `ids`: encode(text) without special tokens; `model_ids`: with them (BOS where the');
  out.push('// tokenizer adds it); `decoded`: decode(ids). Texts and decoded text are UTF-8.');
  out.push('struct Case {', 'const char* name;', 'const char* text;', 'std::vector<int> ids;',
           'std::vector<int> model_ids;', 'const char* decoded;', '};', '');
  out.push('struct Tokenizer {', 'const char* name;  // the folder or skeleton under tests/data/tokenizers',
           'std::vector<Case> cases;', '};', '');
  out.push('inline const std::vector<Tokenizer> kTokenizers = {');
  for (const [name, t] of tokenizers) {
    out.push(`{${cString(name)}, {`);
    for (const [caseName, text] of cases) {
      const ids = t.encode(text, { add_special_tokens: false }).ids;
      const modelIds = t.encode(text).ids;
      const decoded = ids.length === 0 ? '' : t.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
      out.push(`{${cString(caseName)}, ${cString(text)}, {${ids.join(', ')}}, {${modelIds.join(', ')}}, ${cString(decoded)}},`);
    }
    out.push('}},');
  }
  out.push('};', '');
  // SentencePiece's own ids for the same model, and where Hugging Face's conversion differs.
  const llama2 = tokenizers.find(([n]) => n === 'llama2-style')[1];
  out.push('// SentencePiece\'s ids (no BOS) for each case of kTokenizers, for the GGUF "llama" path.');
  out.push('// SentencePiece does not split special tokens out of the text; llama.cpp does.');
  out.push('inline const std::vector<std::vector<int>> kSentencePieceIds = {');
  cases.forEach(([caseName, text], i) => {
    const hf = llama2.encode(text, { add_special_tokens: false }).ids;
    const same = JSON.stringify(hf) === JSON.stringify(spmIds[i]);
    out.push(`{${spmIds[i].join(', ')}},${same ? '' : '  // differs from Hugging Face\'s'}  // ${caseName}`);
  });
  out.push('};', '', '}  // namespace llama_tokenizer_reference');
  console.log(out.join('\n'));
}

main();
