/*
 * cache.c: the cache of decisions, its pure core: a table of entries sorted by key, the file's
 * text read into one, two tables merged (the newer entry wins per key), and the text written
 * back (aot_cache.h, docs/cache.md).  No MPI, no files: src/cache_run.c does the I/O.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The file:
 *
 *     autoopt-cache 1
 *     <stamp>\t<key>\t<value>
 *     ...
 *
 * stamp: decimal seconds since the epoch; key and value: printable ASCII without tabs
 * (aot_cache_text_ok).  A line that does not have this form is ignored and counted; so is a
 * last line without its newline (the file was cut while written by something other than
 * autoopt, whose writes are atomic).  A first line other than the header makes the whole file
 * ignored: it is not a cache of this version.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_cache.h"
#include "aot_mem.h"

#define AOT_CACHE_NOT_OURS \
    "not a cache file of this version (its first line is not \"" AOT_CACHE_HEADER "\")"

int aot_cache_text_ok(const char *s, int is_key)
{
    size_t n = 0, max = is_key ? AOT_CACHE_MAX_KEY : AOT_CACHE_MAX_VALUE;

    if (!s || !*s)
        return 0;
    for (; s[n]; n++) {
        unsigned char c = (unsigned char) s[n];
        if (n >= max || c < 0x20 || c > 0x7e)
            return 0;
        if (is_key && c == ' ' && (n == 0 || s[n - 1] == ' ' || s[n + 1] == '\0'))
            return 0;
    }
    return 1;
}

/* The position of key in t, or where it would go (*found 0). */
static size_t aot_cache_pos(const struct aot_cache_table *t, const char *key, int *found)
{
    size_t lo = 0, hi = t->n;

    *found = 0;
    /* the file is written in key order: an entry read from it goes at the end */
    if (t->n && strcmp(t->e[t->n - 1].key, key) < 0)
        return t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(t->e[mid].key, key);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const struct aot_cache_entry *aot_cache_table_find(const struct aot_cache_table *t,
                                                   const char *key)
{
    int found;
    size_t i = aot_cache_pos(t, key, &found);
    return found ? &t->e[i] : NULL;
}

/* A new entry's text: key, NUL, value, NUL in one allocation. */
static int aot_cache_entry_fill(struct aot_cache_entry *e, const char *key, const char *value,
                                int64_t stamp)
{
    size_t kl = strlen(key), vl = strlen(value);
    char *p = aot_mem_alloc(kl + vl + 2);

    if (!p)
        return -1;
    memcpy(p, key, kl + 1);
    memcpy(p + kl + 1, value, vl + 1);
    e->key = p;
    e->value = p + kl + 1;
    e->len = kl + vl + 2;
    e->stamp = stamp;
    return 0;
}

static int aot_cache_grow(struct aot_cache_table *t)
{
    size_t cap = t->cap ? 2 * t->cap : 64;
    struct aot_cache_entry *e = aot_mem_alloc(cap * sizeof(*e));

    if (!e)
        return -1;
    if (t->n)
        memcpy(e, t->e, t->n * sizeof(*e));
    if (t->e)
        aot_mem_free(t->e, t->cap * sizeof(*e));
    t->e = e;
    t->cap = cap;
    return 0;
}

int aot_cache_table_set(struct aot_cache_table *t, const char *key, const char *value,
                        int64_t stamp)
{
    struct aot_cache_entry fresh;
    int found;
    size_t i;

    if (!aot_cache_text_ok(key, 1) || !aot_cache_text_ok(value, 0))
        return -1;
    i = aot_cache_pos(t, key, &found);
    if (found) {
        if (t->e[i].stamp > stamp)
            return 0;                       /* ours is newer */
        if (strcmp(t->e[i].value, value) == 0) {
            t->e[i].stamp = stamp;
            return 0;
        }
        if (aot_cache_entry_fill(&fresh, key, value, stamp) != 0)
            return -1;
        aot_mem_free(t->e[i].key, t->e[i].len);
        t->e[i] = fresh;
        return 0;
    }
    if (t->n == t->cap && aot_cache_grow(t) != 0)
        return -1;
    if (aot_cache_entry_fill(&fresh, key, value, stamp) != 0)
        return -1;
    memmove(&t->e[i + 1], &t->e[i], (t->n - i) * sizeof(*t->e));
    t->e[i] = fresh;
    t->n++;
    return 0;
}

void aot_cache_table_free(struct aot_cache_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        aot_mem_free(t->e[i].key, t->e[i].len);
    if (t->e)
        aot_mem_free(t->e, t->cap * sizeof(*t->e));
    t->e = NULL;
    t->n = t->cap = 0;
}

static void aot_cache_bad(struct aot_cache_damage *d, unsigned line, const char *why)
{
    if (!d->bad++) {
        d->first_bad = line;
        d->why = why;
    }
}

/* One line (NUL-terminated, without its newline) into t; NULL, or why it is bad. */
static const char *aot_cache_line(char *line, struct aot_cache_table *t, int *oom)
{
    char *key, *value, *end;
    long long stamp;

    key = strchr(line, '\t');
    if (!key)
        return "not <time> TAB <key> TAB <value>";
    *key++ = '\0';
    value = strchr(key, '\t');
    if (!value)
        return "not <time> TAB <key> TAB <value>";
    *value++ = '\0';
    if (line[0] < '0' || line[0] > '9')
        return "the time is not a number";
    stamp = strtoll(line, &end, 10);
    if (*end || stamp < 0)
        return "the time is not a number";
    if (!aot_cache_text_ok(key, 1))
        return "the key is empty, too long, or not printable text without tabs";
    if (!aot_cache_text_ok(value, 0))
        return "the value is empty, too long, or not printable text without tabs";
    if (aot_cache_table_set(t, key, value, (int64_t) stamp) != 0)
        *oom = 1;
    return NULL;
}

int aot_cache_parse(const char *text, size_t len, struct aot_cache_table *t,
                    struct aot_cache_damage *d)
{
    char line[32 + AOT_CACHE_MAX_KEY + AOT_CACHE_MAX_VALUE];
    size_t pos = 0;
    unsigned no = 0;
    int oom = 0;

    memset(d, 0, sizeof(*d));
    while (pos < len && !oom) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t) (nl - (text + pos)) : len - pos;
        const char *why = NULL;

        no++;
        if (!nl)
            why = "the last line is cut short (no newline)";
        else if (n >= sizeof(line) || memchr(text + pos, '\0', n))
            why = "too long, or holds a NUL byte";
        if (why && no == 1)
            why = AOT_CACHE_NOT_OURS;
        if (!why) {
            memcpy(line, text + pos, n);
            line[n] = '\0';
            if (no == 1)
                why = strcmp(line, AOT_CACHE_HEADER) != 0 ? AOT_CACHE_NOT_OURS : NULL;
            else
                why = aot_cache_line(line, t, &oom);
        }
        if (why) {
            aot_cache_bad(d, no, why);
            if (no == 1) {
                d->whole = 1;
                break;
            }
        }
        pos += nl ? n + 1 : n;
    }
    if (len == 0) {
        aot_cache_bad(d, 1, "the file is empty");
        d->whole = 1;
    }
    if (oom)
        return -1;
    return d->bad ? 1 : 0;
}

/* Drops the oldest entries beyond AOT_CACHE_MAX_ENTRIES. */
static void aot_cache_trim(struct aot_cache_table *t)
{
    while (t->n > AOT_CACHE_MAX_ENTRIES) {
        size_t old = 0;
        for (size_t i = 1; i < t->n; i++)
            if (t->e[i].stamp < t->e[old].stamp)
                old = i;
        aot_mem_free(t->e[old].key, t->e[old].len);
        memmove(&t->e[old], &t->e[old + 1], (t->n - old - 1) * sizeof(*t->e));
        t->n--;
    }
}

int aot_cache_merge(struct aot_cache_table *into, const struct aot_cache_table *from)
{
    for (size_t i = 0; i < from->n; i++)
        if (aot_cache_table_set(into, from->e[i].key, from->e[i].value, from->e[i].stamp) != 0)
            return -1;
    aot_cache_trim(into);
    return 0;
}

char *aot_cache_serialise(const struct aot_cache_table *t, size_t *len)
{
    size_t cap = sizeof(AOT_CACHE_HEADER) + 1, n;
    char *s;

    for (size_t i = 0; i < t->n; i++)
        cap += 24 + t->e[i].len;
    s = malloc(cap);
    if (!s)
        return NULL;
    n = (size_t) snprintf(s, cap, "%s\n", AOT_CACHE_HEADER);
    for (size_t i = 0; i < t->n; i++)
        n += (size_t) snprintf(s + n, cap - n, "%" PRId64 "\t%s\t%s\n", t->e[i].stamp,
                               t->e[i].key, t->e[i].value);
    *len = n;
    return s;
}
