/*
 * p2p_run.c: the governor of one safe chain (chains/chains.c) or one converting call site
 * (paging/sites.c), set up, seeded from the cache of decisions, kept at the end and shown in
 * the statistics the same way for both (aot_p2p_run.h).  Each occurrence's mode is chosen by
 * the inline aot_run_next.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>

#include "aot_agree.h"
#include "aot_calib.h"
#include "aot_p2p_run.h"
#include "aot_stats.h"

void aot_run_init(struct aot_p2p_run *r, unsigned excluded, int guards, size_t pages)
{
    struct aot_gov_params p;

    aot_gov_params_default(&p);
    p.nmodes = AOT_MODE_N;
    p.ledger = aot_explore_ledger();
    p.agree = aot_agree_votes_on();
    aot_gov_init(&r->gov, &p);
    for (int m = 1; m < AOT_MODE_N; m++)
        if (excluded & (1u << m))
            aot_gov_exclude(&r->gov, m);
    aot_calib_measure();
    if (aot_calib.measured)
        aot_explore_prior(&r->gov, AOT_MODE_GUARDED, guards * aot_calib_guard_cost(pages));
    r->governed = 1;
}

void aot_run_seed(struct aot_p2p_run *r, MPI_Comm comm, uint64_t signature)
{
    int size = 0;

    if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return;
    aot_cache_p2p_key(r->cache_key, sizeof(r->cache_key), size, signature);
    aot_cache_p2p_seed(&r->gov, r->cache_key, aot_p2p_mode_names);
}

void aot_run_unfit(struct aot_p2p_run *r, int why)
{
    r->unfit = why;
    if (r->mode != AOT_MODE_NATIVE && r->runs[r->mode])
        aot_run_instead(r, AOT_MODE_NATIVE);    /* the call that could not convert */
    for (int m = 1; m < AOT_MODE_N; m++)
        aot_gov_exclude(&r->gov, m);
}

void aot_run_keep(const struct aot_p2p_run *r)
{
    if (r->governed && !r->unfit)
        aot_cache_p2p_keep(&r->gov, r->cache_key, aot_p2p_mode_names);
}

void aot_run_why(const struct aot_p2p_run *r, int forced, char *buf, size_t len)
{
    if (forced >= 0)
        snprintf(buf, len, "forced by AUTOOPT_P2P_MODE");
    else if (r->unfit)
        snprintf(buf, len, "not convertible here: %s",
                 aot_stats_reason_text((enum aot_pass_reason) r->unfit));
    else if (r->governed)
        aot_gov_reason(&r->gov, aot_p2p_mode_names, buf, len);
    else
        snprintf(buf, len, "no call measured");
}

int aot_run_shown_mode(const struct aot_p2p_run *r, int forced)
{
    return forced < 0 && r->governed ? aot_gov_choice(&r->gov) : r->mode;
}

void aot_run_text_row(FILE *f, const struct aot_p2p_run *r, int forced)
{
    char why[256];

    aot_run_why(r, forced, why, sizeof(why));
    fprintf(f, "%s %llu/%llu/%llu; %s\n", aot_p2p_mode_names[aot_run_shown_mode(r, forced)],
            (unsigned long long) r->runs[0], (unsigned long long) r->runs[1],
            (unsigned long long) r->runs[2], why);
}

void aot_run_json_row(FILE *f, const struct aot_p2p_run *r, int forced, const char *counts)
{
    char why[256];

    aot_run_why(r, forced, why, sizeof(why));
    fprintf(f, "\"mode\": \"%s\", "
               "\"%s\": {\"native\": %llu, \"copied\": %llu, \"guarded\": %llu}, "
               "\"period_us\": {\"native\": %.1f, \"copied\": %.1f, \"guarded\": %.1f}, "
               "\"why\": ",
            aot_p2p_mode_names[aot_run_shown_mode(r, forced)], counts,
            (unsigned long long) r->runs[0], (unsigned long long) r->runs[1],
            (unsigned long long) r->runs[2],
            r->governed ? aot_gov_median_ns(&r->gov, 0) / 1e3 : 0.0,
            r->governed ? aot_gov_median_ns(&r->gov, 1) / 1e3 : 0.0,
            r->governed ? aot_gov_median_ns(&r->gov, 2) / 1e3 : 0.0);
    aot_stats_json_string(f, why);
}
