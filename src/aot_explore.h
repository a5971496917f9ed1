/*
 * aot_explore.h: one benefit governor explores at a time (src/explore.c), and the clock.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_EXPLORE_H_INCLUDED
#define AOT_EXPLORE_H_INCLUDED

#include <stdint.h>

/* One benefit governor explores at a time (chains and converting call sites measure their
 * modes by their own periods, which another's exploration would disturb).  Whether who may
 * explore now (it then holds the turn; a turn unused for 100 ms lapses), and its release.
 * Called on the thread that calls MPI. */
int aot_explore_turn(const void *who, uint64_t now_ns);
void aot_explore_release(const void *who);
/* The rank's exploration ledger (struct aot_gov_params.ledger): the governors of all chains and
 * call sites spend one budget, as they explore the same run time. */
double *aot_explore_ledger(void);
/* What the caller of a governor keeps beside it: the start of the previous occurrence (0: no
 * period to measure), aot_gov_interrupted's state, the mode the previous occurrence ran, and
 * whether the caller ran occurrences untimed (aot_gov_quiet) and credited them: the next
 * occurrence then counts in the schedule without a period, as the one it would have measured. */
struct aot_explore_clock {
    uint64_t t_start;
    uint64_t min_ns;
    int skipped;
    int ran;            /* the mode the previous occurrence ran */
    int resumed;
    uint64_t last_ns;   /* the previous period, if measured (0: none): periods go in pairs */
    uint64_t seen;      /* occurrences so far */
    int shown;          /* the state last logged (AUTOOPT_VERBOSE=2): 0 none, else 1 + mode,
                         * plus 16 once decided */
};
/* An occurrence of who (a chain, a call site) starts now: the period since the previous one
 * goes to its governor g unless it was an interruption; the mode to run it in is returned, and
 * native (0) while another governor explores (no period is fed until who has its turn). */
struct aot_gov;
int aot_explore_next(struct aot_gov *g, const void *who, struct aot_explore_clock *k);
/* aot_gov_prior for a governor that aot_explore_next feeds: extra_ns is a mode's expected extra
 * cost per occurrence; the governor is told twice that, as every period it is fed is two
 * occurrences (periods go in pairs). */
void aot_explore_prior(struct aot_gov *g, int mode, double extra_ns);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t aot_now_ns(void);

#endif /* AOT_EXPLORE_H_INCLUDED */
