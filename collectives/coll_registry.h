/*
 * coll_registry.h: the registry of algorithms (coll_registry.c, from coll_algorithms.def):
 * for each its collective, name, function, restrictions, properties and parameter.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_COLL_REGISTRY_H_INCLUDED
#define AOT_COLL_REGISTRY_H_INCLUDED

#include <stddef.h>

#include "aot_config.h"   /* enum aot_coll_kind */
#include "coll_algorithms.h"

enum { AOT_R_NONE = 0, AOT_R_COMMUTATIVE = 1u << 0, AOT_R_POF2 = 1u << 1 };
enum { AOT_P_NONE = 0, AOT_P_ORDERED = 1u << 0 };

#define AOT_COLL_MAXTUNE 4
struct aot_coll_param {
    const char *name;           /* NULL: the algorithm has no parameter */
    long dflt, min, max;
    long tune[AOT_COLL_MAXTUNE]; /* the values a tuner tries (and the tests run) */
    int ntune;
};

struct aot_coll_alg {
    enum aot_coll_kind kind;
    const char *name;
    union aot_coll_fn fn;
    unsigned restrictions;      /* AOT_R_* */
    unsigned properties;        /* AOT_P_* */
    const char *summary;
    struct aot_coll_param param;
};

/* The table, natives first: aot_coll_algs[kind] is the native algorithm of that kind. */
extern const struct aot_coll_alg aot_coll_algs[];
extern const int aot_coll_nalgs;
/* "allreduce", "bcast", ... indexed by enum aot_coll_kind. */
extern const char *const aot_coll_kind_names[AOT_COLL_NKINDS];
/* "AUTOOPT_ALLREDUCE", ... */
extern const char *const aot_coll_env_names[AOT_COLL_NKINDS];

/* Index of algorithm `name` (len bytes) of kind, or -1. */
int aot_coll_find(enum aot_coll_kind kind, const char *name, size_t len);
/* Kind named `name` (len bytes), or -1. */
int aot_coll_find_kind(const char *name, size_t len);

#endif /* AOT_COLL_REGISTRY_H_INCLUDED */
