#!/usr/bin/env bash
# Runs the front-end fuzzer for a bounded time. The seed corpus: every suite file, every example in
# docs/ir.md, and tests/fuzz/corpus. New inputs go to a scratch corpus that starts empty each run;
# a crash leaves its reproducer in WORK/ and fails the test.
set -euo pipefail
fuzzer=$1 seconds=$2 work=$3 root=$4
rm -rf "$work" && mkdir -p "$work/seeds" "$work/new"
cp "$root"/tests/fuzz/corpus/* "$work/seeds/" 2>/dev/null || true
find "$root/suite" -name '*.ekb' -exec cp {} "$work/seeds/" \;
awk -v dir="$work/seeds" '
  /^```ekb(-error)?$/ { n++; out = sprintf("%s/doc_%02d.ekb", dir, n); inside = 1; next }
  /^```$/ { inside = 0; next }
  inside { print > out }
' "$root/docs/ir.md"
cd "$work"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -dict="$root/tests/fuzz/ekb.dict" -print_final_stats=1 new seeds 2>&1 | tail -n 25
