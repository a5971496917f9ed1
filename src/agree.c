/*
 * agree.c: agreed verdicts of the benefit governors (aot_agree.h, docs/govern.md, "Agreed
 * verdicts").  A governor's vote is one MPI_Iallreduce(MPI_SUM) of int64 words on a private
 * duplicate of MPI_COMM_WORLD; integer sums are exact, so every rank reads the same tally.  The
 * request is tested once per occurrence of the governor's chain or site and never waited for
 * while the program runs: a rank whose partners never cast the matching vote (another program
 * on each rank, chains confirmed on some ranks only) holds natively until it gives up (after
 * AOT_AGREE_PATIENCE tests and AOT_AGREE_PATIENCE_NS), and then decides alone from then on.
 * Nonblocking collectives on one communicator match in the order they were started, so
 * MPI_Finalize first agrees on the largest number of votes cast (one MPI_Allreduce on a second
 * private communicator) and casts empty votes up to it; then every request completes.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "aot_agree.h"
#include "aot_config.h"
#include "aot_explore.h"
#include "aot_log.h"
#include "aot_stats.h"

#define AOT_AGREE_SLOTS 16                 /* votes pending at once */
#define AOT_AGREE_PATIENCE 64              /* tests, and ... */
#define AOT_AGREE_PATIENCE_NS 200000000u   /* ... ns, before a rank gives up waiting */

struct aot_agree_slot {
    const void *who;            /* its governor's owner; NULL: an orphan (given up) */
    int busy;
    MPI_Request req;
    int64_t in[AOT_GOV_VOTE_WORDS], out[AOT_GOV_VOTE_WORDS];
    uint64_t t0;
    unsigned tests;
};

static struct {
    int on, given_up;
    MPI_Comm votes, count;
    uint64_t posted;
    int c_votes, c_tallies, c_alone;    /* statistics counters (aot_stats_register) */
    struct aot_agree_slot slot[AOT_AGREE_SLOTS];
} aot_ag;

void aot_agree_votes_start(void)
{
    if (!aot_cfg.p2p_agree)
        return;
    aot_ag.c_votes = aot_stats_register("govern", "votes");
    aot_ag.c_tallies = aot_stats_register("govern", "tallies");
    aot_ag.c_alone = aot_stats_register("govern", "votes_given_up");
    PMPI_Comm_dup(MPI_COMM_WORLD, &aot_ag.votes);
    PMPI_Comm_dup(MPI_COMM_WORLD, &aot_ag.count);
    aot_ag.on = 1;
}

int aot_agree_votes_on(void)
{
    return aot_ag.on && !aot_ag.given_up;
}

static void aot_agree_give_up(const char *why)
{
    if (!aot_ag.given_up)
        AOT_LOG(1, "governors decide alone from now on: %s", why);
    aot_ag.given_up = 1;
}

int aot_agree_post(const void *who, const int64_t w[AOT_GOV_VOTE_WORDS])
{
    struct aot_agree_slot *s = NULL;

    if (!aot_agree_votes_on())
        return 0;
    for (int i = 0; i < AOT_AGREE_SLOTS && !s; i++)
        if (!aot_ag.slot[i].busy)
            s = &aot_ag.slot[i];
    if (!s) {
        aot_agree_give_up("too many votes pending");
        return 0;
    }
    memcpy(s->in, w, sizeof(s->in));
    if (PMPI_Iallreduce(s->in, s->out, AOT_GOV_VOTE_WORDS, MPI_INT64_T, MPI_SUM, aot_ag.votes,
                        &s->req) != MPI_SUCCESS) {
        aot_agree_give_up("MPI_Iallreduce failed");
        return 0;
    }
    aot_ag.posted++;
    aot_stats_add_caller(aot_ag.c_votes, 1);
    s->busy = 1;
    s->who = who;
    s->t0 = aot_now_ns();
    s->tests = 0;
    return 1;
}

int aot_agree_test(const void *who, int64_t sum[AOT_GOV_VOTE_WORDS])
{
    for (int i = 0; i < AOT_AGREE_SLOTS; i++) {
        struct aot_agree_slot *s = &aot_ag.slot[i];
        int done = 0;
        if (!s->busy || s->who != who)
            continue;
        PMPI_Test(&s->req, &done, MPI_STATUS_IGNORE);
        if (done) {
            memcpy(sum, s->out, sizeof(s->out));
            s->busy = 0;
            s->who = NULL;
            aot_stats_add_caller(aot_ag.c_tallies, 1);
            return 1;
        }
        if (++s->tests >= AOT_AGREE_PATIENCE && aot_now_ns() - s->t0 >= AOT_AGREE_PATIENCE_NS) {
            s->who = NULL;          /* completes in aot_agree_votes_finish */
            aot_stats_add_caller(aot_ag.c_alone, 1);
            aot_agree_give_up("a vote found no partner");
            return -1;
        }
        return 0;
    }
    return -1;
}

void aot_agree_votes_finish(void)
{
    uint64_t most = 0;
    int64_t none[AOT_GOV_VOTE_WORDS], out[AOT_GOV_VOTE_WORDS];

    if (!aot_ag.on)
        return;
    PMPI_Allreduce(&aot_ag.posted, &most, 1, MPI_UINT64_T, MPI_MAX, aot_ag.count);
    memset(none, 0, sizeof(none));
    for (; aot_ag.posted < most; aot_ag.posted++) {
        MPI_Request r;
        PMPI_Iallreduce(none, out, AOT_GOV_VOTE_WORDS, MPI_INT64_T, MPI_SUM, aot_ag.votes, &r);
        PMPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < AOT_AGREE_SLOTS; i++)
        if (aot_ag.slot[i].busy) {
            PMPI_Wait(&aot_ag.slot[i].req, MPI_STATUS_IGNORE);
            aot_ag.slot[i].busy = 0;
        }
    PMPI_Comm_free(&aot_ag.votes);
    PMPI_Comm_free(&aot_ag.count);
    aot_ag.on = 0;
}
