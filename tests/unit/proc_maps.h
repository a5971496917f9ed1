/*
 * proc_maps.h: the truth the unit tests compare with -- the line of /proc/self/maps holding an
 * address, read with stdio, independently of src/maps.c.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_TEST_PROC_MAPS_H_INCLUDED
#define AOT_TEST_PROC_MAPS_H_INCLUDED

#include <stdio.h>
#include <sys/mman.h>

#include "aot_mem.h"

/* 0 with *m filled, or -1 when addr is not mapped. */
static inline int proc_maps_find(uintptr_t addr, struct aot_map *m)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int found = -1;
    while (f && fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        char perm[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perm) == 3 && addr >= lo && addr < hi) {
            m->lo = lo;
            m->hi = hi;
            m->prot = (perm[0] == 'r' ? PROT_READ : 0) | (perm[1] == 'w' ? PROT_WRITE : 0) |
                      (perm[2] == 'x' ? PROT_EXEC : 0);
            m->shared = perm[3] == 's';
            found = 0;
            break;
        }
    }
    if (f)
        fclose(f);
    return found;
}

#endif /* AOT_TEST_PROC_MAPS_H_INCLUDED */
