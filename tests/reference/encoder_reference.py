# Tiny random encoders (BERT, DistilBERT, RoBERTa) written as Hugging Face folders under
# tests/data/encoders/, and their forward passes as transformers computes them in eval mode, in
# plain torch operations in float64. Followed: transformers' models/bert/modeling_bert.py
# (BertEmbeddings, BertSelfAttention, BertSelfOutput, BertIntermediate, BertOutput, BertPooler,
# BertPredictionHeadTransform, BertLMPredictionHead, get_extended_attention_mask),
# models/distilbert/modeling_distilbert.py (Embeddings, MultiHeadSelfAttention, FFN,
# TransformerBlock, DistilBertForMaskedLM) and models/roberta/modeling_roberta.py
# (RobertaEmbeddings, create_position_ids_from_input_ids, RobertaLMHead), as of transformers
# v4.40 (the eager attention path; the SDPA path computes the same softmax). Post-norm blocks,
# exact erf GELU ("gelu"), scores / sqrt(head_dim) (DistilBERT divides q first), padding keys
# masked with finfo.min (BERT, RoBERTa: an additive (1 - mask) * finfo.min; DistilBERT:
# masked_fill where mask == 0), RoBERTa's positions padding_idx + 1 + the count of real tokens so
# far (padding_idx for padding).
#
# The folders (safetensors written by hand: 8-byte little-endian header length, the JSON header
# padded with spaces to a multiple of 8, then the tensors in name order; tied weights not saved,
# as transformers saves safetensors) and the tokenizers (vocab.txt / tokenizer.json) are written
# next to the reference; the ids of every case come from tokenizing its text with this file's
# WordPiece and byte-level BPE, which follow BertTokenizer and RobertaTokenizer for these texts.
# Run from anywhere; prints tests/reference/encoder_reference.h:
#   /usr/bin/python3 tests/reference/encoder_reference.py > tests/reference/encoder_reference.h
#   clang-format -i tests/reference/encoder_reference.h
import json
import math
import os
import re
import struct
import unicodedata

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data", "encoders")
TRANSFORMERS_VERSION = "4.40.0"

D_MODEL, NUM_HEADS, NUM_LAYERS, D_FF, MAX_TOKENS = 32, 4, 2, 64, 24
HEAD_DIM = D_MODEL // NUM_HEADS

# ---------------------------------------------------------------------------------------------
# WordPiece vocabulary (bert-tiny, bert-tiny-base, distilbert-tiny)

SPECIALS = ["[PAD]", "[unused0]", "[unused1]", "[unused2]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = """
your journey starts start started begins begin with one step steps every single a an the of and to
in is it you that he she was for on are as his her they i at be this have from or had by not word
but what some we can out other were all there when up use how said each which do their time if
will way about many then them would like so these long make thing see him two has look more day
could go come did number no most people my over know water than call first who may down side been
now find new world hello life small road travel thousand miles mile cat sat mat dog walk play run
attention token model learn read book good great little old big man woman child house home city
slow country car tree sun moon star night morning year week after before again here where why very
just only also because through into under between
""".split()
SUFFIXES = ["##s", "##ing", "##ed", "##ly", "##er", "##est", "##es", "##ion", "##ness", "##ment",
            "##ful", "##able", "##y", "##en", "##al", "##ous", "##ward"]
CJK = list("你的旅程从一步开始我是人在有他这中大来上国个到说们为子和地出道也时年学生好天日月水火山")


def wordpiece_vocab():
    vocab = list(SPECIALS)
    vocab += [chr(c) for c in range(33, 127) if not chr(c).isupper()]  # punctuation, digits, a-z
    vocab += ["。", "，", "！", "？"]
    letters = ["##" + chr(c) for c in range(ord("a"), ord("z") + 1)]
    for token in CJK + WORDS + SUFFIXES + letters:
        if token not in vocab:
            vocab.append(token)
    assert len(set(vocab)) == len(vocab)
    return vocab


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_cjk(ch):
    cp = ord(ch)
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def wordpiece_tokens(text, vocab):
    # BertTokenizer with do_lower_case: special tokens split off first, then lower case, accents
    # stripped, CJK characters and punctuation split, greedy longest-match-first pieces.
    out = []
    for part in re.split(r"(\[MASK\]|\[CLS\]|\[SEP\]|\[PAD\]|\[UNK\])", text):
        if part in SPECIALS:
            out.append(part)
            continue
        part = unicodedata.normalize("NFD", part.lower())
        part = "".join(c for c in part if unicodedata.category(c) != "Mn")
        part = "".join(f" {c} " if is_cjk(c) or is_punctuation(c) else c for c in part)
        for word in part.split():
            start, pieces = 0, []
            while start < len(word):
                end = len(word)
                while end > start:
                    piece = ("##" if start else "") + word[start:end]
                    if piece in vocab:
                        break
                    end -= 1
                if end == start:
                    pieces = ["[UNK]"]
                    break
                pieces.append(piece)
                start = end
            out += pieces
    return out


# ---------------------------------------------------------------------------------------------
# Byte-level BPE (roberta-tiny), trained here on a few sentences

def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


BYTE_SYMBOL = bytes_to_unicode()
# GPT-2's pattern; \p{L} and \p{N} spelt for Python's re (enough for these ASCII texts).
GPT2_SPLIT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?[^\s\w]+|\s+(?!\S)|\s+""")
BPE_CORPUS = ["Your journey starts with one step."] * 6 + [
    "Every journey begins with a single step.",
    "Every journey begins with a single step.",
    "The cat sat on the mat.",
    "The dog walked slowly on the road.",
    "Walking slowly, the people started their journey.",
    "Attention is all you need.",
]
NUM_MERGES = 90


def byte_symbols(word):
    return tuple(BYTE_SYMBOL[b] for b in word.encode("utf-8"))


def train_bpe():
    counts = {}
    for line in BPE_CORPUS:
        for word in GPT2_SPLIT.findall(line):
            key = byte_symbols(word)
            counts[key] = counts.get(key, 0) + 1
    merges = []
    for _ in range(NUM_MERGES):
        pairs = {}
        for word, n in counts.items():
            for pair in zip(word, word[1:]):
                pairs[pair] = pairs.get(pair, 0) + n
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))  # most frequent, then the smallest pair
        merges.append(best)
        merged = {}
        for word, n in counts.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + n
        counts = merged
    return merges


def bpe_vocab(merges):
    vocab = ["<s>", "<pad>", "</s>", "<unk>"] + [BYTE_SYMBOL[b] for b in range(256)]
    for a, b in merges:
        if a + b not in vocab:
            vocab.append(a + b)
    vocab.append("<mask>")
    return vocab


def bpe_word(word, ranks):
    symbols = list(byte_symbols(word))
    while len(symbols) > 1:
        rank = min(ranks.get(pair, math.inf) for pair in zip(symbols, symbols[1:]))
        if rank == math.inf:
            break
        out, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and ranks.get((symbols[i], symbols[i + 1])) == rank:
                out.append(symbols[i] + symbols[i + 1])
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        symbols = out
    return symbols


def bpe_tokens(text, ranks):
    # RobertaTokenizer: "<mask>" (lstrip) takes the spaces before it; the rest byte-level BPE.
    out = []
    for part in re.split(r"( *<mask>)", text):
        if part.strip() == "<mask>":
            out.append("<mask>")
        elif part:
            for word in GPT2_SPLIT.findall(part):
                out += bpe_word(word, ranks)
    return out


# ---------------------------------------------------------------------------------------------
# Weights

def draw(names_shapes, seed):
    # Projections and embeddings ~ N(0, 0.3²), LayerNorm weights 1 + 0.2·N, biases 0.1·N: far
    # from uniform attention, so a wrong scale, a missing mask or a wrong norm shows.
    g = torch.Generator().manual_seed(seed)
    w = {}
    for name, shape in names_shapes:
        x = torch.randn(shape, generator=g, dtype=torch.float32)
        if "LayerNorm.weight" in name or "layer_norm.weight" in name:
            x = 1.0 + 0.2 * x
        elif name.endswith("bias"):
            x = 0.1 * x
        else:
            x = 0.3 * x
        w[name] = x
    return w


def bert_layer_names(prefix, layer):
    p = f"{prefix}encoder.layer.{layer}."
    d, f = D_MODEL, D_FF
    return [(p + "attention.self.query.weight", (d, d)), (p + "attention.self.query.bias", (d,)),
            (p + "attention.self.key.weight", (d, d)), (p + "attention.self.key.bias", (d,)),
            (p + "attention.self.value.weight", (d, d)), (p + "attention.self.value.bias", (d,)),
            (p + "attention.output.dense.weight", (d, d)),
            (p + "attention.output.dense.bias", (d,)),
            (p + "attention.output.LayerNorm.weight", (d,)),
            (p + "attention.output.LayerNorm.bias", (d,)),
            (p + "intermediate.dense.weight", (f, d)), (p + "intermediate.dense.bias", (f,)),
            (p + "output.dense.weight", (d, f)), (p + "output.dense.bias", (d,)),
            (p + "output.LayerNorm.weight", (d,)), (p + "output.LayerNorm.bias", (d,))]


def bert_names(prefix, vocab_size, positions, type_vocab, head):
    d = D_MODEL
    names = [(prefix + "embeddings.word_embeddings.weight", (vocab_size, d)),
             (prefix + "embeddings.position_embeddings.weight", (positions, d)),
             (prefix + "embeddings.token_type_embeddings.weight", (type_vocab, d)),
             (prefix + "embeddings.LayerNorm.weight", (d,)),
             (prefix + "embeddings.LayerNorm.bias", (d,))]
    for layer in range(NUM_LAYERS):
        names += bert_layer_names(prefix, layer)
    if head == "bert":
        names += [("cls.predictions.transform.dense.weight", (d, d)),
                  ("cls.predictions.transform.dense.bias", (d,)),
                  ("cls.predictions.transform.LayerNorm.weight", (d,)),
                  ("cls.predictions.transform.LayerNorm.bias", (d,)),
                  ("cls.predictions.bias", (vocab_size,))]
    elif head == "roberta":
        names += [("lm_head.dense.weight", (d, d)), ("lm_head.dense.bias", (d,)),
                  ("lm_head.layer_norm.weight", (d,)), ("lm_head.layer_norm.bias", (d,)),
                  ("lm_head.bias", (vocab_size,))]
    elif head == "pooler":
        names += [("pooler.dense.weight", (d, d)), ("pooler.dense.bias", (d,))]
    return names


def distilbert_names(vocab_size):
    d, f = D_MODEL, D_FF
    p = "distilbert."
    names = [(p + "embeddings.word_embeddings.weight", (vocab_size, d)),
             (p + "embeddings.position_embeddings.weight", (MAX_TOKENS, d)),
             (p + "embeddings.LayerNorm.weight", (d,)), (p + "embeddings.LayerNorm.bias", (d,))]
    for layer in range(NUM_LAYERS):
        q = f"{p}transformer.layer.{layer}."
        for lin in ["q_lin", "k_lin", "v_lin", "out_lin"]:
            names += [(q + f"attention.{lin}.weight", (d, d)), (q + f"attention.{lin}.bias", (d,))]
        names += [(q + "sa_layer_norm.weight", (d,)), (q + "sa_layer_norm.bias", (d,)),
                  (q + "ffn.lin1.weight", (f, d)), (q + "ffn.lin1.bias", (f,)),
                  (q + "ffn.lin2.weight", (d, f)), (q + "ffn.lin2.bias", (d,)),
                  (q + "output_layer_norm.weight", (d,)), (q + "output_layer_norm.bias", (d,))]
    names += [("vocab_transform.weight", (d, d)), ("vocab_transform.bias", (d,)),
              ("vocab_layer_norm.weight", (d,)), ("vocab_layer_norm.bias", (d,)),
              ("vocab_projector.bias", (vocab_size,))]
    return names


# ---------------------------------------------------------------------------------------------
# Safetensors, by hand

TORCH_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def rounded(w, dtype):
    # The weights as the file stores them (round to nearest even), widened back to float32.
    return {k: v.to(TORCH_DTYPES[dtype]).to(torch.float32) for k, v in w.items()}


def tensor_bytes(t, dtype):
    t = t.to(TORCH_DTYPES[dtype]).contiguous()
    if dtype == "BF16":
        return t.view(torch.int16).numpy().astype("<i2").tobytes()
    return t.numpy().astype("<f4" if dtype == "F32" else "<f2").tobytes()


def write_safetensors(path, w, dtype):
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(w):
        data = tensor_bytes(w[name], dtype)
        header[name] = {"dtype": dtype, "shape": list(w[name].shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    body = raw[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        a, b = info["data_offsets"]
        chunk = body[a:b]
        if info["dtype"] == "F32":
            x = np.frombuffer(chunk, "<f4").astype(np.float32)
        elif info["dtype"] == "F16":
            x = np.frombuffer(chunk, "<f2").astype(np.float32)
        else:  # BF16: the high half of a float32
            x = (np.frombuffer(chunk, "<u2").astype(np.uint32) << 16).view(np.float32)
        out[name] = torch.from_numpy(x.copy()).reshape(info["shape"])
    return out


# ---------------------------------------------------------------------------------------------
# Forward passes, float64

def linear(x, w, prefix):
    return x @ w[prefix + ".weight"].t() + w[prefix + ".bias"]


def layer_norm(x, w, prefix, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w[prefix + ".weight"],
                                          w[prefix + ".bias"], eps)


def gelu(x):  # ACT2FN["gelu"]: exact, with erf
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def heads(x):  # (T, d) -> (H, T, hd)
    return x.view(x.shape[0], NUM_HEADS, HEAD_DIM).transpose(0, 1)


def bert_attention(x, w, p, mask):
    # BertSelfAttention: scores / sqrt(head_dim) + the extended mask, softmax, · values.
    q = heads(linear(x, w, p + "attention.self.query"))
    k = heads(linear(x, w, p + "attention.self.key"))
    v = heads(linear(x, w, p + "attention.self.value"))
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(HEAD_DIM)
    extended = (1.0 - mask.to(torch.float64))[None, None, :] * torch.finfo(torch.float64).min
    probs = torch.softmax(scores + extended, dim=-1)
    ctx = torch.matmul(probs, v).transpose(0, 1).reshape(x.shape[0], D_MODEL)
    return probs, ctx


def bert_encoder(w, prefix, ids, token_types, mask, positions, eps):
    ids_t = torch.tensor(ids)
    h = (w[prefix + "embeddings.word_embeddings.weight"][ids_t]
         + w[prefix + "embeddings.token_type_embeddings.weight"][torch.tensor(token_types)]
         + w[prefix + "embeddings.position_embeddings.weight"][torch.tensor(positions)])
    h = layer_norm(h, w, prefix + "embeddings.LayerNorm", eps)
    attentions = []
    for layer in range(NUM_LAYERS):
        p = f"{prefix}encoder.layer.{layer}."
        probs, ctx = bert_attention(h, w, p, mask)
        attentions.append(probs)
        h = layer_norm(linear(ctx, w, p + "attention.output.dense") + h, w,
                       p + "attention.output.LayerNorm", eps)
        f = gelu(linear(h, w, p + "intermediate.dense"))
        h = layer_norm(linear(f, w, p + "output.dense") + h, w, p + "output.LayerNorm", eps)
    return attentions, h


def bert_forward(w, m, ids, token_types, mask):
    prefix = m["prefix"]
    positions = list(range(len(ids)))
    if m["family"] == "roberta":  # create_position_ids_from_input_ids
        real = (torch.tensor(ids) != m["pad_id"]).int()
        positions = ((torch.cumsum(real, dim=0) * real).long() + m["pad_id"]).tolist()
    attentions, h = bert_encoder(w, prefix, ids, token_types, mask, positions, m["eps"])
    out = {"attentions": attentions, "hidden": h}
    word = w[prefix + "embeddings.word_embeddings.weight"]
    if m["head"] == "bert":  # BertPredictionHeadTransform, then the tied decoder + bias
        t = gelu(linear(h, w, "cls.predictions.transform.dense"))
        t = layer_norm(t, w, "cls.predictions.transform.LayerNorm", m["eps"])
        out["logits"] = t @ word.t() + w["cls.predictions.bias"]
    elif m["head"] == "roberta":  # RobertaLMHead
        t = gelu(linear(h, w, "lm_head.dense"))
        t = layer_norm(t, w, "lm_head.layer_norm", m["eps"])
        out["logits"] = t @ word.t() + w["lm_head.bias"]
    elif m["head"] == "pooler":  # BertPooler: tanh(dense(first token))
        out["pooled"] = torch.tanh(linear(h[0], w, "pooler.dense"))
    return out


def distilbert_forward(w, m, ids, token_types, mask):
    eps = m["eps"]
    p = "distilbert."
    h = (w[p + "embeddings.word_embeddings.weight"][torch.tensor(ids)]
         + w[p + "embeddings.position_embeddings.weight"][torch.arange(len(ids))])
    h = layer_norm(h, w, p + "embeddings.LayerNorm", eps)
    attentions = []
    for layer in range(NUM_LAYERS):
        q_ = f"{p}transformer.layer.{layer}."
        q = heads(linear(h, w, q_ + "attention.q_lin")) / math.sqrt(HEAD_DIM)
        k = heads(linear(h, w, q_ + "attention.k_lin"))
        v = heads(linear(h, w, q_ + "attention.v_lin"))
        scores = torch.matmul(q, k.transpose(-1, -2))
        masked = (mask == 0)[None, None, :].expand_as(scores)
        scores = scores.masked_fill(masked, torch.finfo(scores.dtype).min)
        probs = torch.softmax(scores, dim=-1)
        attentions.append(probs)
        ctx = torch.matmul(probs, v).transpose(0, 1).reshape(len(ids), D_MODEL)
        sa = layer_norm(linear(ctx, w, q_ + "attention.out_lin") + h, w, q_ + "sa_layer_norm", eps)
        ffn = linear(gelu(linear(sa, w, q_ + "ffn.lin1")), w, q_ + "ffn.lin2")
        h = layer_norm(ffn + sa, w, q_ + "output_layer_norm", eps)
    t = gelu(linear(h, w, "vocab_transform"))
    t = layer_norm(t, w, "vocab_layer_norm", eps)
    logits = t @ w[p + "embeddings.word_embeddings.weight"].t() + w["vocab_projector.bias"]
    return {"attentions": attentions, "hidden": h, "logits": logits}


def forward(w, m, ids, token_types, mask):
    w64 = {k: v.to(torch.float64) for k, v in w.items()}
    mask_t = torch.tensor(mask)
    if m["family"] == "distilbert":
        return distilbert_forward(w64, m, ids, token_types, mask_t)
    return bert_forward(w64, m, ids, token_types, mask_t)


# ---------------------------------------------------------------------------------------------
# The models and their folders

WP_VOCAB = wordpiece_vocab()
MERGES = train_bpe()
BPE_VOCAB = bpe_vocab(MERGES)
BPE_RANKS = {pair: i for i, pair in enumerate(MERGES)}

BERT_CONFIG = {"attention_probs_dropout_prob": 0.1, "classifier_dropout": None,
               "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": D_MODEL,
               "initializer_range": 0.02, "intermediate_size": D_FF, "layer_norm_eps": 1e-12,
               "max_position_embeddings": MAX_TOKENS, "model_type": "bert",
               "num_attention_heads": NUM_HEADS, "num_hidden_layers": NUM_LAYERS,
               "pad_token_id": 0, "position_embedding_type": "absolute",
               "transformers_version": TRANSFORMERS_VERSION, "type_vocab_size": 2,
               "use_cache": True, "vocab_size": len(WP_VOCAB)}
MODELS = [
    {"folder": "bert-tiny", "family": "bert", "architecture": "BertForMaskedLM", "dtype": "F32",
     "seed": 101, "prefix": "bert.", "head": "bert", "eps": 1e-12, "pad_id": 0,
     "positions": MAX_TOKENS, "type_vocab": 2, "vocab": WP_VOCAB},
    {"folder": "bert-tiny-base", "family": "bert", "architecture": "BertModel", "dtype": "BF16",
     "seed": 202, "prefix": "", "head": "pooler", "eps": 1e-12, "pad_id": 0,
     "positions": MAX_TOKENS, "type_vocab": 2, "vocab": WP_VOCAB},
    {"folder": "distilbert-tiny", "family": "distilbert", "architecture": "DistilBertForMaskedLM",
     "dtype": "F16", "seed": 303, "prefix": "distilbert.", "head": "distilbert", "eps": 1e-12,
     "pad_id": 0, "positions": MAX_TOKENS, "type_vocab": 0, "vocab": WP_VOCAB},
    {"folder": "roberta-tiny", "family": "roberta", "architecture": "RobertaForMaskedLM",
     "dtype": "F32", "seed": 404, "prefix": "roberta.", "head": "roberta", "eps": 1e-5,
     "pad_id": 1, "positions": MAX_TOKENS + 2, "type_vocab": 1, "vocab": BPE_VOCAB},
]
TORCH_DTYPE_NAMES = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}


def names_of(m):
    if m["family"] == "distilbert":
        return distilbert_names(len(m["vocab"]))
    return bert_names(m["prefix"], len(m["vocab"]), m["positions"], m["type_vocab"], m["head"])


def config_of(m):
    dtype = TORCH_DTYPE_NAMES[m["dtype"]]
    if m["family"] == "bert":
        return dict(BERT_CONFIG, architectures=[m["architecture"]], torch_dtype=dtype)
    if m["family"] == "distilbert":
        return {"activation": "gelu", "architectures": [m["architecture"]],
                "attention_dropout": 0.1, "dim": D_MODEL, "dropout": 0.1, "hidden_dim": D_FF,
                "initializer_range": 0.02, "max_position_embeddings": MAX_TOKENS,
                "model_type": "distilbert", "n_heads": NUM_HEADS, "n_layers": NUM_LAYERS,
                "pad_token_id": 0, "qa_dropout": 0.1, "seq_classif_dropout": 0.2,
                "sinusoidal_pos_embds": False, "tie_weights_": True, "torch_dtype": dtype,
                "transformers_version": TRANSFORMERS_VERSION, "vocab_size": len(WP_VOCAB)}
    return dict(BERT_CONFIG, architectures=[m["architecture"]], bos_token_id=0, eos_token_id=2,
                layer_norm_eps=1e-05, max_position_embeddings=MAX_TOKENS + 2,
                model_type="roberta", pad_token_id=1, torch_dtype=dtype, type_vocab_size=1,
                vocab_size=len(BPE_VOCAB))


def added_token(i, content, lstrip=False, normalized=False):
    return {"id": i, "content": content, "single_word": False, "lstrip": lstrip, "rstrip": False,
            "normalized": normalized, "special": True}


def wordpiece_tokenizer_json():
    ids = {t: i for i, t in enumerate(WP_VOCAB)}

    def special(t, type_id):
        return {"SpecialToken": {"id": t, "type_id": type_id}}

    def seq(s, type_id):
        return {"Sequence": {"id": s, "type_id": type_id}}

    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added_token(ids[t], t) for t in
                         ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]],
        "normalizer": {"type": "BertNormalizer", "clean_text": True,
                       "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0)],
            "pair": [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0), seq("B", 1),
                     special("[SEP]", 1)],
            "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]}
                               for t in ["[CLS]", "[SEP]"]}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": ids},
    }


def bpe_tokenizer_json():
    ids = {t: i for i, t in enumerate(BPE_VOCAB)}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added_token(0, "<s>", normalized=True),
                         added_token(1, "<pad>", normalized=True),
                         added_token(2, "</s>", normalized=True),
                         added_token(3, "<unk>", normalized=True),
                         added_token(ids["<mask>"], "<mask>", lstrip=True)],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                          "use_regex": True},
        "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
                           "trim_offsets": True, "add_prefix_space": False},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "", "fuse_unk": False,
                  "byte_fallback": False, "ignore_merges": False, "vocab": ids,
                  "merges": [f"{a} {b}" for a, b in MERGES]},
    }


def write_json(path, obj, sort_keys=False):
    # config.json and tokenizer_config.json with sorted keys, as transformers writes them;
    # tokenizer.json in the order tokenizers writes its fields.
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False, sort_keys=sort_keys)
        f.write("\n")


BERT_TOKENIZER_CONFIG = {"clean_up_tokenization_spaces": True, "cls_token": "[CLS]",
                         "do_basic_tokenize": True, "do_lower_case": True,
                         "mask_token": "[MASK]", "model_max_length": MAX_TOKENS,
                         "never_split": None, "pad_token": "[PAD]", "sep_token": "[SEP]",
                         "strip_accents": None, "tokenize_chinese_chars": True,
                         "tokenizer_class": "BertTokenizer", "unk_token": "[UNK]"}


def write_folder(m, w):
    folder = os.path.join(DATA, m["folder"])
    os.makedirs(folder, exist_ok=True)
    write_safetensors(os.path.join(folder, "model.safetensors"), w, m["dtype"])
    write_json(os.path.join(folder, "config.json"), config_of(m), True)
    if m["family"] == "bert":
        with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for t in WP_VOCAB))
        write_json(os.path.join(folder, "tokenizer_config.json"), BERT_TOKENIZER_CONFIG, True)
    elif m["family"] == "distilbert":
        write_json(os.path.join(folder, "tokenizer.json"), wordpiece_tokenizer_json())
        write_json(os.path.join(folder, "tokenizer_config.json"),
                   dict(BERT_TOKENIZER_CONFIG, tokenizer_class="DistilBertTokenizer"), True)
    else:
        write_json(os.path.join(folder, "tokenizer.json"), bpe_tokenizer_json())
        write_json(os.path.join(folder, "tokenizer_config.json"),
                   {"add_prefix_space": False, "bos_token": "<s>",
                    "clean_up_tokenization_spaces": True, "cls_token": "<s>",
                    "eos_token": "</s>", "errors": "replace", "mask_token": "<mask>",
                    "model_max_length": MAX_TOKENS, "pad_token": "<pad>", "sep_token": "</s>",
                    "tokenizer_class": "RobertaTokenizer", "trim_offsets": True,
                    "unk_token": "<unk>"}, True)
    back = read_safetensors(os.path.join(folder, "model.safetensors"))
    assert sorted(back) == sorted(w), m["folder"]
    for name, t in w.items():
        assert torch.equal(back[name], t), (m["folder"], name)


# ---------------------------------------------------------------------------------------------
# Cases: texts tokenized as the model's tokenizer does, the batch padded to the longest

WP_CASES = [("single", "Your journey [MASK] with one step.", None),
            ("pair", "Your journey starts with one step.", "你的旅程从一步开始"),
            ("batch", "Every journey begins with a single [MASK].", "Walking slowly.")]
BPE_CASES = [("single", "Your journey <mask> with one step.", None),
             ("pair", "Your journey starts with one step.", "The cat sat on the mat."),
             ("batch", "Every journey begins with a single <mask>.", "Walking slowly.")]


def encode(m, text, pair=None):
    # Tokens with the specials the post-processor adds, and the token types.
    if m["family"] == "roberta":
        a = ["<s>"] + bpe_tokens(text, BPE_RANKS) + ["</s>"]
        b = ["</s>"] + bpe_tokens(pair, BPE_RANKS) + ["</s>"] if pair else []
        return a + b, [0] * len(a + b)
    a = ["[CLS]"] + wordpiece_tokens(text, WP_VOCAB) + ["[SEP]"]
    b = wordpiece_tokens(pair, WP_VOCAB) + ["[SEP]"] if pair else []
    return a + b, [0] * len(a) + [1] * len(b)


def sequences_of(m, name, text, pair):
    vocab = {t: i for i, t in enumerate(m["vocab"])}
    if name != "batch":
        tokens, types = encode(m, text, pair)
        if m["family"] == "distilbert":
            types = []  # DistilBertTokenizer returns no token_type_ids
        return [{"text": text, "pair": pair, "tokens": tokens,
                 "ids": [vocab[t] for t in tokens], "types": types, "mask": [1] * len(tokens)}]
    out = [encode(m, t) for t in (text, pair)]
    length = max(len(tokens) for tokens, _ in out)
    pad = m["vocab"][m["pad_id"]]
    seqs = []
    for t, (tokens, types) in zip((text, pair), out):
        n = len(tokens)
        tokens = tokens + [pad] * (length - n)
        types = [] if m["family"] == "distilbert" else types + [0] * (length - n)
        seqs.append({"text": t, "pair": None, "tokens": tokens, "ids": [vocab[x] for x in tokens],
                     "types": types, "mask": [1] * n + [0] * (length - n)})
    return seqs


# ---------------------------------------------------------------------------------------------
# Checks of the numbers, independent where cheap

def check_attentions(result, mask):
    for probs in result["attentions"]:
        sums = probs.sum(dim=-1)
        assert torch.allclose(sums, torch.ones_like(sums), atol=1e-12, rtol=0)
        pad = torch.tensor(mask) == 0
        assert torch.all(probs[:, :, pad] == 0)  # padding keys get no weight


def check_padded(m, w, seq, result):
    # The padded row's numbers on real tokens equal those of the sequence alone.
    n = sum(seq["mask"])
    alone = forward(w, m, seq["ids"][:n], (seq["types"] or [0] * n)[:n], [1] * n)
    for a, b in zip(result["attentions"], alone["attentions"]):
        assert torch.allclose(a[:, :n, :n], b, atol=1e-12, rtol=0)
    assert torch.allclose(result["hidden"][:n], alone["hidden"], atol=1e-10, rtol=0)
    if "logits" in result:
        assert torch.allclose(result["logits"][:n], alone["logits"], atol=1e-10, rtol=0)


def torch_layer_weights(m, w64, layer):
    # One block's weights under torch.nn.TransformerEncoderLayer's names.
    if m["family"] == "distilbert":
        q = f"distilbert.transformer.layer.{layer}."
        qkv = [q + f"attention.{x}_lin" for x in ("q", "k", "v")]
        out, up, down = q + "attention.out_lin", q + "ffn.lin1", q + "ffn.lin2"
        norm1, norm2 = q + "sa_layer_norm", q + "output_layer_norm"
    else:
        q = f"{m['prefix']}encoder.layer.{layer}."
        qkv = [q + f"attention.self.{x}" for x in ("query", "key", "value")]
        out, up, down = q + "attention.output.dense", q + "intermediate.dense", q + "output.dense"
        norm1, norm2 = q + "attention.output.LayerNorm", q + "output.LayerNorm"
    sd = {"self_attn.in_proj_weight": torch.cat([w64[x + ".weight"] for x in qkv]),
          "self_attn.in_proj_bias": torch.cat([w64[x + ".bias"] for x in qkv])}
    for mine, theirs in [("self_attn.out_proj", out), ("linear1", up), ("linear2", down),
                         ("norm1", norm1), ("norm2", norm2)]:
        sd[mine + ".weight"] = w64[theirs + ".weight"]
        sd[mine + ".bias"] = w64[theirs + ".bias"]
    return sd


def check_with_torch_layers(m, w, seqs, results):
    # The blocks of all three are torch.nn.TransformerEncoderLayer (post-norm, exact GELU) and
    # their attention nn.MultiheadAttention: run the batch through them, with the key padding
    # mask, and compare every attention and the last hidden state.
    p = m["prefix"]
    w64 = {k: v.to(torch.float64) for k, v in w.items()}
    ids = torch.tensor([s["ids"] for s in seqs])
    pad = torch.tensor([s["mask"] for s in seqs]) == 0
    if m["family"] == "roberta":
        real = (~pad).long()
        positions = torch.cumsum(real, dim=1) * real + m["pad_id"]
    else:
        positions = torch.arange(ids.shape[1]).expand_as(ids)
    emb = torch.nn.functional.embedding
    h = (emb(ids, w64[p + "embeddings.word_embeddings.weight"])
         + emb(positions, w64[p + "embeddings.position_embeddings.weight"]))
    if m["family"] != "distilbert":
        types = torch.tensor([s["types"] for s in seqs])
        h = h + emb(types, w64[p + "embeddings.token_type_embeddings.weight"])
    h = torch.nn.functional.layer_norm(h, (D_MODEL,), w64[p + "embeddings.LayerNorm.weight"],
                                       w64[p + "embeddings.LayerNorm.bias"], m["eps"])
    for layer in range(NUM_LAYERS):
        block = torch.nn.TransformerEncoderLayer(D_MODEL, NUM_HEADS, D_FF, dropout=0.0,
                                                 activation="gelu", layer_norm_eps=m["eps"],
                                                 batch_first=True, dtype=torch.float64).eval()
        block.load_state_dict(torch_layer_weights(m, w64, layer))
        with torch.no_grad():
            _, probs = block.self_attn(h, h, h, key_padding_mask=pad, need_weights=True,
                                       average_attn_weights=False)
            for b, r in enumerate(results):
                assert torch.allclose(probs[b], r["attentions"][layer], atol=1e-12, rtol=0)
            h = block(h, src_key_padding_mask=pad)
    for b, r in enumerate(results):
        assert torch.allclose(h[b], r["hidden"], atol=1e-10, rtol=0), (m["folder"], b)


# ---------------------------------------------------------------------------------------------
# The header

def floats(t):
    return ", ".join(f"{float(np.float32(x)):.8e}f" for x in t.reshape(-1).tolist())


def ints(xs):
    return "{" + ", ".join(str(x) for x in xs) + "}"


def cstr(s):
    return "nullptr" if s is None else json.dumps(s, ensure_ascii=False)


def mask_tops(m, seq, logits):
    mask_id = len(m["vocab"]) - 1 if m["family"] == "roberta" else m["vocab"].index("[MASK]")
    out = []
    for pos, i in enumerate(seq["ids"]):
        if i == mask_id and seq["mask"][pos]:
            probs = torch.softmax(logits[pos], dim=-1)
            top = torch.topk(probs, 5)
            out.append("{%d, {%s}}" % (pos, ", ".join(
                "{%d, %.8ef}" % (int(k), float(np.float32(v)))
                for v, k in zip(top.values.tolist(), top.indices.tolist()))))
    return "{" + ", ".join(out) + "}"


def special_ids(m):
    v = {t: i for i, t in enumerate(m["vocab"])}
    if m["family"] == "roberta":
        return v["<pad>"], v["<mask>"], v["<s>"], v["</s>"], v["<unk>"]
    return v["[PAD]"], v["[MASK]"], v["[CLS]"], v["[SEP]"], v["[UNK]"]


HEADER_TOP = """// Generated by tests/reference/encoder_reference.py with PyTorch {torch}
// /usr/bin/python3 tests/reference/encoder_reference.py > tests/reference/encoder_reference.h
// clang-format -i tests/reference/encoder_reference.h
// The script also writes the model folders of tests/data/encoders/ (see its README.md).
#pragma once

#include <vector>

namespace attn::ref::encoder {{

// One model folder, tests/data/encoders/<folder>/, as config.json describes it.
struct Model {{
    const char* folder;
    const char* family;        // config.json's model_type
    const char* architecture;  // config.json's architectures[0]
    const char* dtype;         // every tensor of model.safetensors: "F32", "F16", "BF16"
    int num_layers, num_heads, head_dim, d_model, d_ff, vocab_size, max_positions;
    int type_vocab_size;  // 0: no token-type table (DistilBERT)
    float norm_eps;       // every LayerNorm of the model
    bool mlm_head;        // false: BertModel, with the pooler instead
    int pad_id, mask_id, cls_id, sep_id, unk_id;
}};

struct TopToken {{
    int id;
    float prob;
}};
// A [MASK] / <mask> position and the five most probable tokens there, best first.
struct MaskTop {{
    int position;
    std::vector<TopToken> top;
}};

// One input row. T = ids.size(); a padded row of a batch has the batch's length.
struct Sequence {{
    const char* text;       // what the tokenizer was given
    const char* text_pair;  // the second segment of a pair, else nullptr
    std::vector<const char*> tokens;  // the tokenizer's pieces, specials included
    std::vector<int> ids;
    std::vector<int> token_type_ids;  // empty for DistilBERT (its tokenizer gives none)
    std::vector<int> attention_mask;  // 1 real token, 0 padding
    // [layer][head] (T, T) row-major, flattened in that order: attn_weights, as
    // output_attentions gives them (padding rows included).
    std::vector<float> attentions;
    std::vector<float> hidden;  // (T, d_model) last_hidden_state
    std::vector<float> logits;  // (T, vocab_size) the masked-LM head's; empty without the head
    std::vector<float> pooled;  // (d_model) BertModel's pooler_output; empty with the head
    std::vector<MaskTop> masks;  // every real [MASK] position, from the logits
}};

struct Case {{
    const char* folder;  // the model
    const char* name;    // "single", "pair" or "batch"
    // batch: two sequences of different lengths padded to the longer with pad_id (token type 0,
    // attention_mask 0), run together; else one.
    std::vector<Sequence> sequences;
}};
"""


def main():
    models_out, cases_out = [], []
    for m in MODELS:
        w = draw(names_of(m), m["seed"])
        if m["dtype"] != "F32":
            w = rounded(w, m["dtype"])
        write_folder(m, w)
        pad_id, mask_id, cls_id, sep_id, unk_id = special_ids(m)
        vsize = len(m["vocab"])
        models_out.append(
            f'{{"{m["folder"]}", "{m["family"]}", "{m["architecture"]}", "{m["dtype"]}", '
            f'{NUM_LAYERS}, {NUM_HEADS}, {HEAD_DIM}, {D_MODEL}, {D_FF}, {vsize}, '
            f'{m["positions"]}, {m["type_vocab"]}, {m["eps"]:g}f, '
            f'{"false" if m["head"] == "pooler" else "true"}, '
            f'{pad_id}, {mask_id}, {cls_id}, {sep_id}, {unk_id}}}')
        cases = BPE_CASES if m["family"] == "roberta" else WP_CASES
        for name, text, pair in cases:
            if m["family"] == "distilbert" and name == "pair":
                continue
            seqs = sequences_of(m, name, text, pair)
            results = []
            for s in seqs:
                assert "[UNK]" not in s["tokens"] and len(s["ids"]) <= MAX_TOKENS
                r = forward(w, m, s["ids"], s["types"] or [0] * len(s["ids"]), s["mask"])
                check_attentions(r, s["mask"])
                if name == "batch":
                    check_padded(m, w, s, r)
                results.append(r)
            check_with_torch_layers(m, w, seqs, results)
            body = []
            for s, r in zip(seqs, results):
                logits = r.get("logits")
                body.append(
                    f'{{{cstr(s["text"])}, {cstr(s["pair"])}, '
                    f'{{{", ".join(cstr(t) for t in s["tokens"])}}}, '
                    f'{ints(s["ids"])}, {ints(s["types"])}, {ints(s["mask"])},\n'
                    f'{{{floats(torch.stack(r["attentions"]))}}},\n'
                    f'{{{floats(r["hidden"])}}},\n'
                    f'{{{floats(logits) if logits is not None else ""}}},\n'
                    f'{{{floats(r["pooled"]) if "pooled" in r else ""}}},\n'
                    f'{mask_tops(m, s, logits) if logits is not None else "{}"}}}')
            cases_out.append(f'{{"{m["folder"]}", "{name}", {{{", ".join(body)}}}}}')
    print(HEADER_TOP.format(torch=torch.__version__))
    print("inline const std::vector<Model> kModels = {" + ",\n".join(models_out) + "};\n")
    print("inline const std::vector<Case> kCases = {" + ",\n".join(cases_out) + "};\n")
    print("}  // namespace attn::ref::encoder")


if __name__ == "__main__":
    main()
