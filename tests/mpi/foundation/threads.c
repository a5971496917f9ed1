/*
 * threads.c: MPI_Init_thread at every level; the level MPI gives comes back unchanged, and the
 * program keeps working (autoopt's own policy per level is checked from the statistics by
 * stats_check.py).  At MPI_THREAD_MULTIPLE two threads exchange messages concurrently.
 */
#include <pthread.h>
#include <string.h>

#include "aot_test.h"

static int rank, size;

static void *worker(void *arg)
{
    int tag = *(int *) arg, out[64], in[64];
    for (int i = 0; i < 64; i++)
        out[i] = rank * 1000 + tag * 100 + i;
    for (int it = 0; it < 20; it++)
        MPI_Sendrecv(out, 64, MPI_INT, (rank + 1) % size, tag, in, 64, MPI_INT,
                     (rank + size - 1) % size, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 64; i++)
        CHECK(in[i] == ((rank + size - 1) % size) * 1000 + tag * 100 + i, "thread %d element %d",
              tag, i);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *want = argc > 1 ? argv[1] : "single";
    int required = !strcmp(want, "multiple") ? MPI_THREAD_MULTIPLE
                 : !strcmp(want, "serialized") ? MPI_THREAD_SERIALIZED
                 : !strcmp(want, "funneled") ? MPI_THREAD_FUNNELED : MPI_THREAD_SINGLE;
    int provided, queried, tags[2] = {1, 2};

    MPI_Init_thread(&argc, &argv, required, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Query_thread(&queried);
    CHECK(provided >= required, "asked %d, got %d", required, provided);
    CHECK(queried == provided, "MPI_Query_thread %d, MPI_Init_thread %d", queried, provided);

    if (provided == MPI_THREAD_MULTIPLE) {
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, worker, &tags[i]);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
    } else {
        worker(&tags[0]);
    }
    {
        int x = rank, sum = 0;
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(sum == size * (size - 1) / 2, "allreduce %d", sum);
    }
    return aot_test_finish();
}
