/*
 * number.c: the one parser of byte counts, for settings (AUTOOPT_CONVERT_MIN) and files (tuning
 * rules).  Pure: no MPI, no global state (tests/unit/test_config.c, test_coll_tuning.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Accepted: decimal digits, then optionally a binary suffix K, M or G in either case, then
 * optionally "B" or "iB" after the suffix (64K, 64k, 64KiB, 64KB, 2m, 1G).  Nothing else: no
 * sign, no space, no hexadecimal, and no value past UINT64_MAX.  Until 2026-11-24 settings used
 * strtoull (which takes leading blanks and a minus sign: " -5" became 18446744073709551611) and
 * tuning files their own parser (2k but not 2m).
 */
#include <stdint.h>
#include <string.h>

#include "aot_config.h"

int aot_parse_size(const char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0, mult = 1;
    size_t i = 0;

    if (len == 0 || s[0] < '0' || s[0] > '9')
        return -1;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        if (v > (UINT64_MAX - (uint64_t) (s[i] - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t) (s[i] - '0');
    }
    if (i < len) {
        switch (s[i]) {
        case 'k': case 'K': mult = 1ULL << 10; break;
        case 'm': case 'M': mult = 1ULL << 20; break;
        case 'g': case 'G': mult = 1ULL << 30; break;
        default: return -1;
        }
        i++;
        if (i + 2 == len && s[i] == 'i' && s[i + 1] == 'B')
            i += 2;
        else if (i + 1 == len && s[i] == 'B')
            i++;
    }
    if (i != len || v > UINT64_MAX / mult)
        return -1;
    *out = v * mult;
    return 0;
}
