/*
 * aot_pingpong: MPI ping-pong between ranks 0 and 1, for calibrating the emulated cluster.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Part of the measuring equipment (tools/netcluster), not of libautoopt.  For every message
 * size from -a to -b bytes (powers of two) rank 0 sends a message to rank 1 and rank 1 sends it
 * back, with MPI_Send and MPI_Recv.  Each round trip is timed on its own with MPI_Wtime, so the
 * report can give the median, the minimum and the maximum one-way time (half a round trip)
 * instead of a mean that one scheduler stall would spoil.  Every received message is checked
 * against the pattern its sender wrote, so the program doubles as a data-integrity test.
 *
 * Output (stdout, rank 0), one line per size, then a verdict line:
 *   aot_pingpong: ranks=2 host0=node0 host1=node1
 *   size=65536 reps=40 oneway_us_median=5401.2 oneway_us_min=5390.0 oneway_us_max=5600.3 mbit_s=97.07
 *   aot_pingpong: No Errors
 * mbit_s is payload bits per second at the median one-way time (1 Mbit = 10^6 bit).
 * Exit status 0, or 1 when a message arrived corrupted or an option is bad.
 * Ranks beyond the first two take no part and wait in the final barrier.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { AOT_PP_TAG = 17, AOT_PP_LAST = 18 };

static int aot_pp_rank;  /* only rank 0 reports bad options */

static void aot_pp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void aot_pp_err(const char *fmt, ...)
{
    va_list ap;
    if (aot_pp_rank != 0)
        return;
    va_start(ap, fmt);
    fputs("aot_pingpong: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

struct aot_pp_options {
    long min_bytes;     /* -a */
    long max_bytes;     /* -b */
    double seconds;     /* -t: time budget per size */
    long min_reps;      /* -r */
    long max_reps;      /* -R */
};

static void aot_pp_usage(FILE *f)
{
    fprintf(f,
            "usage: aot_pingpong [-a MIN_BYTES] [-b MAX_BYTES] [-t SECONDS] [-r MIN_REPS] [-R MAX_REPS]\n"
            "  MPI ping-pong between ranks 0 and 1 over powers of two from MIN_BYTES (default 1)\n"
            "  to MAX_BYTES (default 4194304).  Each size is repeated for about SECONDS (default\n"
            "  0.25; never past twice that), at least MIN_REPS (default 5) and at most MAX_REPS\n"
            "  (default 10000) times.\n"
            "  Prints one line per size (median/min/max one-way time, payload Mbit/s) and checks\n"
            "  the content of every message.  Needs at least 2 ranks.\n");
}

static int aot_pp_parse_long(const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        aot_pp_err("%s %s: expected an integer %ld..%ld", opt, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int aot_pp_parse(int argc, char **argv, struct aot_pp_options *o)
{
    o->min_bytes = 1;
    o->max_bytes = 4L << 20;
    o->seconds = 0.25;
    o->min_reps = 5;
    o->max_reps = 10000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            if (aot_pp_rank == 0)
                aot_pp_usage(stdout);
            return 1;
        }
        if (i + 1 >= argc) {
            aot_pp_err("%s: unknown option or missing value (see -h)", a);
            return -1;
        }
        const char *v = argv[++i];
        int rc;
        if (strcmp(a, "-a") == 0) {
            rc = aot_pp_parse_long(a, v, 1, 1L << 30, &o->min_bytes);
        } else if (strcmp(a, "-b") == 0) {
            rc = aot_pp_parse_long(a, v, 1, 1L << 30, &o->max_bytes);
        } else if (strcmp(a, "-r") == 0) {
            rc = aot_pp_parse_long(a, v, 1, 100000000, &o->min_reps);
        } else if (strcmp(a, "-R") == 0) {
            rc = aot_pp_parse_long(a, v, 1, 100000000, &o->max_reps);
        } else if (strcmp(a, "-t") == 0) {
            char *end;
            o->seconds = strtod(v, &end);
            rc = (*v == '\0' || *end != '\0' || !(o->seconds >= 0.0 && o->seconds <= 3600.0)) ? -1 : 0;
            if (rc)
                aot_pp_err("-t %s: expected seconds 0..3600", v);
        } else {
            aot_pp_err("%s: unknown option (see -h)", a);
            return -1;
        }
        if (rc)
            return -1;
    }
    if (o->min_bytes > o->max_bytes) {
        aot_pp_err("-a %ld is larger than -b %ld", o->min_bytes, o->max_bytes);
        return -1;
    }
    if (o->min_reps > o->max_reps) {
        aot_pp_err("-r %ld is larger than -R %ld", o->min_reps, o->max_reps);
        return -1;
    }
    return 0;
}

/* The byte pattern of message number rep of a given size sent by rank from. */
static unsigned char aot_pp_byte(long i, long rep, int from)
{
    return (unsigned char) ((i * 131u + (unsigned long) rep * 7u + (unsigned) from * 61u) & 0xffu);
}

static void aot_pp_fill(unsigned char *buf, long n, long rep, int from)
{
    for (long i = 0; i < n; i++)
        buf[i] = aot_pp_byte(i, rep, from);
}

/* Returns the number of wrong bytes (and reports the first one). */
static long aot_pp_check(const unsigned char *buf, long n, long rep, int from)
{
    long bad = 0;
    for (long i = 0; i < n; i++) {
        if (buf[i] != aot_pp_byte(i, rep, from)) {
            if (bad == 0)
                fprintf(stderr, "aot_pingpong: size %ld rep %ld from rank %d: byte %ld is 0x%02x, "
                        "expected 0x%02x\n", n, rep, from, i, buf[i], aot_pp_byte(i, rep, from));
            bad++;
        }
    }
    return bad;
}

static int aot_pp_cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    struct aot_pp_options o;
    int rank, size, parsed;
    long errors = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    aot_pp_rank = rank;

    parsed = aot_pp_parse(argc, argv, &o);     /* -1 bad option, 1 help printed */
    if (parsed == 0 && size < 2) {
        aot_pp_err("needs at least 2 ranks, got %d", size);
        parsed = -1;
    }
    if (parsed != 0) {
        MPI_Finalize();
        return parsed < 0 ? 1 : 0;
    }

    if (rank < 2) {
        int peer = 1 - rank;
        char name[MPI_MAX_PROCESSOR_NAME], peer_name[MPI_MAX_PROCESSOR_NAME];
        int len;
        unsigned char *buf = malloc((size_t) o.max_bytes);
        double *rtt = malloc(sizeof(double) * (size_t) o.max_reps);
        if (buf == NULL || rtt == NULL) {
            fprintf(stderr, "aot_pingpong: out of memory for %ld bytes\n", o.max_bytes);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(name, 0, sizeof name);
        MPI_Get_processor_name(name, &len);
        MPI_Sendrecv(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, peer, AOT_PP_TAG,
                     peer_name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, peer, AOT_PP_TAG,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank == 0) {
            printf("aot_pingpong: ranks=%d host0=%s host1=%s\n", size, name, peer_name);
            fflush(stdout);
        }

        for (long n = o.min_bytes; n <= o.max_bytes; n *= 2) {
            long reps = 0;
            /* Warm-up round trips (connection set-up, page faults); the fastest of them sizes
             * the run. */
            if (rank == 0) {
                double once = 0.0;
                for (int w = 0; w < 3; w++) {
                    aot_pp_fill(buf, n, -1, 0);
                    double t0 = MPI_Wtime();
                    MPI_Send(buf, (int) n, MPI_BYTE, 1, AOT_PP_TAG, MPI_COMM_WORLD);
                    MPI_Recv(buf, (int) n, MPI_BYTE, 1, AOT_PP_TAG, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                    double t = MPI_Wtime() - t0;
                    if (w == 0 || t < once)
                        once = t;
                    errors += aot_pp_check(buf, n, -1, 1);
                }
                reps = once > 0 ? (long) (o.seconds / once) : o.max_reps;
                if (reps < o.min_reps)
                    reps = o.min_reps;
                if (reps > o.max_reps)
                    reps = o.max_reps;
                MPI_Send(&reps, 1, MPI_LONG, 1, AOT_PP_TAG, MPI_COMM_WORLD);
            } else {
                for (int w = 0; w < 3; w++) {
                    MPI_Recv(buf, (int) n, MPI_BYTE, 0, AOT_PP_TAG, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                    errors += aot_pp_check(buf, n, -1, 0);
                    aot_pp_fill(buf, n, -1, 1);
                    MPI_Send(buf, (int) n, MPI_BYTE, 0, AOT_PP_TAG, MPI_COMM_WORLD);
                }
                MPI_Recv(&reps, 1, MPI_LONG, 0, AOT_PP_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }

            /* reps is an upper bound.  Rank 0 stops early once twice the time budget has
             * passed (a loaded machine makes round trips far slower than the warm-up said) and
             * marks the last message with AOT_PP_LAST, so rank 1 needs no extra message. */
            double loop_start = MPI_Wtime();
            long done = 0;
            for (long r = 0;; r++) {
                int last;
                if (rank == 0) {
                    last = r + 1 >= reps ||
                           (r + 1 >= o.min_reps && MPI_Wtime() - loop_start > 2.0 * o.seconds);
                    /* Fill and check the first and last message of large sizes only: a
                     * full-size check on every one would add memory time to the one-way time. */
                    int verify = n <= 4096 || r == 0 || last;
                    if (verify)
                        aot_pp_fill(buf, n, r, 0);
                    double t0 = MPI_Wtime();
                    MPI_Send(buf, (int) n, MPI_BYTE, 1, last ? AOT_PP_LAST : AOT_PP_TAG,
                             MPI_COMM_WORLD);
                    MPI_Recv(buf, (int) n, MPI_BYTE, 1, AOT_PP_TAG, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                    rtt[r] = MPI_Wtime() - t0;
                    if (verify)
                        errors += aot_pp_check(buf, n, r, 1);
                } else {
                    MPI_Status st;
                    MPI_Recv(buf, (int) n, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                    last = st.MPI_TAG == AOT_PP_LAST;
                    int verify = n <= 4096 || r == 0 || last;
                    if (verify) {
                        errors += aot_pp_check(buf, n, r, 0);
                        aot_pp_fill(buf, n, r, 1);
                    }
                    MPI_Send(buf, (int) n, MPI_BYTE, 0, AOT_PP_TAG, MPI_COMM_WORLD);
                }
                if (last) {
                    done = r + 1;
                    break;
                }
            }
            reps = done;

            if (rank == 0) {
                qsort(rtt, (size_t) reps, sizeof(double), aot_pp_cmp_double);
                double med = (reps % 2) ? rtt[reps / 2] : 0.5 * (rtt[reps / 2 - 1] + rtt[reps / 2]);
                double oneway = med / 2.0;
                printf("size=%ld reps=%ld oneway_us_median=%.2f oneway_us_min=%.2f "
                       "oneway_us_max=%.2f mbit_s=%.3f\n",
                       n, reps, oneway * 1e6, rtt[0] / 2.0 * 1e6, rtt[reps - 1] / 2.0 * 1e6,
                       oneway > 0 ? (double) n * 8.0 / oneway / 1e6 : 0.0);
                fflush(stdout);
            }
            if (n > o.max_bytes / 2)
                break;  /* n *= 2 would pass max_bytes (and must not overflow) */
        }
        free(rtt);
        free(buf);
    }

    long total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf("aot_pingpong: No Errors\n");
        else
            printf("aot_pingpong: %ld wrong bytes received\n", total);
        fflush(stdout);
    }
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
