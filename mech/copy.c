/*
 * copy.c: the copied-send mechanism: a send started from a private copy of its bytes (mech/).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Contract (aot_copy_start, aot_mech.h): the call returns once its send is under way from the
 * copy, as a buffered MPI_Send may; the program's bytes are free again at once.  The request
 * joins the native table (native_inline.h) and completes with it; the copy (struct
 * aot_copy_buf, one per call the policy knows) stays busy until then and is reused by the next
 * call once it is free, so a copy is allocated again only when the span grows.  MPI_Ssend is
 * never copied (its return means the message was matched).  Whether the mode pays is the
 * policy's question: each start records whether MPI had completed the send by the time the
 * call returned (sent, late).
 */
#include <string.h>

#include "aot_mem.h"
#include "native_inline.h"

static struct {
    int copied_sends, copied_late;
} aot_copy_ctr;

void aot_copy_init(int copied_sends, int copied_late)
{
    aot_copy_ctr.copied_sends = copied_sends;
    aot_copy_ctr.copied_late = copied_late;
}

int aot_copy_start(const struct aot_mech_call *c, int go, struct aot_copy_buf *b,
                   const struct aot_mech_span *sp, aot_mech_resolve_fn *resolve)
{
    const size_t span = (size_t) (sp->shi - sp->slo);
    MPI_Request *req;
    char *copy;
    int rc = MPI_SUCCESS, rc2, sent = 0;

    if (!(go & 1) || !b->ok || c->fn == AOT_FN_MPI_Ssend)
        return -1;
    if (b->busy || aot_native_nreqs + 1 > AOT_NATIVE_MAX_REQS)
        aot_native_complete();
    if (b->cap < span) {
        if (b->data)
            aot_mem_free(b->data, b->cap);
        b->data = aot_mem_alloc(span);
        b->cap = b->data ? span : 0;
        if (!b->data)
            return -1;
    }
    resolve(sp->slo, sp->shi, 0);
    memcpy(b->data, (const void *) sp->slo, span);
    /* the datatype addresses the copy as it addressed the program's buffer */
    copy = (char *) b->data - (sp->slo - (intptr_t) c->sbuf);
    req = &aot_native_reqs[aot_native_nreqs];
    rc = PMPI_Isend(copy, c->scount, c->sdt, c->dest, c->stag, c->comm, req);
    if (rc == MPI_SUCCESS) {
        aot_native_nreqs++;
        b->busy = 1;
        aot_native_held[aot_native_nheld++] = &b->busy;
        sent = 1;
    }
    aot_stats_add_caller(aot_copy_ctr.copied_sends, 1);
    if (go & 2) {
        resolve(sp->rlo, sp->rhi, 1);
        rc2 = PMPI_Recv(c->rbuf, c->rcount, c->rdt, c->source, c->rtag, c->comm, c->status);
        if (rc == MPI_SUCCESS)
            rc = rc2;
    } else if (c->fn != AOT_FN_MPI_Send && c->status != MPI_STATUS_IGNORE) {
        /* a receive side to MPI_PROC_NULL whose status is read: MPI's own answer */
        rc2 = PMPI_Recv(c->rbuf, c->rcount, c->rdt, c->source, c->rtag, c->comm, c->status);
        if (rc == MPI_SUCCESS)
            rc = rc2;
    }
    if (sent) {
        /* whether the copy bought anything: was the send still under way as the call
         * returns? (the policy's question) */
        int done = 0;
        PMPI_Test(req, &done, MPI_STATUS_IGNORE);
        b->sent++;
        b->late += !done;
        if (!done)
            aot_stats_add_caller(aot_copy_ctr.copied_late, 1);
    }
    aot_stats_optimized(c->fn);
    return rc;
}
