/*
 * stats.c: counters kept on every rank, reduced with PMPI calls at MPI_Finalize and printed
 * once from rank 0 (AUTOOPT_STATS=1) or written as JSON (AUTOOPT_STATS=path.json, schema in
 * docs/stats-format.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "aot_calib.h"
#include "aot_explore.h"
#include "aot_files.h"
#include "aot_functions.h"
#include "aot_hooks.h"
#include "aot_log.h"
#include "aot_state.h"
#include "aot_stats.h"
#include "aot_trace.h"

uint64_t aot_calls[AOT_FN_COUNT];
uint64_t aot_optimized[AOT_FN_COUNT];
uint64_t aot_passed[AOT_FN_COUNT][AOT_PASS_NREASONS];
static double aot_time[AOT_FN_COUNT];

static struct { const char *group, *name; } aot_named_keys[AOT_MAX_NAMED];
uint64_t aot_named[AOT_MAX_NAMED];
static int aot_nnamed;

static const char *const aot_reason_text[AOT_PASS_NREASONS] = {
#define AOT_X(name, text) text,
    AOT_PASS_REASONS(AOT_X)
#undef AOT_X
};
static const char *const aot_reason_key[AOT_PASS_NREASONS] = {
#define AOT_X(name, text) #name,
    AOT_PASS_REASONS(AOT_X)
#undef AOT_X
};

uint64_t aot_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

double aot_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

int aot_stats_register(const char *group, const char *name)
{
    if (aot_nnamed >= AOT_MAX_NAMED)
        return -1;
    aot_named_keys[aot_nnamed].group = group;
    aot_named_keys[aot_nnamed].name = name;
    return aot_nnamed++;
}

/* Both are called on the path of an MPI call, by the thread making it (never from a signal
 * handler), so aot_bump's plain increment below MPI_THREAD_MULTIPLE is exact: a locked
 * instruction cost about 10 ns a call here, a fifth of autoopt's cost on a routed collective. */
void aot_stats_add(int id, uint64_t n)
{
    if (id >= 0 && id < aot_nnamed)
        aot_bump(&aot_named[id], n);
}

const char *aot_stats_reason_text(enum aot_pass_reason reason)
{
    return (unsigned) reason < AOT_PASS_NREASONS ? aot_reason_text[reason] : "?";
}

void aot_stats_pass(int fn, enum aot_pass_reason reason)
{
    aot_bump(&aot_passed[fn][reason], 1);
    aot_trace(AOT_TR_PASS, fn, (uint64_t) reason, 0, aot_reason_text[reason]);
}

void aot_stats_start(void)
{
    if (aot_cfg.stats)
        __atomic_fetch_or(&aot_hooks_armed, AOT_ARM_TIMING, __ATOMIC_RELAXED);
}

void aot_stats_time_enter(void)
{
    aot_tls.t_enter = aot_now();
}

void aot_stats_time_leave(int fn)
{
    double dt = aot_now() - aot_tls.t_enter;
    /* Serialized by the thread level: timing is only armed below MPI_THREAD_MULTIPLE. */
    aot_time[fn] += dt;
}

static const char *aot_thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

struct aot_stats_sum {
    uint64_t calls[AOT_FN_COUNT], optimized[AOT_FN_COUNT];
    uint64_t passed[AOT_FN_COUNT][AOT_PASS_NREASONS];
    uint64_t named[AOT_MAX_NAMED];
    double time_sum[AOT_FN_COUNT], time_max[AOT_FN_COUNT];
    /* calibration (aot_calib.h): the ranks that have figures, the figures summed and their
     * maxima: guard, per page, copy per KiB, the measurement's cost */
    double calib_ranks, calib_sum[4], calib_max[4];
};

/* The calibration figures of the ranks that have them, reduced to rank 0. */
static void aot_stats_calib(struct aot_stats_sum *s)
{
    double mine[5] = {0}, sum[5], max[4];
    if (aot_calib.measured) {
        mine[0] = 1;
        mine[1] = aot_calib.guard_ns;
        mine[2] = aot_calib.guard_page_ns;
        mine[3] = aot_calib.copy_ns_per_kib;
        mine[4] = aot_calib.cost_ns;
    }
    PMPI_Reduce(mine, sum, 5, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(mine + 1, max, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    s->calib_ranks = sum[0];
    for (int i = 0; i < 4; i++) {
        s->calib_sum[i] = sum[i + 1];
        s->calib_max[i] = max[i];
    }
}

/* Sections other parts add to the report (aot_stats_section). */
#define AOT_MAX_SECTIONS 8
static struct {
    const char *key;
    void (*text)(FILE *f);
    void (*json)(FILE *f);
} aot_sections[AOT_MAX_SECTIONS];
static int aot_nsections;

void aot_stats_section(const char *key, void (*text)(FILE *f), void (*json)(FILE *f))
{
    if (aot_nsections < AOT_MAX_SECTIONS) {
        aot_sections[aot_nsections].key = key;
        aot_sections[aot_nsections].text = text;
        aot_sections[aot_nsections].json = json;
        aot_nsections++;
    }
}

static void aot_stats_print(const struct aot_stats_sum *s, FILE *f)
{
    fprintf(f, "autoopt statistics: %d ranks, %s, conversion %s, chains %s, collectives %s\n",
            aot_world_size, aot_thread_level_name(aot_thread_level),
            aot_cfg.convert ? "on" : "off", aot_cfg.chains ? "on" : "off",
            aot_cfg.collectives ? "on" : "off");
    fprintf(f, "  %-24s %12s %12s %12s %12s %12s\n", "function", "calls", "optimized",
            "passed", "time sum s", "time max s");
    for (int fn = 0; fn < AOT_FN_COUNT; fn++) {
        uint64_t passed = 0;
        if (!s->calls[fn])
            continue;
        for (int r = 0; r < AOT_PASS_NREASONS; r++)
            passed += s->passed[fn][r];
        fprintf(f, "  %-24s %12llu %12llu %12llu %12.6f %12.6f\n", aot_function_names[fn],
                (unsigned long long) s->calls[fn], (unsigned long long) s->optimized[fn],
                (unsigned long long) passed, s->time_sum[fn], s->time_max[fn]);
    }
    fprintf(f, "  pass-through reasons:\n");
    for (int fn = 0; fn < AOT_FN_COUNT; fn++)
        for (int r = 0; r < AOT_PASS_NREASONS; r++)
            if (s->passed[fn][r])
                fprintf(f, "    %-24s %-58s %12llu\n", aot_function_names[fn], aot_reason_text[r],
                        (unsigned long long) s->passed[fn][r]);
    if (aot_nnamed)
        fprintf(f, "  counters:\n");
    for (int i = 0; i < aot_nnamed; i++)
        if (s->named[i])
            fprintf(f, "    %-20s %-28s %12llu\n", aot_named_keys[i].group, aot_named_keys[i].name,
                    (unsigned long long) s->named[i]);
    if (s->calib_ranks > 0) {
        double n = s->calib_ranks;
        fprintf(f, "  calibration (%s on %.0f of %d ranks; mean, max over them):\n",
                aot_calib.measured == 2 ? "given by AUTOOPT_CALIB" : "measured", n,
                aot_world_size);
        fprintf(f, "    guard (protect, unprotect, touch) %10.1f us %10.1f us\n",
                s->calib_sum[0] / n * 1e-3, s->calib_max[0] * 1e-3);
        fprintf(f, "    guard, each further page          %10.2f us %10.2f us\n",
                s->calib_sum[1] / n * 1e-3, s->calib_max[1] * 1e-3);
        fprintf(f, "    copy per KiB                      %10.3f us %10.3f us\n",
                s->calib_sum[2] / n * 1e-3, s->calib_max[2] * 1e-3);
        fprintf(f, "    measuring took                    %10.0f us %10.0f us\n",
                s->calib_sum[3] / n * 1e-3, s->calib_max[3] * 1e-3);
    }
    for (int i = 0; i < aot_nsections; i++)
        aot_sections[i].text(f);
}

void aot_stats_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char) *s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void aot_stats_json(const struct aot_stats_sum *s, FILE *f)
{
    int first = 1;
    fprintf(f, "{\n  \"schema\": \"autoopt-stats\",\n  \"version\": 1,\n  \"ranks\": %d,\n",
            aot_world_size);
    fprintf(f, "  \"thread_level\": \"%s\",\n", aot_thread_level_name(aot_thread_level));
    fprintf(f, "  \"config\": {\"convert\": %d, \"convert_min\": %zu, \"chains\": %d, "
               "\"collectives\": %d, \"reproducible\": %d},\n",
            aot_cfg.convert, aot_cfg.convert_min, aot_cfg.chains, aot_cfg.collectives,
            aot_cfg.reproducible);
    fprintf(f, "  \"functions\": {");
    for (int fn = 0; fn < AOT_FN_COUNT; fn++) {
        int rfirst = 1;
        if (!s->calls[fn])
            continue;
        fprintf(f, "%s\n    \"%s\": {\"calls\": %llu, \"optimized\": %llu, \"time_sum_s\": %.9f, "
                   "\"time_max_s\": %.9f, \"passed\": {",
                first ? "" : ",", aot_function_names[fn], (unsigned long long) s->calls[fn],
                (unsigned long long) s->optimized[fn], s->time_sum[fn], s->time_max[fn]);
        first = 0;
        for (int r = 0; r < AOT_PASS_NREASONS; r++)
            if (s->passed[fn][r]) {
                fprintf(f, "%s\"%s\": %llu", rfirst ? "" : ", ", aot_reason_key[r],
                        (unsigned long long) s->passed[fn][r]);
                rfirst = 0;
            }
        fprintf(f, "}}");
    }
    fprintf(f, "\n  },\n  \"counters\": {");
    first = 1;
    for (int i = 0; i < aot_nnamed; i++) {
        char key[256];
        snprintf(key, sizeof(key), "%s.%s", aot_named_keys[i].group, aot_named_keys[i].name);
        fprintf(f, "%s\n    ", first ? "" : ",");
        aot_stats_json_string(f, key);
        fprintf(f, ": %llu", (unsigned long long) s->named[i]);
        first = 0;
    }
    fprintf(f, "\n  }");
    if (s->calib_ranks > 0) {
        double n = s->calib_ranks;
        fprintf(f, ",\n  \"calibration\": {\"source\": \"%s\", \"ranks\": %.0f, "
                   "\"guard_ns_mean\": %.1f, \"guard_ns_max\": %.1f, "
                   "\"guard_page_ns_mean\": %.1f, \"guard_page_ns_max\": %.1f, "
                   "\"copy_ns_per_kib_mean\": %.2f, \"copy_ns_per_kib_max\": %.2f, "
                   "\"cost_ns_mean\": %.0f, \"cost_ns_max\": %.0f}",
                aot_calib.measured == 2 ? "given" : "measured", n, s->calib_sum[0] / n,
                s->calib_max[0], s->calib_sum[1] / n, s->calib_max[1], s->calib_sum[2] / n,
                s->calib_max[2], s->calib_sum[3] / n, s->calib_max[3]);
    }
    for (int i = 0; i < aot_nsections; i++) {
        fprintf(f, ",\n  ");
        aot_stats_json_string(f, aot_sections[i].key);
        fprintf(f, ": ");
        aot_sections[i].json(f);
    }
    fprintf(f, "\n}\n");
}

static void aot_stats_json_emit(FILE *f, void *arg)
{
    aot_stats_json(arg, f);
}

/* Collective over MPI_COMM_WORLD; called from MPI_Finalize before PMPI_Finalize. */
void aot_stats_report(void)
{
    static struct aot_stats_sum sum;   /* large: keep it off the stack */
    int nnamed = aot_nnamed;

    if (!aot_cfg.stats)
        return;
    PMPI_Reduce(aot_calls, sum.calls, AOT_FN_COUNT, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(aot_optimized, sum.optimized, AOT_FN_COUNT, MPI_UINT64_T, MPI_SUM, 0,
                MPI_COMM_WORLD);
    PMPI_Reduce(aot_passed, sum.passed, AOT_FN_COUNT * AOT_PASS_NREASONS, MPI_UINT64_T, MPI_SUM,
                0, MPI_COMM_WORLD);
    PMPI_Reduce(aot_named, sum.named, AOT_MAX_NAMED, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(aot_time, sum.time_sum, AOT_FN_COUNT, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(aot_time, sum.time_max, AOT_FN_COUNT, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    aot_stats_calib(&sum);
    (void) nnamed;
    if (aot_world_rank != 0)
        return;
    if (aot_cfg.stats_path) {
        char err[4400];
        if (aot_file_replace(aot_cfg.stats_path, aot_stats_json_emit, &sum, err,
                             sizeof(err)) != 0)
            aot_log(0, "AUTOOPT_STATS=%s", err);
    } else {
        aot_stats_print(&sum, stderr);
    }
}
