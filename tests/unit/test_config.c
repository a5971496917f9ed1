/*
 * test_config.c: every AUTOOPT_* variable with good and bad values.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_config.h"

/* A fake environment: NULL-terminated "NAME=value" list. */
static const char *fake_lookup(const char *name, void *arg)
{
    const char *const *env = arg;
    size_t n = strlen(name);
    for (; *env; env++)
        if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
            return *env + n + 1;
    return NULL;
}

static int parse(struct aot_config *cfg, char *err, const char **env)
{
    return aot_config_parse(cfg, fake_lookup, (void *) env, err, 256);
}

START_TEST(test_defaults)
{
    const char *env[] = {NULL};
    struct aot_config c;
    char err[256];
    ck_assert_int_eq(parse(&c, err, env), 0);
    ck_assert_int_eq(c.disable, 0);
    ck_assert_int_eq(c.verbose, 0);
    ck_assert_int_eq(c.stats, 0);
    ck_assert_ptr_null(c.stats_path);
    ck_assert_int_eq(c.convert, 1);
    ck_assert_uint_eq(c.convert_min, 65536);
    ck_assert_int_eq(c.max_guards, 16384);
    ck_assert_int_eq(c.learn_touch, 3);
    ck_assert_int_eq(c.chains, 1);
    ck_assert_int_eq(c.chain_confirm, 3);
    ck_assert_int_eq(c.chain_verify, 0);
    ck_assert_int_eq(c.chain_max_breaks, 3);
    ck_assert_int_eq(c.site_depth, 1);
    ck_assert_ptr_null(c.trace_dir);
    ck_assert_int_eq(c.collectives, 1);
    ck_assert_int_eq(c.reproducible, 0);
    ck_assert_ptr_null(c.tuning_path);
    for (int i = 0; i < AOT_COLL_NKINDS; i++)
        ck_assert_ptr_null(c.coll_force[i]);
}
END_TEST

START_TEST(test_good_values)
{
    const char *env[] = {"AUTOOPT_DISABLE=1", "AUTOOPT_VERBOSE=3", "AUTOOPT_STATS=out.json",
                         "AUTOOPT_CONVERT=0", "AUTOOPT_CONVERT_MIN=64K", "AUTOOPT_MAX_GUARDS=7",
                         "AUTOOPT_LEARN_TOUCH=0", "AUTOOPT_CHAINS=0", "AUTOOPT_CHAIN_CONFIRM=5",
                         "AUTOOPT_CHAIN_VERIFY=1", "AUTOOPT_CHAIN_MAX_BREAKS=9",
                         "AUTOOPT_SITE_DEPTH=4", "AUTOOPT_TRACE=/tmp/t", "AUTOOPT_COLLECTIVES=0",
                         "AUTOOPT_REPRODUCIBLE=1", "AUTOOPT_TUNING=tune.txt",
                         "AUTOOPT_ALLREDUCE=ring", "AUTOOPT_ALLTOALL=ring_n_barriers:n=3", NULL};
    struct aot_config c;
    char err[256];
    ck_assert_int_eq(parse(&c, err, env), 0);
    ck_assert_int_eq(c.disable, 1);
    ck_assert_int_eq(c.verbose, 3);
    ck_assert_int_eq(c.stats, 1);
    ck_assert_str_eq(c.stats_path, "out.json");
    ck_assert_int_eq(c.convert, 0);
    ck_assert_uint_eq(c.convert_min, 65536);
    ck_assert_int_eq(c.max_guards, 7);
    ck_assert_int_eq(c.learn_touch, 0);
    ck_assert_int_eq(c.chains, 0);
    ck_assert_int_eq(c.chain_confirm, 5);
    ck_assert_int_eq(c.chain_verify, 1);
    ck_assert_int_eq(c.chain_max_breaks, 9);
    ck_assert_int_eq(c.site_depth, 4);
    ck_assert_str_eq(c.trace_dir, "/tmp/t");
    ck_assert_int_eq(c.collectives, 0);
    ck_assert_int_eq(c.reproducible, 1);
    ck_assert_str_eq(c.tuning_path, "tune.txt");
    ck_assert_str_eq(c.coll_force[AOT_COLL_ALLREDUCE], "ring");
    ck_assert_str_eq(c.coll_force[AOT_COLL_ALLTOALL], "ring_n_barriers:n=3");
    ck_assert_ptr_null(c.coll_force[AOT_COLL_BCAST]);
}
END_TEST

START_TEST(test_chain_modes)
{
    static const struct { const char *v; int mode; } cases[] = {
        {"AUTOOPT_CHAINS=0", AOT_CHAINS_OFF}, {"AUTOOPT_CHAINS=1", AOT_CHAINS_SAFE},
        {"AUTOOPT_CHAINS=unguarded", AOT_CHAINS_UNGUARDED}, {NULL, AOT_CHAINS_SAFE},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *env[] = {cases[i].v, NULL};
        struct aot_config c;
        char err[256];
        ck_assert_int_eq(parse(&c, err, env), 0);
        ck_assert_int_eq(c.chains, cases[i].mode);
    }
}
END_TEST

START_TEST(test_byte_suffixes)
{
    static const struct { const char *v; size_t bytes; } cases[] = {
        {"AUTOOPT_CONVERT_MIN=0", 0}, {"AUTOOPT_CONVERT_MIN=4096", 4096},
        {"AUTOOPT_CONVERT_MIN=1k", 1024}, {"AUTOOPT_CONVERT_MIN=2M", 2u << 20},
        {"AUTOOPT_CONVERT_MIN=1G", 1u << 30}, {"AUTOOPT_CONVERT_MIN=64KiB", 65536},
        {"AUTOOPT_CONVERT_MIN=64KB", 65536}, {"AUTOOPT_CONVERT_MIN=2m", 2u << 20},
        {"AUTOOPT_CONVERT_MIN=1g", 1u << 30},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *env[] = {cases[i].v, NULL};
        struct aot_config c;
        char err[256];
        ck_assert_int_eq(parse(&c, err, env), 0);
        ck_assert_uint_eq(c.convert_min, cases[i].bytes);
    }
}
END_TEST

/* Each bad value must fail with exactly this one-line message. */
static const struct { const char *env, *msg; } bad_cases[] = {
    {"AUTOOPT_VERBOSE=loud", "AUTOOPT_VERBOSE=loud: expected an integer 0..3"},
    {"AUTOOPT_VERBOSE=4", "AUTOOPT_VERBOSE=4: expected an integer 0..3"},
    {"AUTOOPT_VERBOSE=-1", "AUTOOPT_VERBOSE=-1: expected an integer 0..3"},
    {"AUTOOPT_DISABLE=yes", "AUTOOPT_DISABLE=yes: expected 0 or 1"},
    {"AUTOOPT_DISABLE=2", "AUTOOPT_DISABLE=2: expected 0 or 1"},
    {"AUTOOPT_STATS=yes", "AUTOOPT_STATS=yes: expected 0, 1 or a file name ending in .json"},
    {"AUTOOPT_STATS=2", "AUTOOPT_STATS=2: expected 0, 1 or a file name ending in .json"},
    {"AUTOOPT_CONVERT=on", "AUTOOPT_CONVERT=on: expected 0 or 1"},
    {"AUTOOPT_CONVERT_MIN=-5", "AUTOOPT_CONVERT_MIN=-5: expected a byte count such as 4096, 64K or 1M"},
    {"AUTOOPT_CONVERT_MIN=12X", "AUTOOPT_CONVERT_MIN=12X: expected a byte count such as 4096, 64K or 1M"},
    {"AUTOOPT_CONVERT_MIN=K", "AUTOOPT_CONVERT_MIN=K: expected a byte count such as 4096, 64K or 1M"},
    {"AUTOOPT_CONVERT_MIN= -5", "AUTOOPT_CONVERT_MIN= -5: expected a byte count such as 4096, 64K or 1M"},
    {"AUTOOPT_CONVERT_MIN= 5", "AUTOOPT_CONVERT_MIN= 5: expected a byte count such as 4096, 64K or 1M"},
    {"AUTOOPT_CONVERT_MIN=18446744073709551616", "AUTOOPT_CONVERT_MIN=18446744073709551616: expected a byte count such as 4096, 64K or 1M"},
    {"AUTOOPT_CONVERT_MIN=0x10", "AUTOOPT_CONVERT_MIN=0x10: expected a byte count such as 4096, 64K or 1M"},
    {"AUTOOPT_MAX_GUARDS=0", "AUTOOPT_MAX_GUARDS=0: expected an integer 1..1000000"},
    {"AUTOOPT_LEARN_TOUCH=x", "AUTOOPT_LEARN_TOUCH=x: expected an integer 0..1000"},
    {"AUTOOPT_CHAINS=2", "AUTOOPT_CHAINS=2: expected 0, 1 or unguarded"},
    {"AUTOOPT_CHAINS=guarded", "AUTOOPT_CHAINS=guarded: expected 0, 1 or unguarded"},
    {"AUTOOPT_CHAIN_CONFIRM=0", "AUTOOPT_CHAIN_CONFIRM=0: expected an integer 1..1000"},
    {"AUTOOPT_CHAIN_VERIFY=true", "AUTOOPT_CHAIN_VERIFY=true: expected 0 or 1"},
    {"AUTOOPT_CHAIN_MAX_BREAKS=1001", "AUTOOPT_CHAIN_MAX_BREAKS=1001: expected an integer 0..1000"},
    {"AUTOOPT_SITE_DEPTH=17", "AUTOOPT_SITE_DEPTH=17: expected an integer 1..16"},
    {"AUTOOPT_COLLECTIVES=off", "AUTOOPT_COLLECTIVES=off: expected 0 or 1"},
    {"AUTOOPT_REPRODUCIBLE=3", "AUTOOPT_REPRODUCIBLE=3: expected 0 or 1"},
    /* what the user typed is escaped, never echoed raw to the terminal */
    {"AUTOOPT_VERBOSE=\033[2J\033[31mred", "AUTOOPT_VERBOSE=\\x1b[2J\\x1b[31mred: expected an integer 0..3"},
    {"AUTOOPT_CHAINS=a\nb\\c\t\xff", "AUTOOPT_CHAINS=a\\nb\\\\c\\t\\xff: expected 0, 1 or unguarded"},
};

START_TEST(test_bad_value)
{
    const char *env[] = {bad_cases[_i].env, NULL};
    struct aot_config c;
    char err[256];
    ck_assert_int_eq(parse(&c, err, env), -1);
    ck_assert_str_eq(err, bad_cases[_i].msg);
}
END_TEST

/* A value of 5,000 characters: the message keeps the name and the reason, and shows the start
 * of the value followed by "..." (before quoting, it filled the message buffer). */
START_TEST(test_long_value)
{
    static char env0[5100];
    const char *env[] = {env0, NULL};
    struct aot_config c;
    char err[512], want[512];
    int n = snprintf(env0, sizeof(env0), "AUTOOPT_CONVERT_MIN=");
    memset(env0 + n, '7', 5000);
    env0[n + 5000] = 'x';
    env0[n + 5001] = '\0';
    ck_assert_int_eq(parse(&c, err, env), -1);
    snprintf(want, sizeof(want), "AUTOOPT_CONVERT_MIN=%.*s...: expected a byte count such as "
             "4096, 64K or 1M", AOT_QUOTE_SHOWN, env0 + n);
    ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(test_quote)
{
    char buf[AOT_QUOTE_LEN], small[8];
    char all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (char) i;
    ck_assert_str_eq(aot_quote_str("plain text", buf, sizeof(buf)), "plain text");
    ck_assert_str_eq(aot_quote("a\0b", 3, buf, sizeof(buf)), "a\\x00b");
    /* every byte value: printable ASCII kept, each other byte 2 or 4 characters, cut at
     * AOT_QUOTE_SHOWN input bytes; the result always fits AOT_QUOTE_LEN */
    aot_quote(all + 128, 128, buf, sizeof(buf));
    ck_assert_uint_eq(strlen(buf), 4 * AOT_QUOTE_SHOWN + 3);
    ck_assert_str_eq(buf + 4 * AOT_QUOTE_SHOWN, "...");
    for (const char *p = buf; *p; p++)
        ck_assert(*p >= 0x20 && *p < 0x7f);
    /* a small buffer is never overrun and stays terminated */
    ck_assert_str_eq(aot_quote_str("abcdefghij", small, sizeof(small)), "abcd...");
    ck_assert_str_eq(aot_quote_str("\033\033", small, sizeof(small)), "\\x1b...");
}
END_TEST

/* The last step of every printed line: control bytes escaped, the rest (a quoted value's
 * backslashes, UTF-8) kept; never past the buffer (issue 55, item 7). */
START_TEST(test_escape_controls)
{
    char buf[64], small[6];
    ck_assert_uint_eq(aot_escape_controls("a/\033[31mb\nc\\x1b\177\303\251", buf, sizeof(buf)),
                      strlen("a/\\x1b[31mb\\nc\\x1b\\x7f\303\251"));
    ck_assert_str_eq(buf, "a/\\x1b[31mb\\nc\\x1b\\x7f\303\251");
    aot_escape_controls("ab\n\n", small, sizeof(small));
    ck_assert_str_eq(small, "ab\\n");
}
END_TEST

START_TEST(test_first_error_wins)
{
    const char *env[] = {"AUTOOPT_VERBOSE=9", "AUTOOPT_CHAINS=7", NULL};
    struct aot_config c;
    char err[256];
    ck_assert_int_eq(parse(&c, err, env), -1);
    ck_assert_str_eq(err, "AUTOOPT_VERBOSE=9: expected an integer 0..3");
}
END_TEST

START_TEST(test_empty_is_unset)
{
    const char *env[] = {"AUTOOPT_VERBOSE=", "AUTOOPT_TUNING=", NULL};
    struct aot_config c;
    char err[256];
    ck_assert_int_eq(parse(&c, err, env), 0);
    ck_assert_int_eq(c.verbose, 0);
    ck_assert_ptr_null(c.tuning_path);
}
END_TEST

START_TEST(test_unknown_names)
{
    char *good[] = {"PATH=/bin", "AUTOOPT_STATS=1", "AUTOOPT_YIELD_SPINS=5", "AUTOOPT_BCAST=linear", NULL};
    char *bad[] = {"AUTOOPT_STATS=1", "AUTOOPT_STAT=1", NULL};
    char *prefix[] = {"AUTOOPT_STATSX=1", NULL};
    ck_assert_ptr_null(aot_config_unknown(good));
    ck_assert_str_eq(aot_config_unknown(bad), "AUTOOPT_STAT=1");
    ck_assert_str_eq(aot_config_unknown(prefix), "AUTOOPT_STATSX=1");
}
END_TEST

START_TEST(test_table_documents_every_variable)
{
    /* Every variable in the table has values, a default, a one-line help and the README's
     * meaning (the README's table is generated from them). */
    char values[256];
    ck_assert_uint_ge(aot_config_nvars, 24);
    /* MPI_Init compares at most this many across ranks */
    ck_assert_uint_le(aot_config_nvars, AOT_CONFIG_MAX_VARS);
    for (size_t i = 0; i < aot_config_nvars; i++) {
        const struct aot_config_var *s = &aot_config_vars[i];
        const char *dflt = s->dflt_doc ? s->dflt_doc : s->dflt;
        ck_assert_int_eq(strncmp(s->name, "AUTOOPT_", 8), 0);
        ck_assert_msg(*aot_config_values(i, values, sizeof(values)), "%s", s->name);
        ck_assert_msg(dflt && *dflt, "%s", s->name);
        ck_assert_msg(s->help && *s->help && !strchr(s->help, '\n'), "%s", s->name);
        ck_assert_msg(s->details && *s->details && !strchr(s->details, '|'), "%s", s->name);
        ck_assert_msg(s->agree >= AOT_AGREE_VALUE && s->agree <= AOT_AGREE_NONE, "%s", s->name);
        for (size_t j = 0; j < i; j++)
            ck_assert_str_ne(aot_config_vars[j].name, s->name);
    }
    for (size_t i = 0; i < aot_config_tool_nvars; i++) {
        ck_assert_int_eq(strncmp(aot_config_tool_vars[i].name, "AUTOOPT_", 8), 0);
        ck_assert(*aot_config_tool_vars[i].help);
    }
}
END_TEST

static size_t var_index(const char *name)
{
    for (size_t i = 0; i < aot_config_nvars; i++)
        if (strcmp(aot_config_vars[i].name, name) == 0)
            return i;
    ck_abort_msg("%s is not in the table", name);
    return 0;
}

/* Every default parses, and parsing an empty environment gives exactly what parsing each
 * default one by one gives. */
START_TEST(test_every_default_parses)
{
    const char *env[] = {NULL};
    struct aot_config all, one;
    char err[256];
    ck_assert_int_eq(parse(&all, err, env), 0);
    memset(&one, 0, sizeof(one));
    for (size_t i = 0; i < aot_config_nvars; i++) {
        const struct aot_config_var *s = &aot_config_vars[i];
        ck_assert_msg(s->dflt || s->kind == AOT_KIND_TEXT, "%s has no default", s->name);
        if (s->dflt)
            ck_assert_msg(aot_config_parse_one(i, s->dflt, &one, err, sizeof(err)) == 0,
                          "%s: default %s: expected %s", s->name, s->dflt, err);
    }
    ck_assert_mem_eq(&one, &all, sizeof(one));
    /* the numbers the README states as defaults */
    ck_assert_uint_eq(all.convert_min, 65536);
    ck_assert_int_eq(all.max_guards, 16384);
    ck_assert_int_eq(all.tune_window, 16);
    ck_assert_int_eq(all.tune_switch, 110);
    ck_assert_int_eq(all.p2p_mode, AOT_P2P_AUTO);
    ck_assert_int_eq(all.calib, AOT_CALIB_MEASURE);
    ck_assert_int_eq(all.tune_online, AOT_TUNE_EXACT);
}
END_TEST

/* Every example parses (AUTOOPT_TUNE_SAVE's needs AUTOOPT_TUNE=online beside it). */
START_TEST(test_every_example_parses)
{
    int examples = 0;
    for (size_t i = 0; i < aot_config_nvars; i++) {
        char entry[256], err[256];
        const char *env[] = {entry, "AUTOOPT_TUNE=online", NULL};
        struct aot_config c;
        if (!aot_config_vars[i].example)
            continue;
        examples++;
        snprintf(entry, sizeof(entry), "%s=%s", aot_config_vars[i].name,
                 aot_config_vars[i].example);
        ck_assert_msg(parse(&c, err, env) == 0, "%s: %s", entry, err);
    }
    ck_assert_int_ge(examples, 24);
}
END_TEST

/* A value just outside each setting's range gives the one-line error naming the variable. */
START_TEST(test_every_range_enforced)
{
    for (size_t i = 0; i < aot_config_nvars; i++) {
        const struct aot_config_var *s = &aot_config_vars[i];
        char values[3][64], want[512], err[256], entry[256];
        const char *env[] = {entry, NULL};
        int nvalues = 0;
        struct aot_config c;

        switch (s->kind) {
        case AOT_KIND_INT:
            snprintf(values[nvalues++], 64, "%ld", s->lo - 1);
            snprintf(values[nvalues++], 64, "%ld", s->hi + 1);
            snprintf(values[nvalues++], 64, "%ldx", s->lo);
            break;
        case AOT_KIND_BYTES:
            snprintf(values[nvalues++], 64, "-1");
            break;
        case AOT_KIND_CHOICE: case AOT_KIND_SPECIAL:
            snprintf(values[nvalues++], 64, "nonsense");
            break;
        default:
            continue;   /* TEXT takes any value */
        }
        for (int k = 0; k < nvalues; k++) {
            snprintf(entry, sizeof(entry), "%s=%s", s->name, values[k]);
            ck_assert_msg(parse(&c, err, env) == -1, "%s accepted", entry);
            snprintf(want, sizeof(want), "%s: expected ", entry);
            ck_assert_msg(strncmp(err, want, strlen(want)) == 0 && !strchr(err, '\n'),
                          "%s: %s", entry, err);
            if (s->kind == AOT_KIND_INT && (s->lo != 0 || s->hi != 1)) {
                snprintf(want, sizeof(want), "%s: expected an integer %ld..%ld", entry, s->lo,
                         s->hi);
                ck_assert_str_eq(err, want);
            }
        }
    }
}
END_TEST

START_TEST(test_choices)
{
    static const struct { const char *env, *msg; } bad[] = {
        {"AUTOOPT_P2P_MODE=fast", "AUTOOPT_P2P_MODE=fast: expected auto, native, copy or guarded"},
        {"AUTOOPT_TUNE=on", "AUTOOPT_TUNE=on: expected off, online or exact"},
        {"AUTOOPT_TUNE=of", "AUTOOPT_TUNE=of: expected off, online or exact"},
        {"AUTOOPT_TUNE=offline", "AUTOOPT_TUNE=offline: expected off, online or exact"},
    };
    static const struct { const char *env; int mode, online; } good[] = {
        {"AUTOOPT_P2P_MODE=auto", AOT_P2P_AUTO, AOT_TUNE_EXACT},
        {"AUTOOPT_P2P_MODE=native", AOT_P2P_NATIVE, AOT_TUNE_EXACT},
        {"AUTOOPT_P2P_MODE=copy", AOT_P2P_COPY, AOT_TUNE_EXACT},
        {"AUTOOPT_P2P_MODE=guarded", AOT_P2P_GUARDED, AOT_TUNE_EXACT},
        {"AUTOOPT_TUNE=off", AOT_P2P_AUTO, 0}, {"AUTOOPT_TUNE=0", AOT_P2P_AUTO, 0},
        {"AUTOOPT_TUNE=online", AOT_P2P_AUTO, AOT_TUNE_ONLINE},
        {"AUTOOPT_TUNE=exact", AOT_P2P_AUTO, AOT_TUNE_EXACT},
    };
    struct aot_config c;
    char err[256], values[128];
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *env[] = {bad[i].env, NULL};
        ck_assert_int_eq(parse(&c, err, env), -1);
        ck_assert_str_eq(err, bad[i].msg);
    }
    {
        /* AUTOOPT_TUNE_SAVE alone goes with the default, exact; not with off */
        const char *save_off[] = {"AUTOOPT_TUNE_SAVE=x.tune", "AUTOOPT_TUNE=off", NULL};
        const char *save[] = {"AUTOOPT_TUNE_SAVE=x.tune", NULL};
        ck_assert_int_eq(parse(&c, err, save_off), -1);
        ck_assert_str_eq(err, "AUTOOPT_TUNE_SAVE=x.tune: expected a path, together with "
                              "AUTOOPT_TUNE=exact or online (nothing to save without it)");
        ck_assert_int_eq(parse(&c, err, save), 0);
    }
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        const char *env[] = {good[i].env, NULL};
        ck_assert_int_eq(parse(&c, err, env), 0);
        ck_assert_int_eq(c.p2p_mode, good[i].mode);
        ck_assert_int_eq(c.tune_online, good[i].online);
    }
    /* the values as the README shows them */
    ck_assert_str_eq(aot_config_values(var_index("AUTOOPT_CHAINS"), values, sizeof(values)),
                     "0, 1, `unguarded`");
    ck_assert_str_eq(aot_config_values(var_index("AUTOOPT_TUNE"), values, sizeof(values)),
                     "`off`, `online`, `exact`");
    ck_assert_str_eq(aot_config_values(var_index("AUTOOPT_VERBOSE"), values, sizeof(values)),
                     "0..3");
    ck_assert_str_eq(aot_config_values(var_index("AUTOOPT_DISABLE"), values, sizeof(values)),
                     "0, 1");
}
END_TEST

/* Each collective of AOT_COLLECTIVES has its AUTOOPT_<NAME>, stored in its coll_force slot. */
START_TEST(test_every_collective_forced)
{
    static const char *const names[] = {
#define AOT_X(upper, lower) "AUTOOPT_" #upper,
        AOT_COLLECTIVES(AOT_X)
#undef AOT_X
    };
    for (int k = 0; k < AOT_COLL_NKINDS; k++) {
        char entry[64], err[256];
        const char *env[] = {entry, NULL};
        struct aot_config c;
        size_t i = var_index(names[k]);
        ck_assert_int_eq(aot_config_vars[i].kind, AOT_KIND_TEXT);
        snprintf(entry, sizeof(entry), "%s=alg%d", names[k], k);
        ck_assert_int_eq(parse(&c, err, env), 0);
        for (int m = 0; m < AOT_COLL_NKINDS; m++)
            if (m == k)
                ck_assert_str_eq(c.coll_force[m], strchr(entry, '=') + 1);
            else
                ck_assert_ptr_null(c.coll_force[m]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("parse");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_good_values);
    tcase_add_test(tc, test_byte_suffixes);
    tcase_add_test(tc, test_chain_modes);
    tcase_add_loop_test(tc, test_bad_value, 0, (int) (sizeof(bad_cases) / sizeof(bad_cases[0])));
    tcase_add_test(tc, test_first_error_wins);
    tcase_add_test(tc, test_long_value);
    tcase_add_test(tc, test_quote);
    tcase_add_test(tc, test_empty_is_unset);
    tcase_add_test(tc, test_unknown_names);
    tcase_add_test(tc, test_table_documents_every_variable);
    tcase_add_test(tc, test_every_default_parses);
    tcase_add_test(tc, test_every_example_parses);
    tcase_add_test(tc, test_every_range_enforced);
    tcase_add_test(tc, test_choices);
    tcase_add_test(tc, test_escape_controls);
    tcase_add_test(tc, test_every_collective_forced);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
