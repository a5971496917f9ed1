/*
 * tuning_check.c: aot-tuning-check FILE... -- reads each tuning file with the library's own
 * reader and prints its first error ("file:line: message"); exit status 1 if any file is bad.
 * The build runs it on AUTOOPT_BUILTIN_TUNING before that file is compiled into the library.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "aot_tuning_file.h"

int main(int argc, char **argv)
{
    int bad = 0;

    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: aot-tuning-check FILE...\n"
                "Reads each autoopt tuning file (docs/tuning-format.md) as libautoopt.so reads "
                "it;\nprints the first error of each bad one and exits 1 if any is bad.\n");
        return argc < 2 ? 2 : 0;
    }
    for (int i = 1; i < argc; i++) {
        struct aot_tuning t;
        char err[1024];
        aot_tuning_init(&t);
        if (aot_tuning_read(&t, argv[i], err, sizeof(err)) != 0) {
            fprintf(stderr, "aot-tuning-check: %s\n", err);
            bad = 1;
        } else {
            printf("aot-tuning-check: %s: %zu rules\n", argv[i], t.n);
        }
        aot_tuning_free(&t);
    }
    return bad;
}
