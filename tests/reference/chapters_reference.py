#!/usr/bin/python3
"""Reference values for the chapters past the tutorial: the seed's MultiHeadAttention
with grouped-query K/V heads, window / bidirectional / padding masks and rotary position
embeddings, in plain torch operations (PyTorch 1.13 has no fused attention).

  /usr/bin/python3 tests/reference/chapters_reference.py > tests/reference/chapters_reference.h
  clang-format -i tests/reference/chapters_reference.h

Parameters are drawn as the seed's constructor draws them (W_query, W_key, W_value, out_proj after
torch.manual_seed), W_key and W_value being nn.Linear(d_in, num_kv_heads * head_dim); query head h
reads K/V head h // (num_heads // num_kv_heads) (LLaMA's repeat_kv). RoPE follows Hugging Face's
LLaMA code (rotate_half, float32 angles). Blocked cells are filled with -inf before the division by
sqrt(head_dim), as the seed does; dropout acts on the [batch][head][T][T] weights.
"""
import math

import torch
import torch.nn as nn

assert torch.__version__.startswith("1.13"), "run with Debian's python3-torch (PyTorch 1.13)"

INPUTS = torch.tensor(
    [[0.43, 0.15, 0.89],  # Your
     [0.55, 0.87, 0.66],  # journey
     [0.57, 0.85, 0.64],  # starts
     [0.22, 0.58, 0.33],  # with
     [0.77, 0.25, 0.10],  # one
     [0.05, 0.80, 0.55]])  # step


def rotate_half(x):  # transformers' LLaMA
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rope_cos_sin(num_tokens, dim, base, offset):  # LlamaRotaryEmbedding, positions offset + i
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
    t = torch.arange(offset, offset + num_tokens).float()
    freqs = torch.outer(t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, dropout, num_heads, num_kv_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0 and num_heads % num_kv_heads == 0
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.head_dim = d_out // num_heads
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, num_kv_heads * self.head_dim, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, num_kv_heads * self.head_dim, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask, window, lengths, rope, rope_base, position_offset):
        b, num_tokens, _ = x.shape
        H, G, hd = self.num_heads, self.num_kv_heads, self.head_dim
        queries = self.W_query(x).view(b, num_tokens, H, hd).transpose(1, 2)
        keys = self.W_key(x).view(b, num_tokens, G, hd).transpose(1, 2)
        values = self.W_value(x).view(b, num_tokens, G, hd).transpose(1, 2)
        if rope:
            cos, sin = rope_cos_sin(num_tokens, hd, rope_base, position_offset)
            queries = queries * cos + rotate_half(queries) * sin
            keys = keys * cos + rotate_half(keys) * sin
        rec = dict(queries=queries.transpose(1, 2).reshape(b, num_tokens, H * hd),
                   keys=keys.transpose(1, 2).reshape(b, num_tokens, G * hd),
                   values=values.transpose(1, 2).reshape(b, num_tokens, G * hd))
        keys = keys.repeat_interleave(H // G, dim=1)  # repeat_kv
        values = values.repeat_interleave(H // G, dim=1)
        attn_scores = queries @ keys.transpose(2, 3)
        rec["attn_scores"] = attn_scores.clone()
        ones = torch.ones(num_tokens, num_tokens)
        blocked = torch.zeros(b, 1, num_tokens, num_tokens, dtype=torch.bool)
        if mask in ("causal", "window"):
            blocked |= torch.triu(ones, diagonal=1).bool()
        if mask == "window":
            blocked |= torch.tril(ones, diagonal=-window).bool()  # keys j <= i - window
        for i, length in enumerate(lengths):
            blocked[i, :, :, length:] = True
        attn_scores = attn_scores.masked_fill(blocked, -torch.inf)
        attn_weights = torch.softmax(attn_scores / hd ** 0.5, dim=-1)
        rec["attn_weights"] = attn_weights
        attn_weights = self.dropout(attn_weights)
        rec["attn_weights_after_dropout"] = attn_weights
        context_vecs = (attn_weights @ values).transpose(1, 2)
        context_vecs = context_vecs.contiguous().view(b, num_tokens, self.d_out)
        rec["context_vecs"] = self.out_proj(context_vecs)
        return rec


def cfloat(v):
    # 9 significant digits read back as the same float32.
    if math.isnan(v):
        return "kNaN"
    if math.isinf(v):
        return "-kInf" if v < 0 else "kInf"
    text = "%.9g" % v
    if "." not in text and "e" not in text:
        text += ".0"
    return text + "f"


def floats(t):
    return "{" + ", ".join(cfloat(v) for v in t.flatten().tolist()) + "}"


CASES = [
    # name, seed, d_out, num_heads, num_kv_heads, mask, window, lengths, rope, base, offset,
    # dropout, qkv_bias
    ("gqa G = 2", 123, 8, 4, 2, "causal", 0, [], False, 10000.0, 0, 0.0, False),
    ("mqa G = 1", 123, 8, 4, 1, "causal", 0, [], False, 10000.0, 0, 0.0, False),
    ("window 2", 123, 4, 2, 2, "window", 2, [], False, 10000.0, 0, 0.0, False),
    ("bidirectional", 123, 4, 2, 2, "bidirectional", 0, [], False, 10000.0, 0, 0.0, False),
    ("lengths 6,3,0", 123, 4, 2, 2, "causal", 0, [6, 3, 0], False, 10000.0, 0, 0.0, False),
    ("bidirectional lengths 4,6", 123, 4, 2, 2, "bidirectional", 0, [4, 6], False, 10000.0, 0,
     0.0, False),
    ("rope", 123, 8, 2, 2, "causal", 0, [], True, 10000.0, 0, 0.0, False),
    ("rope offset 5", 123, 8, 2, 2, "causal", 0, [], True, 10000.0, 5, 0.0, False),
    ("rope base 100 offset 3 bidirectional", 123, 8, 2, 2, "bidirectional", 0, [], True, 100.0,
     3, 0.0, False),
    ("gqa rope window lengths dropout bias", 7, 8, 4, 2, "window", 3, [6, 4], True, 10000.0, 2,
     0.5, True),
]

print("// Generated by tests/reference/chapters_reference.py with PyTorch " + torch.__version__)
print("// /usr/bin/python3 tests/reference/chapters_reference.py >")
print("// tests/reference/chapters_reference.h && clang-format -i tests/reference/chapters_reference.h")
print("""#pragma once

#include <limits>
#include <vector>

namespace chapters_reference {

inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();

// MultiHeadAttention(d_in = 3, d_out, context_length = 6, dropout, num_heads, qkv_bias,
// num_kv_heads) on the tutorial's six tokens; batch = lengths.size(), or 1 without lengths.
struct Case {
    const char* name;
    unsigned seed;
    int d_out, num_heads, num_kv_heads;
    const char* mask;  // "causal", "bidirectional" or "window"
    int window;
    std::vector<int> lengths;
    bool rope;
    float rope_base;
    int position_offset;
    float dropout;
    bool qkv_bias;
    std::vector<float> queries;      // (B, T, H * hd), after RoPE
    std::vector<float> keys;         // (B, T, G * hd), after RoPE
    std::vector<float> values;       // (B, T, G * hd)
    std::vector<float> attn_scores;  // (B, H, T, T) queries · keysᵀ per query head
    std::vector<float> attn_weights;                // (B, H, T, T) before dropout
    std::vector<float> attn_weights_after_dropout;  // (B, H, T, T), empty without dropout
    std::vector<float> context_vecs;                // (B, T, d_out)
};

inline const std::vector<Case>& cases() {
    static const std::vector<Case> all = {""")
for (name, seed, d_out, H, G, mask, window, lengths, rope, base, offset, p, bias) in CASES:
    torch.manual_seed(seed)
    m = MultiHeadAttention(3, d_out, p, H, G, bias)
    if p > 0:
        m.train()
    else:
        m.eval()
    batch = len(lengths) if lengths else 1
    x = torch.stack([INPUTS] * batch)
    with torch.no_grad():
        r = m(x, mask, window, lengths, rope, base, offset)
    print("        {%s, %d, %d, %d, %d, \"%s\", %d, {%s}, %s, %s, %d, %s, %s," % (
        '"' + name + '"', seed, d_out, H, G, mask, window, ", ".join(str(n) for n in lengths),
        "true" if rope else "false", cfloat(base), offset, cfloat(p), "true" if bias else "false"))
    for key in ("queries", "keys", "values", "attn_scores", "attn_weights"):
        print("         " + floats(r[key]) + ",")
    print("         " + (floats(r["attn_weights_after_dropout"]) if p > 0 else "{}") + ",")
    print("         " + floats(r["context_vecs"]) + "},")
print("""    };
    return all;
}

}  // namespace chapters_reference""")
