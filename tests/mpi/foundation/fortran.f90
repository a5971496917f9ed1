! fortran.f90: Fortran MPI calls reach autoopt (MPICH's binding calls the C entry points).
! SPDX-License-Identifier: GPL-2.0-or-later
! Sends, receives and reduces with checked data; stats_check.py then checks that autoopt
! counted the calls.
program fortran_test
  use mpi
  implicit none
  integer, parameter :: n = 2048
  integer :: ierr, rank, nprocs, i, it, right, left, errors, total
  integer :: status(MPI_STATUS_SIZE)
  double precision :: sbuf(n), rbuf(n), x, y

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  errors = 0
  do it = 1, 4
     do i = 1, n
        sbuf(i) = rank * 100000 + i + it
     end do
     call MPI_Sendrecv(sbuf, n, MPI_DOUBLE_PRECISION, right, it, rbuf, n, MPI_DOUBLE_PRECISION, &
                       left, it, MPI_COMM_WORLD, status, ierr)
     do i = 1, n
        if (rbuf(i) /= left * 100000 + i + it) errors = errors + 1
     end do
     if (status(MPI_SOURCE) /= left) errors = errors + 1
  end do
  if (nprocs > 1) then
     if (rank == 0) then
        call MPI_Send(sbuf, n, MPI_DOUBLE_PRECISION, 1, 99, MPI_COMM_WORLD, ierr)
     else if (rank == 1) then
        call MPI_Recv(rbuf, n, MPI_DOUBLE_PRECISION, 0, 99, MPI_COMM_WORLD, status, ierr)
        do i = 1, n
           if (rbuf(i) /= sbuf(i) - 100000) errors = errors + 1
        end do
     end if
  end if
  x = rank + 1
  call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (y /= nprocs * (nprocs + 1) / 2) errors = errors + 1
  call MPI_Allreduce(errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     if (total == 0) then
        print '(A)', 'No Errors'
     else
        print '(A,I0,A)', 'Found ', total, ' errors'
     end if
  end if
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1
end program fortran_test
