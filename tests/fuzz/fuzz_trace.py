#!/usr/bin/env python3
# fuzz_trace.py: fuzz target for the trace reader (autoopt_tools.trace), deterministic.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: fuzz_trace.py AUTOOPT_TRACE [--seed N] [--runs N]
#
# Loads the reader as a module and feeds it complete two-rank traces (tests/mpi/chains/
# tracegen.py) mutated with a fixed-seed generator: bits flipped, bytes set to boundary values,
# 32-bit fields of the header and of records overwritten with extreme values, runs deleted or
# duplicated, the file cut.  Oracle: parse() returns or raises Damage with an offset inside the
# file and a message of printable text, never another exception; the summary and the Chrome
# export of whatever was read never raise; a damage-free result is what an unmutated trace
# gives when the mutation changed nothing the reader uses.  Exit status 0, or 1 with the seed
# and run number of the first failure (rerun with the same --seed to reproduce it).
import importlib
import io
import os
import random
import struct
import sys
import tempfile
import traceback

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "mpi", "chains"))
from tracegen import trace  # noqa: E402


def load_tool(path):
    # trace.py is a module of the autoopt_tools package (it imports its siblings): import it
    # as one, from the folder that holds the package
    pkg_dir = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, os.path.dirname(pkg_dir))
    name = os.path.basename(pkg_dir) + "." + os.path.splitext(os.path.basename(path))[0]
    return importlib.import_module(name)


EXTREMES = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 31, 32, 33, 63, 64, 65, 255, 256]


def mutate(rng, data):
    b = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(7)
        if not b:
            b += bytes([rng.randrange(256)])
        pos = rng.randrange(len(b))
        if op == 0:
            b[pos] ^= 1 << rng.randrange(8)
        elif op == 1:
            b[pos] = rng.choice([0, 0x7F, 0x80, 0xFF, 0x0A, 0x09, 0xFE])
        elif op == 2 and len(b) >= 4:                       # a 32-bit field, aligned
            off = rng.randrange(0, len(b) - 3) & ~3
            struct.pack_into("<I", b, off, rng.choice(EXTREMES))
        elif op == 3 and len(b) >= 64:                      # a header field
            off = rng.randrange(8, 64 - 3) & ~3
            struct.pack_into("<I", b, off, rng.choice(EXTREMES))
        elif op == 4:
            del b[pos:pos + rng.randint(1, 64)]
        elif op == 5:
            n = rng.randint(1, 64)
            b[pos:pos] = b[pos:pos + n]
        else:
            del b[rng.randrange(len(b) + 1):]               # cut the file
    return bytes(b)


def printable(s):
    return all(0x20 <= ord(c) < 0x7F for c in s)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stdout.write("usage: fuzz_trace.py AUTOOPT_TRACE [--seed N] [--runs N]\n")
        return 0 if len(argv) >= 2 else 2
    tool = load_tool(argv[1])
    seed, runs = 1, 3000
    args = argv[2:]
    while args:
        a = args.pop(0)
        if a in ("--seed", "--runs") and args and args[0].isdigit():
            v = int(args.pop(0))
            if a == "--seed":
                seed = v
            else:
                runs = v
        else:
            sys.stderr.write("fuzz-trace: bad argument %r (see --help)\n" % a)
            return 2
    rng = random.Random(seed)
    seeds = [trace(0), trace(1)]
    damaged = 0
    tmp = tempfile.mkdtemp(prefix="fuzz-trace.")
    out_json = os.path.join(tmp, "out.json")
    for r in range(-len(seeds), runs):
        data = seeds[r + len(seeds)] if r < 0 else mutate(rng, rng.choice(seeds))
        path = "rank-%05d.aottrace" % (r % 2)
        t = tool.Trace(path)
        try:
            try:
                tool.parse(t, data)
            except tool.Damage as d:
                t.damage = d
                damaged += 1
                msg = str(d)
                if not printable(msg) or path not in msg:
                    raise AssertionError("damage message not one printable line naming the "
                                         "file: %r" % msg)
                off = getattr(d, "offset", None)
                if off is not None and not (0 <= off <= len(data)):
                    raise AssertionError("damage offset %d outside the %d-byte file"
                                         % (off, len(data)))
            if r < 0 and t.damage:
                raise AssertionError("the unmutated trace is reported damaged: %s" % t.damage)
            tool.summary([t], 5, False, io.StringIO())
            tool.chrome([t], out_json, False)
        except Exception:
            sys.stderr.write("fuzz-trace: FAILED on run %d (seed %d, %d bytes):\n%s"
                             % (r, seed, len(data), traceback.format_exc()))
            return 1
    os.remove(out_json) if os.path.exists(out_json) else None
    os.rmdir(tmp)
    print("fuzz-trace: 2 traces and %d mutated copies (seed %d): %d reported damaged, "
          "none failed" % (runs, seed, damaged))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
