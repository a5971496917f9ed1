#include <mpi.h>
#include <stdio.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int c, char **v) { double t0 = now(); MPI_Init(&c, &v); double t = now() - t0; int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); if (!r) printf("MPI_Init %.3f s\n", t); MPI_Finalize(); return 0; }
