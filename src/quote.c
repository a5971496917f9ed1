/*
 * quote.c: what a user typed, made safe to print in an error message.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A setting's value or a token of a tuning file is echoed in the message that rejects it.  Raw,
 * an escape sequence in it would drive the user's terminal, and a token of thousands of
 * characters would push the line number and the reason out of the message buffer.  aot_quote
 * keeps printable ASCII, writes every other byte as a C escape (\n, \t, \\, \x1b) and cuts the
 * result at AOT_QUOTE_SHOWN characters of input, marking the cut with "...".  Pure (unit test:
 * tests/unit/test_config.c).
 */
#include <stdio.h>
#include <string.h>

#include "aot_config.h"

const char *aot_quote(const char *s, size_t n, char *buf, size_t len)
{
    size_t o = 0, i;

    if (len == 0)
        return buf;
    for (i = 0; i < n && i < AOT_QUOTE_SHOWN; i++) {
        unsigned char c = (unsigned char) s[i];
        char e[5];
        size_t el;

        if (c == '\\')
            el = (size_t) snprintf(e, sizeof(e), "\\\\");
        else if (c == '\n')
            el = (size_t) snprintf(e, sizeof(e), "\\n");
        else if (c == '\t')
            el = (size_t) snprintf(e, sizeof(e), "\\t");
        else if (c == '\r')
            el = (size_t) snprintf(e, sizeof(e), "\\r");
        else if (c < 0x20 || c >= 0x7f)
            el = (size_t) snprintf(e, sizeof(e), "\\x%02x", c);
        else {
            e[0] = (char) c;
            e[1] = '\0';
            el = 1;
        }
        if (o + el + 4 > len)       /* room for "..." and the NUL */
            break;
        memcpy(buf + o, e, el);
        o += el;
    }
    if (i < n && o + 4 <= len) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

const char *aot_quote_str(const char *s, char *buf, size_t len)
{
    return aot_quote(s, strlen(s), buf, len);
}
