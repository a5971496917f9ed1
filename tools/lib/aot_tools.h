/*
 * aot_tools.h: the library of the offline tools (libautoopt-tools.a, tools/lib/): what
 * autoopt-tune and its subcommands need beside the collectives themselves.  The runtime,
 * libautoopt.so, never includes this header nor links this library (tests/include_graph.py).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The library holds
 *   - the narrow interface to the collectives a tool uses (this header): the set-up a tool does
 *     in place of libautoopt.so's MPI_Init, the collectives and algorithms by name, the calls
 *     the tuner times and a communicator to run them on (tools.c, registry.c, calls.c);
 *   - the pure core of the empirical tuner: estimates, searches, the raw measurement file
 *     (aot_tuner_core.h, tuner_core.c);
 *   - the decision encodings of measured maps and the C they compile to (aot_encode.h,
 *     coll_encode.c).
 * The tuning file's reader and writer (aot_tuning_file.h) stay in collectives/: the runtime
 * reads AUTOOPT_TUNING with the same code the tools write and check it with.  The programs of
 * tools/tune and tools/bench-coll include these headers and no collectives/coll_*.h.
 */
#ifndef AOT_TOOLS_H_INCLUDED
#define AOT_TOOLS_H_INCLUDED

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "aot_config.h"   /* enum aot_coll_kind, AOT_COLLECTIVES */

struct aot_tuning;

/* The state libautoopt.so's MPI_Init gives the collectives, for a tool that runs them without
 * the library's MPI_Init: after MPI_Init, collective over MPI_COMM_WORLD.  With a topology
 * description (a path, not NULL or empty), sets the world rank and size the topology algorithms
 * use and reads the switches of that description as AUTOOPT_TOPOLOGY is read at MPI_Init
 * (docs/topology.md); without one it does nothing, and the library's messages keep the form
 * they have outside a job ("autoopt: ...", not "autoopt[0]: ...").  0, or -1 with the same
 * one-line message on every rank ("FILE:LINE: problem"). */
int aot_tools_setup(const char *topology, char *err, size_t errlen);

/* ---------------------------------------------------------------- collectives, algorithms */

/* A collective is an enum aot_coll_kind (aot_config.h).  An algorithm is its index in the
 * registry (collectives/coll_algorithms.def), 0 .. aot_tools_nalgs() - 1, natives first:
 * algorithm k < AOT_COLL_NKINDS is MPI's own algorithm of collective k ("native").  The same
 * index is a tuning file's aot_tuning_rule.alg. */

/* "allreduce", "bcast", ... */
const char *aot_tools_kind_name(int kind);
/* The collective named `name` (len bytes), or -1. */
int aot_tools_find_kind(const char *name, size_t len);

int aot_tools_nalgs(void);
/* The collective of alg, and its name within it ("native", "ring", ...). */
int aot_tools_alg_kind(int alg);
const char *aot_tools_alg_name(int alg);
/* The algorithm `name` (len bytes) of collective kind, or -1. */
int aot_tools_find_alg(int kind, const char *name, size_t len);
/* 1 when alg may run a call on comm_size ranks (with a commutative operation when commutative
 * is set), 0 when one of its restrictions rejects the call. */
int aot_tools_alg_applies(int alg, int comm_size, int commutative);

/* The parameter of an algorithm (segment size, tree fan-out, ...). */
struct aot_tools_param {
    const char *name;           /* NULL: the algorithm has none */
    long dflt, min, max;
    const long *tune;           /* [ntune]: the values a tuner tries */
    int ntune;
};
/* 1 when alg has a parameter, 0 when not; its description in *p (p may be NULL). */
int aot_tools_alg_param(int alg, struct aot_tools_param *p);
/* alg with param as AUTOOPT_<COLL> and tuning files name it: "name" or "name:param=value".
 * 0, or -1 when it does not fit. */
int aot_tools_format_choice(int alg, long param, char *buf, size_t len);

/* ---------------------------------------------------------------- the calls a tool times */

/* The calls autoopt-tune and autoopt-bench-coll time: elements of MPI_FLOAT with MPI_SUM for
 * allreduce and reduce, of MPI_CHAR otherwise, the same count on every rank for allgatherv and
 * alltoallv.  The element size of kind's calls; the count of a call of `bytes` (rounded down
 * to whole elements); and the bytes a decision sees for it (docs/tuning-format.md, "What
 * bytes means"), the count taken as at least one element: the message size a rule measured
 * at `bytes` covers.  Pure, no MPI calls (calls.c). */
int aot_tools_call_type_size(int kind);
int aot_tools_call_count(int kind, uint64_t bytes);
uint64_t aot_tools_call_bytes(int kind, uint64_t bytes);

/* Back to back, an algorithm whose calls do not synchronise (a pipelined chain, a linear
 * reduce) can gain in a short run of calls and lose in a long one, where its senders run
 * ahead (docs/tuning.md, "Back to back, in long runs").  autoopt-tune and autoopt-bench-coll
 * therefore time at least AOT_TOOLS_B2B_CALLS calls in a row, fewer only where that many calls
 * of call_s seconds each would last more than AOT_TOOLS_B2B_MAX_S, and never fewer than
 * at_least (at least 1).  call_s <= 0 (not measurable): AOT_TOOLS_B2B_CALLS.  Pure (calls.c). */
#define AOT_TOOLS_B2B_CALLS 256
#define AOT_TOOLS_B2B_MAX_S 0.01
int aot_tools_b2b_calls(double call_s, int at_least);

/* ---------------------------------------------------------------- running an algorithm */

/* A communicator prepared to run the repository's algorithms on, as libautoopt.so prepares a
 * user's communicator: a private duplicate and the context the algorithms run in.  Open is
 * collective over comm (the duplication); comm stays the caller's and must outlive the
 * handle.  MPI_SUCCESS, MPI_ERR_NO_MEM, or the error of the duplication. */
struct aot_tools_comm;
int aot_tools_comm_open(MPI_Comm comm, struct aot_tools_comm **out);
/* Frees the duplicate and what the context computed; NULL is fine.  Local. */
void aot_tools_comm_close(struct aot_tools_comm *tc);

/* The host shape of tc's communicator, as a tuning file's "hosts ... ppn ..." qualifies a
 * rule: its size, its hosts, the ranks on its fullest host.  Collective over the communicator
 * on first use.  MPI_SUCCESS, or an error (then *sh says only the size). */
struct aot_tools_shape {
    int size, nhosts, ppn;
};
int aot_tools_comm_shape(const struct aot_tools_comm *tc, struct aot_tools_shape *sh);

/* The buffers of the timed calls: s and r of `bytes` each, at least comm_size blocks of the
 * largest call; counts and displs of comm_size ints, filled by each call of a v-collective. */
struct aot_tools_bufs {
    char *s, *r;
    int *counts, *displs;
    size_t bytes;
};

/* One call of algorithm alg with parameter param, the call of aot_tools_call_count(kind, bytes)
 * elements described above: a native through PMPI_<Collective> on the communicator tc was
 * opened on, any other in its context (the private duplicate), as libautoopt.so runs them.
 * Roots are rank 0.  Collective over the communicator; the algorithm's MPI result. */
int aot_tools_run(const struct aot_tools_comm *tc, int alg, long param, uint64_t bytes,
                  const struct aot_tools_bufs *b);

/* Replaces the tuning table that the selection made inside an algorithm reads (NULL: none):
 * autoopt-tune gives it the rules measured so far, so that the allgather inside an allreduce
 * runs the allgather that was measured best.  The table stays the caller's. */
void aot_tools_set_tuning(const struct aot_tuning *t);

/* The first line of MPI_Get_library_version ("MPICH Version: 4.0.2"), as a tuning file's
 * "# setup ... mpi=" line records it.  0, or -1 when MPI gives none. */
int aot_tools_mpi_version(char *buf, int len);

#endif /* AOT_TOOLS_H_INCLUDED */
