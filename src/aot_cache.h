/*
 * aot_cache.h: the per-user cache of decisions across runs (src/cache.c; docs/cache.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * What the benefit governor and online tuning decided in one run is a starting point for the
 * next: rank 0 of MPI_COMM_WORLD reads the cache file at MPI_Init and broadcasts it, so every
 * rank holds the same table; at MPI_Finalize rank 0 alone locks the directory (flock), re-reads
 * the file, merges this run's entries into it (newer wins per key) and replaces it atomically.
 * AUTOOPT_CACHE=DIR|off; default $XDG_CACHE_HOME/autoopt, else $HOME/.cache/autoopt.
 *
 * An entry is a key, a value and the time it was written (seconds since the epoch).  Keys are
 * words separated by single spaces; the first word says who owns the entry ("p2p", "coll"), the
 * second is the fingerprint of what the decision depends on (aot_cache_fingerprint), so an
 * entry of another MPI library, host shape or network is never looked up, yet it stays in the
 * file for the runs where it applies.  Keys and values are printable ASCII without tabs
 * (aot_cache_text_ok); a value is one word or a few.
 *
 * A cached decision is never a promise: callers start from it and re-check it as they would
 * any decision of their own.
 */
#ifndef AOT_CACHE_H_INCLUDED
#define AOT_CACHE_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- the API of the run */

/* The fingerprint of this job (the same on every rank once MPI_Init has run; "" when the
 * cache is off): "m<hash of MPI_Get_library_version>-h<hosts>x<ranks on the fullest host>
 * -n<hash of the network>", with no space in it. */
const char *aot_cache_fingerprint(void);
/* The cached value of key (NULL: absent, or the cache is off).  A value found counts as a hit
 * for the statistics (every rank counts its own; rank 0's hits are listed).  The returned text
 * stays valid until MPI_Finalize.  Callable on every rank, from the thread that calls MPI. */
const char *aot_cache_get(const char *key);
/* Records key = value for writing at MPI_Finalize (rank 0's puts are written: decisions are
 * agreed, so every rank may put the same).  A later put of the same key replaces the earlier.
 * A key or value that aot_cache_text_ok refuses is dropped (logged at AUTOOPT_VERBOSE=1). */
void aot_cache_put(const char *key, const char *value);
/* The same for a decision of this rank's own, whose key may differ between ranks (a chain's
 * signature on a rank with fewer neighbours): every rank's are gathered to rank 0 at
 * MPI_Finalize and written, except keys rank 0 put itself (aot_cache_put), whose value wins. */
void aot_cache_put_local(const char *key, const char *value);
/* The program's identity for point-to-point keys: "b<build id in hex>" from the executable's
 * ELF note, else "p<hash of its path>.<size in bytes>". */
const char *aot_cache_program_id(void);
/* Point-to-point verdicts (docs/govern.md, "The cache of decisions"): a governor of a chain or
 * converting call site gets the key "p2p <fingerprint> <program id> <comm size> s<signature>",
 * where the signature hashes what identifies the chain or site across runs and ranks (its call
 * sites as module + offset, functions, tags, bytes: never addresses of data or peers).
 * aot_cache_hash_bytes and aot_cache_hash_code (a code or read-only data address: the basename
 * of its object and the offset in it, so that it is the same under address-space layout
 * randomization) build the signature; aot_cache_p2p_key writes the key ("" when the cache is
 * off); aot_cache_p2p_seed seeds g with the cached verdict (aot_gov_seed: its mode name among
 * names), aot_cache_p2p_keep puts g's verdict (aot_gov_verdict) with aot_cache_put_local. */
struct aot_gov;
#define AOT_CACHE_FNV_BASIS 1469598103934665603ull
#define AOT_CACHE_P2P_KEY_LEN 200
uint64_t aot_cache_hash_bytes(uint64_t h, const void *data, size_t n);
uint64_t aot_cache_hash_code(uint64_t h, const void *addr);
void aot_cache_p2p_key(char *buf, size_t len, int comm_size, uint64_t signature);
int aot_cache_p2p_seed(struct aot_gov *g, const char *key, const char *const *names);
void aot_cache_p2p_keep(const struct aot_gov *g, const char *key, const char *const *names);
/* Hits so far on this rank. */
uint64_t aot_cache_hits(void);

/* MPI_Init (collective over MPI_COMM_WORLD: a gather of host names' hashes and broadcasts; after
 * the settings are parsed and before the subsystems start) and MPI_Finalize (collective: the
 * ranks' local entries are gathered to rank 0, which writes; before PMPI_Finalize, after the
 * subsystems put their decisions). */
void aot_cache_start(void);
void aot_cache_finish(void);

/* ---------------------------------------------------------------- the pure core (no MPI) */

#define AOT_CACHE_HEADER "autoopt-cache 1"   /* the file's first line */
#define AOT_CACHE_FILE "decisions-v1.txt"
#define AOT_CACHE_LOCK "decisions-v1.lock"
#define AOT_CACHE_MAX_KEY 512                /* bytes of a key, at most */
#define AOT_CACHE_MAX_VALUE 256              /* bytes of a value, at most */
#define AOT_CACHE_MAX_ENTRIES 4096           /* a table keeps the newest this many */

/* One line of the file: "<stamp>\t<key>\t<value>\n". */
struct aot_cache_entry {
    char *key, *value;     /* one allocation of len bytes: key, NUL, value, NUL */
    size_t len;
    int64_t stamp;         /* seconds since the epoch when it was put */
};

/* Entries sorted by key, each key once.  Its memory comes from autoopt's arena (aot_mem.h). */
struct aot_cache_table {
    struct aot_cache_entry *e;
    size_t n, cap;
};

/* What aot_cache_parse found wrong: bad is the number of lines ignored, first_bad the number
 * of the first one (1: the header line; a file whose header is wrong is ignored whole, and a
 * last line without its newline is a truncated line), why its reason (static text). */
struct aot_cache_damage {
    unsigned bad, first_bad;
    int whole;             /* the header was missing or wrong: nothing was read */
    const char *why;
};

void aot_cache_table_free(struct aot_cache_table *t);
/* Whether s is a valid key (what = 1) or value (what = 0): 1..max bytes, printable ASCII with
 * no tab, for a key no leading, trailing or double space. */
int aot_cache_text_ok(const char *s, int is_key);
/* key = value at stamp into t: replaces an entry of the same key whose stamp is not newer.
 * 0, or -1 (invalid text, no memory). */
int aot_cache_table_set(struct aot_cache_table *t, const char *key, const char *value,
                        int64_t stamp);
const struct aot_cache_entry *aot_cache_table_find(const struct aot_cache_table *t,
                                                   const char *key);
/* Reads text (len bytes, a file's contents) into t, adding to what it holds (the newer entry
 * wins).  0 when every line was good, 1 when something was ignored (*d says what), -1 when out
 * of memory. */
int aot_cache_parse(const char *text, size_t len, struct aot_cache_table *t,
                    struct aot_cache_damage *d);
/* Every entry of from into into, the newer winning per key (from wins a tie); then, beyond
 * AOT_CACHE_MAX_ENTRIES, the oldest are dropped.  0, or -1 when out of memory. */
int aot_cache_merge(struct aot_cache_table *into, const struct aot_cache_table *from);
/* The file's text for t (header, then one line per entry in key order), allocated with
 * malloc; NULL when out of memory. */
char *aot_cache_serialise(const struct aot_cache_table *t, size_t *len);

#endif /* AOT_CACHE_H_INCLUDED */
