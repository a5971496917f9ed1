/*
 * registry.c: the collectives and the repository's algorithms by index and name, for the
 * offline tools (aot_tools.h): the registry of collectives/ seen through the tools' header.
 * No MPI calls.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "aot_tools.h"
#include "coll_registry.h"
#include "coll_select.h"

const char *aot_tools_kind_name(int kind)
{
    return aot_coll_kind_names[kind];
}

int aot_tools_find_kind(const char *name, size_t len)
{
    return aot_coll_find_kind(name, len);
}

int aot_tools_nalgs(void)
{
    return aot_coll_nalgs;
}

int aot_tools_alg_kind(int alg)
{
    return (int) aot_coll_algs[alg].kind;
}

const char *aot_tools_alg_name(int alg)
{
    return aot_coll_algs[alg].name;
}

int aot_tools_find_alg(int kind, const char *name, size_t len)
{
    return aot_coll_find((enum aot_coll_kind) kind, name, len);
}

int aot_tools_alg_applies(int alg, int comm_size, int commutative)
{
    return aot_coll_check(alg, comm_size, commutative) == 0;
}

int aot_tools_alg_param(int alg, struct aot_tools_param *p)
{
    const struct aot_coll_param *pa = &aot_coll_algs[alg].param;

    if (p)
        *p = (struct aot_tools_param){pa->name, pa->dflt, pa->min, pa->max, pa->tune,
                                      pa->ntune};
    return pa->name != NULL;
}

int aot_tools_format_choice(int alg, long param, char *buf, size_t len)
{
    const struct aot_coll_choice c = {alg, param};
    return aot_coll_format_choice(&c, buf, len);
}
