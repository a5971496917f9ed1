/*
 * coll_select.c: the decision -- which algorithm runs a call -- and the "name[:param=value]"
 * syntax shared by AUTOOPT_<COLL> and the tuning file.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Everything here is pure: no MPI calls and no global state, so the unit tests
 * (tests/unit/test_coll_select.c) drive it with any policy they like.  All ranks reach the same
 * decision because every input is the same on all ranks: the communicator size, the byte count
 * defined per collective in coll_run.c, whether the operation is commutative, and the policy
 * read from the environment and the tuning file (broadcast from rank 0).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_config.h"
#include "aot_tuning_file.h"
#include "coll_registry.h"
#include "coll_select.h"
#include "coll_util.h"

/* "native, ring, ..." for messages. */
static void aot_known_names(enum aot_coll_kind kind, char *buf, size_t len)
{
    size_t n = 0;

    buf[0] = '\0';
    for (int i = 0; i < aot_coll_nalgs && n < len; i++) {
        if (aot_coll_algs[i].kind != kind)
            continue;
        int w = snprintf(buf + n, len - n, "%s%s", n ? ", " : "", aot_coll_algs[i].name);
        if (w < 0)
            break;
        n += (size_t) w;
    }
}

/* An integer with an optional binary suffix K, M or G. */
static int aot_parse_long(const char *s, size_t len, long *out)
{
    char buf[32], *end;
    long mult = 1, v;

    if (len == 0 || len >= sizeof(buf))
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (buf[0] == '-' || buf[0] == '+' || buf[0] == ' ')
        return -1;
    errno = 0;
    v = strtol(buf, &end, 10);
    if (end == buf || errno)
        return -1;
    if (*end == 'K' || *end == 'k')
        mult = 1L << 10;
    else if (*end == 'M')
        mult = 1L << 20;
    else if (*end == 'G')
        mult = 1L << 30;
    if (mult != 1)
        end++;
    if (*end != '\0' || v > (1L << 40))
        return -1;
    *out = v * mult;
    return 0;
}

int aot_coll_parse_choice(enum aot_coll_kind kind, const char *spec, struct aot_coll_choice *out,
                          char *err, size_t errlen)
{
    const char *colon = strchr(spec, ':');
    size_t nlen = colon ? (size_t) (colon - spec) : strlen(spec);
    const struct aot_coll_param *par;
    const char *eq, *val;
    char known[1024];
    int alg;
    long v;

    alg = aot_coll_find(kind, spec, nlen);
    if (alg < 0) {
        aot_known_names(kind, known, sizeof(known));
        snprintf(err, errlen, "unknown algorithm (known: %s)", known);
        return -1;
    }
    par = &aot_coll_algs[alg].param;
    out->alg = alg;
    out->param = par->name ? par->dflt : 0;
    if (!colon)
        return 0;
    if (!par->name) {
        snprintf(err, errlen, "%s takes no parameter", aot_coll_algs[alg].name);
        return -1;
    }
    eq = strchr(colon + 1, '=');
    if (!eq || (size_t) (eq - colon - 1) != strlen(par->name)
        || memcmp(colon + 1, par->name, strlen(par->name)) != 0) {
        snprintf(err, errlen, "expected '%s:%s=<value>'", aot_coll_algs[alg].name, par->name);
        return -1;
    }
    val = eq + 1;
    if (aot_parse_long(val, strlen(val), &v) != 0 || v < par->min || v > par->max) {
        snprintf(err, errlen, "%s must be an integer %ld..%ld", par->name, par->min, par->max);
        return -1;
    }
    out->param = v;
    return 0;
}

int aot_coll_format_choice(const struct aot_coll_choice *c, char *buf, size_t len)
{
    const struct aot_coll_alg *a = &aot_coll_algs[c->alg];
    int n;

    if (a->param.name)
        n = snprintf(buf, len, "%s:%s=%ld", a->name, a->param.name, c->param);
    else
        n = snprintf(buf, len, "%s", a->name);
    return n < 0 || (size_t) n >= len ? -1 : 0;
}

unsigned aot_coll_check(int alg, int comm_size, int commutative)
{
    unsigned r = aot_coll_algs[alg].restrictions, failed = 0;

    if ((r & AOT_R_COMMUTATIVE) && !commutative)
        failed |= AOT_R_COMMUTATIVE;
    if ((r & AOT_R_POF2) && !aot_coll_is_pof2(comm_size))
        failed |= AOT_R_POF2;
    return failed;
}

const char *aot_coll_restriction_text(unsigned failed)
{
    if (failed & AOT_R_COMMUTATIVE)
        return "needs a commutative operation";
    if (failed & AOT_R_POF2)
        return "needs a power-of-two communicator size";
    return "no restriction failed";
}

int aot_coll_reproducible_default(enum aot_coll_kind kind, uint64_t bytes)
{
    const char *name;

    if (kind == AOT_COLL_ALLREDUCE)
        name = bytes < 16384 ? "recursive_doubling" : "rabenseifner";
    else
        name = bytes < 16384 ? "binomial" : "rabenseifner";
    return aot_coll_find(kind, name, strlen(name));
}

void aot_coll_decide(const struct aot_coll_policy *pol, enum aot_coll_kind kind, int comm_size,
                     uint64_t bytes, int commutative, struct aot_coll_decision *d)
{
    const struct aot_coll_shape shape = {comm_size, 0, 0};
    aot_coll_decide_shape(pol, kind, &shape, bytes, commutative, d);
}

void aot_coll_decide_shape(const struct aot_coll_policy *pol, enum aot_coll_kind kind,
                           const struct aot_coll_shape *shape, uint64_t bytes, int commutative,
                           struct aot_coll_decision *d)
{
    const struct aot_tuning_rule *rule;
    int comm_size = shape->size;
    int reduction = kind == AOT_COLL_ALLREDUCE || kind == AOT_COLL_REDUCE;

    d->rejected = -1;
    d->failed = 0;
    d->why = AOT_WHY_DEFAULT;
    d->choice.alg = (int) kind;               /* the native algorithm of this kind */
    d->choice.param = 0;
    if (pol->forced[kind] >= 0) {
        d->choice.alg = pol->forced[kind];
        d->choice.param = pol->forced_param[kind];
        d->why = AOT_WHY_FORCED;
    } else if (pol->tuning
               && (rule = aot_tuning_lookup_shape(pol->tuning, kind, comm_size, shape->nhosts,
                                                   shape->ppn, bytes)) != NULL) {
        d->choice.alg = rule->alg;
        d->choice.param = rule->param;
        d->why = AOT_WHY_TUNED;
    }
    d->failed = aot_coll_check(d->choice.alg, comm_size, commutative);
    if (d->failed) {
        d->rejected = d->choice.alg;
        d->choice.alg = (int) kind;
        d->choice.param = 0;
        d->why = AOT_WHY_RESTRICTED;
    }
    if (pol->reproducible && reduction
        && !(aot_coll_algs[d->choice.alg].properties & AOT_P_ORDERED)) {
        if (d->rejected < 0)
            d->rejected = d->choice.alg;
        d->choice.alg = aot_coll_reproducible_default(kind, bytes);
        d->choice.param = 0;
        d->why = AOT_WHY_REPRODUCIBLE;
    }
}

/* The decision is constant between the ends of the rules' bytes ranges, so it is enough to
 * look at each end and just outside it. */
int aot_coll_bytes_matter(const struct aot_coll_policy *pol, enum aot_coll_kind kind,
                          const struct aot_coll_shape *shape)
{
    struct aot_coll_decision d0, d;

    if (pol->forced[kind] >= 0 || !pol->tuning)
        return 0;
    aot_coll_decide_shape(pol, kind, shape, 0, 1, &d0);
    for (size_t i = 0; i < pol->tuning->n; i++) {
        const struct aot_tuning_rule *r = &pol->tuning->rules[i];
        uint64_t at[4];
        int n = 0;
        if (r->kind != (int) kind || shape->size < r->ranks_lo || shape->size > r->ranks_hi)
            continue;
        at[n++] = r->bytes_lo;
        at[n++] = r->bytes_hi;
        if (r->bytes_lo > 0)
            at[n++] = r->bytes_lo - 1;
        if (r->bytes_hi < AOT_TUNING_INF_BYTES)
            at[n++] = r->bytes_hi + 1;
        for (int j = 0; j < n; j++) {
            aot_coll_decide_shape(pol, kind, shape, at[j], 1, &d);
            if (d.choice.alg != d0.choice.alg || d.choice.param != d0.choice.param)
                return 1;
        }
    }
    return 0;
}
