/*
 * test_coll_tuning.c: the tuning-file reader and writer (collectives/tuning_file.c):
 * round trips, lookups, and the message of every kind of error.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "aot_config.h"
#include "aot_tuning_file.h"
#include "coll_registry.h"

static int find(enum aot_coll_kind kind, const char *name)
{
    return aot_coll_find(kind, name, strlen(name));
}

static int parse(struct aot_tuning *t, const char *text, char *err, size_t errlen)
{
    return aot_tuning_parse(t, text, strlen(text), "t.tune", err, errlen);
}

/* Writes t to memory, NUL-terminated; free() the result. */
static char *write_mem(const struct aot_tuning *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(aot_tuning_write(t, f), 0);
    fclose(f);
    return buf;
}

static void assert_same_rules(const struct aot_tuning *a, const struct aot_tuning *b)
{
    ck_assert_uint_eq(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        /* the writer sorts; find the rule by its key */
        const struct aot_tuning_rule *x = &a->rules[i];
        const struct aot_tuning_rule *y = aot_tuning_lookup(b, x->kind, x->ranks_lo, x->bytes_lo);
        ck_assert_ptr_nonnull(y);
        ck_assert_int_eq(y->ranks_lo, x->ranks_lo);
        ck_assert_int_eq(y->ranks_hi, x->ranks_hi);
        ck_assert(y->bytes_lo == x->bytes_lo);
        ck_assert(y->bytes_hi == x->bytes_hi);
        ck_assert_int_eq(y->alg, x->alg);
        ck_assert_int_eq(y->param, x->param);
    }
}

START_TEST(test_parse_example)
{
    static const char *text =
        "# the example of docs/tuning-format.md\n"
        "autoopt-tuning 1\n"
        "\n"
        "collective allreduce\n"
        "  ranks 1-4\n"
        "    bytes 0-2047 recursive_doubling\n"
        "    bytes 2K-inf rabenseifner      # large vectors\n"
        "  ranks 5-inf\n"
        "    bytes 0-inf ring\n"
        "collective alltoall\n"
        "\tranks 2-64\n"
        "\t\tbytes 0-255 bruck\n"
        "\t\tbytes 256-1M ring_n_barriers:n=3\n"
        "collective alltoallv\n"
        "  ranks 1-inf\n"
        "    bytes 0-inf spreading_simple\n";
    struct aot_tuning t;
    const struct aot_tuning_rule *r;
    char err[512] = "";

    aot_tuning_init(&t);
    ck_assert_msg(parse(&t, text, err, sizeof(err)) == 0, "%s", err);
    ck_assert_uint_eq(t.n, 6);
    r = aot_tuning_lookup(&t, AOT_COLL_ALLREDUCE, 4, 2047);
    ck_assert_int_eq(r->alg, find(AOT_COLL_ALLREDUCE, "recursive_doubling"));
    ck_assert_int_eq(r->line, 6);
    r = aot_tuning_lookup(&t, AOT_COLL_ALLREDUCE, 1, 2048);
    ck_assert_int_eq(r->alg, find(AOT_COLL_ALLREDUCE, "rabenseifner"));
    r = aot_tuning_lookup(&t, AOT_COLL_ALLREDUCE, 1000000, UINT64_MAX);
    ck_assert_int_eq(r->alg, find(AOT_COLL_ALLREDUCE, "ring"));
    r = aot_tuning_lookup(&t, AOT_COLL_ALLTOALL, 64, 1 << 20);
    ck_assert_int_eq(r->alg, find(AOT_COLL_ALLTOALL, "ring_n_barriers"));
    ck_assert_int_eq(r->param, 3);
    ck_assert_ptr_null(aot_tuning_lookup(&t, AOT_COLL_ALLTOALL, 64, (1 << 20) + 1));
    ck_assert_ptr_null(aot_tuning_lookup(&t, AOT_COLL_ALLTOALL, 1, 0));
    ck_assert_ptr_null(aot_tuning_lookup(&t, AOT_COLL_BCAST, 4, 0));
    aot_tuning_free(&t);
}
END_TEST

START_TEST(test_round_trip_text)
{
    static const char *text =
        "autoopt-tuning 1\n"
        "collective bcast\n"
        "ranks 3-3\n"
        "bytes 0-0 linear\n"
        "bytes 1-65535 imamura_hybrid1:j=2\n"
        "bytes 65536-inf chain:segment=8192\n"
        "ranks 1-2\n"
        "bytes 0-inf binomial\n"
        "collective barrier\n"
        "ranks 1-inf\n"
        "bytes 0-inf tree:k=4\n";
    struct aot_tuning a, b;
    char err[512] = "", *out, *out2;

    aot_tuning_init(&a);
    aot_tuning_init(&b);
    ck_assert_msg(parse(&a, text, err, sizeof(err)) == 0, "%s", err);
    out = write_mem(&a);
    ck_assert_msg(aot_tuning_parse(&b, out, strlen(out), "written", err, sizeof(err)) == 0,
                  "%s\n%s", err, out);
    assert_same_rules(&a, &b);
    /* writing what was read gives the same text again */
    out2 = write_mem(&b);
    ck_assert_str_eq(out, out2);
    ck_assert_ptr_nonnull(strstr(out, "    bytes 65536-inf chain:segment=8192\n"));
    ck_assert_ptr_nonnull(strstr(out, "  ranks 1-2\n    bytes 0-inf binomial\n  ranks 3-3\n"));
    free(out);
    free(out2);
    aot_tuning_free(&a);
    aot_tuning_free(&b);
}
END_TEST

/* Version 2: ranks blocks qualified by the host shape are looked up by shape, written back as
 * read, and an unknown shape (0) finds only the unqualified blocks. */
START_TEST(test_host_shape)
{
    static const char *text =
        "autoopt-tuning 2\n"
        "collective bcast\n"
        "ranks 4-4 hosts 2-2 ppn 2-2\n"
        "bytes 0-255 linear\n"
        "bytes 256-inf binary\n"
        "ranks 4-4 hosts 1-1\n"
        "bytes 0-inf chain:segment=8192\n"
        "ranks 4-4 hosts 4-4\n"
        "bytes 0-inf binomial\n"
        "ranks 5-inf\n"
        "bytes 0-inf split_binary\n"
        "ranks 2-3 ppn 1-1\n"
        "bytes 0-inf scatter_allgather\n";
    static const struct { int p, nhosts, ppn; uint64_t bytes; const char *alg; } q[] = {
        {4, 2, 2, 100, "linear"}, {4, 2, 2, 256, "binary"}, {4, 1, 4, 0, "chain"},
        {4, 4, 1, 7, "binomial"}, {4, 3, 2, 7, NULL}, {4, 2, 3, 7, NULL}, {4, 0, 0, 7, NULL},
        {9, 0, 0, 7, "split_binary"}, {9, 3, 3, 7, "split_binary"},
        {3, 3, 1, 1, "scatter_allgather"}, {3, 1, 3, 1, NULL}, {3, 0, 0, 1, NULL}, {1, 1, 1, 0, NULL},
    };
    struct aot_tuning a, b;
    char err[512] = "", *out;

    aot_tuning_init(&a);
    aot_tuning_init(&b);
    ck_assert_msg(parse(&a, text, err, sizeof(err)) == 0, "%s", err);
    ck_assert_uint_eq(a.shaped, 5);
    for (int pass = 0; pass < 2; pass++) {
        const struct aot_tuning *t = pass ? &b : &a;
        for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
            const struct aot_tuning_rule *r = aot_tuning_lookup_shape(t, AOT_COLL_BCAST, q[i].p,
                                                                      q[i].nhosts, q[i].ppn,
                                                                      q[i].bytes);
            if (!q[i].alg)
                ck_assert_msg(r == NULL, "query %zu found %s", i, aot_coll_algs[r->alg].name);
            else
                ck_assert_msg(r && strcmp(aot_coll_algs[r->alg].name, q[i].alg) == 0,
                              "query %zu: want %s, got %s", i, q[i].alg,
                              r ? aot_coll_algs[r->alg].name : "none");
        }
        ck_assert_ptr_null(aot_tuning_lookup(t, AOT_COLL_BCAST, 4, 0));
        if (pass)
            break;
        out = write_mem(&a);
        ck_assert_ptr_nonnull(strstr(out, "autoopt-tuning 2\n"));
        ck_assert_ptr_nonnull(strstr(out, "  ranks 4-4 hosts 2-2 ppn 2-2\n    bytes 0-255 linear\n"
                                          "    bytes 256-inf binary\n"));
        ck_assert_ptr_nonnull(strstr(out, "  ranks 2-3 ppn 1-1\n"));
        ck_assert_ptr_nonnull(strstr(out, "  ranks 5-inf\n"));
        ck_assert_msg(aot_tuning_parse(&b, out, strlen(out), "written", err, sizeof(err)) == 0,
                      "%s\n%s", err, out);
        free(out);
    }
    /* in memory, as the tuner builds tables: a block that meets another one is refused */
    struct aot_tuning_rule r = b.rules[0];           /* ranks 2-3 ppn 1-1 */
    ck_assert_int_eq(r.ranks_lo, 2);
    r.hosts_lo = 2;
    r.hosts_hi = 3;
    r.ppn_lo = r.ppn_hi = 0;
    ck_assert_int_eq(aot_tuning_add(&b, &r, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "ranks 2-3 hosts 2-3 overlaps ranks 2-3 ppn 1-1 at line 5");
    r.hosts_lo = r.hosts_hi = 3;
    r.ppn_lo = r.ppn_hi = 2;
    ck_assert_msg(aot_tuning_add(&b, &r, err, sizeof(err)) == 0, "%s", err);
    aot_tuning_free(&a);
    aot_tuning_free(&b);
}
END_TEST

/* A version 1 file still loads and means what it meant: no rule has a shape. */
START_TEST(test_version1_loads)
{
    struct aot_tuning t;
    char err[512] = "";

    aot_tuning_init(&t);
    ck_assert_msg(parse(&t, "autoopt-tuning 1\ncollective bcast\nranks 4-4\nbytes 0-inf linear\n",
                        err, sizeof(err)) == 0, "%s", err);
    ck_assert_uint_eq(t.shaped, 0);
    ck_assert_ptr_nonnull(aot_tuning_lookup_shape(&t, AOT_COLL_BCAST, 4, 2, 2, 10));
    ck_assert_ptr_nonnull(aot_tuning_lookup(&t, AOT_COLL_BCAST, 4, 10));
    aot_tuning_free(&t);
}
END_TEST

/* Every algorithm of the registry with every tuner value, built in memory as the tuner will. */
START_TEST(test_round_trip_registry)
{
    struct aot_tuning a, b;
    int next_ranks[AOT_COLL_NKINDS];
    char err[512] = "", *out;

    aot_tuning_init(&a);
    aot_tuning_init(&b);
    for (int k = 0; k < AOT_COLL_NKINDS; k++)
        next_ranks[k] = 1;
    for (int i = 0; i < aot_coll_nalgs; i++) {
        const struct aot_coll_alg *alg = &aot_coll_algs[i];
        int nv = alg->param.name ? alg->param.ntune : 1;
        for (int v = 0; v < nv; v++) {
            struct aot_tuning_rule r;
            memset(&r, 0, sizeof(r));
            r.kind = alg->kind;
            r.alg = i;
            r.param = alg->param.name ? alg->param.tune[v] : 0;
            r.ranks_lo = r.ranks_hi = next_ranks[alg->kind]++;
            r.bytes_lo = (uint64_t) i * 100;
            r.bytes_hi = v == nv - 1 ? AOT_TUNING_INF_BYTES : (uint64_t) i * 100 + 99;
            ck_assert_msg(aot_tuning_add(&a, &r, err, sizeof(err)) == 0, "%s", err);
        }
    }
    out = write_mem(&a);
    ck_assert_msg(aot_tuning_parse(&b, out, strlen(out), "written", err, sizeof(err)) == 0,
                  "%s\n%s", err, out);
    assert_same_rules(&a, &b);
    free(out);
    aot_tuning_free(&a);
    aot_tuning_free(&b);
}
END_TEST

START_TEST(test_save_and_read)
{
    struct aot_tuning a, b;
    struct aot_tuning_rule r = {AOT_COLL_ALLGATHER, 2, 16, 0, 4095, 0, 0, 0, NULL, 0, 0, 0, 0};
    char path[] = "/tmp/aot-test-tuning-XXXXXX", err[512] = "";
    int fd = mkstemp(path);

    ck_assert_int_ge(fd, 0);
    close(fd);
    aot_tuning_init(&a);
    aot_tuning_init(&b);
    r.alg = find(AOT_COLL_ALLGATHER, "bruck");
    ck_assert_int_eq(aot_tuning_add(&a, &r, err, sizeof(err)), 0);
    ck_assert_msg(aot_tuning_save(&a, path, err, sizeof(err)) == 0, "%s", err);
    ck_assert_msg(aot_tuning_read(&b, path, err, sizeof(err)) == 0, "%s", err);
    assert_same_rules(&a, &b);
    unlink(path);
    ck_assert_int_eq(aot_tuning_read(&b, "/nonexistent/t.tune", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "/nonexistent/t.tune: cannot open the tuning file: "
                          "No such file or directory");
    aot_tuning_free(&a);
    aot_tuning_free(&b);
}
END_TEST

/* Issue 15, finding 8: one byte-count parser (2m and 2g as in settings), comments of any length,
 * a NUL byte and a file that never ends are errors, not silence or an endless read. */
START_TEST(test_input_hardening)
{
    struct aot_tuning t;
    char err[512] = "", text[8192];
    static const char nul[] = "autoopt-tuning 1\ncollective allreduce\nranks 1-4\n"
                              "bytes 0-1k ring\0 native\n";

    aot_tuning_init(&t);
    ck_assert_msg(parse(&t, "autoopt-tuning 1\ncollective allreduce\nranks 1-4\n"
                            "bytes 0-2m ring\nbytes 2097153-2g native\nbytes 2147483649-inf "
                            "rabenseifner\n", err, sizeof(err)) == 0, "%s", err);
    aot_tuning_free(&t);

    {
        char longc[3000];
        memset(longc, 'c', sizeof(longc) - 1);
        longc[sizeof(longc) - 1] = '\0';
        snprintf(text, sizeof(text), "autoopt-tuning 1\n# %s\ncollective allreduce\n"
                 "ranks 1-4\nbytes 0-inf ring # %s\n", longc, longc);
    }
    aot_tuning_init(&t);
    ck_assert_msg(parse(&t, text, err, sizeof(err)) == 0, "%s", err);
    aot_tuning_free(&t);

    aot_tuning_init(&t);
    ck_assert_int_eq(aot_tuning_parse(&t, nul, sizeof(nul) - 1, "t.tune", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "t.tune:4: a NUL byte in the line (a binary file?)");
    aot_tuning_free(&t);

    aot_tuning_init(&t);
    ck_assert_int_eq(aot_tuning_read(&t, "/dev/zero", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "/dev/zero: not a regular file (a character device)");
    aot_tuning_free(&t);
}
END_TEST

/* aot_file_slurp refuses what is not a regular file before opening it: a FIFO without a writer
 * would block open() for ever, a socket cannot be opened, and a device or a directory has no
 * end or no text. */
START_TEST(test_special_files)
{
    char dir[] = "/tmp/aot-special-XXXXXX", path[128], err[512], want[600];
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    struct aot_tuning t;
    int fd;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    aot_tuning_init(&t);
    ck_assert_int_eq(aot_tuning_read(&t, path, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "%s: not a regular file (a FIFO)", path);
    ck_assert_str_eq(err, want);
    unlink(path);

    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/socket", dir);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
    ck_assert_int_eq(aot_tuning_read(&t, sa.sun_path, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "%s: not a regular file (a socket)", sa.sun_path);
    ck_assert_str_eq(err, want);
    close(fd);
    unlink(sa.sun_path);

    ck_assert_int_eq(aot_tuning_read(&t, dir, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "%s: not a regular file (a directory)", dir);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(aot_tuning_read(&t, "/dev/null", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "/dev/null: not a regular file (a character device)");
    ck_assert_uint_eq(t.n, 0);
    aot_tuning_free(&t);
    rmdir(dir);
}
END_TEST

START_TEST(test_errors)
{
#define HEAD "autoopt-tuning 1\ncollective allreduce\nranks 1-4\n"
    static const struct { const char *text, *msg; } cases[] = {
        {"", "t.tune:1: expected 'autoopt-tuning 2' as the first line"},
        {"# only a comment\n\n", "t.tune:2: expected 'autoopt-tuning 2' as the first line"},
        {"collective allreduce\n", "t.tune:1: expected 'autoopt-tuning 2' as the first line"},
        {"autoopt-tuning\n", "t.tune:1: expected 'autoopt-tuning 2' as the first line"},
        {"autoopt-tuning 3\n", "t.tune:1: format version 3 not supported (this autoopt reads "
                               "versions 1-2)"},
        {"autoopt-tuning 0\n", "t.tune:1: format version 0 not supported (this autoopt reads "
                               "versions 1-2)"},
        /* version 2: the host shape */
        {"autoopt-tuning 1\ncollective bcast\nranks 4-4 hosts 2-2\n",
         "t.tune:3: 'hosts' needs format version 2 (the file says 'autoopt-tuning 1')"},
        {"autoopt-tuning 1\ncollective bcast\nranks 4-4 ppn 2-2\n",
         "t.tune:3: 'ppn' needs format version 2 (the file says 'autoopt-tuning 1')"},
        {"autoopt-tuning 1\ncollective bcast\nranks 4-4 fast\n",
         "t.tune:3: unexpected 'fast' after 'ranks 4-4' (format version 1 has no qualifiers)"},
        {"autoopt-tuning 2\ncollective bcast\nranks 4-4 hosts 0-2\n",
         "t.tune:3: hosts 0-2: the low end must be at least 1 (expected 'hosts <lo>-<hi>' with 1 <= lo <= hi, hi may be 'inf')"},
        {"autoopt-tuning 2\ncollective bcast\nranks 4-4 hosts\n",
         "t.tune:3: hosts : no range (expected 'hosts <lo>-<hi>' with 1 <= lo <= hi, hi may be 'inf')"},
        {"autoopt-tuning 2\ncollective bcast\nranks 4-4 ppn 3-2\n",
         "t.tune:3: ppn 3-2: the low end 3 is above the high end 2 (expected 'ppn <lo>-<hi>' with 1 <= lo <= hi, hi may be 'inf')"},
        {"autoopt-tuning 2\ncollective bcast\nranks 4-4 ppn 2-2 hosts 2-2\n",
         "t.tune:3: unexpected 'hosts' after 'ranks 4-4' (expected 'hosts <lo>-<hi>', then "
         "'ppn <lo>-<hi>')"},
        {"autoopt-tuning 2\ncollective bcast\nranks 4-4 hosts 2-2\nbytes 0-inf linear\n"
         "ranks 4-4\nbytes 0-inf binomial\n",
         "t.tune:5: ranks 4-4 overlaps ranks 4-4 hosts 2-2 at line 3"},
        {"autoopt-tuning 2\ncollective bcast\nranks 2-8 hosts 2-inf ppn 2-2\nbytes 0-inf linear\n"
         "ranks 1-4 hosts 3-3\nbytes 0-inf binomial\nranks 4-4 hosts 1-1\nbytes 0-inf binary\n",
         "t.tune:5: ranks 1-4 hosts 3-3 overlaps ranks 2-8 hosts 2-inf ppn 2-2 at line 3"},
        {"autoopt-tuning 2\ncollective bcast\nranks 4-4 hosts 2-2\nbytes 0-99 linear\n"
         "ranks 4-4 hosts 1-1\nbytes 0-inf binomial\nranks 4-4 hosts 2-2\n"
         "bytes 100-inf binary\n",
         "t.tune:7: ranks 4-4 hosts 2-2 overlaps ranks 4-4 hosts 2-2 at line 3"},
        /* each range message says what is wrong with the value (issue 55, item 9) */
        {HEAD "bytes 0-x ring\n", "t.tune:4: bytes 0-x: 'x' is not a count such as 4096, 64K "
         "or 1M, nor 'inf'"" (expected 'bytes <lo>-<hi>' with lo <= hi, hi may be 'inf')"},
        {HEAD "bytes 10-5 ring\n", "t.tune:4: bytes 10-5: the low end 10 is above the high end "
         "5"" (expected 'bytes <lo>-<hi>' with lo <= hi, hi may be 'inf')"},
        {HEAD "bytes inf-5 ring\n", "t.tune:4: bytes inf-5: the low end cannot be 'inf'"
         " (expected 'bytes <lo>-<hi>' with lo <= hi, hi may be 'inf')"},
        {HEAD "bytes -1-5 ring\n", "t.tune:4: bytes -1-5: the low end is missing (a negative "
         "number?)"" (expected 'bytes <lo>-<hi>' with lo <= hi, hi may be 'inf')"},
        {HEAD "bytes 0--5 ring\n", "t.tune:4: bytes 0--5: the high end is negative"
         " (expected 'bytes <lo>-<hi>' with lo <= hi, hi may be 'inf')"},
        {HEAD "bytes 0-99999999999999999999999 ring\n", "t.tune:4: bytes "
         "0-99999999999999999999999: 99999999999999999999999 is too large (more than "
         "18446744073709551615)"" (expected 'bytes <lo>-<hi>' with lo <= hi, hi may be 'inf')"},
        {HEAD "bytes 0- ring\n", "t.tune:4: bytes 0-: the high end is missing"
         " (expected 'bytes <lo>-<hi>' with lo <= hi, hi may be 'inf')"},
        {HEAD "bytes 5 ring\n", "t.tune:4: bytes 5: no '-' between the low and the high end"
         " (expected 'bytes <lo>-<hi>' with lo <= hi, hi may be 'inf')"},
        {"autoopt-tuning 1\ncollective allreduce\nranks 1-2147483648\n",
         "t.tune:3: ranks 1-2147483648: 2147483648 is more than 2147483647, the most ranks an "
         "int counts"" (expected 'ranks <lo>-<hi>' with 1 <= lo <= hi, hi may be 'inf')"},
        {HEAD "bytes 0-1\n", "t.tune:4: expected an algorithm after 'bytes 0-1'"},
        {HEAD "bytes 0-1 ring fast\n", "t.tune:4: unexpected 'fast' after the algorithm"},
        {HEAD "bytes 0-1 ring:n=2\n", "t.tune:4: allreduce ring:n=2: ring takes no parameter"},
        {HEAD "bytes 0-1 fastest\n",
         "t.tune:4: allreduce fastest: unknown algorithm (known: native, reduce_bcast, "
         "allgather, recursive_doubling, rabenseifner, rabenseifner_v1, rabenseifner_v2, ring, "
         "shm)"},
        {HEAD "bytes 0-150 ring\nbytes 100-200 native\n",
         "t.tune:5: bytes 100-200 overlaps bytes 0-150 at line 4"},
        {HEAD "bytes 0-inf ring\nranks 4-8\nbytes 0-inf ring\n",
         "t.tune:5: ranks 4-8 overlaps ranks 1-4 at line 3"},
        {HEAD "bytes 0-inf ring\nranks 1-4\nbytes 0-inf ring\n",
         "t.tune:5: ranks 1-4 overlaps ranks 1-4 at line 3"},
        {HEAD, "t.tune:3: ranks block without a 'bytes' line"},
        {HEAD "ranks 5-6\nbytes 0-1 ring\n", "t.tune:3: ranks block without a 'bytes' line"},
        {HEAD "collective bcast\n", "t.tune:3: ranks block without a 'bytes' line"},
        {"autoopt-tuning 1\nranks 1-4\n", "t.tune:2: expected 'collective <name>' before 'ranks'"},
        {"autoopt-tuning 1\ncollective allreduce\nbytes 0-1 ring\n",
         "t.tune:3: expected 'ranks <lo>-<hi>' before 'bytes'"},
        {"autoopt-tuning 1\ncollective allreduce\nranks 0-4\n",
         "t.tune:3: ranks 0-4: the low end must be at least 1 (expected 'ranks <lo>-<hi>' with 1 <= lo <= hi, hi may be 'inf')"},
        {"autoopt-tuning 1\ncollective allreduce\nranks 4\n",
         "t.tune:3: ranks 4: no '-' between the low and the high end (expected 'ranks <lo>-<hi>' with 1 <= lo <= hi, hi may be 'inf')"},
        {"autoopt-tuning 1\ncollective scatter\n",
         "t.tune:2: unknown collective 'scatter' (known: allreduce, bcast, reduce, allgather, "
         "allgatherv, alltoall, alltoallv, barrier)"},
        {"autoopt-tuning 1\ncollective\n", "t.tune:2: expected 'collective <name>'"},
        {HEAD "bytes 0-inf ring\ncollective allreduce\n",
         "t.tune:5: collective allreduce already given at line 2"},
        {HEAD "byte 0-inf ring\n",
         "t.tune:4: expected 'collective', 'ranks' or 'bytes', found 'byte'"},
        {"autoopt-tuning 1\ncollective barrier\nranks 1-inf\nbytes 0-inf tree:k=1\n",
         "t.tune:4: barrier tree:k=1: k must be an integer 2..1024"},
        /* tokens are escaped in messages (a terminal escape sequence is not replayed) */
        {HEAD "\033[2J\033]0;x\007 0-1 ring\n",
         "t.tune:4: expected 'collective', 'ranks' or 'bytes', found '\\x1b[2J\\x1b]0;x\\x07'"},
        {"autoopt-tuning 1\ncollective all\xffreduce\n",
         "t.tune:2: unknown collective 'all\\xffreduce' (known: allreduce, bcast, reduce, "
         "allgather, allgatherv, alltoall, alltoallv, barrier)"},
        {HEAD "bytes 0-1 ring \001\n", "t.tune:4: unexpected '\\x01' after the algorithm"},
        /* the overlap found by sorting names the later line and the earlier one */
        {HEAD "bytes 100-200 ring\nbytes 300-400 ring\nbytes 150-160 native\n",
         "t.tune:6: bytes 150-160 overlaps bytes 100-200 at line 4"},
        {HEAD "bytes 0-inf ring\nranks 9-12\nbytes 0-inf ring\nranks 2-3\nbytes 0-inf ring\n",
         "t.tune:7: ranks 2-3 overlaps ranks 1-4 at line 3"},
    };
#undef HEAD
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct aot_tuning t;
        char err[512] = "";
        aot_tuning_init(&t);
        ck_assert_msg(parse(&t, cases[i].text, err, sizeof(err)) == -1, "case %zu parsed", i);
        ck_assert_str_eq(err, cases[i].msg);
        aot_tuning_free(&t);
    }
}
END_TEST

/* A token of 3,000 characters: the message keeps file, line and reason, and shows the start of
 * the token. */
START_TEST(test_long_token)
{
    static char text[4096];
    char err[512], want[512];
    struct aot_tuning t;
    int n = snprintf(text, sizeof(text), "autoopt-tuning 1\ncollective ");
    memset(text + n, 'q', 900);
    strcpy(text + n + 900, "\n");
    aot_tuning_init(&t);
    ck_assert_int_eq(parse(&t, text, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "t.tune:2: unknown collective '%.*s...' (known: allreduce, "
             "bcast, reduce, allgather, allgatherv, alltoall, alltoallv, barrier)",
             AOT_QUOTE_SHOWN, text + n);
    ck_assert_str_eq(err, want);
    aot_tuning_free(&t);
}
END_TEST

/* 40,000 rules (four collectives x 100 ranks blocks x 100 bytes ranges), written in reverse
 * order: the file parses (overlaps are checked in O(n log n); the quadratic check took 5.4 s),
 * every lookup agrees with a scan of the same rules, and one overlapping rule is found with both
 * of its lines. */
static char *big_text(int overlap)
{
    static const char *const colls[][2] = {
        {"allreduce", "ring"}, {"bcast", "binomial"}, {"reduce", "binomial"},
        {"allgather", "ring"}};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    fprintf(f, "autoopt-tuning 1\n");
    for (int c = 3; c >= 0; c--) {
        fprintf(f, "collective %s\n", colls[c][0]);
        for (int r = 99; r >= 0; r--) {
            fprintf(f, "ranks %d-%d\n", 3 * r + 1, 3 * r + 3);
            for (int b = 99; b >= 0; b--)
                fprintf(f, "bytes %d-%d %s\n", 10 * b, 10 * b + 9,
                        (b & 1) ? "native" : colls[c][1]);
            if (overlap && c == 1 && r == 0)
                fprintf(f, "bytes 995-1000 native\n");
        }
    }
    fclose(f);
    return buf;
}

START_TEST(test_many_rules)
{
    struct aot_tuning t, scan;
    char err[512], *text = big_text(0);

    aot_tuning_init(&t);
    ck_assert_msg(parse(&t, text, err, sizeof(err)) == 0, "%s", err);
    ck_assert_uint_eq(t.n, 40000);
    ck_assert_int_eq(t.sorted, 1);
    scan = t;
    scan.sorted = 0;                                 /* the same rules, looked up by a scan */
    for (int kind = 0; kind < AOT_COLL_NKINDS; kind++) {
        static const int ranks[] = {0, 1, 2, 3, 4, 5, 149, 150, 151, 152, 298, 299, 300, 301};
        for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++)
            for (uint64_t bytes = 0; bytes <= 1010; bytes += 3)
                ck_assert_ptr_eq(aot_tuning_lookup(&t, kind, ranks[i], bytes),
                                 aot_tuning_lookup(&scan, kind, ranks[i], bytes));
    }
    ck_assert_ptr_null(aot_tuning_lookup(&t, AOT_COLL_BCAST, 301, 5));
    ck_assert_ptr_null(aot_tuning_lookup(&t, AOT_COLL_BCAST, 1, 1000));
    ck_assert_int_eq(aot_tuning_lookup(&t, AOT_COLL_BCAST, 300, 989)->alg,
                     find(AOT_COLL_BCAST, "binomial"));
    ck_assert_int_eq(aot_tuning_lookup(&t, AOT_COLL_BCAST, 300, 999)->alg,
                     find(AOT_COLL_BCAST, "native"));
    aot_tuning_free(&t);
    free(text);
}
END_TEST

START_TEST(test_many_rules_overlap)
{
    struct aot_tuning t;
    char err[512], want[128], *text = big_text(1);
    int line = 1, rule_line = 0;

    /* the lines of "bytes 990-999" in the last bcast block and of the rule after it */
    for (char *p = text; *p; p++) {
        if (*p != '\n')
            continue;
        line++;
        if (strncmp(p + 1, "collective allreduce", 20) == 0)
            break;
        if (strncmp(p + 1, "bytes 990-999 ", 14) == 0)
            rule_line = line;
    }
    aot_tuning_init(&t);
    ck_assert_int_eq(parse(&t, text, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "t.tune:%d: bytes 995-1000 overlaps bytes 990-999 at line %d",
             rule_line + 100, rule_line);
    ck_assert_str_eq(err, want);
    aot_tuning_free(&t);
    free(text);
}
END_TEST

START_TEST(test_add_errors)
{
    struct aot_tuning t;
    struct aot_tuning_rule r = {AOT_COLL_BCAST, 1, 4, 0, 100, 0, 0, 0, NULL, 0, 0, 0, 0};
    char err[512] = "";

    aot_tuning_init(&t);
    r.alg = find(AOT_COLL_ALLREDUCE, "ring");      /* not a bcast algorithm */
    ck_assert_int_eq(aot_tuning_add(&t, &r, err, sizeof(err)), -1);
    r.alg = find(AOT_COLL_BCAST, "chain");
    r.param = 1;                                    /* below the segment minimum */
    ck_assert_int_eq(aot_tuning_add(&t, &r, err, sizeof(err)), -1);
    r.param = 4096;
    ck_assert_int_eq(aot_tuning_add(&t, &r, err, sizeof(err)), 0);
    r.ranks_lo = 2;                                 /* overlaps ranks 1-4 */
    r.bytes_lo = 200;
    r.bytes_hi = 300;
    ck_assert_int_eq(aot_tuning_add(&t, &r, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "ranks 2-4 overlaps ranks 1-4");
    aot_tuning_free(&t);
}
END_TEST

/* A rule's note is written as a comment after it, and the file reads back the same rules
 * (without notes: they are comments). */
START_TEST(test_write_notes)
{
    struct aot_tuning a, b;
    struct aot_tuning_rule r = {AOT_COLL_BCAST, 4, 4, 0, 4095, 0, 0, 0,
                                 "1.65x faster than native", 0, 0, 0, 0};
    char err[512] = "", *text;

    aot_tuning_init(&a);
    aot_tuning_init(&b);
    r.alg = find(AOT_COLL_BCAST, "linear");
    ck_assert_int_eq(aot_tuning_add(&a, &r, err, sizeof(err)), 0);
    r.bytes_lo = 4096;
    r.bytes_hi = AOT_TUNING_INF_BYTES;
    r.alg = AOT_COLL_BCAST;
    r.note = NULL;
    ck_assert_int_eq(aot_tuning_add(&a, &r, err, sizeof(err)), 0);
    text = write_mem(&a);
    ck_assert_ptr_nonnull(strstr(text, "\n    bytes 0-4095 linear    # 1.65x faster than native\n"));
    ck_assert_ptr_nonnull(strstr(text, "\n    bytes 4096-inf native\n"));
    ck_assert_int_eq(parse(&b, text, err, sizeof(err)), 0);
    assert_same_rules(&a, &b);
    for (size_t i = 0; i < b.n; i++)
        ck_assert_ptr_null(b.rules[i].note);
    free(text);
    aot_tuning_free(&a);
    aot_tuning_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coll_tuning");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_parse_example);
    tcase_add_test(tc, test_input_hardening);
    tcase_add_test(tc, test_special_files);
    tcase_add_test(tc, test_round_trip_text);
    tcase_add_test(tc, test_long_token);
    tcase_add_test(tc, test_many_rules);
    tcase_add_test(tc, test_many_rules_overlap);
    tcase_add_test(tc, test_round_trip_registry);
    tcase_add_test(tc, test_save_and_read);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_add_errors);
    tcase_add_test(tc, test_write_notes);
    tcase_add_test(tc, test_host_shape);
    tcase_add_test(tc, test_version1_loads);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
