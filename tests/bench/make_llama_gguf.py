# Writes a LLaMA-shaped GGUF file with random F16 weights and a SentencePiece-style vocabulary of
# placeholder pieces, the yardstick model of docs/performance.md: quantize it with llama.cpp's
# llama-quantize (Q8_0, Q4_K_M), then time attention-cli and llama-bench on the same files.
# The default shape is TinyLlama-1.1B's (2048 wide, 22 layers, 32 query and 4 K/V heads, 5632,
# 32000 tokens). Only numpy:
#   /usr/bin/python3 tests/bench/make_llama_gguf.py /tmp/tinyllama-f16.gguf
#   [--layers 22 --d-model 2048 --heads 32 --kv-heads 4 --d-ff 5632 --vocab 32000 --seed 0]
import argparse
import struct

import numpy as np

STRING, ARRAY, UINT32, FLOAT32, BOOL, INT32 = 8, 9, 4, 6, 7, 5
F32, F16 = 0, 1
ALIGN = 32


def w_string(out, s):
    b = s.encode("utf-8")
    out += struct.pack("<Q", len(b)) + b


def w_value(out, kind, value):
    out += struct.pack("<I", kind)
    if kind == STRING:
        w_string(out, value)
    elif kind == UINT32:
        out += struct.pack("<I", value)
    elif kind == INT32:
        out += struct.pack("<i", value)
    elif kind == FLOAT32:
        out += struct.pack("<f", value)
    elif kind == BOOL:
        out += struct.pack("<?", value)
    elif kind == ARRAY:
        element, items = value
        out += struct.pack("<IQ", element, len(items))
        if element == STRING:
            for s in items:
                w_string(out, s)
        else:
            fmt = {UINT32: "<I", INT32: "<i", FLOAT32: "<f"}[element]
            out += np.asarray(items, dtype=np.dtype(fmt)).tobytes()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("path")
    p.add_argument("--layers", type=int, default=22)
    p.add_argument("--d-model", type=int, default=2048)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=4)
    p.add_argument("--d-ff", type=int, default=5632)
    p.add_argument("--vocab", type=int, default=32000)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    d, hd = a.d_model, a.d_model // a.heads

    # <unk>, <s>, </s>, the 256 byte tokens, then placeholder pieces with falling scores.
    tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % i for i in range(256)]
    types = [2, 3, 3] + [6] * 256
    letters = "abcdefghijklmnopqrstuvwxyz"
    i = 0
    while len(tokens) < a.vocab:
        piece, n = "", i
        while True:
            piece += letters[n % 26]
            n //= 26
            if n == 0:
                break
        tokens.append(("▁" if i % 2 == 0 else "") + piece)
        types.append(1)
        i += 1
    scores = [0.0] * 259 + [-float(k) for k in range(a.vocab - 259)]

    meta = [
        ("general.architecture", STRING, "llama"),
        ("general.name", STRING, "random-llama"),
        ("general.alignment", UINT32, ALIGN),
        ("llama.context_length", UINT32, 2048),
        ("llama.embedding_length", UINT32, d),
        ("llama.block_count", UINT32, a.layers),
        ("llama.feed_forward_length", UINT32, a.d_ff),
        ("llama.rope.dimension_count", UINT32, hd),
        ("llama.attention.head_count", UINT32, a.heads),
        ("llama.attention.head_count_kv", UINT32, a.kv_heads),
        ("llama.attention.layer_norm_rms_epsilon", FLOAT32, 1e-5),
        ("llama.rope.freq_base", FLOAT32, 10000.0),
        ("general.file_type", UINT32, 1),
        ("tokenizer.ggml.model", STRING, "llama"),
        ("tokenizer.ggml.tokens", ARRAY, (STRING, tokens)),
        ("tokenizer.ggml.scores", ARRAY, (FLOAT32, scores)),
        ("tokenizer.ggml.token_type", ARRAY, (INT32, types)),
        ("tokenizer.ggml.bos_token_id", UINT32, 1),
        ("tokenizer.ggml.eos_token_id", UINT32, 2),
        ("tokenizer.ggml.unknown_token_id", UINT32, 0),
        ("tokenizer.ggml.add_bos_token", BOOL, True),
    ]
    # (name, shape as ggml lists it: innermost first, std); 2-d weights F16, norms F32.
    tensors = [("token_embd.weight", (d, a.vocab), 0.02)]
    for l in range(a.layers):
        b = "blk.%d." % l
        tensors += [
            (b + "attn_norm.weight", (d,), None),
            (b + "attn_q.weight", (d, d), 0.02),
            (b + "attn_k.weight", (d, a.kv_heads * hd), 0.02),
            (b + "attn_v.weight", (d, a.kv_heads * hd), 0.02),
            (b + "attn_output.weight", (d, d), 0.02),
            (b + "ffn_norm.weight", (d,), None),
            (b + "ffn_gate.weight", (d, a.d_ff), 0.02),
            (b + "ffn_up.weight", (d, a.d_ff), 0.02),
            (b + "ffn_down.weight", (a.d_ff, d), 0.02),
        ]
    tensors += [("output_norm.weight", (d,), None), ("output.weight", (d, a.vocab), 0.02)]

    head = bytearray(b"GGUF") + struct.pack("<IQQ", 3, len(tensors), len(meta))
    for key, kind, value in meta:
        w_string(head, key)
        w_value(head, kind, value)
    offset, infos = 0, []
    for name, shape, std in tensors:
        kind = F32 if std is None else F16
        nbytes = int(np.prod(shape)) * (4 if kind == F32 else 2)
        w_string(head, name)
        head += struct.pack("<I", len(shape)) + struct.pack("<%dQ" % len(shape), *shape)
        head += struct.pack("<IQ", kind, offset)
        infos.append((shape, std, kind))
        offset += (nbytes + ALIGN - 1) // ALIGN * ALIGN
    head += b"\0" * ((-len(head)) % ALIGN)
    with open(a.path, "wb") as f:
        f.write(head)
        for shape, std, kind in infos:
            if std is None:
                data = (1.0 + 0.1 * rng.standard_normal(shape[::-1], dtype=np.float32)).astype("<f4")
            else:
                data = (std * rng.standard_normal(shape[::-1], dtype=np.float32)).astype("<f2")
            raw = data.tobytes()
            f.write(raw + b"\0" * ((-len(raw)) % ALIGN))


if __name__ == "__main__":
    main()
