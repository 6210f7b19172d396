#!/usr/bin/python3
"""Prints tests/reference/torch_normal_reference.h: PyTorch's own normal_ stream and the seed's
GPT-2 Attention (seed file 001) drawn with it, for tests/model/test_torch_normal.cpp.

CI has no PyTorch, so the values are stored in a header. Run with PyTorch 1.13 on x86 with AVX2
(Debian 12: apt-get install python3-torch python3-numpy), with Debian's interpreter:

    /usr/bin/python3 tests/reference/torch_normal_reference.py > tests/reference/torch_normal_reference.h

The vectorised normal_ kernel differs between CPU capabilities (AVX2: Cephes log/sin/cos in
float; the scalar fallback: libm with the angle in double), so the script refuses any other.
"""

import re
import sys

import numpy as np
import torch
from torch import nn

COMMAND = ("/usr/bin/python3 tests/reference/torch_normal_reference.py"
           " > tests/reference/torch_normal_reference.h")

SEEDS = [0, 1, 123, 2024]
SIZES = [1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 48, 100]
MEAN_STD = [(0.0, 0.02), (0.0, 1.0), (-0.75, 2.5)]

# The tutorial's six 3-d tokens, "Your journey starts with one step" (model/examples.cpp).
TUTORIAL_INPUTS = [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                   [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]


# --- seed 001: transformers' Conv1D and GPT-2's Attention, as the seed file has them ----------
# The seed's class without its comments and nothing else changed. prune_heads calls transformers'
# find_pruneable_heads_and_indices and prune_conv1d_layer, which this file does not define:
# gpt2_heads_reference.py provides plain-torch equivalents (no draws, so the header below does
# not depend on it).

class Conv1D(nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        w = torch.empty(nx, nf)
        nn.init.normal_(w, std=0.02)
        self.weight = nn.Parameter(w)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        x = x.view(*size_out)
        return x


class Config:
    def __init__(self, n_head, attn_pdrop, resid_pdrop):
        self.n_head = n_head
        self.attn_pdrop = attn_pdrop
        self.resid_pdrop = resid_pdrop


class Attention(nn.Module):
    def __init__(self, nx, n_ctx, config, scale=False, is_cross_attention=False):
        super().__init__()
        n_state = nx
        assert n_state % config.n_head == 0
        self.register_buffer(
            "bias",
            torch.tril(torch.ones((n_ctx, n_ctx), dtype=torch.uint8)).view(1, 1, n_ctx, n_ctx),
        )
        self.register_buffer("masked_bias", torch.tensor(-1e4))
        self.n_head = config.n_head
        self.split_size = n_state
        self.scale = scale
        self.is_cross_attention = is_cross_attention
        if self.is_cross_attention:
            self.c_attn = Conv1D(2 * n_state, nx)
            self.q_attn = Conv1D(n_state, nx)
        else:
            self.c_attn = Conv1D(3 * n_state, nx)
        self.c_proj = Conv1D(n_state, nx)
        self.attn_dropout = nn.Dropout(config.attn_pdrop)
        self.resid_dropout = nn.Dropout(config.resid_pdrop)
        self.pruned_heads = set()

    def prune_heads(self, heads):
        if len(heads) == 0:
            return
        heads, index = find_pruneable_heads_and_indices(
            heads, self.n_head, self.split_size // self.n_head, self.pruned_heads
        )
        index_attn = torch.cat([index, index + self.split_size, index + (2 * self.split_size)])
        self.c_attn = prune_conv1d_layer(self.c_attn, index_attn, dim=1)
        self.c_proj = prune_conv1d_layer(self.c_proj, index, dim=0)
        self.split_size = (self.split_size // self.n_head) * (self.n_head - len(heads))
        self.n_head = self.n_head - len(heads)
        self.pruned_heads = self.pruned_heads.union(heads)

    def merge_heads(self, x):
        x = x.permute(0, 2, 1, 3).contiguous()
        new_x_shape = x.size()[:-2] + (x.size(-2) * x.size(-1),)
        return x.view(*new_x_shape)

    def split_heads(self, x, k=False):
        new_x_shape = x.size()[:-1] + (self.n_head, x.size(-1) // self.n_head)
        x = x.view(*new_x_shape)
        if k:
            return x.permute(0, 2, 3, 1)
        else:
            return x.permute(0, 2, 1, 3)

    def _attn(self, q, k, v, attention_mask=None, head_mask=None, output_attentions=False):
        w = torch.matmul(q, k)
        if self.scale:
            w = w / (float(v.size(-1)) ** 0.5)
        nd, ns = w.size(-2), w.size(-1)
        if not self.is_cross_attention:
            mask = self.bias[:, :, ns - nd: ns, :ns]
            w = torch.where(mask.bool(), w, self.masked_bias.to(w.dtype))
        if attention_mask is not None:
            w = w + attention_mask
        w = nn.Softmax(dim=-1)(w)
        w = self.attn_dropout(w)
        if head_mask is not None:
            w = w * head_mask
        outputs = [torch.matmul(w, v)]
        if output_attentions:
            outputs.append(w)
        return outputs

    def forward(self, hidden_states, layer_past=None, attention_mask=None, head_mask=None,
                encoder_hidden_states=None, encoder_attention_mask=None, use_cache=False,
                output_attentions=False):
        if encoder_hidden_states is not None:
            assert hasattr(self, "q_attn")
            query = self.q_attn(hidden_states)
            key, value = self.c_attn(encoder_hidden_states).split(self.split_size, dim=2)
            attention_mask = encoder_attention_mask
        else:
            query, key, value = self.c_attn(hidden_states).split(self.split_size, dim=2)
        query = self.split_heads(query)
        key = self.split_heads(key, k=True)
        value = self.split_heads(value)
        if layer_past is not None:
            past_key, past_value = layer_past[0].transpose(-2, -1), layer_past[1]
            key = torch.cat((past_key, key), dim=-1)
            value = torch.cat((past_value, value), dim=-2)
        if use_cache is True:
            present = torch.stack((key.transpose(-2, -1), value))
        else:
            present = (None,)
        attn_outputs = self._attn(query, key, value, attention_mask, head_mask, output_attentions)
        a = attn_outputs[0]
        a = self.merge_heads(a)
        a = self.c_proj(a)
        a = self.resid_dropout(a)
        outputs = [a, present] + attn_outputs[1:]
        return outputs


# --- output --------------------------------------------------------------------------------

def check_torch():
    if not torch.__version__.startswith("1.13"):
        sys.exit(f"PyTorch {torch.__version__}: the references are PyTorch 1.13's stream")
    capability = re.search(r"CPU capability usage: (\w+)", torch.__config__.show())
    if capability is None or capability.group(1) != "AVX2":
        sys.exit("normal_ must run its AVX2 kernel (x86 with AVX2 and FMA, ATEN_CPU_CAPABILITY "
                 "unset or avx2)")
    return capability.group(1)


def c_float(v):
    # numpy prints the shortest decimal that reads back as the same float32.
    text = str(np.float32(v))
    if not any(ch in text for ch in ".en"):
        text += ".0"
    return text + "f"


def c_array(name, values, comment=None):
    flat = [c_float(v) for v in np.asarray(values, dtype=np.float32).reshape(-1)]
    lines = []
    if comment:
        lines.append(f"// {comment}")
    lines.append(f"inline constexpr float {name}[] = {{")
    row = "   "
    for item in flat:
        if len(row) + len(item) + 2 > 100:
            lines.append(row)
            row = "   "
        row += " " + item + ","
    lines.append(row)
    lines.append("};")
    return "\n".join(lines)


def normal_cases(out):
    rows = []
    for seed in SEEDS:
        for size in SIZES:
            for mean, std in MEAN_STD:
                torch.manual_seed(seed)
                values = torch.empty(size).normal_(mean, std)
                name = f"kNormal_s{seed}_n{size}_{len(rows)}"
                out.append(c_array(name, values))
                rows.append(f"    {{{seed}, {size}, {mean!r}, {std!r}, {name}}},")
    # One long draw: every octant of sin/cos and both branches of log many times.
    torch.manual_seed(42)
    values = torch.empty(4000).normal_(0.0, 1.0)
    out.append(c_array("kNormal_s42_n4000", values))
    rows.append("    {42, 4000, 0.0, 1.0, kNormal_s42_n4000},")
    out.append("inline constexpr NormalCase kNormalCases[] = {\n" + "\n".join(rows) + "\n};")


# Each step: ("normal", size, mean, std), ("rand", size) or ("seed", s). The values of every
# normal and rand step, in order, are concatenated.
SEQUENCES = [
    ("cached second value crosses calls with a new mean and std", 5,
     [("normal", 3, 0.0, 1.0), ("normal", 5, 10.0, 0.5)]),
    ("cache survives rand and the vectorised kernel", 5,
     [("normal", 1, 0.0, 1.0), ("rand", 4), ("normal", 20, 0.0, 1.0), ("normal", 2, 0.0, 1.0)]),
    ("manual_seed clears the cache", 5,
     [("normal", 3, 0.0, 1.0), ("seed", 5), ("normal", 3, 0.0, 1.0), ("seed", 6),
      ("normal", 1, 1.0, 2.0), ("seed", 6), ("normal", 2, 1.0, 2.0)]),
    ("scalar, vectorised, scalar", 2024,
     [("normal", 7, 0.0, 0.02), ("normal", 33, 0.0, 0.02), ("normal", 9, 0.0, 0.02),
      ("rand", 3), ("normal", 16, -1.0, 3.0), ("normal", 15, -1.0, 3.0)]),
]


def sequence_cases(out):
    rows = []
    for index, (name, seed, steps) in enumerate(SEQUENCES):
        torch.manual_seed(seed)
        values = []
        step_lines = []
        for step in steps:
            if step[0] == "normal":
                _, size, mean, std = step
                values.append(torch.empty(size).normal_(mean, std))
                step_lines.append(f"{{Step::Normal, {size}, {mean!r}, {std!r}}}")
            elif step[0] == "rand":
                values.append(torch.rand(step[1]))
                step_lines.append(f"{{Step::Rand, {step[1]}, 0.0, 0.0}}")
            else:
                torch.manual_seed(step[1])
                step_lines.append(f"{{Step::ManualSeed, {step[1]}, 0.0, 0.0}}")
        out.append(f"inline constexpr SequenceStep kSequenceSteps{index}[] = {{\n    "
                   + ",\n    ".join(step_lines) + "};")
        out.append(c_array(f"kSequenceValues{index}", torch.cat(values)))
        rows.append(f"    {{\"{name}\", {seed},\n"
                    f"     kSequenceSteps{index}, std::size(kSequenceSteps{index}),\n"
                    f"     kSequenceValues{index}, std::size(kSequenceValues{index})}},")
    out.append("inline constexpr SequenceCase kSequenceCases[] = {\n" + "\n".join(rows) + "\n};")


# (nx, n_head, seed, batch). nx = 3: c_proj has 9 elements (scalar path), c_attn 27 (vectorised,
# last 16 redrawn); nx = 4: 48 and 16; nx = 8: 192 and 64.
GPT2 = [(3, 1, 123, 1), (3, 1, 7, 1), (3, 3, 123, 1), (3, 3, 7, 1), (4, 2, 123, 1), (4, 2, 7, 1),
        (8, 2, 123, 1), (8, 2, 7, 1), (8, 4, 123, 1), (8, 4, 7, 1), (3, 1, 123, 2), (8, 4, 7, 2)]
TOKENS = 6
ATTN_PDROP = 0.5


def gpt2_cases(out):
    rows = []
    for index, (nx, n_head, seed, batch) in enumerate(GPT2):
        if nx == 3:
            x = torch.tensor(TUTORIAL_INPUTS)
        else:
            torch.manual_seed(100 + nx)  # its own stream: the module's draws start at seed
            x = torch.rand(TOKENS, nx)
        hidden = torch.stack([x] * batch)
        torch.manual_seed(seed)
        m = Attention(nx, TOKENS, Config(n_head, ATTN_PDROP, 0.0), scale=True)
        m.train()
        with torch.no_grad():
            a, _, w = m(hidden, output_attentions=True)
        p = f"kGpt2_{index}"
        out.append(c_array(f"{p}_input", x,
                           f"nx {nx}, n_head {n_head}, seed {seed}, batch {batch}"))
        out.append(c_array(f"{p}_c_attn", m.c_attn.weight.detach()))
        out.append(c_array(f"{p}_c_proj", m.c_proj.weight.detach()))
        out.append(c_array(f"{p}_weights", w))
        out.append(c_array(f"{p}_output", a))
        rows.append(f"    {{{seed}, {nx}, {n_head}, {batch}, {TOKENS}, {ATTN_PDROP!r}f,\n"
                    f"     {p}_input,\n"
                    f"     {p}_c_attn, {p}_c_proj, {p}_weights, {p}_output}},")
    out.append("inline constexpr Gpt2Case kGpt2Cases[] = {\n" + "\n".join(rows) + "\n};")


HEADER = """\
// Generated by tests/reference/torch_normal_reference.py from PyTorch {version} (CPU capability
// {capability}); do not edit. Regenerate with:
//   {command}
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>

namespace attn::torch_reference {{

// torch.manual_seed(seed); torch.empty(size).normal_(mean, stddev)
struct NormalCase {{
    std::uint64_t seed;
    int size;
    double mean, stddev;
    const float* values;  // size values
}};

enum class Step {{ Normal, Rand, ManualSeed }};
// Normal: torch.empty(n).normal_(mean, stddev); Rand: torch.rand(n); ManualSeed: manual_seed(n).
struct SequenceStep {{
    Step op;
    std::int64_t n;
    double mean, stddev;
}};

// torch.manual_seed(seed), then the steps on the same generator; values are every Normal and
// Rand step's output, concatenated.
struct SequenceCase {{
    const char* name;
    std::uint64_t seed;
    const SequenceStep* steps;
    std::size_t num_steps;
    const float* values;
    std::size_t num_values;
}};

// torch.manual_seed(seed); m = Attention(nx, tokens, config, scale=True) with
// config.attn_pdrop = attn_pdrop, config.resid_pdrop = 0; m.train(); hidden_states = batch copies
// of input; a, present, w = m(hidden_states, output_attentions=True).
struct Gpt2Case {{
    std::uint64_t seed;
    int nx, n_head, batch, tokens;
    float attn_pdrop;
    const float* input;          // (tokens, nx)
    const float* c_attn_weight;  // (nx, 3 nx), row-major
    const float* c_proj_weight;  // (nx, nx)
    const float* weights;        // w: (batch, n_head, tokens, tokens), after dropout
    const float* output;         // a: (batch, tokens, nx)
}};
"""


def main():
    capability = check_torch()
    out = [HEADER.format(version=torch.__version__, capability=capability, command=COMMAND)]
    normal_cases(out)
    sequence_cases(out)
    gpt2_cases(out)
    out.append("}  // namespace attn::torch_reference")
    print("\n\n".join(out))


if __name__ == "__main__":
    main()
