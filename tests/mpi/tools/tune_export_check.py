#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tools.tune.export: checks what "autoopt-tune export" wrote against the tuning file it read.

usage: tune_export_check.py TUNING BASE.json OUT.json OUT.conf

BASE.json is MPICH's own tree (the export of a file without rules).  At every point of a grid
(collective, communicator size 1..10, message sizes around every rule boundary, commutative
or not, built-in operation or not, in place or not) this script walks OUT.json the way
MPICH 4.0.2's MPIR_Csel_search does and OUT.conf the way Open MPI 4.1's coll/tuned looks
rules up, and compares with what the tuning file says there: the library's version of the
rule's algorithm where the library has one and the algorithm's conditions hold (the table in
docs/tuning.md, restated here independently of export.c), else MPICH's own decision from
BASE.json, or Open MPI's fixed decision (algorithm 0).  Prints one line per mismatch and
exits 1 if there is any.
"""
import json
import sys

INF = 2**64 - 1
# autoopt algorithm -> (MPICH algorithm, its conditions), (Open MPI number, its conditions)
MPICH = {
    ("allreduce", "recursive_doubling"): ("MPIR_Allreduce_intra_recursive_doubling", ""),
    ("allreduce", "rabenseifner"): ("MPIR_Allreduce_intra_reduce_scatter_allgather", "builtin,countpof2"),
    ("bcast", "binomial"): ("MPIR_Bcast_intra_binomial", ""),
    ("bcast", "scatter_allgather"): ("MPIR_Bcast_intra_scatter_ring_allgather", ""),
    ("reduce", "binomial"): ("MPIR_Reduce_intra_binomial", ""),
    ("reduce", "rabenseifner"): ("MPIR_Reduce_intra_reduce_scatter_gather", "builtin,countpof2"),
    ("allgather", "bruck"): ("MPIR_Allgather_intra_brucks", ""),
    ("allgather", "recursive_doubling"): ("MPIR_Allgather_intra_recursive_doubling", "pof2"),
    ("allgather", "ring"): ("MPIR_Allgather_intra_ring", ""),
    ("allgatherv", "recursive_doubling"): ("MPIR_Allgatherv_intra_recursive_doubling", "pof2"),
    ("allgatherv", "ring"): ("MPIR_Allgatherv_intra_ring", ""),
    ("alltoall", "simple"): ("MPIR_Alltoall_intra_scattered", "notinplace"),
    ("alltoall", "bruck"): ("MPIR_Alltoall_intra_brucks", "notinplace"),
    ("alltoall", "pair"): ("MPIR_Alltoall_intra_pairwise", "pof2,notinplace"),
    ("alltoall", "ring"): ("MPIR_Alltoall_intra_pairwise", "notpof2,notinplace"),
    ("alltoallv", "simple"): ("MPIR_Alltoallv_intra_scattered", "notinplace"),
    ("barrier", "dissemination"): ("MPIR_Barrier_intra_dissemination", ""),
}
OMPI = {
    ("allreduce", "recursive_doubling"): 3, ("allreduce", "reduce_bcast"): 2,
    ("bcast", "linear"): 1, ("bcast", "binomial"): 6, ("bcast", "binary"): 5,
    ("bcast", "split_binary"): 4, ("bcast", "chain"): 3, ("bcast", "scatter_allgather"): 9,
    ("reduce", "linear"): 1, ("reduce", "binary"): 6,
    ("allgather", "bruck"): 2, ("allgather", "recursive_doubling"): 3, ("allgather", "ring"): 4,
    ("allgatherv", "ring"): 3,
    ("alltoall", "simple"): 1, ("alltoall", "bruck"): 3, ("alltoall", "ring"): 2,
    ("alltoallv", "simple"): 1, ("alltoallv", "ring"): 2,
    ("barrier", "linear"): 1, ("barrier", "dissemination"): 4, ("barrier", "recursive_doubling"): 3,
}
OMPI_POF2 = {("allgather", "recursive_doubling")}
OMPI_IDS = {"allgather": 0, "allgatherv": 1, "allreduce": 2, "alltoall": 3, "alltoallv": 4,
            "barrier": 6, "bcast": 7, "reduce": 11}
COLLS = ["allreduce", "bcast", "reduce", "allgather", "allgatherv", "alltoall", "alltoallv",
         "barrier"]


def num(s):
    if s == "inf":
        return None
    mult = {"K": 1024, "M": 1024**2, "G": 1024**3}
    s = s.rstrip("B").rstrip("i")
    return int(s[:-1]) * mult[s[-1].upper()] if s[-1].upper() in mult else int(s)


def read_tuning(path):
    rules, coll, ranks = [], None, None
    for line in open(path):
        w = line.split("#")[0].split()
        if not w or w[0] == "autoopt-tuning":
            continue
        if w[0] == "collective":
            coll = w[1]
        elif w[0] == "ranks":
            lo, hi = w[1].split("-")
            ranks = (num(lo), num(hi) or 2**31 - 1)
        elif w[0] == "bytes":
            lo, hi = w[1].split("-")
            alg, _, param = w[2].partition(":")
            rules.append((coll, ranks, (num(lo), INF if num(hi) is None else num(hi)), alg,
                          num(param.split("=")[1]) if param else 0))
    return rules


def rule_at(rules, coll, p, b):
    for r in rules:
        if r[0] == coll and r[1][0] <= p <= r[1][1] and r[2][0] <= b <= r[2][1]:
            return r
    return None


def pof2_below(p):
    q = 1
    while q * 2 <= p:
        q *= 2
    return q


def mpich_walk(node, sig, path="(top)"):
    """MPIR_Csel_search: a failed test moves to the next sibling; an algorithm leaf ends it."""
    for key, kid in node.items():
        if key.startswith("algorithm="):
            return key[len("algorithm="):]
        name, op, val = split_key(key)
        if name is None:
            raise ValueError(f"{path}: key '{key}' is not one MPICH 4.0.2 knows")
        if test(name, op, val, sig):
            return mpich_walk(kid, sig, key)
    return None


def split_key(key):
    for op in ("<=", "<", "="):
        if op in key:
            name, val = key.split(op, 1)
            return name, op, val
    return None, None, None


def test(name, op, val, sig):
    known = {"collective", "comm_type", "comm_size", "avg_msg_size", "total_msg_size", "count",
             "is_commutative", "is_op_built_in", "is_sendbuf_inplace", "comm_hierarchy",
             "is_node_consecutive", "is_block_regular", "is_multi_threaded"}
    if name not in known:
        raise ValueError(f"unknown key {name}")
    if val == "any":
        return True
    if name == "collective":
        return val == sig["coll"]
    if name == "comm_type":
        return val == "intra"
    if name in ("comm_hierarchy", "is_node_consecutive", "is_multi_threaded"):
        return val in ("no",)          # a flat communicator, one thread
    if name in ("is_commutative", "is_op_built_in", "is_sendbuf_inplace", "is_block_regular"):
        return (val == "yes") == sig[name]
    x = sig[name]
    if val == "pow2":
        limit = pof2_below(sig["comm_size"]) if name == "count" else None
        return x < limit if name == "count" else (x & (x - 1)) == 0
    if val == "node_comm_size":
        return False
    v = int(val)
    if name == "comm_size":
        return x <= v                  # MPICH 4.0.2 evaluates "comm_size<N" as <= too
    return x <= v if op == "<=" else x < v


def mpich_expect(base, rules, sig):
    r = rule_at(rules, sig["coll"], sig["comm_size"], sig["bytes"])
    m = MPICH.get((r[0], r[3])) if r else None
    scaled = sig["coll"] in ("allgather", "allgatherv")
    if m and not (scaled and r[1][0] != r[1][1]):
        p, ok = sig["comm_size"], True
        for cond in filter(None, m[1].split(",")):
            ok &= {"pof2": (p & (p - 1)) == 0, "notpof2": (p & (p - 1)) != 0,
                   "builtin": sig["is_op_built_in"],
                   "countpof2": sig["count"] >= pof2_below(p),
                   "notinplace": not sig["is_sendbuf_inplace"]}[cond]
        if ok:
            return m[0]
    return mpich_walk(base, sig)


def ompi_rules(path):
    toks = [int(t) for t in open(path).read().split()]
    pos = 0

    def take():
        nonlocal pos
        pos += 1
        return toks[pos - 1]
    table = {}
    for _ in range(take()):
        cid, sizes = take(), []
        for _ in range(take()):
            cs, n = take(), take()
            msgs = [(take(), take(), take(), take()) for _ in range(n)]
            if msgs[0][0] != 0:
                raise ValueError(f"collective {cid} size {cs}: first rule not at message size 0")
            if [m[0] for m in msgs] != sorted({m[0] for m in msgs}):
                raise ValueError(f"collective {cid} size {cs}: message sizes out of order")
            sizes.append((cs, msgs))
        table[cid] = sizes
    if pos != len(toks):
        raise ValueError("text after the last collective")
    return table


def ompi_lookup(table, coll, p, m):
    best = None
    for cs, msgs in table.get(OMPI_IDS[coll], []):
        if cs <= p:
            best = msgs
    if best is None:
        return (0, 0)
    alg = (0, 0)
    for ms, a, fan, seg in best:
        if ms <= m:
            alg = (a, seg)
    return alg


def ompi_expect(rules, coll, p, b):
    r = rule_at(rules, coll, p, b)
    if not r or (r[0], r[3]) not in OMPI:
        return (0, 0)
    if coll in ("allgather", "allgatherv", "alltoall") and r[1][0] != r[1][1]:
        return (0, 0)
    if (r[0], r[3]) in OMPI_POF2 and any(q & (q - 1) for q in range(r[1][0], r[1][1] + 1)):
        return (0, 0)
    return (OMPI[(r[0], r[3])], r[4] if (r[0], r[3]) == ("bcast", "chain") else 0)


def main():
    tuning, base_json, out_json, out_conf = sys.argv[1:5]
    rules = read_tuning(tuning)
    base, out = json.load(open(base_json)), json.load(open(out_json))
    table = ompi_rules(out_conf)
    sizes = {0, 1, 4, 1 << 20, 1 << 30}
    for r in rules:
        for b in (r[2][0], r[2][1]):
            if b != INF:
                sizes |= {max(0, b - 1), b, b + 1}
    bad = points = 0
    for coll in COLLS:
        for p in range(1, 11):
            for b in sorted(sizes):
                for comm in (True, False):
                    for builtin in (True, False):
                        for inplace in (False, True):
                            sig = {"coll": coll, "comm_size": p, "bytes": b, "count": b // 4,
                                   "avg_msg_size": b, "total_msg_size": b * p,
                                   "is_commutative": comm, "is_op_built_in": builtin,
                                   "is_sendbuf_inplace": inplace, "is_block_regular": True}
                            if coll in ("alltoallv", "barrier"):
                                sig["bytes"] = 0
                            want, got = mpich_expect(base, rules, sig), mpich_walk(out, sig)
                            points += 1
                            if want != got or got is None:
                                bad += 1
                                print(f"mpich {coll} p={p} bytes={b} commutative={comm} "
                                      f"builtin={builtin} inplace={inplace}: {got}, expected {want}")
                m = 0 if coll in ("alltoallv", "barrier") else \
                    b * p if coll in ("allgather", "allgatherv", "alltoall") else b
                want = ompi_expect(rules, coll, p, 0 if m == 0 else b)
                got = ompi_lookup(table, coll, p, m)
                points += 1
                if want != got:
                    bad += 1
                    print(f"ompi {coll} p={p} bytes={b}: {got}, expected {want}")
    print(f"{points} points checked, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
