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
    bool row_vector_index = false;  // a 1×n matrix of one query: its row is the query's index
    Eigen::Index query_index = 0;   // which token a 1×n row stands for (0-based)
};

// A number the page states, e.g. the multiplications saved by the KV cache.
struct StepFact {
    std::string id;  // "mults_with_cache", "mults_without_cache", "cache_bytes", "max_abs_diff"
    double value = 0.0;
    int frame = -1;
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
    std::vector<StepMatrix> matrices;
    std::vector<StepFact> facts;
    std::vector<Highlight> highlights;
    int frame_count = 0;  // > 0: the page steps through frames (decoding token by token)
    std::vector<std::string> frame_labels;
    // Named values the step's text states ("num_tokens" -> "6", "query_token" -> "journey",
    // "batch_shape" -> "(2, 6, 3)"), all derived from the records and formatted by
    // number_format.h; texts refer to them as {name}.
    std::vector<std::pair<std::string, std::string>> text_args;

    const StepMatrix* find(const std::string& matrix_id) const;
};

struct WalkthroughConfig {
    std::uint64_t seed = 123;  // the tutorial's torch.manual_seed(123)
    Eigen::Index d_out = 2;
    float dropout_p = 0.5f;
    Eigen::Index query_index = 1;  // "journey", the tutorial's x^(2)
};

// All sixteen steps for the given sequence (the tutorial's by default). Throws AttentionError for
// inputs the engine refuses (NaN, empty) with the engine's message.
std::vector<Step> build_walkthrough(const Sequence& inputs = tutorial_inputs(),
                                    const WalkthroughConfig& config = {});

// "ω₂₃ = q₂ · k₃ / √2 = (0.4306·0.4361 + 1.4551·1.1156) / 1.4142 = 1.2808": the cell's formula
// with its own numbers, 4 decimals. Language-neutral mathematics; empty for given matrices.
std::string explain_cell(const Step& step, const StepMatrix& matrix, Eigen::Index row,
                         Eigen::Index col);

// Subscript digits for 1-based indices in formulas: 12 -> "₁₂".
std::string subscript(Eigen::Index one_based);

}  // namespace attn
