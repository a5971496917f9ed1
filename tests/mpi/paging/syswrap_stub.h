/*
 * syswrap_stub.h: the stub library of test paging.syswrap_all (tests only, never installed).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The build generates syswrap_stub.c (paging/gen_syswrap.py --stub): every libc function that
 * paging/syswrap.c wraps, defined again in a library preloaded after libautoopt.so, so that
 * autoopt's wrapper finds it as the next definition.  Each forwards to libc, except the one
 * call the test armed (aot_sw_arm: that function, with a pointer argument in the test's
 * buffers): that call makes no system call; it checks with raw system calls, which never fault
 * and which no wrapper sees, that every pointer argument is readable over what the kernel would
 * reach (and writable where the kernel writes), keeps a copy of the bytes, and returns 0.
 */
#ifndef SYSWRAP_STUB_H_INCLUDED
#define SYSWRAP_STUB_H_INCLUDED
#include <stddef.h>
#include <stdint.h>

#define AOT_SW_EXPORT __attribute__((visibility("default")))
#define AOT_SW_MAXPTR 8
#define AOT_SW_MAXREACH 32768

/* What the armed call saw. */
struct aot_sw_record {
    int reached;                        /* the armed call ran */
    int nptrs;
    struct {
        const void *p;
        size_t n;                       /* bytes the kernel would reach (capped at MAXREACH) */
        int write;                      /* the kernel would write there */
        size_t readable, writable;      /* of those bytes, from p on */
    } ptr[AOT_SW_MAXPTR];
    unsigned char data[AOT_SW_MAXPTR][AOT_SW_MAXREACH];   /* the bytes read */
};

/* The test's entry points (found with dlsym(RTLD_DEFAULT, ...)). */
typedef void aot_sw_arm_fn(int k, const void *lo, const void *hi);
typedef const struct aot_sw_record *aot_sw_record_fn(void);
typedef size_t aot_sw_access_fn(const void *p, size_t n, int write);

#ifdef AOT_SW_STUB
/* For the generated stub. */
__attribute__((visibility("hidden"))) int aot_sw_mine(int k, const void *const *p, int n);
__attribute__((visibility("hidden"))) void aot_sw_check(const void *const *p, const size_t *n,
                                                        const int *write, int np);
__attribute__((visibility("hidden"))) void *aot_sw_next(const char *name);
__attribute__((visibility("hidden"))) size_t aot_sw_max(int n, ...);
#endif
#endif
