/*
 * datatypes: derived datatypes move exactly their bytes.  A column of a row-major grid
 * (vector), an indexed type, a resized struct and a subarray are received into buffers
 * pre-filled with a marker; afterwards the bytes of the layout hold the message and every other
 * byte still holds the marker.  The sender overwrites its grid at once.  A message shorter than
 * the receive fills only its first elements.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdlib.h>

#include "paging_test.h"

#define G 64

struct rec {
    int a;
    double b;
    char c[3];
};

int main(int argc, char **argv)
{
    double *grid = malloc(G * G * sizeof(double));
    MPI_Datatype col, idx, st, st_r, sub;
    int bl[3] = { 2, 3, 1 }, disp[3] = { 0, 5, 12 };

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    MPI_Type_vector(G, 1, G, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    MPI_Type_indexed(3, bl, disp, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    {
        int sbl[3] = { 1, 1, 3 };
        MPI_Aint sdisp[3] = { offsetof(struct rec, a), offsetof(struct rec, b),
                              offsetof(struct rec, c) };
        MPI_Datatype stypes[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };
        MPI_Type_create_struct(3, sbl, sdisp, stypes, &st);
        MPI_Type_create_resized(st, 0, sizeof(struct rec), &st_r);
        MPI_Type_commit(&st_r);
    }
    {
        int sizes[2] = { G, G }, subs[2] = { 10, 7 }, starts[2] = { 3, 20 };
        MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &sub);
        MPI_Type_commit(&sub);
    }

    for (int it = 0; it < 3; it++) {
        /* ---- a column: sent from column 5, received into column 9 */
        if (pt_rank == 0) {
            for (int i = 0; i < G * G; i++)
                grid[i] = pt_val(it, i);
            MPI_Send(grid + 5, 1, col, 1, 1, MPI_COMM_WORLD);
            for (int i = 0; i < G * G; i++)
                grid[i] = -1.0;                          /* touch at once */
        } else if (pt_rank == 1) {
            for (int i = 0; i < G * G; i++)
                grid[i] = -9.0;
            MPI_Recv(grid + 9, 1, col, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int r = 0; r < G; r++)
                for (int c = 0; c < G; c++) {
                    double want = c == 9 ? pt_val(it, r * G + 5) : -9.0;
                    CHECK(grid[r * G + c] == want, "column: [%d][%d] = %g, expected %g", r, c,
                          grid[r * G + c], want);
                }
        }
        /* ---- indexed, 2 elements: ints 0-1, 5-7, 12 of each 13-int extent */
        {
            static int ib[40];
            for (int i = 0; i < 40; i++)
                ib[i] = pt_rank == 0 ? 1000 * it + i : -5;
            if (pt_rank == 0) {
                MPI_Send(ib, 2, idx, 1, 2, MPI_COMM_WORLD);
                ib[6] = -1;
            } else if (pt_rank == 1) {
                MPI_Recv(ib, 2, idx, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < 40; i++) {
                    int k = i % 13, e = i / 13;
                    int in = e < 2 && (k < 2 || (k >= 5 && k < 8) || k == 12);
                    CHECK(ib[i] == (in ? 1000 * it + i : -5), "indexed: [%d] = %d", i, ib[i]);
                }
            }
        }
        /* ---- resized struct, 50 records; a short message of 20 fills only those */
        {
            struct rec *rb = malloc(50 * sizeof(*rb));
            unsigned char *raw = (unsigned char *) rb;
            for (size_t i = 0; i < 50 * sizeof(*rb); i++)
                raw[i] = 0xee;
            if (pt_rank == 0) {
                for (int i = 0; i < 50; i++) {
                    rb[i].a = i + it;
                    rb[i].b = i * 0.5;
                    rb[i].c[0] = 'x';
                    rb[i].c[1] = 'y';
                    rb[i].c[2] = (char) i;
                }
                MPI_Send(rb, 50, st_r, 1, 3, MPI_COMM_WORLD);
                MPI_Send(rb, 20, st_r, 1, 4, MPI_COMM_WORLD);
                rb[3].b = -1;
            } else if (pt_rank == 1) {
                struct rec *r2 = malloc(50 * sizeof(*r2));
                unsigned char *raw2 = (unsigned char *) r2;
                MPI_Status s;
                int cnt = -1;
                for (size_t i = 0; i < 50 * sizeof(*r2); i++)
                    raw2[i] = 0xee;
                MPI_Recv(rb, 50, st_r, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Recv(r2, 50, st_r, 0, 4, MPI_COMM_WORLD, &s);
                for (int i = 0; i < 50; i++) {
                    CHECK(rb[i].a == i + it && rb[i].b == i * 0.5 && rb[i].c[0] == 'x' &&
                          rb[i].c[2] == (char) i, "struct record %d", i);
                    if (i < 20)
                        CHECK(r2[i].a == i + it && r2[i].c[2] == (char) i, "short struct %d", i);
                    else
                        CHECK(r2[i].a == (int) 0xeeeeeeee, "record %d past the short message", i);
                }
                /* padding between the fields was never written */
                CHECK(raw[offsetof(struct rec, a) + sizeof(int)] == 0xee, "struct padding written");
                CHECK(raw[sizeof(struct rec) - 1] == 0xee, "struct tail padding written");
                MPI_Get_count(&s, st_r, &cnt);
                CHECK(cnt == 20, "MPI_Get_count of the short struct message: %d", cnt);
                free(r2);
            }
            free(rb);
        }
        /* ---- subarray 10 x 7 at (3, 20) */
        if (pt_rank == 0) {
            for (int i = 0; i < G * G; i++)
                grid[i] = pt_val(it, i);
            MPI_Send(grid, 1, sub, 1, 5, MPI_COMM_WORLD);
            grid[4 * G + 22] = -1;
        } else if (pt_rank == 1) {
            for (int i = 0; i < G * G; i++)
                grid[i] = -9.0;
            MPI_Recv(grid, 1, sub, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int r = 0; r < G; r++)
                for (int c = 0; c < G; c++) {
                    int in = r >= 3 && r < 13 && c >= 20 && c < 27;
                    double want = in ? pt_val(it, r * G + c) : -9.0;
                    CHECK(grid[r * G + c] == want, "subarray: [%d][%d] = %g", r, c, grid[r * G + c]);
                }
        }
    }
    MPI_Type_free(&col);
    MPI_Type_free(&idx);
    MPI_Type_free(&st);
    MPI_Type_free(&st_r);
    MPI_Type_free(&sub);
    free(grid);
    return aot_test_finish();
}
