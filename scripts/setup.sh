#!/usr/bin/env bash
# Installs every Debian package ekb needs to build, test and run, idempotently.
# Safe to run again: apt-get skips what is already installed. Needs root (or sudo).
set -euo pipefail

PACKAGES=(
  # toolchain and build
  clang-19 libclang-rt-19-dev cmake ninja-build ccache git
  # libraries (CLI parsing, JSON, formatting, hashing, tests)
  libcli11-dev nlohmann-json3-dev libfmt-dev libxxhash-dev libgtest-dev
  # ONNX: TensorProto parsing and the node test data the interpreter is cross-checked against
  libonnx-dev libonnx-testdata libprotobuf-dev
  # the CPU backend: clang/LLVM 19 in process (libclang-cpp + ORC LLJIT) and OpenMP for parallel loops
  llvm-19-dev libclang-19-dev libclang-cpp19-dev libomp-19-dev
  # the harness: the sandbox candidate kernels run in (seccomp), the results store (SQLite)
  libseccomp-dev libsqlite3-dev
  # peers the CPU benchmarks measure against (bench/)
  libopenblas-dev libxnnpack-dev libpthreadpool-dev
  # the OpenCL backend: the ICD loader, and PoCL as the OpenCL device CI has (on the CPU)
  pocl-opencl-icd ocl-icd-libopencl1
  # `ekb export`'s tests: the OpenCL export built against the ICD loader's headers, and the CPU export
  # cross-built for aarch64 (C library, OpenMP) and run under qemu-user
  ocl-icd-opencl-dev opencl-c-headers gcc-aarch64-linux-gnu libc6-dev-arm64-cross libgomp1-arm64-cross qemu-user
  # language-model endpoints: the HTTP client (libcurl with OpenSSL) and the scripted test server (cpp-httplib)
  libcurl4-openssl-dev libcpp-httplib-dev
  # the HTML report (`ekb report`): Chart.js, inlined into the page at build time; and the browser its
  # test opens the page in, headless (tests/unit/browser.h)
  libjs-chart.js chromium
  # sharded runs on Slurm (`ekb slurm submit`): sbatch and friends, and the single-host cluster its test
  # starts (slurmctld, slurmd, munge); the packages' own services stay unconfigured (no /etc/slurm/slurm.conf)
  slurm-client slurmctld slurmd munge
  # remote boards (docs/scale.md): the cross compilers that build a board's kernels and ekb's board
  # programs (with the boards' C library and libgomp, which --no-install-recommends would leave out),
  # this machine's own gcc (an x86_64 board's kernels), and for the tests boards under qemu-user (above)
  # in a network namespace (iproute2)
  gcc g++-aarch64-linux-gnu g++-riscv64-linux-gnu libc6-dev-riscv64-cross libgomp1-riscv64-cross iproute2
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
