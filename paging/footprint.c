/*
 * footprint.c: the exact bytes a datatype touches.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A datatype is flattened once, through MPI_Type_get_envelope / MPI_Type_get_contents, into the
 * byte ranges of one element in typemap order; the cached layout keeps them sorted and merged
 * (a set of bytes), with the datatype's lb, extent and size.  The footprint of (buf, count) is
 * that set repeated every extent.  A column of a row-major grid (a vector of one element per
 * row) is thus one small range per row, not the rows in between.
 *
 * Supported combiners: named, dup, contiguous, vector, hvector, indexed, hindexed,
 * indexed_block, hindexed_block, struct, resized, subarray.  Anything else (darray, the f90
 * types) is flattened by unpacking a buffer of 0xff bytes into a zeroed copy of its true extent
 * and reading off which bytes changed, when the true extent is at most AOT_PG_PROBE_MAX.
 * A layout with more than AOT_PG_MAX_RANGES ranges is not supported (the call passes through).
 *
 * The cache is a uthash table keyed by the handle.  A derived datatype carries an attribute
 * whose delete callback drops the entry, so a handle that MPI reuses after MPI_Type_free is
 * flattened anew.
 */
#include <stdlib.h>
#include <string.h>

#include "paging.h"

#define uthash_malloc(sz) aot_mem_alloc(sz)
#define uthash_free(ptr, sz) aot_mem_free((ptr), (sz))
#include <uthash.h>

#define AOT_PG_MAX_RANGES (1 << 20)
#define AOT_PG_PROBE_MAX ((MPI_Aint) 64 << 20)

struct aot_pg_vec {
    struct aot_pg_range *r;
    int n, cap;
    int overflow;
};

struct aot_pg_layout_entry {
    MPI_Datatype dt;
    struct aot_pg_layout L;
    UT_hash_handle hh;
};

static struct aot_pg_layout_entry *aot_pg_layouts;
static int aot_pg_keyval = MPI_KEYVAL_INVALID;

static void aot_pg_vec_free(struct aot_pg_vec *v)
{
    aot_mem_free(v->r, (size_t) v->cap * sizeof(*v->r));
    v->r = NULL;
    v->n = v->cap = 0;
}

/* Appends [lo, hi), merging with the previous range when it continues it (typemap order). */
static void aot_pg_vec_push(struct aot_pg_vec *v, intptr_t lo, intptr_t hi)
{
    if (v->overflow || hi <= lo)
        return;
    if (v->n && v->r[v->n - 1].hi == lo) {
        v->r[v->n - 1].hi = hi;
        return;
    }
    if (v->n == v->cap) {
        int cap = v->cap ? 2 * v->cap : 16;
        struct aot_pg_range *r;
        if (cap > AOT_PG_MAX_RANGES) {
            v->overflow = 1;
            return;
        }
        r = aot_mem_alloc((size_t) cap * sizeof(*r));
        if (!r) {
            v->overflow = 1;
            return;
        }
        if (v->n)
            memcpy(r, v->r, (size_t) v->n * sizeof(*r));
        aot_mem_free(v->r, (size_t) v->cap * sizeof(*r));
        v->r = r;
        v->cap = cap;
    }
    v->r[v->n].lo = lo;
    v->r[v->n].hi = hi;
    v->n++;
}

static void aot_pg_vec_append(struct aot_pg_vec *v, const struct aot_pg_vec *old, intptr_t shift)
{
    for (int i = 0; i < old->n && !v->overflow; i++)
        aot_pg_vec_push(v, old->r[i].lo + shift, old->r[i].hi + shift);
    if (old->overflow)
        v->overflow = 1;
}

static int aot_pg_cmp_range(const void *a, const void *b)
{
    const struct aot_pg_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int aot_pg_ranges_normalize(struct aot_pg_range *r, int n)
{
    int sorted = 1, m = 0;

    for (int i = 1; i < n && sorted; i++)
        if (r[i].lo < r[i - 1].lo)
            sorted = 0;
    if (!sorted)
        qsort(r, (size_t) n, sizeof(*r), aot_pg_cmp_range);
    for (int i = 0; i < n; i++) {
        if (r[i].hi <= r[i].lo)
            continue;
        if (m && r[i].lo <= r[m - 1].hi) {
            if (r[i].hi > r[m - 1].hi)
                r[m - 1].hi = r[i].hi;
        } else {
            r[m++] = r[i];
        }
    }
    return m;
}

int aot_pg_ranges_meet(const struct aot_pg_range *r, int n, intptr_t lo, intptr_t hi)
{
    int a = 0, b = n;

    /* first range whose end is beyond lo */
    while (a < b) {
        int mid = a + (b - a) / 2;
        if (r[mid].hi <= lo)
            a = mid + 1;
        else
            b = mid;
    }
    return a < n && r[a].lo < hi;
}

static int aot_pg_is_named(MPI_Datatype dt)
{
    int ni, na, nd, comb;
    PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb);
    return comb == MPI_COMBINER_NAMED;
}

static int aot_pg_flatten(MPI_Datatype dt, struct aot_pg_vec *out);

/* Flattens old into tmp and returns its extent; frees old when get_contents made it. */
static int aot_pg_flatten_old(MPI_Datatype old, struct aot_pg_vec *tmp, MPI_Aint *extent)
{
    MPI_Aint lb;
    int rc;

    PMPI_Type_get_extent(old, &lb, extent);
    rc = aot_pg_flatten(old, tmp);
    if (!aot_pg_is_named(old))
        PMPI_Type_free(&old);
    return rc;
}

/* Unpacks 0xff bytes into a zeroed copy of the true extent and collects the changed bytes. */
static int aot_pg_flatten_probe(MPI_Datatype dt, struct aot_pg_vec *out)
{
    MPI_Aint tlb, text;
    int psize = 0, pos = 0, rc = -1;
    unsigned char *scratch, *packed;

    PMPI_Type_get_true_extent(dt, &tlb, &text);
    if (text < 0 || text > AOT_PG_PROBE_MAX || PMPI_Pack_size(1, dt, MPI_COMM_SELF, &psize) != MPI_SUCCESS)
        return -1;
    scratch = aot_mem_zalloc((size_t) text + 1);
    packed = aot_mem_alloc((size_t) psize + 1);
    if (scratch && packed) {
        memset(packed, 0xff, (size_t) psize);
        if (PMPI_Unpack(packed, psize, &pos, scratch - tlb, 1, dt, MPI_COMM_SELF) == MPI_SUCCESS) {
            for (MPI_Aint i = 0; i < text; i++)
                if (scratch[i])
                    aot_pg_vec_push(out, tlb + i, tlb + i + 1);
            rc = 0;
        }
    }
    aot_mem_free(scratch, (size_t) text + 1);
    aot_mem_free(packed, (size_t) psize + 1);
    return rc;
}

/* One element of dt at displacement 0, in typemap order, appended to out. */
static int aot_pg_flatten(MPI_Datatype dt, struct aot_pg_vec *out)
{
    int ni, na, nd, comb, rc = 0;
    int *ints = NULL;
    MPI_Aint *aints = NULL;
    MPI_Datatype *types = NULL;
    struct aot_pg_vec tmp = { 0 };
    MPI_Aint ext = 0;

    PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) {
        int size;
        PMPI_Type_size(dt, &size);
        aot_pg_vec_push(out, 0, size);
        return 0;
    }
    ints = aot_mem_alloc((size_t) (ni + 1) * sizeof(int));
    aints = aot_mem_alloc((size_t) (na + 1) * sizeof(MPI_Aint));
    types = aot_mem_alloc((size_t) (nd + 1) * sizeof(MPI_Datatype));
    if (!ints || !aints || !types) {
        rc = -1;
        goto out;
    }
    PMPI_Type_get_contents(dt, ni, na, nd, ints, aints, types);

    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:          /* the ranges stay; lb and extent are queried */
        rc = aot_pg_flatten_old(types[0], out, &ext);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        rc = aot_pg_flatten_old(types[0], &tmp, &ext);
        for (int k = 0; k < ints[0] && !out->overflow; k++)
            aot_pg_vec_append(out, &tmp, (intptr_t) k * ext);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        rc = aot_pg_flatten_old(types[0], &tmp, &ext);
        for (int i = 0; i < ints[0] && !out->overflow; i++) {
            intptr_t base = comb == MPI_COMBINER_VECTOR ? (intptr_t) i * ints[2] * ext
                                                        : (intptr_t) i * aints[0];
            for (int j = 0; j < ints[1]; j++)
                aot_pg_vec_append(out, &tmp, base + (intptr_t) j * ext);
        }
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
        rc = aot_pg_flatten_old(types[0], &tmp, &ext);
        for (int i = 0; i < ints[0] && !out->overflow; i++) {
            intptr_t base = comb == MPI_COMBINER_INDEXED ? (intptr_t) ints[1 + ints[0] + i] * ext
                                                         : (intptr_t) aints[i];
            for (int j = 0; j < ints[1 + i]; j++)
                aot_pg_vec_append(out, &tmp, base + (intptr_t) j * ext);
        }
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        rc = aot_pg_flatten_old(types[0], &tmp, &ext);
        for (int i = 0; i < ints[0] && !out->overflow; i++) {
            intptr_t base = comb == MPI_COMBINER_INDEXED_BLOCK ? (intptr_t) ints[2 + i] * ext
                                                               : (intptr_t) aints[i];
            for (int j = 0; j < ints[1]; j++)
                aot_pg_vec_append(out, &tmp, base + (intptr_t) j * ext);
        }
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < ints[0]; i++) {
            struct aot_pg_vec t = { 0 };
            if (aot_pg_flatten_old(types[i], &t, &ext) != 0)
                rc = -1;
            for (int j = 0; j < ints[1 + i] && !out->overflow; j++)
                aot_pg_vec_append(out, &t, (intptr_t) aints[i] + (intptr_t) j * ext);
            aot_pg_vec_free(&t);
        }
        break;
    case MPI_COMBINER_SUBARRAY: {
        /* ints: ndims, sizes[], subsizes[], starts[], order */
        int nd2 = ints[0], *sizes = ints + 1, *sub = ints + 1 + nd2, *start = ints + 1 + 2 * nd2;
        int order = ints[1 + 3 * nd2];
        int idx[32] = { 0 };
        intptr_t stride[32];
        if (nd2 < 1 || nd2 > 32) {
            if (!aot_pg_is_named(types[0]))
                PMPI_Type_free(&types[0]);
            rc = -1;
            break;
        }
        rc = aot_pg_flatten_old(types[0], &tmp, &ext);
        /* stride of each dimension in elements; the fastest dimension varies first */
        if (order == MPI_ORDER_C) {
            stride[nd2 - 1] = 1;
            for (int d = nd2 - 2; d >= 0; d--)
                stride[d] = stride[d + 1] * sizes[d + 1];
        } else {
            stride[0] = 1;
            for (int d = 1; d < nd2; d++)
                stride[d] = stride[d - 1] * sizes[d - 1];
        }
        for (int d = 0; d < nd2; d++)
            if (sub[d] == 0)
                goto out;
        for (;;) {
            intptr_t off = 0;
            int d;
            for (d = 0; d < nd2; d++)
                off += (intptr_t) (start[d] + idx[d]) * stride[d];
            aot_pg_vec_append(out, &tmp, off * ext);
            if (out->overflow)
                break;
            /* next index tuple, fastest dimension first */
            for (d = 0; d < nd2; d++) {
                int dim = order == MPI_ORDER_C ? nd2 - 1 - d : d;
                if (++idx[dim] < sub[dim])
                    break;
                idx[dim] = 0;
            }
            if (d == nd2)
                break;
        }
        break;
    }
    default:
        for (int i = 0; i < nd; i++)
            if (!aot_pg_is_named(types[i]))
                PMPI_Type_free(&types[i]);
        rc = aot_pg_flatten_probe(dt, out);
        break;
    }
out:
    aot_pg_vec_free(&tmp);
    aot_mem_free(ints, (size_t) (ni + 1) * sizeof(int));
    aot_mem_free(aints, (size_t) (na + 1) * sizeof(MPI_Aint));
    aot_mem_free(types, (size_t) (nd + 1) * sizeof(MPI_Datatype));
    return out->overflow ? -1 : rc;
}

static void aot_pg_layout_drop(struct aot_pg_layout_entry *e)
{
    HASH_DEL(aot_pg_layouts, e);
    aot_mem_free(e->L.r, (size_t) e->L.nranges * sizeof(*e->L.r));
    aot_mem_free(e, sizeof(*e));
}

static int aot_pg_layout_delete_fn(MPI_Datatype dt, int keyval, void *attr, void *extra)
{
    struct aot_pg_layout_entry *e = NULL;
    (void) keyval;
    (void) attr;
    (void) extra;
    HASH_FIND_INT(aot_pg_layouts, &dt, e);
    if (e)
        aot_pg_layout_drop(e);
    return MPI_SUCCESS;
}

void aot_pg_layout_init(void)
{
    PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, aot_pg_layout_delete_fn, &aot_pg_keyval, NULL);
}

void aot_pg_layout_finalize(void)
{
    struct aot_pg_layout_entry *e, *t;
    HASH_ITER(hh, aot_pg_layouts, e, t)
        aot_pg_layout_drop(e);
}

const struct aot_pg_layout *aot_pg_layout_get(MPI_Datatype dt)
{
    struct aot_pg_layout_entry *e = NULL;
    struct aot_pg_vec v = { 0 };
    MPI_Count size;
    int named;

    HASH_FIND_INT(aot_pg_layouts, &dt, e);
    if (e)
        return e->L.ok ? &e->L : NULL;
    e = aot_mem_zalloc(sizeof(*e));
    if (!e)
        return NULL;
    e->dt = dt;
    named = aot_pg_is_named(dt);
    PMPI_Type_get_extent(dt, &e->L.lb, &e->L.extent);
    PMPI_Type_size_x(dt, &size);
    e->L.size = size;
    if (aot_pg_flatten(dt, &v) == 0) {
        /* typemap order, continuations merged: dense when it is one range from 0 to size */
        e->L.dense = e->L.lb == 0 && e->L.extent == (MPI_Aint) size &&
                     (size == 0 || (v.n == 1 && v.r[0].lo == 0 && v.r[0].hi == (intptr_t) size));
        e->L.nranges = aot_pg_ranges_normalize(v.r, v.n);
        e->L.r = aot_mem_alloc((size_t) (e->L.nranges ? e->L.nranges : 1) * sizeof(*e->L.r));
        if (e->L.r) {
            memcpy(e->L.r, v.r, (size_t) e->L.nranges * sizeof(*e->L.r));
            e->L.ok = 1;
        }
    }
    aot_pg_vec_free(&v);
    HASH_ADD_INT(aot_pg_layouts, dt, e);
    if (!named && aot_pg_keyval != MPI_KEYVAL_INVALID)
        PMPI_Type_set_attr(dt, aot_pg_keyval, NULL);
    return e->L.ok ? &e->L : NULL;
}

int aot_pg_footprint(const void *buf, int count, const struct aot_pg_layout *L,
                     struct aot_pg_range **out, int *n)
{
    intptr_t base = (intptr_t) buf;
    struct aot_pg_range *r;
    long long total = (long long) count * L->nranges;

    *out = NULL;
    *n = 0;
    if (count <= 0 || L->nranges == 0)
        return 0;
    if (L->nranges == 1 && L->r[0].hi - L->r[0].lo == (intptr_t) L->extent) {
        /* the element tiles its extent: one range */
        r = aot_mem_alloc(sizeof(*r));
        if (!r)
            return -1;
        r->lo = base + L->r[0].lo;
        r->hi = r->lo + (intptr_t) count * L->extent;
        *out = r;
        *n = 1;
        return 0;
    }
    if (total > AOT_PG_MAX_RANGES)
        return -1;
    r = aot_mem_alloc((size_t) total * sizeof(*r));
    if (!r)
        return -1;
    for (int k = 0, m = 0; k < count; k++)
        for (int i = 0; i < L->nranges; i++, m++) {
            r[m].lo = base + (intptr_t) k * L->extent + L->r[i].lo;
            r[m].hi = base + (intptr_t) k * L->extent + L->r[i].hi;
        }
    *n = aot_pg_ranges_normalize(r, (int) total);
    *out = r;
    if (*n != (int) total) {
        /* the caller frees with *n: move to an array of that size */
        struct aot_pg_range *s = aot_mem_alloc((size_t) *n * sizeof(*s));
        if (s)
            memcpy(s, r, (size_t) *n * sizeof(*s));
        aot_mem_free(r, (size_t) total * sizeof(*r));
        *out = s;
        if (!s) {
            *n = 0;
            return -1;
        }
    }
    return 0;
}
