// Steps of the walkthrough that other pages reuse for any run (explore mode's Tiles tab).
#pragma once

#include <string>
#include <vector>

#include "walkthrough.h"

namespace attn {

// FlashAttention's tiled online softmax over one head: queries (T, d), keys (T, d) and values
// (T, d_v) of T tokens, one frame per computed tile of query_tile queries × key_tile keys, with
// the running maximum m, sum ℓ and unnormalised output o per query row, each cell derived for the
// hover (Derivation::RunningMax ... TileNormalize). Scores are divided by √d; with `causal` the
// keys after a query are blocked and tiles above the diagonal skipped. Fact "max_abs_diff"
// compares the tiled context vectors with scaled_dot_product_attention's.
// text_args: query_tile, key_tile, num_tiles, tiles_computed, tiles_skipped, big_t,
// scores_bytes, tiled_bytes, memory_ratio (the walkthrough's text also quotes num_tokens).
// A tile of T × T keeps the page small for long sequences; frames = computed tiles.
// Throws AttentionError when the shapes disagree (tokens, rows, widths), a tile size is < 1 or the
// inputs are empty or not finite.
Step tiles_step(const Matrix& queries, const Matrix& keys, const Matrix& values,
                const std::vector<std::string>& tokens, bool causal, Eigen::Index query_tile,
                Eigen::Index key_tile, int number = 0, const std::string& id = "flash-tiles");

}  // namespace attn
