// Input checks shared by the modules (internal to model/): each throws AttentionError naming the
// problem and the fix, before any arithmetic runs on bad input.
#pragma once

#include <iosfwd>
#include <string_view>

#include "examples.h"
#include "rng.h"
#include "tensor.h"

namespace attn::detail {

// A batch (B, T, width): B >= 1, every item has T >= 1 tokens, the same T, `width` columns, and
// only finite values. Items are named "x[1]" etc. when B > 1.
void check_batch(const Batch& x, Eigen::Index width, std::string_view name,
                 std::string_view width_name);

// A sizing argument of a constructor: d_in, d_out, num_heads ... must be at least 1.
void check_positive(Eigen::Index value, std::string_view name);

// The causal mask buffer of the seeds is (context_length, context_length): longer inputs do not
// fit.
void check_context_length(Eigen::Index tokens, Eigen::Index context_length,
                          std::string_view length_name = "context_length");

// The generator dropout draws from in training mode: required when 0 < p < 1.
void check_generator(float p, bool training, const TorchGenerator* gen, std::string_view what);

// A sequence the runner takes: tokens with at least one finite value each, one row per token
// name when names are given ("<name> have 6 rows but there are 5 tokens ...").
void check_sequence(const Sequence& s, std::string_view name);

// Throws AttentionError with the message built in msg (the runner's and the module table's checks).
[[noreturn]] void fail(const std::ostringstream& msg);

// A size setting of the runner: "<name> = 0 is outside 1..64: give <name> between 1 and 64".
void check_size(Eigen::Index value, Eigen::Index max, std::string_view name);

}  // namespace attn::detail
