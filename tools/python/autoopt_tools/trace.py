# autoopt-trace: summarize the traces autoopt writes with AUTOOPT_TRACE=dir.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bin/autoopt-trace runs run() (cmake/AotPythonTools.cmake).  Standard library only and no
# import from the rest of the package: tests/fuzz/fuzz_trace.py loads this file on its own.
"""\
NAME
    autoopt-trace - summarize autoopt traces: signatures, chains, per-rank statistics

SYNOPSIS
    autoopt-trace [--top N] [--no-addr2line] DIR
    autoopt-trace --chrome OUT.json [--top N] DIR
    autoopt-trace -h | --help

DESCRIPTION
    A program run under autoopt with AUTOOPT_TRACE=DIR leaves one file per rank,
    DIR/rank-NNNNN.aottrace (format: docs/trace-format.md, version 1).  autoopt-trace
    reads every such file in DIR (or a single file given instead of DIR) and prints:

    signatures  the call signatures that took the most time inside MPI, summed over
                all ranks, each with its function, its call count and its source
                location: file:line for programs built with autoopt-mpicc, otherwise
                symbol+offset, turned into file:line by addr2line(1) when it is
                installed and the program has debugging information;
    chains      every chain a rank learned: its state (confirmed, learning,
                disabled), its members in order with their locations, how often it
                ran in chain mode, how often it broke, and an estimate of the time
                chain mode saved (per member: mean time of the call outside chain
                mode minus its mean time inside, times the calls inside);
    ranks       per-rank statistics: calls, time inside MPI, events by kind
                (conversions, pass-throughs, guards, faults, waits, chain events,
                collective algorithms) and records the writer dropped.

    A damaged file (truncated by a crash, or overwritten) is reported with its name
    and the byte offset where the damage starts; everything before that offset is
    still read and printed.

OPTIONS
    --chrome OUT.json
        Also write the traces as Chrome trace-event JSON (open it in
        https://ui.perfetto.dev or chrome://tracing): one process per rank, MPI
        calls as slices on thread "MPI", chain-mode instances as slices on thread
        "chains", every other event as an instant.
    --top N
        Print the N signatures with the most time (default 15).
    --no-addr2line
        Do not run addr2line(1) on call sites given as symbol+offset.
    -h, --help
        Show this text.

EXIT STATUS
    0   every file was read completely;
    1   at least one file is damaged or incomplete (what could be read was printed);
    2   usage error, or no trace file found.

EXAMPLES
    AUTOOPT_TRACE=/tmp/t mpiexec -n 4 ./sor -n 1024 -m sendrecv
    autoopt-trace /tmp/t
    autoopt-trace --chrome /tmp/sor.json /tmp/t

SEE ALSO
    docs/trace-format.md, docs/chains.md
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys

from . import outfile

VERSION = 1
HEADER = struct.Struct("<8sIIIiiIQQIIII")
RECORD = struct.Struct("<BBHIQQQ")
KINDS = ["call", "convert", "pass", "guard", "fault", "wait", "chain_learn", "chain_confirm",
         "chain_start", "chain_end", "chain_break", "coll_alg"]
TABLE_KIND = 255
NONE32 = 0xFFFFFFFF
NONE16 = 0xFFFF


class Damage(Exception):
    def __init__(self, path, offset, what):
        Exception.__init__(self, "%s: offset %d: %s" % (path, offset, what))
        self.path, self.offset, self.what = path, offset, what


class Trace:
    """Everything one rank's file holds (up to the first damage)."""

    def __init__(self, path):
        self.path = path
        self.rank = self.size = -1
        self.records = []
        self.fn_names = {}
        self.reasons = {}
        self.strings = {}
        self.sigs = {}
        self.frames = {}
        self.chains = []
        self.damage = None
        self.dropped = 0
        self.complete = False
        self.flags = 0
        self.site_depth = 0

    def fn(self, i):
        if i == NONE16:
            return "-"
        return self.fn_names.get(i, "fn#%d" % i)


def read_trace(path):
    t = Trace(path)
    try:
        data = open(path, "rb").read()
    except OSError as e:
        t.damage = Damage(path, 0, "cannot read: %s" % e.strerror)
        return t
    try:
        parse(t, data)
    except Damage as d:
        t.damage = d
    return t


def parse(t, data):
    path = t.path
    if len(data) < HEADER.size:
        raise Damage(path, 0, "file too short for the %d-byte header (%d bytes)"
                     % (HEADER.size, len(data)))
    (magic, version, hsize, rsize, rank, size, pid, t0_real, t0_mono, nfn, flags,
     depth, confirm) = HEADER.unpack_from(data, 0)
    if magic != b"AOTTRACE":
        raise Damage(path, 0, "not an autoopt trace (magic %r)" % magic)
    if version != VERSION:
        raise Damage(path, 8, "trace format version %d, this tool reads version %d"
                     % (version, VERSION))
    if rsize != RECORD.size or hsize < HEADER.size:
        raise Damage(path, 12, "unexpected header or record size (%d, %d)" % (hsize, rsize))
    if hsize > len(data):
        raise Damage(path, 12, "header size %d is past the end of the %d-byte file"
                     % (hsize, len(data)))
    t.rank, t.size, t.flags, t.site_depth = rank, size, flags, depth
    off = hsize
    while True:
        if off == len(data):
            raise Damage(path, off, "the file ends without its tables (the process did "
                         "not reach MPI_Finalize, or the file was cut)")
        if off + RECORD.size > len(data):
            raise Damage(path, off, "truncated record (%d of %d bytes)"
                         % (len(data) - off, RECORD.size))
        kind, rflags, fn, sig, ts, a, b = RECORD.unpack_from(data, off)
        if kind == TABLE_KIND:
            break
        if kind >= len(KINDS) or rflags > 1:
            raise Damage(path, off, "corrupt record (kind %d, flags %d)" % (kind, rflags))
        if t.records and ts + 10**12 < t.records[-1][3] and kind != 0:
            pass                        # CALL records carry their enter time: order is loose
        t.records.append((kind, rflags, fn, ts, a, b, sig))
        off += RECORD.size
    table_off = off + RECORD.size
    tlen = a
    if table_off + tlen > len(data):
        raise Damage(path, table_off, "truncated table (%d of %d bytes)"
                     % (len(data) - table_off, tlen))
    text = data[table_off:table_off + tlen]
    try:
        text = text.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Damage(path, table_off + e.start, "table is not UTF-8 text")
    parse_table(t, text, table_off)


def parse_table(t, text, base):
    off = base
    lines = text.split("\n")
    if not lines or not lines[0].startswith("autoopt-trace-table\t"):
        raise Damage(t.path, base, "table header missing")
    for line in lines:
        f = line.split("\t")
        try:
            k = f[0]
            if k == "fn":
                t.fn_names[int(f[1])] = f[2]
            elif k == "reason":
                t.reasons[int(f[1])] = f[2]
            elif k == "str":
                t.strings[int(f[1])] = f[2] if len(f) > 2 else ""
            elif k == "records":
                t.dropped = int(f[2])
            elif k == "sig":
                t.sigs[int(f[1])] = {
                    "id": int(f[1]), "fn": f[2], "calls": int(f[3]), "time_ns": int(f[4]),
                    "where": f[5], "comm": f[6], "dest": int(f[7]), "stag": int(f[8]),
                    "scount": int(f[9]), "sbuf": f[11], "source": int(f[12]),
                    "rtag": int(f[13]), "rcount": int(f[14]), "rbuf": f[16],
                    "why": f[18] if len(f) > 18 else ""}
            elif k == "frame":
                t.frames.setdefault(int(f[1]), []).append((int(f[2]), f[3], f[4], f[5]))
            elif k == "chain":
                t.chains.append({
                    "id": int(f[1]), "state": f[2], "reps": int(f[3]), "breaks": int(f[4]),
                    "starts": int(f[5]), "completions": int(f[6]), "learned": int(f[7]),
                    "members": [int(x) for x in f[8].split(",") if x]})
            elif k == "end":
                t.complete = True
                return
        except (IndexError, ValueError):
            raise Damage(t.path, off, "malformed table line: %s" % ascii(line[:80]))
        off += len(line.encode("utf-8")) + 1
    raise Damage(t.path, base + len(text.encode("utf-8")), "table ends without its 'end' line")


# ---------------------------------------------------------------- source locations

_a2l_cache = {}


def addr2line(module, offset, enabled):
    if not enabled or not shutil.which("addr2line") or module in ("?", ""):
        return None
    key = (module, offset)
    if key in _a2l_cache:
        return _a2l_cache[key]
    loc = None
    try:
        # a return address points after the call: ask for the byte before it
        off = int(offset, 16) - 1
        out = subprocess.run(["addr2line", "-e", module, "-f", "-C", "-i", hex(off)],
                             capture_output=True, text=True, timeout=10).stdout.split("\n")
        if len(out) >= 2 and not out[1].startswith("??"):
            loc = out[1].split(" (")[0]
            if loc.endswith(":?") or loc.startswith("??"):
                loc = None
    except (OSError, ValueError, subprocess.SubprocessError):
        loc = None
    _a2l_cache[key] = loc
    return loc


def location(t, sig, a2l):
    s = t.sigs.get(sig)
    if s is None:
        return "?"
    where = s["where"]
    frames = sorted(t.frames.get(sig, []))
    if frames and "+0x" in where:
        locs = []
        for _, module, offset, sym in frames:
            loc = addr2line(module, offset, a2l)
            locs.append("%s (%s)" % (sym, loc) if loc else sym)
        return " < ".join(locs)
    if frames:
        extra = []
        for _, module, offset, sym in frames:
            loc = addr2line(module, offset, a2l)
            extra.append("%s (%s)" % (sym, loc) if loc else sym)
        return where + " < " + " < ".join(extra)
    return where


# ---------------------------------------------------------------- analysis

def chain_activity(t):
    """Per chain: calls inside chain mode and per-signature times inside/outside."""
    inside = {}      # sig -> [n, ns]
    outside = {}
    active = None
    end_pending = False
    instances = {}   # chain id -> list of (t_start, t_end)
    start_t = None
    for kind, rflags, fn, ts, a, b, sig in t.records:
        if kind == 8:                    # start
            active, start_t, end_pending = a, ts, False
        elif kind == 9:                  # end
            end_pending = True
            instances.setdefault(a, []).append((start_t, ts))
        elif kind == 10 and active is not None and b < 2**63:   # break
            instances.setdefault(a, []).append((start_t, ts))
            active = None
        elif kind == 0 and sig != NONE32:
            d = inside if active is not None else outside
            e = d.setdefault(sig, [0, 0])
            e[0] += 1
            e[1] += a
            if end_pending:
                active, end_pending = None, False
    return inside, outside, instances


def fmt_ns(ns):
    if ns >= 1e9:
        return "%.3f s" % (ns / 1e9)
    if ns >= 1e6:
        return "%.3f ms" % (ns / 1e6)
    return "%.1f us" % (ns / 1e3)


def summary(traces, top, a2l, out):
    ok = [t for t in traces if t.records or t.sigs]
    out.write("autoopt-trace: %d file(s), %d rank(s) read\n"
              % (len(traces), len(set(t.rank for t in traces if t.rank >= 0))))
    # signatures, summed over ranks by (function, location)
    agg = {}
    for t in ok:
        per_sig = {}
        for kind, rflags, fn, ts, a, b, sig in t.records:
            if kind == 0:
                e = per_sig.setdefault(sig, [0, 0, fn])
                e[0] += 1
                e[1] += a
        for sig, (n, ns, fn) in per_sig.items():
            loc = location(t, sig, a2l) if sig != NONE32 else "?"
            name = t.sigs[sig]["fn"] if sig in t.sigs else t.fn(fn)
            key = (name, loc)
            e = agg.setdefault(key, [0, 0, set()])
            e[0] += n
            e[1] += ns
            e[2].add(t.rank)
    out.write("\nSignatures by time inside MPI (all ranks; top %d of %d)\n" % (top, len(agg)))
    out.write("  %12s %10s %6s  %-18s %s\n" % ("time", "calls", "ranks", "function", "location"))
    for (name, loc), (n, ns, ranks) in sorted(agg.items(), key=lambda kv: -kv[1][1])[:top]:
        out.write("  %12s %10d %6d  %-18s %s\n" % (fmt_ns(ns), n, len(ranks), name, loc))

    out.write("\nChains\n")
    any_chain = False
    for t in sorted(ok, key=lambda t: t.rank):
        inside, outside, instances = chain_activity(t)
        for c in t.chains:
            any_chain = True
            saved = 0.0
            for m in set(c["members"]):
                if m in inside and m in outside and outside[m][0]:
                    n_in, ns_in = inside[m]
                    mean_out = outside[m][1] / outside[m][0]
                    saved += n_in * mean_out - ns_in
            out.write("  rank %d chain %d: %s, %d members, %d runs in chain mode, "
                      "%d breaks, learned %d times; estimated time saved %s\n"
                      % (t.rank, c["id"], c["state"], len(c["members"]), c["completions"],
                         c["breaks"], c["learned"], fmt_ns(saved) if saved >= 0
                         else "-" + fmt_ns(-saved)))
            for k, m in enumerate(c["members"]):
                s = t.sigs.get(m, {})
                peers = ""
                if s:
                    if s["fn"] in ("MPI_Send", "MPI_Ssend", "MPI_Sendrecv"):
                        peers += " to %d tag %d count %d" % (s["dest"], s["stag"], s["scount"])
                    if s["fn"] in ("MPI_Recv", "MPI_Sendrecv"):
                        peers += " from %d tag %d count %d" % (s["source"], s["rtag"],
                                                               s["rcount"])
                out.write("      %2d. sig %-4d %-13s%s  at %s\n"
                          % (k + 1, m, s.get("fn", "?"), peers, location(t, m, a2l)))
    if not any_chain:
        out.write("  (none)\n")

    out.write("\nRanks\n")
    out.write("  %5s %10s %12s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n"
              % ("rank", "calls", "MPI time", "convert", "pass", "guard", "fault", "wait",
                 "ch.start", "ch.break", "coll", "dropped"))
    for t in sorted(traces, key=lambda t: t.rank):
        cnt = [0] * len(KINDS)
        mpi_ns = 0
        for r in t.records:
            cnt[r[0]] += 1
            if r[0] == 0:
                mpi_ns += r[4]
        out.write("  %5d %10d %12s %8d %8d %8d %8d %8d %8d %8d %8d %8d%s\n"
                  % (t.rank, cnt[0], fmt_ns(mpi_ns), cnt[1], cnt[2], cnt[3], cnt[4], cnt[5],
                     cnt[8], cnt[10], cnt[11], t.dropped,
                     "" if t.complete else "  (incomplete)"))
    passes = {}
    for t in traces:
        for kind, rflags, fn, ts, a, b, sig in t.records:
            if kind == 2:
                key = (t.fn(fn), t.reasons.get(a, "reason %d" % a))
                passes[key] = passes.get(key, 0) + 1
    if passes:
        out.write("\nPass-through reasons (all ranks)\n")
        for (fn, why), n in sorted(passes.items(), key=lambda kv: -kv[1]):
            out.write("  %10d  %-20s %s\n" % (n, fn, why))


def chrome(traces, path, a2l):
    ev = []
    for t in traces:
        pid = t.rank if t.rank >= 0 else 0
        ev.append({"ph": "M", "name": "process_name", "pid": pid, "args": {"name": "rank %d" % pid}})
        ev.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": 0, "args": {"name": "MPI"}})
        ev.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": 1, "args": {"name": "chains"}})
        start = None
        for kind, rflags, fn, ts, a, b, sig in t.records:
            us = ts / 1000.0
            if kind == 0:
                args = {"sig": sig}
                if sig in t.sigs:
                    args["where"] = t.sigs[sig]["where"]
                ev.append({"ph": "X", "name": t.fn(fn), "pid": pid, "tid": 0, "ts": us,
                           "dur": a / 1000.0, "args": args})
            elif kind == 8:
                start = (us, a)
            elif kind in (9, 10) and start is not None and start[1] == a and b < 2**63:
                ev.append({"ph": "X", "name": "chain %d" % a, "pid": pid, "tid": 1,
                           "ts": start[0], "dur": us - start[0],
                           "args": {"ended": KINDS[kind]}})
                start = None
            else:
                args = {"a": a, "b": b}
                if rflags & 1 and sig in t.strings:
                    args["text"] = t.strings[sig]
                if kind == 2:
                    args["reason"] = t.reasons.get(a, a)
                ev.append({"ph": "i", "s": "t", "name": KINDS[kind], "pid": pid, "tid": 0,
                           "ts": us, "args": args})
    with outfile.replacing(path) as f:
        json.dump({"traceEvents": ev, "displayTimeUnit": "ns"}, f)


def main(argv):
    args = argv[1:]
    top, out_json, a2l, target = 15, None, True, None
    while args:
        a = args.pop(0)
        if a in ("-h", "--help"):
            sys.stdout.write(__doc__)
            return 0
        elif a == "--chrome" and args:
            out_json = args.pop(0)
        elif a == "--top" and args:
            v = args.pop(0)
            try:
                top = int(v)
            except ValueError:
                top = 0
            if top < 1:
                sys.stderr.write("autoopt-trace: --top %s: expected a whole number of 1 or "
                                 "more\n" % ascii(v))
                return 2
        elif a == "--no-addr2line":
            a2l = False
        elif a.startswith("-"):
            sys.stderr.write("autoopt-trace: unknown option %s (see --help)\n" % a)
            return 2
        elif target is None:
            target = a
        else:
            sys.stderr.write("autoopt-trace: one directory only (see --help)\n")
            return 2
    if target is None:
        sys.stderr.write("usage: autoopt-trace [--chrome OUT.json] [--top N] DIR (see --help)\n")
        return 2
    why = out_json and outfile.check(out_json)
    if why:                 # before any work: a device, FIFO, socket or directory is refused
        sys.stderr.write("autoopt-trace: --chrome %s\n" % ascii(why)[1:-1])
        return 2
    files = [target] if os.path.isfile(target) else \
        sorted(glob.glob(os.path.join(target, "rank-*.aottrace")))
    if not files:
        sys.stderr.write("autoopt-trace: %s: no rank-*.aottrace files\n" % target)
        return 2
    traces = [read_trace(p) for p in files]
    status = 0
    for t in traces:
        if t.damage:
            sys.stderr.write("autoopt-trace: error: %s (read up to there: %d records)\n"
                             % (t.damage, len(t.records)))
            status = 1
    summary(traces, top, a2l, sys.stdout)
    if out_json:
        try:
            chrome(traces, out_json, a2l)
        except OSError as e:
            sys.stderr.write("autoopt-trace: %s: cannot write the Chrome trace: %s\n"
                             % (ascii(out_json)[1:-1], ascii(e.strerror or str(e))[1:-1]))
            return 2
        sys.stdout.write("\nChrome trace written to %s\n" % out_json)
    return status


def run(argv):
    """The program's exit status (bin/autoopt-trace)."""
    try:
        return main(argv)
    except BrokenPipeError:
        return 1
