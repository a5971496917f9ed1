/*
 * coll_registry.c: the one table of algorithms, expanded from coll_algorithms.def.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The table is data: a name, the function (aot_<coll>_<name>, so a name cannot point at the
 * wrong function), the restrictions the selector checks, and the parameter with its range and
 * the values a tuner tries.  Nothing else in autoopt lists algorithms: the selector, the
 * tuning-file reader, the statistics and the test generator all read this table (the tests
 * through the .def file itself).
 */
#include <string.h>

#include "aot_config.h"
#include "coll_registry.h"

enum {
#define AOT_X(upper, lower) AOT_KIND_##lower = AOT_COLL_##upper,
    AOT_COLLECTIVES(AOT_X)
#undef AOT_X
};

#define AOT_TUNE(...) {__VA_ARGS__}, (int) (sizeof((long[]) {__VA_ARGS__}) / sizeof(long))
#define AOT_ALG(coll, name, restr, props, summary) \
    {(enum aot_coll_kind) AOT_KIND_##coll, #name, {.coll = aot_##coll##_##name}, restr, props, \
     summary, {NULL, 0, 0, 0, {0}, 0}},
#define AOT_ALG_P(coll, name, restr, props, summary, pname, dflt, lo, hi, tune) \
    {(enum aot_coll_kind) AOT_KIND_##coll, #name, {.coll = aot_##coll##_##name}, restr, props, \
     summary, {#pname, dflt, lo, hi, AOT_TUNE tune}},

const struct aot_coll_alg aot_coll_algs[] = {
#include "coll_algorithms.def"
};
#undef AOT_ALG
#undef AOT_ALG_P

const int aot_coll_nalgs = (int) (sizeof(aot_coll_algs) / sizeof(aot_coll_algs[0]));

const char *const aot_coll_kind_names[AOT_COLL_NKINDS] = {
#define AOT_X(upper, lower) #lower,
    AOT_COLLECTIVES(AOT_X)
#undef AOT_X
};

const char *const aot_coll_env_names[AOT_COLL_NKINDS] = {
#define AOT_X(upper, lower) "AUTOOPT_" #upper,
    AOT_COLLECTIVES(AOT_X)
#undef AOT_X
};

int aot_coll_find(enum aot_coll_kind kind, const char *name, size_t len)
{
    for (int i = 0; i < aot_coll_nalgs; i++)
        if (aot_coll_algs[i].kind == kind && strlen(aot_coll_algs[i].name) == len
            && memcmp(aot_coll_algs[i].name, name, len) == 0)
            return i;
    return -1;
}

int aot_coll_find_kind(const char *name, size_t len)
{
    for (int k = 0; k < AOT_COLL_NKINDS; k++)
        if (strlen(aot_coll_kind_names[k]) == len && memcmp(aot_coll_kind_names[k], name, len) == 0)
            return k;
    return -1;
}
