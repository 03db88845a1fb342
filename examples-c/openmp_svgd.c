/* RBM-SVGD iterations on all cores with OpenMP, bit-identical to the serial sgs_svgd_step.
 *
 * An iteration is sgs_svgd_begin (the draws), then the batches shared out over the threads —
 * each batch's gradients (sgs_svgd_gradients_range over its permutation slots) and forces
 * (sgs_svgd_batches_range) — then sgs_svgd_finish, which moves every particle. The range calls
 * are safe to run concurrently on disjoint ranges and touch only their own rows, so the result
 * does not depend on the number of threads or on which thread took which batch.
 *
 *   ./openmp_svgd            # mixture and logistic regression on 1..4 threads, checked
 *   ./openmp_svgd --quick    # the same, smaller (scripts/test-examples.sh)
 *   ./openmp_svgd --bench mixture|logistic N p ITERS    # serial vs all threads, median times
 *   ./openmp_svgd --big N d p                            # one iteration of a large system
 *
 * Build: cc -std=c99 -O2 -fopenmp -Iinclude examples-c/openmp_svgd.c target/release/libsgsample.a -lm */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parallel_models.h"

/* Seconds spent in begin, in the parallel ranges and in finish, summed over iterations (for the
 * serial-fraction estimate of docs/scaling.md). */
static double t_begin, t_ranges, t_finish;

/* One iteration with the batches on the OpenMP threads (dynamic schedule: any thread may take
 * any batch). Returns the first failing status in batch order, after cancelling. */
static int32_t omp_iteration(sgs_svgd *s, size_t nb, sgs_svgd_info *info) {
    double t0 = omp_get_wtime();
    int32_t st = sgs_svgd_begin(s);
    if (st != SGS_OK) return st;
    double t1 = omp_get_wtime();
    int32_t *status = malloc(nb * sizeof *status);
    if (!status) {
        sgs_svgd_cancel(s);
        return SGS_ERR_WORKSPACE_TOO_SMALL;
    }
    long nbl = (long)nb;
#pragma omp parallel for schedule(dynamic, 4)
    for (long b = 0; b < nbl; b++) {
        size_t a = 0, e = 0;
        int32_t r = sgs_svgd_batch_rows(s, (size_t)b, &a, &e);
        if (r == SGS_OK) r = sgs_svgd_gradients_range(s, a, e);
        if (r == SGS_OK) r = sgs_svgd_batches_range(s, (size_t)b, (size_t)b + 1);
        status[b] = r;
    }
    st = SGS_OK;
    for (size_t b = 0; b < nb && st == SGS_OK; b++) st = status[b];
    free(status);
    if (st != SGS_OK) {
        sgs_svgd_cancel(s);
        return st;
    }
    double t2 = omp_get_wtime();
    st = sgs_svgd_finish(s, info);
    double t3 = omp_get_wtime();
    t_begin += t1 - t0, t_ranges += t2 - t1, t_finish += t3 - t2;
    return st;
}

typedef struct {
    double *x, *ws;
    uint32_t *idx;
    sgs_svgd s;
} sys;

static int sys_init(sys *y, size_t n, size_t d, size_t p, sgs_gradient_fn g, void *ud) {
    sgs_svgd_config c = sgs_svgd_config_default(p, 0.05);
    c.bandwidth = 2.0;
    c.seed = 7;
    size_t len = sgs_svgd_workspace_len(n, d, &c);
    y->x = malloc(n * d * sizeof *y->x);
    y->ws = malloc(len * sizeof *y->ws);
    y->idx = malloc(n * sizeof *y->idx);
    if (!y->x || !y->ws || !y->idx) return 0;
    start_particles(y->x, n, d);
    memset(&y->s, 0, sizeof y->s);
    return sgs_svgd_init(&y->s, &c, y->x, n, d, y->ws, len, y->idx, n, g, NULL, ud) == SGS_OK;
}

static void sys_free(sys *y) {
    free(y->x), free(y->ws), free(y->idx);
}

/* `iters` iterations on `threads` threads against the serial twin: particles and info equal. */
static int same_as_serial(const char *name, size_t n, size_t d, size_t p, size_t iters, int threads,
                          sgs_gradient_fn g, void *ud) {
    sys a, b;
    int ok = sys_init(&a, n, d, p, g, ud) && sys_init(&b, n, d, p, g, ud);
    size_t nb = n / p;
    omp_set_num_threads(threads);
    for (size_t k = 0; k < iters && ok; k++) {
        sgs_svgd_info ia, ib;
        ok &= omp_iteration(&a.s, nb, &ia) == SGS_OK && sgs_svgd_step(&b.s, &ib) == SGS_OK &&
              memcmp(&ia, &ib, sizeof ia) == 0;
    }
    ok &= memcmp(a.x, b.x, n * d * sizeof *a.x) == 0;
    printf("%-9s N %6zu d %2zu p %3zu, %zu iterations on %d thread(s): %s\n", name, n, d, p, iters, threads,
           ok ? "bit-identical to sgs_svgd_step" : "DIFFERENT from sgs_svgd_step");
    sys_free(&a), sys_free(&b);
    return ok;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median wall time per iteration, serial step and OpenMP iteration on all threads. */
static int bench(const char *model, size_t n, size_t p, size_t iters) {
    lr_data data = {0};
    int lr = !strcmp(model, "logistic");
    if (lr && !lr_make(&data)) return 1;
    size_t d = lr ? LR_D : 1;
    sgs_gradient_fn g = lr ? lr_gradient : mixture_gradient;
    sys a, b;
    if (!sys_init(&a, n, d, p, g, &data) || !sys_init(&b, n, d, p, g, &data)) return 1;
    double *ts = malloc(iters * sizeof *ts), *tp = malloc(iters * sizeof *tp);
    t_begin = t_ranges = t_finish = 0.0;
    for (size_t k = 0; k < iters; k++) {
        double t0 = omp_get_wtime();
        if (sgs_svgd_step(&b.s, NULL) != SGS_OK) return 1;
        double t1 = omp_get_wtime();
        if (omp_iteration(&a.s, n / p, NULL) != SGS_OK) return 1;
        double t2 = omp_get_wtime();
        ts[k] = t1 - t0, tp[k] = t2 - t1;
    }
    int same = memcmp(a.x, b.x, n * d * sizeof *a.x) == 0;
    qsort(ts, iters, sizeof *ts, cmp_double);
    qsort(tp, iters, sizeof *tp, cmp_double);
    double ms = ts[(iters - 1) / 2], mp = tp[(iters - 1) / 2];
    printf("bench %s N %zu d %zu p %zu: serial %.6f s, %d threads %.6f s, speed-up %.2f, bit-identical %s; "
           "begin+finish %.1f%% of the parallel iteration\n",
           model, n, d, p, ms, omp_get_max_threads(), mp, ms / mp, same ? "yes" : "NO",
           100.0 * (t_begin + t_finish) / (t_begin + t_ranges + t_finish));
    sys_free(&a), sys_free(&b);
    lr_free(&data);
    return same ? 0 : 1;
}

/* One OpenMP iteration of the mixture (per coordinate) on one large system: the memory check of
 * docs/scaling.md. Prints the time and the bytes the sampler's buffers take. */
static int one_big(size_t n, size_t d, size_t p) {
    sys a;
    double t0 = omp_get_wtime();
    if (!sys_init(&a, n, d, p, mixture_gradient, NULL)) {
        printf("big N %zu d %zu: allocation or init failed\n", n, d);
        return 1;
    }
    double t1 = omp_get_wtime();
    sgs_svgd_info info;
    int32_t st = omp_iteration(&a.s, n / p, &info);
    double t2 = omp_get_wtime();
    sgs_svgd_config c = sgs_svgd_config_default(p, 0.05);
    size_t bytes = n * d * sizeof(double) + sgs_svgd_workspace_len(n, d, &c) * sizeof(double) + n * sizeof(uint32_t);
    printf("big N %zu d %zu p %zu: buffers %.2f GiB, init %.1f s, one iteration on %d threads %.1f s: %s\n", n, d, p,
           (double)bytes / (1024.0 * 1024.0 * 1024.0), t1 - t0, omp_get_max_threads(), t2 - t1, sgs_status_str(st));
    sys_free(&a);
    return st == SGS_OK ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc == 5 && !strcmp(argv[1], "--big"))
        return one_big(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10));
    if (argc == 6 && !strcmp(argv[1], "--bench"))
        return bench(argv[2], strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10), strtoul(argv[5], NULL, 10));
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    lr_data data;
    if (!lr_make(&data)) return 1;
    int ok = 1;
    size_t n = quick ? 2001 : 20001;
    for (int t = 1; t <= 4; t++) ok &= same_as_serial("mixture", n, 2, 8, quick ? 5 : 20, t, mixture_gradient, NULL);
    ok &= same_as_serial("mixture", 500, 1, 500, 3, 3, mixture_gradient, NULL); /* full SVGD: one batch */
    for (int t = 1; t <= 4; t += 3)
        ok &= same_as_serial("logistic", quick ? 240 : 2000, LR_D, 8, quick ? 2 : 5, t, lr_gradient, &data);
    lr_free(&data);
    printf("openmp_svgd: %s\n", ok ? "every run bit-identical to the serial one" : "FAILED");
    return ok ? 0 : 1;
}
