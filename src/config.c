/*
 * config.c: parsing of the AUTOOPT_* environment variables.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Pure: no MPI and no global state, so tests/unit/test_config.c can exercise every variable
 * with good and bad values.  Every error is one line naming the variable and what was expected,
 * MPICH's convention for a bad CVAR.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_config.h"

/* Default threshold below which point-to-point calls are not converted: see docs/paging.md
 * for the measurement behind it. */
#define AOT_DEFAULT_CONVERT_MIN 65536

const struct aot_config_var aot_config_vars[] = {
    {"AUTOOPT_DISABLE", "0|1", "0", "1: pure pass-through, every call goes straight to PMPI",
     AOT_AGREE_VALUE},
    {"AUTOOPT_VERBOSE", "0..3", "0", "logging to stderr, each line tagged with the rank",
     AOT_AGREE_NONE},
    {"AUTOOPT_STATS", "0|1|path.json", "0",
     "1: job summary from rank 0 at MPI_Finalize; a path: the same data as JSON", AOT_AGREE_ON},
    {"AUTOOPT_CONVERT", "0|1", "1", "asynchronous conversion of blocking point-to-point calls",
     AOT_AGREE_VALUE},
    {"AUTOOPT_CONVERT_MIN", "bytes (K, M, G suffixes)", "64K",
     "messages below this size are not converted", AOT_AGREE_VALUE},
    {"AUTOOPT_MAX_GUARDS", "1..1000000", "16384", "cap on guarded ranges (vm.max_map_count)",
     AOT_AGREE_VALUE},
    {"AUTOOPT_LEARN_TOUCH", "0..1000", "3",
     "immediate touches after which a call site is no longer converted (0: never learn)",
     AOT_AGREE_VALUE},
    {"AUTOOPT_CHAINS", "0|1|unguarded", "1",
     "chain detection and chain mode (1: guarded, safe; unguarded: no guards, see docs/chains.md)",
     AOT_AGREE_VALUE},
    {"AUTOOPT_CHAIN_CONFIRM", "1..1000", "3", "identical repetitions that confirm a chain",
     AOT_AGREE_VALUE},
    {"AUTOOPT_CHAIN_VERIFY", "0|1", "0", "keep guards in chain mode and report missed accesses",
     AOT_AGREE_VALUE},
    {"AUTOOPT_CHAIN_MAX_BREAKS", "0..1000", "3", "breaks after which a chain is no longer used",
     AOT_AGREE_VALUE},
    {"AUTOOPT_P2P_MODE", "auto|native|copy|guarded", "auto",
     "how safe chains and converting call sites run: auto measures which pays (docs/govern.md)",
     AOT_AGREE_VALUE},
    {"AUTOOPT_SITE_DEPTH", "1..16", "1", "stack frames outside MPI that make a call site",
     AOT_AGREE_VALUE},
    {"AUTOOPT_TRACE", "directory", "(off)", "write one trace per rank into this directory",
     AOT_AGREE_ON},
    {"AUTOOPT_CALIB", "1|0|guard=ns[,page=ns][,copy=ns]", "1",
     "measure what a guard and a copy cost here (1), do not (0), or take these figures",
     AOT_AGREE_NONE},
    {"AUTOOPT_COLLECTIVES", "0|1", "1", "route collectives through autoopt's algorithms",
     AOT_AGREE_VALUE},
    {"AUTOOPT_REPRODUCIBLE", "0|1", "0", "only reductions with a fixed order of operations",
     AOT_AGREE_VALUE},
    {"AUTOOPT_TUNING", "path|none", "(built-in file, if any)",
     "tuning file with the decision for each collective; none: no rules", AOT_AGREE_VALUE},
    {"AUTOOPT_TUNE", "off|online", "off",
     "online: choose collective algorithms by timing them during the run (docs/online.md)",
     AOT_AGREE_VALUE},
    {"AUTOOPT_TUNE_SAVE", "path", "(off)",
     "with AUTOOPT_TUNE=online: rank 0 writes the decisions as a tuning file at MPI_Finalize",
     AOT_AGREE_ON},
    {"AUTOOPT_TUNE_WINDOW", "1..512", "16",
     "online: timed calls in the first window that checks the chosen algorithm", AOT_AGREE_VALUE},
    {"AUTOOPT_TUNE_SWITCH", "50..1000", "110",
     "online: a chosen algorithm gives way when it takes this percentage of the second best's time",
     AOT_AGREE_VALUE},
    {"AUTOOPT_TOPOLOGY", "path", "(none)",
     "Slurm topology.conf of the cluster (docs/topology.md): the switch of each host",
     AOT_AGREE_VALUE},
#define AOT_X(upper, lower) \
    {"AUTOOPT_" #upper, "name[:param=value,...]", "(none)", "force an " #lower " algorithm", \
     AOT_AGREE_VALUE},
    AOT_COLLECTIVES(AOT_X)
#undef AOT_X
};
const size_t aot_config_nvars = sizeof(aot_config_vars) / sizeof(aot_config_vars[0]);

/* Variables read by the measuring tools, not by the library; known so they are not reported. */
static const char *const aot_tool_vars[] = {"AUTOOPT_YIELD_SPINS", "AUTOOPT_YIELD_GAP_US",
                                          "AUTOOPT_BUILD", "AUTOOPT_MPICC", "AUTOOPT_MPICXX",
                                          NULL};

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

static void aot_parse_int(struct aot_parser *p, const char *name, int *out, int dflt,
                          long lo, long hi)
{
    const char *v = aot_get(p, name);
    char *end;
    long x;

    *out = dflt;
    if (!v)
        return;
    errno = 0;
    x = strtol(v, &end, 10);
    if (errno || end == v || *end != '\0' || x < lo || x > hi) {
        char what[64];
        if (hi == 1 && lo == 0)
            snprintf(what, sizeof(what), "0 or 1");
        else
            snprintf(what, sizeof(what), "an integer %ld..%ld", lo, hi);
        aot_fail(p, name, v, what);
        return;
    }
    *out = (int) x;
}

static void aot_parse_bytes(struct aot_parser *p, const char *name, size_t *out, size_t dflt)
{
    const char *v = aot_get(p, name);
    uint64_t x;

    *out = dflt;
    if (!v)
        return;
    if (aot_parse_size(v, strlen(v), &x) != 0 || x > SIZE_MAX)
        aot_fail(p, name, v, "a byte count such as 4096, 64K or 1M");
    else
        *out = (size_t) x;
}

static const char *aot_parse_string(struct aot_parser *p, const char *name)
{
    return aot_get(p, name);
}

/* AUTOOPT_CALIB: 1, 0, or guard=ns[,page=ns][,copy=ns] (non-negative numbers, guard first). */
static void aot_parse_calib(struct aot_parser *p, struct aot_config *cfg)
{
    static const char *const keys[] = {"guard=", "page=", "copy="};
    double *vals[] = {&cfg->calib_guard_ns, &cfg->calib_page_ns, &cfg->calib_copy_ns};
    const char *v = aot_get(p, "AUTOOPT_CALIB"), *s = v;
    int key = 0;

    cfg->calib = AOT_CALIB_MEASURE;
    if (!v || strcmp(v, "1") == 0)
        return;
    if (strcmp(v, "0") == 0) {
        cfg->calib = AOT_CALIB_OFF;
        return;
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
            return;
        }
        if (*end != ',')
            break;
        s = end + 1;
    }
    cfg->calib_guard_ns = cfg->calib_page_ns = cfg->calib_copy_ns = 0;
    aot_fail(p, "AUTOOPT_CALIB", v,
             "1, 0 or guard=ns[,page=ns][,copy=ns] (the figures in ns, in this order)");
}

int aot_config_parse(struct aot_config *cfg, aot_env_lookup lookup, void *arg,
                     char *err, size_t errlen)
{
    struct aot_parser p = {lookup, arg, err, errlen, 0};
    const char *stats, *v;

    memset(cfg, 0, sizeof(*cfg));
    if (errlen)
        err[0] = '\0';

    aot_parse_int(&p, "AUTOOPT_DISABLE", &cfg->disable, 0, 0, 1);
    aot_parse_int(&p, "AUTOOPT_VERBOSE", &cfg->verbose, 0, 0, 3);

    stats = aot_parse_string(&p, "AUTOOPT_STATS");
    if (stats && strcmp(stats, "0") == 0) {
        cfg->stats = 0;
    } else if (stats && strcmp(stats, "1") == 0) {
        cfg->stats = 1;
    } else if (stats) {
        size_t n = strlen(stats);
        if (n < 6 || strcmp(stats + n - 5, ".json") != 0)
            aot_fail(&p, "AUTOOPT_STATS", stats, "0, 1 or a file name ending in .json");
        else {
            cfg->stats = 1;
            cfg->stats_path = stats;
        }
    }

    aot_parse_int(&p, "AUTOOPT_CONVERT", &cfg->convert, 1, 0, 1);
    aot_parse_bytes(&p, "AUTOOPT_CONVERT_MIN", &cfg->convert_min, AOT_DEFAULT_CONVERT_MIN);
    aot_parse_int(&p, "AUTOOPT_MAX_GUARDS", &cfg->max_guards, 16384, 1, 1000000);
    aot_parse_int(&p, "AUTOOPT_LEARN_TOUCH", &cfg->learn_touch, 3, 0, 1000);

    if ((v = aot_get(&p, "AUTOOPT_CHAINS")) && strcmp(v, "unguarded") == 0)
        cfg->chains = AOT_CHAINS_UNGUARDED;
    else if (v && strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
        aot_fail(&p, "AUTOOPT_CHAINS", v, "0, 1 or unguarded");
    else
        cfg->chains = v && strcmp(v, "0") == 0 ? AOT_CHAINS_OFF : AOT_CHAINS_SAFE;
    aot_parse_int(&p, "AUTOOPT_CHAIN_CONFIRM", &cfg->chain_confirm, 3, 1, 1000);
    aot_parse_int(&p, "AUTOOPT_CHAIN_VERIFY", &cfg->chain_verify, 0, 0, 1);
    aot_parse_int(&p, "AUTOOPT_CHAIN_MAX_BREAKS", &cfg->chain_max_breaks, 3, 0, 1000);
    if ((v = aot_get(&p, "AUTOOPT_P2P_MODE"))) {
        static const char *const names[AOT_P2P_NMODES] = {"auto", "native", "copy", "guarded"};
        cfg->p2p_mode = -1;
        for (int m = 0; m < AOT_P2P_NMODES; m++)
            if (strcmp(v, names[m]) == 0)
                cfg->p2p_mode = m;
        if (cfg->p2p_mode < 0) {
            cfg->p2p_mode = AOT_P2P_AUTO;
            aot_fail(&p, "AUTOOPT_P2P_MODE", v, "auto, native, copy or guarded");
        }
    }
    aot_parse_int(&p, "AUTOOPT_SITE_DEPTH", &cfg->site_depth, 1, 1, 16);
    cfg->trace_dir = aot_parse_string(&p, "AUTOOPT_TRACE");
    aot_parse_calib(&p, cfg);

    aot_parse_int(&p, "AUTOOPT_COLLECTIVES", &cfg->collectives, 1, 0, 1);
    aot_parse_int(&p, "AUTOOPT_REPRODUCIBLE", &cfg->reproducible, 0, 0, 1);
    cfg->tuning_path = aot_parse_string(&p, "AUTOOPT_TUNING");
    if ((v = aot_get(&p, "AUTOOPT_TUNE")) && strcmp(v, "online") == 0)
        cfg->tune_online = 1;
    else if (v && strcmp(v, "off") != 0 && strcmp(v, "0") != 0)
        aot_fail(&p, "AUTOOPT_TUNE", v, "off or online");
    cfg->tune_save = aot_parse_string(&p, "AUTOOPT_TUNE_SAVE");
    aot_parse_int(&p, "AUTOOPT_TUNE_WINDOW", &cfg->tune_window, 16, 1, 512);
    aot_parse_int(&p, "AUTOOPT_TUNE_SWITCH", &cfg->tune_switch, 110, 50, 1000);
    if (cfg->tune_save && !cfg->tune_online)
        aot_fail(&p, "AUTOOPT_TUNE_SAVE", cfg->tune_save,
                 "a path, together with AUTOOPT_TUNE=online (nothing to save without it)");
    cfg->topology_path = aot_parse_string(&p, "AUTOOPT_TOPOLOGY");
#define AOT_X(upper, lower) \
    cfg->coll_force[AOT_COLL_##upper] = aot_parse_string(&p, "AUTOOPT_" #upper);
    AOT_COLLECTIVES(AOT_X)
#undef AOT_X

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
        for (size_t i = 0; aot_tool_vars[i] && !known; i++)
            known = strlen(aot_tool_vars[i]) == n && strncmp(aot_tool_vars[i], e, n) == 0;
        if (!known)
            return e;
    }
    return NULL;
}
