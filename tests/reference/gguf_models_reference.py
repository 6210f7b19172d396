#!/usr/bin/python3
"""Three tiny GGUF models, one per architecture the loader reads (llama, qwen2, qwen3), written
with struct and numpy as llama.cpp's converter and quantizer lay them out, and their forward pass
as transformers computes it, for tests/app/test_gguf_model.cpp:

  /usr/bin/python3 tests/reference/gguf_models_reference.py > tests/reference/gguf_models_reference.h
  clang-format -i tests/reference/gguf_models_reference.h

writes tests/data/gguf/tiny-{llama,qwen2,qwen3}.gguf (GGUF v3, alignment 32) and prints the
reference. Independent of the C++ loader and of tests/support/gguf_writer.cpp:
- the weights are seeded numpy normals, quantized row by row into ggml's blocks (ggml-common.h:
  block_q4_0, block_q8_0, block_q4_K, block_q5_K, block_q6_K; any valid encoding would do), and
  the reference reads the values back from those bytes with ggml's dequantize_row_* formulas
  (ggml-quants.c) in float32, checked against tests/reference/quant_reference.py's block by block;
- the llama file stores Q and K with their rows permuted as convert_hf_to_gguf.py's
  LlamaModel.permute does (each head's rows (i, i + hd/2) made adjacent, K by its K/V heads), and
  Llama 3's rope scaling as rope_freqs.weight (LlamaModel.generate_extra_tensors' llama3 factors);
- the forward pass runs in float64 torch on the dequantized weights in Hugging Face's order (Q/K
  rows un-permuted): RMSNorm, rotate_half rotary with inv_freq = 1 / base^(2i/d) / rope_freqs in
  float32 (cos and sin in float32, then widened, as transformers), GQA by repeat_interleave,
  Qwen2's q/k/v biases, Qwen3's per-head RMSNorm of q and k before the rotation, causal mask,
  SwiGLU, the tied or separate head.
"""
import math
import os
import struct
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "data", "gguf")
ALIGNMENT = 32
IDS = [1, 45, 260, 7, 299, 45, 128]

# GGUF value types.
UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY = 4, 5, 6, 7, 8, 9
FORMATS = {UINT32: "<I", INT32: "<i", FLOAT32: "<f", BOOL: "<?"}
# ggml types: number, values per block, bytes per block.
GGML = {"F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q8_0": (8, 32, 34),
        "Q4_K": (12, 256, 144), "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210)}

# Each model: llama.cpp's architecture, its sizes, and the ggml type of every matrix.
MODELS = [
    # Llama 3 as llama.cpp converts it: GQA (4 query heads, 2 K/V heads of 64), a separate output
    # head, rope_freqs, Q and K permuted; K-quants wherever rows are 256 long.
    dict(name="llama", file="tiny-llama.gguf", arch="llama", pre="llama-bpe", seed=21, d=256,
         ff=256, heads=4, kv_heads=2, head_dim=64, key_length=False, base=500000.0, eps=1e-5,
         tied=False, rope_llama3=dict(factor=8.0, low=1.0, high=4.0, original=64),
         types=dict(token_embd="Q8_0", attn_q="Q4_K", attn_k="Q5_K", attn_v="Q6_K",
                    attn_output="Q8_0", ffn_gate="Q4_K", ffn_up="Q4_0", ffn_down="Q6_K",
                    output="Q6_K")),
    # Qwen2: q/k/v biases, the head tied to token_embd (no output.weight), rope base 1e6.
    dict(name="qwen2", file="tiny-qwen2.gguf", arch="qwen2", pre="qwen2", seed=22, d=64, ff=256,
         heads=4, kv_heads=2, head_dim=16, key_length=False, base=1000000.0, eps=1e-6, tied=True,
         types=dict(token_embd="Q8_0", attn_q="Q8_0", attn_k="Q8_0", attn_v="Q4_0",
                    attn_output="Q8_0", ffn_gate="Q8_0", ffn_up="Q4_0", ffn_down="Q6_K")),
    # Qwen3: attention.key_length 64 on a width of 128 with 4 heads (not 128 / 4), q and k norms,
    # an F16 token_embd that is also the head.
    dict(name="qwen3", file="tiny-qwen3.gguf", arch="qwen3", pre="qwen2", seed=23, d=128, ff=256,
         heads=4, kv_heads=2, head_dim=64, key_length=True, base=1000000.0, eps=1e-6, tied=True,
         types=dict(token_embd="F16", attn_q="Q8_0", attn_k="Q8_0", attn_v="Q8_0",
                    attn_output="Q4_K", ffn_gate="Q8_0", ffn_up="Q8_0", ffn_down="Q5_K")),
]
LAYERS, VOCAB, CONTEXT = 2, 300, 64


# ---- ggml's blocks: packing (any valid encoding) -------------------------------------------------

def f16(x):
    return np.asarray(x, np.float32).astype("<f2")


def half_bytes(h):  # (n,) float16 -> (n, 2) bytes
    return h.reshape(-1, 1).view(np.uint8)


def safe_div(a, b):
    return np.where(b != 0, a / np.where(b != 0, b, 1), 0)


def pack_q8_0(x):  # x (nb, 32)
    d = f16(np.abs(x).max(1) / 127)
    q = np.clip(np.rint(safe_div(x, d.astype(np.float32)[:, None])), -127, 127).astype(np.int8)
    return np.concatenate([half_bytes(d), q.view(np.uint8)], 1)


def pack_q4_0(x):  # x (nb, 32): d·(q - 8), q in [0, 15]
    d = f16(np.abs(x).max(1) / 8)
    q = np.clip(np.rint(safe_div(x, d.astype(np.float32)[:, None])) + 8, 0, 15).astype(np.uint8)
    return np.concatenate([half_bytes(d), q[:, :16] | (q[:, 16:] << 4)], 1)


def k_scales(x, levels):
    """Q4_K/Q5_K: 8 sub-blocks of 32, each value d·sc·q - dmin·m (6-bit sc and m)."""
    x = x.reshape(-1, 8, 32)
    lo = np.minimum(x.min(2), 0)
    scale = (x.max(2) - lo) / levels
    d, dmin = f16(scale.max(1) / 63), f16((-lo).max(1) / 63)
    sc = np.clip(np.rint(safe_div(scale, d.astype(np.float32)[:, None])), 0, 63).astype(np.uint8)
    m = np.clip(np.rint(safe_div(-lo, dmin.astype(np.float32)[:, None])), 0, 63).astype(np.uint8)
    d1 = d.astype(np.float32)[:, None] * sc
    m1 = dmin.astype(np.float32)[:, None] * m
    q = np.clip(np.rint(safe_div(x + m1[:, :, None], d1[:, :, None])), 0, levels).astype(np.uint8)
    packed = np.concatenate([sc[:, :4] | ((sc[:, 4:] >> 4) << 6), m[:, :4] | ((m[:, 4:] >> 4) << 6),
                             (sc[:, 4:] & 0xF) | ((m[:, 4:] & 0xF) << 4)], 1)
    return np.concatenate([half_bytes(d), half_bytes(dmin), packed], 1), q.reshape(-1, 4, 2, 32)


def pack_q4_k(x):  # x (nb, 256)
    head, q = k_scales(x, 15)
    return np.concatenate([head, (q[:, :, 0] | (q[:, :, 1] << 4)).reshape(-1, 128)], 1)


def pack_q5_k(x):
    head, q = k_scales(x, 31)
    qh = np.zeros((q.shape[0], 32), np.uint8)
    for j in range(4):
        for half in range(2):
            qh |= (q[:, j, half] >> 4) << (2 * j + half)
    ql = ((q[:, :, 0] & 0xF) | ((q[:, :, 1] & 0xF) << 4)).reshape(-1, 128)
    return np.concatenate([head, qh, ql], 1)


def pack_q6_k(x):  # 16 sub-blocks of 16, each d·sc·(q - 32), int8 sc, q in [0, 63]
    x = x.reshape(-1, 16, 16)
    scale = np.abs(x).max(2) / 31
    d = f16(scale.max(1) / 127)
    sc = np.clip(np.rint(safe_div(scale, d.astype(np.float32)[:, None])), -128, 127).astype(np.int8)
    step = d.astype(np.float32)[:, None] * sc
    q = np.clip(np.rint(safe_div(x, step[:, :, None])) + 32, 0, 63).astype(np.uint8)
    q = q.reshape(-1, 2, 4, 32)  # [n][k][l]: value 128n + 32k + l
    ql = np.concatenate([q[:, :, 0] & 0xF | ((q[:, :, 2] & 0xF) << 4),
                         q[:, :, 1] & 0xF | ((q[:, :, 3] & 0xF) << 4)], 2).reshape(-1, 128)
    qh = ((q[:, :, 0] >> 4) | ((q[:, :, 1] >> 4) << 2) | ((q[:, :, 2] >> 4) << 4) |
          ((q[:, :, 3] >> 4) << 6)).reshape(-1, 64)
    return np.concatenate([ql, qh, sc.view(np.uint8), half_bytes(d)], 1)


PACK = {"Q8_0": pack_q8_0, "Q4_0": pack_q4_0, "Q4_K": pack_q4_k, "Q5_K": pack_q5_k,
        "Q6_K": pack_q6_k}


# ---- ggml's dequantize_row_*: values from the bytes, float32 operation by operation -----------

def h2f(b):  # (nb, 2) bytes -> (nb, 1) float32
    return np.ascontiguousarray(b).view("<f2").astype(np.float32)


def dequant_q8_0(b):
    return b[:, 2:34].view(np.int8).astype(np.float32) * h2f(b[:, 0:2])


def dequant_q4_0(b):
    qs = b[:, 2:18].astype(np.int32)
    x = np.concatenate([(qs & 0xF) - 8, (qs >> 4) - 8], 1).astype(np.float32)
    return x * h2f(b[:, 0:2])


def dequant_k(b, five):
    d, dmin, s = h2f(b[:, 0:2]), h2f(b[:, 2:4]), b[:, 4:16].astype(np.int32)
    sc = np.concatenate([s[:, 0:4] & 63, (s[:, 8:12] & 0xF) | ((s[:, 0:4] >> 6) << 4)], 1)
    m = np.concatenate([s[:, 4:8] & 63, (s[:, 8:12] >> 4) | ((s[:, 4:8] >> 6) << 4)], 1)
    ql = (b[:, 48:176] if five else b[:, 16:144]).astype(np.int32).reshape(-1, 4, 1, 32)
    q = (ql >> np.array([0, 4]).reshape(1, 1, 2, 1)) & 0xF  # [j][half][l]
    if five:
        qh = b[:, 16:48].astype(np.int32).reshape(-1, 1, 1, 32)
        bit = (2 * np.arange(4).reshape(1, 4, 1, 1) + np.arange(2).reshape(1, 1, 2, 1))
        q = q + 16 * ((qh >> bit) & 1)
    q = q.reshape(-1, 8, 32).astype(np.float32)
    d1 = (d * sc.astype(np.float32))[:, :, None]
    m1 = (dmin * m.astype(np.float32))[:, :, None]
    return (d1 * q - m1).reshape(-1, 256)


def dequant_q6_k(b):
    ql, qh = b[:, 0:128].astype(np.int32), b[:, 128:192].astype(np.int32)
    sc, d = b[:, 192:208].view(np.int8).astype(np.float32), h2f(b[:, 208:210])
    y = np.zeros((b.shape[0], 256), np.float32)
    for n in range(2):
        lo, hi = ql[:, 64 * n:64 * n + 32], ql[:, 64 * n + 32:64 * n + 64]
        h = qh[:, 32 * n:32 * n + 32]
        qs = [(lo & 0xF) | (((h >> 0) & 3) << 4), (hi & 0xF) | (((h >> 2) & 3) << 4),
              (lo >> 4) | (((h >> 4) & 3) << 4), (hi >> 4) | (((h >> 6) & 3) << 4)]
        for k, q in enumerate(qs):  # d * sc[is] * q, left to right; is = the 16-value sub-block
            at = 128 * n + 32 * k
            s = np.repeat(sc[:, at // 16:at // 16 + 2], 16, axis=1)
            y[:, at:at + 32] = (d * s) * (q - 32).astype(np.float32)
    return y


DEQUANT = {"Q8_0": dequant_q8_0, "Q4_0": dequant_q4_0, "Q4_K": lambda b: dequant_k(b, False),
           "Q5_K": lambda b: dequant_k(b, True), "Q6_K": dequant_q6_k}


def encode(values, type_name):
    """A (rows, cols) float32 matrix (or 1-d) as the tensor's bytes and the values they hold."""
    if type_name == "F32":
        v = values.astype("<f4")
        return v.tobytes(), v.astype(np.float32)
    if type_name == "F16":
        v = values.astype("<f2")
        return v.tobytes(), v.astype(np.float32)
    _, block, size = GGML[type_name]
    blocks = PACK[type_name](values.reshape(-1, block).astype(np.float32))
    assert blocks.shape[1] == size and blocks.dtype == np.uint8
    return blocks.tobytes(), DEQUANT[type_name](blocks).reshape(values.shape)


def check_dequantizers():
    """The vectorised dequantizers against quant_reference.py's block-by-block ones."""
    sys.path.insert(0, HERE)
    import quant_reference as qr
    rng = np.random.default_rng(5)
    for name, (_, block, _) in GGML.items():
        if block == 1:
            continue
        packed = PACK[name](rng.normal(0, 0.3, (6, block)).astype(np.float32))
        ours = DEQUANT[name](packed)
        for i in range(packed.shape[0]):
            assert np.array_equal(ours[i], qr.dequant_block(name, packed[i])), name


# ---- the models --------------------------------------------------------------------------------

def llama_permute(w, n_head, n_head_kv):
    """convert_hf_to_gguf.py's LlamaModel.permute (K with n_head_kv heads)."""
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return (w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def llama_unpermute(w, n_head):
    return w.reshape(n_head, w.shape[0] // n_head // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(
        w.shape)


def llama3_factors(m):
    """LlamaModel.generate_extra_tensors: rope_freqs for rope_type llama3."""
    r, dim = m["rope_llama3"], m["head_dim"]
    freqs = 1.0 / (m["base"] ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    low_wavelen, high_wavelen = r["original"] / r["low"], r["original"] / r["high"]
    factors = []
    for freq in freqs.tolist():
        wavelen = 2 * math.pi / freq
        if wavelen < high_wavelen:
            factors.append(1)
        elif wavelen > low_wavelen:
            factors.append(r["factor"])
        else:
            smooth = (r["original"] / wavelen - r["low"]) / (r["high"] - r["low"])
            factors.append(1 / ((1 - smooth) / r["factor"] + smooth))
    return np.array(factors, np.float32)


def draw(m):
    """Float32 weights in Hugging Face's layout ((out, in) matrices), llama.cpp's names."""
    rng = np.random.default_rng(m["seed"])
    D, F, H, G, hd = m["d"], m["ff"], m["heads"], m["kv_heads"], m["head_dim"]

    def normal(shape, mean, std):
        return rng.normal(mean, std, shape).astype(np.float32)

    w = {"token_embd.weight": normal((VOCAB, D), 0.0, 1.0)}
    for layer in range(LAYERS):
        p = "blk.%d." % layer
        w[p + "attn_norm.weight"] = normal((D,), 1.0, 0.1)
        w[p + "attn_q.weight"] = normal((H * hd, D), 0.0, 1.0 / math.sqrt(D))
        w[p + "attn_k.weight"] = normal((G * hd, D), 0.0, 1.0 / math.sqrt(D))
        w[p + "attn_v.weight"] = normal((G * hd, D), 0.0, 1.0 / math.sqrt(D))
        if m["arch"] == "qwen2":
            w[p + "attn_q.bias"] = normal((H * hd,), 0.0, 0.3)
            w[p + "attn_k.bias"] = normal((G * hd,), 0.0, 0.3)
            w[p + "attn_v.bias"] = normal((G * hd,), 0.0, 0.3)
        if m["arch"] == "qwen3":
            w[p + "attn_q_norm.weight"] = normal((hd,), 1.0, 0.1)
            w[p + "attn_k_norm.weight"] = normal((hd,), 1.0, 0.1)
        w[p + "attn_output.weight"] = normal((D, H * hd), 0.0, 1.0 / math.sqrt(H * hd))
        w[p + "ffn_norm.weight"] = normal((D,), 1.0, 0.1)
        w[p + "ffn_gate.weight"] = normal((F, D), 0.0, 1.0 / math.sqrt(D))
        w[p + "ffn_up.weight"] = normal((F, D), 0.0, 1.0 / math.sqrt(D))
        w[p + "ffn_down.weight"] = normal((D, F), 0.0, 1.0 / math.sqrt(F))
    w["output_norm.weight"] = normal((D,), 1.0, 0.1)
    if not m["tied"]:
        w["output.weight"] = normal((VOCAB, D), 0.0, 1.0 / math.sqrt(D))
    return w


def type_of(m, name):
    if name.endswith(".bias") or "norm" in name:
        return "F32"
    return m["types"][name.split(".")[-2]]


def bytes_to_unicode():
    """GPT-2's byte-to-symbol table, in its order (the first 256 tokens of a byte-level vocab)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for c in cs]


MERGES = ["Ġ t", "h e", "Ġ a", "i n", "Ġt he", "e r", "o n", "Ġ s", "r e", "a t", "e n", "o r",
          "Ġ w", "Ġ c", "i s", "i t", "Ġ o", "Ġ b", "e s", "a n", "Ġ f", "Ġ p", "in g", "Ġ m",
          "a l", "Ġ d", "o u", "l e", "a r", "e d", "Ġ h", "i c", "a s", "Ġ l", "o m", "Ġo f",
          "Ġa n", "Ġan d", "Ġ i", "Ġ n", "i on", "Ġt o", "l l"]
TOKENS = bytes_to_unicode() + [a.replace(" ", "") for a in MERGES] + ["<|endoftext|>"]
TOKEN_TYPES = [1] * (len(TOKENS) - 1) + [3]
assert len(TOKENS) == VOCAB and len(set(TOKENS)) == VOCAB


def gguf_string(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def gguf_value(vtype, value):
    if vtype == STRING:
        return gguf_string(value)
    if vtype == ARRAY:
        etype, items = value
        return struct.pack("<IQ", etype, len(items)) + b"".join(gguf_value(etype, v) for v in items)
    return struct.pack(FORMATS[vtype], value)


def metadata(m):
    a = m["arch"]
    kv = [("general.architecture", STRING, a), ("general.name", STRING, "tiny " + m["name"]),
          ("general.alignment", UINT32, ALIGNMENT),
          (a + ".context_length", UINT32, CONTEXT), (a + ".embedding_length", UINT32, m["d"]),
          (a + ".block_count", UINT32, LAYERS), (a + ".feed_forward_length", UINT32, m["ff"]),
          (a + ".attention.head_count", UINT32, m["heads"]),
          (a + ".attention.head_count_kv", UINT32, m["kv_heads"]),
          (a + ".attention.layer_norm_rms_epsilon", FLOAT32, m["eps"]),
          (a + ".rope.freq_base", FLOAT32, m["base"])]
    if m["key_length"]:
        kv += [(a + ".attention.key_length", UINT32, m["head_dim"]),
               (a + ".attention.value_length", UINT32, m["head_dim"])]
    kv += [("tokenizer.ggml.model", STRING, "gpt2"), ("tokenizer.ggml.pre", STRING, m["pre"]),
           ("tokenizer.ggml.tokens", ARRAY, (STRING, TOKENS)),
           ("tokenizer.ggml.token_type", ARRAY, (INT32, TOKEN_TYPES)),
           ("tokenizer.ggml.merges", ARRAY, (STRING, MERGES)),
           ("tokenizer.ggml.bos_token_id", UINT32, VOCAB - 1),
           ("tokenizer.ggml.eos_token_id", UINT32, VOCAB - 1),
           ("tokenizer.ggml.add_bos_token", BOOL, False)]
    return kv


def align(n):
    return (n + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


def write_gguf(path, kv, tensors):
    """tensors: (name, numpy shape, type name, bytes); GGUF lists dims innermost first."""
    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv)))
    for key, vtype, value in kv:
        out += gguf_string(key) + struct.pack("<I", vtype) + gguf_value(vtype, value)
    offset, data = 0, bytearray()
    for name, shape, type_name, raw in tensors:
        out += gguf_string(name) + struct.pack("<I", len(shape))
        out += b"".join(struct.pack("<Q", d) for d in reversed(shape))
        out += struct.pack("<IQ", GGML[type_name][0], offset)
        data += raw + bytes(align(len(raw)) - len(raw))
        offset = len(data)
    out += bytes(align(len(out)) - len(out)) + data
    with open(path, "wb") as f:
        f.write(out)
    return len(out)


def build(m):
    """Writes the model's file; returns the dequantized weights in Hugging Face's order and the
    matrices' dtype text as the loader names it (types by bytes, most first)."""
    w = draw(m)
    tensors, values, type_bytes = [], {}, {}
    if "rope_llama3" in m:
        factors = llama3_factors(m)
        tensors.append(("rope_freqs.weight", factors.shape, "F32", factors.tobytes()))
        values["rope_freqs.weight"] = factors
    for name, hf in w.items():
        role = name.split(".")[-2]
        permuted = m["arch"] == "llama" and role in ("attn_q", "attn_k") and hf.ndim == 2
        kv = m["heads"] if role == "attn_q" else m["kv_heads"]
        stored = llama_permute(hf, m["heads"], kv) if permuted else hf
        type_name = type_of(m, name)
        raw, deq = encode(stored, type_name)
        if permuted:  # the reference computes in Hugging Face's row order
            assert np.array_equal(llama_unpermute(stored, kv), hf)
            deq = llama_unpermute(deq, kv)
        tensors.append((name, stored.shape, type_name, raw))
        values[name] = deq
        if stored.ndim == 2:
            type_bytes[type_name] = type_bytes.get(type_name, 0) + len(raw)
    size = write_gguf(os.path.join(OUT_DIR, m["file"]), metadata(m), tensors)
    dtype = " + ".join(sorted(type_bytes, key=lambda t: -type_bytes[t]))
    return {k: torch.from_numpy(v).double() for k, v in values.items()}, dtype, size


def rms_norm(x, weight, eps):
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def forward(m, w, ids):
    H, G, hd = m["heads"], m["kv_heads"], m["head_dim"]
    eps = float(np.float32(m["eps"]))  # the file's float32
    T = len(ids)
    h = w["token_embd.weight"][torch.tensor(ids)]
    inv_freq = 1.0 / (float(np.float32(m["base"])) **
                      (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    if "rope_freqs.weight" in w:
        inv_freq = inv_freq / w["rope_freqs.weight"].float()
    freqs = torch.outer(torch.arange(T).float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().double(), emb.sin().double()
    mask = torch.arange(T).view(1, T) > torch.arange(T).view(T, 1)
    attentions, qk = [], []
    for layer in range(LAYERS):
        l = {k[len("blk.%d." % layer):]: v for k, v in w.items()
             if k.startswith("blk.%d." % layer)}
        a = rms_norm(h, l["attn_norm.weight"], eps)
        q, k, v = a @ l["attn_q.weight"].T, a @ l["attn_k.weight"].T, a @ l["attn_v.weight"].T
        if "attn_q.bias" in l:
            q, k, v = q + l["attn_q.bias"], k + l["attn_k.bias"], v + l["attn_v.bias"]
        q, k, v = q.view(T, H, hd), k.view(T, G, hd), v.view(T, G, hd)
        if "attn_q_norm.weight" in l:
            q = rms_norm(q, l["attn_q_norm.weight"], eps)
            k = rms_norm(k, l["attn_k_norm.weight"], eps)
        q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        qk.append((q.transpose(0, 1).reshape(T, H * hd), k.transpose(0, 1).reshape(T, G * hd)))
        k = k.repeat_interleave(H // G, dim=0)
        v = v.repeat_interleave(H // G, dim=0)
        scores = (q @ k.transpose(1, 2)) / math.sqrt(hd)
        weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        attentions.append(weights)
        h = h + (weights @ v).transpose(0, 1).reshape(T, H * hd) @ l["attn_output.weight"].T
        x = rms_norm(h, l["ffn_norm.weight"], eps)
        gated = torch.nn.functional.silu(x @ l["ffn_gate.weight"].T) * (x @ l["ffn_up.weight"].T)
        h = h + gated @ l["ffn_down.weight"].T
    head = w.get("output.weight", w["token_embd.weight"])
    return torch.stack(attentions), qk[0], rms_norm(h, w["output_norm.weight"], eps) @ head.T


def floats(t):
    """Ten significant digits: far below the test's tolerances, half the header's size."""
    return ", ".join("%.10g" % x for x in t.flatten().tolist())


def main():
    check_dequantizers()
    os.makedirs(OUT_DIR, exist_ok=True)
    print("// Generated by tests/reference/gguf_models_reference.py with PyTorch %s, numpy %s."
          % (torch.__version__, np.__version__))
    print("// Regenerate with (it also writes tests/data/gguf/tiny-*.gguf):")
    print("//   /usr/bin/python3 tests/reference/gguf_models_reference.py >")
    print("//   tests/reference/gguf_models_reference.h")
    print("// and clang-format -i it.")
    print("#pragma once\n\n#include <vector>\n\nnamespace gguf_models_reference {\n")
    print("struct Model {\n    const char* name;\n    const char* file;  // in tests/data/gguf")
    print("    const char* dtype;  // the matrices' ggml types, most bytes first")
    print("    long long file_size;")
    print("    // [layer][head] row-major (T, T) flattened in that order; logits (T, vocab) "
          "row-major.")
    print("    // Layer 0's queries (T, H·hd) and keys (T, G·hd) after the rotation, Hugging Face's "
          "order.")
    print("    std::vector<double> attentions, queries, keys, logits;\n};\n")
    print("inline const std::vector<int> kIds = {" + ", ".join(str(i) for i in IDS) + "};\n")
    print("inline const std::vector<Model> kModels = {")
    for m in MODELS:
        w, dtype, size = build(m)
        attentions, (queries, keys), logits = forward(m, w, IDS)
        print("    {\"%s\", \"%s\", \"%s\", %d," % (m["name"], m["file"], dtype, size))
        print("     {" + floats(attentions) + "},")
        print("     {" + floats(queries) + "},")
        print("     {" + floats(keys) + "},")
        print("     {" + floats(logits) + "}},")
    print("};\n\n}  // namespace gguf_models_reference")


if __name__ == "__main__":
    main()
