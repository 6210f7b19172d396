// GPT-2's pre-tokenization: the pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// with Python `regex` semantics, matched by a hand-written scanner (see bpe_tokenizer.h for why).
// Internal to attn_io (the BPE tokenizer's files).
#pragma once

#include <QByteArray>
#include <QStringView>
#include <functional>

namespace attn::bpe {

// Calls `word` with the UTF-8 bytes of each piece of `text`, in order; an unpaired UTF-16
// surrogate is encoded as U+FFFD.
void forEachPreToken(QStringView text, const std::function<void(const QByteArray&)>& word);

}  // namespace attn::bpe
