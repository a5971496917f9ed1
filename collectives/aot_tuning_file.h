/*
 * aot_tuning_file.h: the tuning file (docs/tuning-format.md) in memory, its reader and its writer.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A tuning file maps (collective, communicator-size range, message-size range) to an algorithm
 * and its parameter; since version 2 a range of communicators may also be qualified by the shape
 * of its hosts (how many hosts, how many ranks on the fullest one).  autoopt reads it in
 * MPI_Init (AUTOOPT_TUNING=path); the tuner writes it with aot_tuning_add() and
 * aot_tuning_write().  No MPI calls in here.
 */
#ifndef AOT_TUNING_H_INCLUDED
#define AOT_TUNING_H_INCLUDED

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "aot_config.h"

/* The version the writer writes; the reader reads 1 (no host shapes) and 2. */
#define AOT_TUNING_VERSION 2
/* The largest tuning file read (a decision map of thousands of rules is far below it). */
#define AOT_TUNING_MAX_BYTES (16 << 20)
#define AOT_TUNING_INF_RANKS INT_MAX      /* "inf" as the upper end of a ranks range */
#define AOT_TUNING_INF_BYTES UINT64_MAX   /* "inf" as the upper end of a bytes range */

struct aot_tuning_rule {
    int kind;                   /* enum aot_coll_kind */
    int ranks_lo, ranks_hi;     /* communicator sizes, inclusive */
    uint64_t bytes_lo, bytes_hi; /* message sizes, inclusive (per collective: docs) */
    int alg;                    /* index into the registry (aot_coll_algs) */
    long param;                 /* the algorithm's parameter, 0 when it has none */
    int line;                   /* line in the file it came from, 0 when built in memory */
    const char *note;           /* aot_tuning_write puts it after the rule as a comment (the
                                 * tuner's measured advantage); not owned by the table; NULL
                                 * for rules read from a file */
    /* The host shape (format version 2), inclusive: hosts of the communicator, and ranks on its
     * fullest host ("ppn").  lo == 0 means no qualifier: any shape, as in version 1 (so a rule
     * built without them keeps its old meaning). */
    int hosts_lo, hosts_hi;
    int ppn_lo, ppn_hi;
};

struct aot_tuning {
    struct aot_tuning_rule *rules;
    size_t n, cap;
    int sorted;                 /* rules in (collective, ranks_lo, bytes_lo) order: lookups
                                 * search, else they scan */
    size_t shaped;              /* rules with a hosts or ppn qualifier: a decision then needs
                                 * the communicator's host shape (aot_tuning_lookup_shape) */
};

void aot_tuning_init(struct aot_tuning *t);
void aot_tuning_free(struct aot_tuning *t);

/* Adds one rule after checking it: an algorithm of that collective, a parameter in range,
 * non-empty ranges, and (within one collective) ranks ranges that are either identical or
 * disjoint and bytes ranges that do not overlap for the same ranks range.  0, or -1 with a
 * message in err.  Each rule is compared with every earlier one: for tables of hundreds of
 * rules built in memory; files are checked in O(n log n) by aot_tuning_parse. */
int aot_tuning_add(struct aot_tuning *t, const struct aot_tuning_rule *r, char *err,
                   size_t errlen);

/* Parses the text of a tuning file; `name` names it in messages
 * ("tune.txt:12: expected 'bytes <lo>-<hi>'").  Rules are appended to t. */
int aot_tuning_parse(struct aot_tuning *t, const char *text, size_t len, const char *name,
                     char *err, size_t errlen);
/* Reads a whole file into a malloc'ed, NUL-terminated buffer. */
int aot_tuning_slurp(const char *path, char **text, size_t *len, char *err, size_t errlen);
/* aot_tuning_slurp + aot_tuning_parse. */
int aot_tuning_read(struct aot_tuning *t, const char *path, char *err, size_t errlen);

/* Writes t in the current format version (rules sorted by collective, ranks, bytes), each
 * rule's note as a comment after it.  0, or -1 on an I/O error. */
int aot_tuning_write(const struct aot_tuning *t, FILE *f);
int aot_tuning_save(const struct aot_tuning *t, const char *path, char *err, size_t errlen);

/* The rule for a call, or NULL (then MPI's own algorithm runs).  nhosts and ppn describe the
 * communicator (its hosts, the ranks on its fullest host); 0 means unknown, and then only rules
 * without a shape qualifier apply.  aot_tuning_lookup is the same with an unknown shape. */
const struct aot_tuning_rule *aot_tuning_lookup_shape(const struct aot_tuning *t, int kind,
                                                      int comm_size, int nhosts, int ppn,
                                                      uint64_t bytes);
const struct aot_tuning_rule *aot_tuning_lookup(const struct aot_tuning *t, int kind,
                                                int comm_size, uint64_t bytes);
/* Whether r carries a hosts or ppn qualifier. */
static inline int aot_tuning_rule_shaped(const struct aot_tuning_rule *r)
{
    return r->hosts_lo != 0 || r->ppn_lo != 0;
}

/* Whether any rule of kind covers communicators of comm_size ranks: 1, 0, or -1 when t has no
 * rule of kind at all (a linear scan: for a warning, not for every call). */
int aot_tuning_covers(const struct aot_tuning *t, int kind, int comm_size);

#endif /* AOT_TUNING_H_INCLUDED */
