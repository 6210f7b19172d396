#!/usr/bin/python3
"""Reference values for where each module puts a finite mask fill, and for NaN rows through
dropout, computed by the seeds' own module code in PyTorch 1.13 (Debian's python3-torch).

  /usr/bin/python3 tests/reference/fill_dropout_reference.py > tests/reference/fill_dropout_reference.h

The seed 002 modules (CausalAttention, MultiHeadAttentionWrapper, MultiHeadAttention, and the
tutorial's causal step on SelfAttention v2) fill the raw scores and then divide by sqrt(d_k); BERT
(seed 000) and GPT-2 (seed 001) scale first and then fill. The classes below are the seeds' code
with the fill value (and, for BERT, the mask convention) as a parameter, which is what
attention-cli's --fill and --mask-convention switch.
"""
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, __import__("os").path.dirname(__file__))
from torch_normal_reference import Attention as Gpt2Attention, Config as Gpt2Config  # seed 001

assert torch.__version__.startswith("1.13"), "run with Debian's python3-torch (PyTorch 1.13)"

INPUTS = torch.tensor(
    [[0.43, 0.15, 0.89],  # Your
     [0.55, 0.87, 0.66],  # journey
     [0.57, 0.85, 0.64],  # starts
     [0.22, 0.58, 0.33],  # with
     [0.77, 0.25, 0.10],  # one
     [0.05, 0.80, 0.55]])  # step


# --- seed 002 -------------------------------------------------------------------------------
class SelfAttention(nn.Module):  # v2, with the tutorial's causal mask of section 3 as a switch
    def __init__(self, d_in, d_out, qkv_bias=False, fill=-torch.inf):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.fill = fill

    def forward(self, x):
        keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
        attn_scores = queries @ keys.T
        d_key = keys.shape[-1]
        mask = torch.triu(torch.ones(x.shape[0], x.shape[0]), diagonal=1)
        masked = attn_scores.masked_fill(mask.bool(), self.fill)
        attn_weights = torch.softmax(masked / d_key ** 0.5, dim=-1)
        return attn_weights @ values, attn_weights.unsqueeze(0)


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False, fill=-torch.inf):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        tmp = torch.ones(context_length, context_length)
        self.register_buffer('mask', torch.triu(tmp, diagonal=1))
        self.fill = fill

    def forward(self, x):
        batch_size, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        d_key = keys.shape[-1]
        attn_scores = queries @ keys.transpose(1, 2)
        mask = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask, self.fill)
        attn_weights = torch.softmax(attn_scores / d_key ** 0.5, dim=-1)
        self.last_weights = attn_weights
        attn_weights = self.dropout(attn_weights)
        return attn_weights @ values


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, sequence_length, dropout, num_heads, qkv_bias=False,
                 fill=-torch.inf):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, sequence_length, dropout, qkv_bias, fill)
             for _ in range(num_heads)])

    def forward(self, x):
        out = torch.cat([head(x) for head in self.heads], dim=-1)
        weights = torch.stack([head.last_weights for head in self.heads], dim=1)
        return out, weights


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False,
                 fill=-torch.inf):
        super().__init__()
        assert d_out % num_heads == 0
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        tmp = torch.ones(context_length, context_length)
        self.register_buffer('mask', torch.triu(tmp, diagonal=1))
        self.fill = fill

    def forward(self, x):
        batch_size, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        keys = keys.view(batch_size, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = queries.view(batch_size, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = values.view(batch_size, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        d_key = keys.shape[-1]
        attn_scores = queries @ keys.transpose(2, 3)
        mask = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask, self.fill)
        attn_weights = torch.softmax(attn_scores / d_key ** 0.5, dim=-1)
        weights = attn_weights
        attn_weights = self.dropout(attn_weights)
        context_vecs = (attn_weights @ values).transpose(1, 2)
        context_vecs = context_vecs.contiguous().view(batch_size, num_tokens, self.d_out)
        return self.out_proj(context_vecs), weights


# --- seed 000 (BERT), with the fill and the mask convention as parameters --------------------
class BertAttention(nn.Module):
    def __init__(self, fill, convention):
        super().__init__()
        self.fill, self.convention = fill, convention

    def forward(self, query, key, value, mask=None, dropout=None):
        scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(query.size(-1))
        if mask is not None:
            scores = scores.masked_fill(mask == self.convention, self.fill)
        p_attn = F.softmax(scores, dim=-1)
        self.weights = p_attn
        if dropout is not None:
            p_attn = dropout(p_attn)
        self.dropped = p_attn
        return torch.matmul(p_attn, value), p_attn


class MultiHeadedAttention(nn.Module):
    def __init__(self, h, d_model, dropout=0.1, fill=-1e9, convention=0):
        super().__init__()
        assert d_model % h == 0
        self.d_k = d_model // h
        self.h = h
        self.linear_layers = nn.ModuleList([nn.Linear(d_model, d_model) for _ in range(3)])
        self.output_linear = nn.Linear(d_model, d_model)
        self.attention = BertAttention(fill, convention)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        batch_size = query.size(0)
        lq, lk, lv = self.linear_layers
        query, key, value = lq(query), lk(key), lv(value)
        query, key, value = [x.view(batch_size, -1, self.h, self.d_k).transpose(1, 2)
                             for x in (query, key, value)]
        x, attn = self.attention(query, key, value, mask=mask, dropout=self.dropout)
        x = x.transpose(1, 2).contiguous().view(batch_size, -1, self.h * self.d_k)
        return self.output_linear(x)


def subsequent_mask(n):  # the seeds' mask tensor: 1 where query i may see key j <= i
    return torch.tril(torch.ones(n, n))


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


cases = []


def add(name, module, seed, num_heads, fill, convention, dropout, x, context, weights,
        dropped=None):
    cases.append(dict(name=name, module=module, seed=seed, num_heads=num_heads, fill=fill,
                      convention=convention, dropout=dropout, x=x, context=context,
                      weights=weights, dropped=dropped))


def scaled_inputs(factor):
    return INPUTS * factor


torch.set_grad_enabled(False)

# Finite fills. Scale-first with fill f equals fill-first with f * sqrt(d_k), so "the other order"
# of a module is the same module with that fill. To tell the orders apart, the first token's
# embedding is put on the direction where a head's q . k is most negative (an eigenvector of
# (W_q^T W_k + W_k^T W_q) / 2) and scaled so that its only unmasked score lies between f * sqrt(d_k)
# and f: then the masked cells win in one order and the real one in the other.
def run(kind, fill, x):
    torch.manual_seed(123)
    if kind == "self-attention-v2":
        m = SelfAttention(3, 2, fill=fill)
        ctx, w = m(x)
        return ctx.unsqueeze(0), w.unsqueeze(0)
    if kind == "causal-attention":
        m = CausalAttention(3, 2, 6, 0.0, fill=fill)
        return m(x.unsqueeze(0)), m.last_weights.unsqueeze(1)
    if kind == "multi-head-wrapper":
        return MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2, fill=fill)(x.unsqueeze(0))
    if kind == "multi-head-attention":
        return MultiHeadAttention(3, 4, 6, 0.0, num_heads=2, fill=fill)(x.unsqueeze(0))
    if kind == "gpt2-attention":
        m = Gpt2Attention(3, 6, Gpt2Config(1, 0.0, 0.0), scale=True)
        m.masked_bias = torch.tensor(fill)
        a, _, w = m(x.unsqueeze(0), output_attentions=True)
        return a, w
    m = MultiHeadedAttention(1, 3, 0.0, fill=fill, convention=0)
    ctx = m(x.unsqueeze(0), x.unsqueeze(0), x.unsqueeze(0), subsequent_mask(6))
    return ctx, m.attention.weights


HEADS = {"self-attention-v2": 1, "causal-attention": 1, "multi-head-wrapper": 2,
         "multi-head-attention": 2, "bert-multi-head": 1, "gpt2-attention": 1}
FILL_FIRST = {"self-attention-v2", "causal-attention", "multi-head-wrapper",
              "multi-head-attention"}
D_K = 2.0  # every module here has head_dim 2, except BERT's and GPT-2's 3
def query_key_weights(kind):
    torch.manual_seed(123)
    if kind in ("self-attention-v2", "causal-attention"):
        m = SelfAttention(3, 2)
        return [(m.W_query.weight, m.W_key.weight)]
    if kind == "multi-head-wrapper":
        m = MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2)
        return [(h.W_query.weight, h.W_key.weight) for h in m.heads]
    if kind == "multi-head-attention":
        m = MultiHeadAttention(3, 4, 6, 0.0, num_heads=2)
        return [(m.W_query.weight[2 * h:2 * h + 2], m.W_key.weight[2 * h:2 * h + 2])
                for h in range(2)]
    if kind == "gpt2-attention":  # Conv1D: q = x . W[:, :nx], so W_q is its transpose
        m = Gpt2Attention(3, 6, Gpt2Config(1, 0.0, 0.0), scale=True)
        return [(m.c_attn.weight[:, :3].T, m.c_attn.weight[:, 3:6].T)]
    m = MultiHeadedAttention(1, 3, 0.0)
    return [(m.linear_layers[0].weight, m.linear_layers[1].weight)]


for kind in HEADS:
    d_k = 3.0 if kind in ("bert-multi-head", "gpt2-attention") else D_K
    eigen = []
    for wq, wk in query_key_weights(kind):
        qk = wq.T @ wk
        values, vectors = torch.linalg.eigh((qk + qk.T) / 2)
        eigen.append((values[0].item(), vectors[:, 0]))
    smallest, direction = min(eigen, key=lambda e: e[0])
    assert smallest < 0, f"{kind}: q . k is never negative"
    for fill in (-1e4, -1e9):
        other = fill * math.sqrt(d_k) if kind in FILL_FIRST else fill / math.sqrt(d_k)
        found = None
        for step in range(-10, 30):
            target = -abs(fill) * (1.0 + step / 100 * (math.sqrt(d_k) - 1.0) * 2)
            x = INPUTS.clone()
            x[0] = direction * math.sqrt(target / smallest)
            _, w = run(kind, fill, x)
            _, w_other = run(kind, other, x)
            if not torch.allclose(w, w_other, atol=1e-3):
                found = x
                break
        assert found is not None, f"no input separates the fill orders of {kind}, fill {fill:g}"
        ctx, w = run(kind, fill, found)
        add(f"{kind} fill {fill:g}", kind, 123, HEADS[kind], fill, 0, 0.0, found, ctx, w)
        # The tutorial's own inputs, where the order makes no difference.
        ctx, w = run(kind, fill, INPUTS)
        add(f"{kind} fill {fill:g} tutorial inputs", kind, 123, HEADS[kind], fill, 0, 0.0,
            INPUTS, ctx, w)

# NaN rows through dropout: the mask == 1 convention hides the last query's every key; with a
# -inf fill its weights are NaN, and dropout multiplies them, so they stay NaN (p = 1 included).
for p in (0.5, 1.0):
    for seed in (123, 7):
        torch.manual_seed(seed)
        bert = MultiHeadedAttention(1, 3, p, fill=-math.inf, convention=1)
        bert.train()
        ctx = bert(INPUTS.unsqueeze(0), INPUTS.unsqueeze(0), INPUTS.unsqueeze(0),
                   subsequent_mask(6))
        add(f"bert nan row p={p:g} seed {seed}", "bert-multi-head", seed, 1, -math.inf, 1, p,
            INPUTS, ctx, bert.attention.weights, bert.attention.dropped)

print("// Generated by tests/reference/fill_dropout_reference.py with PyTorch", torch.__version__)
print("// /usr/bin/python3 tests/reference/fill_dropout_reference.py > "
      "tests/reference/fill_dropout_reference.h")
print("#pragma once\n\n#include <limits>\n#include <vector>\n")
print("namespace fill_dropout_reference {\n")
print("inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();")
print("inline constexpr float kInf = std::numeric_limits<float>::infinity();\n")
print("struct Case {\n    const char* name;\n    const char* module;\n    unsigned seed;\n"
      "    int num_heads;\n    float fill;\n    int mask_convention;  // 0: mask == 0, 1: mask == 1\n"
      "    float dropout;\n    std::vector<float> embeddings;        // (6, 3)\n"
      "    std::vector<float> context_vecs;      // (1, 6, width)\n"
      "    std::vector<float> attn_weights;      // (1, H, 6, 6), before dropout\n"
      "    std::vector<float> attn_weights_after_dropout;  // empty without dropout\n};\n")
print("inline const std::vector<Case>& cases() {\n    static const std::vector<Case> all = {")
for c in cases:
    fill = cfloat(c["fill"])
    dropped = floats(c["dropped"]) if c["dropped"] is not None else "{}"
    print(f'        {{"{c["name"]}", "{c["module"]}", {c["seed"]}, {c["num_heads"]}, {fill}, '
          f'{c["convention"]}, {cfloat(c["dropout"])},\n         {floats(c["x"])},\n'
          f'         {floats(c["context"])},\n         {floats(c["weights"])},\n'
          f'         {dropped}}},')
print("    };\n    return all;\n}\n\n}  // namespace fill_dropout_reference")
