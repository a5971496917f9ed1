/*
 * coll_util.c: datatype, buffer and synchronisation helpers shared by the algorithms.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Derived datatypes: algorithms address element i of a buffer at buf + i*extent and let MPI
 * move the data with the user's datatype wherever they can.  Where data has to go through a
 * contiguous staging buffer (Bruck, mesh, packed allgatherv) it is packed with PMPI_Pack on
 * MPI_COMM_SELF, or copied with memcpy when the type is contiguous.  Both give MPICH's packed
 * form (the bytes of the type map in order) on a homogeneous system.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_pmpi.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_coll_predefined(MPI_Datatype dt)
{
    static const MPI_Datatype known[] = {
        MPI_DOUBLE, MPI_FLOAT, MPI_INT, MPI_CHAR, MPI_BYTE, MPI_LONG, MPI_LONG_LONG,
        MPI_UNSIGNED, MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG, MPI_UNSIGNED_CHAR,
        MPI_SIGNED_CHAR, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_LONG_DOUBLE, MPI_INT8_T,
        MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
        MPI_UINT64_T, MPI_C_BOOL, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_INTEGER,
        MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_LOGICAL,
        MPI_CHARACTER,
    };

    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (dt == known[i])
            return 1;
    return 0;
}

/* The last predefined datatype's figures, per thread (coll_util.h, aot_coll_type_size): a
 * predefined datatype never changes and is never freed.  The three queries cost MPICH 4.0.2
 * about 250 instructions, half of what a routed broadcast of a few bytes spent in autoopt on
 * each call. */
__thread MPI_Datatype aot_dt_last __attribute__((tls_model("initial-exec"))) = MPI_DATATYPE_NULL;
__thread struct aot_dt aot_dt_last_figures __attribute__((tls_model("initial-exec")));

int aot_coll_dt(MPI_Datatype dt, struct aot_dt *d)
{
    int rc;

    if (dt == aot_dt_last && dt != MPI_DATATYPE_NULL) {
        *d = aot_dt_last_figures;
        return MPI_SUCCESS;
    }
    rc = PMPI_Type_size(dt, &d->size);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_extent(dt, &d->lb, &d->extent);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_true_extent(dt, &d->true_lb, &d->true_extent);
    d->contig = rc == MPI_SUCCESS && (MPI_Aint) d->size == d->true_extent
                && d->extent == d->true_extent;
    if (rc == MPI_SUCCESS && aot_coll_predefined(dt)) {
        aot_dt_last = dt;
        aot_dt_last_figures = *d;
    }
    return rc;
}

int aot_coll_type_size_miss(MPI_Datatype dt, int *size)
{
    struct aot_dt d;
    int rc;

    if (!aot_coll_predefined(dt))
        return PMPI_Type_size(dt, size);
    rc = aot_coll_dt(dt, &d);         /* fills the cache: asked once per predefined type */
    *size = d.size;
    return rc;
}

/* Scratch buffers.  glibc serves large requests with mmap (or trims the heap after them), so
 * a staging buffer malloc'ed and freed in every call costs a page fault per page every time --
 * measured: 3.7 ms instead of 0.9 ms for a 1 MiB Rabenseifner variation 1 on 2 ranks, 22 % of
 * the time in exc_page_fault.  Freed buffers therefore stay in a small cache (at most
 * AOT_SCRATCH_SLOTS buffers, AOT_SCRATCH_MAX bytes in all) and are handed out again.  No lock:
 * collectives run only below MPI_THREAD_MULTIPLE (src/runtime.c), so one thread at a time. */
#define AOT_SCRATCH_SLOTS 8
#define AOT_SCRATCH_MAX ((size_t) 64 << 20)
#define AOT_SCRATCH_HEADER 64      /* keeps the payload 64-byte aligned */

static struct { char *block; size_t size; } aot_scratch[AOT_SCRATCH_SLOTS];
static size_t aot_scratch_bytes;

void *aot_coll_alloc(size_t bytes)
{
    int best = -1;
    char *block;

    for (int i = 0; i < AOT_SCRATCH_SLOTS; i++)
        if (aot_scratch[i].block && aot_scratch[i].size >= bytes
            && (best < 0 || aot_scratch[i].size < aot_scratch[best].size))
            best = i;
    if (best >= 0) {
        block = aot_scratch[best].block;
        aot_scratch_bytes -= aot_scratch[best].size;
        aot_scratch[best].block = NULL;
        return block + AOT_SCRATCH_HEADER;
    }
    if (posix_memalign((void **) &block, AOT_SCRATCH_HEADER, AOT_SCRATCH_HEADER + bytes) != 0)
        return NULL;
    memcpy(block, &bytes, sizeof(bytes));
    return block + AOT_SCRATCH_HEADER;
}

void aot_coll_free(void *p)
{
    char *block;
    size_t size;
    int slot = -1;

    if (!p)
        return;
    block = (char *) p - AOT_SCRATCH_HEADER;
    memcpy(&size, block, sizeof(size));
    if (size <= AOT_SCRATCH_MAX) {
        /* an empty slot, else the smallest cached block if it is smaller than this one */
        for (int i = 0; i < AOT_SCRATCH_SLOTS; i++)
            if (!aot_scratch[i].block) {
                slot = i;
                break;
            }
        if (slot < 0) {
            slot = 0;
            for (int i = 1; i < AOT_SCRATCH_SLOTS; i++)
                if (aot_scratch[i].size < aot_scratch[slot].size)
                    slot = i;
            if (aot_scratch[slot].size >= size) {
                free(block);
                return;
            }
            aot_scratch_bytes -= aot_scratch[slot].size;
            free(aot_scratch[slot].block);
            aot_scratch[slot].block = NULL;
        }
        /* make room under the byte cap, largest first */
        while (aot_scratch_bytes + size > AOT_SCRATCH_MAX) {
            int big = -1;
            for (int i = 0; i < AOT_SCRATCH_SLOTS; i++)
                if (aot_scratch[i].block
                    && (big < 0 || aot_scratch[i].size > aot_scratch[big].size))
                    big = i;
            if (big < 0)
                break;
            aot_scratch_bytes -= aot_scratch[big].size;
            free(aot_scratch[big].block);
            aot_scratch[big].block = NULL;
        }
        aot_scratch[slot].block = block;
        aot_scratch[slot].size = size;
        aot_scratch_bytes += size;
        return;
    }
    free(block);
}

void aot_coll_scratch_release(void)
{
    for (int i = 0; i < AOT_SCRATCH_SLOTS; i++) {
        free(aot_scratch[i].block);
        aot_scratch[i].block = NULL;
    }
    aot_scratch_bytes = 0;
}

void *aot_coll_tmp(MPI_Aint count, const struct aot_dt *d, void **raw)
{
    MPI_Aint step = d->extent > d->true_extent ? d->extent : d->true_extent;
    size_t bytes = count > 0 ? (size_t) (count * step) : 0;

    *raw = aot_coll_alloc(bytes ? bytes : 1);
    if (*raw == NULL)
        return NULL;
    return (char *) *raw - d->true_lb;
}

void *aot_coll_tmp_padded(MPI_Aint count, MPI_Aint used, const struct aot_dt *d, void **raw)
{
    MPI_Aint step = d->extent > d->true_extent ? d->extent : d->true_extent;
    void *buf = aot_coll_tmp(count, d, raw);

    if (buf && count > used)
        memset((char *) *raw + used * step, 0, (size_t) ((count - used) * step));
    return buf;
}

void aot_coll_name_setting(const char *var, char *err, size_t errlen)
{
    size_t n = strlen(var) + 1, len = strlen(err);

    if (errlen <= n + 1)
        return;
    if (len > errlen - n - 1)
        len = errlen - n - 1;
    memmove(err + n, err, len);
    err[n + len] = '\0';
    memcpy(err, var, n - 1);
    err[n - 1] = '=';
}

int aot_coll_pack(const void *buf, int count, MPI_Datatype dt, void *out, MPI_Aint bytes)
{
    struct aot_dt d;
    int pos = 0, rc;

    if (count == 0)
        return MPI_SUCCESS;
    rc = aot_coll_dt(dt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    if (d.contig) {
        memcpy(out, (const char *) buf + d.true_lb, (size_t) count * (size_t) d.size);
        return MPI_SUCCESS;
    }
    return PMPI_Pack(buf, count, dt, out, (int) bytes, &pos, MPI_COMM_SELF);
}

int aot_coll_unpack(const void *in, MPI_Aint bytes, void *buf, int count, MPI_Datatype dt)
{
    struct aot_dt d;
    int pos = 0, rc;

    if (count == 0)
        return MPI_SUCCESS;
    rc = aot_coll_dt(dt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    if (d.contig) {
        memcpy((char *) buf + d.true_lb, in, (size_t) count * (size_t) d.size);
        return MPI_SUCCESS;
    }
    return PMPI_Unpack(in, (int) bytes, &pos, buf, count, dt, MPI_COMM_SELF);
}

int aot_coll_copy(const void *src, int scount, MPI_Datatype sdt, void *dst, int rcount,
                  MPI_Datatype rdt)
{
    struct aot_dt s, r;
    MPI_Aint bytes;
    void *tmp;
    int rc;

    if ((src == dst && scount == rcount && sdt == rdt) || scount == 0 || rcount == 0)
        return MPI_SUCCESS;
    rc = aot_coll_dt(sdt, &s);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_dt(rdt, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    bytes = (MPI_Aint) scount * s.size;
    if ((MPI_Aint) rcount * r.size < bytes)
        return MPI_ERR_TRUNCATE;
    if (s.contig)
        return aot_coll_unpack((const char *) src + s.true_lb, bytes, dst, rcount, rdt);
    if (r.contig)
        return aot_coll_pack(src, scount, sdt, (char *) dst + r.true_lb, bytes);
    tmp = aot_coll_alloc((size_t) bytes);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    rc = aot_coll_pack(src, scount, sdt, tmp, bytes);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_unpack(tmp, bytes, dst, rcount, rdt);
    aot_coll_free(tmp);
    return rc;
}

int aot_coll_reduce_local(const void *in, void *inout, int count, MPI_Datatype dt, MPI_Op op)
{
    if (count <= 0)
        return MPI_SUCCESS;
    return PMPI_Reduce_local(in, inout, count, dt, op);
}

int aot_coll_waitall(int n, MPI_Request *req)
{
    return aot_waitall_ignore(n, req);
}

void aot_coll_cancel_all(int n, MPI_Request *req)
{
    for (int i = 0; i < n; i++)
        if (req[i] != MPI_REQUEST_NULL) {
            PMPI_Cancel(&req[i]);
            PMPI_Wait(&req[i], MPI_STATUS_IGNORE);
        }
}

int aot_coll_sync_step(MPI_Comm comm, enum aot_coll_sync mode, long n, int step, int sendto,
                       int recvfrom)
{
    if (step <= 1)
        return MPI_SUCCESS;
    switch (mode) {
    case AOT_SYNC_LIGHT:
        /* The receiver of this step tells its sender that it is ready; data flows after. */
        return PMPI_Sendrecv(NULL, 0, MPI_BYTE, recvfrom, AOT_TAG_SYNC, NULL, 0, MPI_BYTE,
                             sendto, AOT_TAG_SYNC, comm, MPI_STATUS_IGNORE);
    case AOT_SYNC_MPI:
        return PMPI_Barrier(comm);
    case AOT_SYNC_EVERY_N:
        if (n > 0 && (step - 1) % n == 0)
            return PMPI_Barrier(comm);
        return MPI_SUCCESS;
    case AOT_SYNC_NONE:
        break;
    }
    return MPI_SUCCESS;
}

int aot_coll_mesh_radix(int p, int dims, int *radix)
{
    int c = 1;

    if (dims == 2) {
        while (c * c < p)
            c++;
        radix[0] = c;
        radix[1] = (p + c - 1) / c;
        return 2;
    }
    while (c * c * c < p)
        c++;
    radix[0] = c;
    radix[1] = c;
    radix[2] = (p + c * c - 1) / (c * c);
    return 3;
}

int aot_coll_mpi_version(char *buf, int len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;

    if (PMPI_Get_library_version(v, &n) != MPI_SUCCESS)
        return -1;
    v[strcspn(v, "\n")] = '\0';
    for (char *c = v; *c; c++)
        if (*c == '\t')
            *c = ' ';
    snprintf(buf, (size_t) len, "%s", v);
    return 0;
}
