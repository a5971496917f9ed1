#!/usr/bin/env python3
# tool_check.py: autoopt-trace on a trace written here, byte by byte, after docs/trace-format.md:
# it must print the two known chains with their members and estimate, and on a truncated and a
# corrupted copy it must name the file and the offset and still print what came before.
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: tool_check.py AUTOOPT_TRACE WORKDIR
import os
import struct
import subprocess
import sys

tool, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
for f in os.listdir(work):
    os.remove(os.path.join(work, f))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tracegen import trace  # noqa: E402


for rank in (0, 1):
    with open(os.path.join(work, "rank-%05d.aottrace" % rank), "wb") as f:
        f.write(trace(rank))


def run(*args):
    p = subprocess.run([tool, "--no-addr2line"] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


errors = 0


def expect(cond, what):
    global errors
    if not cond:
        print("FAIL:", what)
        errors += 1


rc, out, err = run(work)
print(out, err)
expect(rc == 0, "complete traces: exit status 0 (got %d)" % rc)
expect(out.count("confirmed, 3 members, 7 runs in chain mode, 0 breaks") == 2,
       "chain 0 with 3 members on both ranks")
expect(out.count("confirmed, 2 members, 7 runs in chain mode") == 2, "chain 1 with 2 members")
for line in (40, 43, 46, 70, 73):
    expect("/src/halo.c:%d" % line in out, "member at halo.c:%d listed" % line)
expect("estimated time saved 168.0 us" in out, "chain 0 saving: 7 runs x 3 x (10-2) us")
expect("MPI_Allreduce" in out and "NO_SUBSYSTEM" in out, "pass-through reason listed")
rc, out, err = run("--chrome", os.path.join(work, "out.json"), work)
expect(rc == 0 and os.path.getsize(os.path.join(work, "out.json")) > 1000, "chrome export")
import json
ev = json.load(open(os.path.join(work, "out.json")))["traceEvents"]
expect(sum(1 for e in ev if e.get("name") == "chain 0") == 14, "chrome: 7 chain slices per rank")

# a Chrome file that cannot be written: one line naming it, exit status 2, no traceback
rc, out, err = run("--chrome", "/nonexistent/dir/x.json", work)
# (checked with the options, before the traces are read: issue 55, item 1)
expect(rc == 2 and "--chrome /nonexistent/dir/x.json: the directory /nonexistent/dir does not exist"
       in err and err.count("\n") == 1 and "Traceback" not in err,
       "unwritable --chrome file reported in one line (%r)" % err)
# --top must be a whole number of 1 or more
for bad_top in ("-3", "0", "x"):
    rc, out, err = run("--top", bad_top, work)
    expect(rc == 2 and "--top" in err and "Traceback" not in err, "--top %s refused" % bad_top)

# truncated: cut inside a record
data = open(os.path.join(work, "rank-00001.aottrace"), "rb").read()
cut = 64 + 32 * 40 + 11
open(os.path.join(work, "rank-00001.aottrace"), "wb").write(data[:cut])
rc, out, err = run(work)
print(out, err)
expect(rc == 1, "truncated trace: exit status 1 (got %d)" % rc)
expect("rank-00001.aottrace: offset %d: truncated record" % (64 + 32 * 40) in err,
       "truncated trace: file and offset named")
expect("(read up to there: 40 records)" in err, "records before the damage counted")
expect("rank 0 chain 0: confirmed" in out, "the intact rank is still summarized")
# corrupt: a bad kind byte
bad = bytearray(data)
bad[64 + 32 * 5] = 77
open(os.path.join(work, "rank-00001.aottrace"), "wb").write(bytes(bad))
rc, out, err = run(work)
expect(rc == 1 and "offset %d: corrupt record (kind 77" % (64 + 32 * 5) in err,
       "corrupt record named with its offset")
# a header size past the end of the file (was "truncated record (-1026083 of 32 bytes)")
bad = bytearray(data)
struct.pack_into("<I", bad, 12, 1026083 + len(data))
open(os.path.join(work, "rank-00001.aottrace"), "wb").write(bytes(bad))
rc, out, err = run(work)
expect(rc == 1 and "offset 12: header size %d is past the end" % (1026083 + len(data)) in err,
       "a header size past the end of the file named (%r)" % err)
# not a trace at all
open(os.path.join(work, "rank-00001.aottrace"), "wb").write(b"hello world, this is not a trace" * 3)
rc, out, err = run(work)
expect(rc == 1 and "offset 0: not an autoopt trace" in err, "wrong magic reported")
rc, out, err = run("--help")
expect(rc == 0 and "SYNOPSIS" in out and "EXIT STATUS" in out, "--help")
print("No Errors" if not errors else "Found %d errors" % errors)
sys.exit(1 if errors else 0)
