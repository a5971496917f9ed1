/*
 * encode_emit_driver.c: the driver of the C that "autoopt-tune encode --emit-c" writes
 * (tools.tune.encode.emit-c): reads the points "--check-points" wrote, one
 * "<coll> <comm_size> <bytes> <method>" per line (the method of the in-memory encoding), and
 * asks aot_builtin_decide for each.  Prints up to 5 mismatches; exits 1 on any.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *aot_builtin_decide(const char *coll, int comm_size, unsigned long long bytes);

int main(int argc, char **argv)
{
    char coll[64], want[256];
    int p;
    unsigned long long b;
    long n = 0, bad = 0;
    FILE *f;

    if (argc != 2 || !(f = fopen(argv[1], "r"))) {
        fprintf(stderr, "usage: encode_emit_driver POINTS\n");
        return 2;
    }
    while (fscanf(f, "%63s %d %llu %255s", coll, &p, &b, want) == 4) {
        const char *got = aot_builtin_decide(coll, p, b);
        n++;
        if (!got || strcmp(got, want) != 0) {
            if (++bad <= 5)
                printf("%s ranks %d bytes %llu: the C returns %s, the encoding %s\n", coll, p, b,
                       got ? got : "NULL", want);
        }
    }
    fclose(f);
    if (aot_builtin_decide("no-such-collective", 4, 4) != NULL) {
        printf("an unknown collective does not return NULL\n");
        bad++;
    }
    printf("emit-c check: %s: %ld points, %ld mismatches\n", argv[1], n, bad);
    return n == 0 || bad ? 1 : 0;
}
