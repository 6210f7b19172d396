#!/usr/bin/python3
"""PyTorch yardstick for attention-cli: the same GPT-2 computations, timed in plain PyTorch.

What it measures (float32, one thread unless --threads N, torch.inference_mode()):
  forward   one GPT-2 forward pass over T token ids producing the LAST position's logits only
            (final LayerNorm, then the tied lm_head = wte on the last row), its top-5 ids and
            probabilities: what `attention-cli forward --summary` computes and times.
  generate  greedy decoding with a KV cache per layer: the prompt in one pass (not timed), then
            N new tokens timed alone -> tokens_per_second, as `attention-cli generate` reports.
  layer     one causal multi-head attention layer (width 768, 12 heads of 64, fused q/k/v
            projection without bias, causal softmax, out projection with bias): the tutorial's
            MultiHeadAttention on torch.rand(T, 768) after torch.manual_seed(123), the very input
            and parameters `attention-cli compute --module multi-head-attention --random-tokens T
            --summary` draws and times (their output checksums must match).
  train     one training step of the Train window's presets (attn-only-2l: 2 layers, 8 heads,
            d_model 64, vocab 64, T 40; gpt-2l: 2 layers, 4 heads, d_model 64, d_ff 256, vocab
            64, T 64; batch 8): zero_grad, forward, mean cross-entropy, backward, AdamW, on the
            weights attn::init_gpt2 draws with seed 0 and attention-bench's token batch. With
            --bench build/bin/attention-bench it also runs BM_TrainStep/<preset> there, checks
            that both start from the same loss, and prints the table of times.
  compare   runs forward, generate and layer and their attention-cli counterparts on the same inputs
            (the same token ids, the same prompt ids), checks that both sides agree (top-5 ids,
            greedy new ids), and prints a markdown table of the times.

Every attention implementation PyTorch 1.13 offers on the CPU is tried (manual matmul/softmax,
baddbmm with an additive mask, torch.nn.functional._scaled_dot_product_attention with is_causal
or a mask, F.multi_head_attention_forward, torch._native_multi_head_attention, and for decoding
torch._native_decoder_only_multi_head_attention, a torch.cat or a preallocated KV cache, GEMM or
GEMV projections), plus TorchScript trace, freeze and optimize_for_inference of the whole model
for the forward pass; each variant is checked against the manual one before it is timed, and the
fastest is reported. Times are best-of-R and median of R runs after one warm-up run, weights in
memory; attention-cli is timed the same way (its --repeat R: a first pass, then R more in the
process), and its first passes are shown apart.

It is a yardstick run by hand, never by CI. Use Debian's Python, which has torch:

    /usr/bin/python3 tests/bench/make_gpt2_folder.py /tmp/gpt2-small
    /usr/bin/python3 tests/bench/torch_bench.py compare --model /tmp/gpt2-small \
        --cli build/bin/attention-cli

Each subcommand prints one JSON object on stdout; compare also prints its table (and progress)
on stderr. No transformers library is needed: GPT-2 is written here in plain torch operations,
with Hugging Face's names and Conv1D layout (y = x @ W + b, W is (in, out)).
"""

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np
import torch
import torch.nn.functional as F

END_OF_TEXT = 50256


def log(*args):
    print(*args, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Loading: config.json + model.safetensors (F32, F16, BF16) parsed with numpy.

def read_safetensors(path):
    """{name: float32 torch tensor}; offsets and sizes are checked before the data is used."""
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        sys.exit(f"torch_bench: {path} is shorter than the 8-byte safetensors header length")
    header_len = int.from_bytes(blob[:8], "little")
    if 8 + header_len > len(blob):
        sys.exit(f"torch_bench: {path}: header length {header_len} runs past the file's end")
    header = json.loads(blob[8:8 + header_len])
    data = memoryview(blob)[8 + header_len:]
    dtypes = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] not in dtypes:
            sys.exit(f"torch_bench: {name} has dtype {info['dtype']}: only F32, F16, BF16 are read")
        begin, end = info["data_offsets"]
        count = int(np.prod(info["shape"], dtype=np.int64))
        item = np.dtype(dtypes[info["dtype"]]).itemsize
        if end - begin != count * item or end > len(data):
            sys.exit(f"torch_bench: {name}: data_offsets {begin}..{end} do not hold shape "
                     f"{info['shape']} of {info['dtype']} inside the file")
        a = np.frombuffer(data[begin:end], dtype=dtypes[info["dtype"]]).reshape(info["shape"])
        if info["dtype"] == "BF16":
            a = (a.astype(np.uint32) << 16).view(np.float32)
        # A copy: the weights live in their own (aligned, writable) memory, as after loading.
        tensors[name] = torch.from_numpy(np.array(a, dtype=np.float32))
    return tensors


def load_gpt2(model_dir):
    with open(os.path.join(model_dir, "config.json")) as f:
        config = json.load(f)
    if config.get("model_type") != "gpt2":
        sys.exit(f"torch_bench: {model_dir}/config.json has model_type "
                 f"{config.get('model_type')!r}: give a GPT-2 folder")
    act = config.get("activation_function", "gelu_new")
    if act not in ("gelu_new", "gelu_pytorch_tanh"):
        sys.exit(f"torch_bench: activation_function {act!r}: only gelu_new is implemented")
    weights = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    # Some exports prefix every name with "transformer.".
    weights = {k[len("transformer."):] if k.startswith("transformer.") else k: v
               for k, v in weights.items()}
    return config, GPT2(config, weights)


# ---------------------------------------------------------------------------------------------
# The model: one function per block, as nanoGPT; the attention variant is a swappable function.

def gelu_new(x):
    """GPT-2's gelu_new; F.gelu(approximate='tanh') is the same formula (checked in check_gelu)."""
    return F.gelu(x, approximate="tanh")


def gelu_new_reference(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


def check_gelu():
    x = torch.linspace(-12, 12, 200001)
    diff = (gelu_new(x) - gelu_new_reference(x)).abs().max().item()
    if diff > 1e-5:
        sys.exit(f"torch_bench: F.gelu(approximate='tanh') differs from gelu_new by {diff}")
    return diff


class Masks:
    """The causal mask of T tokens in each form an attention variant takes, built once per T."""

    def __init__(self, T, H, D):
        # Plain ints for every view: a traced-then-frozen graph misfolds sizes read off tensors.
        self.T, self.H, self.D = T, H, D
        self.blocked = torch.ones(T, T, dtype=torch.bool).triu(1)   # True = hidden (masked_fill)
        self.allowed = ~self.blocked                                # True = attended (SDPA)
        self.additive = torch.zeros(T, T).masked_fill(self.blocked, float("-inf"))
        self.additive_heads = self.additive.expand(H, T, T).contiguous()
        # _native_multi_head_attention on the CPU takes only a mask of the scores' shape.
        self.native = self.blocked.expand(1, H, T, T).contiguous()


def split_heads(qkv, m):
    """(T, 3D) -> queries, keys, values (H, T, hd)."""
    q, k, v = qkv.split(m.D, dim=1)
    return [t.view(m.T, m.H, m.D // m.H).transpose(0, 1) for t in (q, k, v)]


def merge_heads(context, m):
    """(H, T, hd) -> (T, D)."""
    return context.transpose(0, 1).reshape(m.T, m.D)


# Each variant: (x (T, D) after ln_1, layer weights, H, masks) -> c_proj output (T, D).

def attn_manual(x, w, H, m):
    D = m.D
    q, k, v = split_heads(torch.addmm(w["qkv_b"], x, w["qkv_w"]), m)
    scores = (q @ k.transpose(1, 2)) / math.sqrt(D // H)
    weights = scores.masked_fill(m.blocked, float("-inf")).softmax(dim=-1)
    return torch.addmm(w["proj_b"], merge_heads(weights @ v, m), w["proj_w"])


def attn_baddbmm(x, w, H, m):
    D = m.D
    q, k, v = split_heads(torch.addmm(w["qkv_b"], x, w["qkv_w"]), m)
    # The mask added inside the GEMM, scaled by alpha: one pass over the scores fewer.
    scores = torch.baddbmm(m.additive_heads, q, k.transpose(1, 2), alpha=1.0 / math.sqrt(D // H))
    return torch.addmm(w["proj_b"], merge_heads(torch.bmm(scores.softmax(dim=-1), v), m),
                       w["proj_w"])


def attn_sdpa_causal(x, w, H, m):
    q, k, v = split_heads(torch.addmm(w["qkv_b"], x, w["qkv_w"]), m)
    context, _ = F._scaled_dot_product_attention(q, k, v, None, 0.0, False, True)
    return torch.addmm(w["proj_b"], merge_heads(context, m), w["proj_w"])


def attn_sdpa_mask(x, w, H, m):
    q, k, v = split_heads(torch.addmm(w["qkv_b"], x, w["qkv_w"]), m)
    context, _ = F._scaled_dot_product_attention(q, k, v, m.allowed, 0.0, False, False)
    return torch.addmm(w["proj_b"], merge_heads(context, m), w["proj_w"])


def attn_mha_functional(x, w, H, m):
    # nn.MultiheadAttention in eval with need_weights=False ends here too: in 1.13 its fast path
    # refuses any attn_mask ("attn_mask was not None"), so a causal layer cannot take it.
    D = m.D
    out, _ = F.multi_head_attention_forward(
        x.unsqueeze(1), x.unsqueeze(1), x.unsqueeze(1), D, H, w["qkv_wt"], w["qkv_b"], None, None,
        False, 0.0, w["proj_wt"], w["proj_b"], training=False, need_weights=False,
        attn_mask=m.blocked)
    return out.squeeze(1)


def attn_native_mha(x, w, H, m):
    # The fast path's kernel itself; mask_type 2 = a full mask of the scores' shape.
    D = m.D
    out, _ = torch._native_multi_head_attention(
        x.unsqueeze(0), x.unsqueeze(0), x.unsqueeze(0), D, H, w["qkv_wt"], w["qkv_b"],
        w["proj_wt"], w["proj_b"], m.native, False, True, 2)
    return out.squeeze(0)


ATTENTION_VARIANTS = {
    "manual": attn_manual,
    "baddbmm": attn_baddbmm,
    "sdpa_causal": attn_sdpa_causal,
    "sdpa_mask": attn_sdpa_mask,
    "mha_functional": attn_mha_functional,
    "native_mha": attn_native_mha,
}


class GPT2(torch.nn.Module):
    """GPT2LMHeadModel's forward in plain torch ops; forward(ids) -> last position's logits."""

    def __init__(self, config, weights):
        super().__init__()
        self.D, self.H = config["n_embd"], config["n_head"]
        self.L, self.eps = config["n_layer"], config.get("layer_norm_epsilon", 1e-5)
        self.P, self.V = config["n_positions"], config["vocab_size"]
        self.attention = attn_manual
        self._masks = {}
        self.register_buffer("wte", weights["wte.weight"])
        self.register_buffer("wpe", weights["wpe.weight"])
        self.register_buffer("ln_f_w", weights["ln_f.weight"])
        self.register_buffer("ln_f_b", weights["ln_f.bias"])
        names = {"ln1_w": "ln_1.weight", "ln1_b": "ln_1.bias", "qkv_w": "attn.c_attn.weight",
                 "qkv_b": "attn.c_attn.bias", "proj_w": "attn.c_proj.weight",
                 "proj_b": "attn.c_proj.bias", "ln2_w": "ln_2.weight", "ln2_b": "ln_2.bias",
                 "fc_w": "mlp.c_fc.weight", "fc_b": "mlp.c_fc.bias",
                 "fc2_w": "mlp.c_proj.weight", "fc2_b": "mlp.c_proj.bias"}
        self.layers = []
        for l in range(self.L):
            w = {}
            for short, hf in names.items():
                key = f"h.{l}.{hf}"
                if key not in weights:
                    sys.exit(f"torch_bench: tensor {key} is missing from model.safetensors")
                w[short] = weights[key]
                self.register_buffer(f"h{l}_{short}", w[short])
            # nn.Linear layout (out, in) for the PyTorch MHA kernels.
            for short in ("qkv_w", "proj_w"):
                w[short[:-1] + "wt"] = w[short].t().contiguous()
                self.register_buffer(f"h{l}_{short}t", w[short[:-1] + "wt"])
            self.layers.append(w)

    def masks(self, T):
        if T not in self._masks:
            self._masks[T] = Masks(T, self.H, self.D)
        return self._masks[T]

    def block(self, x, w, m):
        x = x + self.attention(F.layer_norm(x, (self.D,), w["ln1_w"], w["ln1_b"], self.eps), w,
                               self.H, m)
        h = F.layer_norm(x, (self.D,), w["ln2_w"], w["ln2_b"], self.eps)
        return x + torch.addmm(w["fc2_b"], gelu_new(torch.addmm(w["fc_b"], h, w["fc_w"])),
                               w["fc2_w"])

    def lm_head_last(self, x):
        """Final LayerNorm and the tied lm_head on the last row only: (1, V)."""
        h = F.layer_norm(x[-1], (self.D,), self.ln_f_w, self.ln_f_b, self.eps)
        # A matrix-vector product: OpenBLAS runs a one-row GEMM about twice as slowly as GEMV.
        return torch.mv(self.wte, h).unsqueeze(0)

    def forward(self, ids):
        T = ids.shape[0]
        m = self.masks(T)
        x = self.wte[ids] + self.wpe[:T]
        for w in self.layers:
            x = self.block(x, w, m)
        return self.lm_head_last(x)

    # -- decoding --------------------------------------------------------------------------

    def prefill(self, ids):
        """The prompt in one pass (manual attention); returns last logits and K, V (H, T, hd)."""
        T, D, H = ids.shape[0], self.D, self.H
        m = self.masks(T)
        x = self.wte[ids] + self.wpe[:T]
        kv = []
        for w in self.layers:
            h = F.layer_norm(x, (D,), w["ln1_w"], w["ln1_b"], self.eps)
            q, k, v = split_heads(torch.addmm(w["qkv_b"], h, w["qkv_w"]), m)
            kv.append((k.contiguous(), v.contiguous()))
            weights = ((q @ k.transpose(1, 2)) / math.sqrt(D // H)).masked_fill(
                m.blocked, float("-inf")).softmax(dim=-1)
            x = x + torch.addmm(w["proj_b"], merge_heads(weights @ v, m), w["proj_w"])
            h = F.layer_norm(x, (D,), w["ln2_w"], w["ln2_b"], self.eps)
            x = x + torch.addmm(w["fc2_b"], gelu_new(torch.addmm(w["fc_b"], h, w["fc_w"])),
                                w["fc2_w"])
        return self.lm_head_last(x), kv


def top5(logits):
    probs = logits[0].softmax(dim=-1)
    p, i = probs.topk(5)
    return [{"id": int(a), "prob": float(b)} for a, b in zip(i, p)]


def deterministic_ids(T, vocab):
    return [(i * 7919) % vocab for i in range(T)]


def time_runs(fn, repeat, clock=time.perf_counter):
    """One warm-up run, then `repeat` timed runs: (best_ms, median_ms)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = clock()
        fn()
        times.append((clock() - t0) * 1e3)
    return min(times), statistics.median(times)


def fastest_of(variants, key="best_ms"):
    ok = {n: v for n, v in variants.items() if key in v}
    name = min(ok, key=lambda n: ok[n][key])
    return {"name": name, "ms": ok[name][key]}


# ---------------------------------------------------------------------------------------------
# forward

def jit_variants(model, ids, base):
    """TorchScript trace of the whole model (attention `base`), frozen, optimize_for_inference."""
    model.attention = ATTENTION_VARIANTS[base]
    out = {}
    with torch.no_grad():
        traced = torch.jit.trace(model.eval(), (ids,), check_trace=False)
        out[f"jit_trace_{base}"] = traced
        frozen = torch.jit.freeze(traced)
        out[f"jit_freeze_{base}"] = frozen
        try:
            out[f"jit_optimized_{base}"] = torch.jit.optimize_for_inference(frozen)
        except Exception as e:  # the MKLDNN conversion is not on every build
            log(f"optimize_for_inference failed: {e}")
    return out


def eager_forward(model, ids, attention):
    def run():
        model.attention = attention
        return model(ids)
    return run


def run_forward(model, T, repeat, with_jit=True):
    if T > model.P:
        sys.exit(f"torch_bench: --tokens {T} exceeds n_positions {model.P}")
    ids_list = deterministic_ids(T, model.V)
    ids = torch.tensor(ids_list, dtype=torch.long)
    results, reference = {}, None
    errors = {}
    with torch.inference_mode():
        model.attention = attn_manual
        reference = model(ids)
        ref_top = top5(reference)
        callables = {name: eager_forward(model, ids, fn) for name, fn in ATTENTION_VARIANTS.items()}
    if with_jit:
        # The eager attentions the traces build on: plain ops, the masked GEMM, the SDPA kernel.
        for base in ("manual", "baddbmm", "sdpa_causal"):
            try:
                for name, mod in jit_variants(model, ids, base).items():
                    callables[name] = (lambda traced: (lambda: traced(ids)))(mod)
            except Exception as e:
                errors[f"jit_{base}"] = str(e).splitlines()[0]
    with torch.inference_mode():
        for name, fn in callables.items():
            try:
                logits = fn()
            except Exception as e:
                errors[name] = str(e).splitlines()[0]
                continue
            diff = (logits - reference).abs().max().item()
            top = top5(logits)
            same = [t["id"] for t in top] == [t["id"] for t in ref_top]
            if not same or diff > 1e-3:
                errors[name] = f"disagrees with manual: max |logit diff| {diff:.3g}, top-5 {top}"
                continue
            best, median = time_runs(fn, repeat)
            results[name] = {"best_ms": round(best, 3), "median_ms": round(median, 3),
                             "max_abs_logit_diff_vs_manual": diff}
            log(f"forward T={T} {name}: best {best:.1f} ms, median {median:.1f} ms")
    model.attention = attn_manual
    return {"tokens": T, "ids": ids_list, "top5": ref_top, "variants": results,
            "errors": errors, "fastest": fastest_of(results), "repeat": repeat}


# ---------------------------------------------------------------------------------------------
# generate

def project(x, W, b, gemv):
    """x (1, in) @ W (in, out) + b; OpenBLAS runs a one-row GEMM several times slower than GEMV."""
    return torch.addmv(b, W.t(), x.view(-1)).unsqueeze(0) if gemv else torch.addmm(b, x, W)


def mlp_step(model, x, w, gemv):
    h = F.layer_norm(x, (model.D,), w["ln2_w"], w["ln2_b"], model.eps)
    return x + project(gelu_new(project(h, w["fc_w"], w["fc_b"], gemv)), w["fc2_w"], w["fc2_b"],
                       gemv)


def step_layer(model, x, w, cache, pos, attention, prealloc, gemv):
    """One new token through one block; cache = [K, V] (H, t, hd) or preallocated (H, P, hd)."""
    D, H = model.D, model.H
    hd = D // H
    h = F.layer_norm(x, (D,), w["ln1_w"], w["ln1_b"], model.eps)
    qkv = project(h, w["qkv_w"], w["qkv_b"], gemv).view(3, H, 1, hd)
    q, k, v = qkv[0], qkv[1], qkv[2]
    if prealloc:
        cache[0][:, pos:pos + 1] = k
        cache[1][:, pos:pos + 1] = v
        keys, values = cache[0][:, :pos + 1], cache[1][:, :pos + 1]
    else:
        cache[0] = keys = torch.cat((cache[0], k), dim=1)
        cache[1] = values = torch.cat((cache[1], v), dim=1)
    # One query row sees every cached key: no mask.
    if attention == "sdpa":
        context, _ = F._scaled_dot_product_attention(q, keys, values, None, 0.0, False, False)
    else:
        context = ((q @ keys.transpose(1, 2)) / math.sqrt(hd)).softmax(dim=-1) @ values
    x = x + project(context.reshape(1, D), w["proj_w"], w["proj_b"], gemv)
    return mlp_step(model, x, w, gemv)


def step_layer_native(model, x, w, cache, gemv):
    """The decoder kernel of 1.13: it appends the new K, V itself (cache (1, H, t, hd))."""
    D, H = model.D, model.H
    h = F.layer_norm(x, (D,), w["ln1_w"], w["ln1_b"], model.eps).unsqueeze(0)
    out, _, cache[0], cache[1] = torch._native_decoder_only_multi_head_attention(
        h, h, h, D, H, w["qkv_wt"], w["qkv_b"], w["proj_wt"], w["proj_b"], None, cache[0],
        cache[1], False, True)
    return mlp_step(model, x + out.squeeze(0), w, gemv)


GENERATE_VARIANTS = {  # name: (attention, preallocated cache, GEMV projections)
    "cat_manual": ("manual", False, False),
    "cat_sdpa": ("sdpa", False, False),
    "prealloc_manual": ("manual", True, False),
    "prealloc_sdpa": ("sdpa", True, False),
    "native_decoder_mha": ("native", False, False),
    "cat_manual_gemv": ("manual", False, True),
    "cat_sdpa_gemv": ("sdpa", False, True),
    "prealloc_manual_gemv": ("manual", True, True),
    "prealloc_sdpa_gemv": ("sdpa", True, True),
    "native_decoder_mha_gemv": ("native", False, True),
}


def generate_once(model, prompt, new_tokens, variant):
    """Greedy decoding; returns (new_ids, elapsed_ms of the new tokens alone)."""
    attention, prealloc, gemv = GENERATE_VARIANTS[variant]
    P = len(prompt)
    # Feeding the last new token needs a position for it too.
    limit = min(new_tokens, model.P - P)
    with torch.inference_mode():
        logits, kv = model.prefill(torch.tensor(prompt, dtype=torch.long))
        caches = []
        for k, v in kv:
            if prealloc:
                K = torch.empty(model.H, P + limit, k.shape[2])
                V = torch.empty_like(K)
                K[:, :P], V[:, :P] = k, v
                caches.append([K, V])
            elif attention == "native":
                caches.append([k.unsqueeze(0), v.unsqueeze(0)])
            else:
                caches.append([k, v])
        new_ids = []
        t0 = time.perf_counter()
        for step in range(limit):
            # As attention-cli's Generator: choose, then feed the chosen id through the cache,
            # the last one and an end-of-text included (one cached step per new token).
            next_id = int(logits.argmax())
            new_ids.append(next_id)
            pos = P + step
            x = (model.wte[next_id] + model.wpe[pos]).unsqueeze(0)
            for w, cache in zip(model.layers, caches):
                if attention == "native":
                    x = step_layer_native(model, x, w, cache, gemv)
                else:
                    x = step_layer(model, x, w, cache, pos, attention, prealloc, gemv)
            logits = model.lm_head_last(x)
            if next_id == END_OF_TEXT:
                break
        elapsed = (time.perf_counter() - t0) * 1e3
    return new_ids, elapsed


def run_generate(model, prompt, new_tokens, repeat):
    results, errors, reference = {}, {}, None
    for name in GENERATE_VARIANTS:
        try:
            ids, _ = generate_once(model, prompt, new_tokens, name)  # warm-up and check
        except Exception as e:
            errors[name] = str(e).splitlines()[0]
            continue
        if reference is None:
            reference = ids
        elif ids != reference:
            errors[name] = f"greedy ids differ from cat_manual: {ids}"
            continue
        times = [generate_once(model, prompt, new_tokens, name)[1] for _ in range(repeat)]
        best, median = min(times), statistics.median(times)
        n = len(reference)
        results[name] = {"best_ms": round(best, 3), "median_ms": round(median, 3),
                         "tokens_per_second": round(n / (best / 1e3), 2),
                         "median_tokens_per_second": round(n / (median / 1e3), 2)}
        log(f"generate {name}: {n} tokens, best {best:.1f} ms ({n / best * 1e3:.1f} tok/s)")
    fastest = fastest_of(results)
    best = results[fastest["name"]]
    return {"prompt_ids": prompt, "prompt_tokens": len(prompt), "new_ids": reference,
            "new_tokens": len(reference), "elapsed_ms": best["best_ms"],
            "tokens_per_second": best["tokens_per_second"], "variants": results,
            "errors": errors, "fastest": fastest, "repeat": repeat,
            "note": "elapsed_ms: the new tokens alone, one cached step per new token (the "
                    "last one fed too, as attention-cli's Generator does)"}


# ---------------------------------------------------------------------------------------------
# layer

def run_layer(T, repeat, D=768, H=12, seed=123):
    """The tutorial's MultiHeadAttention(D, D, T, 0.0, H, qkv_bias=False) on torch.rand(T, D):
    the same input and parameters attention-cli compute --random-tokens T --seed 123 draws."""
    torch.manual_seed(seed)
    x = torch.rand(T, D)
    torch.manual_seed(seed)  # a fresh generator for the parameters, drawn in constructor order
    W_query, W_key, W_value = (torch.nn.Linear(D, D, bias=False) for _ in range(3))
    out_proj = torch.nn.Linear(D, D)
    with torch.no_grad():
        qkv_wt = torch.cat((W_query.weight, W_key.weight, W_value.weight)).contiguous()
        w = {"qkv_w": qkv_wt.t().contiguous(), "qkv_wt": qkv_wt, "qkv_b": torch.zeros(3 * D),
             "proj_w": out_proj.weight.t().contiguous(), "proj_wt": out_proj.weight.detach(),
             "proj_b": out_proj.bias.detach()}
    m = Masks(T, H, D)
    results, errors = {}, {}
    with torch.inference_mode():
        reference = attn_manual(x, w, H, m)
        for name, fn in ATTENTION_VARIANTS.items():
            try:
                out = fn(x, w, H, m)
            except Exception as e:
                errors[name] = str(e).splitlines()[0]
                continue
            diff = (out - reference).abs().max().item()
            if diff > 1e-4:
                errors[name] = f"disagrees with manual: max |diff| {diff:.3g}"
                continue
            best, median = time_runs(lambda: fn(x, w, H, m), repeat)
            results[name] = {"best_ms": round(best, 3), "median_ms": round(median, 3),
                             "max_abs_diff_vs_manual": diff}
            log(f"layer T={T} {name}: best {best:.1f} ms, median {median:.1f} ms")
    return {"tokens": T, "d_model": D, "num_heads": H, "seed": seed,
            "checksum": float(reference.sum()), "abs_checksum": float(reference.abs().sum()),
            "variants": results, "errors": errors, "fastest": fastest_of(results),
            "repeat": repeat}


# ---------------------------------------------------------------------------------------------
# train

TRAIN_PRESETS = {
    "attn-only-2l": {"L": 2, "H": 8, "D": 64, "F": 256, "V": 64, "T": 40, "attn_only": True},
    "gpt-2l": {"L": 2, "H": 4, "D": 64, "F": 256, "V": 64, "T": 64, "attn_only": False},
}
TRAIN_BATCH = 8


def train_init(c, seed=0):
    """attn::init_gpt2 with TorchGenerator(seed): the tensor table's order, normal_ draws for the
    embeddings and weight matrices only (std 0.02; c_proj and mlp.c_proj 0.02 / sqrt(2 L))."""
    torch.manual_seed(seed)
    D, F_, proj = c["D"], c["F"], 0.02 / math.sqrt(2 * c["L"])
    normal = lambda shape, std: torch.empty(shape).normal_(0.0, std)
    p = {"wte": normal((c["V"], D), 0.02), "wpe": normal((c["T"], D), 0.02), "layers": []}
    for _ in range(c["L"]):
        w = {}
        if not c["attn_only"]:
            w["ln1_w"], w["ln1_b"] = torch.ones(D), torch.zeros(D)
        w["qkv_w"], w["qkv_b"] = normal((D, 3 * D), 0.02), torch.zeros(3 * D)
        w["proj_w"], w["proj_b"] = normal((D, D), proj), torch.zeros(D)
        if not c["attn_only"]:
            w["ln2_w"], w["ln2_b"] = torch.ones(D), torch.zeros(D)
            w["fc_w"], w["fc_b"] = normal((D, F_), 0.02), torch.zeros(F_)
            w["fc2_w"], w["fc2_b"] = normal((F_, D), proj), torch.zeros(D)
        p["layers"].append(w)
    if not c["attn_only"]:
        p["ln_f_w"], p["ln_f_b"] = torch.ones(D), torch.zeros(D)
    params = [p["wte"], p["wpe"]] + [t for w in p["layers"] for t in w.values()]
    params += [p[k] for k in ("ln_f_w", "ln_f_b") if k in p]
    for t in params:
        t.requires_grad_()
    return p, params


def train_batch(c):
    """attention-bench's batch: inputs (i * 7919) % V, targets (i * 7919 + 13) % V."""
    n = TRAIN_BATCH * c["T"]
    inputs = torch.tensor([(i * 7919) % c["V"] for i in range(n)]).view(TRAIN_BATCH, c["T"])
    targets = torch.tensor([(i * 7919 + 13) % c["V"] for i in range(n)]).view(TRAIN_BATCH, c["T"])
    return inputs, targets


def train_attention(q, k, v, variant, blocked, scale):
    """(B, H, T, hd) each -> context (B, H, T, hd), causal."""
    if variant == "sdpa_causal":
        return F._scaled_dot_product_attention(q, k, v, None, 0.0, False, True)[0]
    if variant == "baddbmm":
        B, H, T, hd = q.shape
        additive = torch.zeros(T, T).masked_fill(blocked, float("-inf")).expand(B * H, T, T)
        scores = torch.baddbmm(additive, q.reshape(B * H, T, hd),
                               k.reshape(B * H, T, hd).transpose(1, 2), alpha=scale)
        return torch.bmm(scores.softmax(dim=-1), v.reshape(B * H, T, hd)).view(B, H, T, hd)
    weights = ((q @ k.transpose(-1, -2)) * scale).masked_fill(blocked, float("-inf"))
    return weights.softmax(dim=-1) @ v


def train_loss(p, c, inputs, targets, variant):
    B, T, D, H = inputs.shape[0], inputs.shape[1], c["D"], c["H"]
    blocked = torch.ones(T, T, dtype=torch.bool).triu(1)
    scale = 1.0 / math.sqrt(D // H)
    x = p["wte"][inputs] + p["wpe"][:T]
    for w in p["layers"]:
        a = x if c["attn_only"] else F.layer_norm(x, (D,), w["ln1_w"], w["ln1_b"], 1e-5)
        q, k, v = ((a @ w["qkv_w"] + w["qkv_b"]).split(D, dim=2))
        q, k, v = (t.view(B, T, H, D // H).transpose(1, 2) for t in (q, k, v))
        context = train_attention(q, k, v, variant, blocked, scale)
        x = x + context.transpose(1, 2).reshape(B, T, D) @ w["proj_w"] + w["proj_b"]
        if not c["attn_only"]:
            h = F.layer_norm(x, (D,), w["ln2_w"], w["ln2_b"], 1e-5)
            x = x + gelu_new(h @ w["fc_w"] + w["fc_b"]) @ w["fc2_w"] + w["fc2_b"]
    if not c["attn_only"]:
        x = F.layer_norm(x, (D,), p["ln_f_w"], p["ln_f_b"], 1e-5)
    logits = x @ p["wte"].t()
    return F.cross_entropy(logits.reshape(-1, c["V"]), targets.reshape(-1))


def run_train(name, repeat):
    """One step (zero_grad, forward, loss, backward, AdamW) per timed run (the thread's CPU time,
    --threads 1), for every attention
    variant and for AdamW's single-tensor and foreach implementations; the fastest is reported.
    Every variant starts from the same weights and must give the manual variant's first loss."""
    c = TRAIN_PRESETS[name]
    inputs, targets = train_batch(c)
    results, errors, first_loss = {}, {}, None
    for variant in ("manual", "baddbmm", "sdpa_causal"):
        for foreach in (False, True):
            key = f"{variant}+{'foreach' if foreach else 'single'}_adamw"
            p, params = train_init(c)
            opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01, foreach=foreach)

            def step():
                opt.zero_grad(set_to_none=True)
                loss = train_loss(p, c, inputs, targets, variant)
                loss.backward()
                opt.step()
                return loss.item()

            try:
                loss = step()
            except Exception as e:
                errors[key] = str(e).splitlines()[0]
                continue
            if first_loss is None:
                first_loss = loss
            if abs(loss - first_loss) > 1e-5 * first_loss:
                errors[key] = f"first loss {loss} differs from manual's {first_loss}"
                continue
            # CPU time of this thread, as attention-bench's cpu_time: on a machine shared with
            # other work, wall-clock time counts the time others ran too.
            best, median = time_runs(step, repeat, clock=time.thread_time)
            results[key] = {"best_ms": round(best, 3), "median_ms": round(median, 3)}
            log(f"train {name} {key}: best {best:.2f} ms, median {median:.2f} ms")
    return {"preset": name, "batch": TRAIN_BATCH, **c, "first_loss": first_loss,
            "variants": results, "errors": errors, "fastest": fastest_of(results),
            "repeat": repeat}


def train_compare(args):
    """PyTorch's step against attention-bench's BM_TrainStep/<preset>: best and median of the
    repetitions, each the mean of many steps."""
    bench = os.path.abspath(args.bench)
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), ATTN_THREADS=str(args.threads))
    r = subprocess.run([bench, "--benchmark_filter=BM_TrainStep", "--benchmark_format=json",
                        f"--benchmark_repetitions={args.runs}"], capture_output=True, text=True,
                       env=env)
    if r.returncode != 0:
        sys.exit(f"torch_bench: {bench} failed: {r.stderr.strip()}")
    runs = {}
    for b in json.loads(r.stdout)["benchmarks"]:
        if b.get("run_type") == "iteration":
            runs.setdefault(b["run_name"], []).append(b)
    rows, details = [], {"machine": machine_info(), "gelu_max_abs_diff": check_gelu()}
    for name in args.presets:
        ours = run_train(name, args.repeat)
        cpp = runs.get(f"BM_TrainStep/{name}")
        if not cpp:
            sys.exit(f"torch_bench: {bench} has no BM_TrainStep/{name}")
        # CPU time of the computing thread on both sides (one thread); ms, the benchmark's unit.
        times = [b["cpu_time"] for b in cpp]
        cpp_loss = cpp[0]["first_loss"]
        agree = abs(cpp_loss - ours["first_loss"]) <= 1e-5 * ours["first_loss"]
        log(f"train {name}: first loss attention-bench {cpp_loss:.7g}, PyTorch "
            f"{ours['first_loss']:.7g}: {'agree' if agree else 'DIFFER'}")
        details[f"train_{name}"] = {"torch": ours, "cpp": {"best_ms": min(times),
                                                           "median_ms": statistics.median(times),
                                                           "first_loss": cpp_loss},
                                    "first_loss_agree": agree}
        rows.append((f"train step {name} (ms)", min(times), statistics.median(times),
                     ours["fastest"]["ms"], ours["variants"][ours["fastest"]["name"]]["median_ms"],
                     ours["fastest"]["name"], "ms", agree))
    md = markdown_table(rows, details, args.threads)
    details["markdown"] = md
    log("")
    log(md)
    print(json.dumps(details, indent=1))


# ---------------------------------------------------------------------------------------------
# compare

def cli_supports(cli, sub, option):
    out = subprocess.run([cli, sub, "--help"], capture_output=True, text=True).stdout
    return option in out


def run_cli(cli, sub, args, threads):
    cmd = [cli, sub] + args
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    if cli_supports(cli, sub, "--threads"):
        cmd += ["--threads", str(threads)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"torch_bench: {' '.join(cmd[:4])} ... failed: {r.stderr.strip()}")
    return json.loads(r.stdout)


def run_cli_timed(cli, sub, args, threads, runs, key="elapsed_ms"):
    outs = [run_cli(cli, sub, args, threads) for _ in range(runs)]
    times = [o[key] for o in outs]
    return outs[0], min(times), statistics.median(times), outs


def run_cli_warm(cli, sub, args, threads, runs, repeat):
    """As PyTorch is timed here: the pass repeated in one process after a first one (--repeat),
    best and median of every repeated pass over `runs` processes; also the first passes' best.
    A CLI without --repeat gives its first passes only."""
    if not cli_supports(cli, sub, "--repeat"):
        first, best, median, outs = run_cli_timed(cli, sub, args, threads, runs)
        return first, best, median, best
    outs = [run_cli(cli, sub, args + ["--repeat", str(repeat)], threads) for _ in range(runs)]
    warm = [t for o in outs for t in o["repeat_ms"]]
    return outs[0], min(warm), statistics.median(warm), min(o["elapsed_ms"] for o in outs)


def machine_info():
    cpu = ""
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                cpu = line.split(":", 1)[1].strip()
    except OSError:
        pass
    blas_alt = ""
    try:
        q = subprocess.run(["update-alternatives", "--query", "libblas.so.3-x86_64-linux-gnu"],
                           capture_output=True, text=True).stdout
        blas_alt = next((l for l in q.splitlines() if l.startswith("Value:")), "")
    except OSError:
        pass
    found = re.search(r"BLAS_INFO=(\w+)", torch.__config__.show())
    blas_info = "BLAS_INFO=" + (found.group(1) if found else "?")
    return {"cpu": cpu, "torch": torch.__version__, "torch_blas": blas_info,
            "libblas_alternative": blas_alt, "threads": torch.get_num_threads()}


def compare(args):
    cli = os.path.abspath(args.cli)
    config, model = load_gpt2(args.model)
    runs, threads = args.runs, args.threads
    rows, details = [], {"machine": machine_info(), "gelu_max_abs_diff": check_gelu()}

    for T in args.forward_tokens:
        log(f"== forward T={T}")
        ours = run_forward(model, T, args.repeat, with_jit=not args.no_jit)
        ids = ",".join(map(str, ours["ids"]))
        cli_out, cli_best, cli_median, cli_first = run_cli_warm(
            cli, "forward", ["--model", args.model, "--ids", ids, "--summary"], threads, runs,
            args.repeat)
        cli_top = [t["id"] for t in cli_out["next_tokens"]]
        torch_top = [t["id"] for t in ours["top5"]]
        prob_diff = max(abs(a["prob"] - b["prob"]) for a, b in zip(cli_out["next_tokens"],
                                                                   ours["top5"]))
        agree = cli_top == torch_top
        log(f"forward T={T}: attention-cli top-5 {cli_top}, PyTorch {torch_top}: "
            f"{'agree' if agree else 'DIFFER'} (max prob diff {prob_diff:.2g})")
        ours.pop("ids")
        details[f"forward_{T}"] = {"torch": ours, "cli": {"best_ms": cli_best,
                                                          "median_ms": cli_median,
                                                          "first_pass_best_ms": cli_first,
                                                          "top5_ids": cli_top},
                                   "top5_agree": agree, "max_prob_diff": prob_diff}
        rows.append((f"forward T={T} (ms)", cli_best, cli_median, ours["fastest"]["ms"],
                     ours["variants"][ours["fastest"]["name"]]["median_ms"],
                     ours["fastest"]["name"], "ms", agree, cli_first))

    log("== generate")
    tok = run_cli(cli, "tokenize", ["--model", args.model, "--text", args.prompt], threads)
    prompt = tok["ids"]
    cli_out, _, _, outs = run_cli_timed(
        cli, "generate", ["--model", args.model, "--text", args.prompt,
                          "--max-new-tokens", str(args.new_tokens)], threads, runs)
    cli_tps = [o["tokens_per_second"] for o in outs]
    ours = run_generate(model, prompt, args.new_tokens, args.repeat)
    agree = cli_out["new_ids"] == ours["new_ids"]
    log(f"generate: prompt {len(prompt)} ids, new ids {'agree' if agree else 'DIFFER'}")
    fast = ours["variants"][ours["fastest"]["name"]]
    details["generate"] = {"torch": ours, "cli": {"tokens_per_second_best": max(cli_tps),
                                                  "tokens_per_second_median":
                                                      statistics.median(cli_tps),
                                                  "new_ids": cli_out["new_ids"]},
                           "prompt_text": args.prompt, "new_ids_agree": agree}
    rows.append((f"generate P={len(prompt)} N={args.new_tokens} (tok/s)", max(cli_tps),
                 statistics.median(cli_tps), fast["tokens_per_second"],
                 fast["median_tokens_per_second"], ours["fastest"]["name"], "tok/s", agree,
                 None))

    # compute's elapsed_ms is the forward pass alone (drawing the parameters is not counted),
    # as PyTorch's time here is.
    for T in args.layer_tokens:
        log(f"== layer T={T}")
        ours = run_layer(T, args.repeat)
        cli_out, cli_best, cli_median, cli_first = run_cli_warm(
            cli, "compute", ["--module", "multi-head-attention", "--random-tokens", str(T),
                             "--d-in", "768", "--d-out", "768", "--num-heads", "12",
                             "--summary"], threads, runs, args.repeat)
        # Same input and parameters on both sides: the sums of the outputs must match.
        agree = (abs(cli_out["checksum"] - ours["checksum"]) <= 1e-5 * ours["abs_checksum"] and
                 abs(cli_out["abs_checksum"] - ours["abs_checksum"]) <= 1e-5 * ours["abs_checksum"])
        log(f"layer T={T}: checksum attention-cli {cli_out['checksum']:.6g}, PyTorch "
            f"{ours['checksum']:.6g}: {'agree' if agree else 'DIFFER'}")
        details[f"layer_{T}"] = {"torch": ours, "cli": {"best_ms": cli_best,
                                                        "median_ms": cli_median,
                                                        "first_pass_best_ms": cli_first,
                                                        "checksum": cli_out["checksum"],
                                                        "abs_checksum": cli_out["abs_checksum"],
                                                        "config": cli_out.get("config")},
                                 "checksums_agree": agree}
        rows.append((f"layer T={T} (ms)", cli_best, cli_median, ours["fastest"]["ms"],
                     ours["variants"][ours["fastest"]["name"]]["median_ms"],
                     ours["fastest"]["name"], "ms", agree, cli_first))

    md = markdown_table(rows, details, threads)
    details["markdown"] = md
    log("")
    log(md)
    print(json.dumps(details, indent=1))


def markdown_table(rows, details, threads):
    m = details["machine"]
    lines = [f"CPU: {m['cpu']}; torch {m['torch']} ({m['torch_blas']}; "
             f"libblas.so.3 {m['libblas_alternative'].replace('Value: ', '')}); "
             f"{threads} thread(s) on both sides; best (median) of the runs.",
             "",
             "| measurement | ours | PyTorch fastest | variant | ratio | same result "
             "| ours, first pass | ratio, first pass |",
             "|---|---|---|---|---|---|---|---|"]
    for name, ours_best, ours_med, torch_best, torch_med, variant, unit, agree, first in rows:
        # ratio > 1: attention-cli is faster.
        ratio = ours_best / torch_best if unit == "tok/s" else torch_best / ours_best
        check = "n/a" if agree is None else ("yes" if agree else "**NO**")
        cold = " | " if first is None else f"{first:.1f} | {torch_best / first:.2f}"
        lines.append(f"| {name} | {ours_best:.1f} ({ours_med:.1f}) | {torch_best:.1f} "
                     f"({torch_med:.1f}) | {variant} | {ratio:.2f} | {check} | {cold} |")
    lines.append("")
    lines.append("ratio = PyTorch time / attention-cli time (tok/s: ours / PyTorch's); > 1 means "
                 "attention-cli is faster. Same result: "
                 "the same top-5 ids, the same greedy new ids, the same output checksums "
                 "(relative 1e-5). Both sides are timed alike: a first pass, then R more "
                 "in the same process (attention-cli --repeat R), best (median) of those; "
                 "the first pass, which also pays for fresh memory, is shown apart.")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=1, help="torch (and attention-cli) threads")
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("forward", help="last-position logits of T ids")
    f.add_argument("--model", required=True)
    f.add_argument("--tokens", type=int, required=True)
    f.add_argument("--repeat", type=int, default=5)
    f.add_argument("--no-jit", action="store_true", help="skip the TorchScript variants")
    g = sub.add_parser("generate", help="greedy decoding with a KV cache")
    g.add_argument("--model", required=True)
    g.add_argument("--prompt-tokens", type=int, default=16)
    g.add_argument("--prompt-ids", help="comma-separated ids instead of --prompt-tokens")
    g.add_argument("--new-tokens", type=int, default=64)
    g.add_argument("--repeat", type=int, default=3)
    la = sub.add_parser("layer", help="one causal multi-head attention layer")
    la.add_argument("--tokens", type=int, required=True)
    la.add_argument("--repeat", type=int, default=5)
    tr = sub.add_parser("train", help="one training step of the presets")
    tr.add_argument("--presets", nargs="+", default=list(TRAIN_PRESETS),
                    choices=list(TRAIN_PRESETS))
    tr.add_argument("--repeat", type=int, default=30, help="timed steps per variant")
    tr.add_argument("--bench", help="attention-bench to compare with (BM_TrainStep)")
    tr.add_argument("--runs", type=int, default=5, help="attention-bench repetitions")
    c = sub.add_parser("compare", help="all of the above against attention-cli")
    c.add_argument("--model", required=True)
    c.add_argument("--cli", default="build/bin/attention-cli")
    c.add_argument("--runs", type=int, default=5, help="attention-cli runs per measurement")
    c.add_argument("--repeat", type=int, default=3,
                   help="PyTorch: timed runs per variant after a warm-up; attention-cli: the "
                        "--repeat of each run")
    c.add_argument("--forward-tokens", type=int, nargs="+", default=[128, 1024])
    c.add_argument("--layer-tokens", type=int, nargs="+", default=[1024, 2048])
    c.add_argument("--new-tokens", type=int, default=64)
    c.add_argument("--prompt", default="Your journey starts with one step, and every step "
                                        "after it brings you a little closer to")
    c.add_argument("--no-jit", action="store_true", help="skip the TorchScript variants")
    # Options given after the subcommand too (`compare ... --threads 2`).
    for p in (f, g, la, tr, c):
        p.add_argument("--threads", type=int, default=argparse.SUPPRESS)
    args = ap.parse_args()

    # Tracing warns that T is baked in: each trace is built and timed for one T only.
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    torch.set_num_threads(args.threads)
    if args.cmd == "forward":
        config, model = load_gpt2(args.model)
        gelu_diff = check_gelu()
        out = run_forward(model, args.tokens, args.repeat, with_jit=not args.no_jit)
        out["gelu_max_abs_diff"] = gelu_diff
    elif args.cmd == "generate":
        config, model = load_gpt2(args.model)
        check_gelu()
        prompt = ([int(s) for s in args.prompt_ids.split(",")] if args.prompt_ids
                  else deterministic_ids(args.prompt_tokens, model.V))
        out = run_generate(model, prompt, args.new_tokens, args.repeat)
    elif args.cmd == "layer":
        out = run_layer(args.tokens, args.repeat)
    elif args.cmd == "train":
        if args.bench:
            train_compare(args)
            return
        out = {name: run_train(name, args.repeat) for name in args.presets}
    else:
        compare(args)
        return
    out["machine"] = machine_info()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
