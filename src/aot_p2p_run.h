/*
 * aot_p2p_run.h: the governor of one safe chain or one converting call site (src/p2p_run.c).
 *
 * A safe chain (chains/chains.c) and a converting call site (paging/sites.c) each run every
 * occurrence in a mode (enum aot_p2p_mode) that its benefit governor (aot_govern.h,
 * docs/govern.md) chooses from the period between its occurrences.  struct aot_p2p_run is that
 * governor with what its owner keeps beside it: the clock of aot_explore_next, the mode of the
 * latest occurrence, the occurrences per mode and the key of its verdict in the cache of
 * decisions.  The owner says which chain or site it is and hashes the inputs of its key; the
 * set-up, the choice of each occurrence's mode, the reason text and the statistics rows are
 * here, once.  Lockstep: aot_run_next calls aot_explore_next exactly once per occurrence unless
 * a mode is forced (the agreed votes of the ranks' governors count the occurrences).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_P2P_RUN_H
#define AOT_P2P_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#include "aot_cache.h"
#include "aot_explore.h"
#include "aot_govern.h"
#include "aot_p2p.h"

struct aot_p2p_run {
    struct aot_gov gov;
    struct aot_explore_clock clock; /* the previous occurrence, for the period (aot_explore_next) */
    int governed;                   /* gov is set up (aot_run_init) */
    int mode;                       /* the mode of the occurrence running or just started */
    int fresh;                      /* chains: mode chosen for a start the fast path declined */
    int copy_ran;                   /* chains: copied occurrences since the last look */
    int unfit;                      /* aot_run_unfit's reason (AOT_PASS_*), 0: none */
    uint64_t runs[AOT_MODE_N];      /* occurrences per mode */
    char cache_key[AOT_CACHE_P2P_KEY_LEN];  /* its verdict in the cache of decisions ("": none) */
};

/* Sets up r's governor: the modes in excluded (bit 1 << mode) cannot apply, and guarded mode
 * gets the calibrated cost of guards guards of up to pages pages each as a prior. */
void aot_run_init(struct aot_p2p_run *r, unsigned excluded, int guards, size_t pages);
/* r's verdict of an earlier run is its governor's starting point (docs/govern.md, "The cache of
 * decisions"): signature is the owner's hash of what makes it the same in another run, to
 * which the size of comm is added (no key when it cannot be read). */
void aot_run_seed(struct aot_p2p_run *r, MPI_Comm comm, uint64_t signature);

/* An occurrence of who (the chain or site that owns r) starts: its mode, forced (>= 0: the
 * mode AUTOOPT_P2P_MODE forces, no governor runs) or chosen by the governor (exactly one
 * aot_explore_next), counted in runs[].  A mode chosen earlier for this start (fresh) is
 * returned again, not counted twice. */
static inline int aot_run_next(struct aot_p2p_run *r, int forced, const void *who)
{
    if (r->fresh) {
        r->fresh = 0;
        return r->mode;
    }
    r->mode = forced >= 0 ? forced : aot_explore_next(&r->gov, who, &r->clock);
    r->runs[r->mode]++;
    return r->mode;
}
/* The occurrence just counted runs in mode instead (its count moves). */
static inline void aot_run_instead(struct aot_p2p_run *r, int mode)
{
    if (mode == r->mode)
        return;
    r->runs[r->mode]--;
    r->runs[mode]++;
    r->mode = mode;
}
/* Mode cannot pay (why: the reason text); nonzero when it was ruled out now. */
static inline int aot_run_rule_out(struct aot_p2p_run *r, int mode, const char *why)
{
    return aot_gov_rule_out(&r->gov, mode, why);
}
/* One of its calls could not convert (why: an AOT_PASS_* reason): from now on it runs
 * natively, and its governor, every candidate excluded, only counts its occurrences.  The
 * latest occurrence counts as native. */
void aot_run_unfit(struct aot_p2p_run *r, int why);
/* Occurrences that can run untimed now (aot_gov_quiet), and n of them run untimed in
 * elapsed_ns (aot_gov_credit): the chains' dozing, on the fast path. */
static inline uint64_t aot_run_quiet(const struct aot_p2p_run *r)
{
    return aot_gov_quiet(&r->gov);
}
static inline void aot_run_credit(struct aot_p2p_run *r, uint64_t n, double elapsed_ns)
{
    aot_gov_credit(&r->gov, n, elapsed_ns);
}

/* At MPI_Finalize: r's verdict goes into the cache of decisions (a governed, fit run). */
void aot_run_keep(const struct aot_p2p_run *r);
/* Why r runs as it does, for the statistics (forced: as for aot_run_next). */
void aot_run_why(const struct aot_p2p_run *r, int forced, char *buf, size_t len);
/* The mode shown for r: its governor's choice, or the mode forced or last run. */
int aot_run_shown_mode(const struct aot_p2p_run *r, int forced);
/* The end of r's row in the statistics, after the owner's "what: ":
 * text "<mode> <native>/<copied>/<guarded>; <why>\n"; JSON "\"mode\": ..., \"<counts>\":
 * {\"native\": ..}, \"period_us\": {..}, \"why\": \"...\"" (counts: "runs" or "calls"). */
void aot_run_text_row(FILE *f, const struct aot_p2p_run *r, int forced);
void aot_run_json_row(FILE *f, const struct aot_p2p_run *r, int forced, const char *counts);

#endif /* AOT_P2P_RUN_H */
