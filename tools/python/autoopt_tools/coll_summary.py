# coll_summary.py: the "which algorithm wins where" tables of docs/collectives.md, made from
# the output of autoopt-bench-coll (tools/bench-coll/summarize.py runs it).
# SPDX-License-Identifier: GPL-2.0-or-later

import sys

from . import benchcoll

USAGE = """\
summarize.py: the "which algorithm wins where" tables of docs/collectives.md, made from the
output of autoopt-bench-coll.
usage: summarize.py FILE...
Each FILE is what `autoopt-bench-coll [options] COLL > FILE` wrote.  The per-algorithm
tables of all files are read; files of the same collective are merged, keeping for every
algorithm and size the lowest average (the best repetition, as --repeat does within one
run; so a second run over the small sizes sharpens them without repeating the large ones).
For every collective it prints a Markdown table that merges consecutive sizes with the same
fastest algorithm (sizes; fastest; native µs and fastest µs at the first and the last size
of the group; native / fastest as the lowest and highest ratio in the group), then the
best ratio with its size.  Exit status 1 when a file holds no table or no native run.
"""


def size_text(b):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div and b % div == 0:
            return "%d %s" % (b // div, unit)
    return "%d B" % b


def span(a, b, fmt):
    return fmt(a) if a == b else "%s – %s" % (fmt(a), fmt(b))


def read(path, colls):
    """Adds the file's latency tables to colls: {coll: {alg: {size: avg}}}, keeping the lowest
    average of each size; returns the number of tables read."""
    tables = [t for t in benchcoll.read(path) if t.kind == "alg"]
    for t in tables:
        cur = colls.setdefault(t.coll, {}).setdefault(t.alg, {})
        for size, avg, _, _, _ in t.rows:
            if size not in cur or avg < cur[size]:
                cur[size] = avg
    return len(tables)


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
        sys.stdout.write(USAGE)
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


def run(argv):
    """The program's exit status (tools/bench-coll/summarize.py)."""
    try:
        return main(argv)
    except BrokenPipeError:
        return 1
