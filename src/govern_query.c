/*
 * govern_query.c: the benefit governor's setters and queries (aot_govern.h): what its caller
 * sets outside the periods (exclusions, charges, priors, a seed from the cache of decisions),
 * what it reads back (mode, verdict, choice, periods, loss), and the reason text of the
 * statistics.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Separate from the core (govern.c): none of it feeds a period, and the reason text is the
 * governor's only printing.  Pure, like the core (snprintf into the caller's buffer).
 */
#include <stdio.h>

#include "aot_govern.h"
#include "govern_impl.h"

void aot_gov_exclude(struct aot_gov *g, int mode)
{
    if (mode < 1 || mode >= g->p.nmodes)
        return;
    g->m[mode].verdict = AOT_GOV_EXCLUDED;
    g->m[mode].todo = 0;
    if (g->keep == mode)
        g->keep = 0;                /* a re-check's holds must not run it */
    if (g->exploring && g->pend == mode)
        g->pend = 0;
    if (g->exploring && g->cur == mode) {
        aot_gov_open(g, 0);
    } else if (!g->exploring && g->chosen == mode) {
        g->chosen = 0;
        aot_gov_open(g, 0);
    }
}

int aot_gov_rule_out(struct aot_gov *g, int mode, const char *why)
{
    if (mode < 1 || mode >= g->p.nmodes || g->exploring || g->holding ||
        g->m[mode].verdict == AOT_GOV_EXCLUDED)
        return 0;
    aot_gov_exclude(g, mode);
    g->m[mode].why_out = why;
    return 1;
}

void aot_gov_charge(struct aot_gov *g, double ns)
{
    if (ns > 0)
        aot_gov_lose(g, ns);
}

void aot_gov_prior(struct aot_gov *g, int mode, double extra_ns)
{
    if (mode >= 1 && mode < g->p.nmodes)
        g->m[mode].prior_ns = extra_ns;
}

int aot_gov_mode(const struct aot_gov *g)
{
    return g->cur;
}

int aot_gov_seed(struct aot_gov *g, int mode)
{
    struct aot_gov_mode *m;

    if (mode < 0 || mode >= g->p.nmodes || g->periods || !g->exploring)
        return 0;
    m = &g->m[mode];
    if (mode > 0 && m->verdict == AOT_GOV_EXCLUDED)
        return 0;
    if (mode > 0) {
        /* a winner not measured in this run: first in the re-check's order, "kept: not clearly
         * slower" until measured */
        m->verdict = AOT_GOV_WON;
        m->unclear = 1;
        m->ratio = 1 - g->p.margin;
    }
    for (int k = 1; k < g->p.nmodes; k++)
        g->m[k].todo = 0;
    g->seeded = 1;
    aot_gov_decide(g, mode);          /* no native level yet: its reference is 0 */
    return 1;
}

int aot_gov_verdict(const struct aot_gov *g)
{
    if (g->exploring && g->rechecks == 0 && !g->triggers && !g->seeded)
        return -1;
    return g->chosen;
}

int aot_gov_decided(const struct aot_gov *g)
{
    return !g->exploring;
}

int aot_gov_choice(const struct aot_gov *g)
{
    return g->chosen;
}

double aot_gov_median_ns(const struct aot_gov *g, int mode)
{
    return mode >= 0 && mode < g->p.nmodes ? g->m[mode].period_ns : 0;
}

uint64_t aot_gov_scored(const struct aot_gov *g, int mode)
{
    return mode >= 0 && mode < g->p.nmodes ? g->m[mode].scored : 0;
}

double aot_gov_loss_ns(const struct aot_gov *g)
{
    return g->loss_ns;
}

double aot_gov_total_ns(const struct aot_gov *g)
{
    return g->total_ns;
}

/* "180 us", "2.5 us", "12.3 ms" */
static void aot_gov_time(char *buf, size_t len, double ns)
{
    if (ns >= 1e7)
        snprintf(buf, len, "%.1f ms", ns * 1e-6);
    else if (ns >= 1e4)
        snprintf(buf, len, "%.0f us", ns * 1e-3);
    else
        snprintf(buf, len, "%.1f us", ns * 1e-3);
}

int aot_gov_reason(const struct aot_gov *g, const char *const *names, char *buf, size_t len)
{
    size_t n = 0;
    int total = 0;

#define AOT_GOV_PUT(...)                                                                  \
    do {                                                                                  \
        int w_ = snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, __VA_ARGS__);  \
        if (w_ > 0) {                                                                     \
            n += (size_t) w_;                                                             \
            total += w_;                                                                  \
        }                                                                                 \
    } while (0)

    if (len)
        buf[0] = '\0';
    if (g->seeded && g->rechecks == 0 && !g->triggers) {
        AOT_GOV_PUT("%s from the cache of an earlier run, not re-checked yet",
                    names[g->chosen]);
        if (len && n >= len)
            buf[len - 1] = '\0';
        return total;
    }
    if (g->exploring)
        AOT_GOV_PUT("exploring: ");
    else if (g->p.nmodes == 1)
        AOT_GOV_PUT("no candidate modes");
    for (int k = 1; k < g->p.nmodes; k++) {
        const struct aot_gov_mode *m = &g->m[k];
        char a[32], b[32];
        if (k > 1)
            AOT_GOV_PUT("; ");
        switch (m->verdict) {
        case AOT_GOV_UNTRIED:
            AOT_GOV_PUT("%s not tried yet", names[k]);
            break;
        case AOT_GOV_EXCLUDED:
            if (!m->why_out)
                AOT_GOV_PUT("%s not possible here", names[k]);
            else if (m->round_scored)
                AOT_GOV_PUT("%s %.2fx %s (%llu periods), left out: %s", names[k], m->ratio,
                            m->ratio >= 1 ? "slower than native" : "native",
                            (unsigned long long) m->round_scored, m->why_out);
            else
                AOT_GOV_PUT("%s left out: %s", names[k], m->why_out);
            break;
        case AOT_GOV_WON:
        case AOT_GOV_LOST:
            if (m->ratio >= 1)
                AOT_GOV_PUT("%s %.2fx slower than native (%llu periods)", names[k], m->ratio,
                            (unsigned long long) m->round_scored);
            else
                AOT_GOV_PUT("%s %.2fx native (%llu periods%s)", names[k], m->ratio,
                            (unsigned long long) m->round_scored,
                            !m->unclear                   ? ""
                            : m->verdict == AOT_GOV_WON ? ", kept: not clearly slower"
                                                          : ", not clearly faster");
            break;
        case AOT_GOV_CUT:
            AOT_GOV_PUT("%s cut short at %.1fx native", names[k], m->cut_ratio);
            break;
        case AOT_GOV_SKIPPED:
            aot_gov_time(a, sizeof(a), m->prior_ns);
            aot_gov_time(b, sizeof(b), g->nat_level);
            AOT_GOV_PUT("%s not tried: its calibrated cost %s exceeds half the %s period",
                        names[k], a, b);
            break;
        default:
            AOT_GOV_PUT("%s not tried yet: waits for exploration budget", names[k]);
            break;
        }
    }
#undef AOT_GOV_PUT
    if (len && n >= len)
        buf[len - 1] = '\0';
    return total;
}
