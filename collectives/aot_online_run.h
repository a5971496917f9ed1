/*
 * aot_online_run.h: online tuning in a running job (coll_online_run.c), as coll_run.c uses it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   struct aot_online_call oc;
 *   if (!aot_online_begin(&state->online, kind, size, rank, shape, private_comm, arg, bytes,
 *                         commutative, &c, &oc))
 *       ... the policy's decision (forced, tuning file, native) ...
 *   rc = run c;
 *   if (aot_online_end(&oc))            1: this call ends a round or a window (its own key's,
 *       rc = aot_online_agree(&oc, ...);   or the key whose sample its end closed: oc.k)
 *
 * A timed call's sample is its span: from its entry to the end of the communicator's next call
 * that goes through aot_online_begin, or, when that call is the same key's, its period (from
 * the end of the key's previous call).  The period is then reported, and agreed on through
 * private_comm(arg), in aot_online_begin before the key's next candidate is chosen.
 */
#ifndef AOT_ONLINE_RUN_H_INCLUDED
#define AOT_ONLINE_RUN_H_INCLUDED

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "aot_config.h"
#include "aot_online.h"
#include "coll_select.h"

struct aot_online_comm;         /* the keys of one communicator */
struct aot_online_key;

struct aot_online_call {
    struct aot_online_key *k;   /* NULL: the call is not tuned online */
    struct aot_online_comm *o;
    enum aot_coll_kind kind;
    uint64_t bytes;
    int n;
    double t0;                  /* the call's entry, when it is timed */
    /* the timed call of another key whose sample this call's end closes, or NULL */
    struct aot_online_key *close;
    double close_entry;
    enum aot_coll_kind close_kind;
    uint64_t close_bytes;
};

/* AUTOOPT_TUNE=exact or online, after the policy is set up (MPI_Init); all: online, which
 * tunes every reduction, where exact tunes only those aot_online_tunes accepts. */
extern int aot_online_on, aot_online_all;
void aot_online_start(const struct aot_coll_policy *pol, int all);

/* The class of a predefined operation or datatype (aot_online_exact); anything else is
 * AOT_OP_OTHER or AOT_TY_OTHER. */
enum aot_online_op_class aot_online_op_class(MPI_Op op);
enum aot_online_type_class aot_online_type_class(MPI_Datatype dt);
/* Whether online tuning may choose the algorithm of a reduction of dt with op: always under
 * AUTOOPT_TUNE=online, under exact when the result is the same in any order. */
int aot_online_tunes(MPI_Op op, MPI_Datatype dt);

/* The algorithm for this call (1), or 0 when online tuning leaves the call to the policy: a
 * forced collective, a reduction under AUTOOPT_REPRODUCIBLE=1 (a choice that depends on time
 * would change the result from run to run), a communicator of one rank.  *slot is the
 * communicator's online state, made on first use; only then shape(arg, &nhosts, &ppn) is
 * called (on every rank at the same call, so it may be collective), and sets the hosts of the
 * communicator and the ranks on its fullest host (0 and 0 when unknown).  private_comm(arg,
 * &pc) gives autoopt's private duplicate of the communicator for an agreement made before the
 * call. */
int aot_online_begin(struct aot_online_comm **slot, enum aot_coll_kind kind, int comm_size,
                     int comm_rank, void (*shape)(void *, int *, int *),
                     int (*private_comm)(void *, MPI_Comm *), void *arg,
                     uint64_t bytes, int commutative, struct aot_coll_choice *c,
                     struct aot_online_call *call);
/* After the call: 1 when aot_online_agree must follow on every rank. */
int aot_online_end(struct aot_online_call *call);
/* The reduction with MPI_MAX on pc (the private duplicate) and the decision it allows. */
int aot_online_agree(struct aot_online_call *call, MPI_Comm pc);

/* When the communicator is freed (its attribute's delete callback): its keys become records
 * for the report and AUTOOPT_TUNE_SAVE, and their memory is freed.  NULL does nothing. */
void aot_online_release(struct aot_online_comm *o);

/* At MPI_Finalize, on every rank of MPI_COMM_WORLD: gathers every rank's keys to rank 0,
 * which writes AUTOOPT_TUNE_SAVE and keeps the table for the statistics. */
void aot_online_finish(void);
/* Rank 0, from the statistics report: the text section and the JSON value. */
void aot_online_stats_text(FILE *f);
void aot_online_stats_json(FILE *f);

#endif /* AOT_ONLINE_RUN_H_INCLUDED */
