#!/usr/bin/env bash
# ekb's default GPU schedule against the peers, on the GPU machine (reached through `device`), in as
# few calls as its leases allow: builds ekb there (scripts/gpu-machine.sh build: no Debian packages
# there, the ones carried in .device-deps/), runs bench/gpu/h200_bench.py (each case's hand schedule
# through CUDA and OpenCL, its default schedule through CUDA, and PyTorch, with the ratio PyTorch /
# ekb default and the launch floor), then bench/suite/verify_gpu_machine.sh for the given profiles
# (default h200-cuda): every suite task's default schedule checked on the device, until the deadline.
# The benchmark runs once: a call whose FROM_DIR (what came back from the last call, carried) holds
# h200_bench.md skips it. The verification resumes where the last call stopped (its store in FROM_DIR).
#   bench/gpu/default_vs_peers.sh FROM_DIR OUT_DIR SECONDS [PROFILE...]
#   e.g. bench/gpu/default_vs_peers.sh .device-state "$OUT" 570            (then again until it exits 0)
# OUT_DIR gets h200_bench.md (the table), h200_bench.log (its stderr and the command's facts) and
# verify_gpu_machine.sh's files (PROFILE.db, .seconds, .table, .json). Environment: EKB_TORCH_PYTHON
# (default /opt/torch/.venv/bin/python), EKB_BUILD_DIR (default build-gpu), BENCH_ARGS (extra
# arguments for h200_bench.py, e.g. "--reps 50" or "--cases softmax,layernorm").
# Exit status: 0 when the benchmark and every profile's verification are done, 3 when the deadline
# came first (call again with the same FROM_DIR and OUT_DIR's contents carried as FROM_DIR), 2 when
# the build or the benchmark failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
usage="usage: bench/gpu/default_vs_peers.sh FROM_DIR OUT_DIR SECONDS [PROFILE...]"
from=${1:?$usage}
out=${2:?$usage}
seconds=${3:?$usage}
shift 3
profiles=("$@")
[ ${#profiles[@]} -gt 0 ] || profiles=(h200-cuda)
deadline=$(( $(date +%s) + seconds ))
mkdir -p "$out"
build=${EKB_BUILD_DIR:-build-gpu}
python=${EKB_TORCH_PYTHON:-/opt/torch/.venv/bin/python}
scripts/gpu-machine.sh build > /tmp/ekb-gpu-build.log 2>&1 || { tail -30 /tmp/ekb-gpu-build.log >&2; exit 2; }
export LD_LIBRARY_PATH=${EKB_DEPS_PREFIX:-/tmp/ekb-deps}/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ -s "$from/h200_bench.md" ]; then
  echo "default_vs_peers: the benchmark ran in an earlier call ($from/h200_bench.md)"
  [ "$from/h200_bench.md" -ef "$out/h200_bench.md" ] || cp "$from/h200_bench.md" "$from/h200_bench.log" "$out/" 2> /dev/null || true
else
  began=$(date +%s)
  {
    echo "command: $python bench/gpu/h200_bench.py --ekb-gpu-bench $build/ekb-gpu-bench ${BENCH_ARGS:-}"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
    echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "driver: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo unknown)"
  } > "$out/h200_bench.log"
  # shellcheck disable=SC2086  # BENCH_ARGS is a list of arguments
  if ! "$python" bench/gpu/h200_bench.py --ekb-gpu-bench "$build/ekb-gpu-bench" ${BENCH_ARGS:-} > "$out/h200_bench.md.part" 2>> "$out/h200_bench.log"; then
    tail -20 "$out/h200_bench.log" >&2
    exit 2
  fi
  mv "$out/h200_bench.md.part" "$out/h200_bench.md"
  echo "seconds: $(( $(date +%s) - began )); load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/h200_bench.log"
  cat "$out/h200_bench.md"
fi
left=$(( deadline - $(date +%s) ))
if [ "$left" -le 60 ]; then
  echo "default_vs_peers: the verification was not started: the deadline is near (call again)"
  exit 3
fi
# (verify_gpu_machine.sh builds again: nothing changed, so ninja has nothing to do.)
bench/suite/verify_gpu_machine.sh "$from" "$out" "$left" "${profiles[@]}"
