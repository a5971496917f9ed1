#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static double t(MPI_Comm c, float *s, float *r, int n, int reps) {
  double acc = 0;
  for (int i = 0; i < reps; i++) { double t0 = MPI_Wtime(); MPI_Allreduce(s, r, n, MPI_FLOAT, MPI_SUM, c); acc += MPI_Wtime() - t0; MPI_Barrier(c); }
  acc /= reps; MPI_Allreduce(MPI_IN_PLACE, &acc, 1, MPI_DOUBLE, MPI_MAX, c); return acc * 1e6;
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv); int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int n = atoi(argv[1]) / 4; float *s = calloc(n, 4), *r = calloc(n, 4);
  MPI_Comm sp, dp; MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &sp); MPI_Comm_dup(MPI_COMM_WORLD, &dp);
  for (int k = 0; k < 3; k++) {
    double a = t(MPI_COMM_WORLD, s, r, n, 50), b = t(sp, s, r, n, 50), c = t(dp, s, r, n, 50);
    if (!rank) printf("world %.1f split %.1f dup %.1f us\n", a, b, c);
  }
  MPI_Finalize();
}
