/*
 * fuzz_common.c: the failure report and the message check the fuzz targets share.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>

#include "aot_config.h"
#include "fuzz.h"

unsigned long long aot_fuzz_accepted;

void aot_fuzz_fail(const uint8_t *data, size_t size, const char *why, const char *detail)
{
    fprintf(stderr, "fuzz-%s: FAILED: %s\n", aot_fuzz_name, why);
    if (detail)
        fprintf(stderr, "fuzz-%s: message: %s\n", aot_fuzz_name, detail);
    fprintf(stderr, "fuzz-%s: input (%zu bytes, escaped):\n", aot_fuzz_name, size);
    for (size_t i = 0; i < size; i++) {
        unsigned char c = data[i];
        if (c == '\n')
            fputs("\\n\n", stderr);
        else if (c >= 0x20 && c < 0x7f && c != '\\')
            fputc(c, stderr);
        else
            fprintf(stderr, "\\x%02x", c);
    }
    fputc('\n', stderr);
    abort();
}

int aot_fuzz_printable_line(const char *msg)
{
    if (!msg[0])
        return 0;
    for (const char *p = msg; *p; p++)
        if ((unsigned char) *p < 0x20 || (unsigned char) *p >= 0x7f)
            return 0;
    return 1;
}
