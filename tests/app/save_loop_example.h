// The two example files save_loop_main.cpp writes in turn and test_bad_input.cpp expects to find,
// shared so both sides agree byte for byte. Large enough (about 2 MB) that a save takes a while
// and a kill often lands in the middle of one.
#pragma once

#include <string>

#include "app/io/example_file.h"
#include "model/rng.h"

// which = 0 ("previous", 3000 tokens) or 1 ("new", 2000 tokens): different sizes, so a mix of the
// two or a cut-off copy of either can never pass for one of them.
inline attn::ExampleFile saveLoopExample(int which) {
    const Eigen::Index tokens = which == 0 ? 3000 : 2000;
    attn::TorchGenerator gen(static_cast<std::uint64_t>(which + 1));
    attn::ExampleFile f;
    f.description = which == 0 ? QStringLiteral("previous") : QStringLiteral("new");
    f.inputs.embeddings = gen.uniform(tokens, 64, -1.0, 1.0);
    for (Eigen::Index t = 0; t < tokens; ++t) {
        f.inputs.tokens.push_back("t" + std::to_string(t + 1));
    }
    return f;
}
