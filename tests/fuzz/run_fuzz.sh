#!/usr/bin/env bash
# Runs the front-end fuzzer for a bounded time. The seed corpus: every suite file, every example in
# docs/ir.md, and tests/fuzz/corpus. New inputs go to a scratch corpus that starts empty each run;
# a crash leaves its reproducer in WORK/ and fails the test.
set -euo pipefail
fuzzer=$1 seconds=$2 work=$3 root=$4
rm -rf "$work" && mkdir -p "$work/seeds" "$work/new"
cp "$root"/tests/fuzz/corpus/* "$work/seeds/" 2>/dev/null || true
find "$root/suite" -name '*.ekb' -exec cp {} "$work/seeds/" \;
python3 - "$root/docs/ir.md" "$work/seeds" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for i, (_, body) in enumerate(re.findall(r"```(ekb(?:-error)?)\n(.*?)```", text, re.S)):
    open(f"{sys.argv[2]}/doc_{i:02d}.ekb", "w").write(body)
PY
cd "$work"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -dict="$root/tests/fuzz/ekb.dict" -print_final_stats=1 new seeds 2>&1 | tail -n 25
