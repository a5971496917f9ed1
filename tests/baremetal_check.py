#!/usr/bin/env python3
# baremetal_check.py: did the .baremetal tests test the guarded mode?
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: baremetal_check.py DIR TEST...
#   Each TEST (paging.touch_send.baremetal, ...) ran the safety suite's program in the default
#   configuration with a bare-metal node's calibration and wrote its statistics to
#   DIR/<name>.json (cmake/AotTesting.cmake).  Prints one line per test: the guarded requests
#   it made (a governor exploring the mode, or keeping it) and the verdicts of its call sites
#   and chains, by mode.  Fails when no test made a guarded request (then the stage tested
#   nothing that our own machines do not), or when no statistics were found.  Which mode a
#   governor keeps depends on the times it measured, so the verdicts are shown, not judged.  The files are removed once read, so that a later run
#   is never judged on an earlier one's statistics.
import json
import os
import sys


def verdicts(doc):
    """Mode chosen by each call site's and chain's governor (rank 0's)."""
    out = []
    for key in ("paging_sites", "chains"):
        for obj in doc.get(key) or []:
            mode = obj.get("mode")
            if mode:
                out.append(mode)
    return out


def main(argv):
    if len(argv) < 3:
        print("usage: baremetal_check.py DIR TEST...", file=sys.stderr)
        return 2
    folder, tests = argv[1], argv[2:]
    seen = chose = guarded_total = 0
    for t in tests:
        name = t[: -len(".baremetal")] if t.endswith(".baremetal") else t
        path = os.path.join(folder, name + ".json")
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except FileNotFoundError:
            print(f"{t}: no statistics (not run, or it did not reach MPI_Finalize)")
            continue
        except (OSError, ValueError) as e:
            print(f"{t}: {path}: unreadable statistics: {e}")
            return 1
        os.unlink(path)
        seen += 1
        modes = verdicts(doc)
        guarded = (doc.get("counters") or {}).get("paging.guarded", 0)
        guarded_total += guarded
        counts = {m: modes.count(m) for m in sorted(set(modes))}
        text = ", ".join(f"{m} {n}" for m, n in counts.items()) or "none"
        print(f"{t}: guarded requests {guarded}; verdicts: {text}")
        if counts.get("guarded"):
            chose += 1
    print(f"baremetal_check: {seen} of {len(tests)} tests left statistics; "
          f"{guarded_total} guarded requests; a governor kept guarded in {chose}")
    if seen == 0:
        print("baremetal_check: no statistics: run the .baremetal tests first", file=sys.stderr)
        return 1
    if guarded_total == 0:
        print("baremetal_check: no test made a guarded request with the bare-metal "
              "calibration", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
