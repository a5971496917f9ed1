#include <mpi.h>
#include <stdio.h>
#include <autoopt.h>
int main(int argc, char **argv) {
  int x = 1, y = 0;
  MPI_Init(&argc, &argv);
  MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("autoopt %s active=%d injected=%d y=%d\n", autoopt_version(), autoopt_active(), AUTOOPT_INJECTED, y);
  MPI_Finalize();
  return 0;
}
