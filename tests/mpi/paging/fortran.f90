! fortran: blocking point-to-point from Fortran (mpif.h bindings call the C entry points):
! send and overwrite at once, receive and read at once, MPI_Get_count, MPI_Sendrecv.
! SPDX-License-Identifier: GPL-2.0-or-later
program paging_fortran
  implicit none
  include 'mpif.h'
  integer, parameter :: n = 20000
  double precision, allocatable :: a(:), b(:)
  integer :: rank, nprocs, ierr, i, it, errors, total, cnt, right, left
  integer :: status(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  allocate(a(n), b(n))
  errors = 0
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  do it = 1, 3
    if (nprocs >= 2) then
      if (rank == 0) then
        do i = 1, n
          a(i) = i + 1000 * it
        end do
        call MPI_Send(a, n, MPI_DOUBLE_PRECISION, 1, 5, MPI_COMM_WORLD, ierr)
        a = -1.0d0
      else if (rank == 1) then
        call MPI_Recv(a, n, MPI_DOUBLE_PRECISION, 0, 5, MPI_COMM_WORLD, status, ierr)
        if (status(MPI_SOURCE) /= 0 .or. status(MPI_TAG) /= 5) errors = errors + 1
        do i = 1, n
          if (a(i) /= i + 1000 * it) errors = errors + 1
        end do
        call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
        if (cnt /= n) errors = errors + 1
      end if
    end if
    do i = 1, n
      a(i) = rank * 100000 + i + it
    end do
    call MPI_Sendrecv(a, n, MPI_DOUBLE_PRECISION, right, 6, b, n, MPI_DOUBLE_PRECISION, left, 6, &
                      MPI_COMM_WORLD, status, ierr)
    do i = 1, n
      if (b(i) /= left * 100000 + i + it) errors = errors + 1
    end do
  end do
  call MPI_Allreduce(errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a)', 'No Errors'
    else
      print '(a,i8,a)', 'Found ', total, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1
end program paging_fortran
