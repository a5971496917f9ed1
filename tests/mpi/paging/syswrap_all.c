/*
 * syswrap_all: every libc function paging/syswrap.c wraps, called with its pointer arguments in
 * buffers of pending converted requests (issue 55, item 4: "if a list is unavoidable, generate
 * it and test it exhaustively").  Run with LD_PRELOAD=libautoopt.so:libaot-syswrap-stub.so:
 * the stub library (syswrap_stub.h) defines the same functions after autoopt's wrappers, so no
 * real system call is made; the armed call checks that each pointer argument is readable
 * (writable where the kernel writes) over what the kernel would reach, and keeps the bytes.
 *
 * Pointer i of a call points 6 KiB before the end of the first of two 64 KiB messages in
 * region i (128 KiB, page-aligned): a reach over 6 KiB (a size argument, an array counted in
 * elements) needs the second message too.
 *   receive: rank 0 sends, rank 1 receives each message with MPI_Recv (converted: no-access
 *     guard, pending) and calls the function at once; the bytes the stub read must be the
 *     message's (the receive completed before the call), and every message arrives whole.
 *   send: rank 0 sends each message with MPI_Send (converted: read-only guard, pending) and
 *     calls the function; where the kernel writes, the sends there must have completed before
 *     the call (the bytes are writable after the call, when a guard only lifted for the call
 *     is back), and rank 1 receives the messages unchanged.
 * The fortified forms (__poll_chk, __open_2 ...) are called the same way, their object size
 * what the buffer holds from the pointer on.
 * The program lists every function whose stub saw a pointer it could not use, or that never
 * reached the stub (no wrapper passed it on; a function UCX's libucm patched would be named
 * and left out).  It passes natively too (no guards).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MSG (64 << 10)
#define REGION (2 * MSG)
#define OFFSET (MSG - (6 << 10))
#define AOT_SW_OBJSIZE ((size_t) (REGION - OFFSET))

#include "paging_test.h"
#include "syswrap_calls.h"
#include "syswrap_stub.h"

enum { RECV, SEND };
static const char *const variant_names[] = { "receive", "send" };

static aot_sw_arm_fn *arm;
static aot_sw_record_fn *record;
static aot_sw_access_fn *access_raw;

/* The byte at offset o of the buffers when function k is tested: never 0, so a path reaches
 * PATH_MAX bytes, as the stub assumes. */
static unsigned char pattern(int k, size_t o)
{
    return (unsigned char) (1 + (o * 131 + (o >> 12) * 7 + (size_t) k * 17) % 251);
}

static void fill(unsigned char *buf, size_t n, int k)
{
    for (size_t o = 0; o < n; o++)
        buf[o] = pattern(k, o);
}

/* The offset of the first byte of [o, o + n) that is not function k's; n if none. */
static size_t first_wrong(const unsigned char *buf, size_t o, size_t n, int k)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != pattern(k, o + i))
            return i;
    return n;
}

static void pause_us(long us)
{
    struct timespec ts = { 0, us * 1000 };
    nanosleep(&ts, NULL);
}

/* A page both ranks map (the same host), where the owner of the call says how far it got: the
 * peer sends (or receives) once the owner's requests are posted, so that they are still pending
 * at the call (a message there before MPI_Recv completes it at once; one there before the next
 * MPI_Recv may be retired by it).  Only under autoopt: natively MPI_Recv and MPI_Send of 64 KiB
 * wait for the peer.  Without the page (ranks on two hosts) the peer waits 2 ms instead. */
static int *posted;
static int converting;

static void shared_page(void)
{
    int (*active)(void) = (int (*)(void)) dlsym(RTLD_DEFAULT, "autoopt_active");
    char path[64];
    int pid0 = (int) getpid(), fd = -1;

    converting = active && active();
    PMPI_Bcast(&pid0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "/dev/shm/aot-syswrap-all-%d", pid0);
    if (pt_rank == 0 && (fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) >= 0 &&
        ftruncate(fd, 4096) != 0) {
        close(fd);
        fd = -1;
    }
    PMPI_Barrier(MPI_COMM_WORLD);
    if (pt_rank == 1)
        fd = open(path, O_RDWR);
    if (fd >= 0) {
        void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        posted = m == MAP_FAILED ? NULL : (int *) m;
        close(fd);
    }
    PMPI_Barrier(MPI_COMM_WORLD);
    if (pt_rank == 0)
        unlink(path);
}

static void say_posted(int step)
{
    if (posted)
        __atomic_store_n(posted, step, __ATOMIC_RELEASE);
}

static void wait_posted(int step)
{
    if (!converting)
        return;
    if (!posted) {
        pause_us(2000);
        return;
    }
    /* at most about 2 s: a receive that was not converted blocks until the peer sends */
    for (int i = 0; i < 40000 && __atomic_load_n(posted, __ATOMIC_ACQUIRE) < step; i++)
        pause_us(50);
}

/* What the stub saw of the armed call of function k; 0 if all was well. */
static int verdict(int v, int k, const unsigned char *buf, char *const *p)
{
    const struct aot_sw_record *r = record();
    int bad = 0;
    if (!r->reached) {
        const unsigned char *entry = (const unsigned char *) dlsym(RTLD_DEFAULT, aot_sw_names[k]);
        if (entry && entry[0] == 0xe9) {
            /* UCX's libucm (bistro mode) made the first definition jump to its own code, which
             * makes the system call itself (as it does to shmat, now wrapped by hand): no
             * wrapper runs, autoopt's or the stub's (docs/paging.md, "Mapping calls") */
            if (v == RECV)
                printf("note: %s is patched by UCX's libucm: not tested\n", aot_sw_names[k]);
            return 0;
        }
        fprintf(stderr, "[%s] %s: never reached the stub (no wrapper passed it on)\n",
                variant_names[v], aot_sw_names[k]);
        return 1;
    }
    for (int i = 0; i < r->nptrs; i++) {
        size_t n = r->ptr[i].n, o = (size_t) (p[i] - (const char *) buf), w;
        if (r->ptr[i].readable != n) {
            fprintf(stderr, "[%s] %s: pointer %d (reach %zu) readable for %zu bytes only\n",
                    variant_names[v], aot_sw_names[k], i, n, r->ptr[i].readable);
            bad = 1;
            continue;
        }
        if (r->ptr[i].write && r->ptr[i].writable != n) {
            fprintf(stderr, "[%s] %s: pointer %d (reach %zu) writable for %zu bytes only\n",
                    variant_names[v], aot_sw_names[k], i, n, r->ptr[i].writable);
            bad = 1;
        }
        if ((w = first_wrong(r->data[i], o, n, k)) != n) {
            fprintf(stderr, "[%s] %s: pointer %d: byte %zu of %zu was not the message's when the "
                    "call ran\n", variant_names[v], aot_sw_names[k], i, w, n);
            bad = 1;
        }
        if (v == SEND && r->ptr[i].write && n && access_raw(p[i], n, 1) != n) {
            fprintf(stderr, "[%s] %s: pointer %d: the kernel writes there but the send was "
                    "still pending (read-only after the call)\n", variant_names[v],
                    aot_sw_names[k], i);
            bad = 1;
        }
    }
    return bad;
}

/* One function in one variant; 1 if it failed on this rank. */
static int one(int v, int k, unsigned char *buf)
{
    int step = 1 + v * AOT_SW_N + k;
    int np = aot_sw_nptrs[k], nmsg = 2 * np, bad = 0, owner = v == RECV ? 1 : 0;
    size_t bytes = (size_t) np * REGION, w;
    char *p[AOT_SW_MAXPTRS];

    for (int i = 0; i < np; i++)
        p[i] = (char *) buf + (size_t) i * REGION + OFFSET;
    PMPI_Barrier(MPI_COMM_WORLD);
    if (pt_rank == owner) {
        if (v == RECV) {
            memset(buf, 0, bytes);
            for (int m = 0; m < nmsg; m++)
                MPI_Recv(buf + (size_t) m * MSG, MSG, MPI_BYTE, 0, m, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        } else {
            fill(buf, bytes, k);
            for (int m = 0; m < nmsg; m++)
                MPI_Send(buf + (size_t) m * MSG, MSG, MPI_BYTE, 1, m, MPI_COMM_WORLD);
        }
        say_posted(step);
        arm(k, buf, buf + bytes);
        aot_sw_call(k, p);
        bad = verdict(v, k, buf, p);
        if (v == RECV && (w = first_wrong(buf, 0, bytes, k)) != bytes) {
            fprintf(stderr, "[receive] %s: byte %zu of the messages is %u, expected %u\n",
                    aot_sw_names[k], w, buf[w], pattern(k, w));
            bad = 1;
        }
    } else if (pt_rank == 1 - owner) {
        wait_posted(step);
        if (v == RECV) {
            fill(buf, bytes, k);
            for (int m = 0; m < nmsg; m++)
                MPI_Send(buf + (size_t) m * MSG, MSG, MPI_BYTE, 1, m, MPI_COMM_WORLD);
        } else {
            memset(buf, 0, bytes);
            for (int m = 0; m < nmsg; m++)
                MPI_Recv(buf + (size_t) m * MSG, MSG, MPI_BYTE, 0, m, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            if ((w = first_wrong(buf, 0, bytes, k)) != bytes) {
                fprintf(stderr, "[send] %s: byte %zu of the messages arrived as %u, expected %u\n",
                        aot_sw_names[k], w, buf[w], pattern(k, w));
                bad = 1;
            }
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    size_t bytes = (size_t) AOT_SW_MAXPTRS * REGION;
    unsigned char *buf = NULL;
    char failed[2][AOT_SW_N];

    pt_init(&argc, &argv);
    arm = (aot_sw_arm_fn *) dlsym(RTLD_DEFAULT, "aot_sw_arm");
    record = (aot_sw_record_fn *) dlsym(RTLD_DEFAULT, "aot_sw_record");
    access_raw = (aot_sw_access_fn *) dlsym(RTLD_DEFAULT, "aot_sw_access");
    if (pt_size != 2 || !arm || !record || !access_raw) {
        CHECK(0, "needs 2 ranks and LD_PRELOAD=...:libaot-syswrap-stub.so (the stub library)");
        return aot_test_finish();
    }
    shared_page();
    if (posix_memalign((void **) &buf, 4096, bytes) != 0) {
        CHECK(0, "posix_memalign of %zu bytes failed", bytes);
        return aot_test_finish();
    }
    for (int v = RECV; v <= SEND; v++)
        for (int k = 0; k < AOT_SW_N; k++) {
            int bad = one(v, k, buf), any = 0;
            PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            failed[v][k] = (char) any;
            aot_test_errors += bad;
        }
    if (pt_rank == 0)
        for (int v = RECV; v <= SEND; v++) {
            int n = 0;
            for (int k = 0; k < AOT_SW_N; k++)
                n += failed[v][k];
            printf("%s variant: %d of %d functions failed%s", variant_names[v], n, AOT_SW_N,
                   n ? ":" : "\n");
            for (int k = 0; k < AOT_SW_N && n; k++)
                if (failed[v][k])
                    printf(" %s", aot_sw_names[k]);
            if (n)
                printf("\n");
        }
    free(buf);
    if (posted)
        munmap(posted, 4096);
    return aot_test_finish();
}
