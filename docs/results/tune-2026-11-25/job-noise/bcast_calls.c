#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv); int rank, p; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &p);
  int n = atoi(argv[1]); char *b = calloc(n, 1); double acc = 0; int reps = 200;
  for (int i = 0; i < 20; i++) { MPI_Bcast(b, n, MPI_CHAR, 0, MPI_COMM_WORLD); MPI_Barrier(MPI_COMM_WORLD); }
  for (int i = 0; i < reps; i++) { double t0 = MPI_Wtime(); MPI_Bcast(b, n, MPI_CHAR, 0, MPI_COMM_WORLD); acc += MPI_Wtime() - t0; MPI_Barrier(MPI_COMM_WORLD); }
  acc /= reps; double s; MPI_Reduce(&acc, &s, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (!rank) printf("bcast %d B: %.1f us (mean over ranks)\n", n, s / p * 1e6);
  MPI_Finalize();
}
