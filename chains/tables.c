/*
 * tables.c: what chains/ gives the trace writer (src/trace.c, docs/trace-format.md): the
 * signature of every call and, at finalize, the "sig", "frame" and "chain" lines of the table.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Routed calls get their signature from chains.c (aot_trace_call_sig); every other call one of
 * (call site, function), made here when it returns.  Independent of AUTOOPT_CHAINS: a trace
 * taken with chains off still names its calls.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "chains.h"

const struct aot_ch_learner *aot_ch_learner_get(void);

static uint32_t aot_ch_trace_done(int fn, uint32_t sig, uint64_t ns)
{
    struct aot_ch_sig *s;

    if (sig == AOT_CH_NONE) {
        /* not a routed call: its signature is (call site, function) */
        struct aot_ch_key k;
        const void *frames[AOT_CH_MAX_DEPTH];
        const char *file;
        int nframes, line, created;
        memset(&k, 0, sizeof(k));
        k.site = aot_ch_site(0, aot_cfg.site_depth, frames, &nframes, &file, &line);
        k.fn = fn;
        s = aot_ch_sig_get(&k, frames, nframes, file, line, &created);
        if (s) {
            if (created)
                s->why = AOT_CH_NOT_P2P;
            s->calls++;
            sig = s->id;
        }
    }
    s = aot_ch_sig_by_id(sig);
    if (s)
        s->time_ns += ns;
    return sig;
}

/* The "frame" lines of signature id: module, offset and symbol of each frame of its site. */
static void aot_ch_trace_frames(struct aot_trace_text *t, uint32_t id,
                                const struct aot_ch_sig *s)
{
    for (int f = 0; f < s->nframes; f++) {
        const uintptr_t pc = (uintptr_t) s->frames[f];
        Dl_info di;
        char sym[512];

        if (!dladdr(s->frames[f], &di) || !di.dli_fname) {
            aot_trace_text_add(t, "frame\t%u\t%d\t?\t%#lx\t?\n", id, f, (unsigned long) pc);
            continue;
        }
        {
            const char *base = strrchr(di.dli_fname, '/');
            snprintf(sym, sizeof(sym), "%s+0x%lx",
                     di.dli_sname ? di.dli_sname : base ? base + 1 : di.dli_fname,
                     (unsigned long) (pc - (uintptr_t) (di.dli_sname ? di.dli_saddr
                                                                     : di.dli_fbase)));
        }
        aot_trace_text_add(t, "frame\t%u\t%d\t%s\t%#lx\t%s\n", id, f, di.dli_fname,
                           (unsigned long) (pc - (uintptr_t) di.dli_fbase),
                           aot_trace_clean(sym));
    }
}

/* The table lines of chains (docs/trace-format.md): "sig" and its "frame" lines for every
 * signature, then one "chain" line for every chain the learner made. */
static void aot_ch_trace_tables(struct aot_trace_text *t)
{
    const struct aot_ch_learner *L = aot_ch_learner_get();

    for (uint32_t id = 0; id < aot_ch_sig_count(); id++) {
        const struct aot_ch_sig *s = aot_ch_sig_by_id(id);
        const struct aot_ch_key *k = &s->key;
        char where[512];

        aot_ch_sig_where(s, where, sizeof(where));
        aot_trace_text_add(t, "sig\t%u\t%s\t%llu\t%llu\t%s\t%d\t%d\t%d\t%d\t%d\t%#lx\t%d\t%d\t%d"
                           "\t%d\t%#lx\t%d\t%s\n", id,
                           k->fn >= 0 && k->fn < AOT_FN_COUNT ? aot_function_names[k->fn] : "?",
                           (unsigned long long) s->calls, (unsigned long long) s->time_ns,
                           aot_trace_clean(where), (int) k->comm, k->dest, k->stag, k->scount,
                           (int) k->sdt, (unsigned long) (uintptr_t) k->sbuf, k->source,
                           k->rtag, k->rcount, (int) k->rdt,
                           (unsigned long) (uintptr_t) k->rbuf, s->why, aot_ch_why_text[s->why]);
        aot_ch_trace_frames(t, id, s);
    }
    for (int i = 0; L && i < L->nall; i++) {
        const struct aot_ch_chain *c = L->all[i];
        const char *state = c->disabled ? "disabled" : c->confirmed ? "confirmed" : "learning";

        aot_trace_text_add(t, "chain\t%u\t%s\t%d\t%d\t%llu\t%llu\t%llu\t", c->id, state,
                           c->reps, c->breaks, (unsigned long long) c->starts,
                           (unsigned long long) c->completions,
                           (unsigned long long) c->learned);
        for (int m = 0; m < c->n; m++)
            aot_trace_text_add(t, "%s%u", m ? "," : "", c->members[m]);
        aot_trace_text_add(t, "\n");
    }
}

static const struct aot_trace_namer aot_ch_namer = {
    .call_done = aot_ch_trace_done,
    .tables = aot_ch_trace_tables,
};

void aot_chains_trace(void)
{
    aot_ch_site_init();
    aot_trace_set_namer(&aot_ch_namer);
}
