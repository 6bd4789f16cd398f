#!/usr/bin/env bash
# Runs one benchmark command and records what it printed in bench/results/NAME.md, with the exact
# command, the date, the commit (and whether the tree had changes), the compiler and the machine's
# load before and after, so that every recorded figure says how it was produced. A failing command
# records nothing and exits with its status.
#   Usage: bench/record.sh NAME "TITLE" COMMAND [ARGS...]
#   e.g.   bench/record.sh sgemm "SGEMM 1024^3 vs OpenBLAS" env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=SkylakeX build-bench/bench/sgemm_bench
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then
  echo "usage: bench/record.sh NAME \"TITLE\" COMMAND [ARGS...]" >&2
  exit 2
fi
name=$1 title=$2
shift 2
out=bench/results/$name.md
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
status=0
"$@" > "$tmp" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  cat "$tmp" >&2
  echo "record.sh: the command failed (status $status); $out left as it was" >&2
  exit "$status"
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo " (with uncommitted changes)" || true)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
{
  echo "# $title"
  echo
  echo "Command (from the repository root):"
  echo
  echo '```'
  quoted=()
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./=,:+@%-]+$ ]]; then quoted+=("$a"); else quoted+=("'${a//\'/\'\\\'\'}'"); fi
  done
  echo "${quoted[*]}"
  echo '```'
  echo
  echo "- date: $start (UTC); commit $commit$dirty"
  echo "- machine: $cpu, $(nproc) CPUs online; load average before $load_before, after $load_after"
  echo "- compiler of the benchmark program: $(${CXX:-clang++-19} --version 2>/dev/null | head -1 || echo unknown)"
  echo
  echo "Output:"
  echo
  echo '```'
  cat "$tmp"
  echo '```'
} > "$out"
echo "recorded $out"
cat "$tmp"
