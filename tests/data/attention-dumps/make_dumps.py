#!/usr/bin/env python3
"""Writes the attention dumps tests/app/test_attention_dump.cpp opens, with NumPy's own writer.

    cd tests/data/attention-dumps && /usr/bin/python3 make_dumps.py

Values are powers of two (exact in float16 and float32) so the test states them as numbers,
except one float16 head of softmax(0..i), whose values this script prints.
The .safetensors file is written byte by byte (the format is an 8-byte little-endian header length,
a JSON header, the raw data) so the script needs numpy only.
"""
import json
import struct

import numpy as np

# A row that sums to 1; np.roll(ROW, 1) = [1/8, 1/2, 1/4, 1/8].
ROW = np.array([0.5, 0.25, 0.125, 0.125])


def bidirectional(layers, heads, t):
    """a[l, h, i] = ROW rolled by l + h + i (np.roll): every key attended, as an encoder (BERT)
    does."""
    a = np.zeros((layers, heads, t, t))
    for l in range(layers):
        for h in range(heads):
            for i in range(t):
                a[l, h, i] = np.roll(ROW, l + h + i)
    return a


def causal_rows(t, flip):
    """Row i spreads over keys 0..i: [1], [1/2, 1/2], [1/2, 1/4, 1/4], [1/2, 1/4, 1/8, 1/8];
    flip reverses them inside 0..i. Zero above the diagonal, as a decoder (GPT-2) gives."""
    prefixes = [[1.0], [0.5, 0.5], [0.5, 0.25, 0.25], [0.5, 0.25, 0.125, 0.125]]
    m = np.zeros((t, t))
    for i in range(t):
        p = prefixes[i][::-1] if flip else prefixes[i]
        m[i, : i + 1] = p
    return m


def softmax_causal(t):
    """Row i = softmax(0, 1, ..., i) over keys 0..i, zero after."""
    m = np.zeros((t, t))
    for i in range(t):
        e = np.exp(np.arange(i + 1, dtype=np.float64))
        m[i, : i + 1] = e / e.sum()
    return m


def write_tokens(path, tokens):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(tokens, f, ensure_ascii=False)
        f.write("\n")


def write_safetensors(path, tensors):
    """tensors: list of (name, float16 array), written in this order."""
    header, data = {}, b""
    for name, a in tensors:
        raw = np.ascontiguousarray(a, dtype="<f2").tobytes()
        header[name] = {"dtype": "F16", "shape": list(a.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


# 1. A BERT-like dump: float32 [layers 2, heads 3, 4, 4] and its tokens.
np.save("bert-like.npy", bidirectional(2, 3, 4).astype(np.float32))
write_tokens("bert-like.tokens.json", ["[CLS]", "猫", "sat", "[SEP]"])

# 2. One causal layer, float16 [heads 3, 4, 4], no tokens file: head 1 causal_rows, head 2 the same
#    flipped, head 3 softmax(0..i).
causal = np.stack([causal_rows(4, False), causal_rows(4, True), softmax_causal(4)])
np.save("causal-f16.npy", causal.astype(np.float16))
print("causal-f16.npy head 3 (float16 → float32, 9 digits):")
for row in causal[2].astype(np.float16).astype(np.float32):
    print("    " + ", ".join(f"{v:.9g}f" for v in row))

# 3. A batch of 1: float32 [1, layers 2, heads 2, 3, 3] (bidirectional's first 3 keys renormalised
#    are not powers of two, so rows are [1/2, 1/4, 1/4] rotated by l + h + i).
row3 = np.array([0.5, 0.25, 0.25])
batch = np.zeros((1, 2, 2, 3, 3))
for l in range(2):
    for h in range(2):
        for i in range(3):
            batch[0, l, h, i] = np.roll(row3, l + h + i)
np.save("batch1.npy", batch.astype(np.float32))
write_tokens("batch1.tokens.json", ["ĠThe", "Ġcat", "Ġsat"])

# 4. torch.stack(out.attentions) saved whole: [layers 2, batch 1, heads 2, 3, 3], same values.
np.save("stacked.npy", np.stack([batch[0, 0][None], batch[0, 1][None]]).astype(np.float32))

# 5. Decoding two new tokens after a prompt of 2: one tensor per layer, [1, heads 2, q 2, k 4], in
#    float16, saved as "layer.2" and "layer.10" (natural order: layer.2 first) plus a tokens object.
#    layer.2: head h, query i = ROW rotated by h + i; layer.10: the same rotated by one more.
def decoding(shift):
    return np.array([[[np.roll(ROW, shift + h + i) for i in range(2)] for h in range(2)]])


write_safetensors("decoding/attentions.safetensors",
                  [("layer.10", decoding(1)), ("layer.2", decoding(0))])
with open("decoding/tokens.json", "w", encoding="utf-8") as f:
    json.dump({"tokens": ["A", "B", "C", "D"]}, f)
    f.write("\n")
