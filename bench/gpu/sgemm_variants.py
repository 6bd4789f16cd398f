#!/usr/bin/env python3
"""What each GPU SGEMM technique is worth on this device, before the schedule primitives express it.

Times raw CUDA SGEMM kernels of one structure (a 128x128 block tile, 8x8 accumulators per thread,
k in steps of 16, both panels through shared memory: the structure of bench/gpu/sgemm_4096.ekb)
in variants that add one technique each: a register cap for two blocks per SM (__launch_bounds__),
double-buffered shared memory (the next panels are stored while the current ones are used, one
barrier per step), register-staged prefetch (the next panels are loaded into registers before the
current step and stored after it), and, with --cu FILE, any raw .cu file of ekb (`ekb compile
--emit c --backend cuda`), all against cuBLAS (torch.matmul, TF32 off) in one run, each repetition
after an L2 flush. Every kernel's result is checked against cuBLAS's.

  python3 bench/gpu/sgemm_variants.py [--n 4096] [--reps 20] [--cu FILE]...
Needs PyTorch with CUDA, libnvrtc and libcuda (the GPU machine's /opt/torch/.venv/bin/python).
"""
import argparse, ctypes, glob, os, re, sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from h200_bench import timed  # noqa: E402 (each repetition after an L2 flush, medians of device events)

torch.backends.cuda.matmul.allow_tf32 = False

KERNEL = r"""
#define BM 128
#define BN 128
#ifndef BK
#define BK 16
#endif
extern "C" __global__ void LAUNCH_BOUNDS sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
  __shared__ __align__(16) float As[NBUF][BM * BK];
  __shared__ __align__(16) float Bs[NBUF][BK * BN];
  const int bm = blockIdx.y, bn = blockIdx.x, ty = threadIdx.y, tx = threadIdx.x, tid = ty * 16 + tx;
  /* a thread's rows and columns: 8 in a row, or (SM, SN) two groups of 4, 64 apart (strided thread tiles) */
  auto row = [&](int m) { return SM ? (m / 4) * 64 + ty * 4 + m % 4 : ty * 8 + m; };
  auto col = [&](int n) { return SN ? (n / 4) * 64 + tx * 4 + n % 4 : tx * 8 + n; };
  /* SWZ: Bs's columns permuted so that a thread's 8 contiguous columns lie in two float4 groups 64 apart */
  auto swz = [&](int c) { return SWZ ? ((c % 8) / 4) * 64 + (c / 8) * 4 + c % 4 : c; };
  float acc[8][8];
#pragma unroll
  for (int m = 0; m < 8; ++m)
#pragma unroll
    for (int n = 0; n < 8; ++n) acc[m][n] = 0.0f;
#if VG  /* float4 loads from global memory and stores to shared memory: 2 of each per thread and panel */
  float4 ra[2], rb[2];
  auto fetch = [&](int ko) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      int f = tid + 256 * i;
      ra[i] = *(const float4*)&A[(bm * BM + f / 4) * N + ko * BK + (f % 4) * 4];
      rb[i] = *(const float4*)&B[(ko * BK + f / 32) * N + bn * BN + (f % 32) * 4];
    }
  };
  auto put = [&](int buf) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      int f = tid + 256 * i;
      *(float4*)&As[buf][(f / 4) * BK + (f % 4) * 4] = ra[i];
      *(float4*)&Bs[buf][(f / 32) * BN + (f % 32) * 4] = rb[i];
    }
  };
#elif BK == 16  /* one float at a time, 8 of each panel per thread; a thread's row and column from ty and tx (the
                 generic form below divides by BK and BN: the compiler cannot tell that tx < 16, and the
                 address arithmetic of the staged loads costs 20% of the kernel's time) */
  float ra[8], rb[8];
  auto fetch = [&](int ko) {
#pragma unroll
    for (int fo = 0; fo < 8; ++fo) ra[fo] = A[(bm * BM + fo * 16 + ty) * N + ko * BK + tx];
#pragma unroll
    for (int fo = 0; fo < 8; ++fo) rb[fo] = B[(ko * BK + fo * 2 + ty / 8) * N + bn * BN + (ty % 8) * 16 + tx];
  };
  auto put = [&](int buf) {
#pragma unroll
    for (int fo = 0; fo < 8; ++fo) As[buf][(fo * 16 + ty) * BK + tx] = ra[fo];
#pragma unroll
    for (int fo = 0; fo < 8; ++fo) Bs[buf][(fo * 2 + ty / 8) * BN + swz((ty % 8) * 16 + tx)] = rb[fo];
  };
#else  /* one float at a time: BM * BK / 256 of A and BK * BN / 256 of B per thread */
  float ra[BM * BK / 256], rb[BK * BN / 256];
  auto fetch = [&](int ko) {
#pragma unroll
    for (int fo = 0; fo < BM * BK / 256; ++fo) { int f = fo * 256 + tid; ra[fo] = A[(bm * BM + f / BK) * N + ko * BK + f % BK]; }
#pragma unroll
    for (int fo = 0; fo < BK * BN / 256; ++fo) { int f = fo * 256 + tid; rb[fo] = B[(ko * BK + f / BN) * N + bn * BN + f % BN]; }
  };
  auto put = [&](int buf) {
#pragma unroll
    for (int fo = 0; fo < BM * BK / 256; ++fo) { int f = fo * 256 + tid; As[buf][(f / BK) * BK + f % BK] = ra[fo]; }
#pragma unroll
    for (int fo = 0; fo < BK * BN / 256; ++fo) { int f = fo * 256 + tid; Bs[buf][(f / BN) * BN + swz(f % BN)] = rb[fo]; }
  };
#endif
  auto compute = [&](int buf) {
#pragma unroll
    for (int k = 0; k < BK; ++k)
#pragma unroll
      for (int m = 0; m < 8; ++m)
#pragma unroll
        for (int n = 0; n < 8; ++n) acc[m][n] += As[buf][row(m) * BK + k] * Bs[buf][k * BN + swz(col(n))];
  };
  const int steps = N / BK;
#if MODE == 0  /* single buffer: copy, barrier, compute, barrier */
  for (int ko = 0; ko < steps; ++ko) { fetch(ko); put(0); __syncthreads(); compute(0); __syncthreads(); }
#elif MODE == 1  /* double buffer: the next panels go into the other buffer before this step's compute */
  fetch(0); put(0); __syncthreads();
  for (int ko = 0; ko < steps; ++ko) {
    if (ko + 1 < steps) { fetch(ko + 1); put((ko + 1) & 1); }
    compute(ko & 1);
    __syncthreads();
  }
#else  /* register-staged: load the next panels, compute this step, then store them */
  fetch(0); put(0); __syncthreads();
  for (int ko = 0; ko < steps; ++ko) {
    if (ko + 1 < steps) fetch(ko + 1);
    compute(ko & 1);
    if (ko + 1 < steps) put((ko + 1) & 1);
    __syncthreads();
  }
#endif
#pragma unroll
  for (int m = 0; m < 8; ++m)
#pragma unroll
    for (int n = 0; n < 8; ++n) C[(bm * BM + row(m)) * N + bn * BN + col(n)] = acc[m][n];
}
"""

LB2 = "__launch_bounds__(256, 2)"
VARIANTS = [  # (name, MODE, NBUF, launch bounds, strided rows, strided columns, float4 global loads[, BK, swizzled Bs])
    ("single buffer", 0, 1, "", 0, 0, 0),
    ("single buffer, 2 blocks/SM", 0, 1, LB2, 0, 0, 0),
    ("double buffer", 1, 2, "", 0, 0, 0),
    ("double buffer, 2 blocks/SM", 1, 2, LB2, 0, 0, 0),
    ("register-staged", 2, 2, "", 0, 0, 0),
    ("register-staged, 2 blocks/SM", 2, 2, LB2, 0, 0, 0),
    ("register-staged, strided columns", 2, 2, "", 0, 1, 0),
    ("register-staged, strided rows and columns", 2, 2, "", 1, 1, 0),
    ("register-staged, float4 global loads", 2, 2, "", 0, 0, 1),
    ("register-staged, strided columns, float4", 2, 2, "", 0, 1, 1),
    ("register-staged, strided rows and columns, float4", 2, 2, "", 1, 1, 1),
    ("double buffer, 2 blocks/SM, strided columns, float4", 1, 2, LB2, 0, 1, 1),
    ("register-staged, swizzled Bs", 2, 2, "", 0, 0, 0, 16, 1),
    ("register-staged, strided columns, k by 8", 2, 2, "", 0, 1, 0, 8, 0),
    ("register-staged, swizzled Bs, k by 8", 2, 2, "", 0, 0, 0, 8, 1),
    ("register-staged, swizzled Bs, k by 8, 2 blocks/SM", 2, 2, LB2, 0, 0, 0, 8, 1),
    ("register-staged, swizzled Bs, 2 blocks/SM", 2, 2, LB2, 0, 0, 0, 16, 1),
]


def load_lib(names):
    for n in names:
        for path in [n] + glob.glob(n):
            try:
                return ctypes.CDLL(path)
            except OSError:
                pass
    raise SystemExit(f"cannot load any of {names}")


nvrtc = load_lib(["libnvrtc.so", "libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so*",
                  os.path.join(os.path.dirname(torch.__file__), "lib", "libnvrtc*.so*")])
cuda = load_lib(["libcuda.so.1"])


def check(r, what):
    if r != 0:
        raise SystemExit(f"{what} failed: {r}")


def compile_ptx(src, arch):
    prog = ctypes.c_void_p()
    check(nvrtc.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"k.cu", 0, None, None), "nvrtcCreateProgram")
    opts = [f"--gpu-architecture=compute_{arch}".encode(), b"-default-device", b"-std=c++17"]
    r = nvrtc.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    n = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value)
    nvrtc.nvrtcGetProgramLog(prog, log)
    if r != 0:
        raise SystemExit("NVRTC: " + log.value.decode())
    nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(n))
    ptx = ctypes.create_string_buffer(n.value)
    nvrtc.nvrtcGetPTX(prog, ptx)
    return ptx.raw


def kernel_of(ptx, name):
    mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(mod), ptx), "cuModuleLoadData")
    check(cuda.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()), "cuModuleGetFunction")
    regs = ctypes.c_int()
    cuda.cuFuncGetAttribute(ctypes.byref(regs), 4, fn)  # CU_FUNC_ATTRIBUTE_NUM_REGS
    return fn, regs.value


def launcher(fn, grid, block, bufs):
    ptrs = [ctypes.c_void_p(b.data_ptr()) for b in bufs]
    args = (ctypes.c_void_p * len(ptrs))(*[ctypes.cast(ctypes.pointer(p), ctypes.c_void_p) for p in ptrs])
    stream = torch.cuda.current_stream().cuda_stream

    def run():
        check(cuda.cuLaunchKernel(fn, *grid, *block, 0, ctypes.c_void_p(stream), args, None), "cuLaunchKernel")
    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--cu", action="append", default=[], help="a raw .cu file of ekb (its @launch line gives grid and block)")
    args = ap.parse_args()
    n = args.n
    torch.cuda.init()
    major, minor = torch.cuda.get_device_capability()
    arch = f"{major}{minor}"
    A = torch.randn(n, n, device="cuda")
    B = torch.randn(n, n, device="cuda")
    C = torch.empty(n, n, device="cuda")
    ref = torch.matmul(A, B)
    scale = ref.abs().max().item()
    peer = timed(lambda: torch.matmul(A, B, out=C), args.reps)
    print(f"device: {torch.cuda.get_device_name()} (sm_{arch}); SGEMM {n}^3 f32; {args.reps} repetitions, L2 flushed before each")
    print(f"| kernel | registers | ms (IQR) | cuBLAS / kernel | max err / max value |")
    print(f"|---|---|---|---|---|")
    print(f"| cuBLAS (torch.matmul, TF32 off) | - | {peer[0]:.4f} ({peer[1]:.4f}-{peer[2]:.4f}) | 1.000 | - |")
    rows = []
    for name, mode, nbuf, lb, sm, sn, vg, *more in VARIANTS:
        bk, swz = more or (16, 0)
        src = (f"#define N {n}\n#define MODE {mode}\n#define NBUF {nbuf}\n#define LAUNCH_BOUNDS {lb}\n"
               f"#define SM {sm}\n#define SN {sn}\n#define VG {vg}\n#define BK {bk}\n#define SWZ {swz}\n") + KERNEL
        fn, regs = kernel_of(compile_ptx(src, arch), "sgemm")
        rows.append((name, regs, launcher(fn, (n // 128, n // 128, 1), (16, 16, 1), [A, B, C])))
    for path in args.cu:
        src = open(path).read()
        m = re.search(r"@launch (\w+) grid\((\d+),(\d+),(\d+)\) block\((\d+),(\d+),(\d+)\)", src)
        if not m:
            raise SystemExit(f"{path}: no `@launch NAME grid(x,y,z) block(x,y,z)` line")
        fn, regs = kernel_of(compile_ptx(src, arch), m.group(1))
        g = tuple(int(x) for x in m.group(2, 3, 4))
        b = tuple(int(x) for x in m.group(5, 6, 7))
        rows.append((os.path.basename(path), regs, launcher(fn, g, b, [A, B, C])))
    for name, regs, run in rows:
        C.zero_()
        run()
        torch.cuda.synchronize()
        err = (C - ref).abs().max().item() / scale
        t = timed(run, args.reps)
        print(f"| {name} | {regs} | {t[0]:.4f} ({t[1]:.4f}-{t[2]:.4f}) | {peer[0] / t[0]:.3f} | {err:.1e} |")


if __name__ == "__main__":
    main()
