/*
 * govern_impl.h: what the three files of the benefit governor share, not seen outside them:
 * the core (govern.c: state, exploration schedule, judging, feeding), the agreed verdicts
 * (govern_vote.c) and the setters, queries and reason text (govern_query.c).  Callers use
 * aot_govern.h only.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_GOVERN_IMPL_H_INCLUDED
#define AOT_GOVERN_IMPL_H_INCLUDED

#include "aot_govern.h"

/* Standard errors between a verdict and the threshold. */
#define AOT_GOV_Z 2.0
/* ... for a candidate whose calibrated cost (prior) is at most the margin of native's period:
 * a mistaken win costs it little (and its watch catches it), while the platforms where such a
 * mode pays (large messages on a network) are the noisiest, where two standard errors take
 * more windows than a run of a few hundred iterations has. */
#define AOT_GOV_Z_CHEAP 1.0

/* govern.c */
/* A window of mode opens: its periods so far, its warm-up and its loss start afresh. */
void aot_gov_open(struct aot_gov *g, int mode);
/* Charges ns to this governor's loss and to the shared ledger, if any. */
void aot_gov_lose(struct aot_gov *g, double ns);
/* Why candidate k may not run its next window now (0: it may). */
int aot_gov_bar(const struct aot_gov *g, int k);
/* The standard errors candidate k's verdict needs: AOT_GOV_Z or AOT_GOV_Z_CHEAP. */
double aot_gov_z(const struct aot_gov *g, int k);
/* The decided phase begins, in mode. */
void aot_gov_decide(struct aot_gov *g, int mode);
/* The verdict on candidate k after a window of ratio r, squared SE se2. */
void aot_gov_apply(struct aot_gov *g, int k, double r, double se2, double z, double period_ns);
/* After the native window: the next candidate (with an agreed tally t, as the ranks agreed). */
void aot_gov_proceed(struct aot_gov *g, const struct aot_gov_tally *t);

/* govern_vote.c */
/* The end of a native window of an agreed exploration: the vote, then hold for the tally. */
void aot_gov_cast(struct aot_gov *g, int has, double r, double se2);

#endif
