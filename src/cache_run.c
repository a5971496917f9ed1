/*
 * cache_run.c: the cache of decisions in a run: the directory and its file, read by rank 0 at
 * MPI_Init and broadcast, written by rank 0 at MPI_Finalize under a lock; the fingerprint; the
 * get/put API and its statistics (aot_cache.h, docs/cache.md).  The table itself: cache.c.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Every problem with the cache is one line on stderr from rank 0 and the run goes on: a file
 * that cannot be read or is damaged is ignored (and rewritten at MPI_Finalize), a directory
 * that cannot be written keeps nothing.  AUTOOPT_CACHE=off reads and writes nothing.
 *
 * Writing: the directory is created (0700, aot_dir_open), DIR/decisions-v1.lock is opened and
 * locked with flock(LOCK_EX) (many jobs end at once on a shared home: each waits for the one
 * before, at most AOT_CACHE_LOCK_WAIT_MS), the file is read again, this run's entries are merged
 * into what is there now (an entry another job wrote meanwhile is kept, the newer wins per
 * key), and the result replaces the file atomically (aot_file_replace_text: a temporary file
 * renamed over it, so a reader never sees half a file, even without the lock).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "aot_cache.h"
#include "aot_files.h"
#include "aot_govern.h"
#include "aot_log.h"
#include "aot_state.h"
#include "aot_stats.h"

#define AOT_CACHE_MAX_BYTES ((size_t) 4 << 20)   /* a larger file is not read */
#define AOT_CACHE_LOCK_WAIT_MS 10000
#define AOT_CACHE_SHOWN_HITS 16                   /* hits the statistics name */

static struct {
    int on;                          /* a directory is set (not off) */
    int broken;                      /* the directory is refused: nothing is written */
    int damaged;                     /* the file was ignored in part or whole: rewrite it */
    int said_damage;                 /* its one line was printed */
    char dir[2048], path[2200];
    char fp[96];                     /* aot_cache_fingerprint */
    char program[96];                /* aot_cache_program_id, on first use */
    struct aot_cache_table read;     /* what the file held at MPI_Init (rank 0's, broadcast) */
    struct aot_cache_table puts;     /* this run's entries (aot_cache_put) */
    struct aot_cache_table local;    /* this rank's own (aot_cache_put_local) */
    uint64_t hits;
    const char *hit_keys[AOT_CACHE_SHOWN_HITS];
    int nhit_keys;
    int ctr_hits;                    /* the statistics counter "cache.hits" (all ranks) */
    const char *state;               /* for the statistics: what happened to the file */
} aot_cache;

/* ---------------------------------------------------------------- the API */

const char *aot_cache_fingerprint(void)
{
    return aot_cache.fp;
}

uint64_t aot_cache_hits(void)
{
    return aot_cache.hits;
}

const char *aot_cache_get(const char *key)
{
    const struct aot_cache_entry *e;

    if (!aot_cache.on || !key)
        return NULL;
    e = aot_cache_table_find(&aot_cache.read, key);
    if (!e)
        return NULL;
    aot_cache.hits++;
    aot_stats_add(aot_cache.ctr_hits, 1);
    if (aot_cache.nhit_keys < AOT_CACHE_SHOWN_HITS)
        aot_cache.hit_keys[aot_cache.nhit_keys++] = e->key;
    AOT_LOG(1, "cache: %s = %s (from %s)", e->key, e->value, aot_cache.path);
    return e->value;
}

static void aot_cache_record(struct aot_cache_table *t, const char *key, const char *value)
{
    if (!aot_cache.on || !key || !value)
        return;
    if (aot_cache_table_set(t, key, value, (int64_t) time(NULL)) != 0)
        AOT_LOG(1, "cache: entry dropped (not printable text without tabs, or too long): "
                   "%.200s", key);
}

void aot_cache_put(const char *key, const char *value)
{
    aot_cache_record(&aot_cache.puts, key, value);
}

void aot_cache_put_local(const char *key, const char *value)
{
    aot_cache_record(&aot_cache.local, key, value);
}


/* The executable's GNU build id, from its PT_NOTE segments. */
struct aot_cache_buildid {
    char hex[80];
};

static int aot_cache_phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct aot_cache_buildid *b = arg;
    (void) size;

    /* the first object is the executable */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const char *p, *end;
        if (ph->p_type != PT_NOTE)
            continue;
        p = (const char *) (info->dlpi_addr + ph->p_vaddr);
        end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *) (const void *) p;
            const char *name = p + sizeof(*nh);
            const unsigned char *desc = (const unsigned char *) name + ((nh->n_namesz + 3) & ~3u);
            if ((const char *) desc + nh->n_descsz > end)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0
                && nh->n_descsz > 0 && nh->n_descsz <= 32) {
                int n = snprintf(b->hex, sizeof(b->hex), "b");
                for (unsigned k = 0; k < nh->n_descsz; k++)
                    n += snprintf(b->hex + n, sizeof(b->hex) - (size_t) n, "%02x", desc[k]);
                return 1;
            }
            p = (const char *) desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return 1;    /* only the executable */
}

/* 64-bit FNV-1a of n bytes, continuing from h. */
uint64_t aot_cache_hash_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

const char *aot_cache_program_id(void)
{
    struct aot_cache_buildid b = {""};
    char exe[4096];
    struct stat st;
    ssize_t n;

    if (aot_cache.program[0])
        return aot_cache.program;
    dl_iterate_phdr(aot_cache_phdr_cb, &b);
    if (b.hex[0]) {
        snprintf(aot_cache.program, sizeof(aot_cache.program), "%s", b.hex);
        return aot_cache.program;
    }
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = '\0';
    if (n <= 0 || stat(exe, &st) != 0)
        st.st_size = 0;
    snprintf(aot_cache.program, sizeof(aot_cache.program), "p%016llx.%lld",
             (unsigned long long) aot_cache_hash_bytes(AOT_CACHE_FNV_BASIS, exe, strlen(exe)),
             (long long) st.st_size);
    return aot_cache.program;
}

/* ---------------------------------------------------------------- point-to-point */

uint64_t aot_cache_hash_code(uint64_t h, const void *addr)
{
    Dl_info di;
    uintptr_t off = (uintptr_t) addr;

    if (addr && dladdr(addr, &di) && di.dli_fname) {
        const char *base = strrchr(di.dli_fname, '/');
        base = base ? base + 1 : di.dli_fname;
        h = aot_cache_hash_bytes(h, base, strlen(base) + 1);
        off -= (uintptr_t) di.dli_fbase;
    }
    return aot_cache_hash_bytes(h, &off, sizeof(off));
}

void aot_cache_p2p_key(char *buf, size_t len, int comm_size, uint64_t signature)
{
    if (!aot_cache.on || !aot_cache.fp[0]) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, len, "p2p %s %s %d s%016llx", aot_cache.fp, aot_cache_program_id(), comm_size,
             (unsigned long long) signature);
}

int aot_cache_p2p_seed(struct aot_gov *g, const char *key, const char *const *names)
{
    const char *v = key && key[0] ? aot_cache_get(key) : NULL;

    if (!v)
        return 0;
    for (int k = 0; k < g->p.nmodes; k++)
        if (strcmp(v, names[k]) == 0)
            return aot_gov_seed(g, k);
    return 0;
}

void aot_cache_p2p_keep(const struct aot_gov *g, const char *key, const char *const *names)
{
    int v = aot_gov_verdict(g);

    if (key && key[0] && v >= 0)
        aot_cache_put_local(key, names[v]);
}

/* ---------------------------------------------------------------- the fingerprint */

static int aot_cache_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

static int aot_cache_cmp_str(const void *a, const void *b)
{
    return strcmp((const char *) a, (const char *) b);
}

/* Reads a short sysfs attribute into buf ("" when it cannot be read). */
static void aot_cache_sysfs(const char *ifname, const char *attr, char *buf, size_t len)
{
    char path[512];
    ssize_t n = -1;
    int fd;

    snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        n = read(fd, buf, len - 1);
        close(fd);
    }
    buf[n > 0 ? n : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

/*
 * The network as rank 0's host sees it: the set of kinds of its network interfaces that are
 * not down, each "type:speed" (the ARPHRD type, Ethernet 1, InfiniBand 32; the speed in Mbit/s
 * when the driver says it), loopback left out, plus the variables that choose MPICH's network
 * module and libfabric's or UCX's transport.  Interface names are not in it (they change with
 * containers and udev), nor addresses.  About 40 small reads of sysfs.
 */
static uint64_t aot_cache_network(void)
{
    static const char *const vars[] = {"MPIR_CVAR_CH4_NETMOD", "MPIR_CVAR_OFI_USE_PROVIDER",
                                       "FI_PROVIDER", "UCX_TLS", "UCX_NET_DEVICES"};
    char kinds[32][48];
    int nk = 0;
    uint64_t h = AOT_CACHE_FNV_BASIS;
    DIR *d = opendir("/sys/class/net");
    struct dirent *de;

    while (d && (de = readdir(d)) != NULL && nk < 32) {
        char type[16], speed[24], state[24];
        if (de->d_name[0] == '.' || strcmp(de->d_name, "lo") == 0)
            continue;
        aot_cache_sysfs(de->d_name, "operstate", state, sizeof(state));
        if (strcmp(state, "down") == 0)
            continue;
        aot_cache_sysfs(de->d_name, "type", type, sizeof(type));
        aot_cache_sysfs(de->d_name, "speed", speed, sizeof(speed));
        snprintf(kinds[nk], sizeof(kinds[nk]), "%s:%s", type, speed);
        nk++;
    }
    if (d)
        closedir(d);
    qsort(kinds, (size_t) nk, sizeof(kinds[0]), aot_cache_cmp_str);
    for (int i = 0; i < nk; i++)
        if (i == 0 || strcmp(kinds[i], kinds[i - 1]) != 0)
            h = aot_cache_hash_bytes(h, kinds[i], strlen(kinds[i]) + 1);
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            h = aot_cache_hash_bytes(h, vars[i], strlen(vars[i]) + 1);
            h = aot_cache_hash_bytes(h, v, strlen(v) + 1);
        }
    }
    return h;
}

/* Collective: the host shape from the ranks' processor names (hashed, gathered to rank 0),
 * and on rank 0 the whole fingerprint. */
static void aot_cache_make_fingerprint(void)
{
    char name[MPI_MAX_PROCESSOR_NAME + 1] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    uint64_t mine, *all = NULL;
    int len = 0, nhosts = 0, ppn = 0, uneven = 0;

    PMPI_Get_processor_name(name, &len);
    mine = aot_cache_hash_bytes(AOT_CACHE_FNV_BASIS, name, strlen(name));
    if (aot_world_rank == 0)
        all = malloc((size_t) aot_world_size * sizeof(*all));
    PMPI_Gather(&mine, 1, MPI_UINT64_T, all, all ? 1 : 0, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (aot_world_rank != 0)
        return;
    if (!all) {
        aot_cache.fp[0] = '\0';
        return;
    }
    qsort(all, (size_t) aot_world_size, sizeof(*all), aot_cache_cmp_u64);
    for (int i = 0, run = 0; i < aot_world_size; i++) {
        run = i > 0 && all[i] == all[i - 1] ? run + 1 : 1;
        if (run == 1)
            nhosts++;
        if (run > ppn)
            ppn = run;
    }
    uneven = nhosts * ppn != aot_world_size;
    free(all);
    PMPI_Get_library_version(lib, &len);
    mine = aot_cache_hash_bytes(AOT_CACHE_FNV_BASIS, lib, strlen(lib));
    snprintf(aot_cache.fp, sizeof(aot_cache.fp), "m%08x-h%dx%d%s-n%08x",
             (unsigned) (mine & 0xffffffffu), nhosts, ppn, uneven ? "u" : "",
             (unsigned) (aot_cache_network() & 0xffffffffu));
}

/* ---------------------------------------------------------------- the file */

/* The directory from AUTOOPT_CACHE or its default; 0 when the cache is off. */
static int aot_cache_pick_dir(void)
{
    const char *set = aot_cfg.cache_dir, *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");

    if (set && (strcmp(set, "off") == 0 || strcmp(set, "0") == 0))
        return 0;
    if (set && *set)
        snprintf(aot_cache.dir, sizeof(aot_cache.dir), "%s", set);
    else if (xdg && xdg[0] == '/')     /* the XDG rule: a relative path is ignored */
        snprintf(aot_cache.dir, sizeof(aot_cache.dir), "%s/autoopt", xdg);
    else if (home && home[0] == '/')
        snprintf(aot_cache.dir, sizeof(aot_cache.dir), "%s/.cache/autoopt", home);
    else {
        AOT_LOG(1, "cache: off (AUTOOPT_CACHE unset and neither XDG_CACHE_HOME nor HOME set)");
        return 0;
    }
    snprintf(aot_cache.path, sizeof(aot_cache.path), "%s/%s", aot_cache.dir, AOT_CACHE_FILE);
    return 1;
}

/* Reads the file into t (rank 0); a damaged file is said once. */
static void aot_cache_read_file(struct aot_cache_table *t)
{
    struct aot_cache_damage d;
    char err[3000], *text = NULL;
    size_t len = 0;
    struct stat st;

    if (stat(aot_cache.path, &st) != 0 && errno == ENOENT) {
        aot_cache.state = "absent";
        return;
    }
    if (aot_file_slurp(aot_cache.path, "cache file", AOT_CACHE_MAX_BYTES, &text, &len, err,
                       sizeof(err)) != 0) {
        if (!aot_cache.said_damage)
            aot_log(0, "AUTOOPT_CACHE: %s; ignored, and replaced at MPI_Finalize", err);
        aot_cache.said_damage = 1;
        aot_cache.damaged = 1;
        aot_cache.state = "unreadable";
        return;
    }
    if (aot_cache_parse(text, len, t, &d) != 0) {
        aot_cache.damaged = 1;
        aot_cache.state = "damaged";
        if (!aot_cache.said_damage && d.whole)
            aot_log(0, "AUTOOPT_CACHE: %s: %s; the file is ignored and rewritten at "
                       "MPI_Finalize", aot_cache.path, d.why ? d.why : "out of memory");
        else if (!aot_cache.said_damage)
            aot_log(0, "AUTOOPT_CACHE: %s: line %u: %s (%u bad line%s ignored); rewritten at "
                       "MPI_Finalize", aot_cache.path, d.first_bad, d.why ? d.why : "?", d.bad,
                    d.bad == 1 ? "" : "s");
        aot_cache.said_damage = 1;
    } else {
        aot_cache.state = "read";
    }
    free(text);
}

/* ---------------------------------------------------------------- statistics */

static void aot_cache_stats_text(FILE *f)
{
    if (!aot_cache.on) {
        fprintf(f, "  cache of decisions: off\n");
        return;
    }
    fprintf(f, "  cache of decisions: %s (%s, %zu entries), fingerprint %s: %llu decision%s "
               "from the cache on rank 0, %zu put by rank 0\n", aot_cache.path, aot_cache.state,
            aot_cache.read.n, aot_cache.fp, (unsigned long long) aot_cache.hits,
            aot_cache.hits == 1 ? "" : "s", aot_cache.puts.n + aot_cache.local.n);
    for (int i = 0; i < aot_cache.nhit_keys; i++)
        fprintf(f, "    from the cache: %s\n", aot_cache.hit_keys[i]);
}

static void aot_cache_stats_json(FILE *f)
{
    fprintf(f, "{\"file\": ");
    aot_stats_json_string(f, aot_cache.path);
    fprintf(f, ", \"state\": \"%s\", \"entries\": %zu, \"fingerprint\": \"%s\", "
               "\"hits\": %llu, \"puts\": %zu, \"hit_keys\": [", aot_cache.state,
            aot_cache.read.n, aot_cache.fp, (unsigned long long) aot_cache.hits,
            aot_cache.puts.n + aot_cache.local.n);
    for (int i = 0; i < aot_cache.nhit_keys; i++) {
        fprintf(f, "%s", i ? ", " : "");
        aot_stats_json_string(f, aot_cache.hit_keys[i]);
    }
    fprintf(f, "]}");
}

void aot_cache_start(void)
{
    struct { int on; int len; char fp[96]; } head = {0, 0, ""};
    char *text = NULL;
    size_t len = 0;

    aot_cache.ctr_hits = aot_stats_register("cache", "hits");
    aot_stats_section("cache", aot_cache_stats_text, aot_cache_stats_json);
    aot_cache.state = "off";
    if (aot_world_rank == 0) {
        head.on = aot_cache_pick_dir();
        if (head.on) {
            char err[2300];
            struct stat st;
            int fd = -1;
            if (stat(aot_cache.dir, &st) != 0 && errno == ENOENT)
                aot_cache.state = "absent";      /* created when written */
            else if ((fd = aot_dir_open(aot_cache.dir, 0, err, sizeof(err))) >= 0) {
                close(fd);
                aot_cache_read_file(&aot_cache.read);
            } else {
                aot_log(0, "AUTOOPT_CACHE=%s; decisions are not read nor kept", err);
                aot_cache.broken = 1;
                aot_cache.state = "refused";
            }
        }
    }
    PMPI_Bcast(&head.on, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!head.on)
        return;
    aot_cache_make_fingerprint();
    if (aot_world_rank == 0) {
        text = aot_cache_serialise(&aot_cache.read, &len);
        head.len = text && len < (size_t) INT32_MAX ? (int) len : 0;
        snprintf(head.fp, sizeof(head.fp), "%s", aot_cache.fp);
    }
    PMPI_Bcast(&head, (int) sizeof(head), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (aot_world_rank != 0 && head.len > 0)
        text = malloc((size_t) head.len);
    if (head.len > 0) {
        int ok = text != NULL, all = 0;
        /* a rank without memory for the text reads nothing: all ranks then skip the table */
        PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all)
            PMPI_Bcast(text, head.len, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (all && aot_world_rank != 0) {
            struct aot_cache_damage d;
            aot_cache_parse(text, (size_t) head.len, &aot_cache.read, &d);
        }
        if (!all)
            aot_cache_table_free(&aot_cache.read);
    }
    free(text);
    memcpy(aot_cache.fp, head.fp, sizeof(aot_cache.fp));
    aot_cache.fp[sizeof(aot_cache.fp) - 1] = '\0';
    aot_cache.on = 1;
}

/* Whether this run put anything the file did not hold (at MPI_Init) with the same value. */
static int aot_cache_news(void)
{
    for (size_t i = 0; i < aot_cache.puts.n; i++) {
        const struct aot_cache_entry *e = aot_cache_table_find(&aot_cache.read,
                                                               aot_cache.puts.e[i].key);
        if (!e || strcmp(e->value, aot_cache.puts.e[i].value) != 0)
            return 1;
    }
    return 0;
}

/* Takes the lock (flock on DIR/decisions-v1.lock), waiting at most AOT_CACHE_LOCK_WAIT_MS;
 * its descriptor, or -1 with the reason in err. */
static int aot_cache_lock(int dirfd, char *err, size_t errlen)
{
    int fd = openat(dirfd, AOT_CACHE_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

    if (fd < 0) {
        snprintf(err, errlen, "%s/%s: %s", aot_cache.dir, AOT_CACHE_LOCK, strerror(errno));
        return -1;
    }
    for (int waited = 0;; waited += 5) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return fd;
        if ((errno != EWOULDBLOCK && errno != EINTR) || waited >= AOT_CACHE_LOCK_WAIT_MS) {
            snprintf(err, errlen, "%s/%s: %s", aot_cache.dir, AOT_CACHE_LOCK,
                     errno == EWOULDBLOCK ? "still locked by another job after 10 s"
                                          : strerror(errno));
            close(fd);
            return -1;
        }
        usleep(5000);
    }
}

/* Collective: every rank's local entries into rank 0's puts, where rank 0 put no such key. */
static void aot_cache_gather(void)
{
    struct aot_cache_damage d;
    struct aot_cache_table got = {NULL, 0, 0};
    char *mine = NULL, *all = NULL;
    size_t len = 0;
    int n, *counts = NULL, *displs = NULL, total = 0;

    if (aot_cache.local.n)
        mine = aot_cache_serialise(&aot_cache.local, &len);
    n = mine && len < (size_t) INT32_MAX / 2 ? (int) len : 0;
    if (aot_world_rank == 0) {
        counts = calloc((size_t) aot_world_size, sizeof(*counts));
        displs = calloc((size_t) aot_world_size, sizeof(*displs));
    }
    PMPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (aot_world_rank == 0 && counts && displs) {
        for (int r = 0; r < aot_world_size && total < INT32_MAX / 2; r++) {
            displs[r] = total;
            total += counts[r];
        }
        all = total < INT32_MAX / 2 ? malloc((size_t) total + 1) : NULL;
    }
    /* a root without memory receives nothing: every count it asks for is 0 */
    if (aot_world_rank == 0 && !all && counts)
        memset(counts, 0, (size_t) aot_world_size * sizeof(*counts));
    PMPI_Gatherv(mine, n, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (aot_world_rank == 0 && all) {
        for (int r = 0; r < aot_world_size; r++)
            if (counts[r] > 0)
                aot_cache_parse(all + displs[r], (size_t) counts[r], &got, &d);
        for (size_t i = 0; i < got.n; i++)
            if (!aot_cache_table_find(&aot_cache.puts, got.e[i].key))
                aot_cache_table_set(&aot_cache.puts, got.e[i].key, got.e[i].value,
                                    got.e[i].stamp);
        aot_cache_table_free(&got);
    }
    free(all);
    free(counts);
    free(displs);
    free(mine);
}

void aot_cache_finish(void)
{
    struct aot_cache_table now = {NULL, 0, 0};
    char err[4400], *text;
    size_t len;
    int dirfd, lockfd;

    if (!aot_cache.on)
        return;
    aot_cache_gather();
    if (aot_world_rank != 0 || aot_cache.broken)
        return;
    if (!aot_cache.damaged && !aot_cache_news())
        return;                          /* nothing new: the file stays as it is */
    dirfd = aot_dir_open(aot_cache.dir, 1, err, sizeof(err));
    if (dirfd < 0) {
        aot_log(0, "AUTOOPT_CACHE=%s; this run's decisions are not kept", err);
        return;
    }
    lockfd = aot_cache_lock(dirfd, err, sizeof(err));
    close(dirfd);
    if (lockfd < 0) {
        aot_log(0, "AUTOOPT_CACHE: %s; this run's decisions are not kept", err);
        return;
    }
    aot_cache_read_file(&now);           /* what the other jobs wrote meanwhile */
    if (aot_cache_merge(&now, &aot_cache.puts) != 0 ||
        !(text = aot_cache_serialise(&now, &len))) {
        aot_log(0, "AUTOOPT_CACHE: %s: out of memory; this run's decisions are not kept",
                aot_cache.path);
    } else {
        if (aot_file_replace_text(aot_cache.path, text, len, err, sizeof(err)) != 0)
            aot_log(0, "AUTOOPT_CACHE=%s; this run's decisions are not kept", err);
        else
            AOT_LOG(1, "cache: %zu entries written to %s", now.n, aot_cache.path);
        free(text);
    }
    flock(lockfd, LOCK_UN);
    close(lockfd);
    aot_cache_table_free(&now);
}
