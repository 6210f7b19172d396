#!/usr/bin/python3
"""Reference values for the walkthrough's chapters "Grouped-query and multi-query attention",
"Masks beyond causal", "Rotary position embeddings" and "FlashAttention's tiles": step 11's
SelfAttention v2 (torch.manual_seed(123), d_in = 3, d_out = 2) on the
tutorial's six tokens, in plain PyTorch 1.13 (Debian's python3-torch).

  /usr/bin/python3 tests/reference/chapters_walk_reference.py > tests/reference/chapters_walk_reference.h
  clang-format -i tests/reference/chapters_walk_reference.h

Masks (1 = attend, 0 = blocked: the seeds' masked_fill(mask == 0, -inf)): a batch of the six
tokens and their first four padded to six with zero embeddings, causal and padding; a sliding
window of the last 3 keys; bidirectional (no mask). Tiles: the causal attention of step 11
computed with an online softmax, query tiles of 2 and key tiles of 1, the running maximum and
sum after every tile that is computed (tiles above the diagonal are skipped).

GQA: the seed's MultiHeadAttention written with num_kv_heads K/V heads (repeat_interleave), 4
query heads, d_out 8, torch.manual_seed(123) before each module, for 1, 2 and 4 K/V heads; the
seed's own MultiHeadAttention class with the same seed for the comparison. RoPE: Hugging Face's
LLaMA rotate_half convention on SelfAttention v2's queries and keys (no mask), at positions 0-5
and 3-8, and the scores of the tokens in reverse order without RoPE.
"""
import torch
import torch.nn as nn

assert torch.__version__.startswith("1.13"), "run with Debian's python3-torch (PyTorch 1.13)"

inputs = torch.tensor(
    [[0.43, 0.15, 0.89],  # Your
     [0.55, 0.87, 0.66],  # journey
     [0.57, 0.85, 0.64],  # starts
     [0.22, 0.58, 0.33],  # with
     [0.77, 0.25, 0.10],  # one
     [0.05, 0.80, 0.55]])  # step


class SelfAttention_v2(nn.Module):  # the tutorial's, seed 002
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)


torch.manual_seed(123)
sa = SelfAttention_v2(3, 2)
T = inputs.shape[0]
LENGTHS = [6, 4]
WINDOW = 3


def attend(x, mask):
    with torch.no_grad():
        queries, keys, values = sa.W_query(x), sa.W_key(x), sa.W_value(x)
        attn_scores = queries @ keys.transpose(-2, -1)
        masked = attn_scores.masked_fill(mask == 0, -torch.inf)
        attn_weights = torch.softmax(masked / keys.shape[-1] ** 0.5, dim=-1)
        return attn_weights, attn_weights @ values, queries, keys, values


causal = torch.tril(torch.ones(T, T))
batch = torch.stack([inputs, inputs.clone()])
batch[1, LENGTHS[1]:] = 0.0  # padding tokens: zero embeddings
padding = (torch.arange(T) < torch.tensor(LENGTHS)[:, None]).float()
mask_padding = causal * padding[:, None, :]
mask_window = causal * torch.triu(torch.ones(T, T), diagonal=-(WINDOW - 1))
mask_bidirectional = torch.ones(T, T)

padding_weights, padding_context, _, _, _ = attend(batch, mask_padding)
window_weights, window_context, _, _, _ = attend(inputs, mask_window)
bidirectional_weights, bidirectional_context, _, _, _ = attend(inputs, mask_bidirectional)
causal_weights, causal_context, queries, keys, values = attend(inputs, causal)

# The tiles, exactly as the step's snippet.
q_tile, k_tile = 2, 1
context_vecs = torch.empty(T, values.shape[1])
tiles = []  # (query tile start, key tile start, running max, running sum, scale)
with torch.no_grad():
    for i0 in range(0, T, q_tile):
        q = queries[i0:i0 + q_tile]
        m = torch.full((len(q),), -torch.inf)
        l = torch.zeros(len(q))
        o = torch.zeros(len(q), values.shape[1])
        for j0 in range(0, i0 + len(q), k_tile):
            s = q @ keys[j0:j0 + k_tile].T / keys.shape[-1] ** 0.5
            rows, cols = torch.arange(i0, i0 + len(q))[:, None], torch.arange(j0, j0 + s.shape[1])
            s = s.masked_fill(cols > rows, -torch.inf)
            m_new = torch.maximum(m, s.max(dim=-1).values)
            scale = torch.exp(m - m_new)
            p = torch.exp(s - m_new[:, None])
            l = l * scale + p.sum(dim=-1)
            o = o * scale[:, None] + p @ values[j0:j0 + k_tile]
            m = m_new
            tiles.append((i0, j0, m.tolist(), l.tolist(), scale.tolist(), o.tolist()))
        context_vecs[i0:i0 + q_tile] = o / l[:, None]


class MultiHeadAttention(nn.Module):  # the tutorial's, seed 002
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length),
                                                diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


class GroupedQueryAttention(nn.Module):  # the chapter's snippet
    def __init__(self, d_in, d_out, num_heads, num_kv_heads):
        super().__init__()
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=False)
        self.W_key = nn.Linear(d_in, num_kv_heads * self.head_dim, bias=False)
        self.W_value = nn.Linear(d_in, num_kv_heads * self.head_dim, bias=False)
        self.out_proj = nn.Linear(d_out, d_out)

    def forward(self, x):
        b, T, _ = x.shape
        queries = self.W_query(x).view(b, T, self.num_heads, self.head_dim).transpose(1, 2)
        keys = self.W_key(x).view(b, T, self.num_kv_heads, self.head_dim).transpose(1, 2)
        values = self.W_value(x).view(b, T, self.num_kv_heads, self.head_dim).transpose(1, 2)
        group = self.num_heads // self.num_kv_heads
        keys = keys.repeat_interleave(group, dim=1)
        values = values.repeat_interleave(group, dim=1)
        attn_scores = queries @ keys.transpose(2, 3)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        attn_scores.masked_fill_(mask, -torch.inf)
        attn_weights = torch.softmax(attn_scores / self.head_dim ** 0.5, dim=-1)
        context_vec = (attn_weights @ values).transpose(1, 2).reshape(b, T, -1)
        return self.out_proj(context_vec), attn_weights[0]


GQA_HEADS, GQA_D_OUT = 4, 8
gqa = {}
with torch.no_grad():
    for G in (1, 2, 4):
        torch.manual_seed(123)
        module = GroupedQueryAttention(3, GQA_D_OUT, GQA_HEADS, G)
        out, weights = module(inputs.unsqueeze(0))
        gqa[G] = dict(output=out[0], weights=weights, keys=module.W_key(inputs),
                      cache_bytes=2 * T * G * module.head_dim * 4)
    torch.manual_seed(123)
    mha_output = MultiHeadAttention(3, GQA_D_OUT, T, 0.0, GQA_HEADS)(inputs.unsqueeze(0))[0]


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rope(x, offset=0, base=10000):
    n, head_dim = x.shape
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
    angles = torch.outer(torch.arange(offset, offset + n).float(), inv_freq)
    emb = torch.cat((angles, angles), dim=-1)
    return x * emb.cos() + rotate_half(x) * emb.sin()


ROPE_SHIFT = 3
with torch.no_grad():
    perm = torch.arange(T - 1, -1, -1)
    reversed_scores = sa.W_query(inputs[perm]) @ sa.W_key(inputs[perm]).T
    plain_scores = queries @ keys.T
    rope_queries, rope_keys = rope(queries), rope(keys)
    rope_scores = rope_queries @ rope_keys.T
    rope_weights = torch.softmax(rope_scores / keys.shape[-1] ** 0.5, dim=-1)
    shifted_queries = rope(queries, ROPE_SHIFT)
    shifted_scores = shifted_queries @ rope(keys, ROPE_SHIFT).T
    shifted_weights = torch.softmax(shifted_scores / keys.shape[-1] ** 0.5, dim=-1)


def rows(m):
    return "{" + ", ".join("{" + ", ".join("%.9ef" % v for v in r) + "}" for r in m) + "}"


def matrix(name, m, comment):
    m = m.tolist()
    print("// %s" % comment)
    print("constexpr float %s[%d][%d] = %s;\n" % (name, len(m), len(m[0]), rows(m)))


print("// Generated by tests/reference/chapters_walk_reference.py (PyTorch %s); do not edit."
      % torch.__version__)
print("// /usr/bin/python3 tests/reference/chapters_walk_reference.py > "
      "tests/reference/chapters_walk_reference.h")
print("#pragma once\n\nnamespace chapters_walk_reference {\n")
print("constexpr int kValidTokens = %d;  // sentence 2 of the padded batch" % LENGTHS[1])
print("constexpr int kWindow = %d;\n" % WINDOW)
matrix("kPaddingWeights1", padding_weights[0], "causal + padding, sentence 1 (6 tokens)")
matrix("kPaddingWeights2", padding_weights[1], "causal + padding, sentence 2 (4 tokens + 2 padding)")
matrix("kPaddingContext2", padding_context[1], "its context vectors")
matrix("kWindowWeights", window_weights, "sliding window of the last 3 keys")
matrix("kWindowContext", window_context, "its context vectors")
matrix("kBidirectionalWeights", bidirectional_weights, "no mask")
matrix("kBidirectionalContext", bidirectional_context, "its context vectors")
matrix("kCausalContext", causal_context, "step 11: causal context vectors")
print("// The tiles in order: query tile start, key tile start (0-based), then per query row of")
print("// the tile the running maximum m, sum l and rescaling factor exp(m_old - m) after it.")
print("struct Tile {\n    int query_start, key_start;\n    float m[2], l[2], scale[2];\n    "
      "float o[2][2];\n};")
print("constexpr Tile kTiles[] = {")
for i0, j0, m, l, scale, o in tiles:
    f = lambda v: ", ".join("%.9ef" % x for x in v)
    print("    {%d, %d, {%s}, {%s}, {%s}, %s}," % (i0, j0, f(m), f(l), f(scale), rows(o)))
print("};\n")
matrix("kTiledContext", context_vecs, "o / l after the last tile of each query tile")

print("// Grouped-query attention: %d query heads, d_out %d, seed 123 before each module." %
      (GQA_HEADS, GQA_D_OUT))
for G in (1, 2, 4):
    for h in range(GQA_HEADS):
        matrix("kGqa%dWeights%d" % (G, h + 1), gqa[G]["weights"][h],
               "%d K/V heads: query head %d's weights" % (G, h + 1))
    matrix("kGqa%dKeys" % G, gqa[G]["keys"], "%d K/V heads: the cached keys" % G)
    matrix("kGqa%dOutput" % G, gqa[G]["output"], "%d K/V heads: the output" % G)
    print("constexpr int kGqa%dCacheBytes = %d;\n" % (G, gqa[G]["cache_bytes"]))
matrix("kMhaOutput", mha_output, "the seed's MultiHeadAttention, seed 123")
print("// RoPE on SelfAttention v2's queries and keys, no mask; shift %d." % ROPE_SHIFT)
print("constexpr int kRopeShift = %d;\n" % ROPE_SHIFT)
matrix("kReversedScores", reversed_scores, "scores of the tokens in reverse order, no RoPE")
matrix("kPlainScores", plain_scores, "scores in order, no RoPE")
matrix("kRopeQueries", rope_queries, "queries rotated at positions 0-5")
matrix("kRopeScores", rope_scores, "scores with RoPE")
matrix("kRopeWeights", rope_weights, "weights with RoPE")
matrix("kShiftedQueries", shifted_queries, "queries rotated at positions 3-8")
matrix("kShiftedScores", shifted_scores, "scores with RoPE, positions + 3")
matrix("kShiftedWeights", shifted_weights, "weights with RoPE, positions + 3")
print("}  // namespace chapters_walk_reference")
