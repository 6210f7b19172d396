#!/usr/bin/python3
"""Reference rows of ggml's block formats for tests/model/test_quant.cpp: random blocks packed
by ggml's layout (ggml/src/ggml-common.h: block_q4_0 ... block_q6_K) with numpy, and their values
as ggml's dequantize_row_* (ggml/src/ggml-quants.c) computes them, written again here in numpy
float32 with the C code's operations in its order, so the expected floats are exact.

  /usr/bin/python3 tests/reference/quant_reference.py > tests/reference/quant_reference.h
  clang-format -i tests/reference/quant_reference.h

Each block draws its halves (d, m, dmin) from every kind: zero, negative, subnormal, the largest
finite (65504) and ordinary values (no inf or NaN), and its quants from random bytes, all-zero
and all-ones nibbles (the largest quant), and int8 extremes (-128, 127).
"""
import numpy as np

RNG = np.random.default_rng(20261126)

# ggml type number: (name, values per block, bytes per block)
TYPES = {
    0: ("F32", 1, 4), 1: ("F16", 1, 2), 30: ("BF16", 1, 2),
    2: ("Q4_0", 32, 18), 3: ("Q4_1", 32, 20), 6: ("Q5_0", 32, 22), 7: ("Q5_1", 32, 24),
    8: ("Q8_0", 32, 34), 12: ("Q4_K", 256, 144), 13: ("Q5_K", 256, 176), 14: ("Q6_K", 256, 210),
}


def half_bits():
    """One half's bits: ordinary, zero, negative zero, subnormal, largest finite, or small."""
    kind = RNG.integers(0, 8)
    if kind == 0:
        return 0x0000
    if kind == 1:
        return 0x8000
    if kind == 2:
        return int(RNG.integers(1, 0x400)) | (int(RNG.integers(0, 2)) << 15)  # subnormal
    if kind == 3:
        return 0x7BFF | (int(RNG.integers(0, 2)) << 15)  # +-65504
    v = np.float16(RNG.normal(0.0, 0.05))
    return int(np.array([v], dtype="<f2").view("<u2")[0])


def halves(*bits):
    return np.array(bits, dtype="<u2").view(np.uint8)


def quant_bytes(count):
    """Quant bytes: random, all zero, or all ones (every nibble and bit at its largest)."""
    kind = RNG.integers(0, 5)
    if kind == 0:
        return np.zeros(count, np.uint8)
    if kind == 1:
        return np.full(count, 0xFF, np.uint8)
    return RNG.integers(0, 256, count, dtype=np.uint8)


def h2f(b):  # little-endian half at bytes b[0:2] -> float32, exact
    return np.frombuffer(bytes(b[:2]), dtype="<f2").astype(np.float32)[0]


def pack_block(name):
    if name == "Q4_0":
        return np.concatenate([halves(half_bits()), quant_bytes(16)])
    if name == "Q4_1":
        return np.concatenate([halves(half_bits(), half_bits()), quant_bytes(16)])
    if name == "Q5_0":
        return np.concatenate([halves(half_bits()), quant_bytes(4), quant_bytes(16)])
    if name == "Q5_1":
        return np.concatenate([halves(half_bits(), half_bits()), quant_bytes(4), quant_bytes(16)])
    if name == "Q8_0":
        qs = quant_bytes(32)
        qs[RNG.integers(0, 32)] = 0x80  # -128
        qs[RNG.integers(0, 32)] = 0x7F
        return np.concatenate([halves(half_bits()), qs])
    if name == "Q4_K":
        return np.concatenate([halves(half_bits(), half_bits()), quant_bytes(12), quant_bytes(128)])
    if name == "Q5_K":
        return np.concatenate([halves(half_bits(), half_bits()), quant_bytes(12), quant_bytes(32),
                               quant_bytes(128)])
    if name == "Q6_K":
        scales = quant_bytes(16)
        scales[RNG.integers(0, 16)] = 0x80  # -128
        return np.concatenate([quant_bytes(128), quant_bytes(64), scales, halves(half_bits())])
    raise ValueError(name)


def f32(v):
    return np.float32(v)


def dequant_block(name, b):
    """ggml's dequantize_row_<name> for one block, float32 operation by operation."""
    y = np.zeros(256 if name.endswith("_K") else 32, np.float32)
    if name in ("Q4_0", "Q4_1"):
        d = h2f(b)
        off = 2 if name == "Q4_0" else 4
        for j in range(16):
            q = b[off + j]
            if name == "Q4_0":  # x0*d with x0 = (q & 0xF) - 8
                y[j] = f32(int(q & 0xF) - 8) * d
                y[j + 16] = f32(int(q >> 4) - 8) * d
            else:  # x0*d + m
                m = h2f(b[2:])
                y[j] = f32(int(q & 0xF)) * d + m
                y[j + 16] = f32(int(q >> 4)) * d + m
    elif name in ("Q5_0", "Q5_1"):
        d = h2f(b)
        qh_at, qs_at = (2, 6) if name == "Q5_0" else (4, 8)
        qh = int(np.frombuffer(bytes(b[qh_at:qh_at + 4]), dtype="<u4")[0])
        for j in range(16):
            xh0 = ((qh >> j) << 4) & 0x10
            xh1 = (qh >> (j + 12)) & 0x10
            x0 = (int(b[qs_at + j]) & 0x0F) | xh0
            x1 = (int(b[qs_at + j]) >> 4) | xh1
            if name == "Q5_0":
                y[j] = f32(x0 - 16) * d
                y[j + 16] = f32(x1 - 16) * d
            else:
                m = h2f(b[2:])
                y[j] = f32(x0) * d + m
                y[j + 16] = f32(x1) * d + m
    elif name == "Q8_0":
        d = h2f(b)
        y[:] = b[2:34].view(np.int8).astype(np.float32) * d
    elif name in ("Q4_K", "Q5_K"):
        d, dmin = h2f(b), h2f(b[2:])
        sc = b[4:16]

        def scale_min(j):  # get_scale_min_k4
            if j < 4:
                return int(sc[j]) & 63, int(sc[j + 4]) & 63
            return ((int(sc[j + 4]) & 0xF) | ((int(sc[j - 4]) >> 6) << 4),
                    (int(sc[j + 4]) >> 4) | ((int(sc[j]) >> 6) << 4))

        qh = b[16:48] if name == "Q5_K" else None
        ql = b[48:176] if name == "Q5_K" else b[16:144]
        for j in range(4):
            for half in range(2):
                s, m = scale_min(2 * j + half)
                d1, m1 = d * f32(s), dmin * f32(m)
                for l in range(32):
                    q = (int(ql[32 * j + l]) >> (4 * half)) & 0xF
                    if qh is not None and int(qh[l]) & (1 << (2 * j + half)):
                        q += 16
                    y[64 * j + 32 * half + l] = d1 * f32(q) - m1
    elif name == "Q6_K":
        d = h2f(b[208:])
        scales = b[192:208].view(np.int8)
        for n in range(2):
            ql, qh, sc = b[64 * n:64 * n + 64], b[128 + 32 * n:160 + 32 * n], scales[8 * n:]
            for l in range(32):
                i = l // 16
                q1 = ((int(ql[l]) & 0xF) | (((int(qh[l]) >> 0) & 3) << 4)) - 32
                q2 = ((int(ql[l + 32]) & 0xF) | (((int(qh[l]) >> 2) & 3) << 4)) - 32
                q3 = ((int(ql[l]) >> 4) | (((int(qh[l]) >> 4) & 3) << 4)) - 32
                q4 = ((int(ql[l + 32]) >> 4) | (((int(qh[l]) >> 6) & 3) << 4)) - 32
                for k, q in enumerate((q1, q2, q3, q4)):  # d * sc[is] * q, left to right
                    y[128 * n + 32 * k + l] = d * f32(sc[i + 2 * k]) * f32(q)
    else:
        raise ValueError(name)
    return y


def float_row(name, cols, extremes):
    """F32 / F16 / BF16 values, as bytes and float32 values; the largest finite values only with
    extremes (one row of a case), so that no sum of a case's values overflows."""
    bits = [half_bits() for _ in range(cols)]
    if not extremes:
        bits = [b if b & 0x7FFF != 0x7BFF else 0x3C00 for b in bits]
    if name == "F16":
        raw = np.array(bits, dtype="<u2")
        return raw.view(np.uint8), raw.view("<f2").astype(np.float32)
    if name == "BF16":  # the top half of float32 values, and the smallest and largest finite
        raw = (RNG.normal(0.0, 1.0, cols).astype("<f4").view("<u4") >> 16).astype("<u2")
        raw[0], raw[1] = 0x0001, 0x7F7F if extremes else 0xC2F7
        return raw.view(np.uint8), (raw.astype(np.uint32) << 16).view(np.float32)
    values = RNG.normal(0.0, 1.0, cols).astype("<f4")
    values[0], values[1] = np.float32(1e-40), np.float32(-3.0e38 if extremes else -123.5)
    return values.view(np.uint8), values.astype(np.float32)


def make_case(type_id, rows, cols):
    name, block, _ = TYPES[type_id]
    data, values = [], []
    for row in range(rows):
        if block == 1:
            b, v = float_row(name, cols, row == 0)
            data.append(b)
            values.append(v)
            continue
        for _ in range(cols // block):
            b = pack_block(name)
            data.append(b)
            values.append(dequant_block(name, b))
    return name, np.concatenate(data), np.concatenate(values).astype(np.float32)


def c_array(ctype, name, items, per_line):
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return f"inline constexpr {ctype} {name}[] = {{\n" + ",\n".join(lines) + "};\n"


def main():
    # rows x cols per type: odd row counts; Q4_0..Q8_0 rows of 5 blocks, K types of 2.
    shapes = {0: (3, 37), 1: (3, 37), 30: (3, 37), 2: (3, 160), 3: (3, 160), 6: (3, 160),
              7: (3, 160), 8: (3, 160), 12: (3, 512), 13: (3, 512), 14: (3, 512)}
    out = ["// Generated by tests/reference/quant_reference.py (numpy " + np.__version__ + "):",
           "// /usr/bin/python3 tests/reference/quant_reference.py >",
           "// tests/reference/quant_reference.h && clang-format -i tests/reference/quant_reference.h",
           "#pragma once", "", "#include <cstddef>", "#include <cstdint>", "",
           "namespace quant_reference {", "", "// clang-format off",
           "// rows x cols of one ggml type: the rows' bytes as ggml stores them, and the values",
           "// ggml's dequantize_row gives them, as float32 bit patterns.",
           "struct Case {", "    std::uint32_t type;", "    int rows;", "    int cols;",
           "    const std::uint8_t* bytes;", "    std::size_t byte_count;",
           "    const std::uint32_t* values;", "};", ""]
    cases = []
    for type_id, (rows, cols) in shapes.items():
        name, data, values = make_case(type_id, rows, cols)
        lower = name.lower()
        out.append(c_array("std::uint8_t", f"k{name}Bytes", [str(int(v)) for v in data], 24))
        out.append(c_array("std::uint32_t", f"k{name}Values",
                           [f"0x{int(v):08x}u" for v in values.view(np.uint32)], 8))
        cases.append(f"    {{{type_id}, {rows}, {cols}, k{name}Bytes, sizeof(k{name}Bytes), "
                     f"k{name}Values}},  // {lower}")
    out.append("inline constexpr Case kCases[] = {\n" + "\n".join(cases) + "\n};\n")
    out.append("// clang-format on")
    out.append("}  // namespace quant_reference")
    print("\n".join(out))


if __name__ == "__main__":
    main()
