/*
 * calib.c: self-calibration (aot_calib.h): a guard's and a copy's cost, measured once on the
 * calling thread.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * On a private mapping of its own (never a page of the program or of the arena), through the
 * raw system calls (never the exported mprotect wrapper of paging/syscalls.c), timed with
 * CLOCK_MONOTONIC.  Each figure is the median of a few repetitions after one untimed one (the
 * pages' first fault, the code's first run); a figure stops repeating once it has used its
 * share of the time and has three samples (two for the 16-page guard), so a machine where
 * mprotect costs 100 us still pays about 0.5 ms.
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "aot_calib.h"
#include "aot_config.h"
#include "aot_log.h"
#include "aot_mem.h"
#include "aot_state.h"

struct aot_calib aot_calib;

#define AOT_CALIB_PAGE 4096
#define AOT_CALIB_PAGES 16                  /* the range of the per-page figure */
#define AOT_CALIB_COPY ((size_t) 64 << 10)  /* bytes copied */
#define AOT_CALIB_SHARE_NS 150000.0         /* time a figure may take before it stops early */

static double aot_calib_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e9 * (double) ts.tv_sec + (double) ts.tv_nsec;
}

static double aot_calib_median(double *x, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && x[j - 1] > x[j]; j--) {
            double t = x[j];
            x[j] = x[j - 1];
            x[j - 1] = t;
        }
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Protect [p, p + pages) to PROT_NONE, back to read-write, then write a byte of each page:
 * what one guard costs.  The median over the repetitions, ns; -1 when mprotect fails. */
static double aot_calib_guard(volatile char *p, int pages, int min_reps)
{
    double t[AOT_CALIB_REPS], spent = 0;
    size_t len = (size_t) pages * AOT_CALIB_PAGE;
    int n = 0;

    for (int r = 0; r <= AOT_CALIB_REPS && (n < min_reps || spent < AOT_CALIB_SHARE_NS); r++) {
        double t0 = aot_calib_clock();
        if (aot_sys_mprotect((uintptr_t) p, len, PROT_NONE) != 0 ||
            aot_sys_mprotect((uintptr_t) p, len, PROT_READ | PROT_WRITE) != 0)
            return -1;
        for (int i = 0; i < pages; i++)
            p[(size_t) i * AOT_CALIB_PAGE] = (char) r;
        double dt = aot_calib_clock() - t0;
        aot_calib.runs++;
        if (r == 0)
            continue;               /* untimed: the first run of this code */
        t[n++] = dt;
        spent += dt;
    }
    return aot_calib_median(t, n);
}

/* memcpy of AOT_CALIB_COPY bytes from a warm source, per KiB, ns. */
static double aot_calib_copy(char *dst, const char *src)
{
    double t[AOT_CALIB_REPS], spent = 0;
    int n = 0;

    for (int r = 0; r <= AOT_CALIB_REPS && (n < 3 || spent < AOT_CALIB_SHARE_NS / 3); r++) {
        double t0 = aot_calib_clock();
        memcpy(dst, src, AOT_CALIB_COPY);
        __asm__ volatile("" : : "r"(dst) : "memory");   /* the copy is not dead */
        double dt = aot_calib_clock() - t0;
        aot_calib.runs++;
        if (r == 0)
            continue;
        t[n++] = dt;
        spent += dt;
    }
    return aot_calib_median(t, n) / (double) (AOT_CALIB_COPY >> 10);
}

void aot_calib_measure(void)
{
    size_t glen = (size_t) AOT_CALIB_PAGES * AOT_CALIB_PAGE, len = glen + 2 * AOT_CALIB_COPY;
    double t0, one, many;
    char *m;

    if (aot_calib.measured || aot_cfg.calib == AOT_CALIB_OFF)
        return;
    if (aot_cfg.calib == AOT_CALIB_GIVEN) {
        aot_calib.guard_ns = aot_cfg.calib_guard_ns;
        aot_calib.guard_page_ns = aot_cfg.calib_page_ns;
        aot_calib.copy_ns_per_kib = aot_cfg.calib_copy_ns;
        aot_calib.measured = 2;
        return;
    }
    t0 = aot_calib_clock();
    m = aot_sys_mmap(len);
    if (m == MAP_FAILED) {
        AOT_LOG(1, "calibration: no memory to measure on; no figures");
        return;
    }
    memset(m, 1, len);              /* every page present before anything is timed */
    one = aot_calib_guard(m, 1, 3);
    many = aot_calib_guard(m, AOT_CALIB_PAGES, 2);
    aot_calib.copy_ns_per_kib = aot_calib_copy(m + glen, m + glen + AOT_CALIB_COPY);
    aot_sys_munmap(m, len);
    aot_maps_invalidate();
    if (one < 0 || many < 0) {
        AOT_LOG(1, "calibration: mprotect failed; no figures");
        return;
    }
    aot_calib.guard_ns = one;
    aot_calib.guard_page_ns = many > one ? (many - one) / (AOT_CALIB_PAGES - 1) : 0;
    aot_calib.cost_ns = aot_calib_clock() - t0;
    aot_calib.measured = 1;
    AOT_LOG(1, "calibration: guard %.1f us + %.2f us per page, copy %.3f us per KiB "
               "(measured in %.0f us)", aot_calib.guard_ns * 1e-3,
            aot_calib.guard_page_ns * 1e-3, aot_calib.copy_ns_per_kib * 1e-3,
            aot_calib.cost_ns * 1e-3);
}

double aot_calib_guard_cost(size_t pages)
{
    if (!aot_calib.measured || !pages)
        return 0;
    return aot_calib.guard_ns + (double) (pages - 1) * aot_calib.guard_page_ns;
}

double aot_calib_copy_cost(size_t bytes)
{
    if (!aot_calib.measured)
        return 0;
    return aot_calib.copy_ns_per_kib * (double) bytes / 1024.0;
}

int aot_calib_copy_beats_guard(size_t bytes)
{
    return aot_calib.measured &&
           aot_calib_copy_cost(bytes) < aot_calib_guard_cost(aot_calib_span_pages(bytes));
}
