#!/usr/bin/python3
"""A tiny GGUF file written with struct and NumPy from ggml's docs/gguf.md, independently of the
C++ reader and of tests/support/gguf_writer.cpp, for tests/app/test_gguf.cpp:

  /usr/bin/python3 tests/reference/gguf_sample.py > tests/reference/gguf_sample_reference.h
  clang-format -i tests/reference/gguf_sample_reference.h

writes tests/data/gguf/sample.gguf and prints the values the reader must find in it. Version 3,
general.alignment 64, one metadata key of every value type (an array of arrays and an empty
array too), a small vocabulary, and F32, F16 and Q8_0 tensors whose data is padded to 64 bytes
after each tensor, the last one included, as llama.cpp's gguf-py writes files.

A third reader agrees: Hugging Face's @huggingface/gguf 0.4.6 (npm) reads the same metadata,
tensor infos and data offset (1152) from sample.gguf, and from the test writer's files too:

  tmp=$(mktemp -d) && cd "$tmp" && npm install --no-save @huggingface/gguf@0.4.6
  node --input-type=module -e 'import {gguf} from "@huggingface/gguf";
    const r = await gguf(process.argv[1], {allowLocalFile: true});
    console.log(r.metadata, r.tensorInfos, r.tensorDataOffset)' /path/to/sample.gguf
"""
import os
import struct

import numpy as np

COMMAND = "/usr/bin/python3 tests/reference/gguf_sample.py > tests/reference/gguf_sample_reference.h"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "gguf", "sample.gguf")
ALIGNMENT = 64

# GGUF value types.
UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = \
    range(13)
FORMATS = {UINT8: "<B", INT8: "<b", UINT16: "<H", INT16: "<h", UINT32: "<I", INT32: "<i",
           FLOAT32: "<f", BOOL: "<?", UINT64: "<Q", INT64: "<q", FLOAT64: "<d"}
# ggml types.
F32, F16, Q8_0 = 0, 1, 8


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


rng = np.random.default_rng(20261126)
tokens = ["<s>", "</s>", "a", "b", "ab", "é", "▁the"]
scores = [float(np.float32(x)) for x in rng.normal(size=len(tokens))]
token_types = [3, 3, 1, 1, 1, 1, 1]
metadata = [
    ("general.architecture", STRING, "llama"),
    ("general.alignment", UINT32, ALIGNMENT),
    ("general.name", STRING, "Tiny sample ✓"),
    ("llama.context_length", UINT32, 2048),
    ("llama.embedding_length", UINT64, 8),
    ("llama.attention.layer_norm_rms_epsilon", FLOAT32, float(np.float32(1e-5))),
    ("test.uint8", UINT8, 200),
    ("test.int8", INT8, -100),
    ("test.uint16", UINT16, 60000),
    ("test.int16", INT16, -30000),
    ("test.uint32", UINT32, 4000000000),
    ("test.int32", INT32, -2000000000),
    ("test.float32", FLOAT32, float(np.float32(0.1))),
    ("test.bool", BOOL, True),
    ("test.uint64", UINT64, 2**63 + 5),
    ("test.int64", INT64, -2**62 - 3),
    ("test.float64", FLOAT64, 1.0 / 3.0),
    ("test.nested", ARRAY, (ARRAY, [(UINT16, [1, 2]), (UINT16, [3])])),
    ("test.empty", ARRAY, (UINT8, [])),
    ("tokenizer.ggml.tokens", ARRAY, (STRING, tokens)),
    ("tokenizer.ggml.scores", ARRAY, (FLOAT32, scores)),
    ("tokenizer.ggml.token_type", ARRAY, (INT32, token_types)),
]

# numpy shapes are (rows, row length); GGUF lists ggml's ne, the row length first.
embd = rng.normal(size=(4, 8)).astype(np.float32)
attn_q = rng.normal(size=(8, 8)).astype(np.float16)
q8 = bytearray()
for _ in range(2):  # two Q8_0 blocks (one row of 64): f16 scale, 32 int8 quants each
    q8 += np.float16(rng.uniform(0.01, 0.1)).tobytes() + rng.integers(-127, 128, 32,
                                                                    dtype=np.int8).tobytes()
tensors = [
    ("token_embd.weight", [8, 4], F32, embd.tobytes()),
    ("blk.0.attn_q.weight", [8, 8], F16, attn_q.tobytes()),
    ("output.weight", [64, 1], Q8_0, bytes(q8)),
]


def align(n):
    return (n + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata)))
for key, vtype, value in metadata:
    out += gguf_string(key) + struct.pack("<I", vtype) + gguf_value(vtype, value)
offsets, offset = [], 0
for name, dims, ttype, data in tensors:
    offsets.append(offset)
    out += gguf_string(name) + struct.pack("<I", len(dims))
    out += b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<IQ", ttype, offset)
    offset = align(offset + len(data))
data_start = align(len(out))
out += bytes(data_start - len(out))
for (name, dims, ttype, data), off in zip(tensors, offsets):
    assert len(out) == data_start + off
    out += data + bytes(align(len(data)) - len(data))
os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "wb") as f:
    f.write(out)


def c_bytes(data):
    return ", ".join("0x%02x" % b for b in data)


print("// Generated by tests/reference/gguf_sample.py (NumPy %s); do not edit." % np.__version__)
print("// Regenerate with (it also writes tests/data/gguf/sample.gguf):")
print("//   " + COMMAND)
print("// and clang-format -i it.")
print("#pragma once")
print()
print("#include <cstdint>")
print("#include <vector>")
print()
print("namespace gguf_sample_reference {")
print()
print("inline constexpr long long kFileSize = %d;" % len(out))
print("inline constexpr long long kDataStart = %d;" % data_start)
print("inline constexpr unsigned kAlignment = %d;" % ALIGNMENT)
print("inline constexpr int kMetadataCount = %d;" % len(metadata))
print("inline const char* const kName = \"%s\";  // UTF-8" %
      "".join("\\x%02x" % b for b in "Tiny sample ✓".encode("utf-8")))
print("inline const std::vector<const char*> kTokens = {%s};" %
      ", ".join('"%s"' % "".join("\\x%02x" % b for b in t.encode("utf-8")) for t in tokens))
print("inline const std::vector<float> kScores = {%s};" % ", ".join("%sf" % repr(s) for s in scores))
print("inline const std::vector<long long> kTokenTypes = {%s};" %
      ", ".join(str(t) for t in token_types))
print()
print("struct Tensor {")
print("    const char* name;")
print("    std::vector<long long> dims;  // ggml order")
print("    std::uint32_t type;")
print("    unsigned long long offset, bytes;")
print("    std::vector<std::uint8_t> data;")
print("};")
print("inline const std::vector<Tensor> kTensors = {")
for (name, dims, ttype, data), off in zip(tensors, offsets):
    print("    {\"%s\", {%s}, %d, %d, %d, {%s}}," %
          (name, ", ".join(map(str, dims)), ttype, off, len(data), c_bytes(data)))
print("};")
print("// token_embd.weight as float32, row by row (numpy's (4, 8)).")
print("inline const std::vector<float> kEmbd = {%s};" %
      ", ".join("%sf" % repr(float(v)) for v in embd.flatten()))
print()
print("}  // namespace gguf_sample_reference")
