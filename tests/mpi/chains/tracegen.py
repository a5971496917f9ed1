# tracegen.py: a complete two-rank trace, written byte by byte after docs/trace-format.md: two
# chains (3 and 2 members) confirmed after 3 learning iterations and run 7 times, and an
# MPI_Allreduce passed through.  Used by tool_check.py and tests/fuzz/fuzz_trace.py.
# SPDX-License-Identifier: GPL-2.0-or-later
import struct

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
