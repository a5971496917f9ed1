/*
 * log.c: one-line diagnostics on stderr, each tagged with the MPI_COMM_WORLD rank.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "aot_log.h"
#include "aot_state.h"

void aot_log(int level, const char *fmt, ...)
{
    char text[1024], line[1024];
    va_list ap;
    int n;

    (void) level;
    if (aot_world_rank >= 0)
        n = snprintf(line, sizeof(line), "autoopt[%d]: ", aot_world_rank);
    else
        n = snprintf(line, sizeof(line), "autoopt: ");
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    /* one line whatever the message quotes (a path with a newline or an ESC in it) */
    n += (int) aot_escape_controls(text, line + n, sizeof(line) - (size_t) n - 1);
    if (n > (int) sizeof(line) - 2)
        n = (int) sizeof(line) - 2;
    line[n++] = '\n';
    /* One write() per line, so lines of different ranks do not interleave mid-line. */
    if (write(STDERR_FILENO, line, (size_t) n) < 0) {
        /* nothing sensible to do when stderr is gone */
    }
}
