/*
 * aot_calib.h: self-calibration -- what a guard (protect, unprotect, first touch) and a copy
 * cost on this machine, in this rank's real threading state (docs/govern.md, "Calibration").
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The figures seed the benefit governor (aot_gov_prior: a guarded mode whose calibrated cost
 * exceeds a site's period is not tried) and choose between copying and guarding a send.
 * mprotect costs 2-5 us on bare metal and 25-100 us in a virtual machine whose hypervisor
 * handles the guest's page tables, more when all vCPUs are busy: measured, not assumed.
 */
#ifndef AOT_CALIB_H_INCLUDED
#define AOT_CALIB_H_INCLUDED

#include <stddef.h>

struct aot_calib {
    int measured;            /* 0 until aot_calib_measure ran; 1 measured; 2 given by AUTOOPT_CALIB */
    double guard_ns;         /* mprotect to PROT_NONE + mprotect back to read-write of one page + the first touch after it, median */
    double guard_page_ns;    /* the extra per page for a 16-page range */
    double copy_ns_per_kib;  /* memcpy of 64 KiB from a warm source, per KiB */
    double cost_ns;          /* what measuring took, ns (0 when given) */
    int runs;                /* guard and copy runs made, untimed ones included (at most AOT_CALIB_MAX_RUNS) */
};
extern struct aot_calib aot_calib;

#define AOT_CALIB_REPS 7                    /* timed repetitions of a figure, at most */
#define AOT_CALIB_MAX_RUNS (3 * (AOT_CALIB_REPS + 1))

/* On the calling thread, in its real threading state, at most about 0.5 ms (a few repetitions
 * of each figure, fewer when one is slow); idempotent: only the first call measures.  Under
 * AUTOOPT_CALIB=0 it measures nothing (measured stays 0: no figures, no priors); with figures
 * given in AUTOOPT_CALIB it takes those.  Not thread-safe against a concurrent first call. */
void aot_calib_measure(void);

/* The pages a buffer of `bytes` may span: one more than it fills, as it need not start on a
 * page. */
static inline size_t aot_calib_span_pages(size_t bytes)
{
    return (bytes + 4095) / 4096 + 1;
}

/* The calibrated cost of guarding `pages` pages once (protect, unprotect, first touch of
 * each): guard_ns + (pages - 1) x guard_page_ns; 0 when not measured. */
double aot_calib_guard_cost(size_t pages);

/* The calibrated cost of copying `bytes` (copy_ns_per_kib); 0 when not measured. */
double aot_calib_copy_cost(size_t bytes);

/* Whether copying `bytes` costs less than guarding the pages they may span
 * (aot_calib_span_pages); 0 when not measured. */
int aot_calib_copy_beats_guard(size_t bytes);

#endif /* AOT_CALIB_H_INCLUDED */
