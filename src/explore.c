/*
 * explore.c: one exploration at a time.  The benefit governors of chains (chains/) and of
 * converting call sites (paging/) measure a candidate mode by the period of their own
 * occurrences; two governors exploring at once would measure each other's modes.  A governor
 * that wants to explore takes the turn first; the others run natively until it is done.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>

#include "aot_explore.h"
#include "aot_govern.h"

static struct {
    const void *owner;          /* the governor exploring now, NULL: nobody */
    uint64_t seen_ns;           /* when it last used its turn */
    double loss_ns;             /* every governor's exploration loss: one budget for the rank */
} aot_explore;

/* A turn not used for this long is free again: its owner stopped being called (the loop that
 * ran it ended) before its exploration did. */
#define AOT_EXPLORE_STALE_NS 100000000u

/* A period this many times the shortest one seen is taken for an interruption. */
#define AOT_EXPLORE_INTERRUPT 8

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

/* Whether a period is an interruption rather than what the mode costs: more than 8 times the
 * shortest period seen (*min_ns, updated) and not right after another such period (*skipped,
 * updated): the program did other work between two occurrences (another phase, output, a
 * benchmark's other turns).  Such a period is not scored (aot_gov_skip); a second one in a
 * row is (a mode that slows every period is measured, at the cost of one period). */
static int aot_explore_interrupted(uint64_t *min_ns, int *skipped, uint64_t period_ns)
{
    if (!*min_ns || period_ns < *min_ns)
        *min_ns = period_ns;
    if (period_ns > AOT_EXPLORE_INTERRUPT * *min_ns && !*skipped) {
        *skipped = 1;
        return 1;
    }
    *skipped = 0;
    return 0;
}

int aot_explore_next(struct aot_gov *g, const void *who, struct aot_explore_clock *k)
{
    const uint64_t now = aot_now_ns();
    int mode;

    /* an interruption still takes its place in the schedule (aot_gov_skip), so that the ranks'
     * governors stay in step */
    if (!k->t_start)
        mode = k->resumed ? aot_gov_skip(g) : aot_gov_mode(g);
    else if (aot_explore_interrupted(&k->min_ns, &k->skipped, now - k->t_start))
        mode = aot_gov_skip(g);
    else
        mode = aot_gov_period(g, now - k->t_start);

    k->resumed = 0;
    if (aot_gov_decided(g)) {
        aot_explore_release(who);
        k->t_start = now;
    } else if (aot_explore_turn(who, now)) {
        k->t_start = now;
    } else {
        mode = 0;                       /* another governor explores: native, no period fed */
        k->t_start = 0;
    }
    return mode;
}
