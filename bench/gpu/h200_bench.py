#!/usr/bin/env python3
"""The GPU benchmarks: ekb's kernels against the peers on the same device, in one run.

For each case, ekb-gpu-bench runs the .ekb file through CUDA and through OpenCL with the file's own
(hand-written) schedule, and through CUDA with ekb's default schedule (the task's L0 alone: the
baseline every speedup is measured against), each repetition after an L2 flush, timed with device
events, and saves its inputs and outputs; this script checks every output against a float64 result
computed by PyTorch on the GPU, then times the peer with PyTorch the same way (L2 flushed before
each repetition, CUDA events). It prints a Markdown table: medians, the ratios peer/ekb (above 1:
ekb is faster) for the hand schedule and for the default, OpenCL/CUDA, the default's launches, and
the launch floor (an empty kernel timed by ekb-gpu-bench as a call is: what every ekb time includes).

  python3 bench/gpu/h200_bench.py [--ekb-gpu-bench PATH] [--reps N] [--cases a,b,...] [--sgemm-ekb FILE] [--no-default]
Needs PyTorch with CUDA (the GPU machine's /opt/torch/.venv/bin/python).
"""
import argparse, json, os, subprocess, sys, tempfile

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
L2_FLUSH = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size // 4 + (8 << 20), dtype=torch.float32, device=dev)


def timed(fn, reps):
    fn()
    torch.cuda.synchronize()
    ms = []
    for _ in range(reps):
        L2_FLUSH.zero_()
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ms.append(a.elapsed_time(b))
    ms.sort()
    return ms[len(ms) // 2], ms[len(ms) // 4], ms[(3 * len(ms)) // 4]


def load(d, name):
    return torch.from_numpy(np.load(os.path.join(d, name + ".npy"))).to(dev)


# name: (ekb file, peer label, peer op given inputs on the device, float64 reference from inputs)
CASES = {
    "elementwise": ("bench/gpu/scale_shift_64m.ekb", "device-to-device copy (PyTorch copy_)",
                    lambda i: (lambda y=torch.empty_like(i["X"]): (lambda: y.copy_(i["X"])))(),
                    lambda i: {"Y": i["X"].double() * 1.5 + 0.25}),
    "softmax": ("bench/gpu/softmax_rows_8192.ekb", "torch.softmax",
                lambda i: (lambda: torch.softmax(i["X"], dim=-1)),
                lambda i: {"Y": torch.softmax(i["X"].double(), dim=-1)}),
    "layernorm": ("bench/gpu/layernorm_8192.ekb", "torch.nn.functional.layer_norm",
                  lambda i: (lambda: torch.nn.functional.layer_norm(i["X"], (i["X"].shape[1],), i["G"], i["B"], 1e-5)),
                  lambda i: {"Y": torch.nn.functional.layer_norm(i["X"].double(), (i["X"].shape[1],), i["G"].double(),
                                                                 i["B"].double(), 1e-5)}),
    "sgemm": ("bench/gpu/sgemm_4096.ekb", "cuBLAS (torch.matmul, TF32 off)",
              lambda i: (lambda: torch.matmul(i["A"], i["B"])),
              lambda i: {"C": i["A"].double() @ i["B"].double()}),
}
INPUTS = {"elementwise": ["X"], "softmax": ["X"], "layernorm": ["X", "G", "B"], "sgemm": ["A", "B"]}


def run_ekb(binary, path, api, reps, save, schedule=None):
    cmd = [binary, os.path.join(ROOT, path), "--api", api, "--reps", str(reps), "--save", save]
    if schedule:
        cmd += ["--schedule", schedule]
    if api == "opencl":
        cmd += ["--platform", "NVIDIA"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, (r.stderr or r.stdout).strip().splitlines()[-1:] or ["failed"]
    return json.loads(r.stdout.strip().splitlines()[-1]), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ekb-gpu-bench", default=os.path.join(ROOT, "build-gpu", "ekb-gpu-bench"))
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--sgemm-ekb", help="time this .ekb file (e.g. a program LEKA's search found) as the sgemm case")
    ap.add_argument("--no-default", action="store_true", help="leave out the default schedules (the hand schedules and peers only)")
    a = ap.parse_args()
    if a.sgemm_ekb:
        CASES["sgemm"] = (os.path.abspath(a.sgemm_ekb),) + CASES["sgemm"][1:]
    print(f"device: {torch.cuda.get_device_name(0)}; PyTorch {torch.__version__}, CUDA {torch.version.cuda}; "
          f"{a.reps} repetitions per side, each after an L2 flush; medians (IQR) of device-event times\n")
    rows = []
    # (key, API, schedule): the file's own schedule through CUDA and OpenCL, the default through CUDA.
    sides = [("cuda", "cuda", None), ("opencl", "opencl", None)] + ([] if a.no_default else [("default", "cuda", "default")])
    for name in a.cases.split(","):
        path, peer_label, peer, ref = CASES[name]
        res = {}
        for key, api, schedule in sides:
            with tempfile.TemporaryDirectory() as d:
                r, err = run_ekb(a.ekb_gpu_bench, path, api, a.reps, d, schedule)
                if r is None:
                    res[key] = {"error": " ".join(err)}
                    continue
                ins = {k: load(d, k) for k in INPUTS[name]}
                want = ref(ins)
                worst = 0.0
                for k, w in want.items():
                    got = load(d, k).double()
                    worst = max(worst, float((got - w).abs().max() / w.abs().max().clamp_min(1e-30)))
                r["max_err"] = worst
                r["correct"] = worst < 1e-3
                res[key] = r
                if "peer" not in res:  # (every side's inputs are the same: seed 1)
                    res["peer"] = timed(peer(ins), a.reps)
                del ins, want
                torch.cuda.empty_cache()
        rows.append((name, peer_label, res))
    print("| case | ekb CUDA ms (IQR) | ekb OpenCL ms (IQR) | ekb default CUDA ms (IQR) | peer | peer ms (IQR) | peer / ekb CUDA | "
          "peer / ekb default | OpenCL / CUDA time | default launches | ekb CUDA rate | checked (max err / max value) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, peer_label, res in rows:
        c, o, dflt, p = res.get("cuda", {}), res.get("opencl", {}), res.get("default"), res.get("peer")
        fmt = lambda r: f"{r['median_ms']:.4f} ({r['q1_ms']:.4f}-{r['q3_ms']:.4f})" if "median_ms" in r else f"failed: {r.get('error', '?')}"
        ratio = lambda r: f"{p[0] / r['median_ms']:.3f}" if p and r and "median_ms" in r else "-"
        pm = f"{p[0]:.4f} ({p[1]:.4f}-{p[2]:.4f})" if p else "-"
        oc = f"{o['median_ms'] / c['median_ms']:.3f}" if "median_ms" in o and "median_ms" in c else "-"
        rate = f"{c['gflops'] / 1000:.1f} TFLOP/s, {c['gbps']:.0f} GB/s" if "median_ms" in c else "-"
        chk = "; ".join(f"{api} {'ok' if r.get('correct') else 'WRONG'} {r.get('max_err', float('nan')):.1e}"
                        for api, r in (("cuda", c), ("opencl", o), ("default", dflt or {})) if "max_err" in r)
        print(f"| {name} | {fmt(c)} | {fmt(o)} | {fmt(dflt) if dflt is not None else '-'} | {peer_label} | {pm} | {ratio(c)} | "
              f"{ratio(dflt)} | {oc} | {dflt.get('launches', '-') if dflt else '-'} | {rate} | {chk} |")
    floors = sorted(r["floor_ms"] for _, _, res in rows for k in ("cuda", "default") for r in [res.get(k) or {}] if "floor_ms" in r)
    if floors:
        print(f"\nlaunch floor (an empty kernel, flushed and timed by ekb-gpu-bench as each call above): median {floors[len(floors) // 2]:.4f} ms "
              f"(range {floors[0]:.4f}-{floors[-1]:.4f} over {len(floors)} CUDA runs); every ekb time above includes it once per call")


if __name__ == "__main__":
    sys.exit(main())
