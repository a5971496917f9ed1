/*
 * bcast_csm.c: Imamura's broadcast compositions of Copy, Split and Merge steps -- the engine
 * behind imamura_binomial, imamura_vandegeijn and imamura_hybrid1.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The ranks (numbered relative to the root) are halved level by level: a group [lo, hi) has
 * the leader lo and splits into A = [lo, mid) and B = [mid, hi), mid = lo + ceil((hi-lo)/2).
 * At each level the leader of the group passes data to the leader of B:
 *   C (copy)  the whole piece the group holds,
 *   S (split) the upper half of it; from then on A works on the lower half, B on the upper.
 * After the last level, every split is undone in reverse order by a merge:
 *   M (merge) rank i of A and rank i of B swap their halves; when A has one rank more, its
 *             last rank receives B's half from B's last rank.
 * A string such as C C C (binomial), S S S M M M (van de Geijn: scatter by recursive halving,
 * allgather by recursive doubling) or S C C M (a hybrid) describes the broadcast; ops[] gives
 * the C/S choice per level (levels past nops copy) and the merges follow implicitly.
 * Works for any p: levels stop when groups reach one rank, halves are cut on element
 * boundaries (possibly empty).
 */
#include <mpi.h>

#include "coll_engines.h"
#include "coll_util.h"

int aot_bcast_csm(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                  const char *ops, int nops)
{
    struct { int lo, mid, hi, plo, pm, phi; } split[32];
    MPI_Aint lb, ext;
    int p, rank, v, lo = 0, hi, plo = 0, phi = count, nsplit = 0, rc = MPI_SUCCESS;

    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    PMPI_Type_get_extent(dt, &lb, &ext);
    v = (rank - root + p) % p;
    hi = p;
#define AOT_REAL(x) (((x) + root) % p)
#define AOT_RANGE(a, b) AOT_AT(buf, a, ext), (b) - (a), dt

    for (int level = 0; hi - lo > 1 && rc == MPI_SUCCESS; level++) {
        int mid = lo + (hi - lo + 1) / 2;
        char op = level < nops ? ops[level] : 'C';
        if (op == 'S') {
            int pm = plo + (phi - plo + 1) / 2;
            if (v == lo)
                rc = PMPI_Send(AOT_RANGE(pm, phi), AOT_REAL(mid), AOT_TAG_BCAST, comm);
            else if (v == mid)
                rc = PMPI_Recv(AOT_RANGE(pm, phi), AOT_REAL(lo), AOT_TAG_BCAST, comm,
                               MPI_STATUS_IGNORE);
            split[nsplit].lo = lo;
            split[nsplit].mid = mid;
            split[nsplit].hi = hi;
            split[nsplit].plo = plo;
            split[nsplit].pm = pm;
            split[nsplit].phi = phi;
            nsplit++;
            if (v < mid)
                phi = pm;
            else
                plo = pm;
        } else {
            if (v == lo)
                rc = PMPI_Send(AOT_RANGE(plo, phi), AOT_REAL(mid), AOT_TAG_BCAST, comm);
            else if (v == mid)
                rc = PMPI_Recv(AOT_RANGE(plo, phi), AOT_REAL(lo), AOT_TAG_BCAST, comm,
                               MPI_STATUS_IGNORE);
        }
        if (v < mid)
            hi = mid;
        else
            lo = mid;
    }

    while (nsplit > 0 && rc == MPI_SUCCESS) {
        int s = --nsplit;
        int glo = split[s].lo, mid = split[s].mid, ghi = split[s].hi;
        int na = mid - glo, nb = ghi - mid;
        int a0 = split[s].plo, a1 = split[s].pm, b1 = split[s].phi;
        if (v < mid) {
            int i = v - glo;
            if (i < nb)
                rc = PMPI_Sendrecv(AOT_RANGE(a0, a1), AOT_REAL(mid + i), AOT_TAG_PHASE2,
                                   AOT_RANGE(a1, b1), AOT_REAL(mid + i), AOT_TAG_PHASE2, comm,
                                   MPI_STATUS_IGNORE);
            else
                rc = PMPI_Recv(AOT_RANGE(a1, b1), AOT_REAL(ghi - 1), AOT_TAG_PHASE2, comm,
                               MPI_STATUS_IGNORE);
        } else {
            int i = v - mid;
            rc = PMPI_Sendrecv(AOT_RANGE(a1, b1), AOT_REAL(glo + i), AOT_TAG_PHASE2,
                               AOT_RANGE(a0, a1), AOT_REAL(glo + i), AOT_TAG_PHASE2, comm,
                               MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS && na > nb && i == nb - 1)
                rc = PMPI_Send(AOT_RANGE(a1, b1), AOT_REAL(glo + nb), AOT_TAG_PHASE2, comm);
        }
    }
#undef AOT_REAL
#undef AOT_RANGE
    return rc;
}
