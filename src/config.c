/*
 * config.c: parsing of the AUTOOPT_* environment variables.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The settings, their defaults and ranges are defined once, in settings.def; this file turns
 * that list into the table aot_config_vars[] and parses the environment with it.  Pure: no MPI
 * and no global state, so tests/unit/test_config.c can exercise every variable with good and
 * bad values.  Every error is one line naming the variable and what was expected,
 * MPICH's convention for a bad CVAR.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_config.h"

/* The settings of a form of their own (settings.def names them). */
static const char *aot_parse_stats(struct aot_config *cfg, const char *v);
static const char *aot_parse_calib(struct aot_config *cfg, const char *v);

/* The parser's table: one entry for each setting of settings.def (its tools' lines give none). */
#define AOT_SETTING(n, k, off, d, l, h, ch, fn, val, dd, ag, ex, hl, det) \
    {.name = "AUTOOPT_" #n, .kind = k, .offset = off, .dflt = d, .lo = l, .hi = h, \
     .choices = ch, .parse = fn, .values = val, .dflt_doc = dd, .agree = ag, .example = ex, \
     .help = hl, .details = det},
#define AOT_SETTING_INT(n, f, d, l, h, ag, ex, hl, det) \
    AOT_SETTING(n, AOT_KIND_INT, offsetof(struct aot_config, f), d, l, h, NULL, NULL, NULL, \
                NULL, ag, ex, hl, det)
#define AOT_SETTING_BYTES(n, f, d, ag, ex, hl, det) \
    AOT_SETTING(n, AOT_KIND_BYTES, offsetof(struct aot_config, f), d, 0, 0, NULL, NULL, NULL, \
                NULL, ag, ex, hl, det)
#define AOT_SETTING_CHOICE(n, f, ch, d, ag, ex, hl, det) \
    AOT_SETTING(n, AOT_KIND_CHOICE, offsetof(struct aot_config, f), d, 0, 0, ch, NULL, NULL, \
                NULL, ag, ex, hl, det)
#define AOT_SETTING_TEXT(n, f, val, dd, ag, ex, hl, det) \
    AOT_SETTING(n, AOT_KIND_TEXT, offsetof(struct aot_config, f), NULL, 0, 0, NULL, NULL, val, \
                dd, ag, ex, hl, det)
#define AOT_SETTING_SPECIAL(n, fn, val, d, ag, ex, hl, det) \
    AOT_SETTING(n, AOT_KIND_SPECIAL, 0, d, 0, 0, NULL, fn, val, NULL, ag, ex, hl, det)
#define AOT_SETTING_TOOL(n, hl)
const struct aot_config_var aot_config_vars[] = {
#include "settings.def"
};
const size_t aot_config_nvars = sizeof(aot_config_vars) / sizeof(aot_config_vars[0]);

/* Variables read by the measuring tools, not by the library; known so they are not reported. */
#define AOT_SETTING_INT(...)
#define AOT_SETTING_BYTES(...)
#define AOT_SETTING_CHOICE(...)
#define AOT_SETTING_TEXT(...)
#define AOT_SETTING_SPECIAL(...)
#define AOT_SETTING_TOOL(n, hl) {"AUTOOPT_" #n, hl},
const struct aot_config_tool_var aot_config_tool_vars[] = {
#include "settings.def"
};
const size_t aot_config_tool_nvars = sizeof(aot_config_tool_vars) / sizeof(aot_config_tool_vars[0]);
#undef AOT_SETTING

struct aot_parser {
    aot_env_lookup lookup;
    void *arg;
    char *err;
    size_t errlen;
    int failed;
};

static const char *aot_get(struct aot_parser *p, const char *name)
{
    const char *v = p->lookup(name, p->arg);
    return (v && *v) ? v : NULL;
}

static void aot_fail(struct aot_parser *p, const char *name, const char *value, const char *what)
{
    if (p->failed)
        return;          /* report the first problem only */
    p->failed = 1;
    char q[AOT_QUOTE_LEN];
    snprintf(p->err, p->errlen, "%s=%s: expected %s", name, aot_quote_str(value, q, sizeof(q)),
             what);
}

/* The position of v among the values of a CHOICE ("0|1|unguarded", "off/0|online"), or -1. */
static int aot_choice(const char *choices, const char *v)
{
    size_t vlen = strlen(v);
    int pos = 0;

    for (const char *c = choices;; c++) {
        size_t n = strcspn(c, "/|");
        if (n == vlen && strncmp(c, v, n) == 0)
            return pos;
        c += n;
        if (*c == '\0')
            return -1;
        if (*c == '|')
            pos++;
    }
}

/* The values of a CHOICE (first spellings only) into buf: "0, 1 or unguarded" for a message,
 * "0, 1, `unguarded`" as Markdown (names that are not numbers in backquotes). */
static const char *aot_choice_list(const char *choices, int markdown, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (const char *c = choices; *c;) {
        size_t n = strcspn(c, "/|");
        const char *next = c + n + strcspn(c + n, "|");
        const char *sep = c == choices ? "" : markdown || *next ? ", " : " or ";
        const char *q = markdown && strspn(c, "0123456789") < n ? "`" : "";
        int w = snprintf(buf + used, len - used, "%s%s%.*s%s", sep, q, (int) n, c, q);
        if (w < 0 || (size_t) w >= len - used)
            break;
        used += (size_t) w;
        c = *next ? next + 1 : next;
    }
    return buf;
}

const char *aot_config_values(size_t i, char *buf, size_t len)
{
    const struct aot_config_var *s = &aot_config_vars[i];

    if (s->kind == AOT_KIND_INT && s->lo == 0 && s->hi == 1)
        snprintf(buf, len, "0, 1");
    else if (s->kind == AOT_KIND_INT)
        snprintf(buf, len, "%ld..%ld", s->lo, s->hi);
    else if (s->kind == AOT_KIND_BYTES)
        snprintf(buf, len, "bytes, `K`/`M`/`G` suffixes");
    else if (s->kind == AOT_KIND_CHOICE)
        aot_choice_list(s->choices, 1, buf, len);
    else
        snprintf(buf, len, "%s", s->values);
    return buf;
}

int aot_config_parse_one(size_t i, const char *v, struct aot_config *cfg, char *what, size_t len)
{
    const struct aot_config_var *s = &aot_config_vars[i];
    void *field = (char *) cfg + s->offset;
    const char *bad = NULL;
    uint64_t bytes;
    char *end;
    long x;
    int pos;

    switch (s->kind) {
    case AOT_KIND_INT:
        errno = 0;
        x = strtol(v, &end, 10);
        if (errno || end == v || *end != '\0' || x < s->lo || x > s->hi) {
            if (s->lo == 0 && s->hi == 1)
                snprintf(what, len, "0 or 1");
            else
                snprintf(what, len, "an integer %ld..%ld", s->lo, s->hi);
            return -1;
        }
        *(int *) field = (int) x;
        return 0;
    case AOT_KIND_BYTES:
        if (aot_parse_size(v, strlen(v), &bytes) != 0 || bytes > SIZE_MAX) {
            snprintf(what, len, "a byte count such as 4096, 64K or 1M");
            return -1;
        }
        *(size_t *) field = (size_t) bytes;
        return 0;
    case AOT_KIND_CHOICE:
        if ((pos = aot_choice(s->choices, v)) < 0) {
            aot_choice_list(s->choices, 0, what, len);
            return -1;
        }
        *(int *) field = pos;
        return 0;
    case AOT_KIND_TEXT:
        *(const char **) field = v;
        return 0;
    default:
        if ((bad = s->parse(cfg, v)) != NULL) {
            snprintf(what, len, "%s", bad);
            return -1;
        }
        return 0;
    }
}

/* AUTOOPT_STATS: 0, 1, or the name of a JSON file (which also means 1). */
static const char *aot_parse_stats(struct aot_config *cfg, const char *v)
{
    size_t n = strlen(v);

    cfg->stats = strcmp(v, "0") != 0;
    cfg->stats_path = NULL;
    if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0)
        return NULL;
    if (n < 6 || strcmp(v + n - 5, ".json") != 0) {
        cfg->stats = 0;
        return "0, 1 or a file name ending in .json";
    }
    cfg->stats_path = v;
    return NULL;
}

/* AUTOOPT_CALIB: 1, 0, or guard=ns[,page=ns][,copy=ns] (non-negative numbers, guard first). */
static const char *aot_parse_calib(struct aot_config *cfg, const char *v)
{
    static const char *const keys[] = {"guard=", "page=", "copy="};
    double *vals[] = {&cfg->calib_guard_ns, &cfg->calib_page_ns, &cfg->calib_copy_ns};
    const char *s = v;
    int key = 0;

    cfg->calib = AOT_CALIB_MEASURE;
    cfg->calib_guard_ns = cfg->calib_page_ns = cfg->calib_copy_ns = 0;
    if (strcmp(v, "1") == 0)
        return NULL;
    if (strcmp(v, "0") == 0) {
        cfg->calib = AOT_CALIB_OFF;
        return NULL;
    }
    for (;;) {
        char *end;
        double x;
        while (key < 3 && strncmp(s, keys[key], strlen(keys[key])) != 0)
            key++;
        if (key == 3 || (s == v && key != 0))
            break;              /* an unknown key, one out of order, or no guard= first */
        s += strlen(keys[key]);
        errno = 0;
        x = strtod(s, &end);
        if (errno || end == s || !(x >= 0 && x < 1e12))
            break;
        *vals[key++] = x;
        if (*end == '\0') {
            cfg->calib = AOT_CALIB_GIVEN;
            return NULL;
        }
        if (*end != ',')
            break;
        s = end + 1;
    }
    cfg->calib_guard_ns = cfg->calib_page_ns = cfg->calib_copy_ns = 0;
    return "1, 0 or guard=ns[,page=ns][,copy=ns] (the figures in ns, in this order)";
}

int aot_config_parse(struct aot_config *cfg, aot_env_lookup lookup, void *arg,
                     char *err, size_t errlen)
{
    struct aot_parser p = {lookup, arg, err, errlen, 0};
    char what[128];

    memset(cfg, 0, sizeof(*cfg));
    if (errlen)
        err[0] = '\0';

    /* In the table's order, so that the first bad one is reported; a bad value leaves the
     * default in place. */
    for (size_t i = 0; i < aot_config_nvars; i++) {
        const char *name = aot_config_vars[i].name, *dflt = aot_config_vars[i].dflt;
        const char *v = aot_get(&p, name);

        if (v && aot_config_parse_one(i, v, cfg, what, sizeof(what)) != 0) {
            aot_fail(&p, name, v, what);
            v = NULL;
        }
        if (!v && dflt)
            aot_config_parse_one(i, dflt, cfg, what, sizeof(what));
    }

    /* Rules between settings. */
    if (cfg->tune_save && !cfg->tune_online)
        aot_fail(&p, "AUTOOPT_TUNE_SAVE", cfg->tune_save,
                 "a path, together with AUTOOPT_TUNE=exact or online (nothing to save "
                 "without it)");
    return p.failed ? -1 : 0;
}

const char *aot_config_agree_text(size_t i, aot_env_lookup lookup, void *arg)
{
    const char *v;

    if (i >= aot_config_nvars || aot_config_vars[i].agree == AOT_AGREE_NONE)
        return "";
    v = lookup(aot_config_vars[i].name, arg);
    if (aot_config_vars[i].agree == AOT_AGREE_ON)
        return v && *v && strcmp(v, "0") != 0 ? "on" : "off";
    return v ? v : "";
}

const char *aot_config_unknown(char *const *env)
{
    for (; env && *env; env++) {
        const char *e = *env, *eq = strchr(e, '=');
        size_t n = eq ? (size_t) (eq - e) : strlen(e);
        int known = 0;

        if (strncmp(e, "AUTOOPT_", 8) != 0)
            continue;
        for (size_t i = 0; i < aot_config_nvars && !known; i++)
            known = strlen(aot_config_vars[i].name) == n &&
                    strncmp(aot_config_vars[i].name, e, n) == 0;
        for (size_t i = 0; i < aot_config_tool_nvars && !known; i++)
            known = strlen(aot_config_tool_vars[i].name) == n &&
                    strncmp(aot_config_tool_vars[i].name, e, n) == 0;
        if (!known)
            return e;
    }
    return NULL;
}
