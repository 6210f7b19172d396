#!/usr/bin/env node
// Reference ids for tests/app/test_wordpiece_tokenizer.cpp from Hugging Face's Tokenizers.js (the
// npm package @huggingface/tokenizers 0.2.0, which reads tokenizer.json as the Rust crate does and
// has BertNormalizer, BertPreTokenizer, WordPiece, TemplateProcessing, BertProcessing and
// RobertaProcessing). Install it outside the repository and run from the repository root:
//
//   tmp=$(mktemp -d) && (cd "$tmp" && npm install --no-save @huggingface/tokenizers@0.2.0)
//   HF_TOKENIZERS_DIR="$tmp/node_modules/@huggingface/tokenizers" node \
//     tests/reference/wordpiece_reference.js | clang-format --assume-filename=x.h \
//     > tests/reference/wordpiece_reference.h
//
// It also writes the tokenizers (real vocabularies cannot be shipped):
// - tests/data/tokenizers/bert-style/{uncased,cased}/: vocab.txt (a vocabulary of about 1,000
//   tokens made below from English words, "##" pieces, every ASCII character with and without
//   "##", accented letters and CJK characters) with tokenizer_config.json, and the same as
//   tokenizer.json: uncased with BERT's TemplateProcessing, cased (lowercase false) with
//   BertProcessing.
// - tests/data/tokenizers/roberta-style.skeleton.json: RoBERTa's steps (ByteLevel,
//   RobertaProcessing, <mask> with lstrip) around GPT-2's vocabulary and merges
//   (tests/data/gpt2-tokenizer/), which this script and the test put in.
//
// Where Tokenizers.js departs from the Rust crate, the cases avoid it: it puts spaces around CJK
// ideographs of the BMP only and lower-cases a final sigma as "ς"; its RobertaProcessing gives the
// pair type id 1 where the crate gives 0 (so RoBERTa's type ids are not taken from it), and it
// takes an empty second text for none (the crate adds its [SEP]; the test checks that).
'use strict';
const fs = require('fs');
const path = require('path');

const dir = process.env.HF_TOKENIZERS_DIR;
if (!dir) {
  console.error('set HF_TOKENIZERS_DIR to the installed @huggingface/tokenizers (see the top of this file)');
  process.exit(2);
}
const { Tokenizer } = require(path.join(dir, 'dist', 'tokenizers.cjs'));
const DATA = path.join('tests', 'data', 'tokenizers');

// The vocabulary: special tokens first, as BERT's, then words and pieces.
function bertVocabulary() {
  const words = (
    'the of and to a in is it you that he was for on are with as i his they be at one have this ' +
    'from or had by word but what some we can out other were all there when up use your how said ' +
    'an each she which do their time if will way about many then them write would like so these ' +
    'her long make thing see him two has look more day could go come did number sound no most ' +
    'people my over know water than call first who may down side been now find journey start step ' +
    'quick brown fox jump lazy dog cafe naive resume hello world really yes quote single attention ' +
    'need love pizza token tab here new line double space control bell zero replace transform ' +
    'bert read text fill gap mask model head layer query key value weight sum soft max large small ' +
    'don can won isn re ve ll sure wait john every once decide much should others called ' +
    'everywhere fun play run walk talk think ab abc x y z'
  ).split(' ');
  const capitalized = 'The Your Hello World I In BERT Transformer Caf Cafe Uber Over John We It'.split(' ');
  const pieces = ('s es ed ing er ers ly tion tions ment ness able al ic ize ous ful less est ive y ' +
    'ist ism d n t e r ra ion ity ance ence ish ure ty ie ies ow ld ney ar or en an on ll ve re ' +
    '00 000 24 14 159 ab').split(' ');
  const accented = [...'éèêëàâäçïîôöüùûñåøæÉÈÜÖÄÑÇ'];
  const cjk = [...'注意力机制是的核心读取文本中国人大小我你他们好世界'];
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const seen = new Set(vocab);
  const add = (t) => { if (!seen.has(t)) { seen.add(t); vocab.push(t); } };
  for (let c = 33; c < 127; ++c) add(String.fromCharCode(c));
  for (let c = 33; c < 127; ++c) add('##' + String.fromCharCode(c));
  for (const w of words) add(w);
  for (const w of capitalized) add(w);
  for (const p of pieces) add('##' + p);
  for (const a of accented) { add(a); add('##' + a); }
  for (const c of cjk) add(c);
  for (const c of cjk.slice(0, 6)) add('##' + c);
  for (const n of ['19', '20', '2024', '100', '1000']) add(n);
  return vocab;
}

const specialToken = (id, content) => ({ id, content, single_word: false, lstrip: false,
  rstrip: false, normalized: false, special: true });

function bertTokenizerJson(vocab, lowercase) {
  const ids = Object.fromEntries(vocab.map((t, i) => [t, i]));
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const st = (name, type) => ({ SpecialToken: { id: name, type_id: type } });
  const seq = (name, type) => ({ Sequence: { id: name, type_id: type } });
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: specials.map((s) => specialToken(ids[s], s)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true,
                  strip_accents: null, lowercase },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: lowercase
      ? { type: 'TemplateProcessing',
          single: [st('[CLS]', 0), seq('A', 0), st('[SEP]', 0)],
          pair: [st('[CLS]', 0), seq('A', 0), st('[SEP]', 0), seq('B', 1), st('[SEP]', 1)],
          special_tokens: {
            '[CLS]': { id: '[CLS]', ids: [ids['[CLS]']], tokens: ['[CLS]'] },
            '[SEP]': { id: '[SEP]', ids: [ids['[SEP]']], tokens: ['[SEP]'] } } }
      : { type: 'BertProcessing', sep: ['[SEP]', ids['[SEP]']], cls: ['[CLS]', ids['[CLS]']] },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##',
             max_input_chars_per_word: 100, vocab: ids },
  };
}

const robertaSkeleton = {
  version: '1.0', truncation: null, padding: null,
  added_tokens: [specialToken(50257, '<s>'), specialToken(50258, '<pad>'), specialToken(50259, '</s>'),
                 specialToken(50260, '<unk>'),
                 Object.assign(specialToken(50261, '<mask>'), { lstrip: true })],
  normalizer: null,
  pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
  post_processor: { type: 'RobertaProcessing', sep: ['</s>', 50259], cls: ['<s>', 50257],
                    trim_offsets: true, add_prefix_space: false },
  decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
  model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '',
           end_of_word_suffix: '', fuse_unk: false, byte_fallback: false, ignore_merges: false,
           vocab: {}, merges: [] },
};

const cases = [
  ['english', 'Your journey starts with one step'],
  ['sentence', 'The quick brown fox jumps over the lazy dog.'],
  ['accents', 'Café naïve résumé'],
  ['accents_upper', 'CAFÉ Über Ñandú Ærø'],
  ['decomposed', 'cafe\u0301 and e\u0301\u0302 n\u0303'],
  ['chinese', '注意力机制是Transformer的核心'],
  ['mixed', 'BERT读取文本: attention is all you need!'],
  ['punctuation', 'Hello, world!!! (really?) \u2014 yes; "quoted" \'single\' [x] {y} <z> $5 + 3 = 8 ^_^ ~ \u00bfqu\u00e9? \u201cok\u201d'],
  ['contractions', "don't can't I'm it's we've they're"],
  ['emoji', 'I love 🤗 and 🍕 pizza'],
  ['long_word', 'supercalifragilistic'.repeat(6)],
  ['word_of_100', 'ab'.repeat(50)],
  ['word_of_101', 'ab'.repeat(50) + 'a'],
  ['numbers', 'In 2024 we had 3.14159 and 1,000,000 tokens, the 19th 100x'],
  ['white_space', 'tabs\there\nnew lines\r\nand  double  spaces\u00a0nbsp\u3000wide\u2028sep'],
  ['control', 'ctrl\u0000chars\u0007bell\u200bzero\ufeffbom\ufffdrep\u0085nel\u00adsoft'],
  ['unknown', 'qzx ÿ Ω ж word'],
  ['special_in_text', '[CLS] hello [SEP] world [MASK] [mask]'],
  ['hangul_kana', '한국어 テキスト'],
  ['uppercase', 'HELLO World, THE END'],
  ['dotted_capital', 'İstanbul'],
  ['only_spaces', '   '],
  ['empty', ''],
];

const pairs = [
  ['two_sentences', 'Your journey starts with one step', 'The quick brown fox jumps.'],
  ['chinese_and_accents', '注意力机制', 'Café naïve'],
  ['empty_first', '', 'hello world'],
  ['mask_question', 'The [MASK] fills the gap.', 'What fills it?'],
];

const robertaCases = [
  ['english', 'Your journey starts with one step'],
  ['mask', 'The capital of France is <mask>.'],
  ['mask_spaces', 'Fill   <mask>   here'],
  ['specials', '<s>Hello</s></s>world</s>'],
  ['accents', 'Café naïve résumé'],
  ['empty', ''],
];
const robertaPairs = [
  ['two_sentences', 'Your journey starts with one step', 'The quick brown fox jumps.'],
  ['mask_question', 'The <mask> fills the gap.', 'What fills it?'],
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

function decode(t, ids) {
  return ids.length === 0 ? '' : t.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
}

function main() {
  const vocab = bertVocabulary();
  const tokenizers = [];
  for (const [name, lowercase] of [['uncased', true], ['cased', false]]) {
    const folder = path.join(DATA, 'bert-style', name);
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'vocab.txt'), vocab.join('\n') + '\n');
    const config = { do_lower_case: lowercase, tokenizer_class: 'BertTokenizer' };
    fs.writeFileSync(path.join(folder, 'tokenizer_config.json'), JSON.stringify(config) + '\n');
    const json = bertTokenizerJson(vocab, lowercase);
    fs.writeFileSync(path.join(folder, 'tokenizer.json'), JSON.stringify(json) + '\n');
    tokenizers.push([`bert-style/${name}`, new Tokenizer(json, config)]);
  }
  fs.writeFileSync(path.join(DATA, 'roberta-style.skeleton.json'), JSON.stringify(robertaSkeleton, null, 1) + '\n');
  const roberta = JSON.parse(JSON.stringify(robertaSkeleton));
  roberta.model.vocab = JSON.parse(fs.readFileSync(path.join('tests', 'data', 'gpt2-tokenizer', 'vocab.json'), 'utf-8'));
  roberta.model.merges = fs.readFileSync(path.join('tests', 'data', 'gpt2-tokenizer', 'merges.txt'), 'utf-8')
    .split('\n').slice(1).filter((l) => l.length > 0);
  const robertaTokenizer = new Tokenizer(roberta, {});

  const out = [];
  out.push('// Generated by tests/reference/wordpiece_reference.js from @huggingface/tokenizers 0.2.0;');
  out.push('// do not edit. Regenerate with the commands at the top of that file.');
  out.push('#pragma once', '', '#include <string_view>', '#include <vector>', '',
           'namespace wordpiece_reference {', '', 'using namespace std::string_view_literals;', '');
  out.push('// `ids`: encode(text) without special tokens; `model_ids`: with the template\'s;');
  out.push('// `decoded`: decode(ids); `model_decoded`: decode(model_ids). UTF-8 text.');
  out.push('// Texts are string_views: the control case holds a NUL.');
  out.push('struct Case {', 'const char* name;', 'std::string_view text;', 'std::vector<int> ids;',
           'std::vector<int> model_ids;', 'const char* decoded;', 'const char* model_decoded;', '};', '');
  out.push('// A pair of texts through the template: ids and token type ids (empty: not recorded).');
  out.push('struct PairCase {', 'const char* name;', 'std::string_view text;', 'std::string_view pair;',
           'std::vector<int> ids;', 'std::vector<int> type_ids;', '};', '');
  out.push('struct Tokenizer {', 'const char* name;  // under tests/data/tokenizers',
           'std::vector<Case> cases;', 'std::vector<PairCase> pairs;', '};', '');
  const emit = (name, t, cs, ps, typeIds) => {
    out.push(`{${cString(name)}, {`);
    for (const [caseName, text] of cs) {
      const ids = t.encode(text, { add_special_tokens: false }).ids;
      const modelIds = t.encode(text).ids;
      out.push(`{${cString(caseName)}, ${cString(text)}sv, {${ids.join(', ')}}, {${modelIds.join(', ')}}, ` +
               `${cString(decode(t, ids))}, ${cString(decode(t, modelIds))}},`);
    }
    out.push('}, {');
    for (const [caseName, text, pair] of ps) {
      const e = t.encode(text, { text_pair: pair, return_token_type_ids: true });
      out.push(`{${cString(caseName)}, ${cString(text)}sv, ${cString(pair)}sv, {${e.ids.join(', ')}}, ` +
               `{${typeIds ? e.token_type_ids.join(', ') : ''}}},`);
    }
    out.push('}},');
  };
  out.push('inline const std::vector<Tokenizer> kTokenizers = {');
  for (const [name, t] of tokenizers) emit(name, t, cases, pairs, true);
  emit('roberta-style', robertaTokenizer, robertaCases, robertaPairs, false);
  out.push('};', '', '}  // namespace wordpiece_reference');
  console.log(out.join('\n'));
}

main();
