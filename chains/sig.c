/*
 * sig.c: call signatures and call sites.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A signature is what makes two calls "the same call": call site, function, communicator, peers,
 * tags, datatypes, counts and buffer addresses (struct aot_ch_key).  Each distinct key gets an
 * id, in order of first appearance on this rank.
 *
 * Call sites.  Under compile-time injection (autoopt-mpicc) the entry points set
 * aot_tls.site_file/site_line: the exact __FILE__:__LINE__ is the site.  Otherwise the site is
 * the first AUTOOPT_SITE_DEPTH frames outside autoopt and outside MPICH's Fortran shim
 * (libmpichfort, whose mpi_send_ calls MPI_Send through the PLT).  With depth 1 and a routed call
 * the generated wrapper already holds the return address into the program (aot_tls.caller):
 * when it lies outside those two objects it is the site and nothing is unwound; otherwise
 * unw_backtrace() walks the stack.  Under injection with a depth above 1 the frames above the
 * call (the callers of the function that holds the MPI call) come from unw_backtrace too, so
 * both injection modes tell a helper's callers apart in the same way.
 *
 * Cost (measured, docs/chains.md): hashing the key with a multiply-xor mix and one uthash
 * lookup by that hash value.
 */
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "chains.h"

const char *const aot_ch_why_text[AOT_CH_NWHY] = {
    "chainable", "not a blocking send, receive or sendrecv", "wildcard source or tag",
    "intercommunicator or error handler other than MPI_ERRORS_ARE_FATAL", "buffer on the stack",
    "buffer not in a private writable mapping", "send and receive buffers overlap",
    "negative count, or a receive without data",
    "converted by paging (at least AUTOOPT_CONVERT_MIN bytes)",
};

/* ---------------------------------------------------------------- objects to skip */

struct aot_ch_range {
    uintptr_t lo, hi;
};
#define AOT_CH_MAX_SKIP 16
static struct aot_ch_range aot_ch_skip[AOT_CH_MAX_SKIP];
static int aot_ch_nskip;

static int aot_ch_phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    uintptr_t self = (uintptr_t) arg;
    int is_self = 0, is_fort = info->dlpi_name && strstr(info->dlpi_name, "libmpichfort");
    (void) size;

    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && self >= lo && self < lo + ph->p_memsz)
            is_self = 1;
    }
    if (!is_self && !is_fort)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && aot_ch_nskip < AOT_CH_MAX_SKIP; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            aot_ch_skip[aot_ch_nskip].lo = info->dlpi_addr + ph->p_vaddr;
            aot_ch_skip[aot_ch_nskip].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
            aot_ch_nskip++;
        }
    }
    return 0;
}

void aot_ch_site_init(void)
{
    aot_ch_nskip = 0;
    dl_iterate_phdr(aot_ch_phdr_cb, (void *) (uintptr_t) &aot_ch_site_init);
}

static inline int aot_ch_skipped(const void *pc)
{
    uintptr_t a = (uintptr_t) pc;
    for (int i = 0; i < aot_ch_nskip; i++)
        if (a >= aot_ch_skip[i].lo && a < aot_ch_skip[i].hi)
            return 1;
    return 0;
}

static inline uint64_t aot_ch_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

/* Frames outside autoopt and the Fortran shim, innermost first; returns how many (<= max).
 * drop: outside frames to leave out first. */
static int aot_ch_unwind(const void **out, int max, int drop)
{
    void *pcs[64];
    int n = unw_backtrace(pcs, 64), k = 0, first_outside = -1;

    for (int i = 0; i < n && k < max; i++) {
        if (aot_ch_skipped(pcs[i]))
            continue;
        if (first_outside < 0)
            first_outside = i;
        if (drop > 0) {
            drop--;
            continue;
        }
        out[k++] = pcs[i];
    }
    if (k == 0 && n > 0 && first_outside < 0 && drop == 0)
        out[k++] = pcs[n - 1];        /* everything is autoopt (a static test program) */
    return k;
}

#define AOT_CH_SITE_SEED 0x51ed270b27ull

/* The call site that needs no unwinding: at depth 1 without injection, the return address the
 * generated wrapper saved, unless that lies in autoopt or MPICH's Fortran shim.  NULL: unwind. */
static inline const void *aot_ch_direct_caller(int depth)
{
    const void *pc = aot_tls.caller;
    return !aot_tls.site_file && depth == 1 && pc && !aot_ch_skipped(pc) ? pc : NULL;
}

uint64_t aot_ch_site(int routed, int depth, const void **frames, int *nframes,
                     const char **file, int *line)
{
    uint64_t h = AOT_CH_SITE_SEED;

    *file = NULL;
    *line = 0;
    *nframes = 0;
    if (depth > AOT_CH_MAX_DEPTH)
        depth = AOT_CH_MAX_DEPTH;
    if (aot_tls.site_file) {
        *file = aot_tls.site_file;
        *line = aot_tls.site_line;
        h = aot_ch_mix(aot_ch_mix(h, (uint64_t) (uintptr_t) *file), (uint64_t) *line);
        if (depth > 1)
            *nframes = aot_ch_unwind(frames, depth - 1, 1);
    } else if (routed && aot_ch_direct_caller(depth)) {
        frames[0] = aot_tls.caller;
        *nframes = 1;
    } else {
        *nframes = aot_ch_unwind(frames, depth, 0);
    }
    for (int i = 0; i < *nframes; i++)
        h = aot_ch_mix(h, (uint64_t) (uintptr_t) frames[i]);
    return h;
}

/* ---------------------------------------------------------------- the table */

static struct aot_ch_sig *aot_ch_sigs;          /* hash by key */
static struct aot_ch_sig *aot_ch_prev;          /* the signature of the previous call */
static struct aot_ch_sig **aot_ch_by_id;
static uint32_t aot_ch_nsigs, aot_ch_capsigs;

uint32_t aot_ch_key_hash(const struct aot_ch_key *k)
{
    uint64_t h = k->site;
    h = aot_ch_mix(h, ((uint64_t) (uint32_t) k->fn << 32) | (uint32_t) k->comm);
    h = aot_ch_mix(h, ((uint64_t) (uint32_t) k->dest << 32) | (uint32_t) k->stag);
    h = aot_ch_mix(h, ((uint64_t) (uint32_t) k->scount << 32) | (uint32_t) k->sdt);
    h = aot_ch_mix(h, (uint64_t) (uintptr_t) k->sbuf);
    h = aot_ch_mix(h, ((uint64_t) (uint32_t) k->source << 32) | (uint32_t) k->rtag);
    h = aot_ch_mix(h, ((uint64_t) (uint32_t) k->rcount << 32) | (uint32_t) k->rdt);
    h = aot_ch_mix(h, (uint64_t) (uintptr_t) k->rbuf ^ (uint64_t) k->status_ignore);
    return (uint32_t) (h ^ (h >> 32));
}

/* The fast path of a loop: the site is the wrapper's return address (aot_ch_direct_caller),
 * hashed as aot_ch_site hashes its one frame, and the call is the one that followed the
 * previous call last time. */
struct aot_ch_sig *aot_ch_sig_quick(struct aot_ch_key *k)
{
    const void *pc = aot_ch_direct_caller(aot_cfg.site_depth);
    struct aot_ch_sig *s = aot_ch_prev ? aot_ch_prev->next : NULL;

    if (!s || !pc)
        return NULL;
    k->site = aot_ch_mix(AOT_CH_SITE_SEED, (uint64_t) (uintptr_t) pc);
    if (memcmp(&s->key, k, sizeof(*k)) != 0)
        return NULL;
    aot_ch_prev = s;
    return s;
}

void aot_ch_sig_follow(struct aot_ch_sig *s)
{
    if (aot_ch_prev && aot_ch_prev->next != s)
        aot_ch_prev->next = s;
    aot_ch_prev = s;
}

void aot_ch_sig_resume(struct aot_ch_sig *s)
{
    aot_ch_prev = s;
}

struct aot_ch_sig *aot_ch_sig_get(const struct aot_ch_key *key, const void *const *frames,
                                  int nframes, const char *file, int line, int *created)
{
    struct aot_ch_sig *s = aot_ch_prev ? aot_ch_prev->next : NULL;
    uint32_t hv;

    *created = 0;
    if (s && memcmp(&s->key, key, sizeof(*key)) == 0) {
        aot_ch_prev = s;
        return s;
    }
    hv = aot_ch_key_hash(key);
    s = NULL;
    HASH_FIND_BYHASHVALUE(hh, aot_ch_sigs, key, sizeof(*key), hv, s);
    if (s) {
        if (aot_ch_prev)
            aot_ch_prev->next = s;
        aot_ch_prev = s;
        return s;
    }
    if (aot_ch_nsigs == aot_ch_capsigs) {
        uint32_t cap = aot_ch_capsigs ? 2 * aot_ch_capsigs : 256;
        struct aot_ch_sig **by = aot_mem_zalloc((size_t) cap * sizeof(*by));
        if (!by)
            return NULL;
        if (aot_ch_nsigs)
            memcpy(by, aot_ch_by_id, (size_t) aot_ch_nsigs * sizeof(*by));
        aot_mem_free(aot_ch_by_id, (size_t) aot_ch_capsigs * sizeof(*by));
        aot_ch_by_id = by;
        aot_ch_capsigs = cap;
    }
    s = aot_mem_zalloc(sizeof(*s));
    if (!s)
        return NULL;
    s->key = *key;
    s->id = aot_ch_nsigs;
    s->hash = hv;
    if (nframes > AOT_CH_MAX_DEPTH)
        nframes = AOT_CH_MAX_DEPTH;
    s->nframes = nframes;
    for (int i = 0; i < nframes; i++)
        s->frames[i] = frames[i];
    s->file = file;
    s->line = line;
    aot_ch_by_id[aot_ch_nsigs++] = s;
    HASH_ADD_KEYPTR_BYHASHVALUE(hh, aot_ch_sigs, &s->key, sizeof(s->key), hv, s);
    if (aot_ch_prev)
        aot_ch_prev->next = s;
    aot_ch_prev = s;
    *created = 1;
    return s;
}

struct aot_ch_sig *aot_ch_sig_by_id(uint32_t id)
{
    return id < aot_ch_nsigs ? aot_ch_by_id[id] : NULL;
}

uint32_t aot_ch_sig_count(void)
{
    return aot_ch_nsigs;
}

static void aot_ch_frame_text(const void *pc, char *buf, size_t len)
{
    Dl_info di;
    if (dladdr(pc, &di) && di.dli_fname) {
        const char *base = strrchr(di.dli_fname, '/');
        base = base ? base + 1 : di.dli_fname;
        if (di.dli_sname)
            snprintf(buf, len, "%s+0x%lx (%s)", di.dli_sname,
                     (unsigned long) ((uintptr_t) pc - (uintptr_t) di.dli_saddr), base);
        else
            snprintf(buf, len, "%s+0x%lx", base,
                     (unsigned long) ((uintptr_t) pc - (uintptr_t) di.dli_fbase));
    } else {
        snprintf(buf, len, "%p", pc);
    }
}

void aot_ch_sig_where(const struct aot_ch_sig *s, char *buf, size_t len)
{
    if (s->file)
        snprintf(buf, len, "%s:%d", s->file, s->line);
    else if (s->nframes)
        aot_ch_frame_text(s->frames[0], buf, len);
    else
        snprintf(buf, len, "?");
}
