/*
 * govern_vote.c: the benefit governor's agreed verdicts (aot_govern.h, "Agreed verdicts";
 * docs/govern.md): the vote a governor casts at the end of a native window, its packing into
 * the words the ranks sum, the tally read back from the sums and the verdict taken from it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Separate from the core (govern.c) because it is the governor's side of the exchange between
 * ranks (src/agree.c carries the words): a fixed-point format every rank must read alike, and
 * the one place where other ranks' measurements decide.  Pure, like the core.
 */
#include <math.h>
#include <string.h>

#include "aot_govern.h"
#include "govern_impl.h"

/* The end of a native window of an agreed exploration: the vote on the candidate window before
 * it (has: measured, ratio r, squared SE se2), then native, unscored, until the tally; at a
 * re-check the decided mode instead, which runs anyway outside explorations (a tally over TCP
 * takes several occurrences, native ones cost what the decided mode gains). */
void aot_gov_cast(struct aot_gov *g, int has, double r, double se2)
{
    struct aot_gov_vote *v = &g->vote;

    memset(v, 0, sizeof(*v));
    v->seq = ((unsigned) g->rechecks & 0xffu) << 8 | ((unsigned) g->votes & 0xffu);
    v->mode = g->pend ? g->pend : g->cut_mode;
    v->has = has && r > 0;
    v->ratio = r;
    v->se2 = se2;
    v->cut = !g->pend && g->cut_mode;
    v->cut_ratio = g->cut_last;
    v->cheap = v->mode && aot_gov_z(g, v->mode) == AOT_GOV_Z_CHEAP;
    v->base_ns = v->has ? g->pend_level / r : g->nat_level;
    for (int k = 1; k < g->p.nmodes; k++) {
        v->ok |= (unsigned) (aot_gov_bar(g, k) == 0) << k;
        v->todo |= (unsigned) (g->m[k].todo != 0) << k;
    }
    g->votes++;
    g->pend = 0;
    g->cut_mode = 0;
    g->vote_ready = 1;
    g->holding = 1;
    aot_gov_open(g, g->keep);
}

/* Agreed verdicts (aot_govern.h). */
int aot_gov_vote(struct aot_gov *g, struct aot_gov_vote *v)
{
    if (!g->vote_ready)
        return 0;
    g->vote_ready = 0;
    *v = g->vote;
    return 1;
}

int aot_gov_holding(const struct aot_gov *g)
{
    return g->holding;
}

/* Fixed point for the summed words: exact integer sums are the same on every rank. */
#define AOT_GOV_FIX 4294967296.0        /* 2^32 */
#define AOT_GOV_FIX_MAX 1000.0           /* ratios are clamped to this (2^42 per vote) */

static int64_t aot_gov_fix(double x)
{
    if (!(x > 0))
        return 0;
    return (int64_t) llround(fmin(x, AOT_GOV_FIX_MAX) * AOT_GOV_FIX);
}

/* Words: 0 votes, 1-2 seq and seq^2, 3-5 votes about a mode, mode and mode^2, 6 measured,
 * 7 ratio, 8 se2, 9 cut, 10 cut ratio, 11 cheap, 12-15 ok bits, 16-19 todo bits (per mode). */
void aot_gov_vote_pack(const struct aot_gov_vote *v, int64_t w[AOT_GOV_VOTE_WORDS])
{
    memset(w, 0, sizeof(int64_t) * AOT_GOV_VOTE_WORDS);
    w[0] = 1;
    w[1] = (int64_t) (v->seq & 0xffffu);
    w[2] = w[1] * w[1];
    if (v->mode > 0 && v->mode < AOT_GOV_MAX_MODES) {
        w[3] = 1;
        w[4] = v->mode;
        w[5] = v->mode * v->mode;
    }
    if (v->has) {
        w[6] = 1;
        w[7] = aot_gov_fix(v->ratio);
        w[8] = aot_gov_fix(v->se2);
    }
    if (v->cut) {
        w[9] = 1;
        w[10] = aot_gov_fix(v->cut_ratio);
    }
    w[11] = v->cheap != 0;
    for (int k = 0; k < AOT_GOV_MAX_MODES; k++) {
        w[12 + k] = (v->ok >> k) & 1;
        w[16 + k] = (v->todo >> k) & 1;
    }
}

void aot_gov_tally_read(const int64_t w[AOT_GOV_VOTE_WORDS], struct aot_gov_tally *t)
{
    memset(t, 0, sizeof(*t));
    t->n = (int) w[0];
    /* all equal exactly when n * sum(x^2) == sum(x)^2 (Cauchy-Schwarz) */
    t->consistent = w[0] > 0 && (__int128) w[0] * w[2] == (__int128) w[1] * w[1] &&
                    (__int128) w[3] * w[5] == (__int128) w[4] * w[4];
    t->mode = w[3] > 0 ? (int) (w[4] / w[3]) : 0;
    t->nhas = (int) w[6];
    t->ratio = t->nhas ? (double) w[7] / AOT_GOV_FIX / t->nhas : 0;
    t->se2 = t->nhas ? (double) w[8] / AOT_GOV_FIX / t->nhas : 0;
    t->ncut = (int) w[9];
    t->cut_ratio = t->ncut ? (double) w[10] / AOT_GOV_FIX / t->ncut : 0;
    t->cheap_all = w[11] == w[0];
    for (int k = 0; k < AOT_GOV_MAX_MODES; k++) {
        t->ok_all |= (unsigned) (w[12 + k] == w[0]) << k;
        t->todo_any |= (unsigned) (w[16 + k] > 0) << k;
    }
}

/* The tally of every rank's vote: the same verdict and the same next window everywhere.  The
 * ranks' mean ratio is judged with their mean squared SE (not divided by the number of ranks:
 * their periods are coupled by the very messages being measured, so their noise is not
 * independent).  A candidate most ranks cut short is cut on all of them. */
void aot_gov_agreed(struct aot_gov *g, const struct aot_gov_tally *t)
{
    struct aot_gov_tally own;

    if (!g->holding)
        return;
    if (!t || !t->consistent) {
        int64_t w[AOT_GOV_VOTE_WORDS];
        aot_gov_vote_pack(&g->vote, w);
        aot_gov_tally_read(w, &own);
        t = &own;
        g->local_n++;
    } else {
        g->agreed_n++;
    }
    g->holding = 0;
    g->vote_ready = 0;
    int k = t->mode;
    if (k >= 1 && k < g->p.nmodes && g->m[k].verdict != AOT_GOV_EXCLUDED) {
        struct aot_gov_mode *m = &g->m[k];
        if (t->ncut > t->nhas) {
            if (!m->tries)
                m->verdict = AOT_GOV_CUT;
            m->cut_ratio = t->cut_ratio;
            m->todo = 0;
        } else if (t->nhas) {
            aot_gov_apply(g, k, t->ratio, t->se2, t->cheap_all ? AOT_GOV_Z_CHEAP : AOT_GOV_Z,
                          t->ratio * g->vote.base_ns);
        }
    }
    aot_gov_proceed(g, t);
}
