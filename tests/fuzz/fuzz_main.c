/*
 * fuzz_main.c: the deterministic driver of a fuzz target, for CTest and for anyone without
 * libFuzzer.  SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   fuzz-<target> [--seed N] [--runs N] [--max-len BYTES] CORPUS_FILE...
 *
 * Every corpus file is run as it is, then --runs inputs are made from them, each by one
 * mutation (three in four) or up to eight, drawn from a fixed-seed generator (xorshift64*): flip a bit, set a byte to a
 * random or a boundary value, insert or delete a run of bytes, duplicate a run, insert a word
 * of the target's dictionary, or splice in part of another corpus file.  The same seed gives
 * the same inputs on every machine, so a failure in CI is reproduced by the command it prints.
 * Exit status: 0 no failure, 2 bad usage or unreadable corpus; a failed oracle aborts (134).
 * For longer runs, build the same target with libFuzzer (tests/fuzz/README.md).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz.h"

struct aot_fuzz_buf {
    uint8_t *p;
    size_t n;
};

static uint64_t aot_rng_state;

static uint64_t aot_rng(void)
{
    uint64_t x = aot_rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    aot_rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static size_t aot_rnd(size_t n)
{
    return n ? (size_t) (aot_rng() % n) : 0;
}

static int aot_read_file(const char *path, struct aot_fuzz_buf *b)
{
    FILE *f = fopen(path, "rb");
    long n;
    if (!f)
        return -1;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return -1;
    }
    b->p = malloc((size_t) n + 1);
    b->n = (size_t) n;
    if (!b->p || fread(b->p, 1, b->n, f) != b->n) {
        fclose(f);
        return -1;
    }
    fclose(f);
    return 0;
}

/* Makes room for len bytes at pos (or removes -len), keeping the input under max bytes. */
static void aot_splice(struct aot_fuzz_buf *b, size_t pos, const uint8_t *ins, size_t len,
                       size_t max)
{
    if (b->n + len > max)
        len = max > b->n ? max - b->n : 0;
    b->p = realloc(b->p, b->n + len + 1);
    if (!b->p)
        abort();
    memmove(b->p + pos + len, b->p + pos, b->n - pos);
    memcpy(b->p + pos, ins, len);
    b->n += len;
}

static void aot_mutate(struct aot_fuzz_buf *b, const struct aot_fuzz_buf *corpus, int ncorpus,
                       size_t max)
{
    static const uint8_t boundary[] = {0, 0x7f, 0x80, 0xff, '\n', '#', '-', ' ', '9', ':', '='};
    size_t pos = aot_rnd(b->n + 1), len;
    int ndict = 0;

    while (aot_fuzz_dict[ndict])
        ndict++;
    switch (aot_rnd(8)) {
    case 0:                                             /* flip a bit */
        if (b->n)
            b->p[aot_rnd(b->n)] ^= (uint8_t) (1u << aot_rnd(8));
        break;
    case 1:                                             /* a random byte */
        if (b->n)
            b->p[aot_rnd(b->n)] = (uint8_t) aot_rng();
        break;
    case 2:                                             /* a boundary byte */
        if (b->n)
            b->p[aot_rnd(b->n)] = boundary[aot_rnd(sizeof(boundary))];
        break;
    case 3: {                                           /* insert random bytes */
        uint8_t r[16];
        len = 1 + aot_rnd(sizeof(r));
        for (size_t i = 0; i < len; i++)
            r[i] = (uint8_t) aot_rng();
        aot_splice(b, pos, r, len, max);
        break;
    }
    case 4:                                             /* delete a run */
        if (b->n > pos) {
            len = 1 + aot_rnd(b->n - pos < 64 ? b->n - pos : 64);
            memmove(b->p + pos, b->p + pos + len, b->n - pos - len);
            b->n -= len;
        }
        break;
    case 5:                                             /* duplicate a run */
        if (b->n) {
            size_t from = aot_rnd(b->n);
            uint8_t *copy;
            len = 1 + aot_rnd(b->n - from < 256 ? b->n - from : 256);
            copy = malloc(len);
            if (!copy)
                abort();
            memcpy(copy, b->p + from, len);
            aot_splice(b, pos, copy, len, max);
            free(copy);
        }
        break;
    case 6: {                                           /* a word of the dictionary */
        const char *w = aot_fuzz_dict[aot_rnd((size_t) ndict)];
        aot_splice(b, pos, (const uint8_t *) w, strlen(w), max);
        break;
    }
    default: {                                          /* part of another corpus file */
        const struct aot_fuzz_buf *o = &corpus[aot_rnd((size_t) ncorpus)];
        if (o->n) {
            size_t from = aot_rnd(o->n);
            len = 1 + aot_rnd(o->n - from);
            aot_splice(b, pos, o->p + from, len, max);
        }
        break;
    }
    }
}

static void aot_usage(FILE *f, const char *prog)
{
    fprintf(f, "usage: %s [--seed N] [--runs N] [--max-len BYTES] CORPUS_FILE...\n"
               "  Runs each corpus file, then N mutated inputs (default 20000, seed 1,\n"
               "  max-len 4096) through the %s fuzz target; aborts with the input on the\n"
               "  first broken promise.\n", prog, aot_fuzz_name);
}

static int aot_num(const char *opt, const char *v, unsigned long long *out)
{
    char *end;
    errno = 0;
    *out = strtoull(v ? v : "", &end, 10);
    if (!v || !*v || *end || errno || v[0] == '-') {
        fprintf(stderr, "fuzz-%s: %s: expected a whole number, got '%s'\n", aot_fuzz_name, opt,
                v ? v : "");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    unsigned long long seed = 1, runs = 20000, max = 4096;
    struct aot_fuzz_buf *corpus;
    int ncorpus = 0, i;
    time_t start = time(NULL);

    corpus = calloc((size_t) argc, sizeof(*corpus));
    if (!corpus)
        return 2;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            aot_usage(stdout, argv[0]);
            return 0;
        } else if (strcmp(argv[i], "--seed") == 0) {
            if (aot_num("--seed", i + 1 < argc ? argv[++i] : NULL, &seed) != 0)
                return 2;
        } else if (strcmp(argv[i], "--runs") == 0) {
            if (aot_num("--runs", i + 1 < argc ? argv[++i] : NULL, &runs) != 0)
                return 2;
        } else if (strcmp(argv[i], "--max-len") == 0) {
            if (aot_num("--max-len", i + 1 < argc ? argv[++i] : NULL, &max) != 0 || max == 0)
                return 2;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "fuzz-%s: unknown option '%s' (see --help)\n", aot_fuzz_name,
                    argv[i]);
            return 2;
        } else {
            if (aot_read_file(argv[i], &corpus[ncorpus]) != 0) {
                fprintf(stderr, "fuzz-%s: %s: cannot read: %s\n", aot_fuzz_name, argv[i],
                        strerror(errno));
                return 2;
            }
            ncorpus++;
        }
    }
    if (ncorpus == 0) {
        aot_usage(stderr, argv[0]);
        return 2;
    }
    aot_rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (i = 0; i < ncorpus; i++)
        LLVMFuzzerTestOneInput(corpus[i].p, corpus[i].n);
    for (unsigned long long r = 0; r < runs; r++) {
        const struct aot_fuzz_buf *from = &corpus[aot_rnd((size_t) ncorpus)];
        struct aot_fuzz_buf b = {malloc(from->n + 1), from->n};
        int nmut = 1 + (aot_rnd(4) == 0 ? (int) aot_rnd(8) : 0);    /* mostly one */
        if (!b.p)
            abort();
        memcpy(b.p, from->p, from->n);
        for (int m = 0; m < nmut; m++)
            aot_mutate(&b, corpus, ncorpus, (size_t) max);
        LLVMFuzzerTestOneInput(b.p, b.n);
        free(b.p);
        if ((r + 1) % 100000 == 0)
            fprintf(stderr, "fuzz-%s: %llu of %llu inputs\n", aot_fuzz_name, r + 1, runs);
    }
    printf("fuzz-%s: %d corpus files and %llu mutated inputs (seed %llu, max %llu bytes) in "
           "%ld s, %llu accepted: no failure\n", aot_fuzz_name, ncorpus, runs, seed, max,
           (long) (time(NULL) - start), aot_fuzz_accepted);
    for (i = 0; i < ncorpus; i++)
        free(corpus[i].p);
    free(corpus);
    return 0;
}
