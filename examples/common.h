/*
 * Helpers shared by the example programs: option values that are checked and reported once
 * (by rank 0), and the FNV-1a checksum the examples print.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Header-only (static inline) so that every example still builds with one mpicc command.
 * The examples are plain MPI programs: nothing here knows about autoopt.
 */
#ifndef EXAMPLES_COMMON_H
#define EXAMPLES_COMMON_H

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exit codes of every example. */
enum { EX_OK = 0, EX_FAILED = 1, EX_USAGE = 2 };

/* Outcome of option parsing: go on, or stop after -h (EX_OK) or a bad option (EX_USAGE). */
enum { EX_RUN = -1 };

/* Program name used as the prefix of every message; set once by ex_setup(). */
static const char *ex_prog = "example";
static int ex_rank;

static inline void ex_setup(const char *prog, int rank)
{
    ex_prog = prog;
    ex_rank = rank;
}

/* One line "prog: message" on stderr, from rank 0 only (every rank parses the same options). */
__attribute__((format(printf, 1, 2)))
static inline void ex_error(const char *fmt, ...)
{
    va_list ap;

    if (ex_rank != 0)
        return;
    fprintf(stderr, "%s: ", ex_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/*
 * Reports what getopt() returned for an option it did not accept.  Call getopt() with an
 * option string that starts with ':' and with opterr = 0, so that ':' means "value missing".
 */
static inline int ex_bad_option(int c, int opt)
{
    if (c == ':')
        ex_error("option -%c needs a value (try -h)", opt);
    else if (opt >= 0x20 && opt < 0x7f)
        ex_error("unknown option -%c (try -h)", opt);
    else
        ex_error("unknown option (try -h)");
    return EX_USAGE;
}

/* Reports leftover operands: the examples take options only. */
static inline int ex_no_operands(int argc, char **argv, int optind_now)
{
    if (optind_now < argc) {
        ex_error("unexpected argument '%s' (try -h)", argv[optind_now]);
        return EX_USAGE;
    }
    return EX_RUN;
}

/* The value of option -opt as a long in [min, max]; 0 on success, EX_USAGE after a message. */
static inline int ex_parse_long(int opt, const char *arg, long min, long max, long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(arg, &end, 10);
    if (errno != 0 || end == arg || *end != '\0' || v < min || v > max) {
        ex_error("option -%c: '%s' is not an integer in [%ld, %ld]", opt, arg, min, max);
        return EX_USAGE;
    }
    *out = v;
    return 0;
}

static inline int ex_parse_int(int opt, const char *arg, int min, int max, int *out)
{
    long v;

    if (ex_parse_long(opt, arg, min, max, &v) != 0)
        return EX_USAGE;
    *out = (int) v;
    return 0;
}

/* A byte count with an optional binary suffix: 4096, 64K, 1M, 1G. */
static inline int ex_parse_bytes(int opt, const char *arg, long min, long max, long *out)
{
    char *end;
    long v, unit = 1;

    errno = 0;
    v = strtol(arg, &end, 10);
    if (end != arg && (*end == 'k' || *end == 'K'))
        unit = 1L << 10, end++;
    else if (end != arg && (*end == 'm' || *end == 'M'))
        unit = 1L << 20, end++;
    else if (end != arg && (*end == 'g' || *end == 'G'))
        unit = 1L << 30, end++;
    if (errno != 0 || end == arg || *end != '\0' || v < 0 || v > max / unit ||
        v * unit < min) {
        ex_error("option -%c: '%s' is not a byte count in [%ld, %ld]", opt, arg, min, max);
        return EX_USAGE;
    }
    *out = v * unit;
    return 0;
}

/* A double in the open interval (lo, hi). */
static inline int ex_parse_double(int opt, const char *arg, double lo, double hi, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(arg, &end);
    if (errno != 0 || end == arg || *end != '\0' || !(v > lo && v < hi)) {
        ex_error("option -%c: '%s' is not a number in (%g, %g)", opt, arg, lo, hi);
        return EX_USAGE;
    }
    *out = v;
    return 0;
}

/* A 64-bit checksum written in hex, with or without 0x. */
static inline int ex_parse_hex64(int opt, const char *arg, uint64_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(arg, &end, 16);
    if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-') {
        ex_error("option -%c: '%s' is not a 64-bit hex number", opt, arg);
        return EX_USAGE;
    }
    *out = (uint64_t) v;
    return 0;
}

/*
 * 64-bit FNV-1a.  Doubles are hashed through their IEEE-754 bit pattern, least significant
 * byte first, so the value does not depend on the host's byte order.
 */
#define EX_FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define EX_FNV_PRIME  UINT64_C(0x100000001b3)

static inline uint64_t ex_fnv1a_u64(uint64_t hash, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        hash ^= (v >> (8 * i)) & 0xff;
        hash *= EX_FNV_PRIME;
    }
    return hash;
}

static inline uint64_t ex_fnv1a_double(uint64_t hash, double d)
{
    uint64_t bits;

    memcpy(&bits, &d, sizeof bits);
    return ex_fnv1a_u64(hash, bits);
}

/* The finaliser of splitmix64: a well-mixed 64-bit hash of @x (cg and fft make their data
 * from a hash of the global index, the same on every rank and process count). */
static inline uint64_t ex_hash64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/*
 * The mode that runs at position @j of round @round when @n modes take turns: -m order in even
 * rounds, reversed in odd ones (A B C, C B A, A B C, ...).  A program slows down or speeds up
 * over a run (its first turns are the slowest: cold caches, MPI's first messages, the yield
 * library settling); with the same order in every round the first mode would be charged for
 * that drift (sor n=2048, 4 ranks, both modes straight to MPI: 1.04-1.14 for the one in front,
 * 0.86-0.97 behind).  Alternating the direction cancels a drift that is linear over two rounds.
 */
static inline int ex_turn_mode(int round, int j, int n)
{
    return (round & 1) ? n - 1 - j : j;
}

/* The usage lines of -W, which every example with turns takes. */
#define EX_USAGE_WARMUP                                                                         \
    "  -W WARM   first WARM untimed iterations of the first mode through PMPI_* (plain\n"     \
    "            MPI, which a tool does not see), so that the timed turns do not start\n"      \
    "            cold; the checksum is then that of WARM more iterations (default 0)\n"

#endif /* EXAMPLES_COMMON_H */
