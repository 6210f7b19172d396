# Training a tiny GPT-2 layout model in plain torch operations, as the engine's training
# (model/train.h) computes it: GPT-2's layout (transformers' modeling_gpt2.py: LayerNorm eps 1e-5,
# Conv1D as x @ W + b with W (in, out), causal softmax(q·kᵀ/√hd)·v per head, gelu_new, tied head),
# or without norms and MLP (attn_only), mean cross-entropy, torch.optim.AdamW(lr,
# weight_decay=0.01) and optionally torch.nn.utils.clip_grad_norm_. The starting weights are what
# attn::init_gpt2 draws: torch.manual_seed(seed), then in the tensor table's order
# torch.empty(shape).normal_(0, std) for the embeddings and weight matrices (std 0.02, the two
# residual projections 0.02 / √(2 · layers)), no draw for biases (zeros) and LayerNorm weights
# (ones). Prints tests/reference/train_reference.h:
#   /usr/bin/python3 tests/reference/train_reference.py > tests/reference/train_reference.h
#   clang-format -i tests/reference/train_reference.h
import math

import torch
import torch.nn.functional as F

LAYERS, D, HEADS, VOCAB, POSITIONS = 2, 8, 2, 11, 8
FF = 4 * D
HD = D // HEADS
B, T = 3, 5
EPS = 1e-5
STEPS = 20
BATCHES = 4  # step i trains on batch i % BATCHES
SEED = 7
BATCH_SEED = 99
LR = 1e-2
WEIGHT_DECAY = 0.01
MAX_NORM = 0.5
# name, attn_only, max_norm, shape (layers, d_model, heads, positions, batch, seq_len): the
# tiny shape, and heads of 8 and 16 over 19 positions, the widths the engine's attention loops
# take in vector chunks, with several chunks of keys and a short last block of query rows.
BASE = (LAYERS, D, HEADS, POSITIONS, B, T)
RUNS = [("mlp", False, 0.0, BASE), ("attn_only", True, 0.0, BASE), ("clip", False, MAX_NORM, BASE),
        ("mlp_head_dim_8", False, 0.0, (2, 16, 2, 19, 2, 19)),
        ("attn_only_head_dim_16", True, 0.0, (2, 16, 1, 19, 2, 19))]


def use_shape(shape):
    """Sets the module's sizes, which the functions below read."""
    global LAYERS, D, HEADS, POSITIONS, B, T, FF, HD
    LAYERS, D, HEADS, POSITIONS, B, T = shape
    FF, HD = 4 * D, D // HEADS


def table(attn_only):
    """(name, shape, init) in the order of attn::for_each_tensor over GPT-2's tensor table."""
    proj_std = 0.02 / math.sqrt(2 * LAYERS)
    t = [("wte.weight", (VOCAB, D), 0.02), ("wpe.weight", (POSITIONS, D), 0.02)]
    for l in range(LAYERS):
        h = f"h.{l}."
        if not attn_only:
            t += [(h + "ln_1.weight", (D,), "ones"), (h + "ln_1.bias", (D,), "zeros")]
        t += [(h + "attn.c_attn.weight", (D, 3 * D), 0.02),
              (h + "attn.c_attn.bias", (3 * D,), "zeros"),
              (h + "attn.c_proj.weight", (D, D), proj_std),
              (h + "attn.c_proj.bias", (D,), "zeros")]
        if not attn_only:
            t += [(h + "ln_2.weight", (D,), "ones"), (h + "ln_2.bias", (D,), "zeros"),
                  (h + "mlp.c_fc.weight", (D, FF), 0.02), (h + "mlp.c_fc.bias", (FF,), "zeros"),
                  (h + "mlp.c_proj.weight", (FF, D), proj_std),
                  (h + "mlp.c_proj.bias", (D,), "zeros")]
    if not attn_only:
        t += [("ln_f.weight", (D,), "ones"), ("ln_f.bias", (D,), "zeros")]
    return t


def init_params(attn_only):
    torch.manual_seed(SEED)
    params = {}
    for name, shape, init in table(attn_only):
        if init == "ones":
            p = torch.ones(shape)
        elif init == "zeros":
            p = torch.zeros(shape)
        else:
            p = torch.empty(shape).normal_(0.0, init)
        params[name] = p.requires_grad_()
    return params


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def loss_of(p, attn_only, inputs, targets):
    t = inputs.shape[1]
    h = p["wte.weight"][inputs] + p["wpe.weight"][:t]
    causal = torch.tril(torch.ones(t, t, dtype=torch.bool))
    for l in range(LAYERS):
        n = f"h.{l}."
        a = h if attn_only else F.layer_norm(h, (D,), p[n + "ln_1.weight"], p[n + "ln_1.bias"], EPS)
        qkv = a @ p[n + "attn.c_attn.weight"] + p[n + "attn.c_attn.bias"]
        q, k, v = (x.view(B, t, HEADS, HD).transpose(1, 2) for x in qkv.split(D, dim=2))
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(HD)
        weights = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
        context = (weights @ v).transpose(1, 2).reshape(B, t, D)
        h = h + context @ p[n + "attn.c_proj.weight"] + p[n + "attn.c_proj.bias"]
        if not attn_only:
            m = F.layer_norm(h, (D,), p[n + "ln_2.weight"], p[n + "ln_2.bias"], EPS)
            f = gelu_new(m @ p[n + "mlp.c_fc.weight"] + p[n + "mlp.c_fc.bias"])
            h = h + f @ p[n + "mlp.c_proj.weight"] + p[n + "mlp.c_proj.bias"]
    x = h if attn_only else F.layer_norm(h, (D,), p["ln_f.weight"], p["ln_f.bias"], EPS)
    logits = x @ p["wte.weight"].t()
    return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))


def make_batches():
    g = torch.Generator().manual_seed(BATCH_SEED)
    tokens = [torch.randint(0, VOCAB, (B, T + 1), generator=g) for _ in range(BATCHES)]
    return [(x[:, :-1], x[:, 1:]) for x in tokens]


def flat(tensors):
    return torch.cat([t.detach().reshape(-1) for t in tensors])


def run(attn_only, max_norm, batches):
    p = init_params(attn_only)
    params = list(p.values())
    opt = torch.optim.AdamW(params, lr=LR, weight_decay=WEIGHT_DECAY)
    out = {"initial": flat(params), "losses": [], "norms": []}
    for step in range(STEPS):
        inputs, targets = batches[step % BATCHES]
        opt.zero_grad()
        loss = loss_of(p, attn_only, inputs, targets)
        loss.backward()
        if step == 0:
            out["grads"] = flat(x.grad for x in params)
        if max_norm > 0:
            norm = torch.nn.utils.clip_grad_norm_(params, max_norm)
            if step == 0:
                out["clipped"] = flat(x.grad for x in params)
        else:
            norm = torch.norm(torch.stack([torch.norm(x.grad.detach(), 2.0) for x in params]), 2.0)
        opt.step()
        if step == 0:
            out["after_first"] = flat(params)
        out["losses"].append(loss.item())
        out["norms"].append(norm.item())
    return out


def floats(values):
    values = values.tolist() if hasattr(values, "tolist") else values
    return "{" + ", ".join(f"{x:.9e}f" for x in values) + "}"


def ints(t):
    return "{" + ", ".join(str(x) for x in t.reshape(-1).tolist()) + "}"


def main():
    batches = make_batches()
    print("// Generated by tests/reference/train_reference.py with PyTorch " + torch.__version__)
    print("// /usr/bin/python3 tests/reference/train_reference.py >")
    print("// tests/reference/train_reference.h && clang-format -i tests/reference/train_reference.h")
    print("#pragma once\n\n#include <vector>\n\nnamespace train_reference {\n")
    print(f"inline constexpr int kLayers = {LAYERS}, kDModel = {D}, kHeads = {HEADS}, "
          f"kVocab = {VOCAB}, kPositions = {POSITIONS};")
    print(f"inline constexpr int kBatch = {B}, kSeqLen = {T}, kSteps = {STEPS};")
    print(f"inline constexpr unsigned kSeed = {SEED};  // TorchGenerator(kSeed) for init_gpt2")
    print(f"inline constexpr float kLr = {LR}f, kWeightDecay = {WEIGHT_DECAY}f;")
    print("// Step i trains on batch i % kBatches: inputs and targets (B, T) row-major.")
    print(f"inline constexpr int kBatches = {BATCHES};")
    print("inline const std::vector<std::vector<int>> kInputs = {"
          + ", ".join(ints(x) for x, _ in batches) + "};")
    print("inline const std::vector<std::vector<int>> kTargets = {"
          + ", ".join(ints(y) for _, y in batches) + "};\n")
    print("// Every vector of values is in the parameters' layout (the tensor table's order).")
    print("struct Run {\n    const char* name;\n    bool attn_only;\n"
          "    int layers, d_model, heads, positions, batch, seq_len;\n"
          "    // The batches of this run's shape (the base shape's are kInputs, kTargets).\n"
          "    std::vector<std::vector<int>> inputs, targets;\n"
          "    float max_norm;  // clip_grad_norm_ before each step; 0: none\n"
          "    std::vector<float> initial;      // init_gpt2's values\n"
          "    std::vector<float> grads;        // d loss / d values of step 1, before clipping\n"
          "    std::vector<float> clipped;      // step 1's gradients after clipping (clip run)\n"
          "    std::vector<float> after_first;  // the values after step 1's AdamW update\n"
          "    std::vector<float> losses;       // the loss of each step, before its update\n"
          "    std::vector<float> norms;        // the global gradient norm of each step\n};\n")
    print("inline const std::vector<Run> kRuns = {")
    for name, attn_only, max_norm, shape in RUNS:
        use_shape(shape)
        run_batches = make_batches()
        r = run(attn_only, max_norm, run_batches)
        print(f'    {{"{name}", {"true" if attn_only else "false"},')
        print("     " + ", ".join(str(x) for x in shape) + ",")
        print("     {" + ", ".join(ints(x) for x, _ in run_batches) + "},")
        print("     {" + ", ".join(ints(y) for _, y in run_batches) + "},")
        print(f"     {max_norm}f,")
        for key in ("initial", "grads"):
            print(f"     {floats(r[key])},")
        print(f"     {floats(r['clipped']) if 'clipped' in r else '{}'},")
        for key in ("after_first", "losses", "norms"):
            print(f"     {floats(r[key])},")
        print("    },")
    use_shape(BASE)
    print("};\n\n}  // namespace train_reference")


if __name__ == "__main__":
    main()
