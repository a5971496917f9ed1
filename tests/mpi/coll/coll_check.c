/*
 * coll_check.c: one collective, every communicator size up to the job size, every case --
 * results of MPI_<Collective> (routed through autoopt's algorithm when run under autoopt with
 * AUTOOPT_<COLL>=<alg>) against PMPI_<Collective> (MPI's own, never intercepted) in the same run.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * usage: coll_check <allreduce|bcast|reduce|allgather|allgatherv|alltoall|alltoallv|barrier>
 *                   [sizes]
 *
 * Communicators: MPI_COMM_WORLD and, for every size s below the job size, a communicator of
 * the first s ranks in reverse order (so communicator ranks differ from world ranks).  `sizes`
 * (e.g. "1,3,8") limits the communicator sizes; the default is every size up to the job size.
 * COLL_CHECK_TIMES=1 prints the time spent per size.
 * Cases, as they apply: counts 0, 1, s-1, s+1 and a large count that divides by nothing
 * (10007 elements for the rooted and reduction collectives, 1237 per block otherwise);
 * MPI_INT, MPI_DOUBLE and a derived type with holes (two ints, stride 2, extent 4 ints);
 * MPI_SUM, MPI_MAX and a user-defined non-commutative operation (composition of permutations
 * of 8 elements, coded in an int); roots 0, s/2 and s-1; in place and not; varying counts
 * and displacements for the v-variants.  The derived type goes with the user operation only:
 * MPICH defines MPI_SUM and MPI_MAX on predefined types only.  The collectives whose datatype
 * may differ between ranks (bcast, allgather(v), alltoall(v)) also run with mixed datatypes of
 * one type signature (see "mixed datatypes" below).
 *
 * Integers and data movement must be identical, holes included (both buffers start with the
 * same fill pattern).  Sums of doubles may differ by the order of operations: the tolerance is
 * 1e-12 relative (the values are positive, so the rounding error of any order stays below
 * p * 2^-52 of the result).  Under AUTOOPT_REPRODUCIBLE=1 every double sum is also repeated
 * three times with one rank delayed by a different amount each time, and the three results
 * must be bitwise identical.
 * Barrier: one rank arrives 5 ms late; nobody may leave before it arrived (CLOCK_MONOTONIC is
 * system-wide, and every rank of a test runs on this machine).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "aot_test.h"

enum { T_INT, T_DOUBLE, T_DERIVED, NTYPES };
enum { O_SUM, O_MAX, O_PERM, NOPS };
static const char *const type_names[NTYPES] = {"int", "double", "derived"};
static const char *const op_names[NOPS] = {"sum", "max", "perm"};

static MPI_Datatype types[NTYPES];
static MPI_Op ops[NOPS];
static int reproducible, times;
static uint64_t digest = 1469598103934665603ull;   /* FNV-1a over the double sums */
static const char *coll;

#define FILL 0xA5
#define LARGE_VECTOR 10007
#define LARGE_BLOCK 1237

/* ---------------------------------------------------------------- values */

static MPI_Aint extent_of(int t)
{
    return t == T_INT ? (MPI_Aint) sizeof(int) : t == T_DOUBLE ? (MPI_Aint) sizeof(double) : 16;
}

static int slots_of(int t) { return t == T_DERIVED ? 2 : 1; }

/* Address of slot s of element i. */
static void *slot(void *buf, int t, long i, int s)
{
    return (char *) buf + i * extent_of(t) + s * 8;
}

/* A permutation of 0..7, three bits per entry, from a seed. */
static int perm_code(unsigned seed)
{
    int a[8], code = 0;
    for (int i = 0; i < 8; i++)
        a[i] = i;
    for (int i = 7; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int) ((seed >> 16) % (unsigned) (i + 1));
        int x = a[i];
        a[i] = a[j];
        a[j] = x;
    }
    for (int i = 0; i < 8; i++)
        code |= a[i] << (3 * i);
    return code;
}

/* (a o b)(x) = a(b(x)) */
static int perm_compose(int a, int b)
{
    int c = 0;
    for (int x = 0; x < 8; x++) {
        int bx = (b >> (3 * x)) & 7;
        c |= ((a >> (3 * bx)) & 7) << (3 * x);
    }
    return c;
}

static void perm_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int t = *dt == MPI_INT ? T_INT : T_DERIVED;
    for (int i = 0; i < *len; i++)
        for (int s = 0; s < slots_of(t); s++) {
            int *x = slot(inout, t, i, s);
            *x = perm_compose(*(int *) slot(in, t, i, s), *x);
        }
}

/* Value of element i, slot s, contributed by rank r (op decides the kind of int). */
static void set_value(void *buf, int t, int op, int r, long i, int s)
{
    if (t == T_DOUBLE) {
        *(double *) slot(buf, t, i, s) = 1.0 / (double) (1 + (r * 131 + i * 17) % 97)
                                         + (double) (r % 3) * 1000.0;
    } else if (op == O_PERM) {
        *(int *) slot(buf, t, i, s) = perm_code((unsigned) (r * 1000003 + i * 7 + s));
    } else {
        *(int *) slot(buf, t, i, s) = (int) ((r + 1) * 7919 + i * 31 + s * 13) % 2001 - 1000;
    }
}

/* Fills n elements with rank r's values (the holes keep the fill pattern). */
static void fill(void *buf, int t, int op, int r, long first, long n)
{
    for (long i = first; i < first + n; i++)
        for (int s = 0; s < slots_of(t); s++)
            set_value(buf, t, op, r, i, s);
}

static void *alloc(long nelem, int t)
{
    size_t bytes = (size_t) (nelem > 0 ? nelem : 1) * (size_t) extent_of(t) + 64;
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(p, FILL, bytes);
    return p;
}

/* ---------------------------------------------------------------- comparison */

struct ctx {
    MPI_Comm comm;
    int size, rank;
    char what[200];
};

static void compare(struct ctx *c, const void *got, const void *want, long nelem, int t,
                    int tolerant)
{
    size_t bytes = (size_t) (nelem > 0 ? nelem : 0) * (size_t) extent_of(t) + 64;
    if (!tolerant || t != T_DOUBLE) {
        if (memcmp(got, want, bytes) != 0) {
            size_t k = 0;
            while (((const unsigned char *) got)[k] == ((const unsigned char *) want)[k])
                k++;
            CHECK(0, "%s: rank %d: byte %zu differs (element %ld): got 0x%02x, expected 0x%02x",
                  c->what, c->rank, k, (long) (k / (size_t) extent_of(t)),
                  ((const unsigned char *) got)[k], ((const unsigned char *) want)[k]);
        }
        return;
    }
    for (long i = 0; i < nelem; i++) {
        double g = ((const double *) got)[i], w = ((const double *) want)[i];
        if (!(fabs(g - w) <= 1e-12 * fabs(w))) {
            CHECK(0, "%s: rank %d: element %ld: got %.17g, expected %.17g", c->what, c->rank, i,
                  g, w);
            return;
        }
    }
    if (memcmp((const char *) got + nelem * 8, (const char *) want + nelem * 8, 64) != 0)
        CHECK(0, "%s: rank %d: written past the end", c->what, c->rank);
}

static int count_list(int s, long large, long *out)
{
    long cand[5] = {0, 1, s - 1, s + 1, large};
    int n = 0;
    for (int i = 0; i < 5; i++) {
        int dup = 0;
        for (int j = 0; j < n; j++)
            dup |= out[j] == cand[i];
        if (!dup)
            out[n++] = cand[i];
    }
    return n;
}

static int root_list(int s, int *out)
{
    int cand[3] = {0, s / 2, s - 1}, n = 0;
    for (int i = 0; i < 3; i++) {
        int dup = 0;
        for (int j = 0; j < n; j++)
            dup |= out[j] == cand[i];
        if (!dup)
            out[n++] = cand[i];
    }
    return n;
}

static void digest_add(const void *buf, size_t bytes)
{
    int wrank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wrank != 0)
        return;
    for (size_t i = 0; i < bytes; i++)
        digest = (digest ^ ((const unsigned char *) buf)[i]) * 1099511628211ull;
}

/* A rank waits a little, differently per repetition, so arrival orders change. */
static void skew(struct ctx *c, int rep)
{
    if (c->rank == rep % c->size)
        usleep(200 * (useconds_t) (rep + 1));
}

/* ---------------------------------------------------------------- reductions */

static int op_applies(int t, int op)
{
    if (t == T_DERIVED)
        return op == O_PERM;
    if (t == T_DOUBLE)
        return op != O_PERM;
    return 1;
}

static void check_allreduce(struct ctx *c)
{
    long counts[5];
    int nc = count_list(c->size, LARGE_VECTOR, counts);
    for (int ci = 0; ci < nc; ci++)
        for (int t = 0; t < NTYPES; t++)
            for (int op = 0; op < NOPS; op++) {
                long n = counts[ci];
                if (!op_applies(t, op))
                    continue;
                void *in = alloc(n, t), *ref = alloc(n, t), *out = alloc(n, t);
                fill(in, t, op, c->rank, 0, n);
                PMPI_Allreduce(in, ref, (int) n, types[t], ops[op], c->comm);
                for (int inplace = 0; inplace < 2; inplace++) {
                    snprintf(c->what, sizeof(c->what), "allreduce size %d count %ld %s %s%s",
                             c->size, n, type_names[t], op_names[op], inplace ? " in place" : "");
                    memset(out, FILL, (size_t) n * (size_t) extent_of(t) + 64);
                    if (inplace) {
                        fill(out, t, op, c->rank, 0, n);
                        MPI_Allreduce(MPI_IN_PLACE, out, (int) n, types[t], ops[op], c->comm);
                    } else {
                        MPI_Allreduce(in, out, (int) n, types[t], ops[op], c->comm);
                    }
                    compare(c, out, ref, n, t, op == O_SUM);
                    if (t == T_DOUBLE && op == O_SUM)
                        digest_add(out, (size_t) n * sizeof(double));
                }
                if (reproducible && t == T_DOUBLE && op == O_SUM) {
                    void *again = alloc(n, t);
                    snprintf(c->what, sizeof(c->what), "allreduce size %d count %ld double sum "
                             "repeated (AUTOOPT_REPRODUCIBLE=1)", c->size, n);
                    for (int rep = 0; rep < 3; rep++) {
                        skew(c, rep);
                        MPI_Allreduce(in, again, (int) n, types[t], ops[op], c->comm);
                        compare(c, again, out, n, t, 0);
                    }
                    free(again);
                }
                free(in);
                free(ref);
                free(out);
            }
}

static void check_reduce(struct ctx *c)
{
    long counts[5];
    int roots[3];
    int nc = count_list(c->size, LARGE_VECTOR, counts), nr = root_list(c->size, roots);
    for (int ci = 0; ci < nc; ci++)
        for (int t = 0; t < NTYPES; t++)
            for (int op = 0; op < NOPS; op++)
                for (int ri = 0; ri < nr; ri++) {
                    long n = counts[ci];
                    int root = roots[ri], me = c->rank == root;
                    if (!op_applies(t, op))
                        continue;
                    void *in = alloc(n, t), *ref = alloc(n, t), *out = alloc(n, t);
                    fill(in, t, op, c->rank, 0, n);
                    PMPI_Reduce(in, ref, (int) n, types[t], ops[op], root, c->comm);
                    for (int inplace = 0; inplace < 2; inplace++) {
                        snprintf(c->what, sizeof(c->what),
                                 "reduce size %d root %d count %ld %s %s%s", c->size, root, n,
                                 type_names[t], op_names[op], inplace ? " in place" : "");
                        memset(out, FILL, (size_t) n * (size_t) extent_of(t) + 64);
                        if (inplace && me) {
                            fill(out, t, op, c->rank, 0, n);
                            MPI_Reduce(MPI_IN_PLACE, out, (int) n, types[t], ops[op], root,
                                       c->comm);
                        } else {
                            MPI_Reduce(in, out, (int) n, types[t], ops[op], root, c->comm);
                        }
                        if (me)
                            compare(c, out, ref, n, t, op == O_SUM);
                        if (me && t == T_DOUBLE && op == O_SUM)
                            digest_add(out, (size_t) n * sizeof(double));
                    }
                    if (reproducible && t == T_DOUBLE && op == O_SUM) {
                        void *again = alloc(n, t);
                        snprintf(c->what, sizeof(c->what), "reduce size %d root %d count %ld "
                                 "double sum repeated (AUTOOPT_REPRODUCIBLE=1)", c->size, root, n);
                        for (int rep = 0; rep < 3; rep++) {
                            skew(c, rep);
                            MPI_Reduce(in, again, (int) n, types[t], ops[op], root, c->comm);
                            if (me)
                                compare(c, again, out, n, t, 0);
                        }
                        free(again);
                    }
                    free(in);
                    free(ref);
                    free(out);
                }
}

/* ---------------------------------------------------------------- data movement */

static void check_bcast(struct ctx *c)
{
    long counts[5];
    int roots[3];
    int nc = count_list(c->size, LARGE_VECTOR, counts), nr = root_list(c->size, roots);
    for (int ci = 0; ci < nc; ci++)
        for (int t = 0; t < NTYPES; t++)
            for (int ri = 0; ri < nr; ri++) {
                long n = counts[ci];
                int root = roots[ri];
                void *ref = alloc(n, t), *out = alloc(n, t);
                snprintf(c->what, sizeof(c->what), "bcast size %d root %d count %ld %s", c->size,
                         root, n, type_names[t]);
                if (c->rank == root) {
                    fill(ref, t, O_SUM, root, 0, n);
                    fill(out, t, O_SUM, root, 0, n);
                }
                PMPI_Bcast(ref, (int) n, types[t], root, c->comm);
                MPI_Bcast(out, (int) n, types[t], root, c->comm);
                compare(c, out, ref, n, t, 0);
                free(ref);
                free(out);
            }
}

static void check_allgather(struct ctx *c)
{
    long counts[5];
    int nc = count_list(c->size, LARGE_BLOCK, counts), p = c->size;
    for (int ci = 0; ci < nc; ci++)
        for (int t = 0; t < NTYPES; t++) {
            long n = counts[ci];
            void *in = alloc(n, t), *ref = alloc(n * p, t), *out = alloc(n * p, t);
            fill(in, t, O_SUM, c->rank, 0, n);
            PMPI_Allgather(in, (int) n, types[t], ref, (int) n, types[t], c->comm);
            for (int inplace = 0; inplace < 2; inplace++) {
                snprintf(c->what, sizeof(c->what), "allgather size %d count %ld %s%s", c->size,
                         n, type_names[t], inplace ? " in place" : "");
                memset(out, FILL, (size_t) (n * p) * (size_t) extent_of(t) + 64);
                if (inplace) {
                    /* own block in place: rank r's values at elements [r*n, r*n+n) */
                    void *own = (char *) out + c->rank * n * extent_of(t);
                    fill(own, t, O_SUM, c->rank, 0, n);
                    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, (int) n, types[t],
                                  c->comm);
                } else {
                    MPI_Allgather(in, (int) n, types[t], out, (int) n, types[t], c->comm);
                }
                compare(c, out, ref, n * p, t, 0);
            }
            free(in);
            free(ref);
            free(out);
        }
}

static void check_alltoall(struct ctx *c)
{
    long counts[5];
    int nc = count_list(c->size, LARGE_BLOCK, counts), p = c->size;
    for (int ci = 0; ci < nc; ci++)
        for (int t = 0; t < NTYPES; t++) {
            long n = counts[ci];
            void *in = alloc(n * p, t), *ref = alloc(n * p, t), *out = alloc(n * p, t);
            fill(in, t, O_SUM, c->rank, 0, n * p);
            PMPI_Alltoall(in, (int) n, types[t], ref, (int) n, types[t], c->comm);
            for (int inplace = 0; inplace < 2; inplace++) {
                snprintf(c->what, sizeof(c->what), "alltoall size %d count %ld %s%s", c->size, n,
                         type_names[t], inplace ? " in place" : "");
                memset(out, FILL, (size_t) (n * p) * (size_t) extent_of(t) + 64);
                if (inplace) {
                    fill(out, t, O_SUM, c->rank, 0, n * p);
                    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, (int) n, types[t],
                                 c->comm);
                } else {
                    MPI_Alltoall(in, (int) n, types[t], out, (int) n, types[t], c->comm);
                }
                compare(c, out, ref, n * p, t, 0);
            }
            free(in);
            free(ref);
            free(out);
        }
}

/* Block sizes that vary by rank (zero included) for a nominal count n. */
static int vcount(long n, int from, int to)
{
    return n == 0 ? 0 : (int) ((n * (from + 1) + 3 * to + from) % (n + 2));
}

/* Displacements in reverse rank order with one-element gaps; returns the elements spanned. */
static long vdispls(const int *counts, int *displs, int p)
{
    long cur = 0;
    for (int j = p - 1; j >= 0; j--) {
        cur += 1;
        displs[j] = (int) cur;
        cur += counts[j];
    }
    return cur;
}

static void check_allgatherv(struct ctx *c)
{
    long counts[5];
    int nc = count_list(c->size, LARGE_BLOCK, counts), p = c->size;
    int *rcounts = malloc((size_t) p * sizeof(int)), *displs = malloc((size_t) p * sizeof(int));
    for (int ci = 0; ci < nc; ci++)
        for (int t = 0; t < NTYPES; t++) {
            long n = counts[ci], span;
            for (int j = 0; j < p; j++)
                rcounts[j] = vcount(n, j, 0);
            span = vdispls(rcounts, displs, p);
            int mine = rcounts[c->rank];
            void *in = alloc(mine, t), *ref = alloc(span, t), *out = alloc(span, t);
            fill(in, t, O_SUM, c->rank, 0, mine);
            /* The reference is built locally: MPICH 4.0.2's own allgatherv ignores displs[0]
             * on a one-rank communicator (pmodels/mpich#6374). */
            for (int j = 0; j < p; j++)
                fill((char *) ref + displs[j] * extent_of(t), t, O_SUM, j, 0, rcounts[j]);
            for (int inplace = 0; inplace < 2; inplace++) {
                snprintf(c->what, sizeof(c->what), "allgatherv size %d count %ld %s%s", c->size,
                         n, type_names[t], inplace ? " in place" : "");
                memset(out, FILL, (size_t) span * (size_t) extent_of(t) + 64);
                if (inplace) {
                    void *own = (char *) out + displs[c->rank] * extent_of(t);
                    fill(own, t, O_SUM, c->rank, 0, mine);
                    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, rcounts, displs,
                                   types[t], c->comm);
                } else {
                    MPI_Allgatherv(in, mine, types[t], out, rcounts, displs, types[t], c->comm);
                }
                compare(c, out, ref, span, t, 0);
            }
            free(in);
            free(ref);
            free(out);
        }
    free(rcounts);
    free(displs);
}

static void check_alltoallv(struct ctx *c)
{
    long counts[5];
    int nc = count_list(c->size, LARGE_BLOCK, counts), p = c->size, me = c->rank;
    int *sc = malloc((size_t) p * sizeof(int)), *sd = malloc((size_t) p * sizeof(int));
    int *rc = malloc((size_t) p * sizeof(int)), *rd = malloc((size_t) p * sizeof(int));
    int *ic = malloc((size_t) p * sizeof(int)), *id = malloc((size_t) p * sizeof(int));
    for (int ci = 0; ci < nc; ci++)
        for (int t = 0; t < NTYPES; t++) {
            long n = counts[ci], sspan, rspan, ispan;
            for (int j = 0; j < p; j++) {
                sc[j] = vcount(n, me, j);      /* what I send to j */
                rc[j] = vcount(n, j, me);      /* what j sends to me */
            }
            sspan = vdispls(sc, sd, p);
            rspan = vdispls(rc, rd, p);
            void *in = alloc(sspan, t), *ref = alloc(rspan, t), *out = alloc(rspan, t);
            fill(in, t, O_SUM, me, 0, sspan);
            PMPI_Alltoallv(in, sc, sd, types[t], ref, rc, rd, types[t], c->comm);
            snprintf(c->what, sizeof(c->what), "alltoallv size %d count %ld %s", c->size, n,
                     type_names[t]);
            memset(out, FILL, (size_t) rspan * (size_t) extent_of(t) + 64);
            MPI_Alltoallv(in, sc, sd, types[t], out, rc, rd, types[t], c->comm);
            compare(c, out, ref, rspan, t, 0);
            free(in);
            free(ref);
            free(out);

            /* in place: send and receive counts must be equal, so use symmetric ones */
            for (int j = 0; j < p; j++)
                ic[j] = vcount(n, me < j ? me : j, me < j ? j : me);
            ispan = vdispls(ic, id, p);
            void *iref = alloc(ispan, t), *iout = alloc(ispan, t), *isrc = alloc(ispan, t);
            fill(isrc, t, O_SUM, me, 0, ispan);
            fill(iout, t, O_SUM, me, 0, ispan);
            PMPI_Alltoallv(isrc, ic, id, types[t], iref, ic, id, types[t], c->comm);
            /* the gaps of the in-place buffer keep the values written by fill() */
            for (long i = 0; i < ispan; i++) {
                int in_block = 0;
                for (int j = 0; j < p; j++)
                    in_block |= i >= id[j] && i < id[j] + ic[j];
                if (!in_block)
                    fill(iref, t, O_SUM, me, i, 1);
            }
            snprintf(c->what, sizeof(c->what), "alltoallv size %d count %ld %s in place",
                     c->size, n, type_names[t]);
            MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, iout, ic, id, types[t],
                          c->comm);
            compare(c, iout, iref, ispan, t, 0);
            free(iref);
            free(iout);
            free(isrc);
        }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(ic);
    free(id);
}

/* ---------------------------------------------------------------- mixed datatypes
 * MPI lets the ranks of one call pass different datatypes as long as the type signatures
 * match.  Here every rank describes the same triples of ints with its own datatype, chosen by
 * its rank: 3n MPI_INT, n contiguous types of 3 ints, or n vectors of 3 ints with stride 2
 * (extent 5 ints: holes, which must keep the fill pattern).  A triple is 12 bytes, so no
 * power-of-two segment or piece size falls on a triple boundary of every rank.  The expected
 * buffers are built locally (a serial reference).  Only the collectives whose datatype may
 * differ between ranks: MPI_Allreduce and MPI_Reduce take the same datatype everywhere. */
enum { X_INT, X_CONTIG, X_VECTOR, NMIXED };
static const char *const mixed_names[NMIXED] = {"int", "contig3", "vector3"};
static MPI_Datatype mixed[NMIXED];

static int mx_count(int kind, long triples) { return (int) (kind == X_INT ? 3 * triples : triples); }
static long mx_ints(int kind, long triples) { return kind == X_VECTOR ? 5 * triples : 3 * triples; }

/* Offset in ints of int k of triple i. */
static long mx_at(int kind, long i, int k) { return kind == X_VECTOR ? 5 * i + 2 * k : 3 * i + k; }

static int *mx_alloc(int kind, long triples)
{
    size_t bytes = (size_t) (mx_ints(kind, triples) + 16) * sizeof(int);
    int *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(p, FILL, bytes);
    return p;
}

/* Triples [first, first + n) of buf get rank r's values number base .. base + n - 1. */
static void mx_fill(int *buf, int kind, long first, long n, int r, long base)
{
    for (long i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            buf[mx_at(kind, first + i, k)] = (r + 1) * 1000003 + (int) ((base + i) * 3) + k;
}

static void mx_compare(struct ctx *c, const int *got, const int *want, int kind, long triples)
{
    long ints = mx_ints(kind, triples) + 16;
    for (long i = 0; i < ints; i++)
        if (got[i] != want[i]) {
            CHECK(0, "%s: rank %d (%s): int %ld of the buffer: got %d, expected %d", c->what,
                  c->rank, mixed_names[kind], i, got[i], want[i]);
            return;
        }
}

static void mixed_bcast(struct ctx *c)
{
    long counts[3] = {1, c->size + 1, 1367};   /* 1367 triples: 16,404 bytes */
    int roots[3], nr = root_list(c->size, roots), kind = c->rank % NMIXED;
    for (int ci = 0; ci < 3; ci++)
        for (int ri = 0; ri < nr; ri++) {
            long n = counts[ci];
            int root = roots[ri];
            int *out = mx_alloc(kind, n), *want = mx_alloc(kind, n);
            mx_fill(want, kind, 0, n, root, 0);
            if (c->rank == root)
                mx_fill(out, kind, 0, n, root, 0);
            snprintf(c->what, sizeof(c->what), "bcast size %d root %d, %ld triples, mixed types",
                     c->size, root, n);
            MPI_Bcast(out, mx_count(kind, n), mixed[kind], root, c->comm);
            mx_compare(c, out, want, kind, n);
            free(out);
            free(want);
        }
}

static void mixed_allgather(struct ctx *c)
{
    long counts[3] = {1, c->size + 1, 457};
    int p = c->size, sk = c->rank % NMIXED, rk = (c->rank + 1) % NMIXED;
    for (int ci = 0; ci < 3; ci++)
        for (int inplace = 0; inplace < 2; inplace++) {
            long n = counts[ci];
            int *in = mx_alloc(sk, n), *out = mx_alloc(rk, n * p), *want = mx_alloc(rk, n * p);
            mx_fill(in, sk, 0, n, c->rank, 0);
            for (int j = 0; j < p; j++)
                mx_fill(want, rk, j * n, n, j, 0);
            snprintf(c->what, sizeof(c->what), "allgather size %d, %ld triples, mixed types%s",
                     c->size, n, inplace ? ", in place" : "");
            if (inplace) {
                mx_fill(out, rk, c->rank * n, n, c->rank, 0);
                MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, mx_count(rk, n),
                              mixed[rk], c->comm);
            } else {
                MPI_Allgather(in, mx_count(sk, n), mixed[sk], out, mx_count(rk, n), mixed[rk],
                              c->comm);
            }
            mx_compare(c, out, want, rk, n * p);
            free(in);
            free(out);
            free(want);
        }
}

static void mixed_allgatherv(struct ctx *c)
{
    long counts[3] = {1, c->size + 1, 457};
    int p = c->size, sk = c->rank % NMIXED, rk = (c->rank + 1) % NMIXED;
    int *tr = malloc((size_t) p * sizeof(int)), *td = malloc((size_t) p * sizeof(int));
    int *rcounts = malloc((size_t) p * sizeof(int)), *displs = malloc((size_t) p * sizeof(int));
    for (int ci = 0; ci < 3; ci++)
        for (int inplace = 0; inplace < 2; inplace++) {
            long n = counts[ci], span;
            for (int j = 0; j < p; j++)
                tr[j] = vcount(n, j, 0);          /* in triples */
            span = vdispls(tr, td, p);
            for (int j = 0; j < p; j++) {       /* in elements of the receive type */
                rcounts[j] = mx_count(rk, tr[j]);
                displs[j] = mx_count(rk, td[j]);
            }
            int mine = tr[c->rank];
            int *in = mx_alloc(sk, mine), *out = mx_alloc(rk, span), *want = mx_alloc(rk, span);
            mx_fill(in, sk, 0, mine, c->rank, 0);
            for (int j = 0; j < p; j++)
                mx_fill(want, rk, td[j], tr[j], j, 0);
            snprintf(c->what, sizeof(c->what), "allgatherv size %d, %ld triples, mixed types%s",
                     c->size, n, inplace ? ", in place" : "");
            if (inplace) {
                mx_fill(out, rk, td[c->rank], mine, c->rank, 0);
                MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, rcounts, displs,
                               mixed[rk], c->comm);
            } else {
                MPI_Allgatherv(in, mx_count(sk, mine), mixed[sk], out, rcounts, displs, mixed[rk],
                               c->comm);
            }
            mx_compare(c, out, want, rk, span);
            free(in);
            free(out);
            free(want);
        }
    free(tr);
    free(td);
    free(rcounts);
    free(displs);
}

/* Alltoall(v): the values rank r sends to rank j are numbered from j * 100000. */
static void mixed_alltoall(struct ctx *c)
{
    long counts[3] = {1, c->size + 1, 457};
    int p = c->size, me = c->rank, sk = me % NMIXED, rk = (me + 2) % NMIXED;
    for (int ci = 0; ci < 3; ci++)
        for (int inplace = 0; inplace < 2; inplace++) {
            long n = counts[ci];
            int *in = mx_alloc(sk, n * p), *out = mx_alloc(rk, n * p), *want = mx_alloc(rk, n * p);
            for (int j = 0; j < p; j++) {
                mx_fill(in, sk, j * n, n, me, j * 100000L);
                mx_fill(want, rk, j * n, n, j, me * 100000L);
            }
            snprintf(c->what, sizeof(c->what), "alltoall size %d, %ld triples, mixed types%s",
                     c->size, n, inplace ? ", in place" : "");
            if (inplace) {
                for (int j = 0; j < p; j++)
                    mx_fill(out, rk, j * n, n, me, j * 100000L);
                MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, mx_count(rk, n), mixed[rk],
                             c->comm);
            } else {
                MPI_Alltoall(in, mx_count(sk, n), mixed[sk], out, mx_count(rk, n), mixed[rk],
                             c->comm);
            }
            mx_compare(c, out, want, rk, n * p);
            free(in);
            free(out);
            free(want);
        }
}

static void mixed_alltoallv(struct ctx *c)
{
    long counts[3] = {1, c->size + 1, 457};
    int p = c->size, me = c->rank, sk = me % NMIXED, rk = (me + 2) % NMIXED;
    int *ts = malloc((size_t) p * sizeof(int)), *tsd = malloc((size_t) p * sizeof(int));
    int *tr = malloc((size_t) p * sizeof(int)), *trd = malloc((size_t) p * sizeof(int));
    int *sc = malloc((size_t) p * sizeof(int)), *sd = malloc((size_t) p * sizeof(int));
    int *rc = malloc((size_t) p * sizeof(int)), *rd = malloc((size_t) p * sizeof(int));
    for (int ci = 0; ci < 3; ci++) {
        long n = counts[ci], sspan, rspan;
        for (int j = 0; j < p; j++) {
            ts[j] = vcount(n, me, j);      /* triples I send to j */
            tr[j] = vcount(n, j, me);      /* triples j sends to me */
        }
        sspan = vdispls(ts, tsd, p);
        rspan = vdispls(tr, trd, p);
        for (int j = 0; j < p; j++) {
            sc[j] = mx_count(sk, ts[j]);
            sd[j] = mx_count(sk, tsd[j]);
            rc[j] = mx_count(rk, tr[j]);
            rd[j] = mx_count(rk, trd[j]);
        }
        int *in = mx_alloc(sk, sspan), *out = mx_alloc(rk, rspan), *want = mx_alloc(rk, rspan);
        for (int j = 0; j < p; j++) {
            mx_fill(in, sk, tsd[j], ts[j], me, j * 100000L);
            mx_fill(want, rk, trd[j], tr[j], j, me * 100000L);
        }
        snprintf(c->what, sizeof(c->what), "alltoallv size %d, %ld triples, mixed types",
                 c->size, n);
        MPI_Alltoallv(in, sc, sd, mixed[sk], out, rc, rd, mixed[rk], c->comm);
        mx_compare(c, out, want, rk, rspan);
        free(in);
        free(out);
        free(want);
    }
    free(ts);
    free(tsd);
    free(tr);
    free(trd);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static void check_barrier(struct ctx *c)
{
    int late[3];
    int nl = root_list(c->size, late);
    double *left = malloc((size_t) c->size * sizeof(double));
    for (int li = 0; li < nl; li++) {
        double arrived = 0, mine, first_left;
        if (c->rank == late[li]) {
            usleep(5000);
            arrived = now();
        }
        MPI_Barrier(c->comm);
        mine = now();
        PMPI_Bcast(&arrived, 1, MPI_DOUBLE, late[li], c->comm);
        PMPI_Allgather(&mine, 1, MPI_DOUBLE, left, 1, MPI_DOUBLE, c->comm);
        first_left = left[0];
        for (int i = 1; i < c->size; i++)
            if (left[i] < first_left)
                first_left = left[i];
        CHECK(first_left >= arrived, "barrier size %d: a rank left %.6f s before rank %d arrived",
              c->size, arrived - first_left, late[li]);
    }
    for (int i = 0; i < 20; i++)
        MPI_Barrier(c->comm);
    free(left);
}

/* ---------------------------------------------------------------- driver */

/* Ranks outside the communicator under test wait here, sleeping between polls, so that they
 * leave the (oversubscribed) cores to the ranks at work. */
static void gentle_barrier(void)
{
    MPI_Request req;
    int done = 0;
    PMPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (;;) {
        PMPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        usleep(500);
    }
}

/* Is s in the comma-separated list? */
static int size_listed(const char *list, int s)
{
    for (const char *p = list; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            return 0;
        if (v == s)
            return 1;
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct ctx c;
    int wsize, wrank;
    MPI_Datatype vec;
    const char *env;

    MPI_Init(&argc, &argv);
    PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (argc < 2) {
        if (wrank == 0)
            fprintf(stderr, "usage: %s <collective>\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    coll = argv[1];
    env = getenv("AUTOOPT_REPRODUCIBLE");
    reproducible = env && strcmp(env, "1") == 0;
    env = getenv("COLL_CHECK_TIMES");
    times = env && strcmp(env, "1") == 0;

    types[T_INT] = MPI_INT;
    types[T_DOUBLE] = MPI_DOUBLE;
    PMPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    PMPI_Type_create_resized(vec, 0, 16, &types[T_DERIVED]);
    PMPI_Type_commit(&types[T_DERIVED]);
    PMPI_Type_free(&vec);
    mixed[X_INT] = MPI_INT;
    PMPI_Type_contiguous(3, MPI_INT, &mixed[X_CONTIG]);
    PMPI_Type_vector(3, 1, 2, MPI_INT, &mixed[X_VECTOR]);
    PMPI_Type_commit(&mixed[X_CONTIG]);
    PMPI_Type_commit(&mixed[X_VECTOR]);
    ops[O_SUM] = MPI_SUM;
    ops[O_MAX] = MPI_MAX;
    PMPI_Op_create(perm_op, 0, &ops[O_PERM]);

    for (int s = 1; s <= wsize; s++) {
        MPI_Comm comm = MPI_COMM_WORLD;
        double t0 = now();
        if (argc > 2 && !size_listed(argv[2], s))
            continue;
        if (s < wsize)
            PMPI_Comm_split(MPI_COMM_WORLD, wrank < s ? 0 : MPI_UNDEFINED, s - wrank, &comm);
        if (comm == MPI_COMM_NULL) {
            gentle_barrier();
            continue;
        }
        c.comm = comm;
        PMPI_Comm_size(comm, &c.size);
        PMPI_Comm_rank(comm, &c.rank);
        if (!strcmp(coll, "allreduce"))
            check_allreduce(&c);
        else if (!strcmp(coll, "reduce"))
            check_reduce(&c);
        else if (!strcmp(coll, "bcast")) {
            check_bcast(&c);
            mixed_bcast(&c);
        }
        else if (!strcmp(coll, "allgather")) {
            check_allgather(&c);
            mixed_allgather(&c);
        }
        else if (!strcmp(coll, "allgatherv")) {
            check_allgatherv(&c);
            mixed_allgatherv(&c);
        }
        else if (!strcmp(coll, "alltoall")) {
            check_alltoall(&c);
            mixed_alltoall(&c);
        }
        else if (!strcmp(coll, "alltoallv")) {
            check_alltoallv(&c);
            mixed_alltoallv(&c);
        }
        else if (!strcmp(coll, "barrier"))
            check_barrier(&c);
        else {
            if (wrank == 0)
                fprintf(stderr, "unknown collective '%s'\n", coll);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (comm != MPI_COMM_WORLD)
            PMPI_Comm_free(&comm);
        if (times && c.rank == 0)
            printf("%s: size %d: %.2f s\n", coll, s, now() - t0);
        gentle_barrier();
    }
    PMPI_Op_free(&ops[O_PERM]);
    PMPI_Type_free(&types[T_DERIVED]);
    PMPI_Type_free(&mixed[X_CONTIG]);
    PMPI_Type_free(&mixed[X_VECTOR]);
    if (reproducible && wrank == 0)
        printf("digest of the double sums: %016llx\n", (unsigned long long) digest);
    return aot_test_finish();
}
