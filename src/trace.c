/*
 * trace.c: the trace writer (AUTOOPT_TRACE=dir): one file per rank, format in
 * docs/trace-format.md (version 1).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Fixed 32-byte records go into a private 1 MiB buffer that is written out with raw write(2)
 * system calls when full and at MPI_Finalize, followed by the tables (functions, reasons,
 * strings, then what the registered namer adds: signatures with their call sites, chains) as
 * tab-separated text.  A process that dies leaves the records of its full buffers:
 * autoopt-trace reads them and reports where the file ends.
 *
 * Every subsystem writes events with aot_trace() (aot_trace.h).  The writer can be called from
 * paging's SIGSEGV handler (AOT_TR_FAULT, AOT_TR_WAIT with a NULL text), so the record path
 * takes no lock, never allocates and uses only write(2); a call that arrives while another is
 * inside the writer (a signal in between) is counted as dropped.
 *
 * A call's record (AOT_TR_CALL) is written when it returns (aot_trace_leave, from the leave
 * hook), with the time it entered, its duration and its signature.  Signatures are not src/'s:
 * the subsystem that names calls (chains/) sets the current call's with aot_trace_call_sig and
 * registers a namer (aot_trace_set_namer) that names the others, takes their time and writes
 * its tables at finalize.  Without a namer a record has no signature.
 *
 * Memory comes from mappings of its own, never from malloc: chains' touch probes protect
 * pages of the program's buffers, and a buffer of the writer on such a page would fault.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "aot_files.h"
#include "aot_functions.h"
#include "aot_hooks.h"
#include "aot_log.h"
#include "aot_state.h"
#include "aot_stats.h"
#include "aot_sys.h"
#include "aot_trace.h"

#define AOT_TRACE_VERSION 1
#define AOT_TRACE_HEADER 64
#define AOT_TRACE_BUF ((size_t) 1 << 20)
#define AOT_TRACE_TABLE 255
#define AOT_TRACE_NSTR 256
#define AOT_TRACE_STRLEN 96

struct aot_tr_rec {
    uint8_t kind;
    uint8_t flags;                    /* bit 0: sig holds a string id */
    uint16_t fn;                      /* 0xffff: none */
    uint32_t sig;                     /* 0xffffffff: none */
    uint64_t t;                       /* ns since the trace started */
    uint64_t a, b;
};
_Static_assert(sizeof(struct aot_tr_rec) == 32, "trace records are 32 bytes");

int aot_trace_on;
static int aot_tr_fd = -1;
static char *aot_tr_buf;
static size_t aot_tr_used;
static volatile int aot_tr_busy;
static uint64_t aot_tr_dropped, aot_tr_records, aot_tr_t0;
static int aot_tr_failed;

/* the call in progress */
static uint64_t aot_tr_call_t;
static uint32_t aot_tr_call_sig;
static int aot_tr_call_fn = -1;

static char aot_tr_str[AOT_TRACE_NSTR][AOT_TRACE_STRLEN];
static int aot_tr_nstr;

/* the subsystem that names calls (aot_trace_set_namer), or NULL */
static const struct aot_trace_namer *aot_tr_namer;

/* Private mappings (see the top): the record buffer and the table text, both large. */
static void *aot_tr_map(size_t n)
{
    void *p = (void *) aot_syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void aot_tr_unmap(void *p, size_t n)
{
    if (p)
        aot_syscall(SYS_munmap, p, n);
}

static uint64_t aot_tr_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static void aot_tr_write(const void *p, size_t n)
{
    const char *c = p;
    while (n > 0 && !aot_tr_failed) {
        long w = aot_syscall(SYS_write, aot_tr_fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            aot_tr_failed = 1;     /* reported at finalize */
            return;
        }
        c += w;
        n -= (size_t) w;
    }
}

static void aot_tr_flush(void)
{
    if (aot_tr_used) {
        aot_tr_write(aot_tr_buf, aot_tr_used);
        aot_tr_used = 0;
    }
}

static void aot_tr_append(const struct aot_tr_rec *r)
{
    if (aot_tr_used + sizeof(*r) > AOT_TRACE_BUF)
        aot_tr_flush();
    memcpy(aot_tr_buf + aot_tr_used, r, sizeof(*r));
    aot_tr_used += sizeof(*r);
    aot_tr_records++;
}

/* A string's id (texts are copied: a caller's buffer may not live until finalize). */
static uint32_t aot_tr_intern(const char *text)
{
    int i;
    for (i = 0; i < aot_tr_nstr; i++)
        if (strncmp(aot_tr_str[i], text, AOT_TRACE_STRLEN - 1) == 0)
            return (uint32_t) i;
    if (aot_tr_nstr == AOT_TRACE_NSTR)
        return AOT_TRACE_NOSIG;
    for (int k = 0; k < AOT_TRACE_STRLEN - 1 && text[k]; k++)
        aot_tr_str[i][k] = (text[k] == '\t' || text[k] == '\n') ? ' ' : text[k];
    return (uint32_t) aot_tr_nstr++;
}

static void aot_tr_writer(enum aot_trace_kind kind, int fn, uint64_t a, uint64_t b,
                             const char *text)
{
    struct aot_tr_rec r;

    if (aot_tr_busy) {
        aot_tr_dropped++;
        return;
    }
    aot_tr_busy = 1;
    if (kind == AOT_TR_CALL) {
        aot_tr_call_t = aot_tr_now_ns();
        aot_tr_call_fn = fn;
        aot_tr_call_sig = AOT_TRACE_NOSIG;
        aot_tr_busy = 0;
        return;
    }
    memset(&r, 0, sizeof(r));
    r.kind = (uint8_t) kind;
    r.fn = fn < 0 ? 0xffff : (uint16_t) fn;
    r.sig = AOT_TRACE_NOSIG;
    if (text) {
        r.sig = aot_tr_intern(text);
        r.flags = r.sig != AOT_TRACE_NOSIG;
    }
    r.t = aot_tr_now_ns() - aot_tr_t0;
    r.a = a;
    r.b = b;
    aot_tr_append(&r);
    aot_tr_busy = 0;
}

void aot_trace_set_namer(const struct aot_trace_namer *namer)
{
    aot_tr_namer = namer;
}

void aot_trace_call_sig(uint32_t id)
{
    aot_tr_call_sig = id;
}

void aot_trace_leave(int fn)
{
    struct aot_tr_rec r;
    uint64_t now = aot_tr_now_ns();

    if (aot_tr_call_fn != fn || aot_tr_busy)
        return;
    aot_tr_busy = 1;
    aot_tr_call_fn = -1;
    if (aot_tr_namer && aot_tr_namer->call_done)
        aot_tr_call_sig = aot_tr_namer->call_done(fn, aot_tr_call_sig, now - aot_tr_call_t);
    memset(&r, 0, sizeof(r));
    r.kind = AOT_TR_CALL;
    r.fn = (uint16_t) fn;
    r.sig = aot_tr_call_sig;
    r.t = aot_tr_call_t - aot_tr_t0;
    r.a = now - aot_tr_call_t;
    aot_tr_append(&r);
    aot_tr_busy = 0;
}

/* ---------------------------------------------------------------- tables */

struct aot_trace_text {
    char *p;
    size_t len, cap;
};

void aot_trace_text_add(struct aot_trace_text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        size_t room = t->cap - t->len;
        va_start(ap, fmt);
        n = vsnprintf(t->p ? t->p + t->len : NULL, t->p ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if (t->p && (size_t) n < room) {
            t->len += (size_t) n;
            return;
        }
        {
            size_t cap = t->cap ? 2 * t->cap : 65536;
            char *p;
            while (cap < t->len + (size_t) n + 1)
                cap *= 2;
            p = aot_tr_map(cap);
            if (!p)
                return;
            if (t->len)
                memcpy(p, t->p, t->len);
            aot_tr_unmap(t->p, t->cap);
            t->p = p;
            t->cap = cap;
        }
    }
}

const char *aot_trace_clean(char *s)
{
    for (char *c = s; *c; c++)
        if (*c == '\t' || *c == '\n')
            *c = ' ';
    return s;
}

static void aot_tr_tables(struct aot_trace_text *t)
{
    static const char *const reasons[] = {
#define AOT_X(name, text) #name,
        AOT_PASS_REASONS(AOT_X)
#undef AOT_X
    };

    aot_trace_text_add(t, "autoopt-trace-table\t%d\n", AOT_TRACE_VERSION);
    aot_trace_text_add(t, "rank\t%d\t%d\n", aot_world_rank, aot_world_size);
    aot_trace_text_add(t, "records\t%llu\t%llu\n", (unsigned long long) aot_tr_records,
                       (unsigned long long) aot_tr_dropped);
    for (int fn = 0; fn < AOT_FN_COUNT; fn++)
        aot_trace_text_add(t, "fn\t%d\t%s\n", fn, aot_function_names[fn]);
    for (int r = 0; r < AOT_PASS_NREASONS; r++)
        aot_trace_text_add(t, "reason\t%d\t%s\n", r, reasons[r]);
    for (int i = 0; i < aot_tr_nstr; i++)
        aot_trace_text_add(t, "str\t%d\t%s\n", i, aot_tr_str[i]);
    if (aot_tr_namer && aot_tr_namer->tables)
        aot_tr_namer->tables(t);
    aot_trace_text_add(t, "end\n");
}

/* ---------------------------------------------------------------- init / finalize */

int aot_trace_init(char *err, size_t errlen)
{
    char path[4200], name[64], why[4400];
    int dirfd;
    unsigned char h[AOT_TRACE_HEADER];
    uint32_t u32;
    int32_t i32;
    uint64_t u64;
    struct timespec rt;

    if (!aot_cfg.trace_dir)
        return 0;
    /* safely: files.c (a directory others made first cannot redirect the file) */
    dirfd = aot_dir_open(aot_cfg.trace_dir, 1, why, sizeof(why));
    if (dirfd < 0) {
        snprintf(err, errlen, "AUTOOPT_TRACE=%s", why);
        return -1;
    }
    snprintf(name, sizeof(name), "rank-%05d.aottrace", aot_world_rank);
    snprintf(path, sizeof(path), "%s/%s", aot_cfg.trace_dir, name);
    aot_tr_fd = aot_file_create(dirfd, aot_cfg.trace_dir, name, why, sizeof(why));
    close(dirfd);
    if (aot_tr_fd < 0) {
        snprintf(err, errlen, "AUTOOPT_TRACE: %s", why);
        return -1;
    }
    aot_tr_buf = aot_tr_map(AOT_TRACE_BUF);
    if (!aot_tr_buf) {
        snprintf(err, errlen, "AUTOOPT_TRACE: cannot map the trace buffer");
        return -1;
    }
    clock_gettime(CLOCK_REALTIME, &rt);
    aot_tr_t0 = aot_tr_now_ns();
    memset(h, 0, sizeof(h));
    memcpy(h, "AOTTRACE", 8);
    u32 = AOT_TRACE_VERSION;                  memcpy(h + 8, &u32, 4);
    u32 = AOT_TRACE_HEADER;                   memcpy(h + 12, &u32, 4);
    u32 = sizeof(struct aot_tr_rec);          memcpy(h + 16, &u32, 4);
    i32 = aot_world_rank;                     memcpy(h + 20, &i32, 4);
    i32 = aot_world_size;                     memcpy(h + 24, &i32, 4);
    u32 = (uint32_t) getpid();                memcpy(h + 28, &u32, 4);
    u64 = (uint64_t) rt.tv_sec * 1000000000ull + (uint64_t) rt.tv_nsec;
    memcpy(h + 32, &u64, 8);
    u64 = aot_tr_t0;                       memcpy(h + 40, &u64, 8);
    u32 = AOT_FN_COUNT;                       memcpy(h + 48, &u32, 4);
    u32 = (aot_cfg.chains ? 1u : 0u) | (aot_cfg.chain_verify ? 2u : 0u) |
          (aot_cfg.convert ? 4u : 0u) | (aot_cfg.collectives ? 8u : 0u);
    memcpy(h + 52, &u32, 4);
    u32 = (uint32_t) aot_cfg.site_depth;      memcpy(h + 56, &u32, 4);
    u32 = (uint32_t) aot_cfg.chain_confirm;   memcpy(h + 60, &u32, 4);
    aot_tr_write(h, sizeof(h));
    aot_trace_on = 1;
    aot_trace_writer = aot_tr_writer;
    __atomic_fetch_or(&aot_hooks_armed, AOT_ARM_TRACE, __ATOMIC_RELAXED);
    AOT_LOG(1, "trace: %s", path);
    return 0;
}

void aot_trace_finalize(void)
{
    struct aot_trace_text t = { NULL, 0, 0 };
    struct aot_tr_rec r;

    if (!aot_trace_on)
        return;
    aot_trace_writer = NULL;
    __atomic_fetch_and(&aot_hooks_armed, ~AOT_ARM_TRACE, __ATOMIC_RELAXED);
    aot_trace_on = 0;
    aot_tr_tables(&t);
    memset(&r, 0, sizeof(r));
    r.kind = AOT_TRACE_TABLE;
    r.fn = 0xffff;
    r.sig = AOT_TRACE_NOSIG;
    r.t = aot_tr_now_ns() - aot_tr_t0;
    r.a = t.len;
    aot_tr_append(&r);
    aot_tr_flush();
    aot_tr_write(t.p, t.len);
    if (aot_tr_failed)
        aot_log(0, "AUTOOPT_TRACE: writing the trace failed; the file is incomplete");
    close(aot_tr_fd);
    aot_tr_fd = -1;
    aot_tr_unmap(t.p, t.cap);
}
