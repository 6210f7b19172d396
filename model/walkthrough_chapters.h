// Steps of the walkthrough that other pages reuse for any run (explore mode's Tiles tab).
#pragma once

#include <string>
#include <vector>

#include "runner.h"
#include "walkthrough.h"

namespace attn {

// The walkthrough's number of "flash-tiles" (the tutorial's sixteen steps, then GQA, masks and
// RoPE): explore mode's tiles carry it, so their title and text ("step 11's context vectors")
// read as in the walkthrough.
inline constexpr int kFlashTilesStepNumber = 20;

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

// Explore mode's Tiles tab: one query head of a run (batch item 0) tiled by tiles_step, with what
// the tab states beside the page.
struct RunTiles {
    enum class Status {
        NoRun,           // nothing to tile: no run, or a run without heads
        NotSplit,        // no per-head queries, keys and values to be had from the run
        CrossAttention,  // the keys come from another sequence than the queries
        TooManyTiles,    // more than max_tiles tiles to compute
        Refused,         // tiles_step refused the inputs: `error` is its message
        Tiled,
    };
    Status status = Status::NoRun;
    Eigen::Index num_heads = 0;   // the run's query heads: the head to choose from
    Eigen::Index num_tokens = 0;  // the run's tokens: the largest tile
    // What was tiled, clamped to the run: the 0-based query head, the K/V head it reads and the
    // tile sizes (1..num_tokens).
    Eigen::Index head = 0, kv_head = 0;
    Eigen::Index query_tile = 1, key_tile = 1;
    bool grouped = false;  // fewer K/V heads than query heads
    bool causal = false;
    Eigen::Index tiles = 0;  // tiles computed: those above the diagonal are skipped when causal
    // Largest |tiled context − the head's own context vectors|. The tiles know the causal mask and
    // √head_dim only; a head that did more (a sliding window, padding, dropout, another fill or no
    // scaling) differs, and matches_run is false.
    float max_abs_diff = 0.0f;
    bool matches_run = false;  // max_abs_diff <= 1e-4
    std::string error;         // Refused
    Step step;  // Tiled: "flash-tiles", numbered kFlashTilesStepNumber, text_args with num_tokens
};

// Tiles query head `head` (0-based, clamped to the run's heads) of `run` with tiles of query_tile
// × key_tile (clamped to 1..T), one token per row; more than max_tiles tiles are not computed.
RunTiles run_tiles(const RunResult& run, const std::vector<std::string>& tokens, Eigen::Index head,
                   Eigen::Index query_tile, Eigen::Index key_tile, Eigen::Index max_tiles);

}  // namespace attn
