# The LLaMA-layout families as transformers computes them (LlamaForCausalLM, MistralForCausalLM,
# Qwen2ForCausalLM, Qwen3ForCausalLM in eval mode), in plain torch operations in float64, on tiny
# random models described by their config.json. The weights are the ones
# attn::make_random_weights(spec, seed) draws (tests/support/model_test_weights.h): the tensor
# table's order (model/transformer_spec.cpp), each tensor torch.empty(shape).normal_(mean, std) in
# float32. Rotary angles are computed in float32 and then widened, as transformers' rotary
# embedding does for a float64 model. Prints tests/reference/llama_families_reference.h:
#   /usr/bin/python3 tests/reference/llama_families_reference.py > tests/reference/llama_families_reference.h
#   clang-format -i tests/reference/llama_families_reference.h
import json
import math

import torch

IDS = [3, 17, 0, 39, 8, 8, 21]

BASE = {"hidden_act": "silu", "vocab_size": 40, "max_position_embeddings": 64,
        "num_hidden_layers": 2, "rms_norm_eps": 1e-6}
MODELS = [
    # Llama 3.2's form: tied embeddings, rope_theta 500000, llama3 rope scaling whose original
    # context (16) puts one frequency in the blended band and the rest divided or kept.
    ("llama3", 11, dict(BASE, model_type="llama", architectures=["LlamaForCausalLM"],
                        hidden_size=32, intermediate_size=48, num_attention_heads=4,
                        num_key_value_heads=2, rope_theta=500000.0, tie_word_embeddings=True,
                        rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                      "high_freq_factor": 4.0,
                                      "original_max_position_embeddings": 16},
                        bos_token_id=1, eos_token_id=[2, 5])),
    # Linear scaling, one K/V head for every query head (multi-query), untied head.
    ("llama_linear", 12, dict(BASE, model_type="llama", architectures=["LlamaForCausalLM"],
                              hidden_size=16, intermediate_size=24, num_attention_heads=4,
                              num_key_value_heads=1, rope_theta=10000.0,
                              rope_scaling={"type": "linear", "factor": 2.0},
                              tie_word_embeddings=False)),
    # Mistral: a sliding window of 3 tokens over 7.
    ("mistral", 13, dict(BASE, model_type="mistral", architectures=["MistralForCausalLM"],
                         hidden_size=16, intermediate_size=24, num_attention_heads=4,
                         num_key_value_heads=2, rope_theta=10000.0, sliding_window=3,
                         tie_word_embeddings=False)),
    # Qwen2: q/k/v biases, rope_theta 1e6, tied.
    ("qwen2", 14, dict(BASE, model_type="qwen2", architectures=["Qwen2ForCausalLM"],
                       hidden_size=16, intermediate_size=24, num_attention_heads=4,
                       num_key_value_heads=2, rope_theta=1000000.0, tie_word_embeddings=True,
                       use_sliding_window=False, sliding_window=4096)),
    # Qwen3: head_dim given (4 heads of 8 on a width of 16), q_norm and k_norm.
    ("qwen3", 15, dict(BASE, model_type="qwen3", architectures=["Qwen3ForCausalLM"],
                       hidden_size=16, intermediate_size=24, num_attention_heads=4,
                       num_key_value_heads=2, head_dim=8, rope_theta=1000000.0,
                       tie_word_embeddings=True, attention_bias=False)),
]


def dims(c):
    h = c["num_attention_heads"]
    return (c["hidden_size"], h, c.get("num_key_value_heads", h),
            c.get("head_dim", c["hidden_size"] // h), c["intermediate_size"], c["vocab_size"])


def draw_weights(c, seed):
    """The tensor table's order with make_random_weights' mean and std per role."""
    torch.manual_seed(seed)
    D, H, G, hd, F, V = dims(c)
    bias = c["model_type"] == "qwen2"
    qk_norm = c["model_type"] == "qwen3"

    def normal(shape, mean, std):
        return torch.empty(shape).normal_(mean, std)

    w = {"embed": normal((V, D), 0.0, 0.5), "layers": []}
    for _ in range(c["num_hidden_layers"]):
        l = {}
        l["q"] = normal((H * hd, D), 0.0, 0.4)
        if bias:
            l["q_bias"] = normal((H * hd,), 0.0, 0.1)
        l["k"] = normal((G * hd, D), 0.0, 0.4)
        if bias:
            l["k_bias"] = normal((G * hd,), 0.0, 0.1)
        l["v"] = normal((G * hd, D), 0.0, 0.4)
        if bias:
            l["v_bias"] = normal((G * hd,), 0.0, 0.1)
        l["o"] = normal((D, H * hd), 0.0, 0.3)
        if qk_norm:
            l["q_norm"] = normal((hd,), 1.0, 0.1)
            l["k_norm"] = normal((hd,), 1.0, 0.1)
        l["gate"] = normal((F, D), 0.0, 0.3)
        l["up"] = normal((F, D), 0.0, 0.3)
        l["down"] = normal((D, F), 0.0, 0.2)
        l["input_layernorm"] = normal((D,), 1.0, 0.1)
        l["post_attention_layernorm"] = normal((D,), 1.0, 0.1)
        w["layers"].append(l)
    w["norm"] = normal((D,), 1.0, 0.1)
    if not c.get("tie_word_embeddings", False):
        w["lm_head"] = normal((V, D), 0.0, 0.5)
    return w


def inv_freq_of(c, hd):
    """transformers' rope initialisation functions (default, linear, llama3), in float32."""
    base = c.get("rope_theta", 10000.0)
    inv_freq = 1.0 / (base ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    s = c.get("rope_scaling")
    if not s:
        return inv_freq
    kind = s.get("rope_type", s.get("type"))
    if kind == "linear":
        return inv_freq / s["factor"]
    assert kind == "llama3"
    factor, low, high = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
    old = s["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * inv_freq_llama / factor + smooth * inv_freq_llama
    medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
    return torch.where(medium, smoothed, inv_freq_llama)


def rms_norm(x, weight, eps):
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def forward(c, w, ids):
    D, H, G, hd, F, V = dims(c)
    eps = c["rms_norm_eps"]
    T = len(ids)
    h = w["embed"].double()[torch.tensor(ids)]
    freqs = torch.outer(torch.arange(T).float(), inv_freq_of(c, hd))
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().double(), emb.sin().double()
    i = torch.arange(T).view(T, 1)
    j = torch.arange(T).view(1, T)
    mask = j > i
    if c["model_type"] == "mistral" and c.get("sliding_window"):
        mask = mask | (j <= i - c["sliding_window"])
    attentions = []
    for l in w["layers"]:
        l = {k: v.double() for k, v in l.items()}
        a = rms_norm(h, l["input_layernorm"], eps)
        q, k, v = a @ l["q"].T, a @ l["k"].T, a @ l["v"].T
        if "q_bias" in l:
            q, k, v = q + l["q_bias"], k + l["k_bias"], v + l["v_bias"]
        q, k, v = q.view(T, H, hd), k.view(T, G, hd), v.view(T, G, hd)
        if "q_norm" in l:
            q, k = rms_norm(q, l["q_norm"], eps), rms_norm(k, l["k_norm"], eps)
        q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(H // G, dim=0)
        v = v.repeat_interleave(H // G, dim=0)
        scores = (q @ k.transpose(1, 2)) / math.sqrt(hd)
        weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        attentions.append(weights)
        h = h + (weights @ v).transpose(0, 1).reshape(T, H * hd) @ l["o"].T
        m = rms_norm(h, l["post_attention_layernorm"], eps)
        h = h + (torch.nn.functional.silu(m @ l["gate"].T) * (m @ l["up"].T)) @ l["down"].T
    head = w.get("lm_head", w["embed"]).double()
    return attentions, rms_norm(h, w["norm"].double(), eps) @ head.T


def floats(t):
    return ", ".join(repr(float(x)) for x in t.flatten().tolist())


print("// Generated by tests/reference/llama_families_reference.py with PyTorch " + torch.__version__)
print("// /usr/bin/python3 tests/reference/llama_families_reference.py >")
print("// tests/reference/llama_families_reference.h &&")
print("// clang-format -i tests/reference/llama_families_reference.h")
print("#pragma once\n\n#include <vector>\n\nnamespace llama_families_reference {\n")
print("struct Model {\n    const char* name;\n    unsigned seed;\n    const char* config_json;")
print("    // [layer][head] row-major (T, T) flattened in that order; logits (T, vocab) row-major.")
print("    std::vector<double> attentions, logits;\n};\n")
print("inline const std::vector<int> kIds = {" + ", ".join(str(i) for i in IDS) + "};\n")
print("inline const std::vector<Model> kModels = {")
for name, seed, config in MODELS:
    attentions, logits = forward(config, draw_weights(config, seed), IDS)
    text = json.dumps(config, indent=1)
    print("    {\"%s\", %d, R\"json(%s)json\"," % (name, seed, text))
    print("     {" + floats(torch.stack(attentions)) + "},")
    print("     {" + floats(logits) + "}},")
print("};\n\n}  // namespace llama_families_reference")
