#!/usr/bin/python3
# summarize.py: the "which algorithm wins where" tables of docs/collectives.md, made from the
# output of autoopt-bench-coll.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: summarize.py FILE...
#
# Each FILE is what `autoopt-bench-coll [options] COLL > FILE` wrote.  The per-algorithm
# tables of all files are read; files of the same collective are merged, keeping for every
# algorithm and size the lowest average (the best repetition, as --repeat does within one
# run; so a second run over the small sizes sharpens them without repeating the large ones).
# For every collective it prints a Markdown table that merges consecutive sizes with the same
# fastest algorithm (sizes; fastest; native µs and fastest µs at the first and the last size
# of the group; native / fastest as the lowest and highest ratio in the group), then the
# best ratio with its size.  Exit status 1 when a file holds no table or no native run.
import re
import sys

HEAD = re.compile(r"# autoopt-bench-coll (\w+): (\S+), (\d+) ranks")


def size_text(b):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div and b % div == 0:
            return "%d %s" % (b // div, unit)
    return "%d B" % b


def span(a, b, fmt):
    return fmt(a) if a == b else "%s – %s" % (fmt(a), fmt(b))


def read(path, colls):
    """Adds the file's tables to colls: {coll: {alg: {size: avg}}}; returns the tables read."""
    cur, n = None, 0
    with open(path) as f:
        for line in f:
            m = HEAD.match(line)
            if m:
                cur = colls.setdefault(m.group(1), {}).setdefault(m.group(2), {})
                n += 1
                continue
            if line.startswith("#") or not line.strip():
                if line.startswith("# ") and "best algorithm per size" in line:
                    cur = None
                continue
            parts = line.split()
            if cur is not None and len(parts) == 5:
                size, avg = int(parts[0]), float(parts[1])
                if size not in cur or avg < cur[size]:
                    cur[size] = avg
    return n


def summarize(coll, algs):
    native = algs.get("native")
    if not native:
        sys.stderr.write("summarize.py: %s: no native run to compare with\n" % coll)
        return 1
    rows = []
    for size in sorted(native):
        best = min((a for a in algs if size in algs[a]), key=lambda a: algs[a][size])
        rows.append((size, native[size], best, algs[best][size],
                     native[size] / algs[best][size]))
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
        print("| %s | %s | %s | %s | %s |" % (
            span(g[0][0], g[-1][0], size_text), g[0][2],
            span(g[0][1], g[-1][1], lambda v: "%.1f" % v),
            span(g[0][3], g[-1][3], lambda v: "%.1f" % v),
            span(min(r[4] for r in g), max(r[4] for r in g), lambda v: "%.2f" % v)))
    best = max(rows, key=lambda r: r[4])
    print("\nBest ratio: %.2f (%s at %s: %.1f µs against %.1f µs native)\n" % (
        best[4], best[2], size_text(best[0]), best[3], best[1]))
    return 0


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        doc = open(__file__).read().split("\nimport", 1)[0].split("\n")[1:]
        sys.stdout.write("\n".join(l[2:] for l in doc if l.startswith("# ")) + "\n")
        return 0 if len(argv) >= 2 else 2
    colls, rc = {}, 0
    for path in argv[1:]:
        try:
            if read(path, colls) == 0:
                sys.stderr.write("summarize.py: %s: no autoopt-bench-coll table\n" % path)
                rc = 1
        except OSError as e:
            sys.stderr.write("summarize.py: %s: %s\n" % (path, e.strerror))
            rc = 1
    for coll in colls:
        rc |= summarize(coll, colls[coll])
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
