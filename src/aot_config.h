/*
 * aot_config.h: the AUTOOPT_* environment variables, parsed once in MPI_Init.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The parser is pure (no MPI, no global state): it reads variables through a lookup function,
 * so the unit tests feed it any environment they like.  The settings themselves are listed once,
 * in settings.def; a new one is an entry there and its field in struct aot_config.
 */
#ifndef AOT_CONFIG_H_INCLUDED
#define AOT_CONFIG_H_INCLUDED

#include <stddef.h>

/* The collectives that autoopt can route through its own algorithms; AUTOOPT_<NAME> forces one. */
#define AOT_COLLECTIVES(X) \
    X(ALLREDUCE, allreduce) X(BCAST, bcast) X(REDUCE, reduce) X(ALLGATHER, allgather) \
    X(ALLGATHERV, allgatherv) X(ALLTOALL, alltoall) X(ALLTOALLV, alltoallv) X(BARRIER, barrier)

enum aot_coll_kind {
#define AOT_X(upper, lower) AOT_COLL_##upper,
    AOT_COLLECTIVES(AOT_X)
#undef AOT_X
    AOT_COLL_NKINDS
};

/* AUTOOPT_CHAINS: off; chain mode through paging's guards (a touch waits, the default); or
 * guard-free chain mode, which trusts the program not to touch a chain's buffers mid-chain. */
enum { AOT_CHAINS_OFF = 0, AOT_CHAINS_SAFE = 1, AOT_CHAINS_UNGUARDED = 2 };
/* AUTOOPT_P2P_MODE: how safe chains and converting call sites run their calls.  AUTO lets the
 * benefit governor choose per chain and site (docs/govern.md); the others force one mode. */
enum { AOT_P2P_AUTO = 0, AOT_P2P_NATIVE, AOT_P2P_COPY, AOT_P2P_GUARDED, AOT_P2P_NMODES };

/* AUTOOPT_TUNE: off; online tuning of every collective; of those whose result cannot depend
 * on the algorithm (the default, docs/online.md). */
enum { AOT_TUNE_OFF = 0, AOT_TUNE_ONLINE = 1, AOT_TUNE_EXACT = 2 };

/* AUTOOPT_CALIB: measure a guard's and a copy's cost (the default), do not, or take figures. */
enum { AOT_CALIB_MEASURE = 0, AOT_CALIB_OFF = 1, AOT_CALIB_GIVEN = 2 };

struct aot_config {
    int disable;             /* AUTOOPT_DISABLE: pure pass-through */
    int verbose;             /* AUTOOPT_VERBOSE 0..3 */
    int stats;               /* AUTOOPT_STATS: 0 off, 1 on (text summary, or JSON to stats_path) */
    const char *stats_path;  /*   NULL: print text from rank 0; else JSON file path */
    /* paging (asynchronous conversion) */
    int convert;             /* AUTOOPT_CONVERT 0/1 */
    size_t convert_min;      /* AUTOOPT_CONVERT_MIN bytes */
    int max_guards;          /* AUTOOPT_MAX_GUARDS guarded ranges */
    int learn_touch;         /* AUTOOPT_LEARN_TOUCH immediate faults before a site passes through */
    /* chains */
    int chains;              /* AUTOOPT_CHAINS: AOT_CHAINS_OFF, _SAFE (1, default) or _UNGUARDED */
    int chain_confirm;       /* AUTOOPT_CHAIN_CONFIRM repetitions */
    int chain_verify;        /* AUTOOPT_CHAIN_VERIFY 0/1 */
    int chain_max_breaks;    /* AUTOOPT_CHAIN_MAX_BREAKS */
    int p2p_mode;            /* AUTOOPT_P2P_MODE: AOT_P2P_AUTO (default) or a forced mode */
    int p2p_agree;           /* AUTOOPT_P2P_AGREE: governors agree on verdicts (default 1) */
    int site_depth;          /* AUTOOPT_SITE_DEPTH frames */
    const char *trace_dir;   /* AUTOOPT_TRACE directory, NULL off */
    int calib;               /* AUTOOPT_CALIB: AOT_CALIB_MEASURE (default), _OFF or _GIVEN */
    double calib_guard_ns, calib_page_ns, calib_copy_ns;   /*   the figures given */
    /* collectives */
    int collectives;         /* AUTOOPT_COLLECTIVES 0/1 */
    int reproducible;        /* AUTOOPT_REPRODUCIBLE 0/1 */
    const char *tuning_path; /* AUTOOPT_TUNING file, NULL off */
    int tune_online;         /* AUTOOPT_TUNE: AOT_TUNE_OFF, _ONLINE, _EXACT */
    const char *tune_save;   /* AUTOOPT_TUNE_SAVE file, NULL off */
    int tune_window;         /* AUTOOPT_TUNE_WINDOW: first monitor window, timed calls */
    int tune_switch;         /* AUTOOPT_TUNE_SWITCH: percent of the second best's time */
    const char *topology_path; /* AUTOOPT_TOPOLOGY file, NULL off (not yet read) */
    const char *cache_dir;   /* AUTOOPT_CACHE directory or "off", NULL: the default */
    const char *coll_force[AOT_COLL_NKINDS]; /* AUTOOPT_ALLREDUCE=name[:param=value] ... */
};

/* A byte count: digits, an optional K/M/G suffix (either case) and an optional B or iB; no sign,
 * no blanks.  0, or -1 when s[0..len) is not one (number.c: the one parser for settings and
 * files). */
#include <stdint.h>
int aot_parse_size(const char *s, size_t len, uint64_t *out);

/* Input echoed in an error message (quote.c): printable ASCII kept, other bytes as C escapes
 * (\n, \x1b), at most AOT_QUOTE_SHOWN characters of input and then "...".  A buffer of
 * AOT_QUOTE_LEN always holds the whole result.  Returns buf. */
#define AOT_QUOTE_SHOWN 64
#define AOT_QUOTE_LEN (4 * AOT_QUOTE_SHOWN + 4)
const char *aot_quote(const char *s, size_t n, char *buf, size_t len);
const char *aot_quote_str(const char *s, char *buf, size_t len);
/* Copies in to out (len bytes with the NUL) with its control bytes (below 0x20, 0x7f) escaped
 * (\n, \t, \r, \x1b) and the rest unchanged; returns the length written.  Every line
 * autoopt prints passes through it (src/quote.c). */
size_t aot_escape_controls(const char *in, char *out, size_t len);

/* Returns the value of a variable or NULL (getenv in production). */
typedef const char *(*aot_env_lookup)(const char *name, void *arg);

/* Fills *cfg from the environment.  Returns 0, or -1 with a one-line message in err such as
 * "AUTOOPT_VERBOSE=loud: expected an integer 0..3" (without the "autoopt: " prefix). */
int aot_config_parse(struct aot_config *cfg, aot_env_lookup lookup, void *arg,
                     char *err, size_t errlen);

/* Checks a list of "NAME=value" strings (environ) for AUTOOPT_* names that are not known.
 * Returns the first unknown name's entry, or NULL. */
const char *aot_config_unknown(char *const *env);

/* Which settings must agree between the ranks of a job (checked in MPI_Init): a value that
 * differs could make ranks choose different collective algorithms, or take part in different
 * collectives (statistics), and hang or corrupt the job. */
enum aot_config_agree {
    AOT_AGREE_VALUE = 0,     /* the same text on every rank (unset counts as a value) */
    AOT_AGREE_ON,            /* whether it is on (set and not "0") must agree; the rest may differ */
    AOT_AGREE_NONE           /* may differ: it changes only what a rank prints */
};

/* How a setting's value is read (settings.def says which kind each one is). */
enum aot_config_kind {
    AOT_KIND_INT = 0,        /* a decimal integer lo..hi, into an int */
    AOT_KIND_BYTES,          /* a byte count with an optional K/M/G suffix, into a size_t */
    AOT_KIND_CHOICE,         /* one of choices, its position into an int */
    AOT_KIND_TEXT,           /* kept as it is (a path, a name), into a const char * */
    AOT_KIND_SPECIAL         /* a form of its own, read by parse */
};

/* One setting: the parser's table, generated from settings.def, which also gives the README's
 * settings table and the listing of autoopt-settings (tools/settings/). */
struct aot_config_var {
    const char *name;        /* "AUTOOPT_VERBOSE" */
    int kind;                /* enum aot_config_kind */
    size_t offset;           /* of the value in struct aot_config (not SPECIAL) */
    const char *dflt;        /* applied when unset, parsed like a value; NULL: no value (TEXT) */
    long lo, hi;             /* INT: the range */
    const char *choices;     /* CHOICE: "0|1|unguarded"; "off/0": 0 is a second spelling */
    /* SPECIAL: parses value into cfg; NULL, or what was expected ("0, 1 or ...") */
    const char *(*parse)(struct aot_config *cfg, const char *value);
    const char *values;      /* Markdown; NULL: derived from the kind (aot_config_values) */
    const char *dflt_doc;    /* Markdown, what unset means; NULL: dflt */
    int agree;               /* enum aot_config_agree */
    const char *example;     /* a value, Markdown-safe; NULL: none */
    const char *help;        /* one line of plain text */
    const char *details;     /* Markdown: the README's "meaning" */
};

/* A variable of the measuring tools: known, so that it is not reported as unknown. */
struct aot_config_tool_var {
    const char *name;
    const char *help;        /* Markdown: who reads it */
};

/* What variable i accepts, as Markdown ("0..3", "0, 1, `unguarded`"), into buf; returns buf. */
const char *aot_config_values(size_t i, char *buf, size_t len);

/* Parses one value of variable i as aot_config_parse does, into its field of *cfg (the other
 * fields are left as they are).  Returns 0, or -1 with what was expected ("an integer 0..3")
 * in what[len]. */
int aot_config_parse_one(size_t i, const char *value, struct aot_config *cfg, char *what,
                         size_t len);

/* The text of variable i as the ranks compare it (aot_config_vars[i].agree applied): "" when it
 * need not agree.  lookup as for aot_config_parse. */
const char *aot_config_agree_text(size_t i, aot_env_lookup lookup, void *arg);
extern const struct aot_config_var aot_config_vars[];
extern const size_t aot_config_nvars;
/* The most settings the ranks compare at MPI_Init (runtime.c); test_config checks the table
 * stays within it. */
#define AOT_CONFIG_MAX_VARS 64
extern const struct aot_config_tool_var aot_config_tool_vars[];
extern const size_t aot_config_tool_nvars;

#endif /* AOT_CONFIG_H_INCLUDED */
