// The fast path of MultiHeadAttention, for whenever the intermediates are not displayed
// (`attention-cli compute --summary` through run_module's output_only, long inputs).
// It computes the same output as MultiHeadAttention::forward in eval mode (dropout inactive)
// without storing any (T, T) matrix: memory grows with T, not T², and masked key blocks are
// never computed.
//
// Shapes as in tensor.h: T = tokens, d_in, d_out, H = num_heads, hd = head_dim = d_out / H,
// Bq / Bk / Bd = query / key / diagonal strip block rows.
//
//   1. one GEMM  qkv = x · w_qkv + b_qkv          (T, d_in) · (d_in, 3·d_out): q | k | v
//      (or three, one per projection, into its columns); q then divided by √hd, so the scores
//      need no division
//   2. per (head, query block), heads in parallel with OpenMP:
//        for each key block left of the diagonal, then the diagonal square in strips (masked):
//          s = q_blk · k_blkᵀ                     (Bq, Bk), q already divided by √hd
//          online softmax: running row max m and row sum l, acc rescaled by exp(m_old - m_new)
//          acc += exp(s - m) · v_blk              (Bq, hd)
//        concat[:, head] = acc / l                 (the FlashAttention idea)
//   3. one GEMM  out = concat · w_out + b_out      (T, d_out) · (d_out, d_out)
//
// FLOPs counted as useful (docs/performance.md): projections 8·T·d_in·d_out for d_in = d_out = d
// i.e. 8·T·d², the causal core 2·T²·d (q·kᵀ and weights·v over the ~T²/2 unmasked cells).
#pragma once

#include <memory>
#include <vector>

#include "matmul.h"
#include "modules.h"
#include "tensor.h"

namespace attn {

// One projection y = x · op(W) + b as the fast path reads it: a view of the weight where it
// lives (a module's parameters, a memory-mapped model file), never copied per call.
struct FastProjection {
    const float* weight = nullptr;  // row-major (rows, cols)
    Eigen::Index rows = 0, cols = 0;
    Op op = Op::None;             // Transpose: W is (out, in), as torch.nn.Linear stores it
    const float* bias = nullptr;  // (out), or nullptr without a bias

    Eigen::Index in_features() const { return op == Op::None ? rows : cols; }
    Eigen::Index out_features() const { return op == Op::None ? cols : rows; }
};

// The weights of one layer for the fast path: views, so whatever they point into (the module,
// the model's weights) must outlive them.
struct FastAttentionWeights {
    // Either one fused projection to q | k | v (GPT-2's c_attn) or three (q, k, v): their outputs
    // fill the columns of qkv left to right.
    std::vector<FastProjection> qkv;
    FastProjection out;  // out_proj: (d_out) -> (d_out)
    Eigen::Index d_in = 0, d_out = 0, num_heads = 0, head_dim = 0, context_length = 0;

    // The copies packed() made, which the views above point into; copies of these weights share
    // them. Empty for views of weights that live elsewhere.
    std::shared_ptr<const std::vector<float>> storage;

    FastAttentionWeights() = default;
    // Views of mha's parameters. Throws AttentionError for a module with num_kv_heads !=
    // num_heads or rope (not computed here; MultiHeadAttention::forward and decode_step compute
    // them).
    explicit FastAttentionWeights(const MultiHeadAttention& mha);

    // mha's weights copied once into the layout the engine's products read in place: q | k | v
    // fused into one (d_in, 3·d_out) matrix and out_proj as (d_out, d_out), both as x · W
    // multiplies them (torch.nn.Linear stores them transposed, which a BLAS repacks on every
    // call). For a module run more than once, or timed apart from its setup as PyTorch's prepared
    // weights are. The result owns its weights; later edits of mha do not reach it.
    static FastAttentionWeights packed(const MultiHeadAttention& mha);
};

// Buffers reused across calls so a forward pass of the same shape allocates nothing.
struct FastAttentionWorkspace {
    // Block sizes, all >= 1. Large blocks make the GEMMs efficient (fewer repacked operands per
    // FLOP); the diagonal square of each query block is done in strips of diagonal_block rows, so
    // the computed but masked cells are a fraction ~diagonal_block / T of the core work.
    Eigen::Index query_block = 256;    // Bq: queries per work item
    Eigen::Index key_block = 256;      // Bk: keys per GEMM left of the diagonal
    Eigen::Index diagonal_block = 64;  // Bd: query rows per strip of the diagonal square

    Matrix qkv;     // (T, 3·d_out)
    Matrix keys_t;  // (d_out, T): every head's keys transposed, for the scores' products
    Matrix concat;  // (T, d_out): every head's context_vecs side by side, before out_proj
    struct Scratch {
        Matrix scores;      // (Bq, max(Bq, Bk)): s, then exp(s - m) in place
        Matrix acc;         // (Bq, hd): unnormalised context of the block
        RowVector row_max;  // (Bq) running max m
        RowVector row_sum;  // (Bq) running sum l
    };
    std::vector<Scratch> scratch;  // one per OpenMP thread
};

// x (T, d_in) -> out (T, d_out), causal, eval mode. out is resized only when its shape changes.
// out_rows in [1, T): only the output's last out_rows rows, out (out_rows, d_out), as a model's
// last layer needs for the next token (every key and value is still computed, queries and
// attention only for those rows); otherwise all T.
// Throws AttentionError for a wrong width, T = 0, T > context_length, NaN/Inf in x, or block
// sizes < 1.
void fast_causal_mha_forward(const FastAttentionWeights& weights, const Matrix& x,
                             FastAttentionWorkspace& workspace, Matrix& out,
                             Eigen::Index out_rows = -1);
// Convenience: prepares the weights and a workspace for one call.
Matrix fast_causal_mha_forward(const MultiHeadAttention& mha, const Matrix& x);

}  // namespace attn
