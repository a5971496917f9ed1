#!/usr/bin/python3
# summarize.py: the "which algorithm wins where" tables of docs/collectives.md, made from the
# output of autoopt-bench-coll (one file per collective).
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: summarize.py FILE...        (each FILE is what `autoopt-bench-coll COLL > FILE` wrote)
#
# For every file: the collective's name, then a Markdown table that merges consecutive sizes
# with the same fastest algorithm (sizes, fastest, native µs, fastest µs, native / fastest),
# and the best ratio with its size.  The numbers are those of the file's closing section
# "best algorithm per size (ratio = native avg / best avg)"; nothing is recomputed but the
# grouping.  Exit status 1 when a file has no such section (a failed or interrupted run).
import re
import sys


def size_text(b):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div and b % div == 0:
            return "%d %s" % (b // div, unit)
    return "%d B" % b


def span(a, b, fmt):
    return fmt(a) if a == b else "%s – %s" % (fmt(a), fmt(b))


def summarize(path):
    coll, rows, in_best = None, [], False
    with open(path) as f:
        for line in f:
            m = re.match(r"# (\w+) on (\d+) ranks: best algorithm per size", line)
            if m:
                coll, in_best = m.group(1), True
                continue
            if in_best and not line.startswith("#"):
                parts = line.split()
                if len(parts) == 5:
                    rows.append((int(parts[0]), float(parts[1]), parts[2], float(parts[3]),
                                 float(parts[4])))
    if not coll or not rows:
        sys.stderr.write("summarize.py: %s: no 'best algorithm per size' section "
                         "(the run failed or was interrupted)\n" % path)
        return 1
    groups = []
    for r in rows:
        if groups and groups[-1][-1][2] == r[2]:
            groups[-1].append(r)
        else:
            groups.append([r])
    print("#### %s" % coll)
    print("| sizes | fastest | native µs | fastest µs | native / fastest |")
    print("|---|---|---|---|---|")
    for g in groups:
        sizes = span(g[0][0], g[-1][0], size_text)
        print("| %s | %s | %s | %s | %s |" % (
            sizes, g[0][2], span(g[0][1], g[-1][1], lambda v: "%.1f" % v),
            span(g[0][3], g[-1][3], lambda v: "%.1f" % v),
            span(g[0][4], g[-1][4], lambda v: "%.2f" % v)))
    best = max(rows, key=lambda r: r[4])
    print("\nBest ratio: %.2f (%s at %s: %.1f µs against %.1f µs native)\n" % (
        best[4], best[2], size_text(best[0]) if coll != "barrier" else "0 B", best[3], best[1]))
    return 0


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stdout.write(open(__file__).read().split("\nimport", 1)[0].split("\n", 1)[1]
                         .replace("# ", "").replace("#", ""))
        return 0 if len(argv) >= 2 else 2
    rc = 0
    for path in argv[1:]:
        try:
            rc |= summarize(path)
        except OSError as e:
            sys.stderr.write("summarize.py: %s: %s\n" % (path, e.strerror))
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
