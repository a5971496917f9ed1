/* bidir: every rank exchanges M bytes with a partner, R times; modes: pair (r^1, both ways),
 * uni (even ranks send to r+1 only), shift k (send to r+k, receive from r-k: an alltoall step). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
  int r, p; MPI_Init(&argc, &argv); MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &p);
  const char *mode = argv[1]; long m = atol(argv[2]); int reps = atoi(argv[3]);
  char *s = malloc(m), *q = malloc(m); memset(s, 1, m); memset(q, 0, m);
  for (int k = 1; k < p; k++)   /* warm-up: a connection to every peer */
    MPI_Sendrecv(s, m, MPI_CHAR, (r + k) % p, 1, q, m, MPI_CHAR, (r - k + p) % p, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  for (int i = 0; i < reps; i++) {
    if (!strcmp(mode, "pair1")) { if (r < 2) MPI_Sendrecv(s, m, MPI_CHAR, r ^ 1, 0, q, m, MPI_CHAR, r ^ 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
    else if (!strcmp(mode, "pair")) MPI_Sendrecv(s, m, MPI_CHAR, r ^ 1, 0, q, m, MPI_CHAR, r ^ 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else if (!strcmp(mode, "uni")) { if (r % 2 == 0) MPI_Send(s, m, MPI_CHAR, r + 1, 0, MPI_COMM_WORLD); else MPI_Recv(q, m, MPI_CHAR, r - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
    else { int k = atoi(mode + 5); k = k % p ? k : 1 + i % (p - 1);
           MPI_Sendrecv(s, m, MPI_CHAR, (r + k) % p, 0, q, m, MPI_CHAR, (r - k + p) % p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  t = MPI_Wtime() - t;
  if (r == 0) printf("%s p=%d m=%ld reps=%d: %.1f ms, %.1f Mbit/s per rank per direction (%.0f %% of 100)\n", mode, p, m, reps, t * 1e3, m * 8.0 * reps / t / 1e6, m * 8.0 * reps / t / 1e6);
  MPI_Finalize(); return 0;
}
