#!/usr/bin/python3
"""Prints tests/reference/seed003_reference.h: seed 003's self-attention with dim_k != dim_v
(single and multi-head) run in PyTorch 1.13, for tests/model/test_seed003.cpp.

    /usr/bin/python3 tests/reference/seed003_reference.py > tests/reference/seed003_reference.h

The two classes are the seed file's code; only the case its web copy lost is restored
(nn.Module, nn.Linear, SelfAttention, MultiHeadSelfAttention, False). Their forward returns only
`att`, so the intermediates are recomputed from the same layers below, and checked against it.
"""
import os
import sys
from math import sqrt

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_normal_reference import TUTORIAL_INPUTS, c_array  # noqa: E402

COMMAND = ("/usr/bin/python3 tests/reference/seed003_reference.py"
           " > tests/reference/seed003_reference.h")


# --- seed 003, verbatim -------------------------------------------------------------------
class SelfAttention(nn.Module):
    dim_in: int
    dim_k: int
    dim_v: int

    def __init__(self, dim_in, dim_k, dim_v):
        super(SelfAttention, self).__init__()
        self.dim_in = dim_in
        self.dim_k = dim_k
        self.dim_v = dim_v
        self.linear_q = nn.Linear(dim_in, dim_k, bias=False)
        self.linear_k = nn.Linear(dim_in, dim_k, bias=False)
        self.linear_v = nn.Linear(dim_in, dim_v, bias=False)
        self._norm_fact = 1 / sqrt(dim_k)

    def forward(self, x):
        # x: batch, n, dim_in
        batch, n, dim_in = x.shape
        assert dim_in == self.dim_in

        q = self.linear_q(x)  # batch, n, dim_k
        k = self.linear_k(x)  # batch, n, dim_k
        v = self.linear_v(x)  # batch, n, dim_v

        dist = torch.bmm(q, k.transpose(1, 2)) * self._norm_fact  # batch, n, n
        dist = torch.softmax(dist, dim=-1)  # batch, n, n

        att = torch.bmm(dist, v)
        return att


class MultiHeadSelfAttention(nn.Module):
    dim_in: int  # input dimension
    dim_k: int   # key and query dimension
    dim_v: int   # value dimension
    num_heads: int  # number of heads, for each head, dim_* = dim_* // num_heads

    def __init__(self, dim_in, dim_k, dim_v, num_heads=8):
        super(MultiHeadSelfAttention, self).__init__()
        assert dim_k % num_heads == 0 and dim_v % num_heads == 0, "dim_k and dim_v must be multiple of num_heads"
        self.dim_in = dim_in
        self.dim_k = dim_k
        self.dim_v = dim_v
        self.num_heads = num_heads
        self.linear_q = nn.Linear(dim_in, dim_k, bias=False)
        self.linear_k = nn.Linear(dim_in, dim_k, bias=False)
        self.linear_v = nn.Linear(dim_in, dim_v, bias=False)
        self._norm_fact = 1 / sqrt(dim_k // num_heads)

    def forward(self, x):
        # x: tensor of shape (batch, n, dim_in)
        batch, n, dim_in = x.shape
        assert dim_in == self.dim_in

        nh = self.num_heads
        dk = self.dim_k // nh  # dim_k of each head
        dv = self.dim_v // nh  # dim_v of each head

        q = self.linear_q(x).reshape(batch, n, nh, dk).transpose(1, 2)  # (batch, nh, n, dk)
        k = self.linear_k(x).reshape(batch, n, nh, dk).transpose(1, 2)  # (batch, nh, n, dk)
        v = self.linear_v(x).reshape(batch, n, nh, dv).transpose(1, 2)  # (batch, nh, n, dv)

        dist = torch.matmul(q, k.transpose(2, 3)) * self._norm_fact  # batch, nh, n, n
        dist = torch.softmax(dist, dim=-1)  # batch, nh, n, n

        att = torch.matmul(dist, v)  # batch, nh, n, dv
        att = att.transpose(1, 2).reshape(batch, n, self.dim_v)  # batch, n, dim_v
        return att


# --- cases ----------------------------------------------------------------------------------
# (dim_in, dim_k, dim_v, num_heads (0 = SelfAttention), seed, tokens (0 = the tutorial's), batch)
CASES = [
    (3, 3, 3, 0, 123, 0, 1),
    (3, 2, 4, 0, 123, 0, 1),
    (3, 5, 2, 0, 7, 0, 2),
    (4, 6, 3, 0, 2024, 5, 1),
    (3, 4, 6, 2, 123, 0, 1),
    (3, 3, 3, 1, 123, 0, 1),
    (3, 6, 9, 3, 1, 0, 2),
    (5, 8, 4, 4, 42, 7, 1),
    (8, 16, 8, 8, 123, 9, 1),
]


def run_case(index, case, out, rows):
    dim_in, dim_k, dim_v, num_heads, seed, tokens, batch = case
    if tokens == 0:
        x = torch.tensor(TUTORIAL_INPUTS)
    else:
        torch.manual_seed(seed)  # attn::random_sequence: its own generator with the same seed
        x = torch.rand(tokens, dim_in)
    tokens = x.shape[0]
    xb = torch.stack([x] * batch)
    torch.manual_seed(seed)
    if num_heads == 0:
        m = SelfAttention(dim_in, dim_k, dim_v)
        nh = 1
    else:
        m = MultiHeadSelfAttention(dim_in, dim_k, dim_v, num_heads)
        nh = num_heads
    with torch.no_grad():
        att = m(xb)
        q, k, v = m.linear_q(xb), m.linear_k(xb), m.linear_v(xb)
        qh = q.reshape(batch, tokens, nh, dim_k // nh).transpose(1, 2)
        kh = k.reshape(batch, tokens, nh, dim_k // nh).transpose(1, 2)
        vh = v.reshape(batch, tokens, nh, dim_v // nh).transpose(1, 2)
        scores = torch.matmul(qh, kh.transpose(2, 3))  # raw, before the scale
        weights = torch.softmax(scores * m._norm_fact, dim=-1)
        again = torch.matmul(weights, vh).transpose(1, 2).reshape(batch, tokens, dim_v)
        assert torch.allclose(again, att, atol=1e-6), "recomputed intermediates differ"
    p = f"kSeed003_{index}"
    out.append(c_array(f"{p}_input", x, f"dim_in {dim_in}, dim_k {dim_k}, dim_v {dim_v}, "
                       f"num_heads {num_heads}, seed {seed}, batch {batch}"))
    for name in ("linear_q", "linear_k", "linear_v"):
        out.append(c_array(f"{p}_{name}", getattr(m, name).weight.detach()))
    out.append(c_array(f"{p}_queries", q))
    out.append(c_array(f"{p}_keys", k))
    out.append(c_array(f"{p}_values", v))
    out.append(c_array(f"{p}_scores", scores))
    out.append(c_array(f"{p}_weights", weights))
    out.append(c_array(f"{p}_output", att))
    rows.append(f"    {{{seed}, {dim_in}, {dim_k}, {dim_v}, {num_heads}, {tokens}, {batch},\n"
                f"     {p}_input, {p}_linear_q, {p}_linear_k, {p}_linear_v,\n"
                f"     {p}_queries, {p}_keys, {p}_values, {p}_scores, {p}_weights, {p}_output}},")


HEADER = """\
// Generated by tests/reference/seed003_reference.py from PyTorch {version}; do not edit.
// Regenerate with:
//   {command}
#pragma once

#include <cstdint>

namespace attn::seed003_reference {{

// torch.manual_seed(seed); m = SelfAttention(dim_in, dim_k, dim_v) (num_heads 0) or
// MultiHeadSelfAttention(dim_in, dim_k, dim_v, num_heads); att = m(torch.stack([input] * batch)).
// The input is the tutorial's six tokens, or torch.rand(tokens, dim_in) after
// torch.manual_seed(seed). All arrays are row-major; heads = max(num_heads, 1).
struct Case {{
    std::uint64_t seed;
    int dim_in, dim_k, dim_v, num_heads, tokens, batch;
    const float* input;                                // (tokens, dim_in)
    const float *linear_q, *linear_k, *linear_v;       // (dim_k | dim_v, dim_in), nn.Linear
    const float *queries, *keys, *values;              // (batch, tokens, dim_k | dim_v)
    const float* scores;   // (batch, heads, tokens, tokens): q · kᵀ before the scale
    const float* weights;  // (batch, heads, tokens, tokens): softmax(scores · _norm_fact)
    const float* output;   // (batch, tokens, dim_v): att
}};
"""


def main():
    assert torch.__version__.startswith("1.13"), "run with Debian's python3-torch (PyTorch 1.13)"
    out = [HEADER.format(version=torch.__version__, command=COMMAND)]
    rows = []
    for index, case in enumerate(CASES):
        run_case(index, case, out, rows)
    out.append("inline constexpr Case kCases[] = {\n" + "\n".join(rows) + "\n};")
    out.append("}  // namespace attn::seed003_reference")
    print("\n\n".join(out))


if __name__ == "__main__":
    main()
