#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""merge_tables.py: tuning files of disjoint host shapes joined into one (the built-in table).

usage: merge_tables.py PART.tune... > builtin.tune

autoopt-tune --host-shape writes one file per platform, each ranks block qualified by the
hosts and ranks per host it was measured on (docs/tuning-format.md).  A tuning file names
each collective once, so the parts cannot simply be concatenated: this puts every part's
blocks of a collective under one "collective" line, in the order the parts are given, and
keeps each part's header comments (what it was measured on, and how) and each rule's comment
(its measured speed-up).  Whether the blocks overlap is the reader's to say: check the result
with aot-tuning-check, as the build does for a built-in file.  Exit status 0, 1 on a part that
is not a tuning file (named, with its line), 2 on bad usage.
"""
import sys


def parse(path):
    """-> (header comment lines, {collective: [block lines]}, [collectives in order])"""
    header, blocks, order = [], {}, []
    coll = None
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for n, line in enumerate(lines, 1):
        word = line.split("#", 1)[0].split()
        if not word:
            if coll is None and line.strip():
                header.append(line)
            continue
        if word[0] == "autoopt-tuning":
            if len(word) != 2 or word[1] not in ("1", "2"):
                sys.exit(f"merge_tables.py: {path}:{n}: expected 'autoopt-tuning 1' or 2")
            continue
        if word[0] == "collective":
            if len(word) != 2:
                sys.exit(f"merge_tables.py: {path}:{n}: expected 'collective <name>'")
            coll = word[1]
            if coll not in blocks:
                blocks[coll] = []
                order.append(coll)
            continue
        if coll is None:
            sys.exit(f"merge_tables.py: {path}:{n}: '{word[0]}' before any 'collective' line")
        blocks[coll].append(line)
    return header, blocks, order


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    out = ["# autoopt's built-in table: the parts below joined by collectives/tables/"
           "merge_tables.py",
           "# (" + " ".join(p.rsplit("/", 1)[-1] for p in argv[1:]) + "); each block holds "
           "only for the host shape it names"]
    merged, order = {}, []
    for path in argv[1:]:
        header, blocks, corder = parse(path)
        out.append(f"# --- part {path.rsplit('/', 1)[-1]}:")
        out.extend(header)
        for c in corder:
            if c not in merged:
                merged[c] = []
                order.append(c)
            merged[c].extend(blocks[c])
    out.append("autoopt-tuning 2")
    for c in order:
        out.append(f"collective {c}")
        out.extend(merged[c])
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
