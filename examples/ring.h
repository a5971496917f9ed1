/*
 * ring: the ways one pass around the ring is made (ring_pass.c, compiled a second time through
 * PMPI_* as ring_pass_pmpi.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef EXAMPLES_RING_H
#define EXAMPLES_RING_H

struct ring_state {
    unsigned char *sbuf, *rbuf;
    int bytes;
    int rank, size, left, right;
};

/* One pass: sbuf goes to the right neighbour, rbuf receives the left one's. */
typedef void (*ring_pass_fn)(struct ring_state *s);

/* Indexed like ring_mode_names (ring.c): blocking, isend. */
extern const ring_pass_fn ring_passes[];
extern const ring_pass_fn ring_passes_pmpi[];

#endif /* EXAMPLES_RING_H */
