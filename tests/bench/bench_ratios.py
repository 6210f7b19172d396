#!/usr/bin/env python3
"""Prints the ratios of the performance targets (docs/performance.md) from one attention-bench JSON file.

    build/bin/attention-bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
        --benchmark_out=bench.json --benchmark_out_format=json
    python3 tests/bench/bench_ratios.py bench.json [torch_train.json]

torch_train.json, the output of `/usr/bin/python3 tests/bench/torch_bench.py train` (PyTorch's
training step of each preset, one thread), adds the ratio of BM_TrainStep/<preset> to it.

Uses the median of the repetitions when there are several, the single run otherwise. Times are
CPU times (the benchmarks are single-threaded unless run with --threads=N). The GEMM-relative
targets use the best one-thread SGEMM among the libraries measured in the same run (OpenBLAS,
BLIS, Eigen compiled for this CPU).
"""
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    runs = {}
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"])
        kind = b.get("aggregate_name", "")
        if kind not in ("", "median"):
            continue
        # A median overrides single iterations of the same benchmark.
        if kind == "median" or name not in runs:
            runs[name] = b
    return data.get("context", {}), runs


def seconds(b):
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
    return b["cpu_time"] * scale


def quant_ratios(runs):
    """BM_QuantMatvec/<type> bytes/s over BM_ReadRoofline/<type>: the share of a plain read's rate
    at which a one-token product streams its weights (target >= 0.7)."""
    types = [n.split("/", 1)[1] for n in runs if n.startswith("BM_QuantMatvec/")]
    for t in types:
        roof = runs.get(f"BM_ReadRoofline/{t}")
        if roof is None:
            continue
        got = runs[f"BM_QuantMatvec/{t}"]["bytes_per_second"]
        r = got / roof["bytes_per_second"]
        print(f"  QuantMatvec/{t:5} {got / 1e9:6.1f} GB/s / ReadRoofline {roof['bytes_per_second'] / 1e9:5.1f}"
              f" = {r:.2f}  (>= 0.7)")


def train_ratios(runs, path):
    """PyTorch's fastest training step over BM_TrainStep/<preset>, CPU time on both sides (target
    >= 2)."""
    with open(path, encoding="utf-8") as f:
        torch_runs = json.load(f)
    for name, t in torch_runs.items():
        ours = runs.get(f"BM_TrainStep/{name}")
        if ours is None or not isinstance(t, dict) or "fastest" not in t:
            continue
        ms = seconds(ours) * 1e3
        print(f"  TrainStep/{name}: PyTorch {t['fastest']['ms']:.2f} ms ({t['fastest']['name']}) / "
              f"ours {ms:.2f} ms = {t['fastest']['ms'] / ms:.2f}  (>= 2)")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: bench_ratios.py bench.json [torch_train.json]")
    context, runs = load(sys.argv[1])
    if len(sys.argv) == 3:
        print("training step against PyTorch")
        train_ratios(runs, sys.argv[2])
    print(f"threads: {context.get('attn_threads', '?')}, kernels: {context.get('attn_kernels', '?')}")
    print(f"BLAS: {context.get('attn_blas', '?')}")
    # The machine's rate: the best one-thread SGEMM among the libraries on offer (OpenBLAS, BLIS,
    # Eigen compiled for this CPU); BM_Gemm is the engine's own product.
    libraries = [n for n in ("BM_GemmOpenBLAS/1024", "BM_GemmBLIS/1024", "BM_GemmEigen/1024")
                 if n in runs and "gflops" in runs[n]]
    best_name = max(libraries, key=lambda n: runs[n]["gflops"]) if libraries else "BM_Gemm/1024"
    gemm = runs[best_name]["gflops"] if best_name in runs else float("nan")
    print(f"reference rate: {best_name} = {gemm:.1f} gflops")
    print(f"{'benchmark':28} {'cpu time':>12} {'gflops':>8} {'/ best':>7}")
    for name, b in runs.items():
        t = seconds(b)
        unit = (t * 1e3, "ms") if t >= 1e-3 else (t * 1e6, "us")
        g = b.get("gflops", 0.0)
        print(f"{name:28} {unit[0]:9.3f} {unit[1]:2} {g:8.2f} {g / gemm:7.2f}")

    def ratio(a, b):
        return seconds(runs[a]) / seconds(runs[b])

    print("\ntargets")
    if "BM_LayerForward/1024" not in runs:  # a run of the quantized products (and a GEMM) alone
        quant_ratios(runs)
        return
    r = runs["BM_Gemm/1024"]["gflops"] / gemm
    print(f"  Gemm/1024 (the engine's product) / {best_name} = {r:.3f}  (>= 0.9)")
    for t in (1024, 2048):
        r = runs[f"BM_LayerForward/{t}"]["gflops"] / gemm
        print(f"  LayerForward/{t} gflops / best gflops = {r:.3f}  (>= 0.85)")
    r = ratio("BM_LayerForwardNaive/2048", "BM_LayerForward/2048")
    print(f"  LayerForwardNaive/2048 / LayerForward/2048  = {r:.2f}  (>= 1.5)")
    for n in (128, 512, 1024, 2048):
        r = ratio(f"BM_FullRecompute/{n}", f"BM_DecodeStep/{n}")
        goal = f"(>= n/4 = {n // 4})" if n >= 512 else "(no target below 512)"
        print(f"  FullRecompute/{n} / DecodeStep/{n} = {r:.0f}  {goal}")
    for t in (128, 1024):
        r = runs[f"BM_Gpt2Forward/{t}"]["gflops"] / gemm
        print(f"  Gpt2Forward/{t} gflops / best gflops = {r:.3f}  (>= 0.8)")
    stream = runs["BM_StreamRead"]["bytes_per_second"]
    for n in (128, 1024):
        r = runs[f"BM_Gpt2DecodeToken/{n}"]["bytes_per_second"] / stream
        print(f"  Gpt2DecodeToken/{n} bytes/s / StreamRead bytes/s = {r:.2f}  (>= 0.7)")
    for n in (128, 512, 1024, 2048):
        r = runs[f"BM_DecodeStep/{n}"]["bytes_per_second"] / stream
        print(f"  DecodeStep/{n} bytes/s / StreamRead bytes/s = {r:.2f}  (>= 0.8)")
    quant_ratios(runs)
    w = seconds(runs["BM_WalkthroughRecompute"]) * 1e3
    e = seconds(runs["BM_ExploreRecompute"]) * 1e3
    print(f"  WalkthroughRecompute = {w:.3f} ms  (< 1 ms)")
    print(f"  ExploreRecompute     = {e:.3f} ms  (< 10 ms)")


if __name__ == "__main__":
    main()
