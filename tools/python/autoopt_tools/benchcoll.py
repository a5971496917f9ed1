# benchcoll.py: reads what autoopt-bench-coll prints (tools/bench-coll/bench_coll.c): its
# per-algorithm latency tables, the best-algorithm table and the tuned table.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The output, as bench_coll.c writes it:
#
#   # autoopt-bench-coll COLL on N ranks; platform: ...          (the run's header)
#
#   # autoopt-bench-coll COLL: ALG, N ranks[, dealt round-robin ...]
#   # Size  Avg Latency(us)  Min Latency(us)  Max Latency(us)  Iterations
#   SIZE    AVG              MIN              MAX              ITERS        (one row per size)
#
#   # COLL on N ranks: best algorithm per size (ratio = native avg / best avg)
#   # Size  native(us)  best  best(us)  ratio                               ("-" without native)
#
#   # COLL on N ranks, tuned with FILE: tuned/native and tuned/best ...
#   # Size  tuned(us)  native(us)  best(us)  tuned/native  tuned/best
#   # tuned within 10 % of the best at ...
#
# A job's own output (one algorithm, what the driver reads back) is one latency table whose
# ALG is "as is" when no algorithm was forced.  Rows that do not have their table's columns,
# and any other line, are skipped.

import re

ALG_HEAD = re.compile(r"# autoopt-bench-coll (\w+): (.+?), (\d+) ranks(?:,|$)")
BEST_HEAD = re.compile(r"# (\w+) on (\d+) ranks: best algorithm per size")
TUNED_HEAD = re.compile(r"# (\w+) on (\d+) ranks, tuned with (.*): tuned/native")


class Table:
    """One table: kind "alg" (rows of (size, avg_us, min_us, max_us, iterations)), "best"
    (rows of (size, native_us or None, best algorithm, best_us, ratio or None)) or "tuned"
    (rows of (size, tuned_us, native_us, best_us, tuned/native, tuned/best)); alg is the
    algorithm of an "alg" table, the tuning file of a "tuned" one, None for "best"."""

    def __init__(self, kind, coll, ranks, alg=None):
        self.kind, self.coll, self.ranks, self.alg = kind, coll, ranks, alg
        self.rows = []

    def __repr__(self):
        return f"Table({self.kind!r}, {self.coll!r}, {self.ranks}, {self.alg!r}, {self.rows!r})"


def _number(text, kind):
    return None if text == "-" else kind(text)


def _alg_row(parts):
    if len(parts) != 5:
        return None
    return (int(parts[0]), float(parts[1]), float(parts[2]), float(parts[3]), int(parts[4]))


def _best_row(parts):
    if len(parts) != 5:
        return None
    return (int(parts[0]), _number(parts[1], float), parts[2], float(parts[3]),
            _number(parts[4], float))


def _tuned_row(parts):
    if len(parts) != 6:
        return None
    return (int(parts[0]),) + tuple(float(p) for p in parts[1:])


_ROW = {"alg": _alg_row, "best": _best_row, "tuned": _tuned_row}


def parse(lines):
    """The tables in lines (an open file or a list of lines), in order."""
    tables, cur = [], None
    for line in lines:
        m = ALG_HEAD.match(line)
        if m:
            cur = Table("alg", m.group(1), int(m.group(3)), m.group(2))
        else:
            m = BEST_HEAD.match(line)
            if m:
                cur = Table("best", m.group(1), int(m.group(2)))
            else:
                m = TUNED_HEAD.match(line)
                if m:
                    cur = Table("tuned", m.group(1), int(m.group(2)), m.group(3))
        if m:
            tables.append(cur)
            continue
        if cur is None or line.startswith("#") or not line.strip():
            continue
        try:
            row = _ROW[cur.kind](line.split())
        except ValueError:
            row = None
        if row is not None:
            cur.rows.append(row)
    return tables


def read(path):
    """parse() of the file at path (OSError when it cannot be read)."""
    with open(path) as f:
        return parse(f)
