/*
 * aot_agree.h: the benefit governors' agreed verdicts across ranks (src/agree.c): each vote is
 * one MPI_Iallreduce(MPI_SUM) of struct aot_gov_vote's packed words on a private duplicate of
 * MPI_COMM_WORLD, tested, never waited for, until MPI_Finalize.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_AGREE_H_INCLUDED
#define AOT_AGREE_H_INCLUDED

#include <stdint.h>

#include "aot_govern.h"

/* Collective over MPI_COMM_WORLD, in MPI_Init (every rank, whatever its settings: the
 * communicators exist when AUTOOPT_P2P_AGREE=1) and MPI_Finalize (completes every vote: a rank
 * that cast fewer votes than another casts empty ones until all have cast as many). */
void aot_agree_votes_start(void);
void aot_agree_votes_finish(void);
/* Whether governors should agree (the communicators exist and nothing gave up). */
int aot_agree_votes_on(void);
/* Casts who's vote (packed words); 0: not possible (off, given up, too many pending): decide
 * alone. */
int aot_agree_post(const void *who, const int64_t w[AOT_GOV_VOTE_WORDS]);
/* Whether who's tally is there: 1 (sum holds it), 0 not yet, -1 none pending or given up
 * (decide alone). */
int aot_agree_test(const void *who, int64_t sum[AOT_GOV_VOTE_WORDS]);

#endif /* AOT_AGREE_H_INCLUDED */
