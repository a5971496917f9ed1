#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""doze_check.py MPIEXEC PRELOAD DOZE: runs doze.c on 2 ranks with AUTOOPT_P2P_MODE=native and
AUTOOPT_STATS=1 and checks that the chain dozed (dozed_calls > 0) and that the statistics
count exactly the MPI_Sendrecv calls the program made (its own count), every one of them
passed to MPI or run while learning, with pass-through reasons that add up.  Then once more
in the default mode: every chain start is counted in exactly one of runs_native, runs_copied
and runs_guarded.  Prints "No Errors" or FAIL lines."""
import os
import re
import subprocess
import sys


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    mpiexec, preload, prog = sys.argv[1:]
    env = dict(os.environ, LD_PRELOAD=preload, AUTOOPT_P2P_MODE="native", AUTOOPT_STATS="1")
    run = subprocess.run([mpiexec, "-n", "2", prog], env=env, capture_output=True, text=True,
                         timeout=100)
    out = run.stdout + run.stderr
    fails = []
    if run.returncode != 0 or "No Errors" not in out:
        fails.append("the run failed (rc %d):\n%s" % (run.returncode, out))
    made = re.search(r"MPI_Sendrecv calls made: (\d+)", out)
    row = re.search(r"^\s+MPI_Sendrecv\s+(\d+)\s+(\d+)\s+(\d+)\s", out, re.M)
    dozed = re.search(r"chains\s+dozed_calls\s+(\d+)", out)
    learned = re.search(r"chains\s+learn_calls\s+(\d+)", out)
    reasons = [int(n) for n in re.findall(r"^\s+MPI_Sendrecv\s+[A-Za-z].*?\s(\d+)$", out, re.M)]
    if not made or not row:
        fails.append("no count of MPI_Sendrecv calls in the output:\n" + out)
    else:
        calls, optimized, passed = (int(x) for x in row.groups())
        if calls != int(made.group(1)):
            fails.append("statistics count %d MPI_Sendrecv calls, the program made %s"
                         % (calls, made.group(1)))
        learn = int(learned.group(1)) if learned else 0
        # calls run while a phase was being learned (learn_calls) are passed too (LEARNING)
        if optimized != 0 or passed != calls or learn > passed:
            fails.append("forced native: %d optimized, %d passed and %d learned of %d calls"
                         % (optimized, passed, learn, calls))
        if sum(reasons) != passed:
            fails.append("pass-through reasons add up to %d, not %d: %s"
                         % (sum(reasons), passed, reasons))
    if not dozed or int(dozed.group(1)) == 0:
        fails.append("the chain never dozed (dozed_calls): " + (dozed.group(0) if dozed else "absent"))
    # the default (the governor choosing): every start of a safe chain is counted in exactly
    # one of runs_native, runs_copied and runs_guarded
    env.pop("AUTOOPT_P2P_MODE")
    auto = subprocess.run([mpiexec, "-n", "2", prog], env=env, capture_output=True, text=True,
                          timeout=100)
    aout = auto.stdout + auto.stderr
    if auto.returncode != 0 or "No Errors" not in aout:
        fails.append("the default run failed (rc %d):\n%s" % (auto.returncode, aout))
    counts = {k: int(v) for k, v in re.findall(
        r"chains\s+(chain_starts|runs_native|runs_copied|runs_guarded)\s+(\d+)", aout)}
    runs = sum(counts.get(k, 0) for k in ("runs_native", "runs_copied", "runs_guarded"))
    if not counts.get("chain_starts") or runs != counts["chain_starts"]:
        fails.append("default: %d chain starts, but runs_native + runs_copied + runs_guarded = %d"
                     % (counts.get("chain_starts", 0), runs))
    for f in fails:
        print("FAIL: " + f)
    if not fails:
        print("dozed %s of %s MPI_Sendrecv calls" % (dozed.group(1), made.group(1)))
        print("No Errors")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
