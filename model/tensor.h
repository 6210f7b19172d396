// Core types of the attention engine.
//
// Shape legend used throughout model/:
//   B = batch, T = tokens (T_q queries, T_k keys), d_in = embedding width,
//   d_out = projection width, H = num_heads, hd = head_dim = d_out / H.
//
// PyTorch tensors are row-major, so every matrix here is row-major too: a (T, d) matrix holds one
// token per row exactly as the tutorial prints it, and random fills walk it in PyTorch's order.
#pragma once

#include <Eigen/Core>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic, Eigen::RowMajor>;
// true = blocked (the cell is filled before softmax); the seeds' conventions convert into this.
using BoolMatrix = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

using Batch = std::vector<Matrix>;  // (B, T, d): one matrix per batch item
using Heads = std::vector<Matrix>;  // (H, T, hd): one matrix per head

// Every bad input the engine sees ends in this exception; what() names the problem and the fix,
// e.g. "d_out = 6 is not divisible by num_heads = 4: choose num_heads among 1, 2, 3, 6".
class AttentionError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// Throws AttentionError naming the first NaN or Inf, rows and columns counted from 1 as the
// tutorial numbers its tokens: "<name> has NaN at row 2, column 1 (counting from 1): ...".
void check_finite(const Matrix& m, std::string_view name);
// Throws AttentionError when m has no rows: "<name> is empty: give at least one token".
void check_not_empty(const Matrix& m, std::string_view name);
// Throws AttentionError unless m.cols() == cols: "<name> has 4 columns but d_in = 3 ...".
void check_cols(const Matrix& m, Eigen::Index cols, std::string_view name,
                std::string_view expected_name);
// Throws AttentionError unless width >= 1, num_heads >= 1 and width % num_heads == 0; lists valid
// head counts.
void check_heads_divide(Eigen::Index width, Eigen::Index num_heads, std::string_view width_name);
// Throws AttentionError unless 0 <= p <= 1 (and p is not NaN).
void check_dropout_p(float p);

// Stacks copies of x into a batch, as torch.stack((inputs, inputs)) does in the tutorial.
// Throws AttentionError when copies < 1.
Batch stack_copies(const Matrix& x, int copies);

}  // namespace attn
