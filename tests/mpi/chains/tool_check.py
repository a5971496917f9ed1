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

FN = {0: "MPI_Send", 1: "MPI_Recv", 2: "MPI_Sendrecv", 3: "MPI_Allreduce"}


def header(rank):
    return struct.pack("<8sIIIiiIQQIIII", b"AOTTRACE", 1, 64, 32, rank, 2, 4242, 0, 0,
                       len(FN), 1, 1, 3)


def rec(kind, fn, sig, t, a=0, b=0, flags=0):
    return struct.pack("<BBHIQQQ", kind, flags, fn, sig, t, a, b)


def trace(rank):
    out = [header(rank)]
    t = 0
    # 3 learning iterations of chain 0 = [sig0 sig1 sig2], chain 1 = [sig3 sig4]
    for it in range(10):
        inchain = it >= 3
        for chain, members in ((0, (0, 1, 2)), (1, (3, 4))):
            if inchain:
                out.append(rec(8, 2, 0xFFFFFFFF, t, chain))
            for k, m in enumerate(members):
                if inchain and k == len(members) - 1:
                    out.append(rec(5, 0xFFFF, 0, t + 1, len(members) * 2, 1, 1))
                    out.append(rec(9, 2, 0xFFFFFFFF, t + 2, chain, len(members)))
                out.append(rec(0, 2, m, t, 2000 if inchain else 10000))
                t += 20000
            if not inchain:
                out.append(rec(6, 2, 0xFFFFFFFF, t, chain, it + 1))
                if it == 2:
                    out.append(rec(7, 2, 0xFFFFFFFF, t, chain, len(members)))
        out.append(rec(0, 3, 5, t, 50000))
        out.append(rec(2, 3, 0xFFFFFFFF, t, 13))
        t += 60000
    table = ["autoopt-trace-table\t1", "rank\t%d\t2" % rank, "records\t%d\t0" % len(out)]
    table += ["fn\t%d\t%s" % kv for kv in FN.items()]
    table += ["reason\t13\tNO_SUBSYSTEM", "str\t0\tchain"]
    for s in range(5):
        line = 40 + 3 * s if s < 3 else 70 + 3 * (s - 3)
        table.append("sig\t%d\tMPI_Sendrecv\t10\t0\t/src/halo.c:%d\t1140850688\t%d\t%d\t64\t"
                     "1275070475\t0x1000\t%d\t%d\t64\t1275070475\t0x2000\t0\tchainable"
                     % (s, line, 1 - rank, s, 1 - rank, s))
    table.append("sig\t5\tMPI_Allreduce\t10\t0\t/src/halo.c:99\t1140850688\t0\t0\t0\t0\t0\t0\t0\t"
                 "0\t0\t0\t1\tnot p2p")
    table.append("chain\t0\tconfirmed\t3\t0\t7\t7\t3\t0,1,2")
    table.append("chain\t1\tconfirmed\t3\t0\t7\t7\t3\t3,4")
    table.append("end")
    text = ("\n".join(table) + "\n").encode()
    out.append(rec(255, 0xFFFF, 0xFFFFFFFF, t, len(text)))
    return b"".join(out) + text


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
expect(rc == 2 and "/nonexistent/dir/x.json: cannot write the Chrome trace" in err
       and "Traceback" not in err, "unwritable --chrome file reported in one line (%r)" % err)
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
