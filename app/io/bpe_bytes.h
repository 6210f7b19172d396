// GPT-2's byte-level symbols (encoder.py's bytes_to_unicode) and the UTF-8 handling around them:
// every byte is a printable character in the vocabulary, and decoded bytes become text as
// Python's decoder makes it. Internal to attn_io (the BPE tokenizer's files).
#pragma once

#include <QByteArray>
#include <QString>

namespace attn::bpe {

// Printable Latin-1 bytes stand for themselves, the other 68 bytes (controls, space, U+00A0,
// U+00AD) for U+0100 onwards in byte order, so that every token is printable text.
struct ByteMap {
    char16_t toChar[256] = {};
    int toByte[324];  // by char16_t below U+0144; -1 for characters that stand for no byte
    ByteMap();
};
const ByteMap& byteMap();

// The token's text as bytes: each character of a byte-level token is one byte; a character that
// stands for no byte (possible in another model's vocabulary) is its own UTF-8.
QByteArray byteLevelBytes(const QString& token);

// Length of the maximal invalid part at `i` (where utf8SequenceAt found no sequence): a lead
// byte and the continuation bytes that could still have completed it, or one byte. This is the
// Unicode "maximal subpart" rule that Python's decoder follows.
int invalidUtf8Length(const QByteArray& s, qsizetype i);

// Not QString::fromUcs4, which drops U+FEFF as a byte-order mark.
void appendCodePoint(QString& out, char32_t c);
void appendUtf8(QByteArray& out, char32_t c);

// Bytes for people: see Tokenizer::displayToken.
QString displayBytes(const QByteArray& bytes);

}  // namespace attn::bpe
