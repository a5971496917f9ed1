/*
 * autoopt_settings.c: autoopt-settings, the AUTOOPT_* settings as the library knows them.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Lists every setting of src/settings.def (type, values, default, what must agree between
 * ranks, help, and the value in this environment), checks an environment the way MPI_Init
 * does, and writes the README's settings table (--markdown; the test docs.settings_up_to_date
 * compares it with README.md).  It links the library's parser (src/config.c) and nothing of MPI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_config.h"

extern char **environ;

static const char aot_usage[] =
"NAME\n"
"    autoopt-settings - the AUTOOPT_* settings of libautoopt, and their values here\n"
"\n"
"SYNOPSIS\n"
"    autoopt-settings [--list] [NAME...]\n"
"    autoopt-settings --check\n"
"    autoopt-settings --markdown\n"
"    autoopt-settings --help | --version\n"
"\n"
"DESCRIPTION\n"
"    libautoopt reads its settings from environment variables, once, in MPI_Init on every\n"
"    rank. autoopt-settings shows them as the library itself knows them: it is built from\n"
"    the same table (src/settings.def) and parses values with the same code, so the form\n"
"    of a value it rejects is one MPI_Init rejects, with the same message. MPI_Init checks\n"
"    more than the form, later and with MPI: that a forced algorithm exists, that a tuning\n"
"    or topology file reads, that the trace directory can be made, and that the ranks agree.\n"
"\n"
"    --list (the default) prints each setting with its type (integer, bytes, choice, text\n"
"    or special), the values it takes, its default, what must agree between the ranks of a\n"
"    job, a line of help, an example, and its value in the current environment. A value that\n"
"    MPI_Init would refuse is shown with the reason (the listing itself exits 0). The\n"
"    variables read by autoopt's measuring tools, not by the library, come last. NAME\n"
"    (AUTOOPT_VERBOSE, or VERBOSE) limits the list to those settings.\n"
"\n"
"OPTIONS\n"
"    --list      list the settings (the default); with NAMEs, only those.\n"
"    --check     parse the current environment as MPI_Init does: print the one-line error\n"
"                MPI_Init would stop with and exit 1, or print \"ok\" and exit 0 (the checks\n"
"                above that need MPI or files are not made). AUTOOPT_* names the library\n"
"                does not know are reported as warnings, as MPI_Init does.\n"
"    --markdown  print the settings table of README.md (between its \"settings\" markers).\n"
"    --help      print this text.\n"
"    --version   print the version of autoopt this was built with.\n"
"\n"
"AGREEMENT BETWEEN RANKS\n"
"    same     the text must be the same on every rank (unset counts as a value);\n"
"    on/off   only whether it is on (set and not 0) must agree;\n"
"    any      may differ between ranks (it changes only what a rank prints or measures).\n"
"    MPI_Init stops every rank when a setting differs where it must not.\n"
"\n"
"EXIT STATUS\n"
"    0 on success; 1 when --check finds a bad value; 2 on a bad command line or an unknown\n"
"    NAME.\n"
"\n"
"EXAMPLES\n"
"    autoopt-settings CONVERT_MIN TUNE\n"
"    AUTOOPT_TUNE=online AUTOOPT_TUNE_SAVE=run.tune autoopt-settings --check\n"
"    autoopt-settings --markdown > table.md\n"
"\n"
"SEE ALSO\n"
"    README.md (\"Configuration\"), docs/limits.md (what each setting risks).\n";

static const char *aot_env(const char *name, void *arg)
{
    (void) arg;
    return getenv(name);
}

/* Markdown as plain text: without backquotes and asterisks. */
static void aot_put_plain(const char *s)
{
    for (; *s; s++)
        if (*s != '`' && *s != '*')
            putchar(*s);
}

static const char *aot_kind_name(int kind)
{
    static const char *const names[] = {"integer", "bytes", "choice", "text", "special"};
    return kind >= 0 && kind <= AOT_KIND_SPECIAL ? names[kind] : "?";
}

static const char *aot_agree_name(int agree)
{
    return agree == AOT_AGREE_VALUE ? "same" : agree == AOT_AGREE_ON ? "on/off" : "any";
}

static const char *aot_default_doc(const struct aot_config_var *s)
{
    return s->dflt_doc ? s->dflt_doc : s->dflt;
}

static void aot_list_one(size_t i)
{
    const struct aot_config_var *s = &aot_config_vars[i];
    const char *v = getenv(s->name);
    char values[256], what[128], q[AOT_QUOTE_LEN];
    struct aot_config scratch;

    printf("%s\n    type: %s   values: ", s->name, aot_kind_name(s->kind));
    aot_put_plain(aot_config_values(i, values, sizeof(values)));
    printf("   default: ");
    aot_put_plain(aot_default_doc(s));
    printf("   ranks: %s\n    %s\n", aot_agree_name(s->agree), s->help);
    if (s->example)
        printf("    example: %s=%s\n", s->name, s->example);
    memset(&scratch, 0, sizeof(scratch));
    if (!v || !*v)
        printf("    current: unset (the default)\n");
    else if (aot_config_parse_one(i, v, &scratch, what, sizeof(what)) != 0)
        printf("    current: %s   BAD: expected %s\n", aot_quote_str(v, q, sizeof(q)), what);
    else
        printf("    current: %s\n", aot_quote_str(v, q, sizeof(q)));
}

static void aot_list_tool(const struct aot_config_tool_var *t)
{
    printf("%s\n    read by the measuring tools, not by the library: ", t->name);
    aot_put_plain(t->help);
    putchar('\n');
}

/* The tools' variable NAME (with or without "AUTOOPT_"), or NULL. */
static const struct aot_config_tool_var *aot_tool_var(const char *name)
{
    for (size_t i = 0; i < aot_config_tool_nvars; i++)
        if (strcmp(aot_config_tool_vars[i].name, name) == 0
            || strcmp(aot_config_tool_vars[i].name + 8, name) == 0)
            return &aot_config_tool_vars[i];
    return NULL;
}

static int aot_list(char **names, int n)
{
    int status = 0;

    if (n == 0) {
        for (size_t i = 0; i < aot_config_nvars; i++)
            aot_list_one(i);
        for (size_t i = 0; i < aot_config_tool_nvars; i++)
            aot_list_tool(&aot_config_tool_vars[i]);
        return 0;
    }
    for (int k = 0; k < n; k++) {
        const char *want = names[k];
        size_t i = 0;
        while (i < aot_config_nvars && strcmp(aot_config_vars[i].name, want) != 0
               && strcmp(aot_config_vars[i].name + 8, want) != 0)
            i++;
        if (i == aot_config_nvars && aot_tool_var(want)) {
            aot_list_tool(aot_tool_var(want));
            continue;
        }
        if (i == aot_config_nvars) {
            fprintf(stderr, "autoopt-settings: %s: not a setting of the library "
                    "(autoopt-settings --list shows them)\n", want);
            status = 2;
            continue;
        }
        aot_list_one(i);
    }
    return status;
}

static int aot_check(void)
{
    struct aot_config cfg;
    char err[512];
    const char *unknown = aot_config_unknown(environ);

    if (unknown)
        fprintf(stderr, "autoopt-settings: warning: unknown setting %s ignored\n", unknown);
    if (aot_config_parse(&cfg, aot_env, NULL, err, sizeof(err)) != 0) {
        fprintf(stderr, "autoopt-settings: %s\n", err);
        return 1;
    }
    printf("ok: every AUTOOPT_* value has a form MPI_Init accepts\n");
    return 0;
}

/* The README's table: one row per setting, consecutive settings with the same details in one
 * row ("`AUTOOPT_ALLREDUCE`, `_BCAST`, ..."), then the tools' variables. */
static int aot_markdown(void)
{
    char values[256];

    printf("| variable | values | default | ranks | example | meaning |\n"
           "|---|---|---|---|---|---|\n");
    for (size_t i = 0, j; i < aot_config_nvars; i = j) {
        const struct aot_config_var *s = &aot_config_vars[i], *ex = NULL;
        for (j = i; j < aot_config_nvars && strcmp(aot_config_vars[j].details, s->details) == 0;
             j++) {
            printf(j == i ? "| `%s`" : ", `_%s`", aot_config_vars[j].name + (j == i ? 0 : 8));
            if (!ex && aot_config_vars[j].example)
                ex = &aot_config_vars[j];
        }
        printf(" | %s | %s | %s | ", aot_config_values(i, values, sizeof(values)),
               aot_default_doc(s), aot_agree_name(s->agree));
        if (ex)
            printf("`%s=%s`", ex->name, ex->example);
        printf(" | %s |\n", s->details);
    }
    printf("\nVariables read by the measuring tools, not the library:");
    for (size_t i = 0; i < aot_config_tool_nvars; i++)
        printf("%s `%s` (%s)", i ? "," : "", aot_config_tool_vars[i].name,
               aot_config_tool_vars[i].help);
    printf(".\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        fputs(aot_usage, stdout);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("autoopt-settings (autoopt) %s\n", AOT_VERSION_STRING);
        return 0;
    }
    if (argc > 1 && (strcmp(argv[1], "--check") == 0 || strcmp(argv[1], "--markdown") == 0)) {
        if (argc > 2) {
            fprintf(stderr, "autoopt-settings: %s takes no arguments (autoopt-settings --help)\n",
                    argv[1]);
            return 2;
        }
        return argv[1][2] == 'c' ? aot_check() : aot_markdown();
    }
    if (argc > 1 && strcmp(argv[1], "--list") == 0)
        return aot_list(argv + 2, argc - 2);
    if (argc > 1 && argv[1][0] == '-') {
        fprintf(stderr, "autoopt-settings: %s: unknown option (autoopt-settings --help)\n",
                argv[1]);
        return 2;
    }
    return aot_list(argv + 1, argc - 1);
}
