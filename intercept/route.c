/*
 * route.c: where the wrappers of routed functions (class "route" in wrappers.spec) send a call.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Each aot_route_<fn> runs inside the generated wrapper, with the re-entry guard held and the
 * enter hook done.  It hands the call to the subsystem that optimizes it, or to PMPI when that
 * subsystem is switched off or not built.  Subsystems count their own pass-through reasons;
 * a call that reaches PMPI here because its subsystem is off is counted as DISABLED.
 */
#include "aot.h"
#include "aot_route.h"
#include "subsystems.h"

/* The call-site key handed to the subsystems: the exact file:line under autoopt-mpicc (the
 * address of the file-name string plus the line), else the return address into the program. */
#define AOT_SITE() (aot_tls.site_file ? (const void *) (aot_tls.site_file + aot_tls.site_line) \
                                      : aot_tls.caller)

/* Chains see a point-to-point call first: a chain member or a call being learned is theirs;
 * AOT_CHAINS_DECLINED sends it on to paging or PMPI as before.  With chains off and
 * AUTOOPT_TRACE set they only record the call's signature. */
#ifdef AOT_HAVE_CHAINS
#define AOT_CHAINS_FIRST(call) \
    do { \
        if (aot_cfg.chains || aot_cfg.trace_dir) { \
            int aot_ch_rc = (call); \
            if (aot_ch_rc != AOT_CHAINS_DECLINED) \
                return aot_ch_rc; \
        } \
    } while (0)
#else
#define AOT_CHAINS_FIRST(call) do { } while (0)
#endif

#ifdef AOT_HAVE_PAGING
#define AOT_P2P(call, pmpi, fn) \
    do { \
        if (aot_cfg.convert) \
            return call; \
        aot_paging_settle(); \
        aot_stats_pass(fn, aot_app_threads ? AOT_PASS_APP_THREADS : AOT_PASS_DISABLED); \
        return pmpi; \
    } while (0)
#else
#define AOT_P2P(call, pmpi, fn) \
    do { \
        aot_stats_pass(fn, aot_app_threads ? AOT_PASS_APP_THREADS : AOT_PASS_DISABLED); \
        return pmpi; \
    } while (0)
#endif

int aot_route_MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    AOT_CHAINS_FIRST(aot_chains_send(AOT_FN_MPI_Send, buf, count, dt, dest, tag, comm));
    AOT_P2P(aot_paging_send(AOT_FN_MPI_Send, buf, count, dt, dest, tag, comm, AOT_SITE()),
            PMPI_Send(buf, count, dt, dest, tag, comm), AOT_FN_MPI_Send);
}

int aot_route_MPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    AOT_CHAINS_FIRST(aot_chains_send(AOT_FN_MPI_Ssend, buf, count, dt, dest, tag, comm));
    AOT_P2P(aot_paging_send(AOT_FN_MPI_Ssend, buf, count, dt, dest, tag, comm, AOT_SITE()),
            PMPI_Ssend(buf, count, dt, dest, tag, comm), AOT_FN_MPI_Ssend);
}

int aot_route_MPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    AOT_CHAINS_FIRST(aot_chains_send(AOT_FN_MPI_Rsend, buf, count, dt, dest, tag, comm));
    AOT_P2P(aot_paging_send(AOT_FN_MPI_Rsend, buf, count, dt, dest, tag, comm, AOT_SITE()),
            PMPI_Rsend(buf, count, dt, dest, tag, comm), AOT_FN_MPI_Rsend);
}

int aot_route_MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                       MPI_Status *status)
{
    AOT_CHAINS_FIRST(aot_chains_recv(buf, count, dt, source, tag, comm, status));
    AOT_P2P(aot_paging_recv(buf, count, dt, source, tag, comm, status, AOT_SITE()),
            PMPI_Recv(buf, count, dt, source, tag, comm, status), AOT_FN_MPI_Recv);
}

int aot_route_MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                           void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                           MPI_Comm comm, MPI_Status *status)
{
    AOT_CHAINS_FIRST(aot_chains_sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source,
                                         rtag, comm, status));
    AOT_P2P(aot_paging_sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag,
                                comm, status, AOT_SITE()),
            PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag, comm,
                          status), AOT_FN_MPI_Sendrecv);
}

/* The fast functions (wrappers.spec, "fast"): chains' expected chain members and the calls
 * chains and paging pass, before the hooks.  Only chains set aot_fast_armed.  Flattened: with
 * link-time optimization the argument checks and the member's path are inlined here, where a
 * call through them cost about 200 instructions more per chain phase (docs/overhead.md). */
#define AOT_FAST_FN __attribute__((flatten))
#ifdef AOT_HAVE_CHAINS
#define AOT_FAST(call) return (call)
#else
#define AOT_FAST(call) return AOT_FAST_DECLINED
#endif

AOT_FAST_FN int aot_fast_MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest,
                                  int tag, MPI_Comm comm)
{
    AOT_FAST(aot_chains_fast_send(AOT_FN_MPI_Send, buf, count, dt, dest, tag, comm));
}

AOT_FAST_FN int aot_fast_MPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest,
                                   int tag, MPI_Comm comm)
{
    AOT_FAST(aot_chains_fast_send(AOT_FN_MPI_Ssend, buf, count, dt, dest, tag, comm));
}

AOT_FAST_FN int aot_fast_MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag,
                                  MPI_Comm comm, MPI_Status *status)
{
    AOT_FAST(aot_chains_fast_recv(buf, count, dt, source, tag, comm, status));
}

AOT_FAST_FN int aot_fast_MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest,
                                      int stag, void *rbuf, int rcount, MPI_Datatype rdt,
                                      int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    AOT_FAST(aot_chains_fast_sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source,
                                      rtag, comm, status));
}

int aot_route_MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag,
                                   int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    AOT_P2P(aot_paging_sendrecv_replace(buf, count, dt, dest, stag, source, rtag, comm, status,
                                        AOT_SITE()),
            PMPI_Sendrecv_replace(buf, count, dt, dest, stag, source, rtag, comm, status),
            AOT_FN_MPI_Sendrecv_replace);
}

/* Count queries: a converted receive fills its status lazily, so paging answers them. */
int aot_route_MPI_Get_count(const MPI_Status *status, MPI_Datatype dt, int *count)
{
#ifdef AOT_HAVE_PAGING
    if (aot_cfg.convert)
        return aot_paging_get_count(status, dt, count);
#endif
    return PMPI_Get_count(status, dt, count);
}

int aot_route_MPI_Get_elements(const MPI_Status *status, MPI_Datatype dt, int *count)
{
#ifdef AOT_HAVE_PAGING
    if (aot_cfg.convert)
        return aot_paging_get_elements(status, dt, count);
#endif
    return PMPI_Get_elements(status, dt, count);
}

int aot_route_MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count)
{
#ifdef AOT_HAVE_PAGING
    if (aot_cfg.convert)
        return aot_paging_get_elements_x(status, dt, count);
#endif
    return PMPI_Get_elements_x(status, dt, count);
}

int aot_route_MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count)
{
#ifdef AOT_HAVE_PAGING
    if (aot_cfg.convert)
        return aot_paging_get_elements_x(status, dt, count);   /* same answer as _x */
#endif
    return PMPI_Get_elements_c(status, dt, count);
}

int aot_route_MPI_Get_count_c(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count)
{
#ifdef AOT_HAVE_PAGING
    if (aot_cfg.convert)
        return aot_paging_get_count_c(status, dt, count);
#endif
    return PMPI_Get_count_c(status, dt, count);
}

/* Blocking collectives: the algorithm repository decides. */
#ifdef AOT_HAVE_COLLECTIVES
#define AOT_COLL(call, pmpi, fn) \
    do { if (aot_cfg.collectives) return call; aot_stats_pass(fn, AOT_PASS_DISABLED); return pmpi; } while (0)
#else
#define AOT_COLL(call, pmpi, fn) \
    do { aot_stats_pass(fn, AOT_PASS_DISABLED); return pmpi; } while (0)
#endif

int aot_route_MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                            MPI_Comm comm)
{
    AOT_COLL(aot_coll_allreduce(sbuf, rbuf, count, dt, op, comm),
             PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm), AOT_FN_MPI_Allreduce);
}

int aot_route_MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    AOT_COLL(aot_coll_bcast(buf, count, dt, root, comm), PMPI_Bcast(buf, count, dt, root, comm),
             AOT_FN_MPI_Bcast);
}

int aot_route_MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         int root, MPI_Comm comm)
{
    AOT_COLL(aot_coll_reduce(sbuf, rbuf, count, dt, op, root, comm),
             PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm), AOT_FN_MPI_Reduce);
}

int aot_route_MPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                            MPI_Datatype rdt, MPI_Comm comm)
{
    AOT_COLL(aot_coll_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm),
             PMPI_Allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm), AOT_FN_MPI_Allgather);
}

int aot_route_MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                             const int rcounts[], const int displs[], MPI_Datatype rdt,
                             MPI_Comm comm)
{
    AOT_COLL(aot_coll_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm),
             PMPI_Allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm),
             AOT_FN_MPI_Allgatherv);
}

int aot_route_MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                           MPI_Datatype rdt, MPI_Comm comm)
{
    AOT_COLL(aot_coll_alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm),
             PMPI_Alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm), AOT_FN_MPI_Alltoall);
}

int aot_route_MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                            MPI_Datatype sdt, void *rbuf, const int rcounts[], const int rdispls[],
                            MPI_Datatype rdt, MPI_Comm comm)
{
    AOT_COLL(aot_coll_alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm),
             PMPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm),
             AOT_FN_MPI_Alltoallv);
}

int aot_route_MPI_Barrier(MPI_Comm comm)
{
    AOT_COLL(aot_coll_barrier(comm), PMPI_Barrier(comm), AOT_FN_MPI_Barrier);
}
