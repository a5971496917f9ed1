/*
 * fuzz_settings.c: fuzz target for the settings parser (src/config.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The input is a list of lines; each line's first byte picks one of autoopt's variables (so
 * every mutation reaches a real one) and the rest is its value; a line that starts with '!' is
 * taken as "NAME=value" as written, for the check of unknown names.  Oracle: aot_config_parse
 * returns 0 or -1; on -1 the message is one printable line "AUTOOPT_<NAME>=<value>: expected
 * ..." naming a variable of the input; on 0 the values are in their documented ranges.  The
 * agreement text of every variable and the unknown-name check must not fail either.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_config.h"
#include "fuzz.h"

const char aot_fuzz_name[] = "settings";
const char *const aot_fuzz_dict[] = {
    "0", "1", "2", "3", "-1", " ", "64K", "1M", "2g", "1GiB", "0x10", "unguarded", "loud",
    "file.json", "/tmp/x", "18446744073709551616", "99999999999999999999", "ring",
    "ring_n_barriers:n=3", "chain:segment=16K", "tree:k=", "\x1b[31m", "\n", "!AUTOOPT_", "=",
    NULL};

#define AOT_FUZZ_MAXENV 64

struct aot_fuzz_env {
    char *entry[AOT_FUZZ_MAXENV + 1];   /* "NAME=value", NULL-terminated */
    int n;
};

static const char *aot_fuzz_lookup(const char *name, void *arg)
{
    struct aot_fuzz_env *e = arg;
    size_t n = strlen(name);
    for (int i = 0; i < e->n; i++)           /* the first wins, as getenv's does */
        if (strncmp(e->entry[i], name, n) == 0 && e->entry[i][n] == '=')
            return e->entry[i] + n + 1;
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct aot_fuzz_env env = {{NULL}, 0};
    struct aot_config cfg;
    char err[512] = "";
    size_t pos = 0;
    int rc;

    while (pos < size && env.n < AOT_FUZZ_MAXENV) {
        const uint8_t *nl = memchr(data + pos, '\n', size - pos);
        size_t end = nl ? (size_t) (nl - data) : size, vlen;
        const char *name;
        char *e;

        if (end == pos) {
            pos = end + 1;
            continue;
        }
        vlen = end - pos - 1;
        if (data[pos] == '!') {
            e = strndup((const char *) data + pos + 1, vlen);
        } else {
            name = aot_config_vars[data[pos] % aot_config_nvars].name;
            e = malloc(strlen(name) + vlen + 2);
            if (e)
                sprintf(e, "%s=%.*s", name, (int) vlen, (const char *) data + pos + 1);
        }
        if (!e)
            abort();
        /* a NUL byte ends a C string, as it ends an environment entry */
        env.entry[env.n++] = e;
        pos = end + 1;
    }
    rc = aot_config_parse(&cfg, aot_fuzz_lookup, &env, err, sizeof(err));
    if (rc != 0 && rc != -1)
        aot_fuzz_fail(data, size, "aot_config_parse returned neither 0 nor -1", NULL);
    if (rc == -1) {
        const char *eq = strchr(err, '=');
        int named = 0;
        if (!aot_fuzz_printable_line(err))
            aot_fuzz_fail(data, size, "the message is not one printable line", err);
        for (size_t i = 0; eq && i < aot_config_nvars && !named; i++)
            named = strlen(aot_config_vars[i].name) == (size_t) (eq - err)
                    && strncmp(err, aot_config_vars[i].name, (size_t) (eq - err)) == 0;
        if (!named || !strstr(err, ": expected "))
            aot_fuzz_fail(data, size, "the message does not name a variable and what was "
                          "expected", err);
    } else {
        aot_fuzz_accepted++;
        if (cfg.verbose < 0 || cfg.verbose > 3 || (cfg.convert != 0 && cfg.convert != 1)
            || (cfg.disable != 0 && cfg.disable != 1) || cfg.max_guards < 1
            || (cfg.stats_path && !strstr(cfg.stats_path, ".json")))
            aot_fuzz_fail(data, size, "an accepted value is outside its documented range", NULL);
    }
    for (size_t i = 0; i < aot_config_nvars; i++)
        if (!aot_config_agree_text(i, aot_fuzz_lookup, &env))
            aot_fuzz_fail(data, size, "aot_config_agree_text returned NULL", NULL);
    {
        const char *u = aot_config_unknown(env.entry);
        if (u && strncmp(u, "AUTOOPT_", 8) != 0)
            aot_fuzz_fail(data, size, "a name without the AUTOOPT_ prefix reported as unknown",
                          u);
    }
    for (int i = 0; i < env.n; i++)
        free(env.entry[i]);
    return 0;
}
