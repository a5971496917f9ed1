/*
 * coll_select.h: the decision (coll_select.c, pure): which algorithm a call runs, from the
 * forced algorithm, the tuning file and the registry's restrictions, and the syntax
 * "name[:param=value]" that names a choice.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_COLL_SELECT_H_INCLUDED
#define AOT_COLL_SELECT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "aot_config.h"   /* enum aot_coll_kind */
#include "aot_tuning_file.h"

struct aot_coll_ctx;

struct aot_coll_choice {
    int alg;                    /* index into aot_coll_algs */
    long param;                 /* value of its parameter (0 when it has none) */
};

/* Parses "name[:param=value]" for kind.  0, or -1 with a message such as
 * "unknown algorithm (known: native, ring, ...)" or "n must be an integer 1..1048576". */
int aot_coll_parse_choice(enum aot_coll_kind kind, const char *spec, struct aot_coll_choice *out,
                          char *err, size_t errlen);
/* Writes "name" or "name:param=value" (the inverse of aot_coll_parse_choice). */
int aot_coll_format_choice(const struct aot_coll_choice *c, char *buf, size_t len);

/* The restrictions of alg that a call with this communicator size and operation violates
 * (AOT_R_* bits; 0 when the algorithm may run). */
unsigned aot_coll_check(int alg, int comm_size, int commutative);
/* "needs a commutative operation" / "needs a power-of-two communicator size". */
const char *aot_coll_restriction_text(unsigned failed);

struct aot_coll_policy {
    int forced[AOT_COLL_NKINDS];          /* registry index, -1 when not forced */
    long forced_param[AOT_COLL_NKINDS];
    const struct aot_tuning *tuning;      /* NULL: no tuning file */
    int reproducible;                     /* AUTOOPT_REPRODUCIBLE */
};

enum aot_coll_why {
    AOT_WHY_DEFAULT,        /* nothing forced or tuned: native */
    AOT_WHY_FORCED,         /* AUTOOPT_<COLL> */
    AOT_WHY_TUNED,          /* a rule of the tuning file */
    AOT_WHY_RESTRICTED,     /* the forced or tuned algorithm's restriction rejected the call */
    AOT_WHY_REPRODUCIBLE    /* replaced by an order-fixed reduction (AUTOOPT_REPRODUCIBLE) */
};

struct aot_coll_decision {
    struct aot_coll_choice choice;
    enum aot_coll_why why;
    int rejected;           /* the algorithm that was replaced, or -1 */
    unsigned failed;        /* its failed restrictions (AOT_WHY_RESTRICTED) */
};

/* The decision: forced algorithm, else tuning file, else native; an algorithm whose
 * restriction rejects the call becomes native; under AUTOOPT_REPRODUCIBLE a reduction that is
 * not AOT_P_ORDERED becomes the order-fixed default.  Pure: no MPI calls, no global state.
 * Every input must be identical on all ranks (bytes: aot_coll_bytes, coll_bytes.h). */
void aot_coll_decide(const struct aot_coll_policy *pol, enum aot_coll_kind kind, int comm_size,
                     uint64_t bytes, int commutative, struct aot_coll_decision *d);

/* What the decision knows of a communicator: its size and, when a tuning file qualifies rules by
 * host shape (aot_tuning.shaped), its hosts and the ranks on its fullest host (0: unknown, and
 * then only unqualified rules apply).  The same on every rank. */
struct aot_coll_shape {
    int size, nhosts, ppn;
};

/* The shape of ctx->comm from its hierarchy: size, hosts and the ranks on the fullest host.
 * Collective on first use, as aot_coll_hier is.  MPI_SUCCESS, or aot_coll_hier's error (then
 * *sh says only the size). */
int aot_coll_shape_of(const struct aot_coll_ctx *ctx, struct aot_coll_shape *sh);

/* aot_coll_decide for a communicator of this shape. */
void aot_coll_decide_shape(const struct aot_coll_policy *pol, enum aot_coll_kind kind,
                           const struct aot_coll_shape *shape, uint64_t bytes, int commutative,
                           struct aot_coll_decision *d);

/* Whether the decision for kind on a communicator of this shape depends on the call's bytes:
 * 0 when nothing is forced and no tuning file is read, or when every rule of kind that covers
 * the shape (and the native default between them) gives one choice at every size.  alltoallv
 * agrees on its bytes (aot_coll_a2av_bytes) only when they matter.  Pure. */
int aot_coll_bytes_matter(const struct aot_coll_policy *pol, enum aot_coll_kind kind,
                          const struct aot_coll_shape *shape);

/* The order-fixed algorithm used for allreduce and reduce under AUTOOPT_REPRODUCIBLE. */
int aot_coll_reproducible_default(enum aot_coll_kind kind, uint64_t bytes);

#endif /* AOT_COLL_SELECT_H_INCLUDED */
