/*
 * explore.c: one exploration at a time.  The benefit governors of chains (chains/) and of
 * converting call sites (paging/) measure a candidate mode by the period of their own
 * occurrences; two governors exploring at once would measure each other's modes.  A governor
 * that wants to explore takes the turn first; the others run natively until it is done.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>

#include "aot_agree.h"
#include "aot_explore.h"
#include "aot_govern.h"
#include "aot_log.h"
#include "aot_p2p.h"

/* The modes' names (aot_p2p.h): here, beside the one explorer of chains and call sites. */
const char *const aot_p2p_mode_names[AOT_MODE_N] = { "native", "copied", "guarded" };

static struct {
    const void *owner;          /* the governor exploring now, NULL: nobody */
    uint64_t seen_ns;           /* when it last used its turn */
    double loss_ns;             /* every governor's exploration loss: one budget for the rank */
} aot_explore;

/* A turn not used for this long is free again: its owner stopped being called (the loop that
 * ran it ended) before its exploration did. */
#define AOT_EXPLORE_STALE_NS 100000000u

/* Occurrences per period fed to a governor: periods go in pairs (aot_explore_next), so the
 * governor counts every occurrence's time twice, in its periods, its loss and its time
 * governed.  What is given to it per occurrence (a charge, a prior) is scaled up by this, what
 * it reports is scaled down. */
#define AOT_EXPLORE_PAIR 2.0

int aot_explore_turn(const void *who, uint64_t now_ns)
{
    if (aot_explore.owner && aot_explore.owner != who &&
        now_ns - aot_explore.seen_ns < AOT_EXPLORE_STALE_NS)
        return 0;
    aot_explore.owner = who;
    aot_explore.seen_ns = now_ns;
    return 1;
}

double *aot_explore_ledger(void)
{
    return &aot_explore.loss_ns;
}

void aot_explore_release(const void *who)
{
    if (aot_explore.owner == who)
        aot_explore.owner = NULL;
}

/* Agreed verdicts: a vote the governor cast is posted, a tally that arrived is handed back; a
 * vote that cannot be posted, or whose partners never came, is decided alone. */
static void aot_explore_agree(struct aot_gov *g, const void *who)
{
    struct aot_gov_vote v;
    int64_t w[AOT_GOV_VOTE_WORDS];
    uint64_t t0 = 0;

    if (aot_gov_vote(g, &v)) {
        t0 = aot_now_ns();
        aot_gov_vote_pack(&v, w);
        if (!aot_agree_post(who, w)) {
            aot_gov_agreed(g, NULL);
            return;
        }
    }
    if (aot_gov_holding(g)) {
        if (!t0)
            t0 = aot_now_ns();
        int got = aot_agree_test(who, w);
        if (got > 0) {
            struct aot_gov_tally t;
            aot_gov_tally_read(w, &t);
            aot_gov_agreed(g, &t);
        } else if (got < 0) {
            aot_gov_agreed(g, NULL);
        }
    }
    /* Agreeing is part of what exploring costs: a vote's MPI_Iallreduce and the tests for its
     * tally took about 12 us per vote on 4 ranks sharing 2 cores and 56 us on the emulated
     * cluster (8 ranks), which nothing charged: 0.5-1 % of a run of a few hundred iterations
     * with 30-50 votes.  Charged twice, as every period is counted twice (periods go in
     * pairs). */
    if (t0)
        aot_gov_charge(g, AOT_EXPLORE_PAIR * (double) (aot_now_ns() - t0));
}

/* Since periods went in pairs (2026-11-27) the priors had stayed per occurrence: a guarded
 * mode was left out only where its guards cost a whole occurrence's period, not half, and the
 * budget expected half its first period's loss. */
void aot_explore_prior(struct aot_gov *g, int mode, double extra_ns)
{
    aot_gov_prior(g, mode, AOT_EXPLORE_PAIR * extra_ns);
}

int aot_explore_next(struct aot_gov *g, const void *who, struct aot_explore_clock *k)
{
    const uint64_t now = aot_now_ns();
    int mode;

    /* an interruption still takes its place in the schedule (aot_gov_skip), so that the ranks'
     * governors stay in step */
    if (!k->t_start) {
        mode = k->resumed ? aot_gov_skip(g) : aot_gov_mode(g);
        k->last_ns = 0;
    } else if (aot_gov_interrupted(&k->min_ns, &k->skipped, now - k->t_start, k->ran)) {
        mode = aot_gov_skip(g);
        k->last_ns = 0;
    } else if (!k->last_ns) {
        /* the first period of a pair: counted, scored with the next one */
        mode = aot_gov_skip(g);
        k->last_ns = now - k->t_start;
    } else {
        /* a pair of periods: a loop that runs the site twice per iteration with different
         * work between (the red and the black phase of an SOR) alternates short and long
         * periods, and a mode that evens them out (guarded chains) must not be judged by the
         * short ones alone */
        uint64_t p = now - k->t_start;
        mode = aot_gov_period(g, p + k->last_ns);
        k->last_ns = p;
    }
    if (g->p.agree) {
        aot_explore_agree(g, who);
        mode = aot_gov_mode(g);
    }

    k->resumed = 0;
    k->seen++;
    if (__builtin_expect(aot_cfg.verbose >= 2, 0)) {
        /* each change of a governor's state, with the occurrence it happened at: the
         * timeline behind the statistics' one line per chain or site */
        int now_shown = 1 + aot_gov_choice(g) + (aot_gov_decided(g) ? 16 : 0);
        if (now_shown != k->shown) {
            char why[256];

            aot_gov_reason(g, aot_p2p_mode_names, why, sizeof(why));
            /* what exploring cost and the time governed, in time (the governor counts every
             * period twice: periods go in pairs) */
            aot_log(2, "governor %p: occurrence %llu: %s %s; %s (explored at a loss of %.2f ms "
                       "in %.1f ms governed; the rank's governors: %.2f ms)", who,
                    (unsigned long long) k->seen,
                    now_shown >= 16 ? "decided" : "exploring, so far", aot_p2p_mode_names[now_shown % 16 - 1],
                    why, aot_gov_loss_ns(g) * 1e-6 / AOT_EXPLORE_PAIR,
                    aot_gov_total_ns(g) * 1e-6 / AOT_EXPLORE_PAIR,
                    aot_explore.loss_ns * 1e-6 / AOT_EXPLORE_PAIR);
        }
        k->shown = now_shown;
    }
    if (aot_gov_decided(g)) {
        aot_explore_release(who);
        k->t_start = now;
    } else if (aot_explore_turn(who, now)) {
        k->t_start = now;
    } else {
        mode = 0;                       /* another governor explores: native, no period fed */
        k->t_start = 0;
    }
    k->ran = mode;
    return mode;
}
