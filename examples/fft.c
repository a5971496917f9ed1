/*
 * fft: forward and inverse 3-D FFTs of an N^3 grid of complex doubles, slab-decomposed over
 * the ranks (fft.h: the layout, why the result is the same bits on every process count),
 * written as a spectral code writes them: 1-D FFTs along the two local dimensions, a transpose
 * by MPI_Alltoall, 1-D FFTs along the third.  -m picks the transpose (fft_exchange.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The 1-D FFT is our own: a self-sorting (Stockham) mixed-radix FFT with radix 4, 2, 3, 5 and
 * 7 passes, so N may be any product of those primes and every process count from 1 to 8 finds
 * an N it divides.  The twiddle factors come from one table of N values made with cos/sin.
 *
 * An iteration is one forward and one inverse transform (two transposes).  Rank 0 prints
 *   fft: n=64 procs=4 block=262144 mode=alltoall iters=10 avg_iter_us=... error=... checksum=0x...
 * where block is the bytes of one rank's block for one other rank (N^3/p^2 complex values),
 * error the largest |u - u0| over the grid after the iterations (u0 the initial grid, max
 * |u0| < 0.71) and checksum the 64-bit FNV-1a of the final grid in global order (x fastest):
 * the same bits for every mode and process count.  With several modes a line per mode follows
 * (turns.h), as with sor.
 *
 * Checks: before the timed iterations one forward transform of the initial grid is compared
 * with the discrete Fourier transform summed directly at a few frequencies, and with -V
 * (default for N <= 32) with the serial transform on rank 0; after them the grid must equal
 * the initial one within a rounding bound, and with -V its checksum must equal that of the
 * same iterations run serially on rank 0.
 *
 * Exit status: 0 when every check passed, 1 when one failed, 2 for a bad command line.
 */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "common.h"
#include "fft.h"
#include "turns.h"

#define FFT_PI 3.14159265358979323846
#define FFT_SEED UINT64_C(0x452821e638d01377)

enum { FFT_MAX_N = 1024, FFT_MAX_FACTORS = 32, FFT_SPOTS = 4 };

struct fft_options {
    int n;                      /* 0 until decided (default from the process count) */
    struct ex_run_options run;  /* verify: -1 until decided (on when n <= 32) */
};

/* A 1-D FFT of length n: its passes' radices and the twiddle table. */
struct fft_plan {
    int n;
    int nfactors, factor[FFT_MAX_FACTORS];
    double complex *w;          /* w[i] = exp(-2 pi i I / n), i < n */
};

/* One rank's slab and buffers. */
struct fft_state {
    int n, nz, ny;              /* nz planes z, after the transpose ny rows y */
    struct fft_plan plan;
    struct fft_comm c;
    double complex *u;          /* the grid, [z - z0][y][x] */
    double complex *u0;         /* the initial grid */
    double complex *pack;       /* send blocks of the forward transpose, receive blocks of
                                   the inverse one: [rank][z][y][x] */
    double complex *spec;       /* the spectrum, [z][y - y0][x] */
    double complex *line[2];    /* one line and the FFT's work space */
};

static const char *const fft_names[] = { "alltoall", "isend", "pairwise", NULL };

/* The default N: 64, or the smallest N above it that the process count divides. */
static int fft_factorable(int n);

static int fft_default_n(int size)
{
    int n = 64;

    while (n % size != 0 || !fft_factorable(n))
        n++;
    return n;
}

static void fft_usage(void)
{
    const char *summaries[3];

    if (ex_rank != 0)
        return;
    for (int m = 0; m < 3; m++)
        summaries[m] = fft_modes[m].summary;
    printf("usage: fft [-n N] [-i ITERS] [-m MODE[,MODE...]] [-b TURN] [-W WARM] [-V] [-c HEX]\n"
           "           [-t FILE] [-h]\n"
           "Forward and inverse 3-D FFTs of an N^3 grid of complex doubles in z slabs, the\n"
           "transposes between them an all-to-all exchange of N^3/p^2 values per pair of ranks.\n"
           "  -n N      grid side: N^3 points; N's prime factors 2, 3, 5 and 7 only, and the\n"
           "            process count must divide N (default 64, or the smallest such N above)\n"
           "  -i ITERS  forward + inverse transform pairs of each mode (default 10)\n"
           "  -m MODE   the transpose (default alltoall):\n");
    ex_usage_modes(fft_names, summaries);
    ex_usage_checks("transform", "N <= 32");
    printf("Always checks one forward transform against the directly summed transform at %d\n"
           "frequencies, and the grid after the iterations against the initial one.\n",
           FFT_SPOTS);
}

static int fft_parse(int argc, char **argv, int size, struct fft_options *o)
{
    int c;

    *o = (struct fft_options) {
        .run = { .t = { .names = fft_names, .npicks = 1, .iters = 10, .turn = 50 },
                 .verify = -1 },
    };
    opterr = 0;
    while ((c = getopt(argc, argv, ":n:i:m:b:W:Vc:t:h")) != -1) {
        int rc = ex_run_option(c, optarg, &o->run);

        if (c == 'n') {
            rc = ex_parse_int(c, optarg, 1, FFT_MAX_N, &o->n);
            if (rc == 0 && !fft_factorable(o->n)) {
                ex_error("option -n: '%s' has a prime factor other than 2, 3, 5 and 7",
                         optarg);
                rc = EX_USAGE;
            }
        } else if (c == 'h') {
            fft_usage();
            return EX_OK;
        } else if (rc == EX_RUN) {
            return ex_bad_option(c, optopt);
        }
        if (rc != 0)
            return rc;
    }
    if (o->n == 0) {
        o->n = fft_default_n(size);
    } else if (o->n % size != 0) {
        ex_error("option -n: %d planes cannot be shared by %d processes (N must be a "
                 "multiple of the process count)", o->n, size);
        return EX_USAGE;
    }
    if (o->run.verify < 0)
        o->run.verify = o->n <= 32;
    if (ex_turns_check(&o->run.t) != EX_RUN)
        return EX_USAGE;
    return ex_no_operands(argc, argv, optind);
}

static void *fft_alloc(size_t n, size_t size)
{
    void *p = calloc(n > 0 ? n : 1, size);

    if (p == NULL) {
        fprintf(stderr, "fft: out of memory (%zu x %zu bytes)\n", n, size);
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    return p;
}

/* ------------------------------------------------------------------ the 1-D FFT */

/* The radices of n's passes, fours first; 0 when n has another prime factor. */
static int fft_factor(int n, int *factor)
{
    static const int radix[] = { 4, 2, 3, 5, 7 };
    int nf = 0;

    for (int k = 0; k < 5; k++)
        while (n % radix[k] == 0 && nf < FFT_MAX_FACTORS) {
            factor[nf++] = radix[k];
            n /= radix[k];
        }
    return n == 1 ? nf : -1;
}

static int fft_factorable(int n)
{
    int factor[FFT_MAX_FACTORS];

    return n >= 1 && fft_factor(n, factor) >= 0;
}

static void fft_plan_init(struct fft_plan *pl, int n)
{
    pl->n = n;
    pl->nfactors = fft_factor(n, pl->factor);
    pl->w = fft_alloc((size_t) n, sizeof *pl->w);
    for (int i = 0; i < n; i++) {
        double a = 2.0 * FFT_PI * i / n;

        pl->w[i] = CMPLX(cos(a), -sin(a));
    }
}

/*
 * One Stockham pass of radix r on sequences of length len = the plan's n / s, s of them
 * interleaved: y[q + s (r p + k)] = w^(p k) * sum_j x[q + s (p + j m)] e^(-2 pi i j k / r),
 * m = len / r, w = e^(-2 pi i / len).  The output is in natural order after the last pass.
 */
static void fft_pass(const struct fft_plan *pl, int r, int len, int s, const double complex *x,
                     double complex *y)
{
    const double complex *w = pl->w;
    int m = len / r, sm = s * m, per = pl->n / r;

    for (int p = 0; p < m; p++) {
        for (int q = 0; q < s; q++) {
            const double complex *in = x + q + s * p;
            double complex *out = y + q + s * r * p;

            if (r == 2) {
                double complex a0 = in[0], a1 = in[sm];

                out[0] = a0 + a1;
                out[s] = (a0 - a1) * w[p * s];
            } else if (r == 4) {
                double complex t0 = in[0] + in[2 * sm], t1 = in[0] - in[2 * sm];
                double complex t2 = in[sm] + in[3 * sm], d = in[sm] - in[3 * sm];
                double complex t3 = CMPLX(cimag(d), -creal(d));     /* -i d */

                out[0] = t0 + t2;
                out[s] = (t1 + t3) * w[p * s];
                out[2 * s] = (t0 - t2) * w[2 * p * s];
                out[3 * s] = (t1 - t3) * w[3 * p * s];
            } else {
                double complex a[7];

                for (int j = 0; j < r; j++)
                    a[j] = in[j * sm];
                for (int k = 0; k < r; k++) {
                    double complex sum = a[0];

                    for (int j = 1; j < r; j++)
                        sum += a[j] * w[(j * k % r) * per];
                    out[k * s] = sum * w[p * k * s];
                }
            }
        }
    }
}

/* The forward (inverse: 0, 1) FFT of @a, n values, without scaling; @work holds n values. */
static void fft_line(const struct fft_plan *pl, double complex *a, double complex *work,
                     int inverse)
{
    double complex *x = a, *y = work;
    int len = pl->n, s = 1;

    if (inverse)
        for (int i = 0; i < pl->n; i++)
            a[i] = conj(a[i]);
    for (int f = 0; f < pl->nfactors; f++) {
        double complex *t;

        fft_pass(pl, pl->factor[f], len, s, x, y);
        len /= pl->factor[f];
        s *= pl->factor[f];
        t = x;
        x = y;
        y = t;
    }
    if (x != a)
        memcpy(a, x, (size_t) pl->n * sizeof *a);
    if (inverse)
        for (int i = 0; i < pl->n; i++)
            a[i] = conj(a[i]);
}

/* The 1-D FFTs of @count lines of @base: line k starts at base + k * step, its values
 * @stride apart. */
static void fft_lines(struct fft_state *st, double complex *base, int count, size_t step,
                      size_t stride, int inverse)
{
    double complex *line = st->line[0];
    int n = st->n;

    for (int k = 0; k < count; k++) {
        double complex *at = base + (size_t) k * step;

        if (stride == 1) {
            fft_line(&st->plan, at, st->line[1], inverse);
            continue;
        }
        for (int i = 0; i < n; i++)
            line[i] = at[(size_t) i * stride];
        fft_line(&st->plan, line, st->line[1], inverse);
        for (int i = 0; i < n; i++)
            at[(size_t) i * stride] = line[i];
    }
}

/* ------------------------------------------------------------------ the 3-D transforms */

/* The initial grid: a rough field from a hash of the global index, re and im in [-0.5, 0.5). */
static double complex fft_initial(uint64_t g)
{
    uint64_t h = ex_hash64(g ^ FFT_SEED);

    return CMPLX((double) (h >> 40) * 0x1p-24 - 0.5,
                 (double) (h & 0xffffff) * 0x1p-24 - 0.5);
}

/* Rank @rank of @size: its slab of the initial grid and the buffers. */
static void fft_setup(struct fft_state *st, int n, int size, int rank, MPI_Comm comm)
{
    size_t slab;

    memset(st, 0, sizeof *st);
    st->n = n;
    st->nz = st->ny = n / size;
    fft_plan_init(&st->plan, n);
    st->c = (struct fft_comm) {
        .comm = comm, .size = size, .rank = rank,
        .block = (int) ((size_t) st->nz * st->ny * n),
        .req = fft_alloc(2 * (size_t) size, sizeof(MPI_Request)),
        .status = fft_alloc(2 * (size_t) size, sizeof(MPI_Status)),
    };
    slab = (size_t) st->nz * n * n;
    st->u = fft_alloc(slab, sizeof *st->u);
    st->u0 = fft_alloc(slab, sizeof *st->u0);
    st->pack = fft_alloc(slab, sizeof *st->pack);
    st->spec = fft_alloc(slab, sizeof *st->spec);
    st->line[0] = fft_alloc((size_t) n, sizeof(double complex));
    st->line[1] = fft_alloc((size_t) n, sizeof(double complex));
    for (size_t i = 0; i < slab; i++)
        st->u0[i] = fft_initial((uint64_t) rank * slab + i);
    memcpy(st->u, st->u0, slab * sizeof *st->u);
}

static void fft_free(struct fft_state *st)
{
    free(st->plan.w);
    free(st->c.req);
    free(st->c.status);
    free(st->u);
    free(st->u0);
    free(st->pack);
    free(st->spec);
    free(st->line[0]);
    free(st->line[1]);
}

/* u (z slab) -> spec (y slab): x and y FFTs per plane, the transpose, z FFTs. */
static void fft_forward(struct fft_state *st, const struct fft_mode *m)
{
    size_t n = (size_t) st->n, plane = n * n, rows = (size_t) st->ny * n;

    fft_lines(st, st->u, st->nz * st->n, n, 1, 0);
    for (int z = 0; z < st->nz; z++)
        fft_lines(st, st->u + z * plane, st->n, 1, n, 0);
    /* block s: the rows y of rank s's y slab, plane after plane */
    for (int s = 0; s < st->c.size; s++)
        for (int z = 0; z < st->nz; z++)
            memcpy(st->pack + (size_t) s * st->c.block + z * rows,
                   st->u + z * plane + s * rows, rows * sizeof *st->u);
    m->exchange(st->pack, st->spec, &st->c);
    fft_lines(st, st->spec, st->ny * st->n, 1, rows, 0);
}

/* spec (y slab) -> u (z slab): z FFTs, the transpose, y and x FFTs, the scaling by 1/N^3. */
static void fft_inverse(struct fft_state *st, const struct fft_mode *m)
{
    size_t n = (size_t) st->n, plane = n * n, rows = (size_t) st->ny * n;
    size_t slab = (size_t) st->nz * plane;
    double scale = 1.0 / ((double) n * n * n);

    fft_lines(st, st->spec, st->ny * st->n, 1, rows, 1);
    m->exchange(st->spec, st->pack, &st->c);
    for (int s = 0; s < st->c.size; s++)
        for (int z = 0; z < st->nz; z++)
            memcpy(st->u + z * plane + s * rows,
                   st->pack + (size_t) s * st->c.block + z * rows, rows * sizeof *st->u);
    for (int z = 0; z < st->nz; z++)
        fft_lines(st, st->u + z * plane, st->n, 1, n, 1);
    fft_lines(st, st->u, st->nz * st->n, n, 1, 1);
    for (size_t i = 0; i < slab; i++)
        st->u[i] *= scale;
}

static const struct fft_mode *fft_mode_of(const struct ex_pick *pick)
{
    return pick->pmpi ? &fft_modes_pmpi[pick->mode] : &fft_modes[pick->mode];
}

static void fft_step(void *ctx, const struct ex_pick *pick)
{
    const struct fft_mode *m = fft_mode_of(pick);

    fft_forward(ctx, m);
    fft_inverse(ctx, m);
}

/* The serial reference: one rank, the transpose is a copy. */
static void fft_exchange_serial(const double complex *send, double complex *recv,
                                const struct fft_comm *c)
{
    memcpy(recv, send, (size_t) c->block * sizeof *send);
}

static const struct fft_mode fft_serial_mode = {
    "serial", "rank 0 alone", fft_exchange_serial,
};

/* ------------------------------------------------------------------ the checks */

/* The frequencies (kx, ky, kz) the directly summed transform is compared at. */
static void fft_spot(int n, int k, int f[3])
{
    static const int base[FFT_SPOTS][3] = { { 0, 0, 0 }, { 1, 2, 3 }, { -1, 0, -5 }, { 7, -3, 2 } };

    for (int d = 0; d < 3; d++)
        f[d] = ((base[k][d] % n) + n) % n;
    if (k == 2)
        f[1] = n / 2;
}

/*
 * Every rank: the directly summed DFT of its slab of u0 at the spot frequencies, and the
 * forward transform's value there if this rank holds it (0 otherwise), reduced to rank 0:
 * direct[k] and fast[k].  The direct sum is separable: over x, then y, then z.
 */
static void fft_spot_values(struct fft_state *st, double complex *direct, double complex *fast)
{
    int n = st->n, z0 = st->c.rank * st->nz, y0 = st->c.rank * st->ny;
    double mine[4 * FFT_SPOTS], sums[4 * FFT_SPOTS];

    for (int k = 0; k < FFT_SPOTS; k++) {
        int f[3];
        double complex total = 0.0, held = 0.0;

        fft_spot(n, k, f);
        for (int z = 0; z < st->nz; z++) {
            double complex over_y = 0.0;

            for (int y = 0; y < n; y++) {
                const double complex *row = st->u0 + ((size_t) z * n + y) * n;
                double complex over_x = 0.0;

                for (int x = 0; x < n; x++)
                    over_x += row[x] * st->plan.w[(size_t) f[0] * x % n];
                over_y += over_x * st->plan.w[(size_t) f[1] * y % n];
            }
            total += over_y * st->plan.w[(size_t) f[2] * (z0 + z) % n];
        }
        if (f[1] >= y0 && f[1] < y0 + st->ny)
            held = st->spec[((size_t) f[2] * st->ny + (f[1] - y0)) * n + f[0]];
        mine[4 * k] = creal(total);
        mine[4 * k + 1] = cimag(total);
        mine[4 * k + 2] = creal(held);
        mine[4 * k + 3] = cimag(held);
    }
    MPI_Reduce(mine, sums, 4 * FFT_SPOTS, MPI_DOUBLE, MPI_SUM, 0, st->c.comm);
    for (int k = 0; k < FFT_SPOTS; k++) {
        direct[k] = CMPLX(sums[4 * k], sums[4 * k + 1]);
        fast[k] = CMPLX(sums[4 * k + 2], sums[4 * k + 3]);
    }
}

/* The spectrum (y slabs) of every rank in global order [z][y][x] on rank 0; NULL elsewhere. */
static double complex *fft_gather_spectrum(struct fft_state *st)
{
    size_t n = (size_t) st->n, slab = (size_t) st->nz * n * n, rows = (size_t) st->ny * n;
    double complex *all = NULL, *spec = NULL;

    if (st->c.rank == 0) {
        all = fft_alloc(slab * st->c.size, sizeof *all);
        spec = fft_alloc(slab * st->c.size, sizeof *spec);
    }
    MPI_Gather(st->spec, (int) slab, MPI_C_DOUBLE_COMPLEX, all, (int) slab,
               MPI_C_DOUBLE_COMPLEX, 0, st->c.comm);
    if (st->c.rank == 0) {
        for (int r = 0; r < st->c.size; r++)
            for (size_t z = 0; z < n; z++)
                memcpy(spec + z * n * n + r * rows, all + r * slab + z * rows,
                       rows * sizeof *spec);
        free(all);
    }
    return spec;
}

static uint64_t fft_checksum(const double complex *u, size_t count)
{
    uint64_t hash = EX_FNV_OFFSET;

    for (size_t i = 0; i < count; i++) {
        hash = ex_fnv1a_double(hash, creal(u[i]));
        hash = ex_fnv1a_double(hash, cimag(u[i]));
    }
    return hash;
}

static double fft_max_abs(const double complex *a, size_t count)
{
    double m = 0.0;

    for (size_t i = 0; i < count; i++)
        m = fmax(m, cabs(a[i]));
    return m;
}

/* The rounding bound of a transform's values: a 1-D FFT of n values errs by about
 * eps log2(n) times the largest of them; the three of a 3-D transform add up. */
static double fft_bound(int n)
{
    return 8.0 * DBL_EPSILON * (3.0 * log2((double) n) + 3.0);
}

/*
 * Rank 0 with -V: the forward transform of the whole grid on rank 0 alone, compared with the
 * distributed one (@spec, global order) within the rounding bound, and the checksum of
 * @iters forward + inverse pairs on rank 0 alone (returned through @checksum).  Returns EX_OK
 * or EX_FAILED after a message.
 */
static int fft_serial_check(int n, long long iters, const double complex *spec,
                            uint64_t *checksum)
{
    struct fft_state st;
    size_t count = (size_t) n * n * n;
    double diff = 0.0, scale;
    int status = EX_OK;

    fft_setup(&st, n, 1, 0, MPI_COMM_SELF);
    fft_forward(&st, &fft_serial_mode);
    scale = fft_max_abs(st.spec, count);
    for (size_t i = 0; i < count; i++)
        diff = fmax(diff, cabs(st.spec[i] - spec[i]));
    if (!(diff <= fft_bound(n) * scale)) {
        fprintf(stderr, "fft: FAILED: the distributed forward transform differs from the "
                "serial one by %.3e (bound %.3e)\n", diff, fft_bound(n) * scale);
        status = EX_FAILED;
    }
    memcpy(st.u, st.u0, count * sizeof *st.u);
    for (long long it = 0; it < iters; it++) {
        fft_forward(&st, &fft_serial_mode);
        fft_inverse(&st, &fft_serial_mode);
    }
    *checksum = fft_checksum(st.u, count);
    fft_free(&st);
    return status;
}

/*
 * One forward transform of the initial grid, untimed, in mode @m: compared at the spot
 * frequencies with the directly summed transform and, with -V, with the serial transform on
 * rank 0 (whose checksum of @iters pairs goes to @serial_sum).  Restores the grid.  Returns
 * the exit status on rank 0 (EX_OK elsewhere).
 */
static int fft_check_forward(struct fft_state *st, const struct fft_mode *m, int verify,
                             long long iters, uint64_t *serial_sum)
{
    size_t count = (size_t) st->n * st->n * st->n;
    double complex direct[FFT_SPOTS], fast[FFT_SPOTS], *spec;
    int status = EX_OK;

    fft_forward(st, m);
    fft_spot_values(st, direct, fast);
    spec = verify ? fft_gather_spectrum(st) : NULL;
    memcpy(st->u, st->u0, (size_t) st->nz * st->n * st->n * sizeof *st->u);
    if (st->c.rank != 0)
        return EX_OK;
    for (int k = 0; k < FFT_SPOTS; k++) {
        /* the direct sum of N^3 terms of magnitude < 0.71 errs by at most N^3 eps each */
        double bound = 0.71 * (double) count * 2.0 * DBL_EPSILON * 4.0;
        int f[3];

        fft_spot(st->n, k, f);
        if (!(cabs(direct[k] - fast[k]) <= bound)) {
            fprintf(stderr, "fft: FAILED: at frequency (%d,%d,%d) the transform is "
                    "%.17g%+.17gi, the direct sum %.17g%+.17gi (bound %.3e)\n", f[0], f[1],
                    f[2], creal(fast[k]), cimag(fast[k]), creal(direct[k]), cimag(direct[k]),
                    bound);
            status = EX_FAILED;
        }
    }
    if (verify && fft_serial_check(st->n, iters, spec, serial_sum) != EX_OK)
        status = EX_FAILED;
    free(spec);
    return status;
}

/* Rank 0: the result lines and the checks after the run; returns the exit status. */
static int fft_report(const struct fft_options *o, int size, const double complex *all_u,
                      double error, const double *spent, uint64_t serial_sum)
{
    size_t count = (size_t) o->n * o->n * o->n;
    uint64_t hash = fft_checksum(all_u, count);
    long long total = ex_turns_total(&o->run.t);
    double bound = (double) total * fft_bound(o->n) * 0.71;    /* each pair adds its error */
    int status = EX_OK;

    printf("fft: n=%d procs=%d block=%zu", o->n, size,
           count / ((size_t) size * size) * sizeof(double complex));
    ex_print_timing(&o->run.t, spent);
    printf(" error=%.3e checksum=0x%016" PRIx64 "\n", error, hash);
    ex_print_turn_lines(&o->run.t, spent);
    fflush(stdout);
    if (!(error <= bound)) {
        fprintf(stderr, "fft: FAILED: after %lld forward and inverse transforms the grid "
                "differs from the initial one by %.3e (bound %.3e)\n", total, error, bound);
        status = EX_FAILED;
    }
    if (ex_check_checksum(&o->run, hash, serial_sum) != EX_OK)
        status = EX_FAILED;
    return status;
}

int main(int argc, char **argv)
{
    struct fft_options o;
    struct fft_state st;
    int rank, size, status;
    size_t slab;
    uint64_t serial_sum = 0;
    double spent[EX_MAX_MODES] = { 0 }, mine = 0.0, error = 0.0;
    double complex *all_u = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ex_setup("fft", rank);
    status = fft_parse(argc, argv, size, &o);
    if (status != EX_RUN) {
        MPI_Finalize();
        return status;
    }

    fft_setup(&st, o.n, size, rank, MPI_COMM_WORLD);
    slab = (size_t) st.nz * o.n * o.n;
    status = fft_check_forward(&st, fft_mode_of(&o.run.t.picks[0]), o.run.verify,
                               ex_turns_total(&o.run.t), &serial_sum);
    if (ex_run_turns(MPI_COMM_WORLD, &o.run.t, fft_step, &st, o.run.times, spent) != 0)
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);

    for (size_t i = 0; i < slab; i++)
        mine = fmax(mine, cabs(st.u[i] - st.u0[i]));
    MPI_Reduce(&mine, &error, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        all_u = fft_alloc(slab * size, sizeof *all_u);
    MPI_Gather(st.u, (int) slab, MPI_C_DOUBLE_COMPLEX, all_u, (int) slab, MPI_C_DOUBLE_COMPLEX,
               0, MPI_COMM_WORLD);
    if (rank == 0 && fft_report(&o, size, all_u, error, spent, serial_sum) != EX_OK)
        status = EX_FAILED;
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);

    free(all_u);
    fft_free(&st);
    MPI_Finalize();
    return status;
}
