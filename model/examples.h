// The example sequences the app, the CLI and the tests start from.
#pragma once

#include <string>
#include <vector>

#include "tensor.h"

namespace attn {

// A sequence of tokens and their embeddings: (T, d_in), one row per token.
struct Sequence {
    std::vector<std::string> tokens;
    Matrix embeddings;
};

// The tutorial's "Your journey starts with one step", 3-dimensional embeddings (002_*.txt, In [1]).
Sequence tutorial_inputs();

// The source side of the cross-attention example: "你的 旅程 始于 一步", the Chinese sentence the
// English one translates. The English tokens ask the queries; these four give keys and values, so
// the weight matrix is 6 × 4. Embeddings are made up, in the tutorial's 3-d style.
Sequence cross_attention_source();

}  // namespace attn
