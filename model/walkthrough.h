// The guided walkthrough of the tutorial (002_*.txt) as data: each step is a record of the
// matrices it shows, all computed by the engine, with how each matrix derives from the others so
// that a view can explain any cell with its own numbers and highlight where it came from.
// Titles and teaching texts are not here: they are translated in views/ and keyed by Step::id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "examples.h"
#include "tensor.h"

namespace attn {

// What a matrix holds decides its colour map: weights in [0, 1] get viridis, signed values a
// diverging map centred on 0.
enum class MatrixKind { Embeddings, Parameters, Projections, Scores, Weights, Context, Mask };

// How a cell was computed from other matrices of the same step (by their ids).
enum class Derivation {
    None,          // given (inputs, parameters)
    DotProduct,    // m[i][j] = Σ_k lhs[i][k] · rhs[j][k] / divisor        (scores)
    Projection,    // m[i][j] = Σ_k lhs[i][k] · rhs[k][j]                 (x · W)
    WeightedSum,   // m[i][j] = Σ_k lhs[i][k] · rhs[k][j], lhs are weights (context vectors)
    Softmax,       // m[i][j] = exp(lhs[i][j]/divisor) / Σ_k exp(lhs[i][k]/divisor)
    NaiveSoftmax,  // same formula without the max shift
    NaiveNorm,     // m[i][j] = lhs[i][j] / Σ_k lhs[i][k]
    MaskProduct,   // m[i][j] = lhs[i][j] · mask[i][j]                    (causal method 1)
    Renormalize,   // m[i][j] = lhs[i][j] / Σ_k lhs[i][k]                 (after masking)
    MaskedFill,    // m[i][j] = blocked ? fill : lhs[i][j]
    Dropout,       // m[i][j] = kept ? lhs[i][j] / (1 - p) : 0
    Difference,    // m[i][j] = |lhs[i][j] - rhs[i][j]|
    Scale,         // m[i][j] = lhs[i][j] · factor                     (scores × 100)
    Linear,        // m[i][j] = Σ_k lhs[i][k] · rhs[k][j] + bias[j]      (out_proj)
    Concat,        // m[i][j] = parts[h][i][j - h·head_dim]             (heads side by side)
    CausalMask,    // m[i][j] = 1 if key j ≤ query i else 0
    // The masks chapter: m[i][j] = 1 if `mask_rule` lets query i see key j else 0 (the seeds'
    // mask == 0 convention: 0 is blocked).
    RuleMask,
    // FlashAttention's tiles (online softmax), per query row i of a tile; `parts` names the
    // further operands:
    RunningMax,     // m[i] = max(rhs[i], max_j lhs[i][j])       lhs: tile scores, rhs: m_old
    RescaleFactor,  // m[i] = exp(lhs[i] − rhs[i])                lhs: m_old, rhs: m_new
    RunningSum,     // m[i] = rhs[i]·s[i] + Σ_j exp(lhs[i][j] − m_new[i]); parts {s, m_new}
    RunningOutput,  // m[i][c] = o[i][c]·s[i] + Σ_j exp(lhs[i][j] − m_new[i])·rhs[j][c];
                    //   parts {o, s, m_new}, rhs: the tile's values
    TileNormalize,  // m[i][c] = lhs[i][c] / rhs[i]               (output / running sum)
    TileMap,        // m[r][c] = 1 current tile, 0.5 done, 0 not yet; blocked = skipped
    // Grouped-query attention: m[h][g] = 1 if query head h reads K/V head g (kv_head_of).
    KvHeadMap,
    // Rotary position embeddings, HF LLaMA's convention (pair i with i + hd/2):
    RopeAngle,  // m[p][i] = (position_offset + p) · base^(−2i/hd), hd = 2 · m.cols()
    RopeRotation,  // m[p][c] = lhs[p][c]·cos θ ∓ lhs[p][c ± hd/2]·sin θ, θ = rhs[p][c mod hd/2]
};

// Why a cell of a mask other than causal is blocked (the masks chapter).
struct MaskRule {
    bool causal = true;              // keys after the query are blocked
    Eigen::Index window = 0;         // > 0: only the last `window` keys up to the query
    Eigen::Index valid_tokens = -1;  // >= 0: tokens from here on are padding
};

struct StepMatrix {
    std::string id;      // stable, ASCII: used in export file names ("causal-weights")
    std::string symbol;  // the tutorial's letter for one cell: "ω", "α", "z", "q", "k", "v", "x"
    Matrix values;
    std::vector<std::string> row_labels, col_labels;
    MatrixKind kind = MatrixKind::Scores;
    BoolMatrix blocked;  // cells filled before softmax (drawn masked); empty = none
    BoolMatrix dropped;  // cells zeroed by dropout (drawn marked, not as true zeros); empty = none
    float fill_value = 0.0f;
    Derivation derivation = Derivation::None;
    std::string lhs, rhs;  // ids of the matrices this one is computed from
    float divisor = 1.0f;  // √d_k for scaled scores, 1 otherwise
    float dropout_p = 0.0f;
    int frame = -1;  // -1: shown in every frame; otherwise only in that frame (KV-cache steps)
    bool row_vector_index = false;   // a 1×n matrix of one query: its row is the query's index
    Eigen::Index query_index = 0;    // which token a 1×n row stands for (0-based)
    float factor = 1.0f;             // Scale
    RowVector bias;                  // Linear: added after the product; empty = no bias
    std::vector<std::string> parts;  // Concat: the heads' matrices, in column order
    // > 0: the columns (Concat, a fused W_query) or the matrix (head == h) belong to heads of
    // this width; explanations name the head and its columns.
    Eigen::Index head_dim = 0;
    int head = 0;        // 1-based head this matrix belongs to; 0 = not a head's
    MaskRule mask_rule;  // RuleMask, and MaskedFill / Softmax cells of the masks chapter
    // A tile of a larger matrix: its cell (0, 0) is the larger one's (row_offset, col_offset),
    // so explanations name cells by their place in the whole (FlashAttention's tiles).
    Eigen::Index row_offset = 0, col_offset = 0;
    int kv_head = 0;  // GQA: the 1-based K/V head that query head `head` reads; 0 = not GQA
    Eigen::Index position_offset = 0;  // RopeAngle: the first token's position
    float rope_base = 10000.0f;        // RopeAngle: θ_i = base^(−2i/hd); 0 = no RoPE, θ = 0
};

// A number the page states, e.g. the multiplications saved by the KV cache.
struct StepFact {
    std::string id;  // "mults_with_cache", "mults_without_cache", "cache_bytes", "max_abs_diff"
    double value = 0.0;
    int frame = -1;
    bool training_only = false;  // holds in training mode only (cells kept by dropout)
};

// A cell, row or column a page points at when it opens (the tutorial's query "journey").
struct Highlight {
    std::string matrix_id;
    Eigen::Index row = -1, col = -1;  // -1: the whole column / row
};

struct Step {
    int number = 0;       // 1-based, the order of the tutorial
    std::string id;       // "inputs", "scores-journey", ..., "kv-cache"
    std::string snippet;  // the equivalent PyTorch code from the tutorial
    // Steps with dropout: the code of inference mode (model.eval()); empty = the same snippet.
    std::string inference_snippet;
    std::vector<StepMatrix> matrices;
    // Matrices a derivation refers to that the page does not draw (a head's scores, the inputs
    // of a projection): explain_cell quotes their numbers.
    std::vector<StepMatrix> operands;
    std::vector<StepFact> facts;
    std::vector<Highlight> highlights;
    int frame_count = 0;  // > 0: the page steps through frames (decoding token by token)
    std::vector<std::string> frame_labels;
    // Named values the step's text states ("num_tokens" -> "6", "query_token" -> "journey",
    // "batch_shape" -> "(2, 6, 3)"), all derived from the records and formatted by
    // number_format.h; texts refer to them as {name}.
    std::vector<std::pair<std::string, std::string>> text_args;

    // The drawn matrix, else the operand, of that id; with frame >= 0 the one of that frame (or
    // of every frame).
    const StepMatrix* find(const std::string& matrix_id, int frame = -1) const;
    // The value of text_args `name`; empty when the step has none.
    std::string arg(const std::string& name) const;
};

struct WalkthroughConfig {
    std::uint64_t seed = 123;  // the tutorial's torch.manual_seed(123)
    Eigen::Index d_out = 2;
    float dropout_p = 0.5f;
    Eigen::Index query_index = 1;  // "journey", the tutorial's x^(2)
    Eigen::Index mask_window = 3;  // the masks chapter's sliding window w
    // FlashAttention's tiles: key tiles of 1 so that the running maximum grows on the
    // tutorial's tokens (with 2, "journey" leads every row's first tile and nothing rescales).
    Eigen::Index query_tile = 2, key_tile = 1;
    // Grouped-query attention: 4 query heads of head_dim 2 (the tutorial's head width) share
    // 4, 2, then 1 K/V heads.
    Eigen::Index gqa_num_heads = 4, gqa_d_out = 8;
    Eigen::Index rope_shift = 3;  // RoPE: every position moved by this much, same scores
};

// The tutorial's sixteen steps and the chapters past it, for the given sequence (the tutorial's by
// default). Throws AttentionError for inputs the engine refuses (NaN, empty) with the engine's
// message.
std::vector<Step> build_walkthrough(const Sequence& inputs = tutorial_inputs(),
                                    const WalkthroughConfig& config = {});

// Notation of every explanation: ω a raw score, ω̃ = ω / √d_k a scaled score, α a weight,
// α′ = α / (1 − p) a weight after dropout, heads numbered from 1.
// "ω̃₂₃ = q₂ · k₃ / √2 = (0.4306·0.4361 + 1.4551·1.1156) / 1.4142 = 1.2808": the cell's formula
// with its own numbers, 4 decimals. Language-neutral mathematics; empty for given matrices.
std::string explain_cell(const Step& step, const StepMatrix& matrix, Eigen::Index row,
                         Eigen::Index col);

// Subscript digits for 1-based indices in formulas: 12 -> "₁₂".
std::string subscript(Eigen::Index one_based);
// Superscript digits: 12 -> "¹²".
std::string superscript(Eigen::Index one_based);

}  // namespace attn
