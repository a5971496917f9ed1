/*
 * learn.c: the chain learner and the chain-mode state machine.  Pure logic: no MPI, no system
 * calls beyond the arena; unit-tested in tests/unit/test_chains_learn.c.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Input, in program order: the calls that can be chain members (by signature id), the calls
 * that cannot (boundaries), and touches (the program touched a buffer of the current phase
 * after the phase's latest call, before the next MPI call).
 *
 * Learning.  A phase is a run of member calls with no touch and no boundary between them.  When
 * a phase of two or more calls ends, it is compared with the candidate chain that starts with
 * the same signature: the same members in the same order count one more repetition, different
 * ones replace the candidate.  A candidate seen `confirm` times in a row is confirmed, unless
 * the allowed() callback rejects it (buffers that overlap).
 *
 * Chain mode.  A call whose signature starts a confirmed chain starts it (FIRST); each further
 * call must be the next member (NEXT, and LAST for the final one, after which the caller waits
 * for every request of the chain).  Anything else breaks the chain (BROKE): the caller completes
 * the outstanding requests, the chain goes back to learning, and after max_breaks breaks it is
 * disabled for good.  A single call is never a chain: there would be nothing to overlap.
 *
 * Without touch probes (split_on_repeat: safe chains, whose modes are correct whatever the
 * program touches between members), a phase also ends where the signature that began it comes
 * again, so a loop of member calls with no other MPI call in it is cut into its repetitions.
 */
#include <string.h>

#include "chains.h"

static void aot_ch_emit(struct aot_ch_learner *L, enum aot_ch_event ev,
                        const struct aot_ch_chain *c)
{
    if (L->event)
        L->event(L->arg, ev, c);
}

void aot_ch_learner_init(struct aot_ch_learner *L, int confirm, int max_breaks)
{
    memset(L, 0, sizeof(*L));
    L->confirm = confirm < 1 ? 1 : confirm;
    L->max_breaks = max_breaks < 0 ? 0 : max_breaks;
}

void aot_ch_learner_free(struct aot_ch_learner *L)
{
    HASH_CLEAR(hh, L->by_first);
    for (int i = 0; i < L->nall; i++)
        aot_mem_free(L->all[i], sizeof(*L->all[i]));
    aot_mem_free(L->all, (size_t) L->capall * sizeof(*L->all));
    L->all = NULL;
    L->nall = L->capall = 0;
    L->active = NULL;
}

struct aot_ch_chain *aot_ch_chain_of(const struct aot_ch_learner *L, uint32_t first)
{
    struct aot_ch_chain *c = NULL;
    HASH_FIND(hh, L->by_first, &first, sizeof(first), c);
    return c;
}

static struct aot_ch_chain *aot_ch_chain_new(struct aot_ch_learner *L, uint32_t first)
{
    struct aot_ch_chain *c;

    if (L->nall == L->capall) {
        int cap = L->capall ? 2 * L->capall : 64;
        struct aot_ch_chain **all = aot_mem_zalloc((size_t) cap * sizeof(*all));
        if (!all)
            return NULL;
        if (L->nall)
            memcpy(all, L->all, (size_t) L->nall * sizeof(*all));
        aot_mem_free(L->all, (size_t) L->capall * sizeof(*L->all));
        L->all = all;
        L->capall = cap;
    }
    c = aot_mem_zalloc(sizeof(*c));
    if (!c)
        return NULL;
    c->id = (uint32_t) L->nall;
    c->first = first;
    L->all[L->nall++] = c;
    HASH_ADD(hh, L->by_first, first, sizeof(c->first), c);
    return c;
}

/* The phase ended: compare it with its candidate. */
static void aot_ch_phase_end(struct aot_ch_learner *L)
{
    int n = L->nphase;
    struct aot_ch_chain *c;

    L->nphase = 0;
    if (L->overflow || n < 2) {
        L->overflow = 0;
        return;
    }
    c = aot_ch_chain_of(L, L->phase[0]);
    if (!c) {
        c = aot_ch_chain_new(L, L->phase[0]);
        if (!c)
            return;
    } else if (c->disabled || c->confirmed) {
        return;
    }
    if (c->n == n && memcmp(c->members, L->phase, (size_t) n * sizeof(uint32_t)) == 0) {
        c->reps++;
    } else {
        c->n = n;
        memcpy(c->members, L->phase, (size_t) n * sizeof(uint32_t));
        c->reps = 1;
    }
    c->learned++;
    aot_ch_emit(L, AOT_CH_EV_LEARN, c);
    if (c->reps >= L->confirm) {
        if (L->allowed && !L->allowed(L->arg, c)) {
            c->disabled = 1;
            aot_ch_emit(L, AOT_CH_EV_REJECT, c);
        } else {
            c->confirmed = 1;
            aot_ch_emit(L, AOT_CH_EV_CONFIRM, c);
        }
    }
}

static void aot_ch_break(struct aot_ch_learner *L)
{
    struct aot_ch_chain *c = L->active;

    L->active = NULL;
    L->pos = 0;
    c->breaks++;
    c->confirmed = 0;
    c->reps = 0;
    aot_ch_emit(L, AOT_CH_EV_BREAK, c);
    if (L->max_breaks > 0 && c->breaks >= L->max_breaks) {
        c->disabled = 1;
        aot_ch_emit(L, AOT_CH_EV_DISABLE, c);
    }
}

int aot_ch_learn_call(struct aot_ch_learner *L, uint32_t sig)
{
    return aot_ch_learn_call_known(L, sig, NULL);
}

int aot_ch_learn_call_known(struct aot_ch_learner *L, uint32_t sig, struct aot_ch_chain *first_of)
{
    int broke = 0;
    struct aot_ch_chain *c;

    if (L->active) {
        c = L->active;
        if (c->members[L->pos] == sig) {
            if (++L->pos < c->n)
                return AOT_CH_NEXT;
            c->completions++;
            L->active = NULL;
            L->pos = 0;
            aot_ch_emit(L, AOT_CH_EV_END, c);
            return AOT_CH_LAST;
        }
        aot_ch_break(L);
        broke = AOT_CH_BROKE;
    }
    c = first_of ? first_of : aot_ch_chain_of(L, sig);
    if (c && c->confirmed && !c->disabled && c->n >= 2) {
        aot_ch_phase_end(L);
        L->active = c;
        L->pos = 1;
        c->starts++;
        aot_ch_emit(L, AOT_CH_EV_START, c);
        return AOT_CH_FIRST | broke;
    }
    if (L->split_on_repeat && L->nphase > 0 && L->phase[0] == sig)
        aot_ch_phase_end(L);        /* the sequence begins again: one phase per repetition */
    if (L->nphase < AOT_CH_MAX_MEMBERS)
        L->phase[L->nphase++] = sig;
    else
        L->overflow = 1;
    return AOT_CH_PLAIN | broke;
}

int aot_ch_learn_boundary(struct aot_ch_learner *L)
{
    int broke = 0;
    if (L->active) {
        aot_ch_break(L);
        broke = AOT_CH_BROKE;
    }
    aot_ch_phase_end(L);
    return broke;
}

int aot_ch_learn_touch(struct aot_ch_learner *L)
{
    if (L->active)
        return 1;
    aot_ch_phase_end(L);
    return 0;
}
