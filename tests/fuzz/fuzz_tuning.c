/*
 * fuzz_tuning.c: fuzz target for the tuning-file reader (collectives/tuning_file.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Oracle: aot_tuning_parse returns 0 or -1.  On -1 the message is one printable line that
 * starts with "fuzz.tune:" and a line number no larger than the input's number of lines.  On 0
 * the rules are written back, the text read again gives the same rules, writing those gives the
 * same text, and every rule is what a lookup at its own lower corner finds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_tuning_file.h"
#include "fuzz.h"

const char aot_fuzz_name[] = "tuning";
const char *const aot_fuzz_dict[] = {
    "autoopt-tuning 1\n", "autoopt-tuning 2\n", " hosts ", " ppn ", "collective ", "ranks ",
    "bytes ", "allreduce", "bcast", "reduce",
    "allgather", "allgatherv", "alltoall", "alltoallv", "barrier", "native", "ring", "binomial",
    "chain:segment=", "ring_n_barriers:n=", "tree:k=", "imamura_hybrid1:j=", "inf", "0-inf",
    "1-", "-", "K", "M", "G", "KiB", "B", "#", "\n", " ", "\t", "\r", "18446744073709551615",
    "2147483647", "4294967296", "\x1b[2J", NULL};

static char *aot_fuzz_write(const struct aot_tuning *t, const uint8_t *data, size_t size)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f || aot_tuning_write(t, f) != 0)
        aot_fuzz_fail(data, size, "aot_tuning_write failed on rules that were accepted", NULL);
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct aot_tuning t, u;
    char err[1024] = "", err2[1024] = "";
    int rc, lines = 1;

    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    aot_tuning_init(&t);
    rc = aot_tuning_parse(&t, (const char *) data, size, "fuzz.tune", err, sizeof(err));
    if (rc != 0 && rc != -1)
        aot_fuzz_fail(data, size, "aot_tuning_parse returned neither 0 nor -1", NULL);
    if (rc == -1) {
        int line = -1, n = 0;
        if (!aot_fuzz_printable_line(err))
            aot_fuzz_fail(data, size, "the message is not one printable line", err);
        if (sscanf(err, "fuzz.tune:%d: %n", &line, &n) != 1 || n == 0 || line < 1
            || line > lines || !err[n])
            aot_fuzz_fail(data, size, "the message does not name the file, a line of it and a "
                          "reason", err);
        aot_tuning_free(&t);
        return 0;
    }
    aot_fuzz_accepted++;
    {
        char *text = aot_fuzz_write(&t, data, size), *text2;
        aot_tuning_init(&u);
        if (aot_tuning_parse(&u, text, strlen(text), "written", err2, sizeof(err2)) != 0)
            aot_fuzz_fail(data, size, "the written rules do not read back", err2);
        if (u.n != t.n)
            aot_fuzz_fail(data, size, "the written rules read back as another number", NULL);
        text2 = aot_fuzz_write(&u, data, size);
        if (strcmp(text, text2) != 0)
            aot_fuzz_fail(data, size, "writing the rules read back gives another text", text2);
        for (size_t i = 0; i < t.n; i++) {
            const struct aot_tuning_rule *r = &t.rules[i];
            /* the corners of its block's host shape too (a missing qualifier: any shape) */
            int hlo = r->hosts_lo ? r->hosts_lo : 1, hhi = r->hosts_lo ? r->hosts_hi : 1;
            int plo = r->ppn_lo ? r->ppn_lo : 1, phi = r->ppn_lo ? r->ppn_hi : 1;
            if (aot_tuning_lookup_shape(&t, r->kind, r->ranks_lo, hlo, plo, r->bytes_lo) != r
                || aot_tuning_lookup_shape(&u, r->kind, r->ranks_hi, hhi, phi, r->bytes_hi)
                       == NULL)
                aot_fuzz_fail(data, size, "a rule is not found at its own corner", NULL);
        }
        free(text);
        free(text2);
        aot_tuning_free(&u);
    }
    aot_tuning_free(&t);
    return 0;
}
