/*
 * probe.c: touch probes, the chain learner's eyes.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * While a phase is being learned, the pages of its buffers are protected between two MPI calls
 * (receive buffers no-access, send buffers read-only), with no request pending on them: the
 * calls ran as the program asked.  If the program touches one of those pages before its next MPI
 * call, the SIGSEGV handler lifts every probe, records the touch and returns, so the instruction
 * runs again on open pages; if not, the next MPI call lifts them (aot_chains_enter, before
 * paging or MPI run).  A touch is counted per page, not per byte: data that merely shares a page
 * with a buffer ends the phase too, which can make chains shorter but never wrong.
 *
 * Probes never cover a page that paging guards (chains.c completes paging's requests on those
 * pages first, and paging only guards inside MPI calls, when no probe is set), the stack, or a
 * mapping that is not private and writable (aot_ch_probe_mapping_ok): lifting restores
 * PROT_READ|PROT_WRITE.  The cost is paid only while a phase is learned, then the signature is
 * a chain member or retires: per call, one mprotect per run of pages with equal protection to
 * set the probes and one per run of adjacent pages to lift them (buffers sharing a page cost
 * one), and a fault per phase.  Each probed page gets a mapping of its own the first time
 * (aot_ch_isolate), which makes those calls about 3 times cheaper.
 *
 * RULES FOR THE HANDLER (signal context): it calls only mprotect through aot_syscall(), reads
 * only the probe table (static, in libautoopt's own data) and writes only the volatile words
 * below; no malloc, no stdio, and no lock but the probe lock (see aot_ch_lock).  It is registered
 * with autoopt's fault entry (src/aot_fault.h, slot AOT_FAULT_SLOT_PROBES, asked after paging's
 * guards) and declines a fault that is not on a probed page; the entry passes it on to the
 * handler installed before autoopt (UCX's, the program's or the default), as the kernel would
 * have delivered it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "aot_fault.h"
#include "chains.h"

#define AOT_CH_MAX_RUNS 512

struct aot_ch_run {
    uintptr_t lo, hi;                 /* page-aligned */
    int prot;
};
/* What the learner asks for (aot_ch_probe_add), page runs that may overlap. */
static struct aot_ch_run aot_ch_runs[AOT_CH_MAX_RUNS];
static int aot_ch_nruns;
/* What is set: sorted, disjoint runs, adjacent runs of equal protection merged (arm writes it
 * before it sets a probe; lift, also in the handler, empties it). */
static struct aot_ch_run aot_ch_armed[2 * AOT_CH_MAX_RUNS];
static int aot_ch_narmed;
static struct aot_ch_run aot_ch_want[2 * AOT_CH_MAX_RUNS];
static uint64_t aot_ch_nmprotect;

/* Pages probed recently, kept after the probes are lifted.  Another thread (UCX's progress
 * thread, which shares heap pages with the program's buffers) can fault on a probed page just
 * before the main thread lifts the probes; by the time the handler runs the page is open
 * again, and the access only needs to be retried.  A few retries at most: a page that stays
 * closed belongs to someone else, and its fault goes on to the previous handler. */
#define AOT_CH_HISTORY 1024
static struct aot_ch_run aot_ch_history[AOT_CH_HISTORY];
static unsigned aot_ch_history_next;
static volatile unsigned aot_ch_arm_gen;
static pid_t aot_ch_main_tid;         /* the thread that called MPI_Init */
static __thread uintptr_t aot_ch_retry_addr;
static __thread unsigned aot_ch_retry_gen;
static __thread int aot_ch_retries;

static uintptr_t aot_ch_page;
volatile int aot_ch_probe_on;
volatile int aot_ch_touched;
volatile uintptr_t aot_ch_touch_addr, aot_ch_touch_ip;
static int aot_ch_installed;

/*
 * mprotect on a page inside a large mapping (the heap) splits the mapping in three and merges
 * it back when the probe is lifted: about 4 us per call on a 2-core VM, against 1.4 us when
 * the page already is a mapping of its own.  madvise gives each probed page one for good:
 * mappings with different flags are never merged, so pages get MADV_NOHUGEPAGE and
 * MADV_HUGEPAGE by turns (by page number), and neither flag can matter to a one-page mapping,
 * which no transparent huge page fits.  Contents and protection do not change.  Done once per
 * page, with the raw system call (libautoopt wraps madvise for paging), for at most
 * AOT_CH_ISOLATE_MAX pages, so that the number of mappings stays far below vm.max_map_count.
 */
#define AOT_CH_ISOLATE_MAX 1024
static uintptr_t aot_ch_isolated[2 * AOT_CH_ISOLATE_MAX];    /* open addressing, page numbers */
static int aot_ch_nisolated;

static void aot_ch_isolate(uintptr_t lo, uintptr_t hi)
{
    for (uintptr_t page = lo; page < hi && aot_ch_nisolated < AOT_CH_ISOLATE_MAX;
         page += aot_ch_page) {
        uintptr_t pn = page / aot_ch_page;
        unsigned h = (unsigned) (pn * 0x9E3779B1u) % (2 * AOT_CH_ISOLATE_MAX);
        while (aot_ch_isolated[h] && aot_ch_isolated[h] != pn)
            h = (h + 1) % (2 * AOT_CH_ISOLATE_MAX);
        if (aot_ch_isolated[h] == pn)
            continue;
        if (aot_sys_madvise(page, (size_t) aot_ch_page,
                            (pn & 1) ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) == 0) {
            aot_ch_isolated[h] = pn;
            aot_ch_nisolated++;
        }
    }
}

static int aot_ch_mprotect(uintptr_t lo, uintptr_t hi, int prot)
{
    aot_ch_nmprotect++;
    return aot_sys_mprotect(lo, hi - lo, prot);
}

uint64_t aot_ch_probe_syscalls(void)
{
    return aot_ch_nmprotect;
}

/*
 * The probe state (aot_ch_armed, aot_ch_narmed, aot_ch_probe_on and the protections they
 * describe) changes under one lock.  The main thread arms and lifts; another thread lifts when
 * a wrapped libc call of its own runs while probes are armed (aot_ch_probe_release: UCX's
 * progress thread reads its eventfd).  Without the lock such a lift could run between the main
 * thread's arming of the table and its mprotect calls and leave pages closed that no table
 * describes; and a main-thread fault during another thread's lift (aot_ch_probe_on already 0,
 * the pages not yet open) ran out of retries.  Either way the program's next access was a crash
 * (p2p.np1 under load, 1 run in 100; tests/mpi/chains/thread_release.c, every run).  The fault
 * handler therefore waits for the lock before it retries an access to a probed page.
 * The lock word holds the owner's thread id, so that the main thread, which never faults on a
 * probe inside the lock (the locked code touches only this file's data), can also take it in
 * its fault handler; a nested attempt by the owner (a wrapped call from inside, which the code
 * does not make) is refused instead of deadlocking.
 */
static volatile pid_t aot_ch_lock_owner;

static int aot_ch_lock(void)
{
    pid_t me = (pid_t) aot_syscall(SYS_gettid), free_word = 0;
    if (__atomic_load_n(&aot_ch_lock_owner, __ATOMIC_RELAXED) == me)
        return 0;
    while (!__atomic_compare_exchange_n(&aot_ch_lock_owner, &free_word, me, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED)) {
        free_word = 0;
        __builtin_ia32_pause();
    }
    return 1;
}

static void aot_ch_unlock(int taken)
{
    if (taken)
        __atomic_store_n(&aot_ch_lock_owner, 0, __ATOMIC_RELEASE);
}

static void aot_ch_lift_locked(void)
{
    int n = aot_ch_narmed;
    if (!aot_ch_probe_on)
        return;
    aot_ch_probe_on = 0;
    aot_probes_armed = 0;
    /* adjacent runs differ only in protection: one call opens them all */
    for (int i = 0; i < n;) {
        uintptr_t lo = aot_ch_armed[i].lo, hi = aot_ch_armed[i].hi;
        for (i++; i < n && aot_ch_armed[i].lo == hi; i++)
            hi = aot_ch_armed[i].hi;
        aot_ch_mprotect(lo, hi, PROT_READ | PROT_WRITE);
    }
    aot_ch_narmed = 0;
}

void aot_ch_probe_lift(void)
{
    int taken;
    if (!aot_ch_probe_on)
        return;
    taken = aot_ch_lock();
    aot_ch_lift_locked();
    aot_ch_unlock(taken);
}

/* Installed as aot_probes_release: a libc call is about to hand probed memory to the kernel or
 * the allocator.  Lift the probes and count it as the program touching the phase's data. */
static void aot_ch_probe_release(void)
{
    if (!aot_ch_probe_on)
        return;
    aot_ch_probe_lift();
    if (aot_tls.depth == 0)
        aot_ch_touched = 1;
}

void aot_ch_probe_reset(void)
{
    aot_ch_probe_lift();
    aot_ch_nruns = 0;
}

void aot_ch_probe_add(intptr_t lo, intptr_t hi, int recv)
{
    uintptr_t plo, phi;
    if (hi <= lo || aot_ch_nruns >= AOT_CH_MAX_RUNS)
        return;
    plo = (uintptr_t) lo & ~(aot_ch_page - 1);
    phi = ((uintptr_t) hi + aot_ch_page - 1) & ~(aot_ch_page - 1);
    aot_ch_runs[aot_ch_nruns].lo = plo;
    aot_ch_runs[aot_ch_nruns].hi = phi;
    aot_ch_runs[aot_ch_nruns].prot = recv ? PROT_NONE : PROT_READ;
    aot_ch_nruns++;
}

static int aot_ch_cmp_addr(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *) a, y = *(const uintptr_t *) b;
    return x < y ? -1 : x > y;
}

/* The requested runs as sorted, disjoint runs: a page under a receive is no-access, else
 * read-only; adjacent runs of equal protection merged.  Returns how many. */
static int aot_ch_want_build(void)
{
    static uintptr_t cut[2 * AOT_CH_MAX_RUNS];
    int ncut = 0, nw = 0;

    for (int i = 0; i < aot_ch_nruns; i++) {
        cut[ncut++] = aot_ch_runs[i].lo;
        cut[ncut++] = aot_ch_runs[i].hi;
    }
    qsort(cut, (size_t) ncut, sizeof(cut[0]), aot_ch_cmp_addr);
    for (int j = 0; j + 1 < ncut; j++) {
        uintptr_t a = cut[j], b = cut[j + 1];
        int prot = -1;
        if (a == b)
            continue;
        for (int i = 0; i < aot_ch_nruns && prot != PROT_NONE; i++)
            if (aot_ch_runs[i].lo <= a && aot_ch_runs[i].hi >= b)
                prot = aot_ch_runs[i].prot;
        if (prot < 0)
            continue;
        if (nw > 0 && aot_ch_want[nw - 1].hi == a && aot_ch_want[nw - 1].prot == prot)
            aot_ch_want[nw - 1].hi = b;
        else
            aot_ch_want[nw++] = (struct aot_ch_run) { a, b, prot };
    }
    return nw;
}

/* Applies the requested runs (after reset or lift: nothing is set), one system call per run of
 * equal protection. */
void aot_ch_probe_arm(void)
{
    int nw, taken;

    if (!aot_ch_nruns || !aot_ch_installed)
        return;
    if (aot_fault_blocked()) {
        /* the program blocks SIGSEGV: a probe's fault would kill (src/aot_fault.h); with no
         * probe the phase counts as touched, and chains stay conservative */
        aot_ch_touched = 1;
        return;
    }
    nw = aot_ch_want_build();         /* (qsort may allocate: outside the lock) */
    taken = aot_ch_lock();
    aot_ch_lift_locked();             /* what is still set (callers reset first) */
    for (int j = 0; j < nw; j++)
        aot_ch_history[aot_ch_history_next++ % AOT_CH_HISTORY] = aot_ch_want[j];
    aot_ch_arm_gen++;
    memcpy(aot_ch_armed, aot_ch_want, (size_t) nw * sizeof(aot_ch_want[0]));
    aot_ch_narmed = nw;
    aot_ch_probe_on = 1;
    aot_probes_armed = 1;
    for (int j = 0; j < nw; j++) {
        aot_ch_isolate(aot_ch_want[j].lo, aot_ch_want[j].hi);
        if (aot_ch_mprotect(aot_ch_want[j].lo, aot_ch_want[j].hi, aot_ch_want[j].prot) != 0) {
            aot_ch_lift_locked();     /* not observable: treat as no probe at all */
            break;
        }
    }
    aot_ch_unlock(taken);
}

static int aot_ch_was_probed(uintptr_t addr)
{
    for (int i = 0; i < AOT_CH_HISTORY; i++)
        if (addr >= aot_ch_history[i].lo && addr < aot_ch_history[i].hi)
            return 1;
    return 0;
}

static int aot_ch_on_probe(uintptr_t addr)
{
    for (int i = 0; i < aot_ch_nruns; i++)
        if (addr >= aot_ch_runs[i].lo && addr < aot_ch_runs[i].hi)
            return 1;
    return 0;
}

/* Registered for SIGSEGV (the entry saves errno). */
static int aot_ch_segv(int sig, siginfo_t *si, ucontext_t *uc)
{
    uintptr_t addr = (uintptr_t) si->si_addr;

    (void) sig;

    if (si->si_code == SEGV_ACCERR && (pid_t) aot_syscall(SYS_gettid) != aot_ch_main_tid &&
        ((aot_ch_probe_on && aot_ch_on_probe(addr)) || aot_ch_was_probed(addr))) {
        /* Another thread: at MPI_THREAD_SINGLE that is MPI's own (UCX's progress thread, whose
         * objects share heap pages with the program's buffers), never the program.  It must
         * not lift or arm probes behind the main thread's back: open just its page, and let
         * the phase count as touched (chains then stay conservative). */
        aot_syscall(SYS_mprotect, (void *) (addr & ~(aot_ch_page - 1)), (size_t) aot_ch_page,
                PROT_READ | PROT_WRITE);
        aot_ch_touched = 1;
        return AOT_FAULT_HANDLED;
    }
    if (aot_ch_probe_on && si->si_code > 0 && aot_ch_on_probe(addr)) {
        aot_ch_probe_lift();
        if (aot_tls.depth == 0) {
            /* the program itself; inside MPI or autoopt it is not a touch of the program */
            aot_ch_touch_addr = addr;
            aot_ch_touch_ip = (uintptr_t) uc->uc_mcontext.gregs[REG_RIP];
            aot_ch_touched = 1;
        }
        return AOT_FAULT_HANDLED;
    }
    if (si->si_code == SEGV_ACCERR && aot_ch_was_probed(addr)) {
        /* another thread may be lifting right now (it clears aot_ch_probe_on before its
         * mprotect calls): wait until it is done, then retry */
        aot_ch_unlock(aot_ch_lock());
        if (aot_ch_retry_addr != addr || aot_ch_retry_gen != aot_ch_arm_gen) {
            aot_ch_retry_addr = addr;
            aot_ch_retry_gen = aot_ch_arm_gen;
            aot_ch_retries = 0;
        }
        if (aot_ch_retries++ < 3)
            return AOT_FAULT_HANDLED;     /* lifted meanwhile: retry the access */
    }
    aot_ch_retry_addr = 0;
    return AOT_FAULT_DECLINED;
}

/* ---------------------------------------------------------------- where probes may go */


/* Whether a buffer lies in private writable memory (rw-p): the mapping query of src/maps.c,
 * asked once per signature, when it is created. */
int aot_ch_probe_mapping_ok(intptr_t lo, intptr_t hi)
{
    uintptr_t plo, phi;
    if (hi <= lo)
        return 1;
    plo = (uintptr_t) lo & ~(aot_ch_page - 1);
    phi = ((uintptr_t) hi + aot_ch_page - 1) & ~(aot_ch_page - 1);
    return aot_maps_check(plo, phi, PROT_READ | PROT_WRITE) == AOT_MAPS_OK;
}

/* ---------------------------------------------------------------- installation */

int aot_ch_probe_init(char *err, size_t errlen)
{
    aot_ch_page = (uintptr_t) sysconf(_SC_PAGESIZE);
    aot_ch_main_tid = (pid_t) aot_syscall(SYS_gettid);
    aot_stack_main_init();
    if (aot_fault_register(SIGSEGV, AOT_FAULT_SLOT_PROBES, aot_ch_segv, err, errlen) != 0)
        return -1;
    aot_ch_installed = 1;
    aot_probes_release = aot_ch_probe_release;
    /* the program blocks SIGSEGV: the probes go, as before a libc call hands their memory on */
    aot_fault_register_unguard(AOT_FAULT_SLOT_PROBES, aot_ch_probe_release);
    return 0;
}

void aot_ch_probe_finalize(void)
{
    aot_ch_probe_reset();
    aot_probes_release = NULL;
    aot_fault_register_unguard(AOT_FAULT_SLOT_PROBES, NULL);
    if (!aot_ch_installed)
        return;
    aot_fault_unregister(SIGSEGV, AOT_FAULT_SLOT_PROBES);
    aot_ch_installed = 0;
}
