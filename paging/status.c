/*
 * status.c: the statuses of converted receives, filled lazily, and the count queries that
 * resolve them.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A receive that completes within the call fills the status as MPI would.  Otherwise
 * MPI_SOURCE and MPI_TAG are filled at once (only receives with a specific source and tag, or
 * MPI_STATUS_IGNORE, are converted), MPI_ERROR is left alone (as MPICH does for single-request
 * calls), and the private count fields hold a cookie naming an entry of the lazy-status table.
 * MPI_Get_count / MPI_Get_elements (routed here) recognise the cookie, wait for the request if
 * needed and answer from the real status.  The cookie, not the address, names the entry, so a
 * copy of the status works too; the status itself is never written after the call returned (it
 * may be on a stack frame that is gone).
 */
#include "paging.h"

#define AOT_PG_LAZY_SLOTS (1 << 20)
#define AOT_PG_LAZY_MAGIC 0x5A000000

struct aot_pg_lazy {
    int gen;
    int slot;                 /* pending request, or -1 once st holds the answer */
    int slot_gen;
    MPI_Status st;
};
static struct aot_pg_lazy *aot_pg_lazy;
static int aot_pg_lazy_next, aot_pg_lazy_gen = 1;

static int aot_pg_lazy_cookie_hi(int gen)
{
    return AOT_PG_LAZY_MAGIC | ((gen & 0x7ffff) << 1);   /* bit 0 (cancelled) stays clear */
}

/* The lazy entry a status names, or NULL when it is an ordinary status. */
static struct aot_pg_lazy *aot_pg_lazy_of(const MPI_Status *status)
{
    struct aot_pg_lazy *e;
    if (!aot_pg_lazy || status == MPI_STATUS_IGNORE || status == NULL)
        return NULL;
    if ((status->count_hi_and_cancelled & 0x7f000001) != AOT_PG_LAZY_MAGIC)
        return NULL;
    if (status->count_lo < 0 || status->count_lo >= AOT_PG_LAZY_SLOTS)
        return NULL;
    e = &aot_pg_lazy[status->count_lo];
    if (aot_pg_lazy_cookie_hi(e->gen) != status->count_hi_and_cancelled)
        return NULL;
    return e;
}

int aot_pg_lazy_init(void)
{
    aot_pg_lazy = aot_mem_zalloc((size_t) AOT_PG_LAZY_SLOTS * sizeof(*aot_pg_lazy));
    return aot_pg_lazy ? 0 : -1;
}

void aot_pg_lazy_retire(int lazy, int i, const MPI_Status *st)
{
    struct aot_pg_lazy *e;
    if (lazy < 0)
        return;
    e = &aot_pg_lazy[lazy];
    if (e->slot == i && e->slot_gen == aot_pg_gen[i]) {
        e->st = *st;
        e->slot = -1;
    }
}

/* The status of a converted receive: filled as MPI_Recv would when it completed (MPI_ERROR is
 * left alone, as MPICH does), else public fields now and the count through a lazy entry. */
void aot_pg_status_set(MPI_Status *status, int i, int gen, int source, int tag)
{
    struct aot_pg_lazy *e;
    int idx;

    if (status == MPI_STATUS_IGNORE)
        return;
    if (aot_pg_gen[i] != gen) {
        const MPI_Status *st = &aot_pg_final_st[i];
        status->count_lo = st->count_lo;
        status->count_hi_and_cancelled = st->count_hi_and_cancelled;
        status->MPI_SOURCE = st->MPI_SOURCE;
        status->MPI_TAG = st->MPI_TAG;
        return;
    }
    idx = aot_pg_lazy_next;
    aot_pg_lazy_next = (aot_pg_lazy_next + 1) % AOT_PG_LAZY_SLOTS;
    if (aot_pg_lazy_next == 0)
        aot_pg_lazy_gen++;
    e = &aot_pg_lazy[idx];
    e->gen = aot_pg_lazy_gen;
    e->slot = i;
    e->slot_gen = gen;
    aot_pg_reqs[i].lazy = idx;
    status->count_lo = idx;
    status->count_hi_and_cancelled = aot_pg_lazy_cookie_hi(e->gen);
    status->MPI_SOURCE = source;
    status->MPI_TAG = tag;
    AOT_PG_COUNT(lazy_statuses, 1);
}

/* ---------------------------------------------------------------- the count queries */

/* The real status behind a status the program holds (waiting for its request if needed). */
static const MPI_Status *aot_pg_status_resolve(const MPI_Status *status)
{
    struct aot_pg_lazy *e = aot_pg_lazy_of(status);
    if (!e)
        return status;
    if (e->slot >= 0 && aot_pg_gen[e->slot] == e->slot_gen)
        aot_pg_wait_one(e->slot);
    aot_pg_disarm_if_idle();
    AOT_PG_COUNT(lazy_resolved, 1);
    return &e->st;
}

int aot_paging_get_count(const MPI_Status *status, MPI_Datatype dt, int *count)
{
    return PMPI_Get_count(aot_pg_status_resolve(status), dt, count);
}

int aot_paging_get_elements(const MPI_Status *status, MPI_Datatype dt, int *count)
{
    return PMPI_Get_elements(aot_pg_status_resolve(status), dt, count);
}

int aot_paging_get_elements_x(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count)
{
    return PMPI_Get_elements_x(aot_pg_status_resolve(status), dt, count);
}

int aot_paging_get_count_c(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count)
{
    return PMPI_Get_count_c(aot_pg_status_resolve(status), dt, count);
}
