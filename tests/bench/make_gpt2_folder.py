#!/usr/bin/python3
"""Writes a GPT-2-shaped Hugging Face folder with random weights, for torch_bench.py.

    /usr/bin/python3 tests/bench/make_gpt2_folder.py /tmp/gpt2-small

gives config.json, model.safetensors (F32) and GPT-2's real tokenizer (vocab.json + merges.txt
copied from tests/data/gpt2-tokenizer), about 500 MB at the default GPT-2 small shape
(12 layers, 12 heads, width 768, 1024 positions, 50257 tokens). The weights follow GPT-2's own
initialisation (N(0, 0.02), residual projections scaled by 1/sqrt(2 n_layer), LayerNorm weight 1,
biases 0), so activations and logits have realistic scales and the top tokens are not ties.
Only numpy is needed; the same seed writes the same bytes.
"""

import argparse
import json
import os
import shutil
import struct
import sys

import numpy as np

TOKENIZER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                             "gpt2-tokenizer")


def gpt2_tensors(layers, heads, d_model, positions, vocab, seed):
    """(name, float32 array) in Hugging Face's GPT-2 names; Conv1D weights are (in, out)."""
    if d_model % heads != 0:
        sys.exit(f"make_gpt2_folder: --d-model {d_model} is not a multiple of --heads {heads}")
    rng = np.random.default_rng(seed)
    D = d_model

    def normal(shape, std):
        return (rng.standard_normal(shape, dtype=np.float32) * np.float32(std))

    ones = lambda n: np.ones(n, dtype=np.float32)
    zeros = lambda n: np.zeros(n, dtype=np.float32)
    # GPT-2 scales the projections that add into the residual stream by 1/sqrt(2 n_layer).
    resid_std = 0.02 / np.sqrt(2 * layers)
    yield "wte.weight", normal((vocab, D), 0.02)
    yield "wpe.weight", normal((positions, D), 0.01)
    for l in range(layers):
        p = f"h.{l}."
        yield p + "ln_1.weight", ones(D)
        yield p + "ln_1.bias", zeros(D)
        yield p + "attn.c_attn.weight", normal((D, 3 * D), 0.02)
        yield p + "attn.c_attn.bias", zeros(3 * D)
        yield p + "attn.c_proj.weight", normal((D, D), resid_std)
        yield p + "attn.c_proj.bias", zeros(D)
        yield p + "ln_2.weight", ones(D)
        yield p + "ln_2.bias", zeros(D)
        yield p + "mlp.c_fc.weight", normal((D, 4 * D), 0.02)
        yield p + "mlp.c_fc.bias", zeros(4 * D)
        yield p + "mlp.c_proj.weight", normal((4 * D, D), resid_std)
        yield p + "mlp.c_proj.bias", zeros(D)
    yield "ln_f.weight", ones(D)
    yield "ln_f.bias", zeros(D)


def write_safetensors(path, tensors):
    """8-byte little-endian header length, JSON header padded to 8 bytes, raw little-endian data."""
    header, offset = {}, 0
    for name, a in tensors:
        nbytes = a.size * 4
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for _, a in tensors:
            f.write(np.ascontiguousarray(a, dtype="<f4").tobytes())
    os.replace(tmp, path)
    return offset


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--d-model", type=int, default=768)
    ap.add_argument("--positions", type=int, default=1024)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.vocab != 50257:
        print("make_gpt2_folder: warning: the copied GPT-2 tokenizer has 50257 tokens; ids beyond "
              f"--vocab {args.vocab} cannot be used", file=sys.stderr)

    os.makedirs(args.out_dir, exist_ok=True)
    tensors = list(gpt2_tensors(args.layers, args.heads, args.d_model, args.positions,
                                args.vocab, args.seed))
    nbytes = write_safetensors(os.path.join(args.out_dir, "model.safetensors"), tensors)
    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"],
              "n_layer": args.layers, "n_head": args.heads, "n_embd": args.d_model,
              "n_positions": args.positions, "n_ctx": args.positions, "vocab_size": args.vocab,
              "n_inner": None, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new",
              "tie_word_embeddings": True, "bos_token_id": 50256, "eos_token_id": 50256}
    with open(os.path.join(args.out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    for name in ("vocab.json", "merges.txt"):
        shutil.copy(os.path.join(TOKENIZER_DIR, name), args.out_dir)
    params = sum(a.size for _, a in tensors)
    print(json.dumps({"out_dir": args.out_dir, "parameters": int(params),
                      "safetensors_bytes": nbytes, "tensors": len(tensors)}))


if __name__ == "__main__":
    main()
