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
 *
 * aot_escape_controls is the last step of every line autoopt prints (src/log.c, aot_agree): a
 * path or value a message holds unquoted (a file name in "PATH: reason") cannot break the line
 * or reach the terminal either.  It escapes only control bytes, so what aot_quote wrote stays
 * as it was.
 */
#include <stdio.h>
#include <string.h>

#include "aot_config.h"

/* c as it is shown, in e (no NUL): a C escape for a control byte (below 0x20, 0x7f), and
 * unless controls_only also for a backslash and a byte above 0x7f.  Returns its length. */
static size_t aot_escape_byte(unsigned char c, int controls_only, char e[5])
{
    const char *named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r"
                        : c == '\\' && !controls_only ? "\\\\" : NULL;

    if (named) {
        memcpy(e, named, 2);
        return 2;
    }
    if (c < 0x20 || c == 0x7f || (c > 0x7f && !controls_only)) {
        static const char hex[] = "0123456789abcdef";
        e[0] = '\\', e[1] = 'x', e[2] = hex[c >> 4], e[3] = hex[c & 15];
        return 4;
    }
    e[0] = (char) c;
    return 1;
}

const char *aot_quote(const char *s, size_t n, char *buf, size_t len)
{
    size_t o = 0, i;

    if (len == 0)
        return buf;
    for (i = 0; i < n && i < AOT_QUOTE_SHOWN; i++) {
        char e[5];
        size_t el = aot_escape_byte((unsigned char) s[i], 0, e);
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

size_t aot_escape_controls(const char *in, char *out, size_t len)
{
    size_t o = 0;

    if (len == 0)
        return 0;
    for (; *in; in++) {
        char e[5];
        size_t el = aot_escape_byte((unsigned char) *in, 1, e);
        if (o + el + 1 > len)
            break;
        memcpy(out + o, e, el);
        o += el;
    }
    out[o] = '\0';
    return o;
}
