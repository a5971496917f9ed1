/*
 * govern.c: the benefit governor (aot_govern.h, docs/govern.md): windows of candidate modes
 * in turns with native, robust per-window statistics, a cost budget, re-checks.  This is its
 * core: the state, the exploration schedule, judging and settling windows, feeding periods.
 * The agreed verdicts (votes and tallies) are in govern_vote.c, the setters, queries and the
 * reason text in govern_query.c; govern_impl.h holds what the three share.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Pure: no MPI, no system calls, no clock, no allocation.  Everything lives in the caller's
 * struct aot_gov.
 */
#include <math.h>
#include <string.h>

#include "aot_govern.h"
#include "govern_impl.h"

/* A candidate that lost by more than this factor over whole windows sits out every other
 * scheduled re-check: its slot runs natively, as for a candidate passed over.  (One cut short
 * does not: a cut needs only two slow periods, which outliers can give.) */
#define AOT_GOV_FAR_LOSS 1.2
/* A mode whose prior (its expected extra cost per period) exceeds this share of native's
 * period is not tried: to pay it would have to save more than that share of the period by
 * overlapping communication, and a period that waits that long is rare (guarded chains on
 * shared memory, sor n=256: prior 27 us of a 46 us period, measured 1.4-1.7x native). */
#define AOT_GOV_PRIOR_SHARE 0.5
/* A native period this many times the shortest native one seen is taken for an interruption. */
#define AOT_GOV_INTERRUPT 8
/* A relative spread below this is timer resolution, not knowledge. */
#define AOT_GOV_MIN_SPREAD 0.005
/* The relative spread a site is assumed to have before its windows show it. */
#define AOT_GOV_PRIOR_SPREAD 0.05

void aot_gov_params_default(struct aot_gov_params *p)
{
    p->nmodes = 1;
    p->window = 4;
    p->warmup = 1;
    p->budget = 0.01;
    p->margin = 0.02;
    p->max_rechecks = 6;
    p->recheck_after = 256;
    p->allowance = 2.0;
    p->ledger = NULL;
    p->agree = 0;
    p->keep = 1;
}

static void aot_gov_sort(double *x, int n)
{
    for (int i = 1; i < n; i++) {
        double v = x[i];
        int j = i;
        for (; j > 0 && x[j - 1] > v; j--)
            x[j] = x[j - 1];
        x[j] = v;
    }
}

/* The level of a window: the mean of its faster half (from 8 periods on without the fastest
 * eighth), as online tuning's "best half plus one": interruptions only ever add time, so the
 * slow tail is the noise.  And its spread, from the same periods (so that interruptions do
 * not count unless they are most of the window): their mean absolute deviation from the level,
 * relative to the level, scaled to a standard deviation for normal noise (the factors below:
 * that deviation's mean for unit normal noise, by simulation).  Sorts x. */
static double aot_gov_stat(double *x, int n, double *spread)
{
    static const double unit[9] = {1, 1, 1, 0.424, 0.368, 0.451, 0.415, 0.461, 0.272};
    double sum = 0, level;
    int lo = n / 8, hi = (n + 1) / 2;

    aot_gov_sort(x, n);
    for (int i = lo; i < hi; i++)
        sum += x[i];
    level = sum / (hi - lo);
    sum = 0;
    for (int i = lo; i < hi; i++)
        sum += fabs(x[i] - level);
    *spread = hi - lo > 1 && level > 0 ? sum / (hi - lo) / (n <= 8 ? unit[n] : 0.28) / level : 0;
    if (*spread < AOT_GOV_MIN_SPREAD)
        *spread = AOT_GOV_MIN_SPREAD;
    return level;
}

/* The site's relative spread, pooled over its windows, starting from AOT_GOV_PRIOR_SPREAD as
 * if two windows had shown it: the first windows' spreads, from two periods each, can be near
 * zero by chance and would make the first verdicts overconfident. */
static double aot_gov_spread(const struct aot_gov *g)
{
    double prior = AOT_GOV_PRIOR_SPREAD * AOT_GOV_PRIOR_SPREAD;
    return sqrt((2 * prior + g->spread2) / (2 + g->nspread));
}

/* Every window is one slot of warmup + win occurrences, whatever happens in it, so that ranks
 * running the same loop switch modes at the same occurrences (aot_govern.h, "Aligned"). */
static int aot_gov_slot(const struct aot_gov *g)
{
    return g->p.warmup + g->win;
}

void aot_gov_open(struct aot_gov *g, int mode)
{
    g->wseen = 0;
    g->wmode = mode;
    g->wn = 0;
    g->wnwarm = 0;
    g->wloss = 0;
    g->cur = mode;
}

/* The order of the candidates in an exploration: the current winner first (to confirm it),
 * then those never measured, then the losers by their ratio, those cut short last; in index
 * order at the first exploration. */
static double aot_gov_rank(const struct aot_gov_mode *m)
{
    switch (m->verdict) {
    case AOT_GOV_WON: return m->ratio;
    case AOT_GOV_LOST: return 20 + m->ratio;
    case AOT_GOV_CUT: return 40 + m->cut_ratio;
    default: return 10;
    }
}

static void aot_gov_start(struct aot_gov *g, int win)
{
    int any = 0;

    g->norder = 0;
    for (int k = 1; k < g->p.nmodes; k++) {
        int i = g->norder++;
        for (; i > 0 && aot_gov_rank(&g->m[g->order[i - 1]]) > aot_gov_rank(&g->m[k]); i--)
            g->order[i] = g->order[i - 1];
        g->order[i] = k;
    }
    g->win = win < AOT_GOV_MAX_WINDOW ? win : AOT_GOV_MAX_WINDOW;
    for (int k = 1; k < g->p.nmodes; k++) {
        struct aot_gov_mode *m = &g->m[k];
        m->todo = m->verdict != AOT_GOV_EXCLUDED;
        m->tries = 0;
        m->rsum = m->r2sum = m->se2sum = m->psum = 0;
        any |= m->todo;
    }
    g->nat_sum = 0;
    g->nat_windows = 0;
    g->pend = 0;
    g->cursor = 0;
    g->fill = 0;
    g->votes = 0;
    g->cut_mode = 0;
    g->exploring = any;
    if (any)
        aot_gov_open(g, 0);
}

void aot_gov_init(struct aot_gov *g, const struct aot_gov_params *p)
{
    memset(g, 0, sizeof(*g));
    g->p = *p;
    if (g->p.nmodes < 1)
        g->p.nmodes = 1;
    if (g->p.nmodes > AOT_GOV_MAX_MODES)
        g->p.nmodes = AOT_GOV_MAX_MODES;
    if (g->p.window < 1)
        g->p.window = 1;
    if (g->p.window > AOT_GOV_MAX_WINDOW)
        g->p.window = AOT_GOV_MAX_WINDOW;
    if (g->p.warmup < 0)
        g->p.warmup = 0;
    if (g->p.warmup > AOT_GOV_MAX_WARMUP)
        g->p.warmup = AOT_GOV_MAX_WARMUP;
    for (int k = 0; k < AOT_GOV_MAX_MODES; k++)
        g->m[k].prior_ns = -1;
    aot_gov_start(g, g->p.window);
}

/* What a candidate must be able to lose before it may start: a period like its latest
 * window's typical one, at least a tenth of native's period; for one never run, its prior if
 * it has one, else (nothing bounds its cost yet) the whole allowance and twice the typical loss
 * of the worst mode seen; at least its prior. */
static double aot_gov_need(const struct aot_gov *g, int k)
{
    double need = 0.1 * g->nat_level;

    if (g->m[k].ran) {
        need = fmax(need, g->m[k].loss_last);
    } else if (g->m[k].prior_ns >= 0) {
        /* its calibrated cost bounds what its first period is expected to lose */
    } else {
        double worst = 0;
        for (int j = 1; j < g->p.nmodes; j++)
            worst = fmax(worst, g->m[j].loss_last);
        need = g->p.allowance * g->nat_level + 2 * worst;
    }
    return fmax(need, g->m[k].prior_ns);
}

static double aot_gov_allowed(const struct aot_gov *g)
{
    return g->p.budget * g->total_ns + g->p.allowance * g->nat_level;
}

/* What the budget has covered so far: this governor's loss, or with a shared ledger every
 * sharer's (two sites of one loop explore the same run time, so they share one budget). */
static double aot_gov_spent(const struct aot_gov *g)
{
    return g->p.ledger ? *g->p.ledger : g->loss_ns;
}

void aot_gov_lose(struct aot_gov *g, double ns)
{
    g->loss_ns += ns;
    if (g->p.ledger)
        *g->p.ledger += ns;
}

/* Whether this exploration's verdicts are agreed across ranks (a triggered one is local). */
static int aot_gov_agreeing(const struct aot_gov *g)
{
    return g->p.agree && !g->trigger_round;
}

/* Why candidate k may not run its next window now: 0 it may; 1 its prior exceeds the share of
 * native's period; 2 a far loser sitting out this re-check; 3 the budget left does not cover it;
 * 4 excluded. */
int aot_gov_bar(const struct aot_gov *g, int k)
{
    const struct aot_gov_mode *m = &g->m[k];

    if (m->verdict == AOT_GOV_EXCLUDED)
        return 4;
    if (m->prior_ns > AOT_GOV_PRIOR_SHARE * g->nat_level)
        return 1;
    if (g->rechecks % 2 == 1 && !g->trigger_round && m->verdict == AOT_GOV_LOST &&
        m->ratio > AOT_GOV_FAR_LOSS)
        return 2;
    /* the decided mode at its re-check costs nothing over not exploring: it runs anyway */
    if (k != g->keep && aot_gov_allowed(g) - aot_gov_spent(g) < aot_gov_need(g, k))
        return 3;
    return 0;
}

/* The next candidate of this exploration: the latest one again until it has a verdict, then
 * the others in their order; 0 when none is left.  *passed counts the candidates passed over
 * (prior or budget): each leaves its slot and the native slot after it to native filler.
 * With a tally t, what the ranks agreed decides: a candidate some rank still wants is
 * considered (t->todo_any), and it runs only if every rank could run it (t->ok_all), so that
 * every rank passes over the same candidates. */
static int aot_gov_next(struct aot_gov *g, int *passed, const struct aot_gov_tally *t)
{
    int nc = g->p.nmodes - 1;

    *passed = 0;
    for (int j = 0; j < nc; j++) {
        int k = g->order[(g->cursor + j) % nc];
        struct aot_gov_mode *m = &g->m[k];
        int todo = t && k != t->mode ? (int) (t->todo_any >> k) & 1 : m->todo;
        if (!todo)
            continue;
        int bar = aot_gov_bar(g, k);
        if (t)
            bar = (t->ok_all >> k) & 1 ? 0 : bar ? bar : 3;
        if (bar == 4) {
            ++*passed;                  /* excluded here, wanted elsewhere */
            continue;
        }
        if (bar == 1) {
            m->verdict = AOT_GOV_SKIPPED;
            m->todo = 0;
            ++*passed;
            continue;
        }
        if (bar == 2) {
            m->todo = 0;                /* keeps its verdict */
            ++*passed;
            continue;
        }
        if (bar == 3) {
            /* a candidate between two verdicts keeps its provisional one, a candidate
             * measured before keeps its verdict */
            if (m->verdict == AOT_GOV_UNTRIED)
                m->verdict = AOT_GOV_WAITING;
            m->todo = 0;
            ++*passed;
            continue;
        }
        m->todo = 1;
        g->cursor = (g->cursor + j) % nc;
        return k;
    }
    return 0;
}

/* The decided phase begins, in mode; native's latest level is its reference. */
void aot_gov_decide(struct aot_gov *g, int mode)
{
    g->exploring = 0;
    g->fill = 0;
    g->lag = 0;
    g->chosen = mode;
    g->since = 0;
    g->ref_level = g->nat_level;
    aot_gov_open(g, mode);
}

static void aot_gov_finish(struct aot_gov *g)
{
    int best = 0, ran = 0;

    for (int k = 1; k < g->p.nmodes; k++) {
        if (g->m[k].verdict == AOT_GOV_WON && (!best || g->m[k].ratio < g->m[best].ratio))
            best = k;
        ran |= g->m[k].verdict != AOT_GOV_WAITING && g->m[k].verdict != AOT_GOV_SKIPPED &&
               g->m[k].verdict != AOT_GOV_EXCLUDED;
    }
    /* a re-check in which the budget let no candidate run does not count */
    if (!ran && g->rechecks > 0 && !g->trigger_round)
        g->rechecks--;
    /* The first exploration chose native, but a candidate was faster on average beyond the
     * margin without showing it beyond the noise (its windows ran out, or the budget): the
     * first re-check comes after an eighth of the usual wait, so that a likely winner is not
     * left out for recheck_after occurrences.  Only with agreed verdicts, which are the same
     * on every rank, so that the ranks' re-checks stay in step. */
    g->soon = 0;
    if (!best && g->rechecks == 0 && !g->trigger_round && g->p.agree)
        for (int k = 1; k < g->p.nmodes; k++)
            if (g->m[k].verdict == AOT_GOV_LOST && g->m[k].unclear &&
                g->m[k].ratio < 1 - g->p.margin)
                g->soon = 1;
    if (g->nat_windows)
        g->m[0].period_ns = g->nat_sum / g->nat_windows;
    aot_gov_decide(g, best);
}

double aot_gov_z(const struct aot_gov *g, int k)
{
    const double prior = g->m[k].prior_ns;

    return prior >= 0 && prior <= g->p.margin * g->nat_level ? AOT_GOV_Z_CHEAP : AOT_GOV_Z;
}

/* A candidate's window scored against the native windows before (b) and after (a) it: its
 * ratio and that ratio's squared standard error. */
static void aot_gov_measure(const struct aot_gov *g, double la, int na, double *r, double *se2)
{
    double level = 0.5 * (la + g->pend_nlevel);
    double sn = aot_gov_spread(g), sc;

    *r = g->pend_level / level;
    sc = fmax(sn, g->pend_spread) * *r;
    /* The noise of a window's level: the site's spread pooled over all its windows (four
     * periods say little about it), a candidate's own if larger.  1.36: the variance of the
     * level (the faster half's mean) over a mean's, for normal noise. */
    *se2 = 1.36 * (sc * sc / g->pend_n + sn * sn / (na + g->pend_nb));
}

/* The verdict on candidate k after a window of ratio r (squared SE se2, z standard errors,
 * period_ns its typical period). */
void aot_gov_apply(struct aot_gov *g, int k, double r, double se2, double z,
                          double period_ns)
{
    struct aot_gov_mode *m = &g->m[k];
    double ratio, se, thr = 1 - g->p.margin;

    m->se2sum += se2;
    m->rsum += r;
    m->r2sum += r * r;
    m->psum += period_ns;
    m->tries++;
    ratio = m->rsum / m->tries;
    se = sqrt(m->se2sum) / m->tries;
    if (m->tries > 1) {
        /* the scatter of the window ratios, shrunk towards the spread's estimate (weight 2)
         * as two or three windows say little */
        double var = fmax(m->r2sum - m->tries * ratio * ratio, 0) / m->tries;
        se = sqrt((2 * se * se + var) / (m->tries + 1));
    }
    m->ratio = ratio;
    m->period_ns = m->psum / m->tries;
    m->unclear = 0;
    if (k == g->keep && !(ratio - z * se > thr) && !(ratio + z * se < thr)) {
        /* the decided mode at a scheduled re-check, neither clearly faster nor clearly
         * slower than it needs to be: it stays while its estimate is below native's, and
         * goes otherwise, without further windows (judged afresh like the others, a winner
         * that was not clearly faster in one window of a noisy site went back to native at
         * about every second re-check) */
        m->unclear = 1;
        m->verdict = ratio < 1 ? AOT_GOV_WON : AOT_GOV_LOST;
        m->todo = 0;
    } else if (ratio + z * se < thr && m->tries < 2 && ratio > thr - 4 * g->p.margin) {
        /* a narrow win in one window: one more window confirms it (a rank's noise alone
         * gives such wins now and then, and a false winner runs until it is caught) */
        m->verdict = AOT_GOV_LOST;
        m->unclear = 1;
        m->todo = 1;
    } else if (ratio + z * se < thr) {
        m->verdict = AOT_GOV_WON;
        m->todo = 0;
    } else if (ratio - z * se > thr) {
        m->verdict = AOT_GOV_LOST;
        m->todo = 0;
    } else {
        m->verdict = AOT_GOV_LOST;
        m->unclear = 1;
        /* futility: a candidate that on average does not beat native by the margin would
         * need its next windows to turn round; it stops after two windows, and after one at
         * a re-check (it had its windows at the first exploration, and re-checks' windows
         * are longer) */
        m->todo = m->tries < AOT_GOV_MAX_TRIES &&
                  !(m->tries >= (g->rechecks > 0 ? 1 : 2) && ratio >= thr);
    }
}

static void aot_gov_judge(struct aot_gov *g, int k, double la, int na)
{
    double r, se2;

    aot_gov_measure(g, la, na, &r, &se2);
    aot_gov_apply(g, k, r, se2, aot_gov_z(g, k), g->pend_level);
}

/* The typical loss per period of the candidate window so far: its lower median period (an
 * interruption in it is not the candidate's cost) over native's level, at least 0. */
static double aot_gov_window_loss(const struct aot_gov *g)
{
    double x[AOT_GOV_MAX_WARMUP + AOT_GOV_MAX_WINDOW];
    int n = 0;

    for (int i = 0; i < g->wnwarm; i++)
        x[n++] = g->wwarm[i];
    for (int i = 0; i < g->wn; i++)
        x[n++] = g->wbuf[i];
    if (!n)
        return 0;
    aot_gov_sort(x, n);
    return fmax(x[(n - 1) / 2] - g->nat_low, 0);
}

/* A candidate window ends: its loss, counted period by period while it ran, is replaced by
 * its typical loss times its periods, and kept as what its next window must be able to pay. */
static void aot_gov_settle(struct aot_gov *g)
{
    double est = aot_gov_window_loss(g);

    aot_gov_lose(g, est * (g->wnwarm + g->wn) - g->wloss);
    g->wloss = 0;
    g->m[g->wmode].loss_last = est;
}

/* A window that ended before its slot: the rest occurrences of the slot run natively,
 * unscored, and the native window opens with the next slot. */
static void aot_gov_fill_rest(struct aot_gov *g, int rest)
{
    if (rest > 0) {
        g->fill = rest;
        g->fill_next = 0;
    }
}

/* Ends the candidate window now: clearly slower, or over the budget. */
static void aot_gov_cut(struct aot_gov *g, double ns)
{
    struct aot_gov_mode *m = &g->m[g->wmode];

    aot_gov_settle(g);
    /* a candidate between two verdicts keeps its provisional one: not clearly faster */
    if (!m->tries)
        m->verdict = AOT_GOV_CUT;
    m->cut_ratio = g->nat_level > 0 ? ns / g->nat_level : 0;
    m->todo = 0;
    m->scored += (uint64_t) g->wn;
    if (!m->tries)
        m->round_scored = (uint64_t) g->wn;
    g->pend = 0;
    g->cut_mode = g->wmode;
    g->cut_last = m->cut_ratio;
    int rest = aot_gov_slot(g) - g->wseen;
    aot_gov_open(g, 0);
    aot_gov_fill_rest(g, rest);
}

/* After the native window: the next candidate, native filler first for each one passed over. */
void aot_gov_proceed(struct aot_gov *g, const struct aot_gov_tally *t)
{
    int passed, k = aot_gov_next(g, &passed, t);

    if (passed && k) {
        aot_gov_open(g, 0);
        g->fill = 2 * passed * aot_gov_slot(g);
        g->fill_next = k;
    } else if (k) {
        aot_gov_open(g, k);
    } else {
        aot_gov_finish(g);
        g->lag = 2 * passed * aot_gov_slot(g);
    }
}

static void aot_gov_close(struct aot_gov *g)
{
    double spread, nmax = g->wbuf[0];
    int n = g->wn, k = g->wmode;

    if (!n) {
        /* every period of the window was an interruption: nothing measured; a candidate
         * keeps its turn, native goes on to the next */
        g->pend = 0;
        if (k)
            aot_gov_open(g, 0);
        else if (aot_gov_agreeing(g))
            aot_gov_cast(g, 0, 0, 0);
        else
            aot_gov_proceed(g, NULL);
        return;
    }

    for (int i = 1; i < n; i++)
        nmax = fmax(nmax, g->wbuf[i]);
    double level = aot_gov_stat(g->wbuf, n, &spread);

    if (n > 1) {
        g->spread2 += spread * spread;
        g->nspread++;
    }

    if (k == 0) {
        const int agree = aot_gov_agreeing(g);
        double r = 0, se2 = 0;
        if (g->pend && agree)
            aot_gov_measure(g, level, n, &r, &se2);
        else if (g->pend)
            aot_gov_judge(g, g->pend, level, n);
        if (!agree)
            g->pend = 0;
        g->nat_valid = 1;
        g->nat_level = level;
        g->nat_low = g->nat_windows ? fmin(g->nat_low, level) : level;
        g->nat_spread = spread;
        g->nat_n = n;
        g->nat_max = nmax;
        g->nat_sum += level;
        g->nat_windows++;
        g->m[0].scored += (uint64_t) n;
        g->m[0].round_scored = (uint64_t) g->nat_windows * (uint64_t) n;
        if (agree)
            aot_gov_cast(g, g->pend != 0, r, se2);
        else
            aot_gov_proceed(g, NULL);
        return;
    }
    aot_gov_settle(g);
    if (!g->m[k].tries)
        g->m[k].round_scored = 0;
    g->m[k].scored += (uint64_t) n;
    g->m[k].round_scored += (uint64_t) n;
    g->pend = k;
    g->pend_level = level;
    g->pend_spread = spread;
    g->pend_n = n;
    g->pend_nlevel = g->nat_level;
    g->pend_nspread = g->nat_spread;
    g->pend_nb = g->nat_n;
    aot_gov_open(g, 0);
}

/* The first scored periods (two, so that one interruption does not decide) far above
 * everything native showed: no need to see more. */
static int aot_gov_clearly_worse(const struct aot_gov *g)
{
    double far = g->p.margin + fmax(1.0, 6 * aot_gov_spread(g)), t = g->wbuf[0];

    if (g->wn > 1)
        t = fmin(t, g->wbuf[1]);
    return t > g->nat_level * (1 + far) && t > 1.1 * g->nat_max;
}

/* The window running is a re-check of a candidate that lost by more than AOT_GOV_FAR_LOSS
 * over whole windows, and its periods so far are as far above native's level. */
static int aot_gov_still_far(const struct aot_gov *g)
{
    const struct aot_gov_mode *m = &g->m[g->wmode];
    double x[AOT_GOV_MAX_WINDOW], spread;

    if (m->verdict != AOT_GOV_LOST || m->unclear || m->tries || !(m->ratio > AOT_GOV_FAR_LOSS))
        return 0;
    memcpy(x, g->wbuf, sizeof(x[0]) * (size_t) g->wn);
    return aot_gov_stat(x, g->wn, &spread) > AOT_GOV_FAR_LOSS * g->nat_level;
}

/* The scheduled re-explorations, counted in occurrences from the decision, plus the slots of
 * the candidates the exploration passed over at its end (lag): a rank that ran them decided
 * that much later, and both start the re-check together. */
static uint64_t aot_gov_recheck_due(const struct aot_gov *g)
{
    if (g->rechecks >= g->p.max_rechecks || g->rechecks >= 62)
        return UINT64_MAX;              /* none left */
    if (g->soon)
        return (g->p.recheck_after + 7) / 8 + (uint64_t) g->lag;
    return (g->p.recheck_after << g->rechecks) + (uint64_t) g->lag;
}

static void aot_gov_recheck(struct aot_gov *g)
{
    if (g->since >= aot_gov_recheck_due(g)) {
        g->rechecks++;
        g->soon = 0;
        aot_gov_start(g, g->p.window << (g->rechecks < 8 ? g->rechecks : 8));
        g->trigger_round = 0;
        g->keep = g->p.keep ? g->chosen : 0;
    }
}

static void aot_gov_settled(struct aot_gov *g, double ns)
{
    g->since++;
    /* (a seeded governor has no native reference before its first re-check: nothing to watch
     * against) */
    if (g->chosen && !g->p.agree && g->ref_level > 0) {
        /* the chosen mode, watched in blocks: back to exploring when it lost its advantage
         * (not when the ranks agree: one rank's exploration alone would cast no votes, and
         * the others would wait for its votes in vain; the scheduled re-checks remain) */
        if (++g->wseen > g->p.warmup)
            g->wbuf[g->wn++] = ns;
        if (g->wn == g->win) {
            double spread, level = aot_gov_stat(g->wbuf, g->wn, &spread);
            g->wn = 0;
            double noise = AOT_GOV_Z * 1.25 * spread / sqrt(g->win);
            if (level > g->ref_level * (1 - 0.5 * g->p.margin) &&
                level > g->m[g->chosen].period_ns * (1 + noise)) {
                g->triggers++;
                aot_gov_start(g, g->win);
                g->trigger_round = 1;
                g->keep = 0;
                return;
            }
        }
    }
    aot_gov_recheck(g);
}

/* One occurrence of native filler; at its end the mode it waited for opens. */
static void aot_gov_fill(struct aot_gov *g)
{
    if (--g->fill)
        return;
    if (g->fill_next < 0)
        aot_gov_finish(g);
    else
        aot_gov_open(g, g->fill_next);
}

int aot_gov_period(struct aot_gov *g, uint64_t ns)
{
    double t = ns ? (double) ns : 1, est;   /* a level of 0 would divide by zero */
    int k = g->cur, scored = 0;

    g->periods++;
    g->total_ns += t;
    if (!g->exploring) {
        aot_gov_settled(g, t);
        return g->cur;
    }
    if (g->holding) {
        g->held++;
        return g->cur;
    }
    if (g->fill) {
        aot_gov_fill(g);
        return g->cur;
    }
    if (k) {
        double loss = fmax(t - g->nat_low, 0);
        g->m[k].ran = 1;
        g->wloss += loss;
        aot_gov_lose(g, loss);
    }
    if (++g->wseen <= g->p.warmup) {
        g->wwarm[g->wnwarm++] = t;
    } else {
        g->wbuf[g->wn++] = t;
        scored = 1;
    }
    if (k) {
        /* the budget left would not cover another period like this window's typical one, and
         * that one is slower than native */
        est = aot_gov_window_loss(g);
        if (k != g->keep && est > g->p.margin * g->nat_level &&
            aot_gov_allowed(g) - aot_gov_spent(g) < est) {
            aot_gov_cut(g, t);
            return g->cur;
        }
        /* not when the ranks agree: a rank that cut its window alone would run natively
         * while the others measure the candidate, which may pay only when all run it (the
         * budget still cuts a window that costs too much) */
        if (scored && g->wn == (g->win < 2 ? g->win : 2) && !aot_gov_agreeing(g) &&
            aot_gov_clearly_worse(g)) {
            aot_gov_cut(g, t);
            return g->cur;
        }
        if (scored && g->wn == g->p.window && g->win > g->p.window && aot_gov_still_far(g)) {
            /* a far loser still far: its window is as long as the first exploration's, the
             * rest of its slot is native filler */
            int rest = aot_gov_slot(g) - g->wseen;
            aot_gov_close(g);
            aot_gov_fill_rest(g, rest);
            return g->cur;
        }
    }
    if (g->wseen >= aot_gov_slot(g))
        aot_gov_close(g);
    return g->cur;
}

/* Interruptions (aot_govern.h): the program did other work between two occurrences (another
 * phase, output, a benchmark's other turns).  A second one in a row is scored: a mode that slows
 * every period is measured, at the cost of one period.  Only native periods set the shortest:
 * guarded chains return at once, and after their 25-40 us periods on the emulated cluster (sor
 * n=128, native 90-400 us) every native period above 0.2-0.3 ms was an interruption, and so
 * were most periods of a later 33-occurrence guarded window, unscored and uncharged (it ran
 * 2.5x native; its ledger counted 0.3 ms of about 17).  A candidate's stall beyond 8 native
 * periods is still taken for one: charging it charged the benchmark's other turns as well, and
 * the budget they spent kept guarded from sor n=2048 (docs/govern.md, "Tried and not kept"). */
int aot_gov_interrupted(uint64_t *min_ns, int *skipped, uint64_t period_ns, int ran)
{
    if (!ran && (!*min_ns || period_ns < *min_ns))
        *min_ns = period_ns;
    if (*min_ns && period_ns > AOT_GOV_INTERRUPT * *min_ns && !*skipped) {
        *skipped = 1;
        return 1;
    }
    *skipped = 0;
    return 0;
}

int aot_gov_skip(struct aot_gov *g)
{
    g->periods++;
    if (g->holding) {
        g->held++;
    } else if (!g->exploring) {
        g->since++;
        aot_gov_recheck(g);
    } else if (g->fill) {
        aot_gov_fill(g);
    } else if (++g->wseen >= aot_gov_slot(g)) {
        aot_gov_close(g);
    }
    return g->cur;
}

uint64_t aot_gov_quiet(const struct aot_gov *g)
{
    const uint64_t due = aot_gov_recheck_due(g);

    /* native filler of an exploration: unscored, so it need not be timed; the occurrence that
     * ends it (aot_gov_fill) opens the next window and is fed as usual; a governor holding for
     * its tally is asked at every occurrence */
    if (g->holding)
        return 0;
    if (g->exploring)
        return g->fill > 1 ? (uint64_t) g->fill - 1 : 0;
    if (g->chosen)
        return 0;
    if (due == UINT64_MAX)
        return UINT64_MAX;
    /* aot_gov_recheck starts the re-check at the period that makes since reach due */
    return due > g->since + 1 ? due - g->since - 1 : 0;
}

void aot_gov_credit(struct aot_gov *g, uint64_t n, double ns)
{
    g->periods += n;
    /* the governed time is the site's: a stretch that spanned other work (another phase, a
     * benchmark's other turns) counts as n native periods, as aot_gov_skip leaves an
     * interruption out */
    if (g->nat_valid && ns > (double) n * g->nat_level)
        ns = (double) n * g->nat_level;
    g->total_ns += ns;
    if (!g->exploring)
        g->since += n;
    else if (g->fill > 0)
        g->fill -= (int) (n < (uint64_t) g->fill ? n : (uint64_t) g->fill - 1);
}
