/* RBM-SVGD iterations on all cores with OpenMP, bit-identical to the serial sgs_svgd_step.
 *
 * An iteration is sgs_svgd_begin (the draws), then pieces of consecutive batches shared out over
 * the threads — each piece's gradients (sgs_svgd_gradients_range over its permutation slots) and
 * forces and moves (sgs_svgd_batches_range) — then sgs_svgd_finish, which checks that every move
 * was finite and copies them into the particles. The range calls are safe to run concurrently on
 * disjoint ranges and touch only their own rows, so the result does not depend on the number of
 * threads or on which thread took which batch.
 *
 *   ./openmp_svgd            # mixture and logistic regression on 1..4 threads, checked
 *   ./openmp_svgd --quick    # the same, smaller (scripts/test-examples.sh)
 *   ./openmp_svgd --bench mixture|logistic N p ITERS    # serial vs all threads, times and CPU
 *   ./openmp_svgd --big N d p                            # one iteration of a large system
 *
 * (2 <= p <= N, ITERS >= 1.) Exit status 0 when every check passed, 1 when one failed or a run
 * could not be made (with the reason on stderr), 2 for bad arguments.
 *
 * SGS_PERMUTATION=feistel runs every system with the Feistel permutation (default: the shuffle),
 * where each piece evaluates its own slots' permutation and moves its own particles in place, so
 * that begin draws one key and finish copies nothing; the default run checks both.
 *
 * SGS_PIECES_PER_THREAD (default 4) sets the pieces per thread. For timings on idle cores, keep
 * the threads on their cores and spinning between iterations: OMP_PROC_BIND=true
 * OMP_WAIT_POLICY=active (scripts/bench-scaling.sh sets both).
 *
 * Build: cc -std=c99 -O2 -fopenmp -Iinclude examples-c/openmp_svgd.c target/release/libsgsample.a -lm */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "parallel_models.h"
#include "parse_size.h"

/* CPU seconds (per-thread clocks, so insensitive to other processes taking the cores), summed
 * over the timed iterations: begin and finish on the calling thread, the pieces' work (each
 * thread from entering the parallel region to the end of its pieces: waiting at the barrier is
 * not counted) over all threads, and the busiest thread's share of it per iteration. */
static double cpu_begin, cpu_finish, cpu_pieces, cpu_busiest;

/* Pieces per thread: consecutive batches, one gradients call and one batches call each. A few
 * per thread keep a piece's rows in the core's cache between its two calls (its gradients are
 * written, then read back by its forces) at a negligible per-call cost. */
static long pieces_per_thread = 4;

/* SGS_PERMUTATION_SHUFFLE or, with SGS_PERMUTATION=feistel, SGS_PERMUTATION_FEISTEL. */
static int32_t permutation = SGS_PERMUTATION_SHUFFLE;

/* The pieces' statuses, one per piece: allocated before the iterations (reserve_pieces, for the
 * current thread count), so that an iteration allocates nothing. */
static int32_t *piece_status;
static size_t piece_cap;

static int reserve_pieces(void) {
    size_t threads = (size_t)omp_get_max_threads(), need = threads * (size_t)pieces_per_thread;
    if (need / (size_t)pieces_per_thread != threads || need > SIZE_MAX / sizeof *piece_status) need = 0;
    if (need != 0 && need <= piece_cap) return 1;
    int32_t *p = need ? realloc(piece_status, need * sizeof *p) : NULL;
    if (!p) {
        fprintf(stderr, "openmp_svgd: out of memory for %zu pieces' statuses\n", need);
        return 0;
    }
    piece_status = p, piece_cap = need;
    return 1;
}

/* Cancels the iteration after `st`; returns `st`, or the cancel's status if that failed (the
 * iteration is then still open, and the next begin says so). */
static int32_t cancel_after(sgs_svgd *s, int32_t st) {
    int32_t c = sgs_svgd_cancel(s);
    return c == SGS_OK ? st : c;
}

/* One iteration with the batches on the OpenMP threads: begin, one parallel region in which
 * every thread runs a contiguous run of pieces (static schedule: the same split every
 * iteration, no shared counter), finish. Returns the first failing status in batch order,
 * after cancelling. Call reserve_pieces first (after any omp_set_num_threads). */
static int32_t omp_iteration(sgs_svgd *s, size_t nb, sgs_svgd_info *info) {
    double c0 = thread_cpu();
    int32_t st = sgs_svgd_begin(s);
    if (st != SGS_OK) return st;
    double c1 = thread_cpu(), busiest = 0.0, all = 0.0;
    size_t pieces = (size_t)omp_get_max_threads() * (size_t)pieces_per_thread;
    if (pieces > piece_cap) pieces = piece_cap; /* any number of pieces gives the same bits */
    if (pieces > nb) pieces = nb;
    if (pieces == 0) return cancel_after(s, SGS_ERR_INVALID_ARGUMENT); /* reserve_pieces not called */
    int32_t *status = piece_status;
    long npl = (long)pieces;
#pragma omp parallel reduction(+ : all) reduction(max : busiest)
    {
        /* One clock reading at each end of the thread's work (a clock_gettime of a thread's CPU
         * time is a system call, ~1 us here: not one per piece). */
        double mine = thread_cpu();
#pragma omp for schedule(static) nowait
        for (long k = 0; k < npl; k++) {
            size_t b0 = (size_t)k * nb / pieces, b1 = (size_t)(k + 1) * nb / pieces, a = 0, e = 0, a1 = 0, e1 = 0;
            int32_t r = sgs_svgd_batch_rows(s, b0, &a, &e);
            if (r == SGS_OK) r = sgs_svgd_batch_rows(s, b1 - 1, &a1, &e1);
            if (r == SGS_OK) r = sgs_svgd_gradients_range(s, a, e1);
            if (r == SGS_OK) r = sgs_svgd_batches_range(s, b0, b1);
            status[k] = r;
        }
        mine = thread_cpu() - mine;
        all += mine;
        busiest = mine;
    }
    st = SGS_OK;
    for (size_t k = 0; k < pieces && st == SGS_OK; k++) st = status[k];
    if (st != SGS_OK) return cancel_after(s, st);
    double c2 = thread_cpu();
    st = sgs_svgd_finish(s, info);
    /* SGS_ERR_NON_FINITE ends the iteration itself; anything else leaves it open. */
    if (st != SGS_OK && st != SGS_ERR_NON_FINITE) return cancel_after(s, st);
    double c3 = thread_cpu();
    cpu_begin += c1 - c0, cpu_finish += c3 - c2, cpu_pieces += all, cpu_busiest += busiest;
    return st;
}

typedef struct {
    double *x, *ws;
    uint32_t *idx;
    sgs_svgd s;
} sys;

/* Allocates and initialises a system; 1 on success, else 0 after saying why on stderr. `*y` is
 * always safe to give to sys_free afterwards. */
static int sys_init(sys *y, size_t n, size_t d, size_t p, sgs_gradient_fn g, void *ud) {
    memset(y, 0, sizeof *y);
    sgs_svgd_config c = sgs_svgd_config_default(p, 0.05);
    c.bandwidth = 2.0;
    c.seed = 7;
    c.permutation = permutation;
    size_t len = sgs_svgd_workspace_len(n, d, &c);
    /* Byte counts that overflow are init's to refuse: do not let the mallocs wrap first (and
     * allocate at least a byte, so that N = 0 or d = 0 is reported by init, not as memory). */
    int sizes_ok = n <= SIZE_MAX / sizeof(double) && (d == 0 || n <= SIZE_MAX / sizeof(double) / d) &&
                   len <= SIZE_MAX / sizeof(double);
    if (sizes_ok) {
        y->x = malloc(n * d * sizeof *y->x + 1);
        y->ws = calloc(len + 1, sizeof *y->ws); /* zeroed: see svgd_mpi.c (cancel and the bitmaps) */
        y->idx = malloc(n * sizeof *y->idx + 1);
        if (!y->x || !y->ws || !y->idx) {
            fprintf(stderr, "openmp_svgd: out of memory for N %zu, d %zu\n", n, d);
            return 0;
        }
        start_particles(y->x, n, d);
    }
    int32_t st = sizes_ok ? sgs_svgd_init(&y->s, &c, y->x, n, d, y->ws, len, y->idx, n, g, NULL, ud)
                          : SGS_ERR_INVALID_ARGUMENT;
    if (st != SGS_OK) fprintf(stderr, "openmp_svgd: init (N %zu, d %zu, p %zu): %s\n", n, d, p, sgs_status_str(st));
    return st == SGS_OK;
}

static void sys_free(sys *y) {
    free(y->x), free(y->ws), free(y->idx);
}

/* `iters` iterations on `threads` threads against the serial twin: particles and info equal. */
static int same_as_serial(const char *name, size_t n, size_t d, size_t p, size_t iters, int threads,
                          sgs_gradient_fn g, void *ud) {
    sys a, b;
    memset(&b, 0, sizeof b);
    int ok = sys_init(&a, n, d, p, g, ud) && sys_init(&b, n, d, p, g, ud);
    size_t nb = n / p;
    omp_set_num_threads(threads);
    ok = ok && reserve_pieces();
    for (size_t k = 0; k < iters && ok; k++) {
        sgs_svgd_info ia, ib;
        int32_t sa = omp_iteration(&a.s, nb, &ia), sb = sgs_svgd_step(&b.s, &ib);
        if (sa != SGS_OK || sb != SGS_OK)
            fprintf(stderr, "openmp_svgd: iteration %zu: OpenMP %s, serial %s\n", k + 1, sgs_status_str(sa),
                    sgs_status_str(sb));
        ok &= sa == SGS_OK && sb == SGS_OK && memcmp(&ia, &ib, sizeof ia) == 0;
    }
    ok = ok && memcmp(a.x, b.x, n * d * sizeof *a.x) == 0;
    printf("%-9s N %6zu d %2zu p %3zu, %zu iterations on %d thread(s): %s\n", name, n, d, p, iters, threads,
           ok ? "bit-identical to sgs_svgd_step" : "DIFFERENT from sgs_svgd_step");
    sys_free(&a), sys_free(&b);
    return ok;
}

/* The serial step and the OpenMP iteration on all threads, each timed in a loop of its own (not
 * interleaved: each loop keeps its own system in the cache), from the same start; the particles
 * must agree at the end. Prints the median wall times and their ratio, and the CPU-time view:
 * per-thread clocks, which other processes taking the cores do not inflate much, give the
 * serial step's CPU time and the parallel iteration's serial part (begin + finish) and pieces;
 * (serial step) / (begin + finish + pieces / threads) is the speed-up idle cores would give if
 * the pieces shared out evenly (barring memory bandwidth and thread wake-up), the model of
 * docs/scaling.md. */
static int bench(const char *model, size_t n, size_t p, size_t iters) {
    int lr = !strcmp(model, "logistic");
    if (!lr && strcmp(model, "mixture")) {
        fprintf(stderr, "openmp_svgd: --bench: unknown model %s (mixture or logistic)\n", model);
        return 2;
    }
    if (iters < 1) {
        fprintf(stderr, "openmp_svgd: --bench: ITERS must be at least 1 (the timings are medians over them)\n");
        return 2;
    }
    lr_data data = {0};
    sys a, b;
    memset(&a, 0, sizeof a), memset(&b, 0, sizeof b);
    double *ts = NULL, *tp = NULL;
    int rc = 1;
    if (lr && !lr_make(&data)) {
        fprintf(stderr, "openmp_svgd: out of memory for the logistic model's data\n");
        goto out;
    }
    size_t d = lr ? LR_D : 1;
    sgs_gradient_fn g = lr ? lr_gradient : mixture_gradient;
    if (!sys_init(&a, n, d, p, g, &data) || !sys_init(&b, n, d, p, g, &data) || !reserve_pieces()) goto out;
    ts = iters <= SIZE_MAX / sizeof *ts ? malloc(iters * sizeof *ts) : NULL;
    tp = iters <= SIZE_MAX / sizeof *tp ? malloc(iters * sizeof *tp) : NULL;
    if (!ts || !tp) {
        fprintf(stderr, "openmp_svgd: out of memory for %zu timings\n", iters);
        goto out;
    }
    double cpu_step = 0.0;
    for (size_t k = 0; k < iters; k++) {
        double t0 = omp_get_wtime(), c0 = thread_cpu();
        int32_t st = sgs_svgd_step(&b.s, NULL);
        if (st != SGS_OK) {
            fprintf(stderr, "openmp_svgd: serial step %zu: %s\n", k + 1, sgs_status_str(st));
            goto out;
        }
        cpu_step += thread_cpu() - c0;
        ts[k] = omp_get_wtime() - t0;
    }
    cpu_begin = cpu_finish = cpu_pieces = cpu_busiest = 0.0;
    for (size_t k = 0; k < iters; k++) {
        double t0 = omp_get_wtime();
        int32_t st = omp_iteration(&a.s, n / p, NULL);
        if (st != SGS_OK) {
            fprintf(stderr, "openmp_svgd: OpenMP iteration %zu: %s\n", k + 1, sgs_status_str(st));
            goto out;
        }
        tp[k] = omp_get_wtime() - t0;
    }
    int same = memcmp(a.x, b.x, n * d * sizeof *a.x) == 0;
    qsort(ts, iters, sizeof *ts, cmp_double);
    qsort(tp, iters, sizeof *tp, cmp_double);
    double ms = ts[(iters - 1) / 2], mp = tp[(iters - 1) / 2], it = (double)iters;
    int th = omp_get_max_threads();
    double serial = (cpu_begin + cpu_finish) / it, pieces = cpu_pieces / it;
    printf("bench %s N %zu d %zu p %zu: wall serial %.6f s, %d threads %.6f s, speed-up %.2f; CPU per iteration: "
           "serial step %.6f s, begin %.6f s, finish %.6f s (serial part %.1f%%), pieces (all threads) %.6f s "
           "(%.2f x the step's), busiest thread %.6f s; model speed-up on %d idle cores %.2f; bit-identical %s\n",
           model, n, d, p, ms, th, mp, ms / mp, cpu_step / it, cpu_begin / it, cpu_finish / it,
           100.0 * serial / (cpu_step / it), pieces, pieces / (cpu_step / it - serial), cpu_busiest / it, th,
           (cpu_step / it) / (serial + pieces / (double)th), same ? "yes" : "NO");
    rc = same ? 0 : 1;
out:
    sys_free(&a), sys_free(&b);
    free(ts), free(tp);
    lr_free(&data);
    return rc;
}

/* One OpenMP iteration of the mixture (per coordinate) on one large system: the memory check of
 * docs/scaling.md. Prints the time and the bytes the sampler's buffers take. */
static int one_big(size_t n, size_t d, size_t p) {
    sys a;
    double t0 = omp_get_wtime();
    if (!sys_init(&a, n, d, p, mixture_gradient, NULL) || !reserve_pieces()) {
        printf("big N %zu d %zu: allocation or init failed\n", n, d);
        sys_free(&a);
        return 1;
    }
    double t1 = omp_get_wtime();
    sgs_svgd_info info;
    int32_t st = omp_iteration(&a.s, n / p, &info);
    double t2 = omp_get_wtime();
    sgs_svgd_config c = sgs_svgd_config_default(p, 0.05);
    c.permutation = permutation;
    size_t bytes = n * d * sizeof(double) + sgs_svgd_workspace_len(n, d, &c) * sizeof(double) + n * sizeof(uint32_t);
    printf("big N %zu d %zu p %zu: buffers %.2f GiB, init %.1f s, one iteration on %d threads %.1f s: %s\n", n, d, p,
           (double)bytes / (1024.0 * 1024.0 * 1024.0), t1 - t0, omp_get_max_threads(), t2 - t1, sgs_status_str(st));
    sys_free(&a);
    return st == SGS_OK ? 0 : 1;
}

static int usage(void) {
    fprintf(stderr, "usage: openmp_svgd [--quick]\n"
                    "       openmp_svgd --bench mixture|logistic N p ITERS\n"
                    "       openmp_svgd --big N d p\n");
    return 2;
}

int main(int argc, char **argv) {
    const char *ppt = getenv("SGS_PIECES_PER_THREAD");
    if (ppt && atol(ppt) > 0) pieces_per_thread = atol(ppt);
    const char *perm = getenv("SGS_PERMUTATION");
    if (perm && !strcmp(perm, "feistel")) permutation = SGS_PERMUTATION_FEISTEL;
    size_t a1, a2, a3;
    int rc;
    if (argc >= 2 && !strcmp(argv[1], "--big")) {
        if (argc != 5 || !parse_size(argv[2], &a1) || !parse_size(argv[3], &a2) || !parse_size(argv[4], &a3))
            return usage();
        rc = one_big(a1, a2, a3);
        free(piece_status);
        return rc;
    }
    if (argc >= 2 && !strcmp(argv[1], "--bench")) {
        if (argc != 6 || !parse_size(argv[3], &a1) || !parse_size(argv[4], &a2) || !parse_size(argv[5], &a3))
            return usage();
        rc = bench(argv[2], a1, a2, a3);
        free(piece_status);
        return rc;
    }
    if (argc > 2 || (argc == 2 && strcmp(argv[1], "--quick"))) return usage();
    int quick = argc > 1;
    lr_data data;
    if (!lr_make(&data)) {
        fprintf(stderr, "openmp_svgd: out of memory for the logistic model's data\n");
        lr_free(&data);
        return 1;
    }
    int ok = 1;
    size_t n = quick ? 2001 : 20001;
    for (int t = 1; t <= 4; t++) ok &= same_as_serial("mixture", n, 2, 8, quick ? 5 : 20, t, mixture_gradient, NULL);
    ok &= same_as_serial("mixture", 500, 1, 500, 3, 3, mixture_gradient, NULL); /* full SVGD: one batch */
    for (int t = 1; t <= 4; t += 3)
        ok &= same_as_serial("logistic", quick ? 240 : 2000, LR_D, 8, quick ? 2 : 5, t, lr_gradient, &data);
    if (!perm) { /* and with the Feistel permutation: moves in place in the pieces */
        permutation = SGS_PERMUTATION_FEISTEL;
        for (int t = 1; t <= 4; t += 3)
            ok &= same_as_serial("feistel", n, 2, 8, quick ? 5 : 20, t, mixture_gradient, NULL);
        ok &= same_as_serial("feistel", quick ? 240 : 2000, LR_D, 8, quick ? 2 : 5, 2, lr_gradient, &data);
    }
    lr_free(&data);
    free(piece_status);
    printf("openmp_svgd: %s\n", ok ? "every run bit-identical to the serial one" : "FAILED");
    return ok ? 0 : 1;
}
