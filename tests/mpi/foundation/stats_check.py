#!/usr/bin/env python3
# stats_check.py: run an MPI job with AUTOOPT_STATS=<tmp>.json and check the statistics.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: stats_check.py [--expect EXPR ...] [--output-regex RE ...] [--exit N] -- command...
#   EXPR is  PATH OP NUMBER|STRING  with PATH a dotted path into the JSON document
#   (functions.MPI_Send.calls, counters.paging.faults, thread_level) and OP one of
#   == != >= <= > <.  A missing path counts as 0.  --online-decided N (AUTOOPT_TUNE=online):
#   at least N keys have chosen a winner, and every key has the same winner on every rank.  Every --output-regex must match the job's
#   output.  --balanced FN,FN...: for each function, calls == optimized + the sum of passed
#   (every call counted exactly once).  Fails (exit 1) with one line per failed expectation; the job's own output is
#   passed through.
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

OPS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, ">=": lambda a, b: a >= b,
       "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, "<": lambda a, b: a < b}


def lookup(doc, path):
    # counters use dotted keys themselves ("paging.faults"): try the longest key first
    cur, parts = doc, path.split(".")
    while parts:
        for k in range(len(parts), 0, -1):
            key = ".".join(parts[:k])
            if isinstance(cur, dict) and key in cur:
                cur, parts = cur[key], parts[k:]
                break
        else:
            return 0
    return cur


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--output-regex", action="append", default=[])
    ap.add_argument("--exit", type=int, default=0)
    ap.add_argument("--online-decided", type=int, default=None)
    ap.add_argument("--balanced", action="append", default=[])
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command and a.command[0] == "--" else a.command
    fd, path = tempfile.mkstemp(suffix=".json", prefix="aot-stats-")
    os.close(fd)
    os.unlink(path)
    env = dict(os.environ, AUTOOPT_STATS=path)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(p.stdout)
    failed = 0
    if p.returncode != a.exit:
        print("stats_check: exit status %d, expected %d" % (p.returncode, a.exit))
        failed += 1
    for rx in a.output_regex:
        if not re.search(rx, p.stdout, re.M):
            print("stats_check: output does not match /%s/" % rx)
            failed += 1
    try:
        with open(path) as f:
            doc = json.load(f)
        os.unlink(path)
    except (OSError, ValueError) as e:
        print("stats_check: %s: %s" % (path, e))
        return 1
    if doc.get("schema") != "autoopt-stats" or doc.get("version") != 1:
        print("stats_check: unexpected schema %r version %r" % (doc.get("schema"), doc.get("version")))
        failed += 1
    for e in a.expect:
        m = re.fullmatch(r"\s*([\w.]+)\s*(==|!=|>=|<=|>|<)\s*(\S+)\s*", e)
        if not m:
            print("stats_check: bad expectation '%s'" % e)
            return 2
        got = lookup(doc, m.group(1))
        want = m.group(3)
        try:
            want = float(want)
            got = float(got) if not isinstance(got, (dict, list)) else got
        except (TypeError, ValueError):
            pass
        if not OPS[m.group(2)](got, want):
            print("stats_check: %s: got %r" % (e, got))
            failed += 1
    balanced = [fn for arg in a.balanced for fn in arg.split(",") if fn]
    for fn in balanced:
        f = doc.get("functions", {}).get(fn, {})
        calls, opt = f.get("calls", 0), f.get("optimized", 0)
        passed = sum(f.get("passed", {}).values())
        if calls != opt + passed:
            print("stats_check: %s: calls %d != optimized %d + passed %d (%d not counted)"
                  % (fn, calls, opt, passed, calls - opt - passed))
            failed += 1
    if a.online_decided is not None:
        keys = doc.get("online", {}).get("keys", [])
        decided = [k for k in keys if k["tried"] > 0]
        if len(decided) < a.online_decided:
            print("stats_check: online: %d keys decided, expected at least %d"
                  % (len(decided), a.online_decided))
            failed += 1
        for k in keys:
            if len(set(k["winner_by_rank"])) != 1:
                print("stats_check: online: %s of %d-%d bytes on communicator %s: the ranks' "
                      "winners differ: %s" % (k["collective"], k["bytes_lo"], k["bytes_hi"],
                                              k["comm"], k["winner_by_rank"]))
                failed += 1
        if not failed:
            print("stats_check: online: %d keys decided, each with one winner on all ranks"
                  % len(decided))
    if not failed:
        print("stats_check: %d expectations met, %d functions balanced"
              % (len(a.expect), len(balanced)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
