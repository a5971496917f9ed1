# autoopt-maps: pictures of the decision maps autoopt-tune encode --dump-map writes.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bin/autoopt-maps runs run() (cmake/AotPythonTools.cmake).  Python 3 with matplotlib (Debian: python3-matplotlib).  See autoopt-maps --help and
# docs/benchmarks.md, "autoopt-maps".

import csv
import math
import os
import re
import sys

from . import cli, config
from .cli import UsageError

PROG = "autoopt-maps"
VERSION = config.configured("VERSION")

MANUAL = """\
NAME
    autoopt-maps - draw the decision maps and penalty maps of autoopt-tune's encodings

SYNOPSIS
    autoopt-maps [--encoding NAME[,NAME...]] [--out DIR] [--title-suffix TEXT] CSV...

DESCRIPTION
    Reads the CSV files `autoopt-tune encode --dump-map DIR` writes, one per collective, and
    draws two pictures for every encoding in each (or for those --encoding names):

    decision map   x: message size in bytes (log scale), y: communicator size; every grid
                   point is a cell that reaches to the next grid value, coloured by the
                   method the encoding picks there; the legend names the methods.  In all
                   pictures of one collective a method has the same colour: colours go to
                   the methods in the order they first appear in the `exact` encoding, then
                   to the other methods alphabetically.
    penalty map    the same grid, coloured by penalty_pct, the percentage by which the
                   encoding's method is slower than the exact map's at that point (as
                   autoopt-tune computed it): white below 5 %, a yellow-to-red scale above
                   (one scale for all encodings of a collective); the title gives the mean
                   and maximum penalty over the encoding's grid points.

    With a single communicator size a picture is one strip.  Each picture is written as PNG
    and as SVG (text kept as text) into DIR:

        DIR/COLL-ENC-map.png, DIR/COLL-ENC-map.svg
        DIR/COLL-ENC-penalty.png, DIR/COLL-ENC-penalty.svg

    where COLL is the collective of the file's first line and ENC the encoding's name with
    ':', '=' and any other character outside [A-Za-z0-9._,+-] replaced by '_'
    (quadtree:depth=3 gives quadtree_depth_3).  A file written earlier is replaced.

INPUT
    Line 1:  # autoopt-tune encode map COLL
    Line 2:  encoding,ranks,bytes,method,time_us,best_us,penalty_pct
    Then one row per (encoding, grid point), e.g.
             quadtree:depth=3,4,1024,chain:segment=8192,12.5,11.9,5.04
    ranks is a whole number >= 1, bytes a whole number >= 0 (0 is drawn one step left of
    the smallest size and labelled 0), the times finite numbers >= 0, the penalty a finite
    number (below 0 where the encoding's method beat the exact map's).  A field holding a
    comma must be quoted ("..."), as CSV does.  Blank lines are ignored.

OPTIONS
    --encoding NAME[,NAME...]
                     draw only these encodings (exact names, e.g. exact,quadtree:depth=3);
                     an encoding that is in none of the files is an error
    --out DIR        folder for the pictures (default: the current folder; created if
                     missing)
    --title-suffix TEXT
                     appended to every title after a comma, e.g. the machine and the date
    --version        print the version
    -h, --help       this manual

EXAMPLES
    autoopt-tune encode --dump-map maps/ site.raw
    autoopt-maps --out maps/png maps/*.csv
    autoopt-maps --encoding exact,quadtree:depth=3 --title-suffix 'shm, 4 ranks' \\
                 --out /tmp/maps maps/bcast.csv

EXIT STATUS
    0 every picture was written; 1 bad input (a malformed CSV: the message names the file and
    the line; an --encoding in no file; a picture that could not be written; matplotlib not
    installed); 2 bad command line.

SEE ALSO
    autoopt-tune(1), docs/tuning.md, docs/benchmarks.md
"""

HEADER = ["encoding", "ranks", "bytes", "method", "time_us", "best_us", "penalty_pct"]
FIRST_LINE = re.compile(r"^# autoopt-tune encode map ([A-Za-z0-9_.-]+)$")
PENALTY_WHITE = 5.0          # percent; below it a penalty map cell is white
EXACT = "exact"


class InputError(Exception):
    pass


def parse_args(argv):
    o = {"encodings": None, "out": ".", "suffix": "", "files": []}
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, inline = a.partition("=")
        cli.help_or_version(a, PROG, VERSION, MANUAL)
        if name in ("--encoding", "--out", "--title-suffix"):
            if eq:
                v = inline
                i += 1
            elif i + 1 < len(argv):
                v = argv[i + 1]
                i += 2
            else:
                raise UsageError(f"option '{name}' needs a value")
            if name == "--encoding":
                names = [x for x in v.split(",") if x]
                if not names:
                    raise UsageError(f"--encoding '{v}': empty list")
                o["encodings"] = (o["encodings"] or []) + names
            elif name == "--out":
                if not v:
                    raise UsageError("--out: empty folder name")
                o["out"] = v
            else:
                o["suffix"] = v
            continue
        if a == "--":
            o["files"] += argv[i + 1:]
            break
        if a.startswith("-") and a != "-":
            raise UsageError(f"unknown option '{a}' (see --help)")
        o["files"].append(a)
        i += 1
    if not o["files"]:
        raise UsageError("no CSV file given (see --help)")
    return o


# ------------------------------------------------------------------ input

def _number(path, lineno, column, text, whole, lo=None):
    """The number in a field: whole or not, finite, at least lo (None: any)."""
    try:
        v = int(text) if whole else float(text)
    except ValueError:
        kind = "a whole number" if whole else "a number"
        raise InputError(f"{path}:{lineno}: {column} '{text}' is not {kind}") from None
    if not math.isfinite(v):
        raise InputError(f"{path}:{lineno}: {column} '{text}' is not a finite number")
    if lo is not None and v < lo:
        raise InputError(f"{path}:{lineno}: {column} '{text}' is below {lo}")
    return v


def read_map(path):
    """Reads one --dump-map CSV.  Returns {"coll", "path", "rows": {encoding: {(ranks, bytes):
    row}}, "order": [encodings in file order], "methods": [methods of `exact` in order of
    first appearance]}."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file (not UTF-8)") from None
    lines = text.splitlines()
    if not lines:
        raise InputError(f"{path}:1: empty file, expected '# autoopt-tune encode map COLL'")
    m = FIRST_LINE.match(lines[0].rstrip())
    if not m:
        raise InputError(f"{path}:1: expected '# autoopt-tune encode map COLL', "
                         f"got '{lines[0][:80]}'")
    if len(lines) < 2 or lines[1].strip().split(",") != HEADER:
        got = lines[1][:80] if len(lines) >= 2 else "end of file"
        raise InputError(f"{path}:2: header is '{got}', expected '{','.join(HEADER)}'")
    mp = {"coll": m.group(1), "path": path, "rows": {}, "order": [], "methods": []}
    for lineno, fields in enumerate(csv.reader(lines[2:]), start=3):
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            continue
        if len(fields) != len(HEADER):
            raise InputError(f"{path}:{lineno}: {len(fields)} columns, expected "
                             f"{len(HEADER)} ({','.join(HEADER)})")
        enc, method = fields[0].strip(), fields[3].strip()
        if not enc:
            raise InputError(f"{path}:{lineno}: empty encoding name")
        if not method:
            raise InputError(f"{path}:{lineno}: empty method name")
        ranks = _number(path, lineno, "ranks", fields[1].strip(), True, 1)
        size = _number(path, lineno, "bytes", fields[2].strip(), True, 0)
        time_us = _number(path, lineno, "time_us", fields[4].strip(), False, 0)
        best_us = _number(path, lineno, "best_us", fields[5].strip(), False, 0)
        penalty = _number(path, lineno, "penalty_pct", fields[6].strip(), False)
        points = mp["rows"].get(enc)
        if points is None:
            points = mp["rows"][enc] = {}
            mp["order"].append(enc)
        if (ranks, size) in points:
            raise InputError(f"{path}:{lineno}: second row of encoding '{enc}' at ranks "
                             f"{ranks}, bytes {size} (first on line "
                             f"{points[(ranks, size)]['line']})")
        points[(ranks, size)] = {"method": method, "time_us": time_us, "best_us": best_us,
                                 "penalty": penalty, "line": lineno}
        if enc == EXACT and method not in mp["methods"]:
            mp["methods"].append(method)
    if not mp["rows"]:
        raise InputError(f"{path}:3: no rows after the header")
    return mp


def method_colors(mp):
    """One colour per method of the collective, the same in every picture of it: the methods
    of `exact` in order of first appearance, then the others alphabetically, along tab20 with
    its dark shades first (ten distinct hues), then tab20b and tab20c."""
    others = sorted({p["method"] for pts in mp["rows"].values() for p in pts.values()}
                    - set(mp["methods"]))
    methods = mp["methods"] + others
    palette = []
    for name in ("tab20", "tab20b", "tab20c"):
        cm = matplotlib.colormaps[name]
        palette += [cm(k) for k in range(0, cm.N, 2)] + [cm(k) for k in range(1, cm.N, 2)]
    return {m: palette[k % len(palette)] for k, m in enumerate(methods)}, methods


# ------------------------------------------------------------------ geometry

def size_label(b):
    """1, 4, 16, ..., 256, 1K, 4K, ..., 1M, ...; other sizes as exact as they are."""
    for shift, unit in ((30, "G"), (20, "M"), (10, "K")):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift}{unit}"
    return str(b)


def x_grid(sizes):
    """Cell edges along x in log2(bytes), the ticks (position, label) and the axis limits.  A
    cell reaches from its size to the next; the last one as far as the step before it (one
    doubling if it is alone).  Size 0 sits one step left of the smallest positive size."""
    logs = [math.log2(s) for s in sizes if s > 0]
    if logs:
        first = logs[1] - logs[0] if len(logs) > 1 else 1.0
        last = logs[-1] - logs[-2] if len(logs) > 1 else 1.0
        xs = ([logs[0] - first] if 0 in sizes else []) + logs
    else:                                   # only size 0
        last, xs = 1.0, [0.0]
    edges = xs + [xs[-1] + last]
    ticks = []
    if logs:
        # powers of 4 (1, 4, 16, ..., 1K, ..., 1M), else of 2, else the sizes themselves
        for stride in (2, 1):
            ticks = [(float(e), size_label(1 << e))
                     for e in range(max(0, math.ceil(logs[0])), math.ceil(edges[-1]))
                     if e % stride == 0]
            if len(ticks) >= 2:
                break
        if len(ticks) < 2:
            ticks = [(math.log2(s), size_label(s)) for s in sizes if s > 0]
    if 0 in sizes:     # alone (a barrier), the single column is labelled in its middle
        ticks.insert(0, (xs[0] + (0.0 if logs else 0.5), "0"))
    return edges, ticks, (edges[0], edges[-1])


def y_grid(ranks):
    """Cell edges along y (a cell reaches from its communicator size to the next) and the
    ticks: every size, in the middle of its row, when there are few; else whole numbers
    chosen by matplotlib."""
    step = ranks[-1] - ranks[-2] if len(ranks) > 1 else 1
    edges = list(ranks) + [ranks[-1] + step]
    if len(ranks) == 1:
        return edges, [(ranks[0] + 0.5, str(ranks[0]))]
    if len(ranks) <= 12:
        # each label in the middle of its own row
        return edges, [((edges[i] + edges[i + 1]) / 2, str(r)) for i, r in enumerate(ranks)]
    loc = matplotlib.ticker.MaxNLocator(nbins=8, integer=True)
    return edges, [(t, str(int(t))) for t in loc.tick_values(ranks[0], ranks[-1])
                   if ranks[0] <= t <= ranks[-1]]


def safe_name(text):
    return re.sub(r"[^A-Za-z0-9._,+-]", "_", text)


def mathsafe(text):
    """Text for matplotlib, which would read a pair of dollar signs as mathematics."""
    return text.replace("$", r"\$")


# ------------------------------------------------------------------ pictures

def new_axes(mp, ranks, sizes, title, legend_room):
    strip = len(ranks) == 1
    fig, ax = plt.subplots(figsize=(8.0 + legend_room, 2.2 if strip else 5.0))
    xe, xticks, (xlo, xhi) = x_grid(sizes)
    ye, yticks = y_grid(ranks)
    ax.set_xlim(xlo, xhi)
    ax.set_ylim(ye[0], ye[-1])
    ax.set_xticks([t for t, _ in xticks], [lab for _, lab in xticks])
    ax.set_yticks([t for t, _ in yticks], [lab for _, lab in yticks])
    ax.set_xlabel("message size (bytes, log scale)")
    ax.set_ylabel("communicator size")
    ax.set_facecolor("#d9d9d9")          # grid points the encoding has no row for
    ax.set_title(mathsafe(title), fontsize=11)
    return fig, ax, xe, ye


def cell_array(mp, enc, ranks, sizes, value):
    data = numpy.ma.masked_all((len(ranks), len(sizes)))
    pts = mp["rows"][enc]
    for j, r in enumerate(ranks):
        for i, s in enumerate(sizes):
            p = pts.get((r, s))
            if p is not None:
                data[j, i] = value(p)
    return data


def mesh(ax, xe, ye, data, edge="face", **kw):
    # Large grids are drawn as an image inside the SVG (text and axes stay vector), so the
    # file stays small.
    return ax.pcolormesh(xe, ye, data, shading="flat", edgecolors=edge, linewidth=0.3,
                         rasterized=data.size > 2500, **kw)


def save(fig, base):
    written = []
    for ext in ("png", "svg"):
        path = f"{base}.{ext}"
        try:
            fig.savefig(path, dpi=120, bbox_inches="tight",
                        metadata={"Date": None} if ext == "svg" else None)
        except OSError as e:
            plt.close(fig)
            raise InputError(f"{path}: cannot write: {e.strerror}") from None
        written.append(path)
    plt.close(fig)
    return written


def decision_map(mp, enc, ranks, sizes, colors, order, suffix, base):
    pts = mp["rows"][enc]
    present = [m for m in order if any(p["method"] == m for p in pts.values())]
    index = {m: k for k, m in enumerate(order)}
    data = cell_array(mp, enc, ranks, sizes, lambda p: index[p["method"]])
    title = f"{mp['coll']}, {enc}: decision map" + (f", {suffix}" if suffix else "")
    fig, ax, xe, ye = new_axes(mp, ranks, sizes, title, 2.2)
    cmap = matplotlib.colors.ListedColormap([colors[m] for m in order])
    norm = matplotlib.colors.BoundaryNorm([k - 0.5 for k in range(len(order) + 1)],
                                          len(order))
    mesh(ax, xe, ye, data, cmap=cmap, norm=norm)
    handles = [matplotlib.patches.Patch(facecolor=colors[m], label=mathsafe(m))
               for m in present]
    if numpy.ma.count_masked(data):
        handles.append(matplotlib.patches.Patch(facecolor="#d9d9d9", label="no row"))
    # a strip is low: its legend goes into columns of at most four entries
    ax.legend(handles=handles, title="method", loc="upper left", bbox_to_anchor=(1.01, 1.0),
              ncol=math.ceil(len(handles) / 4) if len(ranks) == 1 else 1,
              fontsize=9, title_fontsize=9, frameon=False)
    return save(fig, base)


def penalty_map(mp, enc, ranks, sizes, vmax, suffix, base):
    pens = [p["penalty"] for p in mp["rows"][enc].values()]
    mean = sum(pens) / len(pens)
    title = (f"{mp['coll']}, {enc}: mean penalty {mean:.2f} % (max {max(pens):.1f} %)"
             + (f", {suffix}" if suffix else ""))
    fig, ax, xe, ye = new_axes(mp, ranks, sizes, title, 1.2)
    data = cell_array(mp, enc, ranks, sizes, lambda p: p["penalty"])
    cmap = matplotlib.colormaps["YlOrRd"].copy()
    cmap.set_under("white")
    norm = matplotlib.colors.Normalize(vmin=PENALTY_WHITE, vmax=vmax)
    m = mesh(ax, xe, ye, data, edge="#e4e4e4", cmap=cmap, norm=norm)  # grid seen in white
    bar = fig.colorbar(m, ax=ax, extend="min", pad=0.02, fraction=0.05 if
                       len(ranks) > 1 else 0.08, aspect=20 if len(ranks) > 1 else 8)
    bar.set_label(f"penalty against the exact map (%)\nwhite: below {PENALTY_WHITE:g} %",
                  fontsize=9)
    return save(fig, base)


def draw(o, maps):
    try:
        os.makedirs(o["out"], exist_ok=True)
    except OSError as e:
        raise InputError(f"{o['out']}: cannot create the folder: {e.strerror}") from None
    for mp in maps:
        encs = [e for e in mp["order"] if o["encodings"] is None or e in o["encodings"]]
        if not encs:
            continue
        colors, order = method_colors(mp)
        ranks = sorted({r for pts in mp["rows"].values() for r, _ in pts})
        sizes = sorted({s for pts in mp["rows"].values() for _, s in pts})
        vmax = max([PENALTY_WHITE * 2] + [p["penalty"] for pts in mp["rows"].values()
                                           for p in pts.values()])
        for enc in encs:
            base = os.path.join(o["out"], f"{safe_name(mp['coll'])}-{safe_name(enc)}")
            for path in (decision_map(mp, enc, ranks, sizes, colors, order, o["suffix"],
                                      base + "-map")
                         + penalty_map(mp, enc, ranks, sizes, vmax, o["suffix"],
                                       base + "-penalty")):
                print(f"{PROG}: wrote {path}")


def main(argv):
    global matplotlib, numpy, plt
    o = parse_args(argv)
    maps = [read_map(path) for path in o["files"]]
    if o["encodings"]:
        have = {e for mp in maps for e in mp["order"]}
        for e in o["encodings"]:
            if e not in have:
                raise InputError(f"--encoding '{e}' is in none of the files (they hold: "
                                 f"{', '.join(sorted(have))})")
    seen = {}
    for mp in maps:
        if mp["coll"] in seen:
            print(f"{PROG}: warning: {mp['path']} and {seen[mp['coll']]} both hold "
                  f"{mp['coll']}; the pictures of the later file replace the earlier's",
                  file=sys.stderr)
        seen[mp["coll"]] = mp["path"]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.colors
        import matplotlib.patches
        import matplotlib.pyplot as plt
        import matplotlib.ticker
        import numpy
    except ImportError as e:
        raise InputError(f"cannot import matplotlib ({e}): install python3-matplotlib "
                         "(apt-get install python3-matplotlib)") from None
    matplotlib.rcParams["svg.fonttype"] = "none"       # text stays text in the SVG
    matplotlib.rcParams["svg.hashsalt"] = PROG         # the same input gives the same SVG
    draw(o, maps)
    return 0


def run(argv):
    """The program's exit status (bin/autoopt-maps)."""
    return cli.run(PROG, main, argv, [(InputError, 1, "")])
