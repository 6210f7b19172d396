# Ten training steps of the text task in plain torch (GPT-2's operations as transformers'
# modeling_gpt2.py computes them, torch.nn.utils.clip_grad_norm_, torch.optim.AdamW), from the
# committed starting model tests/data/train/start (written by
#   attention-cli train --task text --text tests/data/train/text.txt --layers 2 --heads 2
#       --d-model 16 --seq-len 8 --steps 0 --save tests/data/train/start)
# on tests/data/train/text.txt, with --shuffle 0's windows: window k has inputs
# tokens[k*T .. k*T+T-1] and targets tokens[k*T+1 .. k*T+T] for every k with k*T+T < len(tokens),
# and batch i (step i+1) holds windows (i*B+b) mod count. Each step's loss is the loss before its
# update. Prints tests/reference/train_text_reference.h:
#   /usr/bin/python3 tests/reference/train_text_reference.py > tests/reference/train_text_reference.h
#   clang-format -i tests/reference/train_text_reference.h
import json
import math
import os
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "train")
START = os.path.join(DATA, "start")
SEQ_LEN, BATCH, STEPS = 8, 4, 10
LR, WEIGHT_DECAY, GRAD_CLIP = 0.01, 0.01, 0.5


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    body = data[8 + length :]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32"
        begin, end = info["data_offsets"]
        values = struct.unpack("<%df" % ((end - begin) // 4), body[begin:end])
        out[name] = torch.tensor(values, dtype=torch.float32).reshape(info["shape"])
    return out


def bytes_to_unicode():
    # GPT-2's encoder.py: printable bytes stand for themselves, the rest for U+0100 onwards.
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
    bs += list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def character_ids(text, vocab):
    # One token per character: the text is ASCII, so each character is one byte-level symbol.
    symbol = bytes_to_unicode()
    assert all(ord(c) < 128 for c in text)
    return [vocab[symbol[ord(c)]] for c in text]


def layer_norm(x, w, b, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, eps)


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def loss_of(p, cfg, inputs, targets):
    B, T = inputs.shape
    d, H = cfg["n_embd"], cfg["n_head"]
    hd = d // H
    eps = cfg["layer_norm_epsilon"]
    x = p["transformer.wte.weight"][inputs] + p["transformer.wpe.weight"][:T]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    for layer in range(cfg["n_layer"]):
        h = lambda name: p["transformer.h.%d.%s" % (layer, name)]
        a = layer_norm(x, h("ln_1.weight"), h("ln_1.bias"), eps)
        qkv = a @ h("attn.c_attn.weight") + h("attn.c_attn.bias")
        q, k, v = (t.view(B, T, H, hd).transpose(1, 2) for t in qkv.split(d, dim=2))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(hd)
        weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        context = (weights @ v).transpose(1, 2).reshape(B, T, d)
        x = x + context @ h("attn.c_proj.weight") + h("attn.c_proj.bias")
        m = layer_norm(x, h("ln_2.weight"), h("ln_2.bias"), eps)
        m = gelu_new(m @ h("mlp.c_fc.weight") + h("mlp.c_fc.bias"))
        x = x + m @ h("mlp.c_proj.weight") + h("mlp.c_proj.bias")
    x = layer_norm(x, p["transformer.ln_f.weight"], p["transformer.ln_f.bias"], eps)
    logits = x @ p["transformer.wte.weight"].T  # tied output head
    return torch.nn.functional.cross_entropy(logits.reshape(B * T, -1), targets.reshape(-1))


def main():
    with open(os.path.join(START, "config.json")) as f:
        cfg = json.load(f)
    assert not cfg.get("attn_only", False)
    with open(os.path.join(START, "vocab.json")) as f:
        vocab = json.load(f)
    with open(os.path.join(DATA, "text.txt"), encoding="utf-8") as f:
        tokens = character_ids(f.read(), vocab)
    params = read_safetensors(os.path.join(START, "model.safetensors"))
    for t in params.values():
        t.requires_grad_(True)
    optimizer = torch.optim.AdamW(
        list(params.values()), lr=LR, betas=(0.9, 0.999), eps=1e-8, weight_decay=WEIGHT_DECAY
    )
    count = (len(tokens) - 1) // SEQ_LEN
    losses = []
    for i in range(STEPS):
        windows = [(i * BATCH + b) % count for b in range(BATCH)]
        inputs = torch.tensor([tokens[k * SEQ_LEN : k * SEQ_LEN + SEQ_LEN] for k in windows])
        targets = torch.tensor([tokens[k * SEQ_LEN + 1 : k * SEQ_LEN + SEQ_LEN + 1] for k in windows])
        optimizer.zero_grad()
        loss = loss_of(params, cfg, inputs, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(params.values()), GRAD_CLIP)
        optimizer.step()
        losses.append(loss.item())

    print("// Generated by tests/reference/train_text_reference.py with PyTorch %s" % torch.__version__)
    print("// /usr/bin/python3 tests/reference/train_text_reference.py >")
    print("// tests/reference/train_text_reference.h && clang-format -i tests/reference/train_text_reference.h")
    print("#pragma once\n\n#include <vector>\n\nnamespace train_text_reference {\n")
    print("// attention-cli train --task text --text tests/data/train/text.txt --model")
    print("// tests/data/train/start --shuffle 0 with these settings: the loss of steps 1 .. %d." % STEPS)
    print("inline constexpr int kSeqLen = %d, kBatch = %d, kSteps = %d;" % (SEQ_LEN, BATCH, STEPS))
    print('inline constexpr const char* kLr = "%r";' % LR)
    print('inline constexpr const char* kWeightDecay = "%r";' % WEIGHT_DECAY)
    print('inline constexpr const char* kGradClip = "%r";' % GRAD_CLIP)
    print("inline constexpr int kWindows = %d;  // of %d tokens" % (count, len(tokens)))
    print("inline const std::vector<float> kLosses = {%s};" % ", ".join("%.9ef" % v for v in losses))
    print("\n}  // namespace train_text_reference")


if __name__ == "__main__":
    main()
