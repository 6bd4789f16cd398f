#!/usr/bin/env python3
"""Prints the suite verification's table (bench/suite/verify.sh) from one or more `ekb eval --json`
reports: the shards of one verification, run in separate calls or sessions, make one table.
Usage: verify_table.py WALL_SECONDS SHARDS REPORT.json...  Exits 1 when any task failed."""
import json
import sys


def main():
    elapsed, shards, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    reports = [json.load(open(f)) for f in files]
    r = reports[0]
    env = r.get("environment", {})
    gpu = env.get("gpu", {})
    if gpu:
        print(f"device profile `{r['device']}` (backend {r['backend']}): {gpu.get('name', '?')}, "
              f"{gpu.get('platform', '')} {gpu.get('version', '')}".rstrip())
    else:
        print(f"device profile `{r['device']}` (backend {r['backend']}): {env.get('cpu', '?')}, "
              f"{env.get('cores', '?')} cores, {env.get('isa', '?')}")
    commits = sorted({rep.get("environment", {}).get("ekb_commit", "?") for rep in reports})
    print(f"compiler: {env.get('compiler', '?')}; ekb commit {', '.join(commits)}; shards {shards}")
    attempts = sorted((a for rep in reports for a in rep["attempts"]), key=lambda a: a["task"])
    names = [a["task"] for a in attempts]
    if len(set(names)) != len(names):
        sys.exit("verify_table: a task appears in two reports: the shards overlap")
    ok = [a for a in attempts if a["status"] == "ok"]
    failures = {}
    for a in attempts:
        if a["status"] != "ok":
            failures[a["status"]] = failures.get(a["status"], 0) + 1
    share = 100.0 * len(ok) / len(attempts) if attempts else 0.0
    print(f"tasks: {len(attempts)}, correct: {len(ok)} ({share:.1f}%), failures: {failures}; wall time {elapsed} s")
    print("(quick timing: a few calls per side; the times say that each kernel runs and roughly how fast, not more)")
    print()
    print("| task | status | time, median (ms) |")
    print("|---|---|---|")
    for a in attempts:
        if a["status"] == "ok":
            print(f"| {a['task']} | ok | {a['candidate_ms']:.4f} |")
        else:
            msg = a["message"].replace("|", "/").replace("\n", " ")[:160]
            print(f"| {a['task']} | **{a['status']}** | {msg} |")
    return 0 if attempts and len(ok) == len(attempts) else 1


if __name__ == "__main__":
    sys.exit(main())
