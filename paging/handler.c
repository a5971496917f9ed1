/*
 * handler.c: the SIGSEGV and SIGTRAP handlers of asynchronous conversion.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A fault on a guarded page is one of three things:
 *   - a touch of bytes that pending requests own (any access to a receive's bytes, a write to a
 *     send's bytes): wait for exactly those requests, retire them (copy-out, lift their
 *     guards) and return, so the instruction runs again;
 *   - a touch of a guarded page outside every owner's bytes (false sharing): open the page(s),
 *     set the x86-64 trap flag so that exactly one instruction runs, and close them again in
 *     the SIGTRAP handler.  REP MOVS / REP STOS (memcpy, memset) would trap after every
 *     iteration, so the handler does them itself instead.  When the program keeps working on
 *     such a page (more than AOT_PG_STEP_BUDGET steps charged to a request on it), the
 *     handler waits for the requests on that page instead, as for owned bytes: a loop next to
 *     a halo row would otherwise pay a fault per access (measured: 29,152 false-sharing faults
 *     in 50 iterations of the 8-rank SOR at n=128, 100x slower than native);
 *     Inside an MPI call that autoopt brackets (aot_pg_mpi_window), a page that MPI's own
 *     data shares with a guard is opened until the call returns instead (see below);
 *   - not autoopt's: the handler that was installed before (often UCX's, which prints a
 *     backtrace and dies of SIGSEGV; or the program's own) gets it, as the kernel would have
 *     delivered it.  With no previous handler the default action is restored and the fault
 *     repeats, so a real segfault dies of SIGSEGV as usual.
 * Which bytes an access touches: the kernel gives the first faulting address only.  For a REP
 * string instruction the handler decodes the ranges from RSI, RDI, RCX and the direction flag;
 * for any other instruction it assumes the 64 bytes from the fault address (the widest ordinary
 * access, AVX-512), so an access near owned bytes waits rather than read data not yet there.
 *
 * RULES FOR THIS FILE (signal context):
 *   - it may call: system calls through aot_syscall() (mprotect, write), memcpy and memset,
 *     aot_fault_say, and the signal-safe lookups of guard.c and requests.c (aot_pg_seg_find,
 *     aot_pg_owners, aot_pg_pages_lift/restore), which read only paging's own pages (arena.c)
 *     and never allocate;
 *   - what it learns of a call site goes into the site's guard note (src/aot_p2p.h), which the
 *     request points to, by plain stores; the site's policy (sites.c) reads it later, outside
 *     the handler, and the handler never calls it;
 *   - it may not call: malloc or free, stdio, or anything that takes a lock the interrupted
 *     code could hold;
 *   - one exception, the wait: when the fault comes from the program (aot_tls.depth == 0, on
 *     the thread that called MPI_Init: aot_pg_from_program) on
 *     owned bytes, the handler calls PMPI_Wait and retires the requests (arena frees, mprotect,
 *     MPI_Unpack).  That is safe at MPI_THREAD_SINGLE because the interrupted code is the
 *     program itself, outside MPI and outside autoopt: MPI is not re-entered, and no lock of
 *     MPI or of paging is held.  (Faults inside malloc are always false sharing: malloc writes
 *     only chunk headers and free chunks, never bytes of a live buffer, and free/realloc of a
 *     guarded buffer are completed beforehand by syscalls.c.  The step-budget wait, which
 *     happens on false sharing, is therefore never made when the faulting instruction is in
 *     the C library or the object defining malloc: their allocator and FILE locks may be
 *     held; such accesses are always stepped.)  The handler raises aot_tls.depth
 *     while it waits, so MPI calls it makes go straight to PMPI, and a fault inside them (MPI's
 *     own data sharing a page with a guard) is handled as false sharing, nested (SA_NODEFER).
 *   - a fault on owned bytes at depth > 0 (inside MPI or autoopt) cannot wait without
 *     re-entering MPI: it is reported on stderr and treated as a real fault.  autoopt completes
 *     pending requests before any MPI call that could touch their buffers, so this means a
 *     signal handler of the program touched a pending buffer while MPI was running.
 *
 * Both handlers are registered with autoopt's one fault entry (src/aot_fault.h, slot
 * AOT_FAULT_SLOT_GUARDS, asked before chains' probes) and return AOT_FAULT_HANDLED or
 * AOT_FAULT_DECLINED; the entry passes what everybody declines to the previous handler (UCX's,
 * the program's, the default action) as the kernel would have delivered it, and reports a stack
 * overflow before any handler sees it.  libsigsegv serves there as the judge of overflows only
 * (src/fault.c says why); its area dispatcher is not used for the guards: sigsegv_register()
 * and its AVL nodes live in malloc'd memory, which can share a page with a guarded buffer (the
 * lookup would fault on its own index), and its global handler gets no ucontext (needed for the
 * trap flag).  The page table of guard.c gives the same interval lookup (binary search in a
 * sorted array) from pages that are never guarded.
 */
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "aot_fault.h"
#include "paging.h"

#define AOT_PG_WINDOW 64
#define AOT_PG_TRAP_FLAG 0x100
#define AOT_PG_DIR_FLAG 0x400
#define AOT_PG_MAX_OWNERS 64
#define AOT_PG_MAX_STEPS 8

/* The code of the C library and of whatever defines malloc: a fault there may come with the
 * allocator's or a FILE's lock held, so it is never waited on (aot_pg_segv, step budget). */
#define AOT_PG_MAX_LOCKED 2
static struct { uintptr_t lo, hi; } aot_pg_locked[AOT_PG_MAX_LOCKED];
static int aot_pg_nlocked;

static int aot_pg_in_locked_code(uintptr_t ip)
{
    for (int k = 0; k < aot_pg_nlocked; k++)
        if (ip >= aot_pg_locked[k].lo && ip < aot_pg_locked[k].hi)
            return 1;
    return 0;
}

/* A single step in progress: the pages opened, and the handler nesting it belongs to. */
struct aot_pg_step {
    uintptr_t p0, p1;
    uintptr_t p0b, p1b;       /* a second stretch (REP with two operands) */
    greg_t rip;
    int level;
    int rep;
    int prog_tf;              /* the program had the trap flag set itself: its trap too */
};
static __thread struct aot_pg_step aot_pg_steps[AOT_PG_MAX_STEPS] __attribute__((tls_model("initial-exec")));
static __thread int aot_pg_nsteps __attribute__((tls_model("initial-exec")));
static __thread int aot_pg_segv_nest __attribute__((tls_model("initial-exec")));

static void aot_pg_say_raw(const char *line, size_t n)
{
    aot_syscall(SYS_write, 2, line, n);
}

/* Appends "0x<hex>" to line at *n (async-signal-safe). */
static void aot_pg_hex(char *line, size_t cap, size_t *n, uintptr_t v)
{
    char d[2 * sizeof(v)];
    int k = 0;
    do {
        d[k++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v && k < (int) sizeof(d));
    if (*n + 2 + (size_t) k >= cap)
        return;
    line[(*n)++] = '0';
    line[(*n)++] = 'x';
    while (k)
        line[(*n)++] = d[--k];
}

static void aot_pg_str(char *line, size_t cap, size_t *n, const char *s)
{
    while (*s && *n + 1 < cap)
        line[(*n)++] = *s++;
}

/* What was touched and by whom, on the line after a fatal "touched" message: the access, the
 * instruction's address and the first owning request, for a bug report. */
static void aot_pg_say_owner(uintptr_t lo, uintptr_t hi, int write, uintptr_t ip,
                             const struct aot_pg_req *r)
{
    char line[256];
    size_t n = 0;
    aot_pg_str(line, sizeof(line), &n, write ? "  write [" : "  read [");
    aot_pg_hex(line, sizeof(line), &n, lo);
    aot_pg_str(line, sizeof(line), &n, ", ");
    aot_pg_hex(line, sizeof(line), &n, hi);
    aot_pg_str(line, sizeof(line), &n, ") at instruction ");
    aot_pg_hex(line, sizeof(line), &n, ip);
    {
        /* dladdr is not async-signal-safe, but this process is about to die of the fault */
        Dl_info di;
        if (dladdr((void *) ip, &di) && di.dli_fname) {
            const char *base = strrchr(di.dli_fname, '/');
            aot_pg_str(line, sizeof(line), &n, " (");
            aot_pg_str(line, sizeof(line), &n, base ? base + 1 : di.dli_fname);
            aot_pg_str(line, sizeof(line), &n, "+");
            aot_pg_hex(line, sizeof(line), &n, ip - (uintptr_t) di.dli_fbase);
            aot_pg_str(line, sizeof(line), &n, ")");
        }
    }
    aot_pg_str(line, sizeof(line), &n, r->kind == AOT_PG_SEND ? "; owner: send [" : "; owner: receive [");
    aot_pg_hex(line, sizeof(line), &n, (uintptr_t) r->lo);
    aot_pg_str(line, sizeof(line), &n, ", ");
    aot_pg_hex(line, sizeof(line), &n, (uintptr_t) r->hi);
    aot_pg_str(line, sizeof(line), &n, r->nfp > 1 ? ") in pieces\n" : ")\n");
    aot_pg_say_raw(line, n);
}

/* What one instruction accesses. */
struct aot_pg_access {
    intptr_t lo[2], hi[2];
    int write[2];
    int n;
    int rep;                  /* 1: a REP string instruction */
    int op;                   /* its opcode */
    int size;                 /* element size */
    int len;                  /* instruction length */
    int addr32;
};

static void aot_pg_rep_range(intptr_t reg, uint64_t count, int size, int down, intptr_t *lo,
                             intptr_t *hi)
{
    intptr_t span = (intptr_t) (count * (uint64_t) size);
    if (down) {
        *lo = reg - span + size;
        *hi = reg + size;
    } else {
        *lo = reg;
        *hi = reg + span;
    }
}

/* Decodes a REP-prefixed string instruction at RIP; 0 when it is not one. */
static int aot_pg_decode(const ucontext_t *uc, struct aot_pg_access *a)
{
    const unsigned char *p = (const unsigned char *) uc->uc_mcontext.gregs[REG_RIP];
    int rep = 0, opsz16 = 0, rexw = 0, i;
    uint64_t count;
    int down = (uc->uc_mcontext.gregs[REG_EFL] & AOT_PG_DIR_FLAG) != 0;
    intptr_t rsi = (intptr_t) uc->uc_mcontext.gregs[REG_RSI];
    intptr_t rdi = (intptr_t) uc->uc_mcontext.gregs[REG_RDI];

    a->addr32 = 0;
    for (i = 0; i < 14; i++) {
        unsigned char c = p[i];
        if (c == 0xf3 || c == 0xf2)
            rep = 1;
        else if (c == 0x66)
            opsz16 = 1;
        else if (c == 0x67)
            a->addr32 = 1;
        else if (c == 0x2e || c == 0x3e || c == 0x26 || c == 0x36 || c == 0x64 || c == 0x65)
            continue;
        else if ((c & 0xf0) == 0x40)
            rexw = (c & 8) != 0;
        else
            break;
    }
    a->op = p[i];
    a->len = i + 1;
    if (!rep || a->op < 0xa4 || a->op > 0xaf || a->op == 0xa8 || a->op == 0xa9)
        return 0;
    a->size = (a->op & 1) ? (rexw ? 8 : opsz16 ? 2 : 4) : 1;
    count = (uint64_t) uc->uc_mcontext.gregs[REG_RCX];
    if (a->addr32) {
        count &= 0xffffffffu;
        rsi &= 0xffffffff;
        rdi &= 0xffffffff;
    }
    a->rep = 1;
    a->n = 0;
    if (count == 0)
        return 1;
    switch (a->op & ~1) {
    case 0xa4:   /* movs: read [rsi], write [rdi] */
        aot_pg_rep_range(rsi, count, a->size, down, &a->lo[0], &a->hi[0]);
        a->write[0] = 0;
        aot_pg_rep_range(rdi, count, a->size, down, &a->lo[1], &a->hi[1]);
        a->write[1] = 1;
        a->n = 2;
        break;
    case 0xa6:   /* cmps: read both */
        aot_pg_rep_range(rsi, count, a->size, down, &a->lo[0], &a->hi[0]);
        aot_pg_rep_range(rdi, count, a->size, down, &a->lo[1], &a->hi[1]);
        a->write[0] = a->write[1] = 0;
        a->n = 2;
        break;
    case 0xaa:   /* stos: write [rdi] */
        aot_pg_rep_range(rdi, count, a->size, down, &a->lo[0], &a->hi[0]);
        a->write[0] = 1;
        a->n = 1;
        break;
    case 0xac:   /* lods: read [rsi] */
        aot_pg_rep_range(rsi, count, a->size, down, &a->lo[0], &a->hi[0]);
        a->write[0] = 0;
        a->n = 1;
        break;
    default:     /* scas: read [rdi] */
        aot_pg_rep_range(rdi, count, a->size, down, &a->lo[0], &a->hi[0]);
        a->write[0] = 0;
        a->n = 1;
        break;
    }
    return 1;
}

/* REP MOVS / REP STOS over false-shared pages: done here, with the pages open. */
static void aot_pg_emulate(ucontext_t *uc, const struct aot_pg_access *a)
{
    greg_t *g = uc->uc_mcontext.gregs;
    uint64_t count = (uint64_t) g[REG_RCX];
    int down = (g[REG_EFL] & AOT_PG_DIR_FLAG) != 0;
    intptr_t step = down ? -a->size : a->size;
    unsigned char *d = (unsigned char *) g[REG_RDI];
    const unsigned char *s = (const unsigned char *) g[REG_RSI];
    uint64_t rax = (uint64_t) g[REG_RAX];

    if ((a->op & ~1) == 0xa4) {
        if (!down && (d + count * (uint64_t) a->size <= s || s + count * (uint64_t) a->size <= d)) {
            memcpy(d, s, count * (uint64_t) a->size);
            d += count * (uint64_t) a->size;
            s += count * (uint64_t) a->size;
        } else {
            for (uint64_t k = 0; k < count; k++, d += step, s += step)
                for (int b = 0; b < a->size; b++)
                    ((volatile unsigned char *) d)[b] = s[b];
        }
        g[REG_RSI] = (greg_t) s;
    } else {
        if (a->size == 1 && !down) {
            memset(d, (int) (rax & 0xff), count);
            d += count;
        } else {
            for (uint64_t k = 0; k < count; k++, d += step)
                memcpy(d, &rax, (size_t) a->size);
        }
    }
    g[REG_RDI] = (greg_t) d;
    g[REG_RCX] = 0;
    g[REG_RIP] += a->len;
}

static void aot_pg_lift_range(intptr_t lo, intptr_t hi, uintptr_t *p0, uintptr_t *p1)
{
    *p0 = *p1 = 0;
    if (hi <= lo)
        return;
    *p0 = AOT_PG_PAGE(lo);
    *p1 = AOT_PG_PAGE(hi - 1) + 1;
    aot_pg_pages_lift(*p0, *p1);
}

static void aot_pg_restore_range(uintptr_t p0, uintptr_t p1)
{
    if (p1 > p0)
        aot_pg_pages_restore(p0, p1);
}

/*
 * Pages MPI touches during one MPI call.  MPI's own heap objects can share a page with a
 * guarded buffer; stepping every one of MPI's accesses costs a fault and two mprotects each
 * (measured: hundreds per converted small message in a ping-pong).  Inside an MPI call that
 * autoopt brackets (aot_pg_mpi_window: its enter/leave hooks, its own waits), such a page is
 * opened once instead and closed again by aot_pg_lifted_restore() before control goes back to
 * the program, which therefore never runs with it open.  Outside such a bracket (MPI calls
 * without hooks) the handler steps.
 */
int aot_pg_mpi_window;
static uintptr_t aot_pg_lifted[64];
static int aot_pg_nlifted;

void aot_pg_lifted_restore(void)
{
    for (int k = 0; k < aot_pg_nlifted; k++) {
        int cur = aot_pg_page_cur(aot_pg_lifted[k]);
        if (cur >= 0)
            aot_sys_mprotect(AOT_PG_ADDR(aot_pg_lifted[k]), aot_pg_page_size, cur);
    }
    aot_pg_nlifted = 0;
}

void aot_pg_lifted_forget(void)
{
    aot_pg_nlifted = 0;
}

/* Opens the guarded pages of [lo, hi) until aot_pg_lifted_restore; 0 when the list is full. */
static int aot_pg_lift_for_mpi(intptr_t lo, intptr_t hi)
{
    uintptr_t p0 = AOT_PG_PAGE(lo), p1 = AOT_PG_PAGE(hi - 1) + 1;
    if (aot_pg_nlifted + (int) (p1 - p0) > (int) (sizeof(aot_pg_lifted) / sizeof(aot_pg_lifted[0])))
        return 0;
    for (uintptr_t p = p0; p < p1; p++) {
        const struct aot_pg_seg *s = aot_pg_seg_find(p);
        if (s && s->cur != s->orig) {
            aot_sys_mprotect(AOT_PG_ADDR(p), aot_pg_page_size, s->orig);
            aot_pg_lifted[aot_pg_nlifted++] = p;
        }
    }
    return 1;
}

/* The program touched the bytes of request r, which it now waits for: in its site's guard note
 * (src/aot_p2p.h), a touch before any other MPI call since the conversion lengthens the
 * streak, a later one ends it.  Plain stores (signal context). */
static void aot_pg_note_touch(const struct aot_pg_req *r)
{
    struct aot_guard_note *n = r->note;

    if (!n)
        return;
    if (r->epoch == aot_pg_epoch) {
        if (++n->streak > n->peak)
            n->peak = n->streak;
    } else {
        n->streak = 0;
    }
}

/* At depth 0 (the program's own code): wait for the requests idx[0..n) and retire them. */
static void aot_pg_wait_from_program(const int *idx, int n, uintptr_t addr)
{
    int saved = aot_tls.depth;

    aot_tls.depth = 1;
    aot_pg_mpi_window = 1;
    for (int k = 0; k < n; k++)
        aot_pg_note_touch(&aot_pg_reqs[idx[k]]);
    aot_trace(AOT_TR_FAULT, aot_pg_reqs[idx[0]].fn, (uint64_t) addr, (uint64_t) n, NULL);
    aot_pg_wait_slots(idx, n);
    aot_pg_lifted_restore();
    aot_pg_mpi_window = 0;
    aot_tls.depth = saved;
}

/* The program is about to block SIGSEGV or SIGTRAP (src/fault.c, aot_fault_sigmask): a touch of
 * a guard would then kill, so every pending request completes now, as in a wait from the
 * program's own code (the program's call, at depth 0: MPI is not running).  Until it unblocks
 * them nothing new is guarded (entry.c, AOT_PASS_SIGMASK). */
static void aot_pg_unguard_all(void)
{
    int saved = aot_tls.depth;

    if (!aot_pg_on || !aot_pg_npending)
        return;
    AOT_PG_COUNT(sigmask_waits, aot_pg_npending);
    aot_tls.depth = 1;
    aot_pg_mpi_window = 1;
    aot_pg_wait_all();
    aot_pg_lifted_restore();
    aot_pg_mpi_window = 0;
    aot_tls.depth = saved;
}

/* The thread that called MPI_Init: at MPI_THREAD_SINGLE (the only level paging converts at)
 * the program's only thread.  Another thread that faults is MPI's own (UCX's async thread,
 * whose objects share heap pages with guarded buffers): it is never "the program at depth 0",
 * whatever its own aot_tls.depth says, and it must never wait, which would call
 * ucp_worker_progress while the main thread may be inside it. */
static pid_t aot_pg_main_tid;

static int aot_pg_from_program(void)
{
    return aot_tls.depth == 0 && (pid_t) aot_syscall(SYS_gettid) == aot_pg_main_tid;
}

/* Owned bytes touched by the program: wait for their requests.  Returns 1 when it waited. */
static int aot_pg_wait_owners(const struct aot_pg_access *a, uintptr_t addr, int program,
                              uintptr_t ip)
{
    int idx[AOT_PG_MAX_OWNERS], n = 0;

    for (int k = 0; k < a->n && n < AOT_PG_MAX_OWNERS; k++) {
        int m = aot_pg_owners(a->lo[k], a->hi[k], a->write[k], idx + n, AOT_PG_MAX_OWNERS - n);
        n += m < AOT_PG_MAX_OWNERS - n ? m : AOT_PG_MAX_OWNERS - n;
    }
    if (!n)
        return 0;
    if (!program) {
        if ((pid_t) aot_syscall(SYS_gettid) != aot_pg_main_tid)
            aot_fault_say("a thread that is not MPI_Init's touched a pending converted buffer "
                       "(a thread autoopt did not see start, such as one made by clone): "
                       "treated as a real fault\n");
        else
            aot_fault_say("a pending converted buffer was touched inside an MPI call or autoopt "
                       "(a signal handler?): treated as a real fault\n");
        aot_pg_say_owner((uintptr_t) a->lo[0], (uintptr_t) a->hi[0], a->write[0], ip,
                         &aot_pg_reqs[idx[0]]);
        return -1;
    }
    AOT_PG_COUNT(fault_waits, 1);
    aot_pg_wait_from_program(idx, n, addr);
    return 1;
}

/* An instruction that may raise another exception than the page fault once its page is open:
 * an integer division with a memory operand (F6/F7 /6, /7: a zero divisor), or any memory
 * access while the program unmasked a floating-point exception (MXCSR, x87 control word) or
 * set the alignment-check flag.  Stepped, its SIGFPE or SIGBUS would reach the program's
 * handler with the page open, and a handler that leaves with longjmp would leave it open (the
 * program then read bytes of a pending receive that were not there yet: found in issue 55's
 * second review); so the program waits for the page's requests instead. */
static int aot_pg_may_raise(const ucontext_t *uc)
{
    const unsigned char *p = (const unsigned char *) uc->uc_mcontext.gregs[REG_RIP];
    const struct _libc_fpstate *fp = uc->uc_mcontext.fpregs;
    int i = 0;

    if (uc->uc_mcontext.gregs[REG_EFL] & 0x40000)
        return 1;
    if (fp && ((fp->mxcsr & 0x1f80) != 0x1f80 || (fp->cwd & 0x3f) != 0x3f))
        return 1;
    while (i < 14 && (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0xf2 || p[i] == 0xf3 ||
                      p[i] == 0x2e || p[i] == 0x3e || p[i] == 0x26 || p[i] == 0x36 ||
                      p[i] == 0x64 || p[i] == 0x65 || (p[i] & 0xf0) == 0x40))
        i++;
    return i < 14 && (p[i] == 0xf6 || p[i] == 0xf7) && ((p[i + 1] >> 3) & 7) >= 6 &&
           (p[i + 1] >> 6) != 3;
}

/* A fault declined while steps of the same instruction are open (an access that runs from a
 * false-shared page into a page that is not paging's): the previous handler must not run with
 * the page open, nor leave it open if it jumps out.  The pages close and the steps end; if the
 * handler returns, the instruction faults on the guard again and is stepped anew. */
static void aot_pg_steps_abandon(ucontext_t *uc)
{
    int prog_tf = 0, dropped = 0;

    while (aot_pg_nsteps > 0 && aot_pg_steps[aot_pg_nsteps - 1].level > aot_pg_segv_nest &&
           aot_pg_steps[aot_pg_nsteps - 1].rip == uc->uc_mcontext.gregs[REG_RIP]) {
        struct aot_pg_step *s = &aot_pg_steps[aot_pg_nsteps - 1];
        aot_pg_restore_range(s->p0, s->p1);
        aot_pg_restore_range(s->p0b, s->p1b);
        prog_tf |= s->prog_tf;
        aot_pg_nsteps--;
        dropped = 1;
    }
    if (dropped && !prog_tf)
        uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t) AOT_PG_TRAP_FLAG;
}

/* Registered for SIGSEGV (the entry saves errno). */
static int aot_pg_segv(int sig, siginfo_t *si, ucontext_t *uc)
{
    uintptr_t addr = (uintptr_t) si->si_addr;
    struct aot_pg_access a = { .n = 0 };
    int write, rc, ours = 0, program;
    /* the program single-steps itself: every instruction's trap is its own, so a REP is
     * stepped (not done here at once) and the trap after our step goes on to it */
    int prog_tf = (uc->uc_mcontext.gregs[REG_EFL] & AOT_PG_TRAP_FLAG) != 0;

    (void) sig;

    if (!aot_pg_on || si->si_code <= 0 || aot_pg_nseg == 0)
        return AOT_FAULT_DECLINED;
    {
        /* ours only if the faulting page itself is guarded (an access that starts on an open
         * page and runs into a guarded one reports the first byte of the guarded one) */
        const struct aot_pg_seg *seg = aot_pg_seg_find(AOT_PG_PAGE(addr));
        if (!seg || seg->cur == seg->orig) {
            aot_pg_steps_abandon(uc);
            return AOT_FAULT_DECLINED;
        }
    }
    write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    if (aot_pg_decode(uc, &a)) {
        for (int k = 0; k < a.n; k++)
            if (aot_pg_guarded_meet((uintptr_t) a.lo[k], (uintptr_t) a.hi[k]))
                ours = 1;
        if (!ours) {
            /* the fault is not in what the instruction accesses per our decoding: be safe */
            a.rep = 0;
        }
    }
    program = aot_pg_from_program();
    if (!ours) {
        /* The access starts at addr (or before it, on an open page) and covers at most the
         * width of the instruction's memory operand (insn.c).  An instruction it does not
         * model: the program waits as if it covered AOT_PG_WINDOW bytes, which is safe; MPI or
         * another thread is judged by the byte it touched, so that its own data next to a
         * pending buffer (MPICH's datatype object 32 bytes before a receive buffer) is never
         * taken for that buffer. */
        int width = aot_pg_insn_width((const unsigned char *) uc->uc_mcontext.gregs[REG_RIP]);
        if (width <= 0)
            width = program ? AOT_PG_WINDOW : 1;
        a.rep = 0;
        a.n = 1;
        a.lo[0] = (intptr_t) addr;
        a.hi[0] = (intptr_t) addr + width;
        a.write[0] = write;
    }

    aot_pg_segv_nest++;
    rc = aot_pg_wait_owners(&a, addr, program, (uintptr_t) uc->uc_mcontext.gregs[REG_RIP]);
    if (rc < 0) {
        aot_pg_segv_nest--;
        return AOT_FAULT_DECLINED;
    }
    if (rc > 0) {
        /* run the instruction again: now it finds open pages, or false sharing */
        aot_pg_segv_nest--;
        return AOT_FAULT_HANDLED;
    }

    /* false sharing */
    AOT_PG_COUNT(faults_false_sharing, 1);
    if (!program)
        AOT_PG_COUNT(false_sharing_in_mpi, 1);
    if (program && !aot_pg_in_locked_code((uintptr_t) uc->uc_mcontext.gregs[REG_RIP]) &&
        aot_pg_may_raise(uc)) {
        int idx[AOT_PG_MAX_OWNERS];
        uintptr_t pg = AOT_PG_PAGE(addr);
        int n = aot_pg_owners((intptr_t) AOT_PG_ADDR(pg), (intptr_t) AOT_PG_ADDR(pg + 1), 1, idx,
                              AOT_PG_MAX_OWNERS);
        if (n > 0) {
            AOT_PG_COUNT(step_budget_waits, 1);
            aot_pg_wait_from_program(idx, n > AOT_PG_MAX_OWNERS ? AOT_PG_MAX_OWNERS : n, addr);
            aot_pg_segv_nest--;
            return AOT_FAULT_HANDLED;
        }
    }
    if (program && !aot_pg_in_locked_code((uintptr_t) uc->uc_mcontext.gregs[REG_RIP])) {
        /* The program keeps working on this page (a loop over data next to a halo, a heap
         * page shared with small buffers): past the step budget, waiting for the requests on
         * the page costs less than a fault and a single step per access.  Waiting is safe
         * here for the reason every wait is: the blocking call had returned only after its
         * transfer. */
        int idx[AOT_PG_MAX_OWNERS];
        int n = aot_pg_step_charge(AOT_PG_PAGE(addr), idx, AOT_PG_MAX_OWNERS);
        if (n > 0) {
            AOT_PG_COUNT(step_budget_waits, 1);
            aot_pg_wait_from_program(idx, n, addr);
            aot_pg_segv_nest--;
            return AOT_FAULT_HANDLED;
        }
    }
    if (a.rep && !prog_tf && (a.op & ~1) != 0xa6 && (a.op & ~1) != 0xac &&
        (a.op & ~1) != 0xae && !a.addr32 && a.n >= 1) {
        uintptr_t p0, p1, q0 = 0, q1 = 0;
        aot_pg_lift_range(a.lo[0], a.hi[0], &p0, &p1);
        if (a.n > 1)
            aot_pg_lift_range(a.lo[1], a.hi[1], &q0, &q1);
        aot_pg_emulate(uc, &a);
        aot_pg_restore_range(p0, p1);
        aot_pg_restore_range(q0, q1);
        AOT_PG_COUNT(rep_emulated, 1);
    } else if (aot_tls.depth > 0 && aot_pg_mpi_window && !a.rep &&
               aot_pg_lift_for_mpi(a.lo[0], a.hi[0])) {
        /* inside a bracketed MPI call: open the page until the call returns */
    } else if (aot_pg_nsteps < AOT_PG_MAX_STEPS) {
        struct aot_pg_step *s = &aot_pg_steps[aot_pg_nsteps];
        aot_pg_lift_range(a.lo[0], a.hi[0], &s->p0, &s->p1);
        s->p0b = s->p1b = 0;
        if (a.n > 1)
            aot_pg_lift_range(a.lo[1], a.hi[1], &s->p0b, &s->p1b);
        s->rip = uc->uc_mcontext.gregs[REG_RIP];
        s->level = aot_pg_segv_nest;
        s->rep = a.rep;
        s->prog_tf = prog_tf;
        aot_pg_nsteps++;
        uc->uc_mcontext.gregs[REG_EFL] |= AOT_PG_TRAP_FLAG;
    } else {
        aot_fault_say("too many nested single steps\n");
        aot_pg_segv_nest--;
        return AOT_FAULT_DECLINED;
    }
    aot_pg_segv_nest--;
    return AOT_FAULT_HANDLED;
}

/* Registered for SIGTRAP: the end of a single step of ours, or declined. */
static int aot_pg_trap(int sig, siginfo_t *si, ucontext_t *uc)
{
    int popped = 0, prog_tf = 0;

    (void) sig;

    /* a step ends with the trap flag's trap (TRAP_TRACE); int3 (SI_KERNEL), a hardware
     * breakpoint or a SIGTRAP sent by kill or raise is the program's (before issue 55's second
     * review such a trap ended a step left behind by a handler that jumped out, and was never
     * delivered).  Under a hypervisor the debug status register can come back empty, and the
     * kernel then reports the trap flag's trap as an icebp (TRAP_BRKPT): with a step of ours
     * open at this level it is that step's, since a stepped instruction accesses memory and is
     * never an icebp.  (CI's virtual machine killed paging.interleaved.convert with SIGTRAP
     * once, a trap declined here; 75 runs here did not repeat it, so the cause is inferred, and
     * the line below tells the next such trap's si_code.) */
    int open = aot_pg_nsteps > 0 && aot_pg_steps[aot_pg_nsteps - 1].level > aot_pg_segv_nest;
    if (si->si_code != TRAP_TRACE && !(si->si_code == TRAP_BRKPT && open)) {
        if (open && si->si_code > 0 && si->si_code != SI_KERNEL) {
            /* a trap the kernel made while a step is open, and not the step's: say so, so that
             * the death that follows can be told from one of autoopt's steps */
            char line[160];
            size_t n = 0;
            aot_pg_str(line, sizeof(line), &n, "autoopt: paging: SIGTRAP with si_code ");
            aot_pg_hex(line, sizeof(line), &n, (uintptr_t) si->si_code);
            aot_pg_str(line, sizeof(line), &n, " at ");
            aot_pg_hex(line, sizeof(line), &n, (uintptr_t) uc->uc_mcontext.gregs[REG_RIP]);
            aot_pg_str(line, sizeof(line), &n, " while a single step of ours is open: the program's\n");
            aot_pg_say_raw(line, n);
        }
        return AOT_FAULT_DECLINED;
    }
    while (aot_pg_nsteps > 0 && aot_pg_steps[aot_pg_nsteps - 1].level > aot_pg_segv_nest) {
        struct aot_pg_step *s = &aot_pg_steps[aot_pg_nsteps - 1];
        if (s->rep && !s->prog_tf && s->rip == uc->uc_mcontext.gregs[REG_RIP] && !popped) {
            /* a REP instruction between iterations: keep the pages open, step on */
            return AOT_FAULT_HANDLED;
        }
        aot_pg_restore_range(s->p0, s->p1);
        aot_pg_restore_range(s->p0b, s->p1b);
        prog_tf |= s->prog_tf;
        aot_pg_nsteps--;
        popped = 1;
    }
    if (!popped)
        return AOT_FAULT_DECLINED;
    if (prog_tf)
        return AOT_FAULT_DECLINED;  /* the program's own single step: its trap, flag kept */
    uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t) AOT_PG_TRAP_FLAG;
    return AOT_FAULT_HANDLED;
}

/* ---------------------------------------------------------------- installation */

/* dl_iterate_phdr callback: records the executable segments of the object holding the code
 * address `arg`.  Matched by address, not by load base, so a non-PIE executable that defines
 * malloc itself (load bias 0) is found too. */
static int aot_pg_note_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    uintptr_t fn = (uintptr_t) arg, base = (uintptr_t) info->dlpi_addr, lo = UINTPTR_MAX, hi = 0;
    (void) size;
    for (int k = 0; k < info->dlpi_phnum; k++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        if (base + ph->p_vaddr < lo)
            lo = base + ph->p_vaddr;
        if (base + ph->p_vaddr + ph->p_memsz > hi)
            hi = base + ph->p_vaddr + ph->p_memsz;
    }
    if (fn < lo || fn >= hi)
        return 0;
    if (aot_pg_nlocked < AOT_PG_MAX_LOCKED) {
        aot_pg_locked[aot_pg_nlocked].lo = lo;
        aot_pg_locked[aot_pg_nlocked].hi = hi;
        aot_pg_nlocked++;
    }
    return 1;
}

/* Records the executable segments of the object defining malloc (the C library, or an
 * allocator that replaces it) and of the C library itself, found through setvbuf (a stdio
 * function autoopt does not wrap, so the address is libc's, not ours). */
static void aot_pg_find_locked_code(void)
{
    void *const fns[2] = { (void *) malloc, (void *) setvbuf };

    aot_pg_nlocked = 0;
    for (int k = 0; k < 2; k++)
        if (!aot_pg_in_locked_code((uintptr_t) fns[k]))
            dl_iterate_phdr(aot_pg_note_object, fns[k]);
}

int aot_pg_handler_install(char *err, size_t errlen)
{
    aot_pg_main_tid = (pid_t) aot_syscall(SYS_gettid);
    aot_pg_find_locked_code();
    if (aot_fault_register(SIGSEGV, AOT_FAULT_SLOT_GUARDS, aot_pg_segv, err, errlen) != 0 ||
        aot_fault_register(SIGTRAP, AOT_FAULT_SLOT_GUARDS, aot_pg_trap, err, errlen) != 0) {
        aot_fault_unregister(SIGSEGV, AOT_FAULT_SLOT_GUARDS);
        return -1;
    }
    aot_fault_register_unguard(AOT_FAULT_SLOT_GUARDS, aot_pg_unguard_all);
    return 0;
}

void aot_pg_handler_uninstall(void)
{
    aot_fault_register_unguard(AOT_FAULT_SLOT_GUARDS, NULL);
    aot_fault_unregister(SIGSEGV, AOT_FAULT_SLOT_GUARDS);
    aot_fault_unregister(SIGTRAP, AOT_FAULT_SLOT_GUARDS);
}
