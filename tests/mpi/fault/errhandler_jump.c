/*
 * errhandler_jump.c: the program's MPI error handler leaves with longjmp (plain and
 * siglongjmp) out of the failing call; afterwards the program's own point-to-point (64 KiB and
 * more, on MPI_COMM_WORLD so autoopt routes it), collectives and MPI_Finalize must work as
 * natively.  Before the fix autoopt's call depth stayed raised after the jump: the run hung at
 * MPI_Finalize (default) or a guarded buffer's touch killed the rank (AUTOOPT_P2P_MODE=guarded).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <mpi.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (32 * 1024)           /* ints: 128 KiB */
#define ROUNDS 200

static jmp_buf jb;
static sigjmp_buf sjb;
static int use_sig;
static volatile int handled;
static volatile int last_class;

static void on_error(MPI_Comm *comm, int *code, ...)
{
    (void) comm;
    MPI_Error_class(*code, (int *) &last_class);
    handled++;
    if (use_sig)
        siglongjmp(sjb, 1);
    longjmp(jb, 1);
}

int main(int argc, char **argv)
{
    int rank, size;
    volatile int errors = 0, provoked = 0;
    MPI_Comm c;
    MPI_Errhandler eh;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_create_errhandler(on_error, &eh);
    MPI_Comm_set_errhandler(c, eh);
    MPI_Errhandler_free(&eh);

    int *buf = malloc(N * sizeof(int));
    const int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    for (volatile int r = 0; r < ROUNDS; r++) {
        /* The program's own traffic: a 128 KiB ring exchange, the received buffer read; the
         * error comes while the receive is pending. */
        MPI_Request rq;
        int *out = malloc(N * sizeof(int));
        for (int i = 0; i < N; i++)
            out[i] = rank * 1000003 + r * 7 + i;
        MPI_Irecv(buf, N, MPI_INT, from, r, MPI_COMM_WORLD, &rq);
        if (r % 20 == 10 && rank == 0) {   /* only rank 0: the ranks differ */
            int x = r;
            use_sig = (r % 40 == 10);
            provoked++;
            if (use_sig ? sigsetjmp(sjb, 1) == 0 : setjmp(jb) == 0) {
                if (r % 60 == 10)
                    MPI_Send(&x, 1, MPI_INT, 99, 0, c);          /* invalid rank */
                else
                    MPI_Send(&x, 1, MPI_INT, peer, -5, c);      /* invalid tag */
                printf("rank %d round %d: the erroneous send returned\n", rank, r);
                errors++;
            }
        }
        MPI_Send(out, N, MPI_INT, peer, r, MPI_COMM_WORLD);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            if (buf[i] != from * 1000003 + r * 7 + i) {
                if (errors++ < 5)
                    printf("rank %d round %d: buf[%d] = %d\n", rank, r, i, buf[i]);
                break;
            }
        free(out);
        int s = rank + r, sum = 0;
        MPI_Allreduce(&s, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (sum != size * (size - 1) / 2 + size * r) {
            printf("rank %d round %d: allreduce %d\n", rank, r, sum);
            errors++;
        }
        MPI_Barrier(c);
    }
    if (handled != provoked) {
        printf("rank %d: handler ran %d times, expected %d\n", rank, handled, provoked);
        errors++;
    }
    if (rank == 0 && last_class != MPI_ERR_RANK && last_class != MPI_ERR_TAG) {
        printf("rank %d: last error class %d\n", rank, last_class);
        errors++;
    }
    free(buf);
    MPI_Comm_free(&c);
    int total = 0;
    int e = errors;
    MPI_Allreduce(&e, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return total != 0;
}
